"""The C source of ``dnnl_interop._ffi``, its private cdef and its builder (build time only).

The hand-written C is in ``dnnl_interop/csrc/``, one file per job; this module
puts it in order around what it generates from the headers. Every oneDNN
function becomes a small trampoline that calls through a table of function
pointers (``csrc/table.c``); ``dnnl_interop_bind()`` fills the table with
``dlsym`` once the Python layer has found a library (``csrc/bind.c``). Until
then, and for every function the loaded library lacks, the slot holds a stub
that

* asks Python (``_dnnl_interop_autoload``) to find and bind the library if
  none is bound yet, then reads its slot again (a bind by another thread may
  have filled it since the call began) and calls through it if it can;
* otherwise records in a thread-local which function answered, and whether
  loading failed, and returns ``dnnl_unimplemented`` (a zero of the return
  type for functions that return no status, nothing for ``void``), which
  Python turns into ``MissingFunctionError`` or the loading error,

so nothing is ever called through NULL. Slots and the bound flag are C11
atomics (release on bind, acquire on call).

Functions of the shape ``dnnl_status_t f(..., size_t *size, uint8_t *buffer)``
also get ``dnnl_interop_sized_<f>``, the whole size-query-then-fill protocol
in one C call (``csrc/sized.c``, ``dnnl_interop/_sized.py``).
``dnnl_interop_execute_and_wait`` makes an execute and its stream's wait one C
call (``csrc/execute.c``, a bound execute's loop), and ``dnnl_interop_run_prepared``
the same from one struct prepared once (``csrc/prepared.c``: one argument to
convert per call); ``csrc/fastpath.c`` is the common case of execute and wait
with the in-flight ledger's bookkeeping (``dnnl_interop/_inflight.py``);
``csrc/dlpack.c`` is the C
side of DLPack capsules (``dnnl_interop/_dlpack.py``), and ``csrc/host_memory.c``
a memory of the CPU engine over a host tensor made and dropped (``dnnl_interop/_memory.py``).

The source is one translation unit, the files' text in order (no ``#include``
of them), so that everything stays ``static`` and the module exports nothing
but its init function, as cffi makes it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import cdef as _cdef

if TYPE_CHECKING:
    from cffi import FFI

Declarations = _cdef.Declarations
Function = _cdef.Function

STUB_STATUS = "dnnl_unimplemented"
# Prefix of every name the generated C adds (as csrc/ names its own); no header parameter may use it.
PREFIX = "dnnl_interop_"
SIZED_PREFIX = "dnnl_interop_sized_"

# The hand-written C, in the order of the source (see make_source).
SYSTEM = "system.h"  # the system headers
GLIBC_SYMBOL_VERSIONS = "glibc_symbol_versions.h"
TABLE = "table.c"  # before the functions' slots, stubs and trampolines
BIND = "bind.c"  # after the table of symbols
HELPERS = ("sized.h", "sized.c", "execute.h", "execute.c", "prepared.h", "prepared.c", "install.h", "fastpath.c",
           "exit.c", "dlpack.h", "dlpack.c", "host_memory.c")
# What cffi declares of the helpers, beside _cdef.make_cdef's: a .h is declared to
# cffi and to C alike, a .cdef to cffi only.
PRIVATE_CDEF = ("sized.h", "sized.cdef", "execute.h", "execute.cdef", "prepared.h", "prepared.cdef", "fastpath.cdef",
                "exit.cdef", "dlpack.h", "dlpack.cdef", "host_memory.cdef")


def csrc(name: str) -> str:
    """The text of ``dnnl_interop/csrc/<name>``, marked with its name for a reader of the whole source."""
    return f"/* ==== dnnl_interop/csrc/{name} ==== */\n{_cdef.read_csrc(name)}"


def _param_type(decl: str, name: str) -> str:
    """The type of parameter ``decl`` named ``name``, spaces normalised."""
    return re.sub(r"\s*\*\s*", " *", decl[: decl.rindex(name)]).strip()


def is_sized(function: Function) -> bool:
    """Whether ``function`` returns bytes by the size-query-then-fill protocol:
    ``dnnl_status_t f(..., size_t *size, uint8_t *buffer)``."""
    if function.restype != "dnnl_status_t" or len(function.params) < 2:
        return False
    (size_decl, size_name), (buffer_decl, buffer_name) = function.params[-2:]
    return (_param_type(size_decl, size_name), _param_type(buffer_decl, buffer_name)) == (
        "size_t *",
        "uint8_t *",
    )


def sized_function(f: Function) -> Function:
    """The declaration of ``dnnl_interop_sized_<f>`` (see ``csrc/sized.c``)."""
    pointer_params = ", ".join(decl for decl, _ in f.params)
    return Function(
        name=f"{SIZED_PREFIX}{f.name}",
        restype="ptrdiff_t",
        params=[
            (f"dnnl_status_t (*function)({pointer_params})", "function"),
            *f.params[:-2],
            ("dnnl_interop_sized_t *record", "record"),
        ],
    )


def _sized_cdef(f: Function) -> str:
    return f"{sized_function(f).signature};"


def make_private_cdef(decls: Declarations) -> str:
    """The cdef the module is built with: :func:`_cdef.make_cdef`'s, the helpers'
    declarations (``csrc/*.cdef`` and the shared ``.h``) and each
    ``dnnl_interop_sized_<f>``."""
    lines = [_cdef.make_cdef(decls)]
    lines += [_cdef.read_csrc(name) for name in PRIVATE_CDEF]
    lines += [_sized_cdef(f) for f in decls.functions if is_sized(f)]
    return "\n".join(lines) + "\n"


def _c_int(value: int) -> str:
    """``value`` as a C integer expression (``-9223372036854775808`` is none)."""
    return "INT64_MIN" if value == _cdef.INT64_MIN else str(value)


def _zero_of(restype: str) -> str:
    if restype == "dnnl_status_t":
        return STUB_STATUS
    return f"({restype}){{0}}"  # a compound literal: a zero of any type


def _check_names(f: Function, used: tuple[str, ...]) -> None:
    for _, name in f.params:
        if name.startswith(PREFIX) or name in used:
            raise ValueError(f"{f.name}: parameter name {name!r} clashes with generated code")


def _function_source(f: Function, index: int) -> list[str]:
    """Type, slot, stub and trampoline of one function."""
    _check_names(f, ("function",))
    params = ", ".join(decl for decl, _ in f.params) or "void"
    args = ", ".join(name for _, name in f.params)
    ftype, slot, stub = (f"{PREFIX}{kind}_{f.name}" for kind in ("type", "slot", "stub"))
    call = f"(({ftype})function)({args})"
    if f.restype == "void":
        stub_body = ["    if (function)", f"        {call};"]
        trampoline = f"    (({ftype}){PREFIX}enter(&{slot}))({args});"
    else:
        stub_body = [
            "    if (!function)",
            f"        return {_zero_of(f.restype)};",
            f"    return {call};",
        ]
        trampoline = f"    return (({ftype}){PREFIX}enter(&{slot}))({args});"
    return [
        f"/* {f.signature} */",
        f"typedef {f.restype} (*{ftype})({params});",
        f"static {f.restype} {stub}({params});",
        f"static _Atomic({PREFIX}fn) {slot} = ({PREFIX}fn){stub};",
        f"static {f.restype} {stub}({params}) {{",
        f"    {PREFIX}fn function = {PREFIX}resolve(&{slot}, ({PREFIX}fn){stub}, {index + 1});",
        *stub_body,
        "}",
        f"static {f.restype} {f.name}({params}) {{",
        trampoline,
        "}",
        "",
    ]


def _sized_source(f: Function) -> list[str]:
    """dnnl_interop_sized_<f>: the protocol for ``f``, or for a function of its type."""
    _check_names(f, ("function", "record", "leading", "context"))
    leading = f.params[:-2]
    for decl, _ in leading:
        if "[" in decl or "(" in decl:
            raise ValueError(f"{f.name}: cannot hold parameter {decl!r} in a struct")
    ftype = f"{PREFIX}type_{f.name}"
    leading_type = f"struct {SIZED_PREFIX}leading_{f.name}"
    bound = ", ".join(f"leading->{name}" for _, name in leading)
    helper_params = "".join(f", {decl}" for decl, _ in leading)
    initial = "".join(f", {name}" for _, name in leading)
    return [
        f"/* {f.name} by the protocol; function is NULL for oneDNN's own. */",
        f"{leading_type} {{",
        f"    {ftype} function;",
        *(f"    {decl};" for decl, _ in leading),
        "};",
        f"static dnnl_status_t {SIZED_PREFIX}call_{f.name}(const void *context, size_t *size, uint8_t *buffer) {{",
        f"    const {leading_type} *leading = context;",
        f"    return leading->function({bound + ', ' if bound else ''}size, buffer);",
        "}",
        f"static ptrdiff_t {SIZED_PREFIX}{f.name}({ftype} function{helper_params}, dnnl_interop_sized_t *record) {{",
        f"    {leading_type} leading = {{function ? function : {f.name}{initial}}};",
        f"    return dnnl_interop_query_then_fill({SIZED_PREFIX}call_{f.name}, &leading, record);",
        "}",
        "",
    ]


def make_source(decls: Declarations) -> str:
    """The C source of the module: the headers' declarations, the function table
    with each function's slot, stub and trampoline, the table of symbols, the
    bind and the helpers, then each function's size-query helper."""
    out = [
        csrc(SYSTEM),
        csrc(GLIBC_SYMBOL_VERSIONS),
        *(f"#define {name} {_c_int(value)}" for name, value in decls.int_constants.items()),
        *decls.types,
        *(f"static void *const {name} = {expr};" for name, expr in decls.pointer_constants.items()),
        csrc(TABLE),
    ]
    for index, f in enumerate(decls.functions):
        out += _function_source(f, index)
    out += [
        f"static const struct {PREFIX}symbol {{",
        "    const char *name;",
        f"    _Atomic({PREFIX}fn) *slot;",
        f"    {PREFIX}fn stub;",
        f"}} {PREFIX}symbols[] = {{",
        *(
            f'    {{"{f.name}", &{PREFIX}slot_{f.name}, ({PREFIX}fn){PREFIX}stub_{f.name}}},'
            for f in decls.functions
        ),
        "};",
        csrc(BIND),
        *(csrc(name) for name in HELPERS),
    ]
    for f in decls.functions:
        if is_sized(f):
            out += _sized_source(f)
    return "\n".join(out) + "\n"


def make_ffibuilder(header_dir: Path, **compile_options: Any) -> FFI:
    """The cffi builder of ``dnnl_interop._ffi`` from the headers in ``header_dir``:
    the private cdef and the whole source. ``compile_options`` go to
    ``set_source`` (e.g. ``extra_compile_args``)."""
    import cffi

    decls = _cdef.read_headers(Path(header_dir))
    ffibuilder = cffi.FFI()
    ffibuilder.cdef(make_private_cdef(decls))
    ffibuilder.set_source(_cdef.MODULE, make_source(decls), libraries=["dl"], **compile_options)
    return ffibuilder
