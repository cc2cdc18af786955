"""Batch, layer and group normalization."""

from __future__ import annotations

from .._attr import PrimitiveAttr, _float
from .._engine import Engine
from .._enums import DataType, NormalizationFlags, PropKind, Query
from .._memory_desc import MemoryDesc
from .._primitive import PrimitiveDesc
from .._validate import count_argument, data_type, enum_argument
from ._kind import _INFERENCE, _Backward, _Kind, _prop_kind

__all__ = [
    "BatchNormalizationForwardDesc",
    "BatchNormalizationBackwardDesc",
    "LayerNormalizationForwardDesc",
    "LayerNormalizationBackwardDesc",
    "GroupNormalizationForwardDesc",
    "GroupNormalizationBackwardDesc",
]


def _flags(flags: object) -> int:
    if isinstance(flags, bool) or not isinstance(flags, int):
        raise TypeError(f"flags: expected NormalizationFlags, got {type(flags).__name__}")
    if flags < 0 or flags & ~sum(NormalizationFlags):
        raise ValueError(f"flags: {flags!r} has bits no NormalizationFlags member has")
    return int(flags)


_BACKWARD_KINDS = (PropKind.BACKWARD, PropKind.BACKWARD_DATA)


def _backward_prop_kind(value: object) -> PropKind:
    kind = enum_argument(value, PropKind, "prop_kind")
    if kind not in _BACKWARD_KINDS:
        raise ValueError(
            f"prop_kind: {kind.name} is not a backward propagation of a normalization: BACKWARD (the gradients "
            "of src, scale and shift) or BACKWARD_DATA (of src alone)"
        )
    return kind


def _flags_name(flags: int) -> str:
    names = [str(member.name) for member in NormalizationFlags if member and flags & member]
    return "NormalizationFlags." + (" | ".join(names) if names else "NONE")


def _agreeing_flags(flags: int, hint: PrimitiveDesc, kind: str) -> None:
    """The flags of a backward normalization are those of its forward: oneDNN
    refuses others with a bare "could not create a primitive descriptor"."""
    forward = hint.query_s32(Query.FLAGS)
    if flags != forward:
        raise ValueError(
            f"flags: {_flags_name(flags)}, but hint_fwd_pd, the forward {kind}, was made with "
            f"{_flags_name(forward)}; the backward pass reads what that forward used and wrote (scale, shift, "
            f"its statistics, its workspace): give it the forward's flags, {_flags_name(forward)}"
        )


class BatchNormalizationForwardDesc(_Kind):
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


class BatchNormalizationBackwardDesc(_Backward):
    """``dnnl::batch_normalization_backward::primitive_desc``: the gradient of a
    batch normalization, guided by ``hint_fwd_pd``, the
    :class:`BatchNormalizationForwardDesc` made for ``PropKind.FORWARD_TRAINING``
    with the same ``flags``. ``prop_kind``: ``PropKind.BACKWARD`` (``diff_src``,
    and ``diff_scale``/``diff_shift`` with ``USE_SCALE``/``USE_SHIFT``) or
    ``BACKWARD_DATA`` (``diff_src`` alone). Execute reads the forward's
    ``ARG_MEAN`` and ``ARG_VARIANCE``, and with ``FUSE_NORM_RELU`` its workspace
    (see :func:`workspace_memory`).

    Raises:
        TypeError: an argument is of another type (``hint_fwd_pd`` not a
            :class:`BatchNormalizationForwardDesc`).
        ValueError: ``flags`` has unknown bits or differs from the forward's; ``prop_kind`` is not
            ``BACKWARD`` or ``BACKWARD_DATA``; ``hint_fwd_pd`` was made for inference or on another
            engine.
        ClosedObjectError: an argument is closed.
        InvalidArgumentsError: oneDNN refuses the descriptors.
        UnimplementedError: oneDNN has no implementation for these data types or flags.
    """

    __slots__ = ()
    _kind = "batch normalization"
    _cpp = "batch_normalization_backward"
    _forward = BatchNormalizationForwardDesc

    def __init__(
        self,
        engine: Engine,
        diff_src_desc: MemoryDesc,
        diff_dst_desc: MemoryDesc,
        src_desc: MemoryDesc,
        epsilon: float,
        flags: NormalizationFlags,
        hint_fwd_pd: BatchNormalizationForwardDesc,
        *,
        prop_kind: PropKind = PropKind.BACKWARD,
        attr: PrimitiveAttr | None = None,
    ) -> None:
        prop, eps, flags_ = _backward_prop_kind(prop_kind), _float(epsilon, "epsilon"), _flags(flags)
        hint = self._checked_hint(hint_fwd_pd, engine)
        _agreeing_flags(flags_, hint, self._kind)
        self._create(
            "dnnl_batch_normalization_backward_primitive_desc_create", engine, attr,
            [(diff_src_desc, "diff_src_desc", False), (diff_dst_desc, "diff_dst_desc", False),
             (src_desc, "src_desc", False)],
            lambda e, diff_src, diff_dst, src, h, a: (e, int(prop), diff_src, diff_dst, src, eps, flags_, h, a),
            hint=hint,
        )


class LayerNormalizationForwardDesc(_Kind):
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


class LayerNormalizationBackwardDesc(_Backward):
    """``dnnl::layer_normalization_backward::primitive_desc``: the gradient of a
    layer normalization, guided by ``hint_fwd_pd``, the
    :class:`LayerNormalizationForwardDesc` made for ``PropKind.FORWARD_TRAINING``
    with the same ``flags`` (``stat_desc`` as the forward's; ``prop_kind``
    ``PropKind.BACKWARD`` or ``BACKWARD_DATA``, as for batch normalization).
    Execute reads the forward's ``ARG_MEAN`` and ``ARG_VARIANCE``.

    Raises:
        TypeError: an argument is of another type (``hint_fwd_pd`` not a
            :class:`LayerNormalizationForwardDesc`).
        ValueError: ``flags`` has unknown bits or differs from the forward's; ``prop_kind`` is not
            ``BACKWARD`` or ``BACKWARD_DATA``; ``hint_fwd_pd`` was made for inference or on another
            engine.
        ClosedObjectError: an argument is closed.
        InvalidArgumentsError: oneDNN refuses the descriptors.
        UnimplementedError: oneDNN has no implementation for these data types or flags.
    """

    __slots__ = ()
    _kind = "layer normalization"
    _cpp = "layer_normalization_backward"
    _forward = LayerNormalizationForwardDesc

    def __init__(
        self,
        engine: Engine,
        diff_src_desc: MemoryDesc,
        diff_dst_desc: MemoryDesc,
        src_desc: MemoryDesc,
        epsilon: float,
        flags: NormalizationFlags,
        hint_fwd_pd: LayerNormalizationForwardDesc,
        *,
        stat_desc: MemoryDesc | None = None,
        prop_kind: PropKind = PropKind.BACKWARD,
        attr: PrimitiveAttr | None = None,
    ) -> None:
        prop, eps, flags_ = _backward_prop_kind(prop_kind), _float(epsilon, "epsilon"), _flags(flags)
        hint = self._checked_hint(hint_fwd_pd, engine)
        _agreeing_flags(flags_, hint, self._kind)
        self._create(
            "dnnl_layer_normalization_backward_primitive_desc_create", engine, attr,
            [(diff_src_desc, "diff_src_desc", False), (diff_dst_desc, "diff_dst_desc", False),
             (src_desc, "src_desc", False), (stat_desc, "stat_desc", True)],
            lambda e, diff_src, diff_dst, src, stat, h, a: (e, int(prop), diff_src, diff_dst, src, stat, eps, flags_,
                                                            h, a),
            hint=hint,
        )


class GroupNormalizationForwardDesc(_Kind):
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


class GroupNormalizationBackwardDesc(_Backward):
    """``dnnl::group_normalization_backward::primitive_desc``: the gradient of a
    group normalization, guided by ``hint_fwd_pd``, the
    :class:`GroupNormalizationForwardDesc` made for ``PropKind.FORWARD_TRAINING``
    with the same ``groups`` and ``flags`` (``prop_kind`` ``PropKind.BACKWARD``
    or ``BACKWARD_DATA``). Execute reads the forward's ``ARG_MEAN`` and
    ``ARG_VARIANCE``.

    Raises:
        TypeError: an argument is of another type (``hint_fwd_pd`` not a
            :class:`GroupNormalizationForwardDesc`).
        ValueError: ``groups`` is negative; ``flags`` has unknown bits or differs from the forward's;
            ``prop_kind`` is not ``BACKWARD`` or ``BACKWARD_DATA``; ``hint_fwd_pd`` was made for
            inference or on another engine.
        ClosedObjectError: an argument is closed.
        InvalidArgumentsError: oneDNN refuses the descriptors (channels not a multiple of groups).
        UnimplementedError: oneDNN has no implementation for these data types or flags.
    """

    __slots__ = ()
    _kind = "group normalization"
    _cpp = "group_normalization_backward"
    _forward = GroupNormalizationForwardDesc

    def __init__(
        self,
        engine: Engine,
        diff_src_desc: MemoryDesc,
        diff_dst_desc: MemoryDesc,
        src_desc: MemoryDesc,
        groups: int,
        epsilon: float,
        flags: NormalizationFlags,
        hint_fwd_pd: GroupNormalizationForwardDesc,
        *,
        prop_kind: PropKind = PropKind.BACKWARD,
        attr: PrimitiveAttr | None = None,
    ) -> None:
        prop, eps, flags_ = _backward_prop_kind(prop_kind), _float(epsilon, "epsilon"), _flags(flags)
        groups_ = count_argument(groups, "groups")
        hint = self._checked_hint(hint_fwd_pd, engine)
        _agreeing_flags(flags_, hint, self._kind)
        self._create(
            "dnnl_group_normalization_backward_primitive_desc_create", engine, attr,
            [(diff_src_desc, "diff_src_desc", False), (diff_dst_desc, "diff_dst_desc", False),
             (src_desc, "src_desc", False)],
            lambda e, diff_src, diff_dst, src, h, a: (e, int(prop), diff_src, diff_dst, src, groups_, eps, flags_,
                                                      h, a),
            {"groups": groups_},
            hint=hint,
        )
