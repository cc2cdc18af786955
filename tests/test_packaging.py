"""The wheel: what `pip install .` gives a user.

The development environment installs the checkout in editable mode, so the
wheel is built here once and checked on its own: it carries the compiled
module, the headers and the pure-Python package, never the test stand-in,
and it works unpacked, away from the source tree. The emulated-GPU layer
ships compiled (no compiler needed at run time), without its C source, and
the pytest plugin is registered. So does the emulated Level Zero loader,
under the soname libdnnl opens.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile

import pytest
import tomllib

from conftest import ROOT
from dnnl_interop._target import TARGET_ONEDNN

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
README = (ROOT / "README.md").read_text(encoding="utf-8")
# What a user's shell may well have, and what would hide a missing step if it leaked in.
UNSET_PREFIXES = ("OCL_ICD_", "DNNL_", "ONEDNN_", "PYTHON", "VIRTUAL_ENV", "CONDA")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(out), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    (path,) = out.glob("dnnl_interop-*.whl")
    return path


def test_the_wheel_carries_the_package_the_module_and_the_headers(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for module in ("__init__", "__main__", "_cdef", "_library", "core", "ocl", "ze", "embedding"):
        assert f"dnnl_interop/{module}.py" in names, module
    assert any(n.startswith("dnnl_interop/_ffi") and n.endswith(".so") for n in names)
    assert "dnnl_interop/py.typed" in names
    assert "dnnl_interop/_ffi.pyi" in names  # the types of the compiled module, for type checkers
    assert "dnnl_interop/_args.py" in names
    assert "dnnl_interop/_enums.py" in names
    headers = {n.rsplit("/", 1)[1] for n in names if n.startswith("dnnl_interop/headers/")}
    assert headers == {p.name for p in (ROOT / "headers").glob("*.h")}


def test_the_wheel_carries_the_compiled_emulated_gpu_layer_and_not_its_source(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    testing = {n for n in names if n.startswith("dnnl_interop/testing/")}
    assert "dnnl_interop/testing/libdnnl_interop_emulated_gpu.so" in testing
    for module in ("__init__", "emulated_gpu", "pytest_plugin", "_child"):
        assert f"dnnl_interop/testing/{module}.py" in testing, module
    assert not [n for n in names if n.endswith((".c", ".h")) and not n.startswith("dnnl_interop/headers/")]
    assert not [n for n in names if "khronos" in n]


def test_the_wheel_carries_the_compiled_emulated_level_zero_loader_and_its_module(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "dnnl_interop/testing/libdnnl_interop_emulated_ze_loader.so" in names
    assert "dnnl_interop/testing/emulated_level_zero.py" in names
    assert "dnnl_interop/testing/_emulated_ze_loader.c" not in names


def test_the_unpacked_loader_is_the_libze_loader_libdnnl_opens_by_name(wheel, tmp_path):
    zipfile.ZipFile(wheel).extractall(tmp_path)
    code = (
        "import ctypes, os\n"
        "from dnnl_interop.testing import emulated_level_zero\n"
        "path = emulated_level_zero.loader_path()\n"
        "print(path)\n"
        "by_path = ctypes.CDLL(str(path), mode=os.RTLD_NOW | os.RTLD_GLOBAL)\n"
        "by_name = ctypes.CDLL(emulated_level_zero.LOADER_SONAME, mode=os.RTLD_NOLOAD | os.RTLD_NOW)\n"
        "print(by_name._handle == by_path._handle, hasattr(by_path, 'zeInitDrivers'))\n"
    )
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    path, same, exported = done.stdout.split()
    assert path == str(tmp_path / "dnnl_interop" / "testing" / "libdnnl_interop_emulated_ze_loader.so")
    assert (same, exported) == ("True", "True")


def test_the_wheel_registers_the_pytest_plugin(wheel):
    archive = zipfile.ZipFile(wheel)
    (entry_points,) = [n for n in archive.namelist() if n.endswith(".dist-info/entry_points.txt")]
    text = archive.read(entry_points).decode()
    assert "[pytest11]" in text
    assert "dnnl_interop_emulated_gpu = dnnl_interop.testing.pytest_plugin" in text


def test_the_wheel_ships_no_test_code(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert not [n for n in names if "standin" in n or n.startswith("tests/") or "build_ffi" in n]


def test_the_unpacked_wheel_works_away_from_the_source_tree(wheel, tmp_path):
    zipfile.ZipFile(wheel).extractall(tmp_path)
    code = (
        "import dnnl_interop, os\n"
        "from dnnl_interop.embedding import ffibuilder\n"
        "include = dnnl_interop.get_include()\n"
        "print(os.path.dirname(dnnl_interop.__file__))\n"
        "print(include)\n"
        "print(type(ffibuilder()).__name__)\n"
        "print(dnnl_interop.version().number)\n"
        "import ctypes\n"
        "from dnnl_interop.testing import emulated_gpu\n"
        "layer = emulated_gpu.layer_path()\n"
        "print(layer)\n"
        "print(hasattr(ctypes.CDLL(str(layer)), 'clInitLayerWithProperties'))\n"
    )
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    package, include, builder, version, layer, loadable = done.stdout.split()
    assert package == str(tmp_path / "dnnl_interop")
    assert include == str(tmp_path / "dnnl_interop" / "headers")
    assert builder == "FFI"
    assert version == TARGET_ONEDNN
    assert layer == str(tmp_path / "dnnl_interop" / "testing" / "libdnnl_interop_emulated_gpu.so")
    assert loadable == "True"


# --- the extras ------------------------------------------------------------------


def test_the_gpu_extra_brings_onednn_pyopencl_and_numpy():
    extras = PYPROJECT["optional-dependencies"]
    (gpu,) = extras["gpu"]
    named = re.fullmatch(r"dnnl-interop\[([\w,]+)\]", gpu).group(1).split(",")
    brought = [requirement for name in named for requirement in extras[name]]
    assert [re.match(r"[\w-]+", requirement).group() for requirement in brought] == ["onednn", "pyopencl", "numpy"]


def test_the_readme_lists_every_extra_with_what_it_is_for():
    listed = re.findall(r"^\* `([\w-]+)`: \S", README, re.M)
    assert sorted(set(listed) & set(PYPROJECT["optional-dependencies"])) == sorted(PYPROJECT["optional-dependencies"])


# --- the README's install-alone commands, in a plain environment ----------------
# Here, not in a file of their own: two in-tree builds of this checkout at once
# (the wheel above, this install) would share its build directory.
#
# The ``install-alone`` shell block of README.md runs (``bash -e``) from this
# checkout with ``HOME`` in a temporary directory (the block's virtual
# environment goes there) and no OpenCL, oneDNN or binding variable set:
# ``Engine.cpu()`` must work on what ``pip install ".[gpu]"`` alone brings.

BLOCK = re.compile(r"<!-- readme-test: install-alone -->\n\s*```sh\n(.*?)```", re.S)


def test_the_readme_has_one_install_alone_block():
    assert len(BLOCK.findall(README)) == 1


def test_the_install_alone_commands_work_with_no_variable_set(tmp_path):
    (script,) = BLOCK.findall(README)
    env = {name: value for name, value in os.environ.items() if not name.startswith(UNSET_PREFIXES)}
    env["HOME"] = str(tmp_path)
    env["PATH"] = os.pathsep.join(  # no virtual environment's bin first: a plain shell
        part for part in env.get("PATH", "").split(os.pathsep) if not part.startswith(str(ROOT))
    )
    done = subprocess.run(
        ["bash", "-e", "-x", "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=1500
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    venv = tmp_path / "dnnl-interop-venv"
    assert (venv / "bin" / "python").exists()
    lines = done.stdout.splitlines()
    assert "CPU" in lines, done.stdout[-2000:]  # Engine.cpu().kind.name
    assert re.search(r"CPU engine:\s+yes", done.stdout), done.stdout[-4000:]
    assert "No broken requirements found." in done.stdout
