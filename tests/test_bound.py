"""``Primitive.bind(stream, args)``: an execute checked once, submitted many times,
with the same guarantees as ``execute`` (real oneDNN, CPU engine)."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import dnnl_interop as dnnl
from dnnl_interop import _owned


def _transpose(engine):
    src_desc, dst_desc = dnnl.MemoryDesc((2, 3), "f32", "ab"), dnnl.MemoryDesc((2, 3), "f32", "ba")
    return src_desc, dst_desc, dnnl.reorder(src_desc, dst_desc, engine)


def test_a_bound_execute_computes_what_execute_computes(engine, stream):
    src_desc, dst_desc, primitive = _transpose(engine)
    a, out = np.arange(6, dtype=np.float32).reshape(2, 3), np.zeros((3, 2), np.float32)
    bound = primitive.bind(stream, {dnnl.ARG_FROM: dnnl.Memory(src_desc, engine, a),
                                    dnnl.ARG_TO: dnnl.Memory(dst_desc, engine, out.T)})
    for i in range(3):
        a[...] = i
        bound.execute()
        stream.wait()
        assert (out == a.T).all()


def test_the_arguments_are_checked_when_bound(engine, stream):
    src_desc, dst_desc, primitive = _transpose(engine)
    small = dnnl.Memory(dnnl.MemoryDesc((2,), "f32", "a"), engine)
    with pytest.raises(ValueError, match=r"args\[1\] \(ARG_FROM, .*?\): the memory's shape, \(2,\), is not the one the "
                                         r"primitive takes there, \(2, 3\) .*The shapes differ"):
        primitive.bind(stream, {dnnl.ARG_FROM: small, dnnl.ARG_TO: dnnl.Memory(dst_desc, engine)})
    transposed = dnnl.Memory(dnnl.MemoryDesc((2, 3), "f32", "ba"), engine)
    with pytest.raises(ValueError, match=r"args\[1\] \(.*?\): the memory's layout, .* is not the one the primitive"):
        primitive.bind(stream, {dnnl.ARG_FROM: transposed, dnnl.ARG_TO: dnnl.Memory(dst_desc, engine)})
    with pytest.raises(TypeError, match=r"args\[17\] \(.*?\): expected a dnnl_interop.Memory, got str"):
        primitive.bind(stream, {dnnl.ARG_FROM: dnnl.Memory(src_desc, engine), dnnl.ARG_TO: "dst"})


def test_a_bound_execute_refuses_what_was_closed_since(engine):
    src_desc, dst_desc, primitive = _transpose(engine)
    stream = dnnl.Stream(engine)
    src, dst = dnnl.Memory(src_desc, engine), dnnl.Memory(dst_desc, engine)
    bound = primitive.bind(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
    src.close()
    with pytest.raises(dnnl.ClosedObjectError, match=r"args\[1\] \(.*?\): this Memory is closed"):
        bound.execute()
    bound = primitive.bind(stream, {dnnl.ARG_FROM: dnnl.Memory(src_desc, engine), dnnl.ARG_TO: dst})
    primitive.close()
    with pytest.raises(dnnl.ClosedObjectError, match="primitive: this Primitive is closed"):
        bound.execute()
    stream.close()
    with pytest.raises(dnnl.ClosedObjectError, match="stream: this Stream is closed"):
        bound.execute()


def test_a_memory_given_another_buffer_is_read_from_it(engine, stream):
    src_desc, dst_desc, primitive = _transpose(engine)
    first, second = np.ones((2, 3), np.float32), np.full((2, 3), 7, np.float32)
    out = np.zeros((3, 2), np.float32)
    src = dnnl.Memory(src_desc, engine, first)
    bound = primitive.bind(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dnnl.Memory(dst_desc, engine, out.T)})
    src.set_data_handle(second)
    bound.execute()
    stream.wait()
    assert (out == 7).all()
    src.set_data_handle(dnnl.MEMORY_NONE)
    with pytest.raises(ValueError, match=r"args\[1\] \(.*?\): the memory has no buffer \(MEMORY_NONE\)"):
        bound.execute()


def test_work_in_flight_keeps_what_it_uses_after_every_reference_is_dropped(engine):
    live = _owned.live_objects()
    stream = dnnl.Stream(engine)
    src_desc, dst_desc, primitive = _transpose(engine)
    a, out = np.arange(6, dtype=np.float32).reshape(2, 3), np.zeros((3, 2), np.float32)
    bound = primitive.bind(stream, {dnnl.ARG_FROM: dnnl.Memory(src_desc, engine, a),
                                    dnnl.ARG_TO: dnnl.Memory(dst_desc, engine, out.T)})
    bound.execute()
    del bound, primitive, src_desc, dst_desc, a
    gc.collect()
    stream.wait()  # the stream kept the primitive, the memories and their buffers
    assert out.ravel().tolist() == [0, 3, 1, 4, 2, 5]
    stream.close()
    gc.collect()
    assert _owned.live_objects() == live


def test_a_user_scratchpad_is_given_by_the_binding_when_not_given(engine, stream):
    x = np.random.default_rng(0).random((1, 8, 10, 10), dtype=np.float32)
    w = np.random.default_rng(1).random((16, 8, 3, 3), dtype=np.float32)
    attr = dnnl.PrimitiveAttr()
    attr.set_scratchpad_mode(dnnl.ScratchpadMode.USER)
    pd = dnnl.ConvolutionForwardDesc(engine, dnnl.MemoryDesc.from_array(x), dnnl.MemoryDesc.from_array(w),
                                     dnnl.MemoryDesc((1, 16, 8, 8), "f32", "abcd"), (1, 1), (0, 0), (0, 0),
                                     attr=attr)
    scratchpad = pd.scratchpad_desc()
    assert scratchpad is not None and scratchpad.size > 0  # this convolution needs one on the CPU
    out = np.zeros((1, 16, 8, 8), np.float32)
    args = {dnnl.ARG_SRC: dnnl.Memory(pd.src_desc(), engine, x), dnnl.ARG_WEIGHTS: dnnl.Memory(pd.weights_desc(),
            engine, w), dnnl.ARG_DST: dnnl.Memory(pd.dst_desc(), engine, out)}
    expected = np.einsum("nchwij,ocij->nohw", np.lib.stride_tricks.sliding_window_view(x, (3, 3), axis=(2, 3)), w)
    primitive = dnnl.Primitive(pd)
    primitive.execute(stream, args)  # no ARG_SCRATCHPAD: the binding gives one
    stream.wait()
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-4)
    out[...] = 0
    own = dnnl.Memory(scratchpad, engine)
    primitive.execute(stream, {**args, dnnl.ARG_SCRATCHPAD: own})  # or takes the user's
    stream.wait()
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-4)


def test_an_object_of_another_kind_given_as_a_memory_is_refused_and_not_kept(engine, stream):
    _, dst_desc, primitive = _transpose(engine)
    live = _owned.live_objects()
    desc = dnnl.MemoryDesc((2, 3), "f32", "ab")
    for _attempt in range(3):
        with pytest.raises(TypeError, match=r"args\[1\] \(.*?\): expected a dnnl_interop.Memory, got MemoryDesc"):
            primitive.execute(stream, {dnnl.ARG_FROM: desc, dnnl.ARG_TO: dnnl.Memory(dst_desc, engine)})
    stream.wait()
    desc.close()  # let go by the wait: destroyed now
    gc.collect()
    assert _owned.live_objects() == live


def test_the_primitive_given_as_its_own_memory_is_refused_and_earlier_work_stays_in_flight(engine, stream):
    src_desc, dst_desc, primitive = _transpose(engine)
    src, dst = dnnl.Memory(src_desc, engine), dnnl.Memory(dst_desc, engine)
    primitive.execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
    with pytest.raises(TypeError, match=r"args\[1\] \(.*?\): expected a dnnl_interop.Memory, got Primitive"):
        primitive.execute(stream, {dnnl.ARG_FROM: primitive, dnnl.ARG_TO: dst})
    # The earlier work still uses the primitive: it stays registered until the wait lets go of it.
    assert id(stream) in primitive._in_flight and stream._ledger.pending[id(primitive)] is primitive
    stream.wait()
    assert stream._ledger.pending == {} and primitive._idle()


# --- bound.execute(wait=True): execute then wait in one call ---------------------------------


def _bound_transpose(engine, stream, a, out):
    src_desc, dst_desc, primitive = _transpose(engine)
    src, dst = dnnl.Memory(src_desc, engine, a), dnnl.Memory(dst_desc, engine, out.T)
    return primitive, src, dst, primitive.bind(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})


def test_execute_with_wait_computes_and_leaves_nothing_in_flight(engine, stream):
    a, out = np.arange(6, dtype=np.float32).reshape(2, 3), np.zeros((3, 2), np.float32)
    primitive, src, dst, bound = _bound_transpose(engine, stream, a, out)
    for i in range(3):
        a[...] = i
        bound.execute(wait=True)
        assert (out == a.T).all()  # done when it returns
    assert stream._ledger.pending == {}
    for obj in (src, dst, primitive):  # only the binding holds them
        assert obj._dependents == {bound._key} and not (obj._in_flight or obj._calls or obj._views)


def test_execute_with_wait_is_one_c_call_that_waits_only_after_a_successful_execute():
    from dnnl_interop._ffi import ffi, lib

    calls = []
    statuses = {"execute": 0, "wait": 0}
    args = ffi.new("dnnl_exec_arg_t[2]")

    @ffi.callback("dnnl_interop_execute_fn")
    def execute(primitive, stream, nargs, c_args):
        calls.append(("execute", primitive, stream, nargs, c_args))
        return statuses["execute"]

    @ffi.callback("dnnl_interop_wait_fn")
    def wait(stream):
        calls.append(("wait", stream))
        return statuses["wait"]

    p, s = ffi.cast("const_dnnl_primitive_t", 0x10), ffi.cast("dnnl_stream_t", 0x20)
    assert lib.dnnl_interop_execute_and_wait(execute, wait, p, s, 2, args) == 0
    assert calls == [("execute", p, s, 2, args), ("wait", s)]
    calls.clear()
    statuses["wait"] = dnnl.Status.RUNTIME_ERROR
    assert lib.dnnl_interop_execute_and_wait(execute, wait, p, s, 2, args) == -dnnl.Status.RUNTIME_ERROR
    assert [call[0] for call in calls] == ["execute", "wait"]
    calls.clear()
    statuses["execute"] = dnnl.Status.INVALID_ARGUMENTS
    assert lib.dnnl_interop_execute_and_wait(execute, wait, p, s, 2, args) == dnnl.Status.INVALID_ARGUMENTS
    assert [call[0] for call in calls] == ["execute"]  # a refused execute is not waited for
    # NULL functions are oneDNN's own: it refuses a NULL primitive, and nothing is waited for.
    assert lib.dnnl_interop_execute_and_wait(ffi.NULL, ffi.NULL, ffi.NULL, s, 0, ffi.NULL) == (
        dnnl.Status.INVALID_ARGUMENTS)


@pytest.fixture(params=["C fast path", "Python path"])
def failing_calls(request, monkeypatch):
    """``fail(wait=..., execute=...)``: the wait (after oneDNN's, which runs the work) or the
    execute of ``bound.execute(wait=True)`` fails with that status, on the C fast path
    (``_inflight.fast_calls``) or on the Python path (the binding's C call replaced)."""
    from dnnl_interop import _inflight
    from dnnl_interop._ffi import ffi, lib

    statuses = {"execute": 0, "wait": 0}

    @ffi.callback("dnnl_interop_execute_fn")
    def execute(primitive, stream, nargs, args):
        return statuses["execute"] or lib.dnnl_primitive_execute(primitive, stream, nargs, args)

    @ffi.callback("dnnl_interop_wait_fn")
    def wait(stream):
        status = lib.dnnl_stream_wait(stream)
        return statuses["wait"] or status

    def fail(bound, *, execute=0, wait=0):
        statuses.update(execute=execute, wait=wait)
        if request.param == "Python path":
            bound._fast = None  # the binding's fast record: without it, every call is Python's
            call_and_wait = bound._call_and_wait

            def failing(*arguments):
                if execute:
                    return execute
                status = call_and_wait(*arguments)
                return -wait if wait and not status else status

            monkeypatch.setattr(bound, "_call_and_wait", failing)

    with _inflight.fast_calls(execute, wait):
        yield fail


def test_execute_with_wait_reports_a_failed_wait_and_keeps_the_work_in_flight(engine, stream, failing_calls):
    a, out = np.arange(6, dtype=np.float32).reshape(2, 3), np.zeros((3, 2), np.float32)
    primitive, src, dst, bound = _bound_transpose(engine, stream, a, out)
    bound.execute(wait=True)
    assert stream._ledger.pending == {}
    failing_calls(bound, wait=dnnl.Status.RUNTIME_ERROR)  # oneDNN runs the work, then its wait fails
    with pytest.raises(dnnl.errors.DnnlRuntimeError, match="dnnl_stream_wait"):
        bound.execute(wait=True)
    # Nothing is known finished: the work keeps what it uses until a wait succeeds.
    assert set(stream._ledger.pending.values()) == {primitive, src, dst}
    failing_calls(bound)
    stream.wait()
    assert stream._ledger.pending == {} and (out == a.T).all()

    failing_calls(bound, execute=dnnl.Status.INVALID_ARGUMENTS)  # oneDNN refuses
    with pytest.raises(dnnl.InvalidArgumentsError, match="dnnl_primitive_execute"):
        bound.execute(wait=True)
    assert stream._ledger.pending == {}  # a refused execute runs nothing and keeps nothing


def test_a_binding_holds_its_handles_until_it_lets_go(engine, stream):
    deferred = _owned.Owned._shared.deferred
    a, out = np.ones((2, 3), np.float32), np.zeros((3, 2), np.float32)
    primitive, src, dst, bound = _bound_transpose(engine, stream, a, out)
    src.close()  # closed at once, its handle destroyed once the binding lets go
    assert src._handle is None and id(src) in deferred
    with pytest.raises(dnnl.ClosedObjectError, match=r"args\[1\] \(.*?\): this Memory is closed"):
        bound.execute(wait=True)
    stream.wait()  # the refused submission registered what it had checked, as execute does
    bound.close()
    assert id(src) not in deferred and dst._idle() and primitive._idle()
    with pytest.raises(dnnl.ClosedObjectError, match=r"^bound: this BoundExecution is closed$"):
        bound.execute(wait=True)
    with pytest.raises(dnnl.ClosedObjectError, match=r"^bound: this BoundExecution is closed$"):
        bound.execute()
    bound.close()  # twice: harmless
    with primitive.bind(stream, {dnnl.ARG_FROM: dnnl.Memory(dnnl.MemoryDesc((2, 3), "f32", "ab"), engine, a),
                                 dnnl.ARG_TO: dst}) as again:
        again.execute(wait=True)
        dst.close()
        assert id(dst) in deferred
    assert id(dst) not in deferred  # let go on leaving the with block
    dropped = primitive.bind(stream, {dnnl.ARG_FROM: dnnl.Memory(dnnl.MemoryDesc((2, 3), "f32", "ab"), engine),
                                      dnnl.ARG_TO: dnnl.Memory(dnnl.MemoryDesc((2, 3), "f32", "ba"), engine)})
    primitive.close()
    assert id(primitive) in deferred
    del dropped  # or when it is dropped
    gc.collect()
    assert id(primitive) not in deferred


def test_execute_with_wait_also_finishes_and_lets_go_of_earlier_work(engine, stream):
    a, out = np.arange(6, dtype=np.float32).reshape(2, 3), np.zeros((3, 2), np.float32)
    primitive, src, dst, bound = _bound_transpose(engine, stream, a, out)
    b, other = np.full((2, 3), 5, np.float32), np.zeros((3, 2), np.float32)
    earlier = dnnl.Memory(src.desc, engine, b)
    primitive.execute(stream, {dnnl.ARG_FROM: earlier, dnnl.ARG_TO: dnnl.Memory(dst.desc, engine, other.T)})
    bound.execute(wait=True)
    assert (other == 5).all() and (out == a.T).all()
    assert stream._ledger.pending == {} and earlier._idle()


def test_execute_with_wait_refuses_what_was_closed_and_reads_a_new_buffer(engine):
    stream = dnnl.Stream(engine)
    a, out = np.ones((2, 3), np.float32), np.zeros((3, 2), np.float32)
    primitive, src, dst, bound = _bound_transpose(engine, stream, a, out)
    bound.execute(wait=True)
    src.set_data_handle(np.full((2, 3), 7, np.float32))
    bound.execute(wait=True)
    assert (out == 7).all() and stream._ledger.pending == {}
    src.set_data_handle(dnnl.MEMORY_NONE)
    with pytest.raises(ValueError, match=r"args\[1\] \(.*?\): the memory has no buffer \(MEMORY_NONE\)"):
        bound.execute(wait=True)
    src.set_data_handle(np.full((2, 3), 5, np.float32))
    stream.wait()
    bound.execute(wait=True)
    assert (out == 5).all()
    src_desc = src.desc
    src.close()
    with pytest.raises(dnnl.ClosedObjectError, match=r"args\[1\] \(.*?\): this Memory is closed"):
        bound.execute(wait=True)
    bound = primitive.bind(stream, {dnnl.ARG_FROM: dnnl.Memory(src_desc, engine), dnnl.ARG_TO: dst})
    primitive.close()
    with pytest.raises(dnnl.ClosedObjectError, match="primitive: this Primitive is closed"):
        bound.execute(wait=True)
    # a refused call registers nothing: only the binding holds it
    assert dst._dependents == {bound._key} and not (dst._in_flight or dst._calls or dst._views)
    stream.close()
    with pytest.raises(dnnl.ClosedObjectError, match="stream: this Stream is closed"):
        bound.execute(wait=True)


def test_a_close_from_another_thread_during_execute_with_wait_waits_for_the_binding(engine, stream):
    # A convolution long enough for the close to land while oneDNN runs.
    x = np.ones((1, 16, 64, 64), np.float32)
    w = np.ones((16, 16, 3, 3), np.float32)
    pd = dnnl.ConvolutionForwardDesc(engine, dnnl.MemoryDesc.from_array(x), dnnl.MemoryDesc.from_array(w),
                                     dnnl.MemoryDesc((1, 16, 62, 62), "f32", "abcd"), (1, 1), (0, 0), (0, 0))
    out = np.zeros((1, 16, 62, 62), np.float32)
    src = dnnl.Memory(pd.src_desc(), engine, x)
    primitive = dnnl.Primitive(pd)
    bound = primitive.bind(stream, {dnnl.ARG_SRC: src, dnnl.ARG_WEIGHTS: dnnl.Memory(pd.weights_desc(), engine, w),
                                    dnnl.ARG_DST: dnnl.Memory(pd.dst_desc(), engine, out)})
    import threading

    started = threading.Event()

    def close_soon():
        started.wait()
        src.close()

    closer = threading.Thread(target=close_soon)
    closer.start()
    calls = []
    try:
        with pytest.raises(dnnl.ClosedObjectError, match=r"args\[1\] \(.*?\): this Memory is closed"):
            while len(calls) < 10_000:
                started.set()
                bound.execute(wait=True)
                calls.append(None)
    finally:
        closer.join()
    assert calls  # the close landed while calls ran
    assert src._handle is None and id(src) in _owned.Owned._shared.deferred  # not destroyed under oneDNN
    assert (out == 16 * 9).all()
    stream.wait()
    bound.close()
    assert id(src) not in _owned.Owned._shared.deferred and primitive._idle()


def test_threads_mixing_execute_with_wait_and_execute_then_wait_on_one_stream_all_compute(engine, stream):
    import threading

    errors = []

    def work(i, combined):
        try:
            a = np.full((2, 3), i, np.float32)
            out = np.zeros((3, 2), np.float32)
            primitive, src, dst, bound = _bound_transpose(engine, stream, a, out)
            for n in range(300):
                a[...] = n
                if combined:
                    bound.execute(wait=True)
                else:
                    primitive.execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
                    stream.wait()
                assert (out == n).all(), (i, n)
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=work, args=(i, i % 2 == 0)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    stream.wait()
    assert stream._ledger.pending == {}
