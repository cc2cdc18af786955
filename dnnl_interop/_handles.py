"""Turning what users hold into typed C handles.

Every function that takes a foreign handle (an OpenCL device, a Level Zero
driver, ...) accepts the same things: a cffi pointer, an int address, or an
object exposing one through ``int_ptr`` (pyopencl's convention) or
``__index__``. None means NULL.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, TypeVar

from ._ffi import ffi

if TYPE_CHECKING:
    from ._ffi import CData, CType

    _H = TypeVar("_H", bound="Handle")

_POINTER_KINDS = ("pointer", "array")
_VOID_POINTER = ffi.typeof("void *")
_CData = ffi.CData
_cast = ffi.cast
_MAX_ADDRESS = 2 ** (8 * ffi.sizeof("void *")) - 1


def as_handle(obj: object, ctype: CType | str, what: str) -> CData:
    """``obj`` as a cdata of pointer type ``ctype``; ``what`` names it in errors.

    ``ctype`` is a cffi type or its name. Resolve names once with
    ``ffi.typeof`` on hot paths: a string costs a lookup per call. An object
    that holds another kind of handle (a ``pyopencl.Context`` given as a
    device, a ``dnnl_interop.Engine`` given as a buffer, a cffi pointer of
    another handle type) raises TypeError: OpenCL runtimes may crash on it.
    """
    if isinstance(obj, _CData):  # first: a failed attribute lookup on cdata is slow
        kind = ffi.typeof(obj)
        if (ctype, kind) not in _accepted:
            _check_kind(ctype, kind, what)
        return _cast(ctype, obj)
    try:
        address = obj.int_ptr  # type: ignore[attr-defined]  # pyopencl objects; others raise AttributeError
    except AttributeError:
        return _from_int(obj, ctype, what)
    except Exception:  # a closed object of this binding, a released pyopencl object, ...
        _check_class(ctype, type(obj), what)  # an object of another kind says so first
        raise
    try:
        return _casts[ctype, type(obj)][address]
    except (KeyError, TypeError):  # TypeError: an int_ptr that is no int, refused below
        pass
    # Outside the except clause: an error raised here chains no KeyError.
    return _cast_and_keep(ctype, obj, address, what)


# A cast is a pure function of (type, address) and costs more than a dict
# lookup, so the handles of long-lived objects (devices, contexts) are kept,
# per target type and class of the object they came from.
_casts: dict[tuple[CType | str, type], dict[int, CData]] = {}
_CASTS_PER_KEY = 256
# (target type, class or cdata type) pairs found to hold the right handles.
_accepted: set[tuple[CType | str, CType]] = set()

# The pyopencl classes whose objects hold each kind of OpenCL handle.
_PYOPENCL_CLASSES = {
    "cl_platform_id": ("Platform",),
    "cl_device_id": ("Device",),
    "cl_context": ("Context",),
    "cl_command_queue": ("CommandQueue",),
    "cl_mem": ("MemoryObjectHolder",),
    "cl_event": ("Event",),
    "void *": ("MemoryObjectHolder", "SVMPointer"),  # memory: a cl_mem or a USM pointer
}
# cffi resolves typedefs (cl_device_id is "struct _cl_device_id *"): key by type.
_ALLOWED = {ffi.typeof(name): classes for name, classes in _PYOPENCL_CLASSES.items()}
_NAMES = {ffi.typeof(name): name for name in _PYOPENCL_CLASSES}
_NAMES[ffi.typeof("void *")] = "memory handle (a cl_mem or a USM pointer)"


def _ctype(ctype: CType | str) -> CType:
    return ffi.typeof(ctype) if isinstance(ctype, str) else ctype


def _type_name(ctype: CType | str) -> str:
    """The name users know a handle type by (cl_device_id, not struct _cl_device_id *)."""
    resolved = _ctype(ctype)
    return _NAMES.get(resolved) or str(resolved.cname)


def _cast_and_keep(ctype: CType | str, obj: object, address: object, what: str) -> CData:
    key = (ctype, type(obj))
    if key not in _casts:
        _check_class(ctype, type(obj), what)
        _casts[key] = {}
    if isinstance(address, bool) or not isinstance(address, int):
        raise TypeError(
            f"{what}: the {type_name(obj)}'s int_ptr is a {type_name(address)}, not an int address; "
            f"give the {_type_name(ctype)} as an int or a cffi pointer"
        )
    by_address = _casts[key]
    if len(by_address) >= _CASTS_PER_KEY:
        by_address.clear()
    pointer = by_address[address] = _cast(ctype, address)
    return pointer


def _check_class(ctype: CType | str, cls: type, what: str) -> None:
    """Refuse objects of a class that holds another kind of handle."""
    name = _type_name(ctype)
    if any(base.__module__.startswith("pyopencl") for base in cls.__mro__):
        expected = _ALLOWED.get(_ctype(ctype), ())  # a Level Zero handle: none
        if not any(base.__name__ in expected for base in cls.__mro__):
            given = f"a pyopencl.{cls.__name__}"
            if expected:
                name += f" (a pyopencl.{' or pyopencl.'.join(expected)})"
                given += next((f", which holds a {held}" for held, classes in _PYOPENCL_CLASSES.items()
                               if held != "void *" and any(base.__name__ in classes for base in cls.__mro__)), "")
            raise TypeError(f"{what}: expected a {name}, got {given}")
    elif issubclass(cls, Handle):  # holds the handles of its own _ctype
        held, target = _ctype(cls._ctype), _ctype(ctype)
        if held is target or held is _VOID_POINTER:
            return
        if target is _VOID_POINTER:
            raise TypeError(f"{what}: expected a {name}, got a {_type_name(held)} handle")
        raise TypeError(f"{what}: expected a {name}, got a {cls.__name__}")
    elif cls.__module__.startswith("dnnl_interop"):
        raise TypeError(f"{what}: expected a {name}, got a dnnl_interop.{cls.__name__}")


def _check_kind(ctype: CType | str, kind: CType, what: str) -> None:
    """Refuse cffi pointers of another handle type (void * passes)."""
    if kind.kind not in _POINTER_KINDS:
        raise TypeError(f"{what}: expected a pointer, got {kind.cname}")
    target = _ctype(ctype)
    if kind is not target and kind is not _VOID_POINTER:
        is_handle = kind.kind == "pointer" and kind.item.kind == "struct"  # opaque handle types
        if target is not _VOID_POINTER or is_handle:
            raise TypeError(f"{what}: expected a {_type_name(target)}, got a {_type_name(kind)}")
    _accepted.add((ctype, kind))


def check_address(value: object, what: str) -> int:
    """``value`` as an address: an int (or ``__index__``) from 0 to the largest pointer."""
    if isinstance(value, (bool, float)):
        raise TypeError(f"{what}: expected an int address, got {type(value).__name__}")
    try:
        address = operator.index(value)  # type: ignore[arg-type]  # anything else raises TypeError
    except TypeError:
        raise TypeError(f"{what}: expected an int address, got {type(value).__name__}") from None
    if not 0 <= address <= _MAX_ADDRESS:
        raise ValueError(f"{what}: {address:#x} is not a valid address")
    return address


def _from_int(obj: object, ctype: CType | str, what: str) -> CData:
    if obj is None:
        return ffi.NULL
    # __index__, not __int__: Fraction, Decimal and float convert to int by
    # truncation, which makes a number of anything. A numpy array of one
    # element has __index__: a sized object is never taken for a handle.
    if isinstance(obj, (bool, float)) or not hasattr(obj, "__index__") or hasattr(type(obj), "__len__"):
        raise TypeError(
            f"{what}: expected a {_type_name(ctype)} as a cffi pointer, an int, "
            f"or an object with int_ptr; got {_describe(obj)}"
        )
    return ffi.cast(ctype, check_address(obj, what))


def required_handle(obj: object, ctype: CType, what: str) -> CData:
    """``obj`` as a ``ctype`` handle that oneDNN needs: None and NULL are refused.

    A cffi pointer that another cffi module declared with the same C type
    (cffi types of two FFI instances are different objects) is taken as ours.
    """
    name = handle_name(ctype)
    if obj is None:
        raise TypeError(f"{what}: None given; a {name} is required")
    if isinstance(obj, _CData):
        kind = ffi.typeof(obj)
        if kind is not ctype and kind.kind == "pointer" and kind.cname == ctype.cname:
            obj = _cast(ctype, obj)
    handle = as_handle(obj, ctype, what)
    if handle == ffi.NULL:
        raise ValueError(f"{what}: a NULL {name} given; a {name} is required")
    return handle


# oneDNN's own handle types, named in messages; a foreign one is a "handle".
_DNNL_HANDLES = {
    ffi.typeof(name): name
    for name in ("dnnl_engine_t", "dnnl_stream_t", "dnnl_memory_t", "dnnl_primitive_t", "dnnl_primitive_desc_t")
}


def handle_name(ctype: CType) -> str:
    return _DNNL_HANDLES.get(ctype, "handle")


def type_name(obj: object) -> str:
    """How messages name the type of ``obj``: ``str``, ``numpy.ndarray``, ``pyopencl.Buffer``."""
    cls = type(obj)
    module = cls.__module__.split(".")[0]
    return cls.__name__ if module == "builtins" else f"{module}.{cls.__name__}"


def _describe(obj: object) -> str:
    return f"a {type_name(obj)}"


def as_bytes(data: object, what: str) -> CData:
    """A ``uint8_t[]`` over a bytes-like ``data`` (no copy)."""
    try:
        view: CData = ffi.from_buffer("uint8_t[]", data)  # type: ignore[call-overload]  # not a buffer: TypeError
        return view
    except TypeError:
        raise TypeError(f"{what}: expected bytes or another buffer, got {type(data).__name__}") from None


def address_of(cdata: CData) -> int:
    """The address a cffi pointer holds, as an int (0 for NULL)."""
    return int(ffi.cast("uintptr_t", cdata))


class Handle:
    """A foreign handle as an immutable value: an address and a C type.

    Returned where oneDNN hands back a handle it does not own (a Level Zero
    driver, command list, ...). The value carries no lifetime: it neither
    keeps the native object alive nor frees it. It is accepted wherever a
    handle is (it has ``__index__`` and ``int_ptr``), compares and hashes by
    kind and address, and ``.ptr`` is the typed cffi pointer. Subclasses set
    ``_ctype``, the C type they hold: :func:`as_handle` refuses them for any
    other handle type, and names that type after them in its messages.
    """

    __slots__ = ("_address",)
    _address: int
    _ctype = "void *"
    _family = ""  # how messages name this family of handles ("Level Zero")

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if "_ctype" in vars(cls):
            _NAMES[ffi.typeof(cls._ctype)] = f"{cls._family} {cls.__name__}".strip()

    def __init__(self, handle: object = None) -> None:
        address = address_of(as_handle(handle, self._ctype, type(self).__name__))
        object.__setattr__(self, "_address", address)

    @property
    def ptr(self) -> CData:
        """The handle as a typed cffi pointer (``ze_driver_handle_t``, ...)."""
        return ffi.cast(self._ctype, self._address)

    @property
    def int_ptr(self) -> int:
        """The address as an int (pyopencl's convention)."""
        return self._address

    def __int__(self) -> int:
        return self._address

    def __index__(self) -> int:
        return self._address

    def __bool__(self) -> bool:
        return self._address != 0

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Handle):
            return NotImplemented
        return type(self) is type(other) and self._address == other._address

    def __hash__(self) -> int:
        return hash((self._ctype, self._address))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __reduce__(self) -> tuple[type[Handle], tuple[int]]:
        return type(self), (self._address,)

    def __repr__(self) -> str:
        return f"{type(self).__module__}.{type(self).__name__}({self._address:#x})"


def handle_value(kind: type[_H], cdata: CData) -> _H | None:
    """The ``kind`` value of a handle C wrote, or None for NULL."""
    address = address_of(cdata)
    return kind(address) if address else None


def c_type_of(kind: type[Handle]) -> str:
    """The C type the handles of ``kind`` hold (``ze_driver_handle_t``, ...)."""
    return kind._ctype  # noqa: SLF001 - the package's door to a kind's C type
