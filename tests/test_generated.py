"""The Python files generated from the headers, beside the compiled module.

``dnnl_interop/_ffi.pyi`` types the compiled module for type checkers,
``dnnl_interop/_args.py`` the ``Arg`` enum and its ``ARG_*`` names and
``dnnl_interop/_enums.py`` the C enums as Python enums and the format tags;
``build_ffi.py`` writes them from the same parse as the cdef
(``ffibuild/generated.py``, which is not installed: loaded here by path, as the
build loads it). They are checked in, so these tests regenerate them and
compare, and check them against the module that was actually compiled.
"""

from __future__ import annotations

import ast
import enum
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

import dnnl_interop
from conftest import ROOT
from dnnl_interop import _args, _cdef, _enums, core
from dnnl_interop._ffi import ffi, lib


def _load_build_ffi():
    spec = importlib.util.spec_from_file_location("build_ffi_generated", ROOT / "build_ffi.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


generators = _load_build_ffi().generated  # ffibuild/generated.py


@pytest.fixture(scope="module")
def generated() -> dict[str, str]:
    return {str(path): text for path, text in generators.generated_files(ROOT / "headers").items()}


@pytest.fixture(scope="module")
def stub_lib() -> ast.ClassDef:
    tree = ast.parse((ROOT / generators.STUB_PATH).read_text())
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


@pytest.mark.parametrize("path", [str(generators.STUB_PATH), str(generators.ARGS_PATH), str(generators.ENUMS_PATH)])
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
    assert set(_args.__all__) == {"Arg", *header}
    assert {name: getattr(_args, name) for name in header} == header
    assert header == _args.ARGS
    assert {f"ARG_{name}": int(member) for name, member in _args.Arg.__members__.items()} == header


def test_each_arg_name_is_a_member_of_arg():
    for name in _args.ARGS:
        assert getattr(_args, name) is _args.Arg[name.removeprefix("ARG_")], name


def test_an_arg_index_is_named_by_its_plain_name_and_the_others_are_aliases():
    Arg = _args.Arg
    assert Arg(lib.DNNL_ARG_SRC) is Arg.SRC is Arg.SRC_0 is Arg.SRC_LAYER is Arg.FROM
    assert Arg(lib.DNNL_ARG_DST) is Arg.DST is Arg.TO
    assert Arg(lib.DNNL_ARG_WEIGHTS) is Arg.WEIGHTS and Arg(lib.DNNL_ARG_DIFF_SRC) is Arg.DIFF_SRC
    assert Arg(lib.DNNL_ARG_SRC_1) is Arg.SRC_1  # the header's first name where there is no plain one
    assert repr(_args.ARG_SRC_0) == f"<Arg.SRC: {lib.DNNL_ARG_SRC}>"
    # Indices combine as ints.
    assert Arg.ATTR_SCALES | Arg.SRC == lib.DNNL_ARG_ATTR_SCALES | lib.DNNL_ARG_SRC
    assert type(Arg.MULTIPLE_SRC + 1) is int


def test_arg_is_exported_and_the_arg_names_importable_but_not_listed():
    for module in (core, dnnl_interop):
        assert "Arg" in module.__all__ and module.Arg is _args.Arg
        for name in _args.ARGS:
            assert getattr(module, name) is getattr(_args, name), name
            assert name not in module.__all__ and name not in dir(module), name
    namespace: dict[str, object] = {}
    exec("from dnnl_interop import ARG_SRC, ARG_DST\nfrom dnnl_interop.core import ARG_WEIGHTS", namespace)
    assert (namespace["ARG_SRC"], namespace["ARG_DST"], namespace["ARG_WEIGHTS"]) == (
        lib.DNNL_ARG_SRC, lib.DNNL_ARG_DST, lib.DNNL_ARG_WEIGHTS)


# --- _enums.py -------------------------------------------------------------------

ENUMS = {spec.name: spec for spec in generators.PYTHON_ENUMS}


def _compiled_enumerators(spec: generators.PythonEnum) -> dict[str, int]:
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
    spec = generators.PythonEnum("ThingKind", "dnnl_thing_kind_t")
    with pytest.raises(ValueError, match="dnnl_a gives the member name 'A'"):
        generators.python_enum_members(spec, decls)


@pytest.mark.parametrize("path", [str(generators.ENUMS_PATH), str(generators.ARGS_PATH)])
def test_the_generated_enum_modules_are_leaves(path):
    """_enums.py and _args.py import only enum and the enums' metaclass (their
    values are literals), which imports only enum: importing them loads
    neither the compiled module nor the rest of the package."""
    for source in (path, "dnnl_interop/_enum_type.py"):
        tree = ast.parse((ROOT / source).read_text())
        imported = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                imported |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module != "__future__":
                imported.add("." * node.level + (node.module or ""))
        assert imported == ({"enum"} if source.endswith("_enum_type.py") else {"enum", "._enum_type"}), source
    module = Path(path).stem
    code = (
        "import sys, types\n"
        "leaf = types.ModuleType('leaf')\n"
        f"leaf.__path__ = [{str(ROOT / 'dnnl_interop')!r}]\n"
        "sys.modules['leaf'] = leaf\n"
        f"import leaf.{module}\n"
        "print(sorted(n for n in sys.modules if n.startswith(('dnnl_interop', '_cffi'))))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd="/", timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
