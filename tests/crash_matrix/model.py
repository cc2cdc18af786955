"""What a case is, what it expects, and how an observed run is judged.

A case is a name, a snippet of plain user code and the outcome it must have.
The snippet runs after the fixtures it names (see ``fixtures``) in a process
of its own; the runner reports what happened as an :class:`Observed`, and
:func:`judge` turns that into a :class:`Verdict`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# Verdicts, most severe first. Only PASS is a pass.
DIED = "died"  # killed by a signal (SIGSEGV, SIGABRT from a double free, std::terminate)
HUNG = "hung"  # still running at the timeout
EXITED = "exited"  # left without reporting (os._exit, a fatal error that exits)
WRONG = "wrong"  # an assertion of the snippet failed: a silently wrong result
ACCEPTED = "accepted"  # bad input taken without an exception
REFUSED = "refused"  # a sequence the binding must make safe raised instead
UNCLEAR = "unclear"  # raised, but not the expected class or not naming the argument
BROKEN = "broken"  # the fixtures themselves failed: the case could not run
PASS = "pass"
SEVERITY = (DIED, HUNG, EXITED, WRONG, ACCEPTED, REFUSED, UNCLEAR, BROKEN, PASS)


@dataclass(frozen=True)
class Ok:
    """The snippet must finish without an exception (its own asserts check the data)."""

    def describe(self) -> str:
        return "succeeds"


@dataclass(frozen=True)
class Raises:
    """The snippet must raise one of ``classes`` (names of exception classes,
    matched against the raised exception's MRO) with a message naming one of
    ``names`` (as a whole word: "device" is not found in "cl_device_id").
    An empty ``names`` accepts any message.
    """

    classes: tuple[str, ...]
    names: tuple[str, ...] = ()

    def __init__(self, classes, names=()):
        object.__setattr__(self, "classes", (classes,) if isinstance(classes, str) else tuple(classes))
        object.__setattr__(self, "names", (names,) if isinstance(names, str) else tuple(names))

    def describe(self) -> str:
        naming = f" naming {' or '.join(map(repr, self.names))}" if self.names else ""
        return f"raises {' or '.join(self.classes)}{naming}"


@dataclass(frozen=True)
class Either:
    """Either outcome is correct (e.g. close during execute may wait or refuse)."""

    options: tuple

    def __init__(self, *options):
        object.__setattr__(self, "options", options)

    def describe(self) -> str:
        return " or ".join(option.describe() for option in self.options)


TYPE = ("TypeError",)
VALUE = ("ValueError",)
TYPE_OR_VALUE = ("TypeError", "ValueError")
CLOSED = ("ClosedObjectError",)


@dataclass(frozen=True)
class Case:
    """One process: ``fixtures`` (by name, resolved from the snippet when
    empty) then ``code``; ``expect`` the outcome; ``library`` which oneDNN
    the process binds ("real", "standin" or "none": nothing bound first).

    ``section`` groups cases for reporting ("bad-input/ocl.make_engine",
    "lifetime/cpu", ...). ``fresh`` runs the case in a new interpreter that
    exits normally (for interpreter-exit cases); otherwise it runs in a child
    forked from the fork server, whose exit skips interpreter finalization.
    """

    name: str
    section: str
    code: str
    expect: object
    library: str = "real"
    fresh: bool = False
    timeout: float = 20.0
    note: str = ""  # why the case exists, when the name does not say it

    @property
    def crash_class(self) -> str:
        return self.section.partition("/")[0]


@dataclass
class Observed:
    """What the runner saw of one case."""

    signal: int | None = None  # the signal that killed the process
    timed_out: bool = False
    exit_code: int | None = None
    result: dict | None = None  # written by the child: outcome, exception, phase
    output: str = ""  # the child's stdout and stderr (tail)
    seconds: float = 0.0


@dataclass
class Verdict:
    case: Case
    verdict: str
    detail: str
    observed: Observed = field(repr=False, default_factory=Observed)

    @property
    def passed(self) -> bool:
        return self.verdict == PASS


def _names_word(message: str, name: str) -> bool:
    left = r"(?<![\w.])" if re.match(r"\w", name) else ""
    right = r"(?!\w)" if re.search(r"\w$", name) else ""
    return re.search(left + re.escape(name) + right, message) is not None


def _matches_raise(option: Raises, exc: dict) -> str | None:
    """None if ``exc`` satisfies ``option``, else why not."""
    if not set(option.classes) & set(exc["mro"]):
        return f"raised {exc['type']}, expected {' or '.join(option.classes)}"
    if option.names and not any(_names_word(exc["message"], name) for name in option.names):
        return f"message does not name {' or '.join(map(repr, option.names))}"
    return None


def _options(expect) -> tuple:
    return expect.options if isinstance(expect, Either) else (expect,)


def judge(case: Case, seen: Observed) -> Verdict:
    """The verdict for ``case`` given what the runner observed."""
    result = seen.result or {}

    def verdict(kind: str, detail: str) -> Verdict:
        return Verdict(case, kind, detail, seen)

    where = f" ({result.get('phase')})" if result.get("phase") else ""
    if seen.timed_out:
        return verdict(HUNG, f"no exit after {seen.seconds:.0f} s, no progress{where}")
    if seen.signal is not None:
        return verdict(DIED, f"killed by signal {seen.signal}{where}")
    if result.get("outcome") == "fixture-error":
        exc = result["exception"]
        return verdict(BROKEN, f"fixtures failed: {exc['type']}: {exc['message']}")
    if "outcome" not in result or (seen.exit_code not in (0, None) and case.fresh):
        return verdict(EXITED, f"exit code {seen.exit_code} without a result{where}")
    if result.get("phase") != "exit":
        return verdict(EXITED, f"exit code {seen.exit_code} during {result.get('phase')}")
    options = _options(case.expect)
    if result["outcome"] == "ok":
        if any(isinstance(option, Ok) for option in options):
            return verdict(PASS, "succeeded")
        return verdict(ACCEPTED, f"no exception; expected: {case.expect.describe()}")
    exc = result["exception"]
    raised = f"{exc['type']}: {exc['message']}"
    if "AssertionError" in exc["mro"] and not any(
        isinstance(option, Raises) and "AssertionError" in option.classes for option in options
    ):
        return verdict(WRONG, f"assertion failed: {exc['message'] or exc.get('where', '')}")
    raise_options = [option for option in options if isinstance(option, Raises)]
    if not raise_options:
        return verdict(REFUSED, f"{raised}; expected it to succeed")
    reasons = [_matches_raise(option, exc) for option in raise_options]
    if any(reason is None for reason in reasons):
        return verdict(PASS, raised)
    return verdict(UNCLEAR, f"{raised} ({reasons[0]})")
