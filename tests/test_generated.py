"""The Python files generated from the headers, beside the compiled module.

``dnnl_interop/_ffi.pyi`` types the compiled module for type checkers and
``dnnl_interop/_args.py`` spells out the ``ARG_*`` names; ``build_ffi.py``
writes both from the same parse as the cdef. They are checked in, so these
tests regenerate them and compare, and check them against the module that
was actually compiled.
"""

from __future__ import annotations

import ast

import pytest

import dnnl_interop
from conftest import ROOT
from dnnl_interop import _args, _cdef, core
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


@pytest.mark.parametrize("path", [str(_cdef.STUB_PATH), str(_cdef.ARGS_PATH)])
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
