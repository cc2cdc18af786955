"""``python -m crash_matrix`` (with ``tests/`` on ``sys.path``): run, list or show cases.

    python -m crash_matrix run [-k TEXT] [-j JOBS] [--json FILE]
    python -m crash_matrix list [-k TEXT]
    python -m crash_matrix show NAME        # the case's whole program (its repro)
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import tempfile
import time
from pathlib import Path

from . import all_cases, fixtures, report
from .runner import default_jobs, run_cases


def _select(pattern: str | None):
    cases = all_cases()
    if pattern:
        cases = [case for case in cases if pattern in case.name or pattern in case.section]
    return cases


def _standin() -> str:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from standin.build import build_standin

    return str(build_standin(Path(tempfile.gettempdir()) / "dnnl-interop-standin"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m crash_matrix")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run")
    run.add_argument("-k", dest="pattern")
    run.add_argument("-j", dest="jobs", type=int, default=default_jobs())
    run.add_argument("--json", dest="json_path")
    listing = sub.add_parser("list")
    listing.add_argument("-k", dest="pattern")
    show = sub.add_parser("show")
    show.add_argument("name")
    args = parser.parse_args(argv)

    if args.command == "list":
        for case in _select(args.pattern):
            print(f"{case.section:45} {case.name}")
        return 0
    if args.command == "show":
        case = next((c for c in all_cases() if c.name == args.name), None)
        if case is None:
            print(f"no case named {args.name!r}", file=sys.stderr)
            return 2
        print(f"# {case.name} [{case.section}] library={case.library} fresh={case.fresh}")
        print(f"# expected: {case.expect.describe()}")
        print(fixtures.script(case.code, case.library))
        return 0

    cases = _select(args.pattern)
    started = time.monotonic()
    counts: collections.Counter = collections.Counter()

    def progress(verdict):
        counts[verdict.verdict] += 1
        done = sum(counts.values())
        if done % 50 == 0 or done == len(cases):
            print(f"  {done}/{len(cases)} {dict(counts)} {time.monotonic() - started:.0f} s", file=sys.stderr)

    verdicts = run_cases(cases, jobs=args.jobs, standin=_standin(), progress=progress)
    elapsed = time.monotonic() - started
    print(report.summary(verdicts, elapsed))
    print(report.failures(verdicts))
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(report.as_json(verdicts, elapsed), indent=1))
    return 0 if all(v.passed for v in verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())
