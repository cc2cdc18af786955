"""tests/gpu, run from the main session: one child pytest session per module.

The main session cannot switch the emulated GPU on (it uses oneDNN's CPU
engine and pyopencl's CPU devices), so tests/gpu is left out of its
collection and each module there runs here as ``python -m pytest <module>``
in a child process. A module passes when its child exits 0 with no test
failed, errored or skipped, and with at least one passed test per test
function the module defines. The child imports the installed package
(PYTHONSAFEPATH, set by conftest.py, is inherited).
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT

GPU_DIR = ROOT / "tests" / "gpu"
MODULES = sorted(path.name for path in GPU_DIR.glob("test_*.py"))
_OUTCOME = re.compile(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed|deselected)")


def _test_functions(path) -> int:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return sum(
        isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test")
        for node in tree.body
    )


def _summary(output: str) -> dict[str, int]:
    """Counts of pytest's last summary line: {"passed": 5, "failed": 1, ...}."""
    lines = [line for line in output.splitlines() if _OUTCOME.search(line) and " in " in line]
    if not lines:
        return {}
    counts: dict[str, int] = {}
    for number, outcome in _OUTCOME.findall(lines[-1]):
        counts[outcome.rstrip("s") if outcome.startswith("error") else outcome] = int(number)
    return counts


def _run(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=ROOT,
        env=dict(os.environ, PYTHONSAFEPATH="1"),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_there_are_gpu_modules_to_run():
    assert MODULES, f"no test modules in {GPU_DIR}"


@pytest.mark.parametrize("module", MODULES)
def test_each_gpu_module_passes_in_a_session_of_its_own(module):
    path = GPU_DIR / module
    minimum = _test_functions(path)
    done = _run(str(path.relative_to(ROOT)), "-q")
    output = done.stdout + done.stderr
    counts = _summary(done.stdout)
    problems = {k: v for k, v in counts.items() if k not in ("passed", "deselected") and v}
    assert done.returncode == 0 and not problems and counts.get("passed", 0) >= minimum, (
        f"{module}: exit {done.returncode}, outcomes {counts}, expected at least {minimum} "
        f"passed and nothing else\n{output}"
    )


def test_the_main_session_leaves_tests_gpu_out():
    # Another module's collection error must not hide what this checks.
    done = _run("--collect-only", "-q", "--continue-on-collection-errors", "tests", timeout=300)
    collected = [line for line in done.stdout.splitlines() if "::" in line]
    assert collected, done.stdout
    assert not [line for line in collected if line.startswith("tests/gpu/")]
    assert [line for line in collected if line.startswith("tests/test_gpu_suite.py::")]
