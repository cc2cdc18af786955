"""The size-query-then-fill protocol, in one place.

oneDNN returns variable-length byte strings (cache blobs and their ids) in two
calls: with a NULL buffer the function writes the size; with a buffer, ``*size``
must equal that size exactly. The payload is written straight into the
``bytes`` object that is returned, so it is never copied.
"""

from __future__ import annotations

from collections.abc import Callable

from ._ffi import ffi
from .errors import Status, make_error

# How many times a fill may find that the size moved before giving up.
MAX_ATTEMPTS = 4


def _new_bytes(size: int) -> bytes:
    # bytes(n) is a fresh, unshared object for n >= 2, so filling it in place
    # before anyone else sees it is safe; b"\\0" is a shared singleton.
    return bytes(size) if size > 1 else bytearray(size)


def query_then_fill(
    function: Callable[..., int], name: str, *args: object, attempts: int = MAX_ATTEMPTS
) -> bytes:
    """Call ``function(*args, size_t *size, uint8_t *buffer)`` by the protocol.

    A size of 0 returns ``b""`` without a fill call. If a fill is refused or
    reports another size, the size is queried again and the fill retried, at
    most ``attempts`` times; a refusal while the size holds still is raised.
    """
    size = ffi.new("size_t *")
    failure: Exception | None = None
    failed_size = -1
    for _ in range(attempts):
        size[0] = 0
        status = function(*args, size, ffi.NULL)
        if status:
            raise make_error(status, name)
        expected = size[0]
        if expected == 0:
            return b""
        if failure is not None and expected == failed_size:
            raise failure  # the size held still, so the refusal was real
        out = _new_bytes(expected)
        status = function(*args, size, ffi.from_buffer("uint8_t[]", out))
        if status == Status.SUCCESS and size[0] == expected:
            return out if type(out) is bytes else bytes(out)
        failed_size = expected
        failure = make_error(status, name) if status else RuntimeError(
            f"{name} filled {size[0]} bytes after announcing {expected}"
        )
    detail = f"the size changed on each of {attempts} attempts"
    if status:
        raise make_error(status, name, detail)
    raise RuntimeError(f"{name}: {detail}")
