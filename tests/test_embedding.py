"""Other cffi modules embed our C types and hand us what they make.

A project with its own API-mode cffi module includes our builder
(``ffi.include(dnnl_interop.embedding.ffibuilder())``) and compiles against
the headers of ``dnnl_interop.get_include()``: our handles then pass to its
functions with their types checked. When its C code calls oneDNN itself
(linked with ``embedding.link_args()``), the engines, streams, memories,
primitive descriptors and primitives it makes come to us through
``from_handle``: owned (destroyed by us, once) or borrowed (never destroyed
by us). The module built here makes a reorder of its own through oneDNN's C
API; we execute it and read the data back.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sysconfig
import tempfile

import cffi
import numpy as np
import pytest

import dnnl_interop
import dnnl_interop as dnnl
from conftest import REAL_LIBRARY, _use
from dnnl_interop import _owned, embedding
from dnnl_interop._ffi import ffi as our_ffi
from embedder import COLS, ROWS, Theirs, build, load


@pytest.fixture(scope="module")
def embedder(tmp_path_factory):
    """A separate cffi module built on our types, as another project would, linked to oneDNN."""
    _use(REAL_LIBRARY)  # the module shares the copy of oneDNN this binding loaded
    directory = tmp_path_factory.mktemp("embedder")
    return load(build(directory, "embedder_under_test", embedding.link_args()), "embedder_under_test")


def _theirs(lib) -> Theirs:
    return Theirs(lib, lib.make_cpu_engine())


def _descs() -> tuple[dnnl.MemoryDesc, dnnl.MemoryDesc]:
    return dnnl.MemoryDesc((ROWS, COLS), "f32", "ab"), dnnl.MemoryDesc((ROWS, COLS), "f32", "ba")


def _matrix() -> np.ndarray:
    return np.arange(ROWS * COLS, dtype=np.float32).reshape(ROWS, COLS) + 1


def _adopt_all(theirs: Theirs, owned: bool):
    src_desc, dst_desc = _descs()
    engine = dnnl.Engine.from_handle(theirs.engine, owned=owned)
    stream = dnnl.Stream.from_handle(theirs.stream, owned=owned, engine=engine)
    src = dnnl.Memory.from_handle(theirs.src, owned=owned, desc=src_desc, engine=engine)
    dst = dnnl.Memory.from_handle(theirs.dst, owned=owned, desc=dst_desc)
    # A descriptor is always taken over or cloned; only owned=True takes theirs.
    desc = dnnl.PrimitiveDesc.from_handle(theirs.desc, owned=owned, engine=engine)
    primitive = dnnl.Primitive.from_handle(theirs.primitive, owned=owned, desc=desc)
    return engine, stream, src, dst, desc, primitive


def _close(*objects) -> None:
    for obj in objects:
        obj.close()


# --- our types in their module -------------------------------------------------


def test_our_handles_pass_to_the_embedding_module(embedder):
    engine = our_ffi.cast("dnnl_engine_t", 0x1234)
    buffer = our_ffi.cast("cl_mem", 0x5678)
    assert embedder.lib.engine_address(engine) == 0x1234
    assert embedder.lib.buffer_address(buffer) == 0x5678


def test_the_types_are_shared_not_copied(embedder):
    assert embedder.ffi.typeof("dnnl_engine_t") is our_ffi.typeof("dnnl_engine_t")
    assert embedder.ffi.typeof("cl_mem") is our_ffi.typeof("cl_mem")


def test_handle_types_are_still_checked_across_modules(embedder):
    with pytest.raises(TypeError):
        embedder.lib.engine_address(our_ffi.cast("dnnl_memory_t", 0x1234))


def test_enums_and_constants_are_shared(embedder):
    assert embedder.lib.is_buffer_kind(our_ffi.cast("dnnl_ocl_interop_memory_kind_t", 1))
    assert embedder.lib.dnnl_ocl_interop_buffer == dnnl_interop.ocl.MemoryKind.BUFFER


def test_the_builder_is_for_include_only_and_refuses_to_compile(tmp_path):
    """cffi reads an included builder's declarations and module name; compiled,
    it would be another dnnl_interop._ffi, so its source stops the compiler
    (here its preprocessor, which is enough and quick)."""
    source = tmp_path / "included.c"
    embedding.ffibuilder().emit_c_code(str(source))
    done = subprocess.run(
        ["cc", "-E", f"-I{sysconfig.get_paths()['include']}", str(source), "-o", os.devnull],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode != 0
    assert "dnnl_interop.embedding.ffibuilder() is for ffi.include() only" in done.stderr


def test_get_include_has_every_header_the_build_used():
    names = set(os.listdir(dnnl_interop.get_include()))
    assert {"dnnl_ocl.h", "dnnl_ze.h", "opencl_handles.h", "level_zero_handles.h"} <= names


def test_link_args_name_the_library_this_binding_loaded(real_dnnl):
    assert embedding.link_args() == [real_dnnl.path]


def test_handles_are_given_out_typed_as_our_ffi_s_types(real_dnnl, embedder):
    src_desc, dst_desc = _descs()
    with dnnl.Engine.cpu() as engine:
        stream = dnnl.Stream(engine)
        memory = dnnl.Memory(src_desc, engine)
        desc = dnnl.PrimitiveDesc.reorder(src_desc, dst_desc, engine)
        primitive = dnnl.Primitive(desc)
        objects = {
            "dnnl_engine_t": engine, "dnnl_stream_t": stream, "dnnl_memory_t": memory,
            "dnnl_memory_desc_t": src_desc, "dnnl_primitive_desc_t": desc, "dnnl_primitive_t": primitive,
        }
        for ctype, obj in objects.items():
            assert our_ffi.typeof(obj.handle) is our_ffi.typeof(ctype), ctype
        assert embedder.lib.engine_address(engine.handle) == engine.int_ptr  # no cast on their side
        _close(primitive, desc, memory, stream)


# --- their objects handed to us ------------------------------------------------


def test_a_reorder_the_other_module_made_runs_here_on_its_own_objects(real_dnnl, embedder):
    theirs = _theirs(embedder.lib)
    engine, stream, src, dst, desc, primitive = _adopt_all(theirs, owned=True)
    assert desc.handle == theirs.desc and primitive.handle == theirs.primitive
    np.asarray(src)[...] = _matrix()  # a view of the buffer oneDNN allocated for them
    primitive.execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
    stream.wait()
    assert (np.asarray(dst) == _matrix()).all()
    assert np.asarray(dst).strides == (4, 4 * ROWS)  # "ba": the transpose in memory
    _close(primitive, desc, src, dst, stream, engine)


def test_memory_and_primitive_adopted_without_desc_read_their_descriptors_from_onednn(real_dnnl, embedder):
    theirs = _theirs(embedder.lib)
    src_desc, dst_desc = _descs()
    engine = dnnl.Engine.from_handle(theirs.engine, owned=True)
    stream = dnnl.Stream.from_handle(theirs.stream, owned=True)
    src = dnnl.Memory.from_handle(theirs.src, owned=True)
    dst = dnnl.Memory.from_handle(theirs.dst, owned=True)
    primitive = dnnl.Primitive.from_handle(theirs.primitive, owned=True)  # its descriptor: oneDNN's
    assert src.desc == src_desc and dst.desc == dst_desc  # compared by oneDNN
    assert (src.desc.shape, src.desc.strides, dst.desc.strides) == ((ROWS, COLS), (COLS, 1), (1, ROWS))
    assert src.desc.tag == "ab" and dst.desc.tag == "ba"  # the tags that lay them out
    assert primitive.engine is engine and src.engine is engine
    np.asarray(src)[...] = _matrix()
    primitive.execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
    stream.wait()
    assert (np.asarray(dst) == _matrix()).all()
    with pytest.raises(ValueError, match=r"args\[1\] \(.*?\): the memory's shape, \(1,\), is not the one the "
                                         r"primitive takes"):
        primitive.execute(stream, {dnnl.ARG_FROM: dnnl.Memory(dnnl.MemoryDesc((1,), "f32", "a"), engine),
                                   dnnl.ARG_TO: dst})  # sizes from the descriptor oneDNN gave
    _close(primitive, src, dst, stream, engine)
    _close(src_desc, dst_desc)


def test_adopted_objects_keep_their_engine_and_the_engine_s_runtime_is_asked(real_dnnl, embedder):
    theirs = _theirs(embedder.lib)
    engine, stream, src, dst, desc, primitive = _adopt_all(theirs, owned=True)
    assert stream.engine is engine and src.engine is engine and primitive.engine is engine
    assert dst.engine is engine  # found without engine=: the Engine that already holds it
    assert engine.kind == dnnl.EngineKind.CPU
    with pytest.raises(dnnl.InvalidArgumentsError, match="engine: a CPU or SYCL engine; it needs an OpenCL engine"):
        dnnl_interop.ocl.get_context(engine)
    _close(primitive, desc, src, dst, stream, engine)


def test_a_stream_adopted_without_its_engine_borrows_the_engine(real_dnnl, embedder):
    lib = embedder.lib
    c_engine = lib.make_cpu_engine()
    stream = dnnl.Stream.from_handle(lib.make_stream(c_engine), owned=True)
    assert stream.engine.borrowed and stream.engine.int_ptr == lib.engine_address(c_engine)
    stream.wait()
    stream.close()
    gc.collect()
    # Borrowed: still theirs to destroy, exactly once.
    engine = dnnl.Engine.from_handle(c_engine, owned=True)
    engine.close()


def test_our_objects_run_in_the_other_module(real_dnnl, embedder):
    src_desc, dst_desc = _descs()
    a, out = _matrix(), np.empty((COLS, ROWS), np.float32)
    with dnnl.Engine.cpu() as engine:
        stream = dnnl.Stream(engine)
        src, dst = dnnl.Memory(src_desc, engine, a), dnnl.Memory(dst_desc, engine, out.T)
        primitive = dnnl.reorder(src_desc, dst_desc, engine)
        assert embedder.lib.run_reorder(primitive.handle, stream.handle, src.handle, dst.handle) == 0
        assert (out == a.T).all()
        _close(primitive, src, dst, stream)


def test_borrowed_handles_are_never_destroyed_here(real_dnnl, embedder):
    theirs = _theirs(embedder.lib)
    live = _owned.live_objects()
    adopted = _adopt_all(theirs, owned=False)
    engine, stream, src, dst, desc, primitive = adopted
    assert all(obj.borrowed for obj in adopted if obj is not desc)
    assert not desc.borrowed and desc.handle != theirs.desc  # a descriptor is cloned, the clone ours
    assert "borrowed" in repr(engine)
    np.asarray(src)[...] = _matrix()
    primitive.execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
    stream.wait()
    _close(primitive, desc, src, dst, stream, engine)
    del adopted, engine, stream, src, dst, desc, primitive
    gc.collect()
    assert _owned.live_objects() == live
    # Still theirs and still working: they run the reorder again and destroy each once.
    assert theirs.run() == 0
    assert theirs.destroy() == 0


def test_owned_handles_are_destroyed_once_by_us(real_dnnl, embedder):
    live = _owned.live_objects()
    adopted = _adopt_all(_theirs(embedder.lib), owned=True)
    assert not any(obj.borrowed for obj in adopted)
    assert _owned.live_objects() == live + len(adopted) + 2  # and the two memory descriptors
    for obj in adopted:
        obj.close()
        obj.close()  # closing twice destroys once
    gc.collect()
    assert _owned.live_objects() == live


def test_a_handle_of_ours_can_be_borrowed_and_outlives_its_owner_s_close(real_dnnl):
    engine = dnnl.Engine.cpu()
    live = _owned.live_objects()
    borrowed = dnnl.Engine.from_handle(engine.int_ptr, owned=False)
    assert _owned.live_objects() == live + 1
    engine.close()
    assert engine.closed and borrowed.kind == dnnl.EngineKind.CPU  # the handle waits for the borrower
    with dnnl.Stream(borrowed) as stream:
        stream.wait()
    borrowed.close()
    assert _owned.live_objects() == live - 1  # both gone: the handle destroyed once, by its owner


def test_a_handle_of_ours_is_never_taken_over_twice(real_dnnl):
    with dnnl.Engine.cpu() as engine:
        with pytest.raises(ValueError, match=r"handle: <dnnl_interop.Engine 0x[0-9a-f]+> already owns this handle"):
            dnnl.Engine.from_handle(engine.handle, owned=True)
        borrowed = dnnl.Engine.from_handle(engine.handle, owned=False)
        with pytest.raises(ValueError, match="already owns"):
            dnnl.Engine.from_handle(engine.int_ptr, owned=True)
        borrowed.close()
        stream = dnnl.Stream(engine)
        with pytest.raises(ValueError, match="already owns"):
            dnnl.Stream.from_handle(stream.handle, owned=True)
        stream.close()


def test_a_handle_taken_over_from_them_cannot_be_taken_over_again(real_dnnl, embedder):
    lib = embedder.lib
    c_engine = lib.make_cpu_engine()
    with dnnl.Engine.from_handle(c_engine, owned=True):
        with pytest.raises(ValueError, match="two owners would destroy it twice"):
            dnnl.Engine.from_handle(c_engine, owned=True)
    c_engine = lib.make_cpu_engine()
    with dnnl.Engine.from_handle(c_engine, owned=False):
        with pytest.raises(ValueError, match=r"Engine 0x[0-9a-f]+ borrowed> already borrows this handle"):
            dnnl.Engine.from_handle(c_engine, owned=True)
    dnnl.Engine.from_handle(c_engine, owned=True).close()  # the borrower gone: theirs to give


def test_the_handle_of_a_closed_object_is_refused(real_dnnl):
    src_desc, _ = _descs()
    with dnnl.Engine.cpu() as engine:
        memory = dnnl.Memory(src_desc, engine)
        address = memory.int_ptr
        view = np.asarray(memory)  # keeps the handle alive after close
        memory.close()
        for owned in (True, False):
            with pytest.raises(dnnl.ClosedObjectError, match="handle: the handle of a closed object"):
                dnnl.Memory.from_handle(address, owned=owned, desc=src_desc)
        del view


def test_an_address_of_another_kind_of_our_objects_is_refused(real_dnnl):
    src_desc, _ = _descs()
    with dnnl.Engine.cpu() as engine:
        memory = dnnl.Memory(src_desc, engine)
        with pytest.raises(TypeError, match=r"handle: the handle of a dnnl_interop.Memory, not of a dnnl_interop.Eng"):
            dnnl.Engine.from_handle(memory.int_ptr, owned=False)
        memory.close()


# --- what from_handle accepts --------------------------------------------------


def test_a_pointer_of_the_same_c_type_declared_by_another_ffi_is_accepted(real_dnnl):
    foreign = cffi.FFI()  # a module with types of its own: cffi calls them different
    foreign.cdef("typedef struct dnnl_engine *dnnl_engine_t; typedef struct dnnl_stream *dnnl_stream_t;")
    with dnnl.Engine.cpu() as engine:
        theirs = foreign.cast("dnnl_engine_t", engine.int_ptr)
        assert foreign.typeof(theirs) is not our_ffi.typeof("dnnl_engine_t")
        with dnnl.Engine.from_handle(theirs, owned=False) as borrowed:
            assert our_ffi.typeof(borrowed.handle) is our_ffi.typeof("dnnl_engine_t")
            assert borrowed.int_ptr == engine.int_ptr
        with pytest.raises(TypeError, match=r"handle: expected a struct dnnl_engine \*, got a struct dnnl_stream \*"):
            dnnl.Engine.from_handle(foreign.cast("dnnl_stream_t", engine.int_ptr), owned=False)


def test_an_int_address_or_an_index_or_a_void_pointer_is_taken_as_given(real_dnnl):
    class Address:
        def __init__(self, value: int) -> None:
            self.value = value

        def __index__(self) -> int:
            return self.value

    with dnnl.Engine.cpu() as engine:
        given = [engine.int_ptr, Address(engine.int_ptr), our_ffi.cast("void *", engine.int_ptr)]
        for handle in given:
            with dnnl.Engine.from_handle(handle, owned=False) as borrowed:
                assert borrowed.int_ptr == engine.int_ptr
        with pytest.raises(TypeError, match="handle: expected a struct dnnl_engine"):
            dnnl.Engine.from_handle(float(engine.int_ptr), owned=False)


@pytest.mark.parametrize("cls", [dnnl.Engine, dnnl.Stream, dnnl.Memory, dnnl.Primitive, dnnl.PrimitiveDesc])
def test_none_null_and_our_own_objects_are_refused_as_handles(real_dnnl, cls):
    name = {dnnl.Engine: "dnnl_engine_t", dnnl.Stream: "dnnl_stream_t", dnnl.Memory: "dnnl_memory_t",
            dnnl.Primitive: "dnnl_primitive_t", dnnl.PrimitiveDesc: "dnnl_primitive_desc_t"}[cls]
    src_desc, dst_desc = _descs()
    with dnnl.Engine.cpu() as engine:
        extra = {"desc": src_desc} if cls is dnnl.Memory else {}
        if cls is dnnl.Primitive:
            extra = {"desc": dnnl.PrimitiveDesc.reorder(src_desc, dst_desc, engine)}
        with pytest.raises(TypeError, match=f"handle: None given; a {name} is required"):
            cls.from_handle(None, owned=True, **extra)
        with pytest.raises(ValueError, match=f"handle: a NULL {name} given"):
            cls.from_handle(our_ffi.cast(name, 0), owned=True, **extra)
        with pytest.raises(ValueError, match=f"handle: a NULL {name} given"):
            cls.from_handle(0, owned=False, **extra)
        with pytest.raises(TypeError, match=f"handle: expected a {name}, got a dnnl_interop.Engine"):
            cls.from_handle(engine, owned=False, **extra)
        with pytest.raises(TypeError, match="owned: expected a bool, got int"):
            cls.from_handle(engine.handle, owned=1, **extra)


def test_owned_must_be_said(real_dnnl):
    with dnnl.Engine.cpu() as engine:
        for call in (lambda: dnnl.Engine.from_handle(engine.handle),
                     lambda: dnnl.Stream.from_handle(engine.handle)):
            with pytest.raises(TypeError, match="owned"):
                call()


def test_the_arguments_beside_the_handle_are_checked_before_c(real_dnnl, embedder):
    theirs = _theirs(embedder.lib)
    src_desc, _ = _descs()
    with dnnl.Engine.cpu() as other:
        with pytest.raises(TypeError, match=r"desc: expected a dnnl_interop.MemoryDesc or None, got str"):
            dnnl.Memory.from_handle(theirs.src, owned=True, desc="ab")
        with pytest.raises(ValueError, match="desc: describes 36 bytes, the memory's own descriptor 60"):
            dnnl.Memory.from_handle(theirs.src, owned=True, desc=dnnl.MemoryDesc((3, 3), "f32", "ab"))
        with pytest.raises(TypeError, match=r"engine: expected a dnnl_interop.Engine or None"):
            dnnl.Memory.from_handle(theirs.src, owned=True, desc=src_desc, engine=other.handle)
        with pytest.raises(ValueError, match="engine: the memory was made on another engine than this one"):
            dnnl.Memory.from_handle(theirs.src, owned=True, desc=src_desc, engine=other)
        with pytest.raises(ValueError, match="engine: the stream was made on another engine than this one"):
            dnnl.Stream.from_handle(theirs.stream, owned=True, engine=other)
        with pytest.raises(ValueError, match=r"desc: MemoryDesc\(\(3, 5\), f32, 'ba'\) is not the memory's own "
                                             r"descriptor, MemoryDesc\(\(3, 5\), f32, 'ab'\)"):
            dnnl.Memory.from_handle(theirs.src, owned=True, desc=_descs()[1])  # same size, another layout
        with pytest.raises(TypeError, match=r"desc: expected a dnnl_interop.PrimitiveDesc or None, got MemoryDesc"):
            dnnl.Primitive.from_handle(theirs.primitive, owned=True, desc=src_desc)
        closed = dnnl.Engine.cpu()
        closed.close()
        with pytest.raises(dnnl.ClosedObjectError, match="engine: this Engine is closed"):
            dnnl.Stream.from_handle(theirs.stream, owned=True, engine=closed)
        src_desc.close()
        with pytest.raises(dnnl.ClosedObjectError):
            dnnl.Memory.from_handle(theirs.src, owned=True, desc=src_desc)
    gc.collect()
    # Every refusal took nothing over: the handles are still theirs.
    assert theirs.run() == 0
    assert theirs.destroy() == 0


# --- their descriptor and the primitive cache ----------------------------------


def test_their_descriptor_goes_through_the_primitive_cache_as_oneDNN_allows_on_cpu(real_dnnl, embedder):
    theirs = _theirs(embedder.lib)
    engine, stream, src, dst, desc, primitive = _adopt_all(theirs, owned=True)
    store = dnnl.CacheBlobStore(tempfile.mkdtemp())
    # oneDNN's CPU engine makes no cache blobs: the id is empty, the blob refused.
    assert desc.cache_blob_id == b""
    with pytest.raises(dnnl.UnimplementedError, match="makes no cache blobs"):
        primitive.get_cache_blob()
    cached = dnnl.make_primitive_cached(desc, store)  # made afresh, the store untouched
    assert list(store) == []
    np.asarray(src)[...] = _matrix()
    cached.execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
    stream.wait()
    assert (np.asarray(dst) == _matrix()).all()
    _close(cached, primitive, desc, src, dst, stream, engine)


def test_a_descriptor_of_ours_is_cloned_never_taken_over_twice(real_dnnl):
    src_desc, dst_desc = _descs()
    with dnnl.Engine.cpu() as engine:
        desc = dnnl.PrimitiveDesc.reorder(src_desc, dst_desc, engine)
        with pytest.raises(ValueError, match="already owns this handle"):
            dnnl.PrimitiveDesc.from_handle(desc.handle, owned=True)
        clone = dnnl.PrimitiveDesc.from_handle(desc.handle, engine=engine)
        assert clone.handle != desc.handle and clone.arg_sizes == desc.arg_sizes
        desc.close()
        assert dnnl.Primitive(clone).engine is engine  # the clone outlives the original
        clone.close()
