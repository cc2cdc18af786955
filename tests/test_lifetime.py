"""Lifetimes: work in flight owns what it uses; copies and re-initialisation
never share a handle.

Execution is asynchronous. The cases that would crash the interpreter if the
binding got this wrong run in child processes (a 4096x4096 reorder is still
running when Python drops its objects), and check the data as well as the
exit status. ``tests/test_ownership_counted.py`` measures the same rules in
C, with a library that counts every create and destroy.
"""

from __future__ import annotations

import copy
import gc
import os
import pickle
import signal
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import dnnl_interop as dnnl

PRELUDE = """
import gc, sys, threading
import numpy
import dnnl_interop as dnnl

N = 4096  # large enough that the reorder is still running when execute returns

def reorder_objects(engine):
    a = numpy.arange(N * N, dtype=numpy.float32).reshape(N, N)
    out = numpy.zeros_like(a)
    src = dnnl.Memory(dnnl.MemoryDesc(a.shape, a.dtype, "ab"), engine, a)
    dst = dnnl.Memory(dnnl.MemoryDesc(a.shape, a.dtype, "ba"), engine, out.T)
    primitive = dnnl.reorder(src.desc, dst.desc, engine)
    return a, out, src, dst, primitive

def check(a, out):
    assert numpy.array_equal(out.T, a), "wrong data"
"""


def run_child(body: str, timeout: float = 120) -> str:
    """Run ``body`` after PRELUDE in a fresh interpreter; its stdout.

    Fails on a non-zero exit, naming the signal if one killed it.
    """
    code = PRELUDE + textwrap.dedent(body)
    try:
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, env=os.environ.copy()
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"the child hung for {timeout} s")
    if done.returncode < 0:
        pytest.fail(f"the child died of {signal.Signals(-done.returncode).name}:\n{done.stderr[-3000:]}")
    assert done.returncode == 0, f"child failed ({done.returncode}):\n{done.stderr[-3000:]}"
    return done.stdout


def test_execute_in_a_function_then_wait_outside_it():
    out = run_child(
        """
        engine = dnnl.Engine.cpu(); stream = dnnl.Stream(engine)
        def step():
            a, out, src, dst, primitive = reorder_objects(engine)
            primitive.execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
            return a, out   # the memories, descriptors and primitive are dropped here
        for _ in range(3):
            a, out = step()
            gc.collect()
            stream.wait()
            check(a, out)
        print("ok")
        """
    )
    assert out.strip() == "ok"


def test_a_temporary_primitive_and_dropped_arrays_stay_alive_until_wait():
    out = run_child(
        """
        engine = dnnl.Engine.cpu(); stream = dnnl.Stream(engine)
        a, out, src, dst, primitive = reorder_objects(engine)
        del primitive
        copy_of_a = a.copy()
        del a   # the source array now lives only through its Memory
        dnnl.reorder(src.desc, dst.desc, engine).execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
        del src, dst
        gc.collect()
        stream.wait()
        check(copy_of_a, out)
        print(dnnl._owned.live_objects())
        """
    )
    assert out.strip() == "2"  # only the engine and the stream are left


@pytest.mark.parametrize("closed", ["primitive", "src", "dst", "stream", "engine"])
def test_closing_right_after_execute_finishes_the_work_first(closed):
    out = run_child(
        f"""
        engine = dnnl.Engine.cpu(); stream = dnnl.Stream(engine)
        a, out, src, dst, primitive = reorder_objects(engine)
        primitive.execute(stream, {{dnnl.ARG_FROM: src, dnnl.ARG_TO: dst}})
        {closed}.close()
        assert {closed}.closed
        if not stream.closed:
            stream.wait()
        check(a, out)
        print("ok")
        """
    )
    assert out.strip() == "ok"


def test_exiting_with_work_in_flight_finishes_it():
    out = run_child(
        """
        engine = dnnl.Engine.cpu(); stream = dnnl.Stream(engine)
        a, out, src, dst, primitive = reorder_objects(engine)
        primitive.execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
        del a, out, src, dst, primitive
        print("exiting")
        """
    )
    assert out.strip() == "exiting"


def test_a_daemon_thread_executing_at_exit_neither_crashes_nor_hangs():
    out = run_child(
        """
        engine = dnnl.Engine.cpu(); stream = dnnl.Stream(engine)
        started = threading.Event()
        def work():
            a = numpy.ones((512, 512), numpy.float32); out = numpy.empty_like(a)
            src = dnnl.Memory(dnnl.MemoryDesc(a.shape, a.dtype, "ab"), engine, a)
            dst = dnnl.Memory(dnnl.MemoryDesc(a.shape, a.dtype, "ba"), engine, out.T)
            primitive = dnnl.reorder(src.desc, dst.desc, engine)
            while True:
                primitive.execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
                started.set()
        threading.Thread(target=work, daemon=True).start()
        started.wait()
        print("exiting")
        """,
        timeout=60,
    )
    assert out.strip() == "exiting"


def test_changing_the_data_handle_after_execute_does_not_redirect_queued_work():
    out = run_child(
        """
        engine = dnnl.Engine.cpu(); stream = dnnl.Stream(engine)
        a, out, src, dst, primitive = reorder_objects(engine)
        other = numpy.zeros_like(out)
        primitive.execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
        dst.set_data_handle(other.T)   # waits for the work that writes the old buffer
        stream.wait()
        check(a, out)
        assert not other.any(), "the queued work wrote to the new buffer"
        print("ok")
        """
    )
    assert out.strip() == "ok"


# --- copies -------------------------------------------------------------------


@pytest.fixture
def objects(real_dnnl):
    engine = dnnl.Engine.cpu()
    stream = dnnl.Stream(engine)
    desc = dnnl.MemoryDesc((2, 3), "f32", "ab")
    memory = dnnl.Memory(desc, engine)
    primitive = dnnl.reorder(desc, dnnl.MemoryDesc((2, 3), "f32", "ba"), engine)
    yield {"engine": engine, "stream": stream, "memory": memory, "primitive": primitive}
    for obj in (primitive, memory, stream, engine, desc):
        obj.close()


@pytest.mark.parametrize("name", ["engine", "stream", "memory", "primitive"])
@pytest.mark.parametrize("copier", [copy.copy, copy.deepcopy, pickle.dumps], ids=["copy", "deepcopy", "pickle"])
def test_an_owning_object_refuses_to_be_copied(objects, name, copier):
    with pytest.raises(TypeError, match=f"a {name.capitalize()} owns a oneDNN handle"):
        copier(objects[name])


@pytest.mark.parametrize("copier", [copy.copy, copy.deepcopy, lambda d: pickle.loads(pickle.dumps(d))])
def test_a_memory_descriptor_copies_into_an_independent_descriptor(real_dnnl, copier):
    with dnnl.MemoryDesc((4, 5), "f32", "ba") as desc:
        twin = copier(desc)
        assert twin.handle != desc.handle
        assert (twin.shape, twin.data_type, twin.tag, twin.size) == ((4, 5), dnnl.DataType.F32, "ba", 80)
    assert twin.size == 80  # closing the original left the copy intact
    twin.close()


def test_initialising_an_object_twice_is_refused(real_dnnl):
    with dnnl.Engine.cpu() as engine, dnnl.Stream(engine) as stream:
        with pytest.raises(RuntimeError, match="already initialised"):
            stream.__init__(engine)
        with pytest.raises(RuntimeError, match="already initialised"):
            engine.__init__()


# --- host buffers ----------------------------------------------------------------


@pytest.fixture
def cpu_engine(real_dnnl):
    with dnnl.Engine.cpu() as engine:
        yield engine


def _memory(engine, buffer, shape=(2, 3), dtype="f32"):
    with dnnl.MemoryDesc(shape, dtype, "ab") as desc:
        return dnnl.Memory(desc, engine, buffer)


@pytest.mark.parametrize(
    ("buffer", "error", "message"),
    [
        (np.zeros((2, 3), np.float64), ValueError, "float64 items, the descriptor holds float32"),
        (np.zeros((2, 3), np.int32), ValueError, "int32 items, the descriptor holds float32"),
        (np.zeros((2, 3), ">f4"), ValueError, "byte order"),
        (np.zeros((2, 3), object), ValueError, "object items"),
        (np.zeros(5, np.float32), ValueError, "20 bytes, the descriptor needs 24"),
        (np.zeros((3, 4), np.float32)[:, ::2], ValueError,
         r"an array of shape \(3, 2\) for a descriptor of shape \(2, 3\)"),
        (np.zeros((2, 3), np.float32).T, ValueError, r"an array of shape \(3, 2\) for a descriptor of shape \(2, 3\)"),
        (bytes(24), ValueError, "read-only"),
        (0x1000, TypeError, "an int address has no size"),
        (__import__("fractions").Fraction(4096), TypeError, "an int address has no size|expected a buffer"),
        (__import__("decimal").Decimal(4096), TypeError, "expected a buffer"),
        (1.5, TypeError, "expected a buffer"),
        ("twenty-four bytes, no...", TypeError, "expected a buffer"),
        ([0.0] * 6, TypeError, "expected a buffer"),
    ],
    ids=["float64", "int32", "big-endian", "object", "small", "strided", "transposed", "bytes", "int",
         "Fraction", "Decimal", "float", "str", "list"],
)
def test_a_host_buffer_is_checked_against_the_descriptor(cpu_engine, buffer, error, message):
    with pytest.raises(error, match=f"^buffer: .*({message})"):
        _memory(cpu_engine, buffer)


def test_device_memory_is_never_taken_for_host_memory(cpu_engine, cl, pocl_device):
    context = cl.Context([pocl_device])
    buffer = cl.Buffer(context, cl.mem_flags.READ_WRITE, 24)
    with pytest.raises(TypeError, match=r"^buffer: a pyopencl.Buffer is a device memory handle"):
        _memory(cpu_engine, buffer)


def test_a_cffi_array_is_checked_by_its_size_and_a_bare_pointer_refused(cpu_engine):
    from dnnl_interop._ffi import ffi

    with pytest.raises(ValueError, match=r"^buffer: 20 bytes, the descriptor needs 24"):
        _memory(cpu_engine, ffi.new("float[]", 5))
    with pytest.raises(TypeError, match=r"^buffer: a cffi float \* has no size to check"):
        _memory(cpu_engine, ffi.cast("float *", 0x1000))
    array = ffi.new("float[]", 6)
    with _memory(cpu_engine, array) as memory:
        assert memory.data_handle == int(ffi.cast("uintptr_t", array))


def test_an_unchecked_pointer_is_the_named_way_to_pass_an_address(cpu_engine):
    array = np.arange(6, dtype=np.float32)
    with _memory(cpu_engine, dnnl.UncheckedPointer(array.ctypes.data)) as memory:
        assert memory.data_handle == array.ctypes.data
    with pytest.raises(ValueError, match=r"^address: .* is not a valid address"):
        dnnl.UncheckedPointer(-1)
    with pytest.raises(TypeError, match=r"^address: expected an int address, got float"):
        dnnl.UncheckedPointer(1.0)


def test_types_numpy_cannot_name_take_their_raw_bits(cpu_engine):
    bits = np.zeros((2, 3), np.uint16)
    with _memory(cpu_engine, bits, dtype="bf16") as memory:
        assert memory.data_handle == bits.ctypes.data
    with pytest.raises(ValueError, match="raw bits as unsigned integers"):
        _memory(cpu_engine, np.zeros((2, 3), np.float16), dtype="bf16")


def test_memory_allocate_is_only_for_creation(cpu_engine):
    with _memory(cpu_engine, dnnl.MEMORY_ALLOCATE) as memory:
        with pytest.raises(ValueError, match=r"^buffer: MEMORY_ALLOCATE only applies when a memory is created"):
            memory.set_data_handle(dnnl.MEMORY_ALLOCATE)


@pytest.mark.parametrize(
    ("shape", "error", "message"),
    [
        ((2.7, 3.9), TypeError, r"shape\[0\]: expected an int, got float"),
        (("2", 3), TypeError, r"shape\[0\]: expected an int, got str"),
        ((True, 3), TypeError, r"shape\[0\]: expected an int, got bool"),
        ((2, -3), ValueError, r"shape\[1\]: -3 is not a dimension"),
        (5, TypeError, "shape: expected a sequence of ints"),
        ((), ValueError, "shape: a shape has 1 to 12 dimensions, not 0"),
    ],
)
def test_a_shape_is_integers(real_dnnl, shape, error, message):
    with pytest.raises(error, match=f"^{message}"):
        dnnl.MemoryDesc(shape, "f32", "ab")


def test_numpy_integers_are_integers(real_dnnl):
    with dnnl.MemoryDesc((np.int64(2), np.uint8(3)), "f32", "ab") as desc:
        assert desc.shape == (2, 3)


# --- messages that name the argument ------------------------------------------------


def test_messages_name_the_argument(cpu_engine):
    with pytest.raises(ValueError, match=r"^index: -1 is not a valid index"):
        dnnl.Engine(dnnl.EngineKind.CPU, -1)
    with pytest.raises(TypeError, match=r"^kind: expected EngineKind, got str"):
        dnnl.Engine("cpu")
    with dnnl.Stream(cpu_engine) as stream, dnnl.MemoryDesc((2, 2), "f32", "ab") as desc:
        with dnnl.reorder(desc, desc, cpu_engine) as primitive, dnnl.Memory(desc, cpu_engine) as memory:
            with pytest.raises(ValueError, match=r"^args: 1099511627776 is not an ARG_\* index"):
                primitive.execute(stream, {2**40: memory})
            with pytest.raises(TypeError, match=r"^args: keys are ARG_\* indices"):
                primitive.execute(stream, {"from": memory})


def test_a_numpy_array_is_never_taken_for_a_handle(real_dnnl):
    from dnnl_interop import ocl

    for array in (np.array([5]), np.zeros(3), np.array(7)):
        with pytest.raises(TypeError, match=r"^device: expected a cl_device_id .* got a numpy.ndarray"):
            ocl.get_engine_cache_blob_id(array)


def test_an_object_finalized_while_another_thread_holds_the_lock_is_still_destroyed(real_dnnl):
    # A finalizer never blocks; when the binding's lock is taken by another
    # thread it leaves the handle to the next thread that takes the lock.
    live = dnnl._owned.live_objects()
    desc = dnnl.MemoryDesc((4, 4), "float32", "ab")
    taken, release = threading.Event(), threading.Event()

    def hold_the_lock():
        with dnnl._owned.Owned._shared.lock:
            taken.set()
            release.wait(10)

    holder = threading.Thread(target=hold_the_lock)
    holder.start()
    assert taken.wait(10)
    del desc  # finalized here, while the other thread holds the lock
    gc.collect()
    release.set()
    holder.join(10)
    assert dnnl._owned.live_objects() == live
