"""DLPack both ways, as the array API standard says, on the real CPU engine.

``memory.__dlpack__()`` gives a capsule over the memory's own buffer
(kDLCPU, strides in elements): ``"dltensor_versioned"`` when the consumer's
``max_version`` is 1.x or more, ``"dltensor"`` otherwise; ``copy=False``
refuses where a copy is needed, ``copy=True`` copies and says so
(``IS_COPIED``); a memory over a read-only tensor exports ``READ_ONLY``.
``dnnl_interop.from_dlpack(x)`` takes any producer's tensor without a copy,
renames the capsule, keeps the producer's tensor for as long as the memory's
handle lives and calls its deleter exactly once. A memory over a read-only
tensor is refused where oneDNN writes, before anything runs. The consumer
and producer here are hand-made with ctypes (the Python C API), so each step
of the protocol is seen from the other side. USM (kDLOneAPI): tests/gpu/test_gpu_dlpack.py.
"""

from __future__ import annotations

import ctypes
import gc
import itertools

import numpy as np
import pytest

import dnnl_interop as dnnl

KDL_CPU, KDL_ONEAPI = 1, 14
READ_ONLY, IS_COPIED = 1, 2


# --- the DLPack structs, and the capsule functions of the C API, through ctypes ------


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER)]


class DLManagedTensorVersioned(ctypes.Structure):
    pass


DELETER_VERSIONED = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensorVersioned))
DLManagedTensorVersioned._fields_ = [
    ("major", ctypes.c_uint32), ("minor", ctypes.c_uint32), ("manager_ctx", ctypes.c_void_p),
    ("deleter", DELETER_VERSIONED), ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor),
]

api = ctypes.pythonapi
api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
api.PyCapsule_GetPointer.restype = ctypes.c_void_p
api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
api.PyCapsule_GetName.argtypes = [ctypes.py_object]
api.PyCapsule_GetName.restype = ctypes.c_char_p
api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
api.PyCapsule_New.restype = ctypes.py_object
# For a capsule being destroyed (its reference count is 0: no py_object may be made of it).
capsule_is_valid_at = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(("PyCapsule_IsValid", api))


def capsule_name(capsule) -> str:
    return api.PyCapsule_GetName(capsule).decode()


def consume(capsule):
    """Take a capsule as a consumer does: ``(managed struct, its tensor)``, the capsule renamed."""
    name = capsule_name(capsule)
    assert name in ("dltensor", "dltensor_versioned")
    pointer = api.PyCapsule_GetPointer(capsule, name.encode())
    kind = DLManagedTensorVersioned if name == "dltensor_versioned" else DLManagedTensor
    managed = kind.from_address(pointer)
    assert api.PyCapsule_SetName(capsule, f"used_{name}".encode()) == 0
    return managed, managed.dl_tensor


def release(managed) -> None:
    managed.deleter(ctypes.pointer(managed))


# --- what a memory exports ---------------------------------------------------------


@pytest.fixture
def plain(engine):
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    made = dnnl.Memory(dnnl.MemoryDesc.from_array(data), engine, data)
    yield made, data
    made.close()  # before the leak check: a fixture's value outlives the test


@pytest.fixture
def read_only(engine):
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    data.flags.writeable = False
    made = dnnl.from_dlpack(data, engine=engine)
    yield made, data
    made.close()


MAX_VERSIONS = [None, (0, 8), (1, 0), (1, 1)]
COPIES = [None, True, False]
DEVICES = ["none", "own", "other"]
MATRIX = list(itertools.product(MAX_VERSIONS, COPIES, DEVICES, [False, True]))


def expected_outcome(max_version, copy, device):
    """What the standard asks of CPU memory: ``"refused"``, ``"copy"`` or ``"view"``."""
    if device == "other":
        return "refused"  # host memory is no kDLOneAPI tensor
    return "copy" if copy is True else "view"


@pytest.mark.parametrize(("max_version", "copy", "device", "is_read_only"), MATRIX,
                         ids=[f"{v}-copy{c}-{d}-{'ro' if r else 'rw'}" for v, c, d, r in MATRIX])
def test_the_export_matrix(engine, max_version, copy, device, is_read_only):
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    if is_read_only:
        data.flags.writeable = False
        memory = dnnl.from_dlpack(data, engine=engine)
    else:
        memory = dnnl.Memory(dnnl.MemoryDesc.from_array(data), engine, data)
    dl_device = {"none": None, "own": (KDL_CPU, 0), "other": (KDL_ONEAPI, 0)}[device]
    outcome = expected_outcome(max_version, copy, device)
    if outcome == "refused":
        with pytest.raises(BufferError, match="dl_device"):
            memory.__dlpack__(max_version=max_version, dl_device=dl_device, copy=copy)
        assert memory._idle()  # nothing left held
        return
    capsule = memory.__dlpack__(max_version=max_version, dl_device=dl_device, copy=copy)
    versioned = max_version is not None and max_version[0] >= 1
    assert capsule_name(capsule) == ("dltensor_versioned" if versioned else "dltensor")
    managed, tensor = consume(capsule)
    if versioned:
        assert (managed.major, managed.minor) == (1, min(max_version[1], 1))
        assert managed.flags == (READ_ONLY if is_read_only else 0) | (IS_COPIED if outcome == "copy" else 0)
    assert (tensor.device.device_type, tensor.device.device_id) == (KDL_CPU, 0)
    assert (tensor.ndim, tensor.dtype.code, tensor.dtype.bits, tensor.dtype.lanes) == (2, 2, 32, 1)
    assert (tensor.shape[0], tensor.shape[1], tensor.strides[0], tensor.strides[1]) == (3, 4, 4, 1)
    seen = np.ctypeslib.as_array(ctypes.cast(tensor.data, ctypes.POINTER(ctypes.c_float)), (3, 4))
    np.testing.assert_array_equal(seen, data)
    if outcome == "view":
        assert tensor.data == data.ctypes.data == memory.data_handle  # zero bytes copied
        assert len(memory._views) == 1 and not memory._in_flight  # the tensor holds the memory's buffer
    else:
        assert tensor.data != data.ctypes.data
        assert memory._idle()
    release(managed)
    assert memory._idle()
    del capsule  # renamed: its destructor leaves the tensor alone (a second release would crash)
    gc.collect()


def test_the_matrix_counts():
    outcomes = [expected_outcome(v, c, d) for v, c, d, _ in MATRIX]
    assert len(MATRIX) == 72
    assert (outcomes.count("view"), outcomes.count("copy"), outcomes.count("refused")) == (32, 16, 24)


def test_an_unused_capsule_releases_its_tensor(plain):
    memory, _ = plain
    capsule = memory.__dlpack__(max_version=(1, 0))
    assert len(memory._views) == 1 and not memory._in_flight
    del capsule
    assert memory._idle()


def test_dlpack_device(plain):
    memory, _ = plain
    assert memory.__dlpack_device__() == (KDL_CPU, 0)


def test_numpy_reads_the_memory_in_place(plain):
    memory, data = plain
    view = np.from_dlpack(memory)
    assert view.ctypes.data == data.ctypes.data == memory.data_handle
    np.testing.assert_array_equal(view, data)
    data[0, 0] = 42
    assert view[0, 0] == 42


def test_a_transposed_layout_keeps_its_strides(engine):
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    memory = dnnl.Memory(dnnl.MemoryDesc.from_array(data.T), engine, data.T)
    view = np.from_dlpack(memory)
    assert view.ctypes.data == data.ctypes.data and view.strides == data.T.strides
    np.testing.assert_array_equal(view, data.T)


def test_a_blocked_layout_is_exported_as_a_plain_copy(engine, stream):
    source = np.arange(16 * 16, dtype=np.float32).reshape(16, 16)
    blocked_desc = dnnl.MemoryDesc((16, 16), "f32", "AB16b16a")
    blocked = dnnl.reordered(dnnl.Memory(dnnl.MemoryDesc.from_array(source), engine, source), blocked_desc, stream)
    stream.wait()
    with pytest.raises(BufferError, match="blocked"):
        blocked.__dlpack__(max_version=(1, 0), copy=False)
    for copy in (None, True):
        capsule = blocked.__dlpack__(max_version=(1, 0), copy=copy)
        managed, _ = consume(capsule)
        assert managed.flags == IS_COPIED
        release(managed)
    np.testing.assert_array_equal(np.from_dlpack(blocked), source)


def test_export_waits_for_work_in_flight(engine, stream):
    source = np.arange(64 * 64, dtype=np.float32).reshape(64, 64)
    target = np.zeros((64, 64), np.float32)
    desc = dnnl.MemoryDesc.from_array(source)
    dst = dnnl.Memory(desc, engine, target)
    dnnl.reorder(desc, desc, engine).execute(stream, {dnnl.ARG_FROM: dnnl.Memory(desc, engine, source),
                                                     dnnl.ARG_TO: dst})
    np.testing.assert_array_equal(np.from_dlpack(dst), source)  # no stream.wait() by the user


def test_refusals_name_the_argument(plain):
    memory, _ = plain
    with pytest.raises(BufferError, match="stream"):
        memory.__dlpack__(stream=1)
    with pytest.raises(TypeError, match="max_version"):
        memory.__dlpack__(max_version=1)
    with pytest.raises(TypeError, match="dl_device"):
        memory.__dlpack__(dl_device="cpu")
    with pytest.raises(TypeError, match="copy"):
        memory.__dlpack__(copy="yes")
    with pytest.raises(BufferError, match="no buffer"):
        dnnl.Memory(memory.desc, memory.engine, dnnl.MEMORY_NONE).__dlpack__()
    memory.close()
    with pytest.raises(dnnl.ClosedObjectError):
        memory.__dlpack__()


def test_a_data_type_without_a_dlpack_code_is_refused(engine):
    memory = dnnl.Memory(dnnl.MemoryDesc((4, 4), "s4", "ab"), engine)
    with pytest.raises(BufferError, match="s4"):
        memory.__dlpack__()


# --- lifetimes --------------------------------------------------------------------


def test_the_array_outlives_the_memory(engine):
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    memory = dnnl.Memory(dnnl.MemoryDesc.from_array(data), engine, data)
    view = np.from_dlpack(memory)
    memory.close()  # deferred: the tensor still uses the handle
    del memory, data
    gc.collect()
    np.testing.assert_array_equal(view, np.arange(12, dtype=np.float32).reshape(3, 4))
    assert dnnl._owned.live_objects() >= 1
    del view
    gc.collect()


def test_the_memory_outlives_the_array(plain):
    memory, data = plain
    view = np.from_dlpack(memory)
    del view
    gc.collect()
    assert memory._idle()
    memory.set_data_handle(np.zeros_like(data))  # nothing holds the old buffer any more


def test_an_exported_buffer_cannot_be_swapped(plain):
    memory, data = plain
    view = np.from_dlpack(memory)
    with pytest.raises(ValueError, match="views"):
        memory.set_data_handle(np.zeros_like(data))
    del view


# --- taking tensors in -------------------------------------------------------------


def test_from_dlpack_uses_the_array_in_place(engine):
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    memory = dnnl.from_dlpack(data, engine=engine)
    assert memory.data_handle == data.ctypes.data
    assert memory.desc == dnnl.MemoryDesc((3, 4), "f32", "ab")
    assert memory.engine is engine
    back = np.from_dlpack(memory)
    assert back.ctypes.data == data.ctypes.data  # numpy -> memory -> numpy, zero bytes copied


@pytest.mark.parametrize("dtype", ["float32", "float16", "float64", "int8", "uint8", "int32", "int64"])
def test_from_dlpack_types(engine, dtype):
    data = np.arange(6).reshape(2, 3).astype(dtype)
    memory = dnnl.from_dlpack(data, engine=engine)
    assert memory.desc.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(np.asarray(memory), data)


def test_from_dlpack_of_a_strided_view(engine):
    data = np.arange(24, dtype=np.float32).reshape(4, 6)
    view = data[:, ::2].T
    memory = dnnl.from_dlpack(view, engine=engine)
    assert memory.data_handle == view.ctypes.data
    np.testing.assert_array_equal(np.asarray(memory), view)


def test_from_dlpack_without_an_engine_uses_a_shared_cpu_engine(real_dnnl):
    first = dnnl.from_dlpack(np.zeros(3, np.float32))
    second = dnnl.from_dlpack(np.ones(3, np.float32))
    assert first.engine is second.engine
    assert first.engine._runtime == "native"


def test_from_dlpack_of_a_memory(plain):
    memory, data = plain
    again = dnnl.from_dlpack(memory, engine=memory.engine)
    assert again.data_handle == memory.data_handle == data.ctypes.data
    assert len(memory._views) == 1 and not memory._in_flight  # the new memory holds the old one's buffer
    del again
    gc.collect()
    assert memory._idle()


# --- the layouts the binding remembers: one read of oneDNN for each ---------------------


def test_memories_of_one_layout_each_have_their_own_descriptor(engine):
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    first, second = dnnl.from_dlpack(data, engine=engine), dnnl.from_dlpack(data, engine=engine)
    third = dnnl.Memory.from_array(data, engine)
    assert first.desc is first.desc and first.desc is not second.desc and first.desc is not third.desc
    first.desc.close()  # the user's to close: the other memories' are untouched
    for memory in (second, third):
        assert memory.desc == dnnl.MemoryDesc((3, 4), "f32", "ab") and memory.desc.size == 48
        np.testing.assert_array_equal(np.asarray(memory), data)


def test_a_remembered_layout_outlives_the_memories_made_with_it(engine):
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    first = dnnl.from_dlpack(data, engine=engine)
    first.close()
    del first
    gc.collect()
    again = np.arange(12, 24, dtype=np.float32).reshape(3, 4)
    second = dnnl.from_dlpack(again, engine=engine)
    assert second.desc == dnnl.MemoryDesc((3, 4), "f32", "ab")
    np.testing.assert_array_equal(np.asarray(second), again)


def test_a_layout_differing_only_in_strides_is_not_served_another(engine):
    data = np.arange(24, dtype=np.float32).reshape(4, 6)
    packed = np.ascontiguousarray(data[:, :3])
    cases = ((packed, (3, 1), 48), (data[:, :3], (6, 1), 96), (data[:, :3].T, (1, 6), 96), (packed, (3, 1), 48))
    for array, strides, size in cases:
        memory = dnnl.from_dlpack(array, engine=engine)
        assert memory.desc.strides == strides and memory.desc.size == size
        np.testing.assert_array_equal(np.asarray(memory), array)
    # A descriptor made from the same arguments answers the same; one dimension of one element
    # keeps the stride it was given, which oneDNN's equality ignores.
    assert dnnl.MemoryDesc((1, 4), "f32", strides=(4, 1)).strides == (4, 1)
    assert dnnl.MemoryDesc((1, 4), "f32", strides=(9, 1)).strides == (9, 1)
    assert dnnl.MemoryDesc((1, 4), "f32", strides=(9, 1)) == dnnl.MemoryDesc((1, 4), "f32", strides=(4, 1))


def test_the_remembered_layouts_are_bounded(engine):
    from dnnl_interop import _memory_desc

    bound = _memory_desc._PLAIN_BOUND
    made = []
    for n in range(1, bound + 10):  # more layouts than the bound: the first are forgotten
        data = np.full(n, n, np.float32)
        made.append((dnnl.from_dlpack(data, engine=engine), data))
    assert len(_memory_desc._PLAIN) == bound
    for memory, data in made[:3] + made[-3:]:  # memories of forgotten layouts keep theirs
        np.testing.assert_array_equal(np.asarray(memory), data)
        assert memory.desc.shape == data.shape
    first, data = made[0]
    again = dnnl.from_dlpack(data, engine=engine)  # made again, as the first time
    assert again.desc == first.desc and len(_memory_desc._PLAIN) == bound


def test_a_memorys_descriptor_once_it_is_closed(engine):
    memory = dnnl.from_dlpack(np.zeros(3, np.float32), engine=engine)
    memory.close()
    with pytest.raises(dnnl.ClosedObjectError, match="Memory is closed"):
        _ = memory.desc


def test_from_dlpack_refusals(engine):
    with pytest.raises(TypeError, match="__dlpack__"):
        dnnl.from_dlpack([1, 2, 3], engine=engine)
    with pytest.raises(TypeError, match="engine"):
        dnnl.from_dlpack(np.zeros(3, np.float32), engine="cpu")
    with pytest.raises(BufferError, match="reversed"):
        dnnl.from_dlpack(np.arange(4, dtype=np.float32)[::-1], engine=engine)
    with pytest.raises(BufferError, match="oneDNN type"):
        dnnl.from_dlpack(np.zeros(3, np.complex64), engine=engine)
    with pytest.raises(BufferError, match="no oneDNN descriptor"):  # oneDNN 3.13 makes no boolean memory
        dnnl.from_dlpack(np.zeros((2, 3), bool), engine=engine)


class Producer:
    """A hand-made producer: one tensor, a deleter that counts its calls, and a capsule
    destructor that releases the tensor only if no consumer took it (as the standard says)."""

    def __init__(self, data: np.ndarray, device_type=KDL_CPU, flags=0, versioned=True):
        self.data, self.versioned, self.deleted = data, versioned, 0
        self.shape = (ctypes.c_int64 * data.ndim)(*data.shape)
        self.strides = (ctypes.c_int64 * data.ndim)(*(s // data.itemsize for s in data.strides))
        tensor = DLTensor(data.ctypes.data, DLDevice(device_type, 0), data.ndim, DLDataType(2, 32, 1),
                          self.shape, self.strides, 0)
        if versioned:
            self.deleter = DELETER_VERSIONED(self._delete)
            self.managed = DLManagedTensorVersioned(1, 1, None, self.deleter, flags, tensor)
        else:
            self.deleter = DELETER(self._delete)
            self.managed = DLManagedTensor(tensor, None, self.deleter)
        self.destructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(self._destroy)

    def _delete(self, managed) -> None:
        self.deleted += 1

    def _destroy(self, capsule: int) -> None:
        name = b"dltensor_versioned" if self.versioned else b"dltensor"
        if capsule_is_valid_at(capsule, name):  # never taken: still the producer's
            self.managed.deleter(ctypes.pointer(self.managed))

    def __dlpack__(self, **kwargs):
        name = b"dltensor_versioned" if self.versioned else b"dltensor"
        self.capsule = api.PyCapsule_New(ctypes.addressof(self.managed), name,
                                         ctypes.cast(self.destructor, ctypes.c_void_p))
        return self.capsule


@pytest.mark.parametrize("versioned", [True, False])
def test_the_deleter_is_called_exactly_once_when_the_memory_lets_go(engine, versioned):
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    producer = Producer(data, versioned=versioned)
    memory = dnnl.from_dlpack(producer, engine=engine)
    assert capsule_name(producer.capsule) == ("used_dltensor_versioned" if versioned else "used_dltensor")
    assert memory.data_handle == data.ctypes.data and producer.deleted == 0
    del producer.capsule  # a taken capsule's destructor leaves the tensor to its consumer
    gc.collect()
    assert producer.deleted == 0
    view = np.asarray(memory)  # a numpy view holds the memory's handle
    memory.close()
    gc.collect()
    assert producer.deleted == 0
    del view
    gc.collect()
    assert producer.deleted == 1


def test_a_refused_tensor_is_released_once(engine):
    producer = Producer(np.zeros((2, 2), np.float32), device_type=2)  # kDLCUDA
    with pytest.raises(BufferError, match="kDLCUDA"):
        dnnl.from_dlpack(producer, engine=engine)
    gc.collect()
    assert producer.deleted == 1
    del producer.capsule
    gc.collect()
    assert producer.deleted == 1


def test_a_capsule_of_a_memory_cannot_be_taken_twice(engine):
    data = np.zeros(3, np.float32)
    capsule = data.__dlpack__()

    class Twice:
        def __dlpack__(self, **kwargs):
            return capsule

    dnnl.from_dlpack(Twice(), engine=engine)
    with pytest.raises(TypeError, match="unused"):
        dnnl.from_dlpack(Twice(), engine=engine)


# --- read-only tensors ---------------------------------------------------------------


def test_a_read_only_tensor_is_refused_as_an_output_before_execute(engine, stream, read_only):
    memory, data = read_only
    desc = memory.desc
    writable = np.full((3, 4), -1, np.float32)
    out = dnnl.Memory(desc, engine, writable)
    copy = dnnl.reorder(desc, desc, engine)
    copy.execute(stream, {dnnl.ARG_FROM: memory, dnnl.ARG_TO: out})  # as an input: read
    stream.wait()
    np.testing.assert_array_equal(writable, data)
    source = dnnl.Memory(desc, engine, np.zeros((3, 4), np.float32))
    for attempt in (lambda: copy.execute(stream, {dnnl.ARG_FROM: source, dnnl.ARG_TO: memory}),
                    lambda: copy.execute(stream, {dnnl.ARG_FROM: source, 17: memory}),
                    lambda: copy.bind(stream, {dnnl.ARG_FROM: source, dnnl.ARG_TO: memory})):
        with pytest.raises(ValueError, match=r"args\[17\] \(.*ARG_DST.*\): the memory is over a read-only"):
            attempt()
    stream.wait()
    np.testing.assert_array_equal(data, np.arange(12, dtype=np.float32).reshape(3, 4))  # never written


def test_a_read_only_memory_exports_read_only_and_views_it_read_only(read_only):
    memory, _ = read_only
    assert not np.from_dlpack(memory).flags.writeable
    assert not np.asarray(memory).flags.writeable
    with memory.mapped() as view:
        assert not view.flags.writeable


def test_host_memory_has_no_usm_array_interface(plain):
    memory, _ = plain
    assert not hasattr(memory, "__sycl_usm_array_interface__")
