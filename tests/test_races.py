"""Races between threads that the ownership rules must close.

Each scenario runs in a child process (its failure may be a crash) on the
CPU engine, through the public API only:

* a memory's buffer swapped (``set_data_handle``) while other threads
  execute into it: the old buffer, once dropped, is never written again,
  and the process survives with correct results;
* a stream made while another thread closes its engine: once
  ``engine.close()`` has returned and the maker is done, the stream was
  either refused or is closed, never left open.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap

import pytest

SUCCESS = "RACE-SURVIVED"


def run_child(script: str, *args: object, timeout: float = 60) -> str:
    """Run ``script`` in a fresh interpreter; fail unless it exits 0 and prints ``SUCCESS``.

    faulthandler is on, so a crash shows the Python stack of each thread.
    """
    try:
        done = subprocess.run(
            [sys.executable, "-X", "faulthandler", "-c", textwrap.dedent(script), *map(str, args)],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"the child hung for {timeout} s; stderr tail:\n{(exc.stderr or b'')[-2000:]!r}")
    code = done.returncode
    died = f" (died of {signal.Signals(-code).name})" if code < 0 else ""
    assert code == 0 and SUCCESS in done.stdout, (
        f"child returncode {code}{died}\nstdout tail:\n{done.stdout[-1000:]}\nstderr tail:\n{done.stderr[-4000:]}"
    )
    return done.stdout


# --- set_data_handle while other threads execute -------------------------------

SWAP_WHILE_EXECUTING = """
import mmap, sys, threading, time
import numpy
import dnnl_interop as dnnl

SECONDS = float(sys.argv[1])
N = 128
engine = dnnl.Engine.cpu()
a = numpy.arange(N * N, dtype=numpy.float32).reshape(N, N)
original = a.copy()
src_desc = dnnl.MemoryDesc(a.shape, a.dtype, "ab")
dst_desc = dnnl.MemoryDesc(a.shape, a.dtype, "ba")
src = dnnl.Memory(src_desc, engine, a)
dst = dnnl.Memory(dst_desc, engine, numpy.zeros_like(a).T)
primitive = dnnl.reorder(src_desc, dst_desc, engine)
shared = dnnl.Stream(engine)
# Two executors share a stream, the third has its own.
streams = [shared, shared, dnnl.Stream(engine)]
stop = threading.Event()
failures = []
counts = {"executes": 0, "swaps": 0}

def fresh(i):
    # Alternately a heap array and one over its own anonymous mapping: a
    # mapping is unmapped when its array is dropped, so a late write into it
    # faults at once instead of corrupting the heap (which crashes too, but
    # only now and then, and later).
    # Transposed views: the tensor the "ba" descriptor lays out over a row-major block.
    if i % 2:
        return numpy.zeros((N, N), numpy.float32).T
    pages = 16 + i % 3  # not always the size just unmapped: that hole is not reused at once
    return numpy.frombuffer(mmap.mmap(-1, pages * 4096), numpy.float32, N * N).reshape(N, N).T

def execute(stream):
    try:
        while not stop.is_set():
            primitive.execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
            stream.wait()  # even waiting after every execute must not matter
            counts["executes"] += 1
    except BaseException as exc:
        failures.append(f"executor: {exc!r}")

def swap():
    i = 0
    try:
        while not stop.is_set():
            dst.set_data_handle(fresh(i))  # the previous array is dropped here
            i += 1
            counts["swaps"] = i
    except BaseException as exc:
        failures.append(f"set_data_handle: {exc!r}")

threads = [threading.Thread(target=execute, args=(s,)) for s in streams]
threads.append(threading.Thread(target=swap))
for t in threads:
    t.start()
time.sleep(SECONDS)
stop.set()
for t in threads:
    t.join(30)
assert not any(t.is_alive() for t in threads), "threads hung"
assert not failures, failures[:5]

# The memory still works: a final execute on each stream gives the reorder.
for stream in (shared, streams[2]):
    final = fresh(0)
    dst.set_data_handle(final)
    primitive.execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
    stream.wait()
    assert numpy.array_equal(final, a), "the final reorder is wrong"
assert numpy.array_equal(a, original), "the source was written"
for obj in (primitive, src, dst, streams[2], shared, engine):
    obj.close()
print(counts["executes"], counts["swaps"])
print("RACE-SURVIVED")
"""


def test_set_data_handle_while_three_threads_execute_into_the_memory():
    """``dst.set_data_handle(new_array)`` in one thread while three others
    execute a reorder into ``dst`` (and wait after each execute): no work may
    be submitted on the old buffer once ``set_data_handle`` has waited for
    that memory's work, so dropping the old array is always safe.

    128x128 float32 arrays, a fresh one per swap, the old one dropped; about
    4 s of hammering. The process must survive, and a final execute must
    still give the right result.
    """
    out = run_child(SWAP_WHILE_EXECUTING, 4.0)
    executes, swaps = map(int, out.split()[:2])
    assert executes > 100 and swaps > 100, f"only {executes} executes and {swaps} swaps: the threads barely ran"


# --- a stream made while another thread closes the engine -----------------------

STREAM_WHILE_CLOSING = """
import sys, threading, time
import dnnl_interop as dnnl

TRIES, SECONDS = int(sys.argv[1]), float(sys.argv[2])
outcomes = {"refused": 0, "closed": 0, "open": 0}
errors = []
deadline = time.monotonic() + SECONDS
tries = 0
while tries < TRIES and time.monotonic() < deadline:
    tries += 1
    engine = dnnl.Engine.cpu()
    made = []

    def make():
        try:
            made.append(dnnl.Stream(engine))
        except dnnl.ClosedObjectError:
            outcomes["refused"] += 1
        except BaseException as exc:
            errors.append(repr(exc))

    maker = threading.Thread(target=make)
    maker.start()
    engine.close()  # while the maker makes its stream
    maker.join(30)
    assert not maker.is_alive(), "the maker hung"
    for stream in made:
        outcomes["closed" if stream.closed else "open"] += 1
        stream.close()  # tidy up; what counts was recorded above
print(tries, outcomes["refused"], outcomes["closed"], outcomes["open"])
print(errors[:3])
print("RACE-SURVIVED")
"""


def test_a_stream_made_while_its_engine_closes_is_refused_or_closed():
    """A ``Stream(engine)`` made in one thread while the main thread runs
    ``engine.close()``: once ``close`` has returned and the maker is done,
    the stream was refused (``ClosedObjectError``) or is closed. A stream
    left open on a closed engine is never acceptable.

    Repeated 300 times (bounded to 8 s), each on a fresh CPU engine.
    """
    out = run_child(STREAM_WHILE_CLOSING, 300, 8.0)
    lines = out.splitlines()
    tries, refused, closed, left_open = map(int, lines[0].split())
    assert lines[1] == "[]", f"the maker got other errors than ClosedObjectError: {lines[1]}"
    assert tries >= 50, f"only {tries} tries in the time allowed"
    assert left_open == 0, (
        f"{left_open} of {tries} streams were still open after engine.close() returned "
        f"({refused} refused, {closed} closed)"
    )
