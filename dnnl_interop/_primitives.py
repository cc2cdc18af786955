"""The forward primitives: a :class:`PrimitiveDesc` kind for each, as oneDNN's
C++ ``dnnl::<primitive>::primitive_desc``.

Each takes the arguments of the C++ constructor without its optional ones,
in its order, engine first; the optional ones are keywords (``bias_desc``,
``attr``, ``dilates``, ...) with the defaults a Python user expects: forward
inference, direct convolution. Memory descriptors may be "any"
(``MemoryDesc(shape, dtype, "any")``): the descriptor then answers the layout
oneDNN chose (``pd.src_desc()``, ``pd.weights_desc()``, ...), and
``dnnl_interop.reordered`` brings a memory into it. ``Primitive(pd)`` makes
the primitive; ``make_primitive_cached(pd)`` makes it through the cache-blob
store.

oneDNN copies every descriptor and the attributes: they may be closed once
the primitive descriptor is made.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from ._attr import PrimitiveAttr, _float
from ._engine import Engine, engine_in_words
from ._enums import AlgKind, DataType, EngineKind, FormatKind, NormalizationFlags, PropKind
from ._ffi import ffi, lib
from ._library import status_error, version
from ._memory_desc import MemoryDesc
from ._owned import using
from ._primitive import PrimitiveDesc, _exec_args, _set_args, log_creation
from ._refusals import explain
from ._validate import count_argument, data_type, enum_argument
from .errors import DnnlError, MissingFunctionError, Status, make_error

if TYPE_CHECKING:
    from ._ffi import CData

__all__ = [
    "MatmulDesc",
    "InnerProductForwardDesc",
    "ConvolutionForwardDesc",
    "DeconvolutionForwardDesc",
    "EltwiseForwardDesc",
    "SoftmaxForwardDesc",
    "BinaryDesc",
    "PoolingForwardDesc",
    "BatchNormalizationForwardDesc",
    "LayerNormalizationForwardDesc",
    "GroupNormalizationForwardDesc",
    "ReductionDesc",
    "ResamplingForwardDesc",
    "ConcatDesc",
    "SumDesc",
    "PReLUForwardDesc",
    "ShuffleForwardDesc",
    "LRNForwardDesc",
]

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


def _has_gaps(desc: MemoryDesc) -> bool:
    """Whether ``desc`` is a plain layout whose elements leave gaps: the buffer it spans
    (last element's offset + 1) holds more elements than the shape has."""
    strides = desc.strides
    if strides is None or 0 in desc.shape:
        return False
    span = 1 + sum((n - 1) * stride for n, stride in zip(desc.shape, strides, strict=True))
    return span > math.prod(desc.shape)


def _int8_gemm_jit(desc: PrimitiveDesc) -> bool:
    """Whether oneDNN chose its "gemm:jit" implementation (the one CPUs without VNNI get)
    for s8/u8 sources, in a oneDNN up to 3.13 (the versions bugs K and L are seen in)."""
    if desc.impl_info != "gemm:jit":
        return False
    found = version()
    if (found.major, found.minor) > (3, 13):
        return False
    src = desc.src_desc()
    if src is None:
        return False
    with src:
        return src.data_type in (DataType.S8, DataType.U8)


def _memory_order(desc: MemoryDesc) -> list[int]:
    """The dimensions after the first that have more than one element, outermost in memory first."""
    strides = desc.strides
    assert strides is not None
    axes = [axis for axis in range(1, desc.ndim) if desc.shape[axis] > 1]
    return sorted(axes, key=lambda axis: -strides[axis])


def _tag_in_order(ndim: int, order: Sequence[int]) -> str:
    """The plain tag ('acb', ...) with dimension 0 outermost, then ``order``, then the rest."""
    rest = [axis for axis in range(1, ndim) if axis not in order]
    return "".join("abcdefghijkl"[axis] for axis in (0, *order, *rest))


def _with_dense_lone_element(src1_desc: object, dst_desc: object) -> MemoryDesc | None:
    """The descriptor that describes the element of a one-element ``src1_desc`` with a
    stride above 1 as the dense ``(1,)`` one does, for an s8/u8 dst; None otherwise.

    oneDNN 3.11 and 3.13 crash making such a binary (seen with every source data type,
    when src0 and dst are dense and have more than one element). The two descriptors
    address the same single element, and oneDNN compares them equal (it ignores the
    stride of a dimension of one element), so a memory of the user's descriptor is
    still taken at execute.
    """
    if not (isinstance(src1_desc, MemoryDesc) and isinstance(dst_desc, MemoryDesc)):
        return None  # _create names the argument of the wrong type
    if src1_desc.closed or dst_desc.closed or dst_desc.data_type not in (DataType.S8, DataType.U8):
        return None
    if src1_desc.shape != (1,) or src1_desc.strides is None or src1_desc.strides[0] <= 1:
        return None
    return MemoryDesc((1,), src1_desc.data_type, "a")


def _changes_dst_after_compute(pd: PrimitiveDesc, bias: object) -> bool:
    """Whether the primitive applies a bias, post-ops, scales or zero points to its
    computed dst (what makes oneDNN's "conv:any" deconvolution compute into a buffer
    of its scratchpad first)."""
    if bias is not None or getattr(pd, "_quantized", None):
        return True
    with pd.get_attr() as attr, attr.get_post_ops() as post_ops:
        return len(post_ops) > 0


# The C++ class of each kind, for messages.
_CPP_NAMES = {
    "inner product": "inner_product_forward", "convolution": "convolution_forward",
    "deconvolution": "deconvolution_forward", "eltwise": "eltwise_forward", "softmax": "softmax_forward",
    "pooling": "pooling_forward", "batch normalization": "batch_normalization_forward",
    "layer normalization": "layer_normalization_forward", "group normalization": "group_normalization_forward",
    "resampling": "resampling_forward", "prelu": "prelu_forward", "shuffle": "shuffle_forward",
    "lrn": "lrn_forward",
}


class _Forward(PrimitiveDesc):
    """What the kinds share: making the C descriptor and reading back what oneDNN chose."""

    __slots__ = ()
    _kind = ""  # the primitive's name in messages

    def __new__(cls, *args: object, **kwargs: object) -> _Forward:
        # Before __init__ binds the arguments: a kind called without its engine
        # would otherwise be told of a missing last argument instead.
        if args and not isinstance(args[0], Engine) and "engine" not in kwargs:
            raise TypeError(
                f"engine: expected a dnnl_interop.Engine as the first argument of {cls.__name__}, got "
                f"{type(args[0]).__name__}; the engine comes first, as in C++ "
                f"dnnl::{_CPP_NAMES.get(cls._kind, cls._kind)}::primitive_desc(engine, ...): "
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
    ) -> None:
        """``lib.<function>(out, *arguments(c_engine, *c_descs, c_attr))``, then adopt the result.

        ``descs``: the memory descriptors, in the order ``arguments`` takes them
        (None passes NULL where allowed). ``params``: the other arguments by
        name, which explain a refusal (``_refusals``).
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
        if attr is not None:
            specs.append((attr, PrimitiveAttr, "attr"))
        out = self._new_out()
        with using(*specs) as handles:
            handles = handles if isinstance(handles, tuple) else (handles,)
            found = iter(handles[1:])
            c_descs = [ffi.NULL if desc is None else next(found) for desc, _, _ in descs]
            c_attr = next(found) if attr is not None else ffi.NULL
            started = time.perf_counter()
            status = getattr(lib, function)(out, *arguments(handles[0], *c_descs, c_attr))
            if status:
                raise self._refused(status, function, engine, descs, params or {})
            quantized = dict(getattr(attr, "_quantized", {}))
            try:
                sizes, layouts = _exec_args(out[0], quantized)
            except BaseException:
                lib.dnnl_primitive_desc_destroy(out[0])
                raise
            self._adopt(out[0], keep=(engine,))
            _set_args(self, sizes, layouts)
            self._quantized = quantized
        log_creation(self, "primitive descriptor", started)

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


class MatmulDesc(_Forward):
    """``dnnl::matmul::primitive_desc``: ``dst = src × weights (+ bias)``, batched over
    leading dimensions.

    On the CPU engine, oneDNN up to 3.13 (seen in 3.13.2) makes a matmul
    whose K, src's last dimension, is 0 and leaves its dst unwritten when
    executed (numpy gives zeros, plus the bias). The descriptor raises
    ``UnimplementedError`` there for K = 0 (with a non-empty dst) rather than
    let dst keep whatever it held. (GPU engines write the zeros and the bias:
    seen on real oneDNN 3.13.2, emulated GPU.)

    On CPUs without VNNI, oneDNN up to 3.13 (seen in 3.13.2) computes s8/u8
    matmuls with its "gemm:jit" implementation, which writes a 2-D dst of one
    column and at least 3 rows whose rows leave gaps between them (a row
    stride above 1, such as a column of a larger array) as if packed: it
    overwrites the elements between the rows and leaves a wrong result. The
    descriptor raises ``UnimplementedError`` there: give dst dense rows and
    copy the column into place, or add a leading batch dimension of 1.

    Raises:
        TypeError: an argument is of another type.
        ClosedObjectError: an argument is closed.
        InvalidArgumentsError: oneDNN refuses the shapes (the message says which rule they break).
        UnimplementedError: oneDNN has no implementation for these data types or attributes, or
            K is 0, or an s8/u8 dst of one column with gaps between its rows on "gemm:jit" (see above).
    """

    __slots__ = ()
    _kind = "matmul"

    def __init__(
        self,
        engine: Engine,
        src_desc: MemoryDesc,
        weights_desc: MemoryDesc,
        dst_desc: MemoryDesc,
        *,
        bias_desc: MemoryDesc | None = None,
        attr: PrimitiveAttr | None = None,
    ) -> None:
        self._create(
            "dnnl_matmul_primitive_desc_create", engine, attr,
            [(src_desc, "src_desc", False), (weights_desc, "weights_desc", False),
             (bias_desc, "bias_desc", True), (dst_desc, "dst_desc", False)],
            lambda e, src, weights, bias, dst, a: (e, src, weights, bias, dst, a),
        )
        self._refuse_empty_product(engine, src_desc, dst_desc)
        self._refuse_packed_column_write()

    def _refuse_empty_product(self, engine: Engine, src_desc: MemoryDesc, dst_desc: MemoryDesc) -> None:
        """Never a matmul that leaves its dst unwritten (see the class's docstring)."""
        k = src_desc.shape[-1]
        if k != 0 or any(n <= 0 for n in dst_desc.shape) or engine.kind != EngineKind.CPU:
            return
        found = version()
        if (found.major, found.minor) > (3, 13):
            return
        self.close()
        reason = (
            f"src_desc: K = 0 (dim {src_desc.ndim - 1}, the dimension the product sums over); oneDNN "
            f"{found.number} makes this matmul but leaves dst unwritten, where the product over no elements "
            "is zeros (then the bias and post-ops); fill dst without a matmul (numpy.zeros, or the bias "
            "broadcast), or give a K above 0"
        )
        raise make_error(Status.UNIMPLEMENTED, "dnnl_matmul_primitive_desc_create", reason, reason)

    def _refuse_packed_column_write(self) -> None:
        """Never "gemm:jit" into one column whose rows leave gaps (see the class's docstring)."""
        if not _int8_gemm_jit(self):
            return
        dst = self.dst_desc()
        if dst is None:
            return
        with dst:
            strides = dst.strides
            if dst.ndim != 2 or dst.shape[1] != 1 or dst.shape[0] < 3 or strides is None or strides[0] == 1:
                return
            shown = repr(dst)
        impl = self.impl_info
        self.close()
        reason = (
            f"dst_desc: {shown} is one column whose rows leave gaps between them, and the implementation "
            f"oneDNN {version().number} chose for this s8/u8 matmul ({impl}, the one of CPUs without VNNI) "
            "writes such a dst as if packed (oneDNN bug: it overwrites the elements between the rows, and "
            "the result is wrong); give dst dense rows (a row stride of 1, e.g. a contiguous (M, 1) array) "
            "and copy the column into place (dnnl_interop.reorder), or add a leading batch dimension of 1 "
            "(dst (1, M, 1), which it computes right)"
        )
        raise make_error(Status.UNIMPLEMENTED, "dnnl_matmul_primitive_desc_create", reason, reason)


class InnerProductForwardDesc(_Forward):
    """``dnnl::inner_product_forward::primitive_desc``: a fully connected layer.

    On CPUs without VNNI, oneDNN up to 3.13 (seen in 3.13.2) computes s8/u8
    inner products with its "gemm:jit" implementation, which reads src and
    weights as if their dimensions after the first (channels, spatial) lay in
    memory in the same order; when they do not (for instance a column-major
    src with weights "any", for which oneDNN itself chooses another order, or
    with weights given in another order) the result is wrong. Dimensions of one
    element do not count. The descriptor raises ``UnimplementedError`` there:
    give weights in src's order, or src row-major.

    Raises:
        TypeError: an argument is of another type.
        ValueError: ``prop_kind`` is not a forward propagation.
        ClosedObjectError: an argument is closed.
        InvalidArgumentsError: oneDNN refuses the shapes.
        UnimplementedError: oneDNN has no implementation for these data types or attributes, or
            s8/u8 src and weights in different orders on "gemm:jit" (see above).
    """

    __slots__ = ()
    _kind = "inner product"

    def __init__(
        self,
        engine: Engine,
        src_desc: MemoryDesc,
        weights_desc: MemoryDesc,
        dst_desc: MemoryDesc,
        *,
        bias_desc: MemoryDesc | None = None,
        prop_kind: PropKind = _INFERENCE,
        attr: PrimitiveAttr | None = None,
    ) -> None:
        prop = _prop_kind(prop_kind)
        self._create(
            "dnnl_inner_product_forward_primitive_desc_create", engine, attr,
            [(src_desc, "src_desc", False), (weights_desc, "weights_desc", False),
             (bias_desc, "bias_desc", True), (dst_desc, "dst_desc", False)],
            lambda e, src, weights, bias, dst, a: (e, int(prop), src, weights, bias, dst, a),
        )
        self._refuse_weights_in_another_order(weights_desc)

    def _refuse_weights_in_another_order(self, weights_desc: MemoryDesc) -> None:
        """Never "gemm:jit" over src and weights in different orders (see the class's docstring)."""
        if not _int8_gemm_jit(self):
            return
        src, weights = self.src_desc(), self.weights_desc()
        if src is None or weights is None:
            return
        with src, weights:
            if src.strides is None or weights.strides is None:
                return
            order = _memory_order(src)
            if order == _memory_order(weights):
                return
            shown_src, shown_weights, tag = repr(src), repr(weights), _tag_in_order(weights.ndim, order)
        impl, chose = self.impl_info, weights_desc.format_kind == FormatKind.ANY
        self.close()
        which = f"oneDNN chose {shown_weights} for weights_desc 'any'" if chose else f"weights_desc is {shown_weights}"
        reason = (
            f"src_desc is {shown_src} and {which}: their dimensions after the first are in different orders in "
            f"memory, and the implementation oneDNN {version().number} chose for this s8/u8 inner product "
            f"({impl}, the one of CPUs without VNNI) reads them as if in the same order (oneDNN bug: a wrong "
            f"result); give weights_desc in src's order (tag '{tag}'), or give src row-major (and weights_desc "
            "row-major or 'any')"
        )
        raise make_error(Status.UNIMPLEMENTED, "dnnl_inner_product_forward_primitive_desc_create", reason, reason)


class _ConvolutionLike(_Forward):
    __slots__ = ()
    _function = ""
    _default_algorithm = AlgKind.CONVOLUTION_DIRECT
    _family = "CONVOLUTION_"

    def __init__(
        self,
        engine: Engine,
        src_desc: MemoryDesc,
        weights_desc: MemoryDesc,
        dst_desc: MemoryDesc,
        strides: Sequence[int],
        padding_l: Sequence[int],
        padding_r: Sequence[int],
        *,
        bias_desc: MemoryDesc | None = None,
        dilates: Sequence[int] | None = None,
        algorithm: AlgKind | None = None,
        prop_kind: PropKind = _INFERENCE,
        attr: PrimitiveAttr | None = None,
    ) -> None:
        prop = _prop_kind(prop_kind)
        alg = _algorithm(self._default_algorithm if algorithm is None else algorithm, self._family, self._kind)
        n = _spatial(src_desc, "src_desc")
        c_strides = _dims(strides, "strides", n, minimum=1)
        c_dilates = _dims([0] * n if dilates is None else dilates, "dilates", n)
        c_left, c_right = _dims(padding_l, "padding_l", n), _dims(padding_r, "padding_r", n)
        self._create(
            self._function, engine, attr,
            [(src_desc, "src_desc", False), (weights_desc, "weights_desc", False),
             (bias_desc, "bias_desc", True), (dst_desc, "dst_desc", False)],
            lambda e, src, weights, bias, dst, a: (
                e, int(prop), int(alg), src, weights, bias, dst, c_strides, c_dilates, c_left, c_right, a
            ),
            {"strides": strides, "padding_l": padding_l, "padding_r": padding_r, "dilates": dilates},
        )
        self._check_created(bias_desc)

    def _check_created(self, bias_desc: object) -> None:
        """Refuse a descriptor oneDNN made whose primitive would do harm."""


class ConvolutionForwardDesc(_ConvolutionLike):
    """``dnnl::convolution_forward::primitive_desc``: 1D, 2D or 3D convolution
    (``dilates`` 0 means none, as in oneDNN; grouped weights have a leading
    groups dimension).

    Raises:
        TypeError: an argument is of another type.
        ValueError: ``strides``, ``padding_l``, ``padding_r`` or ``dilates`` has another length
            than the spatial dimensions, or a negative value (a stride below 1); or ``algorithm``
            is not a convolution one (``AlgKind.CONVOLUTION_*``).
        ClosedObjectError: an argument is closed.
        InvalidArgumentsError: oneDNN refuses the shapes.
        UnimplementedError: oneDNN has no implementation for these data types or attributes.
    """

    __slots__ = ()
    _kind = "convolution"
    _function = "dnnl_convolution_forward_primitive_desc_create"


class DeconvolutionForwardDesc(_ConvolutionLike):
    """``dnnl::deconvolution_forward::primitive_desc``: transposed convolution.

    oneDNN up to 3.13 (seen in 3.11 and 3.13) computes a deconvolution into a
    dst with gaps between its elements (a plain strided layout that is not
    dense) with its "conv:any" implementation; with a bias, post-ops, scales
    or zero points, that one computes dst into a scratchpad buffer sized for a
    dense dst, through dst's strides: it writes past its scratchpad. The
    descriptor then raises ``UnimplementedError`` (oneDNN offers no other
    implementation there): compute into a dense dst and reorder the result
    into the buffer with gaps.

    Raises:
        TypeError: an argument is of another type.
        ValueError: ``strides``, ``padding_l``, ``padding_r`` or ``dilates`` has another length
            than the spatial dimensions, or a negative value (a stride below 1); or ``algorithm``
            is not a deconvolution one (``AlgKind.DECONVOLUTION_*``).
        ClosedObjectError: an argument is closed.
        InvalidArgumentsError: oneDNN refuses the shapes.
        UnimplementedError: oneDNN has no (correct) implementation for these data types,
            layouts or attributes.
    """

    __slots__ = ()
    _kind = "deconvolution"
    _function = "dnnl_deconvolution_forward_primitive_desc_create"
    _default_algorithm = AlgKind.DECONVOLUTION_DIRECT
    _family = "DECONVOLUTION_"

    def _check_created(self, bias_desc: object) -> None:
        """Never the "conv:any" implementation over its scratchpad's end (see above)."""
        if not self.impl_info.startswith("conv:any+"):
            return
        found = version()
        if (found.major, found.minor) > (3, 13) or not _changes_dst_after_compute(self, bias_desc):
            return
        dst = self.dst_desc()
        if dst is None:
            return
        with dst:
            if not _has_gaps(dst):
                return
            shown = repr(dst)
        impl = self.impl_info
        self.close()
        raise status_error(
            Status.UNIMPLEMENTED, self._function,
            f"dst_desc: {shown} leaves gaps between its elements, and the implementation oneDNN "
            f"{found.number} has for it ({impl}) writes past the end of its scratchpad with a bias, "
            "post-ops, scales or zero points (it computes such a dst into a scratchpad buffer sized "
            "for a dense one); give a dense dst_desc (a plain tag such as 'abc', or 'any') and "
            "reorder the result into the strided buffer (dnnl_interop.reorder)",
        )


class EltwiseForwardDesc(_Forward):
    """``dnnl::eltwise_forward::primitive_desc``: an element-wise function
    (``AlgKind.ELTWISE_RELU``, ...; ``alpha`` and ``beta`` as oneDNN defines them).

    Raises:
        TypeError: an argument is of another type.
        ValueError: ``algorithm`` is not an eltwise one (``AlgKind.ELTWISE_*``), or ``prop_kind`` not a
            forward propagation.
        ClosedObjectError: an argument is closed.
        InvalidArgumentsError: oneDNN refuses the descriptors.
        UnimplementedError: oneDNN has no implementation for these data types or attributes.
    """

    __slots__ = ()
    _kind = "eltwise"

    def __init__(
        self,
        engine: Engine,
        algorithm: AlgKind,
        src_desc: MemoryDesc,
        dst_desc: MemoryDesc,
        alpha: float = 0.0,
        beta: float = 0.0,
        *,
        prop_kind: PropKind = _INFERENCE,
        attr: PrimitiveAttr | None = None,
    ) -> None:
        prop, alg = _prop_kind(prop_kind), _algorithm(algorithm, "ELTWISE_", "eltwise")
        alpha_, beta_ = _float(alpha, "alpha"), _float(beta, "beta")
        self._create(
            "dnnl_eltwise_forward_primitive_desc_create", engine, attr,
            [(src_desc, "src_desc", False), (dst_desc, "dst_desc", False)],
            lambda e, src, dst, a: (e, int(prop), int(alg), src, dst, alpha_, beta_, a),
        )


class SoftmaxForwardDesc(_Forward):
    """``dnnl::softmax_forward::primitive_desc``: softmax along ``axis``
    (``AlgKind.SOFTMAX_ACCURATE`` or ``SOFTMAX_LOG``).

    Raises:
        TypeError: an argument is of another type.
        ValueError: ``algorithm`` is not a softmax one, ``prop_kind`` not a forward propagation, or
            ``axis`` is negative or past a C int.
        ClosedObjectError: an argument is closed.
        InvalidArgumentsError: oneDNN refuses the descriptors (an axis past the last).
        UnimplementedError: oneDNN has no implementation here (none on some GPUs).
    """

    __slots__ = ()
    _kind = "softmax"

    def __init__(
        self,
        engine: Engine,
        algorithm: AlgKind,
        src_desc: MemoryDesc,
        dst_desc: MemoryDesc,
        axis: int,
        *,
        prop_kind: PropKind = _INFERENCE,
        attr: PrimitiveAttr | None = None,
    ) -> None:
        prop, alg = _prop_kind(prop_kind), _algorithm(algorithm, "SOFTMAX_", "softmax")
        axis_ = _c_int(axis, "axis")
        self._create(
            "dnnl_softmax_forward_primitive_desc_create", engine, attr,
            [(src_desc, "src_desc", False), (dst_desc, "dst_desc", False)],
            lambda e, src, dst, a: (e, int(prop), int(alg), src, dst, axis_, a),
            {"axis": axis_},
        )


class BinaryDesc(_Forward):
    """``dnnl::binary::primitive_desc``: ``dst = src0 (op) src1`` with broadcasting
    (``AlgKind.BINARY_ADD``, ...); ``AlgKind.BINARY_SELECT`` takes ``src2_desc``
    (the condition).

    A ``src1_desc`` of one element, ``(1,)``, with a stride above 1 is given to
    oneDNN as the dense ``(1,)`` descriptor when dst is s8 or u8: oneDNN 3.11
    and 3.13 crash making the binary otherwise. Both address the same element;
    a memory of ``src1_desc`` is taken at execute.

    Raises:
        TypeError: an argument is of another type.
        ValueError: ``algorithm`` is not a binary one (``AlgKind.BINARY_*``).
        ClosedObjectError: an argument is closed.
        InvalidArgumentsError: oneDNN refuses the shapes (not broadcastable).
        UnimplementedError: oneDNN has no implementation for these data types or attributes.
    """

    __slots__ = ()
    _kind = "binary"

    def __init__(
        self,
        engine: Engine,
        algorithm: AlgKind,
        src0_desc: MemoryDesc,
        src1_desc: MemoryDesc,
        dst_desc: MemoryDesc,
        *,
        src2_desc: MemoryDesc | None = None,
        attr: PrimitiveAttr | None = None,
    ) -> None:
        alg = _algorithm(algorithm, "BINARY_", "binary")
        dense = _with_dense_lone_element(src1_desc, dst_desc)
        src1: object = src1_desc if dense is None else dense
        try:
            if src2_desc is None:
                self._create(
                    "dnnl_binary_primitive_desc_create", engine, attr,
                    [(src0_desc, "src0_desc", False), (src1, "src1_desc", False), (dst_desc, "dst_desc", False)],
                    lambda e, src0, src1, dst, a: (e, int(alg), src0, src1, dst, a),
                )
            else:
                self._create(
                    "dnnl_binary_primitive_desc_create_v2", engine, attr,
                    [(src0_desc, "src0_desc", False), (src1, "src1_desc", False),
                     (src2_desc, "src2_desc", False), (dst_desc, "dst_desc", False)],
                    lambda e, src0, src1, src2, dst, a: (e, int(alg), src0, src1, src2, dst, a),
                )
        finally:
            if dense is not None:
                dense.close()


class PoolingForwardDesc(_Forward):
    """``dnnl::pooling_forward::primitive_desc``: max or average pooling
    (``AlgKind.POOLING_MAX``, ``POOLING_AVG_INCLUDE_PADDING``, ``POOLING_AVG_EXCLUDE_PADDING``).

    Raises:
        TypeError: an argument is of another type.
        ValueError: a dims argument has another length than the spatial dimensions, or a
            negative value, or ``algorithm`` is not a pooling one.
        ClosedObjectError: an argument is closed.
        InvalidArgumentsError: oneDNN refuses the shapes.
        UnimplementedError: oneDNN has no implementation for these data types or attributes.
    """

    __slots__ = ()
    _kind = "pooling"

    def __init__(
        self,
        engine: Engine,
        algorithm: AlgKind,
        src_desc: MemoryDesc,
        dst_desc: MemoryDesc,
        strides: Sequence[int],
        kernel: Sequence[int],
        padding_l: Sequence[int],
        padding_r: Sequence[int],
        *,
        dilation: Sequence[int] | None = None,
        prop_kind: PropKind = _INFERENCE,
        attr: PrimitiveAttr | None = None,
    ) -> None:
        prop, alg = _prop_kind(prop_kind), _algorithm(algorithm, "POOLING_", "pooling")
        n = _spatial(src_desc, "src_desc")
        c_strides, c_kernel = _dims(strides, "strides", n, minimum=1), _dims(kernel, "kernel", n, minimum=1)
        c_dilation = _dims([0] * n if dilation is None else dilation, "dilation", n)
        c_left, c_right = _dims(padding_l, "padding_l", n), _dims(padding_r, "padding_r", n)
        self._create(
            "dnnl_pooling_forward_primitive_desc_create", engine, attr,
            [(src_desc, "src_desc", False), (dst_desc, "dst_desc", False)],
            lambda e, src, dst, a: (e, int(prop), int(alg), src, dst, c_strides, c_kernel, c_dilation,
                                    c_left, c_right, a),
            {"algorithm": alg, "strides": strides, "kernel": kernel, "padding_l": padding_l, "padding_r": padding_r,
             "dilation": dilation},
        )


def _flags(flags: object) -> int:
    if isinstance(flags, bool) or not isinstance(flags, int):
        raise TypeError(f"flags: expected NormalizationFlags, got {type(flags).__name__}")
    if flags < 0 or flags & ~sum(NormalizationFlags):
        raise ValueError(f"flags: {flags!r} has bits no NormalizationFlags member has")
    return int(flags)


class BatchNormalizationForwardDesc(_Forward):
    """``dnnl::batch_normalization_forward::primitive_desc`` (``flags``:
    ``NormalizationFlags.USE_GLOBAL_STATS | USE_SCALE | USE_SHIFT``, ...).

    Raises:
        TypeError: an argument is of another type.
        ValueError: ``flags`` has unknown bits, or ``prop_kind`` is not a forward propagation.
        ClosedObjectError: an argument is closed.
        InvalidArgumentsError: oneDNN refuses the descriptors.
        UnimplementedError: oneDNN has no implementation for these data types or flags.
    """

    __slots__ = ()
    _kind = "batch normalization"

    def __init__(
        self,
        engine: Engine,
        src_desc: MemoryDesc,
        dst_desc: MemoryDesc,
        epsilon: float,
        flags: NormalizationFlags = NormalizationFlags.NONE,
        *,
        prop_kind: PropKind = _INFERENCE,
        attr: PrimitiveAttr | None = None,
    ) -> None:
        prop, eps, flags_ = _prop_kind(prop_kind), _float(epsilon, "epsilon"), _flags(flags)
        self._create(
            "dnnl_batch_normalization_forward_primitive_desc_create", engine, attr,
            [(src_desc, "src_desc", False), (dst_desc, "dst_desc", False)],
            lambda e, src, dst, a: (e, int(prop), src, dst, eps, flags_, a),
        )


class LayerNormalizationForwardDesc(_Forward):
    """``dnnl::layer_normalization_forward::primitive_desc``: normalization over the
    last dimension (``stat_desc`` the mean and variance; ``scale_shift_data_type``
    the type of scale and shift, f32 by default).

    Raises:
        TypeError: an argument is of another type.
        ValueError: ``flags`` has unknown bits, or ``prop_kind`` is not a forward propagation.
        ClosedObjectError: an argument is closed.
        InvalidArgumentsError: oneDNN refuses the descriptors.
        UnimplementedError: oneDNN has no implementation for these data types or flags.
    """

    __slots__ = ()
    _kind = "layer normalization"

    def __init__(
        self,
        engine: Engine,
        src_desc: MemoryDesc,
        dst_desc: MemoryDesc,
        epsilon: float,
        flags: NormalizationFlags = NormalizationFlags.NONE,
        *,
        stat_desc: MemoryDesc | None = None,
        scale_shift_data_type: object = DataType.F32,
        prop_kind: PropKind = _INFERENCE,
        attr: PrimitiveAttr | None = None,
    ) -> None:
        prop, eps, flags_ = _prop_kind(prop_kind), _float(epsilon, "epsilon"), _flags(flags)
        shift_type = data_type(scale_shift_data_type, "scale_shift_data_type")
        self._create(
            "dnnl_layer_normalization_forward_primitive_desc_create_v2", engine, attr,
            [(src_desc, "src_desc", False), (dst_desc, "dst_desc", False), (stat_desc, "stat_desc", True)],
            lambda e, src, dst, stat, a: (e, int(prop), src, dst, stat, int(shift_type), eps, flags_, a),
        )


class GroupNormalizationForwardDesc(_Forward):
    """``dnnl::group_normalization_forward::primitive_desc``: normalization over
    ``groups`` groups of channels.

    Raises:
        TypeError: an argument is of another type.
        ValueError: ``groups`` is negative, ``flags`` has unknown bits, or ``prop_kind`` is not
            a forward propagation.
        ClosedObjectError: an argument is closed.
        InvalidArgumentsError: oneDNN refuses the descriptors (channels not a multiple of groups).
        UnimplementedError: oneDNN has no implementation for these data types or flags.
    """

    __slots__ = ()
    _kind = "group normalization"

    def __init__(
        self,
        engine: Engine,
        src_desc: MemoryDesc,
        dst_desc: MemoryDesc,
        groups: int,
        epsilon: float,
        flags: NormalizationFlags = NormalizationFlags.NONE,
        *,
        prop_kind: PropKind = _INFERENCE,
        attr: PrimitiveAttr | None = None,
    ) -> None:
        prop, eps, flags_ = _prop_kind(prop_kind), _float(epsilon, "epsilon"), _flags(flags)
        groups_ = count_argument(groups, "groups")
        self._create(
            "dnnl_group_normalization_forward_primitive_desc_create", engine, attr,
            [(src_desc, "src_desc", False), (dst_desc, "dst_desc", False)],
            lambda e, src, dst, a: (e, int(prop), src, dst, groups_, eps, flags_, a),
            {"groups": groups_},
        )


class ReductionDesc(_Forward):
    """``dnnl::reduction::primitive_desc``: reduce the dimensions where dst has 1
    (``AlgKind.REDUCTION_SUM``, ``REDUCTION_MAX``, ``REDUCTION_NORM_LP_SUM`` with ``p``, ...).

    Raises:
        TypeError: an argument is of another type.
        ValueError: ``algorithm`` is not a reduction one (``AlgKind.REDUCTION_*``).
        ClosedObjectError: an argument is closed.
        InvalidArgumentsError: oneDNN refuses the shapes.
        UnimplementedError: oneDNN has no implementation for these data types or attributes.
    """

    __slots__ = ()
    _kind = "reduction"

    def __init__(
        self,
        engine: Engine,
        algorithm: AlgKind,
        src_desc: MemoryDesc,
        dst_desc: MemoryDesc,
        p: float = 0.0,
        eps: float = 0.0,
        *,
        attr: PrimitiveAttr | None = None,
    ) -> None:
        alg, p_, eps_ = _algorithm(algorithm, "REDUCTION_", "reduction"), _float(p, "p"), _float(eps, "eps")
        self._create(
            "dnnl_reduction_primitive_desc_create", engine, attr,
            [(src_desc, "src_desc", False), (dst_desc, "dst_desc", False)],
            lambda e, src, dst, a: (e, int(alg), src, dst, p_, eps_, a),
            {"algorithm": alg, "p": p_},
        )


class ResamplingForwardDesc(_Forward):
    """``dnnl::resampling_forward::primitive_desc``: nearest or linear resampling
    of the spatial dimensions; ``factors`` (one per spatial dimension) or, if
    None, the shapes of src and dst say by how much.

    Raises:
        TypeError: an argument is of another type.
        ValueError: ``factors`` has another length than the spatial dimensions, or ``algorithm`` is
            not a resampling one.
        ClosedObjectError: an argument is closed.
        InvalidArgumentsError: oneDNN refuses the shapes.
        UnimplementedError: oneDNN has no implementation for these data types or attributes.
    """

    __slots__ = ()
    _kind = "resampling"

    def __init__(
        self,
        engine: Engine,
        algorithm: AlgKind,
        src_desc: MemoryDesc,
        dst_desc: MemoryDesc,
        *,
        factors: Sequence[float] | None = None,
        prop_kind: PropKind = _INFERENCE,
        attr: PrimitiveAttr | None = None,
    ) -> None:
        prop, alg = _prop_kind(prop_kind), _algorithm(algorithm, "RESAMPLING_", "resampling")
        c_factors = ffi.NULL
        if factors is not None:
            n = _spatial(src_desc, "src_desc")
            if isinstance(factors, (str, bytes)) or not isinstance(factors, Sequence) or len(factors) != n:
                raise ValueError(f"factors: expected {n} numbers, one per spatial dimension, got {factors!r}")
            c_factors = ffi.new("float[]", [_float(f, f"factors[{i}]") for i, f in enumerate(factors)])
        self._create(
            "dnnl_resampling_forward_primitive_desc_create", engine, attr,
            [(src_desc, "src_desc", False), (dst_desc, "dst_desc", False)],
            lambda e, src, dst, a: (e, int(prop), int(alg), c_factors, src, dst, a),
        )


class ConcatDesc(_Forward):
    """``dnnl::concat::primitive_desc``: the sources one after another along
    ``concat_dimension`` (``ARG_MULTIPLE_SRC + i`` at execute); ``dst_desc`` None
    lets oneDNN choose it.

    Raises:
        TypeError: an argument is of another type.
        ValueError: ``concat_dimension`` is negative or past the sources' last dimension.
        ClosedObjectError: an argument is closed.
        InvalidArgumentsError: oneDNN refuses the shapes.
        UnimplementedError: oneDNN has no implementation for these data types or attributes.
    """

    __slots__ = ()
    _kind = "concat"

    def __init__(
        self,
        engine: Engine,
        concat_dimension: int,
        src_descs: Sequence[MemoryDesc],
        *,
        dst_desc: MemoryDesc | None = None,
        attr: PrimitiveAttr | None = None,
    ) -> None:
        dim = _c_int(concat_dimension, "concat_dimension")
        sources = _descs_list(src_descs, "src_descs")
        ndim = min(desc.ndim for desc in sources)
        if dim >= ndim:  # oneDNN 3.13 divides by zero (SIGFPE) on one past the last
            raise ValueError(f"concat_dimension: {dim}, but the sources have {ndim} dimensions")
        self._create(
            "dnnl_concat_primitive_desc_create", engine, attr,
            [(dst_desc, "dst_desc", True), *((d, f"src_descs[{i}]", False) for i, d in enumerate(sources))],
            lambda e, dst, *rest: (e, dst, len(sources), dim, ffi.new("const_dnnl_memory_desc_t[]", list(rest[:-1])),
                                   rest[-1]),
            {"concat_dimension": dim},
        )


class SumDesc(_Forward):
    """``dnnl::sum::primitive_desc``: ``dst = Σ scales[i] × src[i]`` (``ARG_MULTIPLE_SRC + i``);
    ``dst_desc`` None lets oneDNN choose it.

    On OpenCL GPU engines oneDNN picks ``ocl:many_inputs`` for small tensors
    whose sources all have dst's layout when the first scale is 1.0, and it
    applies the other scales shifted by one (seen on real oneDNN 3.13, emulated
    GPU). oneDNN gives a sum descriptor no next implementation (``next_impl``
    is always at its last), so with a scale other than 1 the descriptor raises
    ``UnimplementedError`` rather than compute a wrong sum. oneDNN picks a
    correct implementation when the first scale is not 1 (put such a source
    first) or when dst has a layout other than the sources'.

    Raises:
        TypeError: an argument is of another type.
        ValueError: ``scales`` and ``src_descs`` differ in length.
        ClosedObjectError: an argument is closed.
        InvalidArgumentsError: oneDNN refuses the shapes.
        UnimplementedError: oneDNN has no (correct) implementation for these data types,
            scales or attributes.
    """

    __slots__ = ()
    _kind = "sum"

    def __init__(
        self,
        engine: Engine,
        scales: Sequence[float],
        src_descs: Sequence[MemoryDesc],
        *,
        dst_desc: MemoryDesc | None = None,
        attr: PrimitiveAttr | None = None,
    ) -> None:
        sources = _descs_list(src_descs, "src_descs")
        if isinstance(scales, (str, bytes)) or not isinstance(scales, Sequence):
            raise TypeError(f"scales: expected a sequence of numbers, got {type(scales).__name__}")
        if len(scales) != len(sources):
            raise ValueError(f"scales: {len(scales)} scales for {len(sources)} sources")
        values = [_float(s, f"scales[{i}]") for i, s in enumerate(scales)]
        c_scales = ffi.new("float[]", values)
        self._create(
            "dnnl_sum_primitive_desc_create", engine, attr,
            [(dst_desc, "dst_desc", True), *((d, f"src_descs[{i}]", False) for i, d in enumerate(sources))],
            lambda e, dst, *rest: (e, dst, len(sources), c_scales,
                                   ffi.new("const_dnnl_memory_desc_t[]", list(rest[:-1])), rest[-1]),
        )
        if any(value != 1.0 for value in values):
            self._skip_shifted_scales()

    def _skip_shifted_scales(self) -> None:
        """Never an implementation known to apply the scales shifted by one."""
        while "many_inputs" in self.impl_info:
            logger.debug("sum: skipping %s (it applies non-unit scales shifted by one)", self.impl_info)
            if not self.next_impl():
                self.close()
                raise status_error(
                    Status.UNIMPLEMENTED, "dnnl_sum_primitive_desc_create",
                    "oneDNN chose ocl:many_inputs, which applies scales other than 1 shifted by one (a "
                    "wrong result), and offers a sum no other implementation; put a source whose scale is "
                    "not 1 first (oneDNN then picks another implementation), give dst_desc a layout other "
                    "than the sources', or sum with all scales 1",
                )


class PReLUForwardDesc(_Forward):
    """``dnnl::prelu_forward::primitive_desc``: ``dst = src > 0 ? src : weights × src``.

    Raises:
        TypeError: an argument is of another type.
        ValueError: ``prop_kind`` is not a forward propagation.
        ClosedObjectError: an argument is closed.
        InvalidArgumentsError: oneDNN refuses the shapes (weights not broadcastable).
        UnimplementedError: oneDNN has no implementation for these data types or attributes.
    """

    __slots__ = ()
    _kind = "prelu"

    def __init__(
        self,
        engine: Engine,
        src_desc: MemoryDesc,
        weights_desc: MemoryDesc,
        dst_desc: MemoryDesc,
        *,
        prop_kind: PropKind = _INFERENCE,
        attr: PrimitiveAttr | None = None,
    ) -> None:
        prop = _prop_kind(prop_kind)
        self._create(
            "dnnl_prelu_forward_primitive_desc_create", engine, attr,
            [(src_desc, "src_desc", False), (weights_desc, "weights_desc", False), (dst_desc, "dst_desc", False)],
            lambda e, src, weights, dst, a: (e, int(prop), src, weights, dst, a),
        )


class ShuffleForwardDesc(_Forward):
    """``dnnl::shuffle_forward::primitive_desc``: channel shuffle along ``axis`` in
    groups of ``group_size``.

    Raises:
        TypeError: an argument is of another type.
        ValueError: ``axis`` or ``group_size`` is negative (``axis`` past a C int).
        ClosedObjectError: an argument is closed.
        InvalidArgumentsError: oneDNN refuses the shapes (the axis not a multiple of the group).
        UnimplementedError: oneDNN has no implementation for these data types or attributes.
    """

    __slots__ = ()
    _kind = "shuffle"

    def __init__(
        self,
        engine: Engine,
        src_desc: MemoryDesc,
        dst_desc: MemoryDesc,
        axis: int,
        group_size: int,
        *,
        prop_kind: PropKind = _INFERENCE,
        attr: PrimitiveAttr | None = None,
    ) -> None:
        prop = _prop_kind(prop_kind)
        axis_, group = _c_int(axis, "axis"), count_argument(group_size, "group_size")
        self._create(
            "dnnl_shuffle_forward_primitive_desc_create", engine, attr,
            [(src_desc, "src_desc", False), (dst_desc, "dst_desc", False)],
            lambda e, src, dst, a: (e, int(prop), src, dst, axis_, group, a),
            {"axis": axis_, "group_size": group},
        )


class LRNForwardDesc(_Forward):
    """``dnnl::lrn_forward::primitive_desc``: local response normalization
    (``AlgKind.LRN_ACROSS_CHANNELS`` or ``LRN_WITHIN_CHANNEL``).

    Raises:
        TypeError: an argument is of another type.
        ValueError: ``local_size`` is negative, or ``algorithm`` is not an LRN one.
        ClosedObjectError: an argument is closed.
        InvalidArgumentsError: oneDNN refuses the descriptors.
        UnimplementedError: oneDNN has no implementation for these data types or attributes.
    """

    __slots__ = ()
    _kind = "lrn"

    def __init__(
        self,
        engine: Engine,
        algorithm: AlgKind,
        src_desc: MemoryDesc,
        dst_desc: MemoryDesc,
        local_size: int,
        alpha: float,
        beta: float,
        k: float = 1.0,
        *,
        prop_kind: PropKind = _INFERENCE,
        attr: PrimitiveAttr | None = None,
    ) -> None:
        prop, alg = _prop_kind(prop_kind), _algorithm(algorithm, "LRN_", "lrn")
        size = count_argument(local_size, "local_size")
        alpha_, beta_, k_ = _float(alpha, "alpha"), _float(beta, "beta"), _float(k, "k")
        self._create(
            "dnnl_lrn_forward_primitive_desc_create", engine, attr,
            [(src_desc, "src_desc", False), (dst_desc, "dst_desc", False)],
            lambda e, src, dst, a: (e, int(prop), int(alg), src, dst, size, alpha_, beta_, k_, a),
        )
