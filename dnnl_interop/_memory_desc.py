"""Memory descriptors (``dnnl_memory_desc_t``): a shape, a data type and a layout."""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, SupportsIndex

from ._buffers import has_buffer
from ._enums import FORMAT_TAGS, DataType, FormatKind
from ._ffi import ffi, lib
from ._library import check, checked, loaded_library, status_error
from ._owned import Owned, using
from ._validate import (
    NUMPY_TYPES,
    PLAIN_TAGS,
    RUNTIME_DIM,
    data_type,
    dims_argument,
    strides_argument,
    tag_argument,
    tag_rank,
)

if TYPE_CHECKING:
    import numpy

    from ._ffi import CData

__all__ = ["RUNTIME_DIM", "DataType", "FormatKind", "MemoryDesc"]

_RUNTIME_SIZE = 2**64 + RUNTIME_DIM  # DNNL_RUNTIME_SIZE_VAL: (size_t)DNNL_RUNTIME_DIM_VAL

_query = lib.dnnl_memory_desc_query
_TAGS_BY_RANK: dict[int, list[tuple[str, int]]] = {}  # filled on first use: rank -> [(tag, value)]
_LAYOUTS: dict[tuple[object, ...], tuple[object, ...]] = {}  # each layout seen, interned
# What oneDNN answered of each descriptor made from a shape, data type and tag or strides
# (the checked arguments): (shape, data type, format kind, plain strides, layout key). The
# same arguments always make the same descriptor in one library, so a known one is not asked
# again. Plain data (no handle); bounded; forgotten when another library is bound.
_ANSWERS: dict[tuple[object, ...], tuple[Any, ...]] = {}
_ANSWERS_BOUND = 4096
_answers_library: list[object] = [None]  # the library _ANSWERS holds the answers of
# The descriptors of the layouts the binding makes memories over (arrays and tensors), as
# oneDNN handles of the binding's own, no MemoryDesc (see plain_layout): key (shape, data
# type, strides) -> (handle, size in bytes, layout key). Least recently made first; bounded.
# Read, changed and destroyed only under the shared lock, which memory creation holds
# through its C call: an evicted handle is destroyed once, never while a call reads it.
_PLAIN: dict[tuple[object, ...], tuple[Any, int, tuple[object, ...]]] = {}
_PLAIN_BOUND = 256
_plain_library: list[object] = [None]  # the library _PLAIN's handles were made by
# The same as MemoryDesc objects, for memories of the runtimes that take one (shared_desc).
_SHARED: weakref.WeakValueDictionary[tuple[object, ...], MemoryDesc] = weakref.WeakValueDictionary()

class MemoryDesc(Owned):
    """A memory descriptor: a shape, a data type and a layout.

    The layout is a format tag or strides, as in oneDNN's C++
    ``memory::desc(dims, data_type, tag)`` and ``memory::desc(dims,
    data_type, strides)``:

    * ``MemoryDesc(shape, dtype, tag)``: ``tag`` is any name of
      :func:`format_tags` ("ab", "ba", "abcd", "acdb", "nChw16c", ...);
    * a dimension of ``shape`` may be :data:`RUNTIME_DIM` (oneDNN's
      ``DNNL_RUNTIME_DIM_VAL``) in a plain tag's layout: a matmul or a reorder
      made with it takes memories of any size there at execute (no memory
      has such a descriptor; ``size`` is then meaningless);
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

    # What oneDNN says of the descriptor, read once (a descriptor never changes):
    # its shape, data type, format kind and strides (None unless plain).
    # _tag: the tag it was made with; None from strides; unset until looked
    # up for a descriptor oneDNN made.
    # _layout: everything oneDNN compares of two descriptors, as one tuple
    # (execute compares a memory's with the primitive's: see _execution).
    # _nbytes: its size, asked of oneDNN once (unset until then).
    __slots__ = ("_shape", "_data_type", "_format_kind", "_strides", "_tag", "_layout", "_nbytes")
    _ctype = "dnnl_memory_desc_t"
    _destroy = lib.dnnl_memory_desc_destroy
    _destroy_name = "dnnl_memory_desc_destroy"

    _shape: tuple[int, ...]
    _data_type: DataType
    _format_kind: FormatKind
    _strides: tuple[int, ...] | None
    _tag: str | None
    _layout: tuple[object, ...]
    _nbytes: int

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
            self._tag = None
            key: tuple[object, ...] = (dims, dtype_, layout)
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
            self._tag = tag
            key = (dims, dtype_, tag_value)
        self._adopt(out[0])
        self._read_once(key)

    def _read_once(self, key: tuple[object, ...]) -> None:
        """``_read``, unless a descriptor of the same arguments (``key``: the checked shape,
        data type, and tag value or strides) was read before in this library."""
        library = loaded_library()
        known = _ANSWERS.get(key) if _answers_library[0] is library else None
        if known is None:
            self._read()
            if len(_ANSWERS) >= _ANSWERS_BOUND or _answers_library[0] is not library:
                _ANSWERS.clear()
                _answers_library[0] = library
            _ANSWERS[key] = (self._shape, self._data_type, self._format_kind, self._strides, self._layout)
        else:
            self._shape, self._data_type, self._format_kind, self._strides, self._layout = known

    @classmethod
    def _of_layout(cls, shape: tuple[int, ...], dtype: DataType, strides: tuple[int, ...]) -> MemoryDesc:
        """``MemoryDesc(shape, dtype, strides=strides)`` of arguments already checked (a layout
        ``plain_layout`` made)."""
        out = cls._new_out()
        check(lib.dnnl_memory_desc_create_with_strides(out, len(shape), shape, int(dtype), strides),
              "dnnl_memory_desc_create_with_strides")
        desc: MemoryDesc = cls.__new__(cls)
        desc._adopt(out[0])
        desc._tag = None
        desc._read_once((shape, dtype, strides))
        return desc

    @classmethod
    def _of(cls, md: CData) -> MemoryDesc:
        """A MemoryDesc of its own over a copy of ``md``, a descriptor oneDNN
        made (a primitive descriptor's, a memory's): nothing of it is kept."""
        out = cls._new_out()
        check(lib.dnnl_memory_desc_clone(out, md), "dnnl_memory_desc_clone")
        desc: MemoryDesc = cls.__new__(cls)
        desc._adopt(out[0])
        desc._read()
        return desc

    def _read(self) -> None:
        """Ask oneDNN for the shape, data type, format kind and plain strides."""
        md = self.handle
        ndims = ffi.new("int *")
        dims = ffi.new("dnnl_dims_t **")
        check(_query(md, lib.dnnl_query_ndims_s32, ndims), "dnnl_memory_desc_query")
        check(_query(md, lib.dnnl_query_dims, dims), "dnnl_memory_desc_query")
        n = ndims[0]
        self._shape = tuple(dims[0][0][0:n]) if n else ()
        kind = ffi.new("dnnl_data_type_t *")
        check(_query(md, lib.dnnl_query_data_type, kind), "dnnl_memory_desc_query")
        self._data_type = DataType(kind[0])
        fmt = ffi.new("dnnl_format_kind_t *")
        check(_query(md, lib.dnnl_query_format_kind, fmt), "dnnl_memory_desc_query")
        self._format_kind = FormatKind(fmt[0])
        self._strides = None
        layout: tuple[object, ...] = (self._data_type, self._shape, self._format_kind)
        if self._format_kind == FormatKind.BLOCKED:
            layout += self._read_blocking(md, n)
        if len(_LAYOUTS) > 4096:  # a bound: equal layouts not interned still compare equal
            _LAYOUTS.clear()
        self._layout = _LAYOUTS.setdefault(layout, layout)  # one object per layout: compared by identity first

    def _read_blocking(self, md: CData, n: int) -> tuple[object, ...]:
        """The blocking oneDNN compares (strides of dimensions of one element
        left out, as oneDNN does), and the plain strides: no inner blocks, no
        padding, no offset."""
        count = ffi.new("int *")
        check(_query(md, lib.dnnl_query_inner_nblks_s32, count), "dnnl_memory_desc_query")
        padded, offsets, strides, blocks, indices = (ffi.new("dnnl_dims_t **") for _ in range(5))
        offset = ffi.new("int64_t *")
        for query, out in ((lib.dnnl_query_padded_dims, padded), (lib.dnnl_query_padded_offsets, offsets),
                           (lib.dnnl_query_strides, strides), (lib.dnnl_query_submemory_offset_s64, offset),
                           (lib.dnnl_query_inner_blks, blocks), (lib.dnnl_query_inner_idxs, indices)):
            check(_query(md, query, out), "dnnl_memory_desc_query")
        nblks = count[0]
        padded_dims, pad_offsets = tuple(padded[0][0][0:n]), tuple(offsets[0][0][0:n])
        all_strides = tuple(strides[0][0][0:n])
        if not nblks and not offset[0] and padded_dims == self._shape and not any(pad_offsets):
            self._strides = all_strides
        used = tuple(s if not (d == 1 and p == 1) else 0
                     for d, p, s in zip(self._shape, padded_dims, all_strides, strict=True))
        return (padded_dims, pad_offsets, int(offset[0]), used,
                tuple(blocks[0][0][0:nblks]), tuple(indices[0][0][0:nblks]))

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
            ValueError: a dimension or stride is ``RUNTIME_DIM``: the size is known
                only from the descriptor of the actual shape.
            ClosedObjectError: ``desc`` is closed.
            MissingFunctionError: the loaded oneDNN lacks the function.
        """
        if getattr(self, "_handle", None) is None:
            raise self._closed_error("desc")
        try:
            size = self._nbytes
        except AttributeError:
            with using((self, MemoryDesc, "desc")) as md:
                size = int(checked(lib.dnnl_memory_desc_get_size(md), "dnnl_memory_desc_get_size"))
            self._nbytes = size
        if size == _RUNTIME_SIZE:  # oneDNN's DNNL_RUNTIME_SIZE_VAL, not a byte count
            raise ValueError(
                f"size: {self!r} has runtime dimensions (RUNTIME_DIM), so it has no size; "
                "ask the descriptor of the actual shape"
            )
        return size

    nbytes = size

    @property
    def shape(self) -> tuple[int, ...]:
        """The dimensions, as oneDNN holds them.

        Raises nothing: read from oneDNN when the descriptor was made.
        """
        return self._shape

    @property
    def data_type(self) -> DataType:
        """The :class:`DataType` of the elements.

        Raises nothing: read from oneDNN when the descriptor was made.
        """
        return self._data_type

    @property
    def format_kind(self) -> FormatKind:
        """How the layout is given: ``BLOCKED`` (plain or blocked layouts), ``ANY``
        (a primitive chooses), ``OPAQUE`` (a layout only oneDNN knows), ...

        Raises nothing: read from oneDNN when the descriptor was made.
        """
        return self._format_kind

    @property
    def tag(self) -> str | None:
        """The format tag of the layout: the one the descriptor was made with,
        or, for a descriptor oneDNN made, the tag that lays out the same
        ("acdb", "Acdb32a", ...); None for one made from strides, or for a
        layout no tag describes.

        Raises:
            ClosedObjectError: ``desc`` is closed (asked first of a descriptor oneDNN made).
        """
        try:
            return self._tag
        except AttributeError:
            self._tag = self._find_tag()
            return self._tag

    def _find_tag(self) -> str | None:
        """The tag whose descriptor of this shape and data type oneDNN finds equal."""
        if self._format_kind == FormatKind.ANY:
            return "any"
        if self._format_kind != FormatKind.BLOCKED:
            return None
        rank = len(self._shape)
        if rank not in _TAGS_BY_RANK:
            _TAGS_BY_RANK[rank] = _tags_of_rank(rank)
        out = self._new_out()
        with using((self, MemoryDesc, "desc")) as md:
            for name, value in _TAGS_BY_RANK[rank]:
                if lib.dnnl_memory_desc_create_with_tag(out, rank, self._shape, int(self._data_type), value):
                    continue
                equal = lib.dnnl_memory_desc_equal(md, out[0])
                lib.dnnl_memory_desc_destroy(out[0])
                if equal:
                    return name
        return None

    @property
    def ndim(self) -> int:
        """The number of dimensions.

        Raises nothing: the shape is read from oneDNN when the descriptor was made.
        """
        return len(self._shape)

    @property
    def dtype(self) -> numpy.dtype[Any] | None:
        """The numpy dtype of the data type, or None for types numpy cannot name (bf16, ...).

        Raises nothing; None for data types numpy cannot name (bf16, fp8, int4).
        """
        import numpy

        numpy_type = NUMPY_TYPES.get(self._data_type)
        return None if numpy_type is None else numpy.dtype(numpy_type.name)

    @property
    def strides(self) -> tuple[int, ...] | None:
        """Strides in elements of a plain layout, as oneDNN holds them ("ab" of
        (2, 3) is (3, 1)); None for blocked layouts ("aBcd16b", ...), padded
        ones and "any", which no strides describe. numpy's byte strides are
        these times ``dtype.itemsize``.

        Raises nothing; None for layouts no strides describe.
        """
        return self._strides

    def __eq__(self, other: object) -> bool:
        """oneDNN's equality (``dnnl_memory_desc_equal``): the same shape, data
        type and layout; the stride of a dimension of one element is never used."""
        if not isinstance(other, MemoryDesc):
            return NotImplemented
        if self is other:
            return True
        with using((self, MemoryDesc, "self"), (other, MemoryDesc, "other")) as (md, other_md):
            return bool(lib.dnnl_memory_desc_equal(md, other_md))

    def __hash__(self) -> int:
        return hash((self._shape, self._data_type, self._format_kind))

    def __copy__(self) -> MemoryDesc:
        with using((self, MemoryDesc, "desc")) as md:
            copy: MemoryDesc = desc_of(md)
        copy._tag = self.tag
        return copy

    def __deepcopy__(self, memo: object) -> MemoryDesc:
        return self.__copy__()

    def __reduce_ex__(self, protocol: SupportsIndex) -> tuple[Any, ...]:
        tag = self.tag
        name = self._data_type.name.lower()
        if tag is None and self._strides is None:
            raise TypeError(f"{self!r}: a layout no format tag or strides describe cannot be pickled")
        if tag is None:
            return _desc_from_strides, (self._shape, name, self._strides)
        return MemoryDesc, (self._shape, name, tag)

    def __repr__(self) -> str:
        closed = ", closed" if self.closed else ""
        tag = None if self.closed and not hasattr(self, "_tag") else self.tag
        if tag is not None:
            layout = repr(tag)
        elif self._strides is not None:
            layout = f"strides={self._strides}"
        else:
            layout = f"format kind {self._format_kind.name.lower()}"
        shape = str(self._shape) if RUNTIME_DIM not in self._shape else \
            "(" + ", ".join("RUNTIME_DIM" if d == RUNTIME_DIM else str(d) for d in self._shape) + \
            ("," if len(self._shape) == 1 else "") + ")"
        return f"MemoryDesc({shape}, {self._data_type.name.lower()}, {layout}{closed})"


def desc_of(md: CData) -> MemoryDesc:
    """A MemoryDesc of its own over a copy of ``md``, a descriptor oneDNN made."""
    return MemoryDesc._of(md)  # noqa: SLF001 - the package's door to MemoryDesc's constructor from C


class RefusedLayout(ValueError):
    """A layout read from an array or a tensor that no descriptor describes (what
    ``MemoryDesc(shape, dtype, strides=...)`` refused, said again)."""


def plain_layout(
    shape: tuple[int, ...], dtype: DataType, strides: tuple[int, ...]
) -> tuple[Any, int, tuple[object, ...]]:
    """``(handle, size, layout key)`` of the descriptor of ``shape``, ``dtype`` and ``strides``
    (ints, in elements), for a memory the binding makes over an array or a tensor.

    The handle is the cache's own: **call with the shared lock held** (``_owned.shared.lock``)
    and use it only while holding it. A layout not seen before is made and checked as
    ``MemoryDesc(shape, dtype, strides=strides)`` makes and checks it (and raises what that
    raises), then kept: later calls with the same ints ask nothing of oneDNN
    (:class:`RefusedLayout` for a layout it refuses).
    """
    library = loaded_library()
    if _plain_library[0] is not library:  # handles of another library: never passed to this one
        _PLAIN.clear()
        _plain_library[0] = library
    key = (shape, dtype, strides)
    known = _PLAIN.get(key)
    if known is not None:
        return known
    try:
        desc = MemoryDesc(shape, dtype, strides=strides)
    except ValueError as error:
        raise RefusedLayout(str(error)) from None
    try:
        out = ffi.new("dnnl_memory_desc_t *")
        check(lib.dnnl_memory_desc_clone(out, desc.handle), "dnnl_memory_desc_clone")
        known = _PLAIN[key] = (out[0], desc.size, layout_key(desc))
    finally:
        desc.close()
    if len(_PLAIN) > _PLAIN_BOUND:  # the least recently made goes: no call holds it (the lock)
        lib.dnnl_memory_desc_destroy(_PLAIN.pop(next(iter(_PLAIN)))[0])
    return known


def plain_cache() -> tuple[dict[tuple[object, ...], tuple[Any, int, tuple[object, ...]]], list[object]]:
    """The cache of :func:`plain_layout` and the one-item list of the library its handles were
    made by, for the C path of memories over host tensors (``csrc/host_memory.c``), which reads
    them holding the shared lock, as ``plain_layout``'s callers do, and never changes them."""
    return _PLAIN, _plain_library


def shared_desc(shape: tuple[int, ...], dtype: DataType, strides: tuple[int, ...]) -> MemoryDesc:
    """The descriptor of ``shape``, ``dtype`` and ``strides`` (ints, in elements) for a memory
    the binding makes over an array or a tensor: one object for each layout while a memory
    holds it (it is never changed; a closed one is made again).

    Raises:
        RefusedLayout: ``MemoryDesc(shape, dtype, strides=strides)`` refuses the layout.
    """
    key = (shape, dtype, strides)
    desc = _SHARED.get(key)
    if desc is None or desc.closed:
        try:
            desc = _SHARED[key] = MemoryDesc(shape, dtype, strides=strides)
        except ValueError as error:
            raise RefusedLayout(str(error)) from None
    return desc


def layout_desc(shape: tuple[int, ...], dtype: DataType, strides: tuple[int, ...]) -> MemoryDesc:
    """A MemoryDesc of its own of a layout ``plain_layout`` made (a memory's ``desc``, made
    when first asked), without asking oneDNN what it already said."""
    return MemoryDesc._of_layout(shape, dtype, strides)  # noqa: SLF001 - the package's door to it


def layout_key(desc: MemoryDesc) -> tuple[object, ...]:
    """``desc``'s layout key: (data type, shape, layout...), one object per layout, so that
    equal layouts compare by identity first (execute's fast path)."""
    return desc._layout  # noqa: SLF001 - the package's door to a descriptor's layout key


def _desc_from_strides(shape: tuple[int, ...], dtype: str, strides: tuple[int, ...]) -> MemoryDesc:
    return MemoryDesc(shape, dtype, strides=strides)


def _tags_of_rank(rank: int) -> list[tuple[str, int]]:
    """The format tags that lay out ``rank`` dimensions, one name a value, plain ones first."""
    found: dict[int, str] = {}
    for name, value in FORMAT_TAGS.items():
        if tag_rank(name) == rank:
            found.setdefault(value, PLAIN_TAGS.get(value, name))
    plain_first = sorted(found.items(), key=lambda item: (item[0] not in PLAIN_TAGS, item[0]))
    return [(name, value) for value, name in plain_first]
