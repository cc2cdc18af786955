"""Summaries of a matrix run: counts by class and verdict, and the failures."""

from __future__ import annotations

import collections

from .model import PASS, SEVERITY, Verdict


def summary(verdicts: list[Verdict], seconds: float) -> str:
    by_class: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for verdict in verdicts:
        by_class[verdict.case.crash_class][verdict.verdict] += 1
    total = collections.Counter(verdict.verdict for verdict in verdicts)
    lines = [f"crash matrix: {len(verdicts)} cases in {seconds:.0f} s: " + _counts(total)]
    for name in sorted(by_class):
        lines.append(f"  {name:14} {sum(by_class[name].values()):5}  {_counts(by_class[name])}")
    return "\n".join(lines)


def _counts(counter: collections.Counter) -> str:
    return ", ".join(f"{counter[kind]} {kind}" for kind in SEVERITY if counter[kind])


def failures(verdicts: list[Verdict], tail: int = 1200) -> str:
    """Every failed case, most severe first, with its child's output tail."""
    failed = sorted((v for v in verdicts if not v.passed), key=lambda v: SEVERITY.index(v.verdict))
    blocks = []
    if failed:
        blocks.append("(one case as a standalone program: cd tests && python -m crash_matrix show 'NAME')")
    for verdict in failed:
        case = verdict.case
        where = f"{case.section}, library {case.library}" + (", fresh interpreter" if case.fresh else "")
        block = [f"[{verdict.verdict.upper()}] {case.name}  ({where})",
                 f"    {verdict.detail}", "    code: " + case.code.strip().replace("\n", "\n          ")]
        output = verdict.observed.output.strip()
        if output and verdict.verdict != PASS:
            block.append("    output tail:\n      " + output[-tail:].replace("\n", "\n      "))
        blocks.append("\n".join(block))
    return "\n\n".join(blocks)


def as_json(verdicts: list[Verdict], seconds: float) -> dict:
    return {
        "seconds": seconds,
        "cases": [
            {
                "name": v.case.name,
                "section": v.case.section,
                "verdict": v.verdict,
                "detail": v.detail,
                "expect": v.case.expect.describe(),
                "library": v.case.library,
                "fresh": v.case.fresh,
                "code": v.case.code,
                "seconds": round(v.observed.seconds, 3),
                "output": v.observed.output[-2000:],
            }
            for v in verdicts
        ],
    }
