"""Systematic cases: every public function × each argument position × bad values.

Each :class:`Api` is one public call written with ``$parameter``
placeholders and the valid value of each parameter. A case replaces one
parameter by one bad value (from ``values``) and keeps the others valid.
``then`` is code run after the call when the bad value was accepted, so that
what it leads to (an execute on a bogus buffer, ...) shows in the verdict.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from string import Template

from . import values as v
from .model import TYPE, TYPE_OR_VALUE, VALUE, Case, Either, Ok, Raises


@dataclass
class Api:
    label: str  # how the function is named in the report
    call: str  # code with $parameter placeholders
    valid: dict[str, str]  # parameter -> a valid expression
    bad: dict[str, list] = field(default_factory=dict)  # parameter -> [(id, expr, expect)]
    then: str = ""
    library: str | None = None  # None: chosen from the fixtures
    section: str = "bad-input"

    def cases(self) -> list[Case]:
        out = []
        for parameter, bad_values in self.bad.items():
            for value_id, expr, expect in bad_values:
                code = Template(self.call).substitute({**self.valid, parameter: expr})
                if self.then:
                    code += "\n" + self.then.strip()
                out.append(Case(
                    name=f"{self.label}({parameter}={value_id})",
                    section=f"{self.section}/{self.label}",
                    code=code,
                    expect=expect,
                    library=_library(code, self.library),
                ))
        return out


# Bad-input cases on OpenCL GPU engines run on real oneDNN on the emulated
# GPU. Two kinds stay on the stand-in, which nothing real can replace: cases
# that also need a CPU engine (a process with the emulated GPU has none), and
# Level Zero cases on fake handles. Misuse sequences on GPU engines run on the
# emulated devices (sequences_*).
GPU_LIBRARY = "emulated"
_CPU_ENGINE_FIXTURES = ("eng", "eng2", "closed_eng")


def _library(code: str, wanted: str | None = None) -> str:
    """The library a case runs on: ``wanted`` if it names one other than the
    GPU library, else the emulated GPU where it can host the case."""
    from .fixtures import needed, needs_gpu

    if wanted not in (None, GPU_LIBRARY):
        return wanted
    if wanted is None and not needs_gpu(code):
        return "real"
    names = needed(code)
    if (
        any(name in _CPU_ENGINE_FIXTURES for name in names)
        or any(name.startswith("z") for name in names)
        or "Engine.cpu()" in code
    ):
        return "standin"
    return GPU_LIBRARY


_EXECUTE_CPU = "prim.execute(strm, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst}); strm.wait()"


def _args_values(src: str, dst: str, small: str, closed: str, none: str, foreign: str, host: tuple) -> list:
    """Bad ``args`` mappings for a 4x4 reorder whose memories are ``src``/``dst``."""
    frm, to = "dnnl.ARG_FROM", "dnnl.ARG_TO"
    a, out = host
    either = Either(Ok(), Raises(TYPE_OR_VALUE, "args"))
    return [
        ("None", "None", Raises(TYPE, "args")),
        ("list of pairs", f"[({frm}, {src}), ({to}, {dst})]", Raises(TYPE, "args")),
        ("str", "'args'", Raises(TYPE, "args")),
        ("empty", "{}", Raises(TYPE_OR_VALUE, "args")),
        ("no destination", f"{{{frm}: {src}}}", Raises(VALUE, ("args", "args[17]"))),
        ("no source", f"{{{to}: {dst}}}", Raises(VALUE, ("args", "args[1]"))),
        ("None destination", f"{{{frm}: {src}, {to}: None}}", Raises(VALUE, ("args", "args[17]"))),
        ("None source", f"{{{frm}: None, {to}: {dst}}}", Raises(VALUE, ("args", "args[1]"))),
        ("str key", f"{{'from': {src}, {to}: {dst}}}", Raises(TYPE, "args")),
        ("float key", f"{{1.0: {src}, {to}: {dst}}}", Raises(TYPE, "args")),
        ("2**40 key", f"{{2**40: {src}, {frm}: {src}, {to}: {dst}}}", Raises(TYPE_OR_VALUE, "args")),
        ("2**64 key", f"{{2**64: {src}, {frm}: {src}, {to}: {dst}}}", Raises(TYPE_OR_VALUE, "args")),
        ("-1 key", f"{{-1: {src}, {frm}: {src}, {to}: {dst}}}", either),
        ("unknown extra key", f"{{{frm}: {src}, {to}: {dst}, 12345: {src}}}", either),
        ("bool key", f"{{True: {src}, {to}: {dst}}}", either),
        ("MemoryDesc value", f"{{{frm}: md, {to}: {dst}}}", Raises(TYPE, "args[1]")),
        ("ndarray values", f"{{{frm}: {a}, {to}: {out}}}", Raises(TYPE, "args[1]")),
        ("closed memory", f"{{{frm}: {closed}, {to}: {dst}}}", Raises(("ClosedObjectError",), "args[1]")),
        ("memory too small", f"{{{frm}: {small}, {to}: {dst}}}", Raises(VALUE, "args[1]")),
        ("memory without buffer", f"{{{frm}: {none}, {to}: {dst}}}", Raises(VALUE, "args[1]")),
        ("memory of another engine", f"{{{frm}: {foreign}, {to}: {dst}}}", Either(Ok(), Raises(VALUE, "args[1]"))),
        ("a Mapping that is not a dict",
         f"__import__('types').MappingProxyType({{{frm}: {src}, {to}: {dst}}})", Ok()),
    ]


def _deps_values(right: str, wrong_kind: str, other_context: str | None) -> list:
    out = [
        ("None", "None", Raises(TYPE, "deps")),
        ("int", "5", Raises(TYPE, "deps")),
        ("str", "'abc'", Raises(TYPE, "deps")),
        ("[None]", "[None]", Raises(TYPE_OR_VALUE, "deps")),
        ("[0]", "[0]", Raises(TYPE_OR_VALUE, "deps")),
        ("[ffi.NULL]", "[ffi.NULL]", Raises(TYPE_OR_VALUE, "deps")),
        ("[-1]", "[-1]", Raises(TYPE_OR_VALUE, "deps")),
        ("[Fraction]", "[Fraction(8, 1)]", Raises(TYPE, "deps")),
        ("[pyopencl.Context]", "[pocl_ctx]", Raises(TYPE, "deps")),
        ("[pyopencl.Buffer]", "[pocl_buf]", Raises(TYPE, "deps")),
        ("[wrong handle kind]", f"[{wrong_kind}]", Raises(TYPE, "deps")),
        ("[the right event]", f"[{right}]", Ok()),
        ("a generator", f"(e for e in [{right}])", Ok()),
    ]
    if other_context:
        out.append(("[event of another context]", f"[{other_context}]",
                    Raises(VALUE, ("deps", "dnnl_ocl_interop_primitive_execute"))))
    return out


def apis() -> list[Api]:
    bh = v.host_buffer
    return [
        # --- top level ---------------------------------------------------------
        Api("set_verbose", "dnnl.set_verbose($level)", {"level": "0"}, {"level": v.verbose_level()}),
        Api("has_function", "found = dnnl.has_function($name)", {"name": "'dnnl_version'"}, {"name": [
            ("None", "None", Raises(TYPE, "name")),
            ("int", "5", Raises(TYPE, "name")),
            ("list", "['dnnl_version']", Raises(TYPE, "name")),
            ("bytes", "b'dnnl_version'", Either(Ok(), Raises(TYPE, "name"))),
        ]}, then="assert isinstance(found, bool), f'has_function answered {found!r}'"),
        Api("error_class", "cls = dnnl.error_class($code)", {"code": "2"}, {"code": [
            ("None", "None", Raises(TYPE, "code")),
            ("str", "'2'", Raises(TYPE, "code")),
            ("float", "2.0", Raises(TYPE, "code")),
            ("list", "[]", Raises(TYPE, "code")),
            ("2**64", "2**64", Ok()),
            ("-1", "-1", Ok()),
        ]}, then="assert issubclass(cls, dnnl.DnnlError)"),
        # --- core ----------------------------------------------------------------
        Api("core.Engine", "e = dnnl.Engine($kind, $index)", {"kind": "dnnl.EngineKind.CPU", "index": "0"}, {
            "kind": v.engine_kind("kind", "dnnl_engine_create"),
            "index": v.integer("index", "1", ("dnnl_engine_create",)),
        }, then="e.kind"),
        Api("core.Engine.cpu", "e = dnnl.Engine.cpu($index)", {"index": "0"}, {
            "index": v.integer("index", "5", ("dnnl_engine_create",)),
        }, then="e.kind"),
        Api("core.Engine.get_count", "n = dnnl.Engine.get_count($kind)", {"kind": "dnnl.EngineKind.CPU"}, {
            "kind": [(i, e, x) for i, e, x in v.engine_kind("kind", "dnnl_engine_get_count")
                     if i not in ("7", "-1", "GPU (none here)", "ANY")]
            + [("7", "7", Either(Ok(), Raises(VALUE, "kind")))],
        }),
        Api("core.Stream", "s = dnnl.Stream($engine, $in_order)", {"engine": "eng", "in_order": "True"}, {
            "engine": v.dnnl_object("Engine", "engine"),
            "in_order": [
                ("str", "'no'", Either(Ok(), Raises(TYPE, "in_order"))),
                ("None", "None", Either(Ok(), Raises(TYPE, "in_order"))),
                ("int 2", "2", Either(Ok(), Raises(TYPE, "in_order"))),
            ],
        }, then="s.wait()"),
        Api("core.MemoryDesc", "d = dnnl.MemoryDesc($shape, $dtype, $tag)",
            {"shape": "(4, 4)", "dtype": "'float32'", "tag": "'ab'"},
            {"shape": v.shape(), "dtype": v.dtype(), "tag": v.tag()}, then="d.size"),
        Api("core.Memory", "m = dnnl.Memory($desc, $engine, $buffer)",
            {"desc": "md", "engine": "eng", "buffer": "a"},
            {"desc": v.dnnl_object("MemoryDesc", "desc"), "engine": v.dnnl_object("Engine", "engine")},
            then="prim.execute(strm, {dnnl.ARG_FROM: m, dnnl.ARG_TO: dst}); strm.wait()"),
        Api("core.Memory", "m = dnnl.Memory($desc, $engine, $buffer)",
            {"desc": "md", "engine": "eng", "buffer": "a"},
            {"buffer": bh("buffer", ("args[1]",))}, section="host-buffers",
            then="prim.execute(strm, {dnnl.ARG_FROM: m, dnnl.ARG_TO: dst}); strm.wait(); gc.collect()"),
        Api("core.Memory.set_data_handle", "dst.set_data_handle($buffer)", {"buffer": "out2.T"},
            {"buffer": bh("buffer", ("args[17]",), layout="ba")}, section="host-buffers",
            then=_EXECUTE_CPU + "; gc.collect()"),
        Api("core.Memory.unmap_data", "src.unmap_data($pointer)", {"pointer": "src.map_data()"}, {"pointer": [
            ("None", "None", Raises(TYPE_OR_VALUE, "pointer")),
            ("str", "'x'", Raises(TYPE, "pointer")),
            ("Fraction", "Fraction(8, 1)", Raises(TYPE, "pointer")),
            ("-1", "-1", Raises(TYPE_OR_VALUE, "pointer")),
            ("2**64", "2**64", Raises(TYPE_OR_VALUE, "pointer")),
            ("ndarray", "a", Raises(TYPE_OR_VALUE, "pointer")),
            ("pyopencl.Buffer", "pocl_buf", Raises(TYPE, "pointer")),
            ("a pointer map_data did not return", "ffi.new('int *')", Either(Ok(), Raises(TYPE_OR_VALUE, "pointer"))),
        ]}, then=_EXECUTE_CPU),
        Api("core.Primitive.execute", "prim.execute($stream, $args); strm.wait()",
            {"stream": "strm", "args": "exec_args"}, {
                "stream": v.dnnl_object("Stream", "stream"),
                "args": _args_values("src", "dst", "src_small", "closed_mem", "src_none", "src_eng2", ("a", "out")),
            }),
        Api("core.reorder", "p = dnnl.reorder($src_desc, $dst_desc, $engine, $dst_engine)",
            {"src_desc": "md", "dst_desc": "md_t", "engine": "eng", "dst_engine": "None"}, {
                "src_desc": v.dnnl_object("MemoryDesc", "src_desc"),
                "dst_desc": v.dnnl_object("MemoryDesc", "dst_desc"),
                "engine": v.dnnl_object("Engine", "engine"),
                "dst_engine": v.dnnl_object("Engine", "dst_engine", nullable=True),
            }, then="p.execute(strm, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst}); strm.wait()"),
        Api("core.PrimitiveDesc.reorder", "d = dnnl.PrimitiveDesc.reorder($src_desc, $dst_desc, $engine, $dst_engine)",
            {"src_desc": "md", "dst_desc": "md_t", "engine": "eng", "dst_engine": "None"}, {
                "src_desc": v.dnnl_object("MemoryDesc", "src_desc"),
                "engine": v.dnnl_object("Engine", "engine"),
                "dst_engine": v.dnnl_object("Engine", "dst_engine", nullable=True),
            }, then="dnnl.Primitive(d).execute(strm, exec_args); strm.wait()"),
        Api("core.PrimitiveDesc.from_handle", "d = dnnl.PrimitiveDesc.from_handle($handle)", {"handle": "None"}, {
            "handle": [
                ("None", "None", Raises(TYPE_OR_VALUE, "handle")),
                ("str", "'x'", Raises(TYPE, "handle")),
                ("float", "1.5", Raises(TYPE, "handle")),
                ("Fraction", "Fraction(8, 1)", Raises(TYPE, "handle")),
                ("PrimitiveDesc", "pdesc", Raises(TYPE, "handle")),
                ("Engine", "eng", Raises(TYPE, "handle")),
                ("pyopencl.Context", "pocl_ctx", Raises(TYPE, "handle")),
                ("cffi engine handle", "ffi.cast('dnnl_engine_t', eng.int_ptr)", Raises(TYPE, "handle")),
                ("cffi NULL primitive_desc", "ffi.cast('dnnl_primitive_desc_t', 0)", Raises(TYPE_OR_VALUE, "handle")),
            ]}),
        Api("core.Primitive", "p = dnnl.Primitive($desc)", {"desc": "pdesc"}, {
            "desc": v.dnnl_object("PrimitiveDesc", "desc"),
        }, then="p.execute(strm, exec_args); strm.wait()"),
        Api("core.Primitive(cache_blob) on the CPU", "p = dnnl.Primitive(pdesc, $cache_blob)", {"cache_blob": "None"}, {
            "cache_blob": v.cache_blob("cache_blob", "dnnl_primitive_create_from_cache_blob"),
        }, then="p.execute(strm, exec_args); strm.wait()"),
        Api("make_primitive_cached", "p = dnnl.make_primitive_cached($desc, $store)", {"desc": "pdesc", "store": "store"}, {
            "desc": v.dnnl_object("PrimitiveDesc", "desc"),
            "store": [
                ("str", "'/tmp'", Raises(TYPE, "store")),
                ("int", "5", Raises(TYPE, "store")),
                ("object", "object()", Raises(TYPE, "store")),
                ("Engine", "eng", Raises(TYPE, "store")),
            ],
        }, then="p.execute(strm, exec_args); strm.wait()"),
        Api("reorder_cached", "p = dnnl.reorder_cached($src_desc, md_t, $engine, store=$store)",
            {"src_desc": "md", "engine": "eng", "store": "store"}, {
                "src_desc": v.dnnl_object("MemoryDesc", "src_desc"),
                "engine": v.dnnl_object("Engine", "engine"),
                "store": [("str", "'/tmp'", Raises(TYPE, "store")), ("int", "5", Raises(TYPE, "store"))],
            }, then="p.execute(strm, exec_args); strm.wait()"),
        Api("compose_key", "k = dnnl.compose_key($engine_blob_id, $primitive_blob_id)",
            {"engine_blob_id": "b'engine'", "primitive_blob_id": "b'primitive'"}, {
                "engine_blob_id": _blob_id_values("engine_blob_id"),
                "primitive_blob_id": _blob_id_values("primitive_blob_id"),
            }),
        Api("CacheBlobStore", "s = dnnl.CacheBlobStore($directory)", {"directory": "None"}, {"directory": [
            ("int", "5", Raises(TYPE, "directory")),
            ("list", "['/tmp']", Raises(TYPE, "directory")),
            ("a regular file", "dnnl.__file__", Either(Ok(), Raises(("ValueError", "OSError"), "directory"))),
            ("NUL in it", "'/tmp/x\\0y'", Raises(("ValueError", "TypeError"), "directory")),
        ]}, then="s.put('ocl', b'key', b'blob'); s.get('ocl', b'key')"),
        Api("CacheBlobStore.put", "ok = store.put($runtime, $key, $blob)",
            {"runtime": "'ocl'", "key": "b'key'", "blob": "b'blob'"}, {
                "runtime": [
                    ("unknown", "'cuda'", Raises(VALUE, "runtime")),
                    ("None", "None", Raises(TYPE_OR_VALUE, "runtime")),
                    ("bytes", "b'ocl'", Raises(TYPE_OR_VALUE, "runtime")),
                    ("int", "1", Raises(TYPE_OR_VALUE, "runtime")),
                ],
                "key": _blob_id_values("key"),
                "blob": _blob_id_values("blob"),
            }, then="store.get('ocl', b'key')"),
        Api("CacheBlobStore.get", "store.get($runtime, $key)", {"runtime": "'ocl'", "key": "b'key'"}, {
            "runtime": [("unknown", "'cuda'", Raises(VALUE, "runtime")), ("None", "None", Raises(TYPE_OR_VALUE, "runtime"))],
            "key": _blob_id_values("key"),
        }),
        # --- OpenCL on real oneDNN (no GPU engine needed) --------------------------
        Api("ocl.get_engine_cache_blob_id", "blob_id = ocl.get_engine_cache_blob_id($device)",
            {"device": "pocl_dev"}, {"device": v.foreign_handle("cl_device_id", "device", right="pocl_dev")},
            library="real"),
        Api("ocl.get_engine_cache_blob", "ocl.get_engine_cache_blob($engine)", {"engine": "eng"},
            {"engine": v.dnnl_object("Engine", "engine")}, library="real"),
        Api("ocl.make_engine", "e = ocl.make_engine($device, $context)",
            {"device": "pocl_dev", "context": "pocl_ctx"}, {
                "device": v.foreign_handle("cl_device_id", "device", right="pocl_dev"),
                "context": v.foreign_handle("cl_context", "context", right="pocl_ctx"),
            }, library="real"),
        Api("ocl.get_device", "ocl.get_device($engine)", {"engine": "eng"},
            {"engine": v.dnnl_object("Engine", "engine")}, library="real"),
        Api("ocl.get_context", "ocl.get_context($engine)", {"engine": "eng"},
            {"engine": v.dnnl_object("Engine", "engine")}, library="real"),
        Api("ocl.get_command_queue", "ocl.get_command_queue($stream)", {"stream": "strm"},
            {"stream": v.dnnl_object("Stream", "stream")}, library="real"),
        Api("ocl.get_memory_kind", "ocl.get_memory_kind($memory)", {"memory": "src"},
            {"memory": v.dnnl_object("Memory", "memory")}, library="real"),
        Api("ocl.get_mem_object", "ocl.get_mem_object($memory)", {"memory": "src"},
            {"memory": v.dnnl_object("Memory", "memory")}, library="real"),
        Api("ocl.make_engine_cached", "e = ocl.make_engine_cached($device, $context, $store)",
            {"device": "pocl_dev", "context": "pocl_ctx", "store": "store"}, {
                "device": v.foreign_handle("cl_device_id", "device")[:8],
                "store": [("str", "'/tmp'", Raises(TYPE, "store")), ("int", "5", Raises(TYPE, "store"))],
            }, library="real"),
        Api("ze.make_engine_cached", "e = ze.make_engine_cached($driver, zdev, zctx, $store)",
            {"driver": "zdrv", "store": "store"}, {
                "driver": v.foreign_handle("ze_driver", "driver")[:8],
                "store": [("str", "'/tmp'", Raises(TYPE, "store")), ("int", "5", Raises(TYPE, "store"))],
            }, library="real"),
        # --- OpenCL GPU engine (stand-in) ------------------------------------------
        Api("ocl.make_engine(cache_blob)", "e = ocl.make_engine(gdev, gctx, $cache_blob)",
            {"cache_blob": "None"},
            {"cache_blob": v.cache_blob("cache_blob", "dnnl_ocl_interop_engine_create_from_cache_blob")},
            library=GPU_LIBRARY, then="ocl.get_device(e)"),
        Api("ocl.make_engine(cache_blob) on the emulated GPU", "e = ocl.make_engine(gdev, gctx, $cache_blob)",
            {"cache_blob": "None"}, {"cache_blob": _garbage_blobs("cache_blob", "dnnl_ocl_interop_engine_create_from_cache_blob", "ocl.get_engine_cache_blob(geng)")},
            library="emulated", then="s = ocl.make_stream(e, gqueue)\ngprim_e = dnnl.reorder(md, md_t, e)\n"
            "m = ocl.make_memory(md_t, e)\ngprim_e.execute(s, {dnnl.ARG_FROM: ocl.make_memory(md, e, ocl.MemoryKind.BUFFER, gbuf), dnnl.ARG_TO: m}); s.wait()"),
        Api("core.Primitive(cache_blob) on the emulated GPU", "p = dnnl.Primitive(gpdesc, $cache_blob)",
            {"cache_blob": "None"}, {"cache_blob": _garbage_blobs("cache_blob", "dnnl_primitive_create_from_cache_blob", "gblob")},
            library="emulated", then="p.execute(gstrm, {dnnl.ARG_FROM: gsrc, dnnl.ARG_TO: gdst}); gstrm.wait()\n"
            "assert np.array_equal(read_gpu(gdst), a.T), 'the primitive from this blob computes a wrong result'"),
        Api("ocl.make_stream", "s = ocl.make_stream($engine, $queue)", {"engine": "geng", "queue": "gqueue"}, {
            "engine": v.dnnl_object("Engine", "engine"),
            "queue": v.foreign_handle("cl_command_queue", "queue", right="gqueue"),
        }, library=GPU_LIBRARY, then="s.wait()"),
        Api("ocl.make_memory", "m = ocl.make_memory($desc, $engine, $kind, $handle)",
            {"desc": "md", "engine": "geng", "kind": "ocl.MemoryKind.BUFFER", "handle": "gbuf"}, {
                "desc": v.dnnl_object("MemoryDesc", "desc"),
                "engine": v.dnnl_object("Engine", "engine"),
                "kind": [
                    ("5", "5", Raises(TYPE_OR_VALUE, ("kind", "dnnl_ocl_interop_memory_create"))),
                    ("-1", "-1", Raises(TYPE_OR_VALUE, ("kind", "dnnl_ocl_interop_memory_create"))),
                    ("2**64", "2**64", Raises(TYPE_OR_VALUE, "kind")),
                    ("str", "'BUFFER'", Raises(TYPE, "kind")),
                    ("None", "None", Raises(TYPE, "kind")),
                    ("float", "1.5", Raises(TYPE, "kind")),
                    ("Fraction", "Fraction(1)", Raises(TYPE, "kind")),
                    ("USM with a cl_mem", "ocl.MemoryKind.USM",
                     Raises(("ValueError", "TypeError", "NotImplementedError"),
                            ("handle", "kind", "dnnl_ocl_interop_memory_create"))),
                ],
                # A list is the documented multi-buffer form ([] allocates each buffer).
                "handle": [x for x in v.foreign_handle("cl_mem", "handle", nullable=True, right="gbuf")
                           if not x[0].startswith("list")] + [
                    ("buffer too small", "gbuf_small", Raises(VALUE, "handle")),
                    ("host array", "a", Raises(TYPE, "handle")),
                ],
            }, library=GPU_LIBRARY,
            then="gprim.execute(gstrm, {dnnl.ARG_FROM: m, dnnl.ARG_TO: gdst}); gstrm.wait()"),
        Api("ocl.as_array", "arr = ocl.as_array($memory, $queue)", {"memory": "gsrc", "queue": "gqueue"}, {
            "memory": v.dnnl_object("Memory", "memory"),
            "queue": [
                ("None", "None", Raises(TYPE, "queue")),
                ("pyopencl.Context", "gctx", Raises(TYPE, "queue")),
                ("int", "5", Raises(TYPE, "queue")),
                ("str", "'q'", Raises(TYPE, "queue")),
            ],
        }, library=GPU_LIBRARY, then="assert arr.shape == (4, 4) and arr.get().shape == (4, 4)"),
        Api("ocl.set_mem_object", "ocl.set_mem_object($memory, $buffer)", {"memory": "gsrc", "buffer": "gbuf2"}, {
            "memory": v.dnnl_object("Memory", "memory"),
            "buffer": [
                *v.foreign_handle("cl_mem", "buffer", nullable=True, right="gbuf2"),
                ("buffer too small", "gbuf_small", Raises(VALUE, "buffer")),
                ("host array", "a", Raises(TYPE, "buffer")),
            ],
        }, library=GPU_LIBRARY,
            then="gprim.execute(gstrm, {dnnl.ARG_FROM: gsrc, dnnl.ARG_TO: gdst}); gstrm.wait()"),
        Api("ocl.execute", "ocl.execute($primitive, $stream, $args, $deps); gstrm.wait()",
            {"primitive": "gprim", "stream": "gstrm", "args": "{dnnl.ARG_FROM: gsrc, dnnl.ARG_TO: gdst}",
             "deps": "()"}, {
                "primitive": v.dnnl_object("Primitive", "primitive"),
                "stream": v.dnnl_object("Stream", "stream"),
                "args": _args_values("gsrc", "gdst", "gsrc_small", "gsrc_closed", "gsrc_none", "gsrc_other",
                                     ("a", "out")),
                "deps": _deps_values("gevent", "ze.Event(0x5000)", "other_event"),
            }, library=GPU_LIBRARY),
        # --- Level Zero on real oneDNN (no Level Zero loader here: valid handles
        # get DnnlRuntimeError, so a bad one that reaches C shows as unclear) ---
        Api("ze.get_engine_cache_blob_id", "ze.get_engine_cache_blob_id($driver, $device)",
            {"driver": "zdrv", "device": "zdev"}, {
                "driver": v.foreign_handle("ze_driver", "driver", right="zdrv"),
                "device": v.foreign_handle("ze_device", "device", right="zdev"),
            }, library="real"),
        Api("ze.make_engine", "e = ze.make_engine($driver, $device, $context)",
            {"driver": "zdrv", "device": "zdev", "context": "zctx"}, {
                "driver": v.foreign_handle("ze_driver", "driver", right="zdrv"),
                "device": v.foreign_handle("ze_device", "device", right="zdev"),
                "context": v.foreign_handle("ze_context", "context", right="zctx"),
            }, library="real"),
        # --- Level Zero engine (stand-in) ---------------------------------------------
        Api("ze.make_engine(cache_blob)", "e = ze.make_engine(zdrv, zdev, zctx, $cache_blob)",
            {"cache_blob": "None"},
            {"cache_blob": v.cache_blob("cache_blob", "dnnl_ze_interop_engine_create_from_cache_blob")},
            library=GPU_LIBRARY, then="ze.get_device(e)"),
        Api("ze.get_engine_cache_blob", "ze.get_engine_cache_blob($engine)", {"engine": "zeng"},
            {"engine": v.dnnl_object("Engine", "engine")}, library=GPU_LIBRARY),
        Api("ze.get_driver", "ze.get_driver($engine)", {"engine": "zeng"},
            {"engine": v.dnnl_object("Engine", "engine")}, library=GPU_LIBRARY),
        Api("ze.get_device", "ze.get_device($engine)", {"engine": "zeng"},
            {"engine": v.dnnl_object("Engine", "engine")[:4]}, library=GPU_LIBRARY),
        Api("ze.get_context", "ze.get_context($engine)", {"engine": "zeng"},
            {"engine": v.dnnl_object("Engine", "engine")[:4]}, library=GPU_LIBRARY),
        Api("ze.get_list", "ze.get_list($stream)", {"stream": "zstrm"},
            {"stream": v.dnnl_object("Stream", "stream")}, library=GPU_LIBRARY),
        Api("ze.make_stream", "s = ze.make_stream($engine, $command_list, $profiling)",
            {"engine": "zeng", "command_list": "zlist", "profiling": "False"}, {
                "engine": v.dnnl_object("Engine", "engine"),
                "command_list": v.foreign_handle("ze_command_list", "command_list", right="zlist"),
                "profiling": [
                    ("str", "'no'", Either(Ok(), Raises(TYPE, "profiling"))),
                    ("None", "None", Either(Ok(), Raises(TYPE, "profiling"))),
                ],
            }, library=GPU_LIBRARY, then="s.wait()"),
        Api("ze.make_memory", "m = ze.make_memory($desc, $engine, $handles)",
            {"desc": "md", "engine": "zeng", "handles": "a"}, {
                "desc": v.dnnl_object("MemoryDesc", "desc"),
                "engine": v.dnnl_object("Engine", "engine"),
            }, library=GPU_LIBRARY,
            then="zprim.execute(zstrm, {dnnl.ARG_FROM: m, dnnl.ARG_TO: zdst}); zstrm.wait()"),
        Api("ze.make_memory", "m = ze.make_memory($desc, $engine, $handles)",
            {"desc": "md", "engine": "zeng", "handles": "a"}, {
                "handles": [
                    *bh("handles", ("args[1]",)),
                    ("list with a bad handle", "[Fraction(8, 1)]", Raises(TYPE, ("handles[0]", "handles"))),
                    ("two handles for one buffer", "[a, a]", Raises(TYPE_OR_VALUE, "handles")),
                ],
            }, library=GPU_LIBRARY, section="host-buffers",
            then="zprim.execute(zstrm, {dnnl.ARG_FROM: m, dnnl.ARG_TO: zdst}); zstrm.wait(); gc.collect()"),
        Api("ze.execute", "ze.execute($primitive, $stream, $args, $deps); zstrm.wait()",
            {"primitive": "zprim", "stream": "zstrm", "args": "{dnnl.ARG_FROM: zsrc, dnnl.ARG_TO: zdst}",
             "deps": "()"}, {
                "primitive": v.dnnl_object("Primitive", "primitive"),
                "stream": v.dnnl_object("Stream", "stream"),
                "args": _args_values("zsrc", "zdst", "zsrc_small", "zsrc_closed", "zsrc_none", "zsrc_eng2",
                                     ("a", "out")),
                "deps": [(i, e, x) for i, e, x in _deps_values("zevent", "pocl_ctx", None)
                         if i not in ("[pyopencl.Context]",)] + [("[pyopencl.UserEvent]", "[done_event]",
                                                                   Raises(TYPE, "deps"))],
            }, library=GPU_LIBRARY),
        Api("UncheckedPointer", "p = dnnl.UncheckedPointer($address)", {"address": "a.ctypes.data"}, {"address": [
            ("None", "None", Raises(TYPE_OR_VALUE, "address")),
            ("-1", "-1", Raises(TYPE_OR_VALUE, "address")),
            ("2**64", "2**64", Raises(TYPE_OR_VALUE, "address")),
            ("float", "1.5", Raises(TYPE, "address")),
            ("str", "'x'", Raises(TYPE, "address")),
            ("Fraction", "Fraction(8, 1)", Raises(TYPE, "address")),
            ("ndarray", "a", Raises(TYPE, "address")),
            ("pyopencl.Buffer", "pocl_buf", Raises(TYPE, "address")),
            ("Engine", "eng", Raises(TYPE, "address")),
            ("cffi int *", "ffi.new('int *')", Either(Ok(), Raises(TYPE, "address"))),
        ]}, then="m = dnnl.Memory(md, eng, p)"),
        # --- Level Zero handle values ------------------------------------------------
        Api("ze.Driver", "h = ze.Driver($handle)", {"handle": "0x1000"}, {"handle": _handle_value_values()}),
        Api("ze.Event", "h = ze.Event($handle)", {"handle": "0x5000"}, {"handle": _handle_value_values()}),
    ]


def _garbage_blobs(name: str, function: str, good: str) -> list:
    """Cache blobs oneDNN itself parses: any refusal must be clean, never a crash."""
    refused = Raises(("ValueError", "RuntimeError", "NotImplementedError"), (name, function))
    either = Either(Ok(), refused)
    return [
        ("empty", "b''", Raises(VALUE, (name, function))),
        ("zeros", "bytes(256)", either),
        ("random bytes", "bytes(np.random.default_rng(1).integers(0, 256, 4096, dtype=np.uint8))", either),
        ("truncated", f"{good}[: len({good}) // 2]", either),
        ("one byte flipped", f"bytes([{good}[0] ^ 0xFF]) + {good}[1:]", either),
        ("last byte flipped", f"{good}[:-1] + bytes([{good}[-1] ^ 0xFF])", either),
        ("doubled", f"{good} * 2", either),
        ("length field huge", f"(2**63).to_bytes(8, 'little') + {good}[8:]", either),
    ]


def _blob_id_values(name: str) -> list:
    return [
        ("None", "None", Raises(TYPE, name)),
        ("empty", "b''", Raises(VALUE, name)),
        ("str", "'key'", Raises(TYPE, name)),
        ("int", "5", Raises(TYPE, name)),
        ("list", "[1, 2]", Raises(TYPE, name)),
        ("huge", "bytes(2**20 + 1)", Either(Ok(), Raises(VALUE, name))),
    ]


def _handle_value_values() -> list:
    name = "Driver", "Event", "handle"
    return [
        ("str", "'x'", Raises(TYPE, name)),
        ("float", "1.5", Raises(TYPE, name)),
        ("True", "True", Raises(TYPE, name)),
        ("Fraction", "Fraction(8, 1)", Raises(TYPE, name)),
        ("Decimal", "Decimal(8)", Raises(TYPE, name)),
        ("-1", "-1", Raises(TYPE_OR_VALUE, name)),
        ("2**64", "2**64", Raises(TYPE_OR_VALUE, name)),
        ("list", "[]", Raises(TYPE, name)),
        ("object", "object()", Raises(TYPE, name)),
        ("bytes", "bytes(8)", Raises(TYPE, name)),
        ("ndarray", "np.zeros(2)", Raises(TYPE, name)),
        ("pyopencl.Device", "pocl_dev", Raises(TYPE, name)),
        ("another kind", "ze.Device(0x2000)", Raises(TYPE, name)),
        ("Engine", "eng", Raises(TYPE, name)),
        ("None", "None", Either(Ok(), Raises(TYPE_OR_VALUE, name))),
    ]


def cases() -> list[Case]:
    return [case for api in apis() for case in api.cases()]
