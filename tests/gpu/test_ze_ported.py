"""The Level Zero cases the test-only stand-in used to answer, on real oneDNN, emulated GPU.

tests/test_ze.py ran these against ``tests/standin``, whose Level Zero
handles were opaque fakes. Each case here had no counterpart in the other
``test_ze_*.py`` modules. Where real oneDNN disagreed with the stand-in, the
case pins what oneDNN does (tests/standin/README.md lists the disagreements).
Driver, device, context, command lists, events and USM come from the
emulated Level Zero loader.
"""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import dnnl_interop as dnnl
from dnnl_interop import ze
from dnnl_interop._ffi import ffi
from dnnl_interop.testing import emulated_level_zero as emulated

# At collection, before any test of the session can start SYCL.
emulated.enable()

# Bytes that are no serialised device info: oneDNN reads no blob it is given
# for a device it has not described yet, it keeps it as the description.
# Laid out as oneDNN 3.13 lays out an engine cache blob (the binding refuses
# anything else before oneDNN parses it), describing no real device.
ANY_BLOB = bytes(102) + (9).to_bytes(8, "little") + b"any name\0"


class NativeHandle:
    """A Python wrapper of a native handle, as a Level Zero binding would have:
    it exposes ``int_ptr`` and would free the native object when collected."""

    def __init__(self, address: int):
        self.int_ptr = address


RUNTIME = "ze"  # the engine and stream fixtures (conftest.py) are Level Zero ones


def _transpose(engine, stream, lz, source: np.ndarray, deps=()) -> np.ndarray:
    """``ze.execute`` an ab -> ba reorder of ``source`` through shared USM; the output."""
    desc = dnnl.MemoryDesc(source.shape, source.dtype, "ab")
    out_desc = dnnl.MemoryDesc(source.shape, source.dtype, "ba")
    src, dst = lz.shared(source.shape, source.dtype), lz.shared(source.shape[::-1], source.dtype)
    src.array[:] = source
    dst.array[:] = 0
    with (
        dnnl.reorder(desc, out_desc, engine) as primitive,
        ze.make_memory(desc, engine, src.array) as src_memory,
        ze.make_memory(out_desc, engine, dst.array.T) as dst_memory,
    ):
        event = ze.execute(primitive, stream, {dnnl.ARG_FROM: src_memory, dnnl.ARG_TO: dst_memory}, deps)
        stream.wait()
    assert event is None  # oneDNN 3.13 reports no event on interop streams
    return dst.array.copy()


# --- engines ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "form",
    [lambda h: h, lambda h: ffi.cast("void *", int(h)), lambda h: NativeHandle(int(h))],
    ids=["value", "void-pointer", "int_ptr"],
)
def test_every_handle_form_reaches_oneDNN_as_the_same_handle(lz, form):
    # int and typed cffi pointers: tests/gpu/test_ze_engine.py.
    with ze.make_engine(form(lz.driver), form(lz.device), form(lz.context)) as made:
        assert (ze.get_driver(made), ze.get_device(made), ze.get_context(made)) == (lz.driver, lz.device, lz.context)


def test_a_device_level_zero_did_not_enumerate_is_refused_by_oneDNN(lz):
    # The stand-in took any non-NULL handles; oneDNN compares the device with
    # what zeDeviceGet lists before handing it to Level Zero. (It does not do
    # so for the driver or the context: those reach Level Zero unchecked.)
    with pytest.raises(dnnl.InvalidArgumentsError, match="dnnl_ze_interop_engine_create"):
        ze.make_engine(lz.driver, 0x1000, lz.context)  # not an object of the loader, and never read


def test_the_engine_keeps_the_objects_it_was_given_until_it_closes(lz):
    given_objects = [NativeHandle(int(h)) for h in (lz.driver, lz.device, lz.context)]
    refs = [weakref.ref(obj) for obj in given_objects]
    made = ze.make_engine(*given_objects)
    del given_objects
    gc.collect()
    assert all(ref() is not None for ref in refs)  # held while the engine lives
    assert ze.get_context(made) == lz.context
    made.close()
    gc.collect()
    assert all(ref() is None for ref in refs)  # released when it closes


def test_the_engine_keeps_its_objects_until_collected_too(lz):
    context = NativeHandle(int(lz.context))
    ref = weakref.ref(context)
    made = ze.make_engine(lz.driver, lz.device, context)
    del context
    gc.collect()
    assert ref() is not None
    del made
    gc.collect()
    assert ref() is None


# --- streams and memory -----------------------------------------------------------------


def test_a_stream_and_a_memory_report_the_engine_and_descriptor_they_were_made_with(lz, engine):
    desc = dnnl.MemoryDesc((3, 5), "f32", "ab")
    with ze.make_stream(engine, lz.new_command_list()) as made_stream:
        assert made_stream.engine is engine
    with ze.make_memory(desc, engine) as memory:
        assert memory.desc is desc and memory.engine is engine


def test_the_stream_keeps_its_engine_and_list_object_until_it_closes(lz):
    made = ze.make_engine(lz.driver, lz.device, lz.context)
    command_list = NativeHandle(int(lz.command_list))
    refs = weakref.ref(made), weakref.ref(command_list)
    made_stream = ze.make_stream(made, command_list)
    del made, command_list
    gc.collect()
    assert all(ref() is not None for ref in refs)
    data = np.arange(6 * 4, dtype=np.float32).reshape(6, 4)
    np.testing.assert_array_equal(_transpose(made_stream.engine, made_stream, lz, data), data.T)
    made_stream.close()
    gc.collect()
    assert refs[1]() is None  # the list wrapper is released with the stream
    assert refs[0]() is None  # and so is the engine nothing else holds


def test_a_stream_made_without_a_list_gets_a_command_list_of_its_own(lz, engine):
    # The stand-in's dnnl_stream_create gave a Level Zero engine a stream
    # without a list; oneDNN creates one on the engine's context.
    with dnnl.Stream(engine) as own:
        command_list = ze.get_list(own)
        assert command_list and command_list != lz.command_list
        data = np.arange(5 * 7, dtype=np.float32).reshape(5, 7)
        np.testing.assert_array_equal(_transpose(engine, own, lz, data), data.T)


@pytest.mark.parametrize("handles", [[dnnl.MEMORY_ALLOCATE], (dnnl.MEMORY_ALLOCATE,)], ids=["list", "tuple"])
def test_allocate_in_a_one_handle_sequence_gives_device_usm(lz, engine, handles):
    # MEMORY_ALLOCATE itself, [] and the default: tests/gpu/test_ze_memory.py.
    with ze.make_memory(dnnl.MemoryDesc((3, 5), "f32", "ab"), engine, handles) as memory:
        assert memory.data_handle != 0
        assert lz.memory_type(memory.data_handle) == "device"


@pytest.mark.parametrize("none", [None, [None]], ids=["None", "list"])
def test_none_gives_no_buffer(engine, none):
    # MEMORY_NONE itself: tests/gpu/test_ze_memory.py.
    with ze.make_memory(dnnl.MemoryDesc((3, 5), "f32", "ab"), engine, none) as memory:
        assert memory.data_handle == 0


@given(address=st.integers(1, 2**64 - 2))
def test_an_address_that_is_not_usm_is_refused_by_oneDNN(engine, address):
    # The stand-in used any address as-is; oneDNN asks zeMemGetAllocProperties
    # and refuses memory Level Zero did not allocate (without reading it).
    with pytest.raises(dnnl.InvalidArgumentsError, match="dnnl_ze_interop_memory_create"):
        ze.make_memory(dnnl.MemoryDesc((2, 2), "f32", "ab"), engine, address)


def test_a_numpy_view_of_usm_is_used_in_place_and_kept_alive(lz, engine):
    usm = lz.shared((2, 3), "float32")
    view = usm.array[:]
    ref = weakref.ref(view)
    memory = ze.make_memory(dnnl.MemoryDesc((2, 3), "f32", "ab"), engine, view)
    del view
    gc.collect()
    assert ref() is not None and memory.data_handle == usm.address
    del memory
    gc.collect()
    assert ref() is None


def test_a_pointer_object_is_kept_alive_with_the_memory(lz, engine):
    usm = lz.shared(4, "float32")
    pointer = NativeHandle(usm.address)
    ref = weakref.ref(pointer)
    memory = ze.make_memory(dnnl.MemoryDesc((4,), "f32", "a"), engine, [pointer])
    del pointer
    gc.collect()
    assert ref() is not None and memory.data_handle == usm.address
    del memory
    gc.collect()
    assert ref() is None


def test_closing_the_memory_releases_the_buffer(lz, engine):
    usm = lz.shared(4, "float32")
    view = usm.array[:]
    ref = weakref.ref(view)
    memory = ze.make_memory(dnnl.MemoryDesc((4,), "f32", "a"), engine, view)
    del view
    memory.close()
    gc.collect()
    assert ref() is None
    usm.close()  # nothing holds the allocation any more
    assert usm.closed


# --- execution -------------------------------------------------------------------------


@given(
    rows=st.integers(1, 9),
    cols=st.integers(1, 9),
    dtype=st.sampled_from(["float32", "int8", "uint8", "int32", "float16"]),
    seed=st.integers(0, 2**32 - 1),
)
def test_a_reorder_through_ze_execute_moves_the_data(lz, engine, stream, rows, cols, dtype, seed):
    array = np.random.default_rng(seed).integers(-100, 100, (rows, cols)).astype(dtype)
    np.testing.assert_array_equal(_transpose(engine, stream, lz, array), array.T)


@pytest.mark.parametrize("form", [lambda e: e, lambda e: ze.Event(int(e)), int, lambda e: NativeHandle(int(e))],
                         ids=["emulated-event", "value", "int", "int_ptr"])
def test_execute_with_deps_in_every_handle_form_returns_no_event(lz, engine, stream, form):
    pool = lz.event_pool(3)
    events = [pool.event() for _ in range(3)]
    for event in events:
        event.signal()
    array = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(_transpose(engine, stream, lz, array, [form(e) for e in events]), array.T)


def test_a_primitive_of_another_engine_is_refused_naming_the_stream(lz, engine, stream):
    desc = dnnl.MemoryDesc((2, 2), "f32", "ab")
    with (
        ze.make_engine(lz.driver, lz.device, lz.context) as other,
        dnnl.reorder(desc, desc, other) as primitive,
        ze.make_memory(desc, engine) as src,
        ze.make_memory(desc, engine) as dst,
        pytest.raises(dnnl.InvalidArgumentsError, match="stream: on another engine than the primitive"),
    ):
        ze.execute(primitive, stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})


# --- cache blobs ------------------------------------------------------------------------


def test_an_engine_made_from_its_cache_blob_reports_its_handles_and_runs_a_reorder(lz, engine):
    blob = ze.get_engine_cache_blob(engine)
    blob_id = ze.get_engine_cache_blob_id(lz.driver, lz.device)
    with ze.make_engine(lz.driver, lz.device, lz.context, cache_blob=blob) as restored:
        assert ze.get_engine_cache_blob(restored) == blob
        assert (ze.get_driver(restored), ze.get_device(restored), ze.get_context(restored)) == (
            lz.driver, lz.device, lz.context)
        array = np.arange(12, dtype=np.float32).reshape(3, 4)
        with ze.make_stream(restored, lz.new_command_list()) as restored_stream:
            np.testing.assert_array_equal(_transpose(restored, restored_stream, lz, array), array.T)
    assert ze.get_engine_cache_blob_id(lz.driver, lz.device) == blob_id


def test_the_blob_id_is_the_same_for_every_handle_form(lz):
    blob_id = ze.get_engine_cache_blob_id(lz.driver, lz.device)
    assert ze.get_engine_cache_blob_id(int(lz.driver), lz.device.ptr) == blob_id
    assert ze.get_engine_cache_blob_id(NativeHandle(int(lz.driver)), ffi.cast("void *", int(lz.device))) == blob_id


_BLOB_KINDS = {
    "bytes": bytes,
    "bytearray": bytearray,
    "memoryview": memoryview,
    "numpy": lambda blob: np.frombuffer(blob, np.uint8),
}


def _first_engine_blob(kind: str) -> bytes:
    """In a new process: the blob of its first engine, made from ``ANY_BLOB`` given as ``kind``."""
    lz = emulated.enable()
    with ze.make_engine(lz.driver, lz.device, lz.context, cache_blob=_BLOB_KINDS[kind](ANY_BLOB)) as made:
        return ze.get_engine_cache_blob(made)


def _blob_after_the_caller_reuses_its_buffer() -> bytes:
    """In a new process: the first engine's blob once the caller has zeroed the buffer it gave."""
    lz = emulated.enable()
    blob = bytearray(ANY_BLOB)
    with ze.make_engine(lz.driver, lz.device, lz.context, cache_blob=blob) as made:
        blob[:] = bytes(len(blob))  # the caller may reuse its buffer at once
        return ze.get_engine_cache_blob(made)


@pytest.mark.parametrize("kind", sorted(_BLOB_KINDS))
def test_the_first_engine_of_a_device_takes_the_blob_verbatim(kind):
    # Nothing checks a blob: in a process that has not described the device
    # yet, whatever bytes are given become its description.
    assert emulated.run_in_child(_first_engine_blob, kind) == ANY_BLOB


def test_the_cache_blob_is_kept_by_oneDNN_not_by_the_engine():
    assert emulated.run_in_child(_blob_after_the_caller_reuses_its_buffer) == ANY_BLOB
