"""The rest of the forward surface oneDNN's own test lists use, against numpy:
runtime dimensions (a matmul whose M or batch is given at execute), the PReLU,
depthwise-convolution and select post-ops, and negative right padding."""

from __future__ import annotations

import numpy as np
import pytest

import dnnl_interop as dnnl
import onednn_reference as ref
from dnnl_interop import AlgKind, MemoryDesc, PostOps, PrimitiveAttr, PrimitiveKind

R = dnnl.RUNTIME_DIM
RNG = np.random.default_rng(7)


def values(*shape: int) -> np.ndarray:
    return RNG.uniform(-2, 2, shape).astype(np.float32)


def run(primitive: dnnl.Primitive, stream: dnnl.Stream, engine: dnnl.Engine, args: dict[int, np.ndarray]) -> None:
    memories = {index: dnnl.Memory.from_array(array, engine) for index, array in args.items()}
    primitive.execute(stream, memories)
    stream.wait()


def attr_of(post_ops: PostOps) -> PrimitiveAttr:
    attr = PrimitiveAttr()
    attr.set_post_ops(post_ops)
    return attr


# --- runtime dimensions -----------------------------------------------------------------------


def test_runtime_dim_is_onednns_placeholder_and_shows_by_name():
    from dnnl_interop._ffi import lib

    assert R == lib.DNNL_RUNTIME_DIM_VAL
    with MemoryDesc((R, 4), "f32", "ab") as desc:
        assert desc.shape == (R, 4)
        assert repr(desc) == "MemoryDesc((RUNTIME_DIM, 4), f32, 'ab')"


def test_a_runtime_dims_descriptor_has_no_size(real_dnnl):
    # oneDNN answers DNNL_RUNTIME_SIZE_VAL (2**63), which is no byte count.
    with MemoryDesc((R, 4), "f32", "ab") as desc:
        with pytest.raises(ValueError, match=r"size: .* runtime dimensions \(RUNTIME_DIM\)"):
            _ = desc.size


def test_no_memory_has_a_runtime_dims_descriptor(engine):
    with MemoryDesc((R, 4), "f32", "ab") as desc, pytest.raises(dnnl.InvalidArgumentsError,
                                                                  match=r"desc: .* has a runtime dimension"):
        dnnl.Memory(desc, engine)


@pytest.fixture
def runtime_m(engine, stream):
    """A matmul (M, 4) × (4, 3) + bias (1, 3) made with M a runtime dimension."""
    pd = dnnl.MatmulDesc(engine, MemoryDesc((R, 4), "f32", "ab"), MemoryDesc((4, 3), "f32", "ab"),
                         MemoryDesc((R, 3), "f32", "ab"), bias_desc=MemoryDesc((1, 3), "f32", "ab"))
    with pd, dnnl.Primitive(pd) as primitive:
        yield engine, stream, primitive


def test_a_matmul_with_runtime_m_computes_each_m_given_at_execute(runtime_m):
    engine, stream, primitive = runtime_m
    for m in (1, 5, 17):
        src, weights, bias = values(m, 4), values(4, 3), values(1, 3)
        dst = np.full((m, 3), np.nan, np.float32)
        run(primitive, stream, engine, {dnnl.ARG_SRC: src, dnnl.ARG_WEIGHTS: weights, dnnl.ARG_BIAS: bias,
                                        dnnl.ARG_DST: dst})
        np.testing.assert_allclose(dst, ref.matmul(src, weights, bias), rtol=1e-5, atol=1e-5)


def test_a_matmul_with_runtime_batch_and_m_computes_each_given_at_execute(engine, stream):
    pd = dnnl.MatmulDesc(engine, MemoryDesc((R, R, 4), "f32", "abc"), MemoryDesc((R, 4, 2), "f32", "abc"),
                         MemoryDesc((R, R, 2), "f32", "abc"))
    with pd, dnnl.Primitive(pd) as primitive:
        for batch, m in ((2, 3), (3, 1)):
            src, weights = values(batch, m, 4), values(batch, 4, 2)
            dst = np.zeros((batch, m, 2), np.float32)
            run(primitive, stream, engine, {dnnl.ARG_SRC: src, dnnl.ARG_WEIGHTS: weights, dnnl.ARG_DST: dst})
            np.testing.assert_allclose(dst, ref.matmul(src, weights), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(("args", "message"), [
    ({dnnl.ARG_SRC: np.zeros((3, 5), np.float32)}, r"args\[1\].*dim 1 of the memory is 5.*\(RUNTIME_DIM, 4\)"),
    ({dnnl.ARG_SRC: np.zeros((3, 4), np.float64)}, r"args\[1\].*holds f64.*of f32"),
    ({dnnl.ARG_SRC: np.zeros((3, 4, 1), np.float32)}, r"args\[1\].*3 dimensions"),
    ({dnnl.ARG_SRC: np.zeros((4, 3), np.float32).T}, r"args\[1\].*not the plain layout"),
    ({dnnl.ARG_DST: np.zeros((2, 3), np.float32)}, r"dst has 2 where src's M is 3"),
    ({dnnl.ARG_BIAS: np.zeros((3, 3), np.float32)}, r"args\[41\].*\(3, 3\).*\(1, 3\)"),
], ids=["other K", "other data type", "other rank", "column-major", "dst of other M", "bias of other shape"])
def test_runtime_dims_refuse_memories_that_do_not_fit(runtime_m, args, message):
    engine, stream, primitive = runtime_m
    given = {dnnl.ARG_SRC: values(3, 4), dnnl.ARG_WEIGHTS: values(4, 3), dnnl.ARG_BIAS: values(1, 3),
             dnnl.ARG_DST: np.zeros((3, 3), np.float32), **args}
    with pytest.raises(ValueError, match=message):
        run(primitive, stream, engine, given)


def test_a_bound_execution_checks_runtime_dims_when_made(runtime_m):
    engine, stream, primitive = runtime_m
    arrays = {dnnl.ARG_SRC: values(3, 4), dnnl.ARG_WEIGHTS: values(4, 3), dnnl.ARG_BIAS: values(1, 3),
              dnnl.ARG_DST: np.zeros((2, 3), np.float32)}
    memories = {index: dnnl.Memory.from_array(array, engine) for index, array in arrays.items()}
    with pytest.raises(ValueError, match="dst has 2 where src's M is 3"):
        primitive.bind(stream, memories)


def test_a_post_op_input_shorter_than_a_runtime_m_is_refused(engine, stream):
    """oneDNN takes a (4, 3) binary post-op input for dst (M, 3): with M = 6 it would read past it."""
    post_ops = PostOps()
    post_ops.append_binary(AlgKind.BINARY_ADD, MemoryDesc((4, 3), "f32", "ab"))
    pd = dnnl.MatmulDesc(engine, MemoryDesc((R, 2), "f32", "ab"), MemoryDesc((2, 3), "f32", "ab"),
                         MemoryDesc((R, 3), "f32", "ab"), attr=attr_of(post_ops))
    with pd, dnnl.Primitive(pd) as primitive:
        args = {dnnl.ARG_SRC: values(4, 2), dnnl.ARG_WEIGHTS: values(2, 3), dnnl.post_op_arg(0): values(4, 3)}
        run(primitive, stream, engine, {**args, dnnl.ARG_DST: (dst := np.zeros((4, 3), np.float32))})
        expected = ref.matmul(args[dnnl.ARG_SRC], args[dnnl.ARG_WEIGHTS]) + args[dnnl.post_op_arg(0)]
        np.testing.assert_allclose(dst, expected, rtol=1e-5, atol=1e-5)
        with pytest.raises(ValueError, match=r"post_op_arg\(0, ARG_SRC_1\).*\(4, 3\).*dst's \(6, 3\)"):
            run(primitive, stream, engine, {**args, dnnl.ARG_SRC: values(6, 2),
                                            dnnl.ARG_DST: np.zeros((6, 3), np.float32)})


def test_prelu_weights_over_a_runtime_m_have_dsts_m(engine, stream):
    """Made with mask 3, the weights are (M, 3): one row would be read past at M = 4."""
    post_ops = PostOps()
    post_ops.append_prelu(3)
    pd = dnnl.MatmulDesc(engine, MemoryDesc((R, 2), "f32", "ab"), MemoryDesc((2, 3), "f32", "ab"),
                         MemoryDesc((R, 3), "f32", "ab"), attr=attr_of(post_ops))
    with pd, dnnl.Primitive(pd) as primitive:
        src, weights, slopes = values(4, 2), values(2, 3), values(4, 3)
        args = {dnnl.ARG_SRC: src, dnnl.ARG_WEIGHTS: weights, dnnl.ARG_DST: (dst := np.zeros((4, 3), np.float32))}
        run(primitive, stream, engine, {**args, dnnl.post_op_arg(0, dnnl.ARG_WEIGHTS): slopes})
        np.testing.assert_allclose(dst, prelu(ref.matmul(src, weights), slopes), rtol=1e-5, atol=1e-5)
        with pytest.raises(ValueError, match=r"post_op_arg\(0, ARG_WEIGHTS\).*\(1, 3\).*made RUNTIME_DIM"):
            run(primitive, stream, engine, {**args, dnnl.post_op_arg(0, dnnl.ARG_WEIGHTS): values(1, 3)})


def test_scales_over_a_runtime_dimension_are_refused(engine):
    attr = PrimitiveAttr()
    attr.set_scales_mask(dnnl.ARG_DST, 3)  # one per element of dst: a count known only at execute
    with pytest.raises(ValueError, match="selects dim 0, a runtime dimension"):
        dnnl.MatmulDesc(engine, MemoryDesc((R, 2), "f32", "ab"), MemoryDesc((2, 3), "f32", "ab"),
                        MemoryDesc((R, 3), "f32", "ab"), attr=attr)


def test_a_reorder_with_runtime_dims_keeps_the_shape(engine, stream):
    with dnnl.reorder(MemoryDesc((R, 3), "f32", "ab"), MemoryDesc((R, 3), "f32", "ba"), engine) as primitive:
        src = values(4, 3)
        dst = np.zeros((3, 4), np.float32).T  # column-major (4, 3)
        run(primitive, stream, engine, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
        np.testing.assert_array_equal(dst, src)
        with pytest.raises(ValueError, match=r"src is \(4, 3\), its dst \(5, 3\)"):
            run(primitive, stream, engine, {dnnl.ARG_FROM: src, dnnl.ARG_TO: np.zeros((3, 5), np.float32).T})


# --- post-ops ---------------------------------------------------------------------------------


def prelu(x: np.ndarray, weights: np.ndarray) -> np.ndarray:
    return np.where(x > 0, x, x * weights)


@pytest.mark.parametrize(("mask", "weights_shape"), [(0, (1, 1, 1)), (4, (1, 1, 3)), (7, (2, 4, 3))])
def test_prelu_post_op_matches_numpy(engine, stream, mask, weights_shape):
    post_ops = PostOps()
    post_ops.append_prelu(mask)
    assert post_ops.kind(0) == PrimitiveKind.PRELU and post_ops.get_params_prelu(0) == mask
    src, weights, slopes = values(2, 4, 5), values(2, 5, 3), values(*weights_shape)
    pd = dnnl.MatmulDesc(engine, MemoryDesc.from_array(src), MemoryDesc.from_array(weights),
                         MemoryDesc((2, 4, 3), "f32", "abc"), attr=attr_of(post_ops))
    # oneDNN reads a PReLU post-op's weights channels last ("acb" for 3 dimensions).
    given = np.ascontiguousarray(slopes.transpose(0, 2, 1)).transpose(0, 2, 1)
    dst = np.zeros((2, 4, 3), np.float32)
    with pd, dnnl.Primitive(pd) as primitive:
        run(primitive, stream, engine, {dnnl.ARG_SRC: src, dnnl.ARG_WEIGHTS: weights, dnnl.ARG_DST: dst,
                                        dnnl.post_op_arg(0, dnnl.ARG_WEIGHTS): given})
    np.testing.assert_allclose(dst, prelu(ref.matmul(src, weights), slopes), rtol=1e-5, atol=1e-5)


def test_prelu_post_op_weights_in_another_layout_or_missing_are_refused(engine, stream):
    """oneDNN reads them as "acb" whatever their descriptor: row-major ones would give a wrong result."""
    post_ops = PostOps()
    post_ops.append_prelu(7)
    pd = dnnl.MatmulDesc(engine, MemoryDesc((2, 4, 5), "f32", "abc"), MemoryDesc((2, 5, 3), "f32", "abc"),
                         MemoryDesc((2, 4, 3), "f32", "abc"), attr=attr_of(post_ops))
    args = {dnnl.ARG_SRC: values(2, 4, 5), dnnl.ARG_WEIGHTS: values(2, 5, 3), dnnl.ARG_DST: values(2, 4, 3)}
    with pd, dnnl.Primitive(pd) as primitive:
        with pytest.raises(ValueError, match=r"PReLU post-op.*MemoryDesc\(\(2, 4, 3\), 'f32', 'acb'\)"):
            run(primitive, stream, engine, {**args, dnnl.post_op_arg(0, dnnl.ARG_WEIGHTS): values(2, 4, 3)})
        with pytest.raises(dnnl.InvalidArgumentsError, match=r"needs args\[32801\]"):
            run(primitive, stream, engine, args)


def test_select_post_op_takes_a_condition(engine, stream):
    src, weights, other = values(3, 4), values(4, 2), values(3, 2)
    condition = RNG.integers(0, 2, (3, 2)).astype(np.int8)
    post_ops = PostOps()
    post_ops.append_binary(AlgKind.BINARY_SELECT, MemoryDesc.from_array(other), MemoryDesc.from_array(condition))
    algorithm, src1_desc, src2_desc = post_ops.get_params_select(0)
    with src1_desc, src2_desc:
        assert (algorithm, src1_desc.shape, src2_desc.data_type) == (AlgKind.BINARY_SELECT, (3, 2), dnnl.DataType.S8)
    pd = dnnl.MatmulDesc(engine, MemoryDesc.from_array(src), MemoryDesc.from_array(weights),
                         MemoryDesc((3, 2), "f32", "ab"), attr=attr_of(post_ops))
    dst = np.zeros((3, 2), np.float32)
    with pd, dnnl.Primitive(pd) as primitive:
        args = {dnnl.ARG_SRC: src, dnnl.ARG_WEIGHTS: weights, dnnl.post_op_arg(0): other}
        run(primitive, stream, engine, {**args, dnnl.ARG_DST: dst,
                                        dnnl.post_op_arg(0, dnnl.ARG_SRC_2): condition})
        np.testing.assert_allclose(dst, np.where(condition, ref.matmul(src, weights), other), rtol=1e-5, atol=1e-5)
        with pytest.raises(ValueError, match=r"post_op_arg\(0, ARG_SRC_2\).*holds f32"):
            run(primitive, stream, engine, {**args, dnnl.ARG_DST: dst,
                                            dnnl.post_op_arg(0, dnnl.ARG_SRC_2): condition.astype(np.float32)})


def test_select_post_op_needs_its_condition_and_only_select_takes_one():
    desc = MemoryDesc((2, 2), "f32", "ab")
    with pytest.raises(ValueError, match="src2_desc: BINARY_SELECT takes a condition"):
        PostOps().append_binary(AlgKind.BINARY_SELECT, desc)
    with pytest.raises(ValueError, match="only BINARY_SELECT takes a third input"):
        PostOps().append_binary(AlgKind.BINARY_ADD, desc, desc)


def test_depthwise_post_op_matches_numpy(engine, stream):
    """A 1x1 convolution then a 3x3 stride-2 depthwise one, fused, as oneDNN's own lists make them."""
    post_ops = PostOps()
    post_ops.append_dw("f32", "f32", "f32", 3, 2, 1)
    assert post_ops.kind(0) == PrimitiveKind.CONVOLUTION
    assert post_ops.get_params_dw(0) == (dnnl.DataType.F32, dnnl.DataType.F32, dnnl.DataType.F32, 3, 2, 1)
    src, weights, bias = values(1, 8, 6, 6), values(8, 8, 1, 1), values(8)
    dw_weights, dw_bias = values(8, 1, 1, 3, 3), values(8)
    # dst_desc is the 1x1 convolution's; the fused primitive's dst is the depthwise one's.
    any_ = [MemoryDesc(shape, "f32", "any") for shape in ((1, 8, 6, 6), (8, 8, 1, 1), (1, 8, 6, 6))]
    pd = dnnl.ConvolutionForwardDesc(engine, any_[0], any_[1], any_[2], (1, 1), (0, 0), (0, 0),
                                     bias_desc=MemoryDesc((8,), "f32", "a"), attr=attr_of(post_ops))
    dw = dnnl.ARG_ATTR_POST_OP_DW
    given = {dnnl.ARG_SRC: src, dnnl.ARG_WEIGHTS: weights, dnnl.ARG_BIAS: bias, dw | dnnl.ARG_WEIGHTS: dw_weights,
             dw | dnnl.ARG_BIAS: dw_bias}
    dst = np.zeros((1, 8, 3, 3), np.float32)
    with pd, dnnl.Primitive(pd) as primitive:
        memories = {}
        for index, array in given.items():
            with pd.arg_desc(index) as wanted:
                memories[index] = dnnl.reordered(dnnl.Memory.from_array(array, engine), wanted, stream)
        dst_memory = dnnl.Memory(pd.dst_desc(), engine)
        primitive.execute(stream, {**memories, dnnl.ARG_DST: dst_memory})
        out = dnnl.reordered(dst_memory, MemoryDesc.from_array(dst), stream)
        stream.wait()
        dst[...] = np.asarray(out)
        missing = {index: memory for index, memory in memories.items() if index != dw | dnnl.ARG_WEIGHTS}
        with pytest.raises(dnnl.InvalidArgumentsError, match=r"needs args\[16417\]"):
            primitive.execute(stream, {**missing, dnnl.ARG_DST: dst_memory})
    pointwise = ref.convolution(src, weights, bias, (1, 1), (0, 0), (0, 0), (0, 0))
    expected = ref.convolution(pointwise, dw_weights, dw_bias, (2, 2), (0, 0), (1, 1), (1, 1))
    np.testing.assert_allclose(dst, expected, rtol=1e-4, atol=1e-4)


# --- negative right padding -------------------------------------------------------------------


def test_stride_2_1x1_convolution_with_negative_right_padding_matches_numpy(engine, stream):
    """(6 - 1 + 0 - 1) / 2 + 1 = 3: the last row and column reach no window."""
    src, weights = values(1, 2, 6, 6), values(3, 2, 1, 1)
    pd = dnnl.ConvolutionForwardDesc(engine, MemoryDesc.from_array(src), MemoryDesc.from_array(weights),
                                     MemoryDesc((1, 3, 3, 3), "f32", "abcd"), (2, 2), (0, 0), (-1, -1))
    dst = np.zeros((1, 3, 3, 3), np.float32)
    with pd, dnnl.Primitive(pd) as primitive:
        run(primitive, stream, engine, {dnnl.ARG_SRC: src, dnnl.ARG_WEIGHTS: weights, dnnl.ARG_DST: dst})
    expected = ref.convolution(src, weights, None, (2, 2), (0, 0), (0, 0), (-1, -1))
    np.testing.assert_allclose(dst, expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(dst, np.einsum("nchw,oc->nohw", src[:, :, ::2, ::2], weights[:, :, 0, 0]),
                               rtol=1e-5, atol=1e-5)


def test_deconvolution_with_negative_right_padding_matches_numpy(engine, stream):
    src, weights = values(1, 3, 3, 3), values(2, 3, 1, 1)
    pd = dnnl.DeconvolutionForwardDesc(engine, MemoryDesc.from_array(src), MemoryDesc.from_array(weights),
                                       MemoryDesc((1, 2, 6, 6), "f32", "abcd"), (2, 2), (0, 0), (-1, -1))
    dst = np.full((1, 2, 6, 6), np.nan, np.float32)
    with pd, dnnl.Primitive(pd) as primitive:
        run(primitive, stream, engine, {dnnl.ARG_SRC: src, dnnl.ARG_WEIGHTS: weights, dnnl.ARG_DST: dst})
    expected = ref.deconvolution(src, weights, None, (2, 2), (0, 0), (0, 0), (-1, -1))
    np.testing.assert_allclose(dst, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("algorithm", ["MAX", "AVG_INCLUDE_PADDING", "AVG_EXCLUDE_PADDING"])
def test_pooling_with_negative_right_padding_matches_numpy(engine, stream, algorithm):
    src = values(1, 2, 8, 8)
    pd = dnnl.PoolingForwardDesc(engine, getattr(AlgKind, f"POOLING_{algorithm}"), MemoryDesc.from_array(src),
                                 MemoryDesc((1, 2, 3, 3), "f32", "abcd"), (2, 2), (3, 3), (0, 0), (-1, -1))
    dst = np.zeros((1, 2, 3, 3), np.float32)
    with pd, dnnl.Primitive(pd) as primitive:
        run(primitive, stream, engine, {dnnl.ARG_SRC: src, dnnl.ARG_DST: dst})
    expected = ref.pooling(src, algorithm, (2, 2), (3, 3), (0, 0), (0, 0), (-1, -1))
    np.testing.assert_allclose(dst, expected, rtol=1e-5, atol=1e-5)


def test_right_padding_of_minus_the_stride_is_refused_with_the_reason(engine):
    with pytest.raises(dnnl.InvalidArgumentsError, match=r"padding_r\[0\]: -2 with stride 2"):
        dnnl.ConvolutionForwardDesc(engine, MemoryDesc((1, 2, 6, 6), "f32", "abcd"),
                                    MemoryDesc((3, 2, 1, 1), "f32", "abcd"), MemoryDesc((1, 3, 2, 2), "f32", "abcd"),
                                    (2, 2), (0, 0), (-2, -2))


def test_negative_left_padding_is_still_refused(engine):
    with pytest.raises(ValueError, match=r"padding_l\[0\]: -1"):
        dnnl.ConvolutionForwardDesc(engine, MemoryDesc((1, 2, 6, 6), "f32", "abcd"),
                                    MemoryDesc((3, 2, 1, 1), "f32", "abcd"), MemoryDesc((1, 3, 3, 3), "f32", "abcd"),
                                    (2, 2), (-1, -1), (0, 0))
