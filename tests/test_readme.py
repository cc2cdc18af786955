"""Every Python block of README.md runs as written.

A block is preceded by ``<!-- readme-test: KIND -->``: ``cpu`` runs it in a
fresh interpreter; ``emulated-gpu`` and ``emulated-level-zero`` in a fresh
interpreter too (the block itself enables the emulated device first, as a
user would). A block without a marker fails this test: nothing in the README
goes unchecked.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCK = re.compile(r"(?:<!-- readme-test: ([\w-]+) -->\n\s*)?```python\n(.*?)```", re.S)
KINDS = ("cpu", "emulated-gpu", "emulated-level-zero")
BLOCKS = [(kind, textwrap.dedent(code)) for kind, code in BLOCK.findall(README)]


def test_every_python_block_says_how_it_runs():
    assert BLOCKS, "no Python blocks found in README.md"
    unmarked = [code.splitlines()[0] for kind, code in BLOCKS if kind not in KINDS]
    assert not unmarked, f"README blocks without a readme-test marker: {unmarked}"


@pytest.mark.parametrize(("kind", "code"), BLOCKS, ids=[f"{i}-{kind}" for i, (kind, _) in enumerate(BLOCKS)])
def test_the_block_runs(kind, code, tmp_path):
    env = dict(os.environ)
    if kind != "cpu":  # a process of its own must start without pyopencl's CPU view of things
        env.pop("OCL_ICD_VENDORS", None)
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300
    )
    assert done.returncode == 0, f"README block failed ({done.returncode}):\n{code}\n{done.stderr[-3000:]}"
