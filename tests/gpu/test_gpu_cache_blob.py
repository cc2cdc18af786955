"""Engine cache blobs on the emulated GPU: stable across processes, and usable in a new one.

The second processes come from ``emulated_gpu.run_in_child``; each makes its
own pyopencl context on the emulated device.
"""

from __future__ import annotations

import numpy as np
import pyopencl as cl

import dnnl_interop as dnnl
from dnnl_interop import ocl
from dnnl_interop.testing import emulated_gpu as emulated


def _blob_id_and_blob() -> tuple[bytes, bytes]:
    gpu = emulated.enable()
    with ocl.make_engine(gpu.device, gpu.context) as engine:
        return ocl.get_engine_cache_blob_id(gpu.device), ocl.get_engine_cache_blob(engine)


def _transpose_to_f16_on_engine_from(blob: bytes, source: np.ndarray) -> tuple[np.ndarray, bytes]:
    """In a new process: an engine from ``blob`` runs an f32 -> f16 transposing reorder."""
    gpu = emulated.enable()
    engine = ocl.make_engine(gpu.device, gpu.context, blob)
    queue = cl.CommandQueue(gpu.context)
    src_desc = dnnl.MemoryDesc(source.shape, "float32", "ab")
    dst_desc = dnnl.MemoryDesc(source.shape, "float16", "ba")
    mf = cl.mem_flags
    src_buffer = cl.Buffer(gpu.context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=source)
    dst_buffer = cl.Buffer(gpu.context, mf.READ_WRITE, size=dst_desc.size)
    src = ocl.make_memory(src_desc, engine, ocl.MemoryKind.BUFFER, src_buffer)
    dst = ocl.make_memory(dst_desc, engine, ocl.MemoryKind.BUFFER, dst_buffer)
    with ocl.make_stream(engine, queue) as stream:
        ocl.execute(dnnl.reorder(src_desc, dst_desc, engine), stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
    out = np.empty(source.shape[::-1], np.float16)
    cl.enqueue_copy(queue, out, dst_buffer)
    queue.finish()
    return out, ocl.get_engine_cache_blob(engine)


def test_the_blob_id_of_the_emulated_device_is_the_same_in_every_process(emulated_gpu):
    here = ocl.get_engine_cache_blob_id(emulated_gpu.device)
    first, _ = emulated.run_in_child(_blob_id_and_blob)
    second, _ = emulated.run_in_child(_blob_id_and_blob)
    assert here  # oneDNN's id is a non-empty serialisation of the device
    assert first == second == here


def test_the_engine_cache_blob_is_the_same_in_every_process(engine):
    here = ocl.get_engine_cache_blob(engine)
    _, first = emulated.run_in_child(_blob_id_and_blob)
    _, second = emulated.run_in_child(_blob_id_and_blob)
    assert here
    assert first == second == here


def test_the_engine_cache_blob_is_the_same_for_two_engines_of_one_process(emulated_gpu, engine):
    with ocl.make_engine(emulated_gpu.device, cl.Context([emulated_gpu.device])) as other:
        assert ocl.get_engine_cache_blob(other) == ocl.get_engine_cache_blob(engine)


def test_an_engine_restored_from_the_blob_in_a_second_process_runs_a_reorder(engine):
    blob = ocl.get_engine_cache_blob(engine)
    source = np.linspace(-3.0, 3.0, 24 * 40, dtype=np.float32).reshape(24, 40)
    out, blob_again = emulated.run_in_child(_transpose_to_f16_on_engine_from, blob, source)
    np.testing.assert_array_equal(out, source.T.astype(np.float16))
    assert blob_again == blob
