"""The code that runs inside a case's own process.

:func:`run_forked` is the target of a process forked from the fork server
(one case, or a batch of cases one after another);
:func:`main` is the entry point of a fresh interpreter (``fresh`` cases,
which must end with a real interpreter exit). Both write one JSON result:
``outcome`` ("ok", "raised" or "fixture-error"), the exception if any, and
``phase``: "fixtures", "snippet" while the case runs, "teardown" while its
objects are dropped, "exit" once only the process exit is left. A process
that dies or hangs leaves the phase it was in.
"""

from __future__ import annotations

import faulthandler
import gc
import json
import os
import sys
import traceback
import types


def _exception(exc: BaseException, filename: str) -> dict:
    frames = [
        f"line {frame.lineno}: {frame.line}"
        for frame in traceback.extract_tb(exc.__traceback__)
        if frame.filename == filename
    ]
    return {
        "type": f"{type(exc).__module__}.{type(exc).__qualname__}",
        "mro": [cls.__name__ for cls in type(exc).__mro__],
        "message": str(exc),
        "where": frames[-1] if frames else "",
    }


class _Result:
    def __init__(self, path: str):
        self.path = path
        self.data: dict = {}

    def write(self, **fields) -> None:
        self.data.update(fields)
        temporary = self.path + ".tmp"
        with open(temporary, "w") as file:
            json.dump(self.data, file)
        os.replace(temporary, self.path)


def _run(prelude: str, snippet: str, namespace: dict, result: _Result) -> None:
    """Run the fixtures, then the snippet, recording the outcome."""
    result.write(phase="fixtures")
    try:
        exec(compile(prelude, "<fixtures>", "exec"), namespace)  # running cases is the point
    except BaseException as exc:  # everything is an outcome here
        result.write(outcome="fixture-error", exception=_exception(exc, "<fixtures>"), phase="exit")
        return
    result.write(phase="snippet")
    try:
        exec(compile(snippet, "<case>", "exec"), namespace)
    except BaseException as exc:
        result.write(outcome="raised", exception=_exception(exc, "<case>"))
        del exc
    else:
        result.write(outcome="ok")
    sys.stdout.flush()
    sys.stderr.flush()


def _no_core_dumps() -> None:
    # A death is the verdict; a core file of a process that mapped libdnnl
    # (hundreds of MB) would only slow the matrix down.
    import resource

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _redirect(output_path: str) -> None:
    fd = os.open(output_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)


def run_forked(cases: list[dict]) -> None:
    """Cases, one or a batch, one after another in a child of the fork server.

    The child leads its own process group, so the runner can kill whatever
    it started. Each case gets a new namespace and its own result and output
    files; its objects are dropped and collected after its snippet (the fork
    server's children exit without interpreter finalization). A case's
    result file exists from its first phase on, which tells the runner that
    the case has started.
    """
    os.setpgid(0, 0)
    _no_core_dumps()
    for case in cases:
        _redirect(case["output"])
        faulthandler.enable()
        # Tracebacks of every thread just before the runner kills a hung case.
        faulthandler.dump_traceback_later(max(case["timeout"] - 2.0, 1.0), repeat=True, exit=False)
        result = _Result(case["result"])
        namespace = {"__name__": "__crash_case__"}
        _run(case["prelude"], case["snippet"], namespace, result)
        if result.data["phase"] != "exit":
            result.write(phase="teardown")
            namespace.clear()
            gc.collect()
            result.write(phase="exit")
        faulthandler.cancel_dump_traceback_later()


def main() -> None:
    """``python -m crash_matrix.child SCRIPT RESULT TIMEOUT``: a case in a fresh interpreter.

    The snippet runs in a new ``__main__`` module, so the interpreter's own
    exit drops its objects, as it would for a user's script.
    """
    script_path, result_path, timeout = sys.argv[1], sys.argv[2], float(sys.argv[3])
    _no_core_dumps()
    faulthandler.enable()
    faulthandler.dump_traceback_later(max(timeout - 2.0, 1.0), exit=False)
    with open(script_path) as file:
        prelude, _, snippet = file.read().partition("# --- the case ---\n")
    result = _Result(result_path)
    main_module = types.ModuleType("__main__")
    sys.modules["__main__"] = main_module
    _run(prelude, snippet, main_module.__dict__, result)
    result.write(phase="exit")  # what follows is the interpreter's own exit


if __name__ == "__main__":
    main()
