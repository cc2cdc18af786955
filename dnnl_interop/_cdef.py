"""oneDNN's headers, parsed into cffi declarations: the cdef of ``dnnl_interop._ffi``.

Used twice: by the build (``build_ffi.py`` and ``ffibuild/``, which load this
file by path, without importing the package they build), and at run time by
:mod:`dnnl_interop.embedding`, to give other cffi modules a builder that
declares our types. It imports nothing from the package.

The C source of ``_ffi`` is not made here: the hand-written C is in
``dnnl_interop/csrc/`` and ``ffibuild/source.py`` generates the rest (a
trampoline, a stub and a slot per function, the size-query helpers) at build
time. What cffi declares of that C comes from the ``.cdef`` and shared ``.h``
files there: this module reads ``csrc/binding.cdef``, the part every builder
declares, which the wheel carries for :mod:`~dnnl_interop.embedding`.
"""


from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

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
    "dnnl_sycl_types.h",
    "dnnl_sycl.h",
)

# What the builder of other modules' ffi.include() declares: all but the SYCL interop, whose
# memory-kind enum cffi would check against the including module's C source, which (as
# documented) includes dnnl_ocl.h and dnnl_ze.h; the handles it passes are declared without it.
INCLUDE_HEADERS = tuple(name for name in HEADERS if name not in ("dnnl_sycl_types.h", "dnnl_sycl.h"))

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


def split_top_level(code: str) -> list[str]:
    *decls, rest = _split_outside_brackets(code, ";")
    if rest:
        raise ValueError(f"unterminated declaration: {rest[:80]!r}")
    return [d for d in decls if d != ";"]


def _split_params(text: str) -> list[str]:
    parts = (p.rstrip(",").strip() for p in _split_outside_brackets(text, ","))
    return [p for p in parts if p and p != "void"]


def parse_function(decl: str) -> Function:
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
    for decl in split_top_level(code):
        if "DNNL_API" in decl:
            result.functions.append(parse_function(decl))
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


# --- the cdef ------------------------------------------------------------------

# The hand-written C of _ffi and what cffi declares of it.
CSRC = Path(__file__).resolve().parent / "csrc"
# What every builder declares beside the headers: the function table's API, dlopen and its kin.
BINDING_CDEF = "binding.cdef"
MODULE = "dnnl_interop._ffi"


def read_csrc(name: str) -> str:
    """The text of ``dnnl_interop/csrc/<name>``."""
    return (CSRC / name).read_text()


def make_cdef(decls: Declarations) -> str:
    """The declarations of the headers and of the function table (``csrc/binding.cdef``):
    the cdef of every builder of ``dnnl_interop._ffi``. The build adds the rest
    (``ffibuild.source.make_private_cdef``)."""
    # cffi checks a macro's value with the value as a C literal, which INT64_MIN
    # has none of: such a macro is left for cffi to read from the source.
    lines = [
        f"#define {name} {'...' if value == INT64_MIN else value}" for name, value in decls.int_constants.items()
    ]
    lines += decls.types
    lines += [f"static void *const {name};" for name in decls.pointer_constants]
    lines += [f"{f.signature};" for f in decls.functions]
    lines.append(read_csrc(BINDING_CDEF))
    return "\n".join(lines) + "\n"


# The source an include-only builder is given: cffi reads an included builder's
# declarations and module name, never its source, and this one is not _ffi's.
INCLUDE_ONLY_SOURCE = (
    '#error "dnnl_interop.embedding.ffibuilder() is for ffi.include() only; '
    'build_ffi.py builds dnnl_interop._ffi"\n'
)


def make_include_builder(header_dir: Path) -> FFI:
    """A cffi builder that declares what ``dnnl_interop._ffi`` shares, for another
    module's ``ffi.include()``: the types, constants and functions of the headers in
    ``header_dir`` and the function table's API, under the module's name.

    Not the module's private helpers: cffi checks every struct of an included
    builder against the including module's C source, which only sees oneDNN's
    headers. Nor its C source, which no includer compiles (and this builder
    refuses to).
    """
    import cffi

    ffibuilder = cffi.FFI()
    ffibuilder.cdef(make_cdef(read_headers(Path(header_dir), INCLUDE_HEADERS)))
    ffibuilder.set_source(MODULE, INCLUDE_ONLY_SOURCE)
    return ffibuilder
