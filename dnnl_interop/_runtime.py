"""C-level helpers for an engine's runtime (CPU, OpenCL, Level Zero): no classes.

What the object modules, cached creation and ``ocl``/``ze`` all need to ask
of a C engine: which runtime it has, its OpenCL context, its device's cache
blob id, and how engines of each runtime are named in messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ._ffi import ffi, lib
from ._handles import address_of
from ._library import check
from ._library import version as _version
from ._sized import query_then_fill

if TYPE_CHECKING:
    from ._ffi import CData

# An engine of each runtime, in words, and the call that makes one.
ENGINE_NAMES = {
    "native": "a CPU or SYCL engine", "ocl": "an OpenCL engine", "ze": "a Level Zero engine",
    "sycl": "a SYCL interop engine",
}
ENGINE_MAKERS = {"ocl": "ocl.make_engine", "ze": "ze.make_engine", "sycl": "sycl.make_engine"}


def engine_runtime(engine: CData) -> str:
    """The runtime of a C engine, asked of oneDNN: "native" (CPU, SYCL), "ocl" or "ze".

    The OpenCL and Level Zero getters refuse an engine of another runtime.
    """
    kind = ffi.new("dnnl_engine_kind_t *")
    check(lib.dnnl_engine_get_kind(engine, kind), "dnnl_engine_get_kind")
    if kind[0] != lib.dnnl_gpu:
        return "native"
    if lib.dnnl_ocl_interop_get_device(engine, ffi.new("cl_device_id *")) == 0:
        return "ocl"
    if lib.dnnl_ze_interop_engine_get_device(engine, ffi.new("ze_device_handle_t *")) == 0:
        return "ze"
    return "native"


def ocl_context(engine: CData) -> int:
    """The address of an OpenCL engine's cl_context (0 for an engine of another runtime)."""
    out = ffi.new("cl_context *")
    if lib.dnnl_ocl_interop_engine_get_context(engine, out):
        return 0
    return address_of(out[0])


def check_ocl_context(objects: Sequence[object], context: int, what: str) -> None:
    """Refuse pyopencl objects of another context than ``context`` (an address; 0: not known).

    oneDNN does not check; OpenCL would fail (or worse) when the work runs.
    A bare int handle cannot be asked: it is taken as given.
    """
    if not context:
        return
    for i, obj in enumerate(objects):
        if not (hasattr(obj, "int_ptr") and hasattr(type(obj), "context")):  # not a pyopencl object
            continue
        if obj.context.int_ptr != context:  # type: ignore[attr-defined]
            name = what if len(objects) == 1 else f"{what}[{i}]"
            raise ValueError(f"{name}: of another OpenCL context than the engine's")


def ocl_engine_blob_id(device: CData) -> bytes:
    """``dnnl_ocl_interop_engine_get_cache_blob_id`` of a checked ``cl_device_id``."""
    return query_then_fill(
        lib.dnnl_ocl_interop_engine_get_cache_blob_id, "dnnl_ocl_interop_engine_get_cache_blob_id", device
    )


def ze_engine_blob_id(driver: CData, device: CData) -> bytes:
    """``dnnl_ze_interop_engine_get_cache_blob_id`` of a checked driver and device."""
    return query_then_fill(
        lib.dnnl_ze_interop_engine_get_cache_blob_id, "dnnl_ze_interop_engine_get_cache_blob_id", driver, device
    )


def engine_blob_id(engine: CData) -> tuple[str | None, bytes]:
    """``(runtime, the cache blob id of its device)`` of a C engine; ``(None, b"")``
    for an engine that makes no cache blobs (CPU)."""
    runtime = engine_runtime(engine)
    if runtime == "ocl":
        device = ffi.new("cl_device_id *")
        check(lib.dnnl_ocl_interop_get_device(engine, device), "dnnl_ocl_interop_get_device")
        return "ocl", ocl_engine_blob_id(device[0])
    if runtime == "ze":
        driver, ze_device = ffi.new("ze_driver_handle_t *"), ffi.new("ze_device_handle_t *")
        check(lib.dnnl_ze_interop_engine_get_driver(engine, driver), "dnnl_ze_interop_engine_get_driver")
        check(lib.dnnl_ze_interop_engine_get_device(engine, ze_device), "dnnl_ze_interop_engine_get_device")
        return "ze", ze_engine_blob_id(driver[0], ze_device[0])
    return None, b""


def library_version() -> tuple[int, int]:
    """(major, minor) of the bound oneDNN, for the engine cache-blob check."""
    found = _version()
    return found.major, found.minor
