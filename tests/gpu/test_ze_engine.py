"""Level Zero engines on real oneDNN, emulated GPU: creation, and the handles oneDNN hands back.

The driver, device and context come from the emulated Level Zero loader
(``dnnl_interop.testing.emulated_level_zero``); oneDNN 3.13 makes its real
Level Zero engine on them.
"""

from __future__ import annotations

import numpy as np
import pytest

import dnnl_interop as dnnl
from dnnl_interop import ze
from dnnl_interop.testing import emulated_level_zero as emulated

from .ze_usm import transpose_over_shared_usm

# At collection, before any test of the session can start SYCL.
emulated.enable()


def test_make_engine_on_the_emulated_driver_device_and_context_makes_a_gpu_engine(emulated_level_zero):
    lz = emulated_level_zero
    with ze.make_engine(lz.driver, lz.device, lz.context) as engine:
        assert engine.kind == dnnl.EngineKind.GPU


def test_get_driver_device_and_context_return_the_handles_the_engine_was_made_with(emulated_level_zero):
    lz = emulated_level_zero
    with ze.make_engine(lz.driver, lz.device, lz.context) as engine:
        driver, device, context = ze.get_driver(engine), ze.get_device(engine), ze.get_context(engine)
        assert (type(driver), type(device), type(context)) == (ze.Driver, ze.Device, ze.Context)
        assert (driver, device, context) == (lz.driver, lz.device, lz.context)


@pytest.mark.parametrize("form", [int, lambda handle: handle.ptr], ids=["int", "cffi-pointer"])
def test_handles_given_in_another_form_come_back_as_the_same_typed_values(emulated_level_zero, form):
    lz = emulated_level_zero
    with ze.make_engine(form(lz.driver), form(lz.device), form(lz.context)) as engine:
        assert ze.get_driver(engine) == lz.driver
        assert ze.get_device(engine) == lz.device
        assert ze.get_context(engine) == lz.context


def test_an_engine_runs_a_reorder_with_correct_data(emulated_level_zero):
    lz = emulated_level_zero
    source = np.arange(24 * 40, dtype=np.float32).reshape(24, 40)
    with ze.make_engine(lz.driver, lz.device, lz.context) as engine:
        np.testing.assert_array_equal(transpose_over_shared_usm(engine, lz, source), source.T)


def test_the_context_stays_usable_after_an_engine_on_it_is_closed(emulated_level_zero):
    lz = emulated_level_zero
    ze.make_engine(lz.driver, lz.device, lz.context).close()
    source, back = lz.shared(256, "uint8"), lz.shared(256, "uint8")
    source.array[:] = np.arange(256)
    lz.copy(back, source)  # the context's memory and lists still work
    assert lz.synchronize()
    np.testing.assert_array_equal(back.array, source.array)
    with ze.make_engine(lz.driver, lz.device, lz.context) as engine:
        data = np.linspace(-1, 1, 8 * 6, dtype=np.float32).reshape(8, 6)
        np.testing.assert_array_equal(transpose_over_shared_usm(engine, lz, data), data.T)


def test_two_engines_on_one_context_share_no_state_that_breaks_either(emulated_level_zero):
    lz = emulated_level_zero
    data = np.arange(12 * 5, dtype=np.float32).reshape(12, 5)
    with ze.make_engine(lz.driver, lz.device, lz.context) as first:
        with ze.make_engine(lz.driver, lz.device, lz.context) as second:
            np.testing.assert_array_equal(transpose_over_shared_usm(second, lz, data), data.T)
        np.testing.assert_array_equal(transpose_over_shared_usm(first, lz, data), data.T)
