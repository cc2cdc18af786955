"""Binding the function table from many threads at once, and after fork().

The first call into oneDNN binds the library, whichever thread makes it. A
call that starts while another thread binds must get the library's answer
(never the stub's), a call whose library could not be loaded reports its own
thread's error, and a forked child can load even if a thread of the parent
held the loader's lock at fork time. Each scenario runs in a fresh child
process, since binding happens once per process.
"""

from __future__ import annotations

import textwrap

import pytest

from conftest import LIBRARY_3_11, REAL_LIBRARY
from dnnl_interop._ffi import ffi, lib
from dnnl_interop._library import FUNCTIONS
from dnnl_interop._target import TARGET_ONEDNN
from test_loading import VENV_LIB, child_report, clean_env

THREADS = 8
# oneDNN 3.11 (no Level Zero interop) finds its TBB in the environment's lib.
ENV_3_11 = dict(DNNL_INTEROP_LIBRARY=str(LIBRARY_3_11), LD_LIBRARY_PATH=str(VENV_LIB))
BLOB_ID = "dnnl_ocl_interop_engine_get_cache_blob_id"
ZE_BLOB_ID = "dnnl_ze_interop_engine_get_cache_blob_id"

# The threads wait at a barrier, then all make their first call at once.
RACE = """
import threading
import dnnl_interop
from dnnl_interop._ffi import ffi, lib
THREADS = {threads}
barrier = threading.Barrier(THREADS)
results = [None] * THREADS
raised = [None] * THREADS  # kept alive, so that no two can share an id()

def first_call():
{first_call}

def work(i):
    barrier.wait()
    try:
        results[i] = ["value", first_call()]
    except Exception as exc:
        raised[i] = exc
        results[i] = [type(exc).__name__, str(exc), id(exc)]

threads = [threading.Thread(target=work, args=(i,)) for i in range(THREADS)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
"""


def race(first_call: str, env=None, rounds: int = 1) -> list[list]:
    """Results of THREADS threads making ``first_call`` at once, in ``rounds``
    fresh processes."""
    body = textwrap.indent(textwrap.dedent(first_call).strip(), "    ")
    results = []
    for _ in range(rounds):
        code = RACE.format(threads=THREADS, first_call=body) + "\nreport(results=results)\n"
        results += child_report(code, env=env)["results"]
    return results


def test_raw_first_calls_racing_the_bind_all_reach_the_library():
    """Eight threads whose first C call races the bind all get real oneDNN's
    answer for a NULL device (RUNTIME_ERROR, 5), never the stub's
    UNIMPLEMENTED (3)."""
    results = race(
        f"""
        size = ffi.new("size_t *")
        return lib.{BLOB_ID}(ffi.NULL, size, ffi.NULL)
        """,
        rounds=4,
    )
    assert results == [["value", lib.dnnl_runtime_error]] * (4 * THREADS)


def test_public_first_calls_racing_the_bind_all_get_the_blob_id():
    """The same race through the public API: every thread gets the same id."""
    results = race(
        """
        import pyopencl as cl
        [pocl] = [p for p in cl.get_platforms() if p.name == "Portable Computing Language"]
        return dnnl_interop.ocl.get_engine_cache_blob_id(pocl.get_devices()[0]).hex()
        """,
        rounds=2,
    )
    kinds = {kind for kind, *_ in results}
    assert kinds == {"value"}, results
    assert len({value for _, value in results}) == 1


def test_first_calls_of_a_missing_function_all_raise_missing_function_error():
    """Bound to oneDNN 3.11 (no Level Zero interop) by the race itself: every
    thread gets MissingFunctionError naming the function, not a loading error
    and not a bare UNIMPLEMENTED."""
    assert LIBRARY_3_11.exists(), f"{LIBRARY_3_11} missing: run scripts/setup-env.sh"
    results = race(
        "return dnnl_interop.ze.get_engine_cache_blob_id(1, 2)",
        env=clean_env(**ENV_3_11),
        rounds=2,
    )
    for kind, message, _ in results:
        assert kind == "MissingFunctionError", message
        assert ZE_BLOB_ID in message and "3.11" in message


def test_each_thread_reports_its_own_loading_error(tmp_path):
    """With no loadable oneDNN, every thread's first call raises a
    LibraryNotFoundError of its own (not one object shared by all)."""
    target = str(tmp_path / "nowhere" / "libdnnl.so.3")
    results = race(
        "return dnnl_interop.ocl.get_engine_cache_blob_id(1)",
        env=clean_env(DNNL_INTEROP_LIBRARY=target),
    )
    assert [kind for kind, *_ in results] == ["LibraryNotFoundError"] * THREADS
    assert all(target in message for _, message, _ in results)
    assert len({identity for *_, identity in results}) == THREADS


SEQUENCE = """
import threading
import dnnl_interop
from dnnl_interop._ffi import ffi, lib
from dnnl_interop._library import status_error

def raw_call():
    size = ffi.new("size_t *")
    return lib.{blob_id}(ffi.NULL, size, ffi.NULL)

a_called, b_done = threading.Event(), threading.Event()
errors = {{}}

def thread_a():
    status = raw_call()          # autoload fails here, in this thread
    a_called.set()
    b_done.wait()                # meanwhile: {meanwhile}
    errors["a"] = status_error(status, "{blob_id}")

def thread_b():
    a_called.wait()
    {b_does}
    b_done.set()

threads = [threading.Thread(target=thread_a), threading.Thread(target=thread_b)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
"""


def test_a_thread_gets_its_own_loading_error_not_a_later_one(tmp_path):
    """Thread A's call fails to load oneDNN; thread B's call then fails too.
    A's error is the one raised for A's call, not B's."""
    target = str(tmp_path / "nowhere" / "libdnnl.so.3")
    code = SEQUENCE.format(
        blob_id=BLOB_ID,
        meanwhile="thread B fails to load too",
        b_does=f'errors["b"] = status_error(raw_call(), "{BLOB_ID}")',
    )
    result = child_report(
        code + "\nreport(kinds=[type(e).__name__ for e in errors.values()], same=errors['a'] is errors['b'])",
        env=clean_env(DNNL_INTEROP_LIBRARY=target),
    )
    assert result == {"kinds": ["LibraryNotFoundError", "LibraryNotFoundError"], "same": False}


def test_a_failed_call_reports_its_loading_error_after_another_thread_binds(tmp_path):
    """Thread A's call fails to load oneDNN (the variable names no file);
    then thread B binds the real library by path. A's call still reports
    why it failed (LibraryNotFoundError naming the variable's file), not a
    missing function and not a bare UNIMPLEMENTED."""
    target = str(tmp_path / "nowhere" / "libdnnl.so.3")
    code = SEQUENCE.format(
        blob_id=BLOB_ID,
        meanwhile="thread B binds the real library",
        b_does=f"dnnl_interop.load_library({str(REAL_LIBRARY)!r})",
    )
    result = child_report(
        code
        + "\nreport(kind=type(errors['a']).__name__, message=str(errors['a']),"
        " bound=dnnl_interop.loaded_library() is not None, now=raw_call())",
        env=clean_env(DNNL_INTEROP_LIBRARY=target),
    )
    assert result["kind"] == "LibraryNotFoundError"
    assert target in result["message"]
    assert result["bound"] is True
    assert result["now"] == lib.dnnl_runtime_error  # later calls reach oneDNN


# --- a call already inside a stub when the bind completes --------------------------------


def _stub(name: str):
    """The stub of ``name``, callable: where a call lands that read the
    function's slot before a bind filled it."""
    pointer = lib.dnnl_interop_symbol_stub(FUNCTIONS.index(name))
    assert pointer != ffi.NULL
    return ffi.cast(ffi.typeof(ffi.addressof(lib, name)), pointer)


def test_a_stub_called_after_the_bind_calls_the_library(real_dnnl):
    """A thread that read the slot before the bind and enters the stub after
    it gets oneDNN's answer: the stub reads its slot again."""
    size = ffi.new("size_t *")
    assert _stub(BLOB_ID)(ffi.NULL, size, ffi.NULL) == lib.dnnl_runtime_error
    assert lib.dnnl_interop_take_unbound() == 0
    assert _stub("dnnl_memory_desc_get_size")(ffi.NULL) == 0
    assert _stub("dnnl_version")() == lib.dnnl_version()


def test_a_stub_of_a_missing_function_still_answers_unimplemented():
    """Bound to 3.11, the stub of a Level Zero function (which 3.11 lacks)
    answers UNIMPLEMENTED and records which function it answered for."""
    result = child_report(
        f"""
        import dnnl_interop
        from dnnl_interop._ffi import ffi, lib
        from dnnl_interop._library import FUNCTIONS
        dnnl_interop.load_library()
        stub = ffi.cast(ffi.typeof(ffi.addressof(lib, {ZE_BLOB_ID!r})),
                        lib.dnnl_interop_symbol_stub(FUNCTIONS.index({ZE_BLOB_ID!r})))
        size = ffi.new("size_t *")
        status = stub(ffi.NULL, ffi.NULL, size, ffi.NULL)
        report(status=status, index=lib.dnnl_interop_take_unbound(),
               expected=FUNCTIONS.index({ZE_BLOB_ID!r}) + 1)
        """,
        env=clean_env(**ENV_3_11),
    )
    assert result["status"] == lib.dnnl_unimplemented
    assert result["index"] == result["expected"]


def test_the_stub_table_names_only_declared_functions():
    assert lib.dnnl_interop_symbol_stub(len(FUNCTIONS)) == ffi.NULL
    assert all(lib.dnnl_interop_symbol_stub(i) != ffi.NULL for i in range(len(FUNCTIONS)))


# --- fork ----------------------------------------------------------------------------------

FORK = """
import os, select, threading, time
import dnnl_interop
from dnnl_interop import _library

{before}
held = threading.Event()

def load_under_way():
    with _library._lock:  # what a thread in load_library holds
        held.set()
        time.sleep(0.5)

loader = threading.Thread(target=load_under_way)
loader.start()
held.wait()
read_end, write_end = os.pipe()
start = time.monotonic()
pid = os.fork()
if pid == 0:  # the child: the loading thread does not exist here
    os.close(read_end)
    try:
        library = dnnl_interop.load_library()
        import pyopencl as cl
        [pocl] = [p for p in cl.get_platforms() if p.name == "Portable Computing Language"]
        blob = dnnl_interop.ocl.get_engine_cache_blob_id(pocl.get_devices()[0])
        message = f"loaded {{library.version.number}} {{len(blob)}}"
    except BaseException as exc:
        message = f"error {{exc!r}}"
    os.write(write_end, message.encode())
    os._exit(0)
waited = time.monotonic() - start
os.close(write_end)
ready, _, _ = select.select([read_end], [], [], 60)
if ready:
    outcome = os.read(read_end, 4096).decode()
else:
    outcome = "hung"
    os.kill(pid, 9)
os.waitpid(pid, 0)
loader.join()
report(outcome=outcome, waited=waited)
"""


@pytest.mark.parametrize("bound_before_fork", [False, True])
def test_a_fork_waits_for_a_load_under_way_and_the_child_loads_and_calls(bound_before_fork):
    """Fork while another thread is in the loader: the fork waits for it (a
    child must not inherit half a load: oneDNN's initialization stopped
    midway crashed children), then the child, where that thread does not
    exist, loads oneDNN and calls it instead of waiting for a lock nobody
    would release."""
    before = "dnnl_interop.load_library()" if bound_before_fork else ""
    result = child_report(FORK.format(before=before))
    outcome = result["outcome"]
    assert outcome.startswith(f"loaded {TARGET_ONEDNN}"), outcome
    assert int(outcome.split()[-1]) > 0
    assert result["waited"] >= 0.3, result["waited"]
