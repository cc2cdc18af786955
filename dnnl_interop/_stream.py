"""Streams (``dnnl_stream_t``), and keeping what submitted work uses until it is done.

oneDNN executes asynchronously: each stream's :class:`~._inflight.Ledger`
records what its submitted work uses and lets it go once that work is known
finished (:meth:`Stream.wait`, a tracked event, the stream's close,
interpreter exit); its invariants are written in ``_inflight``. Submitting
is ``_execution``'s job.

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
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ._engine import Engine, engine_of, optional_engine, runtime_of
from ._ffi import ffi, lib
from ._inflight import Ledger, fast, fast_method
from ._library import check
from ._owned import Adoption, Owned, foreign_pointer, shared, using
from ._validate import bool_argument
from .errors import ClosedObjectError, ForkedProcessError

if TYPE_CHECKING:
    from ._ffi import CData

__all__ = ["Stream"]

_STREAM_TYPE = ffi.typeof("dnnl_stream_t")
_stream_wait = lib.dnnl_stream_wait
_fast_wait = fast["wait"]
# Checked by every submission (one test on its hot path, see _execution.submit): None, or
# the function that decides whether work may be submitted to a stream, and raises if
# not (set at interpreter exit, and in a process forked after CPU work: see _after_fork_in_child).
admission: Callable[[Ledger, str], None] | None = None
# Set by the first submission to a stream on a CPU engine (_execution.submit): from then on
# oneDNN's CPU runtime has worker threads, which a forked child does not have.
cpu_work_submitted = False
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


def _refuse_at_exit(ledger: Ledger, function: str) -> None:
    raise RuntimeError("the interpreter is exiting: no new work is submitted")


def _refuse_cpu_work(ledger: Ledger, function: str) -> None:
    if ledger.on_cpu:
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

    # _ledger: what the work submitted to the stream uses (see _inflight).
    # _why_closed: set when the stream closes because its engine did (see _owned._closed_error),
    # or is _FORKED_IN_FLIGHT (see _abandon_after_fork).
    __slots__ = ("_ledger", "_why_closed")
    _ledger: Ledger

    def _adopt(self, handle: CData, keep: tuple[Any, ...] = ()) -> None:
        ledger = self._ledger = Ledger(self)
        engine: Engine = keep[0]
        with self._shared.lock:  # with the engine's close: see _owned
            engine._add_stream(self)  # noqa: SLF001 - refused once the engine is closed (see _owned's lock discipline)
            ledger.on_cpu = _on_cpu(engine)  # under the lock, the open engine keeps its handle
            super()._adopt(handle, keep)
            self._hold(engine, ("stream", id(self)))  # oneDNN streams do not retain their engine
            self._shared.streams[id(self)] = self

    @classmethod
    def _made(cls, handle: CData, keep: tuple[Any, ...]) -> Stream:
        """A new Stream over a handle this binding just created; destroyed if its
        engine closed meanwhile (ClosedObjectError)."""
        stream: Stream = cls.__new__(cls)
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
        # The loop users run is execute then wait: its common case is C (_inflight.fast),
        # which hands anything else (a closed stream...) to _after_fast_wait. Replaced below
        # by a method of C that does what this does (see _inflight.fast_method).
        self._after_fast_wait(_fast_wait(self))

    def _after_fast_wait(self, status: int | None) -> None:
        """:meth:`wait` once the C path answered: None, the wait in Python; a status, a
        failed wait."""
        if status is not None:
            if status:  # a failed wait lets nothing go
                check(status, "dnnl_stream_wait")
            return
        # The wait holds the stream's lock, as executes and the close's own wait
        # do: oneDNN's stream is not thread-safe (two threads waiting on one SYCL
        # stream at once corrupt its list of dependencies).
        ledger = self._ledger
        lock = ledger.lock
        lock.acquire()
        try:
            handle = self._handle
            if handle is None:
                raise self._closed_error()
            epoch = ledger.begin_wait()
            status = _stream_wait(handle)
            if status:
                check(status, "dnnl_stream_wait")
            ledger.let_go(epoch)
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
        ledger: Ledger | None = getattr(self, "_ledger", None)
        if self._handle is None or ledger is None or not ledger.on_cpu \
                or (ledger.idle and not ledger.lock.locked()):
            return
        self._why_closed = _FORKED_IN_FLIGHT
        self._handle = None
        ledger.abandon()

    def _close_handle(self, finalizing: bool = False) -> None:
        ledger: Ledger | None = getattr(self, "_ledger", None)
        if ledger is None:  # creation failed before the stream was set up
            return super()._close_handle(finalizing)
        lock = ledger.lock
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
                if isinstance(engine, Engine) and engine.closed:  # Engine.close closes its streams
                    self._why_closed = _ENGINE_CLOSED
                self._use(key)  # this close's own wait below uses the handle too
                shared.deferred[id(self)] = (self, handle)
            # Finish the work before letting go of what it uses. If the wait
            # fails, nothing is known finished: the objects stay alive.
            if lib.dnnl_stream_wait(handle) == 0:
                ledger.let_go_all()
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

        def adopt(stream: Stream) -> None:
            stream._adopt(pointer, keep=(its_engine,))

        return adoption.finish(cls, adopt)

    @property
    def engine(self) -> Engine:
        """The :class:`Engine` of the stream.

        Raises:
            ClosedObjectError: ``stream`` is closed.
        """
        engine: Engine = self._kept(0)
        return engine


fast_method(Stream, "wait", "($self)")


def interop_stream(handle: CData, keep: tuple[Any, ...]) -> Stream:
    """A Stream owning ``handle``, just made by an interop create function; ``keep`` is
    (engine, the queue or command list it was made over). ClosedObjectError (the handle
    destroyed) if the engine closed meanwhile."""
    return Stream._made(handle, keep)  # noqa: SLF001 - the package's door to it


def interop_queue(stream: Stream) -> object:
    """The queue or command list ``stream`` was made over, as given to ``make_stream``
    (the user's object); None for a native stream, or once the stream is closed."""
    keep = stream._keep  # noqa: SLF001 - the package's door to what an interop stream keeps
    return keep[1] if len(keep) > 1 else None


def _on_cpu(engine: Engine) -> bool:
    """Whether open ``engine`` is a CPU engine. Holds the shared lock."""
    if runtime_of(engine) != "native":
        return False
    kind = ffi.new("dnnl_engine_kind_t *")
    return lib.dnnl_engine_get_kind(engine.handle, kind) == 0 and kind[0] == lib.dnnl_cpu


def finish_all_streams() -> None:
    """At interpreter exit: refuse new work, then finish every stream's work,
    before anything it uses is finalized."""
    global admission
    admission = _refuse_at_exit
    for ref in list(shared.streams.valuerefs()):
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
    for stream in list(shared.streams.values()):
        if isinstance(stream, Stream):
            stream._abandon_after_fork()  # noqa: SLF001 - this module's at-fork hook


os.register_at_fork(after_in_child=_after_fork_in_child)
