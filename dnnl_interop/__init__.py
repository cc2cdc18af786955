"""Python binding to oneDNN's OpenCL and Level Zero interoperability API.

``dnnl_interop.ocl`` and ``dnnl_interop.ze`` mirror ``dnnl::ocl_interop`` and
``dnnl::ze_interop`` of oneDNN's C++ API. Importing this package loads no
oneDNN library; the first call does (see :func:`load_library`).
"""

from __future__ import annotations

import os as _os
from importlib import import_module as _import_module

# Eager: _library attaches the callback through which the first C call
# finds and binds oneDNN, so it must be in place before any call.
from ._library import (  # noqa: F401 - re-exported (see __getattr__ for __all__)
    ENV_VAR,
    Library,
    Runtime,
    Version,
    check,
    has_function,
    load_library,
    loaded_library,
    set_verbose,
    version,
)
from .errors import *  # noqa: F403 - the exception hierarchy is public API
from .errors import __all__ as _errors_all

__version__ = "0.1.0"

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Any

    from . import core, ocl, ze  # noqa: F401
    from .core import *  # noqa: F403


def get_include() -> str:
    """The directory of the trimmed oneDNN headers this package was built from.

    Other cffi modules can ``ffi.include()`` ours (``dnnl_interop._ffi.ffi``)
    and compile against these headers to share its C types.
    """
    here = _os.path.dirname(__file__)
    installed = _os.path.join(here, "headers")  # the wheel maps headers/ here
    if _os.path.isdir(installed):
        return installed
    return _os.path.join(_os.path.dirname(here), "headers")  # a source checkout


_EAGER = [
    "ENV_VAR",
    "Library",
    "Runtime",
    "Version",
    "check",
    "has_function",
    "load_library",
    "loaded_library",
    "set_verbose",
    "version",
    "get_include",
    *_errors_all,
]
_SUBMODULES = ("core", "ocl", "ze", "cache", "testing")
# Names of the cache-blob store, exported here like core's.
_CACHE_NAMES = ("CacheBlobStore", "compose_key")


# core, ocl, ze and cache (and the names exported here from core: Engine,
# Memory, ARG_*, ...; from cache: CacheBlobStore) are imported on first use,
# which keeps `import dnnl_interop` cheap.
def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return _import_module(f"{__name__}.{name}")
    if name in _CACHE_NAMES:
        return getattr(_import_module(f"{__name__}.cache"), name)
    core = _import_module(f"{__name__}.core")
    if name == "__all__":
        return [*_SUBMODULES, *_EAGER, *_CACHE_NAMES, *core.__all__]
    if name in core.__all__:
        return getattr(core, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({"__version__", *__getattr__("__all__")})
