"""Engines on the emulated GPU: creation, and the device and context oneDNN hands back.

OpenCL reference counts are read with clGetContextInfo / clGetDeviceInfo
(``*_REFERENCE_COUNT``, pyopencl's ``reference_count``).
"""

from __future__ import annotations

import gc

import pyopencl as cl

import dnnl_interop as dnnl
from dnnl_interop import ocl
from dnnl_interop.testing import emulated_gpu as emulated


def test_the_emulated_device_is_an_intel_gpu_of_intels_cpu_runtime(emulated_gpu):
    device = emulated_gpu.device
    assert device.type == cl.device_type.GPU
    assert device.vendor_id == 0x8086
    assert device.platform.name == emulated.PLATFORM_NAME
    assert emulated_gpu.context.devices == [device]


def test_make_engine_on_the_emulated_device_makes_a_gpu_engine(emulated_gpu):
    with ocl.make_engine(emulated_gpu.device, emulated_gpu.context) as engine:
        assert engine.kind == dnnl.EngineKind.GPU


def test_oneDNN_counts_the_emulated_device_as_its_only_gpu(emulated_gpu):
    assert dnnl.Engine.get_count(dnnl.EngineKind.GPU) == 1


def test_get_device_and_get_context_return_the_handles_the_engine_was_made_with(emulated_gpu):
    context = cl.Context([emulated_gpu.device])
    with ocl.make_engine(emulated_gpu.device, context) as engine:
        device_back, context_back = ocl.get_device(engine), ocl.get_context(engine)
        assert isinstance(device_back, cl.Device) and isinstance(context_back, cl.Context)
        assert device_back.int_ptr == emulated_gpu.device.int_ptr
        assert context_back.int_ptr == context.int_ptr
        assert device_back == emulated_gpu.device and context_back == context


def test_the_engine_holds_one_context_reference_and_the_getter_one_more_for_its_object(emulated_gpu):
    context = cl.Context([emulated_gpu.device])
    before = context.reference_count
    engine = ocl.make_engine(emulated_gpu.device, context)
    during = context.reference_count
    assert during > before  # oneDNN retains the context it was given

    context_back = ocl.get_context(engine)
    assert context.reference_count == during + 1  # the returned object owns a reference
    del context_back
    gc.collect()
    assert context.reference_count == during

    engine.close()
    gc.collect()
    assert context.reference_count == before


def test_the_device_reference_count_is_unchanged_by_engines_and_getters(emulated_gpu):
    # A root device is not reference counted (OpenCL 1.2+): every retain and
    # release the engine and the getter make must leave it where it was.
    device = emulated_gpu.device
    before = device.reference_count
    engine = ocl.make_engine(device, emulated_gpu.context)
    device_back = ocl.get_device(engine)
    assert device.reference_count == before == device_back.reference_count
    del device_back
    engine.close()
    gc.collect()
    assert device.reference_count == before


def test_engines_on_two_contexts_report_their_own_context(emulated_gpu):
    first, second = cl.Context([emulated_gpu.device]), cl.Context([emulated_gpu.device])
    with ocl.make_engine(emulated_gpu.device, first) as a, ocl.make_engine(emulated_gpu.device, second) as b:
        assert ocl.get_context(a).int_ptr == first.int_ptr
        assert ocl.get_context(b).int_ptr == second.int_ptr
        assert first.int_ptr != second.int_ptr
