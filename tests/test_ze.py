"""``dnnl_interop.ze``: oneDNN's Level Zero interop, as ``dnnl::ze_interop``.

This machine has no Level Zero loader and no Intel GPU. Against real oneDNN
3.13 the tests pin what the library answers without them: every refusal of
NULL arguments and of CPU objects, and RUNTIME_ERROR wherever it would have
to ask Level Zero. The documented Level Zero semantics (oneDNN's
src/xpu/ze/capi/ sources and its own tests/gtests/ze/api tests, ported) run
against the stand-in library, whose Level Zero handles are opaque fakes. A library without the ZE API (oneDNN
3.11) must answer every ``ze`` function with MissingFunctionError.
"""

from __future__ import annotations

import copy
import gc
import itertools
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
def both(dnnl):
    """conftest's ``dnnl`` (real oneDNN, then the stand-in) under a name that
    leaves ``dnnl`` to the module."""
    return dnnl


@pytest.fixture
def cpu_engine(both):
    """A CPU engine of whichever library the test runs against."""
    with dnnl.Engine.cpu() as engine:
        yield engine


@pytest.fixture
def cpu_stream(cpu_engine):
    with dnnl.Stream(cpu_engine) as stream:
        yield stream


@pytest.fixture
def real_cpu_engine(real_dnnl):
    with dnnl.Engine.cpu() as engine:
        yield engine


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
    with pytest.raises(TypeError, match="^driver: .*Engine"):
        ze.make_engine(real_cpu_engine, FAKE_DEVICE, FAKE_CONTEXT)
    with pytest.raises(TypeError, match="^command_list: .*Engine"):
        ze.make_stream(real_cpu_engine, real_cpu_engine)
    with pytest.raises(TypeError, match=r"^deps\[0\]: .*Engine"):
        _execute_reorder(real_cpu_engine, deps=[real_cpu_engine])


def test_a_handle_value_of_another_kind_is_not_a_memory_buffer(real_cpu_engine):
    desc = dnnl.MemoryDesc((2, 2), "f32", "ab")
    with pytest.raises(TypeError, match="^handles: .*Level Zero Context"):
        ze.make_memory(desc, real_cpu_engine, ze.Context(0x10))
    with pytest.raises(TypeError, match=r"^handles\[1\]: .*Engine"):
        ze.make_memory(desc, real_cpu_engine, [dnnl.MEMORY_ALLOCATE, real_cpu_engine])


def test_a_host_buffer_must_be_writable_contiguous_and_large_enough(real_cpu_engine):
    desc = dnnl.MemoryDesc((2, 3), "f32", "ab")
    with pytest.raises(ValueError, match="^handles: 20 bytes, the descriptor needs 24"):
        ze.make_memory(desc, real_cpu_engine, np.zeros(5, np.float32))
    with pytest.raises(ValueError, match="^handles: .*not C-contiguous"):
        ze.make_memory(desc, real_cpu_engine, np.zeros((3, 4), np.float32)[:, ::2])
    with pytest.raises(ValueError, match="^handles: .*read-only"):
        ze.make_memory(desc, real_cpu_engine, bytes(24))


def test_a_one_element_numpy_array_is_a_buffer_not_an_int(real_cpu_engine):
    """numpy arrays of one element have ``__index__`` (their value): never an address."""
    desc = dnnl.MemoryDesc((2,), "f32", "a")
    with pytest.raises(ValueError, match="^handles: 4 bytes"):
        ze.make_memory(desc, real_cpu_engine, np.array([7], np.float32))


def test_execute_refuses_args_that_are_not_memory(real_cpu_engine):
    with pytest.raises(TypeError, match=r"^args\[1\]"):
        _execute_reorder(real_cpu_engine, args={1: "memory"})
    with pytest.raises(TypeError, match="^args"):
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


@pytest.mark.parametrize("cache_blob", [None, b"\x01" * 64])
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


# --- refusals both libraries agree on ------------------------------------------------


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
@pytest.mark.parametrize("cache_blob", [None, b"\x01" * 64], ids=["plain", "from-blob"])
def test_make_engine_refuses_a_null_handle_before_c(both, handles, cache_blob):
    first_null = ["driver", "device", "context"][[h is None or h is dnnl.MEMORY_NONE for h in handles].index(True)]
    with pytest.raises((TypeError, ValueError), match=f"^{first_null}: (None given|a NULL handle)"):
        ze.make_engine(*handles, cache_blob=cache_blob)


@pytest.mark.parametrize(
    ("driver", "device"), [(None, None), (None, FAKE_DEVICE), (FAKE_DRIVER, None)], ids=["both", "driver", "device"]
)
def test_a_blob_id_for_null_handles_is_refused_before_c(both, driver, device):
    """oneDNN would hand NULL to Level Zero unchecked: refused here, naming the argument."""
    first_null = "driver" if driver is None else "device"
    with pytest.raises(TypeError, match=f"^{first_null}: None given"):
        ze.get_engine_cache_blob_id(driver, device)


@pytest.mark.parametrize("empty", [b"", bytearray(), np.zeros(0, np.uint8)], ids=["bytes", "bytearray", "numpy"])
def test_make_engine_refuses_an_empty_cache_blob_before_c(both, empty):
    with pytest.raises(ValueError, match="^cache_blob: empty"):
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
def test_engine_queries_refuse_a_cpu_engine(cpu_engine, getter, function):
    with pytest.raises(dnnl.InvalidArgumentsError) as info:
        getter(cpu_engine)
    assert info.value.function == function


@pytest.mark.parametrize("command_list", [FAKE_LIST, ze.CommandList(FAKE_LIST)])
@pytest.mark.parametrize("profiling", [False, True])
def test_make_stream_refuses_a_cpu_engine(cpu_engine, command_list, profiling):
    with pytest.raises(dnnl.InvalidArgumentsError, match="dnnl_ze_interop_stream_create"):
        ze.make_stream(cpu_engine, command_list, profiling=profiling)


def test_get_list_refuses_a_cpu_stream(cpu_stream):
    with pytest.raises(dnnl.InvalidArgumentsError, match="dnnl_ze_interop_stream_get_list"):
        ze.get_list(cpu_stream)


@pytest.mark.parametrize(
    "handles",
    [dnnl.MEMORY_ALLOCATE, dnnl.MEMORY_NONE, None, [], [dnnl.MEMORY_ALLOCATE], 0x10000],
    ids=["allocate", "none", "None", "empty-list", "list", "pointer"],
)
def test_make_memory_refuses_a_cpu_engine(cpu_engine, handles):
    desc = dnnl.MemoryDesc((2, 3), "f32", "ab")
    with pytest.raises(dnnl.InvalidArgumentsError, match="dnnl_ze_interop_memory_create"):
        ze.make_memory(desc, cpu_engine, handles)


@pytest.mark.parametrize("deps", [(), [ze.Event(0x10)], [0x10, 0x20]], ids=["none", "one", "two"])
def test_execute_refuses_a_cpu_stream(cpu_engine, deps):
    with pytest.raises(dnnl.InvalidArgumentsError, match="dnnl_ze_interop_primitive_execute"):
        _execute_reorder(cpu_engine, deps=deps)


def test_the_cpu_engine_still_works_after_the_refusals(cpu_engine):
    """A ze refusal leaves the library usable: a plain reorder still runs."""
    with pytest.raises(dnnl.InvalidArgumentsError):
        ze.get_driver(cpu_engine)
    array = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = np.zeros((3, 2), np.float32)
    desc = dnnl.MemoryDesc((2, 3), "f32", "ab")
    out_desc = dnnl.MemoryDesc((2, 3), "f32", "ba")
    with dnnl.Stream(cpu_engine) as stream, dnnl.reorder(desc, out_desc, cpu_engine) as primitive:
        with dnnl.Memory(desc, cpu_engine, array) as src, dnnl.Memory(out_desc, cpu_engine, out) as dst:
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


# --- the documented semantics, on the stand-in's fake Level Zero ------------------------
#
# The stand-in stores the fake handles and hands them back, never reading
# them; its "device USM" is host memory, so numpy arrays stand for USM
# allocations and a reorder really moves their data.

_addresses = itertools.count(0x7F00_0000_0000, 0x1000)


def fresh(kind):
    """A fake handle at an address no other test has used.

    oneDNN caches device info per device for the whole process, so cache
    blob tests need devices no engine has been made for yet.
    """
    return kind(next(_addresses))


class NativeHandle:
    """A Python wrapper of a native handle, as a Level Zero binding would have:
    it exposes ``int_ptr`` and would free the native object when collected."""

    def __init__(self, address: int):
        self.int_ptr = address


@pytest.fixture
def ze_handles():
    return fresh(ze.Driver), fresh(ze.Device), fresh(ze.Context)


@pytest.fixture
def ze_engine(standin_dnnl, ze_handles):
    with ze.make_engine(*ze_handles) as engine:
        yield engine


@pytest.fixture
def ze_stream(ze_engine):
    with ze.make_stream(ze_engine, fresh(ze.CommandList)) as stream:
        yield stream


# engine (ze/api/test_engine.cpp)


def test_driver_device_and_context_round_trip(ze_engine, ze_handles):
    driver, device, context = ze_handles
    assert ze.get_driver(ze_engine) == driver
    assert ze.get_device(ze_engine) == device
    assert ze.get_context(ze_engine) == context
    assert type(ze.get_driver(ze_engine)) is ze.Driver
    assert type(ze.get_device(ze_engine)) is ze.Device
    assert type(ze.get_context(ze_engine)) is ze.Context
    assert ze_engine.kind is dnnl.EngineKind.GPU


@pytest.mark.parametrize(
    "form",
    [int, lambda h: h, lambda h: h.ptr, lambda h: ffi.cast("void *", int(h)), lambda h: NativeHandle(int(h))],
    ids=["int", "value", "typed-pointer", "void-pointer", "int_ptr"],
)
def test_every_handle_form_reaches_oneDNN_as_the_same_handle(standin_dnnl, ze_handles, form):
    with ze.make_engine(*(form(h) for h in ze_handles)) as engine:
        assert (ze.get_driver(engine), ze.get_device(engine), ze.get_context(engine)) == ze_handles


@given(addresses=st.lists(st.integers(1, 2**64 - 2), min_size=3, max_size=3))
def test_any_non_null_handles_round_trip_through_an_engine(standin_dnnl, addresses):
    driver, device, context = ze.Driver(addresses[0]), ze.Device(addresses[1]), ze.Context(addresses[2])
    with ze.make_engine(int(driver), int(device), int(context)) as engine:
        assert ze.get_driver(engine) == driver
        assert ze.get_device(engine) == device
        assert ze.get_context(engine) == context


def test_the_engine_keeps_the_objects_it_was_given_until_it_closes(standin_dnnl):
    given = [NativeHandle(int(fresh(kind))) for kind in (ze.Driver, ze.Device, ze.Context)]
    refs = [weakref.ref(obj) for obj in given]
    engine = ze.make_engine(*given)
    del given
    gc.collect()
    assert all(ref() is not None for ref in refs)  # held while the engine lives
    engine.close()
    gc.collect()
    assert all(ref() is None for ref in refs)  # released when it closes


def test_the_engine_keeps_its_objects_until_collected_too(standin_dnnl):
    context = NativeHandle(int(fresh(ze.Context)))
    ref = weakref.ref(context)
    engine = ze.make_engine(fresh(ze.Driver), fresh(ze.Device), context)
    del context
    gc.collect()
    assert ref() is not None
    del engine
    gc.collect()
    assert ref() is None


def test_the_user_context_is_still_valid_after_the_engine_is_destroyed(standin_dnnl, ze_handles):
    """oneDNN does not own the context: destroying the engine leaves it usable."""
    driver, device, context = ze_handles
    ze.make_engine(driver, device, context).close()
    with ze.make_engine(driver, device, context) as engine:  # the same context again
        assert ze.get_context(engine) == context
        with ze.make_memory(dnnl.MemoryDesc((4,), "f32", "a"), engine) as memory:
            assert memory.data_handle


def test_two_engines_may_share_driver_device_and_context(standin_dnnl, ze_handles):
    with ze.make_engine(*ze_handles) as first, ze.make_engine(*ze_handles) as second:
        assert first.int_ptr != second.int_ptr
        assert ze.get_context(first) == ze.get_context(second) == ze_handles[2]


# stream (ze/api/test_stream.cpp)


@pytest.mark.parametrize("profiling", [False, True])
def test_get_list_returns_the_list_the_stream_was_made_with(ze_engine, profiling):
    command_list = fresh(ze.CommandList)
    with ze.make_stream(ze_engine, command_list, profiling=profiling) as stream:
        assert ze.get_list(stream) == command_list
        assert type(ze.get_list(stream)) is ze.CommandList
        assert stream.engine is ze_engine


def test_the_list_is_still_valid_after_the_stream_is_destroyed(ze_engine):
    command_list = fresh(ze.CommandList)
    ze.make_stream(ze_engine, command_list).close()
    with ze.make_stream(ze_engine, command_list) as stream:  # the same list again
        assert ze.get_list(stream) == command_list
        assert execute_reorder(ze_engine, stream, np.ones((2, 2), np.float32)) is not None


def test_the_stream_keeps_its_engine_and_list_object_until_it_closes(standin_dnnl, ze_handles):
    engine = ze.make_engine(*ze_handles)
    command_list = NativeHandle(int(fresh(ze.CommandList)))
    refs = weakref.ref(engine), weakref.ref(command_list)
    stream = ze.make_stream(engine, command_list)
    del engine, command_list
    gc.collect()
    assert all(ref() is not None for ref in refs)
    stream.close()
    gc.collect()
    assert refs[1]() is None  # the list wrapper is released with the stream
    assert refs[0]() is None  # and so is the engine nothing else holds


def test_make_stream_refuses_a_null_list_before_c(ze_engine):
    with pytest.raises(TypeError, match="^command_list: None given"):
        ze.make_stream(ze_engine, None)


# memory (ze/api/test_memory.cpp)


@pytest.mark.parametrize(
    "handles", [dnnl.MEMORY_ALLOCATE, [], [dnnl.MEMORY_ALLOCATE], (dnnl.MEMORY_ALLOCATE,)],
    ids=["allocate", "empty-list", "list", "tuple"],
)
def test_allocate_gives_a_buffer(ze_engine, handles):
    desc = dnnl.MemoryDesc((3, 5), "f32", "ab")
    with ze.make_memory(desc, ze_engine, handles) as memory:
        assert memory.data_handle != 0
        assert memory.desc is desc and memory.engine is ze_engine


def test_the_default_is_allocate(ze_engine):
    with ze.make_memory(dnnl.MemoryDesc((8,), "u8", "a"), ze_engine) as memory:
        assert memory.data_handle != 0


@pytest.mark.parametrize("none", [dnnl.MEMORY_NONE, None, [None]], ids=["MEMORY_NONE", "None", "list"])
def test_none_gives_no_buffer(ze_engine, none):
    with ze.make_memory(dnnl.MemoryDesc((3, 5), "f32", "ab"), ze_engine, none) as memory:
        assert memory.data_handle == 0


@given(address=st.integers(1, 2**64 - 2))
def test_a_user_pointer_round_trips_through_data_handle(ze_engine, address):
    """oneDNN uses a user pointer as-is (it does not own it)."""
    with ze.make_memory(dnnl.MemoryDesc((2, 2), "f32", "ab"), ze_engine, address) as memory:
        assert memory.data_handle == address


def test_a_numpy_usm_buffer_is_used_in_place_and_kept_alive(ze_engine):
    usm = np.zeros((2, 3), np.float32)
    address = usm.ctypes.data
    ref = weakref.ref(usm)
    memory = ze.make_memory(dnnl.MemoryDesc((2, 3), "f32", "ab"), ze_engine, usm)
    del usm
    gc.collect()
    assert ref() is not None and memory.data_handle == address
    del memory
    gc.collect()
    assert ref() is None


def test_a_pointer_object_is_kept_alive_with_the_memory(ze_engine):
    usm = np.zeros(4, np.float32)
    pointer = NativeHandle(usm.ctypes.data)
    ref = weakref.ref(pointer)
    memory = ze.make_memory(dnnl.MemoryDesc((4,), "f32", "a"), ze_engine, [pointer])
    del pointer
    gc.collect()
    assert ref() is not None and memory.data_handle == usm.ctypes.data
    del memory
    gc.collect()
    assert ref() is None


def test_closing_the_memory_releases_the_buffer(ze_engine):
    usm = np.zeros(4, np.float32)
    ref = weakref.ref(usm)
    memory = ze.make_memory(dnnl.MemoryDesc((4,), "f32", "a"), ze_engine, usm)
    del usm
    memory.close()
    gc.collect()
    assert ref() is None


def test_set_data_handle_swaps_the_usm_pointer(ze_engine):
    first, second = np.zeros(4, np.float32), np.zeros(4, np.float32)
    with ze.make_memory(dnnl.MemoryDesc((4,), "f32", "a"), ze_engine, first) as memory:
        memory.set_data_handle(second)
        assert memory.data_handle == second.ctypes.data


def test_make_memory_refuses_a_format_any_descriptor(ze_engine):
    with pytest.raises(dnnl.InvalidArgumentsError, match="dnnl_ze_interop_memory_create"):
        ze.make_memory(dnnl.MemoryDesc((2, 2), "f32", "any"), ze_engine)


# execution


def execute_reorder(engine, stream, array, deps=()):
    """ze.execute an ab->ba reorder of ``array`` from and to numpy "USM"."""
    rows, cols = array.shape
    desc = dnnl.MemoryDesc(array.shape, array.dtype, "ab")
    out_desc = dnnl.MemoryDesc(array.shape, array.dtype, "ba")
    out = np.zeros((cols, rows), array.dtype)
    with dnnl.reorder(desc, out_desc, engine) as primitive:
        with ze.make_memory(desc, engine, array) as src, ze.make_memory(out_desc, engine, out) as dst:
            event = ze.execute(primitive, stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst}, deps)
            stream.wait()
    assert event is None  # oneDNN reports no event on interop streams
    return out


@given(
    rows=st.integers(1, 9),
    cols=st.integers(1, 9),
    dtype=st.sampled_from(["float32", "int8", "uint8", "int32", "float16"]),
    seed=st.integers(0, 2**32 - 1),
)
def test_a_reorder_through_ze_execute_moves_the_data(ze_engine, ze_stream, rows, cols, dtype, seed):
    array = np.random.default_rng(seed).integers(-100, 100, (rows, cols)).astype(dtype)
    np.testing.assert_array_equal(execute_reorder(ze_engine, ze_stream, array), array.T)


@pytest.mark.parametrize(
    "deps", [(), [fresh(ze.Event)], [fresh(ze.Event), int(fresh(ze.Event)), NativeHandle(0x10)]],
    ids=["none", "one", "three"],
)
def test_execute_with_deps_returns_no_event(ze_engine, ze_stream, deps):
    """Even on a list made without the in-order flag, the event is NULL."""
    array = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(execute_reorder(ze_engine, ze_stream, array, deps), array.T)


def test_execute_refuses_a_primitive_of_another_engine(ze_engine, ze_stream, ze_handles):
    desc = dnnl.MemoryDesc((2, 2), "f32", "ab")
    with ze.make_engine(*ze_handles) as other, dnnl.reorder(desc, desc, other) as primitive:
        with ze.make_memory(desc, ze_engine) as src, ze.make_memory(desc, ze_engine) as dst:
            with pytest.raises(dnnl.InvalidArgumentsError, match="stream: on another engine than the primitive"):
                ze.execute(primitive, ze_stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})


def test_execute_refuses_a_generic_stream_of_a_cpu_engine(ze_engine, standin_dnnl):
    desc = dnnl.MemoryDesc((2, 2), "f32", "ab")
    with dnnl.Engine.cpu() as cpu, dnnl.Stream(cpu) as stream, dnnl.reorder(desc, desc, cpu) as primitive:
        with pytest.raises(dnnl.InvalidArgumentsError, match="stream: a stream of a CPU or SYCL engine; it needs a stream of a Level Zero engine"):
            ze.execute(primitive, stream, {})


# cache blob (test_persistent_cache_api.cpp)


def test_the_cache_blob_is_non_empty_and_stable(ze_engine):
    blob = ze.get_engine_cache_blob(ze_engine)
    assert type(blob) is bytes and len(blob) > 0
    assert ze.get_engine_cache_blob(ze_engine) == blob


def test_an_engine_made_from_the_cache_blob_has_the_same_blob(ze_engine, ze_handles):
    blob = ze.get_engine_cache_blob(ze_engine)
    blob_id = ze.get_engine_cache_blob_id(ze_handles[0], ze_handles[1])
    with ze.make_engine(*ze_handles, cache_blob=blob) as engine:
        assert ze.get_engine_cache_blob(engine) == blob
        assert (ze.get_driver(engine), ze.get_device(engine), ze.get_context(engine)) == ze_handles
        array = np.arange(12, dtype=np.float32).reshape(3, 4)
        with ze.make_stream(engine, fresh(ze.CommandList)) as stream:
            np.testing.assert_array_equal(execute_reorder(engine, stream, array), array.T)
    assert ze.get_engine_cache_blob_id(ze_handles[0], ze_handles[1]) == blob_id


@pytest.mark.parametrize("kind", [bytes, bytearray, memoryview, lambda b: np.frombuffer(b, np.uint8)])
def test_the_first_engine_of_a_device_takes_the_blob_verbatim(standin_dnnl, ze_handles, kind):
    """Nothing checks a blob: for an uncached device it becomes the device info."""
    blob = b"any bytes at all \x00\x01\x02"
    with ze.make_engine(*ze_handles, cache_blob=kind(blob)) as engine:
        assert ze.get_engine_cache_blob(engine) == blob


def test_a_cached_device_ignores_the_blob_given(ze_engine, ze_handles):
    cached = ze.get_engine_cache_blob(ze_engine)
    with ze.make_engine(*ze_handles, cache_blob=b"ignored") as engine:
        assert ze.get_engine_cache_blob(engine) == cached


def test_the_cache_blob_id_is_deterministic(standin_dnnl, ze_handles):
    driver, device, _ = ze_handles
    blob_id = ze.get_engine_cache_blob_id(driver, device)
    assert type(blob_id) is bytes and len(blob_id) > 0
    assert ze.get_engine_cache_blob_id(driver, device) == blob_id
    assert ze.get_engine_cache_blob_id(int(driver), device.ptr) == blob_id
    assert ze.get_engine_cache_blob_id(driver, fresh(ze.Device)) != blob_id


def test_the_cache_blob_is_kept_by_oneDNN_not_by_the_engine(standin_dnnl, ze_handles):
    blob = bytearray(b"stand-in device info")
    with ze.make_engine(*ze_handles, cache_blob=blob) as engine:
        blob[:] = bytes(len(blob))  # the caller may reuse its buffer at once
        assert ze.get_engine_cache_blob(engine) == b"stand-in device info"


# --- a oneDNN without the Level Zero API ---------------------------------------------------

# Every ze function, called with dummy arguments, and the C function it needs.
_MISSING_SCRIPT = textwrap.dedent(
    """
    import json
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
    src, dst = dnnl.Memory(desc, engine, array), dnnl.Memory(out_desc, engine, out)
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
        "version": str(library.version),
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
        [sys.executable, "-c", _MISSING_SCRIPT], env=env, capture_output=True, text=True, timeout=300
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
