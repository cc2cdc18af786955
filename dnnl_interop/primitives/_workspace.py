"""Workspaces: the memory a forward training execution writes and its backward execution reads
(where max pooling found each maximum, LRN's sums, the ReLU mask of a batch normalization)."""

from __future__ import annotations

from .._engine import Engine
from .._enums import PropKind, Query
from .._execution import WorkspaceOrigin, described_forward, forward_signature, workspace_origins
from .._memory import Memory
from .._owned import closed_error, using
from .._primitive import PrimitiveDesc

__all__ = ["workspace_memory"]


def workspace_memory(fwd_pd: PrimitiveDesc, engine: Engine | None = None) -> Memory:
    """A memory for the workspace of forward training descriptor ``fwd_pd``: in C++,
    ``memory(fwd_pd.workspace_desc(), engine)``, remembered as ``fwd_pd``'s.

    Give it as ``ARG_WORKSPACE`` to the forward training execution, which writes it,
    then the same memory to the backward execution of the descriptor made with
    ``hint_fwd_pd=fwd_pd``, which reads it. Execute refuses it (before oneDNN
    sees it) for a primitive whose forward is another descriptor: oneDNN would
    read a workspace of the same descriptor written by another forward and give
    wrong gradients without an error. ``engine``: the descriptor's engine
    (needed only for a descriptor adopted without one).

    Raises:
        TypeError: ``fwd_pd`` is not a :class:`~dnnl_interop.PrimitiveDesc`, or ``engine`` not an
            :class:`~dnnl_interop.Engine`.
        ValueError: ``fwd_pd`` is not made for ``PropKind.FORWARD_TRAINING``, has no workspace
            (``fwd_pd.workspace_desc()`` is None: execute without one), or was adopted without
            an engine and none is given.
        ClosedObjectError: ``fwd_pd`` or ``engine`` is closed.
        DnnlError: oneDNN cannot allocate the memory.
    """
    if not isinstance(fwd_pd, PrimitiveDesc):
        raise TypeError(f"fwd_pd: expected a dnnl_interop.PrimitiveDesc, got {type(fwd_pd).__name__}")
    if engine is not None and not isinstance(engine, Engine):
        raise TypeError(f"engine: expected a dnnl_interop.Engine or None, got {type(engine).__name__}")
    if fwd_pd.closed:
        raise closed_error(fwd_pd, "fwd_pd")
    prop = fwd_pd.query_s32(Query.PROP_KIND)
    if prop != PropKind.FORWARD_TRAINING:
        shown = PropKind(prop).name if prop in PropKind._value2member_map_ else str(prop)
        raise ValueError(
            f"fwd_pd: a descriptor made for PropKind.{shown}; a workspace is written by a forward training "
            "execution for its backward one: allocate it for the forward descriptor made with "
            "prop_kind=PropKind.FORWARD_TRAINING (the backward's hint_fwd_pd)"
        )
    desc = fwd_pd.workspace_desc()
    if desc is None:
        raise ValueError(
            "fwd_pd: this forward training descriptor needs no workspace (workspace_desc() is None): execute it "
            "and its backward primitive without ARG_WORKSPACE"
        )
    engine = engine if engine is not None else fwd_pd.engine
    if engine is None:
        raise ValueError("engine: fwd_pd was adopted without an engine; give the engine it was made on")
    with using((fwd_pd, PrimitiveDesc, "fwd_pd")) as pd:
        origin = WorkspaceOrigin(fwd_pd, described_forward(pd), forward_signature(pd))
    memory = Memory(desc, engine)  # the memory's descriptor from now on: not closed here
    workspace_origins[memory] = origin
    return memory
