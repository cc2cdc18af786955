"""Checking what users pass before oneDNN sees it: data types, shapes,
strides, format tags, enum values, counts and flags.

Each check raises ``TypeError`` or ``ValueError`` naming the argument. The
one table of data types numpy can hold lives here (:data:`NUMPY_TYPES`).
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from typing import TypeVar

from ._enums import FORMAT_TAGS, DataType
from ._ffi import lib

_E = TypeVar("_E", bound=int)


class NumpyType:
    """How numpy holds one oneDNN data type: its dtype name, and the kind
    (``f`` float, ``i`` signed, ``u`` unsigned, ``b`` bool) and size of its items."""

    __slots__ = ("name", "kind", "itemsize")

    def __init__(self, name: str, kind: str, itemsize: int) -> None:
        self.name, self.kind, self.itemsize = name, kind, itemsize


# The data types with an exact numpy counterpart; the others (bf16, fp8,
# int4, ...) have none, and their buffers are raw unsigned bytes.
NUMPY_TYPES: dict[DataType, NumpyType] = {
    DataType.F16: NumpyType("float16", "f", 2),
    DataType.F32: NumpyType("float32", "f", 4),
    DataType.F64: NumpyType("float64", "f", 8),
    DataType.S8: NumpyType("int8", "i", 1),
    DataType.U8: NumpyType("uint8", "u", 1),
    DataType.S32: NumpyType("int32", "i", 4),
    DataType.S64: NumpyType("int64", "i", 8),
    DataType.BOOLEAN: NumpyType("bool", "b", 1),
}
_BY_NUMPY_NAME = {numpy_type.name: data_type for data_type, numpy_type in NUMPY_TYPES.items()}


def data_type(dtype: object, what: str = "dtype") -> DataType:
    """``dtype`` as a :class:`DataType`: a DataType, its name ("f32", "bf16")
    or anything ``numpy.dtype`` accepts with a oneDNN counterpart; ``what``
    names the argument in errors."""
    if isinstance(dtype, DataType):
        return dtype
    if isinstance(dtype, str) and dtype.upper() in DataType.__members__:
        return DataType[dtype.upper()]
    if dtype is None or isinstance(dtype, (bool, int, float)):  # numpy reads None as float64
        raise TypeError(f"{what}: expected a data type (a DataType, 'f32', numpy.float32, ...), got {dtype!r}")
    import numpy  # only needed for numpy-style dtypes

    try:
        name = numpy.dtype(dtype).name  # type: ignore[call-overload]  # not a dtype: TypeError
    except TypeError:
        raise TypeError(f"{what}: {dtype!r} is no data type{_did_you_mean(dtype)}; {_ACCEPTED}") from None
    if name not in _BY_NUMPY_NAME:
        raise TypeError(f"{what}: numpy's {name} has no oneDNN data type; {_ACCEPTED}")
    return _BY_NUMPY_NAME[name]


# What data_type() takes, for its messages.
_ACCEPTED = (
    "expected one of oneDNN's names ("
    + ", ".join(repr(member.name.lower()) for member in DataType if member != DataType.UNDEF)
    + "), a DataType, or a numpy dtype oneDNN has ("
    + ", ".join(numpy_type.name for numpy_type in NUMPY_TYPES.values())
    + ")"
)


def _did_you_mean(dtype: object) -> str:
    """`` (did you mean 'f32'?)`` for a name close to oneDNN's ("fp32", "F_32"), else ""."""
    if not isinstance(dtype, str):
        return ""
    import difflib

    names = [member.name.lower() for member in DataType if member != DataType.UNDEF]
    close = difflib.get_close_matches(dtype.lower().replace("fp", "f").replace("_", ""), names, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


# --- format tags ---------------------------------------------------------------------

# The plain (letters-only) tag of each tag value: "nchw" is "abcd".
PLAIN_TAGS: dict[int, str] = {}
for _name, _value in sorted(FORMAT_TAGS.items(), key=lambda item: len(item[0])):
    if _name.isalpha() and _name.islower() and set(_name) <= set("abcdefghijkl"):
        PLAIN_TAGS.setdefault(_value, _name)


def format_tags() -> list[str]:
    """Every format tag name oneDNN 3.13 knows ("ab", "acdb", "nChw16c", ...).

    Raises nothing: the names come from the headers the binding was built from.
    """
    return sorted(FORMAT_TAGS)


def tag_argument(tag: object, ndim: int) -> int:
    """The ``dnnl_format_tag_t`` of a tag name for a shape of ``ndim`` dimensions."""
    if not isinstance(tag, str):
        hint = "; strides go by keyword: MemoryDesc(shape, dtype, strides=...)" if _is_int_sequence(tag) else ""
        raise TypeError(f"tag: expected a format tag name, got {type(tag).__name__}{hint}")
    if tag not in FORMAT_TAGS:
        raise ValueError(f"tag: unknown format tag {tag!r}; see dnnl_interop.format_tags()")
    rank = tag_rank(tag)
    if rank is not None and rank != ndim:
        raise ValueError(f"tag: {tag!r} lays out {rank} dimensions, the shape has {ndim}")
    return FORMAT_TAGS[tag]


def tag_rank(tag: str) -> int | None:
    """How many dimensions a tag lays out (distinct letters), None if unknown ("any")."""
    letters = {ch.lower() for ch in PLAIN_TAGS.get(FORMAT_TAGS[tag], tag) if ch.isalpha()}
    if tag == "any" or not letters <= set("abcdefghijkl"):
        return None
    return len(letters)


def _is_int_sequence(value: object) -> bool:
    return isinstance(value, (tuple, list)) and all(
        hasattr(item, "__index__") and not isinstance(item, bool) for item in value
    )


# --- shapes and strides --------------------------------------------------------------


RUNTIME_DIM = -(2**63)  # DNNL_RUNTIME_DIM_VAL (INT64_MIN): a dimension given at execute


def dims_argument(shape: object) -> tuple[int, ...]:
    """A shape: 1 to ``DNNL_MAX_NDIMS`` dimensions, each 0 or more, or ``RUNTIME_DIM``."""
    try:
        items: tuple[object, ...] = tuple(shape)  # type: ignore[arg-type]  # not iterable: TypeError
    except TypeError:
        raise TypeError(f"shape: expected a sequence of ints, got {type(shape).__name__}") from None
    dims = []
    for i, d in enumerate(items):
        if isinstance(d, (bool, float)) or not hasattr(d, "__index__"):
            raise TypeError(f"shape[{i}]: expected an int, got {type(d).__name__} {d!r}")
        d = operator.index(d)
        if not 0 <= d < 2**62 and d != RUNTIME_DIM:
            raise ValueError(f"shape[{i}]: {d} is not a dimension (0 or more, or RUNTIME_DIM)")
        dims.append(d)
    if not 0 < len(dims) <= lib.DNNL_MAX_NDIMS:
        raise ValueError(f"shape: a shape has 1 to {lib.DNNL_MAX_NDIMS} dimensions, not {len(dims)}")
    return tuple(dims)


def strides_argument(strides: object, shape: tuple[int, ...]) -> tuple[int, ...]:
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


# --- enums, counts and flags ---------------------------------------------------------


def enum_argument(value: object, enum_type: type[_E], what: str) -> _E:
    """``value`` as a member of ``enum_type`` (an IntEnum): its members and their ints."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what}: expected {enum_type.__name__}, got {type(value).__name__}")
    try:
        return enum_type(value)
    except ValueError:
        raise ValueError(f"{what}: {value!r} is not a {enum_type.__name__}") from None


def count_argument(value: object, what: str) -> int:
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


def arg_argument(arg: object, what: str = "arg") -> int:
    """An execute-argument index (``ARG_*``, ``post_op_arg(i)``, ...): an int from 0 that fits a C int."""
    if isinstance(arg, bool) or not isinstance(arg, int):
        raise TypeError(f"{what}: expected an ARG_* index (an int), got {type(arg).__name__}")
    if not 0 <= arg < 2**31:
        raise ValueError(f"{what}: {arg} is not an ARG_* index")
    return arg


def bool_argument(value: object, what: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{what}: expected a bool, got {type(value).__name__}")
    return value


def row_major_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """The strides, in elements, of a dense row-major layout of ``shape`` (as numpy's
    C order: a dimension of no element counts as one)."""
    strides, step = [], 1
    for dim in reversed(shape):
        strides.append(step)
        step *= max(dim, 1)
    return tuple(reversed(strides))
