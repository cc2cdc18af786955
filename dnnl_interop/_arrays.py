"""A memory's data back into an array in one call: :func:`to_array`.

The way in is ``Memory.from_array``; the way out runs a reorder from the
memory's layout (blocked, padded, strided) to the array's, straight into
the array: a numpy array on the CPU engine, a ``pyopencl.array.Array`` on
an OpenCL engine, a numpy array read through a mapping elsewhere.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from ._engine import Engine, runtime_of
from ._ffi import lib
from ._interop import get_address, get_handle
from ._memory import OCL_BUFFER, Memory, make_ocl_memory
from ._memory_desc import MemoryDesc
from ._owned import finish_work, using
from ._primitive import reorder, reordered
from ._stream import Stream
from ._validate import row_major_strides

if TYPE_CHECKING:
    import numpy

__all__ = ["to_array"]


def to_array(memory: Memory, stream: Stream, out: Any = None) -> Any:
    """The data of ``memory`` as an array of its logical shape, in any layout it has.

    A reorder on ``stream`` writes the data, whatever the memory's layout
    (a blocked one a primitive chose included), into ``out`` in ``out``'s own
    layout, and the stream is waited for: the array is ready when this returns.

    * CPU engine: ``out`` is a writable numpy array of the memory's shape and
      dtype (any strides, ``out.T`` included), or None for a new row-major one.
    * OpenCL engine, buffer memory: ``out`` is a ``pyopencl.array.Array`` of the
      memory's shape and dtype (offset 0), or None for a new one on the
      stream's queue; or a numpy array, written through a mapping.
    * Other device memory (USM, Level Zero): a numpy array, new or ``out``,
      written through a mapping of a row-major copy on the device.

    ``out`` that is the memory's own buffer in the memory's own layout (the
    array a memory was made over) is returned as it is, once the stream is
    waited for.

    Returns:
        ``out``, or the new array.

    Raises:
        TypeError: ``memory`` is not a Memory, ``stream`` not a Stream, numpy has no type for
            the data type (bf16, ...: reorder to f32 first), or ``out`` is not an array this
            engine can write.
        ValueError: ``out`` has another shape or dtype, is read-only, or shares the memory's
            buffer in another layout; the memory has no buffer.
        ClosedObjectError: ``memory`` or ``stream`` is closed.
        DnnlError: oneDNN has no reorder between the layouts, or the work fails.
    """
    if not isinstance(memory, Memory):
        raise TypeError(f"memory: expected a dnnl_interop.Memory, got {type(memory).__name__}")
    if not isinstance(stream, Stream):
        raise TypeError(f"stream: expected a dnnl_interop.Stream, got {type(stream).__name__}")
    with using((memory, Memory, "memory"), (stream, Stream, "stream")):
        desc, engine = memory.desc, memory.engine
    dtype = desc.dtype
    if dtype is None:
        raise TypeError(
            f"memory: numpy has no type for {desc.data_type.name.lower()}; reorder it to a type numpy "
            "holds first (dnnl_interop.reordered(memory, MemoryDesc(shape, 'f32', tag), stream))"
        )
    arrays = sys.modules.get("pyopencl.array")
    device_out = arrays is not None and isinstance(out, arrays.Array)
    runtime = runtime_of(engine)
    if runtime == "native":
        if device_out:
            raise TypeError("out: a pyopencl.array.Array is OpenCL memory; the memory is on a CPU engine")
        host = _host_out(out, desc, dtype)
        _reorder_into_host(memory, desc, engine, stream, host)
        return host
    if runtime == "ocl" and (out is None or device_out) and _is_buffer_memory(memory):
        return _to_pyopencl(memory, desc, dtype, engine, stream, out)
    if device_out:
        raise TypeError("out: a pyopencl.array.Array takes OpenCL buffer memory; read this memory into a numpy array")
    host = _host_out(out, desc, dtype)
    _read_mapped(memory, desc, stream, host)
    return host


def _host_out(out: Any, desc: MemoryDesc, dtype: numpy.dtype[Any]) -> numpy.ndarray[Any, Any]:
    """``out`` checked against the memory's shape and dtype, or a new row-major array."""
    import numpy

    if out is None:
        return numpy.empty(desc.shape, dtype)
    if not isinstance(out, numpy.ndarray):
        raise TypeError(f"out: expected a numpy array or None, got {type(out).__name__}")
    if out.shape != desc.shape:
        raise ValueError(f"out: shape {out.shape}, the memory's is {desc.shape}")
    if out.dtype != dtype:
        raise ValueError(f"out: dtype {out.dtype}, the memory holds {dtype}")
    if not out.flags.writeable:
        raise ValueError("out: the array is read-only")
    return out


def _plain(desc: MemoryDesc) -> MemoryDesc:
    """The row-major descriptor of ``desc``'s shape and data type."""
    return MemoryDesc(desc.shape, desc.data_type, strides=row_major_strides(desc.shape))


def _reorder_into_host(
    memory: Memory, desc: MemoryDesc, engine: Engine, stream: Stream, host: numpy.ndarray[Any, Any]
) -> None:
    """A reorder from ``memory`` straight into ``host`` (or through a row-major copy
    where no descriptor has ``host``'s strides: negative ones)."""
    import numpy

    try:
        target_desc = MemoryDesc.from_array(host)
    except ValueError:  # strides oneDNN has no layout for: reorder row-major, numpy copies on
        staged = numpy.empty(desc.shape, host.dtype)
        _reorder_into_host(memory, desc, engine, stream, staged)
        host[...] = staged
        return
    if _shares_buffer(memory, host):
        if target_desc == desc:  # the memory's own buffer, as it lies: the data is there
            stream.wait()
            finish_work(memory)
            return
        raise ValueError(
            "out: shares the memory's buffer in another layout; a reorder cannot write over its own input"
        )
    if host.size:
        target = Memory(target_desc, engine, host)
        reorder(desc, target_desc, engine).execute(stream, {lib.DNNL_ARG_FROM: memory, lib.DNNL_ARG_TO: target})
    stream.wait()


def _shares_buffer(memory: Memory, host: numpy.ndarray[Any, Any]) -> bool:
    """Whether the bytes of ``host`` and of the memory's buffer overlap."""
    import numpy

    start = memory.data_handle
    if not start or not host.size:
        return False
    if hasattr(numpy, "lib") and hasattr(numpy.lib, "array_utils"):
        low, high = numpy.lib.array_utils.byte_bounds(host)
    else:  # numpy 1
        low, high = numpy.byte_bounds(host)  # type: ignore[attr-defined,unused-ignore]
    size = memory._size  # noqa: SLF001 - read only: kept past the desc's close
    return bool(low < start + size and start < high)


def _is_buffer_memory(memory: Memory) -> bool:
    kind = get_handle(
        lib.dnnl_ocl_interop_memory_get_memory_kind, "dnnl_ocl_interop_memory_get_memory_kind",
        memory, Memory, "memory", "dnnl_ocl_interop_memory_kind_t", "ocl",
    )
    return int(kind) == OCL_BUFFER


def _to_pyopencl(
    memory: Memory, desc: MemoryDesc, dtype: numpy.dtype[Any], engine: Engine, stream: Stream, out: Any
) -> Any:
    """OpenCL buffer memory into a pyopencl Array (new on the stream's queue, or ``out``)."""
    import pyopencl
    import pyopencl.array

    address = get_address(
        lib.dnnl_ocl_interop_stream_get_command_queue, "dnnl_ocl_interop_stream_get_command_queue",
        stream, Stream, "stream", "cl_command_queue", "ocl",
    )
    if out is None:
        queue = pyopencl.CommandQueue.from_int_ptr(address, retain=True)
        out = pyopencl.array.empty(queue, desc.shape, dtype)
    elif out.shape != desc.shape:
        raise ValueError(f"out: shape {out.shape}, the memory's is {desc.shape}")
    elif out.dtype != dtype:
        raise ValueError(f"out: dtype {out.dtype}, the memory holds {dtype}")
    if out.size:
        target_desc = MemoryDesc.from_array(out)
        target = make_ocl_memory(target_desc, engine, OCL_BUFFER, out)
        if target.data_handle == memory.data_handle:
            if target_desc != desc:
                raise ValueError(
                    "out: shares the memory's buffer in another layout; a reorder cannot write over its own input"
                )
        else:
            reorder(desc, target_desc, engine).execute(
                stream, {lib.DNNL_ARG_FROM: memory, lib.DNNL_ARG_TO: target}
            )
    stream.wait()
    return out


def _read_mapped(memory: Memory, desc: MemoryDesc, stream: Stream, host: numpy.ndarray[Any, Any]) -> None:
    """Device memory into ``host``: a row-major copy on the device (the memory itself if it
    is row-major), mapped and copied."""
    plain = _plain(desc)
    staged = reordered(memory, plain, stream)
    stream.wait()
    with staged.mapped() as view:
        host[...] = view
    if staged is not memory:
        staged.close()
