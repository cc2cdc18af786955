"""Every Python block of README.md and of the docs pages (docs/*.md) runs as
written.

A block is preceded by ``<!-- readme-test: KIND -->``: ``cpu`` runs it in a
fresh interpreter, ``dpnp`` too where dpnp (an optional dependency) is
installed (CI installs it: there it runs); ``emulated-gpu`` and ``emulated-level-zero`` in a fresh
interpreter too (the block itself enables the emulated device first, as a
user would). A block without a marker fails this test: nothing in the README
goes unchecked, nor anything in the docs pages.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT, skip_unless_installed

BLOCK = re.compile(r"(?:<!-- readme-test: ([\w-]+) -->\n\s*)?```python\n(.*?)```", re.S)
KINDS = ("cpu", "emulated-gpu", "emulated-level-zero", "dpnp")
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# (page, kind, code) of every Python block, the page relative to the checkout.
BLOCKS = [
    (str(page.relative_to(ROOT)), kind, textwrap.dedent(code))
    for page in PAGES
    for kind, code in BLOCK.findall(page.read_text(encoding="utf-8"))
]


def test_every_python_block_says_how_it_runs():
    assert any(page == "README.md" for page, _, _ in BLOCKS), "no Python blocks found in README.md"
    assert any(page.startswith("docs") for page, _, _ in BLOCKS), "no Python blocks found in docs/*.md"
    unmarked = [(page, code.splitlines()[0]) for page, kind, code in BLOCKS if kind not in KINDS]
    assert not unmarked, f"blocks without a readme-test marker: {unmarked}"


def test_the_rule_sees_a_block_in_a_list_item():
    page = "* A rule:\n\n  <!-- readme-test: cpu -->\n  ```python\n  x = 1\n  ```\n"
    assert [(kind, textwrap.dedent(code)) for kind, code in BLOCK.findall(page)] == [("cpu", "x = 1\n")]


def _block_id(index: int, page: str, kind: str) -> str:
    return f"{page.removeprefix('docs/').removesuffix('.md')}-{index}-{kind}"


@pytest.mark.parametrize(
    ("page", "kind", "code"), BLOCKS, ids=[_block_id(i, page, kind) for i, (page, kind, _) in enumerate(BLOCKS)]
)
def test_the_block_runs(page, kind, code, tmp_path):
    if kind == "dpnp":  # runs like a cpu block where the optional dpnp is installed (in CI)
        skip_unless_installed("dpnp", "dpnp")
    env = dict(os.environ)
    if kind != "cpu":  # a process of its own must start without pyopencl's CPU view of things
        env.pop("OCL_ICD_VENDORS", None)
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300
    )
    assert done.returncode == 0, f"{page} block failed ({done.returncode}):\n{code}\n{done.stderr[-3000:]}"
