"""DLPack, the producer's side and the capsule handling of both sides.

The C half is compiled into the module (``dnnl_interop/csrc/dlpack.c``):
the structs of ``dlpack.h``, the capsule destructor and the deleters, and two
functions of the Python C API installed here, ``export`` (a capsule over a
tensor of this binding) and ``take`` (the consumer's side: a capsule checked,
renamed ``used_dltensor[_versioned]`` and read in one call).

:func:`export` is ``Memory.__dlpack__``: a tensor over the memory's own
buffer when it can be one (plain layout, host or USM memory), a copy where the
caller allows one. :func:`take` gives ``_exchange.from_dlpack`` what a capsule
holds, with the producer's deleter called exactly once, when the last object
that uses the tensor lets go.

Exporting reads a memory's *execute records* (its layout key and size, as
``_execution`` does), the engine it *holds*, its OpenCL kind and its handle
(checked again in C); each such read is marked ``# noqa: SLF001`` with its kind.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from ._engine import Engine, runtime_of
from ._enums import DataType
from ._ffi import ffi, lib
from ._library import check
from ._memory_desc import MemoryDesc, layout_key
from ._owned import Owned, finish_work, using
from .errors import ClosedObjectError

if TYPE_CHECKING:
    from ._ffi import CData

__all__ = ["KDL_CPU", "KDL_ONEAPI", "READ_ONLY", "IS_COPIED", "device_of", "export", "take", "data_type_of"]

# DLDeviceType values this binding produces or names (dlpack.h).
KDL_CPU, KDL_OPENCL, KDL_ONEAPI = 1, 4, 14
DEVICE_NAMES = {
    1: "kDLCPU", 2: "kDLCUDA", 3: "kDLCUDAHost", 4: "kDLOpenCL", 7: "kDLVulkan", 8: "kDLMetal", 9: "kDLVPI",
    10: "kDLROCM", 11: "kDLROCMHost", 12: "kDLExtDev", 13: "kDLCUDAManaged", 14: "kDLOneAPI", 15: "kDLWebGPU",
    16: "kDLHexagon", 17: "kDLMAIA",
}
READ_ONLY = lib.DLPACK_FLAG_BITMASK_READ_ONLY
IS_COPIED = lib.DLPACK_FLAG_BITMASK_IS_COPIED
NEWEST_MINOR = 1  # the DLPack 1.x minor version this binding speaks

# oneDNN data type -> DLPack (DLDataTypeCode, bits); one lane each. Sub-byte
# types (s4, u4, f4) are left out: their packing is a flag of its own.
_CODES: dict[DataType, tuple[int, int]] = {
    DataType.F32: (2, 32), DataType.F16: (2, 16), DataType.F64: (2, 64), DataType.BF16: (4, 16),
    DataType.S8: (0, 8), DataType.S32: (0, 32), DataType.S64: (0, 64), DataType.U8: (1, 8),
    DataType.BOOLEAN: (6, 8),
    DataType.F8_E4M3: (10, 8),  # kDLFloat8_e4m3fn: oneDNN's f8_e4m3 is OCP's E4M3 (no infinities)
    DataType.F8_E5M2: (12, 8),  # kDLFloat8_e5m2
    DataType.E8M0: (14, 8),  # kDLFloat8_e8m0fnu
}
_TYPES = {code: data_type for data_type, code in _CODES.items()}

# The C functions of the Python C API (see dnnl_interop/csrc/dlpack.c).
_c: dict[str, Any] = {}
if lib.dnnl_interop_dlpack_install(id(_c)):
    raise ImportError("dnnl_interop._ffi: the DLPack capsule functions could not be installed")
_export, _export_memory, _take = _c["export"], _c["export_memory"], _c["take"]
# export_host(memory, max_version): Memory.__dlpack__'s usual call in C, or None (see export)
export_host = _c["export_host"]
_delete, _delete_versioned = lib.dnnl_interop_dlpack_delete, lib.dnnl_interop_dlpack_delete_versioned
_HANDLES: dict[int, tuple[Any, int]] = {}  # id(memory) -> (its handle, the handle's address), checked by identity
_TEMPLATES: dict[tuple[object, ...], bytes] = {}  # (layout, device, strides) -> DLTensor template (see export)
# id(layout) -> (that layout, template) of CPU engine memory exported in place: a memory whose
# layout key is that very object takes export's short path (a read-only one's is a copy).
_HOST_TEMPLATES: dict[int, tuple[tuple[object, ...], bytes]] = {}
_MINORS: dict[object, int] = {None: -1, (1, 0): 0, (1, 1): 1}  # max_version -> the capsule's minor version
_c["configure"](_HOST_TEMPLATES, _HANDLES, _MINORS)  # what export_host reads


def dlpack_types() -> dict[tuple[int, int], DataType]:
    """DLPack (code, bits) -> the oneDNN data type, for one lane: those :func:`data_type_of` knows."""
    return dict(_TYPES)


def data_type_of(code: int, bits: int, lanes: int) -> DataType | None:
    """The oneDNN data type of a DLPack one, or None."""
    return _TYPES.get((code, bits)) if lanes == 1 else None


def device_of(memory: Any) -> tuple[int, int]:
    """``(device_type, device_id)`` of a Memory: kDLCPU for the CPU engine, kDLOneAPI
    for USM; a ``cl_mem`` (OpenCL buffer memory) is kDLOpenCL, which nothing consumes."""
    if memory.closed:
        raise ClosedObjectError("memory: this Memory is closed")
    engine = memory.engine
    runtime = runtime_of(engine)
    if runtime == "native":
        return KDL_CPU, 0
    if runtime == "ocl" and memory._ocl_kind() == lib.dnnl_ocl_interop_buffer:  # noqa: SLF001 - a memory's OpenCL kind
        return KDL_OPENCL, _device_id(engine)
    return KDL_ONEAPI, _device_id(engine)


def _device_id(engine: Engine) -> int:
    """The index oneDNN gives the engine's device among the GPU engines it counts (0 if it counts none)."""
    return 0


def _max_minor(max_version: object) -> int:
    """The minor version of the capsule to give for ``max_version``: -1 for a legacy one."""
    if max_version is None:
        return -1
    try:
        given_major, given_minor = cast(Any, max_version)
        major, minor = int(given_major.__index__()), int(given_minor.__index__())
    except (TypeError, ValueError, AttributeError):
        raise TypeError(f"max_version: expected None or a (major, minor) tuple of ints, got {max_version!r}") from None
    if major < 1:
        return -1
    return min(minor, NEWEST_MINOR) if major == 1 else NEWEST_MINOR


def _device_argument(dl_device: object) -> tuple[int, int]:
    try:
        given_kind, given_index = cast(Any, dl_device)
        return int(given_kind.__index__()), int(given_index.__index__())
    except (TypeError, ValueError, AttributeError):
        raise TypeError(f"dl_device: expected None or a (device_type, device_id) tuple, got {dl_device!r}") from None


def _device_name(device: tuple[int, int]) -> str:
    return f"({DEVICE_NAMES.get(device[0], device[0])}, {device[1]})"


def export(memory: Any, stream: object, max_version: object, dl_device: object, copy: object) -> object:
    """``Memory.__dlpack__``: a PyCapsule (see the method's documentation)."""
    # The usual call first: host memory of a plain layout exported before, in place.
    if dl_device is None and stream is None and (copy is None or copy is False):
        try:
            layout = memory._layout  # noqa: SLF001 - execute record
            known, template = _HOST_TEMPLATES[id(layout)]
            minor = _MINORS[max_version]
            host = known is layout and runtime_of(memory._keep[1]) == "native"  # noqa: SLF001 - held objects
        except (KeyError, TypeError, AttributeError, IndexError):  # anything else: the full path says why
            host = False
        if host:
            return _in_place(memory, template, minor, 0)
    return _export_checked(memory, stream, max_version, dl_device, copy)


def _flags(memory: Any) -> int:
    return READ_ONLY if getattr(memory, "_read_only", False) else 0


def _in_place(memory: Any, template: bytes, minor: int, flags: int) -> object:
    """A capsule over the memory's own buffer, once the work in flight that uses it is finished.

    The C side registers a use of the memory's handle (ended by the consumer's
    deleter), checks the handle is still the memory's, then reads its data handle.
    """
    finish_work(memory)  # the consumer reads at once: no work in flight may still write it
    handle = memory._handle  # noqa: SLF001 - the handle, checked again in C
    entry = _HANDLES.get(id(memory))
    if entry is None or entry[0] is not handle:
        if handle is None:
            raise ClosedObjectError("memory: this Memory is closed")
        if len(_HANDLES) > 4096:
            _HANDLES.clear()
        entry = _HANDLES[id(memory)] = (handle, int(ffi.cast("uintptr_t", handle)))
    capsule = _export_memory(template, memory, handle, entry[1], flags, minor)
    if capsule is None:
        raise ClosedObjectError("memory: this Memory is closed")
    if capsule == 0:
        if memory._size:  # noqa: SLF001 - execute record
            raise BufferError("memory: the memory has no buffer (MEMORY_NONE)")
        capsule = _export(template, 0, memory, flags, minor)  # no data: nothing to keep valid
    return capsule


def _export_checked(memory: Any, stream: object, max_version: object, dl_device: object, copy: object) -> object:
    """:func:`export` with every check."""
    if memory.closed:
        raise ClosedObjectError("memory: this Memory is closed")
    minor = _max_minor(max_version)
    if copy is not None and copy is not True and copy is not False:
        raise TypeError(f"copy: expected None, True or False, got {copy!r}")
    desc: MemoryDesc = memory.desc  # a closed memory says so here
    own = device_of(memory)
    device = own if dl_device is None else _device_argument(dl_device)
    if own[0] == KDL_CPU and stream is not None:
        raise BufferError(f"stream: host memory (kDLCPU) is exported with stream=None, got {stream!r}")
    to_host = device != own
    if to_host and device != (KDL_CPU, 0):
        raise BufferError(
            f"dl_device: the memory is on {_device_name(own)}; it can be exported there or, "
            f"as a copy (copy=True), to (kDLCPU, 0), not to {_device_name(device)}"
        )
    if to_host and copy is False:
        raise BufferError(
            f"dl_device: the memory is on {_device_name(own)}; a tensor on (kDLCPU, 0) is a copy, "
            "which copy=False refuses"
        )
    if own[0] == KDL_OPENCL and not to_host:
        raise BufferError(
            "memory: an OpenCL buffer (cl_mem) is no DLPack tensor any consumer reads (kDLOpenCL); "
            "export USM memory (ocl.MemoryKind.USM, Level Zero), or ask for a host copy with "
            "copy=True, dl_device=(1, 0)"
        )
    code = _CODES.get(desc.data_type)
    if code is None:
        raise BufferError(f"memory: DLPack has no data type for {desc.data_type.name.lower()}")
    flags = _flags(memory)
    if desc.strides is None and copy is False:
        raise BufferError(
            f"memory: the layout {desc.tag or desc.format_kind.name.lower()!r} is blocked; no DLPack "
            "strides describe it, and a plain copy is what copy=False refuses"
        )
    if to_host or (own[0] == KDL_CPU and (copy or desc.strides is None)):
        owner, address, strides = _copy_of(memory, desc)
        flags |= IS_COPIED
        device = (KDL_CPU, 0)
    elif copy:
        raise BufferError(
            f"copy: this binding copies device memory to the host only; ask for dl_device=(1, 0) "
            f"(the memory is on {_device_name(own)})"
        )
    elif desc.strides is None:
        raise BufferError(
            f"memory: the layout {desc.tag or desc.format_kind.name.lower()!r} is blocked; no DLPack strides "
            "describe it (reorder it to a plain layout first: dnnl_interop.reordered)"
        )
    else:
        owner, address, strides = None, 0, desc.strides  # the memory's own buffer (see _in_place)
    key = (layout_key(desc), device, strides)
    template = _TEMPLATES.get(key)
    if template is None:
        if len(_TEMPLATES) > 1024:
            _TEMPLATES.clear()
        template = _TEMPLATES[key] = _template(desc.shape, strides, code, device)
    if owner is not None:
        return _export(template, address, owner, flags, minor)
    if device == (KDL_CPU, 0):  # in place, on the CPU engine: export's short path from now on
        if len(_HOST_TEMPLATES) > 1024:
            _HOST_TEMPLATES.clear()
        _HOST_TEMPLATES[id(layout_key(desc))] = (layout_key(desc), template)
    return _in_place(memory, template, minor, flags)


def _template(
    shape: tuple[int, ...], strides: tuple[int, ...], code: tuple[int, int], device: tuple[int, int]
) -> bytes:
    """The DLTensor of a tensor (its data left out), then its shape and strides (int64)."""
    ndim = len(shape)
    block = ffi.new("char[]", ffi.sizeof("DLTensor") + 16 * ndim)
    tensor: Any = ffi.cast("DLTensor *", block)
    tensor.device.device_type, tensor.device.device_id = device
    tensor.ndim = ndim
    tensor.dtype.code, tensor.dtype.bits, tensor.dtype.lanes = code[0], code[1], 1
    dims = ffi.cast("int64_t *", block + ffi.sizeof("DLTensor"))
    dims[0:ndim] = list(shape)
    dims[ndim:2 * ndim] = list(strides)
    return bytes(ffi.buffer(block))


def _copy_of(memory: Any, desc: MemoryDesc) -> tuple[object, int, tuple[int, ...]]:
    """``(owner, address, strides)`` of a C-contiguous host copy of the memory's data
    (a numpy array): read through a view or a mapping, or reordered from a blocked layout."""
    import numpy

    dtype = desc.dtype
    shape = desc.shape
    if desc.strides is not None:
        if dtype is None:  # no numpy type: the raw bytes, laid out by the same strides
            raise BufferError(f"memory: a copy of {desc.data_type.name.lower()} data needs a numpy type for it")
        with memory.mapped() as view:  # finishes the work in flight first
            copy = numpy.ascontiguousarray(view).copy()
    else:
        if runtime_of(memory.engine) != "native":
            raise BufferError(
                "memory: a blocked layout on a device is exported once reordered to a plain one "
                "(dnnl_interop.reordered(memory, plain_desc, stream))"
            )
        if dtype is None:
            raise BufferError(f"memory: a copy of {desc.data_type.name.lower()} data needs a numpy type for it")
        copy = numpy.empty(shape, dtype)
        _reorder_into(memory, desc, copy)
    contiguous = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        contiguous[i] = contiguous[i + 1] * shape[i + 1]
    return copy, int(copy.__array_interface__["data"][0]), tuple(contiguous)


def _reorder_into(memory: Any, desc: MemoryDesc, target: Any) -> None:
    """Reorder the (CPU engine) memory's data into ``target``, a C-contiguous numpy array."""
    finish_work(memory)
    plain = MemoryDesc(desc.shape, desc.data_type, strides=tuple(s // target.itemsize for s in target.strides))
    engine: Engine = memory.engine
    handles: list[tuple[Any, str]] = []  # (handle, destroy function) in the order made
    try:
        with using((memory, Owned, "memory"), (plain, MemoryDesc, "desc"), (engine, Engine, "engine")) as (
            c_memory, c_plain, c_engine
        ):
            out = ffi.new("dnnl_memory_t *")
            address = ffi.cast("void *", target.__array_interface__["data"][0])
            check(lib.dnnl_memory_create(out, c_plain, c_engine, address), "dnnl_memory_create")
            handles.append((out[0], "dnnl_memory_destroy"))
            pd = ffi.new("dnnl_primitive_desc_t *")
            with using((desc, MemoryDesc, "desc")) as c_desc:
                check(lib.dnnl_reorder_primitive_desc_create(pd, c_desc, c_engine, c_plain, c_engine, ffi.NULL),
                      "dnnl_reorder_primitive_desc_create")
            handles.append((pd[0], "dnnl_primitive_desc_destroy"))
            primitive = ffi.new("dnnl_primitive_t *")
            check(lib.dnnl_primitive_create(primitive, pd[0]), "dnnl_primitive_create")
            handles.append((primitive[0], "dnnl_primitive_destroy"))
            c_stream = ffi.new("dnnl_stream_t *")
            check(lib.dnnl_stream_create(c_stream, c_engine, lib.dnnl_stream_default_flags), "dnnl_stream_create")
            handles.append((c_stream[0], "dnnl_stream_destroy"))
            args = ffi.new("dnnl_exec_arg_t[2]", [(lib.DNNL_ARG_FROM, c_memory), (lib.DNNL_ARG_TO, out[0])])
            check(lib.dnnl_primitive_execute(primitive[0], c_stream[0], 2, args), "dnnl_primitive_execute")
            check(lib.dnnl_stream_wait(c_stream[0]), "dnnl_stream_wait")
    finally:
        for handle, destroy in reversed(handles):
            getattr(lib, destroy)(handle)
        plain.close()


class Taken:
    """What a DLPack capsule held, taken by this binding as its consumer.

    ``keep`` releases the tensor (the producer's deleter, exactly once) when it is
    collected: whatever uses the data holds it.
    """

    __slots__ = ("keep", "flags", "address", "device", "data_type", "code", "shape", "strides")

    def __init__(self, info: tuple[Any, ...]) -> None:
        managed, versioned, major = info[:3]
        if versioned:
            self.keep: CData = ffi.gc(ffi.cast("DLManagedTensorVersioned *", managed), _delete_versioned)
        else:
            self.keep = ffi.gc(ffi.cast("DLManagedTensor *", managed), _delete)
        if versioned and major != 1:
            raise BufferError(f"the DLPack tensor is of version {major}.x; this binding reads 1.x")
        _, _, _, self.flags, self.address, kind, index, code, bits, lanes, self.shape, strides = info
        self.device = (kind, index)
        self.code = (code, bits, lanes)
        self.data_type = data_type_of(code, bits, lanes)
        self.strides: tuple[int, ...] = strides if strides is not None else _contiguous(self.shape)


def _contiguous(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = strides[i + 1] * shape[i + 1]
    return tuple(strides)


def take(capsule: object, what: str) -> Taken:
    """Take ``capsule`` as its consumer: renamed ``used_...``, its tensor released once
    the :class:`Taken` (and whatever keeps its ``keep``) is gone.

    Raises:
        TypeError: ``capsule`` is no DLPack capsule, or one already taken.
        BufferError: the tensor has no shape, or is of another major version (released).
    """
    info = _take(capsule)
    if info is None:
        raise TypeError(
            f"{what}: __dlpack__ gave {type(capsule).__name__}, not an unused \"dltensor\" or "
            "\"dltensor_versioned\" capsule"
        )
    return Taken(info)



def usm_array_interface(memory: Any) -> dict[str, Any]:
    """``Memory.__sycl_usm_array_interface__`` (see there)."""
    if device_of(memory)[0] != KDL_ONEAPI:
        raise AttributeError(
            "__sycl_usm_array_interface__: only USM memory (OpenCL USM, Level Zero) has one; this memory is "
            f"{'on the CPU engine' if runtime_of(memory.engine) == 'native' else 'an OpenCL buffer'}"
        )
    desc: MemoryDesc = memory.desc
    dtype = desc.dtype
    if dtype is None or desc.strides is None:
        raise AttributeError(
            f"__sycl_usm_array_interface__: {desc!r} is no array of a numpy type with strides"
        )
    finish_work(memory)
    return {
        "shape": desc.shape,
        "typestr": dtype.str,
        "data": (memory.data_handle, bool(getattr(memory, "_read_only", False))),
        "strides": desc.strides,
        "offset": 0,
        "version": 1,
        "syclobj": None,
    }
