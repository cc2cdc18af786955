"""Sphinx configuration of the dnnl-interop documentation.

Built with warnings as errors: ``sphinx-build -W -b html docs <out>``
(tests/test_docs_site.py does it in CI).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import dnnl_interop  # noqa: E402

project = "dnnl-interop"
author = "dnnl-interop contributors"
copyright = "dnnl-interop contributors"
release = dnnl_interop.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "myst_parser",
]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]

# Google-style docstrings, as written in the package.
napoleon_google_docstring = True
napoleon_numpy_docstring = False
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "show-inheritance": True}

# Headings become anchors, so pages can link to each other's sections.
myst_heading_anchors = 3

html_theme = "furo"
html_title = f"dnnl-interop {release}"
