"""Do the binding's C calls release the GIL? Throughput with threads where C dominates.

    OCL_ICD_VENDORS=$PWD/.venv/etc/OpenCL/dnnl-interop-vendors \\
        .venv/bin/python benchmarks/bench_threads.py [--rounds 5] [--seconds 1.5]

Each thread owns a stream and a reorder of a 512x512 f32 matrix on one shared
CPU engine and loops ``execute`` + ``wait``: almost all the time of a call is
in oneDNN (the reorder itself and the wait for it). If the binding held the
GIL during its C calls, a second Python thread could not submit while the
first one waits, and two threads would do no more work than one. cffi
releases the GIL around every call of an API-mode function, and the binding
keeps no lock across a wait. oneDNN's CPU reorder is itself parallel (its
TBB workers use both cores of this machine), so more submitting threads add
no throughput here, with the binding or with bare cffi alike; what they show
is that threads do not slow each other down.

The last measurement asks the question directly: a pure-Python loop counts
alone, then beside a thread looping execute + wait. If the C calls held the
GIL, the loop would run only in that thread's short Python gaps.

A second measurement times the blob-id call (C work of ~0.35 µs, Python
around it ~1 µs) with 1 and 2 threads: there the GIL-held Python part
dominates and no scaling is expected; it shows the threads do not slow each
other down beyond that.

Variants alternate round by round; medians over rounds of the total
executions per second.
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time

from _bench import require_intel_cpu_opencl


def run_threads(count: int, seconds: float, work) -> float:
    """Calls per second of ``count`` threads each looping ``work(state)``."""
    states = [work.setup() for _ in range(count)]
    done = [0] * count
    start = threading.Barrier(count + 1)
    stop = time.perf_counter

    def loop(i):
        state = states[i]
        start.wait()
        deadline = stop() + seconds
        n = 0
        while stop() < deadline:
            work(state)
            n += 1
        done[i] = n

    threads = [threading.Thread(target=loop, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    start.wait()
    t0 = time.perf_counter()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - t0
    for state in states:
        work.teardown(state)
    return sum(done) / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.5)
    args = parser.parse_args()
    require_intel_cpu_opencl()

    import numpy
    import pyopencl

    import dnnl_interop as dnnl
    from dnnl_interop import ocl

    engine = dnnl.Engine.cpu()
    n = 512

    def reorder(state):
        primitive, stream, exec_args = state
        primitive.execute(stream, exec_args)
        stream.wait()

    def reorder_setup():
        a = numpy.random.default_rng(0).standard_normal((n, n)).astype(numpy.float32)
        src = dnnl.Memory(dnnl.MemoryDesc(a.shape, a.dtype, "ab"), engine, a)
        dst = dnnl.Memory(dnnl.MemoryDesc(a.shape, a.dtype, "ba"), engine, numpy.empty_like(a))
        return dnnl.reorder(src.desc, dst.desc, engine), dnnl.Stream(engine), {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst}

    def reorder_teardown(state):
        primitive, stream, _ = state
        stream.close()
        primitive.close()

    reorder.setup, reorder.teardown = reorder_setup, reorder_teardown

    device = pyopencl.get_platforms()[0].get_devices()[0]

    def blob_id(state):
        ocl.get_engine_cache_blob_id(device)

    blob_id.setup, blob_id.teardown = (lambda: None), (lambda state: None)

    for name, work, counts in (
        (f"reorder {n}x{n} f32 execute + wait", reorder, (1, 2, 4)),
        ("ocl.get_engine_cache_blob_id", blob_id, (1, 2)),
    ):
        results: dict[int, list[float]] = {count: [] for count in counts}
        run_threads(1, 0.2, work)  # warm-up
        for r in range(args.rounds):
            for count in counts[r % len(counts):] + counts[: r % len(counts)]:
                results[count].append(run_threads(count, args.seconds, work))
        single = statistics.median(results[1])
        print(f"{name}: {args.rounds} rounds of {args.seconds} s, calls per second (median):")
        for count in counts:
            rate = statistics.median(results[count])
            print(f"  {count} thread{'s' if count > 1 else ' '}  {rate:12.0f}   {rate / single:.2f}x one thread")
    # The direct question: while one thread is inside oneDNN (execute + wait),
    # can another thread run Python? Count a pure-Python loop alone, then
    # beside a thread looping reorders.
    state = reorder_setup()
    stop_flag = threading.Event()

    def reorders():
        while not stop_flag.is_set():
            reorder(state)

    def count_for(seconds: float) -> float:
        n, deadline = 0, time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            n += 1
        return n / seconds

    alone, beside = [], []
    for _ in range(args.rounds):
        alone.append(count_for(args.seconds))
        stop_flag.clear()
        worker = threading.Thread(target=reorders)
        worker.start()
        beside.append(count_for(args.seconds))
        stop_flag.set()
        worker.join()
    reorder_teardown(state)
    a, b = statistics.median(alone), statistics.median(beside)
    print("a Python loop's iterations per second (median):")
    print(f"  alone                                  {a:12.0f}")
    print(f"  beside a thread looping execute + wait {b:12.0f}   {b / a:.2f}x alone")
    print("  (a GIL held through the C calls would leave the loop only the reorder thread's Python gaps)")
    engine.close()


if __name__ == "__main__":
    main()
