"""The backward passes of pooling, LRN and batch, layer and group normalization on real
oneDNN 3.13, emulated GPU (OpenCL).

What must hold:

* each backward kind, made with its forward descriptor of training as the hint,
  after the forward training execution with the workspace ``workspace_memory``
  allocated (max pooling; batch normalization with a fused ReLU), gives the numpy
  reference's gradients (``backward_normalization_cases``) over memories oneDNN
  allocates on the device: max and average pooling with padding, LRN across and
  within channels, batch normalization plain, with scale and shift, global
  statistics and a fused ReLU, layer normalization; fixed cases with values
  hypothesis draws, and a few examples of drawn geometries, shapes and flags
  (the CPU tests' strategies; the cases module says what batch normalization
  keeps fixed, and why);
* a pooling whose kernel covers the source with one output, padded on the left,
  runs backward on ``ocl:xe_global``, which ignores the left padding: a strict
  xfail with its shapes, and the drawn geometries leave those out;
* group normalization backward has no implementation on this device in oneDNN
  3.13 (its forward of training has one, ``ocl:ref``) and says so;
* the workspace refusals hold here too: a missing workspace, and one allocated
  for another forward whose workspace has the same descriptor.
"""

from __future__ import annotations

import numpy as np
import pyopencl as cl
import pytest
from hypothesis import given, settings

import dnnl_interop as dnnl
from dnnl_interop import ocl

from .backward_normalization_cases import (
    BATCH_NORMALIZATIONS,
    CASES,
    DRAWN_POOLINGS,
    LAYER_NORMALIZATIONS,
    LRNS,
    SCALE_SHIFT,
    SEEDS,
    TRAINING,
    batch_normalization,
    check,
    check_global_pooling_bug,
    distinct,
    layer_normalization,
    lrn,
    plain,
    pooling,
    pooling_descs,
    run,
)

HERE = [name for name in CASES if not name.startswith("group")]
EXAMPLES = settings.default.max_examples


@pytest.fixture(scope="module")
def queue(emulated_gpu):
    return cl.CommandQueue(emulated_gpu.context)


@pytest.fixture(scope="module")
def stream(engine, queue):
    made = ocl.make_stream(engine, queue)
    yield made
    made.close()


@pytest.mark.parametrize("case", HERE)
@settings(max_examples=max(2, EXAMPLES // 5))
@given(seed=SEEDS)
def test_each_backward_pass_after_forward_training_gives_the_reference(engine, stream, case, seed):
    check(*CASES[case](engine, stream, seed))


@settings(max_examples=max(2, EXAMPLES // 10))  # a forward and a backward kernel build each
@given(case=DRAWN_POOLINGS, seed=SEEDS)
def test_pooling_backward_over_drawn_geometries_gives_the_reference(engine, stream, case, seed):
    check(*pooling(*case)(engine, stream, seed))


@pytest.mark.parametrize("name", ["max-1d", "avg-exclude-padding-1d"])
def test_onednn_bug_global_pooling_backward_ignores_the_left_padding_and_is_refused(engine, stream, request,
                                                                                      monkeypatch, name):
    check_global_pooling_bug(engine, stream, request, monkeypatch, name)


@settings(max_examples=max(1, EXAMPLES // 20))  # a forward and a backward kernel build of a second each
@given(case=LRNS, seed=SEEDS)
def test_lrn_backward_over_drawn_shapes_gives_the_reference(engine, stream, case, seed):
    check(*lrn(*case)(engine, stream, seed))


@settings(max_examples=max(3, EXAMPLES // 4))
@given(case=BATCH_NORMALIZATIONS, seed=SEEDS)
def test_batch_normalization_backward_over_drawn_flags_and_shapes_gives_the_reference(engine, stream, case, seed):
    check(*batch_normalization(*case)(engine, stream, seed))


@settings(max_examples=max(1, EXAMPLES // 20))  # a forward and a backward kernel build each
@given(case=LAYER_NORMALIZATIONS, seed=SEEDS)
def test_layer_normalization_backward_over_drawn_shapes_gives_the_reference(engine, stream, case, seed):
    check(*layer_normalization(*case)(engine, stream, seed))


def test_group_normalization_backward_has_no_implementation_here_and_says_so(engine):
    src = plain((2, 4, 3, 3))
    fwd = dnnl.GroupNormalizationForwardDesc(engine, src, src, 2, 1e-3, SCALE_SHIFT, prop_kind=TRAINING)
    assert fwd.impl_info.startswith("ocl:")
    with pytest.raises(dnnl.UnimplementedError, match="oneDNN has no implementation of this group normalization on "
                       "an OpenCL engine"):
        dnnl.GroupNormalizationBackwardDesc(engine, src, src, src, 2, 1e-3, SCALE_SHIFT, fwd)


def test_max_pooling_keeps_its_workspace_here_too(engine, stream):
    fwd, bwd = pooling_descs(engine, "MAX", (1, 2, 4, 4), (2, 2), (2, 2), (0, 0), (0, 0))
    assert fwd.workspace_desc() is not None and fwd.workspace_desc() == bwd.workspace_desc()
    with pytest.raises(dnnl.InvalidArgumentsError, match="this backward primitive reads the workspace"):
        run(engine, stream, bwd, {dnnl.ARG_DIFF_DST: np.zeros((1, 2, 2, 2))})
    other_fwd, _ = pooling_descs(engine, "MAX", (1, 2, 5, 5), (3, 3), (2, 2), (0, 0), (0, 0))
    # Refused whether its workspace's descriptor is the same here or not (by descriptor, or as another forward's).
    with pytest.raises(ValueError, match=r"allocated for the forward pooling descriptor of src "
                       r"MemoryDesc\(\(1, 2, 5, 5\)"):
        run(engine, stream, bwd, {dnnl.ARG_DIFF_DST: np.zeros((1, 2, 2, 2))}, dnnl.workspace_memory(other_fwd))
    x = distinct(np.random.default_rng(4), (1, 2, 4, 4))
    workspace = dnnl.workspace_memory(fwd)
    run(engine, stream, fwd, {dnnl.ARG_SRC: x}, workspace)
    diff_src = run(engine, stream, bwd, {dnnl.ARG_DIFF_DST: np.ones((1, 2, 2, 2))}, workspace)[dnnl.ARG_DIFF_SRC]
    assert sorted(np.unique(diff_src)) == [0.0, 1.0] and diff_src.sum() == 8  # one maximum a window
