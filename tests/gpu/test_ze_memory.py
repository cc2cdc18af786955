"""Level Zero memory on real oneDNN, emulated GPU: over the caller's USM, and oneDNN's own.

oneDNN checks a user pointer's kind with zeMemGetAllocProperties, does not
own it, and allocates device USM for ``MEMORY_ALLOCATE``. Data is checked by
running a reorder through the memory and comparing with numpy.
"""

from __future__ import annotations

import cffi
import numpy as np
import pytest

import dnnl_interop as dnnl
from dnnl_interop import ze
from dnnl_interop.testing import emulated_level_zero as emulated

# At collection, before any test of the session can start SYCL.
emulated.enable()

SHAPE = (12, 20)
SRC = dnnl.MemoryDesc(SHAPE, "float32", "ab")
DST = dnnl.MemoryDesc(SHAPE, "float32", "ba")


RUNTIME = "ze"  # the engine and stream fixtures (conftest.py) are Level Zero ones


@pytest.fixture(scope="module")
def transpose(engine):
    return dnnl.reorder(SRC, DST, engine)


def _data() -> np.ndarray:
    return np.arange(np.prod(SHAPE), dtype=np.float32).reshape(SHAPE) / 7


def _run(transpose, stream, src: dnnl.Memory, dst: dnnl.Memory) -> None:
    ze.execute(transpose, stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
    stream.wait()


def test_memory_over_shared_usm_uses_that_allocation_and_sees_host_writes(lz, engine, stream, transpose):
    src, dst = lz.shared(SHAPE, "float32"), lz.shared(SHAPE[::-1], "float32")
    src_memory = ze.make_memory(SRC, engine, src.array)
    dst_memory = ze.make_memory(DST, engine, dst.array.T)
    assert src_memory.data_handle == src.address and dst_memory.data_handle == dst.address
    src.array[:] = _data()  # written after the memory was made
    _run(transpose, stream, src_memory, dst_memory)
    np.testing.assert_array_equal(dst.array, _data().T)


def test_memory_over_an_owning_usm_pointer_keeps_the_allocation_alive(lz, engine, stream, transpose):
    src, dst = lz.shared(SHAPE, "float32"), lz.shared(SHAPE[::-1], "float32")
    src.array[:] = _data()
    src_memory = ze.make_memory(SRC, engine, src.ptr)
    dst_memory = ze.make_memory(DST, engine, dst.ptr)
    with pytest.raises(BufferError):
        src.close()  # the memory holds the pointer
    _run(transpose, stream, src_memory, dst_memory)
    np.testing.assert_array_equal(dst.array, _data().T)
    src_memory.close()
    del src_memory
    src.close()
    assert src.closed


def test_memory_over_device_usm_is_reached_through_copies(lz, engine, stream, transpose):
    src_device, dst_device = lz.device_memory(SRC.size), lz.device_memory(DST.size)
    staging, result = lz.shared(SHAPE, "float32"), lz.shared(SHAPE[::-1], "float32")
    staging.array[:] = _data()
    lz.copy(src_device, staging)
    assert lz.synchronize()
    src_memory = ze.make_memory(SRC, engine, src_device.ptr)
    dst_memory = ze.make_memory(DST, engine, dst_device.ptr)
    assert src_memory.data_handle == src_device.address
    _run(transpose, stream, src_memory, dst_memory)
    lz.copy(result, dst_device)
    assert lz.synchronize()
    np.testing.assert_array_equal(result.array, _data().T)


def test_memory_over_host_usm_works_like_shared(lz, engine, stream, transpose):
    src, dst = lz.host(SHAPE, "float32"), lz.host(SHAPE[::-1], "float32")
    src.array[:] = _data()
    _run(transpose, stream, ze.make_memory(SRC, engine, src.array), ze.make_memory(DST, engine, dst.array.T))
    np.testing.assert_array_equal(dst.array, _data().T)


@pytest.mark.parametrize("handles", [dnnl.MEMORY_ALLOCATE, [], "default"])
def test_memory_allocate_gives_device_usm_of_the_engine_context(lz, engine, stream, transpose, handles):
    made = ze.make_memory(SRC, engine) if handles == "default" else ze.make_memory(SRC, engine, handles)
    assert made.data_handle != 0
    assert lz.memory_type(made.data_handle) == "device"
    # Through it and back: shared -> allocated (transposed) -> shared (transposed back).
    src, back = lz.shared(SHAPE, "float32"), lz.shared(SHAPE, "float32")
    src.array[:] = _data()
    middle = ze.make_memory(DST, engine, dnnl.MEMORY_ALLOCATE)
    _run(transpose, stream, ze.make_memory(SRC, engine, src.array), middle)
    _run(dnnl.reorder(DST, SRC, engine), stream, middle, ze.make_memory(SRC, engine, back.array))
    np.testing.assert_array_equal(back.array, _data())


def test_memory_none_has_no_buffer(engine):
    assert ze.make_memory(SRC, engine, dnnl.MEMORY_NONE).data_handle == 0


def test_memory_over_host_memory_that_is_not_usm_is_refused_by_onednn(engine):
    plain = np.zeros(SHAPE, np.float32)  # malloc'd by numpy: zeMemGetAllocProperties says unknown
    with pytest.raises(dnnl.InvalidArgumentsError):
        ze.make_memory(SRC, engine, plain)


def test_set_data_handle_moves_a_memory_to_another_usm_allocation(lz, engine, stream, transpose):
    first, second = lz.shared(SHAPE, "float32"), lz.shared(SHAPE, "float32")
    first.array[:] = 0
    second.array[:] = _data()
    src_memory = ze.make_memory(SRC, engine, first.array)
    src_memory.set_data_handle(second.array)
    assert src_memory.data_handle == second.address
    dst = lz.shared(SHAPE[::-1], "float32")
    _run(transpose, stream, src_memory, ze.make_memory(DST, engine, dst.array.T))
    np.testing.assert_array_equal(dst.array, _data().T)


def test_a_usm_array_refuses_to_close_while_a_memory_uses_it(lz, engine):
    usm = lz.shared(SHAPE, "float32")
    memory = ze.make_memory(SRC, engine, usm.array)
    with pytest.raises(BufferError):
        usm.close()
    memory.close()
    del memory
    usm.close()
    assert usm.closed
    with pytest.raises(ValueError):
        _ = usm.array


def test_map_data_of_device_memory_shows_its_data_and_unmap_writes_it_back(lz, engine, stream, transpose):
    src = lz.shared(SHAPE, "float32")
    src.array[:] = _data()
    device = ze.make_memory(DST, engine, dnnl.MEMORY_ALLOCATE)
    _run(transpose, stream, ze.make_memory(SRC, engine, src.array), device)
    mapped = device.map_data()  # device USM: oneDNN copies it to host USM
    view = np.frombuffer(cffi.FFI().buffer(mapped, DST.size), np.float32).reshape(SHAPE[::-1])
    np.testing.assert_array_equal(view, _data().T)
    view *= 2
    del view
    device.unmap_data(mapped)  # and copies it back
    back = lz.shared(SHAPE, "float32")
    _run(dnnl.reorder(DST, SRC, engine), stream, device, ze.make_memory(SRC, engine, back.array))
    np.testing.assert_array_equal(back.array, _data() * 2)


def test_memory_for_a_format_any_descriptor_is_refused(engine):
    with pytest.raises(dnnl.InvalidArgumentsError):
        ze.make_memory(dnnl.MemoryDesc(SHAPE, "float32", "any"), engine)


def test_a_shared_usm_view_of_another_layout_is_refused_as_a_host_array_would_be(lz, engine):
    # Before: a row-major view for the "ba" descriptor was taken, and read transposed.
    usm = lz.shared(SHAPE, "float32")
    with pytest.raises(ValueError, match=r"^handles: the array's strides, \(80, 4\) bytes \(C-contiguous "
                                         r"\(row-major\)\), are not the descriptor's"):
        ze.make_memory(DST, engine, usm.array)
    with pytest.raises(ValueError, match=r"^handles: an array of shape \(20, 12\) for a descriptor of shape "
                                         r"\(12, 20\)"):
        ze.make_memory(SRC, engine, lz.shared(SHAPE[::-1], "float32").array)
    memory = ze.make_memory(SRC, engine, usm.array)
    with pytest.raises(ValueError, match=r"^buffer: an array of shape \(20, 12\) for a descriptor of shape \(12, 20\)"):
        memory.set_data_handle(lz.shared(SHAPE[::-1], "float32").array)
    assert ze.make_memory(SRC, engine, usm.array.reshape(-1)).data_handle == usm.address  # flat: raw storage
