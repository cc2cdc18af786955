"""numpy and memory: descriptors describe themselves, memory reads as a view.

``numpy.asarray(memory)`` is a view of the memory's buffer, without a copy,
with the descriptor's shape and the layout's strides; it keeps the buffer
valid for as long as it lives.
"""

from __future__ import annotations

import gc

import numpy as np
import pytest

import dnnl_interop as dnnl


@pytest.fixture
def engine(real_dnnl):
    with dnnl.Engine.cpu() as engine:
        yield engine


@pytest.mark.parametrize(
    ("shape", "tag", "strides"),
    [((2, 3), "ab", (12, 4)), ((2, 3), "ba", (4, 8)), ((2, 3, 4, 5), "nchw", (240, 80, 20, 4)),
     ((2, 3, 4, 5), "nhwc", (240, 4, 60, 12)), ((2, 3, 4, 5), "aBcd16b", None)],
)
def test_a_descriptor_describes_itself(real_dnnl, shape, tag, strides):
    with dnnl.MemoryDesc(shape, "f32", tag) as desc:
        assert (desc.ndim, desc.dtype, desc.strides) == (len(shape), np.dtype(np.float32), strides)
        assert desc.nbytes == desc.size >= 4 * np.prod(shape)


def test_descriptors_compare_by_value_across_tag_aliases(real_dnnl):
    with dnnl.MemoryDesc((2, 3, 4, 5), "f32", "nchw") as a, dnnl.MemoryDesc((2, 3, 4, 5), np.float32, "abcd") as b:
        assert a == b and hash(a) == hash(b)
        with dnnl.MemoryDesc((2, 3, 4, 5), "f16", "abcd") as c:
            assert a != c


def test_a_tag_of_another_rank_is_refused(real_dnnl):
    with pytest.raises(ValueError, match=r"^tag: 'abcd' lays out 4 dimensions, the shape has 2"):
        dnnl.MemoryDesc((2, 3), "f32", "abcd")


def test_bf16_has_no_numpy_dtype(real_dnnl):
    with dnnl.MemoryDesc((2, 3), "bf16", "ab") as desc:
        assert desc.dtype is None and desc.strides is None


@pytest.mark.parametrize("tag", ["ab", "ba"])
def test_numpy_asarray_of_memory_is_a_view_with_the_layouts_strides(engine, tag):
    with dnnl.MemoryDesc((2, 3), "f32", tag) as desc, dnnl.Memory(desc, engine) as memory:
        view = np.asarray(memory)
        assert view.shape == (2, 3) and view.strides == desc.strides
        view[:] = np.arange(6).reshape(2, 3)
        assert np.asarray(memory).tolist() == [[0, 1, 2], [3, 4, 5]]
        assert view.ctypes.data == memory.data_handle  # no copy
        del view


def test_a_view_keeps_the_buffer_valid_after_the_memory_closes(engine):
    with dnnl.MemoryDesc((256, 256), "f32", "ab") as desc:
        memory = dnnl.Memory(desc, engine)  # oneDNN allocates: freed with the handle
        live = dnnl._owned.live_objects()
        view = np.asarray(memory)
        view[:] = 7.0
        memory.close()
        assert memory.closed and dnnl._owned.live_objects() == live  # the handle waits for the view
        assert float(view.sum()) == 7.0 * 256 * 256
        del view
        gc.collect()
        assert dnnl._owned.live_objects() == live - 1


def test_the_buffer_cannot_change_under_a_view(engine):
    with dnnl.MemoryDesc((2, 3), "f32", "ab") as desc, dnnl.Memory(desc, engine) as memory:
        view = np.asarray(memory)
        with pytest.raises(ValueError, match=r"^buffer: numpy views of the current buffer exist"):
            memory.set_data_handle(np.zeros((2, 3), np.float32))
        del view
        gc.collect()
        memory.set_data_handle(np.zeros((2, 3), np.float32))


@pytest.mark.parametrize(
    ("dtype", "tag", "message"),
    [("bf16", "ab", "numpy has no type for bf16"), ("f32", "aBcd16b", "blocked")],
)
def test_no_view_where_numpy_cannot_describe_the_data(engine, dtype, tag, message):
    shape = (2, 3) if tag == "ab" else (2, 3, 4, 5)
    with dnnl.MemoryDesc(shape, dtype, tag) as desc, dnnl.Memory(desc, engine) as memory:
        with pytest.raises(TypeError, match=message):
            np.asarray(memory)


def test_memory_without_a_buffer_has_no_view(engine):
    with dnnl.MemoryDesc((2, 3), "f32", "ab") as desc, dnnl.Memory(desc, engine, dnnl.MEMORY_NONE) as memory:
        with pytest.raises(ValueError, match="no buffer"):
            np.asarray(memory)
