"""Forward training then backward passes of pooling, LRN and the normalizations, with
their numpy references, for the GPU test modules of both runtimes.

Every memory is one oneDNN allocates on the engine, filled and read through
``memory.mapped()`` (outputs start as NaN); a workspace is the one
``workspace_memory`` allocates for the forward descriptor. The references are
the CPU tests' own (``backward_normalizations_reference``), each confirmed
there by finite differences.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import backward_normalizations_reference as bref  # tests/ is on the path, as for primitive_cases
import dnnl_interop as dnnl
import onednn_reference as ref
from dnnl_interop import AlgKind, NormalizationFlags, PropKind
from gradients import relative_error

from .primitive_cases import plain

__all__ = ["CASES", "SCALE_SHIFT", "TRAINING", "check", "distinct", "plain", "pooling_descs", "run"]

TRAINING = PropKind.FORWARD_TRAINING
EPS = 1e-3
ALPHA, BETA, K = 0.1, 0.75, 2.0
SCALE_SHIFT = NormalizationFlags.USE_SCALE | NormalizationFlags.USE_SHIFT


def run(engine, stream, pd, inputs, workspace=None) -> dict[int, np.ndarray]:
    """Execute ``pd``'s primitive: ``inputs`` ({ARG_*: array}) in f32, every other argument
    it describes an output, returned; ``workspace`` its ARG_WORKSPACE."""
    memories, outputs = {}, {}
    for arg in pd.arg_sizes:
        if arg == dnnl.ARG_WORKSPACE:
            memories[arg] = workspace
            continue
        desc = pd.arg_desc(arg)
        memory = memories[arg] = dnnl.Memory(desc, engine)
        with memory.mapped() as view:
            view[...] = np.reshape(inputs[arg], desc.shape) if arg in inputs else np.nan
        if arg not in inputs:
            outputs[arg] = memory
    dnnl.Primitive(pd).execute(stream, memories)
    stream.wait()
    found = {}
    for arg, memory in outputs.items():
        with memory.mapped() as view:
            found[arg] = view.copy()
    return found


def distinct(rng, shape) -> np.ndarray:
    """Values 0.25 apart (no ties: max pooling has a gradient), centred on 0."""
    count = int(np.prod(shape))
    return (rng.permutation(count).reshape(shape) - count / 2) * 0.25


# A case: (engine, stream) -> ({ARG_*: oneDNN's gradient}, {ARG_*: the reference's}).
Case = Callable[[dnnl.Engine, dnnl.Stream], tuple[dict[int, np.ndarray], dict[int, np.ndarray]]]


def pooling_descs(engine, algorithm, shape, kernel, strides, padding_l, padding_r):
    n = len(kernel)
    out = [ref.output_size(shape[2 + i], kernel[i], strides[i], 0, padding_l[i], padding_r[i]) for i in range(n)]
    src, dst = plain(shape), plain((*shape[:2], *out))
    alg = AlgKind[f"POOLING_{algorithm}"]
    fwd = dnnl.PoolingForwardDesc(engine, alg, src, dst, strides, kernel, padding_l, padding_r, prop_kind=TRAINING)
    return fwd, dnnl.PoolingBackwardDesc(engine, alg, src, dst, strides, kernel, padding_l, padding_r, fwd)


def pooling(algorithm, shape, kernel, strides, padding_l, padding_r) -> Case:
    def case(engine, stream):
        fwd, bwd = pooling_descs(engine, algorithm, shape, kernel, strides, padding_l, padding_r)
        rng = np.random.default_rng(1)
        x = distinct(rng, shape)
        diff_dst = rng.uniform(-1, 1, bwd.diff_dst_desc().shape)
        workspace = dnnl.workspace_memory(fwd) if fwd.workspace_desc() is not None else None
        run(engine, stream, fwd, {dnnl.ARG_SRC: x}, workspace)
        found = run(engine, stream, bwd, {dnnl.ARG_DIFF_DST: diff_dst}, workspace)
        return found, {dnnl.ARG_DIFF_SRC: bref.pooling_backward(x, diff_dst, algorithm, strides, kernel, padding_l,
                                                                padding_r)}
    return case


def lrn(algorithm, shape, size) -> Case:
    def case(engine, stream):
        alg, src = AlgKind[f"LRN_{algorithm}"], plain(shape)
        fwd = dnnl.LRNForwardDesc(engine, alg, src, src, size, ALPHA, BETA, K, prop_kind=TRAINING)
        bwd = dnnl.LRNBackwardDesc(engine, alg, src, src, src, size, ALPHA, BETA, K, fwd)
        rng = np.random.default_rng(2)
        x, diff_dst = rng.uniform(-2, 2, shape), rng.uniform(-1, 1, shape)
        workspace = dnnl.workspace_memory(fwd) if fwd.workspace_desc() is not None else None
        run(engine, stream, fwd, {dnnl.ARG_SRC: x}, workspace)
        found = run(engine, stream, bwd, {dnnl.ARG_SRC: x, dnnl.ARG_DIFF_DST: diff_dst}, workspace)
        return found, {dnnl.ARG_DIFF_SRC: bref.lrn_backward(x, diff_dst, algorithm, size, ALPHA, BETA, K)}
    return case


def _normalization(make, shape, channels, flags, reference) -> Case:
    """``make(engine, src_desc, flags)``: (forward, backward) descriptors; ``reference(inputs,
    diff_dst)``: (diff_src, diff_scale, diff_shift)."""
    def case(engine, stream):
        fwd, bwd = make(engine, plain(shape), flags)
        rng = np.random.default_rng(3)
        inputs = {dnnl.ARG_SRC: rng.uniform(-2, 2, shape)}
        if flags & NormalizationFlags.USE_SCALE:
            inputs[dnnl.ARG_SCALE] = rng.uniform(0.5, 2, channels)
            inputs[dnnl.ARG_SHIFT] = rng.uniform(-1, 1, channels)
        if flags & NormalizationFlags.USE_GLOBAL_STATS:
            inputs[dnnl.ARG_MEAN] = rng.uniform(-1, 1, channels)
            inputs[dnnl.ARG_VARIANCE] = rng.uniform(0.5, 2, channels)
        diff_dst = rng.uniform(-1, 1, shape)
        workspace = dnnl.workspace_memory(fwd) if fwd.workspace_desc() is not None else None
        forward = run(engine, stream, fwd, inputs, workspace)
        statistics = {arg: forward.get(arg, inputs.get(arg)) for arg in (dnnl.ARG_MEAN, dnnl.ARG_VARIANCE)}
        found = run(engine, stream, bwd, {**inputs, **statistics, dnnl.ARG_DIFF_DST: diff_dst}, workspace)
        diff_src, diff_scale, diff_shift = reference(inputs, diff_dst, forward[dnnl.ARG_DST])
        expected = {dnnl.ARG_DIFF_SRC: diff_src}
        if flags & NormalizationFlags.USE_SCALE:
            expected |= {dnnl.ARG_DIFF_SCALE: diff_scale, dnnl.ARG_DIFF_SHIFT: diff_shift}
        return {arg: found[arg] for arg in expected}, expected
    return case


def batch_normalization(flags, shape=(3, 4, 2, 3)) -> Case:
    def make(engine, src, flags):
        fwd = dnnl.BatchNormalizationForwardDesc(engine, src, src, EPS, flags, prop_kind=TRAINING)
        return fwd, dnnl.BatchNormalizationBackwardDesc(engine, src, src, src, EPS, flags, fwd)

    def reference(inputs, diff_dst, dst):
        return bref.batch_normalization_backward(
            inputs[dnnl.ARG_SRC], diff_dst, EPS, inputs.get(dnnl.ARG_SCALE),
            bool(flags & NormalizationFlags.USE_GLOBAL_STATS), inputs.get(dnnl.ARG_MEAN),
            inputs.get(dnnl.ARG_VARIANCE), dst if flags & NormalizationFlags.FUSE_NORM_RELU else None)
    return _normalization(make, shape, shape[1], flags, reference)


def layer_normalization(flags, shape=(2, 3, 5)) -> Case:
    def make(engine, src, flags):
        fwd = dnnl.LayerNormalizationForwardDesc(engine, src, src, EPS, flags, prop_kind=TRAINING)
        return fwd, dnnl.LayerNormalizationBackwardDesc(engine, src, src, src, EPS, flags, fwd)

    def reference(inputs, diff_dst, dst):
        return bref.layer_normalization_backward(inputs[dnnl.ARG_SRC], diff_dst, EPS, inputs.get(dnnl.ARG_SCALE))
    return _normalization(make, shape, shape[-1], flags, reference)


def group_normalization(flags, groups=2, shape=(2, 4, 3)) -> Case:
    def make(engine, src, flags):
        fwd = dnnl.GroupNormalizationForwardDesc(engine, src, src, groups, EPS, flags, prop_kind=TRAINING)
        return fwd, dnnl.GroupNormalizationBackwardDesc(engine, src, src, src, groups, EPS, flags, fwd)

    def reference(inputs, diff_dst, dst):
        return bref.group_normalization_backward(inputs[dnnl.ARG_SRC], diff_dst, groups, EPS,
                                                 inputs.get(dnnl.ARG_SCALE))
    return _normalization(make, shape, shape[1], flags, reference)


CASES: dict[str, Case] = {
    "max-pooling-padded": pooling("MAX", (1, 2, 5, 5), (3, 3), (2, 2), (1, 1), (1, 1)),
    "max-pooling-1d": pooling("MAX", (2, 1, 6), (2,), (1,), (0,), (1,)),
    "avg-pooling-include-padding": pooling("AVG_INCLUDE_PADDING", (1, 2, 4, 5), (3, 2), (1, 2), (1, 0), (1, 1)),
    "avg-pooling-exclude-padding": pooling("AVG_EXCLUDE_PADDING", (1, 2, 4, 5), (3, 2), (1, 2), (1, 0), (1, 1)),
    "lrn-across-channels": lrn("ACROSS_CHANNELS", (2, 5, 3, 3), 5),
    "lrn-within-channel": lrn("WITHIN_CHANNEL", (1, 2, 4, 4), 3),
    "batch-normalization": batch_normalization(NormalizationFlags.NONE),
    "batch-normalization-scale-shift": batch_normalization(SCALE_SHIFT),
    "batch-normalization-global-stats": batch_normalization(NormalizationFlags.USE_GLOBAL_STATS | SCALE_SHIFT),
    "batch-normalization-fused-relu": batch_normalization(NormalizationFlags.FUSE_NORM_RELU | SCALE_SHIFT),
    "layer-normalization": layer_normalization(NormalizationFlags.NONE),
    "layer-normalization-scale-shift": layer_normalization(SCALE_SHIFT),
    "group-normalization-scale-shift": group_normalization(SCALE_SHIFT),
}


def check(found: dict[int, np.ndarray], expected: dict[int, np.ndarray], tolerance: float = 1e-3) -> None:
    """Every gradient written (no NaN left) and within ``tolerance`` of the reference's largest."""
    assert set(found) == set(expected)
    for arg, values in expected.items():
        assert not np.isnan(found[arg]).any(), f"args[{arg}]: the primitive left some of it unwritten"
        error = relative_error(found[arg], values)
        assert error <= tolerance, f"args[{arg}]: relative error {error:.3g} > {tolerance}"

