"""The trimmed headers in ``headers/`` say what the targeted upstream oneDNN says.

``build_ffi.py`` builds the binding from ``headers/``; these tests parse those
files and the upstream headers of ``onednn-devel`` with the same parser and
require every declaration we kept to be upstream's, character for character
(modulo whitespace). ``build_ffi.py`` is loaded by path, as the build does: it
must stand alone, without the package it builds. ``scripts/update-headers.py``
regenerates ``headers/`` from the ``onednn-devel`` release in
``dnnl_interop/_target.py``: run on the installed headers it changes nothing.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile

import pytest
import tomllib

from conftest import ROOT, UPSTREAM_HEADERS
from dnnl_interop._target import ONEDNN_PYPI_VERSION, TARGET_ONEDNN

BUILD_FFI = ROOT / "build_ffi.py"
HEADER_DIR = ROOT / "headers"

HANDLE_FILES = ("opencl_handles.h", "level_zero_handles.h")
KHRONOS_CL_H = UPSTREAM_HEADERS.parent.parent / "CL" / "cl.h"  # from intel-sycl-rt
UPDATE_HEADERS = ROOT / "scripts" / "update-headers.py"
INTEROP_PREFIXES = ("dnnl_ocl_interop_", "dnnl_ze_interop_", "dnnl_sycl_interop_")


def _load_build_ffi():
    spec = importlib.util.spec_from_file_location("build_ffi_under_test", BUILD_FFI)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# The upstream files our trimmed copies come from, in include order.
UPSTREAM_FILES = tuple(name for name in _load_build_ffi().HEADERS if name not in HANDLE_FILES)


@pytest.fixture(scope="module")
def build_ffi():
    return _load_build_ffi()


@pytest.fixture(scope="module")
def ours(build_ffi):
    return build_ffi.read_headers()


@pytest.fixture(scope="module")
def upstream(build_ffi):
    missing = [name for name in UPSTREAM_FILES if not (UPSTREAM_HEADERS / name).is_file()]
    assert not missing, f"onednn-devel headers missing under {UPSTREAM_HEADERS}: {missing}"
    text = "\n".join((UPSTREAM_HEADERS / name).read_text() for name in UPSTREAM_FILES)
    return build_ffi.parse(text)


@pytest.fixture(scope="module")
def handle_types(build_ffi):
    """Typedefs of our two handle headers (they stand in for non-oneDNN headers)."""
    return build_ffi.read_headers(names=HANDLE_FILES).types


def norm(text: str) -> str:
    """Whitespace-insensitive form of a C declaration."""
    text = " ".join(text.split())
    return re.sub(r"\s*([*,()\[\];{}=])\s*", r"\1", text)


def _interop(functions, prefix):
    return {f.name for f in functions if f.name.startswith(prefix)}


# --- the build script ---------------------------------------------------------


def test_build_script_loads_by_path_without_the_package():
    """build_ffi.py runs stand-alone: loading it imports no dnnl_interop module."""
    code = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('b', {str(BUILD_FFI)!r})\n"
        "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
        "assert m.read_headers().functions\n"
        "print(sorted(n for n in sys.modules if n.startswith('dnnl_interop')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd="/", timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_build_parses_every_header_file_in_include_order(build_ffi):
    """The build reads all ten header files, the handle stand-ins first."""
    assert set(build_ffi.HEADERS) == {p.name for p in HEADER_DIR.glob("*.h")}
    assert build_ffi.HEADERS[:2] == HANDLE_FILES


# --- declarations against upstream -------------------------------------------


def test_every_function_is_upstreams(ours, upstream):
    """Each prototype of ours has upstream's name, return type and parameters."""
    theirs = {f.name: f for f in upstream.functions}
    names = [f.name for f in ours.functions]
    assert len(names) == len(set(names)), "a function is declared twice"
    for function in ours.functions:
        assert function.name in theirs, f"{function.name} is not an upstream function"
        upstream_function = theirs[function.name]
        assert norm(function.restype) == norm(upstream_function.restype), function.name
        assert [norm(decl) for decl, _ in function.params] == [
            norm(decl) for decl, _ in upstream_function.params
        ], function.name
        assert norm(function.signature) == norm(upstream_function.signature)


def test_all_interop_functions_are_declared(ours, upstream):
    """We declare every dnnl_ocl_interop_*, dnnl_ze_interop_* and dnnl_sycl_interop_* function of
    the targeted release, and no other."""
    for prefix in INTEROP_PREFIXES:
        assert _interop(upstream.functions, prefix), f"upstream declares no {prefix}* function"
        assert _interop(ours.functions, prefix) == _interop(upstream.functions, prefix)


def test_every_enum_has_exactly_upstreams_enumerators(ours, upstream):
    """An enum we keep is complete: the same enumerators with the same values."""
    assert "dnnl_status_t" in ours.enums
    for name, values in ours.enums.items():
        assert name in upstream.enums, f"{name} is not an upstream enum"
        assert values == upstream.enums[name], name
        assert list(values) == list(upstream.enums[name]), f"{name}: order differs"


def test_every_int_constant_has_upstreams_value(ours, upstream):
    """Each #define of ours exists upstream with the same integer value."""
    assert ours.int_constants, "no constants parsed"
    for name, value in ours.int_constants.items():
        assert name in upstream.int_constants, f"{name} is not an upstream constant"
        assert value == upstream.int_constants[name], name


def test_every_type_is_upstreams_text(ours, upstream, handle_types):
    """Each typedef, struct and enum of ours appears verbatim upstream."""
    theirs = {norm(text) for text in upstream.types}
    own = [text for text in ours.types if text not in handle_types]
    assert own
    for text in own:
        assert norm(text) in theirs, f"not upstream: {text[:200]}"


def test_pointer_constants_match_upstream(ours, upstream):
    """DNNL_MEMORY_NONE and DNNL_MEMORY_ALLOCATE have upstream's expressions."""
    assert set(ours.pointer_constants) == {"DNNL_MEMORY_NONE", "DNNL_MEMORY_ALLOCATE"}
    for name, expr in ours.pointer_constants.items():
        assert norm(expr) == norm(upstream.pointer_constants[name]), name


# --- the handle stand-ins ------------------------------------------------------


def _foreign_handle_types(functions, prefixes):
    """cl_* / ze_* type names used by the interop prototypes (parameter names dropped)."""
    used = set()
    for function in functions:
        if not function.name.startswith(("dnnl_ocl_interop_", "dnnl_ze_interop_")):
            continue
        for decl, pname in function.params:
            type_part = re.sub(rf"\b{pname}\b\s*(\[[^\]]*\])?\s*$", "", decl)
            used |= {t for t in re.findall(r"\b\w+\b", type_part) if t.startswith(prefixes)}
    return used


def _typedef_name(text):
    return re.search(r"(\w+)\s*;$", text).group(1)


def test_handle_headers_declare_every_foreign_type_upstream_uses(upstream, handle_types):
    """opencl_handles.h / level_zero_handles.h declare each cl_* / ze_* type
    the upstream interop prototypes use, as an opaque struct pointer."""
    declared = {_typedef_name(t): t for t in handle_types}
    used = _foreign_handle_types(upstream.functions, ("cl_", "ze_"))
    assert used >= {"cl_device_id", "cl_context", "ze_driver_handle_t", "ze_device_handle_t"}
    assert used <= set(declared), f"undeclared: {sorted(used - set(declared))}"
    for name, text in declared.items():
        assert norm(text) == norm(f"typedef struct _{name} *{name};"), text


def test_level_zero_handles_are_only_those_upstream_uses(upstream, handle_types):
    """No invented Level Zero names: each ze_* handle is used by dnnl_ze.h.

    (ze_api.h is not installed here, so its text cannot be compared.)"""
    ze_declared = {_typedef_name(t) for t in handle_types if _typedef_name(t).startswith("ze_")}
    assert ze_declared == _foreign_handle_types(upstream.functions, ("ze_",))


def test_opencl_handles_match_khronos_cl_h(handle_types):
    """Each OpenCL handle typedef is the one in the Khronos <CL/cl.h>."""
    assert KHRONOS_CL_H.is_file(), f"{KHRONOS_CL_H} missing: run scripts/setup-env.sh"
    khronos = {norm(m) for m in re.findall(r"typedef struct _cl_\w+\s*\*\s*cl_\w+;", KHRONOS_CL_H.read_text())}
    cl_types = [t for t in handle_types if _typedef_name(t).startswith("cl_")]
    assert len(cl_types) >= 5
    for text in cl_types:
        assert norm(text) in khronos, text


# --- release tracking -----------------------------------------------------------


def test_upstream_headers_are_the_targeted_release():
    """The upstream headers compared against are TARGET_ONEDNN's, from the
    onednn-devel release ONEDNN_PYPI_VERSION."""
    text = (UPSTREAM_HEADERS / "dnnl_version.h").read_text()
    parts = [re.search(rf"#define DNNL_VERSION_{p} (\d+)", text) for p in ("MAJOR", "MINOR", "PATCH")]
    assert ".".join(m.group(1) for m in parts if m) == TARGET_ONEDNN
    assert importlib.metadata.version("onednn-devel") == ONEDNN_PYPI_VERSION


@pytest.mark.parametrize("name", UPSTREAM_FILES)
def test_each_header_names_the_upstream_release_it_tracks(name):
    """Each trimmed header says which oneDNN release and file it copies."""
    head = (HEADER_DIR / name).read_text()[:2000]
    assert f"oneDNN v{TARGET_ONEDNN} include/oneapi/dnnl/{name}" in head
    assert f"(PyPI onednn-devel=={ONEDNN_PYPI_VERSION})" in head


def test_pyproject_pins_the_targeted_release():
    """The onednn extra and the test extra's onednn-devel pin ONEDNN_PYPI_VERSION,
    and that is what is installed."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert f"onednn=={ONEDNN_PYPI_VERSION}" in extras["onednn"]
    assert f"onednn-devel=={ONEDNN_PYPI_VERSION}" in extras["test"]
    assert importlib.metadata.version("onednn") == ONEDNN_PYPI_VERSION


# --- scripts/update-headers.py ---------------------------------------------------


def update_headers(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(UPDATE_HEADERS), *args], capture_output=True, text=True, timeout=120, cwd="/"
    )


def test_update_headers_reproduces_headers_from_the_installed_release():
    """--check against the installed onednn-devel headers finds no difference:
    headers/ is exactly what the script makes of the targeted release."""
    done = update_headers("--from-include", str(UPSTREAM_HEADERS), "--check")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "files that differ: none" in done.stdout
    assert "---" not in done.stdout and "declarations: no change" in done.stdout


@pytest.fixture
def headers_copy(tmp_path):
    copy = tmp_path / "headers"
    shutil.copytree(HEADER_DIR, copy)
    return copy


def test_update_headers_check_shows_a_difference_and_writes_nothing(headers_copy):
    """A header that differs from what the script makes: --check prints its
    unified diff and what changed, exits 1 and leaves the file as it was."""
    target = headers_copy / "dnnl_common_types.h"
    changed = target.read_text().replace("    dnnl_s64 = 16,\n", "")
    target.write_text(changed)
    done = update_headers("--from-include", str(UPSTREAM_HEADERS), "--headers", str(headers_copy), "--check")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "--- a/headers/dnnl_common_types.h" in done.stdout
    assert "+    dnnl_s64 = 16," in done.stdout
    assert "enum dnnl_data_type_t: +1 (dnnl_s64)" in done.stdout
    assert "files that differ: dnnl_common_types.h" in done.stdout
    assert target.read_text() == changed


def test_update_headers_writes_from_a_wheel(headers_copy, tmp_path):
    """From an onednn-devel wheel file, the script rewrites what differs; the
    version in the provenance line is the wheel's."""
    wheel = tmp_path / f"onednn_devel-{ONEDNN_PYPI_VERSION}-py2.py3-none-manylinux_2_28_x86_64.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for header in UPSTREAM_HEADERS.glob("*.h"):
            archive.write(header, f"onednn_devel-{ONEDNN_PYPI_VERSION}.data/data/include/oneapi/dnnl/{header.name}")
    (headers_copy / "dnnl_ze.h").write_text("stale\n")
    done = update_headers("--from-wheel", str(wheel), "--headers", str(headers_copy))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "wrote 1 file(s)" in done.stdout
    assert (headers_copy / "dnnl_ze.h").read_text() == (HEADER_DIR / "dnnl_ze.h").read_text()


def test_update_headers_refuses_to_write_when_upstream_lacks_a_kept_name(headers_copy, tmp_path):
    """A name the manifest keeps that upstream lacks is named, and nothing is
    written (exit 2) unless --allow-missing."""
    manifest = json.loads((ROOT / "scripts" / "headers-manifest.json").read_text())
    entry = next(e for e in manifest["files"] if e["file"] == "dnnl.h")
    entry["keep"].append("dnnl_no_such_function")
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    (headers_copy / "dnnl.h").write_text("stale\n")
    args = ("--from-include", str(UPSTREAM_HEADERS), "--headers", str(headers_copy),
            "--manifest", str(tmp_path / "manifest.json"))
    done = update_headers(*args)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "missing upstream in dnnl.h: dnnl_no_such_function" in done.stdout
    assert (headers_copy / "dnnl.h").read_text() == "stale\n"
    done = update_headers(*args, "--allow-missing")
    assert done.returncode == 0, done.stdout + done.stderr
    assert (headers_copy / "dnnl.h").read_text() == (HEADER_DIR / "dnnl.h").read_text()


# --- the parser -----------------------------------------------------------------


def test_parser_resolves_conditionals(build_ffi):
    """#if/#ifdef/#ifndef/#else/#endif keep exactly the active branches,
    nested, with macros defined earlier in the text or passed in."""
    snippet = """
#define FEATURE 1
#define OFF 0
#ifdef FEATURE
#define IN_IFDEF 1
#else
#define IN_IFDEF_ELSE 1
#endif
#ifndef FEATURE
#define IN_IFNDEF 1
#else
#define IN_IFNDEF_ELSE 2
#endif
#if OFF
DNNL_API int off_function(void);
#else
DNNL_API int on_function(int a);
#if 0
#define NESTED_DEAD 3
#else
#define NESTED_LIVE 4
#endif
#endif
#if FROM_CALLER
#define CALLER_ON 5
#endif
#ifdef UNDEFINED_NAME
#define DEAD 6
#endif
#define TEMP 7
#undef TEMP
#ifdef TEMP
#define AFTER_UNDEF 8
#endif
typedef enum { a_x = 1, a_y } a_t;
"""
    result = build_ffi.parse(snippet, {"FROM_CALLER": 1})
    assert "AFTER_UNDEF" not in result.int_constants
    assert {k: v for k, v in result.int_constants.items() if k != "TEMP"} == {
        "FEATURE": 1,
        "OFF": 0,
        "IN_IFDEF": 1,
        "IN_IFNDEF_ELSE": 2,
        "NESTED_LIVE": 4,
        "CALLER_ON": 5,
    }
    assert [f.signature for f in result.functions] == ["int on_function(int a)"]
    assert result.enums == {"a_t": {"a_x": 1, "a_y": 2}}

    off = build_ffi.parse(snippet, {"FROM_CALLER": 0})
    assert "CALLER_ON" not in off.int_constants


def test_parser_drops_includes_and_comments(build_ffi):
    """#include lines and comments declare nothing."""
    result = build_ffi.parse(
        '#include <stddef.h>\n#include "x.h"\n/* DNNL_API int a(void); */\n'
        "// DNNL_API int b(void);\nDNNL_API int c(void); /* trailing */\n"
    )
    assert [f.name for f in result.functions] == ["c"]
    assert result.int_constants == {}


def test_parser_reads_stdint_limits_and_the_module_has_them(build_ffi):
    """A macro naming a <stdint.h> limit is an integer constant (upstream's
    DNNL_RUNTIME_DIM_VAL is INT64_MIN, which has no C literal: the compiled
    module must still hold its exact value)."""
    result = build_ffi.parse("#define LOWEST INT64_MIN\n#define ALIAS LOWEST\n#define SMALL INT32_MIN\n")
    assert result.int_constants == {"LOWEST": -(2**63), "ALIAS": -(2**63), "SMALL": -(2**31)}
    from dnnl_interop._ffi import lib

    assert lib.DNNL_RUNTIME_DIM_VAL == -(2**63)


def test_upstream_conditionals_are_ones_the_parser_understands():
    """Outside dnnl_config.h's compiler detection, upstream uses only
    conditionals the parser evaluates: a single name or integer, no #elif."""
    simple = re.compile(r"#\s*(ifdef|ifndef)\s+\w+\s*$|#\s*if\s+(\w+)\s*$")
    for name in UPSTREAM_FILES[1:]:
        lines = (UPSTREAM_HEADERS / name).read_text().splitlines()
        for number, line in enumerate(lines, 1):
            stripped = line.strip()
            if re.match(r"#\s*elif\b", stripped):
                pytest.fail(f"{name}:{number}: #elif is not supported by the parser")
            if re.match(r"#\s*if(def|ndef)?\b", stripped):
                assert simple.match(stripped), f"{name}:{number}: {stripped}"


# --- the generated C -----------------------------------------------------------

WARNINGS_AS_ERRORS = ("-Wall", "-Wextra", "-Werror")


def test_generated_module_compiles_without_warnings(build_ffi, tmp_path):
    """The module's whole C source (the generated table, stubs, trampolines
    and protocol helpers, and cffi's wrappers around them) compiles with
    -Wall -Wextra -Werror, optimised (where gcc's flow analysis warns)."""
    source = tmp_path / "_ffi.c"
    build_ffi.ffibuilder.emit_c_code(str(source))
    done = subprocess.run(
        ["cc", "-c", "-O2", "-fPIC", *WARNINGS_AS_ERRORS, f"-I{sysconfig.get_paths()['include']}",
         str(source), "-o", str(tmp_path / "_ffi.o")],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr


# Functions of every kind of return type, added to the real declarations.
EXTRA_FUNCTIONS = """
void DNNL_API dnnl_test_void(int value);
size_t DNNL_API dnnl_test_size(int value);
const char DNNL_API *dnnl_test_pointer(void);
dnnl_engine_kind_t DNNL_API dnnl_test_enum(void);
dnnl_status_t DNNL_API dnnl_test_blob(dnnl_engine_t engine, size_t *size, uint8_t *blob);
"""
# A library that has the first two only.
EXTRA_LIBRARY = r"""
#include <stddef.h>
int dnnl_test_last = -1;
void dnnl_test_void(int value) { dnnl_test_last = value; }
size_t dnnl_test_size(int value) { return 2 * (size_t)value; }
"""


@pytest.fixture(scope="module")
def generated(build_ffi, tmp_path_factory):
    """A module generated from the real headers plus EXTRA_FUNCTIONS, built
    with warnings as errors, and the path of EXTRA_LIBRARY. Built unoptimised:
    its behaviour is under test here, the optimiser's warnings in the test above."""
    import cffi

    directory = tmp_path_factory.mktemp("generated")
    decls = build_ffi.read_headers()
    decls.functions += build_ffi.parse(EXTRA_FUNCTIONS).functions
    builder = cffi.FFI()
    builder.cdef(build_ffi.make_cdef(decls))
    builder.set_source(
        "_generated_under_test", build_ffi.make_source(decls), libraries=["dl"],
        extra_compile_args=[*WARNINGS_AS_ERRORS, "-O0", "-g0"],
    )
    path = builder.compile(tmpdir=str(directory))
    spec = importlib.util.spec_from_file_location("_generated_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    (directory / "extra.c").write_text(EXTRA_LIBRARY)
    library = directory / "libextra.so"
    subprocess.run(
        ["cc", "-shared", "-fPIC", *WARNINGS_AS_ERRORS, "-o", str(library), str(directory / "extra.c")],
        check=True, timeout=120,
    )
    return module, decls, str(library)


def test_generated_stubs_and_trampolines_handle_every_return_type(generated):
    """void, size, pointer and enum returns: before a bind each stub asks to
    load a library once per call and, when that fails, answers nothing or a
    zero and records the function (negated: no library). After a bind the
    functions the library has are called, with their arguments and results;
    the others answer a zero and record the function."""
    module, decls, library = generated
    ffi, lib = module.ffi, module.lib
    index = {f.name: i + 1 for i, f in enumerate(decls.functions)}
    autoloads = []

    @ffi.def_extern(name="_dnnl_interop_autoload")
    def autoload():
        autoloads.append(1)
        return 0  # no library could be loaded

    assert lib.dnnl_test_void(5) is None
    assert lib.dnnl_interop_take_unbound() == -index["dnnl_test_void"]
    assert lib.dnnl_test_size(3) == 0
    assert lib.dnnl_interop_take_unbound() == -index["dnnl_test_size"]
    assert len(autoloads) == 2

    handle = lib.dlopen(library.encode(), lib.RTLD_NOW | lib.RTLD_LOCAL)
    assert handle != ffi.NULL
    assert lib.dnnl_interop_bind(handle) == 2
    last = ffi.cast("int *", lib.dlsym(handle, b"dnnl_test_last"))

    assert lib.dnnl_test_void(7) is None and last[0] == 7
    assert lib.dnnl_interop_take_unbound() == 0
    assert lib.dnnl_test_size(21) == 42
    assert lib.dnnl_test_pointer() == ffi.NULL
    assert lib.dnnl_interop_take_unbound() == index["dnnl_test_pointer"]
    assert lib.dnnl_test_enum() == 0
    assert lib.dnnl_interop_take_unbound() == index["dnnl_test_enum"]
    assert len(autoloads) == 2  # a bound table never asks again


def test_generated_protocol_helper_of_a_new_function(generated):
    """A function added to the headers with the (size, buffer) shape gets a
    protocol helper that calls it: here the library lacks it, so the helper
    reports the stub's refusal of the size query."""
    module, _, _ = generated
    ffi, lib = module.ffi, module.lib
    record = ffi.new("dnnl_interop_sized_t *")
    result = lib.dnnl_interop_sized_dnnl_test_blob(ffi.NULL, ffi.NULL, record)
    assert result == lib.DNNL_INTEROP_SIZED_FAILED
    assert record.outcome == lib.DNNL_INTEROP_SIZED_QUERY_REFUSED
    assert record.status == lib.dnnl_unimplemented


def test_generator_refuses_parameter_names_that_clash_with_its_own(build_ffi):
    """A header parameter named like a generated local is an error at build
    time, not a silently shadowed variable."""
    decls = build_ffi.parse("dnnl_status_t DNNL_API f(int function);")
    with pytest.raises(ValueError, match="clashes"):
        build_ffi.make_source(decls)
