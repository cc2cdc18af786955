"""Python binding to oneDNN's OpenCL and Level Zero interoperability API.

``dnnl_interop.ocl`` and ``dnnl_interop.ze`` mirror ``dnnl::ocl_interop`` and
``dnnl::ze_interop`` of oneDNN's C++ API. Importing this package loads no
oneDNN library; the first call does (see :func:`load_library`).

What is here, by task (``help()`` documents each below, except where it
names another module):

* engines and streams: ``Engine`` (``Engine.cpu()``), ``Stream``;
* memory: ``MemoryDesc``, ``Memory`` (``Memory.from_array(array, engine)``,
  ``numpy.asarray(memory)``, ``memory.mapped()``, ``numpy.from_dlpack(memory)``),
  ``from_dlpack``, ``to_array`` (any layout back into an array),
  ``MEMORY_ALLOCATE``, ``MEMORY_NONE``, ``RUNTIME_DIM``, ``format_tags()``;
* primitives: ``reorder`` (the kind ``ReorderDesc`` with attributes),
  ``reordered``, ``PrimitiveDesc``, ``Primitive``
  (``execute(stream, {Arg.SRC: memory, ...})``; ``Arg`` holds the argument
  indices, each also importable as ``ARG_SRC``, ...); ``PrimitiveAttr``,
  ``PostOps`` and ``post_op_arg``, ``scales_arg``, ``zero_points_arg``;
* the forward primitive kinds, ``MatmulDesc``, ``ConvolutionForwardDesc``,
  ... ``LRNForwardDesc``: importable from here, documented in
  ``dnnl_interop.primitives``;
* cache blobs: ``CacheBlobStore``, ``make_primitive_cached``,
  ``reorder_cached``, ``compose_key`` (and the ``cache`` module);
* oneDNN's enums: ``DataType``, ``EngineKind``, ``FormatKind``, ``PropKind``,
  ``AlgKind``, ``PrimitiveKind``, ``Query``, ...;
* the library: ``load_library``, ``version`` (a ``Version``), ``set_verbose``,
  ``get_include``;
* errors: ``DnnlError``, ``ClosedObjectError`` and ``Status``; a subclass of
  ``DnnlError`` per status (``InvalidArgumentsError``, ...),
  ``LibraryNotFoundError`` and ``MissingFunctionError`` are importable from
  here and documented in ``dnnl_interop.errors``;
* submodules: ``ocl`` and ``ze`` (the runtimes' interop), ``primitives``,
  ``errors``, ``cache``, ``embedding`` (other cffi modules), ``testing`` (the
  emulated GPU and Level Zero device, the pytest plugin), ``core`` (the core
  objects alone).

The ``dnnl_interop`` logger reports at DEBUG how long each primitive took to
make, and each cache hit, miss and refusal (``dnnl_interop.cache``).
"""

from __future__ import annotations

import os as _os
from importlib import import_module as _import_module

# Eager: _library attaches the callback through which the first C call
# finds and binds oneDNN, so it must be in place before any call.
# "X as X" marks each name as re-exported, for type checkers.
from ._library import ENV_VAR as ENV_VAR
from ._library import Library as Library
from ._library import Runtime as Runtime
from ._library import Version as Version
from ._library import check as check
from ._library import has_function as has_function
from ._library import load_library as load_library
from ._library import loaded_library as loaded_library
from ._library import set_verbose as set_verbose
from ._library import version as version
from .errors import *  # noqa: F403 - the exception hierarchy is public API

__version__ = "0.1.0"

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Any

    from . import core, ocl, primitives, ze  # noqa: F401
    from ._args import *  # noqa: F403 - the ARG_* names, not in __all__
    from .core import *  # noqa: F403
    from .primitives import *  # noqa: F403 - documented there, not in __all__


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
    "check",
    "has_function",
    "load_library",
    "loaded_library",
    "set_verbose",
    "version",
    "get_include",
    "Status",
    "DnnlError",
    "ClosedObjectError",
]
_SUBMODULES = ("core", "primitives", "ocl", "ze", "sycl", "cache", "errors", "testing")
# The public names imported on first use: `import dnnl_interop` stays cheap.
# Each module's __all__ is the one list of its names: help() documents here
# those of core (the core objects) and the cache's two everyday names; the
# primitive kinds and the exception classes are importable from here and
# listed by dir(), but documented by help() in their own module, so that
# help(dnnl_interop) shows each class once (a kind here would repeat every
# method of PrimitiveDesc, an error class those of BaseException). The ARG_*
# names (Arg's members, under their oneDNN names) come from _args, outside
# __all__: help() and dir() show Arg once instead of some 80 constants.
_FROM_CACHE = ("CacheBlobStore", "compose_key")
_DOCUMENTED_ELSEWHERE = ("primitives", "errors")


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return _import_module(f"{__name__}.{name}")
    if name == "__all__":
        return [*_SUBMODULES, *_EAGER, *_import_module(f"{__name__}.core").__all__, *_FROM_CACHE]
    if not name.startswith("_"):  # a submodule being imported is never looked for here
        for module in ("core", "cache" if name in _FROM_CACHE else "", *_DOCUMENTED_ELSEWHERE,
                       "_args" if name.startswith("ARG_") else ""):
            if module:
                found = _import_module(f"{__name__}.{module}")
                if module.startswith("_") or name in found.__all__:
                    value = getattr(found, name, _MISSING)
                    if value is not _MISSING:
                        globals()[name] = value  # found once: later uses skip this lookup (some µs each)
                        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_MISSING = object()


def __dir__() -> list[str]:
    elsewhere = (name for module in _DOCUMENTED_ELSEWHERE for name in _import_module(f"{__name__}.{module}").__all__)
    return sorted({"__version__", "Version", *__getattr__("__all__"), *elsewhere})
