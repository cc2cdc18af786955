"""oneDNN's core objects: engines, streams, memory and primitives.

Each class owns one handle (see ``_owned``). Children keep alive what they
need: oneDNN streams do not retain their engine, so a :class:`Stream` keeps
its :class:`Engine`; a :class:`Memory` keeps its engine and the buffer it
wraps; a :class:`Primitive` keeps its engine.
"""

from __future__ import annotations

import enum
from _weakref import ref as _weak_reference
from collections.abc import Iterable, Mapping

from ._ffi import ffi, lib
from ._handles import as_handle
from ._owned import Owned
from .errors import check, make_error

__all__ = [
    "MEMORY_ALLOCATE",
    "MEMORY_NONE",
    "EngineKind",
    "DataType",
    "Engine",
    "Stream",
    "MemoryDesc",
    "Memory",
    "Primitive",
    "reorder",
    "format_tags",
]

_VOID_POINTER = ffi.typeof("void *")
MEMORY_ALLOCATE = lib.DNNL_MEMORY_ALLOCATE  # the library allocates the buffer
MEMORY_NONE = lib.DNNL_MEMORY_NONE  # no buffer at all

# DNNL_ARG_SRC -> ARG_SRC, ...: every execution-argument index of the headers.
ARGS = {name[5:]: getattr(lib, name) for name in dir(lib) if name.startswith("DNNL_ARG_")}
globals().update(ARGS)
__all__ += sorted(ARGS)


class EngineKind(enum.IntEnum):
    ANY = lib.dnnl_any_engine
    CPU = lib.dnnl_cpu
    GPU = lib.dnnl_gpu


class DataType(enum.IntEnum):
    """``dnnl_data_type_t`` (oneDNN's names, upper-cased)."""

    UNDEF = lib.dnnl_data_type_undef
    F16 = lib.dnnl_f16
    BF16 = lib.dnnl_bf16
    F32 = lib.dnnl_f32
    S32 = lib.dnnl_s32
    S8 = lib.dnnl_s8
    U8 = lib.dnnl_u8
    F64 = lib.dnnl_f64
    BOOLEAN = lib.dnnl_boolean
    F8_E5M2 = lib.dnnl_f8_e5m2
    F8_E4M3 = lib.dnnl_f8_e4m3
    S4 = lib.dnnl_s4
    U4 = lib.dnnl_u4
    E8M0 = lib.dnnl_e8m0
    F4_E2M1 = lib.dnnl_f4_e2m1
    F4_E3M0 = lib.dnnl_f4_e3m0
    S64 = lib.dnnl_s64


# numpy dtype names with an exact oneDNN counterpart.
_NUMPY_TYPES = {
    "float16": DataType.F16,
    "float32": DataType.F32,
    "float64": DataType.F64,
    "int8": DataType.S8,
    "uint8": DataType.U8,
    "int32": DataType.S32,
    "int64": DataType.S64,
    "bool": DataType.BOOLEAN,
}

_FORMAT_TAGS: dict[str, int] = {
    name[5:]: value
    for name, value in ffi.typeof("dnnl_format_tag_t").relements.items()
    if not name.startswith("dnnl_format_tag_")
}
_FORMAT_TAGS["any"] = lib.dnnl_format_tag_any


def format_tags() -> list[str]:
    """Every format tag name oneDNN 3.13 knows ("ab", "acdb", "nChw16c", ...)."""
    return sorted(_FORMAT_TAGS)


def _data_type(dtype) -> DataType:
    if isinstance(dtype, DataType):
        return dtype
    if isinstance(dtype, str) and dtype.upper() in DataType.__members__:
        return DataType[dtype.upper()]
    import numpy  # only needed for numpy-style dtypes

    name = numpy.dtype(dtype).name
    if name not in _NUMPY_TYPES:
        raise TypeError(f"dtype {name} has no oneDNN data type")
    return _NUMPY_TYPES[name]


def _as(obj, cls, what: str):
    """The handle of ``obj`` after checking it is a ``cls`` (closed: ClosedObjectError)."""
    if not isinstance(obj, cls):
        raise TypeError(f"{what}: expected a dnnl_interop.{cls.__name__}, got {type(obj).__name__}")
    return obj.handle


class Engine(Owned):
    """An execution engine (``dnnl_engine_t``).

    Closing an engine closes its streams first: oneDNN streams do not retain
    their engine, so one must never outlive it. (Memory and primitives do
    retain theirs inside oneDNN.)
    """

    __slots__ = ("_streams",)  # weak references to the streams on this engine
    _ctype = "dnnl_engine_t"
    _destroy = lib.dnnl_engine_destroy
    _destroy_name = "dnnl_engine_destroy"

    def _adopt(self, handle, keep: tuple = ()) -> None:
        super()._adopt(handle, keep)
        self._streams = []

    def _add_stream(self, stream: Stream) -> None:
        if len(self._streams) >= 64:  # forget streams already gone
            self._streams = [ref for ref in self._streams if ref() is not None]
        self._streams.append(_weak_reference(stream))

    def close(self) -> None:
        for ref in getattr(self, "_streams", ()):
            stream = ref()
            if stream is not None:
                stream.close()
        self._streams = []
        super().close()

    def __init__(self, kind: EngineKind = EngineKind.CPU, index: int = 0):
        out = self._new_out()
        check(lib.dnnl_engine_create(out, int(kind), index), "dnnl_engine_create")
        self._adopt(out[0])

    @classmethod
    def cpu(cls, index: int = 0) -> Engine:
        """The CPU engine ``index``."""
        return cls(EngineKind.CPU, index)

    @staticmethod
    def get_count(kind: EngineKind) -> int:
        """How many engines of ``kind`` the library sees."""
        from ._library import require

        require("dnnl_engine_get_count")
        return lib.dnnl_engine_get_count(int(kind))

    @property
    def kind(self) -> EngineKind:
        out = ffi.new("dnnl_engine_kind_t *")
        check(lib.dnnl_engine_get_kind(self.handle, out), "dnnl_engine_get_kind")
        return EngineKind(out[0])


class Stream(Owned):
    """An execution stream (``dnnl_stream_t``) on an engine."""

    __slots__ = ()
    _ctype = "dnnl_stream_t"
    _destroy = lib.dnnl_stream_destroy
    _destroy_name = "dnnl_stream_destroy"

    def _adopt(self, handle, keep: tuple = ()) -> None:
        super()._adopt(handle, keep)
        keep[0]._add_stream(self)  # keep[0] is the engine

    def __init__(self, engine: Engine, in_order: bool = True):
        flags = lib.dnnl_stream_in_order if in_order else lib.dnnl_stream_out_of_order
        out = self._new_out()
        check(lib.dnnl_stream_create(out, _as(engine, Engine, "engine"), flags), "dnnl_stream_create")
        self._adopt(out[0], keep=(engine,))

    @property
    def engine(self) -> Engine:
        return self._keep[0]

    def wait(self) -> None:
        """Block until everything submitted to the stream has finished."""
        check(lib.dnnl_stream_wait(self.handle), "dnnl_stream_wait")


class MemoryDesc(Owned):
    """A memory descriptor from a shape, a data type and a format tag.

    ``dtype`` is a :class:`DataType`, its name ("f32", "bf16", ...) or
    anything ``numpy.dtype`` accepts; ``tag`` any name of
    :func:`format_tags` ("ab", "ba", "abcd", "acdb", "nChw16c", ...).
    """

    __slots__ = ("shape", "data_type", "tag")
    _ctype = "dnnl_memory_desc_t"
    _destroy = lib.dnnl_memory_desc_destroy
    _destroy_name = "dnnl_memory_desc_destroy"

    def __init__(self, shape: Iterable[int], dtype, tag: str):
        shape = tuple(int(d) for d in shape)
        if not 0 < len(shape) <= lib.DNNL_MAX_NDIMS:
            raise ValueError(f"a shape has 1 to {lib.DNNL_MAX_NDIMS} dimensions, not {len(shape)}")
        if tag not in _FORMAT_TAGS:
            raise ValueError(f"unknown format tag {tag!r}; see dnnl_interop.format_tags()")
        self.shape = shape
        self.data_type = _data_type(dtype)
        self.tag = tag
        out = self._new_out()
        check(
            lib.dnnl_memory_desc_create_with_tag(
                out, len(shape), shape, int(self.data_type), _FORMAT_TAGS[tag]
            ),
            "dnnl_memory_desc_create_with_tag",
        )
        self._adopt(out[0])

    @property
    def size(self) -> int:
        """Bytes a buffer for this descriptor needs."""
        return lib.dnnl_memory_desc_get_size(self.handle)

    def __repr__(self) -> str:
        closed = ", closed" if self.closed else ""
        return f"MemoryDesc({self.shape}, {self.data_type.name.lower()}, {self.tag!r}{closed})"


def check_holds(data: object, size: int, what: str) -> None:
    """Refuse a buffer object that says it holds fewer than ``size`` bytes.

    pyopencl memory objects report their size; oneDNN would overrun them.
    """
    held = getattr(data, "size", None) if hasattr(data, "int_ptr") else None
    if isinstance(held, int) and held < size:
        raise ValueError(f"{what}: {held} bytes, the descriptor needs {size}")


def data_pointer(data: object, size: int, what: str):
    """``(void *, object to keep alive)`` for a memory's data argument.

    ``data`` is :data:`MEMORY_ALLOCATE`, :data:`MEMORY_NONE` or None, a cffi
    pointer, an int address, an object exposing one (``int_ptr``, ``__int__``),
    or a writable C-contiguous buffer (numpy array, bytearray) of at least
    ``size`` bytes, whose address is used. oneDNN objects are refused.
    """
    if isinstance(data, Owned):
        raise TypeError(f"{what}: expected a data pointer, got a dnnl_interop.{type(data).__name__}")
    if data is None or isinstance(data, (int, ffi.CData)) or hasattr(data, "int_ptr"):
        check_holds(data, size, what)
        return as_handle(data, _VOID_POINTER, what), data
    try:
        pointer = ffi.from_buffer("char[]", data, require_writable=True)
    except TypeError:  # no buffer: an object with __int__, or a wrong type
        return as_handle(data, _VOID_POINTER, what), data
    except (ValueError, BufferError) as exc:  # read-only or not C-contiguous
        raise ValueError(f"{what}: {exc}") from None
    if len(pointer) < size:
        raise ValueError(f"{what}: {len(pointer)} bytes, the descriptor needs {size}")
    return ffi.cast(_VOID_POINTER, pointer), (data, pointer)


class Memory(Owned):
    """A memory object: a descriptor, an engine and a buffer.

    ``buffer`` is :data:`MEMORY_ALLOCATE` (the library allocates),
    :data:`MEMORY_NONE`, a writable C-contiguous buffer such as a numpy array
    (used in place, without a copy, and kept alive), an int address or a cffi
    pointer. For OpenCL or Level Zero buffers use ``ocl.make_memory`` or
    ``ze.make_memory``.
    """

    # The handle to execute with: None while closed or without a buffer, on
    # which oneDNN would crash. Kept apart so execute checks it for free.
    # _size is the bytes its buffer holds (the descriptor's size).
    __slots__ = ("_executable", "_size")
    _ctype = "dnnl_memory_t"
    _destroy = lib.dnnl_memory_destroy
    _destroy_name = "dnnl_memory_destroy"

    def __init__(self, desc: MemoryDesc, engine: Engine, buffer=MEMORY_ALLOCATE):
        md = _as(desc, MemoryDesc, "desc")
        pointer, kept = data_pointer(buffer, desc.size, "buffer")
        out = self._new_out()
        check(
            lib.dnnl_memory_create(out, md, _as(engine, Engine, "engine"), pointer),
            "dnnl_memory_create",
        )
        self._adopt(out[0], keep=(desc, engine, kept))
        self._use_data((pointer,), kept)

    @classmethod
    def _wrap(cls, handle, desc: MemoryDesc, engine: Engine, pointers, kept) -> Memory:
        """A Memory for a handle an interop function made from ``pointers``."""
        memory = cls._from_handle(handle, keep=(desc, engine, kept))
        memory._use_data(pointers, kept)
        return memory

    def close(self) -> None:
        self._executable = None
        super().close()

    @property
    def desc(self) -> MemoryDesc:
        return self._keep[0]

    @property
    def engine(self) -> Engine:
        return self._keep[1]

    @property
    def data_handle(self) -> int:
        """The address (or OpenCL buffer handle) the memory uses; 0 for none."""
        out = ffi.new("void **")
        check(lib.dnnl_memory_get_data_handle(self.handle, out), "dnnl_memory_get_data_handle")
        return int(ffi.cast("uintptr_t", out[0]))

    def set_data_handle(self, buffer) -> None:
        """Point the memory at another buffer (kept alive like the first)."""
        pointer, kept = data_pointer(buffer, self.desc.size, "buffer")
        check(lib.dnnl_memory_set_data_handle(self.handle, pointer), "dnnl_memory_set_data_handle")
        self._use_data((pointer,), kept)

    def map_data(self):
        """Map the data into host memory; returns a ``void *`` cffi pointer.

        As ``dnnl::memory::map_data``: valid until :meth:`unmap_data`, which
        must be called with the same pointer. Use ``ffi.buffer(pointer,
        memory.desc.size)`` to read or write through it.
        """
        out = ffi.new("void **")
        check(lib.dnnl_memory_map_data(self.handle, out), "dnnl_memory_map_data")
        return out[0]

    def unmap_data(self, pointer) -> None:
        """Unmap a pointer returned by :meth:`map_data`."""
        check(
            lib.dnnl_memory_unmap_data(self.handle, as_handle(pointer, _VOID_POINTER, "pointer")),
            "dnnl_memory_unmap_data",
        )

    def _use_data(self, pointers, kept: object) -> None:
        """Record the buffers the memory now uses; keep ``kept`` alive instead of the old."""
        self._keep = self._keep[:2] + (kept,)
        self._size = self.desc.size
        has_data = self._size == 0 or all(pointer != ffi.NULL for pointer in pointers)
        self._executable = self._handle if has_data else None


_EXEC_ARGS = ffi.typeof("dnnl_exec_arg_t[]")
_new, _NULL = ffi.new, ffi.NULL
_primitive_execute = lib.dnnl_primitive_execute


def _exec_arg(index: int, memory: Memory | None, sizes: Mapping[int, int]):
    if not isinstance(index, int):
        raise TypeError(f"args: keys are ARG_* indices (ints), got {index!r}")
    if memory is None:
        return (index, ffi.NULL)
    what = f"args[{index!r}]"
    handle = _as(memory, Memory, what)
    if memory._executable is None:
        raise ValueError(
            f"{what}: the memory has no buffer (MEMORY_NONE); give it one "
            "(set_data_handle, ocl.set_mem_object) before executing"
        )
    if memory._size < sizes.get(index, 0):
        raise ValueError(
            f"{what}: the memory holds {memory._size} bytes, the primitive "
            f"uses {sizes[index]} there ({memory.desc!r} is not its descriptor)"
        )
    return (index, handle)


def _exec_args(args: Mapping[int, Memory | None], sizes: Mapping[int, int]):
    """A ``dnnl_exec_arg_t[]`` for ``{ARG_*: Memory}``; None passes NULL.

    ``sizes`` holds the bytes the primitive reads or writes at each index:
    oneDNN does not check the memories it is given, and a smaller buffer
    would be overrun.
    """
    try:  # the usual case: cffi checks that each handle is a dnnl_memory_t
        return _new(
            _EXEC_ARGS,
            [
                (i, _NULL if m is None else m._executable if m._size >= sizes[i] else None)
                for i, m in args.items()
            ],
        )
    except (TypeError, AttributeError, KeyError):
        pass  # closed, buffer-less, too small, foreign or unknown: check each one
    try:
        items = args.items()
    except AttributeError:
        raise TypeError(f"args: expected a mapping of ARG_* to Memory, got {type(args).__name__}") from None
    return _new(_EXEC_ARGS, [_exec_arg(i, m, sizes) for i, m in items])


class Primitive(Owned):
    """A primitive ready to execute (``dnnl_primitive_t``)."""

    __slots__ = ("_arg_sizes",)  # {ARG_*: bytes the primitive uses there}
    _ctype = "dnnl_primitive_t"
    _destroy = lib.dnnl_primitive_destroy
    _destroy_name = "dnnl_primitive_destroy"

    @property
    def engine(self) -> Engine:
        return self._keep[0]

    def execute(self, stream: Stream, args: Mapping[int, Memory | None]) -> None:
        """Submit the primitive to ``stream`` with ``{ARG_*: Memory}``."""
        c_args = _exec_args(args, self._arg_sizes)
        # Attributes rather than the checking properties on this hot path;
        # a closed or wrong object takes the checked route to its error.
        primitive = self._handle
        c_stream = stream._handle if type(stream) is Stream else None
        if primitive is None or c_stream is None:
            primitive, c_stream = self.handle, _as(stream, Stream, "stream")
        status = _primitive_execute(primitive, c_stream, len(c_args), c_args)
        if status:
            raise make_error(status, "dnnl_primitive_execute")


def reorder(
    src_desc: MemoryDesc, dst_desc: MemoryDesc, engine: Engine, dst_engine: Engine | None = None
) -> Primitive:
    """A reorder primitive copying ``src_desc`` layout into ``dst_desc`` layout."""
    dst_engine = engine if dst_engine is None else dst_engine
    pd = ffi.new("dnnl_primitive_desc_t *")
    check(
        lib.dnnl_reorder_primitive_desc_create(
            pd,
            _as(src_desc, MemoryDesc, "src_desc"),
            _as(engine, Engine, "engine"),
            _as(dst_desc, MemoryDesc, "dst_desc"),
            _as(dst_engine, Engine, "dst_engine"),
            ffi.NULL,
        ),
        "dnnl_reorder_primitive_desc_create",
    )
    try:
        out = Primitive._new_out()
        check(lib.dnnl_primitive_create(out, pd[0]), "dnnl_primitive_create")
    finally:
        check(lib.dnnl_primitive_desc_destroy(pd[0]), "dnnl_primitive_desc_destroy")
    primitive = Primitive._from_handle(out[0], keep=(engine, dst_engine))
    primitive._arg_sizes = {lib.DNNL_ARG_FROM: src_desc.size, lib.DNNL_ARG_TO: dst_desc.size}
    return primitive
