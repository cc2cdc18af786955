"""Level Zero interoperability: ``dnnl::ze_interop`` for Python.

Level Zero handles are opaque: ints, cffi pointers, or objects exposing the
raw handle through ``int_ptr`` or ``__int__``.
"""

from __future__ import annotations


from ._ffi import lib
from ._handles import as_handle
from ._sized import query_then_fill

__all__ = ["get_engine_cache_blob_id"]


def get_engine_cache_blob_id(driver: object, device: object) -> bytes:
    """The id of the cache blob oneDNN would make for ``device`` of ``driver``."""
    return query_then_fill(
        lib.dnnl_ze_interop_engine_get_cache_blob_id,
        "dnnl_ze_interop_engine_get_cache_blob_id",
        as_handle(driver, "ze_driver_handle_t", "driver"),
        as_handle(device, "ze_device_handle_t", "device"),
    )
