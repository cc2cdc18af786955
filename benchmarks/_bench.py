"""Shared helpers of the benchmark scripts (not part of the package).

* :func:`interleave` runs the compared variants in turn, round after round, so
  that a slow stretch of a noisy machine hits all of them alike, and returns
  the per-call time of every round;
* :func:`compile_module` builds a throw-away cffi API-mode module (for the C
  loops) in a temporary directory and imports it;
* :func:`real_function` is the address of a oneDNN function in the library the
  binding is bound to (``dlsym`` on it), so a C loop calls oneDNN directly,
  not through the binding's trampoline.
"""

from __future__ import annotations

import importlib.util
import os
import statistics
import sys
import tempfile


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
