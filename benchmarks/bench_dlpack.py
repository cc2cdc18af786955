"""DLPack exchange on the real CPU engine: per tensor, both ways, beside numpy's own.

    OCL_ICD_VENDORS=$PWD/.venv/etc/OpenCL/dnnl-interop-vendors \\
        .venv/bin/python benchmarks/bench_dlpack.py [--rounds 30] [--calls 2000]

Variants, interleaved round by round in this one process, each call's result
dropped at once (so a round times the whole life of a tensor: made, taken,
released). The tensor is a 3x4 f32 array; sizes do not matter, nothing is
copied:

* ``numpy.from_dlpack(array)``: numpy's own exchange (its ``__dlpack__`` and
  its consumer), the reference;
* ``numpy.from_dlpack(memory)``: ``Memory.__dlpack__`` consumed by numpy
  (the capsule, numpy's view, the deleter);
* ``memory.__dlpack__()``: the capsule alone, dropped unused (its destructor
  calls the deleter);
* ``from_dlpack(array)``: ``dnnl_interop.from_dlpack(array, engine=engine)``,
  a Memory over numpy's tensor, then dropped (oneDNN's memory destroyed,
  numpy's deleter called);
* ``Memory.from_array(array)``: ``Memory.from_array(array, engine)``, the same
  for a numpy array given as a buffer (refused if read-only), then dropped;
* ``array.__dlpack__(max_version)``: numpy's capsule alone, as ``from_dlpack``
  asks for it (``max_version=(1, 1)``), dropped unused (its destructor calls
  numpy's deleter): what the producer's side costs;
* ``oneDNN create+destroy``: ``dnnl_memory_create`` then
  ``dnnl_memory_destroy`` through the binding's raw cffi ``lib``, on the
  same descriptor and engine: what oneDNN itself costs for the memory object
  a ``from_dlpack`` must make. With numpy's capsule, the floor of any
  binding's ``from_dlpack`` of a numpy array (printed last).

``--cpu-time`` times each round with ``time.thread_time()`` (the CPU time
this thread used) instead of the wall clock, so that a machine shared with
other work does not count its time.

Target: at most 2 µs per tensor for ``numpy.from_dlpack(memory)`` and for
``from_dlpack(array)``.
"""

from __future__ import annotations

import argparse
import time

from _bench import interleave, report, require_intel_cpu_opencl


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--calls", type=int, default=2000, help="tensors per variant per round")
    parser.add_argument("--cpu-time", action="store_true",
                        help="time with time.thread_time() (this thread's CPU time) instead of the wall clock: "
                             "on a machine shared with other work, what the calls cost rather than how long they took")
    args = parser.parse_args()
    clock = time.thread_time if args.cpu_time else time.perf_counter
    require_intel_cpu_opencl()

    import numpy

    import dnnl_interop as dnnl
    from dnnl_interop._ffi import ffi, lib

    engine = dnnl.Engine.cpu()
    array = numpy.arange(12, dtype=numpy.float32).reshape(3, 4)
    memory = dnnl.Memory(dnnl.MemoryDesc.from_array(array), engine, array)
    # Each way once, checked: no copy either way.
    assert numpy.from_dlpack(memory).ctypes.data == array.ctypes.data
    assert dnnl.from_dlpack(array, engine=engine).data_handle == array.ctypes.data

    def loop(call, argument):
        def run(n):
            t0 = clock()
            for _ in range(n):
                call(argument)
            return clock() - t0
        return run

    from_dlpack, from_array = dnnl.from_dlpack, dnnl.Memory.from_array

    def take(x):
        from_dlpack(x, engine=engine)

    def wrap(x):
        from_array(x, engine)

    def export(m):
        m.__dlpack__()

    def produce(x):
        x.__dlpack__(max_version=(1, 1))

    c_desc, c_engine = memory.desc.handle, engine.handle
    out = ffi.new("dnnl_memory_t *")
    data = ffi.cast("void *", array.__array_interface__["data"][0])
    create, destroy = lib.dnnl_memory_create, lib.dnnl_memory_destroy

    def onednn(n):
        t0 = clock()
        for _ in range(n):
            create(out, c_desc, c_engine, data)
            destroy(out[0])
        return clock() - t0

    variants = {
        "numpy.from_dlpack(array)": loop(numpy.from_dlpack, array),
        "numpy.from_dlpack(memory)": loop(numpy.from_dlpack, memory),
        "memory.__dlpack__()": loop(export, memory),
        "from_dlpack(array)": loop(take, array),
        "Memory.from_array(array)": loop(wrap, array),
        "array.__dlpack__(max_version)": loop(produce, array),
        "oneDNN create+destroy": onednn,
    }
    how = "CPU time of this thread" if args.cpu_time else "wall clock"
    print(f"{args.rounds} rounds x {args.calls} tensors, interleaved, {how}; per tensor:")
    medians = report(interleave(variants, args.rounds, args.calls))
    for name in ("numpy.from_dlpack(memory)", "from_dlpack(array)"):
        verdict = "met" if medians[name] <= 2e-6 else "NOT met"
        print(f"  {name}: {medians[name] * 1e6:.2f} µs, target 2 µs {verdict}")
    floor = medians["oneDNN create+destroy"] + medians["array.__dlpack__(max_version)"]
    print(f"  floor of from_dlpack(array) (numpy's capsule + oneDNN's create+destroy): {floor * 1e6:.2f} µs")
    for name in ("from_dlpack(array)", "Memory.from_array(array)"):
        print(f"  {name} above the floor: {(medians[name] - floor) * 1e6:.2f} µs")


if __name__ == "__main__":
    main()
