"""The build of ``dnnl_interop._ffi``: what ``build_ffi.py`` runs, never installed.

* :mod:`ffibuild.source`: the module's C source (the hand-written files of
  ``dnnl_interop/csrc/`` and, generated from the headers, a slot, stub and
  trampoline per oneDNN function and the size-query helpers), its private
  cdef and its builder.
* :mod:`ffibuild.generated`: the Python files generated from the same parse
  and checked in: ``dnnl_interop/_ffi.pyi``, ``_args.py`` and ``_enums.py``.

The header parser they share, ``dnnl_interop/_cdef.py``, is loaded by path as
``ffibuild.cdef``: importing ``dnnl_interop`` needs the module being built.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import TYPE_CHECKING

__all__ = ["ROOT", "PACKAGE", "cdef"]

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "dnnl_interop"

if TYPE_CHECKING:
    from dnnl_interop import _cdef as cdef
else:

    def _load_cdef():
        name = f"{__name__}.cdef"
        spec = importlib.util.spec_from_file_location(name, PACKAGE / "_cdef.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses look their module up there
        spec.loader.exec_module(module)
        return module

    cdef = _load_cdef()
