"""The stand-in itself: it builds, binds, and says it is not oneDNN.

Everything else it does is there for its users (tests/test_ze.py, the crash
matrix), which check it through the binding; see README.md.
"""

from __future__ import annotations

from dnnl_interop._ffi import ffi, lib


def test_identifies_itself_as_the_standin(standin_dnnl):
    version = lib.dnnl_version()
    assert ffi.string(version.hash) == b"dnnl-interop-standin"
    assert standin_dnnl.version.hash == "dnnl-interop-standin"
