"""oneDNN's core objects in one namespace: engines, streams, memory and primitives.

Each is defined in a module of its own (``_engine``, ``_stream``,
``_memory_desc``, ``_memory``, ``_primitive``; cached creation in
``_cached``) and re-exported here and at the top of the package, where
users reach them: ``dnnl_interop.Engine``. The execute-argument indices are
:class:`Arg`; each is importable under its oneDNN name too (``ARG_SRC`` is
``Arg.SRC``), left out of ``__all__`` so that ``help()`` and ``dir()`` stay short.
"""

from __future__ import annotations

from ._args import *  # noqa: F403 - ARG_SRC, ... (Arg's members): generated from the headers
from ._args import Arg
from ._arrays import to_array
from ._attr import PostOps, PrimitiveAttr, post_op_arg, scales_arg, zero_points_arg
from ._buffers import MEMORY_ALLOCATE, UncheckedPointer
from ._cached import make_primitive_cached, reorder_cached
from ._engine import Engine
from ._enums import (
    AccumulationMode,
    AlgKind,
    DataType,
    EngineKind,
    FormatKind,
    FpmathMode,
    NormalizationFlags,
    PrimitiveKind,
    PropKind,
    Query,
    ScratchpadMode,
)
from ._exchange import from_dlpack
from ._execution import BoundExecution
from ._memory import MEMORY_NONE, Memory
from ._memory_desc import RUNTIME_DIM, MemoryDesc
from ._primitive import Primitive, PrimitiveDesc, reorder, reordered
from ._stream import Stream
from ._validate import format_tags

__all__ = [
    "MEMORY_ALLOCATE",
    "UncheckedPointer",
    "MEMORY_NONE",
    "EngineKind",
    "DataType",
    "FormatKind",
    "Engine",
    "Stream",
    "MemoryDesc",
    "RUNTIME_DIM",
    "Memory",
    "Primitive",
    "reorder",
    "format_tags",
    "Arg",
    "PrimitiveDesc",
    "BoundExecution",
    "make_primitive_cached",
    "reorder_cached",
    "reordered",
    "from_dlpack",
    "to_array",
    "PrimitiveAttr",
    "PostOps",
    "post_op_arg",
    "scales_arg",
    "zero_points_arg",
    "PropKind",
    "AlgKind",
    "FpmathMode",
    "AccumulationMode",
    "ScratchpadMode",
    "NormalizationFlags",
    "PrimitiveKind",
    "Query",
]


def __dir__() -> list[str]:
    return sorted(__all__)
