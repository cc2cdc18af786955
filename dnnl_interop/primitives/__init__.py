"""The primitives: a :class:`~dnnl_interop.PrimitiveDesc` kind for each,
as oneDNN's C++ API has a ``dnnl::<primitive>::primitive_desc``.

====================================  ==========================================
``dnnl::<primitive>``                 here
====================================  ==========================================
``matmul``                            :class:`MatmulDesc`
``inner_product_forward``             :class:`InnerProductForwardDesc`
``inner_product_backward_data``       :class:`InnerProductBackwardDataDesc`
``inner_product_backward_weights``    :class:`InnerProductBackwardWeightsDesc`
``convolution_forward``               :class:`ConvolutionForwardDesc`
``convolution_backward_data``         :class:`ConvolutionBackwardDataDesc`
``convolution_backward_weights``      :class:`ConvolutionBackwardWeightsDesc`
``deconvolution_forward``             :class:`DeconvolutionForwardDesc`
``deconvolution_backward_data``       :class:`DeconvolutionBackwardDataDesc`
``deconvolution_backward_weights``    :class:`DeconvolutionBackwardWeightsDesc`
``eltwise_forward``                   :class:`EltwiseForwardDesc`
``softmax_forward``                   :class:`SoftmaxForwardDesc`
``binary`` (and ``select``)           :class:`BinaryDesc`
``pooling_forward``                   :class:`PoolingForwardDesc`
``batch_normalization_forward``       :class:`BatchNormalizationForwardDesc`
``layer_normalization_forward``       :class:`LayerNormalizationForwardDesc`
``group_normalization_forward``       :class:`GroupNormalizationForwardDesc`
``reduction``                         :class:`ReductionDesc`
``resampling_forward``                :class:`ResamplingForwardDesc`
``concat``                            :class:`ConcatDesc`
``sum``                               :class:`SumDesc`
``prelu_forward``                     :class:`PReLUForwardDesc`
``shuffle_forward``                   :class:`ShuffleForwardDesc`
``lrn_forward``                       :class:`LRNForwardDesc`
====================================  ==========================================

Each takes the arguments of the C++ constructor without its optional ones,
in its order, engine first; the optional ones are keywords (``bias_desc``,
``attr``, ``dilates``, ...). Every kind is a :class:`~dnnl_interop.PrimitiveDesc`
and answers its queries (``src_desc()``, ``weights_desc()``, ``dst_desc()``,
``arg_desc(arg)``, ...): they are documented there once.
``Primitive(pd)`` makes the primitive. Each kind is importable from the
package too: ``dnnl_interop.MatmulDesc``.

A backward kind (``*BackwardDataDesc``, ``*BackwardWeightsDesc``) takes,
as in C++, ``hint_fwd_pd``: the forward kind's descriptor made with
``prop_kind=PropKind.FORWARD_TRAINING`` on the same engine. It keeps that
descriptor alive, and so do its primitives.
"""

from __future__ import annotations

from ._combining import BinaryDesc, ConcatDesc, ReductionDesc, SumDesc
from ._convolutions import (
    ConvolutionBackwardDataDesc,
    ConvolutionBackwardWeightsDesc,
    ConvolutionForwardDesc,
    DeconvolutionBackwardDataDesc,
    DeconvolutionBackwardWeightsDesc,
    DeconvolutionForwardDesc,
)
from ._elementwise import EltwiseForwardDesc, PReLUForwardDesc, SoftmaxForwardDesc
from ._normalizations import BatchNormalizationForwardDesc, GroupNormalizationForwardDesc, LayerNormalizationForwardDesc
from ._products import (
    InnerProductBackwardDataDesc,
    InnerProductBackwardWeightsDesc,
    InnerProductForwardDesc,
    MatmulDesc,
)
from ._spatial import LRNForwardDesc, PoolingForwardDesc, ResamplingForwardDesc, ShuffleForwardDesc

__all__ = [
    "MatmulDesc",
    "InnerProductForwardDesc",
    "InnerProductBackwardDataDesc",
    "InnerProductBackwardWeightsDesc",
    "ConvolutionForwardDesc",
    "ConvolutionBackwardDataDesc",
    "ConvolutionBackwardWeightsDesc",
    "DeconvolutionForwardDesc",
    "DeconvolutionBackwardDataDesc",
    "DeconvolutionBackwardWeightsDesc",
    "EltwiseForwardDesc",
    "SoftmaxForwardDesc",
    "PReLUForwardDesc",
    "PoolingForwardDesc",
    "ResamplingForwardDesc",
    "LRNForwardDesc",
    "ShuffleForwardDesc",
    "BatchNormalizationForwardDesc",
    "LayerNormalizationForwardDesc",
    "GroupNormalizationForwardDesc",
    "BinaryDesc",
    "ReductionDesc",
    "ConcatDesc",
    "SumDesc",
]


def __dir__() -> list[str]:
    return sorted(__all__)
