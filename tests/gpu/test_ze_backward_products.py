"""The backward kinds of convolution, deconvolution and inner product on real oneDNN 3.13,
emulated GPU, Level Zero engine.

What must hold, as on OpenCL (test_gpu_backward_products.py): each kind
(convolution and deconvolution backward data and backward weights with the
bias's gradient, inner product backward data and weights with the bias's)
gives the numpy gradients the CPU tests confirm by finite differences,
exactly (``backward_product_cases``), over its fixed geometry with drawn
values and over geometries hypothesis draws, over Level Zero shared USM the caller
allocated and over device USM oneDNN allocates (written and read through
``memory.mapped()``). Outputs start as NaN, so a primitive that wrote nothing
cannot pass. A diff_bias with gaps between its elements, which oneDNN 3.13
writes packed, is refused here too.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dnnl_interop as dnnl
from dnnl_interop import ze
from dnnl_interop.testing import emulated_level_zero as emulated

from .backward_product_cases import BIAS_WITH_GAPS_CASES, KINDS, SEEDS, backward_case, drawn_cases
from .primitive_cases import mapped_reader, nan_filled, run_case

# At collection, before any test of the session can start SYCL.
emulated.enable()

RUNTIME = "ze"  # the engine and stream fixtures (conftest.py) are Level Zero ones
EXAMPLES = settings.default.max_examples


class _SharedUsm:
    """``ze.make_memory(desc, engine, array)`` over the caller's shared USM, read back from it."""

    def __init__(self, lz, engine):
        self.lz, self.engine = lz, engine

    def input(self, desc, array):
        usm = self.lz.shared(desc.shape, desc.dtype)
        usm.array[...] = array
        return ze.make_memory(desc, self.engine, usm.array)

    def output(self, desc):
        memory = self.input(desc, nan_filled(desc))
        return memory, mapped_reader(memory)


class _AllocatedByOnednn(_SharedUsm):
    """``ze.make_memory(desc, engine)``: device USM oneDNN allocates, written and read with ``mapped()``."""

    def input(self, desc, array):
        memory = ze.make_memory(desc, self.engine)
        assert self.lz.memory_type(memory.data_handle) == "device"
        with memory.mapped() as data:
            data[...] = array
        return memory


DOORS = {"shared-USM": _SharedUsm, "allocated-by-oneDNN": _AllocatedByOnednn}


@pytest.mark.parametrize("case", list(KINDS))
@settings(max_examples=max(2, EXAMPLES // 5))
@given(door=st.sampled_from(list(DOORS)), seed=SEEDS)
def test_each_backward_kind_gives_numpys_gradients(lz, engine, stream, case, door, seed):
    made = backward_case(case, seed)(engine)
    run_case(made, DOORS[door](lz, engine), ze.execute, stream)
    made.desc.close()


@settings(max_examples=max(2, EXAMPLES // 10))  # each a kernel build of most of a second
@given(drawn=drawn_cases(), door=st.sampled_from(list(DOORS)))
def test_each_backward_kind_gives_numpys_gradients_over_drawn_geometries(lz, engine, stream, drawn, door):
    _, make = drawn  # the description shows in hypothesis's falsifying example
    made = make(engine)
    run_case(made, DOORS[door](lz, engine), ze.execute, stream)
    made.desc.close()


@pytest.mark.parametrize("case", list(BIAS_WITH_GAPS_CASES))
def test_a_diff_bias_with_gaps_is_refused_here_too(engine, case):
    with pytest.raises(dnnl.UnimplementedError) as info:
        BIAS_WITH_GAPS_CASES[case]("kind")(engine)
    assert "writes the bias's gradient as if packed" in info.value.reason
