"""Finite differences: the check that a numpy reference of a backward pass is the gradient.

A backward primitive computes a vector-Jacobian product: given ``diff_dst``
(the gradient of some loss with respect to the forward's output), the
gradient of ``sum(forward(x) * diff_dst)`` with respect to an input ``x``.
The tests compare oneDNN with numpy references of those products, and
confirm each reference here against central differences of the numpy forward,
in float64 (where the differences are exact to far below the 1e-3 asked of
an f32 gradient).

Functions with kinks (ReLU at 0, max pooling between equal values) have no
derivative there: the tests draw inputs away from them.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Forward = Callable[[np.ndarray], np.ndarray]


def numerical_gradient(forward: Forward, x: np.ndarray, diff_dst: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """d/dx of ``sum(forward(x) * diff_dst)`` by central differences, in float64."""
    point = np.array(x, dtype=np.float64)
    weights = np.asarray(diff_dst, dtype=np.float64)
    gradient = np.empty_like(point)
    for index in np.ndindex(point.shape):
        kept = point[index]
        point[index] = kept + eps
        above = float(np.sum(forward(point) * weights))
        point[index] = kept - eps
        below = float(np.sum(forward(point) * weights))
        point[index] = kept
        gradient[index] = (above - below) / (2 * eps)
    return gradient


def relative_error(found: np.ndarray, expected: np.ndarray) -> float:
    """The largest difference, relative to the largest magnitude expected (1 when that is 0)."""
    found64, expected64 = np.asarray(found, np.float64), np.asarray(expected, np.float64)
    if found64.shape != expected64.shape:
        raise AssertionError(f"shapes differ: {found64.shape} and {expected64.shape}")
    if not expected64.size:
        return 0.0
    scale = max(float(np.max(np.abs(expected64))), 1.0)
    return float(np.max(np.abs(found64 - expected64))) / scale


def assert_is_gradient(
    reference: np.ndarray, forward: Forward, x: np.ndarray, diff_dst: np.ndarray, tolerance: float = 1e-3
) -> None:
    """``reference`` (a numpy backward pass at ``x``) equals the finite-difference gradient."""
    error = relative_error(reference, numerical_gradient(forward, x, diff_dst))
    assert error <= tolerance, f"the reference is not the gradient: relative error {error:.3g} > {tolerance}"
