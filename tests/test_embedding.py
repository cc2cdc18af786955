"""Other cffi modules can embed our C types.

A project with its own API-mode cffi module includes our builder
(``ffi.include(dnnl_interop.embedding.ffibuilder())``) and compiles against
the headers of ``dnnl_interop.get_include()``: our handles then pass to its
functions with their types checked, and nothing links libdnnl.
"""

from __future__ import annotations

import importlib
import sys

import cffi
import pytest

import dnnl_interop
from dnnl_interop._ffi import ffi as our_ffi
from dnnl_interop.embedding import ffibuilder

SOURCE = """
#include "dnnl_ocl.h"
#include "dnnl_ze.h"

static uintptr_t engine_address(dnnl_engine_t engine) { return (uintptr_t)engine; }
static uintptr_t buffer_address(cl_mem buffer) { return (uintptr_t)buffer; }
static int is_buffer_kind(dnnl_ocl_interop_memory_kind_t kind) {
    return kind == dnnl_ocl_interop_buffer;
}
"""


@pytest.fixture(scope="module")
def embedder(tmp_path_factory):
    """A separate cffi module built on our types, as another project would."""
    directory = tmp_path_factory.mktemp("embedder")
    builder = cffi.FFI()
    builder.include(ffibuilder())
    builder.cdef(
        """
        uintptr_t engine_address(dnnl_engine_t engine);
        uintptr_t buffer_address(cl_mem buffer);
        int is_buffer_kind(dnnl_ocl_interop_memory_kind_t kind);
        """
    )
    builder.set_source(
        "embedder_under_test", SOURCE, include_dirs=[dnnl_interop.get_include()]
    )
    builder.compile(tmpdir=str(directory))
    sys.path.insert(0, str(directory))
    try:
        yield importlib.import_module("embedder_under_test")
    finally:
        sys.path.remove(str(directory))


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


def test_get_include_has_every_header_the_build_used():
    import os

    names = set(os.listdir(dnnl_interop.get_include()))
    assert {"dnnl_ocl.h", "dnnl_ze.h", "opencl_handles.h", "level_zero_handles.h"} <= names
