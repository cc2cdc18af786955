"""An emulated Level Zero GPU: real oneDNN's Level Zero engine, in tests, without a GPU.

No Level Zero runtime exists for CPUs. This module loads, into the process
that asks for it, an *emulated Level Zero loader* shipped compiled with this
package: a library with the soname ``libze_loader.so.1`` (the one libdnnl
opens by name) that answers the Level Zero calls oneDNN makes as one Intel
Gen9-like GPU and does the work with Intel's CPU OpenCL runtime and its
unified shared memory. It needs the emulated OpenCL GPU too (oneDNN's Level
Zero engine reads device extensions through an OpenCL GPU with the same
UUID), which :func:`enable` switches on first.

Use::

    from dnnl_interop.testing import emulated_level_zero
    from dnnl_interop import ze

    lz = emulated_level_zero.enable()      # first, before any oneDNN call
    engine = ze.make_engine(lz.driver, lz.device, lz.context)
    stream = ze.make_stream(engine, lz.command_list)
    src = lz.shared((64, 32), "float32")   # shared USM; src.array is a numpy view
    memory = ze.make_memory(desc, engine, src.array)

or the pytest fixture ``emulated_level_zero`` (``pytest --emulated-level-zero``
switches it on for the whole session), or :func:`run_in_child` to run one
function in a fresh process with it on.

What it verifies: that oneDNN accepts your drivers, devices, contexts,
command lists, USM and events, and that its Level Zero path computes the
right data. What it does not: speed, or anything nGEN kernels do (only
oneDNN's generic OpenCL C kernels run on a Gen9-like device).

Rules, enforced:

* **Never half-on.** libdnnl initialises Level Zero once, at its first Level
  Zero call, and SYCL's own Level Zero adapter crashes on this loader (it
  calls loader internals), so the loader must be in place before libdnnl's
  first Level Zero call and ``ONEAPI_DEVICE_SELECTOR=opencl:*`` set before
  the SYCL runtime starts. :func:`enable` refuses with
  :class:`LevelZeroTooLateError` when the SYCL runtime has started or
  another ``libze_loader.so.1`` is loaded, and checks, through a real
  oneDNN call, that libdnnl talks to the emulated loader. It also needs the
  emulated OpenCL GPU, which must be enabled before OpenCL is first used
  (see :mod:`dnnl_interop.testing.emulated_gpu`).
* **A process of its own**, as for the emulated GPU: it cannot be switched
  off, and oneDNN's CPU engine does not work in that process.
* Enabling sets ``ONEAPI_DEVICE_SELECTOR=opencl:*`` in this process's
  environment (children inherit it), besides what the emulated GPU sets.
* Native objects made here live as long as the Python objects that own them:
  memory (:class:`UsmArray`, :class:`DeviceMemory`) until ``close()`` or
  collection, command lists and events until collection (a oneDNN stream
  keeps the command list it was made on). The driver, device, context and
  :attr:`EmulatedLevelZero.command_list` live as long as the process.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import _ze_handles
from . import emulated_gpu

if TYPE_CHECKING:

    import cffi
    import numpy

from .emulated_gpu import EmulatedGpuError, EmulatedGpuUnavailableError

__all__ = [
    "EmulatedLevelZero",
    "LevelZeroTooLateError",
    "LevelZeroError",
    "UsmArray",
    "DeviceMemory",
    "CommandList",
    "EventPool",
    "Event",
    "enable",
    "enabled",
    "is_enabled",
    "run_in_child",
    "loader_path",
    "DEVICE_SELECTOR",
    "IP_VERSION",
    "LOADER_FILENAME",
    "LOADER_SONAME",
]

LOADER_FILENAME = "libdnnl_interop_emulated_ze_loader.so"
"""The compiled emulated loader, installed beside this module."""
LOADER_SONAME = "libze_loader.so.1"
"""The name libdnnl opens the Level Zero loader by (the emulated loader's soname)."""
IP_VERSION = 0x02400000
"""The IP version the emulated device reports (Gen9)."""
DEVICE_SELECTOR = "opencl:*"
"""``ONEAPI_DEVICE_SELECTOR`` while the emulation is on: keeps SYCL's Level Zero adapter away."""

# The Level Zero declarations this module calls, from ze_api.h v1.11
# (headers/level_zero/); tests/test_emulated_level_zero.py compiles them
# against that header, so a field out of place fails there, not here.
_CDEF = """
typedef struct _ze_driver_handle_t *ze_driver_handle_t;
typedef struct _ze_device_handle_t *ze_device_handle_t;
typedef struct _ze_context_handle_t *ze_context_handle_t;
typedef struct _ze_command_list_handle_t *ze_command_list_handle_t;
typedef struct _ze_event_pool_handle_t *ze_event_pool_handle_t;
typedef struct _ze_event_handle_t *ze_event_handle_t;

typedef enum _ze_result_t {
    ZE_RESULT_SUCCESS = 0,
    ZE_RESULT_NOT_READY = 1,
    ZE_RESULT_ERROR_DEVICE_LOST = 0x70000001,
    ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY = 0x70000002,
    ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY = 0x70000003,
    ZE_RESULT_ERROR_MODULE_BUILD_FAILURE = 0x70000004,
    ZE_RESULT_ERROR_MODULE_LINK_FAILURE = 0x70000005,
    ZE_RESULT_ERROR_DEVICE_REQUIRES_RESET = 0x70000006,
    ZE_RESULT_ERROR_DEVICE_IN_LOW_POWER_STATE = 0x70000007,
    ZE_RESULT_EXP_ERROR_DEVICE_IS_NOT_VERTEX = 0x7ff00001,
    ZE_RESULT_EXP_ERROR_VERTEX_IS_NOT_DEVICE = 0x7ff00002,
    ZE_RESULT_EXP_ERROR_REMOTE_DEVICE = 0x7ff00003,
    ZE_RESULT_EXP_ERROR_OPERANDS_INCOMPATIBLE = 0x7ff00004,
    ZE_RESULT_EXP_RTAS_BUILD_RETRY = 0x7ff00005,
    ZE_RESULT_EXP_RTAS_BUILD_DEFERRED = 0x7ff00006,
    ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS = 0x70010000,
    ZE_RESULT_ERROR_NOT_AVAILABLE = 0x70010001,
    ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE = 0x70020000,
    ZE_RESULT_WARNING_DROPPED_DATA = 0x70020001,
    ZE_RESULT_ERROR_UNINITIALIZED = 0x78000001,
    ZE_RESULT_ERROR_UNSUPPORTED_VERSION = 0x78000002,
    ZE_RESULT_ERROR_UNSUPPORTED_FEATURE = 0x78000003,
    ZE_RESULT_ERROR_INVALID_ARGUMENT = 0x78000004,
    ZE_RESULT_ERROR_INVALID_NULL_HANDLE = 0x78000005,
    ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE = 0x78000006,
    ZE_RESULT_ERROR_INVALID_NULL_POINTER = 0x78000007,
    ZE_RESULT_ERROR_INVALID_SIZE = 0x78000008,
    ZE_RESULT_ERROR_UNSUPPORTED_SIZE = 0x78000009,
    ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT = 0x7800000a,
    ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT = 0x7800000b,
    ZE_RESULT_ERROR_INVALID_ENUMERATION = 0x7800000c,
    ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION = 0x7800000d,
    ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT = 0x7800000e,
    ZE_RESULT_ERROR_INVALID_NATIVE_BINARY = 0x7800000f,
    ZE_RESULT_ERROR_INVALID_GLOBAL_NAME = 0x78000010,
    ZE_RESULT_ERROR_INVALID_KERNEL_NAME = 0x78000011,
    ZE_RESULT_ERROR_INVALID_FUNCTION_NAME = 0x78000012,
    ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION = 0x78000013,
    ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION = 0x78000014,
    ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX = 0x78000015,
    ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE = 0x78000016,
    ZE_RESULT_ERROR_INVALID_KERNEL_ATTRIBUTE_VALUE = 0x78000017,
    ZE_RESULT_ERROR_INVALID_MODULE_UNLINKED = 0x78000018,
    ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE = 0x78000019,
    ZE_RESULT_ERROR_OVERLAPPING_REGIONS = 0x7800001a,
    ZE_RESULT_WARNING_ACTION_REQUIRED = 0x7800001b,
    ZE_RESULT_ERROR_INVALID_KERNEL_HANDLE = 0x7800001c,
    ZE_RESULT_ERROR_UNKNOWN = 0x7ffffffe,
    ZE_RESULT_FORCE_UINT32 = 0x7fffffff
    } ze_result_t;
typedef enum _ze_structure_type_t {
    ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES = 0x3,
    ZE_STRUCTURE_TYPE_CONTEXT_DESC = 0xd,
    ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC = 0xe,
    ZE_STRUCTURE_TYPE_EVENT_POOL_DESC = 0x10,
    ZE_STRUCTURE_TYPE_EVENT_DESC = 0x11,
    ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC = 0x15,
    ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC = 0x16,
    ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES = 0x17,
    ZE_STRUCTURE_TYPE_DEVICE_IP_VERSION_EXT = 0x1000f,
    ZE_STRUCTURE_TYPE_INIT_DRIVER_TYPE_DESC = 0x00020021,
    ZE_STRUCTURE_TYPE_FORCE_UINT32 = 0x7fffffff } ze_structure_type_t;
typedef enum _ze_memory_type_t { ZE_MEMORY_TYPE_UNKNOWN = 0, ZE_MEMORY_TYPE_HOST = 1,
    ZE_MEMORY_TYPE_DEVICE = 2, ZE_MEMORY_TYPE_SHARED = 3,
    ZE_MEMORY_TYPE_FORCE_UINT32 = 0x7fffffff } ze_memory_type_t;
typedef enum _ze_command_queue_mode_t { ZE_COMMAND_QUEUE_MODE_DEFAULT = 0,
    ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS = 1, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS = 2,
    ZE_COMMAND_QUEUE_MODE_FORCE_UINT32 = 0x7fffffff } ze_command_queue_mode_t;
typedef enum _ze_command_queue_priority_t { ZE_COMMAND_QUEUE_PRIORITY_NORMAL = 0,
    ZE_COMMAND_QUEUE_PRIORITY_FORCE_UINT32 = 0x7fffffff } ze_command_queue_priority_t;
typedef enum _ze_device_type_t { ZE_DEVICE_TYPE_GPU = 1,
    ZE_DEVICE_TYPE_FORCE_UINT32 = 0x7fffffff } ze_device_type_t;

typedef struct _ze_init_driver_type_desc_t { ze_structure_type_t stype; const void* pNext;
    uint32_t flags; } ze_init_driver_type_desc_t;
typedef struct _ze_device_uuid_t { uint8_t id[16]; } ze_device_uuid_t;
typedef struct _ze_device_properties_t { ze_structure_type_t stype; void* pNext;
    ze_device_type_t type; uint32_t vendorId; uint32_t deviceId; uint32_t flags;
    uint32_t subdeviceId; uint32_t coreClockRate; uint64_t maxMemAllocSize;
    uint32_t maxHardwareContexts; uint32_t maxCommandQueuePriority; uint32_t numThreadsPerEU;
    uint32_t physicalEUSimdWidth; uint32_t numEUsPerSubslice; uint32_t numSubslicesPerSlice;
    uint32_t numSlices; uint64_t timerResolution; uint32_t timestampValidBits;
    uint32_t kernelTimestampValidBits; ze_device_uuid_t uuid; char name[256];
    } ze_device_properties_t;
typedef struct _ze_device_ip_version_ext_t { ze_structure_type_t stype; const void* pNext;
    uint32_t ipVersion; } ze_device_ip_version_ext_t;
typedef struct _ze_context_desc_t { ze_structure_type_t stype; const void* pNext;
    uint32_t flags; } ze_context_desc_t;
typedef struct _ze_command_queue_desc_t { ze_structure_type_t stype; const void* pNext;
    uint32_t ordinal; uint32_t index; uint32_t flags; ze_command_queue_mode_t mode;
    ze_command_queue_priority_t priority; } ze_command_queue_desc_t;
typedef struct _ze_event_pool_desc_t { ze_structure_type_t stype; const void* pNext;
    uint32_t flags; uint32_t count; } ze_event_pool_desc_t;
typedef struct _ze_event_desc_t { ze_structure_type_t stype; const void* pNext;
    uint32_t index; uint32_t signal; uint32_t wait; } ze_event_desc_t;
typedef struct _ze_device_mem_alloc_desc_t { ze_structure_type_t stype; const void* pNext;
    uint32_t flags; uint32_t ordinal; } ze_device_mem_alloc_desc_t;
typedef struct _ze_host_mem_alloc_desc_t { ze_structure_type_t stype; const void* pNext;
    uint32_t flags; } ze_host_mem_alloc_desc_t;
typedef struct _ze_memory_allocation_properties_t { ze_structure_type_t stype; void* pNext;
    ze_memory_type_t type; uint64_t id; uint64_t pageSize; } ze_memory_allocation_properties_t;

ze_result_t zeInitDrivers(uint32_t* pCount, ze_driver_handle_t* phDrivers,
    ze_init_driver_type_desc_t* desc);
ze_result_t zeDeviceGet(ze_driver_handle_t hDriver, uint32_t* pCount,
    ze_device_handle_t* phDevices);
ze_result_t zeDeviceGetProperties(ze_device_handle_t hDevice,
    ze_device_properties_t* pDeviceProperties);
ze_result_t zeContextCreate(ze_driver_handle_t hDriver, const ze_context_desc_t* desc,
    ze_context_handle_t* phContext);
ze_result_t zeCommandListCreateImmediate(ze_context_handle_t hContext,
    ze_device_handle_t hDevice, const ze_command_queue_desc_t* altdesc,
    ze_command_list_handle_t* phCommandList);
ze_result_t zeCommandListDestroy(ze_command_list_handle_t hCommandList);
ze_result_t zeCommandListHostSynchronize(ze_command_list_handle_t hCommandList,
    uint64_t timeout);
ze_result_t zeCommandListAppendMemoryCopy(ze_command_list_handle_t hCommandList,
    void* dstptr, const void* srcptr, size_t size, ze_event_handle_t hSignalEvent,
    uint32_t numWaitEvents, ze_event_handle_t* phWaitEvents);
ze_result_t zeMemAllocShared(ze_context_handle_t hContext,
    const ze_device_mem_alloc_desc_t* device_desc, const ze_host_mem_alloc_desc_t* host_desc,
    size_t size, size_t alignment, ze_device_handle_t hDevice, void** pptr);
ze_result_t zeMemAllocDevice(ze_context_handle_t hContext,
    const ze_device_mem_alloc_desc_t* device_desc, size_t size, size_t alignment,
    ze_device_handle_t hDevice, void** pptr);
ze_result_t zeMemAllocHost(ze_context_handle_t hContext,
    const ze_host_mem_alloc_desc_t* host_desc, size_t size, size_t alignment, void** pptr);
ze_result_t zeMemFree(ze_context_handle_t hContext, void* ptr);
ze_result_t zeMemGetAllocProperties(ze_context_handle_t hContext, const void* ptr,
    ze_memory_allocation_properties_t* pMemAllocProperties, ze_device_handle_t* phDevice);
ze_result_t zeEventPoolCreate(ze_context_handle_t hContext, const ze_event_pool_desc_t* desc,
    uint32_t numDevices, ze_device_handle_t* phDevices, ze_event_pool_handle_t* phEventPool);
ze_result_t zeEventPoolDestroy(ze_event_pool_handle_t hEventPool);
ze_result_t zeEventCreate(ze_event_pool_handle_t hEventPool, const ze_event_desc_t* desc,
    ze_event_handle_t* phEvent);
ze_result_t zeEventDestroy(ze_event_handle_t hEvent);
ze_result_t zeEventHostSignal(ze_event_handle_t hEvent);
ze_result_t zeEventHostReset(ze_event_handle_t hEvent);
ze_result_t zeEventHostSynchronize(ze_event_handle_t hEvent, uint64_t timeout);
ze_result_t zeEventQueryStatus(ze_event_handle_t hEvent);
"""

_INIT_DRIVER_TYPE_FLAG_GPU = 1
_COMMAND_QUEUE_FLAG_IN_ORDER = 2
_EVENT_POOL_FLAG_HOST_VISIBLE = 1
_EVENT_SCOPE_FLAG_HOST = 4
_UINT64_MAX = 2**64 - 1
_MEMORY_TYPES = {0: "unknown", 1: "host", 2: "device", 3: "shared"}


class LevelZeroTooLateError(EmulatedGpuError):
    """The emulated Level Zero loader can no longer be put in place in this process."""


class LevelZeroError(EmulatedGpuError):
    """A call to the emulated Level Zero loader failed.

    ``.result`` is the ``ze_result_t`` value, ``.function`` the function's name.
    """

    def __init__(self, function: str, result: int, name: str):
        self.function = function
        self.result = result
        super().__init__(f"{function} failed: {name}")


# --- where things are ----------------------------------------------------------


def loader_path() -> Path:
    """The compiled emulated loader shipped with this package."""
    path = Path(__file__).resolve().parent / LOADER_FILENAME
    if not path.is_file():
        raise EmulatedGpuUnavailableError(
            f"the emulated Level Zero loader {path} is missing: it is built with the package "
            "(pip install dnnl-interop; in a source checkout, python setup.py build_ext --inplace)"
        )
    return path


def _mapped_libraries() -> list[str]:
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            paths = {line.split(None, 5)[5].strip() for line in maps if len(line.split(None, 5)) == 6}
    except OSError as exc:
        raise EmulatedGpuUnavailableError(
            f"cannot tell what is loaded ({exc}); the emulated Level Zero loader needs Linux's /proc"
        ) from None
    return sorted(path for path in paths if ".so" in os.path.basename(path))


def _check_not_too_late(loader: Path) -> None:
    """Refuse when SYCL has started or another Level Zero loader is loaded."""
    mapped = _mapped_libraries()
    names = {os.path.basename(path): path for path in mapped}
    for name, path in names.items():
        if name.startswith("libze_loader.so") and os.path.realpath(path) != str(loader):
            raise LevelZeroTooLateError(
                f"a Level Zero loader is already loaded ({path}): libdnnl would use it, not the "
                "emulated one. Run the work in a fresh process (emulated_level_zero.run_in_child)."
            )
    adapters = sorted(name for name in names if name.startswith("libur_adapter_"))
    if any(name.startswith("libur_adapter_level_zero") for name in adapters) or (
        adapters and os.environ.get("ONEAPI_DEVICE_SELECTOR") != DEVICE_SELECTOR
    ):
        raise LevelZeroTooLateError(
            "the SYCL runtime has already started in this process (it loaded "
            f"{', '.join(adapters)}), without ONEAPI_DEVICE_SELECTOR={DEVICE_SELECTOR}: its "
            "own Level Zero adapter would load the emulated loader and crash. Enable the "
            "emulated Level Zero loader before the first oneDNN call (with pytest: "
            "`pytest --emulated-level-zero`), or run the work in a fresh process with "
            "emulated_level_zero.run_in_child(func, ...)."
        )
    selector = os.environ.get("ONEAPI_DEVICE_SELECTOR")
    if selector is not None and selector != DEVICE_SELECTOR:
        raise LevelZeroTooLateError(
            f"ONEAPI_DEVICE_SELECTOR is {selector!r}; the emulated Level Zero loader needs "
            f"{DEVICE_SELECTOR!r} (SYCL's own Level Zero adapter crashes on it). Unset it or "
            f"set it to {DEVICE_SELECTOR!r} before the process starts SYCL."
        )


# --- the loader ------------------------------------------------------------------


class _Loader:
    """The cffi binding to the emulated loader (ABI mode: no compiler needed)."""

    def __init__(self, path: Path):
        import cffi

        self.ffi = ffi = cffi.FFI()
        ffi.cdef(_CDEF)
        # RTLD_GLOBAL, by full path: libdnnl's dlopen("libze_loader.so.1")
        # then finds this library by its soname. Its attributes are _CDEF's
        # names: an ABI-mode library has no stub to type them.
        self.lib: Any = ffi.dlopen(str(path), os.RTLD_NOW | os.RTLD_GLOBAL)

    def call(self, name: str, *args: object) -> int:
        result: int = getattr(self.lib, name)(*args)
        if result != 0:
            raise self.error(name, result)
        return result

    def error(self, function: str, result: int) -> LevelZeroError:
        # cffi names a known enum value, and gives the number of an unknown one.
        name = self.ffi.string(self.ffi.cast("ze_result_t", result))
        return LevelZeroError(function, int(result), name.decode() if isinstance(name, bytes) else name)

    def address(self, cdata: cffi.FFI.CData) -> int:
        return int(self.ffi.cast("uintptr_t", cdata))

    def handle(self, ctype: str, value: object) -> cffi.FFI.CData:
        """A ``ctype`` cdata for a handle value, refusing NULL."""
        address = value.int_ptr if hasattr(value, "int_ptr") else value
        if not isinstance(address, int) or isinstance(address, bool) or address <= 0:
            raise TypeError(f"expected a {ctype} handle, got {value!r}")
        return self.ffi.cast(ctype, address)


def _preload_opencl_loader() -> None:
    """Load the onednn wheel's OpenCL ICD loader, which the emulated loader opens by name."""
    from .. import _library

    path = os.path.join(sys.prefix, "lib", "libOpenCL.so.1")
    if _library.is_loaded("libOpenCL.so.1"):
        return
    if not os.path.exists(path):
        raise EmulatedGpuUnavailableError(
            f"the OpenCL ICD loader of the onednn wheel ({path}) is missing: pip install onednn"
        )
    try:
        _library.preload(path)
    except OSError as exc:
        raise EmulatedGpuUnavailableError(f"cannot load {path}: {exc}") from None


# --- owned native objects --------------------------------------------------------


class DeviceMemory:
    """Device USM of the emulated device: ``nbytes`` bytes, not host-accessible.

    ``ptr`` is a ``void *`` cffi pointer that owns the allocation: pass it to
    ``ze.make_memory`` (the memory keeps it, hence the allocation, alive).
    The allocation is freed by :meth:`close` or when nothing references it
    any more; freeing waits for the commands using it to finish.
    """

    __slots__ = ("_pointer", "_lz", "nbytes", "kind", "__weakref__")

    def __init__(self, lz: EmulatedLevelZero, pointer: cffi.FFI.CData, nbytes: int, kind: str) -> None:
        self._lz = lz
        self._pointer: cffi.FFI.CData | None = pointer
        self.nbytes = nbytes
        self.kind = kind

    @property
    def closed(self) -> bool:
        return self._pointer is None

    @property
    def ptr(self) -> cffi.FFI.CData:
        """The allocation as an owning ``void *`` cffi pointer."""
        if self._pointer is None:
            raise ValueError(f"this {type(self).__name__} is closed")
        return self._pointer

    @property
    def address(self) -> int:
        """The allocation's address (an int carries no lifetime: prefer ``ptr``)."""
        return self._lz._loader.address(self.ptr)  # noqa: SLF001 - a friend in this module

    def _users(self) -> int:
        # Our slot and getrefcount's argument; anything more holds the pointer.
        return sys.getrefcount(self._pointer) - 2

    def close(self) -> None:
        """Free the allocation now; BufferError while anything else holds ``ptr``."""
        if self._pointer is None:
            return
        users = self._users()
        if users:
            raise BufferError(
                f"cannot close this {type(self).__name__}: {users} object(s) still hold its "
                "pointer (a oneDNN memory made on it, ...); close or drop them first"
            )
        pointer, self._pointer = self._pointer, None
        self._lz._loader.ffi.release(pointer)  # noqa: SLF001 - a friend in this module

    def __enter__(self) -> DeviceMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __reduce__(self) -> str:
        raise TypeError(f"a {type(self).__name__} owns native memory and cannot be pickled")

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"{self.address:#x}"
        return f"<{type(self).__module__}.{type(self).__name__} {self.kind} {self.nbytes} B at {state}>"


class UsmArray(DeviceMemory):
    """Shared (or host) USM of the emulated device, seen from the host as a numpy array.

    ``array`` is a numpy view of the allocation (``shape``, ``dtype``);
    views of it keep the allocation alive. Pass ``array`` (or ``ptr``) to
    ``ze.make_memory``. :meth:`close` frees the allocation and raises
    BufferError while views of ``array`` or holders of ``ptr`` remain.
    """

    __slots__ = ("_array",)

    def __init__(
        self,
        lz: EmulatedLevelZero,
        pointer: cffi.FFI.CData,
        nbytes: int,
        kind: str,
        shape: tuple[int, ...],
        dtype: numpy.dtype[Any],
    ) -> None:
        import numpy

        super().__init__(lz, pointer, nbytes, kind)
        # The buffer keeps the pointer alive.
        buffer = lz._loader.ffi.buffer(pointer, nbytes)  # noqa: SLF001 - a friend in this module
        # One array whose base is the buffer: every view of it has it as base.
        self._array: numpy.ndarray[Any, Any] | None = numpy.ndarray(
            shape, dtype, buffer=buffer  # type: ignore[arg-type]  # a cffi buffer has the buffer protocol
        )

    @property
    def array(self) -> numpy.ndarray[Any, Any]:
        """The numpy view of the allocation."""
        if self._array is None:
            raise ValueError(f"this {type(self).__name__} is closed")
        return self._array

    @property
    def shape(self) -> tuple[int, ...]:
        shape: tuple[int, ...] = self.array.shape
        return shape

    @property
    def dtype(self) -> numpy.dtype[Any]:
        dtype: numpy.dtype[Any] = self.array.dtype
        return dtype

    def _users(self) -> int:
        # Beyond our slot and getrefcount's argument: views of the array, and
        # holders of the pointer other than the array's buffer.
        return sys.getrefcount(self._array) - 2 + sys.getrefcount(self._pointer) - 3

    def close(self) -> None:
        """Free the allocation now; BufferError while views of ``array`` remain."""
        if self._array is None or self._pointer is None:  # closed (both go together)
            return
        users = self._users()
        if users:
            raise BufferError(
                f"cannot close this UsmArray: {users} view(s) of its array or holder(s) of its "
                "pointer are still alive (numpy views, a oneDNN memory made on it, ...); close "
                "or drop them first"
            )
        self._array = None  # and with it the buffer holding the pointer
        pointer, self._pointer = self._pointer, None
        self._lz._loader.ffi.release(pointer)  # noqa: SLF001 - a friend in this module

    def __repr__(self) -> str:
        if self.closed:
            return f"<{type(self).__module__}.UsmArray {self.kind} closed>"
        return (
            f"<{type(self).__module__}.UsmArray {self.kind} {self.array.shape} "
            f"{self.array.dtype} at {self.address:#x}>"
        )


def _owned_handle(base: type[_ze_handles.ZeHandle], destroy: str) -> type[_ze_handles.ZeHandle]:
    """A subclass of the ``ze`` handle value ``base`` that owns its native object.

    It is accepted wherever a ``base`` handle is, and whatever is given it
    (a oneDNN stream given a command list) keeps it alive. The native object
    is destroyed when the last reference goes.
    """

    class Owned(base):  # type: ignore[valid-type, misc]  # a class made per ze handle kind
        __slots__ = ("_owner",)
        _owner: cffi.FFI.CData

        def __init__(self, loader: _Loader, cdata: cffi.FFI.CData, *extra: object) -> None:
            super().__init__(loader.address(cdata))
            owner = loader.ffi.gc(cdata, _destroyer(loader, destroy, extra))
            object.__setattr__(self, "_owner", owner)

        @property
        def handle(self) -> _ze_handles.ZeHandle:
            """The plain ``ze`` handle value, which compares equal to what oneDNN returns."""
            return base(self._address)

        def __eq__(self, other: object) -> bool:
            return self is other

        def __hash__(self) -> int:
            return id(self)

        def __reduce__(self) -> str:
            raise TypeError(f"a {type(self).__name__} owns a native object and cannot be pickled")

        def __repr__(self) -> str:
            return f"<{type(self).__module__}.{type(self).__name__} {self._address:#x} (owned)>"

    return Owned


def _destroyer(loader: _Loader, destroy: str, keep: tuple[object, ...]) -> Callable[[cffi.FFI.CData], None]:
    function = getattr(loader.lib, destroy)

    def release(cdata: cffi.FFI.CData, keep: tuple[object, ...] = keep) -> None:  # keep: what it needs (its pool)
        function(cdata)

    return release


class CommandList(_owned_handle(_ze_handles.CommandList, "zeCommandListDestroy")):  # type: ignore[misc]  # made per kind
    """An immediate command list of the emulated device (a ``ze.CommandList``).

    Destroyed, after its commands finish, when the last reference goes: a
    oneDNN stream made on it keeps it alive.
    """

    __slots__ = ()


class Event(_owned_handle(_ze_handles.Event, "zeEventDestroy")):  # type: ignore[misc]  # made per kind
    """An event of an :class:`EventPool` (a ``ze.Event``), with its host-side operations.

    Pass it in ``ze.execute(..., deps=[event])`` or as the signal of
    :meth:`EmulatedLevelZero.copy`. Destroyed when the last reference goes;
    a command still waiting on it keeps what it needs.
    """

    __slots__ = ("_loader",)

    def __init__(self, loader: _Loader, cdata: cffi.FFI.CData, pool: EventPool) -> None:
        super().__init__(loader, cdata, pool)
        object.__setattr__(self, "_loader", loader)

    def signal(self) -> None:
        """Signal the event from the host (commands waiting on it may run)."""
        self._loader.call("zeEventHostSignal", self._owner)

    def reset(self) -> None:
        """Return the event to the unsignalled state."""
        self._loader.call("zeEventHostReset", self._owner)

    @property
    def is_signalled(self) -> bool:
        result: int = self._loader.lib.zeEventQueryStatus(self._owner)
        if result not in (0, 1):
            raise self._loader.error("zeEventQueryStatus", result)
        return result == 0

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until signalled; False if ``timeout`` seconds passed first."""
        nanoseconds = _UINT64_MAX if timeout is None else max(0, int(timeout * 1e9))
        result: int = self._loader.lib.zeEventHostSynchronize(self._owner, nanoseconds)
        if result not in (0, 1):
            raise self._loader.error("zeEventHostSynchronize", result)
        return result == 0


class EventPool:
    """A host-visible event pool of the emulated context; its events keep it alive."""

    __slots__ = ("_loader", "_owner", "count", "_taken")

    def __init__(self, loader: _Loader, cdata: cffi.FFI.CData, count: int) -> None:
        self._loader = loader
        self._owner = loader.ffi.gc(cdata, _destroyer(loader, "zeEventPoolDestroy", ()))
        self.count = count
        self._taken = 0

    def event(self, index: int | None = None) -> Event:
        """A new event at ``index`` (default: the next unused one)."""
        if index is None:
            index = self._taken
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < self.count:
            raise ValueError(f"index: expected an int in [0, {self.count}), got {index!r}")
        ffi = self._loader.ffi
        desc = ffi.new(
            "ze_event_desc_t *",
            {"stype": self._loader.lib.ZE_STRUCTURE_TYPE_EVENT_DESC, "index": index,
             "signal": _EVENT_SCOPE_FLAG_HOST, "wait": _EVENT_SCOPE_FLAG_HOST},
        )
        out = ffi.new("ze_event_handle_t *")
        self._loader.call("zeEventCreate", self._owner, desc, out)
        self._taken = max(self._taken, index + 1)
        return Event(self._loader, out[0], self)

    def __reduce__(self) -> str:
        raise TypeError("an EventPool owns a native object and cannot be pickled")


# --- the emulation -----------------------------------------------------------------


class EmulatedLevelZero:
    """The emulated Level Zero driver of this process.

    ``ze.make_engine(lz.driver, lz.device, lz.context)`` makes a real oneDNN
    Level Zero engine; ``lz.command_list`` is an immediate, in-order command
    list on that context for ``ze.make_stream``. These four live as long as
    the process. ``gpu`` is the emulated OpenCL GPU it runs on.
    """

    def __init__(self, loader: _Loader, gpu: emulated_gpu.EmulatedGpu) -> None:
        ze = _ze_handles
        ffi = loader.ffi
        self._loader = loader
        self.gpu = gpu
        count = ffi.new("uint32_t *", 1)
        drivers = ffi.new("ze_driver_handle_t[1]")
        desc = ffi.new(
            "ze_init_driver_type_desc_t *",
            {"stype": self._loader.lib.ZE_STRUCTURE_TYPE_INIT_DRIVER_TYPE_DESC,
             "flags": _INIT_DRIVER_TYPE_FLAG_GPU},
        )
        loader.call("zeInitDrivers", count, drivers, desc)
        devices = ffi.new("ze_device_handle_t[1]")
        count[0] = 1
        loader.call("zeDeviceGet", drivers[0], count, devices)
        context = ffi.new("ze_context_handle_t *")
        loader.call(
            "zeContextCreate", drivers[0],
            ffi.new("ze_context_desc_t *", {"stype": self._loader.lib.ZE_STRUCTURE_TYPE_CONTEXT_DESC}),
            context,
        )
        self._driver, self._device, self._context = drivers[0], devices[0], context[0]
        self.driver = ze.Driver(loader.address(drivers[0]))
        self.device = ze.Device(loader.address(devices[0]))
        self.context = ze.Context(loader.address(context[0]))
        self._main_list = self._create_list(in_order=True, synchronous=False)
        self.command_list = ze.CommandList(loader.address(self._main_list))
        properties = self._properties()
        name = ffi.string(properties.name)
        self.name = name.decode() if isinstance(name, bytes) else name
        self.uuid = bytes(properties.uuid.id)
        self.ip_version = self._ip_version()

    # --- device ---

    def _properties(self) -> Any:  # a ze_device_properties_t * (cffi types no struct fields)
        ffi = self._loader.ffi
        properties = ffi.new(
            "ze_device_properties_t *", {"stype": self._loader.lib.ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES}
        )
        self._loader.call("zeDeviceGetProperties", self._device, properties)
        return properties

    def _ip_version(self) -> int:
        ffi = self._loader.ffi
        ip = ffi.new(
            "ze_device_ip_version_ext_t *", {"stype": self._loader.lib.ZE_STRUCTURE_TYPE_DEVICE_IP_VERSION_EXT}
        )
        properties = ffi.new(
            "ze_device_properties_t *",
            {"stype": self._loader.lib.ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES, "pNext": ip},
        )
        self._loader.call("zeDeviceGetProperties", self._device, properties)
        version: int = ip[0].ipVersion
        return version

    # --- memory ---

    def _allocate(self, kind: str, nbytes: int, alignment: int) -> cffi.FFI.CData:
        if not isinstance(nbytes, int) or isinstance(nbytes, bool) or nbytes <= 0:
            raise ValueError(f"nbytes: expected a positive int, got {nbytes!r}")
        if not isinstance(alignment, int) or alignment < 0 or alignment & (alignment - 1):
            raise ValueError(f"alignment: expected 0 or a power of two, got {alignment!r}")
        ffi, loader = self._loader.ffi, self._loader
        device_desc = ffi.new(
            "ze_device_mem_alloc_desc_t *", {"stype": self._loader.lib.ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC}
        )
        host_desc = ffi.new(
            "ze_host_mem_alloc_desc_t *", {"stype": self._loader.lib.ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC}
        )
        out = ffi.new("void **")
        if kind == "shared":
            loader.call("zeMemAllocShared", self._context, device_desc, host_desc, nbytes, alignment, self._device, out)
        elif kind == "device":
            loader.call("zeMemAllocDevice", self._context, device_desc, nbytes, alignment, self._device, out)
        else:
            loader.call("zeMemAllocHost", self._context, host_desc, nbytes, alignment, out)
        free, context = loader.lib.zeMemFree, self._context
        return ffi.gc(out[0], lambda pointer: free(context, pointer), size=nbytes)

    def _usm_array(
        self, kind: str, shape: int | Iterable[int], dtype: numpy.typing.DTypeLike, alignment: int
    ) -> UsmArray:
        import numpy

        item_type = numpy.dtype(dtype)
        dims = (shape,) if isinstance(shape, int) else tuple(shape)
        if not all(isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in dims):
            raise ValueError(f"shape: expected positive ints, got {dims!r}")
        nbytes = int(numpy.prod(dims)) * item_type.itemsize
        return UsmArray(self, self._allocate(kind, nbytes, alignment), nbytes, kind, dims, item_type)

    def shared(
        self, shape: int | Iterable[int], dtype: numpy.typing.DTypeLike = "float32", *, alignment: int = 64
    ) -> UsmArray:
        """Shared USM (``zeMemAllocShared``) as a numpy-viewable :class:`UsmArray`."""
        return self._usm_array("shared", shape, dtype, alignment)

    def host(
        self, shape: int | Iterable[int], dtype: numpy.typing.DTypeLike = "float32", *, alignment: int = 64
    ) -> UsmArray:
        """Host USM (``zeMemAllocHost``) as a numpy-viewable :class:`UsmArray`."""
        return self._usm_array("host", shape, dtype, alignment)

    def device_memory(self, nbytes: int, *, alignment: int = 64) -> DeviceMemory:
        """Device USM (``zeMemAllocDevice``) of ``nbytes`` bytes."""
        return DeviceMemory(self, self._allocate("device", nbytes, alignment), nbytes, "device")

    def memory_type(self, memory: object) -> str:
        """What ``zeMemGetAllocProperties`` says ``memory`` (a USM object, array or address) is."""
        ffi = self._loader.ffi
        properties = ffi.new(
            "ze_memory_allocation_properties_t *",
            {"stype": self._loader.lib.ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES},
        )
        self._loader.call("zeMemGetAllocProperties", self._context, self._pointer_of(memory), properties, ffi.NULL)
        memory_type: int = properties[0].type
        return _MEMORY_TYPES.get(memory_type, str(memory_type))

    def _pointer_of(self, memory: object) -> cffi.FFI.CData:
        ffi = self._loader.ffi
        if isinstance(memory, DeviceMemory):
            return memory.ptr
        if isinstance(memory, int) and not isinstance(memory, bool):
            return ffi.cast("void *", memory)
        if isinstance(memory, ffi.CData):
            return ffi.cast("void *", memory)
        try:
            return ffi.cast("void *", ffi.from_buffer(memory))  # type: ignore[call-overload]  # not a buffer: TypeError
        except TypeError:
            raise TypeError(
                f"memory: expected a UsmArray, DeviceMemory, array or address, got {type(memory).__name__}"
            ) from None

    # --- command lists and events ---

    def _create_list(self, in_order: bool, synchronous: bool) -> cffi.FFI.CData:
        ffi, lib = self._loader.ffi, self._loader.lib
        desc = ffi.new(
            "ze_command_queue_desc_t *",
            {"stype": lib.ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
             "flags": _COMMAND_QUEUE_FLAG_IN_ORDER if in_order else 0,
             "mode": lib.ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS if synchronous else lib.ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS},
        )
        out = ffi.new("ze_command_list_handle_t *")
        self._loader.call("zeCommandListCreateImmediate", self._context, self._device, desc, out)
        command_list: cffi.FFI.CData = out[0]
        return command_list

    def new_command_list(self, *, in_order: bool = True, synchronous: bool = False) -> CommandList:
        """A new immediate command list on :attr:`context` (a :class:`CommandList`)."""
        return CommandList(self._loader, self._create_list(bool(in_order), bool(synchronous)))

    def event_pool(self, count: int = 16) -> EventPool:
        """A host-visible :class:`EventPool` of ``count`` events on :attr:`context`."""
        if not isinstance(count, int) or isinstance(count, bool) or count <= 0:
            raise ValueError(f"count: expected a positive int, got {count!r}")
        ffi = self._loader.ffi
        desc = ffi.new(
            "ze_event_pool_desc_t *",
            {"stype": self._loader.lib.ZE_STRUCTURE_TYPE_EVENT_POOL_DESC,
             "flags": _EVENT_POOL_FLAG_HOST_VISIBLE, "count": count},
        )
        out = ffi.new("ze_event_pool_handle_t *")
        self._loader.call("zeEventPoolCreate", self._context, desc, 0, ffi.NULL, out)
        return EventPool(self._loader, out[0], count)

    def _list_of(self, command_list: object) -> cffi.FFI.CData:
        if command_list is None:
            return self._main_list
        if isinstance(command_list, CommandList):
            owner: cffi.FFI.CData = command_list._owner  # noqa: SLF001 - this module's own handle object
            return owner
        return self._loader.handle("ze_command_list_handle_t", command_list)

    def copy(self, dst: DeviceMemory, src: DeviceMemory, nbytes: int | None = None, *,
             command_list: object = None, signal: Event | None = None, wait: Iterable[Event] = ()) -> None:
        """Append a copy of ``nbytes`` (default: all of ``src``) from ``src`` to ``dst``.

        Both are USM objects of this emulation. The copy runs on
        ``command_list`` (default :attr:`command_list`) after the events
        ``wait`` and signals ``signal`` when done; it is asynchronous:
        :meth:`synchronize` or an event tells when it finished. Freeing
        either allocation waits for it.
        """
        for name, memory in (("dst", dst), ("src", src)):
            if not isinstance(memory, DeviceMemory):
                raise TypeError(f"{name}: expected a UsmArray or DeviceMemory, got {type(memory).__name__}")
        nbytes = src.nbytes if nbytes is None else nbytes
        if not isinstance(nbytes, int) or isinstance(nbytes, bool) or not 0 < nbytes <= min(dst.nbytes, src.nbytes):
            raise ValueError(f"nbytes: expected 1 to {min(dst.nbytes, src.nbytes)}, got {nbytes!r}")
        ffi = self._loader.ffi
        events = list(wait)
        for i, event in enumerate(events):
            if not isinstance(event, Event):
                raise TypeError(f"wait[{i}]: expected an Event, got {type(event).__name__}")
        if signal is not None and not isinstance(signal, Event):
            raise TypeError(f"signal: expected an Event, got {type(signal).__name__}")
        owners = [event._owner for event in events]  # noqa: SLF001 - this module's own handle object
        waits = ffi.new("ze_event_handle_t[]", owners) if events else ffi.NULL
        signalled = signal._owner if signal is not None else ffi.NULL  # noqa: SLF001 - this module's own handle object
        self._loader.call(
            "zeCommandListAppendMemoryCopy", self._list_of(command_list), dst.ptr, src.ptr, nbytes,
            signalled, len(events), waits,
        )

    def synchronize(self, command_list: object = None, timeout: float | None = None) -> bool:
        """Wait for the commands of ``command_list`` (default :attr:`command_list`).

        False if ``timeout`` seconds passed first.
        """
        nanoseconds = _UINT64_MAX if timeout is None else max(0, int(timeout * 1e9))
        result: int = self._loader.lib.zeCommandListHostSynchronize(self._list_of(command_list), nanoseconds)
        if result not in (0, 1):
            raise self._loader.error("zeCommandListHostSynchronize", result)
        return result == 0

    def __repr__(self) -> str:
        return f"<EmulatedLevelZero {self.name!r} driver={self.driver!r} device={self.device!r}>"


# --- switching it on -------------------------------------------------------------------

_lock = threading.Lock()
_emulation: EmulatedLevelZero | None = None


def is_enabled() -> bool:
    """Whether :func:`enable` succeeded in this process (it stays on for good)."""
    return _emulation is not None


def _check_libdnnl_uses_it(lz: EmulatedLevelZero) -> None:
    """A real oneDNN call through the loader: libdnnl initialises Level Zero once."""
    from .. import _library
    from .._runtime import ze_engine_blob_id
    from ..errors import DnnlError

    library = _library.load_library()
    if not library.has_function("dnnl_ze_interop_engine_get_cache_blob_id"):
        return  # a oneDNN without Level Zero interop: nothing of it to check
    try:
        ze_engine_blob_id(lz.driver.ptr, lz.device.ptr)
    except DnnlError as exc:
        raise LevelZeroTooLateError(
            f"oneDNN ({library.path}) does not reach the emulated Level Zero loader ({exc}): "
            "libdnnl made its first Level Zero call before the loader was in place, and it "
            "initialises Level Zero only once. Enable it before the first oneDNN call, or "
            "run the work in a fresh process with emulated_level_zero.run_in_child(func, ...)."
        ) from None


def enable() -> EmulatedLevelZero:
    """Put the emulated Level Zero loader in place; return its driver, device and context.

    Call it before the first oneDNN call and before OpenCL is first used
    (it enables the emulated OpenCL GPU first), or in a process started by
    :func:`run_in_child`. Otherwise it raises :class:`LevelZeroTooLateError`
    (or the emulated GPU's ``OpenCLAlreadyLoadedError``). Later calls return
    the same :class:`EmulatedLevelZero`.
    """
    global _emulation
    with _lock:
        if _emulation is None:
            path = loader_path()
            _check_not_too_late(path)
            gpu = emulated_gpu.enable()
            os.environ["ONEAPI_DEVICE_SELECTOR"] = DEVICE_SELECTOR
            _preload_opencl_loader()
            lz = EmulatedLevelZero(_Loader(path), gpu)
            _check_libdnnl_uses_it(lz)
            _emulation = lz
        return _emulation


@contextlib.contextmanager
def enabled() -> Iterator[EmulatedLevelZero]:
    """``with emulated_level_zero.enabled() as lz:`` -- :func:`enable` as a context manager.

    The loader cannot be unloaded: it stays in place after the block, which
    only scopes the name ``lz``.
    """
    yield enable()


def _call_enabled(func: Callable[..., object], args: tuple[object, ...], kwargs: dict[str, object]) -> Any:
    enable()
    return func(*args, **kwargs)


def run_in_child(func: Callable[..., object], *args: Any, timeout: float | None = None, **kwargs: Any) -> Any:
    """Run ``func(*args, **kwargs)`` in a fresh Python process with the emulation on.

    As :func:`dnnl_interop.testing.emulated_gpu.run_in_child` (``func`` must
    be importable, arguments and result must pickle), with
    :func:`enable` called in the child before ``func``: ``func`` may call
    it again to get the :class:`EmulatedLevelZero`. Works whether or not
    the emulation is on in this process.
    """
    return emulated_gpu.run_in_child(_call_enabled, func, args, kwargs, timeout=timeout)


def __dir__() -> list[str]:
    return sorted(__all__)
