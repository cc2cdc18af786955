"""Kinds that combine, reduce or copy tensors: binary, reduction, concat, sum and reorder."""

from __future__ import annotations

from collections.abc import Sequence

from .._attr import PrimitiveAttr, _float
from .._engine import Engine
from .._enums import AlgKind, DataType
from .._ffi import ffi
from .._library import status_error
from .._memory_desc import MemoryDesc
from .._primitive import create_reorder
from ..errors import Status
from ._kind import _algorithm, _c_int, _descs_list, _Kind, logger

__all__ = ["BinaryDesc", "ReductionDesc", "ConcatDesc", "SumDesc", "ReorderDesc"]


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



class BinaryDesc(_Kind):
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



class ReductionDesc(_Kind):
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



class ConcatDesc(_Kind):
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


class SumDesc(_Kind):
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


class ReorderDesc(_Kind):
    """``dnnl::reorder::primitive_desc``: a copy of ``src_desc``'s data on ``src_engine``
    into ``dst_desc``'s layout and data type on ``dst_engine`` (``ARG_FROM`` into
    ``ARG_TO`` at execute), scaled and shifted by ``attr``'s scales and zero points.

    The arguments are C++'s, in its order: ``reorder::primitive_desc(src_engine,
    src_md, dst_engine, dst_md, attr)``. oneDNN takes an engine for each side
    because a reorder can cross engines (CPU memory into GPU memory); give the
    same engine twice for a reorder on one. No shorter form is offered here:
    ``dnnl_interop.reorder(src_desc, dst_desc, engine)`` and
    ``PrimitiveDesc.reorder`` are the one-engine conveniences.

    With ``attr`` it quantizes or dequantizes: ``dst = src_scale × (src - src_zero_point)
    / dst_scale + dst_zero_point``, rounded to the nearest (half to even) and saturated
    when dst is an integer type. The attributes say which there are
    (``attr.set_scales_mask(ARG_SRC, mask)``, ``set_zero_points_mask(ARG_DST, 0)``,
    ...); execute takes them as ``scales_arg(ARG_SRC)``, ``zero_points_arg(ARG_DST)``,
    ... and refuses to run without them. oneDNN 3.13's CPU engine has no
    reorder whose src and dst scales have different masks (1 and 2, say): it
    raises ``UnimplementedError``, whose message names the attributes.

    Raises:
        TypeError: an argument is of another type.
        ClosedObjectError: an argument is closed.
        InvalidArgumentsError: oneDNN refuses the reorder (shapes that differ, for one).
        UnimplementedError: oneDNN has no reorder between these layouts, data types or
            engines, or with these attributes.
    """

    __slots__ = ()
    _kind = "reorder"

    def __init__(
        self,
        src_engine: Engine,
        src_desc: MemoryDesc,
        dst_engine: Engine,
        dst_desc: MemoryDesc,
        *,
        attr: PrimitiveAttr | None = None,
    ) -> None:
        self._refuse_reinit()
        create_reorder(self, src_engine, src_desc, dst_engine, dst_desc, attr)
