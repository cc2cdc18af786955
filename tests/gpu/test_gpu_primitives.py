"""The forward primitives on real oneDNN 3.13, emulated GPU (OpenCL).

What must hold:

* Every primitive the binding offers that runs here (matmul, inner product,
  convolution with bias with and without a fused ReLU, eltwise, binary
  add/mul/select, deconvolution, pooling, batch, layer and group
  normalization, reduction, resampling, concat, sum with scales, PReLU,
  shuffle, LRN) gives numpy's result over each
  kind of memory a caller brings: a ``pyopencl.Buffer`` (through
  ``ocl.make_memory`` and through ``Memory``), a ``pyopencl.array.Array``, and
  shared USM; the result read back through ``memory.mapped()``,
  ``ocl.as_array`` or the caller's own buffer. Outputs start as NaN, so a
  primitive that wrote nothing cannot pass.
* The same for random shapes and f32/f16 data (hypothesis, a few examples:
  each new shape builds OpenCL kernels).
* "format any": oneDNN's choice here is never blocked (convolution src/dst
  ``acdb``, deconvolution weights ``bacd``, the rest plain); a plain memory
  where it chose another layout is refused before anything runs, and
  ``reordered`` brings it there with the right result.
* The two traps: softmax has no implementation on this device and says so;
  sum never computes a wrong result: for small tensors whose sources all have
  dst's layout and a first scale of 1.0, oneDNN's first choice is
  ``ocl:many_inputs``, which applies the other scales shifted by one; a sum
  descriptor cannot move to another implementation, so ``SumDesc`` refuses
  those scales with a clear ``UnimplementedError`` naming the ways out, and
  each way out gives the right sum.
* Cached creation through a store, for any primitive: a second process makes
  a convolution with a ReLU post-op and a matmul with scales from the blobs
  the first one saved, and gives byte-identical outputs.
"""

from __future__ import annotations

import numpy as np
import pyopencl as cl
import pyopencl.array as cl_array
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dnnl_interop as dnnl
from dnnl_interop import ocl
from dnnl_interop._ffi import ffi, lib
from dnnl_interop.testing import emulated_gpu as gpu_emulation

from .primitive_cases import (
    CASES,
    TAGS,
    cached_creation_process,
    check_two_processes,
    convolution_desc,
    convolution_expected,
    convolution_parts,
    deconv2d,
    halves,
    mapped_reader,
    nan_filled,
    plain,
    run_case,
)
from .test_ocl_interop import IntelUsm  # Intel's USM entry points for the emulated context


@pytest.fixture(scope="module")
def queue(emulated_gpu):
    return cl.CommandQueue(emulated_gpu.context)


@pytest.fixture(scope="module")
def stream(engine, queue):
    made = ocl.make_stream(engine, queue)
    yield made
    made.close()


# --- every primitive over every kind of caller memory -------------------------------------


class _Door:
    """How a caller hands oneDNN its memory (``input``, ``output``) and reads a result back."""

    def __init__(self, engine, queue, usm):
        self.engine, self.queue, self.usm = engine, queue, usm

    def _buffer(self, array: np.ndarray) -> cl.Buffer:
        flags = cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR
        return cl.Buffer(self.queue.context, flags, hostbuf=np.ascontiguousarray(array))


class _MakeMemoryOverBuffer(_Door):
    """``ocl.make_memory(desc, engine, BUFFER, cl.Buffer)``, read back with ``memory.mapped()``."""

    def input(self, desc, array):
        return ocl.make_memory(desc, self.engine, ocl.MemoryKind.BUFFER, self._buffer(array))

    def output(self, desc):
        memory = self.input(desc, nan_filled(desc))
        return memory, mapped_reader(memory)


class _MemoryOverBuffer(_Door):
    """``Memory(desc, engine, cl.Buffer)``, read back with ``ocl.as_array(memory, queue)``."""

    def input(self, desc, array):
        return dnnl.Memory(desc, self.engine, self._buffer(array))

    def output(self, desc):
        memory = self.input(desc, nan_filled(desc))
        return memory, lambda: ocl.as_array(memory, self.queue).get()


class _MemoryOverArray(_Door):
    """``Memory(desc, engine, pyopencl.array.Array)``, read back from the caller's Array."""

    def input(self, desc, array):
        return dnnl.Memory(desc, self.engine, cl_array.to_device(self.queue, array))

    def output(self, desc):
        array = cl_array.to_device(self.queue, nan_filled(desc))
        return dnnl.Memory(desc, self.engine, array), array.get


class _SharedUsm(_Door):
    """``ocl.make_memory(desc, engine, USM, view)`` over the caller's shared USM, read back from the caller's view."""

    def input(self, desc, array):
        view = self.usm.view(self.usm.shared(desc.size), desc.dtype, desc.shape)
        view[...] = array
        return ocl.make_memory(desc, self.engine, ocl.MemoryKind.USM, view)

    def output(self, desc):
        view = self.usm.view(self.usm.shared(desc.size), desc.dtype, desc.shape)
        view[...] = np.nan
        return ocl.make_memory(desc, self.engine, ocl.MemoryKind.USM, view), view.copy


DOORS = {
    "make_memory-cl.Buffer": _MakeMemoryOverBuffer,
    "Memory-cl.Buffer": _MemoryOverBuffer,
    "Memory-pyopencl.Array": _MemoryOverArray,
    "shared-USM": _SharedUsm,
}


@pytest.fixture
def usm(emulated_gpu):
    allocator = IntelUsm(emulated_gpu)
    yield allocator
    allocator.free_all()


@pytest.fixture(params=list(DOORS))
def door(request, engine, queue, usm):
    return DOORS[request.param](engine, queue, usm)


@pytest.mark.parametrize("case", list(CASES))
def test_each_primitive_over_each_kind_of_caller_memory_gives_numpys_result(engine, stream, door, case):
    run_case(CASES[case](engine), door, ocl.execute, stream)


def test_the_primitives_run_on_onednns_generic_opencl_kernels(engine):
    """What the emulated GPU is: a Gen9-like device without nGEN kernels, so oneDNN's
    reference and simple OpenCL implementations, never a CPU one. Shuffle is oneDNN's
    generic GPU shuffle, one GPU reorder (``ocl:ref:any`` here); the f16 sum is its
    generic GPU sum (``ref:any``), GPU reorders that accumulate."""
    names = {name: CASES[name](engine).desc.impl_info for name in CASES}
    generic = {"shuffle": "reorder-based:any", "shuffle-f16": "reorder-based:any", "sum-f16": "ref:any"}
    assert all(name.startswith(("ocl:", "conv:any+ocl:")) for case, name in names.items()
               if case not in generic), names
    assert {case: names[case] for case in generic} == generic


# --- "format any" -------------------------------------------------------------------------

A, ANY = dnnl.AlgKind, "any"


def _any(shape) -> dnnl.MemoryDesc:
    return dnnl.MemoryDesc(shape, "f32", ANY)


def _deconvolution_any(engine) -> dnnl.DeconvolutionForwardDesc:
    return dnnl.DeconvolutionForwardDesc(
        engine, _any((1, 3, 5, 5)), _any((4, 3, 3, 3)), _any((1, 4, 11, 11)), [2, 2], [0, 0], [0, 0]
    )


_CONVOLUTION_CHOICE = {dnnl.ARG_SRC: "acdb", dnnl.ARG_WEIGHTS: "abcd", dnnl.ARG_BIAS: "a", dnnl.ARG_DST: "acdb"}
ANY_CHOICES = {  # primitive: (descriptor with "any" layouts, the layout oneDNN picks for each argument)
    "convolution": (lambda engine: convolution_desc(engine, relu=False, tag=ANY), _CONVOLUTION_CHOICE),
    "convolution+relu": (lambda engine: convolution_desc(engine, relu=True, tag=ANY), _CONVOLUTION_CHOICE),
    "deconvolution": (_deconvolution_any, {dnnl.ARG_SRC: "abcd", dnnl.ARG_WEIGHTS: "bacd", dnnl.ARG_DST: "abcd"}),
    "matmul": (
        lambda engine: dnnl.MatmulDesc(engine, _any((2, 5, 7)), _any((2, 7, 3)), _any((2, 5, 3))),
        {dnnl.ARG_SRC: "abc", dnnl.ARG_WEIGHTS: "abc", dnnl.ARG_DST: "abc"},
    ),
    "pooling": (
        lambda engine: dnnl.PoolingForwardDesc(
            engine, A.POOLING_MAX, plain((2, 3, 6, 6)), _any((2, 3, 3, 3)), [2, 2], [2, 2], [0, 0], [0, 0]
        ),
        {dnnl.ARG_SRC: "abcd", dnnl.ARG_DST: "abcd"},
    ),
}


@pytest.mark.parametrize("primitive", list(ANY_CHOICES))
def test_format_any_is_what_onednn_chose_never_blocked_here(engine, primitive):
    make, chosen = ANY_CHOICES[primitive]
    with make(engine) as desc:
        found = {arg: desc.arg_desc(arg) for arg in chosen}
        assert {arg: found[arg].tag for arg in chosen} == chosen
        assert all(each.format_kind == dnnl.FormatKind.BLOCKED and each.strides is not None for each in found.values())
        assert desc.src_desc() == found[dnnl.ARG_SRC] and desc.dst_desc() == found[dnnl.ARG_DST]
        assert desc.scratchpad_desc() is None  # no scratchpad on the emulated GPU


def test_a_plain_memory_where_onednn_chose_another_layout_is_refused_before_anything_runs(engine, queue, stream):
    src, weights, bias = convolution_parts()
    desc = convolution_desc(engine, relu=True, tag=ANY)
    assert desc.src_desc().tag == "acdb"
    dst = dnnl.Memory(desc.dst_desc(), engine)
    with dst.mapped() as out:
        out[...] = np.nan
    args = {
        dnnl.ARG_SRC: dnnl.Memory(plain(src.shape), engine, cl_array.to_device(queue, src)),  # abcd, not acdb
        dnnl.ARG_WEIGHTS: dnnl.Memory(desc.weights_desc(), engine, cl_array.to_device(queue, weights)),
        dnnl.ARG_BIAS: dnnl.Memory(desc.bias_desc(), engine, cl_array.to_device(queue, bias)),
        dnnl.ARG_DST: dst,
    }
    with pytest.raises(ValueError) as caught:
        ocl.execute(dnnl.Primitive(desc), stream, args)
    assert type(caught.value) is ValueError  # the binding's refusal, before oneDNN is called
    message = str(caught.value)
    assert message.startswith(
        f"args[{dnnl.ARG_SRC}] (ARG_FROM, ARG_SRC, ARG_SRC_0, ARG_SRC_LAYER): the memory's layout, "
        "MemoryDesc((2, 3, 7, 7), f32, 'abcd'), "
        "is not the one the primitive computes with there"
    ), message
    assert f"dnnl_interop.reordered(memory, desc.arg_desc({dnnl.ARG_SRC}), stream)" in message
    stream.wait()
    with dst.mapped() as out:
        assert np.isnan(out).all()  # nothing ran


@pytest.mark.parametrize("primitive", ["convolution", "convolution+relu", "deconvolution"])
def test_reordered_brings_plain_memory_into_onednns_choice_and_the_result_is_right(engine, queue, stream, primitive):
    """The caller's data is plain (nchw, oihw): ``reordered`` moves what oneDNN wants in
    another layout and hands back the very memory that is already in the right one."""
    make, chosen = ANY_CHOICES[primitive]
    desc = make(engine)
    if primitive == "deconvolution":
        rng = np.random.default_rng(7)
        src, weights = halves(rng, (1, 3, 5, 5)), halves(rng, (4, 3, 3, 3))
        given = {dnnl.ARG_SRC: src, dnnl.ARG_WEIGHTS: weights}
        expected = deconv2d(src, weights, 2).astype(np.float32)
    else:
        src, weights, bias = convolution_parts()
        given = {dnnl.ARG_SRC: src, dnnl.ARG_WEIGHTS: weights, dnnl.ARG_BIAS: bias}
        expected = convolution_expected(src, weights, bias, relu=primitive.endswith("relu"))
    args = {}
    for arg, array in given.items():
        users = dnnl.Memory(plain(array.shape), engine, cl_array.to_device(queue, array))
        args[arg] = dnnl.reordered(users, desc.arg_desc(arg), stream)
        assert args[arg].desc.tag == chosen[arg]
        assert (args[arg] is users) == (chosen[arg] == TAGS[: array.ndim])
    args[dnnl.ARG_DST] = dst = dnnl.Memory(desc.dst_desc(), engine)
    ocl.execute(dnnl.Primitive(desc), stream, args)
    with dst.mapped() as out:  # in the layout oneDNN chose, seen through numpy strides
        assert out.strides == tuple(4 * s for s in desc.dst_desc().strides)
        np.testing.assert_array_equal(out, expected)


# --- softmax: no implementation here, and the error says so ------------------------------


@pytest.mark.parametrize(
    ("algorithm", "shape", "axis"),
    [(A.SOFTMAX_ACCURATE, (4, 8), 1), (A.SOFTMAX_LOG, (2, 3, 5), 2), (A.SOFTMAX_ACCURATE, (2, 16, 4, 4), 1)],
)
def test_softmax_is_unimplemented_on_the_emulated_gpu_and_the_error_says_so(engine, algorithm, shape, axis):
    with pytest.raises(dnnl.UnimplementedError) as caught:
        dnnl.SoftmaxForwardDesc(engine, algorithm, plain(shape), plain(shape), axis)
    error = caught.value
    assert (error.status, error.function) == (dnnl.Status.UNIMPLEMENTED, "dnnl_softmax_forward_primitive_desc_create")
    assert "oneDNN has no implementation of this softmax on an OpenCL engine" in str(error)
    assert repr(plain(shape)) in str(error)  # the descriptors given


# --- a matmul with K = 0: written here (the CPU engine's is refused) ----------------------------


@pytest.mark.parametrize("bias", [False, True])
def test_a_matmul_with_k_0_writes_zeros_and_the_bias_here(engine, queue, stream, bias):
    src, weights, dst, bias_desc = plain((2, 0)), plain((0, 3)), plain((2, 3)), plain((1, 3))
    desc = dnnl.MatmulDesc(engine, src, weights, dst, bias_desc=bias_desc if bias else None)
    out = cl_array.to_device(queue, nan_filled(dst))
    values = np.arange(3, dtype=np.float32).reshape(1, 3)
    args = {dnnl.ARG_SRC: dnnl.Memory(src, engine), dnnl.ARG_WEIGHTS: dnnl.Memory(weights, engine),
            dnnl.ARG_DST: dnnl.Memory(dst, engine, out)}
    if bias:
        args[dnnl.ARG_BIAS] = dnnl.Memory(bias_desc, engine, cl_array.to_device(queue, values))
    ocl.execute(dnnl.Primitive(desc), stream, args)
    stream.wait()
    expected = np.zeros((2, 3), np.float32) + (values if bias else 0)
    np.testing.assert_array_equal(out.get(), expected)


# --- runtime dimensions: one matmul for any M ------------------------------------------------


def test_a_matmul_with_runtime_m_computes_each_m_and_refuses_another_k(engine, queue, stream):
    runtime = dnnl.RUNTIME_DIM
    desc = dnnl.MatmulDesc(engine, dnnl.MemoryDesc((runtime, 3), "f32", "ab"), plain((3, 2)),
                           dnnl.MemoryDesc((runtime, 2), "f32", "ab"))
    primitive = dnnl.Primitive(desc)
    rng = np.random.default_rng(5)
    weights = rng.uniform(-1, 1, (3, 2)).astype(np.float32)
    weights_memory, _ = _over_array(engine, queue, plain((3, 2)), weights)
    for m in (1, 6):
        src = rng.uniform(-1, 1, (m, 3)).astype(np.float32)
        src_memory, _ = _over_array(engine, queue, plain((m, 3)), src)
        dst_memory, out = _over_array(engine, queue, plain((m, 2)))
        ocl.execute(primitive, stream, {dnnl.ARG_SRC: src_memory, dnnl.ARG_WEIGHTS: weights_memory,
                                        dnnl.ARG_DST: dst_memory})
        stream.wait()
        np.testing.assert_allclose(out.get(), src @ weights, rtol=1e-5, atol=1e-5)
    other_k, _ = _over_array(engine, queue, plain((2, 4)), np.zeros((2, 4), np.float32))
    with pytest.raises(ValueError, match=r"dim 1 of the memory is 4"):
        ocl.execute(primitive, stream, {dnnl.ARG_SRC: other_k, dnnl.ARG_WEIGHTS: weights_memory,
                                        dnnl.ARG_DST: dst_memory})


# --- sum: never a wrong result---------------------------------------------------------------

SUM_SHAPE = (4, 8)  # small: oneDNN picks ocl:many_inputs for it (ocl:xe from about 64K elements)


def _sum_sources() -> list[np.ndarray]:
    rng = np.random.default_rng(11)
    return [halves(rng, SUM_SHAPE) for _ in range(3)]


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
    sources = [plain(SUM_SHAPE) for _ in scales]
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
        dnnl.SumDesc(engine, [1.0, 2.0, 3.0], [plain(SUM_SHAPE)] * 3)
    message = str(caught.value)
    assert "ocl:many_inputs" in message and "shifted by one" in message
    assert "put a source whose scale is not 1 first" in message
    assert "dst_desc a layout other than the sources'" in message


@pytest.mark.parametrize("how", ["a non-unit scale first", "dst in another layout"])
def test_the_ways_out_the_refusal_names_give_the_right_sum(engine, queue, stream, how):
    """The same sum, x0 + 2*x1 + 3*x2, made so that oneDNN picks another implementation."""
    x0, x1, x2 = _sum_sources()
    if how == "a non-unit scale first":
        scales, sources, dst_desc = [2.0, 1.0, 3.0], [x1, x0, x2], None
    else:
        scales, sources, dst_desc = [1.0, 2.0, 3.0], [x0, x1, x2], dnnl.MemoryDesc(SUM_SHAPE, "f32", "ba")
    with dnnl.SumDesc(engine, scales, [plain(SUM_SHAPE)] * 3, dst_desc=dst_desc) as desc:
        assert "many_inputs" not in desc.impl_info
        out = _run_sum(engine, queue, stream, desc, sources)
    np.testing.assert_array_equal(out, x0 + 2 * x1 + 3 * x2)


def test_many_inputs_is_kept_where_it_is_right_all_scales_one(engine, queue, stream):
    x0, x1, x2 = sources = _sum_sources()
    with dnnl.SumDesc(engine, [1.0, 1.0, 1.0], [plain(SUM_SHAPE)] * 3) as desc:
        assert desc.impl_info == "ocl:many_inputs"
        out = _run_sum(engine, queue, stream, desc, sources)
    np.testing.assert_array_equal(out, x0 + x1 + x2)


# --- properties: random shapes, f32 and f16 ----------------------------------------------

# Each new shape or algorithm builds OpenCL kernels (0.1 to 0.3 s here): a few examples, fewer
# if the profile asks for fewer. Inputs are halves, so every result must be exactly numpy's.
EXAMPLES = min(settings.default.max_examples, 12)
DTYPES = {"f32": np.float32, "f16": np.float16}
SHAPES = st.lists(st.integers(1, 6), min_size=1, max_size=4).map(tuple)


def _over_array(engine, queue, desc: dnnl.MemoryDesc, array: np.ndarray | None = None):
    """Memory over a pyopencl Array holding ``array`` (NaN if None), and the Array."""
    data = np.full(desc.shape, np.nan, desc.dtype) if array is None else array
    device = cl_array.to_device(queue, data)
    return dnnl.Memory(desc, engine, device), device


@settings(max_examples=EXAMPLES)
@given(batch=st.sampled_from([(), (1,), (3,)]), m=st.integers(1, 9), k=st.integers(1, 9), n=st.integers(1, 9),
       dtype=st.sampled_from(list(DTYPES)), column_major=st.booleans(), seed=st.integers(0, 2**16))
def test_matmul_of_any_shape_f32_or_f16_is_numpys(engine, queue, stream, batch, m, k, n, dtype, column_major, seed):
    """``dst = src × weights`` (batched over leading dimensions), weights row- or column-major."""
    rng = np.random.default_rng(seed)
    src, weights = halves(rng, (*batch, m, k), DTYPES[dtype]), halves(rng, (*batch, k, n), DTYPES[dtype])
    tags = TAGS[: weights.ndim]
    weights_tag = tags[:-2] + tags[-1] + tags[-2] if column_major else tags
    weights_desc = dnnl.MemoryDesc(weights.shape, dtype, weights_tag)
    desc = dnnl.MatmulDesc(engine, plain(src.shape, dtype), weights_desc, plain((*batch, m, n), dtype))
    assert desc.weights_desc() == weights_desc  # oneDNN computes with the caller's layout
    laid_out = np.swapaxes(weights, -1, -2) if column_major else weights  # the bytes in that layout
    flags = cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR
    buffer = cl.Buffer(queue.context, flags, hostbuf=np.ascontiguousarray(laid_out))
    src_memory, _ = _over_array(engine, queue, desc.src_desc(), src)
    dst_memory, dst = _over_array(engine, queue, desc.dst_desc())
    ocl.execute(dnnl.Primitive(desc), stream, {
        dnnl.ARG_SRC: src_memory,
        dnnl.ARG_WEIGHTS: ocl.make_memory(weights_desc, engine, ocl.MemoryKind.BUFFER, buffer),
        dnnl.ARG_DST: dst_memory,
    })
    stream.wait()
    np.testing.assert_array_equal(dst.get(), (src.astype(np.float64) @ weights).astype(DTYPES[dtype]))


ELTWISE = {  # algorithm, alpha, beta, numpy: exact on halves in f32 and f16
    "relu": (A.ELTWISE_RELU, 0.0, 0.0, lambda x: np.maximum(x, 0)),
    "abs": (A.ELTWISE_ABS, 0.0, 0.0, np.abs),
    "square": (A.ELTWISE_SQUARE, 0.0, 0.0, np.square),
    "linear": (A.ELTWISE_LINEAR, 2.0, 0.5, lambda x: 2 * x + 0.5),
    "clip": (A.ELTWISE_CLIP, -1.0, 1.5, lambda x: np.clip(x, -1.0, 1.5)),
}


@settings(max_examples=EXAMPLES)
@given(shape=SHAPES, dtype=st.sampled_from(list(DTYPES)), algorithm=st.sampled_from(list(ELTWISE)),
       seed=st.integers(0, 2**16))
def test_eltwise_of_any_shape_f32_or_f16_is_numpys(engine, queue, stream, shape, dtype, algorithm, seed):
    kind, alpha, beta, reference = ELTWISE[algorithm]
    src = halves(np.random.default_rng(seed), shape, DTYPES[dtype])
    desc = dnnl.EltwiseForwardDesc(engine, kind, plain(shape, dtype), plain(shape, dtype), alpha, beta)
    src_memory, _ = _over_array(engine, queue, desc.src_desc(), src)
    dst_memory, dst = _over_array(engine, queue, desc.dst_desc())
    ocl.execute(dnnl.Primitive(desc), stream, {dnnl.ARG_SRC: src_memory, dnnl.ARG_DST: dst_memory})
    stream.wait()
    np.testing.assert_array_equal(dst.get(), reference(src.astype(np.float64)).astype(DTYPES[dtype]))


BINARY = {  # exact on halves in f32 and f16
    "add": (A.BINARY_ADD, np.add),
    "sub": (A.BINARY_SUB, np.subtract),
    "mul": (A.BINARY_MUL, np.multiply),
    "max": (A.BINARY_MAX, np.maximum),
    "min": (A.BINARY_MIN, np.minimum),
    "select": (A.BINARY_SELECT, None),  # dst = src2 ? src0 : src1
}


@settings(max_examples=EXAMPLES)
@given(shape=SHAPES, broadcast=st.lists(st.booleans(), min_size=4, max_size=4), dtype=st.sampled_from(list(DTYPES)),
       algorithm=st.sampled_from(list(BINARY)), seed=st.integers(0, 2**16))
def test_binary_of_any_shape_f32_or_f16_broadcasting_src1_is_numpys(
    engine, queue, stream, shape, broadcast, dtype, algorithm, seed
):
    kind, reference = BINARY[algorithm]
    rng = np.random.default_rng(seed)
    shape1 = tuple(1 if flat else size for size, flat in zip(shape, broadcast[: len(shape)], strict=True))
    src0, src1 = halves(rng, shape, DTYPES[dtype]), halves(rng, shape1, DTYPES[dtype])
    arrays = {dnnl.ARG_SRC_0: src0, dnnl.ARG_SRC_1: src1}
    src2_desc = None
    if reference is None:
        arrays[dnnl.ARG_SRC_2] = condition = rng.integers(-1, 2, shape).astype(np.int8)
        src2_desc = plain(shape, "s8")
        expected = np.where(condition != 0, src0, src1)
    else:
        expected = reference(src0, src1)
    desc = dnnl.BinaryDesc(
        engine, kind, plain(shape, dtype), plain(shape1, dtype), plain(shape, dtype), src2_desc=src2_desc
    )
    args = {arg: _over_array(engine, queue, desc.arg_desc(arg), array)[0] for arg, array in arrays.items()}
    args[dnnl.ARG_DST], dst = _over_array(engine, queue, desc.dst_desc())
    ocl.execute(dnnl.Primitive(desc), stream, args)
    stream.wait()
    np.testing.assert_array_equal(dst.get(), expected.astype(DTYPES[dtype]))


# --- cached creation through a store, in two processes ------------------------------------


def test_a_second_process_makes_a_fused_convolution_and_a_scaled_matmul_from_the_blobs_the_first_saved(tmp_path):
    """Through a CacheBlobStore, any primitive: process 2 makes both from process 1's blobs
    and computes byte-identical outputs (see check_two_processes)."""
    store = tmp_path / "store"
    first, second = (
        gpu_emulation.run_in_child(
            cached_creation_process, "ocl", str(store), str(tmp_path / f"{name}.txt"), timeout=600
        )
        for name in ("first", "second")
    )
    check_two_processes(first, second)
