"""Test support for code built on oneDNN's OpenCL and Level Zero interop.

:mod:`dnnl_interop.testing.emulated_gpu` gives a test suite a real oneDNN
OpenCL GPU engine on machines without an Intel GPU (Intel's CPU OpenCL
runtime presented as a Gen9 GPU by an OpenCL loader layer), as a function, a
context manager, a child-process runner and, through the pytest plugin
:mod:`dnnl_interop.testing.pytest_plugin`, the fixture ``emulated_gpu`` and
the option ``--emulated-gpu``; :mod:`~dnnl_interop.testing.emulated_level_zero`
does the same for Level Zero. :mod:`~dnnl_interop.testing.sycl_devices` makes
the SYCL devices (the CPU device, or the emulated GPU) visible to dpctl and dpnp.

:func:`check_size_query_protocol` checks any C function that hands out bytes
by size query and fill against oneDNN's rules (see
:mod:`dnnl_interop.testing.protocol`), and
:mod:`dnnl_interop.testing.strategies` has Hypothesis strategies for status
codes, memory descriptors, blob ids and blobs, and damaged cache files.

Importing this package imports neither pyopencl, nor oneDNN, nor hypothesis
(only ``strategies`` needs it).
"""

from __future__ import annotations

from importlib import import_module as _import_module
from types import ModuleType as _ModuleType

from .protocol import RULES, ProtocolReport, check_size_query_protocol

__all__ = [
    "RULES",
    "ProtocolReport",
    "check_size_query_protocol",
    "emulated_gpu",
    "emulated_level_zero",
    "strategies",
    "sycl_devices",
]

_SUBMODULES = ("emulated_gpu", "emulated_level_zero", "strategies", "sycl_devices")


def __getattr__(name: str) -> _ModuleType:
    # Submodules on first use: strategies imports hypothesis, the emulators ctypes and more.
    if name in _SUBMODULES:
        return _import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
