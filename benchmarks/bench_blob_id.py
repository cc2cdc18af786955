"""Cost of one cache-blob-id query: the binding vs bare cffi vs a C loop.

    OCL_ICD_VENDORS=$PWD/.venv/etc/OpenCL/dnnl-interop-vendors \\
        .venv/bin/python benchmarks/bench_blob_id.py [--rounds 30] [--calls 2000]

Three variants run the same two-call protocol of
``dnnl_ocl_interop_engine_get_cache_blob_id`` on PoCL's device (query the
size with a NULL buffer, allocate, fill), interleaved round by round in this
one process; each prints the median per-call time over the rounds:

* ``binding``: ``dnnl_interop.ocl.get_engine_cache_blob_id(device)``, from the
  ``pyopencl.Device`` (handle conversion, size query, ``bytes`` fill, checks);
* ``bare cffi``: the same sequence written inline in Python on the binding's
  API-mode ``lib`` (``ffi.new("size_t *")``, query, ``bytearray``,
  ``ffi.from_buffer``, fill), with the device handle cast once beforehand;
* ``C loop``: a C function compiled here (cffi API mode, ``-O2``) calling the
  real oneDNN function pointer (``dlsym`` on the bound libdnnl, no
  trampoline): query + malloc + fill + free per call, timed with
  ``clock_gettime`` inside C.

Both Python variants include the ``for`` loop's own cost (~15-25 ns a call).
Target: the binding at most 1.5 µs a call.
"""

from __future__ import annotations

import argparse
import hashlib
import time

from _bench import compile_module, interleave, real_function, report

CDEF = "double blob_id_loop(void *fn_ptr, void *device, int n);"

SOURCE = r"""
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

typedef int (*blob_id_fn)(void *device, size_t *size, uint8_t *buffer);
static volatile uint8_t sink;

/* Seconds for n full protocols (query, malloc, fill, free); -1 on a failure. */
static double blob_id_loop(void *fn_ptr, void *device, int n) {
    blob_id_fn fn = (blob_id_fn)fn_ptr;
    struct timespec t0, t1;
    int failures = 0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < n; i++) {
        size_t size = 0;
        failures += fn(device, &size, NULL) != 0;
        uint8_t *buffer = malloc(size ? size : 1);
        failures += fn(device, &size, buffer) != 0;
        sink = buffer[0];
        free(buffer);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (failures) return -1.0;
    return (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
}
"""


def pocl_device():
    import pyopencl

    for platform in pyopencl.get_platforms():
        if "Portable Computing Language" in platform.name:
            return platform.get_devices()[0]
    raise SystemExit("PoCL is not available (pip install pocl-binary-distribution)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--calls", type=int, default=2000, help="calls per variant per round")
    args = parser.parse_args()

    import dnnl_interop
    from dnnl_interop import ocl
    from dnnl_interop._ffi import ffi, lib

    device = pocl_device()
    library = dnnl_interop.load_library()
    expected = ocl.get_engine_cache_blob_id(device)

    bench_ffi, bench_lib = compile_module("_bench_blob_id", CDEF, SOURCE)
    fn_ptr = bench_ffi.cast("void *", real_function("dnnl_ocl_interop_engine_get_cache_blob_id"))
    device_ptr = bench_ffi.cast("void *", device.int_ptr)
    handle = ffi.cast("cl_device_id", device.int_ptr)

    def bare_once():
        size = ffi.new("size_t *")
        if lib.dnnl_ocl_interop_engine_get_cache_blob_id(handle, size, ffi.NULL):
            raise RuntimeError("size query failed")
        out = bytearray(size[0])
        if lib.dnnl_ocl_interop_engine_get_cache_blob_id(handle, size, ffi.from_buffer("uint8_t[]", out)):
            raise RuntimeError("fill failed")
        return out

    assert bare_once() == expected

    def binding(n):
        get = ocl.get_engine_cache_blob_id
        t0 = time.perf_counter()
        for _ in range(n):
            get(device)
        return time.perf_counter() - t0

    def bare(n):
        get = lib.dnnl_ocl_interop_engine_get_cache_blob_id
        new, from_buffer, null = ffi.new, ffi.from_buffer, ffi.NULL
        t0 = time.perf_counter()
        for _ in range(n):
            size = new("size_t *")
            if get(handle, size, null):
                raise RuntimeError("size query failed")
            out = bytearray(size[0])
            if get(handle, size, from_buffer("uint8_t[]", out)):
                raise RuntimeError("fill failed")
        return time.perf_counter() - t0

    def c_loop(n):
        seconds = bench_lib.blob_id_loop(fn_ptr, device_ptr, n)
        if seconds < 0:
            raise RuntimeError("the C loop saw a failing call")
        return seconds

    print(f"oneDNN {library.version} at {library.path}")
    print(f"device: {device.name} ({device.platform.name}); blob id {len(expected)} bytes, "
          f"sha256 {hashlib.sha256(expected).hexdigest()[:16]}...")
    print(f"{args.rounds} rounds x {args.calls} calls per variant, interleaved; per call:")
    per_call = interleave({"binding": binding, "bare cffi": bare, "C loop": c_loop},
                          args.rounds, args.calls)
    m = report(per_call)
    print(f"  binding / bare cffi = {m['binding'] / m['bare cffi']:.2f}x, "
          f"binding / C = {m['binding'] / m['C loop']:.2f}x, "
          f"binding - C = {(m['binding'] - m['C loop']) * 1e6:.3f} µs, "
          f"binding - bare cffi = {(m['binding'] - m['bare cffi']) * 1e6:.3f} µs")
    verdict = "meets" if m["binding"] <= 1.5e-6 else "MISSES"
    print(f"  target binding <= 1.5 µs: {verdict} ({m['binding'] * 1e6:.3f} µs)")


if __name__ == "__main__":
    main()
