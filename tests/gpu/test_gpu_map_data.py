"""``memory.mapped()`` on GPU memory, on real oneDNN, emulated GPU.

Device memory (OpenCL buffers, device USM) is
mapped by oneDNN into a host copy that unmapping frees: the array is the
binding's own copy, written back at the end of the block and read-only
after it. Shared USM is the memory's own storage: the array is a view of it.
Judged by the data read back through pyopencl or a reorder.
"""

from __future__ import annotations

import gc

import numpy as np
import pyopencl as cl
import pytest

import dnnl_interop as dnnl
from dnnl_interop import ocl
from dnnl_interop._ffi import ffi

from .test_ocl_interop import IntelUsm  # Intel's USM entry points for the emulated context

SHAPE = (16, 8)


def _data(shape=SHAPE):
    return np.arange(np.prod(shape), dtype=np.float32).reshape(shape)


@pytest.fixture
def queue(emulated_gpu):
    return cl.CommandQueue(emulated_gpu.context)


@pytest.fixture
def usm(emulated_gpu):
    allocator = IntelUsm(emulated_gpu)
    yield allocator
    allocator.free_all()


def _buffer_memory(engine, queue, tag, data):
    desc = dnnl.MemoryDesc(SHAPE, "f32", tag)
    buffer = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE, desc.size)
    laid_out = np.ascontiguousarray(data if tag == "ab" else data.T)  # "ba": the transpose in memory
    cl.enqueue_copy(queue, buffer, laid_out).wait()
    return ocl.make_memory(desc, engine, ocl.MemoryKind.BUFFER, buffer), buffer


@pytest.mark.parametrize("tag", ["ab", "ba"])
def test_mapped_opencl_buffer_memory_reads_and_writes_back_the_buffer(engine, queue, tag):
    memory, buffer = _buffer_memory(engine, queue, tag, _data())
    with memory.mapped() as array:
        assert (array.shape, array.dtype) == (SHAPE, np.float32)
        assert array.strides == tuple(4 * s for s in memory.desc.strides)
        np.testing.assert_array_equal(array, _data())
        array *= 2
    laid_out = np.empty(SHAPE if tag == "ab" else SHAPE[::-1], np.float32)
    cl.enqueue_copy(queue, laid_out, buffer).wait()
    np.testing.assert_array_equal(laid_out if tag == "ab" else laid_out.T, _data() * 2)
    memory.close()


def test_after_the_block_the_array_of_device_memory_is_a_read_only_copy(engine, queue):
    memory, buffer = _buffer_memory(engine, queue, "ab", _data())
    with memory.mapped() as array:
        pass
    assert not array.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        array[0, 0] = 1
    cl.enqueue_copy(queue, buffer, np.zeros(SHAPE, np.float32)).wait()
    np.testing.assert_array_equal(array, _data())  # the data as it was written back, not the buffer now
    memory.close()


def test_an_exception_in_the_block_still_unmaps_and_writes_back(engine, queue):
    memory, _ = _buffer_memory(engine, queue, "ab", _data())
    with pytest.raises(KeyError), memory.mapped() as array:
        array[:] = 7
        raise KeyError("in the block")
    with memory.mapped() as again:  # mappable again: the first mapping ended
        np.testing.assert_array_equal(again, np.full(SHAPE, 7))
    memory.close()


def test_closing_a_mapped_memory_defers_its_destruction_to_the_end_of_the_block(engine, queue):
    memory, buffer = _buffer_memory(engine, queue, "ab", _data())
    desc = memory.desc  # held here: only the memory's handle goes
    live = dnnl._owned.live_objects()
    with memory.mapped() as array:
        memory.close()
        assert memory.closed and dnnl._owned.live_objects() == live
        array[:] = 3
    gc.collect()
    assert dnnl._owned.live_objects() == live - 1 and not desc.closed
    laid_out = np.empty(SHAPE, np.float32)
    cl.enqueue_copy(queue, laid_out, buffer).wait()
    np.testing.assert_array_equal(laid_out, np.full(SHAPE, 3))  # written back before the handle went


def test_mapped_onednn_usm_memory_is_a_copy_written_back(engine, queue):
    with dnnl.MemoryDesc(SHAPE, "f32", "ab") as desc:
        memory = ocl.make_memory(desc, engine, ocl.MemoryKind.USM)  # device USM, allocated by oneDNN
        with memory.mapped() as array:
            array[:] = _data()
        with memory.mapped() as again:
            np.testing.assert_array_equal(again, _data())
        # The device memory itself, read by a reorder into other USM memory and map_data.
        with ocl.make_memory(desc, engine, ocl.MemoryKind.USM) as dst, ocl.make_stream(engine, queue) as stream:
            ocl.execute(dnnl.reorder(desc, desc, engine), stream, {dnnl.ARG_FROM: memory, dnnl.ARG_TO: dst})
            stream.wait()
            pointer = dst.map_data()
            read = np.frombuffer(ffi.buffer(pointer, desc.size), np.float32).reshape(SHAPE).copy()
            dst.unmap_data(pointer)
        np.testing.assert_array_equal(read, _data())  # the write-back reached the device memory
        memory.close()


def test_mapped_shared_usm_is_a_view_of_it(engine, usm):
    with dnnl.MemoryDesc(SHAPE, "f32", "ba") as desc:
        address = usm.shared(desc.size)
        memory = ocl.make_memory(desc, engine, ocl.MemoryKind.USM, address)
        with memory.mapped() as array:
            assert array.ctypes.data == address  # no copy
            array[:] = _data()
        np.testing.assert_array_equal(usm.view(address, np.float32, SHAPE[::-1]), _data().T)  # "ba" in memory
        array[0, 0] = -1  # still the memory's storage after the block
        assert usm.view(address, np.float32, SHAPE[::-1])[0, 0] == -1
        memory.close()
        del array
        gc.collect()
