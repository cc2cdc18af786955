"""numpy references for oneDNN's forward primitives, the data helpers the
primitive tests share (bf16 bits, arrays laid out in a given way), and what
this CPU's oneDNN computes (bf16, f16; int8 with VNNI), asked of oneDNN.

Each reference computes in float64 what oneDNN's documentation defines; the
tests compare oneDNN's result to it with a tolerance per data type
(:func:`assert_close`).
"""

from __future__ import annotations

import ctypes
import functools
import itertools
import math
from collections.abc import Callable, Sequence

import numpy as np
from hypothesis import strategies as st

# --- data types ------------------------------------------------------------------------

INT_RANGES = {"s8": (-128, 127), "u8": (0, 255), "s32": (-(2**31), 2**31 - 1)}
NUMPY = {"f32": np.float32, "f16": np.float16, "bf16": np.uint16, "s8": np.int8, "u8": np.uint8, "s32": np.int32}


def to_bf16(values: np.ndarray) -> np.ndarray:
    """The bf16 bits (uint16) nearest to ``values`` (round to nearest even)."""
    bits = np.asarray(values, np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return rounded.astype(np.uint16)


def from_bf16(bits: np.ndarray) -> np.ndarray:
    """float32 values of bf16 bits."""
    return (np.asarray(bits, np.uint16).astype(np.uint32) << 16).view(np.float32)


def encode(values: np.ndarray, dtype: str) -> np.ndarray:
    """``values`` stored as oneDNN's ``dtype`` (bf16 as its raw bits); integers saturate."""
    if dtype == "bf16":
        return to_bf16(values)
    if dtype in INT_RANGES:
        low, high = INT_RANGES[dtype]
        return np.clip(np.rint(values), low, high).astype(NUMPY[dtype])
    return np.asarray(values).astype(NUMPY[dtype])


def decode(stored: np.ndarray, dtype: str) -> np.ndarray:
    """The values of a buffer of oneDNN's ``dtype``, as float64."""
    if dtype == "bf16":
        return from_bf16(stored).astype(np.float64)
    return np.asarray(stored).astype(np.float64)


def random_values(rng: np.random.Generator, shape: Sequence[int], dtype: str, low: float = -2.0,
                  high: float = 2.0) -> np.ndarray:
    """Values exactly representable in ``dtype`` (float64): integers in range for
    s8/u8, values rounded to bf16/f16/f32 for those."""
    if dtype in ("s8", "u8"):
        lo, hi = INT_RANGES[dtype]
        return rng.integers(max(lo, int(low * 8)), min(hi, int(high * 8)) + 1, tuple(shape)).astype(np.float64)
    values = rng.uniform(low, high, tuple(shape))
    return decode(encode(values, dtype), dtype)


LOWEST = {"f32": float(np.finfo(np.float32).min), "bf16": float(from_bf16(np.array(0xFF7F, np.uint16))),
          "f16": float(np.finfo(np.float16).min), "s8": -128.0, "u8": 0.0}
TOLERANCES = {  # (rtol, atol) of a value computed in f32 and stored as the type
    "f32": (1e-5, 1e-5),
    "f16": (2e-3, 2e-3),
    "bf16": (1.6e-2, 1.6e-2),
    "s8": (0, 1),  # rounding to nearest of values computed in f32: ties may go either way
    "u8": (0, 1),
    "s32": (0, 1),
}


def assert_close(stored: np.ndarray, expected: np.ndarray, dtype: str, scale: float = 1.0) -> None:
    """oneDNN's ``stored`` result (of ``dtype``) is ``expected`` (float64) within the
    type's tolerance; ``scale`` widens it for long accumulations and transcendental functions
    (not for integer types: their results are rounded, saturated and within 1 whatever came before)."""
    rtol, atol = TOLERANCES[dtype]
    got = decode(stored, dtype)
    if dtype in INT_RANGES:
        low, high = INT_RANGES[dtype]
        expected = np.clip(expected, low, high)
        scale = 1.0
    np.testing.assert_allclose(got, expected, rtol=rtol * scale, atol=atol * scale)


# --- layouts ---------------------------------------------------------------------------

LAYOUTS = ("plain", "transposed", "strided")
SENTINEL = 77
GUARD = 256  # elements of SENTINEL on either side of every buffer


def laid_out(values: np.ndarray, layout: str) -> tuple[np.ndarray, np.ndarray]:
    """``(array, base)``: ``values`` in an array laid out as ``layout`` says, a view
    of ``base``, a larger buffer whose other elements are :data:`SENTINEL` (at
    least :data:`GUARD` of them before and after), so a write outside the view shows.

    "plain": row-major; "transposed": the axes in reverse order in memory
    (column-major); "strided": a view skipping elements (a gap after each
    innermost row, every other outer row).
    """
    shape = values.shape
    if layout == "strided":
        inner = (2 * shape[0], *shape[1:-1], shape[-1] + 3) if len(shape) > 1 else (2 * shape[0],)
        index = (slice(None, None, 2), *[slice(None)] * (len(shape) - 2), slice(1, 1 + shape[-1])) \
            if len(shape) > 1 else (slice(None, None, 2),)
    elif layout in ("plain", "transposed"):
        inner, index = shape, (...,)
    else:
        raise ValueError(layout)
    count = math.prod(inner)
    base = np.full(count + 2 * GUARD, SENTINEL, values.dtype)
    order = "F" if layout == "transposed" else "C"
    array = base[GUARD:GUARD + count].reshape(inner, order=order)[index]
    array[...] = values
    return array, base


def outside_untouched(array: np.ndarray, base: np.ndarray) -> bool:
    """No element of ``base`` outside the view ``array`` was written."""
    mask = np.ones(base.shape, bool)
    offset = (array.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // base.itemsize
    index = np.full(array.shape, offset, np.int64)
    for axis, (size, stride) in enumerate(zip(array.shape, array.strides, strict=True)):
        shape = [1] * array.ndim
        shape[axis] = size
        index = index + (np.arange(size) * (stride // base.itemsize)).reshape(shape)
    mask[index.ravel()] = False
    return bool(np.all(base[mask] == SENTINEL))


# --- element-wise functions ------------------------------------------------------------


def _erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf, otypes=[np.float64])(x)


def _soft_relu(x: np.ndarray, alpha: float) -> np.ndarray:
    return np.logaddexp(0.0, alpha * x) / alpha


# name: (function(x, alpha, beta), the domain of x (low, high), alpha, beta)
ELTWISE: dict[str, tuple[Callable[[np.ndarray, float, float], np.ndarray], tuple[float, float], float, float]] = {
    "RELU": (lambda x, a, b: np.where(x > 0, x, a * x), (-4, 4), 0.25, 0.0),
    "TANH": (lambda x, a, b: np.tanh(x), (-4, 4), 0.0, 0.0),
    "ELU": (lambda x, a, b: np.where(x > 0, x, a * np.expm1(x)), (-4, 4), 0.5, 0.0),
    "SQUARE": (lambda x, a, b: x * x, (-4, 4), 0.0, 0.0),
    "ABS": (lambda x, a, b: np.abs(x), (-4, 4), 0.0, 0.0),
    "SQRT": (lambda x, a, b: np.sqrt(x), (0, 8), 0.0, 0.0),
    "LINEAR": (lambda x, a, b: a * x + b, (-4, 4), 1.5, -0.5),
    "SOFT_RELU": (lambda x, a, b: _soft_relu(x, a), (-4, 4), 1.0, 0.0),
    "HARDSIGMOID": (lambda x, a, b: np.clip(a * x + b, 0, 1), (-4, 4), 0.25, 0.5),
    "LOGISTIC": (lambda x, a, b: 0.5 * (1 + np.tanh(x / 2)), (-4, 4), 0.0, 0.0),
    "EXP": (lambda x, a, b: np.exp(x), (-4, 4), 0.0, 0.0),
    "GELU_TANH": (lambda x, a, b: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))),
                  (-4, 4), 0.0, 0.0),
    "SWISH": (lambda x, a, b: x * 0.5 * (1 + np.tanh(a * x / 2)), (-4, 4), 1.0, 0.0),
    "LOG": (lambda x, a, b: np.log(x), (0.125, 8), 0.0, 0.0),
    "CLIP": (lambda x, a, b: np.clip(x, a, b), (-4, 4), -1.0, 2.0),
    "CLIP_V2": (lambda x, a, b: np.clip(x, a, b), (-4, 4), -1.0, 2.0),
    "POW": (lambda x, a, b: a * x**b, (0, 4), 0.5, 3.0),
    "GELU_ERF": (lambda x, a, b: 0.5 * x * (1 + _erf(x / math.sqrt(2))), (-4, 4), 0.0, 0.0),
    "ROUND": (lambda x, a, b: np.rint(x), (-4, 4), 0.0, 0.0),  # f32 only
    "MISH": (lambda x, a, b: x * np.tanh(np.logaddexp(0.0, x)), (-4, 4), 0.0, 0.0),
    "HARDSWISH": (lambda x, a, b: x * np.clip(a * x + b, 0, 1), (-4, 4), 1 / 6, 0.5),
}


def eltwise(name: str, x: np.ndarray, alpha: float, beta: float) -> np.ndarray:
    return ELTWISE[name][0](np.asarray(x, np.float64), alpha, beta)


BINARY: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "ADD": np.add,
    "MUL": np.multiply,
    "MAX": np.maximum,
    "MIN": np.minimum,
    "DIV": np.divide,
    "SUB": np.subtract,
    "GE": lambda a, b: (a >= b).astype(np.float64),
    "GT": lambda a, b: (a > b).astype(np.float64),
    "LE": lambda a, b: (a <= b).astype(np.float64),
    "LT": lambda a, b: (a < b).astype(np.float64),
    "EQ": lambda a, b: (a == b).astype(np.float64),
    "NE": lambda a, b: (a != b).astype(np.float64),
}


# --- post-ops --------------------------------------------------------------------------


def apply_post_ops(result: np.ndarray, post_ops: Sequence[tuple[object, ...]], old_dst: np.ndarray) -> np.ndarray:
    """``post_ops``: ("eltwise", name, alpha, beta), ("binary", name, src1), ("sum", scale, zero_point)."""
    for op in post_ops:
        if op[0] == "eltwise":
            result = eltwise(str(op[1]), result, float(op[2]), float(op[3]))  # type: ignore[arg-type]
        elif op[0] == "binary":
            result = BINARY[str(op[1])](result, np.asarray(op[2], np.float64))
        else:
            result = result + float(op[1]) * (old_dst - float(op[2]))  # type: ignore[arg-type]
    return result


# --- the primitives --------------------------------------------------------------------


def matmul(src: np.ndarray, weights: np.ndarray, bias: np.ndarray | None = None) -> np.ndarray:
    out = np.matmul(np.asarray(src, np.float64), np.asarray(weights, np.float64))
    return out if bias is None else out + bias


def output_size(size: int, kernel: int, stride: int, dilate: int, left: int, right: int) -> int:
    """A convolution's (or pooling's) output size, oneDNN's dilation (0 means none)."""
    return (size + left + right - ((kernel - 1) * (dilate + 1) + 1)) // stride + 1


def padded(array: np.ndarray, pads: Sequence[tuple[int, int]], value: float = 0.0) -> np.ndarray:
    """``numpy.pad`` where a negative padding crops: oneDNN's negative padding_r leaves out
    the last rows no window reaches."""
    out = np.pad(array, [(max(left, 0), max(right, 0)) for left, right in pads], constant_values=value)
    return out[tuple(slice(max(-left, 0), n - max(-right, 0)) for (left, right), n in zip(pads, out.shape,
                                                                                           strict=True))]


def _grouped(src: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray, tuple[int, ...]]:
    """src and weights in float64, the weights as (G, O/G, C/G, *K) (G = 1 when not grouped), and their shape."""
    src = np.asarray(src, np.float64)
    w = np.asarray(weights, np.float64)
    if w.ndim == src.ndim:
        w = w[None]
    return src, w, w.shape


def convolution(src: np.ndarray, weights: np.ndarray, bias: np.ndarray | None, strides: Sequence[int],
                dilates: Sequence[int], padding_l: Sequence[int], padding_r: Sequence[int]) -> np.ndarray:
    """src (N, C, *S); weights (O, C, *K) or grouped (G, O/G, C/G, *K)."""
    src, w, (groups, og, cg, *kernel) = _grouped(src, weights)
    n, spatial = src.shape[0], src.shape[2:]
    out_sizes = [output_size(*args) for args in zip(spatial, kernel, strides, dilates, padding_l, padding_r,
                                                       strict=True)]
    src = padded(src, [(0, 0), (0, 0), *zip(padding_l, padding_r, strict=True)])
    src = src.reshape(n, groups, cg, *src.shape[2:])
    out = np.zeros((n, groups, og, *out_sizes))
    for position in itertools.product(*[range(k) for k in kernel]):
        window = tuple(slice(p * (d + 1), p * (d + 1) + s * (o - 1) + 1, s)
                       for p, d, s, o in zip(position, dilates, strides, out_sizes, strict=True))
        patch = src[(slice(None), slice(None), slice(None), *window)]
        out += np.einsum("ngc...,goc->ngo...", patch, w[(slice(None), slice(None), slice(None), *position)])
    out = out.reshape(n, groups * og, *out_sizes)
    if bias is not None:
        out += np.asarray(bias, np.float64).reshape(-1, *[1] * len(spatial))
    return out


def deconvolution(src: np.ndarray, weights: np.ndarray, bias: np.ndarray | None, strides: Sequence[int],
                  dilates: Sequence[int], padding_l: Sequence[int], padding_r: Sequence[int]) -> np.ndarray:
    """src (N, C, *S); weights (O, C, *K) or grouped (G, O/G, C/G, *K)."""
    src, w, (groups, og, cg, *kernel) = _grouped(src, weights)
    n, spatial = src.shape[0], src.shape[2:]
    full = [(i - 1) * s + (k - 1) * (d + 1) + 1 for i, s, k, d in zip(spatial, strides, kernel, dilates, strict=True)]
    out = np.zeros((n, groups, og, *full))
    grouped = src.reshape(n, groups, cg, *spatial)
    for position in itertools.product(*[range(k) for k in kernel]):
        window = tuple(slice(p * (d + 1), p * (d + 1) + s * (i - 1) + 1, s)
                       for p, d, s, i in zip(position, dilates, strides, spatial, strict=True))
        out[(slice(None), slice(None), slice(None), *window)] += np.einsum(
            "ngc...,goc->ngo...", grouped, w[(slice(None), slice(None), slice(None), *position)])
    out = padded(out, [(0, 0), (0, 0), (0, 0), *((-left, -right) for left, right in zip(padding_l, padding_r,
                                                                                          strict=True))])
    out = out.reshape(n, groups * og, *out.shape[3:])
    if bias is not None:
        out = out + np.asarray(bias, np.float64).reshape(-1, *[1] * len(spatial))
    return out


def pooling(src: np.ndarray, algorithm: str, strides: Sequence[int], kernel: Sequence[int],
            dilation: Sequence[int], padding_l: Sequence[int], padding_r: Sequence[int],
            lowest: float = -np.inf) -> np.ndarray:
    """algorithm: "MAX", "AVG_INCLUDE_PADDING" or "AVG_EXCLUDE_PADDING"."""
    src = np.asarray(src, np.float64)
    spatial = src.shape[2:]
    out_sizes = [output_size(*args) for args in zip(spatial, kernel, strides, dilation, padding_l, padding_r,
                                                       strict=True)]
    pads = [(0, 0), (0, 0), *zip(padding_l, padding_r, strict=True)]
    padded_src = padded(src, pads, -np.inf if algorithm == "MAX" else 0.0)
    inside = padded(np.ones(src.shape), pads)
    windows, counts = [], []
    for position in itertools.product(*[range(k) for k in kernel]):
        window = (slice(None), slice(None), *(slice(p * (d + 1), p * (d + 1) + s * (o - 1) + 1, s)
                                              for p, d, s, o in zip(position, dilation, strides, out_sizes,
                                                                    strict=True)))
        windows.append(padded_src[window])
        counts.append(inside[window])
    if algorithm == "MAX":  # a window all padding (dilation skipping the data) gives the type's lowest
        return np.maximum(np.max(windows, axis=0), lowest)
    total = np.sum(windows, axis=0)
    if algorithm == "AVG_INCLUDE_PADDING":
        return total / math.prod(kernel)
    return total / np.sum(counts, axis=0)


def normalize(src: np.ndarray, axes: tuple[int, ...], eps: float, mean: np.ndarray | None = None,
              variance: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(normalized, mean, variance)`` over ``axes`` (the given statistics if not None)."""
    src = np.asarray(src, np.float64)
    if mean is None or variance is None:
        mean = src.mean(axis=axes, keepdims=True)
        variance = src.var(axis=axes, keepdims=True)
    return (src - mean) / np.sqrt(variance + eps), mean, variance


def reduction(src: np.ndarray, algorithm: str, dst_shape: Sequence[int], p: float, eps: float) -> np.ndarray:
    src = np.asarray(src, np.float64)
    axes = tuple(i for i, (s, d) in enumerate(zip(src.shape, dst_shape, strict=True)) if d == 1 and s != 1)
    if algorithm == "SUM":
        return src.sum(axis=axes, keepdims=True)
    if algorithm == "MEAN":
        return src.mean(axis=axes, keepdims=True)
    if algorithm == "MAX":
        return src.max(axis=axes, keepdims=True)
    if algorithm == "MIN":
        return src.min(axis=axes, keepdims=True)
    if algorithm == "MUL":
        return src.prod(axis=axes, keepdims=True)
    powered = (np.abs(src) ** p).sum(axis=axes, keepdims=True)
    return {
        "NORM_LP_MAX": np.maximum(powered, eps) ** (1 / p),
        "NORM_LP_SUM": (powered + eps) ** (1 / p),
        "NORM_LP_POWER_P_MAX": np.maximum(powered, eps),
        "NORM_LP_POWER_P_SUM": powered + eps,
    }[algorithm]


def resampling(src: np.ndarray, algorithm: str, dst_spatial: Sequence[int]) -> np.ndarray:
    """Nearest or (bi/tri)linear resampling with oneDNN's half-pixel mapping."""
    out = np.asarray(src, np.float64)
    for axis, size_out in enumerate(dst_spatial, start=2):
        size_in = out.shape[axis]
        position = (np.arange(size_out) + 0.5) * size_in / size_out - 0.5
        if algorithm == "NEAREST":
            index = np.clip(np.floor(position + 0.5), 0, size_in - 1).astype(int)
            out = np.take(out, index, axis=axis)
        else:
            left = np.floor(position)
            weight = position - left
            lo = np.clip(left, 0, size_in - 1).astype(int)
            hi = np.clip(left + 1, 0, size_in - 1).astype(int)
            shape = [1] * out.ndim
            shape[axis] = size_out
            weight = weight.reshape(shape)
            out = np.take(out, lo, axis=axis) * (1 - weight) + np.take(out, hi, axis=axis) * weight
    return out


def shuffle(src: np.ndarray, axis: int, group_size: int) -> np.ndarray:
    """oneDNN's shuffle: the axis seen as (size / group_size, group_size), transposed."""
    shape = src.shape
    split = (*shape[:axis], shape[axis] // group_size, group_size, *shape[axis + 1:])
    return np.swapaxes(np.asarray(src).reshape(split), axis, axis + 1).reshape(shape)


def lrn(src: np.ndarray, algorithm: str, size: int, alpha: float, beta: float, k: float) -> np.ndarray:
    """Local response normalization: across channels or within each channel (spatial window)."""
    src = np.asarray(src, np.float64)
    half = (size - 1) // 2
    square = src * src
    total = np.zeros_like(src)
    if algorithm == "ACROSS_CHANNELS":
        channels = src.shape[1]
        for c in range(channels):
            total[:, c] = square[:, max(c - half, 0):min(c + half + 1, channels)].sum(axis=1)
        summands = size
    else:
        spatial = src.shape[2:]
        padded = np.pad(square, [(0, 0), (0, 0), *[(half, half)] * len(spatial)])
        for offset in itertools.product(*[range(2 * half + 1)] * len(spatial)):
            total += padded[(slice(None), slice(None),
                             *(slice(o, o + s) for o, s in zip(offset, spatial, strict=True)))]
        summands = size ** len(spatial)
    return src * (k + alpha / summands * total) ** -beta


def softmax(src: np.ndarray, axis: int, log: bool) -> np.ndarray:
    src = np.asarray(src, np.float64)
    shifted = src - src.max(axis=axis, keepdims=True)
    total = np.exp(shifted).sum(axis=axis, keepdims=True)
    return shifted - np.log(total) if log else np.exp(shifted) / total


# --- what this CPU's oneDNN computes -----------------------------------------------------
# The CPU engine computes bf16 and f16 only on some instruction sets (AVX-512, AVX2-VNNI-2,
# ...), and its int8 kernels add u8 x s8 products in 16 bits with saturation on CPUs without
# VNNI. The tests ask oneDNN (not a table of CPUs), once per session, and draw or skip by it.


@functools.cache
def cpu_computes(dtype: str) -> bool:
    """oneDNN's CPU engine has primitives computing with ``dtype`` on this machine: it makes
    a ReLU eltwise of that type (refused, ``UnimplementedError``, where it does not). Reorders,
    concat and sum move every type on every CPU; this is about the primitives that compute.
    Call it with the real oneDNN loaded (a test using the ``engine`` fixture)."""
    import dnnl_interop as dnnl

    with dnnl.Engine.cpu() as engine, dnnl.MemoryDesc((16,), dtype, "a") as desc:
        try:
            dnnl.EltwiseForwardDesc(engine, dnnl.AlgKind.ELTWISE_RELU, desc, desc).close()
        except dnnl.UnimplementedError:
            return False
    return True


# dnnl_cpu_isa_t bits: avx2_vnni (0xf) and avx512_core_vnni (0x67) add them, and every later set has one.
_VNNI_BITS = 0x8 | 0x40


@functools.cache
def cpu_has_vnni() -> bool:
    """oneDNN computes int8 on this machine with VNNI (or AMX) instructions, which accumulate
    u8 x s8 products in 32 bits: asked of oneDNN (``dnnl_get_effective_cpu_isa``, which also
    honours ``ONEDNN_MAX_CPU_ISA``), not read from the CPU's flags."""
    from dnnl_interop import _library

    library = _library.loaded_library()
    assert library is not None, "load oneDNN first (a test using the engine fixture)"
    return bool(ctypes.CDLL(library.path).dnnl_get_effective_cpu_isa() & _VNNI_BITS)


def computed(cases: Sequence[str | tuple[str, ...]]) -> st.SearchStrategy:
    """``st.sampled_from(cases)`` without the cases (a data type, or a tuple of them) with a type
    the CPU engine does not compute with (:func:`cpu_computes`). Decided at the first draw,
    inside a test, so that collecting the tests loads no oneDNN."""
    def implemented() -> st.SearchStrategy:
        kept = [case for case in cases
                if all(cpu_computes(t) for t in ((case,) if isinstance(case, str) else case))]
        return st.sampled_from(kept)
    return st.deferred(implemented)


def s8_weights_range() -> tuple[int, int]:
    """The s8 weights an int8 property draws: the full range where oneDNN accumulates u8 x s8
    in 32 bits, 7 bits (-64 to 63) on a CPU without VNNI, as oneDNN's "Nuances of int8
    computations" advises (255 * 64 * 2 fits in 16 bits). test_primitives.py pins the saturation
    of full-range weights there."""
    return (-128, 127) if cpu_has_vnni() else (-64, 63)
