"""numpy and memory: descriptors describe themselves, memory reads as a view.

``numpy.asarray(memory)`` is a view of the memory's buffer, without a copy,
with the descriptor's shape and the layout's strides; it keeps the buffer
valid for as long as it lives. A descriptor is made from a tag or from
strides in elements (oneDNN's unit); ``MemoryDesc.from_array`` describes a
numpy array as it lies, so a non-contiguous view is used in place.
``memory.mapped()`` maps the data as a numpy array for a ``with`` block.
All against the real CPU engine (the emulated GPU's side: tests/gpu).
"""

from __future__ import annotations

import copy
import gc
import pickle
import sys

import numpy as np
import pytest

import dnnl_interop as dnnl


@pytest.fixture
def engine(real_dnnl):
    with dnnl.Engine.cpu() as engine:
        yield engine


@pytest.mark.parametrize(
    ("shape", "tag", "strides"),
    [((2, 3), "ab", (3, 1)), ((2, 3), "ba", (1, 2)), ((2, 3, 4, 5), "nchw", (60, 20, 5, 1)),
     ((2, 3, 4, 5), "nhwc", (60, 1, 15, 3)), ((2, 3, 4, 5), "aBcd16b", None)],
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


def test_bf16_has_no_numpy_dtype_but_its_strides_in_elements(real_dnnl):
    with dnnl.MemoryDesc((2, 3), "bf16", "ab") as desc:
        assert desc.dtype is None and desc.strides == (3, 1)


@pytest.mark.parametrize("tag", ["ab", "ba"])
def test_numpy_asarray_of_memory_is_a_view_with_the_layouts_strides(engine, tag):
    with dnnl.MemoryDesc((2, 3), "f32", tag) as desc, dnnl.Memory(desc, engine) as memory:
        view = np.asarray(memory)
        assert view.shape == (2, 3) and view.strides == tuple(4 * s for s in desc.strides)
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


# --- descriptors from strides --------------------------------------------------------


@pytest.mark.parametrize(
    ("shape", "strides", "size"),
    [((2, 3), (3, 1), 24), ((2, 3), (1, 2), 24), ((2, 3), (8, 1), 64), ((4, 3), (6, 2), 96),
     ((2, 3, 4), (1, 2, 6), 96), ((1, 3), (0, 1), 12)],
    ids=["row-major", "column-major", "padded rows", "every other column", "reversed axes", "zero for one"],
)
def test_a_descriptor_from_strides_keeps_them_and_its_size_covers_them(real_dnnl, shape, strides, size):
    # oneDNN's size: the outermost stride times its dimension, in bytes.
    with dnnl.MemoryDesc(shape, "f32", strides=strides) as desc:
        assert (desc.shape, desc.strides, desc.tag, desc.size) == (shape, strides, None, size)
        assert repr(desc) == f"MemoryDesc({shape}, f32, strides={strides})"


@pytest.mark.parametrize(("tag", "strides"), [("ab", [3, 1]), ("ba", (1, 2))])
def test_a_tag_and_its_strides_make_equal_descriptors(real_dnnl, tag, strides):
    with dnnl.MemoryDesc((2, 3), "f32", tag) as by_tag, dnnl.MemoryDesc((2, 3), "f32", strides=strides) as by_strides:
        assert by_tag == by_strides and hash(by_tag) == hash(by_strides)
        assert by_strides.strides == by_tag.strides == tuple(strides)
        with dnnl.MemoryDesc((2, 3), "f32", strides=(4, 1)) as padded:
            assert padded != by_tag if tag == "ab" else padded != by_strides


def test_the_stride_of_a_dimension_of_one_does_not_matter_to_equality(real_dnnl):
    # As oneDNN's own comparison: such a stride is never used.
    with dnnl.MemoryDesc((1, 3), "f32", strides=(3, 1)) as a, dnnl.MemoryDesc((1, 3), "f32", strides=(0, 1)) as b:
        assert a == b and hash(a) == hash(b)


def test_a_descriptor_from_strides_copies_and_pickles_with_its_strides(real_dnnl):
    with dnnl.MemoryDesc((2, 3), "f16", strides=(1, 4)) as desc:
        for twin in (copy.copy(desc), copy.deepcopy(desc), pickle.loads(pickle.dumps(desc))):
            assert twin == desc and twin.strides == (1, 4) and twin.size == desc.size
            assert twin.handle != desc.handle
            twin.close()


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"strides": (1,)}, ValueError, r"^strides: 1 strides for a shape of 2 dimensions"),
        ({"strides": (3, 1, 1)}, ValueError, r"^strides: 3 strides for a shape of 2 dimensions"),
        ({"strides": (3, -1)}, ValueError, r"^strides\[1\]: -1 is not a stride in elements"),
        ({"strides": (0, 1)}, ValueError, r"^strides\[0\]: 0 for a dimension of 2 elements; broadcast layouts"),
        ({"strides": (True, 1)}, TypeError, r"^strides\[0\]: expected an int, got bool"),
        ({"strides": (3.0, 1)}, TypeError, r"^strides\[0\]: expected an int, got float"),
        ({"strides": "ab"}, TypeError, r"^strides: expected a sequence of ints, got str"),
        ({"strides": 3}, TypeError, r"^strides: expected a sequence of ints, got int"),
        ({"strides": (3, 1), "tag": "ab"}, TypeError, r"^tag: give a format tag or strides, not both"),
        ({}, TypeError, r"^tag: a format tag or strides=\.\.\. is needed"),
        ({"tag": (3, 1)}, TypeError, r"^tag: expected a format tag name, got tuple; strides go by keyword"),
    ],
)
def test_strides_are_checked_before_onednn(real_dnnl, kwargs, error, message):
    with pytest.raises(error, match=message):
        dnnl.MemoryDesc((2, 3), "f32", **kwargs)


def test_strides_onednn_refuses_say_what_was_given(real_dnnl):
    # Interleaved rows and columns: oneDNN refuses; the message says what it was given.
    with pytest.raises(dnnl.InvalidArgumentsError, match=r"strides: oneDNN refused strides \(3, 2\) \(in elements\) "
                       r"for shape \(2, 3\) of f32"):
        dnnl.MemoryDesc((2, 3), "f32", strides=(3, 2))


@pytest.mark.parametrize(
    ("view", "strides"),
    [
        (lambda a: a, (6, 1)),
        (lambda a: a.T, (1, 6)),
        (lambda a: a[:, ::2], (6, 2)),
        (lambda a: a[1:3, 1:4], (6, 1)),
        (lambda a: a[::2].T, (1, 12)),
    ],
    ids=["contiguous", "transposed", "every other column", "window", "every other row, transposed"],
)
def test_from_array_describes_an_array_as_it_lies(real_dnnl, view, strides):
    array = view(np.zeros((4, 6), np.float32))
    with dnnl.MemoryDesc.from_array(array) as desc:
        assert (desc.shape, desc.dtype, desc.strides) == (array.shape, array.dtype, strides)
        assert tuple(s * 4 for s in desc.strides) == array.strides


@pytest.mark.parametrize(
    ("array", "error", "message"),
    [
        (np.zeros((4, 6), np.float32)[::-1], ValueError, r"strides\[0\] is negative \(-24 bytes\)"),
        (np.zeros((2, 3), ">f4"), ValueError, "not in the machine's byte order"),
        (np.lib.stride_tricks.as_strided(np.zeros(16, np.float32), (2, 2), (6, 4)), ValueError,
         r"strides\[0\] is 6 bytes, not a whole number of 4-byte elements"),
        ([[1.0, 2.0]], TypeError, "expected a numpy array or a pyopencl.array.Array, got list"),
        (np.zeros(3, np.complex64), TypeError, "complex64"),
    ],
    ids=["reversed", "big-endian", "half elements", "list", "complex"],
)
def test_from_array_refuses_what_onednn_cannot_describe(real_dnnl, array, error, message):
    with pytest.raises(error, match=message):
        dnnl.MemoryDesc.from_array(array)


def test_from_array_takes_any_buffer_numpy_reads(real_dnnl):
    with dnnl.MemoryDesc.from_array(memoryview(bytearray(12)).cast("f", (3,))) as desc:
        assert (desc.shape, desc.dtype, desc.strides) == ((3,), np.dtype(np.float32), (1,))


# --- strided numpy views used in place -------------------------------------------------


def _reorder(engine, src, dst):
    with dnnl.Stream(engine) as stream:
        dnnl.reorder(src.desc, dst.desc, engine).execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
        stream.wait()


@pytest.mark.parametrize(
    "view",
    [lambda a: a.T, lambda a: a[:, ::2], lambda a: a[1:3, 2:5], lambda a: a[::2, ::3].T],
    ids=["transposed", "every other column", "window", "every other row and third column, transposed"],
)
def test_a_reorder_reads_a_strided_view_described_by_its_strides(engine, view):
    base = np.arange(4 * 6, dtype=np.float32).reshape(4, 6)
    source = view(base)
    assert not source.flags.c_contiguous
    out = np.full(source.shape, -1, np.float32)
    with dnnl.MemoryDesc.from_array(source) as src_desc, dnnl.MemoryDesc(out.shape, out.dtype, "ab") as dst_desc:
        with dnnl.Memory(src_desc, engine, source) as src, dnnl.Memory(dst_desc, engine, out) as dst:
            _reorder(engine, src, dst)
    np.testing.assert_array_equal(out, source)


def test_a_reorder_reads_a_transposed_view_described_by_explicit_strides(engine):
    base = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = np.empty((3, 2), np.float32)
    with dnnl.MemoryDesc((3, 2), "f32", strides=(1, 3)) as src_desc, dnnl.MemoryDesc((3, 2), "f32", "ab") as dst_desc:
        with dnnl.Memory(src_desc, engine, base.T) as src, dnnl.Memory(dst_desc, engine, out) as dst:
            _reorder(engine, src, dst)
    np.testing.assert_array_equal(out, base.T)


def test_a_reorder_writes_into_a_strided_view_and_nowhere_else(engine):
    source = np.arange(12, dtype=np.float32).reshape(4, 3)
    base = np.full((4, 6), -1, np.float32)
    target = base[:, ::2]  # (4, 3), every other column of base
    with dnnl.MemoryDesc(source.shape, source.dtype, "ab") as src_desc, dnnl.MemoryDesc.from_array(target) as dst_desc:
        with dnnl.Memory(src_desc, engine, source) as src, dnnl.Memory(dst_desc, engine, target) as dst:
            _reorder(engine, src, dst)
    np.testing.assert_array_equal(base[:, ::2], source)
    assert (base[:, 1::2] == -1).all()  # the columns between were not touched


def test_a_non_contiguous_view_with_another_layout_is_refused_naming_both(engine):
    view = np.zeros((3, 2), np.float32).T  # (2, 3), strides (4, 8) bytes
    with dnnl.MemoryDesc((2, 3), "f32", "ab") as desc:
        with pytest.raises(ValueError, match=r"^buffer: the array's strides, \(4, 8\) bytes \(Fortran-contiguous "
                           r"\(column-major\)\), are not the descriptor's, \(12, 4\) bytes \(MemoryDesc\(\(2, 3\), "
                           r"f32, 'ab'\)\): oneDNN would read its elements in another order .* MemoryDesc.from_array"):
            dnnl.Memory(desc, engine, view)


def test_set_data_handle_takes_a_strided_view_of_the_descriptors_layout(engine):
    first, second = np.zeros((3, 2), np.float32), np.arange(6, dtype=np.float32).reshape(3, 2)
    with dnnl.MemoryDesc((2, 3), "f32", strides=(1, 2)) as desc, dnnl.Memory(desc, engine, first.T) as memory:
        memory.set_data_handle(second.T)
        assert memory.data_handle == second.ctypes.data
        np.testing.assert_array_equal(np.asarray(memory), second.T)
        with pytest.raises(ValueError, match=r"an array of shape \(3, 2\) for a descriptor of shape \(2, 3\)"):
            memory.set_data_handle(np.zeros((2, 3), np.float32)[:, ::1].T)


def test_numpy_asarray_of_strided_memory_has_the_descriptors_strides(engine):
    with dnnl.MemoryDesc((2, 3), "f32", strides=(4, 1)) as desc, dnnl.Memory(desc, engine) as memory:
        view = np.asarray(memory)
        assert view.shape == (2, 3) and view.strides == (16, 4)
        del view


# --- memory.mapped() on the CPU engine -------------------------------------------------


@pytest.mark.parametrize("tag", ["ab", "ba"])
def test_mapped_host_memory_is_a_view_of_its_buffer(engine, tag):
    buffer = np.zeros(6, np.float32)
    with dnnl.MemoryDesc((2, 3), "f32", tag) as desc, dnnl.Memory(desc, engine, buffer) as memory:
        with memory.mapped() as array:
            assert (array.shape, array.dtype, array.strides) == ((2, 3), np.float32, tuple(4 * s for s in desc.strides))
            assert array.ctypes.data == buffer.ctypes.data  # no copy
            array[:] = np.arange(6).reshape(2, 3)
        np.testing.assert_array_equal(np.asarray(memory), np.arange(6).reshape(2, 3))
        array[0, 0] = 42  # still the buffer itself after the block
        assert np.asarray(memory)[0, 0] == 42
        del array


def test_mapped_sees_the_work_submitted_before(engine):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    with dnnl.MemoryDesc((2, 3), "f32", "ab") as src_desc, dnnl.MemoryDesc((2, 3), "f32", "ba") as dst_desc:
        with dnnl.Memory(src_desc, engine, a) as src, dnnl.Memory(dst_desc, engine) as dst, \
                dnnl.Stream(engine) as stream:
            dnnl.reorder(src_desc, dst_desc, engine).execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
            with dst.mapped() as array:  # no stream.wait(): mapping finishes the work first
                np.testing.assert_array_equal(array, a)
            del array


def test_a_mapped_memory_keeps_its_handle_until_the_block_ends(engine):
    with dnnl.MemoryDesc((64, 64), "f32", "ab") as desc:
        live = dnnl._owned.live_objects()
        memory = dnnl.Memory(desc, engine)
        with memory.mapped() as array:
            memory.close()
            assert memory.closed and dnnl._owned.live_objects() == live + 1
            array[:] = 3.0
        assert float(array.sum()) == 3.0 * 64 * 64  # the view still holds the buffer
        del array
        gc.collect()
        assert dnnl._owned.live_objects() == live


def test_the_buffer_cannot_change_while_mapped(engine):
    with dnnl.MemoryDesc((2, 3), "f32", "ab") as desc, dnnl.Memory(desc, engine) as memory:
        with memory.mapped() as array:
            with pytest.raises(ValueError, match=r"^buffer: numpy views of the current buffer exist"):
                memory.set_data_handle(np.zeros((2, 3), np.float32))
        del array
        gc.collect()
        memory.set_data_handle(np.zeros((2, 3), np.float32))


@pytest.mark.parametrize(
    ("dtype", "tag", "error", "message"),
    [("bf16", "ab", TypeError, "^memory: numpy has no type for bf16"),
     ("f32", "aBcd16b", TypeError, "^memory: the 'aBcd16b' layout is blocked"),
     ("f32", "none", ValueError, r"^memory: the memory has no buffer to map \(MEMORY_NONE\)"),
     ("f32", "closed", dnnl.ClosedObjectError, "closed")],
)
def test_mapped_refuses_what_no_array_describes(engine, dtype, tag, error, message):
    shape = (2, 3, 4, 5) if tag == "aBcd16b" else (2, 3)
    with dnnl.MemoryDesc(shape, dtype, "ab" if tag in ("none", "closed") else tag) as desc:
        memory = dnnl.Memory(desc, engine, dnnl.MEMORY_NONE if tag == "none" else dnnl.MEMORY_ALLOCATE)
        if tag == "closed":
            memory.close()
        with pytest.raises(error, match=message), memory.mapped():
            pass
        memory.close()


def test_map_data_names_the_numpy_way_not_ffi_buffer(real_dnnl):
    doc = dnnl.Memory.map_data.__doc__
    assert "ffi.buffer" not in doc and ":meth:`mapped`" in doc


def test_as_array_refuses_memory_of_a_cpu_engine(engine):
    import pyopencl as cl

    from dnnl_interop import ocl

    devices = [d for p in cl.get_platforms() for d in p.get_devices()]
    queue = cl.CommandQueue(cl.Context(devices[:1]))
    with dnnl.MemoryDesc((2, 3), "f32", "ab") as desc, dnnl.Memory(desc, engine) as memory, \
            pytest.raises(ValueError, match=r"^memory: not on an OpenCL engine"):
        ocl.as_array(memory, queue)


def test_an_empty_array_is_described_and_viewed_without_a_buffer(engine):
    empty = np.zeros((0, 3), np.float32)  # numpy gives it strides (0, 0): none is ever used
    with dnnl.MemoryDesc.from_array(empty) as desc, dnnl.Memory(desc, engine, empty) as memory:
        assert desc.size == 0 and desc.strides == (0, 0)
        assert np.asarray(memory).shape == (0, 3)
        with memory.mapped() as array:
            assert array.shape == (0, 3) and array.sum() == 0
        del array


def test_the_buffer_protocol_gives_the_same_bytes_and_keeps_the_buffer_valid(engine):
    # memoryview(memory) calls __buffer__ on Python 3.12 and later; called directly here so
    # the rule is checked on every supported Python.
    with dnnl.MemoryDesc((4, 8), "f32", "ab") as desc:
        memory = dnnl.Memory(desc, engine)
        live = dnnl._owned.live_objects()
        view = memory.__buffer__(0)
        assert (view.format, view.shape, view.nbytes) == ("f", (4, 8), 128)
        view[0, 0] = 2.5
        assert np.asarray(memory)[0, 0] == 2.5
        assert sys.version_info < (3, 12) or memoryview(memory).tobytes() == view.tobytes()
        memory.close()
        assert dnnl._owned.live_objects() == live  # the handle waits for the memoryview
        assert view[0, 0] == 2.5
        view.release()
        gc.collect()
        assert dnnl._owned.live_objects() == live - 1


# --- no stale data: every host read waits for the work that writes the memory ----------------

_N = 2048  # a reorder of 16 MiB: long enough to be in flight when the read comes


def _as_array(memory):
    return np.asarray(memory)


def _dunder_array(memory):
    return memory.__array__()


def _buffer(memory):
    # memoryview(memory) on Python 3.12 and later; the same method on every version.
    view = memoryview(memory) if sys.version_info >= (3, 12) else memory.__buffer__(0)
    return np.asarray(view)


def _mapped(memory):
    with memory.mapped() as array:
        return array.copy()


@pytest.mark.parametrize("read", [_as_array, _dunder_array, _buffer, _mapped],
                         ids=["numpy.asarray", "__array__", "buffer protocol", "mapped"])
def test_a_host_read_right_after_execute_sees_the_finished_result(engine, read):
    # The stream runs in order: a few reorders into a scratch memory go first, so
    # the one into dst is still queued or running when the read comes. A read
    # that did not wait would see dst's -1s, or a part of the result.
    src_array = np.arange(_N * _N, dtype=np.float32).reshape(_N, _N)
    with dnnl.MemoryDesc((_N, _N), "f32", "ab") as src_desc, dnnl.MemoryDesc((_N, _N), "f32", "ba") as dst_desc, \
            dnnl.Stream(engine) as stream, dnnl.Memory(src_desc, engine, src_array) as src, \
            dnnl.Memory(dst_desc, engine) as scratch, dnnl.reorder(src_desc, dst_desc, engine) as reorder:
        for _ in range(3):
            dst_array = np.full((_N, _N), -1, np.float32)
            with dnnl.Memory(dst_desc, engine, dst_array.T) as dst:  # "ba": the tensor is dst_array.T
                for _ in range(3):
                    reorder.execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: scratch})
                reorder.execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
                seen = np.array(read(dst))  # a copy, taken at once: no later write can fix it
                stale = int((seen != src_array).sum())
                assert stale == 0, f"{stale} of {_N * _N} elements read before the reorder wrote them"
                del seen
            stream.wait()


# --- an array is the tensor its descriptor describes, or raw storage --------------------------------


def test_an_array_of_another_shape_is_refused_even_of_the_same_size(engine):
    # Before: a (4, 3) array for a (3, 4) descriptor was taken, and read as another tensor.
    with dnnl.MemoryDesc((3, 4), "f32", "ab") as desc:
        with pytest.raises(ValueError, match=r"^buffer: an array of shape \(4, 3\) for a descriptor of shape \(3, 4\) "
                                             r"\(MemoryDesc\(\(3, 4\), f32, 'ab'\)\): oneDNN would read its elements "
                                             r"as another tensor's"):
            dnnl.Memory(desc, engine, np.zeros((4, 3), np.float32))


def test_a_row_major_array_for_a_ba_descriptor_is_refused_and_its_transpose_is_the_tensor(engine):
    # Before: "ba" over a row-major array of its shape was taken, and read transposed.
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    with dnnl.MemoryDesc((3, 4), "f32", "ba") as ba, dnnl.MemoryDesc((3, 4), "f32", "ab") as ab:
        with pytest.raises(ValueError, match=r"^buffer: the array's strides, \(16, 4\) bytes \(C-contiguous "
                                             r"\(row-major\)\), are not the descriptor's, \(4, 12\) bytes "
                                             r"\(MemoryDesc\(\(3, 4\), f32, 'ba'\)\): oneDNN would read its elements "
                                             r"in another order"):
            dnnl.Memory(ba, engine, np.zeros((3, 4), np.float32))
        out = np.zeros((4, 3), np.float32)  # row-major (4, 3): its transpose is the (3, 4) tensor in "ba"
        with dnnl.Memory(ab, engine, a) as src, dnnl.Memory(ba, engine, out.T) as dst:
            _reorder(engine, src, dst)
    np.testing.assert_array_equal(out.T, a)


def _conv_pd(engine, out_channels):
    return dnnl.ConvolutionForwardDesc(
        engine, dnnl.MemoryDesc((1, 3, 8, 8), "f32", "any"), dnnl.MemoryDesc((out_channels, 3, 3, 3), "f32", "any"),
        dnnl.MemoryDesc((1, out_channels, 6, 6), "f32", "any"), (1, 1), (0, 0), (0, 0),
    )


def test_the_plain_weights_array_for_the_blocked_weights_descriptor_is_refused_naming_reordered(engine):
    # Before: with 16 output channels the byte sizes match, the array was taken, and the
    # convolution read the plain weights as blocked ones: a silently wrong result.
    w = np.random.default_rng(0).random((16, 3, 3, 3), dtype=np.float32)
    with _conv_pd(engine, 16) as pd, pd.weights_desc() as chosen:
        if chosen.strides is not None:
            pytest.skip(f"oneDNN chose a plain layout here ({chosen!r})")
        assert chosen.size == w.nbytes  # the sizes match: only the layout differs
        with pytest.raises(ValueError) as caught:
            dnnl.Memory(chosen, engine, w)
        message = str(caught.value)
        assert message.startswith(f"buffer: the descriptor, {chosen!r}, is not a plain layout (blocked or padded)")
        assert "dnnl_interop.reordered(memory, desc, stream)" in message and repr(chosen.tag) in message


def test_a_convolution_over_weights_brought_to_the_chosen_layout_matches_numpy(engine):
    rng = np.random.default_rng(1)
    x, w = rng.random((1, 3, 8, 8), dtype=np.float32), rng.random((16, 3, 3, 3), dtype=np.float32)
    windows = np.lib.stride_tricks.sliding_window_view(x[0], (3, 3), axis=(1, 2))
    expected = np.einsum("chwij,ocij->ohw", windows, w)[None]
    with _conv_pd(engine, 16) as pd, dnnl.Stream(engine) as stream:
        src = dnnl.reordered(dnnl.Memory.from_array(x, engine), pd.src_desc(), stream)
        weights = dnnl.reordered(dnnl.Memory.from_array(w, engine), pd.weights_desc(), stream)
        dst = dnnl.Memory(pd.dst_desc(), engine)
        dnnl.Primitive(pd).execute(stream, {dnnl.ARG_SRC: src, dnnl.ARG_WEIGHTS: weights, dnnl.ARG_DST: dst})
        np.testing.assert_allclose(dnnl.to_array(dst, stream), expected, rtol=1e-5, atol=1e-5)
        # The raw storage of the chosen layout, flat, is taken as it lies: the same result.
        raw = np.empty(pd.weights_desc().size // 4, np.float32)
        with dnnl.Memory(pd.weights_desc(), engine, raw) as stored:
            dnnl.reorder(weights.desc, stored.desc, engine).execute(
                stream, {dnnl.ARG_FROM: weights, dnnl.ARG_TO: stored})
            dnnl.Primitive(pd).execute(stream, {dnnl.ARG_SRC: src, dnnl.ARG_WEIGHTS: stored, dnnl.ARG_DST: dst})
            np.testing.assert_allclose(dnnl.to_array(dst, stream), expected, rtol=1e-5, atol=1e-5)


def test_a_flat_buffer_is_the_raw_storage_of_the_descriptors_layout(engine):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    with dnnl.MemoryDesc((2, 3), "f32", "ba") as ba, dnnl.MemoryDesc((2, 3), "f32", "ab") as ab:
        flat = np.zeros(6, np.float32)
        with dnnl.Memory(ab, engine, a) as src, dnnl.Memory(ba, engine, flat) as dst:
            _reorder(engine, src, dst)
        np.testing.assert_array_equal(flat, a.T.reshape(-1))  # column-major, as "ba" lays it out
        with pytest.raises(ValueError, match=r"^buffer: 20 bytes, the descriptor needs 24"):
            dnnl.Memory(ba, engine, np.zeros(5, np.float32))
    with dnnl.MemoryDesc((2, 3), "u8", "ab") as bytes_desc, dnnl.Memory(bytes_desc, engine, bytearray(6)) as memory:
        assert memory.desc.size == 6


def test_set_data_handle_refuses_an_array_of_another_layout(engine):
    with dnnl.MemoryDesc((2, 3), "f32", "ab") as desc, dnnl.Memory(desc, engine) as memory:
        with pytest.raises(ValueError, match=r"^buffer: an array of shape \(3, 2\) for a descriptor of shape \(2, 3\)"):
            memory.set_data_handle(np.zeros((3, 2), np.float32))
        with pytest.raises(ValueError, match=r"^buffer: the array's strides, \(4, 8\) bytes \(Fortran-contiguous"):
            memory.set_data_handle(np.zeros((2, 3), np.float32, order="F"))
        given = np.zeros((2, 3), np.float32)
        memory.set_data_handle(given)
        assert memory.data_handle == given.ctypes.data


def test_the_stride_of_a_dimension_of_one_element_is_not_checked(engine):
    column = np.zeros((4, 2), np.float32)[:, :1]  # (4, 1), strides (8, 4) bytes
    with dnnl.MemoryDesc((4, 1), "f32", strides=(2, 7)) as desc, dnnl.Memory(desc, engine, column) as memory:
        assert memory.data_handle == column.ctypes.data


# --- one call each way: Memory.from_array and to_array -----------------------------------------------


def test_from_array_uses_the_array_in_place_as_it_lies(engine):
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    for array in (a, a.T, a[:, ::2]):
        with dnnl.Memory.from_array(array, engine) as memory:
            assert memory.desc == dnnl.MemoryDesc.from_array(array)
            assert memory.data_handle == array.__array_interface__["data"][0]
            np.testing.assert_array_equal(np.asarray(memory), array)


@pytest.mark.parametrize(
    ("make", "error", "message"),
    [
        (lambda: np.zeros(4, np.complex64), TypeError, "complex64"),
        (lambda: np.frombuffer(b"\0" * 16, np.float32), ValueError, "read-only"),
        (lambda: np.zeros((2, 3), ">f4" if np.little_endian else "<f4"), ValueError, "byte order"),
        (lambda: np.zeros((2, 3), np.float32)[::-1], ValueError, "negative"),
        (lambda: np.lib.stride_tricks.as_strided(np.zeros(3, np.float32), (4, 3), (0, 4)), ValueError,
         "broadcast"),
        (lambda: [1.0, 2.0], TypeError, r"expected a numpy array .* got a list"),
        (lambda: type("Producer", (), {"__dlpack__": lambda self: None})(), TypeError,
         r"is a DLPack producer, not a buffer: dnnl_interop.from_dlpack\(array, engine=engine\)"),
    ],
)
def test_from_array_refuses_what_it_cannot_use_in_place(engine, make, error, message):
    with pytest.raises(error, match=message):
        dnnl.Memory.from_array(make(), engine)


def test_to_array_brings_a_blocked_result_back_row_major_or_into_any_array(engine):
    rng = np.random.default_rng(2)
    x = rng.random((1, 16, 5, 5), dtype=np.float32)
    with dnnl.Stream(engine) as stream, dnnl.MemoryDesc(x.shape, "f32", "aBcd8b") as blocked_desc:
        blocked = dnnl.reordered(dnnl.Memory.from_array(x, engine), blocked_desc, stream)
        fresh = dnnl.to_array(blocked, stream)
        assert fresh.flags.c_contiguous and fresh.dtype == np.float32
        np.testing.assert_array_equal(fresh, x)
        out = np.zeros(x.shape, np.float32, order="F")
        assert dnnl.to_array(blocked, stream, out=out) is out
        np.testing.assert_array_equal(out, x)
        backwards = np.zeros(x.shape, np.float32)[..., ::-1]  # negative strides: through a row-major copy
        dnnl.to_array(blocked, stream, out=backwards)
        np.testing.assert_array_equal(backwards, x)


def test_to_array_of_the_arrays_own_memory_returns_it_once_the_work_is_done(engine):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = np.zeros((2, 3), np.float32)
    with dnnl.Stream(engine) as stream, dnnl.Memory.from_array(a, engine) as src, \
            dnnl.Memory.from_array(out, engine) as dst:
        dnnl.reorder(src.desc, dst.desc, engine).execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
        assert dnnl.to_array(dst, stream, out=out) is out
        np.testing.assert_array_equal(out, a)
    storage = np.zeros((3, 2), np.float32)
    with dnnl.Stream(engine) as stream, dnnl.MemoryDesc((2, 3), "f32", "ba") as ba, \
            dnnl.Memory(ba, engine, storage.T) as column_major:
        with pytest.raises(ValueError, match=r"^out: shares the memory's buffer in another layout"):
            dnnl.to_array(column_major, stream, out=storage.reshape(2, 3))  # the same bytes, row-major


@pytest.mark.parametrize(
    ("out", "error", "message"),
    [
        (np.zeros((3, 2), np.float32), ValueError, r"^out: shape \(3, 2\), the memory's is \(2, 3\)"),
        (np.zeros((2, 3), np.float64), ValueError, r"^out: dtype float64, the memory holds float32"),
        (np.frombuffer(b"\0" * 24, np.float32).reshape(2, 3), ValueError, r"^out: the array is read-only"),
        ([[0.0] * 3] * 2, TypeError, r"^out: expected a numpy array or None, got list"),
    ],
)
def test_to_array_checks_out(engine, out, error, message):
    with dnnl.Stream(engine) as stream, dnnl.MemoryDesc((2, 3), "f32", "ab") as desc, \
            dnnl.Memory(desc, engine) as memory:
        with pytest.raises(error, match=message):
            dnnl.to_array(memory, stream, out=out)


def test_to_array_refuses_a_type_numpy_cannot_hold(engine):
    with dnnl.Stream(engine) as stream, dnnl.MemoryDesc((2, 3), "bf16", "ab") as desc, \
            dnnl.Memory(desc, engine) as memory:
        with pytest.raises(TypeError, match=r"^memory: numpy has no type for bf16"):
            dnnl.to_array(memory, stream)
