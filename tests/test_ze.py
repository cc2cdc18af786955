"""``dnnl_interop.ze``: oneDNN's Level Zero interop, as ``dnnl::ze_interop``, in the main session.

This session has no Level Zero loader and no GPU. Against real oneDNN 3.13
the tests pin what the library answers without them: handle values, every
refusal made before C, refusals of CPU objects, and RUNTIME_ERROR wherever
oneDNN would have to ask Level Zero. A library without the ZE API (oneDNN
3.11) must answer every ``ze`` function with MissingFunctionError.

Every Level Zero success path runs on real oneDNN's Level Zero engine on the
emulated Level Zero loader, in sessions of their own: tests/gpu/test_ze_*.py.
"""

from __future__ import annotations

import copy
import gc
import json
import os
import pickle
import subprocess
import sys
import textwrap
import weakref
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import dnnl_interop as dnnl
from dnnl_interop import ze
from dnnl_interop._ffi import ffi
from dnnl_interop._handles import as_handle

LIBRARY_3_11 = Path(sys.prefix) / "opt" / "onednn-3.11" / "lib" / "libdnnl.so.3"

# Non-NULL addresses that are not Level Zero objects. Real oneDNN hands them
# to the Level Zero loader, which it cannot open here, so nothing reads them
# (checked in a subprocess first: RUNTIME_ERROR, no crash).
# Laid out as oneDNN 3.13 writes an engine cache blob (all fields zero, empty
# name): the binding's structural check passes it on to oneDNN.
WELL_FORMED_BLOB = bytes(110)
FAKE_DRIVER, FAKE_DEVICE, FAKE_CONTEXT, FAKE_LIST = 0x1000, 0x2000, 0x3000, 0x4000

HANDLE_KINDS = [
    (ze.Driver, "ze_driver_handle_t"),
    (ze.Device, "ze_device_handle_t"),
    (ze.Context, "ze_context_handle_t"),
    (ze.CommandList, "ze_command_list_handle_t"),
    (ze.Event, "ze_event_handle_t"),
]


# --- shared fixtures -------------------------------------------------------------


@pytest.fixture
def real_cpu_engine(real_dnnl):
    with dnnl.Engine.cpu() as engine:
        yield engine


@pytest.fixture
def cpu_stream(real_cpu_engine):
    with dnnl.Stream(real_cpu_engine) as stream:
        yield stream


# --- handle values (no library involved) -------------------------------------------


@pytest.mark.parametrize(("kind", "ctype"), HANDLE_KINDS)
def test_a_handle_value_is_its_address_with_a_typed_pointer(kind, ctype):
    handle = kind(0xABC0)
    assert int(handle) == handle.int_ptr == 0xABC0
    assert ffi.typeof(handle.ptr) is ffi.typeof(ctype)
    assert int(ffi.cast("uintptr_t", handle.ptr)) == 0xABC0
    assert repr(handle) == f"dnnl_interop.ze.{kind.__name__}(0xabc0)"
    assert isinstance(handle, ze.ZeHandle)


@pytest.mark.parametrize(("kind", "ctype"), HANDLE_KINDS)
def test_a_handle_value_is_made_from_any_handle_form(kind, ctype):
    class Wrapper:  # pyopencl's convention
        int_ptr = 0x5000

    assert kind(0x5000) == kind(ffi.cast(ctype, 0x5000)) == kind(ffi.cast("void *", 0x5000))
    assert kind(Wrapper()) == kind(0x5000) == kind(kind(0x5000))
    assert not kind(None) and not kind(0) and kind(1)


@given(address=st.integers(0, 2**64 - 1), kind=st.sampled_from([k for k, _ in HANDLE_KINDS]))
def test_any_address_round_trips_through_a_handle_value(address, kind):
    handle = kind(address)
    assert int(handle) == address == int(ffi.cast("uintptr_t", handle.ptr))
    assert kind(handle.ptr) == handle == kind(int(handle))
    assert bool(handle) is (address != 0)


def test_handle_values_compare_and_hash_by_kind_and_address():
    assert ze.Context(0x10) == ze.Context(0x10)
    assert hash(ze.Context(0x10)) == hash(ze.Context(0x10))
    assert ze.Context(0x10) != ze.Context(0x20)
    assert ze.Context(0x10) != ze.Device(0x10)  # same address, other kind
    assert ze.Context(0x10) != 0x10  # a value, not an int
    assert len({ze.Driver(1), ze.Driver(1), ze.Device(1)}) == 2


def test_handle_values_are_immutable_and_copy_and_pickle_as_values():
    handle = ze.CommandList(0x40)
    with pytest.raises(AttributeError):
        handle._address = 0x50
    with pytest.raises(AttributeError):
        handle.extra = 1
    assert copy.copy(handle) == copy.deepcopy(handle) == pickle.loads(pickle.dumps(handle)) == handle


def test_handle_values_are_accepted_wherever_a_handle_is():
    handle = ze.Device(0x7000)
    assert int(ffi.cast("uintptr_t", as_handle(handle, "ze_device_handle_t", "device"))) == 0x7000


def test_a_handle_value_of_another_kind_is_refused():
    with pytest.raises(TypeError, match="Device"):
        ze.Driver(ze.Device(0x10))


@pytest.mark.parametrize("bad", [-1, 2**64, 1.5, True, "0x10", b"\x10"])
def test_a_handle_value_refuses_what_is_not_an_address(bad):
    with pytest.raises((TypeError, ValueError)):
        ze.Context(bad)


# --- type errors before C (no library call is made) ---------------------------------


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda: ze.make_engine("driver", FAKE_DEVICE, FAKE_CONTEXT), "driver"),
        (lambda: ze.make_engine(FAKE_DRIVER, 1.5, FAKE_CONTEXT), "device"),
        (lambda: ze.make_engine(FAKE_DRIVER, FAKE_DEVICE, object()), "context"),
        (lambda: ze.make_engine(ze.Device(1), FAKE_DEVICE, FAKE_CONTEXT), "driver"),
        (lambda: ze.make_engine(FAKE_DRIVER, ze.Context(1), FAKE_CONTEXT), "device"),
        (lambda: ze.make_engine(FAKE_DRIVER, FAKE_DEVICE, ffi.cast("ze_device_handle_t", 1)), "context"),
        (lambda: ze.make_engine(FAKE_DRIVER, FAKE_DEVICE, FAKE_CONTEXT, cache_blob=5), "cache_blob"),
        (lambda: ze.make_engine(FAKE_DRIVER, FAKE_DEVICE, FAKE_CONTEXT, cache_blob="blob"), "cache_blob"),
        (lambda: ze.get_engine_cache_blob_id(FAKE_DEVICE, ze.Driver(1)), "device"),
        (lambda: ze.get_engine_cache_blob_id([], FAKE_DEVICE), "driver"),
        (lambda: ze.get_engine_cache_blob(None), "engine"),
        (lambda: ze.get_engine_cache_blob(FAKE_CONTEXT), "engine"),
        (lambda: ze.get_driver(None), "engine"),
        (lambda: ze.get_device(0x10), "engine"),
        (lambda: ze.get_context("engine"), "engine"),
        (lambda: ze.make_stream(None, FAKE_LIST), "engine"),
        (lambda: ze.get_list(None), "stream"),
        (lambda: ze.make_memory(None, None), "desc"),
        (lambda: ze.execute(None, None, {}), "primitive"),
    ],
)
def test_wrong_types_are_refused_naming_the_argument(call, argument):
    with pytest.raises(TypeError, match=f"^{argument}"):
        call()


def test_a_dnnl_object_is_not_taken_for_a_level_zero_handle(real_cpu_engine):
    with pytest.raises(TypeError, match=r"^driver: .*Engine"):
        ze.make_engine(real_cpu_engine, FAKE_DEVICE, FAKE_CONTEXT)
    with pytest.raises(TypeError, match=r"^command_list: .*Engine"):
        ze.make_stream(real_cpu_engine, real_cpu_engine)
    with pytest.raises(TypeError, match=r"^deps\[0\]: .*Engine"):
        _execute_reorder(real_cpu_engine, deps=[real_cpu_engine])


def test_a_handle_value_of_another_kind_is_not_a_memory_buffer(real_cpu_engine):
    desc = dnnl.MemoryDesc((2, 2), "f32", "ab")
    with pytest.raises(TypeError, match=r"^handles: .*Level Zero Context"):
        ze.make_memory(desc, real_cpu_engine, ze.Context(0x10))
    with pytest.raises(TypeError, match=r"^handles\[1\]: .*Engine"):
        ze.make_memory(desc, real_cpu_engine, [dnnl.MEMORY_ALLOCATE, real_cpu_engine])


def test_a_host_buffer_must_be_writable_contiguous_and_large_enough(real_cpu_engine):
    desc = dnnl.MemoryDesc((2, 3), "f32", "ab")
    with pytest.raises(ValueError, match=r"^handles: 20 bytes, the descriptor needs 24"):
        ze.make_memory(desc, real_cpu_engine, np.zeros(5, np.float32))
    with pytest.raises(ValueError, match=r"^handles: an array of shape \(3, 2\) for a descriptor of shape \(2, 3\)"):
        ze.make_memory(desc, real_cpu_engine, np.zeros((3, 4), np.float32)[:, ::2])
    with pytest.raises(ValueError, match=r"^handles: the array's strides, \(4, 8\) bytes \(Fortran-contiguous"):
        ze.make_memory(desc, real_cpu_engine, np.zeros((2, 3), np.float32, order="F"))
    with pytest.raises(ValueError, match=r"^handles: .*read-only"):
        ze.make_memory(desc, real_cpu_engine, bytes(24))


def test_a_one_element_numpy_array_is_a_buffer_not_an_int(real_cpu_engine):
    """numpy arrays of one element have ``__index__`` (their value): never an address."""
    desc = dnnl.MemoryDesc((2,), "f32", "a")
    with pytest.raises(ValueError, match=r"^handles: 4 bytes"):
        ze.make_memory(desc, real_cpu_engine, np.array([7], np.float32))


def test_execute_refuses_args_that_are_not_memory(real_cpu_engine):
    with pytest.raises(TypeError, match=r"^args\[1\]"):
        _execute_reorder(real_cpu_engine, args={1: "memory"})
    with pytest.raises(TypeError, match=r"^args"):
        _execute_reorder(real_cpu_engine, args=[1, 2])
    with pytest.raises(TypeError, match=r"^deps\[1\]: .*Level Zero Event, got a CommandList"):
        _execute_reorder(real_cpu_engine, deps=[ze.Event(1), ze.CommandList(2)])


def _execute_reorder(engine, args=None, deps=()):
    """ze.execute of an ab->ba reorder on a CPU stream of ``engine``."""
    desc = dnnl.MemoryDesc((2, 3), "f32", "ab")
    out_desc = dnnl.MemoryDesc((2, 3), "f32", "ba")
    with dnnl.Stream(engine) as stream, dnnl.reorder(desc, out_desc, engine) as primitive:
        with dnnl.Memory(desc, engine) as src, dnnl.Memory(out_desc, engine) as dst:
            if args is None:
                args = {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst}
            return ze.execute(primitive, stream, args, deps)


# --- real oneDNN without a Level Zero loader -----------------------------------------


@pytest.mark.parametrize(
    ("driver", "device"), [(FAKE_DRIVER, FAKE_DEVICE), (ze.Driver(FAKE_DRIVER), ze.Device(FAKE_DEVICE))]
)
def test_blob_id_without_a_level_zero_loader_is_a_runtime_error(real_dnnl, driver, device):
    with pytest.raises(dnnl.DnnlRuntimeError) as info:
        ze.get_engine_cache_blob_id(driver, device)
    assert info.value.status is dnnl.Status.RUNTIME_ERROR
    assert info.value.function == "dnnl_ze_interop_engine_get_cache_blob_id"


@pytest.mark.parametrize("cache_blob", [None, WELL_FORMED_BLOB], ids=["plain", "from-blob"])
def test_an_engine_on_fake_handles_needs_the_level_zero_loader(real_dnnl, cache_blob):
    with pytest.raises(dnnl.DnnlRuntimeError) as info:
        ze.make_engine(FAKE_DRIVER, FAKE_DEVICE, FAKE_CONTEXT, cache_blob=cache_blob)
    assert info.value.status is dnnl.Status.RUNTIME_ERROR


def test_a_failed_make_engine_keeps_nothing_alive(real_dnnl):
    class NativeContext:  # a wrapper that would free its handle when collected
        int_ptr = FAKE_CONTEXT

    native = NativeContext()
    ref = weakref.ref(native)
    with pytest.raises(dnnl.DnnlRuntimeError):
        ze.make_engine(FAKE_DRIVER, FAKE_DEVICE, native)
    del native
    gc.collect()
    assert ref() is None  # nothing held on to the wrapper


# --- refusals without a Level Zero engine ------------------------------------------------


@pytest.mark.parametrize(
    "handles",
    [
        (None, None, None),
        (None, FAKE_DEVICE, FAKE_CONTEXT),
        (FAKE_DRIVER, None, FAKE_CONTEXT),
        (FAKE_DRIVER, FAKE_DEVICE, None),
        (dnnl.MEMORY_NONE, ze.Device(FAKE_DEVICE), ze.Context(FAKE_CONTEXT)),
    ],
    ids=["all", "driver", "device", "context", "memory-none-driver"],
)
@pytest.mark.parametrize("cache_blob", [None, WELL_FORMED_BLOB], ids=["plain", "from-blob"])
def test_make_engine_refuses_a_null_handle_before_c(real_dnnl, handles, cache_blob):
    first_null = ["driver", "device", "context"][[h is None or h is dnnl.MEMORY_NONE for h in handles].index(True)]
    with pytest.raises((TypeError, ValueError), match=f"^{first_null}: (None given|a NULL handle)"):
        ze.make_engine(*handles, cache_blob=cache_blob)


@pytest.mark.parametrize(
    ("driver", "device"), [(None, None), (None, FAKE_DEVICE), (FAKE_DRIVER, None)], ids=["both", "driver", "device"]
)
def test_a_blob_id_for_null_handles_is_refused_before_c(real_dnnl, driver, device):
    """oneDNN would hand NULL to Level Zero unchecked: refused here, naming the argument."""
    first_null = "driver" if driver is None else "device"
    with pytest.raises(TypeError, match=f"^{first_null}: None given"):
        ze.get_engine_cache_blob_id(driver, device)


@pytest.mark.parametrize("empty", [b"", bytearray(), np.zeros(0, np.uint8)], ids=["bytes", "bytearray", "numpy"])
def test_make_engine_refuses_an_empty_cache_blob_before_c(real_dnnl, empty):
    with pytest.raises(ValueError, match=r"^cache_blob: empty"):
        ze.make_engine(FAKE_DRIVER, FAKE_DEVICE, FAKE_CONTEXT, cache_blob=empty)


@pytest.mark.parametrize(
    ("getter", "function"),
    [
        (ze.get_driver, "dnnl_ze_interop_engine_get_driver"),
        (ze.get_device, "dnnl_ze_interop_engine_get_device"),
        (ze.get_context, "dnnl_ze_interop_engine_get_context"),
        (ze.get_engine_cache_blob, "dnnl_ze_interop_engine_get_cache_blob"),
    ],
)
def test_engine_queries_refuse_a_cpu_engine(real_cpu_engine, getter, function):
    with pytest.raises(dnnl.InvalidArgumentsError) as info:
        getter(real_cpu_engine)
    assert info.value.function == function


@pytest.mark.parametrize("command_list", [FAKE_LIST, ze.CommandList(FAKE_LIST)])
@pytest.mark.parametrize("profiling", [False, True])
def test_make_stream_refuses_a_cpu_engine(real_cpu_engine, command_list, profiling):
    with pytest.raises(dnnl.InvalidArgumentsError, match="dnnl_ze_interop_stream_create"):
        ze.make_stream(real_cpu_engine, command_list, profiling=profiling)


def test_get_list_refuses_a_cpu_stream(cpu_stream):
    with pytest.raises(dnnl.InvalidArgumentsError, match="dnnl_ze_interop_stream_get_list"):
        ze.get_list(cpu_stream)


@pytest.mark.parametrize(
    "handles",
    [dnnl.MEMORY_ALLOCATE, dnnl.MEMORY_NONE, None, [], [dnnl.MEMORY_ALLOCATE], 0x10000],
    ids=["allocate", "none", "None", "empty-list", "list", "pointer"],
)
def test_make_memory_refuses_a_cpu_engine(real_cpu_engine, handles):
    desc = dnnl.MemoryDesc((2, 3), "f32", "ab")
    with pytest.raises(dnnl.InvalidArgumentsError, match="dnnl_ze_interop_memory_create"):
        ze.make_memory(desc, real_cpu_engine, handles)


@pytest.mark.parametrize("deps", [(), [ze.Event(0x10)], [0x10, 0x20]], ids=["none", "one", "two"])
def test_execute_refuses_a_cpu_stream(real_cpu_engine, deps):
    with pytest.raises(dnnl.InvalidArgumentsError, match="dnnl_ze_interop_primitive_execute"):
        _execute_reorder(real_cpu_engine, deps=deps)


def test_execute_on_a_cpu_stream_names_the_stream_it_needs(real_cpu_engine):
    desc = dnnl.MemoryDesc((2, 2), "f32", "ab")
    needs = "stream: a stream of a CPU or SYCL engine; it needs a stream of a Level Zero engine"
    with (
        dnnl.Stream(real_cpu_engine) as stream,
        dnnl.reorder(desc, desc, real_cpu_engine) as primitive,
        pytest.raises(dnnl.InvalidArgumentsError, match=needs),
    ):
        ze.execute(primitive, stream, {})


def test_make_stream_refuses_a_null_list_before_c(real_cpu_engine):
    with pytest.raises(TypeError, match=r"^command_list: None given"):
        ze.make_stream(real_cpu_engine, None)


def test_the_cpu_engine_still_works_after_the_refusals(real_cpu_engine):
    """A ze refusal leaves the library usable: a plain reorder still runs."""
    with pytest.raises(dnnl.InvalidArgumentsError):
        ze.get_driver(real_cpu_engine)
    array = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = np.zeros((3, 2), np.float32)
    desc = dnnl.MemoryDesc((2, 3), "f32", "ab")
    out_desc = dnnl.MemoryDesc((2, 3), "f32", "ba")
    with dnnl.Stream(real_cpu_engine) as stream, dnnl.reorder(desc, out_desc, real_cpu_engine) as primitive:
        with dnnl.Memory(desc, real_cpu_engine, array) as src, dnnl.Memory(out_desc, real_cpu_engine, out.T) as dst:
            primitive.execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
            stream.wait()
    np.testing.assert_array_equal(out, array.T)


# --- closed objects ---------------------------------------------------------------------


def test_a_closed_engine_is_refused_before_c(real_dnnl):
    engine = dnnl.Engine.cpu()
    engine.close()
    for call in (ze.get_engine_cache_blob, ze.get_driver, ze.get_device, ze.get_context):
        with pytest.raises(dnnl.ClosedObjectError):
            call(engine)
    with pytest.raises(dnnl.ClosedObjectError):
        ze.make_stream(engine, FAKE_LIST)
    with pytest.raises(dnnl.ClosedObjectError):
        ze.make_memory(dnnl.MemoryDesc((1,), "f32", "a"), engine)


def test_a_closed_stream_is_refused_before_c(real_cpu_engine):
    stream = dnnl.Stream(real_cpu_engine)
    stream.close()
    with pytest.raises(dnnl.ClosedObjectError):
        ze.get_list(stream)


# --- a oneDNN without the Level Zero API ---------------------------------------------------

# Every ze function, called with dummy arguments, and the C function it needs.
_MISSING_SCRIPT = textwrap.dedent(
    """
    import json
    import tempfile
    import numpy as np
    import pyopencl as cl
    import dnnl_interop as dnnl
    from dnnl_interop import ocl, ze

    library = dnnl.load_library()
    engine = dnnl.Engine.cpu()
    stream = dnnl.Stream(engine)
    desc = dnnl.MemoryDesc((2, 3), "f32", "ab")
    out_desc = dnnl.MemoryDesc((2, 3), "f32", "ba")
    primitive = dnnl.reorder(desc, out_desc, engine)
    array = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = np.zeros((3, 2), np.float32)
    src, dst = dnnl.Memory(desc, engine, array), dnnl.Memory(out_desc, engine, out.T)
    args = {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst}

    calls = {
        "get_engine_cache_blob_id": lambda: ze.get_engine_cache_blob_id(0x1000, 0x2000),
        "get_engine_cache_blob": lambda: ze.get_engine_cache_blob(engine),
        "make_engine": lambda: ze.make_engine(0x1000, 0x2000, 0x3000),
        "make_engine+cache_blob": lambda: ze.make_engine(0x1000, 0x2000, 0x3000, b"blob"),
        "get_driver": lambda: ze.get_driver(engine),
        "get_device": lambda: ze.get_device(engine),
        "get_context": lambda: ze.get_context(engine),
        "make_stream": lambda: ze.make_stream(engine, 0x4000),
        "get_list": lambda: ze.get_list(stream),
        "make_memory": lambda: ze.make_memory(desc, engine),
        "execute": lambda: ze.execute(primitive, stream, args, [0x5000]),
        "make_engine_cached": lambda: ze.make_engine_cached(
            0x1000, 0x2000, 0x3000, store=dnnl.CacheBlobStore(tempfile.mkdtemp())
        ),
    }
    answers = {}
    for name, call in calls.items():
        try:
            call()
        except dnnl.MissingFunctionError as error:
            answers[name] = [error.function, error.library, error.version, str(error)]
        except Exception as error:
            answers[name] = repr(error)
        else:
            answers[name] = "no error"

    # Everything else still works: a CPU reorder, the OpenCL blob id.
    primitive.execute(stream, args)
    stream.wait()
    device = cl.get_platforms()[0].get_devices()[0]
    print(json.dumps({
        "version": library.version.number,
        "path": library.path,
        "missing": list(library.missing),
        "answers": answers,
        "reorder_ok": bool((out == array.T).all()),
        "ocl_blob_id_size": len(ocl.get_engine_cache_blob_id(device)),
    }))
    """
)

_NEEDS = {
    "get_engine_cache_blob_id": "dnnl_ze_interop_engine_get_cache_blob_id",
    "get_engine_cache_blob": "dnnl_ze_interop_engine_get_cache_blob",
    "make_engine": "dnnl_ze_interop_engine_create",
    "make_engine+cache_blob": "dnnl_ze_interop_engine_create_from_cache_blob",
    "get_driver": "dnnl_ze_interop_engine_get_driver",
    "get_device": "dnnl_ze_interop_engine_get_device",
    "get_context": "dnnl_ze_interop_engine_get_context",
    "make_stream": "dnnl_ze_interop_stream_create",
    "get_list": "dnnl_ze_interop_stream_get_list",
    "make_memory": "dnnl_ze_interop_memory_create",
    "execute": "dnnl_ze_interop_primitive_execute",
    # Keyed by the blob id: asked for first, before any store or engine.
    "make_engine_cached": "dnnl_ze_interop_engine_get_cache_blob_id",
}


@pytest.fixture(scope="module")
def onednn_3_11():
    """What the 3.11 library answers to every ze function (run in a subprocess)."""
    if not LIBRARY_3_11.exists():
        pytest.fail(f"oneDNN 3.11 missing at {LIBRARY_3_11}: run scripts/setup-env.sh")
    env = dict(os.environ)
    env[dnnl.ENV_VAR] = str(LIBRARY_3_11)
    # 3.11's libdnnl needs the SYCL runtime of the 3.13 wheel from <venv>/lib.
    env["LD_LIBRARY_PATH"] = os.pathsep.join(
        filter(None, [str(Path(sys.prefix) / "lib"), env.get("LD_LIBRARY_PATH")])
    )
    result = subprocess.run(
        [sys.executable, "-c", _MISSING_SCRIPT], check=False, env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_every_ze_function_is_exercised_by_the_missing_symbol_test():
    functions = {name for name in ze.__all__ if not isinstance(getattr(ze, name), type)}
    assert functions == {name.split("+")[0] for name in _NEEDS}


def test_oneDNN_3_11_lacks_every_ze_function(onednn_3_11):
    assert onednn_3_11["version"].startswith("3.11.")
    assert set(_NEEDS.values()) <= set(onednn_3_11["missing"])


@pytest.mark.parametrize("call", sorted(_NEEDS))
def test_every_ze_function_raises_missing_function_error_on_3_11(onednn_3_11, call):
    function, library, version, message = onednn_3_11["answers"][call]
    assert function == _NEEDS[call]
    assert library == onednn_3_11["path"] == os.path.realpath(LIBRARY_3_11)
    assert version == onednn_3_11["version"]
    assert function in message and library in message and version in message


def test_the_rest_keeps_working_on_3_11(onednn_3_11):
    assert onednn_3_11["reorder_ok"]
    assert onednn_3_11["ocl_blob_id_size"] > 0
