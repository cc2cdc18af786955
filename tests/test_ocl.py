"""OpenCL interop on real oneDNN in the main session: what a CPU-only process answers.

oneDNN makes OpenCL engines only on Intel GPUs. Here (PoCL and Intel's CPU
runtime, no emulated GPU: this session uses oneDNN's CPU engine) it refuses
every OpenCL device, and every interop call on CPU engines, streams and
memory answers INVALID_ARGUMENTS. Handles of the wrong kind are refused
before any C call. The success paths (engines, streams, buffer and USM
memory, execute with events) run on real oneDNN on the emulated Intel GPU,
in sessions of their own: tests/gpu/test_ocl_*.py.
"""

from __future__ import annotations

import subprocess
import sys

import pyopencl as cl
import pytest

import dnnl_interop
from dnnl_interop import ocl


def refcount(context) -> int:
    """The OpenCL reference count of a context (clGetContextInfo)."""
    return context.get_info(cl.context_info.REFERENCE_COUNT)


def f32_desc(shape, tag):
    return dnnl_interop.MemoryDesc(shape, "float32", tag)


def test_real_onednn_refuses_a_device_that_is_not_an_intel_gpu(real_dnnl, cl_device):
    context = cl.Context([cl_device])
    with pytest.raises(dnnl_interop.InvalidArgumentsError, match="dnnl_ocl_interop_engine_create"):
        ocl.make_engine(cl_device, context)
    assert refcount(context) == 1  # nothing retained on the way out


def test_interop_getters_refuse_a_cpu_engine(real_dnnl):
    with dnnl_interop.Engine.cpu() as cpu:
        for getter in (ocl.get_device, ocl.get_context, ocl.get_engine_cache_blob):
            with pytest.raises(dnnl_interop.InvalidArgumentsError):
                getter(cpu)


def test_a_cpu_engine_takes_no_opencl_queue(real_dnnl, pocl_context):
    queue = cl.CommandQueue(pocl_context)
    with dnnl_interop.Engine.cpu() as cpu:
        with pytest.raises(dnnl_interop.InvalidArgumentsError, match="dnnl_ocl_interop_stream_create"):
            ocl.make_stream(cpu, queue)
    assert queue.get_info(cl.command_queue_info.REFERENCE_COUNT) == 1


def test_cpu_streams_have_no_queue(real_dnnl):
    with dnnl_interop.Engine.cpu() as cpu, dnnl_interop.Stream(cpu) as stream:
        with pytest.raises(dnnl_interop.InvalidArgumentsError):
            ocl.get_command_queue(stream)


def test_interop_memory_queries_refuse_cpu_memory(real_dnnl):
    with dnnl_interop.Engine.cpu() as cpu:
        with dnnl_interop.Memory(f32_desc((2, 2), "ab"), cpu) as memory:
            for query in (ocl.get_memory_kind, ocl.get_mem_object):
                with pytest.raises(dnnl_interop.InvalidArgumentsError):
                    query(memory)
        with pytest.raises(dnnl_interop.InvalidArgumentsError, match="memory_create"):
            ocl.make_memory(f32_desc((2, 2), "ab"), cpu)


def test_ocl_execute_refuses_a_cpu_stream(real_dnnl):
    with dnnl_interop.Engine.cpu() as cpu, dnnl_interop.Stream(cpu) as stream:
        desc = f32_desc((2, 2), "ab")
        with dnnl_interop.reorder(desc, desc, cpu) as primitive:
            a, b = (dnnl_interop.Memory(desc, cpu) for _ in range(2))
            with pytest.raises(dnnl_interop.InvalidArgumentsError, match="primitive_execute"):
                ocl.execute(primitive, stream, {dnnl_interop.ARG_FROM: a, dnnl_interop.ARG_TO: b})
            a.close()
            b.close()


_WRONG_KINDS = """
import pyopencl as cl, dnnl_interop as dnnl
from dnnl_interop import ocl
from dnnl_interop._ffi import ffi
device = [p for p in cl.get_platforms() if "Portable" in p.name][0].get_devices()[0]
context = cl.Context([device])
queue = cl.CommandQueue(context)
engine = dnnl.Engine.cpu()
desc = dnnl.MemoryDesc((2, 2), "f32", "ab")
calls = {
    "context as device": lambda: ocl.get_engine_cache_blob_id(context),
    "queue as device": lambda: ocl.get_engine_cache_blob_id(queue),
    "engine as device": lambda: ocl.get_engine_cache_blob_id(engine),
    "engine handle as device": lambda: ocl.get_engine_cache_blob_id(engine.handle),
    "context handle as device": lambda: ocl.make_engine(ffi.cast("cl_context", context.int_ptr), context),
    "device as context": lambda: ocl.make_engine(device, device),
    "context as queue": lambda: ocl.make_stream(engine, context),
    "context as buffer": lambda: ocl.make_memory(desc, engine, ocl.MemoryKind.BUFFER, context),
    "engine as buffer": lambda: ocl.make_memory(desc, engine, ocl.MemoryKind.BUFFER, engine),
    "queue as dependency": lambda: ocl.execute(dnnl.reorder(desc, desc, engine), dnnl.Stream(engine), {}, [queue]),
    "level zero device as device": lambda: ocl.get_engine_cache_blob_id(dnnl.ze.Device(0x1000)),
    "level zero context as buffer": lambda: ocl.make_memory(desc, engine, ocl.MemoryKind.USM, dnnl.ze.Context(0x10)),
}
for name, call in calls.items():
    try:
        call()
    except TypeError:
        print("TypeError")
    else:
        print("accepted", name)
"""


def test_objects_holding_another_kind_of_handle_are_refused_before_c(real_dnnl):
    # PoCL crashes the process when, say, a context reaches clGetDeviceInfo:
    # hence a child process, so a regression fails this test, not the run.
    done = subprocess.run(
        [sys.executable, "-c", _WRONG_KINDS], check=False, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["TypeError"] * 12


def test_a_refused_device_is_described(real_dnnl, cl_device):
    """oneDNN says only INVALID_ARGUMENTS; the error says what the device is."""
    context = cl.Context([cl_device])
    with pytest.raises(dnnl_interop.InvalidArgumentsError, match=r"device: '.*' is a CPU device, vendor id 0x8086, "
                       r"platform '.*'; oneDNN's OpenCL engine needs an Intel GPU"):
        ocl.make_engine(cl_device, context)


def test_a_device_outside_its_context_is_described(real_dnnl, pocl_device, intel_cpu_device):
    with pytest.raises(dnnl_interop.InvalidArgumentsError, match="not a device of the context"):
        ocl.make_engine(pocl_device, cl.Context([intel_cpu_device]))


def test_opencl_functions_given_cpu_objects_say_so(real_dnnl):
    with dnnl_interop.Engine.cpu() as engine, dnnl_interop.Stream(engine) as stream:
        with dnnl_interop.MemoryDesc((2, 2), "f32", "ab") as desc, dnnl_interop.Memory(desc, engine) as memory:
            for call, what in ((lambda: ocl.get_device(engine), "engine: a CPU or SYCL engine"),
                               (lambda: ocl.make_memory(desc, engine), "engine: a CPU or SYCL engine"),
                               (lambda: ocl.get_memory_kind(memory), "memory: a Memory on a CPU or SYCL engine"),
                               (lambda: ocl.get_command_queue(stream), "stream: a Stream on a CPU or SYCL engine")):
                with pytest.raises(dnnl_interop.InvalidArgumentsError, match=f"{what}; it needs an OpenCL engine"):
                    call()


@pytest.mark.parametrize(
    ("blob", "message"),
    [
        (b"\x01" * 64, "too short"),
        (bytes(109), "too short"),
        (bytes(111), "its fields need 110 \\+ 0 bytes, it has 111"),
        (bytes(102) + (2**40).to_bytes(8, "little"), "need 110 \\+ 1099511627776 bytes"),
        (bytes(4) + b"\x02" + bytes(105), "has-product flag is not a bool"),
    ],
    ids=["ones", "short", "long", "huge-name", "flag"],
)
def test_a_malformed_engine_cache_blob_never_reaches_onednn(real_dnnl, pocl_device, blob, message):
    """oneDNN parses blobs unchecked: a huge name length aborted the process (std::bad_alloc)."""
    with pytest.raises(ValueError, match=f"^cache_blob: not an engine cache blob: .*({message})"):
        ocl.make_engine(pocl_device, cl.Context([pocl_device]), blob)
