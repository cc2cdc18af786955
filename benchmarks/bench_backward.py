"""The backward primitives: the binding's cost of a backward execute against a
forward one's, a convolution's training step against a C loop (CPU), and the
creation of a convolution backward weights primitive cold vs from the store
(emulated GPU, fresh processes).

    OCL_ICD_VENDORS=$PWD/.venv/etc/OpenCL/dnnl-interop-vendors \\
        .venv/bin/python benchmarks/bench_backward.py [--only execute|train|gpu]
            [--rounds 30] [--calls 100] [--isolated-calls 5000] [--train-rounds 40] [--runs 10]

**Part 1, execute** (CPU engine, one process): tiny f32 primitives, forward
and backward, each executed with its arguments in plain layouts:

* ``reorder``: ``bench_execute.py``'s 2x2 ``ab -> ba`` reorder with
  ``ARG_FROM``, ``ARG_TO`` and ``ARG_SCRATCHPAD: None``: the forward figure
  measured before, here in the same process as the others;
* ``conv fwd``: ``ConvolutionForwardDesc`` (forward training), 1x2x4x4 ->
  1x2x4x4, 3x3 weights, padding 1: ``ARG_SRC``, ``ARG_WEIGHTS``, ``ARG_DST``;
* ``conv bwd data``: ``ConvolutionBackwardDataDesc`` with it as the hint:
  ``ARG_DIFF_DST``, ``ARG_WEIGHTS``, ``ARG_DIFF_SRC``;
* ``conv bwd weights``: ``ConvolutionBackwardWeightsDesc``: ``ARG_SRC``,
  ``ARG_DIFF_DST``, ``ARG_DIFF_WEIGHTS``;
* ``eltwise fwd``: ReLU forward training on 2x8: ``ARG_SRC``, ``ARG_DST``;
* ``eltwise bwd``: its backward: ``ARG_SRC``, ``ARG_DIFF_DST``, ``ARG_DIFF_SRC``;
* ``pool fwd``: max pooling forward training, 1x2x4x4, 2x2 kernel, stride
  2: ``ARG_SRC``, ``ARG_DST``, ``ARG_WORKSPACE`` (``workspace_memory(fwd_pd)``);
* ``pool bwd``: its backward: ``ARG_DIFF_DST``, ``ARG_WORKSPACE`` (the same
  memory), ``ARG_DIFF_SRC``. A workspace is checked to be of this primitive's
  forward descriptor at its first execute (the Python path); the C fast path
  takes the next ones, finding that check's record.

First with oneDNN's real calls, each execute followed by a wait, the
variants interleaved round after round (``--rounds`` x ``--calls``):
``binding`` (``primitive.execute(stream, args)`` then ``stream.wait()``),
``bound`` (``primitive.bind(stream, args)`` once, then
``bound.execute(wait=True)``), ``raw cffi`` (``lib.dnnl_primitive_execute``
and ``lib.dnnl_stream_wait`` with an argument array built once) and ``C loop``
(a C function compiled here calling the real ``dnnl_primitive_execute`` and
``dnnl_stream_wait`` through ``dlsym``). Printed: medians and the median of the
per-round ratios to the C loop. Tiny executions take microseconds with
tens of percent of noise here, so these say little of a µs.

Then **isolated** (the figures the targets are about), as ``bench_execute.py``
does: the C fast path's execute and wait (``_inflight.fast_calls``) and
``_primitive._primitive_execute``, the function the Python path calls, are
C no-ops of oneDNN's signatures for the duration (the package is not
modified; the bindings are made before, with oneDNN's calls, as a user makes
them), so the variants differ only in their Python side:
``binding`` (``primitive.execute(stream, args)``, no wait), ``bound``
(``bound.execute()``, no wait) and ``raw cffi`` (the no-op called from a Python
loop with a prebuilt ``dnnl_exec_arg_t[]`` of the same arguments), for each
of the seven, plus a C loop of the no-op. ``--rounds`` x ``--isolated-calls``,
interleaved; an untimed ``stream.wait()`` after each run lets go of what the
run registered. Targets: binding - raw cffi at most 1.0 µs, bound - raw cffi
at most 0.5 µs, for every backward kind, and the same as its forward
(``conv bwd data`` - ``conv fwd``, both of three arguments, is the pair
printed).

**Part 2, train** (CPU engine, one process, ``--train-rounds``): a training
step of a 3x3 convolution, 2x64x56x56 -> 2x64x56x56, 64 -> 64 channels,
stride 1, padding 1, no bias, every descriptor "format any": forward training
(``ARG_SRC``, ``ARG_WEIGHTS``, ``ARG_DST``), backward data (``ARG_DIFF_DST``,
``ARG_WEIGHTS``, ``ARG_DIFF_SRC``) and backward weights (``ARG_SRC``,
``ARG_DIFF_DST``, ``ARG_DIFF_WEIGHTS``), each given its arguments in the
layouts it chose (the inputs reordered there once with ``reordered``; what
it chose is printed), then one wait. Loops, in blocks of ``BLOCK`` steps, one
block of each at a time, in eight orders (the four rotations and their
reverses), ``STEPS`` steps of each per round:

* ``bound``: the three bound once (``primitive.bind(stream, args)``), then per
  step ``fwd.execute()``, ``bwd_data.execute()``, ``bwd_weights.execute(wait=True)``;
* ``binding``: ``primitive.execute(stream, args)`` for the three, then
  ``stream.wait()``;
* ``raw cffi``: three ``lib.dnnl_primitive_execute`` and one
  ``lib.dnnl_stream_wait`` from a Python loop, argument arrays built once;
* ``C loop``: the same four calls in C (the real functions, ``dlsym``),
  timed with ``clock_gettime`` in C.

Printed: medians per step, the ratio to the C loop as the median of the
per-round ratios (paired: the blocks alternate within tens of ms; target for
``bound``: at most 1.02x) and as the ratio of the medians; then the Python
side of a step alone, isolated (the three executes and the wait replaced by C
no-ops, as in part 1). The gradients are checked once against numpy's
float64 result of the same step on a few positions (see ``_check_step``).

**Part 3, gpu** (real oneDNN, emulated GPU, ``dnnl_interop.testing.emulated_gpu``;
fresh processes, ``--runs``): the convolution backward weights of part 2's
shape ("any", no bias), with ``ONEDNN_PRIMITIVE_CACHE_CAPACITY=0``. Each
process enables the emulated GPU, loads oneDNN, makes the OpenCL engine, the
memory descriptors and the forward training descriptor (the hint), and
imports what it uses; then the backward weights descriptor is made (timed
apart, ``descriptor``) and the primitive created, the one time of the
variant. A prepare process creates it cold through ``make_primitive_cached``
on an empty store (a miss, which saves the blob) and writes the blob to a
plain file. Then each run starts three processes in a random order (seeded):

* ``cold``: ``Primitive(pd)``;
* ``store``: ``make_primitive_cached(pd, store)`` on the warm store (the ids,
  the entry read and verified, the primitive made from the blob);
* ``direct``: ``Primitive(pd, blob)``, the blob read from its plain file
  before timing.

Printed: medians over the processes, quartiles, and cold / store (target at
least 5x) as the ratio of the medians and as the median of the per-run
ratios; store / direct for reference. Only oneDNN's generic OpenCL C
kernels run on the emulated GPU: its absolute times say nothing about an
Intel GPU.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

from _bench import (
    LOOPS_CDEF,
    LOOPS_SOURCE,
    Results,
    add_json_option,
    compile_module,
    interleave,
    real_function,
    require_intel_cpu_opencl,
    time_creation,
)

# Part 2, per round: STEPS training steps of each loop, in blocks of BLOCK steps
# (STEPS // BLOCK blocks: the eight orders once).
STEPS, BLOCK, TRAIN_WARMUP = 16, 1, 2
# Part 2's isolated measurement (the oneDNN calls replaced by C no-ops): rounds x steps.
ISOLATED_ROUNDS, ISOLATED_STEPS = 30, 2000
TRAIN_SHAPE, TRAIN_WEIGHTS = (2, 64, 56, 56), (64, 64, 3, 3)

# A training step in C: the primitives executed in turn, then one wait.
STEP_CDEF = """
double step_loop(void *execute_fn, void *wait_fn, int nprimitives, void **primitives, void *stream,
                 int *nargs, void **args, int n);
"""
STEP_SOURCE = r"""
/* Seconds for n steps (each: every primitive executed in turn, then one wait); -1 on a failing call. */
static double step_loop(void *execute_fn, void *wait_fn, int nprimitives, void **primitives, void *stream,
                        int *nargs, void **args, int n) {
    execute_fn_t execute = (execute_fn_t)execute_fn;
    wait_fn_t wait = (wait_fn_t)wait_fn;
    struct timespec t0, t1;
    int failures = 0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < n; i++) {
        for (int p = 0; p < nprimitives; p++)
            failures += execute(primitives[p], stream, nargs[p], args[p]) != 0;
        failures += wait(stream) != 0;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (failures) return -1.0;
    return (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
}
"""


def _quantiles(values: list[float]) -> tuple[float, float]:
    if len(values) < 2:
        return values[0], values[0]
    q = statistics.quantiles(values, n=4, method="inclusive")
    return q[0], q[2]


def _row(name: str, values: list[float], width: int, unit: float = 1e6, label: str = "µs") -> float:
    median = statistics.median(values)
    q1, q3 = _quantiles(values)
    print(f"  {name:<{width}}  median {median * unit:9.3f} {label}   quartiles [{q1 * unit:.3f} .. {q3 * unit:.3f}]"
          f"   range [{min(values) * unit:.3f} .. {max(values) * unit:.3f}]")
    return median


def _paired_ratio(x: list[float], y: list[float]) -> tuple[float, float, float]:
    """The median of the per-round ratios x / y and its quartiles."""
    ratios = [a / b for a, b in zip(x, y, strict=True)]
    return (statistics.median(ratios), *_quantiles(ratios))


class _Cpu:
    """The CPU engine, its stream, the compiled C loops and what must stay alive."""

    def __init__(self, name: str) -> None:
        require_intel_cpu_opencl()
        import dnnl_interop as dnnl
        from dnnl_interop._ffi import ffi, lib

        self.dnnl, self.ffi, self.lib = dnnl, ffi, lib
        self.library = dnnl.load_library()
        self.engine = dnnl.Engine.cpu()
        self.stream = dnnl.Stream(self.engine)
        self.keep: list[object] = []  # numpy buffers, memories, descriptors, C arrays: alive until the end
        self.bench_ffi, self.bench_lib = compile_module(name, LOOPS_CDEF + STEP_CDEF, LOOPS_SOURCE + STEP_SOURCE)
        vp = self.bench_ffi.cast
        self.execute_ptr = vp("void *", real_function("dnnl_primitive_execute"))
        self.wait_ptr = vp("void *", real_function("dnnl_stream_wait"))

    def memory(self, array, tag: str):
        memory = self.dnnl.Memory(self.dnnl.MemoryDesc(array.shape, "f32", tag), self.engine, array)
        self.keep.append((memory, array))
        return memory

    def c_args(self, args):
        """A ``dnnl_exec_arg_t[]`` of ``args`` (alive until the end)."""
        array = self.ffi.new("dnnl_exec_arg_t[]", [(index, self.ffi.NULL if memory is None else memory.handle)
                                                    for index, memory in args.items()])
        self.keep.append(array)
        return array

    def void_p(self, cdata):
        return self.bench_ffi.cast("void *", int(self.ffi.cast("uintptr_t", cdata)))

    def close(self) -> None:
        self.stream.wait()
        for obj in reversed(self.keep):
            if isinstance(obj, tuple):
                obj = obj[0]
            close = getattr(obj, "close", None)
            if close is not None:
                close()
        self.stream.close()
        self.engine.close()


# --- part 1: the cost of a backward execute ---------------------------------------------------


def _tiny_primitives(cpu: _Cpu) -> tuple[dict[str, tuple[object, dict]], dict[str, str]]:
    """The tiny primitives of part 1: ``{name: (primitive, {ARG_*: Memory})}``, and
    ``{name: the implementation oneDNN chose}``."""
    import numpy

    dnnl = cpu.dnnl
    rng = numpy.random.default_rng(5)
    engine, stream = cpu.engine, cpu.stream
    training = dnnl.PropKind.FORWARD_TRAINING

    def array(shape):
        return rng.standard_normal(shape).astype(numpy.float32)

    def desc(shape, tag="abcd"):
        return dnnl.MemoryDesc(shape, "f32", tag)

    made: dict[str, tuple[object, dict]] = {}
    impls: dict[str, str] = {}

    def add(name, pd, args):
        cpu.keep.append(pd)
        impls[name] = pd.impl_info
        primitive = dnnl.Primitive(pd)
        cpu.keep.append(primitive)
        made[name] = (primitive, args)

    # bench_execute.py's reorder, the forward figure quoted before: a link between the two scripts
    r_src, r_dst = desc((2, 2), "ab"), desc((2, 2), "ba")
    add("reorder", dnnl.PrimitiveDesc.reorder(r_src, r_dst, engine),
        {dnnl.ARG_FROM: cpu.memory(array((2, 2)), "ab"),
         dnnl.ARG_TO: cpu.memory(numpy.zeros((2, 2), numpy.float32).T, "ba"), dnnl.ARG_SCRATCHPAD: None})

    x, w, y = (1, 2, 4, 4), (2, 2, 3, 3), (1, 2, 4, 4)
    geometry = dict(strides=(1, 1), padding_l=(1, 1), padding_r=(1, 1))
    conv = dnnl.ConvolutionForwardDesc(engine, desc(x), desc(w), desc(y), **geometry, prop_kind=training)
    src, weights, dst = cpu.memory(array(x), "abcd"), cpu.memory(array(w), "abcd"), cpu.memory(array(y), "abcd")
    diff_src, diff_weights = cpu.memory(array(x), "abcd"), cpu.memory(array(w), "abcd")
    diff_dst = cpu.memory(array(y), "abcd")
    add("conv fwd", conv, {dnnl.ARG_SRC: src, dnnl.ARG_WEIGHTS: weights, dnnl.ARG_DST: dst})
    add("conv bwd data",
        dnnl.ConvolutionBackwardDataDesc(engine, desc(x), desc(w), desc(y), **geometry, hint_fwd_pd=conv),
        {dnnl.ARG_DIFF_DST: diff_dst, dnnl.ARG_WEIGHTS: weights, dnnl.ARG_DIFF_SRC: diff_src})
    add("conv bwd weights",
        dnnl.ConvolutionBackwardWeightsDesc(engine, desc(x), desc(w), desc(y), **geometry, hint_fwd_pd=conv),
        {dnnl.ARG_SRC: src, dnnl.ARG_DIFF_DST: diff_dst, dnnl.ARG_DIFF_WEIGHTS: diff_weights})

    relu = dnnl.AlgKind.ELTWISE_RELU
    e = desc((2, 8), "ab")
    eltwise = dnnl.EltwiseForwardDesc(engine, relu, e, e, prop_kind=training)
    e_src, e_dst, e_diff_dst, e_diff_src = (cpu.memory(array((2, 8)), "ab") for _ in range(4))
    add("eltwise fwd", eltwise, {dnnl.ARG_SRC: e_src, dnnl.ARG_DST: e_dst})
    add("eltwise bwd", dnnl.EltwiseBackwardDesc(engine, relu, e, e, e, eltwise),
        {dnnl.ARG_SRC: e_src, dnnl.ARG_DIFF_DST: e_diff_dst, dnnl.ARG_DIFF_SRC: e_diff_src})

    p_x, p_y = (1, 2, 4, 4), (1, 2, 2, 2)
    pooling = dict(strides=(2, 2), kernel=(2, 2), padding_l=(0, 0), padding_r=(0, 0))
    pool = dnnl.PoolingForwardDesc(engine, dnnl.AlgKind.POOLING_MAX, desc(p_x), desc(p_y), **pooling,
                                   prop_kind=training)
    workspace = dnnl.workspace_memory(pool)
    cpu.keep.append(workspace)
    p_src, p_diff_src = cpu.memory(array(p_x), "abcd"), cpu.memory(array(p_x), "abcd")
    p_dst, p_diff_dst = cpu.memory(array(p_y), "abcd"), cpu.memory(array(p_y), "abcd")
    add("pool fwd", pool, {dnnl.ARG_SRC: p_src, dnnl.ARG_DST: p_dst, dnnl.ARG_WORKSPACE: workspace})
    add("pool bwd", dnnl.PoolingBackwardDesc(engine, dnnl.AlgKind.POOLING_MAX, desc(p_x), desc(p_y), **pooling,
                                             hint_fwd_pd=pool),
        {dnnl.ARG_DIFF_DST: p_diff_dst, dnnl.ARG_WORKSPACE: workspace, dnnl.ARG_DIFF_SRC: p_diff_src})

    for primitive, args in made.values():  # every one runs as given, forward before backward
        primitive.execute(stream, args)
    stream.wait()
    return made, impls


def execute_part(rounds: int, calls: int, isolated_calls: int, results: Results, cpu_time: bool = False) -> None:
    cpu = _Cpu("_bench_backward_execute")
    clock = time.thread_time if cpu_time else time.perf_counter  # of the isolated measurement
    lib, stream = cpu.lib, cpu.stream
    bench_lib = cpu.bench_lib
    made, impls = _tiny_primitives(cpu)
    print(f"{cpu.library.version}; engine {cpu.engine.kind.name}")
    results.machine(onednn=str(cpu.library.version))
    for name, impl in impls.items():
        print(f"  {name:<17} {impl}")
        results.derive(f"{name}: implementation", impl)

    def binding_loop(primitive, args, wait=True):
        timer = time.perf_counter if wait else clock

        def run(n):
            execute, wait_ = primitive.execute, stream.wait
            t0 = timer()
            for _ in range(n):
                execute(stream, args)
                if wait:
                    wait_()
            seconds = timer() - t0
            if not wait:
                stream.wait()  # untimed: lets go of what the run registered
            return seconds
        return run

    def bound_loop(primitive, args, wait=True):
        bound = primitive.bind(stream, args)
        cpu.keep.append(bound)
        timer = time.perf_counter if wait else clock

        def run(n):
            execute = bound.execute
            t0 = timer()
            if wait:
                for _ in range(n):
                    execute(wait=True)
            else:
                for _ in range(n):
                    execute()
            seconds = timer() - t0
            if not wait:
                stream.wait()
            return seconds
        return run

    def raw_loop(primitive, args, raw_execute=lib.dnnl_primitive_execute, raw_wait=lib.dnnl_stream_wait):
        array, p, s, nargs = cpu.c_args(args), primitive.handle, stream.handle, len(args)
        timer = time.perf_counter if raw_wait is not None else clock

        def run(n):
            t0 = timer()
            if raw_wait is None:
                for _ in range(n):
                    if raw_execute(p, s, nargs, array):
                        raise RuntimeError("dnnl_primitive_execute failed")
            else:
                for _ in range(n):
                    if raw_execute(p, s, nargs, array):
                        raise RuntimeError("dnnl_primitive_execute failed")
                    if raw_wait(s):
                        raise RuntimeError("dnnl_stream_wait failed")
            return timer() - t0
        return run

    def c_loop(primitive, args, execute_ptr=cpu.execute_ptr, wait_ptr=cpu.wait_ptr, each=True):
        c_args = cpu.void_p(cpu.c_args(args))
        vp = cpu.bench_ffi.cast
        c_primitive, c_stream = vp("void *", primitive.int_ptr), vp("void *", stream.int_ptr)
        loop = bench_lib.execute_wait_loop if each else bench_lib.execute_loop

        def run(n):
            t0 = clock()
            seconds = loop(execute_ptr, wait_ptr, c_primitive, c_stream, len(args), c_args, n)
            if seconds < 0:
                raise RuntimeError("the C loop saw a failing call")
            return seconds if each else clock() - t0  # the no-op loop: timed with the isolated clock
        return run

    # --- with oneDNN's real calls ---
    loops = {}
    for name, (primitive, args) in made.items():
        loops[f"{name}: binding"] = binding_loop(primitive, args)
        loops[f"{name}: bound"] = bound_loop(primitive, args)
        loops[f"{name}: raw cffi"] = raw_loop(primitive, args)
        loops[f"{name}: C loop"] = c_loop(primitive, args)
    print(f"{rounds} rounds x {calls} executions, each + wait, per variant, interleaved; per execution:")
    started = time.perf_counter()
    real = interleave(loops, rounds, calls)
    print(f"({time.perf_counter() - started:.1f} s)")
    width = max(map(len, real))
    for name in real:
        _row(name, real[name], width)
    results.add("execute + wait", real, "s",
                f"tiny primitives on the CPU engine: seconds per execute + wait, the mean of {calls} in each round")
    for name in made:
        c = real[f"{name}: C loop"]
        shown = []
        for variant in ("binding", "bound", "raw cffi"):
            ratio, _, _ = _paired_ratio(real[f"{name}: {variant}"], c)
            results.derive(f"execute + wait, {name}: {variant} / C loop (median of the per-round ratios)", ratio)
            shown.append(f"{variant} {ratio:.3f}x")
        print(f"  {name}: median of the per-round ratios to the C loop ({statistics.median(c) * 1e6:.1f} µs): "
              + ", ".join(shown))

    # --- isolated: dnnl_primitive_execute replaced by a C no-op ---
    import dnnl_interop._primitive as primitive_module
    from dnnl_interop._inflight import fast_calls

    noop = bench_lib.noop_execute
    c_noop = cpu.bench_ffi.cast("void *", cpu.bench_ffi.addressof(bench_lib, "noop_execute"))
    noop_wait = cpu.bench_ffi.cast("void *", cpu.bench_ffi.addressof(bench_lib, "noop_wait"))
    iso_loops = {}
    for name, (primitive, args) in made.items():  # bound with oneDNN's execute, as a user binds
        iso_loops[f"{name}: binding"] = binding_loop(primitive, args, wait=False)
        iso_loops[f"{name}: bound"] = bound_loop(primitive, args, wait=False)
        iso_loops[f"{name}: raw cffi"] = raw_loop(primitive, args, noop, None)
        iso_loops[f"{name}: bound"](1)  # checked now: a binding's first call after objects changed is Python's
    real_execute = primitive_module._primitive_execute
    # The no-ops in place of oneDNN's calls on both paths: the C fast path's and the Python one's.
    primitive_module._primitive_execute = noop
    calls = fast_calls(_address(cpu.bench_ffi, c_noop), _address(cpu.bench_ffi, noop_wait))
    calls.__enter__()
    try:
        conv, conv_args = made["conv fwd"]
        iso_loops["C loop (3 args)"] = c_loop(conv, conv_args, c_noop, c_noop, each=False)
        before = bench_lib.noop_calls()
        for name in made:
            iso_loops[f"{name}: binding"](10)
            iso_loops[f"{name}: bound"](10)
        if bench_lib.noop_calls() - before != 22 * len(made):  # 10 executes and a wait, twice
            raise SystemExit("Primitive.execute or BoundExecution.execute no longer calls _primitive_execute: "
                             "the isolated measurement needs updating")
        print(f"isolated: dnnl_primitive_execute replaced by a C no-op; {rounds} rounds x {isolated_calls} calls, "
              f"interleaved; {'CPU time of this thread' if cpu_time else 'wall clock'} per call:")
        started = time.perf_counter()
        isolated = interleave(iso_loops, rounds, isolated_calls)
        print(f"({time.perf_counter() - started:.1f} s)")
    finally:
        primitive_module._primitive_execute = real_execute
        calls.__exit__(None, None, None)
    width = max(map(len, isolated))
    iso = {name: _row(name, values, width) for name, values in isolated.items()}
    results.add("isolated", isolated, "s",
                f"dnnl_primitive_execute replaced by a C no-op: seconds per call "
                f"({'CPU time of the thread' if cpu_time else 'wall clock'}), "
                f"the mean of {isolated_calls} in each round")
    print("  the binding's Python side over raw cffi (medians; median of the per-round differences in brackets):")
    extras = {}
    for name in made:
        raw = isolated[f"{name}: raw cffi"]
        row = []
        for variant, target in (("binding", 1.0e-6), ("bound", 0.5e-6)):
            values = isolated[f"{name}: {variant}"]
            extra = iso[f"{name}: {variant}"] - iso[f"{name}: raw cffi"]
            paired = statistics.median(v - r for v, r in zip(values, raw, strict=True))
            extras[name, variant] = extra
            results.derive(f"isolated, {name}: {variant} - raw cffi (s)", extra)
            verdict = "meets" if extra <= target else "MISSES"
            row.append(f"{variant} {extra * 1e6:.3f} µs [{paired * 1e6:.3f}] (<= {target * 1e6:.1f}: {verdict})")
        print(f"    {name:<17} " + ", ".join(row))
    for forward, backwards in (("conv fwd", ("conv bwd data", "conv bwd weights")),
                               ("eltwise fwd", ("eltwise bwd",)), ("pool fwd", ("pool bwd",))):
        for backward in backwards:
            shown = ", ".join(
                f"{variant} {(extras[backward, variant] - extras[forward, variant]) * 1e6:+.3f} µs"
                for variant in ("binding", "bound"))
            print(f"  {backward} - {forward} (Python side): {shown}")
            for variant in ("binding", "bound"):
                results.derive(f"isolated, {backward} - {forward}: {variant} (s)",
                               extras[backward, variant] - extras[forward, variant])
    cpu.close()


# --- part 2: a training step ------------------------------------------------------------------


def train_part(rounds: int, results: Results, cpu_time: bool = False) -> None:
    import numpy

    cpu = _Cpu("_bench_backward_train")
    dnnl, lib, stream, engine = cpu.dnnl, cpu.lib, cpu.stream, cpu.engine
    bench_ffi, bench_lib = cpu.bench_ffi, cpu.bench_lib
    rng = numpy.random.default_rng(17)
    x = rng.standard_normal(TRAIN_SHAPE, dtype=numpy.float32)
    w = rng.standard_normal(TRAIN_WEIGHTS, dtype=numpy.float32) / 24
    dy = rng.standard_normal(TRAIN_SHAPE, dtype=numpy.float32)
    any_x, any_w = dnnl.MemoryDesc(TRAIN_SHAPE, "f32", "any"), dnnl.MemoryDesc(TRAIN_WEIGHTS, "f32", "any")
    geometry = dict(strides=(1, 1), padding_l=(1, 1), padding_r=(1, 1))
    fwd_pd = dnnl.ConvolutionForwardDesc(engine, any_x, any_w, any_x, **geometry,
                                         prop_kind=dnnl.PropKind.FORWARD_TRAINING)
    data_pd = dnnl.ConvolutionBackwardDataDesc(engine, any_x, any_w, any_x, **geometry, hint_fwd_pd=fwd_pd)
    weights_pd = dnnl.ConvolutionBackwardWeightsDesc(engine, any_x, any_w, any_x, **geometry, hint_fwd_pd=fwd_pd)
    cpu.keep.extend((fwd_pd, data_pd, weights_pd))
    x_mem, w_mem, dy_mem = cpu.memory(x, "abcd"), cpu.memory(w, "abcd"), cpu.memory(dy, "abcd")

    def ready(pd, inputs, outputs):
        """{ARG_*: Memory} in the layouts ``pd`` chose: inputs reordered once, outputs allocated."""
        args = {arg: dnnl.reordered(memory, pd.arg_desc(arg), stream) for arg, memory in inputs.items()}
        args.update({arg: dnnl.Memory(pd.arg_desc(arg), engine) for arg in outputs})
        stream.wait()
        cpu.keep.extend(args.values())
        return args

    fwd_args = ready(fwd_pd, {dnnl.ARG_SRC: x_mem, dnnl.ARG_WEIGHTS: w_mem}, (dnnl.ARG_DST,))
    data_args = ready(data_pd, {dnnl.ARG_DIFF_DST: dy_mem, dnnl.ARG_WEIGHTS: w_mem}, (dnnl.ARG_DIFF_SRC,))
    weights_args = ready(weights_pd, {dnnl.ARG_SRC: x_mem, dnnl.ARG_DIFF_DST: dy_mem}, (dnnl.ARG_DIFF_WEIGHTS,))
    steps = [(dnnl.Primitive(pd), args) for pd, args in
             ((fwd_pd, fwd_args), (data_pd, data_args), (weights_pd, weights_args))]
    cpu.keep.extend(primitive for primitive, _ in steps)

    print(f"{cpu.library.version}; engine {engine.kind.name}")
    results.machine(onednn=str(cpu.library.version))
    chosen = {}
    for what, pd in (("forward training", fwd_pd), ("backward data", data_pd), ("backward weights", weights_pd)):
        layouts = ", ".join(f"{_arg_label(dnnl, arg)} {pd.arg_desc(arg).tag}" for arg in
                            {"forward training": fwd_args, "backward data": data_args,
                             "backward weights": weights_args}[what])
        scratch = pd.scratchpad_desc()
        chosen[what] = f"{pd.impl_info}; {layouts}"
        print(f"  {what:<17} {pd.impl_info:<28} {layouts}; scratchpad "
              f"{'none' if scratch is None else f'{scratch.size} B'}")
        results.derive(f"train, {what}: implementation", chosen[what])

    for primitive, args in steps:
        primitive.execute(stream, args)
    stream.wait()
    _check_step(dnnl, stream, x, w, dy, fwd_args, data_args, weights_args)

    def binding_loop(timer=time.perf_counter):
        def run(n):
            (p1, a1), (p2, a2), (p3, a3) = steps
            e1, e2, e3, wait_ = p1.execute, p2.execute, p3.execute, stream.wait
            t0 = timer()
            for _ in range(n):
                e1(stream, a1)
                e2(stream, a2)
                e3(stream, a3)
                wait_()
            return timer() - t0
        return run

    def bound_loop(timer=time.perf_counter):
        bound = [primitive.bind(stream, args) for primitive, args in steps]
        cpu.keep.extend(bound)

        def run(n):
            e1, e2, e3 = (b.execute for b in bound)
            t0 = timer()
            for _ in range(n):
                e1()
                e2()
                e3(wait=True)
            return timer() - t0
        return run

    c_arrays = [cpu.c_args(args) for _, args in steps]

    def raw_loop(raw_execute=lib.dnnl_primitive_execute, raw_wait=lib.dnnl_stream_wait, timer=time.perf_counter):
        (p1, a1), (p2, a2), (p3, a3) = ((primitive.handle, array)
                                        for (primitive, _), array in zip(steps, c_arrays, strict=True))
        n1, n2, n3 = (len(args) for _, args in steps)
        s = stream.handle

        def run(n):
            t0 = timer()
            for _ in range(n):
                if raw_execute(p1, s, n1, a1) or raw_execute(p2, s, n2, a2) or raw_execute(p3, s, n3, a3):
                    raise RuntimeError("dnnl_primitive_execute failed")
                if raw_wait(s):
                    raise RuntimeError("dnnl_stream_wait failed")
            return timer() - t0
        return run

    vp = bench_ffi.cast
    c_primitives = bench_ffi.new("void *[]", [vp("void *", primitive.int_ptr) for primitive, _ in steps])
    c_nargs = bench_ffi.new("int[]", [len(args) for _, args in steps])
    c_step_args = bench_ffi.new("void *[]", [cpu.void_p(array) for array in c_arrays])
    c_stream = vp("void *", stream.int_ptr)

    def c_loop(execute_ptr=cpu.execute_ptr, wait_ptr=cpu.wait_ptr, timer=None):
        def run(n):
            t0 = timer() if timer else 0.0
            seconds = bench_lib.step_loop(execute_ptr, wait_ptr, len(steps), c_primitives, c_stream, c_nargs,
                                          c_step_args, n)
            if seconds < 0:
                raise RuntimeError("the C loop saw a failing call")
            return timer() - t0 if timer else seconds
        return run

    loops = {"bound": bound_loop(), "binding": binding_loop(), "raw cffi": raw_loop(), "C loop": c_loop()}
    names = list(loops)
    orders = [names[i:] + names[:i] for i in range(len(names))]
    orders += [order[::-1] for order in orders]
    print(f"{rounds} rounds x {STEPS} steps per loop, in blocks of {BLOCK}, one block of each loop at a time, "
          f"in {len(orders)} orders; per step (3 executes + 1 wait):")
    per_step: dict[str, list[float]] = {name: [] for name in names}
    started = time.perf_counter()
    for r in range(TRAIN_WARMUP + rounds):
        totals = dict.fromkeys(names, 0.0)
        for block in range(STEPS // BLOCK):
            for name in orders[(r + block) % len(orders)]:
                totals[name] += loops[name](BLOCK)
        if r >= TRAIN_WARMUP:
            for name, seconds in totals.items():
                per_step[name].append(seconds / STEPS)
    print(f"({time.perf_counter() - started:.1f} s)")
    m = {name: _row(name, values, 10, 1e3, "ms") for name, values in per_step.items()}
    results.add("train step", per_step, "s",
                f"2x64x56x56 3x3 convolution, forward training + backward data + backward weights + one wait: "
                f"seconds per step, the mean of {STEPS} in each round; the loops alternate in blocks of {BLOCK}")
    c = per_step["C loop"]
    for name in ("bound", "binding", "raw cffi"):
        ratio, q1, q3 = _paired_ratio(per_step[name], c)
        diff = statistics.median(a - b for a, b in zip(per_step[name], c, strict=True))
        target = f"; target <= 1.02x: {'meets' if ratio <= 1.02 else 'MISSES'}" if name == "bound" else ""
        print(f"  {name} / C loop = {ratio:.4f}x (median of the per-round ratios; quartiles [{q1:.4f} .. {q3:.4f}]);"
              f" ratio of the medians {m[name] / m['C loop']:.4f}x; median per-round difference "
              f"{diff * 1e6:+.1f} µs{target}")
        results.derive(f"train: {name} / C loop (median of the per-round ratios)", ratio)
        results.derive(f"train: {name} / C loop (ratio of the medians)", m[name] / m["C loop"])

    # --- isolated: the oneDNN calls replaced by C no-ops ---
    import dnnl_interop._primitive as primitive_module
    import dnnl_interop._stream as stream_module
    from dnnl_interop._inflight import fast_calls

    noop_ptr = vp("void *", bench_ffi.addressof(bench_lib, "noop_execute"))
    noop_wait_ptr = vp("void *", bench_ffi.addressof(bench_lib, "noop_wait"))
    clock = time.thread_time if cpu_time else time.perf_counter
    iso_loops = {"bound": bound_loop(clock), "binding": binding_loop(clock),  # bound with oneDNN's calls
                 "raw cffi": raw_loop(bench_lib.noop_execute, bench_lib.noop_wait, clock),
                 "C loop": c_loop(noop_ptr, noop_ptr, clock)}
    iso_loops["bound"](1)  # checked now: a binding's first call after objects changed is Python's
    # The no-ops in place of oneDNN's calls on both paths: the C fast path's and the Python one's.
    real = (primitive_module._primitive_execute, primitive_module._execute_and_wait, stream_module._stream_wait)
    primitive_module._primitive_execute = bench_lib.noop_execute
    primitive_module._execute_and_wait = bench_lib.noop_execute_and_wait
    stream_module._stream_wait = bench_lib.noop_wait
    calls = fast_calls(_address(bench_ffi, noop_ptr), _address(bench_ffi, noop_wait_ptr))
    calls.__enter__()
    try:
        before = bench_lib.noop_calls()
        iso_loops["bound"](10)
        iso_loops["binding"](10)
        if bench_lib.noop_calls() - before != 80:
            raise SystemExit("execute or wait no longer calls what this replaces: the isolated measurement "
                             "needs updating")
        isolated = interleave(iso_loops, ISOLATED_ROUNDS, ISOLATED_STEPS)
    finally:
        primitive_module._primitive_execute, primitive_module._execute_and_wait, stream_module._stream_wait = real
        calls.__exit__(None, None, None)
    print(f"isolated: the executes and the wait replaced by C no-ops; {ISOLATED_ROUNDS} rounds x {ISOLATED_STEPS} "
          f"steps, interleaved; {'CPU time of this thread' if cpu_time else 'wall clock'} per step:")
    iso = {name: _row(name, values, 10) for name, values in isolated.items()}
    results.add("train step isolated", isolated, "s",
                f"the oneDNN calls replaced by C no-ops: seconds per step, the mean of {ISOLATED_STEPS} in each round")
    for name in ("bound", "binding"):
        extra = iso[name] - iso["raw cffi"]
        results.derive(f"train isolated: {name} - raw cffi (s)", extra)
        print(f"  {name} - raw cffi = {extra * 1e6:.3f} µs of Python per step")
    cpu.close()


def _address(bench_ffi, pointer) -> int:
    """A function pointer of the benchmark's own cffi module as an address."""
    return int(bench_ffi.cast("uintptr_t", pointer))


def _arg_label(dnnl, index: int) -> str:
    for name in ("SRC", "WEIGHTS", "DST", "DIFF_SRC", "DIFF_WEIGHTS", "DIFF_DST"):
        if getattr(dnnl, f"ARG_{name}") == index:
            return name.lower()
    return str(index)


def _check_step(dnnl, stream, x, w, dy, fwd_args, data_args, weights_args) -> None:
    """The three results against numpy (float64) at a few positions: y = conv(x, w),
    dx = conv_transposed(dy, w), dw = correlation of x and dy, padding 1."""
    import numpy

    def plain(memory, shape):
        out = numpy.empty(shape, numpy.float32)
        target = dnnl.Memory(dnnl.MemoryDesc(shape, "f32", "abcd"), memory.engine, out)
        dnnl.reorder(memory.desc, target.desc, memory.engine).execute(
            stream, {dnnl.ARG_FROM: memory, dnnl.ARG_TO: target})
        stream.wait()
        target.close()
        return out

    y = plain(fwd_args[dnnl.ARG_DST], x.shape)
    dx = plain(data_args[dnnl.ARG_DIFF_SRC], x.shape)
    dw = plain(weights_args[dnnl.ARG_DIFF_WEIGHTS], w.shape)
    xp = numpy.pad(x.astype(numpy.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    dyp = numpy.pad(dy.astype(numpy.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    w64 = w.astype(numpy.float64)
    h, wd = x.shape[2:]
    for n, c, i, j in ((0, 0, 0, 0), (1, 63, 55, 55), (1, 17, 20, 33), (0, 40, 55, 0)):
        want_y = (xp[n, :, i:i + 3, j:j + 3] * w64[c]).sum()
        # dx[n, c, i, j] = sum over o, kh, kw of dy[n, o, i + 1 - kh, j + 1 - kw] * w[o, c, kh, kw]
        want_dx = (dyp[n, :, i:i + 3, j:j + 3][:, ::-1, ::-1] * w64[:, c]).sum()
        numpy.testing.assert_allclose(y[n, c, i, j], want_y, rtol=1e-3, atol=1e-3)
        numpy.testing.assert_allclose(dx[n, c, i, j], want_dx, rtol=1e-3, atol=1e-3)
    for o, c, kh, kw in ((0, 0, 0, 0), (63, 63, 2, 2), (5, 40, 1, 2)):
        want_dw = (xp[:, c, kh:kh + h, kw:kw + wd] * dy[:, o].astype(numpy.float64)).sum()
        numpy.testing.assert_allclose(dw[o, c, kh, kw], want_dw, rtol=1e-3, atol=1e-2)


# --- part 3: creation on the emulated GPU, fresh processes -------------------------------------

GPU_VARIANTS = ("cold", "store", "direct")


def _gpu_child(variant: str, directory: str) -> dict:
    """One fresh process: the creation of the convolution backward weights primitive by one variant."""
    from dnnl_interop.testing import emulated_gpu

    gpu = emulated_gpu.enable()
    import dnnl_interop as dnnl
    from dnnl_interop import cache, ocl  # imported before timing

    dnnl.version()  # loads oneDNN
    engine = ocl.make_engine(gpu.device, gpu.context)
    store = cache.CacheBlobStore(os.path.join(directory, "store"))
    any_x, any_w = dnnl.MemoryDesc(TRAIN_SHAPE, "f32", "any"), dnnl.MemoryDesc(TRAIN_WEIGHTS, "f32", "any")
    geometry = dict(strides=(1, 1), padding_l=(1, 1), padding_r=(1, 1))
    hint = dnnl.ConvolutionForwardDesc(engine, any_x, any_w, any_x, **geometry,
                                       prop_kind=dnnl.PropKind.FORWARD_TRAINING)
    def make_pd():
        return dnnl.ConvolutionBackwardWeightsDesc(engine, any_x, any_w, any_x, **geometry, hint_fwd_pd=hint)

    return time_creation(make_pd, variant, store, directory, "bwd_weights")


def _run_child(variant: str, directory: str) -> dict:
    env = dict(os.environ, ONEDNN_PRIMITIVE_CACHE_CAPACITY="0")
    done = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--child", variant, directory],
        env=env, capture_output=True, text=True, timeout=900,
    )
    if done.returncode:
        sys.exit(f"{variant} process failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def gpu_part(runs: int, results: Results) -> None:
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="dnnl-interop-bench-backward-") as directory:
        prepared = _run_child("prepare", directory)
        if prepared["entries"] != 1:
            sys.exit("the prepare process did not leave one store entry")
        print(f"emulated GPU; convolution backward weights {TRAIN_SHAPE} x {TRAIN_WEIGHTS} 'any'; {runs} fresh "
              f"processes per variant (ONEDNN_PRIMITIVE_CACHE_CAPACITY=0); {prepared['impl']}, cache blob "
              f"{prepared['blob']:,} B; prepare (a store miss) {prepared['create'] * 1e3:.1f} ms")
        measured: dict[str, list[dict]] = {variant: [] for variant in GPU_VARIANTS}
        order = list(GPU_VARIANTS)
        shuffler = random.Random(17)
        for _ in range(runs):
            shuffler.shuffle(order)
            for variant in order:
                measured[variant].append(_run_child(variant, directory))
    print(f"({time.perf_counter() - started:.1f} s) creation of the primitive, per fresh process:")
    m = {variant: _row(variant, [r["create"] for r in measured[variant]], 13, 1e3, "ms") for variant in GPU_VARIANTS}
    _row("descriptor", [r["descriptor"] for v in GPU_VARIANTS for r in measured[v]], 13, 1e3, "ms")
    ids = _row("(direct: ids)", [r["ids"] for r in measured["direct"]], 13, 1e3, "ms")
    get = _row("(direct: get)", [r["get"] for r in measured["direct"]], 13, 1e3, "ms")
    share = statistics.median((r["ids"] + r["get"]) / r["create"] for r in measured["direct"])

    def per_run(x: str, y: str) -> float:
        return statistics.median(p["create"] / q["create"] for p, q in zip(measured[x], measured[y], strict=True))

    speedup, overhead = m["cold"] / m["store"], m["store"] / m["direct"]
    print(f"  cold / store   = {speedup:.2f}x (median of the per-run ratios {per_run('cold', 'store'):.2f}x); "
          f"target >= 5x: {'meets' if speedup >= 5 else 'MISSES'}")
    print(f"  store / direct = {overhead:.3f}x (median of the per-run ratios {per_run('store', 'direct'):.3f}x); "
          f"within the direct processes ids + store.get = {(ids + get) * 1e3:.3f} ms, {share:.1%} of the creation "
          "from the blob")
    results.add("gpu conv bwd weights", {variant: [r["create"] for r in measured[variant]]
                                         for variant in GPU_VARIANTS}, "s",
                f"emulated GPU: seconds to create the convolution backward weights primitive, one value per fresh "
                f"process ({prepared['impl']}, cache blob {prepared['blob']} B)")
    results.derive("gpu: cold / store", speedup)
    results.derive("gpu: cold / store (median of the per-run ratios)", per_run("cold", "store"))
    results.derive("gpu: store / direct", overhead)
    results.derive("gpu: ids + store.get / creation from the blob, within the direct processes", share)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("execute", "train", "gpu"), help="run one part only")
    parser.add_argument("--rounds", type=int, default=30, help="part 1: interleaved rounds")
    parser.add_argument("--calls", type=int, default=100, help="part 1: executions per variant per round")
    parser.add_argument("--isolated-calls", type=int, default=5000,
                        help="part 1: calls per variant per round of the no-op measurement")
    parser.add_argument("--train-rounds", type=int, default=40, help="part 2: rounds")
    parser.add_argument("--runs", type=int, default=10, help="part 3: fresh processes per variant")
    parser.add_argument("--cpu-time", action="store_true",
                        help="time the isolated measurements (the oneDNN calls replaced by C no-ops) with "
                             "time.thread_time() (this thread's CPU time) instead of the wall clock: on a loaded "
                             "machine the wall clock also counts the time the thread waits for a core")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    add_json_option(parser)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(_gpu_child(*args.child)))
        return
    results = Results()
    parts = [args.only] if args.only else ["execute", "train", "gpu"]
    for part in parts:
        print(f"== part {part} ==")
        if part == "execute":
            execute_part(args.rounds, args.calls, args.isolated_calls, results, args.cpu_time)
        elif part == "train":
            train_part(args.train_rounds, results, args.cpu_time)
        else:
            gpu_part(args.runs, results)
        print()
    results.write(args.json)


if __name__ == "__main__":
    main()
