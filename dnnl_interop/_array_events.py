"""pyopencl Arrays behind the memories of an execute: oneDNN's work ordered with
pyopencl's through events, without waiting on the host.

A memory made over a ``pyopencl.array.Array`` keeps the Array (it holds the
buffer) as the object its buffer lives by, ``Memory._keep[2]``. An Array's
``events`` are the work still writing or reading it. At an execute on an
OpenCL stream whose memories include Arrays (:func:`execute_over_arrays`):

* before: the Arrays' events not complete yet become the work's
  dependencies (asking is cheaper than a dependency on a finished event).
  oneDNN gives dependencies to its kernels on out-of-order queues only; on
  an in-order queue a barrier waiting for them is enqueued first, which
  holds back what follows it on the queue;
* after: the work's completion event, oneDNN's on an out-of-order queue or a
  marker enqueued after it on an in-order one (where oneDNN returns none), is
  added to every Array (``add_event``), inputs and outputs alike, as pyopencl
  does (one list holds readers and writers). It completes after every event
  the Arrays listed, so it stands for them: the plain ``pyopencl.Event``
  objects among them are dropped from the lists, which then stay short (past
  about a dozen events pyopencl waits on the host for the oldest); a
  ``NannyEvent`` (a transfer from host memory) stays, as dropping one waits
  for it. The stream lets go of what the work used once the completion event
  completes, without a wait;
* an Array on another queue than the stream's: its queue is flushed before
  (the work waits on its events) and the stream's after (its queue waits on
  the work's event), as OpenCL asks of events used across queues.

Nothing here waits on the host.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from ._engine import runtime_of
from ._ffi import ffi, lib
from ._handles import address_of
from ._inflight import Ledger, ledger_of
from ._library import check
from ._stream import Stream, interop_queue

if TYPE_CHECKING:
    import pyopencl
    import pyopencl.array

    from ._ffi import CData

_CL_EVENT = ffi.typeof("cl_event")
_CL_EVENTS = ffi.typeof("cl_event[]")
_CL_EVENT_OUT = ffi.typeof("cl_event *")
_UINTPTR = ffi.typeof("uintptr_t")
_OUT_OF_ORDER = 1  # CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE
_COMPLETE = 0  # CL_COMPLETE
# stream -> what _queue_of says of it.
_queues: weakref.WeakKeyDictionary[Stream, tuple[pyopencl.CommandQueue, int, bool, Any] | None] = \
    weakref.WeakKeyDictionary()


class OclExecute:
    """``dnnl_ocl_interop_primitive_execute`` as ``submit``'s call: after the events
    ``deps`` (``cl_event`` pointers); :attr:`returned` is the completion event
    oneDNN gives (a ``pyopencl.Event``, None on an in-order queue), tracked by
    ``stream`` (the call runs with the stream's lock held).

    :attr:`empty_work`: the primitive has a tensor of no element. oneDNN then
    enqueues nothing and, on an out-of-order queue, returns its last dependency
    as the work's event: with none given it reads past an empty list and
    crashes, so such a call is given one event already complete."""

    __slots__ = ("deps", "stream", "ledger", "returned", "empty_work")

    def __init__(self, deps: list[CData], stream: Stream, empty_work: bool = False,
                 ledger: Ledger | None = None) -> None:
        self.deps = deps
        self.stream = stream
        self.ledger = ledger if ledger is not None else ledger_of(stream)  # None: submit refuses the stream
        self.returned: pyopencl.Event | None = None
        self.empty_work = empty_work

    def __call__(self, c_primitive: CData, c_stream: CData, nargs: int, c_args: CData) -> int:
        deps = self.deps
        done = None
        if not deps and self.empty_work:
            done = _complete_event(self.stream, c_stream)
            if done is not None:
                deps = [ffi.cast(_CL_EVENT, done.int_ptr)]
        c_deps = ffi.new(_CL_EVENTS, deps) if deps else ffi.NULL
        event = ffi.new(_CL_EVENT_OUT)
        status = lib.dnnl_ocl_interop_primitive_execute(c_primitive, c_stream, nargs, c_args, c_deps, len(deps), event)
        if status == 0 and event[0] != ffi.NULL:  # an out-of-order queue: oneDNN gives an event
            import pyopencl as cl  # the event returned is pyopencl's

            self.returned = cl.Event.from_int_ptr(int(ffi.cast(_UINTPTR, event[0])), retain=False)  # oneDNN's reference
            if self.ledger is not None:
                _track_out_of_order(self.stream, self.ledger, c_stream, self.returned)
        del done  # the user event given as a dependency lives through the call
        return status


def _complete_event(stream: Stream, c_stream: CData) -> pyopencl.UserEvent | None:
    """A user event of the stream's context, already complete (None off OpenCL)."""
    known = _queue_of(stream, c_stream)
    if known is None:
        return None
    queue, _, _, cl = known
    event: pyopencl.UserEvent = cl.UserEvent(queue.context)
    event.set_status(cl.command_execution_status.COMPLETE)
    return event


def _is_done(event: pyopencl.Event) -> Callable[[], bool]:
    return lambda: event.command_execution_status == _COMPLETE


def _track_out_of_order(stream: Stream, ledger: Ledger, c_stream: CData, event: pyopencl.Event | None) -> None:
    """Track the submission just made on an out-of-order queue (the stream's lock is held).

    ``event`` (oneDNN's) covers the submission's own kernels, not a plain execute
    before it: unless the submission is the only one at its epoch, the stream tracks
    a marker after it with no wait list, which completes once every command enqueued
    before it on the queue has (the invariant in ``_stream``).
    """
    if event is None or not ledger.alone_at_epoch():
        known = _queue_of(stream, c_stream)
        if known is None:  # never: only an OpenCL stream gives events
            return
        queue, _, _, cl = known
        event = cl.enqueue_marker(queue)
    ledger.track_out_of_order(_is_done(event))


def arrays_behind(
    memories: Iterable[tuple[object, Any]], array_type: type[pyopencl.array.Array]
) -> list[pyopencl.array.Array]:
    """The distinct pyopencl Arrays the memories (``(index, Memory or None)``) were made over."""
    found: dict[int, pyopencl.array.Array] = {}  # by identity: an Array's == compares elements
    for _, memory in memories:
        if memory is not None:
            kept = memory._keep[2]  # noqa: SLF001 - execute's hot path: what the memory's buffer came from
            if isinstance(kept, array_type):
                found[id(kept)] = kept
    return list(found.values())


def execute_over_arrays(
    call: Callable[..., int], stream: Stream, ledger: Ledger, memories: Iterable[tuple[object, Any]],
    array_type: type[pyopencl.array.Array], c_primitive: CData, c_stream: CData, nargs: int, c_args: CData | None,
) -> int:
    """``call(c_primitive, c_stream, nargs, c_args)`` (``dnnl_primitive_execute`` or an
    :class:`OclExecute`), ordered with the events of the Arrays behind the memories when
    the stream is an OpenCL stream; the call's status. The stream's lock (``ledger.lock``) is held."""
    c_args = ffi.NULL if c_args is None else c_args  # never None here: submit has just built it
    arrays = arrays_behind(memories, array_type)
    known = _queue_of(stream, c_stream) if arrays else None
    if known is None:  # no Array, or not an OpenCL stream (oneDNN refuses the memories then)
        return call(c_primitive, c_stream, nargs, c_args)
    queue, queue_address, out_of_order, cl = known
    elsewhere = False  # an Array on another queue than the stream's
    events: list[pyopencl.Event] = []  # those not complete yet
    for array in arrays:
        for event in array.events:
            if event.command_execution_status != _COMPLETE:
                events.append(event)
        array_queue = array.queue
        if array_queue is not queue and array_queue is not None and array_queue.int_ptr != queue_address:
            elsewhere = True
            if array.events:
                array_queue.flush()
    completion = None
    if out_of_order:  # oneDNN takes the events as dependencies and gives its own
        execute = call if isinstance(call, OclExecute) else OclExecute(
            [], stream, any(memory is not None and memory._size == 0  # noqa: SLF001 - execute's hot path
                            for _, memory in memories), ledger)
        if events:
            execute.deps = [*execute.deps, *(ffi.cast(_CL_EVENT, event.int_ptr) for event in events)]
        status = execute(c_primitive, c_stream, nargs, c_args)
        completion = execute.returned
    else:  # oneDNN ignores dependencies and gives no event: the queue waits, then marks
        if events:
            cl.enqueue_barrier(queue, wait_for=events)
        status = call(c_primitive, c_stream, nargs, c_args)
    if status:
        return status
    if completion is None:  # done when everything enqueued before the marker is, and the events
        completion = cl.enqueue_marker(queue, wait_for=events if out_of_order and events else None)
        if out_of_order:  # a marker with a wait list waits for nothing else: track one that does
            _track_out_of_order(stream, ledger, c_stream, None)
        else:  # on an in-order queue it comes after everything before it
            ledger.track(_is_done(completion))
    plain_event = cl.Event
    for array in arrays:
        pending = array.events
        if pending:  # the completion comes after them all; a NannyEvent stays (dropping one waits)
            pending[:] = [event for event in pending if type(event) is not plain_event]
        array.add_event(completion)
    if elsewhere:
        queue.flush()
    return 0


def _queue_of(stream: Stream, c_stream: CData) -> tuple[pyopencl.CommandQueue, int, bool, Any] | None:
    """The stream's queue as a ``pyopencl.CommandQueue``, its address, whether it is out of
    order, and the pyopencl module; None for a stream of another runtime. Asked once per stream."""
    try:
        return _queues[stream]
    except KeyError:
        pass
    known = None
    if runtime_of(stream.engine) == "ocl":
        import pyopencl as cl

        out = ffi.new("cl_command_queue *")
        check(lib.dnnl_ocl_interop_stream_get_command_queue(c_stream, out), "dnnl_ocl_interop_stream_get_command_queue")
        given = interop_queue(stream)  # the queue ocl.make_stream was given
        if isinstance(given, cl.CommandQueue) and given.int_ptr == address_of(out[0]):
            queue = given  # the Arrays' own queue object, most often: told apart by identity
        else:
            queue = cl.CommandQueue.from_int_ptr(address_of(out[0]), retain=True)
        known = (queue, queue.int_ptr, bool(queue.properties & _OUT_OF_ORDER), cl)
    _queues[stream] = known
    return known
