"""The backward passes of pooling and batch normalization on real oneDNN 3.13, emulated GPU,
Level Zero engine: as on OpenCL (test_gpu_backward_normalizations.py), fixed cases with
drawn values and drawn pooling geometries and batch normalization flags and shapes, over
device USM oneDNN allocates, with the workspace ``workspace_memory`` allocates (max pooling, batch
normalization with a fused ReLU) handed from the forward training execution to the
backward one. The ``ocl:xe_global`` pooling backward ignores a left padding here too
(a strict xfail).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

import dnnl_interop as dnnl
from dnnl_interop.testing import emulated_level_zero as emulated

from .backward_normalization_cases import (
    BATCH_NORMALIZATIONS,
    CASES,
    DRAWN_POOLINGS,
    SEEDS,
    batch_normalization,
    check,
    check_global_pooling_bug,
    pooling,
    pooling_descs,
    run,
)

# At collection, before any test of the session can start SYCL.
emulated.enable()

RUNTIME = "ze"  # the engine and stream fixtures (conftest.py) are Level Zero ones

ZE_CASES = [name for name in CASES if "pooling" in name or name.startswith("batch")]
EXAMPLES = settings.default.max_examples


@pytest.mark.parametrize("case", ZE_CASES)
@settings(max_examples=max(2, EXAMPLES // 5))
@given(seed=SEEDS)
def test_each_backward_pass_after_forward_training_gives_the_reference(engine, stream, case, seed):
    check(*CASES[case](engine, stream, seed))


@settings(max_examples=max(2, EXAMPLES // 10))  # a forward and a backward kernel build each
@given(case=DRAWN_POOLINGS, seed=SEEDS)
def test_pooling_backward_over_drawn_geometries_gives_the_reference(engine, stream, case, seed):
    check(*pooling(*case)(engine, stream, seed))


@pytest.mark.parametrize("name", ["max-2d"])
def test_onednn_bug_global_pooling_backward_ignores_the_left_padding_and_is_refused(engine, stream, request,
                                                                                      monkeypatch, name):
    check_global_pooling_bug(engine, stream, request, monkeypatch, name)


@settings(max_examples=max(3, EXAMPLES // 4))
@given(case=BATCH_NORMALIZATIONS, seed=SEEDS)
def test_batch_normalization_backward_over_drawn_flags_and_shapes_gives_the_reference(engine, stream, case, seed):
    check(*batch_normalization(*case)(engine, stream, seed))


def test_a_missing_workspace_is_refused_on_level_zero(engine, stream):
    fwd, _ = pooling_descs(engine, "MAX", (1, 2, 4, 4), (2, 2), (2, 2), (0, 0), (0, 0))
    with pytest.raises(dnnl.InvalidArgumentsError, match="this forward training primitive writes a workspace"):
        run(engine, stream, fwd, {dnnl.ARG_SRC: np.zeros((1, 2, 4, 4))})
    assert dnnl.workspace_memory(fwd).engine is engine
