"""SYCL interop costs over dpnp arrays: wrapping an array as memory, and execute + wait.

    .venv/bin/python benchmarks/bench_sycl.py --device cpu [--rounds 30] [--calls 500] [--cpu-time]
    .venv/bin/python benchmarks/bench_sycl.py --device gpu [--rounds 30] [--calls 500] [--cpu-time]

On real oneDNN 3.13 and dpnp. ``--device cpu`` is SYCL's CPU device (Intel's
CPU OpenCL runtime); ``--device gpu`` is the **emulated GPU**
(``dnnl_interop.testing.emulated_gpu``, enabled by the script: oneDNN's
generic OpenCL kernels on Intel's CPU OpenCL runtime, so kernel times are not
a GPU's). Variants interleaved round by round in this one process, in an
order that rotates every round; each memory is dropped at once (a round times
its whole life: made, checked, destroyed). Needs dpnp (``pip install
'dnnl-interop[dpnp]'``).

Wrapping a 3x4 f32 dpnp array (target: at most 5 µs):

* ``Memory.from_array(x)``: the descriptor from the array's
  ``__sycl_usm_array_interface__``, the SYCL context check, the memory;
* ``sycl.make_memory(desc, x)``: the same for a descriptor given, checked
  against the array;
* ``sycl.make_memory(desc, ptr)``: the bare USM pointer (an int), checked
  against the engine's context only;
* ``ocl.make_memory(desc, ptr)`` (``--device gpu``): OpenCL USM memory of the
  same device through the OpenCL interop, no check: the reference;
* ``oneDNN create+destroy``: ``dnnl_sycl_interop_memory_create`` and
  ``dnnl_memory_destroy`` through the raw cffi ``lib``: oneDNN's own floor.

Execute + wait of a tiny primitive (an 8x8 f32 ReLU; ``--device gpu`` only,
as an OpenCL engine needs a GPU; target: SYCL within 1.10x of OpenCL), each
loop an execute then ``stream.wait()``:

* ``sycl: Primitive.execute+wait`` / ``ocl: Primitive.execute+wait``: the
  same call on a stream over a dpnp array's in-order queue (memories over
  dpnp arrays) and on an OpenCL-interop stream over an in-order pyopencl
  queue of the same device (OpenCL USM memories);
* ``sycl.execute+wait`` / ``ocl.execute+wait``: the runtimes' own execute,
  ``sycl.execute`` returning oneDNN's event as a ``dpctl.SyclEvent``,
  ``ocl.execute`` returning None (oneDNN gives no event on an in-order queue).
"""

from __future__ import annotations

import argparse
import time

from _bench import interleave, report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", choices=("cpu", "gpu"), required=True)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--calls", type=int, default=500, help="calls per variant per round")
    parser.add_argument("--cpu-time", action="store_true",
                        help="time with time.thread_time() (this thread's CPU time) instead of the wall clock: "
                             "on a machine shared with other work, what the calls cost rather than how long they took")
    args = parser.parse_args()
    clock = time.thread_time if args.cpu_time else time.perf_counter
    gpu = None
    if args.device == "gpu":
        from dnnl_interop.testing import emulated_gpu

        gpu = emulated_gpu.enable()  # before anything asks OpenCL or SYCL
    from dnnl_interop.testing import sycl_devices

    sycl_devices.enable()

    import dpctl
    import dpnp

    import dnnl_interop as dnnl
    from dnnl_interop import ocl, sycl
    from dnnl_interop._ffi import ffi, lib

    queue = dpctl.SyclQueue(f"opencl:{args.device}", property="in_order")
    engine = sycl.make_engine(queue.sycl_device, queue.sycl_context)
    x = dpnp.arange(12, dtype="float32", sycl_queue=queue).reshape(3, 4)
    desc = dnnl.MemoryDesc((3, 4), "f32", "ab")
    pointer = x.__sycl_usm_array_interface__["data"][0]
    assert dnnl.Memory.from_array(x, engine).data_handle == pointer  # no copy

    def timed(make):
        def run(n: int) -> float:
            start = clock()
            for _ in range(n):
                make()
            return clock() - start
        return run

    out = ffi.new("dnnl_memory_t *")
    c_pointer = ffi.cast("void *", pointer)

    def raw() -> None:
        lib.dnnl_sycl_interop_memory_create(out, desc.handle, engine.handle, lib.dnnl_sycl_interop_usm, c_pointer)
        lib.dnnl_memory_destroy(out[0])

    variants = {
        "Memory.from_array(x)": timed(lambda: dnnl.Memory.from_array(x, engine)),
        "sycl.make_memory(desc, x)": timed(lambda: sycl.make_memory(desc, engine, sycl.MemoryKind.USM, x)),
        "sycl.make_memory(desc, ptr)": timed(lambda: sycl.make_memory(desc, engine, sycl.MemoryKind.USM, pointer)),
        "oneDNN create+destroy": timed(raw),
    }
    if gpu is not None:
        ocl_engine = ocl.make_engine(gpu.device, gpu.context)
        usm = ocl.make_memory(desc, ocl_engine, ocl.MemoryKind.USM)  # OpenCL USM of the same device
        ocl_pointer = usm.data_handle
        variants["ocl.make_memory(desc, ptr)"] = timed(
            lambda: ocl.make_memory(desc, ocl_engine, ocl.MemoryKind.USM, ocl_pointer)
        )
    print(f"wrapping a 3x4 f32 dpnp array as memory, {args.device} device "
          f"({args.rounds} rounds x {args.calls} calls), per call:")
    report(interleave(variants, args.rounds, args.calls))

    if gpu is None:
        return
    import numpy
    import pyopencl as cl

    shape = (8, 8)
    relu_desc = dnnl.MemoryDesc(shape, "f32", "ab")

    def relu(on):
        return dnnl.Primitive(dnnl.EltwiseForwardDesc(on, dnnl.AlgKind.ELTWISE_RELU, relu_desc, relu_desc))

    sycl_stream = sycl.make_stream(engine, queue)
    a = dpnp.asarray(numpy.linspace(-1, 1, 64, dtype=numpy.float32).reshape(shape), sycl_queue=queue)
    b = dpnp.zeros(shape, dtype="float32", sycl_queue=queue)
    sycl_args = {dnnl.ARG_SRC: dnnl.Memory.from_array(a, engine), dnnl.ARG_DST: dnnl.Memory.from_array(b, engine)}
    sycl_relu = relu(engine)
    cl_queue = cl.CommandQueue(gpu.context)
    ocl_stream = ocl.make_stream(ocl_engine, cl_queue)
    ocl_args = {dnnl.ARG_SRC: ocl.make_memory(relu_desc, ocl_engine, ocl.MemoryKind.USM),
                dnnl.ARG_DST: ocl.make_memory(relu_desc, ocl_engine, ocl.MemoryKind.USM)}
    ocl_relu = relu(ocl_engine)

    def loop(execute, stream, primitive, args):
        def run(n: int) -> float:
            start = clock()
            for _ in range(n):
                execute(primitive, stream, args)
                stream.wait()
            return clock() - start
        return run

    def method(primitive, stream, args):
        primitive.execute(stream, args)

    loops = {
        "sycl: Primitive.execute+wait": loop(method, sycl_stream, sycl_relu, sycl_args),
        "ocl: Primitive.execute+wait": loop(method, ocl_stream, ocl_relu, ocl_args),
        "sycl.execute+wait": loop(sycl.execute, sycl_stream, sycl_relu, sycl_args),
        "ocl.execute+wait": loop(ocl.execute, ocl_stream, ocl_relu, ocl_args),
    }
    sycl_run = loops["sycl.execute+wait"]
    sycl_run(1)
    assert (dpnp.asnumpy(b) == numpy.maximum(dpnp.asnumpy(a), 0)).all()
    calls = max(1, args.calls // 10)
    print(f"execute + wait of an 8x8 f32 ReLU, emulated GPU ({args.rounds} rounds x {calls} calls), per call:")
    medians = report(interleave(loops, args.rounds, calls))
    print(f"  Primitive.execute, sycl / ocl: "
          f"{medians['sycl: Primitive.execute+wait'] / medians['ocl: Primitive.execute+wait']:.3f}")
    print(f"  sycl.execute / ocl.execute: {medians['sycl.execute+wait'] / medians['ocl.execute+wait']:.3f}")


if __name__ == "__main__":
    main()
