"""``ze.execute`` on real oneDNN, emulated GPU: data against numpy, dependency events, the returned event.

oneDNN passes the dependencies to every kernel it appends as the wait list,
and returns no event on interop streams (always in-order) in 3.13.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

import dnnl_interop as dnnl
from dnnl_interop import ze
from dnnl_interop.testing import emulated_level_zero as emulated

# At collection, before any test of the session can start SYCL.
emulated.enable()

SHAPE = (32, 48)


RUNTIME = "ze"  # the engine and stream fixtures (conftest.py) are Level Zero ones


def _reorder(lz, engine, stream, source: np.ndarray, src_type: str, dst_type: str, deps=()):
    """``source`` (``src_type``, ab) reordered to ``dst_type`` (ba) on the engine; the output array."""
    src_desc = dnnl.MemoryDesc(source.shape, src_type, "ab")
    dst_desc = dnnl.MemoryDesc(source.shape, dst_type, "ba")
    src, dst = lz.shared(source.shape, src_type), lz.shared(source.shape[::-1], dst_type)
    src.array[:] = source
    event = ze.execute(
        dnnl.reorder(src_desc, dst_desc, engine), stream,
        {dnnl.ARG_FROM: ze.make_memory(src_desc, engine, src.array),
         dnnl.ARG_TO: ze.make_memory(dst_desc, engine, dst.array.T)},
        deps=deps,
    )
    assert event is None
    stream.wait()
    return dst.array.T.copy()  # back to the source's layout


def _values(rng) -> np.ndarray:
    # Quarters (never a tie to round), and some beyond int8 to saturate.
    values = rng.integers(-700, 700, SHAPE).astype(np.float32) / 4
    values.flat[:4] = [-1000.0, 1000.0, 127.25, -128.75]
    return values


def test_f32_to_f16_and_back_matches_numpy(lz, engine, stream):
    source = np.random.default_rng(1).standard_normal(SHAPE).astype(np.float32) * 100
    half = _reorder(lz, engine, stream, source, "float32", "float16")
    np.testing.assert_array_equal(half, source.astype(np.float16))
    back = _reorder(lz, engine, stream, half, "float16", "float32")
    np.testing.assert_array_equal(back, half.astype(np.float32))


def test_f32_to_s8_rounds_and_saturates_and_back_matches_numpy(lz, engine, stream):
    source = _values(np.random.default_rng(2))
    int8 = _reorder(lz, engine, stream, source, "float32", "int8")
    np.testing.assert_array_equal(int8, np.clip(np.rint(source), -128, 127).astype(np.int8))
    back = _reorder(lz, engine, stream, int8, "int8", "float32")
    np.testing.assert_array_equal(back, int8.astype(np.float32))


def test_a_reorder_waits_for_a_dependency_event_the_host_signals(lz, engine, stream):
    src_desc = dnnl.MemoryDesc(SHAPE, "float32", "ab")
    dst_desc = dnnl.MemoryDesc(SHAPE, "float32", "ba")
    src, dst = lz.shared(SHAPE, "float32"), lz.shared(SHAPE[::-1], "float32")
    src.array[:] = np.arange(np.prod(SHAPE), dtype=np.float32).reshape(SHAPE)
    dst.array[:] = -1
    gate = lz.event_pool(1).event()
    ze.execute(
        dnnl.reorder(src_desc, dst_desc, engine), stream,
        {dnnl.ARG_FROM: ze.make_memory(src_desc, engine, src.array),
         dnnl.ARG_TO: ze.make_memory(dst_desc, engine, dst.array.T)},
        deps=[gate],
    )
    time.sleep(0.2)  # ample time for an ungated kernel of this size
    assert (dst.array == -1).all(), "the reorder ran before its dependency was signalled"
    gate.signal()
    stream.wait()
    np.testing.assert_array_equal(dst.array, src.array.T)


def test_a_reorder_reads_what_a_copy_it_depends_on_wrote_on_another_list(lz, engine, stream):
    other_list = lz.new_command_list()
    pool = lz.event_pool(2)
    start, copied = pool.event(), pool.event()
    staging = lz.shared(SHAPE, "float32")
    staging.array[:] = np.random.default_rng(3).standard_normal(SHAPE).astype(np.float32)
    src_desc = dnnl.MemoryDesc(SHAPE, "float32", "ab")
    dst_desc = dnnl.MemoryDesc(SHAPE, "float16", "ba")
    src, dst = lz.shared(SHAPE, "float32"), lz.shared(SHAPE[::-1], "float16")
    src.array[:] = 0
    lz.copy(src, staging, command_list=other_list, wait=[start], signal=copied)
    ze.execute(
        dnnl.reorder(src_desc, dst_desc, engine), stream,
        {dnnl.ARG_FROM: ze.make_memory(src_desc, engine, src.array),
         dnnl.ARG_TO: ze.make_memory(dst_desc, engine, dst.array.T)},
        deps=[copied],
    )
    start.signal()
    stream.wait()
    assert copied.is_signalled
    np.testing.assert_array_equal(dst.array, staging.array.T.astype(np.float16))


def test_a_reorder_waits_for_every_dependency(lz, engine, stream):
    pool = lz.event_pool(3)
    events = [pool.event() for _ in range(3)]
    src_desc = dnnl.MemoryDesc(SHAPE, "float32", "ab")
    dst_desc = dnnl.MemoryDesc(SHAPE, "float32", "ba")
    src, dst = lz.shared(SHAPE, "float32"), lz.shared(SHAPE[::-1], "float32")
    src.array[:] = 2
    dst.array[:] = 0
    ze.execute(
        dnnl.reorder(src_desc, dst_desc, engine), stream,
        {dnnl.ARG_FROM: ze.make_memory(src_desc, engine, src.array),
         dnnl.ARG_TO: ze.make_memory(dst_desc, engine, dst.array.T)},
        deps=events,
    )
    for event in events[:-1]:
        event.signal()
    time.sleep(0.1)
    assert (dst.array == 0).all(), "the reorder ran before its last dependency was signalled"
    events[-1].signal()
    stream.wait()
    assert (dst.array == 2).all()


def test_execute_returns_no_event_on_an_interop_stream(lz, engine, stream):
    # oneDNN 3.13 writes NULL: interop streams are in-order (src/xpu/ze/capi/primitive.cpp).
    source = np.ones((4, 4), np.float32)
    src_desc = dnnl.MemoryDesc(source.shape, "float32", "ab")
    src, dst = lz.shared(source.shape, "float32"), lz.shared(source.shape, "float32")
    event = ze.execute(
        dnnl.reorder(src_desc, src_desc, engine), stream,
        {dnnl.ARG_FROM: ze.make_memory(src_desc, engine, src.array),
         dnnl.ARG_TO: ze.make_memory(src_desc, engine, dst.array)},
        deps=[],
    )
    assert event is None
    stream.wait()


def test_execute_refuses_a_primitive_made_on_another_engine(lz, engine, stream):
    desc = dnnl.MemoryDesc((4, 4), "float32", "ab")
    src, dst = lz.shared((4, 4), "float32"), lz.shared((4, 4), "float32")
    with ze.make_engine(lz.driver, lz.device, lz.context) as other:
        foreign = dnnl.reorder(desc, desc, other)
        with pytest.raises(dnnl.InvalidArgumentsError):
            ze.execute(
                foreign, stream,
                {dnnl.ARG_FROM: ze.make_memory(desc, engine, src.array),
                 dnnl.ARG_TO: ze.make_memory(desc, engine, dst.array)},
            )
        foreign.close()
