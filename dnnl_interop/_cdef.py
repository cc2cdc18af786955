"""oneDNN's headers, parsed into cffi declarations and generated C source.

Used twice: by ``build_ffi.py`` to build ``dnnl_interop._ffi`` (it loads this
file by path, without importing the package it is building), and by
:mod:`dnnl_interop.embedding` to give other cffi modules the same builder.
It imports nothing from the package.

Every oneDNN function becomes a small trampoline that calls through a table
of function pointers; ``dnnl_interop_bind()`` fills the table with ``dlsym``
once the Python layer has found a library. Until then, and for every function
the loaded library lacks, the slot holds a stub that

* asks Python (``_dnnl_interop_autoload``) to find and bind the library on the
  first call, then retries once, and otherwise
* records which function was missing in a thread-local and returns
  ``dnnl_unimplemented`` (or 0 / NULL for functions that return no status),

so nothing is ever called through NULL.
"""


import re
from dataclasses import dataclass, field
from pathlib import Path

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
    return parts + [text[start:].strip()]


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
        value = _int_value(body, result.int_constants)
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


def read_headers(directory: Path, names=HEADERS) -> Declarations:
    text = "\n".join((directory / name).read_text() for name in names)
    return parse(text)


# --- code generation -------------------------------------------------------

STUB_STATUS = "dnnl_unimplemented"

BINDING_CDEF = """
/* Run-time binding of the function table (see build_ffi.py). */
int dnnl_interop_bind(void *library);
size_t dnnl_interop_symbol_count(void);
const char *dnnl_interop_symbol_name(size_t index);
int dnnl_interop_symbol_is_bound(size_t index);
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


def _stub_result(restype: str) -> str:
    if restype == "dnnl_status_t":
        return STUB_STATUS
    return f"({restype})0"


def make_cdef(decls: Declarations) -> str:
    lines = [f"#define {name} {value}" for name, value in decls.int_constants.items()]
    lines += decls.types
    lines += [f"static void *const {name};" for name in decls.pointer_constants]
    lines += [f"{f.signature};" for f in decls.functions]
    return "\n".join(lines) + "\n" + BINDING_CDEF


def make_source(decls: Declarations) -> str:
    out = [
        "#define _GNU_SOURCE /* dladdr */",
        "#include <dlfcn.h>",
        "#include <stddef.h>",
        "#include <stdint.h>",
        "",
        *(f"#define {name} {value}" for name, value in decls.int_constants.items()),
        *decls.types,
        *(f"static void *const {name} = {expr};" for name, expr in decls.pointer_constants.items()),
        "",
        "static int _dnnl_interop_autoload(void); /* extern \"Python\" */",
        "static int dnnl_interop_is_bound = 0;",
        "static __thread int dnnl_interop_unbound_index = 0; /* 1-based */",
        "",
    ]
    table = []
    for index, f in enumerate(decls.functions):
        params = ", ".join(decl for decl, _ in f.params) or "void"
        args = ", ".join(name for _, name in f.params)
        slot, stub = f"dnnl_interop_slot_{f.name}", f"dnnl_interop_stub_{f.name}"
        out += [
            f"static {f.restype} {stub}({params});",
            f"static {f.restype} (*{slot})({params}) = {stub};",
            f"static {f.restype} {stub}({params}) {{",
            "    if (!dnnl_interop_is_bound && _dnnl_interop_autoload())",
            f"        return {slot}({args});",
            f"    dnnl_interop_unbound_index = {index + 1};",
            f"    return {_stub_result(f.restype)};",
            "}",
            f"static {f.restype} {f.name}({params}) {{",
            f"    return {slot}({args});",
            "}",
            "",
        ]
        table.append(f'    {{"{f.name}", (void **)&{slot}, (void *){stub}}},')
    out += [
        "static const struct { const char *name; void **slot; void *stub; }",
        "dnnl_interop_symbols[] = {",
        *table,
        "};",
        "#define DNNL_INTEROP_NSYMBOLS (sizeof(dnnl_interop_symbols) / sizeof(dnnl_interop_symbols[0]))",
        "",
        "static int dnnl_interop_bind(void *library) {",
        "    int bound = 0;",
        "    for (size_t i = 0; i < DNNL_INTEROP_NSYMBOLS; i++) {",
        "        void *address = dlsym(library, dnnl_interop_symbols[i].name);",
        "        *dnnl_interop_symbols[i].slot = address ? address : dnnl_interop_symbols[i].stub;",
        "        bound += address != NULL;",
        "    }",
        "    dnnl_interop_is_bound = 1;",
        "    return bound;",
        "}",
        "static size_t dnnl_interop_symbol_count(void) { return DNNL_INTEROP_NSYMBOLS; }",
        "static const char *dnnl_interop_symbol_name(size_t i) {",
        "    return i < DNNL_INTEROP_NSYMBOLS ? dnnl_interop_symbols[i].name : NULL;",
        "}",
        "static int dnnl_interop_symbol_is_bound(size_t i) {",
        "    return i < DNNL_INTEROP_NSYMBOLS",
        "        && *dnnl_interop_symbols[i].slot != dnnl_interop_symbols[i].stub;",
        "}",
        "static const char *dnnl_interop_file_of(const void *address) {",
        "    Dl_info info;",
        "    return dladdr(address, &info) ? info.dli_fname : NULL;",
        "}",
        "static int dnnl_interop_take_unbound(void) {",
        "    int index = dnnl_interop_unbound_index;",
        "    dnnl_interop_unbound_index = 0;",
        "    return index;",
        "}",
    ]
    return "\n".join(out) + "\n"


MODULE = "dnnl_interop._ffi"


def make_ffibuilder(header_dir: Path):
    """The cffi builder of ``dnnl_interop._ffi`` from the headers in ``header_dir``."""
    import cffi

    decls = read_headers(Path(header_dir))
    ffibuilder = cffi.FFI()
    ffibuilder.cdef(make_cdef(decls))
    ffibuilder.set_source(MODULE, make_source(decls), libraries=["dl"])
    return ffibuilder
