"""The backward passes of pooling, LRN and batch, layer and group normalization on the
real CPU engine, and the workspaces a forward training execution hands its backward one.

What must hold:

* each numpy reference (``backward_normalizations_reference``) is the gradient: finite
  differences of the numpy forward agree (``gradients``), away from ties of max pooling
  and the kink of a fused ReLU;
* oneDNN's backward pass, run after its forward training pass with the workspace
  ``workspace_memory`` allocated, gives the reference: examples (max and average
  pooling with padding, LRN across and within channels, batch normalization with and
  without scale and shift, with global statistics, with a fused ReLU; layer and group
  normalization), then hypothesis properties over small random shapes;
* a workspace missing at the forward or backward execute, one of another descriptor
  (max pooling's is u8 or s32 by the kernel's size) and one allocated for another
  forward whose workspace has the same descriptor are refused before oneDNN runs, each
  message naming the forward descriptors and the fix; a normalization's flags must be
  its forward's (oneDNN takes others and computes the gradient of another function);
* a forward descriptor in use as a backward one's hint keeps its implementation:
  ``next_impl`` is refused until what was made with it closes.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import backward_normalizations_reference as bref
import dnnl_interop as dnnl
import onednn_reference as ref
from dnnl_interop import AlgKind, NormalizationFlags, PropKind
from gradients import assert_is_gradient, relative_error

TRAINING = PropKind.FORWARD_TRAINING
EXAMPLES = settings.default.max_examples
TAGS = {2: "ab", 3: "abc", 4: "abcd", 5: "abcde"}


def plain(shape) -> dnnl.MemoryDesc:
    return dnnl.MemoryDesc(tuple(shape), "f32", TAGS[len(shape)])


def run(engine, stream, pd, inputs, workspace=None):
    """Execute ``pd``'s primitive: ``inputs`` ({ARG_*: array}) in f32, every other argument
    ``pd`` describes an output (NaN at first) returned as an array; ``workspace`` its ARG_WORKSPACE."""
    memories, outputs = {}, {}
    for arg in pd.arg_sizes:
        if arg == dnnl.ARG_WORKSPACE:
            memories[arg] = workspace
            continue
        desc = pd.arg_desc(arg)
        if arg in inputs:
            array = np.ascontiguousarray(np.reshape(inputs[arg], desc.shape), np.float32)
        else:
            array = outputs[arg] = np.full(desc.shape, np.nan, np.float32)
        memories[arg] = dnnl.Memory(desc, engine, array)
    dnnl.Primitive(pd).execute(stream, memories)
    stream.wait()
    return outputs


def distinct(rng, shape) -> np.ndarray:
    """Values 0.25 apart (no ties: max pooling has a gradient), centred on 0."""
    count = int(np.prod(shape))
    return (rng.permutation(count).reshape(shape) - count / 2) * 0.25


def close(found, expected, tolerance=1e-4):
    error = relative_error(found, expected)
    assert error <= tolerance, f"relative error {error:.3g} > {tolerance}"


# --- pooling ---------------------------------------------------------------------------------

POOLINGS = [  # (algorithm, src shape, kernel, strides, padding_l, padding_r)
    ("MAX", (1, 2, 5, 5), (3, 3), (2, 2), (1, 1), (1, 1)),
    ("MAX", (2, 1, 6), (2,), (1,), (0,), (1,)),
    ("AVG_INCLUDE_PADDING", (1, 2, 4, 5), (3, 2), (1, 2), (1, 0), (1, 1)),
    ("AVG_EXCLUDE_PADDING", (1, 2, 4, 5), (3, 2), (1, 2), (1, 0), (1, 1)),
]


def pooling_descs(engine, algorithm, shape, kernel, strides, padding_l, padding_r):
    n = len(kernel)
    out = [ref.output_size(shape[2 + i], kernel[i], strides[i], 0, padding_l[i], padding_r[i]) for i in range(n)]
    src, dst = plain(shape), plain((*shape[:2], *out))
    alg = AlgKind[f"POOLING_{algorithm}"]
    fwd = dnnl.PoolingForwardDesc(engine, alg, src, dst, strides, kernel, padding_l, padding_r, prop_kind=TRAINING)
    bwd = dnnl.PoolingBackwardDesc(engine, alg, src, dst, strides, kernel, padding_l, padding_r, fwd)
    return fwd, bwd


def pooling_round_trip(engine, stream, case, x, diff_dst):
    fwd, bwd = pooling_descs(engine, *case)
    workspace = dnnl.workspace_memory(fwd) if fwd.workspace_desc() is not None else None
    dst = run(engine, stream, fwd, {dnnl.ARG_SRC: x}, workspace)[dnnl.ARG_DST]
    diff_src = run(engine, stream, bwd, {dnnl.ARG_DIFF_DST: diff_dst}, workspace)[dnnl.ARG_DIFF_SRC]
    return dst, diff_src


@pytest.mark.parametrize("case", POOLINGS, ids=lambda c: f"{c[0]}-{len(c[2])}d")
def test_pooling_reference_is_the_gradient(case):
    algorithm, shape, kernel, strides, left, right = case
    rng = np.random.default_rng(1)
    x = distinct(rng, shape)
    forward = lambda v: ref.pooling(v, algorithm, strides, kernel, [0] * len(kernel), left, right)  # noqa: E731
    diff_dst = rng.uniform(-1, 1, forward(x).shape)
    assert_is_gradient(bref.pooling_backward(x, diff_dst, algorithm, strides, kernel, left, right),
                       forward, x, diff_dst)


@pytest.mark.parametrize("case", POOLINGS, ids=lambda c: f"{c[0]}-{len(c[2])}d")
def test_pooling_backward_after_forward_training_gives_the_reference(engine, stream, case):
    algorithm, shape, kernel, strides, left, right = case
    rng = np.random.default_rng(2)
    x = distinct(rng, shape)
    expected_dst = ref.pooling(x, algorithm, strides, kernel, [0] * len(kernel), left, right)
    diff_dst = rng.uniform(-1, 1, expected_dst.shape)
    dst, diff_src = pooling_round_trip(engine, stream, case, x, diff_dst)
    close(dst, expected_dst)
    close(diff_src, bref.pooling_backward(x, diff_dst, algorithm, strides, kernel, left, right))


@st.composite
def pooling_cases(draw):
    algorithm = draw(st.sampled_from(["MAX", "AVG_INCLUDE_PADDING", "AVG_EXCLUDE_PADDING"]))
    n = draw(st.integers(1, 2))
    kernel = tuple(draw(st.integers(1, 3)) for _ in range(n))
    strides = tuple(draw(st.integers(1, 2)) for _ in range(n))
    left = tuple(draw(st.integers(0, k - 1)) for k in kernel)
    right = tuple(draw(st.integers(0, k - 1)) for k in kernel)
    spatial = tuple(draw(st.integers(k, k + 3)) for k in kernel)
    shape = (draw(st.integers(1, 2)), draw(st.integers(1, 3)), *spatial)
    return algorithm, shape, kernel, strides, left, right


@settings(max_examples=max(5, EXAMPLES // 2))
@given(case=pooling_cases(), seed=st.integers(0, 2**16))
def test_pooling_backward_matches_the_reference(engine, stream, case, seed):
    algorithm, shape, kernel, strides, left, right = case
    rng = np.random.default_rng(seed)
    x = distinct(rng, shape)
    expected_dst = ref.pooling(x, algorithm, strides, kernel, [0] * len(kernel), left, right)
    diff_dst = rng.uniform(-1, 1, expected_dst.shape)
    _, diff_src = pooling_round_trip(engine, stream, case, x, diff_dst)
    close(diff_src, bref.pooling_backward(x, diff_dst, algorithm, strides, kernel, left, right))


# --- LRN ----------------------------------------------------------------------------------------

LRNS = [("ACROSS_CHANNELS", (2, 5, 3, 3), 3), ("ACROSS_CHANNELS", (1, 7, 2, 2), 5), ("WITHIN_CHANNEL", (1, 2, 4, 4), 3)]
ALPHA, BETA, K = 0.1, 0.75, 2.0


def lrn_round_trip(engine, stream, algorithm, shape, size, x, diff_dst):
    alg, src = AlgKind[f"LRN_{algorithm}"], plain(shape)
    fwd = dnnl.LRNForwardDesc(engine, alg, src, src, size, ALPHA, BETA, K, prop_kind=TRAINING)
    bwd = dnnl.LRNBackwardDesc(engine, alg, src, src, src, size, ALPHA, BETA, K, fwd)
    workspace = dnnl.workspace_memory(fwd) if fwd.workspace_desc() is not None else None
    dst = run(engine, stream, fwd, {dnnl.ARG_SRC: x}, workspace)[dnnl.ARG_DST]
    diff_src = run(engine, stream, bwd, {dnnl.ARG_SRC: x, dnnl.ARG_DIFF_DST: diff_dst}, workspace)[dnnl.ARG_DIFF_SRC]
    return dst, diff_src


@pytest.mark.parametrize(("algorithm", "shape", "size"), LRNS)
def test_lrn_reference_is_the_gradient(algorithm, shape, size):
    rng = np.random.default_rng(3)
    x, diff_dst = rng.uniform(-2, 2, shape), rng.uniform(-1, 1, shape)
    assert_is_gradient(bref.lrn_backward(x, diff_dst, algorithm, size, ALPHA, BETA, K),
                       lambda v: ref.lrn(v, algorithm, size, ALPHA, BETA, K), x, diff_dst)


@pytest.mark.parametrize(("algorithm", "shape", "size"), LRNS)
def test_lrn_backward_after_forward_training_gives_the_reference(engine, stream, algorithm, shape, size):
    rng = np.random.default_rng(4)
    x, diff_dst = rng.uniform(-2, 2, shape), rng.uniform(-1, 1, shape)
    dst, diff_src = lrn_round_trip(engine, stream, algorithm, shape, size, x, diff_dst)
    close(dst, ref.lrn(x, algorithm, size, ALPHA, BETA, K))
    close(diff_src, bref.lrn_backward(x, diff_dst, algorithm, size, ALPHA, BETA, K))


@settings(max_examples=max(5, EXAMPLES // 2))
@given(algorithm=st.sampled_from(["ACROSS_CHANNELS", "WITHIN_CHANNEL"]), size=st.sampled_from([1, 3, 5]),
       shape=st.tuples(st.integers(1, 2), st.integers(1, 6), st.integers(1, 4), st.integers(1, 4)),
       seed=st.integers(0, 2**16))
def test_lrn_backward_matches_the_reference(engine, stream, algorithm, size, shape, seed):
    rng = np.random.default_rng(seed)
    x, diff_dst = rng.uniform(-2, 2, shape), rng.uniform(-1, 1, shape)
    _, diff_src = lrn_round_trip(engine, stream, algorithm, shape, size, x, diff_dst)
    close(diff_src, bref.lrn_backward(x, diff_dst, algorithm, size, ALPHA, BETA, K))


# --- batch normalization -----------------------------------------------------------------------

EPS = 1e-3
SCALE_SHIFT = NormalizationFlags.USE_SCALE | NormalizationFlags.USE_SHIFT
BATCH_FLAGS = {
    "none": NormalizationFlags.NONE,
    "scale-shift": SCALE_SHIFT,
    "global-stats": NormalizationFlags.USE_GLOBAL_STATS | SCALE_SHIFT,
    "fused-relu": NormalizationFlags.FUSE_NORM_RELU | SCALE_SHIFT,
}


def batch_inputs(rng, shape, flags):
    """src, diff_dst and the inputs of the forward: scale, shift, and with global statistics
    the mean and variance; with a fused ReLU, drawn until no output lies near the kink."""
    channels = shape[1]
    while True:
        inputs = {dnnl.ARG_SRC: rng.uniform(-2, 2, shape)}
        if flags & NormalizationFlags.USE_SCALE:
            inputs[dnnl.ARG_SCALE] = rng.uniform(0.5, 2, channels)
        if flags & NormalizationFlags.USE_SHIFT:
            inputs[dnnl.ARG_SHIFT] = rng.uniform(-1, 1, channels)
        if flags & NormalizationFlags.USE_GLOBAL_STATS:
            inputs[dnnl.ARG_MEAN] = rng.uniform(-1, 1, channels)
            inputs[dnnl.ARG_VARIANCE] = rng.uniform(0.5, 2, channels)
        linear = flags & ~NormalizationFlags.FUSE_NORM_RELU
        if linear == flags or np.min(np.abs(batch_forward(inputs, linear))) > 1e-2:
            return inputs, rng.uniform(-1, 1, shape)


def batch_forward(inputs, flags, src=None, scale=None, shift=None):
    return bref.batch_normalization(
        inputs[dnnl.ARG_SRC] if src is None else src, EPS,
        inputs.get(dnnl.ARG_SCALE) if scale is None else scale,
        inputs.get(dnnl.ARG_SHIFT) if shift is None else shift,
        inputs.get(dnnl.ARG_MEAN), inputs.get(dnnl.ARG_VARIANCE), bool(flags & NormalizationFlags.FUSE_NORM_RELU))


def batch_reference(inputs, diff_dst, flags):
    relu = batch_forward(inputs, flags) if flags & NormalizationFlags.FUSE_NORM_RELU else None
    return bref.batch_normalization_backward(
        inputs[dnnl.ARG_SRC], diff_dst, EPS, inputs.get(dnnl.ARG_SCALE),
        bool(flags & NormalizationFlags.USE_GLOBAL_STATS), inputs.get(dnnl.ARG_MEAN),
        inputs.get(dnnl.ARG_VARIANCE), relu)


@pytest.mark.parametrize("name", BATCH_FLAGS)
def test_batch_normalization_reference_is_the_gradient(name):
    flags = BATCH_FLAGS[name]
    inputs, diff_dst = batch_inputs(np.random.default_rng(5), (3, 2, 2, 2), flags)
    diff_src, diff_scale, diff_shift = batch_reference(inputs, diff_dst, flags)
    assert_is_gradient(diff_src, lambda v: batch_forward(inputs, flags, src=v), inputs[dnnl.ARG_SRC], diff_dst)
    if flags & NormalizationFlags.USE_SCALE:
        assert_is_gradient(diff_scale, lambda v: batch_forward(inputs, flags, scale=v), inputs[dnnl.ARG_SCALE],
                           diff_dst)
        assert_is_gradient(diff_shift, lambda v: batch_forward(inputs, flags, shift=v), inputs[dnnl.ARG_SHIFT],
                           diff_dst)


def batch_round_trip(engine, stream, shape, flags, inputs, diff_dst, prop_kind=PropKind.BACKWARD):
    src = plain(shape)
    fwd = dnnl.BatchNormalizationForwardDesc(engine, src, src, EPS, flags, prop_kind=TRAINING)
    bwd = dnnl.BatchNormalizationBackwardDesc(engine, src, src, src, EPS, flags, fwd, prop_kind=prop_kind)
    workspace = dnnl.workspace_memory(fwd) if flags & NormalizationFlags.FUSE_NORM_RELU else None
    forward = run(engine, stream, fwd, inputs, workspace)
    statistics = {arg: forward.get(arg, inputs.get(arg)) for arg in (dnnl.ARG_MEAN, dnnl.ARG_VARIANCE)}
    backward = run(engine, stream, bwd, {**inputs, **statistics, dnnl.ARG_DIFF_DST: diff_dst}, workspace)
    return forward[dnnl.ARG_DST], backward


@pytest.mark.parametrize("name", BATCH_FLAGS)
def test_batch_normalization_backward_after_forward_training_gives_the_reference(engine, stream, name):
    flags, shape = BATCH_FLAGS[name], (3, 4, 2, 3)
    inputs, diff_dst = batch_inputs(np.random.default_rng(6), shape, flags)
    dst, backward = batch_round_trip(engine, stream, shape, flags, inputs, diff_dst)
    close(dst, batch_forward(inputs, flags))
    diff_src, diff_scale, diff_shift = batch_reference(inputs, diff_dst, flags)
    close(backward[dnnl.ARG_DIFF_SRC], diff_src)
    if flags & NormalizationFlags.USE_SCALE:
        close(backward[dnnl.ARG_DIFF_SCALE], diff_scale)
        close(backward[dnnl.ARG_DIFF_SHIFT], diff_shift)


def test_batch_normalization_backward_data_gives_diff_src(engine, stream):
    shape = (2, 3, 2, 2)
    inputs, diff_dst = batch_inputs(np.random.default_rng(7), shape, SCALE_SHIFT)
    _, backward = batch_round_trip(engine, stream, shape, SCALE_SHIFT, inputs, diff_dst, PropKind.BACKWARD_DATA)
    close(backward[dnnl.ARG_DIFF_SRC], batch_reference(inputs, diff_dst, SCALE_SHIFT)[0])


@settings(max_examples=max(5, EXAMPLES // 2))
@given(name=st.sampled_from(sorted(BATCH_FLAGS)),
       shape=st.tuples(st.integers(1, 3), st.integers(1, 5), st.integers(1, 3), st.integers(2, 3)),
       seed=st.integers(0, 2**16))
def test_batch_normalization_backward_matches_the_reference(engine, stream, name, shape, seed):
    flags = BATCH_FLAGS[name]
    inputs, diff_dst = batch_inputs(np.random.default_rng(seed), shape, flags)
    _, backward = batch_round_trip(engine, stream, shape, flags, inputs, diff_dst)
    diff_src, diff_scale, diff_shift = batch_reference(inputs, diff_dst, flags)
    close(backward[dnnl.ARG_DIFF_SRC], diff_src, 1e-3)
    if flags & NormalizationFlags.USE_SCALE:
        close(backward[dnnl.ARG_DIFF_SCALE], diff_scale, 1e-3)
        close(backward[dnnl.ARG_DIFF_SHIFT], diff_shift, 1e-3)


# --- layer and group normalization ----------------------------------------------------------------


def layer_round_trip(engine, stream, shape, flags, inputs, diff_dst):
    src = plain(shape)
    fwd = dnnl.LayerNormalizationForwardDesc(engine, src, src, EPS, flags, prop_kind=TRAINING)
    bwd = dnnl.LayerNormalizationBackwardDesc(engine, src, src, src, EPS, flags, fwd)
    forward = run(engine, stream, fwd, inputs)
    statistics = {arg: forward[arg] for arg in (dnnl.ARG_MEAN, dnnl.ARG_VARIANCE)}
    return run(engine, stream, bwd, {**inputs, **statistics, dnnl.ARG_DIFF_DST: diff_dst})


def group_round_trip(engine, stream, shape, groups, flags, inputs, diff_dst):
    src = plain(shape)
    fwd = dnnl.GroupNormalizationForwardDesc(engine, src, src, groups, EPS, flags, prop_kind=TRAINING)
    bwd = dnnl.GroupNormalizationBackwardDesc(engine, src, src, src, groups, EPS, flags, fwd)
    forward = run(engine, stream, fwd, inputs)
    statistics = {arg: forward[arg] for arg in (dnnl.ARG_MEAN, dnnl.ARG_VARIANCE)}
    return run(engine, stream, bwd, {**inputs, **statistics, dnnl.ARG_DIFF_DST: diff_dst})


def affine(rng, channels):
    return {dnnl.ARG_SCALE: rng.uniform(0.5, 2, channels), dnnl.ARG_SHIFT: rng.uniform(-1, 1, channels)}


def test_layer_normalization_reference_is_the_gradient():
    rng = np.random.default_rng(8)
    x, diff_dst, params = rng.uniform(-2, 2, (2, 3, 4)), rng.uniform(-1, 1, (2, 3, 4)), affine(rng, 4)
    scale, shift = params[dnnl.ARG_SCALE], params[dnnl.ARG_SHIFT]
    diff_src, diff_scale, diff_shift = bref.layer_normalization_backward(x, diff_dst, EPS, scale)
    assert_is_gradient(diff_src, lambda v: bref.layer_normalization(v, EPS, scale, shift), x, diff_dst)
    assert_is_gradient(diff_scale, lambda v: bref.layer_normalization(x, EPS, v, shift), scale, diff_dst)
    assert_is_gradient(diff_shift, lambda v: bref.layer_normalization(x, EPS, scale, v), shift, diff_dst)


def test_group_normalization_reference_is_the_gradient():
    rng = np.random.default_rng(9)
    shape = (2, 4, 3)
    x, diff_dst, params = rng.uniform(-2, 2, shape), rng.uniform(-1, 1, shape), affine(rng, 4)
    scale, shift = params[dnnl.ARG_SCALE], params[dnnl.ARG_SHIFT]
    diff_src, diff_scale, diff_shift = bref.group_normalization_backward(x, diff_dst, 2, EPS, scale)
    assert_is_gradient(diff_src, lambda v: bref.group_normalization(v, 2, EPS, scale, shift), x, diff_dst)
    assert_is_gradient(diff_scale, lambda v: bref.group_normalization(x, 2, EPS, v, shift), scale, diff_dst)
    assert_is_gradient(diff_shift, lambda v: bref.group_normalization(x, 2, EPS, scale, v), shift, diff_dst)


@settings(max_examples=max(5, EXAMPLES // 2))
@given(shape=st.tuples(st.integers(1, 3), st.integers(1, 3), st.integers(2, 6)), with_scale=st.booleans(),
       seed=st.integers(0, 2**16))
def test_layer_normalization_backward_matches_the_reference(engine, stream, shape, with_scale, seed):
    rng = np.random.default_rng(seed)
    x, diff_dst = rng.uniform(-2, 2, shape), rng.uniform(-1, 1, shape)
    params = affine(rng, shape[-1]) if with_scale else {}
    flags = SCALE_SHIFT if with_scale else NormalizationFlags.NONE
    backward = layer_round_trip(engine, stream, shape, flags, {dnnl.ARG_SRC: x, **params}, diff_dst)
    diff_src, diff_scale, diff_shift = bref.layer_normalization_backward(x, diff_dst, EPS,
                                                                         params.get(dnnl.ARG_SCALE))
    close(backward[dnnl.ARG_DIFF_SRC], diff_src, 1e-3)
    if with_scale:
        close(backward[dnnl.ARG_DIFF_SCALE], diff_scale, 1e-3)
        close(backward[dnnl.ARG_DIFF_SHIFT], diff_shift, 1e-3)


@settings(max_examples=max(5, EXAMPLES // 2))
@given(n=st.integers(1, 2), groups=st.integers(1, 3), per_group=st.integers(1, 3), spatial=st.integers(1, 4),
       with_scale=st.booleans(), seed=st.integers(0, 2**16))
def test_group_normalization_backward_matches_the_reference(engine, stream, n, groups, per_group, spatial,
                                                            with_scale, seed):
    shape = (n, groups * per_group, spatial)
    rng = np.random.default_rng(seed)
    x, diff_dst = rng.uniform(-2, 2, shape), rng.uniform(-1, 1, shape)
    params = affine(rng, shape[1]) if with_scale else {}
    flags = SCALE_SHIFT if with_scale else NormalizationFlags.NONE
    backward = group_round_trip(engine, stream, shape, groups, flags, {dnnl.ARG_SRC: x, **params}, diff_dst)
    diff_src, diff_scale, diff_shift = bref.group_normalization_backward(x, diff_dst, groups, EPS,
                                                                         params.get(dnnl.ARG_SCALE))
    close(backward[dnnl.ARG_DIFF_SRC], diff_src, 1e-3)
    if with_scale:
        close(backward[dnnl.ARG_DIFF_SCALE], diff_scale, 1e-3)
        close(backward[dnnl.ARG_DIFF_SHIFT], diff_shift, 1e-3)


# --- workspaces --------------------------------------------------------------------------------------


def max_pooling(engine, shape, kernel):
    """Max pooling descriptors for training over ``shape``, a square ``kernel`` with its own stride."""
    return pooling_descs(engine, "MAX", shape, (kernel, kernel), (kernel, kernel), (0, 0), (0, 0))


def test_a_training_round_trip_with_the_workspace_the_binding_allocates(engine, stream):
    fwd, bwd = max_pooling(engine, (1, 2, 4, 4), 2)
    workspace = dnnl.workspace_memory(fwd)
    assert workspace.desc == fwd.workspace_desc() == bwd.workspace_desc()
    rng = np.random.default_rng(10)
    x, diff_dst = distinct(rng, (1, 2, 4, 4)), rng.uniform(-1, 1, (1, 2, 2, 2))
    src, dst = dnnl.Memory.from_array(np.float32(x), engine), dnnl.Memory(fwd.dst_desc(), engine)
    gradient, diff_src = dnnl.Memory.from_array(np.float32(diff_dst), engine), dnnl.Memory(bwd.diff_src_desc(), engine)
    dnnl.Primitive(fwd).execute(stream, {dnnl.ARG_SRC: src, dnnl.ARG_DST: dst, dnnl.ARG_WORKSPACE: workspace})
    backward = dnnl.Primitive(bwd)
    with backward.bind(stream, {dnnl.ARG_DIFF_DST: gradient, dnnl.ARG_DIFF_SRC: diff_src,
                                dnnl.ARG_WORKSPACE: workspace}) as bound:
        bound.execute(wait=True)
    close(np.asarray(diff_src), bref.pooling_backward(x, diff_dst, "MAX", (2, 2), (2, 2), (0, 0), (0, 0)))


def test_a_plain_memory_of_the_workspace_descriptor_serves_as_in_cpp(engine, stream):
    case = POOLINGS[0]
    fwd, bwd = pooling_descs(engine, *case)
    workspace = dnnl.Memory(fwd.workspace_desc(), engine)  # memory(pd.workspace_desc(), engine) in C++
    rng = np.random.default_rng(11)
    x = distinct(rng, case[1])
    dst = run(engine, stream, fwd, {dnnl.ARG_SRC: x}, workspace)[dnnl.ARG_DST]
    diff_dst = rng.uniform(-1, 1, dst.shape)
    diff_src = run(engine, stream, bwd, {dnnl.ARG_DIFF_DST: diff_dst}, workspace)[dnnl.ARG_DIFF_SRC]
    close(diff_src, bref.pooling_backward(x, diff_dst, *case[0:1], *case[3:4], *case[2:3], *case[4:]))


def test_a_missing_workspace_is_refused_at_the_forward_and_the_backward_execute(engine, stream):
    fwd, bwd = max_pooling(engine, (1, 1, 4, 4), 2)
    with pytest.raises(dnnl.InvalidArgumentsError, match=r"ARG_WORKSPACE\): this forward training primitive "
                       r"writes a workspace .* allocate it with dnnl_interop.workspace_memory\(fwd_pd\)"):
        run(engine, stream, fwd, {dnnl.ARG_SRC: np.zeros((1, 1, 4, 4))})
    with pytest.raises(dnnl.InvalidArgumentsError, match=r"ARG_WORKSPACE\): this backward primitive reads the "
                       r"workspace .* its forward training execution wrote, and none is given"):
        run(engine, stream, bwd, {dnnl.ARG_DIFF_DST: np.zeros((1, 1, 2, 2))})


def test_a_workspace_of_another_data_type_is_refused_naming_its_forward(engine, stream):
    # Max pooling's workspace is u8 for small kernels, s32 for larger ones (oneDNN issue #1610):
    # read as the other, the gradients would be wrong without an error.
    small_fwd, small_bwd = max_pooling(engine, (1, 2, 4, 4), 2)
    large_fwd, _ = max_pooling(engine, (1, 2, 40, 40), 20)
    assert small_fwd.workspace_desc().data_type == dnnl.DataType.U8
    assert large_fwd.workspace_desc().data_type == dnnl.DataType.S32
    other = dnnl.workspace_memory(large_fwd)
    with pytest.raises(ValueError, match=r"ARG_WORKSPACE\): the workspace is MemoryDesc\(\(1, 2, 2, 2\), s32.*"
                       r"allocated for the forward pooling descriptor of src MemoryDesc\(\(1, 2, 40, 40\).*"
                       r"reads MemoryDesc\(\(1, 2, 2, 2\), u8"):
        run(engine, stream, small_bwd, {dnnl.ARG_DIFF_DST: np.zeros((1, 2, 2, 2))}, other)
    with pytest.raises(ValueError, match=r"this forward training primitive writes MemoryDesc\(\(1, 2, 2, 2\), u8"):
        run(engine, stream, small_fwd, {dnnl.ARG_SRC: np.zeros((1, 2, 4, 4))}, other)


def test_a_workspace_of_another_shape_from_a_plain_memory_is_refused(engine, stream):
    _, bwd = max_pooling(engine, (1, 2, 4, 4), 2)
    other_fwd, _ = max_pooling(engine, (1, 3, 4, 4), 2)
    with pytest.raises(ValueError, match=r"the workspace is MemoryDesc\(\(1, 3, 2, 2\), u8.*not allocated by "
                       r"dnnl_interop.workspace_memory.*made with hint_fwd_pd, the forward pooling descriptor of "
                       r"src MemoryDesc\(\(1, 2, 4, 4\)"):
        run(engine, stream, bwd, {dnnl.ARG_DIFF_DST: np.zeros((1, 2, 2, 2))},
            dnnl.Memory(other_fwd.workspace_desc(), engine))


def test_a_workspace_of_another_forward_with_the_same_descriptor_is_refused(engine, stream):
    # A 4x4 source pooled 2x2 and a 5x5 one pooled 3x3 with stride 2: the same u8 workspace
    # descriptor, positions in other windows.
    fwd, bwd = max_pooling(engine, (1, 2, 4, 4), 2)
    other_fwd, _ = pooling_descs(engine, "MAX", (1, 2, 5, 5), (3, 3), (2, 2), (0, 0), (0, 0))
    assert other_fwd.workspace_desc() == fwd.workspace_desc()
    other = dnnl.workspace_memory(other_fwd)
    message = (r"this workspace was allocated for the forward pooling descriptor of src MemoryDesc\(\(1, 2, 5, 5\)"
               r".*but this {} the forward pooling descriptor of src MemoryDesc\(\(1, 2, 4, 4\)")
    with pytest.raises(ValueError, match=message.format("backward primitive was made with hint_fwd_pd")):
        run(engine, stream, bwd, {dnnl.ARG_DIFF_DST: np.zeros((1, 2, 2, 2))}, other)
    with pytest.raises(ValueError, match=message.format("primitive is of")):
        run(engine, stream, fwd, {dnnl.ARG_SRC: np.zeros((1, 2, 4, 4))}, other)


def test_next_impl_of_a_hint_in_use_is_refused_until_its_backward_descriptor_and_primitive_close(engine):
    # oneDNN keeps a pointer to the hint's implementation, which next_impl frees: the
    # backward descriptor's own next_impl then read freed memory (a segfault, oneDNN 3.13).
    fwd, bwd = max_pooling(engine, (1, 16, 4, 4), 2)
    chosen = fwd.impl_info
    primitive = dnnl.Primitive(bwd)
    message = (r"desc: this descriptor is the hint_fwd_pd of {} backward descriptor\(s\) or primitive\(s\) still "
               r"open.*Call next_impl before making the backward descriptor")
    with pytest.raises(ValueError, match=message.format(2)):  # the descriptor and its primitive
        fwd.next_impl()
    while bwd.next_impl():  # over the hint's implementation, still there
        pass
    bwd.close()
    with pytest.raises(ValueError, match=message.format(1)):  # the primitive
        fwd.next_impl()
    assert fwd.impl_info == chosen
    primitive.close()
    assert fwd.next_impl() and fwd.impl_info != chosen  # nothing holds it any more


def test_an_equal_forward_descriptor_made_again_shares_the_workspace(engine, stream):
    fwd, _ = max_pooling(engine, (1, 2, 4, 4), 2)
    again, bwd = max_pooling(engine, (1, 2, 4, 4), 2)  # bwd's hint_fwd_pd is again, not fwd
    assert again is not fwd
    workspace = dnnl.workspace_memory(fwd)
    x = distinct(np.random.default_rng(12), (1, 2, 4, 4))
    run(engine, stream, fwd, {dnnl.ARG_SRC: x}, workspace)
    diff_src = run(engine, stream, bwd, {dnnl.ARG_DIFF_DST: np.ones((1, 2, 2, 2))}, workspace)[dnnl.ARG_DIFF_SRC]
    close(diff_src, bref.pooling_backward(x, np.ones((1, 2, 2, 2)), "MAX", (2, 2), (2, 2), (0, 0), (0, 0)))


def test_the_fused_relu_mask_of_batch_normalization_is_a_workspace(engine, stream):
    shape, flags = (2, 3, 2, 2), BATCH_FLAGS["fused-relu"]
    src = plain(shape)
    fwd = dnnl.BatchNormalizationForwardDesc(engine, src, src, EPS, flags, prop_kind=TRAINING)
    bwd = dnnl.BatchNormalizationBackwardDesc(engine, src, src, src, EPS, flags, fwd)
    assert fwd.workspace_desc() is not None and fwd.workspace_desc() == bwd.workspace_desc()
    inputs, diff_dst = batch_inputs(np.random.default_rng(13), shape, flags)
    forward = run(engine, stream, fwd, inputs, dnnl.workspace_memory(fwd))
    with pytest.raises(dnnl.InvalidArgumentsError, match="this backward primitive reads the workspace"):
        run(engine, stream, bwd, {**inputs, **forward, dnnl.ARG_DIFF_DST: diff_dst})


def test_workspace_memory_refuses_what_has_no_workspace(engine):
    src, dst = plain((1, 1, 4, 4)), plain((1, 1, 2, 2))
    args = (AlgKind.POOLING_MAX, src, dst, (2, 2), (2, 2), (0, 0), (0, 0))
    with pytest.raises(ValueError, match=r"fwd_pd: a descriptor made for PropKind.FORWARD_INFERENCE.*"
                       r"prop_kind=PropKind.FORWARD_TRAINING"):
        dnnl.workspace_memory(dnnl.PoolingForwardDesc(engine, *args))
    avg = (AlgKind.POOLING_AVG_INCLUDE_PADDING, *args[1:])
    with pytest.raises(ValueError, match=r"needs no workspace \(workspace_desc\(\) is None\): execute it"):
        dnnl.workspace_memory(dnnl.PoolingForwardDesc(engine, *avg, prop_kind=TRAINING))
    with pytest.raises(TypeError, match=r"fwd_pd: expected a dnnl_interop\.PrimitiveDesc, got MemoryDesc"):
        dnnl.workspace_memory(src)  # type: ignore[arg-type]
    closed = dnnl.PoolingForwardDesc(engine, *args, prop_kind=TRAINING)
    closed.close()
    with pytest.raises(dnnl.ClosedObjectError, match=r"^fwd_pd: this PoolingForwardDesc is closed"):
        dnnl.workspace_memory(closed)


# --- what the backward kinds refuse before oneDNN ---------------------------------------------------


@pytest.mark.parametrize(("forward", "backward"), [
    (NormalizationFlags.FUSE_NORM_RELU, NormalizationFlags.NONE),
    (NormalizationFlags.USE_GLOBAL_STATS, NormalizationFlags.NONE),
    (SCALE_SHIFT, NormalizationFlags.USE_SCALE),
])
def test_a_normalization_backward_takes_its_forwards_flags(engine, forward, backward):
    # oneDNN 3.13 makes all three and computes the gradient of another function (without the
    # ReLU's mask, of batch statistics where the forward used given ones).
    src = plain((2, 3, 2, 2))
    fwd = dnnl.BatchNormalizationForwardDesc(engine, src, src, EPS, forward, prop_kind=TRAINING)
    with pytest.raises(ValueError, match=r"flags: NormalizationFlags\..*, but hint_fwd_pd, the forward batch "
                       r"normalization, was made with .*give it the forward's flags"):
        dnnl.BatchNormalizationBackwardDesc(engine, src, src, src, EPS, backward, fwd)


def test_the_backward_kinds_refuse_a_forward_prop_kind_and_another_kinds_hint(engine):
    src = plain((2, 3, 4))
    fwd = dnnl.LayerNormalizationForwardDesc(engine, src, src, EPS, prop_kind=TRAINING)
    with pytest.raises(ValueError, match="prop_kind: FORWARD_TRAINING is not a backward propagation"):
        dnnl.LayerNormalizationBackwardDesc(engine, src, src, src, EPS, NormalizationFlags.NONE, fwd,
                                            prop_kind=TRAINING)
    with pytest.raises(TypeError, match=r"hint_fwd_pd: expected a dnnl_interop\.GroupNormalizationForwardDesc"):
        dnnl.GroupNormalizationBackwardDesc(engine, src, src, src, 1, EPS, NormalizationFlags.NONE, fwd)
    inference = dnnl.LRNForwardDesc(engine, AlgKind.LRN_ACROSS_CHANNELS, src, src, 3, ALPHA, BETA, K)
    with pytest.raises(ValueError, match=r"hint_fwd_pd: the forward lrn was made for PropKind\.FORWARD_INFERENCE"):
        dnnl.LRNBackwardDesc(engine, AlgKind.LRN_ACROSS_CHANNELS, src, src, src, 3, ALPHA, BETA, K, inference)


def test_a_pooling_backward_of_shapes_that_do_not_pool_names_them(engine):
    fwd, _ = max_pooling(engine, (1, 2, 4, 4), 2)
    with pytest.raises(dnnl.InvalidArgumentsError, match=r"diff_dst_desc: spatial dim 2 is 3, but diff_src_desc's"):
        dnnl.PoolingBackwardDesc(engine, AlgKind.POOLING_MAX, plain((1, 2, 4, 4)), plain((1, 2, 3, 2)), (2, 2),
                                 (2, 2), (0, 0), (0, 0), fwd)
