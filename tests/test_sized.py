"""The size-query-then-fill protocol (``dnnl_interop._sized.query_then_fill``).

oneDNN hands out byte strings in two calls: ``f(..., size, NULL)`` writes the
size, then ``f(..., size, buffer)`` fills a buffer of exactly ``*size`` bytes.
The protocol runs in generated C (``dnnl_interop_sized_<f>``), one call per
byte string; Python copies the result out. It is driven here by C-level fakes
(``ffi.callback``) of the very types of oneDNN's functions, which the C helper
calls in place of oneDNN. A fake plays a C library whose payload may change
between any two calls and which may fail or misbehave on command; it records
every call, and the properties below are checked against that record. That
the fake, left alone, plays by oneDNN's rules is checked by
``dnnl_interop.testing.check_size_query_protocol``, as is real oneDNN.

The fake checks that the buffer it is given has room for ``*size`` bytes,
without trusting the C code under test: the buffer must lie inside an array
held by a ``dnnl_interop`` frame on the stack during the call (the record's
scratch), with room to spare, or be the heap block the record names, whose
usable size glibc reports. A buffer that cannot be identified, or one inside
a ``bytes`` object (immutable: cffi forbids writing into it), fails the test.
"""

from __future__ import annotations

import ctypes
import importlib.util
import random
import sys
import threading
from dataclasses import dataclass, field

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from conftest import ROOT
from dnnl_interop import _cdef, check
from dnnl_interop._ffi import ffi, lib
from dnnl_interop._sized import MAX_ATTEMPTS, query_then_fill
from dnnl_interop.errors import DnnlError, InvalidArgumentsError, Status, error_class
from dnnl_interop.testing import RULES, check_size_query_protocol
from dnnl_interop.testing import strategies as dst
from dnnl_interop.testing.protocol import EXACT_SIZE


def _load_build_ffi():
    spec = importlib.util.spec_from_file_location("build_ffi_sized", ROOT / "build_ffi.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


source = _load_build_ffi().source  # ffibuild/source.py, the generator of the C helpers

NAME = "fake_get_blob"  # not a real symbol: no missing-function lookup can match it
CALL_LIMIT = 100  # a fake answers at most this many calls (catches endless retries)
# Every oneDNN function of the shape f(..., size_t *size, uint8_t *buffer).
SIZED_FUNCTIONS = tuple(
    f.name for f in _cdef.read_headers(ROOT / "headers").functions if source.is_sized(f)
)
SCRATCH = lib.DNNL_INTEROP_SIZED_SCRATCH  # results up to this size need no malloc

statuses = dst.status_codes(unsigned=True)  # every failure, as a dnnl_status_t callback returns it
sizes = st.one_of(st.integers(0, 8), st.integers(0, 4096))

_malloc_usable_size = ctypes.CDLL(None).malloc_usable_size
_malloc_usable_size.argtypes = [ctypes.c_void_p]
_malloc_usable_size.restype = ctypes.c_size_t
_RECORD = ffi.typeof("dnnl_interop_sized_t *")


def address(cdata) -> int:
    return int(ffi.cast("uintptr_t", cdata))


def _span(obj) -> tuple[int, int] | None:
    """(address, length in bytes) of a buffer object's memory, else None."""
    if isinstance(obj, ffi.CData):
        if ffi.typeof(obj).kind != "array":
            return None
        return address(obj), ffi.sizeof(obj)
    if isinstance(obj, (bytes, bytearray, memoryview)):
        view = memoryview(obj)
        if not view.contiguous or not view.nbytes:
            return None
        return address(ffi.from_buffer(view)), view.nbytes
    return None


class ImmutableBuffer(Exception):
    """The buffer lies inside a bytes object, which must never be written."""


def capacity_of(buffer) -> int | None:
    """How many bytes may be written at ``buffer``, or None if unknown."""
    pointer = address(buffer)
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_globals.get("__name__", "").startswith("dnnl_interop"):
            for value in list(frame.f_locals.values()):
                span = _span(value)
                if span is not None and span[0] <= pointer < span[0] + span[1]:
                    if isinstance(value, bytes):
                        raise ImmutableBuffer(f"a fill into a bytes object of {len(value)}")
                    return span[0] + span[1] - pointer
                if (
                    isinstance(value, ffi.CData)
                    and ffi.typeof(value) is _RECORD
                    and value.large != ffi.NULL
                    and address(value.large) == pointer
                ):
                    return _malloc_usable_size(pointer)
        frame = frame.f_back
    return None


@dataclass(frozen=True)
class Step:
    """What the fake does on one call (calls past the script are normal)."""

    advance: bool = False  # switch to the next payload before answering
    fail: int = 0  # answer this status instead of working
    misreport: int | None = None  # fill: write this many bytes, report this size


@dataclass
class Call:
    kind: str  # "query" or "fill"
    status: int
    told: int | None = None  # *size on entry to a fill
    answered: int | None = None  # *size on return
    written: bytes | None = None  # payload of an honest, complete fill


@dataclass
class FakeLibrary:
    """A C function of the type of oneDNN's ``like``: ``dnnl_status_t f(..., size_t *, uint8_t *)``."""

    payloads: list[bytes]
    script: list[Step] = field(default_factory=list)
    like: str = SIZED_FUNCTIONS[0]
    calls: list[Call] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    version: int = 0

    def __post_init__(self):
        signature = ffi.typeof(ffi.addressof(lib, self.like))
        leading_types = signature.args[:-2]
        # Distinct, recognisable leading arguments: the helper must pass them on.
        self.args = tuple(ffi.cast(t, 0xD00D0 + 16 * i) for i, t in enumerate(leading_types))
        self.function = ffi.callback(signature, self._answer)

    @property
    def fills(self):
        return [c for c in self.calls if c.kind == "fill"]

    def _answer(self, *arguments):
        try:
            *leading, size, buffer = arguments
            if [address(a) for a in leading] != [address(a) for a in self.args]:
                self.violations.append(f"leading arguments {leading} lost")
            return self._work(size, buffer)
        except BaseException as exc:  # nothing may escape a C callback
            self.violations.append(f"fake raised {exc!r}")
            return Status.RUNTIME_ERROR

    def _work(self, size, buffer):
        if len(self.calls) >= CALL_LIMIT:
            self.violations.append("the helper kept calling")
            return Status.RUNTIME_ERROR
        step = self.script[len(self.calls)] if len(self.calls) < len(self.script) else Step()
        if step.advance:
            self.version = min(self.version + 1, len(self.payloads) - 1)
        payload = self.payloads[self.version]
        if size == ffi.NULL:
            self.violations.append("size pointer is NULL")
            return Status.INVALID_ARGUMENTS
        if buffer == ffi.NULL:  # the size query
            call = Call("query", step.fail)
            self.calls.append(call)
            if not step.fail:
                size[0] = call.answered = len(payload)
            return step.fail
        told = size[0]
        call = Call("fill", 0, told=told)
        self.calls.append(call)
        try:
            capacity = capacity_of(buffer)
        except ImmutableBuffer as exc:
            self.violations.append(str(exc))
            return Status.INVALID_ARGUMENTS
        if capacity is None or capacity < told:
            self.violations.append(f"told *size={told}, but the buffer holds {capacity}")
            return Status.INVALID_ARGUMENTS
        if told != len(payload):  # oneDNN's rule: exact size or nothing
            call.status = Status.INVALID_ARGUMENTS
        elif step.fail:
            call.status = step.fail
        elif step.misreport is not None and step.misreport != told:
            written = min(step.misreport, told)
            ffi.memmove(buffer, payload[:written], written)
            size[0] = call.answered = step.misreport
        else:
            ffi.memmove(buffer, payload, told)
            call.answered = told
            call.written = payload
        return call.status


def make_payloads(lengths, seed):
    rng = random.Random(seed)
    return [rng.randbytes(n) for n in lengths]


def run(fake):
    """Call the helper; return ("value", bytes) or ("error", exception)."""
    try:
        return "value", query_then_fill(fake.function, NAME, *fake.args)
    except Exception as exc:  # classified by the caller
        return "error", exc


def assert_is_fill_error(exc, fill: Call):
    """The exception for a fill the helper gave up on."""
    if fill.status:
        assert type(exc) is error_class(fill.status), (exc, fill)
        assert exc.status == fill.status and exc.function == NAME
    else:  # the fill claimed success but reported another size
        assert isinstance(exc, RuntimeError), exc
        assert NAME in str(exc)


def assert_protocol_kept(fake: FakeLibrary, outcome):
    """The properties every run must have, read from the fake's record."""
    kind, value = outcome
    calls = fake.calls
    assert not fake.violations, fake.violations
    assert calls and calls[0].kind == "query"
    assert len(fake.fills) <= MAX_ATTEMPTS
    assert sum(c.kind == "query" for c in calls) <= MAX_ATTEMPTS
    for i, call in enumerate(calls):
        before = calls[i - 1] if i else None
        last = i == len(calls) - 1
        if call.kind == "fill":  # only right after a successful, non-zero query
            assert before.kind == "query" and before.status == 0
            assert before.answered and call.told == before.answered
        if call.kind == "query" and (call.status or call.answered == 0):
            assert last, "the helper went on after a failed query or a size of 0"
        if call.written is not None:
            assert last, "the helper went on after a complete fill"
        if (
            call.kind == "query"
            and before is not None
            and before.written is None
            and call.status == 0
            and call.answered == before.told
        ):
            assert last, "the helper retried a refused fill although the size held still"
    final = calls[-1]
    if kind == "value":
        assert type(value) is bytes
        if final.kind == "query":
            assert final.status == 0 and final.answered == 0 and value == b""
        else:
            assert final.written is not None, "a result from a fill that did not complete"
            assert value == final.written  # the whole payload: not truncated or padded
        return
    exc = value
    if final.kind == "query" and final.status:
        assert type(exc) is error_class(final.status), exc
        assert exc.status == final.status and exc.function == NAME
    elif final.kind == "query":  # re-query after a refused fill: the size held still
        assert_is_fill_error(exc, calls[-2])
    else:  # refused fills until the attempts ran out
        assert final.written is None
        assert len(fake.fills) == MAX_ATTEMPTS, "gave up before MAX_ATTEMPTS"
        assert_is_fill_error(exc, final)


steps = st.builds(
    Step,
    advance=st.booleans(),
    fail=st.one_of(st.just(0), st.just(0), st.just(0), statuses),
    misreport=st.one_of(st.none(), st.none(), st.none(), sizes),
)


def test_every_function_of_the_shape_has_a_helper():
    """Each oneDNN function f(..., size_t *size, uint8_t *buffer) the headers
    declare gets its generated C helper, so a new one (say
    dnnl_primitive_get_cache_blob) needs nothing written by hand."""
    assert {"dnnl_ocl_interop_engine_get_cache_blob_id", "dnnl_ze_interop_engine_get_cache_blob"} <= set(
        SIZED_FUNCTIONS
    )
    for name in SIZED_FUNCTIONS:
        assert hasattr(lib, "dnnl_interop_sized_" + name), name


def test_generator_finds_the_shape_in_any_header_text():
    """A function added to the headers with the shape gets a helper; one
    with other last parameters does not."""
    decls = _cdef.parse(
        "dnnl_status_t DNNL_API dnnl_primitive_get_cache_blob("
        "const_dnnl_primitive_t primitive, size_t *size, uint8_t *cache_blob);\n"
        "dnnl_status_t DNNL_API dnnl_other(uint8_t *buffer, size_t *size);\n"
    )
    assert [source.is_sized(f) for f in decls.functions] == [True, False]
    assert "dnnl_interop_sized_dnnl_primitive_get_cache_blob(" in source.make_source(decls)


def test_max_attempts_allows_a_retry_and_is_bounded():
    """The helper retries at least once after a moved size, and not forever."""
    assert isinstance(MAX_ATTEMPTS, int) and 2 <= MAX_ATTEMPTS <= 16


functions = st.sampled_from(SIZED_FUNCTIONS)


@given(
    lengths=st.lists(sizes, min_size=1, max_size=6),
    seed=st.integers(0, 2**32),
    script=st.lists(steps, max_size=2 * MAX_ATTEMPTS + 2),
    like=functions,
)
@example(lengths=[0], seed=0, script=[], like=SIZED_FUNCTIONS[0])
@example(lengths=[1], seed=1, script=[], like=SIZED_FUNCTIONS[-1])
@example(lengths=[4096], seed=2, script=[], like=SIZED_FUNCTIONS[0])
@example(lengths=[SCRATCH, SCRATCH + 1], seed=3, script=[Step(), Step(advance=True)], like=SIZED_FUNCTIONS[0])
@example(lengths=[SCRATCH + 1, SCRATCH], seed=4, script=[Step(), Step(advance=True)], like=SIZED_FUNCTIONS[1])
@example(lengths=[5, 6], seed=3, script=[Step(), Step(advance=True)], like=SIZED_FUNCTIONS[0])
def test_protocol_holds_in_any_scenario(lengths, seed, script, like):
    """Whatever the C side does, the helper passes buffers with room for
    ``*size`` bytes, returns exactly the payload written, and raises the
    right error."""
    fake = FakeLibrary(make_payloads(lengths, seed), script, like=like)
    assert_protocol_kept(fake, run(fake))


@given(length=st.integers(1, 4096), seed=st.integers(0, 2**32), like=functions)
@example(length=SCRATCH, seed=0, like=SIZED_FUNCTIONS[0])
@example(length=SCRATCH + 1, seed=0, like=SIZED_FUNCTIONS[0])
def test_stable_payload_is_returned_whole_as_bytes(length, seed, like):
    """A well-behaved function: one query, one fill, the payload as bytes
    (whether it fits the record's scratch or needs a heap block)."""
    fake = FakeLibrary(make_payloads([length], seed), like=like)
    kind, value = run(fake)
    assert (kind, type(value)) == ("value", bytes)
    assert value == fake.payloads[0]
    assert [c.kind for c in fake.calls] == ["query", "fill"]
    assert not fake.violations


def test_size_zero_returns_empty_bytes_without_a_fill():
    """A size of 0 gives b"" and no fill call."""
    fake = FakeLibrary([b""])
    assert run(fake) == ("value", b"")
    assert [c.kind for c in fake.calls] == ["query"]


@pytest.mark.parametrize("status", [1, 2, 3, 5, 10, 11, 2**31, 2**32 - 1])
def test_query_failure_raises_its_error(status):
    """A failed size query raises error_class(status), with no fill."""
    fake = FakeLibrary([b"abc"], [Step(fail=status)])
    kind, exc = run(fake)
    assert kind == "error" and type(exc) is error_class(status)
    assert isinstance(exc, DnnlError) and exc.status == status and exc.function == NAME
    assert [c.kind for c in fake.calls] == ["query"]


@pytest.mark.parametrize("status", [1, 2, 3, 5, 10, 11, 2**32 - 1])
def test_fill_failure_with_stable_size_raises_its_error(status):
    """A refused fill, with the size unchanged on re-query, raises its error."""
    fake = FakeLibrary([b"abcdef"], [Step(), Step(fail=status)])
    kind, exc = run(fake)
    assert kind == "error" and type(exc) is error_class(status)
    assert exc.status == status and exc.function == NAME
    assert [c.kind for c in fake.calls] == ["query", "fill", "query"]


def test_transient_size_change_succeeds():
    """The payload grows between query and fill once: the retry gets it."""
    fake = FakeLibrary([b"short", b"much longer"], [Step(), Step(advance=True)])
    assert run(fake) == ("value", b"much longer")
    assert [c.kind for c in fake.calls] == ["query", "fill", "query", "fill"]


def test_persistent_size_change_gives_up_after_max_attempts():
    """A size that moves before every fill ends in an error after exactly
    MAX_ATTEMPTS fills, never an endless loop."""
    payloads = [bytes([i]) * (i + 1) for i in range(4 * MAX_ATTEMPTS)]
    fake = FakeLibrary(payloads, [Step(advance=True)] * CALL_LIMIT)
    kind, exc = run(fake)
    assert kind == "error"
    assert isinstance(exc, InvalidArgumentsError) and exc.function == NAME
    assert len(fake.fills) == MAX_ATTEMPTS
    assert len(fake.calls) == 2 * MAX_ATTEMPTS
    assert not fake.violations


def test_fill_reporting_another_size_is_not_returned():
    """A fill that claims success but writes fewer bytes and reports that
    size is never passed off as the payload (persistently: an error)."""
    fake = FakeLibrary([b"0123456789"], [Step(), Step(misreport=4)] * MAX_ATTEMPTS)
    kind, exc = run(fake)
    assert kind == "error" and isinstance(exc, RuntimeError)
    assert_protocol_kept(fake, (kind, exc))


@pytest.mark.parametrize("length", [1, 2, 3])
def test_filling_never_corrupts_shared_bytes_objects(length):
    """Results are fresh objects: filling in place leaves interned and
    earlier results alone."""
    first = FakeLibrary([b"\xff" * length])
    second = FakeLibrary([b"\x7f" * length])
    result_a = run(first)[1]
    result_b = run(second)[1]
    assert result_a == b"\xff" * length and result_b == b"\x7f" * length
    assert bytes(length) == b"\0" * length
    assert b"\x00"[0] == 0 and bytes([0]) == b"\0"


# --- the fake and the real library keep oneDNN's rules ---------------------------


@given(first=dst.blob_ids() | st.binary(max_size=600), second=dst.engine_cache_blobs(), like=functions)
@example(first=b"", second=b"x", like=SIZED_FUNCTIONS[0])
def test_the_fake_plays_by_onednns_rules(first, second, like):
    """Left alone, the fake is a faithful oneDNN: it passes the protocol
    checker, a moved payload (the next one) included."""
    fake = FakeLibrary([first, second if len(second) != len(first) else second + b"!"], like=like)
    report = check_size_query_protocol(fake.function, *fake.args, change=lambda: setattr(fake, "version", 1))
    assert (report.payload, report.changed_payload, report.checked) == (first, fake.payloads[1], RULES)
    assert not fake.violations


def test_a_fake_scripted_to_misreport_fails_the_checker():
    """A scripted misbehaviour is one the checker sees (so the scenarios
    above really do play a broken library)."""
    fake = FakeLibrary([b"0123456789"], [Step(), Step(misreport=4)])
    with pytest.raises(AssertionError, match=rf"\[{EXACT_SIZE}\] a fill told 10 bytes changed \*size to 4"):
        check_size_query_protocol(fake.function, *fake.args)


BLOB_ID = "dnnl_ocl_interop_engine_get_cache_blob_id"


def test_real_fill_needs_the_exact_size(real_dnnl, cl_device):
    """Real oneDNN keeps the rules the helper relies on (the checker: a fill
    of n±1..3 bytes copies nothing, n bytes gives the id), and refuses a
    wrong size with INVALID_ARGUMENTS, a DnnlError and a ValueError."""
    import dnnl_interop

    device = ffi.cast("cl_device_id", cl_device.int_ptr)
    report = check_size_query_protocol(lib.dnnl_ocl_interop_engine_get_cache_blob_id, device)
    assert report.payload == dnnl_interop.ocl.get_engine_cache_blob_id(cl_device)
    n = report.size
    size = ffi.new("size_t *")
    for wrong in [n + k for k in (-3, -2, -1, 1, 2, 3)]:
        buffer = bytearray(n + 3)
        size[0] = wrong
        status = lib.dnnl_ocl_interop_engine_get_cache_blob_id(device, size, ffi.from_buffer("uint8_t[]", buffer))
        with pytest.raises(InvalidArgumentsError) as info:
            check(status, BLOB_ID)
        assert isinstance(info.value, DnnlError) and isinstance(info.value, ValueError)
        assert info.value.status == Status.INVALID_ARGUMENTS


# --- what the C helper owns -----------------------------------------------------


def test_a_size_nobody_can_allocate_raises_memory_error_without_a_fill():
    """A size malloc refuses is a MemoryError naming the function; no fill."""
    huge = FakeLibrary([b"x"])
    huge.function = ffi.callback(
        ffi.typeof(ffi.addressof(lib, huge.like)), lambda *a: _huge_size(huge, *a)
    )
    with pytest.raises(MemoryError, match=NAME):
        query_then_fill(huge.function, NAME, *huge.args)
    assert [c.kind for c in huge.calls] == ["query"]


def _huge_size(fake, *arguments):
    *_, size, buffer = arguments
    fake.calls.append(Call("query" if buffer == ffi.NULL else "fill", 0))
    size[0] = 2**62
    return 0


def test_a_function_pointer_of_another_type_is_refused():
    """The helper is chosen by the function's C type: a pointer no oneDNN
    function has the type of raises TypeError, and nothing is called."""
    called = []
    other = ffi.callback("dnnl_status_t(size_t *, uint8_t *)", lambda *a: called.append(a) or 0)
    with pytest.raises(TypeError, match="size query and fill"):
        query_then_fill(other, NAME)
    with pytest.raises(TypeError, match="size query and fill"):
        query_then_fill(lib.dnnl_engine_get_count, "dnnl_engine_get_count", 0)
    assert called == []


def test_threads_get_their_own_results():
    """Calls from several threads at once (the C call runs without the GIL)
    each get their own payload, whole, small or large."""
    lengths = [3, 137, SCRATCH, SCRATCH + 1, 4000, 1, 64, 2048]
    fakes = [FakeLibrary(make_payloads([n], seed)) for seed, n in enumerate(lengths)]
    barrier = threading.Barrier(len(fakes))
    wrong: list[str] = []

    def work(fake):
        barrier.wait()
        for _ in range(40):
            fake.calls.clear()
            result = query_then_fill(fake.function, NAME, *fake.args)
            if result != fake.payloads[0]:
                wrong.append(f"{len(fake.payloads[0])} bytes: got {len(result)}")

    threads = [threading.Thread(target=work, args=(fake,)) for fake in fakes]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not any(thread.is_alive() for thread in threads)
    assert wrong == []
    assert all(not fake.violations for fake in fakes)


@pytest.mark.parametrize("inner_length", [5, SCRATCH + 7])
def test_a_call_made_during_a_call_does_not_disturb_it(inner_length):
    """Python code running in the middle of a call on the same thread (a
    signal handler, a finalizer; here the fake itself) may call the protocol
    again: each call keeps its own record, and both results are whole."""
    inner = FakeLibrary(make_payloads([inner_length], 1))
    outer = FakeLibrary(make_payloads([SCRATCH + 50], 2))
    inner_results = []
    answer = outer._answer

    def nested(*arguments):
        inner.calls.clear()
        inner_results.append(query_then_fill(inner.function, NAME, *inner.args))
        return answer(*arguments)

    outer.function = ffi.callback(ffi.typeof(ffi.addressof(lib, outer.like)), nested)
    assert query_then_fill(outer.function, NAME, *outer.args) == outer.payloads[0]
    assert inner_results == [inner.payloads[0]] * 2  # once in the query, once in the fill
    assert not outer.violations and not inner.violations
