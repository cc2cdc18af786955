"""The crash matrix: the public API under bad input and misuse, each failure in its own process.

Every public function and method is called with bad values in each argument
position, and in misuse sequences (in-flight work dropped or closed, threads
closing what others use, copies, interpreter exit with work in flight, the
loader pointed at what is not a library). Each case must end in a clean
success (checked data where there is data) or a clean exception of the
expected class naming the argument: never a death by signal, never a hang.
The cases are in ``tests/crash_matrix/``; ``python -m crash_matrix show NAME``
(from ``tests/``) prints one as a standalone program.

The matrix runs once per session, in parallel (in CI a third of every
section, the same on every run: ``CRASH_MATRIX_FULL=1`` runs it all there too); each test below reports one
section (a crash class and a function group), so a failure names what died,
with the child's output. ``CRASH_MATRIX_JSON=FILE`` also writes every
verdict to FILE.
"""

from __future__ import annotations

import json
import os
import time
import zlib
from pathlib import Path

import pytest

from crash_matrix import all_cases, report
from crash_matrix.model import (
    ACCEPTED,
    DIED,
    HUNG,
    PASS,
    UNCLEAR,
    WRONG,
    Case,
    Ok,
    Raises,
)
from crash_matrix.runner import run_cases

ALL_CASES = all_cases()
SECTIONS = sorted({case.section for case in ALL_CASES})


def ci_sample(cases: list[Case], share: int = 3) -> list[Case]:
    """One case in ``share`` of every section, the same ones on every run (by a hash of the
    name): what CI runs on its two cores within its time budget. Sequences of a handful of
    cases (fewer than ``share``) run whole."""
    by_section: dict[str, list[Case]] = {}
    for case in cases:
        by_section.setdefault(case.section, []).append(case)
    kept = []
    for members in by_section.values():
        if len(members) < share:
            kept += members
        else:
            kept += [case for case in members if zlib.crc32(case.name.encode()) % share == 0] or members[:1]
    return kept


# CI runs a third of every section (CRASH_MATRIX_FULL=1 runs all of it there too); elsewhere,
# and in the soak runs, the whole matrix.
FULL = not os.environ.get("CI") or os.environ.get("CRASH_MATRIX_FULL") == "1" \
    or os.environ.get("HYPOTHESIS_PROFILE") == "soak"
CASES = ALL_CASES if FULL else ci_sample(ALL_CASES)

pytestmark = pytest.mark.xdist_group("crash_matrix")  # one run per session, even under xdist


class Matrix:
    def __init__(self, verdicts, seconds: float, server: dict):
        self.verdicts = verdicts
        self.seconds = seconds
        self.server = server

    def failed(self, section: str):
        return [v for v in self.verdicts if v.case.section == section and not v.passed]


def _inspect_server(pid: int) -> dict:
    with open(f"/proc/{pid}/maps") as maps:
        mapped = maps.read()
    return {
        "threads": len(os.listdir(f"/proc/{pid}/task")),
        "libdnnl": "libdnnl" in mapped,
        "drivers": [name for name in ("libpocl", "libintelocl") if name in mapped],
    }


@pytest.fixture(scope="session")
def matrix(standin_library, request):
    server: dict = {}
    started = time.monotonic()
    verdicts = run_cases(
        CASES, standin=str(standin_library), on_server=lambda pid: server.update(_inspect_server(pid))
    )
    result = Matrix(verdicts, time.monotonic() - started, server)
    request.config.pluginmanager.register(_Summary(result), "crash-matrix-summary")
    if os.environ.get("CRASH_MATRIX_JSON"):  # every verdict with its output, for a closer look
        Path(os.environ["CRASH_MATRIX_JSON"]).write_text(json.dumps(report.as_json(verdicts, result.seconds)))
    return result


class _Summary:
    """Prints the case count and the verdicts by class at the end of the session."""

    def __init__(self, matrix: Matrix):
        self.matrix = matrix

    def pytest_terminal_summary(self, terminalreporter):
        terminalreporter.write_line(report.summary(self.matrix.verdicts, self.matrix.seconds))


@pytest.mark.parametrize("section", SECTIONS)
def test_no_case_dies_hangs_or_misbehaves(matrix, section):
    failed = matrix.failed(section)
    if failed:
        pytest.fail(f"{len(failed)} of the cases failed:\n\n" + report.failures(failed), pytrace=False)


def test_the_matrix_has_at_least_a_thousand_cases_with_unique_names():
    assert len(ALL_CASES) >= 1000
    assert len({case.name for case in ALL_CASES}) == len(ALL_CASES)


def test_the_ci_sample_keeps_a_third_of_every_section():
    sample = ci_sample(ALL_CASES)
    assert {case.section for case in sample} == set(SECTIONS)
    assert len(ALL_CASES) // 4 < len(sample) < len(ALL_CASES) // 2


def test_the_fork_server_holds_one_thread_and_no_onednn_or_opencl_driver(matrix):
    assert matrix.server == {"threads": 1, "libdnnl": False, "drivers": []}


def _named_in_cases(name: str) -> bool:
    return any(name in case.code for case in ALL_CASES)


def test_every_public_function_and_class_is_called_by_some_case():
    import dnnl_interop
    from dnnl_interop import ocl, sycl, ze

    public = {f"ocl.{name}" for name in ocl.__all__} | {f"ze.{name}" for name in ze.__all__}
    public |= {f"sycl.{name}" for name in sycl.__all__}
    public |= {f"dnnl.{name}" for name in dnnl_interop.primitives.__all__}  # every kind, forward and backward
    public |= {
        f"dnnl.{name}" for name in dnnl_interop.__all__
        if name not in ("core", "ocl", "ze", "sycl") and callable(getattr(dnnl_interop, name))
        and not isinstance(getattr(dnnl_interop, name), type(Exception)) and not name.startswith("ARG_")
    }
    # Exception classes, enums and value types are exercised through the calls that use them.
    exercised_indirectly = {
        "dnnl.Status", "dnnl.EngineKind", "dnnl.DataType", "dnnl.Library", "dnnl.Runtime", "dnnl.Version",
        "dnnl.check", "dnnl.loaded_library", "dnnl.get_include", "dnnl.format_tags",
        "ocl.MemoryKind", "ze.ZeHandle", "sycl.MemoryKind",
    }
    missing = sorted(name for name in public - exercised_indirectly if not _named_in_cases(name))
    assert not missing, f"public names no case calls: {missing}"


# --- the harness itself can fail ------------------------------------------------------

CONTROLS = [
    Case("control: a segfault", "control", "import ctypes\nctypes.string_at(0)", Ok(), library="none"),
    Case("control: a hang", "control", "time.sleep(60)", Ok(), library="none", timeout=3.0),
    Case("control: a wrong result", "control", "assert 1 + 1 == 3", Ok(), library="none"),
    Case("control: a segfault while objects are dropped", "control",
         "class Bad:\n    def __del__(self):\n        import ctypes\n        ctypes.string_at(0)\nbad = Bad()",
         Ok(), library="none"),
    Case("control: a segfault at interpreter exit", "control",
         "import atexit, ctypes\natexit.register(ctypes.string_at, 0)", Ok(), library="none", fresh=True),
    Case("control: bad input accepted", "control", "int('5')", Raises("ValueError", "x"), library="none"),
    Case("control: a message naming another argument", "control",
         "raise TypeError('context: expected a cl_context')", Raises("TypeError", "device"), library="none"),
    Case("control: a clean refusal", "control",
         "raise TypeError('device: expected a cl_device_id')", Raises("TypeError", "device"), library="none"),
]


def test_the_harness_reports_deaths_hangs_and_wrong_results_as_failures(standin_library):
    verdicts = run_cases(CONTROLS, standin=str(standin_library))
    got = {v.case.name: v.verdict for v in verdicts}
    assert got == {
        "control: a segfault": DIED,
        "control: a hang": HUNG,
        "control: a wrong result": WRONG,
        "control: a segfault while objects are dropped": DIED,
        "control: a segfault at interpreter exit": DIED,
        "control: bad input accepted": ACCEPTED,
        "control: a message naming another argument": UNCLEAR,
        "control: a clean refusal": PASS,
    }, "\n" + report.failures(verdicts)


def _batch_control(name: str, code: str, expect, timeout: float = 20.0) -> Case:
    record = "open(os.environ['CONTROL_PIDS'], 'a').write(f'{os.getpid()}\\n')\n"
    return Case(f"control: {name}", "bad-input/control", record + code, expect, timeout=timeout)


def test_a_batch_passes_only_what_passed_in_it_and_runs_the_rest_again_alone(standin_library, tmp_path, monkeypatch):
    # Bad-input cases share a process; what fails there, or runs in a process that died
    # or hung, is run again alone, and that run is its verdict.
    from crash_matrix import runner

    pids = tmp_path / "pids"
    monkeypatch.setenv("CONTROL_PIDS", str(pids))
    controls = [
        _batch_control("first clean refusal", "raise TypeError('device: bad')", Raises("TypeError", "device")),
        _batch_control("a wrong result in a batch", "assert 1 + 1 == 3", Ok()),
        _batch_control("second clean refusal", "raise TypeError('device: bad')", Raises("TypeError", "device")),
        _batch_control("a segfault in a batch", "import ctypes\nctypes.string_at(0)", Ok()),
        _batch_control("a hang in a batch", "time.sleep(60)", Ok(), timeout=2.0),
    ]
    assert all(runner._batchable(case) for case in controls)
    verdicts = run_cases(controls, standin=str(standin_library))
    assert [v.verdict for v in verdicts] == [PASS, WRONG, PASS, DIED, HUNG], "\n" + report.failures(verdicts)
    runs = pids.read_text().split()
    # One batch process ran the cases up to the segfault; then each case ran alone.
    assert len(set(runs[:4])) == 1 and len(runs) == 4 + len(controls), runs

