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
from typing import TYPE_CHECKING

from ._array_events import OclExecute
from ._buffers import MEMORY_ALLOCATE, device_handle, refuse_allocate
from ._cached import make_engine_cached as _make_engine_cached
from ._engine import Engine, explain_runtime, interop_engine, runtime_of
from ._engine_blob import check_engine_cache_blob
from ._enum_type import EnumType
from ._execution import submit
from ._ffi import ffi, lib
from ._handles import address_of, as_bytes, required_handle, type_name
from ._interop import get_address, get_handle
from ._library import check, status_error
from ._memory import OCL_BUFFER, OCL_USM, Memory, make_ocl_memory
from ._memory_desc import MemoryDesc
from ._owned import finish_work, new_out, using
from ._primitive import Primitive
from ._runtime import check_ocl_context, library_version, ocl_context, ocl_engine_blob_id
from ._sized import query_then_fill
from ._stream import Stream, interop_stream
from .errors import Status

if TYPE_CHECKING:
    from types import ModuleType

    import pyopencl.array

    from ._ffi import CData
    from .cache import CacheBlobStore

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
    "as_array",
    "execute",
]


class MemoryKind(enum.IntEnum, metaclass=EnumType):
    """``dnnl_ocl_interop_memory_kind_t``."""

    USM = OCL_USM
    BUFFER = OCL_BUFFER


def _pyopencl() -> ModuleType:
    try:
        import pyopencl
    except ImportError as exc:  # pragma: no cover - pyopencl is a test dependency
        raise ImportError("returning OpenCL objects needs pyopencl (pip install pyopencl)") from exc
    return pyopencl


_CL_DEVICE = ffi.typeof("cl_device_id")
_CL_CONTEXT = ffi.typeof("cl_context")
_CL_QUEUE = ffi.typeof("cl_command_queue")
_CL_EVENT = ffi.typeof("cl_event")
_VOID_POINTER = ffi.typeof("void *")


def get_engine_cache_blob_id(device: object) -> bytes:
    """The id of the cache blob oneDNN would make for ``device``.

    Engines whose devices have equal ids can share a cache blob. ``device``
    is a ``pyopencl.Device``, an int ``cl_device_id`` or a cffi pointer.

    Raises:
        TypeError: ``device`` is None, or not a cl_device_id (another runtime's or kind's
            handle, a str, ...).
        ValueError: ``device`` is a NULL handle.
        DnnlError: oneDNN cannot describe the device.
        LibraryNotFoundError, MissingFunctionError: oneDNN cannot be loaded, or lacks the
            function.
    """
    return ocl_engine_blob_id(required_handle(device, _CL_DEVICE, "device"))


def get_engine_cache_blob(engine: Engine) -> bytes:
    """The engine's cache blob, to pass to :func:`make_engine` next time.

    Raises:
        TypeError: ``engine`` is not a :class:`~dnnl_interop.Engine`.
        ClosedObjectError: ``engine`` is closed.
        InvalidArgumentsError: ``engine`` is not an OpenCL engine (the message says which it
            is and that ``ocl.make_engine`` makes one).
        LibraryNotFoundError, MissingFunctionError: oneDNN cannot be loaded, or lacks the
            function.
    """
    with explain_runtime("ocl", (engine, "engine")), \
            using((engine, Engine, "engine")) as c_engine:  # never NULL: oneDNN would crash on it
        return query_then_fill(
            lib.dnnl_ocl_interop_engine_get_cache_blob,
            "dnnl_ocl_interop_engine_get_cache_blob",
            c_engine,
        )


def make_engine(device: object, context: object, cache_blob: bytes | None = None) -> Engine:
    """An engine on an OpenCL device and context (which oneDNN retains).

    With ``cache_blob`` (from :func:`get_engine_cache_blob`) the engine skips
    querying the device; an empty blob is refused like in oneDNN.

    Raises:
        TypeError: ``device`` is None, or not a cl_device_id (another runtime's or kind's
            handle, a str, ...).
        ValueError: ``device`` is a NULL handle.
        TypeError: ``context`` is not a cl_context, or ``cache_blob`` is not bytes-like.
        ValueError: ``cache_blob`` is empty or malformed (its layout is checked before oneDNN
            reads it).
        InvalidArgumentsError: oneDNN refuses the device (not an Intel GPU, or not a device of
            ``context``: the message describes it).
        DnnlError: another failure oneDNN reports (its reason: ``ONEDNN_VERBOSE=check``).
        LibraryNotFoundError, MissingFunctionError: oneDNN cannot be loaded, or lacks the
            function.
    """
    out = new_out(Engine)
    try:
        dev = required_handle(device, _CL_DEVICE, "device")
    except TypeError as exc:
        if _is_pyopencl(device, "Context") and _is_pyopencl(context, "Device"):
            raise TypeError(f"{exc}; device and context are swapped: make_engine(device, context)") from None
        raise
    ctx = required_handle(context, _CL_CONTEXT, "context")
    if cache_blob is None:
        name = "dnnl_ocl_interop_engine_create"
        status = lib.dnnl_ocl_interop_engine_create(out, dev, ctx)
    else:
        blob = as_bytes(cache_blob, "cache_blob")
        if not len(blob):
            raise ValueError("cache_blob: empty; a cache blob from get_engine_cache_blob is never empty")
        check_engine_cache_blob(cache_blob, library_version())
        name = "dnnl_ocl_interop_engine_create_from_cache_blob"
        status = lib.dnnl_ocl_interop_engine_create_from_cache_blob(out, dev, ctx, len(blob), blob)
    if status:
        raise status_error(status, name, _why_no_engine(dev, ctx) if status == Status.INVALID_ARGUMENTS else None)
    return interop_engine(out[0], (device, context), "ocl")


def _is_pyopencl(obj: object, class_name: str) -> bool:
    """Whether ``obj`` is a pyopencl object of class ``class_name`` (pyopencl is not imported)."""
    return any(cls.__name__ == class_name and cls.__module__.startswith("pyopencl") for cls in type(obj).__mro__)


def _why_no_engine(device: CData, context: CData) -> str | None:
    """What OpenCL says of a device oneDNN refused (oneDNN says only INVALID_ARGUMENTS)."""
    try:
        cl = _pyopencl()
        dev = cl.Device.from_int_ptr(address_of(device), retain=True)
        ctx = cl.Context.from_int_ptr(address_of(context), retain=True)
        types = ((cl.device_type.GPU, "GPU"), (cl.device_type.CPU, "CPU"), (cl.device_type.ACCELERATOR, "accelerator"))
        kind = next((name for bit, name in types if dev.type & bit), "custom")
        described = f"{dev.name!r} is a {kind} device, vendor id {dev.vendor_id:#x}, platform {dev.platform.name!r}"
        if dev.int_ptr not in [d.int_ptr for d in ctx.devices]:
            return f"device: {described}, not a device of the context"
        if dev.type & cl.device_type.GPU and dev.vendor_id == 0x8086:
            return None  # an Intel GPU: oneDNN's reason is its own (ONEDNN_VERBOSE=error shows it)
        return (
            f"device: {described}; oneDNN's OpenCL engine needs an Intel GPU "
            "(to test interop code without one: dnnl_interop.testing.emulated_gpu)"
        )
    except Exception:  # no pyopencl, or handles OpenCL cannot describe: nothing to add
        return None


def get_device(engine: Engine) -> pyopencl.Device:
    """The engine's device as a ``pyopencl.Device``.

    Raises:
        TypeError: ``engine`` is not a :class:`~dnnl_interop.Engine`.
        ClosedObjectError: ``engine`` is closed.
        InvalidArgumentsError: ``engine`` is not an OpenCL engine (the message says which it
            is and that ``ocl.make_engine`` makes one).
        LibraryNotFoundError, MissingFunctionError: oneDNN cannot be loaded, or lacks the
            function.
        ImportError: pyopencl is not installed.
    """
    address = get_address(
        lib.dnnl_ocl_interop_get_device, "dnnl_ocl_interop_get_device", engine, Engine, "engine", "cl_device_id", "ocl"
    )
    device: pyopencl.Device = _pyopencl().Device.from_int_ptr(address, retain=True)
    return device


def get_context(engine: Engine) -> pyopencl.Context:
    """The engine's context as a ``pyopencl.Context`` (with its own reference).

    Raises:
        TypeError: ``engine`` is not a :class:`~dnnl_interop.Engine`.
        ClosedObjectError: ``engine`` is closed.
        InvalidArgumentsError: ``engine`` is not an OpenCL engine (the message says which it
            is and that ``ocl.make_engine`` makes one).
        LibraryNotFoundError, MissingFunctionError: oneDNN cannot be loaded, or lacks the
            function.
        ImportError: pyopencl is not installed.
    """
    address = get_address(
        lib.dnnl_ocl_interop_engine_get_context, "dnnl_ocl_interop_engine_get_context",
        engine, Engine, "engine", "cl_context", "ocl",
    )
    context: pyopencl.Context = _pyopencl().Context.from_int_ptr(address, retain=True)
    return context


def make_stream(engine: Engine, queue: object) -> Stream:
    """A stream on an OpenCL queue of the engine's device and context.

    The queue's order (in-order or out-of-order) is the stream's order.

    Raises:
        TypeError: ``queue`` is None, or not a cl_command_queue (another runtime's or kind's
            handle, a str, ...).
        ValueError: ``queue`` is a NULL handle.
        TypeError: ``engine`` is not a :class:`~dnnl_interop.Engine`.
        ClosedObjectError: ``engine`` is closed.
        InvalidArgumentsError: ``engine`` is not an OpenCL engine, or oneDNN refuses the queue.
        LibraryNotFoundError, MissingFunctionError: oneDNN cannot be loaded, or lacks the
            function.
    """
    c_queue = required_handle(queue, _CL_QUEUE, "queue")
    out = new_out(Stream)
    with explain_runtime("ocl", (engine, "engine")), using((engine, Engine, "engine")) as c_engine:
        check(lib.dnnl_ocl_interop_stream_create(out, c_engine, c_queue), "dnnl_ocl_interop_stream_create")
        return interop_stream(out[0], (engine, queue))


def get_command_queue(stream: Stream) -> pyopencl.CommandQueue:
    """The stream's queue as a ``pyopencl.CommandQueue`` (own reference).

    Raises:
        TypeError: ``stream`` is not a :class:`~dnnl_interop.Stream`.
        ClosedObjectError: ``stream`` is closed.
        InvalidArgumentsError: ``stream`` is not on an OpenCL engine (the message says which it
            is and that ``ocl.make_stream`` makes one).
        LibraryNotFoundError, MissingFunctionError: oneDNN cannot be loaded, or lacks the
            function.
        ImportError: pyopencl is not installed.
    """
    address = get_address(
        lib.dnnl_ocl_interop_stream_get_command_queue, "dnnl_ocl_interop_stream_get_command_queue",
        stream, Stream, "stream", "cl_command_queue", "ocl",
    )
    queue: pyopencl.CommandQueue = _pyopencl().CommandQueue.from_int_ptr(address, retain=True)
    return queue


def make_memory(
    desc: MemoryDesc,
    engine: Engine,
    kind: MemoryKind = MemoryKind.BUFFER,
    handle: object = MEMORY_ALLOCATE,
) -> Memory:
    """A memory object on an OpenCL engine.

    ``handle`` is :data:`MEMORY_ALLOCATE`, :data:`MEMORY_NONE` (or None), a
    ``cl_mem`` (``pyopencl.Buffer``, int, cffi pointer) for ``BUFFER``
    memory, a USM pointer for ``USM`` memory (an int, a cffi pointer, or a
    host view of shared USM such as a numpy array), or a sequence of those
    for descriptors with several buffers (an empty sequence allocates each).

    A ``pyopencl.array.Array`` is taken as ``BUFFER`` memory over its
    buffer, without a copy, if its dtype, shape and strides are the
    descriptor's (``MemoryDesc.from_array(array)`` describes it) and it
    starts at the beginning of its buffer (``offset`` 0); ``ValueError`` or
    ``TypeError`` naming ``handle`` otherwise. :func:`as_array` goes back.
    The memory keeps the Array (and, through it, its buffer): executions
    that use the memory wait for the Array's events and add their own
    completion to them (see :func:`execute`).

    Raises:
        TypeError: ``desc`` is not a MemoryDesc, ``engine`` not an Engine, ``kind`` not a
            :class:`MemoryKind`, or a handle is of another kind (a host array for a ``cl_mem``).
        ValueError: a pyopencl buffer is too small or of another OpenCL context than the
            engine's, or a host view of USM does not fit the descriptor.
        ClosedObjectError: ``desc`` or ``engine`` is closed.
        InvalidArgumentsError: ``engine`` is not an OpenCL engine, or oneDNN refuses the memory.
        LibraryNotFoundError, MissingFunctionError: oneDNN cannot be loaded, or lacks the
            function.
    """
    if isinstance(kind, bool) or not isinstance(kind, int) or kind not in set(MemoryKind):
        raise TypeError(f"kind: expected an ocl.MemoryKind, got {kind!r}")
    return make_ocl_memory(desc, engine, int(kind), handle)


def get_memory_kind(memory: Memory) -> MemoryKind:
    """Whether the memory holds a USM pointer or an OpenCL buffer.

    Raises:
        TypeError: ``memory`` is not a :class:`~dnnl_interop.Memory`.
        ClosedObjectError: ``memory`` is closed.
        InvalidArgumentsError: ``memory`` is not on an OpenCL engine (the message says which it
            is and that ``ocl.make_memory`` makes one).
        LibraryNotFoundError, MissingFunctionError: oneDNN cannot be loaded, or lacks the
            function.
    """
    return MemoryKind(int(get_handle(
        lib.dnnl_ocl_interop_memory_get_memory_kind, "dnnl_ocl_interop_memory_get_memory_kind",
        memory, Memory, "memory", "dnnl_ocl_interop_memory_kind_t", "ocl",
    )))


def get_mem_object(memory: Memory) -> pyopencl.Buffer | None:
    """The memory's OpenCL buffer as a ``pyopencl.Buffer``, or None.

    USM memory has no buffer: oneDNN would hand back its pointer as a
    ``cl_mem``, which is refused here (``memory.data_handle`` is the pointer).

    Raises:
        ValueError: the memory is USM memory, which has no cl_mem.
        TypeError: ``memory`` is not a :class:`~dnnl_interop.Memory`.
        ClosedObjectError: ``memory`` is closed.
        InvalidArgumentsError: ``memory`` is not on an OpenCL engine (the message says which it
            is and that ``ocl.make_memory`` makes one).
        LibraryNotFoundError, MissingFunctionError: oneDNN cannot be loaded, or lacks the
            function.
        ImportError: pyopencl is not installed.
    """
    if get_memory_kind(memory) == MemoryKind.USM:
        raise ValueError("memory: USM memory has no cl_mem; memory.data_handle is its USM pointer")
    address = get_address(
        lib.dnnl_ocl_interop_memory_get_mem_object, "dnnl_ocl_interop_memory_get_mem_object",
        memory, Memory, "memory", "cl_mem", "ocl",
    )
    if not address:
        return None
    buffer: pyopencl.Buffer = _pyopencl().Buffer.from_int_ptr(address, retain=True)
    return buffer


def set_mem_object(memory: Memory, buffer: object) -> None:
    """Make the memory use ``buffer`` (oneDNN retains it; None clears).

    Waits first for submitted work that uses this memory.

    Raises:
        TypeError: ``memory`` is not a Memory, or ``buffer`` is not a cl_mem (a host array,
            say).
        ValueError: ``buffer`` is ``MEMORY_ALLOCATE``, too small, or of another OpenCL context
            than the memory's engine.
        ClosedObjectError: ``memory`` is closed.
        InvalidArgumentsError: the memory is not OpenCL memory, or oneDNN refuses the buffer.
        LibraryNotFoundError, MissingFunctionError: oneDNN cannot be loaded, or lacks the
            function.
    """
    with using((memory, Memory, "memory")):  # open, before reading what it holds
        size, data_type = memory._size, memory.desc.data_type  # noqa: SLF001 - read only: kept past the desc's close
    refuse_allocate(buffer, "buffer")
    handle, kept = device_handle(buffer, size, data_type, "buffer", "cl_mem")
    check_ocl_context([buffer], _engine_context(memory.engine), "buffer")
    with explain_runtime("ocl", (memory, "memory")):
        memory._repoint(  # noqa: SLF001 - Memory's re-pointing, as set_data_handle (the lock discipline of _owned)
            lambda c_memory: lib.dnnl_ocl_interop_memory_set_mem_object(c_memory, ffi.cast("cl_mem", handle)),
            "dnnl_ocl_interop_memory_set_mem_object", (handle,), kept,
        )


def _engine_context(engine: Engine) -> int:
    """The address of the engine's cl_context (0 if it has none: not an OpenCL engine)."""
    with using((engine, Engine, "engine")) as c_engine:
        return ocl_context(c_engine)


def as_array(memory: Memory, queue: object) -> pyopencl.array.Array:
    """The memory's OpenCL buffer as a ``pyopencl.array.Array`` on ``queue``,
    without a copy: the descriptor's shape, numpy dtype and strides.

    Work submitted before that uses the memory is finished first, so the
    Array sees its results. The Array holds its own reference to the
    ``cl_mem`` (OpenCL reference counting): its data stays valid after the
    memory is closed; a later ``set_mem_object`` does not move it.

    Raises:
        TypeError: ``queue`` is not a ``pyopencl.CommandQueue``, ``memory`` not a Memory, or
            numpy cannot describe the data (bf16, blocked layouts).
        ValueError: the memory is not on an OpenCL engine, is USM memory (no ``cl_mem``:
            ``memory.mapped()`` reads it), has no buffer, or ``queue`` is of another context.
        ClosedObjectError: ``memory`` is closed.
        ImportError: pyopencl is not installed.
    """
    import pyopencl as cl  # the Array returned is pyopencl's
    import pyopencl.array

    if not isinstance(queue, cl.CommandQueue):
        raise TypeError(f"queue: expected a pyopencl.CommandQueue, got {type_name(queue)}")
    with using((memory, Memory, "memory")):  # a Memory, open
        desc, runtime = memory.desc, runtime_of(memory.engine)
    if runtime != "ocl":
        raise ValueError("memory: not on an OpenCL engine (ocl.make_memory makes OpenCL memory)")
    dtype, strides = desc.dtype, desc.strides
    if dtype is None:
        raise TypeError(f"memory: numpy has no type for {desc.data_type.name.lower()}")
    if strides is None:
        raise TypeError(f"memory: the {desc.tag!r} layout is blocked; no Array describes it")
    buffer = get_mem_object(memory)
    if buffer is None:
        raise ValueError("memory: the memory has no buffer (MEMORY_NONE)")
    if queue.context.int_ptr != buffer.context.int_ptr:
        raise ValueError("queue: of another OpenCL context than the memory's")
    finish_work(memory)
    byte_strides = tuple(s * dtype.itemsize for s in strides)
    return pyopencl.array.Array(queue, desc.shape, dtype, data=buffer, strides=byte_strides)


def execute(
    primitive: Primitive,
    stream: Stream,
    args: Mapping[int, Memory | None],
    deps: Iterable[object] = (),
) -> pyopencl.Event | None:
    """Execute ``primitive`` on an OpenCL stream after the events ``deps``.

    Returns a ``pyopencl.Event`` for the work on an out-of-order queue (its
    reference is the caller's), or None on an in-order queue. Everything the
    work uses stays alive until ``stream.wait()`` or the stream's close, or
    until the work and everything submitted to the stream before it have
    finished (seen at a later execute on the stream).

    Memories made over ``pyopencl.array.Array`` objects order the work with
    pyopencl's, with no wait on the host: it runs after the events of those
    Arrays (``array.events``, as if given in ``deps``), and its completion
    event is added to each of them (``array.add_event``), so pyopencl work
    on them afterwards, on any queue, runs after it. On an in-order queue,
    where oneDNN gives no event and ignores dependencies, a barrier waiting
    for the Arrays' events comes before the work and a marker after it
    stands for its completion. ``Primitive.execute`` does the same.

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
        ValueError: an event of ``deps`` is of another OpenCL context than the stream's engine.
    """
    if isinstance(deps, (str, bytes)) or not isinstance(deps, Iterable):
        raise TypeError(f"deps: expected a sequence of OpenCL events, got {type(deps).__name__}")
    deps = tuple(deps)
    events = [required_handle(event, _CL_EVENT, f"deps[{i}]") for i, event in enumerate(deps)]
    if events and isinstance(stream, Stream):
        check_ocl_context(deps, _engine_context(stream.engine), "deps")
    empty = isinstance(primitive, Primitive) and 0 in primitive._arg_sizes.values()  # noqa: SLF001 - execute's hot path
    call = OclExecute(events, stream, empty)
    if isinstance(primitive, Primitive):
        args = primitive._with_scratchpad(stream, args)  # noqa: SLF001 - execute's hot path: no call added
    submit(primitive, stream, args, deps, call, "dnnl_ocl_interop_primitive_execute", "ocl")
    return call.returned


# --- cached creation ---------------------------------------------------------------


def make_engine_cached(device: object, context: object, store: CacheBlobStore | None = None) -> Engine:
    """:func:`make_engine`, from a cache blob of ``store`` when it has a sound one.

    The entry is keyed by the device's cache-blob id
    (:func:`get_engine_cache_blob_id`). A hit makes the engine from the
    verified blob (oneDNN checks nothing in it: only verified entries reach
    it); if oneDNN refuses it, or the engine gives back another blob (oneDNN
    ignores blobs once the process knows the device), the engine is made
    afresh and the entry rewritten; a miss makes it afresh and saves its blob.
    ``store`` is a :class:`dnnl_interop.CacheBlobStore`, or
    None for the default store (in ``dnnl_interop.cache.default_directory()``).
    A store that cannot be read or written logs a warning (logger
    ``dnnl_interop.cache``) and never fails the creation.

    Raises:
        TypeError: ``store`` is neither a :class:`~dnnl_interop.CacheBlobStore` nor None, or a
            handle is of another kind (as in :func:`make_engine`).
        DnnlError: oneDNN cannot make the engine afresh (a refused blob is not an error; the
            store never fails the creation).
        LibraryNotFoundError, MissingFunctionError: oneDNN cannot be loaded, or lacks the
            function.
    """
    return _make_engine_cached(
        "ocl", lambda: get_engine_cache_blob_id(device), store,
        lambda blob: make_engine(device, context, blob), get_engine_cache_blob,
    )


__all__ += ["make_engine_cached"]


def __dir__() -> list[str]:
    return sorted(__all__)
