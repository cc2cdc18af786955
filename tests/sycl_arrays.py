"""USM arrays of dpctl alone, for the SYCL tests that do not need dpnp.

:class:`SharedArray` is shared USM (``dpctl.memory.MemoryUSMShared``) seen
two ways: as a numpy array on the host (shared USM is host-readable), and as
an object with dpctl's ``__sycl_usm_array_interface__`` (version 1) naming its
queue, which is all ``dnnl_interop.sycl`` reads of a dpnp array.
"""

from __future__ import annotations

import numpy as np


class SharedArray:
    """A C-contiguous (or transposed) numpy-typed array in shared USM of ``queue``."""

    def __init__(self, queue, shape, dtype="float32", *, strides=None, data=None):
        import dpctl.memory

        self.dtype = np.dtype(dtype)
        self.shape = tuple(shape)
        count = int(np.prod(self.shape))
        self.usm = dpctl.memory.MemoryUSMShared(max(count, 1) * self.dtype.itemsize, queue=queue)
        self.queue = queue
        flat = np.frombuffer(self.usm, dtype=self.dtype, count=count)
        contiguous = tuple(int(np.prod(self.shape[i + 1:])) for i in range(len(self.shape)))
        self.strides = tuple(strides) if strides is not None else contiguous
        self.host = np.lib.stride_tricks.as_strided(
            flat, self.shape, tuple(s * self.dtype.itemsize for s in self.strides)
        )
        self.host[...] = 0 if data is None else data
        self.read_only = False

    @property
    def pointer(self) -> int:
        return int(self.usm.__sycl_usm_array_interface__["data"][0])

    @property
    def __sycl_usm_array_interface__(self):
        return {
            "data": (self.pointer, self.read_only),
            "shape": self.shape,
            "strides": self.strides,
            "typestr": self.dtype.str,
            "offset": 0,
            "version": 1,
            "syclobj": self.queue,
        }
