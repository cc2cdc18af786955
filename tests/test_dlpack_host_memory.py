"""A memory of the CPU engine over a host tensor, made and dropped in one C call each.

``from_dlpack(x, engine=...)`` and ``Memory.from_array(array, engine)`` of a
writable host tensor whose layout the binding has made a descriptor for
before take one C call (``csrc/host_memory.c``) that makes the same memory
the Python path makes: the same fields, the same bookkeeping, the producer's
tensor kept until the handle is destroyed and its deleter called once then.
A memory nothing else uses is closed by a C finalizer; any other (viewed,
in flight, dropped while another thread holds the shared lock) by Owned's,
with every rule of ``_owned`` kept. Anything unusual takes the Python path.
"""

from __future__ import annotations

import gc
import sys
import threading
import time

import numpy as np
import pytest

import dnnl_interop as dnnl
from dnnl_interop import _dlpack, _memory, _owned
from test_dlpack import Producer, capsule_name


def is_one_c_call(memory: dnnl.Memory) -> bool:
    """Whether the memory was made by the C path: it keeps the tensor in a capsule of its own."""
    kept = memory._keep[2]
    return type(kept).__name__ == "PyCapsule" and capsule_name(kept).startswith("dnnl_interop.taken")


def known_layout(engine, array: np.ndarray) -> None:
    """Make the binding remember the layout of ``array`` (the first memory of a layout takes Python)."""
    dnnl.from_dlpack(array, engine=engine).close()


def one_c_call_memory(engine):
    """(data, its producer, a memory the C path made over the producer's tensor)."""
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    known_layout(engine, data)
    producer = Producer(data)
    memory = dnnl.from_dlpack(producer, engine=engine)
    assert is_one_c_call(memory)
    return data, producer, memory


def test_a_host_tensor_of_a_known_layout_takes_one_c_call(engine):
    array = np.arange(12, dtype=np.float32).reshape(3, 4)
    first = dnnl.from_dlpack(array, engine=engine)  # the Python path: the layout is new
    capsule = array.__dlpack__(max_version=(1, 1))
    memory = _memory.over_capsule(capsule, engine)
    assert memory is not None and is_one_c_call(memory)
    assert capsule_name(capsule) == "used_dltensor_versioned"  # taken: the consumer owns the tensor
    # The fields the Python path sets, alike.
    assert memory._layout is first._layout and memory._size == first._size == 48
    assert memory._plain == first._plain == ((3, 4), dnnl.DataType.F32, (4, 1))
    assert memory._executable is memory._handle and memory.data_handle == array.ctypes.data
    assert not memory._read_only and not memory._repointing and not memory.borrowed
    assert memory._keep[0] is None and memory.engine is engine and memory.desc == first.desc
    assert _owned.holder_of(memory.int_ptr) == (True, memory)
    assert not (memory._in_flight or memory._calls or memory._dependents or memory._views or memory._holds)
    np.testing.assert_array_equal(np.asarray(memory), array)
    first.close()
    memory.close()


def test_from_dlpack_and_from_array_take_it(engine):
    array = np.arange(6, dtype=np.float32).reshape(2, 3)
    known_layout(engine, array)
    for memory in (dnnl.from_dlpack(array, engine=engine), dnnl.Memory.from_array(array, engine)):
        assert is_one_c_call(memory) and memory.data_handle == array.ctypes.data
        memory.close()


def test_without_an_engine_it_takes_the_shared_cpu_engine(real_dnnl):
    array = np.arange(6, dtype=np.float32)
    first = dnnl.from_dlpack(array)
    second = dnnl.from_dlpack(array)
    assert is_one_c_call(second) and second.engine is first.engine
    first.close()
    second.close()


@pytest.mark.parametrize("versioned", [True, False])
def test_the_producers_deleter_is_called_once_as_the_dropped_memory_goes(engine, versioned):
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    known_layout(engine, data)
    producer = Producer(data, versioned=versioned)
    live = _owned.live_objects()
    memory = dnnl.from_dlpack(producer, engine=engine)
    assert is_one_c_call(memory) and _owned.live_objects() == live + 1
    assert capsule_name(producer.capsule) == ("used_dltensor_versioned" if versioned else "used_dltensor")
    address = memory.int_ptr
    del producer.capsule  # a taken capsule leaves the tensor to its consumer
    gc.collect()
    assert producer.deleted == 0
    del memory  # nothing else uses it: closed by the C finalizer at once, without a collection
    assert producer.deleted == 1 and _owned.live_objects() == live
    assert _owned.holder_of(address) == (False, None)
    gc.collect()
    assert producer.deleted == 1


def test_a_view_keeps_the_dropped_memorys_handle_until_it_goes(engine):
    data, producer, memory = one_c_call_memory(engine)
    view = np.asarray(memory)
    memory.close()  # a view uses the handle: destroyed when it goes
    del memory, producer.capsule
    gc.collect()
    assert producer.deleted == 0
    np.testing.assert_array_equal(view, data)
    del view
    gc.collect()
    assert producer.deleted == 1


def test_a_dropped_memory_in_flight_lives_until_the_wait(engine, stream):
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = np.zeros_like(data)
    known_layout(engine, data)
    producer = Producer(data)
    src = dnnl.from_dlpack(producer, engine=engine)
    dst = dnnl.Memory.from_array(out, engine)
    assert is_one_c_call(src) and is_one_c_call(dst)
    primitive = dnnl.reorder(src.desc, dst.desc, engine)
    primitive.execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
    del src, dst, producer.capsule  # the stream's ledger keeps them until the wait
    gc.collect()
    assert producer.deleted == 0
    stream.wait()
    gc.collect()
    assert producer.deleted == 1
    np.testing.assert_array_equal(out, data)
    primitive.close()


def test_a_drop_while_another_thread_holds_the_shared_lock_is_left_to_the_next(engine):
    _, producer, memory = one_c_call_memory(engine)
    live = _owned.live_objects()
    taken, done = threading.Event(), threading.Event()

    def hold() -> None:
        with _owned.shared.lock:
            taken.set()
            done.wait(30)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert taken.wait(30)
        del memory  # a finalizer never waits: the memory is left for the next thread to take the lock
        assert producer.deleted == 0 and len(_owned.shared.finalized) == 1
    finally:
        done.set()
        holder.join()
    assert _owned.live_objects() == live - 1  # closes what finalizers left
    del producer.capsule
    gc.collect()
    assert producer.deleted == 1 and not _owned.shared.finalized


def test_a_capsule_another_thread_takes_while_the_call_waits_is_left_to_it(engine):
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    known_layout(engine, data)
    producer = Producer(data)
    capsule = producer.__dlpack__()
    made: list[object] = []
    with _owned.shared.lock:  # the call waits for it, the GIL let go
        caller = threading.Thread(target=lambda given: made.append(_memory.over_capsule(given, engine)),
                                  args=(capsule,))
        caller.start()
        time.sleep(0.2)
        taken = _dlpack.take(capsule, "x")  # meanwhile, another consumer takes the capsule
    caller.join()
    assert made == [None]  # checked again before taking: the tensor is the other consumer's alone
    assert producer.deleted == 0
    del taken, capsule, producer.capsule
    gc.collect()
    assert producer.deleted == 1


def test_the_usual_call_leaves_no_reference_behind_from_many_threads(engine):
    array = np.arange(12, dtype=np.float32).reshape(3, 4)
    known_layout(engine, array)
    references, live = sys.getrefcount(array), _owned.live_objects()
    errors: list[BaseException] = []

    def churn() -> None:
        try:
            for i in range(300):
                memory = dnnl.from_dlpack(array, engine=engine) if i % 2 else dnnl.Memory.from_array(array, engine)
                assert is_one_c_call(memory)
                del memory
        except BaseException as error:  # reported below, in the test's thread
            errors.append(error)

    threads = [threading.Thread(target=churn) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert _owned.live_objects() == live and sys.getrefcount(array) == references  # every deleter called


def test_what_the_c_call_does_not_take_goes_the_python_way(engine):
    array = np.arange(12, dtype=np.float32).reshape(3, 4)
    known_layout(engine, array)
    references = sys.getrefcount(array)
    read_only = array.copy()
    read_only.flags.writeable = False
    memory = dnnl.from_dlpack(read_only, engine=engine)
    assert not is_one_c_call(memory) and memory._read_only  # read-only: marked by the Python path
    memory.close()
    with pytest.raises(TypeError, match="engine"):
        dnnl.from_dlpack(array, engine="cpu")  # type: ignore[arg-type]
    closed = dnnl.Engine.cpu()
    closed.close()
    with pytest.raises(dnnl.ClosedObjectError):
        dnnl.from_dlpack(array, engine=closed)
    with pytest.raises(dnnl.ClosedObjectError):
        dnnl.Memory.from_array(array, closed)
    gc.collect()
    assert sys.getrefcount(array) == references  # the refused capsules released their tensor


def test_memorys_finalizer_is_the_c_one():
    assert type(dnnl.Memory.__dict__["__del__"]).__name__ == "method_descriptor"
