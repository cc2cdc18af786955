"""``Memory(desc, engine)`` on an engine adopted with ``Engine.from_handle``
works whatever the process imported first: memory on every runtime is made
by the object module itself, never by a maker that importing ``ocl`` or
``ze`` registers.

Each case runs in a fresh process (``run_in_child``) that never imports
``dnnl_interop.ocl`` or ``dnnl_interop.ze``: the engine is made through the
raw C API and adopted, as another cffi module would hand it over. Real
oneDNN, emulated GPU / emulated Level Zero.
"""

from __future__ import annotations

import sys

from dnnl_interop.testing import emulated_gpu, emulated_level_zero

VALUES = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]


def _round_trip(engine, runtime_module: str) -> dict[str, object]:
    """Make memory on ``engine`` with Memory(desc, engine), write and read it back."""
    import numpy

    import dnnl_interop as dnnl

    imported_before = runtime_module in sys.modules
    desc = dnnl.MemoryDesc((2, 3), "f32", "ab")
    memory = dnnl.Memory(desc, engine)  # MEMORY_ALLOCATE: oneDNN allocates on the device
    with memory.mapped() as array:
        array[...] = numpy.array(VALUES, numpy.float32).reshape(2, 3)
    with memory.mapped() as array:
        read = array.ravel().tolist()
    result = {
        "imported before": imported_before,
        "imported after": runtime_module in sys.modules,
        "runtime": engine._runtime,
        "read": read,
        "has a buffer": memory.data_handle != 0,
    }
    memory.close()
    desc.close()
    return result


def _opencl_engine_adopted() -> dict[str, object]:
    import dnnl_interop as dnnl
    from dnnl_interop._ffi import ffi, lib

    gpu = emulated_gpu.enable()
    out = ffi.new("dnnl_engine_t *")
    device = ffi.cast("cl_device_id", gpu.device.int_ptr)
    context = ffi.cast("cl_context", gpu.context.int_ptr)
    assert lib.dnnl_ocl_interop_engine_create(out, device, context) == 0
    engine = dnnl.Engine.from_handle(out[0], owned=True)
    try:
        return _round_trip(engine, "dnnl_interop.ocl")
    finally:
        engine.close()


def _level_zero_engine_adopted() -> dict[str, object]:
    import dnnl_interop as dnnl
    from dnnl_interop._ffi import ffi, lib

    lz = emulated_level_zero.enable()
    out = ffi.new("dnnl_engine_t *")
    handles = [ffi.cast(kind, int(value)) for kind, value in (
        ("ze_driver_handle_t", lz.driver), ("ze_device_handle_t", lz.device), ("ze_context_handle_t", lz.context)
    )]
    assert lib.dnnl_ze_interop_engine_create(out, *handles) == 0
    engine = dnnl.Engine.from_handle(out[0], owned=True)
    try:
        return _round_trip(engine, "dnnl_interop.ze")
    finally:
        engine.close()


def test_memory_on_an_adopted_opencl_engine_in_a_process_that_never_imported_ocl():
    result = emulated_gpu.run_in_child(_opencl_engine_adopted)
    assert result == {"imported before": False, "imported after": False, "runtime": "ocl",
                      "read": VALUES, "has a buffer": True}


def test_memory_on_an_adopted_level_zero_engine_in_a_process_that_never_imported_ze():
    result = emulated_level_zero.run_in_child(_level_zero_engine_adopted)
    assert result == {"imported before": False, "imported after": False, "runtime": "ze",
                      "read": VALUES, "has a buffer": True}
