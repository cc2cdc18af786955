"""Level Zero streams on real oneDNN, emulated GPU: over the caller's command lists.

oneDNN neither owns nor checks the list; the stream is always in-order and
``profiling`` is ignored by release builds (no DNNL_EXPERIMENTAL_PROFILING).
"""

from __future__ import annotations

import gc

import numpy as np
import pytest

import dnnl_interop as dnnl
from dnnl_interop import ze
from dnnl_interop.testing import emulated_level_zero as emulated

# At collection, before any test of the session can start SYCL.
emulated.enable()

SHAPE = (16, 24)


@pytest.fixture(scope="module")
def engine(emulated_level_zero):
    lz = emulated_level_zero
    made = ze.make_engine(lz.driver, lz.device, lz.context)
    yield made
    made.close()


@pytest.fixture(scope="module")
def transpose(engine):
    src_desc = dnnl.MemoryDesc(SHAPE, "float32", "ab")
    dst_desc = dnnl.MemoryDesc(SHAPE, "float32", "ba")
    return src_desc, dst_desc, dnnl.reorder(src_desc, dst_desc, engine)


def _submit(lz, engine, transpose, stream) -> tuple:
    """Execute the transpose on ``stream`` over fresh shared USM; (source, output array)."""
    src_desc, dst_desc, reorder = transpose
    src, dst = lz.shared(SHAPE, "float32"), lz.shared(SHAPE[::-1], "float32")
    src.array[:] = np.random.default_rng(7).standard_normal(SHAPE, dtype=np.float32)
    dst.array[:] = 0
    event = ze.execute(
        reorder, stream,
        {dnnl.ARG_FROM: ze.make_memory(src_desc, engine, src.array),
         dnnl.ARG_TO: ze.make_memory(dst_desc, engine, dst.array.T)},
    )
    assert event is None  # oneDNN 3.13 reports no event on (in-order) interop streams
    return src, dst


@pytest.mark.parametrize("profiling", [False, True])
def test_make_stream_on_a_command_list_runs_work_there_and_get_list_returns_it(
    emulated_level_zero, engine, transpose, profiling
):
    lz = emulated_level_zero
    command_list = lz.new_command_list()
    with ze.make_stream(engine, command_list, profiling=profiling) as stream:
        listed = ze.get_list(stream)
        assert type(listed) is ze.CommandList and listed == command_list.handle
        src, dst = _submit(lz, engine, transpose, stream)
        stream.wait()
        np.testing.assert_array_equal(dst.array, src.array.T)


def test_get_list_returns_the_process_command_list_a_stream_was_made_on(emulated_level_zero, engine):
    lz = emulated_level_zero
    with ze.make_stream(engine, lz.command_list) as stream:
        assert ze.get_list(stream) == lz.command_list


def test_the_list_stays_valid_after_the_stream_is_closed(emulated_level_zero, engine, transpose):
    lz = emulated_level_zero
    command_list = lz.new_command_list()
    ze.make_stream(engine, command_list).close()
    source, copy = lz.shared(64, "int32"), lz.shared(64, "int32")
    source.array[:] = np.arange(64)
    lz.copy(copy, source, command_list=command_list)
    assert lz.synchronize(command_list)
    np.testing.assert_array_equal(copy.array, np.arange(64))
    with ze.make_stream(engine, command_list) as again:
        src, dst = _submit(lz, engine, transpose, again)
        again.wait()
        np.testing.assert_array_equal(dst.array, src.array.T)


def test_a_list_made_without_the_in_order_flag_runs_in_order_and_gives_no_event(
    emulated_level_zero, engine, transpose
):
    lz = emulated_level_zero
    command_list = lz.new_command_list(in_order=False)
    with ze.make_stream(engine, command_list) as stream:
        src, dst = _submit(lz, engine, transpose, stream)
        stream.wait()
        np.testing.assert_array_equal(dst.array, src.array.T)


def test_on_a_synchronous_list_the_work_is_done_when_execute_returns(emulated_level_zero, engine, transpose):
    lz = emulated_level_zero
    with ze.make_stream(engine, lz.new_command_list(synchronous=True)) as stream:
        src, dst = _submit(lz, engine, transpose, stream)
        np.testing.assert_array_equal(dst.array, src.array.T)  # before any wait


def test_a_stream_keeps_the_command_list_object_it_was_given_alive(emulated_level_zero, engine, transpose):
    lz = emulated_level_zero
    command_list = lz.new_command_list()
    handle = command_list.handle
    stream = ze.make_stream(engine, command_list)
    del command_list
    gc.collect()
    assert ze.get_list(stream) == handle
    src, dst = _submit(lz, engine, transpose, stream)
    stream.wait()
    np.testing.assert_array_equal(dst.array, src.array.T)
    stream.close()


def test_work_of_two_streams_on_two_lists_is_independent(emulated_level_zero, engine, transpose):
    lz = emulated_level_zero
    first, second = lz.new_command_list(), lz.new_command_list()
    with ze.make_stream(engine, first) as one, ze.make_stream(engine, second) as two:
        gate = lz.event_pool(1).event()
        blocked_src, blocked = lz.shared(SHAPE, "float32"), lz.shared(SHAPE, "float32")
        blocked_src.array[:], blocked.array[:] = 9, 5
        lz.copy(blocked, blocked_src, command_list=first, wait=[gate])  # first waits on the host
        src, dst = _submit(lz, engine, transpose, two)
        two.wait()  # second finishes although first is blocked
        np.testing.assert_array_equal(dst.array, src.array.T)
        assert (blocked.array == 5).all()
        gate.signal()
        one.wait()
        assert (blocked.array == 9).all()
