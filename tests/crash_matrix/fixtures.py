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
from dnnl_interop import ocl, sycl, ze
from dnnl_interop._ffi import ffi
"""

BIND = {
    "real": "",  # the first C call finds real oneDNN (the default search)
    "standin": f"dnnl.load_library(os.environ[{STANDIN_ENV!r}])\n",
    # Real oneDNN on the emulated Intel GPU (a process started with its layer on).
    "emulated": "from dnnl_interop.testing import emulated_gpu\nemulated_gpu.enable()\n",
    # Real oneDNN's Level Zero engine on the emulated Level Zero loader.
    "emulated-ze": "from dnnl_interop.testing import emulated_level_zero\nlz = emulated_level_zero.enable()\n",
    "none": "",
}

# name -> (code by library, needs a GPU library). Order matters: a fixture
# may use the ones above it. Code given as a str is the same for every library.
FIXTURES: dict[str, tuple[dict[str, str] | str, bool]] = {}


def _fixture(name: str, code: dict[str, str] | str, gpu: bool = False) -> None:
    if isinstance(code, str):
        code = code.strip() + "\n"
    else:
        code = {library: text.strip() + "\n" for library, text in code.items()}
    FIXTURES[name] = (code, gpu)


def _code(name: str, library: str) -> str:
    code = FIXTURES[name][0]
    if isinstance(code, str):
        return code
    if library in code:
        return code[library]
    if "*" in code:
        return code["*"]
    return f"raise RuntimeError({f'fixture {name} needs one of {sorted(code)}'!r})\n"


def _all_code(name: str) -> str:
    code = FIXTURES[name][0]
    return code if isinstance(code, str) else "\n".join(code.values())


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
_fixture("dst", "dst = dnnl.Memory(md_t, eng, out.T)")
_fixture("src_small", "src_small = dnnl.Memory(md_small, eng)")
_fixture("src_eng2", "src_eng2 = dnnl.Memory(md, eng2, a)")
_fixture("src_none", "src_none = dnnl.Memory(md, eng, dnnl.MEMORY_NONE)")
_fixture("prim", "prim = dnnl.reorder(md, md_t, eng)")
_fixture("exec_args", "exec_args = {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst}")
_fixture("pdesc", "pdesc = dnnl.PrimitiveDesc.reorder(md, md_t, eng)")
_fixture("closed_pdesc", "closed_pdesc = dnnl.PrimitiveDesc.reorder(md, md_t, eng); closed_pdesc.close()")
_fixture("store", "import tempfile\nstore = dnnl.CacheBlobStore(tempfile.mkdtemp())")
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
    d = dnnl.Memory(big_md_t, engine, result.T)
    dnnl.reorder(big_md, big_md_t, engine).execute(stream, {dnnl.ARG_FROM: s, dnnl.ARG_TO: d})
    return result  # only the output array survives the call
''',
)

_fixture(
    "run_threads",
    '''
sys.setswitchinterval(1e-6)  # switch threads as often as possible: races show sooner
thread_errors = []
def _guarded(function):
    def run():
        try:
            function()
        except (ValueError, RuntimeError) as exc:  # a clean refusal must say why
            if not str(exc):
                thread_errors.append(exc)
        except BaseException as exc:
            thread_errors.append(exc)
    return run
def run_threads(functions):
    """Start a thread per function; what they raise is checked by join_threads."""
    threads = [threading.Thread(target=_guarded(f)) for f in functions]
    for t in threads:
        t.start()
    return threads
def join_threads(threads, timeout=15.0):
    for t in threads:
        t.join(timeout)
    assert not any(t.is_alive() for t in threads), "a thread is stuck"
    assert not thread_errors, f"threads raised: {thread_errors[:3]!r}"
''',
)

_fixture(
    "fork_and_wait",
    '''
def fork_and_wait(child, timeout=10.0):
    """Run ``child()`` in a forked process: ``(exited in time, wait status)``; 3 if it raised."""
    pid = os.fork()
    if pid == 0:
        try:
            child()
            code = 0
        except BaseException:
            code = 3
        os._exit(code)
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    if not done:
        os.kill(pid, 9); os.waitpid(pid, 0)
    return bool(done), status
''',
)

# --- forward primitives on the CPU engine (sequences_primitives) ------------------
# Values chosen so that every product and sum is exact in float32.
_fixture("mm_x", "mm_x = (np.arange(32, dtype=np.float32).reshape(4, 8) % 7) / 4")
_fixture("mm_w", "mm_w = (np.arange(128, dtype=np.float32).reshape(8, 16) % 5) / 2")
_fixture("mm_ref", "mm_ref = mm_x @ mm_w")
_fixture("mm_out", "mm_out = np.zeros((4, 16), np.float32)")
_fixture("mm_src_md", 'mm_src_md = dnnl.MemoryDesc((4, 8), "float32", "ab")')
_fixture("mm_wei_md", 'mm_wei_md = dnnl.MemoryDesc((8, 16), "float32", "ab")')
_fixture("mm_dst_md", 'mm_dst_md = dnnl.MemoryDesc((4, 16), "float32", "ab")')
_fixture("mm_pd", "mm_pd = dnnl.MatmulDesc(eng, mm_src_md, mm_wei_md, mm_dst_md)")
_fixture("mm_prim", "mm_prim = dnnl.Primitive(mm_pd)")
_fixture("mm_src", "mm_src = dnnl.Memory(mm_src_md, eng, mm_x)")
_fixture("mm_wei", "mm_wei = dnnl.Memory(mm_wei_md, eng, mm_w)")
_fixture("mm_dst", "mm_dst = dnnl.Memory(mm_dst_md, eng, mm_out)")
_fixture("mm_args", "mm_args = {dnnl.ARG_SRC: mm_src, dnnl.ARG_WEIGHTS: mm_wei, dnnl.ARG_DST: mm_dst}")
_fixture("md4", 'md4 = dnnl.MemoryDesc((1, 4, 4, 4), "float32", "abcd")')
_fixture("closed_md4", 'closed_md4 = dnnl.MemoryDesc((1, 4, 4, 4), "float32", "abcd"); closed_md4.close()')
_fixture("attr", "attr = dnnl.PrimitiveAttr()")
_fixture("closed_attr", "closed_attr = dnnl.PrimitiveAttr(); closed_attr.close()")
_fixture("post_ops", "post_ops = dnnl.PostOps()")
_fixture("closed_post_ops", "closed_post_ops = dnnl.PostOps(); closed_post_ops.close()")
_fixture("conv_x", "conv_x = (np.arange(192, dtype=np.float32).reshape(1, 3, 8, 8) % 5) / 4")
_fixture("conv_k", "conv_k = (np.arange(216, dtype=np.float32).reshape(8, 3, 3, 3) % 3) / 2")
_fixture(
    "conv_ref",
    "windows = np.lib.stride_tricks.sliding_window_view(conv_x[0], (3, 3), axis=(1, 2))\n"
    "conv_ref = np.einsum('chwij,ocij->ohw', windows, conv_k)[None]",
)
_fixture(
    "conv_plain_mds",
    'conv_plain_mds = (dnnl.MemoryDesc((1, 3, 8, 8), "float32", "abcd"), '
    'dnnl.MemoryDesc((8, 3, 3, 3), "float32", "abcd"), dnnl.MemoryDesc((1, 8, 6, 6), "float32", "abcd"))',
)
_fixture(
    "conv_pd",
    """
conv_pd = dnnl.ConvolutionForwardDesc(
    eng, dnnl.MemoryDesc((1, 3, 8, 8), "float32", "any"), dnnl.MemoryDesc((8, 3, 3, 3), "float32", "any"),
    dnnl.MemoryDesc((1, 8, 6, 6), "float32", "any"), (1, 1), (0, 0), (0, 0))
""",
)
_fixture("conv_prim", "conv_prim = dnnl.Primitive(conv_pd)")
_fixture("conv_src_plain", "conv_src_plain = dnnl.Memory(conv_plain_mds[0], eng, conv_x)")
_fixture("conv_wei_plain", "conv_wei_plain = dnnl.Memory(conv_plain_mds[1], eng, conv_k)")
_fixture("conv_out", "conv_out = np.zeros((1, 8, 6, 6), np.float32)")
_fixture("conv_dst_plain", "conv_dst_plain = dnnl.Memory(conv_plain_mds[2], eng, conv_out)")
_fixture(
    "conv_run",
    '''
def conv_run(primitive, pd, stream, src=None, weights=None, dst=None):
    """Execute the convolution on memories in the layouts pd chose (reordered from the
    plain ones where not given): its result, back in plain nchw."""
    src = src if src is not None else dnnl.reordered(conv_src_plain, pd.src_desc(), stream)
    weights = weights if weights is not None else dnnl.reordered(conv_wei_plain, pd.weights_desc(), stream)
    dst = dst if dst is not None else dnnl.Memory(pd.dst_desc(), pd.engine)
    primitive.execute(stream, {dnnl.ARG_SRC: src, dnnl.ARG_WEIGHTS: weights, dnnl.ARG_DST: dst})
    back = np.zeros((1, 8, 6, 6), np.float32)
    dnnl.reorder(dst.desc, conv_plain_mds[2], pd.engine).execute(
        stream, {dnnl.ARG_FROM: dst, dnnl.ARG_TO: dnnl.Memory(conv_plain_mds[2], pd.engine, back)})
    stream.wait()
    return back
''',
)
_fixture(
    "run_pd",
    '''
def run_pd(pd, stream=None):
    """Make pd's primitive and execute it once on new memories of every argument pd
    describes, in the layouts it chose; those memories."""
    stream = stream if stream is not None else strm
    memories = {arg: dnnl.Memory(pd.arg_desc(arg), pd.engine) for arg in pd.arg_sizes}
    dnnl.Primitive(pd).execute(stream, memories)
    stream.wait()
    return memories
''',
)

# --- backward primitives on the CPU engine (sequences_backward) -------------------
# Each kind's forward descriptor of training (the backward one's hint_fwd_pd), on small shapes.
_fixture("TRAIN", "TRAIN = dnnl.PropKind.FORWARD_TRAINING")
_fixture("cv_mds", 'cv_mds = tuple(dnnl.MemoryDesc(s, "float32", "abcd"[:len(s)]) for s in '
         '((1, 2, 5, 5), (4, 2, 3, 3), (1, 4, 3, 3), (4,)))')
_fixture("cv_fwd", "cv_fwd = dnnl.ConvolutionForwardDesc(eng, *cv_mds[:3], (1, 1), (0, 0), (0, 0), "
         "bias_desc=cv_mds[3], prop_kind=TRAIN)")
_fixture("dc_mds", 'dc_mds = tuple(dnnl.MemoryDesc(s, "float32", "abcd") for s in ((1, 2, 3, 3), (4, 2, 3, 3), '
         '(1, 4, 5, 5)))')
_fixture("dc_fwd", "dc_fwd = dnnl.DeconvolutionForwardDesc(eng, *dc_mds, (1, 1), (0, 0), (0, 0), prop_kind=TRAIN)")
_fixture("ip_mds", 'ip_mds = tuple(dnnl.MemoryDesc(s, "float32", "ab"[:len(s)]) for s in ((2, 8), (5, 8), (2, 5), '
         '(5,)))')
_fixture("ip_fwd", "ip_fwd = dnnl.InnerProductForwardDesc(eng, *ip_mds[:3], bias_desc=ip_mds[3], prop_kind=TRAIN)")
_fixture("elt_fwd", "elt_fwd = dnnl.EltwiseForwardDesc(eng, dnnl.AlgKind.ELTWISE_RELU, md, md, prop_kind=TRAIN)")
_fixture("sm_fwd", "sm_fwd = dnnl.SoftmaxForwardDesc(eng, dnnl.AlgKind.SOFTMAX_ACCURATE, md, md, 1, prop_kind=TRAIN)")
_fixture("pr_wei_md", 'pr_wei_md = dnnl.MemoryDesc((1, 4), "float32", "ab")')
_fixture("pr_fwd", "pr_fwd = dnnl.PReLUForwardDesc(eng, md, pr_wei_md, md, prop_kind=TRAIN)")
_fixture("pool_dst_md", 'pool_dst_md = dnnl.MemoryDesc((1, 4, 2, 2), "float32", "abcd")')
_fixture("pool_fwd", "pool_fwd = dnnl.PoolingForwardDesc(eng, dnnl.AlgKind.POOLING_MAX, md4, pool_dst_md, (2, 2), "
         "(2, 2), (0, 0), (0, 0), prop_kind=TRAIN)")
_fixture("pool_bwd", "pool_bwd = dnnl.PoolingBackwardDesc(eng, dnnl.AlgKind.POOLING_MAX, md4, pool_dst_md, (2, 2), "
         "(2, 2), (0, 0), (0, 0), pool_fwd)")
_fixture("rs_mds", 'rs_mds = (dnnl.MemoryDesc((1, 1, 4, 4), "float32", "abcd"), '
         'dnnl.MemoryDesc((1, 1, 8, 8), "float32", "abcd"))')
_fixture("rs_fwd", "rs_fwd = dnnl.ResamplingForwardDesc(eng, dnnl.AlgKind.RESAMPLING_NEAREST, *rs_mds, prop_kind=TRAIN)")
_fixture("lrn_fwd", "lrn_fwd = dnnl.LRNForwardDesc(eng, dnnl.AlgKind.LRN_ACROSS_CHANNELS, md4, md4, 3, 1e-4, 0.75, 1.0, "
         "prop_kind=TRAIN)")
_fixture("sh_fwd", "sh_fwd = dnnl.ShuffleForwardDesc(eng, md, md, 1, 2, prop_kind=TRAIN)")
_fixture("bn_fwd", "bn_fwd = dnnl.BatchNormalizationForwardDesc(eng, md4, md4, 1e-5, prop_kind=TRAIN)")
_fixture("ln_fwd", "ln_fwd = dnnl.LayerNormalizationForwardDesc(eng, md, md, 1e-5, prop_kind=TRAIN)")
_fixture("gn_fwd", "gn_fwd = dnnl.GroupNormalizationForwardDesc(eng, md4, md4, 2, 1e-5, prop_kind=TRAIN)")
_fixture("inference_pool", "inference_pool = dnnl.PoolingForwardDesc(eng, dnnl.AlgKind.POOLING_MAX, md4, pool_dst_md, "
         "(2, 2), (2, 2), (0, 0), (0, 0))")
_fixture("closed_fwd", "closed_fwd = dnnl.EltwiseForwardDesc(eng, dnnl.AlgKind.ELTWISE_RELU, md, md, "
         "prop_kind=TRAIN); closed_fwd.close()")
_fixture("eng2_fwd", "eng2_fwd = dnnl.EltwiseForwardDesc(eng2, dnnl.AlgKind.ELTWISE_RELU, md, md, prop_kind=TRAIN)")
_fixture(
    "fill",
    '''
def fill(memory, rng=np.random.default_rng(5)):
    """Distinct values (max pooling has one maximum a window) in a plain float memory."""
    with memory.mapped() as view:
        view[...] = rng.permutation(view.size).reshape(view.shape) / 4 - view.size / 8
    return memory
''',
)
_fixture(
    "run_fwd",
    '''
def run_fwd(fwd, stream=None, workspace=None, source=None):
    """The forward training primitive of fwd executed once on filled memories; those memories
    (with workspace_memory(fwd), or the one given, as its workspace if it has one)."""
    stream = stream if stream is not None else strm
    memories = {arg: fill(dnnl.Memory(fwd.arg_desc(arg), fwd.engine)) for arg in fwd.arg_sizes
                if arg != dnnl.ARG_WORKSPACE}
    if source is not None:
        memories[dnnl.ARG_SRC] = source
    if dnnl.ARG_WORKSPACE in fwd.arg_sizes:
        memories[dnnl.ARG_WORKSPACE] = workspace if workspace is not None else dnnl.workspace_memory(fwd)
    dnnl.Primitive(fwd).execute(stream, memories)
    stream.wait()
    return memories
''',
)
_fixture(
    "run_bwd",
    '''
def run_bwd(pd, fwd, stream=None):
    """The backward primitive of pd (made with hint_fwd_pd=fwd) executed once on filled memories
    of every argument it describes, after fwd's forward training execution wrote the workspace
    it reads; those memories."""
    stream = stream if stream is not None else strm
    forward = run_fwd(fwd, stream)
    memories = {arg: fill(dnnl.Memory(pd.arg_desc(arg), pd.engine)) for arg in pd.arg_sizes
                if arg != dnnl.ARG_WORKSPACE}
    if dnnl.ARG_WORKSPACE in pd.arg_sizes:
        memories[dnnl.ARG_WORKSPACE] = forward[dnnl.ARG_WORKSPACE]
    dnnl.Primitive(pd).execute(stream, memories)
    stream.wait()
    return memories
''',
)
_fixture(
    "pool_check",
    '''
def pool_check(memories, fwd_src):
    """diff_src of 2x2 max pooling with stride 2: each diff_dst value at its window's maximum."""
    x = np.asarray(fwd_src).reshape(1, 4, 2, 2, 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(1, 4, 2, 2, 4)
    dy = np.asarray(memories[dnnl.ARG_DIFF_DST])
    expected = np.zeros((1, 4, 2, 2, 4), np.float32)
    np.put_along_axis(expected, x.argmax(-1)[..., None], dy[..., None], -1)
    expected = expected.reshape(1, 4, 2, 2, 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(1, 4, 4, 4)
    assert np.array_equal(np.asarray(memories[dnnl.ARG_DIFF_SRC]), expected), "the pooling gradient is wrong"
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

# --- OpenCL GPU engine -----------------------------------------------------------
# gdev/gctx: PoCL's device under the stand-in; the emulated Intel GPU under
# real oneDNN ("emulated"). Everything else is made the same way on both.
_fixture(
    "gdev",
    {
        "standin": 'gdev = next(d for p in cl.get_platforms() if "Portable" in p.name for d in p.get_devices())',
        "emulated": "gdev = emulated_gpu.enable().device",
    },
)
_fixture("gctx", "gctx = cl.Context([gdev])")
_fixture("gqueue", "gqueue = cl.CommandQueue(gctx)")
_fixture(
    "gqueue_ooo",
    "gqueue_ooo = cl.CommandQueue(gctx, properties=cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE)",
)
_fixture("gbuf", "gbuf = cl.Buffer(gctx, cl.mem_flags.READ_WRITE, 64)")
_fixture("gbuf2", "gbuf2 = cl.Buffer(gctx, cl.mem_flags.READ_WRITE, 64)")
_fixture("gbuf_small", "gbuf_small = cl.Buffer(gctx, cl.mem_flags.READ_WRITE, 16)")
_fixture(
    "gevent",
    "gevent = cl.UserEvent(gctx); gevent.set_status(cl.command_execution_status.COMPLETE)",
)
# A second context on the same device: its objects belong to another engine.
_fixture("other_ctx", "other_ctx = cl.Context([gdev])")
_fixture("other_queue", "other_queue = cl.CommandQueue(other_ctx)")
_fixture("other_buf", "other_buf = cl.Buffer(other_ctx, cl.mem_flags.READ_WRITE, 64)")
_fixture(
    "other_event",
    "other_event = cl.UserEvent(other_ctx); other_event.set_status(cl.command_execution_status.COMPLETE)",
)
_fixture("geng", "geng = ocl.make_engine(gdev, gctx)", gpu=True)
_fixture("geng_other", "geng_other = ocl.make_engine(gdev, other_ctx)", gpu=True)
_fixture("gstrm", "gstrm = ocl.make_stream(geng, gqueue)", gpu=True)
_fixture("gstrm_ooo", "gstrm_ooo = ocl.make_stream(geng, gqueue_ooo)", gpu=True)
_fixture("gstrm_other", "gstrm_other = ocl.make_stream(geng_other, other_queue)", gpu=True)
_fixture(
    "gsrc",
    """
cl.enqueue_copy(gqueue, gbuf, a).wait()
gsrc = ocl.make_memory(md, geng, ocl.MemoryKind.BUFFER, gbuf)
""",
    gpu=True,
)
_fixture("gdst", "gdst = ocl.make_memory(md_t, geng)", gpu=True)
_fixture("gprim", "gprim = dnnl.reorder(md, md_t, geng)", gpu=True)
_fixture("gpdesc", "gpdesc = dnnl.PrimitiveDesc.reorder(md, md_t, geng)", gpu=True)
_fixture("gblob", "gblob = dnnl.Primitive(gpdesc).get_cache_blob()", gpu=True)
_fixture("gsrc_small", "gsrc_small = ocl.make_memory(md_small, geng)", gpu=True)
_fixture("gsrc_closed", "gsrc_closed = ocl.make_memory(md, geng); gsrc_closed.close()", gpu=True)
_fixture(
    "gsrc_none",
    "gsrc_none = ocl.make_memory(md, geng, ocl.MemoryKind.BUFFER, dnnl.MEMORY_NONE)",
    gpu=True,
)
_fixture(
    "gsrc_other",
    "gsrc_other = ocl.make_memory(md, geng_other, ocl.MemoryKind.BUFFER, other_buf)",
    gpu=True,
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

_fixture(
    "reorder_big_gpu",
    '''
def reorder_big_gpu(engine, stream, queue):
    """reorder_big on an OpenCL engine: only the output buffer survives the call."""
    flags = cl.mem_flags.READ_WRITE
    source = cl.Buffer(queue.context, flags | cl.mem_flags.COPY_HOST_PTR, hostbuf=big)
    result = cl.Buffer(queue.context, flags, big.nbytes)
    s = ocl.make_memory(big_md, engine, ocl.MemoryKind.BUFFER, source)
    d = ocl.make_memory(big_md_t, engine, ocl.MemoryKind.BUFFER, result)
    dnnl.reorder(big_md, big_md_t, engine).execute(stream, {dnnl.ARG_FROM: s, dnnl.ARG_TO: d})
    return result
''',
)
_fixture(
    "read_big",
    '''
def read_big(buffer, queue):
    host = np.empty((4096, 4096), np.float32)
    cl.enqueue_copy(queue, host, buffer).wait()
    return host
''',
)

# --- Level Zero ----------------------------------------------------------------------
# Fake handle values everywhere but "emulated-ze", where they are the emulated
# Level Zero driver's own (``lz``) and memory is its shared USM.
_fixture("zdrv", {"*": "zdrv = ze.Driver(0x1000)", "emulated-ze": "zdrv = lz.driver"})
_fixture("zdev", {"*": "zdev = ze.Device(0x2000)", "emulated-ze": "zdev = lz.device"})
_fixture("zctx", {"*": "zctx = ze.Context(0x3000)", "emulated-ze": "zctx = lz.context"})
_fixture("zlist", {"*": "zlist = ze.CommandList(0x4000)", "emulated-ze": "zlist = lz.command_list"})
_fixture("zevent", {"*": "zevent = ze.Event(0x5000)", "emulated-ze": "zevent = lz.event_pool(4).event(); zevent.signal()"})
_fixture("zeng", "zeng = ze.make_engine(zdrv, zdev, zctx)", gpu=True)
_fixture("zeng2", "zeng2 = ze.make_engine(zdrv, zdev, zctx)", gpu=True)
_fixture("zstrm", "zstrm = ze.make_stream(zeng, zlist)", gpu=True)
_fixture(
    "zsrc",
    {
        "*": "zsrc = ze.make_memory(md, zeng, a)",
        "emulated-ze": "zsrc_usm = lz.shared((4, 4)); zsrc_usm.array[:] = a; zsrc = ze.make_memory(md, zeng, zsrc_usm.array)",
    },
    gpu=True,
)
_fixture(
    "zdst",
    {
        "*": "zdst = ze.make_memory(md_t, zeng, out.T)",
        "emulated-ze": "zout = lz.shared((4, 4)); zdst = ze.make_memory(md_t, zeng, zout.array.T)",
    },
    gpu=True,
)
_fixture("zprim", "zprim = dnnl.reorder(md, md_t, zeng)", gpu=True)
_fixture(
    "reorder_big_ze",
    '''
def reorder_big_ze(engine, stream):
    """reorder_big on a Level Zero engine over shared USM: only the output survives."""
    source = lz.shared((4096, 4096)); source.array[:] = big
    result = lz.shared((4096, 4096))
    s = ze.make_memory(big_md, engine, source.array)
    d = ze.make_memory(big_md_t, engine, result.array.T)
    dnnl.reorder(big_md, big_md_t, engine).execute(stream, {dnnl.ARG_FROM: s, dnnl.ARG_TO: d})
    return result
''',
)
_fixture("zsrc_small", "zsrc_small = ze.make_memory(md_small, zeng)", gpu=True)
_fixture("zsrc_closed", "zsrc_closed = ze.make_memory(md, zeng); zsrc_closed.close()", gpu=True)
_fixture("zsrc_none", "zsrc_none = ze.make_memory(md, zeng, dnnl.MEMORY_NONE)", gpu=True)
_fixture("zsrc_eng2", "zsrc_eng2 = ze.make_memory(md, zeng2)", gpu=True)

# --- SYCL (dpctl) on the CPU device ----------------------------------------------------

_fixture("dpctl", "from dnnl_interop.testing import sycl_devices\nsycl_devices.enable()\nimport dpctl, dpctl.memory")
_fixture("sq", 'sq = dpctl.SyclQueue("opencl:cpu", property="in_order")')
_fixture("sq_ooo", "sq_ooo = dpctl.SyclQueue(sq.sycl_context, sq.sycl_device)")
_fixture("seng", "seng = sycl.make_engine(sq.sycl_device, sq.sycl_context)")
_fixture("sstrm", "sstrm = sycl.make_stream(seng, sq)")
_fixture(
    "Usm",
    '''
class Usm:
    """Shared USM of sq with dpctl's USM array interface (what dpnp arrays give)."""

    def __init__(self, shape=(4, 4), data=None, strides=None, typestr="<f4", pointer=None):
        self.usm = dpctl.memory.MemoryUSMShared(64 if shape == (4, 4) else 4 * int(np.prod(shape)), queue=sq)
        self.host = np.frombuffer(self.usm, np.float32, count=int(np.prod(shape))).reshape(shape)
        self.host[...] = 0 if data is None else data
        self.shape, self.strides, self.typestr = shape, strides, typestr
        self.pointer = pointer or self.usm.__sycl_usm_array_interface__["data"][0]

    @property
    def __sycl_usm_array_interface__(self):
        return {"data": (self.pointer, False), "shape": self.shape, "strides": self.strides,
                "typestr": self.typestr, "offset": 0, "version": 1, "syclobj": sq}
''',
)
_fixture("ssrc", "ssrc = dnnl.Memory.from_array(Usm(data=a), seng)")
_fixture("sdst", "sdst_array = Usm()\nsdst = sycl.make_memory(md, seng, sycl.MemoryKind.USM, sdst_array)")
_fixture("sprim", "sprim = dnnl.reorder(md, md, seng)")

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
        pending += [word for word in _WORD.findall(_all_code(name)) if word in FIXTURES]
    return [name for name in FIXTURES if name in wanted]


def needs_gpu(code: str) -> bool:
    """Whether ``code`` names a fixture only a GPU library can make."""
    return any(FIXTURES[name][1] for name in needed(code))


def prelude(code: str, library: str) -> str:
    """Everything that runs before a snippet: imports, binding, fixtures."""
    return HEADER + BIND[library] + "".join(_code(name, library) for name in needed(code))


def script(code: str, library: str) -> str:
    """The whole program of a case (its repro)."""
    return prelude(code, library) + "# --- the case ---\n" + code.strip() + "\n"
