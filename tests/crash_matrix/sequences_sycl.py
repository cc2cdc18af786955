"""``dnnl_interop.sycl`` under misuse, on real oneDNN and dpctl, on the CPU device.

Bad SYCL objects (None, NULL, another kind, a str), arrays that are not the
descriptor's, USM that SYCL does not know in the engine's context, objects
dropped while oneDNN uses them (the array, the queue, the engine), work from
several threads on one stream. Each case must succeed (checking the data) or
raise a clean error naming the argument.
"""

from __future__ import annotations

from .model import Case, Either, Ok, Raises

OK = Ok()


def _sycl(name: str, code: str, expect=OK, **kw) -> Case:
    return Case(name, "sycl/cpu", code, expect, library="real", timeout=40.0, **kw)


def cases() -> list[Case]:
    bad_objects = [("None", "None", "TypeError"), ("a str", "'opencl:cpu'", "TypeError"),
                   ("NULL", "0", "ValueError"), ("a float", "1.5", "TypeError"), ("a list", "[1]", "TypeError"),
                   ("a negative int", "-8", "ValueError"), ("the dnnl module", "dnnl", "TypeError")]
    out = [_sycl(f"sycl.make_engine with {what} for the device",
                 f"sycl.make_engine({value}, sq.sycl_context)", Raises(error, "device"))
           for what, value, error in bad_objects]
    out += [_sycl(f"sycl.make_engine with {what} for the context",
                  f"sycl.make_engine(sq.sycl_device, {value})", Raises(error, "context"))
            for what, value, error in bad_objects]
    out += [_sycl(f"sycl.make_stream with {what} for the queue", f"sycl.make_stream(seng, {value})",
                  Raises(error, "queue"))
            for what, value, error in bad_objects]
    out += [
        _sycl("sycl.make_engine with device and context swapped",
              "sycl.make_engine(sq.sycl_context, sq.sycl_device)", Raises("TypeError", "device")),
        _sycl("sycl.make_engine with a queue for the device",
              "sycl.make_engine(sq, sq.sycl_context)", Raises("TypeError", "device")),
        _sycl("sycl.make_stream with a device for the queue", "sycl.make_stream(seng, sq.sycl_device)",
              Raises("TypeError", "queue")),
        _sycl("sycl.make_stream on a closed engine", "sycl.make_stream(closed_eng, sq)",
              Raises("ClosedObjectError", "engine")),
        _sycl("sycl.make_stream with a stream for the engine", "sycl.make_stream(sstrm, sq)",
              Raises("TypeError", "engine")),
        _sycl("sycl.get_device of a closed engine",
              "e = sycl.make_engine(sq.sycl_device, sq.sycl_context)\ne.close()\nsycl.get_device(e)",
              Raises("ClosedObjectError", "engine")),
        _sycl("sycl.get_queue of a closed stream",
              "s = sycl.make_stream(seng, sq)\ns.close()\nsycl.get_queue(s)", Raises("ClosedObjectError", "stream")),
        _sycl("sycl.get_context of a memory", "sycl.get_context(ssrc)", Raises("TypeError", "engine")),
        _sycl("sycl.get_memory_kind of an engine", "sycl.get_memory_kind(seng)", Raises("TypeError", "memory")),
        _sycl("sycl.make_memory with a kind of another runtime",
              "sycl.make_memory(md, seng, ocl.MemoryKind.BUFFER, Usm())",
              Either(Raises("TypeError", "handle"), Raises("TypeError", "kind"))),
        _sycl("sycl.make_memory with kind 7", "sycl.make_memory(md, seng, 7)", Raises("TypeError", "kind")),
        _sycl("sycl.make_memory over an array of another shape",
              "sycl.make_memory(md, seng, sycl.MemoryKind.USM, Usm(shape=(2, 8)))", Raises("ValueError", "handle")),
        _sycl("sycl.make_memory over an array of another data type",
              "sycl.make_memory(md, seng, sycl.MemoryKind.USM, Usm(typestr='<i4'))", Raises("ValueError", "handle")),
        _sycl("sycl.make_memory over an array of other strides",
              "sycl.make_memory(md, seng, sycl.MemoryKind.USM, Usm(strides=(1, 4)))", Raises("ValueError", "handle")),
        _sycl("sycl.make_memory over an interface of a bad form",
              "class Bad:\n    __sycl_usm_array_interface__ = {'shape': 'x'}\n"
              "sycl.make_memory(md, seng, sycl.MemoryKind.USM, Bad())", Raises("TypeError", "handle")),
        _sycl("Memory.from_array of an interface whose data is host memory (another context's, for SYCL)",
              "host = np.zeros(16, np.float32)\ndnnl.Memory.from_array(Usm(pointer=host.ctypes.data), seng)",
              Raises("ValueError", "array")),
        _sycl("sycl.make_memory over a host address given as an int",
              "host = np.zeros(16, np.float32)\nsycl.make_memory(md, seng, sycl.MemoryKind.USM, host.ctypes.data)",
              Raises("ValueError", "handle")),
        _sycl("sycl.make_memory of BUFFER kind over a numpy array",
              "sycl.make_memory(md, seng, sycl.MemoryKind.BUFFER, a)", Raises("TypeError", "handle")),
        _sycl("sycl.set_buffer of USM memory", "sycl.set_buffer(ssrc, 0x1000)", Raises("ValueError", "memory")),
        _sycl("sycl.set_buffer with NULL", "m = sycl.make_memory(md, seng, sycl.MemoryKind.BUFFER)\n"
              "sycl.set_buffer(m, 0)", Raises("ValueError", "buffer")),
        _sycl("set_data_handle of SYCL buffer memory",
              "m = sycl.make_memory(md, seng, sycl.MemoryKind.BUFFER)\nm.set_data_handle(Usm().pointer)",
              Raises("ValueError", "buffer")),
        _sycl("sycl.execute with deps of a str", "sycl.execute(sprim, sstrm, {dnnl.ARG_FROM: ssrc, dnnl.ARG_TO: sdst}, "
              "deps='e')", Raises("TypeError", "deps")),
        _sycl("sycl.execute with a queue in deps", "sycl.execute(sprim, sstrm, {dnnl.ARG_FROM: ssrc, dnnl.ARG_TO: sdst}, "
              "deps=[sq])", Raises("TypeError", "deps")),
        _sycl("sycl.execute with NULL in deps", "sycl.execute(sprim, sstrm, {dnnl.ARG_FROM: ssrc, dnnl.ARG_TO: sdst}, "
              "deps=[0])", Raises("ValueError", "deps")),
        _sycl("sycl.execute with a closed memory",
              "ssrc.close()\nsycl.execute(sprim, sstrm, {dnnl.ARG_FROM: ssrc, dnnl.ARG_TO: sdst})",
              Raises("ClosedObjectError", "args")),
        _sycl("sycl.execute on a closed stream",
              "sstrm.close()\nsycl.execute(sprim, sstrm, {dnnl.ARG_FROM: ssrc, dnnl.ARG_TO: sdst})",
              Raises("ClosedObjectError", "stream")),
        _sycl("sycl.execute with a memory too small",
              "small = sycl.make_memory(md_small, seng)\n"
              "sycl.execute(sprim, sstrm, {dnnl.ARG_FROM: ssrc, dnnl.ARG_TO: small})", Raises("ValueError", "args")),
        _sycl("sycl.execute on the CPU engine's own stream (a SYCL engine too)",
              "sycl.execute(sprim, strm, {dnnl.ARG_FROM: ssrc, dnnl.ARG_TO: sdst})",
              Either(OK, Raises("InvalidArgumentsError", "stream"), Raises("ValueError", "args"))),
        # Lifetimes: what the user drops stays alive while oneDNN uses it.
        _sycl("the array of a memory dropped before the reorder runs",
              "x = Usm(data=a)\nm = dnnl.Memory.from_array(x, seng)\ndel x\ngc.collect()\n"
              "sycl.execute(sprim, sstrm, {dnnl.ARG_FROM: m, dnnl.ARG_TO: sdst}).wait()\n"
              "assert np.array_equal(sdst_array.host, a)"),
        _sycl("the queue dropped while its stream runs work",
              "q = dpctl.SyclQueue(sq.sycl_context, sq.sycl_device, property='in_order')\n"
              "s = sycl.make_stream(seng, q)\ndel q\ngc.collect()\n"
              "sycl.execute(sprim, s, {dnnl.ARG_FROM: ssrc, dnnl.ARG_TO: sdst})\ns.wait()\n"
              "assert np.array_equal(sdst_array.host, a)"),
        _sycl("the engine closed while its memories and stream live",
              "e = sycl.make_engine(sq.sycl_device, sq.sycl_context)\ns = sycl.make_stream(e, sq)\n"
              "m = dnnl.Memory.from_array(Usm(data=a), e)\nd = dnnl.Memory.from_array(Usm(), e)\n"
              "p = dnnl.reorder(md, md, e)\ne.close()\n"
              "sycl.execute(p, s, {dnnl.ARG_FROM: m, dnnl.ARG_TO: d})",
              Either(OK, Raises("ClosedObjectError", "engine"))),
        _sycl("memories and arrays dropped right after execute",
              "x, y = Usm(data=a), Usm()\nhost = y.host\n"
              "sycl.execute(sprim, sstrm, {dnnl.ARG_FROM: dnnl.Memory.from_array(x, seng), "
              "dnnl.ARG_TO: dnnl.Memory.from_array(y, seng)})\ndel x, y\ngc.collect()\nsstrm.wait()\n"
              "assert np.array_equal(host, a)"),
        _sycl("the event of an execute outlives its stream and engine",
              "e = sycl.make_engine(sq.sycl_device, sq.sycl_context)\ns = sycl.make_stream(e, sq)\n"
              "m, d = dnnl.Memory.from_array(Usm(data=a), e), dnnl.Memory.from_array(Usm(), e)\n"
              "ev = sycl.execute(dnnl.reorder(md, md, e), s, {dnnl.ARG_FROM: m, dnnl.ARG_TO: d})\n"
              "s.close(); e.close(); del m, d, s, e\ngc.collect()\nev.wait()"),
        _sycl("an event from deps dropped after execute on an out-of-order queue",
              "s = sycl.make_stream(seng, sq_ooo)\nev = sq_ooo.submit_barrier()\n"
              "out_ev = sycl.execute(sprim, s, {dnnl.ARG_FROM: ssrc, dnnl.ARG_TO: sdst}, deps=[ev, ev.addressof_ref()])\n"
              "del ev\ngc.collect()\nout_ev.wait()\nassert np.array_equal(sdst_array.host, a)"),
        # Threads on one SYCL stream.
        _sycl("four threads executing on one SYCL stream",
              "errors = []\n"
              "def work():\n    try:\n        for _ in range(20):\n"
              "            sycl.execute(sprim, sstrm, {dnnl.ARG_FROM: ssrc, dnnl.ARG_TO: sdst})\n"
              "    except Exception as e:\n        errors.append(e)\n"
              "threads = [threading.Thread(target=work) for _ in range(4)]\n"
              "[t.start() for t in threads]; [t.join() for t in threads]\nsstrm.wait()\n"
              "assert not errors, errors\nassert np.array_equal(sdst_array.host, a)"),
        _sycl("a memory closed from another thread while executes run",
              "stop = threading.Event()\nerrors = []\n"
              "def work():\n    while not stop.is_set():\n        try:\n"
              "            sycl.execute(sprim, sstrm, {dnnl.ARG_FROM: ssrc, dnnl.ARG_TO: sdst})\n"
              "        except dnnl.ClosedObjectError:\n            return\n"
              "        except Exception as e:\n            errors.append(e); return\n"
              "t = threading.Thread(target=work)\nt.start()\ntime.sleep(0.05)\nssrc.close()\nstop.set()\nt.join()\n"
              "sstrm.wait()\nassert not errors, errors"),
    ]
    return out
