"""Building other cffi modules on dnnl_interop's C types.

An out-of-line API-mode cffi module can share our types (``dnnl_engine_t``,
``cl_mem``, ``ze_device_handle_t``, the enums, ...) so that handles pass
between the two modules with their types checked::

    import cffi
    import dnnl_interop
    from dnnl_interop.embedding import ffibuilder as dnnl_ffibuilder

    ffi = cffi.FFI()
    ffi.include(dnnl_ffibuilder())
    ffi.cdef("void my_function(dnnl_engine_t engine, cl_mem buffer);")
    ffi.set_source("my_module", '#include "dnnl_ocl.h"\\n...',
                   include_dirs=[dnnl_interop.get_include()])

At run time ``my_module`` imports ``dnnl_interop._ffi`` for the shared types;
nothing links libdnnl.
"""

from __future__ import annotations

from pathlib import Path

from . import _cdef, get_include

__all__ = ["ffibuilder"]


def ffibuilder():
    """A cffi builder of ``dnnl_interop._ffi``, for another module's ``ffi.include()``.

    It is built from the headers of :func:`dnnl_interop.get_include`, so it
    declares exactly what the installed ``dnnl_interop._ffi`` declares.
    """
    return _cdef.make_ffibuilder(Path(get_include()))
