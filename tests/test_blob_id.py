"""Engine cache blob ids from real oneDNN on real OpenCL devices.

``ocl.get_engine_cache_blob_id(device)`` needs no engine, so it is the one
interop function that does real work here (no Intel GPU). Its bytes have a
layout oneDNN does not document but that is measured here
(oneDNN's src/xpu/ocl/capi/engine.cpp writes it), native-endian, no padding::

    [size_t len][platform name\\0] [size_t len][device name\\0]
    [size_t len][driver version\\0] int major, minor, patch [size_t len][hash]

(the ``len`` of the three strings counts their NUL; the hash has none). The
Level Zero id (``ze.get_engine_cache_blob_id``) has no platform, and its
device name no NUL. ``dnnl_interop.testing.strategies.blob_ids`` draws ids of
both layouts; the parser here reads them and the real ones alike.
"""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from typing import NamedTuple

import pytest
from hypothesis import given
from hypothesis import strategies as st

import dnnl_interop
from dnnl_interop._ffi import ffi
from dnnl_interop._target import TARGET_ONEDNN
from dnnl_interop.testing import strategies as dst

OCL_FUNCTION = "dnnl_ocl_interop_engine_get_cache_blob_id"
ZE_FUNCTION = "dnnl_ze_interop_engine_get_cache_blob_id"
SIZE_T = struct.Struct("@N")
INT3 = struct.Struct("@3i")


class BlobId(NamedTuple):
    platform: str
    device: str
    driver_version: str
    version: tuple[int, int, int]
    hash: str


def parse_blob_id(blob: bytes, runtime: str = "ocl") -> BlobId:
    """Parse a blob id strictly: every byte accounted for (``platform`` is
    empty for a Level Zero id)."""
    pos = 0

    def field(nul_terminated: bool) -> str:
        nonlocal pos
        (length,) = SIZE_T.unpack_from(blob, pos)
        pos += SIZE_T.size
        data = blob[pos : pos + length]
        assert len(data) == length, "length runs past the end"
        pos += length
        if nul_terminated:
            assert data.endswith(b"\0") and b"\0" not in data[:-1], data
            data = data[:-1]
        else:
            assert b"\0" not in data, data
        return data.decode()

    platform = field(True) if runtime == "ocl" else ""
    device = field(runtime == "ocl")
    driver = field(True)
    version = INT3.unpack_from(blob, pos)
    pos += INT3.size
    hash_ = field(False)
    assert pos == len(blob), f"{len(blob) - pos} bytes left over"
    return BlobId(platform, device, driver, version, hash_)


def test_parser_reads_a_constructed_blob_id():
    """The layout parser reads fields back and rejects leftovers."""
    parts = [b"plat\0", b"dev\0", b"1.2\0"]
    blob = b"".join(SIZE_T.pack(len(p)) + p for p in parts)
    blob += INT3.pack(3, 13, 2) + SIZE_T.pack(3) + b"abc"
    assert parse_blob_id(blob) == BlobId("plat", "dev", "1.2", (3, 13, 2), "abc")
    with pytest.raises(AssertionError):
        parse_blob_id(blob + b"x")


def encode_blob_id(parsed: BlobId, runtime: str) -> bytes:
    def field(text: str, nul: bool) -> bytes:
        data = text.encode() + (b"\0" if nul else b"")
        return SIZE_T.pack(len(data)) + data

    head = field(parsed.platform, True) if runtime == "ocl" else b""
    head += field(parsed.device, runtime == "ocl") + field(parsed.driver_version, True)
    return head + INT3.pack(*parsed.version) + field(parsed.hash, False)


@given(runtime=st.sampled_from(["ocl", "ze"]), data=st.data())
def test_parser_reads_every_blob_id_the_toolkit_draws(runtime, data):
    """Ids from the public strategy have exactly the layout above: the strict
    parser accounts for every byte, and writing the fields back gives the id."""
    blob = data.draw(dst.blob_ids(runtime))
    parsed = parse_blob_id(blob, runtime)
    assert encode_blob_id(parsed, runtime) == blob
    assert parsed.hash == "" or len(parsed.hash) == 40


@given(blob=dst.blob_ids("ocl"), cut=st.integers(1, 200))
def test_parser_refuses_a_truncated_blob_id(blob, cut):
    with pytest.raises((AssertionError, struct.error)):
        parse_blob_id(blob[: max(0, len(blob) - cut)])


# --- real oneDNN, real devices -------------------------------------------------


def test_blob_id_is_non_empty_bytes_and_stable(real_dnnl, cl_device):
    """The id is non-empty bytes, the same on every call."""
    first = dnnl_interop.ocl.get_engine_cache_blob_id(cl_device)
    assert type(first) is bytes and first
    for _ in range(3):
        assert dnnl_interop.ocl.get_engine_cache_blob_id(cl_device) == first


def test_blob_id_accepts_device_int_and_pointer(real_dnnl, cl_device):
    """A pyopencl.Device, its int cl_device_id and a cffi pointer are the same device."""
    from_device = dnnl_interop.ocl.get_engine_cache_blob_id(cl_device)
    from_int = dnnl_interop.ocl.get_engine_cache_blob_id(cl_device.int_ptr)
    from_pointer = dnnl_interop.ocl.get_engine_cache_blob_id(
        ffi.cast("cl_device_id", cl_device.int_ptr)
    )
    assert from_device == from_int == from_pointer


def test_blob_id_names_device_driver_and_onednn(real_dnnl, cl_device):
    """The id holds the platform, device and driver names pyopencl reports,
    the loaded oneDNN's version (the targeted one) and its git hash."""
    blob = dnnl_interop.ocl.get_engine_cache_blob_id(cl_device)
    parsed = parse_blob_id(blob)
    assert parsed.platform == cl_device.platform.name
    assert parsed.device == cl_device.name
    assert parsed.driver_version == cl_device.driver_version
    version = dnnl_interop.version()
    assert parsed.version == (version.major, version.minor, version.patch)
    assert ".".join(map(str, parsed.version)) == TARGET_ONEDNN
    assert parsed.hash == version.hash and len(parsed.hash) == 40


def test_blob_ids_tell_the_two_platforms_apart(real_dnnl, pocl_device, intel_cpu_device):
    """Different OpenCL devices get different ids."""
    assert dnnl_interop.ocl.get_engine_cache_blob_id(
        pocl_device
    ) != dnnl_interop.ocl.get_engine_cache_blob_id(intel_cpu_device)


_CHILD_BLOB_IDS = """
import pyopencl as cl
import dnnl_interop
for platform in cl.get_platforms():
    for device in platform.get_devices():
        blob = dnnl_interop.ocl.get_engine_cache_blob_id(device)
        print(repr((platform.name, device.name, blob.hex())))
"""


def run_child(code: str, library: str | None = None) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter that finds the wheel's oneDNN itself
    (or, with ``library``, is told to use that file)."""
    env = dict(os.environ)
    env.pop("DNNL_INTEROP_LIBRARY", None)
    env.pop("LD_LIBRARY_PATH", None)
    if library is not None:
        env["DNNL_INTEROP_LIBRARY"] = library
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )


@pytest.fixture(scope="module")
def blob_ids_of_another_process():
    done = run_child(_CHILD_BLOB_IDS)
    assert done.returncode == 0, done.stderr
    ids = {}
    for line in done.stdout.splitlines():
        platform, device, blob = eval(line)  # our own repr output
        ids[(platform, device)] = bytes.fromhex(blob)
    return ids


def test_blob_id_is_the_same_in_a_fresh_process(real_dnnl, cl_device, blob_ids_of_another_process):
    """The id is deterministic: another process computes the same bytes."""
    key = (cl_device.platform.name, cl_device.name)
    assert key in blob_ids_of_another_process
    assert blob_ids_of_another_process[key] == dnnl_interop.ocl.get_engine_cache_blob_id(cl_device)


# --- error paths ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("device", "error", "message"),
    [
        (None, TypeError, "None given"),
        (0, ValueError, "a NULL handle"),
        (ffi.NULL, ValueError, "a NULL handle"),
        (ffi.cast("cl_device_id", 0), ValueError, "a NULL handle"),
    ],
    ids=["None", "zero", "ffi.NULL", "NULL cl_device_id"],
)
def test_a_null_device_is_refused_before_c(real_dnnl, device, error, message):
    """oneDNN would pass NULL to OpenCL (CL_INVALID_DEVICE): refused here, naming it."""
    with pytest.raises(error, match=f"^device: {message}"):
        dnnl_interop.ocl.get_engine_cache_blob_id(device)


def test_level_zero_blob_id_of_null_handles_is_refused_before_c(real_dnnl):
    with pytest.raises(TypeError, match=r"^driver: None given"):
        dnnl_interop.ze.get_engine_cache_blob_id(None, None)


_CHILD_FAKE_ZE_HANDLES = """
import dnnl_interop
try:
    dnnl_interop.ze.get_engine_cache_blob_id(0x1000, 0x2000)
except dnnl_interop.DnnlError as exc:
    print(type(exc).__name__, exc.status.name, exc.function)
else:
    print("no error")
"""


def test_level_zero_blob_id_of_bogus_handles_does_not_crash():
    """Non-NULL bogus handles go to the (absent) Level Zero loader, not to
    memory: a RUNTIME_ERROR, never a crash. Run in a child process, since a
    machine with a Level Zero loader would dereference them."""
    done = run_child(_CHILD_FAKE_ZE_HANDLES)
    assert done.returncode == 0, f"child died ({done.returncode}): {done.stderr}"
    assert done.stdout.split() == ["DnnlRuntimeError", "RUNTIME_ERROR", ZE_FUNCTION]


BAD_HANDLES = {
    "str": "0x1000",
    "float": 4096.0,
    "bool": True,
    "int cdata": ffi.cast("int", 4096),
    "struct cdata": ffi.new("dnnl_version_t *")[0],
    "object": object(),
}


@pytest.mark.parametrize("bad", list(BAD_HANDLES.values()), ids=list(BAD_HANDLES))
def test_wrong_handle_types_raise_type_error(real_dnnl, bad):
    """Neither an OpenCL device nor a Level Zero handle: TypeError."""
    with pytest.raises(TypeError):
        dnnl_interop.ocl.get_engine_cache_blob_id(bad)
    with pytest.raises(TypeError):
        dnnl_interop.ze.get_engine_cache_blob_id(bad, None)
    with pytest.raises(TypeError):
        dnnl_interop.ze.get_engine_cache_blob_id(None, bad)


@pytest.mark.parametrize("bad", [-1, 2 ** (8 * ffi.sizeof("void *"))], ids=["negative", "too big"])
def test_int_outside_the_address_space_is_a_value_error(real_dnnl, bad):
    """An int that is no address is refused before C."""
    with pytest.raises(ValueError):
        dnnl_interop.ocl.get_engine_cache_blob_id(bad)


_CHILD_BAD_TYPES = """
import sys
import dnnl_interop
from dnnl_interop._ffi import ffi
calls = [
    lambda: dnnl_interop.ocl.get_engine_cache_blob_id("0x1000"),
    lambda: dnnl_interop.ocl.get_engine_cache_blob_id(4096.0),
    lambda: dnnl_interop.ocl.get_engine_cache_blob_id(ffi.cast("int", 4096)),
    lambda: dnnl_interop.ze.get_engine_cache_blob_id("0x1000", None),
    lambda: dnnl_interop.ze.get_engine_cache_blob_id(None, 4096.0),
]
for call in calls:
    try:
        call()
    except TypeError:
        print("TypeError")
    except BaseException as exc:
        print("other", type(exc).__name__)
print("loaded", dnnl_interop.loaded_library() is not None)
print("mapped", any("libdnnl" in line for line in open("/proc/self/maps")))
"""


def test_wrong_handle_types_are_refused_before_c(tmp_path):
    """The TypeError comes before any C call: in a process whose oneDNN
    cannot load (so reaching C would raise LibraryNotFoundError), nothing is
    loaded or even attempted."""
    done = run_child(_CHILD_BAD_TYPES, library=str(tmp_path / "no-such-libdnnl.so.3"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["TypeError"] * 5 + ["loaded False", "mapped False"]

