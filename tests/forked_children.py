"""Forked children at each stage of a parent's life, for tests/test_fork.py.

Run as a script, in a fresh interpreter: ``python tests/forked_children.py``.
One parent goes through the stages a process goes through (oneDNN not yet
used; objects made; work run and waited for; work in flight), and at each
stage forks children that each try a few things in turn (scenarios). A
child reports what each scenario returned or raised, then ends through the
interpreter's own exit path (``sys.exit``: atexit handlers, finalizers of the
inherited objects, the C exit handlers), which must not hang either. A child
still running after CHILD_TIMEOUT seconds is killed and reported as hung
(with its scenarios). Then children made by ``multiprocessing`` (fork and
spawn). Prints one JSON object: the reports by scenario name, each with the
exit status of its child.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import sys
import threading
import time

import numpy

import dnnl_interop as dnnl

CHILD_TIMEOUT = 20.0  # seconds; a child that works takes a fraction of one
EXIT_CODE = 3  # what every forked child exits with: the status must come through

results: dict[str, dict[str, object]] = {}


def report_of(scenario) -> dict[str, object]:
    try:
        return {"returned": scenario()}
    except BaseException as error:  # what the child saw, whatever it is
        return {
            "raised": type(error).__name__,
            "message": str(error),
            "is DnnlError": isinstance(error, dnnl.DnnlError),
            "is RuntimeError": isinstance(error, RuntimeError),
        }


def in_forked_child(scenarios: dict[str, object]) -> None:
    """Fork; the child runs each of ``scenarios`` (name -> function) in turn, then exits with
    EXIT_CODE through sys.exit."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        reports = {name: report_of(scenario) for name, scenario in scenarios.items()}
        os.write(write, json.dumps(reports).encode())
        os.close(write)
        sys.exit(EXIT_CODE)
    os.close(write)
    deadline = time.monotonic() + CHILD_TIMEOUT
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            status = None
            break
        time.sleep(0.005)
    with os.fdopen(read) as pipe:
        text = pipe.read()
    reports = json.loads(text) if text else {name: {"reported": "nothing"} for name in scenarios}
    for name, report in reports.items():
        report["exit"] = "hung" if status is None else os.waitstatus_to_exitcode(status)
        results[name] = report


def reorder_objects(engine, n=2):
    a = numpy.arange(n * n, dtype=numpy.float32).reshape(n, n)
    out = numpy.zeros_like(a)
    src = dnnl.Memory(dnnl.MemoryDesc(a.shape, a.dtype, "ab"), engine, a)
    dst = dnnl.Memory(dnnl.MemoryDesc(a.shape, a.dtype, "ba"), engine, out.T)
    primitive = dnnl.reorder(src.desc, dst.desc, engine)
    return a, out, src, dst, primitive


def run_and_check(stream, a, out, src, dst, primitive) -> str:
    primitive.execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
    stream.wait()
    return "correct" if numpy.array_equal(out.T, a) else "wrong data"


def own_work() -> str:
    """Make an engine and everything else, run a reorder, wait, check the data."""
    engine = dnnl.Engine.cpu()
    stream = dnnl.Stream(engine)
    return run_and_check(stream, *reorder_objects(engine))


def own_objects() -> str:
    """Make an engine, a stream, memories and a primitive; wait on the empty stream."""
    engine = dnnl.Engine.cpu()
    stream = dnnl.Stream(engine)
    *_, dst, _primitive = reorder_objects(engine)
    stream.wait()
    mapped = dst.map_data()
    dst.unmap_data(mapped)
    return "made"


def close_everything(*objects) -> str:
    for obj in objects:
        obj.close()
    return "closed"


def multiprocessing_child(connection) -> None:
    """A multiprocessing target: runs own_work and sends its report."""
    connection.send(report_of(own_work))


def in_multiprocessing_child(name: str, method: str) -> None:
    context = multiprocessing.get_context(method)
    receive, send = context.Pipe(duplex=False)
    process = context.Process(target=multiprocessing_child, args=(send,))
    process.start()
    send.close()
    report = receive.recv() if receive.poll(CHILD_TIMEOUT) else {"reported": "nothing"}
    process.join(CHILD_TIMEOUT)
    if process.exitcode is None:
        process.kill()
        process.join()
        report["exit"] = "hung"
    else:
        report["exit"] = process.exitcode
    results[name] = report


def main() -> None:
    # oneDNN not yet used: the package imported only.
    in_forked_child({"imported only: own work": own_work})

    # Objects made, no work run.
    engine = dnnl.Engine.cpu()
    stream = dnnl.Stream(engine)
    objects = reorder_objects(engine)
    *_, src, dst, primitive = objects
    in_forked_child({
        "objects made: own work": own_work,
        "objects made: the parent's objects": lambda: run_and_check(stream, *objects),
    })

    # Work run and waited for.
    results["parent's own work"] = {"returned": run_and_check(stream, *objects)}
    args = {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst}
    bound = primitive.bind(stream, args)
    stream.wait()  # a binding registers its objects on the stream until the next wait
    in_forked_child({
        "after work: own work": own_work,
        "after work: the parent's objects": lambda: run_and_check(stream, *objects),
        "after work: bind": lambda: primitive.bind(stream, args),
        "after work: a bound execute with its wait": lambda: bound.execute(wait=True),
        "after work: to_array": lambda: dnnl.to_array(dst, stream).tolist(),
    })
    in_forked_child({
        "after work: objects made": own_objects,
        "after work: wait on the parent's stream": stream.wait,
        "after work: close the parent's objects": lambda: close_everything(
            bound, primitive, src, dst, stream, engine),
    })
    in_forked_child({"after work: exit": lambda: None})

    # Another thread executing and waiting in a loop at the fork (in the child, the parent's
    # work may be in flight on the stream, and its lock held by a thread that is not there).
    looping, stop = threading.Event(), threading.Event()

    def execute_and_wait_in_a_loop():
        while not stop.is_set():
            bound.execute(wait=True)
            looping.set()

    thread = threading.Thread(target=execute_and_wait_in_a_loop)
    thread.start()
    looping.wait()
    in_forked_child({"a thread executing at the fork: wait, then close": lambda: (
        report_of(stream.wait).get("raised"), close_everything(stream))})
    stop.set()
    thread.join()

    # Work in flight (submitted, not waited for).
    big_a, big_out, big_src, big_dst, big_primitive = reorder_objects(engine, n=2048)
    big_primitive.execute(stream, {dnnl.ARG_FROM: big_src, dnnl.ARG_TO: big_dst})
    in_forked_child({"in flight: wait": stream.wait})
    in_forked_child({"in flight: close the parent's objects": lambda: close_everything(
        big_primitive, big_src, big_dst, stream, engine)})
    stream.wait()
    results["parent's work in flight at the forks"] = {
        "returned": "correct" if numpy.array_equal(big_out.T, big_a) else "wrong data"}

    in_multiprocessing_child("multiprocessing, fork", "fork")
    in_multiprocessing_child("multiprocessing, spawn", "spawn")
    print(json.dumps(results))


if __name__ == "__main__":
    main()
