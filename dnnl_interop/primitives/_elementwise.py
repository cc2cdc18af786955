"""Elementwise kinds: eltwise, softmax and PReLU."""

from __future__ import annotations

from .._attr import PrimitiveAttr, _float
from .._engine import Engine
from .._enums import AlgKind, PropKind
from .._memory_desc import MemoryDesc
from ._kind import _INFERENCE, _algorithm, _Backward, _c_int, _Kind, _prop_kind

__all__ = [
    "EltwiseForwardDesc",
    "EltwiseBackwardDesc",
    "SoftmaxForwardDesc",
    "SoftmaxBackwardDesc",
    "PReLUForwardDesc",
    "PReLUBackwardDesc",
]


def _same_shapes(rule: str, first: tuple[object, str], *others: tuple[object, str]) -> None:
    """Raise ValueError naming the first of ``others`` (descriptor, name) whose shape differs
    from ``first``'s, for the shapes oneDNN 3.13 does not compare itself: it makes such a
    primitive, which then reads or writes past the smaller buffer. Other types and closed
    descriptors are left to the creator's own checks."""
    reference, name = first
    if not isinstance(reference, MemoryDesc) or reference.closed:
        return
    for desc, what in others:
        if isinstance(desc, MemoryDesc) and not desc.closed and desc.shape != reference.shape:
            raise ValueError(
                f"{what}: shape {desc.shape} differs from {name}'s {reference.shape} ({rule}; oneDNN 3.13 does "
                f"not check it and would read or write past a buffer): give {what} the shape {reference.shape}"
            )


class EltwiseForwardDesc(_Kind):
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


class EltwiseBackwardDesc(_Backward):
    """``dnnl::eltwise_backward::primitive_desc``: the gradient of an element-wise function,
    ``diff_src = f'(data) × diff_dst``.

    ``data_desc`` describes what the primitive reads as ``ARG_SRC``: the forward's source; or,
    for the ``AlgKind.ELTWISE_*_USE_DST_FOR_BWD`` algorithms, the forward's destination, read
    as ``ARG_DST`` (the forward computed with one of those then need not keep its source).
    ``alpha`` and ``beta`` as in the forward. ``diff_src_desc`` and ``diff_dst_desc`` may be
    "format any": ``diff_src_desc()`` and ``diff_dst_desc()`` answer oneDNN's choice.

    Raises:
        TypeError: an argument is of another type (``hint_fwd_pd`` not an
            :class:`EltwiseForwardDesc`).
        ValueError: ``algorithm`` is not an eltwise one (``AlgKind.ELTWISE_*``), or ``hint_fwd_pd``
            was made for inference or on another engine.
        ClosedObjectError: an argument is closed.
        InvalidArgumentsError: oneDNN refuses the descriptors (shapes that differ).
        UnimplementedError: oneDNN has no implementation for these data types, attributes or
            algorithm (e.g. a gradient of ``ELTWISE_ROUND``).
    """

    __slots__ = ()
    _kind = "eltwise"
    _cpp = "eltwise_backward"
    _forward = EltwiseForwardDesc

    def __init__(
        self,
        engine: Engine,
        algorithm: AlgKind,
        diff_src_desc: MemoryDesc,
        diff_dst_desc: MemoryDesc,
        data_desc: MemoryDesc,
        hint_fwd_pd: EltwiseForwardDesc,
        alpha: float = 0.0,
        beta: float = 0.0,
        *,
        attr: PrimitiveAttr | None = None,
    ) -> None:
        alg = _algorithm(algorithm, "ELTWISE_", "eltwise")
        alpha_, beta_ = _float(alpha, "alpha"), _float(beta, "beta")
        hint = self._checked_hint(hint_fwd_pd, engine)
        self._create(
            "dnnl_eltwise_backward_primitive_desc_create", engine, attr,
            [(diff_src_desc, "diff_src_desc", False), (diff_dst_desc, "diff_dst_desc", False),
             (data_desc, "data_desc", False)],
            lambda e, diff_src, diff_dst, data, h, a: (e, int(alg), diff_src, diff_dst, data, alpha_, beta_, h, a),
            {"algorithm": alg, "alpha": alpha_, "beta": beta_},
            hint=hint,
        )


class SoftmaxForwardDesc(_Kind):
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


class SoftmaxBackwardDesc(_Backward):
    """``dnnl::softmax_backward::primitive_desc``: the gradient of softmax (``AlgKind.SOFTMAX_ACCURATE``)
    or log-softmax (``SOFTMAX_LOG``) along ``axis``, from the forward's destination (``ARG_DST``)
    and ``ARG_DIFF_DST``. ``diff_src_desc`` and ``diff_dst_desc`` may be "format any".

    Raises:
        TypeError: an argument is of another type (``hint_fwd_pd`` not a :class:`SoftmaxForwardDesc`).
        ValueError: ``algorithm`` is not a softmax one, ``axis`` is negative or past a C int,
            ``diff_src_desc`` or ``diff_dst_desc`` has another shape than ``dst_desc`` (oneDNN 3.13
            would take it, and read or write past a buffer), or ``hint_fwd_pd`` was made for
            inference or on another engine.
        ClosedObjectError: an argument is closed.
        InvalidArgumentsError: oneDNN refuses the descriptors (an axis past the last, shapes that differ).
        UnimplementedError: oneDNN has no implementation here (none on some GPUs).
    """

    __slots__ = ()
    _kind = "softmax"
    _cpp = "softmax_backward"
    _forward = SoftmaxForwardDesc

    def __init__(
        self,
        engine: Engine,
        algorithm: AlgKind,
        diff_src_desc: MemoryDesc,
        diff_dst_desc: MemoryDesc,
        dst_desc: MemoryDesc,
        axis: int,
        hint_fwd_pd: SoftmaxForwardDesc,
        *,
        attr: PrimitiveAttr | None = None,
    ) -> None:
        alg = _algorithm(algorithm, "SOFTMAX_", "softmax")
        axis_ = _c_int(axis, "axis")
        hint = self._checked_hint(hint_fwd_pd, engine)
        _same_shapes("a softmax gradient has dst's shape", (dst_desc, "dst_desc"), (diff_src_desc, "diff_src_desc"),
                     (diff_dst_desc, "diff_dst_desc"))
        self._create(
            "dnnl_softmax_backward_primitive_desc_create", engine, attr,
            [(diff_src_desc, "diff_src_desc", False), (diff_dst_desc, "diff_dst_desc", False),
             (dst_desc, "dst_desc", False)],
            lambda e, diff_src, diff_dst, dst, h, a: (e, int(alg), diff_src, diff_dst, dst, axis_, h, a),
            {"axis": axis_},
            hint=hint,
        )


class PReLUForwardDesc(_Kind):
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


class PReLUBackwardDesc(_Backward):
    """``dnnl::prelu_backward::primitive_desc``: the gradients of PReLU, ``diff_src`` (``ARG_DIFF_SRC``)
    and ``diff_weights`` (``ARG_DIFF_WEIGHTS``, summed over the dimensions where the weights
    broadcast), from ``ARG_SRC``, ``ARG_WEIGHTS`` and ``ARG_DIFF_DST``. The diff descriptors may be
    "format any": ``diff_src_desc()``, ``diff_weights_desc()`` and ``diff_dst_desc()`` answer.

    Raises:
        TypeError: an argument is of another type (``hint_fwd_pd`` not a :class:`PReLUForwardDesc`).
        ValueError: ``diff_weights_desc`` has another shape than ``weights_desc`` (oneDNN 3.13 would
            take it, and write past diff_weights), or ``hint_fwd_pd`` was made for inference or on
            another engine.
        ClosedObjectError: an argument is closed.
        InvalidArgumentsError: oneDNN refuses the shapes (weights not broadcastable, diff_src or
            diff_dst of another shape than src).
        UnimplementedError: oneDNN has no implementation for these data types or attributes.
    """

    __slots__ = ()
    _kind = "prelu"
    _cpp = "prelu_backward"
    _forward = PReLUForwardDesc

    def __init__(
        self,
        engine: Engine,
        src_desc: MemoryDesc,
        weights_desc: MemoryDesc,
        diff_src_desc: MemoryDesc,
        diff_weights_desc: MemoryDesc,
        diff_dst_desc: MemoryDesc,
        hint_fwd_pd: PReLUForwardDesc,
        *,
        attr: PrimitiveAttr | None = None,
    ) -> None:
        hint = self._checked_hint(hint_fwd_pd, engine)
        _same_shapes("diff_weights has the weights' shape", (weights_desc, "weights_desc"),
                     (diff_weights_desc, "diff_weights_desc"))
        self._create(
            "dnnl_prelu_backward_primitive_desc_create", engine, attr,
            [(src_desc, "src_desc", False), (weights_desc, "weights_desc", False),
             (diff_src_desc, "diff_src_desc", False), (diff_weights_desc, "diff_weights_desc", False),
             (diff_dst_desc, "diff_dst_desc", False)],
            lambda e, src, weights, diff_src, diff_weights, diff_dst, h, a: (
                e, src, weights, diff_src, diff_weights, diff_dst, h, a),
            hint=hint,
        )
