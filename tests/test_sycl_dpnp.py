"""dpnp arrays through ``dnnl_interop.sycl`` on the CPU device, on real oneDNN and real dpnp.

The arrays are given to oneDNN as they are (``Memory.from_array``, ``sycl.make_memory``):
their pointers, not copies. dpnp is an optional test dependency (the ``dpnp`` extra, about
1.2 GB); without it these tests are skipped, and say so. CI installs it (``.ci/run``), so
there they run, and a dpnp that is installed but does not import fails them.
"""

from __future__ import annotations

import numpy as np
import pytest

import dnnl_interop as dnnl
from conftest import ROOT, skip_unless_installed
from dnnl_interop import sycl
from sycl_cases import CASES, dpnp_arrays, dpnp_chain


@pytest.fixture
def dpnp(real_dnnl):
    skip_unless_installed("dpnp", "dpnp")
    import dpnp

    return dpnp


@pytest.fixture
def queue(dpnp):
    import dpctl

    return dpctl.SyclQueue("opencl:cpu", property="in_order")


@pytest.fixture
def engine(queue):
    with sycl.make_engine(queue.sycl_device, queue.sycl_context) as made:
        yield made


@pytest.fixture
def stream(engine, queue):
    with sycl.make_stream(engine, queue) as made:
        yield made


def test_memory_over_a_dpnp_array_is_the_array_s_own_usm(engine, dpnp, queue):
    x = dpnp.arange(12, dtype="float32", sycl_queue=queue).reshape(3, 4)
    memory = dnnl.Memory.from_array(x, engine)
    assert memory.data_handle == x.__sycl_usm_array_interface__["data"][0]
    assert memory.desc.shape == (3, 4) and memory.desc.data_type == dnnl.DataType.F32
    view = x.T
    transposed = sycl.make_memory(dnnl.MemoryDesc((4, 3), "f32", strides=(1, 4)), engine, sycl.MemoryKind.USM, view)
    assert transposed.data_handle == memory.data_handle


@pytest.mark.parametrize("case", sorted(CASES))
def test_primitives_over_dpnp_arrays_match_numpy(engine, stream, queue, case):
    CASES[case](engine, stream, dpnp_arrays(queue))


def test_dpnp_then_onednn_then_dpnp_on_one_in_order_queue_without_a_wait(engine, stream, queue):
    result, _ = dpnp_chain(engine, stream, queue)
    np.testing.assert_array_equal(result, np.arange(12, dtype=np.float32).reshape(3, 4).T * 2 + 1)


# --- DLPack: kDLOneAPI both ways, without a copy ----------------------------------------


def test_a_dpnp_array_comes_in_through_dlpack_as_its_own_usm(engine, dpnp, queue):
    x = dpnp.arange(6, dtype="float32", sycl_queue=queue).reshape(2, 3)
    pointer = x.__sycl_usm_array_interface__["data"][0]
    assert x.__dlpack_device__() == (14, 0)
    given = dnnl.from_dlpack(x, engine=engine)
    assert given.data_handle == pointer and given.engine is engine
    found = dnnl.from_dlpack(x)  # no engine: a SYCL engine of its device, default context
    assert found.data_handle == pointer
    assert sycl.get_device(found.engine) == queue.sycl_device
    assert found.engine is dnnl.from_dlpack(x).engine  # shared while in use


def test_sycl_memory_goes_out_to_dpnp_through_dlpack_as_its_own_usm(engine, stream, dpnp, queue):
    memory = sycl.make_memory(dnnl.MemoryDesc((2, 3), "f32", "ab"), engine)
    y = dpnp.from_dlpack(memory)
    assert y.__sycl_usm_array_interface__["data"][0] == memory.data_handle
    assert y.shape == (2, 3) and y.sycl_device == queue.sycl_device
    y[...] = 4.0  # dpnp writes oneDNN's memory
    out = dpnp.zeros((3, 2), dtype="float32", sycl_queue=queue)
    target = dnnl.Memory.from_array(out.T, engine)
    sycl.execute(dnnl.reorder(memory.desc, target.desc, engine), stream, {dnnl.ARG_FROM: memory, dnnl.ARG_TO: target})
    np.testing.assert_array_equal(dpnp.asnumpy(out), np.full((3, 2), 4.0, np.float32))


# --- where these tests run -----------------------------------------------------------


def test_ci_installs_the_dpnp_extra_so_these_tests_run_there():
    setup = [line.split() for line in (ROOT / ".ci" / "run").read_text().splitlines() if "setup-env.sh" in line]
    assert setup and setup[0][0] == "scripts/setup-env.sh" and "dpnp" in setup[0][2:], setup
