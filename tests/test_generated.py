"""The Python files generated from the headers, beside the compiled module.

``dnnl_interop/_ffi.pyi`` types the compiled module for type checkers,
``dnnl_interop/_args.py`` spells out the ``ARG_*`` names and
``dnnl_interop/_enums.py`` the C enums as Python enums and the format tags;
``build_ffi.py`` writes them from the same parse as the cdef. They are checked
in, so these tests regenerate them and compare, and check them against the
module that was actually compiled.
"""

from __future__ import annotations

import ast
import enum
import subprocess
import sys

import pytest

import dnnl_interop
from conftest import ROOT
from dnnl_interop import _args, _cdef, _enums, core
from dnnl_interop._ffi import ffi, lib


@pytest.fixture(scope="module")
def generated() -> dict[str, str]:
    return {str(path): text for path, text in _cdef.generated_files(ROOT / "headers").items()}


@pytest.fixture(scope="module")
def stub_lib() -> ast.ClassDef:
    tree = ast.parse((ROOT / _cdef.STUB_PATH).read_text())
    (cls,) = (node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "_Lib")
    return cls


def _members(cls: ast.ClassDef) -> dict[str, ast.stmt]:
    members: dict[str, ast.stmt] = {}
    for node in cls.body:
        if isinstance(node, ast.FunctionDef):
            members[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            members[node.target.id] = node
    return members


@pytest.mark.parametrize("path", [str(_cdef.STUB_PATH), str(_cdef.ARGS_PATH), str(_cdef.ENUMS_PATH)])
def test_the_checked_in_file_is_what_the_headers_generate(generated, path):
    assert (ROOT / path).read_text() == generated[path], f"{path} is stale: run python build_ffi.py"


def test_the_stub_types_every_name_of_the_compiled_lib_and_nothing_else(stub_lib):
    assert set(_members(stub_lib)) == set(dir(lib))


def test_each_stub_function_takes_as_many_arguments_as_the_compiled_function(stub_lib):
    functions = {name: node for name, node in _members(stub_lib).items() if isinstance(node, ast.FunctionDef)}
    assert functions
    for name, node in functions.items():
        ctype = ffi.typeof(getattr(lib, name))
        assert ctype.kind == "function", name
        assert len(node.args.posonlyargs) - 1 == len(ctype.args), name  # less self


def test_the_stub_types_constants_as_ints_and_handles_as_cdata(stub_lib):
    members = _members(stub_lib)
    for name in ("DNNL_ARG_SRC", "dnnl_f32", "DNNL_INTEROP_SIZED_FAILED", "RTLD_NOW"):
        assert ast.unparse(members[name].annotation) == "Final[int]", name
        assert isinstance(getattr(lib, name), int)
    assert ast.unparse(members["DNNL_MEMORY_ALLOCATE"].annotation) == "Final[CData]"
    assert isinstance(lib.DNNL_MEMORY_ALLOCATE, ffi.CData)


def test_arg_names_are_exactly_the_headers_dnnl_arg_indices():
    header = {name[len("DNNL_") :]: getattr(lib, name) for name in dir(lib) if name.startswith("DNNL_ARG_")}
    assert len(header) > 50
    assert set(_args.__all__) == set(header)
    assert {name: getattr(_args, name) for name in _args.__all__} == header
    assert header == _args.ARGS


def test_arg_names_are_exported_by_core_and_the_package():
    for name, value in _args.ARGS.items():
        assert getattr(core, name) == value, name
        assert getattr(dnnl_interop, name) == value, name
        assert name in core.__all__ and name in dnnl_interop.__all__, name


# --- _enums.py -------------------------------------------------------------------

ENUMS = {spec.name: spec for spec in _cdef.PYTHON_ENUMS}


def _compiled_enumerators(spec: _cdef.PythonEnum) -> dict[str, int]:
    """The C enum's enumerators as compiled into _ffi, less its own sentinel."""
    return {c: v for c, v in ffi.typeof(spec.c_type).relements.items() if not spec.is_sentinel(c)}


@pytest.mark.parametrize("name", ENUMS)
def test_each_generated_enum_is_its_compiled_c_enum(name):
    """Every enumerator of the compiled C enum (but its own ``*_max`` sentinel)
    is a member, aliases included, under the derived name with the value
    ``lib`` has; the class has no other member and says which C type it is."""
    spec = ENUMS[name]
    cls = getattr(_enums, name)
    assert issubclass(cls, enum.IntFlag if spec.base == "IntFlag" else enum.IntEnum)
    assert spec.c_type in (cls.__doc__ or "")
    compiled = _compiled_enumerators(spec)
    assert compiled
    expected = {spec.member_name(c): (c, value) for c, value in compiled.items()}
    assert len(expected) == len(compiled), f"{name}: two enumerators give one member name"
    assert set(cls.__members__) == set(expected)
    for member, (c_name, value) in expected.items():
        assert cls.__members__[member] == value == getattr(lib, c_name), (name, member, c_name)
    assert f"dnnl_{spec.stem}_max" not in compiled


def test_generated_enums_use_onednns_names():
    examples = {
        "DataType.F32": "dnnl_f32",
        "DataType.UNDEF": "dnnl_data_type_undef",
        "EngineKind.ANY": "dnnl_any_engine",
        "PropKind.FORWARD_INFERENCE": "dnnl_forward_inference",
        "PropKind.FORWARD": "dnnl_forward",  # an alias of FORWARD_TRAINING
        "AlgKind.ELTWISE_RELU": "dnnl_eltwise_relu",
        "AlgKind.CONVOLUTION_DIRECT": "dnnl_convolution_direct",
        "AlgKind.POOLING_MAX": "dnnl_pooling_max",  # a value, not a sentinel
        "FormatKind.ANY": "dnnl_format_kind_any",
        "Query.EXEC_ARG_MD": "dnnl_query_exec_arg_md",
    }
    for python, c_name in examples.items():
        cls, member = python.split(".")
        assert getattr(_enums, cls)[member] == getattr(lib, c_name), python
    assert _enums.PropKind.FORWARD is _enums.PropKind.FORWARD_TRAINING
    assert "MAX" not in _enums.Query.__members__ and "MAX" not in _enums.DataType.__members__
    flags = _enums.NormalizationFlags.USE_SCALE | _enums.NormalizationFlags.USE_SHIFT
    assert isinstance(flags, _enums.NormalizationFlags) and flags == lib.dnnl_use_scale | lib.dnnl_use_shift


@pytest.mark.parametrize("name", ["DataType", "EngineKind"])
def test_generated_enum_has_the_hand_written_enums_members(name):
    """The generated DataType and EngineKind are core's, member for member."""
    generated, written = getattr(_enums, name), getattr(core, name)
    assert [(m.name, m.value) for m in generated] == [(m.name, m.value) for m in written]


def test_format_tags_are_the_compiled_enums_and_cores():
    relements = ffi.typeof("dnnl_format_tag_t").relements
    assert _enums.FORMAT_TAGS["any"] == lib.dnnl_format_tag_any
    assert not any(name.startswith("format_tag_") for name in _enums.FORMAT_TAGS)
    for name, value in _enums.FORMAT_TAGS.items():
        if name != "any":
            assert relements[f"dnnl_{name}"] == value, name
    sentinels = [c for c in relements if c.startswith("dnnl_format_tag_") and c != "dnnl_format_tag_any"]
    assert len(_enums.FORMAT_TAGS) == len(relements) - len(sentinels)
    assert dnnl_interop.format_tags() == sorted(_enums.FORMAT_TAGS)  # what users see


def test_the_enum_generator_refuses_member_names_that_collide():
    """Two enumerators that would give one member name stop the build."""
    decls = _cdef.parse("typedef enum { dnnl_thing_kind_a = 1, dnnl_a = 2 } dnnl_thing_kind_t;")
    spec = _cdef.PythonEnum("ThingKind", "dnnl_thing_kind_t")
    with pytest.raises(ValueError, match="dnnl_a gives the member name 'A'"):
        _cdef.python_enum_members(spec, decls)


def test_the_enums_module_is_a_leaf():
    """_enums.py imports only enum (its values are literals): importing it
    loads neither the compiled module nor the rest of the package."""
    tree = ast.parse((ROOT / _cdef.ENUMS_PATH).read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add("." * node.level + (node.module or ""))
    assert imported == {"enum"}
    code = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('leaf', {str(ROOT / _cdef.ENUMS_PATH)!r})\n"
        "spec.loader.exec_module(importlib.util.module_from_spec(spec))\n"
        "print(sorted(n for n in sys.modules if n.startswith(('dnnl_interop', '_cffi'))))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd="/", timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
