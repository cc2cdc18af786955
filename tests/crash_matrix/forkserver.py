"""A fork server: one interpreter with the imports done, forking a child per case (or batch of cases).

The runner starts it with ``python -m crash_matrix.forkserver`` and writes
one JSON request per line to its stdin; it answers on stdout with
``started ID PID`` when it has forked a child and ``exited ID STATUS`` (the
raw ``waitpid`` status) when the child ends. Closing its stdin stops it.

It imports numpy, pyopencl and dnnl_interop, which are pure-Python imports
here: importing dnnl_interop loads no oneDNN, and pyopencl enumerates no
platform until asked. It must hold no thread when it forks (the runner sets
``OPENBLAS_NUM_THREADS=1``: numpy's OpenBLAS would start one), and it never
loads oneDNN or an OpenCL driver, which start threads that a fork loses.

multiprocessing's own "forkserver" context does the same, but re-runs the
parent's ``__main__`` in every child (``.venv/bin/pytest`` under pytest),
which costs as much as the case itself.
"""

from __future__ import annotations

import gc
import json
import os
import select

PRELOAD = (
    "copy",
    "decimal",
    "fractions",
    "pickle",
    "threading",
    "numpy",
    "pyopencl",
    "dnnl_interop",
    "dnnl_interop.core",
    "dnnl_interop.ocl",
    "dnnl_interop.ze",
    "dnnl_interop._ffi",
    "crash_matrix.child",
)


def _child(request: dict, replies_fd: int) -> None:
    from crash_matrix import child

    code = 0
    try:
        os.close(replies_fd)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        child.run_forked(request["cases"])
    except BaseException:  # a child never returns into the server loop
        code = 70
    os._exit(code)


def serve() -> None:
    for name in PRELOAD:
        __import__(name)
    # A case's objects are collected at its end: keep the imports' objects,
    # which would make that collection cost 0.1 s, out of the collector's sight.
    gc.collect()
    gc.freeze()
    replies = os.fdopen(os.dup(1), "w", buffering=1)
    cases: dict[int, str] = {}
    pending = b""
    open_input = True
    while open_input or cases:
        if open_input:
            ready, _, _ = select.select([0], [], [], 0.01)
            if ready:
                data = os.read(0, 1 << 16)
                if not data:
                    open_input = False
                pending += data
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    request = json.loads(line)
                    replies.flush()
                    pid = os.fork()
                    if pid == 0:
                        _child(request, replies.fileno())
                    cases[pid] = request["id"]
                    replies.write(f"started {request['id']} {pid}\n")
        else:
            select.select([], [], [], 0.01)
        while cases:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                cases.clear()
                break
            if pid == 0:
                break
            case = cases.pop(pid, None)
            if case is not None:
                replies.write(f"exited {case} {status}\n")


if __name__ == "__main__":
    serve()
