"""Convolution and deconvolution."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .._attr import PrimitiveAttr
from .._engine import Engine
from .._enums import AlgKind, PropKind
from .._library import status_error, version
from .._memory_desc import MemoryDesc
from .._primitive import PrimitiveDesc
from ..errors import Status
from ._kind import (
    _INFERENCE,
    _MIN_PADDING_R,
    _algorithm,
    _Backward,
    _dims,
    _Kind,
    _prop_kind,
    _refuse_diff_bias_with_gaps,
    _spatial,
)

if TYPE_CHECKING:
    from .._ffi import CData

__all__ = [
    "ConvolutionForwardDesc",
    "ConvolutionBackwardDataDesc",
    "ConvolutionBackwardWeightsDesc",
    "DeconvolutionForwardDesc",
    "DeconvolutionBackwardDataDesc",
    "DeconvolutionBackwardWeightsDesc",
]


def _has_gaps(desc: MemoryDesc) -> bool:
    """Whether ``desc`` is a plain layout whose elements leave gaps: the buffer it spans
    (last element's offset + 1) holds more elements than the shape has."""
    strides = desc.strides
    if strides is None or 0 in desc.shape:
        return False
    span = 1 + sum((n - 1) * stride for n, stride in zip(desc.shape, strides, strict=True))
    return span > math.prod(desc.shape)


def _changes_dst_after_compute(pd: PrimitiveDesc, bias: object) -> bool:
    """Whether the primitive applies a bias, post-ops, scales or zero points to its
    computed dst (what makes oneDNN's "conv:any" deconvolution compute into a buffer
    of its scratchpad first)."""
    if bias is not None or getattr(pd, "_quantized", None):
        return True
    with pd.get_attr() as attr, attr.get_post_ops() as post_ops:
        return len(post_ops) > 0


def _geometry(
    desc: object, what: str, strides: object, padding_l: object, padding_r: object, dilates: object
) -> tuple[CData, CData, CData, CData]:
    """strides, dilates, padding_l and padding_r as ``dnnl_dims_t``, one value per spatial
    dimension of ``desc`` (the argument named ``what``); ``dilates`` None: none."""
    n = _spatial(desc, what)
    c_strides = _dims(strides, "strides", n, minimum=1)
    c_dilates = _dims([0] * n if dilates is None else dilates, "dilates", n)
    c_right = _dims(padding_r, "padding_r", n, minimum=_MIN_PADDING_R)
    return c_strides, c_dilates, _dims(padding_l, "padding_l", n), c_right


class _ConvolutionLike(_Kind):
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
        c_strides, c_dilates, c_left, c_right = _geometry(src_desc, "src_desc", strides, padding_l, padding_r, dilates)
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


class _ConvolutionLikeBackwardData(_Backward):
    __slots__ = ()
    _function = ""
    _default_algorithm = AlgKind.CONVOLUTION_DIRECT
    _family = "CONVOLUTION_"

    def __init__(
        self,
        engine: Engine,
        diff_src_desc: MemoryDesc,
        weights_desc: MemoryDesc,
        diff_dst_desc: MemoryDesc,
        strides: Sequence[int],
        padding_l: Sequence[int],
        padding_r: Sequence[int],
        hint_fwd_pd: PrimitiveDesc,
        *,
        dilates: Sequence[int] | None = None,
        algorithm: AlgKind | None = None,
        attr: PrimitiveAttr | None = None,
    ) -> None:
        hint = self._checked_hint(hint_fwd_pd, engine)
        alg = _algorithm(self._default_algorithm if algorithm is None else algorithm, self._family, self._kind)
        c_strides, c_dilates, c_left, c_right = _geometry(
            diff_src_desc, "diff_src_desc", strides, padding_l, padding_r, dilates)
        self._create(
            self._function, engine, attr,
            [(diff_src_desc, "diff_src_desc", False), (weights_desc, "weights_desc", False),
             (diff_dst_desc, "diff_dst_desc", False)],
            lambda e, diff_src, weights, diff_dst, h, a: (
                e, int(alg), diff_src, weights, diff_dst, c_strides, c_dilates, c_left, c_right, h, a
            ),
            {"strides": strides, "padding_l": padding_l, "padding_r": padding_r, "dilates": dilates},
            hint=hint,
        )


class _ConvolutionLikeBackwardWeights(_Backward):
    __slots__ = ()
    _function = ""
    _default_algorithm = AlgKind.CONVOLUTION_DIRECT
    _family = "CONVOLUTION_"

    def __init__(
        self,
        engine: Engine,
        src_desc: MemoryDesc,
        diff_weights_desc: MemoryDesc,
        diff_dst_desc: MemoryDesc,
        strides: Sequence[int],
        padding_l: Sequence[int],
        padding_r: Sequence[int],
        hint_fwd_pd: PrimitiveDesc,
        *,
        diff_bias_desc: MemoryDesc | None = None,
        dilates: Sequence[int] | None = None,
        algorithm: AlgKind | None = None,
        attr: PrimitiveAttr | None = None,
    ) -> None:
        hint = self._checked_hint(hint_fwd_pd, engine)
        alg = _algorithm(self._default_algorithm if algorithm is None else algorithm, self._family, self._kind)
        c_strides, c_dilates, c_left, c_right = _geometry(src_desc, "src_desc", strides, padding_l, padding_r, dilates)
        self._create(
            self._function, engine, attr,
            [(src_desc, "src_desc", False), (diff_weights_desc, "diff_weights_desc", False),
             (diff_bias_desc, "diff_bias_desc", True), (diff_dst_desc, "diff_dst_desc", False)],
            lambda e, src, diff_weights, diff_bias, diff_dst, h, a: (
                e, int(alg), src, diff_weights, diff_bias, diff_dst, c_strides, c_dilates, c_left, c_right, h, a
            ),
            {"strides": strides, "padding_l": padding_l, "padding_r": padding_r, "dilates": dilates},
            hint=hint,
        )
        _refuse_diff_bias_with_gaps(self, self._function)


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


class ConvolutionBackwardDataDesc(_ConvolutionLikeBackwardData):
    """``dnnl::convolution_backward_data::primitive_desc``: the gradient of a convolution's
    src (``ARG_DIFF_SRC``) from the gradient of its dst (``ARG_DIFF_DST``) and its weights
    (``ARG_WEIGHTS``).

    ``hint_fwd_pd`` is the forward convolution's descriptor, made with
    ``prop_kind=PropKind.FORWARD_TRAINING`` over the same shapes; this descriptor and its
    primitives keep it alive. ``diff_src_desc`` may be "any": ``diff_src_desc()`` answers
    oneDNN's choice.

    Raises:
        TypeError: an argument is of another type; or ``hint_fwd_pd`` is not a
            ConvolutionForwardDesc.
        ValueError: ``strides``, ``padding_l``, ``padding_r`` or ``dilates`` has another length
            than the spatial dimensions, or a negative value (a stride below 1); ``algorithm``
            is not a convolution one (``AlgKind.CONVOLUTION_*``); or ``hint_fwd_pd`` was made
            for inference, or on another engine.
        ClosedObjectError: an argument is closed.
        InvalidArgumentsError: oneDNN refuses the shapes (the message says which rule they break).
        UnimplementedError: oneDNN has no implementation for these data types, layouts or attributes.
    """

    __slots__ = ()
    _cpp = "convolution_backward_data"
    _kind = "convolution"
    _forward = ConvolutionForwardDesc
    _function = "dnnl_convolution_backward_data_primitive_desc_create"


class ConvolutionBackwardWeightsDesc(_ConvolutionLikeBackwardWeights):
    """``dnnl::convolution_backward_weights::primitive_desc``: the gradients of a
    convolution's weights (``ARG_DIFF_WEIGHTS``) and, with ``diff_bias_desc``, of its bias
    (``ARG_DIFF_BIAS``) from its src (``ARG_SRC``) and the gradient of its dst
    (``ARG_DIFF_DST``).

    ``hint_fwd_pd`` is the forward convolution's descriptor, made with
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
        TypeError: an argument is of another type; or ``hint_fwd_pd`` is not a
            ConvolutionForwardDesc.
        ValueError: ``strides``, ``padding_l``, ``padding_r`` or ``dilates`` has another length
            than the spatial dimensions, or a negative value (a stride below 1); ``algorithm``
            is not a convolution one (``AlgKind.CONVOLUTION_*``); or ``hint_fwd_pd`` was made
            for inference, or on another engine.
        ClosedObjectError: an argument is closed.
        InvalidArgumentsError: oneDNN refuses the shapes (the message says which rule they break).
        UnimplementedError: oneDNN has no implementation for these data types, layouts or attributes,
            or a diff_bias with gaps where it writes it packed (see above).
    """

    __slots__ = ()
    _cpp = "convolution_backward_weights"
    _kind = "convolution"
    _forward = ConvolutionForwardDesc
    _function = "dnnl_convolution_backward_weights_primitive_desc_create"


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


class DeconvolutionBackwardDataDesc(_ConvolutionLikeBackwardData):
    """``dnnl::deconvolution_backward_data::primitive_desc``: the gradient of a
    deconvolution's src (``ARG_DIFF_SRC``) from the gradient of its dst (``ARG_DIFF_DST``)
    and its weights (``ARG_WEIGHTS``).

    ``hint_fwd_pd`` is the forward deconvolution's descriptor, made with
    ``prop_kind=PropKind.FORWARD_TRAINING``; this descriptor and its primitives keep it
    alive. ``diff_src_desc`` may be "any": ``diff_src_desc()`` answers oneDNN's choice.

    Raises:
        TypeError: an argument is of another type; or ``hint_fwd_pd`` is not a
            DeconvolutionForwardDesc.
        ValueError: ``strides``, ``padding_l``, ``padding_r`` or ``dilates`` has another length
            than the spatial dimensions, or a negative value (a stride below 1); ``algorithm``
            is not a deconvolution one (``AlgKind.DECONVOLUTION_*``); or ``hint_fwd_pd`` was made
            for inference, or on another engine.
        ClosedObjectError: an argument is closed.
        InvalidArgumentsError: oneDNN refuses the shapes (the message says which rule they break).
        UnimplementedError: oneDNN has no implementation for these data types, layouts or attributes.
    """

    __slots__ = ()
    _cpp = "deconvolution_backward_data"
    _kind = "deconvolution"
    _forward = DeconvolutionForwardDesc
    _function = "dnnl_deconvolution_backward_data_primitive_desc_create"
    _default_algorithm = AlgKind.DECONVOLUTION_DIRECT
    _family = "DECONVOLUTION_"


class DeconvolutionBackwardWeightsDesc(_ConvolutionLikeBackwardWeights):
    """``dnnl::deconvolution_backward_weights::primitive_desc``: the gradients of a
    deconvolution's weights (``ARG_DIFF_WEIGHTS``) and, with ``diff_bias_desc``, of its
    bias (``ARG_DIFF_BIAS``) from its src (``ARG_SRC``) and the gradient of its dst
    (``ARG_DIFF_DST``).

    ``hint_fwd_pd`` is the forward deconvolution's descriptor, made with
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
        TypeError: an argument is of another type; or ``hint_fwd_pd`` is not a
            DeconvolutionForwardDesc.
        ValueError: ``strides``, ``padding_l``, ``padding_r`` or ``dilates`` has another length
            than the spatial dimensions, or a negative value (a stride below 1); ``algorithm``
            is not a deconvolution one (``AlgKind.DECONVOLUTION_*``); or ``hint_fwd_pd`` was made
            for inference, or on another engine.
        ClosedObjectError: an argument is closed.
        InvalidArgumentsError: oneDNN refuses the shapes (the message says which rule they break).
        UnimplementedError: oneDNN has no implementation for these data types, layouts or attributes,
            or a diff_bias with gaps where it writes it packed (see above).
    """

    __slots__ = ()
    _cpp = "deconvolution_backward_weights"
    _kind = "deconvolution"
    _forward = DeconvolutionForwardDesc
    _function = "dnnl_deconvolution_backward_weights_primitive_desc_create"
    _default_algorithm = AlgKind.DECONVOLUTION_DIRECT
    _family = "DECONVOLUTION_"
