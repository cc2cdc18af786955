"""OpenCL interop engines, streams and memory on real oneDNN, emulated GPU.

The cases the test-only stand-in used to answer (tests/test_ocl.py), now
answered by real oneDNN 3.13 on the emulated Intel GPU, plus caller USM.
Ported from oneDNN's tests/gtests/ocl/api/test_{engine,memory_buffer,
memory_usm,stream}.cpp. OpenCL reference counts are read with
``clGet*Info(..._REFERENCE_COUNT)`` (pyopencl's ``reference_count``); a fresh
context or queue is made wherever a count is pinned, since oneDNN's primitive
cache keeps references to the contexts its kernels were built for.
"""

from __future__ import annotations

import gc
import sys
import weakref

import cffi
import numpy as np
import pyopencl as cl
import pytest

import dnnl_interop as dnnl
from dnnl_interop import ocl
from dnnl_interop._ffi import ffi
from dnnl_interop.testing import emulated_gpu as emulated

OUT_OF_ORDER = cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE


def f32_desc(shape, tag="ab"):
    return dnnl.MemoryDesc(shape, "float32", tag)


def write(queue, buffer, array):
    cl.enqueue_copy(queue, buffer, np.ascontiguousarray(array)).wait()


def read(queue, buffer, dtype, shape):
    out = np.empty(shape, dtype)
    cl.enqueue_copy(queue, out, buffer).wait()
    return out


def mapped(memory, dtype, count):
    """A copy of ``count`` elements of ``memory`` read through map_data."""
    pointer = memory.map_data()
    try:
        return np.frombuffer(ffi.buffer(pointer, count * np.dtype(dtype).itemsize), dtype).copy()
    finally:
        memory.unmap_data(pointer)


def store(memory, array):
    """Write ``array`` into ``memory`` through map_data."""
    pointer = memory.map_data()
    try:
        ffi.buffer(pointer, array.nbytes)[:] = np.ascontiguousarray(array).tobytes()
    finally:
        memory.unmap_data(pointer)


@pytest.fixture
def context(emulated_gpu):
    """A context of the test's own on the emulated device."""
    return cl.Context([emulated_gpu.device])


@pytest.fixture
def queue(emulated_gpu):
    return cl.CommandQueue(emulated_gpu.context)


@pytest.fixture(scope="module")
def pocl_device():
    devices = [d for p in cl.get_platforms() if "Portable Computing Language" in p.name for d in p.get_devices()]
    if not devices:
        pytest.fail("PoCL is not available: run scripts/setup-env.sh")
    return devices[0]


# --- engines -----------------------------------------------------------------------


def test_the_engine_holds_exactly_one_context_reference_while_it_lives(emulated_gpu, context):
    assert context.reference_count == 1
    engine = ocl.make_engine(emulated_gpu.device, context)
    assert context.reference_count == 2
    returned = ocl.get_context(engine)  # the returned object takes a reference of its own
    assert returned.int_ptr == context.int_ptr and context.reference_count == 3
    del returned
    engine.close()
    assert context.reference_count == 1


@pytest.mark.parametrize("form", ["int", "cffi pointer"])
def test_make_engine_takes_int_and_cffi_handles(emulated_gpu, context, form):
    device = emulated_gpu.device
    if form == "int":
        handles = device.int_ptr, context.int_ptr
    else:
        handles = ffi.cast("cl_device_id", device.int_ptr), ffi.cast("cl_context", context.int_ptr)
    with ocl.make_engine(*handles) as engine:
        assert ocl.get_device(engine).int_ptr == device.int_ptr
        assert ocl.get_context(engine).int_ptr == context.int_ptr
        assert context.reference_count == 2


def test_the_engine_keeps_the_python_objects_it_was_given_alive(emulated_gpu, context):
    # pyopencl objects take no weak references: count the strong ones.
    before = sys.getrefcount(context)
    engine = ocl.make_engine(emulated_gpu.device, context)
    assert sys.getrefcount(context) == before + 1
    engine.close()
    assert sys.getrefcount(context) == before


@pytest.mark.parametrize("which", ["device", "context"])
def test_a_null_device_or_context_is_refused_before_c(emulated_gpu, context, which):
    device, ctx = (None, context) if which == "device" else (emulated_gpu.device, None)
    with pytest.raises(TypeError, match=f"^{which}: None given"):
        ocl.make_engine(device, ctx)
    assert context.reference_count == 1


def test_a_device_and_a_context_that_do_not_belong_together_are_refused(emulated_gpu, pocl_device):
    pocl_context = cl.Context([pocl_device])
    with pytest.raises(dnnl.InvalidArgumentsError, match="dnnl_ocl_interop_engine_create"):
        ocl.make_engine(emulated_gpu.device, pocl_context)
    with pytest.raises(dnnl.InvalidArgumentsError, match="dnnl_ocl_interop_engine_create"):
        ocl.make_engine(pocl_device, emulated_gpu.context)
    assert pocl_context.reference_count == 1  # nothing retained on the way out


def test_a_device_that_is_not_an_intel_gpu_is_still_refused_beside_the_emulated_one(pocl_device):
    pocl_context = cl.Context([pocl_device])
    with pytest.raises(dnnl.InvalidArgumentsError, match="dnnl_ocl_interop_engine_create"):
        ocl.make_engine(pocl_device, pocl_context)
    assert pocl_context.reference_count == 1


def test_an_engine_made_from_a_cache_blob_gives_the_same_blob_and_device(emulated_gpu, engine, context):
    blob = ocl.get_engine_cache_blob(engine)
    blob_id = ocl.get_engine_cache_blob_id(emulated_gpu.device)
    assert blob and blob == ocl.get_engine_cache_blob(engine)
    with ocl.make_engine(emulated_gpu.device, context, blob) as again:
        assert ocl.get_engine_cache_blob(again) == blob
        assert ocl.get_device(again).int_ptr == emulated_gpu.device.int_ptr
        assert ocl.get_context(again).int_ptr == context.int_ptr
    assert ocl.get_engine_cache_blob_id(emulated_gpu.device) == blob_id


def test_a_cache_blob_is_ignored_once_oneDNN_knows_the_device(emulated_gpu, engine, context):
    # oneDNN caches device info per cl_device_id for the process: the module's
    # engine put it there, so a blob (well formed, or the binding refuses it
    # first) describing nothing real is accepted and not read.
    with ocl.make_engine(emulated_gpu.device, context, bytes(110)) as again:
        assert ocl.get_engine_cache_blob(again) == ocl.get_engine_cache_blob(engine)


def test_an_empty_cache_blob_is_refused_before_c(emulated_gpu, context):
    with pytest.raises(ValueError, match=r"^cache_blob: empty"):
        ocl.make_engine(emulated_gpu.device, context, b"")
    assert context.reference_count == 1


def test_the_cache_blob_of_no_engine_or_a_closed_one_is_refused_before_c(emulated_gpu, context):
    # oneDNN dereferences the engine before any check: NULL would crash.
    with pytest.raises(TypeError, match="engine"):
        ocl.get_engine_cache_blob(None)
    engine = ocl.make_engine(emulated_gpu.device, context)
    engine.close()
    with pytest.raises(dnnl.ClosedObjectError):
        ocl.get_engine_cache_blob(engine)


# --- streams -------------------------------------------------------------------------


@pytest.mark.parametrize("properties", [0, OUT_OF_ORDER], ids=["in-order", "out-of-order"])
def test_a_stream_returns_its_queue_and_holds_one_reference(emulated_gpu, engine, properties):
    queue = cl.CommandQueue(emulated_gpu.context, properties=properties)
    assert queue.reference_count == 1
    stream = ocl.make_stream(engine, queue)
    assert queue.reference_count == 2
    returned = ocl.get_command_queue(stream)
    assert isinstance(returned, cl.CommandQueue) and returned.int_ptr == queue.int_ptr
    assert returned.device.int_ptr == ocl.get_device(engine).int_ptr
    assert returned.context.int_ptr == ocl.get_context(engine).int_ptr
    assert returned.properties & OUT_OF_ORDER == properties
    assert queue.reference_count == 3
    del returned
    assert queue.reference_count == 2
    stream.close()
    assert queue.reference_count == 1


def test_a_stream_keeps_its_engine_alive(emulated_gpu, context):
    # oneDNN streams do not retain their engine; the binding must.
    engine = ocl.make_engine(emulated_gpu.device, context)
    engine_ref = weakref.ref(engine)
    stream = ocl.make_stream(engine, cl.CommandQueue(context))
    del engine
    gc.collect()
    assert engine_ref() is not None
    stream.close()
    gc.collect()
    assert engine_ref() is None
    assert context.reference_count == 1


def test_closing_the_engine_closes_its_streams_and_releases_their_queues(emulated_gpu, context):
    queue = cl.CommandQueue(context)
    engine = ocl.make_engine(emulated_gpu.device, context)
    stream = ocl.make_stream(engine, queue)
    assert queue.reference_count == 2
    engine.close()
    assert stream.closed and queue.reference_count == 1


def test_a_queue_of_another_context_or_device_is_refused(emulated_gpu, engine, pocl_device):
    for other in (cl.CommandQueue(cl.Context([emulated_gpu.device])), cl.CommandQueue(cl.Context([pocl_device]))):
        with pytest.raises(dnnl.InvalidArgumentsError, match="dnnl_ocl_interop_stream_create"):
            ocl.make_stream(engine, other)
        assert other.reference_count == 1


# --- buffer memory -------------------------------------------------------------------


def test_memory_none_has_kind_buffer_and_no_mem_object(engine):
    with ocl.make_memory(f32_desc((4, 4)), engine, handle=dnnl.MEMORY_NONE) as memory:
        assert ocl.get_memory_kind(memory) is ocl.MemoryKind.BUFFER
        assert ocl.get_mem_object(memory) is None


def test_allocated_buffer_memory_is_a_buffer_of_the_descriptor_size_holding_the_data(engine, queue):
    desc = f32_desc((4, 8))
    values = np.arange(32, dtype=np.float32)
    with ocl.make_memory(desc, engine, ocl.MemoryKind.BUFFER, dnnl.MEMORY_ALLOCATE) as memory:
        assert ocl.get_memory_kind(memory) is ocl.MemoryKind.BUFFER
        buffer = ocl.get_mem_object(memory)
        assert isinstance(buffer, cl.Buffer) and buffer.size == desc.size
        assert buffer.context.int_ptr == ocl.get_context(engine).int_ptr
        write(queue, buffer, values)
        np.testing.assert_array_equal(mapped(memory, np.float32, 32), values)


@pytest.mark.parametrize("form", ["pyopencl.Buffer", "int"])
def test_memory_over_a_callers_buffer_uses_it_and_releases_it_when_closed(emulated_gpu, engine, queue, form):
    desc = f32_desc((4, 4))
    buffer = cl.Buffer(emulated_gpu.context, cl.mem_flags.READ_WRITE, desc.size)
    values = np.linspace(-1, 1, 16, dtype=np.float32)
    write(queue, buffer, values)
    handle = buffer.int_ptr if form == "int" else buffer
    memory = ocl.make_memory(desc, engine, ocl.MemoryKind.BUFFER, handle)
    assert ocl.get_memory_kind(memory) is ocl.MemoryKind.BUFFER
    assert ocl.get_mem_object(memory).int_ptr == buffer.int_ptr
    assert buffer.reference_count == 2  # pyopencl's and oneDNN's
    np.testing.assert_array_equal(mapped(memory, np.float32, 16), values)
    store(memory, values * 2)
    np.testing.assert_array_equal(read(queue, buffer, np.float32, 16), values * 2)
    memory.close()
    assert buffer.reference_count == 1


def test_a_pyopencl_buffer_smaller_than_the_descriptor_is_refused(emulated_gpu, engine):
    desc = f32_desc((4, 4))
    small = cl.Buffer(emulated_gpu.context, cl.mem_flags.READ_WRITE, desc.size - 4)
    with pytest.raises(ValueError, match="needs 64"):
        ocl.make_memory(desc, engine, handle=small)
    with ocl.make_memory(desc, engine) as memory:
        with pytest.raises(ValueError, match="needs 64"):
            ocl.set_mem_object(memory, small)
    assert small.reference_count == 1


def test_set_mem_object_replaces_and_clears_the_buffer(emulated_gpu, engine, queue):
    desc = f32_desc((2, 2))
    first = cl.Buffer(emulated_gpu.context, cl.mem_flags.READ_WRITE, desc.size)
    second = cl.Buffer(emulated_gpu.context, cl.mem_flags.READ_WRITE, desc.size)
    write(queue, second, np.array([1, 2, 3, 4], np.float32))
    with ocl.make_memory(desc, engine, handle=first) as memory:
        ocl.set_mem_object(memory, second)
        assert ocl.get_mem_object(memory).int_ptr == second.int_ptr
        assert (first.reference_count, second.reference_count) == (1, 2)
        np.testing.assert_array_equal(mapped(memory, np.float32, 4), [1, 2, 3, 4])
        ocl.set_mem_object(memory, second)  # the same buffer again changes nothing
        assert second.reference_count == 2
        ocl.set_mem_object(memory, None)
        assert ocl.get_mem_object(memory) is None
        assert second.reference_count == 1


def test_memory_none_then_set_mem_object_takes_the_callers_buffer(emulated_gpu, engine, queue):
    desc = f32_desc((2, 3))
    buffer = cl.Buffer(emulated_gpu.context, cl.mem_flags.READ_WRITE, desc.size)
    write(queue, buffer, np.arange(6, dtype=np.float32))
    with ocl.make_memory(desc, engine, ocl.MemoryKind.BUFFER, dnnl.MEMORY_NONE) as memory:
        ocl.set_mem_object(memory, buffer.int_ptr)
        assert ocl.get_mem_object(memory).int_ptr == buffer.int_ptr
        assert buffer.reference_count == 2
        np.testing.assert_array_equal(mapped(memory, np.float32, 6), np.arange(6))
    assert buffer.reference_count == 1


def test_a_sequence_of_handles_uses_the_multi_handle_function(emulated_gpu, engine, queue):
    desc = f32_desc((2, 2))
    buffer = cl.Buffer(emulated_gpu.context, cl.mem_flags.READ_WRITE, desc.size)
    write(queue, buffer, np.array([5, 6, 7, 8], np.float32))
    with ocl.make_memory(desc, engine, ocl.MemoryKind.BUFFER, [buffer]) as memory:
        assert ocl.get_mem_object(memory).int_ptr == buffer.int_ptr
        np.testing.assert_array_equal(mapped(memory, np.float32, 4), [5, 6, 7, 8])
    with ocl.make_memory(desc, engine, ocl.MemoryKind.BUFFER, []) as allocated:
        assert ocl.get_mem_object(allocated).size == desc.size


def test_memory_keeps_its_buffer_object_alive(emulated_gpu, engine):
    # pyopencl objects take no weak references: count the strong ones.
    desc = f32_desc((2, 2))
    buffer = cl.Buffer(emulated_gpu.context, cl.mem_flags.READ_WRITE, desc.size)
    before = sys.getrefcount(buffer)
    memory = ocl.make_memory(desc, engine, handle=buffer)
    assert sys.getrefcount(buffer) == before + 1
    memory.close()
    assert sys.getrefcount(buffer) == before


# --- USM ---------------------------------------------------------------------------

CL_MEM_ALLOC_TYPE_INTEL = 0x419A
USM_TYPES = {0x4196: "unknown", 0x4197: "host", 0x4198: "device", 0x4199: "shared"}


class IntelUsm:
    """Intel's cl_intel_unified_shared_memory functions for one context.

    pyopencl has no USM API; the functions are extension entry points got
    with ``clGetExtensionFunctionAddressForPlatform`` through the OpenCL
    loader pyopencl has already loaded, and called through cffi.
    """

    _ffi = cffi.FFI()
    _ffi.cdef(
        """
        void *clGetExtensionFunctionAddressForPlatform(void *platform, const char *name);
        typedef void *(*shared_alloc_t)(void *context, void *device, const uint64_t *properties,
                                        size_t size, unsigned alignment, int *error);
        typedef int (*free_t)(void *context, void *pointer);
        typedef int (*alloc_info_t)(void *context, const void *pointer, unsigned name,
                                    size_t size, void *value, size_t *size_out);
        """
    )

    def __init__(self, gpu):
        ffi_, loader = self._ffi, self._ffi.dlopen(emulated.opencl_loaders_loaded()[0])
        platform = ffi_.cast("void *", gpu.platform.int_ptr)

        def entry(name, ctype):
            address = loader.clGetExtensionFunctionAddressForPlatform(platform, name.encode())
            assert address != ffi_.NULL, f"{name} missing from {gpu.platform.name}"
            return ffi_.cast(ctype, address)

        self._alloc = entry("clSharedMemAllocINTEL", "shared_alloc_t")
        self._free = entry("clMemBlockingFreeINTEL", "free_t")
        self._info = entry("clGetMemAllocInfoINTEL", "alloc_info_t")
        self._context = ffi_.cast("void *", gpu.context.int_ptr)
        self._device = ffi_.cast("void *", gpu.device.int_ptr)
        self._live: list[int] = []

    def shared(self, nbytes: int) -> int:
        error = self._ffi.new("int *")
        pointer = self._alloc(self._context, self._device, self._ffi.NULL, nbytes, 0, error)
        assert error[0] == 0 and pointer != self._ffi.NULL, f"clSharedMemAllocINTEL: {error[0]}"
        address = int(self._ffi.cast("uintptr_t", pointer))
        self._live.append(address)
        return address

    def view(self, address: int, dtype, shape) -> np.ndarray:
        """A numpy array over shared USM (host-accessible)."""
        count = int(np.prod(shape))
        raw = self._ffi.buffer(self._ffi.cast("void *", address), count * np.dtype(dtype).itemsize)
        return np.frombuffer(raw, dtype).reshape(shape)

    def kind(self, address: int) -> str:
        value = self._ffi.new("unsigned *")
        status = self._info(self._context, self._ffi.cast("void *", address), CL_MEM_ALLOC_TYPE_INTEL,
                            self._ffi.sizeof("unsigned"), value, self._ffi.NULL)
        assert status == 0, f"clGetMemAllocInfoINTEL: {status}"
        return USM_TYPES[value[0]]

    def free_all(self):
        while self._live:
            assert self._free(self._context, self._ffi.cast("void *", self._live.pop())) == 0


@pytest.fixture
def usm(emulated_gpu):
    assert "cl_intel_unified_shared_memory" in emulated_gpu.device.extensions
    allocator = IntelUsm(emulated_gpu)
    yield allocator
    allocator.free_all()


@pytest.mark.parametrize("form", ["int", "numpy view"])
def test_memory_over_callers_shared_usm_uses_that_pointer(engine, usm, form):
    desc = f32_desc((3, 4))
    address = usm.shared(desc.size)
    assert usm.kind(address) == "shared"
    host = usm.view(address, np.float32, (3, 4))
    host[:] = np.arange(12).reshape(3, 4)
    with ocl.make_memory(desc, engine, ocl.MemoryKind.USM, address if form == "int" else host) as memory:
        assert ocl.get_memory_kind(memory) is ocl.MemoryKind.USM
        assert memory.data_handle == address
        np.testing.assert_array_equal(mapped(memory, np.float32, 12), np.arange(12))
        store(memory, np.full(12, 7, np.float32))
    np.testing.assert_array_equal(host, np.full((3, 4), 7))  # oneDNN's writes land in the caller's USM


def test_usm_memory_allocated_by_onednn_is_device_usm_usable_through_map_data(engine, usm):
    desc = f32_desc((2, 2))
    with ocl.make_memory(desc, engine, ocl.MemoryKind.USM, dnnl.MEMORY_ALLOCATE) as memory:
        assert ocl.get_memory_kind(memory) is ocl.MemoryKind.USM
        assert memory.data_handle != 0
        assert usm.kind(memory.data_handle) == "device"
        store(memory, np.array([1.5, -2, 3, 4e6], np.float32))
        np.testing.assert_array_equal(mapped(memory, np.float32, 4), [1.5, -2, 3, 4e6])


def test_usm_memory_none_has_no_pointer(engine):
    with ocl.make_memory(f32_desc((2, 2)), engine, ocl.MemoryKind.USM, None) as memory:
        assert ocl.get_memory_kind(memory) is ocl.MemoryKind.USM
        assert memory.data_handle == 0


def test_a_usm_pointer_of_onednn_round_trips_into_another_memory(engine):
    desc = f32_desc((2, 2))
    with ocl.make_memory(desc, engine, ocl.MemoryKind.USM) as owner:
        store(owner, np.array([9, 8, 7, 6], np.float32))
        with ocl.make_memory(desc, engine, ocl.MemoryKind.USM, owner.data_handle) as user:
            assert user.data_handle == owner.data_handle
            np.testing.assert_array_equal(mapped(user, np.float32, 4), [9, 8, 7, 6])


def test_host_memory_and_stray_pointers_are_not_usm(engine, usm):
    # oneDNN asks clGetMemAllocInfoINTEL: a malloc'ed pointer is of unknown type.
    host = np.zeros(4, np.float32)
    assert usm.kind(host.ctypes.data) == "unknown"
    for pointer in (host, 0x1000):
        with pytest.raises(dnnl.InvalidArgumentsError, match="dnnl_ocl_interop_memory_create"):
            ocl.make_memory(f32_desc((2, 2)), engine, ocl.MemoryKind.USM, pointer)


def _mem_object_of_usm_memory():
    gpu = emulated.enable()
    with ocl.make_engine(gpu.device, gpu.context) as engine:
        with ocl.make_memory(f32_desc((2, 2)), engine, ocl.MemoryKind.USM) as memory:
            try:
                return repr(ocl.get_mem_object(memory))
            except (TypeError, ValueError) as exc:
                return type(exc).__name__


def test_get_mem_object_of_usm_memory_does_not_take_the_pointer_for_a_cl_mem():
    # oneDNN answers a USM memory's pointer cast to cl_mem: retaining it as a
    # buffer would crash the process, hence a child.
    answer = emulated.run_in_child(_mem_object_of_usm_memory)
    assert answer in ("None", "TypeError", "ValueError")

