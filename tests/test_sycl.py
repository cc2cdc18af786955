"""``dnnl_interop.sycl``: oneDNN's SYCL interop, as ``dnnl::sycl_interop``, on real
oneDNN 3.13 and dpctl, on the CPU device (SYCL over Intel's CPU OpenCL runtime).

Every function runs here on real SYCL objects: engines on dpctl's device and
context, streams on dpctl's queues, memory over shared USM arrays with dpctl's
``__sycl_usm_array_interface__`` (what dpnp arrays give), execution with SYCL
events. The GPU side runs on the emulated GPU (tests/gpu/test_sycl_gpu.py),
dpnp arrays in tests/test_sycl_dpnp.py. A library without the SYCL API (the
test-only stand-in) answers every function with MissingFunctionError.
"""

from __future__ import annotations

import gc
import os
import sys
import weakref

import numpy as np
import pytest

import dnnl_interop as dnnl
from dnnl_interop import sycl
from sycl_arrays import SharedArray
from sycl_buffers import Buffers, compile_buffers
from sycl_cases import CASES, chain_without_host_waits, shared_arrays


@pytest.fixture
def dpctl(real_dnnl):
    """dpctl, imported once oneDNN is loaded (its loader registers the CPU runtime dpctl sees)."""
    import dpctl

    return dpctl


@pytest.fixture
def queue(dpctl):
    return dpctl.SyclQueue("opencl:cpu", property="in_order")


@pytest.fixture
def engine(queue):
    with sycl.make_engine(queue.sycl_device, queue.sycl_context) as made:
        yield made


@pytest.fixture
def stream(engine, queue):
    with sycl.make_stream(engine, queue) as made:
        yield made


# --- engines ---------------------------------------------------------------------


def test_an_engine_on_dpctl_s_device_and_context_gives_them_back(engine, queue, dpctl):
    assert engine.kind == dnnl.EngineKind.CPU
    device, context = sycl.get_device(engine), sycl.get_context(engine)
    assert isinstance(device, dpctl.SyclDevice) and isinstance(context, dpctl.SyclContext)
    assert device == queue.sycl_device and context == queue.sycl_context


def test_an_engine_on_raw_addresses_is_the_same_device(queue):
    device, context = queue.sycl_device, queue.sycl_context
    with sycl.make_engine(device.addressof_ref(), context.addressof_ref()) as engine:
        assert sycl.get_device(engine) == device


def test_what_an_engine_gives_back_outlives_it(queue):
    engine = sycl.make_engine(queue.sycl_device, queue.sycl_context)
    device = sycl.get_device(engine)
    engine.close()
    assert device == queue.sycl_device and device.name == queue.sycl_device.name


@pytest.mark.parametrize(
    ("device", "context", "error", "match"),
    [
        (None, "context", TypeError, r"device: None given; a dpctl.SyclDevice or the address of a sycl::device"),
        ("context", "context", TypeError, r"device: expected a dpctl.SyclDevice .* got a dpctl.SyclContext"),
        ("queue", "context", TypeError, r"device: .* got a dpctl.SyclQueue \(its sycl_device is one\)"),
        ("device", "device", TypeError, r"context: .* got a dpctl.SyclDevice"),
        (0, "context", ValueError, r"device: a NULL sycl::device"),
        ("cpu", "context", TypeError, r"device: expected a dpctl.SyclDevice .* got a str"),
        (1.5, "context", TypeError, r"device: .* got a float"),
    ],
)
def test_make_engine_refuses_what_is_no_sycl_object_of_its_kind(queue, device, context, error, match):
    objects = {"device": queue.sycl_device, "context": queue.sycl_context, "queue": queue}
    with pytest.raises(error, match=match):
        sycl.make_engine(objects.get(device, device), objects.get(context, context))


def test_the_engine_keeps_the_python_objects_it_was_given(queue, dpctl):
    device = dpctl.SyclDevice("opencl:cpu")
    before = sys.getrefcount(device)
    engine = sycl.make_engine(device, queue.sycl_context)
    assert sys.getrefcount(device) == before + 1
    engine.close()
    gc.collect()
    assert sys.getrefcount(device) == before


# --- streams ---------------------------------------------------------------------


def test_a_stream_on_a_queue_gives_the_queue_back(stream, queue, dpctl):
    again = sycl.get_queue(stream)
    assert isinstance(again, dpctl.SyclQueue)
    assert again == queue and again.is_in_order


def test_a_stream_on_a_raw_queue_address(engine, queue):
    with sycl.make_stream(engine, queue.addressof_ref()) as stream:
        assert sycl.get_queue(stream) == queue


def test_make_stream_refuses_a_device_for_a_queue(engine, queue):
    with pytest.raises(TypeError, match=r"queue: expected a dpctl.SyclQueue .* got a dpctl.SyclDevice"):
        sycl.make_stream(engine, queue.sycl_device)


# --- memory ----------------------------------------------------------------------


def test_memory_over_a_usm_array_uses_its_pointer(engine, queue):
    array = SharedArray(queue, (3, 4), data=np.arange(12).reshape(3, 4))
    memory = dnnl.Memory.from_array(array, engine)
    assert memory.data_handle == array.pointer
    assert memory.desc.shape == (3, 4) and memory.desc.strides == (4, 1)
    assert sycl.get_memory_kind(memory) == sycl.MemoryKind.USM
    again = sycl.make_memory(memory.desc, engine, sycl.MemoryKind.USM, array)
    assert again.data_handle == array.pointer


def test_memory_keeps_the_array_alive(engine, queue):
    array = SharedArray(queue, (2, 2))
    ref = weakref.ref(array)
    memory = sycl.make_memory(dnnl.MemoryDesc((2, 2), "f32", "ab"), engine, sycl.MemoryKind.USM, array)
    del array
    gc.collect()
    assert ref() is not None
    memory.close()
    gc.collect()
    assert ref() is None


@pytest.mark.parametrize(
    ("shape", "dtype", "strides", "match"),
    [
        ((3, 4), "float32", (1, 3), r"handle: an array of strides \(1, 3\) \(elements\), the descriptor's are "),
        ((4, 3), "float32", None, r"handle: an array of shape \(4, 3\), the descriptor's shape is \(3, 4\)"),
        ((3, 4), "int32", None, r"handle: an array of int32, the descriptor's data type is f32"),
    ],
)
def test_an_array_that_is_not_the_descriptor_s_is_refused(engine, queue, shape, dtype, strides, match):
    array = SharedArray(queue, shape, dtype, strides=strides)
    with pytest.raises(ValueError, match=match):
        sycl.make_memory(dnnl.MemoryDesc((3, 4), "f32", "ab"), engine, sycl.MemoryKind.USM, array)


def test_a_read_only_array_is_refused(engine, queue):
    array = SharedArray(queue, (2, 2))
    array.read_only = True
    with pytest.raises(ValueError, match="handle: the array is read-only"):
        sycl.make_memory(dnnl.MemoryDesc((2, 2), "f32", "ab"), engine, sycl.MemoryKind.USM, array)


def test_a_pointer_sycl_does_not_know_in_the_engine_s_context_is_refused(engine, queue):
    host = np.zeros(4, np.float32)
    desc = dnnl.MemoryDesc((4,), "f32", "a")
    with pytest.raises(ValueError, match=r"handle: 0x[0-9a-f]+ is no USM allocation of the engine's SYCL context"):
        sycl.make_memory(desc, engine, sycl.MemoryKind.USM, host.ctypes.data)


def test_an_array_whose_pointer_is_not_of_the_engine_s_context_names_both_contexts(engine, queue):
    """An array claiming USM that SYCL does not know in the engine's context (here host
    memory behind a queue's interface): refused before oneDNN reads it."""

    class Foreign(SharedArray):
        @property
        def pointer(self):
            return self.host_copy.ctypes.data

    array = Foreign(queue, (2, 2))
    array.host_copy = np.zeros((2, 2), np.float32)
    with pytest.raises(ValueError, match=r"handle: USM of another SYCL context \(SYCL context 0x[0-9a-f]+ of .*\) "
                                         r"than the engine's \(SYCL context 0x[0-9a-f]+ of .*\)"):
        sycl.make_memory(dnnl.MemoryDesc((2, 2), "f32", "ab"), engine, sycl.MemoryKind.USM, array)


def test_memory_from_an_array_s_interface_asks_sycl_of_every_pointer_whatever_layouts_it_knows(engine, queue):
    """Memory.from_array remembers layouts, never pointers: an array of a layout seen before,
    whose pointer SYCL does not know in the engine's context, is refused all the same."""

    class Foreign(SharedArray):
        @property
        def pointer(self):
            return self.host_copy.ctypes.data

    known = SharedArray(queue, (2, 2), data=[[1, 2], [3, 4]])
    for _ in range(2):
        memory = dnnl.Memory.from_array(known, engine)
        assert memory.data_handle == known.pointer and memory.desc == dnnl.MemoryDesc((2, 2), "f32", "ab")
    foreign = Foreign(queue, (2, 2))
    foreign.host_copy = np.zeros((2, 2), np.float32)
    for _ in range(2):
        with pytest.raises(ValueError, match=r"array: USM of another SYCL context"):
            dnnl.Memory.from_array(foreign, engine)


def test_host_memory_is_taken_by_a_cpu_engine(engine, stream):
    source = np.arange(6, dtype=np.float32).reshape(2, 3)
    target = np.zeros((3, 2), np.float32)
    src = sycl.make_memory(dnnl.MemoryDesc((2, 3), "f32", "ab"), engine, sycl.MemoryKind.USM, source)
    dst = sycl.make_memory(dnnl.MemoryDesc((2, 3), "f32", "ba"), engine, sycl.MemoryKind.USM, target.T)
    dnnl.reorder(src.desc, dst.desc, engine).execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
    stream.wait()
    np.testing.assert_array_equal(target, source.T)


def test_allocated_memory_of_each_kind(engine):
    desc = dnnl.MemoryDesc((2, 2), "f32", "ab")
    usm = sycl.make_memory(desc, engine)
    buffer = sycl.make_memory(desc, engine, sycl.MemoryKind.BUFFER)
    assert sycl.get_memory_kind(usm) == sycl.MemoryKind.USM and usm.data_handle
    assert sycl.get_memory_kind(buffer) == sycl.MemoryKind.BUFFER


def test_buffer_memory_takes_no_host_array_and_no_usm_array(engine, queue):
    desc = dnnl.MemoryDesc((2, 2), "f32", "ab")
    with pytest.raises(TypeError, match="handle: host memory is no SYCL buffer"):
        sycl.make_memory(desc, engine, sycl.MemoryKind.BUFFER, np.zeros((2, 2), np.float32))
    with pytest.raises(TypeError, match=r"handle: an array holds USM; give it with sycl.MemoryKind.USM"):
        sycl.make_memory(desc, engine, sycl.MemoryKind.BUFFER, SharedArray(queue, (2, 2)))


def test_set_buffer_is_for_buffer_memory_and_set_data_handle_for_usm(engine, queue):
    desc = dnnl.MemoryDesc((2, 2), "f32", "ab")
    usm = sycl.make_memory(desc, engine)
    with pytest.raises(ValueError, match=r"memory: USM memory has no SYCL buffer; memory\.set_data_handle"):
        sycl.set_buffer(usm, 0x1000)
    buffer = sycl.make_memory(desc, engine, sycl.MemoryKind.BUFFER)
    with pytest.raises(ValueError, match=r"buffer: SYCL buffer memory takes another buffer with sycl\.set_buffer"):
        buffer.set_data_handle(SharedArray(queue, (2, 2)).pointer)
    with pytest.raises(ValueError, match="buffer: a NULL sycl::buffer"):
        sycl.set_buffer(buffer, 0)
    array = SharedArray(queue, (2, 2), data=[[1, 2], [3, 4]])
    usm.set_data_handle(array.pointer)
    assert usm.data_handle == array.pointer


@pytest.fixture(scope="module")
def buffers(tmp_path_factory):
    """SYCL buffers made in C++, as a user who holds one has them (no Python library makes one)."""
    return Buffers(compile_buffers(tmp_path_factory.mktemp("sycl-buffers")))


def test_set_buffer_makes_buffer_memory_use_a_sycl_buffer_made_in_cpp(engine, stream, buffers):
    desc = dnnl.MemoryDesc((2, 3), "f32", "ab")
    source = np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5
    address = buffers.make(desc.size)
    try:
        with sycl.make_memory(desc, engine, sycl.MemoryKind.BUFFER) as memory, \
                dnnl.Memory(desc, engine, source) as host, dnnl.reorder(desc, desc, engine) as copy:
            sycl.set_buffer(memory, address)
            copy.execute(stream, {dnnl.ARG_FROM: host, dnnl.ARG_TO: memory})
            stream.wait()
        assert np.array_equal(np.frombuffer(buffers.read(address, desc.size), np.float32).reshape(2, 3), source)
    finally:
        buffers.destroy(address)


def test_the_callers_buffer_may_go_once_set_buffer_returned(engine, stream, buffers):
    desc = dnnl.MemoryDesc((4,), "f32", "a")
    source, result = np.array([1.5, -2, 3, 4], np.float32), np.zeros(4, np.float32)
    with sycl.make_memory(desc, engine, sycl.MemoryKind.BUFFER) as memory, dnnl.Memory(desc, engine, source) as \
            host_source, dnnl.Memory(desc, engine, result) as host_result, dnnl.reorder(desc, desc, engine) as copy:
        address = buffers.make(desc.size)
        sycl.set_buffer(memory, address)
        buffers.destroy(address)  # oneDNN holds its own copy of the (reference-counted) buffer
        copy.execute(stream, {dnnl.ARG_FROM: host_source, dnnl.ARG_TO: memory})
        copy.execute(stream, {dnnl.ARG_FROM: memory, dnnl.ARG_TO: host_result})
        stream.wait()
    assert np.array_equal(result, source)


def test_make_memory_refuses_a_kind_of_another_runtime(engine):
    with pytest.raises(TypeError, match=r"kind: expected a sycl\.MemoryKind"):
        sycl.make_memory(dnnl.MemoryDesc((2,), "f32", "a"), engine, 7)


# --- execution -------------------------------------------------------------------


def test_execute_runs_a_reorder_over_usm_arrays_and_returns_its_event(engine, stream, queue, dpctl):
    source = SharedArray(queue, (3, 4), data=np.arange(12).reshape(3, 4))
    target = SharedArray(queue, (4, 3))
    src = dnnl.Memory.from_array(source, engine)
    dst = dnnl.Memory.from_array(_transposed(target), engine)
    event = sycl.execute(dnnl.reorder(src.desc, dst.desc, engine), stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
    assert isinstance(event, dpctl.SyclEvent)
    event.wait()
    np.testing.assert_array_equal(target.host, np.arange(12).reshape(3, 4).T)


def _transposed(array: SharedArray):
    """The (n, m) transpose of an (m, n) C-contiguous shared array: same USM, swapped strides."""

    class View:
        base = array

        @property
        def __sycl_usm_array_interface__(self):
            return {**array.__sycl_usm_array_interface__, "shape": array.shape[::-1], "strides": array.strides[::-1]}

    return View()


def test_execute_waits_for_its_deps_on_an_out_of_order_queue(engine, queue, dpctl):
    unordered = dpctl.SyclQueue(queue.sycl_context, queue.sycl_device)
    assert not unordered.is_in_order
    source = SharedArray(unordered, (2, 3))
    target = SharedArray(unordered, (2, 3))
    fill = unordered.memcpy_async(source.usm, _staged(unordered, 6), 24)  # the event execute waits for
    with sycl.make_stream(engine, unordered) as stream:
        src, dst = dnnl.Memory.from_array(source, engine), dnnl.Memory.from_array(target, engine)
        primitive = dnnl.reorder(src.desc, dst.desc, engine)
        event = sycl.execute(primitive, stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst}, deps=[fill])
        event.wait()
        np.testing.assert_array_equal(target.host, np.arange(6).reshape(2, 3))
        again = sycl.execute(primitive, stream, {dnnl.ARG_FROM: dst, dnnl.ARG_TO: src}, deps=[event.addressof_ref()])
        again.wait()


def _staged(queue, count):
    import dpctl.memory

    staged = dpctl.memory.MemoryUSMShared(4 * count, queue=queue)
    np.frombuffer(staged, np.float32)[:] = np.arange(count)
    return staged


@pytest.mark.parametrize(
    ("deps", "error", "match"),
    [
        ("event", TypeError, "deps: expected a sequence of SYCL events, got str"),
        ([None], TypeError, r"deps\[0\]: None given; a dpctl.SyclEvent"),
        (["queue"], TypeError, r"deps\[0\]: expected a dpctl.SyclEvent .* got a dpctl.SyclQueue"),
        ([0], ValueError, r"deps\[0\]: a NULL sycl::event"),
    ],
)
def test_execute_refuses_deps_that_are_no_events(engine, stream, queue, deps, error, match):
    src = sycl.make_memory(dnnl.MemoryDesc((2,), "f32", "a"), engine)
    primitive = dnnl.reorder(src.desc, src.desc, engine)
    if isinstance(deps, list):
        deps = [queue if d == "queue" else d for d in deps]
    with pytest.raises(error, match=match):
        sycl.execute(primitive, stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: src}, deps=deps)


# --- a library without the SYCL API ------------------------------------------------


def test_a_library_without_the_sycl_api_answers_missing_function(standin_dnnl):
    assert "dnnl_sycl_interop_engine_create" in standin_dnnl.missing
    with pytest.raises(dnnl.MissingFunctionError, match="dnnl_sycl_interop_engine_create") as caught:
        sycl.make_engine(0x1000, 0x2000)
    assert caught.value.function == "dnnl_sycl_interop_engine_create"


# --- primitives over USM arrays, against numpy ----------------------------------------


@pytest.mark.parametrize("case", sorted(CASES))
def test_primitives_over_shared_usm_arrays_match_numpy(engine, stream, queue, case):
    CASES[case](engine, stream, shared_arrays(queue))


def test_sycl_work_then_onednn_then_sycl_work_on_one_in_order_queue(engine, queue, dpctl):
    delivered, _ = chain_without_host_waits(engine, queue, dpctl)
    np.testing.assert_array_equal(delivered, np.arange(12, dtype=np.float32).reshape(3, 4).T)


def test_work_in_flight_keeps_the_arrays_of_dropped_memories_alive(engine, stream, queue):
    """Memories and arrays dropped while the work runs: the memories' handles and the
    arrays they keep live until the stream is waited for (close() would wait itself)."""
    source, target = SharedArray(queue, (64, 64), data=1.0), SharedArray(queue, (64, 64))
    refs = [weakref.ref(source), weakref.ref(target)]
    src, dst = dnnl.Memory.from_array(source, engine), dnnl.Memory.from_array(target, engine)
    host = target.host
    sycl.execute(dnnl.reorder(src.desc, dst.desc, engine), stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
    del src, dst, source, target
    gc.collect()
    assert all(ref() is not None for ref in refs)  # the work may still read and write them
    stream.wait()
    gc.collect()
    assert all(ref() is None for ref in refs)
    assert host.sum() == 64 * 64


# --- the testing toolkit ---------------------------------------------------------------


def test_sycl_devices_are_visible_to_dpctl_only_when_the_toolkit_starts_sycl(tmp_path):
    """In a fresh process: dpctl asking SYCL first sees no device and enable() says why;
    enable() first (dpctl imported or not) makes the CPU device visible."""
    import subprocess

    first = "import dpctl; dpctl.get_devices(); from dnnl_interop.testing import sycl_devices; sycl_devices.enable()"
    after = (
        "import dpctl; from dnnl_interop.testing import sycl_devices; "
        "print([d.filter_string for d in sycl_devices.enable()])"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("OCL_ICD_FILENAMES", "OCL_ICD_VENDORS")}
    late = subprocess.run([sys.executable, "-c", first], capture_output=True, text=True, env=env, timeout=120)
    assert late.returncode != 0
    assert "SyclDevicesError: dpctl sees no SYCL device: dpctl may have asked SYCL" in late.stderr
    good = subprocess.run([sys.executable, "-c", after], capture_output=True, text=True, env=env, timeout=120)
    assert good.returncode == 0, good.stderr
    assert "opencl:cpu:0" in good.stdout


def test_sycl_memory_reads_back_through_to_array_and_mapped(engine, stream, queue):
    array = SharedArray(queue, (3, 4), data=np.arange(12).reshape(3, 4))
    memory = dnnl.Memory.from_array(array, engine)
    np.testing.assert_array_equal(dnnl.to_array(memory, stream), np.arange(12).reshape(3, 4))
    with memory.mapped() as view:
        np.testing.assert_array_equal(view, np.arange(12).reshape(3, 4))
    with pytest.raises(TypeError, match="memory: not host memory"):
        np.asarray(memory)
