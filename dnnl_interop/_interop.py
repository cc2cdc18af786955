"""What the interop modules (OpenCL, Level Zero, SYCL) share: calling oneDNN's
getters on an object of this binding, with the error explained when the
object is of another runtime."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ._engine import explain_runtime
from ._ffi import ffi
from ._handles import address_of
from ._library import check
from ._owned import using

if TYPE_CHECKING:
    from ._ffi import CData

# A getter of the C API: status = function(object handle, type *out).
Getter = Callable[["CData", "CData"], int]


def get_handle(function: Getter, name: str, owned: object, cls: type, what: str, ctype: str, runtime: str) -> CData:
    """Call a oneDNN getter ``function(handle, ctype *out)``; the ``ctype`` it wrote."""
    out = ffi.new(ctype + " *")
    with explain_runtime(runtime, (owned, what)), using((owned, cls, what)) as handle:
        check(function(handle, out), name)
    written: CData = out[0]
    return written


def get_address(function: Getter, name: str, owned: object, cls: type, what: str, ctype: str, runtime: str) -> int:
    """:func:`get_handle`, as the address it wrote."""
    return address_of(get_handle(function, name, owned, cls, what, ctype, runtime))
