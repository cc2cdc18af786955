"""Submitting work to a stream: checking the arguments, registering what the
work uses (see ``_stream``), and explaining a refused execution.

Every execute goes through :func:`submit`: ``Primitive.execute``,
``ocl.execute`` and ``ze.execute``. On an OpenCL stream, an execute given
memories made over ``pyopencl.array.Array`` objects is ordered with their
events (``_array_events``): ``Primitive.execute`` then goes through OpenCL's
execute, which takes dependencies.

This module reads other objects' private state where executing is the point,
each read marked ``# noqa: SLF001`` with its kind: an *execute record* (what a
Primitive or PrimitiveDesc takes at each argument, ``_primitive._set_args``;
what a Memory gives there, ``_memory.make_memory_object``: the fields
``csrc/fastpath.c`` reads by name too), the stream's *ledger* (``_inflight``),
a handle read *under the lock* a close takes, the *held objects* a primitive
keeps, and a binding as one of its objects' *users* (``_owned``).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, cast

from . import _stream
from ._args import ARGS, Arg
from ._array_events import OclExecute, arrays_behind, execute_over_arrays
from ._buffers import array_types
from ._engine import runtime_of
from ._enums import DataType, PrimitiveKind, PropKind
from ._ffi import ffi, lib
from ._inflight import Ledger, fast, fast_method
from ._library import status_error
from ._memory import Memory
from ._memory_desc import MemoryDesc, desc_of, layout_key
from ._owned import Owned, closed_error, shared
from ._runtime import ENGINE_NAMES
from ._runtime_dims import check_layout, check_shapes, has_runtime_dims
from ._stream import Stream
from ._validate import row_major_strides
from .errors import ClosedObjectError, InvalidArgumentsError, Status, make_error

if TYPE_CHECKING:
    from ._ffi import CData

_EXEC_ARGS = ffi.typeof("dnnl_exec_arg_t[]")
_PRIMITIVE_TYPE = ffi.typeof("dnnl_primitive_t")
_shared = shared
_call_keys = _shared.call_keys
_NULL = ffi.NULL
_new = ffi.new
_plain_execute = lib.dnnl_primitive_execute  # routed through OpenCL's execute when Arrays are behind the memories
_fast_bound, _fast_bound_wait = fast["execute_bound"], fast["execute_bound_wait"]
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1
# The first item of the layout a primitive expects at its scales and zero points:
# (VALUES, data type), values of that type read in order, whatever the memory's shape.
VALUES = "values"


class Executable(Protocol):
    """What submitting needs of a primitive (``_primitive.Primitive``)."""

    _arg_sizes: dict[int, int]
    _arg_layouts: dict[int, tuple[object, ...]]
    _required: tuple[int, ...]
    _accepted_workspace: weakref.ref[Memory] | None
    _handle: CData | None
    _keep: tuple[Any, ...]


def submit(
    primitive: Executable,
    stream: Stream,
    args: Mapping[int, Memory | None],
    keep: tuple[object, ...],
    call: Callable[..., int],
    name: str,
    runtime: str | None = None,
) -> None:
    """Check and register everything, then ``call(c_primitive, c_stream, nargs, c_args)``.

    ``args`` maps ``ARG_*`` indices to Memory objects (None passes NULL);
    ``keep`` holds other objects the work uses (dependency events);
    ``runtime`` ("ocl", "ze") the engine runtime ``call`` needs. Every
    object is registered as in flight on ``stream`` before its handle is
    read, so a close from another thread defers its destroy.

    This is the hot path of every execution: plain attribute and dict
    operations, the unusual cases sent to ``_refuse`` and ``_explain``.
    """
    try:
        sizes, layouts, required = primitive._arg_sizes, primitive._arg_layouts, primitive._required  # noqa: SLF001 - execute record
    except AttributeError:
        sizes = None
    if sizes is None or not isinstance(primitive, Owned):
        raise TypeError(f"primitive: expected a dnnl_interop.Primitive, got {type(primitive).__name__}")
    if not isinstance(stream, Stream):
        raise TypeError(f"stream: expected a dnnl_interop.Stream, got {type(stream).__name__}")
    try:
        items = args.items()
    except AttributeError:
        raise TypeError(f"args: expected a mapping of ARG_* to Memory, got {type(args).__name__}") from None
    # the one door from a stream to its ledger (see _inflight)
    ledger = stream._ledger  # noqa: SLF001 - ledger
    if _stream.admission:  # at interpreter exit, or in a forked process
        _stream.admission(ledger, name)
    lock = ledger.lock
    lock.acquire()
    try:
        # closing takes the lock: it stays open while we hold it
        c_stream = stream._handle  # noqa: SLF001 - under the lock
        if c_stream is None:  # checked first: a closed stream would never let go of what it kept
            raise closed_error(stream, "stream")
        epoch = ledger.stamp() if ledger.events else ledger.epoch
        register = ledger.register
        register(primitive, epoch)
        entries: list[tuple[int, CData | None]] = []  # no None reaches C: _refuse raises for those
        for index, memory in items:
            if memory is None:
                entries.append((index if type(index) is Arg or type(index) is int else _arg_index(index), _NULL))
                continue
            try:
                register(memory, epoch)  # AttributeError: no object of this binding (or one never set up)
                # read after registering (see _inflight); AttributeError: no Memory
                handle = memory._executable  # noqa: SLF001 - execute record
            except AttributeError:
                # Another object of this binding (the primitive itself, a stream...) stays registered: the
                # next wait lets go of it with the rest (forgetting it would also drop a registration of
                # earlier work still in flight). Anything else is forgotten.
                if not isinstance(memory, Owned):
                    ledger.forget(memory)
                given = type(memory).__name__
                raise TypeError(f"{_what(index)}: expected a dnnl_interop.Memory, got {given}") from None
            layout = layouts.get(index)
            # Plain ints and Arg members (ints as they are) take the fast path; bools and other types do not.
            if (handle is None or (type(index) is not int and type(index) is not Arg)
                    or memory._size < sizes.get(index, 0)  # noqa: SLF001 - execute record
                    or (layout is not None and layout is not memory._layout)):  # noqa: SLF001 - execute record
                index = _refuse(index, memory, sizes, layouts, primitive)
            entries.append((index, handle))
        if keep:
            ledger.keep(epoch, keep)
        c_primitive = primitive._handle  # noqa: SLF001 - under the lock
        if c_primitive is None:
            raise ClosedObjectError("primitive: this Primitive is closed")
        last_entries, c_args = ledger.last_args
        if entries != last_entries:
            try:
                c_args = _new(_EXEC_ARGS, entries)
            except OverflowError:
                for index, _ in entries:
                    _arg_index(index)
                raise
            ledger.last_args = (entries, c_args)
            if ledger.on_cpu and not _stream.cpu_work_submitted:  # every stream's first submission comes here
                _stream.cpu_work_submitted = True
        if required:  # usually none; oneDNN would read these through NULL
            for index in required:
                if args.get(index) is None:
                    raise _missing_workspace(name, primitive) if index == _WORKSPACE else \
                        _missing(name, required, items)
            if _WORKSPACE in required:
                _refuse_other_forward(primitive, cast(Memory, args[_WORKSPACE]))
            if has_runtime_dims(layouts[required[-1]]):  # _set_args puts runtime-dims arguments last
                check_shapes(args, layouts, _arg_name)
        if array_types and (call is _plain_execute or type(call) is OclExecute):
            # A memory over a pyopencl Array exists: order the work with the events of those given.
            status = execute_over_arrays(call, stream, ledger, items, array_types[0], c_primitive, c_stream,
                                         len(entries), c_args)
        else:
            status = call(c_primitive, c_stream, len(entries), c_args)
        if status:
            raise _explain(status, name, primitive, stream, list(items), runtime)
    finally:
        lock.release()


def _address(pointer: CData) -> int:
    return int(ffi.cast("uintptr_t", pointer))


def _what(index: object) -> str:
    """How messages name a key of ``args``: ``args[1] (ARG_FROM, ARG_SRC, ...)`` for an
    ``ARG_*`` index (``Arg.SRC`` as the int), ``args['src']`` for anything else."""
    if isinstance(index, int) and not isinstance(index, bool) and _INT_MIN <= index <= _INT_MAX:
        return _arg_name(int(index))
    return f"args[{index!r}]"


def _arg_index(index: object) -> int:
    if (type(index) is not int and not isinstance(index, int)) or isinstance(index, bool):
        raise TypeError(f"args: keys are ARG_* indices (ints), got {index!r}")
    if not _INT_MIN <= index <= _INT_MAX:
        raise ValueError(f"args: {index} is not an ARG_* index (a C int)")
    return int(index)


def _refuse(
    index: object, memory: Memory, sizes: Mapping[int, int], layouts: Mapping[int, tuple[object, ...]],
    primitive: Executable | None = None,
) -> int:
    """Raise the error for an argument the fast path did not take, or return its index.

    ``primitive`` (its handle) lets a message show the descriptor it expects there."""
    index = _arg_index(index)
    what = _arg_name(index)
    if memory._handle is None:  # noqa: SLF001 - execute record
        raise ClosedObjectError(f"{what}: this Memory is closed")
    _refuse_read_only(what, index, memory)
    if memory._repointing:  # noqa: SLF001 - execute record
        raise RuntimeError(
            f"{what}: the memory is being given another buffer in another thread (set_data_handle); "
            "execute once that returns"
        )
    if memory._executable is None:  # noqa: SLF001 - execute record
        raise ValueError(
            f"{what}: the memory has no buffer (MEMORY_NONE); give it one "
            "(set_data_handle, ocl.set_mem_object) before executing"
        )
    expected, given = layouts.get(index), memory._layout  # noqa: SLF001 - execute record
    if expected is not None and expected[0] == VALUES:  # scales or zero points
        _check_values(what, memory, expected[1], sizes[index])
        return index
    if expected is not None and has_runtime_dims(expected):  # a concrete memory for a runtime-dims one
        check_layout(what, memory, expected)
        return index
    # A layout key starts (data type, shape): with those equal, only the layout differs (a plain
    # memory where oneDNN chose a padded blocked one is smaller), and the layout error names the fix.
    too_small = memory._size < sizes.get(index, 0)  # noqa: SLF001 - execute record
    if index == _WORKSPACE and expected is not None and (expected != given or too_small):
        raise ValueError(_other_workspace(what, memory, primitive))
    if expected is not None and (expected != given or too_small):
        if index >= _POST_OP_ARGS and index % _POST_OP_ARGS == lib.DNNL_ARG_WEIGHTS:
            raise ValueError(_other_prelu_weights(what, memory, expected))
        raise ValueError(_other_layout(what, index, memory, expected, primitive))
    if too_small:
        raise ValueError(
            f"{what}: the memory holds {memory._size} bytes, the primitive "  # noqa: SLF001 - execute record
            f"uses {sizes[index]} there ({memory.desc!r} is not its descriptor)"
        )
    return index


# The execute arguments oneDNN writes: its outputs, the workspace and the scratchpad
# (mean and variance too: a forward training pass writes them).
_OUTPUT_NAMES = ("DST", "TO", "DIFF_SRC", "DIFF_WEIGHTS", "DIFF_BIAS", "DIFF_SCALE", "DIFF_SHIFT", "WORKSPACE",
                 "SCRATCHPAD", "MEAN", "VARIANCE", "REDUCE", "ATTR_DROPOUT_MASK")
_OUTPUTS = frozenset(value for name, value in ARGS.items() if name.removeprefix("ARG_").startswith(_OUTPUT_NAMES))


def _refuse_read_only(what: str, index: int, memory: Memory) -> None:
    """A memory over a read-only tensor (``Memory._mark_read_only``) is refused where oneDNN
    writes, before anything runs. Such a memory's layout key never takes the fast path."""
    if getattr(memory, "_read_only", False) and (
        index in _OUTPUTS or lib.DNNL_ARG_MULTIPLE_DST <= index < lib.DNNL_ARG_MULTIPLE_DST + lib.DNNL_ARG_MULTIPLE_SRC
    ):
        raise ValueError(
            f"{what}: the memory is over a read-only tensor (from_dlpack of a read-only array); "
            "oneDNN writes this argument: give a writable memory"
        )


# Data types a reorder converts between on every engine: a memory of another of
# these, of the right shape, is brought to the expected descriptor by reordered().
_REORDERABLE = frozenset({DataType.F32, DataType.F16, DataType.BF16, DataType.S32, DataType.S8, DataType.U8})


def _other_layout(
    what: str, index: int, memory: Memory, expected: tuple[object, ...], primitive: Executable | None
) -> str:
    """The message for a memory whose shape, data type or layout is not the one the primitive
    computes with at ``index`` (oneDNN would read it as that one and compute garbage)."""
    desc = memory.desc
    wanted = _expected_desc(primitive, index)
    shown = repr(wanted) if wanted is not None else f"desc.arg_desc({index})"
    wanted_dtype, wanted_shape = expected[0], expected[1]
    if desc.shape != wanted_shape:
        return (
            f"{what}: the memory's shape, {desc.shape}, is not the one the primitive takes there, "
            f"{wanted_shape} (it expects {shown}; the memory is {desc!r}). The shapes differ, and a reorder "
            "changes only a layout: give a memory of the shape the primitive was made for"
        )
    reorder = f"bring this one there with dnnl_interop.reordered(memory, desc.arg_desc({index}), stream)"
    if desc.data_type != wanted_dtype:
        fix = reorder if {desc.data_type, wanted_dtype} <= _REORDERABLE else "convert the data to that type"
        wanted_name = wanted_dtype.name.lower() if isinstance(wanted_dtype, DataType) else wanted_dtype
        return (
            f"{what}: the memory holds {desc.data_type.name.lower()}, the primitive reads {wanted_name} there "
            f"(it expects {shown}; the memory is {desc!r}); give a memory of that descriptor, or {fix}"
        )
    return (
        f"{what}: the memory's layout, {desc!r}, is not the one the primitive computes with there, "
        f"{shown}; oneDNN would read it as that layout and compute garbage. Give a memory of "
        f"desc.arg_desc({index}), or {reorder}"
    )


_POST_OP_ARGS = lib.DNNL_ARG_ATTR_MULTIPLE_POST_OP_BASE
# The layout oneDNN reads a PReLU post-op's weights in, by rank (see _primitive._prelu_weights).
PRELU_TAGS = {1: "a", 2: "ab", 3: "acb", 4: "acdb", 5: "acdeb"}


def _other_prelu_weights(what: str, memory: Memory, expected: tuple[object, ...]) -> str:
    """The message for PReLU post-op weights of another shape, data type or layout than oneDNN reads."""
    shape = cast(tuple[int, ...], expected[1])
    tag = PRELU_TAGS[len(shape)]
    return (
        f"{what}: the weights of this PReLU post-op are {memory.desc!r}; oneDNN reads them as f32 of shape "
        f"{shape} (dst's size where the mask sets a bit, 1 elsewhere) in layout {tag!r}, whatever the memory's "
        f"descriptor says: give a memory of MemoryDesc({shape}, 'f32', {tag!r})"
    )


def _expected_desc(primitive: Executable | None, index: int) -> MemoryDesc | None:
    """The descriptor the primitive expects at ``index`` (None where it cannot say)."""
    handle = getattr(primitive, "_handle", None)
    if handle is None or ffi.typeof(handle) is not _PRIMITIVE_TYPE:
        return None
    pd = _new("const_dnnl_primitive_desc_t *")
    if lib.dnnl_primitive_get_primitive_desc(handle, pd):
        return None
    md = lib.dnnl_primitive_desc_query_md(pd[0], lib.dnnl_query_exec_arg_md, index)
    return None if md == _NULL else desc_of(md)


def _check_values(what: str, memory: Memory, dtype: object, size: int) -> None:
    """Scales or zero points: oneDNN reads ``size`` bytes of ``dtype`` values as one dense block,
    in row-major order of the grouped dimensions, whatever the memory's descriptor says."""
    desc = memory.desc
    name = dtype.name.lower() if isinstance(dtype, DataType) else dtype
    if memory._layout[0] != dtype or memory._size != size:  # noqa: SLF001 - execute record
        raise ValueError(
            f"{what}: the primitive reads {size} bytes of {name} "
            f"scales or zero points there, in order; the memory is {desc!r}"
        )
    strides, shape = desc.strides, desc.shape
    if strides is not None and all(
        dim == 1 or stride == dense for dim, stride, dense in zip(shape, strides, row_major_strides(shape), strict=True)
    ):
        return
    raise ValueError(
        f"{what}: the memory, {desc!r}, does not hold its values in row-major order: oneDNN reads "
        f"scales and zero points as {size} bytes of {name} in row-major order of the grouped dimensions "
        "(the last one fastest), so these would apply to the wrong elements. Give them row-major: "
        "numpy.ascontiguousarray(values) and MemoryDesc.from_array of it, or a descriptor of plain tag "
        "('a', 'ab', ...)"
    )



# --- workspaces: what a forward training execution writes for its backward one ---------------------

_WORKSPACE = lib.DNNL_ARG_WORKSPACE
_PD_TYPE = ffi.typeof("const_dnnl_primitive_desc_t")


class WorkspaceOrigin:
    """What the binding remembers of a workspace it allocated (``workspace_memory``):
    the forward descriptor it was made for (weakly), how messages name it, what makes
    another forward descriptor interchangeable with it (``forward_signature``), and
    the primitives already found to be of that forward."""

    __slots__ = ("forward", "described", "signature", "accepted")

    def __init__(self, forward: object, described: str, signature: tuple[object, ...]) -> None:
        self.forward = weakref.ref(forward)
        self.described, self.signature = described, signature
        self.accepted: weakref.WeakSet[object] = weakref.WeakSet()


# The workspaces the binding allocated, by memory (a plain Memory of the same descriptor has none).
workspace_origins: weakref.WeakKeyDictionary[Memory, WorkspaceOrigin] = weakref.WeakKeyDictionary()


def _query_md(pd: CData, query: int) -> MemoryDesc | None:
    md = lib.dnnl_primitive_desc_query_md(pd, query, 0)
    return None if md == _NULL or not lib.dnnl_memory_desc_get_size(md) else desc_of(md)


def _query(pd: CData, query: int, ctype: str) -> Any:
    out = _new(ctype)
    return out[0] if not lib.dnnl_primitive_desc_query(pd, query, 0, out) else None


def forward_signature(pd: CData) -> tuple[object, ...]:
    """What makes two forward training descriptors write the same workspace: the kind,
    algorithm, flags, implementation, descriptors and every parameter oneDNN answers
    (pooling's strides, kernel, dilation and padding; LRN's size, alpha, beta and k; epsilon)."""
    found: list[object] = []
    for query in (lib.dnnl_query_primitive_kind, lib.dnnl_query_prop_kind, lib.dnnl_query_alg_kind):
        found.append(_query(pd, query, "int *"))
    found.append(_query(pd, lib.dnnl_query_flags, "unsigned *"))
    impl = _query(pd, lib.dnnl_query_impl_info_str, "const char **")
    found.append(None if impl is None or impl == _NULL else ffi.string(impl))
    src = _query_md(pd, lib.dnnl_query_src_md)
    for query in (lib.dnnl_query_src_md, lib.dnnl_query_dst_md, lib.dnnl_query_workspace_md):
        desc = src if query == lib.dnnl_query_src_md else _query_md(pd, query)
        found.append(None if desc is None else layout_key(desc))
    spatial = max(src.ndim - 2, 0) if src is not None else 0
    for query in (lib.dnnl_query_strides, lib.dnnl_query_kernel, lib.dnnl_query_dilations,
                  lib.dnnl_query_padding_l, lib.dnnl_query_padding_r):
        dims = _query(pd, query, "dnnl_dims_t **")
        found.append(None if dims is None or dims == _NULL else tuple(dims[0][0:spatial]))
    found.append(_query(pd, lib.dnnl_query_local_size_s64, "int64_t *"))
    for query in (lib.dnnl_query_alpha_f32, lib.dnnl_query_beta_f32, lib.dnnl_query_k_f32,
                  lib.dnnl_query_epsilon_f32):
        found.append(_query(pd, query, "float *"))
    return tuple(found)


def described_forward(pd: CData) -> str:
    """How messages name a forward descriptor: its kind and descriptors."""
    kind = _query(pd, lib.dnnl_query_primitive_kind, "int *")
    name = PrimitiveKind(kind).name.lower().replace("_", " ") if kind in PrimitiveKind._value2member_map_ else "a"
    parts = [f"{what} {desc!r}" for what, desc in (
        ("src", _query_md(pd, lib.dnnl_query_src_md)), ("dst", _query_md(pd, lib.dnnl_query_dst_md)),
        ("workspace", _query_md(pd, lib.dnnl_query_workspace_md))) if desc is not None]
    return f"the forward {name} descriptor of {', '.join(parts)}"


def _primitive_pd(primitive: Executable | None) -> CData | None:
    handle = getattr(primitive, "_handle", None)
    if handle is None or ffi.typeof(handle) is not _PRIMITIVE_TYPE:
        return None
    pd = _new("const_dnnl_primitive_desc_t *")
    return None if lib.dnnl_primitive_get_primitive_desc(handle, pd) else pd[0]


def _is_backward(pd: CData) -> bool:
    return _query(pd, lib.dnnl_query_prop_kind, "int *") in (PropKind.BACKWARD, PropKind.BACKWARD_DATA,
                                                             PropKind.BACKWARD_WEIGHTS, PropKind.BACKWARD_BIAS)


def _forward_of(primitive: Executable, pd: CData) -> tuple[CData, object] | None:
    """The forward descriptor whose workspace ``primitive`` (of descriptor ``pd``) writes
    or reads, and the object of this binding holding it: the primitive's own for a
    forward one, the ``hint_fwd_pd`` it keeps for a backward one (None if it keeps none)."""
    if not _is_backward(pd):
        return pd, primitive
    for held in primitive._keep:  # noqa: SLF001 - held objects
        handle = getattr(held, "_handle", None) if isinstance(held, Owned) else None
        if handle is not None and getattr(type(held), "_ctype", "") == "dnnl_primitive_desc_t":
            return handle, held
    return None


def _refuse_other_forward(primitive: Executable, memory: Memory) -> None:
    """A workspace the binding allocated for one forward descriptor, given to a primitive of
    another whose workspace has the same descriptor (oneDNN would use it: wrong gradients)."""
    origin = workspace_origins.get(memory)
    if origin is not None and primitive not in origin.accepted:
        _check_forward(primitive, origin)
        origin.accepted.add(primitive)
    if hasattr(type(primitive), "_accepted_workspace"):  # a Primitive: the record the C fast path reads
        # memory's one basic weak reference
        primitive._accepted_workspace = weakref.ref(memory)  # noqa: SLF001 - execute record


def _check_forward(primitive: Executable, origin: WorkspaceOrigin) -> None:
    """Raise unless ``primitive``'s forward writes the workspace ``origin`` describes."""
    pd = _primitive_pd(primitive)
    forward = None if pd is None else _forward_of(primitive, pd)
    if forward is not None and forward[1] is not origin.forward() and forward_signature(forward[0]) != origin.signature:
        role = "backward primitive was made with hint_fwd_pd" if forward[1] is not primitive else "primitive is of"
        raise ValueError(
            f"{_arg_name(_WORKSPACE)}: this workspace was allocated for {origin.described}, but this {role} "
            f"{described_forward(forward[0])}, another forward (its workspace has the same descriptor, but "
            "holds other positions: the gradients would be wrong without an error). Give the workspace "
            "allocated for this primitive's own forward descriptor and written by its forward execution "
            "(dnnl_interop.workspace_memory(fwd_pd))"
        )


def _missing_workspace(name: str, primitive: Executable) -> Exception:
    """The error for a forward training or backward execute without the workspace it needs."""
    pd = _primitive_pd(primitive)
    desc = None if pd is None else _query_md(pd, lib.dnnl_query_workspace_md)
    shown = "" if desc is None else f" ({desc!r})"
    if pd is not None and _is_backward(pd):
        detail = (
            f"{_arg_name(_WORKSPACE)}: this backward primitive reads the workspace{shown} its forward training "
            "execution wrote, and none is given: give the memory that execution had as ARG_WORKSPACE "
            "(dnnl_interop.workspace_memory(hint_fwd_pd) allocates it for the forward)"
        )
    else:
        detail = (
            f"{_arg_name(_WORKSPACE)}: this forward training primitive writes a workspace{shown} for its "
            "backward pass, and none is given: allocate it with dnnl_interop.workspace_memory(fwd_pd) (or "
            "Memory(fwd_pd.workspace_desc(), engine)), give it here, then give the same memory to the backward "
            "execution"
        )
    return make_error(Status.INVALID_ARGUMENTS, name, detail, detail)


def _other_workspace(what: str, memory: Memory, primitive: Executable | None) -> str:
    """The message for a workspace whose descriptor is not the one the primitive reads or writes."""
    origin = workspace_origins.get(memory)
    made = f"allocated for {origin.described}" if origin is not None else \
        "not allocated by dnnl_interop.workspace_memory, so the forward it came from is unknown"
    pd = _primitive_pd(primitive)
    if pd is None:
        return f"{what}: the workspace, {memory.desc!r} ({made}), is not the one this primitive uses"
    expected = _query_md(pd, lib.dnnl_query_workspace_md)
    forward = _forward_of(cast(Executable, primitive), pd)
    if _is_backward(pd):
        whose = f"made with hint_fwd_pd, {described_forward(forward[0])}" if forward is not None else "made"
        return (
            f"{what}: the workspace is {memory.desc!r}, {made}; this backward primitive, {whose}, reads "
            f"{expected!r}. oneDNN would read it as that one and the gradients would be wrong without an error: "
            "give the workspace that hint_fwd_pd's forward training execution wrote "
            "(dnnl_interop.workspace_memory(hint_fwd_pd) allocates it)"
        )
    return (
        f"{what}: the workspace is {memory.desc!r}, {made}; this forward training primitive writes "
        f"{expected!r}: give dnnl_interop.workspace_memory(fwd_pd) of its own descriptor"
    )


def _explain(
    status: int,
    name: str,
    primitive: Executable,
    stream: Stream,
    items: list[tuple[int, Memory | None]],
    runtime: str | None,
) -> Exception:
    """The error for a failed execute: oneDNN's, with what the binding can see of why.

    Only on failure, so the checks cost the successful path nothing.
    """
    error = status_error(status, name)
    if not isinstance(error, InvalidArgumentsError):
        return error  # a missing function, a runtime failure: nothing to explain
    engine = stream.engine
    if runtime is not None and runtime_of(engine) != runtime:
        detail = (
            f"stream: a stream of {ENGINE_NAMES[runtime_of(engine)]}; "
            f"it needs a stream of {ENGINE_NAMES[runtime]}"
        )
        return status_error(status, name, detail)
    engines = primitive._keep  # noqa: SLF001 - held objects
    if engine not in engines:
        return status_error(status, name, "stream: on another engine than the primitive (make both on one engine)")
    given = {index for index, memory in items if memory is not None}
    if any(index not in given for index in primitive._arg_sizes):  # noqa: SLF001 - execute record
        return _missing(name, primitive._arg_sizes, items)  # noqa: SLF001 - execute record
    for index, memory in items:
        if memory is not None and memory.engine not in engines:
            return status_error(status, name, f"{_arg_name(index)}: the memory is on another engine than the primitive")
    return error


def _missing(name: str, described: Iterable[int], items: Iterable[tuple[int, Memory | None]]) -> Exception:
    """The error for an execute without (or with None for) an argument the primitive describes."""
    given = {index for index, memory in items if memory is not None}
    wanted = " and ".join(_arg_name(index) for index in described if index not in given)
    return status_error(Status.INVALID_ARGUMENTS, name, f"args: the primitive needs {wanted}, not given")


def _arg_name(index: int) -> str:
    """``args[1] (ARG_SRC, ARG_SRC_0, ...)``: an execute argument and the names it has."""
    names = sorted(key for key, value in ARGS.items() if value == index) or [_attr_arg_name(index)]
    return f"args[{index}] ({', '.join(names)})"


def _attr_arg_name(index: int) -> str:
    """How an attribute's execute argument is made: ``post_op_arg(0, ARG_SRC_1)``, ``scales_arg(ARG_SRC)``."""
    def name(value: int) -> str | int:  # Arg's own name of an index: ARG_SRC, not its alias ARG_FROM
        return f"ARG_{Arg(value).name}" if value in Arg._value2member_map_ else value

    post_op, rest = divmod(index, 32768)
    if post_op:
        return f"post_op_arg({post_op - 1}, {name(rest)})"
    for maker, bit in (("scales_arg", 4096), ("zero_points_arg", 8192)):
        if index & bit:
            return f"{maker}({name(index & ~bit)})"
    for base in (Arg.MULTIPLE_SRC, Arg.MULTIPLE_DST):
        if base < index < base + 1024:
            return f"ARG_{base.name} + {index - base}"
    return "no ARG_* name"


class BoundExecution:
    """An execute checked once, to submit many times: ``Primitive.bind(stream, args)``.

    Every check of an execute (types, argument indices, sizes, layouts) runs
    when it is made; :meth:`execute` only registers the work as in flight, as
    any execute does (so a wait, a close or a re-pointing treats it the same),
    checks that nothing was closed since, and calls oneDNN. The memories'
    buffers may change meanwhile (``set_data_handle``): oneDNN reads them at
    each submission. Memories over ``pyopencl.array.Array`` objects on an
    OpenCL stream make every :meth:`execute` a full ``Primitive.execute``:
    the Arrays' events, which order it, are read anew at each submission.

    It holds the handles of its primitive and memories, as a primitive holds
    its engine's: one of them closed meanwhile is refused at once, and its
    handle destroyed when the binding lets go (:meth:`close`, the end of a
    ``with`` block, or when it is dropped).

    Raises:
        TypeError, ValueError, ClosedObjectError: as ``Primitive.execute``, for the arguments
            (when made by ``Primitive.bind``).
    """

    __slots__ = ("_primitive", "_stream", "_ledger", "_objects", "_pending", "_memories", "_over_arrays",
                 "_c_call", "_c_call_and_wait", "_call", "_call_and_wait", "_name", "_args", "_key", "_checked",
                 "_fast")

    def __init__(self, primitive: Executable, stream: Stream, args: Mapping[int, Memory | None],
                 call: Callable[..., int], call_and_wait: Callable[..., int], name: str) -> None:
        # call_and_wait: call, then the stream's wait, as one C function of two NULL function
        # pointers and call's arguments: 0, the call's status, or the wait's status negated
        # (lib.dnnl_interop_execute_and_wait).
        self._key: int | None = None  # nothing held yet: __del__ may run if this fails
        self._checked = -1  # _shared.changes when the objects were last found unchanged
        # What the C fast path (_inflight.fast's execute_bound) reads, None where it never applies.
        self._fast: tuple[object, ...] | None = None
        captured: list[tuple[CData, CData, int, CData]] = []

        def capture(c_primitive: CData, c_stream: CData, nargs: int, c_args: CData) -> int:
            captured.append((c_primitive, c_stream, nargs, c_args))
            return 0

        args = dict(args) if isinstance(args, Mapping) else args
        submit(primitive, stream, args, (), capture, name)  # every check, nothing reaches oneDNN
        # The C calls' arguments, built once (the stream's handle is checked open at each call).
        self._c_call, = captured
        self._c_call_and_wait = (_NULL, _NULL, *self._c_call)
        memories = [(memory, memory._executable) for memory in args.values() if memory is not None]  # noqa: SLF001 - execute record
        self._primitive, self._stream = primitive, stream
        # the one door from a stream to its ledger (see _inflight)
        self._ledger = stream._ledger  # noqa: SLF001 - ledger
        self._memories = tuple(memories)
        self._objects: tuple[Owned, ...] = (cast(Owned, primitive), *(memory for memory, _ in memories))
        self._pending = {id(obj): obj for obj in self._objects}
        self._call, self._call_and_wait, self._name, self._args = call, call_and_wait, name, args
        # Memories over pyopencl Arrays on an OpenCL stream: each execute orders itself with the
        # Arrays' events as they are then, so it takes submit's path (see _unchanged).
        self._over_arrays = bool(array_types) and runtime_of(stream.engine) == "ocl" \
            and bool(arrays_behind(args.items(), array_types[0]))
        key = -next(_call_keys)
        for obj in self._objects:  # held from now on (a handle closed meanwhile is refused at each call)
            # a binding is a user of its handles (see _owned)
            obj._depend(key)  # noqa: SLF001 - users
        self._key = key
        if call is _plain_execute and not self._over_arrays:
            # The C call's arguments as addresses: _c_call keeps them valid, the binding its handles.
            # (objects by id, their in-flight records (each object's one dict), the ledger and its sid, the
            # stream, and the C call's primitive, stream, nargs and args; see csrc/fastpath.c).
            c_primitive, c_stream, nargs, c_args = self._c_call
            records = tuple(obj._in_flight for obj in self._objects)  # noqa: SLF001 - ledger
            self._fast = (self._pending, records, self._ledger, self._ledger.sid, stream, _address(c_primitive),
                          _address(c_stream), nargs, _address(c_args))

    def close(self) -> None:
        """Let go of the primitive's and the memories' handles (destroying those closed
        meanwhile); the binding refuses to execute afterwards. Closing twice is harmless.

        Raises nothing: waits for an execute with its wait under way in another thread.
        """
        with self._ledger.lock:  # never during an execute with its wait, which relies on them
            key, self._key = self._key, None
            self._fast = None
        self._let_go(key)

    def __del__(self) -> None:
        # Nothing runs a method of an object being finalized: no lock needed.
        key, self._key = getattr(self, "_key", None), None  # unset if __init__ failed early
        self._let_go(key)

    def _let_go(self, key: int | None) -> None:
        if key is not None:
            for obj in self._objects:
                obj._release(key)  # noqa: SLF001 - users

    def __enter__(self) -> BoundExecution:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def execute(self, wait: bool = False) -> None:
        """Submit the work again, as ``primitive.execute(stream, args)`` would.

        With ``wait=True``, then wait for the stream, as ``stream.wait()``
        would: the loop of execute then wait in one call, with the least
        Python work and one call into C for both (the stream stays locked
        throughout, so other threads' submissions to it wait for this call).

        Raises:
            ClosedObjectError: the binding, the primitive, the stream or a memory was closed since.
            ValueError: a memory has no buffer now (MEMORY_NONE).
            ForkedProcessError: on a CPU engine, in a process forked after CPU work (see
                ``Stream``'s at-fork hook).
            InvalidArgumentsError, DnnlError: oneDNN refuses the execution, or reports a
                failure of the work or of the wait.
        """
        # Replaced below by a method of C that does what this does (see _inflight.fast_method).
        return self._after_fast_execute(wait, _fast_bound_wait(self) if wait else _fast_bound(self))

    def _after_fast_execute(self, wait: bool, status: int | None) -> None:
        """:meth:`execute` once the C path answered: None, every case in Python; a status,
        oneDNN's refusal (positive) or a failed wait (negated)."""
        if status is None:
            return self._execute(wait)
        if status > 0:
            raise _explain(status, self._name, self._primitive, self._stream, list(self._args.items()), None)
        if status:
            raise status_error(-status, "dnnl_stream_wait")
        return None

    def _execute(self, wait: bool) -> None:
        """:meth:`execute`, in Python: every case."""
        stream, ledger = self._stream, self._ledger
        lock = ledger.lock
        lock.acquire()
        try:
            if self._key is None:
                raise ClosedObjectError("bound: this BoundExecution is closed")
            c_stream = stream._handle  # noqa: SLF001 - under the lock
            if wait:  # the loop users run: kept in this one function, with the least Python work
                if c_stream is None or not ledger.idle or _stream.admission:
                    return self._unlocked(self._execute_then_wait)  # other work in flight, or a refusal
                if _shared.changes != self._checked and not self._unchanged():
                    return self._unlocked(self._submit_then_wait)
                # The binding holds every handle used here and nothing else can be submitted to
                # the stream meanwhile, so nothing is registered: once the call returns, the
                # work is done. Only if the wait may not have finished it (the wait failed, or an
                # interruption came as the call returned) is it registered as in flight, as below.
                in_flight = True  # set first: an interruption after the call must not lose the work
                try:
                    status = self._call_and_wait(*self._c_call_and_wait)
                    if status > 0:
                        in_flight = False  # refused: nothing runs
                        raise _explain(status, self._name, self._primitive, stream, list(self._args.items()), None)
                    if status:
                        raise status_error(-status, "dnnl_stream_wait")
                    in_flight = False
                finally:
                    if in_flight:
                        ledger.register_all(self._pending, ledger.epoch)
                return
            if c_stream is None or ledger.events or _stream.admission:
                return self._submit_checked()
            ledger.register_all(self._pending, ledger.epoch)  # registered first, then read: see _inflight
            if _shared.changes != self._checked and not self._unchanged():  # read after registering
                return self._submit_checked()
            status = self._call(*self._c_call)
            if status:
                raise _explain(status, self._name, self._primitive, stream, list(self._args.items()), None)
        finally:
            lock.release()

    def _unchanged(self) -> bool:
        """Whether the memories have the buffers they were bound with, after something
        closed or changed buffers somewhere (``_shared.changes`` moved since the last check).

        Raises:
            ClosedObjectError: the primitive was closed since.
        """
        changes = _shared.changes  # read first: a change during the checks is seen at the next call
        if self._primitive._handle is not self._c_call[0]:  # noqa: SLF001 - under the lock
            raise ClosedObjectError("primitive: this Primitive is closed")
        if self._over_arrays:  # never checked once and for all: the Arrays' events change at every call
            return False
        for memory, handle in self._memories:
            # closed, or given another buffer since
            if memory._executable is not handle:  # noqa: SLF001 - execute record
                return False
        self._checked = changes
        return True

    def _unlocked(self, call: Callable[[], None]) -> None:
        """``call()`` with the stream's lock released (it takes what it needs). Holds the lock."""
        lock = self._ledger.lock
        lock.release()
        try:
            call()
        finally:
            lock.acquire()

    def _execute_then_wait(self) -> None:
        self.execute()
        self._stream.wait()

    def _submit_then_wait(self) -> None:
        submit(self._primitive, self._stream, self._args, (), self._call, self._name)
        self._stream.wait()

    def _submit_checked(self) -> None:
        """Something changed since the binding: an execute with every check. Holds the lock."""
        self._unlocked(lambda: submit(self._primitive, self._stream, self._args, (), self._call, self._name))


fast_method(BoundExecution, "execute", "($self, wait=False)", "execute_bound")
# The C fast path (_inflight.fast) checks what submit checks first, against these.
fast["configure"](Stream, Memory, Arg, vars(_stream), array_types, _shared, _PRIMITIVE_TYPE,
                  ffi.typeof("dnnl_stream_t"), ffi.typeof("dnnl_memory_t"), workspace_origins)
# ... and reads these slots through their descriptors (the class of every object it reads them of).
fast["slots"]({name: vars(cls)[name] for cls, names in (
    (Owned, ("_handle", "_in_flight")), (Stream, ("_ledger",)), (Memory, ("_executable", "_size", "_layout")),
    (Ledger, ("lock", "events", "deps", "pending", "epoch", "sid", "on_cpu")), (BoundExecution, ("_fast", "_checked")),
) for name in names})
