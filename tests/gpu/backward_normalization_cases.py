"""Forward training then backward passes of pooling, LRN and the normalizations, with
their numpy references, for the GPU test modules of both runtimes.

Every memory is one oneDNN allocates on the engine, filled and read through
``memory.mapped()`` (outputs start as NaN); a workspace is the one
``workspace_memory`` allocates for the forward descriptor. The references are
the CPU tests' own (``backward_normalizations_reference``), each confirmed
there by finite differences. Every case takes the seed of its inputs; the
strategies of drawn cases are the CPU tests' where they have one.

On the emulated GPU every distinct primitive is an OpenCL kernel build (a
fraction of a second for pooling and layer normalization, about a second for
LRN and batch normalization), and values are free. So the fixed cases take
drawn values, and a few examples draw shapes. Batch normalization's kernels
are built for a batch size, a number of dimensions and a flag set (a channel
count of 1 too), not for the channels or the spatial sizes: its drawn shapes
keep a batch of 3 and four dimensions, and draw the rest, so that they reuse
the fixed cases' kernels.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import strategies as st

import backward_normalizations_reference as bref  # tests/ is on the path, as for primitive_cases
import dnnl_interop as dnnl
import onednn_reference as ref
from dnnl_interop import AlgKind, NormalizationFlags, PropKind
from dnnl_interop._target import TARGET_ONEDNN
from dnnl_interop.primitives import _spatial as pooling_kinds
from gradients import relative_error
from test_backward_normalizations import BATCH_FLAGS, pooling_cases  # the CPU tests' strategy and flag sets

from .primitive_cases import plain

__all__ = ["BATCH_NORMALIZATIONS", "CASES", "DRAWN_POOLINGS", "GLOBAL_POOLINGS_WITH_LEFT_PADDING",
           "LAYER_NORMALIZATIONS", "LRNS", "SCALE_SHIFT", "SEEDS", "TRAINING", "batch_normalization", "check",
           "check_global_pooling_bug", "distinct", "global_with_left_padding", "layer_normalization", "lrn", "plain",
           "pooling", "pooling_descs", "run"]

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


# A case: (engine, stream, seed of its inputs) -> ({ARG_*: oneDNN's gradient}, {ARG_*: the reference's}).
Case = Callable[[dnnl.Engine, dnnl.Stream, int], tuple[dict[int, np.ndarray], dict[int, np.ndarray]]]


def pooling_descs(engine, algorithm, shape, kernel, strides, padding_l, padding_r):
    n = len(kernel)
    out = [ref.output_size(shape[2 + i], kernel[i], strides[i], 0, padding_l[i], padding_r[i]) for i in range(n)]
    src, dst = plain(shape), plain((*shape[:2], *out))
    alg = AlgKind[f"POOLING_{algorithm}"]
    fwd = dnnl.PoolingForwardDesc(engine, alg, src, dst, strides, kernel, padding_l, padding_r, prop_kind=TRAINING)
    return fwd, dnnl.PoolingBackwardDesc(engine, alg, src, dst, strides, kernel, padding_l, padding_r, fwd)


def pooling(algorithm, shape, kernel, strides, padding_l, padding_r) -> Case:
    def case(engine, stream, seed=1):
        fwd, bwd = pooling_descs(engine, algorithm, shape, kernel, strides, padding_l, padding_r)
        rng = np.random.default_rng(seed)
        x = distinct(rng, shape)
        diff_dst = rng.uniform(-1, 1, bwd.diff_dst_desc().shape)
        workspace = dnnl.workspace_memory(fwd) if fwd.workspace_desc() is not None else None
        run(engine, stream, fwd, {dnnl.ARG_SRC: x}, workspace)
        found = run(engine, stream, bwd, {dnnl.ARG_DIFF_DST: diff_dst}, workspace)
        return found, {dnnl.ARG_DIFF_SRC: bref.pooling_backward(x, diff_dst, algorithm, strides, kernel, padding_l,
                                                                padding_r)}
    return case


def lrn(algorithm, shape, size) -> Case:
    def case(engine, stream, seed=2):
        alg, src = AlgKind[f"LRN_{algorithm}"], plain(shape)
        fwd = dnnl.LRNForwardDesc(engine, alg, src, src, size, ALPHA, BETA, K, prop_kind=TRAINING)
        bwd = dnnl.LRNBackwardDesc(engine, alg, src, src, src, size, ALPHA, BETA, K, fwd)
        rng = np.random.default_rng(seed)
        x, diff_dst = rng.uniform(-2, 2, shape), rng.uniform(-1, 1, shape)
        workspace = dnnl.workspace_memory(fwd) if fwd.workspace_desc() is not None else None
        run(engine, stream, fwd, {dnnl.ARG_SRC: x}, workspace)
        found = run(engine, stream, bwd, {dnnl.ARG_SRC: x, dnnl.ARG_DIFF_DST: diff_dst}, workspace)
        return found, {dnnl.ARG_DIFF_SRC: bref.lrn_backward(x, diff_dst, algorithm, size, ALPHA, BETA, K)}
    return case


def _normalization(make, shape, channels, flags, reference) -> Case:
    """``make(engine, src_desc, flags)``: (forward, backward) descriptors; ``reference(inputs,
    diff_dst)``: (diff_src, diff_scale, diff_shift)."""
    def case(engine, stream, seed=3):
        fwd, bwd = make(engine, plain(shape), flags)
        rng = np.random.default_rng(seed)
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


SEEDS = st.integers(0, 2**16)


def global_with_left_padding(case) -> bool:
    """A pooling (algorithm, shape, kernel, strides, padding_l, padding_r) with one output, padded on
    the left: oneDNN 3.13 runs its backward on ``ocl:xe_global``, which ignores the left padding and
    pools the whole source (max pooling sends the gradient to the whole source's maximum, not the
    window's; average pooling divides by another count), and the binding refuses it."""
    _, shape, kernel, strides, padding_l, padding_r = case
    outputs = [ref.output_size(size, k, s, 0, left, right)
               for size, k, s, left, right in zip(shape[2:], kernel, strides, padding_l, padding_r, strict=True)]
    return set(outputs) == {1} and any(padding_l)


# The known bug's shapes (strict xfails), and the CPU tests' pooling strategy without them.
GLOBAL_POOLINGS_WITH_LEFT_PADDING = {
    "max-1d": ("MAX", (1, 1, 2), (2,), (2,), (1,), (0,)),
    "max-2d": ("MAX", (1, 2, 2, 2), (2, 2), (2, 2), (1, 0), (0, 0)),
    "avg-exclude-padding-1d": ("AVG_EXCLUDE_PADDING", (1, 1, 2), (2,), (2,), (1,), (0,)),
}
DRAWN_POOLINGS = pooling_cases().filter(lambda case: not global_with_left_padding(case))


def check_global_pooling_bug(engine, stream, request, monkeypatch, name: str) -> None:
    """The case ``name`` of ``GLOBAL_POOLINGS_WITH_LEFT_PADDING``: refused by the binding with the
    reason, then made with the refusal switched off and checked under a strict xfail (``request``:
    the test's), which fails the day ``ocl:xe_global`` follows the padding."""
    case = GLOBAL_POOLINGS_WITH_LEFT_PADDING[name]
    assert global_with_left_padding(case)
    with pytest.raises(dnnl.UnimplementedError) as refused:
        pooling_descs(engine, *case)
    assert refused.value.reason.startswith(f"padding_l: {tuple(case[4])} pads the source of a pooling with one output")
    assert "(ocl:xe_global" in refused.value.reason and "CPU engine" in refused.value.reason
    monkeypatch.setattr(pooling_kinds, "_refuse_global_backward_with_left_padding", lambda desc, padding_l: None)
    _, bwd = pooling_descs(engine, *case)
    assert bwd.impl_info.startswith("ocl:xe_global")
    request.applymarker(pytest.mark.xfail(strict=True, raises=AssertionError, reason=(
        f"oneDNN {TARGET_ONEDNN} {bwd.impl_info!r} ignores padding_l {case[4]} of {case[0]} pooling of "
        f"src {case[1]} by kernel {case[2]}")))
    check(*pooling(*case)(engine, stream, 5))


# The CPU tests' LRNs (test_lrn_backward_matches_the_reference): algorithm, shape, size.
LRNS = st.tuples(st.sampled_from(["ACROSS_CHANNELS", "WITHIN_CHANNEL"]),
                 st.tuples(st.integers(1, 2), st.integers(1, 6), st.integers(1, 4), st.integers(1, 4)),
                 st.sampled_from([1, 3, 5]))
# Flags (the CPU tests' sets) and shapes of the fixed cases' kernels: a batch of 3, four dimensions, more
# than one channel and more than one spatial element (one builds kernels of its own).
BATCH_NORMALIZATIONS = st.tuples(st.sampled_from(list(BATCH_FLAGS.values())),
                                 st.tuples(st.just(3), st.integers(2, 6), st.integers(1, 3), st.integers(2, 3)))
# The CPU tests' layer normalizations (test_layer_normalization_backward_matches_the_reference).
LAYER_NORMALIZATIONS = st.tuples(st.sampled_from([NormalizationFlags.NONE, SCALE_SHIFT]),
                                 st.tuples(st.integers(1, 3), st.integers(1, 3), st.integers(2, 6)))


def check(found: dict[int, np.ndarray], expected: dict[int, np.ndarray], tolerance: float = 1e-3) -> None:
    """Every gradient written (no NaN left) and within ``tolerance`` of the reference's largest."""
    assert set(found) == set(expected)
    for arg, values in expected.items():
        assert not np.isnan(found[arg]).any(), f"args[{arg}]: the primitive left some of it unwritten"
        error = relative_error(found[arg], values)
        assert error <= tolerance, f"args[{arg}]: relative error {error:.3g} > {tolerance}"

