"""Submitting work to a stream, and keeping what it uses until it is done.

oneDNN executes asynchronously: ``dnnl_primitive_execute`` returns while the
work may still run. So each stream keeps, for the work submitted to it, the
primitive, the memories (and, through them, their buffers) and any
dependency objects, and registers itself as a user of each owned object
(see ``_owned``). They are let go when the stream is known to be done:

* :meth:`StreamBase.wait` finishes everything submitted before it started;
* a submission that returned a completion event (OpenCL out-of-order
  queues) is let go once that event, and the events of every earlier such
  submission, are complete (checked at the next submission);
* closing the stream waits first, then lets everything go.

Each submission is stamped with the stream's *epoch*; a wait bumps the epoch
before it calls C and, once C returns, lets go of what was stamped before.
Work submitted while a wait is running keeps its objects. Submission and
the bookkeeping of a wait hold the stream's lock, so the two never
interleave; the C wait itself runs without it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ._ffi import ffi, lib
from ._library import check, status_error
from ._owned import Owned
from .errors import ClosedObjectError, InvalidArgumentsError

if TYPE_CHECKING:
    from ._ffi import CData
    from .core import Memory, Primitive, Stream

_EXEC_ARGS = ffi.typeof("dnnl_exec_arg_t[]")
_NULL = ffi.NULL
_new = ffi.new
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1
_MISSING = object()
_exiting = False  # set at interpreter exit: threads still running submit nothing new


def finish_all_streams() -> None:
    """At interpreter exit: refuse new work, then finish every stream's work,
    before anything it uses is finalized."""
    global _exiting
    _exiting = True
    for ref in list(Owned._shared.streams.valuerefs()):
        stream = ref()
        if stream is not None:
            try:
                stream.wait()
            except Exception:
                pass


class StreamBase(Owned):
    """A stream's ownership rules: work in flight keeps what it uses."""

    # _pending: id(obj) -> obj for the owned objects submitted work uses; the
    # epoch of their latest use is obj._users[id(stream)].
    # _deps: (epoch, obj) for other objects the work uses (dependency events).
    # _events: (epoch, is_done) for submissions that returned an event, oldest first.
    # _last: (entries, c_args) of the latest submission. oneDNN reads the
    # argument array during the call only, so equal arguments reuse it.
    __slots__ = ("_pending", "_deps", "_epoch", "_lock", "_events", "_last")
    _pending: dict[int, Owned]
    _deps: list[tuple[int, object]]
    _epoch: int
    _lock: threading.Lock
    _events: list[tuple[int, Callable[[], bool]]]
    _last: tuple[list[tuple[int, CData | None]] | None, CData | None]

    def _adopt(self, handle: CData, keep: tuple[Any, ...] = ()) -> None:
        self._last = (None, None)
        self._pending = {}
        self._deps = []
        self._epoch = 0
        self._events = []
        self._lock = threading.Lock()
        super()._adopt(handle, keep)
        engine = keep[0]
        key = ("stream", id(self))
        engine._use(key)  # oneDNN streams do not retain their engine
        self._holds = ((engine, key),)
        engine._add_stream(self)
        self._shared.streams[id(self)] = self

    def wait(self) -> None:
        """Block until everything submitted to the stream has finished.

        Then lets go of the objects that work used (see ``_execution``).
        """
        with self._lock:
            handle = self._handle
            if handle is None:
                raise ClosedObjectError("this Stream is closed")
            epoch = self._epoch
            self._epoch = epoch + 1
            key = -next(self._shared.call_keys)
            self._use(key)  # a close meanwhile defers the destroy until C returns
        try:
            status = lib.dnnl_stream_wait(handle)
        finally:
            self._release(key)
        check(status, "dnnl_stream_wait")
        with self._lock:
            self._let_go(epoch)

    def _track_event(self, is_done: Callable[[], bool]) -> None:
        """The submission just made has its own completion event: stamp it apart.

        Later submissions and waits ask ``is_done``; what the oldest finished
        submissions used is let go without waiting for the whole stream.
        """
        with self._lock:
            self._events.append((self._epoch, is_done))
            self._epoch += 1

    def _let_go_finished(self) -> None:
        """Let go of what the oldest submissions whose events completed used. Holds the lock."""
        events = self._events
        finished = 0
        while finished < len(events) and events[finished][1]():
            finished += 1
        if finished:
            self._let_go(events[finished - 1][0])
            del events[:finished]

    def _let_go(self, epoch: float) -> None:
        """Release what work stamped up to ``epoch`` used (it is done). Holds the lock."""
        events = self._events
        while events and events[0][0] <= epoch:
            events.pop(0)
        if self._deps:
            self._deps = [entry for entry in self._deps if entry[0] > epoch]
        sid = id(self)
        pending = self._pending
        done = [obj for obj in pending.values() if obj._users.get(sid, -1) <= epoch]
        for obj in done:
            del pending[id(obj)]
            obj._release(sid)

    def _close_handle(self, finalizing: bool = False) -> None:
        lock = getattr(self, "_lock", None)
        if lock is None:  # creation failed before the stream was set up
            return super()._close_handle(finalizing)
        shared = self._shared
        key = -next(shared.call_keys)
        # A finalizer never blocks: the lock can only be held then by a
        # daemon thread frozen at interpreter exit (the stream is leaked).
        if not lock.acquire(blocking=not finalizing):
            return
        try:  # no submission is under way
            with shared.lock:
                handle = self._handle
                if handle is None:
                    return
                self._handle = None
                self._use(key)  # this close's own wait below uses the handle too
                shared.deferred[id(self)] = (self, handle)
            # Finish the work before letting go of what it uses. If the wait
            # fails, nothing is known finished: the objects stay alive.
            if lib.dnnl_stream_wait(handle) == 0:
                self._let_go(float("inf"))
        finally:
            lock.release()
        self._release(key)  # the last of this and any wait() still in C destroys

    def _finish_work(self) -> None:
        pass  # closing a stream finishes its own work


def submit(
    primitive: Primitive,
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
    if sizes is None or not isinstance(primitive, Owned):
        raise TypeError(f"primitive: expected a dnnl_interop.Primitive, got {type(primitive).__name__}")
    if not isinstance(stream, StreamBase):
        raise TypeError(f"stream: expected a dnnl_interop.Stream, got {type(stream).__name__}")
    try:
        items = args.items()
    except AttributeError:
        raise TypeError(f"args: expected a mapping of ARG_* to Memory, got {type(args).__name__}") from None
    if _exiting:
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
            if handle is None or type(index) is not int or memory._size < sizes.get(index, 0):
                index = _refuse(index, memory, sizes)
            entries.append((index, handle))
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


def _refuse(index: object, memory: Memory, sizes: Mapping[int, int]) -> int:
    """Raise the error for an argument the fast path did not take, or return its index."""
    index = _arg_index(index)
    what = f"args[{index!r}]"
    if memory._handle is None:
        raise ClosedObjectError(f"{what}: this Memory is closed")
    if memory._executable is None:
        raise ValueError(
            f"{what}: the memory has no buffer (MEMORY_NONE); give it one "
            "(set_data_handle, ocl.set_mem_object) before executing"
        )
    if memory._size < sizes.get(index, 0):
        raise ValueError(
            f"{what}: the memory holds {memory._size} bytes, the primitive "
            f"uses {sizes[index]} there ({memory.desc!r} is not its descriptor)"
        )
    return index


# An engine of each runtime, in words (messages here and in _interop).
ENGINE_NAMES = {"native": "a CPU or SYCL engine", "ocl": "an OpenCL engine", "ze": "a Level Zero engine"}


def _explain(
    status: int,
    name: str,
    primitive: Primitive,
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
    from ._args import ARGS

    aliases: dict[int, list[str]] = {}
    for key, value in sorted(ARGS.items()):
        aliases.setdefault(value, []).append(key)

    def arg(index: int) -> str:
        return f"args[{index}] ({', '.join(aliases.get(index, ['?']))})"

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
