"""A refused primitive-descriptor creation says why, in one run.

oneDNN prints its reasons only on stdout, and only with ``ONEDNN_VERBOSE=check``
set before it loads; the binding finds them itself, once oneDNN has refused,
with oneDNN's own rules (``dnnl_interop._refusals``). Here: the reason for a
refusal of every kind on the CPU engine, the data types the CPU engine lacks,
the generic message (with the hint to re-run verbosely) where no check
explains a refusal, and properties over random shapes: oneDNN refuses every
configuration a check explains and accepts none of them, and every
INVALID_ARGUMENTS refusal of the kinds checked gets a reason. Then the other
messages: a kind called without its engine, a stream whose engine was
closed, and the matmul with K = 0 oneDNN leaves unwritten.
"""

from __future__ import annotations

import inspect
import pickle
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dnnl_interop as dnnl
from dnnl_interop import AlgKind, EngineKind, Status, _refusals
from dnnl_interop.errors import VERBOSE_HINT
from dnnl_interop.primitives import _kind

TAGS = "abcdef"


def desc(shape, dtype="f32") -> dnnl.MemoryDesc:
    return dnnl.MemoryDesc(tuple(shape), dtype, TAGS[: len(shape)])


def refusal(make: Callable[[], object]) -> dnnl.DnnlError:
    with pytest.raises(dnnl.DnnlError) as info:
        made = make()
        made.close()  # type: ignore[attr-defined]
    return info.value


# --- the four refusals that said nothing -----------------------------------------------------------


def test_a_matmul_with_mismatched_inner_dimensions_names_both_ks(engine):
    error = refusal(lambda: dnnl.MatmulDesc(engine, desc((2, 4)), desc((5, 3)), desc((2, 3))))
    assert isinstance(error, dnnl.InvalidArgumentsError)
    assert error.reason == "weights_desc: K=5 (dim 0) does not match src_desc's K=4 (dim 1)"
    assert str(error) == (
        "dnnl_matmul_primitive_desc_create failed: INVALID_ARGUMENTS (2): oneDNN refused this matmul on a CPU "
        "engine: weights_desc: K=5 (dim 0) does not match src_desc's K=4 (dim 1) (given "
        "src_desc=MemoryDesc((2, 4), f32, 'ab'), weights_desc=MemoryDesc((5, 3), f32, 'ab'), "
        "dst_desc=MemoryDesc((2, 3), f32, 'ab'))"
    )
    assert VERBOSE_HINT not in str(error)


def test_a_convolution_with_a_wrong_dst_size_gives_the_size_of_the_formula(engine):
    error = refusal(lambda: dnnl.ConvolutionForwardDesc(
        engine, desc((1, 1, 4, 4)), desc((1, 1, 3, 3)), desc((1, 1, 3, 3)), [1, 1], [0, 0], [0, 0]))
    assert isinstance(error, dnnl.InvalidArgumentsError)
    assert error.reason == (
        "dst_desc: spatial dim 2 is 3, but src_desc's 4 gives 2: (src - extent + padding_l + padding_r) / "
        "stride + 1 with kernel extent 3 (kernel 3, dilation 0), padding 0 + 0, stride 1"
    )


def test_f64_on_the_cpu_engine_is_named_as_a_data_type_the_engine_lacks(engine):
    error = refusal(lambda: dnnl.MatmulDesc(engine, desc((2, 4), "f64"), desc((4, 3), "f64"), desc((2, 3), "f64")))
    assert isinstance(error, dnnl.UnimplementedError)
    assert error.reason == (
        "src_desc: f64, a data type oneDNN's CPU engine has no implementation for (oneDNN has f64 on some GPU "
        "engines only); use f32"
    )


def test_a_softmax_axis_out_of_range_gives_the_range(engine):
    error = refusal(lambda: dnnl.SoftmaxForwardDesc(engine, AlgKind.SOFTMAX_ACCURATE, desc((2, 3)), desc((2, 3)), 2))
    assert isinstance(error, dnnl.InvalidArgumentsError)
    assert error.reason == "axis: 2 is out of range for dst_desc's 2 dimensions (2, 3) (0 to 1)"


# --- a refusal of every kind -------------------------------------------------------------------------

X = (2, 4, 6, 6)
REFUSALS: dict[str, tuple[Callable[[dnnl.Engine], object], str]] = {
    "matmul batch": (lambda e: dnnl.MatmulDesc(e, desc((2, 2, 4)), desc((3, 4, 5)), desc((3, 2, 5))),
                     "batch dim 0: src_desc has 2 and weights_desc 3; they must be equal or one of them 1"),
    "matmul ndims": (lambda e: dnnl.MatmulDesc(e, desc((2, 2, 4)), desc((4, 5)), desc((2, 2, 5))),
                     "weights_desc: 2 dimensions (4, 5) where dst_desc has 3"),
    "inner product": (lambda e: dnnl.InnerProductForwardDesc(e, desc((2, 4)), desc((3, 5)), desc((2, 3))),
                      "weights_desc: dims 1 on (5,) do not match src_desc's (4,)"),
    "convolution channels": (
        lambda e: dnnl.ConvolutionForwardDesc(e, desc(X), desc((4, 3, 3, 3)), desc((2, 4, 4, 4)), [1, 1], [0, 0],
                                              [0, 0]),
        "src_desc: 4 channels (dim 1) do not match weights_desc's 3 input channels (dim 1)"),
    "convolution strided": (
        lambda e: dnnl.ConvolutionForwardDesc(e, desc(X), desc((4, 4, 3, 3)), desc((2, 4, 4, 4)), [2, 2], [1, 1],
                                              [1, 1]),
        "dst_desc: spatial dim 2 is 4, but src_desc's 6 gives 3"),
    "deconvolution": (
        lambda e: dnnl.DeconvolutionForwardDesc(e, desc((1, 1, 4, 4)), desc((1, 1, 3, 3)), desc((1, 1, 5, 5)),
                                                [1, 1], [0, 0], [0, 0]),
        "dst_desc: spatial dim 2 is 5, which gives a src of 3, not src_desc's 4"),
    "eltwise": (lambda e: dnnl.EltwiseForwardDesc(e, AlgKind.ELTWISE_RELU, desc((2, 3)), desc((2, 4))),
                "dst_desc: shape (2, 4) differs from src_desc's (2, 3) (an eltwise keeps the shape)"),
    "softmax any": (lambda e: dnnl.SoftmaxForwardDesc(e, AlgKind.SOFTMAX_ACCURATE,
                                                      dnnl.MemoryDesc((2, 3), "f32", "any"), desc((2, 3)), 1),
                    "src_desc: layout 'any' is taken for a destination only here"),
    "binary": (lambda e: dnnl.BinaryDesc(e, AlgKind.BINARY_ADD, desc((2, 3)), desc((2, 4)), desc((2, 3))),
               "src1_desc: dim 1 is 4; it must be dst_desc's 3 or 1 (broadcast)"),
    "pooling": (lambda e: dnnl.PoolingForwardDesc(e, AlgKind.POOLING_MAX, desc(X), desc((2, 4, 4, 4)), [2, 2],
                                                  [2, 2], [0, 0], [0, 0]),
                "dst_desc: spatial dim 2 is 4, but src_desc's 6 gives 3"),
    "batch normalization": (lambda e: dnnl.BatchNormalizationForwardDesc(e, desc(X), desc((2, 4, 6, 5)), 1e-5),
                            "dst_desc: shape (2, 4, 6, 5) differs from src_desc's (2, 4, 6, 6)"),
    "layer normalization": (lambda e: dnnl.LayerNormalizationForwardDesc(e, desc((3,)), desc((3,)), 1e-5),
                            "src_desc: 1 dimensions (3,); a layer normalization takes 2 to 5"),
    "group normalization": (lambda e: dnnl.GroupNormalizationForwardDesc(e, desc(X), desc(X), 3, 1e-5),
                            "groups: 3 does not divide src_desc's 4 channels (dim 1)"),
    "reduction": (lambda e: dnnl.ReductionDesc(e, AlgKind.REDUCTION_SUM, desc(X), desc(X)),
                  "dst_desc: shape (2, 4, 6, 6) equals src_desc's: nothing to reduce"),
    "reduction dims": (lambda e: dnnl.ReductionDesc(e, AlgKind.REDUCTION_SUM, desc(X), desc((2, 4, 3, 1))),
                       "dst_desc: dim 2 is 3; it must be src_desc's 6, or 1 where reduced"),
    "resampling": (lambda e: dnnl.ResamplingForwardDesc(e, AlgKind.RESAMPLING_NEAREST, desc(X), desc((2, 3, 12, 12))),
                   "dst_desc: channels 3 (dim 1) does not match src_desc's 4 (dim 1)"),
    "concat": (lambda e: dnnl.ConcatDesc(e, 1, [desc(X), desc((2, 4, 6, 5))]),
               "src_descs[1]: dim 3 is 5 where src_descs[0] has 6; the sources differ only along concat_dimension 1"),
    "concat dst": (lambda e: dnnl.ConcatDesc(e, 1, [desc(X), desc(X)], dst_desc=desc(X)),
                   "dst_desc: shape (2, 4, 6, 6); the sources concatenated along dim 1 are (2, 8, 6, 6)"),
    "sum": (lambda e: dnnl.SumDesc(e, [1.0, 1.0], [desc(X), desc((2, 4, 6, 5))]),
            "src_descs[1]: shape (2, 4, 6, 5) differs from src_descs[0]'s (2, 4, 6, 6)"),
    "prelu": (lambda e: dnnl.PReLUForwardDesc(e, desc(X), desc((1, 3, 1, 1)), desc(X)),
              "weights_desc: shape (1, 3, 1, 1) does not broadcast to src_desc's (2, 4, 6, 6)"),
    "shuffle": (lambda e: dnnl.ShuffleForwardDesc(e, desc(X), desc(X), 1, 3),
                "group_size: 3 does not divide src_desc's 4 at axis 1"),
    "shuffle axis": (lambda e: dnnl.ShuffleForwardDesc(e, desc(X), desc(X), 4, 2),
                     "axis: 4 is out of range for src_desc's 4 dimensions (2, 4, 6, 6) (0 to 3)"),
    "lrn": (lambda e: dnnl.LRNForwardDesc(e, AlgKind.LRN_ACROSS_CHANNELS, desc(X), desc((2, 4, 6)), 3, 1e-4, 0.75),
            "dst_desc: 3 dimensions (2, 4, 6) where src_desc has 4"),
    "reorder": (lambda e: dnnl.PrimitiveDesc.reorder(desc((2, 3), "f64"), desc((2, 3)), e),
                "src_desc: f64, a data type oneDNN's CPU engine has no implementation for"),
}


@pytest.mark.parametrize("case", list(REFUSALS))
def test_each_kind_refused_says_why_without_the_verbose_hint(engine, case):
    make, reason = REFUSALS[case]
    error = refusal(lambda: make(engine))
    assert error.reason is not None and reason in error.reason, str(error)
    assert error.reason in str(error) and VERBOSE_HINT not in str(error)


F64_KINDS: dict[str, Callable[[dnnl.Engine, str], object]] = {
    "matmul": lambda e, t: dnnl.MatmulDesc(e, desc((2, 4), t), desc((4, 3), t), desc((2, 3), t)),
    "inner product": lambda e, t: dnnl.InnerProductForwardDesc(e, desc((2, 4), t), desc((3, 4), t), desc((2, 3), t)),
    "convolution": lambda e, t: dnnl.ConvolutionForwardDesc(e, desc(X, t), desc((4, 4, 3, 3), t),
                                                            desc((2, 4, 4, 4), t), [1, 1], [0, 0], [0, 0]),
    "deconvolution": lambda e, t: dnnl.DeconvolutionForwardDesc(e, desc((2, 4, 4, 4), t), desc((4, 4, 3, 3), t),
                                                                desc(X, t), [1, 1], [0, 0], [0, 0]),
    "eltwise": lambda e, t: dnnl.EltwiseForwardDesc(e, AlgKind.ELTWISE_RELU, desc(X, t), desc(X, t)),
    "softmax": lambda e, t: dnnl.SoftmaxForwardDesc(e, AlgKind.SOFTMAX_ACCURATE, desc(X, t), desc(X, t), 1),
    "binary": lambda e, t: dnnl.BinaryDesc(e, AlgKind.BINARY_ADD, desc(X, t), desc(X, t), desc(X, t)),
    "pooling": lambda e, t: dnnl.PoolingForwardDesc(e, AlgKind.POOLING_MAX, desc(X, t), desc((2, 4, 3, 3), t),
                                                    [2, 2], [2, 2], [0, 0], [0, 0]),
    "batch normalization": lambda e, t: dnnl.BatchNormalizationForwardDesc(e, desc(X, t), desc(X, t), 1e-5),
    "layer normalization": lambda e, t: dnnl.LayerNormalizationForwardDesc(e, desc(X, t), desc(X, t), 1e-5),
    "group normalization": lambda e, t: dnnl.GroupNormalizationForwardDesc(e, desc(X, t), desc(X, t), 2, 1e-5),
    "reduction": lambda e, t: dnnl.ReductionDesc(e, AlgKind.REDUCTION_SUM, desc(X, t), desc((2, 4, 1, 1), t)),
    "resampling": lambda e, t: dnnl.ResamplingForwardDesc(e, AlgKind.RESAMPLING_NEAREST, desc(X, t),
                                                          desc((2, 4, 12, 12), t)),
    "concat": lambda e, t: dnnl.ConcatDesc(e, 1, [desc(X, t), desc(X, t)]),
    "sum": lambda e, t: dnnl.SumDesc(e, [1.0, 1.0], [desc(X, t), desc(X, t)]),
    "prelu": lambda e, t: dnnl.PReLUForwardDesc(e, desc(X, t), desc((1, 4, 1, 1), t), desc(X, t)),
    "shuffle": lambda e, t: dnnl.ShuffleForwardDesc(e, desc(X, t), desc(X, t), 1, 2),
    "lrn": lambda e, t: dnnl.LRNForwardDesc(e, AlgKind.LRN_ACROSS_CHANNELS, desc(X, t), desc(X, t), 3, 1e-4, 0.75),
    "reorder": lambda e, t: dnnl.PrimitiveDesc.reorder(desc(X, t), desc(X), e),
}


@pytest.mark.parametrize("kind", list(F64_KINDS))
def test_f64_is_named_for_every_kind_that_f32_makes(engine, kind):
    F64_KINDS[kind](engine, "f32").close()  # type: ignore[attr-defined]
    error = refusal(lambda: F64_KINDS[kind](engine, "f64"))
    assert isinstance(error, dnnl.UnimplementedError)
    assert error.reason is not None and "f64, a data type oneDNN's CPU engine has no implementation for" in error.reason


def test_bf16_on_a_cpu_without_its_instruction_sets_is_named(engine):
    make = F64_KINDS["eltwise"]
    try:
        make(engine, "bf16").close()  # type: ignore[attr-defined]
    except dnnl.UnimplementedError as error:
        flags = _refusals._cpu_flags()
        assert not {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags and "avx_vnni" not in flags
        assert error.reason is not None and "bf16, which oneDNN's CPU engine computes only on CPUs with" in error.reason
    else:
        assert _refusals.data_type_reason(EngineKind.CPU, {"src_desc": desc(X, "bf16")}) is None


def test_a_refusal_no_check_explains_keeps_the_generic_message_and_the_hint(engine):
    with dnnl.PrimitiveAttr() as attr:
        attr.set_accumulation_mode(dnnl.AccumulationMode.F16)  # unimplemented on an f32 matmul
        error = refusal(lambda: dnnl.MatmulDesc(engine, desc((2, 3)), desc((3, 4)), desc((2, 4)), attr=attr))
    assert error.reason is None
    assert "has no implementation of this matmul on a CPU engine: src_desc=MemoryDesc((2, 3)" in str(error)
    assert str(error).endswith(f"({VERBOSE_HINT})")


def test_the_checks_run_only_after_a_refusal(engine, monkeypatch):
    def never(*args: object) -> None:
        raise AssertionError("a check ran on a creation that succeeded")

    monkeypatch.setattr(_kind, "explain", never)
    for kind in F64_KINDS:
        F64_KINDS[kind](engine, "f32").close()  # type: ignore[attr-defined]
    with pytest.raises(AssertionError, match="a check ran"):
        dnnl.MatmulDesc(engine, desc((2, 4)), desc((5, 3)), desc((2, 3)))


def test_a_reason_survives_pickling():
    error = dnnl.errors.make_error(Status.INVALID_ARGUMENTS, "f", "detail: why", "why")
    copy = pickle.loads(pickle.dumps(error))
    assert (type(copy), copy.reason, str(copy)) == (type(error), "why", str(error))
    assert str(error) == "f failed: INVALID_ARGUMENTS (2): detail: why"


# --- properties: a check explains only what oneDNN refuses, and every refusal of these shapes -------------


def _outcome(make: Callable[[], object]) -> dnnl.DnnlError | None:
    try:
        made = make()
    except dnnl.DnnlError as error:
        return error
    made.close()  # type: ignore[attr-defined]
    return None


def _holds(error: dnnl.DnnlError | None, explained: str | None) -> None:
    """oneDNN refused (INVALID_ARGUMENTS) exactly when the kind's check finds a reason."""
    if error is None:
        assert explained is None, f"a check explains a creation oneDNN accepted: {explained}"
    else:
        assert isinstance(error, dnnl.InvalidArgumentsError), str(error)
        assert error.reason is not None and error.reason == explained, str(error)


dims = st.integers(1, 4)


@settings(deadline=None)
@given(batch=st.lists(st.tuples(dims, dims, dims), max_size=2), m=dims, k=dims, k2=dims, n=dims, n2=dims,
       bias=st.sampled_from([None, "full", "row", "wrong"]))
def test_matmul_refusals_are_exactly_those_the_checks_explain(engine, batch, m, k, k2, n, n2, bias):
    src = desc((*(s for s, _, _ in batch), m, k))
    weights = desc((*(w for _, w, _ in batch), k2, n))
    dst = desc((*(d for _, _, d in batch), m, n2))
    bias_shape = {None: None, "full": dst.shape, "row": (1,) * (len(batch) + 1) + (n2,),
                  "wrong": (1,) * (len(batch) + 1) + (n2 + 1,)}[bias]
    bias_desc = None if bias_shape is None else desc(bias_shape)
    descs = {"src_desc": src, "weights_desc": weights, "dst_desc": dst}
    if bias_desc is not None:
        descs["bias_desc"] = bias_desc
    error = _outcome(lambda: dnnl.MatmulDesc(engine, src, weights, dst, bias_desc=bias_desc))
    _holds(error, _refusals.explain("matmul", Status.INVALID_ARGUMENTS, EngineKind.CPU, descs, {}))


@settings(deadline=None)
@given(size=st.integers(1, 9), kernel=st.integers(1, 4), stride=st.integers(1, 3), dilation=st.integers(0, 2),
       left=st.integers(0, 3), right=st.integers(-2, 3), out=st.integers(1, 9), deconvolution=st.booleans(),
       channels=st.sampled_from([(2, 2, 2), (2, 3, 2), (2, 2, 3)]))
def test_convolution_refusals_are_exactly_those_the_checks_explain(
        engine, size, kernel, stride, dilation, left, right, out, deconvolution, channels):
    c_in, c_weights, c_out = channels
    src, dst = desc((1, c_in, size)), desc((1, c_out, out))
    weights = desc((c_out, c_weights, kernel))  # (out, in, kernel) for both kinds
    kind = dnnl.DeconvolutionForwardDesc if deconvolution else dnnl.ConvolutionForwardDesc
    params = {"strides": [stride], "padding_l": [left], "padding_r": [right], "dilates": [dilation]}
    error = _outcome(lambda: kind(engine, src, weights, dst, [stride], [left], [right], dilates=[dilation]))
    descs = {"src_desc": src, "weights_desc": weights, "dst_desc": dst}
    _holds(error, _refusals.explain(kind._kind, Status.INVALID_ARGUMENTS, EngineKind.CPU, descs, params))


@settings(deadline=None)
@given(size=st.integers(1, 9), kernel=st.integers(1, 4), stride=st.integers(1, 3), dilation=st.integers(0, 2),
       left=st.integers(0, 3), right=st.integers(-3, 3), out=st.integers(1, 9),
       algorithm=st.sampled_from([AlgKind.POOLING_MAX, AlgKind.POOLING_AVG_EXCLUDE_PADDING]))
def test_pooling_refusals_are_exactly_those_the_checks_explain(
        engine, size, kernel, stride, dilation, left, right, out, algorithm):
    src, dst = desc((1, 2, size)), desc((1, 2, out))
    params = {"algorithm": algorithm, "strides": [stride], "kernel": [kernel], "padding_l": [left],
              "padding_r": [right], "dilation": [dilation]}
    error = _outcome(lambda: dnnl.PoolingForwardDesc(engine, algorithm, src, dst, [stride], [kernel], [left], [right],
                                                     dilation=[dilation]))
    descs = {"src_desc": src, "dst_desc": dst}
    _holds(error, _refusals.explain("pooling", Status.INVALID_ARGUMENTS, EngineKind.CPU, descs, params))


shapes = st.lists(st.integers(1, 3), min_size=1, max_size=3)


@settings(deadline=None)
@given(src0=shapes, src1=shapes, dst=shapes)
def test_binary_refusals_are_exactly_those_the_checks_explain(engine, src0, src1, dst):
    a, b, c = desc(src0), desc(src1), desc(dst)
    error = _outcome(lambda: dnnl.BinaryDesc(engine, AlgKind.BINARY_ADD, a, b, c))
    descs = {"src0_desc": a, "src1_desc": b, "dst_desc": c}
    _holds(error, _refusals.explain("binary", Status.INVALID_ARGUMENTS, EngineKind.CPU, descs, {}))


@settings(deadline=None)
@given(src=shapes, dst=shapes)
def test_reduction_and_same_shape_refusals_are_exactly_those_the_checks_explain(engine, src, dst):
    a, b = desc(src), desc(dst)
    error = _outcome(lambda: dnnl.ReductionDesc(engine, AlgKind.REDUCTION_SUM, a, b))
    descs = {"src_desc": a, "dst_desc": b}
    _holds(error, _refusals.explain("reduction", Status.INVALID_ARGUMENTS, EngineKind.CPU, descs,
                                    {"algorithm": AlgKind.REDUCTION_SUM, "p": 0.0}))
    error = _outcome(lambda: dnnl.EltwiseForwardDesc(engine, AlgKind.ELTWISE_RELU, a, b))
    _holds(error, _refusals.explain("eltwise", Status.INVALID_ARGUMENTS, EngineKind.CPU, descs, {}))


@settings(deadline=None)
@given(first=st.lists(st.integers(1, 3), min_size=2, max_size=3), second=st.lists(st.integers(1, 3), min_size=2,
       max_size=3), axis=st.integers(0, 1), given_dst=st.booleans())
def test_concat_refusals_are_exactly_those_the_checks_explain(engine, first, second, axis, given_dst):
    a, b = desc(first), desc(second)
    dst = desc([n * 2 if d == axis else n for d, n in enumerate(first)]) if given_dst else None
    error = _outcome(lambda: dnnl.ConcatDesc(engine, axis, [a, b], dst_desc=dst))
    descs = {"src_descs[0]": a, "src_descs[1]": b, **({"dst_desc": dst} if dst is not None else {})}
    _holds(error, _refusals.explain("concat", Status.INVALID_ARGUMENTS, EngineKind.CPU, descs,
                                    {"concat_dimension": axis}))


# --- a kind called without its engine ----------------------------------------------------------------

NO_ENGINE: dict[str, Callable[[dnnl.MemoryDesc], object]] = {
    "MatmulDesc": lambda d: dnnl.MatmulDesc(d, d, d),
    "InnerProductForwardDesc": lambda d: dnnl.InnerProductForwardDesc(d, d, d),
    "ConvolutionForwardDesc": lambda d: dnnl.ConvolutionForwardDesc(d, d, d, [1, 1], [0, 0], [0, 0]),
    "DeconvolutionForwardDesc": lambda d: dnnl.DeconvolutionForwardDesc(d, d, d, [1, 1], [0, 0], [0, 0]),
    "EltwiseForwardDesc": lambda d: dnnl.EltwiseForwardDesc(AlgKind.ELTWISE_RELU, d, d),
    "SoftmaxForwardDesc": lambda d: dnnl.SoftmaxForwardDesc(AlgKind.SOFTMAX_ACCURATE, d, d, 1),
    "BinaryDesc": lambda d: dnnl.BinaryDesc(AlgKind.BINARY_ADD, d, d, d),
    "PoolingForwardDesc": lambda d: dnnl.PoolingForwardDesc(AlgKind.POOLING_MAX, d, d, [1, 1], [1, 1], [0, 0],
                                                            [0, 0]),
    "BatchNormalizationForwardDesc": lambda d: dnnl.BatchNormalizationForwardDesc(d, d, 1e-5),
    "LayerNormalizationForwardDesc": lambda d: dnnl.LayerNormalizationForwardDesc(d, d, 1e-5),
    "GroupNormalizationForwardDesc": lambda d: dnnl.GroupNormalizationForwardDesc(d, d, 2, 1e-5),
    "ReductionDesc": lambda d: dnnl.ReductionDesc(AlgKind.REDUCTION_SUM, d, d),
    "ResamplingForwardDesc": lambda d: dnnl.ResamplingForwardDesc(AlgKind.RESAMPLING_NEAREST, d, d),
    "ConcatDesc": lambda d: dnnl.ConcatDesc(1, [d, d]),
    "SumDesc": lambda d: dnnl.SumDesc([1.0, 1.0], [d, d]),
    "PReLUForwardDesc": lambda d: dnnl.PReLUForwardDesc(d, d, d),
    "ShuffleForwardDesc": lambda d: dnnl.ShuffleForwardDesc(d, d, 1, 2),
    "LRNForwardDesc": lambda d: dnnl.LRNForwardDesc(AlgKind.LRN_ACROSS_CHANNELS, d, d, 3, 1e-4, 0.75),
    "ReorderDesc": lambda d: dnnl.ReorderDesc(d, d, d),  # the order of dnnl.reorder(src, dst, engine)
    "EltwiseBackwardDesc": lambda d: dnnl.EltwiseBackwardDesc(AlgKind.ELTWISE_RELU, d, d, d, None),
    "SoftmaxBackwardDesc": lambda d: dnnl.SoftmaxBackwardDesc(AlgKind.SOFTMAX_ACCURATE, d, d, d, 1, None),
    "PReLUBackwardDesc": lambda d: dnnl.PReLUBackwardDesc(d, d, d, d, d, None),
    "ShuffleBackwardDesc": lambda d: dnnl.ShuffleBackwardDesc(d, d, 1, 2, None),
    "ResamplingBackwardDesc": lambda d: dnnl.ResamplingBackwardDesc(AlgKind.RESAMPLING_NEAREST, d, d, None),
    "PoolingBackwardDesc": lambda d: dnnl.PoolingBackwardDesc(AlgKind.POOLING_MAX, d, d, [1, 1], [1, 1], [0, 0],
                                                              [0, 0], None),
    "LRNBackwardDesc": lambda d: dnnl.LRNBackwardDesc(AlgKind.LRN_ACROSS_CHANNELS, d, d, d, 3, 1e-4, 0.75, 1.0,
                                                      None),
    "BatchNormalizationBackwardDesc": lambda d: dnnl.BatchNormalizationBackwardDesc(d, d, d, 1e-5, 0, None),
    "LayerNormalizationBackwardDesc": lambda d: dnnl.LayerNormalizationBackwardDesc(d, d, d, 1e-5, 0, None),
    "GroupNormalizationBackwardDesc": lambda d: dnnl.GroupNormalizationBackwardDesc(d, d, d, 2, 1e-5, 0, None),
    "InnerProductBackwardDataDesc": lambda d: dnnl.InnerProductBackwardDataDesc(d, d, d, None),
    "InnerProductBackwardWeightsDesc": lambda d: dnnl.InnerProductBackwardWeightsDesc(d, d, d, None),
    "ConvolutionBackwardDataDesc": lambda d: dnnl.ConvolutionBackwardDataDesc(d, d, d, [1, 1], [0, 0], [0, 0], None),
    "ConvolutionBackwardWeightsDesc": lambda d: dnnl.ConvolutionBackwardWeightsDesc(d, d, d, [1, 1], [0, 0], [0, 0],
                                                                                    None),
    "DeconvolutionBackwardDataDesc": lambda d: dnnl.DeconvolutionBackwardDataDesc(d, d, d, [1, 1], [0, 0], [0, 0],
                                                                                  None),
    "DeconvolutionBackwardWeightsDesc": lambda d: dnnl.DeconvolutionBackwardWeightsDesc(
        d, d, d, [1, 1], [0, 0], [0, 0], None),
}
CPP = {"MatmulDesc": "matmul", "BinaryDesc": "binary", "ConvolutionForwardDesc": "convolution_forward",
       "ReductionDesc": "reduction", "ConcatDesc": "concat", "SumDesc": "sum", "PReLUForwardDesc": "prelu_forward",
       "LRNForwardDesc": "lrn_forward", "LayerNormalizationForwardDesc": "layer_normalization_forward",
       "ReorderDesc": "reorder",
       "EltwiseBackwardDesc": "eltwise_backward", "ShuffleBackwardDesc": "shuffle_backward",
       "PoolingBackwardDesc": "pooling_backward", "GroupNormalizationBackwardDesc": "group_normalization_backward",
       "ConvolutionBackwardDataDesc": "convolution_backward_data",
       "DeconvolutionBackwardWeightsDesc": "deconvolution_backward_weights",
       "InnerProductBackwardWeightsDesc": "inner_product_backward_weights"}


@pytest.mark.parametrize("name", list(NO_ENGINE))
def test_a_kind_called_without_its_engine_says_the_engine_comes_first(real_dnnl, name):
    assert set(NO_ENGINE) == {kind for kind in dnnl.primitives.__all__ if kind.endswith("Desc")} - {"PrimitiveDesc"}
    with desc(X) as d, pytest.raises(TypeError) as info:
        NO_ENGINE[name](d)
    message = str(info.value)
    first = {"ConcatDesc": "int", "SumDesc": "list"}.get(name, "AlgKind" if "algorithm" in _first_parameter(name)
                                                           else "MemoryDesc")
    assert message.startswith(f"engine: expected a dnnl_interop.Engine as the first argument of {name}, got {first};")
    assert f"{name}(engine, ...)" in message and "the engine comes first" in message
    if name in CPP:
        assert f"dnnl::{CPP[name]}::primitive_desc(engine, ...)" in message


def _first_parameter(name: str) -> str:
    """The name of the parameter after the engine."""
    return list(inspect.signature(getattr(dnnl, name)).parameters)[1]


def test_the_engine_as_a_keyword_still_works(engine):
    with desc((2, 3)) as s, desc((3, 4)) as w, desc((2, 4)) as d:
        dnnl.MatmulDesc(engine=engine, src_desc=s, weights_desc=w, dst_desc=d).close()
        dnnl.MatmulDesc(engine, s, w, d).close()


# --- a stream whose engine was closed ---------------------------------------------------------------


def test_a_stream_whose_engine_was_closed_says_so(real_dnnl):
    engine = dnnl.Engine.cpu()
    stream = dnnl.Stream(engine)
    with desc((2, 3)) as d, dnnl.EltwiseForwardDesc(engine, AlgKind.ELTWISE_RELU, d, d) as pd, \
            dnnl.Primitive(pd) as primitive:
        data = np.ones((2, 3), np.float32)
        memory = dnnl.Memory(d, engine, data)
        engine.close()
        assert stream.closed
        because = "its Engine was closed, which closes the engine's streams"
        with pytest.raises(dnnl.ClosedObjectError, match=rf"^stream: this Stream is closed: {because}"):
            primitive.execute(stream, {dnnl.ARG_SRC: memory, dnnl.ARG_DST: memory})
        with pytest.raises(dnnl.ClosedObjectError, match=rf"^this Stream is closed: {because}"):
            stream.wait()
        with pytest.raises(dnnl.ClosedObjectError, match=rf"^stream: this Stream is closed: {because}"):
            primitive.bind(stream, {dnnl.ARG_SRC: memory, dnnl.ARG_DST: memory})
        memory.close()


def test_a_stream_closed_by_its_user_says_only_that(engine):
    stream = dnnl.Stream(engine)
    stream.close()
    with pytest.raises(dnnl.ClosedObjectError, match=r"^this Stream is closed$"):
        stream.wait()


# --- K = 0 --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("bias", [False, True])
def test_a_matmul_with_k_0_is_refused_on_the_cpu_engine_where_onednn_leaves_dst_unwritten(engine, bias):
    src, weights, dst = desc((2, 0)), desc((0, 3)), desc((2, 3))
    with src, weights, dst, desc((1, 3)) as bias_desc:
        with pytest.raises(dnnl.UnimplementedError) as info:
            dnnl.MatmulDesc(engine, src, weights, dst, bias_desc=bias_desc if bias else None)
    error = info.value
    assert error.reason is not None and error.reason.startswith(
        "src_desc: K = 0 (dim 1, the dimension the product sums over); oneDNN 3.13")
    assert "leaves dst unwritten" in str(error) and "fill dst without a matmul" in str(error)
    assert VERBOSE_HINT not in str(error)


def test_a_matmul_with_k_0_and_an_empty_dst_is_made(engine):
    with desc((0, 0)) as src, desc((0, 3)) as weights, desc((0, 3)) as dst:
        dnnl.MatmulDesc(engine, src, weights, dst).close()


def test_an_inner_product_with_k_0_is_refused_by_onednn_with_its_reason(engine):
    error = refusal(lambda: dnnl.InnerProductForwardDesc(engine, desc((2, 0)), desc((3, 0)), desc((2, 3))))
    assert isinstance(error, dnnl.InvalidArgumentsError)
    assert error.reason == "weights_desc: (3, 0) has no elements"
