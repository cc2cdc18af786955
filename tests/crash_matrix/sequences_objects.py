"""Misuse sequences about objects: copies, closed objects and their children,
objects of another engine or runtime, and results that would be silently wrong.
"""

from __future__ import annotations

from .model import CLOSED, TYPE, TYPE_OR_VALUE, VALUE, Case, Either, Ok, Raises

OK = Ok()

# Each owning object, how to make a fresh one, and a use that touches its handle.
CPU_OBJECTS = {
    "Engine": ("dnnl.Engine.cpu()", "{x}.kind"),
    "Stream": ("dnnl.Stream(eng)", "{x}.wait()"),
    "MemoryDesc": ('dnnl.MemoryDesc((4, 4), "float32", "ab")', "{x}.size"),
    "Memory": ("dnnl.Memory(md, eng, np.zeros((4, 4), np.float32))",
               "prim.execute(strm, {{dnnl.ARG_FROM: {x}, dnnl.ARG_TO: dst}}); strm.wait()"),
    "Primitive": ("dnnl.reorder(md, md_t, eng)",
                  "{x}.execute(strm, {{dnnl.ARG_FROM: src, dnnl.ARG_TO: dst}}); strm.wait()"),
}
GPU_OBJECTS = {
    "Engine": ("ocl.make_engine(gdev, gctx)", "ocl.get_device({x})"),
    "Stream": ("ocl.make_stream(geng, gqueue)", "{x}.wait()"),
    "Memory": ("ocl.make_memory(md, geng)",
               "gprim.execute(gstrm, {{dnnl.ARG_FROM: {x}, dnnl.ARG_TO: gdst}}); gstrm.wait()"),
    "Primitive": ("dnnl.reorder(md, md_t, geng)",
                  "{x}.execute(gstrm, {{dnnl.ARG_FROM: gsrc, dnnl.ARG_TO: gdst}}); gstrm.wait()"),
}


def _refused_copy(kind: str):
    return Raises(("TypeError", "PicklingError"), (kind, "copy", "copied", "pickle", "pickled"))


def copy_cases() -> list[Case]:
    """copy, deepcopy and pickle of every owning object: independent, or refused."""
    out = []
    for runtime, objects, library, prefix in (
        ("cpu", CPU_OBJECTS, "real", ""),
        ("gpu", GPU_OBJECTS, "emulated", "ocl: "),
    ):
        # GPU objects cost an emulated engine per case: copy and pickle suffice there.
        ways = (("copy.copy", "copy.copy(x)"), ("copy.deepcopy", "copy.deepcopy(x)"),
                ("pickle round trip", "pickle.loads(pickle.dumps(x))"))
        for kind, (make, use) in objects.items():
            either = Either(Ok(), _refused_copy(kind))
            for how, call in ways if runtime == "cpu" else ways[::2]:
                out.append(Case(
                    f"{prefix}{how} of a {kind}, close the copy, use the original", f"copies/{runtime}",
                    f"x = {make}\nc = {call}\nc.close()\n{use.format(x='x')}\ndel c, x\ngc.collect()",
                    either, library=library,
                ))
                out.append(Case(
                    f"{prefix}{how} of a {kind}, both collected without close", f"copies/{runtime}",
                    f"x = {make}\nc = {call}\n{use.format(x='c')}\ndel c\ngc.collect()\n{use.format(x='x')}\n"
                    "del x\ngc.collect()",
                    either, library=library,
                ))
    out += [
        Case("copy.copy of a stream, then its engine closes", "copies/cpu",
             "e = dnnl.Engine.cpu(); s = dnnl.Stream(e)\nc = copy.copy(s)\ne.close()\nc.wait()",
             Either(Raises(CLOSED, ("Stream", "stream", "Engine", "engine")), _refused_copy("Stream")), library="real"),
        Case("copy.copy of a Level Zero handle value", "copies/ze",
             "h = ze.Driver(0x1000)\nassert copy.copy(h) == h and copy.deepcopy(h) == h\n"
             "assert pickle.loads(pickle.dumps(h)) == h", Ok(), library="none"),
        Case("pickle of an UncheckedPointer", "copies/cpu",
             "p = dnnl.UncheckedPointer(a.ctypes.data)\nq = pickle.loads(pickle.dumps(p))",
             Either(Ok(), _refused_copy("UncheckedPointer")), library="none"),
    ]
    return out


def closed_cases() -> list[Case]:
    """Every method and property of a closed object; children after their parent closed."""
    def closed(name, code, expect, library="real"):
        return Case(name, "closed/cpu" if library == "real" else "closed/gpu", code, expect, library=library)

    def either_closed(*names):
        return Either(Ok(), Raises(CLOSED, names))

    out = [
        closed("closed Engine: kind", "closed_eng.kind", Raises(CLOSED, "Engine")),
        closed("closed Engine: int_ptr", "closed_eng.int_ptr", Raises(CLOSED, "Engine")),
        closed("closed Engine: with block", "with closed_eng:\n    pass", Raises(CLOSED, "Engine")),
        closed("closed Engine: repr and close again", "repr(closed_eng); closed_eng.close()", Ok()),
        closed("closed Stream: wait", "closed_strm.wait()", Raises(CLOSED, "Stream")),
        closed("closed Stream: engine", "closed_strm.engine", either_closed("Stream")),
        closed("closed Stream: with block", "with closed_strm:\n    pass", Raises(CLOSED, "Stream")),
        closed("closed Stream: repr and close again", "repr(closed_strm); closed_strm.close()", Ok()),
        closed("closed MemoryDesc: size", "closed_md.size", Raises(CLOSED, "MemoryDesc")),
        closed("closed MemoryDesc: repr", "repr(closed_md)", Ok()),
        closed("closed MemoryDesc: in a new Memory", "dnnl.Memory(closed_md, eng)", Raises(CLOSED, "desc")),
        closed("closed Memory: data_handle", "closed_mem.data_handle", Raises(CLOSED, "Memory")),
        closed("closed Memory: desc", "closed_mem.desc", either_closed("Memory")),
        closed("closed Memory: engine", "closed_mem.engine", either_closed("Memory")),
        closed("closed Memory: set_data_handle", "closed_mem.set_data_handle(out2)", Raises(CLOSED, "Memory")),
        closed("closed Memory: map_data", "closed_mem.map_data()", Raises(CLOSED, "Memory")),
        closed("closed Memory: unmap_data", "closed_mem.unmap_data(ffi.NULL)", Raises(CLOSED, "Memory")),
        closed("closed Memory: repr", "repr(closed_mem)", Ok()),
        closed("closed Primitive: execute", "closed_prim.execute(strm, exec_args)", Raises(CLOSED, "Primitive")),
        closed("closed Primitive: engine", "closed_prim.engine", either_closed("Primitive")),
        closed("closed Primitive: repr", "repr(closed_prim)", Ok()),
        closed("engine closed: its stream waits", "eng.close()\nstrm.wait()", Raises(CLOSED, ("Stream", "stream"))),
        closed("engine closed: its memory and primitive on its closed stream",
               "m = dnnl.Memory(md, eng, np.zeros((4, 4), np.float32))\np = dnnl.reorder(md, md_t, eng)\n"
               "eng.close()\np.execute(strm, {dnnl.ARG_FROM: m, dnnl.ARG_TO: dst})",
               Raises(CLOSED, ("stream", "Stream", "engine", "Engine"))),
        closed("engine closed: map its memory", "eng.close()\npointer = src.map_data()\nsrc.unmap_data(pointer)",
               Either(Ok(), Raises(CLOSED, ("engine", "Engine", "Memory")))),
        closed("engine closed: new memory on it", "eng.close()\ndnnl.Memory(md, eng)", Raises(CLOSED, "engine")),
        closed("engine closed: new stream on it", "eng.close()\ndnnl.Stream(eng)", Raises(CLOSED, "engine")),
        closed("engine closed: reorder on it", "eng.close()\ndnnl.reorder(md, md_t, eng)", Raises(CLOSED, "engine")),
        closed("descriptor closed: its memory's set_data_handle",
               "md.close()\nsrc.set_data_handle(np.zeros((4, 4), np.float32))",
               Either(Ok(), Raises(CLOSED, ("desc", "MemoryDesc")))),
        closed("descriptor closed: its memory and primitive execute",
               "md.close()\nprim.execute(strm, exec_args); strm.wait()\nassert np.array_equal(out, a.T)",
               Either(Ok(), Raises(CLOSED, ("desc", "MemoryDesc", "args[1]")))),
        closed("descriptor closed: its memory's desc.size", "md.close()\nsrc.desc.size",
               Raises(CLOSED, ("MemoryDesc", "desc"))),
        closed("memory closed: executed again", "prim.execute(strm, exec_args); strm.wait()\nsrc.close()\n"
               "prim.execute(strm, exec_args)", Raises(CLOSED, "args[1]")),
        closed("ocl: engine closed: its memory's mem object", "geng.close()\nocl.get_mem_object(gsrc)",
               Either(Ok(), Raises(CLOSED, ("engine", "Engine", "memory"))), library="emulated"),
        closed("ocl: engine closed: its stream's queue", "geng.close()\nocl.get_command_queue(gstrm)",
               Raises(CLOSED, ("stream", "Stream")), library="emulated"),
        closed("ocl: engine closed: execute its primitive on a new engine's stream",
               "p = gprim\ngeng.close()\ne2 = ocl.make_engine(gdev, gctx)\n"
               "p.execute(ocl.make_stream(e2, gqueue), {dnnl.ARG_FROM: gsrc, dnnl.ARG_TO: gdst})",
               Raises(("ValueError", "RuntimeError"), ("stream", "engine", "Engine", "primitive", "args[1]")),
               library="emulated"),
        closed("ocl: memory closed, then set_mem_object", "gsrc.close()\nocl.set_mem_object(gsrc, gbuf2)",
               Raises(CLOSED, ("memory", "Memory")), library="emulated"),
        closed("ocl: memory closed, then get_memory_kind", "gsrc.close()\nocl.get_memory_kind(gsrc)",
               Raises(CLOSED, ("memory", "Memory")), library="emulated"),
    ]
    return out


def mismatch_cases() -> list[Case]:
    """Objects of another engine, context or runtime where one is expected."""
    def cpu(name, code, expect):
        return Case(name, "mismatch/cpu", code, expect, library="real")

    def gpu(name, code, expect, library="emulated"):
        section = "mismatch/ze" if "ze" in library or name.startswith("ze:") else "mismatch/gpu"
        return Case(name, section, code, expect, library=library)

    def refused(*names):
        return Raises(("ValueError", "TypeError", "RuntimeError", "NotImplementedError"), names)

    return [
        cpu("ocl.get_device of a CPU engine", "ocl.get_device(eng)", refused("engine", "dnnl_ocl_interop_get_device")),
        cpu("ocl.get_context of a CPU engine", "ocl.get_context(eng)",
            refused("engine", "dnnl_ocl_interop_engine_get_context")),
        cpu("ocl.get_engine_cache_blob of a CPU engine", "ocl.get_engine_cache_blob(eng)",
            refused("engine", "dnnl_ocl_interop_engine_get_cache_blob")),
        cpu("ocl.get_command_queue of a CPU stream", "ocl.get_command_queue(strm)",
            refused("stream", "dnnl_ocl_interop_stream_get_command_queue")),
        cpu("ocl.get_mem_object of a CPU memory", "b = ocl.get_mem_object(src)\nassert b is None, b",
            Either(Ok(), refused("memory", "dnnl_ocl_interop_memory_get_mem_object",
                                 "dnnl_ocl_interop_memory_get_memory_kind"))),
        cpu("ocl.get_memory_kind of a CPU memory", "ocl.get_memory_kind(src)",
            Either(Ok(), refused("memory", "dnnl_ocl_interop_memory_get_memory_kind"))),
        cpu("ocl.set_mem_object on a CPU memory", "ocl.set_mem_object(src, pocl_buf)\n"
            "prim.execute(strm, exec_args); strm.wait()",
            refused("memory", "buffer", "dnnl_ocl_interop_memory_set_mem_object")),
        cpu("ocl.make_memory on a CPU engine", "ocl.make_memory(md, eng)",
            refused("engine", "dnnl_ocl_interop_memory_create")),
        cpu("ocl.make_stream on a CPU engine", "ocl.make_stream(eng, pocl_queue)",
            refused("engine", "queue", "dnnl_ocl_interop_stream_create")),
        cpu("ocl.execute on a CPU stream", "ocl.execute(prim, strm, exec_args)",
            refused("stream", "dnnl_ocl_interop_primitive_execute")),
        cpu("ocl.make_engine on a device outside the context", "ocl.make_engine(intel_dev, pocl_ctx)",
            refused("device", "context", "dnnl_ocl_interop_engine_create")),
        cpu("ze.get_list of a CPU stream", "ze.get_list(strm)", refused("stream", "dnnl_ze_interop_stream_get_list")),
        cpu("ze.get_driver of a CPU engine", "ze.get_driver(eng)", refused("engine", "dnnl_ze_interop_engine_get_driver")),
        cpu("ze.make_memory on a CPU engine", "ze.make_memory(md, eng, a)",
            refused("engine", "dnnl_ze_interop_memory_create")),
        cpu("ze.make_stream on a CPU engine", "ze.make_stream(eng, ze.CommandList(0x4000))",
            refused("engine", "dnnl_ze_interop_stream_create")),
        cpu("ze.execute on a CPU stream", "ze.execute(prim, strm, exec_args)",
            refused("stream", "dnnl_ze_interop_primitive_execute")),
        cpu("a primitive executed on a stream of another engine object",
            "prim.execute(strm2, exec_args); strm2.wait()\nassert np.array_equal(out, a.T)",
            Either(Ok(), refused("stream", "dnnl_primitive_execute"))),
        gpu("ocl: a stream on a queue of another context", "ocl.make_stream(geng, other_queue)",
            refused("queue", "dnnl_ocl_interop_stream_create")),
        gpu("ocl: memory over a buffer of another context",
            "m = ocl.make_memory(md, geng, ocl.MemoryKind.BUFFER, other_buf)\n"
            "gprim.execute(gstrm, {dnnl.ARG_FROM: m, dnnl.ARG_TO: gdst}); gstrm.wait()",
            refused("handle", "dnnl_ocl_interop_memory_create", "args[1]")),
        gpu("ocl: set_mem_object with a buffer of another context",
            "ocl.set_mem_object(gsrc, other_buf)\ngprim.execute(gstrm, {dnnl.ARG_FROM: gsrc, dnnl.ARG_TO: gdst}); gstrm.wait()",
            refused("buffer", "dnnl_ocl_interop_memory_set_mem_object", "args[1]")),
        gpu("ocl: memory of another engine in execute",
            "gprim.execute(gstrm, {dnnl.ARG_FROM: gsrc_other, dnnl.ARG_TO: gdst}); gstrm.wait()",
            refused("args[1]", "dnnl_primitive_execute")),
        gpu("ocl: a primitive executed on a stream of another engine",
            "gprim.execute(gstrm_other, {dnnl.ARG_FROM: gsrc, dnnl.ARG_TO: gdst}); gstrm_other.wait()",
            refused("stream", "dnnl_primitive_execute")),
        gpu("ocl: a dependency event of another context",
            "ocl.execute(gprim, gstrm, {dnnl.ARG_FROM: gsrc, dnnl.ARG_TO: gdst}, deps=[other_event]); gstrm.wait()",
            refused("deps", "dnnl_ocl_interop_primitive_execute")),
        gpu("ocl: a host-memory Memory in a GPU execute (stand-in)",
            "gprim.execute(gstrm, {dnnl.ARG_FROM: src, dnnl.ARG_TO: gdst}); gstrm.wait()",
            refused("args[1]", "dnnl_primitive_execute"), library="standin"),
        gpu("ocl: a host array as memory on the GPU engine", "m = dnnl.Memory(md, geng, a)\n"
            "gprim.execute(gstrm, {dnnl.ARG_FROM: m, dnnl.ARG_TO: gdst}); gstrm.wait()",
            refused("buffer", "engine", "dnnl_memory_create")),
        gpu("ocl: GPU memory in a CPU execute (stand-in)",
            "prim.execute(strm, {dnnl.ARG_FROM: gsrc, dnnl.ARG_TO: dst}); strm.wait()",
            refused("args[1]", "dnnl_primitive_execute"), library="standin"),
        gpu("ocl: a GPU primitive on a CPU stream (stand-in)",
            "gprim.execute(strm, {dnnl.ARG_FROM: gsrc, dnnl.ARG_TO: gdst}); strm.wait()",
            refused("stream", "dnnl_primitive_execute"), library="standin"),
        gpu("ocl: reorder from a CPU engine to a GPU engine (stand-in)",
            "p = dnnl.reorder(md, md_t, eng, geng)\np.execute(strm, {dnnl.ARG_FROM: src, dnnl.ARG_TO: gdst}); strm.wait()",
            Either(Ok(), refused("engine", "dst_engine", "dnnl_reorder_primitive_desc_create", "args[17]")),
            library="standin"),
        gpu("ze: CPU memory in a Level Zero execute (stand-in)",
            "zprim.execute(zstrm, {dnnl.ARG_FROM: src, dnnl.ARG_TO: zdst}); zstrm.wait()",
            refused("args[1]", "dnnl_primitive_execute"), library="standin"),
        gpu("ze: a Level Zero event in ocl.execute (stand-in)",
            "ocl.execute(gprim, gstrm, {dnnl.ARG_FROM: gsrc, dnnl.ARG_TO: gdst}, deps=[zevent])",
            Raises(TYPE, "deps"), library="standin"),
        gpu("ze: an OpenCL stream in ze.execute (stand-in)",
            "ze.execute(gprim, gstrm, {dnnl.ARG_FROM: gsrc, dnnl.ARG_TO: gdst})",
            refused("stream", "dnnl_ze_interop_primitive_execute"), library="standin"),
        gpu("ze: ze.make_memory of a host array on a real Level Zero engine",
            "m = ze.make_memory(md, zeng, lz.shared((4, 4)).array)\n"
            "zprim.execute(zstrm, {dnnl.ARG_FROM: m, dnnl.ARG_TO: zdst}); zstrm.wait()", Ok(), library="emulated-ze"),
        gpu("ze: execute on the emulated Level Zero engine, data checked",
            "zprim.execute(zstrm, {dnnl.ARG_FROM: zsrc, dnnl.ARG_TO: zdst}); zstrm.wait()\n"
            "lz.synchronize()\nassert np.array_equal(zout.array, a.T)", Ok(), library="emulated-ze"),
    ]


def silent_cases() -> list[Case]:
    """What the issue found silently wrong, each checked for the right answer."""
    def case(name, code, expect=OK, library="real"):
        return Case(name, "silent/cpu", code, expect, library=library)

    return [
        case("has_function of a missing name is False", "assert dnnl.has_function('no_such_function') is False"),
        case("has_function of an empty name is False", "assert dnnl.has_function('') is False"),
        case("has_function of an exported function is True", "assert dnnl.has_function('dnnl_engine_create') is True"),
        case("has_function of an unprefixed name is False", "assert dnnl.has_function('engine_create') is False"),
        case("fractional dims are refused", 'dnnl.MemoryDesc((2.7, 3.9), "float32", "ab")', Raises(TYPE, "shape")),
        case("string dims are refused", 'dnnl.MemoryDesc(("2", "3"), "float32", "ab")', Raises(TYPE, "shape")),
        case("bool dims are refused", 'dnnl.MemoryDesc((True, True), "float32", "ab")', Raises(TYPE, "shape")),
        case("a stream constructed twice leaks nothing",
             "from dnnl_interop import _owned\nbefore = _owned.live_objects()\n"
             "s = dnnl.Stream(eng)\ntry:\n    s.__init__(eng)\nexcept (TypeError, RuntimeError, ValueError):\n    pass\n"
             "s.close()\ngc.collect()\nassert _owned.live_objects() == before, 'a handle leaked'"),
        case("a memory descriptor constructed twice leaks nothing",
             "from dnnl_interop import _owned\nbefore = _owned.live_objects()\n"
             'd = dnnl.MemoryDesc((4, 4), "float32", "ab")\ntry:\n    d.__init__((2, 2), "float32", "ab")\n'
             "except (TypeError, RuntimeError, ValueError):\n    pass\nd.close()\ngc.collect()\n"
             "assert _owned.live_objects() == before, 'a handle leaked'"),
        case("an engine constructed twice leaks nothing",
             "from dnnl_interop import _owned\nbefore = _owned.live_objects()\n"
             "e = dnnl.Engine.cpu()\ntry:\n    e.__init__()\nexcept (TypeError, RuntimeError, ValueError):\n    pass\n"
             "e.close()\ngc.collect()\nassert _owned.live_objects() == before, 'a handle leaked'"),
        case("an object made with __new__ only behaves as closed", "e = dnnl.Engine.__new__(dnnl.Engine)\ne.kind",
             Raises(("ValueError", "TypeError"), ("Engine", "closed"))),
        case("an object made with __new__ only: repr and close", "e = dnnl.Engine.__new__(dnnl.Engine)\nrepr(e); e.close()"),
        case("a memory made with __new__ only, used in execute",
             "m = dnnl.Memory.__new__(dnnl.Memory)\nprim.execute(strm, {dnnl.ARG_FROM: m, dnnl.ARG_TO: dst})",
             Raises(("ValueError", "TypeError"), ("args[1]",))),
        case("a 1 TiB descriptor: allocation is refused cleanly",
             'd = dnnl.MemoryDesc((2**19, 2**19), "float32", "ab")\ndnnl.Memory(d, eng)',
             Raises(("MemoryError", "ValueError"), ("dnnl_memory_create", "desc", "buffer", "memory"))),
        case("a descriptor whose size overflows", 'dnnl.MemoryDesc((2**31, 2**31, 2**31), "float32", "abc").size',
             Raises(("ValueError", "MemoryError", "OverflowError"), ("shape", "dnnl_memory_desc_create_with_tag"))),
        case("format tag 'any' as a memory", 'd = dnnl.MemoryDesc((4, 4), "float32", "any")\ndnnl.Memory(d, eng, a)',
             Raises(TYPE_OR_VALUE, ("desc", "tag", "any", "dnnl_memory_create"))),
        case("get_count of an engine kind answers an int", "n = dnnl.Engine.get_count(dnnl.EngineKind.GPU)\n"
             "assert isinstance(n, int) and n >= 0"),
        case("version is the loaded library's", "from dnnl_interop._target import TARGET_MAJOR_MINOR\n"
             "v = dnnl.version()\nassert (v.major, v.minor) == TARGET_MAJOR_MINOR, v"),
        case("set_verbose(2) prints and then 0 silences", "dnnl.set_verbose(2); dnnl.set_verbose(0)"),
    ]


def array_door_cases() -> list[Case]:
    """Each door that takes a host array takes it only as the tensor its descriptor describes
    (or as flat raw storage): an array of another shape or order was read as another tensor."""
    def cpu(name, code, expect=OK):
        return Case(name, "silent/cpu", code, expect, library="real")

    def gpu(name, code, expect=OK, library="emulated-ze"):
        return Case(name, "silent/ze" if library == "emulated-ze" else "silent/gpu", code, expect, library=library)

    refused = Raises(VALUE, "buffer")
    transposed = "prim.execute(strm, {dnnl.ARG_FROM: src, dnnl.ARG_TO: m}); strm.wait()\n"
    return [
        cpu("Memory: a (4, 4) descriptor over a (2, 8) array of the same size", "dnnl.Memory(md, eng, a.reshape(2, 8))",
            refused),
        cpu("Memory: a 'ba' descriptor over a row-major array, executed",
            "m = dnnl.Memory(md_t, eng, out)\n" + transposed + "assert np.array_equal(out, a.T), 'read transposed'",
            refused),
        cpu("Memory: a 'ba' descriptor over the transposed view, the right result",
            "m = dnnl.Memory(md_t, eng, out.T)\n" + transposed + "assert np.array_equal(out, a.T), 'wrong result'"),
        cpu("Memory: a 'ba' descriptor over a flat array, its raw storage",
            "flat = np.zeros(16, np.float32); m = dnnl.Memory(md_t, eng, flat)\n" + transposed
            + "assert np.array_equal(flat.reshape(4, 4), a.T), 'wrong result'"),
        cpu("Memory: the blocked weights descriptor over the plain weights array",
            "back = conv_run(conv_prim, conv_pd, strm, weights=dnnl.Memory(conv_pd.weights_desc(), eng, conv_k))\n"
            "assert np.allclose(back, conv_ref), 'the weights were read in another layout'",
            Either(OK, refused)),
        cpu("set_data_handle: an array of another shape of the same size",
            "dst.set_data_handle(np.zeros((2, 8), np.float32))", refused),
        cpu("set_data_handle: a row-major array for a 'ba' memory, executed",
            "dst.set_data_handle(out2)\nprim.execute(strm, exec_args); strm.wait()\n"
            "assert np.array_equal(out2, a.T), 'read transposed'", refused),
        cpu("Memory.from_array of a strided view, the right result",
            "v = np.zeros((4, 8), np.float32)[:, ::2]; m = dnnl.Memory.from_array(v, eng)\n"
            "dnnl.reorder(md, m.desc, eng).execute(strm, {dnnl.ARG_FROM: src, dnnl.ARG_TO: m}); strm.wait()\n"
            "assert np.array_equal(v, a), 'wrong result'"),
        cpu("Memory.from_array of an object without the buffer protocol", "dnnl.Memory.from_array(object(), eng)",
            Raises(TYPE, "array")),
        cpu("to_array of a blocked result, the right result",
            "dst = dnnl.Memory(conv_pd.dst_desc(), eng)\nconv_run(conv_prim, conv_pd, strm, dst=dst)\n"
            "assert np.allclose(dnnl.to_array(dst, strm), conv_ref), 'wrong result'"),
        cpu("to_array into an array of another shape", "dnnl.to_array(dst, strm, out=np.zeros((2, 8), np.float32))",
            Raises(VALUE, "out")),
        cpu("to_array into a read-only array", "dnnl.to_array(dst, strm, out=ro_array)", Raises(VALUE, "out")),
        gpu("ze: make_memory over a shared USM view of another layout",
            "u = lz.shared((4, 4))\nm = ze.make_memory(md_t, zeng, u.array)\n"
            "zprim.execute(zstrm, {dnnl.ARG_FROM: zsrc, dnnl.ARG_TO: m}); zstrm.wait()\nlz.synchronize()\n"
            "assert np.array_equal(u.array, a.T), 'read transposed'", Raises(VALUE, "handles")),
        gpu("ze: set_data_handle with a shared USM view of another shape",
            "u = lz.shared((2, 8))\nzdst.set_data_handle(u.array)", refused),
        gpu("ocl: make_memory of USM kind over a host view of another layout (stand-in)",
            "ocl.make_memory(md_t, geng, ocl.MemoryKind.USM, np.zeros((4, 4), np.float32))",
            Raises(VALUE, "handle"), library="standin"),
        gpu("ocl: Memory.from_array of a numpy array on an OpenCL engine (stand-in)",
            "dnnl.Memory.from_array(a, geng)", Raises(TYPE, "array"), library="standin"),
    ]


def cases() -> list[Case]:
    return copy_cases() + closed_cases() + mismatch_cases() + silent_cases() + array_door_cases()
