"""Building other cffi modules on dnnl_interop's C types, and handing handles across.

An out-of-line API-mode cffi module can share our types (``dnnl_engine_t``,
``cl_mem``, ``ze_device_handle_t``, the enums, ...) by including our builder;
its functions then take our handles (``engine.handle``, a typed cdata) with
their types checked, and what it makes comes back through ``from_handle``::

    import cffi
    import dnnl_interop
    from dnnl_interop import embedding

    ffi = cffi.FFI()
    ffi.include(embedding.ffibuilder())
    ffi.cdef("dnnl_engine_t my_engine(void);")
    ffi.set_source("my_module", '#include "dnnl_ocl.h"\\n...',
                   include_dirs=[dnnl_interop.get_include()],
                   extra_link_args=embedding.link_args())  # only if its C calls oneDNN

At run time ``my_module`` imports ``dnnl_interop._ffi`` for the shared types.
A module that only passes handles links nothing; one whose C calls oneDNN
links the library this binding loaded (:func:`link_args`).

cffi's limits: an API-mode builder can be included only by API-mode
(``set_source`` with C source) builders. An out-of-line ABI-mode module
(``set_source(name, None)``) cannot include it at all ("ffi.include() of a
C-based ffi inside a Python-based ffi"), and an in-line ``cffi.FFI()`` that
includes it gets copies of the types, not ours. A module with types of its
own (its own ``typedef struct dnnl_engine *dnnl_engine_t;``) is refused by
cffi when it is given our cdata: "the types are different". Such modules
pass handles as int addresses (``engine.int_ptr``); ``from_handle`` takes
their cdata by C type, and ints.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from . import _cdef, get_include
from ._library import load_library

if TYPE_CHECKING:
    import cffi

__all__ = ["ffibuilder", "link_args"]


def ffibuilder() -> cffi.FFI:
    """A cffi builder of ``dnnl_interop._ffi``, for another module's ``ffi.include()``.

    It is built from the headers of :func:`dnnl_interop.get_include`, so it
    declares exactly what the installed ``dnnl_interop._ffi`` declares.
    """
    return _cdef.make_ffibuilder(Path(get_include()))


def link_args() -> list[str]:
    """Linker arguments for a module whose C code calls oneDNN itself.

    The oneDNN library this binding uses (loaded now if it is not yet), by
    its full path. The module records the library's soname
    (``libdnnl.so.3``), not the path: imported after
    :func:`dnnl_interop.load_library`, it uses the copy already loaded, so
    handles made on either side are handles of one library. Imported first,
    the system's loader looks for ``libdnnl.so.3`` on its own.
    """
    return [load_library().path]


def __dir__() -> list[str]:
    return sorted(__all__)
