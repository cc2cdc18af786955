"""What a memory's data may be: two doors, each checking what it takes.

* :func:`host_buffer`, for memory on a host engine (the CPU engine): an object
  with the buffer protocol (a numpy array, a bytearray, a cffi array), whose
  item type, byte order and writability are checked against the descriptor,
  and whose layout must be the descriptor's (see :func:`host_buffer`). A
  bare address is refused: it has no size or lifetime to check.
  :class:`UncheckedPointer` is the named way to give one anyway.
* :func:`device_handle`, for OpenCL buffers and USM pointers (``ocl`` and
  ``ze`` memory): a pyopencl memory object, an int handle (``__index__``), a
  cffi pointer, or, for USM, a host view of shared USM (checked like a host
  buffer). A host array is never taken for a ``cl_mem``.

Both return ``(void *, object to keep alive)`` and accept
:data:`MEMORY_ALLOCATE`, :data:`MEMORY_NONE` and None (no buffer).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple, NoReturn, cast

from ._ffi import ffi, lib
from ._handles import as_handle, check_address, type_name
from ._owned import Owned
from ._validate import NUMPY_TYPES

if TYPE_CHECKING:
    import numpy

    from ._ffi import CData



class Layout(NamedTuple):
    """What a buffer is checked against: a descriptor's shape and strides in
    elements (None for a layout no strides describe: blocked, padded), and
    how messages name the descriptor (called only to refuse)."""

    shape: tuple[int, ...]
    strides: tuple[int, ...] | None
    name: Callable[[], str]

_VOID_POINTER = ffi.typeof("void *")
_MEMORY_ALLOCATE_ADDRESS = int(ffi.cast("uintptr_t", lib.DNNL_MEMORY_ALLOCATE))


class _Allocate:
    """``MEMORY_ALLOCATE``: oneDNN allocates the buffer when the memory is made.

    A named constant rather than the bare ``void *`` (``DNNL_MEMORY_ALLOCATE``,
    also accepted) so that signatures and reprs read ``MEMORY_ALLOCATE``.
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return "MEMORY_ALLOCATE"

    def __reduce__(self) -> str:
        return "MEMORY_ALLOCATE"


MEMORY_ALLOCATE = _Allocate()

# struct-module format characters by (kind, itemsize); kind: f float, i
# signed, u unsigned, b bool. "l"/"L" are 8 bytes on the LP64 systems oneDNN
# supports; itemsize comes from the buffer itself anyway.
_FORMAT_KIND = {
    **dict.fromkeys("efd", "f"),
    **dict.fromkeys("bhilq", "i"),
    **dict.fromkeys("BHILQ", "u"),
    "?": "b",
    "c": "u",
}
_NATIVE_ORDER = "<" if sys.byteorder == "little" else ">"


class UncheckedPointer:
    """An address given as a memory's data on the caller's word.

    ``UncheckedPointer(address)`` (an int or a cffi pointer) says: this
    address points to at least as many bytes as the descriptor needs, of
    the right type, and stays valid until the memory is closed or given
    another buffer. Nothing of that can be checked; a wrong address can
    crash the process. Prefer a numpy array or another buffer object.

    Raises:
        TypeError: ``address`` is not an int (or a cffi pointer).
        ValueError: ``address`` is negative or larger than any pointer.
    """

    __slots__ = ("address",)
    address: int

    def __init__(self, address: object) -> None:
        if isinstance(address, ffi.CData):
            address = int(ffi.cast("uintptr_t", address))
        object.__setattr__(self, "address", check_address(address, "address"))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("UncheckedPointer is immutable")

    def __reduce__(self) -> NoReturn:
        raise TypeError("an UncheckedPointer is an address in this process: it cannot be pickled")

    def __repr__(self) -> str:
        return f"dnnl_interop.UncheckedPointer({self.address:#x})"


def _sentinel(data: object) -> CData | None:
    """The ``void *`` of None, MEMORY_NONE or MEMORY_ALLOCATE; None otherwise."""
    if data is None:
        return ffi.NULL
    if data is MEMORY_ALLOCATE:
        return lib.DNNL_MEMORY_ALLOCATE
    if isinstance(data, ffi.CData) and ffi.typeof(data) is _VOID_POINTER:
        address = int(ffi.cast("uintptr_t", data))
        if address in (0, _MEMORY_ALLOCATE_ADDRESS):
            return data
    return None


def refuse_allocate(data: object, what: str) -> None:
    """MEMORY_ALLOCATE asks oneDNN to allocate at creation; it is no buffer to switch to."""
    pointer = _sentinel(data)
    address = getattr(data, "address", data) if isinstance(data, (int, UncheckedPointer)) else None
    if (pointer is not None and pointer != ffi.NULL) or address == _MEMORY_ALLOCATE_ADDRESS:
        raise ValueError(f"{what}: MEMORY_ALLOCATE only applies when a memory is created")


def _no_buffer_to_check(data: object, what: str) -> tuple[CData, object] | None:
    """What both doors take as it is: no buffer, MEMORY_ALLOCATE, an UncheckedPointer
    (``(void *, keep)``); None for anything to check. Our own objects are refused."""
    pointer = _sentinel(data)
    if pointer is not None:
        return pointer, None
    if isinstance(data, UncheckedPointer):
        return ffi.cast(_VOID_POINTER, data.address), data
    if isinstance(data, Owned):
        raise TypeError(f"{what}: expected a data buffer, got a dnnl_interop.{type(data).__name__}")
    return None


def host_buffer(
    data: object, size: int, data_type: int | None, what: str, layout: Layout | None = None
) -> tuple[CData, object]:
    """``(void *, keep)`` for host data of ``size`` bytes of ``data_type``.

    ``data_type`` None skips the item-type check (buffers of a descriptor
    whose extra buffers hold metadata of other types). A buffer must be the
    logical tensor ``layout`` (the descriptor's) describes, or its raw storage:

    * a flat buffer (one dimension, C-contiguous: a 1-D numpy array, a
      bytearray, a cffi array) is the descriptor's storage as it lies, in its
      layout, blocked or not: at least ``size`` bytes;
    * any other (a numpy array of two or more dimensions, or a strided view)
      must have the descriptor's shape and, but for dimensions of one
      element, its strides. A descriptor no strides describe (blocked,
      padded) takes none: the array's elements are not where oneDNN reads them.

    Without ``layout`` (extra buffers), a C-contiguous buffer of at least
    ``size`` bytes is taken as storage.
    """
    given = _no_buffer_to_check(data, what)
    if given is not None:
        return given
    if hasattr(data, "int_ptr"):
        raise TypeError(
            f"{what}: a {type_name(data)} is a device memory handle, not host memory; "
            "use ocl.make_memory or ze.make_memory on an engine of that runtime"
        )
    if isinstance(data, ffi.CData):
        return _cffi_array(data, size, data_type, what)
    try:
        view = memoryview(cast(Any, data))  # the TypeError for what is no buffer is the check
    except TypeError:
        if isinstance(data, int) or hasattr(data, "__index__"):
            raise TypeError(
                f"{what}: an int address has no size or lifetime to check; pass a buffer "
                "(a numpy array, a bytearray), or dnnl_interop.UncheckedPointer(address) "
                "if you vouch for both"
            ) from None
        raise TypeError(
            f"{what}: expected a buffer (a numpy array, a bytearray, ...), got a {type_name(data)}"
        ) from None
    with view:
        contiguous = view.c_contiguous
        _check_view(view, data, size, data_type, what, layout)
    if not contiguous:
        return _strided_pointer(data)
    pointer = ffi.from_buffer("char[]", cast(Any, data), require_writable=True)
    return ffi.cast(_VOID_POINTER, pointer), (data, pointer)


def _check_view(
    view: memoryview, data: object, size: int, data_type: int | None, what: str, layout: Layout | None
) -> None:
    if view.readonly:
        raise ValueError(f"{what}: the buffer is read-only; oneDNN may write to a memory's buffer")
    if data_type is not None:
        _check_item_type(view, data, data_type, what)
    flat = view.c_contiguous and view.ndim <= 1
    if flat or (layout is None and view.c_contiguous):  # storage as it lies
        if view.nbytes < size:
            raise ValueError(f"{what}: {view.nbytes} bytes, the descriptor needs {size}")
        return
    _check_layout(view, layout, what)


def _check_layout(view: memoryview, layout: Layout | None, what: str) -> None:
    """A buffer of two or more dimensions, or a strided one, is taken only as the
    descriptor's tensor: its shape, and its strides (but for dimensions of one
    element). oneDNN then reads exactly its elements, each as the one it is."""
    if layout is None:
        raise ValueError(
            f"{what}: the buffer is not C-contiguous; the descriptor's layout says where each "
            "element is within one contiguous block (numpy.ascontiguousarray makes one)"
        )
    shape, strides, name = layout
    given_shape, given_strides = tuple(view.shape or ()), tuple(view.strides or ())
    if strides is None:
        raise ValueError(
            f"{what}: the descriptor, {name()}, is not a plain layout (blocked or padded): no array "
            f"of shape {given_shape} lies that way, and oneDNN would read its elements as others. "
            "Make a memory of the array's own layout, Memory(MemoryDesc.from_array(array), engine, array), "
            "and bring it to this one with dnnl_interop.reordered(memory, desc, stream); only a flat "
            "(1-D) buffer is taken as data already in this layout"
        )
    if given_shape != tuple(shape):
        flat = " (array.reshape(-1) for this one-dimensional one)" if len(shape) == 1 else ""
        raise ValueError(
            f"{what}: an array of shape {given_shape} for a descriptor of shape {tuple(shape)} ({name()}): "
            "oneDNN would read its elements as another tensor's. Give an array of the descriptor's "
            f"shape{flat}, or a descriptor of the array's (MemoryDesc.from_array(array))"
        )
    itemsize = view.itemsize
    if 0 in given_shape or all(
        dim == 1 or given == stride * itemsize for dim, given, stride in zip(shape, given_strides, strides, strict=True)
    ):
        return
    if view.c_contiguous:
        lies = "C-contiguous (row-major)"
    elif view.f_contiguous:
        lies = "Fortran-contiguous (column-major)"
    else:
        lies = "strided"
    raise ValueError(
        f"{what}: the array's strides, {given_strides} bytes ({lies}), are not the descriptor's, "
        f"{tuple(s * itemsize for s in strides)} bytes ({name()}): oneDNN would read its elements in "
        "another order (transposed, say). Describe the array as it lies with MemoryDesc.from_array(array) "
        "(dnnl_interop.reordered(memory, desc, stream) then brings it to this layout), or give a view "
        "in the descriptor's layout"
    )


def _strided_pointer(data: object) -> tuple[CData, object]:
    """The address of the first element of a checked non-contiguous buffer."""
    import numpy  # only numpy-style exporters are non-contiguous in practice

    array = numpy.asarray(data)  # no copy: a view of the same memory
    address = array.__array_interface__["data"][0]
    return ffi.cast(_VOID_POINTER, address), (data, array)


def _check_item_type(view: memoryview, data: object, data_type: int, what: str) -> None:
    fmt = view.format
    order, char = (fmt[0], fmt[1:]) if fmt[:1] in "@=<>!" else ("@", fmt)
    if order in "<>!" and order.replace("!", ">") != _NATIVE_ORDER:
        raise ValueError(f"{what}: the buffer's byte order is not the machine's ({_dtype_of(data, fmt)})")
    kind = _FORMAT_KIND.get(char)
    expected = NUMPY_TYPES.get(data_type)  # type: ignore[call-overload]  # a DataType's int
    if expected is None:  # a type numpy cannot name: raw bits
        if kind == "u":
            return
        raise ValueError(
            f"{what}: {_dtype_of(data, fmt)} items for a descriptor of a type numpy cannot hold; "
            "give its raw bits as unsigned integers (array.view(numpy.uint8))"
        )
    name = expected.name
    if (kind, view.itemsize) != (expected.kind, expected.itemsize):
        raise ValueError(
            f"{what}: {_dtype_of(data, fmt)} items, the descriptor holds {name}; convert the data "
            f"(array.astype(numpy.{name})) or, to reinterpret its bytes on purpose, "
            f"array.view(numpy.{name})"
        )


def _cffi_array(data: CData, size: int, data_type: int | None, what: str) -> tuple[CData, object]:
    kind = ffi.typeof(data)
    if kind.kind != "array":
        raise TypeError(
            f"{what}: a cffi {kind.cname} has no size to check; pass a cffi array, or "
            "dnnl_interop.UncheckedPointer(pointer) if you vouch for its size and lifetime"
        )
    return host_buffer(ffi.buffer(data), size, None, what)[0], data


def device_handle(
    data: object, size: int, data_type: int | None, what: str, runtime: str, layout: Layout | None = None
) -> tuple[CData, object]:
    """``(void *, keep)`` for a memory handle of an interop ``runtime``.

    ``runtime`` is ``"cl_mem"`` (an OpenCL buffer: a pyopencl memory object,
    an int or a ``cl_mem``/``void *`` cffi pointer), ``"ocl_usm"`` (a USM
    pointer of an OpenCL engine: an int, a ``void *``, a pyopencl SVM
    pointer, or a host view of shared USM) or ``"ze_usm"`` (the same for
    Level Zero, where pyopencl objects are foreign). A host view is checked
    against ``layout`` as :func:`host_buffer` checks a host buffer.
    """
    given = _no_buffer_to_check(data, what)
    if given is not None:
        return given
    if isinstance(data, (list, tuple)):
        raise TypeError(f"{what}: expected one memory handle, got a {type_name(data)}")
    if isinstance(data, ffi.CData):
        return _cffi_handle(data, size, data_type, what, runtime)
    if hasattr(data, "int_ptr"):
        if runtime == "ze_usm" and type(data).__module__.startswith("pyopencl"):
            raise TypeError(f"{what}: a {type_name(data)} is an OpenCL object, not a Level Zero USM pointer")
        ctype = "cl_mem" if runtime == "cl_mem" else _VOID_POINTER
        handle = as_handle(data, ctype, what)
        held = getattr(data, "size", None)
        if isinstance(held, int) and held < size:
            raise ValueError(f"{what}: {held} bytes, the descriptor needs {size}")
        return ffi.cast(_VOID_POINTER, handle), data
    if has_buffer(data):
        if runtime == "cl_mem":
            raise TypeError(
                f"{what}: a {type_name(data)} is host memory, not an OpenCL buffer (cl_mem); "
                "give a pyopencl.Buffer, or USM memory with MemoryKind.USM"
            )
        return host_buffer(data, size, data_type, what, layout)
    ctype = "cl_mem" if runtime == "cl_mem" else _VOID_POINTER
    return ffi.cast(_VOID_POINTER, as_handle(data, ctype, what)), data


def _cffi_handle(data: CData, size: int, data_type: int | None, what: str, runtime: str) -> tuple[CData, object]:
    kind = ffi.typeof(data)
    if kind.kind == "array":
        if runtime == "cl_mem":
            raise TypeError(f"{what}: a cffi {kind.cname} is host memory, not an OpenCL buffer (cl_mem)")
        return _cffi_array(data, size, data_type, what)
    accepted = (_VOID_POINTER, ffi.typeof("cl_mem")) if runtime == "cl_mem" else (_VOID_POINTER,)
    if kind not in accepted:
        names = " or ".join(t.cname for t in accepted)
        raise TypeError(f"{what}: expected a {names} cffi pointer, got a {kind.cname}")
    return ffi.cast(_VOID_POINTER, data), data


# [pyopencl.array.Array] once a memory was made over an Array, empty until then: execute
# looks for Arrays behind its memories only after that (see _array_events).
array_types: list[type] = []


def device_array(
    data: object, layout: Layout, dtype: numpy.dtype[Any] | None, buffer_kind: bool, what: str
) -> object:
    """The ``pyopencl.Buffer`` of a ``pyopencl.array.Array`` given as a memory's
    OpenCL buffer, once the Array is checked against the descriptor (``layout``
    and ``dtype``); anything else unchanged (:func:`device_handle` checks it).
    The memory keeps the Array itself, whose events order the work on it."""
    arrays = sys.modules.get("pyopencl.array")  # never imported here: no Array exists without it
    if arrays is None or not isinstance(data, arrays.Array):
        return data
    if not buffer_kind:
        raise TypeError(f"{what}: a pyopencl.array.Array holds an OpenCL buffer (cl_mem): use MemoryKind.BUFFER")
    if data.offset:
        raise ValueError(
            f"{what}: the Array starts {data.offset} bytes into its buffer (a view such as array[1:]); "
            "oneDNN memory starts at the beginning of a buffer: give array.copy()"
        )
    base = data.base_data
    if base is None or not isinstance(base, sys.modules["pyopencl"].MemoryObjectHolder):
        raise TypeError(f"{what}: the Array's data is {type_name(base)}, not an OpenCL buffer (cl_mem)")
    shape, strides, _ = layout
    if dtype is None:
        raise TypeError(f"{what}: numpy has no type for the descriptor's data; give the Array's buffer (array.data)")
    if data.dtype != dtype:
        raise ValueError(f"{what}: an Array of {data.dtype}, the descriptor holds {dtype}")
    given_shape, given_strides = tuple(data.shape), tuple(data.strides)
    if strides is None or given_shape != tuple(shape) or any(
        size != 1 and given != stride * dtype.itemsize
        for size, given, stride in zip(shape, given_strides, strides, strict=True)
    ):
        theirs = "a blocked layout" if strides is None else (
            f"shape {tuple(shape)}, strides {tuple(s * dtype.itemsize for s in strides)} bytes"
        )
        raise ValueError(
            f"{what}: the Array's layout (shape {given_shape}, strides {given_strides} bytes) is not the "
            f"descriptor's ({theirs}); describe it with MemoryDesc.from_array(array)"
        )
    if not array_types:
        array_types.append(arrays.Array)
    return base


def has_buffer(data: object) -> bool:
    try:
        memoryview(cast(Any, data)).release()
    except TypeError:
        return False
    return True


def _dtype_of(data: object, fmt: str) -> str:
    dtype = getattr(data, "dtype", None)
    return str(dtype) if dtype is not None else f"format {fmt!r}"
