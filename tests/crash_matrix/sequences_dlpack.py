"""The DLPack doors: ``from_dlpack`` and ``Memory.__dlpack__`` under bad input,
misuse of capsules, lifetimes either way, and interpreter exit with tensors held.

A tensor taken in keeps its producer until the memory lets go; a tensor given
out keeps the memory's buffer until the consumer lets go; a capsule is taken
once. Each case must succeed (checking the data) or raise a clean error
naming the argument.
"""

from __future__ import annotations

from .model import Case, Ok, Raises

OK = Ok()


def _cpu(name: str, code: str, expect=OK, **kw) -> Case:
    return Case(name, "dlpack/cpu", code, expect, library="real", **kw)


def _exit(name: str, code: str) -> Case:
    return Case(name, "exit/cpu", code, OK, library="real", fresh=True, timeout=30.0)


def cases() -> list[Case]:
    bad_x = [("None", "None"), ("an int", "1"), ("a list", "[1.0, 2.0]"), ("a str", "'x'"),
             ("the dnnl module", "dnnl")]
    out = [_cpu(f"from_dlpack of {what}", f"dnnl.from_dlpack({value}, engine=eng)", Raises("TypeError", "x"))
           for what, value in bad_x]
    out += [
        _cpu("from_dlpack with a bad engine", "dnnl.from_dlpack(a, engine=md)", Raises("TypeError", "engine")),
        _cpu("from_dlpack with a closed engine", "dnnl.from_dlpack(a, engine=closed_eng)",
             Raises("ClosedObjectError", "engine")),
        _cpu("from_dlpack with copy='yes'", "dnnl.from_dlpack(a, engine=eng, copy='yes')", Raises("TypeError", "copy")),
        _cpu("from_dlpack of an object whose __dlpack__ gives no capsule",
             "class P:\n    def __dlpack__(self, **kw):\n        return 42\ndnnl.from_dlpack(P(), engine=eng)",
             Raises("TypeError", "x")),
        _cpu("from_dlpack of an object whose __dlpack__ raises",
             "class P:\n    def __dlpack__(self, **kw):\n        raise BufferError('no')\n"
             "dnnl.from_dlpack(P(), engine=eng)", Raises("BufferError")),
        _cpu("from_dlpack of a capsule given twice",
             "c = a.__dlpack__()\nclass P:\n    def __dlpack__(self, **kw):\n        return c\n"
             "m = dnnl.from_dlpack(P(), engine=eng)\ndnnl.from_dlpack(P(), engine=eng)", Raises("TypeError", "x")),
        _cpu("from_dlpack of a capsule of another kind",
             "import datetime\nclass P:\n    def __dlpack__(self, **kw):\n        return datetime.datetime_CAPI\n"
             "dnnl.from_dlpack(P(), engine=eng)", Raises("TypeError", "x")),
        _cpu("__dlpack__ with bad arguments",
             "for kw in ({'max_version': 'x'}, {'dl_device': 3}, {'copy': 2}):\n"
             "    try:\n        src.__dlpack__(**kw)\n    except TypeError as e:\n        assert str(e)\n"
             "    else:\n        raise AssertionError(kw)"),
        _cpu("__dlpack__ of a closed memory", "closed_mem.__dlpack__()", Raises("ClosedObjectError", "memory")),
        _cpu("__dlpack__ of memory without a buffer", "src_none.__dlpack__()", Raises("BufferError", "memory")),
        _cpu("a read-only tensor as the destination of a reorder",
             "ro = dnnl.from_dlpack(ro_array, engine=eng)\nprim.execute(strm, {dnnl.ARG_FROM: src, dnnl.ARG_TO: ro})",
             Raises("ValueError", "args")),
        _cpu("numpy view of an exported memory outlives the closed memory",
             "m = dnnl.Memory(md, eng, a.copy())\nv = np.from_dlpack(m)\nm.close(); del m\ngc.collect()\n"
             "assert np.array_equal(v, a)"),
        _cpu("memory over a numpy tensor outlives the dropped array",
             "x = a.copy()\nm = dnnl.from_dlpack(x, engine=eng)\ndel x\ngc.collect()\n"
             "prim.execute(strm, {dnnl.ARG_FROM: m, dnnl.ARG_TO: dst}); strm.wait()\nassert np.array_equal(out, a.T)"),
        _cpu("an unused capsule dropped after its memory closed",
             "m = dnnl.Memory(md, eng, a.copy())\nc = m.__dlpack__(max_version=(1, 0))\nm.close(); del m\n"
             "gc.collect()\ndel c\ngc.collect()"),
        _cpu("export while a reorder writes the memory: the tensor sees the result",
             "x = big.copy(); result = np.zeros_like(x)\n"
             "d = dnnl.Memory(big_md_t, eng, result.T)  # the tensor 'ba' lays out over result\n"
             "dnnl.reorder(big_md, big_md_t, eng).execute(strm, {dnnl.ARG_FROM: dnnl.Memory(big_md, eng, x), "
             "dnnl.ARG_TO: d})\nv = np.from_dlpack(d)\nassert np.array_equal(result, big.T)"),
        _cpu("memory made from a memory, the first closed",
             "m = dnnl.Memory(md, eng, a.copy())\nm2 = dnnl.from_dlpack(m, engine=eng)\nm.close(); del m\n"
             "gc.collect()\nprim.execute(strm, {dnnl.ARG_FROM: m2, dnnl.ARG_TO: dst}); strm.wait()\n"
             "assert np.array_equal(out, a.T)"),
        _exit("exit holding an unused capsule of a memory", "c = src.__dlpack__(max_version=(1, 0))"),
        _exit("exit holding a numpy view of an exported memory", "v = np.from_dlpack(src)"),
        _exit("exit holding a memory over a numpy tensor", "m = dnnl.from_dlpack(a, engine=eng)"),
        _exit("exit with a memory over a numpy tensor in a reference cycle",
              "m = dnnl.from_dlpack(a.copy(), engine=eng)\ncycle = [m]; cycle.append(cycle)\ndel m"),
    ]
    return out
