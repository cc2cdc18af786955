"""The forward primitives on real oneDNN 3.13, emulated GPU, Level Zero engine.

What must hold, as on OpenCL (test_gpu_primitives.py):

* Every primitive that runs here (matmul, inner product, convolution with
  bias with and without a fused ReLU, eltwise, binary add/mul/select,
  deconvolution, pooling, batch, layer and group normalization, reduction,
  resampling, concat, sum with scales, PReLU, shuffle, LRN) gives numpy's
  result over Level Zero USM the
  caller allocated (shared, and device USM reached through copies) and over
  device USM oneDNN allocates (written and read through ``memory.mapped()``).
  Outputs start as NaN, so a primitive that wrote nothing cannot pass.
* The same for matmul and binary over random shapes and f32/f16 data
  (hypothesis, a few examples).
* "format any": a plain memory where oneDNN chose another layout is refused;
  ``reordered`` brings it there (into device USM oneDNN allocates) and the
  result is right.
* softmax has no implementation here and says so.
* Cached creation across two processes gives byte-identical outputs from the
  blobs the first process saved.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dnnl_interop as dnnl
from dnnl_interop import ze
from dnnl_interop.testing import emulated_level_zero as emulated

from .primitive_cases import (
    CASES,
    cached_creation_process,
    check_two_processes,
    convolution_desc,
    convolution_expected,
    convolution_parts,
    halves,
    mapped_reader,
    nan_filled,
    plain,
    run_case,
)

# At collection, before any test of the session can start SYCL.
emulated.enable()

RUNTIME = "ze"  # the engine and stream fixtures (conftest.py) are Level Zero ones


# --- every primitive over every kind of Level Zero memory ----------------------------------


class _SharedUsm:
    """``ze.make_memory(desc, engine, array)`` over the caller's shared USM, read back from it."""

    def __init__(self, lz, engine):
        self.lz, self.engine = lz, engine

    def _usm(self, desc, array):
        usm = self.lz.shared(desc.shape, desc.dtype)
        usm.array[...] = array
        return usm

    def input(self, desc, array):
        return ze.make_memory(desc, self.engine, self._usm(desc, array).array)

    def output(self, desc):
        usm = self._usm(desc, nan_filled(desc))
        return ze.make_memory(desc, self.engine, usm.array), usm.array.copy


class _DeviceUsm(_SharedUsm):
    """``ze.make_memory(desc, engine, pointer)`` over the caller's device USM, filled and read
    back with Level Zero copies through shared USM."""

    def _device(self, desc, array):
        device = self.lz.device_memory(desc.size)
        self.lz.copy(device, self._usm(desc, array))
        assert self.lz.synchronize()
        return device

    def input(self, desc, array):
        return ze.make_memory(desc, self.engine, self._device(desc, array).ptr)

    def output(self, desc):
        device = self._device(desc, nan_filled(desc))

        def read():
            result = self.lz.shared(desc.shape, desc.dtype)
            self.lz.copy(result, device)
            assert self.lz.synchronize()
            return result.array.copy()

        return ze.make_memory(desc, self.engine, device.ptr), read


class _AllocatedByOnednn(_SharedUsm):
    """``ze.make_memory(desc, engine)``: device USM oneDNN allocates, written and read with ``mapped()``."""

    def input(self, desc, array):
        memory = ze.make_memory(desc, self.engine)
        assert self.lz.memory_type(memory.data_handle) == "device"
        with memory.mapped() as data:
            data[...] = array
        return memory

    def output(self, desc):
        memory = self.input(desc, nan_filled(desc))
        return memory, mapped_reader(memory)


DOORS = {"shared-USM": _SharedUsm, "device-USM": _DeviceUsm, "allocated-by-oneDNN": _AllocatedByOnednn}


@pytest.fixture(params=list(DOORS))
def door(request, lz, engine):
    return DOORS[request.param](lz, engine)


@pytest.mark.parametrize("case", list(CASES))
def test_each_primitive_over_each_kind_of_level_zero_memory_gives_numpys_result(engine, stream, door, case):
    run_case(CASES[case](engine), door, ze.execute, stream)


# --- "format any" ------------------------------------------------------------------------


def test_a_plain_memory_where_onednn_chose_another_layout_is_refused_and_reordered_fixes_it(lz, engine, stream):
    src, weights, bias = convolution_parts()
    desc = convolution_desc(engine, relu=True, tag="any")
    assert (desc.src_desc().tag, desc.weights_desc().tag, desc.dst_desc().tag) == ("acdb", "abcd", "acdb")
    door = _SharedUsm(lz, engine)
    users = {arg: door.input(plain(array.shape), array)
             for arg, array in {dnnl.ARG_SRC: src, dnnl.ARG_WEIGHTS: weights, dnnl.ARG_BIAS: bias}.items()}
    dst = dnnl.Memory(desc.dst_desc(), engine)
    with dst.mapped() as out:
        out[...] = np.nan
    primitive = dnnl.Primitive(desc)

    with pytest.raises(ValueError, match=r"^args\[1\] \(.*?\): the memory's layout, "
                                         r"MemoryDesc\(\(2, 3, 7, 7\), f32, 'abcd'\), "
                                         r"is not the one the primitive computes with there") as caught:
        ze.execute(primitive, stream, {**users, dnnl.ARG_DST: dst})
    assert type(caught.value) is ValueError  # the binding's refusal, before oneDNN is called
    stream.wait()
    with dst.mapped() as out:
        assert np.isnan(out).all()  # nothing ran

    args = {arg: dnnl.reordered(memory, desc.arg_desc(arg), stream) for arg, memory in users.items()}
    assert args[dnnl.ARG_SRC].desc.tag == "acdb" and lz.memory_type(args[dnnl.ARG_SRC].data_handle) == "device"
    assert args[dnnl.ARG_WEIGHTS] is users[dnnl.ARG_WEIGHTS] and args[dnnl.ARG_BIAS] is users[dnnl.ARG_BIAS]
    ze.execute(primitive, stream, {**args, dnnl.ARG_DST: dst})
    with dst.mapped() as out:  # nhwc, seen through numpy strides
        np.testing.assert_array_equal(out, convolution_expected(src, weights, bias, relu=True))


# --- softmax ------------------------------------------------------------------------------


def test_softmax_is_unimplemented_here_and_the_error_says_so(engine):
    with pytest.raises(dnnl.UnimplementedError) as caught:
        dnnl.SoftmaxForwardDesc(engine, dnnl.AlgKind.SOFTMAX_ACCURATE, plain((4, 8)), plain((4, 8)), 1)
    assert caught.value.function == "dnnl_softmax_forward_primitive_desc_create"
    assert "oneDNN has no implementation of this softmax on a Level Zero engine" in str(caught.value)


# --- properties: random shapes, f32 and f16 ----------------------------------------------

# Each new shape builds kernels: fewer examples than the OpenCL module, which covers more.
EXAMPLES = min(settings.default.max_examples, 6)
DTYPES = {"f32": np.float32, "f16": np.float16}


def _run(lz, engine, stream, desc, arrays: dict[int, np.ndarray]) -> np.ndarray:
    """``desc``'s primitive over shared USM holding ``arrays``; its dst."""
    door = _SharedUsm(lz, engine)
    args = {arg: door.input(desc.arg_desc(arg), array) for arg, array in arrays.items()}
    args[dnnl.ARG_DST], read = door.output(desc.dst_desc())
    ze.execute(dnnl.Primitive(desc), stream, args)
    stream.wait()
    return read()


@settings(max_examples=EXAMPLES)
@given(batch=st.sampled_from([(), (2,)]), m=st.integers(1, 9), k=st.integers(1, 9), n=st.integers(1, 9),
       dtype=st.sampled_from(list(DTYPES)), seed=st.integers(0, 2**16))
def test_matmul_of_any_shape_f32_or_f16_is_numpys(lz, engine, stream, batch, m, k, n, dtype, seed):
    """Exactly numpy's: the inputs are halves, whose products and sums f16 holds."""
    rng = np.random.default_rng(seed)
    src, weights = halves(rng, (*batch, m, k), DTYPES[dtype]), halves(rng, (*batch, k, n), DTYPES[dtype])
    desc = dnnl.MatmulDesc(engine, plain(src.shape, dtype), plain(weights.shape, dtype), plain((*batch, m, n), dtype))
    out = _run(lz, engine, stream, desc, {dnnl.ARG_SRC: src, dnnl.ARG_WEIGHTS: weights})
    np.testing.assert_array_equal(out, (src.astype(np.float64) @ weights).astype(DTYPES[dtype]))


BINARY = {"add": (dnnl.AlgKind.BINARY_ADD, np.add), "mul": (dnnl.AlgKind.BINARY_MUL, np.multiply)}


@settings(max_examples=EXAMPLES)
@given(shape=st.lists(st.integers(1, 6), min_size=1, max_size=4).map(tuple), dtype=st.sampled_from(list(DTYPES)),
       algorithm=st.sampled_from(["add", "mul"]), seed=st.integers(0, 2**16))
def test_binary_of_any_shape_f32_or_f16_broadcasting_src1_over_the_last_dimension_is_numpys(
    lz, engine, stream, shape, dtype, algorithm, seed
):
    rng = np.random.default_rng(seed)
    shape1 = (1,) * (len(shape) - 1) + shape[-1:]
    src0, src1 = halves(rng, shape, DTYPES[dtype]), halves(rng, shape1, DTYPES[dtype])
    kind, reference = BINARY[algorithm]
    desc = dnnl.BinaryDesc(engine, kind, plain(shape, dtype), plain(shape1, dtype), plain(shape, dtype))
    out = _run(lz, engine, stream, desc, {dnnl.ARG_SRC_0: src0, dnnl.ARG_SRC_1: src1})
    np.testing.assert_array_equal(out, reference(src0, src1))


# --- cached creation through a store, in two processes ------------------------------------


def test_a_second_process_makes_a_fused_convolution_and_a_scaled_matmul_from_the_blobs_the_first_saved(tmp_path):
    """Through a CacheBlobStore, any primitive: process 2 makes both from process 1's blobs
    and computes byte-identical outputs (see check_two_processes)."""
    store = tmp_path / "store"
    first, second = (
        emulated.run_in_child(cached_creation_process, "ze", str(store), str(tmp_path / f"{name}.txt"), timeout=600)
        for name in ("first", "second")
    )
    check_two_processes(first, second)
