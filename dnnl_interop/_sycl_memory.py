"""Memory on a SYCL engine: USM pointers, the arrays that hold them, SYCL buffers.

``sycl.make_memory`` and ``Memory(desc, sycl_engine, buffer)`` (through
``_memory.DEVICE_CREATORS``, where this module registers itself) come here. A
handle is :data:`MEMORY_ALLOCATE`, :data:`MEMORY_NONE`, a USM pointer (an int,
a cffi pointer), an object with dpctl's ``__sycl_usm_array_interface__`` (a
dpnp or ``dpnp.tensor`` array: its pointer, shape, strides and data type
checked against the descriptor, as numpy arrays are on the CPU engine), or,
for ``BUFFER`` memory, the address of a ``sycl::buffer<uint8_t, 1>``.

A USM pointer is asked of SYCL (``DPCTLUSM_GetPointerType``) in the engine's
context before oneDNN reads it: one of another context is refused, naming
both contexts (an array's from its queue). Without dpctl nothing can be asked,
and the pointer is taken as given, as the other runtimes take int handles.
"""

from __future__ import annotations

import threading
import weakref
from typing import TYPE_CHECKING, Any

from ._buffers import UncheckedPointer, has_buffer
from ._engine import Engine, explain_runtime, interop_engine
from ._enums import DataType, EngineKind, FormatKind
from ._ffi import ffi, lib
from ._handles import address_of, check_address
from ._library import check
from ._memory import (
    DEVICE_CREATORS,
    PLAIN_CREATORS,
    KeptPointer,
    Memory,
    known_data_type,
    make_memory_object,
    memory_handles,
    usm_interface,
)
from ._memory_desc import MemoryDesc
from ._owned import new_out, using
from ._sycl_runtime import USM_UNKNOWN, describe_context, usm_kind

if TYPE_CHECKING:
    from ._ffi import CData

__all__ = ["SYCL_USM", "SYCL_BUFFER", "make_sycl_memory", "engine_context", "oneapi_engine"]

SYCL_USM, SYCL_BUFFER = lib.dnnl_sycl_interop_usm, lib.dnnl_sycl_interop_buffer
_ALLOCATE = address_of(lib.DNNL_MEMORY_ALLOCATE)
_VOID_POINTER = ffi.typeof("void *")


class _ArrayPointer(UncheckedPointer):
    """The USM address of an array checked against the descriptor, holding the array
    (the memory keeps this as its buffer, so the array lives as long as the memory)."""

    __slots__ = ("array", "syclobj")

    def __init__(self, address: int, array: object, syclobj: object) -> None:
        super().__init__(address)
        object.__setattr__(self, "array", array)
        object.__setattr__(self, "syclobj", syclobj)


# engine -> the address of its sycl::context, asked once: oneDNN keeps it for the engine's life.
_CONTEXTS: weakref.WeakKeyDictionary[Engine, int] = weakref.WeakKeyDictionary()


def engine_context(engine: Engine) -> int:
    """The address of the engine's ``sycl::context`` (oneDNN's copy, alive with the engine)."""
    if not engine.closed:
        known = _CONTEXTS.get(engine)
        if known is not None:
            return known
    out = ffi.new("void **")
    with explain_runtime("sycl", (engine, "engine")), using((engine, Engine, "engine")) as c_engine:
        check(lib.dnnl_sycl_interop_engine_get_context(c_engine, out), "dnnl_sycl_interop_engine_get_context")
    address = _CONTEXTS[engine] = address_of(out[0])
    return address


def _array_pointer(array: object, desc: MemoryDesc, what: str, interface: object) -> _ArrayPointer:
    """An array with ``__sycl_usm_array_interface__`` (``interface``, read once: dpnp waits
    for its queue at each read) checked against ``desc``."""
    address, shape, dtype, strides, read_only, syclobj = usm_interface(array, what, interface)
    if read_only:
        raise ValueError(f"{what}: the array is read-only (its __sycl_usm_array_interface__ says so)")
    expected = desc.data_type
    if known_data_type(dtype) != expected:
        raise ValueError(f"{what}: an array of {dtype}, the descriptor's data type is {expected.name.lower()}")
    if shape != desc.shape:
        raise ValueError(f"{what}: an array of shape {shape}, the descriptor's shape is {desc.shape}")
    if desc.strides is None:
        raise ValueError(f"{what}: the descriptor {desc!r} is blocked; an array has a plain layout")
    if strides != desc.strides and any(n > 1 for n in shape):
        raise ValueError(
            f"{what}: an array of strides {strides} (elements), the descriptor's are {desc.strides} "
            "(MemoryDesc.from_array(array) describes the array as it lies)"
        )
    return _ArrayPointer(address, array, syclobj)


def _check_context(pointer: CData, given: object, engine: Engine, what: str) -> None:
    """Refuse a USM pointer SYCL does not know in the engine's context (when dpctl can ask)."""
    address = address_of(pointer)
    if address in (0, _ALLOCATE) or not isinstance(engine, Engine):
        return
    _check_address_context(address, given, engine, what)


def _check_address_context(address: int, given: object, engine: Engine, what: str) -> None:
    context = engine_context(engine)
    kind = usm_kind(address, context)
    if kind is None or kind != USM_UNKNOWN:
        return
    syclobj = getattr(given, "syclobj", None)
    if syclobj is None and not isinstance(given, int):  # memory_over's pointer: the array it keeps (failing only)
        interface = getattr(getattr(given, "kept", None), "__sycl_usm_array_interface__", None)
        syclobj = interface.get("syclobj") if isinstance(interface, dict) else None
    if syclobj is not None:
        try:
            theirs = describe_context(syclobj.sycl_context)
        except AttributeError:  # a filter string or a capsule: named as it is
            theirs = f"SYCL context of {syclobj!r}"
        raise ValueError(
            f"{what}: USM of another SYCL context ({theirs}) than the engine's ({describe_context(context)}); "
            "make the engine on the array's queue: sycl.make_engine(q.sycl_device, q.sycl_context)"
        )
    if engine.kind == EngineKind.CPU and not isinstance(given, UncheckedPointer | int):
        return  # host memory (a numpy view): the CPU device reads it where it lies
    raise ValueError(
        f"{what}: {address:#x} is no USM allocation of the engine's {describe_context(context)}; "
        "USM of another context, or host memory, cannot be used by this engine"
    )


def _handle(handle: object, desc: object, engine: Engine, kind: int, what: str) -> Any:
    """What ``memory_handles`` takes for ``handle``: an array becomes its checked pointer."""
    interface = None if isinstance(handle, Memory) else getattr(handle, "__sycl_usm_array_interface__", None)
    if interface is not None:
        if kind != SYCL_USM:
            raise TypeError(f"{what}: an array holds USM; give it with sycl.MemoryKind.USM")
        if not isinstance(desc, MemoryDesc):
            raise TypeError(f"desc: expected a dnnl_interop.MemoryDesc, got {type(desc).__name__}")
        return _array_pointer(handle, desc, what, interface)
    if kind == SYCL_BUFFER and has_buffer(handle):
        raise TypeError(
            f"{what}: host memory is no SYCL buffer; BUFFER memory takes the address of a "
            "sycl::buffer<uint8_t, 1>, or MEMORY_ALLOCATE"
        )
    return handle


def create(memory: Memory, desc: MemoryDesc, engine: Engine, handle: object, what: str = "handle",
           kind: int = SYCL_USM) -> None:
    """Make ``memory`` on the SYCL ``engine`` over ``handle`` (one, or a list/tuple);
    ``what`` names it in messages."""
    if kind == SYCL_USM and isinstance(engine, Engine) and isinstance(desc, MemoryDesc):
        # The usual calls first: one array, or one USM address, over a dense descriptor.
        if type(handle) is int or isinstance(handle, (UncheckedPointer, Memory)):  # no interface to ask for
            interface = None
        else:
            interface = getattr(handle, "__sycl_usm_array_interface__", None)
        if interface is not None:
            handle = _array_pointer(handle, desc, what, interface)
        if isinstance(handle, UncheckedPointer) or (type(handle) is int and handle > 0):
            address = handle.address if isinstance(handle, UncheckedPointer) else check_address(handle, what)
            if address and address != _ALLOCATE and desc.format_kind == FormatKind.BLOCKED:
                _check_address_context(address, handle, engine, what)
                _create(memory, desc, engine, kind, [ffi.cast(_VOID_POINTER, address)], handle, False)
                return
    given = list(handle) if isinstance(handle, (list, tuple)) else [handle]
    checked = [_handle(h, desc, engine, kind, what if len(given) == 1 else f"{what}[{i}]")
               for i, h in enumerate(given)]
    handles: object = checked if isinstance(handle, (list, tuple)) else checked[0]
    pointers, keep, is_list = memory_handles(desc, handles, "ze_usm", what)
    if kind == SYCL_USM:
        for i, (pointer, h) in enumerate(zip(pointers, checked, strict=True)):
            _check_context(pointer, h, engine, what if not is_list else f"{what}[{i}]")
    _create(memory, desc, engine, kind, pointers, keep, is_list)


def plain_create(
    plain: tuple[tuple[int, ...], DataType, tuple[int, ...]], engine: Engine, address: int, kept: object, what: str
) -> Memory:
    """USM memory of the SYCL ``engine`` over ``address``, the data of a tensor the binding
    has read (a DLPack tensor, an array's USM interface, ``kept``), of the plain layout
    ``plain`` (see ``_memory.memory_over``): its context checked, nothing else again."""
    address = check_address(address, what)
    memory = Memory.__new__(Memory)
    if address and address != _ALLOCATE:
        kind = usm_kind(address, engine_context(engine))
        if kind is not None and kind == USM_UNKNOWN:  # refused, naming the contexts
            _check_address_context(address, KeptPointer(address, kept), engine, what)
    pointer = ffi.cast(_VOID_POINTER, address)
    make_memory_object(
        memory, None, engine,
        lambda out, md, c_engine: lib.dnnl_sycl_interop_memory_create(out, md, c_engine, SYCL_USM, pointer),
        "dnnl_sycl_interop_memory_create", "sycl", (pointer,), kept, plain,
    )
    return memory


def _create(
    memory: Memory, desc: MemoryDesc, engine: Engine, kind: int, pointers: list[CData], keep: object, is_list: bool
) -> None:
    if is_list:
        array = ffi.new("void *[]", pointers)
        make_memory_object(
            memory, desc, engine,
            lambda out, md, c_engine: lib.dnnl_sycl_interop_memory_create_v2(
                out, md, c_engine, kind, len(array), array
            ),
            "dnnl_sycl_interop_memory_create_v2", "sycl", pointers, keep,
        )
    else:
        pointer = pointers[0]
        make_memory_object(
            memory, desc, engine,
            lambda out, md, c_engine: lib.dnnl_sycl_interop_memory_create(out, md, c_engine, kind, pointer),
            "dnnl_sycl_interop_memory_create", "sycl", pointers, keep,
        )


# device id -> the engine oneapi_engine made (weakly: made again once nothing holds it).
_ONEAPI_ENGINES: dict[int, weakref.ref[Engine]] = {}
_oneapi_lock = threading.Lock()


def oneapi_engine(device_id: int, what: str) -> Engine:
    """The SYCL engine of a ``kDLOneAPI`` tensor's device: the ``device_id``-th SYCL root
    device (dpctl's list) in its platform's default context, where such tensors live.
    Shared by the memories made so, and made again once none of them is left.

    Raises:
        BufferError: dpctl is not installed (nothing can name the device), or there is no
            such device.
    """
    with _oneapi_lock:
        known = _ONEAPI_ENGINES.get(device_id)
        engine = known() if known is not None else None
        if engine is not None and not engine.closed:
            return engine
        try:
            import dpctl
        except ImportError:
            raise BufferError(
                f"engine: a USM tensor (kDLOneAPI, device {device_id}) needs the engine of its SYCL context "
                "(from_dlpack(x, engine=sycl.make_engine(...))), or dpctl to find it (pip install dpctl)"
            ) from None
        devices = dpctl.get_devices()
        if not 0 <= device_id < len(devices):
            raise BufferError(f"{what}: kDLOneAPI device {device_id}, and SYCL lists {len(devices)} device(s)")
        device = devices[device_id]
        context = device.sycl_platform.default_context
        out = new_out(Engine)
        check(lib.dnnl_sycl_interop_engine_create(out, ffi.cast("void *", device.addressof_ref()),
                                                  ffi.cast("void *", context.addressof_ref())),
              "dnnl_sycl_interop_engine_create")
        engine = interop_engine(out[0], (device, context), "sycl")
        _ONEAPI_ENGINES[device_id] = weakref.ref(engine)
        return engine


def make_sycl_memory(desc: MemoryDesc, engine: Engine, kind: int, handle: object) -> Memory:
    """``sycl.make_memory``: a Memory on a SYCL engine (``kind`` checked by the caller)."""
    memory = Memory.__new__(Memory)
    create(memory, desc, engine, handle, "handle", kind)
    return memory


DEVICE_CREATORS["sycl"] = create
PLAIN_CREATORS["sycl"] = plain_create
