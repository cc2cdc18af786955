"""The size-query-then-fill protocol, in one place.

oneDNN returns variable-length byte strings (cache blobs and their ids) in two
calls: with a NULL buffer the function writes the size; with a buffer, ``*size``
must equal that size exactly. The payload is written straight into the
``bytes`` object that is returned, so it is never copied.
"""

from __future__ import annotations

from _thread import _local
from collections.abc import Callable

from ._ffi import ffi
from .errors import make_error

# How many times a fill may find that the size moved before giving up.
MAX_ATTEMPTS = 4

_SIZE_POINTER = ffi.typeof("size_t *")
_BYTE_ARRAY = ffi.typeof("uint8_t[]")
# Looked up once: this is a hot path.
_new, _from_buffer, _NULL = ffi.new, ffi.from_buffer, ffi.NULL
# One size cell per thread, reused: allocating it costs as much as a C call.
_per_thread = _local()


def query_then_fill(
    function: Callable[..., int], name: str, *args: object, attempts: int = MAX_ATTEMPTS
) -> bytes:
    """Call ``function(*args, size_t *size, uint8_t *buffer)`` by the protocol.

    A size of 0 returns ``b""`` without a fill call. If a fill is refused or
    reports another size, the size is queried again and the fill retried, at
    most ``attempts`` times; a refusal while the size holds still is raised.
    """
    try:
        size = _per_thread.size
    except AttributeError:
        size = _per_thread.size = _new(_SIZE_POINTER)
    # Not zeroed first: oneDNN writes *size on every successful query, and
    # whatever the cell holds, a fill is only ever given exactly that many bytes.
    # Calls take ready-made tuples: f(*args, size, x) would build a list and
    # then a tuple on every call, which costs as much as a third of a C call.
    status = function(*(args + (size, _NULL)))
    if status:
        raise make_error(status, name)
    expected = size[0]
    if expected > 1:  # the usual case, straight through
        # cffi passes a bytes argument to a uint8_t * parameter as a pointer
        # to its own storage, and bytes(n) is a fresh, unshared object: filled
        # before anyone else sees it, it is the result, with no copy at all.
        out = bytes(expected)
        status = function(*(args + (size, out)))
        if not status and size[0] == expected:
            return out
    elif not expected:
        return b""
    else:
        status, out = _fill_one_byte(function, args, size)
        if not status and size[0] == 1:
            return out
    return _retry(function, name, args, size, attempts - 1, expected, status)


def _fill_one_byte(function, args, size):
    # CPython shares single-byte bytes objects: never write to one.
    scratch = bytearray(1)
    status = function(*args, size, _from_buffer(_BYTE_ARRAY, scratch))
    return status, bytes(scratch)


def _retry(function, name: str, args, size, attempts: int, failed_size: int, status: int) -> bytes:
    """The protocol after a fill that was refused or reported another size."""
    for _ in range(attempts):
        failure = make_error(status, name) if status else RuntimeError(
            f"{name} reported {size[0]} bytes after a fill of {failed_size}"
        )
        size[0] = 0
        status = function(*args, size, _NULL)
        if status:
            raise make_error(status, name)
        expected = size[0]
        if not expected:
            return b""
        if expected == failed_size:
            raise failure  # the size held still, so the refusal was real
        if expected > 1:
            out = bytes(expected)
            status = function(*args, size, out)
        else:
            status, out = _fill_one_byte(function, args, size)
        if not status and size[0] == expected:
            return out
        failed_size = expected
    detail = f"the size changed on each of {attempts + 1} attempts"
    if status:
        raise make_error(status, name, detail)
    raise RuntimeError(f"{name}: {detail}")
