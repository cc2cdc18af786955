"""The backward primitives: every backward kind × each argument × bad values
(the hint above all), ``workspace_memory``, and misuse of what training brings:
a hint dropped, closed or moved to another implementation while backward
descriptors and primitives use it, workspaces missing, closed, freed in flight
or of another forward, gradients in the wrong layout, threads closing the hint
under backward work, cached creation of backward descriptors.

The bad-input cases are :class:`~crash_matrix.generated.Api` calls: when a bad
value is accepted, ``run_bwd`` runs the forward training primitive of the
hint, then the backward one on memories of every argument it describes, so
what the value leads to shows in the verdict. The sequences check gradients
where a primitive computes (``pool_check``: max pooling's, exact).
"""

from __future__ import annotations

from .generated import Api
from .model import CLOSED, TYPE, TYPE_OR_VALUE, VALUE, Case, Either, Ok, Raises

OK = Ok()
REFUSED = ("ValueError", "NotImplementedError")


def _create(kind: str) -> str:
    return f"dnnl_{kind}_backward_primitive_desc_create"


def _hint(forward: str, other_kind: str) -> list:
    """Bad ``hint_fwd_pd`` values. ``forward``: the kind's forward descriptor made with
    ``{engine}`` and ``{prop}`` to fill in; ``other_kind``: another kind's forward descriptor."""
    name = "hint_fwd_pd"
    train, inference = "dnnl.PropKind.FORWARD_TRAINING", "dnnl.PropKind.FORWARD_INFERENCE"
    return [
        ("None", "None", Raises(TYPE, name)),
        ("closed", f"(closed_hint := {forward.format(engine='eng', prop=train)}).close() or closed_hint",
         Raises(CLOSED, name)),
        ("made for inference", forward.format(engine="eng", prop=inference), Raises(VALUE, name)),
        ("another kind's forward", other_kind, Raises(TYPE, name)),
        ("made on another engine", forward.format(engine="eng2", prop=train), Raises(VALUE, name)),
    ]


def _closed(name: str, closed: str = "closed_md") -> tuple:
    return ("closed MemoryDesc", closed, Raises(CLOSED, name))


def _mismatch(name: str, function: str, expr: str) -> tuple:
    return ("mismatched dims", expr, Raises(REFUSED, (name, function)))


def _md(shape: tuple, tag: str = "") -> str:
    tag = tag or "abcdef"[: len(shape)]
    return f'dnnl.MemoryDesc({shape!r}, "float32", "{tag}")'


ENGINE = [("closed Engine", "closed_eng", Raises(CLOSED, "engine"))]
ATTR = [("closed PrimitiveAttr", "closed_attr", Raises(CLOSED, "attr"))]


def _conv_like(cls: str, kind: str, mds: str, fwd: str, forward: str, other: str, data: bool) -> Api:
    """A (de)convolution backward data or weights kind: its descriptors are ``mds[0..2]``."""
    function = _create(f"{kind}_{'data' if data else 'weights'}")
    first, second = ("diff_src_desc", "weights_desc") if data else ("src_desc", "diff_weights_desc")
    extra = "" if data else "diff_bias_desc=$diff_bias_desc, "
    api = Api(cls,
              f"pd = dnnl.{cls}($engine, ${first}, ${second}, $diff_dst_desc, $strides, $padding_l, $padding_r, "
              f"$hint_fwd_pd, {extra}dilates=$dilates, algorithm=$algorithm, attr=$attr)",
              {"engine": "eng", first: f"{mds}[0]", second: f"{mds}[1]", "diff_dst_desc": f"{mds}[2]",
               "strides": "(1, 1)", "padding_l": "(0, 0)", "padding_r": "(0, 0)", "hint_fwd_pd": fwd,
               "diff_bias_desc": "None", "dilates": "None", "algorithm": "None", "attr": "None"}, {
                  "engine": ENGINE,
                  first: [_closed(first, "closed_md4"), _mismatch(first, function, _md((1, 3, 5, 5)))],
                  second: [_closed(second)],
                  "diff_dst_desc": [_closed("diff_dst_desc")],
                  "strides": [("zero", "(0, 1)", Raises(VALUE, "strides"))],
                  "padding_l": [("negative", "(-1, 0)", Raises(VALUE, "padding_l"))],
                  "padding_r": [("too large for diff_dst", "(2, 2)", Raises(REFUSED, ("padding_r", function)))],
                  "hint_fwd_pd": _hint(forward, other),
                  "dilates": [("negative", "(-1, 0)", Raises(VALUE, "dilates"))],
                  "algorithm": [("POOLING_MAX", "dnnl.AlgKind.POOLING_MAX", Raises(REFUSED, ("algorithm", function)))],
                  "attr": ATTR,
              }, then=f"run_bwd(pd, {fwd})")
    if not data:
        api.bad["diff_bias_desc"] = [_closed("diff_bias_desc"),
                                     _mismatch("diff_bias_desc", function, _md((3,)))]
    return api


CONV_FWD = ("dnnl.ConvolutionForwardDesc({engine}, *cv_mds[:3], (1, 1), (0, 0), (0, 0), bias_desc=cv_mds[3], "
            "prop_kind={prop})")
DECONV_FWD = "dnnl.DeconvolutionForwardDesc({engine}, *dc_mds, (1, 1), (0, 0), (0, 0), prop_kind={prop})"
IP_FWD = "dnnl.InnerProductForwardDesc({engine}, *ip_mds[:3], bias_desc=ip_mds[3], prop_kind={prop})"
ELT_FWD = "dnnl.EltwiseForwardDesc({engine}, dnnl.AlgKind.ELTWISE_RELU, md, md, prop_kind={prop})"
SM_FWD = "dnnl.SoftmaxForwardDesc({engine}, dnnl.AlgKind.SOFTMAX_ACCURATE, md, md, 1, prop_kind={prop})"
PR_FWD = "dnnl.PReLUForwardDesc({engine}, md, pr_wei_md, md, prop_kind={prop})"
POOL_FWD = ("dnnl.PoolingForwardDesc({engine}, dnnl.AlgKind.POOLING_MAX, md4, pool_dst_md, (2, 2), (2, 2), (0, 0), "
            "(0, 0), prop_kind={prop})")
RS_FWD = "dnnl.ResamplingForwardDesc({engine}, dnnl.AlgKind.RESAMPLING_NEAREST, *rs_mds, prop_kind={prop})"
LRN_FWD = ("dnnl.LRNForwardDesc({engine}, dnnl.AlgKind.LRN_ACROSS_CHANNELS, md4, md4, 3, 1e-4, 0.75, 1.0, "
           "prop_kind={prop})")
SH_FWD = "dnnl.ShuffleForwardDesc({engine}, md, md, 1, 2, prop_kind={prop})"
BN_FWD = "dnnl.BatchNormalizationForwardDesc({engine}, md4, md4, 1e-5, prop_kind={prop})"
LN_FWD = "dnnl.LayerNormalizationForwardDesc({engine}, md, md, 1e-5, prop_kind={prop})"
GN_FWD = "dnnl.GroupNormalizationForwardDesc({engine}, md4, md4, 2, 1e-5, prop_kind={prop})"


def _number(name: str) -> list:
    return [("None", "None", Raises(TYPE, name)), ("str", "'1'", Raises(TYPE, name))]


def _flags(name: str, function: str) -> list:
    return [("an unknown bit", "1 << 20", Raises(VALUE, name)),
            ("USE_SCALE, which the forward has not", "dnnl.NormalizationFlags.USE_SCALE",
             Raises(REFUSED, (name, function, "flags")))]


def _bwd_prop(name: str = "prop_kind") -> list:
    return [("FORWARD_TRAINING", "dnnl.PropKind.FORWARD_TRAINING", Raises(VALUE, name)),
            ("BACKWARD_DATA", "dnnl.PropKind.BACKWARD_DATA", Either(OK, Raises(REFUSED, name))),
            ("str", "'backward'", Raises(TYPE, name))]


def apis() -> list[Api]:
    f = _create
    return [
        _conv_like("ConvolutionBackwardDataDesc", "convolution", "cv_mds", "cv_fwd", CONV_FWD, "dc_fwd", data=True),
        _conv_like("ConvolutionBackwardWeightsDesc", "convolution", "cv_mds", "cv_fwd", CONV_FWD, "dc_fwd", data=False),
        _conv_like("DeconvolutionBackwardDataDesc", "deconvolution", "dc_mds", "dc_fwd", DECONV_FWD, "cv_fwd", data=True),
        _conv_like("DeconvolutionBackwardWeightsDesc", "deconvolution", "dc_mds", "dc_fwd", DECONV_FWD, "cv_fwd",
                   data=False),
        Api("InnerProductBackwardDataDesc",
            "pd = dnnl.InnerProductBackwardDataDesc($engine, $diff_src_desc, $weights_desc, $diff_dst_desc, "
            "$hint_fwd_pd, attr=$attr)",
            {"engine": "eng", "diff_src_desc": "ip_mds[0]", "weights_desc": "ip_mds[1]", "diff_dst_desc": "ip_mds[2]",
             "hint_fwd_pd": "ip_fwd", "attr": "None"}, {
                "engine": ENGINE,
                "diff_src_desc": [_closed("diff_src_desc"), _mismatch("diff_src_desc", f("inner_product_data"), _md((2, 7)))],
                "weights_desc": [_closed("weights_desc")],
                "diff_dst_desc": [_closed("diff_dst_desc")],
                "hint_fwd_pd": _hint(IP_FWD, "cv_fwd"),
                "attr": ATTR,
            }, then="run_bwd(pd, ip_fwd)"),
        Api("InnerProductBackwardWeightsDesc",
            "pd = dnnl.InnerProductBackwardWeightsDesc($engine, $src_desc, $diff_weights_desc, $diff_dst_desc, "
            "$hint_fwd_pd, diff_bias_desc=$diff_bias_desc, attr=$attr)",
            {"engine": "eng", "src_desc": "ip_mds[0]", "diff_weights_desc": "ip_mds[1]", "diff_dst_desc": "ip_mds[2]",
             "hint_fwd_pd": "ip_fwd", "diff_bias_desc": "ip_mds[3]", "attr": "None"}, {
                "engine": ENGINE,
                "src_desc": [_closed("src_desc")],
                "diff_weights_desc": [_closed("diff_weights_desc"),
                                      _mismatch("diff_weights_desc", f("inner_product_weights"), _md((5, 7)))],
                "diff_dst_desc": [_closed("diff_dst_desc")],
                "hint_fwd_pd": _hint(IP_FWD, "cv_fwd"),
                "diff_bias_desc": [_closed("diff_bias_desc"), ("None (no bias gradient)", "None", OK),
                                   _mismatch("diff_bias_desc", f("inner_product_weights"), _md((4,))),
                                   ("with gaps", 'dnnl.MemoryDesc((5,), "float32", strides=(2,))',
                                    Either(OK, Raises("NotImplementedError", "diff_bias_desc")))],
                "attr": ATTR,
            }, then="run_bwd(pd, ip_fwd)"),
        Api("EltwiseBackwardDesc",
            "pd = dnnl.EltwiseBackwardDesc($engine, $algorithm, $diff_src_desc, $diff_dst_desc, $data_desc, "
            "$hint_fwd_pd, $alpha, $beta, attr=$attr)",
            {"engine": "eng", "algorithm": "dnnl.AlgKind.ELTWISE_RELU", "diff_src_desc": "md", "diff_dst_desc": "md",
             "data_desc": "md", "hint_fwd_pd": "elt_fwd", "alpha": "0.0", "beta": "0.0", "attr": "None"}, {
                "engine": ENGINE,
                "algorithm": [("POOLING_MAX", "dnnl.AlgKind.POOLING_MAX", Raises(REFUSED, ("algorithm", f("eltwise"))))],
                "diff_src_desc": [_closed("diff_src_desc"), _mismatch("diff_src_desc", f("eltwise"), _md((2, 2)))],
                "diff_dst_desc": [_closed("diff_dst_desc")],
                "data_desc": [_closed("data_desc")],
                "hint_fwd_pd": _hint(ELT_FWD, "sm_fwd"),
                "alpha": _number("alpha")[:1],
                "beta": _number("beta")[1:],
                "attr": ATTR,
            }, then="run_bwd(pd, elt_fwd)"),
        Api("SoftmaxBackwardDesc",
            "pd = dnnl.SoftmaxBackwardDesc($engine, $algorithm, $diff_src_desc, $diff_dst_desc, $dst_desc, $axis, "
            "$hint_fwd_pd, attr=$attr)",
            {"engine": "eng", "algorithm": "dnnl.AlgKind.SOFTMAX_ACCURATE", "diff_src_desc": "md", "diff_dst_desc": "md",
             "dst_desc": "md", "axis": "1", "hint_fwd_pd": "sm_fwd", "attr": "None"}, {
                "engine": ENGINE,
                "algorithm": [("ELTWISE_RELU", "dnnl.AlgKind.ELTWISE_RELU", Raises(REFUSED, ("algorithm", f("softmax"))))],
                "diff_src_desc": [_closed("diff_src_desc")],
                "diff_dst_desc": [_closed("diff_dst_desc"), _mismatch("diff_dst_desc", f("softmax"), _md((2, 2)))],
                "dst_desc": [_closed("dst_desc")],
                "axis": [("past the last dimension", "2", Raises(REFUSED, ("axis", f("softmax")))),
                         ("None", "None", Raises(TYPE, "axis"))],
                "hint_fwd_pd": _hint(SM_FWD, "elt_fwd"),
                "attr": ATTR,
            }, then="run_bwd(pd, sm_fwd)"),
        Api("PReLUBackwardDesc",
            "pd = dnnl.PReLUBackwardDesc($engine, $src_desc, $weights_desc, $diff_src_desc, $diff_weights_desc, "
            "$diff_dst_desc, $hint_fwd_pd, attr=$attr)",
            {"engine": "eng", "src_desc": "md", "weights_desc": "pr_wei_md", "diff_src_desc": "md",
             "diff_weights_desc": "pr_wei_md", "diff_dst_desc": "md", "hint_fwd_pd": "pr_fwd", "attr": "None"}, {
                "engine": ENGINE,
                "src_desc": [_closed("src_desc"), _mismatch("src_desc", f("prelu"), _md((3, 3)))],
                "weights_desc": [_closed("weights_desc")],
                "diff_src_desc": [_closed("diff_src_desc")],
                "diff_weights_desc": [_closed("diff_weights_desc")],
                "diff_dst_desc": [_closed("diff_dst_desc")],
                "hint_fwd_pd": _hint(PR_FWD, "elt_fwd"),
                "attr": ATTR,
            }, then="run_bwd(pd, pr_fwd)"),
        Api("PoolingBackwardDesc",
            "pd = dnnl.PoolingBackwardDesc($engine, $algorithm, $diff_src_desc, $diff_dst_desc, $strides, $kernel, "
            "$padding_l, $padding_r, $hint_fwd_pd, dilation=$dilation, attr=$attr)",
            {"engine": "eng", "algorithm": "dnnl.AlgKind.POOLING_MAX", "diff_src_desc": "md4",
             "diff_dst_desc": "pool_dst_md", "strides": "(2, 2)", "kernel": "(2, 2)", "padding_l": "(0, 0)",
             "padding_r": "(0, 0)", "hint_fwd_pd": "pool_fwd", "dilation": "None", "attr": "None"}, {
                "engine": ENGINE,
                "algorithm": [("LRN_ACROSS_CHANNELS", "dnnl.AlgKind.LRN_ACROSS_CHANNELS",
                               Raises(REFUSED, ("algorithm", f("pooling")))),
                              ("POOLING_AVG_INCLUDE_PADDING (the hint is max)", "dnnl.AlgKind.POOLING_AVG_INCLUDE_PADDING",
                               Either(OK, Raises(REFUSED, ("algorithm", "hint_fwd_pd", f("pooling")))))],
                "diff_src_desc": [_closed("diff_src_desc", "closed_md4"),
                                  _mismatch("diff_src_desc", f("pooling"), _md((1, 3, 4, 4)))],
                "diff_dst_desc": [_closed("diff_dst_desc")],
                "strides": [("zero", "(0, 1)", Raises(VALUE, "strides"))],
                "kernel": [("larger than the source", "(5, 5)", Raises(REFUSED, ("kernel", f("pooling"))))],
                "padding_l": [("negative", "(-1, 0)", Raises(VALUE, "padding_l"))],
                "padding_r": [("None", "None", Raises(TYPE, "padding_r"))],
                "hint_fwd_pd": [
                    *_hint(POOL_FWD, "lrn_fwd"),
                    ("another pooling's (3x3 windows)", "dnnl.PoolingForwardDesc(eng, dnnl.AlgKind.POOLING_MAX, md4, "
                     "dnnl.MemoryDesc((1, 4, 2, 2), 'float32', 'abcd'), (1, 1), (3, 3), (0, 0), (0, 0), "
                     "prop_kind=TRAIN)", Either(OK, Raises(REFUSED, ("hint_fwd_pd", f("pooling"))))),
                    ("a backward descriptor", "pool_bwd", Raises(TYPE, "hint_fwd_pd"))],
                "dilation": [("negative", "(-1, 0)", Raises(VALUE, "dilation"))],
                "attr": ATTR,
            }, then="run_bwd(pd, pool_fwd)"),
        Api("ResamplingBackwardDesc",
            "pd = dnnl.ResamplingBackwardDesc($engine, $algorithm, $diff_src_desc, $diff_dst_desc, $hint_fwd_pd, "
            "factors=$factors, attr=$attr)",
            {"engine": "eng", "algorithm": "dnnl.AlgKind.RESAMPLING_NEAREST", "diff_src_desc": "rs_mds[0]",
             "diff_dst_desc": "rs_mds[1]", "hint_fwd_pd": "rs_fwd", "factors": "None", "attr": "None"}, {
                "engine": ENGINE,
                "algorithm": [("REDUCTION_SUM", "dnnl.AlgKind.REDUCTION_SUM", Raises(REFUSED, ("algorithm", f("resampling"))))],
                "diff_src_desc": [_closed("diff_src_desc"), _mismatch("diff_src_desc", f("resampling"), _md((1, 2, 4, 4)))],
                "diff_dst_desc": [_closed("diff_dst_desc")],
                "hint_fwd_pd": _hint(RS_FWD, "pool_fwd"),
                "factors": [("too few", "(2.0,)", Raises(VALUE, "factors"))],
                "attr": ATTR,
            }, then="run_bwd(pd, rs_fwd)"),
        Api("LRNBackwardDesc",
            "pd = dnnl.LRNBackwardDesc($engine, $algorithm, $diff_src_desc, $diff_dst_desc, $src_desc, $local_size, "
            "$alpha, $beta, $k, $hint_fwd_pd, attr=$attr)",
            {"engine": "eng", "algorithm": "dnnl.AlgKind.LRN_ACROSS_CHANNELS", "diff_src_desc": "md4",
             "diff_dst_desc": "md4", "src_desc": "md4", "local_size": "3", "alpha": "1e-4", "beta": "0.75", "k": "1.0",
             "hint_fwd_pd": "lrn_fwd", "attr": "None"}, {
                "engine": ENGINE,
                "algorithm": [("POOLING_MAX", "dnnl.AlgKind.POOLING_MAX", Raises(REFUSED, ("algorithm", f("lrn"))))],
                "diff_src_desc": [_closed("diff_src_desc")],
                "diff_dst_desc": [_closed("diff_dst_desc"), _mismatch("diff_dst_desc", f("lrn"), _md((1, 2, 4, 4)))],
                "src_desc": [_closed("src_desc")],
                "local_size": [("-1", "-1", Raises(VALUE, "local_size"))],
                "alpha": _number("alpha")[:1],
                "beta": _number("beta")[1:],
                "k": [("int too big for a float", "10**400", Raises(TYPE_OR_VALUE, "k"))],
                "hint_fwd_pd": _hint(LRN_FWD, "pool_fwd"),
                "attr": ATTR,
            }, then="run_bwd(pd, lrn_fwd)"),
        Api("ShuffleBackwardDesc",
            "pd = dnnl.ShuffleBackwardDesc($engine, $diff_src_desc, $diff_dst_desc, $axis, $group_size, $hint_fwd_pd, "
            "attr=$attr)",
            {"engine": "eng", "diff_src_desc": "md", "diff_dst_desc": "md", "axis": "1", "group_size": "2",
             "hint_fwd_pd": "sh_fwd", "attr": "None"}, {
                "engine": ENGINE,
                "diff_src_desc": [_closed("diff_src_desc"), _mismatch("diff_src_desc", f("shuffle"), _md((3, 3)))],
                "diff_dst_desc": [_closed("diff_dst_desc")],
                "axis": [("past the last dimension", "2", Raises(REFUSED, ("axis", f("shuffle"))))],
                "group_size": [("-1", "-1", Raises(VALUE, "group_size")),
                               ("not dividing the axis", "3", Raises(REFUSED, ("group_size", f("shuffle"))))],
                "hint_fwd_pd": _hint(SH_FWD, "elt_fwd"),
                "attr": ATTR,
            }, then="run_bwd(pd, sh_fwd)"),
        Api("BatchNormalizationBackwardDesc",
            "pd = dnnl.BatchNormalizationBackwardDesc($engine, $diff_src_desc, $diff_dst_desc, $src_desc, $epsilon, "
            "$flags, $hint_fwd_pd, prop_kind=$prop_kind, attr=$attr)",
            {"engine": "eng", "diff_src_desc": "md4", "diff_dst_desc": "md4", "src_desc": "md4", "epsilon": "1e-5",
             "flags": "dnnl.NormalizationFlags.NONE", "hint_fwd_pd": "bn_fwd", "prop_kind": "dnnl.PropKind.BACKWARD",
             "attr": "None"}, {
                "engine": ENGINE,
                "diff_src_desc": [_closed("diff_src_desc"),
                                  _mismatch("diff_src_desc", f("batch_normalization"), _md((1, 2, 4, 4)))],
                "diff_dst_desc": [_closed("diff_dst_desc")],
                "src_desc": [_closed("src_desc")],
                "epsilon": _number("epsilon")[:1],
                "flags": _flags("flags", f("batch_normalization")),
                "hint_fwd_pd": _hint(BN_FWD, "ln_fwd"),
                "prop_kind": _bwd_prop()[:2],
                "attr": ATTR,
            }, then="run_bwd(pd, bn_fwd)"),
        Api("LayerNormalizationBackwardDesc",
            "pd = dnnl.LayerNormalizationBackwardDesc($engine, $diff_src_desc, $diff_dst_desc, $src_desc, $epsilon, "
            "$flags, $hint_fwd_pd, stat_desc=$stat_desc, prop_kind=$prop_kind, attr=$attr)",
            {"engine": "eng", "diff_src_desc": "md", "diff_dst_desc": "md", "src_desc": "md", "epsilon": "1e-5",
             "flags": "dnnl.NormalizationFlags.NONE", "hint_fwd_pd": "ln_fwd", "stat_desc": "None",
             "prop_kind": "dnnl.PropKind.BACKWARD", "attr": "None"}, {
                "engine": ENGINE,
                "diff_src_desc": [_closed("diff_src_desc")],
                "diff_dst_desc": [_closed("diff_dst_desc"),
                                  _mismatch("diff_dst_desc", f("layer_normalization"), _md((2, 4)))],
                "src_desc": [_closed("src_desc")],
                "epsilon": _number("epsilon")[:1],
                "flags": _flags("flags", f("layer_normalization")),
                "hint_fwd_pd": _hint(LN_FWD, "bn_fwd"),
                "stat_desc": [_closed("stat_desc"), ("of the rows", _md((4,)), OK)],
                "prop_kind": _bwd_prop()[:1],
                "attr": ATTR,
            }, then="run_bwd(pd, ln_fwd)"),
        Api("GroupNormalizationBackwardDesc",
            "pd = dnnl.GroupNormalizationBackwardDesc($engine, $diff_src_desc, $diff_dst_desc, $src_desc, $groups, "
            "$epsilon, $flags, $hint_fwd_pd, prop_kind=$prop_kind, attr=$attr)",
            {"engine": "eng", "diff_src_desc": "md4", "diff_dst_desc": "md4", "src_desc": "md4", "groups": "2",
             "epsilon": "1e-5", "flags": "dnnl.NormalizationFlags.NONE", "hint_fwd_pd": "gn_fwd",
             "prop_kind": "dnnl.PropKind.BACKWARD", "attr": "None"}, {
                "engine": ENGINE,
                "diff_src_desc": [_closed("diff_src_desc")],
                "diff_dst_desc": [_closed("diff_dst_desc")],
                "src_desc": [_closed("src_desc"), _mismatch("src_desc", f("group_normalization"), _md((1, 2, 4, 4)))],
                "groups": [("-1", "-1", Raises(VALUE, "groups")), ("not dividing the channels", "3",
                                                                   Raises(REFUSED, ("groups", f("group_normalization"))))],
                "epsilon": _number("epsilon")[1:],
                "flags": _flags("flags", f("group_normalization"))[:1],
                "hint_fwd_pd": _hint(GN_FWD, "bn_fwd"),
                "prop_kind": _bwd_prop()[:1],
                "attr": ATTR,
            }, then="run_bwd(pd, gn_fwd)"),
        Api("workspace_memory", "ws = dnnl.workspace_memory($fwd_pd, $engine)", {"fwd_pd": "pool_fwd", "engine": "None"}, {
            "fwd_pd": [
                ("None", "None", Raises(TYPE, "fwd_pd")),
                ("closed", f"(closed_hint := {POOL_FWD.format(engine='eng', prop='TRAIN')}).close() or closed_hint",
                 Raises(CLOSED, "fwd_pd")),
                ("made for inference", "inference_pool", Raises(VALUE, "fwd_pd")),
                ("a forward without a workspace", "elt_fwd", Raises(VALUE, "fwd_pd")),
                ("a backward descriptor", "pool_bwd", Raises(VALUE, "fwd_pd")),
                ("a PrimitiveDesc adopted without its engine", "dnnl.PrimitiveDesc.from_handle(pool_fwd.handle)",
                 Raises(VALUE, "engine")),
            ],
            "engine": [
                ("closed Engine", "closed_eng", Raises(CLOSED, "engine")),
                ("another engine object", "eng2", Either(OK, Raises(VALUE, "engine"))),
            ],
        }, then="run_fwd(pool_fwd, workspace=ws)"),
    ]


# --- misuse sequences ------------------------------------------------------------------

# Max pooling forward training on src, then its backward on diff_dst: memories and workspace.
POOL = """
x_mem = fill(dnnl.Memory(md4, eng))
forward = run_fwd(pool_fwd, source=x_mem)
ws = forward[dnnl.ARG_WORKSPACE]
dy = fill(dnnl.Memory(pool_dst_md, eng))
dx = dnnl.Memory(md4, eng)
bwd_args = {dnnl.ARG_DIFF_DST: dy, dnnl.ARG_DIFF_SRC: dx, dnnl.ARG_WORKSPACE: ws}
"""
POOL_CHECK = "pool_check(bwd_args, x_mem)"


def _seq(section: str, library: str = "real"):
    def make(name: str, code: str, expect=OK, **kw) -> Case:
        return Case(name, section, code.strip(), expect, library=library, **kw)
    return make


def hint_cases() -> list[Case]:
    """The hint dropped, closed or moved on while backward descriptors and primitives use it."""
    case = _seq("backward/hint")
    bwd_new = ("dnnl.PoolingBackwardDesc(eng, dnnl.AlgKind.POOLING_MAX, md4, pool_dst_md, (2, 2), (2, 2), (0, 0), "
               "(0, 0), pool_fwd)")
    return [
        case("the hint dropped before the primitive is made: right gradients",
             POOL + f"pd = {bwd_new}\ndel pool_fwd, forward; gc.collect()\n"
             "dnnl.Primitive(pd).execute(strm, bwd_args); strm.wait()\n" + POOL_CHECK),
        case("the hint closed before the primitive is made: right gradients",
             POOL + f"pd = {bwd_new}\npool_fwd.close()\ndnnl.Primitive(pd).execute(strm, bwd_args); strm.wait()\n"
             + POOL_CHECK),
        case("the hint closed, then a second backward descriptor made with it",
             f"pd = {bwd_new}\npool_fwd.close()\n{bwd_new}", Raises(CLOSED, "hint_fwd_pd")),
        case("the hint and the backward descriptor closed after the primitive is made: right gradients",
             POOL + f"pd = {bwd_new}\np = dnnl.Primitive(pd)\npd.close(); pool_fwd.close(); gc.collect()\n"
             "p.execute(strm, bwd_args); strm.wait()\n" + POOL_CHECK),
        case("the hint closed while the backward primitive executes (no wait between)",
             POOL + f"pd = {bwd_new}\np = dnnl.Primitive(pd)\np.execute(strm, bwd_args)\npool_fwd.close(); pd.close()\n"
             "strm.wait()\n" + POOL_CHECK),
        case("every object dropped while the backward primitive executes",
             POOL + f"pd = {bwd_new}\ndnnl.Primitive(pd).execute(strm, bwd_args)\n"
             "del pd, pool_fwd, forward, ws; gc.collect()\nfiller = [np.ones(64, np.float32) for _ in range(100)]\n"
             "strm.wait()\n" + POOL_CHECK),
        case("next_impl of the hint while a backward descriptor uses it",
             f"pd = {bwd_new}\npool_fwd.next_impl()", Raises(VALUE, "desc")),
        case("next_impl of the hint while only a backward primitive uses it",
             f"pd = {bwd_new}\np = dnnl.Primitive(pd)\npd.close()\npool_fwd.next_impl()", Raises(VALUE, "desc")),
        case("next_impl of the hint, then of the backward descriptor (freed memory in oneDNN)",
             f"pd = {bwd_new}\ntry:\n    pool_fwd.next_impl()\nexcept ValueError:\n    pass\n"
             "while pd.next_impl():\n    pass\nrun_bwd(pd, pool_fwd)"),
        case("next_impl of the hint before the backward descriptor: taken, right gradients",
             "while pool_fwd.next_impl():\n    pass\n" + POOL + f"pd = {bwd_new}\n"
             "dnnl.Primitive(pd).execute(strm, bwd_args); strm.wait()\n" + POOL_CHECK),
        case("next_impl of the hint after every backward object closed: taken",
             f"pd = {bwd_new}\np = dnnl.Primitive(pd)\np.close(); pd.close()\npool_fwd.next_impl()\n"
             "run_fwd(pool_fwd)"),
        case("a clone of the backward descriptor outlives its hint",
             POOL + f"pd = {bwd_new}\nclone = dnnl.PrimitiveDesc.from_handle(pd.handle, engine=eng)\n"
             "pd.close(); pool_fwd.close(); del pd, pool_fwd, forward; gc.collect()\n"
             "junk = [dnnl.PoolingForwardDesc(eng, dnnl.AlgKind.POOLING_MAX, md4, pool_dst_md, (2, 2), (2, 2), (0, 0), "
             "(0, 0), prop_kind=TRAIN) for _ in range(20)]; del junk; gc.collect()\n"
             "dnnl.Primitive(clone).execute(strm, bwd_args); strm.wait()\n" + POOL_CHECK,
             Either(OK, Raises(VALUE, ("args[64]", "hint_fwd_pd")))),
        case("the hint's engine closed, then the backward descriptor made",
             "eng.close()\n" + bwd_new, Either(OK, Raises(CLOSED, ("engine", "hint_fwd_pd")))),
        case("a backward descriptor's own next_impl to the last, each implementation right",
             POOL + f"pd = {bwd_new}\nwhile True:\n"
             "    dx2 = dnnl.Memory(md4, eng)\n"
             "    dnnl.Primitive(pd).execute(strm, {**bwd_args, dnnl.ARG_DIFF_SRC: dx2}); strm.wait()\n"
             "    pool_check({**bwd_args, dnnl.ARG_DIFF_SRC: dx2}, x_mem)\n"
             "    if not pd.next_impl():\n        break"),
        case("convolution backward data with its hint dropped: made and run",
             "hint = dnnl.ConvolutionForwardDesc(eng, *cv_mds[:3], (1, 1), (0, 0), (0, 0), prop_kind=TRAIN)\n"
             "pd = dnnl.ConvolutionBackwardDataDesc(eng, *cv_mds[:3], (1, 1), (0, 0), (0, 0), hint)\n"
             "del hint; gc.collect()\n"
             "m = {arg: fill(dnnl.Memory(pd.arg_desc(arg), eng)) for arg in pd.arg_sizes}\n"
             "dnnl.Primitive(pd).execute(strm, m); strm.wait()\n"
             "w = np.asarray(m[dnnl.ARG_WEIGHTS]); dy = np.asarray(m[dnnl.ARG_DIFF_DST])\n"
             "ref = np.zeros((1, 2, 5, 5))\n"
             "for i in range(3):\n    for j in range(3):\n"
             "        ref[0, :, i:i + 3, j:j + 3] += np.einsum('o,ocij->cij', dy[0, :, i, j], w)\n"
             "assert np.allclose(np.asarray(m[dnnl.ARG_DIFF_SRC]), ref, atol=1e-3), 'the gradient is wrong'"),
    ]


def workspace_cases() -> list[Case]:
    """Workspaces missing, closed, freed in flight, of another forward, of another type."""
    case = _seq("backward/workspace")
    run = "dnnl.Primitive(pool_bwd).execute(strm, {**bwd_args, dnnl.ARG_WORKSPACE: %s}); strm.wait()\n"
    ws64 = ("args[64]", "ARG_WORKSPACE")
    other = ("dnnl.PoolingForwardDesc(eng, dnnl.AlgKind.POOLING_MAX, dnnl.MemoryDesc((1, 4, 5, 5), 'float32', 'abcd'), "
             "pool_dst_md, (2, 2), (3, 3), (0, 0), (0, 0), prop_kind=TRAIN)")
    return [
        case("the workspace its forward wrote: right gradients",
             POOL + "dnnl.Primitive(pool_bwd).execute(strm, bwd_args); strm.wait()\n" + POOL_CHECK),
        case("the workspace missing", POOL + "del bwd_args[dnnl.ARG_WORKSPACE]\n" + run % "None",
             Raises(VALUE, ws64)),
        case("the workspace closed before the backward execute", POOL + "ws.close()\n" + run % "ws",
             Raises(CLOSED, ws64)),
        case("the workspace closed while the backward primitive executes",
             POOL + "dnnl.Primitive(pool_bwd).execute(strm, bwd_args)\nws.close()\nstrm.wait()\n" + POOL_CHECK),
        case("the workspace dropped while the backward primitive executes",
             POOL + "dnnl.Primitive(pool_bwd).execute(strm, bwd_args)\ndel ws, forward, bwd_args[dnnl.ARG_WORKSPACE]\n"
             "gc.collect(); filler = [np.full(64, 7, np.uint8) for _ in range(100)]\nstrm.wait()\n"
             "dnnl.Primitive(pool_bwd)"),
        case("the workspace closed while its forward executes, then given to the backward",
             "x_mem = fill(dnnl.Memory(md4, eng))\nws = dnnl.workspace_memory(pool_fwd)\n"
             "dnnl.Primitive(pool_fwd).execute(strm, {dnnl.ARG_SRC: x_mem, dnnl.ARG_DST: dnnl.Memory(pool_dst_md, eng), "
             "dnnl.ARG_WORKSPACE: ws})\nws.close()\nstrm.wait()\n"
             "dnnl.Primitive(pool_bwd).execute(strm, {dnnl.ARG_DIFF_DST: fill(dnnl.Memory(pool_dst_md, eng)), "
             "dnnl.ARG_DIFF_SRC: dnnl.Memory(md4, eng), dnnl.ARG_WORKSPACE: ws}); strm.wait()",
             Raises(CLOSED, ws64)),
        case("the workspace of another forward pooling (the same descriptor)",
             POOL + f"other_fwd = {other}\nw2 = run_fwd(other_fwd)[dnnl.ARG_WORKSPACE]\n" + run % "w2",
             Raises(VALUE, ws64)),
        case("the ReLU mask of a batch normalization forward",
             POOL + "bn = dnnl.BatchNormalizationForwardDesc(eng, md4, md4, 1e-5, dnnl.NormalizationFlags.FUSE_NORM_RELU, "
             "prop_kind=TRAIN)\nw2 = run_fwd(bn)[dnnl.ARG_WORKSPACE]\n" + run % "w2", Raises(VALUE, ws64)),
        case("a workspace of s32 where the primitive reads u8",
             POOL + "w2 = dnnl.Memory(dnnl.MemoryDesc((1, 4, 2, 2), 'int32', 'abcd'), eng)\n" + run % "w2",
             Raises(VALUE, ws64)),
        case("a workspace too small",
             POOL + "w2 = dnnl.Memory(dnnl.MemoryDesc((1, 4, 1, 2), 'uint8', 'abcd'), eng)\n" + run % "w2",
             Raises(VALUE, ws64)),
        case("a plain Memory of the workspace descriptor written by the forward: right gradients",
             "x_mem = fill(dnnl.Memory(md4, eng))\nws = dnnl.Memory(pool_fwd.workspace_desc(), eng)\n"
             "run_fwd(pool_fwd, workspace=ws, source=x_mem)\n"
             "bwd_args = {dnnl.ARG_DIFF_DST: fill(dnnl.Memory(pool_dst_md, eng)), dnnl.ARG_DIFF_SRC: dnnl.Memory(md4, eng), "
             "dnnl.ARG_WORKSPACE: ws}\ndnnl.Primitive(pool_bwd).execute(strm, bwd_args); strm.wait()\n" + POOL_CHECK),
        case("the workspace given as the diff_src too (aliasing)", POOL + "bwd_args[dnnl.ARG_DIFF_SRC] = ws\n"
             "dnnl.Primitive(pool_bwd).execute(strm, bwd_args); strm.wait()", Raises(VALUE, ("args[129]", "args[64]"))),
        case("the workspace given to a backward without one (average pooling)",
             POOL + "avg_fwd = dnnl.PoolingForwardDesc(eng, dnnl.AlgKind.POOLING_AVG_INCLUDE_PADDING, md4, pool_dst_md, "
             "(2, 2), (2, 2), (0, 0), (0, 0), prop_kind=TRAIN)\n"
             "avg = dnnl.PoolingBackwardDesc(eng, dnnl.AlgKind.POOLING_AVG_INCLUDE_PADDING, md4, pool_dst_md, (2, 2), "
             "(2, 2), (0, 0), (0, 0), avg_fwd)\ndnnl.Primitive(avg).execute(strm, bwd_args); strm.wait()\n"
             "assert np.allclose(np.asarray(dx), np.repeat(np.repeat(np.asarray(dy), 2, 2), 2, 3) / 4)",
             Either(OK, Raises(VALUE, ws64))),
        case("batch normalization with a fused ReLU: the mask of another forward",
             "flags = dnnl.NormalizationFlags.FUSE_NORM_RELU\n"
             "f1 = dnnl.BatchNormalizationForwardDesc(eng, md4, md4, 1e-5, flags, prop_kind=TRAIN)\n"
             "f2 = dnnl.BatchNormalizationForwardDesc(eng, md4, md4, 1e-3, flags, prop_kind=TRAIN)\n"
             "b1 = dnnl.BatchNormalizationBackwardDesc(eng, md4, md4, md4, 1e-5, flags, f1)\n"
             "m = run_bwd(b1, f1)\nm[dnnl.ARG_WORKSPACE] = run_fwd(f2)[dnnl.ARG_WORKSPACE]\n"
             "dnnl.Primitive(b1).execute(strm, m); strm.wait()", Raises(VALUE, ws64)),
        case("LRN: the workspace its forward wrote, run twice",
             "pd = dnnl.LRNBackwardDesc(eng, dnnl.AlgKind.LRN_ACROSS_CHANNELS, md4, md4, md4, 3, 1e-4, 0.75, 1.0, lrn_fwd)\n"
             "m = run_bwd(pd, lrn_fwd)\ndnnl.Primitive(pd).execute(strm, m); strm.wait()"),
    ]


def layout_cases() -> list[Case]:
    """Gradients in another layout than the descriptor's."""
    case = _seq("backward/layouts")
    conv_any = ("fwd = dnnl.ConvolutionForwardDesc(eng, *(dnnl.MemoryDesc(d.shape, 'float32', 'any') for d in "
                "(dnnl.MemoryDesc((1, 16, 5, 5), 'float32', 'abcd'), dnnl.MemoryDesc((16, 16, 3, 3), 'float32', 'abcd'), "
                "dnnl.MemoryDesc((1, 16, 3, 3), 'float32', 'abcd'))), (1, 1), (0, 0), (0, 0), prop_kind=TRAIN)\n"
                "pd = dnnl.ConvolutionBackwardWeightsDesc(eng, fwd.src_desc(), "
                "dnnl.MemoryDesc((16, 16, 3, 3), 'float32', 'any'), fwd.dst_desc(), (1, 1), (0, 0), (0, 0), fwd)\n"
                "m = {arg: dnnl.Memory(pd.arg_desc(arg), eng) for arg in pd.arg_sizes}\n")
    run = "dnnl.Primitive(pd).execute(strm, m); strm.wait()"
    return [
        case("conv backward weights 'any': plain oihw diff_weights where oneDNN chose another layout",
             conv_any + "assert pd.diff_weights_desc().tag != 'abcd', 'oneDNN chose oihw'\n"
             "m[dnnl.ARG_DIFF_WEIGHTS] = dnnl.Memory(dnnl.MemoryDesc((16, 16, 3, 3), 'float32', 'abcd'), eng)\n" + run,
             Raises(VALUE, "args[161]")),
        case("conv backward weights 'any': a plain nchw diff_dst where oneDNN chose another layout",
             conv_any + "assert pd.diff_dst_desc().tag != 'abcd', 'oneDNN chose nchw'\n"
             "m[dnnl.ARG_DIFF_DST] = dnnl.Memory(dnnl.MemoryDesc((1, 16, 3, 3), 'float32', 'abcd'), eng)\n" + run,
             Raises(VALUE, "args[145]")),
        case("conv backward weights 'any': diff_weights reordered back give the gradient of the plain run",
             conv_any + "for arg in (dnnl.ARG_SRC, dnnl.ARG_DIFF_DST):\n"
             "    plain = fill(dnnl.Memory(dnnl.MemoryDesc(pd.arg_desc(arg).shape, 'float32', 'abcd'), eng))\n"
             "    m[arg] = dnnl.reordered(plain, pd.arg_desc(arg), strm)\n"
             + run + "\nback = dnnl.reordered(m[dnnl.ARG_DIFF_WEIGHTS], dnnl.MemoryDesc((16, 16, 3, 3), 'float32', "
             "'abcd'), strm); strm.wait()\nassert np.isfinite(np.asarray(back)).all()"),
        case("pooling backward: a transposed (abdc) diff_src", POOL + "bwd_args[dnnl.ARG_DIFF_SRC] = "
             "dnnl.Memory(dnnl.MemoryDesc((1, 4, 4, 4), 'float32', 'abdc'), eng)\n"
             "dnnl.Primitive(pool_bwd).execute(strm, bwd_args); strm.wait()", Raises(VALUE, "args[129]")),
        case("pooling backward: a diff_dst of bf16", POOL + "bwd_args[dnnl.ARG_DIFF_DST] = "
             "dnnl.Memory(dnnl.MemoryDesc((1, 4, 2, 2), 'bf16', 'abcd'), eng)\n"
             "dnnl.Primitive(pool_bwd).execute(strm, bwd_args); strm.wait()", Raises(VALUE, "args[145]")),
        case("pooling backward: diff_dst and diff_src swapped", POOL + "bwd_args[dnnl.ARG_DIFF_DST], "
             "bwd_args[dnnl.ARG_DIFF_SRC] = dx, dy\ndnnl.Primitive(pool_bwd).execute(strm, bwd_args); strm.wait()",
             Raises(VALUE, ("args[129]", "args[145]"))),
        case("pooling backward: the diff_src missing", POOL + "del bwd_args[dnnl.ARG_DIFF_SRC]\n"
             "dnnl.Primitive(pool_bwd).execute(strm, bwd_args); strm.wait()", Raises(VALUE, ("args", "args[129]"))),
        case("pooling backward: the forward's ARG_SRC and ARG_DST given instead", POOL +
             "dnnl.Primitive(pool_bwd).execute(strm, {dnnl.ARG_SRC: x_mem, dnnl.ARG_DST: dy, dnnl.ARG_WORKSPACE: ws}); "
             "strm.wait()", Raises(VALUE, ("args", "args[129]", "args[145]"))),
        case("inner product backward weights: diff_weights of the forward weights' shape transposed",
             "pd = dnnl.InnerProductBackwardWeightsDesc(eng, *ip_mds[:3], ip_fwd, diff_bias_desc=ip_mds[3])\n"
             "m = run_bwd(pd, ip_fwd)\nm[dnnl.ARG_DIFF_WEIGHTS] = dnnl.Memory(dnnl.MemoryDesc((5, 8), 'float32', 'ba'), eng)\n"
             "dnnl.Primitive(pd).execute(strm, m); strm.wait()", Raises(VALUE, "args[161]")),
        case("eltwise backward: a diff_src of another engine object",
             "pd = dnnl.EltwiseBackwardDesc(eng, dnnl.AlgKind.ELTWISE_RELU, md, md, md, elt_fwd)\n"
             "m = run_bwd(pd, elt_fwd)\nm[dnnl.ARG_DIFF_SRC] = dnnl.Memory(md, eng2)\n"
             "dnnl.Primitive(pd).execute(strm, m); strm.wait()", Either(OK, Raises(VALUE, "args[129]"))),
    ]


def thread_cases() -> list[Case]:
    """Threads making and executing backward primitives while another closes the hint."""
    def case(name: str, body: str) -> Case:
        return Case(name, "threads/backward", body.strip(), OK, library="real", timeout=30.0)
    bwd_new = ("dnnl.PoolingBackwardDesc(eng, dnnl.AlgKind.POOLING_MAX, md4, pool_dst_md, (2, 2), (2, 2), (0, 0), "
               "(0, 0), pool_fwd)")
    return [
        case("threads make backward descriptors and run them while another closes the hint", POOL + f"""
stop = threading.Event()
def work():
    for _ in range(30):
        try:
            pd = {bwd_new}
        except dnnl.ClosedObjectError:
            return  # the hint is closed: a clean refusal
        d = dnnl.Memory(md4, eng)
        s = dnnl.Stream(eng)
        dnnl.Primitive(pd).execute(s, {{**bwd_args, dnnl.ARG_DIFF_SRC: d}}); s.wait()
        pool_check({{**bwd_args, dnnl.ARG_DIFF_SRC: d}}, x_mem)
def close():
    time.sleep(0.005)
    pool_fwd.close()
join_threads(run_threads([work, work, close]))
"""),
        case("threads execute one backward primitive while another closes it, its descriptor and hint", POOL + f"""
pd = {bwd_new}
p = dnnl.Primitive(pd)
def work():
    s = dnnl.Stream(eng)
    for _ in range(30):
        d = dnnl.Memory(md4, eng)
        try:
            p.execute(s, {{**bwd_args, dnnl.ARG_DIFF_SRC: d}}); s.wait()
        except dnnl.ClosedObjectError:
            return
        pool_check({{**bwd_args, dnnl.ARG_DIFF_SRC: d}}, x_mem)
def close():
    time.sleep(0.005)
    pool_fwd.close(); pd.close(); p.close()
join_threads(run_threads([work, work, close]))
"""),
        case("threads: next_impl of the hint against backward descriptors being made", f"""
def make():
    for _ in range(30):
        try:
            pd = {bwd_new}
        except ValueError:
            continue
        while pd.next_impl():
            pass
        pd.close()
def move():
    for _ in range(30):
        try:
            pool_fwd.next_impl()
        except ValueError:
            pass
join_threads(run_threads([make, make, move]))
"""),
        case("threads: the workspace closed while backward primitives read it", POOL + """
p = dnnl.Primitive(pool_bwd)
def work():
    s = dnnl.Stream(eng)
    for _ in range(30):
        try:
            p.execute(s, {**bwd_args, dnnl.ARG_DIFF_SRC: dnnl.Memory(md4, eng)}); s.wait()
        except dnnl.ClosedObjectError:
            return
def close():
    time.sleep(0.005)
    ws.close()
join_threads(run_threads([work, work, close]))
"""),
    ]


def cached_cases() -> list[Case]:
    """Backward descriptors through make_primitive_cached (the CPU engine makes no blobs)."""
    case = _seq("backward/cached")
    return [
        case("make_primitive_cached of a pooling backward on the CPU: made without the store, right gradients",
             POOL + "p = dnnl.make_primitive_cached(pool_bwd, store)\np.execute(strm, bwd_args); strm.wait()\n"
             + POOL_CHECK + "\nassert list(store) == []"),
        case("make_primitive_cached of a backward descriptor whose hint is closed",
             POOL + "pool_fwd.close()\np = dnnl.make_primitive_cached(pool_bwd, store)\n"
             "p.execute(strm, bwd_args); strm.wait()\n" + POOL_CHECK),
        case("make_primitive_cached of a closed backward descriptor",
             "pool_bwd.close()\ndnnl.make_primitive_cached(pool_bwd, store)", Raises(CLOSED, "desc")),
        case("Primitive(backward descriptor, cache_blob) on the CPU",
             "dnnl.Primitive(pool_bwd, b'not a blob')",
             Raises(("ValueError", "RuntimeError", "NotImplementedError"),
                    ("cache_blob", "dnnl_primitive_create_from_cache_blob"))),
    ]


def gpu_cases() -> list[Case]:
    """A few on real oneDNN's OpenCL engine on the emulated GPU (each pays for the kernels it builds)."""
    case = _seq("backward/gpu", library="emulated")
    make = ("gfwd = dnnl.PoolingForwardDesc(geng, dnnl.AlgKind.POOLING_MAX, md4, pool_dst_md, (2, 2), (2, 2), (0, 0), "
            "(0, 0), prop_kind=dnnl.PropKind.FORWARD_TRAINING)\n"
            "gbwd = dnnl.PoolingBackwardDesc(geng, dnnl.AlgKind.POOLING_MAX, md4, pool_dst_md, (2, 2), (2, 2), (0, 0), "
            "(0, 0), gfwd)\n")
    return [
        case("ocl: a pooling backward through the store twice: made from its blob, the workspace of another forward "
             "refused", "import tempfile\nstore = dnnl.CacheBlobStore(tempfile.mkdtemp())\n" + make +
             "p1 = dnnl.make_primitive_cached(gbwd, store)\np2 = dnnl.make_primitive_cached(gbwd, store)\n"
             "assert len(list(store)) == 1\n"
             "other = dnnl.PoolingForwardDesc(geng, dnnl.AlgKind.POOLING_MAX, dnnl.MemoryDesc((1, 4, 5, 5), 'float32', "
             "'abcd'), pool_dst_md, (2, 2), (3, 3), (0, 0), (0, 0), prop_kind=dnnl.PropKind.FORWARD_TRAINING)\n"
             "p2.execute(gstrm, {dnnl.ARG_DIFF_DST: ocl.make_memory(pool_dst_md, geng), "
             "dnnl.ARG_DIFF_SRC: ocl.make_memory(md4, geng), dnnl.ARG_WORKSPACE: dnnl.workspace_memory(other)}); "
             "gstrm.wait()", Raises(VALUE, "args[64]")),
        case("ocl: next_impl of a hint in use", make + "gfwd.next_impl()", Raises(VALUE, "desc")),
    ]


def cases() -> list[Case]:
    return (
        [case for api in apis() for case in api.cases()]
        + hint_cases() + workspace_cases() + layout_cases() + thread_cases() + cached_cases() + gpu_cases()
    )
