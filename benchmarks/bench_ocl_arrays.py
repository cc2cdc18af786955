"""Execute over pyopencl Arrays ordered by their events vs over bare buffers with a wait.

    .venv/bin/python benchmarks/bench_ocl_arrays.py [--rounds 2000] [--calls 1]

On real oneDNN 3.13, **emulated GPU** (``dnnl_interop.testing.emulated_gpu``,
enabled by the script: oneDNN's generic OpenCL kernels on Intel's CPU OpenCL
runtime, so the kernel times are not a GPU's). The primitive is an f32
64x32 ReLU (``EltwiseForwardDesc``), src and dst plain "ab". For an in-order
and an out-of-order queue, two loops, interleaved round by round in this one
process, each execution completed before the next:

* ``buffers + wait``: memories over bare ``pyopencl.Buffer`` objects,
  ``primitive.execute(stream, args)`` then ``stream.wait()`` (``clFinish``):
  how pyopencl work was ordered with oneDNN's before Arrays carried events;
* ``arrays + events``: memories over ``pyopencl.array.Array`` objects,
  ``primitive.execute(stream, args)``, which waits for nothing on the host:
  it makes the Arrays' events its dependencies (a barrier on the in-order
  queue) and adds its completion event to both Arrays (a marker on the
  in-order queue); then ``dst_array.finish()``, pyopencl's wait for the
  events of the result (``clWaitForEvents``). The source Array's events are
  left to pyopencl, which waits for its oldest ones once more than a dozen
  are pending (as for any Array only ever read).

A round is ``--calls`` executions of each loop, in an order that rotates
every round. With the default of one, the medians are over single
executions: on a loaded machine a few percent of executions stall for
milliseconds (the process descheduled, in Python or inside the OpenCL
runtime), and a round of many calls averages those in; ``--calls 50`` shows
that view. Printed: each loop's median time per execution with quartiles,
and the median of the per-round differences ``arrays + events - buffers +
wait`` (target: at most 10 µs). Before timing, each loop's result is
checked against numpy.
"""

from __future__ import annotations

import argparse
import time

from _bench import interleave, median, report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--calls", type=int, default=1, help="executions per loop per round")
    args = parser.parse_args()

    from dnnl_interop.testing import emulated_gpu

    gpu = emulated_gpu.enable()  # before pyopencl is imported

    import numpy
    import pyopencl as cl
    import pyopencl.array as cl_array

    import dnnl_interop as dnnl
    from dnnl_interop import ocl

    shape = (64, 32)
    host = numpy.arange(numpy.prod(shape), dtype=numpy.float32).reshape(shape) - 1000
    expected = numpy.maximum(host, 0)
    engine = ocl.make_engine(gpu.device, gpu.context)
    desc = dnnl.MemoryDesc(shape, "f32", "ab")
    relu = dnnl.Primitive(dnnl.EltwiseForwardDesc(engine, dnnl.AlgKind.ELTWISE_RELU, desc, desc))
    print(f"{dnnl.load_library().version}, emulated GPU {gpu.device.name!r}; f32 {shape} ReLU")

    loops = {}
    keep = []
    for order, properties in (("in-order", 0),
                              ("out-of-order", cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE)):
        queue = cl.CommandQueue(gpu.context, properties=properties)
        stream = ocl.make_stream(engine, queue)
        flags = cl.mem_flags
        src_buffer = cl.Buffer(gpu.context, flags.READ_WRITE | flags.COPY_HOST_PTR, hostbuf=host)
        dst_buffer = cl.Buffer(gpu.context, flags.READ_WRITE, host.nbytes)
        buffer_args = {dnnl.ARG_SRC: ocl.make_memory(desc, engine, handle=src_buffer),
                       dnnl.ARG_DST: ocl.make_memory(desc, engine, handle=dst_buffer)}
        src_array = cl_array.to_device(queue, host)
        dst_array = cl_array.zeros(queue, shape, numpy.float32)
        array_args = {dnnl.ARG_SRC: ocl.make_memory(desc, engine, handle=src_array),
                      dnnl.ARG_DST: ocl.make_memory(desc, engine, handle=dst_array)}
        keep.append((queue, stream, src_buffer, dst_buffer, buffer_args, src_array, dst_array, array_args))

        def buffers(n, execute=relu.execute, stream=stream, args=buffer_args):
            wait = stream.wait
            t0 = time.perf_counter()
            for _ in range(n):
                execute(stream, args)
                wait()
            return time.perf_counter() - t0

        def arrays(n, execute=relu.execute, stream=stream, args=array_args, dst=dst_array):
            finish = dst.finish
            t0 = time.perf_counter()
            for _ in range(n):
                execute(stream, args)
                finish()
            return time.perf_counter() - t0

        buffers(1)
        out = numpy.empty_like(host)
        cl.enqueue_copy(queue, out, dst_buffer).wait()
        assert (out == expected).all(), "buffers: wrong result"
        arrays(1)
        assert (dst_array.get() == expected).all(), "arrays: wrong result"
        loops[f"{order} buffers + wait"] = buffers
        loops[f"{order} arrays + events"] = arrays

    print(f"{args.rounds} rounds x {args.calls} executions per loop, interleaved; per execution:")
    per_call = interleave(loops, args.rounds, args.calls)
    report(per_call)
    for order in ("in-order", "out-of-order"):
        paired = [a - b for a, b in zip(per_call[f"{order} arrays + events"],
                                        per_call[f"{order} buffers + wait"], strict=True)]
        extra = median(paired)
        print(f"  {order}: arrays + events - buffers + wait, median of per-round differences "
              f"{extra * 1e6:.2f} µs; target <= 10 µs: {'meets' if extra <= 10e-6 else 'MISSES'}")


if __name__ == "__main__":
    main()
