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
links the library this binding loaded (:func:`link_args`), and must be
imported after this binding loaded it: :func:`import_module` does both in
order. Imported first, it fails with the system loader's ``ImportError:
libdnnl.so.3: cannot open shared object file``, which nothing can amend.

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

import importlib
from pathlib import Path
from typing import TYPE_CHECKING

from . import _cdef, get_include
from ._library import SONAME, load_library

if TYPE_CHECKING:
    from types import ModuleType

    import cffi

__all__ = ["ffibuilder", "link_args", "import_module"]


def ffibuilder() -> cffi.FFI:
    """A cffi builder of ``dnnl_interop._ffi``, for another module's ``ffi.include()``.

    It is built from the headers of :func:`dnnl_interop.get_include`, so it
    declares the types, constants and functions the installed ``dnnl_interop._ffi``
    shares. It is for ``ffi.include()`` only: cffi reads its declarations and
    the module's name, and its C source refuses to compile.
    """
    return _cdef.make_include_builder(Path(get_include()))


def link_args() -> list[str]:
    """Linker arguments for a module whose C code calls oneDNN itself.

    The oneDNN library this binding uses (loaded now if it is not yet), by
    its full path. The module records the library's soname
    (``libdnnl.so.3``), not the path: imported after
    :func:`dnnl_interop.load_library`, it uses the copy already loaded, so
    handles made on either side are handles of one library. Imported first,
    the system's loader looks for ``libdnnl.so.3`` on its own and, unless
    ``LD_LIBRARY_PATH`` or the system has one, fails with ``ImportError:
    libdnnl.so.3: cannot open shared object file``: import the module with
    :func:`import_module`, which loads oneDNN first.

    Raises:
        LibraryNotFoundError: no oneDNN library can be loaded.
    """
    return [load_library().path]


def import_module(name: str, package: str | None = None) -> ModuleType:
    """``importlib.import_module(name, package)`` after loading oneDNN: for a module
    linked with :func:`link_args`, which then uses the library this binding uses.

    Importing such a module before oneDNN is loaded fails in the system's
    loader (``libdnnl.so.3: cannot open shared object file``); this order
    cannot fail that way, and binds both to one copy of the library.

    Raises:
        LibraryNotFoundError: no oneDNN library can be loaded (the message lists the places
            tried).
        ImportError: the module cannot be imported; when the system's loader still finds no
            oneDNN library for it, the message says which library this binding loaded.
    """
    library = load_library()
    try:
        return importlib.import_module(name, package)
    except ImportError as exc:
        if "cannot open shared object file" not in str(exc) or "libdnnl" not in str(exc):
            raise
        raise ImportError(
            f"{name}: {exc}; dnnl_interop loaded {library.path} (soname {SONAME}), which the module "
            "does not link: rebuild it with extra_link_args=dnnl_interop.embedding.link_args()",
            name=exc.name, path=exc.path,
        ) from exc


def __dir__() -> list[str]:
    return sorted(__all__)
