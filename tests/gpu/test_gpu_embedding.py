"""Another cffi module's OpenCL objects, handed to us: real oneDNN, emulated GPU.

The module of tests/embedder.py makes an OpenCL engine of its own
(``dnnl_ocl_interop_engine_create`` on the emulated device and context), a
stream, two OpenCL buffer memories and a reorder on it, through oneDNN's C
API. We adopt them with ``from_handle``, execute the reorder with data
written and read through pyopencl, and put its descriptor through the
primitive cache, which only GPU engines feed: the blob is stored under the
engine's and the descriptor's ids, and the next creation is made from it.
"""

from __future__ import annotations

import numpy as np
import pytest

import dnnl_interop as dnnl
from dnnl_interop import _owned, _primitive, embedding, ocl
from dnnl_interop._ffi import ffi
from dnnl_interop.cache import CacheBlobStore, compose_key
from embedder import COLS, ROWS, Theirs, build, load


@pytest.fixture(scope="module")
def embedder(tmp_path_factory):
    name = "gpu_embedder_under_test"
    return load(build(tmp_path_factory.mktemp("embedder"), name, embedding.link_args()), name)


@pytest.fixture
def theirs(embedder, emulated_gpu):
    lib = embedder.lib
    engine = lib.make_ocl_engine(
        ffi.cast("cl_device_id", emulated_gpu.device.int_ptr), ffi.cast("cl_context", emulated_gpu.context.int_ptr)
    )
    return Theirs(lib, engine)


def _adopt_all(theirs: Theirs, owned: bool):
    engine = dnnl.Engine.from_handle(theirs.engine, owned=owned)
    stream = dnnl.Stream.from_handle(theirs.stream, owned=owned)
    src = dnnl.Memory.from_handle(theirs.src, owned=owned, desc=dnnl.MemoryDesc((ROWS, COLS), "f32", "ab"))
    dst = dnnl.Memory.from_handle(theirs.dst, owned=owned, desc=dnnl.MemoryDesc((ROWS, COLS), "f32", "ba"))
    desc = dnnl.PrimitiveDesc.from_handle(theirs.desc, owned=owned, engine=engine)
    primitive = dnnl.Primitive.from_handle(theirs.primitive, owned=owned, desc=desc)
    return engine, stream, src, dst, desc, primitive


def _matrix() -> np.ndarray:
    return np.random.default_rng(11).standard_normal((ROWS, COLS)).astype(np.float32)


def _reorder(primitive, stream, src, dst) -> np.ndarray:
    """Write the matrix into ``src``'s OpenCL buffer, run, read ``dst``'s back (its raw "ba" layout)."""
    import pyopencl as cl

    queue = ocl.get_command_queue(stream)
    cl.enqueue_copy(queue, ocl.get_mem_object(src), _matrix()).wait()
    primitive.execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
    stream.wait()
    out = np.empty((COLS, ROWS), np.float32)
    cl.enqueue_copy(queue, out, ocl.get_mem_object(dst)).wait()
    return out


def test_an_opencl_engine_they_made_is_an_opencl_engine_here(theirs, emulated_gpu):
    engine, *rest = _adopt_all(theirs, owned=True)
    assert engine.kind == dnnl.EngineKind.GPU
    assert ocl.get_device(engine).int_ptr == emulated_gpu.device.int_ptr  # ocl.* take it: runtime asked
    assert ocl.get_context(engine).int_ptr == emulated_gpu.context.int_ptr
    assert ocl.get_memory_kind(rest[1]) == ocl.MemoryKind.BUFFER
    assert ocl.get_engine_cache_blob(engine)
    for obj in reversed(rest):
        obj.close()
    engine.close()


def test_their_reorder_runs_here_on_the_emulated_gpu(theirs):
    engine, stream, src, dst, desc, primitive = _adopt_all(theirs, owned=True)
    np.testing.assert_array_equal(_reorder(primitive, stream, src, dst), _matrix().T)
    for obj in (primitive, desc, src, dst, stream, engine):
        obj.close()


def test_borrowed_they_stay_theirs_and_work_after_we_let_go(theirs):
    live = _owned.live_objects()
    adopted = _adopt_all(theirs, owned=False)
    engine, stream, src, dst, desc, primitive = adopted
    np.testing.assert_array_equal(_reorder(primitive, stream, src, dst), _matrix().T)
    for obj in reversed(adopted):
        obj.close()
    del adopted, engine, stream, src, dst, desc, primitive
    assert _owned.live_objects() == live
    assert theirs.run() == 0
    assert theirs.destroy() == 0


def test_their_descriptor_is_cached_under_their_engine_s_key_and_made_from_the_blob_next(
        theirs, emulated_gpu, tmp_path, monkeypatch):
    engine, stream, src, dst, desc, primitive = _adopt_all(theirs, owned=True)
    store = CacheBlobStore(tmp_path)
    blobs_given = []
    create = _primitive._create_primitive

    def recording(made, desc, cache_blob):
        blobs_given.append(None if cache_blob is None else bytes(cache_blob))
        create(made, desc, cache_blob)

    monkeypatch.setattr(_primitive, "_create_primitive", recording)
    first = dnnl.make_primitive_cached(desc, store)  # a miss: made afresh, its blob saved
    key = compose_key(ocl.get_engine_cache_blob_id(emulated_gpu.device), desc.cache_blob_id)
    blob = store.get("ocl", key)
    assert desc.cache_blob_id and blob == first.get_cache_blob() and len(blob) > 1000
    second = dnnl.make_primitive_cached(desc, store)  # a hit: made from the stored blob
    assert blobs_given == [None, blob]
    np.testing.assert_array_equal(_reorder(second, stream, src, dst), _matrix().T)
    for obj in (second, first, primitive, desc, src, dst, stream, engine):
        obj.close()
