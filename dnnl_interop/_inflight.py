"""The in-flight ledger: what each stream's pending work uses, and when it is let go.

oneDNN executes asynchronously: ``dnnl_primitive_execute`` returns while the
work may still run. Each stream has one :class:`Ledger`, and the ledger alone
records what the stream's submitted work uses (the primitive, the memories
and, through them, their buffers; dependency events; a re-pointed memory's
old buffer) and alone lets it go once that work is known finished. Owned
objects in flight carry the other half of the record: ``obj._in_flight``
(see ``_owned``) maps the ids of the streams with work using them to the
epoch of the latest such submission, written here only.

Invariants (every method below that changes the ledger holds ``lock``):

1. An owned object is in ``pending`` exactly when ``ledger.sid`` is in its
   ``_in_flight``; its handle is destroyed only once no stream records it
   (and no other user remains, see ``_owned``).
2. Everything a submission uses is registered, stamped with the current
   ``epoch``, before its handle is read and before the C call; a close from
   another thread meanwhile defers the destroy.
3. Work is let go only when known finished, by one of:

   * a wait: :meth:`begin_wait` bumps the epoch before the C wait, and
     :meth:`let_go` (once it returned successfully) lets go of what was
     stamped before; work submitted during the wait keeps its objects;
   * a tracked event: ``events`` holds ``(epoch, is_done)`` of tracked
     submissions, oldest first. Once the events tracked for epoch E and for
     every earlier entry have completed, all work stamped E or earlier has
     finished; it is let go at the next submission (:meth:`stamp`);
   * the stream's close, after its own successful wait (:meth:`let_go_all`);
   * interpreter exit: every stream is waited for (``_stream``);
   * fork: in a child forked after CPU work, the parent's CPU work never
     finishes; :meth:`abandon` forgets it without touching any handle.

   A failed wait lets nothing go: the objects stay alive.
4. On an out-of-order queue oneDNN's event covers its own kernels only, so
   the tracked event is a marker enqueued after the work with no wait list,
   unless the submission is the only one stamped E and E is *open*
   (:meth:`alone_at_epoch`): everything stamped before E is covered by an
   earlier entry or known finished. An epoch opens when a tracked submission
   on an out-of-order queue bumps the epoch to it, or when letting go of
   everything up to E - 1 finds nothing stamped E yet. To count the
   submissions at the open epoch (``opened``, ``seen``), a ledger that
   tracked work on an out-of-order queue keeps ``WATCHING`` at the end of
   ``events`` until its stream closes: every submission then takes
   :meth:`let_go_finished`.
5. Every C call on a stream's handle (execute, wait, the close's own wait)
   is made holding its ledger's lock: oneDNN's streams are not thread-safe.
   Lock order: a thread holding a ledger's lock may take the shared lock of
   ``_owned``, never the reverse; submitters hold one ledger lock at a time.
   Re-pointing a memory takes every ledger's lock in turn
   (:func:`lock_every_stream`, under ``_owned``'s ``repoint_lock``).

The common case of a submission and of a wait is also written in C
(``csrc/fastpath.c``, installed below as :data:`fast`): ``Primitive.execute``,
``Stream.wait`` and ``BoundExecution.execute`` are methods of C that call it
first (:func:`fast_method`), and a ledger's lock is a :data:`StreamLock` it
takes without calling a method. It keeps these invariants step by step as
the methods below do (registering before reading
a handle, letting go only after a successful wait, oneDNN's calls made
holding the lock, which it waits for as the Python path does), and it hands
anything unusual to the Python path before taking a step the Python path
would not repeat identically: tracked events, kept objects other than
owned ones (for a wait: the Python :meth:`Ledger.let_go`), refusals, closed
objects, a workspace not yet found to be of the primitive's forward (the
Python check records it when it passes), scales, zero points, runtime
dimensions, interpreter exit, a forked child, the process's first CPU work.
"""

from __future__ import annotations

import inspect
import math
import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ._ffi import ffi, lib
from ._owned import Owned, shared

if TYPE_CHECKING:
    from ._ffi import CData

_deferred = shared.deferred
# The last entry of events on a ledger that tracked work on an out-of-order queue:
# never done, it sends every submission through let_go_finished, which counts them.
WATCHING: tuple[float, Callable[[], bool]] = (math.inf, lambda: False)
# Every open stream's ledger, by the stream's id: re-pointing a memory locks them all.
_ledgers: weakref.WeakValueDictionary[int, Ledger] = weakref.WeakValueDictionary()
# The C fast path (csrc/fastpath.c): execute, wait, execute_bound, execute_bound_wait (each
# returns None where it hands over to the Python path), configure (once, by _execution) and
# set_calls (the functions it calls for oneDNN's execute and wait: tests and benchmarks).
fast: dict[str, Callable[..., Any]] = {}
if lib.dnnl_interop_fastpath_install(id(fast)):
    raise ImportError("dnnl_interop._ffi: the fast path's functions could not be installed")
# A stream's lock: threading.Lock's acquire(blocking=True), release, locked and with, over a
# lock of CPython's threads that the C path takes and lets go of without calling a method.
if TYPE_CHECKING:
    StreamLock = threading.Lock
else:
    StreamLock = fast["lock_type"]()


class Ledger:
    """What the pending work of one stream uses (see the invariants above).

    ``lock`` is the stream's lock (a :data:`StreamLock`): held by a submission (registering, the C
    call, tracking), by the bookkeeping of a wait, by the stream's close, and
    throughout a bound execute with its wait. ``last_args``: ``(entries,
    c_args)`` of the latest submission (oneDNN reads the argument array during
    the call only, so equal arguments reuse it). ``on_cpu``: the stream's
    engine is a CPU engine (see ``_stream``'s fork handling).
    """

    __slots__ = ("sid", "stream", "lock", "pending", "deps", "epoch", "events", "opened", "seen", "last_args",
                 "on_cpu", "__weakref__")
    sid: int
    stream: weakref.ref[Owned]
    lock: StreamLock
    pending: dict[int, Owned]  # id(obj) -> obj, for the owned objects submitted work uses
    deps: list[tuple[float, object]]  # (epoch, obj): other objects the work uses
    epoch: int
    events: list[tuple[float, Callable[[], bool]]]  # (epoch, is_done), oldest first; then WATCHING
    opened: int  # the latest open epoch (-1: none)
    seen: int  # the submissions counted at it
    last_args: tuple[list[tuple[int, CData | None]] | None, CData | None]
    on_cpu: bool

    def __init__(self, stream: Owned) -> None:
        self.sid = id(stream)
        self.stream = weakref.ref(stream)
        self.lock = StreamLock()
        self.pending = {}
        self.deps = []
        self.epoch = 0
        self.events = []
        self.opened = -1
        self.seen = 0
        self.last_args = (None, None)
        self.on_cpu = False
        _ledgers[self.sid] = self

    # --- submitting (the lock held) -------------------------------------------

    def stamp(self) -> int:
        """The epoch of the submission being made, after letting go of what finished
        tracked submissions used."""
        if self.events:
            self.let_go_finished()
        return self.epoch

    def register(self, obj: Owned, epoch: int) -> None:
        """``obj`` is used by the submission stamped ``epoch``: kept until that work is
        known finished. Called before ``obj``'s handle is read."""
        obj._in_flight[self.sid] = epoch  # noqa: SLF001 - the ledger alone writes the in-flight record
        self.pending[id(obj)] = obj

    def forget(self, obj: object) -> None:
        """Undo :meth:`register` of ``obj``, an object of another library given where a
        memory was expected (it has an ``_in_flight`` of its own): nothing of it is kept."""
        if self.pending.get(id(obj)) is obj:
            del self.pending[id(obj)]
            in_flight = getattr(obj, "_in_flight", None)
            if isinstance(in_flight, dict):
                in_flight.pop(self.sid, None)

    def register_all(self, objects: dict[int, Owned], epoch: int) -> None:
        """:meth:`register` of each of ``objects`` (by id), as a bound execute does."""
        sid = self.sid
        for obj in objects.values():
            obj._in_flight[sid] = epoch  # noqa: SLF001 - the ledger alone writes the in-flight record
        self.pending.update(objects)

    def keep(self, epoch: float, objects: tuple[object, ...]) -> None:
        """Keep ``objects`` (not owned: dependency events, an old buffer) until the work
        stamped ``epoch`` is known finished."""
        self.deps.extend((epoch, obj) for obj in objects)

    def keep_until_next_wait(self, obj: object) -> None:
        """Keep ``obj`` (a re-pointed memory's old buffer, which work in flight may have
        reached) until the stream is next waited for."""
        self.deps.append((self.epoch, obj))

    @property
    def idle(self) -> bool:
        """Whether nothing submitted to the stream is recorded as in flight."""
        return not (self.pending or self.events or self.deps)

    # --- waiting ----------------------------------------------------------------

    def begin_wait(self) -> int:
        """The epoch a wait starting now finishes: everything stamped up to it."""
        epoch = self.epoch
        self.epoch = epoch + 1
        return epoch

    def let_go(self, epoch: float) -> None:
        """Release what work stamped up to ``epoch`` used: it is known finished."""
        events = self.events
        if events:  # never on a stream without tracked submissions: waits pay one test
            while events and events[0][0] <= epoch:
                events.pop(0)
            if events and events[-1] is WATCHING and epoch + 1 == self.epoch:
                self._open_after(epoch)
        if self.deps:
            self.deps = [entry for entry in self.deps if entry[0] > epoch]
        sid = self.sid
        kept: dict[int, Owned] = {}
        claim: list[Owned] | None = None
        for key, obj in self.pending.items():
            in_flight = obj._in_flight  # noqa: SLF001 - the ledger alone writes the in-flight record
            if in_flight.get(sid, -1) > epoch:
                kept[key] = obj
                continue
            del in_flight[sid]
            if key in _deferred:  # closed meanwhile: destroyed by the last user to let go
                claim = [*(claim or ()), obj]
        self.pending = kept
        for obj in claim or ():
            obj._release(None)  # noqa: SLF001 - letting go as any user does: the last one destroys

    def let_go_all(self) -> None:
        """Release everything: the stream's close has waited for all its work."""
        self.let_go(math.inf)

    def abandon(self) -> None:
        """In a forked child: the work in flight was the parent's and never finishes here.
        Forget it without touching any handle (no C call: this runs in the at-fork hook)."""
        self.lock = StreamLock()  # a thread submitting at the fork held it: it does not exist here
        sid = self.sid
        for obj in self.pending.values():
            obj._in_flight.pop(sid, None)  # noqa: SLF001 - the ledger alone writes the in-flight record
        self.pending, self.events, self.deps = {}, [], []

    # --- tracked submissions (OpenCL events) --------------------------------------

    def track(self, is_done: Callable[[], bool]) -> None:
        """Stamp the submission just made apart: ``is_done()`` tells when all work stamped
        up to its epoch has finished (invariant 3). Later submissions ask ``is_done``;
        what the oldest finished submissions used is let go without a wait."""
        self.events.append((self.epoch, is_done))
        self.epoch += 1

    def alone_at_epoch(self) -> bool:
        """Whether the submission being made is the only one stamped with the current
        epoch, and that epoch is open (invariant 4)."""
        return self.opened == self.epoch and self.seen == 1

    def track_out_of_order(self, is_done: Callable[[], bool]) -> None:
        """:meth:`track` on an out-of-order queue: the new epoch is open, and from now
        on every submission goes through :meth:`let_go_finished`."""
        events = self.events
        entry = (self.epoch, is_done)
        if events and events[-1] is WATCHING:
            events.insert(len(events) - 1, entry)
        else:
            events += (entry, WATCHING)
        self.epoch = self.opened = self.epoch + 1
        self.seen = 0

    def let_go_finished(self) -> None:
        """Let go of what the oldest submissions whose events completed used, then count
        the submission about to be made. Called while ``events`` is not empty."""
        events = self.events
        finished = 0
        while finished < len(events) and events[finished][1]():
            finished += 1
        if finished:
            self.let_go(events[finished - 1][0])  # drops those entries too
        if self.opened == self.epoch:
            self.seen += 1

    def _open_after(self, epoch: float) -> None:
        """Everything stamped up to ``epoch`` has finished, and ``epoch + 1`` is the
        current epoch: open it if nothing was submitted at it yet."""
        sid = self.sid
        for obj in self.pending.values():
            if obj._in_flight.get(sid, -1) > epoch:  # noqa: SLF001 - the ledger alone writes the in-flight record
                return
        self.opened = self.epoch
        self.seen = 0


def ledger_of(stream: object) -> Ledger | None:
    """The ledger of ``stream`` (None for an object that is no stream set up here).
    Off the hot path: a submission is given its stream's ledger."""
    ledger = _ledgers.get(id(stream))
    return ledger if ledger is not None and ledger.stream() is stream else None


def ledgers() -> list[Ledger]:
    """The ledgers of the streams alive now."""
    return list(_ledgers.values())


@contextmanager
def lock_every_stream(before_each_round: Callable[[], None]) -> Iterator[list[Ledger]]:
    """Hold every stream's lock, new streams' included until none appears: no
    submission is in a C call meanwhile. ``before_each_round()`` runs after each round
    of locking (a memory being re-pointed refuses new work there). Yields the ledgers."""
    locked: list[Ledger] = []
    try:
        while True:
            new = sorted((ledger for ledger in ledgers() if all(ledger is not other for other in locked)),
                         key=lambda ledger: ledger.sid)
            if not new:
                break
            for ledger in new:
                ledger.lock.acquire()
                locked.append(ledger)
            before_each_round()
        yield locked
    finally:
        for ledger in locked:
            ledger.lock.release()


def fast_method(cls: type, name: str, signature: str, function: str | None = None) -> None:
    """Make ``cls.name`` (``Primitive.execute``, ``Stream.wait`` or
    ``BoundExecution.execute``) a method of C over its function of :data:`fast`:
    the loop users run then enters no Python frame. It returns None where the
    function answers 0 and otherwise calls ``self._after_fast_<name>(*arguments,
    answer)``, the rest of the method as written in Python; a call with keywords
    or another count of arguments goes to the method as written, whole. The
    method keeps its docstring, and ``signature`` (``"($self, ...)"``, as CPython
    writes its own) for ``inspect`` and ``help``. ``function``: the name of its
    function in :data:`fast`, if not ``name``."""
    python, after = vars(cls)[name], vars(cls)[f"_after_fast_{name}"]
    doc = f"{name}{signature}\n--\n\n{inspect.cleandoc(python.__doc__ or '')}"
    setattr(cls, name, fast["method"](function or name, cls, python, after, doc))


@contextmanager
def fast_calls(execute: CData | int | None = None, wait: CData | int | None = None) -> Iterator[None]:
    """For the block, the C fast path calls ``execute`` and ``wait`` in place of oneDNN's
    ``dnnl_primitive_execute`` and ``dnnl_stream_wait`` (function pointers of their
    signatures, cffi's or addresses; None: oneDNN's own): for tests and benchmarks. The
    Python path keeps calling what ``_primitive`` and ``_stream`` name."""
    def address(function: CData | int | None) -> int:
        return 0 if function is None else function if isinstance(function, int) else \
            int(ffi.cast("uintptr_t", function))

    previous = fast["set_calls"](address(execute), address(wait))
    try:
        yield
    finally:
        fast["set_calls"](*previous)
