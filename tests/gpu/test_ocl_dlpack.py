"""DLPack of OpenCL memory, on real oneDNN, emulated GPU.

OpenCL USM memory is a ``kDLOneAPI`` tensor over its own pointer. An OpenCL
buffer (``cl_mem``) is ``kDLOpenCL``, which no consumer reads: it is refused
with the reason, and copied to the host only when asked for
(``dl_device=(kDLCPU, 0)``, not with ``copy=False``).
"""

from __future__ import annotations

import numpy as np
import pyopencl as cl
import pytest

import dnnl_interop as dnnl
from dnnl_interop import ocl

from .test_ocl_interop import IntelUsm  # Intel's USM entry points for the emulated context

SHAPE = (4, 8)
DESC = dnnl.MemoryDesc(SHAPE, "float32", "ab")


def _data() -> np.ndarray:
    return np.arange(np.prod(SHAPE), dtype=np.float32).reshape(SHAPE)


@pytest.fixture
def usm(emulated_gpu):
    allocator = IntelUsm(emulated_gpu)
    yield allocator
    allocator.free_all()


def test_usm_memory_is_a_oneapi_tensor(engine, usm):
    address = usm.shared(DESC.size)
    memory = ocl.make_memory(DESC, engine, ocl.MemoryKind.USM, address)
    assert memory.__dlpack_device__() == (14, 0)
    assert memory.__sycl_usm_array_interface__["data"] == (address, False)
    again = dnnl.from_dlpack(memory, engine=engine)
    assert again.data_handle == address
    assert ocl.get_memory_kind(again) == ocl.MemoryKind.USM


def test_a_buffer_is_refused_or_copied_to_the_host_when_asked(engine, emulated_gpu):
    queue = cl.CommandQueue(emulated_gpu.context)
    buffer = cl.Buffer(emulated_gpu.context, cl.mem_flags.READ_WRITE, DESC.size)
    cl.enqueue_copy(queue, buffer, _data()).wait()
    memory = ocl.make_memory(DESC, engine, ocl.MemoryKind.BUFFER, buffer)
    assert memory.__dlpack_device__() == (4, 0)
    with pytest.raises(BufferError, match="cl_mem"):
        memory.__dlpack__(max_version=(1, 0))
    with pytest.raises(BufferError, match="copy=False"):
        memory.__dlpack__(max_version=(1, 0), dl_device=(1, 0), copy=False)
    assert not hasattr(memory, "__sycl_usm_array_interface__")
    host = np.from_dlpack(memory, device="cpu", copy=True)
    np.testing.assert_array_equal(host, _data())
