"""Streams (``dnnl_stream_t``), and keeping what submitted work uses until it is done.

oneDNN executes asynchronously: ``dnnl_primitive_execute`` returns while the
work may still run. So each stream keeps, for the work submitted to it, the
primitive, the memories (and, through them, their buffers) and any
dependency objects, and registers itself as a user of each owned object
(see ``_owned``). They are let go when the stream is known to be done:

* :meth:`Stream.wait` finishes everything submitted before it started;
* a submission tracked by an event (on OpenCL queues, see
  ``_array_events``) is let go once that event, and the events of every
  earlier tracked submission, are complete (checked at the next submission);
* closing the stream waits first, then lets everything go.

Each submission is stamped with the stream's *epoch*; a wait bumps the epoch
before it calls C and, once C returns, lets go of what was stamped before.
Work submitted while a wait is running keeps its objects. A tracked
submission bumps the epoch after it: ``_events`` holds ``(epoch, is_done)``,
oldest first, and letting go at an entry lets go of everything stamped up to
its epoch, plain submissions (given no event) included. So the invariant:

    once the events tracked for epoch E and for every earlier entry have
    completed, all work stamped E or earlier has finished.

On an in-order queue any event after the work says so. On an out-of-order
queue oneDNN's event covers its own kernels only (its interop execute takes
the caller's dependencies, not the stream's earlier work), so the tracked
event is a marker enqueued right after the work with no wait list: it
completes once every command enqueued before it on the queue has, and all
work stamped E was enqueued before it (a submission stamps, enqueues and
tracks under the stream's lock). oneDNN's own event is tracked instead when
the submission is the only one stamped E and E is *open*: everything stamped
before E is covered by an earlier entry or known finished. An epoch opens
when a tracked submission on an out-of-order queue bumps the epoch to it, or
when letting go of everything up to E - 1 (a wait returning, or an entry's
event completing) finds nothing stamped E yet. To count the submissions at
the open epoch (``_opened``, ``_seen``), a stream that tracked work on an
out-of-order queue keeps ``_WATCHING`` at the end of ``_events`` until it
closes: every submission to it then goes through ``_let_go_finished``
(and a bound execute takes the full ``submit``).

Submission and the bookkeeping of a wait hold the stream's lock, so the two
never interleave; the C wait itself runs without it, except in a bound
execute with its wait (``_execution.BoundExecution``), which holds the lock
throughout and so registers nothing as in flight. Submitting is
``_execution``'s job.

oneDNN's CPU runtime runs work on worker threads it starts at the first
execution, and a forked process has none of them: there, CPU work would
never run and its wait would never return. So once a stream on a CPU engine
has had a submission (``cpu_work_submitted``), a process forked from this one
refuses CPU submissions (``admission``, the test every submission makes
anyway), abandons the parent's CPU work in flight (its streams' waits are
refused, the handles never touched again) and ends without the exit handlers
of oneDNN's runtime, which wait for the missing threads too. Nothing else
changes there: objects are made, mapped and closed as in any process.
"""

from __future__ import annotations

import atexit
import math
import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ._engine import Engine, engine_of, optional_engine
from ._ffi import ffi, lib
from ._library import check
from ._owned import Adoption, Owned, foreign_pointer, using
from ._validate import bool_argument
from .errors import ClosedObjectError, ForkedProcessError

if TYPE_CHECKING:
    from ._ffi import CData

__all__ = ["Stream"]

_STREAM_TYPE = ffi.typeof("dnnl_stream_t")
_stream_wait = lib.dnnl_stream_wait
_call_keys = Owned._shared.call_keys
_deferred = Owned._shared.deferred
# Checked by every submission (one test on its hot path, see _execution.submit): None, or
# the function that decides whether work may be submitted to a stream, and raises if
# not (set at interpreter exit, and in a process forked after CPU work: see _after_fork_in_child).
admission: Callable[[Stream, str], None] | None = None
# Set by the first submission to a stream on a CPU engine (_execution.submit): from then on
# oneDNN's CPU runtime has worker threads, which a forked child does not have.
cpu_work_submitted = False
# The last entry of _events on a stream that tracked work on an out-of-order queue:
# never done, it sends every submission through _let_go_finished, which counts them.
_WATCHING: tuple[float, Callable[[], bool]] = (math.inf, lambda: False)
_ENGINE_CLOSED = (
    "its Engine was closed, which closes the engine's streams (and waits for their work); "
    "make the stream on an open Engine"
)
_SPAWN = (
    'start processes with multiprocessing.get_context("spawn") (or "forkserver"), or call '
    'multiprocessing.set_start_method("spawn") first thing in the main module'
)
_FORKED = (
    "this process was forked from one that had run work on a CPU engine; oneDNN's CPU runtime "
    "runs work on worker threads that a forked process does not have, so CPU work submitted here "
    f"would never run and its wait would never return: {_SPAWN}"
)
_FORKED_IN_FLIGHT = (
    "this process was forked while work on this stream (a CPU engine's) was in flight; that work "
    "never finishes in this process, and the stream is unusable here (a wait would never return): "
    f"{_SPAWN}"
)


def _refuse_at_exit(stream: Stream, function: str) -> None:
    raise RuntimeError("the interpreter is exiting: no new work is submitted")


def _refuse_cpu_work(stream: Stream, function: str) -> None:
    if getattr(stream, "_cpu", False):  # unset only on a Stream whose creation failed
        raise ForkedProcessError(function, _FORKED)


class Stream(Owned):
    """An execution stream (``dnnl_stream_t``) on an engine.

    Work submitted to it keeps everything it uses alive until :meth:`wait`
    returns or the stream is closed (which waits first).

    Raises:
        TypeError: ``engine`` is not an :class:`Engine`.
        ClosedObjectError: ``engine`` is closed.
        DnnlError: oneDNN refuses to make the stream (``InvalidArgumentsError`` for an OpenCL or
            Level Zero engine, whose streams come from ``ocl.make_stream``/``ze.make_stream``).
    """

    # _pending: id(obj) -> obj for the owned objects submitted work uses; the
    # epoch of their latest use is obj._users[id(stream)].
    # _deps: (epoch, obj) for other objects the work uses (dependency events).
    # _events: (epoch, is_done) for tracked submissions, oldest first (then _WATCHING, if there).
    # _opened: the latest open epoch (-1: none); _seen: the submissions counted at it.
    # _last: (entries, c_args) of the latest submission. oneDNN reads the
    # argument array during the call only, so equal arguments reuse it.
    # _why_closed: set when the stream closes because its engine did (see _owned._closed_error),
    # or is _FORKED_IN_FLIGHT (see _abandon_after_fork).
    # _cpu: whether the stream's engine is a CPU engine (see _after_fork_in_child).
    __slots__ = ("_pending", "_deps", "_epoch", "_lock", "_events", "_opened", "_seen", "_last", "_why_closed",
                 "_cpu")
    _pending: dict[int, Owned]
    _deps: list[tuple[int, object]]
    _epoch: int
    _lock: threading.Lock
    _events: list[tuple[float, Callable[[], bool]]]
    _opened: int
    _seen: int
    _last: tuple[list[tuple[int, CData | None]] | None, CData | None]
    _cpu: bool

    def _adopt(self, handle: CData, keep: tuple[Any, ...] = ()) -> None:
        self._last = (None, None)  # the first submission builds its argument array (see _execution.submit)
        self._pending = {}
        self._deps = []
        self._epoch = 0
        self._events = []
        self._opened = -1
        self._seen = 0
        self._lock = threading.Lock()
        engine: Engine = keep[0]
        with self._shared.lock:  # with the engine's close: see _owned
            engine._add_stream(self)  # refused once the engine is closed
            self._cpu = _on_cpu(engine)  # under the lock, the open engine keeps its handle
            super()._adopt(handle, keep)
            key = ("stream", id(self))
            engine._use(key)  # oneDNN streams do not retain their engine
            self._holds = ((engine, key),)
            self._shared.streams[id(self)] = self

    @classmethod
    def _made(cls, handle: CData, keep: tuple[Any, ...]) -> Stream:
        """A new Stream over a handle this binding just created; destroyed if its
        engine closed meanwhile (ClosedObjectError)."""
        stream = cls.__new__(cls)
        stream._init_made(handle, keep)
        return stream

    def _init_made(self, handle: CData, keep: tuple[Any, ...]) -> None:
        try:
            self._adopt(handle, keep)
        except ClosedObjectError:
            lib.dnnl_stream_destroy(handle)  # never adopted: nothing else knows it
            raise

    def wait(self) -> None:
        """Block until everything submitted to the stream has finished.

        Then lets go of the objects that work used.

        Raises:
            ClosedObjectError: ``stream`` is closed.
            ForkedProcessError: the process was forked while work on this CPU stream was
                in flight (that work never finishes here).
            DnnlError: oneDNN reports a failure of the work or of the wait.
        """
        # The loop users run is execute then wait: plain operations only here.
        lock, users = self._lock, self._users
        lock.acquire()
        handle = self._handle
        if handle is None:
            lock.release()
            raise self._closed_error()
        epoch = self._epoch
        self._epoch = epoch + 1
        key = -next(_call_keys)
        users[key] = True  # a close meanwhile defers the destroy until C returns (see _owned)
        lock.release()
        try:
            status = _stream_wait(handle)
        finally:
            users.pop(key, None)
            if not users and id(self) in _deferred:
                self._claim()
        if status:
            check(status, "dnnl_stream_wait")
        lock.acquire()
        try:
            self._let_go(epoch)
        finally:
            lock.release()

    def _closed_error(self, what: str | None = None) -> Exception:
        if getattr(self, "_why_closed", None) is _FORKED_IN_FLIGHT:
            return ForkedProcessError("dnnl_stream_wait", _FORKED_IN_FLIGHT)
        return super()._closed_error(what)

    def _abandon_after_fork(self) -> None:
        """In a forked child: the work in flight on this CPU stream was the parent's, and no
        thread of this process runs it. What it used is let go (nothing here touches it), and
        the handle is never used again: waiting for it, or destroying it, would never return.
        So the stream, and the engine it holds, are left to the end of the process.

        Calls no C function (it runs in the at-fork hook). An object closed before the
        fork whose destroy waited for this work is left alone too.
        """
        self._lock = threading.Lock()  # a thread submitting at the fork held it: it does not exist here
        self._why_closed = _FORKED_IN_FLIGHT
        self._handle = None
        sid = id(self)
        for obj in self._pending.values():
            obj._users.pop(sid, None)
        self._pending, self._events, self._deps = {}, [], []

    def _track(self, is_done: Callable[[], bool]) -> None:
        """Stamp the submission just made apart: ``is_done()`` tells when all work stamped
        up to its epoch has finished (see the invariant above). Holds the lock.

        Later submissions ask ``is_done``; what the oldest finished submissions
        used is let go without waiting for the whole stream.
        """
        self._events.append((self._epoch, is_done))
        self._epoch += 1

    def _alone_at_epoch(self) -> bool:
        """Whether the submission being made is the only one stamped with the current
        epoch, and everything stamped before it is covered by ``_events`` or finished
        (the epoch is *open*). Holds the lock."""
        return self._opened == self._epoch and self._seen == 1

    def _track_out_of_order(self, is_done: Callable[[], bool]) -> None:
        """:meth:`_track` on an out-of-order queue: the new epoch is open, and from now
        on every submission goes through :meth:`_let_go_finished`. Holds the lock."""
        events = self._events
        entry = (self._epoch, is_done)
        if events and events[-1] is _WATCHING:
            events.insert(len(events) - 1, entry)
        else:
            events += (entry, _WATCHING)
        self._epoch = self._opened = self._epoch + 1
        self._seen = 0

    def _let_go_finished(self) -> None:
        """Let go of what the oldest submissions whose events completed used, then count
        the submission about to be made. Holds the lock; called while ``_events`` is not empty."""
        events = self._events
        finished = 0
        while finished < len(events) and events[finished][1]():
            finished += 1
        if finished:
            self._let_go(events[finished - 1][0])  # drops those entries too
        if self._opened == self._epoch:
            self._seen += 1

    def _let_go(self, epoch: float) -> None:
        """Release what work stamped up to ``epoch`` used (it is done). Holds the lock."""
        events = self._events
        if events:  # never on a stream without tracked submissions: waits pay one test
            while events and events[0][0] <= epoch:
                events.pop(0)
            if events and events[-1] is _WATCHING and epoch + 1 == self._epoch:
                self._open_after(epoch)
        if self._deps:
            self._deps = [entry for entry in self._deps if entry[0] > epoch]
        sid = id(self)
        kept: dict[int, Owned] = {}
        claim: list[Owned] | None = None
        for key, obj in self._pending.items():
            users = obj._users
            if users.get(sid, -1) > epoch:
                kept[key] = obj
                continue
            del users[sid]  # Owned._release, inlined: this runs after every wait
            if not users and key in _deferred:
                claim = [*(claim or ()), obj]
        self._pending = kept
        for obj in claim or ():
            obj._claim()

    def _open_after(self, epoch: float) -> None:
        """Everything stamped up to ``epoch`` has finished, and ``epoch + 1`` is the
        current epoch: open it if nothing was submitted at it yet. Holds the lock."""
        sid = id(self)
        for obj in self._pending.values():
            if obj._users.get(sid, -1) > epoch:
                return
        self._opened = self._epoch
        self._seen = 0

    def _close_handle(self, finalizing: bool = False) -> None:
        lock = getattr(self, "_lock", None)
        if lock is None:  # creation failed before the stream was set up
            return super()._close_handle(finalizing)
        shared = self._shared
        key = -next(shared.call_keys)
        # A finalizer never blocks: the stream is left to the next thread
        # that closes or makes an object (a submission or a re-pointing holds
        # the lock; at exit, a daemon thread frozen holding it leaks it).
        if not lock.acquire(blocking=not finalizing):
            shared.finalized.append(self)
            return
        try:  # no submission is under way
            with shared.lock:
                handle = self._handle
                if handle is None:
                    return
                self._handle = None
                engine = self._keep[0] if self._keep else None
                if isinstance(engine, Engine) and engine._handle is None:  # Engine.close closes its streams
                    self._why_closed = _ENGINE_CLOSED
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

    _ctype = "dnnl_stream_t"
    _destroy = lib.dnnl_stream_destroy
    _destroy_name = "dnnl_stream_destroy"

    def __init__(self, engine: Engine, in_order: bool = True):
        self._refuse_reinit()
        flags = lib.dnnl_stream_in_order if in_order else lib.dnnl_stream_out_of_order
        out = self._new_out()
        with using((engine, Engine, "engine")) as c_engine:
            check(lib.dnnl_stream_create(out, c_engine, flags), "dnnl_stream_create")
            self._init_made(out[0], (engine,))

    @classmethod
    def from_handle(cls, handle: object, *, owned: bool, engine: Engine | None = None) -> Stream:
        """A Stream over a ``dnnl_stream_t`` made elsewhere.

        ``handle`` and ``owned`` as in :meth:`Engine.from_handle`: ``owned=True``
        destroys it exactly once, ``owned=False`` borrows it (never destroyed
        here; **the caller keeps it alive** while the Stream is in use).

        A oneDNN stream does not keep its engine alive, so the Stream keeps
        its :class:`Engine`: ``engine`` if given (checked to be the stream's,
        ``ValueError`` otherwise), else the Engine of this binding that holds
        the stream's engine (``dnnl_stream_get_engine``), else a new one
        borrowing it, which the caller keeps alive as long as the stream.

        Raises:
            TypeError: ``handle`` is not a pointer of this handle type (or an int), or ``owned``
                is not a bool.
            ValueError: ``handle`` is NULL, or an object of this binding already owns it and
                ``owned=True`` asks to take it over.
            ClosedObjectError: the object of this binding that owns the handle is closed.
            TypeError: ``engine`` is neither an :class:`Engine` nor None.
            ValueError: ``engine`` is not the stream's engine.
            DnnlError: oneDNN cannot give the stream's engine.
        """
        owned = bool_argument(owned, "owned")
        engine = optional_engine(engine)
        pointer = foreign_pointer(handle, _STREAM_TYPE, "handle")
        adoption = Adoption(cls, pointer, owned, "handle")
        try:
            c_engine = ffi.new("dnnl_engine_t *")
            check(lib.dnnl_stream_get_engine(pointer, c_engine), "dnnl_stream_get_engine")
            its_engine = engine_of(c_engine[0], engine, "the stream")
        except BaseException:
            adoption.cancel()
            raise
        return adoption.finish(cls, lambda stream: stream._adopt(pointer, keep=(its_engine,)))

    @property
    def engine(self) -> Engine:
        """The :class:`Engine` of the stream.

        Raises:
            ClosedObjectError: ``stream`` is closed.
        """
        engine: Engine = self._kept(0)
        return engine


def _on_cpu(engine: Engine) -> bool:
    """Whether open ``engine`` is a CPU engine. Holds the shared lock."""
    if engine._runtime != "native":
        return False
    kind = ffi.new("dnnl_engine_kind_t *")
    return lib.dnnl_engine_get_kind(engine.handle, kind) == 0 and kind[0] == lib.dnnl_cpu


def finish_all_streams() -> None:
    """At interpreter exit: refuse new work, then finish every stream's work,
    before anything it uses is finalized."""
    global admission
    admission = _refuse_at_exit
    for ref in list(Owned._shared.streams.valuerefs()):
        stream = ref()
        if stream is not None:
            try:
                stream.wait()
            except Exception:
                pass


# Interpreter exit: no new work, and every stream's work finished before
# anything it uses is finalized; a process must not exit while oneDNN writes
# into its memory.
atexit.register(finish_all_streams)


def _after_fork_in_child() -> None:
    """In a process just forked from one that had submitted CPU work (nothing to do otherwise):
    refuse CPU work, abandon the parent's CPU work in flight, and end the process without
    the exit handlers of oneDNN's runtime, which wait for threads this process does not have
    (``lib.dnnl_interop_skip_exit_handlers``). Calls no oneDNN function."""
    global admission
    if not cpu_work_submitted or admission is _refuse_cpu_work:  # done in the parent, itself a child
        return
    if admission is None:
        admission = _refuse_cpu_work
    lib.dnnl_interop_skip_exit_handlers()
    for stream in list(Owned._shared.streams.values()):
        if isinstance(stream, Stream) and stream._handle is not None and stream._cpu and (
            stream._pending or stream._events or stream._deps or stream._lock.locked()
        ):
            stream._abandon_after_fork()


os.register_at_fork(after_in_child=_after_fork_in_child)
