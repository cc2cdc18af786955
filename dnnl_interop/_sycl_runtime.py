"""SYCL objects as oneDNN's SYCL interop takes and gives them: no classes.

``dnnl_sycl.h`` passes every SYCL object as ``void *``: a ``sycl::device *``,
``sycl::context *``, ``sycl::queue *``, ``sycl::event *`` or a
``std::vector<sycl::event> *``. This module turns what Python users hold into
those pointers (dpctl's ``SyclDevice``, ``SyclContext``, ``SyclQueue`` and
``SyclEvent`` through their public ``addressof_ref()``; raw addresses, as
``torch.xpu.Stream.sycl_queue`` gives), and the pointers oneDNN gives back into
dpctl objects of their own (copies, through dpctl's C API: the ``*_Make``
functions of ``dpctl_capi.h`` and ``libDPCTLSyclInterface``). dpctl is
imported only when one of its objects is asked for or given.

It also asks SYCL which kind of USM a pointer is in a context
(``DPCTLUSM_GetPointerType``, SYCL's ``get_pointer_type``), so memory over a
pointer of another context is refused before oneDNN reads it.
"""

from __future__ import annotations

import ctypes
import os
import sys
from typing import TYPE_CHECKING, Any

from ._ffi import ffi
from ._handles import address_of, check_address, type_name

if TYPE_CHECKING:
    from types import ModuleType

    from ._ffi import CData

__all__ = [
    "SYCL_CLASSES", "sycl_pointer", "is_dpctl", "dpctl_object", "event_vector", "new_event", "event_object",
    "USM_UNKNOWN", "usm_kind", "describe_context",
]

_VOID_POINTER = ffi.typeof("void *")
# What each kind of SYCL object is in dpctl (and the module of its C API).
SYCL_CLASSES = {
    "device": ("SyclDevice", "_sycl_device"),
    "context": ("SyclContext", "_sycl_context"),
    "queue": ("SyclQueue", "_sycl_queue"),
    "event": ("SyclEvent", "_sycl_event"),
}
# The attribute of a dpctl object that gives another kind (a queue given as a device: queue.sycl_device).
_REACHED = {"device": "sycl_device", "context": "sycl_context"}
# DPCTLSyclUSMType (dpctl_sycl_enum_types.h).
USM_UNKNOWN, USM_DEVICE, USM_SHARED, USM_HOST = 0, 1, 2, 3
USM_NAMES = {USM_DEVICE: "device", USM_SHARED: "shared", USM_HOST: "host"}
# sizeof(sycl::event) in the SYCL 2020 ABI (sycl::_V1): one std::shared_ptr to its implementation.
SYCL_EVENT_SIZE = 16


def _dpctl() -> ModuleType:
    try:
        import dpctl
    except ImportError as exc:
        raise ImportError("SYCL objects are returned as dpctl objects: pip install dpctl") from exc
    module: ModuleType = dpctl
    return module


def is_dpctl(obj: object) -> bool:
    """Whether ``obj`` is an object of dpctl (dpctl is not imported)."""
    return type(obj).__module__.startswith("dpctl")


def sycl_pointer(obj: object, kind: str, what: str) -> CData:
    """``obj`` as the ``void *`` of a ``sycl::<kind>``: a dpctl object of that kind, an int
    address or a cffi pointer. None and NULL are refused (oneDNN would dereference them)."""
    cls_name = SYCL_CLASSES[kind][0] if kind in SYCL_CLASSES else None
    if cls_name is None:  # no Python object holds one (a sycl::buffer)
        wanted = f"the address of a sycl::{kind} (an int)"
    else:
        wanted = f"a dpctl.{cls_name} or the address of a sycl::{kind} (an int)"
    if obj is None:
        raise TypeError(f"{what}: None given; {wanted} is required")
    if is_dpctl(obj):
        if type(obj).__name__ != cls_name:
            reach = _REACHED.get(kind)
            hint = f" (its {reach} is one)" if reach and hasattr(obj, reach) else ""
            raise TypeError(f"{what}: expected {wanted}, got a {type_name(obj)}{hint}")
        address = obj.addressof_ref()  # type: ignore[attr-defined]
    elif isinstance(obj, ffi.CData):
        if ffi.typeof(obj).kind != "pointer":
            raise TypeError(f"{what}: expected {wanted}, got a cffi {ffi.typeof(obj).cname}")
        address = address_of(obj)
    elif isinstance(obj, (bool, float, str, bytes)) or not hasattr(obj, "__index__") or hasattr(type(obj), "__len__"):
        raise TypeError(f"{what}: expected {wanted}, got a {type_name(obj)}")
    else:
        address = check_address(obj, what)
    if not address:
        raise ValueError(f"{what}: a NULL sycl::{kind} given; {wanted} is required")
    return ffi.cast(_VOID_POINTER, address)


# --- dpctl's C API ---------------------------------------------------------------------


_API: dict[str, Any] = {}


def _capi_function(module: str, name: str, restype: Any, *argtypes: Any) -> Any:
    """A function of dpctl's Cython C API (``dpctl.<module>.__pyx_capi__``), through ctypes."""
    key = f"{module}.{name}"
    function = _API.get(key)
    if function is None:
        _dpctl()
        import importlib

        capsule = importlib.import_module(f"dpctl.{module}").__pyx_capi__[name]
        get_name = ctypes.pythonapi.PyCapsule_GetName
        get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
        get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
        get_pointer.restype, get_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
        address = get_pointer(capsule, get_name(capsule))
        function = _API[key] = ctypes.PYFUNCTYPE(restype, *argtypes)(address)  # it makes Python objects: GIL held
    return function


def _interface() -> ctypes.CDLL:
    """dpctl's ``libDPCTLSyclInterface``: the C functions over SYCL objects."""
    library = _API.get("libDPCTLSyclInterface")
    if library is None:
        dpctl = _dpctl()
        path = os.path.join(os.path.dirname(str(dpctl.__file__)), "libDPCTLSyclInterface.so")
        library = ctypes.CDLL(path)
        library.DPCTLUSM_GetPointerType.restype = ctypes.c_int
        library.DPCTLUSM_GetPointerType.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        library.DPCTLEvent_Create.restype = ctypes.c_void_p
        library.DPCTLEvent_Create.argtypes = []
        library.DPCTLEvent_Delete.restype = None
        library.DPCTLEvent_Delete.argtypes = [ctypes.c_void_p]
        _API["libDPCTLSyclInterface"] = library
    return library


def dpctl_object(address: int, kind: str) -> Any:
    """A dpctl object of ``kind`` holding its own copy of the ``sycl::<kind>`` at ``address``."""
    cls_name, module = SYCL_CLASSES[kind]
    make = _capi_function(module, f"{cls_name}_Make", ctypes.py_object, ctypes.c_void_p)
    return make(address)


def new_event() -> int:
    """A default-constructed ``sycl::event`` (heap), for oneDNN to assign to; free with :func:`event_object`."""
    address: int = _interface().DPCTLEvent_Create()
    if not address:
        raise MemoryError("dpctl could not create a sycl::event")
    return address


def event_object(address: int) -> Any:
    """The event at ``address`` (from :func:`new_event`) as a ``dpctl.SyclEvent``; the heap one is freed."""
    try:
        return dpctl_object(address, "event")
    finally:
        _interface().DPCTLEvent_Delete(address)


def event_vector(events: list[CData]) -> tuple[CData, object]:
    """``(std::vector<sycl::event> *, storage)`` borrowing ``events`` (``sycl::event *``).

    oneDNN only reads the vector (``const std::vector<sycl::event> &``) and copies
    the events it keeps. The vector's elements are bitwise copies of the callers'
    events, never destroyed: no reference count changes, so the callers' event
    objects must live until the call returns. libstdc++ lays a vector out as three
    pointers: begin, end, end of storage.
    """
    count = len(events)
    storage = ffi.new("char[]", max(count, 1) * SYCL_EVENT_SIZE)
    for i, event in enumerate(events):
        ffi.memmove(storage + i * SYCL_EVENT_SIZE, event, SYCL_EVENT_SIZE)
    end = storage + count * SYCL_EVENT_SIZE
    vector = ffi.new("void *[3]", [storage, end, end])
    return ffi.cast(_VOID_POINTER, vector), (storage, vector)


def usm_kind(address: int, context: int) -> int | None:
    """The USM kind of ``address`` in the SYCL context at ``context`` (``USM_*``), or None
    when dpctl (which asks SYCL) is not installed: nothing can be checked then."""
    if "dpctl" not in sys.modules:
        try:
            import dpctl  # noqa: F401
        except ImportError:
            return None
    kind: int = _interface().DPCTLUSM_GetPointerType(address, context)
    return kind


def describe_context(context: object) -> str:
    """A SYCL context in words for a message: its address and devices, where dpctl can tell."""
    try:
        if isinstance(context, int):
            address, context = context, dpctl_object(context, "context")
        else:
            address = context.addressof_ref()  # type: ignore[attr-defined]
        devices = ", ".join(
            f"{device.name!r} ({device.backend.name}:{device.device_type.name})"
            for device in context.get_devices()  # type: ignore[attr-defined]
        )
        return f"SYCL context {address:#x} of {devices}"
    except Exception:  # no dpctl, or a context it cannot describe: its address alone
        return f"SYCL context {context:#x}" if isinstance(context, int) else f"SYCL context {context!r}"
