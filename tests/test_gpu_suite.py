"""One session runs tests/ and tests/gpu: what tests/gpu/child_sessions.py promises.

Every way of naming the tests collects tests/gpu with the rest, without
errors and without duplicates. Each module of tests/gpu runs in a child
session of its own with the emulated GPU on, and each of its tests is
reported as itself: passed, failed, skipped, expected to fail, an error in a
fixture, or lost with a child that crashed (a crash at exit fails the last
test's teardown). Those outcomes are checked on a throwaway tests/gpu (a
copy of its conftest beside modules of deliberate outcomes), so that no
real GPU test has to fail to show it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT

GPU_DIR = ROOT / "tests" / "gpu"
_SUMMARY = re.compile(r"^(PASSED|FAILED|ERROR|XFAIL|XPASS) (\S+)", re.M)


def _pytest(*args: str, cwd, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_ADDOPTS", "OPENCL_LAYERS")}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _collected(*args: str) -> list[str]:
    done = _pytest("--collect-only", "-q", *args, cwd=ROOT)
    last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    assert done.returncode == 0 and "error" not in last, done.stdout + done.stderr
    return [line for line in done.stdout.splitlines() if "::" in line]


def _unselected_session(config: pytest.Config) -> bool:
    """Whether this session collected what ``pytest`` with no arguments collects: started with
    the configured testpaths (its xdist workers re-read the same arguments), nothing selected
    or deselected beyond the configured options, no cache reordering."""
    option = config.option
    addopts = config.getini("addopts")
    configured_marks = addopts[addopts.index("-m") + 1] if "-m" in addopts else ""
    return (
        config.args_source is pytest.Config.ArgsSource.TESTPATHS
        and not os.environ.get("PYTEST_ADDOPTS")
        and not option.keyword and option.markexpr == configured_marks
        and not option.deselect and not option.ignore and not option.ignore_glob
        and not any(getattr(option, name, False) for name in ("lf", "failedfirst", "newfirst", "stepwise"))
    )


def test_every_way_of_naming_the_tests_collects_tests_gpu_with_the_rest(request):
    # With no arguments (testpaths: tests). A session started so has collected exactly
    # that already (the suite's default run, CI's): its items spare a child collecting it again.
    if _unselected_session(request.config):
        everything = [item.nodeid for item in request.session.items]
    else:
        everything = _collected()
    assert len(everything) == len(set(everything))
    gpu_modules = {path.relative_to(ROOT).as_posix() for path in GPU_DIR.glob("test_*.py")}
    assert {line.split("::")[0] for line in everything if line.startswith("tests/gpu/")} == gpu_modules
    assert [line for line in everything if line.startswith("tests/test_")]
    # tests/gpu named beside a module of tests/ and inside a directory named too
    # (as "tests tests/gpu" would, without collecting the whole suite twice more):
    # each test once.
    one, main = "tests/gpu/test_gpu_engine.py", "tests/test_core.py"
    named = [line for line in everything if line.startswith(("tests/gpu/", f"{main}::"))]
    assert sorted(_collected(main, "tests/gpu", one)) == sorted(named)
    assert _collected(one) == [line for line in everything if line.startswith(f"{one}::")]


# --- the child sessions, on a throwaway tests/gpu ------------------------------------

_RECORD = """
import os

from dnnl_interop.testing import emulated_gpu


def record(name):
    with open("processes", "a") as f:
        f.write(f"{name} {os.getpid()} {emulated_gpu.is_enabled()}\\n")
"""
_MAIN = """
from record import record


def test_in_the_main_session():
    record("main")
"""
_OUTCOMES = """
import pytest

from record import record


@pytest.fixture
def broken():
    raise RuntimeError("the fixture broke on purpose")


def test_passes():
    record("outcomes")


@pytest.mark.parametrize("n", [1, 2])
def test_parametrized(n):
    record("outcomes")


def test_fails():
    assert 6 * 7 == 43, "failed on purpose"


def test_skips():
    pytest.skip("skipped on purpose")


@pytest.mark.xfail(reason="expected to fail")
def test_expected_failure():
    assert False


def test_errors(broken):
    pass


def test_left_out_by_k():
    record("left out")
"""
_CRASH = """
import os

from record import record


def test_before_the_crash():
    record("crash")


def test_crashes():
    os._exit(3)


def test_after_the_crash():
    pass
"""
_CRASH_AT_EXIT = """
import atexit
import os


def test_passes_but_its_process_crashes_at_exit():
    atexit.register(os._exit, 4)
"""


@pytest.fixture
def throwaway(tmp_path):
    """A rootdir with a test module, and a gpu/ of tests/gpu's conftest and deliberate outcomes."""
    gpu = tmp_path / "gpu"
    gpu.mkdir()
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    for path, text in {
        tmp_path / "record.py": _RECORD,
        tmp_path / "test_main.py": _MAIN,
        gpu / "__init__.py": "",
        gpu / "test_outcomes.py": _OUTCOMES,
        gpu / "test_crash.py": _CRASH,
        gpu / "test_crash_at_exit.py": _CRASH_AT_EXIT,
    }.items():
        path.write_text(text.lstrip())
    for name in ("conftest.py", "child_sessions.py"):
        shutil.copy(GPU_DIR / name, gpu / name)
    return tmp_path


def _processes(root) -> dict[str, set[tuple[int, bool]]]:
    """name -> {(pid, emulated GPU on)} of the tests that ran, from ``record``."""
    found: dict[str, set[tuple[int, bool]]] = {}
    for line in (root / "processes").read_text().splitlines():
        *name, pid, gpu = line.split()
        found.setdefault(" ".join(name), set()).add((int(pid), gpu == "True"))
    return found


def test_each_gpu_module_runs_in_a_child_session_and_its_tests_report_as_themselves(throwaway):
    done = _pytest("-rA", "-n", "2", "--dist", "loadfile", "-k", "not left_out", cwd=throwaway)
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    assert sorted(_SUMMARY.findall(done.stdout)) == sorted([
        ("PASSED", "test_main.py::test_in_the_main_session"),
        ("PASSED", "gpu/test_outcomes.py::test_passes"),
        ("PASSED", "gpu/test_outcomes.py::test_parametrized[1]"),
        ("PASSED", "gpu/test_outcomes.py::test_parametrized[2]"),
        ("FAILED", "gpu/test_outcomes.py::test_fails"),
        ("XFAIL", "gpu/test_outcomes.py::test_expected_failure"),
        ("ERROR", "gpu/test_outcomes.py::test_errors"),
        ("PASSED", "gpu/test_crash.py::test_before_the_crash"),
        ("FAILED", "gpu/test_crash.py::test_crashes"),
        ("ERROR", "gpu/test_crash.py::test_after_the_crash"),
        ("PASSED", "gpu/test_crash_at_exit.py::test_passes_but_its_process_crashes_at_exit"),
        ("ERROR", "gpu/test_crash_at_exit.py::test_passes_but_its_process_crashes_at_exit"),
    ]), output
    for words in (
        "assert 6 * 7 == 43",  # the child's traceback, as pytest shows it
        "failed on purpose",
        "skipped on purpose",
        "the fixture broke on purpose",
        "gpu/test_crash.py exited with code 3 without reporting this test's call",
        "gpu/test_crash.py exited with code 3 without reporting this test's setup",
        "gpu/test_crash_at_exit.py exited with code 4 after reporting every test (expected 0)",
    ):
        assert words in output, (words, output)

    processes = _processes(throwaway)
    assert "left out" not in processes
    (main,), (outcomes,), (crash,) = processes["main"], processes["outcomes"], processes["crash"]
    assert not main[1] and outcomes[1] and crash[1]  # the emulated GPU is on in the children only
    assert len({main[0], outcomes[0], crash[0]}) == 3  # a process per module, all three tests of one in it


def test_a_child_session_runs_only_the_tests_the_session_selected(throwaway):
    done = _pytest("-q", "gpu/test_outcomes.py::test_parametrized", "gpu/test_outcomes.py::test_passes", cwd=throwaway)
    assert done.returncode == 0 and "3 passed" in done.stdout, done.stdout + done.stderr
    assert set(_processes(throwaway)) == {"outcomes"}


def test_a_session_with_the_emulated_gpu_on_runs_tests_gpu_itself_and_nothing_else(throwaway):
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--emulated-level-zero"]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_ADDOPTS", "OPENCL_LAYERS")}
    session = subprocess.Popen(
        [*command, "gpu/test_outcomes.py::test_passes"], cwd=throwaway, env=env, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True,
    )
    stdout, _ = session.communicate(timeout=300)
    assert session.returncode == 0 and "1 passed" in stdout, stdout
    assert _processes(throwaway) == {"outcomes": {(session.pid, True)}}

    done = _pytest("--emulated-level-zero", "gpu/test_outcomes.py::test_passes", "test_main.py", cwd=throwaway)
    assert done.returncode != 0 and "run with the emulated GPU on" in done.stderr, done.stdout + done.stderr
