"""The counting library (test-only): binding it, and reading what it recorded.

``build.build_counting(out_dir)`` compiles it. In a process that should run
through it, :func:`bind` binds the real oneDNN first (which loads it and its
dependencies), then rebinds the binding's function table to the counting
library, which forwards every call to that already loaded copy.
:func:`read_library` reads the counts in that process; :func:`read_report`
reads what the library wrote to its report file (violations as they happen,
the final counts from a C destructor at process exit).
"""

from __future__ import annotations

import ctypes
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from .build import KINDS, build_counting

__all__ = ["KINDS", "REPORT_ENV", "TARGET_ENV", "Counts", "bind", "build_counting", "read_library", "read_report"]

TARGET_ENV = "DNNL_INTEROP_COUNTING_TARGET"  # the real libdnnl the library forwards to
REPORT_ENV = "DNNL_INTEROP_COUNTING_REPORT"  # where it writes violations and final counts
REAL_LIBRARY = Path(sys.prefix) / "lib" / "libdnnl.so.3"


@dataclass
class Counts:
    """Per kind: handles created, destroyed and still live; the violations."""

    created: dict[str, int] = field(default_factory=dict)
    destroyed: dict[str, int] = field(default_factory=dict)
    live: dict[str, int] = field(default_factory=dict)
    violations: list[str] = field(default_factory=list)
    in_flight: int = 0
    complete: bool = True  # False: the report has no final counts (the process died)

    def unbalanced(self) -> dict[str, tuple[int, int]]:
        """Kinds whose created and destroyed counts differ: {kind: (created, destroyed)}."""
        return {
            kind: (self.created.get(kind, 0), self.destroyed.get(kind, 0))
            for kind in KINDS
            if self.created.get(kind, 0) != self.destroyed.get(kind, 0)
        }

    def as_dict(self) -> dict:
        return {
            "created": self.created,
            "destroyed": self.destroyed,
            "live": self.live,
            "violations": self.violations,
            "in_flight": self.in_flight,
            "complete": self.complete,
        }

    @classmethod
    def from_dict(cls, data: dict) -> Counts:
        return cls(**data)


def bind(counting: Path, real: Path = REAL_LIBRARY):
    """Bind ``real`` first, then run the binding through ``counting`` (which forwards to it)."""
    os.environ[TARGET_ENV] = str(real)
    from dnnl_interop import _library

    _library.load_library(str(real))
    return _library._rebind(str(counting))


def read_library(path: Path) -> Counts:
    """The counts of the counting library loaded in this process (the same copy)."""
    lib = ctypes.CDLL(str(path))
    lib.counting_created.restype = lib.counting_destroyed.restype = ctypes.c_longlong
    lib.counting_live.restype = lib.counting_in_flight.restype = ctypes.c_longlong
    lib.counting_violation_count.restype = ctypes.c_longlong
    lib.counting_kind_name.restype = ctypes.c_char_p
    names = [lib.counting_kind_name(i).decode() for i in range(lib.counting_kind_count())]
    if tuple(names) != KINDS:
        raise RuntimeError(f"the library counts {names}, this module expects {KINDS}")
    counts = Counts(in_flight=lib.counting_in_flight())
    for i, kind in enumerate(names):
        counts.created[kind] = lib.counting_created(i)
        counts.destroyed[kind] = lib.counting_destroyed(i)
        counts.live[kind] = lib.counting_live(i)
    buffer = ctypes.create_string_buffer(512)
    for i in range(lib.counting_violation_count()):
        if lib.counting_violation(ctypes.c_longlong(i), buffer, ctypes.c_size_t(len(buffer))):
            counts.violations.append(buffer.value.decode())
        else:
            counts.violations.append("(text not kept)")
    return counts


def read_report(path: Path) -> Counts:
    """What the library wrote to ``path``: violations, then final counts at exit.

    A report without its final ``end`` line (the process died before the
    library's destructor ran) is marked incomplete; its violations still count.
    """
    counts = Counts(complete=False)
    text = Path(path).read_text() if Path(path).exists() else ""
    for line in text.splitlines():
        word, _, rest = line.partition(" ")
        if word == "violation":
            counts.violations.append(rest)
        elif word == "counts":
            kind, created, destroyed, live = rest.split()
            counts.created[kind] = int(created)
            counts.destroyed[kind] = int(destroyed)
            counts.live[kind] = int(live)
        elif word == "in_flight":
            counts.in_flight = int(rest)
        elif word == "end":
            counts.complete = True
    return counts
