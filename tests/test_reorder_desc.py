"""``ReorderDesc``: the reorder as a primitive kind, as C++'s ``dnnl::reorder::primitive_desc``.

``ReorderDesc(src_engine, src_desc, dst_engine, dst_desc, *, attr=None)``
takes C++'s arguments in C++'s order. With attributes it quantizes:
``dst = saturate(rint(src × src_scale / dst_scale + dst_zero_point))``,
checked here against numpy on the CPU engine (the emulated GPU's are in
tests/gpu/test_gpu_reorder.py). The conveniences ``reorder``,
``PrimitiveDesc.reorder``, ``reordered`` and ``reorder_cached`` make the same
descriptor; every descriptor, whichever way it is made, is opened by one
door (``_primitive.open_desc``).
"""

from __future__ import annotations

import numpy as np
import pytest

import dnnl_interop as dnnl
from dnnl_interop import _primitive, primitives
from dnnl_interop._ffi import ffi, lib
from dnnl_interop.cache import CacheBlobStore

SHAPE = (4, 6)

# Halves on both sides of zero (rint rounds them to even), values past s8's
# range both ways (saturated), and plain ones; multiples of 1/4, so that every
# product with a power-of-two scale is exact in f32 and each tie stays a tie.
_VALUES = np.array([-300.0, -128.5, -127.5, -2.5, -1.5, -0.5, 0.0, 0.5, 1.5, 2.5, 3.75, 126.5, 127.5, 500.0,
                    -0.25, 0.75, 5.5, -6.5, 64.0, -64.25, 33.5, -33.5, 7.0, 2.25], np.float32)
SOURCE = _VALUES.reshape(SHAPE)


def quantized(source, src_scales, dst_scales, dst_zero_point):
    """oneDNN's quantizing reorder to s8: scaled, shifted, rounded half to even, saturated."""
    values = source.astype(np.float64) * src_scales / dst_scales + dst_zero_point
    return np.clip(np.rint(values), -128, 127).astype(np.int8)


def _run(desc, engine, stream, source, extra=None):
    primitive = dnnl.Primitive(desc)
    src = dnnl.Memory.from_array(source, engine)
    dst = dnnl.Memory(dnnl.MemoryDesc(source.shape, "s8", "ab"), engine)
    primitive.execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst, **(extra or {})})
    stream.wait()
    return np.asarray(dst).copy()


def _f32(values, engine):
    return dnnl.Memory.from_array(np.ascontiguousarray(values, np.float32).reshape(-1), engine)


# --- the kind -----------------------------------------------------------------------------------


def test_reorder_desc_is_a_kind_importable_from_the_package_and_from_primitives():
    assert dnnl.ReorderDesc is primitives.ReorderDesc
    assert issubclass(dnnl.ReorderDesc, dnnl.PrimitiveDesc)
    assert "ReorderDesc" in primitives.__all__ and "ReorderDesc" in dir(dnnl)


def test_a_reorder_desc_describes_what_the_conveniences_describe_and_transposes_like_numpy(engine, stream):
    src_desc, dst_desc = dnnl.MemoryDesc(SHAPE, "f32", "ab"), dnnl.MemoryDesc(SHAPE, "f32", "ba")
    with dnnl.ReorderDesc(engine, src_desc, engine, dst_desc) as desc, \
            dnnl.PrimitiveDesc.reorder(src_desc, dst_desc, engine) as convenience:
        assert desc.kind == dnnl.PrimitiveKind.REORDER and desc.engine is engine
        assert desc.arg_sizes == convenience.arg_sizes == {dnnl.ARG_FROM: 96, dnnl.ARG_TO: 96}
        assert desc.src_desc() == src_desc and desc.dst_desc() == dst_desc
        out = np.zeros(SHAPE[::-1], np.float32)
        with dnnl.Primitive(desc) as primitive:
            primitive.execute(stream, {dnnl.ARG_FROM: dnnl.Memory.from_array(SOURCE, engine),
                                       dnnl.ARG_TO: dnnl.Memory(dst_desc, engine, out.T)})
            stream.wait()
        np.testing.assert_array_equal(out, SOURCE.T)


def test_a_reorder_desc_takes_its_arguments_by_their_cpp_names(engine):
    src_desc, dst_desc = dnnl.MemoryDesc(SHAPE, "f32", "ab"), dnnl.MemoryDesc(SHAPE, "s8", "ab")
    with dnnl.ReorderDesc(src_engine=engine, src_desc=src_desc, dst_engine=engine, dst_desc=dst_desc,
                          attr=dnnl.PrimitiveAttr()) as desc:
        assert desc.arg_desc(dnnl.ARG_TO) == dst_desc


# --- quantizing ---------------------------------------------------------------------------------

# name: (src scales mask, src scales, dst scales mask, dst scales, dst zero point)
QUANTIZED = {
    "per-tensor scales": (0, [0.5], 0, [0.25], None),
    "per-tensor scales and a zero point": (0, [2.0], 0, [0.5], 3),
    "a zero point alone": (None, None, None, None, -5),
    "per-row src scales (mask 1)": (1, [1.0, 0.5, 2.0, 0.25], None, None, None),
    "per-column dst scales (mask 2) and a zero point": (None, None, 2, [1.0, 2.0, 0.5, 4.0, 0.25, 1.0], 1),
    "per-row src and dst scales (mask 1) and a zero point": (1, [0.5, 1.0, 2.0, 4.0], 1, [2.0, 0.25, 1.0, 0.5], -7),
    "a per-tensor src, per-column dst scales (mask 2)": (0, [4.0], 2, [2.0, 1.0, 0.5, 0.25, 1.0, 2.0], None),
    "per-element scales (mask 3)": (3, 2.0 ** (np.arange(24) % 5 - 2), 3, 2.0 ** (np.arange(24) % 3 - 1), 2),
}
# oneDNN 3.13's CPU engine has no reorder with src and dst scales over different
# dimensions (masks 1 and 2): refused with the attributes named (see below).


def _broadcast(mask, values):
    """Scales of ``mask`` as an array that broadcasts over SHAPE."""
    if mask is None:
        return np.float64(1.0)
    values = np.array(values, np.float64)
    shapes = {0: (), 1: (SHAPE[0], 1), 2: (1, SHAPE[1]), 3: SHAPE}  # the dimensions the mask's bits select
    return values.reshape(shapes[mask])


@pytest.mark.parametrize("case", list(QUANTIZED))
def test_a_quantizing_reorder_to_s8_scales_shifts_rounds_half_to_even_and_saturates_like_numpy(engine, stream, case):
    src_mask, src_scales, dst_mask, dst_scales, zero_point = QUANTIZED[case]
    attr = dnnl.PrimitiveAttr()
    extra = {}
    if src_mask is not None:
        attr.set_scales_mask(dnnl.ARG_SRC, src_mask)
        extra[dnnl.scales_arg(dnnl.ARG_SRC)] = _f32(src_scales, engine)
    if dst_mask is not None:
        attr.set_scales_mask(dnnl.ARG_DST, dst_mask)
        extra[dnnl.scales_arg(dnnl.ARG_DST)] = _f32(dst_scales, engine)
    if zero_point is not None:
        attr.set_zero_points_mask(dnnl.ARG_DST, 0)
        extra[dnnl.zero_points_arg(dnnl.ARG_DST)] = dnnl.Memory.from_array(np.array([zero_point], np.int32), engine)
    src_desc, dst_desc = dnnl.MemoryDesc(SHAPE, "f32", "ab"), dnnl.MemoryDesc(SHAPE, "s8", "ab")
    with dnnl.ReorderDesc(engine, src_desc, engine, dst_desc, attr=attr) as desc:
        got = _run(desc, engine, stream, SOURCE, extra)
    expected = quantized(SOURCE, _broadcast(src_mask, src_scales), _broadcast(dst_mask, dst_scales), zero_point or 0)
    np.testing.assert_array_equal(got, expected)
    assert (expected == 127).any() and (expected == -128).any()  # saturated both ways


def test_the_rounding_of_a_shifted_tie_is_after_the_zero_point_as_onednn_does(engine, stream):
    # rint(2.5) + 1 is 3, rint(2.5 + 1) is 4: oneDNN adds the zero point before rounding.
    attr = dnnl.PrimitiveAttr()
    attr.set_zero_points_mask(dnnl.ARG_DST, 0)
    source = np.array([[2.5, -2.5, 0.5, 1.5]], np.float32)
    src_desc, dst_desc = dnnl.MemoryDesc((1, 4), "f32", "ab"), dnnl.MemoryDesc((1, 4), "s8", "ab")
    with dnnl.ReorderDesc(engine, src_desc, engine, dst_desc, attr=attr) as desc:
        got = _run(desc, engine, stream, source,
                   {dnnl.zero_points_arg(dnnl.ARG_DST): dnnl.Memory.from_array(np.array([1], np.int32), engine)})
    np.testing.assert_array_equal(got, [[4, -2, 2, 2]])


def test_a_dequantizing_reorder_from_s8_subtracts_the_src_zero_point_then_scales(engine, stream):
    attr = dnnl.PrimitiveAttr()
    attr.set_scales_mask(dnnl.ARG_SRC, 2)  # one scale a column
    attr.set_zero_points_mask(dnnl.ARG_SRC, 0)
    source = np.arange(-128, 128, 11, dtype=np.int8)[:24].reshape(SHAPE)
    scales = np.array([0.5, 2.0, 0.25, 1.0, 4.0, 0.125], np.float32)
    src_desc, dst_desc = dnnl.MemoryDesc(SHAPE, "s8", "ab"), dnnl.MemoryDesc(SHAPE, "f32", "ab")
    out = np.zeros(SHAPE, np.float32)
    with dnnl.ReorderDesc(engine, src_desc, engine, dst_desc, attr=attr) as desc, dnnl.Primitive(desc) as primitive:
        primitive.execute(stream, {
            dnnl.ARG_FROM: dnnl.Memory.from_array(source, engine), dnnl.ARG_TO: dnnl.Memory.from_array(out, engine),
            dnnl.scales_arg(dnnl.ARG_SRC): _f32(scales, engine),
            dnnl.zero_points_arg(dnnl.ARG_SRC): dnnl.Memory.from_array(np.array([3], np.int32), engine),
        })
        stream.wait()
    np.testing.assert_array_equal(out, (source.astype(np.float32) - 3) * scales)


def test_a_quantizing_reorder_describes_its_scales_and_execute_refuses_them_missing_or_short(engine, stream):
    attr = dnnl.PrimitiveAttr()
    attr.set_scales_mask(dnnl.ARG_SRC, 1)  # one scale a row: 4 of them
    src_desc, dst_desc = dnnl.MemoryDesc(SHAPE, "f32", "ab"), dnnl.MemoryDesc(SHAPE, "s8", "ab")
    with dnnl.ReorderDesc(engine, src_desc, engine, dst_desc, attr=attr) as desc, dnnl.Primitive(desc) as primitive:
        assert desc.arg_sizes[dnnl.scales_arg(dnnl.ARG_SRC)] == 16
        assert desc.get_attr()._quantized == {dnnl.scales_arg(dnnl.ARG_SRC): (1, (), dnnl.DataType.F32)}
        args = {dnnl.ARG_FROM: dnnl.Memory.from_array(SOURCE, engine), dnnl.ARG_TO: dnnl.Memory(dst_desc, engine)}
        with pytest.raises(dnnl.InvalidArgumentsError, match=r"args\[4097\] \(scales_arg\(ARG_SRC\)\), not given"):
            primitive.execute(stream, args)
        with pytest.raises(ValueError, match=r"scales_arg\(ARG_SRC\)"):
            primitive.execute(stream, {**args, dnnl.scales_arg(dnnl.ARG_SRC): _f32([1.0, 1.0], engine)})


def test_a_reorder_adopted_with_its_attributes_is_checked_as_one_made_here(engine, stream):
    attr = dnnl.PrimitiveAttr()
    attr.set_scales_mask(dnnl.ARG_DST, 0)
    src_desc, dst_desc = dnnl.MemoryDesc(SHAPE, "f32", "ab"), dnnl.MemoryDesc(SHAPE, "s8", "ab")
    with dnnl.ReorderDesc(engine, src_desc, engine, dst_desc, attr=attr) as made:
        adopted = dnnl.PrimitiveDesc.from_handle(made.handle, engine=engine, attr=attr)  # cloned
    with adopted:
        assert adopted.arg_sizes == {dnnl.ARG_FROM: 96, dnnl.ARG_TO: 24, dnnl.scales_arg(dnnl.ARG_DST): 4}
        with dnnl.Primitive(adopted) as primitive, pytest.raises(dnnl.InvalidArgumentsError, match="not given"):
            primitive.execute(stream, {dnnl.ARG_FROM: dnnl.Memory.from_array(SOURCE, engine),
                                       dnnl.ARG_TO: dnnl.Memory(dst_desc, engine)})
        got = _run(adopted, engine, stream, SOURCE, {dnnl.scales_arg(dnnl.ARG_DST): _f32([0.5], engine)})
    np.testing.assert_array_equal(got, quantized(SOURCE, 1.0, 0.5, 0))


# --- refusals -----------------------------------------------------------------------------------


def test_a_reorder_desc_refuses_arguments_of_another_type_by_their_cpp_names(engine):
    desc = dnnl.MemoryDesc(SHAPE, "f32", "ab")
    with pytest.raises(TypeError, match=r"^engine: expected a dnnl_interop.Engine as the first argument of "
                                        r"ReorderDesc, got MemoryDesc.*dnnl::reorder::primitive_desc"):
        dnnl.ReorderDesc(desc, desc, engine)  # the conveniences' order
    with pytest.raises(TypeError, match=r"^dst_engine: expected a dnnl_interop.Engine, got MemoryDesc"):
        dnnl.ReorderDesc(engine, desc, desc, desc)
    with pytest.raises(TypeError, match=r"^src_desc: expected a dnnl_interop.MemoryDesc, got Engine"):
        dnnl.ReorderDesc(engine, engine, engine, desc)
    with pytest.raises(TypeError, match=r"^attr: expected a dnnl_interop.PrimitiveAttr or None, got dict"):
        dnnl.ReorderDesc(engine, desc, engine, desc, attr={})


def test_a_reorder_desc_refused_says_why_as_the_conveniences_do(engine):
    with pytest.raises(dnnl.InvalidArgumentsError) as raised:
        dnnl.ReorderDesc(engine, dnnl.MemoryDesc((2, 3), "f32", "ab"), engine, dnnl.MemoryDesc((3, 2), "f32", "ab"))
    assert raised.value.reason is not None and "the shapes differ, (2, 3) and (3, 2)" in raised.value.reason
    with pytest.raises(dnnl.UnimplementedError) as raised:
        dnnl.ReorderDesc(engine, dnnl.MemoryDesc((2, 3), "f64", "ab"), engine, dnnl.MemoryDesc((2, 3), "f32", "ab"))
    assert "src_desc: f64, a data type oneDNN's CPU engine has no implementation for" in str(raised.value)


def test_a_reorder_onednn_refuses_for_its_attributes_names_them(engine):
    attr = dnnl.PrimitiveAttr()
    attr.set_scales_mask(dnnl.ARG_SRC, 1)
    attr.set_scales_mask(dnnl.ARG_DST, 2)  # scales over another dimension than src's
    src_desc, dst_desc = dnnl.MemoryDesc(SHAPE, "f32", "ab"), dnnl.MemoryDesc(SHAPE, "s8", "ab")
    with pytest.raises(dnnl.UnimplementedError) as raised:
        dnnl.ReorderDesc(engine, src_desc, engine, dst_desc, attr=attr)
    assert ("to MemoryDesc((4, 6), s8, 'ab') on a CPU engine with the attributes given (scales_arg(ARG_SRC) "
            "with mask 1, f32; scales_arg(ARG_DST) with mask 2, f32)") in str(raised.value)


# --- one door -----------------------------------------------------------------------------------


def test_every_way_of_making_a_descriptor_goes_through_one_door(engine, monkeypatch, tmp_path):
    opened = []
    door = _primitive.open_desc

    def counted(target, handle, engines, **kwargs):
        opened.append(type(target).__name__ if isinstance(target, dnnl.PrimitiveDesc) else target.__name__)
        return door(target, handle, engines, **kwargs)

    monkeypatch.setattr(_primitive, "open_desc", counted)
    monkeypatch.setattr("dnnl_interop.primitives._kind.open_desc", counted)
    src_desc, dst_desc = dnnl.MemoryDesc(SHAPE, "f32", "ab"), dnnl.MemoryDesc(SHAPE, "f32", "ba")
    reorder = dnnl.ReorderDesc(engine, src_desc, engine, dst_desc)
    eltwise = dnnl.EltwiseForwardDesc(engine, dnnl.AlgKind.ELTWISE_RELU, src_desc, src_desc)
    clone = ffi.new("dnnl_primitive_desc_t *")
    dnnl.check(lib.dnnl_primitive_desc_clone(clone, reorder.handle), "dnnl_primitive_desc_clone")
    made = [
        reorder, eltwise,
        dnnl.PrimitiveDesc.reorder(src_desc, dst_desc, engine),
        dnnl.PrimitiveDesc.from_handle(reorder.handle),  # cloned
        dnnl.PrimitiveDesc.from_handle(clone[0], owned=True),  # taken over
    ]
    dnnl.reorder(src_desc, dst_desc, engine).close()
    dnnl.reorder_cached(src_desc, dst_desc, engine, store=CacheBlobStore(tmp_path)).close()
    moved = eltwise.next_impl()
    assert opened == ["ReorderDesc", "EltwiseForwardDesc", *["PrimitiveDesc"] * 5,
                      *["EltwiseForwardDesc"] * moved]
    for desc in made:
        desc.close()
