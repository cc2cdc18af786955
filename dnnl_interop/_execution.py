"""Submitting work to a stream: checking the arguments, registering what the
work uses (see ``_stream``), and explaining a refused execution.

Every execute goes through :func:`submit`: ``Primitive.execute``,
``ocl.execute`` and ``ze.execute``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from . import _stream
from ._args import ARGS
from ._ffi import ffi
from ._library import status_error
from ._memory import Memory
from ._owned import Owned
from ._runtime import ENGINE_NAMES
from ._stream import Stream
from .errors import ClosedObjectError, InvalidArgumentsError, Status

if TYPE_CHECKING:
    from ._ffi import CData

_EXEC_ARGS = ffi.typeof("dnnl_exec_arg_t[]")
_NULL = ffi.NULL
_new = ffi.new
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1


class Executable(Protocol):
    """What submitting needs of a primitive (``_primitive.Primitive``)."""

    _arg_sizes: dict[int, int]
    _arg_layouts: dict[int, tuple[object, ...]]
    _unchecked: tuple[int, ...]
    _handle: CData | None
    _users: dict[object, int]
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
    sizes = getattr(primitive, "_arg_sizes", None)
    layouts = getattr(primitive, "_arg_layouts", None)
    if sizes is None or layouts is None or not isinstance(primitive, Owned):
        raise TypeError(f"primitive: expected a dnnl_interop.Primitive, got {type(primitive).__name__}")
    if not isinstance(stream, Stream):
        raise TypeError(f"stream: expected a dnnl_interop.Stream, got {type(stream).__name__}")
    try:
        items = args.items()
    except AttributeError:
        raise TypeError(f"args: expected a mapping of ARG_* to Memory, got {type(args).__name__}") from None
    if _stream.exiting:
        raise RuntimeError("the interpreter is exiting: no new work is submitted")
    sid = id(stream)
    lock = stream._lock
    lock.acquire()
    try:
        c_stream = stream._handle  # closing takes the lock: it stays open while we hold it
        if c_stream is None:  # checked first: a closed stream would never let go of what it kept
            raise ClosedObjectError("stream: this Stream is closed")
        if stream._events:
            stream._let_go_finished()
        epoch = stream._epoch
        pending = stream._pending
        primitive._users[sid] = epoch
        pending[id(primitive)] = primitive
        entries: list[tuple[int, CData | None]] = []  # no None reaches C: _refuse raises for those
        for index, memory in items:
            if memory is None:
                entries.append((_arg_index(index), _NULL))
                continue
            try:
                memory._users[sid] = epoch
                handle = memory._executable  # read after registering: see _owned
            except AttributeError:
                raise TypeError(
                    f"args[{index!r}]: expected a dnnl_interop.Memory, got {type(memory).__name__}"
                ) from None
            pending[id(memory)] = memory
            layout = layouts.get(index)
            if (handle is None or type(index) is not int or memory._size < sizes.get(index, 0)
                    or (layout is not None and layout is not memory._layout)):
                index = _refuse(index, memory, sizes, layouts)
            entries.append((index, handle))
        for index in primitive._unchecked:  # usually none: a user scratchpad, scales, zero points
            if index not in args:
                raise _not_given(index, name)
        if keep:
            stream._deps.extend((epoch, obj) for obj in keep)
        c_primitive = primitive._handle
        if c_primitive is None:
            raise ClosedObjectError("primitive: this Primitive is closed")
        last_entries, c_args = stream._last
        if entries != last_entries:
            try:
                c_args = _new(_EXEC_ARGS, entries)
            except OverflowError:
                for index, _ in entries:
                    _arg_index(index)
                raise
            stream._last = (entries, c_args)
        status = call(c_primitive, c_stream, len(entries), c_args)
        if status:
            raise _explain(status, name, primitive, stream, list(items), runtime)
    finally:
        lock.release()


def _arg_index(index: object) -> int:
    if (type(index) is not int and not isinstance(index, int)) or isinstance(index, bool):
        raise TypeError(f"args: keys are ARG_* indices (ints), got {index!r}")
    if not _INT_MIN <= index <= _INT_MAX:
        raise ValueError(f"args: {index} is not an ARG_* index (a C int)")
    return int(index)


def _refuse(
    index: object, memory: Memory, sizes: Mapping[int, int], layouts: Mapping[int, tuple[object, ...]]
) -> int:
    """Raise the error for an argument the fast path did not take, or return its index."""
    index = _arg_index(index)
    what = f"args[{index!r}]"
    if memory._handle is None:
        raise ClosedObjectError(f"{what}: this Memory is closed")
    if memory._repointing:
        raise RuntimeError(
            f"{what}: the memory is being given another buffer in another thread (set_data_handle); "
            "execute once that returns"
        )
    if memory._executable is None:
        raise ValueError(
            f"{what}: the memory has no buffer (MEMORY_NONE); give it one "
            "(set_data_handle, ocl.set_mem_object) before executing"
        )
    expected = layouts.get(index)
    # A layout key starts (data type, shape): with those equal, only the layout differs (a plain
    # memory where oneDNN chose a padded blocked one is smaller), and that error names the fix.
    if memory._size < sizes.get(index, 0) and (expected is None or expected[:2] != memory._layout[:2]):
        raise ValueError(
            f"{what}: the memory holds {memory._size} bytes, the primitive "
            f"uses {sizes[index]} there ({memory.desc!r} is not its descriptor)"
        )
    if expected is not None and expected != memory._layout:  # equal but not interned: the same layout
        raise ValueError(
            f"{what}: the memory's layout, {memory.desc!r}, is not the one the primitive computes with "
            f"there; oneDNN would read it as that layout and compute garbage. Give a memory of "
            f"desc.arg_desc({index}), or bring this one there with dnnl_interop.reordered(memory, "
            f"desc.arg_desc({index}), stream)"
        )
    return index


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
    arg = _arg_name
    engine = stream.engine
    if runtime is not None and engine._runtime != runtime:
        detail = (
            f"stream: a stream of {ENGINE_NAMES[engine._runtime]}; "
            f"it needs a stream of {ENGINE_NAMES[runtime]}"
        )
        return status_error(status, name, detail)
    engines = primitive._keep
    if engine not in engines:
        return status_error(status, name, "stream: on another engine than the primitive (make both on one engine)")
    given = {index for index, memory in items if memory is not None}
    missing = [index for index in primitive._arg_sizes if index not in given]
    if missing:
        wanted = " and ".join(arg(i) for i in missing)
        return status_error(status, name, f"args: the primitive needs {wanted}, not given")
    for index, memory in items:
        if memory is not None and memory.engine not in engines:
            return status_error(status, name, f"{arg(index)}: the memory is on another engine than the primitive")
    return error


def _not_given(index: int, name: str) -> Exception:
    """The error for an argument oneDNN would read without checking it is given (through NULL)."""
    return status_error(
        Status.INVALID_ARGUMENTS, name,
        f"args: the primitive needs {_arg_name(index)}, not given (oneDNN would read it all the same "
        "and crash: refused before the call)",
    )


def _arg_name(index: int) -> str:
    """``args[i] (ARG_SRC, ...)``: the index and its names."""
    names = [key for key, value in sorted(ARGS.items()) if value == index] or [_attr_arg_name(index)]
    return f"args[{index}] ({', '.join(names)})"


def _attr_arg_name(index: int) -> str:
    """How an attribute's execute argument is made: ``post_op_arg(0, ARG_SRC_1)``, ``scales_arg(ARG_SRC)``."""
    names = {value: key for key, value in sorted(ARGS.items(), reverse=True)}
    post_op, rest = divmod(index, 32768)
    if post_op:
        return f"post_op_arg({post_op - 1}, {names.get(rest, rest)})"
    for maker, bit in (("scales_arg", 4096), ("zero_points_arg", 8192)):
        if index & bit:
            return f"{maker}({names.get(index & ~bit, index & ~bit)})"
    return "?"
