"""A transposing reorder over shared USM on a Level Zero engine, for the ze test modules.

A module of its own (not conftest) so that functions run in a second process
by ``emulated_level_zero.run_in_child`` can import it too.
"""

from __future__ import annotations

import numpy as np

import dnnl_interop as dnnl
from dnnl_interop import ze


def transpose_over_shared_usm(engine: dnnl.Engine, lz, source: np.ndarray, dst_dtype: str = "float32") -> np.ndarray:
    """``source`` (2-D f32, ``ab``) reordered to ``dst_dtype`` in ``ba`` order on ``engine``; the result."""
    src_desc = dnnl.MemoryDesc(source.shape, "float32", "ab")
    dst_desc = dnnl.MemoryDesc(source.shape, dst_dtype, "ba")
    src, dst = lz.shared(source.shape, "float32"), lz.shared(source.shape[::-1], dst_dtype)
    src.array[:] = source
    with ze.make_stream(engine, lz.command_list) as stream:
        ze.execute(
            dnnl.reorder(src_desc, dst_desc, engine), stream,
            {dnnl.ARG_FROM: ze.make_memory(src_desc, engine, src.array),
             dnnl.ARG_TO: ze.make_memory(dst_desc, engine, dst.array.T)},
        )
        stream.wait()
    return dst.array.copy()
