"""The forward primitives: a :class:`~dnnl_interop.PrimitiveDesc` kind for each,
as oneDNN's C++ API has a ``dnnl::<primitive>::primitive_desc``.

=================================  ==========================================
``dnnl::<primitive>``              here
=================================  ==========================================
``matmul``                         :class:`MatmulDesc`
``inner_product_forward``          :class:`InnerProductForwardDesc`
``convolution_forward``            :class:`ConvolutionForwardDesc`
``deconvolution_forward``          :class:`DeconvolutionForwardDesc`
``eltwise_forward``                :class:`EltwiseForwardDesc`
``softmax_forward``                :class:`SoftmaxForwardDesc`
``binary`` (and ``select``)        :class:`BinaryDesc`
``pooling_forward``                :class:`PoolingForwardDesc`
``pooling_backward``               :class:`PoolingBackwardDesc`
``batch_normalization_forward``    :class:`BatchNormalizationForwardDesc`
``batch_normalization_backward``   :class:`BatchNormalizationBackwardDesc`
``layer_normalization_forward``    :class:`LayerNormalizationForwardDesc`
``layer_normalization_backward``   :class:`LayerNormalizationBackwardDesc`
``group_normalization_forward``    :class:`GroupNormalizationForwardDesc`
``group_normalization_backward``   :class:`GroupNormalizationBackwardDesc`
``reduction``                      :class:`ReductionDesc`
``resampling_forward``             :class:`ResamplingForwardDesc`
``concat``                         :class:`ConcatDesc`
``sum``                            :class:`SumDesc`
``prelu_forward``                  :class:`PReLUForwardDesc`
``shuffle_forward``                :class:`ShuffleForwardDesc`
``lrn_forward``                    :class:`LRNForwardDesc`
``lrn_backward``                   :class:`LRNBackwardDesc`
=================================  ==========================================

Each takes the arguments of the C++ constructor without its optional ones,
in its order, engine first; the optional ones are keywords (``bias_desc``,
``attr``, ``dilates``, ...). Every kind is a :class:`~dnnl_interop.PrimitiveDesc`
and answers its queries (``src_desc()``, ``weights_desc()``, ``dst_desc()``,
``arg_desc(arg)``, ...): they are documented there once.
``Primitive(pd)`` makes the primitive. A backward kind takes the forward
training descriptor as ``hint_fwd_pd``, as in C++; :func:`workspace_memory`
allocates the workspace a forward training execution writes for its backward one. Each kind is importable from the
package too: ``dnnl_interop.MatmulDesc``.
"""

from __future__ import annotations

from ._combining import BinaryDesc, ConcatDesc, ReductionDesc, SumDesc
from ._convolutions import ConvolutionForwardDesc, DeconvolutionForwardDesc
from ._elementwise import EltwiseForwardDesc, PReLUForwardDesc, SoftmaxForwardDesc
from ._normalizations import (
    BatchNormalizationBackwardDesc,
    BatchNormalizationForwardDesc,
    GroupNormalizationBackwardDesc,
    GroupNormalizationForwardDesc,
    LayerNormalizationBackwardDesc,
    LayerNormalizationForwardDesc,
)
from ._products import InnerProductForwardDesc, MatmulDesc
from ._spatial import (
    LRNBackwardDesc,
    LRNForwardDesc,
    PoolingBackwardDesc,
    PoolingForwardDesc,
    ResamplingForwardDesc,
    ShuffleForwardDesc,
)
from ._workspace import workspace_memory

__all__ = [
    "MatmulDesc",
    "InnerProductForwardDesc",
    "ConvolutionForwardDesc",
    "DeconvolutionForwardDesc",
    "EltwiseForwardDesc",
    "SoftmaxForwardDesc",
    "PReLUForwardDesc",
    "PoolingForwardDesc",
    "PoolingBackwardDesc",
    "ResamplingForwardDesc",
    "LRNForwardDesc",
    "LRNBackwardDesc",
    "ShuffleForwardDesc",
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
    "workspace_memory",
]


def __dir__() -> list[str]:
    return sorted(__all__)
