"""The wheel and the sdist: what a user installs.

The development environment installs the checkout in editable mode, so the
release build (``scripts/build-wheel.sh``: the sdist, the wheel built from
it, repaired by auditwheel) runs here once, by itself in a fresh clone of
this checkout's HEAD (no ``.venv``, no ``PYTHON``: it makes its own tools'
environment), and its output is checked on its own. The wheel is one
manylinux wheel for every supported CPython (the extension in the limited
API, tagged ``abi3``) that needs no library beside the system's and no glibc
symbol newer than 2.28 (``manylinux_2_28`` or lower: RHEL 8 and its
rebuilds); it carries the compiled module, the headers, the pure-Python
package and the LICENSE, never the test stand-in, and it works unpacked, away
from the source tree. The emulated-GPU layer ships compiled (no compiler
needed at run time), without its C source, and the pytest plugin is
registered. So does the emulated Level Zero loader, under the soname libdnnl
opens. Installed into a fresh virtual environment whose ``PATH`` reaches no
compiler, with the ``gpu`` extra, it runs the README's quick start.
"""

from __future__ import annotations

import os
import platform
import re
import subprocess
import sys
import tarfile
import textwrap
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
import tomllib
from elftools.elf.dynamic import DynamicSection
from elftools.elf.elffile import ELFFile
from elftools.elf.gnuversions import GNUVerNeedSection

from conftest import ROOT
from dnnl_interop._target import TARGET_ONEDNN

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
README = (ROOT / "README.md").read_text(encoding="utf-8")
# What a user's shell may well have, and what would hide a missing step if it leaked in.
UNSET_PREFIXES = ("OCL_ICD_", "DNNL_", "ONEDNN_", "PYTHON", "VIRTUAL_ENV", "CONDA", "GIT_")
# The newest glibc the wheel may need: that of every wheel of its extras (manylinux_2_28).
NEWEST_GLIBC = (2, 28)


def plain_shell_environment(**changes: str) -> dict[str, str]:
    """This environment less what would hide a missing step, ``PATH`` without this checkout's ``.venv``."""
    env = {name: value for name, value in os.environ.items() if not name.startswith(UNSET_PREFIXES)}
    env["PATH"] = os.pathsep.join(
        part for part in env.get("PATH", "").split(os.pathsep) if not part.startswith(str(ROOT))
    )
    env.update(changes)
    return env


def fresh_clone(destination: Path) -> Path:
    """A clone of this checkout's HEAD, as a user (and CI) starts: nothing built, no ``.venv``."""
    subprocess.run(
        ["git", "clone", "--quiet", str(ROOT), str(destination)],
        env=plain_shell_environment(),
        check=True,
        capture_output=True,
        timeout=120,
    )
    assert (destination / "scripts" / "build-wheel.sh").is_file()
    assert not (destination / ".venv").exists()
    assert not list((destination / "dnnl_interop").glob("_ffi*.so"))
    return destination


@dataclass
class Built:
    sdist: Path
    wheel: Path
    auditwheel_show: str  # what the script printed after the two paths


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    clone = fresh_clone(tmp_path_factory.mktemp("build") / "dnnl-interop")
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run(
        ["bash", str(clone / "scripts" / "build-wheel.sh"), str(out)],
        cwd=clone,
        env=plain_shell_environment(),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    (sdist,) = out.glob("dnnl_interop-*.tar.gz")
    (wheel,) = out.glob("dnnl_interop-*.whl")
    assert done.stdout.splitlines()[:2] == [str(sdist), str(wheel)]
    return Built(sdist, wheel, "\n".join(done.stdout.splitlines()[2:]))


@pytest.fixture(scope="module")
def wheel(built):
    return built.wheel


# --- one manylinux wheel for every supported CPython ------------------------------


def test_the_wheel_is_one_abi3_manylinux_wheel_from_the_lowest_supported_python(wheel):
    lowest = re.fullmatch(r">=3\.(\d+)", PYPROJECT["requires-python"]).group(1)
    machine = platform.machine()
    # A manylinux_2_17 wheel also carries the legacy alias manylinux2014 (PEP 600).
    platforms = rf"(?:manylinux2014_{machine}\.)?manylinux_2_\d+_{machine}"
    assert re.fullmatch(rf"dnnl_interop-{PYPROJECT['version']}-cp3{lowest}-abi3-{platforms}\.whl", wheel.name), (
        wheel.name
    )
    archive = zipfile.ZipFile(wheel)
    (metadata,) = [n for n in archive.namelist() if n.endswith(".dist-info/WHEEL")]
    python_tag, abi_tag, platform_tags = wheel.name[:-4].split("-")[2:]
    expanded = {f"{python_tag}-{abi_tag}-{platform_tag}" for platform_tag in platform_tags.split(".")}
    assert set(re.findall(r"^Tag: (.*)$", archive.read(metadata).decode(), re.M)) == expanded
    # cffi built the extension in the limited API: the stable-ABI file name.
    assert [n for n in archive.namelist() if re.match(r"dnnl_interop/_ffi.*\.so$", n)] == ["dnnl_interop/_ffi.abi3.so"]


# What any manylinux system has (beside the dynamic loader, ld-linux-*); auditwheel
# copies anything else into the wheel.
SYSTEM_LIBRARIES = {"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0"}


def test_auditwheel_finds_the_wheel_manylinux_with_nothing_to_copy_in(built):
    show = " ".join(built.auditwheel_show.split())
    assert f'{built.wheel.name} is consistent with the following platform tag: "manylinux_2_' in show, show
    assert "system-provided shared libraries: libc.so.6 with versions" in show, show
    names = zipfile.ZipFile(built.wheel).namelist()
    assert not [n for n in names if ".libs/" in n]  # auditwheel vendored nothing


def test_auditwheel_tags_the_wheel_manylinux_2_28_or_lower(built):
    show = " ".join(built.auditwheel_show.split())
    tag = re.search(rf'consistent with the following platform tag: "manylinux_2_(\d+)_{platform.machine()}"', show)
    assert tag, show
    assert (2, int(tag.group(1))) <= NEWEST_GLIBC, show
    assert f"manylinux_2_{tag.group(1)}_{platform.machine()}" in built.wheel.name


def glibc_versions_needed(path: Path) -> set[tuple[int, ...]]:
    """Every ``GLIBC_x.y[.z]`` symbol version that ``path`` needs, of any library (libc, libdl, ld-linux ...)."""
    needed = set()
    with path.open("rb") as f:
        for section in ELFFile(f).iter_sections():
            if isinstance(section, GNUVerNeedSection):
                for _, versions in section.iter_versions():
                    for version in versions:
                        if version.name.startswith("GLIBC_") and version.name[6:7].isdigit():
                            needed.add(tuple(int(part) for part in version.name[6:].split(".")))
    return needed


def test_no_native_file_needs_a_glibc_symbol_newer_than_2_28(wheel, tmp_path):
    zipfile.ZipFile(wheel).extractall(tmp_path)
    newest = {
        str(path.relative_to(tmp_path)): max(glibc_versions_needed(path)) for path in sorted(tmp_path.rglob("*.so"))
    }
    assert len(newest) == 3, newest
    assert all(version <= NEWEST_GLIBC for version in newest.values()), newest


def test_the_glibc_check_sees_the_versions_dlopen_gets_on_a_new_glibc(tmp_path):
    # Linked here without the binding to old versions, dlopen needs the build machine's
    # (GLIBC_2.34 on glibc 2.34 and later): the check above would catch it.
    source = tmp_path / "opens.c"
    source.write_text('#include <dlfcn.h>\nvoid *opens(const char *name) { return dlopen(name, RTLD_NOW); }\n')
    library = tmp_path / "libopens.so"
    compiler = os.environ.get("CC", "cc")
    subprocess.run([compiler, "-shared", "-fPIC", str(source), "-o", str(library), "-ldl"], check=True, timeout=120)
    libc = tuple(int(part) for part in platform.libc_ver()[1].split("."))
    assert max(glibc_versions_needed(library)) == ((2, 34) if libc >= (2, 34) else (2, 2, 5))


def test_each_native_file_needs_only_the_system_libraries_and_names_no_build_path(wheel, tmp_path):
    zipfile.ZipFile(wheel).extractall(tmp_path)
    shared = sorted(tmp_path.rglob("*.so"))
    assert [str(p.relative_to(tmp_path)) for p in shared] == [
        "dnnl_interop/_ffi.abi3.so",
        "dnnl_interop/testing/libdnnl_interop_emulated_gpu.so",
        "dnnl_interop/testing/libdnnl_interop_emulated_ze_loader.so",
    ]
    for path in shared:
        with path.open("rb") as f:
            (dynamic,) = [s for s in ELFFile(f).iter_sections() if isinstance(s, DynamicSection)]
            tags = [(tag.entry.d_tag, getattr(tag, "needed", None)) for tag in dynamic.iter_tags()]
        needed = {value for kind, value in tags if kind == "DT_NEEDED" and not value.startswith("ld-linux")}
        assert needed <= SYSTEM_LIBRARIES, (path.name, needed)  # no libpython, no OpenCL, no libdnnl
        assert not [kind for kind, _ in tags if kind in ("DT_RPATH", "DT_RUNPATH")], path.name


def test_the_sdist_carries_what_building_needs_and_no_tests(built):
    with tarfile.open(built.sdist) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    for needed in ("setup.py", "pyproject.toml", "build_ffi.py", "README.md", "dnnl_interop/_cdef.py"):
        assert needed in names, needed
    assert {f"headers/{p.name}" for p in (ROOT / "headers").glob("*.h")} <= names
    # What build_ffi.py loads: the generator and the C of dnnl_interop._ffi.
    assert {f"ffibuild/{p.name}" for p in (ROOT / "ffibuild").glob("*.py")} <= names
    csrc = {f"dnnl_interop/csrc/{p.name}" for p in (ROOT / "dnnl_interop" / "csrc").iterdir()}
    assert len(csrc) > 10 and csrc <= names
    assert not [n for n in names if n.endswith((".pyc", ".so"))]
    assert "dnnl_interop/testing/_emulated_gpu_layer.c" in names
    assert not [n for n in names if n.startswith("tests/")]


def test_the_sdist_carries_the_license_and_the_changelog(built):
    with tarfile.open(built.sdist) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
        (license_file,) = [member for member in sdist.getmembers() if member.name.endswith("/LICENSE")]
        text = sdist.extractfile(license_file).read().decode()
    assert {"LICENSE", "CHANGELOG.md"} <= names
    assert text == (ROOT / "LICENSE").read_text()


# --- the license and the metadata ------------------------------------------------


def wheel_metadata(wheel: Path) -> str:
    archive = zipfile.ZipFile(wheel)
    (metadata,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
    return archive.read(metadata).decode()


def test_the_repository_has_the_apache_license_the_metadata_declares():
    text = (ROOT / "LICENSE").read_text()
    assert PYPROJECT["license"] == "Apache-2.0"
    assert PYPROJECT["license-files"] == ["LICENSE"]
    assert text.split()[:4] == ["Apache", "License", "Version", "2.0,"]
    assert "END OF TERMS AND CONDITIONS" in text  # the full text, not a notice


def test_the_wheel_carries_the_license_and_declares_it_by_spdx(wheel):
    archive = zipfile.ZipFile(wheel)
    (license_file,) = [n for n in archive.namelist() if n.endswith(".dist-info/licenses/LICENSE")]
    assert archive.read(license_file).decode() == (ROOT / "LICENSE").read_text()
    metadata = wheel_metadata(wheel)
    assert re.findall(r"^License-Expression: (.*)$", metadata, re.M) == ["Apache-2.0"]
    assert re.findall(r"^License-File: (.*)$", metadata, re.M) == ["LICENSE"]
    assert not re.findall(r"^Classifier: License ::", metadata, re.M)  # PEP 639: the expression alone


def test_the_classifiers_name_each_supported_python_from_the_lowest(wheel):
    lowest = int(re.fullmatch(r">=3\.(\d+)", PYPROJECT["requires-python"]).group(1))
    classifiers = PYPROJECT["classifiers"]
    versions = [c for c in classifiers if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)]
    minors = [int(c.rsplit(".", 1)[1]) for c in versions]
    assert minors and minors == list(range(lowest, lowest + len(minors))), minors
    assert "Programming Language :: Python :: 3 :: Only" in classifiers
    assert "Typing :: Typed" in classifiers
    assert re.findall(r"^Classifier: (.*)$", wheel_metadata(wheel), re.M) == classifiers


def test_the_changelog_keeps_an_unreleased_section_above_the_version_of_the_package():
    headings = re.findall(r"^## \[([^\]]+)\]", (ROOT / "CHANGELOG.md").read_text(), re.M)
    assert headings[0] == "Unreleased"
    assert PYPROJECT["version"] in headings


def test_the_wheel_carries_the_package_the_module_and_the_headers(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for module in ("__init__", "__main__", "_cdef", "_library", "core", "ocl", "ze", "sycl", "embedding"):
        assert f"dnnl_interop/{module}.py" in names, module
    # Every module of the source tree, subpackages included (a subpackage left out of
    # pyproject's list would only fail at its first import, on the user's machine).
    sources = {p.relative_to(ROOT).as_posix() for p in (ROOT / "dnnl_interop").rglob("*.py")}
    assert sources - names == set()
    assert any(n.startswith("dnnl_interop/_ffi") and n.endswith(".so") for n in names)
    assert "dnnl_interop/py.typed" in names
    assert "dnnl_interop/_ffi.pyi" in names  # the types of the compiled module, for type checkers
    assert "dnnl_interop/_args.py" in names
    assert "dnnl_interop/_enums.py" in names
    headers = {n.rsplit("/", 1)[1] for n in names if n.startswith("dnnl_interop/headers/") and not n.endswith("/")}
    assert headers == {p.name for p in (ROOT / "headers").glob("*.h")}


def test_the_wheel_carries_of_the_build_only_the_cdef_that_embedding_reads(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    assert not [n for n in names if n.startswith("ffibuild/")]
    csrc = [n for n in names if n.startswith("dnnl_interop/csrc/") and not n.endswith("/")]
    assert csrc == ["dnnl_interop/csrc/binding.cdef"]
    assert zipfile.ZipFile(wheel).read("dnnl_interop/csrc/binding.cdef") == (
        ROOT / "dnnl_interop" / "csrc" / "binding.cdef"
    ).read_bytes()


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


# --- the wheel installed where no compiler is reachable -------------------------
# The README's quick start (its first CPU and first emulated-GPU blocks, the
# install-alone block's checks) runs from a fresh virtual environment that has
# the wheel and its ``gpu`` extra, installed with no build allowed and a
# ``PATH`` of the environment's bin alone, from a directory away from this checkout.
# uv installs them (the test extra's installer, as scripts/setup-env.sh does):
# the extra's wheels then come from uv's cache, which the environment's own
# install filled, in seconds where pip fetched and unpacked them again. pip's
# install of the same extra is the install-alone test's, below.
UV = str(Path(sys.executable).parent / "uv")

PYTHON_BLOCK = re.compile(r"<!-- readme-test: ([\w-]+) -->\n\s*```python\n(.*?)```", re.S)
# Compiler variables a shell may carry: each names a compiler by full path.
COMPILER_VARIABLES = ("CC", "CXX", "CPP", "LD", "LDSHARED", "LDCXXSHARED")
NO_COMPILER = """
import shutil, sys, sysconfig
names = ("cc", "gcc", "c++", "g++", "clang", "ld", sysconfig.get_config_var("CC").split()[0])
found = {name: shutil.which(name) for name in names}
assert not any(found.values()), found
import dnnl_interop
print(dnnl_interop.__file__)
"""


def test_the_wheel_with_the_gpu_extra_runs_the_quick_start_with_no_compiler_reachable(wheel, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, capture_output=True, timeout=120
    )
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(UNSET_PREFIXES) and name not in COMPILER_VARIABLES
    }
    env["PATH"] = str(venv / "bin")
    python = str(venv / "bin" / "python")

    def run(*args, timeout=300):
        done = subprocess.run([python, *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=timeout)
        assert done.returncode == 0, f"{args[:3]}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        return done.stdout

    def uv(*args, timeout=300):
        done = subprocess.run(
            [UV, "pip", *args, "--python", python], cwd=tmp_path, env=env, capture_output=True, text=True,
            timeout=timeout,
        )
        assert done.returncode == 0, f"uv pip {args[:3]}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        return done.stdout + done.stderr

    uv("install", "--quiet", "--no-build", f"{wheel}[gpu]", timeout=900)
    assert "All installed packages are compatible" in uv("check")
    assert run("-c", NO_COMPILER).strip().startswith(str(venv / "lib")), "dnnl_interop not from the wheel"
    assert run("-c", "import numpy, pyopencl, dnnl_interop as d; print(d.Engine.cpu().kind.name)").split() == ["CPU"]
    assert re.search(r"CPU engine:\s+yes", run("-m", "dnnl_interop", "info"))
    blocks = PYTHON_BLOCK.findall(README)
    for kind in ("cpu", "emulated-gpu"):
        code = next(code for block_kind, code in blocks if block_kind == kind)
        run("-c", textwrap.dedent(code))


# --- the README's install-alone commands, in a fresh clone -----------------------
# Here, not in a file of their own: each test of this file builds or installs,
# and CI keeps a file in one worker.
#
# The ``install-alone`` shell block of README.md runs (``bash -e``), as written,
# in a fresh clone of this checkout's HEAD (nothing built there: an import that
# picked up the clone's unbuilt package would fail), with ``HOME`` in a
# temporary directory (the block's virtual environment goes there), a ``PATH``
# without this checkout's environment and no OpenCL, oneDNN or binding variable
# set: ``Engine.cpu()`` must work on what ``pip install ".[gpu]"`` alone brings,
# imported from the new environment. Then the ``fix:`` line ``info`` printed
# for pyopencl (the README's line after the block) makes pyopencl list Intel's
# CPU runtime. The block starts with the module (the ``install_alone``
# fixture) and runs beside the other tests; its test waits for it.

BLOCK = re.compile(r"<!-- readme-test: install-alone -->\n\s*```sh\n(.*?)```", re.S)
# Appended to the block, in the same shell: the module its commands imported.
IMPORTED_FROM = """
~/dnnl-interop-venv/bin/python -c "import dnnl_interop; print('imported from', dnnl_interop.__file__)"
"""
LIST_PLATFORMS = """
~/dnnl-interop-venv/bin/python -c "import pyopencl; print('platforms:', [p.name for p in pyopencl.get_platforms()])"
"""


def test_the_readme_has_one_install_alone_block():
    assert len(BLOCK.findall(README)) == 1


def test_the_readme_tells_what_pyopencl_needs_after_the_block():
    after = README.split("<!-- readme-test: install-alone -->", 1)[1].split("```", 2)[2]
    paragraph = after.strip().split("\n\n", 2)[1]  # after the marker that ends the block for the docs
    assert "pyopencl" in paragraph and "`fix:`" in paragraph and "OCL_ICD_VENDORS" in paragraph, paragraph


@dataclass
class Started:
    """The install-alone block's shell, running (its output goes to files, read when it ends)."""

    process: subprocess.Popen
    clone: Path
    home: Path
    env: dict[str, str]
    output: Path

    def shell(self, commands: str, timeout: float = 300) -> str:
        done = subprocess.run(
            ["bash", "-e", "-x", "-c", commands], cwd=self.clone, env=self.env, capture_output=True, text=True,
            timeout=timeout,
        )
        assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
        return done.stdout


INSTALL_ALONE_TEST = "test_the_install_alone_commands_work_in_a_fresh_clone_with_no_variable_set"


@pytest.fixture(scope="module", autouse=True)
def install_alone(request, tmp_path_factory):
    """The block, started with this module's first test where its test is selected: pip's
    downloads and build then overlap the release build's (each waits on the network for
    much of its time) instead of following it. Ended, if still running, with the module."""
    if not any(item.name == INSTALL_ALONE_TEST for item in request.session.items):
        yield None
        return
    (script,) = BLOCK.findall(README)
    base = tmp_path_factory.mktemp("install-alone")
    clone = fresh_clone(base / "dnnl-interop")
    home = base / "home"
    home.mkdir()
    env = plain_shell_environment(HOME=str(home))
    with (base / "out").open("w") as out, (base / "err").open("w") as err:
        process = subprocess.Popen(
            ["bash", "-e", "-x", "-c", script + IMPORTED_FROM], cwd=clone, env=env, stdout=out, stderr=err, text=True
        )
    started = Started(process, clone, home, env, base)
    yield started
    if process.poll() is None:
        process.kill()
        process.wait()


def test_the_install_alone_commands_work_in_a_fresh_clone_with_no_variable_set(install_alone):
    install_alone.process.wait(timeout=1500)
    out = (install_alone.output / "out").read_text()
    err = (install_alone.output / "err").read_text()
    assert install_alone.process.returncode == 0, out[-4000:] + err[-4000:]
    venv = install_alone.home / "dnnl-interop-venv"
    assert (venv / "bin" / "python").exists()
    assert "CPU" in out.splitlines(), out[-2000:]  # Engine.cpu().kind.name
    assert re.search(r"CPU engine:\s+yes", out), out[-4000:]
    assert "No broken requirements found." in out
    (imported,) = re.findall(r"^imported from (.*)$", out, re.M)
    assert Path(imported).is_relative_to(venv / "lib"), imported

    # pyopencl: the fix info gives, if it gave one (a system registration may already serve).
    fixes = [fix for fix in re.findall(r"^\s+fix: (.*)$", out, re.M) if "OCL_ICD_VENDORS" in fix]
    assert len(fixes) <= 1, fixes
    listed = install_alone.shell("cd ~\n" + "".join(fixes) + LIST_PLATFORMS)
    assert "'Intel(R) OpenCL'" in listed.splitlines()[-1], listed
