"""Threads: eight threads sharing one engine never crash, deadlock or leak.

Each run is a child process (a crash must not take pytest with it) in which
eight threads, for a bounded time, create memories, primitives and streams
on one shared engine, execute, wait, close their own objects and, now and
then, objects other threads are using. The only errors allowed are the
binding's own refusals of closed objects; every result a thread waited for
is checked, and when the threads are done every oneDNN handle is gone.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

SECONDS = float(os.environ.get("DNNL_INTEROP_THREAD_SECONDS", "4"))

WORKLOAD = """
import gc, random, sys, threading, time
import numpy
import dnnl_interop as dnnl

SECONDS = float(sys.argv[1])
THREADS = 8
engine = dnnl.Engine.cpu()
shared_stream = dnnl.Stream(engine)
shared = {"stream": shared_stream}
counts = {"executes": 0, "checked": 0, "refused": 0}
failures = []
lock = threading.Lock()

def worker(seed):
    rng = random.Random(seed)
    deadline = time.monotonic() + SECONDS
    while time.monotonic() < deadline:
        try:
            n = rng.choice((8, 64, 256))
            a = numpy.arange(n * n, dtype=numpy.float32).reshape(n, n)
            out = numpy.zeros_like(a)
            src_desc = dnnl.MemoryDesc(a.shape, a.dtype, "ab")
            dst_desc = dnnl.MemoryDesc(a.shape, a.dtype, "ba")
            src = dnnl.Memory(src_desc, engine, a)
            dst = dnnl.Memory(dst_desc, engine, out.T)
            primitive = dnnl.reorder(src_desc, dst_desc, engine)
            own = rng.random() < 0.5
            stream = dnnl.Stream(engine) if own else shared["stream"]
            primitive.execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
            with lock:
                counts["executes"] += 1
            action = rng.random()
            if action < 0.2:
                for obj in (primitive, src, dst):  # close right after execute
                    obj.close()
            elif action < 0.25:
                gc.collect()
            elif action < 0.28 and not own:  # another thread's stream: close and replace
                shared["stream"] = dnnl.Stream(engine)
                stream.close()
            stream.wait()
            if not numpy.array_equal(out.T, a):
                failures.append(f"wrong data for n={n}")
            with lock:
                counts["checked"] += 1
            if own:
                stream.close()
            src_desc.close()
        except dnnl.ClosedObjectError:
            with lock:
                counts["refused"] += 1
        except BaseException as exc:
            failures.append(repr(exc))
            return

threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(THREADS)]
for t in threads:
    t.start()
for t in threads:
    t.join(SECONDS * 10)
alive = [t for t in threads if t.is_alive()]
assert not alive, f"{len(alive)} threads deadlocked"
assert not failures, failures[:5]
shared["stream"].close(); shared_stream.close(); engine.close()
gc.collect()
print(counts["executes"], counts["checked"], counts["refused"], dnnl._owned.live_objects())
"""


def run_workload(seconds: float) -> list[int]:
    try:
        done = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(WORKLOAD), str(seconds)],
            capture_output=True,
            text=True,
            timeout=seconds * 20 + 60,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("the threads hung")
    if done.returncode < 0:
        pytest.fail(f"died of {signal.Signals(-done.returncode).name}:\n{done.stderr[-3000:]}")
    assert done.returncode == 0, done.stderr[-3000:]
    return [int(word) for word in done.stdout.split()]


def test_eight_threads_share_one_cpu_engine_without_crash_deadlock_or_leak():
    executes, checked, refused, live = run_workload(SECONDS)
    assert executes > 100, f"only {executes} executions: the threads barely ran"
    assert checked > 50
    assert live == 0, f"{live} oneDNN handles left after every object was closed"
    print(f"{executes} executes, {checked} results checked, {refused} closed-object refusals")


@pytest.mark.soak
def test_eight_threads_for_a_minute():
    _, checked, _, live = run_workload(60)
    assert live == 0 and checked > 1000
