"""SYCL devices for dpctl and dpnp in an environment made by pip.

In a virtual environment with the PyPI runtimes, dpctl sees no device at
all: the CPU OpenCL runtime's registration file names a placeholder path,
and the runtime wheel's OpenCL loader cannot find the runtime's own
dependencies (``libsvml.so`` & co.) when it opens it. Loading oneDNN through
this binding fixes both for the process (it registers the driver with
``OCL_ICD_FILENAMES`` and loads the runtime's libraries first), but only if it
happens before SYCL starts, at the first question dpctl or dpnp asks it (a
device list, a queue, an array).
:func:`enable` does it in that order and returns the devices dpctl sees. With
the emulated GPU on (``emulated_gpu.enable()`` first, or the pytest plugin's
``emulated_gpu`` fixture), the device is ``opencl:gpu``; otherwise it is the
CPU device ``opencl:cpu``.
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["SyclDevicesError", "enable"]


class SyclDevicesError(RuntimeError):
    """dpctl sees no SYCL device, and this process can no longer change that."""


def enable() -> list[Any]:
    """Make the SYCL devices visible to dpctl in this process; return ``dpctl.get_devices()``.

    Call it before dpctl or dpnp asks SYCL anything (a test suite's ``conftest.py``,
    a script's first lines; importing them is fine). Calling it again returns the
    same devices.

    Raises:
        SyclDevicesError: dpctl sees no device: SYCL was started before (by dpctl or dpnp),
            or the environment has no SYCL runtime for the device.
        LibraryNotFoundError: oneDNN cannot be loaded (it is what sets the environment up).
        ImportError: dpctl is not installed.
    """
    started = "dpctl" in sys.modules  # SYCL may have been started: a possible reason below
    from .. import load_library

    load_library()
    import dpctl

    devices: list[Any] = dpctl.get_devices()
    if not devices:
        why = (
            "dpctl may have asked SYCL for devices before oneDNN was loaded, and SYCL started without "
            "the CPU OpenCL driver; call dnnl_interop.testing.sycl_devices.enable() before dpctl or "
            "dpnp is first used"
            if started
            else "the SYCL runtime finds no device (python -m dnnl_interop info checks the setup)"
        )
        raise SyclDevicesError(f"dpctl sees no SYCL device: {why}")
    return devices


def __dir__() -> list[str]:
    return sorted(__all__)
