"""Level Zero interoperability: ``dnnl::ze_interop`` for Python.

Level Zero handles are opaque. Every function accepts, for each handle, an
int address, a cffi pointer, or an object exposing the address through
``int_ptr`` or ``__int__``; None means NULL. Handles oneDNN gives back are
returned as immutable values of :class:`Driver`, :class:`Device`,
:class:`Context`, :class:`CommandList` and :class:`Event`, which are
accepted as inputs too.

Ownership: oneDNN owns none of the Level Zero objects it is given. It does
not retain the driver, device or context of an engine, the command list of a
stream, nor a user buffer of a memory, and never frees them. This binding
keeps alive every *Python object* passed in for as long as the engine,
stream or memory that uses it lives. That protects a Python wrapper that
frees its native object when collected, but an int handle carries no
lifetime: the native Level Zero objects themselves must be kept alive by the
caller until the oneDNN object using them is closed (and, for a command
list, until the work oneDNN appended to it has finished).

Functions the loaded oneDNN lacks (the ``dnnl_ze_*`` API needs 3.12, the
cache-blob functions 3.13) raise :class:`dnnl_interop.MissingFunctionError`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from ._buffers import MEMORY_ALLOCATE
from ._cached import make_engine_cached as _make_engine_cached
from ._engine import Engine, explain_runtime, interop_engine
from ._engine_blob import check_engine_cache_blob
from ._execution import submit
from ._ffi import ffi, lib
from ._handles import as_bytes, c_type_of, handle_value, required_handle
from ._interop import get_handle
from ._library import check
from ._memory import Memory, make_ze_memory
from ._memory_desc import MemoryDesc
from ._owned import new_out, using
from ._primitive import Primitive
from ._runtime import library_version, ze_engine_blob_id
from ._sized import query_then_fill
from ._stream import Stream, interop_stream
from ._ze_handles import CommandList, Context, Device, Driver, Event, ZeHandle

if TYPE_CHECKING:
    from ._ffi import CData, CType
    from .cache import CacheBlobStore

__all__ = [
    "ZeHandle",
    "Driver",
    "Device",
    "Context",
    "CommandList",
    "Event",
    "get_engine_cache_blob_id",
    "get_engine_cache_blob",
    "make_engine",
    "get_driver",
    "get_device",
    "get_context",
    "make_stream",
    "get_list",
    "make_memory",
    "execute",
]


_KINDS = (Driver, Device, Context, CommandList, Event)
_TYPE_OF: dict[type[ZeHandle], CType] = {kind: ffi.typeof(c_type_of(kind)) for kind in _KINDS}  # resolved once


def _handle(obj: object, kind: type[ZeHandle], what: str) -> CData:
    """``obj`` as a cdata of ``kind``'s C type (as_handle refuses handles of another kind)."""
    return required_handle(obj, _TYPE_OF[kind], what)


# --- cache blobs ---------------------------------------------------------------


def get_engine_cache_blob_id(driver: object, device: object) -> bytes:
    """The id of the cache blob oneDNN would make for ``device`` of ``driver``.

    Engines on devices with equal ids can share a cache blob. Without a
    Level Zero loader oneDNN answers ``DnnlRuntimeError``.

    Raises:
        TypeError: ``driver`` is None, or not a ze.Driver handle (another runtime's or kind's
            handle, a str, ...).
        ValueError: ``driver`` is a NULL handle.
        TypeError: ``device`` is None, or not a ze.Device handle (another runtime's or kind's
            handle, a str, ...).
        DnnlRuntimeError: no Level Zero loader is found (oneDNN answers RUNTIME_ERROR).
        DnnlError: another failure oneDNN reports.
        LibraryNotFoundError, MissingFunctionError: oneDNN cannot be loaded, or lacks the
            function.
    """
    return ze_engine_blob_id(_handle(driver, Driver, "driver"), _handle(device, Device, "device"))


def get_engine_cache_blob(engine: Engine) -> bytes:
    """The engine's cache blob, to pass to :func:`make_engine` next time.

    ``engine`` must be an open :class:`Engine` (oneDNN crashes on NULL, so
    None is refused here); a non-Level-Zero engine gives InvalidArgumentsError.

    Raises:
        TypeError: ``engine`` is not a :class:`~dnnl_interop.Engine`.
        ClosedObjectError: ``engine`` is closed.
        InvalidArgumentsError: ``engine`` is not a Level Zero engine (the message says which
            it is and that ``ze.make_engine`` makes one).
        LibraryNotFoundError, MissingFunctionError: oneDNN cannot be loaded, or lacks the
            function.
    """
    with explain_runtime("ze", (engine, "engine")), using((engine, Engine, "engine")) as c_engine:
        return query_then_fill(
            lib.dnnl_ze_interop_engine_get_cache_blob,
            "dnnl_ze_interop_engine_get_cache_blob",
            c_engine,
        )


# --- engines -------------------------------------------------------------------


def make_engine(
    driver: object, device: object, context: object, cache_blob: bytes | None = None
) -> Engine:
    """An engine on a Level Zero device, using ``context`` for all its work.

    The device must be a root device of the first driver. With
    ``cache_blob`` (from :func:`get_engine_cache_blob`) the engine skips
    querying the device; an empty blob is refused like in oneDNN. oneDNN
    neither owns nor retains the driver, device or context: the objects
    passed are kept alive by the returned engine, but native handles given
    as ints must be kept alive by the caller until the engine is closed.

    Raises:
        TypeError: ``driver`` is None, or not a ze.Driver handle (another runtime's or kind's
            handle, a str, ...).
        ValueError: ``driver`` is a NULL handle.
        TypeError: ``device`` or ``context`` is of another kind, or ``cache_blob`` is not bytes-
            like.
        ValueError: ``cache_blob`` is empty or malformed (its layout is checked before oneDNN
            reads it).
        InvalidArgumentsError: oneDNN refuses the device (not a root device of the first
            driver).
        DnnlRuntimeError: no Level Zero loader is found.
        DnnlError: another failure oneDNN reports (its reason: ``ONEDNN_VERBOSE=check``).
        LibraryNotFoundError, MissingFunctionError: oneDNN cannot be loaded, or lacks the
            function.
    """
    drv = _handle(driver, Driver, "driver")
    dev = _handle(device, Device, "device")
    ctx = _handle(context, Context, "context")
    out = new_out(Engine)
    if cache_blob is None:
        check(
            lib.dnnl_ze_interop_engine_create(out, drv, dev, ctx),
            "dnnl_ze_interop_engine_create",
        )
    else:
        blob = as_bytes(cache_blob, "cache_blob")
        if not len(blob):
            raise ValueError("cache_blob: empty; a cache blob from get_engine_cache_blob is never empty")
        check_engine_cache_blob(cache_blob, library_version())
        check(
            lib.dnnl_ze_interop_engine_create_from_cache_blob(out, drv, dev, ctx, len(blob), blob),
            "dnnl_ze_interop_engine_create_from_cache_blob",
        )
    return interop_engine(out[0], (driver, device, context), "ze")


def get_driver(engine: Engine) -> Driver | None:
    """The engine's Level Zero driver.

    Raises:
        TypeError: ``engine`` is not a :class:`~dnnl_interop.Engine`.
        ClosedObjectError: ``engine`` is closed.
        InvalidArgumentsError: ``engine`` is not a Level Zero engine (the message says which
            it is and that ``ze.make_engine`` makes one).
        LibraryNotFoundError, MissingFunctionError: oneDNN cannot be loaded, or lacks the
            function.
    """
    return handle_value(Driver, get_handle(
        lib.dnnl_ze_interop_engine_get_driver, "dnnl_ze_interop_engine_get_driver",
        engine, Engine, "engine", c_type_of(Driver), "ze",
    ))


def get_device(engine: Engine) -> Device | None:
    """The engine's Level Zero device.

    Raises:
        TypeError: ``engine`` is not a :class:`~dnnl_interop.Engine`.
        ClosedObjectError: ``engine`` is closed.
        InvalidArgumentsError: ``engine`` is not a Level Zero engine (the message says which
            it is and that ``ze.make_engine`` makes one).
        LibraryNotFoundError, MissingFunctionError: oneDNN cannot be loaded, or lacks the
            function.
    """
    return handle_value(Device, get_handle(
        lib.dnnl_ze_interop_engine_get_device, "dnnl_ze_interop_engine_get_device",
        engine, Engine, "engine", c_type_of(Device), "ze",
    ))


def get_context(engine: Engine) -> Context | None:
    """The engine's Level Zero context (the user's, not owned by oneDNN).

    Raises:
        TypeError: ``engine`` is not a :class:`~dnnl_interop.Engine`.
        ClosedObjectError: ``engine`` is closed.
        InvalidArgumentsError: ``engine`` is not a Level Zero engine (the message says which
            it is and that ``ze.make_engine`` makes one).
        LibraryNotFoundError, MissingFunctionError: oneDNN cannot be loaded, or lacks the
            function.
    """
    return handle_value(Context, get_handle(
        lib.dnnl_ze_interop_engine_get_context, "dnnl_ze_interop_engine_get_context",
        engine, Engine, "engine", c_type_of(Context), "ze",
    ))


# --- streams -------------------------------------------------------------------


def make_stream(engine: Engine, command_list: object, profiling: bool = False) -> Stream:
    """A stream appending its work to a Level Zero command list.

    The stream is always in-order. oneDNN neither owns nor checks the list;
    the object passed is kept alive by the stream, the native list must be
    kept alive by the caller. ``profiling`` enables kernel profiling where
    the library supports it (release builds ignore it).

    Raises:
        TypeError: ``command_list`` is None, or not a ze.CommandList handle (another runtime's
            or kind's handle, a str, ...).
        ValueError: ``command_list`` is a NULL handle.
        TypeError: ``engine`` is not an Engine, or ``profiling`` not a bool.
        ClosedObjectError: ``engine`` is closed.
        InvalidArgumentsError: ``engine`` is not a Level Zero engine, or oneDNN refuses the
            list.
        LibraryNotFoundError, MissingFunctionError: oneDNN cannot be loaded, or lacks the
            function.
    """
    lst = _handle(command_list, CommandList, "command_list")
    if not isinstance(profiling, (bool, int)):
        raise TypeError(f"profiling: expected a bool, got {type(profiling).__name__}")
    out = new_out(Stream)
    with explain_runtime("ze", (engine, "engine")), using((engine, Engine, "engine")) as c_engine:
        check(
            lib.dnnl_ze_interop_stream_create(out, c_engine, lst, 1 if profiling else 0),
            "dnnl_ze_interop_stream_create",
        )
        return interop_stream(out[0], (engine, command_list))


def get_list(stream: Stream) -> CommandList | None:
    """The stream's Level Zero command list.

    Raises:
        TypeError: ``stream`` is not a :class:`~dnnl_interop.Stream`.
        ClosedObjectError: ``stream`` is closed.
        InvalidArgumentsError: ``stream`` is not on a Level Zero engine (the message says which
            it is and that ``ze.make_stream`` makes one).
        LibraryNotFoundError, MissingFunctionError: oneDNN cannot be loaded, or lacks the
            function.
    """
    return handle_value(CommandList, get_handle(
        lib.dnnl_ze_interop_stream_get_list, "dnnl_ze_interop_stream_get_list",
        stream, Stream, "stream", c_type_of(CommandList), "ze",
    ))


# --- memory --------------------------------------------------------------------


def make_memory(desc: MemoryDesc, engine: Engine, handles: object = MEMORY_ALLOCATE) -> Memory:
    """A memory object on a Level Zero engine.

    ``handles`` is one handle or a list/tuple of them, one per buffer of the
    descriptor (an empty sequence means :data:`MEMORY_ALLOCATE` for each). A
    handle is :data:`MEMORY_ALLOCATE` (oneDNN allocates device USM and owns
    it), :data:`MEMORY_NONE` or None (no buffer), or a USM pointer: an int,
    a cffi pointer, an object with ``int_ptr``/``__int__``, or a writable
    C-contiguous buffer such as a numpy view of shared USM (its address is
    used). oneDNN does not own user pointers: the objects passed are kept
    alive by the memory, the native allocation must be kept alive by the
    caller. ``Memory.data_handle`` reads the pointer back.

    Raises:
        TypeError: ``desc`` is not a MemoryDesc, ``engine`` not an Engine, or a handle is no USM
            pointer (another kind of handle, a read-only buffer).
        ValueError: a host view of USM is too small or of another item type, or a list has more
            handles than the descriptor has buffers.
        ClosedObjectError: ``desc`` or ``engine`` is closed.
        InvalidArgumentsError: ``engine`` is not a Level Zero engine, or oneDNN refuses the
            memory.
        LibraryNotFoundError, MissingFunctionError: oneDNN cannot be loaded, or lacks the
            function.
    """
    return make_ze_memory(desc, engine, handles)


_VOID_POINTER = ffi.typeof("void *")


# --- execution -----------------------------------------------------------------


def execute(
    primitive: Primitive,
    stream: Stream,
    args: Mapping[int, Memory | None],
    deps: Iterable[object] = (),
) -> Event | None:
    """Append ``primitive`` to a Level Zero stream's list after the events ``deps``.

    ``args`` maps ``ARG_*`` indices to :class:`Memory` (None passes NULL).
    oneDNN does not retain the ``deps``: they go to every kernel launch as
    its wait list, so the caller keeps them alive until the list has run.
    Returns the :class:`Event` oneDNN reports, or None; oneDNN 3.13 always
    reports none (NULL) on interop streams, which are in-order.

    Raises:
        TypeError: ``deps`` is not a sequence of events, an event is of another kind, ``stream``
            is not a Stream or ``args`` not a mapping of ``ARG_*`` ints to Memory (or None).
        ValueError: a memory has no buffer, is smaller than the primitive's descriptor at its
            argument, or has its shape and data type in another layout than the primitive's.
        ClosedObjectError: the primitive, the stream or a memory is closed.
        InvalidArgumentsError: oneDNN refuses the execution (the message names a stream of
            another runtime, a missing argument or an object on another engine when the binding
            can tell).
        DnnlError: another failure oneDNN reports.
        LibraryNotFoundError, MissingFunctionError: oneDNN cannot be loaded, or lacks the
            function.
    """
    if isinstance(deps, (str, bytes)) or not isinstance(deps, Iterable):
        raise TypeError(f"deps: expected a sequence of Level Zero events, got {type(deps).__name__}")
    deps = tuple(deps)
    events = [_handle(event, Event, f"deps[{i}]") for i, event in enumerate(deps)]
    c_deps = ffi.new("ze_event_handle_t[]", events) if events else ffi.NULL
    event = ffi.new("ze_event_handle_t *")

    def call(c_primitive: CData, c_stream: CData, nargs: int, c_args: CData) -> int:
        return lib.dnnl_ze_interop_primitive_execute(
            c_primitive, c_stream, nargs, c_args, len(events), c_deps, event
        )

    if isinstance(primitive, Primitive):
        args = primitive._with_scratchpad(stream, args)  # noqa: SLF001 - execute's hot path: no call added
    submit(primitive, stream, args, deps, call, "dnnl_ze_interop_primitive_execute", "ze")
    return handle_value(Event, event[0])


# --- cached creation -----------------------------------------------------------


def make_engine_cached(
    driver: object, device: object, context: object, store: CacheBlobStore | None = None
) -> Engine:
    """:func:`make_engine`, from a cache blob of ``store`` when it has a sound one.

    As :func:`dnnl_interop.ocl.make_engine_cached`: the entry is keyed by
    :func:`get_engine_cache_blob_id` of ``driver`` and ``device``; a hit makes
    the engine from the verified blob, a refused blob (an error, or an engine
    that does not give the blob back) or a miss makes it afresh and saves its
    blob. ``store`` None is the default store. The store never fails the
    creation.

    Raises:
        TypeError: ``store`` is neither a :class:`~dnnl_interop.CacheBlobStore` nor None, or a
            handle is of another kind (as in :func:`make_engine`).
        DnnlError: oneDNN cannot make the engine afresh (a refused blob is not an error; the
            store never fails the creation).
        LibraryNotFoundError, MissingFunctionError: oneDNN cannot be loaded, or lacks the
            function.
    """
    return _make_engine_cached(
        "ze", lambda: get_engine_cache_blob_id(driver, device), store,
        lambda blob: make_engine(driver, device, context, blob), get_engine_cache_blob,
    )


__all__ += ["make_engine_cached"]


def __dir__() -> list[str]:
    return sorted(__all__)
