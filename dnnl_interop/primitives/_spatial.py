"""Kinds that move or pool over spatial positions and channels: pooling, resampling, LRN, shuffle."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .._attr import PrimitiveAttr, _float
from .._engine import Engine
from .._enums import AlgKind, PropKind
from .._ffi import ffi
from .._library import version
from .._memory_desc import MemoryDesc
from .._validate import count_argument
from ._kind import (
    _INFERENCE,
    _MIN_PADDING_R,
    _algorithm,
    _Backward,
    _c_int,
    _dims,
    _Kind,
    _prop_kind,
    _refuse_known_bug,
    _spatial,
)

if TYPE_CHECKING:
    from .._ffi import CData

__all__ = [
    "PoolingForwardDesc",
    "PoolingBackwardDesc",
    "ResamplingForwardDesc",
    "ResamplingBackwardDesc",
    "LRNForwardDesc",
    "LRNBackwardDesc",
    "ShuffleForwardDesc",
    "ShuffleBackwardDesc",
]


class PoolingForwardDesc(_Kind):
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
        c_left, c_right = _dims(padding_l, "padding_l", n), _dims(padding_r, "padding_r", n, minimum=_MIN_PADDING_R)
        self._create(
            "dnnl_pooling_forward_primitive_desc_create", engine, attr,
            [(src_desc, "src_desc", False), (dst_desc, "dst_desc", False)],
            lambda e, src, dst, a: (e, int(prop), int(alg), src, dst, c_strides, c_kernel, c_dilation,
                                    c_left, c_right, a),
            {"algorithm": alg, "strides": strides, "kernel": kernel, "padding_l": padding_l, "padding_r": padding_r,
             "dilation": dilation},
        )


class PoolingBackwardDesc(_Backward):
    """``dnnl::pooling_backward::primitive_desc``: the gradient of a pooling,
    ``diff_src`` from ``diff_dst``, guided by ``hint_fwd_pd``, the
    :class:`PoolingForwardDesc` made for ``PropKind.FORWARD_TRAINING`` with the
    same algorithm and shapes. Max pooling reads where each maximum was from
    the forward execution's workspace (``ARG_WORKSPACE``: see
    :func:`workspace_memory`); average pooling needs none.

    Raises:
        TypeError: an argument is of another type (``hint_fwd_pd`` not a
            :class:`PoolingForwardDesc`).
        ValueError: a dims argument has another length than the spatial dimensions, or a
            negative value; ``algorithm`` is not a pooling one; ``hint_fwd_pd`` was made for
            inference or on another engine.
        ClosedObjectError: an argument is closed.
        InvalidArgumentsError: oneDNN refuses the shapes.
        UnimplementedError: oneDNN has no implementation for these data types or attributes,
            or none that agrees with ``hint_fwd_pd``; or oneDNN 3.13's GPU global pooling
            backward was chosen for a source padded on the left (see below).

    oneDNN 3.13 (seen in 3.13.2, on real oneDNN, emulated GPU) runs the
    backward of a pooling with one output on its GPU kernel "ocl:xe_global",
    which ignores ``padding_l`` and pools the whole source: where the window
    leaves part of the source out, max pooling sends the gradient to the whole
    source's maximum rather than the window's, and average pooling divides
    by another count. The descriptor raises ``UnimplementedError`` for that
    kernel with any left padding: run such a backward on the CPU engine, or
    pool a source cut to the window, without ``padding_l``.
    """

    __slots__ = ()
    _kind = "pooling"
    _cpp = "pooling_backward"
    _forward = PoolingForwardDesc

    def __init__(
        self,
        engine: Engine,
        algorithm: AlgKind,
        diff_src_desc: MemoryDesc,
        diff_dst_desc: MemoryDesc,
        strides: Sequence[int],
        kernel: Sequence[int],
        padding_l: Sequence[int],
        padding_r: Sequence[int],
        hint_fwd_pd: PoolingForwardDesc,
        *,
        dilation: Sequence[int] | None = None,
        attr: PrimitiveAttr | None = None,
    ) -> None:
        alg = _algorithm(algorithm, "POOLING_", "pooling")
        n = _spatial(diff_src_desc, "diff_src_desc")
        c_strides, c_kernel = _dims(strides, "strides", n, minimum=1), _dims(kernel, "kernel", n, minimum=1)
        c_dilation = _dims([0] * n if dilation is None else dilation, "dilation", n)
        c_left, c_right = _dims(padding_l, "padding_l", n), _dims(padding_r, "padding_r", n, minimum=_MIN_PADDING_R)
        hint = self._checked_hint(hint_fwd_pd, engine)
        self._create(
            "dnnl_pooling_backward_primitive_desc_create", engine, attr,
            [(diff_src_desc, "diff_src_desc", False), (diff_dst_desc, "diff_dst_desc", False)],
            lambda e, diff_src, diff_dst, h, a: (e, int(alg), diff_src, diff_dst, c_strides, c_kernel, c_dilation,
                                                 c_left, c_right, h, a),
            {"algorithm": alg, "strides": strides, "kernel": kernel, "padding_l": padding_l, "padding_r": padding_r,
             "dilation": dilation},
            hint=hint,
        )
        _refuse_global_backward_with_left_padding(self, tuple(padding_l))


def _refuse_global_backward_with_left_padding(desc: PoolingBackwardDesc, padding_l: tuple[int, ...]) -> None:
    """Never oneDNN 3.13's GPU global pooling backward of a source padded on the left (see
    :class:`PoolingBackwardDesc`): ``desc`` is closed and ``UnimplementedError`` raised."""
    found = version()
    if (found.major, found.minor) > (3, 13) or not any(padding_l) or not desc.impl_info.startswith("ocl:xe_global"):
        return
    reason = (
        f"padding_l: {padding_l} pads the source of a pooling with one output, and the implementation oneDNN "
        f"{found.number} chose for its backward ({desc.impl_info}) ignores the left padding and pools the whole source "
        "(oneDNN bug: max pooling would send the gradient to the whole source's maximum rather than the window's, "
        "average pooling divide by another count); run this backward on the CPU engine, or pool a source cut to "
        "the window, without padding_l"
    )
    _refuse_known_bug(desc, "dnnl_pooling_backward_primitive_desc_create", reason)


class ResamplingForwardDesc(_Kind):
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
        c_factors = _factors(factors, src_desc, "src_desc")
        self._create(
            "dnnl_resampling_forward_primitive_desc_create", engine, attr,
            [(src_desc, "src_desc", False), (dst_desc, "dst_desc", False)],
            lambda e, src, dst, a: (e, int(prop), int(alg), c_factors, src, dst, a),
        )


def _factors(factors: Sequence[float] | None, desc: object, what: str) -> CData:
    """``factors`` as the ``const float *`` oneDNN takes, one per spatial dimension of ``desc``
    (NULL for None: the shapes say)."""
    if factors is None:
        return ffi.NULL
    n = _spatial(desc, what)
    if isinstance(factors, (str, bytes)) or not isinstance(factors, Sequence) or len(factors) != n:
        raise ValueError(f"factors: expected {n} numbers, one per spatial dimension, got {factors!r}")
    return ffi.new("float[]", [_float(f, f"factors[{i}]") for i, f in enumerate(factors)])


class ResamplingBackwardDesc(_Backward):
    """``dnnl::resampling_backward::primitive_desc``: the gradient of nearest or linear
    resampling, ``ARG_DIFF_SRC`` from ``ARG_DIFF_DST`` (each source element gathers the
    gradients of the destination elements it contributed to, with the same weights).
    ``factors`` as in the forward (one per spatial dimension; None: the shapes say; oneDNN
    3.13's CPU engine computes from the shapes either way). ``diff_src_desc`` and
    ``diff_dst_desc`` may be "format any".

    Raises:
        TypeError: an argument is of another type (``hint_fwd_pd`` not a
            :class:`ResamplingForwardDesc`).
        ValueError: ``factors`` has another length than the spatial dimensions, ``algorithm`` is
            not a resampling one, or ``hint_fwd_pd`` was made for inference or on another engine.
        ClosedObjectError: an argument is closed.
        InvalidArgumentsError: oneDNN refuses the shapes.
        UnimplementedError: oneDNN has no implementation for these data types or attributes.
    """

    __slots__ = ()
    _kind = "resampling"
    _cpp = "resampling_backward"
    _forward = ResamplingForwardDesc

    def __init__(
        self,
        engine: Engine,
        algorithm: AlgKind,
        diff_src_desc: MemoryDesc,
        diff_dst_desc: MemoryDesc,
        hint_fwd_pd: ResamplingForwardDesc,
        *,
        factors: Sequence[float] | None = None,
        attr: PrimitiveAttr | None = None,
    ) -> None:
        alg = _algorithm(algorithm, "RESAMPLING_", "resampling")
        c_factors = _factors(factors, diff_src_desc, "diff_src_desc")
        hint = self._checked_hint(hint_fwd_pd, engine)
        self._create(
            "dnnl_resampling_backward_primitive_desc_create", engine, attr,
            [(diff_src_desc, "diff_src_desc", False), (diff_dst_desc, "diff_dst_desc", False)],
            lambda e, diff_src, diff_dst, h, a: (e, int(alg), c_factors, diff_src, diff_dst, h, a),
            hint=hint,
        )



class LRNForwardDesc(_Kind):
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


class LRNBackwardDesc(_Backward):
    """``dnnl::lrn_backward::primitive_desc``: the gradient of a local response
    normalization, ``diff_src`` from ``diff_dst`` and the forward's ``src``,
    guided by ``hint_fwd_pd``, the :class:`LRNForwardDesc` made for
    ``PropKind.FORWARD_TRAINING`` with the same parameters. Some
    implementations read a workspace the forward execution wrote
    (``hint_fwd_pd.workspace_desc()`` says; see :func:`workspace_memory`).

    Raises:
        TypeError: an argument is of another type (``hint_fwd_pd`` not an :class:`LRNForwardDesc`).
        ValueError: ``local_size`` is negative; ``algorithm`` is not an LRN one; ``hint_fwd_pd``
            was made for inference or on another engine.
        ClosedObjectError: an argument is closed.
        InvalidArgumentsError: oneDNN refuses the descriptors.
        UnimplementedError: oneDNN has no implementation for these data types or attributes,
            or none that agrees with ``hint_fwd_pd``.
    """

    __slots__ = ()
    _kind = "lrn"
    _cpp = "lrn_backward"
    _forward = LRNForwardDesc

    def __init__(
        self,
        engine: Engine,
        algorithm: AlgKind,
        diff_src_desc: MemoryDesc,
        diff_dst_desc: MemoryDesc,
        src_desc: MemoryDesc,
        local_size: int,
        alpha: float,
        beta: float,
        k: float,
        hint_fwd_pd: LRNForwardDesc,
        *,
        attr: PrimitiveAttr | None = None,
    ) -> None:
        alg = _algorithm(algorithm, "LRN_", "lrn")
        size = count_argument(local_size, "local_size")
        alpha_, beta_, k_ = _float(alpha, "alpha"), _float(beta, "beta"), _float(k, "k")
        hint = self._checked_hint(hint_fwd_pd, engine)
        self._create(
            "dnnl_lrn_backward_primitive_desc_create", engine, attr,
            [(diff_src_desc, "diff_src_desc", False), (diff_dst_desc, "diff_dst_desc", False),
             (src_desc, "src_desc", False)],
            lambda e, diff_src, diff_dst, src, h, a: (e, int(alg), diff_src, diff_dst, src, size, alpha_, beta_, k_,
                                                      h, a),
            hint=hint,
        )


class ShuffleForwardDesc(_Kind):
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


class ShuffleBackwardDesc(_Backward):
    """``dnnl::shuffle_backward::primitive_desc``: the gradient of a channel shuffle along ``axis``
    in groups of ``group_size`` (the forward's arguments): ``ARG_DIFF_DST`` shuffled back into
    ``ARG_DIFF_SRC``. ``diff_src_desc`` and ``diff_dst_desc`` may be "format any".

    Raises:
        TypeError: an argument is of another type (``hint_fwd_pd`` not a :class:`ShuffleForwardDesc`).
        ValueError: ``axis`` or ``group_size`` is negative (``axis`` past a C int), or ``hint_fwd_pd``
            was made for inference or on another engine.
        ClosedObjectError: an argument is closed.
        InvalidArgumentsError: oneDNN refuses the shapes (the axis not a multiple of the group).
        UnimplementedError: oneDNN has no implementation for these data types or attributes.
    """

    __slots__ = ()
    _kind = "shuffle"
    _cpp = "shuffle_backward"
    _forward = ShuffleForwardDesc

    def __init__(
        self,
        engine: Engine,
        diff_src_desc: MemoryDesc,
        diff_dst_desc: MemoryDesc,
        axis: int,
        group_size: int,
        hint_fwd_pd: ShuffleForwardDesc,
        *,
        attr: PrimitiveAttr | None = None,
    ) -> None:
        axis_, group = _c_int(axis, "axis"), count_argument(group_size, "group_size")
        hint = self._checked_hint(hint_fwd_pd, engine)
        self._create(
            "dnnl_shuffle_backward_primitive_desc_create", engine, attr,
            [(diff_src_desc, "diff_src_desc", False), (diff_dst_desc, "diff_dst_desc", False)],
            lambda e, diff_src, diff_dst, h, a: (e, diff_src, diff_dst, axis_, group, h, a),
            {"axis": axis_, "group_size": group},
            hint=hint,
        )
