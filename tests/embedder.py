"""The other project: a cffi module built on our types that makes oneDNN objects of its own.

Used by tests/test_embedding.py, tests/test_embedding_counted.py and
tests/gpu/test_gpu_embedding.py. It includes our builder, compiles against
``dnnl_interop.get_include()`` and links the oneDNN the binding loaded
(``embedding.link_args()``) or, for the ownership counts, the counting
library. Its C code makes an engine, a stream, two matrices (an "ab" and a
"ba" f32 memory), a reorder descriptor and primitive, runs and destroys them.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

import cffi

import dnnl_interop
from dnnl_interop.embedding import ffibuilder

SOURCE = r"""
#include <stdint.h>
#include "dnnl_ocl.h"
#include "dnnl_ze.h"

static uintptr_t engine_address(dnnl_engine_t engine) { return (uintptr_t)engine; }
static uintptr_t buffer_address(cl_mem buffer) { return (uintptr_t)buffer; }
static int is_buffer_kind(dnnl_ocl_interop_memory_kind_t kind) {
    return kind == dnnl_ocl_interop_buffer;
}

static dnnl_engine_t make_cpu_engine(void) {
    dnnl_engine_t engine = NULL;
    return dnnl_engine_create(&engine, dnnl_cpu, 0) == dnnl_success ? engine : NULL;
}
static dnnl_engine_t make_ocl_engine(cl_device_id device, cl_context context) {
    dnnl_engine_t engine = NULL;
    return dnnl_ocl_interop_engine_create(&engine, device, context) == dnnl_success ? engine : NULL;
}
static dnnl_stream_t make_stream(dnnl_engine_t engine) {
    dnnl_stream_t stream = NULL;
    return dnnl_stream_create(&stream, engine, dnnl_stream_in_order) == dnnl_success ? stream : NULL;
}
/* oneDNN allocates the buffer: host memory on the CPU engine, an OpenCL buffer on a GPU one. */
static dnnl_memory_t make_matrix(dnnl_engine_t engine, int64_t rows, int64_t cols, dnnl_format_tag_t tag) {
    dnnl_memory_desc_t md = NULL;
    dnnl_memory_t memory = NULL;
    dnnl_engine_kind_t kind;
    dnnl_dims_t dims = {rows, cols};
    if (dnnl_engine_get_kind(engine, &kind) != dnnl_success) return NULL;
    if (dnnl_memory_desc_create_with_tag(&md, 2, dims, dnnl_f32, tag) != dnnl_success) return NULL;
    dnnl_status_t status = kind == dnnl_gpu
        ? dnnl_ocl_interop_memory_create(&memory, md, engine, dnnl_ocl_interop_buffer, DNNL_MEMORY_ALLOCATE)
        : dnnl_memory_create(&memory, md, engine, DNNL_MEMORY_ALLOCATE);
    dnnl_memory_desc_destroy(md);
    return status == dnnl_success ? memory : NULL;
}
static dnnl_primitive_desc_t make_reorder_desc(dnnl_memory_t src, dnnl_memory_t dst) {
    const_dnnl_memory_desc_t src_md, dst_md;
    dnnl_engine_t src_engine, dst_engine;
    dnnl_primitive_desc_t desc = NULL;
    if (dnnl_memory_get_memory_desc(src, &src_md) || dnnl_memory_get_memory_desc(dst, &dst_md)
            || dnnl_memory_get_engine(src, &src_engine) || dnnl_memory_get_engine(dst, &dst_engine))
        return NULL;
    return dnnl_reorder_primitive_desc_create(&desc, src_md, src_engine, dst_md, dst_engine, NULL)
            == dnnl_success ? desc : NULL;
}
static dnnl_primitive_t make_primitive(dnnl_primitive_desc_t desc) {
    dnnl_primitive_t primitive = NULL;
    return dnnl_primitive_create(&primitive, desc) == dnnl_success ? primitive : NULL;
}
static int run_reorder(dnnl_primitive_t primitive, dnnl_stream_t stream, dnnl_memory_t src, dnnl_memory_t dst) {
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}};
    int status = dnnl_primitive_execute(primitive, stream, 2, args);
    return status != dnnl_success ? status : dnnl_stream_wait(stream);
}
static int destroy_all(dnnl_primitive_t primitive, dnnl_primitive_desc_t desc, dnnl_memory_t src,
                       dnnl_memory_t dst, dnnl_stream_t stream, dnnl_engine_t engine) {
    return dnnl_primitive_destroy(primitive) | dnnl_primitive_desc_destroy(desc) | dnnl_memory_destroy(src)
         | dnnl_memory_destroy(dst) | dnnl_stream_destroy(stream) | dnnl_engine_destroy(engine);
}
"""

CDEF = """
uintptr_t engine_address(dnnl_engine_t engine);
uintptr_t buffer_address(cl_mem buffer);
int is_buffer_kind(dnnl_ocl_interop_memory_kind_t kind);
dnnl_engine_t make_cpu_engine(void);
dnnl_engine_t make_ocl_engine(cl_device_id device, cl_context context);
dnnl_stream_t make_stream(dnnl_engine_t engine);
dnnl_memory_t make_matrix(dnnl_engine_t engine, int64_t rows, int64_t cols, dnnl_format_tag_t tag);
dnnl_primitive_desc_t make_reorder_desc(dnnl_memory_t src, dnnl_memory_t dst);
dnnl_primitive_t make_primitive(dnnl_primitive_desc_t desc);
int run_reorder(dnnl_primitive_t primitive, dnnl_stream_t stream, dnnl_memory_t src, dnnl_memory_t dst);
int destroy_all(dnnl_primitive_t primitive, dnnl_primitive_desc_t desc, dnnl_memory_t src,
                dnnl_memory_t dst, dnnl_stream_t stream, dnnl_engine_t engine);
"""

ROWS, COLS = 3, 5


def build(directory: Path, name: str, link_args: list[str]) -> Path:
    """Compile the module ``name`` into ``directory``, linked with ``link_args``."""
    builder = cffi.FFI()
    builder.include(ffibuilder())
    builder.cdef(CDEF)
    builder.set_source(name, SOURCE, include_dirs=[dnnl_interop.get_include()], extra_link_args=link_args)
    builder.compile(tmpdir=str(directory))
    return Path(directory)


def load(directory: Path, name: str) -> ModuleType:
    """Import the module built into ``directory``."""
    sys.path.insert(0, str(directory))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(directory))


class Theirs:
    """What the other module made on ``engine``: a stream, an "ab" and a "ba"
    ``ROWS x COLS`` matrix, a reorder descriptor and primitive between them."""

    def __init__(self, lib, engine) -> None:
        self.lib = lib
        self.engine = engine
        self.stream = lib.make_stream(engine)
        self.src = lib.make_matrix(engine, ROWS, COLS, lib.dnnl_ab)
        self.dst = lib.make_matrix(engine, ROWS, COLS, lib.dnnl_ba)
        self.desc = lib.make_reorder_desc(self.src, self.dst)
        self.primitive = lib.make_primitive(self.desc)
        made = (engine, self.stream, self.src, self.dst, self.desc, self.primitive)
        if not all(made):  # a NULL cdata pointer is false
            raise RuntimeError(f"the other module could not make its objects: {made}")

    def run(self) -> int:
        """Their own reorder, on their own objects; 0 on success."""
        return self.lib.run_reorder(self.primitive, self.stream, self.src, self.dst)

    def destroy(self) -> int:
        """Destroy everything they made; 0 if every destroy succeeded."""
        return self.lib.destroy_all(self.primitive, self.desc, self.src, self.dst, self.stream, self.engine)
