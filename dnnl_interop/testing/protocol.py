"""A property checker for C functions that hand out bytes by size query and fill.

oneDNN returns byte strings (cache blobs and their ids) from functions
``f(..., size_t *size, uint8_t *buffer)``: with ``buffer`` NULL, ``f`` writes
the size to ``*size``; with a buffer, ``*size`` must be that size exactly, or
``f`` refuses (a non-zero status) and writes nothing. A library of your own
(or a fake of oneDNN) that speaks this protocol can be checked against
oneDNN's rules with :func:`check_size_query_protocol`; a violation is an
``AssertionError`` that names the rule, so it reads as a test failure.

The rules (:data:`RULES`):

``size query``
    A query (``buffer`` NULL) succeeds with the leading arguments given and
    writes ``*size``.
``exact size``
    A fill told the size succeeds, leaves ``*size`` at it, writes every one
    of those bytes and none after them; a fill told the size ±1..3 is
    refused and writes nothing.
``determinism``
    Two size queries agree, and two fills give the same bytes.
``zero size``
    A fill told 0 (with a buffer) is refused and writes nothing when the
    size is not 0; when the size is 0 it succeeds and writes nothing.
``size change``
    After the caller's ``change()`` (something that makes the next size
    differ, such as a fake's next payload), a fill told the old size is
    refused and writes nothing, the query reports the new size and a fill
    of it succeeds. A real function's size cannot be moved from outside: for
    it this rule is reported as not checked (its library side, refusing any
    size but the current one, is the exact-size rule, checked).

Buffers are larger than needed and filled with two different sentinel
values in turn, so that a write past the end, a refused fill that writes
anyway and a byte a fill leaves unwritten are all seen, without letting the
function write outside memory the checker owns.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import BuiltinFunctionType
from typing import Any

import _cffi_backend

__all__ = [
    "DETERMINISM",
    "EXACT_SIZE",
    "RULES",
    "SIZE_CHANGE",
    "SIZE_QUERY",
    "ZERO_SIZE",
    "ProtocolReport",
    "check_size_query_protocol",
]

SIZE_QUERY = "size query"
EXACT_SIZE = "exact size"
DETERMINISM = "determinism"
ZERO_SIZE = "zero size"
SIZE_CHANGE = "size change"
RULES = (SIZE_QUERY, EXACT_SIZE, DETERMINISM, ZERO_SIZE, SIZE_CHANGE)

# A private FFI of the compiled backend: unlike cffi.FFI it can read the type
# of an API-mode lib function of any module; size_t * and byte pointers are
# the same types in every FFI.
_ffi = _cffi_backend.FFI()
_SENTINELS = (0xA5, 0x5A)
_GUARD = 16  # bytes after the largest size a fill is told, which nothing may write
_BYTE_TYPES = frozenset({"uint8_t", "int8_t", "unsigned char", "signed char", "char", "void"})
_WRONG_BY = (-3, -2, -1, 1, 2, 3)


@dataclass(frozen=True)
class ProtocolReport:
    """What :func:`check_size_query_protocol` saw on a function that kept the rules."""

    function: str
    size: int  #: the size the query reported
    payload: bytes  #: the bytes a fill gave
    checked: tuple[str, ...]  #: the rules checked (all of them held)
    not_checked: tuple[str, ...]  #: the rules that could not be checked, with why
    changed_payload: bytes | None = None  #: the bytes after ``change()``, if given


class _Violations:
    def __init__(self, name: str):
        self.name = name
        self.found: list[str] = []

    def add(self, rule: str, message: str) -> None:
        self.found.append(f"[{rule}] {message}")

    def fail(self, rule: str, message: str) -> AssertionError:
        """The error to raise at once: nothing further can be checked."""
        self.add(rule, message)
        return self.error()

    def error(self) -> AssertionError:
        lines = "\n  ".join(self.found)
        return AssertionError(f"{self.name} breaks the size-query-then-fill protocol:\n  {lines}")

    def raise_if_any(self) -> None:
        if self.found:
            raise self.error()


def _signature(function: object) -> tuple[Any, int, int]:
    """The function's C type and the positions of its size and buffer arguments."""
    try:
        ctype = _ffi.typeof(function)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(
            f"function: expected a cffi C function (lib.f, a function pointer, an ffi.callback), "
            f"got {type(function).__name__}"
        ) from None
    if ctype.kind == "pointer" and ctype.item.kind == "function":
        ctype = ctype.item
    if ctype.kind != "function":
        raise TypeError(f"function: expected a cffi C function, got a {ctype.cname}")
    args = ctype.args
    shape = f"{ctype.cname} does not end in (size_t *size, uint8_t *buffer) or (uint8_t *buffer, size_t *size)"
    if ctype.ellipsis or len(args) < 2 or ctype.result.kind not in ("primitive", "enum"):
        raise TypeError(f"function: {shape}, returning a status")
    ends = [arg.item.cname if arg.kind == "pointer" else None for arg in args[-2:]]
    if ends[0] == "size_t" and ends[1] in _BYTE_TYPES:
        return ctype, len(args) - 2, len(args) - 1
    if ends[1] == "size_t" and ends[0] in _BYTE_TYPES:
        return ctype, len(args) - 1, len(args) - 2
    raise TypeError(f"function: {shape}")


class _Caller:
    """Calls the function with a size cell and a sentinel-filled buffer."""

    def __init__(self, function: Callable[..., int], leading: tuple[object, ...], ctype: Any,
                 size_at: int, buffer_at: int):
        self.function, self.leading, self.ctype = function, leading, ctype
        self.size_at, self.buffer_at = size_at, buffer_at
        self.size = _ffi.new("size_t *")
        self.buffer_type = ctype.args[buffer_at]
        self.unwritten = 2 ** (8 * _ffi.sizeof("size_t")) - 0x5A5A  # what *size holds before a query

    def _call(self, buffer: object) -> int:
        args: list[object] = [*self.leading, None, None]
        args[self.size_at], args[self.buffer_at] = self.size, buffer
        return int(self.function(*args))

    def query(self) -> tuple[int, int]:
        """(status, *size) of a size query."""
        self.size[0] = self.unwritten
        status = self._call(_ffi.NULL)
        return status, int(self.size[0])

    def fill(self, told: int, room: int, sentinel: int) -> tuple[int, int, bytearray]:
        """(status, *size after, the buffer of ``room`` + guard bytes) of a fill told ``told``."""
        buffer = bytearray([sentinel]) * (room + _GUARD)
        self.size[0] = told
        status = self._call(_ffi.cast(self.buffer_type, _ffi.from_buffer(buffer)))
        return status, int(self.size[0]), buffer


def _written(buffer: bytearray, sentinel: int, start: int = 0) -> list[int]:
    return [i for i in range(start, len(buffer)) if buffer[i] != sentinel]


def _offsets(offsets: list[int]) -> str:
    shown = ", ".join(str(i) for i in offsets[:8])
    return f"{shown}, ... ({len(offsets)} bytes)" if len(offsets) > 8 else shown


def check_size_query_protocol(
    function: Callable[..., int],
    *leading_args: object,
    name: str | None = None,
    change: Callable[[], object] | None = None,
    max_size: int = 1 << 30,
) -> ProtocolReport:
    """Check that ``function(*leading_args, size_t *size, uint8_t *buffer)``
    keeps oneDNN's size-query-then-fill rules (see the module docstring).

    ``function`` is a cffi C function: ``lib.f`` of an API-mode module (ours
    or yours), a function pointer, or an ``ffi.callback`` (a fake). The last
    two parameters are ``size_t *`` and a byte pointer, in either order; the
    result is a status, 0 for success. ``leading_args`` are passed as given
    (cffi values of the leading parameters' types); the function must accept
    them (a refused size query is an ``AssertionError``: nothing can be
    checked). ``change``, if given, is called once after the other rules
    are checked and must make the next size differ (the "size change" rule).
    A size above ``max_size`` is reported as a violation, not allocated.

    Every violation found is listed in one ``AssertionError``, each line
    starting with its rule in brackets (``[exact size] ...``). On success
    the :class:`ProtocolReport` says what was seen and checked.
    """
    ctype, size_at, buffer_at = _signature(function)
    if len(leading_args) != len(ctype.args) - 2:
        leading = ", ".join(arg.cname for arg in ctype.args[:-2]) or "none"
        raise TypeError(
            f"leading_args: the function takes {len(ctype.args) - 2} leading arguments ({leading}), "
            f"got {len(leading_args)}"
        )
    if change is not None and not callable(change):
        raise TypeError(f"change: expected a callable or None, got {type(change).__name__}")
    if name is None:
        name = function.__name__ if isinstance(function, BuiltinFunctionType) else f"the C function {ctype.cname}"
    label = name
    caller = _Caller(function, leading_args, ctype, size_at, buffer_at)
    violations = _Violations(label)
    n = _query(caller, violations, max_size, "the size query")
    payload = _check_exact_fills(caller, violations, n)
    status, again = caller.query()
    if status != 0 or again != n:
        violations.add(DETERMINISM, f"a second size query gave {again} bytes (status {status}); the first, {n}")
    _check_wrong_sizes(caller, violations, n)
    _check_zero_size(caller, violations, n)
    violations.raise_if_any()
    checked = [SIZE_QUERY, EXACT_SIZE, DETERMINISM, ZERO_SIZE]
    not_checked: list[str] = []
    changed_payload = None
    if change is None:
        not_checked.append(f"{SIZE_CHANGE}: no change= given (a real function's size cannot be moved from outside)")
    else:
        changed_payload = _check_size_change(caller, violations, n, change, max_size)
        violations.raise_if_any()
        checked.append(SIZE_CHANGE)
    return ProtocolReport(label, n, payload, tuple(checked), tuple(not_checked), changed_payload)


def _query(caller: _Caller, violations: _Violations, max_size: int, what: str) -> int:
    status, n = caller.query()
    if status != 0:
        raise violations.fail(
            SIZE_QUERY, f"{what} returned status {status}: nothing can be checked "
            "(are the leading arguments ones the function accepts?)"
        )
    if n == caller.unwritten:
        raise violations.fail(SIZE_QUERY, f"{what} returned success without writing *size")
    if n > max_size:
        raise violations.fail(SIZE_QUERY, f"{what} reported {n} bytes, more than max_size={max_size}")
    return n


def _check_exact_fills(caller: _Caller, violations: _Violations, n: int) -> bytes:
    """Fill with the exact size under both sentinels; the payload (as far as it is known)."""
    if n == 0:
        return b""  # a fill told 0 is the zero-size rule's
    results = []
    for sentinel in _SENTINELS:
        status, after, buffer = caller.fill(n, n, sentinel)
        if status != 0:
            raise violations.fail(EXACT_SIZE, f"a fill told the exact size {n} returned status {status}")
        if after != n:
            violations.add(EXACT_SIZE, f"a fill told {n} bytes changed *size to {after}")
        past = _written(buffer, sentinel, n)
        if past:
            violations.add(EXACT_SIZE, f"a fill told {n} bytes wrote past them, at offsets {_offsets(past)}")
        results.append(buffer[:n])
    first, second = results
    unwritten = [i for i in range(n) if first[i] == _SENTINELS[0] and second[i] == _SENTINELS[1]]
    if unwritten:
        violations.add(EXACT_SIZE, f"a fill told {n} bytes left offsets {_offsets(unwritten)} unwritten")
    skipped = set(unwritten)
    differ = [i for i in range(n) if first[i] != second[i] and i not in skipped]
    if differ:
        violations.add(DETERMINISM, f"two fills of {n} bytes differ at offsets {_offsets(differ)}")
    return bytes(first)


def _check_wrong_sizes(caller: _Caller, violations: _Violations, n: int) -> None:
    for told in (n + k for k in _WRONG_BY):
        if told <= 0:  # 0 is the zero-size rule's
            continue
        for sentinel in _SENTINELS:  # one report per size
            found = len(violations.found)
            status, _, buffer = caller.fill(told, n + 3, sentinel)
            written = _written(buffer, sentinel)
            wrong = ["returned success"] if status == 0 else []
            if written:
                wrong.append(f"wrote offsets {_offsets(written)}")
            if wrong:
                violations.add(EXACT_SIZE, f"a fill told {told} bytes (the size is {n}) {' and '.join(wrong)}")
            if len(violations.found) > found:
                break


def _check_zero_size(caller: _Caller, violations: _Violations, n: int) -> None:
    for sentinel in _SENTINELS:
        found = len(violations.found)
        status, after, buffer = caller.fill(0, max(n, 3), sentinel)
        written = _written(buffer, sentinel)
        if written:
            violations.add(ZERO_SIZE, f"a fill told 0 bytes (the size is {n}) wrote offsets {_offsets(written)}")
        if n and status == 0:
            violations.add(ZERO_SIZE, f"a fill told 0 bytes returned success, but the size is {n}")
        if not n and status != 0:
            violations.add(ZERO_SIZE, f"the size is 0, but a fill told 0 bytes returned status {status}")
        if not n and status == 0 and after != 0:
            violations.add(ZERO_SIZE, f"a fill told 0 bytes changed *size to {after}")
        if len(violations.found) > found:
            break


def _check_size_change(
    caller: _Caller, violations: _Violations, n: int, change: Callable[[], object], max_size: int
) -> bytes | None:
    change()
    stale_status, _, stale = caller.fill(n, n + 3, _SENTINELS[0])
    stale_written = _written(stale, _SENTINELS[0])
    new = _query(caller, violations, max_size, "the size query after change()")
    if new == n:
        raise violations.fail(
            SIZE_CHANGE, f"after change() the size query still reports {n} bytes (change() must change the size)"
        )
    if stale_status == 0:
        violations.add(SIZE_CHANGE, f"a fill told the old size {n} after change() returned success (the size is {new})")
    if stale_written:
        violations.add(
            SIZE_CHANGE, f"a fill told the old size {n} after change() wrote offsets {_offsets(stale_written)}"
        )
    status, after, buffer = caller.fill(new, new, _SENTINELS[1])
    if status != 0:
        violations.add(SIZE_CHANGE, f"a fill told the new size {new} after change() returned status {status}")
        return None
    past = _written(buffer, _SENTINELS[1], new)
    if after != new or past:
        violations.add(SIZE_CHANGE, f"a fill told the new size {new} changed *size to {after} or wrote past it")
    return bytes(buffer[:new])


def __dir__() -> list[str]:
    return sorted(__all__)
