"""Python binding to oneDNN's OpenCL and Level Zero interoperability API.

``dnnl_interop.ocl`` and ``dnnl_interop.ze`` mirror ``dnnl::ocl_interop`` and
``dnnl::ze_interop`` of oneDNN's C++ API. Importing this package loads no
oneDNN library; the first call does (see :func:`load_library`).
"""

from __future__ import annotations

import os as _os

from . import core, ocl, ze
from .core import *  # noqa: F403 - Engine, Stream, Memory, ..., ARG_* constants
from .core import __all__ as _core_all
from ._library import (
    ENV_VAR,
    Library,
    Runtime,
    Version,
    has_function,
    load_library,
    loaded_library,
    set_verbose,
    version,
)
from .errors import *  # noqa: F403 - the exception hierarchy is public API
from .errors import __all__ as _errors_all

__version__ = "0.1.0"


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


__all__ = [
    "ocl",
    "ze",
    "ENV_VAR",
    "Library",
    "Runtime",
    "Version",
    "has_function",
    "load_library",
    "loaded_library",
    "set_verbose",
    "version",
    "get_include",
    *_core_all,
    *_errors_all,
]
