"""The backward kinds of convolution, deconvolution and inner product with their inputs and
numpy's gradients, for the GPU test modules of both runtimes.

A module of its own (not conftest) so that the OpenCL and Level Zero modules
can import it. The gradients are the CPU tests' references
(``backward_products_reference``, confirmed there by finite differences),
over the same geometries: the fixed one with stride 2, asymmetric padding,
dilation and two groups at once, and geometries drawn by the CPU tests' own
strategy (``drawn_cases``). Inputs are multiples of 0.5 in [-4, 4]
(``halves``, from a drawn seed): every product and sum is exact in f32, so
oneDNN must give numpy's gradients exactly. Each case makes its forward
descriptor (for training) as the hint and lets the backward one keep it: the
hint is never held by the case itself.

On the emulated GPU every distinct geometry is an OpenCL kernel build (most of
a second), and values are free: the fixed cases take drawn values over
primitives oneDNN caches, and a few examples draw geometries.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
from hypothesis import strategies as st

import backward_products_reference as bwd  # tests/ is on the path, as for onednn_reference
import dnnl_interop as dnnl
from backward_products_reference import FIXED, FIXED_DECONVOLUTION, dst_shape, params, src_shape, weights_shape
from dnnl_interop._ffi import ffi, lib
from test_backward_products import geometries  # the CPU tests' strategy

from .primitive_cases import Case, halves, plain

TRAINING = dnnl.PropKind.FORWARD_TRAINING
_KINDS = {
    "convolution": (dnnl.ConvolutionForwardDesc, dnnl.ConvolutionBackwardDataDesc, dnnl.ConvolutionBackwardWeightsDesc,
                    bwd.convolution_backward_data, bwd.convolution_backward_weights, FIXED),
    "deconvolution": (dnnl.DeconvolutionForwardDesc, dnnl.DeconvolutionBackwardDataDesc,
                      dnnl.DeconvolutionBackwardWeightsDesc, bwd.deconvolution_backward_data,
                      bwd.deconvolution_backward_weights, FIXED_DECONVOLUTION),
}


def _f32(values: np.ndarray) -> np.ndarray:
    exact = values.astype(np.float32)
    assert np.array_equal(exact, values), "the gradient is not exact in f32: choose other inputs"
    return exact


def _strided(count: int) -> dnnl.MemoryDesc:
    """A vector with a gap after each element (stride 2)."""
    return dnnl.MemoryDesc((count,), "f32", strides=[2])


def _raw(engine: dnnl.Engine, hint: dnnl.PrimitiveDesc, function, *arguments) -> dnnl.PrimitiveDesc:
    """``function(out, engine, *arguments, hint, NULL)``: a backward descriptor oneDNN makes, without the
    kind's checks (nor the hint kept: the case keeps it)."""
    out = ffi.new("dnnl_primitive_desc_t *")
    handles = [argument.handle if isinstance(argument, dnnl.MemoryDesc) else argument for argument in arguments]
    status = function(out, engine.handle, *handles, hint.handle, ffi.NULL)
    assert status == 0, status
    return dnnl.PrimitiveDesc.from_handle(out[0], owned=True, engine=engine)


def _convolution_like(kind: str, data: bool, bias_gaps: str = "", case: Mapping | None = None,
                      seed: int | None = None, bias: bool = True) -> Callable[[dnnl.Engine], Case]:
    """A backward data or weights case over ``case`` (a geometry, the kind's fixed one by default),
    its inputs drawn from ``seed``; ``bias``: the weights' with diff_bias. ``bias_gaps``: the weights'
    diff_bias with a gap after each element, its descriptor made by the kind ("kind", which refuses
    it) or the C function ("raw")."""
    forward, data_kind, weights_kind, data_gradient, weights_gradient, fixed = _KINDS[kind]
    case = fixed if case is None else case
    src_, weights_, dst_ = src_shape(case), weights_shape(case), dst_shape(case, kind)
    geometry = (case["strides"], case["padding_l"], case["padding_r"])
    dilates = {"dilates": case["dilates"]}

    def make(engine: dnnl.Engine) -> Case:
        rng = np.random.default_rng((11 if data else 12) if seed is None else seed)
        src, weights, diff_dst = halves(rng, src_), halves(rng, weights_), halves(rng, dst_)
        bias_desc = plain((dst_[1],)) if bias else None
        hint = forward(engine, plain(src_), plain(weights_), plain(dst_), *geometry, bias_desc=bias_desc,
                       prop_kind=TRAINING, **dilates)
        if data:
            desc = data_kind(engine, plain(src_), plain(weights_), plain(dst_), *geometry, hint, **dilates)
            return Case(desc, {dnnl.ARG_DIFF_DST: diff_dst, dnnl.ARG_WEIGHTS: weights},
                        {dnnl.ARG_DIFF_SRC: _f32(data_gradient(diff_dst, weights, src_, *params(case)))})
        if bias_gaps == "raw":
            algorithm = dnnl.AlgKind.CONVOLUTION_DIRECT if kind == "convolution" else dnnl.AlgKind.DECONVOLUTION_DIRECT
            dims = [ffi.new("dnnl_dims_t", list(values)) for values in (geometry[0], case["dilates"], *geometry[1:])]
            desc = _raw(engine, hint, getattr(lib, f"dnnl_{kind}_backward_weights_primitive_desc_create"),
                        int(algorithm), plain(src_), plain(weights_), _strided(dst_[1]), plain(dst_), *dims)
        else:
            desc = weights_kind(engine, plain(src_), plain(weights_), plain(dst_), *geometry, hint,
                                diff_bias_desc=_strided(dst_[1]) if bias_gaps else bias_desc, **dilates)
        return Case(desc, {dnnl.ARG_SRC: src, dnnl.ARG_DIFF_DST: diff_dst},
                    {dnnl.ARG_DIFF_WEIGHTS: _f32(weights_gradient(src, diff_dst, weights_, *params(case))),
                     **_bias_gradient(diff_dst, bias)}, keep=hint if bias_gaps else None)

    return make


def _bias_gradient(diff_dst: np.ndarray, bias: bool) -> dict[int, np.ndarray]:
    return {dnnl.ARG_DIFF_BIAS: _f32(bwd.bias_backward(diff_dst))} if bias else {}


FIXED_INNER_PRODUCT = {"n": 3, "c": 4, "o": 5, "spatial": (2, 2)}


def _inner_product(data: bool, bias_gaps: str = "", case: Mapping = FIXED_INNER_PRODUCT, seed: int | None = None,
                   bias: bool = True) -> Callable[[dnnl.Engine], Case]:
    """As ``_convolution_like``, of an inner product (``case``: its n, c, o and spatial)."""
    src_, weights_ = (case["n"], case["c"], *case["spatial"]), (case["o"], case["c"], *case["spatial"])
    dst_ = (case["n"], case["o"])

    def make(engine: dnnl.Engine) -> Case:
        rng = np.random.default_rng((13 if data else 14) if seed is None else seed)
        src, weights, diff_dst = halves(rng, src_), halves(rng, weights_), halves(rng, dst_)
        bias_desc = plain((dst_[1],)) if bias else None
        hint = dnnl.InnerProductForwardDesc(engine, plain(src_), plain(weights_), plain(dst_), bias_desc=bias_desc,
                                            prop_kind=TRAINING)
        if data:
            desc = dnnl.InnerProductBackwardDataDesc(engine, plain(src_), plain(weights_), plain(dst_), hint)
            return Case(desc, {dnnl.ARG_DIFF_DST: diff_dst, dnnl.ARG_WEIGHTS: weights},
                        {dnnl.ARG_DIFF_SRC: _f32(bwd.inner_product_backward_data(diff_dst, weights))})
        if bias_gaps == "raw":
            desc = _raw(engine, hint, lib.dnnl_inner_product_backward_weights_primitive_desc_create, plain(src_),
                        plain(weights_), _strided(dst_[1]), plain(dst_))
        else:
            desc = dnnl.InnerProductBackwardWeightsDesc(engine, plain(src_), plain(weights_), plain(dst_), hint,
                                                        diff_bias_desc=_strided(dst_[1]) if bias_gaps else bias_desc)
        return Case(desc, {dnnl.ARG_SRC: src, dnnl.ARG_DIFF_DST: diff_dst},
                    {dnnl.ARG_DIFF_WEIGHTS: _f32(bwd.inner_product_backward_weights(src, diff_dst)),
                     **_bias_gradient(diff_dst, bias)}, keep=hint if bias_gaps else None)

    return make


# name: (kind, backward data) over the fixed geometries.
KINDS = {
    "convolution-backward-data": ("convolution", True),
    "convolution-backward-weights+bias": ("convolution", False),
    "deconvolution-backward-data": ("deconvolution", True),
    "deconvolution-backward-weights+bias": ("deconvolution", False),
    "inner-product-backward-data": ("inner product", True),
    "inner-product-backward-weights+bias": ("inner product", False),
}


def backward_case(name: str, seed: int | None = None) -> Callable[[dnnl.Engine], Case]:
    """The case ``name`` (of ``KINDS``) over its fixed geometry, its inputs drawn from ``seed``."""
    kind, data = KINDS[name]
    if kind == "inner product":
        return _inner_product(data, seed=seed)
    return _convolution_like(kind, data, seed=seed)


BACKWARD_CASES: dict[str, Callable[[dnnl.Engine], Case]] = {name: backward_case(name) for name in KINDS}
SEEDS = st.integers(0, 2**16)
# Inner products of the CPU tests' reference check (test_the_inner_product_references_are_the_gradients).
INNER_PRODUCTS = st.fixed_dictionaries({"n": st.integers(1, 3), "c": st.integers(1, 4), "o": st.integers(1, 4),
                                        "spatial": st.sampled_from([(), (3,), (2, 2)])})


@st.composite
def drawn_cases(draw: st.DrawFn) -> tuple[str, Callable[[dnnl.Engine], Case]]:
    """A backward kind (data or weights, with diff_bias or without) over a drawn geometry: the CPU
    tests' (strides, asymmetric padding, dilation, groups, 1 to 3 spatial dimensions), inputs from a
    drawn seed. Returns a description (for the failure message) and the case."""
    kind = draw(st.sampled_from(["convolution", "deconvolution", "inner product"]))
    data, bias, seed = draw(st.booleans()), draw(st.booleans()), draw(SEEDS)
    case = draw(INNER_PRODUCTS if kind == "inner product" else geometries(kind))
    what = f"{kind} backward {'data' if data else 'weights' + ('+bias' if bias else '')} of {case}, seed {seed}"
    if kind == "inner product":
        return what, _inner_product(data, case=case, seed=seed, bias=bias)
    return what, _convolution_like(kind, data, case=case, seed=seed, bias=bias)
# The backward weights kinds with a diff_bias that has a gap after each element (which oneDNN
# 3.13 writes packed): by mode, "kind" (refused) or "raw" (made through the C function).
BIAS_WITH_GAPS_CASES: dict[str, Callable[[str], Callable[[dnnl.Engine], Case]]] = {
    "convolution": lambda mode: _convolution_like("convolution", data=False, bias_gaps=mode),
    "deconvolution": lambda mode: _convolution_like("deconvolution", data=False, bias_gaps=mode),
    "inner-product": lambda mode: _inner_product(data=False, bias_gaps=mode),
}
