"""Python binding to oneDNN's OpenCL and Level Zero interoperability API.

``dnnl_interop.ocl`` and ``dnnl_interop.ze`` mirror ``dnnl::ocl_interop`` and
``dnnl::ze_interop`` of oneDNN's C++ API. Importing this package loads no
oneDNN library; the first call does (see :func:`load_library`).

What is here, by task (each documented below):

* engines and streams: ``Engine`` (``Engine.cpu()``), ``Stream``;
* memory: ``MemoryDesc``, ``Memory`` (``numpy.asarray(memory)``,
  ``memory.mapped()``), ``MEMORY_ALLOCATE``, ``MEMORY_NONE``, ``format_tags()``;
* primitives: ``reorder``, ``reordered``, ``PrimitiveDesc``, ``Primitive``
  (``execute(stream, {Arg.SRC: memory, ...})``; ``Arg`` holds the argument
  indices, each also importable as ``ARG_SRC``, ...); the forward kinds
  ``MatmulDesc``, ``ConvolutionForwardDesc``, ... ``LRNForwardDesc``;
  ``PrimitiveAttr``, ``PostOps`` and ``post_op_arg``, ``scales_arg``,
  ``zero_points_arg``;
* cache blobs: ``CacheBlobStore``, ``make_primitive_cached``,
  ``reorder_cached``, ``compose_key`` (and the ``cache`` module);
* oneDNN's enums: ``DataType``, ``EngineKind``, ``FormatKind``, ``PropKind``,
  ``AlgKind``, ``PrimitiveKind``, ``Query``, ...;
* the library: ``load_library``, ``version``, ``set_verbose``, ``get_include``;
* errors: ``DnnlError`` and a subclass per ``Status``, ``ClosedObjectError``,
  ``LibraryNotFoundError``;
* submodules: ``ocl`` and ``ze`` (the runtimes' interop), ``cache``,
  ``embedding`` (other cffi modules), ``testing`` (the emulated GPU and Level
  Zero device, the pytest plugin), ``core`` (the core objects alone).

The ``dnnl_interop`` logger reports at DEBUG how long each primitive took to
make, and each cache hit, miss and refusal (``dnnl_interop.cache``).
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
    from ._args import *  # noqa: F403 - the ARG_* names, not in __all__
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
# The public names imported on first use, by the module that defines them:
# `import dnnl_interop` stays cheap. The ARG_* names (Arg's members, under
# their oneDNN names) come from _args too, but stay out of __all__: help()
# and dir() show Arg once instead of some 80 constants.
_LAZY = {
    "MEMORY_ALLOCATE": "_buffers",
    "UncheckedPointer": "_buffers",
    "MEMORY_NONE": "_memory",
    "EngineKind": "_enums",
    "DataType": "_enums",
    "FormatKind": "_enums",
    "Engine": "_engine",
    "Stream": "_stream",
    "MemoryDesc": "_memory_desc",
    "Memory": "_memory",
    "Primitive": "_primitive",
    "PrimitiveDesc": "_primitive",
    "reorder": "_primitive",
    "format_tags": "_validate",
    "Arg": "_args",
    "make_primitive_cached": "_cached",
    "reorder_cached": "_cached",
    "MatmulDesc": "_primitives",
    "InnerProductForwardDesc": "_primitives",
    "ConvolutionForwardDesc": "_primitives",
    "DeconvolutionForwardDesc": "_primitives",
    "EltwiseForwardDesc": "_primitives",
    "SoftmaxForwardDesc": "_primitives",
    "BinaryDesc": "_primitives",
    "PoolingForwardDesc": "_primitives",
    "BatchNormalizationForwardDesc": "_primitives",
    "LayerNormalizationForwardDesc": "_primitives",
    "GroupNormalizationForwardDesc": "_primitives",
    "ReductionDesc": "_primitives",
    "ResamplingForwardDesc": "_primitives",
    "ConcatDesc": "_primitives",
    "SumDesc": "_primitives",
    "PReLUForwardDesc": "_primitives",
    "ShuffleForwardDesc": "_primitives",
    "LRNForwardDesc": "_primitives",
    "reordered": "_primitive",
    "PrimitiveAttr": "_attr",
    "PostOps": "_attr",
    "post_op_arg": "_attr",
    "scales_arg": "_attr",
    "zero_points_arg": "_attr",
    "PropKind": "_enums",
    "AlgKind": "_enums",
    "FpmathMode": "_enums",
    "AccumulationMode": "_enums",
    "ScratchpadMode": "_enums",
    "NormalizationFlags": "_enums",
    "PrimitiveKind": "_enums",
    "Query": "_enums",
    "CacheBlobStore": "cache",
    "compose_key": "cache",
}


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return _import_module(f"{__name__}.{name}")
    if name == "__all__":
        return [*_SUBMODULES, *_EAGER, *_LAZY]
    module = _LAZY.get(name) or ("_args" if name.startswith("ARG_") else None)
    if module is not None:
        value = getattr(_import_module(f"{__name__}.{module}"), name, _MISSING)
        if value is not _MISSING:
            return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_MISSING = object()


def __dir__() -> list[str]:
    return sorted({"__version__", *__getattr__("__all__")})
