"""Running cases, each in a process of its own, in parallel and bounded in time.

Starting a fresh interpreter per case would cost 0.3-1 s of imports alone.
Cases run instead in children of a fork server (``crash_matrix.forkserver``)
that has imported numpy, pyopencl and dnnl_interop, all pure-Python imports:
the server loads no oneDNN and enumerates no OpenCL platform, because the
threads those start do not survive a fork. Every case is a new fork (never
a reused worker), leads its own process group so that a timeout kills all
it started, and is judged from its exit status and the result it wrote.

Cases marked ``fresh`` (interpreter exit with work in flight, daemon threads
at exit) run in a new interpreter instead: a forked child leaves through
``os._exit``, which skips interpreter finalization.

Cases of the classes in ``BATCHED`` (bad input, and misuse that ends with
the snippet: no thread, no interpreter exit, no lifetime sequence) run in
batches: one forked child runs up to ``BATCH`` of them one after another,
each in a namespace of its own and torn down before the next, which spares
every case but the first the library's and the engine's start-up (most of a
case's time; the CI sample's 449 bad-input cases on the CPU engine took 81 s
so, 255 s one process each, under the same load). A batch only ever passes cases:
a case that fails in it, and every case of a batch whose process died, hung
or exited other than cleanly, runs again alone, and that run is its verdict.
"""

from __future__ import annotations

import collections
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from . import fixtures
from .model import BROKEN, Case, Observed, Verdict, judge

TESTS = Path(__file__).resolve().parent.parent
OUTPUT_TAIL = 4000  # characters of a child's output kept for the report
# A case past its timeout that still used CPU in the last PROGRESS_WINDOW
# seconds, or has a thread running or waiting on the disk, is slow (a loaded
# machine), not hung: it gets more time, up to SLOW_FACTOR times its timeout.
# A deadlocked process sleeps: no CPU, every thread in S state.
PROGRESS_WINDOW = 5.0
PROGRESS_CPU = 0.05
SLOW_FACTOR = 3.0
_TICKS = os.sysconf("SC_CLK_TCK")


def _busy_threads(pid: int) -> bool:
    """Whether a thread of ``pid`` is running, runnable or in disk wait."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return False
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/stat") as stat:
                if stat.read().rpartition(")")[2].split()[0] in ("R", "D"):
                    return True
        except OSError:
            continue
    return False


def cpu_seconds(pid: int) -> float | None:
    """CPU time (user + system, all threads) of a live process, or None."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rpartition(")")[2].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / _TICKS


def child_environment(standin: str | None) -> dict[str, str]:
    """The environment of the fork server and of every case."""
    env = dict(os.environ)
    vendors = Path(sys.prefix) / "etc" / "OpenCL" / "dnnl-interop-vendors"
    if vendors.is_dir():
        env.setdefault("OCL_ICD_VENDORS", str(vendors))
    for name in ("DNNL_INTEROP_LIBRARY", "ONEDNN_VERBOSE", "DNNL_VERBOSE", "PYTEST_CURRENT_TEST"):
        env.pop(name, None)
    if standin:
        env[fixtures.STANDIN_ENV] = str(standin)
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS), *filter(None, [env.get("PYTHONPATH")])])
    env["PYTHONSAFEPATH"] = "1"  # import the installed package, not the working directory
    # numpy's OpenBLAS starts a worker thread at import; the fork server
    # must hold no thread when it forks.
    env["OPENBLAS_NUM_THREADS"] = "1"
    return env


# Cases of these libraries run in processes started with the emulated GPU's
# OpenCL layer on (it must be in place before any OpenCL loader starts).
EMULATED = ("emulated", "emulated-ze")


def _environments(standin: str | None, libraries: set[str]) -> tuple[dict[str, dict[str, str]], str]:
    """The environment of each fork server needed ("plain" and, if used,
    "emulated"), and why the emulated GPU is unavailable ("" if it is not)."""
    plain = child_environment(standin)
    envs = {"plain": plain}
    unavailable = ""
    if libraries & set(EMULATED):
        try:
            from dnnl_interop.testing import emulated_gpu

            envs["emulated"] = emulated_gpu.child_environment(plain)
        except Exception as exc:  # reported on every case that needed it
            unavailable = f"the emulated GPU is unavailable: {type(exc).__name__}: {exc}"
    return envs, unavailable


def _server_of(case: Case) -> str:
    return "emulated" if case.library in EMULATED else "plain"


class ForkServer:
    """The fork server process and the replies it sends (see ``forkserver``)."""

    def __init__(self, env: dict[str, str]):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "crash_matrix.forkserver"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=tempfile.gettempdir(),
        )
        self._buffer = b""

    @property
    def pid(self) -> int:
        return self.process.pid

    def fork(self, request: dict) -> None:
        self.process.stdin.write(json.dumps(request).encode() + b"\n")
        self.process.stdin.flush()

    def replies(self, timeout: float) -> list[tuple[str, int, int]]:
        """``(kind, case id, value)`` lines received within ``timeout`` seconds."""
        out = self.process.stdout
        ready, _, _ = select.select([out], [], [], timeout)
        if not ready:
            return []
        data = os.read(out.fileno(), 1 << 16)
        if not data:
            raise RuntimeError(f"the fork server exited (status {self.process.wait()})")
        self._buffer += data
        *lines, self._buffer = self._buffer.split(b"\n")
        replies = []
        for line in lines:
            kind, case, value = line.decode().split()
            replies.append((kind, int(case), int(value)))
        return replies

    def stop(self) -> None:
        self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process.stdout.close()


# Cases per batch, by library: an emulated-GPU case spends most of its time
# on its own objects, so its batches are smaller (more in parallel).
BATCH = {"real": 16, "emulated": 8}


BATCHED = (
    "bad-input", "attr", "closed", "queries", "host-buffers", "silent", "mismatch", "layouts", "reordered",
    "copies", "dlpack",
)


def _batchable(case: Case) -> bool:
    return case.crash_class in BATCHED and case.library in BATCH and not case.fresh


class _Job:
    """One process in flight: one case, or a batch of cases run one after another."""

    def __init__(self, members: list[tuple[int, Case]], workdir: Path):
        self.members = members  # (case index, case)
        self.index = members[0][0]  # the job's id for the fork server
        self.current = 0  # which member is running (a batch's child starts each in turn)
        self.workdir = workdir
        self.pid = 0
        self.started = time.monotonic()
        self.launched = time.time()  # the process's start, wall clock (``started`` follows a batch's cases)
        self.status: int | None = None  # raw waitpid status, once exited
        self.popen: subprocess.Popen | None = None  # fresh cases only
        self.timed_out = False
        self.deadline = members[0][1].timeout
        self.sample: tuple[float, float] | None = None  # (elapsed, CPU seconds) before the deadline

    @property
    def case(self) -> Case:
        return self.members[self.current][1]

    @property
    def batch(self) -> bool:
        return len(self.members) > 1

    def _result_path(self, index: int) -> Path:
        return self.workdir / f"{index}.json"

    def _output_path(self, index: int) -> Path:
        return self.workdir / f"{index}.out"

    @property
    def result_path(self) -> Path:
        return self._result_path(self.index)

    @property
    def output_path(self) -> Path:
        return self._output_path(self.index)

    def _request(self, index: int, case: Case) -> dict:
        return {
            "prelude": fixtures.prelude(case.code, case.library),
            "snippet": case.code.strip() + "\n",
            "result": str(self._result_path(index)),
            "output": str(self._output_path(index)),
            "timeout": case.timeout,
        }

    def start(self, server: ForkServer, env: dict[str, str], workdir: Path) -> None:
        """Fork the case (or batch) from ``server``, or start a fresh interpreter with ``env``."""
        case = self.case
        self.started, self.launched = time.monotonic(), time.time()
        if not case.fresh:  # a batch's cases are never fresh
            server.fork({"id": self.index, "cases": [self._request(i, c) for i, c in self.members]})
            return
        script = workdir / f"{self.index}.py"
        script.write_text(fixtures.script(case.code, case.library))
        with open(self.output_path, "wb") as output:
            self.popen = subprocess.Popen(
                [sys.executable, "-X", "faulthandler", "-m", "crash_matrix.child",
                 str(script), str(self.result_path), str(case.timeout)],
                stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT,
                env=env, start_new_session=True, cwd=tempfile.gettempdir(),
            )
        self.pid = self.popen.pid

    def poll(self) -> None:
        if self.popen is not None and self.status is None:
            try:
                pid, status = os.waitpid(self.popen.pid, os.WNOHANG)
            except ChildProcessError:
                return
            if pid:
                self.status = status
                self.popen.returncode = 0  # reaped here; keep Popen from waiting again

    def _follow_batch(self, now: float) -> None:
        """Move on to the batch's next case once its child has started it."""
        while self.current + 1 < len(self.members) and self._result_path(self.members[self.current + 1][0]).exists():
            self.current += 1
            self.started = now
            self.deadline = self.case.timeout
            self.sample = None

    def check_time(self, now: float) -> None:
        """Kill the case if it is past its deadline and not making progress."""
        if self.batch:
            self._follow_batch(now)
        elapsed = now - self.started
        if self.sample is None and elapsed >= self.deadline - PROGRESS_WINDOW:
            self.sample = (elapsed, cpu_seconds(self.pid) or 0.0)
        if elapsed < self.deadline:
            return
        used = (cpu_seconds(self.pid) or 0.0) - (self.sample[1] if self.sample else 0.0)
        progressing = used >= PROGRESS_CPU or _busy_threads(self.pid)
        if progressing and self.deadline + PROGRESS_WINDOW <= SLOW_FACTOR * self.case.timeout:
            self.deadline += PROGRESS_WINDOW  # still computing: slow, not hung
            self.sample = None
            return
        self.kill()

    def kill(self) -> None:
        self.timed_out = True
        for kill, target in ((os.killpg, self.pid), (os.kill, self.pid)):
            try:
                kill(target, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def cleanup(self) -> None:
        """Kill whatever the case started and left behind in its process group."""
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def observed(self, member: int = 0) -> Observed:
        """What was seen of one member (a batch's process status is the whole batch's)."""
        index = self.members[member][0]
        result = None
        try:
            result = json.loads(self._result_path(index).read_text())
        except (OSError, ValueError):
            pass
        try:
            output = self._output_path(index).read_text(errors="replace")[-OUTPUT_TAIL:]
        except OSError:
            output = ""
        status = self.status if self.status is not None else 0
        killed = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
        return Observed(
            signal=None if self.timed_out else killed, timed_out=self.timed_out,
            exit_code=code, result=result, output=output, seconds=self._seconds(member),
        )

    def _seconds(self, member: int) -> float:
        if not self.batch:
            return time.monotonic() - self.started
        # A batch member's time: from the previous member's last result write to its own.
        def written(k: int) -> float | None:
            try:
                return self._result_path(self.members[k][0]).stat().st_mtime
            except OSError:
                return None
        end, begin = written(member), written(member - 1) if member else self.launched
        return max(end - begin, 0.0) if end is not None and begin is not None else 0.0

    def verdicts(self) -> tuple[list[tuple[int, Verdict]], list[int]]:
        """``(final verdicts, case indexes to run again alone)`` once the process has ended.

        A single case's verdict is final. A batch passes the cases that passed
        in it, if its process ended cleanly; the rest run again alone.
        """
        if not self.batch:
            return [(self.index, judge(self.case, self.observed()))], []
        if self.timed_out or self.status != 0:
            return [], [index for index, _ in self.members]
        final, again = [], []
        for member, (index, case) in enumerate(self.members):
            verdict = judge(case, self.observed(member))
            if verdict.passed:
                final.append((index, verdict))
            else:
                again.append(index)
        return final, again


def _order(cases: list[Case]) -> list[int]:
    """Slow cases first (fresh interpreters, the emulated GPU, threads, big
    arrays, possible hangs), so that the run does not end on a long tail."""
    slow = ("threads", "lifetime", "exit", "loader", "mutation")

    def weight(case: Case) -> int:
        return 0 if case.fresh or case.library in EMULATED else 1 if case.crash_class in slow else 2

    return sorted(range(len(cases)), key=lambda i: weight(cases[i]))


def _jobs(cases: list[Case], order: list[int]) -> list[list[int]]:
    """The processes to run, in ``order``: batches of cases of one class and
    library, every other case alone."""
    jobs: list[list[int]] = []
    open_batches: dict[tuple[str, str], list[int]] = {}
    for index in order:
        case = cases[index]
        if not _batchable(case):
            jobs.append([index])
            continue
        key = (case.library, case.crash_class)
        batch = open_batches.get(key)
        if batch is None or len(batch) == BATCH[case.library]:
            batch = open_batches[key] = []
            jobs.append(batch)
        batch.append(index)
    return jobs


def default_jobs() -> int:
    """Two processes per core: many cases wait (on a lock, a timeout, a load)."""
    return max(2, 2 * (os.cpu_count() or 1))


def run_cases(
    cases: Iterable[Case],
    jobs: int | None = None,
    standin: str | None = None,
    progress: Callable[[Verdict], None] | None = None,
    on_server: Callable[[int], None] | None = None,
) -> list[Verdict]:
    """Run every case in its own process, ``jobs`` at a time; verdicts in case order.

    ``on_server`` is called with the fork server's pid once it has started
    (the tests check it holds one thread and no OpenCL driver).
    """
    cases = list(cases)
    jobs = jobs or default_jobs()
    envs, unavailable = _environments(standin, {case.library for case in cases})
    verdicts: list[Verdict | None] = [None] * len(cases)
    if unavailable:
        for index, case in enumerate(cases):
            if _server_of(case) == "emulated":
                verdicts[index] = Verdict(case, BROKEN, unavailable)
    pending = collections.deque(_jobs(cases, [i for i in _order(cases) if verdicts[i] is None]))
    running: dict[int, _Job] = {}
    servers = {name: ForkServer(env) for name, env in envs.items()}
    try:
        with tempfile.TemporaryDirectory(prefix="crash-matrix-") as directory:
            workdir = Path(directory)
            server_checked = on_server is None
            while pending or running:
                while pending and len(running) < jobs:
                    members = pending.popleft()
                    job = _Job([(index, cases[index]) for index in members], workdir)
                    running[job.index] = job
                    server_name = _server_of(job.case)
                    job.start(servers[server_name], envs[server_name], workdir)
                for server in servers.values():
                    for reply, index, value in server.replies(0.02 / len(servers)):
                        if reply == "started":
                            running[index].pid = value
                        else:
                            running[index].status = value
                if not server_checked:
                    on_server(servers["plain"].pid)
                    server_checked = True
                now = time.monotonic()
                for index, job in list(running.items()):
                    job.poll()
                    if job.status is None:
                        if job.pid and not job.timed_out:
                            job.check_time(now)
                        continue
                    job.cleanup()
                    del running[index]
                    final, again = job.verdicts()
                    pending.extendleft([case_index] for case_index in reversed(again))
                    for case_index, verdict in final:
                        verdicts[case_index] = verdict
                        if progress:
                            progress(verdict)
    finally:
        for job in running.values():
            job.kill()
        for server in servers.values():
            server.stop()
    return verdicts  # type: ignore[return-value]
