"""Elementwise kinds: eltwise, softmax and PReLU."""

from __future__ import annotations

from .._attr import PrimitiveAttr, _float
from .._engine import Engine
from .._enums import AlgKind, PropKind
from .._memory_desc import MemoryDesc
from ._kind import _INFERENCE, _algorithm, _c_int, _Kind, _prop_kind

__all__ = ["EltwiseForwardDesc", "SoftmaxForwardDesc", "PReLUForwardDesc"]


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
