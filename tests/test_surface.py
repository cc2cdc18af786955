"""What ``help()``, ``dir()`` and type checkers see of the package.

``dir()`` of every public module is its ``__all__``; an enum class's
``dir()`` and ``help()`` list its members, not the methods of ``int``; the
execute-argument indices are one enum, :class:`dnnl_interop.Arg`, whose
members keep their oneDNN names (``ARG_SRC``) outside ``__all__``; and type
checkers see those names as ints.
"""

from __future__ import annotations

import enum
import inspect
import pydoc
import subprocess
import sys
import textwrap
from importlib import import_module

import pytest

import dnnl_interop
from conftest import ROOT
from dnnl_interop import _args, _enums

PUBLIC_MODULES = (
    "dnnl_interop.core",
    "dnnl_interop.primitives",
    "dnnl_interop.ocl",
    "dnnl_interop.ze",
    "dnnl_interop.sycl",
    "dnnl_interop.cache",
    "dnnl_interop.embedding",
    "dnnl_interop.errors",
    "dnnl_interop.testing",
    "dnnl_interop.testing.emulated_gpu",
    "dnnl_interop.testing.emulated_level_zero",
    "dnnl_interop.testing.protocol",
    "dnnl_interop.testing.strategies",
    "dnnl_interop.testing.sycl_devices",
    "dnnl_interop.testing.pytest_plugin",
)


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_dir_of_every_public_module_is_its_all(name):
    module = import_module(name)
    assert dir(module) == sorted(module.__all__)
    assert [n for n in module.__all__ if not hasattr(module, n)] == []


def test_dir_of_the_package_is_its_all_its_version_and_the_names_documented_in_submodules():
    from dnnl_interop import errors, primitives

    elsewhere = {*primitives.__all__, *errors.__all__, "Version"}
    assert dir(dnnl_interop) == sorted({"__version__", *dnnl_interop.__all__, *elsewhere})
    assert [n for n in dnnl_interop.__all__ if not hasattr(dnnl_interop, n)] == []
    assert dnnl_interop.MatmulDesc is primitives.MatmulDesc
    assert dnnl_interop.InvalidArgumentsError is errors.InvalidArgumentsError


def test_help_of_the_package_documents_each_class_once():
    # A forward kind or an error class documented here would repeat every
    # method of PrimitiveDesc or of BaseException: they are documented in
    # dnnl_interop.primitives and dnnl_interop.errors, which help() names.
    text = pydoc.render_doc(dnnl_interop, renderer=pydoc.plaintext)
    documented = [getattr(dnnl_interop, name) for name in dnnl_interop.__all__]
    for cls in (obj for obj in documented if isinstance(obj, type)):
        assert f"inherited from {cls.__module__}.{cls.__qualname__}:" not in text, cls
    assert "class MatmulDesc" not in text and "class InvalidArgumentsError" not in text
    assert "dnnl_interop.primitives" in text and "dnnl_interop.errors" in text
    assert len(text.splitlines()) < 3700  # a repeated class would add hundreds of lines
    primitives = pydoc.render_doc(import_module("dnnl_interop.primitives"), renderer=pydoc.plaintext)
    assert "class MatmulDesc(" in primitives and "class LRNForwardDesc(" in primitives


def test_help_of_a_kind_shows_its_constructor_not_the_queries_it_inherits():
    # Each kind is a PrimitiveDesc: help() showed its some 30 queries again for
    # every kind, 5,900 lines for the package (600 now). They are documented once,
    # in PrimitiveDesc; a kind's own members are still shown, and a descriptor
    # (an instance) still lists its queries in dir().
    primitives = import_module("dnnl_interop.primitives")
    text = pydoc.render_doc(primitives, renderer=pydoc.plaintext)
    assert len(text.splitlines()) < 60 * len(primitives.__all__)  # was over 300 a kind
    assert "query_md" not in text and "inherited from" not in text
    kinds = [name for name in primitives.__all__ if isinstance(getattr(primitives, name), type)]
    assert set(primitives.__all__) - set(kinds) == {"workspace_memory"}  # the one function beside the kinds
    for name in kinds:
        cls = getattr(primitives, name)
        first = next(iter(inspect.signature(cls).parameters))
        assert f"class {name}(" in text and f" |  {name}({first}: 'Engine', " in text, name
        shown = pydoc.render_doc(cls, renderer=pydoc.plaintext)
        assert f" |  {name}({first}: 'Engine', " in shown and "query_md" not in shown, name
        assert cls.__doc__.split("\n")[0] in shown, name
        assert dir(cls) == sorted(set(vars(cls)) - {"__init__", "__new__", "__annotations__"}), name
        assert hasattr(cls, "query_md") and issubclass(cls, dnnl_interop.PrimitiveDesc)
    assert "query_md(self, what" in pydoc.render_doc(dnnl_interop.PrimitiveDesc, renderer=pydoc.plaintext)
    assert "query_md" in dir(dnnl_interop.PrimitiveDesc) and "close" in dir(dnnl_interop.PrimitiveDesc)


def test_dir_of_a_descriptor_lists_every_query(engine):
    with dnnl_interop.MemoryDesc((2, 3), "f32", "ab") as desc, \
            dnnl_interop.ReorderDesc(engine, desc, engine, desc) as reorder:
        assert {"query_md", "src_desc", "dst_desc", "arg_sizes", "impl_info", "close"} <= set(dir(reorder))


def test_the_pytest_plugin_still_offers_its_hooks_and_fixtures():
    # pytest finds hooks and fixtures by dir(): they are the plugin's __all__.
    plugin = import_module("dnnl_interop.testing.pytest_plugin")
    assert {"pytest_addoption", "pytest_load_initial_conftests", "pytest_report_header",
            "emulated_gpu", "emulated_level_zero"} <= set(dir(plugin))


def _enum_classes() -> list[type[enum.Enum]]:
    from dnnl_interop import ocl

    found = [getattr(_enums, name) for name in _enums.__all__ if name != "FORMAT_TAGS"]
    return [*found, _args.Arg, dnnl_interop.Status, dnnl_interop.Runtime, ocl.MemoryKind]


@pytest.mark.parametrize("cls", _enum_classes(), ids=lambda cls: cls.__name__)
def test_dir_and_help_of_an_enum_class_list_its_members_not_ints_methods(cls):
    names = dir(cls)
    assert set(cls.__members__) <= set(names)
    assert "bit_length" not in names and "__add__" not in names
    text = pydoc.render_doc(cls, renderer=pydoc.plaintext)
    assert "inherited from builtins.int" not in text
    for name in cls.__members__:
        assert f"{name} = <{cls.__name__}." in text, name
    member = next(iter(cls))
    assert "bit_length" in dir(member)  # a member is an int as before
    assert member + 0 == int(member) and cls(int(member)) is member


def test_help_of_the_package_shows_arg_once_and_no_arg_constant():
    text = pydoc.render_doc(dnnl_interop, renderer=pydoc.plaintext)
    assert "class Arg(enum.IntEnum)" in text
    assert "    ARG_SRC = " not in text and "ARG_DST = " not in text
    assert "inherited from builtins.int" not in text


def test_type_checkers_see_the_arg_names_as_ints(tmp_path):
    pytest.importorskip("mypy")
    checked = tmp_path / "uses_args.py"
    checked.write_text(textwrap.dedent("""
        import dnnl_interop
        from dnnl_interop import ARG_DST, Arg, core

        as_int: int = dnnl_interop.ARG_SRC
        member: Arg = ARG_DST
        not_a_str: str = dnnl_interop.ARG_SRC
        not_a_str_either: str = core.ARG_WEIGHTS
        reveal_type(dnnl_interop.ARG_SRC)
        reveal_type(dnnl_interop.MatmulDesc)  # documented in dnnl_interop.primitives, typed here too
        known: dnnl_interop.Version = dnnl_interop.version()
    """))
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache"), str(checked)],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )
    lines = done.stdout.splitlines()
    # Any would be silently accepted as a str: two errors prove the names are typed.
    errors = [line for line in lines if ": error:" in line]
    assert len(errors) == 2, done.stdout + done.stderr
    assert all('expression has type "Arg", variable has type "str"' in line for line in errors), errors
    assert any('Revealed type is "dnnl_interop._args.Arg"' in line for line in lines), done.stdout
    assert any("-> dnnl_interop.primitives._products.MatmulDesc" in line for line in lines), done.stdout
    assert issubclass(_args.Arg, int)


def test_arg_members_are_execute_keys_as_their_ints_are_and_messages_show_the_index(engine):
    np = pytest.importorskip("numpy")
    src_desc, dst_desc = dnnl_interop.MemoryDesc((2, 3), "f32", "ab"), dnnl_interop.MemoryDesc((2, 3), "f32", "ba")
    matrix = np.arange(6, dtype=np.float32).reshape(2, 3)
    with dnnl_interop.Stream(engine) as stream, dnnl_interop.Memory(src_desc, engine, matrix) as src, \
            dnnl_interop.Memory(dst_desc, engine) as dst, dnnl_interop.reorder(src_desc, dst_desc, engine) as reorder:
        reorder.execute(stream, {dnnl_interop.Arg.FROM: src, dnnl_interop.Arg.TO: dst})
        stream.wait()
        assert (np.asarray(dst) == matrix).all()
        with pytest.raises(TypeError, match=r"^args\[1\] \(.*?\): expected a dnnl_interop.Memory, got ndarray$"):
            reorder.execute(stream, {dnnl_interop.ARG_FROM: matrix, dnnl_interop.ARG_TO: dst})
        with pytest.raises(TypeError, match=r"^args: keys are ARG_\* indices \(ints\), got True$"):
            reorder.execute(stream, {True: src, dnnl_interop.ARG_TO: dst})
        stream.wait()
