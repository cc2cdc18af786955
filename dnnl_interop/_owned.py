"""Objects that own one oneDNN handle, and when that handle may be destroyed.

A handle is destroyed exactly once, and never while something still uses it.
What uses it are the object's *users*, one named field for each kind:

* ``_in_flight``: work submitted to a stream and not yet known finished
  (stream id -> the epoch of its latest submission): execution is
  asynchronous, so a primitive and its memories are in use until the stream
  is known to be done with them. Only the in-flight ledger (``_inflight``)
  writes it;
* ``_dependents``: another handle that needs it (a oneDNN stream does not
  retain its engine, a primitive its engine or hint, a borrower its holder),
  or a binding (``Primitive.bind``), which holds its primitive's and memories'
  handles until it lets go, so that an execute with its wait registers nothing;
* ``_views``: numpy views, mappings and DLPack tensors of a memory's buffer;
* ``_calls``: a C call in progress, possibly in another thread.

``close()`` marks the object closed at once (using it afterwards raises
:class:`ClosedObjectError`) and destroys the handle then or, if users remain,
when the last of them lets go. An explicit ``close()`` first waits for the
streams that have work using the object; a finalizer never waits (it may run
in any thread, in the middle of anything), it only defers. What the handle
needs (``_keep``: its engine, the array it wraps) lives until the handle is
destroyed.

Copies would share one handle and destroy it twice, so owning objects refuse
``copy``, ``deepcopy`` and ``pickle`` unless a subclass defines a real copy.

Locks: one discipline for submitting, re-pointing and closing.

* ``_shared.lock`` (one for the process) guards the bookkeeping of handles:
  taking a handle out of its object (closing), the deferred destroys, the
  holders of adopted handles and an engine's list of streams. It is never
  held across a C call that waits for work. A stream registers with its
  engine under it, and checks there that the engine is still open; an
  engine closes under it before it closes its streams: a stream made while
  its engine closes is refused or closed by it, never left open.
* Each stream's lock (its ledger's, see ``_inflight``) is held by a submission (registering what the
  work uses, the C execute call, then tracking its event or a marker after
  it: see ``_stream``), by the bookkeeping of a wait, by the
  stream's close, and throughout a bound execute with its wait
  (``BoundExecution.execute(wait=True)``: its C wait included, so nothing
  else is submitted to the stream meanwhile). A thread holding a stream's
  lock may take the shared lock, never the reverse.
* Re-pointing a memory at another buffer (``set_data_handle``,
  ``ocl.set_mem_object``) waits for the streams with work on it, then,
  holding ``_shared.repoint_lock`` (one re-pointing at a time), takes every
  stream's lock in turn: no submission is in a C call while the buffer is
  switched. Work submitted on the memory in between is finished too, and
  the old buffer is kept by those streams until they are next waited for.
  Submitters take one stream lock at a time and never the re-point lock,
  so no two threads wait for each other.

Beyond these locks, single dictionary operations are atomic (the GIL).
``_shared.changes`` takes a new value after every close and every change of
a memory's buffer; a binding (``_execution.BoundExecution``) re-checks its
objects only when it differs from the value it last checked them at.
"""

from __future__ import annotations

import collections
import itertools
import threading
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, SupportsIndex, TypeVar, cast

from ._ffi import ffi
from ._handles import address_of, handle_name, required_handle
from ._library import check
from .errors import ClosedObjectError

if TYPE_CHECKING:
    from types import TracebackType

    from ._ffi import CData, CType

_O = TypeVar("_O", bound="Owned")


class _Stream(Protocol):
    """What ownership needs of a stream: waiting for its work."""

    def wait(self) -> None: ...


class _Shared:
    """State every owned object reaches through its class, so that finalizers
    still find it at interpreter shutdown, after module globals are cleared."""

    def __init__(self) -> None:
        self.lock = threading.RLock()  # closers: taking a handle out is two steps
        self.repoint_lock = threading.Lock()  # one memory re-pointed at a time (Memory._repoint)
        self.deferred: dict[int, tuple[Owned, CData]] = {}  # id -> (closed object, handle)
        self.call_keys = itertools.count(1)  # negated: never equal to an id()
        self.streams: weakref.WeakValueDictionary[int, _Stream] = weakref.WeakValueDictionary()
        self.live = 0
        # A new value whenever an object closes or a memory's buffer changes (see changed):
        # a binding that sees the value it checked its objects at skips checking them again.
        self.change_count = itertools.count(1)
        self.changes = 0
        # address -> (id, weak reference) of the object that owns the handle at
        # that address or, if none does, of the first that borrows it.
        self.holders: dict[int, tuple[int, weakref.ref[Owned]]] = {}
        self.address_of = address_of  # reached at shutdown, when module globals are gone
        # Objects whose finalizer found the lock taken by another thread (a
        # finalizer never blocks): closed by the next thread to take it.
        self.finalized: collections.deque[Owned] = collections.deque()


    def changed(self) -> None:
        """Give ``changes`` a new value: called after an object closes or a memory's buffer
        changes (next() on a count is atomic, so no value is ever given twice)."""
        self.changes = next(self.change_count)


_shared = _Shared()
shared = _shared  # what other modules of the package reach: the one _Shared of the process


def live_objects() -> int:
    """How many oneDNN handles exist right now (for leak checks)."""
    _close_finalized(_shared)
    return _shared.live


def _close_finalized(shared: _Shared) -> None:
    """Close the objects finalizers had to leave to another thread (see ``_Shared.finalized``).

    Never blocks: an object whose lock is taken again waits for the next call.
    """
    for _ in range(len(shared.finalized)):
        try:
            obj = shared.finalized.popleft()
        except IndexError:
            return
        obj._close_handle(finalizing=True)  # noqa: SLF001 - a friend in Owned's own module


close_finalized = _close_finalized  # what a C path that adopts a handle calls after it, as Owned._adopt does


def holder_of(address: int) -> tuple[bool, Owned | None]:
    """``(known, holder)``: whether an object of this binding owns or borrows the
    handle at ``address``, and that object (None while it is being finalized).

    A known handle whose holder is closed, or being finalized, is not yet
    destroyed: users remain, and the last to let go destroys it.
    """
    entry = _shared.holders.get(address)
    if entry is None:
        return False, None
    return True, entry[1]()


class Owned:
    """Base class: one oneDNN handle, destroyed once, after its last user."""

    __slots__ = ("_handle", "_keep", "_in_flight", "_dependents", "_views", "_calls", "_holds", "_borrowed",
                 "__weakref__")
    _ctype = "void *"
    # The C destroy function (a lib function of one handle), set by each subclass.
    _destroy: ClassVar[Callable[..., int] | None] = None
    _destroy_name = ""
    _shared = _shared
    _handle: CData | None
    _keep: tuple[Any, ...]  # what the handle needs: each subclass knows the types at each index
    _in_flight: dict[int, int]  # stream id -> the epoch of its latest submission using the handle
    _dependents: set[object]  # keys of other handles and bindings that need this one
    _views: set[object]  # keys of the views of a memory's buffer
    _calls: set[object]  # keys of the C calls in progress
    _holds: tuple[tuple[Owned, object], ...]
    _borrowed: bool  # set by from_handle(..., owned=False), before _adopt

    # --- creation ------------------------------------------------------------

    def _refuse_reinit(self) -> None:
        """Called first by ``__init__``: a second ``__init__`` would leak a handle."""
        if hasattr(self, "_calls"):
            raise RuntimeError(f"this {type(self).__name__} is already initialised")

    def _adopt(self, handle: CData, keep: tuple[Any, ...] = ()) -> None:
        """Take ownership of ``handle``, just returned by a C create function."""
        self._handle = handle
        self._keep = keep
        self._in_flight = {}
        self._dependents = set()
        self._views = set()
        self._calls = set()
        self._holds = ()  # (owner, key): uses of other handles, ended when this one is destroyed
        shared = self._shared
        with shared.lock:
            shared.live += 1
            # An owner always holds its address; a borrower only if nothing does
            # (``_borrowed`` is set before ``_adopt`` by ``from_handle``).
            address = address_of(handle)
            if not getattr(self, "_borrowed", False) or address not in shared.holders:
                shared.holders[address] = (id(self), weakref.ref(self))
        if shared.finalized:
            _close_finalized(shared)

    @classmethod
    def _from_handle(cls: type[_O], handle: CData, keep: tuple[Any, ...] = ()) -> _O:
        """Wrap a handle created elsewhere (an interop create function)."""
        obj: Owned = cls.__new__(cls)
        obj._adopt(handle, keep)
        return cast(_O, obj)

    @classmethod
    def _new_out(cls) -> CData:
        """A fresh ``T *`` for a C create function to write into."""
        return ffi.new(cls._ctype + " *")

    # --- use -----------------------------------------------------------------

    @property
    def handle(self) -> CData:
        """The typed cffi pointer. Raises ClosedObjectError once closed."""
        handle: CData | None = getattr(self, "_handle", None)
        if handle is None:
            raise self._closed_error()
        return handle

    def _closed_error(self, what: str | None = None) -> Exception:
        """The error for using the object once closed (``what``: the argument's name), with
        why it was closed when another object closed it (``_why_closed``: a stream's engine)."""
        message = f"this {type(self).__name__} is closed"
        why: str | None = getattr(self, "_why_closed", None)
        message = f"{what}: {message}" if what else message
        return ClosedObjectError(f"{message}: {why}" if why else message)

    @property
    def int_ptr(self) -> int:
        """The handle's address as an int (pyopencl's convention)."""
        return address_of(self.handle)

    @property
    def closed(self) -> bool:
        return getattr(self, "_handle", None) is None

    @property
    def borrowed(self) -> bool:
        """True if the handle is borrowed (``from_handle(..., owned=False)``): never destroyed here."""
        borrowed: bool = getattr(self, "_borrowed", False)
        return borrowed

    def _kept(self, index: int) -> Any:
        """``_keep[index]`` (the engine, the descriptor, ...) of an open object."""
        keep = self._keep
        if len(keep) <= index:
            raise self._closed_error()
        return keep[index]

    def _use(self, key: object) -> None:
        """Register ``key``, a C call, as a user. Read the handle only after this."""
        self._calls.add(key)

    def _depend(self, key: object) -> None:
        """Register ``key``, another handle or a binding that needs this one, as a user."""
        self._dependents.add(key)

    def _add_view(self, key: object) -> None:
        """Register ``key``, a view of the buffer (numpy, a mapping, DLPack), as a user."""
        self._views.add(key)

    def _idle(self) -> bool:
        """Whether nothing uses the handle (it can be destroyed once closed)."""
        return not (self._in_flight or self._calls or self._dependents or self._views)

    def _release(self, key: object) -> None:
        """``key`` (a call, a dependent or a view) no longer uses the handle: destroy it if it
        was closed meanwhile."""
        self._calls.discard(key)
        self._dependents.discard(key)
        self._views.discard(key)
        if id(self) in self._shared.deferred and self._idle():
            self._claim()

    def _claim(self) -> None:
        # Whoever pops the entry destroys the handle: exactly one caller does.
        entry = self._shared.deferred.pop(id(self), None)
        if entry is not None:
            self._destroy_handle(entry[1])

    # --- closing -------------------------------------------------------------

    def close(self) -> None:
        """Destroy the handle, after the work that uses it. Closing twice is harmless.

        Waits for the streams that have submitted work using this object. The
        object is unusable from the moment ``close`` is called.
        """
        if getattr(self, "_handle", None) is None:
            return
        self._finish_work()
        self._close_handle()
        if self._shared.finalized:
            _close_finalized(self._shared)

    def _finish_work(self) -> None:
        """Wait for every stream that has submitted work using this object."""
        streams = self._shared.streams
        for key in list(getattr(self, "_in_flight", ())):
            stream = streams.get(key)
            if stream is not None and stream is not self:  # type: ignore[comparison-overlap]  # a Stream is Owned
                stream.wait()

    def _close_handle(self, finalizing: bool = False) -> None:
        """Take the handle out; destroy it now, or when the last user lets go.

        ``finalizing``: called from a finalizer, which must never block.
        """
        shared = self._shared
        if not shared.lock.acquire(blocking=not finalizing):
            # Another thread holds it (at shutdown maybe one that will never
            # run again): keep the object for the next thread that takes it.
            shared.finalized.append(self)
            return
        try:
            handle = getattr(self, "_handle", None)  # unset if creation failed
            if handle is None:
                return
            self._handle = None
            self._on_close()
            shared.changed()
            shared.deferred[id(self)] = (self, handle)
        finally:
            shared.lock.release()
        if self._idle():
            self._claim()

    def _on_close(self) -> None:
        """Called under the lock as the object closes (subclasses clear fast-path state)."""

    def _destroy_handle(self, handle: CData) -> None:
        shared = self._shared
        try:
            destroy = self._destroy  # a C function: never bound as a method
            if destroy is not None and not getattr(self, "_borrowed", False):
                check(destroy(handle), self._destroy_name)
        finally:
            with shared.lock:
                shared.live -= 1
                address = shared.address_of(handle)
                entry = shared.holders.get(address)
                if entry is not None and entry[0] == id(self):
                    del shared.holders[address]
            holds, self._holds, self._keep = self._holds, (), ()
            for hold in holds:
                owner: Owned = hold[0]
                owner._release(hold[1])

    def _hold(self, other: Owned, key: object) -> None:
        """This handle needs ``other``'s: ``other`` is kept, as a user keyed ``key``, until
        this one is destroyed."""
        other._depend(key)
        self._holds += ((other, key),)

    def _enter_call(self, key: object, what: str) -> CData:
        """Register ``key``, a C call about to use the handle, and give the handle
        (ClosedObjectError naming ``what`` if closed): see :class:`using`."""
        if getattr(self, "_calls", None) is None:  # made with __new__ only: never opened
            raise ClosedObjectError(f"{what}: this {type(self).__name__} is closed")
        self._use(key)
        handle = self._handle
        if handle is None:
            raise self._closed_error(what)
        return handle

    def _leave_call(self, key: object) -> None:
        """The C call keyed ``key`` is over (see :class:`using`)."""
        if getattr(self, "_calls", None) is not None:
            self._release(key)

    def __enter__(self: _O) -> _O:
        _ = self.handle  # refuse to enter a closed object
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self._close_handle(finalizing=True)
            if self._shared.finalized:
                _close_finalized(self._shared)
        except Exception:  # nothing can be raised from a finalizer
            pass

    # --- what Python does with objects ---------------------------------------

    def __repr__(self) -> str:
        handle = getattr(self, "_handle", None)
        state = "closed" if handle is None else f"{address_of(handle):#x}"
        if getattr(self, "_borrowed", False):
            state += " borrowed"
        return f"<dnnl_interop.{type(self).__name__} {state}>"

    def __copy__(self) -> Owned:
        raise TypeError(
            f"a {type(self).__name__} owns a oneDNN handle and cannot be copied; share the object instead"
        )

    def __deepcopy__(self, memo: dict[int, object]) -> Owned:
        return self.__copy__()

    def __reduce_ex__(self, protocol: SupportsIndex) -> tuple[Any, ...]:
        raise TypeError(
            f"a {type(self).__name__} owns a oneDNN handle and cannot be pickled; "
            "pickle what it was made from instead"
        )


def finish_work(obj: Owned) -> None:
    """Wait for every stream that has submitted work using ``obj`` (a view of a memory's
    data, a re-pointing or a close must not see work in flight)."""
    if getattr(obj, "_in_flight", None):  # unset on an object never set up
        obj._finish_work()  # noqa: SLF001 - the package's door to an object's pending work


def new_out(cls: type[Owned]) -> CData:
    """A fresh ``T *`` for a C create function of ``cls``'s handle type to write into."""
    return cls._new_out()


def closed_error(obj: Owned, what: str) -> Exception:
    """The ClosedObjectError (or the subclass's own error) for closed ``obj`` given as the
    argument ``what``, with why it was closed when another object closed it."""
    return obj._closed_error(what)  # noqa: SLF001 - the package's door to an object's closed error


class using:  # lower case: reads as a phrase, ``with using(...) as handles``
    """Context manager: the handles of owned objects, kept valid for a C call.

    ``using((engine, Engine, "engine"), (desc, MemoryDesc, "desc"))`` checks
    each object's type (TypeError naming the argument), registers the call as
    a user of each, and yields the handles (a tuple; one handle for one
    object). Closing one of them from another thread meanwhile defers the
    destroy until the call is over.
    """

    __slots__ = ("_objects", "_key")

    def __init__(self, *specs: tuple[object, type[Owned], str]) -> None:
        self._key = -next(_shared.call_keys)
        objects: list[tuple[Owned, str]] = []
        for obj, cls, what in specs:
            if not isinstance(obj, cls):
                raise TypeError(
                    f"{what}: expected a dnnl_interop.{cls.__name__}, got {type(obj).__name__}"
                )
            objects.append((obj, what))
        self._objects = objects

    def __enter__(self) -> Any:  # one handle (CData), or a tuple of them: as many as objects
        key = self._key
        handles: list[CData] = []
        try:
            for obj, what in self._objects:
                handles.append(obj._enter_call(key, what))  # noqa: SLF001 - a friend in Owned's own module
        except BaseException:
            self.__exit__()
            raise
        return handles[0] if len(handles) == 1 else tuple(handles)

    def __exit__(self, *exc_info: object) -> None:
        key = self._key
        for obj, _ in self._objects:
            obj._leave_call(key)  # noqa: SLF001 - a friend in Owned's own module


# --- handles made elsewhere ------------------------------------------------------


def foreign_pointer(handle: object, ctype: CType, what: str) -> CData:
    """A handle given to ``from_handle`` as our typed pointer: a cffi pointer of
    ``ctype`` (also one another cffi module declared), ``void *`` or an int
    address. None, NULL, pointers of other types and our own objects are refused."""
    if isinstance(handle, Owned):
        raise TypeError(
            f"{what}: expected a {handle_name(ctype)}, got a dnnl_interop.{type(handle).__name__} "
            "(already an object of this binding: use it, or borrow its .handle)"
        )
    return required_handle(handle, ctype, what)


class Adoption:
    """Wrapping a handle made elsewhere, checked against the objects of this
    binding that already hold it.

    ``owned=True`` is refused for a handle one of ours owns or borrows: two
    owners would destroy it twice. A handle whose object is closed (or being
    finalized) is refused outright: it is destroyed once its users let go. A
    borrowed handle that one of ours holds makes the new object a user of
    that holder, so closing the holder destroys the handle only after the
    borrower is gone. The holder is pinned from the start, while C reads
    the handle.
    """

    __slots__ = ("_address", "_owned", "_what", "_holder", "_key")

    def __init__(self, cls: type[Owned], pointer: CData, owned: bool, what: str) -> None:
        self._address, self._owned, self._what = address_of(pointer), owned, what
        self._holder: Owned | None = None
        self._key = ("borrowed", next(_shared.call_keys))
        with _shared.lock:
            holder = self._holder_of(cls)
            if holder is not None:
                holder._depend(self._key)  # noqa: SLF001 - a friend in Owned's own module
                self._holder = holder

    def _holder_of(self, cls: type[Owned]) -> Owned | None:
        known, holder = holder_of(self._address)
        if not known:
            return None
        what = self._what
        if holder is None or holder.closed:
            raise ClosedObjectError(
                f"{what}: the handle of a closed object of this binding (destroyed once its last user lets go)"
            )
        if not isinstance(holder, cls):
            raise TypeError(
                f"{what}: the handle of a dnnl_interop.{type(holder).__name__}, not of a dnnl_interop.{cls.__name__}"
            )
        if self._owned:
            how = "borrows" if holder.borrowed else "owns"
            raise ValueError(
                f"{what}: {holder!r} already {how} this handle; two owners would destroy it twice "
                "(owned=False borrows it)"
            )
        return holder

    def cancel(self) -> None:
        """Nothing was made: let the holder go."""
        holder, self._holder = self._holder, None
        if holder is not None:
            holder._release(self._key)  # noqa: SLF001 - a friend in Owned's own module

    def finish(self, cls: type[_O], adopt: Callable[[_O], None]) -> _O:
        """A new ``cls`` that ``adopt`` sets up over the handle, owned or borrowed."""
        obj = cls.__new__(cls)
        obj._borrowed = not self._owned  # noqa: SLF001 - a friend in Owned's own module
        try:
            with _shared.lock:
                if self._owned:
                    self._holder_of(cls)  # another thread may have taken it over meanwhile
                adopt(obj)
                if self._holder is not None:
                    obj._hold(self._holder, self._key)  # noqa: SLF001 - a friend in Owned's own module
                    self._holder = None
        except BaseException:
            self.cancel()
            raise
        return obj
