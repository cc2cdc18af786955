"""What every primitive kind shares: one creator that makes the C descriptor through
oneDNN, explains a refusal, and adopts the result; and the checks of the arguments kinds share.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, NoReturn

from .._attr import PrimitiveAttr, quantized_arguments
from .._engine import Engine, engine_in_words
from .._enums import AlgKind, PropKind, Query
from .._ffi import ffi, lib
from .._library import status_error, version
from .._memory_desc import MemoryDesc
from .._owned import closed_error, using
from .._primitive import PrimitiveDesc, open_desc
from .._refusals import explain
from .._validate import count_argument, enum_argument
from ..errors import DnnlError, MissingFunctionError, Status, make_error

if TYPE_CHECKING:
    from .._ffi import CData


logger = logging.getLogger("dnnl_interop")

_INFERENCE = PropKind.FORWARD_INFERENCE
_FORWARD_KINDS = (PropKind.FORWARD_INFERENCE, PropKind.FORWARD_TRAINING)
# A descriptor argument: (the object given, its name, whether None is allowed).
_Desc = tuple[object, str, bool]


def _prop_kind(value: object) -> PropKind:
    kind = enum_argument(value, PropKind, "prop_kind")
    if kind not in _FORWARD_KINDS:
        raise ValueError(f"prop_kind: {kind.name} is not a forward propagation (FORWARD_INFERENCE or FORWARD_TRAINING)")
    return kind


def _c_int(value: object, what: str) -> int:
    """A non-negative int that fits the C ``int`` oneDNN takes (an axis, a dimension)."""
    value = count_argument(value, what)
    if value >= 2**31:
        raise ValueError(f"{what}: {value} does not fit a C int")
    return value


def _algorithm(value: object, family: str, kind: str) -> AlgKind:
    """``value`` as an AlgKind of the primitive's ``family`` (the prefix of its members' names):
    oneDNN refuses another primitive's with a bare INVALID_ARGUMENTS that names nothing."""
    alg = enum_argument(value, AlgKind, "algorithm")
    if not alg.name.startswith(family):
        raise ValueError(f"algorithm: {alg.name} is not a {kind} algorithm (AlgKind.{family}*)")
    return alg


# padding_r may be negative: the last rows of src that no window reaches (a stride-2 1x1
# convolution of an even size, as oneDNN's own tests make); oneDNN checks the rest.
_MIN_PADDING_R = -(2**62) + 1


def _dims(values: object, what: str, count: int, minimum: int = 0) -> CData:
    """``values`` as a ``dnnl_dims_t`` of ``count`` ints, each ``minimum`` or more."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise TypeError(f"{what}: expected a sequence of {count} ints, got {type(values).__name__}")
    if len(values) != count:
        raise ValueError(f"{what}: {len(values)} values for {count} spatial dimensions")
    found = []
    for i, value in enumerate(values):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{what}[{i}]: expected an int, got {type(value).__name__}")
        if not minimum <= value < 2**62:
            raise ValueError(f"{what}[{i}]: {value} is not from {minimum} to 2**62 - 1")
        found.append(value)
    return ffi.new("dnnl_dims_t", found)


def _spatial(desc: object, what: str) -> int:
    """How many spatial dimensions a (batch, channels, spatial...) descriptor has."""
    if not isinstance(desc, MemoryDesc):
        raise TypeError(f"{what}: expected a dnnl_interop.MemoryDesc, got {type(desc).__name__}")
    if desc.ndim < 3:
        raise ValueError(f"{what}: {desc!r} has no spatial dimension (batch, channels, then 1 to 3 spatial ones)")
    return desc.ndim - 2


def _descs_list(descs: object, what: str) -> list[MemoryDesc]:
    if isinstance(descs, MemoryDesc) or not isinstance(descs, Sequence) or not descs:
        raise TypeError(f"{what}: expected a non-empty sequence of dnnl_interop.MemoryDesc, got {type(descs).__name__}")
    for i, desc in enumerate(descs):
        if not isinstance(desc, MemoryDesc):
            raise TypeError(f"{what}[{i}]: expected a dnnl_interop.MemoryDesc, got {type(desc).__name__}")
    return list(descs)


# The C++ class of each kind, for messages.
_CPP_NAMES = {
    "inner product": "inner_product_forward", "convolution": "convolution_forward",
    "deconvolution": "deconvolution_forward", "eltwise": "eltwise_forward", "softmax": "softmax_forward",
    "pooling": "pooling_forward", "batch normalization": "batch_normalization_forward",
    "layer normalization": "layer_normalization_forward", "group normalization": "group_normalization_forward",
    "resampling": "resampling_forward", "prelu": "prelu_forward", "shuffle": "shuffle_forward",
    "lrn": "lrn_forward",
}


class _Kind(PrimitiveDesc):
    """What the kinds share: making the C descriptor and reading back what oneDNN chose."""

    __slots__ = ()
    _kind = ""  # the primitive's name in messages
    _cpp = ""  # the C++ class in messages, when not the forward one _CPP_NAMES gives for _kind

    @classmethod
    def _cpp_name(cls) -> str:
        return cls._cpp or _CPP_NAMES.get(cls._kind, cls._kind)

    def __new__(cls, *args: object, **kwargs: object) -> _Kind:
        # Before __init__ binds the arguments: a kind called without its engine
        # would otherwise be told of a missing last argument instead.
        if args and not isinstance(args[0], Engine) and "engine" not in kwargs:
            raise TypeError(
                f"engine: expected a dnnl_interop.Engine as the first argument of {cls.__name__}, got "
                f"{type(args[0]).__name__}; the engine comes first, as in C++ "
                f"dnnl::{cls._cpp_name()}::primitive_desc(engine, ...): "
                f"{cls.__name__}(engine, ...)"
            )
        return super().__new__(cls)

    def _create(
        self,
        function: str,
        engine: Engine,
        attr: PrimitiveAttr | None,
        descs: Sequence[_Desc],
        arguments: Callable[..., tuple[object, ...]],
        params: Mapping[str, object] | None = None,
        hint: PrimitiveDesc | None = None,
    ) -> None:
        """``lib.<function>(out, *arguments(c_engine, *c_descs, c_attr))``, then adopt the result.

        ``descs``: the memory descriptors, in the order ``arguments`` takes them
        (None passes NULL where allowed). ``params``: the other arguments by
        name, which explain a refusal (``_refusals``). ``hint``: a backward
        kind's forward descriptor, checked by ``_Backward._checked_hint``;
        ``arguments`` then takes it before the attributes, as oneDNN's
        backward creators do, and the descriptor keeps it.
        """
        self._refuse_reinit()
        if attr is not None and not isinstance(attr, PrimitiveAttr):
            raise TypeError(f"attr: expected a dnnl_interop.PrimitiveAttr or None, got {type(attr).__name__}")
        for desc, what, optional in descs:
            if desc is None and optional:
                continue
            if not isinstance(desc, MemoryDesc):
                raise TypeError(f"{what}: expected a dnnl_interop.MemoryDesc, got {type(desc).__name__}")
        specs: list[tuple[object, type, str]] = [(engine, Engine, "engine")]
        specs += [(desc, MemoryDesc, what) for desc, what, _ in descs if desc is not None]
        if hint is not None:
            specs.append((hint, PrimitiveDesc, "hint_fwd_pd"))
        if attr is not None:
            specs.append((attr, PrimitiveAttr, "attr"))
        out = self._new_out()
        # The hint's lock, until this descriptor holds it: its next_impl (refused once it is
        # held) would free the implementation oneDNN is reading.
        hint_lock = hint._impl_lock if hint is not None else contextlib.nullcontext()  # noqa: SLF001 - next_impl's lock
        with using(*specs) as handles, hint_lock:
            handles = handles if isinstance(handles, tuple) else (handles,)
            found = iter(handles[1:])
            c_descs = [ffi.NULL if desc is None else next(found) for desc, _, _ in descs]
            c_hint = () if hint is None else (next(found),)
            c_attr = next(found) if attr is not None else ffi.NULL
            started = time.perf_counter()
            status = getattr(lib, function)(out, *arguments(handles[0], *c_descs, *c_hint, c_attr))
            if status:
                raise self._refused(status, function, engine, descs, params or {})
            quantized = None if attr is None else quantized_arguments(attr)
            open_desc(self, out[0], (engine,), hint=hint, quantized=quantized, started=started)

    def _refused(
        self, status: int, function: str, engine: Engine, descs: Sequence[_Desc], params: Mapping[str, object]
    ) -> Exception:
        """The error for oneDNN's refusal: with the reason when a check of ``_refusals``
        finds one (run here only, after the refusal: nothing on a creation that succeeds)."""
        error = status_error(status, function)
        if status not in (Status.UNIMPLEMENTED, Status.INVALID_ARGUMENTS) or not isinstance(error, DnnlError) \
                or isinstance(error, MissingFunctionError):
            return error
        given = ", ".join(f"{what}={desc!r}" for desc, what, _ in descs if desc is not None)
        how = "has no implementation of" if status == Status.UNIMPLEMENTED else "refused"
        where = f"oneDNN {how} this {self._kind} on {engine_in_words(engine)}"
        named = {what: desc for desc, what, _ in descs if isinstance(desc, MemoryDesc)}
        reason = explain(self._kind, status, engine.kind, named, params)
        if reason is None:
            return make_error(status, function, f"{where}: {given}")
        return make_error(status, function, f"{where}: {reason} (given {given})", reason)


class _Backward(_Kind):
    """What the backward kinds share: the forward primitive descriptor they are made
    with (``hint_fwd_pd``, as in C++), checked before oneDNN sees it and kept alive
    by the descriptor and its primitives (oneDNN reads it again when a primitive
    is made)."""

    __slots__ = ()
    _forward: type[PrimitiveDesc] = PrimitiveDesc  # the kind whose descriptor is the hint

    def _checked_hint(self, hint_fwd_pd: object, engine: Engine) -> PrimitiveDesc:
        """``hint_fwd_pd`` if it can guide this backward kind: the forward kind's
        descriptor, made for training, on ``engine``; an exception that says why not."""
        forward = self._forward
        cpp = self._cpp_name()
        if not isinstance(hint_fwd_pd, forward):
            raise TypeError(
                f"hint_fwd_pd: expected a dnnl_interop.{forward.__name__} (the forward primitive descriptor of "
                f"this {self._kind}, as dnnl::{cpp}::primitive_desc takes), got {type(hint_fwd_pd).__name__}"
            )
        if hint_fwd_pd.closed:
            raise closed_error(hint_fwd_pd, "hint_fwd_pd")
        if not isinstance(engine, Engine):
            return hint_fwd_pd  # _create names the engine's type
        prop = hint_fwd_pd.query_s32(Query.PROP_KIND)
        if prop != PropKind.FORWARD_TRAINING:
            shown = PropKind(prop).name if prop in PropKind._value2member_map_ else str(prop)
            raise ValueError(
                f"hint_fwd_pd: the forward {self._kind} was made for PropKind.{shown}; a backward pass needs "
                "the forward descriptor of training, whose implementation keeps what the backward one reads "
                f"(statistics, a workspace): make it with prop_kind=PropKind.FORWARD_TRAINING"
            )
        if not _same_engine(hint_fwd_pd, engine):
            held = hint_fwd_pd.engine
            where = "another engine" if held is None else engine_in_words(held)
            raise ValueError(
                f"hint_fwd_pd: the forward {self._kind} was made on {where}, not on this descriptor's engine "
                f"({engine_in_words(engine)}); make the forward and backward descriptors on one engine"
            )
        return hint_fwd_pd


def _same_engine(desc: PrimitiveDesc, engine: Engine) -> bool:
    """Whether ``desc`` was made on ``engine`` (compared by handle for an adopted descriptor)."""
    held = desc.engine
    if held is not None:
        return held is engine
    out = ffi.new("dnnl_engine_t *")
    with using((desc, PrimitiveDesc, "hint_fwd_pd"), (engine, Engine, "engine")) as (pd, c_engine):
        status = lib.dnnl_primitive_desc_query(pd, lib.dnnl_query_engine, 0, out)
        return status == 0 and out[0] == c_engine


def _refuse_known_bug(desc: PrimitiveDesc, function: str, reason: str) -> NoReturn:
    """Close ``desc``, which oneDNN made but would compute wrongly (a bug of its, named in
    ``reason``), and raise ``UnimplementedError`` from ``function`` with ``reason``."""
    desc.close()
    raise make_error(Status.UNIMPLEMENTED, function, reason, reason)


def _refuse_diff_bias_with_gaps(desc: PrimitiveDesc, function: str) -> None:
    """Never a backward weights primitive that writes its bias's gradient as if packed.

    oneDNN up to 3.13 (seen in 3.13.2) writes ``diff_bias`` as a packed vector,
    whatever its strides, in the implementations it chooses for convolution,
    deconvolution and inner product backward weights (seen: "gemm:jit" and
    "conv:any+ref:any" on the CPU engine, its OpenCL kernels on the emulated
    GPU): into a diff_bias with gaps between its elements it overwrites the gaps
    and leaves elements unwritten. Only its CPU reference implementation
    ("ref:any") was seen to write through the strides. ``desc`` is closed and
    ``UnimplementedError`` raised everywhere else.
    """
    found = version()
    if (found.major, found.minor) > (3, 13) or desc.impl_info == "ref:any":
        return
    bias = desc.diff_bias_desc()
    if bias is None:
        return
    with bias:
        strides = bias.strides
        if strides is None or bias.ndim != 1 or bias.shape[0] < 2 or strides[0] == 1:
            return
        shown, count = repr(bias), bias.shape[0]
    reason = (
        f"diff_bias_desc: {shown} leaves gaps between its elements, and the implementation oneDNN "
        f"{found.number} chose ({desc.impl_info}) writes the bias's gradient as if packed (oneDNN bug: it "
        f"overwrites the gaps and leaves elements unwritten); give a dense diff_bias_desc (a contiguous "
        f"({count},) array, or 'any') and copy the result into place"
    )
    _refuse_known_bug(desc, function, reason)
