"""pyopencl Arrays as execute's inputs and outputs, ordered by their events, on real oneDNN, emulated GPU.

An execute on an OpenCL stream given memories made over ``pyopencl.array.Array``
objects runs after the Arrays' pending events and adds its completion event
to each Array, so pyopencl work before and after it is ordered without a
wait on the host. The emulated GPU's layer counts the calls that wait
(``host_waits()``); a gate (``pyopencl.UserEvent``) held shut
shows what waits for what. Results are checked against numpy.
"""

from __future__ import annotations

import gc
import time
import weakref

import numpy as np
import pyopencl as cl
import pyopencl.array as cl_array
import pytest

import dnnl_interop as dnnl
from dnnl_interop import ocl
from dnnl_interop.testing.emulated_gpu import HostWaits, host_waits

OUT_OF_ORDER = cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE
COMPLETE = cl.command_execution_status.COMPLETE
SHAPE = (64, 32)
# The stream's queue, and the queue the Arrays are made on.
QUEUES = {
    "in-order": (0, "same"),
    "out-of-order": (OUT_OF_ORDER, "same"),
    "arrays on another queue": (0, "another"),
    "out-of-order, arrays on another queue": (OUT_OF_ORDER, "another"),
}


def _data():
    return np.arange(np.prod(SHAPE), dtype=np.float32).reshape(SHAPE) - 1000


@pytest.fixture(scope="module")
def desc():
    with dnnl.MemoryDesc(SHAPE, "f32", "ab") as made:
        yield made


@pytest.fixture(scope="module")
def relu(engine, desc):
    with dnnl.EltwiseForwardDesc(engine, dnnl.AlgKind.ELTWISE_RELU, desc, desc) as pd, dnnl.Primitive(pd) as made:
        yield made


@pytest.fixture(params=list(QUEUES))
def queues(request, emulated_gpu):
    """(the stream's queue, the Arrays' queue)."""
    properties, arrays = QUEUES[request.param]
    queue = cl.CommandQueue(emulated_gpu.context, properties=properties)
    return queue, queue if arrays == "same" else cl.CommandQueue(emulated_gpu.context)


@pytest.fixture
def stream(engine, queues):
    with ocl.make_stream(engine, queues[0]) as made:
        yield made


@pytest.fixture
def gate(emulated_gpu):
    """A user event held shut: what waits for it cannot run early by luck. Opened at the
    end whatever happens, before the stream's close waits for the work behind it."""
    event = cl.UserEvent(emulated_gpu.context)
    yield event
    if event.command_execution_status != COMPLETE:
        event.set_status(COMPLETE)


def _memory(engine, desc, array):
    return ocl.make_memory(desc, engine, ocl.MemoryKind.BUFFER, array)


def _warm_up(queue):
    """Build pyopencl's kernels of the chain before counting (building waits for nothing, but is slow)."""
    warm = cl_array.zeros(queue, SHAPE, np.float32)
    ((warm * 2 + 1) * 3).get()


def _held_back(event, seconds=0.2):
    """Whether ``event`` stays incomplete for ``seconds`` after its queue was flushed."""
    time.sleep(seconds)
    return event.command_execution_status != COMPLETE


# --- the chain: pyopencl -> oneDNN -> pyopencl, no host wait -----------------------------------


@pytest.mark.parametrize("how", ["Primitive.execute", "ocl.execute"])
def test_a_pyopencl_onednn_pyopencl_chain_waits_on_the_host_only_for_its_result(
    engine, desc, relu, queues, stream, how, gate
):
    stream_queue, queue = queues
    _warm_up(queue)
    host = _data()
    x = cl_array.empty(queue, SHAPE, np.float32)
    y = cl_array.empty(queue, SHAPE, np.float32)
    before = host_waits()

    x.add_event(cl.enqueue_copy(queue, x.data, host, is_blocking=False, wait_for=[gate]))
    doubled = x * 2 + 1  # a pyopencl kernel, after the write
    args = {dnnl.ARG_SRC: _memory(engine, desc, doubled), dnnl.ARG_DST: _memory(engine, desc, y)}
    if how == "ocl.execute":
        ocl.execute(relu, stream, args)
    else:
        relu.execute(stream, args)
    tripled = y * 3  # a pyopencl kernel, after the ReLU
    stream_queue.flush()
    queue.flush()
    assert _held_back(tripled.events[-1]), "pyopencl's last kernel ran before the gate opened"
    gate.set_status(COMPLETE)
    waits = host_waits() - before

    result = tripled.get()
    np.testing.assert_array_equal(result, np.maximum(host * 2 + 1, 0) * 3)
    assert (waits.finish, waits.wait_for_events, waits.blocking_transfers) == (0, 0, 0)
    assert waits.status_queries < 8, "a loop polls event statuses"
    read = host_waits() - before - waits
    assert (read.finish, read.wait_for_events, read.blocking_transfers) == (0, 0, 1)  # .get(): one blocking read


def test_the_layer_counts_each_kind_of_host_wait(emulated_gpu):
    queue = cl.CommandQueue(emulated_gpu.context)
    data = np.ones(16, np.float32)
    buffer = cl.Buffer(emulated_gpu.context, cl.mem_flags.READ_WRITE, data.nbytes)
    before = host_waits()
    queue.finish()
    write = cl.enqueue_copy(queue, buffer, data, is_blocking=False)
    write.wait()
    read = cl.enqueue_copy(queue, data, buffer, is_blocking=True)
    marker = cl.enqueue_marker(queue)
    queue.flush()
    marker.command_execution_status  # noqa: B018 - the query is what is counted
    counted = host_waits() - before
    assert counted == HostWaits(finish=1, wait_for_events=1, blocking_transfers=1, status_queries=1)
    assert counted.waits == 3
    # A transfer from or to host memory gives a NannyEvent, whose end waits for it once more.
    assert (type(write).__name__, type(read).__name__) == ("NannyEvent", "NannyEvent")
    del write, read
    assert (host_waits() - before).wait_for_events == 3


# --- before: the Arrays' events ------------------------------------------------------------------


@pytest.mark.parametrize("arg", ["src", "dst"])
def test_the_work_waits_for_the_pending_events_of_every_array_it_is_given(
    engine, desc, relu, queues, stream, arg, gate
):
    stream_queue, queue = queues
    src, dst = cl_array.to_device(queue, _data()), cl_array.zeros(queue, SHAPE, np.float32)
    (src if arg == "src" else dst).add_event(gate)
    relu.execute(stream, {dnnl.ARG_SRC: _memory(engine, desc, src), dnnl.ARG_DST: _memory(engine, desc, dst)})
    completion = dst.events[-1]
    assert completion is not gate
    stream_queue.flush()
    assert _held_back(completion), "the ReLU ran before the gate opened"
    gate.set_status(COMPLETE)
    np.testing.assert_array_equal(dst.get(), np.maximum(_data(), 0))


def test_a_bound_execution_waits_for_the_arrays_events_at_each_call(engine, desc, relu, queues, stream, gate):
    stream_queue, queue = queues
    src, dst = cl_array.zeros(queue, SHAPE, np.float32), cl_array.zeros(queue, SHAPE, np.float32)
    with relu.bind(stream, {dnnl.ARG_SRC: _memory(engine, desc, src), dnnl.ARG_DST: _memory(engine, desc, dst)}) \
            as bound:
        bound.execute()
        src.add_event(cl.enqueue_copy(queue, src.data, _data(), is_blocking=False, wait_for=[gate]))
        bound.execute()  # after the copy, which the gate holds back
        completion = dst.events[-1]
        stream_queue.flush()
        queue.flush()
        assert _held_back(completion)
        gate.set_status(COMPLETE)
        np.testing.assert_array_equal(dst.get(), np.maximum(_data(), 0))
        bound.execute(wait=True)
        assert dst.events[-1].command_execution_status == COMPLETE


# --- after: the completion event on every Array ---------------------------------------------------


def test_the_completion_is_added_to_inputs_and_outputs_and_is_ocl_executes_event(engine, desc, relu, queues, stream):
    stream_queue, queue = queues
    src, dst = cl_array.to_device(queue, _data()), cl_array.zeros(queue, SHAPE, np.float32)
    args = {dnnl.ARG_SRC: _memory(engine, desc, src), dnnl.ARG_DST: _memory(engine, desc, dst)}
    event = ocl.execute(relu, stream, args)
    completion = src.events[-1]
    assert dst.events[-1] is completion
    if stream_queue.properties & OUT_OF_ORDER:
        assert event is completion  # oneDNN's own event
    else:
        assert event is None  # as ever on an in-order queue; the Arrays hold a marker
        assert completion.command_type == cl.command_type.MARKER
    completion.wait()
    np.testing.assert_array_equal(dst.get(), np.maximum(_data(), 0))


def test_lists_stay_short_and_nothing_waits_over_many_executions(engine, desc, relu, queues, stream):
    # pyopencl's add_event waits on the host once an Array lists more than a dozen events: the
    # plain events the completion stands for are dropped, so a long pipeline never gets there.
    _, queue = queues
    src, dst = cl_array.to_device(queue, _data()), cl_array.zeros(queue, SHAPE, np.float32)
    args = {dnnl.ARG_SRC: _memory(engine, desc, src), dnnl.ARG_DST: _memory(engine, desc, dst)}
    queue.finish()
    before = host_waits()
    for _ in range(40):
        relu.execute(stream, args)
    waits = host_waits() - before
    assert waits.waits == 0
    # The completion, after to_device's NannyEvent (which stays: dropping it would wait).
    assert ([type(e).__name__ for e in src.events], [type(e).__name__ for e in dst.events]) == \
        (["NannyEvent", "Event"], ["Event"])
    np.testing.assert_array_equal(dst.get(), np.maximum(_data(), 0))


def test_a_transfer_from_host_memory_stays_listed_until_pyopencl_waits_for_it(engine, desc, relu, queues, stream):
    # A NannyEvent keeps the host array alive until the copy is done; dropping it would wait.
    _, queue = queues
    src, dst = cl_array.empty(queue, SHAPE, np.float32), cl_array.zeros(queue, SHAPE, np.float32)
    src.set(_data(), async_=True)
    relu.execute(stream, {dnnl.ARG_SRC: _memory(engine, desc, src), dnnl.ARG_DST: _memory(engine, desc, dst)})
    assert [type(event).__name__ for event in src.events] == ["NannyEvent", "Event"]
    np.testing.assert_array_equal(dst.get(), np.maximum(_data(), 0))


def test_what_the_work_used_is_let_go_once_its_completion_event_completed(engine, desc, relu, queues, stream):
    # No stream wait: in a pyopencl pipeline only the Arrays' events tell when the work is done.
    _, queue = queues
    src, dst = cl_array.to_device(queue, _data()), cl_array.zeros(queue, SHAPE, np.float32)
    first = _memory(engine, desc, cl_array.to_device(queue, _data()))
    watch = weakref.ref(first)
    relu.execute(stream, {dnnl.ARG_SRC: first, dnnl.ARG_DST: _memory(engine, desc, dst)})
    del first
    gc.collect()
    assert watch() is not None, "let go of while its work may still run"
    dst.finish()  # pyopencl's wait, for the ReLU's completion
    relu.execute(stream, {dnnl.ARG_SRC: _memory(engine, desc, src), dnnl.ARG_DST: _memory(engine, desc, dst)})
    gc.collect()
    assert watch() is None, "kept after its completion event completed"


# --- what is not ordered by an Array --------------------------------------------------------------


def test_a_memory_given_another_buffer_no_longer_follows_its_first_array(engine, desc, relu, emulated_gpu):
    queue = cl.CommandQueue(emulated_gpu.context)
    array = cl_array.to_device(queue, _data())
    other = cl_array.to_device(queue, _data())
    with ocl.make_stream(engine, queue) as stream:
        src, dst = _memory(engine, desc, array), _memory(engine, desc, cl_array.zeros(queue, SHAPE, np.float32))
        ocl.set_mem_object(src, other.data)
        listed = list(array.events)
        relu.execute(stream, {dnnl.ARG_SRC: src, dnnl.ARG_DST: dst})
        assert array.events == listed
        stream.wait()


def test_memories_over_bare_buffers_take_the_plain_execute(engine, desc, relu, emulated_gpu):
    # No Array among the memories: oneDNN's own execute, no marker, nothing added anywhere.
    queue = cl.CommandQueue(emulated_gpu.context)
    src, dst = cl_array.to_device(queue, _data()), cl_array.zeros(queue, SHAPE, np.float32)
    listed = (list(src.events), list(dst.events))
    with ocl.make_stream(engine, queue) as stream:
        args = {dnnl.ARG_SRC: _memory(engine, desc, src.data), dnnl.ARG_DST: _memory(engine, desc, dst.data)}
        relu.execute(stream, args)
        assert stream._ledger.events == []  # nothing tracked: the stream's wait is the only way to know
        stream.wait()
    assert (src.events, dst.events) == listed
    np.testing.assert_array_equal(dst.get(), np.maximum(_data(), 0))
