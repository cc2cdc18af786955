"""Primitive descriptors, primitive cache blobs and cached creation, where the CPU engine answers.

oneDNN makes primitive cache blobs on OpenCL and Level Zero GPU engines only:
the CPU engine's refusals are checked here, the blobs themselves and cached
creation across processes in tests/gpu/test_gpu_cached_creation.py (real
oneDNN, emulated GPU).
"""

from __future__ import annotations

import importlib
import sys

import cffi
import numpy as np
import pytest

import dnnl_interop as dnnl
from dnnl_interop import _owned, ocl, ze
from dnnl_interop._ffi import ffi, lib
from dnnl_interop.cache import CacheBlobStore
from dnnl_interop.embedding import ffibuilder


@pytest.fixture
def store(tmp_path):
    return CacheBlobStore(tmp_path / "store")


SHAPE = (3, 5)


def _descs(dtype="float32", shape=SHAPE):
    return dnnl.MemoryDesc(shape, dtype, "ab"), dnnl.MemoryDesc(shape, dtype, "ba")


def _reorder_through(primitive, engine, stream, array):
    src_desc, dst_desc = _descs(array.dtype, array.shape)
    out = np.zeros(array.shape[::-1], array.dtype)
    primitive.execute(stream, {
        dnnl.ARG_FROM: dnnl.Memory(src_desc, engine, array),
        dnnl.ARG_TO: dnnl.Memory(dst_desc, engine, out.T),  # "ba": the tensor is out.T
    })
    stream.wait()
    return out


def _array(dtype="float32"):
    return np.arange(np.prod(SHAPE)).reshape(SHAPE).astype(dtype)


# --- descriptors --------------------------------------------------------------------


def test_a_reorder_descriptor_names_its_implementation_engine_and_argument_sizes(engine):
    src_desc, dst_desc = _descs()
    with dnnl.PrimitiveDesc.reorder(src_desc, dst_desc, engine) as desc:
        assert desc.engine is engine
        assert isinstance(desc.impl_info, str) and desc.impl_info  # "jit:uni" on this machine
        assert desc.arg_sizes == {dnnl.ARG_FROM: 60, dnnl.ARG_TO: 60}
        assert dnnl.PrimitiveDesc.reorder(*_descs("int8"), engine).arg_sizes == {dnnl.ARG_FROM: 15, dnnl.ARG_TO: 15}


def test_a_cpu_descriptor_has_an_empty_cache_blob_id(engine):
    with dnnl.PrimitiveDesc.reorder(*_descs(), engine) as desc:
        assert desc.cache_blob_id == b""


def test_a_descriptor_is_made_only_by_its_factories():
    with pytest.raises(TypeError, match=r"PrimitiveDesc\.reorder"):
        dnnl.PrimitiveDesc()


def test_a_closed_descriptor_refuses_every_use(engine):
    desc = dnnl.PrimitiveDesc.reorder(*_descs(), engine)
    desc.close()
    for use in (lambda: desc.impl_info, lambda: desc.cache_blob_id, lambda: desc.arg_sizes,
                lambda: dnnl.Primitive(desc), lambda: dnnl.make_primitive_cached(desc)):
        with pytest.raises(dnnl.ClosedObjectError):
            use()


def test_the_reorder_descriptor_checks_its_arguments(engine):
    src_desc, dst_desc = _descs()
    with pytest.raises(TypeError, match="src_desc"):
        dnnl.PrimitiveDesc.reorder("ab", dst_desc, engine)
    with pytest.raises(TypeError, match="dst_engine"):
        dnnl.PrimitiveDesc.reorder(src_desc, dst_desc, engine, dst_engine=src_desc)


# --- primitives from descriptors ----------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "int8", "float16"])
def test_a_primitive_made_from_a_descriptor_reorders_like_numpy(engine, stream, dtype):
    with dnnl.PrimitiveDesc.reorder(*_descs(dtype), engine) as desc:
        primitive = dnnl.Primitive(desc)
    # The descriptor is closed: the primitive holds its own copy.
    out = _reorder_through(primitive, engine, stream, _array(dtype))
    np.testing.assert_array_equal(out, _array(dtype).T)
    assert primitive.engine is engine


def test_a_primitive_from_a_descriptor_refuses_a_memory_smaller_than_its_argument(engine, stream):
    primitive = dnnl.Primitive(dnnl.PrimitiveDesc.reorder(*_descs(), engine))
    small = dnnl.MemoryDesc((2, 2), "float32", "ab")
    with pytest.raises(ValueError, match=r"args\[1\] \(ARG_FROM.*shape, \(2, 2\), is not the one the primitive "
                                         r"takes there"):
        primitive.execute(stream, {
            dnnl.ARG_FROM: dnnl.Memory(small, engine, np.zeros((2, 2), np.float32)),
            dnnl.ARG_TO: dnnl.Memory(_descs()[1], engine, np.zeros(SHAPE[::-1], np.float32).T),
        })


def test_primitive_checks_its_arguments_before_calling_onednn(engine):
    desc = dnnl.PrimitiveDesc.reorder(*_descs(), engine)
    with pytest.raises(TypeError, match=r"desc: expected a dnnl_interop.PrimitiveDesc"):
        dnnl.Primitive(_descs()[0])
    with pytest.raises(TypeError, match="cache_blob"):
        dnnl.Primitive(desc, "a blob as text")
    with pytest.raises(TypeError, match="cache_blob"):
        dnnl.Primitive(desc, 5)
    with pytest.raises(ValueError, match="cache_blob: empty"):
        dnnl.Primitive(desc, b"")
    primitive = dnnl.Primitive(desc)
    with pytest.raises(RuntimeError, match="already initialised"):
        primitive.__init__(desc)


def test_a_cpu_primitive_refuses_to_give_a_cache_blob_and_says_why(engine):
    primitive = dnnl.Primitive(dnnl.PrimitiveDesc.reorder(*_descs(), engine))
    with pytest.raises(dnnl.UnimplementedError, match="makes no cache blobs") as caught:
        primitive.get_cache_blob()
    assert caught.value.function == "dnnl_primitive_get_cache_blob"
    assert not isinstance(caught.value, dnnl.MissingFunctionError)


def test_a_cpu_primitive_refuses_to_be_made_from_a_cache_blob_and_says_why(engine):
    desc = dnnl.PrimitiveDesc.reorder(*_descs(), engine)
    with pytest.raises(dnnl.UnimplementedError, match="makes no cache blobs") as caught:
        dnnl.Primitive(desc, b"\x01" * 64)
    assert caught.value.function == "dnnl_primitive_create_from_cache_blob"


def test_a_closed_primitive_gives_no_cache_blob(engine):
    primitive = dnnl.Primitive(dnnl.PrimitiveDesc.reorder(*_descs(), engine))
    primitive.close()
    with pytest.raises(dnnl.ClosedObjectError):
        primitive.get_cache_blob()


# --- descriptors made elsewhere ----------------------------------------------------------


EMBEDDER_SOURCE = """
#include "dnnl_ocl.h"
#include "dnnl_ze.h"
static dnnl_primitive_desc_t hand_over(dnnl_primitive_desc_t desc) { return desc; }
"""


@pytest.fixture(scope="module")
def embedder(tmp_path_factory):
    """Another project's cffi module built on our types (see test_embedding)."""
    directory = tmp_path_factory.mktemp("pd_embedder")
    builder = cffi.FFI()
    builder.include(ffibuilder())
    builder.cdef("dnnl_primitive_desc_t hand_over(dnnl_primitive_desc_t desc);")
    builder.set_source("pd_embedder_under_test", EMBEDDER_SOURCE, include_dirs=[dnnl.get_include()])
    builder.compile(tmpdir=str(directory))
    sys.path.insert(0, str(directory))
    try:
        yield importlib.import_module("pd_embedder_under_test")
    finally:
        sys.path.remove(str(directory))


def _raw_reorder_desc(engine, src_desc, dst_desc):
    """A dnnl_primitive_desc_t the caller owns, as another module would hold."""
    out = ffi.new("dnnl_primitive_desc_t *")
    assert lib.dnnl_reorder_primitive_desc_create(
        out, src_desc.handle, engine.handle, dst_desc.handle, engine.handle, ffi.NULL) == 0
    return out[0]


def test_a_descriptor_from_another_cffi_module_is_cloned_and_outlives_the_original(
        engine, stream, embedder):
    src_desc, dst_desc = _descs()
    raw = embedder.lib.hand_over(_raw_reorder_desc(engine, src_desc, dst_desc))
    assert embedder.ffi.typeof(raw) is ffi.typeof("dnnl_primitive_desc_t")
    desc = dnnl.PrimitiveDesc.from_handle(raw, engine=engine)
    assert desc.handle != raw  # a clone
    assert lib.dnnl_primitive_desc_destroy(raw) == 0  # the caller's, destroyed at once
    primitive = dnnl.Primitive(desc)
    np.testing.assert_array_equal(_reorder_through(primitive, engine, stream, _array()), _array().T)
    assert desc.engine is engine and primitive.engine is engine


def test_an_owned_descriptor_is_taken_over_and_destroyed_once(engine):
    before = _owned.live_objects()
    raw = _raw_reorder_desc(engine, *_descs())
    desc = dnnl.PrimitiveDesc.from_handle(raw, owned=True)
    assert desc.handle == raw
    assert desc.engine is None
    assert _owned.live_objects() == before + 1
    desc.close()
    desc.close()
    assert _owned.live_objects() == before


def test_a_descriptor_given_as_an_int_address_is_taken_as_given(engine, stream):
    raw = _raw_reorder_desc(engine, *_descs())
    try:
        desc = dnnl.PrimitiveDesc.from_handle(int(ffi.cast("uintptr_t", raw)), engine=engine)
    finally:
        lib.dnnl_primitive_desc_destroy(raw)
    np.testing.assert_array_equal(_reorder_through(dnnl.Primitive(desc), engine, stream, _array()), _array().T)


def test_from_handle_refuses_what_is_no_descriptor_of_the_engine_given(engine):
    raw = _raw_reorder_desc(engine, *_descs())
    try:
        with dnnl.Engine.cpu() as other:
            with pytest.raises(ValueError, match="engine: the descriptor was made on another engine"):
                dnnl.PrimitiveDesc.from_handle(raw, owned=True, engine=other)
        with pytest.raises(TypeError, match="handle: expected a struct dnnl_primitive_desc"):
            dnnl.PrimitiveDesc.from_handle(engine.handle)
        with pytest.raises(TypeError, match=r"handle: expected .*got a dnnl_interop.PrimitiveDesc"):
            dnnl.PrimitiveDesc.from_handle(dnnl.PrimitiveDesc.reorder(*_descs(), engine))
        with pytest.raises(TypeError, match="handle: None"):
            dnnl.PrimitiveDesc.from_handle(None)
        with pytest.raises(ValueError, match="handle: a NULL"):
            dnnl.PrimitiveDesc.from_handle(ffi.cast("dnnl_primitive_desc_t", 0))
        with pytest.raises(TypeError, match="owned: expected a bool"):
            dnnl.PrimitiveDesc.from_handle(raw, owned=1)
        with pytest.raises(TypeError, match=r"engine: expected a dnnl_interop.Engine"):
            dnnl.PrimitiveDesc.from_handle(raw, engine=engine.handle)
    finally:
        # Nothing was taken over by the refusals: the handle is still the caller's.
        assert lib.dnnl_primitive_desc_destroy(raw) == 0


# --- cached creation where there are no blobs -------------------------------------------


def test_cached_creation_on_the_cpu_engine_makes_the_primitive_without_the_store(engine, stream, store):
    primitive = dnnl.reorder_cached(*_descs(), engine, store=store)
    np.testing.assert_array_equal(_reorder_through(primitive, engine, stream, _array()), _array().T)
    with dnnl.PrimitiveDesc.reorder(*_descs(), engine) as desc:
        other = dnnl.make_primitive_cached(desc, store)
    np.testing.assert_array_equal(_reorder_through(other, engine, stream, _array()), _array().T)
    assert not store.directory.exists()


def test_cached_creation_checks_the_store_and_the_descriptor_first(engine, cl, pocl_device):
    with dnnl.PrimitiveDesc.reorder(*_descs(), engine) as desc:
        with pytest.raises(TypeError, match=r"store: expected a dnnl_interop.CacheBlobStore or None, got str"):
            dnnl.make_primitive_cached(desc, "a directory")
    with pytest.raises(TypeError, match=r"desc: expected a dnnl_interop.PrimitiveDesc"):
        dnnl.make_primitive_cached(_descs()[0])
    with pytest.raises(TypeError, match="store: expected"):
        dnnl.reorder_cached(*_descs(), engine, store=object())
    context = cl.Context([pocl_device])
    with pytest.raises(TypeError, match="store: expected"):
        ocl.make_engine_cached(pocl_device, context, "a directory")
    with pytest.raises(TypeError, match="store: expected"):
        ze.make_engine_cached(0x1000, 0x2000, 0x3000, store=b"a directory")
    with pytest.raises(TypeError, match="device"):
        ocl.make_engine_cached(context, context)


def test_the_query_api_missing_from_a_library_is_named(standin_dnnl, store):
    # The stand-in exports no primitive-descriptor queries, as an older or
    # trimmed library would not: a reorder's descriptor is made (its argument
    # sizes come from the memory descriptors), and what asks the missing
    # query names it.
    with dnnl.Engine.cpu() as engine:
        with dnnl.PrimitiveDesc.reorder(*_descs(), engine) as desc:
            for ask in (lambda: desc.impl_info, lambda: desc.cache_blob_id,
                        lambda: dnnl.make_primitive_cached(desc, store)):
                with pytest.raises(dnnl.MissingFunctionError, match="dnnl_primitive_desc_query"):
                    ask()
