"""Batch, layer and group normalization."""

from __future__ import annotations

from .._attr import PrimitiveAttr, _float
from .._engine import Engine
from .._enums import DataType, NormalizationFlags, PropKind
from .._memory_desc import MemoryDesc
from .._validate import count_argument, data_type
from ._kind import _INFERENCE, _Kind, _prop_kind

__all__ = ["BatchNormalizationForwardDesc", "LayerNormalizationForwardDesc", "GroupNormalizationForwardDesc"]


def _flags(flags: object) -> int:
    if isinstance(flags, bool) or not isinstance(flags, int):
        raise TypeError(f"flags: expected NormalizationFlags, got {type(flags).__name__}")
    if flags < 0 or flags & ~sum(NormalizationFlags):
        raise ValueError(f"flags: {flags!r} has bits no NormalizationFlags member has")
    return int(flags)


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
