"""dnnl_interop.testing for downstream test suites: the protocol checker and the strategies.

``check_size_query_protocol`` must pass on real oneDNN's functions and fail,
naming the rule, on fakes that break each rule; the strategies must produce
what they promise. Fakes are ``ffi.callback`` functions of oneDNN's own C
types (or of a plain ``cffi.FFI``, as a downstream module would have).
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Any

import cffi
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import dnnl_interop
from dnnl_interop import cache
from dnnl_interop._engine_blob import check_engine_cache_blob
from dnnl_interop._ffi import ffi, lib
from dnnl_interop.errors import Status
from dnnl_interop.testing import RULES, check_size_query_protocol, emulated_gpu, emulated_level_zero
from dnnl_interop.testing import strategies as dst
from dnnl_interop.testing.protocol import DETERMINISM, EXACT_SIZE, SIZE_CHANGE, SIZE_QUERY, ZERO_SIZE

BLOB_ID = "dnnl_ocl_interop_engine_get_cache_blob_id"
KNOWN_CODES = frozenset(int(s) for s in Status)


# --- a fake library function that breaks one rule on command ----------------------


@dataclass
class Fake:
    """``dnnl_status_t f(cl_device_id, size_t *size, uint8_t *buffer)`` over
    ``payloads`` (``change()`` moves to the next), honest unless ``breaks``
    names one of :data:`BREAKS`."""

    payloads: list[bytes]
    breaks: str | None = None
    version: int = 0
    queries: int = 0
    fills: int = 0
    errors: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.function = ffi.callback(ffi.typeof(ffi.addressof(lib, BLOB_ID)), self._answer)
        self.device = ffi.cast("cl_device_id", 0xD0D0)

    def change(self) -> None:
        self.version += 1

    def _answer(self, device: Any, size: Any, buffer: Any) -> int:
        try:
            return self._work(size, buffer)
        except BaseException as exc:  # nothing may escape a C callback
            self.errors.append(repr(exc))
            return int(Status.RUNTIME_ERROR)

    def _work(self, size: Any, buffer: Any) -> int:
        payload, broken = self.payloads[min(self.version, len(self.payloads) - 1)], self.breaks
        if buffer == ffi.NULL:
            self.queries += 1
            if broken == "query refused":
                return int(Status.RUNTIME_ERROR)
            if broken == "query leaves the size unwritten":
                return 0
            n = len(payload)
            if broken == "size grows on every query":
                n += self.queries - 1
            if broken == "query reports the old size after a change":
                n = len(self.payloads[0])
            size[0] = n
            return 0
        self.fills += 1
        told = size[0]
        if broken == "payload differs on every fill":
            payload = bytes((byte + self.fills) % 256 for byte in payload)
        if told != len(payload):
            stale = self.version and told == len(self.payloads[0])
            if broken in ("any size accepted", "refused fill writes") or (
                broken == "old size accepted after a change" and stale
            ):
                ffi.memmove(buffer, payload, min(told, len(payload)))
                return int(Status.INVALID_ARGUMENTS) if broken == "refused fill writes" else 0
            if told == 0 and broken == "zero fill accepted":
                return 0
            if told == 0 and broken == "zero fill writes":
                buffer[0] = 1
            return int(Status.INVALID_ARGUMENTS)
        if told == 0 and broken == "empty payload refuses a zero fill":
            return int(Status.INVALID_ARGUMENTS)
        written = {"fill overruns": payload + b"\x01", "fill leaves the last byte": payload[:-1]}.get(
            broken or "", payload
        )
        ffi.memmove(buffer, written, len(written))
        if broken == "fill changes the size":
            size[0] = told + 1
        return 0


# Each way to break the protocol, and the rule the checker must name.
BREAKS = {
    "query refused": SIZE_QUERY,
    "query leaves the size unwritten": SIZE_QUERY,
    "any size accepted": EXACT_SIZE,
    "refused fill writes": EXACT_SIZE,
    "fill overruns": EXACT_SIZE,
    "fill leaves the last byte": EXACT_SIZE,
    "fill changes the size": EXACT_SIZE,
    "payload differs on every fill": DETERMINISM,
    "size grows on every query": DETERMINISM,
    "zero fill accepted": ZERO_SIZE,
    "zero fill writes": ZERO_SIZE,
    "empty payload refuses a zero fill": ZERO_SIZE,
    "old size accepted after a change": SIZE_CHANGE,
    "query reports the old size after a change": SIZE_CHANGE,
}
payloads = st.one_of(st.binary(min_size=1, max_size=300), dst.blob_ids(), dst.engine_cache_blobs())


def rules_named(error: AssertionError) -> set[str]:
    return set(re.findall(r"^  \[([a-z ]+)\]", str(error), re.M))


def test_every_rule_is_broken_by_some_fake():
    assert set(BREAKS.values()) == set(RULES)


@given(first=payloads, second=payloads)
@example(first=b"", second=b"x")
@example(first=b"x" * 5, second=b"")
def test_the_checker_passes_an_honest_function_whatever_its_payloads(first, second):
    """No false alarms: a function that keeps the rules passes, sizes 0 included,
    and the report gives what it saw and that every rule was checked."""
    fake = Fake([first, second if len(second) != len(first) else second + b"!"])
    report = check_size_query_protocol(fake.function, fake.device, change=fake.change)
    assert (report.size, report.payload, report.changed_payload) == (len(first), first, fake.payloads[1])
    assert report.checked == RULES and report.not_checked == ()
    assert fake.errors == []


@pytest.mark.parametrize("broken", sorted(BREAKS))
@given(payload=payloads, other=payloads)
def test_the_checker_fails_a_fake_that_breaks_a_rule_naming_that_rule(broken, payload, other):
    """Each broken behaviour is an AssertionError whose message names the rule
    in brackets and the function."""
    if broken == "empty payload refuses a zero fill":
        payload = b""
    other = other if len(other) != len(payload) else other + b"!"
    fake = Fake([payload, other], broken)
    with pytest.raises(AssertionError) as info:
        check_size_query_protocol(fake.function, fake.device, name="fake_get_blob", change=fake.change)
    assert BREAKS[broken] in rules_named(info.value), str(info.value)
    assert str(info.value).startswith("fake_get_blob breaks the size-query-then-fill protocol:")
    assert fake.errors == []


def test_without_change_the_size_change_rule_is_reported_not_checked():
    fake = Fake([b"abc", b"abcdef"], "old size accepted after a change")
    report = check_size_query_protocol(fake.function, fake.device)
    assert SIZE_CHANGE not in report.checked
    assert [line.split(":")[0] for line in report.not_checked] == [SIZE_CHANGE]


def test_a_change_that_keeps_the_size_fails_the_size_change_rule():
    fake = Fake([b"abc", b"xyz"])
    with pytest.raises(AssertionError, match=r"\[size change\] after change\(\) the size query still reports 3"):
        check_size_query_protocol(fake.function, fake.device, change=fake.change)


def test_violations_are_all_listed_with_their_offsets():
    fake = Fake([b"0123456789"], "any size accepted")
    with pytest.raises(AssertionError) as info:
        check_size_query_protocol(fake.function, fake.device)
    message = str(info.value)
    for told in (7, 8, 9, 11, 12, 13):
        assert f"a fill told {told} bytes (the size is 10) returned success" in message
    assert "a fill told 7 bytes (the size is 10) returned success and wrote offsets 0, 1, 2, 3, 4, 5, 6" in message
    assert rules_named(info.value) == {EXACT_SIZE, ZERO_SIZE}


def test_a_size_above_max_size_is_a_violation_not_an_allocation():
    fake = Fake([b"x" * 100])
    expected = r"\[size query\] the size query reported 100 bytes, more than max_size=99"
    with pytest.raises(AssertionError, match=expected):
        check_size_query_protocol(fake.function, fake.device, max_size=99)
    assert fake.fills == 0


# --- any cffi function, either argument order --------------------------------------


def plain_ffi_function(signature: str, payload: bytes, *, exact: bool = True) -> tuple[cffi.FFI, Any]:
    """A downstream module's function over ``payload``, made with a plain cffi.FFI."""
    plain = cffi.FFI()

    def answer(*args: Any) -> int:
        size, buffer = (args[-2], args[-1]) if plain.typeof(args[-2]).cname == "size_t *" else (args[-1], args[-2])
        if buffer == plain.NULL:
            size[0] = len(payload)
            return 0
        if exact and size[0] != len(payload):
            return -1
        plain.memmove(buffer, payload, min(size[0], len(payload)))
        return 0

    return plain, plain.callback(signature, answer)


@pytest.mark.parametrize(
    "signature",
    ["int(size_t *, uint8_t *)", "int(void *, uint8_t *, size_t *)", "long(int, unsigned char *, size_t *)",
     "int(size_t *, void *)"],
)
def test_the_checker_takes_either_order_and_any_byte_pointer(signature):
    plain, function = plain_ffi_function(signature, b"downstream bytes")
    leading = [plain.cast(t, 7) for t in plain.typeof(function).args[:-2]]
    assert check_size_query_protocol(function, *leading).payload == b"downstream bytes"
    _, sloppy = plain_ffi_function(signature, b"downstream bytes", exact=False)
    with pytest.raises(AssertionError, match=r"\[exact size\]"):
        check_size_query_protocol(sloppy, *leading)


@pytest.mark.parametrize(
    ("function", "leading", "error"),
    [
        (len, (), r"^function: expected a cffi C function .*got builtin_function_or_method"),
        (lambda size, buffer: 0, (), r"^function: expected a cffi C function .*got function"),
        (ffi.new("size_t *"), (), r"^function: expected a cffi C function, got a size_t \*"),
        (lib.dnnl_engine_get_count, (0,), r"^function: .* does not end in \(size_t \*size, uint8_t \*buffer\)"),
        (lib.dnnl_ocl_interop_engine_get_cache_blob_id, (), r"^leading_args: the function takes 1 leading"),
        (ffi.callback("void(size_t *, uint8_t *)", lambda *a: None), (), r"^function: .*returning a status"),
    ],
    ids=["builtin", "python function", "not a function", "no size and buffer", "leading args", "void result"],
)
def test_what_is_not_a_size_query_function_is_a_type_error_naming_the_argument(function, leading, error):
    with pytest.raises(TypeError, match=error):
        check_size_query_protocol(function, *leading)


def test_change_must_be_callable():
    fake = Fake([b"abc"])
    with pytest.raises(TypeError, match=r"^change: expected a callable"):
        check_size_query_protocol(fake.function, fake.device, change=3)  # type: ignore[arg-type]
    assert fake.queries == 0


# --- real oneDNN ----------------------------------------------------------------------


def test_the_checker_passes_real_onednn_blob_id_function(real_dnnl, cl_device):
    """oneDNN's own dnnl_ocl_interop_engine_get_cache_blob_id keeps every rule
    that can be checked from outside; its size cannot be moved, so the
    size-change rule is reported as not checked."""
    device = ffi.cast("cl_device_id", cl_device.int_ptr)
    report = check_size_query_protocol(lib.dnnl_ocl_interop_engine_get_cache_blob_id, device)
    assert report.function == BLOB_ID
    assert report.checked == (SIZE_QUERY, EXACT_SIZE, DETERMINISM, ZERO_SIZE)
    assert report.not_checked[0].startswith(SIZE_CHANGE)
    assert report.payload == dnnl_interop.ocl.get_engine_cache_blob_id(cl_device)
    assert report.size == len(report.payload) > 3


def real_cache_blob_functions_on_the_emulated_gpu() -> list[tuple[str, int, bool, bytes]]:
    from dnnl_interop import ocl

    gpu = emulated_gpu.enable()
    engine = ocl.make_engine(gpu.device, gpu.context)
    device = ffi.cast("cl_device_id", gpu.device.int_ptr)
    blob = check_size_query_protocol(lib.dnnl_ocl_interop_engine_get_cache_blob, engine.handle)
    blob_id = check_size_query_protocol(lib.dnnl_ocl_interop_engine_get_cache_blob_id, device)
    return [
        (blob.function, blob.size, blob.payload == ocl.get_engine_cache_blob(engine), blob.payload),
        (blob_id.function, blob_id.size, blob_id.payload == ocl.get_engine_cache_blob_id(gpu.device), blob_id.payload),
    ]


def real_cache_blob_functions_on_emulated_level_zero() -> list[tuple[str, int, bool, bytes]]:
    from dnnl_interop import ze

    lz = emulated_level_zero.enable()
    engine = ze.make_engine(lz.driver, lz.device, lz.context)
    driver, device = ffi.cast("ze_driver_handle_t", int(lz.driver)), ffi.cast("ze_device_handle_t", int(lz.device))
    blob = check_size_query_protocol(lib.dnnl_ze_interop_engine_get_cache_blob, engine.handle)
    blob_id = check_size_query_protocol(lib.dnnl_ze_interop_engine_get_cache_blob_id, driver, device)
    return [
        (blob.function, blob.size, blob.payload == ze.get_engine_cache_blob(engine), blob.payload),
        (blob_id.function, blob_id.size, blob_id.payload == ze.get_engine_cache_blob_id(lz.driver, lz.device),
         blob_id.payload),
    ]


@pytest.mark.parametrize(
    ("runner", "check", "runtime"),
    [(emulated_gpu.run_in_child, real_cache_blob_functions_on_the_emulated_gpu, "ocl"),
     (emulated_level_zero.run_in_child, real_cache_blob_functions_on_emulated_level_zero, "ze")],
    ids=["opencl", "level-zero"],
)
def test_the_checker_passes_real_onednn_cache_blob_functions_on_emulated_gpus(real_dnnl, runner, check, runtime):
    """On real oneDNN, emulated GPU (a child process each): the engine cache
    blob and blob id functions of both runtimes keep the rules, the bytes the
    checker saw are the binding's, and they have the layouts the strategies
    draw (engine_cache_blobs, blob_ids of that runtime)."""
    from test_blob_id import parse_blob_id

    (blob_name, _, blob_same, blob), (id_name, _, id_same, blob_id) = runner(check, timeout=120)
    assert (blob_name, id_name) == (
        f"dnnl_{runtime}_interop_engine_get_cache_blob", f"dnnl_{runtime}_interop_engine_get_cache_blob_id"
    )
    assert blob_same and id_same
    check_engine_cache_blob(blob, (3, 13))
    assert parse_blob_id(blob_id, runtime).hash == dnnl_interop.version().hash


# --- the strategies ---------------------------------------------------------------------


@given(code=dst.status_codes())
def test_status_codes_are_status_members_or_unknown_codes_never_success(code):
    assert code != 0
    if code in KNOWN_CODES:
        assert type(code) is Status
    else:
        assert type(code) is int and (-(2**31) <= code < 2**31 or 2**31 <= code < 2**32)


@given(code=dst.status_codes(known=False, unsigned=True))
def test_unsigned_unknown_codes_are_what_cffi_reads_from_a_dnnl_status_t(code):
    assert code not in KNOWN_CODES and 0 <= code < 2**32
    returning = ffi.callback("dnnl_status_t(void)", lambda: code)
    assert returning() == code


@given(code=dst.status_codes(known=False, unsigned=False))
def test_signed_unknown_codes_are_int32_values_c_might_return(code):
    assert code not in KNOWN_CODES and -(2**31) <= code < 2**31


@given(code=dst.status_codes(unknown=False, success=True))
def test_known_codes_may_include_success(code):
    assert type(code) is Status


def test_status_codes_need_known_or_unknown():
    with pytest.raises(ValueError, match="known and unknown cannot both be False"):
        dst.status_codes(known=False, unknown=False)


@given(args=dst.memory_desc_args())
def test_memory_desc_args_make_the_descriptor_they_describe(real_dnnl, args):
    """Either layout: a tag, or strides that come back as given."""
    desc = args.make()
    assert args.valid and (args.tag is None) != (args.strides is None)
    assert desc.shape == tuple(args.shape)
    assert desc.tag == args.tag
    if args.strides is not None:
        assert desc.strides == tuple(args.strides)
    assert desc.data_type == dnnl_interop.MemoryDesc((1,), args.dtype, "a").data_type
    assert desc.size >= 0


@pytest.mark.parametrize("layout", ["tag", "strides"])
@given(data=st.data())
def test_memory_desc_args_keep_to_the_layout_asked_for(real_dnnl, layout, data):
    args = data.draw(dst.memory_desc_args(layout=layout, max_dims=3))
    assert (args.tag if layout == "tag" else args.strides) is not None
    invalid = data.draw(dst.memory_desc_args(layout=layout, invalid=True))
    with pytest.raises(invalid.error, match=rf"^{re.escape(invalid.argument)}: "):
        invalid.make()


@given(args=dst.memory_desc_args(invalid=True))
def test_invalid_memory_desc_args_are_refused_naming_the_argument(real_dnnl, args):
    assert not args.valid and args.error in (TypeError, ValueError)
    with pytest.raises(args.error, match=rf"^{re.escape(args.argument)}: "):
        args.make()


@given(desc=dst.memory_descs(max_dims=2, max_side=4))
def test_memory_descs_are_descriptors(real_dnnl, desc):
    assert isinstance(desc, dnnl_interop.MemoryDesc) and 1 <= desc.ndim <= 2


@given(blob=dst.engine_cache_blobs())
def test_engine_cache_blobs_have_oneDNN_3_13_layout(blob):
    """The binding's own walk of the 3.13 layout (which guards oneDNN) accepts each."""
    check_engine_cache_blob(blob, (3, 13))


@given(blob=dst.damaged_engine_cache_blobs())
def test_damaged_engine_cache_blobs_are_refused_before_onednn(blob):
    with pytest.raises(ValueError, match=r"^cache_blob: not an engine cache blob"):
        check_engine_cache_blob(blob, (3, 13))


@given(damaged=dst.damaged_cache_files(max_blob_size=1000))
def test_damaged_cache_files_are_never_a_sound_entry(damaged):
    """No damaged file is the entry a store writes for its runtime and key,
    whatever blob; each kind is one of DAMAGE_KINDS."""
    assert damaged.kind in dst.DAMAGE_KINDS
    assert damaged.content != dst.cache_entry(damaged.runtime, damaged.key, damaged.blob)
    blob_size = len(damaged.content) - cache.HEADER_SIZE - len(damaged.key)
    if 1 <= blob_size <= 1000:
        tail = damaged.content[len(damaged.content) - blob_size:]
        assert damaged.content != dst.cache_entry(damaged.runtime, damaged.key, tail)


@pytest.mark.parametrize("kind", dst.DAMAGE_KINDS)
@given(data=st.data())
def test_each_damage_kind_can_be_asked_for(kind, data):
    damaged = data.draw(dst.damaged_cache_files(runtime="ze", key=b"k", blob=b"blob", kinds=[kind]))
    assert (damaged.kind, damaged.runtime, damaged.key, damaged.blob) == (kind, "ze", b"k", b"blob")


def test_strategy_arguments_are_checked():
    with pytest.raises(ValueError, match=r"^kinds:"):
        dst.damaged_cache_files(kinds=["burnt"])
    with pytest.raises(ValueError, match=r"^runtime:"):
        dst.damaged_cache_files(runtime="cuda")
    with pytest.raises(ValueError, match=r"^runtime:"):
        dst.blob_ids("cuda")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^max_dims:"):
        dst.memory_desc_args(max_dims=13)
    with pytest.raises(ValueError, match=r"^layout:"):
        dst.memory_desc_args(layout="blocked")  # type: ignore[arg-type]


# --- hypothesis stays optional ---------------------------------------------------------

_WITHOUT_HYPOTHESIS = """
import sys
sys.modules["hypothesis"] = None  # as if it were not installed
import dnnl_interop.testing
from dnnl_interop.testing import check_size_query_protocol, emulated_gpu, emulated_level_zero
print("imported", callable(check_size_query_protocol), callable(emulated_gpu.enable),
      callable(emulated_level_zero.enable))
try:
    from dnnl_interop.testing import strategies
except ImportError as exc:
    print("strategies:", type(exc).__name__, exc.name)
"""


def test_the_testing_package_works_without_hypothesis_except_strategies():
    done = subprocess.run([sys.executable, "-c", _WITHOUT_HYPOTHESIS], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["imported True True True", "strategies: ModuleNotFoundError hypothesis"]

