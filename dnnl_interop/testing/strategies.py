"""Hypothesis strategies for code built on dnnl_interop.

For property tests of your own code (and ours): status codes, memory
descriptor arguments, blob ids and engine cache blobs shaped like oneDNN
3.13's, and damaged files of a :class:`~dnnl_interop.CacheBlobStore`::

    from hypothesis import given
    from dnnl_interop.testing import strategies as dst

    @given(dst.status_codes(unknown=True))
    def test_my_wrapper_raises_for_any_failure(code): ...

This is the one module of the package that imports hypothesis (install it,
or the ``testing`` extra: ``pip install "dnnl-interop[testing]"``). Nothing
here loads oneDNN; only :meth:`MemoryDescArgs.make` (and so
:func:`memory_descs`) calls it.
"""

from __future__ import annotations

import hashlib
import random
import string
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from hypothesis import strategies as st

from .. import cache
from ..errors import Status

if TYPE_CHECKING:
    from ..core import MemoryDesc

__all__ = [
    "DAMAGE_KINDS",
    "DamagedCacheFile",
    "MemoryDescArgs",
    "blob_ids",
    "cache_entry",
    "damage_cache_file",
    "damaged_cache_files",
    "damaged_engine_cache_blobs",
    "engine_cache_blobs",
    "memory_desc_args",
    "memory_descs",
    "status_codes",
]

_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1
_UINT32 = 2**32
_KNOWN_CODES = frozenset(int(s) for s in Status)


# --- status codes --------------------------------------------------------------


def status_codes(
    *, known: bool = True, unknown: bool = True, success: bool = False, unsigned: bool | None = None
) -> st.SearchStrategy[int]:
    """``dnnl_status_t`` values: known codes as :class:`~dnnl_interop.Status`
    members, unknown ones as plain ints.

    ``success`` adds ``Status.SUCCESS`` (left out by default: most tests want
    a failure). Unknown codes are the other int32 values, as C sees them
    (``unsigned=False``), as cffi reads them from a ``dnnl_status_t``, an
    enum with non-negative values, so ``-1`` arrives as ``2**32 - 1``
    (``unsigned=True``, also what an ``ffi.callback`` returning
    ``dnnl_status_t`` must return), or either (``None``).
    """
    if not (known or unknown):
        raise ValueError("status_codes: known and unknown cannot both be False")
    parts: list[st.SearchStrategy[int]] = []
    if known:
        parts.append(st.sampled_from([s for s in Status if success or s is not Status.SUCCESS]))
    if unknown:
        int32 = st.one_of(
            st.just(len(Status)),  # the first code after the known ones
            st.integers(_INT32_MIN, _INT32_MAX).filter(lambda code: code not in _KNOWN_CODES),
        )
        if unsigned is None:
            int32 = st.tuples(int32, st.booleans()).map(lambda pair: pair[0] % _UINT32 if pair[1] else pair[0])
        elif unsigned:
            int32 = int32.map(lambda code: code % _UINT32)
        parts.append(int32)
    return st.one_of(parts)


# --- memory descriptors ----------------------------------------------------------

# Data types oneDNN 3.13 makes memory descriptors of: dnnl_memory_desc_create_*
# refuses boolean and f4_e3m0 (graph-only types), undef means none.
_REFUSED_TYPES = ("UNDEF", "BOOLEAN", "F4_E3M0")
# Sub-byte types need even strides outside the innermost dimension; even
# dimensions give that in any layout (block sizes are even too).
_SUB_BYTE_TYPES = ("S4", "U4", "F4_E2M1")
_NUMPY_NAMES = {"F16": "float16", "F32": "float32", "F64": "float64", "S8": "int8", "U8": "uint8",
                "S32": "int32", "S64": "int64"}
_LETTERS = "abcdefghijkl"


@dataclass(frozen=True)
class MemoryDescArgs:
    """Arguments for :class:`~dnnl_interop.MemoryDesc`: ``MemoryDesc(shape,
    dtype, tag)`` or ``MemoryDesc(shape, dtype, strides=strides)``.

    Valid ones make a descriptor (:meth:`make`). Invalid ones (from
    ``memory_desc_args(invalid=True)``) say what the constructor must do
    with them: raise ``error`` with a message that starts with ``argument``
    (``"shape[1]"``, ``"tag"``, ``"strides"``, ...), the argument at fault.
    """

    shape: object
    dtype: object
    tag: object = None
    strides: object = None
    error: type[Exception] | None = None
    argument: str | None = None

    @property
    def valid(self) -> bool:
        return self.error is None

    def make(self) -> MemoryDesc:
        """The descriptor (or, for invalid arguments, the exception ``error``)."""
        from ..core import MemoryDesc

        return MemoryDesc(self.shape, self.dtype, self.tag, strides=self.strides)  # type: ignore[arg-type]


def _tag_rank(tag: str) -> int | None:
    """Dimensions a tag in oneDNN's letter notation lays out, None for named tags ("nchw")."""
    letters = {ch.lower() for ch in tag if ch.isalpha()}
    if not letters or not letters <= set(_LETTERS):
        return None
    return len(letters)


def _tags_by_rank() -> dict[int, list[str]]:
    from .. import core

    by_rank: dict[int, list[str]] = {}
    for tag in core.format_tags():
        rank = _tag_rank(tag)
        if rank is not None and tag != "any":
            by_rank.setdefault(rank, []).append(tag)
    return by_rank


def _dtype_forms(name: str) -> st.SearchStrategy[object]:
    """The ways MemoryDesc accepts one data type: the enum, its name in either case, numpy's."""
    from ..core import DataType

    forms: list[object] = [DataType[name], name.lower(), name]
    numpy_name = _NUMPY_NAMES.get(name)
    if numpy_name is not None:
        forms.append(numpy_name)
        try:
            import numpy
        except ImportError:
            pass
        else:
            forms.append(numpy.dtype(numpy_name))
    return st.sampled_from(forms)


@st.composite
def _strides(draw: st.DrawFn, dims: list[int]) -> list[int]:
    """Strides in elements of a layout oneDNN takes: the axes in any order,
    each stride at least the next inner one times its dimension (gaps allowed)."""
    strides = [0] * len(dims)
    step = draw(st.integers(1, 3))  # more than 1: every other element, ...
    for axis in reversed(draw(st.permutations(range(len(dims))))):
        strides[axis] = step
        step = step * max(dims[axis], 1) + draw(st.integers(0, 2))
    return strides


@st.composite
def _valid_memory_desc_args(draw: st.DrawFn, max_dims: int, max_side: int, layout: str | None) -> MemoryDescArgs:
    from ..core import DataType

    by_rank = _tags_by_rank()
    rank = draw(st.integers(1, max_dims).filter(lambda r: r in by_rank))
    by_strides = draw(st.booleans()) if layout is None else layout == "strides"
    names = [t.name for t in DataType if t.name not in _REFUSED_TYPES]
    name = draw(st.sampled_from([n for n in names if not (by_strides and n in _SUB_BYTE_TYPES)]))
    sides = st.integers(0, max_side)
    if name in _SUB_BYTE_TYPES:
        sides = sides.map(lambda side: side - side % 2)
    dims = draw(st.lists(sides, min_size=rank, max_size=rank))
    container = draw(st.sampled_from([tuple, list]))
    dtype = draw(_dtype_forms(name))
    if by_strides:
        return MemoryDescArgs(container(dims), dtype, strides=container(draw(_strides(dims))))
    return MemoryDescArgs(container(dims), dtype, draw(st.sampled_from(by_rank[rank])))


_TAG_FAULTS = ("tag not a str", "unknown tag", "tag of another rank")
_STRIDES_FAULTS = ("strides not a sequence", "strides of another length", "stride not an int", "negative stride",
                   "tag and strides")


@st.composite
def _invalid_memory_desc_args(draw: st.DrawFn, max_dims: int, max_side: int, layout: str | None) -> MemoryDescArgs:
    """One argument wrong, the others valid: the argument named is the one at fault."""
    good = draw(_valid_memory_desc_args(max_dims, max_side, layout))
    dims = list(good.shape)  # type: ignore[call-overload]
    rank = len(dims)
    at = draw(st.integers(0, rank - 1))
    by_rank = _tags_by_rank()
    fault = draw(st.sampled_from([
        "shape not a sequence", "dimension not an int", "negative dimension", "dimension too large",
        "no dimensions", "too many dimensions", "dtype without a oneDNN type", "dtype not a type",
        *(_STRIDES_FAULTS if good.strides is not None else _TAG_FAULTS),
    ]))
    shape, dtype, tag, strides = good.shape, good.dtype, good.tag, good.strides
    error: type[Exception] = ValueError
    argument = f"shape[{at}]"
    if fault == "shape not a sequence":
        shape, error, argument = draw(st.sampled_from([None, 3, 2.5])), TypeError, "shape"
    elif fault == "dimension not an int":
        dims[at] = draw(st.sampled_from([True, 2.0, "2", None, b"2"]))
        shape, error = tuple(dims), TypeError
    elif fault == "negative dimension":
        dims[at] = draw(st.integers(_INT32_MIN, -1))
        shape = tuple(dims)
    elif fault == "dimension too large":
        dims[at] = draw(st.integers(2**62, 2**64))
        shape = tuple(dims)
    elif fault == "no dimensions":
        shape, argument = (), "shape"
    elif fault == "too many dimensions":
        shape, argument = (1,) * draw(st.integers(13, 20)), "shape"  # DNNL_MAX_NDIMS is 12
    elif fault == "tag not a str":
        tag, error, argument = draw(st.sampled_from([None, 1, b"ab"])), TypeError, "tag"
    elif fault == "unknown tag":
        tag, argument = draw(st.sampled_from(["", "ab ", "ABC", "nchw16", "xyz"])), "tag"
    elif fault == "tag of another rank":
        tag = draw(st.sampled_from([t for r, tags in by_rank.items() if r != rank for t in tags]))
        argument = "tag"
    elif fault == "dtype without a oneDNN type":
        dtype, error, argument = draw(st.sampled_from(["complex64", "float128", "str", "U4x"])), TypeError, "dtype"
    elif fault == "dtype not a type":
        dtype, error, argument = draw(st.sampled_from([None, 1, 2.0, True])), TypeError, "dtype"
    elif fault == "strides not a sequence":
        strides, error, argument = draw(st.sampled_from([3, 2.5, "ab", b"\x01"])), TypeError, "strides"
    elif fault == "strides of another length":
        count = draw(st.integers(0, 13).filter(lambda n: n != rank))
        strides, argument = (1,) * count, "strides"
    elif fault == "stride not an int":
        wrong = list(strides)  # type: ignore[call-overload]
        wrong[at] = draw(st.sampled_from([True, 2.0, "2", None]))
        strides, error, argument = tuple(wrong), TypeError, f"strides[{at}]"
    elif fault == "negative stride":
        wrong = list(strides)  # type: ignore[call-overload]
        wrong[at] = draw(st.integers(_INT32_MIN, -1))
        strides, argument = tuple(wrong), f"strides[{at}]"
    else:  # a tag as well as strides
        tag, error, argument = draw(st.sampled_from(by_rank[rank])), TypeError, "tag"
    return MemoryDescArgs(shape, dtype, tag, strides, error, argument)


def memory_desc_args(
    *, max_dims: int = 4, max_side: int = 16, layout: Literal["tag", "strides"] | None = None,
    invalid: bool = False,
) -> st.SearchStrategy[MemoryDescArgs]:
    """Arguments :class:`~dnnl_interop.MemoryDesc` accepts: a shape of 1 to
    ``max_dims`` dimensions of 0 to ``max_side`` (a tuple or a list), a data
    type in any form it takes (``DataType.F32``, ``"f32"``, ``"F32"``,
    ``"float32"``, ``numpy.dtype``), and a layout (``layout``: either
    unless given): a format tag in oneDNN's letter notation of that many
    dimensions, plain (``"acb"``) or blocked (``"aBc16b"``), or strides in
    elements, the axes in any order, dense or with gaps.

    The data types are all those oneDNN 3.13 makes descriptors of, which it
    does on any machine; which of them a primitive computes with depends on
    the engine (oneDNN's CPU engine computes bf16 and f16 only on CPUs with
    AVX-512 or AVX2-VNNI-2): a property that makes primitives from these
    descriptors must expect ``UnimplementedError`` or draw its types itself.

    With ``invalid=True``: argument sets with exactly one argument wrong
    (a negative or non-int dimension or stride, a tag of another rank or
    unknown, strides of another length, a tag and strides, a dtype oneDNN
    has no type for, ...); see :class:`MemoryDescArgs`.
    """
    if layout not in (None, "tag", "strides"):
        raise ValueError(f"layout: expected 'tag', 'strides' or None, got {layout!r}")
    if not 1 <= max_dims <= 12:
        raise ValueError(f"max_dims: a memory descriptor has 1 to 12 dimensions, not {max_dims}")
    if max_side < 0:
        raise ValueError(f"max_side: must be 0 or more, not {max_side}")
    if invalid:
        return _invalid_memory_desc_args(max_dims, max_side, layout)
    return _valid_memory_desc_args(max_dims, max_side, layout)


def memory_descs(*, max_dims: int = 4, max_side: int = 16) -> st.SearchStrategy[MemoryDesc]:
    """:class:`~dnnl_interop.MemoryDesc` objects made from :func:`memory_desc_args` (loads oneDNN)."""
    return memory_desc_args(max_dims=max_dims, max_side=max_side).map(MemoryDescArgs.make)


# --- blob ids and engine cache blobs -------------------------------------------

_SIZE_T = struct.Struct("@N")
_THREE_INTS = struct.Struct("@3i")
# Names as drivers report them, in UTF-8 (never a NUL). Characters are sampled:
# st.text and st.characters build Hypothesis's Unicode tables in every fresh
# directory (up to seconds on a loaded machine, failing its too_slow check).
_NAME_CHARACTERS = string.ascii_letters + string.digits + string.punctuation + " \t" + "®™µéü—中"
_names = st.lists(st.sampled_from(_NAME_CHARACTERS), max_size=48).map(lambda chars: "".join(chars).encode())
_hashes = st.one_of(st.just(b""), st.binary(min_size=20, max_size=20).map(lambda digest: digest.hex().encode()))
_int32s = st.integers(_INT32_MIN, _INT32_MAX)


def _counted(data: bytes) -> bytes:
    return _SIZE_T.pack(len(data)) + data


@st.composite
def _blob_id(draw: st.DrawFn, runtime: str) -> bytes:
    version = _THREE_INTS.pack(*draw(st.tuples(_int32s, _int32s, _int32s)))
    if runtime == "ocl":  # platform, device and driver version, each with its NUL
        head = b"".join(_counted(draw(_names) + b"\0") for _ in range(3))
    else:  # device name without its NUL, driver version with it
        head = _counted(draw(_names)) + _counted(draw(_names) + b"\0")
    return head + version + _counted(draw(_hashes))


def blob_ids(runtime: Literal["ocl", "ze"] | None = None) -> st.SearchStrategy[bytes]:
    """Engine cache blob ids laid out as oneDNN 3.13 writes them (native-endian)::

        ocl: [size_t n][platform\\0] [size_t n][device\\0] [size_t n][driver version\\0]
             int major, minor, patch  [size_t n][git hash]
        ze:  [size_t n][device] [size_t n][driver version\\0] int major, minor, patch [size_t n][git hash]

    Names are any text without NUL; the hash is 40 hex digits or empty (a
    build without one). ``runtime=None`` draws either layout.
    """
    if runtime not in (None, "ocl", "ze"):
        raise ValueError(f"runtime: expected 'ocl', 'ze' or None, got {runtime!r}")
    if runtime is None:
        return st.one_of(_blob_id("ocl"), _blob_id("ze"))
    return _blob_id(runtime)


# The engine cache blob of 3.13 (src/gpu/intel/compute/device_info.cpp),
# little-endian like the x86 machines that write it: int gpu_arch, bool
# has_product [+ 3 ints of the product], then these fields, then the name.
_ENGINE_FIELDS = ("<I", "<3i", "<3i", "<i", "<4Q", "<I", "<3Q")
_ENGINE_BOOLS = 5
_NAME_LENGTH = struct.Struct("<Q")


def _packed(draw: st.DrawFn, fmt: str) -> bytes:
    """``fmt`` ("<3i", "<4Q", ...) packed with any values of its types."""
    count, code = int(fmt[1:-1] or 1), fmt[-1]
    bits = 8 * struct.calcsize("<" + code)
    low, high = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if code.islower() else (0, 2**bits - 1)
    return struct.pack(fmt, *draw(st.lists(st.integers(low, high), min_size=count, max_size=count)))


@st.composite
def _engine_blob_parts(draw: st.DrawFn) -> tuple[bytes, int, list[int]]:
    """(blob, offset of its name length, offsets of its bool bytes)."""
    has_product = draw(st.booleans())
    body = struct.pack("<i?", draw(_int32s), has_product)
    bools = [4]  # the has-product flag
    if has_product:
        body += _packed(draw, "<3i")
    for fmt in _ENGINE_FIELDS:
        body += _packed(draw, fmt)
    bools += [len(body) + i for i in range(_ENGINE_BOOLS)]
    body += bytes(draw(st.lists(st.integers(0, 1), min_size=_ENGINE_BOOLS, max_size=_ENGINE_BOOLS)))
    name = draw(_names)
    return body + _NAME_LENGTH.pack(len(name)) + name, len(body), bools


def engine_cache_blobs() -> st.SearchStrategy[bytes]:
    """Engine cache blobs laid out as oneDNN 3.13 serializes a GPU's device
    description: the fields of ../INTEROP_SPEC §6 with any values, bools 0 or
    1, and a name. They are well-formed, not real: oneDNN would take one for
    whatever device it describes (keying blobs by their id is what prevents
    that; ``CacheBlobStore`` does)."""
    return _engine_blob_parts().map(lambda parts: parts[0])


@st.composite
def _damaged_engine_blob(draw: st.DrawFn) -> bytes:
    blob, name_at, bools = draw(_engine_blob_parts())
    kind = draw(st.sampled_from(["truncated", "extended", "flag not a bool", "name length changed"]))
    if kind == "truncated":
        return blob[: draw(st.integers(0, len(blob) - 1))]
    if kind == "extended":
        return blob + draw(st.binary(min_size=1, max_size=64))
    data = bytearray(blob)
    if kind == "flag not a bool":
        data[draw(st.sampled_from(bools))] = draw(st.integers(2, 255))
        return bytes(data)
    (length,) = _NAME_LENGTH.unpack_from(data, name_at)
    wrong = draw(st.one_of(st.integers(0, 2**64 - 1), st.integers(max(0, length - 3), length + 3)))
    _NAME_LENGTH.pack_into(data, name_at, wrong if wrong != length else length + 1)
    return bytes(data)


def damaged_engine_cache_blobs() -> st.SearchStrategy[bytes]:
    """:func:`engine_cache_blobs` broken in one of the ways that make oneDNN
    3.13 read past the end or abort: truncated, extended, a bool that is not 0
    or 1, a name length that does not match (up to 2**64 - 1, the
    ``std::bad_alloc`` case). Every one is malformed, not merely foreign."""
    return _damaged_engine_blob()


# --- cache store files -------------------------------------------------------------

_PREFIX = struct.Struct("<8sHBBIQ")  # magic, version, runtime, flags, key length, blob length
_RUNTIME_CODES = {"ocl": 1, "ze": 2}
# An oversize entry is written whole up to this size, else as a header claiming it.
_WHOLE_OVERSIZE_LIMIT = 1 << 20

DAMAGE_KINDS = (
    "truncated",
    "extended",
    "bit-flipped",
    "wrong magic",
    "wrong version",
    "wrong runtime",
    "wrong flags",
    "wrong lengths",
    "bad checksum",
    "foreign key",
    "foreign runtime",
    "oversize",
    "random bytes",
    "spliced",
)


def cache_entry(
    runtime: str, key: bytes, blob: bytes, *, magic: bytes = cache.MAGIC, version: int = cache.FORMAT_VERSION,
    runtime_code: int | None = None, flags: int = 0, key_size: int | None = None, blob_size: int | None = None,
) -> bytes:
    """The bytes of a ``CacheBlobStore`` entry file (its documented format),
    with a checksum that matches whatever fields are given: sound unless a
    field is overridden."""
    prefix = _PREFIX.pack(
        magic, version, _RUNTIME_CODES[runtime] if runtime_code is None else runtime_code, flags,
        len(key) if key_size is None else key_size, len(blob) if blob_size is None else blob_size,
    )
    return prefix + hashlib.sha256(prefix + key + blob).digest() + key + blob


@dataclass(frozen=True)
class DamagedCacheFile:
    """Content for the entry file of ``(runtime, key)`` that a store must treat
    as a miss (and remove): ``content`` is not the sound entry of ``runtime``,
    ``key`` and any blob. ``blob`` is what the sound entry it was made from holds."""

    kind: str
    runtime: str
    key: bytes
    blob: bytes
    content: bytes


def _other_key(rng: random.Random, key: bytes) -> bytes:
    candidates = [key + rng.randbytes(1), rng.randbytes(len(key))]
    if len(key) > 1:
        candidates.append(key[:-1])
    other = rng.choice(candidates)
    return other if other != key else key + b"\0"


def _with_field(valid: bytes, offset: int, data: bytes) -> bytes:
    return valid[:offset] + data + valid[offset + len(data):]


def damage_cache_file(
    rng: random.Random, runtime: str, key: bytes, blob: bytes, kind: str,
    *, max_blob_size: int = cache.DEFAULT_MAX_BLOB_SIZE,
) -> DamagedCacheFile:
    """The entry file of ``(runtime, key, blob)`` damaged as ``kind`` says (one
    of :data:`DAMAGE_KINDS`), random choices from ``rng``.

    Header fields are changed with the checksum recomputed, so that only the
    field is wrong; "foreign key"/"foreign runtime" are sound entries of
    another key or runtime; "oversize" declares a blob longer than
    ``max_blob_size`` (written whole when that stays under 1 MiB); "spliced"
    is this entry's start and another's end. A plain function, so a seeded
    loop can make thousands; :func:`damaged_cache_files` draws them.
    """
    if runtime not in _RUNTIME_CODES:
        raise ValueError(f"runtime: expected 'ocl' or 'ze', got {runtime!r}")
    if not key or not blob:
        raise ValueError("key and blob: must not be empty (a store never writes such an entry)")
    if kind not in DAMAGE_KINDS:
        raise ValueError(f"kind: expected one of {DAMAGE_KINDS}, got {kind!r}")
    valid = cache_entry(runtime, key, blob)
    data = bytearray(valid)
    content: bytes
    if kind == "truncated":
        content = valid[: rng.randrange(len(valid))]
    elif kind == "extended":
        content = valid + rng.randbytes(rng.randint(1, 64))
    elif kind == "bit-flipped":
        for position in rng.sample(range(8 * len(valid)), rng.randint(1, 3)):
            data[position // 8] ^= 1 << position % 8
        content = bytes(data)
    elif kind == "wrong magic":
        magic = rng.choice([bytes(8), rng.randbytes(8), cache.MAGIC[:-1] + b"\r"])
        content = cache_entry(runtime, key, blob, magic=magic if magic != cache.MAGIC else b"DNNLCB\0\0")
    elif kind == "wrong version":
        version = rng.choice([0, 2, 0xFFFF, rng.randrange(2, 0x10000)])
        content = cache_entry(runtime, key, blob, version=version)
    elif kind == "wrong runtime":
        content = cache_entry(runtime, key, blob, runtime_code=rng.choice([0, 3, 255, rng.randrange(3, 256)]))
    elif kind == "wrong flags":
        content = cache_entry(runtime, key, blob, flags=rng.randrange(1, 256))
    elif kind == "wrong lengths":
        if rng.random() < 0.5:
            key_size = rng.choice([0, len(key) - 1, len(key) + 1, rng.randrange(2**32)])
            content = cache_entry(runtime, key, blob, key_size=key_size if key_size != len(key) else 0)
        else:
            blob_size = rng.choice([0, len(blob) - 1, len(blob) + 1, rng.randrange(2**64)])
            content = cache_entry(runtime, key, blob, blob_size=blob_size if blob_size != len(blob) else 0)
    elif kind == "bad checksum":
        digest = rng.randbytes(32)
        content = _with_field(valid, _PREFIX.size, digest if digest != valid[_PREFIX.size:cache.HEADER_SIZE]
                              else bytes(32))
    elif kind == "foreign key":
        content = cache_entry(runtime, _other_key(rng, key), blob)
    elif kind == "foreign runtime":
        content = cache_entry("ze" if runtime == "ocl" else "ocl", key, blob)
    elif kind == "oversize":
        size = max_blob_size + rng.randint(1, 16)
        if size <= _WHOLE_OVERSIZE_LIMIT:
            content = cache_entry(runtime, key, rng.randbytes(size))
        else:
            content = cache_entry(runtime, key, blob, blob_size=size)
    elif kind == "random bytes":
        content = rng.randbytes(rng.randrange(2 * len(valid)))
    else:  # spliced: the start of this entry, the end of another's
        other = cache_entry(rng.choice(["ocl", "ze"]), _other_key(rng, key), rng.randbytes(len(blob) + 1))
        content = valid[: rng.randrange(len(valid))] + other[rng.randrange(len(other)):]
    if _is_sound_entry(content, runtime, key, max_blob_size):  # chance (random bytes, splices): damage it
        content = content[:-1]
    return DamagedCacheFile(kind, runtime, key, blob, content)


def _is_sound_entry(content: bytes, runtime: str, key: bytes, max_blob_size: int) -> bool:
    blob_size = len(content) - cache.HEADER_SIZE - len(key)
    return 1 <= blob_size <= max_blob_size and content == cache_entry(runtime, key, content[-blob_size:])


@st.composite
def _damaged_cache_file(
    draw: st.DrawFn, runtimes: st.SearchStrategy[str], keys: st.SearchStrategy[bytes],
    blobs: st.SearchStrategy[bytes], kinds: Sequence[str], max_blob_size: int,
) -> DamagedCacheFile:
    runtime, key, blob = draw(runtimes), draw(keys), draw(blobs)
    rng = draw(st.randoms(use_true_random=False))
    return damage_cache_file(rng, runtime, key, blob, draw(st.sampled_from(kinds)), max_blob_size=max_blob_size)


def damaged_cache_files(
    *, runtime: str | None = None, key: bytes | None = None, blob: bytes | None = None,
    kinds: Sequence[str] = DAMAGE_KINDS, max_blob_size: int = cache.DEFAULT_MAX_BLOB_SIZE,
) -> st.SearchStrategy[DamagedCacheFile]:
    """Damaged entry files for a ``CacheBlobStore`` (see :func:`damage_cache_file`):
    write ``content`` at ``store.path_for(runtime, key)``, and ``store.get``
    must miss. ``runtime``, ``key`` and ``blob`` are drawn unless given (keys
    include blob ids); ``kinds`` narrows :data:`DAMAGE_KINDS`; give the
    store's ``max_blob_size`` so that "oversize" exceeds it."""
    unknown = [k for k in kinds if k not in DAMAGE_KINDS]
    if unknown or not kinds:
        raise ValueError(f"kinds: expected some of {DAMAGE_KINDS}, got {list(kinds)!r}")
    if runtime not in (None, *_RUNTIME_CODES):
        raise ValueError(f"runtime: expected 'ocl', 'ze' or None, got {runtime!r}")
    runtimes = st.sampled_from(["ocl", "ze"]) if runtime is None else st.just(runtime)
    keys = st.one_of(st.binary(min_size=1, max_size=64), blob_ids()) if key is None else st.just(bytes(key))
    blobs = st.binary(min_size=1, max_size=512) if blob is None else st.just(bytes(blob))
    return _damaged_cache_file(runtimes, keys, blobs, tuple(kinds), max_blob_size)


def __dir__() -> list[str]:
    return sorted(__all__)
