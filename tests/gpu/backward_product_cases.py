"""The backward kinds of convolution, deconvolution and inner product with their inputs and
numpy's gradients, for the GPU test modules of both runtimes.

A module of its own (not conftest) so that the OpenCL and Level Zero modules
can import it. The gradients are the CPU tests' references
(``backward_products_reference``, confirmed there by finite differences),
over the same geometries: stride 2, asymmetric padding, dilation and two groups
at once. Inputs are multiples of 0.5 in [-4, 4] (``halves``): every product and
sum is exact in f32, so oneDNN must give numpy's gradients exactly. Each case
makes its forward descriptor (for training) as the hint and lets the backward
one keep it: the hint is never held by the case itself.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import backward_products_reference as bwd  # tests/ is on the path, as for onednn_reference
import dnnl_interop as dnnl
from backward_products_reference import FIXED, FIXED_DECONVOLUTION, dst_shape, params, src_shape, weights_shape
from dnnl_interop._ffi import ffi, lib

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


def _convolution_like(kind: str, data: bool, bias_gaps: str = "") -> Callable[[dnnl.Engine], Case]:
    """A backward data or weights case. ``bias_gaps``: the weights' diff_bias with a gap after each
    element, its descriptor made by the kind ("kind", which refuses it) or the C function ("raw")."""
    forward, data_kind, weights_kind, data_gradient, weights_gradient, case = _KINDS[kind]
    src_, weights_, dst_ = src_shape(case), weights_shape(case), dst_shape(case, kind)
    geometry = (case["strides"], case["padding_l"], case["padding_r"])
    dilates = {"dilates": case["dilates"]}

    def make(engine: dnnl.Engine) -> Case:
        rng = np.random.default_rng(11 if data else 12)
        src, weights, diff_dst = halves(rng, src_), halves(rng, weights_), halves(rng, dst_)
        bias = plain((dst_[1],))
        hint = forward(engine, plain(src_), plain(weights_), plain(dst_), *geometry, bias_desc=bias,
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
                                diff_bias_desc=_strided(dst_[1]) if bias_gaps else bias, **dilates)
        return Case(desc, {dnnl.ARG_SRC: src, dnnl.ARG_DIFF_DST: diff_dst},
                    {dnnl.ARG_DIFF_WEIGHTS: _f32(weights_gradient(src, diff_dst, weights_, *params(case))),
                     dnnl.ARG_DIFF_BIAS: _f32(bwd.bias_backward(diff_dst))}, keep=hint if bias_gaps else None)

    return make


def _inner_product(data: bool, bias_gaps: str = "") -> Callable[[dnnl.Engine], Case]:
    """As ``_convolution_like``, of an inner product."""
    src_, weights_, dst_ = (3, 4, 2, 2), (5, 4, 2, 2), (3, 5)

    def make(engine: dnnl.Engine) -> Case:
        rng = np.random.default_rng(13 if data else 14)
        src, weights, diff_dst = halves(rng, src_), halves(rng, weights_), halves(rng, dst_)
        bias = plain((dst_[1],))
        hint = dnnl.InnerProductForwardDesc(engine, plain(src_), plain(weights_), plain(dst_), bias_desc=bias,
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
                                                        diff_bias_desc=_strided(dst_[1]) if bias_gaps else bias)
        return Case(desc, {dnnl.ARG_SRC: src, dnnl.ARG_DIFF_DST: diff_dst},
                    {dnnl.ARG_DIFF_WEIGHTS: _f32(bwd.inner_product_backward_weights(src, diff_dst)),
                     dnnl.ARG_DIFF_BIAS: _f32(bwd.bias_backward(diff_dst))}, keep=hint if bias_gaps else None)

    return make


BACKWARD_CASES: dict[str, Callable[[dnnl.Engine], Case]] = {
    "convolution-backward-data": _convolution_like("convolution", data=True),
    "convolution-backward-weights+bias": _convolution_like("convolution", data=False),
    "deconvolution-backward-data": _convolution_like("deconvolution", data=True),
    "deconvolution-backward-weights+bias": _convolution_like("deconvolution", data=False),
    "inner-product-backward-data": _inner_product(data=True),
    "inner-product-backward-weights+bias": _inner_product(data=False),
}
# The backward weights kinds with a diff_bias that has a gap after each element (which oneDNN
# 3.13 writes packed): by mode, "kind" (refused) or "raw" (made through the C function).
BIAS_WITH_GAPS_CASES: dict[str, Callable[[str], Callable[[dnnl.Engine], Case]]] = {
    "convolution": lambda mode: _convolution_like("convolution", data=False, bias_gaps=mode),
    "deconvolution": lambda mode: _convolution_like("deconvolution", data=False, bias_gaps=mode),
    "inner-product": lambda mode: _inner_product(data=False, bias_gaps=mode),
}
