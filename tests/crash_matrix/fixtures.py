"""The objects a case's snippet can name, and how a case becomes a script.

A snippet names fixtures by their variable names (``eng``, ``pocl_ctx``,
``gsrc``, ...). Only the fixtures it names, and what those need, are made,
in the order of :data:`FIXTURES`: a case refused before any C call loads no
library at all. :func:`script` gives the whole program of a case, which is
also its repro (``python -m crash_matrix show NAME`` prints it).

GPU-engine fixtures (``geng``, ``gstrm``, ... on OpenCL; ``zeng``, ... on
Level Zero) need a library that can make GPU engines here: for now the
test-only stand-in (tests/standin), bound from ``$CRASH_MATRIX_STANDIN``.
"""

from __future__ import annotations

import re

STANDIN_ENV = "CRASH_MATRIX_STANDIN"

HEADER = """\
import copy, gc, os, pickle, sys, threading, time
from decimal import Decimal
from fractions import Fraction
import numpy as np
import pyopencl as cl
import dnnl_interop as dnnl
from dnnl_interop import ocl, ze
from dnnl_interop._ffi import ffi
"""

BIND = {
    "real": "",  # the first C call finds real oneDNN (the default search)
    "standin": f"dnnl.load_library(os.environ[{STANDIN_ENV!r}])\n",
    "none": "",
}

# name -> (code, needs the stand-in). Order matters: a fixture may use the
# ones above it.
FIXTURES: dict[str, tuple[str, bool]] = {}


def _fixture(name: str, code: str, standin: bool = False) -> None:
    FIXTURES[name] = (code.strip() + "\n", standin)


# --- plain data ---------------------------------------------------------------
_fixture("a", "a = np.arange(16, dtype=np.float32).reshape(4, 4)")
_fixture("out", "out = np.zeros((4, 4), np.float32)")
_fixture("out2", "out2 = np.zeros((4, 4), np.float32)")
_fixture("ro_array", "ro_array = np.zeros((4, 4), np.float32); ro_array.flags.writeable = False")
_fixture(
    "big",
    "big = np.arange(4096 * 4096, dtype=np.float32).reshape(4096, 4096)  # exact in float32",
)

# --- core objects on the CPU engine ---------------------------------------------
_fixture("eng", "eng = dnnl.Engine.cpu()")
_fixture("eng2", "eng2 = dnnl.Engine.cpu()  # a second engine object")
_fixture("strm", "strm = dnnl.Stream(eng)")
_fixture("strm2", "strm2 = dnnl.Stream(eng2)")
_fixture("md", 'md = dnnl.MemoryDesc((4, 4), "float32", "ab")')
_fixture("md_t", 'md_t = dnnl.MemoryDesc((4, 4), "float32", "ba")')
_fixture("md_small", 'md_small = dnnl.MemoryDesc((2, 2), "float32", "ab")')
_fixture("big_md", 'big_md = dnnl.MemoryDesc((4096, 4096), "float32", "ab")')
_fixture("big_md_t", 'big_md_t = dnnl.MemoryDesc((4096, 4096), "float32", "ba")')
_fixture("src", "src = dnnl.Memory(md, eng, a)")
_fixture("dst", "dst = dnnl.Memory(md_t, eng, out)")
_fixture("src_small", "src_small = dnnl.Memory(md_small, eng)")
_fixture("src_eng2", "src_eng2 = dnnl.Memory(md, eng2, a)")
_fixture("src_none", "src_none = dnnl.Memory(md, eng, dnnl.MEMORY_NONE)")
_fixture("prim", "prim = dnnl.reorder(md, md_t, eng)")
_fixture("args", "args = {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst}")
_fixture("closed_eng", "closed_eng = dnnl.Engine.cpu(); closed_eng.close()")
_fixture("closed_strm", "closed_strm = dnnl.Stream(eng); closed_strm.close()")
_fixture("closed_md", 'closed_md = dnnl.MemoryDesc((4, 4), "float32", "ab"); closed_md.close()')
_fixture("closed_mem", "closed_mem = dnnl.Memory(md, eng); closed_mem.close()")
_fixture("closed_prim", "closed_prim = dnnl.reorder(md, md_t, eng); closed_prim.close()")
_fixture(
    "reorder_big",
    '''
def reorder_big(engine, stream):
    """The issue's example: a 4096x4096 transpose whose objects all die on return."""
    a = big.copy()
    result = np.zeros_like(a)
    s = dnnl.Memory(big_md, engine, a)
    d = dnnl.Memory(big_md_t, engine, result)
    dnnl.reorder(big_md, big_md_t, engine).execute(stream, {dnnl.ARG_FROM: s, dnnl.ARG_TO: d})
    return result  # only the output array survives the call
''',
)

# --- real OpenCL objects (pyopencl; no oneDNN needed) ---------------------------
_fixture(
    "pocl_dev",
    'pocl_dev = next(d for p in cl.get_platforms() if "Portable" in p.name for d in p.get_devices())',
)
_fixture(
    "intel_dev",
    'intel_dev = next(d for p in cl.get_platforms() if "Intel" in p.name for d in p.get_devices())',
)
_fixture("pocl_platform", "pocl_platform = pocl_dev.platform")
_fixture("pocl_ctx", "pocl_ctx = cl.Context([pocl_dev])")
_fixture("intel_ctx", "intel_ctx = cl.Context([intel_dev])")
_fixture("pocl_queue", "pocl_queue = cl.CommandQueue(pocl_ctx)")
_fixture(
    "pocl_ooo_queue",
    "pocl_ooo_queue = cl.CommandQueue(pocl_ctx, properties=cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE)",
)
_fixture("intel_queue", "intel_queue = cl.CommandQueue(intel_ctx)")
_fixture("pocl_buf", "pocl_buf = cl.Buffer(pocl_ctx, cl.mem_flags.READ_WRITE, 64)")
_fixture("pocl_buf2", "pocl_buf2 = cl.Buffer(pocl_ctx, cl.mem_flags.READ_WRITE, 64)")
_fixture("pocl_small_buf", "pocl_small_buf = cl.Buffer(pocl_ctx, cl.mem_flags.READ_WRITE, 16)")
_fixture("intel_buf", "intel_buf = cl.Buffer(intel_ctx, cl.mem_flags.READ_WRITE, 64)")
_fixture(
    "done_event",
    "done_event = cl.UserEvent(pocl_ctx); done_event.set_status(cl.command_execution_status.COMPLETE)",
)
_fixture(
    "intel_event",
    "intel_event = cl.UserEvent(intel_ctx); intel_event.set_status(cl.command_execution_status.COMPLETE)",
)

# --- OpenCL GPU engine (stand-in) -------------------------------------------------
_fixture("geng", "geng = ocl.make_engine(pocl_dev, pocl_ctx)", standin=True)
_fixture("geng_intel", "geng_intel = ocl.make_engine(intel_dev, intel_ctx)", standin=True)
_fixture("gstrm", "gstrm = ocl.make_stream(geng, pocl_queue)", standin=True)
_fixture("gstrm_ooo", "gstrm_ooo = ocl.make_stream(geng, pocl_ooo_queue)", standin=True)
_fixture("gstrm_intel", "gstrm_intel = ocl.make_stream(geng_intel, intel_queue)", standin=True)
_fixture(
    "gsrc",
    """
cl.enqueue_copy(pocl_queue, pocl_buf, a).wait()
gsrc = ocl.make_memory(md, geng, ocl.MemoryKind.BUFFER, pocl_buf)
""",
    standin=True,
)
_fixture("gdst", "gdst = ocl.make_memory(md_t, geng)", standin=True)
_fixture("gsrc_intel", "gsrc_intel = ocl.make_memory(md, geng_intel, ocl.MemoryKind.BUFFER, intel_buf)", standin=True)
_fixture("gprim", "gprim = dnnl.reorder(md, md_t, geng)", standin=True)
_fixture("gsrc_small", "gsrc_small = ocl.make_memory(md_small, geng)", standin=True)
_fixture("gsrc_closed", "gsrc_closed = ocl.make_memory(md, geng); gsrc_closed.close()", standin=True)
_fixture(
    "gsrc_none",
    "gsrc_none = ocl.make_memory(md, geng, ocl.MemoryKind.BUFFER, dnnl.MEMORY_NONE)",
    standin=True,
)
_fixture(
    "read_gpu",
    '''
def read_gpu(memory, shape=(4, 4)):
    """The contents of an OpenCL buffer memory, read through pyopencl."""
    host = np.empty(shape, np.float32)
    buffer = ocl.get_mem_object(memory)
    queue = cl.CommandQueue(buffer.context)
    cl.enqueue_copy(queue, host, buffer).wait()
    return host
''',
)

# --- Level Zero (handle values; the engine needs the stand-in) -------------------
_fixture("zdrv", "zdrv = ze.Driver(0x1000)")
_fixture("zdev", "zdev = ze.Device(0x2000)")
_fixture("zctx", "zctx = ze.Context(0x3000)")
_fixture("zlist", "zlist = ze.CommandList(0x4000)")
_fixture("zevent", "zevent = ze.Event(0x5000)")
_fixture("zeng", "zeng = ze.make_engine(zdrv, zdev, zctx)", standin=True)
_fixture("zstrm", "zstrm = ze.make_stream(zeng, zlist)", standin=True)
_fixture("zsrc", "zsrc = ze.make_memory(md, zeng, a)", standin=True)
_fixture("zdst", "zdst = ze.make_memory(md_t, zeng, out)", standin=True)
_fixture("zprim", "zprim = dnnl.reorder(md, md_t, zeng)", standin=True)
_fixture("zeng2", "zeng2 = ze.make_engine(zdrv, zdev, zctx)", standin=True)
_fixture("zsrc_small", "zsrc_small = ze.make_memory(md_small, zeng)", standin=True)
_fixture("zsrc_closed", "zsrc_closed = ze.make_memory(md, zeng); zsrc_closed.close()", standin=True)
_fixture("zsrc_none", "zsrc_none = ze.make_memory(md, zeng, dnnl.MEMORY_NONE)", standin=True)
_fixture("zsrc_eng2", "zsrc_eng2 = ze.make_memory(md, zeng2, a)", standin=True)

_WORD = re.compile(r"[A-Za-z_]\w*")


def needed(code: str) -> list[str]:
    """The fixtures ``code`` names, with what they need, in definition order."""
    wanted: set[str] = set()
    pending = [word for word in _WORD.findall(code) if word in FIXTURES]
    while pending:
        name = pending.pop()
        if name in wanted:
            continue
        wanted.add(name)
        pending += [word for word in _WORD.findall(FIXTURES[name][0]) if word in FIXTURES]
    return [name for name in FIXTURES if name in wanted]


def library_for(code: str) -> str:
    """"standin" when a fixture ``code`` needs can only be made with it, else "real"."""
    return "standin" if any(FIXTURES[name][1] for name in needed(code)) else "real"


def prelude(code: str, library: str) -> str:
    """Everything that runs before a snippet: imports, binding, fixtures."""
    return HEADER + BIND[library] + "".join(FIXTURES[name][0] for name in needed(code))


def script(code: str, library: str) -> str:
    """The whole program of a case (its repro)."""
    return prelude(code, library) + "# --- the case ---\n" + code.strip() + "\n"
