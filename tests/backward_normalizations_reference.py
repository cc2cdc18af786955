"""numpy references of the backward passes of pooling, LRN and the normalizations,
in float64, each the vector-Jacobian product of the forward in ``onednn_reference``
(``tests/test_backward_normalizations.py`` confirms every one with ``gradients``).

Each takes the forward's inputs and ``diff_dst`` (the gradient of the loss with
respect to the forward's output) and returns the gradients oneDNN computes.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np

import onednn_reference as ref


def _windows(spatial: Sequence[int], kernel: Sequence[int], strides: Sequence[int], dilation: Sequence[int],
             out_sizes: Sequence[int]) -> list[tuple[slice, ...]]:
    """For each kernel position, the slice of the padded source its outputs read."""
    return [
        (slice(None), slice(None), *(slice(p * (d + 1), p * (d + 1) + s * (o - 1) + 1, s)
                                     for p, d, s, o in zip(position, dilation, strides, out_sizes, strict=True)))
        for position in itertools.product(*[range(k) for k in kernel])
    ]


def pooling_backward(src: np.ndarray, diff_dst: np.ndarray, algorithm: str, strides: Sequence[int],
                     kernel: Sequence[int], padding_l: Sequence[int], padding_r: Sequence[int],
                     dilation: Sequence[int] | None = None) -> np.ndarray:
    """diff_src of ``ref.pooling``: max pooling sends each output's gradient to the source
    element that was the window's maximum (the first, in window order, of equal ones);
    average pooling spreads it evenly over the window's divisor."""
    src, diff_dst = np.asarray(src, np.float64), np.asarray(diff_dst, np.float64)
    dilation = [0] * len(kernel) if dilation is None else dilation
    out_sizes = diff_dst.shape[2:]
    pads = [(0, 0), (0, 0), *zip(padding_l, padding_r, strict=True)]
    windows = _windows(src.shape[2:], kernel, strides, dilation, out_sizes)
    diff_padded = np.zeros(np.pad(src, pads).shape)
    if algorithm == "MAX":
        padded = np.pad(src, pads, constant_values=-np.inf)
        chosen = np.argmax(np.stack([padded[window] for window in windows]), axis=0)
        for position, window in enumerate(windows):
            diff_padded[window] += np.where(chosen == position, diff_dst, 0.0)
    else:
        inside = np.pad(np.ones(src.shape), pads)
        divisor = math.prod(kernel) if algorithm == "AVG_INCLUDE_PADDING" else \
            np.sum([inside[window] for window in windows], axis=0)
        for window in windows:
            diff_padded[window] += diff_dst / divisor
    crop = tuple(slice(left, size - right) for left, right, size in zip(padding_l, padding_r,
                                                                         diff_padded.shape[2:], strict=True))
    return diff_padded[(slice(None), slice(None), *crop)]


def _window_sum(values: np.ndarray, algorithm: str, size: int) -> tuple[np.ndarray, int]:
    """LRN's sum over each element's window (of odd ``size``), and how many elements a window has."""
    half = (size - 1) // 2
    total = np.zeros_like(values)
    if algorithm == "ACROSS_CHANNELS":
        channels = values.shape[1]
        for c in range(channels):
            total[:, c] = values[:, max(c - half, 0):min(c + half + 1, channels)].sum(axis=1)
        return total, size
    spatial = values.shape[2:]
    padded = np.pad(values, [(0, 0), (0, 0), *[(half, half)] * len(spatial)])
    for offset in itertools.product(*[range(2 * half + 1)] * len(spatial)):
        total += padded[(slice(None), slice(None), *(slice(o, o + s) for o, s in zip(offset, spatial, strict=True)))]
    return total, size ** len(spatial)


def lrn_backward(src: np.ndarray, diff_dst: np.ndarray, algorithm: str, size: int, alpha: float, beta: float,
                 k: float) -> np.ndarray:
    """diff_src of ``ref.lrn`` (dst = src * base**-beta, base = k + alpha / n * window sum of src**2).
    A window is symmetric, so the elements whose windows hold x are those of x's window."""
    src, diff_dst = np.asarray(src, np.float64), np.asarray(diff_dst, np.float64)
    squares, summands = _window_sum(src * src, algorithm, size)
    base = k + alpha / summands * squares
    spread, _ = _window_sum(diff_dst * src * base ** (-beta - 1), algorithm, size)
    return diff_dst * base ** -beta - 2 * alpha * beta / summands * src * spread


def normalization_backward(src: np.ndarray, diff_dst: np.ndarray, axes: tuple[int, ...], eps: float,
                           scale: np.ndarray | None = None, global_stats: bool = False,
                           mean: np.ndarray | None = None, variance: np.ndarray | None = None,
                           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(diff_src, diff_dst * normalized, diff_dst)`` of ``scale * normalize(src over axes) + shift``
    (``scale`` broadcast over src, 1 if None): the last two summed over the axes a scale and shift
    are shared along give their gradients. ``global_stats``: mean and variance are inputs (given),
    not statistics of src, and the normalization is an affine map of src."""
    src, diff_dst = np.asarray(src, np.float64), np.asarray(diff_dst, np.float64)
    normalized, mean, variance = ref.normalize(src, axes, eps, mean, variance)
    inverse = 1 / np.sqrt(variance + eps)
    diff_normalized = diff_dst * (1.0 if scale is None else np.asarray(scale, np.float64))
    if global_stats:
        diff_src = diff_normalized * inverse
    else:
        diff_src = inverse * (diff_normalized - diff_normalized.mean(axis=axes, keepdims=True)
                              - normalized * (diff_normalized * normalized).mean(axis=axes, keepdims=True))
    return diff_src, diff_dst * normalized, diff_dst


def batch_normalization_backward(src: np.ndarray, diff_dst: np.ndarray, eps: float, scale: np.ndarray | None = None,
                                 global_stats: bool = False, mean: np.ndarray | None = None,
                                 variance: np.ndarray | None = None, relu_dst: np.ndarray | None = None,
                                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(diff_src, diff_scale, diff_shift)`` over (batch, channels, spatial...) src, statistics per
    channel; ``relu_dst``: the forward's output with a fused ReLU, whose gradient passes only where
    it is positive. ``mean``/``variance``: per channel, with ``global_stats``."""
    src = np.asarray(src, np.float64)
    axes = (0, *range(2, src.ndim))
    per_channel = (1, -1, *[1] * (src.ndim - 2))
    if relu_dst is not None:
        diff_dst = np.where(np.asarray(relu_dst) > 0, diff_dst, 0.0)
    diff_src, diff_scale, diff_shift = normalization_backward(
        src, diff_dst, axes, eps, None if scale is None else np.reshape(scale, per_channel), global_stats,
        None if mean is None else np.reshape(mean, per_channel),
        None if variance is None else np.reshape(variance, per_channel))
    return diff_src, diff_scale.sum(axis=axes), diff_shift.sum(axis=axes)


def batch_normalization(src: np.ndarray, eps: float, scale: np.ndarray | None = None,
                        shift: np.ndarray | None = None, mean: np.ndarray | None = None,
                        variance: np.ndarray | None = None, relu: bool = False) -> np.ndarray:
    """The forward, for finite differences: statistics of src unless given."""
    src = np.asarray(src, np.float64)
    per_channel = (1, -1, *[1] * (src.ndim - 2))
    normalized, _, _ = ref.normalize(src, (0, *range(2, src.ndim)), eps,
                                     None if mean is None else np.reshape(mean, per_channel),
                                     None if variance is None else np.reshape(variance, per_channel))
    out = normalized * (1.0 if scale is None else np.reshape(scale, per_channel)) \
        + (0.0 if shift is None else np.reshape(shift, per_channel))
    return np.maximum(out, 0.0) if relu else out


def layer_normalization(src: np.ndarray, eps: float, scale: np.ndarray | None = None,
                        shift: np.ndarray | None = None) -> np.ndarray:
    normalized, _, _ = ref.normalize(np.asarray(src, np.float64), (-1,), eps)
    return normalized * (1.0 if scale is None else scale) + (0.0 if shift is None else shift)


def layer_normalization_backward(src: np.ndarray, diff_dst: np.ndarray, eps: float,
                                 scale: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(diff_src, diff_scale, diff_shift)``: statistics over the last dimension, scale and
    shift along it."""
    diff_src, diff_scale, diff_shift = normalization_backward(src, diff_dst, (-1,), eps, scale)
    shared = tuple(range(np.ndim(src) - 1))
    return diff_src, diff_scale.sum(axis=shared), diff_shift.sum(axis=shared)


def _grouped(src: np.ndarray, groups: int) -> np.ndarray:
    n = src.shape[0]
    return np.asarray(src, np.float64).reshape(n, groups, -1)


def group_normalization(src: np.ndarray, groups: int, eps: float, scale: np.ndarray | None = None,
                        shift: np.ndarray | None = None) -> np.ndarray:
    per_channel = (1, -1, *[1] * (np.ndim(src) - 2))
    normalized, _, _ = ref.normalize(_grouped(src, groups), (2,), eps)
    out = normalized.reshape(np.shape(src))
    return out * (1.0 if scale is None else np.reshape(scale, per_channel)) \
        + (0.0 if shift is None else np.reshape(shift, per_channel))


def group_normalization_backward(src: np.ndarray, diff_dst: np.ndarray, groups: int, eps: float,
                                 scale: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(diff_src, diff_scale, diff_shift)``: statistics over each group of channels (with the
    spatial dimensions), scale and shift per channel."""
    shape = np.shape(src)
    per_channel = (1, -1, *[1] * (len(shape) - 2))
    diff_normalized = np.asarray(diff_dst, np.float64) * (1.0 if scale is None else np.reshape(scale, per_channel))
    diff_src, _, _ = normalization_backward(_grouped(src, groups), _grouped(diff_normalized, groups), (2,), eps)
    normalized, _, _ = ref.normalize(_grouped(src, groups), (2,), eps)
    shared = (0, *range(2, len(shape)))
    diff_scale = (np.asarray(diff_dst, np.float64) * normalized.reshape(shape)).sum(axis=shared)
    return diff_src.reshape(shape), diff_scale, np.asarray(diff_dst, np.float64).sum(axis=shared)
