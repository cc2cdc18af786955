"""The emulated Level Zero loader itself: what it reports, events, copies, modules and kernels.

Called directly through cffi (the declarations of ze_api.h v1.11 the calls
need), on the library ``emulated_level_zero.enable()`` put in place. oneDNN
is not involved here; tests/gpu/test_ze_*.py run it on top.
"""

from __future__ import annotations

import ctypes
import os

import cffi
import numpy as np
import pytest

from dnnl_interop.testing import emulated_level_zero as emulated

# At collection, before any test of the session can start SYCL.
emulated.enable()

CL_DEVICE_UUID_KHR = 0x106A
ZE_MODULE_FORMAT_NATIVE = 1
ZE_MODULE_FORMAT_OPENCL_C = 3  # the value oneDNN uses for OpenCL C source
ZE_RESULT_SUCCESS = 0
ZE_RESULT_NOT_READY = 1
ZE_RESULT_ERROR_INVALID_NATIVE_BINARY = 0x7800000F
ZE_RESULT_ERROR_INVALID_KERNEL_NAME = 0x78000011
ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE = 0x78000016
ZE_RESULT_ERROR_MODULE_BUILD_FAILURE = 0x70000004

_CDEF = """
typedef struct _ze_context_handle_t *ze_context_handle_t;
typedef struct _ze_device_handle_t *ze_device_handle_t;
typedef struct _ze_driver_handle_t *ze_driver_handle_t;
typedef struct _ze_command_list_handle_t *ze_command_list_handle_t;
typedef struct _ze_event_handle_t *ze_event_handle_t;
typedef struct _ze_module_handle_t *ze_module_handle_t;
typedef struct _ze_module_build_log_handle_t *ze_module_build_log_handle_t;
typedef struct _ze_kernel_handle_t *ze_kernel_handle_t;
typedef struct { int stype; const void *pNext; int format; size_t inputSize;
    const uint8_t *pInputModule; const char *pBuildFlags; const void *pConstants; } ze_module_desc_t;
typedef struct { int stype; const void *pNext; uint32_t flags; const char *pKernelName; } ze_kernel_desc_t;
typedef struct { uint32_t groupCountX; uint32_t groupCountY; uint32_t groupCountZ; } ze_group_count_t;
typedef struct { int stype; void *pNext; uint32_t ipVersion; } ze_device_ip_version_ext_t;
typedef struct { int stype; void *pNext; int type; uint32_t vendorId; uint32_t deviceId;
    uint32_t flags; uint32_t subdeviceId; uint32_t coreClockRate; uint64_t maxMemAllocSize;
    uint32_t maxHardwareContexts; uint32_t maxCommandQueuePriority; uint32_t numThreadsPerEU;
    uint32_t physicalEUSimdWidth; uint32_t numEUsPerSubslice; uint32_t numSubslicesPerSlice;
    uint32_t numSlices; uint64_t timerResolution; uint32_t timestampValidBits;
    uint32_t kernelTimestampValidBits; uint8_t uuid[16]; char name[256]; } ze_device_properties_t;
int zeDeviceGetProperties(ze_device_handle_t, ze_device_properties_t *);
int zeDriverGetExtensionFunctionAddress(ze_driver_handle_t, const char *, void **);
int zeModuleCreate(ze_context_handle_t, ze_device_handle_t, const ze_module_desc_t *,
    ze_module_handle_t *, ze_module_build_log_handle_t *);
int zeModuleDestroy(ze_module_handle_t);
int zeModuleGetNativeBinary(ze_module_handle_t, size_t *, uint8_t *);
int zeModuleGetKernelNames(ze_module_handle_t, uint32_t *, const char **);
int zeModuleBuildLogGetString(ze_module_build_log_handle_t, size_t *, char *);
int zeModuleBuildLogDestroy(ze_module_build_log_handle_t);
int zeKernelCreate(ze_module_handle_t, const ze_kernel_desc_t *, ze_kernel_handle_t *);
int zeKernelDestroy(ze_kernel_handle_t);
int zeKernelSetArgumentValue(ze_kernel_handle_t, uint32_t, size_t, const void *);
int zeKernelSetGroupSize(ze_kernel_handle_t, uint32_t, uint32_t, uint32_t);
int zeCommandListAppendLaunchKernel(ze_command_list_handle_t, ze_kernel_handle_t,
    const ze_group_count_t *, ze_event_handle_t, uint32_t, ze_event_handle_t *);
"""

# One pointer, one local buffer, two values: each kind of kernel argument.
SOURCE = b"""
kernel void scale_rows(global float *out, local float *scratch, float factor, int width) {
    size_t row = get_group_id(0), column = get_local_id(0);
    scratch[column] = (float)(row * width + column);
    barrier(CLK_LOCAL_MEM_FENCE);
    out[row * width + column] = scratch[column] * factor;
}
kernel void unused(global int *nothing) { }
"""


@pytest.fixture(scope="module")
def lz(emulated_level_zero):
    return emulated_level_zero


@pytest.fixture(scope="module")
def api(lz):
    ffi = cffi.FFI()
    ffi.cdef(_CDEF)
    return ffi, ffi.dlopen(str(emulated.loader_path()))


def _ptr(ffi, ctype, handle):
    return ffi.cast(ctype, int(handle))


def _module(api, lz, data: bytes, fmt: int, flags: bytes = b""):
    ffi, lib = api
    keep = ffi.new("uint8_t[]", data), ffi.new("char[]", flags)
    desc = ffi.new("ze_module_desc_t *", {"format": fmt, "inputSize": len(data), "pInputModule": keep[0],
                                          "pBuildFlags": keep[1]})
    out, log = ffi.new("ze_module_handle_t *"), ffi.new("ze_module_build_log_handle_t *")
    result = lib.zeModuleCreate(_ptr(ffi, "ze_context_handle_t", lz.context),
                                _ptr(ffi, "ze_device_handle_t", lz.device), desc, out, log)
    size = ffi.new("size_t *")
    assert lib.zeModuleBuildLogGetString(log[0], size, ffi.NULL) == ZE_RESULT_SUCCESS
    text = ffi.new("char[]", size[0])
    assert lib.zeModuleBuildLogGetString(log[0], size, text) == ZE_RESULT_SUCCESS
    assert lib.zeModuleBuildLogDestroy(log[0]) == ZE_RESULT_SUCCESS
    return result, (out[0] if result == ZE_RESULT_SUCCESS else None), ffi.string(text).decode()


def _create_kernel(api, module, name: bytes):
    """``(result, kernel handle or None)`` of zeKernelCreate."""
    ffi, lib = api
    text = ffi.new("char[]", name)
    kernel = ffi.new("ze_kernel_handle_t *")
    result = lib.zeKernelCreate(module, ffi.new("ze_kernel_desc_t *", {"pKernelName": text}), kernel)
    return result, (kernel[0] if result == ZE_RESULT_SUCCESS else None)


def _native_binary(api, module) -> bytes:
    ffi, lib = api
    size = ffi.new("size_t *")
    assert lib.zeModuleGetNativeBinary(module, size, ffi.NULL) == ZE_RESULT_SUCCESS
    data = ffi.new("uint8_t[]", size[0])
    assert lib.zeModuleGetNativeBinary(module, size, data) == ZE_RESULT_SUCCESS
    return bytes(ffi.buffer(data, size[0]))


def _built_from_source_binary() -> bytes:
    """In a child process: the native binary of SOURCE built from source there."""
    lz = emulated.enable()
    ffi = cffi.FFI()
    ffi.cdef(_CDEF)
    api = ffi, ffi.dlopen(str(emulated.loader_path()))
    result, module, log = _module(api, lz, SOURCE, ZE_MODULE_FORMAT_OPENCL_C)
    assert result == ZE_RESULT_SUCCESS, log
    return _native_binary(api, module)


def _run_scale_rows(api, lz, module, rows=6, width=16, factor=0.5):
    """Launch scale_rows from ``module``; the output array."""
    ffi, lib = api
    result, kernel = _create_kernel(api, module, b"scale_rows")
    assert result == ZE_RESULT_SUCCESS
    out = lz.shared((rows, width), "float32")
    out.array[:] = -1
    pointer = ffi.new("void **", ffi.cast("void *", out.address))
    assert lib.zeKernelSetArgumentValue(kernel, 0, 8, pointer) == ZE_RESULT_SUCCESS
    assert lib.zeKernelSetArgumentValue(kernel, 1, width * 4, ffi.NULL) == ZE_RESULT_SUCCESS
    assert lib.zeKernelSetArgumentValue(kernel, 2, 4, ffi.new("float *", factor)) == ZE_RESULT_SUCCESS
    assert lib.zeKernelSetArgumentValue(kernel, 3, 4, ffi.new("int *", width)) == ZE_RESULT_SUCCESS
    assert lib.zeKernelSetGroupSize(kernel, width, 1, 1) == ZE_RESULT_SUCCESS
    groups = ffi.new("ze_group_count_t *", {"groupCountX": rows, "groupCountY": 1, "groupCountZ": 1})
    assert lib.zeCommandListAppendLaunchKernel(
        _ptr(ffi, "ze_command_list_handle_t", lz.command_list), kernel, groups, ffi.NULL, 0, ffi.NULL
    ) == ZE_RESULT_SUCCESS
    assert lz.synchronize()
    assert lib.zeKernelDestroy(kernel) == ZE_RESULT_SUCCESS
    result = out.array.copy()
    return result, np.arange(rows * width, dtype=np.float32).reshape(rows, width) * factor


# Every Level Zero function oneDNN 3.13 resolves: src/xpu/ze/utils.hpp (INDIRECT_ZE_CALL,
# and zeInitDrivers in utils.cpp) and third_party/ngen/ngen_level_zero.hpp.
ONEDNN_CALLS = """
zeInitDrivers zeDriverGet zeDriverGetProperties zeDriverGetExtensionFunctionAddress zeDeviceGet
zeDeviceGetProperties zeDeviceGetComputeProperties zeDeviceGetModuleProperties
zeDeviceGetMemoryAccessProperties zeDeviceGetCacheProperties zeContextCreate zeContextDestroy
zeCommandListCreateImmediate zeCommandListDestroy zeCommandListHostSynchronize
zeCommandListGetContextHandle zeCommandListAppendBarrier zeCommandListAppendMemoryCopy
zeCommandListAppendMemoryFill zeEventPoolCreate zeEventPoolDestroy zeEventCreate zeEventDestroy
zeEventHostSynchronize zeEventQueryKernelTimestamp zeMemAllocShared zeMemAllocDevice zeMemAllocHost
zeMemFree zeMemGetAllocProperties zeModuleCreate zeModuleDestroy zeModuleBuildLogGetString
zeModuleBuildLogDestroy zeModuleGetKernelNames zeModuleGetNativeBinary zeKernelCreate zeKernelDestroy
zeKernelSetArgumentValue zeKernelGetName zeKernelGetBinaryExp zeKernelSetGroupSize
zeKernelSuggestGroupSize zeCommandListAppendLaunchKernel
""".split()


# --- what libdnnl finds ---------------------------------------------------------------


def test_libdnnl_opening_libze_loader_by_name_gets_the_emulated_loader(lz):
    by_name = ctypes.CDLL(emulated.LOADER_SONAME, mode=os.RTLD_NOLOAD | os.RTLD_NOW)
    by_path = ctypes.CDLL(str(emulated.loader_path()), mode=os.RTLD_NOLOAD | os.RTLD_NOW)
    assert by_name._handle == by_path._handle


def test_the_loader_exports_every_level_zero_function_onednn_calls(lz):
    library = ctypes.CDLL(str(emulated.loader_path()), mode=os.RTLD_NOLOAD | os.RTLD_NOW)
    missing = [name for name in ONEDNN_CALLS if not hasattr(library, name)]
    assert len(ONEDNN_CALLS) == 44 and not missing


# --- what the device says ----------------------------------------------------------


def test_the_device_is_an_intel_gen9_gpu_through_the_chained_ip_version_struct(lz, api):
    ffi, lib = api
    ip = ffi.new("ze_device_ip_version_ext_t *", {"stype": 0x1000F})
    properties = ffi.new("ze_device_properties_t *", {"stype": 0x3, "pNext": ip})
    assert lib.zeDeviceGetProperties(_ptr(ffi, "ze_device_handle_t", lz.device), properties) == 0
    assert ip.ipVersion == emulated.IP_VERSION == 0x02400000
    assert properties.type == 1 and properties.vendorId == 0x8086  # ZE_DEVICE_TYPE_GPU, Intel
    assert ffi.string(properties.name).decode() == lz.name
    assert lz.ip_version == emulated.IP_VERSION


def test_the_device_uuid_is_the_opencl_uuid_of_the_emulated_gpu(lz):
    # pyopencl does not know CL_DEVICE_UUID_KHR: ask OpenCL (the loader libdnnl uses) directly.
    ffi = cffi.FFI()
    ffi.cdef("int clGetDeviceInfo(void *device, uint32_t name, size_t size, void *value, size_t *size_ret);")
    opencl = ffi.dlopen("libOpenCL.so.1")
    uuid = ffi.new("uint8_t[16]")
    assert opencl.clGetDeviceInfo(ffi.cast("void *", lz.gpu.device.int_ptr), CL_DEVICE_UUID_KHR, 16, uuid,
                                  ffi.NULL) == 0
    assert len(lz.uuid) == 16
    assert lz.uuid == bytes(uuid)


def test_the_driver_gives_zeIntelGetDriverVersionString(lz, api):
    ffi, lib = api
    address = ffi.new("void **")
    assert lib.zeDriverGetExtensionFunctionAddress(
        _ptr(ffi, "ze_driver_handle_t", lz.driver), b"zeIntelGetDriverVersionString", address
    ) == ZE_RESULT_SUCCESS
    get = ffi.cast("int (*)(ze_driver_handle_t, char *, size_t *)", address[0])
    driver = _ptr(ffi, "ze_driver_handle_t", lz.driver)
    size = ffi.new("size_t *")
    assert get(driver, ffi.NULL, size) == ZE_RESULT_SUCCESS
    text = ffi.new("char[]", size[0] + 1)
    size[0] += 1
    assert get(driver, text, size) == ZE_RESULT_SUCCESS
    assert ffi.string(text).decode() == lz.gpu.device.driver_version  # the runtime's own version
    assert lib.zeDriverGetExtensionFunctionAddress(driver, b"zeNoSuchExtension", address) != ZE_RESULT_SUCCESS


def test_allocations_report_their_usm_kind_and_other_memory_is_unknown(lz):
    shared, host, device = lz.shared(8), lz.host(8), lz.device_memory(32)
    assert [lz.memory_type(m) for m in (shared, host, device)] == ["shared", "host", "device"]
    assert lz.memory_type(np.zeros(8, np.float32)) == "unknown"


# --- events and copies --------------------------------------------------------------


def test_a_copy_waiting_on_an_event_runs_only_once_the_host_signals_it(lz):
    pool = lz.event_pool(2)
    gate, done = pool.event(), pool.event()
    src, dst = lz.shared(1024, "int32"), lz.shared(1024, "int32")
    src.array[:] = np.arange(1024)
    dst.array[:] = -7
    lz.copy(dst, src, wait=[gate], signal=done)
    assert not done.wait(timeout=0.2)  # a timed wait answers "not yet"
    assert not done.is_signalled and (dst.array == -7).all()
    gate.signal()
    assert done.wait()
    np.testing.assert_array_equal(dst.array, np.arange(1024))


def test_an_event_reset_is_unsignalled_until_signalled_again(lz):
    event = lz.event_pool(1).event()
    assert not event.is_signalled
    event.signal()
    assert event.is_signalled and event.wait(timeout=0)
    event.reset()
    assert not event.is_signalled and not event.wait(timeout=0.01)
    event.signal()
    assert event.is_signalled


def test_copies_on_one_list_run_in_order_and_signal_what_they_are_given(lz):
    pool = lz.event_pool(1)
    signalled = pool.event()
    a, b, c = (lz.shared(4096, "uint8") for _ in range(3))
    a.array[:] = 3
    lz.copy(b, a)
    lz.copy(c, b, signal=signalled)
    assert signalled.wait()
    assert (c.array == 3).all()


def test_a_device_allocation_is_reached_through_copies(lz):
    device = lz.device_memory(256)
    source, back = lz.shared(64, "float32"), lz.shared(64, "float32")
    source.array[:] = np.linspace(0, 1, 64)
    lz.copy(device, source)
    lz.copy(back, device)
    assert lz.synchronize()
    np.testing.assert_array_equal(back.array, source.array)


def test_a_list_synchronize_with_a_timeout_reports_work_still_waiting(lz):
    command_list = lz.new_command_list()
    gate = lz.event_pool(1).event()
    src, dst = lz.shared(16), lz.shared(16)
    lz.copy(dst, src, command_list=command_list, wait=[gate])
    assert not lz.synchronize(command_list, timeout=0.05)
    gate.signal()
    assert lz.synchronize(command_list)


# --- modules and kernels ------------------------------------------------------------


def test_a_module_built_from_opencl_c_runs_with_pointer_local_and_value_arguments(lz, api):
    result, module, log = _module(api, lz, SOURCE, ZE_MODULE_FORMAT_OPENCL_C)
    assert result == ZE_RESULT_SUCCESS, log
    out, expected = _run_scale_rows(api, lz, module)
    np.testing.assert_array_equal(out, expected)
    assert api[1].zeModuleDestroy(module) == ZE_RESULT_SUCCESS


def test_a_module_rebuilt_from_its_native_binary_still_knows_which_arguments_are_pointers(lz, api):
    _, built, _ = _module(api, lz, SOURCE, ZE_MODULE_FORMAT_OPENCL_C)
    binary = _native_binary(api, built)
    assert api[1].zeModuleDestroy(built) == ZE_RESULT_SUCCESS
    result, module, log = _module(api, lz, binary, ZE_MODULE_FORMAT_NATIVE)
    assert result == ZE_RESULT_SUCCESS, log
    out, expected = _run_scale_rows(api, lz, module, rows=5, width=8, factor=3.0)
    np.testing.assert_array_equal(out, expected)


def test_a_native_binary_made_in_another_process_runs_here(lz, api):
    binary = emulated.run_in_child(_built_from_source_binary)
    result, module, log = _module(api, lz, binary, ZE_MODULE_FORMAT_NATIVE)
    assert result == ZE_RESULT_SUCCESS, log
    out, expected = _run_scale_rows(api, lz, module, rows=3, width=32, factor=-2.0)
    np.testing.assert_array_equal(out, expected)


def test_a_module_lists_its_kernels_and_refuses_unknown_names(lz, api):
    ffi, lib = api
    _, module, _ = _module(api, lz, SOURCE, ZE_MODULE_FORMAT_OPENCL_C)
    count = ffi.new("uint32_t *", 0)
    assert lib.zeModuleGetKernelNames(module, count, ffi.NULL) == ZE_RESULT_SUCCESS
    names = ffi.new("const char *[]", count[0])
    assert lib.zeModuleGetKernelNames(module, count, names) == ZE_RESULT_SUCCESS
    assert sorted(ffi.string(names[i]).decode() for i in range(count[0])) == ["scale_rows", "unused"]
    assert _create_kernel(api, module, b"no_such_kernel") == (ZE_RESULT_ERROR_INVALID_KERNEL_NAME, None)


def test_a_pointer_argument_of_the_wrong_size_is_refused(lz, api):
    ffi, lib = api
    _, module, _ = _module(api, lz, SOURCE, ZE_MODULE_FORMAT_OPENCL_C)
    result, kernel = _create_kernel(api, module, b"scale_rows")
    assert result == ZE_RESULT_SUCCESS
    assert lib.zeKernelSetArgumentValue(kernel, 0, 4, ffi.new("int *", 0)) == (
        ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE
    )
    assert lib.zeKernelDestroy(kernel) == ZE_RESULT_SUCCESS


def test_a_kernel_keeps_its_module_program_alive_after_the_module_is_destroyed(lz, api):
    ffi, lib = api
    _, module, _ = _module(api, lz, SOURCE, ZE_MODULE_FORMAT_OPENCL_C)
    result, kernel = _create_kernel(api, module, b"unused")
    assert result == ZE_RESULT_SUCCESS
    assert lib.zeModuleDestroy(module) == ZE_RESULT_SUCCESS
    nothing = lz.shared(4, "int32")
    assert lib.zeKernelSetArgumentValue(kernel, 0, 8, ffi.new("void **", ffi.cast("void *", nothing.address))) == 0
    groups = ffi.new("ze_group_count_t *", {"groupCountX": 1, "groupCountY": 1, "groupCountZ": 1})
    assert lib.zeCommandListAppendLaunchKernel(
        _ptr(ffi, "ze_command_list_handle_t", lz.command_list), kernel, groups, ffi.NULL, 0, ffi.NULL
    ) == ZE_RESULT_SUCCESS
    assert lz.synchronize()
    assert lib.zeKernelDestroy(kernel) == ZE_RESULT_SUCCESS


def test_a_binary_that_is_not_the_loaders_own_is_refused(lz, api):
    result, module, _ = _module(api, lz, b"\x7fELF not an envelope" * 4, ZE_MODULE_FORMAT_NATIVE)
    assert result == ZE_RESULT_ERROR_INVALID_NATIVE_BINARY and module is None


def test_a_build_failure_is_reported_with_its_log(lz, api):
    result, module, log = _module(api, lz, b"kernel void broken( {", ZE_MODULE_FORMAT_OPENCL_C)
    assert result == ZE_RESULT_ERROR_MODULE_BUILD_FAILURE and module is None
    assert "error" in log.lower()
