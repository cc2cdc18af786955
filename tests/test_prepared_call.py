"""``dnnl_interop_run_prepared``: an execute then its stream's wait from one struct
prepared once (``csrc/prepared.c``), as ``dnnl_interop_execute_and_wait`` does from
six arguments (real oneDNN, CPU engine)."""

from __future__ import annotations

import numpy as np

import dnnl_interop as dnnl


def test_a_prepared_call_executes_then_waits_only_after_a_successful_execute():
    from dnnl_interop._ffi import ffi, lib

    calls = []
    statuses = {"execute": 0, "wait": 0}
    args = ffi.new("dnnl_exec_arg_t[2]")

    @ffi.callback("dnnl_interop_execute_fn")
    def execute(primitive, stream, nargs, c_args):
        calls.append(("execute", primitive, stream, nargs, c_args))
        return statuses["execute"]

    @ffi.callback("dnnl_interop_wait_fn")
    def wait(stream):
        calls.append(("wait", stream))
        return statuses["wait"]

    p, s = ffi.cast("const_dnnl_primitive_t", 0x10), ffi.cast("dnnl_stream_t", 0x20)
    call = ffi.new("dnnl_interop_prepared_t *", {"execute": execute, "wait": wait, "primitive": p, "stream": s,
                                                  "nargs": 2, "args": args})
    assert lib.dnnl_interop_run_prepared(call) == 0
    assert calls == [("execute", p, s, 2, args), ("wait", s)]
    calls.clear()
    statuses["wait"] = dnnl.Status.RUNTIME_ERROR
    assert lib.dnnl_interop_run_prepared(call) == -dnnl.Status.RUNTIME_ERROR
    assert [c[0] for c in calls] == ["execute", "wait"]
    calls.clear()
    statuses["execute"] = dnnl.Status.INVALID_ARGUMENTS
    assert lib.dnnl_interop_run_prepared(call) == dnnl.Status.INVALID_ARGUMENTS
    assert [c[0] for c in calls] == ["execute"]  # a refused execute is not waited for


def test_a_prepared_call_of_onednn_own_functions_runs_the_work_and_waits(engine, stream):
    from dnnl_interop._ffi import ffi, lib

    src_desc, dst_desc = dnnl.MemoryDesc((2, 3), "f32", "ab"), dnnl.MemoryDesc((2, 3), "f32", "ba")
    primitive = dnnl.reorder(src_desc, dst_desc, engine)
    a, out = np.arange(6, dtype=np.float32).reshape(2, 3), np.zeros((3, 2), np.float32)
    src, dst = dnnl.Memory(src_desc, engine, a), dnnl.Memory(dst_desc, engine, out.T)
    args = ffi.new("dnnl_exec_arg_t[]", [(dnnl.ARG_FROM, src.handle), (dnnl.ARG_TO, dst.handle)])
    # NULL functions: oneDNN's own, through the function table.
    call = ffi.new("dnnl_interop_prepared_t *", {"primitive": primitive.handle, "stream": stream.handle,
                                                  "nargs": 2, "args": args})
    for i in range(3):
        a[...] = i + 1
        assert lib.dnnl_interop_run_prepared(call) == 0
        assert (out == a.T).all()  # waited for: the result is there when the call returns
    call.primitive = ffi.NULL  # oneDNN refuses a NULL primitive, and nothing is waited for
    assert lib.dnnl_interop_run_prepared(call) == dnnl.Status.INVALID_ARGUMENTS
