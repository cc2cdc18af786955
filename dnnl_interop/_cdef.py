"""oneDNN's headers, parsed into cffi declarations and generated C source.

Used twice: by ``build_ffi.py`` to build ``dnnl_interop._ffi`` (it loads this
file by path, without importing the package it is building), and by
:mod:`dnnl_interop.embedding` to give other cffi modules the same builder.
It imports nothing from the package.

Every oneDNN function becomes a small trampoline that calls through a table
of function pointers; ``dnnl_interop_bind()`` fills the table with ``dlsym``
once the Python layer has found a library. Until then, and for every function
the loaded library lacks, the slot holds a stub that

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
in one C call (see ``dnnl_interop/_sized.py``). ``dnnl_interop_execute_and_wait``
makes an execute and its stream's wait one C call (a bound execute's loop);
``dnnl_interop_skip_exit_handlers`` ends a process forked after CPU work
without the exit handlers that would hang it (see ``EXIT_CDEF``).
``DLPACK_SOURCE`` holds the C side of DLPack capsules (``dnnl_interop/_dlpack.py``).
"""


from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cffi import FFI

# Parsed in this order; each file uses only names declared before it.
HEADERS = (
    "opencl_handles.h",
    "level_zero_handles.h",
    "dnnl_config.h",
    "dnnl_common_types.h",
    "dnnl_types.h",
    "dnnl_common.h",
    "dnnl.h",
    "dnnl_ocl_types.h",
    "dnnl_ocl.h",
    "dnnl_ze.h",
)

# Macros as the released library is configured (dnnl_config.h of the PyPI build).
CONFIGURED_MACROS = {"DNNL_EXPERIMENTAL_GROUPED_MEMORY": 0}


@dataclass
class Function:
    name: str
    restype: str
    params: list[tuple[str, str]]  # (declaration, parameter name)

    @property
    def signature(self) -> str:
        args = ", ".join(decl for decl, _ in self.params) or "void"
        return f"{self.restype} {self.name}({args})"


@dataclass
class Declarations:
    types: list[str] = field(default_factory=list)  # typedefs, enums, structs
    functions: list[Function] = field(default_factory=list)
    int_constants: dict[str, int] = field(default_factory=dict)
    pointer_constants: dict[str, str] = field(default_factory=dict)  # name -> C expr
    enums: dict[str, dict[str, int]] = field(default_factory=dict)


def strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


_INT_RE = re.compile(r"^\(?\s*(-?(?:0[xX][0-9a-fA-F]+|\d+))[uUlL]*\s*\)?$")
INT64_MIN = -(2**63)
# <stdint.h> limits a macro body may name (DNNL_RUNTIME_DIM_VAL is INT64_MIN).
STDINT_LIMITS = {"INT32_MIN": -(2**31), "INT32_MAX": 2**31 - 1, "INT64_MIN": INT64_MIN, "INT64_MAX": 2**63 - 1}


def _int_value(expr: str, known: dict[str, int]) -> int | None:
    expr = expr.strip()
    match = _INT_RE.match(expr)
    if match:
        return int(match.group(1), 0)
    return known.get(expr)


def preprocess(text: str, macros: dict[str, int | None]) -> tuple[str, list[tuple[str, str]]]:
    """Resolve conditionals; return the code and the object-like #defines.

    Supports what oneDNN's headers use: #if/#ifdef/#ifndef/#else/#endif with
    a single macro name or integer, #define, #include (dropped) and #undef.
    ``macros`` is updated with every #define met on an active line.
    """
    out: list[str] = []
    defines: list[tuple[str, str]] = []
    active = [True]
    lines = strip_comments(text).replace("\\\n", " ").splitlines()
    for line in lines:
        stripped = line.strip()
        if not stripped.startswith("#"):
            if all(active):
                out.append(line)
            continue
        directive, _, rest = stripped[1:].strip().partition(" ")
        rest = rest.strip()
        if directive in ("if", "ifdef", "ifndef"):
            if directive == "ifdef":
                value = rest in macros
            elif directive == "ifndef":
                value = rest not in macros
            else:
                number = _int_value(rest, {k: v for k, v in macros.items() if v is not None})
                value = bool(number) if number is not None else False
            active.append(value)
        elif directive == "else":
            active[-1] = not active[-1]
        elif directive == "endif":
            active.pop()
        elif not all(active):
            continue
        elif directive == "define":
            name, _, body = rest.partition(" ")
            if "(" in name:  # function-like macro: not a declaration
                continue
            body = body.strip()
            macros[name] = _int_value(body, {k: v for k, v in macros.items() if v is not None})
            if body:
                defines.append((name, body))
        elif directive == "undef":
            macros.pop(rest, None)
    return "\n".join(out), defines


def _split_outside_brackets(text: str, separator: str) -> list[str]:
    """Split ``text`` after each ``separator`` not inside (), [] or {}."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == separator and depth == 0:
            parts.append(text[start : i + 1].strip())
            start = i + 1
    return [*parts, text[start:].strip()]


def _split_top_level(code: str) -> list[str]:
    *decls, rest = _split_outside_brackets(code, ";")
    if rest:
        raise ValueError(f"unterminated declaration: {rest[:80]!r}")
    return [d for d in decls if d != ";"]


def _split_params(text: str) -> list[str]:
    parts = (p.rstrip(",").strip() for p in _split_outside_brackets(text, ","))
    return [p for p in parts if p and p != "void"]


def _parse_function(decl: str) -> Function:
    decl = " ".join(decl.replace("DNNL_API", " ").split())
    match = re.match(r"^(.*?)(\w+)\s*\((.*)\)\s*;$", decl, re.S)
    if not match:
        raise ValueError(f"cannot parse prototype: {decl!r}")
    restype, name, params = match.groups()
    parsed = []
    for param in _split_params(params):
        pname = re.findall(r"(\w+)\s*(?:\[[^\]]*\])?$", param)
        if not pname:
            raise ValueError(f"unnamed parameter in {name}: {param!r}")
        parsed.append((param, pname[-1]))
    return Function(name=name, restype=" ".join(restype.split()), params=parsed)


def _parse_enum(decl: str, known: dict[str, int]) -> tuple[str, dict[str, int]]:
    body = decl[decl.index("{") + 1 : decl.rindex("}")]
    name = decl[decl.rindex("}") + 1 :].strip(" ;")
    values: dict[str, int] = {}
    next_value = 0
    for item in (i.strip() for i in body.split(",")):
        if not item:
            continue
        key, _, expr = (s.strip() for s in item.partition("="))
        if expr:
            value = _int_value(expr, {**known, **values})
            if value is None:
                raise ValueError(f"enum {name}: cannot evaluate {item!r}")
        else:
            value = next_value
        values[key] = value
        next_value = value + 1
    return name, values


def parse(text: str, macros: dict[str, int | None] | None = None) -> Declarations:
    """Parse one header's text (or several joined) into declarations."""
    macros = dict(CONFIGURED_MACROS) if macros is None else macros
    code, defines = preprocess(text, macros)
    result = Declarations()
    for name, body in defines:
        value = _int_value(body, {**STDINT_LIMITS, **result.int_constants})
        if value is not None:
            result.int_constants[name] = value
        elif "void" in body or body in ("(NULL)", "NULL"):
            result.pointer_constants[name] = body
        # Other bodies (DNNL_API, expressions over floats, ...) declare nothing.
    known_enum_values: dict[str, int] = {}
    for decl in _split_top_level(code):
        if "DNNL_API" in decl:
            result.functions.append(_parse_function(decl))
            continue
        if re.match(r"typedef\s+enum\b", decl):
            name, values = _parse_enum(decl, known_enum_values)
            result.enums[name] = values
            known_enum_values.update(values)
        result.types.append(" ".join(decl.split()))
    return result


def read_headers(directory: Path, names: Iterable[str] = HEADERS) -> Declarations:
    text = "\n".join((directory / name).read_text() for name in names)
    return parse(text)


# --- code generation -------------------------------------------------------

STUB_STATUS = "dnnl_unimplemented"
# Prefix of every name the generated C adds; no header parameter may use it.
PREFIX = "dnnl_interop_"
SIZED_PREFIX = "dnnl_interop_sized_"
SIZED_ATTEMPTS = 4  # fills before the protocol gives up on a moving size
SIZED_SCRATCH = 1024  # results up to this size need no malloc (blob ids: ~140 bytes)

# The record of one size-query-then-fill call: declared to cffi and to C alike.
SIZED_RECORD = f"""
typedef struct {{
    size_t size;              /* bytes of the result */
    char *large;              /* a result larger than scratch: malloc'd, freed by
                                 dnnl_interop_sized_release() or the next call */
    int outcome;              /* why the protocol gave up: DNNL_INTEROP_SIZED_* */
    dnnl_status_t status;     /* status of the failed call (success: a fill that
                                 reported another size, or no memory) */
    size_t failed_size;       /* *size given to the last refused fill */
    size_t reported_size;     /* *size that fill left behind */
    char scratch[{SIZED_SCRATCH}];      /* a result that fits */
}} dnnl_interop_sized_t;
"""

BINDING_CDEF = """
/* Run-time binding of the function table (see _cdef.py). */
int dnnl_interop_bind(void *library);
size_t dnnl_interop_symbol_count(void);
const char *dnnl_interop_symbol_name(size_t index);
int dnnl_interop_symbol_is_bound(size_t index);
void *dnnl_interop_symbol_stub(size_t index);
int dnnl_interop_take_unbound(void);
extern "Python" int _dnnl_interop_autoload(void);

void *dlopen(const char *filename, int flags);
void *dlsym(void *handle, const char *symbol);
char *dlerror(void);
const char *dnnl_interop_file_of(const void *address);
#define RTLD_NOW ...
#define RTLD_LOCAL ...
#define RTLD_GLOBAL ...
#define RTLD_NOLOAD ...
"""

# glibc 2.34 moved dlopen and its kin from libdl into libc under a new symbol
# version, so a module linked there would need glibc 2.34 to load. On x86-64
# the references are bound to the versions every glibc has (libc keeps them),
# as a link against an older glibc makes them; the module then loads on glibc
# from 2.17 on (manylinux_2_28 and lower), where they live in libdl.so.2.
GLIBC_SYMBOL_VERSIONS = r"""
#if defined(__GLIBC__) && defined(__x86_64__)
__asm__(".symver dlopen,dlopen@GLIBC_2.2.5");
__asm__(".symver dlsym,dlsym@GLIBC_2.2.5");
__asm__(".symver dlerror,dlerror@GLIBC_2.2.5");
__asm__(".symver dladdr,dladdr@GLIBC_2.2.5");
#endif
"""

# The fixed part of the generated C, before the per-function code.
TABLE_SOURCE = r"""
/* ---- the function table ---------------------------------------------------
 * Each function has a slot holding oneDNN's function once a library is bound,
 * its stub until then and whenever the library lacks it. A slot holds its
 * pointer as the generic dnnl_interop_fn; calls cast it back to the function's
 * own type. Slots and the bound flag are C11 atomics: dnnl_interop_bind stores
 * with release, calls load with acquire, so a call that sees a bound slot (or
 * the flag) also sees everything the bind wrote before it. */
typedef void (*dnnl_interop_fn)(void);

static int _dnnl_interop_autoload(void); /* extern "Python": load_library() */
static atomic_int dnnl_interop_is_bound = 0;
/* What answered this thread's latest call through the table: 0 for a bound
 * function; for a stub, the function's 1-based index, negated if no library
 * could be loaded for that call (Python then holds this thread's error). */
static _Thread_local int dnnl_interop_unbound_index = 0;

static dnnl_interop_fn dnnl_interop_load(_Atomic(dnnl_interop_fn) *slot) {
    return atomic_load_explicit(slot, memory_order_acquire);
}

/* What every trampoline calls: the function its slot holds, after clearing
 * this thread's record of stub answers (a stub sets it again). */
static dnnl_interop_fn dnnl_interop_enter(_Atomic(dnnl_interop_fn) *slot) {
    dnnl_interop_unbound_index = 0;
    return dnnl_interop_load(slot);
}

/* What every stub does first: bind a library if none is bound (Python finds
 * it; a thread that arrives while another binds waits for that bind), then
 * read the slot again, since the bind may have filled it after this call
 * started. Returns the function the slot holds now, or NULL if it still holds
 * the stub (no library could be loaded, or it lacks the function): the index
 * is then left for Python to find (dnnl_interop_take_unbound). */
static dnnl_interop_fn dnnl_interop_resolve(
    _Atomic(dnnl_interop_fn) *slot, dnnl_interop_fn stub, int index) {
    int loaded = atomic_load_explicit(&dnnl_interop_is_bound, memory_order_acquire)
        || _dnnl_interop_autoload();
    dnnl_interop_fn function = dnnl_interop_load(slot);
    if (function != stub)
        return function;
    dnnl_interop_unbound_index = loaded ? index : -index;
    return NULL;
}
"""

BIND_SOURCE = r"""
#define DNNL_INTEROP_NSYMBOLS (sizeof(dnnl_interop_symbols) / sizeof(dnnl_interop_symbols[0]))

static int dnnl_interop_bind(void *library) {
    int bound = 0;
    for (size_t i = 0; i < DNNL_INTEROP_NSYMBOLS; i++) {
        const struct dnnl_interop_symbol *symbol = &dnnl_interop_symbols[i];
        void *address = dlsym(library, symbol->name);
        dnnl_interop_fn function = address ? (dnnl_interop_fn)address : symbol->stub;
        atomic_store_explicit(symbol->slot, function, memory_order_release);
        bound += address != NULL;
    }
    atomic_store_explicit(&dnnl_interop_is_bound, 1, memory_order_release);
    return bound;
}
static size_t dnnl_interop_symbol_count(void) { return DNNL_INTEROP_NSYMBOLS; }
static const char *dnnl_interop_symbol_name(size_t i) {
    return i < DNNL_INTEROP_NSYMBOLS ? dnnl_interop_symbols[i].name : NULL;
}
static int dnnl_interop_symbol_is_bound(size_t i) {
    return i < DNNL_INTEROP_NSYMBOLS
        && dnnl_interop_load(dnnl_interop_symbols[i].slot) != dnnl_interop_symbols[i].stub;
}
/* The stub of function i: where a call lands that read the slot before a bind. */
static void *dnnl_interop_symbol_stub(size_t i) {
    return i < DNNL_INTEROP_NSYMBOLS ? (void *)dnnl_interop_symbols[i].stub : NULL;
}
static int dnnl_interop_take_unbound(void) {
    int index = dnnl_interop_unbound_index;
    dnnl_interop_unbound_index = 0;
    return index;
}
static const char *dnnl_interop_file_of(const void *address) {
    Dl_info info;
    return dladdr(address, &info) ? info.dli_fname : NULL;
}
"""

SIZED_SOURCE = rf"""
/* ---- the size-query-then-fill protocol ------------------------------------
 * oneDNN returns byte strings (cache blobs, their ids) from functions
 * f(..., size_t *size, uint8_t *buffer): with a NULL buffer f writes the size;
 * with a buffer, *size must be exactly that size. dnnl_interop_sized_<f> runs
 * the whole protocol in one call: query; 0 bytes is a result; fill (into the
 * record's scratch, or a malloc'd block if larger); if the fill is refused or
 * reports another size, query again: a size that held still means the refusal
 * was real; otherwise fill again, at most DNNL_INTEROP_SIZED_ATTEMPTS fills.
 * It returns the result's size when the result is in record->scratch,
 * DNNL_INTEROP_SIZED_LARGE when it is in record->large, and
 * DNNL_INTEROP_SIZED_FAILED when record->outcome says why it gave up. */
#define DNNL_INTEROP_SIZED_ATTEMPTS {SIZED_ATTEMPTS}
#define DNNL_INTEROP_SIZED_LARGE (-1)
#define DNNL_INTEROP_SIZED_FAILED (-2)
#define DNNL_INTEROP_SIZED_QUERY_REFUSED 1 /* a size query failed */
#define DNNL_INTEROP_SIZED_FILL_REFUSED 2  /* a fill failed, the size held still */
#define DNNL_INTEROP_SIZED_SIZE_MOVED 3    /* the size moved before every fill */
#define DNNL_INTEROP_SIZED_NO_MEMORY 4     /* malloc of record->size bytes failed */

/* f with its leading arguments bound (see dnnl_interop_sized_call_<f>). */
typedef dnnl_status_t (*dnnl_interop_sized_call)(const void *context, size_t *size, uint8_t *buffer);

static void dnnl_interop_sized_release(dnnl_interop_sized_t *record) {{
    free(record->large);
    record->large = NULL;
}}

static ptrdiff_t dnnl_interop_sized_fail(dnnl_interop_sized_t *record, int outcome, dnnl_status_t status) {{
    record->outcome = outcome;
    record->status = status;
    return DNNL_INTEROP_SIZED_FAILED;
}}

static ptrdiff_t dnnl_interop_query_then_fill(
    dnnl_interop_sized_call call, const void *context, dnnl_interop_sized_t *record) {{
    dnnl_interop_sized_release(record);
    size_t size = 0;
    dnnl_status_t status = call(context, &size, NULL);
    for (int fills = 0;; fills++) {{
        if (status != dnnl_success)
            return dnnl_interop_sized_fail(record, DNNL_INTEROP_SIZED_QUERY_REFUSED, status);
        if (size == 0)
            return 0;
        if (fills > 0 && size == record->failed_size)
            return dnnl_interop_sized_fail(record, DNNL_INTEROP_SIZED_FILL_REFUSED, record->status);
        const size_t expected = size;
        uint8_t *buffer = (uint8_t *)record->scratch;
        if (expected > sizeof record->scratch) {{
            record->large = malloc(expected);
            if (record->large == NULL) {{
                record->size = expected;
                return dnnl_interop_sized_fail(record, DNNL_INTEROP_SIZED_NO_MEMORY, dnnl_success);
            }}
            buffer = (uint8_t *)record->large;
        }}
        status = call(context, &size, buffer);
        if (status == dnnl_success && size == expected) {{
            record->size = expected;
            return record->large ? DNNL_INTEROP_SIZED_LARGE : (ptrdiff_t)expected;
        }}
        dnnl_interop_sized_release(record);
        record->status = status;
        record->failed_size = expected;
        record->reported_size = size;
        if (fills + 1 == DNNL_INTEROP_SIZED_ATTEMPTS)
            return dnnl_interop_sized_fail(record, DNNL_INTEROP_SIZED_SIZE_MOVED, status);
        size = 0;
        status = call(context, &size, NULL);
    }}
}}
"""


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
    """The declaration of ``dnnl_interop_sized_<f>`` (see :data:`SIZED_SOURCE`)."""
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


SIZED_CDEF = """
/* The size-query-then-fill protocol: dnnl_interop_sized_<function>(). */
#define DNNL_INTEROP_SIZED_ATTEMPTS ...
#define DNNL_INTEROP_SIZED_LARGE ...
#define DNNL_INTEROP_SIZED_FAILED ...
#define DNNL_INTEROP_SIZED_QUERY_REFUSED ...
#define DNNL_INTEROP_SIZED_FILL_REFUSED ...
#define DNNL_INTEROP_SIZED_SIZE_MOVED ...
#define DNNL_INTEROP_SIZED_NO_MEMORY ...
void dnnl_interop_sized_release(dnnl_interop_sized_t *record);
"""


# An execute, then the wait for its stream, in one call from Python: the loop
# users run, from a binding (``_execution.BoundExecution``). NULL functions are
# oneDNN's own, through the function table (so a missing library or function
# answers as any call does); the tests give others.
EXECUTE_TYPES = """
typedef dnnl_status_t (*dnnl_interop_execute_fn)(
    const_dnnl_primitive_t, dnnl_stream_t, int, const dnnl_exec_arg_t *);
typedef dnnl_status_t (*dnnl_interop_wait_fn)(dnnl_stream_t);
"""

EXECUTE_CDEF = EXECUTE_TYPES + """
/* execute, then wait if it succeeded: 0, the execute's status, or the wait's status negated. */
int dnnl_interop_execute_and_wait(dnnl_interop_execute_fn execute, dnnl_interop_wait_fn wait,
                                  const_dnnl_primitive_t primitive, dnnl_stream_t stream,
                                  int nargs, const dnnl_exec_arg_t *args);
"""

EXECUTE_SOURCE = EXECUTE_TYPES + r"""
/* ---- an execute and its wait in one call (see EXECUTE_CDEF) ---------------- */
static int dnnl_interop_execute_and_wait(dnnl_interop_execute_fn execute, dnnl_interop_wait_fn wait,
        const_dnnl_primitive_t primitive, dnnl_stream_t stream, int nargs, const dnnl_exec_arg_t *args) {
    dnnl_status_t status = (execute ? execute : dnnl_primitive_execute)(primitive, stream, nargs, args);
    if (status != dnnl_success)
        return (int)status;
    status = (wait ? wait : dnnl_stream_wait)(stream);
    return status == dnnl_success ? 0 : -(int)status;
}
"""


# A process forked after oneDNN's CPU runtime started its threads hangs in exit():
# the runtime's own exit-time destructors wait for threads the child does not have
# (``_stream``'s at-fork hook). Registered in such a child, this handler runs before
# every exit handler registered earlier (the libraries' destructors among them),
# once Python has finalized: it flushes C stdio and ends the process with exit()'s
# status, as multiprocessing's fork children end with os._exit.
EXIT_CDEF = """
/* 1 if the handler is registered (glibc's on_exit), 0 if it cannot be. */
int dnnl_interop_skip_exit_handlers(void);
"""

EXIT_SOURCE = r"""
/* ---- ending a forked child without the exit handlers (see EXIT_CDEF) ------- */
#include <stdio.h>
#include <unistd.h>
#ifdef __GLIBC__
static void dnnl_interop_exit_now(int status, void *unused) {
    (void)unused;
    fflush(NULL);
    _exit(status);
}
#endif
static int dnnl_interop_skip_exit_handlers(void) {
#ifdef __GLIBC__
    return on_exit(dnnl_interop_exit_now, NULL) == 0;
#else
    return 0;
#endif
}
"""

# DLPack (https://github.com/dmlc/dlpack, Apache-2.0): the structs of dlpack.h
# v1.1 that the exchange needs, declared to cffi and to C alike. The enums of
# the header (device types, type codes) are int32_t / uint8_t fields here, of
# the same size; their values are in dnnl_interop/_dlpack.py.
DLPACK_TYPES = """
typedef struct { int32_t device_type; int32_t device_id; } DLDevice;
typedef struct { uint8_t code; uint8_t bits; uint16_t lanes; } DLDataType;
typedef struct {
    void *data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;
    int64_t *strides;
    uint64_t byte_offset;
} DLTensor;
typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;
typedef struct { uint32_t major; uint32_t minor; } DLPackVersion;
typedef struct DLManagedTensorVersioned {
    DLPackVersion version;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensorVersioned *self);
    uint64_t flags;
    DLTensor dl_tensor;
} DLManagedTensorVersioned;
"""

DLPACK_CDEF = """
/* DLPack capsules: see DLPACK_SOURCE. */
#define DLPACK_FLAG_BITMASK_READ_ONLY ...
#define DLPACK_FLAG_BITMASK_IS_COPIED ...
#define DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED ...
int dnnl_interop_dlpack_install(uintptr_t namespace);
void dnnl_interop_dlpack_delete(DLManagedTensor *managed);
void dnnl_interop_dlpack_delete_versioned(DLManagedTensorVersioned *managed);
"""

# PyCapsules are Python objects, which cffi cannot pass: dnnl_interop_dlpack_install
# puts three C functions of the Python C API (stable ABI only) into a dict given by
# its address (id(), CPython's address of the object): export and export_memory
# (a new capsule over a copy, or over a memory's own buffer) and take (a
# consumer's side: check, rename and read a capsule). The capsule destructor and the deleters are C: they may
# run at interpreter shutdown, or in a thread without the GIL.
DLPACK_SOURCE = r"""
/* ---- DLPack capsules (see DLPACK_CDEF) ------------------------------------- */
#include <string.h>
#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)
#define DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED (1UL << 2UL)

/* What the deleters of the tensors exported here do: let go of the Python
 * object that keeps the data valid, then free the one block that holds the
 * struct, the shape and the strides. A memory's own buffer is kept by a use of
 * the memory's handle (owner: a (memory, key) tuple, ended by memory._release(key));
 * a copy by the array that holds it (owner: the array). After finalization the
 * reference is leaked rather than touching a dead interpreter. */
static void dnnl_interop_dlpack_free(void *block, void *owner, int release) {
    if (owner != NULL && Py_IsInitialized()) {
        PyGILState_STATE gil = PyGILState_Ensure();
        PyObject *type, *value, *traceback;
        PyErr_Fetch(&type, &value, &traceback);
        if (release) {
            PyObject *result = PyObject_CallMethod(
                PyTuple_GetItem((PyObject *)owner, 0), "_release", "(O)", PyTuple_GetItem((PyObject *)owner, 1));
            if (result == NULL)
                PyErr_WriteUnraisable((PyObject *)owner);
            Py_DecRef(result);
        }
        Py_DecRef((PyObject *)owner);
        PyErr_Restore(type, value, traceback);
        PyGILState_Release(gil);
    }
    free(block);
}
static void dnnl_interop_dlpack_deleter(DLManagedTensor *self) {
    dnnl_interop_dlpack_free(self, self->manager_ctx, 0);
}
static void dnnl_interop_dlpack_deleter_versioned(DLManagedTensorVersioned *self) {
    dnnl_interop_dlpack_free(self, self->manager_ctx, 0);
}
static void dnnl_interop_dlpack_release_deleter(DLManagedTensor *self) {
    dnnl_interop_dlpack_free(self, self->manager_ctx, 1);
}
static void dnnl_interop_dlpack_release_deleter_versioned(DLManagedTensorVersioned *self) {
    dnnl_interop_dlpack_free(self, self->manager_ctx, 1);
}

/* A consumer's release of a tensor it took: its producer's deleter, once. */
static void dnnl_interop_dlpack_delete(DLManagedTensor *managed) {
    if (managed != NULL && managed->deleter != NULL)
        managed->deleter(managed);
}
static void dnnl_interop_dlpack_delete_versioned(DLManagedTensorVersioned *managed) {
    if (managed != NULL && managed->deleter != NULL)
        managed->deleter(managed);
}

/* The destructor of the capsules exported here: a capsule no consumer took
 * (still named "dltensor[_versioned]") releases its tensor. */
static void dnnl_interop_dlpack_capsule_destructor(PyObject *capsule) {
    if (PyCapsule_IsValid(capsule, "used_dltensor_versioned") || PyCapsule_IsValid(capsule, "used_dltensor"))
        return;
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    if (PyCapsule_IsValid(capsule, "dltensor_versioned"))
        dnnl_interop_dlpack_delete_versioned(PyCapsule_GetPointer(capsule, "dltensor_versioned"));
    else if (PyCapsule_IsValid(capsule, "dltensor"))
        dnnl_interop_dlpack_delete(PyCapsule_GetPointer(capsule, "dltensor"));
    else
        PyErr_WriteUnraisable(capsule);
    PyErr_Restore(type, value, traceback);
}

/* A capsule over a new tensor: template (see export) with data at address; owner
 * (a new reference, taken over) is its manager_ctx; release: whether the
 * deleter ends a use of a memory's handle (see dnnl_interop_dlpack_free). */
static PyObject *dnnl_interop_dlpack_capsule(PyObject *template_, void *address, PyObject *owner,
                                             unsigned long long flags, long minor, int release) {
    char *bytes;
    Py_ssize_t size;
    DLTensor model;
    if (PyBytes_AsStringAndSize(template_, &bytes, &size) < 0)
        goto fail;
    if (size < (Py_ssize_t)sizeof model) {
        PyErr_SetString(PyExc_ValueError, "export: the template is shorter than a DLTensor");
        goto fail;
    }
    memcpy(&model, bytes, sizeof model);
    size_t dims = (size_t)size - sizeof model;
    if (model.ndim < 0 || dims != 2 * (size_t)model.ndim * sizeof(int64_t)) {
        PyErr_SetString(PyExc_ValueError, "export: the template holds no shape and strides of its ndim");
        goto fail;
    }
    size_t head = minor >= 0 ? sizeof(DLManagedTensorVersioned) : sizeof(DLManagedTensor);
    char *block = malloc(head + dims);
    if (block == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    int64_t *shape = (int64_t *)(block + head);
    memcpy(shape, bytes + sizeof model, dims);
    model.data = address;
    model.shape = shape;
    model.strides = shape + model.ndim;
    const char *name;
    if (minor >= 0) {
        DLManagedTensorVersioned *managed = (DLManagedTensorVersioned *)block;
        managed->version.major = 1;
        managed->version.minor = (uint32_t)minor;
        managed->manager_ctx = owner;
        managed->deleter = release ? dnnl_interop_dlpack_release_deleter_versioned
                                   : dnnl_interop_dlpack_deleter_versioned;
        managed->flags = flags;
        managed->dl_tensor = model;
        name = "dltensor_versioned";
    } else {
        DLManagedTensor *managed = (DLManagedTensor *)block;
        managed->dl_tensor = model;
        managed->manager_ctx = owner;
        managed->deleter = release ? dnnl_interop_dlpack_release_deleter : dnnl_interop_dlpack_deleter;
        name = "dltensor";
    }
    PyObject *capsule = PyCapsule_New(block, name, dnnl_interop_dlpack_capsule_destructor);
    if (capsule == NULL) {
        free(block);
        goto fail;
    }
    return capsule;
fail:
    if (release) { /* the use of the memory's handle ends here */
        PyObject *type, *value, *traceback;
        PyErr_Fetch(&type, &value, &traceback);
        PyObject *result = PyObject_CallMethod(
            PyTuple_GetItem(owner, 0), "_release", "(O)", PyTuple_GetItem(owner, 1));
        Py_DecRef(result);
        PyErr_Restore(type, value, traceback);
    }
    Py_DecRef(owner);
    return NULL;
}

/* export(template, data, owner, flags, minor): a capsule over a copy. template:
 * the bytes of a DLTensor (data, shape and strides left out), followed by its
 * shape and strides (int64 each); data: its address; owner: what keeps the
 * data valid (a reference, dropped by the deleter); flags: the versioned
 * struct's; minor: the DLPack 1.x minor version of a versioned capsule, or -1
 * for a legacy "dltensor" one. */
static PyObject *dnnl_interop_dlpack_export(PyObject *self, PyObject *args) {
    PyObject *template_, *data, *owner, *flags_object, *minor_object;
    (void)self;
    if (!PyArg_UnpackTuple(args, "export", 5, 5, &template_, &data, &owner, &flags_object, &minor_object))
        return NULL;
    void *address = PyLong_AsVoidPtr(data);
    unsigned long long flags = PyLong_AsUnsignedLongLong(flags_object);
    long minor = PyLong_AsLong(minor_object);
    if (PyErr_Occurred())
        return NULL;
    Py_IncRef(owner);
    return dnnl_interop_dlpack_capsule(template_, address, owner, flags, minor, 0);
}

static unsigned long long dnnl_interop_dlpack_uses = 0; /* with the GIL held */

/* export_memory(template, memory, handle, address, flags, minor): a capsule over
 * a memory's own buffer. handle: the memory's _handle (a cffi pointer) and
 * address its value. A use of the handle is registered first (memory._users[
 * ("view", "dlpack", n)] = True, as a numpy view's), then the handle is checked
 * to still be the memory's, then its data handle read: the use keeps it valid
 * until the consumer's deleter ends it. Returns None for a closed memory, and
 * (for a buffer of no address) the int 0. */
static PyObject *dnnl_interop_dlpack_export_memory(PyObject *self, PyObject *args) {
    PyObject *template_, *memory, *handle, *address_object, *flags_object, *minor_object;
    (void)self;
    if (!PyArg_UnpackTuple(args, "export_memory", 6, 6, &template_, &memory, &handle, &address_object,
                           &flags_object, &minor_object))
        return NULL;
    void *c_memory = PyLong_AsVoidPtr(address_object);
    unsigned long long flags = PyLong_AsUnsignedLongLong(flags_object);
    long minor = PyLong_AsLong(minor_object);
    if (PyErr_Occurred())
        return NULL;
    PyObject *users = PyObject_GetAttrString(memory, "_users");
    if (users == NULL)
        return NULL;
    PyObject *key = Py_BuildValue("(ssK)", "view", "dlpack", ++dnnl_interop_dlpack_uses);
    PyObject *owner = key != NULL ? PyTuple_New(2) : NULL;
    if (owner == NULL || PyObject_SetItem(users, key, Py_True) < 0) {
        Py_DecRef(users);
        Py_DecRef(key);
        Py_DecRef(owner);
        return NULL;
    }
    Py_DecRef(users);
    Py_IncRef(memory);
    PyTuple_SetItem(owner, 0, memory);
    PyTuple_SetItem(owner, 1, key); /* owner holds memory and key from here on */
    PyObject *current = PyObject_GetAttrString(memory, "_handle");
    int same = current == handle;
    Py_DecRef(current);
    void *data = NULL;
    if (same && dnnl_memory_get_data_handle((dnnl_memory_t)c_memory, &data) != dnnl_success)
        same = 0;
    if (!same || data == NULL) {
        PyObject *result = PyObject_CallMethod(memory, "_release", "(O)", key);
        Py_DecRef(result);
        Py_DecRef(owner);
        if (PyErr_Occurred())
            return NULL;
        if (!same)
            Py_RETURN_NONE;
        return PyLong_FromLong(0);
    }
    return dnnl_interop_dlpack_capsule(template_, data, owner, flags, minor, 1);
}

/* take(capsule): None if it is no unused DLPack capsule; otherwise renamed
 * "used_dltensor[_versioned]" (the consumer owns the tensor from then on) and
 * (address of the managed struct, versioned, major, flags, data + byte_offset,
 * device_type, device_id, code, bits, lanes, shape, strides or None). A
 * versioned tensor of another major version gives (address, 1, major) only:
 * nothing else of it can be read. A tensor with no shape for its dimensions
 * raises BufferError, untaken. */
static PyObject *dnnl_interop_dlpack_take(PyObject *self, PyObject *capsule) {
    (void)self;
    int versioned;
    void *managed;
    DLTensor *tensor;
    unsigned long long flags = 0;
    unsigned int major = 0;
    if (PyCapsule_IsValid(capsule, "dltensor_versioned")) {
        DLManagedTensorVersioned *v = PyCapsule_GetPointer(capsule, "dltensor_versioned");
        versioned = 1, managed = v, tensor = &v->dl_tensor, flags = v->flags, major = v->version.major;
    } else if (PyCapsule_IsValid(capsule, "dltensor")) {
        DLManagedTensor *m = PyCapsule_GetPointer(capsule, "dltensor");
        versioned = 0, managed = m, tensor = &m->dl_tensor;
    } else {
        Py_RETURN_NONE;
    }
    if (versioned && major != 1) {
        if (PyCapsule_SetName(capsule, "used_dltensor_versioned") < 0)
            return NULL;
        return Py_BuildValue("(KiI)", (unsigned long long)(uintptr_t)managed, versioned, major);
    }
    int ndim = tensor->ndim;
    if (ndim < 0 || (ndim > 0 && tensor->shape == NULL)) {
        PyErr_SetString(PyExc_BufferError, "the DLPack tensor has no shape for its dimensions");
        return NULL;
    }
    PyObject *shape = PyTuple_New(ndim);
    PyObject *strides = tensor->strides != NULL ? PyTuple_New(ndim) : (Py_IncRef(Py_None), Py_None);
    if (shape == NULL || strides == NULL)
        goto fail;
    for (int i = 0; i < ndim; i++) {
        PyObject *item = PyLong_FromLongLong(tensor->shape[i]);
        if (item == NULL || PyTuple_SetItem(shape, i, item) < 0)
            goto fail;
        if (tensor->strides != NULL) {
            item = PyLong_FromLongLong(tensor->strides[i]);
            if (item == NULL || PyTuple_SetItem(strides, i, item) < 0)
                goto fail;
        }
    }
    if (PyCapsule_SetName(capsule, versioned ? "used_dltensor_versioned" : "used_dltensor") < 0)
        goto fail;
    return Py_BuildValue(
        "(KiIKKiiiiiNN)", (unsigned long long)(uintptr_t)managed, versioned, major, flags,
        (unsigned long long)((uintptr_t)tensor->data + tensor->byte_offset),
        (int)tensor->device.device_type, (int)tensor->device.device_id,
        (int)tensor->dtype.code, (int)tensor->dtype.bits, (int)tensor->dtype.lanes, shape, strides);
fail:
    Py_DecRef(shape);
    Py_DecRef(strides);
    return NULL;
}

static PyMethodDef dnnl_interop_dlpack_methods[] = {
    {"export", dnnl_interop_dlpack_export, METH_VARARGS, "A DLPack capsule over a copy (see _cdef.py)."},
    {"export_memory", dnnl_interop_dlpack_export_memory, METH_VARARGS,
     "A DLPack capsule over a memory's buffer (see _cdef.py)."},
    {"take", dnnl_interop_dlpack_take, METH_O, "Take a DLPack capsule as its consumer (see _cdef.py)."},
    {NULL, NULL, 0, NULL},
};

/* Put export and take into the dict at address namespace: 0, or -1 (error cleared). */
static int dnnl_interop_dlpack_install(uintptr_t namespace) {
    PyGILState_STATE gil = PyGILState_Ensure(); /* cffi calls C without the GIL */
    int status = 0;
    for (PyMethodDef *method = dnnl_interop_dlpack_methods; method->ml_name != NULL; method++) {
        PyObject *function = PyCFunction_NewEx(method, NULL, NULL);
        if (function == NULL || PyDict_SetItemString((PyObject *)namespace, method->ml_name, function) < 0) {
            PyErr_Clear();
            status = -1;
        }
        Py_DecRef(function);
    }
    PyGILState_Release(gil);
    return status;
}
"""


def _c_int(value: int) -> str:
    """``value`` as a C integer expression (``-9223372036854775808`` is none)."""
    return "INT64_MIN" if value == INT64_MIN else str(value)


def make_cdef(decls: Declarations, private: bool = True) -> str:
    """The cdef of ``dnnl_interop._ffi``; without ``private``, less what only
    the module's own source can compile (see :func:`make_ffibuilder`)."""
    # cffi checks a macro's value with the value as a C literal, which INT64_MIN
    # has none of: such a macro is left for cffi to read from the source.
    lines = [
        f"#define {name} {'...' if value == INT64_MIN else value}" for name, value in decls.int_constants.items()
    ]
    lines += decls.types
    lines += [f"static void *const {name};" for name in decls.pointer_constants]
    lines += [f"{f.signature};" for f in decls.functions]
    lines.append(BINDING_CDEF)
    if private:
        lines += [SIZED_RECORD, SIZED_CDEF, EXECUTE_CDEF, EXIT_CDEF, DLPACK_TYPES, DLPACK_CDEF]
        lines += [_sized_cdef(f) for f in decls.functions if is_sized(f)]
    return "\n".join(lines) + "\n"


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
    out = [
        "#ifndef _GNU_SOURCE /* for dladdr; Python.h usually defines it first */",
        "#define _GNU_SOURCE",
        "#endif",
        "#include <dlfcn.h>",
        "#include <stdatomic.h>",
        "#include <stddef.h>",
        "#include <stdint.h>",
        "#include <stdlib.h>",
        GLIBC_SYMBOL_VERSIONS,
        *(f"#define {name} {_c_int(value)}" for name, value in decls.int_constants.items()),
        *decls.types,
        *(f"static void *const {name} = {expr};" for name, expr in decls.pointer_constants.items()),
        TABLE_SOURCE,
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
        BIND_SOURCE,
        SIZED_RECORD,
        SIZED_SOURCE,
        EXECUTE_SOURCE,
        EXIT_SOURCE,
        DLPACK_TYPES,
        DLPACK_SOURCE,
    ]
    for f in decls.functions:
        if is_sized(f):
            out += _sized_source(f)
    return "\n".join(out) + "\n"


MODULE = "dnnl_interop._ffi"


def make_ffibuilder(header_dir: Path, *, private: bool = False, **compile_options: Any) -> FFI:
    """The cffi builder of ``dnnl_interop._ffi`` from the headers in ``header_dir``.

    ``private`` adds the record of the size-query-then-fill helpers
    (``dnnl_interop_sized_t``) and the helpers themselves: ``build_ffi.py``
    builds the module with them. Without it, the builder suits another
    module's ``ffi.include()``: cffi checks every struct of an included
    builder against the including module's C source, which only sees
    oneDNN's headers. ``compile_options`` go to ``set_source`` (e.g.
    ``extra_compile_args``).
    """
    decls = read_headers(Path(header_dir))
    ffibuilder = _builder(decls, private)
    ffibuilder.set_source(MODULE, make_source(decls), libraries=["dl"], **compile_options)
    return ffibuilder


# --- generated Python: the type stub of _ffi, the ARG_* names, the enums ------

GENERATED_NOTE = "Generated by dnnl_interop/_cdef.py from the headers in headers/ (python build_ffi.py); do not edit."
STUB_PATH = Path("dnnl_interop") / "_ffi.pyi"  # relative to the project root
ARGS_PATH = Path("dnnl_interop") / "_args.py"
ENUMS_PATH = Path("dnnl_interop") / "_enums.py"

_EXTRA_DECL_RE = re.compile(r"^\s*#define\s+(\w+)\s+\.\.\.\s*$|^\s*extern\s+\"Python\"[^;(]*?(\w+)\s*\(")


def _extra_declarations(cdef: str) -> tuple[list[Function], list[str], list[str]]:
    """Functions, integer macros and ``extern "Python"`` names of a hand-written cdef block."""
    functions: list[Function] = []
    macros: list[str] = []
    callbacks: list[str] = []
    code: list[str] = []
    for line in strip_comments(cdef).splitlines():
        match = _EXTRA_DECL_RE.match(line)
        if match and match.group(1):
            macros.append(match.group(1))
        elif match:
            callbacks.append(match.group(2))
        elif not line.lstrip().startswith("#"):
            code.append(line)
    for decl in _split_top_level("\n".join(code)):  # a declaration may span lines
        if decl[:-1].rstrip().endswith(")") and not decl.lstrip().startswith("typedef"):
            functions.append(_parse_function(decl))
    return functions, macros, callbacks


def _param_ctype(decl: str, name: str) -> str:
    """The C type of parameter ``decl``: its declaration less its name."""
    if f"(*{name})" in decl:  # a function pointer
        return decl.replace(f"(*{name})", "(*)", 1)
    return re.sub(rf"\b{name}\b(?=\s*(?:\[[^\]]*\])?\s*$)", "", decl).strip()


def _python_type(ffi: FFI, ctype: str, argument: bool) -> str:
    """What cffi takes for an argument of C type ``ctype`` (or gives back for a result)."""
    kind_of = ffi.typeof(ctype)
    kind = kind_of.kind
    if kind == "void":
        return "None"
    if kind == "enum":
        return "int"
    if kind == "primitive":
        return "float" if kind_of.cname in ("float", "double") else "int"
    if argument and kind in ("pointer", "array") and kind_of.item.kind in ("primitive", "enum"):
        item = kind_of.item
        if item.kind == "primitive" and item.cname in ("float", "double"):
            return "CData | Sequence[float]"
        if ffi.sizeof(item) == 1:
            return "bytes | CData"  # cffi passes bytes to char * and uint8_t * alike
        return "CData | Sequence[int]"  # cffi converts a list to a temporary array
    return "CData"


def _python_name(name: str) -> str:
    import keyword

    return f"{name}_" if keyword.iskeyword(name) else name


def _stub_function(ffi: FFI, f: Function) -> str:
    params = ["self"]
    params += [
        f"{_python_name(name)}: {_python_type(ffi, _param_ctype(decl, name), argument=True)}"
        for decl, name in f.params
    ]
    params.append("/")  # cffi takes positional arguments only
    restype = _python_type(ffi, f.restype, argument=False)
    return f"    def {f.name}({', '.join(params)}) -> {restype}: ..."


def make_stub(decls: Declarations, ffi: FFI | None = None) -> str:
    """The text of ``dnnl_interop/_ffi.pyi``: ``ffi`` and every name of ``lib``, typed.

    ``ffi`` is the builder of the module (:func:`make_ffibuilder`); its parse
    of the cdef says what each C type is.
    """
    ffi = ffi if ffi is not None else _builder(decls, private=True)
    extra = BINDING_CDEF + SIZED_CDEF + EXECUTE_CDEF + EXIT_CDEF + DLPACK_CDEF
    extra_functions, extra_macros, callbacks = _extra_declarations(extra)
    functions = [*decls.functions, *extra_functions, *(sized_function(f) for f in decls.functions if is_sized(f))]
    int_names = [*decls.int_constants, *extra_macros]
    for values in decls.enums.values():
        int_names += values
    lines = [
        f"# {GENERATED_NOTE}",
        "# The out-of-line API-mode cffi module dnnl_interop._ffi: oneDNN's C API and the binding's helpers.",
        "",
        "from collections.abc import Sequence",
        "from typing import Final, TypeAlias, final, overload",
        "",
        "from _cffi_backend import FFI, Lib",
        "",
        "CData: TypeAlias = FFI.CData",
        "CType: TypeAlias = FFI.CType",
        "",
        "# The module's FFI: its addressof() also takes the module's lib.",
        "@final",
        "class _FFI(FFI):",
        "    @overload",
        "    def addressof(self, cdata: CData, /, *field_or_index: str | int) -> CData: ...",
        "    @overload",
        "    def addressof(self, library: Lib, name: str, /) -> CData: ...",
        "    @overload",
        "    def addressof(self, library: _Lib, name: str, /) -> CData: ...",
        "",
        "@final",
        "class _Lib:",
        *(f"    {name}: Final[int]" for name in int_names),
        *(f"    {name}: Final[CData]" for name in decls.pointer_constants),
        *(f"    {name}: Final[CData]  # extern \"Python\"" for name in callbacks),
        *(_stub_function(ffi, f) for f in functions),
        "",
        "ffi: Final[_FFI]",
        "lib: Final[_Lib]",
    ]
    return "\n".join(lines) + "\n"


ARG_PREFIX = "DNNL_ARG_"


def arg_members(decls: Declarations) -> dict[str, tuple[str, int]]:
    """{``Arg`` member name: (C macro, value)} of every ``DNNL_ARG_<name>``, in header order,
    except that ``<name>`` comes before ``<name>_0`` of the same value: the first name
    of a value is the member's own (``Arg(1)`` is ``Arg.SRC``), the others aliases."""
    found = {c_name[len(ARG_PREFIX):]: (c_name, value)
             for c_name, value in decls.int_constants.items() if c_name.startswith(ARG_PREFIX)}
    order = list(found)
    for name in list(order):
        plain = name.removesuffix("_0")
        if plain != name and plain in found and found[plain][1] == found[name][1]:
            order.remove(plain)
            order.insert(order.index(name), plain)
    return {name: found[name] for name in order}


def make_args_module(decls: Declarations) -> str:
    """The text of ``dnnl_interop/_args.py``: the ``Arg`` enum, and ``ARG_<name>`` (its
    member) for every ``DNNL_ARG_<name>``."""
    members = arg_members(decls)
    header_order = [c_name[len(ARG_PREFIX):] for c_name in decls.int_constants if c_name.startswith(ARG_PREFIX)]
    return "\n".join(
        [
            f"# {GENERATED_NOTE}",
            '"""Execution-argument indices: the :class:`Arg` enum (``Arg.SRC`` is ``DNNL_ARG_SRC``),',
            "and each member under its oneDNN name (``ARG_SRC`` is ``Arg.SRC``).",
            "",
            "The package and ``core`` export ``Arg``; the ``ARG_*`` names are importable",
            "from both but left out of their ``__all__`` (and so of ``help()`` and ``dir()``).",
            "Values are literals: this module imports nothing but :mod:`enum` and the enums' metaclass.",
            '"""',
            "",
            "import enum",
            "",
            "from ._enum_type import EnumType",
            "",
            "__all__ = [",
            '    "Arg",',
            *(f'    "ARG_{name}",' for name in header_order),
            "]",
            "",
            "",
            "class Arg(enum.IntEnum, metaclass=EnumType):",
            '    """``DNNL_ARG_*``: the index of each execute argument, ``{Arg.SRC: memory, ...}``.',
            "",
            "    Each member is also the package's ``ARG_<name>`` (``dnnl_interop.ARG_SRC``",
            "    is ``Arg.SRC``). Names of one index are aliases: ``Arg.SRC_0``,",
            "    ``Arg.SRC_LAYER`` and ``Arg.FROM`` are ``Arg.SRC``. Indices combine as ints:",
            "    ``Arg.MULTIPLE_SRC + i`` (concat, sum), ``Arg.ATTR_SCALES | Arg.SRC``",
            "    (:func:`scales_arg`), :func:`post_op_arg`.",
            '    """',
            "",
            *(f"    {name} = {value}  # {c_name}" for name, (c_name, value) in members.items()),
            "",
            "",
            *(f"ARG_{name} = Arg.{name}" for name in header_order),
            "",
            "# {name: index} of every ARG_* name above.",
            "ARGS: dict[str, int] = {",
            *(f'    "ARG_{name}": ARG_{name},' for name in header_order),
            "}",
        ]
    ) + "\n"


@dataclass(frozen=True)
class PythonEnum:
    """A C enum written out as a Python enum in ``_enums.py``."""

    name: str  # the Python class
    c_type: str  # the C enum's typedef name
    base: str = "IntEnum"  # or "IntFlag" for bit flags
    suffix: str = ""  # also stripped from member names ("_engine": dnnl_any_engine is ANY)

    @property
    def stem(self) -> str:
        """The C type's own name: ``prop_kind`` for ``dnnl_prop_kind_t``."""
        return self.c_type.removeprefix("dnnl_").removesuffix("_t")

    def is_sentinel(self, c_name: str) -> bool:
        """Whether ``c_name`` is the enum's own ``dnnl_<stem>_max`` ("max value to
        prevent UB for internal-use-only values"), which no caller passes or receives.
        Other ``*_max`` enumerators are values (``dnnl_pooling_max``, ``dnnl_binary_max``)."""
        return c_name == f"dnnl_{self.stem}_max"

    def member_name(self, c_name: str) -> str:
        """``c_name`` less ``dnnl_<stem>_`` (or else ``dnnl_``) and :attr:`suffix`,
        upper-cased: ``dnnl_f32`` is ``F32``, ``dnnl_prop_kind_undef`` ``UNDEF``,
        ``dnnl_eltwise_relu`` ``ELTWISE_RELU``."""
        own = f"dnnl_{self.stem}_"
        name = c_name.removeprefix(own) if c_name.startswith(own) else c_name.removeprefix("dnnl_")
        if self.suffix:
            name = name.removesuffix(self.suffix)
        return name.upper()


# The C enums the Python API needs, in the order _enums.py defines them.
PYTHON_ENUMS = (
    PythonEnum("DataType", "dnnl_data_type_t"),
    PythonEnum("EngineKind", "dnnl_engine_kind_t", suffix="_engine"),
    PythonEnum("FormatKind", "dnnl_format_kind_t"),
    PythonEnum("PropKind", "dnnl_prop_kind_t"),
    PythonEnum("AlgKind", "dnnl_alg_kind_t"),
    PythonEnum("FpmathMode", "dnnl_fpmath_mode_t"),
    PythonEnum("AccumulationMode", "dnnl_accumulation_mode_t"),
    PythonEnum("ScratchpadMode", "dnnl_scratchpad_mode_t"),
    PythonEnum("QuantizationMode", "dnnl_quantization_mode_t"),
    PythonEnum("PrimitiveKind", "dnnl_primitive_kind_t"),
    PythonEnum("NormalizationFlags", "dnnl_normalization_flags_t", base="IntFlag"),
    PythonEnum("Query", "dnnl_query_t"),
)
FORMAT_TAG_TYPE = "dnnl_format_tag_t"


def python_enum_members(spec: PythonEnum, decls: Declarations) -> dict[str, tuple[str, int]]:
    """{Python member name: (C enumerator, value)} of ``spec``, in header order."""
    if spec.c_type not in decls.enums:
        raise ValueError(f"{spec.name}: the headers declare no {spec.c_type}")
    members: dict[str, tuple[str, int]] = {}
    for c_name, value in decls.enums[spec.c_type].items():
        if spec.is_sentinel(c_name):
            continue
        name = spec.member_name(c_name)
        if not name.isidentifier() or name.startswith("_") or name in members:
            raise ValueError(f"{spec.name}: {c_name} gives the member name {name!r}, unusable or taken")
        members[name] = (c_name, value)
    return members


def format_tags(decls: Declarations) -> dict[str, int]:
    """{name: value} of the format tags: ``dnnl_format_tag_t``'s enumerators less
    ``dnnl_``, without its ``dnnl_format_tag_*`` sentinels (undef, last) but ``any``."""
    return {
        "any" if c_name == "dnnl_format_tag_any" else c_name.removeprefix("dnnl_"): value
        for c_name, value in decls.enums[FORMAT_TAG_TYPE].items()
        if c_name == "dnnl_format_tag_any" or not c_name.startswith("dnnl_format_tag_")
    }


def make_enums_module(decls: Declarations) -> str:
    """The text of ``dnnl_interop/_enums.py``: :data:`PYTHON_ENUMS` and the format tags.

    A leaf module: values are written as literals, so it imports only ``enum``
    and the metaclass of ``_enum_type``.
    """
    lines = [
        f"# {GENERATED_NOTE}",
        '"""oneDNN\'s C enums as Python enums, and the format tags by name.',
        "",
        "Each class has its C enum's enumerators, named as oneDNN names them less",
        "``dnnl_`` (or the type's own ``dnnl_<type>_`` prefix, as in",
        "``dnnl_prop_kind_undef``), upper-cased: ``dnnl_f32`` is ``DataType.F32``,",
        "``dnnl_forward_inference`` ``PropKind.FORWARD_INFERENCE``. An enum's own",
        "``dnnl_<type>_max`` is left out: oneDNN's sentinel for internal values, which",
        "no caller passes or receives (``dnnl_pooling_max`` and the like are values",
        "and stay). Enumerators that share a value are aliases (``PropKind.FORWARD``).",
        "Values are literals: this module imports nothing but :mod:`enum` and the",
        "enums' metaclass (``dir()`` of a class lists its members, see ``_enum_type``).",
        '"""',
        "",
        "import enum",
        "",
        "from ._enum_type import EnumType",
        "",
        "__all__ = [",
        *(f'    "{spec.name}",' for spec in PYTHON_ENUMS),
        '    "FORMAT_TAGS",',
        "]",
    ]
    for spec in PYTHON_ENUMS:
        lines += [
            "",
            "",
            f"class {spec.name}(enum.{spec.base}, metaclass=EnumType):",
            f'    """``{spec.c_type}``."""',
            "",
            *(
                f"    {name} = {value}  # {c_name}"
                for name, (c_name, value) in python_enum_members(spec, decls).items()
            ),
        ]
    lines += [
        "",
        "",
        f"# {{name: value}} of the format tags: {FORMAT_TAG_TYPE}'s enumerators less dnnl_,",
        '# without its dnnl_format_tag_* sentinels but dnnl_format_tag_any, which is "any".',
        "FORMAT_TAGS: dict[str, int] = {",
        *(f'    "{name}": {value},' for name, value in format_tags(decls).items()),
        "}",
    ]
    return "\n".join(lines) + "\n"


def _builder(decls: Declarations, private: bool) -> FFI:
    import cffi

    ffibuilder = cffi.FFI()
    ffibuilder.cdef(make_cdef(decls, private))
    return ffibuilder


def generated_files(header_dir: Path, ffi: FFI | None = None) -> dict[Path, str]:
    """{path relative to the project root: text} of the Python files generated from the headers."""
    decls = read_headers(Path(header_dir))
    return {
        STUB_PATH: make_stub(decls, ffi),
        ARGS_PATH: make_args_module(decls),
        ENUMS_PATH: make_enums_module(decls),
    }
