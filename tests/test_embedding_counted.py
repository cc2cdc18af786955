"""What another cffi module hands over is destroyed exactly once: by us if owned, by them if borrowed.

Counted in C: the module of tests/embedder.py is linked against the counting
library (tests/counting) instead of oneDNN, and a child process binds the
binding to the same copy, so every create and destroy of both sides is
recorded there, double destroys included (refused, not forwarded, so a
mistake shows as a violation rather than a crash).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import REAL_LIBRARY
from embedder import build

TESTS = Path(__file__).resolve().parent
sys.path.insert(0, str(TESTS))

from counting import REPORT_ENV, Counts, build_counting, read_report  # noqa: E402

NAME = "counted_embedder_under_test"
KINDS_THEY_MAKE = {"engine": 1, "stream": 1, "memory": 2, "primitive_desc": 1, "primitive": 1}

CHILD = """
import faulthandler, gc, json, sys
faulthandler.dump_traceback_later(100, exit=True)
sys.path.insert(0, {tests!r})
from counting import bind, read_library
bind({library!r})
import dnnl_interop as dnnl
from embedder import ROWS, COLS, Theirs, load

lib = load({directory!r}, {name!r}).lib


def checkpoint(label):
    gc.collect()
    print("CHECKPOINT " + json.dumps([label, read_library({library!r}).as_dict()]), flush=True)


def adopt_all(theirs, owned):
    engine = dnnl.Engine.from_handle(theirs.engine, owned=owned)
    stream = dnnl.Stream.from_handle(theirs.stream, owned=owned)
    src = dnnl.Memory.from_handle(theirs.src, owned=owned, desc=dnnl.MemoryDesc((ROWS, COLS), "f32", "ab"))
    dst = dnnl.Memory.from_handle(theirs.dst, owned=owned, desc=dnnl.MemoryDesc((ROWS, COLS), "f32", "ba"))
    desc = dnnl.PrimitiveDesc.from_handle(theirs.desc, owned=owned, engine=engine)
    primitive = dnnl.Primitive.from_handle(theirs.primitive, owned=owned, desc=desc)
    primitive.execute(stream, {{dnnl.ARG_FROM: src, dnnl.ARG_TO: dst}})
    return engine, stream, src, dst, desc, primitive
"""

SCENARIO = """
# Owned: we take everything over; closing twice, and the garbage collector, destroy nothing twice.
adopted = adopt_all(Theirs(lib, lib.make_cpu_engine()), owned=True)
checkpoint("owned, in use")
for obj in adopted[::2]:
    obj.close()
    obj.close()
del adopted  # the rest goes with the garbage collector
checkpoint("owned, let go")

# Borrowed: we never destroy theirs (the descriptor is cloned: the clone is ours).
theirs = Theirs(lib, lib.make_cpu_engine())
adopted = adopt_all(theirs, owned=False)
adopted[1].wait()
del adopted
checkpoint("borrowed, let go")
assert theirs.run() == 0
assert theirs.destroy() == 0
checkpoint("borrowed, destroyed by them")

# Ours, handed back: never taken over twice; a borrower keeps the owner's handle alive.
engine = dnnl.Engine.cpu()
try:
    twice = dnnl.Engine.from_handle(engine.handle, owned=True)
except ValueError:
    twice = None
borrowed = dnnl.Engine.from_handle(engine.int_ptr, owned=False)
engine.close()
checkpoint("ours, owner closed, borrower alive")
borrowed.close()
del twice
checkpoint("ours, both let go")
"""


@pytest.fixture(scope="module")
def outcome(tmp_path_factory) -> tuple[dict[str, Counts], Counts, subprocess.CompletedProcess]:
    if not REAL_LIBRARY.exists():
        pytest.fail(f"real oneDNN missing at {REAL_LIBRARY}: run scripts/setup-env.sh")
    library = build_counting(tmp_path_factory.mktemp("counting"))
    directory = build(tmp_path_factory.mktemp("counted_embedder"), NAME, [str(library)])
    report = tmp_path_factory.mktemp("report") / "counts.report"
    script = CHILD.format(tests=str(TESTS), library=str(library), directory=str(directory), name=NAME)
    done = subprocess.run(
        [sys.executable, "-c", script + textwrap.dedent(SCENARIO)],
        env=dict(os.environ, **{REPORT_ENV: str(report)}),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    checkpoints = {}
    for line in done.stdout.splitlines():
        if line.startswith("CHECKPOINT "):
            label, data = json.loads(line[len("CHECKPOINT ") :])
            checkpoints[label] = Counts.from_dict(data)
    return checkpoints, read_report(report), done


def test_the_child_ran_to_the_end_without_a_violation(outcome):
    _, final, done = outcome
    assert done.returncode == 0, done.stderr[-4000:]
    assert final.complete and final.violations == [], final
    assert final.unbalanced() == {}, final


def test_owned_handles_are_destroyed_by_us_exactly_once(outcome):
    checkpoints, _, _ = outcome
    in_use, let_go = checkpoints["owned, in use"], checkpoints["owned, let go"]
    for kind, count in KINDS_THEY_MAKE.items():
        assert in_use.live[kind] >= count, (kind, in_use)
    assert let_go.violations == []
    assert all(live == 0 for live in let_go.live.values()), let_go  # theirs and our descriptors, all gone


def test_borrowed_handles_are_never_destroyed_by_us(outcome):
    checkpoints, _, _ = outcome
    let_go, destroyed = checkpoints["borrowed, let go"], checkpoints["borrowed, destroyed by them"]
    # Only what they made is alive: our memory descriptors and the descriptor's clone are gone.
    assert {kind: live for kind, live in let_go.live.items() if live} == KINDS_THEY_MAKE, let_go
    assert destroyed.violations == []
    assert all(live == 0 for live in destroyed.live.values()), destroyed


def test_a_handle_of_ours_is_destroyed_once_after_its_owner_and_its_borrower_let_go(outcome):
    checkpoints, _, _ = outcome
    borrower_alive, both_gone = checkpoints["ours, owner closed, borrower alive"], checkpoints["ours, both let go"]
    assert borrower_alive.live["engine"] == 1 and borrower_alive.violations == [], borrower_alive
    assert both_gone.live["engine"] == 0 and both_gone.violations == [], both_gone
