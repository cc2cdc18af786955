"""Both ends of :func:`dnnl_interop.testing.emulated_gpu.run_in_child`'s reply.

:func:`serve` runs in the child: it prepares the child (the emulated GPU
switches itself on), runs the function and writes a pickled outcome. :func:`raise_outcome` turns that
outcome back into a return value or an exception in the parent.
"""

from __future__ import annotations

import pickle
import sys
import traceback
from collections.abc import Callable
from typing import IO, Any


class ChildTraceback(Exception):
    """The traceback of an exception raised in the child (the ``__cause__`` of the re-raise)."""

    def __init__(self, text: str):
        super().__init__(text)
        self.text = text

    def __str__(self) -> str:
        return "\n" + self.text


def _load_main(path: str) -> None:
    """Make the parent's ``__main__`` script importable as ``__main__`` (as spawn does)."""
    import runpy
    import types

    module = types.ModuleType("__mp_main__")
    module.__dict__.update(runpy.run_path(path, run_name="__mp_main__"))
    sys.modules["__main__"] = sys.modules["__mp_main__"] = module


def _outcome(header: dict[str, Any], request: IO[bytes], prepare: Callable[[], None]) -> tuple[object, ...]:
    try:
        prepare()
        if header["main_file"]:
            _load_main(header["main_file"])
        func, args, kwargs = pickle.load(request)
        result = func(*args, **kwargs)
    except Exception as exc:
        text = traceback.format_exc()
        try:
            raised = pickle.dumps(exc)
        except Exception:  # an exception that does not pickle: its text still travels
            raised = None
        return ("raised", raised, text, f"{type(exc).__name__}: {exc}")
    try:
        return ("returned", pickle.dumps(result))
    except Exception as exc:
        return ("raised", None, traceback.format_exc(), f"the result does not pickle: {exc!r}")


def serve(header: dict[str, Any], request: IO[bytes], reply_path: str, prepare: Callable[[], None]) -> None:
    """``prepare()``, then run the pickled call read from ``request``; write the
    outcome to ``reply_path``."""
    outcome = _outcome(header, request, prepare)
    with open(reply_path, "wb") as reply:
        pickle.dump(outcome, reply)


def raise_outcome(outcome: tuple[Any, ...], error: type[Exception]) -> Any:
    """The child's return value, or its exception raised here (as ``error``
    if it cannot be rebuilt here)."""
    if outcome[0] == "returned":
        return pickle.loads(outcome[1])
    _, raised, text, summary = outcome
    exc = None
    if raised is not None:
        try:
            exc = pickle.loads(raised)
        except Exception:  # its class cannot be rebuilt here
            exc = None
    if not isinstance(exc, BaseException):
        exc = error(f"the child process raised {summary}")
    raise exc from ChildTraceback(text)
