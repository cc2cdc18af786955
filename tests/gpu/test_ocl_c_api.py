"""oneDNN's OpenCL interop C API itself, through raw ``lib.*`` calls: real oneDNN, emulated GPU.

What the binding builds on, seen without it: handles round-trip, oneDNN's
getters hand out un-retained handles, what it retains it releases, the size
protocols of the blob id and the cache blob are exact, ``*ret`` is NULL on
in-order queues and an owned event on out-of-order ones, and a reorder moves
the data. Ported from the stand-in's former smoke tests;
real oneDNN answers them now.
"""

from __future__ import annotations

import struct

import numpy as np
import pyopencl as cl
import pytest

from dnnl_interop._ffi import ffi, lib

SUCCESS, INVALID_ARGUMENTS, RUNTIME_ERROR = 0, 2, 5
OUT_OF_ORDER = cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE


def handle(ctype: str, cl_object):
    return ffi.cast(ctype, cl_object.int_ptr)


def address(pointer) -> int:
    return int(ffi.cast("uintptr_t", pointer))


@pytest.fixture
def context(emulated_gpu):
    """A context of the test's own: its reference count starts at 1."""
    return cl.Context([emulated_gpu.device])


@pytest.fixture
def raw_engine(emulated_gpu, context):
    out = ffi.new("dnnl_engine_t *")
    status = lib.dnnl_ocl_interop_engine_create(
        out, handle("cl_device_id", emulated_gpu.device), handle("cl_context", context)
    )
    assert status == SUCCESS
    yield out[0]
    assert lib.dnnl_engine_destroy(out[0]) == SUCCESS


@pytest.fixture
def created():
    """Handles to destroy after the test, in reverse order: append (destroy, handle)."""
    made: list = []
    yield made
    for destroy, object_handle in reversed(made):
        assert destroy(object_handle) == SUCCESS


def make_md(created, dims, tag, data_type=None):
    out = ffi.new("dnnl_memory_desc_t *")
    c_dims = ffi.new("dnnl_dims_t", list(dims))
    data_type = lib.dnnl_f32 if data_type is None else data_type
    assert lib.dnnl_memory_desc_create_with_tag(out, len(dims), c_dims, data_type, tag) == SUCCESS
    created.append((lib.dnnl_memory_desc_destroy, out[0]))
    return out[0]


def make_memory(created, md, engine, kind, pointer):
    out = ffi.new("dnnl_memory_t *")
    assert lib.dnnl_ocl_interop_memory_create(out, md, engine, kind, pointer) == SUCCESS
    created.append((lib.dnnl_memory_destroy, out[0]))
    return out[0]


def make_stream(created, engine, queue):
    out = ffi.new("dnnl_stream_t *")
    assert lib.dnnl_ocl_interop_stream_create(out, engine, handle("cl_command_queue", queue)) == SUCCESS
    created.append((lib.dnnl_stream_destroy, out[0]))
    return out[0]


def make_reorder(created, engine, src_md, dst_md):
    pd = ffi.new("dnnl_primitive_desc_t *")
    assert lib.dnnl_reorder_primitive_desc_create(pd, src_md, engine, dst_md, engine, ffi.NULL) == SUCCESS
    created.append((lib.dnnl_primitive_desc_destroy, pd[0]))
    primitive = ffi.new("dnnl_primitive_t *")
    assert lib.dnnl_primitive_create(primitive, pd[0]) == SUCCESS
    created.append((lib.dnnl_primitive_destroy, primitive[0]))
    return primitive[0]


def sized(function, *args) -> bytes:
    size = ffi.new("size_t *")
    assert function(*args, size, ffi.NULL) == SUCCESS
    buffer = ffi.new("uint8_t[]", size[0])
    assert function(*args, size, buffer) == SUCCESS
    return bytes(buffer)


def test_the_engine_round_trips_its_handles_and_getters_do_not_retain(emulated_gpu, context):
    device = handle("cl_device_id", emulated_gpu.device)
    ctx = handle("cl_context", context)
    out = ffi.new("dnnl_engine_t *")
    assert lib.dnnl_ocl_interop_engine_create(out, device, ctx) == SUCCESS
    engine = out[0]
    try:
        assert context.reference_count == 2
        got_device, got_context = ffi.new("cl_device_id *"), ffi.new("cl_context *")
        assert lib.dnnl_ocl_interop_get_device(engine, got_device) == SUCCESS
        assert lib.dnnl_ocl_interop_engine_get_context(engine, got_context) == SUCCESS
        assert address(got_device[0]) == emulated_gpu.device.int_ptr
        assert address(got_context[0]) == context.int_ptr
        assert context.reference_count == 2  # un-retained
        kind = ffi.new("dnnl_engine_kind_t *")
        assert lib.dnnl_engine_get_kind(engine, kind) == SUCCESS
        assert kind[0] == lib.dnnl_gpu
    finally:
        assert lib.dnnl_engine_destroy(engine) == SUCCESS
    assert context.reference_count == 1
    assert lib.dnnl_ocl_interop_engine_create(out, ffi.NULL, ctx) == INVALID_ARGUMENTS
    assert lib.dnnl_ocl_interop_engine_create(out, device, ffi.NULL) == INVALID_ARGUMENTS
    assert context.reference_count == 1


def test_the_blob_id_layout_names_platform_device_driver_and_onednn(emulated_gpu):
    device = emulated_gpu.device
    blob = sized(lib.dnnl_ocl_interop_engine_get_cache_blob_id, handle("cl_device_id", device))
    version = lib.dnnl_version()
    prefix = b""
    for text in (device.platform.name, device.name, device.driver_version):
        prefix += struct.pack("N", len(text) + 1) + text.encode() + b"\0"
    prefix += struct.pack("3i", version.major, version.minor, version.patch)
    assert blob.startswith(prefix)
    (hash_length,) = struct.unpack_from("N", blob, len(prefix))
    assert blob[len(prefix) + struct.calcsize("N"):] == ffi.string(version.hash)
    assert hash_length == len(ffi.string(version.hash)) == 40


def test_the_blob_id_fill_needs_the_exact_size(emulated_gpu):
    device = handle("cl_device_id", emulated_gpu.device)
    n = len(sized(lib.dnnl_ocl_interop_engine_get_cache_blob_id, device))
    size = ffi.new("size_t *")
    for wrong in (n - 1, n + 1):
        size[0] = wrong
        buffer = ffi.new("uint8_t[]", n + 1)
        assert lib.dnnl_ocl_interop_engine_get_cache_blob_id(device, size, buffer) == INVALID_ARGUMENTS
        assert bytes(buffer) == bytes(n + 1)  # nothing written
    # A NULL device is oneDNN's CL_INVALID_DEVICE: 5, and *size is untouched.
    size[0] = 12345
    assert lib.dnnl_ocl_interop_engine_get_cache_blob_id(ffi.NULL, size, ffi.NULL) == RUNTIME_ERROR
    assert size[0] == 12345
    assert lib.dnnl_ocl_interop_engine_get_cache_blob_id(device, ffi.NULL, ffi.NULL) == INVALID_ARGUMENTS


def test_the_cache_blob_fill_needs_the_exact_size_and_an_empty_blob_makes_no_engine(emulated_gpu, raw_engine, context):
    blob = sized(lib.dnnl_ocl_interop_engine_get_cache_blob, raw_engine)
    assert blob
    size = ffi.new("size_t *")
    for wrong in (len(blob) - 1, len(blob) + 1):
        size[0] = wrong
        buffer = ffi.new("uint8_t[]", len(blob) + 1)
        assert lib.dnnl_ocl_interop_engine_get_cache_blob(raw_engine, size, buffer) == INVALID_ARGUMENTS
        assert bytes(buffer) == bytes(len(blob) + 1)
    device, ctx = handle("cl_device_id", emulated_gpu.device), handle("cl_context", context)
    out = ffi.new("dnnl_engine_t *")
    c_blob = ffi.new("uint8_t[]", blob)
    assert lib.dnnl_ocl_interop_engine_create_from_cache_blob(out, device, ctx, 0, c_blob) == INVALID_ARGUMENTS
    create = lib.dnnl_ocl_interop_engine_create_from_cache_blob
    assert create(out, device, ctx, len(blob), ffi.NULL) == INVALID_ARGUMENTS
    assert context.reference_count == 2  # the fixture's engine only
    assert lib.dnnl_ocl_interop_engine_create_from_cache_blob(out, device, ctx, len(blob), c_blob) == SUCCESS
    try:
        assert sized(lib.dnnl_ocl_interop_engine_get_cache_blob, out[0]) == blob
    finally:
        assert lib.dnnl_engine_destroy(out[0]) == SUCCESS


def test_a_stream_on_a_queue_retains_it_and_hands_it_back_unretained(raw_engine, context):
    queue = cl.CommandQueue(context)
    stream = make_stream([], raw_engine, queue)  # destroyed by the test itself
    assert queue.reference_count == 2
    got = ffi.new("cl_command_queue *")
    assert lib.dnnl_ocl_interop_stream_get_command_queue(stream, got) == SUCCESS
    assert address(got[0]) == queue.int_ptr
    assert queue.reference_count == 2
    assert lib.dnnl_stream_wait(stream) == SUCCESS
    assert lib.dnnl_stream_destroy(stream) == SUCCESS
    assert queue.reference_count == 1

    other_queue = cl.CommandQueue(cl.Context([queue.device]))
    out = ffi.new("dnnl_stream_t *")
    status = lib.dnnl_ocl_interop_stream_create(out, raw_engine, handle("cl_command_queue", other_queue))
    assert status == INVALID_ARGUMENTS
    assert other_queue.reference_count == 1


def test_buffer_memory_round_trip(raw_engine, context, created):
    md = make_md(created, (2, 3), lib.dnnl_ab)
    buffer = cl.Buffer(context, cl.mem_flags.READ_WRITE, size=24)
    queue = cl.CommandQueue(context)
    memory = make_memory([], md, raw_engine, lib.dnnl_ocl_interop_buffer, ffi.cast("void *", buffer.int_ptr))
    try:
        assert buffer.reference_count == 2
        got = ffi.new("cl_mem *")
        assert lib.dnnl_ocl_interop_memory_get_mem_object(memory, got) == SUCCESS
        assert address(got[0]) == buffer.int_ptr
        assert buffer.reference_count == 2  # un-retained
        kind = ffi.new("dnnl_ocl_interop_memory_kind_t *")
        assert lib.dnnl_ocl_interop_memory_get_memory_kind(memory, kind) == SUCCESS
        assert kind[0] == lib.dnnl_ocl_interop_buffer

        mapped = ffi.new("void **")
        assert lib.dnnl_memory_map_data(memory, mapped) == SUCCESS
        ffi.cast("float *", mapped[0])[0:6] = [float(i) for i in range(6)]
        assert lib.dnnl_memory_unmap_data(memory, mapped[0]) == SUCCESS
        host = np.empty(6, np.float32)
        cl.enqueue_copy(queue, host, buffer).wait()
        assert host.tolist() == [0, 1, 2, 3, 4, 5]

        # The same buffer again is a no-op; NULL clears and releases it.
        assert lib.dnnl_ocl_interop_memory_set_mem_object(memory, got[0]) == SUCCESS
        assert buffer.reference_count == 2
        assert lib.dnnl_ocl_interop_memory_set_mem_object(memory, ffi.NULL) == SUCCESS
        assert buffer.reference_count == 1
        assert lib.dnnl_ocl_interop_memory_get_mem_object(memory, got) == SUCCESS
        assert got[0] == ffi.NULL
        assert lib.dnnl_ocl_interop_memory_set_mem_object(memory, handle("cl_mem", buffer)) == SUCCESS
        assert buffer.reference_count == 2
    finally:
        assert lib.dnnl_memory_destroy(memory) == SUCCESS
    assert buffer.reference_count == 1


def test_get_mem_object_of_usm_memory_answers_its_pointer_and_of_no_memory_null(raw_engine, created):
    md = make_md(created, (2, 2), lib.dnnl_ab)
    memory = make_memory(created, md, raw_engine, lib.dnnl_ocl_interop_usm, lib.DNNL_MEMORY_ALLOCATE)
    kind = ffi.new("dnnl_ocl_interop_memory_kind_t *")
    assert lib.dnnl_ocl_interop_memory_get_memory_kind(memory, kind) == SUCCESS
    assert kind[0] == lib.dnnl_ocl_interop_usm
    pointer, got = ffi.new("void **"), ffi.new("cl_mem *")
    assert lib.dnnl_memory_get_data_handle(memory, pointer) == SUCCESS
    assert lib.dnnl_ocl_interop_memory_get_mem_object(memory, got) == SUCCESS
    assert pointer[0] != ffi.NULL and address(got[0]) == address(pointer[0])  # no cl_mem at all
    got[0] = ffi.cast("cl_mem", 0x1234)
    assert lib.dnnl_ocl_interop_memory_get_mem_object(ffi.NULL, got) == SUCCESS
    assert got[0] == ffi.NULL


@pytest.mark.parametrize("properties", [OUT_OF_ORDER, 0], ids=["out-of-order", "in-order"])
def test_a_reorder_after_a_dependency_event(raw_engine, context, created, properties):
    queue = cl.CommandQueue(context, properties=properties)
    source = np.arange(6, dtype=np.float32)  # 2x3, ab
    src_buffer = cl.Buffer(context, cl.mem_flags.READ_WRITE, size=24)
    dst_buffer = cl.Buffer(context, cl.mem_flags.READ_WRITE, size=24)
    written = cl.enqueue_copy(queue, src_buffer, source, is_blocking=False)

    src_md, dst_md = make_md(created, (2, 3), lib.dnnl_ab), make_md(created, (2, 3), lib.dnnl_ba)
    stream = make_stream(created, raw_engine, queue)
    primitive = make_reorder(created, raw_engine, src_md, dst_md)
    memories = [
        make_memory(created, md, raw_engine, lib.dnnl_ocl_interop_buffer, ffi.cast("void *", buffer.int_ptr))
        for md, buffer in ((src_md, src_buffer), (dst_md, dst_buffer))
    ]
    args = ffi.new("dnnl_exec_arg_t[2]", [(lib.DNNL_ARG_FROM, memories[0]), (lib.DNNL_ARG_TO, memories[1])])
    deps = ffi.new("cl_event[1]", [handle("cl_event", written)])
    returned = ffi.new("cl_event *", ffi.cast("cl_event", 0x1234))  # oneDNN overwrites it either way
    status = lib.dnnl_ocl_interop_primitive_execute(primitive, stream, 2, args, deps, 1, returned)
    assert status == SUCCESS

    result = np.empty(6, np.float32)
    if properties == OUT_OF_ORDER:
        assert returned[0] != ffi.NULL
        done = cl.Event.from_int_ptr(address(returned[0]), retain=False)  # the caller owns it
        assert done.reference_count == 1
        cl.enqueue_copy(queue, result, dst_buffer, wait_for=[done], is_blocking=True)
        assert done.command_execution_status == cl.command_execution_status.COMPLETE
    else:
        assert returned[0] == ffi.NULL
        cl.enqueue_copy(queue, result, dst_buffer, is_blocking=True)
    assert result.reshape(3, 2).tolist() == source.reshape(2, 3).T.tolist()

    # A duplicated argument, or a missing destination, is refused.
    dup = ffi.new("dnnl_exec_arg_t[2]", [(lib.DNNL_ARG_FROM, memories[0]), (lib.DNNL_ARG_FROM, memories[1])])
    assert lib.dnnl_primitive_execute(primitive, stream, 2, dup) == INVALID_ARGUMENTS
    assert lib.dnnl_primitive_execute(primitive, stream, 1, args) == INVALID_ARGUMENTS
    assert lib.dnnl_stream_wait(stream) == SUCCESS
