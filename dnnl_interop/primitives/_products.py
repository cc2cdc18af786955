"""Matmul and inner product: the kinds that multiply src by weights."""

from __future__ import annotations

from collections.abc import Sequence

from .._attr import PrimitiveAttr
from .._engine import Engine
from .._enums import DataType, EngineKind, FormatKind, PropKind
from .._library import version
from .._memory_desc import MemoryDesc
from .._primitive import PrimitiveDesc
from ._kind import _INFERENCE, _Backward, _Kind, _prop_kind, _refuse_diff_bias_with_gaps, _refuse_known_bug

__all__ = [
    "MatmulDesc",
    "InnerProductForwardDesc",
    "InnerProductBackwardDataDesc",
    "InnerProductBackwardWeightsDesc",
]



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


def _row_major(desc: MemoryDesc) -> bool:
    """Whether ``desc``'s dimensions of more than one element lie in memory in their order,
    the first outermost (gaps between them allowed); False for a layout without strides."""
    strides = desc.strides
    if strides is None:
        return False
    axes = [axis for axis in range(desc.ndim) if desc.shape[axis] > 1]
    return sorted(axes, key=lambda axis: -strides[axis]) == axes


def _column_major(desc: MemoryDesc) -> bool:
    """Whether ``desc``'s dimensions of more than one element lie in memory in reverse order,
    the first innermost (one such dimension: both this and :func:`_row_major`)."""
    strides = desc.strides
    if strides is None:
        return False
    axes = [axis for axis in range(desc.ndim) if desc.shape[axis] > 1]
    return sorted(axes, key=lambda axis: strides[axis]) == axes


def _tag_in_order(ndim: int, order: Sequence[int]) -> str:
    """The plain tag ('acb', ...) with dimension 0 outermost, then ``order``, then the rest."""
    rest = [axis for axis in range(1, ndim) if axis not in order]
    return "".join("abcdefghijkl"[axis] for axis in (0, *order, *rest))



class MatmulDesc(_Kind):
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

    Runtime dimensions: any dimension of src, weights, dst or bias may be
    :data:`~dnnl_interop.RUNTIME_DIM` (plain layouts only), as oneDNN's
    ``DNNL_RUNTIME_DIM_VAL``; the primitive then takes memories of concrete
    shapes at execute, which must fit the descriptors (data type, the other
    dimensions, the layout's order) and one another (src's K is weights', M
    and N are dst's, batch dimensions broadcast, post-op inputs fit dst):
    ``Primitive.execute`` raises ``ValueError`` naming the argument otherwise.

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
        reason = (
            f"src_desc: K = 0 (dim {src_desc.ndim - 1}, the dimension the product sums over); oneDNN "
            f"{found.number} makes this matmul but leaves dst unwritten, where the product over no elements "
            "is zeros (then the bias and post-ops); fill dst without a matmul (numpy.zeros, or the bias "
            "broadcast), or give a K above 0"
        )
        _refuse_known_bug(self, "dnnl_matmul_primitive_desc_create", reason)

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
        reason = (
            f"dst_desc: {shown} is one column whose rows leave gaps between them, and the implementation "
            f"oneDNN {version().number} chose for this s8/u8 matmul ({self.impl_info}, the one of CPUs without VNNI) "
            "writes such a dst as if packed (oneDNN bug: it overwrites the elements between the rows, and "
            "the result is wrong); give dst dense rows (a row stride of 1, e.g. a contiguous (M, 1) array) "
            "and copy the column into place (dnnl_interop.reorder), or add a leading batch dimension of 1 "
            "(dst (1, M, 1), which it computes right)"
        )
        _refuse_known_bug(self, "dnnl_matmul_primitive_desc_create", reason)


class InnerProductForwardDesc(_Kind):
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
        which = f"oneDNN chose {shown_weights} for weights_desc 'any'" if chose else f"weights_desc is {shown_weights}"
        reason = (
            f"src_desc is {shown_src} and {which}: their dimensions after the first are in different orders in "
            f"memory, and the implementation oneDNN {version().number} chose for this s8/u8 inner product "
            f"({impl}, the one of CPUs without VNNI) reads them as if in the same order (oneDNN bug: a wrong "
            f"result); give weights_desc in src's order (tag '{tag}'), or give src row-major (and weights_desc "
            "row-major or 'any')"
        )
        _refuse_known_bug(self, "dnnl_inner_product_forward_primitive_desc_create", reason)


class InnerProductBackwardDataDesc(_Backward):
    """``dnnl::inner_product_backward_data::primitive_desc``: the gradient of an inner
    product's src (``ARG_DIFF_SRC``) from the gradient of its dst (``ARG_DIFF_DST``) and
    its weights (``ARG_WEIGHTS``).

    ``hint_fwd_pd`` is the forward inner product's descriptor, made with
    ``prop_kind=PropKind.FORWARD_TRAINING``; this descriptor and its primitives keep it
    alive. ``diff_src_desc`` may be "any": ``diff_src_desc()`` answers oneDNN's choice.

    On the CPU engine, oneDNN up to 3.13 (seen in 3.13.2) leaves diff_src
    unwritten, for some shapes, in its "gemm:jit" implementation when the
    weights do not lie in row-major order (column-major, say; dimensions of one
    element do not count) and diff_src does not either, or has a single
    dimension of more than one element. The descriptor raises
    ``UnimplementedError`` there: give the weights row-major.

    Raises:
        TypeError: an argument is of another type; or ``hint_fwd_pd`` is not an
            InnerProductForwardDesc.
        ValueError: ``hint_fwd_pd`` was made for inference, or on another engine.
        ClosedObjectError: an argument is closed.
        InvalidArgumentsError: oneDNN refuses the shapes (the message says which rule they break).
        UnimplementedError: oneDNN has no implementation for these data types, layouts or attributes,
            or weights and diff_src out of row-major order on "gemm:jit" (see above).
    """

    __slots__ = ()
    _cpp = "inner_product_backward_data"
    _kind = "inner product"
    _forward = InnerProductForwardDesc

    def __init__(
        self,
        engine: Engine,
        diff_src_desc: MemoryDesc,
        weights_desc: MemoryDesc,
        diff_dst_desc: MemoryDesc,
        hint_fwd_pd: PrimitiveDesc,
        *,
        attr: PrimitiveAttr | None = None,
    ) -> None:
        hint = self._checked_hint(hint_fwd_pd, engine)
        self._create(
            "dnnl_inner_product_backward_data_primitive_desc_create", engine, attr,
            [(diff_src_desc, "diff_src_desc", False), (weights_desc, "weights_desc", False),
             (diff_dst_desc, "diff_dst_desc", False)],
            lambda e, diff_src, weights, diff_dst, h, a: (e, diff_src, weights, diff_dst, h, a),
            hint=hint,
        )
        self._refuse_unwritten_diff_src(engine)

    def _refuse_unwritten_diff_src(self, engine: Engine) -> None:
        """Never "gemm:jit" over weights out of row-major order into such a diff_src (see the class's docstring)."""
        found = version()
        if engine.kind != EngineKind.CPU or (found.major, found.minor) > (3, 13) or \
                not self.impl_info.endswith("gemm:jit"):
            return
        diff_src, weights = self.diff_src_desc(), self.weights_desc()
        if diff_src is None or weights is None:
            return
        with diff_src, weights:
            if _row_major(weights) or (_row_major(diff_src) and not _column_major(diff_src)):
                return
            shown_src, shown_weights = repr(diff_src), repr(weights)
        impl = self.impl_info
        reason = (
            f"weights_desc is {shown_weights}, not in row-major order, and diff_src_desc {shown_src} is not either "
            "or reads as column-major too (one dimension of more than one element): the implementation oneDNN "
            f"{found.number} chose for them ({impl}) leaves diff_src unwritten for such layouts (oneDNN bug); give "
            "weights_desc row-major (a plain tag such as 'abcd', or reorder the weights: dnnl_interop.reordered)"
        )
        _refuse_known_bug(self, "dnnl_inner_product_backward_data_primitive_desc_create", reason)


class InnerProductBackwardWeightsDesc(_Backward):
    """``dnnl::inner_product_backward_weights::primitive_desc``: the gradients of an inner
    product's weights (``ARG_DIFF_WEIGHTS``) and, with ``diff_bias_desc``, of its bias
    (``ARG_DIFF_BIAS``) from its src (``ARG_SRC``) and the gradient of its dst
    (``ARG_DIFF_DST``).

    ``hint_fwd_pd`` is the forward inner product's descriptor, made with
    ``prop_kind=PropKind.FORWARD_TRAINING``; this descriptor and its primitives keep it
    alive. ``diff_weights_desc`` and ``diff_bias_desc`` may be "any":
    ``diff_weights_desc()`` and ``diff_bias_desc()`` answer oneDNN's choice.

    oneDNN up to 3.13 (seen in 3.13.2) writes the bias's gradient as a packed
    vector whatever ``diff_bias_desc``'s strides in the implementations it
    chooses here (all but its CPU reference one, "ref:any"; on the CPU engine,
    and on real oneDNN, emulated GPU): into a diff_bias with gaps between its
    elements it overwrites the gaps and leaves elements unwritten. The
    descriptor raises ``UnimplementedError`` there: give a dense diff_bias (or
    "any") and copy the result into place.

    Raises:
        TypeError: an argument is of another type; or ``hint_fwd_pd`` is not an
            InnerProductForwardDesc.
        ValueError: ``hint_fwd_pd`` was made for inference, or on another engine.
        ClosedObjectError: an argument is closed.
        InvalidArgumentsError: oneDNN refuses the shapes (the message says which rule they break).
        UnimplementedError: oneDNN has no implementation for these data types, layouts or attributes,
            or a diff_bias with gaps where it writes it packed (see above).
    """

    __slots__ = ()
    _cpp = "inner_product_backward_weights"
    _kind = "inner product"
    _forward = InnerProductForwardDesc

    def __init__(
        self,
        engine: Engine,
        src_desc: MemoryDesc,
        diff_weights_desc: MemoryDesc,
        diff_dst_desc: MemoryDesc,
        hint_fwd_pd: PrimitiveDesc,
        *,
        diff_bias_desc: MemoryDesc | None = None,
        attr: PrimitiveAttr | None = None,
    ) -> None:
        hint = self._checked_hint(hint_fwd_pd, engine)
        self._create(
            "dnnl_inner_product_backward_weights_primitive_desc_create", engine, attr,
            [(src_desc, "src_desc", False), (diff_weights_desc, "diff_weights_desc", False),
             (diff_bias_desc, "diff_bias_desc", True), (diff_dst_desc, "diff_dst_desc", False)],
            lambda e, src, diff_weights, diff_bias, diff_dst, h, a: (e, src, diff_weights, diff_bias, diff_dst, h, a),
            hint=hint,
        )
        _refuse_diff_bias_with_gaps(self, "dnnl_inner_product_backward_weights_primitive_desc_create")
