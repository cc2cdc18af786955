"""Engine and reorder creation: cold, from a blob in memory, and through a CacheBlobStore.

    .venv/bin/python benchmarks/bench_cached_creation.py [--runs 12] [--shape 64 32]

On real oneDNN, emulated GPU (``dnnl_interop.testing.emulated_gpu``): every
measurement is the first creation of a **fresh process**, so oneDNN has no
device description and no compiled kernel yet, and
``ONEDNN_PRIMITIVE_CACHE_CAPACITY=0`` keeps its in-process primitive cache
out. One prepare process makes the engine and an f32 ``ab -> ba`` reorder
cold and saves their blobs in a store (and as plain files); then the
variants run in alternating fresh processes, ``--runs`` each:

* ``cold``: ``ocl.make_engine(device, context)``; ``Primitive(desc)``;
* ``direct``: the blobs read from plain files before timing, handed straight
  to oneDNN: ``make_engine(device, context, blob)``; ``Primitive(desc, blob)``.
  Timed apart, before each creation, are the ids a user needs to know which
  blob fits (``get_engine_cache_blob_id(device)``; the engine's id and
  ``desc.cache_blob_id``): ``direct+ids`` is the sum;
* ``file``: what the one known consumer of these blobs (OpenVINO's GPU
  plugin) does: the ids, then the blob read from a plain file named after
  them (no checks), then the same creation as ``direct``;
* ``store``: ``ocl.make_engine_cached(device, context, store)``;
  ``make_primitive_cached(desc, store)``: ids, store read and verification,
  creation from the blob (and, for the engine, the check that it gives the
  blob back);
* ``store-parts``: the steps of ``store``, made one by one and timed apart
  in the same process: the ids, ``store.get`` (read and verify), the
  creation from the blob (and the engine's blob read back). Medians across
  processes are at the mercy of a noisy machine; the store's share within
  one process is not, so the overhead is also given as the median over the
  processes of ``store.get / (ids + creation)`` and
  ``(ids + store.get) / creation``;
* ``store-miss``: the same with an empty store: cold creation plus the ids,
  the miss, fetching the new blob and the durable write (fsync).

Each process first loads oneDNN (``dnnl.version()``), imports every module
it uses and makes its pyopencl context and the memory descriptors: none of
that is timed. The reorder's descriptor is made (timed apart, ``descriptor``)
after the engine in every variant. Medians over the processes, quartiles and
the ratios are printed.

Only oneDNN's generic OpenCL C kernels run on the emulated GPU (a Gen9-like
device without nGEN): a real Intel GPU probes and compiles other kernels,
so the absolute times say nothing about one; the ratio of the store's cost
to handing the blob straight to oneDNN is what this measures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from _bench import Results, add_json_option

VARIANTS = ("cold", "direct", "file", "store", "store-parts", "store-miss")


def _child(variant: str, directory: str, shape: tuple[int, int]) -> dict:
    """One fresh process: the timings of one variant, in seconds."""
    from dnnl_interop.testing import emulated_gpu

    gpu = emulated_gpu.enable()
    import dnnl_interop as dnnl
    from dnnl_interop import _cached, cache, ocl  # imported before timing

    dnnl.version()  # loads oneDNN
    store = cache.CacheBlobStore(os.path.join(directory, "store") if variant != "store-miss"
                                 else tempfile.mkdtemp(prefix="miss-", dir=directory))
    src_desc, dst_desc = dnnl.MemoryDesc(shape, "float32", "ab"), dnnl.MemoryDesc(shape, "float32", "ba")
    if variant == "direct":
        engine_blob = _read(directory, "engine")
        primitive_blob = _read(directory, "primitive")
    clock = time.perf_counter
    times = {}

    start = clock()
    if variant == "cold":
        engine = ocl.make_engine(gpu.device, gpu.context)
    elif variant == "direct":
        ocl.get_engine_cache_blob_id(gpu.device)
        times["engine ids"] = clock() - start
        start = clock()
        engine = ocl.make_engine(gpu.device, gpu.context, engine_blob)
    elif variant == "file":
        ocl.get_engine_cache_blob_id(gpu.device)
        engine = ocl.make_engine(gpu.device, gpu.context, _read(directory, "engine"))
    elif variant == "store-parts":
        key = ocl.get_engine_cache_blob_id(gpu.device)
        times["engine ids"] = clock() - start
        start = clock()
        blob = store.get("ocl", key)
        times["engine get"] = clock() - start
        start = clock()
        engine = ocl.make_engine(gpu.device, gpu.context, blob)
    else:
        engine = ocl.make_engine_cached(gpu.device, gpu.context, store)
    times["engine"] = clock() - start
    if variant in ("direct", "store-parts"):  # make_engine_cached's check that the engine gives the blob back
        start = clock()
        ocl.get_engine_cache_blob(engine)
        times["engine gives back"] = clock() - start

    start = clock()
    desc = dnnl.PrimitiveDesc.reorder(src_desc, dst_desc, engine)
    times["descriptor"] = clock() - start

    start = clock()
    if variant == "cold":
        primitive = dnnl.Primitive(desc)
    elif variant == "direct":
        cache.compose_key(_cached._engine_blob_id_of(desc)[1], desc.cache_blob_id)
        times["primitive ids"] = clock() - start
        start = clock()
        primitive = dnnl.Primitive(desc, primitive_blob)
    elif variant == "file":
        cache.compose_key(_cached._engine_blob_id_of(desc)[1], desc.cache_blob_id)
        primitive = dnnl.Primitive(desc, _read(directory, "primitive"))
    elif variant == "store-parts":
        runtime, engine_id = _cached._engine_blob_id_of(desc)
        key = cache.compose_key(engine_id, desc.cache_blob_id)
        times["primitive ids"] = clock() - start
        start = clock()
        blob = store.get(runtime, key)
        times["primitive get"] = clock() - start
        start = clock()
        primitive = dnnl.Primitive(desc, blob)
    else:
        primitive = dnnl.make_primitive_cached(desc, store)
    times["primitive"] = clock() - start

    if variant == "prepare":
        with open(os.path.join(directory, "engine.blob"), "wb") as f:
            f.write(ocl.get_engine_cache_blob(engine))
        with open(os.path.join(directory, "primitive.blob"), "wb") as f:
            f.write(primitive.get_cache_blob())
        times["entries"] = len(store.entries())
    return times


def _read(directory: str, name: str) -> bytes:
    with open(os.path.join(directory, f"{name}.blob"), "rb") as f:
        return f.read()


def _run_child(variant: str, directory: str, shape) -> dict:
    env = dict(os.environ, ONEDNN_PRIMITIVE_CACHE_CAPACITY="0")
    done = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--child", variant, directory, *map(str, shape)],
        env=env, capture_output=True, text=True, timeout=600,
    )
    if done.returncode:
        sys.exit(f"{variant} process failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:9.3f} ms"


def _summary(name: str, values: list[float]) -> float:
    median = statistics.median(values)
    q = statistics.quantiles(values, n=4) if len(values) > 1 else [median, median, median]
    print(f"  {name:<24} median {_ms(median)}   quartiles [{q[0] * 1e3:.3f} .. {q[2] * 1e3:.3f}] ms")
    return median


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=12, help="fresh processes per variant")
    parser.add_argument("--shape", type=int, nargs=2, default=(64, 32))
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    add_json_option(parser)
    args = parser.parse_args()
    if args.child:
        variant, directory, rows, cols = args.child
        print(json.dumps(_child(variant, directory, (int(rows), int(cols)))))
        return
    report = Results()
    report.derive("shape", list(args.shape))

    shape = tuple(args.shape)
    with tempfile.TemporaryDirectory(prefix="dnnl-interop-bench-cache-") as directory:
        prepared = _run_child("prepare", directory, shape)
        if prepared["entries"] != 2:
            sys.exit(f"the prepare process saved {prepared['entries']} entries, not 2")
        sizes = {name: os.path.getsize(os.path.join(directory, f"{name}.blob")) for name in ("engine", "primitive")}
        print(f"reorder {shape[0]}x{shape[1]} f32 ab->ba; engine blob {sizes['engine']} B, "
              f"primitive blob {sizes['primitive']:,} B; {args.runs} fresh processes per variant")
        results: dict[str, list[dict]] = {variant: [] for variant in VARIANTS}
        for run in range(args.runs):
            order = VARIANTS[run % len(VARIANTS):] + VARIANTS[:run % len(VARIANTS)]
            for variant in order:
                results[variant].append(_run_child(variant, directory, shape))

    medians: dict[str, dict[str, float]] = {}
    for what in ("engine", "primitive"):
        print(f"\n{what} creation:")
        m = medians[what] = {}
        for variant in VARIANTS:
            m[variant] = _summary(variant, [r[what] for r in results[variant]])
        ids = [r[f"{what} ids"] for r in results["direct"]]
        m["ids"] = _summary("  (direct: ids)", ids)
        m["direct+ids"] = _summary("direct+ids", [r[what] + r[f"{what} ids"] for r in results["direct"]])
        if what == "engine":
            _summary("  (direct: gives back)", [r["engine gives back"] for r in results["direct"]])
        print(f"  cold / store            {m['cold'] / m['store']:6.2f}x")
        print(f"  store / direct          {m['store'] / m['direct']:6.3f}x  (ids, read and verify on top)")
        print(f"  store / direct+ids      {m['store'] / m['direct+ids']:6.3f}x  (read and verify on top)")
        print(f"  store / file            {m['store'] / m['file']:6.3f}x  (verify on top)")
        print(f"  store-miss / cold       {m['store-miss'] / m['cold']:6.3f}x  (first run: ids, save)")
        creation = {variant: [r[what] for r in results[variant]] for variant in VARIANTS if variant != "store-parts"}
        creation["direct+ids"] = [r[what] + r[f"{what} ids"] for r in results["direct"]]
        report.add(what, creation, "s",
                   f"emulated GPU: seconds to create the {'engine' if what == 'engine' else 'reorder'}, one value per "
                   f"fresh process ({sizes[what]} B blob)")
        for ratio, (x, y) in {"cold / store": ("cold", "store"), "store / direct": ("store", "direct"),
                              "store / direct+ids": ("store", "direct+ids"), "store / file": ("store", "file")}.items():
            report.derive(f"{what}: {ratio}", m[x] / m[y])
        parts = results["store-parts"]
        _summary("  (store-parts: ids)", [r[f"{what} ids"] for r in parts])
        _summary("  (store-parts: get)", [r[f"{what} get"] for r in parts])
        _summary("  (store-parts: create)", [r[what] for r in parts])
        over_ids = statistics.median(r[f"{what} get"] / (r[f"{what} ids"] + r[what]) for r in parts)
        over_direct = statistics.median((r[f"{what} ids"] + r[f"{what} get"]) / r[what] for r in parts)
        print(f"  within one process: store.get adds {over_ids:6.1%} to ids + creation, "
              f"ids + store.get add {over_direct:6.1%} to the creation")
    print("\ndescriptor (every variant):")
    _summary("descriptor", [r["descriptor"] for variant in VARIANTS for r in results[variant]])
    report.write(args.json)


if __name__ == "__main__":
    main()
