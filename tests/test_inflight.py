"""The in-flight ledger (``dnnl_interop._inflight``): one owner for what a stream's
pending work uses.

Each stream has one ledger; it alone writes an object's in-flight record
(``_in_flight``: stream id -> epoch) and alone lets the object go once the work
is known finished. These tests pin the record and the wall around it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

import dnnl_interop as dnnl
from dnnl_interop import _inflight

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

    monkeypatch.setattr(_stream, "_stream_wait", slow_wait)
    stream = dnnl.Stream(engine)
    threads = [threading.Thread(target=lambda: [stream.wait() for _ in range(5)]) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    stream.close()
    assert not overlaps
