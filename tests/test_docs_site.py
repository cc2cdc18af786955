"""The documentation site under docs/ builds with Sphinx, warnings as errors.

``sphinx-build -W -b html docs OUT`` runs in a fresh process into a temporary
directory, as a user or a docs host would build it: autodoc of the public
modules (Google-style docstrings through napoleon), the MyST pages, the furo
theme. Any warning (a broken cross-reference, a docstring docutils cannot
parse, a page missing from the table of contents) fails the test, with
Sphinx's own message. The Python blocks of the pages run in
tests/test_readme.py.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT

DOCS = ROOT / "docs"
PAGES = sorted(page.stem for page in DOCS.glob("*.md"))


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         "-d", str(out / ".doctrees"), str(DOCS), str(out / "html")],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=300,
    )
    assert done.returncode == 0, f"sphinx-build -W failed:\n{done.stdout[-3000:]}\n{done.stderr[-6000:]}"
    assert "WARNING" not in done.stderr, done.stderr[-6000:]
    return out / "html"


def test_every_page_is_built(site):
    assert {"index", "api", "cli", "opencl", "level-zero", "performance"} <= set(PAGES)
    built = {page for page in PAGES if (site / f"{page}.html").is_file()}
    assert built == set(PAGES)


def test_the_api_reference_documents_every_public_module(site):
    api = (site / "api.html").read_text(encoding="utf-8")
    for name in ("dnnl_interop.Engine", "dnnl_interop.Memory", "dnnl_interop.ocl.make_engine",
                 "dnnl_interop.ze.make_engine", "dnnl_interop.cache.CacheBlobStore",
                 "dnnl_interop.embedding.ffibuilder", "dnnl_interop.primitives.MatmulDesc",
                 "dnnl_interop.errors.InvalidArgumentsError", "dnnl_interop.Version",
                 "dnnl_interop.testing.check_size_query_protocol",
                 "dnnl_interop.testing.emulated_gpu.enable"):
        assert f'id="{name}"' in api, f"{name} is not in the API reference"


def test_the_api_reference_shows_each_kind_s_constructor(site):
    from dnnl_interop import primitives

    api = re.sub(r"<[^>]+>", "", (site / "api.html").read_text(encoding="utf-8"))
    kinds = [name for name in primitives.__all__ if isinstance(getattr(primitives, name), type)]
    for name in kinds:  # not the (*args, **kwargs) of the __new__ kinds share
        assert re.search(rf"class dnnl_interop\.primitives\.{name}\((engine|src_engine), ", api), name
    assert "ReorderDesc(src_engine, src_desc, dst_engine, dst_desc, *, attr=None)" in api
    assert "dnnl_interop.primitives.workspace_memory(fwd_pd, engine=None)" in api


def test_the_cli_page_quotes_the_json_schemas_from_the_source(site):
    cli = re.sub(r"<[^>]+>", "", (site / "cli.html").read_text(encoding="utf-8"))
    assert "JSON document (``--json``, schema 1)" in cli.replace("&#96;", "`")
    assert "An error object is" in cli
    assert "remaining_entries" in cli


def test_the_cli_page_shows_the_help_the_commands_print():
    page = (DOCS / "cli.md").read_text(encoding="utf-8")
    for command in ([], ["info"], ["cache"], ["cache", "prune"]):
        done = subprocess.run(
            [sys.executable, "-m", "dnnl_interop", *command, "--help"],
            capture_output=True, text=True, cwd=ROOT, timeout=60, env=dict(os.environ, COLUMNS="80"),
        )
        assert done.returncode == 0, done.stderr
        shown = f"$ python -m dnnl_interop {' '.join([*command, '--help'])}\n{done.stdout}"
        assert shown in page, f"docs/cli.md does not show what `{' '.join(command)} --help` prints now"
