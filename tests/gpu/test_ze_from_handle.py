"""Level Zero handles adopted with from_handle: real oneDNN, emulated GPU (Level Zero).

An engine's runtime is asked of oneDNN, so a Level Zero engine handed over
as a bare handle works with ``ze.*``; a stream's and a memory's engine are
found through oneDNN and resolved to the Engine of this binding that holds
it. Judged by handle identity and by data through a reorder.
"""

from __future__ import annotations

import numpy as np
import pytest

import dnnl_interop as dnnl
from dnnl_interop import ze
from dnnl_interop.testing import emulated_level_zero as emulated

# At collection, before any test of the session can start SYCL.
emulated.enable()

RUNTIME = "ze"  # the engine and stream fixtures (conftest.py) are Level Zero ones
SHAPE = (6, 10)


def test_a_level_zero_engine_given_as_an_address_is_a_level_zero_engine(engine, lz):
    with dnnl.Engine.from_handle(engine.int_ptr, owned=False) as borrowed:
        assert borrowed.borrowed and borrowed.kind == dnnl.EngineKind.GPU
        assert ze.get_driver(borrowed) == lz.driver
        assert ze.get_device(borrowed) == lz.device
        assert ze.get_context(borrowed) == lz.context


def test_a_stream_and_memory_borrowed_from_ours_run_a_reorder_on_the_same_engine(engine, stream, lz):
    src_desc, dst_desc = dnnl.MemoryDesc(SHAPE, "f32", "ab"), dnnl.MemoryDesc(SHAPE, "f32", "ba")
    src_usm, dst_usm = lz.shared(SHAPE, "float32"), lz.shared(SHAPE[::-1], "float32")
    data = np.arange(np.prod(SHAPE), dtype=np.float32).reshape(SHAPE)
    src_usm.array[:] = data
    src = ze.make_memory(src_desc, engine, src_usm.array)
    dst = ze.make_memory(dst_desc, engine, dst_usm.array.T)
    borrowed_stream = dnnl.Stream.from_handle(stream.handle, owned=False)
    borrowed_src = dnnl.Memory.from_handle(src.handle, owned=False, desc=src_desc)
    assert borrowed_stream.engine is engine and borrowed_src.engine is engine
    assert ze.get_list(borrowed_stream) == lz.command_list
    with pytest.raises(ValueError, match="already owns"):
        dnnl.Memory.from_handle(dst.handle, owned=True, desc=dst_desc)
    ze.execute(dnnl.reorder(src_desc, dst_desc, engine), borrowed_stream,
               {dnnl.ARG_FROM: borrowed_src, dnnl.ARG_TO: dst})
    borrowed_stream.wait()
    np.testing.assert_array_equal(dst_usm.array, data.T)
    for obj in (borrowed_src, borrowed_stream, dst, src):
        obj.close()
