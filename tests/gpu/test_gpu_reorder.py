"""Reorders on the emulated GPU over the caller's queues and pyopencl buffers.

Every case transposes (``ab`` -> ``ba``) and changes the data type, so source
and destination differ in layout and in size: swapped arguments, a wrong
buffer or a wrong descriptor cannot give the expected data. Results are
checked against numpy. On an in-order queue ``ocl.execute`` returns None (so
does oneDNN, by design); on an out-of-order queue it returns a
``pyopencl.Event`` that orders the read-back after the reorder, and the write
of the source is passed in as a dependency event.
"""

from __future__ import annotations

import numpy as np
import pyopencl as cl
import pytest

import dnnl_interop as dnnl
from dnnl_interop import ocl

SHAPE = (24, 40)

# f32 -> s8 rounds half to even and saturates, like numpy's rint + clip.
_S8_SOURCE = np.resize(
    np.array([-300.0, -128.5, -127.5, -2.5, -1.5, -0.5, 0.0, 0.5, 1.5, 2.5, 3.7, 126.5, 127.5, 500.0], np.float32),
    SHAPE,
)

CASES = {
    "f32-to-f16": (
        np.linspace(-1000.0, 1000.0, SHAPE[0] * SHAPE[1], dtype=np.float32).reshape(SHAPE),
        np.float16,
        lambda a: a.astype(np.float16),
    ),
    "f16-to-f32": (
        np.linspace(-8.0, 8.0, SHAPE[0] * SHAPE[1]).astype(np.float16).reshape(SHAPE),
        np.float32,
        lambda a: a.astype(np.float32),
    ),
    "f32-to-s8": (_S8_SOURCE, np.int8, lambda a: np.clip(np.rint(a), -128, 127).astype(np.int8)),
    "s8-to-f32": (
        (np.arange(SHAPE[0] * SHAPE[1]) % 256 - 128).astype(np.int8).reshape(SHAPE),
        np.float32,
        lambda a: a.astype(np.float32),
    ),
}

QUEUES = {
    "in-order": 0,
    "out-of-order": cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE,
}


@pytest.fixture(scope="module", params=list(QUEUES))
def queue_and_stream(request, emulated_gpu, engine):
    queue = cl.CommandQueue(emulated_gpu.context, properties=QUEUES[request.param])
    stream = ocl.make_stream(engine, queue)
    yield request.param, queue, stream
    stream.close()


@pytest.mark.parametrize("case", list(CASES))
def test_a_reorder_over_pyopencl_buffers_gives_numpys_result(case, emulated_gpu, engine, queue_and_stream):
    order, queue, stream = queue_and_stream
    source, dst_dtype, expected = CASES[case]
    src_desc = dnnl.MemoryDesc(SHAPE, source.dtype, "ab")
    dst_desc = dnnl.MemoryDesc(SHAPE, dst_dtype, "ba")
    assert src_desc.size != dst_desc.size

    mf = cl.mem_flags
    src_buffer = cl.Buffer(emulated_gpu.context, mf.READ_WRITE, size=src_desc.size)
    dst_buffer = cl.Buffer(emulated_gpu.context, mf.READ_WRITE, size=dst_desc.size)
    written = cl.enqueue_copy(queue, src_buffer, source, is_blocking=False)
    src = ocl.make_memory(src_desc, engine, ocl.MemoryKind.BUFFER, src_buffer)
    dst = ocl.make_memory(dst_desc, engine, ocl.MemoryKind.BUFFER, dst_buffer)
    reorder = dnnl.reorder(src_desc, dst_desc, engine)

    done = ocl.execute(reorder, stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst}, deps=[written])

    if order == "in-order":
        assert done is None
        wait_for = None
    else:
        assert isinstance(done, cl.Event)
        wait_for = [done]
    out = np.empty(SHAPE[::-1], dst_dtype)
    cl.enqueue_copy(queue, out, dst_buffer, wait_for=wait_for)
    queue.finish()
    np.testing.assert_array_equal(out, expected(source).T)


def test_the_stream_hands_back_the_callers_queue(queue_and_stream):
    _, queue, stream = queue_and_stream
    assert ocl.get_command_queue(stream).int_ptr == queue.int_ptr


# --- a quantizing ReorderDesc -------------------------------------------------------------------
# dst = saturate(rint(src × src_scale / dst_scale + dst_zero_point)) to s8, as on the CPU engine
# (tests/test_reorder_desc.py). Power-of-two scales keep every product exact, so each tie of the
# source stays a tie and is rounded half to even after the zero point is added.

_ROWS = 2.0 ** (np.arange(SHAPE[0]) % 5 - 2)
_COLUMNS = 2.0 ** (np.arange(SHAPE[1]) % 3 - 1)
# name: (src scales mask and values, dst scales mask and values, dst zero point)
QUANTIZED = {
    "per-tensor scales and a zero point": ((0, [2.0]), (0, [0.5]), 3),
    "per-row src, per-column dst scales and a zero point": ((1, _ROWS), (2, _COLUMNS), -7),
}


def _scales(mask, values):
    values = np.asarray(values, np.float64)
    return {0: values[0], 1: values[:, None], 2: values[None, :]}[mask]


@pytest.mark.parametrize("case", list(QUANTIZED))
def test_a_quantizing_reorder_desc_to_s8_gives_numpys_result(case, emulated_gpu, engine, queue_and_stream):
    import pyopencl.array as cl_array

    _, queue, stream = queue_and_stream
    (src_mask, src_scales), (dst_mask, dst_scales), zero_point = QUANTIZED[case]
    attr = dnnl.PrimitiveAttr()
    attr.set_scales_mask(dnnl.ARG_SRC, src_mask)
    attr.set_scales_mask(dnnl.ARG_DST, dst_mask)
    attr.set_zero_points_mask(dnnl.ARG_DST, 0)
    src_desc, dst_desc = dnnl.MemoryDesc(SHAPE, "f32", "ab"), dnnl.MemoryDesc(SHAPE, "s8", "ab")
    kind = ocl.MemoryKind.BUFFER
    source = cl_array.to_device(queue, _S8_SOURCE)
    target = cl_array.zeros(queue, SHAPE, np.int8)

    def values(array, dtype):
        flat = np.ascontiguousarray(array, dtype)
        with dnnl.MemoryDesc((flat.size,), flat.dtype, "a") as desc:
            return ocl.make_memory(desc, engine, kind, cl_array.to_device(queue, flat))

    with dnnl.ReorderDesc(engine, src_desc, engine, dst_desc, attr=attr) as desc, dnnl.Primitive(desc) as reorder:
        ocl.execute(reorder, stream, {
            dnnl.ARG_FROM: ocl.make_memory(src_desc, engine, kind, source),
            dnnl.ARG_TO: ocl.make_memory(dst_desc, engine, kind, target),
            dnnl.scales_arg(dnnl.ARG_SRC): values(src_scales, np.float32),
            dnnl.scales_arg(dnnl.ARG_DST): values(dst_scales, np.float32),
            dnnl.zero_points_arg(dnnl.ARG_DST): values([zero_point], np.int32),
        })
        stream.wait()
    values_ = _S8_SOURCE.astype(np.float64) * _scales(src_mask, src_scales) / _scales(dst_mask, dst_scales)
    expected = np.clip(np.rint(values_ + zero_point), -128, 127).astype(np.int8)
    np.testing.assert_array_equal(target.get(), expected)
    assert (expected == 127).any() and (expected == -128).any()
