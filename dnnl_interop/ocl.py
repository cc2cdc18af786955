"""OpenCL interoperability: ``dnnl::ocl_interop`` for Python.

Inputs may be pyopencl objects, int handles or cffi pointers. Outputs are
pyopencl objects made with the right reference counting, so that neither
side frees the other's object:

* oneDNN's getters (device, context, queue, mem object) do not retain: the
  returned pyopencl object takes a reference of its own;
* the event from :func:`execute` on an out-of-order queue carries a
  reference the caller owns: the returned ``pyopencl.Event`` adopts it.

oneDNN retains the device, context, queue and buffers it is given; the
Python objects passed in are kept alive as well, for as long as the engine,
stream or memory that uses them.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping

from ._ffi import ffi, lib
from ._handles import address_of, as_bytes, as_handle
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
    check_holds,
    data_pointer,
)
from .errors import check

__all__ = [
    "MemoryKind",
    "get_engine_cache_blob_id",
    "get_engine_cache_blob",
    "make_engine",
    "get_device",
    "get_context",
    "make_stream",
    "get_command_queue",
    "make_memory",
    "get_memory_kind",
    "get_mem_object",
    "set_mem_object",
    "execute",
]


class MemoryKind(enum.IntEnum):
    """``dnnl_ocl_interop_memory_kind_t``."""

    USM = lib.dnnl_ocl_interop_usm
    BUFFER = lib.dnnl_ocl_interop_buffer


def _pyopencl():
    try:
        import pyopencl
    except ImportError as exc:  # pragma: no cover - pyopencl is a test dependency
        raise ImportError("returning OpenCL objects needs pyopencl (pip install pyopencl)") from exc
    return pyopencl


_CL_DEVICE = ffi.typeof("cl_device_id")
_get_cache_blob_id = lib.dnnl_ocl_interop_engine_get_cache_blob_id


def get_engine_cache_blob_id(device: object) -> bytes:
    """The id of the cache blob oneDNN would make for ``device``.

    Engines whose devices have equal ids can share a cache blob. ``device``
    is a ``pyopencl.Device``, an int ``cl_device_id`` or a cffi pointer.
    """
    return query_then_fill(
        _get_cache_blob_id,
        "dnnl_ocl_interop_engine_get_cache_blob_id",
        as_handle(device, _CL_DEVICE, "device"),
    )


def get_engine_cache_blob(engine: Engine) -> bytes:
    """The engine's cache blob, to pass to :func:`make_engine` next time."""
    return query_then_fill(
        lib.dnnl_ocl_interop_engine_get_cache_blob,
        "dnnl_ocl_interop_engine_get_cache_blob",
        _as(engine, Engine, "engine"),  # never NULL: oneDNN would crash on it
    )


def make_engine(device: object, context: object, cache_blob: bytes | None = None) -> Engine:
    """An engine on an OpenCL device and context (which oneDNN retains).

    With ``cache_blob`` (from :func:`get_engine_cache_blob`) the engine skips
    querying the device; an empty blob is refused like in oneDNN.
    """
    out = Engine._new_out()
    dev = as_handle(device, "cl_device_id", "device")
    ctx = as_handle(context, "cl_context", "context")
    if cache_blob is None:
        check(lib.dnnl_ocl_interop_engine_create(out, dev, ctx), "dnnl_ocl_interop_engine_create")
    else:
        blob = as_bytes(cache_blob, "cache_blob")
        check(
            lib.dnnl_ocl_interop_engine_create_from_cache_blob(out, dev, ctx, len(blob), blob),
            "dnnl_ocl_interop_engine_create_from_cache_blob",
        )
    return Engine._from_handle(out[0], keep=(device, context))


def _get(function, name: str, handle, ctype: str):
    out = ffi.new(ctype + " *")
    check(function(handle, out), name)
    return address_of(out[0])


def get_device(engine: Engine):
    """The engine's device as a ``pyopencl.Device``."""
    address = _get(
        lib.dnnl_ocl_interop_get_device, "dnnl_ocl_interop_get_device",
        _as(engine, Engine, "engine"), "cl_device_id",
    )
    return _pyopencl().Device.from_int_ptr(address, retain=True)


def get_context(engine: Engine):
    """The engine's context as a ``pyopencl.Context`` (with its own reference)."""
    address = _get(
        lib.dnnl_ocl_interop_engine_get_context, "dnnl_ocl_interop_engine_get_context",
        _as(engine, Engine, "engine"), "cl_context",
    )
    return _pyopencl().Context.from_int_ptr(address, retain=True)


def make_stream(engine: Engine, queue: object) -> Stream:
    """A stream on an OpenCL queue of the engine's device and context.

    The queue's order (in-order or out-of-order) is the stream's order.
    """
    out = Stream._new_out()
    check(
        lib.dnnl_ocl_interop_stream_create(
            out, _as(engine, Engine, "engine"), as_handle(queue, "cl_command_queue", "queue")
        ),
        "dnnl_ocl_interop_stream_create",
    )
    return Stream._from_handle(out[0], keep=(engine, queue))


def get_command_queue(stream: Stream):
    """The stream's queue as a ``pyopencl.CommandQueue`` (own reference)."""
    address = _get(
        lib.dnnl_ocl_interop_stream_get_command_queue, "dnnl_ocl_interop_stream_get_command_queue",
        _as(stream, Stream, "stream"), "cl_command_queue",
    )
    return _pyopencl().CommandQueue.from_int_ptr(address, retain=True)


def make_memory(
    desc: MemoryDesc,
    engine: Engine,
    kind: MemoryKind = MemoryKind.BUFFER,
    handle: object = MEMORY_ALLOCATE,
) -> Memory:
    """A memory object on an OpenCL engine.

    ``handle`` is :data:`MEMORY_ALLOCATE`, :data:`MEMORY_NONE` (or None), a
    ``cl_mem`` (``pyopencl.Buffer``, int, cffi pointer) for ``BUFFER``
    memory, a USM pointer for ``USM`` memory, or a sequence of those for
    descriptors with several buffers (an empty sequence allocates each).
    """
    md = _as(desc, MemoryDesc, "desc")
    eng = _as(engine, Engine, "engine")
    out = Memory._new_out()
    if isinstance(handle, (list, tuple)):
        handles = list(handle) or [MEMORY_ALLOCATE]
        pointers, kept = zip(*(
            data_pointer(h, lib.dnnl_memory_desc_get_size_v2(md, i), f"handle[{i}]")
            for i, h in enumerate(handles)
        ))
        array = ffi.new("void *[]", pointers)
        check(
            lib.dnnl_ocl_interop_memory_create_v2(out, md, eng, int(kind), len(array), array),
            "dnnl_ocl_interop_memory_create_v2",
        )
    else:
        pointer, kept = data_pointer(handle, desc.size, "handle")
        pointers = (pointer,)
        check(
            lib.dnnl_ocl_interop_memory_create(out, md, eng, int(kind), pointer),
            "dnnl_ocl_interop_memory_create",
        )
    return Memory._wrap(out[0], desc, engine, pointers, kept)


def get_memory_kind(memory: Memory) -> MemoryKind:
    """Whether the memory holds a USM pointer or an OpenCL buffer."""
    out = ffi.new("dnnl_ocl_interop_memory_kind_t *")
    check(
        lib.dnnl_ocl_interop_memory_get_memory_kind(_as(memory, Memory, "memory"), out),
        "dnnl_ocl_interop_memory_get_memory_kind",
    )
    return MemoryKind(out[0])


def get_mem_object(memory: Memory):
    """The memory's OpenCL buffer as a ``pyopencl.Buffer``, or None."""
    address = _get(
        lib.dnnl_ocl_interop_memory_get_mem_object, "dnnl_ocl_interop_memory_get_mem_object",
        _as(memory, Memory, "memory"), "cl_mem",
    )
    if not address:
        return None
    return _pyopencl().Buffer.from_int_ptr(address, retain=True)


def set_mem_object(memory: Memory, buffer: object) -> None:
    """Make the memory use ``buffer`` (oneDNN retains it; None clears)."""
    c_memory = _as(memory, Memory, "memory")
    handle = as_handle(buffer, "cl_mem", "buffer")
    check_holds(buffer, memory.desc.size, "buffer")
    check(
        lib.dnnl_ocl_interop_memory_set_mem_object(c_memory, handle),
        "dnnl_ocl_interop_memory_set_mem_object",
    )
    memory._use_data((handle,), buffer)


def execute(
    primitive: Primitive,
    stream: Stream,
    args: Mapping[int, Memory | None],
    deps: Iterable[object] = (),
):
    """Execute ``primitive`` on an OpenCL stream after the events ``deps``.

    Returns a ``pyopencl.Event`` for the work on an out-of-order queue (its
    reference is the caller's), or None on an in-order queue.
    """
    prim = _as(primitive, Primitive, "primitive")
    strm = _as(stream, Stream, "stream")
    c_args = _exec_args(args, primitive._arg_sizes)
    events = [as_handle(event, "cl_event", "deps") for event in deps]
    c_deps = ffi.new("cl_event[]", events) if events else ffi.NULL
    event = ffi.new("cl_event *")
    check(
        lib.dnnl_ocl_interop_primitive_execute(
            prim,
            strm,
            len(c_args),
            c_args,
            c_deps,
            len(events),
            event,
        ),
        "dnnl_ocl_interop_primitive_execute",
    )
    if event[0] == ffi.NULL:
        return None
    return _pyopencl().Event.from_int_ptr(address_of(event[0]), retain=False)
