"""Finding, loading and binding oneDNN.

What happens at import and at the first call is per process, so most tests
here run a child Python with a clean environment: no ``DNNL_INTEROP_LIBRARY``,
no ``LD_LIBRARY_PATH`` and no oneDNN verbose switches unless a test sets
them. Children report on their last stdout line as JSON (or on stderr, where
stdout itself is under test).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

import dnnl_interop
from conftest import LIBRARY_3_11, REAL_LIBRARY, ROOT
from dnnl_interop import Runtime, Version
from dnnl_interop._ffi import ffi, lib
from dnnl_interop._library import FUNCTIONS
from dnnl_interop._target import TARGET_MAJOR_MINOR, TARGET_ONEDNN

VENV_LIB = Path(sys.prefix) / "lib"
REAL_PATH = os.path.realpath(REAL_LIBRARY)
# The interop entry points the headers declare (the function table's order).
OCL_FUNCTIONS = tuple(name for name in FUNCTIONS if name.startswith("dnnl_ocl_interop_"))
ZE_FUNCTIONS = tuple(name for name in FUNCTIONS if name.startswith("dnnl_ze_interop_"))
PLATFORMS = {"Portable Computing Language", "Intel(R) OpenCL"}

PRELUDE = """
import json, os, sys

def mapped(word="libdnnl"):
    paths = set()
    with open("/proc/self/maps") as maps:
        for line in maps:
            parts = line.split(maxsplit=5)
            if len(parts) == 6 and word in parts[5]:
                paths.add(os.path.realpath(parts[5].strip()))
    return sorted(paths)

def report(_stderr=False, **values):
    print(json.dumps(values), file=sys.stderr if _stderr else sys.stdout, flush=True)
"""


def clean_env(**changes: str | None) -> dict[str, str]:
    env = dict(os.environ)
    for name in ("DNNL_INTEROP_LIBRARY", "LD_LIBRARY_PATH", "ONEDNN_VERBOSE", "DNNL_VERBOSE"):
        env.pop(name, None)
    for name, value in changes.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


def run_child(code: str, env=None, executable=sys.executable, cwd="/", timeout=120):
    done = subprocess.run(
        [executable, "-c", PRELUDE + textwrap.dedent(code)],
        env=clean_env() if env is None else env,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
    )
    assert done.returncode == 0, f"child failed ({done.returncode}):\n{done.stderr}"
    return done


def child_report(code: str, **kwargs) -> dict:
    done = run_child(code, **kwargs)
    return json.loads(done.stdout.strip().splitlines()[-1])


# --- import and first call --------------------------------------------------------


def test_import_loads_no_library():
    """Importing the package and its cffi module maps no oneDNN (nor any
    library of the wheel's lib directory)."""
    result = child_report(
        f"""
        import dnnl_interop
        from dnnl_interop._ffi import ffi, lib
        wheel_libs = [p for p in mapped("/") if os.path.dirname(p) == {str(VENV_LIB)!r}]
        report(dnnl=mapped(), wheel_libs=wheel_libs, bound=dnnl_interop.loaded_library() is not None)
        """
    )
    assert result == {"dnnl": [], "wheel_libs": [], "bound": False}


def test_import_imports_no_heavy_module():
    """`import dnnl_interop` stays cheap: typing, numpy, pyopencl, cffi's
    compiler side and the submodules come only when used."""
    heavy = ["typing", "numpy", "pyopencl", "cffi", "dnnl_interop.core", "dnnl_interop.ocl", "dnnl_interop.ze"]
    done = subprocess.run(
        [sys.executable, "-c", f"import sys, dnnl_interop; print([m for m in {heavy!r} if m in sys.modules])"],
        capture_output=True, text=True, check=True,
    )
    assert done.stdout.strip() == "[]"


def test_import_works_with_no_onednn_reachable(tmp_path):
    """With oneDNN unloadable, importing still works."""
    env = clean_env(DNNL_INTEROP_LIBRARY=str(tmp_path / "missing" / "libdnnl.so.3"))
    result = child_report(
        """
        import dnnl_interop, dnnl_interop.ocl, dnnl_interop.ze
        from dnnl_interop._ffi import ffi, lib
        report(ok=True, dnnl=mapped())
        """,
        env=env,
    )
    assert result == {"ok": True, "dnnl": []}


def test_first_call_loads_the_wheel_library_without_ld_library_path():
    """The first C call binds oneDNN from the wheel layout on its own; the
    call then gets the real library's answer (CL_INVALID_DEVICE -> 5), not
    the stub's."""
    result = child_report(
        """
        import dnnl_interop
        from dnnl_interop._ffi import ffi, lib
        before = mapped()
        size = ffi.new("size_t *")
        status = lib.dnnl_ocl_interop_engine_get_cache_blob_id(ffi.NULL, size, ffi.NULL)
        library = dnnl_interop.loaded_library()
        report(before=before, status=status, after=mapped(),
               path=library and os.path.realpath(library.path))
        """
    )
    assert result["before"] == []
    assert result["status"] == lib.dnnl_runtime_error
    assert REAL_PATH in result["after"]
    assert result["path"] == REAL_PATH


def test_wheel_opencl_loader_is_preloaded_locally():
    """load_library() preloads the wheel's libOpenCL.so.1 RTLD_LOCAL: oneDNN's
    OpenCL calls work, no cl* symbol enters the global namespace, and
    pyopencl imported afterwards still lists both platforms."""
    result = child_report(
        """
        import dnnl_interop
        from dnnl_interop._ffi import ffi, lib
        library = dnnl_interop.load_library()
        global_cl = lib.dlsym(ffi.NULL, b"clGetPlatformIDs") != ffi.NULL
        import pyopencl as cl
        platforms = {p.name: p for p in cl.get_platforms()}
        pocl = platforms["Portable Computing Language"].get_devices()[0]
        blob = dnnl_interop.ocl.get_engine_cache_blob_id(pocl)
        report(preloaded=[os.path.realpath(p) for p in library.preloaded],
               global_cl=global_cl, platforms=sorted(platforms), blob=len(blob))
        """
    )
    assert os.path.realpath(VENV_LIB / "libOpenCL.so.1") in result["preloaded"]
    assert result["global_cl"] is False
    assert set(result["platforms"]) == PLATFORMS
    assert result["blob"] > 0


# --- when loading fails -----------------------------------------------------------------


def _unusable(tmp_path: Path, kind: str) -> str:
    path = tmp_path / "libdnnl.so.3"
    if kind == "nonexistent":
        return str(tmp_path / "nowhere" / "libdnnl.so.3")
    if kind == "not a library":
        path.write_text("not an ELF file\n")
    elif kind == "truncated ELF":
        path.write_bytes(b"\x7fELF\x02\x01" + bytes(20))
    elif kind == "a library that is not oneDNN":
        import dnnl_interop._ffi  # a real shared object exporting no dnnl_* symbol

        return dnnl_interop._ffi.__file__
    elif kind == "empty":
        return ""  # dlopen("") would open the program itself
    return str(path)


@pytest.mark.parametrize(
    "kind", ["nonexistent", "not a library", "truncated ELF", "a library that is not oneDNN", "empty"]
)
def test_env_var_must_work_and_has_no_fallback(tmp_path, kind):
    """DNNL_INTEROP_LIBRARY naming an unusable file raises LibraryNotFoundError
    naming that file, and the wheel's library is not tried instead."""
    target = _unusable(tmp_path, kind)
    result = child_report(
        """
        import dnnl_interop
        try:
            dnnl_interop.load_library()
        except dnnl_interop.LibraryNotFoundError as exc:
            report(error=str(exc), attempts=exc.attempts, dnnl=mapped(),
                   bound=dnnl_interop.loaded_library() is not None)
        """,
        env=clean_env(DNNL_INTEROP_LIBRARY=str(target)),
    )
    assert str(target) in result["error"]
    assert [attempt[1] for attempt in result["attempts"]] == [target]
    assert "DNNL_INTEROP_LIBRARY" in result["attempts"][0][0]
    assert result["dnnl"] == [] and result["bound"] is False


def test_calls_raise_the_loading_error_when_loading_fails(tmp_path):
    """With no usable oneDNN, interop calls raise LibraryNotFoundError (not
    ImportError, not a crash) and raw C calls get the stub's UNIMPLEMENTED."""
    target = str(tmp_path / "nowhere" / "libdnnl.so.3")
    result = child_report(
        """
        import dnnl_interop
        from dnnl_interop._ffi import ffi, lib
        outcomes = {}
        calls = {
            "ocl": lambda: dnnl_interop.ocl.get_engine_cache_blob_id(1),
            "ze": lambda: dnnl_interop.ze.get_engine_cache_blob_id(1, 2),
            "version": dnnl_interop.version,
            "has_function": lambda: dnnl_interop.has_function("dnnl_version"),
        }
        for name, call in calls.items():
            try:
                call()
                outcomes[name] = ["no error", ""]
            except Exception as exc:
                outcomes[name] = [type(exc).__name__, str(exc)]
        size = ffi.new("size_t *")
        raw = lib.dnnl_ocl_interop_engine_get_cache_blob_id(ffi.NULL, size, ffi.NULL)
        report(outcomes=outcomes, raw=raw)
        """,
        env=clean_env(DNNL_INTEROP_LIBRARY=target),
    )
    for name, (kind, message) in result["outcomes"].items():
        assert kind == "LibraryNotFoundError", name
        assert target in message, name
    assert result["raw"] == lib.dnnl_unimplemented


def test_no_library_anywhere_lists_every_place_tried(tmp_path):
    """In an environment with no oneDNN at all (a fresh venv without the
    wheel, an empty user base), one LibraryNotFoundError lists every place."""
    venv = tmp_path / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120
    )
    user_base = tmp_path / "user-base"
    user_base.mkdir()
    package_home = os.path.dirname(os.path.dirname(dnnl_interop.__file__))  # installed or source
    env = clean_env(
        PYTHONPATH=os.pathsep.join([package_home, sysconfig.get_paths()["platlib"]]),
        PYTHONUSERBASE=str(user_base),
    )
    result = child_report(
        """
        import dnnl_interop
        errors = []
        for call in (dnnl_interop.load_library,
                     lambda: dnnl_interop.ocl.get_engine_cache_blob_id(1)):
            try:
                call()
            except dnnl_interop.LibraryNotFoundError as exc:
                errors.append([str(exc), exc.attempts])
        report(prefix=sys.prefix, errors=errors, dnnl=mapped())
        """,
        env=env,
        executable=str(venv / "bin" / "python"),
    )
    assert os.path.realpath(result["prefix"]) == os.path.realpath(venv)
    assert len(result["errors"]) == 2
    for message, attempts in result["errors"]:
        targets = [attempt[1] for attempt in attempts]
        assert str(venv / "lib" / "libdnnl.so.3") in targets
        assert str(user_base / "lib" / "libdnnl.so.3") in targets
        assert "libdnnl.so.3" in targets  # the system loader, by name
        for _, target, reason in attempts:
            assert target in message and reason in message
    assert result["dnnl"] == []


# --- an older oneDNN -------------------------------------------------------------------


def test_onednn_3_11_lacks_level_zero(pocl_device):
    """Bound to oneDNN 3.11: the missing functions are exactly those its
    library does not export (asked through ctypes, apart from the binding),
    every dnnl_ze_* one among them; calling one raises MissingFunctionError
    naming the function, the library and 3.11; every OpenCL function it
    exports can be called, and OpenCL interop works and is really 3.11's."""
    assert LIBRARY_3_11.exists(), f"{LIBRARY_3_11} missing: run scripts/setup-env.sh"
    env = clean_env(DNNL_INTEROP_LIBRARY=str(LIBRARY_3_11), LD_LIBRARY_PATH=str(VENV_LIB))
    result = child_report(
        """
        import ctypes
        import dnnl_interop
        from dnnl_interop._ffi import ffi, lib
        from dnnl_interop._library import FUNCTIONS
        library = dnnl_interop.load_library()
        exported = ctypes.CDLL(library.path)
        unexported = [name for name in FUNCTIONS if not hasattr(exported, name)]
        try:
            dnnl_interop.ze.get_engine_cache_blob_id(1, 2)
            error = None
        except Exception as exc:
            error = dict(
                type=type(exc).__name__,
                not_implemented=isinstance(exc, NotImplementedError),
                dnnl_error=isinstance(exc, dnnl_interop.DnnlError),
                missing=isinstance(exc, dnnl_interop.MissingFunctionError),
                message=str(exc),
                function=exc.function,
            )
        size = ffi.new("size_t *")
        raw = lib.dnnl_ze_interop_engine_get_cache_blob_id(ffi.NULL, ffi.NULL, size, ffi.NULL)
        import pyopencl as cl
        pocl = [p for p in cl.get_platforms() if p.name == "Portable Computing Language"]
        blob = dnnl_interop.ocl.get_engine_cache_blob_id(pocl[0].get_devices()[0])
        version = dnnl_interop.version()
        report(path=os.path.realpath(library.path), version=list(version[:3]), text=version.number,
               unexported=unexported,
               hash=version.hash, missing=list(library.missing), error=error, raw=raw,
               has_ze=dnnl_interop.has_function("dnnl_ze_interop_engine_create"),
               has_ocl={n: dnnl_interop.has_function(n) for n in {ocl!r}},
               blob_has_hash=version.hash.encode() in blob, blob=len(blob))
        """.replace("{ocl!r}", repr(OCL_FUNCTIONS)),
        env=env,
    )
    assert result["path"] == os.path.realpath(LIBRARY_3_11)
    assert result["version"][:2] == [3, 11] and result["text"].startswith("3.11.")
    assert sorted(result["missing"]) == sorted(result["unexported"])
    assert set(ZE_FUNCTIONS) <= set(result["missing"])
    assert result["has_ze"] is False
    callable_ocl = {name for name, has in result["has_ocl"].items() if has}
    assert callable_ocl == set(OCL_FUNCTIONS) - set(result["unexported"])
    assert "dnnl_ocl_interop_engine_get_cache_blob_id" in callable_ocl
    error = result["error"]
    assert error is not None and error["type"] == "MissingFunctionError"
    assert error["not_implemented"] and error["dnnl_error"] and error["missing"]
    assert error["function"] == "dnnl_ze_interop_engine_get_cache_blob_id"
    for part in ("dnnl_ze_interop_engine_get_cache_blob_id", result["path"], "3.11"):
        assert part in error["message"]
    assert result["raw"] == lib.dnnl_unimplemented  # a stub, never a NULL call
    assert result["blob"] > 0 and result["blob_has_hash"]


# --- the bound library ----------------------------------------------------------------


def test_version_of_the_wheel_library(real_dnnl):
    """version() reports the targeted oneDNN (_target.py) with SYCL CPU and GPU runtimes, as
    dnnl_version() does, and the library lacks no declared function."""
    version = dnnl_interop.version()
    assert isinstance(version, Version)
    raw = lib.dnnl_version()
    assert f"{version.major}.{version.minor}.{version.patch}" == TARGET_ONEDNN
    assert (raw.major, raw.minor) == TARGET_MAJOR_MINOR and f"{raw.major}.{raw.minor}.{raw.patch}" == TARGET_ONEDNN
    assert version.hash == ffi.string(raw.hash).decode()
    assert len(version.hash) == 40 and int(version.hash, 16) >= 0
    assert version.cpu_runtime is Runtime.SYCL and version.gpu_runtime is Runtime.SYCL
    assert raw.cpu_runtime == raw.gpu_runtime == lib.DNNL_RUNTIME_SYCL
    assert version.number == TARGET_ONEDNN
    assert real_dnnl.version == version
    assert real_dnnl.missing == ()
    for name in OCL_FUNCTIONS + ZE_FUNCTIONS:
        assert dnnl_interop.has_function(name), name


def test_load_library_is_once_per_process(real_dnnl, tmp_path):
    """load_library() of the bound file (by any path) returns the bound
    Library; another file raises RuntimeError and changes nothing."""
    assert dnnl_interop.load_library() is real_dnnl
    assert dnnl_interop.load_library(REAL_LIBRARY) is real_dnnl
    link = tmp_path / "libdnnl.so.3"
    link.symlink_to(REAL_PATH)
    assert dnnl_interop.load_library(link) is real_dnnl
    with pytest.raises(RuntimeError) as info:
        dnnl_interop.load_library(LIBRARY_3_11)
    assert real_dnnl.path in str(info.value)
    assert dnnl_interop.loaded_library() is real_dnnl
    assert dnnl_interop.version().number == TARGET_ONEDNN


# --- oneDNN's verbose output ----------------------------------------------------------------

# A NULL device reaches oneDNN only through the raw C function (the public
# API refuses it first); oneDNN answers CL_INVALID_DEVICE.
_FAILING_CALL = """
import dnnl_interop
from dnnl_interop._ffi import ffi, lib
from dnnl_interop import check
dnnl_interop.load_library()
{before}
size = ffi.new("size_t *")
for _ in range(2):
    try:
        check(lib.dnnl_ocl_interop_engine_get_cache_blob_id(ffi.NULL, size, ffi.NULL), "blob id")
    except dnnl_interop.DnnlRuntimeError:
        report(failed=True, _stderr=True)
    {between}
"""


def _verbose_errors(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.startswith("onednn_verbose") and ",error," in line]


def test_onednn_alone_prints_errors_to_stdout():
    """Control: real oneDNN, loaded without this package, prints its errors
    to stdout by default (so the silence below is the package's doing)."""
    done = run_child(
        f"""
        import ctypes
        library = ctypes.CDLL({REAL_PATH!r})
        size = ctypes.c_size_t(0)
        status = library.dnnl_ocl_interop_engine_get_cache_blob_id(None, ctypes.byref(size), None)
        report(status=status, _stderr=True)
        """,
        env=clean_env(LD_LIBRARY_PATH=str(VENV_LIB)),
    )
    assert json.loads(done.stderr.strip().splitlines()[-1]) == {"status": 5}
    assert _verbose_errors(done.stdout)


def test_errors_print_nothing_by_default():
    """A failing call prints nothing to stdout unless asked."""
    done = run_child(_FAILING_CALL.format(before="", between=""))
    assert done.stderr.count('"failed": true') == 2
    assert done.stdout == ""


def test_set_verbose_turns_error_output_on_and_off():
    """set_verbose(1) makes oneDNN print its error lines; set_verbose(0)
    silences them again."""
    done = run_child(
        _FAILING_CALL.format(
            before="dnnl_interop.set_verbose(1)", between="dnnl_interop.set_verbose(0)"
        )
    )
    assert done.stderr.count('"failed": true') == 2
    errors = _verbose_errors(done.stdout)
    assert len(errors) == 1 and "CL_INVALID_DEVICE" in errors[0]


@pytest.mark.parametrize("variable", ["ONEDNN_VERBOSE", "DNNL_VERBOSE"])
def test_verbose_environment_variable_wins(variable):
    """A user's ONEDNN_VERBOSE / DNNL_VERBOSE is respected: errors print."""
    done = run_child(_FAILING_CALL.format(before="", between=""), env=clean_env(**{variable: "1"}))
    assert done.stderr.count('"failed": true') == 2
    assert len(_verbose_errors(done.stdout)) == 2


# --- headers for other cffi modules ------------------------------------------------------


def test_get_include_has_the_headers():
    """get_include() is a directory with the headers the binding is built from."""
    include = Path(dnnl_interop.get_include())
    for header in (ROOT / "headers").glob("*.h"):
        assert (include / header.name).read_text() == header.read_text(), header.name
    assert (include / "dnnl_ocl.h").is_file() and (include / "dnnl_ze.h").is_file()


# --- only regular files -------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["FIFO", "directory"])
@pytest.mark.parametrize("how", ["argument", "DNNL_INTEROP_LIBRARY"])
def test_only_regular_files_are_loaded(tmp_path, kind, how):
    """A FIFO (which would block whoever opens it) or a directory is refused
    from its stat alone, never opened, with a LibraryNotFoundError saying
    what it is; the call returns at once."""
    target = tmp_path / "libdnnl.so.3"
    if kind == "FIFO":
        os.mkfifo(target)
    else:
        target.mkdir()
    call = f"dnnl_interop.load_library({str(target)!r})" if how == "argument" else "dnnl_interop.load_library()"
    env = clean_env(DNNL_INTEROP_LIBRARY=str(target)) if how != "argument" else None
    result = child_report(
        f"""
        import dnnl_interop
        try:
            {call}
            report(error=None)
        except dnnl_interop.LibraryNotFoundError as exc:
            report(error=str(exc), attempts=exc.attempts, dnnl=mapped())
        """,
        env=env,
        timeout=30,
    )
    assert result["error"] is not None
    [(_, tried, reason)] = result["attempts"]
    assert tried == str(target)
    assert reason == f"not a regular file (a {kind})"
    assert result["dnnl"] == []


# --- has_function is honest -----------------------------------------------------------


def test_has_function_is_false_for_names_the_binding_does_not_declare(real_dnnl):
    """Only a function the headers declare and the library exports is True:
    a typo, or a function libdnnl exports that the headers lack, is False."""
    real_exports_it = lib.dlsym(
        lib.dlopen(real_dnnl.path.encode(), lib.RTLD_NOW | lib.RTLD_NOLOAD), b"dnnl_sgemm"
    ) != ffi.NULL
    assert real_exports_it  # exported by libdnnl, not declared by our headers
    for name in ("no_such_function", "dnnl_sgemm", "", "dnnl_version "):
        assert dnnl_interop.has_function(name) is False, name
        assert real_dnnl.has_function(name) is False, name
    assert dnnl_interop.has_function("dnnl_version") is True
    assert real_dnnl.has_function("dnnl_ocl_interop_engine_create") is True


@pytest.mark.parametrize("bad", [None, b"dnnl_version", 3, ["dnnl_version"]])
def test_has_function_refuses_a_name_that_is_not_a_str(real_dnnl, bad):
    with pytest.raises(TypeError, match="name: expected a str"):
        dnnl_interop.has_function(bad)
    with pytest.raises(TypeError, match="name: expected a str"):
        real_dnnl.has_function(bad)


def test_has_function_of_an_undeclared_name_loads_nothing(tmp_path):
    """The answer for a name the binding does not declare needs no library."""
    env = clean_env(DNNL_INTEROP_LIBRARY=str(tmp_path / "nowhere" / "libdnnl.so.3"))
    result = child_report(
        """
        import dnnl_interop
        report(answer=dnnl_interop.has_function("no_such_function"), dnnl=mapped(),
               bound=dnnl_interop.loaded_library() is not None)
        """,
        env=env,
    )
    assert result == {"answer": False, "dnnl": [], "bound": False}


# --- functions that return no status --------------------------------------------------

# A oneDNN that exports dnnl_version, dnnl_set_verbose and
# dnnl_memory_desc_get_size only: every other function is missing.
SPARSE_LIBRARY = r"""
#include "dnnl.h"
static const dnnl_version_t version = {3, 0, 0, "sparse", DNNL_RUNTIME_SEQ, DNNL_RUNTIME_NONE};
const dnnl_version_t *dnnl_version(void) { return &version; }
dnnl_status_t dnnl_set_verbose(int level) { (void)level; return dnnl_success; }
size_t dnnl_memory_desc_get_size(const_dnnl_memory_desc_t memory_desc) {
    return memory_desc ? 64 : 0;
}
"""


@pytest.fixture(scope="module")
def sparse_library(tmp_path_factory) -> str:
    directory = tmp_path_factory.mktemp("sparse")
    (directory / "sparse.c").write_text(SPARSE_LIBRARY)
    target = directory / "libdnnl.so.3"
    subprocess.run(
        ["cc", "-shared", "-fPIC", "-Wall", "-Werror", f"-I{ROOT / 'headers'}",
         "-o", str(target), str(directory / "sparse.c")],
        check=True, timeout=120,
    )
    return str(target)


@pytest.mark.parametrize("first_call", ["load_library", "autoload"])
def test_a_missing_function_that_returns_no_status_raises(sparse_library, first_call):
    """A function that returns a size, count or pointer answers 0 from its
    stub; checked() turns that into MissingFunctionError naming the function
    and the library, whether the library was loaded explicitly or by that
    very call. A real 0 from a function the library has is returned as is."""
    result = child_report(
        f"""
        import dnnl_interop
        from dnnl_interop._ffi import ffi, lib
        from dnnl_interop._library import checked
        if {first_call == "load_library"!r}:
            dnnl_interop.load_library()
        outcomes = {{}}
        calls = {{
            "dnnl_memory_desc_get_size_v2": lambda: lib.dnnl_memory_desc_get_size_v2(ffi.NULL, 0),
            "dnnl_engine_get_count": lambda: lib.dnnl_engine_get_count(lib.dnnl_cpu),
            "dnnl_memory_desc_get_size": lambda: lib.dnnl_memory_desc_get_size(ffi.NULL),
        }}
        for name, call in calls.items():
            raw = call()
            try:
                outcomes[name] = ["value", checked(raw, name)]
            except Exception as exc:
                outcomes[name] = [type(exc).__name__, str(exc), exc.function,
                                  isinstance(exc, dnnl_interop.MissingFunctionError)]
        report(outcomes=outcomes, has_v2=dnnl_interop.has_function("dnnl_memory_desc_get_size_v2"))
        """,
        env=clean_env(DNNL_INTEROP_LIBRARY=sparse_library),
    )
    outcomes = result["outcomes"]
    for name in ("dnnl_memory_desc_get_size_v2", "dnnl_engine_get_count"):
        kind, message, function, missing = outcomes[name]
        assert (kind, function, missing) == ("MissingFunctionError", name, True)
        assert sparse_library in message and name in message
    assert outcomes["dnnl_memory_desc_get_size"] == ["value", 0]
    assert result["has_v2"] is False


def test_checked_passes_real_answers_through(real_dnnl):
    """With every function present, checked() returns what the C function
    returned, zero included, and raises nothing."""
    from dnnl_interop._library import checked

    assert checked(lib.dnnl_memory_desc_get_size(ffi.NULL), "dnnl_memory_desc_get_size") == 0
    count = checked(lib.dnnl_engine_get_count(lib.dnnl_cpu), "dnnl_engine_get_count")
    assert count == lib.dnnl_engine_get_count(lib.dnnl_cpu)
    assert checked(None, "dnnl_version") is None  # nothing answered by a stub


# --- arguments are checked before anything is loaded ----------------------------------


@pytest.mark.parametrize(
    "bad, error",
    [(5, TypeError), (["x"], TypeError), (3.5, TypeError), ("/tmp/lib\0dnnl.so", ValueError)],
)
def test_load_library_refuses_a_path_of_the_wrong_kind_naming_it(bad, error):
    """A path that is not a str, bytes or os.PathLike, or that holds a NUL
    byte, raises before anything is tried, naming the argument."""
    with pytest.raises(error, match=r"^path: "):
        dnnl_interop.load_library(bad)


def test_load_library_takes_a_bytes_path(real_dnnl):
    assert dnnl_interop.load_library(os.fsencode(REAL_LIBRARY)) is real_dnnl


@pytest.mark.parametrize("bad", [None, 1.5, "1", True, [], __import__("fractions").Fraction(1)])
def test_set_verbose_takes_only_an_int_level(real_dnnl, bad):
    with pytest.raises(TypeError, match=r"^level: expected an int"):
        dnnl_interop.set_verbose(bad)


@pytest.mark.parametrize("bad", [2**31, -(2**31) - 1, 2**64])
def test_set_verbose_refuses_a_level_no_c_int_holds(real_dnnl, bad):
    with pytest.raises(ValueError, match=r"^level: .* does not fit a C int"):
        dnnl_interop.set_verbose(bad)
