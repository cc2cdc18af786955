"""Making the runtime wheel's CPU OpenCL driver visible to the OpenCL loader.

oneDNN's CPU engine in the PyPI build runs on SYCL over Intel's CPU OpenCL
runtime (``libintelocl.so``, from the ``intel-opencl-rt`` wheel). The OpenCL
ICD loader finds drivers through registration files, and the one that wheel
ships names a placeholder path, so in a plain virtual environment oneDNN sees
no CPU device. When the binding loads oneDNN from a wheel it therefore adds
that driver to ``OCL_ICD_FILENAMES`` in its own process, unless it is
registered already. The Khronos loader oneDNN uses treats the variable as
additive (to ``/etc/OpenCL/vendors`` and ``OCL_ICD_VENDORS``) and reads it at
its first call, which comes later, at the first engine. pyopencl's own loader
ignores this variable; ``OCL_ICD_VENDORS`` serves pyopencl (see README).

Set ``DNNL_INTEROP_REGISTER_CPU_OPENCL=0`` to leave the environment alone.
"""

from __future__ import annotations

import os

OPT_OUT = "DNNL_INTEROP_REGISTER_CPU_OPENCL"
DRIVER = "libintelocl.so"
SYSTEM_VENDORS = "/etc/OpenCL/vendors"


def register_cpu_driver(library_directory: str) -> str | None:
    """Register ``library_directory``'s CPU driver if needed; a note of what was done."""
    driver = os.path.join(library_directory, DRIVER)
    if not os.path.isfile(driver):
        return None
    if os.environ.get(OPT_OUT) == "0":
        return f"{driver} not registered with the OpenCL loader ({OPT_OUT}=0)"
    if _registered():
        return None
    current = os.environ.get("OCL_ICD_FILENAMES")
    os.environ["OCL_ICD_FILENAMES"] = f"{current}:{driver}" if current else driver
    return f"registered {driver} with the OpenCL loader (OCL_ICD_FILENAMES, this process)"


def _registered() -> bool:
    """Whether some registration already names an existing Intel CPU driver."""
    named = [n for n in os.environ.get("OCL_ICD_FILENAMES", "").split(":") if n]
    directory = os.environ.get("OCL_ICD_VENDORS") or SYSTEM_VENDORS
    if os.path.isdir(directory):
        for entry in sorted(os.listdir(directory)):
            if entry.endswith(".icd"):
                try:
                    with open(os.path.join(directory, entry), encoding="utf-8", errors="replace") as icd:
                        named.append(icd.read().strip())
                except OSError:
                    continue
    return any(os.path.basename(name) == DRIVER and os.path.isfile(name) for name in named)
