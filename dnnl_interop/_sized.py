"""The size-query-then-fill protocol: byte strings out of oneDNN.

oneDNN returns variable-length byte strings (cache blobs and their ids) from
functions ``f(..., size_t *size, uint8_t *buffer)`` in two calls: with a NULL
buffer ``f`` writes the size; with a buffer, ``*size`` must equal that size
exactly. The C (``dnnl_interop_sized_<f>``, see ``csrc/sized.c``) runs
the whole protocol in one call, retries included, and leaves the result in a
record: in its scratch array when small, in a malloc'd block otherwise. Here
the result is copied into a new ``bytes`` object, and a failure becomes the
exception it stands for. Python never writes into an object it returns.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ._ffi import ffi, lib
from ._library import status_error

if TYPE_CHECKING:
    from ._ffi import CData, CType

    # oneDNN's function (a lib attribute) or a C function pointer of its type.
    SizedFunction = Callable[..., int] | CData
    _Helper = Callable[..., int]

# How many fills the protocol makes before giving up on a size that moves.
MAX_ATTEMPTS = lib.DNNL_INTEROP_SIZED_ATTEMPTS

_HELPER_PREFIX = "dnnl_interop_sized_"
_NULL = ffi.NULL
_unpack: Callable[[CData, int], bytes] = ffi.unpack  # type: ignore[assignment]  # of a char *: bytes

# oneDNN's function (the lib attribute) -> (C helper, (NULL,)): NULL tells the
# helper to call oneDNN's own function.
_helpers: dict[SizedFunction, tuple[_Helper, tuple[CData, ...]]] = {}
# Records not in use, as (record, its scratch, (record,)). A record serves one
# call at a time (the GIL is released during the C call, and a signal handler
# may call in between), so each call takes one and gives it back once the
# result is copied out. The helper's arguments are joined from ready-made
# tuples: helper(x, *args, y) would build a list, then a tuple, every call.
_free_records: list[tuple[CData, CData, tuple[CData]]] = []


def _new_record() -> tuple[CData, CData, tuple[CData]]:
    record = ffi.new("dnnl_interop_sized_t *")
    return record, record[0].scratch, (record,)  # the scratch is a view: record stays alive


def query_then_fill(function: SizedFunction, name: str, *args: object) -> bytes:
    """Call ``function(*args, size_t *size, uint8_t *buffer)`` by the protocol.

    ``function`` is oneDNN's ``lib.<name>``, or a C function pointer of the
    same type as one of them (tests drive the C code with such fakes).
    A size of 0 returns ``b""`` without a fill. If a fill is refused or
    reports another size, the size is queried again and the fill retried, at
    most ``MAX_ATTEMPTS`` fills in all; a refusal while the size holds still
    is raised with its status (``MissingFunctionError`` for a function the
    library lacks).
    """
    pair = _helpers.get(function)
    helper, head = pair if pair is not None else _helper_for(function, name)
    try:
        entry = _free_records.pop()
    except IndexError:
        entry = _new_record()
    record, scratch, tail = entry
    size: int = helper(*(head + args + tail))
    if size >= 0:  # the usual case: the result is in the scratch
        result = _unpack(scratch, size)
        _free_records.append(entry)
        return result
    try:
        return _large_or_failed(record, size, name)
    finally:
        _free_records.append(entry)


def _large_or_failed(pointer: CData, size: int, name: str) -> bytes:
    record: Any = pointer[0]  # the dnnl_interop_sized_t (cffi types no struct fields)
    if size == lib.DNNL_INTEROP_SIZED_LARGE:
        try:
            return _unpack(record.large, record.size)
        finally:
            lib.dnnl_interop_sized_release(pointer)
    outcome, status = record.outcome, record.status
    if outcome == lib.DNNL_INTEROP_SIZED_QUERY_REFUSED:
        raise status_error(status, name)
    if outcome == lib.DNNL_INTEROP_SIZED_NO_MEMORY:
        raise MemoryError(f"{name}: cannot allocate {record.size} bytes for the result")
    if outcome == lib.DNNL_INTEROP_SIZED_FILL_REFUSED:  # the size held still
        if status:
            raise status_error(status, name)
        raise RuntimeError(
            f"{name} reported {record.reported_size} bytes after a fill of {record.failed_size}"
        )
    detail = f"the size changed on each of {MAX_ATTEMPTS} attempts"
    if status:
        raise status_error(status, name, detail)
    raise RuntimeError(f"{name}: {detail}")


def _helper_for(function: SizedFunction, name: str) -> tuple[_Helper, tuple[CData, ...]]:
    """The C helper for ``function`` and the function pointer to pass it."""
    if isinstance(function, ffi.CData):
        helper = _helpers_by_type().get(ffi.typeof(function))
        if helper is None:
            raise TypeError(
                f"{name}: {ffi.typeof(function).cname} is not the type of a oneDNN "
                "function that returns bytes by size query and fill"
            )
        return helper, (function,)  # not kept: fakes come and go
    helper = getattr(lib, _HELPER_PREFIX + name, None)
    if helper is None or getattr(lib, name, None) is not function:
        raise TypeError(f"{name} is not a oneDNN function that returns bytes by size query and fill")
    pair: tuple[_Helper, tuple[CData, ...]] = (helper, (_NULL,))
    _helpers[function] = pair
    return pair


_by_type: dict[CType, _Helper] | None = None


def _helpers_by_type() -> dict[CType, _Helper]:
    """{function pointer type: a C helper taking that type} over all helpers."""
    global _by_type
    if _by_type is None:  # built whole, then published: other threads see all or nothing
        names = [a[len(_HELPER_PREFIX):] for a in dir(lib) if a.startswith(_HELPER_PREFIX)]
        _by_type = {
            ffi.typeof(ffi.addressof(lib, name)): getattr(lib, _HELPER_PREFIX + name)
            for name in names
            if hasattr(lib, name)  # not dnnl_interop_sized_release
        }
    return _by_type
