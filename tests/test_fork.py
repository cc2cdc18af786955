"""Forked processes: CPU work is refused with a clear error instead of hanging.

oneDNN's CPU runtime runs work on worker threads it starts at the first
execution, and a forked child has none of them. Measured on oneDNN 3.13 (a
SYCL build): in a child forked after the parent ran CPU work, an execute
returns success but its work never runs, a wait for it never returns, a
wait or close of a stream that had work in flight at the fork never returns,
and even ``sys.exit`` hangs (in the runtime's exit-time destructors). Making
engines, streams, memories and primitives, and mapping memory, work. Before
the parent's first execution, a child works like any process.

So in such a child, submitting CPU work raises ``ForkedProcessError`` (a
``DnnlError`` and a ``RuntimeError``) naming multiprocessing's spawn and
forkserver start methods; a stream whose work was in flight at the fork
refuses its wait the same way; the rest works, and the child exits cleanly
with its own status.

Every scenario runs in a child forked by one fresh interpreter
(tests/forked_children.py), each bounded by a timeout: a hang is reported as
``"hung"``, never waited out.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from conftest import ROOT

SCRIPT = ROOT / "tests" / "forked_children.py"
EXIT_CODE = 3  # forked_children.EXIT_CODE


@pytest.fixture(scope="module")
def children() -> dict[str, dict[str, object]]:
    """The reports of every scenario of tests/forked_children.py, by name."""
    process = subprocess.Popen(
        [sys.executable, str(SCRIPT)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,  # its children too are killed if it hangs
    )
    try:
        out, err = process.communicate(timeout=240)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        pytest.fail("tests/forked_children.py hung")
    assert process.returncode == 0, err[-3000:]
    reports: dict[str, dict[str, object]] = json.loads(out)
    return reports


def refused(report: dict[str, object], function: str) -> None:
    """``report`` is of a scenario refused with ForkedProcessError for ``function``, in a child that then
    exited cleanly with its own status."""
    assert report.get("raised") == "ForkedProcessError", report
    assert report["is DnnlError"] and report["is RuntimeError"], report
    message = str(report["message"])
    assert message.startswith(f"{function}: this process was forked "), message
    assert 'multiprocessing.get_context("spawn")' in message and '"forkserver"' in message, message
    assert 'multiprocessing.set_start_method("spawn")' in message, message
    assert report["exit"] == EXIT_CODE, report


def worked(report: dict[str, object], returned: object) -> None:
    assert "raised" not in report, report
    assert report["returned"] == returned, report
    assert report["exit"] == EXIT_CODE, report


# --- before the parent's first execution: children work ------------------------------


def test_a_child_of_a_process_that_only_imported_the_package_runs_cpu_work(children):
    worked(children["imported only: own work"], "correct")


def test_a_child_of_a_process_that_made_objects_but_ran_no_work_runs_cpu_work(children):
    worked(children["objects made: own work"], "correct")


def test_such_a_child_runs_work_on_the_objects_it_inherited(children):
    worked(children["objects made: the parent's objects"], "correct")


# --- after the parent ran CPU work: submissions refused, not hung ----------------------


def test_after_the_parent_ran_work_an_execute_in_the_child_is_refused(children):
    # Without the refusal, the execute returns and its wait never does.
    refused(children["after work: own work"], "dnnl_primitive_execute")


def test_an_execute_on_objects_inherited_from_the_parent_is_refused(children):
    refused(children["after work: the parent's objects"], "dnnl_primitive_execute")


def test_bind_and_a_bound_execute_with_its_wait_are_refused(children):
    refused(children["after work: bind"], "dnnl_primitive_execute")
    refused(children["after work: a bound execute with its wait"], "dnnl_primitive_execute")


def test_to_array_which_runs_a_reorder_is_refused(children):
    refused(children["after work: to_array"], "dnnl_primitive_execute")


def test_the_parent_ran_its_work_correctly(children):
    assert children["parent's own work"] == {"returned": "correct"}


# --- after the parent ran CPU work: what does not hang still works ---------------------


def test_objects_are_made_and_memory_mapped_in_the_child(children):
    worked(children["after work: objects made"], "made")


def test_a_wait_with_nothing_in_flight_returns(children):
    worked(children["after work: wait on the parent's stream"], None)


def test_the_child_closes_what_it_inherited(children):
    worked(children["after work: close the parent's objects"], "closed")


def test_the_child_exits_with_its_own_status_without_hanging(children):
    # The exit path: atexit (every stream's work finished), the finalizers of the
    # inherited objects, then the C exit handlers, of which oneDNN's runtime's hang.
    worked(children["after work: exit"], None)


# --- work in flight at the fork ---------------------------------------------------------


def test_a_thread_executing_at_the_fork_leaves_the_child_a_stream_it_can_close(children):
    # The wait is refused if the parent's work was in flight (or the thread held the stream),
    # and returns if not: it never hangs.
    report = children["a thread executing at the fork: wait, then close"]
    assert report["exit"] == EXIT_CODE, report
    refusal, closed = report["returned"]
    assert refusal in ("ForkedProcessError", None) and closed == "closed", report


def test_a_wait_for_the_parents_work_in_flight_is_refused(children):
    refused(children["in flight: wait"], "dnnl_stream_wait")


def test_the_child_closes_objects_with_the_parents_work_in_flight(children):
    worked(children["in flight: close the parent's objects"], "closed")


def test_a_child_holding_the_parents_work_in_flight_exits_cleanly(children):
    # after its refused wait, with the stream and the memories the work used
    assert children["in flight: wait"]["exit"] == EXIT_CODE


def test_the_parents_work_in_flight_at_the_forks_finishes_correctly(children):
    assert children["parent's work in flight at the forks"] == {"returned": "correct"}


# --- multiprocessing ---------------------------------------------------------------------


def test_multiprocessing_fork_children_get_the_error(children):
    report = children["multiprocessing, fork"]
    assert report.get("raised") == "ForkedProcessError", report
    assert report["exit"] == 0, report


def test_multiprocessing_spawn_children_run_cpu_work(children):
    report = children["multiprocessing, spawn"]
    assert report.get("returned") == "correct", report
    assert report["exit"] == 0, report
