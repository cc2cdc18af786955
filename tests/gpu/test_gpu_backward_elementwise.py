"""The backward passes of eltwise, PReLU, shuffle and resampling on real oneDNN 3.13, emulated GPU (OpenCL).

What must hold:

* Each backward kind, made with its forward descriptor of training as the
  hint, gives the numpy reference's gradient (the CPU tests' own,
  ``backward_elementwise_reference``, each confirmed there by finite
  differences) over ``pyopencl.array.Array`` memories, for shapes, layouts
  (plain or "any") and values hypothesis draws with the CPU tests'
  strategies: eltwise algorithms with a kink, a domain, tanh, and two
  ``_USE_DST_FOR_BWD`` ones reading the forward's dst computed here (the CPU
  tests draw every algorithm; here each is a kernel build of a second or
  more, and shapes are free), PReLU with broadcast weights (diff_weights
  too), shuffle, nearest and linear resampling. Outputs start as NaN.
* "format any" diff descriptors are answered here too, with plain layouts.
* Softmax: neither the forward (of training, the hint) nor the backward has an
  implementation on this device (the backward creator given no hint, as C
  allows, says so too); ``SoftmaxForwardDesc`` says it clearly, so a
  ``SoftmaxBackwardDesc`` is never reached.
"""

from __future__ import annotations

import numpy as np
import pyopencl as cl
import pyopencl.array as cl_array
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import backward_elementwise_reference as bref  # tests/ is on the path, as for primitive_cases
import dnnl_interop as dnnl
import onednn_reference as ref
from dnnl_interop import AlgKind, ocl
from dnnl_interop._ffi import ffi, lib
from dnnl_interop._owned import using
from test_backward_elementwise import prelu_shapes, resampling_cases, shuffle_cases  # the CPU tests' strategies

# A few of the CPU tests' algorithms: each builds its own OpenCL kernels here (seconds each). A kink
# (RELU with alpha, CLIP), a polynomial in tanh (GELU_TANH), a domain (SQRT), and two read from dst.
ELTWISE = ("RELU", "GELU_TANH", "CLIP", "SQRT", "TANH_USE_DST_FOR_BWD", "ELU_USE_DST_FOR_BWD")
# The OpenCL runtime's exp, tanh, pow and sqrt are a few ulps from the correctly rounded ones.
SCALE = 16.0
EXAMPLES = settings.default.max_examples
# Drawn as the CPU tests draw them. Eltwise backward kernels are built per algorithm, not per shape:
# shapes and values are free here, but for the forward (of training) a _USE_DST_FOR_BWD algorithm runs
# first, whose kernels are built per number of dimensions: those draw three. PReLU, shuffle and
# resampling build kernels per shape (a fraction of a second each).
SHAPES = st.lists(st.integers(1, 5), min_size=1, max_size=4)
THREE_DIMENSIONS = st.lists(st.integers(1, 5), min_size=3, max_size=3)
LAYOUTS = st.sampled_from(["plain", "any"])
SEEDS = st.integers(0, 2**32 - 1)


@pytest.fixture(scope="module")
def queue(emulated_gpu):
    return cl.CommandQueue(emulated_gpu.context)


@pytest.fixture(scope="module")
def stream(engine, queue):
    made = ocl.make_stream(engine, queue)
    yield made
    made.close()


@pytest.fixture(scope="module")
def runner(engine, stream, queue):
    return bref.Runner(engine, stream, lambda array: cl_array.to_device(queue, array))


def assert_gradient(found: np.ndarray, expected: np.ndarray, scale: float = SCALE) -> None:
    assert not np.isnan(found).any(), "the primitive left some of its output unwritten"
    ref.assert_close(found, expected, "f32", scale)


@pytest.mark.parametrize("algorithm", ELTWISE)
@settings(max_examples=max(2, EXAMPLES // 5))
@given(data=st.data(), layout=LAYOUTS, seed=SEEDS)
def test_eltwise_backward_gives_the_gradient(runner, algorithm, data, layout, seed):
    shape = data.draw(THREE_DIMENSIONS if algorithm.endswith("_USE_DST_FOR_BWD") else SHAPES, label="shape")
    rng = np.random.default_rng(seed)
    x, alpha, beta = bref.eltwise_case(algorithm, rng, shape)
    diff_dst = rng.uniform(-1, 1, x.shape).astype(np.float32)
    data, diff_src = runner.eltwise(algorithm, x, diff_dst, alpha, beta, layout)  # x, or the forward's dst
    assert_gradient(diff_src, bref.eltwise_backward(algorithm, data, diff_dst, alpha, beta))


@settings(max_examples=max(3, EXAMPLES // 5))
@given(shapes=prelu_shapes(), layout=LAYOUTS, seed=SEEDS)
def test_prelu_backward_gives_both_gradients(runner, shapes, layout, seed):
    shape, weights_shape = shapes
    rng = np.random.default_rng(seed)
    x = bref.away_from(rng.uniform(-2, 2, shape), [0.0]).astype(np.float32)
    weights = rng.uniform(-1, 1, weights_shape).astype(np.float32)
    diff_dst = rng.uniform(-1, 1, x.shape).astype(np.float32)
    diff_src, diff_weights = runner.prelu(x, weights, diff_dst, layout)
    expected_src, expected_weights = bref.prelu_backward(x, weights, diff_dst)
    assert_gradient(diff_src, expected_src)
    assert_gradient(diff_weights, expected_weights, scale=SCALE * x.size / weights.size)


@settings(max_examples=max(3, EXAMPLES // 5))
@given(case=shuffle_cases(), layout=LAYOUTS, seed=SEEDS)
def test_shuffle_backward_gives_the_gradient(runner, case, layout, seed):
    shape, axis, group_size = case
    diff_dst = np.random.default_rng(seed).permutation(np.prod(shape)).reshape(shape).astype(np.float32)
    found = runner.shuffle(diff_dst, axis, group_size, layout)
    np.testing.assert_array_equal(found, bref.shuffle_backward(diff_dst, axis, group_size))


@settings(max_examples=max(3, EXAMPLES // 5))
@given(algorithm=st.sampled_from(["NEAREST", "LINEAR"]), case=resampling_cases(), layout=LAYOUTS, seed=SEEDS)
def test_resampling_backward_gives_the_gradient(runner, algorithm, case, layout, seed):
    src_shape, dst_spatial = case
    diff_dst = np.random.default_rng(seed).uniform(-1, 1, (*src_shape[:2], *dst_spatial)).astype(np.float32)
    found = runner.resampling(algorithm, src_shape, diff_dst, layout=layout)
    assert_gradient(found, bref.resampling_backward(diff_dst, algorithm, src_shape[2:]))


@pytest.mark.parametrize("kind", ["eltwise", "prelu", "shuffle", "resampling"])
def test_format_any_diff_descriptors_are_answered_here_too(runner, kind):
    rng = np.random.default_rng(43)
    x = bref.away_from(rng.uniform(-2, 2, (2, 6, 4)), [0.0]).astype(np.float32)
    diff_dst = rng.uniform(-1, 1, x.shape).astype(np.float32)
    if kind == "eltwise":
        _, found = runner.eltwise("GELU_TANH", x, diff_dst, 0.0, 0.0, layout="any")
        assert_gradient(found, bref.eltwise_backward("GELU_TANH", x, diff_dst, 0.0, 0.0))
    elif kind == "prelu":
        weights = rng.uniform(-1, 1, (1, 6, 1)).astype(np.float32)
        found, diff_weights = runner.prelu(x, weights, diff_dst, layout="any")
        expected_src, expected_weights = bref.prelu_backward(x, weights, diff_dst)
        assert_gradient(found, expected_src)
        assert_gradient(diff_weights, expected_weights, scale=SCALE * 8)
    elif kind == "shuffle":
        found = runner.shuffle(diff_dst, 1, 3, layout="any")
        np.testing.assert_array_equal(found, bref.shuffle_backward(diff_dst, 1, 3))
    else:
        found = runner.resampling("LINEAR", (2, 6, 3), diff_dst, layout="any")
        assert_gradient(found, bref.resampling_backward(diff_dst, "LINEAR", (3,)))


def test_the_diff_queries_answer_plain_layouts_for_any(engine):
    with bref.f32((2, 6, 4)) as data, bref.f32((2, 6, 4), "any") as any_:
        hint = dnnl.EltwiseForwardDesc(engine, AlgKind.ELTWISE_GELU_TANH, data, data, prop_kind=bref.TRAINING)
        with dnnl.EltwiseBackwardDesc(engine, AlgKind.ELTWISE_GELU_TANH, any_, any_, data, hint) as pd:
            assert pd.diff_src_desc() == data and pd.diff_dst_desc() == data


# --- softmax: no implementation here, forward or backward ---------------------------------


@pytest.mark.parametrize("algorithm", [AlgKind.SOFTMAX_ACCURATE, AlgKind.SOFTMAX_LOG])
def test_softmax_of_training_is_unimplemented_here_and_the_error_says_so(engine, algorithm):
    with bref.f32((2, 3, 5)) as data, pytest.raises(dnnl.UnimplementedError) as caught:
        dnnl.SoftmaxForwardDesc(engine, algorithm, data, data, 2, prop_kind=bref.TRAINING)
    error = caught.value
    assert (error.status, error.function) == (dnnl.Status.UNIMPLEMENTED, "dnnl_softmax_forward_primitive_desc_create")
    assert "oneDNN has no implementation of this softmax on an OpenCL engine" in str(error)


@pytest.mark.parametrize("algorithm", [AlgKind.SOFTMAX_ACCURATE, AlgKind.SOFTMAX_LOG])
def test_softmax_backward_is_unimplemented_here_too(engine, algorithm):
    # The C creator takes a NULL hint (the CPU engine then makes the backward): here it has none.
    out = ffi.new("dnnl_primitive_desc_t *")
    with bref.f32((2, 3, 5)) as data, using((engine, dnnl.Engine, "engine"), (data, dnnl.MemoryDesc, "data")) as (
            c_engine, c_data):
        status = lib.dnnl_softmax_backward_primitive_desc_create(out, c_engine, int(algorithm), c_data, c_data,
                                                                 c_data, 2, ffi.NULL, ffi.NULL)
    if status == 0:
        lib.dnnl_primitive_desc_destroy(out[0])
    assert status == dnnl.Status.UNIMPLEMENTED
