"""Shared helpers of the benchmark scripts (not part of the package).

* :func:`interleave` runs the compared variants in turn, round after round, so
  that a slow stretch of a noisy machine hits all of them alike, and returns
  the per-call time of every round;
* :func:`compile_module` builds a throw-away cffi API-mode module (for the C
  loops) in a temporary directory and imports it;
* :func:`real_function` is the address of a oneDNN function in the library the
  binding is bound to (``dlsym`` on it), so a C loop calls oneDNN directly,
  not through the binding's trampoline;
* :class:`Results` collects what a script measured and writes it as JSON
  (``--json PATH``, added by :func:`add_json_option`): every round's
  measurement of every variant, their summary, the command, the date and the
  machine's load, for ``benchmarks/plot.py`` to draw.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import os
import platform
import shlex
import statistics
import sys
import tempfile
import time


def time_creation(make_pd, variant: str, store, directory: str, name: str) -> dict:
    """In a fresh process: make a primitive descriptor (``make_pd()``), then its
    primitive by ``variant``, in seconds: "cold" (made afresh), "store" and
    "prepare" (through ``store``, "prepare" also writing the blob to
    ``directory/<name>.blob``) or "direct" (from that blob, the store's own
    steps timed apart)."""
    import dnnl_interop as dnnl
    from dnnl_interop import _cached, cache

    blob_path = os.path.join(directory, f"{name}.blob")
    if variant == "direct":
        with open(blob_path, "rb") as f:
            blob = f.read()
    clock = time.perf_counter
    times: dict[str, object] = {}

    start = clock()
    pd = make_pd()
    times["descriptor"] = clock() - start

    start = clock()
    if variant == "cold":
        primitive = dnnl.Primitive(pd)
    elif variant in ("store", "prepare"):
        primitive = dnnl.make_primitive_cached(pd, store)
    else:  # direct
        primitive = dnnl.Primitive(pd, blob)
    times["create"] = clock() - start
    times["impl"] = pd.impl_info

    if variant == "direct":  # the store's own steps, timed apart in this process
        start = clock()
        runtime, engine_id = _cached._engine_blob_id_of(pd)
        key = cache.compose_key(engine_id, pd.cache_blob_id)
        times["ids"] = clock() - start
        start = clock()
        got = store.get(runtime, key)
        times["get"] = clock() - start
        if got != blob:
            raise RuntimeError("the store's entry is not the plain file's blob")
    if variant == "prepare":
        blob = primitive.get_cache_blob()
        with open(blob_path, "wb") as f:
            f.write(blob)
        times["blob"] = len(blob)
        times["entries"] = len(store.entries())
    return times


def interleave(variants: dict, rounds: int, calls: int, warmup: int = 2) -> dict[str, list[float]]:
    """``{name: [seconds per call, one per round]}``.

    Each variant is ``f(n) -> seconds`` timing ``n`` calls. The order of the
    variants rotates every round. ``warmup`` rounds are run and dropped.
    """
    names = list(variants)
    per_call: dict[str, list[float]] = {name: [] for name in names}
    for r in range(warmup + rounds):
        shift = r % len(names)
        for name in names[shift:] + names[:shift]:
            seconds = variants[name](calls)
            if r >= warmup:
                per_call[name].append(seconds / calls)
    return per_call


def median(values) -> float:
    return statistics.median(values)


def spread(values) -> str:
    """The middle half of ``values`` (first to third quartile), in µs."""
    q = statistics.quantiles(values, n=4)
    return f"[{q[0] * 1e6:.3f} .. {q[2] * 1e6:.3f}]"


def report(per_call: dict[str, list[float]], unit: str = "µs") -> dict[str, float]:
    """Print each variant's median per-call time and quartiles; return the medians."""
    medians = {name: median(values) for name, values in per_call.items()}
    width = max(len(name) for name in per_call)
    for name, values in per_call.items():
        print(f"  {name:<{width}}  median {medians[name] * 1e6:8.3f} µs   quartiles {spread(values)}")
    return medians


def compile_module(name: str, cdef: str, source: str):
    """Compile and import an API-mode cffi module ``name``; return its ``(ffi, lib)``.

    The build happens in a temporary directory, removed once the module is
    loaded (a loaded shared object outlives its file).
    """
    import cffi

    builder = cffi.FFI()
    builder.cdef(cdef)
    builder.set_source(name, source, extra_compile_args=["-O2"])
    with tempfile.TemporaryDirectory(prefix="dnnl-interop-bench-") as workdir:
        path = builder.compile(tmpdir=workdir, verbose=False)
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return module.ffi, module.lib


# C loops the benchmarks time oneDNN's calls with (cffi API mode, -O2), and C
# no-ops of the same signatures; compile_loops(name) builds them.
LOOPS_CDEF = """
double execute_loop(void *execute_fn, void *wait_fn, void *primitive, void *stream,
                    int nargs, void *args, int n);
double execute_wait_loop(void *execute_fn, void *wait_fn, void *primitive, void *stream,
                         int nargs, void *args, int n);
int noop_execute(void *primitive, void *stream, int nargs, void *args);
int noop_wait(void *stream);
int noop_execute_and_wait(void *execute_fn, void *wait_fn, void *primitive, void *stream, int nargs, void *args);
long noop_calls(void);
"""

LOOPS_SOURCE = r"""
#include <time.h>

typedef int (*execute_fn_t)(void *primitive, void *stream, int nargs, const void *args);
typedef int (*wait_fn_t)(void *stream);

/* Seconds for n executions and one wait; -1 on a failing call. */
static double execute_loop(void *execute_fn, void *wait_fn, void *primitive, void *stream,
                           int nargs, void *args, int n) {
    execute_fn_t execute = (execute_fn_t)execute_fn;
    struct timespec t0, t1;
    int failures = 0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < n; i++)
        failures += execute(primitive, stream, nargs, args) != 0;
    failures += ((wait_fn_t)wait_fn)(stream) != 0;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (failures) return -1.0;
    return (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
}

/* Seconds for n executions, each followed by a wait; -1 on a failing call. */
static double execute_wait_loop(void *execute_fn, void *wait_fn, void *primitive, void *stream,
                                int nargs, void *args, int n) {
    execute_fn_t execute = (execute_fn_t)execute_fn;
    wait_fn_t wait = (wait_fn_t)wait_fn;
    struct timespec t0, t1;
    int failures = 0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < n; i++) {
        failures += execute(primitive, stream, nargs, args) != 0;
        failures += wait(stream) != 0;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (failures) return -1.0;
    return (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
}

static long noop_count;
static int noop_execute(void *primitive, void *stream, int nargs, void *args) {
    (void)primitive; (void)stream; (void)nargs; (void)args;
    noop_count++;
    return 0;
}
static int noop_wait(void *stream) { (void)stream; noop_count++; return 0; }
/* In place of dnnl_interop_execute_and_wait: both no-ops in one call. */
static int noop_execute_and_wait(void *execute_fn, void *wait_fn, void *primitive, void *stream,
                                 int nargs, void *args) {
    (void)execute_fn; (void)wait_fn;
    return noop_execute(primitive, stream, nargs, args) | noop_wait(stream);
}
static long noop_calls(void) { return noop_count; }
"""


def compile_loops(name: str):
    """The C loops and no-ops above, as an API-mode cffi module ``name``: ``(ffi, lib)``."""
    return compile_module(name, LOOPS_CDEF, LOOPS_SOURCE)


def real_function(name: str):
    """The address (``void *`` of the binding's ffi) of ``name`` in the bound libdnnl."""
    import dnnl_interop
    from dnnl_interop._ffi import ffi, lib

    library = dnnl_interop.loaded_library() or dnnl_interop.load_library()
    handle = lib.dlopen(library.path.encode(), lib.RTLD_NOW | lib.RTLD_NOLOAD)
    if handle == ffi.NULL:
        raise RuntimeError(f"{library.path} is not loaded")
    address = lib.dlsym(handle, name.encode())
    if address == ffi.NULL:
        raise RuntimeError(f"{library.path} does not export {name}")
    return int(ffi.cast("uintptr_t", address))


def require_intel_cpu_opencl() -> None:
    """Exit with a hint unless Intel's CPU OpenCL runtime is registered."""
    if not os.environ.get("OCL_ICD_VENDORS"):
        vendors = os.path.join(sys.prefix, "etc", "OpenCL", "dnnl-interop-vendors")
        sys.exit(f"set OCL_ICD_VENDORS={vendors} first (see benchmarks/README.md)")


# --- machine-readable results (--json) ----------------------------------------------------------

RESULTS_SCHEMA = "dnnl-interop-benchmark/1"


def add_json_option(parser: argparse.ArgumentParser) -> None:
    """``--json PATH``: also write the measurements as JSON (see :class:`Results`)."""
    parser.add_argument("--json", metavar="PATH",
                        help="also write every round's measurements and their summary to PATH as JSON "
                             "(benchmarks/plot.py draws the performance page's charts from it)")


def summary(values: list[float]) -> dict[str, float]:
    """Median, quartiles, range and count of ``values``."""
    q1, q3 = (statistics.quantiles(values, n=4, method="inclusive")[i] for i in (0, 2)) \
        if len(values) > 1 else (values[0], values[0])
    return {"median": statistics.median(values), "q1": q1, "q3": q3,
            "min": min(values), "max": max(values), "n": len(values)}


class Results:
    """What one run of a benchmark script measured, written with :meth:`write`.

    The document (schema ``dnnl-interop-benchmark/1``)::

        {"schema", "script", "command", "started", "finished" (UTC, ISO 8601),
         "machine": {"platform", "cpus", "python", "load_average": {"start", "end"}, ...},
         "sections": {name: {"unit", "description",
                             "rounds": {variant: [one value per round or process]},
                             "summary": {variant: {"median", "q1", "q3", "min", "max", "n"}}}},
         "derived": {name: value}}

    ``rounds`` keeps the order of the measurements, so values of two variants at
    the same index were taken within the same round (paired); ``derived`` holds
    the figures the script printed from them (ratios, verdicts).
    """

    def __init__(self, argv: list[str] | None = None) -> None:
        argv = sys.argv if argv is None else argv
        script = os.path.relpath(os.path.abspath(argv[0]), os.path.dirname(os.path.dirname(__file__)))
        self.document: dict = {
            "schema": RESULTS_SCHEMA,
            "script": script,
            "command": shlex.join(["python", script, *_without_json_option(argv[1:])]),
            "started": _now(),
            "machine": {"platform": platform.platform(), "processor": platform.processor() or platform.machine(),
                        "cpus": os.cpu_count(), "python": platform.python_version(),
                        "load_average": {"start": _load_average()}},
            "sections": {},
            "derived": {},
        }

    def add(self, section: str, rounds: dict[str, list[float]], unit: str = "s", description: str = "") -> None:
        """Record ``{variant: [value per round]}`` under ``section`` (values in ``unit``)."""
        self.document["sections"][section] = {
            "unit": unit, "description": description,
            "rounds": {name: list(values) for name, values in rounds.items()},
            "summary": {name: summary(list(values)) for name, values in rounds.items()},
        }

    def derive(self, name: str, value: object) -> None:
        """Record a figure computed from the measurements (a ratio, a verdict)."""
        self.document["derived"][name] = value

    def machine(self, **facts: object) -> None:
        """Record facts about what ran (the oneDNN version, the implementations chosen)."""
        self.document["machine"].update(facts)

    def write(self, path: str | None) -> None:
        """Write the document to ``path`` (nothing when ``path`` is None)."""
        if path is None:
            return
        self.document["finished"] = _now()
        self.document["machine"]["load_average"]["end"] = _load_average()
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.document, f, indent=1)
            f.write("\n")
        print(f"results written to {path}")


def _without_json_option(argv: list[str]) -> list[str]:
    """``argv`` without ``--json PATH`` (where the results went is not part of the command)."""
    kept, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg == "--json":
            skip = True
        elif not arg.startswith("--json="):
            kept.append(arg)
    return kept


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def _load_average() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None
