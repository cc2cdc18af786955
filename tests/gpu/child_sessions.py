"""A pytest plugin: the test modules of one directory run in child sessions with the emulated GPU on.

tests/gpu/conftest.py registers it for tests/gpu. What it does depends on
whether the emulated GPU is on in the process:

* Off (the main session, or any session that names tests/gpu without
  ``--emulated-level-zero``): the modules are never imported here. One child
  session (``--collect-only``) lists their tests, which this session
  collects as stand-ins with the same node ids, keywords and marks, so
  ``-k``, ``-m``, node ids and xdist select them as usual. At a module's
  first selected test, a child session runs that module's selected tests
  and writes every report; each stand-in is then reported with its own
  test's reports. A module runs once per process that runs any of its tests
  (one, with ``--dist loadfile``).
* On (a child session, or ``pytest --emulated-level-zero tests/gpu/...``
  for a debugger): the tests run in this process, and tests from outside the
  directory are refused; a child session also runs only the tests it was
  given and writes what it collected or reported for its parent.

A test its child did not finish reporting (it crashed, hung, or could not
collect the module) fails at the missing phase with the end of the child's
output; a child that exits other than its reports say (a crash at exit)
fails the teardown of its last test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from pytest import TestReport

from dnnl_interop.testing import emulated_gpu

# The parent's instructions to a child session: a JSON file's path.
HANDOFF = "DNNL_INTEROP_TESTS_GPU_HANDOFF"
TIMEOUT = 600  # seconds for one child session; the slowest module takes about 10
OUTPUT_LINES = 60  # of a child's output, shown with a test it did not report


class ChildSessions:
    """The plugin, for the test modules under ``directory`` (a resolved path)."""

    def __init__(self, config: pytest.Config, directory: Path) -> None:
        self.config = config
        self.directory = directory
        handoff = os.environ.pop(HANDOFF, None)  # for this session only, not its helper processes
        self.handoff: dict[str, Any] | None = None
        if handoff is not None:
            self.handoff = json.loads(Path(handoff).read_text(encoding="utf-8"))
            self._out = open(self.handoff["output"], "a", encoding="utf-8")  # noqa: SIM115 - for the session
        self._listings: dict[Path, dict[str, Any] | None] = {}  # module -> what its child collected
        self._reports: dict[Path, dict[str, list[TestReport]]] = {}  # module -> node id -> reports

    def _inside(self, path: Path) -> bool:
        return Path(path).resolve().is_relative_to(self.directory)

    # --- with the emulated GPU on: run here; a child session writes for its parent ---------

    def _write(self, record: dict[str, Any]) -> None:
        self._out.write(json.dumps(record) + "\n")
        self._out.flush()  # a crash in the next test must not lose this record

    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        if not emulated_gpu.is_enabled():
            return
        outside = [item.nodeid for item in items if not self._inside(item.path)]
        if outside:
            raise pytest.UsageError(
                f"the tests of {self.directory} run with the emulated GPU on, where oneDNN's CPU engine "
                f"does not work: run them in a session of their own, not with {outside[:3]}"
            )
        if self.handoff is not None and "run" in self.handoff:
            wanted = set(self.handoff["run"])
            deselected = [item for item in items if item.nodeid not in wanted]
            if deselected:
                config.hook.pytest_deselected(items=deselected)
                items[:] = [item for item in items if item.nodeid in wanted]

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if self.handoff is None or "run" in self.handoff:
            return
        for item in session.items:
            marks = [{"name": mark.name, "kwargs": _scalars(mark.kwargs)} for mark in item.iter_markers()]
            self._write({"kind": "test", "nodeid": item.nodeid, "location": item.location,
                         "keywords": sorted(item.keywords), "marks": marks})

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if self.handoff is not None and report.failed:
            self._write({"kind": "error", "nodeid": report.nodeid, "text": str(report.longrepr)})

    def pytest_runtest_logreport(self, report: TestReport) -> None:
        if self.handoff is not None:
            data = self.config.hook.pytest_report_to_serializable(config=self.config, report=report)
            self._write({"kind": "report", "report": data})

    def pytest_unconfigure(self) -> None:
        if self.handoff is not None:
            self._out.close()

    # --- with the emulated GPU off: stand-ins, reported from child sessions ---------------

    @pytest.hookimpl(tryfirst=True)
    def pytest_pycollect_makemodule(self, module_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
        if emulated_gpu.is_enabled() or not self._inside(module_path):
            return None
        self._listings.setdefault(module_path, None)  # listed with the other modules made so far
        return ChildModule.from_parent(parent, path=module_path, sessions=self)

    def listing(self, module: Path) -> dict[str, Any]:
        """What a child session collected in ``module``: ``{"tests": [...], "errors": [...]}``."""
        if self._listings.get(module) is None:
            pending = [path for path, listed in self._listings.items() if listed is None]
            for path in pending:
                self._listings[path] = {"tests": [], "errors": []}
            code, output, records = self._child(["--collect-only", *map(str, pending)], {})
            by_path = {path.relative_to(self.config.rootpath).as_posix(): path for path in pending}
            for record in records:
                path = by_path.get(record["nodeid"].split("::")[0])
                if path is not None:
                    self._listings[path]["tests" if record["kind"] == "test" else "errors"].append(record)
            for path in pending:
                listed = self._listings[path]
                if code not in (0, 5) and not listed["tests"] and not listed["errors"]:  # 5: no tests there
                    listed["errors"].append({"text": _ended(code, output, "listing the tests of these modules", "")})
        return self._listings[module]

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
        if not isinstance(item, ChildTest):
            return None
        if item.nodeid not in self._reports.get(item.path, {}):
            module = [each for each in item.session.items if isinstance(each, ChildTest) and each.path == item.path]
            self._reports[item.path] = self._run(item.path, module)
        reports = self._reports[item.path].pop(item.nodeid)
        item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
        for report in reports:
            item.ihook.pytest_runtest_logreport(report=report)
        item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
        return True

    def _run(self, module: Path, items: list[ChildTest]) -> dict[str, list[TestReport]]:
        """Run ``items`` of ``module`` in a child session; their reports, by node id."""
        code, output, records = self._child([str(module)], {"run": [item.nodeid for item in items]})
        reports: dict[str, list[TestReport]] = {item.nodeid: [] for item in items}
        errors = []
        for record in records:
            if record["kind"] == "error":
                errors.append(record["text"])
            elif record["report"]["nodeid"] in reports:
                reports[record["report"]["nodeid"]].append(_report(self.config, record["report"]))

        expected = int(any(report.failed for each in reports.values() for report in each))
        running = items[0].location[0]
        unreported = False
        for item in items:
            missing = _missing_phase(reports[item.nodeid])
            if missing is not None:
                unreported = True
                text = _ended(code, output, f"running {running}", f" without reporting this test's {missing}")
                reports[item.nodeid].append(_failure(item, missing, "\n\n".join([text, *errors])))
        if not unreported and code != expected:
            text = _ended(code, output, f"running {running}", f" after reporting every test (expected {expected})")
            reports[items[-1].nodeid].append(_failure(items[-1], "teardown", text))
        return reports

    def _child(self, args: list[str], handoff: dict[str, Any]) -> tuple[int | None, str, list[dict[str, Any]]]:
        """Run a child pytest session with the emulated GPU on: exit code (None: timed out), output, records."""
        with tempfile.TemporaryDirectory(prefix="dnnl-interop-gpu-") as scratch:
            handoff_path, output_path = Path(scratch, "handoff.json"), Path(scratch, "records.jsonl")
            handoff_path.write_text(json.dumps({**handoff, "output": str(output_path)}), encoding="utf-8")
            command = [
                sys.executable, "-m", "pytest", *args,
                "--emulated-level-zero", "-p", "no:cacheprovider", "-o", "addopts=",
                f"--tb={self.config.option.tbstyle}", "--rootdir", str(self.config.rootpath),
            ]
            if self.config.inipath is not None:
                command += ["-c", str(self.config.inipath)]
            env = {name: value for name, value in os.environ.items() if name != "PYTEST_ADDOPTS"}
            env.update({HANDOFF: str(handoff_path), "PYTHONSAFEPATH": "1"})
            try:
                done = subprocess.run(
                    command, cwd=self.config.rootpath, env=env, capture_output=True, text=True, errors="replace",
                    timeout=TIMEOUT,
                )
                code, output = done.returncode, done.stdout + done.stderr
            except subprocess.TimeoutExpired as exc:
                code, output = None, _text(exc.stdout) + _text(exc.stderr)
            lines = output_path.read_text(encoding="utf-8").splitlines() if output_path.exists() else []
        records = []
        for line in lines:
            try:
                records.append(json.loads(line))
            except ValueError:  # the child died while writing it
                pass
        return code, output, records


class ChildModule(pytest.File):
    """A module of the directory, as its child session listed it: never imported here."""

    def __init__(self, *, sessions: ChildSessions, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.sessions = sessions

    def collect(self):
        listing = self.sessions.listing(self.path)
        if listing["errors"]:
            raise self.CollectError("\n\n".join(error["text"] for error in listing["errors"]))
        groups: dict[tuple[str, ...], pytest.Collector] = {(): self}
        tops = []
        for entry in listing["tests"]:
            name = entry["nodeid"][len(self.nodeid) + 2:]
            base, bracket, parameters = name.partition("[")
            *classes, function = base.split("::")
            parent: pytest.Collector = self
            for depth in range(1, len(classes) + 1):
                key = tuple(classes[:depth])
                if key not in groups:
                    groups[key] = ChildGroup.from_parent(parent, name=classes[depth - 1])
                    (tops if depth == 1 else groups[key[:-1]].members).append(groups[key])
                parent = groups[key]
            test = ChildTest.from_parent(parent, name=function + bracket + parameters, entry=entry)
            (tops if parent is self else parent.members).append(test)
        return tops


class ChildGroup(pytest.Collector):
    """A test class of a child-run module."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.members: list[pytest.Node] = []

    def collect(self):
        return self.members


class ChildTest(pytest.Item):
    """A test of a child-run module: its node id, location, keywords and marks; it runs in the child."""

    def __init__(self, *, entry: dict[str, Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._line, self._domain = entry["location"][1], entry["location"][2]
        self.extra_keyword_matches.update(entry["keywords"])
        for mark in entry["marks"]:
            self.add_marker(getattr(pytest.mark, mark["name"])(**mark["kwargs"]))

    def reportinfo(self):
        return self.path, self._line, self._domain

    def runtest(self) -> None:
        raise RuntimeError(f"{self.nodeid} runs in a child session (ChildSessions.pytest_runtest_protocol)")


def _scalars(kwargs: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments of a mark that ``-m`` can match (``-m "mark(key=value)"``)."""
    return {key: value for key, value in kwargs.items() if value is None or isinstance(value, (str, int, bool))}


def _ended(code: int | None, output: str, doing: str, outcome: str) -> str:
    how = f"timed out after {TIMEOUT} s" if code is None else f"exited with code {code}"
    tail = "\n".join(output.splitlines()[-OUTPUT_LINES:])
    return f"the child session {doing} {how}{outcome}\n\nlast lines of its output:\n{tail}"


def _missing_phase(reports: list[TestReport]) -> str | None:
    """The phase a child stopped reporting a test at: None when it reported the test to its end."""
    phases = {report.when: report for report in reports}
    if "teardown" in phases:
        return None
    if "setup" not in phases:
        return "setup"
    if phases["setup"].passed and "call" not in phases:  # no call follows a failed or skipped setup
        return "call"
    return "teardown"


def _text(output: bytes | str | None) -> str:
    if isinstance(output, bytes):
        return output.decode(errors="replace")
    return output or ""


def _report(config: pytest.Config, data: dict[str, Any]) -> TestReport:
    """A test report back from JSON, whose arrays were tuples."""
    for key in ("location", "longrepr"):  # a skip's longrepr is (path, line, reason)
        if isinstance(data.get(key), list):
            data[key] = tuple(data[key])
    for key in ("sections", "user_properties"):
        data[key] = [tuple(pair) for pair in data.get(key) or ()]
    return config.hook.pytest_report_from_serializable(config=config, data=data)


def _failure(item: pytest.Item, when: str, text: str) -> TestReport:
    keywords = {name: 1 for name in item.keywords}
    return TestReport(item.nodeid, item.location, keywords, "failed", text, when)
