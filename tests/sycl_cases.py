"""Primitives over USM arrays on a SYCL engine, checked against numpy: shared by the
CPU-device tests (tests/test_sycl*.py) and the emulated GPU's (tests/gpu/test_sycl_gpu.py).

An :class:`Arrays` says how a test makes arrays on its queue and reads them
back: dpctl's shared USM (:class:`sycl_arrays.SharedArray`) or dpnp arrays.
Every case gives its memories to oneDNN as the arrays themselves
(``Memory.from_array``), runs on a stream over the arrays' own queue with
``sycl.execute``, and compares with numpy. Shapes are small: on the emulated
GPU each distinct primitive costs seconds to build.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

import dnnl_interop as dnnl
from dnnl_interop import sycl
from sycl_arrays import SharedArray


@dataclass
class Arrays:
    """Arrays of one library on one queue."""

    name: str
    make: Callable[[np.ndarray], object]  # a USM array holding a copy of the numpy array
    transposed_zeros: Callable[[tuple[int, int]], object]  # zeros of shape (m, n) laid out as (n, m).T
    read: Callable[[object], np.ndarray]  # the array's data, on the host


def shared_arrays(queue) -> Arrays:
    def transposed(shape):
        return SharedArray(queue, shape, strides=(1, shape[0]))

    return Arrays("dpctl", lambda a: SharedArray(queue, a.shape, a.dtype, data=a), transposed, lambda x: x.host.copy())


def dpnp_arrays(queue) -> Arrays:
    import dpnp

    def transposed(shape):
        return dpnp.zeros(shape[::-1], dtype="float32", sycl_queue=queue).T

    return Arrays("dpnp", lambda a: dpnp.asarray(a, sycl_queue=queue), transposed, dpnp.asnumpy)


def _run(primitive, stream, args) -> None:
    event = sycl.execute(primitive, stream, args)
    event.wait()


def reorder_case(engine, stream, arrays: Arrays) -> None:
    """A transposing reorder: ``ab`` into a ``ba`` array."""
    source = np.arange(24, dtype=np.float32).reshape(4, 6) - 7.5
    src_array, dst_array = arrays.make(source), arrays.transposed_zeros((4, 6))
    src, dst = dnnl.Memory.from_array(src_array, engine), dnnl.Memory.from_array(dst_array, engine)
    assert dst.desc.strides == (1, 4)
    _run(dnnl.reorder(src.desc, dst.desc, engine), stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
    np.testing.assert_array_equal(arrays.read(dst_array), source)


def matmul_case(engine, stream, arrays: Arrays) -> None:
    rng = np.random.default_rng(7)
    a = rng.standard_normal((5, 8), dtype=np.float32)
    b = rng.standard_normal((8, 3), dtype=np.float32)
    a_array, b_array, c_array = arrays.make(a), arrays.make(b), arrays.make(np.zeros((5, 3), np.float32))
    src, weights, dst = (dnnl.Memory.from_array(x, engine) for x in (a_array, b_array, c_array))
    pd = dnnl.MatmulDesc(engine, src.desc, weights.desc, dst.desc)
    _run(dnnl.Primitive(pd), stream, {dnnl.ARG_SRC: src, dnnl.ARG_WEIGHTS: weights, dnnl.ARG_DST: dst})
    np.testing.assert_allclose(arrays.read(c_array), a @ b, rtol=1e-5, atol=1e-5)


def convolution_relu_case(engine, stream, arrays: Arrays) -> None:
    """A 3x3 convolution (nchw, oihw) with a fused ReLU, against numpy's sum of shifted products."""
    rng = np.random.default_rng(11)
    x = rng.standard_normal((1, 2, 5, 5), dtype=np.float32)
    w = rng.standard_normal((3, 2, 3, 3), dtype=np.float32)
    expected = np.zeros((1, 3, 3, 3), np.float32)
    for i in range(3):
        for j in range(3):
            expected += np.einsum("nchw,oc->nohw", x[:, :, i:i + 3, j:j + 3], w[:, :, i, j])
    expected = np.maximum(expected, 0)
    x_array, w_array, y_array = arrays.make(x), arrays.make(w), arrays.make(np.zeros((1, 3, 3, 3), np.float32))
    src, weights, dst = (dnnl.Memory.from_array(a, engine) for a in (x_array, w_array, y_array))
    post_ops = dnnl.PostOps()
    post_ops.append_eltwise(dnnl.AlgKind.ELTWISE_RELU)
    attr = dnnl.PrimitiveAttr()
    attr.set_post_ops(post_ops)
    pd = dnnl.ConvolutionForwardDesc(
        engine, src.desc, weights.desc, dst.desc, strides=(1, 1), padding_l=(0, 0), padding_r=(0, 0), attr=attr
    )
    _run(dnnl.Primitive(pd), stream, {dnnl.ARG_SRC: src, dnnl.ARG_WEIGHTS: weights, dnnl.ARG_DST: dst})
    result = arrays.read(y_array)
    assert (result >= 0).all() and (result == 0).any() and (result > 0).any()
    np.testing.assert_allclose(result, expected, rtol=1e-4, atol=1e-4)


CASES = {"reorder": reorder_case, "matmul": matmul_case, "convolution-relu": convolution_relu_case}


@contextmanager
def counted_alone() -> Iterator[None]:
    """No garbage collection while host waits are counted: a collection there would free
    arrays that earlier tests dropped, and freeing a dpnp array's USM waits for its queue
    (seen as one or two waits in about one chain in 25 on the emulated GPU)."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def dpnp_chain(engine, stream, queue, count=lambda: None) -> tuple[np.ndarray, object]:
    """dpnp's work, a oneDNN reorder, dpnp's work again, submitted one after the other on
    one in-order queue with nothing waited for until the result is read. The memories are
    made first, over arrays allocated first: reading a dpnp array's
    ``__sycl_usm_array_interface__`` makes dpnp wait for its queue. Returns the result and
    ``count()`` read just before and just after oneDNN's execute (dpnp's own calls wait
    on the host in places of their choosing, which are not this binding's)."""
    import dpnp

    x = dpnp.arange(12, dtype="float32", sycl_queue=queue).reshape(3, 4)
    doubled = dpnp.empty((3, 4), dtype="float32", sycl_queue=queue)
    out = dpnp.empty((4, 3), dtype="float32", sycl_queue=queue)
    src, dst = dnnl.Memory.from_array(doubled, engine), dnnl.Memory.from_array(out.T, engine)
    primitive = dnnl.reorder(src.desc, dst.desc, engine)
    queue.wait()
    stream.wait()  # what earlier work on the stream kept is let go now, not at the execute below
    dpnp.multiply(x, 2, out=doubled)  # dpnp's kernel
    with counted_alone():
        before = count()
        sycl.execute(primitive, stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})  # after it, by the queue
        after = count()
    result = dpnp.asnumpy(out + 1)  # dpnp's kernel after oneDNN's, then the read
    return result, (before, after)


def chain_without_host_waits(engine, queue, dpctl, count=lambda: None) -> tuple[np.ndarray, object]:
    """SYCL work, then oneDNN, then SYCL work on one in-order queue, with no wait between:
    a copy into the source, a reorder (ab -> ba), a copy of the result out, then a wait for
    the last copy alone. Returns what it delivered and ``count()`` read before the first
    submission and after that wait (objects made before, closed after)."""
    import dpctl.memory

    source = np.arange(12, dtype=np.float32).reshape(3, 4)
    staged = SharedArray(queue, (3, 4), data=source)
    src_array, dst_array, out = SharedArray(queue, (3, 4)), SharedArray(queue, (4, 3)), SharedArray(queue, (4, 3))
    with sycl.make_stream(engine, queue) as stream:
        src = dnnl.Memory.from_array(src_array, engine)
        dst = sycl.make_memory(dnnl.MemoryDesc((3, 4), "f32", strides=(1, 3)), engine, sycl.MemoryKind.USM,
                               dst_array.pointer)
        primitive = dnnl.reorder(src.desc, dst.desc, engine)
        with counted_alone():
            before = count()
            queue.memcpy_async(src_array.usm, staged.usm, 48)
            sycl.execute(primitive, stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
            queue.memcpy_async(out.usm, dst_array.usm, 48).wait()
            after = count()
        assert isinstance(out.usm, dpctl.memory.MemoryUSMShared)
    return out.host.copy(), (before, after)
