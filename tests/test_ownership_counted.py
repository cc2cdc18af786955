"""Every oneDNN handle is destroyed exactly once, and never while something uses it.

Measured in C, not by a Python counter: each scenario runs in a child
process whose binding is bound to the counting library (tests/counting),
which forwards every call to the real oneDNN 3.13 (CPU engine) and records
each handle's creation and destruction, every use of a handle that is not
live, and the destroys that break a rule (see tests/counting/README.md).

A child prints checkpoints (the library's counts, read through ctypes) at
chosen moments. The final word is the library's own report, written by a C
destructor at process exit: it runs after the interpreter has finalized
everything it finalizes, which an ``atexit`` hook does not see (atexit hooks
run before module globals are cleared, so objects a script still holds are
destroyed after every hook). Violations are appended to the report the
moment they happen, so a crash that follows one still shows it.

Children run concurrently (a few at a time) so the file stays within its
time budget; under pytest-xdist each test runs its own child.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
sys.path.insert(0, str(TESTS))

from counting import (  # noqa: E402 - needs the sys.path entry above
    KINDS,
    REAL_LIBRARY,
    REPORT_ENV,
    Counts,
    build_counting,
    read_report,
)

TIMEOUT = 120  # seconds a child may take before it counts as hung
ROUNDS = 200  # repetitions of each race

# --- the child processes -------------------------------------------------------

PRELUDE = """
import faulthandler
faulthandler.dump_traceback_later({hang}, exit=True)  # a hang ends with every thread's stack
import gc, json, os, random, sys, threading, time
sys.path.insert(0, {tests!r})
from counting import bind, read_library

LIBRARY = {library!r}
bind(LIBRARY)
import numpy
import dnnl_interop as dnnl
ROUNDS = {rounds}


def checkpoint(label):
    print("CHECKPOINT " + json.dumps([label, read_library(LIBRARY).as_dict()]), flush=True)


def in_threads(*targets, timeout=60):
    \"\"\"Run each callable in its own thread; re-raise the first error; refuse a hang.\"\"\"
    errors = []

    def guarded(target):
        def run():
            try:
                target()
            except BaseException as exc:
                errors.append(repr(exc))
        return run

    threads = [threading.Thread(target=guarded(target)) for target in targets]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
    assert not any(thread.is_alive() for thread in threads), "a thread hung"
    assert not errors, errors


def reorder_setup(engine, n, tag_in="ab", tag_out="ba"):
    \"\"\"A transposing reorder of an n x n f32 array: (primitive, args, source array, output array).\"\"\"
    a = numpy.arange(n * n, dtype=numpy.float32).reshape(n, n)
    out = numpy.zeros_like(a)
    src = dnnl.Memory(dnnl.MemoryDesc(a.shape, a.dtype, tag_in), engine, a)
    dst = dnnl.Memory(dnnl.MemoryDesc(a.shape, a.dtype, tag_out), engine, out.T if tag_out == "ba" else out)
    primitive = dnnl.reorder(src.desc, dst.desc, engine)
    return primitive, {{dnnl.ARG_FROM: src, dnnl.ARG_TO: dst}}, a, out
"""


@dataclass
class Outcome:
    """What a child did: exit status, output, checkpoints and the library's report."""

    returncode: int | None
    stdout: str
    stderr: str
    report: Counts
    checkpoints: dict[str, Counts] = field(default_factory=dict)

    def describe(self) -> str:
        return (
            f"exit status {self.returncode}\n--- stderr ---\n{self.stderr[-4000:]}\n"
            f"--- report ---\n{self.report}"
        )


def _run_child(library: Path, workdir: Path, name: str, body: str) -> Outcome:
    report = workdir / f"{name}.report"
    report.unlink(missing_ok=True)
    script = PRELUDE.format(tests=str(TESTS), library=str(library), rounds=ROUNDS, hang=TIMEOUT - 10)
    script += "\n" + textwrap.dedent(body)
    env = dict(os.environ, **{REPORT_ENV: str(report)})
    try:
        done = subprocess.run(
            [sys.executable, "-c", script],
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )
        returncode, stdout, stderr = done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired as exc:
        returncode = None
        stdout = exc.stdout.decode() if isinstance(exc.stdout, bytes) else exc.stdout or ""
        stderr = f"hung: no exit after {TIMEOUT} s"
    checkpoints = {}
    for line in stdout.splitlines():
        if line.startswith("CHECKPOINT "):
            label, data = json.loads(line[len("CHECKPOINT ") :])
            checkpoints[label] = Counts.from_dict(data)
    return Outcome(returncode, stdout, stderr, read_report(report), checkpoints)


class Children:
    """Runs scenario children, several at once; each test waits for its own."""

    def __init__(self, library: Path, workdir: Path, workers: int):
        self._library = library
        self._workdir = workdir
        self._pool = ThreadPoolExecutor(max_workers=workers)
        self._futures: dict[str, Future] = {}
        self._lock = threading.Lock()

    def start(self, name: str) -> None:
        with self._lock:
            if name not in self._futures:
                self._futures[name] = self._pool.submit(
                    _run_child, self._library, self._workdir, name, SCENARIOS[name]
                )

    def outcome(self, name: str) -> Outcome:
        self.start(name)
        return self._futures[name].result()

    def shutdown(self) -> None:
        self._pool.shutdown(wait=True)


@pytest.fixture(scope="session")
def counting_library(tmp_path_factory) -> Path:
    if not REAL_LIBRARY.exists():
        pytest.fail(f"real oneDNN missing at {REAL_LIBRARY}: run scripts/setup-env.sh")
    return build_counting(tmp_path_factory.mktemp("counting"))


@pytest.fixture(scope="module")
def children(request, counting_library, tmp_path_factory):
    workers = max(2, min(4, os.cpu_count() or 2))
    runner = Children(counting_library, tmp_path_factory.mktemp("counted"), workers)
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        # Start every selected scenario now, so they overlap.
        for item in request.session.items:
            scenario = getattr(item.function, "scenario", None) if hasattr(item, "function") else None
            if item.module is request.module and scenario:
                runner.start(scenario)
    yield runner
    runner.shutdown()


def scenario(name: str):
    """Mark a test as checking the child scenario ``name``."""

    def mark(test):
        test.scenario = name
        return test

    return mark


def assert_exactly_once(outcome: Outcome, *, at: str = "end", created_at_least: dict | None = None) -> Counts:
    """The child succeeded, and in C: no violation, and created == destroyed for
    every kind both at checkpoint ``at`` and at process exit."""
    assert outcome.returncode == 0, outcome.describe()
    report = outcome.report
    assert report.violations == [], outcome.describe()
    assert report.complete, "the library wrote no final counts (the child died?)\n" + outcome.describe()
    assert report.unbalanced() == {}, f"created != destroyed at exit: {report.unbalanced()}"
    assert sum(report.live.values()) == 0, report.live
    assert report.in_flight == 0
    counts = outcome.checkpoints.get(at)
    assert counts is not None, f"no checkpoint {at!r}\n" + outcome.describe()
    assert counts.violations == []
    assert counts.unbalanced() == {}, f"created != destroyed at {at!r}: {counts.unbalanced()}"
    for kind, minimum in (created_at_least or {}).items():
        assert counts.created[kind] >= minimum, f"only {counts.created[kind]} {kind} handles were made"
    return counts


EVERY_KIND = {kind: 1 for kind in KINDS}

# --- scenarios -------------------------------------------------------------------

SCENARIOS: dict[str, str] = {}

SCENARIOS["ordinary"] = """
engine = dnnl.Engine()
stream = dnnl.Stream(engine)
primitive, args, a, out = reorder_setup(engine, 8)
primitive.execute(stream, args)
stream.wait()
assert (out == a.T).all()
objects = [primitive, args[dnnl.ARG_FROM], args[dnnl.ARG_TO]]
objects += [args[dnnl.ARG_FROM].desc, args[dnnl.ARG_TO].desc, stream, engine]
for obj in objects:  # children first, then the stream, then the engine; twice each
    obj.close()
    obj.close()
del primitive, args, objects

with dnnl.Engine() as engine, dnnl.Stream(engine) as stream:
    with dnnl.MemoryDesc((4, 4), "f32", "ab") as md, dnnl.Memory(md, engine) as src:
        with dnnl.Memory(md, engine) as dst, dnnl.reorder(md, md, engine) as primitive:
            primitive.execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
            stream.wait()

def dropped_without_close():
    engine = dnnl.Engine()
    stream = dnnl.Stream(engine)
    primitive, args, a, out = reorder_setup(engine, 8)
    primitive.execute(stream, args)
    stream.wait()

dropped_without_close()
gc.collect()
checkpoint("end")
"""

SCENARIOS["execute_in_function_wait_outside"] = """
engine = dnnl.Engine()
stream = dnnl.Stream(engine)

def step(engine, stream):
    # The issue's example: everything but the output is dropped on return.
    a = numpy.arange(4096 * 4096, dtype=numpy.float32).reshape(4096, 4096)
    out = numpy.zeros_like(a)
    src = dnnl.Memory(dnnl.MemoryDesc(a.shape, a.dtype, "ab"), engine, a)
    dst = dnnl.Memory(dnnl.MemoryDesc(a.shape, a.dtype, "ba"), engine, out.T)
    dnnl.reorder(src.desc, dst.desc, engine).execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
    return out

out = step(engine, stream)
checkpoint("before wait")
stream.wait()
expected = numpy.arange(4096 * 4096, dtype=numpy.float32).reshape(4096, 4096).T
assert (out == expected).all(), "the reorder's output is wrong"
checkpoint("after wait")
stream.close()
engine.close()
checkpoint("end")
"""

SCENARIOS["close_right_after_execute"] = """
for first in ("children", "stream"):
    engine = dnnl.Engine()
    stream = dnnl.Stream(engine)
    primitive, args, a, out = reorder_setup(engine, 2048)
    primitive.execute(stream, args)
    children = [primitive, args[dnnl.ARG_FROM], args[dnnl.ARG_TO]]
    children += [args[dnnl.ARG_FROM].desc, args[dnnl.ARG_TO].desc]
    if first == "stream":
        stream.close()
    for obj in children:  # no wait
        obj.close()
    stream.close()
    assert (out == a.T).all(), f"wrong output when the {first} closed first"
    engine.close()
    del primitive, args, children
checkpoint("end")
"""

SCENARIOS["drop_everything_without_wait"] = """
def submit_and_drop():
    engine = dnnl.Engine()
    stream = dnnl.Stream(engine)
    primitive, args, a, out = reorder_setup(engine, 2048)
    primitive.execute(stream, args)
    return a, out  # the engine, stream, primitive and memories are dropped unwaited

results = [submit_and_drop() for _ in range(3)]
gc.collect()
checkpoint("end")
for a, out in results:
    assert (out == a.T).all()
"""

SCENARIOS["engine_and_stream_in_reference_cycle"] = """
class Held(numpy.ndarray):
    pass  # a subclass instance has a __dict__, so a cycle can pass through it

class CyclicEngine(dnnl.Engine):
    pass

class CyclicStream(dnnl.Stream):
    pass

def cycle_through_memory():
    # memory -> its _keep -> array -> list -> memory, stream, engine, primitive
    engine = dnnl.Engine()
    stream = dnnl.Stream(engine)
    a = numpy.arange(512 * 512, dtype=numpy.float32).reshape(512, 512).view(Held)
    out = numpy.zeros((512, 512), numpy.float32)
    src = dnnl.Memory(dnnl.MemoryDesc(a.shape, "f32", "ab"), engine, a)
    dst = dnnl.Memory(dnnl.MemoryDesc(a.shape, "f32", "ba"), engine, out.T)
    primitive = dnnl.reorder(src.desc, dst.desc, engine)
    primitive.execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})  # not waited
    a.cycle = [engine, stream, src, dst, primitive]

def engine_and_stream_refer_to_each_other():
    engine = CyclicEngine()
    stream = CyclicStream(engine)
    engine.partner = stream
    stream.partner = engine

gc.collect()
gc.disable()  # only the explicit collection below may collect the cycles
for _ in range(10):
    cycle_through_memory()
    engine_and_stream_refer_to_each_other()
checkpoint("before collect")
gc.collect()
gc.enable()
checkpoint("end")
"""

SCENARIOS["interpreter_exit_with_work_in_flight"] = """
class Held(numpy.ndarray):
    pass

engine = dnnl.Engine()
stream = dnnl.Stream(engine)
primitive, args, a, out = reorder_setup(engine, 4096)
primitive.execute(stream, args)

def step(engine, stream):
    a = numpy.ones((2048, 2048), numpy.float32)
    out = numpy.empty_like(a)
    src = dnnl.Memory(dnnl.MemoryDesc(a.shape, a.dtype, "ab"), engine, a)
    dst = dnnl.Memory(dnnl.MemoryDesc(a.shape, a.dtype, "ba"), engine, out.T)
    dnnl.reorder(src.desc, dst.desc, engine).execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})

step(engine, stream)
# and a cycle left for the interpreter to collect at exit (no collection
# before then: when one runs depends on how much the script allocated)
gc.disable()
cycle_engine = dnnl.Engine()
cycle_stream = dnnl.Stream(cycle_engine)
held = numpy.zeros((256, 256), numpy.float32).view(Held)
memory = dnnl.Memory(dnnl.MemoryDesc(held.shape, "f32", "ab"), cycle_engine, held)
copy = dnnl.reorder(memory.desc, memory.desc, cycle_engine)
copy.execute(cycle_stream, {dnnl.ARG_FROM: memory, dnnl.ARG_TO: memory})
held.cycle = [cycle_engine, cycle_stream, memory, copy]
del held, memory, copy, cycle_stream, cycle_engine
checkpoint("before exit")
# the script ends: no wait, no close
"""

SCENARIOS["eight_threads_close_one_object"] = """
workers = 8
start, finish = threading.Barrier(workers + 1), threading.Barrier(workers + 1)
target = [None]
errors = []

def closer():
    while True:
        start.wait()
        obj = target[0]
        if obj is None:
            return
        try:
            obj.close()
        except BaseException as exc:
            errors.append(repr(exc))
        finish.wait()

threads = [threading.Thread(target=closer, daemon=True) for _ in range(workers)]
for thread in threads:
    thread.start()
for kind in ("Primitive", "Stream", "MemoryDesc", "Memory", "Engine"):
    for _ in range(ROUNDS):
        engine = dnnl.Engine()
        stream = dnnl.Stream(engine)
        primitive, args, a, out = reorder_setup(engine, 64)
        primitive.execute(stream, args)  # in flight while they close
        src, dst = args[dnnl.ARG_FROM], args[dnnl.ARG_TO]
        descs = [src.desc, dst.desc]
        target[0] = {"Primitive": primitive, "Stream": stream, "MemoryDesc": descs[0],
                     "Memory": src, "Engine": engine}[kind]
        start.wait()
        finish.wait()
        assert target[0].closed
        for obj in (primitive, src, dst, *descs, stream, engine):
            obj.close()
        del primitive, args, src, dst, descs, stream, engine
target[0] = None
start.wait()
for thread in threads:
    thread.join(60)
assert not errors, errors
gc.collect()
checkpoint("end")
"""

SCENARIOS["close_while_other_threads_execute"] = """
closed_errors = (dnnl.ClosedObjectError,)
for kind in ("Memory", "Stream", "Engine", "Primitive"):
    for _ in range(max(5, ROUNDS // 10)):
        engine = dnnl.Engine()
        stream = dnnl.Stream(engine)
        primitive, args, a, out = reorder_setup(engine, 128)
        submitted = [0]

        def execute():
            while True:
                try:
                    primitive.execute(stream, args)
                    submitted[0] += 1
                    if submitted[0] % 8 == 0:
                        stream.wait()
                except closed_errors:
                    return

        def close():
            deadline = time.monotonic() + 10
            while submitted[0] < 20 and time.monotonic() < deadline:
                time.sleep(0.0002)
            {"Memory": args[dnnl.ARG_TO], "Stream": stream, "Engine": engine,
             "Primitive": primitive}[kind].close()

        in_threads(execute, execute, execute, execute, close)
        for obj in (primitive, *args.values(), stream, engine):
            obj.close()
        del primitive, args, stream, engine
gc.collect()
checkpoint("end")
"""

SCENARIOS["stream_created_while_engine_closes"] = """
made = []
for _ in range(ROUNDS):
    engine = dnnl.Engine()
    both = threading.Barrier(2)

    def create():
        both.wait()
        try:
            made.append(dnnl.Stream(engine))
        except dnnl.ClosedObjectError:
            pass

    def close():
        both.wait()
        engine.close()

    in_threads(create, close)
    del engine
    if made:
        made.pop().close()
gc.collect()
checkpoint("end")
"""

SCENARIOS["close_during_wait"] = """
for kind in ("Stream", "Primitive", "Memory", "Engine"):
    for _ in range(max(5, ROUNDS // 10)):
        engine = dnnl.Engine()
        stream = dnnl.Stream(engine)
        primitive, args, a, out = reorder_setup(engine, 1024)
        primitive.execute(stream, args)
        both = threading.Barrier(2)

        def wait():
            both.wait()
            try:
                stream.wait()
            except dnnl.ClosedObjectError:
                pass  # the close came first

        def close():
            both.wait()
            time.sleep(random.random() * 0.002)
            {"Stream": stream, "Primitive": primitive, "Memory": args[dnnl.ARG_TO],
             "Engine": engine}[kind].close()

        in_threads(wait, close)
        for obj in (primitive, *args.values(), stream, engine):
            obj.close()
        assert (out == a.T).all()
        del primitive, args, stream, engine
gc.collect()
checkpoint("end")
"""

SCENARIOS["garbage_collection_during_execute"] = """
class Held(numpy.ndarray):
    pass

engine = dnnl.Engine()
stream = dnnl.Stream(engine)
done = threading.Event()

def execute():
    try:
        for i in range(ROUNDS * 2):
            a = numpy.ones((256, 256), numpy.float32).view(Held)
            out = numpy.zeros((256, 256), numpy.float32)
            src = dnnl.Memory(dnnl.MemoryDesc(a.shape, "f32", "ab"), engine, a)
            dst = dnnl.Memory(dnnl.MemoryDesc(a.shape, "f32", "ba"), engine, out.T)
            primitive = dnnl.reorder(src.desc, dst.desc, engine)
            primitive.execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
            a.cycle = [src, dst, primitive]  # garbage only the collector frees
            if i % 16 == 0:
                stream.wait()
    finally:
        done.set()

def collect():
    while not done.is_set():
        gc.collect()

in_threads(execute, collect)
stream.wait()
gc.collect()
stream.close()
engine.close()
checkpoint("end")
"""

SCENARIOS["interpreter_exit_while_a_daemon_thread_executes"] = """
engine = dnnl.Engine()
stream = dnnl.Stream(engine)
primitive, args, a, out = reorder_setup(engine, 1024)
started = threading.Event()

def execute_forever():
    while True:
        primitive.execute(stream, args)
        started.set()
        stream.wait()

threading.Thread(target=execute_forever, daemon=True).start()
started.wait()
checkpoint("before exit")
"""

# The interleaving the two races above hit by chance, pinned: a user's
# Stream.wait() is inside C (registered exactly as wait() registers itself)
# when another thread closes the stream; then that wait returns first.
SCENARIOS["close_while_a_wait_is_in_c"] = """
engine = dnnl.Engine()
stream = dnnl.Stream(engine)
primitive, args, a, out = reorder_setup(engine, 4096)
primitive.execute(stream, args)
key = -next(stream._shared.call_keys)
stream._use(key)  # thread A's wait(), now blocked in dnnl_stream_wait
closer = threading.Thread(target=stream.close)
closer.start()  # close() blocks in its own dnnl_stream_wait (the reorder takes far longer)
time.sleep(0.005)
stream._release(key)  # thread A's dnnl_stream_wait returns
closer.join()
assert (out == a.T).all()
for obj in (primitive, *args.values(), engine):
    obj.close()
gc.collect()
checkpoint("end")
"""

# Misuse of the raw C API through the counting library: proof that the
# library, and so every test above, can fail.
SCENARIOS["raw_c_api_misuse"] = """
from dnnl_interop._ffi import ffi, lib

def new(kind):
    return ffi.new(kind + " *")

engine = new("dnnl_engine_t")
assert lib.dnnl_engine_create(engine, lib.dnnl_cpu, 0) == 0
assert lib.dnnl_engine_destroy(engine[0]) == 0
assert lib.dnnl_engine_destroy(engine[0]) == lib.dnnl_invalid_arguments  # refused, not forwarded
kind = new("dnnl_engine_kind_t")
assert lib.dnnl_engine_get_kind(engine[0], kind) == lib.dnnl_invalid_arguments
checkpoint("double destroy")

engine, stream = new("dnnl_engine_t"), new("dnnl_stream_t")
assert lib.dnnl_engine_create(engine, lib.dnnl_cpu, 0) == 0
assert lib.dnnl_stream_create(stream, engine[0], lib.dnnl_stream_in_order) == 0
md = new("dnnl_memory_desc_t")
dims = ffi.new("dnnl_dims_t", [2, 2])
assert lib.dnnl_memory_desc_create_with_tag(md, 2, dims, lib.dnnl_f32, lib.dnnl_ab) == 0
src, dst = new("dnnl_memory_t"), new("dnnl_memory_t")
assert lib.dnnl_memory_create(src, md[0], engine[0], lib.DNNL_MEMORY_ALLOCATE) == 0
assert lib.dnnl_memory_create(dst, md[0], engine[0], lib.DNNL_MEMORY_ALLOCATE) == 0
pd, primitive = new("dnnl_primitive_desc_t"), new("dnnl_primitive_t")
assert lib.dnnl_reorder_primitive_desc_create(pd, md[0], engine[0], md[0], engine[0], ffi.NULL) == 0
assert lib.dnnl_primitive_create(primitive, pd[0]) == 0
borrowed = new("const_dnnl_memory_desc_t")  # owned by the primitive descriptor
assert lib.dnnl_primitive_desc_query(pd[0], lib.dnnl_query_src_md, 0, borrowed) == 0
assert lib.dnnl_memory_desc_get_size(borrowed[0]) == 16  # usable while its owner lives
assert lib.dnnl_memory_desc_destroy(borrowed[0]) == lib.dnnl_invalid_arguments  # refused
assert lib.dnnl_primitive_desc_destroy(pd[0]) == 0
assert lib.dnnl_memory_desc_get_size(borrowed[0]) == 0  # its owner is gone: refused
args = ffi.new("dnnl_exec_arg_t[]", [(lib.DNNL_ARG_FROM, src[0]), (lib.DNNL_ARG_TO, dst[0])])
assert lib.dnnl_primitive_execute(primitive[0], stream[0], 2, args) == 0
assert lib.dnnl_primitive_destroy(primitive[0]) == 0  # in flight: not waited
assert lib.dnnl_memory_destroy(src[0]) == 0
assert lib.dnnl_stream_destroy(stream[0]) == 0  # its work never waited
assert lib.dnnl_memory_destroy(dst[0]) == 0
assert lib.dnnl_memory_desc_destroy(md[0]) == 0
assert lib.dnnl_engine_destroy(engine[0]) == 0
checkpoint("in flight")

engine, stream = new("dnnl_engine_t"), new("dnnl_stream_t")
assert lib.dnnl_engine_create(engine, lib.dnnl_cpu, 0) == 0
assert lib.dnnl_stream_create(stream, engine[0], lib.dnnl_stream_in_order) == 0
assert lib.dnnl_engine_destroy(engine[0]) == 0  # before its stream
assert lib.dnnl_stream_destroy(stream[0]) == 0
checkpoint("end")
"""


# --- tests -------------------------------------------------------------------------


@scenario("ordinary")
def test_close_with_and_gc_destroy_every_handle_once(children):
    assert_exactly_once(children.outcome("ordinary"), created_at_least=EVERY_KIND)


@scenario("execute_in_function_wait_outside")
def test_work_submitted_in_a_function_keeps_its_objects_until_wait(children):
    outcome = children.outcome("execute_in_function_wait_outside")
    before = outcome.checkpoints["before wait"]
    assert before.live["memory"] == 2 and before.live["primitive"] == 1, before
    assert before.in_flight == 3, before  # the primitive and both memories
    after = outcome.checkpoints["after wait"]
    assert after.live["memory"] == 0 and after.live["primitive"] == 0 and after.live["memory_desc"] == 0
    assert_exactly_once(outcome, created_at_least={"memory": 2, "primitive": 1})


@scenario("close_right_after_execute")
def test_closing_everything_right_after_execute_destroys_after_the_work(children):
    assert_exactly_once(children.outcome("close_right_after_execute"), created_at_least={"primitive": 2})


@scenario("drop_everything_without_wait")
def test_dropping_everything_unwaited_destroys_each_handle_once(children):
    assert_exactly_once(
        children.outcome("drop_everything_without_wait"), created_at_least={"engine": 3, "stream": 3}
    )


@scenario("engine_and_stream_in_reference_cycle")
def test_engine_and_stream_in_a_reference_cycle_are_destroyed_stream_first(children):
    outcome = children.outcome("engine_and_stream_in_reference_cycle")
    before = outcome.checkpoints["before collect"]
    assert before.live["engine"] == 20 and before.live["stream"] == 20, "the cycles were collected early"
    assert_exactly_once(outcome, created_at_least={"engine": 20, "stream": 20, "primitive": 10})


@scenario("interpreter_exit_with_work_in_flight")
def test_interpreter_exit_with_work_in_flight_destroys_each_handle_once(children):
    outcome = children.outcome("interpreter_exit_with_work_in_flight")
    assert outcome.returncode == 0, outcome.describe()
    before = outcome.checkpoints["before exit"]
    assert before.in_flight > 0 and before.live["engine"] == 2, before
    report = outcome.report
    assert report.violations == [], outcome.describe()
    assert report.complete, outcome.describe()
    assert report.unbalanced() == {}, f"created != destroyed at exit: {report.unbalanced()}"
    assert report.created["primitive"] == 3 and report.created["stream"] == 2


@scenario("interpreter_exit_while_a_daemon_thread_executes")
def test_interpreter_exit_while_a_daemon_thread_executes_neither_hangs_nor_destroys_in_use(children):
    # The frozen daemon thread still holds its objects, so Python never
    # finalizes them: they are left to the process's end, never destroyed
    # under the thread. Only "nothing destroyed in use, no hang" is the rule.
    outcome = children.outcome("interpreter_exit_while_a_daemon_thread_executes")
    assert outcome.returncode == 0, outcome.describe()
    assert outcome.report.complete, outcome.describe()
    assert outcome.report.violations == [], outcome.describe()
    assert outcome.checkpoints["before exit"].created["primitive"] == 1


@scenario("eight_threads_close_one_object")
def test_eight_threads_closing_one_object_destroy_it_once(children):
    assert_exactly_once(
        children.outcome("eight_threads_close_one_object"),
        created_at_least={"engine": 5 * ROUNDS, "primitive": 5 * ROUNDS},
    )


@scenario("close_while_other_threads_execute")
def test_closing_an_object_other_threads_execute_with_never_destroys_it_in_use(children):
    assert_exactly_once(children.outcome("close_while_other_threads_execute"), created_at_least={"engine": 20})


@scenario("stream_created_while_engine_closes")
def test_a_stream_created_while_its_engine_closes_is_destroyed_before_the_engine(children):
    assert_exactly_once(children.outcome("stream_created_while_engine_closes"), created_at_least={"engine": ROUNDS})


@scenario("close_during_wait")
def test_close_during_wait_in_another_thread_never_destroys_mid_call(children):
    assert_exactly_once(children.outcome("close_during_wait"), created_at_least={"engine": 20})


@scenario("close_while_a_wait_is_in_c")
def test_a_stream_is_never_destroyed_while_its_close_still_waits_in_c(children):
    assert_exactly_once(children.outcome("close_while_a_wait_is_in_c"), created_at_least={"stream": 1})


@scenario("garbage_collection_during_execute")
def test_garbage_collection_in_another_thread_during_execute(children):
    assert_exactly_once(
        children.outcome("garbage_collection_during_execute"), created_at_least={"primitive": 2 * ROUNDS}
    )


@scenario("raw_c_api_misuse")
def test_the_counting_library_records_misuse_of_the_raw_c_api(children):
    outcome = children.outcome("raw_c_api_misuse")
    assert outcome.returncode == 0, outcome.describe()
    expected = {
        "double destroy": 1,
        "use after destroy": 2,  # a destroyed engine, a descriptor whose owner is destroyed
        "destroy of a borrowed handle": 1,
        "destroyed while in flight": 2,  # the primitive, then a memory
        "stream destroyed before its work was waited": 1,
        "engine destroyed before its stream": 1,
    }
    recorded = {reason: 0 for reason in expected}
    for text in outcome.report.violations:
        reason = text.partition(":")[0]
        assert reason in recorded, f"unexpected violation {text!r}"
        recorded[reason] += 1
    assert recorded == expected, outcome.report.violations
    assert outcome.checkpoints["double destroy"].violations[0].startswith("double destroy: dnnl_engine_destroy")
    # A refused double destroy is not counted as a destroy.
    assert outcome.checkpoints["double destroy"].destroyed["engine"] == 1
    assert outcome.report.unbalanced() == {}
