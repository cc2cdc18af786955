"""Blob id: the binding vs bare cffi vs a C loop, in one process.

Runs ``ocl.get_engine_cache_blob_id`` on the PoCL device (a real oneDNN
call: the id is built from the device's name and driver version), compares it
with the same protocol written other ways, and prints the median
per-call time over the rounds:

* ``binding``: ``dnnl_interop.ocl.get_engine_cache_blob_id(device)``, from the
  ``pyopencl.Device`` (handle conversion and checks, then the generated C
  helper that queries, fills and retries in one call, then the copy into
  ``bytes``);
* ``protocol``: ``_sized.query_then_fill(lib.<f>, name, handle)`` with the
  device handle cast once beforehand: the binding less its handle conversion;
* ``C helper``: the generated helper called straight from the loop on a
  prepared record, then ``ffi.unpack``: the floor of one crossing;
* ``bare cffi``: the two-call protocol written inline in Python on the
  binding's API-mode ``lib`` (``ffi.new("size_t *")``, query, ``bytearray``,
  ``ffi.from_buffer``, fill), with the device handle cast once beforehand;
* ``C loop``: a C function compiled here (cffi API mode, ``-O2``) calling the
  real oneDNN function pointer (``dlsym`` on the bound libdnnl, no
  trampoline): query + malloc + fill + free per call, timed with
  ``clock_gettime`` inside C.

The Python variants include the ``for`` loop's own cost (~15-25 ns a call).
Targets: the binding no slower, relative to bare cffi, than before the
protocol moved into C (1.02-1.19x), and within 2.5x the C loop.
"""

from __future__ import annotations

import argparse
import hashlib
import time

from _bench import Results, add_json_option, compile_module, interleave, real_function, report

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


BLOB_ID = "dnnl_ocl_interop_engine_get_cache_blob_id"


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
    add_json_option(parser)
    args = parser.parse_args()
    results = Results()

    import dnnl_interop
    from dnnl_interop import ocl
    from dnnl_interop._ffi import ffi, lib
    from dnnl_interop._sized import query_then_fill

    device = pocl_device()
    library = dnnl_interop.load_library()
    expected = ocl.get_engine_cache_blob_id(device)

    bench_ffi, bench_lib = compile_module("_bench_blob_id", CDEF, SOURCE)
    fn_ptr = bench_ffi.cast("void *", real_function(BLOB_ID))
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

    def protocol(n):
        function, name = lib.dnnl_ocl_interop_engine_get_cache_blob_id, BLOB_ID
        t0 = time.perf_counter()
        for _ in range(n):
            query_then_fill(function, name, handle)
        return time.perf_counter() - t0

    assert query_then_fill(lib.dnnl_ocl_interop_engine_get_cache_blob_id, BLOB_ID, handle) == expected

    def c_helper(n):
        helper, unpack, null = lib.dnnl_interop_sized_dnnl_ocl_interop_engine_get_cache_blob_id, ffi.unpack, ffi.NULL
        record = ffi.new("dnnl_interop_sized_t *")
        scratch = record.scratch
        t0 = time.perf_counter()
        for _ in range(n):
            unpack(scratch, helper(null, handle, record))
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

    print(f"{library.version} at {library.path}")
    print(f"device: {device.name} ({device.platform.name}); blob id {len(expected)} bytes, "
          f"sha256 {hashlib.sha256(expected).hexdigest()[:16]}...")
    print(f"{args.rounds} rounds x {args.calls} calls per variant, interleaved; per call:")
    variants = {"binding": binding, "protocol": protocol, "C helper": c_helper,
                "bare cffi": bare, "C loop": c_loop}
    per_call = interleave(variants, args.rounds, args.calls)
    m = report(per_call)
    results.machine(onednn=str(library.version), device=device.name)
    results.add("blob id", per_call, "s",
                f"seconds per get_engine_cache_blob_id call, the mean of {args.calls} in each round")
    c, bare_ = m["C loop"], m["bare cffi"]
    for name in ("binding", "protocol", "C helper"):
        print(f"  {name}: {m[name] / bare_:.2f}x bare cffi, {m[name] / c:.2f}x C, "
              f"{name} - C = {(m[name] - c) * 1e6:.3f} µs")
    print(f"  bare cffi: {bare_ / c:.2f}x C")
    for target, ok in (("binding <= 1.19x bare cffi", m["binding"] <= 1.19 * bare_),
                       ("binding <= 2.5x C loop", m["binding"] <= 2.5 * c)):
        print(f"  target {target}: {'meets' if ok else 'MISSES'}")
        results.derive(f"target {target}", ok)
    results.write(args.json)


if __name__ == "__main__":
    main()
