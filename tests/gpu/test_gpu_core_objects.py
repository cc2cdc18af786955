"""The core objects on a real oneDNN GPU engine (emulated GPU).

``Memory(desc, gpu_engine)`` works as on the CPU engine, although this SYCL
build's ``dnnl_memory_create`` refuses OpenCL engines: the binding routes it
to ``dnnl_ocl_interop_memory_create``. ``Primitive.execute`` runs on streams
over the caller's queues, everything the work uses stays alive until the
stream is waited, and eight threads can share one GPU engine.
"""

from __future__ import annotations

import gc
import threading
import time

import numpy as np
import pyopencl as cl
import pytest

import dnnl_interop as dnnl
from dnnl_interop import ocl
from dnnl_interop._ffi import ffi

SHAPE = (16, 24)


@pytest.fixture
def queue(emulated_gpu):
    return cl.CommandQueue(emulated_gpu.context)


def read(queue, memory, dtype, shape):
    out = np.empty(shape, dtype)
    cl.enqueue_copy(queue, out, ocl.get_mem_object(memory)).wait()
    return out


def test_memory_on_a_gpu_engine_is_opencl_buffer_memory(engine):
    with dnnl.MemoryDesc(SHAPE, "f32", "ab") as desc, dnnl.Memory(desc, engine) as memory:
        assert ocl.get_memory_kind(memory) == ocl.MemoryKind.BUFFER
        buffer = ocl.get_mem_object(memory)
        assert buffer.size >= desc.size


def test_memory_on_a_gpu_engine_uses_the_callers_buffer(emulated_gpu, engine):
    buffer = cl.Buffer(emulated_gpu.context, cl.mem_flags.READ_WRITE, 4 * SHAPE[0] * SHAPE[1])
    with dnnl.MemoryDesc(SHAPE, "f32", "ab") as desc, dnnl.Memory(desc, engine, buffer) as memory:
        assert ocl.get_mem_object(memory).int_ptr == buffer.int_ptr


def test_a_host_array_is_not_taken_for_gpu_memory(engine):
    with dnnl.MemoryDesc(SHAPE, "f32", "ab") as desc:
        with pytest.raises(TypeError, match=r"^handle: a numpy.ndarray is host memory, not an OpenCL buffer"):
            dnnl.Memory(desc, engine, np.zeros(SHAPE, np.float32))


def test_map_data_then_primitive_execute_on_a_gpu_stream(engine, queue):
    source = np.arange(SHAPE[0] * SHAPE[1], dtype=np.float32).reshape(SHAPE)
    with dnnl.MemoryDesc(SHAPE, "f32", "ab") as src_desc, dnnl.MemoryDesc(SHAPE, "f16", "ba") as dst_desc, \
            dnnl.Memory(src_desc, engine) as src, dnnl.Memory(dst_desc, engine) as dst, \
            ocl.make_stream(engine, queue) as stream, dnnl.reorder(src_desc, dst_desc, engine) as primitive:
        pointer = src.map_data()
        np.frombuffer(ffi.buffer(pointer, src_desc.size), np.float32)[:] = source.ravel()
        src.unmap_data(pointer)
        primitive.execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
        stream.wait()
        # "ba" of shape (16, 24) is laid out as the (24, 16) transpose.
        np.testing.assert_array_equal(read(queue, dst, np.float16, SHAPE[::-1]), source.T.astype(np.float16))


def test_work_in_flight_keeps_its_gpu_objects_until_wait(emulated_gpu, engine, queue):
    context = emulated_gpu.context
    live = dnnl._owned.live_objects()
    source = np.linspace(-4, 4, SHAPE[0] * SHAPE[1], dtype=np.float32).reshape(SHAPE)
    # oneDNN's primitive cache keeps a made reorder's kernels (and through
    # them a context reference): make this one once before counting.
    with dnnl.MemoryDesc(SHAPE, "f32", "ab") as src_desc, dnnl.MemoryDesc(SHAPE, "s8", "ab") as dst_desc:
        dnnl.reorder(src_desc, dst_desc, engine).close()
    start = (context.reference_count, queue.reference_count)
    stream = ocl.make_stream(engine, queue)

    def submit():
        src_buffer = cl.Buffer(context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=source)
        dst_buffer = cl.Buffer(context, cl.mem_flags.READ_WRITE, source.nbytes // 4)
        src_desc, dst_desc = dnnl.MemoryDesc(SHAPE, "f32", "ab"), dnnl.MemoryDesc(SHAPE, "s8", "ab")
        dnnl.reorder(src_desc, dst_desc, engine).execute(
            stream, {dnnl.ARG_FROM: dnnl.Memory(src_desc, engine, src_buffer),
                     dnnl.ARG_TO: dnnl.Memory(dst_desc, engine, dst_buffer)}
        )
        return dst_buffer  # the primitive, memories, descriptors and source buffer are dropped

    dst_buffer = submit()
    gc.collect()
    stream.wait()
    out = np.empty(SHAPE, np.int8)
    cl.enqueue_copy(queue, out, dst_buffer).wait()
    np.testing.assert_array_equal(out, np.clip(np.rint(source), -128, 127).astype(np.int8))
    stream.close()
    del dst_buffer
    gc.collect()
    assert (context.reference_count, queue.reference_count) == start
    assert dnnl._owned.live_objects() == live


def test_eight_threads_share_one_gpu_engine(emulated_gpu, engine):
    """Each thread: its own queue and stream, memories over its own buffers,
    execute, wait, check; now and then it closes right after execute."""
    context = emulated_gpu.context
    live = dnnl._owned.live_objects()
    failures, done = [], []
    deadline = time.monotonic() + 3

    def worker(seed):
        queue = cl.CommandQueue(context)
        rng = np.random.default_rng(seed)
        try:
            with ocl.make_stream(engine, queue) as stream:
                while time.monotonic() < deadline:
                    source = rng.standard_normal(SHAPE).astype(np.float32)
                    with dnnl.MemoryDesc(SHAPE, "f32", "ab") as src_desc, \
                            dnnl.MemoryDesc(SHAPE, "f32", "ba") as dst_desc:
                        src_buffer = cl.Buffer(context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR,
                                               hostbuf=source)
                        src = dnnl.Memory(src_desc, engine, src_buffer)
                        dst = dnnl.Memory(dst_desc, engine)
                        primitive = dnnl.reorder(src_desc, dst_desc, engine)
                        primitive.execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
                        if rng.random() < 0.3:
                            primitive.close(), src.close()  # closed while the work may run
                        stream.wait()
                        out = np.empty(SHAPE[::-1], np.float32)
                        cl.enqueue_copy(queue, out, ocl.get_mem_object(dst)).wait()
                        if not np.array_equal(out, source.T):
                            failures.append("wrong data")
                        dst.close()
                        done.append(1)
        except BaseException as exc:  # any error fails the test, with its text
            failures.append(repr(exc))

    threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not any(thread.is_alive() for thread in threads), "a thread deadlocked"
    assert not failures, failures[:5]
    assert len(done) >= 16, f"only {len(done)} reorders in 3 s"
    gc.collect()
    assert dnnl._owned.live_objects() == live
