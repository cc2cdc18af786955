"""Python-side cost of ``Primitive.execute``: the binding vs raw cffi vs a C loop.

    OCL_ICD_VENDORS=$PWD/.venv/etc/OpenCL/dnnl-interop-vendors \\
        .venv/bin/python benchmarks/bench_execute.py [--rounds 30] [--calls 100]

Only the CPU path is measured: on this machine real oneDNN makes no GPU
engine (no Intel GPU), so ``ocl.execute`` can only fail here. The CPU engine
is the real one (SYCL's CPU device, through Intel's CPU OpenCL runtime: hence
``OCL_ICD_VENDORS``). The primitive is a 2x2 f32 reorder ab -> ba, executed
with three arguments, ``{ARG_FROM: m1, ARG_TO: m2, ARG_SCRATCHPAD: None}``
(the NULL scratchpad is skipped by oneDNN).

Variants, interleaved round by round in this one process; each round runs
``--calls`` executions, each followed by a wait on the stream (back-to-back
submissions without waits are no cleaner: with two cores the runtime's
worker and the submitting thread compete, and such rounds swing between ~5
and ~90 µs a call):

* ``binding``: ``primitive.execute(stream, args)`` with the dict above;
* ``raw cffi``: ``lib.dnnl_primitive_execute(p, s, 3, c_args)`` on the
  binding's API-mode ``lib`` with handles and a ``dnnl_exec_arg_t[3]`` built
  once beforehand, status checked inline;
* ``C loop``: a C function compiled here (cffi API mode, ``-O2``) calling the
  real ``dnnl_primitive_execute`` (``dlsym`` on the bound libdnnl) with the
  same prebuilt array, timed with ``clock_gettime`` inside C.
* ``floor``: two Python methods that only make the raw cffi calls
  (``execute(stream, args)`` with the prebuilt array, then ``wait()``): the
  least any binding of the two-call loop can cost, with no check and no
  keep-alive of the work in flight;
* ``bound``: ``bound = primitive.bind(stream, args)`` once, then
  ``bound.execute()`` and ``stream.wait()``; ``bound wait=True``:
  ``bound.execute(wait=True)``, the two in one call from Python (and one
  into C, the package's fast path, ``csrc/fastpath.c``);
* ``C per call, GIL let go`` and ``C per call, GIL held``: the C loop's
  body (the real execute then wait) as a C function of the Python C API,
  called once per iteration from a Python loop, the GIL let go around the
  two calls (as cffi and the binding do) or held: what a return to Python
  between oneDNN's calls costs, without any binding work.

oneDNN's own execute + wait of this reorder runs in two modes: ~6.5 µs
(the first ~2,400 back-to-back executions of a process, and for as long as
the loop pauses between runs of 100) or ~50 µs (sustained back-to-back
loops). ``--pause 0.03`` sleeps that long, untimed, before every timed run,
which keeps every round in the fast mode; without it, the script splits the
rounds by mode. The ratios are paired within each round. Neither
the difference of those medians nor the median of the per-round paired
differences (also printed) resolves a µs. A second, isolated measurement
settles it: the variants with the oneDNN calls replaced by C no-ops of the
same signatures (the package's C fast path calls them through
``_inflight.fast_calls``, and ``_primitive._primitive_execute``, the
function its Python path calls, is swapped for the no-op for the duration;
the package is not modified; the binding is made before, with oneDNN's
execute, as a user makes it), so only the Python-side work differs; each
run without waits is followed by an untimed wait that lets go of what it
registered (within such a run every execute after the first finds its
objects registered at the stream's current epoch already, which the C fast
path does not register again; the variants with a wait, ``binding + wait``
and ``bound wait=True``, register anew at each call, or not at all for the
latter). ``--cpu-time`` times it in CPU time of the thread, which other
processes on a loaded machine disturb less than the wall clock.
``execute's C function`` and ``bound's C function`` call the C fast path's
functions (``_inflight.fast``) directly, without the methods around them: what
the methods themselves add (a Python frame each, before they were methods of
C, ``_inflight.fast_method``).
``--baseline REV`` adds ``binding`` and ``bound`` of the package as of git
revision REV to it. Targets: binding minus raw cffi at most 1.0 µs a call; a bound
execute (``primitive.bind(stream, args)``, then ``bound.execute()``, the
``bound`` variant) at most 0.5 µs; execute then wait at most 1.10x the C loop.
"""

from __future__ import annotations

import argparse
import time

from _bench import (
    Results,
    add_json_option,
    compile_loops,
    interleave,
    median,
    real_function,
    report,
    require_intel_cpu_opencl,
)

FAST_MODE = 20e-6  # seconds per execute + wait of the C loop under which a round is in the fast mode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--calls", type=int, default=100, help="executions per variant per round")
    parser.add_argument("--isolated-calls", type=int, default=5000,
                        help="calls per variant per round of the no-op measurement")
    parser.add_argument("--pause", type=float, default=0.0, metavar="SECONDS",
                        help="sleep this long (untimed) before each timed run: 0.03 keeps oneDNN's "
                             "execute + wait in its fast mode for every round")
    parser.add_argument("--cpu-time", action="store_true",
                        help="time the isolated measurement in CPU time of this thread (time.thread_time), "
                             "which other processes on a loaded machine disturb less than the wall clock")
    parser.add_argument("--baseline", metavar="REV",
                        help="also time Primitive.execute of the package as of git revision REV "
                             "(imported under another name, sharing this build's _ffi)")
    add_json_option(parser)
    args = parser.parse_args()
    require_intel_cpu_opencl()
    results = Results()

    import numpy

    import dnnl_interop as dnnl
    from dnnl_interop._ffi import ffi, lib

    library = dnnl.load_library()
    engine = dnnl.Engine.cpu()
    stream = dnnl.Stream(engine)
    src_md = dnnl.MemoryDesc((2, 2), "f32", "ab")
    dst_md = dnnl.MemoryDesc((2, 2), "f32", "ba")
    primitive = dnnl.reorder(src_md, dst_md, engine)
    src = numpy.arange(4, dtype=numpy.float32).reshape(2, 2)
    dst = numpy.zeros((2, 2), numpy.float32).T  # the strides of "ba"
    m_src = dnnl.Memory(src_md, engine, src)
    m_dst = dnnl.Memory(dst_md, engine, dst)
    exec_args = {dnnl.ARG_FROM: m_src, dnnl.ARG_TO: m_dst, dnnl.ARG_SCRATCHPAD: None}

    primitive.execute(stream, exec_args)
    stream.wait()
    assert dst.tolist() == src.tolist() and dst.base.ravel().tolist() == [0.0, 2.0, 1.0, 3.0], dst

    c_args = ffi.new(
        "dnnl_exec_arg_t[3]",
        [(dnnl.ARG_FROM, m_src.handle), (dnnl.ARG_TO, m_dst.handle), (dnnl.ARG_SCRATCHPAD, ffi.NULL)],
    )
    p_handle, s_handle = primitive.handle, stream.handle

    bench_ffi, bench_lib = compile_loops("_bench_execute")
    vp = bench_ffi.cast
    execute_ptr = vp("void *", real_function("dnnl_primitive_execute"))
    wait_ptr = vp("void *", real_function("dnnl_stream_wait"))
    c_loop_args = (
        vp("void *", primitive.int_ptr), vp("void *", stream.int_ptr),
        3, vp("void *", int(ffi.cast("uintptr_t", c_args))),
    )

    def execute_then_wait(execute_method, wait_method, stream_arg):
        """The loop ``execute(stream_arg, exec_args)`` then ``wait()``, timed."""
        def run(n):
            execute, wait, on = execute_method, wait_method, stream_arg
            t0 = time.perf_counter()
            for _ in range(n):
                execute(on, exec_args)
                wait()
            return time.perf_counter() - t0
        return run

    binding = execute_then_wait(primitive.execute, stream.wait, stream)

    bound = primitive.bind(stream, exec_args) if hasattr(primitive, "bind") else None

    def bound_loop(n):
        execute, wait = bound.execute, stream.wait
        t0 = time.perf_counter()
        for _ in range(n):
            execute()
            wait()
        return time.perf_counter() - t0

    def bound_wait_loop(n):
        execute = bound.execute
        t0 = time.perf_counter()
        for _ in range(n):
            execute(wait=True)
        return time.perf_counter() - t0

    class FloorPrimitive:  # the raw calls behind two methods, nothing else
        def execute(self, stream, exec_args, _execute=lib.dnnl_primitive_execute):
            if _execute(p_handle, s_handle, 3, c_args):
                raise RuntimeError("dnnl_primitive_execute failed")

    class FloorStream:
        def wait(self, _wait=lib.dnnl_stream_wait):
            if _wait(s_handle):
                raise RuntimeError("dnnl_stream_wait failed")

    floor_stream = FloorStream()
    floor = execute_then_wait(FloorPrimitive().execute, floor_stream.wait, floor_stream)

    def raw(n):
        execute, wait = lib.dnnl_primitive_execute, lib.dnnl_stream_wait
        t0 = time.perf_counter()
        for _ in range(n):
            if execute(p_handle, s_handle, 3, c_args):
                raise RuntimeError("dnnl_primitive_execute failed")
            if wait(s_handle):
                raise RuntimeError("dnnl_stream_wait failed")
        return time.perf_counter() - t0

    def c_loop(n):
        seconds = bench_lib.execute_wait_loop(execute_ptr, wait_ptr, c_loop_args[0], c_loop_args[1],
                                              c_loop_args[2], c_loop_args[3], n)
        if seconds < 0:
            raise RuntimeError("the C loop saw a failing call")
        return seconds

    # The C loop's body, one execute + wait per call from Python: what returning to Python
    # between oneDNN's calls costs, with the GIL let go around them (as cffi and the binding do)
    # or held.
    once = _per_call_module(execute_ptr, wait_ptr, c_loop_args)

    def c_per_call(release_gil):
        def run(n):
            call = once
            t0 = time.perf_counter()
            for _ in range(n):
                call(release_gil)
            return time.perf_counter() - t0
        return run

    print(f"{library.version} at {library.path}; engine {engine.kind.name}")
    results.machine(onednn=str(library.version), engine=engine.kind.name)
    print(f"{args.rounds} rounds x {args.calls} executions, each + wait, per variant, interleaved; "
          "per execution:")
    loops = {"binding": binding, "raw cffi": raw, "floor": floor, "C loop": c_loop,
             "C per call, GIL let go": c_per_call(True), "C per call, GIL held": c_per_call(False)}
    if bound is not None:
        loops["bound"] = bound_loop
        loops["bound wait=True"] = bound_wait_loop
    if args.pause:
        loops = {name: _paused(loop, args.pause) for name, loop in loops.items()}
        print(f"  (each timed run preceded by an untimed {args.pause} s pause)")
    real = interleave(loops, args.rounds, args.calls)
    m = report(real)
    results.add("execute + wait", real, "s",
                f"2x2 f32 reorder on the CPU engine: seconds per execute + wait, the mean of {args.calls} "
                "in each round; the variants interleaved round by round")
    print(f"  binding / C = {m['binding'] / m['C loop']:.3f}x; extra per call: "
          f"binding - C = {(m['binding'] - m['C loop']) * 1e6:.3f} µs, "
          f"binding - raw cffi = {(m['binding'] - m['raw cffi']) * 1e6:.3f} µs, "
          f"raw cffi - C = {(m['raw cffi'] - m['C loop']) * 1e6:.3f} µs")
    if bound is not None:
        print(f"  bound / C = {m['bound'] / m['C loop']:.3f}x; bound.execute(wait=True) / C = "
              f"{m['bound wait=True'] / m['C loop']:.3f}x (target: 1.10x)")
    paired = [b - c for b, c in zip(real["binding"], real["C loop"], strict=True)]
    paired_raw = [b - r for b, r in zip(real["binding"], real["raw cffi"], strict=True)]
    print(f"  median of per-round paired differences: binding - C = {median(paired) * 1e6:.3f} µs, "
          f"binding - raw cffi = {median(paired_raw) * 1e6:.3f} µs (noise: tens of µs)")
    # The rounds are bimodal (oneDNN's own execute + wait takes ~7 or ~50 µs for stretches of
    # time): the ratio to the C loop, paired within each round, for the rounds of each mode.
    fast = [i for i, c in enumerate(real["C loop"]) if c < FAST_MODE]
    for label, rounds in ((f"C loop under {FAST_MODE * 1e6:.0f} µs", fast),
                          (f"C loop over {FAST_MODE * 1e6:.0f} µs",
                           [i for i in range(len(real["C loop"])) if i not in fast])):
        if not rounds:
            print(f"  rounds with the {label}: none")
            continue
        c_median = median([real["C loop"][i] for i in rounds])
        ratios = {name: median([real[name][i] / real["C loop"][i] for i in rounds])
                  for name in real if name != "C loop"}
        shown = ", ".join(f"{name} {ratio:.3f}x" for name, ratio in ratios.items())
        mode = "fast" if rounds is fast else "slow"
        results.derive(f"{mode} mode: rounds", len(rounds))
        results.derive(f"{mode} mode: C loop median (s)", c_median)
        results.derive(f"{mode} mode: median paired ratio to the C loop", ratios)
        print(f"  rounds with the {label}: {len(rounds)}, C loop median {c_median * 1e6:.1f} µs; "
              f"median paired ratio to the C loop: {shown}")

    # --- isolated: the same calls into a C no-op -----------------------------------
    noop = bench_lib.noop_execute
    c_noop = bench_ffi.cast("void *", bench_ffi.addressof(bench_lib, "noop_execute"))

    clock = time.thread_time if args.cpu_time else time.perf_counter

    def binding_noop(n):
        execute = primitive.execute
        t0 = clock()
        for _ in range(n):
            execute(stream, exec_args)
        seconds = clock() - t0
        stream.wait()  # untimed: lets go of what the run registered
        return seconds

    def raw_noop(n):
        t0 = clock()
        for _ in range(n):
            if noop(p_handle, s_handle, 3, c_args):
                raise RuntimeError("unreachable")
        return clock() - t0

    def c_loop_noop(n):
        # A no-op "wait" too: the no-op execute stands in for both.
        t0 = clock()
        seconds = bench_lib.execute_loop(c_noop, c_noop, c_loop_args[0], c_loop_args[1],
                                         c_loop_args[2], c_loop_args[3], n)
        return seconds if clock is time.perf_counter else clock() - t0

    def binding_wait_noop(n):
        execute, wait = primitive.execute, stream.wait
        t0 = clock()
        for _ in range(n):
            execute(stream, exec_args)
            wait()
        return clock() - t0

    def bound_wait_noop(n):
        execute = bound.execute
        t0 = clock()
        for _ in range(n):
            execute(wait=True)
        return clock() - t0

    def raw_wait_noop(n):
        t0 = clock()
        for _ in range(n):
            if noop(p_handle, s_handle, 3, c_args) or noop_wait(s_handle):
                raise RuntimeError("unreachable")
        return clock() - t0

    def bound_noop(n):
        execute = bound.execute  # bound with oneDNN's execute, as a user binds; its calls reach the no-op
        t0 = clock()
        for _ in range(n):
            execute()
        seconds = clock() - t0
        stream.wait()  # untimed: lets go of what the run registered
        return seconds

    noop_wait = bench_lib.noop_wait
    variants = {"binding": binding_noop, "raw cffi": raw_noop, "C loop": c_loop_noop,
                "binding + wait": binding_wait_noop, "raw cffi + wait": raw_wait_noop}
    if bound is not None:
        variants["bound"] = bound_noop
        variants["bound wait=True"] = bound_wait_noop
    fast = _fast_functions()
    if fast is not None:
        def fast_execute_noop(n):
            execute = fast["execute"]
            t0 = clock()
            for _ in range(n):
                execute(primitive, stream, exec_args)
            seconds = clock() - t0
            stream.wait()
            return seconds

        def fast_bound_noop(n):
            execute = fast["execute_bound"]
            t0 = clock()
            for _ in range(n):
                execute(bound)
            seconds = clock() - t0
            stream.wait()
            return seconds

        variants["execute's C function"] = fast_execute_noop
        variants["bound's C function"] = fast_bound_noop
    baseline_module = None
    if args.baseline:
        baseline_module, baseline_noop, baseline_bound_noop = _baseline_variant(
            args.baseline, engine_args=(src, dst), clock=clock)
        variants[f"binding at {args.baseline}"] = baseline_noop
        if bound is not None:
            variants[f"bound at {args.baseline}"] = baseline_bound_noop
    if bound is not None:  # checked now: a binding's first call after objects changed takes the Python path
        bound.execute(wait=True)
    execute_module = _execute_module(primitive)
    real_execute = execute_module._primitive_execute
    # The no-ops in place of oneDNN's calls on both paths: the C fast path's (fast_calls) and the
    # Python one's (_primitive_execute, the function it calls).
    execute_module._primitive_execute = noop
    calls = _fast_calls(bench_ffi, bench_lib)
    calls.__enter__()
    if baseline_module is not None:
        baseline_module._primitive_execute = noop
    try:
        before = bench_lib.noop_calls()
        binding_noop(10)
        if bound is not None:
            bound_noop(10)
        if bench_lib.noop_calls() - before != (22 if bound is not None else 11):  # 10 executes and a wait each
            raise SystemExit("Primitive.execute or BoundExecution.execute no longer calls the replaced "
                             "functions: the isolated measurement needs updating")
        print(f"isolated: the oneDNN calls replaced by C no-ops; {args.rounds} rounds x "
              f"{args.isolated_calls} calls; {'CPU time of this thread' if args.cpu_time else 'wall clock'} "
              "per call:")
        isolated = interleave(variants, args.rounds, args.isolated_calls)
        iso = report(isolated)
        results.add("isolated", isolated, "s",
                    f"the oneDNN call replaced by a C no-op: seconds per call, the mean of {args.isolated_calls} "
                    "in each round")
    finally:
        execute_module._primitive_execute = real_execute
        calls.__exit__(None, None, None)
    if args.baseline:
        then = iso[f"binding at {args.baseline}"]
        print(f"  binding now - binding at {args.baseline} = {(iso['binding'] - then) * 1e6:.3f} µs a call")
        if bound is not None:
            then = iso[f"bound at {args.baseline}"]
            print(f"  bound now - bound at {args.baseline} = {(iso['bound'] - then) * 1e6:.3f} µs a call")
    extra = iso["binding"] - iso["raw cffi"]
    print(f"  Python-side extra of the binding: binding - raw cffi = {extra * 1e6:.3f} µs, "
          f"binding - C = {(iso['binding'] - iso['C loop']) * 1e6:.3f} µs")
    verdict = "meets" if extra <= 1e-6 else "MISSES"
    print(f"  target extra <= 1.0 µs: {verdict}")
    if bound is not None:
        bound_extra = iso["bound"] - iso["raw cffi"]
        print(f"  bound - raw cffi = {bound_extra * 1e6:.3f} µs; target <= 0.5 µs: "
              f"{'meets' if bound_extra <= 0.5e-6 else 'MISSES'}")
        results.derive("isolated: bound - raw cffi (s)", bound_extra)
        wait_extra = iso["bound wait=True"] - iso["raw cffi + wait"]
        print(f"  with the wait: binding + wait - raw cffi + wait = "
              f"{(iso['binding + wait'] - iso['raw cffi + wait']) * 1e6:.3f} µs, "
              f"bound wait=True - raw cffi + wait = {wait_extra * 1e6:.3f} µs")
        results.derive("isolated: bound wait=True - raw cffi + wait (s)", wait_extra)
    results.derive("isolated: binding - raw cffi (s)", extra)
    results.write(args.json)
    for memory in (m_src, m_dst):
        memory.close()
    primitive.close()
    stream.close()
    engine.close()


PER_CALL_CDEF = """
int per_call_install(uintptr_t namespace, void *execute, void *wait, void *primitive, void *stream, int nargs,
                     void *args);
"""

PER_CALL_SOURCE = r"""
typedef int (*execute_fn_t)(void *primitive, void *stream, int nargs, const void *args);
typedef int (*wait_fn_t)(void *stream);
static execute_fn_t per_call_execute;
static wait_fn_t per_call_wait;
static void *per_call_primitive, *per_call_stream, *per_call_args;
static int per_call_nargs;

/* once(release_gil): one execute then wait, the GIL let go around both or held. */
static PyObject *per_call_once(PyObject *self, PyObject *release) {
    (void)self;
    int failed;
    if (PyObject_IsTrue(release)) {
        Py_BEGIN_ALLOW_THREADS
        failed = per_call_execute(per_call_primitive, per_call_stream, per_call_nargs, per_call_args)
            || per_call_wait(per_call_stream);
        Py_END_ALLOW_THREADS
    } else {
        failed = per_call_execute(per_call_primitive, per_call_stream, per_call_nargs, per_call_args)
            || per_call_wait(per_call_stream);
    }
    if (failed) {
        PyErr_SetString(PyExc_RuntimeError, "a oneDNN call failed");
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyMethodDef per_call_method = {"once", per_call_once, METH_O, NULL};

static int per_call_install(uintptr_t namespace, void *execute, void *wait, void *primitive, void *stream,
                            int nargs, void *args) {
    PyGILState_STATE gil = PyGILState_Ensure();
    per_call_execute = (execute_fn_t)execute, per_call_wait = (wait_fn_t)wait;
    per_call_primitive = primitive, per_call_stream = stream, per_call_nargs = nargs, per_call_args = args;
    PyObject *function = PyCFunction_NewEx(&per_call_method, NULL, NULL);
    int status = function == NULL || PyDict_SetItemString((PyObject *)namespace, "once", function) < 0 ? -1 : 0;
    Py_XDECREF(function);
    if (status)
        PyErr_Clear();
    PyGILState_Release(gil);
    return status;
}
"""


def _per_call_module(execute_ptr, wait_ptr, c_loop_args):
    """``once(release_gil)``: the C loop's body as a Python function of the CPython C API
    (one execute then wait of the real oneDNN functions), installed into a dict by address."""
    from _bench import compile_module

    per_call_ffi, per_call_lib = compile_module("_bench_execute_per_call", PER_CALL_CDEF, PER_CALL_SOURCE)
    namespace = {}

    def pointer(cdata):  # a void * of the benchmark's other cffi module
        return per_call_ffi.cast("void *", int(per_call_ffi.cast("uintptr_t", cdata)))

    primitive, stream, nargs, args = c_loop_args
    if per_call_lib.per_call_install(id(namespace), pointer(execute_ptr), pointer(wait_ptr), pointer(primitive),
                                     pointer(stream), nargs, pointer(args)):
        raise RuntimeError("the per-call C function could not be installed")
    return namespace["once"]


def _fast_functions():
    """The package's C fast path functions (``_inflight.fast``), called directly by the
    variants that measure what the methods add over them; None where the package has none."""
    try:
        from dnnl_interop._inflight import fast
    except ImportError:
        return None
    return fast if "execute_bound" in fast else None


def _fast_calls(bench_ffi, bench_lib):
    """The package's C fast path calling the benchmark's no-ops (a context manager)."""
    from dnnl_interop._inflight import fast_calls

    def address(name):
        return int(bench_ffi.cast("uintptr_t", bench_ffi.addressof(bench_lib, name)))

    return fast_calls(address("noop_execute"), address("noop_wait"))


def _paused(loop, seconds):
    def run(n):
        time.sleep(seconds)
        return loop(n)
    return run


def _baseline_variant(revision: str, engine_args, clock=time.perf_counter):
    """This package's Python modules as of ``revision``, importable as
    ``dnnl_interop_baseline`` (``_ffi`` stays this build's): the module whose
    ``_primitive_execute`` its primitives call, and a no-op-timing function
    like ``binding_noop``."""
    import importlib
    import pathlib
    import shutil
    import subprocess
    import sys
    import tempfile

    import dnnl_interop

    root = pathlib.Path(tempfile.mkdtemp(prefix="dnnl-interop-baseline-"))
    package = root / "dnnl_interop_baseline"
    shutil.copytree(pathlib.Path(dnnl_interop.__file__).parent, package)
    checkout = pathlib.Path(__file__).resolve().parent.parent
    listing = subprocess.run(["git", "ls-tree", "--name-only", f"{revision}:dnnl_interop"], check=True,
                             capture_output=True, text=True, cwd=checkout).stdout.split()
    for name in (name for name in listing if name.endswith(".py")):
        text = subprocess.run(["git", "show", f"{revision}:dnnl_interop/{name}"], check=True,
                              capture_output=True, cwd=checkout).stdout
        (package / name).write_bytes(text)
    sys.path.insert(0, str(root))
    old = importlib.import_module("dnnl_interop_baseline")
    old_args = importlib.import_module("dnnl_interop_baseline._args").ARGS
    engine = old.Engine.cpu()
    stream = old.Stream(engine)
    src_md = old.MemoryDesc((2, 2), "f32", "ab")
    dst_md = old.MemoryDesc((2, 2), "f32", "ba")
    primitive = old.reorder(src_md, dst_md, engine)
    src, dst = engine_args
    exec_args = {old_args["ARG_FROM"]: old.Memory(src_md, engine, src),
                 old_args["ARG_TO"]: old.Memory(dst_md, engine, dst),
                 old_args["ARG_SCRATCHPAD"]: None}

    def baseline_noop(n):
        execute = primitive.execute
        t0 = clock()
        for _ in range(n):
            execute(stream, exec_args)
        seconds = clock() - t0
        stream.wait()
        return seconds

    bound = []  # bound once the no-op is in place: a binding of older revisions keeps the function it was made with

    def baseline_bound_noop(n):
        if not bound:
            bound.append(primitive.bind(stream, exec_args))
        execute = bound[0].execute
        t0 = clock()
        for _ in range(n):
            execute()
        seconds = clock() - t0
        stream.wait()
        return seconds

    baseline_noop.keep = (engine, stream, primitive, exec_args, src_md, dst_md, bound)
    return _execute_module(primitive), baseline_noop, baseline_bound_noop


def _execute_module(primitive):
    """The module whose ``_primitive_execute`` the primitive's ``execute`` calls:
    the one defining its class (``core`` in older revisions)."""
    import importlib

    return importlib.import_module(type(primitive).__module__)


if __name__ == "__main__":
    main()
