"""The backward passes of pooling and batch normalization on real oneDNN 3.13, emulated GPU,
Level Zero engine: as on OpenCL (test_gpu_backward_normalizations.py), over device USM
oneDNN allocates, with the workspace ``workspace_memory`` allocates (max pooling, batch
normalization with a fused ReLU) handed from the forward training execution to the
backward one.
"""

from __future__ import annotations

import numpy as np
import pytest

import dnnl_interop as dnnl
from dnnl_interop.testing import emulated_level_zero as emulated

from .backward_normalization_cases import CASES, check, pooling_descs, run

# At collection, before any test of the session can start SYCL.
emulated.enable()

RUNTIME = "ze"  # the engine and stream fixtures (conftest.py) are Level Zero ones

ZE_CASES = [name for name in CASES if "pooling" in name or name.startswith("batch")]


@pytest.mark.parametrize("case", ZE_CASES)
def test_each_backward_pass_after_forward_training_gives_the_reference(engine, stream, case):
    check(*CASES[case](engine, stream))


def test_a_missing_workspace_is_refused_on_level_zero(engine, stream):
    fwd, _ = pooling_descs(engine, "MAX", (1, 2, 4, 4), (2, 2), (2, 2), (0, 0), (0, 0))
    with pytest.raises(dnnl.InvalidArgumentsError, match="this forward training primitive writes a workspace"):
        run(engine, stream, fwd, {dnnl.ARG_SRC: np.zeros((1, 2, 4, 4))})
    assert dnnl.workspace_memory(fwd).engine is engine
