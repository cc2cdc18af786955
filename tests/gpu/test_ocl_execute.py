"""ocl.execute on real oneDNN, emulated GPU: events, dependencies, memory kinds.

The execute cases the test-only stand-in used to answer (tests/test_ocl.py),
now answered by real oneDNN 3.13 on the emulated Intel GPU, plus what real
oneDNN does with dependency events. Results are checked against numpy. On an
out-of-order queue ``ocl.execute`` returns a ``pyopencl.Event`` holding the
reference oneDNN gave the caller; on an in-order queue it returns None, as
oneDNN does by design. Ported from oneDNN's
tests/gtests/ocl/api/test_stream.cpp (out-of-order ReLU with events).
"""

from __future__ import annotations

import gc
import time
import weakref

import numpy as np
import pyopencl as cl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dnnl_interop as dnnl
from dnnl_interop import ocl
from dnnl_interop._ffi import ffi

OUT_OF_ORDER = cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE
COMPLETE = cl.command_execution_status.COMPLETE


def f32_desc(shape, tag):
    return dnnl.MemoryDesc(shape, "float32", tag)


@pytest.fixture
def context(emulated_gpu):
    return emulated_gpu.context


def reorder_on_queue(engine, context, queue, array, with_deps=True):
    """pyopencl writes ``array``; oneDNN reorders ab -> ba; pyopencl reads it back."""
    rows, cols = array.shape
    src_desc, dst_desc = f32_desc((rows, cols), "ab"), f32_desc((rows, cols), "ba")
    src_buffer = cl.Buffer(context, cl.mem_flags.READ_WRITE, array.nbytes)
    written = cl.enqueue_copy(queue, src_buffer, array, is_blocking=False)
    if not with_deps:
        written.wait()
    src = ocl.make_memory(src_desc, engine, handle=src_buffer)
    dst = ocl.make_memory(dst_desc, engine)
    stream = ocl.make_stream(engine, queue)
    primitive = dnnl.reorder(src_desc, dst_desc, engine)
    event = ocl.execute(
        primitive, stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst}, deps=[written] if with_deps else []
    )
    out = np.empty((cols, rows), np.float32)
    read = cl.enqueue_copy(queue, out, ocl.get_mem_object(dst), wait_for=[event] if event is not None else None)
    read.wait()
    for obj in (primitive, stream, src, dst, src_desc, dst_desc):
        obj.close()
    return out, event, src_buffer, written


def test_end_to_end_reorder_on_an_out_of_order_queue(engine, context):
    array = np.arange(12, dtype=np.float32).reshape(3, 4)
    queue = cl.CommandQueue(context, properties=OUT_OF_ORDER)
    reorder_on_queue(engine, context, queue, array)  # oneDNN's primitive cache now holds its kernel
    queue.finish()
    gc.collect()
    start = context.reference_count, queue.reference_count

    out, event, src_buffer, written = reorder_on_queue(engine, context, queue, array * 3)
    np.testing.assert_array_equal(out, (array * 3).T)
    assert isinstance(event, cl.Event)
    assert event.command_execution_status == COMPLETE
    assert event.reference_count == 1  # the caller's reference, held by the returned Event
    assert event.command_queue.int_ptr == queue.int_ptr
    assert src_buffer.reference_count == 1  # oneDNN released its reference
    del event, written, src_buffer
    gc.collect()
    queue.finish()
    assert (context.reference_count, queue.reference_count) == start


def test_execute_on_an_in_order_queue_returns_no_event(engine, context):
    queue = cl.CommandQueue(context)
    array = np.arange(6, dtype=np.float32).reshape(2, 3)
    out, event, _, _ = reorder_on_queue(engine, context, queue, array)
    np.testing.assert_array_equal(out, array.T)
    assert event is None


# Each new shape builds a kernel (~0.4 s here): a few examples, not the profile's count.
@settings(max_examples=8)
@given(rows=st.integers(1, 9), cols=st.integers(1, 9), out_of_order=st.booleans())
def test_reorders_through_opencl_match_numpy(engine, context, rows, cols, out_of_order):
    queue = cl.CommandQueue(context, properties=OUT_OF_ORDER if out_of_order else 0)
    array = np.random.default_rng(rows * 10 + cols).standard_normal((rows, cols)).astype(np.float32)
    out, event, _, _ = reorder_on_queue(engine, context, queue, array)
    np.testing.assert_array_equal(out, array.T)
    assert (event is None) == (not out_of_order)


def _reorder_parts(engine, context, source):
    rows, cols = source.shape
    src_desc, dst_desc = f32_desc((rows, cols), "ab"), f32_desc((rows, cols), "ba")
    mf = cl.mem_flags
    src_buffer = cl.Buffer(context, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=source)
    dst_buffer = cl.Buffer(context, mf.READ_WRITE, source.nbytes)
    src = ocl.make_memory(src_desc, engine, handle=src_buffer)
    dst = ocl.make_memory(dst_desc, engine, handle=dst_buffer)
    return dnnl.reorder(src_desc, dst_desc, engine), {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst}, dst_buffer


def test_on_an_out_of_order_queue_the_work_waits_for_its_dependency_events(engine, context):
    source = np.arange(20, dtype=np.float32).reshape(4, 5)
    queue = cl.CommandQueue(context, properties=OUT_OF_ORDER)
    primitive, args, dst_buffer = _reorder_parts(engine, context, source)
    gate = cl.UserEvent(context)
    with ocl.make_stream(engine, queue) as stream:
        event = ocl.execute(primitive, stream, args, deps=[gate])
        time.sleep(0.2)
        assert event.command_execution_status != COMPLETE  # held back by the open gate
        gate.set_status(COMPLETE)
        event.wait()
        out = np.empty((5, 4), np.float32)
        cl.enqueue_copy(queue, out, dst_buffer, wait_for=[event]).wait()
    np.testing.assert_array_equal(out, source.T)


def test_on_an_in_order_queue_oneDNN_does_not_wait_for_dependency_events(engine, context):
    # oneDNN's kernels ignore dependencies on in-order queues
    # (src/gpu/intel/ocl/kernel.cpp): the caller orders work by the queue.
    source = np.arange(20, dtype=np.float32).reshape(4, 5)
    queue = cl.CommandQueue(context)
    primitive, args, dst_buffer = _reorder_parts(engine, context, source)
    gate = cl.UserEvent(context)
    try:
        with ocl.make_stream(engine, queue) as stream:
            assert ocl.execute(primitive, stream, args, deps=[gate]) is None
            out = np.empty((5, 4), np.float32)
            read = cl.enqueue_copy(queue, out, dst_buffer, is_blocking=False)
            deadline = time.monotonic() + 20
            while read.command_execution_status != COMPLETE and time.monotonic() < deadline:
                time.sleep(0.01)
            assert read.command_execution_status == COMPLETE, "the reorder waited for the open gate"
    finally:
        gate.set_status(COMPLETE)
    np.testing.assert_array_equal(out, source.T)


def test_memory_without_a_buffer_executes_only_once_it_has_one(engine, context):
    desc = f32_desc((2, 2), "ab")
    buffer = cl.Buffer(context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR,
                       hostbuf=np.array([1, 2, 3, 4], np.float32))
    queue = cl.CommandQueue(context)
    with ocl.make_memory(desc, engine, handle=dnnl.MEMORY_NONE) as src, \
            ocl.make_memory(f32_desc((2, 2), "ba"), engine) as dst, \
            ocl.make_stream(engine, queue) as stream, \
            dnnl.reorder(desc, dst.desc, engine) as primitive:
        args = {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst}
        with pytest.raises(ValueError, match="no buffer"):
            ocl.execute(primitive, stream, args)
        ocl.set_mem_object(src, buffer)
        assert ocl.execute(primitive, stream, args) is None
        stream.wait()
        out = np.empty(4, np.float32)
        cl.enqueue_copy(queue, out, ocl.get_mem_object(dst)).wait()
        np.testing.assert_array_equal(out, [1, 3, 2, 4])
        ocl.set_mem_object(src, None)
        with pytest.raises(ValueError, match="no buffer"):
            ocl.execute(primitive, stream, args)


def test_a_primitive_of_another_engine_is_refused(emulated_gpu, engine, context):
    desc = f32_desc((2, 2), "ab")
    with ocl.make_engine(emulated_gpu.device, context) as other, dnnl.reorder(desc, desc, other) as primitive:
        with ocl.make_stream(engine, cl.CommandQueue(context)) as stream:
            with pytest.raises(dnnl.InvalidArgumentsError, match="stream: on another engine than the primitive"):
                ocl.execute(primitive, stream, {})


def test_what_work_used_is_let_go_once_its_event_completed(engine, context):
    """On out-of-order queues the returned event tells when the work is done:
    what it used is released at the next submission, before any stream wait."""
    queue = cl.CommandQueue(context, properties=OUT_OF_ORDER)
    desc = f32_desc((4, 4), "ab")
    with ocl.make_stream(engine, queue) as stream, dnnl.reorder(desc, desc, engine) as primitive:
        first_src, first_dst = ocl.make_memory(desc, engine), ocl.make_memory(desc, engine)
        watch = weakref.ref(first_src)
        event = ocl.execute(primitive, stream, {dnnl.ARG_FROM: first_src, dnnl.ARG_TO: first_dst})
        del first_src, first_dst
        gc.collect()
        assert watch() is not None, "released while its work may still run"
        event.wait()
        with ocl.make_memory(desc, engine) as src, ocl.make_memory(desc, engine) as dst:
            ocl.execute(primitive, stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst}).wait()
            gc.collect()
            assert watch() is None, "kept after its event completed"


def test_an_event_completing_lets_go_of_nothing_an_earlier_unfinished_execute_uses(engine, context):
    """On an out-of-order queue executes complete in any order: what one used is let go
    only once its event and those of every execute before it completed."""
    queue = cl.CommandQueue(context, properties=OUT_OF_ORDER)
    desc = f32_desc((4, 4), "ab")
    first_gate, second_gate = cl.UserEvent(context), cl.UserEvent(context)
    with ocl.make_stream(engine, queue) as stream, dnnl.reorder(desc, desc, engine) as primitive, \
            ocl.make_memory(desc, engine) as src, ocl.make_memory(desc, engine) as dst:
        args = {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst}
        try:
            first = ocl.execute(primitive, stream, args, deps=[first_gate])
            held_src = ocl.make_memory(desc, engine)
            watch = weakref.ref(held_src)
            held = ocl.execute(primitive, stream, {dnnl.ARG_FROM: held_src, dnnl.ARG_TO: dst}, deps=[second_gate])
            del held_src
            ocl.execute(primitive, stream, args).wait()  # runs before both
            first_gate.set_status(COMPLETE)
            first.wait()
            ocl.execute(primitive, stream, args).wait()  # lets go of what the first used
            ocl.execute(primitive, stream, args)  # and now of what completed after it
            gc.collect()
            assert held.command_execution_status != COMPLETE
            assert watch() is not None, "let go of while its work may still run"
        finally:
            for gate in (first_gate, second_gate):
                if gate.command_execution_status != COMPLETE:
                    gate.set_status(COMPLETE)
        stream.wait()
        assert watch() is None, "kept after the stream's wait"


@pytest.mark.parametrize("before", ["nothing", "a tracked execute", "a tracked execute and a wait"])
def test_a_later_event_completing_lets_go_of_nothing_an_earlier_plain_execute_still_uses(engine, context, before):
    """On an out-of-order queue only events order oneDNN's work: a later execute's event
    says nothing of a plain ``Primitive.execute`` before it, which oneDNN gives no event.

    A barrier waiting for a gate held shut holds the plain execute back. The later
    execute is over empty tensors: oneDNN enqueues nothing and gives back its
    dependency, complete already, as a quick kernel's event would complete first on
    a device that runs out-of-order work side by side. Whatever the stream ran
    before (its epochs then open differently), the plain execute is seen.
    """
    queue = cl.CommandQueue(context, properties=OUT_OF_ORDER)
    desc, empty = f32_desc((4, 4), "ab"), f32_desc((0, 4), "ab")
    gate, finished = cl.UserEvent(context), cl.UserEvent(context)
    finished.set_status(COMPLETE)
    with ocl.make_stream(engine, queue) as stream, dnnl.reorder(desc, desc, engine) as primitive, \
            dnnl.reorder(empty, empty, engine) as nothing, \
            ocl.make_memory(empty, engine) as empty_src, ocl.make_memory(empty, engine) as empty_dst, \
            ocl.make_memory(desc, engine) as src, ocl.make_memory(desc, engine) as dst:
        nothing_args = {dnnl.ARG_FROM: empty_src, dnnl.ARG_TO: empty_dst}
        if before != "nothing":
            ocl.execute(primitive, stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst}).wait()
            ocl.execute(nothing, stream, nothing_args, deps=[finished])  # lets go of the first
        if before.endswith("wait"):
            stream.wait()
        try:
            cl.enqueue_barrier(queue, wait_for=[gate])  # what is enqueued after it waits for the gate
            src = ocl.make_memory(desc, engine)
            watch = weakref.ref(src)
            primitive.execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: ocl.make_memory(desc, engine)})
            plain_done = cl.enqueue_marker(queue)  # completes once everything enqueued before it has
            del src
            event = ocl.execute(nothing, stream, nothing_args, deps=[finished])
            assert event.command_execution_status == COMPLETE
            ocl.execute(nothing, stream, nothing_args, deps=[finished])  # looks at what has finished
            gc.collect()
            assert plain_done.command_execution_status != COMPLETE
            assert watch() is not None, "let go of while the plain execute's work may still run"
        finally:
            gate.set_status(COMPLETE)
        plain_done.wait()
        queue.finish()
        ocl.execute(nothing, stream, nothing_args, deps=[finished])
        gc.collect()
        assert watch() is None, "kept after every event before it completed"


@pytest.mark.parametrize("properties", [0, OUT_OF_ORDER], ids=["in-order", "out-of-order"])
def test_a_reorder_between_usm_memories_moves_the_data(engine, context, properties):
    """oneDNN-allocated USM on both sides, f32 -> f16 transposed: read through map_data."""
    source = np.linspace(-6, 6, 6 * 7, dtype=np.float32).reshape(6, 7)
    src_desc = f32_desc(source.shape, "ab")
    dst_desc = dnnl.MemoryDesc(source.shape, "float16", "ba")
    with ocl.make_memory(src_desc, engine, ocl.MemoryKind.USM) as src, \
            ocl.make_memory(dst_desc, engine, ocl.MemoryKind.USM) as dst, \
            ocl.make_stream(engine, cl.CommandQueue(context, properties=properties)) as stream, \
            dnnl.reorder(src_desc, dst_desc, engine) as primitive:
        pointer = src.map_data()
        ffi.buffer(pointer, src_desc.size)[:] = source.tobytes()
        src.unmap_data(pointer)
        event = ocl.execute(primitive, stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
        assert (event is None) == (properties == 0)
        stream.wait()
        pointer = dst.map_data()
        out = np.frombuffer(ffi.buffer(pointer, dst_desc.size), np.float16).reshape(7, 6).copy()
        dst.unmap_data(pointer)
    np.testing.assert_array_equal(out, source.T.astype(np.float16))


@pytest.mark.parametrize("properties", [0, OUT_OF_ORDER], ids=["in-order", "out-of-order"])
def test_work_over_tensors_of_no_element_without_dependencies_is_an_execute_like_any(engine, context, properties):
    # oneDNN enqueues nothing for it and, on an out-of-order queue, answers its last dependency
    # as the work's event: with none given it read past an empty list and the process died.
    queue = cl.CommandQueue(context, properties=properties)
    stream = ocl.make_stream(engine, queue)
    desc = dnnl.MemoryDesc((0, 4), "f32", "ab")
    src, dst = ocl.make_memory(desc, engine), ocl.make_memory(desc, engine)
    event = ocl.execute(dnnl.reorder(desc, desc, engine), stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
    assert (event is not None) == bool(properties)
    if event is not None:
        event.wait()
    dnnl.reorder(desc, desc, engine).execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
    stream.wait()
