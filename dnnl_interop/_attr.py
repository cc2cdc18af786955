"""Primitive attributes (``dnnl_primitive_attr_t``) and post-ops (``dnnl_post_ops_t``),
as ``dnnl::primitive_attr`` and ``dnnl::post_ops``; and the execute-argument
indices they add (post-op inputs, scales, zero points).

oneDNN copies both into the primitive descriptor made with them: changing
an attribute afterwards changes no descriptor, and either may be closed
once the descriptor is made.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ._args import ARG_ATTR_SCALES, ARG_ATTR_ZERO_POINTS, ARG_SRC_1
from ._enums import AccumulationMode, AlgKind, DataType, FpmathMode, PrimitiveKind, ScratchpadMode
from ._ffi import ffi, lib
from ._library import check
from ._memory_desc import MemoryDesc, desc_of
from ._owned import Owned, using
from ._validate import arg_argument, count_argument, data_type, enum_argument

if TYPE_CHECKING:
    from ._ffi import CData

__all__ = [
    "PostOps",
    "PrimitiveAttr",
    "post_op_arg",
    "scales_arg",
    "zero_points_arg",
]

_C_INT = 2**31
_POST_OP_BASE = lib.DNNL_ARG_ATTR_MULTIPLE_POST_OP_BASE


def post_op_arg(index: int, arg: int = ARG_SRC_1) -> int:
    """The execute argument of post-op ``index``'s input ``arg``:
    ``DNNL_ARG_ATTR_MULTIPLE_POST_OP(index) | arg`` (a C macro, ``32768 * (index + 1)``).

    ``{post_op_arg(0): bias_memory}`` gives a binary post-op at index 0 its second input.

    Raises:
        TypeError: ``index`` or ``arg`` is not an int.
        ValueError: ``index`` is negative or too large for an argument index.
    """
    index = count_argument(index, "index")
    arg = arg_argument(arg)
    if _POST_OP_BASE * (index + 1) >= _C_INT:
        raise ValueError(f"index: {index} is more post-ops than an argument index can name")
    return _POST_OP_BASE * (index + 1) | arg


def scales_arg(arg: int) -> int:
    """The execute argument of the scales of ``arg``: ``DNNL_ARG_ATTR_SCALES | arg``.

    Raises:
        TypeError: ``arg`` is not an int.
        ValueError: ``arg`` is no argument index.
    """
    return ARG_ATTR_SCALES | arg_argument(arg)


def zero_points_arg(arg: int) -> int:
    """The execute argument of the zero points of ``arg``: ``DNNL_ARG_ATTR_ZERO_POINTS | arg``.

    Raises:
        TypeError: ``arg`` is not an int.
        ValueError: ``arg`` is no argument index.
    """
    return ARG_ATTR_ZERO_POINTS | arg_argument(arg)


def _float(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{what}: expected a number, got {type(value).__name__}")
    try:
        return float(value)
    except OverflowError:  # an int past the largest float
        raise ValueError(f"{what}: an int too large for a float") from None


def _int32(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what}: expected an int, got {type(value).__name__}")
    if not -_C_INT <= value < _C_INT:
        raise ValueError(f"{what}: {value} does not fit a 32-bit int")
    return value


def _mask(mask: object) -> int:
    mask = _int32(mask, "mask")
    if mask < 0:
        raise ValueError(f"mask: {mask} is negative; a mask has a bit per dimension")
    return mask


def _groups(groups: object) -> tuple[int, ...]:
    if isinstance(groups, (str, bytes)) or not isinstance(groups, Sequence):
        raise TypeError(f"groups: expected a sequence of ints, got {type(groups).__name__}")
    found = tuple(count_argument(g, f"groups[{i}]") for i, g in enumerate(groups))
    if len(found) > lib.DNNL_MAX_NDIMS:
        raise ValueError(f"groups: at most {lib.DNNL_MAX_NDIMS} group dimensions, not {len(found)}")
    return found


class PostOps(Owned):
    """The operations a primitive applies to its result (``dnnl::post_ops``):
    eltwise, binary (and select), sum, PReLU and depthwise convolution, in the
    order they are appended.

    Raises:
        DnnlError: oneDNN cannot make the list.
    """

    __slots__ = ()
    _ctype = "dnnl_post_ops_t"
    _destroy = lib.dnnl_post_ops_destroy
    _destroy_name = "dnnl_post_ops_destroy"

    def __init__(self) -> None:
        self._refuse_reinit()
        out = self._new_out()
        check(lib.dnnl_post_ops_create(out), "dnnl_post_ops_create")
        self._adopt(out[0])

    @classmethod
    def _copy_of(cls, c_post_ops: CData) -> PostOps:
        out = cls._new_out()
        check(lib.dnnl_post_ops_clone(out, c_post_ops), "dnnl_post_ops_clone")
        return cls._from_handle(out[0])

    def __len__(self) -> int:
        with using((self, PostOps, "post_ops")) as ops:
            return int(lib.dnnl_post_ops_len(ops))

    def kind(self, index: int) -> PrimitiveKind:
        """The kind of post-op ``index``: ``ELTWISE``, ``BINARY``, ``SUM``, ``PRELU`` or
        ``CONVOLUTION`` (a depthwise one).

        Raises:
            TypeError: ``index`` is not an int.
            IndexError: there is no post-op ``index``.
            ClosedObjectError: the post-ops are closed.
        """
        index = self._index(index)
        with using((self, PostOps, "post_ops")) as ops:
            return PrimitiveKind(lib.dnnl_post_ops_get_kind(ops, index))

    def _index(self, index: object) -> int:
        index = count_argument(index, "index")
        if index >= len(self):
            raise IndexError(f"index: {index}, but there are {len(self)} post-ops")
        return index

    def append_sum(self, scale: float = 1.0, zero_point: int = 0, data_type: object = DataType.UNDEF) -> None:
        """Add the previous value of dst, times ``scale``, less ``zero_point``, to the result.

        Raises:
            TypeError: an argument is of another type.
            ValueError: ``zero_point`` does not fit an int32.
            ClosedObjectError: the post-ops are closed.
            DnnlError: oneDNN refuses the post-op.
        """
        dtype = _optional_data_type(data_type)
        scale_ = _float(scale, "scale")
        zero = _int32(zero_point, "zero_point")
        with using((self, PostOps, "post_ops")) as ops:
            check(lib.dnnl_post_ops_append_sum(ops, scale_, zero, int(dtype)), "dnnl_post_ops_append_sum")

    def append_eltwise(self, algorithm: AlgKind, alpha: float = 0.0, beta: float = 0.0) -> None:
        """Apply an element-wise function (``AlgKind.ELTWISE_RELU``, ...) to the result.

        Raises:
            TypeError: ``algorithm`` is not an AlgKind, ``alpha`` or ``beta`` not a number.
            ValueError: ``algorithm`` is no algorithm kind.
            ClosedObjectError: the post-ops are closed.
            DnnlError: oneDNN refuses the post-op (an algorithm that is not an eltwise one).
        """
        alg = enum_argument(algorithm, AlgKind, "algorithm")
        alpha_, beta_ = _float(alpha, "alpha"), _float(beta, "beta")
        with using((self, PostOps, "post_ops")) as ops:
            check(lib.dnnl_post_ops_append_eltwise(ops, int(alg), alpha_, beta_), "dnnl_post_ops_append_eltwise")

    def append_binary(self, algorithm: AlgKind, src1_desc: MemoryDesc, src2_desc: MemoryDesc | None = None) -> None:
        """Combine the result with a second input (``AlgKind.BINARY_ADD``, ...) of
        layout ``src1_desc``, given at execute as ``{post_op_arg(index): memory}``.

        ``AlgKind.BINARY_SELECT`` takes a third input, the condition, of layout
        ``src2_desc`` (dst's shape, no broadcast), given as
        ``{post_op_arg(index, ARG_SRC_2): memory}``: the result where it is
        nonzero, the second input elsewhere.

        Raises:
            TypeError: ``algorithm`` is not an AlgKind, ``src1_desc`` or ``src2_desc`` not a MemoryDesc.
            ValueError: ``algorithm`` is no algorithm kind, or ``src2_desc`` is missing for
                ``BINARY_SELECT`` or given for another algorithm.
            ClosedObjectError: the post-ops or a descriptor are closed.
            DnnlError: oneDNN refuses the post-op (an algorithm that is not a binary one).
        """
        alg = enum_argument(algorithm, AlgKind, "algorithm")
        select = alg == AlgKind.BINARY_SELECT
        if select and src2_desc is None:
            raise ValueError("src2_desc: BINARY_SELECT takes a condition: give its descriptor as src2_desc")
        if not select and src2_desc is not None:
            raise ValueError(f"src2_desc: only BINARY_SELECT takes a third input, not {alg.name}")
        if src2_desc is None:
            with using((self, PostOps, "post_ops"), (src1_desc, MemoryDesc, "src1_desc")) as (ops, md):
                check(lib.dnnl_post_ops_append_binary(ops, int(alg), md), "dnnl_post_ops_append_binary")
            return
        with using((self, PostOps, "post_ops"), (src1_desc, MemoryDesc, "src1_desc"),
                   (src2_desc, MemoryDesc, "src2_desc")) as (ops, md1, md2):
            check(lib.dnnl_post_ops_append_binary_v2(ops, int(alg), md1, md2), "dnnl_post_ops_append_binary_v2")

    def append_prelu(self, mask: int) -> None:
        """Apply PReLU to the result: ``x`` where ``x > 0``, ``x * w`` elsewhere, with
        f32 weights ``w`` given at execute as ``{post_op_arg(index, ARG_WEIGHTS): memory}``,
        in a plain layout: one value (``mask`` 0) or one per index of dst's dimensions
        whose bits ``mask`` sets (the others of size 1).

        Raises:
            TypeError: ``mask`` is not an int.
            ValueError: ``mask`` is negative.
            ClosedObjectError: the post-ops are closed.
            DnnlError: oneDNN refuses the post-op.
        """
        mask_ = _mask(mask)
        with using((self, PostOps, "post_ops")) as ops:
            check(lib.dnnl_post_ops_append_prelu(ops, mask_), "dnnl_post_ops_append_prelu")

    def append_dw(
        self, weights_data_type: object, bias_data_type: object, dst_data_type: object,
        kernel_size: int, stride_size: int, padding_l_size: int,
    ) -> None:
        """Fuse a depthwise convolution after a 1x1 convolution: a ``kernel_size``
        square kernel per channel, of stride ``stride_size`` and top and left padding
        ``padding_l_size``. Its weights (``(channels, 1, 1, kernel_size, kernel_size)``,
        "Abcde8a"-like layouts a ``pd.arg_desc`` gives) and bias come at execute as
        ``{ARG_ATTR_POST_OP_DW | ARG_WEIGHTS: ..., ARG_ATTR_POST_OP_DW | ARG_BIAS: ...}``;
        dst has the depthwise convolution's shape. ``bias_data_type`` ``DataType.UNDEF``
        (or None): no bias.

        Raises:
            TypeError: an argument is of another type.
            ValueError: a size is negative or too large.
            ClosedObjectError: the post-ops are closed.
            DnnlError: oneDNN refuses the post-op.
        """
        weights = data_type(weights_data_type, "weights_data_type")
        bias = _optional_data_type(bias_data_type, "bias_data_type")
        dst = data_type(dst_data_type, "dst_data_type")
        sizes = [_dim(value, what) for value, what in ((kernel_size, "kernel_size"), (stride_size, "stride_size"),
                                                       (padding_l_size, "padding_l_size"))]
        with using((self, PostOps, "post_ops")) as ops:
            check(lib.dnnl_post_ops_append_dw(ops, int(weights), int(bias), int(dst), *sizes),
                  "dnnl_post_ops_append_dw")

    def get_params_sum(self, index: int) -> tuple[float, int, DataType]:
        """``(scale, zero_point, data_type)`` of the sum post-op ``index``.

        Raises:
            TypeError: ``index`` is not an int.
            IndexError: there is no post-op ``index``.
            ClosedObjectError: the post-ops are closed.
            DnnlError: post-op ``index`` is not a sum.
        """
        index = self._index(index)
        scale, zero, dtype = ffi.new("float *"), ffi.new("int32_t *"), ffi.new("dnnl_data_type_t *")
        with using((self, PostOps, "post_ops")) as ops:
            check(lib.dnnl_post_ops_get_params_sum(ops, index, scale, zero, dtype), "dnnl_post_ops_get_params_sum")
        return float(scale[0]), int(zero[0]), DataType(dtype[0])

    def get_params_eltwise(self, index: int) -> tuple[AlgKind, float, float]:
        """``(algorithm, alpha, beta)`` of the eltwise post-op ``index``.

        Raises:
            TypeError: ``index`` is not an int.
            IndexError: there is no post-op ``index``.
            ClosedObjectError: the post-ops are closed.
            DnnlError: post-op ``index`` is not an eltwise one.
        """
        index = self._index(index)
        alg, alpha, beta = ffi.new("dnnl_alg_kind_t *"), ffi.new("float *"), ffi.new("float *")
        with using((self, PostOps, "post_ops")) as ops:
            check(lib.dnnl_post_ops_get_params_eltwise(ops, index, alg, alpha, beta),
                  "dnnl_post_ops_get_params_eltwise")
        return AlgKind(alg[0]), float(alpha[0]), float(beta[0])

    def get_params_prelu(self, index: int) -> int:
        """The mask of the PReLU post-op ``index``.

        Raises:
            TypeError: ``index`` is not an int.
            IndexError: there is no post-op ``index``.
            ClosedObjectError: the post-ops are closed.
            DnnlError: post-op ``index`` is not a PReLU one.
        """
        index = self._index(index)
        mask = ffi.new("int *")
        with using((self, PostOps, "post_ops")) as ops:
            check(lib.dnnl_post_ops_get_params_prelu(ops, index, mask), "dnnl_post_ops_get_params_prelu")
        return int(mask[0])

    def get_params_dw(self, index: int) -> tuple[DataType, DataType, DataType, int, int, int]:
        """``(weights_data_type, bias_data_type, dst_data_type, kernel_size, stride_size,
        padding_l_size)`` of the depthwise post-op ``index``.

        Raises:
            TypeError: ``index`` is not an int.
            IndexError: there is no post-op ``index``.
            ClosedObjectError: the post-ops are closed.
            DnnlError: post-op ``index`` is not a depthwise one.
        """
        index = self._index(index)
        types = [ffi.new("dnnl_data_type_t *") for _ in range(3)]
        sizes = [ffi.new("dnnl_dim_t *") for _ in range(3)]
        with using((self, PostOps, "post_ops")) as ops:
            check(lib.dnnl_post_ops_get_params_dw(ops, index, *types, *sizes), "dnnl_post_ops_get_params_dw")
        weights, bias, dst = (DataType(t[0]) for t in types)
        kernel, stride, padding = (int(n[0]) for n in sizes)
        return weights, bias, dst, kernel, stride, padding

    def get_params_binary(self, index: int) -> tuple[AlgKind, MemoryDesc]:
        """``(algorithm, src1_desc)`` of the binary post-op ``index``.

        Raises:
            TypeError: ``index`` is not an int.
            IndexError: there is no post-op ``index``.
            ClosedObjectError: the post-ops are closed.
            DnnlError: post-op ``index`` is not a binary one.
        """
        index = self._index(index)
        alg, md = ffi.new("dnnl_alg_kind_t *"), ffi.new("const_dnnl_memory_desc_t *")
        with using((self, PostOps, "post_ops")) as ops:
            check(lib.dnnl_post_ops_get_params_binary(ops, index, alg, md), "dnnl_post_ops_get_params_binary")
            return AlgKind(alg[0]), desc_of(md[0])

    def get_params_select(self, index: int) -> tuple[AlgKind, MemoryDesc, MemoryDesc]:
        """``(algorithm, src1_desc, src2_desc)`` of the binary post-op ``index`` with a
        condition (``AlgKind.BINARY_SELECT``).

        Raises:
            TypeError: ``index`` is not an int.
            IndexError: there is no post-op ``index``.
            ValueError: post-op ``index`` is a binary one without a condition (see :meth:`get_params_binary`).
            ClosedObjectError: the post-ops are closed.
            DnnlError: post-op ``index`` is not a binary one.
        """
        index = self._index(index)
        alg = ffi.new("dnnl_alg_kind_t *")
        md1, md2 = ffi.new("const_dnnl_memory_desc_t *"), ffi.new("const_dnnl_memory_desc_t *")
        with using((self, PostOps, "post_ops")) as ops:
            check(lib.dnnl_post_ops_get_params_binary_v2(ops, index, alg, md1, md2),
                  "dnnl_post_ops_get_params_binary_v2")
            if alg[0] != AlgKind.BINARY_SELECT:
                raise ValueError(f"index: post-op {index} is {AlgKind(alg[0]).name}, without a condition; "
                                 "read it with get_params_binary")
            return AlgKind(alg[0]), desc_of(md1[0]), desc_of(md2[0])

    def __repr__(self) -> str:
        if self.closed:
            return "<dnnl_interop.PostOps closed>"
        return f"<dnnl_interop.PostOps [{', '.join(self.kind(i).name.lower() for i in range(len(self)))}]>"


def _optional_data_type(value: object, what: str = "data_type") -> DataType:
    return DataType.UNDEF if value is None or value == DataType.UNDEF else data_type(value, what)


def _dim(value: object, what: str) -> int:
    """A size of the depthwise post-op: 0 or more, within a ``dnnl_dim_t``."""
    value = count_argument(value, what)
    if value >= 2**62:
        raise ValueError(f"{what}: {value} is too large")
    return value


def copied_post_ops(c_post_ops: CData) -> PostOps:
    """A PostOps of its own over a copy of ``c_post_ops`` (an attribute's)."""
    return PostOps._copy_of(c_post_ops)  # noqa: SLF001 - PostOps' door to its constructor from C


class PrimitiveAttr(Owned):
    """What a primitive does beside its main operation (``dnnl::primitive_attr``):
    post-ops, scales and zero points of its arguments, the floating-point
    math, accumulation and scratchpad modes.

    Raises:
        DnnlError: oneDNN cannot make the attributes.
    """

    # _quantized: {scales_arg(arg) or zero_points_arg(arg): (mask, groups, data type)}, as
    # set here. oneDNN answers no query of them, and reads them at execute unchecked:
    # the primitive descriptors made with these attributes describe them (_exec_args).
    __slots__ = ("_quantized",)
    _quantized: dict[int, tuple[int, tuple[int, ...], DataType]]
    _ctype = "dnnl_primitive_attr_t"
    _destroy = lib.dnnl_primitive_attr_destroy
    _destroy_name = "dnnl_primitive_attr_destroy"

    def _adopt(self, handle: CData, keep: tuple[object, ...] = ()) -> None:
        super()._adopt(handle, keep)
        self._quantized = {}

    def __init__(self) -> None:
        self._refuse_reinit()
        out = self._new_out()
        check(lib.dnnl_primitive_attr_create(out), "dnnl_primitive_attr_create")
        self._adopt(out[0])

    @classmethod
    def _copy_of(cls, c_attr: CData) -> PrimitiveAttr:
        out = cls._new_out()
        check(lib.dnnl_primitive_attr_clone(out, c_attr), "dnnl_primitive_attr_clone")
        return cls._from_handle(out[0])

    # --- post-ops --------------------------------------------------------------

    def set_post_ops(self, post_ops: PostOps) -> None:
        """Use a copy of ``post_ops`` (later changes to it are not seen).

        Raises:
            TypeError: ``post_ops`` is not a PostOps.
            ClosedObjectError: the attributes or ``post_ops`` are closed.
            DnnlError: oneDNN refuses them.
        """
        with using((self, PrimitiveAttr, "attr"), (post_ops, PostOps, "post_ops")) as (attr, ops):
            check(lib.dnnl_primitive_attr_set_post_ops(attr, ops), "dnnl_primitive_attr_set_post_ops")

    def get_post_ops(self) -> PostOps:
        """A copy of the post-ops, to read back.

        Raises:
            ClosedObjectError: the attributes are closed.
            DnnlError: oneDNN cannot answer.
        """
        out = ffi.new("const_dnnl_post_ops_t *")
        with using((self, PrimitiveAttr, "attr")) as attr:
            check(lib.dnnl_primitive_attr_get_post_ops(attr, out), "dnnl_primitive_attr_get_post_ops")
            return copied_post_ops(out[0])

    # --- quantization ----------------------------------------------------------

    def set_scales_mask(self, arg: int, mask: int) -> None:
        """Scale argument ``arg`` (``ARG_SRC``, ``ARG_WEIGHTS``, ``ARG_DST``, ...) by f32
        scales given at execute as ``{scales_arg(arg): memory}``: one value (``mask`` 0)
        or one per index of the dimensions whose bits ``mask`` sets.

        Raises:
            TypeError: ``arg`` or ``mask`` is not an int.
            ValueError: ``mask`` is negative.
            ClosedObjectError: the attributes are closed.
            DnnlError: oneDNN refuses the scales.
        """
        self._quantize("dnnl_primitive_attr_set_scales_mask", ARG_ATTR_SCALES, DataType.F32, arg, mask)

    def set_scales(self, arg: int, mask: int, groups: Sequence[int] = (), data_type: object = DataType.F32) -> None:
        """As :meth:`set_scales_mask`, with ``groups`` (the innermost dimensions of a
        group sharing a scale) and the scales' ``data_type``.

        Raises:
            TypeError: an argument is of another type.
            ValueError: ``mask`` is negative, or a group size is negative.
            ClosedObjectError: the attributes are closed.
            DnnlError: oneDNN refuses the scales.
        """
        self._quantize("dnnl_primitive_attr_set_scales", ARG_ATTR_SCALES, DataType.F32, arg, mask, groups, data_type)

    def set_zero_points_mask(self, arg: int, mask: int) -> None:
        """Shift argument ``arg`` by s32 zero points given at execute as
        ``{zero_points_arg(arg): memory}`` (``mask`` as in :meth:`set_scales_mask`).

        Raises:
            TypeError: ``arg`` or ``mask`` is not an int.
            ValueError: ``mask`` is negative.
            ClosedObjectError: the attributes are closed.
            DnnlError: oneDNN refuses the zero points.
        """
        self._quantize("dnnl_primitive_attr_set_zero_points_mask", ARG_ATTR_ZERO_POINTS, DataType.S32, arg, mask)

    def set_zero_points(
        self, arg: int, mask: int, groups: Sequence[int] = (), data_type: object = DataType.S32
    ) -> None:
        """As :meth:`set_zero_points_mask`, with ``groups`` and the zero points' ``data_type``.

        Raises:
            TypeError: an argument is of another type.
            ValueError: ``mask`` is negative, or a group size is negative.
            ClosedObjectError: the attributes are closed.
            DnnlError: oneDNN refuses the zero points.
        """
        self._quantize("dnnl_primitive_attr_set_zero_points", ARG_ATTR_ZERO_POINTS, DataType.S32, arg, mask, groups,
                       data_type)

    def _quantize(self, function: str, kind: int, default: DataType, arg: object, mask: object,
                  groups: Sequence[int] | None = None, data_type: object = None) -> None:
        """Set scales or zero points (``kind``: ``ARG_ATTR_SCALES`` or ``ARG_ATTR_ZERO_POINTS``)
        through ``function`` (a ``_mask`` form when ``groups`` is None), and record them
        for execute's checks (``_quantized``)."""
        arg, mask = arg_argument(arg), _mask(mask)
        found = () if groups is None else _groups(groups)
        dtype = default if groups is None else _optional_data_type(data_type)
        with using((self, PrimitiveAttr, "attr")) as attr:
            if groups is None:
                check(getattr(lib, function)(attr, arg, mask), function)
            else:
                dims = ffi.new("dnnl_dims_t", list(found))
                check(getattr(lib, function)(attr, arg, mask, len(found), dims, int(dtype)), function)
        self._quantized[kind | arg] = (mask, found, default if dtype == DataType.UNDEF else dtype)

    # --- modes -----------------------------------------------------------------

    def set_fpmath_mode(self, mode: FpmathMode, apply_to_int: bool = False) -> None:
        """Let the primitive compute in lower precision (``FpmathMode.BF16``, ``TF32``, ...).

        Raises:
            TypeError: ``mode`` is not an FpmathMode, ``apply_to_int`` not a bool.
            ValueError: ``mode`` is no fpmath mode.
            ClosedObjectError: the attributes are closed.
            DnnlError: oneDNN refuses the mode.
        """
        mode = enum_argument(mode, FpmathMode, "mode")
        if not isinstance(apply_to_int, bool):
            raise TypeError(f"apply_to_int: expected a bool, got {type(apply_to_int).__name__}")
        with using((self, PrimitiveAttr, "attr")) as attr:
            check(lib.dnnl_primitive_attr_set_fpmath_mode_v2(attr, int(mode), int(apply_to_int)),
                  "dnnl_primitive_attr_set_fpmath_mode_v2")

    def get_fpmath_mode(self) -> tuple[FpmathMode, bool]:
        """``(mode, apply_to_int)``.

        Raises:
            ClosedObjectError: the attributes are closed.
            DnnlError: oneDNN cannot answer.
        """
        mode, apply = ffi.new("dnnl_fpmath_mode_t *"), ffi.new("int *")
        with using((self, PrimitiveAttr, "attr")) as attr:
            check(lib.dnnl_primitive_attr_get_fpmath_mode_v2(attr, mode, apply),
                  "dnnl_primitive_attr_get_fpmath_mode_v2")
        return FpmathMode(mode[0]), bool(apply[0])

    def set_accumulation_mode(self, mode: AccumulationMode) -> None:
        """How the primitive accumulates (``AccumulationMode.STRICT``, ``RELAXED``, ``F16``, ...).

        Raises:
            TypeError: ``mode`` is not an AccumulationMode.
            ValueError: ``mode`` is no accumulation mode.
            ClosedObjectError: the attributes are closed.
            DnnlError: oneDNN refuses the mode.
        """
        mode = enum_argument(mode, AccumulationMode, "mode")
        with using((self, PrimitiveAttr, "attr")) as attr:
            check(lib.dnnl_primitive_attr_set_accumulation_mode(attr, int(mode)),
                  "dnnl_primitive_attr_set_accumulation_mode")

    def get_accumulation_mode(self) -> AccumulationMode:
        """The accumulation mode.

        Raises:
            ClosedObjectError: the attributes are closed.
            DnnlError: oneDNN cannot answer.
        """
        out = ffi.new("dnnl_accumulation_mode_t *")
        with using((self, PrimitiveAttr, "attr")) as attr:
            check(lib.dnnl_primitive_attr_get_accumulation_mode(attr, out), "dnnl_primitive_attr_get_accumulation_mode")
        return AccumulationMode(out[0])

    def set_scratchpad_mode(self, mode: ScratchpadMode) -> None:
        """``ScratchpadMode.LIBRARY`` (oneDNN allocates it) or ``USER`` (the primitive
        takes ``ARG_SCRATCHPAD`` at execute, of ``pd.scratchpad_desc()``).

        Raises:
            TypeError: ``mode`` is not a ScratchpadMode.
            ValueError: ``mode`` is no scratchpad mode.
            ClosedObjectError: the attributes are closed.
            DnnlError: oneDNN refuses the mode.
        """
        mode = enum_argument(mode, ScratchpadMode, "mode")
        with using((self, PrimitiveAttr, "attr")) as attr:
            check(lib.dnnl_primitive_attr_set_scratchpad_mode(attr, int(mode)),
                  "dnnl_primitive_attr_set_scratchpad_mode")

    def get_scratchpad_mode(self) -> ScratchpadMode:
        """The scratchpad mode.

        Raises:
            ClosedObjectError: the attributes are closed.
            DnnlError: oneDNN cannot answer.
        """
        out = ffi.new("dnnl_scratchpad_mode_t *")
        with using((self, PrimitiveAttr, "attr")) as attr:
            check(lib.dnnl_primitive_attr_get_scratchpad_mode(attr, out), "dnnl_primitive_attr_get_scratchpad_mode")
        return ScratchpadMode(out[0])


def quantized_arguments(attr: PrimitiveAttr) -> dict[int, tuple[int, tuple[int, ...], DataType]]:
    """What ``attr`` records of the scales and zero points it sets (oneDNN answers no query
    of them): {scales_arg(arg) or zero_points_arg(arg): (mask, groups, data type)}."""
    return attr._quantized  # noqa: SLF001 - PrimitiveAttr's door to its record of quantization
