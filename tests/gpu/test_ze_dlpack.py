"""DLPack and the USM array interface of Level Zero memory, on real oneDNN, emulated GPU.

USM memory is a ``kDLOneAPI`` tensor over the memory's own pointer; a host
copy is given only when asked for (``dl_device=(kDLCPU, 0)``, not with
``copy=False``). ``from_dlpack`` and ``Memory.from_array`` take such
tensors back in as memory of a Level Zero engine, without a copy. Judged by
pointers and by the data a reorder reads through the memory.
"""

from __future__ import annotations

import ctypes
import gc

import numpy as np
import pytest

import dnnl_interop as dnnl
from dnnl_interop import ze
from dnnl_interop.testing import emulated_level_zero as emulated

emulated.enable()  # at collection, before any test of the session can start SYCL

RUNTIME = "ze"
SHAPE = (6, 10)
SRC = dnnl.MemoryDesc(SHAPE, "float32", "ab")
DST = dnnl.MemoryDesc(SHAPE, "float32", "ba")
KDL_CPU, KDL_ONEAPI = 1, 14

api = ctypes.pythonapi
api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
api.PyCapsule_GetPointer.restype = ctypes.c_void_p


class Head(ctypes.Structure):  # DLManagedTensorVersioned up to its tensor's device
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p), ("flags", ctypes.c_uint64), ("data", ctypes.c_void_p),
                ("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


def _read(capsule) -> Head:
    return Head.from_address(api.PyCapsule_GetPointer(capsule, b"dltensor_versioned"))


def _data() -> np.ndarray:
    return np.arange(np.prod(SHAPE), dtype=np.float32).reshape(SHAPE) / 3


def _transposed_through(engine, stream, lz, src: dnnl.Memory) -> np.ndarray:
    dst = lz.shared(SHAPE[::-1], "float32")
    dst_memory = ze.make_memory(DST, engine, dst.array.T)  # the tensor "ba" lays out over dst
    ze.execute(dnnl.reorder(SRC, DST, engine), stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst_memory})
    stream.wait()
    return dst.array.copy()


def test_usm_memory_is_a_oneapi_tensor_over_its_own_pointer(lz, engine):
    usm = lz.shared(SHAPE, "float32")
    memory = ze.make_memory(SRC, engine, usm.array)
    assert memory.__dlpack_device__() == (KDL_ONEAPI, 0)
    capsule = memory.__dlpack__(max_version=(1, 1))
    head = _read(capsule)
    assert (head.device_type, head.device_id, head.data, head.flags) == (KDL_ONEAPI, 0, usm.address, 0)
    del head, capsule
    gc.collect()
    assert memory._idle()


def test_a_oneapi_tensor_comes_back_as_memory_without_a_copy(lz, engine, stream):
    usm = lz.shared(SHAPE, "float32")
    usm.array[:] = _data()
    memory = ze.make_memory(SRC, engine, usm.array)
    again = dnnl.from_dlpack(memory, engine=engine)
    assert again.data_handle == usm.address and again.engine is engine
    np.testing.assert_array_equal(_transposed_through(engine, stream, lz, again), _data().T)
    with pytest.raises(BufferError, match="engine"):
        dnnl.from_dlpack(memory)  # a USM tensor needs the engine of its context


def test_device_usm_is_copied_to_the_host_only_when_asked(lz, engine):
    device = lz.device_memory(SRC.size)
    staging = lz.shared(SHAPE, "float32")
    staging.array[:] = _data()
    lz.copy(device, staging)
    assert lz.synchronize()
    memory = ze.make_memory(SRC, engine, device.ptr)
    with pytest.raises(BufferError, match="copy=False"):
        memory.__dlpack__(max_version=(1, 0), dl_device=(KDL_CPU, 0), copy=False)
    with pytest.raises(BufferError, match="dl_device"):
        memory.__dlpack__(max_version=(1, 0), dl_device=(KDL_ONEAPI, 3))
    with pytest.raises(BufferError, match="host only"):
        memory.__dlpack__(max_version=(1, 0), copy=True)
    host = np.from_dlpack(memory, device="cpu", copy=True)  # numpy asks for dl_device=(kDLCPU, 0)
    np.testing.assert_array_equal(host, _data())
    assert host.ctypes.data != device.address


def test_numpy_refuses_a_oneapi_tensor(lz, engine):
    memory = ze.make_memory(SRC, engine, lz.shared(SHAPE, "float32").array)
    with pytest.raises((BufferError, RuntimeError, ValueError)):
        np.from_dlpack(memory)


class UsmHolder:
    """A stand-in for a dpctl/dpnp array: only ``__sycl_usm_array_interface__``."""

    def __init__(self, interface: dict):
        self.__sycl_usm_array_interface__ = interface


def test_the_usm_array_interface_round_trip(lz, engine, stream):
    usm = lz.shared(SHAPE, "float32")
    usm.array[:] = _data()
    memory = ze.make_memory(SRC, engine, usm.array)
    interface = memory.__sycl_usm_array_interface__
    assert interface == {"shape": SHAPE, "typestr": "<f4", "data": (usm.address, False), "strides": (10, 1),
                         "offset": 0, "version": 1, "syclobj": None}
    holder = UsmHolder(interface)
    again = dnnl.Memory.from_array(holder, engine)
    assert again.data_handle == usm.address
    np.testing.assert_array_equal(_transposed_through(engine, stream, lz, again), _data().T)
    # An offset (in elements) and a read-only flag are honoured.
    row = UsmHolder({**interface, "shape": (5, 10), "offset": 10, "data": (usm.address, True)})
    tail = dnnl.Memory.from_array(row, engine)
    assert tail.data_handle == usm.address + 10 * 4
    assert tail.__sycl_usm_array_interface__["data"] == (usm.address + 40, True)

