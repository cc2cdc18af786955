"""Why oneDNN refused to make a primitive descriptor, found after the refusal.

oneDNN 3.13 says why only in its verbose output: printed with ``printf`` on
the process's stdout, and only when ``ONEDNN_VERBOSE=check`` was in the
environment when the library was loaded (``dnnl_set_verbose`` sets levels 0
to 2, none of which prints checks). Reading it in-process would mean
printing into the user's stdout or redirecting file descriptor 1 around the
call, which races every other thread that writes there. So the binding
checks the arguments itself, with oneDNN's own rules (``src/common/*.cpp``,
``*_desc_init``), in oneDNN's order, and only once oneDNN has refused: a
creation that succeeds never runs any of this, and a check can only explain
a refusal, never cause one.

Each ``_<kind>`` function answers the first rule the arguments break, as a
sentence naming the argument, or None when no rule here explains the
refusal (the caller then keeps its generic message).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ._enums import AlgKind, DataType, EngineKind, FormatKind
from ._memory_desc import MemoryDesc
from .errors import Status

__all__ = ["explain", "data_type_reason"]

_Descs = Mapping[str, MemoryDesc]
_Params = Mapping[str, Any]

# The data types oneDNN's CPU engine computes nothing with (``cpu::platform::has_data_type_support``),
# and those it computes only on some instruction sets: (the sets, each as its /proc/cpuinfo flags).
_NEVER_ON_CPU = frozenset({DataType.F64, DataType.F4_E2M1, DataType.F4_E3M0})
_AVX512_CORE = ("AVX-512 (avx512_core)", ("avx512f", "avx512bw", "avx512vl", "avx512dq"))
# Only its base flag: a CPU without avx_vnni has no AVX2-VNNI-2, whatever else it lists (a CPU with it
# is taken to have AVX2-VNNI-2, so the check never names a data type such a CPU may compute).
_AVX2_VNNI_2 = ("AVX2-VNNI-2", ("avx_vnni",))
_AVX512_FP16 = ("AVX512-FP16", ("avx512_fp16",))
_ON_SOME_CPUS = {
    DataType.BF16: (_AVX512_CORE, _AVX2_VNNI_2),
    DataType.F16: (_AVX512_FP16, _AVX2_VNNI_2),
    DataType.F8_E5M2: (_AVX512_FP16,),
    DataType.F8_E4M3: (_AVX512_FP16,),
}


def explain(kind: str, status: int, engine_kind: EngineKind | None, descs: _Descs, params: _Params) -> str | None:
    """Why oneDNN refused this ``kind`` of primitive descriptor (the ``_kind`` of its class)
    with ``status``; None when no check here explains it. ``descs`` maps argument names to
    the descriptors given (None left out), ``params`` the other arguments by name.

    oneDNN answers a broken rule of the arguments with INVALID_ARGUMENTS, and a data type
    or attribute no implementation takes with UNIMPLEMENTED: each status is explained only
    by the checks of its own kind."""
    if any(_has_runtime_dims(desc) for desc in descs.values()):
        return None  # placeholders: oneDNN's rules for them differ
    if status == Status.INVALID_ARGUMENTS:
        # Every backward creator, and no forward one, takes diff_dst_desc: a backward kind
        # shares its forward kind's name but not its arguments' names.
        checks = _BACKWARD_CHECKS if "diff_dst_desc" in descs else _CHECKS
        check = checks.get(kind)
        return check(descs, params) if check is not None else None
    if status == Status.UNIMPLEMENTED:
        return data_type_reason(engine_kind, descs)
    return None


def _has_runtime_dims(desc: MemoryDesc) -> bool:
    return any(dim < 0 for dim in desc.shape)


def data_type_reason(engine_kind: EngineKind | None, descs: _Descs, reorder: bool = False) -> str | None:
    """The first of ``descs`` whose data type the engine has no implementation for; None if
    none is known to be. ``reorder``: for a reorder, which moves data types a CPU computes
    nothing with (bf16, f16) on every CPU."""
    if engine_kind != EngineKind.CPU:
        return None
    for what, desc in descs.items():
        dtype, name = desc.data_type, desc.data_type.name.lower()
        if dtype in _NEVER_ON_CPU:
            return (f"{what}: {name}, a data type oneDNN's CPU engine has no implementation for (oneDNN has "
                    f"{name} on some GPU engines only); use f32")
        needs = _ON_SOME_CPUS.get(dtype)
        flags = _cpu_flags()
        if needs and not reorder and flags and not any(all(flag in flags for flag in set_) for _, set_ in needs):
            sets = " or ".join(isa for isa, _ in needs)
            return (f"{what}: {name}, which oneDNN's CPU engine computes only on CPUs with {sets}; this CPU "
                    "has none of them (/proc/cpuinfo); use f32")
    return None


@functools.cache
def _cpu_flags() -> frozenset[str]:
    """The CPU's feature flags (/proc/cpuinfo); empty where it cannot be read."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as info:
            for line in info:
                if line.startswith("flags"):
                    return frozenset(line.partition(":")[2].split())
    except OSError:
        pass
    return frozenset()


# --- words -----------------------------------------------------------------------------------


def _shape(desc: MemoryDesc) -> str:
    return str(desc.shape)


def _ndims_differ(what: str, desc: MemoryDesc, other: str, expected: int, rule: str = "") -> str:
    return (f"{what}: {desc.ndim} dimensions {_shape(desc)} where {other} has {expected}"
            + (f" ({rule})" if rule else ""))


def _dims_differ(what: str, desc: MemoryDesc, other: str, reference: MemoryDesc, rule: str = "") -> str:
    return (f"{what}: shape {_shape(desc)} differs from {other}'s {_shape(reference)}"
            + (f" ({rule})" if rule else ""))


def _a(kind: str) -> str:
    """``kind`` with its article: "a matmul", "an eltwise", "an LRN"."""
    kind = "LRN" if kind == "lrn" else kind
    return f"an {kind}" if kind[0] in "aeiouAEIOUL" else f"a {kind}"


def _c_div(a: int, b: int) -> int:
    """C's integer division (toward zero), as oneDNN computes output sizes."""
    quotient = abs(a) // abs(b)
    return quotient if (a >= 0) == (b >= 0) else -quotient


def _same_shape(descs: _Descs, first: str, *others: str, rule: str = "") -> str | None:
    """The first of ``others`` whose dimensions differ from ``first``'s."""
    reference = descs[first]
    for what in others:
        desc = descs.get(what)
        if desc is None:
            continue
        if desc.ndim != reference.ndim:
            return _ndims_differ(what, desc, first, reference.ndim, rule)
        if desc.shape != reference.shape:
            return _dims_differ(what, desc, first, reference, rule)
    return None


def _not_any(descs: _Descs, *names: str) -> str | None:
    """oneDNN takes "any" for the outputs of these primitives, never for their sources."""
    for what in names:
        desc = descs.get(what)
        if desc is not None and _is_any(desc):
            return (f"{what}: layout 'any' is taken for a destination only here; give {what} the "
                    "layout of its data (a plain tag such as 'abcd')")
    return None


def _is_any(desc: MemoryDesc) -> bool:
    return desc.format_kind == FormatKind.ANY


def _ndims_in(descs: _Descs, what: str, allowed: Sequence[int], kind: str) -> str | None:
    desc = descs[what]
    if desc.ndim in allowed:
        return None
    low, high = min(allowed), max(allowed)
    span = f"{low} to {high}" if high - low + 1 == len(allowed) else ", ".join(map(str, allowed))
    return f"{what}: {desc.ndim} dimensions {_shape(desc)}; {_a(kind)} takes {span}"


def _first(*reasons: Callable[[], str | None]) -> str | None:
    for reason in reasons:
        found = reason()
        if found is not None:
            return found
    return None


# --- the kinds -------------------------------------------------------------------------------


def _matmul(descs: _Descs, params: _Params) -> str | None:
    src, weights, dst = descs["src_desc"], descs["weights_desc"], descs["dst_desc"]
    bias = descs.get("bias_desc")
    n = dst.ndim
    if not 2 <= n <= 12:
        return f"dst_desc: {n} dimensions {_shape(dst)}; a matmul takes 2 to 12"
    rule = "a matmul takes the same number of dimensions for all: batch dimensions of 1 broadcast"
    for what, desc in (("src_desc", src), ("weights_desc", weights), ("bias_desc", bias)):
        if desc is not None and desc.ndim != n:
            return _ndims_differ(what, desc, "dst_desc", n, rule)
    m, k_src, k_wei, last = n - 2, n - 1, n - 2, n - 1
    if dst.shape[m] != src.shape[m]:
        return f"dst_desc: M={dst.shape[m]} (dim {m}) does not match src_desc's M={src.shape[m]} (dim {m})"
    if dst.shape[last] != weights.shape[last]:
        return (f"dst_desc: N={dst.shape[last]} (dim {last}) does not match weights_desc's "
                f"N={weights.shape[last]} (dim {last})")
    if src.shape[k_src] != weights.shape[k_wei]:
        return (f"weights_desc: K={weights.shape[k_wei]} (dim {k_wei}) does not match src_desc's "
                f"K={src.shape[k_src]} (dim {k_src})")
    if bias is not None:
        for d in (last, m):
            if bias.shape[d] not in (1, dst.shape[d]):
                return f"bias_desc: dim {d} is {bias.shape[d]}; it must be 1 or dst_desc's {dst.shape[d]}"
    for d in range(n - 2):
        s, w, t = src.shape[d], weights.shape[d], dst.shape[d]
        if not s == w == t and 1 not in (s, w):
            return (f"batch dim {d}: src_desc has {s} and weights_desc {w}; they must be equal or one of "
                    "them 1 (broadcast)")
        if s == 1 and t != w:
            return f"dst_desc: batch dim {d} is {t}; with src_desc's 1 it must be weights_desc's {w}"
        if w == 1 and t != s:
            return f"dst_desc: batch dim {d} is {t}; with weights_desc's 1 it must be src_desc's {s}"
        if bias is not None and bias.shape[d] not in (1, t):
            return f"bias_desc: batch dim {d} is {bias.shape[d]}; it must be 1 or dst_desc's {t}"
    return None


def _roles(descs: _Descs, *roles: str) -> list[str]:
    """The name each role ("src", "weights", ...) has among ``descs``: a backward kind gives the
    gradient (``diff_src_desc``) where the forward kind gives the tensor, under the same rules."""
    return [f"diff_{role}_desc" if f"diff_{role}_desc" in descs else f"{role}_desc" for role in roles]


def _inner_product(descs: _Descs, params: _Params) -> str | None:
    src_name, weights_name, bias_name, dst_name = _roles(descs, "src", "weights", "bias", "dst")
    src, weights, dst = descs[src_name], descs[weights_name], descs[dst_name]
    bias = descs.get(bias_name)
    layout = "the weights are (outputs, then src's dimensions after the batch)"
    if 0 in weights.shape:
        return f"{weights_name}: {_shape(weights)} has no elements"
    if src.ndim not in (2, 3, 4, 5):
        return f"{src_name}: {src.ndim} dimensions {_shape(src)}; an inner product takes 2 to 5"
    if dst.ndim != 2:
        return f"{dst_name}: {dst.ndim} dimensions {_shape(dst)}; an inner product's dst is (batch, outputs)"
    if weights.ndim != src.ndim:
        return _ndims_differ(weights_name, weights, src_name, src.ndim, layout)
    if bias is not None and bias.ndim != 1:
        return f"{bias_name}: {bias.ndim} dimensions {_shape(bias)}; the bias is (outputs,)"
    if bias is not None and bias.shape[0] != dst.shape[1]:
        return f"{bias_name}: {bias.shape[0]} values for {dst_name}'s {dst.shape[1]} outputs (dim 1)"
    if src.shape[0] != dst.shape[0]:
        return f"{dst_name}: batch {dst.shape[0]} (dim 0) does not match {src_name}'s {src.shape[0]} (dim 0)"
    if src.shape[1:] != weights.shape[1:]:
        return f"{weights_name}: dims 1 on {weights.shape[1:]} do not match {src_name}'s {src.shape[1:]} ({layout})"
    if dst.shape[1] != weights.shape[0]:
        return (f"{dst_name}: {dst.shape[1]} outputs (dim 1) do not match {weights_name}'s {weights.shape[0]} "
                "(dim 0)")
    return None


def _convolution_like(descs: _Descs, params: _Params, deconvolution: bool) -> str | None:
    src_name, weights_name, bias_name, dst_name = _roles(descs, "src", "weights", "bias", "dst")
    src, weights, dst = descs[src_name], descs[weights_name], descs[dst_name]
    bias = descs.get(bias_name)
    kind = "deconvolution" if deconvolution else "convolution"
    if 0 in weights.shape and not deconvolution:
        return f"{weights_name}: {_shape(weights)} has no elements"
    if src.ndim != dst.ndim:
        return _ndims_differ(dst_name, dst, src_name, src.ndim)
    reason = _ndims_in(descs, src_name, (3, 4, 5), kind)
    if reason is not None:
        return reason
    if weights.ndim not in (src.ndim, src.ndim + 1):
        return (f"{weights_name}: {weights.ndim} dimensions {_shape(weights)}; with {src_name}'s {src.ndim} "
                f"they are {src.ndim} (out channels, in channels, kernel...) or {src.ndim + 1} with groups first")
    groups = weights.ndim == src.ndim + 1
    g = weights.shape[0] if groups else 1
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != dst.shape[1]):
        return f"{bias_name}: {_shape(bias)}; the bias is ({dst.shape[1]},), one value per dst channel"
    if src.shape[0] != dst.shape[0]:
        return f"{dst_name}: batch {dst.shape[0]} (dim 0) does not match {src_name}'s {src.shape[0]} (dim 0)"
    grouped = f"{g} groups × " if groups else ""
    if src.shape[1] != g * weights.shape[groups + 1]:
        return (f"{src_name}: {src.shape[1]} channels (dim 1) do not match {weights_name}'s {grouped}"
                f"{weights.shape[groups + 1]} input channels (dim {groups + 1})")
    if dst.shape[1] != g * weights.shape[groups]:
        return (f"{dst_name}: {dst.shape[1]} channels (dim 1) do not match {weights_name}'s {grouped}"
                f"{weights.shape[groups]} output channels (dim {int(groups)})")
    dilates = params.get("dilates") or [0] * (src.ndim - 2)
    for i in range(2, src.ndim):
        s = i - 2
        kernel, dilation = weights.shape[groups + i], dilates[s]
        left, right, stride = params["padding_l"][s], params["padding_r"][s], params["strides"][s]
        extent = 1 + (kernel - 1) * (dilation + 1)
        if right + stride <= 0:
            return f"padding_r[{s}]: {right} with stride {stride}; the two must sum to a positive value"
        formula = (f"kernel extent {extent} (kernel {kernel}, dilation {dilation}), padding {left} + {right}, "
                   f"stride {stride}")
        if not deconvolution:
            computed = _c_div(src.shape[i] - extent + left + right, stride) + 1
            if computed != dst.shape[i]:
                return (f"{dst_name}: spatial dim {i} is {dst.shape[i]}, but {src_name}'s {src.shape[i]} gives "
                        f"{computed}: (src - extent + padding_l + padding_r) / stride + 1 with {formula}")
        else:
            computed = _c_div(dst.shape[i] - extent + left + right, stride) + 1
            if computed != src.shape[i]:
                wanted = (src.shape[i] - 1) * stride + extent - left - right
                return (f"{dst_name}: spatial dim {i} is {dst.shape[i]}, which gives a src of {computed}, not "
                        f"{src_name}'s {src.shape[i]}: (dst - extent + padding_l + padding_r) / stride + 1 with "
                        f"{formula}; a dst of {wanted} fits")
    return None


def _pooling(descs: _Descs, params: _Params) -> str | None:
    src, dst = descs["src_desc"], descs["dst_desc"]
    reason = _ndims_in(descs, "src_desc", (3, 4, 5), "pooling") or _ndims_in(descs, "dst_desc", (3, 4, 5), "pooling")
    if reason is not None:
        return reason
    for i in (0, 1):
        if src.shape[i] != dst.shape[i]:
            name = "batch" if i == 0 else "channels"
            return f"dst_desc: {name} {dst.shape[i]} (dim {i}) does not match src_desc's {src.shape[i]} (dim {i})"
    if dst.ndim != src.ndim:
        return _ndims_differ("dst_desc", dst, "src_desc", src.ndim)
    dilation = params.get("dilation") or [0] * (src.ndim - 2)
    for i in range(2, src.ndim):
        s = i - 2
        kernel, dil = params["kernel"][s], dilation[s]
        left, right, stride = params["padding_l"][s], params["padding_r"][s], params["strides"][s]
        extent = 1 + (kernel - 1) * (dil + 1)
        if right + stride < 0:  # pooling takes padding_r = -stride, which convolution refuses
            return f"padding_r[{s}]: {right} with stride {stride}; the two must sum to a non-negative value"
        computed = _c_div(src.shape[i] - extent + left + right, stride) + 1
        if computed != dst.shape[i]:
            return (f"dst_desc: spatial dim {i} is {dst.shape[i]}, but src_desc's {src.shape[i]} gives {computed}: "
                    f"(src - extent + padding_l + padding_r) / stride + 1 with kernel extent {extent} (kernel "
                    f"{kernel}, dilation {dil}), padding {left} + {right}, stride {stride}")
        if params.get("algorithm") == AlgKind.POOLING_AVG_EXCLUDE_PADDING and (
                left >= extent or right >= extent or dil >= src.shape[i]):
            return (f"padding_l/padding_r[{s}]: {left} and {right} with kernel extent {extent}: with "
                    "POOLING_AVG_EXCLUDE_PADDING a window may not lie wholly in the padding (0 / 0)")
    return None


def _same_as_src(kind: str, minimum_ndims: int = 1) -> Callable[[_Descs, _Params], str | None]:
    def check(descs: _Descs, params: _Params) -> str | None:
        src = descs["src_desc"]
        return _first(
            lambda: _not_any(descs, "src_desc"),
            lambda: (f"src_desc: {src.ndim} dimensions {_shape(src)}; {_a(kind)} takes {minimum_ndims} or more"
                     if src.ndim < minimum_ndims else None),
            lambda: _same_shape(descs, "src_desc", "dst_desc", rule=f"{_a(kind)} keeps the shape"),
        )
    return check


def _softmax(descs: _Descs, params: _Params) -> str | None:
    dst, axis = descs["dst_desc"], params["axis"]
    if axis >= dst.ndim:
        return (f"axis: {axis} is out of range for dst_desc's {dst.ndim} dimensions {_shape(dst)} "
                f"(0 to {dst.ndim - 1})")
    return _first(lambda: _not_any(descs, "src_desc"),
                  lambda: _same_shape(descs, "src_desc", "dst_desc", rule="a softmax keeps the shape"))


def _shuffle(descs: _Descs, params: _Params) -> str | None:
    src, axis, group = descs["src_desc"], params["axis"], params["group_size"]
    if axis >= src.ndim:
        return f"axis: {axis} is out of range for src_desc's {src.ndim} dimensions {_shape(src)} (0 to {src.ndim - 1})"
    size = src.shape[axis]
    if not 0 < group <= size:
        return f"group_size: {group}; it must be from 1 to src_desc's {size} at axis {axis}"
    if size % group:
        return f"group_size: {group} does not divide src_desc's {size} at axis {axis}"
    return _same_shape(descs, "src_desc", "dst_desc", rule="a shuffle keeps the shape")


def _group_normalization(descs: _Descs, params: _Params) -> str | None:
    src, groups = descs["src_desc"], params["groups"]
    reason = _not_any(descs, "src_desc")
    if reason is None and src.ndim >= 2:
        channels = src.shape[1]
        if not 0 < groups <= channels or channels % groups:
            return f"groups: {groups} does not divide src_desc's {channels} channels (dim 1)"
    return reason or _same_as_src("group normalization", 2)(descs, params)


def _layer_normalization(descs: _Descs, params: _Params) -> str | None:
    # oneDNN 3.13 checks stat_desc against src in backward propagation only: not explained here.
    return _ndims_in(descs, "src_desc", (2, 3, 4, 5), "layer normalization") or _not_any(descs, "src_desc") \
        or _same_shape(descs, "src_desc", "dst_desc", rule="a layer normalization keeps the shape")


def _binary(descs: _Descs, params: _Params) -> str | None:
    dst = descs["dst_desc"]
    reason = _not_any(descs, "src0_desc")
    if reason is not None:
        return reason
    names = [name for name in ("src0_desc", "src1_desc", "src2_desc") if name in descs]
    for what in names:
        if descs[what].ndim != dst.ndim:
            return _ndims_differ(what, descs[what], "dst_desc", dst.ndim,
                                 "a binary takes the same number of dimensions for all; dimensions of 1 broadcast")
    src0, src1 = descs["src0_desc"], descs["src1_desc"]
    for d in range(dst.ndim):
        for what in names:
            if descs[what].shape[d] not in (1, dst.shape[d]):
                return (f"{what}: dim {d} is {descs[what].shape[d]}; it must be dst_desc's {dst.shape[d]} or 1 "
                        "(broadcast)")
        if src0.shape[d] != dst.shape[d] and src1.shape[d] != dst.shape[d]:
            return (f"src1_desc: dim {d} is {src1.shape[d]} where src0_desc broadcasts ({src0.shape[d]}); one of "
                    f"the two must have dst_desc's {dst.shape[d]}")
    return None


def _reduction(descs: _Descs, params: _Params) -> str | None:
    src, dst = descs["src_desc"], descs["dst_desc"]
    alg, p = params.get("algorithm"), params.get("p", 0.0)
    if _is_any(src):
        return "src_desc: layout 'any' is taken for dst only here; give src_desc the layout of its data"
    if alg is not None and "LP" in alg.name and not (p >= 1.0 and p != float("inf")):
        return f"p: {p}; the LP norms take p >= 1 (finite)"
    if src.ndim != dst.ndim:
        return _ndims_differ("dst_desc", dst, "src_desc", src.ndim, "reduced dimensions are kept as 1")
    for d in range(src.ndim):
        if dst.shape[d] not in (1, src.shape[d]):
            return (f"dst_desc: dim {d} is {dst.shape[d]}; it must be src_desc's {src.shape[d]}, or 1 where "
                    "reduced")
    if src.shape == dst.shape:
        return (f"dst_desc: shape {_shape(dst)} equals src_desc's: nothing to reduce (a reduced dimension is 1 in "
                "dst)")
    return None


def _resampling(descs: _Descs, params: _Params) -> str | None:
    src, dst = descs["src_desc"], descs["dst_desc"]
    reason = _ndims_in(descs, "src_desc", (3, 4, 5), "resampling")
    if reason is not None:
        return reason
    if src.ndim != dst.ndim:
        return _ndims_differ("dst_desc", dst, "src_desc", src.ndim)
    for i in (0, 1):
        if src.shape[i] != dst.shape[i]:
            name = "batch" if i == 0 else "channels"
            return f"dst_desc: {name} {dst.shape[i]} (dim {i}) does not match src_desc's {src.shape[i]} (dim {i})"
    return None


def _concat(descs: _Descs, params: _Params) -> str | None:
    axis = params["concat_dimension"]
    sources = [(what, desc) for what, desc in descs.items() if what.startswith("src_descs")]
    first_name, first = sources[0]
    for what, desc in sources:
        if _is_any(desc):
            return f"{what}: layout 'any' is taken for dst only here; give the sources the layout of their data"
    for what, desc in sources[1:]:
        if desc.ndim != first.ndim:
            return _ndims_differ(what, desc, first_name, first.ndim)
        for d in range(first.ndim):
            if d != axis and desc.shape[d] != first.shape[d]:
                return (f"{what}: dim {d} is {desc.shape[d]} where {first_name} has {first.shape[d]}; the sources "
                        f"differ only along concat_dimension {axis}")
    dst = descs.get("dst_desc")
    if dst is not None:
        total = sum(desc.shape[axis] for _, desc in sources)
        expected = tuple(total if d == axis else n for d, n in enumerate(first.shape))
        if dst.shape != expected:
            return f"dst_desc: shape {_shape(dst)}; the sources concatenated along dim {axis} are {expected}"
    return None


def _sum(descs: _Descs, params: _Params) -> str | None:
    names = [what for what in descs if what.startswith("src_descs")]
    for what in names:
        if _is_any(descs[what]):
            return f"{what}: layout 'any' is taken for dst only here; give the sources the layout of their data"
    return _same_shape(descs, names[0], *names[1:], "dst_desc", rule="a sum adds tensors of one shape")


def _prelu(descs: _Descs, params: _Params) -> str | None:
    src, weights = descs["src_desc"], descs["weights_desc"]
    reason = _not_any(descs, "src_desc")
    if reason is not None:
        return reason
    if weights.ndim != src.ndim or any(w not in (1, s) for w, s in zip(weights.shape, src.shape, strict=True)):
        return (f"weights_desc: shape {_shape(weights)} does not broadcast to src_desc's {_shape(src)} "
                "(the same number of dimensions, each src's or 1)")
    return _same_shape(descs, "src_desc", "dst_desc", rule="a PReLU keeps the shape")


_CHECKS: dict[str, Callable[[_Descs, _Params], str | None]] = {
    "matmul": _matmul,
    "inner product": _inner_product,
    "convolution": lambda descs, params: _convolution_like(descs, params, deconvolution=False),
    "deconvolution": lambda descs, params: _convolution_like(descs, params, deconvolution=True),
    "eltwise": _same_as_src("eltwise"),
    "softmax": _softmax,
    "binary": _binary,
    "pooling": _pooling,
    "batch normalization": _same_as_src("batch normalization", 2),
    "layer normalization": _layer_normalization,
    "group normalization": _group_normalization,
    "reduction": _reduction,
    "resampling": _resampling,
    "concat": _concat,
    "sum": _sum,
    "prelu": _prelu,
    "shuffle": _shuffle,
    "lrn": _same_as_src("lrn", 2),
}


# --- backward kinds (their arguments named as in C++: diff_src_desc, diff_dst_desc, ...) ----------


def _eltwise_backward(descs: _Descs, params: _Params) -> str | None:
    alg, alpha, beta = params["algorithm"], params["alpha"], params["beta"]
    if alg == AlgKind.ELTWISE_ROUND:
        return "algorithm: ELTWISE_ROUND has no gradient (oneDNN computes it forward only)"
    if alg in (AlgKind.ELTWISE_RELU_USE_DST_FOR_BWD, AlgKind.ELTWISE_ELU_USE_DST_FOR_BWD) and alpha < 0:
        return (f"alpha: {alpha} with {alg.name}; from dst the gradient is known only for alpha >= 0 "
                f"(use {alg.name.removesuffix('_USE_DST_FOR_BWD')} and the forward's src instead)")
    if alg in (AlgKind.ELTWISE_CLIP, AlgKind.ELTWISE_CLIP_V2, AlgKind.ELTWISE_CLIP_V2_USE_DST_FOR_BWD) and beta < alpha:
        return f"beta: {beta} is below alpha {alpha}; {alg.name} clips to [alpha, beta]"
    # data_desc may be "any" here (oneDNN 3.13 then chooses a plain layout).
    return _same_shape(descs, "data_desc", "diff_src_desc", "diff_dst_desc",
                       rule="an eltwise gradient has its data's shape")


def _softmax_backward(descs: _Descs, params: _Params) -> str | None:
    dst, axis = descs["dst_desc"], params["axis"]
    if axis >= dst.ndim:
        return (f"axis: {axis} is out of range for dst_desc's {dst.ndim} dimensions {_shape(dst)} "
                f"(0 to {dst.ndim - 1})")
    return _not_any(descs, "dst_desc") or _same_shape(
        descs, "dst_desc", "diff_src_desc", "diff_dst_desc", rule="a softmax gradient has dst's shape")


def _prelu_backward(descs: _Descs, params: _Params) -> str | None:
    # src_desc may be "any" here (oneDNN 3.13 then chooses a plain layout).
    src, weights = descs["src_desc"], descs["weights_desc"]
    if weights.ndim != src.ndim or any(w not in (1, s) for w, s in zip(weights.shape, src.shape, strict=True)):
        return (f"weights_desc: shape {_shape(weights)} does not broadcast to src_desc's {_shape(src)} "
                "(the same number of dimensions, each src's or 1)")
    return _first(
        lambda: _same_shape(descs, "src_desc", "diff_src_desc", "diff_dst_desc",
                            rule="a PReLU's gradients have src's shape"),
        lambda: _same_shape(descs, "weights_desc", "diff_weights_desc", rule="diff_weights has the weights' shape"),
    )


def _shuffle_backward(descs: _Descs, params: _Params) -> str | None:
    diff_dst, axis, group = descs["diff_dst_desc"], params["axis"], params["group_size"]
    if axis >= diff_dst.ndim:
        return (f"axis: {axis} is out of range for diff_dst_desc's {diff_dst.ndim} dimensions {_shape(diff_dst)} "
                f"(0 to {diff_dst.ndim - 1})")
    size = diff_dst.shape[axis]
    if not 0 < group <= size:
        return f"group_size: {group}; it must be from 1 to diff_dst_desc's {size} at axis {axis}"
    if size % group:
        return f"group_size: {group} does not divide diff_dst_desc's {size} at axis {axis}"
    return _same_shape(descs, "diff_dst_desc", "diff_src_desc", rule="a shuffle keeps the shape")


def _resampling_backward(descs: _Descs, params: _Params) -> str | None:
    diff_src, diff_dst = descs["diff_src_desc"], descs["diff_dst_desc"]
    reason = _ndims_in(descs, "diff_src_desc", (3, 4, 5), "resampling")
    if reason is not None:
        return reason
    if diff_src.ndim != diff_dst.ndim:
        return _ndims_differ("diff_dst_desc", diff_dst, "diff_src_desc", diff_src.ndim)
    for i in (0, 1):
        if diff_src.shape[i] != diff_dst.shape[i]:
            name = "batch" if i == 0 else "channels"
            return (f"diff_dst_desc: {name} {diff_dst.shape[i]} (dim {i}) does not match diff_src_desc's "
                    f"{diff_src.shape[i]} (dim {i})")
    return None


def _pooling_backward(descs: _Descs, params: _Params) -> str | None:
    """The forward's rules, between diff_src (src's shape) and diff_dst (dst's)."""
    reason = _pooling({"src_desc": descs["diff_src_desc"], "dst_desc": descs["diff_dst_desc"]}, params)
    if reason is None:
        return None
    return re.sub(r"\b(src_desc|dst_desc)\b", r"diff_\1", reason)


def _normalization_backward(kind: str, minimum_ndims: int) -> Callable[[_Descs, _Params], str | None]:
    def check(descs: _Descs, params: _Params) -> str | None:
        src = descs["src_desc"]
        if src.ndim < minimum_ndims:
            return f"src_desc: {src.ndim} dimensions {_shape(src)}; {_a(kind)} takes {minimum_ndims} or more"
        groups = params.get("groups")
        if isinstance(groups, int) and src.ndim >= 2 and (not 0 < groups <= src.shape[1] or src.shape[1] % groups):
            return f"groups: {groups} does not divide src_desc's {src.shape[1]} channels (dim 1)"
        return _not_any(descs, "src_desc") or _same_shape(
            descs, "src_desc", "diff_src_desc", "diff_dst_desc", rule=f"the gradients of {_a(kind)} have src's shape")
    return check


_BACKWARD_CHECKS: dict[str, Callable[[_Descs, _Params], str | None]] = {
    # The forward rules, read under the backward arguments' names (_roles).
    "inner product": _CHECKS["inner product"],
    "convolution": _CHECKS["convolution"],
    "deconvolution": _CHECKS["deconvolution"],
    "eltwise": _eltwise_backward,
    "softmax": _softmax_backward,
    "prelu": _prelu_backward,
    "shuffle": _shuffle_backward,
    "resampling": _resampling_backward,
    "pooling": _pooling_backward,
    "batch normalization": _normalization_backward("batch normalization", 2),
    "layer normalization": _normalization_backward("layer normalization", 2),
    "group normalization": _normalization_backward("group normalization", 2),
    "lrn": _normalization_backward("lrn", 2),
}
