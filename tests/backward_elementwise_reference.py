"""numpy references of the backward passes of eltwise, softmax, PReLU, shuffle and resampling,
and how the tests run those kinds through oneDNN (``Runner``), on the CPU engine and the GPU's.

Each function takes what oneDNN's backward primitive reads (the forward's
source or destination, ``diff_dst``) and returns what it writes, in float64.
The forwards are ``onednn_reference``'s (resampling's written again here as
the linear map whose transpose is its backward pass). ``tests/test_backward_elementwise.py``
confirms every reference against finite differences of its forward
(``gradients.assert_is_gradient``), on the CPU, and the GPU tests use the same
functions.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack

import numpy as np

import dnnl_interop as dnnl
import onednn_reference as ref

_SQRT_2_PI = math.sqrt(2 / math.pi)
_SQRT_2PI = math.sqrt(2 * math.pi)


def _logistic(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1 + np.tanh(x / 2))


def _gelu_tanh_derivative(x: np.ndarray) -> np.ndarray:
    inner = _SQRT_2_PI * (x + 0.044715 * x**3)
    t = np.tanh(inner)
    return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * _SQRT_2_PI * (1 + 3 * 0.044715 * x * x)


def _mish_derivative(x: np.ndarray) -> np.ndarray:
    soft = np.logaddexp(0.0, x)
    t = np.tanh(soft)
    return t + x * (1 - t * t) * _logistic(x)


# The derivative f'(x, alpha, beta) of each forward eltwise algorithm (named as AlgKind.ELTWISE_<name>).
_DERIVATIVE: dict[str, Callable[[np.ndarray, float, float], np.ndarray]] = {
    "RELU": lambda x, a, b: np.where(x > 0, 1.0, a),
    "TANH": lambda x, a, b: 1 - np.tanh(x) ** 2,
    "ELU": lambda x, a, b: np.where(x > 0, 1.0, a * np.exp(x)),
    "SQUARE": lambda x, a, b: 2 * x,
    "ABS": lambda x, a, b: np.sign(x),
    "SQRT": lambda x, a, b: 0.5 / np.sqrt(x),
    "LINEAR": lambda x, a, b: np.full_like(x, a),
    "SOFT_RELU": lambda x, a, b: _logistic(a * x),
    "HARDSIGMOID": lambda x, a, b: np.where((a * x + b > 0) & (a * x + b < 1), a, 0.0),
    "LOGISTIC": lambda x, a, b: _logistic(x) * (1 - _logistic(x)),
    "EXP": lambda x, a, b: np.exp(x),
    "GELU_TANH": lambda x, a, b: _gelu_tanh_derivative(x),
    "SWISH": lambda x, a, b: _logistic(a * x) + a * x * _logistic(a * x) * (1 - _logistic(a * x)),
    "LOG": lambda x, a, b: 1 / x,
    "CLIP": lambda x, a, b: np.where((x > a) & (x < b), 1.0, 0.0),
    "CLIP_V2": lambda x, a, b: np.where((x > a) & (x < b), 1.0, 0.0),
    "POW": lambda x, a, b: a * b * x ** (b - 1),
    "GELU_ERF": lambda x, a, b: 0.5 * (1 + ref._erf(x / math.sqrt(2))) + x * np.exp(-x * x / 2) / _SQRT_2PI,
    "MISH": lambda x, a, b: _mish_derivative(x),
    "HARDSWISH": lambda x, a, b: np.where(a * x + b <= 0, 0.0, np.where(a * x + b >= 1, 1.0, 2 * a * x + b)),
}

# The derivative in terms of the forward's result d = f(x), for the AlgKind.ELTWISE_<name>_USE_DST_FOR_BWD
# algorithms (oneDNN takes them with alpha >= 0 for RELU and ELU, where d says on which side x was).
_DERIVATIVE_FROM_DST: dict[str, Callable[[np.ndarray, float, float], np.ndarray]] = {
    "RELU": lambda d, a, b: np.where(d > 0, 1.0, a),
    "TANH": lambda d, a, b: 1 - d * d,
    "ELU": lambda d, a, b: np.where(d > 0, 1.0, d + a),
    "SQRT": lambda d, a, b: 0.5 / d,
    "LOGISTIC": lambda d, a, b: d * (1 - d),
    "EXP": lambda d, a, b: d,
    "CLIP_V2": lambda d, a, b: np.where((d > a) & (d < b), 1.0, 0.0),
}

# Where each function has no derivative (as a function of x, alpha, beta): tests draw x away from them.
KINKS: dict[str, Callable[[float, float], list[float]]] = {
    "RELU": lambda a, b: [0.0],
    "ABS": lambda a, b: [0.0],
    "ELU": lambda a, b: [0.0],
    "HARDSIGMOID": lambda a, b: [-b / a, (1 - b) / a],
    "HARDSWISH": lambda a, b: [-b / a, (1 - b) / a],
    "CLIP": lambda a, b: [a, b],
    "CLIP_V2": lambda a, b: [a, b],
}

FORWARD_NAMES = tuple(_DERIVATIVE)
USE_DST_NAMES = tuple(_DERIVATIVE_FROM_DST)


def eltwise_name(algorithm: str) -> tuple[str, bool]:
    """``"RELU_USE_DST_FOR_BWD"`` -> ``("RELU", True)``: the function and whether the backward reads dst."""
    if algorithm.endswith("_USE_DST_FOR_BWD"):
        return algorithm.removesuffix("_USE_DST_FOR_BWD"), True
    return algorithm, False


def eltwise_forward(algorithm: str, x: np.ndarray, alpha: float, beta: float) -> np.ndarray:
    """The forward of any eltwise algorithm (a ``_USE_DST_FOR_BWD`` one computes its function's)."""
    return ref.eltwise(eltwise_name(algorithm)[0], x, alpha, beta)


def eltwise_backward(algorithm: str, data: np.ndarray, diff_dst: np.ndarray, alpha: float, beta: float) -> np.ndarray:
    """``diff_src = f'(x) × diff_dst``; ``data`` is x, or the forward's dst for ``_USE_DST_FOR_BWD``."""
    name, from_dst = eltwise_name(algorithm)
    derivative = (_DERIVATIVE_FROM_DST if from_dst else _DERIVATIVE)[name]
    return derivative(np.asarray(data, np.float64), alpha, beta) * np.asarray(diff_dst, np.float64)


def softmax_backward(dst: np.ndarray, diff_dst: np.ndarray, axis: int, log: bool) -> np.ndarray:
    """From the forward's ``dst``: softmax ``y (dd - Σ dd y)``, log-softmax ``dd - exp(y) Σ dd``."""
    y, dd = np.asarray(dst, np.float64), np.asarray(diff_dst, np.float64)
    if log:
        return dd - np.exp(y) * dd.sum(axis=axis, keepdims=True)
    return y * (dd - (dd * y).sum(axis=axis, keepdims=True))


def prelu_forward(src: np.ndarray, weights: np.ndarray) -> np.ndarray:
    src = np.asarray(src, np.float64)
    return np.where(src > 0, src, np.asarray(weights, np.float64) * src)


def prelu_backward(src: np.ndarray, weights: np.ndarray, diff_dst: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(diff_src, diff_weights)``: diff_weights sums ``src × diff_dst`` where src ≤ 0 over the
    dimensions where the weights broadcast (their dimensions of 1)."""
    x, w, dd = (np.asarray(a, np.float64) for a in (src, weights, diff_dst))
    diff_src = np.where(x > 0, dd, w * dd)
    per_element = np.where(x > 0, 0.0, x * dd)
    broadcast = tuple(d for d in range(x.ndim) if w.shape[d] == 1 and x.shape[d] != 1)
    return diff_src, per_element.sum(axis=broadcast, keepdims=True).reshape(w.shape)


def shuffle_backward(diff_dst: np.ndarray, axis: int, group_size: int) -> np.ndarray:
    """The inverse permutation of the forward's: a shuffle in groups of size / group_size."""
    return ref.shuffle(np.asarray(diff_dst, np.float64), axis, diff_dst.shape[axis] // group_size)


def _resampling_weights(algorithm: str, size_in: int, size_out: int) -> np.ndarray:
    """The (size_out, size_in) matrix of one spatial axis: oneDNN's half-pixel position of each
    output in the input, ``(o + 0.5) × size_in / size_out - 0.5``. oneDNN 3.13 computes it from
    the shapes whatever ``factors`` a descriptor was made with (measured on the CPU engine)."""
    position = (np.arange(size_out) + 0.5) * size_in / size_out - 0.5
    matrix = np.zeros((size_out, size_in))
    rows = np.arange(size_out)
    if algorithm == "NEAREST":
        np.add.at(matrix, (rows, np.clip(np.floor(position + 0.5), 0, size_in - 1).astype(int)), 1.0)
        return matrix
    left = np.floor(position)
    weight = position - left
    np.add.at(matrix, (rows, np.clip(left, 0, size_in - 1).astype(int)), 1 - weight)
    np.add.at(matrix, (rows, np.clip(left + 1, 0, size_in - 1).astype(int)), weight)
    return matrix


def _along(values: np.ndarray, matrix: np.ndarray, axis: int) -> np.ndarray:
    return np.moveaxis(np.tensordot(matrix, values, axes=([1], [axis])), 0, axis)


def resampling_forward(src: np.ndarray, algorithm: str, dst_spatial: Sequence[int]) -> np.ndarray:
    """Nearest or linear resampling (``"NEAREST"``, ``"LINEAR"``), one spatial axis after the
    other, as a linear map whose transpose is the backward pass."""
    out = np.asarray(src, np.float64)
    for i, size_out in enumerate(dst_spatial):
        out = _along(out, _resampling_weights(algorithm, out.shape[2 + i], size_out), 2 + i)
    return out


def resampling_backward(diff_dst: np.ndarray, algorithm: str, src_spatial: Sequence[int]) -> np.ndarray:
    """The transpose of the forward: each source element gathers the gradients of the
    destination elements it contributed to, with the same weights."""
    out = np.asarray(diff_dst, np.float64)
    for i, size_in in enumerate(src_spatial):
        out = _along(out, _resampling_weights(algorithm, size_in, out.shape[2 + i]).T, 2 + i)
    return out


# --- running the kinds through oneDNN -----------------------------------------------------------

TRAINING = dnnl.PropKind.FORWARD_TRAINING
# x where each derivative is finite and oneDNN's f32 derivative accurate (the forward tests' domains otherwise).
_DOMAIN = {"SQRT": (0.25, 8.0), "LOG": (0.25, 8.0), "POW": (0.25, 4.0)}


def f32(shape: Sequence[int], layout: str = "plain") -> dnnl.MemoryDesc:
    """An f32 descriptor, row-major or "any"."""
    return dnnl.MemoryDesc(tuple(shape), "f32", "any" if layout == "any" else "abcdef"[: len(shape)])


def away_from(x: np.ndarray, kinks: Sequence[float], margin: float = 0.1) -> np.ndarray:
    """``x`` with every value within ``margin`` of a kink moved past it: no finite
    difference, nor oneDNN's f32 rounding, then straddles one."""
    for kink in kinks:
        x = np.where(np.abs(x - kink) < margin, x + 2.5 * margin, x)
    return x


def eltwise_case(algorithm: str, rng: np.random.Generator, shape: Sequence[int]) -> tuple[np.ndarray, float, float]:
    """f32 input values (as float64), alpha and beta for ``algorithm``: the forward tests' domain and
    parameters, x away from the kinks, alpha >= 0 for the use-dst RELU and ELU (as oneDNN asks)."""
    name, from_dst = eltwise_name(algorithm)
    _, (low, high), alpha, beta = ref.ELTWISE[name]
    low, high = _DOMAIN.get(name, (low, high))
    if from_dst:
        alpha = abs(alpha)
    x = away_from(rng.uniform(low, high, tuple(shape)), KINKS.get(name, lambda a, b: [])(alpha, beta))
    return ref.decode(ref.encode(x, "f32"), "f32"), alpha, beta


class Runner:
    """Runs a kind's forward (made for training) and backward over host arrays on ``engine``:
    ``upload(array)`` is what ``Memory.from_array`` takes (the array on the CPU engine, a
    device copy on a GPU). Inputs are brought into the layouts the descriptor chose, outputs
    start as NaN (a primitive that writes nothing cannot pass) and come back row-major."""

    def __init__(self, engine: dnnl.Engine, stream: dnnl.Stream,
                 upload: Callable[[np.ndarray], object] = lambda array: array) -> None:
        self.engine, self.stream, self.upload = engine, stream, upload

    def run(self, pd: dnnl.PrimitiveDesc, inputs: Mapping[int, np.ndarray],
            outputs: Mapping[int, Sequence[int]]) -> dict[int, np.ndarray]:
        engine, stream = self.engine, self.stream
        with ExitStack() as stack:
            keep = stack.enter_context
            memories = {}
            nans = {arg: np.full(tuple(shape), np.nan, np.float32) for arg, shape in outputs.items()}
            for arg, array in {**inputs, **nans}.items():
                host = np.ascontiguousarray(array, np.float32)
                user = keep(dnnl.Memory.from_array(self.upload(host), engine))  # type: ignore[arg-type]
                memory = dnnl.reordered(user, keep(pd.arg_desc(arg)), stream)  # type: ignore[arg-type]
                memories[arg] = memory if memory is user else keep(memory)
            keep(dnnl.Primitive(pd)).execute(stream, memories)
            stream.wait()
            return {arg: dnnl.to_array(memories[arg], stream, out=nans[arg].copy()) for arg in outputs}

    def eltwise(self, algorithm: str, x: np.ndarray, diff_dst: np.ndarray, alpha: float, beta: float,
                layout: str = "plain") -> tuple[np.ndarray, np.ndarray]:
        """oneDNN's (data, diff_src) of ``AlgKind.ELTWISE_<algorithm>``; ``layout`` "any" for the diffs.
        ``data`` is what the backward read: ``x``, or for a ``_USE_DST_FOR_BWD`` algorithm the dst of
        oneDNN's forward (run only then: a GPU builds a kernel for every primitive)."""
        alg, shape = dnnl.AlgKind[f"ELTWISE_{algorithm}"], x.shape
        with f32(shape) as data_desc, f32(shape, layout) as diff:
            fwd = dnnl.EltwiseForwardDesc(self.engine, alg, data_desc, data_desc, alpha, beta, prop_kind=TRAINING)
            data, arg = np.asarray(x, np.float32), dnnl.ARG_SRC
            if eltwise_name(algorithm)[1]:
                data, arg = self.run(fwd, {dnnl.ARG_SRC: x}, {dnnl.ARG_DST: shape})[dnnl.ARG_DST], dnnl.ARG_DST
            bwd = dnnl.EltwiseBackwardDesc(self.engine, alg, diff, diff, data_desc, fwd, alpha, beta)
            found = self.run(bwd, {arg: data, dnnl.ARG_DIFF_DST: diff_dst}, {dnnl.ARG_DIFF_SRC: shape})
        return data, found[dnnl.ARG_DIFF_SRC]

    def softmax(self, log: bool, x: np.ndarray, diff_dst: np.ndarray, axis: int,
                layout: str = "plain") -> tuple[np.ndarray, np.ndarray]:
        """oneDNN's (dst, diff_src) of softmax or log-softmax along ``axis``."""
        alg = dnnl.AlgKind.SOFTMAX_LOG if log else dnnl.AlgKind.SOFTMAX_ACCURATE
        with f32(x.shape) as data, f32(x.shape, layout) as diff:
            fwd = dnnl.SoftmaxForwardDesc(self.engine, alg, data, data, axis, prop_kind=TRAINING)
            dst = self.run(fwd, {dnnl.ARG_SRC: x}, {dnnl.ARG_DST: x.shape})[dnnl.ARG_DST]
            bwd = dnnl.SoftmaxBackwardDesc(self.engine, alg, diff, diff, data, axis, fwd)
            found = self.run(bwd, {dnnl.ARG_DST: dst, dnnl.ARG_DIFF_DST: diff_dst}, {dnnl.ARG_DIFF_SRC: x.shape})
        return dst, found[dnnl.ARG_DIFF_SRC]

    def prelu(self, x: np.ndarray, weights: np.ndarray, diff_dst: np.ndarray,
              layout: str = "plain") -> tuple[np.ndarray, np.ndarray]:
        """oneDNN's (diff_src, diff_weights)."""
        with ExitStack() as stack:
            src, w = stack.enter_context(f32(x.shape)), stack.enter_context(f32(weights.shape))
            diff = stack.enter_context(f32(x.shape, layout))
            diff_w = stack.enter_context(f32(weights.shape, layout))
            fwd = dnnl.PReLUForwardDesc(self.engine, src, w, src, prop_kind=TRAINING)
            bwd = dnnl.PReLUBackwardDesc(self.engine, src, w, diff, diff_w, diff, fwd)
            found = self.run(bwd, {dnnl.ARG_SRC: x, dnnl.ARG_WEIGHTS: weights, dnnl.ARG_DIFF_DST: diff_dst},
                             {dnnl.ARG_DIFF_SRC: x.shape, dnnl.ARG_DIFF_WEIGHTS: weights.shape})
        return found[dnnl.ARG_DIFF_SRC], found[dnnl.ARG_DIFF_WEIGHTS]

    def shuffle(self, diff_dst: np.ndarray, axis: int, group_size: int, layout: str = "plain") -> np.ndarray:
        """oneDNN's diff_src of a shuffle along ``axis`` in groups of ``group_size``."""
        with f32(diff_dst.shape) as data, f32(diff_dst.shape, layout) as diff:
            fwd = dnnl.ShuffleForwardDesc(self.engine, data, data, axis, group_size, prop_kind=TRAINING)
            bwd = dnnl.ShuffleBackwardDesc(self.engine, diff, diff, axis, group_size, fwd)
            found = self.run(bwd, {dnnl.ARG_DIFF_DST: diff_dst}, {dnnl.ARG_DIFF_SRC: diff_dst.shape})
        return found[dnnl.ARG_DIFF_SRC]

    def resampling(self, algorithm: str, src_shape: Sequence[int], diff_dst: np.ndarray,
                   factors: Sequence[float] | None = None, layout: str = "plain") -> np.ndarray:
        """oneDNN's diff_src of ``AlgKind.RESAMPLING_<algorithm>`` from src_shape to diff_dst's shape."""
        alg = dnnl.AlgKind[f"RESAMPLING_{algorithm}"]
        with ExitStack() as stack:
            src, dst = stack.enter_context(f32(src_shape)), stack.enter_context(f32(diff_dst.shape))
            diff_src = stack.enter_context(f32(src_shape, layout))
            diff = stack.enter_context(f32(diff_dst.shape, layout))
            fwd = dnnl.ResamplingForwardDesc(self.engine, alg, src, dst, factors=factors, prop_kind=TRAINING)
            bwd = dnnl.ResamplingBackwardDesc(self.engine, alg, diff_src, diff, fwd, factors=factors)
            found = self.run(bwd, {dnnl.ARG_DIFF_DST: diff_dst}, {dnnl.ARG_DIFF_SRC: tuple(src_shape)})
        return found[dnnl.ARG_DIFF_SRC]
