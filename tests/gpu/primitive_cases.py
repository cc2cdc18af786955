"""Forward primitives with their inputs and numpy's results, for the GPU test modules of both runtimes.

A module of its own (not conftest) so that the OpenCL and Level Zero modules,
and functions they run in a second process, can import it.

Inputs are multiples of 0.5 in [-4, 4] (:func:`halves`): the products and sums
a case makes of a few of them are exact in f32 and f16, so most cases must
match numpy exactly; those with exp, tanh, a square root or a power within a
few ulps (f32) or one rounding (f16 results). The references are the CPU
tests' own (``onednn_reference``, in float64). Every case runs with every
argument in a plain layout (the descriptors are made with plain tags, so
oneDNN computes with those).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

import dnnl_interop as dnnl
import onednn_reference as ref  # the numpy references the CPU tests use too (tests/ is on the path)

TAGS = "abcdef"


def halves(rng: np.random.Generator, shape, dtype=np.float32) -> np.ndarray:
    """Multiples of 0.5 in [-4, 4], at least one of each sign."""
    values = (rng.integers(-8, 9, shape) / 2).astype(dtype)
    values.flat[:2] = [-1.5, 2.5][: values.size]
    return values


def plain(shape, dtype="f32") -> dnnl.MemoryDesc:
    """The plain (row-major) descriptor of ``shape`` (``dtype`` oneDNN's name or numpy's type)."""
    return dnnl.MemoryDesc(shape, dtype, TAGS[: len(shape)])


def channel(v: np.ndarray) -> np.ndarray:
    """A per-channel vector broadcast over (N, C, H, W)."""
    return v[None, :, None, None]


# --- the cases ---------------------------------------------------------------------------


@dataclass
class Case:
    """A primitive descriptor, its inputs ``{ARG_*: array}`` and the outputs it must give."""

    desc: dnnl.PrimitiveDesc
    inputs: dict[int, np.ndarray]
    expected: dict[int, np.ndarray]
    rtol: float = 0.0  # both 0: exactly numpy's result
    atol: float = 0.0
    keep: object = None  # what ``desc`` needs alive and does not hold itself (a raw descriptor's hint)

    def check(self, outputs: dict[int, np.ndarray]) -> None:
        assert set(outputs) == set(self.expected)
        for arg, expected in self.expected.items():
            got = outputs[arg]
            assert got.shape == expected.shape and got.dtype == expected.dtype, (arg, got.shape, got.dtype)
            assert not np.isnan(got).any(), f"argument {arg}: the primitive left some of dst unwritten"
            if self.rtol == self.atol == 0.0:
                np.testing.assert_array_equal(got, expected, err_msg=f"argument {arg}")
            else:
                np.testing.assert_allclose(got, expected, rtol=self.rtol, atol=self.atol, err_msg=f"argument {arg}")


# --- running a case over a caller's memory --------------------------------------------------


def nan_filled(desc: dnnl.MemoryDesc) -> np.ndarray:
    """NaN in ``desc``'s shape and type: an output oneDNN has not written yet."""
    return np.full(desc.shape, np.nan, desc.dtype)


def mapped_reader(memory: dnnl.Memory) -> Callable[[], np.ndarray]:
    """Reads a copy of ``memory``'s data through ``memory.mapped()``."""
    def read() -> np.ndarray:
        with memory.mapped() as data:
            return data.copy()

    return read


def run_case(made: Case, door, execute: Callable, stream) -> None:
    """Execute ``made``'s primitive with ``execute`` (``ocl.execute``, ``ze.execute``) on ``stream``,
    over memories ``door`` makes (``door.input(desc, array)`` -> Memory, ``door.output(desc)``
    -> (Memory, read)); then check what ``read`` gives against numpy."""
    args, reads = {}, {}
    for arg, array in made.inputs.items():
        args[arg] = door.input(made.desc.arg_desc(arg), array)
    for arg in made.expected:
        args[arg], reads[arg] = door.output(made.desc.arg_desc(arg))
    # No event: an in-order OpenCL queue gives none, nor does oneDNN 3.13 on Level Zero.
    assert execute(dnnl.Primitive(made.desc), stream, args) is None
    stream.wait()
    made.check({arg: read() for arg, read in reads.items()})


def _matmul_with_bias(engine: dnnl.Engine) -> Case:
    rng = np.random.default_rng(1)
    src, weights, bias = halves(rng, (5, 7)), halves(rng, (7, 3)), halves(rng, (1, 3))
    desc = dnnl.MatmulDesc(engine, plain(src.shape), plain(weights.shape), plain((5, 3)), bias_desc=plain(bias.shape))
    expected = (src.astype(np.float64) @ weights + bias).astype(np.float32)
    return Case(desc, {dnnl.ARG_SRC: src, dnnl.ARG_WEIGHTS: weights, dnnl.ARG_BIAS: bias}, {dnnl.ARG_DST: expected})


def _batched_matmul_f16(engine: dnnl.Engine) -> Case:
    rng = np.random.default_rng(2)
    src, weights = halves(rng, (2, 4, 6), np.float16), halves(rng, (2, 6, 3), np.float16)
    desc = dnnl.MatmulDesc(engine, plain(src.shape, "f16"), plain(weights.shape, "f16"), plain((2, 4, 3), "f16"))
    expected = (src.astype(np.float64) @ weights).astype(np.float16)
    return Case(desc, {dnnl.ARG_SRC: src, dnnl.ARG_WEIGHTS: weights}, {dnnl.ARG_DST: expected})


def convolution_parts(seed: int = 3):
    """Source (2, 3, 7, 7), weights (4, 3, 3, 3) and bias (4,) of the convolution cases."""
    rng = np.random.default_rng(seed)
    return halves(rng, (2, 3, 7, 7)), halves(rng, (4, 3, 3, 3)), halves(rng, (4,))


def relu_post_ops() -> dnnl.PrimitiveAttr:
    post_ops = dnnl.PostOps()
    post_ops.append_eltwise(dnnl.AlgKind.ELTWISE_RELU)
    attr = dnnl.PrimitiveAttr()
    attr.set_post_ops(post_ops)
    return attr


def convolution_desc(engine: dnnl.Engine, *, relu: bool, tag: str = "abcd") -> dnnl.ConvolutionForwardDesc:
    """3×3 convolution with bias, stride 2 and padding 1 with ReLU fused, else stride 1 and padding 1."""
    stride = 2 if relu else 1
    size = 4 if relu else 7
    desc = dnnl.MemoryDesc
    return dnnl.ConvolutionForwardDesc(
        engine, desc((2, 3, 7, 7), "f32", tag), desc((4, 3, 3, 3), "f32", tag), desc((2, 4, size, size), "f32", tag),
        [stride, stride], [1, 1], [1, 1], bias_desc=desc((4,), "f32", "a" if tag != "any" else "any"),
        attr=relu_post_ops() if relu else None,
    )


def convolution_expected(src, weights, bias, *, relu: bool) -> np.ndarray:
    unfused = _conv2d(src, weights, bias, 2 if relu else 1)
    return (np.maximum(unfused, 0) if relu else unfused).astype(np.float32)


def _conv2d(src: np.ndarray, weights: np.ndarray, bias: np.ndarray, stride: int) -> np.ndarray:
    """The cases' convolution: 3×3, padding 1 on each side, no dilation."""
    return ref.convolution(src, weights, bias, (stride, stride), (0, 0), (1, 1), (1, 1))


def deconv2d(src: np.ndarray, weights: np.ndarray, stride: int) -> np.ndarray:
    """The cases' deconvolution: no padding, no dilation, no bias."""
    return ref.deconvolution(src, weights, None, (stride, stride), (0, 0), (0, 0), (0, 0))


def _convolution(relu: bool) -> Callable[[dnnl.Engine], Case]:
    def make(engine: dnnl.Engine) -> Case:
        src, weights, bias = convolution_parts()
        unfused = _conv2d(src, weights, bias, 2 if relu else 1)
        assert (unfused < 0).any() and (unfused > 0).any()  # so the ReLU has work to do
        return Case(
            convolution_desc(engine, relu=relu),
            {dnnl.ARG_SRC: src, dnnl.ARG_WEIGHTS: weights, dnnl.ARG_BIAS: bias},
            {dnnl.ARG_DST: convolution_expected(src, weights, bias, relu=relu)},
        )

    return make


def _eltwise(algorithm: dnnl.AlgKind, alpha: float, beta: float, reference, rtol=0.0, atol=0.0):
    def make(engine: dnnl.Engine) -> Case:
        src = halves(np.random.default_rng(4), (3, 5, 4))
        desc = dnnl.EltwiseForwardDesc(engine, algorithm, plain(src.shape), plain(src.shape), alpha, beta)
        expected = reference(src.astype(np.float64)).astype(np.float32)
        return Case(desc, {dnnl.ARG_SRC: src}, {dnnl.ARG_DST: expected}, rtol, atol)

    return make


def _binary(algorithm: dnnl.AlgKind, shape0, shape1, reference):
    def make(engine: dnnl.Engine) -> Case:
        rng = np.random.default_rng(5)
        src0, src1 = halves(rng, shape0), halves(rng, shape1)
        desc = dnnl.BinaryDesc(engine, algorithm, plain(shape0), plain(shape1), plain(shape0))
        return Case(desc, {dnnl.ARG_SRC_0: src0, dnnl.ARG_SRC_1: src1}, {dnnl.ARG_DST: reference(src0, src1)})

    return make


def _select(engine: dnnl.Engine) -> Case:
    rng = np.random.default_rng(6)
    src0, src1 = halves(rng, (4, 8)), halves(rng, (4, 8))
    condition = rng.choice(np.array([0, 1, -3, 7], np.int8), (4, 8))  # any non-zero value selects src0
    desc = dnnl.BinaryDesc(
        engine, dnnl.AlgKind.BINARY_SELECT, plain(src0.shape), plain(src1.shape), plain(src0.shape),
        src2_desc=plain(condition.shape, "s8"),
    )
    return Case(
        desc, {dnnl.ARG_SRC_0: src0, dnnl.ARG_SRC_1: src1, dnnl.ARG_SRC_2: condition},
        {dnnl.ARG_DST: np.where(condition != 0, src0, src1)},
    )


def _deconvolution(engine: dnnl.Engine) -> Case:
    rng = np.random.default_rng(7)
    src, weights = halves(rng, (1, 3, 5, 5)), halves(rng, (4, 3, 3, 3))
    desc = dnnl.DeconvolutionForwardDesc(
        engine, plain(src.shape), plain(weights.shape), plain((1, 4, 11, 11)), [2, 2], [0, 0], [0, 0]
    )
    expected = deconv2d(src, weights, 2).astype(np.float32)
    return Case(desc, {dnnl.ARG_SRC: src, dnnl.ARG_WEIGHTS: weights}, {dnnl.ARG_DST: expected})


def _pooling(algorithm: dnnl.AlgKind, name: str) -> Callable[[dnnl.Engine], Case]:
    """2×2 windows, stride 2, no padding; ``name`` the algorithm in onednn_reference's words."""
    def make(engine: dnnl.Engine) -> Case:
        src = halves(np.random.default_rng(8), (2, 3, 6, 6))
        desc = dnnl.PoolingForwardDesc(
            engine, algorithm, plain(src.shape), plain((2, 3, 3, 3)), [2, 2], [2, 2], [0, 0], [0, 0]
        )
        expected = ref.pooling(src, name, (2, 2), (2, 2), (0, 0), (0, 0), (0, 0)).astype(np.float32)
        return Case(desc, {dnnl.ARG_SRC: src}, {dnnl.ARG_DST: expected})

    return make


EPSILON = 1e-3
FLAGS = dnnl.NormalizationFlags


def _batch_norm_inference(engine: dnnl.Engine) -> Case:
    """Global statistics given, scale and shift: ``scale * (x - mean) / sqrt(variance + eps) + shift``."""
    rng = np.random.default_rng(9)
    src = halves(rng, (2, 3, 4, 4))
    mean, scale, shift = halves(rng, (3,)), halves(rng, (3,)), halves(rng, (3,))
    variance = np.array([0.25, 1.0, 4.0], np.float32)
    desc = dnnl.BatchNormalizationForwardDesc(
        engine, plain(src.shape), plain(src.shape), EPSILON, FLAGS.USE_GLOBAL_STATS | FLAGS.USE_SCALE | FLAGS.USE_SHIFT
    )
    x = src.astype(np.float64)
    expected = channel(scale) * (x - channel(mean)) / np.sqrt(channel(variance) + EPSILON) + channel(shift)
    inputs = {dnnl.ARG_SRC: src, dnnl.ARG_MEAN: mean, dnnl.ARG_VARIANCE: variance,
              dnnl.ARG_SCALE: scale, dnnl.ARG_SHIFT: shift}
    return Case(desc, inputs, {dnnl.ARG_DST: expected.astype(np.float32)}, rtol=1e-5, atol=1e-5)


def _batch_norm_training(engine: dnnl.Engine) -> Case:
    """Statistics computed over batch and space, and given back: mean and (biased) variance."""
    src = halves(np.random.default_rng(10), (2, 3, 4, 4))
    desc = dnnl.BatchNormalizationForwardDesc(
        engine, plain(src.shape), plain(src.shape), EPSILON, FLAGS.NONE, prop_kind=dnnl.PropKind.FORWARD_TRAINING
    )
    x = src.astype(np.float64)
    mean, variance = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3))
    expected = (x - channel(mean)) / np.sqrt(channel(variance) + EPSILON)
    outputs = {dnnl.ARG_DST: expected.astype(np.float32), dnnl.ARG_MEAN: mean.astype(np.float32),
               dnnl.ARG_VARIANCE: variance.astype(np.float32)}
    return Case(desc, {dnnl.ARG_SRC: src}, outputs, rtol=1e-5, atol=1e-5)


def _elu(x: np.ndarray) -> np.ndarray:
    return np.where(x > 0, x, np.expm1(x))


def _layer_norm_training(engine: dnnl.Engine) -> Case:
    """Statistics over the last dimension, given back; scale and shift per element of it."""
    rng = np.random.default_rng(13)
    src, scale, shift = halves(rng, (3, 4, 8)), halves(rng, (8,)), halves(rng, (8,))
    desc = dnnl.LayerNormalizationForwardDesc(
        engine, plain(src.shape), plain(src.shape), EPSILON, FLAGS.USE_SCALE | FLAGS.USE_SHIFT,
        prop_kind=dnnl.PropKind.FORWARD_TRAINING,
    )
    x = src.astype(np.float64)
    mean, variance = x.mean(axis=-1), x.var(axis=-1)
    expected = scale * (x - mean[..., None]) / np.sqrt(variance[..., None] + EPSILON) + shift
    outputs = {dnnl.ARG_DST: expected.astype(np.float32), dnnl.ARG_MEAN: mean.astype(np.float32),
               dnnl.ARG_VARIANCE: variance.astype(np.float32)}
    return Case(desc, {dnnl.ARG_SRC: src, dnnl.ARG_SCALE: scale, dnnl.ARG_SHIFT: shift}, outputs, 1e-5, 1e-5)


def _layer_norm_inference_f16(engine: dnnl.Engine) -> Case:
    """f16 data, statistics (f32) given, scale and shift (f32); dst within an f16 rounding."""
    rng = np.random.default_rng(14)
    src = halves(rng, (4, 16), np.float16)
    mean, scale, shift = halves(rng, (4,)), halves(rng, (16,)), halves(rng, (16,))
    variance = np.array([0.25, 1.0, 4.0, 2.25], np.float32)
    desc = dnnl.LayerNormalizationForwardDesc(
        engine, plain(src.shape, "f16"), plain(src.shape, "f16"), EPSILON,
        FLAGS.USE_GLOBAL_STATS | FLAGS.USE_SCALE | FLAGS.USE_SHIFT,
    )
    x = src.astype(np.float64)
    expected = scale * (x - mean[:, None]) / np.sqrt(variance[:, None] + EPSILON) + shift
    inputs = {dnnl.ARG_SRC: src, dnnl.ARG_MEAN: mean, dnnl.ARG_VARIANCE: variance,
              dnnl.ARG_SCALE: scale, dnnl.ARG_SHIFT: shift}
    return Case(desc, inputs, {dnnl.ARG_DST: expected.astype(np.float16)}, rtol=1e-3, atol=1e-3)


def _group_norm_training(engine: dnnl.Engine) -> Case:
    """6 channels in 3 groups: statistics over each group's channels and space, given back;
    scale and shift per channel."""
    rng = np.random.default_rng(15)
    src, scale, shift = halves(rng, (2, 6, 3, 3)), halves(rng, (6,)), halves(rng, (6,))
    desc = dnnl.GroupNormalizationForwardDesc(
        engine, plain(src.shape), plain(src.shape), 3, EPSILON, FLAGS.USE_SCALE | FLAGS.USE_SHIFT,
        prop_kind=dnnl.PropKind.FORWARD_TRAINING,
    )
    grouped = src.astype(np.float64).reshape(2, 3, 2, 3, 3)
    mean, variance = grouped.mean(axis=(2, 3, 4)), grouped.var(axis=(2, 3, 4))
    normalized = (grouped - mean[:, :, None, None, None]) / np.sqrt(variance[:, :, None, None, None] + EPSILON)
    expected = channel(scale) * normalized.reshape(src.shape) + channel(shift)
    outputs = {dnnl.ARG_DST: expected.astype(np.float32), dnnl.ARG_MEAN: mean.astype(np.float32),
               dnnl.ARG_VARIANCE: variance.astype(np.float32)}
    return Case(desc, {dnnl.ARG_SRC: src, dnnl.ARG_SCALE: scale, dnnl.ARG_SHIFT: shift}, outputs, 1e-5, 1e-5)


def _reduction(algorithm: dnnl.AlgKind, shape, dst_shape, reference, dtype=np.float32, p=0.0, rtol=0.0):
    """Reduces the dimensions where ``dst_shape`` has 1: ``reference(x, axes)`` (keeping them)."""
    def make(engine: dnnl.Engine) -> Case:
        src = halves(np.random.default_rng(16), shape, dtype)
        desc = dnnl.ReductionDesc(engine, algorithm, plain(shape, dtype), plain(dst_shape, dtype), p, 0.0)
        axes = tuple(i for i, (n, m) in enumerate(zip(shape, dst_shape, strict=True)) if n != m)
        expected = reference(src.astype(np.float64), axes).astype(dtype)
        return Case(desc, {dnnl.ARG_SRC: src}, {dnnl.ARG_DST: expected}, rtol)

    return make


def _resampling(algorithm: dnnl.AlgKind, shape, dst_shape, dtype=np.float32, rtol=0.0, atol=0.0):
    def make(engine: dnnl.Engine) -> Case:
        src = halves(np.random.default_rng(17), shape, dtype)
        desc = dnnl.ResamplingForwardDesc(engine, algorithm, plain(shape, dtype), plain(dst_shape, dtype))
        expected = ref.resampling(src, algorithm.name.removeprefix("RESAMPLING_"), dst_shape[2:]).astype(dtype)
        return Case(desc, {dnnl.ARG_SRC: src}, {dnnl.ARG_DST: expected}, rtol, atol)

    return make


def _concat(axis: int, shapes, dtype=np.float32):
    def make(engine: dnnl.Engine) -> Case:
        rng = np.random.default_rng(18)
        sources = [halves(rng, shape, dtype) for shape in shapes]
        expected = np.concatenate(sources, axis=axis)
        desc = dnnl.ConcatDesc(engine, axis, [plain(shape, dtype) for shape in shapes],
                               dst_desc=plain(expected.shape, dtype))
        return Case(desc, {dnnl.ARG_MULTIPLE_SRC + i: source for i, source in enumerate(sources)},
                    {dnnl.ARG_DST: expected})

    return make


def _inner_product(src_shape, outputs, dtype=np.float32, bias=True):
    """``dst[n, o] = Σ_c src[n, c...] * weights[o, c...] + bias[o]``."""
    def make(engine: dnnl.Engine) -> Case:
        rng = np.random.default_rng(21)
        src = halves(rng, src_shape, dtype)
        weights = halves(rng, (outputs, *src_shape[1:]), dtype)
        n = src_shape[0]
        expected64 = src.reshape(n, -1).astype(np.float64) @ weights.reshape(outputs, -1).T.astype(np.float64)
        inputs = {dnnl.ARG_SRC: src, dnnl.ARG_WEIGHTS: weights}
        bias_desc = None
        if bias:
            inputs[dnnl.ARG_BIAS] = halves(rng, (outputs,), dtype)
            expected64 += inputs[dnnl.ARG_BIAS]
            bias_desc = plain((outputs,), dtype)
        desc = dnnl.InnerProductForwardDesc(engine, plain(src_shape, dtype), plain(weights.shape, dtype),
                                            plain((n, outputs), dtype), bias_desc=bias_desc)
        return Case(desc, inputs, {dnnl.ARG_DST: expected64.astype(dtype)})

    return make


def _sum(scales, shape, dtype=np.float32):
    """``dst = Σ_i scales[i] * src_i`` (the first scale not 1: see SumDesc's guard)."""
    def make(engine: dnnl.Engine) -> Case:
        rng = np.random.default_rng(22)
        sources = [halves(rng, shape, dtype) for _ in scales]
        weighted = (scale * source.astype(np.float64) for scale, source in zip(scales, sources, strict=True))
        expected = sum(weighted).astype(dtype)
        desc = dnnl.SumDesc(engine, list(scales), [plain(shape, dtype)] * len(scales), dst_desc=plain(shape, dtype))
        return Case(desc, {dnnl.ARG_MULTIPLE_SRC + i: source for i, source in enumerate(sources)},
                    {dnnl.ARG_DST: expected})

    return make


def _prelu(shape, weights_shape, dtype=np.float32):
    """``src > 0 ? src : weights * src``, weights broadcast over the dimensions where they have 1."""
    def make(engine: dnnl.Engine) -> Case:
        rng = np.random.default_rng(19)
        src, weights = halves(rng, shape, dtype), halves(rng, weights_shape, dtype)
        desc = dnnl.PReLUForwardDesc(engine, plain(shape, dtype), plain(weights_shape, dtype), plain(shape, dtype))
        expected = np.where(src > 0, src, weights.astype(np.float64) * src).astype(dtype)
        return Case(desc, {dnnl.ARG_SRC: src, dnnl.ARG_WEIGHTS: weights}, {dnnl.ARG_DST: expected})

    return make


def _shuffle(shape, axis: int, group_size: int, dtype=np.float32):
    """The axis seen as (size / group_size, group_size), transposed: for size 6 and groups of 2,
    elements 0 2 4 1 3 5."""
    def make(engine: dnnl.Engine) -> Case:
        src = halves(np.random.default_rng(20), shape, dtype)
        desc = dnnl.ShuffleForwardDesc(engine, plain(shape, dtype), plain(shape, dtype), axis, group_size)
        split = (*shape[:axis], shape[axis] // group_size, group_size, *shape[axis + 1:])
        expected = np.swapaxes(src.reshape(split), axis, axis + 1).reshape(shape)
        return Case(desc, {dnnl.ARG_SRC: src}, {dnnl.ARG_DST: expected})

    return make


LRN_PARAMETERS = (3, 0.1, 0.75, 2.0)  # local size, alpha, beta, k
# The kernel raises to the power beta with the OpenCL runtime's pow, whose precision depends on
# the instruction set of the CPU under the emulated GPU: 1e-6 with AVX-512, 8.5e-5 seen with AVX2.
LRN_TOLERANCE = 2e-4


def _lrn(algorithm: dnnl.AlgKind, shape, dtype=np.float32, tolerance=LRN_TOLERANCE):
    def make(engine: dnnl.Engine) -> Case:
        src = halves(np.random.default_rng(21), shape, dtype)
        desc = dnnl.LRNForwardDesc(engine, algorithm, plain(shape, dtype), plain(shape, dtype), *LRN_PARAMETERS)
        expected = ref.lrn(src, algorithm.name.removeprefix("LRN_"), *LRN_PARAMETERS).astype(dtype)
        return Case(desc, {dnnl.ARG_SRC: src}, {dnnl.ARG_DST: expected}, tolerance, tolerance)

    return make


A = dnnl.AlgKind
CASES: dict[str, Callable[[dnnl.Engine], Case]] = {
    "matmul+bias": _matmul_with_bias,
    "matmul-batched-f16": _batched_matmul_f16,
    "convolution+bias": _convolution(relu=False),
    "convolution+bias+relu": _convolution(relu=True),
    "eltwise-relu": _eltwise(A.ELTWISE_RELU, 0.0, 0.0, lambda x: np.maximum(x, 0)),
    "eltwise-linear": _eltwise(A.ELTWISE_LINEAR, 2.0, 0.5, lambda x: 2 * x + 0.5),
    "eltwise-tanh": _eltwise(A.ELTWISE_TANH, 0.0, 0.0, np.tanh, rtol=1e-5, atol=1e-6),
    "eltwise-elu": _eltwise(A.ELTWISE_ELU, 1.0, 0.0, _elu, rtol=1e-5, atol=1e-6),
    "binary-add-broadcast": _binary(A.BINARY_ADD, (4, 8), (1, 8), np.add),
    "binary-mul": _binary(A.BINARY_MUL, (2, 3, 4), (2, 3, 4), np.multiply),
    "binary-select": _select,
    "deconvolution": _deconvolution,
    "pooling-max": _pooling(A.POOLING_MAX, "MAX"),
    "pooling-avg": _pooling(A.POOLING_AVG_EXCLUDE_PADDING, "AVG_EXCLUDE_PADDING"),
    "batch-norm-inference": _batch_norm_inference,
    "batch-norm-training": _batch_norm_training,
    "layer-norm-training": _layer_norm_training,
    "layer-norm-inference-f16": _layer_norm_inference_f16,
    "group-norm-training": _group_norm_training,
    "reduction-sum": _reduction(A.REDUCTION_SUM, (2, 3, 4), (2, 1, 4), lambda x, axes: x.sum(axes, keepdims=True)),
    "reduction-mean": _reduction(A.REDUCTION_MEAN, (2, 3, 4), (1, 3, 1), lambda x, axes: x.mean(axes, keepdims=True)),
    "reduction-max-f16": _reduction(
        A.REDUCTION_MAX, (3, 5, 4), (3, 1, 1), lambda x, axes: x.max(axes, keepdims=True), np.float16
    ),
    "reduction-norm-l2": _reduction(
        A.REDUCTION_NORM_LP_SUM, (3, 8), (3, 1), lambda x, axes: np.sqrt((x * x).sum(axes, keepdims=True)),
        p=2.0, rtol=1e-6,
    ),
    "resampling-nearest": _resampling(A.RESAMPLING_NEAREST, (1, 2, 3, 5), (1, 2, 7, 3)),
    "resampling-linear": _resampling(A.RESAMPLING_LINEAR, (1, 2, 3, 5), (1, 2, 7, 3), rtol=1e-6, atol=1e-6),
    "resampling-linear-f16": _resampling(A.RESAMPLING_LINEAR, (1, 2, 4, 4), (1, 2, 8, 8), np.float16),
    "concat": _concat(1, [(2, 3, 4), (2, 1, 4), (2, 2, 4)]),
    "concat-f16": _concat(1, [(3, 2), (3, 5)], np.float16),
    "inner-product+bias": _inner_product((3, 2, 2, 2), 5),
    "inner-product-f16": _inner_product((4, 6), 3, np.float16, bias=False),
    "sum": _sum((2.0, 1.0, 0.5), (3, 4, 5)),
    "sum-f16": _sum((0.5, 1.0), (6, 8), np.float16),
    "prelu-per-channel": _prelu((2, 3, 4, 4), (1, 3, 1, 1)),
    "prelu-f16": _prelu((4, 8), (4, 8), np.float16),
    "shuffle": _shuffle((2, 6, 3), 1, 3),
    "shuffle-f16": _shuffle((4, 6), 1, 2, np.float16),
    "lrn-across-channels": _lrn(A.LRN_ACROSS_CHANNELS, (2, 5, 3, 3)),
    "lrn-within-channel": _lrn(A.LRN_WITHIN_CHANNEL, (1, 2, 4, 4)),
    "lrn-across-channels-f16": _lrn(A.LRN_ACROSS_CHANNELS, (2, 5, 3, 3), np.float16, 1e-3),
}


# --- cached creation in a process of its own ---------------------------------------------

SRC_SCALE = 0.75


def matmul_with_src_scales_desc(engine: dnnl.Engine) -> dnnl.MatmulDesc:
    """``dst = SRC_SCALE * src × weights``, the scale given at execute (``scales_arg(ARG_SRC)``)."""
    attr = dnnl.PrimitiveAttr()
    attr.set_scales_mask(dnnl.ARG_SRC, 0)  # one scale for all of src
    return dnnl.MatmulDesc(engine, plain((6, 5)), plain((5, 4)), plain((6, 4)), attr=attr)


def matmul_parts() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(12)
    return halves(rng, (6, 5)), halves(rng, (5, 4))


def cached_creation_process(runtime: str, directory: str, verbose_path: str) -> dict:
    """One process of an application (run by ``run_in_child``): a convolution with a ReLU
    post-op and a matmul with src scales made through the store in ``directory``, then run.

    Returns what each creation handed oneDNN (``_primitive._create_primitive`` is wrapped:
    None for a fresh creation, else the blob), how oneDNN says it made each primitive (its
    verbose log: ``cache_miss`` or ``persistent_cache_hit``), each primitive's cache blob and
    its outputs.
    """
    from dnnl_interop import _primitive, ocl, ze
    from dnnl_interop.cache import CacheBlobStore
    from dnnl_interop.testing import emulated_gpu, emulated_level_zero

    from .test_gpu_cached_creation import _onednn_verbose_lines, _primitive_creations

    created: list[tuple[str, bytes | None]] = []
    create = _primitive._create_primitive

    def recording(primitive, desc, cache_blob):
        created.append((desc.kind.name.lower(), None if cache_blob is None else bytes(cache_blob)))
        return create(primitive, desc, cache_blob)

    _primitive._create_primitive = recording
    kept: list[object] = []
    if runtime == "ocl":
        import pyopencl as cl

        gpu = emulated_gpu.enable()
        engine = ocl.make_engine(gpu.device, gpu.context)
        stream = ocl.make_stream(engine, cl.CommandQueue(gpu.context))

        def memory(desc: dnnl.MemoryDesc, array: np.ndarray) -> dnnl.Memory:
            flags = cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR
            return ocl.make_memory(desc, engine, ocl.MemoryKind.BUFFER, cl.Buffer(gpu.context, flags, hostbuf=array))
    else:
        lz = emulated_level_zero.enable()
        engine = ze.make_engine(lz.driver, lz.device, lz.context)
        stream = ze.make_stream(engine, lz.command_list)

        def memory(desc: dnnl.MemoryDesc, array: np.ndarray) -> dnnl.Memory:
            usm = lz.shared(desc.shape, desc.dtype)
            usm.array[...] = array
            kept.append(usm)
            return ze.make_memory(desc, engine, usm.array)

    store = CacheBlobStore(directory)
    descs = {"convolution": convolution_desc(engine, relu=True), "matmul": matmul_with_src_scales_desc(engine)}
    with _onednn_verbose_lines(verbose_path) as verbose:
        primitives = {name: dnnl.make_primitive_cached(desc, store) for name, desc in descs.items()}

    src, weights, bias = convolution_parts()
    a, b = matmul_parts()
    given = {
        "convolution": {dnnl.ARG_SRC: src, dnnl.ARG_WEIGHTS: weights, dnnl.ARG_BIAS: bias},
        "matmul": {dnnl.ARG_SRC: a, dnnl.ARG_WEIGHTS: b,
                   dnnl.scales_arg(dnnl.ARG_SRC): np.array([SRC_SCALE], np.float32)},
    }
    outputs = {}
    for name, primitive in primitives.items():
        desc = descs[name]
        args = {arg: memory(desc.arg_desc(arg) or plain(array.shape), array) for arg, array in given[name].items()}
        dst_desc = desc.dst_desc()
        args[dnnl.ARG_DST] = dst = memory(dst_desc, np.full(dst_desc.shape, np.nan, np.float32))
        primitive.execute(stream, args)
        stream.wait()
        with dst.mapped() as out:
            outputs[name] = out.copy()
    return {
        "created": created,
        "creations": _primitive_creations(verbose),
        "blobs": {name: primitive.get_cache_blob() for name, primitive in primitives.items()},
        "outputs": outputs,
        "entries": len(list(store)),
    }


def check_two_processes(first: dict, second: dict) -> None:
    """What ``cached_creation_process`` run twice on one store must give: the first process
    makes both primitives afresh and saves their blobs; the second hands oneDNN those very
    blobs (oneDNN: ``persistent_cache_hit``, nothing compiled) and computes the same bytes,
    which are numpy's."""
    assert first["created"] == [("convolution", None), ("matmul", None)]
    assert first["creations"] == ["cache_miss", "cache_miss"]
    assert first["entries"] == 2  # one blob per primitive
    assert all(len(blob) > 10_000 for blob in first["blobs"].values())  # compiled kernels

    assert second["created"] == [("convolution", first["blobs"]["convolution"]), ("matmul", first["blobs"]["matmul"])]
    assert second["creations"] == ["persistent_cache_hit", "persistent_cache_hit"]
    for name in ("convolution", "matmul"):
        assert second["outputs"][name].tobytes() == first["outputs"][name].tobytes()

    src, weights, bias = convolution_parts()
    np.testing.assert_array_equal(first["outputs"]["convolution"], convolution_expected(src, weights, bias, relu=True))
    a, b = matmul_parts()
    scaled = SRC_SCALE * (a.astype(np.float64) @ b)
    np.testing.assert_array_equal(first["outputs"]["matmul"], scaled.astype(np.float32))
