"""The primitives, forward and backward: a :class:`~dnnl_interop.PrimitiveDesc` kind for each,
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
``eltwise_backward``                  :class:`EltwiseBackwardDesc`
``softmax_forward``                   :class:`SoftmaxForwardDesc`
``softmax_backward``                  :class:`SoftmaxBackwardDesc`
``binary`` (and ``select``)           :class:`BinaryDesc`
``pooling_forward``                   :class:`PoolingForwardDesc`
``pooling_backward``                  :class:`PoolingBackwardDesc`
``batch_normalization_forward``       :class:`BatchNormalizationForwardDesc`
``batch_normalization_backward``      :class:`BatchNormalizationBackwardDesc`
``layer_normalization_forward``       :class:`LayerNormalizationForwardDesc`
``layer_normalization_backward``      :class:`LayerNormalizationBackwardDesc`
``group_normalization_forward``       :class:`GroupNormalizationForwardDesc`
``group_normalization_backward``      :class:`GroupNormalizationBackwardDesc`
``reduction``                         :class:`ReductionDesc`
``resampling_forward``                :class:`ResamplingForwardDesc`
``resampling_backward``               :class:`ResamplingBackwardDesc`
``concat``                            :class:`ConcatDesc`
``sum``                               :class:`SumDesc`
``prelu_forward``                     :class:`PReLUForwardDesc`
``prelu_backward``                    :class:`PReLUBackwardDesc`
``shuffle_forward``                   :class:`ShuffleForwardDesc`
``shuffle_backward``                  :class:`ShuffleBackwardDesc`
``lrn_forward``                       :class:`LRNForwardDesc`
``lrn_backward``                      :class:`LRNBackwardDesc`
``reorder``                           :class:`ReorderDesc`
====================================  ==========================================

Each takes the arguments of the C++ constructor without its optional ones,
in its order, engine first; the optional ones are keywords (``bias_desc``,
``attr``, ``dilates``, ...). Every kind is a :class:`~dnnl_interop.PrimitiveDesc`
and answers its queries (``src_desc()``, ``weights_desc()``, ``dst_desc()``,
``arg_desc(arg)``, ...): they are documented there once.
``Primitive(pd)`` makes the primitive. Each kind is importable from the
package too: ``dnnl_interop.MatmulDesc``. A backward kind takes
``hint_fwd_pd``, the forward kind's descriptor made with
``prop_kind=PropKind.FORWARD_TRAINING`` on the same engine, as in C++, and
answers ``diff_src_desc()``, ``diff_dst_desc()`` and ``diff_weights_desc()``;
:func:`workspace_memory` allocates the workspace a forward training
execution writes for its backward one.
"""

from __future__ import annotations

from ._combining import BinaryDesc, ConcatDesc, ReductionDesc, ReorderDesc, SumDesc
from ._convolutions import (
    ConvolutionBackwardDataDesc,
    ConvolutionBackwardWeightsDesc,
    ConvolutionForwardDesc,
    DeconvolutionBackwardDataDesc,
    DeconvolutionBackwardWeightsDesc,
    DeconvolutionForwardDesc,
)
from ._elementwise import (
    EltwiseBackwardDesc,
    EltwiseForwardDesc,
    PReLUBackwardDesc,
    PReLUForwardDesc,
    SoftmaxBackwardDesc,
    SoftmaxForwardDesc,
)
from ._normalizations import (
    BatchNormalizationBackwardDesc,
    BatchNormalizationForwardDesc,
    GroupNormalizationBackwardDesc,
    GroupNormalizationForwardDesc,
    LayerNormalizationBackwardDesc,
    LayerNormalizationForwardDesc,
)
from ._products import (
    InnerProductBackwardDataDesc,
    InnerProductBackwardWeightsDesc,
    InnerProductForwardDesc,
    MatmulDesc,
)
from ._spatial import (
    LRNBackwardDesc,
    LRNForwardDesc,
    PoolingBackwardDesc,
    PoolingForwardDesc,
    ResamplingBackwardDesc,
    ResamplingForwardDesc,
    ShuffleBackwardDesc,
    ShuffleForwardDesc,
)
from ._workspace import workspace_memory

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
    "EltwiseBackwardDesc",
    "SoftmaxForwardDesc",
    "SoftmaxBackwardDesc",
    "PReLUForwardDesc",
    "PReLUBackwardDesc",
    "PoolingForwardDesc",
    "PoolingBackwardDesc",
    "ResamplingForwardDesc",
    "ResamplingBackwardDesc",
    "LRNForwardDesc",
    "LRNBackwardDesc",
    "ShuffleForwardDesc",
    "ShuffleBackwardDesc",
    "BatchNormalizationForwardDesc",
    "BatchNormalizationBackwardDesc",
    "LayerNormalizationForwardDesc",
    "LayerNormalizationBackwardDesc",
    "GroupNormalizationForwardDesc",
    "GroupNormalizationBackwardDesc",
    "BinaryDesc",
    "ReductionDesc",
    "ConcatDesc",
    "SumDesc",
    "ReorderDesc",
    "workspace_memory",
]


def __dir__() -> list[str]:
    return sorted(__all__)
