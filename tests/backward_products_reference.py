"""numpy references of the backward passes of convolution, deconvolution and inner product.

Each function is the vector-Jacobian product of the forward reference in
``onednn_reference`` (float64): given ``diff_dst``, the gradient of
``sum(forward(...) * diff_dst)`` with respect to one input. The CPU tests
confirm each against finite differences of that forward (``gradients``) and
then compare oneDNN with it; the GPU test modules import it too (a module of
its own, not a conftest, so that both can).

Shapes follow oneDNN: src (N, C, *S); weights (O, C, *K), or grouped
(G, O/G, C/G, *K); dilates count the elements skipped (0 means none).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence

import numpy as np

import onednn_reference as ref


def _grouped_weights(weights: np.ndarray, spatial: int) -> np.ndarray:
    """Weights as (G, O/G, C/G, *K) in float64 (G = 1 when not grouped)."""
    w = np.asarray(weights, np.float64)
    return w if w.ndim == spatial + 3 else w[None]


def _windows(kernel: Sequence[int], strides: Sequence[int], dilates: Sequence[int],
             counts: Sequence[int]) -> Iterator[tuple[tuple[int, ...], tuple[slice, ...]]]:
    """Each kernel position, with the elements of the padded (or, for a deconvolution, the
    uncropped) spatial grid it meets at the ``counts`` output (or input) positions."""
    for position in itertools.product(*[range(k) for k in kernel]):
        window = tuple(slice(p * (d + 1), p * (d + 1) + s * (n - 1) + 1, s)
                       for p, d, s, n in zip(position, dilates, strides, counts, strict=True))
        yield position, window


def _all(count: int) -> tuple[slice, ...]:
    return (slice(None),) * count


# --- convolution -----------------------------------------------------------------------


def convolution_backward_data(diff_dst: np.ndarray, weights: np.ndarray, src_shape: Sequence[int],
                              strides: Sequence[int], dilates: Sequence[int], padding_l: Sequence[int],
                              padding_r: Sequence[int]) -> np.ndarray:
    """diff_src of ``ref.convolution``: each diff_dst element spread back over the window it was computed from."""
    n, channels, *spatial = src_shape
    w = _grouped_weights(weights, len(spatial))
    groups, og, cg, *kernel = w.shape
    dd = np.asarray(diff_dst, np.float64).reshape(n, groups, og, *diff_dst.shape[2:])
    padded = np.zeros((n, groups, cg, *[s + left + right for s, left, right in zip(spatial, padding_l, padding_r,
                                                                                  strict=True)]))
    for position, window in _windows(kernel, strides, dilates, diff_dst.shape[2:]):
        padded[(*_all(3), *window)] += np.einsum("ngo...,goc->ngc...", dd, w[(*_all(3), *position)])
    inside = tuple(slice(left, left + s) for left, s in zip(padding_l, spatial, strict=True))
    return padded[(*_all(3), *inside)].reshape(n, channels, *spatial)


def convolution_backward_weights(src: np.ndarray, diff_dst: np.ndarray, weights_shape: Sequence[int],
                                 strides: Sequence[int], dilates: Sequence[int], padding_l: Sequence[int],
                                 padding_r: Sequence[int]) -> np.ndarray:
    """diff_weights of ``ref.convolution``: each weight's products of src and diff_dst, summed over batch
    and positions."""
    src = np.asarray(src, np.float64)
    n, spatial = src.shape[0], src.shape[2:]
    grouped = len(weights_shape) == src.ndim + 1
    groups, og, cg, *kernel = weights_shape if grouped else (1, *weights_shape)
    padded = np.pad(src, [(0, 0), (0, 0), *zip(padding_l, padding_r, strict=True)])
    padded = padded.reshape(n, groups, cg, *padded.shape[2:])
    dd = np.asarray(diff_dst, np.float64).reshape(n, groups, og, *diff_dst.shape[2:])
    diff_weights = np.zeros((groups, og, cg, *kernel))
    letters = "xyz"[: len(spatial)]
    for position, window in _windows(kernel, strides, dilates, diff_dst.shape[2:]):
        patch = padded[(*_all(3), *window)]
        diff_weights[(*_all(3), *position)] = np.einsum(f"ngc{letters},ngo{letters}->goc", patch, dd)
    return diff_weights.reshape(tuple(weights_shape))


def bias_backward(diff_dst: np.ndarray) -> np.ndarray:
    """diff_bias of a convolution, deconvolution or inner product: diff_dst summed over all but channels."""
    dd = np.asarray(diff_dst, np.float64)
    return dd.sum(axis=tuple(axis for axis in range(dd.ndim) if axis != 1))


# --- deconvolution ----------------------------------------------------------------------


def deconvolution_backward_data(diff_dst: np.ndarray, weights: np.ndarray, src_shape: Sequence[int],
                                strides: Sequence[int], dilates: Sequence[int], padding_l: Sequence[int],
                                padding_r: Sequence[int]) -> np.ndarray:
    """diff_src of ``ref.deconvolution``: what each src element was spread over, gathered back from diff_dst."""
    n, channels, *spatial = src_shape
    w = _grouped_weights(weights, len(spatial))
    groups, og, cg, *kernel = w.shape
    # diff_dst in the deconvolution's uncropped grid: zeros where the forward cropped its result.
    full = np.pad(np.asarray(diff_dst, np.float64), [(0, 0), (0, 0), *zip(padding_l, padding_r, strict=True)])
    full = full.reshape(n, groups, og, *full.shape[2:])
    diff_src = np.zeros((n, groups, cg, *spatial))
    for position, window in _windows(kernel, strides, dilates, spatial):
        diff_src += np.einsum("ngo...,goc->ngc...", full[(*_all(3), *window)], w[(*_all(3), *position)])
    return diff_src.reshape(n, channels, *spatial)


def deconvolution_backward_weights(src: np.ndarray, diff_dst: np.ndarray, weights_shape: Sequence[int],
                                   strides: Sequence[int], dilates: Sequence[int], padding_l: Sequence[int],
                                   padding_r: Sequence[int]) -> np.ndarray:
    """diff_weights of ``ref.deconvolution``."""
    src = np.asarray(src, np.float64)
    n, spatial = src.shape[0], src.shape[2:]
    grouped = len(weights_shape) == src.ndim + 1
    groups, og, cg, *kernel = weights_shape if grouped else (1, *weights_shape)
    full = np.pad(np.asarray(diff_dst, np.float64), [(0, 0), (0, 0), *zip(padding_l, padding_r, strict=True)])
    full = full.reshape(n, groups, og, *full.shape[2:])
    grouped_src = src.reshape(n, groups, cg, *spatial)
    diff_weights = np.zeros((groups, og, cg, *kernel))
    letters = "xyz"[: len(spatial)]
    for position, window in _windows(kernel, strides, dilates, spatial):
        diff_weights[(*_all(3), *position)] = np.einsum(
            f"ngo{letters},ngc{letters}->goc", full[(*_all(3), *window)], grouped_src)
    return diff_weights.reshape(tuple(weights_shape))


# --- inner product ----------------------------------------------------------------------


def inner_product(src: np.ndarray, weights: np.ndarray, bias: np.ndarray | None = None) -> np.ndarray:
    """The forward: dst (N, O) = src (N, C, *S) flattened × weights (O, C, *S) flattened, transposed."""
    src64, w64 = np.asarray(src, np.float64), np.asarray(weights, np.float64)
    out = src64.reshape(src64.shape[0], -1) @ w64.reshape(w64.shape[0], -1).T
    return out if bias is None else out + np.asarray(bias, np.float64)


def inner_product_backward_data(diff_dst: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """diff_src (N, C, *S) = diff_dst (N, O) × weights (O, C, *S)."""
    w64 = np.asarray(weights, np.float64)
    dd = np.asarray(diff_dst, np.float64)
    return (dd @ w64.reshape(w64.shape[0], -1)).reshape(dd.shape[0], *w64.shape[1:])


def inner_product_backward_weights(src: np.ndarray, diff_dst: np.ndarray) -> np.ndarray:
    """diff_weights (O, C, *S) = diff_dst (N, O) transposed × src (N, C, *S)."""
    src64 = np.asarray(src, np.float64)
    dd = np.asarray(diff_dst, np.float64)
    return (dd.T @ src64.reshape(src64.shape[0], -1)).reshape(dd.shape[1], *src64.shape[1:])


# --- the forward passes these are gradients of, one input varying ------------------------


def forward_of(kind: str, wrt: str, src: np.ndarray, weights: np.ndarray, params: Sequence[Sequence[int]]):
    """The forward of ``kind`` ("convolution", "deconvolution", "inner product") as a function of ``wrt``
    ("src", "weights" or "bias") alone, the other inputs fixed: what finite differences differentiate.
    ``params``: strides, dilates, padding_l, padding_r (ignored for an inner product)."""
    if kind == "inner product":
        forwards = {"src": lambda x: inner_product(x, weights), "weights": lambda x: inner_product(src, x),
                    "bias": lambda x: inner_product(src, weights, x)}
        return forwards[wrt]
    function = ref.convolution if kind == "convolution" else ref.deconvolution
    forwards = {"src": lambda x: function(x, weights, None, *params),
                "weights": lambda x: function(src, x, None, *params),
                "bias": lambda x: function(src, weights, x, *params)}
    return forwards[wrt]


# --- geometries the tests share ---------------------------------------------------------

# A geometry with every complication at once: stride 2, asymmetric padding, dilation, two groups.
FIXED = {"n": 2, "groups": 2, "c": 2, "o": 3, "kernel": [3, 2], "strides": [2, 1], "dilates": [1, 0],
         "padding_l": [1, 0], "padding_r": [2, 1], "sizes": [7, 4]}
FIXED_DECONVOLUTION = {**FIXED, "padding_l": [1, 0], "padding_r": [0, 1], "sizes": [3, 4]}


def weights_shape(case: Mapping) -> tuple[int, ...]:
    o, c, kernel = case["o"], case["c"], tuple(case["kernel"])
    return (o, c, *kernel) if case["groups"] == 1 else (case["groups"], o, c, *kernel)


def params(case: Mapping) -> list[list[int]]:
    """strides, dilates, padding_l, padding_r: the references' order."""
    return [case["strides"], case["dilates"], case["padding_l"], case["padding_r"]]


def src_shape(case: Mapping) -> tuple[int, ...]:
    return (case["n"], case["groups"] * case["c"], *case["sizes"])


def dst_shape(case: Mapping, kind: str) -> tuple[int, ...]:
    spatial = []
    for size, k, s, d, left, right in zip(case["sizes"], case["kernel"], *params(case), strict=True):
        extent = (k - 1) * (d + 1) + 1
        spatial.append(ref.output_size(size, k, s, d, left, right) if kind == "convolution"
                       else (size - 1) * s + extent - left - right)
    return (case["n"], case["groups"] * case["o"], *spatial)
