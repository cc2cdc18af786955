"""The forward primitives: every kind × each argument × bad values, and misuse
of what they bring (attributes, post-ops, scales, "format any" layouts,
``reordered``, queries, closing, threads), on the CPU engine and, for a few
cases, the emulated GPU.

The bad-input cases (:func:`apis`) are :class:`~crash_matrix.generated.Api`
calls: when a bad value is accepted, ``run_pd`` then makes the primitive and
executes it on memories of every argument the descriptor describes, so what
the value leads to shows in the verdict. The sequences check data wherever a
primitive computes: a result that is silently wrong fails as WRONG.
"""

from __future__ import annotations

from .generated import Api
from .model import CLOSED, TYPE, TYPE_OR_VALUE, VALUE, Case, Either, Ok, Raises
from .values import dnnl_object

OK = Ok()
# What oneDNN raises for descriptors it refuses: InvalidArgumentsError (a
# ValueError) or UnimplementedError (a NotImplementedError).
REFUSED = ("ValueError", "NotImplementedError")
RUN = "run_pd(pd)"


def _create(kind: str) -> str:
    return f"dnnl_{kind}_primitive_desc_create"


# --- values for each kind of parameter ------------------------------------------------


def _engine(full: bool = False) -> list:
    if full:
        return dnnl_object("Engine", "engine")
    return [("closed Engine", "closed_eng", Raises(CLOSED, "engine"))]


def _desc(name: str, function: str, mismatch: str | None = None, optional: bool = False,
          closed: str = "closed_md", more: bool = False) -> list:
    out = [
        ("None", "None", OK if optional else Raises(TYPE, name)),
        ("closed MemoryDesc", closed, Raises(CLOSED, name)),
    ]
    if mismatch:
        out.append(("mismatched dims", mismatch, Raises(REFUSED, (name, function))))
    if more:
        out += [
            ("a Memory", "src", Raises(TYPE, name)),
            ("an ndarray", "a", Raises(TYPE, name)),
            ("a shape", "(4, 4)", Raises(TYPE, name)),
        ]
    return out


def _prop_kind(full: bool = False) -> list:
    out = [("BACKWARD", "dnnl.PropKind.BACKWARD", Raises(VALUE, "prop_kind"))]
    if full:
        out += [
            ("UNDEF", "dnnl.PropKind.UNDEF", Raises(VALUE, "prop_kind")),
            ("str", "'forward_inference'", Raises(TYPE, "prop_kind")),
            ("BACKWARD_DATA", "dnnl.PropKind.BACKWARD_DATA", Raises(VALUE, "prop_kind")),
            ("BACKWARD_WEIGHTS", "dnnl.PropKind.BACKWARD_WEIGHTS", Raises(VALUE, "prop_kind")),
            ("int 7", "7", Raises(VALUE, "prop_kind")),
            ("2**64", "2**64", Raises(VALUE, "prop_kind")),
            ("None", "None", Raises(TYPE, "prop_kind")),
            ("float", "96.0", Raises(TYPE, "prop_kind")),
            ("an AlgKind", "dnnl.AlgKind.ELTWISE_RELU", Raises(VALUE, "prop_kind")),
            ("FORWARD_TRAINING", "dnnl.PropKind.FORWARD_TRAINING", OK),
            ("int 96 (FORWARD_INFERENCE)", "96", OK),
        ]
    return out


def _algorithm(function: str, other: str, full: bool = False, default: bool = False) -> list:
    refused = Raises(REFUSED, ("algorithm", function))
    out = [
        (f"another primitive's ({other})", f"dnnl.AlgKind.{other}", refused),
        ("UNDEF", "dnnl.AlgKind.UNDEF", refused),
    ]
    if full:
        out += [
            ("None (the default)" if default else "None", "None", OK if default else Raises(TYPE, "algorithm")),
            ("-1", "-1", Raises(VALUE, "algorithm")),
            ("2**40", "2**40", Raises(VALUE, "algorithm")),
            ("int no AlgKind has", "12345", Raises(VALUE, "algorithm")),
            ("str", "'relu'", Raises(TYPE, "algorithm")),
            ("float", "32.0", Raises(TYPE, "algorithm")),
            ("a PropKind", "dnnl.PropKind.FORWARD_INFERENCE", Raises(VALUE, "algorithm")),
        ]
    return out


def _attr(full: bool = False) -> list:
    out = [
        ("closed PrimitiveAttr", "closed_attr", Raises(CLOSED, "attr")),
        ("PostOps", "post_ops", Raises(TYPE, "attr")),
    ]
    if full:
        out += [
            ("str", "'attr'", Raises(TYPE, "attr")),
            ("dict", "{}", Raises(TYPE, "attr")),
            ("a PrimitiveDesc", "pdesc", Raises(TYPE, "attr")),
            ("an empty PrimitiveAttr", "dnnl.PrimitiveAttr()", OK),
        ]
    return out


def _number(name: str, function: str, full: bool = False) -> list:
    """A float parameter (alpha, epsilon, ...)."""
    out = [
        ("None", "None", Raises(TYPE, name)),
        ("str", "'1'", Raises(TYPE, name)),
        ("int too big for a float", "10**400", Raises(TYPE_OR_VALUE, name)),
    ]
    if full:
        out += [
            ("complex", "1j", Raises(TYPE, name)),
            ("bool", "True", Raises(TYPE, name)),
            ("list", "[0.5]", Raises(TYPE, name)),
            ("numpy float32", "np.float32(0.5)", Either(OK, Raises(TYPE, name))),
            ("Fraction", "Fraction(1, 2)", Either(OK, Raises(TYPE, name))),
            ("nan", "float('nan')", Either(OK, Raises(REFUSED, (name, function)))),
            ("inf", "float('inf')", Either(OK, Raises(REFUSED, (name, function)))),
        ]
    return out


def _c_int(name: str, function: str, past: str) -> list:
    """An int oneDNN takes as a C int (an axis, a dimension)."""
    return [
        ("-1", "-1", Raises(VALUE, name)),
        ("past the last dimension", past, Raises(REFUSED, (name, function))),
        ("2**31", "2**31", Raises(VALUE, (name, function))),
        ("2**40", "2**40", Raises(VALUE, (name, function))),
        ("2**64", "2**64", Raises(VALUE, name)),
        ("None", "None", Raises(TYPE, name)),
        ("float", "1.0", Raises(TYPE, name)),
        ("str", "'1'", Raises(TYPE, name)),
        ("numpy int", "np.int64(1)", OK),
    ]


def _count(name: str, function: str, refused: str, full: bool = False) -> list:
    """A non-negative int oneDNN takes as a dnnl_dim_t (groups, group_size, local_size)."""
    out = [
        ("-1", "-1", Raises(VALUE, name)),
        ("refused by oneDNN", refused, Raises(REFUSED, (name, function))),
        ("None", "None", Raises(TYPE, name)),
    ]
    if full:
        out += [
            ("2**64", "2**64", Raises(VALUE, name)),
            ("float", "2.0", Raises(TYPE, name)),
            ("str", "'2'", Raises(TYPE, name)),
        ]
    return out


def _dims(name: str, function: str, minimum: int = 0, full: bool = False, default: bool = False) -> list:
    """A dims parameter of a 2-d spatial primitive (strides, padding, kernel, ...);
    ``default``: None means the default (no dilation)."""
    out = [
        ("too few", "(1,)", Raises(VALUE, name)),
        ("negative", "(-1, 1)", Raises(VALUE, name)),
        ("None (the default)" if default else "None", "None", OK if default else Raises(TYPE, name)),
    ]
    if minimum:
        out.append(("zero", "(0, 1)", Raises(VALUE, name)))
    if full:
        out += [
            ("int", "1", Raises(TYPE, name)),
            ("str", "'11'", Raises(TYPE, name)),
            ("too many", "(1, 1, 1)", Raises(VALUE, name)),
            ("2**62", "(2**62, 1)", Raises(VALUE, name)),
            ("2**64", "(2**64, 1)", Raises(VALUE, name)),
            ("floats", "(1.0, 1.0)", Raises(TYPE, name)),
            ("bools", "(True, True)", Raises(TYPE, name)),
            ("huge, refused by oneDNN", "(2**40, 1)", Raises(REFUSED, (name, function))),
            ("numpy ints", "(np.int64(1), np.int64(1))", Either(OK, Raises(TYPE, name))),
            ("ndarray", "np.array([1, 1])", Either(OK, Raises(TYPE, name))),
        ]
    return out


def _flags(name: str, function: str) -> list:
    return [
        ("-1", "-1", Raises(VALUE, name)),
        ("an unknown bit", "1 << 20", Raises(VALUE, name)),
        ("None", "None", Raises(TYPE, name)),
        ("str", "'USE_SCALE'", Raises(TYPE, name)),
        ("float", "2.0", Raises(TYPE, name)),
        ("USE_SCALE | USE_SHIFT", "dnnl.NormalizationFlags.USE_SCALE | dnnl.NormalizationFlags.USE_SHIFT", OK),
        ("USE_GLOBAL_STATS", "dnnl.NormalizationFlags.USE_GLOBAL_STATS", OK),
    ]


def _descs_list(name: str, function: str, mismatch: str) -> list:
    return [
        ("empty", "[]", Raises(TYPE_OR_VALUE, name)),
        ("one MemoryDesc, not in a list", "md", Raises(TYPE, name)),
        ("None", "None", Raises(TYPE, name)),
        ("a None in it", "[md, None]", Raises(TYPE, (name, f"{name}[1]"))),
        ("a closed one in it", "[md, closed_md]", Raises(CLOSED, (name, f"{name}[1]"))),
        ("a str in it", "[md, 'md']", Raises(TYPE, (name, f"{name}[1]"))),
        ("mismatched dims", f"[md, {mismatch}]", Raises(REFUSED, (name, f"{name}[1]", function))),
        ("a generator", "(d for d in [md, md])", Either(OK, Raises(TYPE, name))),
        ("a tuple", "(md, md)", OK),
    ]


def _md(shape: tuple, tag: str = "", dtype: str = "float32") -> str:
    tag = tag or "abcdef"[: len(shape)]
    return f'dnnl.MemoryDesc({shape!r}, "{dtype}", "{tag}")'


# --- every kind × each argument ----------------------------------------------------------


def apis() -> list[Api]:
    m4 = _md((4, 4))
    return [
        Api("MatmulDesc",
            "pd = dnnl.MatmulDesc($engine, $src_desc, $weights_desc, $dst_desc, bias_desc=$bias_desc, attr=$attr)",
            {"engine": "eng", "src_desc": "mm_src_md", "weights_desc": "mm_wei_md", "dst_desc": "mm_dst_md",
             "bias_desc": "None", "attr": "None"}, {
                "engine": _engine(full=True),
                "src_desc": [*_desc("src_desc", _create("matmul"), _md((4, 7)), more=True), ("int8 with f32 weights", _md((4, 8), dtype="int8"), Raises(REFUSED, ("src_desc", _create("matmul")))), ("format any", _md((4, 8), "any"), OK), ("one dimension", _md((8,)), Raises(REFUSED, ("src_desc", _create("matmul"))))],
                "weights_desc": _desc("weights_desc", _create("matmul"), _md((7, 16))),
                "dst_desc": _desc("dst_desc", _create("matmul"), _md((4, 15))),
                "bias_desc": [*_desc("bias_desc", _create("matmul"), _md((1, 15)), optional=True, more=True), ("per-column bias", _md((1, 16)), OK)],
                "attr": _attr(full=True),
            }, then=RUN),
        Api("InnerProductForwardDesc",
            "pd = dnnl.InnerProductForwardDesc($engine, $src_desc, $weights_desc, $dst_desc, "
            "bias_desc=$bias_desc, prop_kind=$prop_kind, attr=$attr)",
            {"engine": "eng", "src_desc": _md((2, 8)), "weights_desc": _md((5, 8)), "dst_desc": _md((2, 5)),
             "bias_desc": "None", "prop_kind": "dnnl.PropKind.FORWARD_INFERENCE", "attr": "None"}, {
                "engine": _engine(),
                "src_desc": _desc("src_desc", _create("inner_product_forward"), _md((2, 7))),
                "weights_desc": _desc("weights_desc", _create("inner_product_forward"), _md((5, 7))),
                "dst_desc": _desc("dst_desc", _create("inner_product_forward"), _md((2, 4))),
                "bias_desc": [*_desc("bias_desc", _create("inner_product_forward"), _md((4,)), optional=True), ("bias of the outputs", _md((5,)), OK)],
                "prop_kind": _prop_kind(full=True),
                "attr": _attr(),
            }, then=RUN),
        Api("ConvolutionForwardDesc",
            "pd = dnnl.ConvolutionForwardDesc($engine, $src_desc, $weights_desc, $dst_desc, $strides, "
            "$padding_l, $padding_r, bias_desc=$bias_desc, dilates=$dilates, algorithm=$algorithm, "
            "prop_kind=$prop_kind, attr=$attr)",
            {"engine": "eng", "src_desc": _md((1, 3, 8, 8), "any"), "weights_desc": _md((8, 3, 3, 3), "any"),
             "dst_desc": _md((1, 8, 6, 6), "any"), "strides": "(1, 1)", "padding_l": "(0, 0)",
             "padding_r": "(0, 0)", "bias_desc": "None", "dilates": "None", "algorithm": "None",
             "prop_kind": "dnnl.PropKind.FORWARD_INFERENCE", "attr": "None"}, {
                "engine": _engine(),
                "src_desc": [*_desc("src_desc", _create("convolution_forward"), _md((1, 4, 8, 8)), closed="closed_md4"), ("a closed 2-d MemoryDesc", "closed_md", Raises(VALUE, "src_desc")), ("no spatial dimension", m4, Raises(VALUE, "src_desc")), ("a Memory", "src", Raises(TYPE, "src_desc"))],
                "weights_desc": [*_desc("weights_desc", _create("convolution_forward"), _md((8, 3, 5, 5)), closed="closed_md4"), ("a Memory", "src", Raises(TYPE, "weights_desc"))],
                "dst_desc": _desc("dst_desc", _create("convolution_forward"), _md((1, 8, 7, 7)),
                                  closed="closed_md4"),
                "bias_desc": [*_desc("bias_desc", _create("convolution_forward"), _md((7,)), optional=True, closed="closed_md4"), ("bias of the outputs", _md((8,)), OK)],
                "strides": _dims("strides", _create("convolution_forward"), minimum=1, full=True),
                "padding_l": _dims("padding_l", _create("convolution_forward")),
                "padding_r": [*_dims("padding_r", _create("convolution_forward"))[1:2], ("too large for dst", "(2, 2)", Raises(REFUSED, ("padding_r", _create("convolution_forward"))))],
                "dilates": [*_dims("dilates", _create("convolution_forward"), default=True)[1:], ("too large for dst", "(1, 1)", Raises(REFUSED, ("dilates", _create("convolution_forward")))), ("zeros (none)", "(0, 0)", OK)],
                "algorithm": [*_algorithm(_create("convolution_forward"), "POOLING_MAX"), ("None (the default)", "None", OK), ("DECONVOLUTION_DIRECT", "dnnl.AlgKind.DECONVOLUTION_DIRECT", Raises(REFUSED, ("algorithm", _create("convolution_forward")))), ("CONVOLUTION_WINOGRAD", "dnnl.AlgKind.CONVOLUTION_WINOGRAD", Either(OK, Raises(REFUSED, ("algorithm", _create("convolution_forward"))))), ("CONVOLUTION_AUTO", "dnnl.AlgKind.CONVOLUTION_AUTO", OK)],
                "prop_kind": [*_prop_kind(), ("FORWARD_TRAINING", "dnnl.PropKind.FORWARD_TRAINING", OK)],
                "attr": _attr(),
            }, then=RUN),
        Api("DeconvolutionForwardDesc",
            "pd = dnnl.DeconvolutionForwardDesc($engine, $src_desc, $weights_desc, $dst_desc, $strides, "
            "$padding_l, $padding_r, dilates=$dilates, algorithm=$algorithm, prop_kind=$prop_kind, attr=$attr)",
            {"engine": "eng", "src_desc": _md((1, 3, 6, 6), "any"), "weights_desc": _md((8, 3, 3, 3), "any"),
             "dst_desc": _md((1, 8, 8, 8), "any"), "strides": "(1, 1)", "padding_l": "(0, 0)",
             "padding_r": "(0, 0)", "dilates": "None", "algorithm": "None",
             "prop_kind": "dnnl.PropKind.FORWARD_INFERENCE", "attr": "None"}, {
                "engine": _engine(),
                "src_desc": _desc("src_desc", _create("deconvolution_forward"), _md((1, 4, 6, 6)),
                                  closed="closed_md4"),
                "weights_desc": _desc("weights_desc", _create("deconvolution_forward"), _md((8, 3, 2, 2)),
                                      closed="closed_md4"),
                "dst_desc": _desc("dst_desc", _create("deconvolution_forward"), _md((1, 8, 9, 9)),
                                  closed="closed_md4"),
                "strides": _dims("strides", _create("deconvolution_forward"), minimum=1),
                "padding_l": _dims("padding_l", _create("deconvolution_forward")),
                "dilates": _dims("dilates", _create("deconvolution_forward"), default=True)[2:],
                "algorithm": [*_algorithm(_create("deconvolution_forward"), "CONVOLUTION_DIRECT"), ("DECONVOLUTION_WINOGRAD", "dnnl.AlgKind.DECONVOLUTION_WINOGRAD", Either(OK, Raises(REFUSED, ("algorithm", _create("deconvolution_forward")))))],
                "prop_kind": _prop_kind(),
                "attr": _attr()[:1],
            }, then=RUN),
        Api("EltwiseForwardDesc",
            "pd = dnnl.EltwiseForwardDesc($engine, $algorithm, $src_desc, $dst_desc, $alpha, $beta, "
            "prop_kind=$prop_kind, attr=$attr)",
            {"engine": "eng", "algorithm": "dnnl.AlgKind.ELTWISE_RELU", "src_desc": "md", "dst_desc": "md",
             "alpha": "0.0", "beta": "0.0", "prop_kind": "dnnl.PropKind.FORWARD_INFERENCE", "attr": "None"}, {
                "engine": _engine(),
                "algorithm": [*_algorithm(_create("eltwise_forward"), "POOLING_MAX", full=True), ("a binary algorithm", "dnnl.AlgKind.BINARY_ADD", Raises(REFUSED, ("algorithm", _create("eltwise_forward")))), ("a backward-only algorithm", "dnnl.AlgKind.ELTWISE_RELU_USE_DST_FOR_BWD", Either(OK, Raises(REFUSED, ("algorithm", _create("eltwise_forward")))))],
                "src_desc": [*_desc("src_desc", _create("eltwise_forward"), _md((2, 2))), ("format any", _md((4, 4), "any"), Raises(REFUSED, ("src_desc", _create("eltwise_forward"))))],
                "dst_desc": _desc("dst_desc", _create("eltwise_forward"), _md((2, 2))),
                "alpha": _number("alpha", _create("eltwise_forward"), full=True),
                "beta": _number("beta", _create("eltwise_forward"))[2:],
                "prop_kind": _prop_kind(),
                "attr": _attr(),
            }, then=RUN),
        Api("SoftmaxForwardDesc",
            "pd = dnnl.SoftmaxForwardDesc($engine, $algorithm, $src_desc, $dst_desc, $axis, prop_kind=$prop_kind, "
            "attr=$attr)",
            {"engine": "eng", "algorithm": "dnnl.AlgKind.SOFTMAX_ACCURATE", "src_desc": "md", "dst_desc": "md",
             "axis": "1", "prop_kind": "dnnl.PropKind.FORWARD_INFERENCE", "attr": "None"}, {
                "engine": _engine(),
                "algorithm": [*_algorithm(_create("softmax_forward"), "ELTWISE_RELU"), ("SOFTMAX_LOG", "dnnl.AlgKind.SOFTMAX_LOG", OK)],
                "src_desc": [*_desc("src_desc", _create("softmax_forward"))[1:], ("mismatched dims", _md((2, 2)), Either(OK, Raises(REFUSED, ("src_desc", _create("softmax_forward")))))],
                "dst_desc": _desc("dst_desc", _create("softmax_forward"))[:1],
                "axis": _c_int("axis", _create("softmax_forward"), "2"),
                "prop_kind": _prop_kind(),
                "attr": _attr()[:1],
            }, then=RUN),
        Api("BinaryDesc",
            "pd = dnnl.BinaryDesc($engine, $algorithm, $src0_desc, $src1_desc, $dst_desc, src2_desc=$src2_desc, "
            "attr=$attr)",
            {"engine": "eng", "algorithm": "dnnl.AlgKind.BINARY_ADD", "src0_desc": "md", "src1_desc": "md",
             "dst_desc": "md", "src2_desc": "None", "attr": "None"}, {
                "engine": _engine(),
                "algorithm": [*_algorithm(_create("binary"), "ELTWISE_RELU"), ("BINARY_SELECT without src2_desc", "dnnl.AlgKind.BINARY_SELECT", Raises(REFUSED, ("algorithm", "src2_desc", _create("binary"))))],
                "src0_desc": _desc("src0_desc", _create("binary"), _md((3, 4))),
                "src1_desc": [*_desc("src1_desc", _create("binary"), _md((3, 4))), ("broadcast row", _md((1, 4)), OK), ("another data type", _md((4, 4), dtype="int8"), Either(OK, Raises(REFUSED, "src1_desc")))],
                "dst_desc": _desc("dst_desc", _create("binary"), _md((1, 4))),
                "src2_desc": [
                    ("closed MemoryDesc", "closed_md", Raises(CLOSED, "src2_desc")),
                    ("a Memory", "src", Raises(TYPE, "src2_desc")),
                    ("given for BINARY_ADD", "md",
                     Either(OK, Raises(REFUSED, ("src2_desc", "dnnl_binary_primitive_desc_create_v2")))),
                ],
                "attr": _attr(),
            }, then=RUN),
        Api("PoolingForwardDesc",
            "pd = dnnl.PoolingForwardDesc($engine, $algorithm, $src_desc, $dst_desc, $strides, $kernel, "
            "$padding_l, $padding_r, dilation=$dilation, prop_kind=$prop_kind, attr=$attr)",
            {"engine": "eng", "algorithm": "dnnl.AlgKind.POOLING_MAX", "src_desc": "md4",
             "dst_desc": _md((1, 4, 2, 2)), "strides": "(2, 2)", "kernel": "(2, 2)", "padding_l": "(0, 0)",
             "padding_r": "(0, 0)", "dilation": "None", "prop_kind": "dnnl.PropKind.FORWARD_INFERENCE",
             "attr": "None"}, {
                "engine": _engine(),
                "algorithm": [*_algorithm(_create("pooling_forward"), "ELTWISE_RELU"), ("LRN_ACROSS_CHANNELS", "dnnl.AlgKind.LRN_ACROSS_CHANNELS", Raises(REFUSED, ("algorithm", _create("pooling_forward")))), ("POOLING_AVG_EXCLUDE_PADDING", "dnnl.AlgKind.POOLING_AVG_EXCLUDE_PADDING", OK)],
                "src_desc": [*_desc("src_desc", _create("pooling_forward"), _md((1, 3, 4, 4)), closed="closed_md4"), ("no spatial dimension", m4, Raises(VALUE, "src_desc"))],
                "dst_desc": _desc("dst_desc", _create("pooling_forward"), _md((1, 4, 3, 3))),
                "strides": _dims("strides", _create("pooling_forward"), minimum=1),
                "kernel": [*_dims("kernel", _create("pooling_forward"), minimum=1), ("larger than the source", "(5, 5)", Raises(REFUSED, ("kernel", _create("pooling_forward"))))],
                "padding_l": _dims("padding_l", _create("pooling_forward"))[:2],
                "dilation": _dims("dilation", _create("pooling_forward"), default=True)[1:],
                "prop_kind": [*_prop_kind(), ("FORWARD_TRAINING (a workspace)", "dnnl.PropKind.FORWARD_TRAINING", OK)],
                "attr": _attr()[:1],
            }, then=RUN),
        Api("BatchNormalizationForwardDesc",
            "pd = dnnl.BatchNormalizationForwardDesc($engine, $src_desc, $dst_desc, $epsilon, $flags, "
            "prop_kind=$prop_kind, attr=$attr)",
            {"engine": "eng", "src_desc": "md4", "dst_desc": "md4", "epsilon": "1e-5",
             "flags": "dnnl.NormalizationFlags.NONE", "prop_kind": "dnnl.PropKind.FORWARD_INFERENCE",
             "attr": "None"}, {
                "engine": _engine(),
                "src_desc": _desc("src_desc", _create("batch_normalization_forward"), _md((1, 2, 4, 4))),
                "dst_desc": _desc("dst_desc", _create("batch_normalization_forward"), _md((1, 2, 4, 4))),
                "epsilon": [*_number("epsilon", _create("batch_normalization_forward")), ("negative", "-1.0", Either(OK, Raises(REFUSED, ("epsilon", _create("batch_normalization_forward")))))],
                "flags": _flags("flags", _create("batch_normalization_forward")),
                "prop_kind": [*_prop_kind(), ("FORWARD_TRAINING (mean and variance out)", "dnnl.PropKind.FORWARD_TRAINING", OK)],
                "attr": _attr()[:1],
            }, then=RUN),
        Api("LayerNormalizationForwardDesc",
            "pd = dnnl.LayerNormalizationForwardDesc($engine, $src_desc, $dst_desc, $epsilon, $flags, "
            "stat_desc=$stat_desc, scale_shift_data_type=$scale_shift_data_type, prop_kind=$prop_kind, attr=$attr)",
            {"engine": "eng", "src_desc": "md", "dst_desc": "md", "epsilon": "1e-5",
             "flags": "dnnl.NormalizationFlags.NONE", "stat_desc": "None", "scale_shift_data_type": "'f32'",
             "prop_kind": "dnnl.PropKind.FORWARD_INFERENCE", "attr": "None"}, {
                "engine": _engine(),
                "src_desc": _desc("src_desc", _create("layer_normalization_forward_v2"), _md((2, 4))),
                "dst_desc": _desc("dst_desc", _create("layer_normalization_forward_v2"), _md((4, 2)))[1:],
                "epsilon": _number("epsilon", _create("layer_normalization_forward_v2"))[:2],
                "flags": [*_flags("flags", _create("layer_normalization_forward_v2"))[:3], ("RMS_NORM", "dnnl.NormalizationFlags.RMS_NORM", OK)],
                "stat_desc": [
                    ("closed MemoryDesc", "closed_md", Raises(CLOSED, "stat_desc")),
                    ("a Memory", "src", Raises(TYPE, "stat_desc")),
                    ("mismatched dims", _md((3,)),
                     Either(OK, Raises(REFUSED, ("stat_desc", _create("layer_normalization_forward_v2"))))),
                    ("of the rows", _md((4,)), OK),
                ],
                "scale_shift_data_type": [
                    ("unknown name", "'xyz'", Raises(TYPE, "scale_shift_data_type")),
                    ("None", "None", Raises(TYPE, "scale_shift_data_type")),
                    ("int", "5", Raises(TYPE, "scale_shift_data_type")),
                    ("complex64", "'complex64'", Raises(TYPE, "scale_shift_data_type")),
                    ("numpy float16", "np.float16", Either(OK, Raises(REFUSED, ("scale_shift_data_type",
                                                                                _create("layer_normalization_forward_v2"))))),
                ],
                "prop_kind": _prop_kind(),
            }, then=RUN),
        Api("GroupNormalizationForwardDesc",
            "pd = dnnl.GroupNormalizationForwardDesc($engine, $src_desc, $dst_desc, $groups, $epsilon, $flags, "
            "prop_kind=$prop_kind)",
            {"engine": "eng", "src_desc": "md4", "dst_desc": "md4", "groups": "2", "epsilon": "1e-5",
             "flags": "dnnl.NormalizationFlags.NONE", "prop_kind": "dnnl.PropKind.FORWARD_INFERENCE"}, {
                "engine": _engine(),
                "src_desc": _desc("src_desc", _create("group_normalization_forward"), _md((1, 2, 4, 4))),
                "dst_desc": _desc("dst_desc", _create("group_normalization_forward"), _md((1, 2, 4, 4)))[1:],
                "groups": [*_count("groups", _create("group_normalization_forward"), "3", full=True), ("0", "0", Raises(REFUSED, ("groups", _create("group_normalization_forward")))), ("one per channel", "4", OK)],
                "epsilon": _number("epsilon", _create("group_normalization_forward"))[:2],
                "flags": _flags("flags", _create("group_normalization_forward"))[1:3],
                "prop_kind": _prop_kind(),
            }, then=RUN),
        Api("ReductionDesc",
            "pd = dnnl.ReductionDesc($engine, $algorithm, $src_desc, $dst_desc, $p, $eps, attr=$attr)",
            {"engine": "eng", "algorithm": "dnnl.AlgKind.REDUCTION_SUM", "src_desc": "md",
             "dst_desc": _md((4, 1)), "p": "0.0", "eps": "0.0", "attr": "None"}, {
                "engine": _engine(),
                "algorithm": [*_algorithm(_create("reduction"), "POOLING_MAX"), ("REDUCTION_NORM_LP_SUM", "dnnl.AlgKind.REDUCTION_NORM_LP_SUM", Either(OK, Raises(REFUSED, ("algorithm", "p", _create("reduction")))))],
                "src_desc": _desc("src_desc", _create("reduction"), _md((3, 4)))[1:],
                "dst_desc": [*_desc("dst_desc", _create("reduction"), _md((3, 1))), ("the same as src (nothing reduced)", "md", Raises(REFUSED, ("dst_desc", _create("reduction"))))],
                "p": _number("p", _create("reduction"))[:2],
                "eps": _number("eps", _create("reduction"))[2:],
                "attr": _attr()[:1],
            }, then=RUN),
        Api("ResamplingForwardDesc",
            "pd = dnnl.ResamplingForwardDesc($engine, $algorithm, $src_desc, $dst_desc, factors=$factors, "
            "prop_kind=$prop_kind)",
            {"engine": "eng", "algorithm": "dnnl.AlgKind.RESAMPLING_NEAREST", "src_desc": _md((1, 1, 4, 4)),
             "dst_desc": _md((1, 1, 8, 8)), "factors": "None", "prop_kind": "dnnl.PropKind.FORWARD_INFERENCE"}, {
                "engine": _engine(),
                "algorithm": [*_algorithm(_create("resampling_forward"), "REDUCTION_SUM"), ("RESAMPLING_LINEAR", "dnnl.AlgKind.RESAMPLING_LINEAR", OK)],
                "src_desc": _desc("src_desc", _create("resampling_forward"), _md((1, 2, 4, 4)), closed="closed_md4"),
                "dst_desc": _desc("dst_desc", _create("resampling_forward"), _md((1, 2, 8, 8)))[:2],
                "factors": [
                    ("too few", "(2.0,)", Raises(VALUE, "factors")),
                    ("str", "'22'", Raises(TYPE_OR_VALUE, "factors")),
                    ("a None in it", "(None, 2.0)", Raises(TYPE, ("factors", "factors[0]"))),
                    ("a str in it", "('2', 2.0)", Raises(TYPE, ("factors", "factors[0]"))),
                    ("negative", "(-2.0, 2.0)", Either(OK, Raises(REFUSED, ("factors", _create("resampling_forward"))))),
                    ("zero", "(0.0, 0.0)", Either(OK, Raises(REFUSED, ("factors", _create("resampling_forward"))))),
                    ("nan", "(float('nan'), 2.0)",
                     Either(OK, Raises(REFUSED, ("factors", _create("resampling_forward"))))),
                    ("the right ones", "(2.0, 2.0)", OK),
                ],
                "prop_kind": _prop_kind(),
            }, then=RUN),
        Api("ConcatDesc",
            "pd = dnnl.ConcatDesc($engine, $concat_dimension, $src_descs, dst_desc=$dst_desc, attr=$attr)",
            {"engine": "eng", "concat_dimension": "1", "src_descs": "[md, md]", "dst_desc": "None",
             "attr": "None"}, {
                "engine": _engine(),
                "concat_dimension": _c_int("concat_dimension", _create("concat"), "2")[:-1],
                "src_descs": _descs_list("src_descs", _create("concat"), _md((5, 5))),
                "dst_desc": [
                    ("closed MemoryDesc", "closed_md", Raises(CLOSED, "dst_desc")),
                    ("a Memory", "src", Raises(TYPE, "dst_desc")),
                    ("the wrong shape", "md", Raises(REFUSED, ("dst_desc", _create("concat")))),
                    ("the right shape", _md((4, 8)), OK),
                ],
                "attr": _attr()[:1],
            }, then=RUN),
        Api("SumDesc",
            "pd = dnnl.SumDesc($engine, $scales, $src_descs, dst_desc=$dst_desc, attr=$attr)",
            {"engine": "eng", "scales": "[1.0, 2.0]", "src_descs": "[md, md]", "dst_desc": "None",
             "attr": "None"}, {
                "engine": _engine(),
                "scales": [
                    ("too few", "[1.0]", Raises(VALUE, "scales")),
                    ("too many", "[1.0, 1.0, 1.0]", Raises(VALUE, "scales")),
                    ("None", "None", Raises(TYPE, "scales")),
                    ("str", "'12'", Raises(TYPE, "scales")),
                    ("a None in it", "[None, 1.0]", Raises(TYPE, ("scales", "scales[0]"))),
                    ("a str in it", "['1', 1.0]", Raises(TYPE, ("scales", "scales[0]"))),
                    ("an int too big for a float", "[10**400, 1.0]", Raises(TYPE_OR_VALUE, ("scales", "scales[0]"))),
                    ("ndarray", "np.array([1.0, 2.0])", Either(OK, Raises(TYPE, "scales"))),
                    ("a tuple of ints", "(1, 2)", OK),
                ],
                "src_descs": _descs_list("src_descs", _create("sum"), _md((5, 5)))[3:7],
                "dst_desc": [
                    ("closed MemoryDesc", "closed_md", Raises(CLOSED, "dst_desc")),
                    ("the wrong shape", _md((4, 8)), Raises(REFUSED, ("dst_desc", _create("sum")))),
                ],
                "attr": _attr()[:1],
            }, then=RUN),
        Api("PReLUForwardDesc",
            "pd = dnnl.PReLUForwardDesc($engine, $src_desc, $weights_desc, $dst_desc, prop_kind=$prop_kind)",
            {"engine": "eng", "src_desc": "md", "weights_desc": _md((1, 4)), "dst_desc": "md",
             "prop_kind": "dnnl.PropKind.FORWARD_INFERENCE"}, {
                "engine": _engine(),
                "src_desc": _desc("src_desc", _create("prelu_forward"), _md((3, 3))),
                "weights_desc": [*_desc("weights_desc", _create("prelu_forward"), _md((3, 3))), ("the same shape as src", "md", OK)],
                "dst_desc": _desc("dst_desc", _create("prelu_forward"), _md((3, 3)))[1:],
                "prop_kind": _prop_kind(),
            }, then=RUN),
        Api("ShuffleForwardDesc",
            "pd = dnnl.ShuffleForwardDesc($engine, $src_desc, $dst_desc, $axis, $group_size, prop_kind=$prop_kind)",
            {"engine": "eng", "src_desc": "md", "dst_desc": "md", "axis": "1", "group_size": "2",
             "prop_kind": "dnnl.PropKind.FORWARD_INFERENCE"}, {
                "engine": _engine(),
                "src_desc": _desc("src_desc", _create("shuffle_forward"), _md((3, 3))),
                "dst_desc": _desc("dst_desc", _create("shuffle_forward"), _md((3, 3)))[1:],
                "axis": _c_int("axis", _create("shuffle_forward"), "2")[:6],
                "group_size": [*_count("group_size", _create("shuffle_forward"), "3", full=True), ("0", "0", Raises(REFUSED, ("group_size", _create("shuffle_forward")))), ("2**62", "2**62", Raises(REFUSED, ("group_size", _create("shuffle_forward"))))],
                "prop_kind": _prop_kind(),
            }, then=RUN),
        Api("LRNForwardDesc",
            "pd = dnnl.LRNForwardDesc($engine, $algorithm, $src_desc, $dst_desc, $local_size, $alpha, $beta, $k, "
            "prop_kind=$prop_kind)",
            {"engine": "eng", "algorithm": "dnnl.AlgKind.LRN_ACROSS_CHANNELS", "src_desc": "md4", "dst_desc": "md4",
             "local_size": "3", "alpha": "1e-4", "beta": "0.75", "k": "1.0",
             "prop_kind": "dnnl.PropKind.FORWARD_INFERENCE"}, {
                "engine": _engine(),
                "algorithm": [*_algorithm(_create("lrn_forward"), "POOLING_MAX"), ("LRN_WITHIN_CHANNEL", "dnnl.AlgKind.LRN_WITHIN_CHANNEL", OK)],
                "src_desc": _desc("src_desc", _create("lrn_forward"), _md((1, 2, 4, 4))),
                "dst_desc": _desc("dst_desc", _create("lrn_forward"), _md((1, 2, 4, 4)))[1:],
                "local_size": [
                    ("-1", "-1", Raises(VALUE, "local_size")),
                    ("2**64", "2**64", Raises(VALUE, "local_size")),
                    ("None", "None", Raises(TYPE, "local_size")),
                    ("float", "3.0", Raises(TYPE, "local_size")),
                    ("0", "0", Either(OK, Raises(REFUSED, ("local_size", _create("lrn_forward"))))),
                    ("2**62", "2**62", Either(OK, Raises(REFUSED, ("local_size", _create("lrn_forward"))))),
                ],
                "alpha": _number("alpha", _create("lrn_forward"))[:2],
                "beta": _number("beta", _create("lrn_forward"))[2:],
                "k": _number("k", _create("lrn_forward"))[:1],
                "prop_kind": [*_prop_kind(), ("FORWARD_TRAINING", "dnnl.PropKind.FORWARD_TRAINING", OK)],
            }, then=RUN),
        Api("ReorderDesc",
            "pd = dnnl.ReorderDesc($src_engine, $src_desc, $dst_engine, $dst_desc, attr=$attr)",
            {"src_engine": "eng", "src_desc": "md", "dst_engine": "eng", "dst_desc": "md_t", "attr": "None"}, {
                # A first argument that is no Engine is named as the engine that comes first.
                "src_engine": [(vid, expr, Raises(expect.classes, ("src_engine", "engine")))
                               for vid, expr, expect in dnnl_object("Engine", "src_engine")],
                "src_desc": _desc("src_desc", _create("reorder"), _md((4, 3)), more=True),
                "dst_engine": dnnl_object("Engine", "dst_engine"),
                "dst_desc": [*_desc("dst_desc", _create("reorder"), _md((3, 4)), more=True),
                             ("s8", _md((4, 4), dtype="int8"), OK), ("format any", _md((4, 4), "any"),
                                                                     Raises(REFUSED, ("dst_desc", _create("reorder"))))],
                "attr": _attr(full=True),
            }, then=RUN),
    ]


# --- misuse sequences ------------------------------------------------------------------

MM_RUN = "mm_prim.execute(strm, mm_args); strm.wait()\nassert np.allclose(mm_out, mm_ref), 'the matmul is wrong'"
MM_CHECK = "assert np.allclose(mm_out, mm_ref), 'the matmul is wrong'"
CONV_CHECK = "assert np.allclose(conv_run(conv_prim, conv_pd, strm), conv_ref), 'the convolution is wrong'"
# conv_pd's memories in the layouts oneDNN chose (reordered from the plain ones), and a new dst
CONV_ARGS = """
c_src = dnnl.reordered(conv_src_plain, conv_pd.src_desc(), strm)
c_wei = dnnl.reordered(conv_wei_plain, conv_pd.weights_desc(), strm)
c_dst = dnnl.Memory(conv_pd.dst_desc(), eng)
strm.wait()
"""


def _seq(section: str, library: str = "real"):
    def make(name: str, code: str, expect=OK, **kw) -> Case:
        return Case(name, section, code.strip(), expect, library=library, **kw)
    return make


def layout_cases() -> list[Case]:
    """Memories in another layout than the one oneDNN chose: refused, never computed on."""
    case = _seq("layouts/cpu")
    conv_exec = "conv_prim.execute(strm, {{dnnl.ARG_SRC: {s}, dnnl.ARG_WEIGHTS: {w}, dnnl.ARG_DST: {d}}}); strm.wait()"
    return [
        case("conv 'any': a plain nchw source where oneDNN chose another layout",
             CONV_ARGS + conv_exec.format(s="conv_src_plain", w="c_wei", d="c_dst"), Raises(VALUE, "args[1]")),
        case("conv 'any': plain oihw weights where oneDNN chose a blocked layout",
             CONV_ARGS + conv_exec.format(s="c_src", w="conv_wei_plain", d="c_dst"), Raises(VALUE, "args[33]")),
        case("conv 'any': a plain nchw destination where oneDNN chose another layout",
             CONV_ARGS + conv_exec.format(s="c_src", w="c_wei", d="conv_dst_plain"), Raises(VALUE, "args[17]")),
        case("conv 'any': source and weights swapped",
             CONV_ARGS + conv_exec.format(s="c_wei", w="c_src", d="c_dst"), Raises(VALUE, ("args[1]", "args[33]"))),
        case("conv 'any': memories reordered into the chosen layouts compute the right result", CONV_CHECK),
        case("conv 'any': weights in another blocked layout (Acdb8a, or Acdb16a where oneDNN chose Acdb8a)",
             CONV_ARGS + "other = 'Acdb16a' if conv_pd.weights_desc().tag == 'Acdb8a' else 'Acdb8a'\n"
             "w8 = dnnl.reordered(conv_wei_plain, dnnl.MemoryDesc((8, 3, 3, 3), 'float32', other), strm)\n"
             + conv_exec.format(s="c_src", w="w8", d="c_dst"), Raises(VALUE, "args[33]")),
        case("conv 'any': weights in the chosen layout's tag but bf16",
             CONV_ARGS + "wb = dnnl.Memory(dnnl.MemoryDesc((8, 3, 3, 3), 'bf16', conv_pd.weights_desc().tag), eng)\n"
             + conv_exec.format(s="c_src", w="wb", d="c_dst"), Raises(VALUE, "args[33]")),
        case("conv 'any': weights of a descriptor made apart with the chosen tag are taken",
             "wd = dnnl.MemoryDesc((8, 3, 3, 3), 'float32', conv_pd.weights_desc().tag)\n"
             "w = dnnl.reordered(conv_wei_plain, wd, strm)\n"
             "assert np.allclose(conv_run(conv_prim, conv_pd, strm, weights=w), conv_ref), 'the convolution is wrong'"),
        case("conv 'any': memories made from another descriptor's equal choice are taken",
             "pd2 = dnnl.ConvolutionForwardDesc(eng, dnnl.MemoryDesc((1, 3, 8, 8), 'float32', 'any'), "
             "dnnl.MemoryDesc((8, 3, 3, 3), 'float32', 'any'), dnnl.MemoryDesc((1, 8, 6, 6), 'float32', 'any'), "
             "(1, 1), (0, 0), (0, 0))\n"
             "w = dnnl.reordered(conv_wei_plain, pd2.weights_desc(), strm)\n"
             "assert np.allclose(conv_run(conv_prim, conv_pd, strm, weights=w), conv_ref), 'the convolution is wrong'"),
        case("conv: next_impl to an implementation on plain layouts, plain memories give the right result",
             "while (conv_pd.src_desc(), conv_pd.weights_desc()) != conv_plain_mds[:2]:\n"
             "    assert conv_pd.next_impl(), 'no implementation on plain layouts'\n"
             "p = dnnl.Primitive(conv_pd)\n"
             "got = conv_run(p, conv_pd, strm, src=conv_src_plain, weights=conv_wei_plain)\n"
             "assert np.allclose(got, conv_ref), 'the convolution is wrong'"),
        case("conv: a primitive made before next_impl keeps its own layouts (plain refused)",
             "p = dnnl.Primitive(conv_pd)\n"
             "while (conv_pd.src_desc(), conv_pd.weights_desc()) != conv_plain_mds[:2]:\n"
             "    assert conv_pd.next_impl(), 'no implementation on plain layouts'\n"
             "p.execute(strm, {dnnl.ARG_SRC: conv_src_plain, dnnl.ARG_WEIGHTS: conv_wei_plain, "
             "dnnl.ARG_DST: conv_dst_plain}); strm.wait()", Raises(VALUE, ("args[1]", "args[33]", "args[17]"))),
        case("conv: a primitive made before next_impl computes right in its own layouts",
             CONV_ARGS + "p = dnnl.Primitive(conv_pd)\nwhile conv_pd.next_impl():\n    pass\n"
             "back = np.zeros((1, 8, 6, 6), np.float32)\n"
             "p.execute(strm, {dnnl.ARG_SRC: c_src, dnnl.ARG_WEIGHTS: c_wei, dnnl.ARG_DST: c_dst})\n"
             "dnnl.reorder(c_dst.desc, conv_plain_mds[2], eng).execute(strm, {dnnl.ARG_FROM: c_dst, "
             "dnnl.ARG_TO: dnnl.Memory(conv_plain_mds[2], eng, back)}); strm.wait()\n"
             "assert np.allclose(back, conv_ref), 'the convolution is wrong'"),
        case("conv: next_impl to the last implementation, every one computes right",
             "n = 0\nwhile True:\n"
             "    assert np.allclose(conv_run(dnnl.Primitive(conv_pd), conv_pd, strm), conv_ref), conv_pd.impl_info\n"
             "    n += 1\n"
             "    if not conv_pd.next_impl():\n        break\n"
             "assert n > 1 and conv_pd.next_impl() is False"),
        case("matmul 'any' weights: plain weights where oneDNN chose a blocked layout",
             "pd = dnnl.MatmulDesc(eng, mm_src_md, dnnl.MemoryDesc((8, 16), 'float32', 'any'), mm_dst_md)\n"
             "dnnl.Primitive(pd).execute(strm, mm_args); strm.wait()\n" + MM_CHECK, Raises(VALUE, "args[33]")),
        case("matmul 'any' weights: reordered weights give the right result",
             "pd = dnnl.MatmulDesc(eng, mm_src_md, dnnl.MemoryDesc((8, 16), 'float32', 'any'), mm_dst_md)\n"
             "w = dnnl.reordered(mm_wei, pd.weights_desc(), strm)\n"
             "dnnl.Primitive(pd).execute(strm, {**mm_args, dnnl.ARG_WEIGHTS: w}); strm.wait()\n" + MM_CHECK),
        case("matmul: a transposed (ba) source for an ab descriptor",
             "m = dnnl.Memory(dnnl.MemoryDesc((4, 8), 'float32', 'ba'), eng)\n"
             "mm_prim.execute(strm, {**mm_args, dnnl.ARG_SRC: m}); strm.wait()", Raises(VALUE, "args[1]")),
        case("matmul: a padded (strided) source for a dense descriptor",
             "m = dnnl.Memory(dnnl.MemoryDesc((4, 8), 'float32', strides=(16, 1)), eng)\n"
             "mm_prim.execute(strm, {**mm_args, dnnl.ARG_SRC: m}); strm.wait()", Raises(VALUE, "args[1]")),
        case("matmul: a source of the same bytes but another shape (8, 4)",
             "m = dnnl.Memory(dnnl.MemoryDesc((8, 4), 'float32', 'ab'), eng)\n"
             "mm_prim.execute(strm, {**mm_args, dnnl.ARG_SRC: m}); strm.wait()", Raises(VALUE, "args[1]")),
        case("matmul: a source of the same bytes but int32",
             "m = dnnl.Memory(dnnl.MemoryDesc((4, 8), 'int32', 'ab'), eng)\n"
             "mm_prim.execute(strm, {**mm_args, dnnl.ARG_SRC: m}); strm.wait()", Raises(VALUE, "args[1]")),
        case("matmul: a source described by from_array of a view in place",
             "base = np.zeros((4, 16), np.float32); view = base[:, :8]; view[:] = mm_x\n"
             "m = dnnl.Memory(dnnl.MemoryDesc.from_array(view), eng, view)\n"
             "mm_prim.execute(strm, {**mm_args, dnnl.ARG_SRC: m}); strm.wait()", Raises(VALUE, "args[1]")),
        case("matmul: a memory of an equal descriptor made apart is taken",
             "m = dnnl.Memory(dnnl.MemoryDesc((4, 8), 'float32', 'ab'), eng, mm_x)\n"
             "mm_prim.execute(strm, {**mm_args, dnnl.ARG_SRC: m}); strm.wait()\n" + MM_CHECK),
        case("inner product 'any': a plain source where oneDNN chose another layout",
             "pd = dnnl.InnerProductForwardDesc(eng, dnnl.MemoryDesc((2, 3, 4, 4), 'float32', 'any'), "
             "dnnl.MemoryDesc((5, 3, 4, 4), 'float32', 'any'), dnnl.MemoryDesc((2, 5), 'float32', 'any'))\n"
             "m = run_pd(pd)\nm[dnnl.ARG_SRC] = dnnl.Memory(dnnl.MemoryDesc((2, 3, 4, 4), 'float32', 'abcd'), eng)\n"
             "dnnl.Primitive(pd).execute(strm, m); strm.wait()", Raises(VALUE, "args[1]")),
        case("deconvolution 'any': plain weights where oneDNN chose a blocked layout",
             "pd = dnnl.DeconvolutionForwardDesc(eng, dnnl.MemoryDesc((1, 3, 6, 6), 'float32', 'any'), "
             "dnnl.MemoryDesc((8, 3, 3, 3), 'float32', 'any'), dnnl.MemoryDesc((1, 8, 8, 8), 'float32', 'any'), "
             "(1, 1), (0, 0), (0, 0))\n"
             "m = run_pd(pd)\nm[dnnl.ARG_WEIGHTS] = conv_wei_plain\n"
             "dnnl.Primitive(pd).execute(strm, m); strm.wait()", Raises(VALUE, "args[33]")),
        case("pooling on nChw16c: a plain destination where oneDNN chose the blocked one",
             "pd = dnnl.PoolingForwardDesc(eng, dnnl.AlgKind.POOLING_MAX, "
             "dnnl.MemoryDesc((1, 16, 4, 4), 'float32', 'nChw16c'), dnnl.MemoryDesc((1, 16, 2, 2), 'float32', 'any'), "
             "(2, 2), (2, 2), (0, 0), (0, 0))\n"
             "m = run_pd(pd)\nm[dnnl.ARG_DST] = dnnl.Memory(dnnl.MemoryDesc((1, 16, 2, 2), 'float32', 'abcd'), eng)\n"
             "dnnl.Primitive(pd).execute(strm, m); strm.wait()", Raises(VALUE, "args[17]")),
        case("batch normalization on nChw16c: a plain nchw source",
             "d = dnnl.MemoryDesc((1, 16, 4, 4), 'float32', 'nChw16c')\n"
             "pd = dnnl.BatchNormalizationForwardDesc(eng, d, d, 1e-5)\n"
             "m = run_pd(pd)\nm[dnnl.ARG_SRC] = dnnl.Memory(dnnl.MemoryDesc((1, 16, 4, 4), 'float32', 'abcd'), eng)\n"
             "dnnl.Primitive(pd).execute(strm, m); strm.wait()", Raises(VALUE, "args[1]")),
        case("sum: a source in another layout than the one given",
             "pd = dnnl.SumDesc(eng, [1.0, 1.0], [md, md])\n"
             "m = run_pd(pd)\nm[dnnl.ARG_MULTIPLE_SRC + 1] = dnnl.Memory(md_t, eng)\n"
             "dnnl.Primitive(pd).execute(strm, m); strm.wait()", Raises(VALUE, "args[1025]")),
        case("concat: oneDNN's dst choice, a destination of another shape",
             "pd = dnnl.ConcatDesc(eng, 1, [md, md])\n"
             "m = run_pd(pd)\nm[dnnl.ARG_DST] = dnnl.Memory(dnnl.MemoryDesc((8, 4), 'float32', 'ab'), eng)\n"
             "dnnl.Primitive(pd).execute(strm, m); strm.wait()", Raises(VALUE, "args[17]")),
    ]


# A matmul with a binary-add post-op of a (1, 16) row, its input bias_row.
BINARY_PD = """
bias_row = np.arange(16, dtype=np.float32).reshape(1, 16)
row_md = dnnl.MemoryDesc((1, 16), "float32", "ab")
post_ops.append_binary(dnnl.AlgKind.BINARY_ADD, row_md)
attr.set_post_ops(post_ops)
pd = dnnl.MatmulDesc(eng, mm_src_md, mm_wei_md, mm_dst_md, attr=attr)
p = dnnl.Primitive(pd)
"""
# A matmul whose weights are scaled per output column at execute.
SCALED_PD = """
attr.set_scales_mask(dnnl.ARG_WEIGHTS, 2)
pd = dnnl.MatmulDesc(eng, mm_src_md, mm_wei_md, mm_dst_md, attr=attr)
p = dnnl.Primitive(pd)
col_scales = np.arange(1, 17, dtype=np.float32)
scales = dnnl.Memory(dnnl.MemoryDesc((16,), "float32", "a"), eng, col_scales)
"""
# A grouped u8 x s8 convolution with a weights scale per (group, output channel).
GROUPED_SCALES = """
attr.set_scales_mask(dnnl.ARG_WEIGHTS, 3)
gx = np.arange(150, dtype=np.uint8).reshape(1, 6, 5, 5) % 4
gw = (np.arange(216, dtype=np.int8).reshape(2, 4, 3, 3, 3) % 7 - 3).astype(np.int8)
g_scales = (2.0 ** (np.arange(8) % 5 - 2)).astype(np.float32).reshape(2, 4)
gpd = dnnl.ConvolutionForwardDesc(eng, dnnl.MemoryDesc(gx.shape, "uint8", "abcd"), dnnl.MemoryDesc(gw.shape, "int8", "abcde"),
                                  dnnl.MemoryDesc((1, 8, 3, 3), "float32", "abcd"), (1, 1), (0, 0), (0, 0), attr=attr)
windows = np.lib.stride_tricks.sliding_window_view(gx[0].astype(np.float32), (3, 3), axis=(1, 2))
g_ref = np.concatenate([np.einsum("chwij,ocij->ohw", windows[3 * g:3 * g + 3], gw[g] * g_scales[g][:, None, None, None])
                        for g in range(2)])
def run_grouped(values):
    out = np.zeros((1, 8, 3, 3), np.float32)
    def memory(array):
        return dnnl.Memory(dnnl.MemoryDesc.from_array(array), eng, array)
    weights = dnnl.reordered(memory(gw), gpd.weights_desc(), strm)
    dnnl.Primitive(gpd).execute(strm, {dnnl.ARG_SRC: memory(gx), dnnl.ARG_WEIGHTS: weights, dnnl.ARG_DST: memory(out),
                                       dnnl.scales_arg(dnnl.ARG_WEIGHTS): memory(values)})
    strm.wait()
    assert np.array_equal(out[0], g_ref), 'each scale multiplied another group and channel'
"""
# A u8 x s8 matmul with a zero point on its source.
ZP_PD = """
attr.set_zero_points_mask(dnnl.ARG_SRC, 0)
u8, s8, s32 = (dnnl.MemoryDesc(s, t, "ab") for s, t in (((4, 8), "uint8"), ((8, 16), "int8"), ((4, 16), "int32")))
pd = dnnl.MatmulDesc(eng, u8, s8, s32, attr=attr)
p = dnnl.Primitive(pd)
xq = np.arange(32, dtype=np.uint8).reshape(4, 8) % 9 + 3; wq = np.arange(128, dtype=np.int8).reshape(8, 16) % 5
yq = np.zeros((4, 16), np.int32)
q_args = {dnnl.ARG_SRC: dnnl.Memory(u8, eng, xq), dnnl.ARG_WEIGHTS: dnnl.Memory(s8, eng, wq),
          dnnl.ARG_DST: dnnl.Memory(s32, eng, yq)}
zp = dnnl.Memory(dnnl.MemoryDesc((1,), "int32", "a"), eng, np.array([3], np.int32))
zp_ref = (xq.astype(np.int32) - 3) @ wq.astype(np.int32)
"""
# A convolution on plain layouts with the scratchpad given by the user.
SCRATCH_PD = """
attr.set_scratchpad_mode(dnnl.ScratchpadMode.USER)
pd = dnnl.ConvolutionForwardDesc(eng, *conv_plain_mds, (1, 1), (0, 0), (0, 0), attr=attr)
p = dnnl.Primitive(pd)
assert pd.scratchpad_desc() is not None, "this convolution needs no scratchpad here"
s_args = {dnnl.ARG_SRC: conv_src_plain, dnnl.ARG_WEIGHTS: conv_wei_plain, dnnl.ARG_DST: conv_dst_plain}
"""


def attr_cases() -> list[Case]:
    """Attributes, post-ops, scales, zero points and the scratchpad, at creation and at execute."""
    case = _seq("attr/cpu")
    po = "dnnl.post_op_arg(0)"
    run_binary = "p.execute(strm, {{**mm_args, {key}: {mem}}}); strm.wait()\n" \
                 "assert np.allclose(mm_out, mm_ref + bias_row), 'the post-op result is wrong'"
    row = "dnnl.Memory(row_md, eng, bias_row)"
    run_scaled = "p.execute(strm, {{**mm_args, {key}: {mem}}}); strm.wait()\n" \
                 "assert np.allclose(mm_out, mm_ref * col_scales), 'the scaled result is wrong'"
    sc = "dnnl.scales_arg(dnnl.ARG_WEIGHTS)"
    run_zp = "p.execute(strm, {{**q_args, {key}: {mem}}}); strm.wait()\n" \
             "assert np.array_equal(yq, zp_ref), 'the zero-point result is wrong'"
    zpa = "dnnl.zero_points_arg(dnnl.ARG_SRC)"
    run_scratch = "p.execute(strm, {{**s_args, dnnl.ARG_SCRATCHPAD: {mem}}}); strm.wait()\n" \
                  "assert np.allclose(conv_out, conv_ref), 'the convolution is wrong'"
    # A primitive kind that takes no post-ops: each one with an eltwise post-op.
    no_post_ops = {
        "eltwise": "dnnl.EltwiseForwardDesc(eng, dnnl.AlgKind.ELTWISE_RELU, md, md, attr=attr)",
        "shuffle": "dnnl.ShuffleForwardDesc(eng, md, md, 1, 2, attr=attr)",
        "concat": "dnnl.ConcatDesc(eng, 0, [md, md], attr=attr)",
        "sum": "dnnl.SumDesc(eng, [1.0, 1.0], [md, md], attr=attr)",
        "prelu": "dnnl.PReLUForwardDesc(eng, md, md, md, attr=attr)",
        "lrn": "dnnl.LRNForwardDesc(eng, dnnl.AlgKind.LRN_ACROSS_CHANNELS, md4, md4, 3, 1e-4, 0.75, attr=attr)",
    }
    out = [
        # --- binary post-op inputs at execute
        case("binary post-op: its input given, the right result", BINARY_PD + run_binary.format(key=po, mem=row)),
        case("binary post-op: its input missing at execute", BINARY_PD + "p.execute(strm, mm_args); strm.wait()",
             Raises(VALUE, ("args", "post_op_arg(0, ARG_SRC_1)"))),
        case("binary post-op: its input None at execute", BINARY_PD + run_binary.format(key=po, mem="None"),
             Raises(VALUE, ("args", "args[32770]", "post_op_arg(0, ARG_SRC_1)"))),
        case("binary post-op: its input in another layout (16, 1)",
             BINARY_PD + run_binary.format(key=po, mem="dnnl.Memory(dnnl.MemoryDesc((16, 1), 'float32', 'ab'), eng)"),
             Raises(VALUE, "args[32770]")),
        case("binary post-op: its input too small",
             BINARY_PD + run_binary.format(key=po, mem="dnnl.Memory(dnnl.MemoryDesc((1, 4), 'float32', 'ab'), eng)"),
             Raises(VALUE, "args[32770]")),
        case("binary post-op: its input int32",
             BINARY_PD + run_binary.format(key=po, mem="dnnl.Memory(dnnl.MemoryDesc((1, 16), 'int32', 'ab'), eng)"),
             Raises(VALUE, "args[32770]")),
        case("binary post-op: its input given at post-op index 1",
             BINARY_PD + run_binary.format(key="dnnl.post_op_arg(1)", mem=row),
             Raises(VALUE, ("args", "post_op_arg(0, ARG_SRC_1)"))),
        case("binary post-op: its input given as ARG_SRC_0 of the post-op",
             BINARY_PD + run_binary.format(key="dnnl.post_op_arg(0, dnnl.ARG_SRC_0)", mem=row),
             Raises(VALUE, ("args", "post_op_arg(0, ARG_SRC_1)"))),
        case("binary post-op: its input closed",
             BINARY_PD + "m = dnnl.Memory(row_md, eng, bias_row); m.close()\n" + run_binary.format(key=po, mem="m"),
             Raises(CLOSED, "args[32770]")),
        case("binary post-op: its input on another engine object",
             BINARY_PD + run_binary.format(key=po, mem="dnnl.Memory(row_md, eng2, bias_row)"),
             Either(OK, Raises(VALUE, "args[32770]"))),
        case("binary post-op: its input dropped right after execute",
             BINARY_PD + "p.execute(strm, {**mm_args, dnnl.post_op_arg(0): dnnl.Memory(row_md, eng, bias_row.copy())})\n"
             "gc.collect(); filler = [np.full(16, 7, np.float32) for _ in range(100)]\nstrm.wait()\n"
             "assert np.allclose(mm_out, mm_ref + bias_row), 'the post-op result is wrong'"),
        case("binary post-op: the post-ops changed after the descriptor was made",
             BINARY_PD + "post_ops.append_eltwise(dnnl.AlgKind.ELTWISE_LINEAR, 0.0, 0.0)\nattr.set_post_ops(post_ops)\n"
             + run_binary.format(key=po, mem=row)),
        case("binary post-op: attr and post-ops closed after the descriptor was made",
             BINARY_PD + "attr.close(); post_ops.close()\n" + run_binary.format(key=po, mem=row)),
        case("post-ops: relu, a broadcast multiply and a sum, the right result",
             "post_ops.append_eltwise(dnnl.AlgKind.ELTWISE_RELU, 0.0, 0.0)\n"
             "post_ops.append_binary(dnnl.AlgKind.BINARY_MUL, dnnl.MemoryDesc((1, 1), 'float32', 'ab'))\n"
             "post_ops.append_sum(2.0)\nattr.set_post_ops(post_ops)\n"
             "pd = dnnl.MatmulDesc(eng, mm_src_md, mm_wei_md, mm_dst_md, attr=attr)\n"
             "mm_out[:] = 1.0\n"
             "dnnl.Primitive(pd).execute(strm, {**mm_args, dnnl.post_op_arg(1): dnnl.Memory("
             "dnnl.MemoryDesc((1, 1), 'float32', 'ab'), eng, np.full((1, 1), 3.0, np.float32))}); strm.wait()\n"
             "assert np.allclose(mm_out, np.maximum(mm_ref, 0) * 3 + 2), 'the post-op chain is wrong'"),
        case("post-ops: read back from the descriptor",
             BINARY_PD + "ops = pd.get_attr().get_post_ops()\n"
             "assert len(ops) == 1 and ops.kind(0) == dnnl.PrimitiveKind.BINARY\n"
             "alg, d = ops.get_params_binary(0)\nassert alg == dnnl.AlgKind.BINARY_ADD and d == row_md"),
        case("post-ops: get_params_sum of a binary post-op",
             BINARY_PD + "pd.get_attr().get_post_ops().get_params_sum(0)",
             Raises(VALUE, ("index", "dnnl_post_ops_get_params_sum"))),
        case("post-ops: kind of a post-op past the last", "post_ops.append_sum(); post_ops.kind(1)",
             Raises("IndexError", "index")),
        case("post-ops: kind(-1)", "post_ops.append_sum(); post_ops.kind(-1)", Raises(VALUE, "index")),
        case("post-ops: append_eltwise with a binary algorithm",
             "post_ops.append_eltwise(dnnl.AlgKind.BINARY_ADD, 0.0, 0.0)",
             Raises(VALUE, ("algorithm", "dnnl_post_ops_append_eltwise"))),
        case("post-ops: append_binary with an eltwise algorithm",
             "post_ops.append_binary(dnnl.AlgKind.ELTWISE_RELU, md)",
             Raises(VALUE, ("algorithm", "dnnl_post_ops_append_binary"))),
        case("post-ops: append_binary of a closed descriptor", "post_ops.append_binary(dnnl.AlgKind.BINARY_ADD, closed_md)",
             Raises(CLOSED, "src1_desc")),
        case("post-ops: append_binary of None", "post_ops.append_binary(dnnl.AlgKind.BINARY_ADD, None)",
             Raises(TYPE, "src1_desc")),
        case("post-ops: append_binary of 'any'",
             "post_ops.append_binary(dnnl.AlgKind.BINARY_ADD, dnnl.MemoryDesc((1, 16), 'float32', 'any'))\n"
             "attr.set_post_ops(post_ops)\npd = dnnl.MatmulDesc(eng, mm_src_md, mm_wei_md, mm_dst_md, attr=attr)\n"
             "run_pd(pd)", Either(OK, Raises(REFUSED, ("src1_desc", "dnnl_post_ops_append_binary",
                                                        "dnnl_matmul_primitive_desc_create")))),
        case("post-ops: append_sum of an unknown data type", "post_ops.append_sum(1.0, 0, 'xyz')",
             Raises(TYPE, "data_type")),
        case("post-ops: append_sum with a zero point past int32", "post_ops.append_sum(1.0, 2**31)",
             Raises(VALUE, "zero_point")),
        case("post-ops: append_sum with scale None", "post_ops.append_sum(None)", Raises(TYPE, "scale")),
        case("post-ops: a closed PostOps appended to", "closed_post_ops.append_eltwise(dnnl.AlgKind.ELTWISE_RELU)",
             Raises(CLOSED, "post_ops")),
        case("post-ops: len of a closed PostOps", "len(closed_post_ops)", Raises(CLOSED, "post_ops")),
        case("post-ops: a closed PostOps set on an attr", "attr.set_post_ops(closed_post_ops)",
             Raises(CLOSED, "post_ops")),
        case("post-ops: set_post_ops(None)", "attr.set_post_ops(None)", Raises(TYPE, "post_ops")),
        case("post-ops: a PrimitiveAttr set as post-ops", "attr.set_post_ops(attr)", Raises(TYPE, "post_ops")),
        case("post-ops: sum post-op accumulates into the destination",
             "post_ops.append_sum(0.5)\nattr.set_post_ops(post_ops)\n"
             "pd = dnnl.MatmulDesc(eng, mm_src_md, mm_wei_md, mm_dst_md, attr=attr)\nmm_out[:] = 4.0\n"
             "dnnl.Primitive(pd).execute(strm, mm_args); strm.wait()\n"
             "assert np.allclose(mm_out, mm_ref + 2.0), 'the sum post-op is wrong'"),
        # oneDNN 3.13 answers the 33rd with OUT_OF_MEMORY (OutOfMemoryError).
        case("post-ops: 33 eltwise post-ops (past oneDNN's limit)",
             "for _ in range(33):\n    post_ops.append_eltwise(dnnl.AlgKind.ELTWISE_RELU)\n"
             "attr.set_post_ops(post_ops)\npd = dnnl.MatmulDesc(eng, mm_src_md, mm_wei_md, mm_dst_md, attr=attr)\n"
             "run_pd(pd)", Either(OK, Raises((*REFUSED, "MemoryError"), ("post_ops", "dnnl_post_ops_append_eltwise",
                                                        "dnnl_primitive_attr_set_post_ops",
                                                        "dnnl_matmul_primitive_desc_create")))),
        # --- post-op, scale and zero-point argument indices
        case("post_op_arg(-1)", "dnnl.post_op_arg(-1)", Raises(VALUE, "index")),
        case("post_op_arg of more post-ops than an index can name", "dnnl.post_op_arg(2**16)", Raises(VALUE, "index")),
        case("post_op_arg('0')", "dnnl.post_op_arg('0')", Raises(TYPE, "index")),
        case("post_op_arg(0, -1)", "dnnl.post_op_arg(0, -1)", Raises(VALUE, "arg")),
        case("post_op_arg(0, None)", "dnnl.post_op_arg(0, None)", Raises(TYPE, "arg")),
        case("scales_arg(None)", "dnnl.scales_arg(None)", Raises(TYPE, "arg")),
        case("scales_arg(2**40)", "dnnl.scales_arg(2**40)", Raises(VALUE, "arg")),
        case("zero_points_arg(1.5)", "dnnl.zero_points_arg(1.5)", Raises(TYPE, "arg")),
        case("zero_points_arg(True)", "dnnl.zero_points_arg(True)", Raises(TYPE, "arg")),
        # --- scales at execute
        case("scales: given, the right result", SCALED_PD + run_scaled.format(key=sc, mem="scales")),
        case("scales: missing at execute", SCALED_PD + "p.execute(strm, mm_args); strm.wait()\n" + MM_CHECK,
             Raises(VALUE, ("args", "scales_arg(ARG_WEIGHTS)"))),
        case("scales: None at execute", SCALED_PD + run_scaled.format(key=sc, mem="None"),
             Raises(VALUE, ("args", "args[4129]", "scales_arg(ARG_WEIGHTS)"))),
        case("scales: one value where the mask asks for one per column",
             SCALED_PD + run_scaled.format(key=sc, mem="dnnl.Memory(dnnl.MemoryDesc((1,), 'float32', 'a'), eng, "
                                                      "np.ones(1, np.float32))"),
             Raises(VALUE, ("args[4129]", "scales_arg(ARG_WEIGHTS)"))),
        case("scales: int32 values for f32 scales",
             SCALED_PD + run_scaled.format(key=sc, mem="dnnl.Memory(dnnl.MemoryDesc((16,), 'int32', 'a'), eng, "
                                                      "np.arange(1, 17, dtype=np.int32))"),
             Raises(VALUE, ("args[4129]", "scales_arg(ARG_WEIGHTS)"))),
        case("scales: per-column scales in a column-major (4, 4) memory",
             SCALED_PD + run_scaled.format(
                 key=sc, mem="dnnl.Memory(dnnl.MemoryDesc((4, 4), 'float32', 'ba'), eng, "
                             "np.asfortranarray(col_scales.reshape(4, 4)))"),
             Raises(VALUE, ("args[4129]", "scales_arg(ARG_WEIGHTS)"))),
        case("scales: per-column scales in a row-major (4, 4) memory, the right result",
             SCALED_PD + run_scaled.format(key=sc, mem="dnnl.Memory.from_array(col_scales.reshape(4, 4), eng)")),
        case("scales: grouped convolution weights scales in column-major order",
             GROUPED_SCALES + "run_grouped(np.asfortranarray(g_scales))",
             Raises(VALUE, ("args[4129]", "scales_arg(ARG_WEIGHTS)"))),
        case("scales: grouped convolution weights scales in row-major order, the right result",
             GROUPED_SCALES + "run_grouped(g_scales)"),
        case("scales: a closed scales memory",
             SCALED_PD + "scales.close()\n" + run_scaled.format(key=sc, mem="scales"), Raises(CLOSED, "args[4129]")),
        case("scales: given for the source, which has none set",
             SCALED_PD + "p.execute(strm, {**mm_args, dnnl.scales_arg(dnnl.ARG_SRC): scales, " + sc + ": scales}); "
             "strm.wait()\nassert np.allclose(mm_out, mm_ref * col_scales), 'the scaled result is wrong'",
             Either(OK, Raises(VALUE, ("args", "args[4097]", "scales_arg(ARG_SRC)")))),
        case("scales: given to a primitive without scales",
             "mm_prim.execute(strm, {**mm_args, dnnl.scales_arg(dnnl.ARG_WEIGHTS): dnnl.Memory("
             "dnnl.MemoryDesc((16,), 'float32', 'a'), eng, np.full(16, 2.0, np.float32))}); strm.wait()\n" + MM_CHECK,
             Either(OK, Raises(VALUE, ("args", "args[4129]", "scales_arg(ARG_WEIGHTS)")))),
        case("scales: one per tensor on the source, the right result",
             "attr.set_scales_mask(dnnl.ARG_SRC, 0)\n"
             "pd = dnnl.MatmulDesc(eng, mm_src_md, mm_wei_md, mm_dst_md, attr=attr)\n"
             "dnnl.Primitive(pd).execute(strm, {**mm_args, dnnl.scales_arg(dnnl.ARG_SRC): dnnl.Memory("
             "dnnl.MemoryDesc((1,), 'float32', 'a'), eng, np.array([0.5], np.float32))}); strm.wait()\n"
             "assert np.allclose(mm_out, mm_ref * 0.5), 'the scaled result is wrong'"),
        case("scales: the attr's mask changed after the descriptor was made",
             SCALED_PD + "attr.set_scales_mask(dnnl.ARG_WEIGHTS, 0)\n" + run_scaled.format(key=sc, mem="scales")),
        case("scales: a descriptor made from the attr read back (get_attr)",
             SCALED_PD + "pd2 = dnnl.MatmulDesc(eng, mm_src_md, mm_wei_md, mm_dst_md, attr=pd.get_attr())\n"
             "dnnl.Primitive(pd2).execute(strm, mm_args); strm.wait()\n" + MM_CHECK,
             Raises(VALUE, ("args", "scales_arg(ARG_WEIGHTS)"))),
        case("scales: set_scales_mask(arg=-1)", "attr.set_scales_mask(-1, 0)", Raises(VALUE, "arg")),
        case("scales: set_scales_mask(mask=-1)", "attr.set_scales_mask(dnnl.ARG_SRC, -1)", Raises(VALUE, "mask")),
        case("scales: set_scales_mask(mask='0')", "attr.set_scales_mask(dnnl.ARG_SRC, '0')", Raises(TYPE, "mask")),
        case("scales: a mask past the dimensions",
             "attr.set_scales_mask(dnnl.ARG_WEIGHTS, 1 << 5)\n"
             "pd = dnnl.MatmulDesc(eng, mm_src_md, mm_wei_md, mm_dst_md, attr=attr)\n"
             "dnnl.Primitive(pd).execute(strm, {**mm_args, dnnl.scales_arg(dnnl.ARG_WEIGHTS): dnnl.Memory("
             "dnnl.MemoryDesc((16,), 'float32', 'a'), eng, np.ones(16, np.float32))}); strm.wait()",
             Raises(REFUSED, ("mask", "dnnl_primitive_attr_set_scales_mask", "dnnl_matmul_primitive_desc_create"))),
        case("scales: set_scales with groups of a str", "attr.set_scales(dnnl.ARG_WEIGHTS, 3, 'ab')",
             Raises(TYPE, "groups")),
        case("scales: set_scales with a negative group", "attr.set_scales(dnnl.ARG_WEIGHTS, 3, (-1, 1))",
             Raises(VALUE, ("groups", "groups[0]"))),
        case("scales: set_scales with 13 groups", "attr.set_scales(dnnl.ARG_WEIGHTS, 3, (1,) * 13)",
             Raises(VALUE, "groups")),
        case("scales: set_scales of an unknown data type", "attr.set_scales(dnnl.ARG_WEIGHTS, 0, (), 'xyz')",
             Raises(TYPE, "data_type")),
        case("scales: set on a closed attr", "closed_attr.set_scales_mask(dnnl.ARG_SRC, 0)", Raises(CLOSED, "attr")),
        case("scales: on an eltwise, which takes none",
             "attr.set_scales_mask(dnnl.ARG_SRC, 0)\n"
             "pd = dnnl.EltwiseForwardDesc(eng, dnnl.AlgKind.ELTWISE_RELU, md, md, attr=attr)\nrun_pd(pd)",
             Raises(REFUSED, ("attr", "dnnl_eltwise_forward_primitive_desc_create"))),
        case("scales: on a pooling, which takes none",
             "attr.set_scales_mask(dnnl.ARG_SRC, 0)\n"
             "pd = dnnl.PoolingForwardDesc(eng, dnnl.AlgKind.POOLING_MAX, md4, dnnl.MemoryDesc((1, 4, 2, 2), "
             "'float32', 'abcd'), (2, 2), (2, 2), (0, 0), (0, 0), attr=attr)\nrun_pd(pd)",
             Raises(REFUSED, ("attr", "dnnl_pooling_forward_primitive_desc_create"))),
        # --- zero points at execute
        case("zero points: given, the right result", ZP_PD + run_zp.format(key=zpa, mem="zp")),
        case("zero points: missing at execute", ZP_PD + "p.execute(strm, q_args); strm.wait()",
             Raises(VALUE, ("args", "zero_points_arg(ARG_SRC)"))),
        case("zero points: f32 values for s32 zero points",
             ZP_PD + run_zp.format(key=zpa, mem="dnnl.Memory(dnnl.MemoryDesc((1,), 'float32', 'a'), eng, "
                                                "np.array([3.0], np.float32))"),
             Raises(VALUE, ("args[8193]", "zero_points_arg(ARG_SRC)"))),
        case("zero points: on an f32 matmul",
             "attr.set_zero_points_mask(dnnl.ARG_SRC, 0)\n"
             "pd = dnnl.MatmulDesc(eng, mm_src_md, mm_wei_md, mm_dst_md, attr=attr)\n"
             "dnnl.Primitive(pd).execute(strm, {**mm_args, dnnl.zero_points_arg(dnnl.ARG_SRC): dnnl.Memory("
             "dnnl.MemoryDesc((1,), 'int32', 'a'), eng, np.array([1], np.int32))}); strm.wait()",
             Either(OK, Raises(REFUSED, ("attr", "dnnl_matmul_primitive_desc_create")))),
        case("zero points: set_zero_points of an unknown data type",
             "attr.set_zero_points(dnnl.ARG_SRC, 0, (), 'xyz')", Raises(TYPE, "data_type")),
        case("zero points: set_zero_points_mask(arg=None)", "attr.set_zero_points_mask(None, 0)",
             Raises(TYPE, "arg")),
        # --- the user's scratchpad
        case("scratchpad: given by the user, the right result",
             SCRATCH_PD + run_scratch.format(mem="dnnl.Memory(pd.scratchpad_desc(), eng)")),
        case("scratchpad: missing at execute in user mode, the binding's own, the right result",
             SCRATCH_PD + "p.execute(strm, s_args); strm.wait()\n"
             "assert np.allclose(conv_out, conv_ref), 'the convolution is wrong'"),
        case("scratchpad: too small",
             SCRATCH_PD + run_scratch.format(mem="dnnl.Memory(dnnl.MemoryDesc((4,), 'uint8', 'a'), eng)"),
             Raises(VALUE, "args[80]")),
        case("scratchpad: in library mode, none is described",
             "assert conv_pd.scratchpad_desc() is None and dnnl.ARG_SCRATCHPAD not in conv_pd.arg_sizes\n"
             "assert attr.get_scratchpad_mode() == dnnl.ScratchpadMode.LIBRARY"),
        case("scratchpad: set_scratchpad_mode(2)", "attr.set_scratchpad_mode(2)", Raises(VALUE, "mode")),
        # --- modes
        case("fpmath mode bf16 on a matmul: close to the f32 result",
             "attr.set_fpmath_mode(dnnl.FpmathMode.BF16)\n"
             "pd = dnnl.MatmulDesc(eng, mm_src_md, mm_wei_md, mm_dst_md, attr=attr)\n"
             "dnnl.Primitive(pd).execute(strm, mm_args); strm.wait()\n"
             "assert np.allclose(mm_out, mm_ref, rtol=1e-2), 'the bf16 result is far off'\n"
             "assert pd.get_attr().get_fpmath_mode() == (dnnl.FpmathMode.BF16, False)"),
        case("fpmath mode 7", "attr.set_fpmath_mode(7)", Raises(VALUE, "mode")),
        case("fpmath mode with apply_to_int 'yes'", "attr.set_fpmath_mode(dnnl.FpmathMode.BF16, 'yes')",
             Raises(TYPE, "apply_to_int")),
        case("accumulation mode f16 on an f32 matmul",
             "attr.set_accumulation_mode(dnnl.AccumulationMode.F16)\n"
             "pd = dnnl.MatmulDesc(eng, mm_src_md, mm_wei_md, mm_dst_md, attr=attr)\n"
             "dnnl.Primitive(pd).execute(strm, mm_args); strm.wait()\n"
             "assert np.allclose(mm_out, mm_ref, rtol=1e-2), 'the f16-accumulated result is far off'",
             Either(OK, Raises(REFUSED, ("attr", "dnnl_matmul_primitive_desc_create")))),
        case("accumulation mode None", "attr.set_accumulation_mode(None)", Raises(TYPE, "mode")),
        case("a closed attr: get_post_ops", "closed_attr.get_post_ops()", Raises(CLOSED, "attr")),
        case("a closed attr: get_fpmath_mode", "closed_attr.get_fpmath_mode()", Raises(CLOSED, "attr")),
    ]
    for kind, make in no_post_ops.items():
        out.append(case(f"post-ops on a {kind}, which takes none",
                        "post_ops.append_eltwise(dnnl.AlgKind.ELTWISE_RELU)\nattr.set_post_ops(post_ops)\n"
                        f"pd = {make}\nrun_pd(pd)",
                        Raises(REFUSED, ("attr", f"dnnl_{kind}{'' if kind in ('concat', 'sum') else '_forward'}"
                                                 "_primitive_desc_create"))))
    return out


def query_cases() -> list[Case]:
    """What a primitive descriptor answers, asked wrongly; closed descriptors and engines."""
    case = _seq("queries/cpu")
    closed = _seq("closed/primitives")
    kinds = {
        "MATMUL": "mm_pd",
        "CONVOLUTION": "conv_pd",
        "ELTWISE": "dnnl.EltwiseForwardDesc(eng, dnnl.AlgKind.ELTWISE_RELU, md, md)",
        "SOFTMAX": "dnnl.SoftmaxForwardDesc(eng, dnnl.AlgKind.SOFTMAX_ACCURATE, md, md, 1)",
        "BINARY": "dnnl.BinaryDesc(eng, dnnl.AlgKind.BINARY_ADD, md, md, md)",
        "SUM": "dnnl.SumDesc(eng, [1.0, 1.0], [md, md])",
        "CONCAT": "dnnl.ConcatDesc(eng, 0, [md, md])",
        "REDUCTION": "dnnl.ReductionDesc(eng, dnnl.AlgKind.REDUCTION_SUM, md, dnnl.MemoryDesc((4, 1), 'float32', 'ab'))",
        "LRN": "dnnl.LRNForwardDesc(eng, dnnl.AlgKind.LRN_ACROSS_CHANNELS, md4, md4, 3, 1e-4, 0.75)",
    }
    kind_check = "\n".join(f"assert ({make}).kind == dnnl.PrimitiveKind.{kind}" for kind, make in kinds.items())
    not_md = Raises(VALUE, "what")
    out = [
        case("query_md of the engine (not a memory descriptor)", "mm_pd.query_md(dnnl.Query.ENGINE)", not_md),
        case("query_md of the implementation name (a string)", "mm_pd.query_md(dnnl.Query.IMPL_INFO_STR)", not_md),
        case("query_md of an int query", "mm_pd.query_md(dnnl.Query.NUM_OF_INPUTS_S32)", not_md),
        case("query_md of the strides (dims)", "conv_pd.query_md(dnnl.Query.STRIDES)", not_md),
        case("query_md of a memory-descriptor query (DIMS)", "mm_pd.query_md(dnnl.Query.DIMS)", not_md),
        case("query_s32 of a memory descriptor", "mm_pd.query_s32(dnnl.Query.SRC_MD)", not_md),
        case("query_s32 of the engine (a pointer)", "mm_pd.query_s32(dnnl.Query.ENGINE)", not_md),
        case("query_s32 of the time estimate (a double)", "mm_pd.query_s32(dnnl.Query.TIME_ESTIMATE_F64)", not_md),
        case("query_s32 of the memory consumption (an int64)",
             "mm_pd.query_s32(dnnl.Query.MEMORY_CONSUMPTION_S64)", not_md),
        case("query_s32 of the implementation name", "mm_pd.query_s32(dnnl.Query.IMPL_INFO_STR)", not_md),
        case("query_s32 of the inputs and outputs",
             "assert mm_pd.query_s32(dnnl.Query.NUM_OF_INPUTS_S32) == 2\n"
             "assert mm_pd.query_s32(dnnl.Query.NUM_OF_OUTPUTS_S32) == 1"),
        case("query_s32 of the propagation kind",
             "assert conv_pd.query_s32(dnnl.Query.PROP_KIND) == dnnl.PropKind.FORWARD_INFERENCE"),
        case("query_md of an index past the last", "assert mm_pd.query_md(dnnl.Query.SRC_MD, 5) is None"),
        case("query_md of a number no Query has", "mm_pd.query_md(12345)", Raises(VALUE, "what")),
        case("query_md of a str", "mm_pd.query_md('src')", Raises(TYPE, "what")),
        case("query_md(index=-1)", "mm_pd.query_md(dnnl.Query.SRC_MD, -1)", Raises(VALUE, "index")),
        case("arg_desc(2**40)", "mm_pd.arg_desc(2**40)", Raises(VALUE, "arg")),
        case("arg_desc(None)", "mm_pd.arg_desc(None)", Raises(TYPE, "arg")),
        case("arg_desc of an argument the primitive has not", "assert mm_pd.arg_desc(dnnl.ARG_BIAS) is None"),
        case("src_desc(2**64)", "mm_pd.src_desc(2**64)", Raises(VALUE, "index")),
        case("weights_desc('0')", "mm_pd.weights_desc('0')", Raises(TYPE, "index")),
        case("every kind answers its kind", kind_check),
        case("arg_sizes is a copy", "s = mm_pd.arg_sizes; s.clear(); s[dnnl.ARG_SRC] = 1\n" + MM_RUN),
        case("cache_blob_id on the CPU is empty", "assert mm_pd.cache_blob_id == b''"),
        case("get_cache_blob of a CPU primitive", "mm_prim.get_cache_blob()",
             Raises("NotImplementedError", ("dnnl_primitive_get_cache_blob", "cache"))),
        case("make_primitive_cached of a matmul on the CPU",
             "p = dnnl.make_primitive_cached(mm_pd, store)\np.execute(strm, mm_args); strm.wait()\n" + MM_CHECK),
        case("a MatmulDesc constructed twice", "mm_pd.__init__(eng, mm_src_md, mm_wei_md, mm_dst_md)",
             Raises("RuntimeError", ())),
        case("a MatmulDesc made with __new__ only, then a primitive of it",
             "dnnl.Primitive(dnnl.MatmulDesc.__new__(dnnl.MatmulDesc))", Raises(CLOSED, "desc")),
        case("copy.copy of a MatmulDesc", "copy.copy(mm_pd)", Raises(TYPE, ("copied", "copy"))),
        case("pickle of a ConvolutionForwardDesc", "pickle.dumps(conv_pd)", Raises(TYPE, ("pickled", "pickle"))),
        case("copy.deepcopy of a PrimitiveAttr", "copy.deepcopy(attr)", Raises(TYPE, ("copied", "copy"))),
        case("copy.copy of a PostOps", "copy.copy(post_ops)", Raises(TYPE, ("copied", "copy"))),
        case("PrimitiveDesc.from_handle of a matmul descriptor, then execute",
             "d = dnnl.PrimitiveDesc.from_handle(mm_pd.handle, engine=eng)\n"
             "dnnl.Primitive(d).execute(strm, {**mm_args, dnnl.ARG_SRC: dnnl.Memory(md_t, eng)}); strm.wait()",
             Raises(VALUE, "args[1]")),
        # --- closed descriptors
        closed("closed matmul descriptor: src_desc", "mm_pd.close(); mm_pd.src_desc()", Raises(CLOSED, "desc")),
        closed("closed matmul descriptor: impl_info", "mm_pd.close(); mm_pd.impl_info", Raises(CLOSED, "desc")),
        closed("closed matmul descriptor: next_impl", "mm_pd.close(); mm_pd.next_impl()", Raises(CLOSED, "desc")),
        closed("closed matmul descriptor: arg_sizes", "mm_pd.close(); mm_pd.arg_sizes",
               Raises(CLOSED, ("desc", "MatmulDesc"))),
        closed("closed matmul descriptor: get_attr", "mm_pd.close(); mm_pd.get_attr()", Raises(CLOSED, "desc")),
        closed("closed matmul descriptor: a primitive of it", "mm_pd.close(); dnnl.Primitive(mm_pd)",
               Raises(CLOSED, "desc")),
        closed("closed matmul descriptor: make_primitive_cached", "mm_pd.close(); dnnl.make_primitive_cached(mm_pd, store)",
               Raises(CLOSED, "desc")),
        closed("closed matmul descriptor: repr and close again", "mm_pd.close(); repr(mm_pd); mm_pd.close()"),
        closed("closed descriptor: its primitive still executes", "p = mm_prim\nmm_pd.close()\n" + MM_RUN),
        closed("closed descriptor: with-block, then a primitive of it",
               "with dnnl.MatmulDesc(eng, mm_src_md, mm_wei_md, mm_dst_md) as pd:\n    p = dnnl.Primitive(pd)\n"
               "dnnl.Primitive(pd)", Raises(CLOSED, "desc")),
        closed("closed primitive: execute", "mm_prim.close(); mm_prim.execute(strm, mm_args)",
               Raises(CLOSED, "Primitive")),
        closed("closed stream: execute a matmul on it", "strm.close(); mm_prim.execute(strm, mm_args)",
               Raises(CLOSED, "stream")),
        closed("engine closed: execute its matmul on its (closed) stream",
               "p = mm_prim\neng.close()\np.execute(strm, mm_args)", Raises(CLOSED, ("stream", "Stream"))),
        closed("closed weights memory: execute", "mm_wei.close(); mm_prim.execute(strm, mm_args)",
               Raises(CLOSED, "args[33]")),
        closed("closed memory descriptors after the descriptor was made",
               "pd = dnnl.MatmulDesc(eng, mm_src_md, mm_wei_md, mm_dst_md)\n"
               "mm_src_md.close(); mm_wei_md.close(); mm_dst_md.close()\n"
               "dnnl.Primitive(pd).execute(strm, mm_args); strm.wait()\n" + MM_CHECK,
               Either(OK, Raises(CLOSED, ("desc", "args[1]")))),
        closed("closed source descriptor read back (src_desc) after close", "d = mm_pd.src_desc(); d.close(); d.size",
               Raises(CLOSED, ("desc", "MemoryDesc"))),
        # --- the descriptor's engine closed
        closed("engine closed: a primitive of its descriptor", "mm_pd\neng.close()\ndnnl.Primitive(mm_pd)",
               Either(OK, Raises(CLOSED, ("desc", "engine", "Engine")))),
        closed("engine closed: a primitive of its reorder descriptor", "pdesc\neng.close()\ndnnl.Primitive(pdesc)",
               Either(OK, Raises(CLOSED, ("desc", "engine", "Engine")))),
        closed("engine closed: next_impl of its descriptor", "conv_pd\neng.close()\nwhile conv_pd.next_impl():\n    pass",
               Either(OK, Raises(CLOSED, ("desc", "engine", "Engine")))),
        closed("engine closed: cache_blob_id of its descriptor", "conv_pd\neng.close()\nconv_pd.cache_blob_id",
               Either(OK, Raises(CLOSED, ("desc", "engine", "Engine")))),
        closed("engine closed: make_primitive_cached of its descriptor",
               "conv_pd\neng.close()\ndnnl.make_primitive_cached(conv_pd, store)",
               Either(OK, Raises(CLOSED, ("desc", "engine", "Engine")))),
        closed("engine closed: queries of its descriptor",
               "conv_pd\neng.close()\nconv_pd.impl_info; conv_pd.src_desc(); conv_pd.kind; conv_pd.get_attr()",
               Either(OK, Raises(CLOSED, ("desc", "engine", "Engine")))),
        closed("engine closed: its primitive on a new engine's stream",
               "p = mm_prim\neng.close()\ne2 = dnnl.Engine.cpu(); s2 = dnnl.Stream(e2)\n"
               "p.execute(s2, {a: dnnl.Memory(m.desc, e2) for a, m in mm_args.items()}); s2.wait()",
               Raises(("ValueError", "RuntimeError"), ("stream", "engine", "Engine", "args[1]"))),
        closed("engine closed: a new descriptor on it", "eng.close()\ndnnl.MatmulDesc(eng, mm_src_md, mm_wei_md, mm_dst_md)",
               Raises(CLOSED, "engine")),
        closed("engine closed and collected: its descriptor's primitive",
               "e = dnnl.Engine.cpu()\npd = dnnl.MatmulDesc(e, mm_src_md, mm_wei_md, mm_dst_md)\n"
               "e.close(); del e; gc.collect()\ndnnl.Primitive(pd)",
               Either(OK, Raises(CLOSED, ("desc", "engine", "Engine")))),
    ]
    return out


def mismatch_cases() -> list[Case]:
    case = _seq("mismatch/primitives")
    return [
        case("matmul: a source memory of another engine object",
             "mm_prim.execute(strm, {**mm_args, dnnl.ARG_SRC: dnnl.Memory(mm_src_md, eng2, mm_x)}); strm.wait()\n"
             + MM_CHECK, Either(OK, Raises(VALUE, "args[1]"))),
        case("matmul: executed on a stream of another engine object",
             "mm_prim.execute(strm2, mm_args); strm2.wait()\n" + MM_CHECK, Either(OK, Raises(VALUE, "stream"))),
        case("matmul: a descriptor on one engine, memories and stream on another",
             "pd = dnnl.MatmulDesc(eng2, mm_src_md, mm_wei_md, mm_dst_md)\n"
             "dnnl.Primitive(pd).execute(strm, mm_args); strm.wait()\n" + MM_CHECK,
             Either(OK, Raises(VALUE, "stream"))),
        case("conv: the reordered weights of another engine object",
             CONV_ARGS + "w2 = dnnl.reordered(dnnl.Memory(conv_plain_mds[1], eng2, conv_k), conv_pd.weights_desc(), "
             "strm2)\nstrm2.wait()\n"
             "assert np.allclose(conv_run(conv_prim, conv_pd, strm, weights=w2), conv_ref)",
             Either(OK, Raises(VALUE, "args[33]"))),
        case("matmul: the destination given as the source too (aliasing)",
             "mm_prim.execute(strm, {**mm_args, dnnl.ARG_SRC: mm_dst}); strm.wait()", Raises(VALUE, "args[1]")),
        case("matmul: an ARG_* of another primitive (ARG_MEAN) added",
             "mm_prim.execute(strm, {**mm_args, dnnl.ARG_MEAN: mm_src}); strm.wait()\n" + MM_CHECK,
             Either(OK, Raises(VALUE, ("args", "args[49]")))),
        case("matmul: the source given as ARG_SRC_1 instead",
             "mm_prim.execute(strm, {dnnl.ARG_SRC_1: mm_src, dnnl.ARG_WEIGHTS: mm_wei, dnnl.ARG_DST: mm_dst}); "
             "strm.wait()", Raises(VALUE, ("args", "args[1]"))),
        case("matmul: a bias the descriptor has not", "mm_prim.execute(strm, {**mm_args, dnnl.ARG_BIAS: dnnl.Memory("
             "dnnl.MemoryDesc((1, 16), 'float32', 'ab'), eng)}); strm.wait()\n" + MM_CHECK,
             Either(OK, Raises(VALUE, ("args", "args[41]")))),
        case("matmul: with a bias, the bias missing",
             "pd = dnnl.MatmulDesc(eng, mm_src_md, mm_wei_md, mm_dst_md, bias_desc=dnnl.MemoryDesc((1, 16), "
             "'float32', 'ab'))\ndnnl.Primitive(pd).execute(strm, mm_args); strm.wait()",
             Raises(VALUE, ("args", "args[41]"))),
        case("pooling forward training: the workspace missing",
             "pd = dnnl.PoolingForwardDesc(eng, dnnl.AlgKind.POOLING_MAX, md4, dnnl.MemoryDesc((1, 4, 2, 2), "
             "'float32', 'abcd'), (2, 2), (2, 2), (0, 0), (0, 0), prop_kind=dnnl.PropKind.FORWARD_TRAINING)\n"
             "m = run_pd(pd)\ndel m[dnnl.ARG_WORKSPACE]\ndnnl.Primitive(pd).execute(strm, m); strm.wait()",
             Raises(VALUE, ("args", "args[64]"))),
        case("batch normalization training: the variance missing",
             "pd = dnnl.BatchNormalizationForwardDesc(eng, md4, md4, 1e-5, prop_kind=dnnl.PropKind.FORWARD_TRAINING)\n"
             "m = run_pd(pd)\ndel m[dnnl.ARG_VARIANCE]\ndnnl.Primitive(pd).execute(strm, m); strm.wait()",
             Raises(VALUE, ("args", "args[50]"))),
        case("batch normalization with scale and shift: the shift missing",
             "pd = dnnl.BatchNormalizationForwardDesc(eng, md4, md4, 1e-5, dnnl.NormalizationFlags.USE_SCALE | "
             "dnnl.NormalizationFlags.USE_SHIFT)\n"
             "m = run_pd(pd)\ndel m[dnnl.ARG_SHIFT]\ndnnl.Primitive(pd).execute(strm, m); strm.wait()",
             Raises(VALUE, ("args", "args[52]"))),
        case("sum: one source missing",
             "pd = dnnl.SumDesc(eng, [1.0, 1.0, 1.0], [md, md, md])\n"
             "m = run_pd(pd)\ndel m[dnnl.ARG_MULTIPLE_SRC + 2]\ndnnl.Primitive(pd).execute(strm, m); strm.wait()",
             Raises(VALUE, ("args", "args[1026]"))),
        case("sum with scales: the right result",
             "pd = dnnl.SumDesc(eng, [1.0, 2.0, 3.0], [md, md, md])\nys = np.zeros((4, 4), np.float32)\n"
             "dnnl.Primitive(pd).execute(strm, {dnnl.ARG_MULTIPLE_SRC + i: dnnl.Memory(md, eng, a) for i in range(3)} "
             "| {dnnl.ARG_DST: dnnl.Memory(pd.dst_desc(), eng, ys)}); strm.wait()\n"
             "assert np.allclose(ys, 6 * a), 'the sum is wrong'"),
        case("concat: the right result",
             "pd = dnnl.ConcatDesc(eng, 1, [md, md])\nyc = np.zeros((4, 8), np.float32)\n"
             "dnnl.Primitive(pd).execute(strm, {dnnl.ARG_MULTIPLE_SRC: src, dnnl.ARG_MULTIPLE_SRC + 1: "
             "dnnl.Memory(md, eng, 2 * a), dnnl.ARG_DST: dnnl.Memory(pd.dst_desc(), eng, yc)}); strm.wait()\n"
             "assert np.array_equal(yc, np.concatenate([a, 2 * a], axis=1)), 'the concat is wrong'"),
        case("eltwise in place (the same memory as source and destination)",
             "pd = dnnl.EltwiseForwardDesc(eng, dnnl.AlgKind.ELTWISE_LINEAR, md, md, 2.0, 1.0)\n"
             "x = a.copy(); m = dnnl.Memory(md, eng, x)\n"
             "dnnl.Primitive(pd).execute(strm, {dnnl.ARG_SRC: m, dnnl.ARG_DST: m}); strm.wait()\n"
             "assert np.array_equal(x, 2 * a + 1), 'the in-place eltwise is wrong'"),
        case("softmax: the right result",
             "pd = dnnl.SoftmaxForwardDesc(eng, dnnl.AlgKind.SOFTMAX_ACCURATE, md, md, 1)\n"
             "y = np.zeros((4, 4), np.float32)\n"
             "dnnl.Primitive(pd).execute(strm, {dnnl.ARG_SRC: src, dnnl.ARG_DST: dnnl.Memory(md, eng, y)}); strm.wait()\n"
             "e = np.exp(a - a.max(1, keepdims=True))\nassert np.allclose(y, e / e.sum(1, keepdims=True))"),
    ]


# A deconvolution whose dst has gaps (the first half of each row of a (1, 3, 8) buffer), and its inputs.
GAPS_DECONV = """
dx, dw, db = np.ones((1, 2, 3), np.float32), np.ones((3, 2, 2), np.float32), np.array([10, 20, 30], np.float32)
dsrc, dwei, dbia = (dnnl.MemoryDesc(v.shape, 'float32', 'abc'[:v.ndim]) for v in (dx, dw, db))
dbase = np.zeros((1, 3, 8), np.float32)
dview = dbase[:, :, :4]
dgaps = dnnl.MemoryDesc.from_array(dview)
dargs = {dnnl.ARG_SRC: dnnl.Memory(dsrc, eng, dx), dnnl.ARG_WEIGHTS: dnnl.Memory(dwei, eng, dw),
         dnnl.ARG_BIAS: dnnl.Memory(dbia, eng, db)}
dref = np.array([2, 4, 4, 2], np.float32) + db[:, None]
"""
# A one-element src1 with a stride of 2 elements, over a buffer of two.
STRIDED_ONE = """
one = np.array([3, 99], np.uint8)[::2]
md1 = dnnl.MemoryDesc((1,), 'uint8', strides=(2,))
"""


def onednn_bug_cases() -> list[Case]:
    """The inputs that crash oneDNN 3.13 (bug F) or make it write past its scratchpad (bug C)."""
    case = _seq("onednn-bugs/cpu")
    binary_u8 = ("md6 = dnnl.MemoryDesc((6,), 'uint8', 'a')\nx6 = np.arange(6, dtype=np.uint8)\ny6 = np.zeros(6, np.uint8)\n"
                 "m6 = {dnnl.ARG_SRC_0: dnnl.Memory(md6, eng, x6), dnnl.ARG_SRC_1: dnnl.Memory(md1, eng, one), "
                 "dnnl.ARG_DST: dnnl.Memory(md6, eng, y6)}\n")
    return [
        case("binary u8: a src1 of one element with a stride (oneDNN's creation crashes) computes right",
             STRIDED_ONE + binary_u8 + "pd = dnnl.BinaryDesc(eng, dnnl.AlgKind.BINARY_ADD, md6, md1, md6)\n"
             "dnnl.Primitive(pd).execute(strm, m6); strm.wait()\n"
             "assert np.array_equal(y6, x6 + 3), 'the binary is wrong'"),
        case("binary select into u8: a src1 of one element with a stride computes right",
             STRIDED_ONE + binary_u8 + "c6 = np.array([1, 0, 1, 0, 0, 1], np.int8)\n"
             "cmd = dnnl.MemoryDesc((6,), 'int8', 'a')\n"
             "pd = dnnl.BinaryDesc(eng, dnnl.AlgKind.BINARY_SELECT, md6, md1, md6, src2_desc=cmd)\n"
             "dnnl.Primitive(pd).execute(strm, {**m6, dnnl.ARG_SRC_2: dnnl.Memory(cmd, eng, c6)}); strm.wait()\n"
             "assert np.array_equal(y6, np.where(c6 != 0, x6, 3)), 'the select is wrong'"),
        case("binary f32 into s8 'any': a src1 of one element with a stride of 5, on run_pd's memories",
             "pd = dnnl.BinaryDesc(eng, dnnl.AlgKind.BINARY_MUL, dnnl.MemoryDesc((4,), 'float32', 'a'), "
             "dnnl.MemoryDesc((1,), 'float32', strides=(5,)), dnnl.MemoryDesc((4,), 'int8', 'any'))\nrun_pd(pd)"),
        case("deconvolution into a dst with gaps, with a bias (past oneDNN's scratchpad): refused",
             GAPS_DECONV + "dnnl.DeconvolutionForwardDesc(eng, dsrc, dwei, dgaps, (1,), (0,), (0,), bias_desc=dbia)",
             Raises("NotImplementedError", "dst_desc")),
        case("deconvolution into a dst with gaps, with a relu post-op and a user scratchpad: refused",
             GAPS_DECONV + "post_ops.append_eltwise(dnnl.AlgKind.ELTWISE_RELU, 0.0, 0.0)\nattr.set_post_ops(post_ops)\n"
             "attr.set_scratchpad_mode(dnnl.ScratchpadMode.USER)\n"
             "dnnl.DeconvolutionForwardDesc(eng, dsrc, dwei, dgaps, (1,), (0,), (0,), attr=attr)",
             Raises("NotImplementedError", "dst_desc")),
        case("deconvolution into a dst with gaps, no bias nor attributes: the right result, nothing between",
             GAPS_DECONV + "pd = dnnl.DeconvolutionForwardDesc(eng, dsrc, dwei, dgaps, (1,), (0,), (0,))\n"
             "dnnl.Primitive(pd).execute(strm, {**{k: v for k, v in dargs.items() if k != dnnl.ARG_BIAS}, "
             "dnnl.ARG_DST: dnnl.Memory(dgaps, eng, dview)}); strm.wait()\n"
             "assert np.array_equal(dview[0], dref - db[:, None]) and not dbase[:, :, 4:].any(), 'the deconvolution is wrong'"),
        case("deconvolution with a bias into a dense dst, reordered into the dst with gaps: the right result",
             GAPS_DECONV + "dense = dnnl.MemoryDesc((1, 3, 4), 'float32', 'abc')\n"
             "pd = dnnl.DeconvolutionForwardDesc(eng, dsrc, dwei, dense, (1,), (0,), (0,), bias_desc=dbia)\n"
             "out = dnnl.Memory(dense, eng)\n"
             "dnnl.Primitive(pd).execute(strm, {**dargs, dnnl.ARG_DST: out})\n"
             "dnnl.reorder(dense, dgaps, eng).execute(strm, {dnnl.ARG_FROM: out, "
             "dnnl.ARG_TO: dnnl.Memory(dgaps, eng, dview)}); strm.wait()\n"
             "assert np.array_equal(dview[0], dref) and not dbase[:, :, 4:].any(), 'the deconvolution is wrong'"),
    ]


def reordered_cases() -> list[Case]:
    case = _seq("reordered/cpu")
    target = "conv_pd.src_desc()"
    return [
        case("reordered: a closed memory", f"conv_src_plain.close()\ndnnl.reordered(conv_src_plain, {target}, strm)",
             Raises(CLOSED, "memory")),
        case("reordered: a closed descriptor", f"d = {target}; d.close()\ndnnl.reordered(conv_src_plain, d, strm)",
             Raises(CLOSED, "desc")),
        case("reordered: a closed stream", f"strm.close()\ndnnl.reordered(conv_src_plain, {target}, strm)",
             Raises(CLOSED, "stream")),
        case("reordered: the memory's engine closed", f"{target}\neng.close()\ndnnl.reordered(conv_src_plain, {target}, strm)",
             Raises(CLOSED, ("memory", "engine", "stream", "desc"))),
        case("reordered: memory None", f"dnnl.reordered(None, {target}, strm)", Raises(TYPE, "memory")),
        case("reordered: desc None", "dnnl.reordered(conv_src_plain, None, strm)", Raises(TYPE, "desc")),
        case("reordered: stream None", f"dnnl.reordered(conv_src_plain, {target}, None)", Raises(TYPE, "stream")),
        case("reordered: memory and descriptor swapped", f"dnnl.reordered({target}, conv_src_plain, strm)",
             Raises(TYPE, "memory")),
        case("reordered: to 'any'",
             "dnnl.reordered(conv_src_plain, dnnl.MemoryDesc((1, 3, 8, 8), 'float32', 'any'), strm)",
             Raises(VALUE, "desc")),
        case("reordered: to another shape", "dnnl.reordered(conv_src_plain, dnnl.MemoryDesc((1, 3, 4, 16), "
             "'float32', 'abcd'), strm)", Raises(VALUE, "desc")),
        case("reordered: to another data type", "dnnl.reordered(conv_src_plain, dnnl.MemoryDesc((1, 3, 8, 8), "
             "'int8', 'acdb'), strm)", Raises(VALUE, "desc")),
        case("reordered: on a stream of another engine object",
             f"m = dnnl.reordered(conv_src_plain, {target}, strm2); strm2.wait()\n"
             "back = np.zeros_like(conv_x)\n"
             "dnnl.reorder(m.desc, conv_plain_mds[0], eng).execute(strm, {dnnl.ARG_FROM: m, dnnl.ARG_TO: "
             "dnnl.Memory(conv_plain_mds[0], eng, back)}); strm.wait()\nassert np.array_equal(back, conv_x)",
             Either(OK, Raises(VALUE, "stream"))),
        case("reordered: a memory without a buffer",
             f"dnnl.reordered(dnnl.Memory(conv_plain_mds[0], eng, dnnl.MEMORY_NONE), {target}, strm); strm.wait()",
             Raises(VALUE, ("memory", "args[1]"))),
        case("reordered: to its own layout is the memory itself",
             "assert dnnl.reordered(conv_src_plain, conv_plain_mds[0], strm) is conv_src_plain\n"
             "assert dnnl.reordered(conv_src_plain, dnnl.MemoryDesc((1, 3, 8, 8), 'float32', 'abcd'), strm) "
             "is conv_src_plain"),
        case("reordered: there and back, the same data",
             f"m = dnnl.reordered(conv_src_plain, {target}, strm)\n"
             "back = dnnl.reordered(m, dnnl.MemoryDesc((1, 3, 8, 8), 'float32', 'abcd'), strm)\nstrm.wait()\n"
             "out_arr = np.zeros_like(conv_x)\n"
             "dnnl.reorder(back.desc, conv_plain_mds[0], eng).execute(strm, {dnnl.ARG_FROM: back, dnnl.ARG_TO: "
             "dnnl.Memory(conv_plain_mds[0], eng, out_arr)}); strm.wait()\nassert np.array_equal(out_arr, conv_x)"),
        case("reordered: in a function, the source dropped, wait outside",
             "def f():\n    return dnnl.reordered(dnnl.Memory(conv_plain_mds[1], eng, conv_k.copy()), "
             "conv_pd.weights_desc(), strm)\n"
             "w = f(); gc.collect(); filler = [np.full(216, 7, np.float32) for _ in range(50)]\n"
             "assert np.allclose(conv_run(conv_prim, conv_pd, strm, weights=w), conv_ref)"),
        case("reordered: the result closed before the stream waits",
             f"m = dnnl.reordered(conv_src_plain, {target}, strm)\nm.close()\nstrm.wait()"),
        case("reordered: a big reorder, the source closed at once",
             "x = big.copy(); s = dnnl.Memory(big_md, eng, x)\nm = dnnl.reordered(s, big_md_t, strm)\ns.close()\n"
             "result = np.zeros_like(x)\n"
             "dnnl.reorder(big_md_t, big_md, eng).execute(strm, {dnnl.ARG_FROM: m, dnnl.ARG_TO: "
             "dnnl.Memory(big_md, eng, result)}); strm.wait()\nassert np.array_equal(result, big)"),
    ]


# A matmul big enough to still run when the next line executes: 1024 x 1024 x 1024.
BIG_MM = """
n = 1024
xb = (np.arange(n * n, dtype=np.float32).reshape(n, n) % 3); wb = np.eye(n, dtype=np.float32) * 2
yb = np.zeros((n, n), np.float32)
dn = dnnl.MemoryDesc((n, n), "float32", "ab")
"""
BIG_CHECK = "assert np.array_equal(yb, 2 * xb), 'the matmul is wrong'"


def lifetime_cases() -> list[Case]:
    case = _seq("lifetime/primitives")
    big_exec = ("pd = dnnl.MatmulDesc(eng, dn, dn, dn)\np = dnnl.Primitive(pd)\n"
                "sb = dnnl.Memory(dn, eng, xb); wm = dnnl.Memory(dn, eng, wb); db = dnnl.Memory(dn, eng, yb)\n"
                "p.execute(strm, {dnnl.ARG_SRC: sb, dnnl.ARG_WEIGHTS: wm, dnnl.ARG_DST: db})\n")
    refuse = "except (RuntimeError, ValueError) as refusal:\n    assert str(refusal)\n"
    out = [
        case("big matmul in a function, every reference dropped, wait outside",
             BIG_MM + "def run():\n"
             "    pd = dnnl.MatmulDesc(eng, dn, dn, dn, attr=dnnl.PrimitiveAttr())\n"
             "    dnnl.Primitive(pd).execute(strm, {dnnl.ARG_SRC: dnnl.Memory(dn, eng, xb.copy()), "
             "dnnl.ARG_WEIGHTS: dnnl.Memory(dn, eng, wb.copy()), dnnl.ARG_DST: dnnl.Memory(dn, eng, yb)})\n"
             "run(); gc.collect(); filler = [np.full(n * n, 7, np.float32) for _ in range(2)]\nstrm.wait()\n"
             + BIG_CHECK),
    ]
    for target, what in (("p", "primitive"), ("pd", "descriptor"), ("sb", "source memory"),
                         ("wm", "weights memory"), ("db", "destination memory"), ("dn", "memory descriptor")):
        out.append(case(f"big matmul: close the {what} right after execute",
                        BIG_MM + big_exec + f"try:\n    {target}.close()\n" + refuse + "strm.wait()\n" + BIG_CHECK))
    out += [
        case("big matmul: the primitive given as its own memory right after execute, then closed",
             BIG_MM + big_exec + "try:\n    p.execute(strm, {dnnl.ARG_SRC: p, dnnl.ARG_WEIGHTS: wm, "
             "dnnl.ARG_DST: db})\nexcept TypeError as refusal:\n    assert 'got Primitive' in str(refusal)\n"
             "p.close()\ngc.collect(); filler = np.full(n * n, 7, np.float32)\nstrm.wait()\n" + BIG_CHECK),
        case("big matmul: close the stream right after execute (close finishes the work)",
             BIG_MM + big_exec + "strm.close()\n" + BIG_CHECK),
        case("big matmul: close the engine right after execute",
             BIG_MM + big_exec + "eng.close()\n" + BIG_CHECK),
        case("big matmul: a binary post-op input dropped right after execute",
             BIG_MM + "ops = dnnl.PostOps(); ops.append_binary(dnnl.AlgKind.BINARY_ADD, dnnl.MemoryDesc((1, n), "
             "'float32', 'ab'))\nat = dnnl.PrimitiveAttr(); at.set_post_ops(ops)\n"
             "p = dnnl.Primitive(dnnl.MatmulDesc(eng, dn, dn, dn, attr=at))\ndel ops, at\n"
             "p.execute(strm, {dnnl.ARG_SRC: dnnl.Memory(dn, eng, xb), dnnl.ARG_WEIGHTS: dnnl.Memory(dn, eng, wb), "
             "dnnl.ARG_DST: dnnl.Memory(dn, eng, yb), dnnl.post_op_arg(0): dnnl.Memory(dnnl.MemoryDesc((1, n), "
             "'float32', 'ab'), eng, np.ones((1, n), np.float32))})\n"
             "gc.collect(); filler = np.full(n * n, 7, np.float32)\nstrm.wait()\n"
             "assert np.array_equal(yb, 2 * xb + 1), 'the post-op result is wrong'"),
        case("big matmul: the scales memory dropped right after execute",
             BIG_MM + "at = dnnl.PrimitiveAttr(); at.set_scales_mask(dnnl.ARG_SRC, 0)\n"
             "p = dnnl.Primitive(dnnl.MatmulDesc(eng, dn, dn, dn, attr=at))\n"
             "p.execute(strm, {dnnl.ARG_SRC: dnnl.Memory(dn, eng, xb), dnnl.ARG_WEIGHTS: dnnl.Memory(dn, eng, wb), "
             "dnnl.ARG_DST: dnnl.Memory(dn, eng, yb), dnnl.scales_arg(dnnl.ARG_SRC): dnnl.Memory("
             "dnnl.MemoryDesc((1,), 'float32', 'a'), eng, np.array([0.5], np.float32))})\n"
             "gc.collect(); filler = [np.full(1, 7, np.float32) for _ in range(1000)]\nstrm.wait()\n"
             "assert np.array_equal(yb, xb), 'the scaled result is wrong'"),
        case("big matmul: set_data_handle on the destination right after execute",
             BIG_MM + big_exec + "other = np.zeros_like(yb)\ntry:\n    db.set_data_handle(other)\n" + refuse
             + "strm.wait()\n" + BIG_CHECK + "\nassert not other.any(), 'the queued work wrote into the new buffer'"),
        case("conv: engine, stream, descriptor and primitive in a reference cycle, collected with work in flight",
             "e = dnnl.Engine.cpu(); s = dnnl.Stream(e)\n"
             "pd = dnnl.ConvolutionForwardDesc(e, *conv_plain_mds, (1, 1), (0, 0), (0, 0))\n"
             "p = dnnl.Primitive(pd)\nyc = np.zeros((1, 8, 6, 6), np.float32)\n"
             "p.execute(s, {dnnl.ARG_SRC: dnnl.Memory(conv_plain_mds[0], e, conv_x), dnnl.ARG_WEIGHTS: "
             "dnnl.Memory(conv_plain_mds[1], e, conv_k), dnnl.ARG_DST: dnnl.Memory(conv_plain_mds[2], e, yc)})\n"
             "cycle = [e, s, pd, p]; cycle.append(cycle)\ndel e, s, pd, p, cycle\ngc.collect(); time.sleep(0.2)\n"
             "assert np.allclose(yc, conv_ref), 'the convolution is wrong'"),
        case("big matmul bound: bound.execute() then every reference dropped, wait outside",
             BIG_MM + "def run():\n"
             "    p = dnnl.Primitive(dnnl.MatmulDesc(eng, dn, dn, dn))\n"
             "    p.bind(strm, {dnnl.ARG_SRC: dnnl.Memory(dn, eng, xb.copy()), dnnl.ARG_WEIGHTS: "
             "dnnl.Memory(dn, eng, wb.copy()), dnnl.ARG_DST: dnnl.Memory(dn, eng, yb)}).execute()\n"
             "run(); gc.collect(); filler = [np.full(n * n, 7, np.float32) for _ in range(2)]\nstrm.wait()\n"
             + BIG_CHECK),
        case("big matmul bound: close every object, then execute(wait=True), then drop the binding",
             BIG_MM + big_exec + "strm.wait()\nbound = p.bind(strm, {dnnl.ARG_SRC: sb, dnnl.ARG_WEIGHTS: wm, "
             "dnnl.ARG_DST: db})\nbound.execute(wait=True)\n" + BIG_CHECK + "\n"
             "for obj in (sb, wm, db, p, pd):\n    obj.close()\n    try:\n        bound.execute(wait=True)\n"
             "    except ValueError as refusal:\n        assert 'closed' in str(refusal)\n"
             "    else:\n        raise AssertionError('a closed object was executed')\n"
             "del bound; gc.collect(); strm.wait()"),
        case("big matmul bound: the stream closed, then execute(wait=True) and execute()",
             BIG_MM + big_exec + "bound = p.bind(strm, {dnnl.ARG_SRC: sb, dnnl.ARG_WEIGHTS: wm, dnnl.ARG_DST: db})\n"
             "strm.close()\n" + BIG_CHECK + "\nfor wait in (True, False):\n    try:\n"
             "        bound.execute(wait=wait)\n    except ValueError as refusal:\n"
             "        assert 'closed' in str(refusal)\n"),
        case("big matmul bound: the binding in a reference cycle with its stream, collected after execute()",
             BIG_MM + "s = dnnl.Stream(eng)\np = dnnl.Primitive(dnnl.MatmulDesc(eng, dn, dn, dn))\n"
             "bound = p.bind(s, {dnnl.ARG_SRC: dnnl.Memory(dn, eng, xb), dnnl.ARG_WEIGHTS: dnnl.Memory(dn, eng, wb), "
             "dnnl.ARG_DST: dnnl.Memory(dn, eng, yb)})\nbound.execute()\ncycle = [s, p, bound]; cycle.append(cycle)\n"
             "del s, p, bound, cycle\ngc.collect(); time.sleep(0.3)\n" + BIG_CHECK),
        Case("exit with a binding alive whose memory was closed", "exit/primitives",
             BIG_MM + "p = dnnl.Primitive(dnnl.MatmulDesc(eng, dn, dn, dn))\nsb = dnnl.Memory(dn, eng, xb)\n"
             "bound = p.bind(strm, {dnnl.ARG_SRC: sb, dnnl.ARG_WEIGHTS: dnnl.Memory(dn, eng, wb), "
             "dnnl.ARG_DST: dnnl.Memory(dn, eng, yb)})\nbound.execute()\nsb.close()",
             OK, library="real", fresh=True, timeout=30.0),
        Case("exit with a big matmul in flight (no wait)", "exit/primitives",
             BIG_MM + "pd = dnnl.MatmulDesc(eng, dn, dn, dn)\n"
             "dnnl.Primitive(pd).execute(strm, {dnnl.ARG_SRC: dnnl.Memory(dn, eng, xb), dnnl.ARG_WEIGHTS: "
             "dnnl.Memory(dn, eng, wb), dnnl.ARG_DST: dnnl.Memory(dn, eng, yb)})", OK, library="real", fresh=True,
             timeout=30.0),
    ]
    return out


def thread_cases() -> list[Case]:
    def case(name: str, body: str, timeout: float = 30.0) -> Case:
        return Case(name, "threads/primitives", body.strip(), OK, library="real", timeout=timeout)

    close_while = '''
stop = threading.Event()
def work():
    while not stop.is_set():
        {work}
threads = run_threads([work] * 4)
time.sleep(0.2)
{victim}.close()
time.sleep(0.2)
stop.set()
join_threads(threads)
'''
    execute = "mm_prim.execute(strm, {dnnl.ARG_SRC: mm_src, dnnl.ARG_WEIGHTS: mm_wei, dnnl.ARG_DST: mm_dst}); strm.wait()"
    make_desc = "dnnl.MatmulDesc(eng, mm_src_md, mm_wei_md, mm_dst_md, attr=attr)"
    out = [
        case(f"close the {victim} while 4 threads {what}", close_while.format(work=work, victim=victim))
        for victim, what, work in (
            ("mm_prim", "execute it", execute),
            ("mm_wei", "execute with it", execute),
            ("mm_pd", "make primitives of it", "dnnl.Primitive(mm_pd)"),
            ("mm_pd", "query it", "mm_pd.src_desc(); mm_pd.impl_info; mm_pd.arg_sizes"),
            ("attr", "make descriptors with it", make_desc),
            ("mm_src_md", "make descriptors with it", make_desc),
            ("eng", "make descriptors on it", make_desc),
            ("post_ops", "set them on attributes", "dnnl.PrimitiveAttr().set_post_ops(post_ops)"),
            ("conv_pd", "walk its implementations", "conv_pd.next_impl() or None"),
        )
    ]
    bind = ("bound = mm_prim.bind(strm, {dnnl.ARG_SRC: mm_src, dnnl.ARG_WEIGHTS: mm_wei, dnnl.ARG_DST: mm_dst})\n")
    out += [
        case(f"close the {victim} while 4 threads run a bound execute of it with its wait",
             bind + close_while.format(work="bound.execute(wait=True)", victim=victim))
        for victim in ("mm_wei", "mm_prim", "strm", "bound")
    ]
    out.append(case("close the mm_dst while 4 threads each run a bound execute with its wait and an execute then wait",
                    bind + close_while.format(work="bound.execute(wait=True); " + execute, victim="mm_dst")))
    out += [
        case("next_impl in one thread while 2 threads make primitives of the descriptor and execute them", '''
deadline = time.monotonic() + 1.5
def flip():
    while time.monotonic() < deadline:
        if not conv_pd.next_impl():
            time.sleep(0.001)
def work():
    while time.monotonic() < deadline:
        p = dnnl.Primitive(conv_pd)
        try:
            got = conv_run(p, conv_pd, dnnl.Stream(eng))
        except ValueError as refusal:  # the descriptor moved on between the primitive and its memories
            assert str(refusal).startswith("args["), refusal
            continue
        assert np.allclose(got, conv_ref), "a convolution is wrong"
join_threads(run_threads([flip, work, work]))
'''),
        case("4 threads each make, execute and check their own primitives on one engine for 1.5 s", '''
deadline = time.monotonic() + 1.5
def worker():
    s = dnnl.Stream(eng)
    while time.monotonic() < deadline:
        ops = dnnl.PostOps(); ops.append_eltwise(dnnl.AlgKind.ELTWISE_LINEAR, 2.0, 1.0)
        at = dnnl.PrimitiveAttr(); at.set_post_ops(ops)
        y = np.zeros((4, 16), np.float32)
        with dnnl.MatmulDesc(eng, mm_src_md, mm_wei_md, mm_dst_md, attr=at) as pd, dnnl.Primitive(pd) as p:
            p.execute(s, {dnnl.ARG_SRC: dnnl.Memory(mm_src_md, eng, mm_x), dnnl.ARG_WEIGHTS: dnnl.Memory(mm_wei_md, eng, mm_w),
                          dnnl.ARG_DST: dnnl.Memory(mm_dst_md, eng, y)})
            s.wait()
        assert np.allclose(y, 2 * mm_ref + 1), "a matmul is wrong"
join_threads(run_threads([worker] * 4))
'''),
        case("garbage collection in another thread while descriptors and primitives in cycles die", '''
stop = threading.Event()
def collect():
    while not stop.is_set():
        gc.collect()
collector = run_threads([collect])
for _ in range(30):
    e = dnnl.Engine.cpu(); s = dnnl.Stream(e)
    pd = dnnl.MatmulDesc(e, mm_src_md, mm_wei_md, mm_dst_md); p = dnnl.Primitive(pd)
    y = np.zeros((4, 16), np.float32)
    p.execute(s, {dnnl.ARG_SRC: dnnl.Memory(mm_src_md, e, mm_x), dnnl.ARG_WEIGHTS: dnnl.Memory(mm_wei_md, e, mm_w),
                  dnnl.ARG_DST: dnnl.Memory(mm_dst_md, e, y)})
    cycle = [e, s, pd, p]; cycle.append(cycle)
    del e, s, pd, p, cycle
stop.set()
join_threads(collector)
'''),
    ]
    return out


def gpu_cases() -> list[Case]:
    """A few on real oneDNN's OpenCL engine on the emulated GPU (each case pays for the kernels it builds)."""
    case = _seq("primitives/gpu", library="emulated")
    setup = ("gx = ocl.make_memory(mm_src_md, geng); gw = ocl.make_memory(mm_wei_md, geng); "
             "gy = ocl.make_memory(mm_dst_md, geng)\n"
             "ocl.as_array(gx, gqueue).set(mm_x); ocl.as_array(gw, gqueue).set(mm_w)\n")
    return [
        case("ocl: matmul, the right result",
             setup + "dnnl.Primitive(dnnl.MatmulDesc(geng, mm_src_md, mm_wei_md, mm_dst_md)).execute(gstrm, "
             "{dnnl.ARG_SRC: gx, dnnl.ARG_WEIGHTS: gw, dnnl.ARG_DST: gy}); gstrm.wait()\n"
             "assert np.allclose(ocl.as_array(gy, gqueue).get(), mm_ref), 'the matmul is wrong'"),
        case("ocl: matmul, a binary post-op input missing",
             setup + "post_ops.append_binary(dnnl.AlgKind.BINARY_ADD, dnnl.MemoryDesc((1, 16), 'float32', 'ab'))\n"
             "attr.set_post_ops(post_ops)\n"
             "dnnl.Primitive(dnnl.MatmulDesc(geng, mm_src_md, mm_wei_md, mm_dst_md, attr=attr)).execute(gstrm, "
             "{dnnl.ARG_SRC: gx, dnnl.ARG_WEIGHTS: gw, dnnl.ARG_DST: gy}); gstrm.wait()",
             Raises(VALUE, ("args", "post_op_arg(0, ARG_SRC_1)"))),
        case("ocl: matmul, the weights transposed (ba) for an ab descriptor",
             setup + "gt = ocl.make_memory(dnnl.MemoryDesc((8, 16), 'float32', 'ba'), geng)\n"
             "dnnl.Primitive(dnnl.MatmulDesc(geng, mm_src_md, mm_wei_md, mm_dst_md)).execute(gstrm, "
             "{dnnl.ARG_SRC: gx, dnnl.ARG_WEIGHTS: gt, dnnl.ARG_DST: gy}); gstrm.wait()", Raises(VALUE, "args[33]")),
        case("ocl: sum with scales [1, 2, 3] gives the right result or is refused",
             "gs = [ocl.make_memory(md, geng) for _ in range(3)]\n"
             "[ocl.as_array(m, gqueue).set(a) for m in gs]\n"
             "pd = dnnl.SumDesc(geng, [1.0, 2.0, 3.0], [md, md, md])\ngd = ocl.make_memory(pd.dst_desc(), geng)\n"
             "dnnl.Primitive(pd).execute(gstrm, {dnnl.ARG_MULTIPLE_SRC + i: m for i, m in enumerate(gs)} | "
             "{dnnl.ARG_DST: gd}); gstrm.wait()\n"
             "assert np.allclose(ocl.as_array(gd, gqueue).get(), 6 * a), 'the sum is wrong'",
             Either(OK, Raises("NotImplementedError", ("dnnl_sum_primitive_desc_create", "scales")))),
        case("ocl: conv 'any', a plain nchw source where oneDNN chose another layout",
             "pd = dnnl.ConvolutionForwardDesc(geng, dnnl.MemoryDesc((1, 3, 8, 8), 'float32', 'any'), "
             "dnnl.MemoryDesc((8, 3, 3, 3), 'float32', 'any'), dnnl.MemoryDesc((1, 8, 6, 6), 'float32', 'any'), "
             "(1, 1), (0, 0), (0, 0))\n"
             "assert pd.src_desc() != conv_plain_mds[0], 'oneDNN chose nchw here'\n"
             "dnnl.Primitive(pd).execute(gstrm, {dnnl.ARG_SRC: ocl.make_memory(conv_plain_mds[0], geng), "
             "dnnl.ARG_WEIGHTS: ocl.make_memory(pd.weights_desc(), geng), "
             "dnnl.ARG_DST: ocl.make_memory(pd.dst_desc(), geng)}); gstrm.wait()", Raises(VALUE, "args[1]")),
        case("ocl: matmul with weight scales, the scales missing",
             setup + "attr.set_scales_mask(dnnl.ARG_WEIGHTS, 2)\n"
             "dnnl.Primitive(dnnl.MatmulDesc(geng, mm_src_md, mm_wei_md, mm_dst_md, attr=attr)).execute(gstrm, "
             "{dnnl.ARG_SRC: gx, dnnl.ARG_WEIGHTS: gw, dnnl.ARG_DST: gy}); gstrm.wait()",
             Raises(VALUE, ("args", "scales_arg(ARG_WEIGHTS)"))),
        case("ocl: softmax (no implementation here)",
             "dnnl.SoftmaxForwardDesc(geng, dnnl.AlgKind.SOFTMAX_ACCURATE, md, md, 1)",
             Either(OK, Raises("NotImplementedError", ("dnnl_softmax_forward_primitive_desc_create", "softmax")))),
        case("ocl: engine closed, then a primitive of its descriptor",
             "pd = dnnl.EltwiseForwardDesc(geng, dnnl.AlgKind.ELTWISE_RELU, md, md)\ngeng.close()\n"
             "p = dnnl.Primitive(pd); p.close()",
             Either(OK, Raises(CLOSED, ("desc", "engine", "Engine")))),
    ]


def cases() -> list[Case]:
    return (
        [case for api in apis() for case in api.cases()]
        + layout_cases() + onednn_bug_cases() + attr_cases() + query_cases() + mismatch_cases() + reordered_cases()
        + lifetime_cases() + thread_cases() + gpu_cases()
    )
