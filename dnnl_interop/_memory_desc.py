"""Memory descriptors (``dnnl_memory_desc_t``): a shape, a data type and a layout."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, SupportsIndex

from ._buffers import has_buffer
from ._enums import DataType
from ._ffi import lib
from ._library import checked, status_error
from ._owned import Owned, using
from ._validate import (
    FORMAT_TAGS,
    NUMPY_TYPES,
    PLAIN_TAGS,
    data_type,
    dims_argument,
    strides_argument,
    tag_argument,
)

if TYPE_CHECKING:
    import numpy

__all__ = ["DataType", "MemoryDesc"]


def _plain_order(tag: str, ndim: int) -> list[int] | None:
    """Axes from outermost to innermost of a plain layout, None for a blocked one."""
    plain = PLAIN_TAGS.get(FORMAT_TAGS.get(tag, -1))
    if plain is None or len(plain) != ndim:
        return None
    return [ord(ch) - ord("a") for ch in plain]


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
        dims = dims_argument(shape)
        dtype_ = data_type(dtype)
        out = self._new_out()
        if strides is not None:
            if tag is not None:
                raise TypeError("tag: give a format tag or strides, not both")
            layout = strides_argument(strides, dims)
            status = lib.dnnl_memory_desc_create_with_strides(out, len(dims), dims, int(dtype_), layout)
            if status:
                raise status_error(
                    status, "dnnl_memory_desc_create_with_strides",
                    f"strides: oneDNN refused strides {layout} (in elements) for shape {dims} of "
                    f"{dtype_.name.lower()}; it takes layouts where each stride is at least the next "
                    "smaller one times that one's dimension (no interleaved elements)",
                )
            self.tag, self._strides = None, layout
        else:
            if tag is None:
                raise TypeError("tag: a format tag or strides=... is needed")
            tag_value = tag_argument(tag, len(dims))
            status = lib.dnnl_memory_desc_create_with_tag(out, len(dims), dims, int(dtype_), tag_value)
            if status:
                raise status_error(
                    status, "dnnl_memory_desc_create_with_tag",
                    f"oneDNN refused shape {dims} of {dtype_.name.lower()} in layout {tag!r}",
                )
            assert isinstance(tag, str)  # tag_argument checked it
            self.tag, self._strides = tag, _tag_strides(tag, dims)
        self.shape, self.data_type = dims, dtype_
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

        if isinstance(array, numpy.ndarray) or has_buffer(array):
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

        numpy_type = NUMPY_TYPES.get(self.data_type)
        return None if numpy_type is None else numpy.dtype(numpy_type.name)

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
            return ("tag", FORMAT_TAGS[self.tag]) if self.tag is not None else ("strides", None)
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


def _desc_from_strides(shape: tuple[int, ...], dtype: str, strides: tuple[int, ...]) -> MemoryDesc:
    return MemoryDesc(shape, dtype, strides=strides)
