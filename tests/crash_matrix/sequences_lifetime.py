"""Misuse sequences about lifetimes: in-flight work, mutation of queued work, exit.

The issue's own example comes first: execute in a function, wait outside,
with 4096x4096 arrays so the work is still running when the function's
objects are dropped. Every sequence here must be made safe by the binding,
so each expects success, and checks the data where there is data to check.
A sequence that lets the binding either wait or refuse (closing an object
in use) accepts both, and still checks the data.
"""

from __future__ import annotations

from .model import TYPE_OR_VALUE, Case, Either, Ok, Raises

TRANSPOSED = "assert np.array_equal(result, big.T), 'the transpose is wrong'"
# Closing (or re-pointing) an object in use may wait for the work or be
# refused with a clear error; both are correct, a crash or wrong data is not.
REFUSAL = "(RuntimeError, ValueError)"
OK = Ok()


def _cpu(name: str, code: str, expect=OK, **kw) -> Case:
    return Case(name, "lifetime/cpu", code, expect, library="real", **kw)


def _gpu(name: str, code: str, expect=OK, **kw) -> Case:
    return Case(name, "lifetime/gpu", code, expect, library="emulated", **kw)


def _close_after_execute(target: str, ready: str) -> str:
    """Execute the big transpose, close ``target`` at once, then wait and check."""
    return f"""
x = big.copy(); result = np.zeros_like(x)
s = dnnl.Memory(big_md, eng, x); d = dnnl.Memory(big_md_t, eng, result.T)
p = dnnl.reorder(big_md, big_md_t, eng)
p.execute(strm, {{dnnl.ARG_FROM: s, dnnl.ARG_TO: d}})
try:
    {target}.close()
except {REFUSAL} as refusal:
    assert str(refusal), "a refusal must say why"
{ready}
{TRANSPOSED}
"""


def cpu_cases() -> list[Case]:
    cases = [
        _cpu("execute in a function, wait outside (the issue's example)",
             f"result = reorder_big(eng, strm)\nstrm.wait()\n{TRANSPOSED}"),
        _cpu("execute in a function, collect garbage, then wait",
             f"result = reorder_big(eng, strm)\ngc.collect()\nstrm.wait()\n{TRANSPOSED}"),
        _cpu("execute in a function three times, wait once",
             "results = [reorder_big(eng, strm) for _ in range(3)]\ngc.collect()\nstrm.wait()\n"
             "assert all(np.array_equal(r, big.T) for r in results)"),
        _cpu("README pattern: temporary primitive and memories, wait later",
             "x = big.copy(); result = np.zeros_like(x)\n"
             "dnnl.reorder(big_md, big_md_t, eng).execute(strm, {dnnl.ARG_FROM: dnnl.Memory(big_md, eng, x),"
             " dnnl.ARG_TO: dnnl.Memory(big_md_t, eng, result.T)})\n"
             f"del x\ngc.collect()\nstrm.wait()\n{TRANSPOSED}"),
        _cpu("the input array dropped right after execute",
             "x = big.copy(); result = np.zeros_like(x)\n"
             "prim_big = dnnl.reorder(big_md, big_md_t, eng)\n"
             "prim_big.execute(strm, {dnnl.ARG_FROM: dnnl.Memory(big_md, eng, x), dnnl.ARG_TO: dnnl.Memory(big_md_t, eng, result.T)})\n"
             f"del x; gc.collect()\nfiller = [np.full(4096 * 4096, 7, np.float32) for _ in range(2)]\nstrm.wait()\n{TRANSPOSED}"),
        _cpu("execute in a function and never wait (objects dropped, process goes on)",
             "result = reorder_big(eng, strm)\ngc.collect()\n"
             "filler = [np.full(4096 * 4096, 7, np.float32) for _ in range(4)]\ntime.sleep(0.3)"),
        _cpu("the stream's last reference dropped right after execute",
             "s2 = dnnl.Stream(eng)\nresult = reorder_big(eng, s2)\ndel s2\ngc.collect()\n"
             "time.sleep(0.5)\nstrm.wait()\n" + TRANSPOSED,
             note="dropping the stream must finish its work (or keep it alive until then)"),
        _cpu("engine and stream in a reference cycle with work in flight, then collected",
             "e = dnnl.Engine.cpu(); s = dnnl.Stream(e)\nresult = reorder_big(e, s)\n"
             "cycle = [e, s]; cycle.append(cycle)\ndel e, s, cycle\ngc.collect()\ntime.sleep(0.5)\n"
             "filler = np.full(4096 * 4096, 7, np.float32)"),
        _cpu("engine, stream and memories dropped in engine-first order",
             "e = dnnl.Engine.cpu(); s = dnnl.Stream(e)\nresult = reorder_big(e, s)\n"
             "del e\ngc.collect()\ndel s\ngc.collect()\ntime.sleep(0.3)"),
    ]
    wait = "strm.wait()"
    for target in ("p", "s", "d"):
        what = {"p": "primitive", "s": "source memory", "d": "destination memory"}[target]
        cases.append(_cpu(f"close the {what} right after execute", _close_after_execute(target, wait)))
    cases += [
        _cpu("close the stream right after execute (close must finish the work)",
             _close_after_execute("strm", "pass")),
        _cpu("close the engine right after execute (it closes its streams first)",
             _close_after_execute("eng", "pass")),
        _cpu("with-block on the stream exits with work in flight",
             "x = big.copy(); result = np.zeros_like(x)\n"
             "with dnnl.Stream(eng) as s2:\n"
             "    dnnl.reorder(big_md, big_md_t, eng).execute(s2, {dnnl.ARG_FROM: dnnl.Memory(big_md, eng, x),"
             " dnnl.ARG_TO: dnnl.Memory(big_md_t, eng, result.T)})\n"
             + TRANSPOSED),
        _cpu("set_data_handle(MEMORY_ALLOCATE) then execute",
             "dst.set_data_handle(dnnl.MEMORY_ALLOCATE)\n"
             "prim.execute(strm, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst}); strm.wait()\n"
             "pointer = dst.map_data()\ngot = np.frombuffer(ffi.buffer(pointer, 64), np.float32).reshape(4, 4).copy()\n"
             "dst.unmap_data(pointer)\nassert np.array_equal(got, a.T)",
             Either(Ok(), Raises(TYPE_OR_VALUE, "buffer"))),
        _cpu("set_data_handle(MEMORY_ALLOCATE) then map_data",
             "src.set_data_handle(dnnl.MEMORY_ALLOCATE)\npointer = src.map_data()\n"
             "ffi.buffer(pointer, 64)[:] = bytes(64)\nsrc.unmap_data(pointer)",
             Either(Ok(), Raises(TYPE_OR_VALUE, "buffer"))),
        _cpu("map_data then close without unmap_data",
             "pointer = src.map_data()\nsrc.close()\ngc.collect()"),
        _cpu("unmap_data twice", "pointer = src.map_data()\nsrc.unmap_data(pointer)\nsrc.unmap_data(pointer)",
             Either(Ok(), Raises(TYPE_OR_VALUE, "pointer"))),
        _cpu("map_data on a memory without a buffer",
             "m = dnnl.Memory(md, eng, dnnl.MEMORY_NONE)\npointer = m.map_data()\nm.unmap_data(pointer)",
             Either(Ok(), Raises(TYPE_OR_VALUE, ("buffer", "memory", "Memory")))),
        _cpu("the data array dropped, memory used later",
             "m = dnnl.Memory(md, eng, np.arange(16, dtype=np.float32).reshape(4, 4))\ngc.collect()\n"
             "filler = [np.full(16, 7, np.float32) for _ in range(1000)]\n"
             "prim.execute(strm, {dnnl.ARG_FROM: m, dnnl.ARG_TO: dst}); strm.wait()\nassert np.array_equal(out, a.T)"),
        _cpu("a view's base array dropped, memory used later",
             "base = np.arange(32, dtype=np.float32)\nm = dnnl.Memory(md, eng, base[:16].reshape(4, 4))\n"
             "del base; gc.collect()\nprim.execute(strm, {dnnl.ARG_FROM: m, dnnl.ARG_TO: dst}); strm.wait()\n"
             "assert np.array_equal(out, a.T)"),
    ]
    return cases


def mutation_cases() -> list[Case]:
    head = ("x = big.copy(); result = np.zeros_like(x); other = np.zeros_like(x)\n"
            "s = dnnl.Memory(big_md, eng, x); d = dnnl.Memory(big_md_t, eng, result.T)\n"
            "dnnl.reorder(big_md, big_md_t, eng).execute(strm, {dnnl.ARG_FROM: s, dnnl.ARG_TO: d})\n")
    refuse = f"except {REFUSAL} as refusal:\n    assert str(refusal)\n"
    return [
        Case("set_data_handle on the destination right after execute", "mutation/cpu",
             head + "try:\n    d.set_data_handle(other)\n" + refuse + "strm.wait()\n"
             + TRANSPOSED + "\nassert not other.any(), 'the queued work wrote into the new buffer'",
             Ok(), library="real"),
        Case("set_data_handle on the source right after execute", "mutation/cpu",
             head + "try:\n    s.set_data_handle(other)\n" + refuse + "strm.wait()\n" + TRANSPOSED,
             Ok(), library="real"),
        Case("set_mem_object on the destination right after ocl.execute", "mutation/gpu",
             "x = big.copy(); out_buf = cl.Buffer(gctx, cl.mem_flags.READ_WRITE, big.nbytes)\n"
             "other_big = cl.Buffer(gctx, cl.mem_flags.READ_WRITE, big.nbytes)\n"
             "cl.enqueue_fill_buffer(gqueue, other_big, np.float32(0), 0, big.nbytes).wait()\n"
             "in_buf = cl.Buffer(gctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=x)\n"
             "s = ocl.make_memory(big_md, geng, ocl.MemoryKind.BUFFER, in_buf)\n"
             "d = ocl.make_memory(big_md_t, geng, ocl.MemoryKind.BUFFER, out_buf)\n"
             "ocl.execute(dnnl.reorder(big_md, big_md_t, geng), gstrm, {dnnl.ARG_FROM: s, dnnl.ARG_TO: d})\n"
             "try:\n    ocl.set_mem_object(d, other_big)\n" + refuse + "gstrm.wait()\n"
             "result = read_big(out_buf, gqueue)\n" + TRANSPOSED
             + "\nassert not read_big(other_big, gqueue).any(), 'the queued work wrote into the new buffer'",
             Ok(), library="emulated"),
    ]


def gpu_cases() -> list[Case]:
    check = "result = read_big(out_buf, gqueue)\n" + TRANSPOSED
    return [
        _gpu("ocl: execute in a function, wait outside",
             f"out_buf = reorder_big_gpu(geng, gstrm, gqueue)\ngstrm.wait()\n{check}"),
        _gpu("ocl: execute in a function, collect garbage, then wait",
             f"out_buf = reorder_big_gpu(geng, gstrm, gqueue)\ngc.collect()\ngstrm.wait()\n{check}"),
        _gpu("ocl: out-of-order stream, drop everything but the event, then wait on it",
             "def run():\n"
             "    x = big.copy(); source = cl.Buffer(gctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=x)\n"
             "    result = cl.Buffer(gctx, cl.mem_flags.READ_WRITE, big.nbytes)\n"
             "    s = ocl.make_memory(big_md, geng, ocl.MemoryKind.BUFFER, source)\n"
             "    d = ocl.make_memory(big_md_t, geng, ocl.MemoryKind.BUFFER, result)\n"
             "    event = ocl.execute(dnnl.reorder(big_md, big_md_t, geng), gstrm_ooo, {dnnl.ARG_FROM: s, dnnl.ARG_TO: d})\n"
             "    return event, result\n"
             "event, out_buf = run()\ngc.collect()\nevent.wait()\n" + check),
        # A barrier on a gate holds the plain execute back; the later execute, over empty
        # tensors, enqueues nothing and gives back its dependency, complete at once.
        _gpu("ocl: out-of-order stream, a plain execute from USM held back, a later execute's event completes first",
             "usm = ocl.make_memory(big_md, geng, ocl.MemoryKind.USM)\n"
             "pointer = usm.map_data()\nnp.frombuffer(ffi.buffer(pointer, big.nbytes), np.float32)[:] = big.ravel()\n"
             "usm.unmap_data(pointer)\nout = ocl.make_memory(big_md_t, geng, ocl.MemoryKind.USM)\n"
             "empty_md = dnnl.MemoryDesc((0, 4), 'float32', 'ab'); nothing = dnnl.reorder(empty_md, empty_md, geng)\n"
             "nothing_args = {dnnl.ARG_FROM: ocl.make_memory(empty_md, geng), dnnl.ARG_TO: ocl.make_memory(empty_md, geng)}\n"
             "gate, done = cl.UserEvent(gctx), cl.UserEvent(gctx); done.set_status(cl.command_execution_status.COMPLETE)\n"
             "cl.enqueue_barrier(gqueue_ooo, wait_for=[gate])\n"
             "dnnl.reorder(big_md, big_md_t, geng).execute(gstrm_ooo, {dnnl.ARG_FROM: usm, dnnl.ARG_TO: out})\n"
             "del usm\nocl.execute(nothing, gstrm_ooo, nothing_args, deps=[done])\n"
             "ocl.execute(nothing, gstrm_ooo, nothing_args, deps=[done])\ngc.collect()\n"
             "gate.set_status(cl.command_execution_status.COMPLETE)\ngstrm_ooo.wait()\npointer = out.map_data()\n"
             "result = np.frombuffer(ffi.buffer(pointer, big.nbytes), np.float32).reshape(4096, 4096).copy()\n"
             "out.unmap_data(pointer)\n" + TRANSPOSED),
        _gpu("ocl: the stream dropped right after execute",
             "s2 = ocl.make_stream(geng, gqueue)\nout_buf = reorder_big_gpu(geng, s2, gqueue)\ndel s2\ngc.collect()\n"
             "gqueue.finish()\n" + check),
        _gpu("ocl: close the stream right after execute",
             "out_buf = reorder_big_gpu(geng, gstrm, gqueue)\ngstrm.close()\ngqueue.finish()\n" + check),
        _gpu("ocl: close the engine right after execute",
             "out_buf = reorder_big_gpu(geng, gstrm, gqueue)\ngeng.close()\ngqueue.finish()\n" + check),
        _gpu("ocl: the queue's last Python reference dropped with work in flight",
             "q = cl.CommandQueue(gctx)\ns2 = ocl.make_stream(geng, q)\nout_buf = reorder_big_gpu(geng, s2, q)\n"
             "del q\ngc.collect()\ns2.wait()\n" + check),
        _gpu("ocl: engine and stream in a reference cycle with work in flight, then collected",
             "e = ocl.make_engine(gdev, gctx); s = ocl.make_stream(e, gqueue)\nout_buf = reorder_big_gpu(e, s, gqueue)\n"
             "cycle = [e, s]; cycle.append(cycle)\ndel e, s, cycle\ngc.collect()\ngqueue.finish()\n" + check),
        _gpu("ocl: execute and never wait (objects dropped, process goes on)",
             "out_buf = reorder_big_gpu(geng, gstrm, gqueue)\ndel out_buf\ngc.collect()\ntime.sleep(0.3)"),
    ]


def ze_cases() -> list[Case]:
    """Level Zero: real oneDNN on the emulated Level Zero loader, shared USM."""
    def ze_case(name, code, **kw):
        return Case(name, "lifetime/ze", code, Ok(), library="emulated-ze", **kw)

    check = "result = out_usm.array\n" + TRANSPOSED
    return [
        ze_case("ze: execute in a function, wait outside",
                f"out_usm = reorder_big_ze(zeng, zstrm)\nzstrm.wait()\n{check}"),
        ze_case("ze: execute in a function, collect garbage, then wait",
                f"out_usm = reorder_big_ze(zeng, zstrm)\ngc.collect()\nzstrm.wait()\n{check}"),
        ze_case("ze: close the stream right after execute",
                f"out_usm = reorder_big_ze(zeng, zstrm)\nzstrm.close()\nlz.synchronize()\n{check}"),
        ze_case("ze: close the engine right after execute",
                f"out_usm = reorder_big_ze(zeng, zstrm)\nzeng.close()\nlz.synchronize()\n{check}"),
        ze_case("ze: the stream dropped right after execute",
                "s2 = ze.make_stream(zeng, zlist)\nout_usm = reorder_big_ze(zeng, s2)\ndel s2\ngc.collect()\n"
                f"lz.synchronize()\n{check}"),
        Case("ze: exit with work in flight (no wait)", "exit/ze", "out_usm = reorder_big_ze(zeng, zstrm)",
             Ok(), library="emulated-ze", fresh=True, timeout=30.0),
    ]


def exit_cases() -> list[Case]:
    """Interpreter exit with work in flight: fresh interpreters, a real exit."""
    def exit_case(name, code, library="real"):
        section = "exit/gpu" if library == "emulated" else "exit/cpu"
        return Case(name, section, code, Ok(), library=library, fresh=True, timeout=30.0)

    return [
        exit_case("exit with work in flight, objects dropped in a function (no wait)",
                  "result = reorder_big(eng, strm)"),
        exit_case("exit with work in flight, objects in module globals (no wait)",
                  "x = big.copy(); result = np.zeros_like(x)\n"
                  "s = dnnl.Memory(big_md, eng, x); d = dnnl.Memory(big_md_t, eng, result.T)\n"
                  "p = dnnl.reorder(big_md, big_md_t, eng)\np.execute(strm, {dnnl.ARG_FROM: s, dnnl.ARG_TO: d})"),
        exit_case("exit with work in flight from a daemon thread (executing in a loop)",
                  "def loop():\n    while True:\n        reorder_big(eng, strm)\n"
                  "threading.Thread(target=loop, daemon=True).start()\ntime.sleep(0.5)"),
        exit_case("exit while a daemon thread waits on the stream",
                  "result = reorder_big(eng, strm)\n"
                  "threading.Thread(target=lambda: [strm.wait() for _ in range(1000)], daemon=True).start()"),
        exit_case("exit after a non-daemon thread executed without waiting",
                  "results = []\nt = threading.Thread(target=lambda: results.append(reorder_big(eng, strm)))\nt.start()"),
        exit_case("exit with an engine and its stream in a reference cycle",
                  "e = dnnl.Engine.cpu(); s = dnnl.Stream(e)\ncycle = [e, s]; cycle.append(cycle)\n"
                  "result = reorder_big(e, s)\ndel e, s"),
        exit_case("exit with a stream whose engine is held only by it",
                  "s = dnnl.Stream(dnnl.Engine.cpu())\nresult = reorder_big(s.engine, s)"),
        exit_case("exit with a memory still mapped", "pointer = src.map_data()"),
        exit_case("an atexit handler that uses the binding",
                  "import atexit\natexit.register(lambda: dnnl.Stream(dnnl.Engine.cpu()).wait())\n"
                  "result = reorder_big(eng, strm)"),
        exit_case("ocl: exit with work in flight (no wait)",
                  "out_buf = reorder_big_gpu(geng, gstrm, gqueue)", library="emulated"),
        exit_case("ocl: exit with work in flight from a daemon thread",
                  "def loop():\n    while True:\n        reorder_big_gpu(geng, gstrm, gqueue)\n"
                  "threading.Thread(target=loop, daemon=True).start()\ntime.sleep(1.0)", library="emulated"),
    ]


def cases() -> list[Case]:
    return cpu_cases() + mutation_cases() + gpu_cases() + ze_cases() + exit_cases()
