"""Long soaks: many create / execute / close cycles leak nothing.

Deselected by default; run with ``.venv/bin/pytest -m soak`` (add
``HYPOTHESIS_PROFILE=soak`` to run every property test with many examples).
"""

from __future__ import annotations

import gc

import numpy as np
import pyopencl as cl
import pytest

import dnnl_interop
from dnnl_interop import ocl
from memory_usage import rss_kb

pytestmark = pytest.mark.soak

CYCLES = 20000
RSS_GROWTH_LIMIT_KB = 20 * 1024  # a leak of one small object per cycle shows well above noise
OPENCL_CYCLES = 100_000
OPENCL_RSS_LIMIT_KB = 2 * 1024


def _opencl_cycles(cycles: int) -> tuple[list[int], list[int], int, int]:
    """In a process with the emulated GPU on: reference counts before and after
    ``cycles`` engine/memory/stream/reorder cycles, the RSS growth, and how many
    cycles gave wrong data."""
    from dnnl_interop.testing import emulated_gpu

    gpu = emulated_gpu.enable()
    context = cl.Context([gpu.device])
    queue = cl.CommandQueue(context, properties=cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE)
    array = np.arange(64, dtype=np.float32).reshape(8, 8)
    buffer = cl.Buffer(context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=array)
    out = np.empty((8, 8), np.float32)
    counted = (context, queue, buffer)

    def cycle() -> bool:
        out.fill(0)
        with ocl.make_engine(gpu.device, context) as engine:
            src_desc = dnnl_interop.MemoryDesc((8, 8), "f32", "ab")
            dst_desc = dnnl_interop.MemoryDesc((8, 8), "f32", "ba")
            with ocl.make_memory(src_desc, engine, handle=buffer) as src, \
                    ocl.make_memory(dst_desc, engine) as dst, \
                    ocl.make_stream(engine, queue) as stream, \
                    dnnl_interop.reorder(src_desc, dst_desc, engine) as primitive:
                event = ocl.execute(primitive, stream, {dnnl_interop.ARG_FROM: src, dnnl_interop.ARG_TO: dst})
                cl.enqueue_copy(queue, out, ocl.get_mem_object(dst), wait_for=[event]).wait()
            src_desc.close()
            dst_desc.close()
        return np.array_equal(out, array.T)

    for _ in range(100):  # warm up allocators and oneDNN's primitive cache
        cycle()
    gc.collect()
    queue.finish()
    start_counts = [obj.reference_count for obj in counted]
    before = rss_kb()
    wrong = sum(not cycle() for _ in range(cycles))
    gc.collect()
    queue.finish()
    return start_counts, [obj.reference_count for obj in counted], rss_kb() - before, wrong


def test_opencl_cycles_leave_no_references_behind():
    """Real oneDNN on the emulated GPU, in a process of its own (it cannot be
    switched on in this one)."""
    from dnnl_interop.testing import emulated_gpu

    start_counts, end_counts, grown, wrong = emulated_gpu.run_in_child(_opencl_cycles, OPENCL_CYCLES, timeout=3600)
    print(f"{OPENCL_CYCLES} OpenCL cycles: RSS {grown:+d} kB, reference counts {start_counts} -> {end_counts}")
    assert wrong == 0, f"{wrong} of {OPENCL_CYCLES} reorders gave wrong data"
    assert end_counts == start_counts
    assert grown < OPENCL_RSS_LIMIT_KB, f"RSS grew by {grown} kB over {OPENCL_CYCLES} cycles"


def test_cpu_engine_cycles_do_not_grow_memory(real_dnnl):
    array = np.arange(64, dtype=np.float32).reshape(8, 8)
    out = np.empty((8, 8), np.float32)
    with dnnl_interop.Engine.cpu() as engine, dnnl_interop.Stream(engine) as stream:

        def cycle():
            src_desc = dnnl_interop.MemoryDesc((8, 8), "f32", "ab")
            dst_desc = dnnl_interop.MemoryDesc((8, 8), "f32", "ba")
            src = dnnl_interop.Memory(src_desc, engine, array)
            dst = dnnl_interop.Memory(dst_desc, engine, out.T)
            dnnl_interop.reorder(src_desc, dst_desc, engine).execute(
                stream, {dnnl_interop.ARG_FROM: src, dnnl_interop.ARG_TO: dst}
            )
            stream.wait()
            # no close(): garbage collection must destroy every handle

        for _ in range(100):
            cycle()
        gc.collect()
        before = rss_kb()
        for _ in range(CYCLES):
            cycle()
        gc.collect()
        grown = rss_kb() - before
    np.testing.assert_array_equal(out, array.T)
    assert grown < RSS_GROWTH_LIMIT_KB, f"RSS grew by {grown} kB over {CYCLES} cycles"


def test_blob_id_calls_do_not_grow_memory(real_dnnl, pocl_device):
    expected = ocl.get_engine_cache_blob_id(pocl_device)
    for _ in range(1000):
        ocl.get_engine_cache_blob_id(pocl_device)
    before = rss_kb()
    for _ in range(100 * CYCLES):
        assert ocl.get_engine_cache_blob_id(pocl_device) == expected
    grown = rss_kb() - before
    assert grown < RSS_GROWTH_LIMIT_KB, f"RSS grew by {grown} kB over {100 * CYCLES} calls"
