"""The forward primitives: large work through the binding vs a C loop (CPU), and
primitive creation cold vs from a cache blob (emulated GPU, fresh processes).

    OCL_ICD_VENDORS=$PWD/.venv/etc/OpenCL/dnnl-interop-vendors \\
        .venv/bin/python benchmarks/bench_primitives.py [--quick] [--only cpu|gpu]
            [--rounds 100] [--runs 10]

**Part 1, CPU engine, one process** (``--rounds``): is large work oneDNN's
time? Two primitives with "format any" descriptors, the layouts oneDNN
chose read back and the inputs brought there once with
``dnnl_interop.reordered`` (the weights are blocked: ``BA16a64b``-like for
the matmul, ``Acdb64a``-like for the convolution, nhwc activations):

* matmul 256x256x256 f32 (``MatmulDesc``, src/weights/dst "any");
* convolution 3x3, N=1, C 64 -> 64, 56x56, stride 1, padding 1, no bias
  (``ConvolutionForwardDesc``, src/weights/dst "any").

Every round runs four units in a random order (seeded); every execution is
followed by a wait on the stream:

* for each of the two primitives, four loops, in blocks of 6 executions,
  one block of each at a time, in eight orders (the four rotations of the
  list below and their reverses: each loop as often in each position, and
  after each other one), 48 executions of each per round:

  - ``binding``: ``primitive.execute(stream, {ARG_SRC: ..., ARG_WEIGHTS:
    ..., ARG_DST: ...})`` then ``stream.wait()``;
  - ``bound``: ``bound = primitive.bind(stream, args)`` once, then
    ``bound.execute(wait=True)`` (the execute and its wait in one call from
    Python, and one into C);
  - ``raw cffi``: ``lib.dnnl_primitive_execute(p, s, 3, c_args)`` and
    ``lib.dnnl_stream_wait(s)`` on the binding's API-mode ``lib`` from a
    Python loop, with an argument array built once;
  - ``C loop``: a C function compiled here (cffi API mode, ``-O2``) calling
    the real ``dnnl_primitive_execute`` and ``dnnl_stream_wait`` (``dlsym``
    on the bound libdnnl) with the same primitive, stream and memory handles
    in a ``dnnl_exec_arg_t[3]`` built once, timed with ``clock_gettime`` in C;

* ``matmul numpy a @ b``: the same product of the same plain f32 arrays in
  numpy (its BLAS), a new result array each call, 48 per round. numpy's BLAS
  threads spin for about 0.1 s after a product, during which whatever ran
  next took twice its time, so this unit then sleeps 0.2 s (untimed);
* ``conv plain nchw/oihw binding``: the same convolution with plain
  descriptors (src, weights, dst ``abcd``), for which oneDNN picks a far
  slower implementation: the cost of not asking for "any"; once per round.

Printed: each loop's median time per execution over the rounds, with the
quartiles and min..max; the ratio binding / C loop as the median of the
per-round ratios (paired: the blocks of both alternate within a few ms) with
its quartiles and range, and as the ratio of the medians (target: at most
1.02x); the medians of the per-round differences binding - C loop, split
into binding - raw cffi (the binding's Python side) and raw cffi - C loop
(a Python loop and two cffi calls). The results are checked once against
numpy (matmul) and against the plain convolution before timing.

Then, **isolated**, the binding's Python side alone, free of the noise of
the real work (as ``bench_execute.py`` does): the matmul's
``Primitive.execute`` + ``Stream.wait`` with both oneDNN calls replaced by C
no-ops of the same signatures (the module globals ``_primitive_execute`` the
primitive calls and ``_stream_wait`` ``Stream.wait`` calls, for the
duration; the package is not modified), against raw cffi calls of the same
no-ops; and ``execute`` alone the same way, which splits the cost between
the two. The bound execute with its wait is one C call
(``dnnl_interop_execute_and_wait``), replaced by a C no-op of its signature
calling both no-ops. 30 rounds x 2000 calls.

**Part 2, emulated GPU, fresh processes** (``--runs``; the emulated GPU,
``dnnl_interop.testing.emulated_gpu``, cannot share a process with the CPU
engine). For three primitives, each in processes of its own:

* matmul 256x256x256 f32 (weights "any");
* convolution 3x3 64 -> 64 on 1x64x56x56 f32 ("any") with a ReLU post-op
  (``PostOps.append_eltwise(ELTWISE_RELU)``);
* batch normalization, inference, global stats + scale + shift, on
  1x64x56x56 f32 ``abcd``.

A prepare process creates each primitive cold and saves its cache blob in a
``CacheBlobStore`` (through ``make_primitive_cached``, a miss) and in a plain
file. The layer of the emulated GPU keeps an OpenCL program alive while its
kernels live, which oneDNN needs to read a primitive's blob. Then, for every
primitive, three variants run in fresh processes, ``--runs`` each: every
run starts the nine processes (3 primitives x 3 variants) one after the
other in a random order (seeded), with ``ONEDNN_PRIMITIVE_CACHE_CAPACITY=0``:

* ``cold``: ``Primitive(pd)``;
* ``store``: ``make_primitive_cached(pd, store)`` on the warm store: the ids
  (engine blob id, ``pd.cache_blob_id``), the entry read and verified
  (SHA-256), the primitive made from the blob;
* ``direct``: ``Primitive(pd, blob)``, the same blob read from its plain file
  before timing. After that creation, the same process times the store's
  own steps apart (the ids and ``store.get``), so the store's share is also
  known within one process, free of the noise between processes.

Each process first enables the emulated GPU, loads oneDNN, makes the OpenCL
engine (``ocl.make_engine``) and the memory descriptors, and imports every
module it uses; then the primitive descriptor is made (timed apart:
``descriptor``); only the creation of the primitive is the variant's time.
Printed: medians over the processes, quartiles, min..max, and the ratios
cold / store (target at least 5x) and store / direct (target at most 1.1x),
as ratios of the medians (the verdicts) and as medians of the per-run
ratios; medians across fresh processes carry the noise of the machine
(tens of %), the store's share within the direct processes does not.
Only oneDNN's generic OpenCL C kernels run on the emulated GPU: the absolute
times say nothing about a real GPU; the ratios are what this measures.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

from _bench import (
    Results,
    add_json_option,
    compile_loops,
    interleave,
    real_function,
    require_intel_cpu_opencl,
    time_creation,
)

# Part 1, per round: CALLS executions of each of the four loops of the matmul
# and of the "any" convolution, in blocks of BLOCK (8 blocks: the 8 orders
# once); numpy's product CALLS times; the plain convolution (~170 ms) once.
CALLS, BLOCK, PLAIN_CALLS, WARMUP = 48, 6, 1, 2
# The isolated measurement (the oneDNN calls replaced by C no-ops): rounds x calls.
ISOLATED_ROUNDS, ISOLATED_CALLS = 30, 2000
# After numpy's product its BLAS threads spin for ~0.1 s, during which
# whatever ran next took twice its time: the numpy unit sleeps this long
# (untimed) before returning.
NUMPY_SETTLE = 0.2

GPU_PRIMITIVES = ("matmul", "conv+relu", "batchnorm")
GPU_VARIANTS = ("cold", "store", "direct")


# --- part 1: CPU engine ---------------------------------------------------------------------------


def _quantiles(values: list[float]) -> tuple[float, float]:
    if len(values) < 2:
        return values[0], values[0]
    q = statistics.quantiles(values, n=4, method="inclusive")
    return q[0], q[2]


def _row(name: str, values: list[float], width: int, unit: float = 1e6, label: str = "µs") -> float:
    median = statistics.median(values)
    q1, q3 = _quantiles(values)
    print(f"  {name:<{width}}  median {median * unit:9.2f} {label}   quartiles [{q1 * unit:.2f} .. {q3 * unit:.2f}]"
          f"   range [{min(values) * unit:.2f} .. {max(values) * unit:.2f}]")
    return median


def cpu_part(rounds: int, results: Results) -> None:
    require_intel_cpu_opencl()
    import numpy

    import dnnl_interop as dnnl
    from dnnl_interop._ffi import ffi, lib

    library = dnnl.load_library()
    engine = dnnl.Engine.cpu()
    stream = dnnl.Stream(engine)
    rng = numpy.random.default_rng(17)
    keep = []  # every Memory and its numpy buffer, alive until the end

    def plain_memory(array, tag):
        memory = dnnl.Memory(dnnl.MemoryDesc(array.shape, "f32", tag), engine, array)
        keep.append((memory, array))
        return memory

    def ready(pd, inputs, dst):
        """{ARG_*: Memory} in the layouts ``pd`` chose: inputs reordered once, dst allocated."""
        args = {arg: dnnl.reordered(memory, pd.arg_desc(arg), stream) for arg, memory in inputs.items()}
        args[dnnl.ARG_DST] = dst if dst is not None else dnnl.Memory(pd.dst_desc(), engine)
        stream.wait()
        keep.extend(args.values())
        return args

    # matmul 256 x 256 x 256, "any" everywhere
    a = rng.standard_normal((256, 256), dtype=numpy.float32)
    b = rng.standard_normal((256, 256), dtype=numpy.float32)
    any_md = dnnl.MemoryDesc((256, 256), "f32", "any")
    mm_pd = dnnl.MatmulDesc(engine, any_md, any_md, any_md)
    mm = dnnl.Primitive(mm_pd)
    mm_args = ready(mm_pd, {dnnl.ARG_SRC: plain_memory(a, "ab"), dnnl.ARG_WEIGHTS: plain_memory(b, "ab")}, None)

    # convolution 3x3, 1x64x56x56 -> 1x64x56x56, "any" and plain
    src_shape, w_shape = (1, 64, 56, 56), (64, 64, 3, 3)
    x = rng.standard_normal(src_shape, dtype=numpy.float32)
    w = rng.standard_normal(w_shape, dtype=numpy.float32) / 24

    def conv_pd(tag):
        return dnnl.ConvolutionForwardDesc(
            engine, dnnl.MemoryDesc(src_shape, "f32", tag), dnnl.MemoryDesc(w_shape, "f32", tag),
            dnnl.MemoryDesc(src_shape, "f32", tag), (1, 1), (1, 1), (1, 1))

    conv_any_pd, conv_plain_pd = conv_pd("any"), conv_pd("abcd")
    conv_any, conv_plain = dnnl.Primitive(conv_any_pd), dnnl.Primitive(conv_plain_pd)
    x_mem, w_mem = plain_memory(x, "abcd"), plain_memory(w, "abcd")
    y_plain = numpy.zeros(src_shape, numpy.float32)
    conv_any_args = ready(conv_any_pd, {dnnl.ARG_SRC: x_mem, dnnl.ARG_WEIGHTS: w_mem}, None)
    conv_plain_args = ready(conv_plain_pd, {dnnl.ARG_SRC: x_mem, dnnl.ARG_WEIGHTS: w_mem},
                            plain_memory(y_plain, "abcd"))

    print(f"{library.version}; engine {engine.kind.name}")
    results.machine(onednn=str(library.version))
    for name, pd in (("matmul", mm_pd), ("conv any", conv_any_pd), ("conv plain", conv_plain_pd)):
        layouts = ", ".join(f"{what} {getattr(pd, what + '_desc')().tag}" for what in ("src", "weights", "dst"))
        scratch = pd.scratchpad_desc()
        print(f"  {name:<10} {pd.impl_info:<28} {layouts}; scratchpad "
              f"{'none' if scratch is None else f'{scratch.size} B'}")
        results.derive(f"{name}: implementation", f"{pd.impl_info}; {layouts}")

    # Results checked once: the matmul against numpy, "any" conv against the plain one.
    for primitive, args in ((mm, mm_args), (conv_any, conv_any_args), (conv_plain, conv_plain_args)):
        primitive.execute(stream, args)
    stream.wait()
    numpy.testing.assert_allclose(numpy.asarray(mm_args[dnnl.ARG_DST]), a @ b, rtol=1e-4, atol=1e-3)
    numpy.testing.assert_allclose(numpy.asarray(conv_any_args[dnnl.ARG_DST]), y_plain, rtol=1e-4, atol=1e-4)

    bench_ffi, bench_lib = compile_loops("_bench_primitives")
    vp = bench_ffi.cast
    execute_ptr = vp("void *", real_function("dnnl_primitive_execute"))
    wait_ptr = vp("void *", real_function("dnnl_stream_wait"))
    c_arrays = []

    def exec_args(args):
        array = ffi.new("dnnl_exec_arg_t[]", [(index, memory.handle) for index, memory in args.items()])
        c_arrays.append(array)  # alive until the end
        return array

    def binding_loop(primitive, args, wait=True):
        def run(n):
            execute, wait_ = primitive.execute, stream.wait
            t0 = time.perf_counter()
            for _ in range(n):
                execute(stream, args)
                if wait:
                    wait_()
            return time.perf_counter() - t0
        return run

    def bound_loop(primitive, args):
        bound = primitive.bind(stream, args)

        def run(n):
            execute = bound.execute
            t0 = time.perf_counter()
            for _ in range(n):
                execute(wait=True)
            return time.perf_counter() - t0
        return run

    def raw_loop(primitive, args, raw_execute=lib.dnnl_primitive_execute, raw_wait=lib.dnnl_stream_wait):
        array, p, s, nargs = exec_args(args), primitive.handle, stream.handle, len(args)

        def run(n):
            t0 = time.perf_counter()
            for _ in range(n):
                if raw_execute(p, s, nargs, array):
                    raise RuntimeError("dnnl_primitive_execute failed")
                if raw_wait is not None and raw_wait(s):
                    raise RuntimeError("dnnl_stream_wait failed")
            return time.perf_counter() - t0
        return run

    def c_loop(primitive, args):
        c_args = vp("void *", int(ffi.cast("uintptr_t", exec_args(args))))
        c_primitive, c_stream = vp("void *", primitive.int_ptr), vp("void *", stream.int_ptr)

        def run(n):
            seconds = bench_lib.execute_wait_loop(execute_ptr, wait_ptr, c_primitive, c_stream, len(args), c_args, n)
            if seconds < 0:
                raise RuntimeError("the C loop saw a failing call")
            return seconds
        return run

    def paired(what, primitive, args):
        """One unit of a round: the four loops of ``what`` in blocks of BLOCK executions,
        one block of each at a time, in rotating orders (each loop as often in each position)."""
        loops = {"binding": binding_loop(primitive, args), "bound": bound_loop(primitive, args),
                 "raw cffi": raw_loop(primitive, args), "C loop": c_loop(primitive, args)}
        names = list(loops)
        orders = [names[i:] + names[:i] for i in range(len(names))]
        orders += [order[::-1] for order in orders]  # each loop after each other one, too

        def run():
            totals = dict.fromkeys(loops, 0.0)
            for block in range(CALLS // BLOCK):
                for name in orders[block % len(orders)]:
                    totals[name] += loops[name](BLOCK)
            return {f"{what} {name}": seconds / CALLS for name, seconds in totals.items()}
        return run

    def numpy_matmul():
        t0 = time.perf_counter()
        for _ in range(CALLS):
            a @ b
        seconds = time.perf_counter() - t0
        time.sleep(NUMPY_SETTLE)
        return {"matmul numpy a @ b": seconds / CALLS}

    plain_loop = binding_loop(conv_plain, conv_plain_args)
    units = [paired("matmul", mm, mm_args), numpy_matmul, paired("conv any", conv_any, conv_any_args),
             lambda: {"conv plain nchw/oihw binding": plain_loop(PLAIN_CALLS) / PLAIN_CALLS}]
    print(f"{rounds} rounds, the units in a random order every round: matmul and conv any {CALLS} executions "
          f"of each loop (binding, bound, raw cffi, C loop), in blocks of {BLOCK} alternating; numpy {CALLS} products; "
          f"conv plain {PLAIN_CALLS} execution; every execution followed by a wait")
    started = time.perf_counter()
    per_call: dict[str, list[float]] = {}
    shuffler = random.Random(17)
    for r in range(WARMUP + rounds):
        shuffler.shuffle(units)
        for unit in units:
            for name, seconds in unit().items():
                if r >= WARMUP:
                    per_call.setdefault(name, []).append(seconds)
    # matmul's loops, numpy, conv's loops, plain conv (a stable sort keeps the loops' order)
    per_call = dict(sorted(per_call.items(), key=lambda item: ("conv" in item[0], "numpy" in item[0] or
                                                                 "plain" in item[0])))
    print(f"({time.perf_counter() - started:.1f} s) per execution (+ wait), over the rounds:")
    width = max(map(len, per_call))
    m = {name: _row(name, values, width) for name, values in per_call.items()}
    results.add("cpu", per_call, "s",
                f"CPU engine: seconds per execution + wait, the mean of {CALLS} in each round "
                f"({PLAIN_CALLS} for the plain convolution); the loops of one primitive alternate in blocks of {BLOCK}")

    for what in ("matmul", "conv any"):
        binding, raw, c = (per_call[f"{what} {name}"] for name in ("binding", "raw cffi", "C loop"))
        ratios = [x / y for x, y in zip(binding, c, strict=True)]
        q1, q3 = _quantiles(ratios)
        ratio = statistics.median(ratios)
        verdict = "meets" if ratio <= 1.02 else "MISSES"
        results.derive(f"{what}: binding / C loop (median of the per-round ratios)", ratio)
        print(f"  {what}: binding / C loop = {ratio:.4f}x (median of the per-round ratios; quartiles "
              f"[{q1:.4f} .. {q3:.4f}], range [{min(ratios):.4f} .. {max(ratios):.4f}]); ratio of the medians "
              f"{m[f'{what} binding'] / m[f'{what} C loop']:.4f}x; target <= 1.02x: {verdict}")

        def diff(x, y):
            return statistics.median(p - q for p, q in zip(x, y, strict=True)) * 1e6

        print(f"    per execution, medians of the per-round differences: binding - C loop {diff(binding, c):.2f} µs"
              f" = binding - raw cffi {diff(binding, raw):.2f} µs + raw cffi - C loop {diff(raw, c):.2f} µs")
        bound = per_call[f"{what} bound"]
        bound_ratio = statistics.median(x / y for x, y in zip(bound, c, strict=True))
        print(f"    bound (primitive.bind(stream, args), then bound.execute(wait=True)): bound / C loop = "
              f"{bound_ratio:.4f}x "
              f"(median of the per-round ratios), bound - C loop {diff(bound, c):.2f} µs")
    print(f"  matmul: binding / numpy a @ b = {m['matmul binding'] / m['matmul numpy a @ b']:.3f}x (ratio of medians)")
    plain_ratios = [x / y for x, y in zip(per_call["conv plain nchw/oihw binding"], per_call["conv any binding"],
                                          strict=True)]
    print(f"  conv: plain / any = {statistics.median(plain_ratios):.0f}x (median of the per-round ratios), "
          f"ratio of the medians {m['conv plain nchw/oihw binding'] / m['conv any binding']:.0f}x")

    _isolated(mm, mm_args, binding_loop, bound_loop, raw_loop, bench_ffi, bench_lib, results)

    for memory in keep:
        if isinstance(memory, tuple):
            memory = memory[0]
        memory.close()
    for obj in (mm, conv_any, conv_plain, mm_pd, conv_any_pd, conv_plain_pd, stream, engine):
        obj.close()


def _isolated(primitive, args, binding_loop, bound_loop, raw_loop, bench_ffi, bench_lib, results: Results) -> None:
    """The Python side alone: the matmul's execute + wait with both oneDNN calls replaced by
    C no-ops, through the binding (and bound, with wait=True) and as raw cffi calls; then
    execute alone."""
    import dnnl_interop._stream as stream_module

    execute_module = importlib.import_module(type(primitive).__module__)
    real_execute, real_wait = execute_module._primitive_execute, stream_module._stream_wait
    real_execute_and_wait = execute_module._execute_and_wait

    loops = {
        "binding execute + wait": binding_loop(primitive, args),
        "raw cffi execute + wait": raw_loop(primitive, args, bench_lib.noop_execute, bench_lib.noop_wait),
        "binding execute": binding_loop(primitive, args, wait=False),
        "raw cffi execute": raw_loop(primitive, args, bench_lib.noop_execute, None),
    }
    from dnnl_interop._inflight import fast_calls

    loops["bound execute(wait=True)"] = bound_loop(primitive, args)  # bound with oneDNN's calls, as users bind
    loops["bound execute(wait=True)"](1)  # checked now: a binding's first call after objects changed is Python's
    # The no-ops in place of oneDNN's calls on the package's C fast path (fast_calls) and its Python path.
    execute_module._primitive_execute, stream_module._stream_wait = bench_lib.noop_execute, bench_lib.noop_wait
    execute_module._execute_and_wait = bench_lib.noop_execute_and_wait
    def address(name):
        return int(bench_ffi.cast("uintptr_t", bench_ffi.addressof(bench_lib, name)))

    calls = fast_calls(address("noop_execute"), address("noop_wait"))
    calls.__enter__()
    try:
        before = bench_lib.noop_calls()
        loops["binding execute + wait"](10)
        loops["bound execute(wait=True)"](10)
        if bench_lib.noop_calls() - before != 40:
            raise SystemExit("Primitive.execute or Stream.wait no longer calls what this replaces: "
                             "the isolated measurement needs updating")
        per_call = interleave(loops, ISOLATED_ROUNDS, ISOLATED_CALLS)
    finally:
        execute_module._primitive_execute, stream_module._stream_wait = real_execute, real_wait
        execute_module._execute_and_wait = real_execute_and_wait
        calls.__exit__(None, None, None)
    print(f"isolated: the matmul's oneDNN calls replaced by C no-ops; {ISOLATED_ROUNDS} rounds x "
          f"{ISOLATED_CALLS} calls, interleaved; per call:")
    m = {name: _row(name, values, max(map(len, loops))) for name, values in per_call.items()}
    results.add("cpu isolated", per_call, "s",
                f"the matmul's oneDNN calls replaced by C no-ops: seconds per call, the mean of {ISOLATED_CALLS} "
                "in each round")
    total = m["binding execute + wait"] - m["raw cffi execute + wait"]
    execute = m["binding execute"] - m["raw cffi execute"]
    print(f"  the binding's Python side per execute + wait: {total * 1e6:.2f} µs (Primitive.execute "
          f"{execute * 1e6:.2f} µs, Stream.wait and letting go of what the work used {(total - execute) * 1e6:.2f} µs)")
    bound = m["bound execute(wait=True)"] - m["raw cffi execute + wait"]
    print(f"  bound.execute(wait=True): {bound * 1e6:.2f} µs of Python per execute + wait")


# --- part 2: emulated GPU, fresh processes -----------------------------------------------------


def _gpu_child(what: str, variant: str, directory: str) -> dict:
    """One fresh process: the creation of one primitive by one variant, in seconds."""
    from dnnl_interop.testing import emulated_gpu

    gpu = emulated_gpu.enable()
    import dnnl_interop as dnnl
    from dnnl_interop import cache, ocl  # imported before timing

    dnnl.version()  # loads oneDNN
    engine = ocl.make_engine(gpu.device, gpu.context)
    store = cache.CacheBlobStore(os.path.join(directory, "store"))
    return time_creation(_gpu_descriptor(dnnl, engine, what), variant, store, directory, what)


def _gpu_descriptor(dnnl, engine, what: str):
    """A function making the primitive descriptor of ``what`` on ``engine`` (its memory descriptors made now)."""
    if what == "matmul":
        src, weights = dnnl.MemoryDesc((256, 256), "f32", "ab"), dnnl.MemoryDesc((256, 256), "f32", "any")
        dst = dnnl.MemoryDesc((256, 256), "f32", "ab")
        return lambda: dnnl.MatmulDesc(engine, src, weights, dst)
    if what == "conv+relu":
        src, dst = (dnnl.MemoryDesc((1, 64, 56, 56), "f32", "any") for _ in range(2))
        weights = dnnl.MemoryDesc((64, 64, 3, 3), "f32", "any")
        post_ops = dnnl.PostOps()
        post_ops.append_eltwise(dnnl.AlgKind.ELTWISE_RELU)
        attr = dnnl.PrimitiveAttr()
        attr.set_post_ops(post_ops)
        return lambda: dnnl.ConvolutionForwardDesc(engine, src, weights, dst, (1, 1), (1, 1), (1, 1), attr=attr)
    if what == "batchnorm":
        src, dst = (dnnl.MemoryDesc((1, 64, 56, 56), "f32", "abcd") for _ in range(2))
        flags = dnnl.NormalizationFlags
        return lambda: dnnl.BatchNormalizationForwardDesc(
            engine, src, dst, 1e-5, flags.USE_GLOBAL_STATS | flags.USE_SCALE | flags.USE_SHIFT)
    raise ValueError(what)


def _run_child(what: str, variant: str, directory: str) -> dict:
    env = dict(os.environ, ONEDNN_PRIMITIVE_CACHE_CAPACITY="0")
    done = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--child", what, variant, directory],
        env=env, capture_output=True, text=True, timeout=600,
    )
    if done.returncode:
        sys.exit(f"{what} {variant} process failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def gpu_part(runs: int, results: Results) -> None:
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="dnnl-interop-bench-primitives-") as directory:
        prepared = {what: _run_child(what, "prepare", directory) for what in GPU_PRIMITIVES}
        print(f"emulated GPU; {runs} fresh processes per primitive and variant "
              "(ONEDNN_PRIMITIVE_CACHE_CAPACITY=0); cache blobs: "
              + ", ".join(f"{what} {p['blob']:,} B ({p['impl']})" for what, p in prepared.items()))
        if prepared[GPU_PRIMITIVES[-1]]["entries"] != len(GPU_PRIMITIVES):
            sys.exit("the prepare processes did not leave one store entry per primitive")
        results_of = {(what, variant): [] for what in GPU_PRIMITIVES for variant in GPU_VARIANTS}
        jobs = [(what, variant) for what in GPU_PRIMITIVES for variant in GPU_VARIANTS]
        shuffler = random.Random(17)
        for _ in range(runs):
            # A random order every run: a rotation would keep each process after the same
            # other one (the store's after the cold creation of the same primitive).
            shuffler.shuffle(jobs)
            for what, variant in jobs:
                results_of[what, variant].append(_run_child(what, variant, directory))
    print(f"({time.perf_counter() - started:.1f} s) creation of the primitive, per fresh process:")
    width = 28
    verdicts = []
    for what in GPU_PRIMITIVES:
        print(f"{what}:")
        m = {variant: _row(variant, [r["create"] for r in results_of[what, variant]], width, 1e3, "ms")
             for variant in GPU_VARIANTS}
        direct = results_of[what, "direct"]
        ids = _row("(direct process: ids)", [r["ids"] for r in direct], width, 1e3, "ms")
        get = _row("(direct process: store.get)", [r["get"] for r in direct], width, 1e3, "ms")
        _row("(descriptor, every variant)", [r["descriptor"] for v in GPU_VARIANTS for r in results_of[what, v]],
             width, 1e3, "ms")
        share = statistics.median((r["ids"] + r["get"]) / r["create"] for r in direct)
        speedup, overhead = m["cold"] / m["store"], m["store"] / m["direct"]

        def per_run(x, y, what=what):  # the two processes of each run ran a few seconds apart
            ratios = [p["create"] / q["create"] for p, q in zip(results_of[what, x], results_of[what, y], strict=True)]
            q1, q3 = _quantiles(ratios)
            return f"median of the per-run ratios {statistics.median(ratios):.3f}x, quartiles [{q1:.3f} .. {q3:.3f}]"

        print(f"  cold / store   = {speedup:6.2f}x ({per_run('cold', 'store')})   "
              f"target >= 5x: {'meets' if speedup >= 5 else 'MISSES'}")
        print(f"  store / direct = {overhead:6.3f}x ({per_run('store', 'direct')})   "
              f"target <= 1.1x: {'meets' if overhead <= 1.1 else 'MISSES'}")
        print(f"  within the direct processes: ids + store.get = {(ids + get) * 1e3:.3f} ms, "
              f"{share:.1%} of the creation from the blob (median of per-process shares)")
        verdicts.append((what, speedup, overhead))
    for what in GPU_PRIMITIVES:
        results.add(f"gpu {what}", {variant: [r["create"] for r in results_of[what, variant]]
                                     for variant in GPU_VARIANTS}, "s",
                    f"emulated GPU: seconds to create the {what} primitive, one value per fresh process "
                    f"({prepared[what]['impl']}, cache blob {prepared[what]['blob']} B)")
    for what, speedup, overhead in verdicts:
        results.derive(f"{what}: cold / store", speedup)
        results.derive(f"{what}: store / direct", overhead)
    print("summary: " + "; ".join(f"{what} cold/store {s:.1f}x, store/direct {o:.3f}x" for what, s, o in verdicts))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("cpu", "gpu"), help="run one part only")
    parser.add_argument("--rounds", type=int, help="part 1: interleaved rounds (default 100; --quick 30)")
    parser.add_argument("--runs", type=int, help="part 2: fresh processes per primitive and variant "
                                                 "(default 10; --quick 3)")
    parser.add_argument("--quick", action="store_true", help="fewer rounds and processes (under a minute in all)")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    add_json_option(parser)
    args = parser.parse_args()
    if args.child:
        what, variant, directory = args.child
        print(json.dumps(_gpu_child(what, variant, directory)))
        return
    results = Results()
    rounds = args.rounds or (30 if args.quick else 100)
    runs = args.runs or (3 if args.quick else 10)
    if args.only != "gpu":
        print("== part 1: large work on the CPU engine, binding vs C loop ==")
        cpu_part(rounds, results)
    if args.only != "cpu":
        if args.only is None:
            print()
        print("== part 2: primitive creation on the emulated GPU, fresh processes ==")
        gpu_part(runs, results)
    results.write(args.json)


if __name__ == "__main__":
    main()
