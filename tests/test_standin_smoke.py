"""Smoke test of the test-only oneDNN stand-in (tests/standin), through the C API.

The stand-in is what the binding's GPU success paths are tested against, so
this checks, with raw ``lib.*`` calls on real PoCL objects, that it behaves
as oneDNN documents: handles round-trip, references are taken and dropped,
the blob-ID protocol is exact (and its layout is real oneDNN's, on both real
OpenCL devices), and a reorder really moves data. The full behaviour is
tested through the Python API elsewhere.
"""

from __future__ import annotations

import struct

import numpy as np
import pytest

from dnnl_interop._ffi import ffi, lib

SUCCESS, INVALID_ARGUMENTS, RUNTIME_ERROR = 0, 2, 5


def handle(ctype: str, cl_object):
    return ffi.cast(ctype, cl_object.int_ptr)


def address(pointer) -> int:
    return int(ffi.cast("uintptr_t", pointer))


def refcount(cl, cl_object) -> int:
    info = {
        cl.Context: cl.context_info.REFERENCE_COUNT,
        cl.CommandQueue: cl.command_queue_info.REFERENCE_COUNT,
        cl.Buffer: cl.mem_info.REFERENCE_COUNT,
    }[type(cl_object)]
    return cl_object.get_info(info)


@pytest.fixture
def engine(standin_dnnl, pocl_device, pocl_context):
    out = ffi.new("dnnl_engine_t *")
    status = lib.dnnl_ocl_interop_engine_create(
        out, handle("cl_device_id", pocl_device), handle("cl_context", pocl_context)
    )
    assert status == SUCCESS
    yield out[0]
    assert lib.dnnl_engine_destroy(out[0]) == SUCCESS


def make_md(dims, tag):
    out = ffi.new("dnnl_memory_desc_t *")
    c_dims = ffi.new("dnnl_dims_t", list(dims))
    assert lib.dnnl_memory_desc_create_with_tag(out, len(dims), c_dims, lib.dnnl_f32, tag) == 0
    return out[0]


def test_identifies_itself_as_the_standin(standin_dnnl):
    version = lib.dnnl_version()
    assert (version.major, version.minor, version.patch) == (3, 13, 2)
    assert ffi.string(version.hash) == b"dnnl-interop-standin"


def test_engine_round_trips_handles_and_holds_a_context_reference(
    standin_dnnl, cl, pocl_device, pocl_context
):
    assert refcount(cl, pocl_context) == 1
    out = ffi.new("dnnl_engine_t *")
    device, context = handle("cl_device_id", pocl_device), handle("cl_context", pocl_context)
    assert lib.dnnl_ocl_interop_engine_create(out, device, context) == SUCCESS
    engine = out[0]
    try:
        assert refcount(cl, pocl_context) == 2
        got_device = ffi.new("cl_device_id *")
        got_context = ffi.new("cl_context *")
        assert lib.dnnl_ocl_interop_get_device(engine, got_device) == SUCCESS
        assert lib.dnnl_ocl_interop_engine_get_context(engine, got_context) == SUCCESS
        assert address(got_device[0]) == pocl_device.int_ptr
        assert address(got_context[0]) == pocl_context.int_ptr
        kind = ffi.new("dnnl_engine_kind_t *")
        assert lib.dnnl_engine_get_kind(engine, kind) == SUCCESS
        assert kind[0] == lib.dnnl_gpu
        # The getters hand out un-retained handles.
        assert refcount(cl, pocl_context) == 2
    finally:
        assert lib.dnnl_engine_destroy(engine) == SUCCESS
    assert refcount(cl, pocl_context) == 1
    # Like real oneDNN: NULL arguments, and a device outside the context.
    assert lib.dnnl_ocl_interop_engine_create(out, ffi.NULL, context) == INVALID_ARGUMENTS
    assert lib.dnnl_ocl_interop_engine_create(out, device, ffi.NULL) == INVALID_ARGUMENTS


def blob_id(device) -> bytes:
    size = ffi.new("size_t *")
    assert lib.dnnl_ocl_interop_engine_get_cache_blob_id(device, size, ffi.NULL) == SUCCESS
    buffer = ffi.new("uint8_t[]", size[0])
    assert lib.dnnl_ocl_interop_engine_get_cache_blob_id(device, size, buffer) == SUCCESS
    return bytes(buffer)


@pytest.mark.parametrize("which", ["real", "standin"])
def test_blob_id_layout_is_onednns_up_to_the_hash(request, which, cl_device):
    """Real oneDNN and the stand-in write the same bytes before the hash."""
    request.getfixturevalue(f"{which}_dnnl")
    blob = blob_id(handle("cl_device_id", cl_device))
    prefix = b""
    for text in (cl_device.platform.name, cl_device.name, cl_device.driver_version):
        prefix += struct.pack("N", len(text) + 1) + text.encode() + b"\0"
    prefix += struct.pack("3i", 3, 13, 2)
    assert blob.startswith(prefix)
    (hash_length,) = struct.unpack_from("N", blob, len(prefix))
    hash_bytes = blob[len(prefix) + 8 :]
    assert len(hash_bytes) == hash_length
    if which == "standin":
        assert hash_bytes == b"dnnl-interop-standin"
    else:
        assert len(hash_bytes) == 40 and hash_bytes != b"dnnl-interop-standin"


def test_blob_id_fill_needs_the_exact_size(standin_dnnl, pocl_device):
    device = handle("cl_device_id", pocl_device)
    n = len(blob_id(device))
    size = ffi.new("size_t *")
    for wrong in (n - 1, n + 1):
        size[0] = wrong
        buffer = ffi.new("uint8_t[]", n + 1)
        status = lib.dnnl_ocl_interop_engine_get_cache_blob_id(device, size, buffer)
        assert status == INVALID_ARGUMENTS
        assert bytes(buffer) == bytes(n + 1)  # nothing written
    # A NULL device is oneDNN's CL_INVALID_DEVICE: 5, and *size is untouched.
    size[0] = 12345
    assert lib.dnnl_ocl_interop_engine_get_cache_blob_id(ffi.NULL, size, ffi.NULL) == RUNTIME_ERROR
    assert size[0] == 12345
    assert lib.dnnl_ocl_interop_engine_get_cache_blob_id(device, ffi.NULL, ffi.NULL) == 2


def test_stream_on_a_queue_retains_it(standin_dnnl, cl, engine, pocl_context):
    queue = cl.CommandQueue(pocl_context)
    out = ffi.new("dnnl_stream_t *")
    assert lib.dnnl_ocl_interop_stream_create(out, engine, handle("cl_command_queue", queue)) == 0
    assert refcount(cl, queue) == 2
    got = ffi.new("cl_command_queue *")
    assert lib.dnnl_ocl_interop_stream_get_command_queue(out[0], got) == SUCCESS
    assert address(got[0]) == queue.int_ptr
    assert lib.dnnl_stream_wait(out[0]) == SUCCESS
    assert lib.dnnl_stream_destroy(out[0]) == SUCCESS
    assert refcount(cl, queue) == 1

    # A queue of another context does not match the engine.
    other_queue = cl.CommandQueue(cl.Context([queue.device]))
    status = lib.dnnl_ocl_interop_stream_create(
        out, engine, handle("cl_command_queue", other_queue)
    )
    assert status == INVALID_ARGUMENTS


def test_buffer_memory_round_trip(standin_dnnl, cl, engine, pocl_context):
    md = make_md((2, 3), lib.dnnl_ab)
    buffer = cl.Buffer(pocl_context, cl.mem_flags.READ_WRITE, size=24)
    out = ffi.new("dnnl_memory_t *")
    status = lib.dnnl_ocl_interop_memory_create(
        out, md, engine, lib.dnnl_ocl_interop_buffer, ffi.cast("void *", buffer.int_ptr)
    )
    assert status == SUCCESS
    memory = out[0]
    try:
        assert refcount(cl, buffer) == 2
        got = ffi.new("cl_mem *")
        assert lib.dnnl_ocl_interop_memory_get_mem_object(memory, got) == SUCCESS
        assert address(got[0]) == buffer.int_ptr
        kind = ffi.new("dnnl_ocl_interop_memory_kind_t *")
        assert lib.dnnl_ocl_interop_memory_get_memory_kind(memory, kind) == SUCCESS
        assert kind[0] == lib.dnnl_ocl_interop_buffer

        mapped = ffi.new("void **")
        assert lib.dnnl_memory_map_data(memory, mapped) == SUCCESS
        ffi.cast("float *", mapped[0])[0:6] = [float(i) for i in range(6)]
        assert lib.dnnl_memory_unmap_data(memory, mapped[0]) == SUCCESS
        host = np.empty(6, np.float32)
        cl.enqueue_copy(cl.CommandQueue(pocl_context), host, buffer)
        assert host.tolist() == [0, 1, 2, 3, 4, 5]
    finally:
        assert lib.dnnl_memory_destroy(memory) == SUCCESS
        assert lib.dnnl_memory_desc_destroy(md) == SUCCESS
    assert refcount(cl, buffer) == 1


def test_reorder_on_an_out_of_order_queue_returns_an_owned_event(
    standin_dnnl, cl, engine, pocl_context
):
    queue = cl.CommandQueue(
        pocl_context, properties=cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE
    )
    source = np.arange(6, dtype=np.float32)  # 2x3, ab
    src_buffer = cl.Buffer(pocl_context, cl.mem_flags.READ_WRITE, size=24)
    dst_buffer = cl.Buffer(pocl_context, cl.mem_flags.READ_WRITE, size=24)
    write = cl.enqueue_copy(queue, src_buffer, source, is_blocking=False)

    created = []  # (destroy function, handle), destroyed in reverse order
    try:
        src_md, dst_md = make_md((2, 3), lib.dnnl_ab), make_md((2, 3), lib.dnnl_ba)
        created += [(lib.dnnl_memory_desc_destroy, src_md), (lib.dnnl_memory_desc_destroy, dst_md)]
        stream = ffi.new("dnnl_stream_t *")
        assert lib.dnnl_ocl_interop_stream_create(
            stream, engine, handle("cl_command_queue", queue)
        ) == SUCCESS
        created.append((lib.dnnl_stream_destroy, stream[0]))
        pd = ffi.new("dnnl_primitive_desc_t *")
        assert lib.dnnl_reorder_primitive_desc_create(
            pd, src_md, engine, dst_md, engine, ffi.NULL
        ) == SUCCESS
        created.append((lib.dnnl_primitive_desc_destroy, pd[0]))
        primitive = ffi.new("dnnl_primitive_t *")
        assert lib.dnnl_primitive_create(primitive, pd[0]) == SUCCESS
        created.append((lib.dnnl_primitive_destroy, primitive[0]))
        memories = []
        for md, buffer in ((src_md, src_buffer), (dst_md, dst_buffer)):
            out = ffi.new("dnnl_memory_t *")
            assert lib.dnnl_ocl_interop_memory_create(
                out, md, engine, lib.dnnl_ocl_interop_buffer, ffi.cast("void *", buffer.int_ptr)
            ) == SUCCESS
            created.append((lib.dnnl_memory_destroy, out[0]))
            memories.append(out[0])

        args = ffi.new("dnnl_exec_arg_t[2]", [(lib.DNNL_ARG_FROM, memories[0]),
                                             (lib.DNNL_ARG_TO, memories[1])])
        deps = ffi.new("cl_event[1]", [handle("cl_event", write)])
        returned = ffi.new("cl_event *")
        status = lib.dnnl_ocl_interop_primitive_execute(
            primitive[0], stream[0], 2, args, deps, 1, returned
        )
        assert status == SUCCESS
        assert returned[0] != ffi.NULL
        done = cl.Event.from_int_ptr(address(returned[0]), retain=False)  # we own it

        result = np.empty(6, np.float32)
        cl.enqueue_copy(queue, result, dst_buffer, wait_for=[done], is_blocking=True)
        assert result.reshape(3, 2).tolist() == source.reshape(2, 3).T.tolist()
        assert done.command_execution_status == cl.command_execution_status.COMPLETE

        # A duplicated argument, or a missing destination, is refused.
        dup = ffi.new("dnnl_exec_arg_t[2]", [(lib.DNNL_ARG_FROM, memories[0]),
                                            (lib.DNNL_ARG_FROM, memories[1])])
        assert lib.dnnl_primitive_execute(primitive[0], stream[0], 2, dup) == INVALID_ARGUMENTS
        assert lib.dnnl_primitive_execute(primitive[0], stream[0], 1, args) == INVALID_ARGUMENTS
    finally:
        for destroy, object_handle in reversed(created):
            assert destroy(object_handle) == SUCCESS
