"""Compile a test-only C library in place of the one some process may have loaded.

Shared by the stand-in (tests/standin) and the counting library (tests/counting).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path


def compile_replacing(command: list[str], target: Path, stamp: Path, key: str, what: str) -> Path:
    """Run ``command`` (which has ``-o <anything>``) to build ``target``, then record ``key`` in ``stamp``.

    The library is built beside the target and renamed over it: one that a
    process has already loaded is never overwritten in place.
    """
    fd, temporary = tempfile.mkstemp(prefix=f".{target.stem}-", suffix=target.suffix, dir=target.parent)
    os.close(fd)
    command = list(command)
    command[command.index("-o") + 1] = temporary
    try:
        result = subprocess.run(command, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            raise RuntimeError(f"compiling {what} failed:\n{' '.join(command)}\n{result.stdout}{result.stderr}")
        os.replace(temporary, target)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
    stamp.write_text(key)
    return target
