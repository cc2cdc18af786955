"""Build ``dnnl_interop._ffi``, an out-of-line API-mode cffi module.

The declarations come from the trimmed oneDNN headers in ``headers/``;
nothing is typed twice. ``dnnl_interop/_cdef.py`` parses them into the cdef;
``ffibuild/source.py`` puts the hand-written C of ``dnnl_interop/csrc/``
around what it generates: a trampoline per oneDNN function, calling through a
table of function pointers that is filled at run time. So the extension
neither needs nor links libdnnl. Both are loaded by path: this script does
not import the package it builds.

    python build_ffi.py        # build in place (pip install does this too)

Building also regenerates ``dnnl_interop/_ffi.pyi`` (the module's types),
``dnnl_interop/_args.py`` (the ``ARG_*`` names) and ``dnnl_interop/_enums.py``
(the C enums as Python enums, the format tags) from the same parse
(``ffibuild/generated.py``); they are checked in, and
``tests/test_generated.py`` fails when they are stale.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent
HEADER_DIR = ROOT / "headers"


def _load_ffibuild() -> ModuleType:
    """The package ``ffibuild`` of this checkout, whatever ``sys.path`` holds."""
    directory = ROOT / "ffibuild"
    spec = importlib.util.spec_from_file_location(
        "ffibuild", directory / "__init__.py", submodule_search_locations=[str(directory)]
    )
    assert spec is not None and spec.loader is not None  # a package's __init__.py always has both
    module = importlib.util.module_from_spec(spec)
    for name in [n for n in sys.modules if n == "ffibuild" or n.startswith("ffibuild.")]:
        del sys.modules[name]  # another checkout's, or this one's loaded before
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


ffibuild = _load_ffibuild()
_cdef = ffibuild.cdef
source = importlib.import_module("ffibuild.source")
generated = importlib.import_module("ffibuild.generated")

HEADERS = _cdef.HEADERS
parse, preprocess = _cdef.parse, _cdef.preprocess
make_cdef, make_source = source.make_private_cdef, source.make_source


def read_headers(directory: Path = HEADER_DIR, names: Iterable[str] = HEADERS) -> Any:  # a _cdef.Declarations
    return _cdef.read_headers(directory, names)


# -O2 without debug information: Python's own flags (-g -O3) double the compile time of
# this 33,000-line source, and cffi's wrappers and the C helpers gain nothing from them.
# A function the limited API does not declare must stop the build: called undeclared, it
# returns an int, and a pointer so truncated crashes at run time.
ffibuilder = source.make_ffibuilder(
    HEADER_DIR, extra_compile_args=["-O2", "-g0", "-Werror=implicit-function-declaration"]
)


def write_generated(root: Path = ROOT) -> list[Path]:
    """Rewrite the Python files generated from the headers (``_ffi.pyi``,
    ``_args.py``, ``_enums.py``) where they differ; return the paths rewritten."""
    written = []
    for relative, text in generated.generated_files(HEADER_DIR, ffibuilder).items():
        path = root / relative
        if not path.is_file() or path.read_text() != text:
            path.write_text(text)
            written.append(path)
    return written


# setuptools runs this file as "__cffi__" to build; a plain import (the tests) writes nothing.
if __name__ in ("__main__", "__cffi__"):
    write_generated()
if __name__ == "__main__":
    ffibuilder.compile(verbose=True)
