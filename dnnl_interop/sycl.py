"""SYCL interoperability: ``dnnl::sycl_interop`` for Python.

oneDNN on the SYCL queues and USM arrays Python users already hold: dpnp and
``dpnp.tensor`` arrays, dpctl's objects, PyTorch's XPU tensors. Inputs are
taken as they are:

* devices, contexts, queues and events as dpctl's ``SyclDevice``,
  ``SyclContext``, ``SyclQueue`` and ``SyclEvent`` (through their public
  ``addressof_ref()``), or as the raw address of the ``sycl::device``,
  ``sycl::context``, ``sycl::queue`` or ``sycl::event`` (an int, as
  ``torch.xpu.current_stream().sycl_queue`` gives) or a cffi pointer;
* memory as a USM pointer (an int, such as ``tensor.data_ptr()``), or an
  array with dpctl's ``__sycl_usm_array_interface__`` (dpnp), whose pointer,
  shape, strides and data type are checked against the descriptor and whose
  USM must be of the engine's SYCL context (refused before oneDNN reads it,
  naming both contexts; asked of SYCL through dpctl).

Outputs (:func:`get_device`, :func:`get_context`, :func:`get_queue`, the
event of :func:`execute`) are dpctl objects holding their own copies of the
SYCL objects (SYCL objects are reference-counted values): they stay valid
after the engine or stream is closed. They need dpctl (``pip install dpctl``).

oneDNN copies the device, context and queue it is given (so it keeps them
alive), and never frees a user's USM. The Python objects passed in are kept
alive as well, for as long as the engine, stream or memory that uses them: a
dpnp array stays alive while a memory over it lives, and while work using
that memory is in flight. A raw address carries no lifetime: the caller
keeps the native object alive.

A oneDNN built without SYCL (or older than the SYCL interop API) answers
every function with :class:`dnnl_interop.MissingFunctionError`.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from typing import Any

from ._buffers import MEMORY_ALLOCATE
from ._engine import Engine, explain_runtime, interop_engine
from ._enum_type import EnumType
from ._execution import submit
from ._ffi import ffi, lib
from ._interop import get_address, get_handle
from ._library import check
from ._memory import Memory
from ._memory_desc import MemoryDesc
from ._owned import new_out, using
from ._primitive import Primitive
from ._stream import Stream, interop_stream
from ._sycl_memory import SYCL_BUFFER, SYCL_USM, make_sycl_memory
from ._sycl_runtime import dpctl_object, event_object, event_vector, new_event, sycl_pointer

__all__ = [
    "MemoryKind",
    "make_engine",
    "get_device",
    "get_context",
    "make_stream",
    "get_queue",
    "make_memory",
    "get_memory_kind",
    "set_buffer",
    "execute",
]


class MemoryKind(enum.IntEnum, metaclass=EnumType):
    """``dnnl_sycl_interop_memory_kind_t``."""

    USM = SYCL_USM
    BUFFER = SYCL_BUFFER


# --- engines -------------------------------------------------------------------


def make_engine(device: object, context: object) -> Engine:
    """An engine on a SYCL device and context (``dnnl::sycl_interop::make_engine``).

    ``device`` and ``context`` are a ``dpctl.SyclDevice`` and ``dpctl.SyclContext``
    (for a dpnp array ``x``: ``x.sycl_device`` and ``x.sycl_context``), or the
    addresses of a ``sycl::device`` and ``sycl::context``. A CPU device gives a CPU
    engine, a GPU device a GPU engine. oneDNN keeps its own copies of both.

    Raises:
        TypeError: ``device`` or ``context`` is None, or neither a dpctl object of its kind
            nor an address (a queue given for a device, a str, ...).
        ValueError: ``device`` or ``context`` is NULL.
        InvalidArgumentsError: oneDNN refuses the device (not a device of the context, or a
            kind it has no engine for).
        DnnlError: another failure oneDNN reports.
        LibraryNotFoundError, MissingFunctionError: oneDNN cannot be loaded, or lacks the
            function (a build without SYCL).
    """
    dev = sycl_pointer(device, "device", "device")
    ctx = sycl_pointer(context, "context", "context")
    out = new_out(Engine)
    check(lib.dnnl_sycl_interop_engine_create(out, dev, ctx), "dnnl_sycl_interop_engine_create")
    return interop_engine(out[0], (device, context), "sycl")


def get_device(engine: Engine) -> Any:
    """The engine's SYCL device, as a ``dpctl.SyclDevice`` of its own.

    Raises:
        TypeError: ``engine`` is not a :class:`~dnnl_interop.Engine`.
        ClosedObjectError: ``engine`` is closed.
        InvalidArgumentsError: ``engine`` is not a SYCL engine (an OpenCL or Level Zero one:
            the message says which and that ``sycl.make_engine`` makes one).
        LibraryNotFoundError, MissingFunctionError: oneDNN cannot be loaded, or lacks the
            function.
        ImportError: dpctl is not installed.
    """
    address = get_address(
        lib.dnnl_sycl_interop_engine_get_device, "dnnl_sycl_interop_engine_get_device",
        engine, Engine, "engine", "void *", "sycl",
    )
    return dpctl_object(address, "device")


def get_context(engine: Engine) -> Any:
    """The engine's SYCL context, as a ``dpctl.SyclContext`` of its own.

    Raises:
        TypeError: ``engine`` is not a :class:`~dnnl_interop.Engine`.
        ClosedObjectError: ``engine`` is closed.
        InvalidArgumentsError: ``engine`` is not a SYCL engine (the message says which it is
            and that ``sycl.make_engine`` makes one).
        LibraryNotFoundError, MissingFunctionError: oneDNN cannot be loaded, or lacks the
            function.
        ImportError: dpctl is not installed.
    """
    address = get_address(
        lib.dnnl_sycl_interop_engine_get_context, "dnnl_sycl_interop_engine_get_context",
        engine, Engine, "engine", "void *", "sycl",
    )
    return dpctl_object(address, "context")


# --- streams -------------------------------------------------------------------


def make_stream(engine: Engine, queue: object) -> Stream:
    """A stream on a SYCL queue of the engine's device and context
    (``dnnl::sycl_interop::make_stream``).

    ``queue`` is a ``dpctl.SyclQueue`` (a dpnp array's ``x.sycl_queue``) or the
    address of a ``sycl::queue`` (``torch.xpu.current_stream().sycl_queue``).
    The queue's order is the stream's: on an in-order queue, oneDNN's work runs
    after the work submitted to the queue before it and before the work
    submitted after it, with no wait on the host.

    Raises:
        TypeError: ``queue`` is None, or neither a ``dpctl.SyclQueue`` nor an address.
        ValueError: ``queue`` is NULL.
        TypeError: ``engine`` is not a :class:`~dnnl_interop.Engine`.
        ClosedObjectError: ``engine`` is closed.
        InvalidArgumentsError: ``engine`` is not a SYCL engine, or oneDNN refuses the queue
            (of another device or context than the engine's).
        LibraryNotFoundError, MissingFunctionError: oneDNN cannot be loaded, or lacks the
            function.
    """
    c_queue = sycl_pointer(queue, "queue", "queue")
    out = new_out(Stream)
    with explain_runtime("sycl", (engine, "engine")), using((engine, Engine, "engine")) as c_engine:
        check(lib.dnnl_sycl_interop_stream_create(out, c_engine, c_queue), "dnnl_sycl_interop_stream_create")
        return interop_stream(out[0], (engine, queue))


def get_queue(stream: Stream) -> Any:
    """The stream's SYCL queue, as a ``dpctl.SyclQueue`` of its own.

    Raises:
        TypeError: ``stream`` is not a :class:`~dnnl_interop.Stream`.
        ClosedObjectError: ``stream`` is closed.
        InvalidArgumentsError: ``stream`` is not on a SYCL engine (the message says which it
            is and that ``sycl.make_stream`` makes one).
        LibraryNotFoundError, MissingFunctionError: oneDNN cannot be loaded, or lacks the
            function.
        ImportError: dpctl is not installed.
    """
    address = get_address(
        lib.dnnl_sycl_interop_stream_get_queue, "dnnl_sycl_interop_stream_get_queue",
        stream, Stream, "stream", "void *", "sycl",
    )
    return dpctl_object(address, "queue")


# --- memory --------------------------------------------------------------------


def make_memory(
    desc: MemoryDesc, engine: Engine, kind: MemoryKind = MemoryKind.USM, handle: object = MEMORY_ALLOCATE
) -> Memory:
    """A memory object on a SYCL engine (``dnnl::sycl_interop::make_memory``).

    ``USM`` memory: ``handle`` is :data:`MEMORY_ALLOCATE` (oneDNN allocates
    and owns device USM), :data:`MEMORY_NONE` (or None), a USM pointer (an
    int, a cffi pointer), an array with ``__sycl_usm_array_interface__`` (a
    dpnp array; its shape, strides and data type must be the descriptor's,
    which ``MemoryDesc.from_array`` makes, and ``Memory.from_array(x, engine)``
    does both), or a list/tuple of those for descriptors with several
    buffers. A pointer must be USM of the engine's context: SYCL is asked
    (through dpctl) before oneDNN reads it. On a CPU engine host memory (a
    numpy array) is taken too.

    ``BUFFER`` memory: :data:`MEMORY_ALLOCATE` (oneDNN makes a SYCL buffer),
    :data:`MEMORY_NONE`, or the address of a ``sycl::buffer<uint8_t, 1>``
    (no Python object holds one; the caller keeps it alive).

    The memory keeps the objects given alive, an array included.

    Raises:
        TypeError: ``desc`` is not a MemoryDesc, ``engine`` not an Engine, ``kind`` not a
            :class:`MemoryKind`, a handle is no USM pointer (a str), or host memory or an
            array is given for ``BUFFER`` memory.
        ValueError: an array's shape, strides or data type are not the descriptor's, or it
            is read-only; a pointer is no USM of the engine's SYCL context (the message
            names both contexts).
        ClosedObjectError: ``desc`` or ``engine`` is closed.
        InvalidArgumentsError: ``engine`` is not a SYCL engine, or oneDNN refuses the memory.
        LibraryNotFoundError, MissingFunctionError: oneDNN cannot be loaded, or lacks the
            function.
    """
    if isinstance(kind, bool) or not isinstance(kind, int) or kind not in _MEMORY_KINDS:
        raise TypeError(f"kind: expected a sycl.MemoryKind, got {kind!r}")
    return make_sycl_memory(desc, engine, int(kind), handle)


_MEMORY_KINDS = frozenset(MemoryKind)


def get_memory_kind(memory: Memory) -> MemoryKind:
    """Whether the memory holds a USM pointer or a SYCL buffer.

    Raises:
        TypeError: ``memory`` is not a :class:`~dnnl_interop.Memory`.
        ClosedObjectError: ``memory`` is closed.
        InvalidArgumentsError: ``memory`` is not on a SYCL engine (the message says which it
            is and that ``sycl.make_engine`` makes one).
        LibraryNotFoundError, MissingFunctionError: oneDNN cannot be loaded, or lacks the
            function.
    """
    return MemoryKind(int(get_handle(
        lib.dnnl_sycl_interop_memory_get_memory_kind, "dnnl_sycl_interop_memory_get_memory_kind",
        memory, Memory, "memory", "dnnl_sycl_interop_memory_kind_t", "sycl",
    )))


def set_buffer(memory: Memory, buffer: object) -> None:
    """Make SYCL buffer memory use another ``sycl::buffer<uint8_t, 1>`` (its address).

    oneDNN copies the buffer object (SYCL buffers are reference-counted), so
    the caller's may go once this returns. Waits first for submitted work that
    uses this memory. USM memory takes another pointer with
    ``memory.set_data_handle``.

    Raises:
        TypeError: ``memory`` is not a Memory, or ``buffer`` is no address.
        ValueError: ``buffer`` is NULL, or the memory is USM memory.
        ClosedObjectError: ``memory`` is closed.
        InvalidArgumentsError: the memory is not on a SYCL engine.
        LibraryNotFoundError, MissingFunctionError: oneDNN cannot be loaded, or lacks the
            function.
    """
    if get_memory_kind(memory) != MemoryKind.BUFFER:
        raise ValueError("memory: USM memory has no SYCL buffer; memory.set_data_handle gives it another pointer")
    pointer = sycl_pointer(buffer, "buffer", "buffer")
    with explain_runtime("sycl", (memory, "memory")):
        memory._repoint(  # noqa: SLF001 - Memory's re-pointing, as set_data_handle (the lock discipline of _owned)
            lambda c_memory: lib.dnnl_sycl_interop_memory_set_buffer(c_memory, pointer),
            "dnnl_sycl_interop_memory_set_buffer", (pointer,), buffer,
        )


# --- execution -----------------------------------------------------------------


def execute(
    primitive: Primitive,
    stream: Stream,
    args: Mapping[int, Memory | None],
    deps: Iterable[object] = (),
) -> Any:
    """Execute ``primitive`` on a SYCL stream after the events ``deps``
    (``dnnl::sycl_interop::execute``); returns the work's ``dpctl.SyclEvent``.

    ``deps`` are ``dpctl.SyclEvent`` objects (the events dpnp work returns)
    or addresses of ``sycl::event`` objects, kept alive until the call
    returns (oneDNN copies them). On an in-order queue the queue's order
    already puts the work after what was submitted before it. Without dpctl
    no event can be returned: None. Everything the work uses stays alive
    until ``stream.wait()``, the stream's close, or a later execute that
    finds it finished.

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
        raise TypeError(f"deps: expected a sequence of SYCL events, got {type(deps).__name__}")
    deps = tuple(deps)
    events = [sycl_pointer(event, "event", f"deps[{i}]") for i, event in enumerate(deps)]
    c_deps, storage = event_vector(events) if events else (ffi.NULL, None)
    try:
        event = new_event()
    except ImportError:  # no dpctl: no event to return
        event = 0
    c_event = ffi.cast("void *", event)

    def call(c_primitive: Any, c_stream: Any, nargs: int, c_args: Any) -> int:
        status: int = lib.dnnl_sycl_interop_primitive_execute(
            c_primitive, c_stream, nargs, c_args, c_deps, c_event
        )
        return status

    if isinstance(primitive, Primitive):
        args = primitive._with_scratchpad(stream, args)  # noqa: SLF001 - execute's hot path: no call added
    try:
        submit(primitive, stream, args, (deps, storage), call, "dnnl_sycl_interop_primitive_execute", "sycl")
    except BaseException:
        if event:
            event_object(event)  # frees it
        raise
    return event_object(event) if event else None


def __dir__() -> list[str]:
    return sorted(__all__)

