"""The forward primitives on real oneDNN 3.13, emulated GPU (OpenCL).

What must hold:

* sum never computes a wrong result: for small tensors whose sources all have
  dst's layout and a first scale of 1.0, oneDNN's first choice is
  ``ocl:many_inputs``, which applies the other scales shifted by one; a sum
  descriptor cannot move to another implementation, so ``SumDesc`` refuses
  those scales with a clear ``UnimplementedError`` naming the ways out, and
  each way out gives the right sum.
"""

from __future__ import annotations

import numpy as np
import pyopencl as cl
import pyopencl.array as cl_array
import pytest

import dnnl_interop as dnnl
from dnnl_interop import ocl
from dnnl_interop._ffi import ffi, lib


@pytest.fixture(scope="module")
def queue(emulated_gpu):
    return cl.CommandQueue(emulated_gpu.context)


@pytest.fixture(scope="module")
def stream(engine, queue):
    made = ocl.make_stream(engine, queue)
    yield made
    made.close()


def _halves(rng, shape, dtype=np.float32) -> np.ndarray:
    """Multiples of 0.5 in [-4, 4]: sums and products of a few of them are exact in f16 and f32."""
    return (rng.integers(-8, 9, shape) / 2).astype(dtype)


# --- the sum trap --------------------------------------------------------------------

SUM_SHAPE = (4, 8)  # small: oneDNN picks ocl:many_inputs for it (ocl:xe from about 64K elements)


def _sum_sources() -> list[np.ndarray]:
    rng = np.random.default_rng(11)
    return [_halves(rng, SUM_SHAPE) for _ in range(3)]


def _run_sum(engine, queue, stream, desc: dnnl.PrimitiveDesc, sources: list[np.ndarray]) -> np.ndarray:
    args = {
        dnnl.ARG_MULTIPLE_SRC + i: dnnl.Memory(desc.src_desc(i), engine, cl_array.to_device(queue, source))
        for i, source in enumerate(sources)
    }
    dst = dnnl.Memory(desc.dst_desc(), engine)
    args[dnnl.ARG_DST] = dst
    dnnl.Primitive(desc).execute(stream, args)
    with dst.mapped() as out:
        return out.copy()


def _raw_sum_desc(engine, scales: list[float]) -> dnnl.PrimitiveDesc:
    """oneDNN's own first choice for a sum of ``SUM_SHAPE`` sources (``ab``), made through the C API
    without SumDesc's guard, adopted as a PrimitiveDesc to run it."""
    sources = [dnnl.MemoryDesc(SUM_SHAPE, "f32", "ab") for _ in scales]
    out = ffi.new("dnnl_primitive_desc_t *")
    status = lib.dnnl_sum_primitive_desc_create(
        out, engine.handle, ffi.NULL, len(scales), ffi.new("float[]", scales),
        ffi.new("const_dnnl_memory_desc_t[]", [desc.handle for desc in sources]), ffi.NULL,
    )
    assert status == 0, status
    return dnnl.PrimitiveDesc.from_handle(out[0], owned=True, engine=engine)


def test_onednns_first_choice_for_a_unit_first_scale_is_many_inputs_and_it_sums_wrong(engine, queue, stream):
    """Why SumDesc guards: the raw descriptor for scales [1, 2, 3] is ocl:many_inputs, which
    computes x0 + x1 + 2*x2 instead of x0 + 2*x1 + 3*x2, and cannot move to another implementation."""
    x0, x1, x2 = sources = _sum_sources()
    with _raw_sum_desc(engine, [1.0, 2.0, 3.0]) as raw:
        assert raw.impl_info == "ocl:many_inputs"
        assert raw.next_impl() is False  # oneDNN gives sums no next implementation
        out = _run_sum(engine, queue, stream, raw, sources)
    np.testing.assert_array_equal(out, x0 + x1 + 2 * x2)  # the scales shifted by one
    assert not np.array_equal(out, x0 + 2 * x1 + 3 * x2)


def test_sumdesc_refuses_the_scales_many_inputs_would_get_wrong_and_says_what_works(engine):
    with pytest.raises(dnnl.UnimplementedError) as caught:
        dnnl.SumDesc(engine, [1.0, 2.0, 3.0], [dnnl.MemoryDesc(SUM_SHAPE, "f32", "ab")] * 3)
    message = str(caught.value)
    assert "ocl:many_inputs" in message and "shifted by one" in message
    assert "put a source whose scale is not 1 first" in message
    assert "dst_desc a layout other than the sources'" in message


@pytest.mark.parametrize("how", ["a non-unit scale first", "dst in another layout"])
def test_the_ways_out_the_refusal_names_give_the_right_sum(engine, queue, stream, how):
    """The same sum, x0 + 2*x1 + 3*x2, made so that oneDNN picks another implementation."""
    x0, x1, x2 = _sum_sources()
    plain = dnnl.MemoryDesc(SUM_SHAPE, "f32", "ab")
    if how == "a non-unit scale first":
        scales, sources, dst_desc = [2.0, 1.0, 3.0], [x1, x0, x2], None
    else:
        scales, sources, dst_desc = [1.0, 2.0, 3.0], [x0, x1, x2], dnnl.MemoryDesc(SUM_SHAPE, "f32", "ba")
    with dnnl.SumDesc(engine, scales, [plain] * 3, dst_desc=dst_desc) as desc:
        assert "many_inputs" not in desc.impl_info
        out = _run_sum(engine, queue, stream, desc, sources)
    np.testing.assert_array_equal(out, x0 + 2 * x1 + 3 * x2)


def test_many_inputs_is_kept_where_it_is_right_all_scales_one(engine, queue, stream):
    x0, x1, x2 = sources = _sum_sources()
    with dnnl.SumDesc(engine, [1.0, 1.0, 1.0], [dnnl.MemoryDesc(SUM_SHAPE, "f32", "ab")] * 3) as desc:
        assert desc.impl_info == "ocl:many_inputs"
        out = _run_sum(engine, queue, stream, desc, sources)
    np.testing.assert_array_equal(out, x0 + x1 + x2)
