"""Large work on the CPU engine: where the time between two executions goes.

    OCL_ICD_VENDORS=$PWD/.venv/etc/OpenCL/dnnl-interop-vendors \\
        .venv/bin/python benchmarks/bench_large_work.py [--rounds 30] [--cold-rounds 150] [--json PATH]

``bench_primitives.py`` finds ``primitive.execute(stream, args)`` then
``stream.wait()`` of a 256³ matmul well over the C loop, by 20 µs and more
per execution, when the binding's Python side costs a few µs timed alone.
This script tests the explanations on the same two primitives (matmul
256x256x256 f32 and the 3x3 convolution 64 -> 64 on 1x64x56x56 f32, "format
any", inputs reordered once), in one process.

**Part 1, the loop** (``--rounds``): per primitive, every variant runs
blocks of 6 executions, each followed by a wait, in a new random order
(seeded) for each of 8 blocks a round (48 executions of each per round);
printed per variant: the median over the rounds of the time per execution,
and the median of the per-round ratios and differences to the C loop (the
blocks of both within a few ms of each other); then the median of every
execution's own time (from the end of the one before), over the C loop's:
robust to the preemptions of a loaded machine, which hit a round's mean.
Each Python loop's timing (a ``perf_counter`` call and a list append per
execution, ~0.1 µs hot) counts in its times; the C loop reads its clock in C.

* ``C loop``: a C function (cffi API mode, ``-O2``) calling the real
  ``dnnl_primitive_execute`` and ``dnnl_stream_wait`` (``dlsym`` on the bound
  libdnnl) with the binding's handles and an argument array built once,
  timed in C;
* ``C loop, spin 10 / 30 µs``: the same with a busy loop of that long after
  every wait, its own time taken off: does a pause between executions cost
  anything by itself (the runtime's worker threads going to sleep, the
  submitting thread losing its core)?
* ``C loop, memset 4 MiB``: the same with 4 MiB written after every wait, its
  own time taken off: what the next execute costs once the caches of the
  submitting thread's core are cold;
* ``ctypes, GIL released`` / ``ctypes, GIL held``: a Python loop making one
  call per execution into a C function that executes and waits, through
  ``ctypes.CFUNCTYPE`` (which releases the GIL, as cffi does) and through
  ``ctypes.PYFUNCTYPE`` (which keeps it): what releasing and taking back the
  GIL around each call costs;
* ``raw cffi``: ``lib.dnnl_primitive_execute`` and ``lib.dnnl_stream_wait``
  from a Python loop (the binding's ``lib``, through its function table);
* ``binding``: ``primitive.execute(stream, args)`` then ``stream.wait()``;
* ``bound``: ``primitive.bind(stream, args)`` once, then
  ``bound.execute(wait=True)``;
* ``bound, one-argument call``: the same binding with its one C call made
  through ``lib.dnnl_interop_run_prepared(prepared)`` (one argument, a
  ``dnnl_interop_prepared_t`` of the same handles) instead of
  ``dnnl_interop_execute_and_wait`` of six (set on the instance; the rest of
  ``BoundExecution.execute`` unchanged);
* ``slim bound (prototype)``: a method that tests one attribute and makes one
  call, ``lib.dnnl_interop_run_prepared(call)`` (one argument); the Python a
  bound fast path would keep if its checks and bookkeeping were in C;
* ``locked bound (prototype)``: the slim bound under the stream's lock
  (``threading.Lock``, acquired and released), with one comparison of two
  ints (its last full check's count against a counter of changes): the
  fast path proposed for ``BoundExecution.execute(wait=True)``;
* ``slim plain (prototype)``: ``execute(stream, args)`` that compares the
  arguments with the previous call's (``tuple(args.items())``), appends one
  record to the stream's list of work in flight and calls oneDNN, and a
  ``wait()`` that calls oneDNN then clears that list, each under the stream's
  lock: the fewest Python operations a plain execute + wait that keeps its
  inputs alive can make. No prototype is safe (no check that nothing
  was closed, no deferred destroy); they measure what a path of that size
  costs, not a design.

**Part 2, cold** (``--cold-rounds``): the Python side of each path alone,
oneDNN's calls replaced by C no-ops of the same signatures (the module
globals ``Primitive.execute``, ``Stream.wait`` and a bound execute call, for
the duration; the package is not modified), timed once (``perf_counter``
before and after) right after one of:

* ``hot``: the same measurement twice (what isolated loops such as
  ``bench_execute.py`` measure);
* ``after matmul`` / ``after conv``: one real execute + wait of the primitive,
  called from C;
* ``after memset 4 MiB``: 4 MiB written by C on the same thread, no oneDNN;
* ``after sleep 1 ms``: ``time.sleep(0.001)`` (other processes may run).

Each round runs every (path, before) pair once, in a new random order;
printed: the median over the rounds and the quartiles, and each median over
the hot one.
"""

from __future__ import annotations

import argparse
import ctypes
import importlib
import os
import random
import statistics
import threading
import time

from _bench import Results, add_json_option, compile_module, real_function, require_intel_cpu_opencl

CALLS, BLOCK, WARMUP = 48, 6, 2
SPINS = (10e-6, 30e-6)
MEMSET_KIB = 4096

CDEF = """
typedef struct {
    void *execute; void *wait; void *primitive; void *stream; int nargs; void *args;
} bench_call_t;
int loop(bench_call_t *call, int n, int gap_kind, double gap, double *times);
int execute_and_wait(bench_call_t *call);
int noop_execute(void *primitive, void *stream, int nargs, void *args);
int noop_wait(void *stream);
int noop_execute_and_wait(void *execute_fn, void *wait_fn, void *primitive, void *stream, int nargs, void *args);
long noop_calls(void);
void evict(int kib);
"""

SOURCE = r"""
#include <string.h>
#include <time.h>

typedef struct {
    void *execute; void *wait; void *primitive; void *stream; int nargs; void *args;
} bench_call_t;
typedef int (*execute_fn_t)(void *primitive, void *stream, int nargs, const void *args);
typedef int (*wait_fn_t)(void *stream);

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static char scratch[16 << 20];
static void evict(int kib) {
    static int value;
    memset(scratch, ++value, (size_t)kib * 1024);
}

static int execute_and_wait(bench_call_t *call) {
    return ((execute_fn_t)call->execute)(call->primitive, call->stream, call->nargs, call->args)
        | ((wait_fn_t)call->wait)(call->stream);
}

/* n executions, each followed by a wait and a gap (gap_kind 0: none, 1: spin `gap`
 * seconds, 2: write `gap` KiB): times[i] is the i-th execution's seconds, from the end of
 * the previous one, its gap's own time taken off. Returns -1 on a failure, else 0. */
static int loop(bench_call_t *call, int n, int gap_kind, double gap, double *times) {
    double start = now();
    for (int i = 0; i < n; i++) {
        if (execute_and_wait(call))
            return -1;
        double end = now(), gap_time = 0;
        if (gap_kind) {
            if (gap_kind == 1)
                while (now() - end < gap)
                    ;
            else
                evict((int)gap);
            gap_time = now() - end;
        }
        times[i] = end - start;
        start = end + gap_time;
    }
    return 0;
}

static long noop_count;
static int noop_execute(void *primitive, void *stream, int nargs, void *args) {
    (void)primitive; (void)stream; (void)nargs; (void)args;
    noop_count++;
    return 0;
}
static int noop_wait(void *stream) { (void)stream; noop_count++; return 0; }
static int noop_execute_and_wait(void *execute_fn, void *wait_fn, void *primitive, void *stream,
                                 int nargs, void *args) {
    (void)execute_fn; (void)wait_fn;
    return noop_execute(primitive, stream, nargs, args) | noop_wait(stream);
}
static long noop_calls(void) { return noop_count; }
"""


def _quartiles(values: list[float]) -> tuple[float, float]:
    if len(values) < 2:
        return values[0], values[0]
    q = statistics.quantiles(values, n=4, method="inclusive")
    return q[0], q[2]


def setup():
    """The engine, stream, the two primitives with their arguments, and what must stay alive."""
    import numpy

    import dnnl_interop as dnnl

    engine = dnnl.Engine.cpu()
    stream = dnnl.Stream(engine)
    rng = numpy.random.default_rng(17)
    keep: list[object] = []

    def ready(pd, inputs):
        args = {}
        for arg, array in inputs.items():
            plain = dnnl.Memory(dnnl.MemoryDesc(array.shape, "f32", "abcd"[:array.ndim]), engine, array)
            args[arg] = dnnl.reordered(plain, pd.arg_desc(arg), stream)
            keep.extend((plain, array))
        args[dnnl.ARG_DST] = dnnl.Memory(pd.dst_desc(), engine)
        stream.wait()
        keep.extend(args.values())
        return args

    any_md = dnnl.MemoryDesc((256, 256), "f32", "any")
    mm_pd = dnnl.MatmulDesc(engine, any_md, any_md, any_md)
    a, b = (rng.standard_normal((256, 256), dtype=numpy.float32) for _ in range(2))
    matmul = (dnnl.Primitive(mm_pd), ready(mm_pd, {dnnl.ARG_SRC: a, dnnl.ARG_WEIGHTS: b}))
    shape, w_shape = (1, 64, 56, 56), (64, 64, 3, 3)
    conv_pd = dnnl.ConvolutionForwardDesc(
        engine, dnnl.MemoryDesc(shape, "f32", "any"), dnnl.MemoryDesc(w_shape, "f32", "any"),
        dnnl.MemoryDesc(shape, "f32", "any"), (1, 1), (1, 1), (1, 1))
    x = rng.standard_normal(shape, dtype=numpy.float32)
    w = rng.standard_normal(w_shape, dtype=numpy.float32) / 24
    conv = (dnnl.Primitive(conv_pd), ready(conv_pd, {dnnl.ARG_SRC: x, dnnl.ARG_WEIGHTS: w}))
    for pd in (mm_pd, conv_pd):
        print(f"  {pd.impl_info}: " + ", ".join(f"{what} {getattr(pd, what + '_desc')().tag}"
                                                for what in ("src", "weights", "dst")))
    keep.extend((mm_pd, conv_pd))
    return engine, stream, {"matmul": matmul, "conv": conv}, keep


def c_call(bench_ffi, primitive, stream, c_args, execute_ptr: int, wait_ptr: int):
    """A ``bench_call_t`` of the real oneDNN functions for the C side: the primitive's and the
    stream's handles and the binding's argument array ``c_args`` (``len(c_args)`` arguments)."""
    from dnnl_interop._ffi import ffi

    call = bench_ffi.new("bench_call_t *")
    cast = bench_ffi.cast
    call.execute, call.wait = cast("void *", execute_ptr), cast("void *", wait_ptr)
    call.primitive, call.stream = cast("void *", primitive.int_ptr), cast("void *", stream.int_ptr)
    call.nargs, call.args = len(c_args), cast("void *", int(ffi.cast("uintptr_t", c_args)))
    return call


def runtime_facts() -> str:
    """The threading libraries mapped in this process, and its threads."""
    with open("/proc/self/maps") as maps:
        mapped = {line.split()[-1].rsplit("/", 1)[-1] for line in maps if ".so" in line}
    wanted = ("libtbb", "libiomp", "libgomp", "libsycl", "libintelocl", "libumf")
    found = sorted(name for name in mapped if name.startswith(wanted))
    return f"threading libraries mapped: {', '.join(found)}; {len(os.listdir('/proc/self/task'))} threads"


def one_argument(bound, prepared, run):
    """``bound`` (a ``BoundExecution``) making its execute-and-wait call as ``run(prepared)``:
    the same status convention as ``dnnl_interop_execute_and_wait``, one argument."""
    bound._call_and_wait, bound._c_call_and_wait = run, (prepared,)
    bound._fast = None  # the package's C fast path would not make that call: its Python path does
    return bound


class SlimBound:
    """The prototype of a bound fast path: one test, one C call of one argument."""

    __slots__ = ("_call", "_fast", "_run")

    def __init__(self, call, run) -> None:
        self._call, self._fast, self._run = call, True, run

    def execute(self, wait=False):
        if wait and self._fast:
            if self._run(self._call):
                raise RuntimeError("the prepared call failed")
            return
        raise NotImplementedError("the prototype has the fast path only")


class Changes:
    """Stands for a counter that every event able to end a bound fast path would move."""

    __slots__ = ("count",)

    def __init__(self) -> None:
        self.count = 0


CHANGES = Changes()


class LockedBound:
    """The prototype of the bound fast path proposed: under the stream's lock, one comparison
    (nothing changed since the binding's last full check), one C call of one argument."""

    __slots__ = ("_call", "_checked", "_lock", "_run")

    def __init__(self, call, run, lock) -> None:
        self._call, self._checked, self._lock, self._run = call, CHANGES.count, lock, run

    def execute(self, wait=False):
        lock = self._lock
        lock.acquire()
        try:
            if wait and self._checked == CHANGES.count:
                status = self._run(self._call)
                if status:
                    raise RuntimeError(f"the prepared call failed: {status}")
                return
        finally:
            lock.release()
        raise NotImplementedError("the prototype has the fast path only")


class SlimStream:
    """The prototype of a wait that lets go of the work in flight in one step."""

    __slots__ = ("_handle", "_lock", "_in_flight", "_wait")

    def __init__(self, handle, wait) -> None:
        self._handle, self._lock, self._in_flight, self._wait = handle, threading.Lock(), [], wait

    def wait(self):
        lock = self._lock
        with lock:
            handle = self._handle
        if self._wait(handle):
            raise RuntimeError("dnnl_stream_wait failed")
        with lock:
            self._in_flight.clear()


class SlimPrimitive:
    """The prototype of a plain execute that repeats its previous call: one comparison of the
    arguments, one record of the work in flight, one C call."""

    __slots__ = ("_last", "_execute")

    def __init__(self, stream: SlimStream, args, c_call: tuple, execute) -> None:
        self._last = (stream, tuple(args.items()), c_call)
        self._execute = execute

    def execute(self, stream, args):
        last = self._last
        if last[0] is not stream or tuple(args.items()) != last[1]:
            raise NotImplementedError("the prototype repeats its first call only")
        with stream._lock:
            stream._in_flight.append(last)
            if self._execute(*last[2]):
                raise RuntimeError("dnnl_primitive_execute failed")


def loop_part(stream, primitives, bench_ffi, bench_lib, rounds: int, results: Results) -> None:
    from dnnl_interop._ffi import ffi, lib

    execute_ptr, wait_ptr = real_function("dnnl_primitive_execute"), real_function("dnnl_stream_wait")
    alive: list[object] = []
    address = int(bench_ffi.cast("uintptr_t", bench_ffi.addressof(bench_lib, "execute_and_wait")))
    gil_released = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)(address)
    gil_held = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p)(address)

    times_out = bench_ffi.new("double[]", BLOCK)

    for what, (primitive, args) in primitives.items():
        c_args = ffi.new("dnnl_exec_arg_t[]", [(index, memory.handle) for index, memory in args.items()])
        call = c_call(bench_ffi, primitive, stream, c_args, execute_ptr, wait_ptr)
        call_address = int(bench_ffi.cast("uintptr_t", call))
        prepared = ffi.new("dnnl_interop_prepared_t *", {"primitive": primitive.handle, "stream": stream.handle,
                                                         "nargs": len(args), "args": c_args})
        p, s, nargs = primitive.handle, stream.handle, len(args)
        slim_bound = SlimBound(prepared, lib.dnnl_interop_run_prepared)
        locked_bound = LockedBound(prepared, lib.dnnl_interop_run_prepared, threading.Lock())
        slim_stream = SlimStream(s, lib.dnnl_stream_wait)
        slim_primitive = SlimPrimitive(slim_stream, args, (p, s, nargs, c_args), lib.dnnl_primitive_execute)
        bound = primitive.bind(stream, args)
        bound_one = one_argument(primitive.bind(stream, args), prepared, lib.dnnl_interop_run_prepared)
        alive.extend((c_args, call, prepared, bound, bound_one))

        # Every loop appends each execution's seconds to `times`, from the end of the one
        # before (the first from the start of the block): everything between two executions counts.
        def c_loop(kind, gap, call=call):
            def run(n, times):
                if bench_lib.loop(call, n, kind, gap, times_out):
                    raise RuntimeError("the C loop saw a failing call")
                times.extend(times_out[0:n])
            return run

        def through(function, address=call_address):
            def run(n, times, clock=time.perf_counter):
                last = clock()
                for _ in range(n):
                    function(address)
                    now = clock()
                    times.append(now - last)
                    last = now
            return run

        def raw(n, times, e=lib.dnnl_primitive_execute, w=lib.dnnl_stream_wait, p=p, s=s, nargs=nargs,
                c_args=c_args, clock=time.perf_counter):
            last = clock()
            for _ in range(n):
                if e(p, s, nargs, c_args) or w(s):
                    raise RuntimeError("a raw call failed")
                now = clock()
                times.append(now - last)
                last = now

        def binding(n, times, execute=primitive.execute, wait=stream.wait, args=args, clock=time.perf_counter):
            last = clock()
            for _ in range(n):
                execute(stream, args)
                wait()
                now = clock()
                times.append(now - last)
                last = now

        def with_wait(execute):
            def run(n, times, clock=time.perf_counter):
                last = clock()
                for _ in range(n):
                    execute(wait=True)
                    now = clock()
                    times.append(now - last)
                    last = now
            return run

        def slim_plain(n, times, execute=slim_primitive.execute, wait=slim_stream.wait, s=slim_stream, args=args,
                       clock=time.perf_counter):
            last = clock()
            for _ in range(n):
                execute(s, args)
                wait()
                now = clock()
                times.append(now - last)
                last = now

        loops = {"C loop": c_loop(0, 0.0)}
        loops.update({f"C loop, spin {spin * 1e6:.0f} µs": c_loop(1, spin) for spin in SPINS})
        loops[f"C loop, memset {MEMSET_KIB // 1024} MiB"] = c_loop(2, float(MEMSET_KIB))
        loops.update({
            "ctypes, GIL released": through(gil_released), "ctypes, GIL held": through(gil_held),
            "raw cffi": raw, "binding": binding, "bound": with_wait(bound.execute),
            "bound, one-argument call": with_wait(bound_one.execute),
            "slim bound (prototype)": with_wait(slim_bound.execute),
            "locked bound (prototype)": with_wait(locked_bound.execute), "slim plain (prototype)": slim_plain,
        })
        names = list(loops)
        per_round: dict[str, list[float]] = {name: [] for name in names}
        each: dict[str, list[float]] = {name: [] for name in names}
        shuffler = random.Random(17)
        started = time.perf_counter()
        for r in range(WARMUP + rounds):
            round_times: dict[str, list[float]] = {name: [] for name in names}
            for _ in range(CALLS // BLOCK):
                shuffler.shuffle(names)
                for name in names:
                    loops[name](BLOCK, round_times[name])
            if r >= WARMUP:
                for name in names:
                    per_round[name].append(sum(round_times[name]) / CALLS)
                    each[name].extend(round_times[name])
        c, c_each = per_round["C loop"], statistics.median(each["C loop"])
        print(f"{what}: {rounds} rounds ({time.perf_counter() - started:.1f} s); per execution + wait (a gap's own "
              "time taken off): the median of the per-round means and of the per-round ratios to the C loop "
              "[quartiles], the median difference; the median of every execution's time and its ratio:")
        width = max(map(len, loops))
        for name in loops:
            values = per_round[name]
            ratios = [x / y for x, y in zip(values, c, strict=True)]
            q1, q3 = _quartiles(ratios)
            diff = statistics.median(x - y for x, y in zip(values, c, strict=True))
            median_each = statistics.median(each[name])
            print(f"  {name:<{width}}  {statistics.median(values) * 1e6:8.2f} µs  {statistics.median(ratios):.4f}x "
                  f"[{q1:.4f} .. {q3:.4f}]  {diff * 1e6:+8.2f} µs   each: {median_each * 1e6:8.2f} µs "
                  f"{median_each / c_each:.4f}x")
            results.derive(f"{what}: {name} / C loop (median of the per-round ratios)", statistics.median(ratios))
            results.derive(f"{what}: {name} / C loop (ratio of the medians of every execution)", median_each / c_each)
        results.add(f"loop {what}", {name: per_round[name] for name in loops}, "s",
                    f"{what}: seconds per execution + wait, the mean of {CALLS} in each round, in blocks of {BLOCK} "
                    "in random orders")


def cold_part(stream, primitives, bench_ffi, bench_lib, rounds: int, results: Results) -> None:
    import dnnl_interop._stream as stream_module
    from dnnl_interop._ffi import ffi, lib

    primitive, args = primitives["matmul"]
    execute_module = importlib.import_module(type(primitive).__module__)
    saved = (execute_module._primitive_execute, stream_module._stream_wait, execute_module._execute_and_wait)
    execute_ptr, wait_ptr = real_function("dnnl_primitive_execute"), real_function("dnnl_stream_wait")
    real_calls = {}
    alive: list[object] = []
    for what, (p, a) in primitives.items():
        c_args = ffi.new("dnnl_exec_arg_t[]", [(index, memory.handle) for index, memory in a.items()])
        call = c_call(bench_ffi, p, stream, c_args, execute_ptr, wait_ptr)
        alive.extend((c_args, call))
        real_calls[what] = call

    noop_execute, noop_wait = bench_lib.noop_execute, bench_lib.noop_wait
    c_args = ffi.new("dnnl_exec_arg_t[]", [(index, memory.handle) for index, memory in args.items()])
    p, s, nargs = primitive.handle, stream.handle, len(args)

    def address(name):
        return int(bench_ffi.cast("uintptr_t", bench_ffi.addressof(bench_lib, name)))

    prepared = ffi.new("dnnl_interop_prepared_t *", {
        "execute": ffi.cast("dnnl_interop_execute_fn", address("noop_execute")),
        "wait": ffi.cast("dnnl_interop_wait_fn", address("noop_wait")),
        "primitive": p, "stream": s, "nargs": nargs, "args": c_args})
    slim_bound = SlimBound(prepared, lib.dnnl_interop_run_prepared)
    locked_bound = LockedBound(prepared, lib.dnnl_interop_run_prepared, threading.Lock())
    slim_stream = SlimStream(s, noop_wait)
    slim_primitive = SlimPrimitive(slim_stream, args, (p, s, nargs, c_args), noop_execute)
    clock = time.perf_counter

    execute_module._primitive_execute, stream_module._stream_wait = noop_execute, noop_wait
    execute_module._execute_and_wait = bench_lib.noop_execute_and_wait
    try:
        bound = primitive.bind(stream, args)  # bound now: it keeps the no-op
        bound_one = one_argument(primitive.bind(stream, args), prepared, lib.dnnl_interop_run_prepared)
        before = bench_lib.noop_calls()
        primitive.execute(stream, args)
        stream.wait()
        bound.execute(wait=True)
        bound_one.execute(wait=True)
        slim_bound.execute(wait=True)
        locked_bound.execute(wait=True)
        if bench_lib.noop_calls() - before != 10:
            raise SystemExit("Primitive.execute, Stream.wait or a bound execute no longer calls what this replaces: "
                             "the cold measurement needs updating")

        def binding():
            start = clock()
            primitive.execute(stream, args)
            stream.wait()
            return clock() - start

        def bound_path():
            start = clock()
            bound.execute(wait=True)
            return clock() - start

        def bound_one_path():
            start = clock()
            bound_one.execute(wait=True)
            return clock() - start

        def raw():
            start = clock()
            noop_execute(p, s, nargs, c_args)
            noop_wait(s)
            return clock() - start

        def slim_bound_path():
            start = clock()
            slim_bound.execute(wait=True)
            return clock() - start

        def locked_bound_path():
            start = clock()
            locked_bound.execute(wait=True)
            return clock() - start

        def slim_plain_path():
            start = clock()
            slim_primitive.execute(slim_stream, args)
            slim_stream.wait()
            return clock() - start

        def nothing():
            start = clock()
            return clock() - start

        paths = {"binding execute + wait": binding, "bound execute(wait=True)": bound_path,
                 "bound, one-argument call": bound_one_path,
                 "slim plain (prototype)": slim_plain_path, "slim bound (prototype)": slim_bound_path,
                 "locked bound (prototype)": locked_bound_path,
                 "raw cffi execute + wait": raw, "perf_counter alone": nothing}
        befores = {
            "hot": lambda: None,
            "after matmul": lambda: bench_lib.execute_and_wait(real_calls["matmul"]),
            "after conv": lambda: bench_lib.execute_and_wait(real_calls["conv"]),
            f"after memset {MEMSET_KIB // 1024} MiB": lambda: bench_lib.evict(MEMSET_KIB),
            "after sleep 1 ms": lambda: time.sleep(0.001),
        }
        pairs = [(path, before) for path in paths for before in befores]
        seconds: dict[tuple[str, str], list[float]] = {pair: [] for pair in pairs}
        shuffler = random.Random(17)
        started = time.perf_counter()
        for _ in range(rounds):
            shuffler.shuffle(pairs)
            for path, before in pairs:
                measure = paths[path]
                measure()
                measure()  # hot: run twice first, so that only `before` differs
                befores[before]()
                seconds[path, before].append(measure())
    finally:
        execute_module._primitive_execute, stream_module._stream_wait, execute_module._execute_and_wait = saved
    print(f"cold: the Python side alone (oneDNN's calls as C no-ops), timed once right after each of these, "
          f"{rounds} rounds ({time.perf_counter() - started:.1f} s); median µs [quartiles] (x hot):")
    header = "".join(f"{before:>26}" for before in befores)
    print(f"  {'':<26}{header}")
    for path in paths:
        hot = statistics.median(seconds[path, "hot"])
        cells = []
        for before in befores:
            values = seconds[path, before]
            m = statistics.median(values)
            q1, q3 = _quartiles(values)
            cells.append(f"{m * 1e6:7.2f} [{q1 * 1e6:.1f}..{q3 * 1e6:.1f}] {m / hot:4.1f}x".rjust(26))
        print(f"  {path:<26}" + "".join(cells))
    for before in befores:
        results.add(f"cold {before}", {path: seconds[path, before] for path in paths}, "s",
                    f"the Python side of each path, oneDNN's calls as C no-ops, timed once {before}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30, help="part 1: interleaved rounds (default 30)")
    parser.add_argument("--cold-rounds", type=int, default=150, help="part 2: rounds (default 150)")
    parser.add_argument("--only", choices=("loop", "cold"), help="run one part only")
    add_json_option(parser)
    args = parser.parse_args()
    require_intel_cpu_opencl()
    import dnnl_interop as dnnl

    results = Results()
    library = dnnl.load_library()
    print(f"{library.version}; load average {os.getloadavg()[0]:.2f}")
    results.machine(onednn=str(library.version))
    _engine, stream, primitives, keep = setup()
    for primitive, primitive_args in primitives.values():  # the runtime's threads start here
        primitive.execute(stream, primitive_args)
    stream.wait()
    facts = runtime_facts()
    print(f"  {facts}")
    results.machine(runtime=facts)
    bench_ffi, bench_lib = compile_module("_bench_large_work", CDEF, SOURCE)
    if args.only != "cold":
        loop_part(stream, primitives, bench_ffi, bench_lib, args.rounds, results)
    if args.only != "loop":
        cold_part(stream, primitives, bench_ffi, bench_lib, args.cold_rounds, results)
    print(f"load average {os.getloadavg()[0]:.2f}")
    results.write(args.json)
    del keep


if __name__ == "__main__":
    main()
