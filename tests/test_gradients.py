"""The finite-difference check itself: it accepts a gradient and rejects what is not one."""

from __future__ import annotations

import numpy as np
import pytest

from gradients import assert_is_gradient, numerical_gradient, relative_error


def test_the_gradient_of_a_weighted_square_is_twice_x_times_the_weights():
    x = np.array([[1.0, -2.0], [0.5, 3.0]])
    diff_dst = np.array([[1.0, 2.0], [-1.0, 0.5]])
    assert relative_error(numerical_gradient(np.square, x, diff_dst), 2 * x * diff_dst) < 1e-8
    assert_is_gradient(2 * x * diff_dst, np.square, x, diff_dst)


def test_a_wrong_reference_is_rejected():
    x = np.linspace(-1.0, 1.0, 6).reshape(2, 3) + 0.05
    diff_dst = np.ones_like(x)
    with pytest.raises(AssertionError, match="not the gradient"):
        assert_is_gradient(x * diff_dst, np.square, x, diff_dst)  # off by a factor of 2


def test_relative_error_refuses_arrays_of_different_shapes():
    with pytest.raises(AssertionError, match="shapes differ"):
        relative_error(np.zeros(3), np.zeros((3, 1)))
