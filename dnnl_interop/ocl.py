"""OpenCL interoperability: ``dnnl::ocl_interop`` for Python.

Foreign handles may be pyopencl objects, int addresses or cffi pointers.
"""

from __future__ import annotations


from ._ffi import lib
from ._handles import as_handle
from ._sized import query_then_fill

__all__ = ["get_engine_cache_blob_id"]


def get_engine_cache_blob_id(device: object) -> bytes:
    """The id of the cache blob oneDNN would make for ``device``.

    Two devices with equal ids can share a cache blob. ``device`` is a
    ``pyopencl.Device``, an int ``cl_device_id`` or a cffi pointer.
    """
    return query_then_fill(
        lib.dnnl_ocl_interop_engine_get_cache_blob_id,
        "dnnl_ocl_interop_engine_get_cache_blob_id",
        as_handle(device, "cl_device_id", "device"),
    )
