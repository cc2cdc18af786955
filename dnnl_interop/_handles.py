"""Turning what users hold into typed C handles.

Every function that takes a foreign handle (an OpenCL device, a Level Zero
driver, ...) accepts the same things: a cffi pointer, an int address, or an
object exposing one through ``int_ptr`` (pyopencl's convention) or
``__int__``. None means NULL.
"""

from __future__ import annotations


from ._ffi import ffi

_POINTER_KINDS = ("pointer", "array")
_MAX_ADDRESS = 2 ** (8 * ffi.sizeof("void *")) - 1


def as_handle(obj: object, ctype: str, what: str):
    """``obj`` as a cdata of pointer type ``ctype``; ``what`` names it in errors."""
    if obj is None:
        return ffi.NULL
    if isinstance(obj, ffi.CData):
        if ffi.typeof(obj).kind not in _POINTER_KINDS:
            raise TypeError(f"{what}: expected a pointer, got {ffi.typeof(obj).cname}")
        return ffi.cast(ctype, obj)
    address = getattr(obj, "int_ptr", None)
    if address is None:
        if isinstance(obj, (bool, float)) or not hasattr(obj, "__int__"):
            raise TypeError(
                f"{what}: expected a {ctype} as a cffi pointer, an int, "
                f"or an object with int_ptr; got {type(obj).__name__}"
            )
        address = int(obj)
    if not 0 <= address <= _MAX_ADDRESS:
        raise ValueError(f"{what}: {address:#x} is not a valid address")
    return ffi.cast(ctype, address)


def address_of(cdata) -> int:
    """The address a cffi pointer holds, as an int (0 for NULL)."""
    return int(ffi.cast("uintptr_t", cdata))
