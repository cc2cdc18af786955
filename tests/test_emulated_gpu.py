"""The emulated Intel GPU (dnnl_interop.testing.emulated_gpu): the mechanism.

This session cannot switch the emulated GPU on (it uses oneDNN's CPU engine
and pyopencl's CPU devices), so everything that needs it runs in children:
``emulated_gpu.run_in_child`` (functions of this module), plain subprocesses
(what a process without the layer does), and child pytest sessions (the
plugin). The layer's loader interface is also called directly, through
ctypes, on a private copy of the library with a made-up dispatch table.
tests/gpu holds what real oneDNN does on the emulated GPU.
"""

from __future__ import annotations

import ctypes
import gc
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from conftest import ROOT
from dnnl_interop import _elf
from dnnl_interop.testing import emulated_gpu
from dnnl_interop.testing._child import ChildTraceback

CL_SUCCESS = 0
CL_DEVICE_NOT_FOUND = -1
CL_OUT_OF_RESOURCES = -5
CL_INVALID_VALUE = -30
CL_INVALID_PROPERTY = -64
CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_GPU = 2, 4
CL_DEVICE_TYPE = 0x1000
CL_DEVICE_VENDOR_ID = 0x1001
CL_DEVICE_IP_VERSION_INTEL = 0x4250
CL_DEVICE_SHARED_SYSTEM_MEM_CAPABILITIES_INTEL = 0x4194
CL_PROGRAM_REFERENCE_COUNT = 0x1160
CL_PROGRAM_BINARY_SIZES = 0x1165
CL_KERNEL_PROGRAM = 0x1194
CL_LAYER_API_VERSION, CL_LAYER_NAME = 0x4240, 0x4241

# What the layer replaces (EMULATED_GPU.md; kernels hold their program).
OVERRIDDEN = {
    "clGetDeviceIDs",
    "clGetDeviceInfo",
    "clCreateKernel",
    "clCreateKernelsInProgram",
    "clReleaseKernel",
    "clCloneKernel",
    # counted, then passed on (host waits)
    "clFinish",
    "clWaitForEvents",
    "clGetEventInfo",
    "clEnqueueReadBuffer",
    "clEnqueueWriteBuffer",
    "clEnqueueMapBuffer",
}
KERNELS = "kernel void twice(global float *x) { x[get_global_id(0)] *= 2; }\n" \
          "kernel void thrice(global float *x) { x[get_global_id(0)] *= 3; }\n"


def _dispatch_entries() -> list[str]:
    """The ICD dispatch table's entry names, in order, from headers/khronos."""
    text = (ROOT / "headers" / "khronos" / "cl_icd_subset.h").read_text()
    body = text[text.index("typedef struct _cl_icd_dispatch {"):text.index("} cl_icd_dispatch;")]
    return re.findall(r"\*\s*(cl\w+);", body)


ENTRIES = _dispatch_entries()


def _plain_run(code: str, env: dict[str, str] | None = None, timeout: float = 120):
    """Run ``code`` in a fresh interpreter (no layer unless ``env`` has it)."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=os.environ.copy() if env is None else env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _last_json(done) -> dict:
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


# --- the library ----------------------------------------------------------------


@pytest.fixture
def layer(tmp_path):
    """The layer's loader interface, from a private copy (fresh per-process state)."""
    copy = tmp_path / "layer-copy.so"
    shutil.copy(emulated_gpu.layer_path(), copy)
    library = ctypes.CDLL(str(copy))
    library.clGetLayerInfo.argtypes = [ctypes.c_uint, ctypes.c_size_t, ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]
    init_args = [ctypes.c_uint, ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(ctypes.c_void_p)]
    library.clInitLayer.argtypes = init_args
    library.clInitLayerWithProperties.argtypes = [*init_args, ctypes.c_void_p]
    for name in ("clGetLayerInfo", "clInitLayer", "clInitLayerWithProperties", "clDeinitLayer"):
        getattr(library, name).restype = ctypes.c_int32
    return library


def _fake_table(entries: int = len(ENTRIES)):
    return (ctypes.c_void_p * entries)(*[0x10000 + 8 * i for i in range(entries)])


def _init(layer, table, entries: int | None = None, properties=None, with_properties=False):
    entries = len(table) if entries is None else entries
    count, out = ctypes.c_uint(), ctypes.c_void_p()
    if with_properties:
        status = layer.clInitLayerWithProperties(entries, table, ctypes.byref(count), ctypes.byref(out), properties)
    else:
        status = layer.clInitLayer(entries, table, ctypes.byref(count), ctypes.byref(out))
    if status != CL_SUCCESS:
        return status, None
    assert count.value == entries
    return status, list((ctypes.c_void_p * entries).from_address(out.value))


def test_the_layer_ships_beside_the_module_and_exports_the_loader_entry_points():
    path = emulated_gpu.layer_path()
    assert path.parent == Path(emulated_gpu.__file__).resolve().parent
    library = ctypes.CDLL(str(path))
    for name in ("clGetLayerInfo", "clInitLayer", "clInitLayerWithProperties", "clDeinitLayer"):
        assert hasattr(library, name), name
    # A plain library: no Python module init, and none of the OpenCL entry
    # points it replaces is exported (a loader must reach them only through
    # the table).
    for name in ("PyInit_libdnnl_interop_emulated_gpu", "clGetDeviceInfo", "clGetDeviceIDs", "clReleaseKernel"):
        assert not hasattr(library, name), name


def test_the_layer_links_no_opencl_or_python_library_and_reads_no_environment():
    path = emulated_gpu.layer_path()
    needed = _elf.needed(str(path))
    assert not [name for name in needed if name.startswith(("libOpenCL", "libpython"))], needed
    assert b"getenv" not in path.read_bytes()


def test_clGetLayerInfo_answers_api_version_100_and_a_name(layer):
    version, size = ctypes.c_uint(), ctypes.c_size_t()
    assert layer.clGetLayerInfo(CL_LAYER_API_VERSION, 4, ctypes.byref(version), ctypes.byref(size)) == CL_SUCCESS
    assert (version.value, size.value) == (100, 4)
    assert layer.clGetLayerInfo(CL_LAYER_NAME, 0, None, ctypes.byref(size)) == CL_SUCCESS
    name = ctypes.create_string_buffer(size.value)
    assert layer.clGetLayerInfo(CL_LAYER_NAME, size.value, name, None) == CL_SUCCESS
    assert b"emulated Intel GPU" in name.value


def test_clGetLayerInfo_refuses_a_short_buffer_and_unknown_queries(layer):
    version = ctypes.c_uint(7)
    assert layer.clGetLayerInfo(CL_LAYER_API_VERSION, 2, ctypes.byref(version), None) == CL_INVALID_VALUE
    assert version.value == 7
    assert layer.clGetLayerInfo(0x4242, 4, ctypes.byref(version), None) == CL_INVALID_VALUE


def test_clInitLayer_returns_the_loaders_table_with_only_the_emulation_entries_replaced(layer):
    table = _fake_table()
    status, ours = _init(layer, table)
    assert status == CL_SUCCESS
    changed = {ENTRIES[i] for i, (mine, theirs) in enumerate(zip(ours, table, strict=True)) if mine != theirs}
    assert changed == OVERRIDDEN


def test_a_larger_table_from_a_newer_loader_is_copied_whole(layer):
    table = _fake_table(len(ENTRIES) + 20)
    status, ours = _init(layer, table)
    assert status == CL_SUCCESS
    assert ours[len(ENTRIES):] == list(table)[len(ENTRIES):]


def test_each_loader_gets_entry_points_of_its_own_and_a_fifth_is_refused(layer):
    tables = [_init(layer, _fake_table())[1] for _ in range(4)]
    index = ENTRIES.index("clGetDeviceInfo")
    assert len({table[index] for table in tables}) == 4
    assert _init(layer, _fake_table()) == (CL_OUT_OF_RESOURCES, None)


def test_clInitLayerWithProperties_takes_no_properties_and_refuses_any(layer):
    assert _init(layer, _fake_table(), with_properties=True)[0] == CL_SUCCESS
    empty = (ctypes.c_uint64 * 1)(0)
    assert _init(layer, _fake_table(), properties=empty, with_properties=True)[0] == CL_SUCCESS
    some = (ctypes.c_uint64 * 3)(0x1234, 1, 0)
    assert _init(layer, _fake_table(), properties=some, with_properties=True) == (CL_INVALID_PROPERTY, None)


def test_a_loader_table_too_short_for_the_overrides_is_refused(layer):
    short = ENTRIES.index("clEnqueueMapBuffer")  # the last entry an override calls is missing
    assert _init(layer, _fake_table(short)) == (CL_INVALID_VALUE, None)


def test_clDeinitLayer_succeeds(layer):
    assert layer.clDeinitLayer() == CL_SUCCESS


def test_the_layer_exports_its_host_wait_counts_all_zero_before_any_call(layer):
    counts = (ctypes.c_ulonglong * 8)(*range(1, 9))
    assert layer.dnnl_interop_emulated_gpu_counts(counts, 8) == len(emulated_gpu.HostWaits._fields)
    assert list(counts) == [0, 0, 0, 0, 5, 6, 7, 8]  # only the counts it keeps are written


def test_host_waits_needs_the_emulated_gpu_on_in_this_process():
    assert not emulated_gpu.is_enabled()
    with pytest.raises(emulated_gpu.EmulatedGpuError, match=r"^host_waits: the emulated GPU is not on"):
        emulated_gpu.host_waits()


# --- what OpenCL reports with the layer on (children) -------------------------------


def _pyopencl_loader():
    """ctypes handle on pyopencl's ICD loader (calls through it pass the layer)."""
    (path,) = [p for p in emulated_gpu.opencl_loaders_loaded() if os.sep + "pyopencl" + os.sep in p]
    library = ctypes.CDLL(path)
    info_argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_void_p]
    library.clGetDeviceInfo.argtypes = info_argtypes
    library.clGetDeviceIDs.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint, ctypes.c_void_p,
                                       ctypes.POINTER(ctypes.c_uint)]
    library.clGetProgramInfo.argtypes = info_argtypes
    library.clGetKernelInfo.argtypes = library.clGetProgramInfo.argtypes
    library.clCreateKernel.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int32)]
    library.clCreateKernel.restype = ctypes.c_void_p
    library.clCreateKernelsInProgram.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_void_p,
                                                 ctypes.POINTER(ctypes.c_uint)]
    library.clCloneKernel.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int32)]
    library.clCloneKernel.restype = ctypes.c_void_p
    for name in ("clReleaseKernel", "clRetainProgram", "clReleaseProgram"):
        getattr(library, name).argtypes = [ctypes.c_void_p]
    return library


def _device_info(cl, device, param, ctype=ctypes.c_uint):
    value = ctype()
    status = cl.clGetDeviceInfo(device.int_ptr, param, ctypes.sizeof(value), ctypes.byref(value), None)
    return status, value.value if status == CL_SUCCESS else None


def _gpu_ids(cl, platform):
    count = ctypes.c_uint()
    status = cl.clGetDeviceIDs(platform.int_ptr, CL_DEVICE_TYPE_GPU, 0, None, ctypes.byref(count))
    if status != CL_SUCCESS:
        return status, []
    ids = (ctypes.c_void_p * count.value)()
    assert cl.clGetDeviceIDs(platform.int_ptr, CL_DEVICE_TYPE_GPU, count.value, ids, None) == CL_SUCCESS
    return status, list(ids)


def _device_facts() -> dict:
    """Each real device's answers to the overridden queries, with the emulated GPU on."""
    gpu = emulated_gpu.enable()
    import pyopencl

    cl = _pyopencl_loader()
    facts = {"emulated": gpu.device.int_ptr}
    for platform in pyopencl.get_platforms():
        for device in platform.get_devices():
            facts[platform.name] = {
                "device": device.int_ptr,
                "type": _device_info(cl, device, CL_DEVICE_TYPE, ctypes.c_uint64),
                "vendor_id": _device_info(cl, device, CL_DEVICE_VENDOR_ID),
                "ip_version": _device_info(cl, device, CL_DEVICE_IP_VERSION_INTEL),
                "shared_system_memory": _device_info(
                    cl, device, CL_DEVICE_SHARED_SYSTEM_MEM_CAPABILITIES_INTEL, ctypes.c_uint64
                ),
                "gpu_ids": _gpu_ids(cl, platform),
                "name": device.name,
            }
    return facts


@pytest.fixture(scope="module")
def device_facts():
    return emulated_gpu.run_in_child(_device_facts)


def test_the_intel_cpu_device_is_an_intel_gen9_gpu(device_facts):
    intel = device_facts[emulated_gpu.PLATFORM_NAME]
    assert intel["device"] == device_facts["emulated"]
    assert intel["type"] == (CL_SUCCESS, CL_DEVICE_TYPE_GPU)
    assert intel["vendor_id"] == (CL_SUCCESS, 0x8086)
    assert intel["ip_version"] == (CL_SUCCESS, emulated_gpu.IP_VERSION) == (CL_SUCCESS, 0x02400000)
    assert intel["shared_system_memory"] == (CL_SUCCESS, 0)


def test_a_gpu_query_on_the_intel_platform_lists_its_cpu_device(device_facts):
    intel = device_facts[emulated_gpu.PLATFORM_NAME]
    assert intel["gpu_ids"] == (CL_SUCCESS, [intel["device"]])


def test_pocl_passes_through_unchanged(device_facts):
    pocl = device_facts["Portable Computing Language"]
    assert pocl["type"] == (CL_SUCCESS, CL_DEVICE_TYPE_CPU)
    assert pocl["ip_version"][0] != CL_SUCCESS  # PoCL does not know the Intel query
    assert pocl["gpu_ids"] == (CL_DEVICE_NOT_FOUND, [])


def _without_layer(function: str, *args):
    """``function(*args)`` of this module, in a fresh process without the layer (JSON result)."""
    env = {k: v for k, v in os.environ.items() if k != "OPENCL_LAYERS"}
    done = _plain_run(
        f"""
        import json, sys
        sys.path[:0] = {[str(ROOT / "tests")]!r}
        import {__name__} as module
        print(json.dumps(module.{function}(*{args!r})))
        """,
        env=env,
    )
    return _last_json(done)


def _program_reference_counts(cl, program) -> int:
    count = ctypes.c_uint()
    assert cl.clGetProgramInfo(program, CL_PROGRAM_REFERENCE_COUNT, 4, ctypes.byref(count), None) == CL_SUCCESS
    return count.value


def _built_program(device_kind: str):
    """A built program (a raw handle the caller owns) on the emulated GPU or on PoCL."""
    import pyopencl

    if device_kind == "emulated":
        device = emulated_gpu.enable().device
    else:
        (device,) = [d for p in pyopencl.get_platforms() if "Portable" in p.name for d in p.get_devices()]
    context = pyopencl.Context([device])
    built = pyopencl.Program(context, KERNELS).build()
    cl = _pyopencl_loader()
    assert cl.clRetainProgram(built.int_ptr) == CL_SUCCESS
    handle = built.int_ptr
    del built
    gc.collect()
    return cl, handle, context


def _kernel_references_on_the_program(device_kind: str) -> dict:
    """The program's reference count as kernels are made (three ways) and released."""
    cl, program, _context = _built_program(device_kind)
    error = ctypes.c_int32()
    counts = {"alone": _program_reference_counts(cl, program)}
    kernel = cl.clCreateKernel(program, b"twice", ctypes.byref(error))
    assert error.value == CL_SUCCESS
    counts["kernel"] = _program_reference_counts(cl, program)
    clone = cl.clCloneKernel(kernel, ctypes.byref(error))
    assert error.value == CL_SUCCESS
    counts["clone"] = _program_reference_counts(cl, program)
    both, made = (ctypes.c_void_p * 2)(), ctypes.c_uint()
    assert cl.clCreateKernelsInProgram(program, 2, both, ctypes.byref(made)) == CL_SUCCESS
    counts["all kernels"] = (_program_reference_counts(cl, program), made.value)
    for handle in (kernel, clone, *both):
        assert cl.clReleaseKernel(handle) == CL_SUCCESS
    counts["released"] = _program_reference_counts(cl, program)
    cl.clReleaseProgram(program)
    return counts


def test_each_kernel_holds_its_program_until_its_last_release():
    counts = emulated_gpu.run_in_child(_kernel_references_on_the_program, "emulated")
    assert counts == {"alone": 1, "kernel": 2, "clone": 3, "all kernels": (5, 2), "released": 1}


def _pocl_cannot_build() -> str | None:
    """Why PoCL cannot build a kernel on this machine (its LLVM does not know
    every host CPU: "unknown target CPU 'generic'"), or None if it can."""
    done = _plain_run(
        f"""
        import pyopencl
        (device,) = [d for p in pyopencl.get_platforms() if "Portable" in p.name for d in p.get_devices()]
        pyopencl.Program(pyopencl.Context([device]), {KERNELS!r}).build()
        """,
        env={k: v for k, v in os.environ.items() if k != "OPENCL_LAYERS"},
    )
    if done.returncode == 0:
        return None
    reason = next((line.strip() for line in done.stderr.splitlines() if "error:" in line), done.stderr[-200:])
    return f"PoCL cannot build a kernel on this host ({reason})"


def test_kernels_of_other_platforms_see_the_same_program_references_as_without_the_layer():
    reason = _pocl_cannot_build()
    if reason is not None:  # a property of the machine's CPU and PoCL's LLVM, not of the layer
        pytest.skip(reason)
    with_layer = emulated_gpu.run_in_child(_kernel_references_on_the_program, "pocl")
    without = _without_layer("_kernel_references_on_the_program", "pocl")
    assert json.loads(json.dumps(with_layer)) == without


def _program_of_a_kernel_after_the_program_is_released() -> tuple[int, int]:
    cl, program, _context = _built_program("emulated")
    error = ctypes.c_int32()
    kernel = cl.clCreateKernel(program, b"twice", ctypes.byref(error))
    assert error.value == CL_SUCCESS
    assert cl.clReleaseProgram(program) == CL_SUCCESS  # the caller's only reference
    found = ctypes.c_void_p()
    assert cl.clGetKernelInfo(kernel, CL_KERNEL_PROGRAM, 8, ctypes.byref(found), None) == CL_SUCCESS
    size = ctypes.c_size_t()
    status = cl.clGetProgramInfo(found, CL_PROGRAM_BINARY_SIZES, 8, ctypes.byref(size), None)
    cl.clReleaseKernel(kernel)
    return status, size.value


def test_a_live_kernels_program_stays_readable_after_the_caller_releases_it():
    # oneDNN reads a kernel's program binary for primitive cache blobs.
    status, size = emulated_gpu.run_in_child(_program_of_a_kernel_after_the_program_is_released)
    assert status == CL_SUCCESS and size > 0


def test_without_the_layer_the_cpu_runtime_invalidates_a_released_programs_kernels():
    # Why the layer holds programs: Intel's CPU runtime, alone, loses them.
    done = _plain_run(
        f"""
        import gc, json, pyopencl as cl
        (device,) = [d for p in cl.get_platforms() if p.name == {emulated_gpu.PLATFORM_NAME!r}
                     for d in p.get_devices()]
        context = cl.Context([device])
        program = cl.Program(context, {KERNELS!r}).build()
        kernel = cl.Kernel(program, "twice")
        del program
        gc.collect()
        try:
            kernel.get_info(cl.kernel_info.PROGRAM).get_info(cl.program_info.BINARY_SIZES)
            print(json.dumps("readable"))
        except cl.Error as exc:
            print(json.dumps(exc.code))
        """
    )
    assert _last_json(done) == -44  # CL_INVALID_PROGRAM


def _onednn_engines() -> dict:
    import dnnl_interop as dnnl
    from dnnl_interop import ocl

    gpu = emulated_gpu.enable()
    with ocl.make_engine(gpu.device, gpu.context) as engine:
        kind = engine.kind.name
    try:
        dnnl.Engine.cpu()
        cpu = "made"
    except dnnl.DnnlError as exc:
        cpu = type(exc).__name__
    return {
        "gpu_engine": kind,
        "gpus": dnnl.Engine.get_count(dnnl.EngineKind.GPU),
        "cpus": dnnl.Engine.get_count(dnnl.EngineKind.CPU),
        "cpu_engine": cpu,
    }


def test_oneDNN_makes_a_gpu_engine_there_and_no_cpu_engine():
    # The documented price: SYCL sees a GPU and no CPU in a process with the layer.
    assert emulated_gpu.run_in_child(_onednn_engines) == {
        "gpu_engine": "GPU",
        "gpus": 1,
        "cpus": 0,
        "cpu_engine": "InvalidArgumentsError",
    }


# --- enable(): never half-on ---------------------------------------------------------

_REFUSAL = """
    import json, os
    from dnnl_interop.testing import emulated_gpu
    {before}
    try:
        emulated_gpu.enable()
        outcome = {{"enabled": True}}
    except emulated_gpu.OpenCLAlreadyLoadedError as exc:
        outcome = {{"error": type(exc).__name__, "message": str(exc), "loaders": exc.loaders}}
    outcome["OPENCL_LAYERS"] = os.environ.get("OPENCL_LAYERS")
    outcome["enabled_now"] = emulated_gpu.is_enabled()
    print(json.dumps(outcome))
"""


@pytest.mark.parametrize(
    "before, loader",
    [
        ("import pyopencl", "pyopencl"),
        ("import dnnl_interop; dnnl_interop.version()", os.path.join("lib", "libOpenCL.so.1")),
    ],
    ids=["after-import-pyopencl", "after-the-first-oneDNN-call"],
)
def test_enabling_after_opencl_was_loaded_raises_what_to_do_and_changes_nothing(before, loader):
    env = {k: v for k, v in os.environ.items() if k != "OPENCL_LAYERS"}
    outcome = _last_json(_plain_run(_REFUSAL.format(before=before), env=env))
    assert outcome["error"] == "OpenCLAlreadyLoadedError"
    assert any(loader in path for path in outcome["loaders"]), outcome["loaders"]
    for advice in ("before importing pyopencl", "--emulated-gpu", "run_in_child"):
        assert advice in outcome["message"]
    assert outcome["OPENCL_LAYERS"] is None
    assert outcome["enabled_now"] is False


def test_a_process_started_with_child_environment_may_import_pyopencl_first():
    env = {k: v for k, v in os.environ.items() if k != "OPENCL_LAYERS"}
    outcome = _last_json(_plain_run(_REFUSAL.format(before="import pyopencl"), env=emulated_gpu.child_environment(env)))
    assert outcome["enabled"] is True and outcome["enabled_now"] is True


def _enable_twice() -> dict:
    first = emulated_gpu.enable()
    second = emulated_gpu.enable()
    with emulated_gpu.enabled() as third:
        pass
    return {
        "same": first is second is third,
        "device_type": first.device.type,
        "context_devices": [d.int_ptr for d in first.context.devices],
        "device": first.device.int_ptr,
        "environment": {
            name: os.environ.get(name) for name in ("OPENCL_LAYERS", "OCL_ICD_FILENAMES", "OCL_ICD_VENDORS")
        },
        "still_enabled": emulated_gpu.is_enabled(),
    }


@pytest.fixture(scope="module")
def enabled_twice():
    return emulated_gpu.run_in_child(_enable_twice)


def test_enabling_again_returns_the_same_gpu_and_the_context_manager_too(enabled_twice):
    outcome = enabled_twice
    assert outcome["same"] is True and outcome["still_enabled"] is True
    assert outcome["device_type"] == CL_DEVICE_TYPE_GPU
    assert outcome["context_devices"] == [outcome["device"]]


def test_enabling_names_the_layer_and_the_runtime_to_both_loaders(enabled_twice):
    environment = enabled_twice["environment"]
    assert str(emulated_gpu.layer_path()) in environment["OPENCL_LAYERS"].split(os.pathsep)
    assert str(emulated_gpu.runtime_path()) in environment["OCL_ICD_FILENAMES"].split(os.pathsep)
    vendors = [path.read_text().strip() for path in Path(environment["OCL_ICD_VENDORS"]).iterdir()]
    assert vendors.count(str(emulated_gpu.runtime_path())) == 1


def test_child_environment_leaves_this_process_untouched():
    before = dict(os.environ)
    env = emulated_gpu.child_environment()
    assert dict(os.environ) == before
    assert env["OPENCL_LAYERS"] != before.get("OPENCL_LAYERS")


def test_child_environment_keeps_other_layers_and_icd_files():
    base = {"OPENCL_LAYERS": "/opt/trace/libtrace_layer.so", "OCL_ICD_FILENAMES": "/opt/other/libother.so"}
    env = emulated_gpu.child_environment(base)
    assert env["OPENCL_LAYERS"].split(os.pathsep) == ["/opt/trace/libtrace_layer.so", str(emulated_gpu.layer_path())]
    assert env["OCL_ICD_FILENAMES"].split(os.pathsep) == ["/opt/other/libother.so", str(emulated_gpu.runtime_path())]
    assert emulated_gpu.child_environment(env) == env  # applying it twice changes nothing


def test_the_vendors_directory_keeps_other_registrations_and_drops_other_intel_cpu_runtimes(tmp_path):
    user = tmp_path / "vendors"
    user.mkdir()
    (user / "other.icd").write_text("/opt/other/libother.so\n")
    (user / "old-intel.icd").write_text("/opt/intel/oneapi/lib/libintelocl.so\n")
    (user / "notes.txt").write_text("not an ICD file\n")
    before = {p.name: p.read_text() for p in user.iterdir()}

    vendors = emulated_gpu.child_environment({"OCL_ICD_VENDORS": str(user)})["OCL_ICD_VENDORS"]

    files = {path.name: path.read_text() for path in Path(vendors).iterdir()}
    assert files.pop("other.icd") == "/opt/other/libother.so\n"
    assert list(files.values()) == [f"{emulated_gpu.runtime_path()}\n"]
    assert {p.name: p.read_text() for p in user.iterdir()} == before
    assert emulated_gpu.child_environment({"OCL_ICD_VENDORS": str(user)})["OCL_ICD_VENDORS"] == vendors


# --- run_in_child ------------------------------------------------------------------------


def _describe(value):
    gpu = emulated_gpu.enable()
    return {"value": value * 2, "pid": os.getpid(), "type": gpu.device.type}


def _raise_key_error(key):
    raise KeyError(key)


class _Unpicklable(Exception):
    def __init__(self, a, b):
        super().__init__(f"{a}/{b}")


def _raise_unpicklable():
    raise _Unpicklable(1, 2)


def _abort():
    os.abort()


def _sleep(seconds):
    time.sleep(seconds)


def _talk(text):
    print(text)
    print(f"err:{text}", file=sys.stderr)
    return len(text)


def test_run_in_child_returns_the_result_of_a_fresh_process_with_the_gpu_on():
    result = emulated_gpu.run_in_child(_describe, 21)
    assert result["value"] == 42
    assert result["pid"] != os.getpid()
    assert result["type"] == CL_DEVICE_TYPE_GPU


def test_run_in_child_raises_the_childs_exception_with_its_traceback():
    with pytest.raises(KeyError) as caught:
        emulated_gpu.run_in_child(_raise_key_error, "missing")
    assert caught.value.args == ("missing",)
    cause = caught.value.__cause__
    assert isinstance(cause, ChildTraceback)
    assert "_raise_key_error" in cause.text and "KeyError" in cause.text


def test_an_exception_that_does_not_pickle_back_arrives_as_its_summary():
    with pytest.raises(emulated_gpu.EmulatedGpuError, match=r"_Unpicklable: 1/2") as caught:
        emulated_gpu.run_in_child(_raise_unpicklable)
    assert "_raise_unpicklable" in caught.value.__cause__.text


def test_a_child_that_crashes_raises_child_process_failed_with_the_signal():
    with pytest.raises(emulated_gpu.ChildProcessFailedError, match="SIGABRT") as caught:
        emulated_gpu.run_in_child(_abort)
    assert caught.value.returncode == -signal.SIGABRT


def test_a_child_past_its_timeout_is_killed_and_reported():
    with pytest.raises(emulated_gpu.ChildProcessFailedError, match="did not finish within 2") as caught:
        emulated_gpu.run_in_child(_sleep, 60, timeout=2)
    assert caught.value.returncode is None


def test_the_childs_output_is_relayed(capsys):
    assert emulated_gpu.run_in_child(_talk, "hello from the child") == 20
    out, err = capsys.readouterr()
    assert "hello from the child" in out
    assert "err:hello from the child" in err


def test_run_in_child_runs_a_function_of_a_scripts_main(tmp_path):
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(
        """
        from dnnl_interop.testing import emulated_gpu

        def device_type():
            return emulated_gpu.enable().device.type

        if __name__ == "__main__":
            print(emulated_gpu.run_in_child(device_type))
        """
    ))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [str(CL_DEVICE_TYPE_GPU)]


def test_run_in_child_refuses_an_interactively_defined_function():
    done = _plain_run(
        """
        from dnnl_interop.testing import emulated_gpu
        def f():
            return 1
        try:
            emulated_gpu.run_in_child(f)
        except ValueError as exc:
            print(exc)
        """
    )
    assert "defined interactively" in done.stdout, done.stdout + done.stderr


# --- the pytest plugin ---------------------------------------------------------------------


def _pytest_session(tmp_path, test_code: str, *args: str, conftest: str | None = None, ini: str | None = None):
    (tmp_path / "test_case.py").write_text(textwrap.dedent(test_code))
    if conftest is not None:
        (tmp_path / "conftest.py").write_text(textwrap.dedent(conftest))
    if ini is not None:
        (tmp_path / "pytest.ini").write_text(textwrap.dedent(ini))
    env = {k: v for k, v in os.environ.items() if k not in ("OPENCL_LAYERS", "PYTEST_ADDOPTS")}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA", *args, "test_case.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _passed(done, count: int = 1) -> bool:
    return done.returncode == 0 and f"{count} passed" in done.stdout


def test_the_plugin_is_installed_and_inert_unless_used(tmp_path):
    done = _pytest_session(
        tmp_path,
        """
        import sys

        def test_inert(pytestconfig):
            assert pytestconfig.pluginmanager.hasplugin("dnnl_interop_emulated_gpu")
            assert "pyopencl" not in sys.modules
            assert "dnnl_interop.testing.emulated_gpu" not in sys.modules
            import dnnl_interop
            assert dnnl_interop.loaded_library() is None
        """,
    )
    assert _passed(done), done.stdout + done.stderr


_GPU_EVERYWHERE = """
    import pyopencl as cl

    def test_the_intel_device_is_a_gpu():
        (device,) = [d for p in cl.get_platforms() if p.name == "Intel(R) OpenCL" for d in p.get_devices()]
        assert device.type == cl.device_type.GPU
"""
# A conftest that uses OpenCL as it is imported: the option must act before it.
_CONFTEST_USING_OPENCL = "import pyopencl\npyopencl.get_platforms()\n"


def test_the_option_switches_the_gpu_on_before_conftest_files_load(tmp_path):
    done = _pytest_session(tmp_path, _GPU_EVERYWHERE, "--emulated-gpu", conftest=_CONFTEST_USING_OPENCL)
    assert _passed(done), done.stdout + done.stderr
    assert "emulated Intel GPU:" in done.stdout  # the report header


def test_the_ini_setting_does_the_same(tmp_path):
    done = _pytest_session(
        tmp_path, _GPU_EVERYWHERE, conftest=_CONFTEST_USING_OPENCL, ini="[pytest]\nemulated_gpu = true\n"
    )
    assert _passed(done), done.stdout + done.stderr


def test_without_the_option_nothing_is_switched_on(tmp_path):
    done = _pytest_session(tmp_path, _GPU_EVERYWHERE.replace("cl.device_type.GPU", "cl.device_type.CPU"))
    assert _passed(done), done.stdout + done.stderr


def test_the_fixture_gives_a_device_on_which_oneDNN_makes_a_gpu_engine(tmp_path):
    done = _pytest_session(
        tmp_path,
        """
        from dnnl_interop import EngineKind, ocl

        def test_engine(emulated_gpu):
            with ocl.make_engine(emulated_gpu.device, emulated_gpu.context) as engine:
                assert engine.kind == EngineKind.GPU
        """,
    )
    assert _passed(done), done.stdout + done.stderr


def test_the_fixture_after_opencl_was_used_errors_with_what_to_do(tmp_path):
    done = _pytest_session(
        tmp_path,
        """
        import pyopencl

        def test_engine(emulated_gpu):
            pass
        """,
    )
    assert done.returncode != 0
    assert "1 error" in done.stdout
    assert "OpenCLAlreadyLoadedError" in done.stdout and "--emulated-gpu" in done.stdout


# --- info --emulated-gpu --------------------------------------------------------------------


def _blob_id_digest() -> str:
    import hashlib

    from dnnl_interop import ocl

    return hashlib.sha256(ocl.get_engine_cache_blob_id(emulated_gpu.enable().device)).hexdigest()


def test_info_emulated_gpu_shows_the_device_as_oneDNN_sees_it():
    done = subprocess.run(
        [sys.executable, "-m", "dnnl_interop", "info", "--emulated-gpu", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    facts = json.loads(done.stdout)
    assert facts["exit_code"] == 0 and facts["error"] is None
    assert facts["device"]["type"] == "GPU"
    assert facts["device"]["vendor_id"] == 0x8086
    assert facts["device"]["platform"] == emulated_gpu.PLATFORM_NAME
    assert facts["gpu_engine"] == {"ok": True, "error": None}
    assert facts["cache_blob_id"]["sha256"] == emulated_gpu.run_in_child(_blob_id_digest)
    assert facts["cache_blob"]["ok"] and facts["cache_blob"]["length"] > 0


def test_info_emulated_gpu_as_text():
    done = subprocess.run(
        [sys.executable, "-m", "dnnl_interop", "info", "--emulated-gpu"], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert re.search(r"type:\s+GPU", done.stdout)
    assert re.search(r"GPU engine:\s+yes", done.stdout)
    assert re.search(r"cache blob id:\s+\d+ bytes, sha256 [0-9a-f]{64}", done.stdout)


def test_info_emulated_gpu_without_intels_runtime_says_what_to_install_and_exits_6():
    done = _plain_run(
        """
        import sys
        from dnnl_interop.testing import emulated_gpu
        from dnnl_interop.__main__ import main
        emulated_gpu.RUNTIME_FILENAME = "libintelocl-not-installed.so"
        sys.exit(main(["info", "--emulated-gpu"]))
        """
    )
    assert done.returncode == 6, done.stdout + done.stderr
    assert "NOT AVAILABLE: EmulatedGpuUnavailableError" in done.stdout
    assert "pip install intel-opencl-rt" in done.stdout
