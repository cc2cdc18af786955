"""oneDNN's core objects: engines, streams, memory and primitives.

Each class owns one handle (see ``_owned``). Children keep alive what they
need: oneDNN streams do not retain their engine, so a :class:`Stream` keeps
its :class:`Engine` (Python object and C handle); a :class:`Memory` keeps its
engine and the buffer it wraps; a :class:`Primitive` keeps its engine.

Execution is asynchronous. Everything an execution uses (the primitive, its
memories and their buffers, dependency events) stays alive until the stream
is known to be done with it: at :meth:`Stream.wait` or when the stream is
closed, which finishes its work first (see ``_execution``).
"""

from __future__ import annotations

import atexit
import enum
import operator
from _weakref import ref as _weak_reference
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, SupportsIndex, TypeVar

from . import _args
from ._args import *  # noqa: F403 - ARG_SRC, ...: generated from the headers, re-exported
from ._args import ARGS
from ._buffers import MEMORY_ALLOCATE, UncheckedPointer, device_handle, host_buffer, refuse_allocate
from ._execution import StreamBase, finish_all_streams, submit
from ._ffi import ffi, lib
from ._handles import address_of, as_bytes, as_handle
from ._library import check, checked, status_error
from ._owned import Owned, holder_of, using
from ._sized import query_then_fill
from .errors import ClosedObjectError, InvalidArgumentsError, MissingFunctionError, Status, UnimplementedError

if TYPE_CHECKING:
    import numpy
    from _cffi_backend import FFI
    from typing_extensions import Buffer

    from ._ffi import CData
    from .cache import CacheBlobStore

    _E = TypeVar("_E", bound=enum.IntEnum)

__all__ = [
    "MEMORY_ALLOCATE",
    "UncheckedPointer",
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
MEMORY_NONE = lib.DNNL_MEMORY_NONE  # no buffer at all

__all__ += _args.__all__  # ARG_SRC, ...: every execution-argument index of the headers


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


# The plain (letters-only) tag of each tag value: "nchw" is "abcd".
_PLAIN_TAGS: dict[int, str] = {}
for _name, _value in sorted(_FORMAT_TAGS.items(), key=lambda item: len(item[0])):
    if _name.isalpha() and _name.islower() and set(_name) <= set("abcdefghijkl"):
        _PLAIN_TAGS.setdefault(_value, _name)
_NUMPY_NAMES = {data_type: name for name, data_type in _NUMPY_TYPES.items()}


def _tag_rank(tag: str) -> int | None:
    """How many dimensions a tag lays out (distinct letters), None if unknown ("any")."""
    letters = {ch.lower() for ch in _PLAIN_TAGS.get(_FORMAT_TAGS[tag], tag) if ch.isalpha()}
    if tag == "any" or not letters <= set("abcdefghijkl"):
        return None
    return len(letters)


def _plain_order(tag: str, ndim: int) -> list[int] | None:
    """Axes from outermost to innermost of a plain layout, None for a blocked one."""
    plain = _PLAIN_TAGS.get(_FORMAT_TAGS.get(tag, -1))
    if plain is None or len(plain) != ndim:
        return None
    return [ord(ch) - ord("a") for ch in plain]


def format_tags() -> list[str]:
    """Every format tag name oneDNN 3.13 knows ("ab", "acdb", "nChw16c", ...).

    Raises nothing: the names come from the headers the binding was built from.
    """
    return sorted(_FORMAT_TAGS)


def _data_type(dtype: object) -> DataType:
    if isinstance(dtype, DataType):
        return dtype
    if isinstance(dtype, str) and dtype.upper() in DataType.__members__:
        return DataType[dtype.upper()]
    if dtype is None or isinstance(dtype, (bool, int, float)):  # numpy reads None as float64
        raise TypeError(f"dtype: expected a data type (a DataType, 'f32', numpy.float32, ...), got {dtype!r}")
    import numpy  # only needed for numpy-style dtypes

    try:
        name = numpy.dtype(dtype).name  # type: ignore[call-overload]  # not a dtype: TypeError
    except TypeError as exc:
        raise TypeError(f"dtype: {exc}") from None
    if name not in _NUMPY_TYPES:
        raise TypeError(f"dtype: {name} has no oneDNN data type")
    return _NUMPY_TYPES[name]


class Engine(Owned):
    """An execution engine (``dnnl_engine_t``).

    Closing an engine closes its streams first: a oneDNN stream must never
    outlive its engine. (Memory and primitives retain theirs inside oneDNN.)
    If a stream cannot be reached (a finalizer in a reference cycle), the
    engine's handle is destroyed after that stream's.

    Raises:
        TypeError: ``kind`` is not an :class:`EngineKind` or ``index`` not an int.
        ValueError: ``kind`` is no engine kind, or ``index`` is negative.
        InvalidArgumentsError: oneDNN has no engine of ``kind`` at ``index`` (the message says
            how many it sees; for the CPU engine, ``python -m dnnl_interop info`` checks the
            set-up).
        LibraryNotFoundError: no oneDNN library can be loaded (at the first call into oneDNN).
    """

    __slots__ = ("_streams", "_runtime")  # weak references to its streams; "cpu", "ocl", "ze"
    _ctype = "dnnl_engine_t"
    _destroy = lib.dnnl_engine_destroy
    _destroy_name = "dnnl_engine_destroy"

    _streams: list[_weak_reference[Stream]]
    _runtime: str

    def _adopt(self, handle: CData, keep: tuple[Any, ...] = (), runtime: str = "native") -> None:
        super()._adopt(handle, keep)
        self._streams = []
        self._runtime = runtime

    @classmethod
    def _from_handle(cls, handle: CData, keep: tuple[Any, ...] = (), runtime: str = "native") -> Engine:
        engine = cls.__new__(cls)
        engine._adopt(handle, keep, runtime)
        return engine

    def _add_stream(self, stream: Stream) -> None:
        if len(self._streams) >= 64:  # forget streams already gone
            self._streams = [ref for ref in self._streams if ref() is not None]
        self._streams.append(_weak_reference(stream))

    def close(self) -> None:
        """Close the engine's streams, then destroy its handle after the work that uses it.

        Raises:
            DnnlError: oneDNN fails to destroy the handle (closing twice, or a closed object,
                raises nothing).
        """
        for ref in getattr(self, "_streams", ()):
            stream = ref()
            if stream is not None:
                stream.close()
        self._streams = []
        super().close()

    def __init__(self, kind: EngineKind = EngineKind.CPU, index: int = 0):
        self._refuse_reinit()
        kind = _enum_argument(kind, EngineKind, "kind")
        index = _count_argument(index, "index")
        out = self._new_out()
        status = lib.dnnl_engine_create(out, int(kind), index)
        if status:
            error = status_error(status, "dnnl_engine_create")
            if isinstance(error, InvalidArgumentsError):  # not a loading or missing-function error
                error = status_error(status, "dnnl_engine_create", _engine_hint(kind, index))
            raise error
        self._adopt(out[0])

    @classmethod
    def cpu(cls, index: int = 0) -> Engine:
        """The CPU engine ``index``.

        Raises:
            TypeError: ``index`` is not an int.
            ValueError: ``index`` is negative.
            InvalidArgumentsError: oneDNN makes no CPU engine at ``index`` (``python -m
                dnnl_interop info`` says why and how to fix it).
            LibraryNotFoundError: no oneDNN library can be loaded (at the first call into
                oneDNN).
        """
        return cls(EngineKind.CPU, index)

    @classmethod
    def from_handle(cls, handle: object, *, owned: bool) -> Engine:
        """An Engine over a ``dnnl_engine_t`` made elsewhere (another cffi module, C code).

        ``handle``: a cffi pointer of that type, from this binding or from any
        cffi module (including one that declares the type itself; see
        ``dnnl_interop.embedding``), or an int address (taken as given).

        ``owned=True``: the Engine takes the handle over and destroys it,
        exactly once (``close()``, ``with``, garbage collection); the caller
        never destroys it. ``owned=False``: the handle is borrowed and never
        destroyed here; **the caller keeps it alive** while the Engine, or
        anything made on it, is in use. A handle an object of this binding
        already owns can only be borrowed: the borrower then keeps that
        object's handle alive. If ``from_handle`` raises, nothing was taken.

        The runtime is asked of oneDNN: a CPU engine, an OpenCL engine (for
        ``ocl.*``) or a Level Zero engine (for ``ze.*``). What an OpenCL or
        Level Zero engine was made from stays the caller's to keep alive.

        Raises:
            TypeError: ``handle`` is not a pointer of this handle type (or an int), or ``owned``
                is not a bool.
            ValueError: ``handle`` is NULL, or an object of this binding already owns it and
                ``owned=True`` asks to take it over.
            ClosedObjectError: the object of this binding that owns the handle is closed.
            DnnlError: oneDNN cannot say which runtime the engine has.
            LibraryNotFoundError: no oneDNN library can be loaded (at the first call into
                oneDNN).
        """
        owned = _owned_argument(owned)
        pointer = _foreign(handle, _ENGINE_TYPE, "handle")
        adoption = _Adoption(cls, pointer, owned, "handle")
        try:
            runtime = _engine_runtime(pointer)
        except BaseException:
            adoption.cancel()
            raise
        return adoption.finish(cls, lambda engine: engine._adopt(pointer, (), runtime))

    @staticmethod
    def get_count(kind: EngineKind) -> int:
        """How many engines of ``kind`` the library sees.

        Raises:
            TypeError: ``kind`` is not an :class:`EngineKind`.
            ValueError: ``kind`` is no engine kind.
            LibraryNotFoundError, MissingFunctionError: oneDNN cannot be loaded, or lacks the
                function.
        """
        kind = _enum_argument(kind, EngineKind, "kind")
        return checked(lib.dnnl_engine_get_count(int(kind)), "dnnl_engine_get_count")

    @property
    def kind(self) -> EngineKind:
        """The engine's kind (CPU or GPU).

        Raises:
            ClosedObjectError: ``engine`` is closed.
            DnnlError: oneDNN cannot answer.
        """
        out = ffi.new("dnnl_engine_kind_t *")
        with using((self, Engine, "engine")) as engine:
            check(lib.dnnl_engine_get_kind(engine, out), "dnnl_engine_get_kind")
        return EngineKind(out[0])


def _engine_hint(kind: EngineKind, index: int) -> str:
    """Why an engine of ``kind`` may be missing, for the error."""
    count = checked(lib.dnnl_engine_get_count(int(kind)), "dnnl_engine_get_count")
    if index < count:
        return f"oneDNN sees {count} {kind.name} engine(s)"
    hint = f"oneDNN sees {count} {kind.name} engine(s), index {index} asked"
    if kind == EngineKind.CPU and count == 0:
        hint += (
            "; the CPU engine runs on Intel's CPU OpenCL runtime, which the OpenCL loader "
            "must find (python -m dnnl_interop info checks the setup)"
        )
    elif kind == EngineKind.GPU and count == 0:
        hint += "; no Intel GPU is visible (for tests without one: dnnl_interop.testing)"
    return hint


def _enum_argument(value: object, enum_type: type[_E], what: str) -> _E:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what}: expected {enum_type.__name__}, got {type(value).__name__}")
    try:
        return enum_type(value)
    except ValueError:
        raise ValueError(f"{what}: {value!r} is not a {enum_type.__name__}") from None


def _count_argument(value: object, what: str) -> int:
    """A non-negative int that fits a C size_t."""
    if isinstance(value, bool):
        raise TypeError(f"{what}: expected an int, got bool")
    try:
        value = operator.index(value)  # type: ignore[arg-type]  # anything else raises TypeError
    except TypeError:
        raise TypeError(f"{what}: expected an int, got {type(value).__name__}") from None
    if not 0 <= value < 2**63:
        raise ValueError(f"{what}: {value} is not a valid index (0 or more)")
    return value


class Stream(StreamBase):
    """An execution stream (``dnnl_stream_t``) on an engine.

    Work submitted to it keeps everything it uses alive until :meth:`wait`
    returns or the stream is closed (which waits first).

    Raises:
        TypeError: ``engine`` is not an :class:`Engine`.
        ClosedObjectError: ``engine`` is closed.
        DnnlError: oneDNN refuses to make the stream (``InvalidArgumentsError`` for an OpenCL or
            Level Zero engine, whose streams come from ``ocl.make_stream``/``ze.make_stream``).
    """

    __slots__ = ()
    _ctype = "dnnl_stream_t"
    _destroy = lib.dnnl_stream_destroy
    _destroy_name = "dnnl_stream_destroy"

    def __init__(self, engine: Engine, in_order: bool = True):
        self._refuse_reinit()
        flags = lib.dnnl_stream_in_order if in_order else lib.dnnl_stream_out_of_order
        out = self._new_out()
        with using((engine, Engine, "engine")) as c_engine:
            check(lib.dnnl_stream_create(out, c_engine, flags), "dnnl_stream_create")
            self._adopt(out[0], keep=(engine,))

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
        owned = _owned_argument(owned)
        engine = _optional_engine(engine)
        pointer = _foreign(handle, _STREAM_TYPE, "handle")
        adoption = _Adoption(cls, pointer, owned, "handle")
        try:
            c_engine = ffi.new("dnnl_engine_t *")
            check(lib.dnnl_stream_get_engine(pointer, c_engine), "dnnl_stream_get_engine")
            its_engine = _engine_of(c_engine[0], engine, "the stream")
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


# Interpreter exit: no new work, and every stream's work finished before
# anything it uses is finalized; a process must not exit while oneDNN writes
# into its memory.
atexit.register(finish_all_streams)


def _dims(shape: object) -> tuple[int, ...]:
    try:
        items: tuple[object, ...] = tuple(shape)  # type: ignore[arg-type]  # not iterable: TypeError
    except TypeError:
        raise TypeError(f"shape: expected a sequence of ints, got {type(shape).__name__}") from None
    dims = []
    for i, d in enumerate(items):
        if isinstance(d, (bool, float)) or not hasattr(d, "__index__"):
            raise TypeError(f"shape[{i}]: expected an int, got {type(d).__name__} {d!r}")
        d = operator.index(d)
        if not 0 <= d < 2**62:
            raise ValueError(f"shape[{i}]: {d} is not a dimension (0 or more)")
        dims.append(d)
    if not 0 < len(dims) <= lib.DNNL_MAX_NDIMS:
        raise ValueError(f"shape: a shape has 1 to {lib.DNNL_MAX_NDIMS} dimensions, not {len(dims)}")
    return tuple(dims)


def _strides_argument(strides: object, shape: tuple[int, ...]) -> tuple[int, ...]:
    """Strides in elements, one per dimension, each 0 or more (checked before oneDNN).

    A zero stride on a dimension of more than one element (a broadcast) is
    refused: oneDNN gives a layout of only such strides a size of 0 bytes,
    and its primitives then write through a NULL or too small buffer.
    """
    ndim = len(shape)
    if isinstance(strides, (str, bytes)) or not isinstance(strides, Iterable):
        raise TypeError(f"strides: expected a sequence of ints, got {type(strides).__name__}")
    items = tuple(strides)
    if len(items) != ndim:
        raise ValueError(f"strides: {len(items)} strides for a shape of {ndim} dimensions")
    checked_strides = []
    for i, s in enumerate(items):
        if isinstance(s, (bool, float)) or not hasattr(s, "__index__"):
            raise TypeError(f"strides[{i}]: expected an int, got {type(s).__name__} {s!r}")
        s = operator.index(s)
        if not 0 <= s < 2**62:
            raise ValueError(f"strides[{i}]: {s} is not a stride in elements (0 or more)")
        if s == 0 and shape[i] > 1 and 0 not in shape:  # an empty layout uses no stride
            raise ValueError(
                f"strides[{i}]: 0 for a dimension of {shape[i]} elements; broadcast layouts are not "
                "supported (oneDNN sizes them wrongly): broadcast with a dimension of 1"
            )
        checked_strides.append(s)
    return tuple(checked_strides)


def _tag_strides(tag: str, shape: tuple[int, ...]) -> tuple[int, ...] | None:
    """Strides in elements of a plain tag's layout; None for a blocked one."""
    order = _plain_order(tag, len(shape))
    if order is None:
        return None
    strides = [0] * len(shape)
    step = 1
    for axis in reversed(order):  # the innermost axis is the last letter of the tag
        strides[axis] = step
        step *= shape[axis]
    return tuple(strides)


class MemoryDesc(Owned):
    """A memory descriptor: a shape, a data type and a layout.

    The layout is a format tag or strides, as in oneDNN's C++
    ``memory::desc(dims, data_type, tag)`` and ``memory::desc(dims,
    data_type, strides)``:

    * ``MemoryDesc(shape, dtype, tag)``: ``tag`` is any name of
      :func:`format_tags` ("ab", "ba", "abcd", "acdb", "nChw16c", ...);
    * ``MemoryDesc(shape, dtype, strides=(...))``: ``strides`` in
      **elements** (oneDNN's unit, not numpy's bytes), one per dimension,
      0 or more; :meth:`from_array` reads them from a numpy array.

    ``dtype`` is a :class:`DataType`, its name ("f32", "bf16", ...) or
    anything ``numpy.dtype`` accepts. ``copy.copy``, ``deepcopy`` and
    ``pickle`` give independent descriptors.

    Raises ``TypeError``/``ValueError`` naming the argument for what the
    binding can check (a tag of another rank, strides of another length,
    negative strides) and :class:`InvalidArgumentsError` for layouts oneDNN
    refuses (strides that make elements overlap).

    Raises:
        TypeError: ``shape`` is not a sequence of ints, ``dtype`` names no data type, or ``tag``
            is not a format tag name (or both ``tag`` and ``strides`` are given, or neither).
        ValueError: a dimension or stride is negative, the shape has no or too many dimensions,
            or the tag is unknown or lays out another number of dimensions.
        InvalidArgumentsError: oneDNN refuses the descriptor (a size that overflows, a data type
            that cannot have this layout).
        LibraryNotFoundError: no oneDNN library can be loaded (at the first call into oneDNN).
    """

    __slots__ = ("shape", "data_type", "tag", "_strides")
    _ctype = "dnnl_memory_desc_t"
    _destroy = lib.dnnl_memory_desc_destroy
    _destroy_name = "dnnl_memory_desc_destroy"

    shape: tuple[int, ...]
    data_type: DataType
    tag: str | None  # None for a descriptor made from strides
    _strides: tuple[int, ...] | None  # None for a blocked layout

    def __init__(
        self, shape: Iterable[int], dtype: object, tag: str | None = None, *, strides: Iterable[int] | None = None
    ) -> None:
        self._refuse_reinit()
        dims = _dims(shape)
        data_type = _data_type(dtype)
        out = self._new_out()
        if strides is not None:
            if tag is not None:
                raise TypeError("tag: give a format tag or strides, not both")
            layout = _strides_argument(strides, dims)
            status = lib.dnnl_memory_desc_create_with_strides(out, len(dims), dims, int(data_type), layout)
            if status:
                raise status_error(
                    status, "dnnl_memory_desc_create_with_strides",
                    f"strides: oneDNN refused strides {layout} (in elements) for shape {dims} of "
                    f"{data_type.name.lower()}; it takes layouts where each stride is at least the next "
                    "smaller one times that one's dimension (no interleaved elements)",
                )
            self.tag, self._strides = None, layout
        else:
            if tag is None:
                raise TypeError("tag: a format tag or strides=... is needed")
            if not isinstance(tag, str):
                hint = "; strides go by keyword: MemoryDesc(shape, dtype, strides=...)" if _is_int_sequence(tag) else ""
                raise TypeError(f"tag: expected a format tag name, got {type(tag).__name__}{hint}")
            if tag not in _FORMAT_TAGS:
                raise ValueError(f"tag: unknown format tag {tag!r}; see dnnl_interop.format_tags()")
            rank = _tag_rank(tag)
            if rank is not None and rank != len(dims):
                raise ValueError(f"tag: {tag!r} lays out {rank} dimensions, the shape has {len(dims)}")
            status = lib.dnnl_memory_desc_create_with_tag(out, len(dims), dims, int(data_type), _FORMAT_TAGS[tag])
            if status:
                raise status_error(
                    status, "dnnl_memory_desc_create_with_tag",
                    f"oneDNN refused shape {dims} of {data_type.name.lower()} in layout {tag!r}",
                )
            self.tag, self._strides = tag, _tag_strides(tag, dims)
        self.shape, self.data_type = dims, data_type
        self._adopt(out[0])

    @classmethod
    def from_array(cls, array: object) -> MemoryDesc:
        """The descriptor of an array as it lies in memory: its shape, dtype
        and strides (numpy's bytes turned into oneDNN's elements).

        ``array``: a numpy array (or a buffer numpy reads), or a device array
        with numpy's ``shape``, ``dtype`` and ``strides`` (a
        ``pyopencl.array.Array``). ``Memory(MemoryDesc.from_array(a), engine,
        a)`` uses ``a`` in place, also a non-contiguous view such as ``a.T``
        or ``a[:, ::2]``.

        Raises:
            TypeError: ``array`` is none of these, or its dtype has no oneDNN data type.
            ValueError: its byte order is not the machine's, or its strides are negative or not
                whole elements.
            InvalidArgumentsError: oneDNN refuses the descriptor.
        """
        import numpy

        if isinstance(array, numpy.ndarray) or _has_buffer(array):
            host = numpy.asarray(array)  # no copy: only its layout is read
            shape, dtype, byte_strides = host.shape, host.dtype, host.strides
        elif all(hasattr(array, name) for name in ("shape", "dtype", "strides")):
            shape, dtype = tuple(array.shape), numpy.dtype(array.dtype)  # type: ignore[attr-defined]
            byte_strides = tuple(array.strides)  # type: ignore[attr-defined]
        else:
            raise TypeError(f"array: expected a numpy array or a pyopencl.array.Array, got {type(array).__name__}")
        if not dtype.isnative:
            raise ValueError(f"array: {dtype.str} is not in the machine's byte order")
        itemsize = dtype.itemsize
        strides = []
        for i, (size, stride) in enumerate(zip(shape, byte_strides, strict=True)):
            if size == 1 and (stride < 0 or stride % itemsize):
                stride = 0  # never used: any stride describes a dimension of one element
            if stride < 0:
                raise ValueError(f"array: strides[{i}] is negative ({stride} bytes); oneDNN has no reversed layouts")
            if stride % itemsize:
                raise ValueError(
                    f"array: strides[{i}] is {stride} bytes, not a whole number of {itemsize}-byte elements"
                )
            strides.append(stride // itemsize)
        return cls(shape, dtype, strides=strides)

    @property
    def size(self) -> int:
        """Bytes a buffer for this descriptor needs.

        Raises:
            ClosedObjectError: ``desc`` is closed.
            MissingFunctionError: the loaded oneDNN lacks the function.
        """
        with using((self, MemoryDesc, "desc")) as md:
            return int(checked(lib.dnnl_memory_desc_get_size(md), "dnnl_memory_desc_get_size"))

    nbytes = size

    @property
    def ndim(self) -> int:
        """The number of dimensions.

        Raises nothing: the shape is kept by the descriptor.
        """
        return len(self.shape)

    @property
    def dtype(self) -> numpy.dtype[Any] | None:
        """The numpy dtype of the data type, or None for types numpy cannot name (bf16, ...).

        Raises nothing; None for data types numpy cannot name (bf16, fp8, int4).
        """
        import numpy

        name = _NUMPY_NAMES.get(self.data_type)
        return None if name is None else numpy.dtype(name)

    @property
    def strides(self) -> tuple[int, ...] | None:
        """Strides in elements, as given to ``MemoryDesc(..., strides=)`` or
        implied by a plain tag ("ab" of (2, 3) is (3, 1)); None for blocked
        layouts ("aBcd16b", ...), which no strides describe. numpy's byte
        strides are these times ``dtype.itemsize``.

        Raises nothing; None for blocked layouts.
        """
        return self._strides

    def _layout_key(self) -> tuple[object, ...]:
        # oneDNN's equality: a stride of a dimension of size 1 is never used.
        if self._strides is None:
            return ("tag", _FORMAT_TAGS[self.tag]) if self.tag is not None else ("strides", None)
        return ("strides", tuple(s if d != 1 else 0 for d, s in zip(self.shape, self._strides, strict=True)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MemoryDesc):
            return NotImplemented
        return (self.shape, self.data_type, self._layout_key()) == (
            other.shape, other.data_type, other._layout_key()
        )

    def __hash__(self) -> int:
        return hash((self.shape, self.data_type, self._layout_key()))

    def __copy__(self) -> MemoryDesc:
        if self.tag is None:
            return MemoryDesc(self.shape, self.data_type, strides=self._strides)
        return MemoryDesc(self.shape, self.data_type, self.tag)

    def __deepcopy__(self, memo: object) -> MemoryDesc:
        return self.__copy__()

    def __reduce_ex__(self, protocol: SupportsIndex) -> tuple[Any, ...]:
        if self.tag is None:
            return _desc_from_strides, (self.shape, self.data_type.name.lower(), self._strides)
        return MemoryDesc, (self.shape, self.data_type.name.lower(), self.tag)

    def __repr__(self) -> str:
        closed = ", closed" if self.closed else ""
        layout = repr(self.tag) if self.tag is not None else f"strides={self._strides}"
        return f"MemoryDesc({self.shape}, {self.data_type.name.lower()}, {layout}{closed})"


def _has_buffer(obj: object) -> bool:
    try:
        memoryview(obj).release()  # type: ignore[arg-type]
    except TypeError:
        return False
    return True


def _desc_from_strides(shape: tuple[int, ...], dtype: str, strides: tuple[int, ...]) -> MemoryDesc:
    return MemoryDesc(shape, dtype, strides=strides)


def _is_int_sequence(value: object) -> bool:
    return isinstance(value, (tuple, list)) and all(
        hasattr(item, "__index__") and not isinstance(item, bool) for item in value
    )


class Memory(Owned):
    """A memory object: a descriptor, an engine and a buffer.

    On a host engine (the CPU engine) ``buffer`` is :data:`MEMORY_ALLOCATE`
    (the library allocates), :data:`MEMORY_NONE`, or a writable C-contiguous
    buffer such as a numpy array whose item type matches the descriptor
    (used in place, without a copy, and kept alive); a bare address only as
    :class:`UncheckedPointer`. On an OpenCL engine ``buffer`` is
    :data:`MEMORY_ALLOCATE`, :data:`MEMORY_NONE` or a ``cl_mem`` (see
    ``ocl.make_memory``); on a Level Zero engine a USM pointer (see
    ``ze.make_memory``).

    Raises:
        TypeError: ``desc`` or ``engine`` is of another type, or ``buffer`` is no buffer this
            engine can use (a bare int address, a device handle on a host engine, a host array
            on a device engine).
        ValueError: ``buffer`` is too small, of another item type than the descriptor's data
            type, not C-contiguous, read-only, or in the other byte order.
        ClosedObjectError: ``desc`` or ``engine`` is closed.
        DnnlError: oneDNN refuses to make the memory.
        LibraryNotFoundError: no oneDNN library can be loaded (at the first call into oneDNN).
    """

    # The handle to execute with: None while closed or without a buffer, on
    # which oneDNN would crash. Kept apart so execute checks it for free.
    # _size is the bytes its buffer holds (the descriptor's size).
    __slots__ = ("_executable", "_size")
    _executable: CData | None
    _size: int
    _ctype = "dnnl_memory_t"
    _destroy = lib.dnnl_memory_destroy
    _destroy_name = "dnnl_memory_destroy"

    def __init__(self, desc: MemoryDesc, engine: Engine, buffer: object = MEMORY_ALLOCATE) -> None:
        self._refuse_reinit()
        if isinstance(engine, Engine) and engine._runtime in _INTEROP_MEMORY:
            # This SYCL build's dnnl_memory_create refuses OpenCL and Level
            # Zero engines: their own memory constructors make the memory.
            _INTEROP_MEMORY[engine._runtime](self, desc, engine, buffer)
            return
        size = desc.size if isinstance(desc, MemoryDesc) and not desc.closed else 0
        data_type = desc.data_type if isinstance(desc, MemoryDesc) else None
        layout = (desc.shape, desc.strides) if isinstance(desc, MemoryDesc) else None
        pointer, kept = host_buffer(buffer, size, data_type, "buffer", layout)
        out = self._new_out()
        with using((desc, MemoryDesc, "desc"), (engine, Engine, "engine")) as (md, c_engine):
            check(lib.dnnl_memory_create(out, md, c_engine, pointer), "dnnl_memory_create")
            self._adopt(out[0], keep=(desc, engine, kept))
        self._use_data((pointer,), kept)

    @classmethod
    def from_handle(
        cls, handle: object, *, owned: bool, desc: MemoryDesc, engine: Engine | None = None
    ) -> Memory:
        """A Memory over a ``dnnl_memory_t`` made elsewhere.

        ``handle`` and ``owned`` as in :meth:`Engine.from_handle`: ``owned=True``
        destroys it exactly once, ``owned=False`` borrows it (never destroyed
        here; **the caller keeps it alive** while the Memory is in use). Its
        buffer stays the caller's to keep alive too, unless oneDNN allocated it.

        ``desc``: the :class:`MemoryDesc` the memory was made with. oneDNN's C
        API bound here cannot read a descriptor's shape or layout back, so it
        is checked by size only (``ValueError`` if the sizes differ); execute
        checks memories by it. ``engine``: as in :meth:`Stream.from_handle`
        (the memory's engine, ``dnnl_memory_get_engine``).

        Raises:
            TypeError: ``handle`` is not a pointer of this handle type (or an int), or ``owned``
                is not a bool.
            ValueError: ``handle`` is NULL, or an object of this binding already owns it and
                ``owned=True`` asks to take it over.
            ClosedObjectError: the object of this binding that owns the handle is closed.
            TypeError: ``desc`` is neither a :class:`MemoryDesc` nor None.
            ValueError: ``desc`` describes another size than the memory's own descriptor.
            DnnlError: oneDNN cannot give the memory's descriptor or engine.
        """
        owned = _owned_argument(owned)
        if not isinstance(desc, MemoryDesc):
            raise TypeError(f"desc: expected a dnnl_interop.MemoryDesc, got {type(desc).__name__}")
        engine = _optional_engine(engine)
        pointer = _foreign(handle, _MEMORY_TYPE, "handle")
        adoption = _Adoption(cls, pointer, owned, "handle")
        try:
            c_engine = ffi.new("dnnl_engine_t *")
            check(lib.dnnl_memory_get_engine(pointer, c_engine), "dnnl_memory_get_engine")
            its_engine = _engine_of(c_engine[0], engine, "the memory")
            md = ffi.new("const_dnnl_memory_desc_t *")
            check(lib.dnnl_memory_get_memory_desc(pointer, md), "dnnl_memory_get_memory_desc")
            size = checked(lib.dnnl_memory_desc_get_size(md[0]), "dnnl_memory_desc_get_size")
            if desc.size != size:
                raise ValueError(f"desc: describes {desc.size} bytes, the memory's own descriptor {size}")
            data = ffi.new("void **")
            check(lib.dnnl_memory_get_data_handle(pointer, data), "dnnl_memory_get_data_handle")
        except BaseException:
            adoption.cancel()
            raise

        def adopt(memory: Memory) -> None:
            memory._adopt(pointer, keep=(desc, its_engine, None))
            memory._use_data((data[0],), None)

        return adoption.finish(cls, adopt)

    def _on_close(self) -> None:
        self._executable = None  # execute reads it: closed memory never reaches C

    @property
    def desc(self) -> MemoryDesc:
        """The memory's :class:`MemoryDesc`.

        Raises:
            ClosedObjectError: ``memory`` is closed.
        """
        desc: MemoryDesc = self._kept(0)
        return desc

    @property
    def engine(self) -> Engine:
        """The :class:`Engine` of the memory.

        Raises:
            ClosedObjectError: ``memory`` is closed.
        """
        engine: Engine = self._kept(1)
        return engine

    @property
    def data_handle(self) -> int:
        """The address (or OpenCL buffer handle) the memory uses; 0 for none.

        Raises:
            ClosedObjectError: ``memory`` is closed.
            DnnlError: oneDNN cannot answer.
        """
        out = ffi.new("void **")
        with using((self, Memory, "memory")) as memory:
            check(lib.dnnl_memory_get_data_handle(memory, out), "dnnl_memory_get_data_handle")
        return int(ffi.cast("uintptr_t", out[0]))

    def set_data_handle(self, buffer: object) -> None:
        """Point the memory at another buffer (kept alive like the first).

        Waits first for submitted work that uses this memory: it must not
        be redirected to the new buffer.

        Raises:
            TypeError: ``buffer`` is no buffer this memory's engine can use.
            ValueError: ``buffer`` is ``MEMORY_ALLOCATE``, too small, of another item type, not
                C-contiguous or read-only; or numpy views of the current buffer exist.
            ClosedObjectError: ``memory`` is closed.
            DnnlError: oneDNN refuses the new handle.
        """
        refuse_allocate(buffer, "buffer")
        if any(isinstance(key, tuple) and key[0] == "view" for key in list(self._users)):
            raise ValueError("buffer: numpy views of the current buffer exist; drop them first")
        size, data_type = self._size, self.desc.data_type
        if self.engine._runtime == "native":
            pointer, kept = host_buffer(buffer, size, data_type, "buffer", (self.desc.shape, self.desc.strides))
        else:  # a USM pointer (Level Zero, OpenCL USM) or a cl_mem (OpenCL buffer memory)
            runtime = "ze_usm" if self.engine._runtime == "ze" else "ocl_usm" if _is_usm(self) else "cl_mem"
            pointer, kept = device_handle(buffer, size, data_type, "buffer", runtime)
        self._finish_work()
        with using((self, Memory, "memory")) as memory:
            check(lib.dnnl_memory_set_data_handle(memory, pointer), "dnnl_memory_set_data_handle")
            self._use_data((pointer,), kept)

    def mapped(self) -> _Mapped:
        """``with memory.mapped() as array:`` the data as a numpy array, mapped
        for the block and unmapped at its end (also on an exception).

        The array has the descriptor's shape, numpy dtype and strides (a plain
        layout and a type numpy knows; ``TypeError`` otherwise). Work submitted
        before is finished first. While mapped, the memory's handle stays
        valid (even if the memory is closed) and ``set_data_handle`` is refused.

        * Memory the host sees directly (the CPU engine; host or shared USM,
          whose mapping is the memory's own storage): the array is a view of
          it, without a copy, and stays one after the block, like
          ``numpy.asarray(memory)``.
        * Device memory (OpenCL buffers, device USM), where oneDNN maps a host
          copy that unmapping frees: the array is the binding's own copy of
          it, written back at the end of the block, and read-only afterwards.
          No array ever points at memory that is no longer mapped.

        Raises:
            TypeError: (entering the block) the layout is blocked or numpy has no type for the
                data type.
            ValueError: (entering the block) the memory has no buffer (``MEMORY_NONE``).
            RuntimeError: the same ``mapped()`` object is entered twice.
            ClosedObjectError: ``memory`` is closed.
            DnnlError: oneDNN cannot map the memory.
        """
        return _Mapped(self)

    def map_data(self) -> Any:
        """Map the data into host memory; returns a ``void *`` cffi pointer.

        As ``dnnl::memory::map_data``: valid until :meth:`unmap_data`, which
        must be called with the same pointer. :meth:`mapped` gives the same
        as a numpy array and unmaps it for you.

        Raises:
            ValueError: the memory has no buffer (``MEMORY_NONE``).
            ClosedObjectError: ``memory`` is closed.
            DnnlError: oneDNN cannot map the memory.
        """
        if self._executable is None and not self.closed:
            raise ValueError("memory: the memory has no buffer to map (MEMORY_NONE)")
        self._finish_work()
        out = ffi.new("void **")
        with using((self, Memory, "memory")) as memory:
            check(lib.dnnl_memory_map_data(memory, out), "dnnl_memory_map_data")
        return out[0]

    def unmap_data(self, pointer: Any) -> None:
        """Unmap a pointer returned by :meth:`map_data`.

        Raises:
            TypeError: ``pointer`` is not the non-NULL ``void *`` :meth:`map_data` returned.
            ClosedObjectError: ``memory`` is closed.
            DnnlError: oneDNN refuses to unmap ``pointer``.
        """
        _ = self.handle  # a closed memory says so first
        if not isinstance(pointer, ffi.CData) or ffi.typeof(pointer) is not _VOID_POINTER or pointer == ffi.NULL:
            raise TypeError(f"pointer: expected the void * map_data returned, got {pointer!r}")
        c_pointer = pointer
        with using((self, Memory, "memory")) as memory:
            check(lib.dnnl_memory_unmap_data(memory, c_pointer), "dnnl_memory_unmap_data")

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> numpy.ndarray[Any, Any]:
        """``numpy.asarray(memory)``: a view of the data, without a copy.

        For memory on the CPU engine with a plain layout ("ab", "ba",
        "acdb", strides, ...) and a type numpy knows. The view's shape is the
        descriptor's, its strides follow the layout. While a view exists the
        memory's buffer stays valid: closing the memory destroys it only once
        the last view is gone, and ``set_data_handle`` is refused. Device
        memory is read with :meth:`mapped`.
        """
        import numpy

        if self.engine._runtime != "native":
            raise TypeError(
                "memory: not host memory (an OpenCL or Level Zero engine); read it with "
                "memory.mapped() or through the runtime (ocl.as_array, pyopencl)"
            )
        if copy is False and dtype is not None:
            raise ValueError("a view cannot change the dtype")
        view = numpy.asarray(_HostView(self))
        if dtype is not None:
            return view.astype(dtype)
        return view.copy() if copy else view

    def __buffer__(self, flags: int) -> memoryview:
        """``memoryview(memory)`` (Python 3.12 and later): the bytes of :meth:`__array__`'s view.

        Same rules as ``numpy.asarray(memory)``: CPU engine memory only, the
        buffer valid while the memoryview lives. Before 3.12 Python classes
        cannot offer the buffer protocol: use ``memoryview(numpy.asarray(memory))``.
        """
        view = self.__array__().data
        if flags & 0x0001 and view.readonly:  # PyBUF_WRITABLE (inspect.BufferFlags from 3.12)
            raise BufferError("memory: the view is read-only")
        return view

    def _use_data(self, pointers: Sequence[CData], kept: object) -> None:
        """Record the buffers the memory now uses; keep ``kept`` alive instead of the old."""
        self._keep = (*self._keep[:2], kept)
        if not hasattr(self, "_size"):  # the descriptor's size, read once: the user may close it
            self._size = self.desc.size
        has_data = self._size == 0 or all(pointer != ffi.NULL for pointer in pointers)
        self._executable = self._handle if has_data else None


def _numpy_layout(desc: MemoryDesc) -> tuple[numpy.dtype[Any], tuple[int, ...]]:
    """The dtype and byte strides of a numpy array over data laid out by ``desc``."""
    dtype, strides = desc.dtype, desc.strides
    if dtype is None:
        raise TypeError(f"memory: numpy has no type for {desc.data_type.name.lower()}")
    if strides is None:
        raise TypeError(f"memory: the {desc.tag!r} layout is blocked; no numpy view describes it")
    return dtype, tuple(s * dtype.itemsize for s in strides)


class _HostView:
    """What a numpy view of a Memory's buffer holds on to (its ``base``).

    It is a user of the memory's handle, so the buffer stays valid for as
    long as the view lives, whatever happens to the Memory object. The
    memory's data handle must be a host address (host memory, host or
    shared USM).
    """

    __slots__ = ("_memory", "_key", "__array_interface__")

    def __init__(self, memory: Memory) -> None:
        if not isinstance(memory, Memory):
            raise TypeError(f"expected a dnnl_interop.Memory, got {type(memory).__name__}")
        desc = memory.desc
        dtype, strides = _numpy_layout(desc)
        self._memory, self._key = memory, ("view", next(Owned._shared.call_keys))
        with using((memory, Memory, "memory")):
            memory._use(self._key)
            address = memory.data_handle
        if not address and memory._size:  # an empty memory needs no buffer: its view has no element
            memory._release(self._key)
            raise ValueError("memory: the memory has no buffer (MEMORY_NONE)")
        self.__array_interface__ = {
            "version": 3,
            "shape": desc.shape,
            "typestr": dtype.str,
            "strides": strides,
            "data": (address, False),
        }

    def __del__(self) -> None:
        memory = getattr(self, "_memory", None)
        if memory is not None:
            memory._release(self._key)


class _Mapped:
    """``with memory.mapped() as array``: see :meth:`Memory.mapped`.

    Holds a use of the memory's handle from the mapping to the unmapping, so
    the handle it unmaps with is still the memory's, whatever the user does
    with the Memory object meanwhile.
    """

    __slots__ = ("_memory", "_key", "_handle", "_pointer", "_copy")

    def __init__(self, memory: Memory) -> None:
        if not isinstance(memory, Memory):
            raise TypeError(f"memory: expected a dnnl_interop.Memory, got {type(memory).__name__}")
        self._memory = memory
        self._pointer: Any = None
        self._copy: tuple[numpy.ndarray[Any, Any], numpy.ndarray[Any, Any]] | None = None

    def __enter__(self) -> numpy.ndarray[Any, Any]:
        import numpy

        if self._pointer is not None:
            raise RuntimeError("memory.mapped(): already mapped by this with statement; call mapped() again")
        memory = self._memory
        desc = memory.desc  # a closed memory says so here
        dtype, strides = _numpy_layout(desc)
        if memory._executable is None and not memory.closed:
            raise ValueError("memory: the memory has no buffer to map (MEMORY_NONE)")
        memory._finish_work()
        key = ("view", next(Owned._shared.call_keys))
        out = ffi.new("void **")
        with using((memory, Memory, "memory")) as handle:
            memory._use(key)
            status = lib.dnnl_memory_map_data(handle, out)
            if status:
                memory._release(key)
                raise status_error(status, "dnnl_memory_map_data")
            own_storage = int(ffi.cast("uintptr_t", out[0])) == memory.data_handle
        self._key, self._handle, self._pointer = key, handle, out[0]
        try:
            if own_storage:  # the mapping is the memory's storage: a view, valid while the memory lives
                view: numpy.ndarray[Any, Any] = numpy.asarray(_HostView(memory))
                return view
            nbytes = memory._size
            block = numpy.empty(nbytes, numpy.uint8)
            if nbytes:
                ffi.memmove(ffi.cast("void *", block.ctypes.data), out[0], nbytes)
            array: numpy.ndarray[Any, Any] = numpy.ndarray(desc.shape, dtype, buffer=block, strides=strides)
            self._copy = (block, array)
            return array
        except BaseException:
            self.__exit__(None, None, None)
            raise

    def __exit__(self, *exc_info: object) -> None:
        memory, key, pointer = self._memory, self._key, self._pointer
        if pointer is None:
            return
        copy, self._copy, self._pointer = self._copy, None, None
        try:
            memory._finish_work()  # work submitted in the block, before the write-back
            if copy is not None:
                block, array = copy
                if block.nbytes:
                    ffi.memmove(pointer, ffi.cast("void *", block.ctypes.data), block.nbytes)
                array.flags.writeable = False  # a copy from now on: writes would go nowhere
            check(lib.dnnl_memory_unmap_data(self._handle, pointer), "dnnl_memory_unmap_data")
        finally:
            memory._release(key)


def _is_usm(memory: Memory) -> bool:
    from . import ocl

    return ocl.get_memory_kind(memory) == ocl.MemoryKind.USM


# Memory constructors of the interop runtimes, registered by ocl and ze.
_INTEROP_MEMORY: dict[str, Callable[[Memory, MemoryDesc, Engine, object], Memory]] = {}


class Primitive(Owned):
    """A primitive ready to execute (``dnnl_primitive_t``).

    Raises:
        TypeError: ``desc`` is not a :class:`PrimitiveDesc`, or ``cache_blob`` is not bytes-
            like.
        ValueError: ``cache_blob`` is empty.
        ClosedObjectError: ``desc`` is closed.
        UnimplementedError: ``cache_blob`` is given on an engine that takes none (the CPU
            engine).
        DnnlError: oneDNN refuses to make the primitive (or the blob).
    """

    __slots__ = ("_arg_sizes",)  # {ARG_*: bytes the primitive uses there}
    _arg_sizes: dict[int, int]
    _ctype = "dnnl_primitive_t"
    _destroy = lib.dnnl_primitive_destroy
    _destroy_name = "dnnl_primitive_destroy"

    @property
    def engine(self) -> Engine:
        """The :class:`Engine` the primitive was made on.

        Raises:
            ClosedObjectError: ``primitive`` is closed.
        """
        engine: Engine = self._kept(0)
        return engine

    def __init__(self, desc: PrimitiveDesc, cache_blob: Buffer | None = None) -> None:
        """The primitive ``desc`` describes; made from ``cache_blob`` if given.

        ``cache_blob`` (bytes-like, not empty) is what :meth:`get_cache_blob`
        returned for a primitive of a descriptor with the same
        :attr:`PrimitiveDesc.cache_blob_id`: oneDNN then skips compiling its
        kernels. oneDNN checks little of a blob (a corrupted one can kill the
        process): hand it only blobs kept safe, as :func:`make_primitive_cached`
        does. Only OpenCL and Level Zero GPU engines take cache blobs; on others
        oneDNN refuses with ``UnimplementedError``.
        """
        self._refuse_reinit()
        _create_primitive(self, desc, cache_blob)

    @classmethod
    def from_handle(cls, handle: object, *, owned: bool, desc: PrimitiveDesc) -> Primitive:
        """A Primitive over a ``dnnl_primitive_t`` made elsewhere.

        ``handle`` and ``owned`` as in :meth:`Engine.from_handle`: ``owned=True``
        destroys it exactly once, ``owned=False`` borrows it (never destroyed
        here; **the caller keeps it alive** while the Primitive is in use).

        ``desc``: the :class:`PrimitiveDesc` the primitive was made from (a
        foreign one adopted with :meth:`PrimitiveDesc.from_handle`). Execute
        checks each memory against its argument sizes, and the primitive keeps
        its engines. oneDNN's C API bound here cannot ask a primitive for its
        descriptor, so this is taken on the caller's word.

        Raises:
            TypeError: ``handle`` is not a pointer of this handle type (or an int), or ``owned``
                is not a bool.
            ValueError: ``handle`` is NULL, or an object of this binding already owns it and
                ``owned=True`` asks to take it over.
            ClosedObjectError: the object of this binding that owns the handle is closed.
            TypeError: ``desc`` is not a :class:`PrimitiveDesc`.
            ClosedObjectError: ``desc`` is closed.
        """
        owned = _owned_argument(owned)
        if not isinstance(desc, PrimitiveDesc):
            raise TypeError(f"desc: expected a dnnl_interop.PrimitiveDesc, got {type(desc).__name__}")
        pointer = _foreign(handle, _PRIMITIVE_TYPE, "handle")
        adoption = _Adoption(cls, pointer, owned, "handle")

        def adopt(primitive: Primitive) -> None:
            with using((desc, PrimitiveDesc, "desc")):
                primitive._adopt(pointer, keep=desc._keep)
                primitive._arg_sizes = desc._arg_sizes

        return adoption.finish(cls, adopt)

    def get_cache_blob(self) -> bytes:
        """The primitive's cache blob (its compiled kernels), for ``Primitive(desc, blob)``.

        Raises ``UnimplementedError`` on an engine that makes no cache blobs
        (the CPU engine). An empty result means there is nothing to cache.

        Raises:
            ClosedObjectError: ``primitive`` is closed.
            UnimplementedError: the primitive's engine makes no cache blobs (the CPU engine).
            DnnlError: oneDNN cannot give the blob.
        """
        return _primitive_cache_blob(self)

    def execute(self, stream: Stream, args: Mapping[int, Memory | None]) -> None:
        """Submit the primitive to ``stream`` with ``{ARG_*: Memory}``.

        Returns at once; the work may still run. The primitive, the memories
        and their buffers stay alive until ``stream.wait()`` (or the stream's
        close), even if every other reference to them is dropped.

        Raises:
            TypeError: ``stream`` is not a :class:`Stream`, ``args`` not a mapping of ``ARG_*``
                ints to :class:`Memory` (or None).
            ValueError: a memory has no buffer, or is smaller than the primitive's descriptor at
                its argument.
            ClosedObjectError: the primitive, the stream or a memory is closed.
            InvalidArgumentsError: oneDNN refuses the execution (the message names a missing
                argument or an object on another engine when the binding can tell).
            DnnlError: another failure oneDNN reports.
        """
        submit(self, stream, args, (), _primitive_execute, "dnnl_primitive_execute")


_primitive_execute = lib.dnnl_primitive_execute


def reorder(
    src_desc: MemoryDesc, dst_desc: MemoryDesc, engine: Engine, dst_engine: Engine | None = None
) -> Primitive:
    """A reorder primitive copying ``src_desc`` layout into ``dst_desc`` layout.

    Raises:
        TypeError: an argument is not a :class:`MemoryDesc` or :class:`Engine`.
        ClosedObjectError: a descriptor or engine is closed.
        InvalidArgumentsError: oneDNN refuses the reorder (shapes that differ, for one).
        UnimplementedError: oneDNN has no reorder between these layouts or data types on the
            engine.
        LibraryNotFoundError: no oneDNN library can be loaded (at the first call into oneDNN).
    """
    dst_engine = engine if dst_engine is None else dst_engine
    pd = ffi.new("dnnl_primitive_desc_t *")
    # The argument sizes come from the descriptors given, not from a
    # primitive-descriptor query: reorder needs no more of the library.
    sizes = _create_reorder_desc(pd, src_desc, dst_desc, engine, dst_engine, with_sizes=True) or {}
    try:
        out = Primitive._new_out()
        check(lib.dnnl_primitive_create(out, pd[0]), "dnnl_primitive_create")
    finally:
        check(lib.dnnl_primitive_desc_destroy(pd[0]), "dnnl_primitive_desc_destroy")
    primitive = Primitive._from_handle(out[0], keep=(engine, dst_engine))
    primitive._arg_sizes = sizes
    return primitive


def _engine_words(engine: Engine) -> str:
    """``engine`` in words for a message: its kind and runtime."""
    kind = "a GPU" if engine.kind == EngineKind.GPU else "a CPU"
    runtime = {"ocl": " OpenCL", "ze": " Level Zero"}.get(engine._runtime, "")
    return f"{kind}{runtime} engine"


def _create_reorder_desc(
    out: CData, src_desc: MemoryDesc, dst_desc: MemoryDesc, engine: Engine, dst_engine: Engine, with_sizes: bool = False
) -> dict[int, int] | None:
    """``dnnl_reorder_primitive_desc_create`` into ``out``; with ``with_sizes``,
    the bytes of ``{ARG_FROM, ARG_TO}``."""
    with using(
        (src_desc, MemoryDesc, "src_desc"),
        (engine, Engine, "engine"),
        (dst_desc, MemoryDesc, "dst_desc"),
        (dst_engine, Engine, "dst_engine"),
    ) as (src_md, c_engine, dst_md, c_dst_engine):
        status = lib.dnnl_reorder_primitive_desc_create(out, src_md, c_engine, dst_md, c_dst_engine, ffi.NULL)
        if status:
            raise status_error(
                status, "dnnl_reorder_primitive_desc_create",
                f"oneDNN made no reorder from {src_desc!r} on {_engine_words(engine)} "
                f"to {dst_desc!r} on {_engine_words(dst_engine)}",
            )
        if not with_sizes:
            return None
        return {
            lib.DNNL_ARG_FROM: checked(lib.dnnl_memory_desc_get_size(src_md), "dnnl_memory_desc_get_size"),
            lib.DNNL_ARG_TO: checked(lib.dnnl_memory_desc_get_size(dst_md), "dnnl_memory_desc_get_size"),
        }


# --- primitive descriptors and primitive cache blobs ---------------------------

_PD_TYPE = ffi.typeof("dnnl_primitive_desc_t")
_NO_CACHE_BLOBS = (
    "the primitive's engine makes no cache blobs (oneDNN makes them on OpenCL and Level Zero GPU engines only)"
)
# Every named ARG_* index: the execution arguments a descriptor may describe.
_EXEC_ARG_INDICES = tuple(sorted(set(ARGS.values())))


class PrimitiveDesc(Owned):
    """A primitive descriptor (``dnnl_primitive_desc_t``): a primitive as oneDNN will implement it.

    Made by :meth:`reorder`, or adopted by :meth:`from_handle` from another
    cffi module that shares our C types (see ``dnnl_interop.embedding``).
    ``Primitive(desc)`` makes the primitive, ``Primitive(desc, cache_blob)``
    makes it from a cache blob, and :func:`make_primitive_cached` does either
    through a :class:`~dnnl_interop.CacheBlobStore`. A descriptor keeps its
    engines alive; primitives made from it keep them too and do not need the
    descriptor afterwards (oneDNN copies it into the primitive).

    Raises:
        TypeError: always, when called: make one with :meth:`reorder` or :meth:`from_handle`.
    """

    __slots__ = ("_arg_sizes",)  # {ARG_*: bytes the primitive uses there}, copied by its primitives
    _arg_sizes: dict[int, int]
    _ctype = "dnnl_primitive_desc_t"
    _destroy = lib.dnnl_primitive_desc_destroy
    _destroy_name = "dnnl_primitive_desc_destroy"

    def __init__(self, *args: object, **kwargs: object) -> None:
        raise TypeError(
            "make a PrimitiveDesc with PrimitiveDesc.reorder(...) or adopt one with PrimitiveDesc.from_handle(...)"
        )

    @classmethod
    def _made(cls, handle: CData, engines: tuple[Engine | None, ...], destroy_on_failure: bool) -> PrimitiveDesc:
        try:
            sizes = _exec_arg_sizes(handle)
        except BaseException:
            if destroy_on_failure:
                lib.dnnl_primitive_desc_destroy(handle)
            raise
        desc = cls._from_handle(handle, keep=engines)
        desc._arg_sizes = sizes
        return desc

    @classmethod
    def reorder(
        cls, src_desc: MemoryDesc, dst_desc: MemoryDesc, engine: Engine, dst_engine: Engine | None = None
    ) -> PrimitiveDesc:
        """The descriptor of the reorder :func:`reorder` makes from the same arguments.

        Raises:
            TypeError: an argument is not a :class:`MemoryDesc` or :class:`Engine`.
            ClosedObjectError: a descriptor or engine is closed.
            InvalidArgumentsError: oneDNN refuses the reorder (shapes that differ, for one).
            UnimplementedError: oneDNN has no reorder between these layouts or data types on the
                engine.
        """
        dst_engine = engine if dst_engine is None else dst_engine
        out = cls._new_out()
        _create_reorder_desc(out, src_desc, dst_desc, engine, dst_engine)
        return cls._made(out[0], (engine, dst_engine), destroy_on_failure=True)

    @classmethod
    def from_handle(cls, handle: object, *, owned: bool = False, engine: Engine | None = None) -> PrimitiveDesc:
        """A PrimitiveDesc over a ``dnnl_primitive_desc_t`` made elsewhere.

        ``handle`` is a cffi pointer of that type, from this binding or from
        any cffi module (see :meth:`Engine.from_handle`), or an int address
        (taken as given: an address carries nothing the binding could check).

        ``owned=False`` (the default): the descriptor is cloned
        (``dnnl_primitive_desc_clone``); the caller keeps its own and may
        destroy it at any time. ``owned=True``: this object takes the handle
        over and destroys it (``close()``, ``with``, garbage collection); the
        caller must not destroy it, and must own it in the first place (never
        a primitive's own descriptor, ``dnnl_primitive_get_primitive_desc``'s
        ``const`` one: cffi cannot tell ``const`` apart). A descriptor an
        object of this binding owns is only cloned. If ``from_handle``
        raises, nothing was taken over.

        ``engine``: the :class:`Engine` the descriptor was made on, if it is
        one of ours. It is checked (``ValueError`` if the descriptor's engine
        is another) and kept alive by the descriptor and its primitives, and
        is what :attr:`engine` returns. Without it :attr:`engine` is None and
        the caller keeps the engine alive while the descriptor or a
        primitive made from it lives.

        Raises:
            TypeError: ``handle`` is not a pointer of this handle type (or an int), or ``owned``
                is not a bool.
            ValueError: ``handle`` is NULL, or an object of this binding already owns it and
                ``owned=True`` asks to take it over.
            ClosedObjectError: the object of this binding that owns the handle is closed.
            TypeError: ``engine`` is neither an :class:`Engine` nor None.
            ValueError: ``engine`` is not the descriptor's engine.
            DnnlError: oneDNN cannot clone or query the descriptor.
        """
        owned = _owned_argument(owned)
        engine = _optional_engine(engine)
        pd = _foreign(handle, _PD_TYPE, "handle")
        adoption = _Adoption(cls, pd, owned, "handle")
        try:
            if engine is not None:
                c_engine = ffi.new("dnnl_engine_t *")
                query = lib.dnnl_primitive_desc_query(pd, lib.dnnl_query_engine, 0, c_engine)
                check(query, "dnnl_primitive_desc_query")
                _engine_of(c_engine[0], engine, "the descriptor")
            if not owned:
                out = cls._new_out()
                check(lib.dnnl_primitive_desc_clone(out, pd), "dnnl_primitive_desc_clone")
            else:
                sizes = _exec_arg_sizes(pd)
        except BaseException:
            adoption.cancel()
            raise
        if not owned:
            adoption.cancel()  # the clone is a descriptor of its own
            return cls._made(out[0], (engine,), destroy_on_failure=True)

        def adopt(desc: PrimitiveDesc) -> None:
            desc._adopt(pd, keep=(engine,))
            desc._arg_sizes = sizes

        return adoption.finish(cls, adopt)

    @property
    def engine(self) -> Engine | None:
        """The :class:`Engine` the descriptor was made on (None if adopted without it).

        Raises:
            ClosedObjectError: ``desc`` is closed.
        """
        engine: Engine | None = self._kept(0)
        return engine

    @property
    def impl_info(self) -> str:
        """The implementation oneDNN chose, by its name ("jit:uni", "ocl:ref:any", ...).

        Raises:
            ClosedObjectError: ``desc`` is closed.
            DnnlError: oneDNN cannot answer.
        """
        out = ffi.new("const char **")
        with using((self, PrimitiveDesc, "desc")) as pd:
            check(lib.dnnl_primitive_desc_query(pd, lib.dnnl_query_impl_info_str, 0, out), "dnnl_primitive_desc_query")
            if out[0] == ffi.NULL:
                return ""
            name = ffi.string(out[0])
            return name.decode() if isinstance(name, bytes) else name

    @property
    def cache_blob_id(self) -> bytes:
        """The id of the cache blob of a primitive made from this descriptor.

        oneDNN's key for the blob: it names the primitive, its implementation
        and the device. Primitives of descriptors with equal ids can use each
        other's blobs. Empty where oneDNN makes no cache blobs (the CPU engine).

        Raises:
            ClosedObjectError: ``desc`` is closed.
            DnnlError: oneDNN cannot answer.
        """
        size = ffi.new("dnnl_dim_t *")
        pointer = ffi.new("const uint8_t **")
        with using((self, PrimitiveDesc, "desc")) as pd:
            check(
                lib.dnnl_primitive_desc_query(pd, lib.dnnl_query_cache_blob_id_size_s64, 0, size),
                "dnnl_primitive_desc_query",
            )
            if size[0] <= 0:
                return b""
            check(
                lib.dnnl_primitive_desc_query(pd, lib.dnnl_query_cache_blob_id, 0, pointer),
                "dnnl_primitive_desc_query",
            )
            if pointer[0] == ffi.NULL:
                return b""
            blob_id: bytes = ffi.buffer(pointer[0], size[0])[:]  # copied while the descriptor holds it
            return blob_id

    @property
    def arg_sizes(self) -> dict[int, int]:
        """``{ARG_*: bytes}``: the execution arguments the descriptor describes, and their sizes.

        Execute refuses a memory smaller than this at its argument. Covers the
        named ``ARG_*`` indices and the ``ARG_MULTIPLE_SRC``/``DST`` ranges.

        Raises:
            ClosedObjectError: ``desc`` is closed.
        """
        _ = self.handle  # ClosedObjectError once closed
        return dict(self._arg_sizes)


def _exec_arg_sizes(pd: CData) -> dict[int, int]:
    """``{ARG_*: bytes}`` of the arguments ``pd`` has a non-empty memory descriptor for."""
    count = ffi.new("int *")
    indices = list(_EXEC_ARG_INDICES)
    for query, base in ((lib.dnnl_query_num_of_inputs_s32, lib.DNNL_ARG_MULTIPLE_SRC),
                        (lib.dnnl_query_num_of_outputs_s32, lib.DNNL_ARG_MULTIPLE_DST)):
        check(lib.dnnl_primitive_desc_query(pd, query, 0, count), "dnnl_primitive_desc_query")
        indices += range(base, base + min(max(count[0], 0), lib.DNNL_ARG_MULTIPLE_SRC))
    md = ffi.new("const_dnnl_memory_desc_t *")
    sizes = {}
    for index in indices:
        check(lib.dnnl_primitive_desc_query(pd, lib.dnnl_query_exec_arg_md, index, md), "dnnl_primitive_desc_query")
        if md[0] != ffi.NULL:
            size = checked(lib.dnnl_memory_desc_get_size(md[0]), "dnnl_memory_desc_get_size")
            if size:
                sizes[index] = size
    return sizes


def _cache_blob_error(status: int, name: str) -> Exception:
    """oneDNN's error for a cache-blob call; its bare UNIMPLEMENTED gets the reason."""
    error = status_error(status, name)
    if type(error) is UnimplementedError:
        return UnimplementedError(Status.UNIMPLEMENTED, name, _NO_CACHE_BLOBS)
    return error


def _create_primitive(primitive: Primitive, desc: PrimitiveDesc, cache_blob: Buffer | None) -> None:
    """``Primitive.__init__``: the primitive of ``desc``, from ``cache_blob`` unless None."""
    use = using((desc, PrimitiveDesc, "desc"))
    if cache_blob is not None:
        blob = as_bytes(cache_blob, "cache_blob")
        if not len(blob):
            raise ValueError("cache_blob: empty; a cache blob is never empty (None makes the primitive afresh)")
    out = Primitive._new_out()
    with use as pd:
        if cache_blob is None:
            check(lib.dnnl_primitive_create(out, pd), "dnnl_primitive_create")
        else:
            status = lib.dnnl_primitive_create_from_cache_blob(out, pd, len(blob), blob)
            if status:
                raise _cache_blob_error(status, "dnnl_primitive_create_from_cache_blob")
        primitive._adopt(out[0], keep=desc._keep)
        primitive._arg_sizes = desc._arg_sizes


def _primitive_cache_blob(primitive: Primitive) -> bytes:
    with using((primitive, Primitive, "primitive")) as c_primitive:
        try:
            return query_then_fill(lib.dnnl_primitive_get_cache_blob, "dnnl_primitive_get_cache_blob", c_primitive)
        except UnimplementedError as error:
            if isinstance(error, MissingFunctionError) or error.detail:
                raise
            raise _cache_blob_error(int(error.status), error.function) from None


def make_primitive_cached(desc: PrimitiveDesc, store: CacheBlobStore | None = None) -> Primitive:
    """The primitive of ``desc``, made from a cache blob of ``store`` when it has a sound one.

    The entry's key is ``compose_key(engine blob id, desc.cache_blob_id)``
    (see ``dnnl_interop.cache``): a blob is only found for the very device,
    oneDNN build and primitive it was made for. A hit makes the primitive
    from the verified blob; if oneDNN refuses it, the primitive is made
    afresh and the entry rewritten; a miss makes it afresh and saves its
    blob. Engines that make no cache blobs (CPU) make it afresh without the
    store. ``store`` is a :class:`~dnnl_interop.CacheBlobStore`, or None for
    the default store (in :func:`dnnl_interop.cache.default_directory`). A
    store that cannot be read or written logs a warning (logger
    ``dnnl_interop.cache``) and never fails the creation.

    Raises:
        TypeError: ``desc`` is not a :class:`PrimitiveDesc`, or ``store`` not a
            :class:`~dnnl_interop.CacheBlobStore` or None.
        ClosedObjectError: ``desc`` is closed.
        DnnlError: oneDNN cannot make the primitive afresh (a refused blob is not an error).
    """
    from ._cached import make_primitive_cached as cached

    return cached(desc, store)


def reorder_cached(
    src_desc: MemoryDesc,
    dst_desc: MemoryDesc,
    engine: Engine,
    dst_engine: Engine | None = None,
    store: CacheBlobStore | None = None,
) -> Primitive:
    """:func:`reorder`, through :func:`make_primitive_cached` with ``store``.

    Raises:
        TypeError: an argument is of another type (as in :func:`reorder` and
            :func:`make_primitive_cached`).
        ClosedObjectError: a descriptor or engine is closed.
        DnnlError: oneDNN refuses the reorder, as in :func:`reorder`.
    """
    desc = PrimitiveDesc.reorder(src_desc, dst_desc, engine, dst_engine)
    try:
        return make_primitive_cached(desc, store)
    finally:
        desc.close()


__all__ += ["PrimitiveDesc", "make_primitive_cached", "reorder_cached"]


# --- handles made elsewhere: from_handle -----------------------------------------

_ENGINE_TYPE = ffi.typeof("dnnl_engine_t")
_STREAM_TYPE = ffi.typeof("dnnl_stream_t")
_MEMORY_TYPE = ffi.typeof("dnnl_memory_t")
_PRIMITIVE_TYPE = ffi.typeof("dnnl_primitive_t")
_HANDLE_NAMES = {
    _ENGINE_TYPE: "dnnl_engine_t",
    _STREAM_TYPE: "dnnl_stream_t",
    _MEMORY_TYPE: "dnnl_memory_t",
    _PRIMITIVE_TYPE: "dnnl_primitive_t",
    _PD_TYPE: "dnnl_primitive_desc_t",
}
_OwnedT = TypeVar("_OwnedT", bound=Owned)


def _owned_argument(owned: object) -> bool:
    if not isinstance(owned, bool):
        raise TypeError(f"owned: expected a bool, got {type(owned).__name__}")
    return owned


def _optional_engine(engine: object) -> Engine | None:
    if engine is not None and not isinstance(engine, Engine):
        raise TypeError(f"engine: expected a dnnl_interop.Engine or None, got {type(engine).__name__}")
    return engine


def _foreign(handle: object, ctype: FFI.CType, what: str) -> CData:
    """``handle`` as our typed pointer: a cffi pointer of ``ctype`` (also one that
    another cffi module declared itself), ``void *``, or an int address.

    cffi types of two FFI instances are different objects even when they
    spell the same C type; a pointer whose C type matches is taken as that
    type. None, NULL and pointers of other types are refused.
    """
    name = _HANDLE_NAMES[ctype]
    if handle is None:
        raise TypeError(f"{what}: None given; a {name} is required")
    if isinstance(handle, Owned):
        raise TypeError(
            f"{what}: expected a {name}, got a dnnl_interop.{type(handle).__name__} "
            "(already an object of this binding: use it, or borrow its .handle)"
        )
    if isinstance(handle, ffi.CData):
        kind = ffi.typeof(handle)
        if kind is not ctype and kind.kind == "pointer" and kind.cname == ctype.cname:
            handle = ffi.cast(ctype, handle)  # the same C type, declared by another cffi module
    pointer: CData = as_handle(handle, ctype, what)
    if pointer == ffi.NULL:
        raise ValueError(f"{what}: a NULL {name} given")
    return pointer


class _Adoption:
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
        self._key = ("borrowed", next(Owned._shared.call_keys))
        with Owned._shared.lock:
            holder = self._holder_of(cls)
            if holder is not None:
                holder._use(self._key)
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
            holder._release(self._key)

    def finish(self, cls: type[_OwnedT], adopt: Callable[[_OwnedT], None]) -> _OwnedT:
        """A new ``cls`` that ``adopt`` sets up over the handle, owned or borrowed."""
        obj = cls.__new__(cls)
        obj._borrowed = not self._owned
        try:
            with Owned._shared.lock:
                if self._owned:
                    self._holder_of(cls)  # another thread may have taken it over meanwhile
                adopt(obj)
                if self._holder is not None:
                    obj._holds += ((self._holder, self._key),)
                    self._holder = None
        except BaseException:
            self.cancel()
            raise
        return obj


def _engine_runtime(engine: CData) -> str:
    """The runtime of a C engine, asked of oneDNN: "native" (CPU, SYCL), "ocl" or "ze".

    The OpenCL and Level Zero getters refuse an engine of another runtime.
    """
    kind = ffi.new("dnnl_engine_kind_t *")
    check(lib.dnnl_engine_get_kind(engine, kind), "dnnl_engine_get_kind")
    if kind[0] != lib.dnnl_gpu:
        return "native"
    if lib.dnnl_ocl_interop_get_device(engine, ffi.new("cl_device_id *")) == 0:
        return "ocl"
    if lib.dnnl_ze_interop_engine_get_device(engine, ffi.new("ze_device_handle_t *")) == 0:
        return "ze"
    return "native"


def _engine_of(c_engine: CData, engine: Engine | None, what: str) -> Engine:
    """The Engine for ``c_engine``, the engine C says ``what`` was made on.

    ``engine`` given: checked to be that engine. Otherwise the Engine of this
    binding that holds it, or a new one borrowing it.
    """
    if engine is not None:
        with using((engine, Engine, "engine")) as ours:
            if ours != c_engine:
                raise ValueError(f"engine: {what} was made on another engine than this one")
        return engine
    known, holder = holder_of(address_of(c_engine))
    if known and isinstance(holder, Engine) and not holder.closed:
        return holder
    return Engine.from_handle(c_engine, owned=False)
