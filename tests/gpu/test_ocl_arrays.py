"""pyopencl.array.Array in and out of OpenCL buffer memory, on real oneDNN, emulated GPU.

``ocl.make_memory(desc, engine, MemoryKind.BUFFER, array)`` takes an Array's
buffer when its dtype, shape and strides are the descriptor's and it starts
at the beginning of its buffer; ``ocl.as_array(memory, queue)`` gives the
memory's buffer back as an Array, without a copy. Judged by the data
(``Array.get()``) and by cl_mem identity.
"""

from __future__ import annotations

import gc

import numpy as np
import pyopencl as cl
import pyopencl.array as cl_array
import pytest

import dnnl_interop as dnnl
from dnnl_interop import ocl

OUT_OF_ORDER = cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE
SHAPE = (64, 32)


def _data(shape=SHAPE):
    return np.arange(np.prod(shape), dtype=np.float32).reshape(shape)


@pytest.fixture
def queue(emulated_gpu):
    return cl.CommandQueue(emulated_gpu.context)


@pytest.fixture
def stream(engine, queue):
    with ocl.make_stream(engine, queue) as made:
        yield made


def _reorder(engine, stream, src, dst):
    ocl.execute(dnnl.reorder(src.desc, dst.desc, engine), stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
    stream.wait()


def test_a_reorder_between_two_arrays_transposes_the_data(engine, queue, stream):
    source = cl_array.to_device(queue, _data())
    target = cl_array.empty(queue, SHAPE, np.float32, order="F")  # the "ba" layout of SHAPE
    with dnnl.MemoryDesc(SHAPE, "f32", "ab") as src_desc, dnnl.MemoryDesc(SHAPE, "f32", "ba") as dst_desc:
        src = ocl.make_memory(src_desc, engine, ocl.MemoryKind.BUFFER, source)
        dst = ocl.make_memory(dst_desc, engine, ocl.MemoryKind.BUFFER, target)
        _reorder(engine, stream, src, dst)
    np.testing.assert_array_equal(target.get(), _data())  # the same matrix ...
    raw = np.empty(SHAPE[::-1], np.float32)
    cl.enqueue_copy(queue, raw, target.data).wait()
    np.testing.assert_array_equal(raw, _data().T)  # ... laid out transposed in the buffer
    src.close()
    dst.close()


def test_memory_over_an_array_uses_its_buffer_without_a_copy(engine, queue):
    array = cl_array.zeros(queue, SHAPE, np.float32)
    with dnnl.MemoryDesc.from_array(array) as desc, ocl.make_memory(desc, engine, handle=array) as memory:
        assert (desc.shape, desc.strides) == (SHAPE, (32, 1))
        assert ocl.get_memory_kind(memory) is ocl.MemoryKind.BUFFER
        assert ocl.get_mem_object(memory).int_ptr == array.data.int_ptr


def test_memory_constructor_takes_an_array_on_an_opencl_engine(engine, queue):
    array = cl_array.to_device(queue, _data())
    with dnnl.MemoryDesc(SHAPE, "f32", "ab") as desc, dnnl.Memory(desc, engine, array) as memory:
        assert ocl.get_mem_object(memory).int_ptr == array.data.int_ptr


@pytest.mark.parametrize(
    ("make", "kind", "error", "message"),
    [
        (lambda q: cl_array.zeros(q, (65, 32), np.float32)[1:], ocl.MemoryKind.BUFFER, ValueError,
         r"^handle: the Array starts 128 bytes into its buffer .*give array.copy\(\)"),
        (lambda q: cl_array.zeros(q, SHAPE, np.float64), ocl.MemoryKind.BUFFER, ValueError,
         r"^handle: an Array of float64, the descriptor holds float32"),
        (lambda q: cl_array.zeros(q, (32, 64), np.float32), ocl.MemoryKind.BUFFER, ValueError,
         r"^handle: the Array's layout \(shape \(32, 64\), strides \(256, 4\) bytes\) is not the descriptor's "
         r"\(shape \(64, 32\), strides \(128, 4\) bytes\); describe it with MemoryDesc.from_array"),
        (lambda q: cl_array.zeros(q, SHAPE, np.float32, order="F"), ocl.MemoryKind.BUFFER, ValueError,
         r"^handle: the Array's layout \(shape \(64, 32\), strides \(4, 256\) bytes\)"),
        (lambda q: cl_array.zeros(q, SHAPE, np.float32), ocl.MemoryKind.USM, TypeError,
         r"^handle: a pyopencl.array.Array holds an OpenCL buffer \(cl_mem\): use MemoryKind.BUFFER"),
    ],
    ids=["offset", "dtype", "shape", "strides", "usm"],
)
def test_an_array_that_does_not_fit_the_descriptor_is_refused(engine, queue, make, kind, error, message):
    with dnnl.MemoryDesc(SHAPE, "f32", "ab") as desc, pytest.raises(error, match=message):
        ocl.make_memory(desc, engine, kind, make(queue))


def test_an_array_of_another_context_is_refused(engine, emulated_gpu):
    context = cl.Context([emulated_gpu.device])  # held: a queue alone does not keep it here
    other = cl.CommandQueue(context)
    with dnnl.MemoryDesc(SHAPE, "f32", "ab") as desc, \
            pytest.raises(ValueError, match=r"^handle: of another OpenCL context than the engine's"):
        ocl.make_memory(desc, engine, ocl.MemoryKind.BUFFER, cl_array.zeros(other, SHAPE, np.float32))


@pytest.mark.parametrize("tag", ["ab", "ba"])
def test_as_array_is_the_memorys_buffer_with_the_descriptors_layout(engine, queue, stream, tag):
    source = cl_array.to_device(queue, _data())
    with dnnl.MemoryDesc(SHAPE, "f32", "ab") as src_desc, dnnl.MemoryDesc(SHAPE, "f32", tag) as dst_desc:
        src = ocl.make_memory(src_desc, engine, ocl.MemoryKind.BUFFER, source)
        dst = ocl.make_memory(dst_desc, engine)  # oneDNN allocates
        _reorder(engine, stream, src, dst)
        array = ocl.as_array(dst, queue)
        assert isinstance(array, cl_array.Array)
        assert (array.shape, array.dtype, array.strides) == (SHAPE, np.float32, tuple(4 * s for s in dst_desc.strides))
        assert array.data.int_ptr == ocl.get_mem_object(dst).int_ptr  # no copy
        np.testing.assert_array_equal(array.get(), _data())
        array.fill(5.0)  # writes through to the memory
        back = cl_array.empty(queue, SHAPE, np.float32)
        _reorder(engine, stream, dst, ocl.make_memory(src_desc, engine, ocl.MemoryKind.BUFFER, back))
        np.testing.assert_array_equal(back.get(), np.full(SHAPE, 5.0))
        src.close()
        dst.close()


def test_as_array_finishes_the_work_submitted_before(engine, emulated_gpu):
    queue = cl.CommandQueue(emulated_gpu.context, properties=OUT_OF_ORDER)
    other = cl.CommandQueue(emulated_gpu.context)
    source = cl_array.to_device(other, _data())
    with ocl.make_stream(engine, queue) as stream, dnnl.MemoryDesc(SHAPE, "f32", "ab") as desc:
        src = ocl.make_memory(desc, engine, ocl.MemoryKind.BUFFER, source)
        dst = ocl.make_memory(desc, engine)
        ocl.execute(dnnl.reorder(desc, desc, engine), stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
        # No wait, no event: as_array finishes the stream's work on dst first.
        np.testing.assert_array_equal(ocl.as_array(dst, other).get(), _data())
        src.close()
        dst.close()


def test_an_array_from_as_array_outlives_the_memory(engine, queue):
    with dnnl.MemoryDesc(SHAPE, "f32", "ab") as desc:
        memory = ocl.make_memory(desc, engine)
        array = ocl.as_array(memory, queue)
        array.set(_data())
        memory.close()
        del memory
        gc.collect()
        np.testing.assert_array_equal(array.get(), _data())  # the Array holds its own cl_mem reference


@pytest.mark.parametrize(
    ("case", "error", "message"),
    [
        ("usm", ValueError, "^memory: USM memory has no cl_mem"),
        ("none", ValueError, r"^memory: the memory has no buffer \(MEMORY_NONE\)"),
        ("bf16", TypeError, "^memory: numpy has no type for bf16"),
        ("blocked", TypeError, "^memory: the 'aBcd16b' layout is blocked"),
        ("closed", dnnl.ClosedObjectError, "closed"),
        ("not a queue", TypeError, "^queue: expected a pyopencl.CommandQueue, got pyopencl.Context"),
        ("another context", ValueError, "^queue: of another OpenCL context than the memory's"),
    ],
)
def test_as_array_refuses_what_no_array_describes(engine, emulated_gpu, queue, case, error, message):
    shape = (2, 16, 2, 2) if case == "blocked" else SHAPE
    dtype, tag = ("bf16" if case == "bf16" else "f32"), ("aBcd16b" if case == "blocked" else "ab")
    with dnnl.MemoryDesc(shape, dtype, tag) as desc:
        kind = ocl.MemoryKind.USM if case == "usm" else ocl.MemoryKind.BUFFER
        memory = ocl.make_memory(desc, engine, kind, dnnl.MEMORY_NONE if case == "none" else dnnl.MEMORY_ALLOCATE)
        if case == "closed":
            memory.close()
        context = cl.Context([emulated_gpu.device])  # held: a queue alone does not keep it here
        given = {"not a queue": emulated_gpu.context, "another context": cl.CommandQueue(context)}.get(case, queue)
        with pytest.raises(error, match=message):
            ocl.as_array(memory, given)
        memory.close()


# --- one call each way: Memory.from_array and to_array ------------------------------------------


def test_from_array_makes_buffer_memory_over_an_array_and_to_array_brings_any_layout_back(engine, queue, stream):
    source = cl_array.to_device(queue, _data())
    src = dnnl.Memory.from_array(source, engine)
    assert ocl.get_memory_kind(src) == ocl.MemoryKind.BUFFER
    assert ocl.get_mem_object(src).int_ptr == source.base_data.int_ptr  # its buffer: no copy
    with dnnl.MemoryDesc(SHAPE, "f32", "AB8b8a") as blocked_desc:
        blocked = dnnl.reordered(src, blocked_desc, stream)
        back = dnnl.to_array(blocked, stream)  # a new Array on the stream's queue
        assert isinstance(back, cl_array.Array) and back.shape == SHAPE and back.flags.c_contiguous
        np.testing.assert_array_equal(back.get(), _data())
        target = cl_array.empty(queue, SHAPE, np.float32, order="F")
        assert dnnl.to_array(blocked, stream, out=target) is target
        np.testing.assert_array_equal(target.get(), _data())
        host = np.zeros(SHAPE, np.float32)
        assert dnnl.to_array(blocked, stream, out=host) is host  # through a mapping
        np.testing.assert_array_equal(host, _data())
        with pytest.raises(ValueError, match=r"^out: shape \(32, 64\), the memory's is \(64, 32\)"):
            dnnl.to_array(blocked, stream, out=cl_array.empty(queue, SHAPE[::-1], np.float32))


def test_from_array_refuses_host_arrays_on_an_opencl_engine(engine):
    with pytest.raises(TypeError, match=r"^array: host memory \(a ndarray\) for an OpenCL engine"):
        dnnl.Memory.from_array(_data(), engine)
