"""The emulated Level Zero loader (dnnl_interop.testing.emulated_level_zero): the mechanism.

This session must never have the loader in it (it checks oneDNN without a
Level Zero loader, and uses the CPU engine), so everything that needs it
runs in children: ``emulated_level_zero.run_in_child`` (functions of this
module), plain subprocesses (what enabling too late does), and child pytest
sessions (the plugin). tests/gpu/test_ze_*.py hold what real oneDNN does on it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap

import cffi
import numpy as np
import pytest

from conftest import ROOT
from dnnl_interop import _elf
from dnnl_interop.testing import emulated_gpu
from dnnl_interop.testing import emulated_level_zero as emulated


def _run(code: str, env: dict[str, str] | None = None, timeout: float = 180):
    """Run ``code`` in a fresh interpreter; the completed process."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=os.environ.copy() if env is None else env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _mapped(name_part: str) -> list[str]:
    with open("/proc/self/maps", encoding="utf-8") as maps:
        return sorted({line.split()[-1] for line in maps if name_part in line})


# --- what ships ------------------------------------------------------------------------


def test_the_loader_ships_beside_the_module_and_links_nothing_but_glibc():
    path = emulated.loader_path()
    assert path.name == emulated.LOADER_FILENAME and path.parent.name == "testing"
    # No OpenCL, no Level Zero, no Python: libc, and on x86-64 glibc the libraries
    # that hold dlopen and pthread_once before glibc 2.34 (setup.py).
    assert set(_elf.needed(str(path))) <= {"libc.so.6", "libdl.so.2", "libpthread.so.0"}
    assert "libc.so.6" in _elf.needed(str(path))


def test_the_helpers_declarations_match_the_level_zero_header(tmp_path):
    # The helper uses its declarations in ABI mode, where nothing is checked.
    # Compiled here in API mode against headers/level_zero/ze_api.h, a
    # prototype that disagrees fails to compile, a field out of place fails
    # cffi's layout check, and an enum value is compared with the compiler's.
    ffi = cffi.FFI()
    ffi.cdef(emulated._CDEF)
    ffi.set_source(
        "ze_cdef_check", '#include "level_zero/ze_api.h"', include_dirs=[str(ROOT / "headers")],
        extra_compile_args=["-Werror=incompatible-pointer-types", "-Werror=int-conversion"],
    )
    ffi.compile(tmpdir=str(tmp_path), verbose=False)
    declared = dict(re.findall(r"\b(ZE_\w+) = (0x[0-9a-fA-F]+|\d+)", emulated._CDEF))
    structs = re.findall(r"} (ze_\w+_t);", emulated._CDEF)
    done = _run(
        f"""
        import ctypes, sys
        # The module calls the loader's functions: load it first (a child process).
        ctypes.CDLL({str(emulated.loader_path())!r}, mode=ctypes.RTLD_GLOBAL)
        sys.path.insert(0, {str(tmp_path)!r})
        import ze_cdef_check
        ffi, lib = ze_cdef_check.ffi, ze_cdef_check.lib
        for name in {structs!r}:
            ffi.sizeof(name)  # cffi compares every field offset with the compiler's
        wrong = {{name: (value, getattr(lib, name)) for name, value in {declared!r}.items()
                 if int(value, 0) != getattr(lib, name)}}
        assert not wrong, wrong
        """
    )
    assert structs and len(declared) > 50
    assert done.returncode == 0, done.stderr


def test_importing_the_module_loads_no_library_and_changes_no_variable():
    done = _run(
        """
        import os
        before = dict(os.environ)
        from dnnl_interop.testing import emulated_level_zero
        maps = open("/proc/self/maps").read()
        assert "libze_loader" not in maps and emulated_level_zero.LOADER_FILENAME not in maps, maps
        assert "libdnnl" not in maps and "libOpenCL" not in maps, maps
        assert dict(os.environ) == before
        """
    )
    assert done.returncode == 0, done.stderr


def test_this_session_has_no_level_zero_loader():
    assert not _mapped("libze_loader") and not _mapped(emulated.LOADER_FILENAME)


# --- never half-on -----------------------------------------------------------------------


def test_enabling_after_the_sycl_runtime_started_raises_too_late_and_loads_nothing():
    done = _run(
        """
        import dnnl_interop as dnnl
        from dnnl_interop.testing import emulated_level_zero
        dnnl.Engine.cpu()  # starts SYCL, whose Level Zero adapter would crash on the loader
        try:
            emulated_level_zero.enable()
        except emulated_level_zero.LevelZeroTooLateError as exc:
            print(exc)
        else:
            raise SystemExit("enabled")
        assert not emulated_level_zero.is_enabled()
        assert emulated_level_zero.LOADER_FILENAME not in open("/proc/self/maps").read()
        """
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SYCL runtime has already started" in done.stdout
    assert "run_in_child" in done.stdout


def test_enabling_after_onednn_initialised_level_zero_without_it_raises_too_late():
    done = _run(
        """
        import dnnl_interop as dnnl
        from dnnl_interop import ze
        from dnnl_interop.testing import emulated_level_zero
        try:
            ze.get_engine_cache_blob_id(1, 1)  # no loader yet: libdnnl's Level Zero init fails for good
        except dnnl.DnnlRuntimeError:
            pass
        try:
            emulated_level_zero.enable()
        except emulated_level_zero.LevelZeroTooLateError as exc:
            print(exc)
        else:
            raise SystemExit("enabled")
        """,
        env=emulated_gpu.child_environment(),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "does not reach the emulated Level Zero loader" in done.stdout


def test_a_device_selector_that_lets_sycl_see_level_zero_is_refused():
    done = _run(
        """
        from dnnl_interop.testing import emulated_level_zero
        try:
            emulated_level_zero.enable()
        except emulated_level_zero.LevelZeroTooLateError as exc:
            print(exc)
        else:
            raise SystemExit("enabled")
        """,
        env=dict(os.environ, ONEAPI_DEVICE_SELECTOR="level_zero:gpu"),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "'level_zero:gpu'" in done.stdout


# --- run_in_child ------------------------------------------------------------------------


def _engine_transposes(source: np.ndarray) -> dict:
    """In a child: the emulation's facts, and a reorder on a real Level Zero engine."""
    import dnnl_interop as dnnl
    from dnnl_interop import ze

    lz = emulated.enable()
    again = emulated.enable()
    with emulated.enabled() as scoped:
        same = again is lz and scoped is lz
    src_desc = dnnl.MemoryDesc(source.shape, "float32", "ab")
    dst_desc = dnnl.MemoryDesc(source.shape, "float32", "ba")
    src, dst = lz.shared(source.shape, "float32"), lz.shared(source.shape[::-1], "float32")
    src.array[:] = source
    with ze.make_engine(lz.driver, lz.device, lz.context) as engine:
        with ze.make_stream(engine, lz.command_list) as stream:
            ze.execute(
                dnnl.reorder(src_desc, dst_desc, engine), stream,
                {dnnl.ARG_FROM: ze.make_memory(src_desc, engine, src.array),
                 dnnl.ARG_TO: ze.make_memory(dst_desc, engine, dst.array.T)},
            )
            stream.wait()
        driver_back = ze.get_driver(engine)
    return {
        "out": dst.array.copy(),
        "same": same,
        "driver": driver_back == lz.driver,
        "ip_version": lz.ip_version,
        "selector": os.environ.get("ONEAPI_DEVICE_SELECTOR"),
        "name": lz.name,
    }


def test_run_in_child_gives_a_fresh_process_a_real_level_zero_engine():
    source = np.arange(9 * 7, dtype=np.float32).reshape(9, 7)
    facts = emulated.run_in_child(_engine_transposes, source)
    np.testing.assert_array_equal(facts["out"], source.T)
    assert facts["same"] and facts["driver"]
    assert facts["ip_version"] == emulated.IP_VERSION
    assert facts["selector"] == emulated.DEVICE_SELECTOR
    assert facts["name"].startswith("Intel(R) Gen9 GPU emulated on ")
    assert not _mapped(emulated.LOADER_FILENAME)  # and this process is untouched


def _bad_requests() -> list[str]:
    lz = emulated.enable()
    problems = []
    for request in (lambda: lz.device_memory(0), lambda: lz.shared((2, -1)), lambda: lz.event_pool(0)):
        try:
            request()
        except ValueError as exc:
            problems.append(f"ValueError: {exc}")
    try:
        lz.device_memory(1 << 60)  # beyond the device's largest allocation
    except emulated.LevelZeroError as exc:
        problems.append(f"LevelZeroError: {exc}")
    return problems


def test_impossible_requests_raise_errors_that_say_why():
    problems = emulated.run_in_child(_bad_requests)
    assert problems[0].startswith("ValueError: nbytes: expected a positive int")
    assert problems[1].startswith("ValueError: shape: expected positive ints")
    assert problems[2].startswith("ValueError: count: expected a positive int")
    assert problems[3] == "LevelZeroError: zeMemAllocDevice failed: ZE_RESULT_ERROR_UNSUPPORTED_SIZE"


# --- the pytest plugin --------------------------------------------------------------------

_FIXTURE_TEST = """
from dnnl_interop import ze

def test_the_fixture_gives_what_onednn_makes_a_level_zero_engine_on(emulated_level_zero):
    lz = emulated_level_zero
    with ze.make_engine(lz.driver, lz.device, lz.context) as engine:
        assert ze.get_device(engine) == lz.device
"""


def _pytest(tmp_path, *args: str):
    (tmp_path / "test_fixture.py").write_text(_FIXTURE_TEST)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args, "test_fixture.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize("args", [("--emulated-level-zero",), ()], ids=["option", "fixture-alone"])
def test_the_plugin_fixture_gives_a_driver_device_and_context_for_a_level_zero_engine(tmp_path, args):
    done = _pytest(tmp_path, *args)
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout + done.stderr


def test_the_option_puts_the_loader_in_place_before_conftest_files_load(tmp_path):
    (tmp_path / "conftest.py").write_text(
        "from dnnl_interop.testing import emulated_level_zero\n"
        "assert emulated_level_zero.is_enabled(), 'not on when conftest.py loads'\n"
    )
    done = _pytest(tmp_path, "--emulated-level-zero")
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout + done.stderr
