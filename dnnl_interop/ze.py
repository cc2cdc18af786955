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

from ._ffi import ffi, lib
from ._handles import Handle, as_bytes, as_handle
from ._sized import query_then_fill
from .core import (
    MEMORY_ALLOCATE,
    Engine,
    Memory,
    MemoryDesc,
    Primitive,
    Stream,
    _as,
    _exec_args,
    data_pointer,
)
from .errors import check

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


class ZeHandle(Handle):
    """A Level Zero handle as a value (see :class:`dnnl_interop._handles.Handle`).

    ``int(h)`` is the address, ``h.ptr`` the typed cffi pointer; equal
    handles are of the same kind at the same address. It does not keep the
    native object alive.
    """

    __slots__ = ()
    _family = "Level Zero"


class Driver(ZeHandle):
    """A ``ze_driver_handle_t``."""

    __slots__ = ()
    _ctype = "ze_driver_handle_t"


class Device(ZeHandle):
    """A ``ze_device_handle_t``."""

    __slots__ = ()
    _ctype = "ze_device_handle_t"


class Context(ZeHandle):
    """A ``ze_context_handle_t``."""

    __slots__ = ()
    _ctype = "ze_context_handle_t"


class CommandList(ZeHandle):
    """A ``ze_command_list_handle_t``."""

    __slots__ = ()
    _ctype = "ze_command_list_handle_t"


class Event(ZeHandle):
    """A ``ze_event_handle_t``."""

    __slots__ = ()
    _ctype = "ze_event_handle_t"


_KINDS = (Driver, Device, Context, CommandList, Event)
_TYPE_OF = {kind: ffi.typeof(kind._ctype) for kind in _KINDS}  # resolved once


def _handle(obj: object, kind: type[ZeHandle], what: str):
    """``obj`` as a ``kind._ctype`` cdata (as_handle refuses handles of another kind)."""
    return as_handle(obj, _TYPE_OF[kind], what)


# --- cache blobs ---------------------------------------------------------------


def get_engine_cache_blob_id(driver: object, device: object) -> bytes:
    """The id of the cache blob oneDNN would make for ``device`` of ``driver``.

    Engines on devices with equal ids can share a cache blob. Without a
    Level Zero loader oneDNN answers ``DnnlRuntimeError``.
    """
    return query_then_fill(
        lib.dnnl_ze_interop_engine_get_cache_blob_id,
        "dnnl_ze_interop_engine_get_cache_blob_id",
        _handle(driver, Driver, "driver"),
        _handle(device, Device, "device"),
    )


def get_engine_cache_blob(engine: Engine) -> bytes:
    """The engine's cache blob, to pass to :func:`make_engine` next time.

    ``engine`` must be an open :class:`Engine` (oneDNN crashes on NULL, so
    None is refused here); a non-Level-Zero engine gives InvalidArgumentsError.
    """
    return query_then_fill(
        lib.dnnl_ze_interop_engine_get_cache_blob,
        "dnnl_ze_interop_engine_get_cache_blob",
        _as(engine, Engine, "engine"),
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
    """
    drv = _handle(driver, Driver, "driver")
    dev = _handle(device, Device, "device")
    ctx = _handle(context, Context, "context")
    out = Engine._new_out()
    if cache_blob is None:
        check(
            lib.dnnl_ze_interop_engine_create(out, drv, dev, ctx),
            "dnnl_ze_interop_engine_create",
        )
    else:
        blob = as_bytes(cache_blob, "cache_blob")
        check(
            lib.dnnl_ze_interop_engine_create_from_cache_blob(out, drv, dev, ctx, len(blob), blob),
            "dnnl_ze_interop_engine_create_from_cache_blob",
        )
    return Engine._from_handle(out[0], keep=(driver, device, context))


def _get(function, name: str, handle, kind: type[ZeHandle]):
    out = ffi.new(kind._ctype + " *")
    check(function(handle, out), name)
    return kind._from_cdata(out[0])


def get_driver(engine: Engine) -> Driver | None:
    """The engine's Level Zero driver."""
    return _get(
        lib.dnnl_ze_interop_engine_get_driver, "dnnl_ze_interop_engine_get_driver",
        _as(engine, Engine, "engine"), Driver,
    )


def get_device(engine: Engine) -> Device | None:
    """The engine's Level Zero device."""
    return _get(
        lib.dnnl_ze_interop_engine_get_device, "dnnl_ze_interop_engine_get_device",
        _as(engine, Engine, "engine"), Device,
    )


def get_context(engine: Engine) -> Context | None:
    """The engine's Level Zero context (the user's, not owned by oneDNN)."""
    return _get(
        lib.dnnl_ze_interop_engine_get_context, "dnnl_ze_interop_engine_get_context",
        _as(engine, Engine, "engine"), Context,
    )


# --- streams -------------------------------------------------------------------


def make_stream(engine: Engine, command_list: object, profiling: bool = False) -> Stream:
    """A stream appending its work to a Level Zero command list.

    The stream is always in-order. oneDNN neither owns nor checks the list;
    the object passed is kept alive by the stream, the native list must be
    kept alive by the caller. ``profiling`` enables kernel profiling where
    the library supports it (release builds ignore it).
    """
    eng = _as(engine, Engine, "engine")
    lst = _handle(command_list, CommandList, "command_list")
    out = Stream._new_out()
    check(
        lib.dnnl_ze_interop_stream_create(out, eng, lst, 1 if profiling else 0),
        "dnnl_ze_interop_stream_create",
    )
    return Stream._from_handle(out[0], keep=(engine, command_list))


def get_list(stream: Stream) -> CommandList | None:
    """The stream's Level Zero command list."""
    return _get(
        lib.dnnl_ze_interop_stream_get_list, "dnnl_ze_interop_stream_get_list",
        _as(stream, Stream, "stream"), CommandList,
    )


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
    """
    md = _as(desc, MemoryDesc, "desc")
    eng = _as(engine, Engine, "engine")
    if isinstance(handles, (list, tuple)):
        given = list(handles) or [MEMORY_ALLOCATE]  # dense descriptors have one buffer
        names = [f"handles[{i}]" for i in range(len(given))]
    else:
        given, names = [handles], ["handles"]
    pointers, keep = [], []
    for index, (handle, name) in enumerate(zip(given, names)):
        pointer, kept = data_pointer(handle, lib.dnnl_memory_desc_get_size_v2(md, index), name)
        pointers.append(pointer)
        keep.append(kept)
    array = ffi.new("void *[]", pointers)
    out = Memory._new_out()
    check(
        lib.dnnl_ze_interop_memory_create(out, md, eng, len(array), array),
        "dnnl_ze_interop_memory_create",
    )
    return Memory._wrap(out[0], desc, engine, pointers, tuple(keep))


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
    """
    prim = _as(primitive, Primitive, "primitive")
    strm = _as(stream, Stream, "stream")
    c_args = _exec_args(args, primitive._arg_sizes)
    events = [_handle(event, Event, f"deps[{i}]") for i, event in enumerate(deps)]
    c_deps = ffi.new("ze_event_handle_t[]", events) if events else ffi.NULL
    event = ffi.new("ze_event_handle_t *")
    check(
        lib.dnnl_ze_interop_primitive_execute(
            prim, strm, len(c_args), c_args, len(events), c_deps, event
        ),
        "dnnl_ze_interop_primitive_execute",
    )
    return Event._from_cdata(event[0])
