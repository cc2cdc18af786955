"""The in-flight ledger (``dnnl_interop._inflight``): one owner for what a stream's
pending work uses.

Each stream has one ledger; it alone writes an object's in-flight record
(``_in_flight``: stream id -> epoch) and alone lets the object go once the work
is known finished. These tests pin the record and the wall around it.
"""

from __future__ import annotations

import ast
import gc
import inspect
from pathlib import Path

import numpy as np
import pytest

import dnnl_interop as dnnl
from dnnl_interop import _inflight, _owned

PACKAGE = Path(dnnl.__file__).parent
_MUTATORS = {"pop", "popitem", "clear", "update", "setdefault", "__setitem__", "__delitem__"}


def _writes_of_in_flight(tree: ast.AST) -> list[int]:
    """Lines that change an object's ``_in_flight`` record (item assignment, del, a
    mutating method), other than an object setting up its own (``self._in_flight = {}``)."""
    lines = []
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
        for target in targets:
            if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Attribute) \
                    and target.value.attr == "_in_flight":
                lines.append(node.lineno)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MUTATORS \
                and isinstance(node.func.value, ast.Attribute) and node.func.value.attr == "_in_flight":
            lines.append(node.lineno)
    return lines


def test_only_the_ledger_writes_an_objects_in_flight_record():
    writers = {}
    for path in PACKAGE.rglob("*.py"):
        lines = _writes_of_in_flight(ast.parse(path.read_text(), str(path)))
        if lines:
            writers[path.relative_to(PACKAGE).as_posix()] = lines
    assert set(writers) == {"_inflight.py"}, writers


def test_the_ledger_states_its_invariants():
    doc = _inflight.__doc__
    assert "Invariants" in doc
    for words in ("wait", "tracked event", "close", "interpreter exit", "fork", "failed wait"):
        assert words in doc.lower(), words


@pytest.fixture
def transpose(engine):
    src_desc = dnnl.MemoryDesc((2, 3), "f32", "ab")
    dst_desc = dnnl.MemoryDesc((2, 3), "f32", "ba")
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    with dnnl.reorder(src_desc, dst_desc, engine) as primitive, dnnl.Memory(src_desc, engine, a) as src, \
            dnnl.Memory(dst_desc, engine) as dst:
        yield primitive, src, dst


def test_execute_records_what_the_work_uses_and_wait_lets_it_go(engine, transpose):
    primitive, src, dst = transpose
    with dnnl.Stream(engine) as stream:
        ledger = stream._ledger
        primitive.execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
        epoch = ledger.epoch
        assert set(ledger.pending.values()) == {primitive, src, dst}
        assert all(obj._in_flight == {id(stream): epoch} for obj in (primitive, src, dst))
        stream.wait()
        assert ledger.pending == {} and ledger.idle and ledger.epoch == epoch + 1
        assert all(obj._in_flight == {} and obj._idle() for obj in (primitive, src, dst))


def test_two_streams_keep_separate_records_of_one_object(engine, transpose):
    primitive, src, dst = transpose
    with dnnl.Stream(engine) as first, dnnl.Stream(engine) as second:
        primitive.execute(first, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
        primitive.execute(second, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
        assert set(src._in_flight) == {id(first), id(second)}
        first.wait()
        assert set(src._in_flight) == {id(second)}  # the other stream's work may still read it
        assert second._ledger.pending[id(src)] is src
        second.wait()
        assert src._idle()


def test_closing_the_stream_lets_go_of_everything_and_forgets_the_ledger(engine, transpose):
    primitive, src, dst = transpose
    stream = dnnl.Stream(engine)
    ledger = stream._ledger
    assert _inflight.ledger_of(stream) is ledger and ledger in _inflight.ledgers()
    primitive.execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
    src.close()  # an explicit close waits for the streams with work using it first
    assert src.closed and src._idle() and ledger.pending == {}
    with dnnl.MemoryDesc((2, 3), "f32", "ab") as desc, dnnl.Memory(desc, engine) as other:
        primitive.execute(stream, {dnnl.ARG_FROM: other, dnnl.ARG_TO: dst})
        assert not dst._idle() and not other._idle()
        stream.close()  # waits, then lets go of everything
        assert ledger.pending == {} and dst._idle() and other._idle() and primitive._idle()
    assert _inflight.ledger_of(object()) is None


class _Impostor:
    """Not an object of this binding, though it has a record of the same name."""

    def __init__(self) -> None:
        self._in_flight: dict[int, int] = {}


def test_a_refused_argument_of_another_library_leaves_nothing_behind(engine, transpose):
    primitive, src, _ = transpose
    impostor = _Impostor()
    with dnnl.Stream(engine) as stream:
        with pytest.raises(TypeError, match=r"args\[17\] .*expected a dnnl_interop.Memory, got _Impostor"):
            primitive.execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: impostor})
        assert impostor._in_flight == {} and id(impostor) not in stream._ledger.pending
        stream.wait()
        assert stream._ledger.idle


def test_a_refused_object_of_this_binding_stays_recorded_until_the_next_wait(engine, transpose):
    # Earlier work may use it: forgetting it would drop that registration too.
    primitive, src, _ = transpose
    with dnnl.Stream(engine) as stream, dnnl.Stream(engine) as other:
        with pytest.raises(TypeError, match=r"args\[17\] .*expected a dnnl_interop.Memory, got Stream"):
            primitive.execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: other})
        assert stream._ledger.pending[id(other)] is other and id(stream) in other._in_flight
        stream.wait()
        assert stream._ledger.idle and other._idle()


def test_no_two_threads_are_in_onednn_on_one_stream_at_once(engine, monkeypatch):
    # oneDNN's streams are not thread-safe: two waits at once on one SYCL stream
    # corrupted its dependencies (a crash of the crash matrix's "create streams
    # while another thread closes their engine"). Waits and the close's own wait
    # hold the stream's lock in C, as executes do.
    import threading
    import time

    from dnnl_interop import _stream
    from dnnl_interop._ffi import ffi

    inside: dict[int, int] = {}
    overlaps = []
    real_wait = _stream.lib.dnnl_stream_wait

    def slow_wait(handle):
        key = int(ffi.cast("uintptr_t", handle))
        inside[key] = inside.get(key, 0) + 1
        if inside[key] > 1:
            overlaps.append(key)
        time.sleep(0.005)  # the GIL is let go here, as cffi lets it go in C
        inside[key] -= 1
        return real_wait(handle)

    monkeypatch.setattr(_stream, "_stream_wait", slow_wait)  # the Python path's wait
    stream = dnnl.Stream(engine)
    with _inflight.fast_calls(wait=ffi.callback("dnnl_interop_wait_fn", slow_wait)):  # the C fast path's
        threads = [threading.Thread(target=lambda: [stream.wait() for _ in range(5)]) for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    stream.close()
    assert not overlaps and sum(inside.values()) == 0 and len(inside) == 1  # 15 waits, one at a time


def test_a_streams_lock_behaves_as_threading_lock(engine):
    # Ledger.lock is a StreamLock (csrc/fastpath.c), which the C path takes without a
    # method call: acquire, release, locked and with as threading.Lock has them.
    with dnnl.Stream(engine) as stream:
        assert type(stream._ledger.lock) is _inflight.StreamLock
    lock = _inflight.StreamLock()
    assert not lock.locked() and lock.acquire() is True and lock.locked()
    assert lock.acquire(blocking=False) is False and lock.acquire(False) is False  # not reentrant
    lock.release()
    with pytest.raises(RuntimeError, match="release unlocked lock"):
        lock.release()
    with lock:
        assert lock.locked()
    assert not lock.locked()
    with pytest.raises(TypeError):
        _inflight.StreamLock(1)


def test_a_thread_waiting_for_a_streams_lock_runs_signal_handlers():
    # The wait lets the GIL go and is interrupted by signals, as threading.Lock's: an
    # exception raised by a handler ends it (a Ctrl-C during a wait for a busy stream).
    import signal
    import threading

    class Alarm(Exception):
        pass

    def on_alarm(signum, frame):
        raise Alarm

    lock = _inflight.StreamLock()
    held, done = threading.Event(), threading.Event()

    def holder():
        with lock:
            held.set()
            done.wait(10)

    thread = threading.Thread(target=holder)
    thread.start()
    held.wait(10)
    previous = signal.signal(signal.SIGALRM, on_alarm)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.05)
        with pytest.raises(Alarm):
            lock.acquire()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        done.set()
        thread.join()
    assert not lock.locked() and lock.acquire(blocking=False)  # released by its holder, free again


# --- the C fast path (csrc/fastpath.c): the same record, step by step --------------------------


def _transpose_over_arrays(engine):
    """A reorder of 2x3 f32 from "ab" to "ba", its two descriptors, a source array and the
    3x2 array whose transpose ``out.T`` the "ba" destination lies in."""
    a, out = np.arange(6, dtype=np.float32).reshape(2, 3), np.zeros((3, 2), np.float32)
    src_desc, dst_desc = dnnl.MemoryDesc((2, 3), "f32", "ab"), dnnl.MemoryDesc((2, 3), "f32", "ba")
    return dnnl.reorder(src_desc, dst_desc, engine), src_desc, dst_desc, a, out


@pytest.fixture
def counted_calls():
    """The C fast path's oneDNN calls, counted: ``calls`` gets ``("execute", what the ledger
    records as pending at that moment)`` and ``("wait", ...)``; ``fail["wait"]`` makes
    waits fail (after oneDNN's, which finishes the work)."""
    from dnnl_interop._ffi import ffi, lib

    calls: list[tuple[str, set[int]]] = []
    fail = {"wait": 0}

    def pending(c_stream) -> set[int]:
        ledger = next((ledger for ledger in _inflight.ledgers()
                       if (stream := ledger.stream()) is not None and not stream.closed
                       and stream.handle == c_stream), None)
        return set() if ledger is None else set(ledger.pending)

    @ffi.callback("dnnl_interop_execute_fn")
    def execute(primitive, stream, nargs, args):
        calls.append(("execute", pending(stream)))
        return lib.dnnl_primitive_execute(primitive, stream, nargs, args)

    @ffi.callback("dnnl_interop_wait_fn")
    def wait(stream):
        calls.append(("wait", pending(stream)))
        return lib.dnnl_stream_wait(stream) or fail["wait"]

    with _inflight.fast_calls(execute, wait):
        yield calls, fail


def test_the_fast_path_registers_what_the_work_uses_before_calling_onednn(engine, transpose, counted_calls):
    primitive, src, dst = transpose
    calls, _ = counted_calls
    with dnnl.Stream(engine) as stream:
        primitive.execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst, dnnl.ARG_SCRATCHPAD: None})
        assert calls == [("execute", {id(primitive), id(src), id(dst)})]  # taken, and registered first
        assert all(obj._in_flight == {id(stream): stream._ledger.epoch} for obj in (primitive, src, dst))
        stream.wait()
        assert calls[1] == ("wait", {id(primitive), id(src), id(dst)})
        assert stream._ledger.pending == {} and all(obj._idle() for obj in (primitive, src, dst))
        bound = primitive.bind(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
        calls.clear()
        bound.execute()  # the binding's first call checks in Python; the next ones are C's
        bound.execute()
        assert calls == [("execute", {id(primitive), id(src), id(dst)})]
        stream.wait()
        calls.clear()
        bound.execute(wait=True)  # nothing registered: the binding holds the handles, the lock is held
        assert calls == [("execute", set()), ("wait", set())] and stream._ledger.pending == {}
        bound.close()


def test_work_submitted_on_the_fast_path_keeps_what_it_uses_after_every_reference_is_dropped(
        engine, counted_calls):
    calls, _ = counted_calls
    live = _owned.live_objects()
    stream = dnnl.Stream(engine)
    primitive, src_desc, dst_desc, a, out = _transpose_over_arrays(engine)
    args = {dnnl.ARG_FROM: dnnl.Memory(src_desc, engine, a), dnnl.ARG_TO: dnnl.Memory(dst_desc, engine, out.T)}
    primitive.execute(stream, args)
    assert [name for name, _ in calls] == ["execute"]
    kept = set(stream._ledger.pending)
    del primitive, args, src_desc, dst_desc, a
    gc.collect()
    assert set(stream._ledger.pending) == kept and _owned.live_objects() > live  # kept by the work alone
    stream.wait()
    assert out.ravel().tolist() == [0, 3, 1, 4, 2, 5] and stream._ledger.pending == {}
    stream.close()
    gc.collect()
    assert _owned.live_objects() == live


def test_the_fast_wait_destroys_what_was_closed_while_work_used_it(engine, transpose, counted_calls):
    primitive, src, dst = transpose
    calls, _ = counted_calls
    deferred = _owned.Owned._shared.deferred
    with dnnl.Stream(engine) as stream:
        primitive.execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
        src._close_handle()  # closed as another thread's close does, while the work uses it
        assert src.closed and id(src) in deferred
        stream.wait()
        assert [name for name, _ in calls] == ["execute", "wait"]
        assert id(src) not in deferred and stream._ledger.pending == {}  # destroyed by the wait's let-go


def test_a_failed_fast_wait_lets_nothing_go(engine, transpose, counted_calls):
    primitive, src, dst = transpose
    calls, fail = counted_calls
    with dnnl.Stream(engine) as stream:
        primitive.execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
        fail["wait"] = dnnl.Status.RUNTIME_ERROR
        with pytest.raises(dnnl.errors.DnnlRuntimeError, match="dnnl_stream_wait"):
            stream.wait()
        assert set(stream._ledger.pending.values()) == {primitive, src, dst}
        assert all(id(stream) in obj._in_flight for obj in (primitive, src, dst))
        primitive.execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})  # stamped anew: the failed wait's epoch
        assert all(obj._in_flight == {id(stream): stream._ledger.epoch} for obj in (primitive, src, dst))  # is over
        fail["wait"] = 0
        stream.wait()
        assert [name for name, _ in calls] == ["execute", "wait", "execute", "wait"] and stream._ledger.idle


def test_execute_and_wait_are_methods_of_c_that_answer_every_call_as_the_python_methods(
        engine, transpose, counted_calls):
    # The loop users run enters no Python frame; the methods keep their docstrings and
    # signatures, and calls of other shapes take the methods as written in Python.
    from dnnl_interop._execution import BoundExecution

    primitive, src, dst = transpose
    calls, _ = counted_calls
    for method, signature in ((dnnl.Primitive.execute, "(self, /, stream, args)"),
                              (dnnl.Stream.wait, "(self, /)"), (BoundExecution.execute, "(self, /, wait=False)")):
        assert inspect.ismethoddescriptor(method) and str(inspect.signature(method)) == signature
        assert "Raises:" in inspect.getdoc(method)
    args = {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst}
    with dnnl.Stream(engine) as stream:
        primitive.execute(stream, args)  # (the process's first CPU work takes the Python path)
        stream.wait()
        calls.clear()
        assert primitive.execute(stream=stream, args=args) is None  # keywords: the Python method
        assert primitive.execute(stream, args=args) is None and stream.wait() is None
        assert [name for name, _ in calls] == ["execute", "execute", "wait"]
        with pytest.raises(TypeError, match="args"):
            primitive.execute(stream)
        with pytest.raises(TypeError, match="argument"):
            stream.wait(True)
        with primitive.bind(stream, args) as bound:
            bound.execute(wait=True)  # (a binding's first call checks in Python)
            calls.clear()
            for call in (lambda: bound.execute(True), lambda: bound.execute(wait=1), lambda: bound.execute(wait=[])):
                assert call() is None
            stream.wait()
            assert [name for name, _ in calls] == ["execute", "wait", "execute", "wait", "execute", "wait"]
            with pytest.raises(TypeError, match="unexpected keyword argument 'block'"):
                bound.execute(block=True)
            with pytest.raises(TypeError):
                bound.execute(True, wait=True)
    with pytest.raises(dnnl.ClosedObjectError):  # answers other than 0 go to the Python method's end
        stream.wait()


def test_the_fast_path_reads_only_slots_through_their_descriptors():
    # Attributes it reads by descriptor must be data descriptors (nothing shadows them);
    # anything else is refused when the package gives it, not met at an execute.
    with pytest.raises(ValueError, match="'lock' is no data descriptor"):
        _inflight.fast["slots"]({"lock": property.__get__})
    with pytest.raises(ValueError, match="'_no_such_name' is no data descriptor"):
        _inflight.fast["slots"]({"_no_such_name": vars(_owned.Owned)["_handle"]})


def test_submissions_before_a_wait_keep_what_each_uses(engine, counted_calls):
    # The objects of a submission registered at the current epoch already are not
    # registered again: the record is the same, and kept until the wait.
    calls, _ = counted_calls
    live = _owned.live_objects()
    stream = dnnl.Stream(engine)
    primitive, src_desc, dst_desc, a, out = _transpose_over_arrays(engine)
    src, dst = dnnl.Memory(src_desc, engine, a), dnnl.Memory(dst_desc, engine, out.T)
    other = dnnl.Memory(src_desc, engine, a + 10)
    bound = primitive.bind(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
    bound.execute()  # the binding's first call: Python's
    stream.wait()
    calls.clear()
    primitive.execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
    bound.execute()  # all registered at this epoch already
    primitive.execute(stream, {dnnl.ARG_FROM: other, dnnl.ARG_TO: dst})  # one more object
    assert [name for name, _ in calls] == ["execute"] * 3
    assert calls[-1][1] == {id(primitive), id(src), id(dst), id(other)}
    epoch = stream._ledger.epoch
    assert all(obj._in_flight == {id(stream): epoch} for obj in (primitive, src, dst, other))
    bound.close()
    del primitive, src, other, bound, src_desc, dst_desc
    gc.collect()
    assert len(stream._ledger.pending) == 4  # kept by the work alone
    stream.wait()
    assert out.ravel().tolist() == [10, 13, 11, 14, 12, 15] and stream._ledger.idle
    del dst
    stream.close()
    gc.collect()
    assert _owned.live_objects() == live


def test_what_the_fast_path_does_not_take_goes_through_every_check(engine, transpose, counted_calls):
    primitive, src, dst = transpose
    calls, _ = counted_calls
    with dnnl.Stream(engine) as stream:
        too_small = dnnl.Memory(dnnl.MemoryDesc((2, 2), "f32", "ab"), engine)
        with pytest.raises(ValueError, match=r"args\[1\] .*shape"):
            primitive.execute(stream, {dnnl.ARG_FROM: too_small, dnnl.ARG_TO: dst})
        with pytest.raises(TypeError, match=r"expected a dnnl_interop\.Memory, got int"):
            primitive.execute(stream, {dnnl.ARG_FROM: 3, dnnl.ARG_TO: dst})
        with pytest.raises(TypeError, match=r"keys are ARG_\* indices"):
            primitive.execute(stream, {"src": src, dnnl.ARG_TO: dst})
        assert calls == []  # none reached oneDNN
        stream.wait()
        dst.close()
        with pytest.raises(dnnl.ClosedObjectError, match=r"args\[17\] .*closed"):
            primitive.execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
        stream.wait()
        assert [name for name, _ in calls] == ["wait", "wait"] and stream._ledger.idle


# --- workspaces on the fast path: the origin checked once per primitive and workspace ----------


def _max_pooling(engine, shape, kernel, stride):
    """Max pooling descriptors for training over ``shape`` (no padding), and their primitives."""
    out = tuple((size - kernel) // stride + 1 for size in shape[2:])
    src, dst = dnnl.MemoryDesc(shape, "f32", "abcd"), dnnl.MemoryDesc((*shape[:2], *out), "f32", "abcd")
    geometry = ((stride, stride), (kernel, kernel), (0, 0), (0, 0))
    fwd = dnnl.PoolingForwardDesc(engine, dnnl.AlgKind.POOLING_MAX, src, dst, *geometry,
                                  prop_kind=dnnl.PropKind.FORWARD_TRAINING)
    bwd = dnnl.PoolingBackwardDesc(engine, dnnl.AlgKind.POOLING_MAX, src, dst, *geometry, fwd)
    return fwd, bwd, dnnl.Primitive(fwd), dnnl.Primitive(bwd)


@pytest.fixture
def pooling(engine):
    """2x2 max pooling of a 1x2x4x4 source of distinct values (no ties), for training: the
    descriptors, the primitives, their arguments with the workspace ``workspace_memory``
    allocated (the forward's, the backward's) and the arrays behind them."""
    fwd_pd, bwd_pd, forward, backward = _max_pooling(engine, (1, 2, 4, 4), 2, 2)
    x = np.random.default_rng(5).permutation(32).reshape(1, 2, 4, 4).astype(np.float32)
    diff_dst = np.arange(1, 9, dtype=np.float32).reshape(1, 2, 2, 2)
    y, diff_src = np.zeros_like(diff_dst), np.full_like(x, np.nan)
    workspace = dnnl.workspace_memory(fwd_pd)
    fwd_args = {dnnl.ARG_SRC: dnnl.Memory.from_array(x, engine), dnnl.ARG_DST: dnnl.Memory.from_array(y, engine),
                dnnl.ARG_WORKSPACE: workspace}
    bwd_args = {dnnl.ARG_DIFF_DST: dnnl.Memory.from_array(diff_dst, engine),
                dnnl.ARG_DIFF_SRC: dnnl.Memory.from_array(diff_src, engine), dnnl.ARG_WORKSPACE: workspace}
    yield (fwd_pd, bwd_pd, forward, backward, fwd_args, bwd_args), (x, y, diff_dst, diff_src)
    for obj in (forward, backward, *fwd_args.values(), *bwd_args.values(), bwd_pd, fwd_pd):
        obj.close()


def _pooled(x, diff_dst):
    """2x2 max pooling of ``x`` and its gradient for ``diff_dst`` (ties never happen here)."""
    windows = x.reshape(1, 2, 2, 2, 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(1, 2, 2, 2, 4)
    at_max = windows == windows.max(axis=-1, keepdims=True)
    gradient = (at_max * diff_dst[..., None]).reshape(1, 2, 2, 2, 2, 2).transpose(0, 1, 2, 4, 3, 5)
    return windows.max(axis=-1), gradient.reshape(x.shape)


def test_a_training_loop_with_a_workspace_takes_the_fast_path_once_its_origin_is_checked(
        engine, pooling, counted_calls):
    (_, _, forward, backward, fwd_args, bwd_args), (x, y, diff_dst, diff_src) = pooling
    calls, _ = counted_calls
    workspace = fwd_args[dnnl.ARG_WORKSPACE]
    with dnnl.Stream(engine) as stream:
        for _ in range(3):
            forward.execute(stream, fwd_args)
            backward.execute(stream, bwd_args)
            stream.wait()
        # The first execute of each primitive checks in Python that the workspace was allocated
        # for its forward; from then on both are C's, the workspace registered as the rest.
        assert [name for name, _ in calls] == ["wait", "execute", "execute", "wait", "execute", "execute", "wait"]
        assert calls[1][1] == {id(forward), *map(id, fwd_args.values())}
        assert calls[2][1] == {id(forward), id(backward), *map(id, fwd_args.values()), *map(id, bwd_args.values())}
        assert stream._ledger.idle and workspace._idle()
    expected_y, expected_diff_src = _pooled(x, diff_dst)
    assert (y == expected_y).all() and (diff_src == expected_diff_src).all()


def test_a_workspace_the_binding_did_not_allocate_takes_the_fast_path_at_once(engine, pooling, counted_calls):
    # memory(fwd_pd.workspace_desc(), engine) as in C++: no forward is known to check it against.
    (fwd_pd, _, forward, backward, fwd_args, bwd_args), (x, y, diff_dst, diff_src) = pooling
    calls, _ = counted_calls
    plain = dnnl.Memory(fwd_pd.workspace_desc(), engine)
    with dnnl.Stream(engine) as stream:
        forward.execute(stream, {**fwd_args, dnnl.ARG_WORKSPACE: plain})
        backward.execute(stream, {**bwd_args, dnnl.ARG_WORKSPACE: plain})
        assert [name for name, _ in calls] == ["execute", "execute"] and id(plain) in stream._ledger.pending
    expected_y, expected_diff_src = _pooled(x, diff_dst)
    assert (y == expected_y).all() and (diff_src == expected_diff_src).all()


def test_a_workspace_of_another_forward_is_refused_after_the_right_one_took_the_fast_path(
        engine, pooling, counted_calls):
    # A 5x5 source pooled 3x3 with stride 2 has the 4x4 one's u8 workspace descriptor,
    # with positions in other windows: a fresh workspace is checked whatever ran before.
    (fwd_pd, _, forward, backward, fwd_args, bwd_args), _ = pooling
    calls, _ = counted_calls
    other_fwd_pd, *_ = _max_pooling(engine, (1, 2, 5, 5), 3, 2)
    assert other_fwd_pd.workspace_desc() == fwd_pd.workspace_desc()
    other = dnnl.workspace_memory(other_fwd_pd)
    message = (r"args\[64\] \(ARG_WORKSPACE\): this workspace was allocated for the forward pooling descriptor "
               r"of src MemoryDesc\(\(1, 2, 5, 5\).*but this {} the forward pooling descriptor of src "
               r"MemoryDesc\(\(1, 2, 4, 4\).*another forward")
    with dnnl.Stream(engine) as stream:
        for _ in range(2):
            forward.execute(stream, fwd_args)
            backward.execute(stream, bwd_args)
        assert [name for name, _ in calls] == ["execute", "execute"]  # the second pair: C's
        stream.wait()
        calls.clear()
        for _ in range(2):  # a refusal is not remembered as an acceptance
            with pytest.raises(ValueError, match=message.format("backward primitive was made with hint_fwd_pd")):
                backward.execute(stream, {**bwd_args, dnnl.ARG_WORKSPACE: other})
            with pytest.raises(ValueError, match=message.format("primitive is of")):
                forward.execute(stream, {**fwd_args, dnnl.ARG_WORKSPACE: other})
            with pytest.raises(ValueError, match=message.format("backward primitive was made with hint_fwd_pd")):
                backward.bind(stream, {**bwd_args, dnnl.ARG_WORKSPACE: other})
            with pytest.raises(ValueError, match=message.format("primitive is of")):
                forward.bind(stream, {**fwd_args, dnnl.ARG_WORKSPACE: other})
        stream.wait()
        assert [name for name, _ in calls] == ["wait"] and stream._ledger.idle  # none reached oneDNN


def test_a_missing_or_closed_workspace_is_refused_after_the_fast_path_took_it(engine, pooling, counted_calls):
    (_, _, forward, backward, fwd_args, bwd_args), _ = pooling
    calls, _ = counted_calls
    workspace = fwd_args[dnnl.ARG_WORKSPACE]
    refusals = (  # (primitive, its arguments, the message without a workspace)
        (forward, fwd_args, r"args\[64\] \(ARG_WORKSPACE\): this forward training primitive writes a workspace "
                            r".*and none is given: allocate it with dnnl_interop.workspace_memory\(fwd_pd\)"),
        (backward, bwd_args, r"args\[64\] \(ARG_WORKSPACE\): this backward primitive reads the workspace .* its "
                             r"forward training execution wrote, and none is given"),
    )
    with dnnl.Stream(engine) as stream:
        for primitive, args, _ in refusals * 2:
            primitive.execute(stream, args)
        assert [name for name, _ in calls] == ["execute", "execute"]
        stream.wait()
        bound = backward.bind(stream, bwd_args)
        calls.clear()
        for primitive, args, missing in refusals:
            without = {index: memory for index, memory in args.items() if index != dnnl.ARG_WORKSPACE}
            for given in (without, {**without, dnnl.ARG_WORKSPACE: None}):
                with pytest.raises(dnnl.InvalidArgumentsError, match=missing):
                    primitive.execute(stream, given)
                with pytest.raises(dnnl.InvalidArgumentsError, match=missing):
                    primitive.bind(stream, given)
        stream.wait()
        workspace.close()
        closed = r"args\[64\] \(ARG_WORKSPACE\): this Memory is closed"
        for primitive, args, _ in refusals:
            with pytest.raises(dnnl.ClosedObjectError, match=closed):
                primitive.execute(stream, args)
            with pytest.raises(dnnl.ClosedObjectError, match=closed):
                primitive.bind(stream, args)
        for wait in (False, True):
            with pytest.raises(dnnl.ClosedObjectError, match=closed):
                bound.execute(wait=wait)
        stream.wait()
        assert [name for name, _ in calls] == ["wait", "wait"] and stream._ledger.idle  # none reached oneDNN
        bound.close()


def test_a_workspace_made_where_an_accepted_one_died_is_checked_anew(engine, pooling, counted_calls):
    # The record the Python check leaves is a weak reference: a memory made at a dead
    # workspace's address (as CPython often does) is not taken for it.
    (fwd_pd, _, forward, _, fwd_args, _), _ = pooling
    calls, _ = counted_calls
    other_fwd_pd, *_ = _max_pooling(engine, (1, 2, 5, 5), 3, 2)
    with dnnl.Stream(engine) as stream:
        for _ in range(3):
            workspace = dnnl.workspace_memory(fwd_pd)
            forward.execute(stream, {**fwd_args, dnnl.ARG_WORKSPACE: workspace})
            forward.execute(stream, {**fwd_args, dnnl.ARG_WORKSPACE: workspace})
            stream.wait()
            del workspace
            gc.collect()
            other = dnnl.workspace_memory(other_fwd_pd)
            with pytest.raises(ValueError, match=r"allocated for the forward pooling descriptor of src "
                                                 r"MemoryDesc\(\(1, 2, 5, 5\).*another forward"):
                forward.execute(stream, {**fwd_args, dnnl.ARG_WORKSPACE: other})
            stream.wait()
            other.close()
        assert [name for name, _ in calls] == ["execute", "wait", "wait"] * 3  # each fresh one checked first


def test_prelu_post_op_weights_take_the_fast_path_and_missing_ones_are_refused(engine, counted_calls):
    # Arguments oneDNN reads without checking they are given (through NULL: a crash).
    calls, _ = counted_calls
    post_ops = dnnl.PostOps()
    post_ops.append_prelu(0)
    attr = dnnl.PrimitiveAttr()
    attr.set_post_ops(post_ops)
    src, weights = np.array([[1, -2]], np.float32), np.array([[1], [1]], np.float32)
    slope, dst = np.array([[0.5]], np.float32), np.zeros((1, 1), np.float32)
    pd = dnnl.MatmulDesc(engine, dnnl.MemoryDesc.from_array(src), dnnl.MemoryDesc.from_array(weights),
                         dnnl.MemoryDesc.from_array(dst), attr=attr)
    prelu_weights = dnnl.post_op_arg(0, dnnl.ARG_WEIGHTS)
    with pd, dnnl.Primitive(pd) as primitive, dnnl.Stream(engine) as stream:
        args = {index: dnnl.Memory.from_array(array, engine)
                for index, array in ((dnnl.ARG_SRC, src), (dnnl.ARG_WEIGHTS, weights), (dnnl.ARG_DST, dst))}
        primitive.execute(stream, {**args, prelu_weights: dnnl.Memory.from_array(slope, engine)})
        stream.wait()
        assert [name for name, _ in calls] == ["execute", "wait"] and dst.tolist() == [[-0.5]]
        for given in (args, {**args, prelu_weights: None}):
            with pytest.raises(dnnl.InvalidArgumentsError, match=r"needs args\[32801\] \(post_op_arg\(0, ARG_WEIGHTS"):
                primitive.execute(stream, given)
        stream.wait()
        assert [name for name, _ in calls] == ["execute", "wait", "wait"] and stream._ledger.idle
