"""Memory objects (``dnnl_memory_t``) on every engine: a descriptor, an
engine and the buffer oneDNN reads and writes.

One constructor serves the three runtimes: host buffers on the CPU engine
(``_buffers.host_buffer``), OpenCL buffers or USM on an OpenCL engine and
USM on a Level Zero engine (``_buffers.device_handle``). ``ocl.make_memory``
and ``ze.make_memory`` are the same constructor with the runtime's options.
Host views (``numpy.asarray(memory)``, ``memoryview(memory)``,
``memory.mapped()``) wait for the work in flight that uses the memory, and
keep the buffer valid while they live.

The usual memory over an array, a CPU engine's over a writable host DLPack
tensor of a layout made before (``from_dlpack``, ``Memory.from_array`` of a
numpy array), is made in one C call (``over_capsule``, ``csrc/host_memory.c``),
which sets what ``make_memory_object`` sets; the memory's finalizer is C too,
and closes a memory nothing else uses as ``Owned``'s would (any other memory
it hands to ``Owned.__del__``).

The module's functions set up the Memory objects they make (*creation*: a
memory's execute records, read by ``_execution`` and ``csrc/fastpath.c``), and
the host views and mappings register as *users* (``_owned``); each such reach
into an object from outside its class is marked ``# noqa: SLF001`` with its kind.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from . import _dlpack
from . import _library as _library_module
from ._buffers import (
    MEMORY_ALLOCATE,
    Layout,
    UncheckedPointer,
    device_array,
    device_handle,
    has_buffer,
    host_buffer,
    refuse_allocate,
)
from ._engine import Engine, engine_of, explain_runtime, optional_engine, runtime_of
from ._enums import DataType, FormatKind
from ._ffi import ffi, lib
from ._inflight import lock_every_stream
from ._library import check, checked, status_error
from ._memory_desc import (
    RUNTIME_DIM,
    MemoryDesc,
    RefusedLayout,
    desc_of,
    layout_desc,
    layout_key,
    plain_cache,
    plain_layout,
    shared_desc,
)
from ._owned import Adoption, Owned, close_finalized, closed_error, finish_work, foreign_pointer, shared, using
from ._runtime import ENGINE_NAMES, check_ocl_context, ocl_context
from ._stream import Stream
from ._validate import bool_argument, data_type
from .errors import Status, make_error

if TYPE_CHECKING:
    import numpy

    from ._ffi import CData

__all__ = ["MEMORY_ALLOCATE", "MEMORY_NONE", "Memory"]

_VOID_POINTER = ffi.typeof("void *")
_export_host = _dlpack.export_host
_MEMORY_TYPE = ffi.typeof("dnnl_memory_t")
_MEMORY_OUT = ffi.typeof("dnnl_memory_t *")  # what a C creator writes the new handle into
MEMORY_NONE = lib.DNNL_MEMORY_NONE  # no buffer at all
# dnnl_ocl_interop_memory_kind_t: ocl.MemoryKind
OCL_USM, OCL_BUFFER = lib.dnnl_ocl_interop_usm, lib.dnnl_ocl_interop_buffer
# The C function that makes memory on an engine of each runtime.
_CREATE_NAMES = {
    "native": "dnnl_memory_create", "ocl": "dnnl_ocl_interop_memory_create", "ze": "dnnl_ze_interop_memory_create",
    "sycl": "dnnl_sycl_interop_memory_create",
}
# creator(memory, desc, engine, buffer, what) of memory on an engine of a runtime whose module
# registers it when imported (SYCL: _sycl_memory, imported by dnnl_interop.sycl).
DEVICE_CREATORS: dict[str, Callable[[Memory, MemoryDesc, Engine, object, str], None]] = {}
# creator((shape, data type, strides), engine, address, kept, what) of memory over a tensor's
# data on an engine of such a runtime (see memory_over), registered the same way.
PLAIN_CREATORS: dict[str, Callable[[tuple[tuple[int, ...], DataType, tuple[int, ...]], Engine, int, object, str],
                                   Memory]] = {}
# The C functions of csrc/host_memory.c: over_capsule(capsule, engine), a Memory of the CPU engine
# over a host DLPack tensor in one call (or None: the Python path), and drop(memory), the
# finalizer of a memory nothing else uses (or False: Owned's finalizer). configured below.
_host: dict[str, Any] = {}
if lib.dnnl_interop_host_memory_install(id(_host)):
    raise ImportError("dnnl_interop._ffi: the host memory functions could not be installed")
over_capsule: Callable[[object, object], Memory | None] = _host["over_capsule"]


class Memory(Owned):
    """A memory object: a descriptor, an engine and a buffer.

    On a host engine (the CPU engine) ``buffer`` is :data:`MEMORY_ALLOCATE`
    (the library allocates), :data:`MEMORY_NONE`, or a writable buffer such
    as a numpy array whose item type matches the descriptor (used in place,
    without a copy, and kept alive): an array with the descriptor's shape
    and strides (the tensor it describes: ``out.T`` for a ``"ba"``
    descriptor over a row-major ``out``), or a flat (1-D) buffer taken as the
    raw storage of the descriptor's layout, blocked ones included. A bare
    address only as :class:`UncheckedPointer`. :meth:`from_array` makes the
    descriptor from the array. On an OpenCL engine ``buffer`` is
    :data:`MEMORY_ALLOCATE`, :data:`MEMORY_NONE` or a ``cl_mem`` (see
    ``ocl.make_memory``); on a Level Zero engine a USM pointer (see
    ``ze.make_memory``).

    Raises:
        TypeError: ``desc`` or ``engine`` is of another type, or ``buffer`` is no buffer this
            engine can use (a bare int address, a device handle on a host engine, a host array
            on a device engine).
        ValueError: ``buffer`` is too small, of another item type than the descriptor's data
            type, of another shape or strides than the descriptor's (or of two or more
            dimensions for a blocked descriptor), read-only, or in the other byte order.
        ClosedObjectError: ``desc`` or ``engine`` is closed.
        DnnlError: oneDNN refuses to make the memory.
        LibraryNotFoundError: no oneDNN library can be loaded (at the first call into oneDNN).
    """

    # The handle to execute with: None while closed or without a buffer, on
    # which oneDNN would crash. Kept apart so execute checks it for free.
    # _size is the bytes its buffer holds (the descriptor's size).
    # _repointing: set while another buffer is being switched in (_repoint).
    # _layout: the descriptor's layout key (see MemoryDesc), read once, for execute.
    # _read_only: over a read-only tensor (from_dlpack); see _mark_read_only.
    # _plain: the (shape, data type, strides) of a memory made over a tensor without a
    # MemoryDesc (make_memory_object), from which desc makes one when first asked; else None.
    __slots__ = ("_executable", "_size", "_repointing", "_layout", "_read_only", "_plain")
    _executable: CData | None
    _size: int
    _repointing: bool
    _layout: tuple[object, ...]
    _read_only: bool
    _plain: tuple[tuple[int, ...], DataType, tuple[int, ...]] | None
    _ctype = "dnnl_memory_t"
    _destroy = lib.dnnl_memory_destroy
    _destroy_name = "dnnl_memory_destroy"

    def __init__(self, desc: MemoryDesc, engine: Engine, buffer: object = MEMORY_ALLOCATE) -> None:
        self._refuse_reinit()
        runtime = runtime_of(engine) if isinstance(engine, Engine) else "native"
        _refuse_any(desc, _CREATE_NAMES[runtime])
        if runtime == "ocl":  # this SYCL build's dnnl_memory_create refuses OpenCL engines
            _create_ocl(self, desc, engine, OCL_BUFFER, buffer)
        elif runtime == "ze":  # ... and Level Zero engines
            _create_ze(self, desc, engine, buffer)
        elif runtime in DEVICE_CREATORS:  # ... and SYCL engines
            DEVICE_CREATORS[runtime](self, desc, engine, buffer, "buffer")
        else:
            _create_host(self, desc, engine, buffer)

    @classmethod
    def from_array(cls, array: object, engine: Engine) -> Memory:
        """A Memory over ``array``'s own data, without a copy, described as it lies.

        ``Memory(MemoryDesc.from_array(array), engine, array)`` in one call:

        * on a host engine (the CPU engine), a numpy array or another writable
          buffer (a strided view such as ``a.T`` included), used in place;
        * on an OpenCL engine, a ``pyopencl.array.Array`` starting at the
          beginning of its buffer: ``BUFFER`` memory over that buffer;
        * on an OpenCL or Level Zero engine, an object with dpctl's
          ``__sycl_usm_array_interface__`` (version 1, such as a dpnp array or a
          USM :class:`Memory`): USM memory over its pointer, read-only where the
          interface says so (execute then refuses it as an output). The
          interface says nothing of work in flight: the producer's must be finished.

        The memory keeps ``array`` alive. Its layout is the array's, which a
        primitive may not take: ``reordered(memory, pd.src_desc(), stream)``
        brings it to the one a primitive chose, and :func:`to_array` brings a
        result back into an array.

        Raises:
            TypeError: ``array`` is none of these for ``engine``'s runtime (a DLPack producer
                such as a torch tensor: ``dnnl_interop.from_dlpack``), its dtype has no oneDNN
                data type, or ``engine`` is not an Engine.
            ValueError: ``array`` is read-only, not in the machine's byte order, has negative
                strides, or (a pyopencl Array) starts inside its buffer.
            ClosedObjectError: ``engine`` is closed.
            DnnlError: oneDNN refuses the descriptor or the memory.
        """
        if not isinstance(engine, Engine):
            raise TypeError(f"engine: expected a dnnl_interop.Engine, got {type(engine).__name__}")
        numpy = sys.modules.get("numpy")
        capsule = None  # a numpy array's DLPack tensor, made once for both paths below
        if numpy is not None and type(array) is numpy.ndarray:
            try:
                capsule = array.__dlpack__(max_version=(1, 1))  # type: ignore[attr-defined]
            except (TypeError, BufferError):  # an older numpy, a read-only array: the checked path
                pass
            else:  # the usual call: one C call, or None (the capsule untaken)
                memory = over_capsule(capsule, engine)
                if memory is not None:
                    return memory
        runtime = runtime_of(engine)
        pyopencl_arrays = sys.modules.get("pyopencl.array")
        if pyopencl_arrays is not None and isinstance(array, pyopencl_arrays.Array):
            if runtime != "ocl":
                raise TypeError(
                    f"array: a pyopencl.array.Array is OpenCL memory; {ENGINE_NAMES[runtime]} cannot use it "
                    "(make the memory on an OpenCL engine, ocl.make_engine)"
                )
            desc = MemoryDesc.from_array(array)
            return make_ocl_memory(desc, engine, OCL_BUFFER, array)
        interface = getattr(array, "__sycl_usm_array_interface__", None)  # read once: dpnp waits for its queue
        if interface is not None:
            return memory_from_usm_interface(array, engine, "array", interface)
        if not has_buffer(array) or isinstance(array, Owned):
            if hasattr(array, "__dlpack__"):
                raise TypeError(
                    f"array: a {type(array).__module__}.{type(array).__qualname__} is a DLPack producer, "
                    "not a buffer: dnnl_interop.from_dlpack(array, engine=engine) takes it"
                )
            raise TypeError(
                "array: expected a numpy array (or another buffer) for a CPU engine, or a "
                f"pyopencl.array.Array for an OpenCL engine; got a {type(array).__name__}"
            )
        if runtime != "native":
            raise TypeError(
                f"array: host memory (a {type(array).__name__}) for {ENGINE_NAMES[runtime]}: give a "
                "pyopencl.array.Array on an OpenCL engine, or a host view of shared USM to "
                "ocl.make_memory / ze.make_memory with MemoryDesc.from_array(view)"
            )
        if capsule is not None:
            memory = host_array_memory(capsule, engine)
            if memory is not None:
                return memory
        return cls(MemoryDesc.from_array(array), engine, array)

    @classmethod
    def from_handle(
        cls, handle: object, *, owned: bool, desc: MemoryDesc | None = None, engine: Engine | None = None
    ) -> Memory:
        """A Memory over a ``dnnl_memory_t`` made elsewhere.

        ``handle`` and ``owned`` as in :meth:`Engine.from_handle`: ``owned=True``
        destroys it exactly once, ``owned=False`` borrows it (never destroyed
        here; **the caller keeps it alive** while the Memory is in use). Its
        buffer stays the caller's to keep alive too, unless oneDNN allocated it.

        ``desc``: the memory's :class:`MemoryDesc`, read from oneDNN
        (``dnnl_memory_get_memory_desc``) if None; one given is checked to be
        the memory's own (``ValueError`` otherwise) and is what :attr:`desc`
        returns. ``engine``: as in :meth:`Stream.from_handle` (the memory's
        engine, ``dnnl_memory_get_engine``).

        Raises:
            TypeError: ``handle`` is not a pointer of this handle type (or an int), or ``owned``
                is not a bool.
            ValueError: ``handle`` is NULL, or an object of this binding already owns it and
                ``owned=True`` asks to take it over.
            ClosedObjectError: the object of this binding that owns the handle is closed.
            TypeError: ``desc`` is neither a :class:`MemoryDesc` nor None.
            ValueError: ``desc`` is not the memory's own descriptor (another size, shape or layout).
            DnnlError: oneDNN cannot give the memory's descriptor or engine.
        """
        owned = bool_argument(owned, "owned")
        if desc is not None and not isinstance(desc, MemoryDesc):
            raise TypeError(f"desc: expected a dnnl_interop.MemoryDesc or None, got {type(desc).__name__}")
        engine = optional_engine(engine)
        pointer = foreign_pointer(handle, _MEMORY_TYPE, "handle")
        adoption = Adoption(cls, pointer, owned, "handle")
        try:
            c_engine = ffi.new("dnnl_engine_t *")
            check(lib.dnnl_memory_get_engine(pointer, c_engine), "dnnl_memory_get_engine")
            its_engine = engine_of(c_engine[0], engine, "the memory")
            md = ffi.new("const_dnnl_memory_desc_t *")
            check(lib.dnnl_memory_get_memory_desc(pointer, md), "dnnl_memory_get_memory_desc")
            own = desc_of(md[0])
            if desc is None:
                desc = own
            elif desc.size != own.size:
                raise ValueError(f"desc: describes {desc.size} bytes, the memory's own descriptor {own.size}")
            elif desc != own:
                raise ValueError(f"desc: {desc!r} is not the memory's own descriptor, {own!r}")
            data = ffi.new("void **")
            check(lib.dnnl_memory_get_data_handle(pointer, data), "dnnl_memory_get_data_handle")
        except BaseException:
            adoption.cancel()
            raise

        kept_desc: MemoryDesc = desc

        def adopt(memory: Memory) -> None:
            memory._adopt(pointer, keep=(kept_desc, its_engine, None))
            memory._read_only = False
            memory._use_data((data[0],), None)

        return adoption.finish(cls, adopt)

    def _on_close(self) -> None:
        self._executable = None  # execute reads it: closed memory never reaches C

    @property
    def desc(self) -> MemoryDesc:
        """The memory's :class:`MemoryDesc`.

        Raises:
            ClosedObjectError: ``memory`` is closed.
        """
        desc: MemoryDesc | None = self._kept(0)
        if desc is None:
            desc = self._own_desc()
        return desc

    def _own_desc(self) -> MemoryDesc:
        """The descriptor of a memory made without one (``_plain``), made now and kept while
        the memory keeps what its handle needs (until the handle is destroyed)."""
        plain = self._plain
        assert plain is not None  # only such memories keep no descriptor
        with shared.lock:  # one descriptor, whichever thread asks first
            keep = self._keep
            if not keep:
                raise self._closed_error()
            desc: MemoryDesc | None = keep[0]
            if desc is None:
                desc = layout_desc(*plain)
                self._keep = (desc, *keep[1:])
        return desc

    @property
    def engine(self) -> Engine:
        """The :class:`Engine` of the memory.

        Raises:
            ClosedObjectError: ``memory`` is closed.
        """
        engine: Engine = self._kept(1)
        return engine

    @property
    def data_handle(self) -> int:
        """The address (or OpenCL buffer handle) the memory uses; 0 for none.

        Raises:
            ClosedObjectError: ``memory`` is closed.
            DnnlError: oneDNN cannot answer.
        """
        out = ffi.new("void **")
        with using((self, Memory, "memory")) as memory:
            check(lib.dnnl_memory_get_data_handle(memory, out), "dnnl_memory_get_data_handle")
        return int(ffi.cast("uintptr_t", out[0]))

    def set_data_handle(self, buffer: object) -> None:
        """Point the memory at another buffer (kept alive like the first), checked
        against the descriptor as the constructor checks its buffer.

        Waits first for submitted work that uses this memory: it must not
        be redirected to the new buffer.

        Raises:
            TypeError: ``buffer`` is no buffer this memory's engine can use.
            ValueError: ``buffer`` is ``MEMORY_ALLOCATE``, too small, of another item type, of
                another shape or strides than the descriptor's, or read-only; or numpy views of
                the current buffer exist.
            ClosedObjectError: ``memory`` is closed.
            DnnlError: oneDNN refuses the new handle.
        """
        refuse_allocate(buffer, "buffer")
        self._refuse_while_viewed()
        desc = self.desc
        size, data_type, layout = self._size, desc.data_type, layout_of(desc)
        runtime = runtime_of(self.engine)
        if runtime == "native":
            pointer, kept = host_buffer(buffer, size, data_type, "buffer", layout)
        else:  # a USM pointer (Level Zero, OpenCL USM, SYCL USM) or a cl_mem (OpenCL buffer memory)
            if runtime == "sycl" and self._sycl_kind() != lib.dnnl_sycl_interop_usm:
                raise ValueError("buffer: SYCL buffer memory takes another buffer with sycl.set_buffer")
            kind = "ze_usm" if runtime in ("ze", "sycl") else "ocl_usm" if self._ocl_kind() == OCL_USM else "cl_mem"
            pointer, kept = device_handle(buffer, size, data_type, "buffer", kind, layout)
        self._repoint(
            lambda memory: lib.dnnl_memory_set_data_handle(memory, pointer), "dnnl_memory_set_data_handle",
            (pointer,), kept,
        )

    def _refuse_while_viewed(self) -> None:
        if self._views:
            raise ValueError("buffer: numpy views of the current buffer exist; drop them first")

    def _ocl_kind(self) -> int:
        """``dnnl_ocl_interop_memory_kind_t`` of memory on an OpenCL engine."""
        out = ffi.new("dnnl_ocl_interop_memory_kind_t *")
        with explain_runtime("ocl", (self, "memory")), using((self, Memory, "memory")) as c_memory:
            check(lib.dnnl_ocl_interop_memory_get_memory_kind(c_memory, out), "dnnl_ocl_interop_memory_get_memory_kind")
        return int(out[0])

    def _sycl_kind(self) -> int:
        """``dnnl_sycl_interop_memory_kind_t`` of memory on a SYCL engine."""
        out = ffi.new("dnnl_sycl_interop_memory_kind_t *")
        with explain_runtime("sycl", (self, "memory")), using((self, Memory, "memory")) as c_memory:
            check(lib.dnnl_sycl_interop_memory_get_memory_kind(c_memory, out),
                  "dnnl_sycl_interop_memory_get_memory_kind")
        return int(out[0])

    def _repoint(
        self, call: Callable[[CData], int], name: str, pointers: Sequence[CData], kept: object
    ) -> None:
        """``call(c_memory)`` gives the memory another buffer; then it keeps ``kept``.

        The lock discipline of ``_owned``: work submitted before is finished
        first; while the buffer is switched no submission is in a C call
        (every stream's lock is held), and the old buffer stays alive for any
        work that reached it. One memory is re-pointed at a time.
        """
        self._finish_work()
        shared = self._shared
        with shared.repoint_lock, using((self, Memory, "memory")) as c_memory:
            executable = self._executable

            def refuse_work() -> None:  # submissions that come later find the memory refusing work
                self._executable, self._repointing = None, True
                shared.changed()

            try:  # an interruption while locking: the memory is restored all the same
                # Every stream's lock: no submission is in a C call from here on.
                with lock_every_stream(refuse_work) as ledgers:
                    try:
                        # Work submitted on the memory since the wait above: finished too.
                        busy = [(ledger, stream) for ledger in ledgers if ledger.sid in self._in_flight
                                and isinstance(stream := ledger.stream(), Stream) and not stream.closed]
                        for _, stream in busy:
                            check(lib.dnnl_stream_wait(stream.handle), "dnnl_stream_wait")
                        old = self._keep[2] if len(self._keep) > 2 else None
                        check(call(c_memory), name)
                        self._use_data(pointers, kept)
                        executable = self._executable
                        for ledger, _ in busy:  # let go of at its next wait, with that work
                            ledger.keep_until_next_wait(old)
                    finally:  # before the locks are let go: no submission sees the switch half done
                        if self._handle is not None:
                            self._executable = executable
                        self._repointing = False
            finally:
                if self._repointing:
                    if self._handle is not None:
                        self._executable = executable
                    self._repointing = False

    def mapped(self) -> _Mapped:
        """``with memory.mapped() as array:`` the data as a numpy array, mapped
        for the block and unmapped at its end (also on an exception).

        The array has the descriptor's shape, numpy dtype and strides (a plain
        layout and a type numpy knows; ``TypeError`` otherwise). Work submitted
        before is finished first. While mapped, the memory's handle stays
        valid (even if the memory is closed) and ``set_data_handle`` is refused.

        * Memory the host sees directly (the CPU engine; host or shared USM,
          whose mapping is the memory's own storage): the array is a view of
          it, without a copy, and stays one after the block, like
          ``numpy.asarray(memory)``.
        * Device memory (OpenCL buffers, device USM), where oneDNN maps a host
          copy that unmapping frees: the array is the binding's own copy of
          it, written back at the end of the block, and read-only afterwards.
          No array ever points at memory that is no longer mapped.

        Raises:
            TypeError: (entering the block) the layout is blocked or numpy has no type for the
                data type.
            ValueError: (entering the block) the memory has no buffer (``MEMORY_NONE``).
            RuntimeError: the same ``mapped()`` object is entered twice.
            ClosedObjectError: ``memory`` is closed.
            DnnlError: oneDNN cannot map the memory.
        """
        return _Mapped(self)

    def map_data(self) -> Any:
        """Map the data into host memory; returns a ``void *`` cffi pointer.

        As ``dnnl::memory::map_data``: valid until :meth:`unmap_data`, which
        must be called with the same pointer. :meth:`mapped` gives the same
        as a numpy array and unmaps it for you.

        Raises:
            ValueError: the memory has no buffer (``MEMORY_NONE``).
            ClosedObjectError: ``memory`` is closed.
            DnnlError: oneDNN cannot map the memory.
        """
        if self._executable is None and not self.closed:
            raise ValueError("memory: the memory has no buffer to map (MEMORY_NONE)")
        self._finish_work()
        out = ffi.new("void **")
        with using((self, Memory, "memory")) as memory:
            check(lib.dnnl_memory_map_data(memory, out), "dnnl_memory_map_data")
        return out[0]

    def unmap_data(self, pointer: Any) -> None:
        """Unmap a pointer returned by :meth:`map_data`.

        Raises:
            TypeError: ``pointer`` is not the non-NULL ``void *`` :meth:`map_data` returned.
            ClosedObjectError: ``memory`` is closed.
            DnnlError: oneDNN refuses to unmap ``pointer``.
        """
        _ = self.handle  # a closed memory says so first
        if not isinstance(pointer, ffi.CData) or ffi.typeof(pointer) is not _VOID_POINTER or pointer == ffi.NULL:
            raise TypeError(f"pointer: expected the void * map_data returned, got {pointer!r}")
        c_pointer = pointer
        with using((self, Memory, "memory")) as memory:
            check(lib.dnnl_memory_unmap_data(memory, c_pointer), "dnnl_memory_unmap_data")

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> numpy.ndarray[Any, Any]:
        """``numpy.asarray(memory)``: a view of the data, without a copy.

        For memory on the CPU engine with a plain layout ("ab", "ba",
        "acdb", strides, ...) and a type numpy knows. The view's shape is the
        descriptor's, its strides follow the layout. While a view exists the
        memory's buffer stays valid: closing the memory destroys it only once
        the last view is gone, and ``set_data_handle`` is refused. Device
        memory is read with :meth:`mapped`.

        Work submitted before that uses the memory is finished first (as
        ``stream.wait()``), so the view never shows data half written. The
        view is the buffer itself: work submitted after it was made changes
        what it shows, so read it after that work's ``stream.wait()``.

        Raises:
            TypeError: the memory is not on the CPU engine, its layout is blocked, or numpy has
                no type for its data type.
            ValueError: the memory has no buffer (``MEMORY_NONE``), or ``dtype`` is given with
                ``copy=False``.
            ClosedObjectError: ``memory`` is closed.
            DnnlError: the work in flight that uses the memory failed (raised by its stream's
                wait).
        """
        import numpy

        if runtime_of(self.engine) != "native":
            raise TypeError(
                "memory: not host memory (an OpenCL or Level Zero engine); read it with "
                "memory.mapped() or through the runtime (ocl.as_array, pyopencl)"
            )
        if copy is False and dtype is not None:
            raise ValueError("a view cannot change the dtype")
        self._finish_work()  # no view of data that work in flight is still writing
        view = numpy.asarray(_HostView(self))
        if dtype is not None:
            return view.astype(dtype)
        return view.copy() if copy else view

    def __buffer__(self, flags: int) -> memoryview:
        """``memoryview(memory)`` (Python 3.12 and later): the bytes of :meth:`__array__`'s view.

        Same rules as ``numpy.asarray(memory)``: CPU engine memory only, work
        in flight that uses it finished first, the buffer valid while the
        memoryview lives. Before 3.12 Python classes cannot offer the buffer
        protocol: use ``memoryview(numpy.asarray(memory))``.

        Raises:
            BufferError: a writable buffer is asked of a read-only view.
            TypeError, ValueError, ClosedObjectError, DnnlError: as :meth:`__array__`.
        """
        view = self.__array__().data
        if flags & 0x0001 and view.readonly:  # PyBUF_WRITABLE (inspect.BufferFlags from 3.12)
            raise BufferError("memory: the view is read-only")
        return view

    def __dlpack__(
        self, *, stream: object = None, max_version: tuple[int, int] | None = None,
        dl_device: tuple[int, int] | None = None, copy: bool | None = None,
    ) -> object:
        """The memory as a DLPack tensor: a PyCapsule, as the array API standard says
        (``numpy.from_dlpack(memory)``, ``torch.from_dlpack(memory)``, ...).

        Memory on the CPU engine is a ``kDLCPU`` tensor, USM memory (OpenCL USM,
        Level Zero) a ``kDLOneAPI`` one, over the memory's own buffer: no copy,
        strides in elements. Work in flight that uses the memory is finished first,
        and the buffer stays valid (``set_data_handle`` refused) while the consumer
        holds the tensor. ``max_version`` (1, x) gives a ``"dltensor_versioned"``
        capsule (flags ``READ_ONLY`` for memory from a read-only tensor, ``IS_COPIED``
        for a copy), otherwise a legacy ``"dltensor"`` one. ``copy=True`` gives a
        host copy, ``copy=False`` refuses where a copy is needed (a blocked layout,
        another device). ``dl_device=(1, 0)`` (kDLCPU) copies device memory to the
        host, also an OpenCL buffer's (which is no tensor otherwise). See the DLPack
        page of the documentation.

        Raises:
            BufferError: no tensor can be given as asked (a blocked layout with ``copy=False``,
                a ``dl_device`` that cannot be served, an OpenCL buffer without a host copy, a
                data type DLPack has no code for, no buffer, a ``stream`` for host memory).
            TypeError: ``max_version``, ``dl_device`` or ``copy`` is of another type.
            ClosedObjectError: ``memory`` is closed.
        """
        if stream is None and dl_device is None and (copy is None or copy is False):
            capsule = _export_host(self, max_version)  # the usual call, in C; None: not that
            if capsule is not None:
                return capsule
        return _dlpack.export(self, stream, max_version, dl_device, copy)

    def __dlpack_device__(self) -> tuple[int, int]:
        """``(device_type, device_id)`` of :meth:`__dlpack__`'s tensor: ``(1, 0)``
        (kDLCPU) on the CPU engine, ``(14, id)`` (kDLOneAPI) for USM memory,
        ``(4, id)`` (kDLOpenCL) for an OpenCL buffer.

        Raises:
            ClosedObjectError: ``memory`` is closed.
        """
        return _dlpack.device_of(self)

    @property
    def __sycl_usm_array_interface__(self) -> dict[str, Any]:
        """dpctl's USM array interface (version 1) of USM memory (OpenCL USM,
        Level Zero): shape, typestr, ``data`` (pointer, read-only), strides in
        elements, ``syclobj`` None (this binding has no SYCL queue; the
        consumer names its own). Work in flight that uses the memory is
        finished first; the interface keeps nothing alive: keep the memory.

        Raises:
            AttributeError: the memory is not USM memory (no interface, as for any object without one).
            ClosedObjectError: ``memory`` is closed.
        """
        return _dlpack.usm_array_interface(self)

    def _mark_read_only(self) -> None:
        """From a read-only tensor: execute refuses it where oneDNN writes. Its layout key
        becomes a copy, equal but never the same object, so every execute takes the
        checked path (``_execution._refuse``), bound ones at ``bind``."""
        self._read_only = True
        self._layout = tuple(list(self._layout))

    def _use_data(self, pointers: Sequence[CData], kept: object) -> None:
        """Record the buffers the memory now uses; keep ``kept`` alive instead of the old."""
        self._keep = (*self._keep[:2], kept)
        self._repointing = False
        if not hasattr(self, "_size"):  # the descriptor's size, read once: the user may close it
            self._size = self.desc.size
            self._layout = self.desc._layout  # noqa: SLF001 - a descriptor's layout key (_memory_desc)
        has_data = self._size == 0 or all(pointer != ffi.NULL for pointer in pointers)
        self._executable = self._handle if has_data else None
        self._shared.changed()


def layout_of(desc: MemoryDesc) -> Layout:
    """What a host array given for ``desc`` is checked against (see ``_buffers.host_buffer``)."""
    return Layout(desc.shape, desc.strides, lambda: repr(desc))


def _numpy_layout(desc: MemoryDesc) -> tuple[numpy.dtype[Any], tuple[int, ...]]:
    """The dtype and byte strides of a numpy array over data laid out by ``desc``."""
    dtype, strides = desc.dtype, desc.strides
    if dtype is None:
        raise TypeError(f"memory: numpy has no type for {desc.data_type.name.lower()}")
    if strides is None:
        raise TypeError(f"memory: the {desc.tag!r} layout is blocked; no numpy view describes it")
    return dtype, tuple(s * dtype.itemsize for s in strides)


class _HostView:
    """What a numpy view of a Memory's buffer holds on to (its ``base``).

    It is a user of the memory's handle, so the buffer stays valid for as
    long as the view lives, whatever happens to the Memory object. The
    memory's data handle must be a host address (host memory, host or
    shared USM).
    """

    __slots__ = ("_memory", "_key", "__array_interface__")

    def __init__(self, memory: Memory) -> None:
        if not isinstance(memory, Memory):
            raise TypeError(f"expected a dnnl_interop.Memory, got {type(memory).__name__}")
        desc = memory.desc
        dtype, strides = _numpy_layout(desc)
        self._memory, self._key = memory, ("view", next(shared.call_keys))
        with using((memory, Memory, "memory")):
            memory._add_view(self._key)  # noqa: SLF001 - users
            address = memory.data_handle
        # an empty memory needs no buffer: its view has no element
        if not address and memory._size:  # noqa: SLF001 - execute record
            memory._release(self._key)  # noqa: SLF001 - users
            raise ValueError("memory: the memory has no buffer (MEMORY_NONE)")
        self.__array_interface__ = {
            "version": 3,
            "shape": desc.shape,
            "typestr": dtype.str,
            "strides": strides,
            "data": (address, bool(getattr(memory, "_read_only", False))),  # over a read-only tensor: read-only
        }

    def __del__(self) -> None:
        memory = getattr(self, "_memory", None)
        if memory is not None:
            memory._release(self._key)  # noqa: SLF001 - users


class _Mapped:
    """``with memory.mapped() as array``: see :meth:`Memory.mapped`.

    Holds a use of the memory's handle from the mapping to the unmapping, so
    the handle it unmaps with is still the memory's, whatever the user does
    with the Memory object meanwhile.
    """

    __slots__ = ("_memory", "_key", "_handle", "_pointer", "_copy")

    def __init__(self, memory: Memory) -> None:
        if not isinstance(memory, Memory):
            raise TypeError(f"memory: expected a dnnl_interop.Memory, got {type(memory).__name__}")
        self._memory = memory
        self._pointer: Any = None
        self._copy: tuple[numpy.ndarray[Any, Any], numpy.ndarray[Any, Any]] | None = None

    def __enter__(self) -> numpy.ndarray[Any, Any]:
        import numpy

        if self._pointer is not None:
            raise RuntimeError("memory.mapped(): already mapped by this with statement; call mapped() again")
        memory = self._memory
        desc = memory.desc  # a closed memory says so here
        dtype, strides = _numpy_layout(desc)
        if memory._executable is None and not memory.closed:  # noqa: SLF001 - execute record
            raise ValueError("memory: the memory has no buffer to map (MEMORY_NONE)")
        finish_work(memory)
        key = ("view", next(shared.call_keys))
        out = ffi.new("void **")
        with using((memory, Memory, "memory")) as handle:
            memory._add_view(key)  # noqa: SLF001 - users
            status = lib.dnnl_memory_map_data(handle, out)
            if status:
                memory._release(key)  # noqa: SLF001 - users
                raise status_error(status, "dnnl_memory_map_data")
            own_storage = int(ffi.cast("uintptr_t", out[0])) == memory.data_handle
        self._key, self._handle, self._pointer = key, handle, out[0]
        try:
            if own_storage:  # the mapping is the memory's storage: a view, valid while the memory lives
                view: numpy.ndarray[Any, Any] = numpy.asarray(_HostView(memory))
                return view
            nbytes = memory._size  # noqa: SLF001 - execute record
            block = numpy.empty(nbytes, numpy.uint8)
            if nbytes:
                ffi.memmove(ffi.cast("void *", block.ctypes.data), out[0], nbytes)
            array: numpy.ndarray[Any, Any] = numpy.ndarray(desc.shape, dtype, buffer=block, strides=strides)
            self._copy = (block, array)
            return array
        except BaseException:
            self.__exit__(None, None, None)
            raise

    def __exit__(self, *exc_info: object) -> None:
        memory, key, pointer = self._memory, self._key, self._pointer
        if pointer is None:
            return
        copy, self._copy, self._pointer = self._copy, None, None
        try:
            finish_work(memory)  # work submitted in the block, before the write-back
            if copy is not None:
                block, array = copy
                if block.nbytes:
                    ffi.memmove(pointer, ffi.cast("void *", block.ctypes.data), block.nbytes)
                array.flags.writeable = False  # a copy from now on: writes would go nowhere
            check(lib.dnnl_memory_unmap_data(self._handle, pointer), "dnnl_memory_unmap_data")
        finally:
            memory._release(key)  # noqa: SLF001 - users



def memory_handles(desc: MemoryDesc, handles: object, runtime: str, what: str) -> tuple[list[CData], object, bool]:
    """``(pointers, keep, is_list)`` for one handle or a list/tuple of them.

    An empty list means MEMORY_ALLOCATE for each buffer (one, for dense
    descriptors). Extra buffers of a descriptor hold metadata of other
    types, so only a single buffer's item type is checked.
    """
    if not isinstance(desc, MemoryDesc):
        raise TypeError(f"desc: expected a dnnl_interop.MemoryDesc, got {type(desc).__name__}")
    if isinstance(handles, (list, tuple)):
        given = list(handles) or [MEMORY_ALLOCATE]
        pointers: list[CData] = []
        keep: list[object] = []
        with using((desc, MemoryDesc, "desc")) as md:
            for i, handle in enumerate(given):
                size = checked(lib.dnnl_memory_desc_get_size_v2(md, i), "dnnl_memory_desc_get_size_v2")
                data_type, layout = (desc.data_type, layout_of(desc)) if i == 0 else (None, None)
                pointer, kept = device_handle(handle, size, data_type, f"{what}[{i}]", runtime, layout)
                if i and not size:
                    raise ValueError(f"{what}[{i}]: the descriptor has no buffer {i}")
                pointers.append(pointer)
                keep.append(kept)
        return pointers, tuple(keep), True
    pointer, kept = device_handle(handles, desc.size, desc.data_type, what, runtime, layout_of(desc))
    return [pointer], kept, False


def _create_host(memory: Memory, desc: MemoryDesc, engine: Engine, buffer: object) -> None:
    """A CPU (or SYCL) engine's memory over a host buffer."""
    size = desc.size if isinstance(desc, MemoryDesc) and not desc.closed else 0
    data_type = desc.data_type if isinstance(desc, MemoryDesc) else None
    layout = layout_of(desc) if isinstance(desc, MemoryDesc) else None
    pointer, kept = host_buffer(buffer, size, data_type, "buffer", layout)
    make_memory_object(
        memory, desc, engine, lambda out, md, c_engine: lib.dnnl_memory_create(out, md, c_engine, pointer),
        "dnnl_memory_create", None, (pointer,), kept,
    )


def make_memory_object(
    memory: Memory,
    desc: MemoryDesc | None,
    engine: Engine,
    create: Callable[[CData, CData, CData], int],
    name: str,
    runtime: str | None,
    pointers: Sequence[CData],
    kept: object,
    plain: tuple[tuple[int, ...], DataType, tuple[int, ...]] | None = None,
) -> None:
    """``create(out, md, c_engine)`` (the C function ``name``) makes ``memory``'s handle, which
    keeps ``desc``, ``engine`` and ``kept`` (what keeps ``pointers``, its buffers, valid).
    ``runtime``: the engine's runtime a C refusal is explained by (see ``explain_runtime``),
    None for none. ``plain``: instead of ``desc``, the (shape, data type, strides) of a plain
    layout the binding read from an array or a tensor (see ``plain_layout``); the memory's
    :attr:`~Memory.desc` is then made when first asked.

    The call holds the lock a close takes to take a handle out, so neither the descriptor's
    handle nor ``engine``'s is destroyed during it: cheaper than registering the call as a
    user of each (``using``), for a call that never waits.
    """
    if plain is None and not isinstance(desc, MemoryDesc):
        raise TypeError(f"desc: expected a dnnl_interop.MemoryDesc, got {type(desc).__name__}")
    if not isinstance(engine, Engine):
        raise TypeError(f"engine: expected a dnnl_interop.Engine, got {type(engine).__name__}")
    if desc is not None:
        size = desc.size  # a closed descriptor says so here; read once: the user may close it
        layout = layout_key(desc)
    out = ffi.new(_MEMORY_OUT)
    with shared.lock:
        if plain is not None:
            md, size, layout = plain_layout(*plain)
        else:
            md = getattr(desc, "_handle", None)
            if md is None:
                raise closed_error(desc, "desc")  # type: ignore[arg-type]  # a MemoryDesc
        c_engine = getattr(engine, "_handle", None)
        if c_engine is None:
            raise closed_error(engine, "engine")
        if runtime is None:
            check(create(out, md, c_engine), name)
        else:
            with explain_runtime(runtime, (engine, "engine")):
                check(create(out, md, c_engine), name)
        # an owner (set, so that reading it never raises)
        memory._borrowed = False  # noqa: SLF001 - creation
        memory._adopt(out[0], keep=(desc, engine, kept))  # noqa: SLF001 - creation
    memory._plain = plain  # noqa: SLF001 - creation
    # set, so that reading it never raises (see csrc/dlpack.c)
    memory._read_only = False  # noqa: SLF001 - creation
    memory._repointing = False  # noqa: SLF001 - creation
    memory._size = size  # noqa: SLF001 - creation
    memory._layout = layout  # noqa: SLF001 - creation
    # A new memory is in no binding yet: nothing to tell them (_shared.changed).
    has_data = not size or (pointers[0] != ffi.NULL if len(pointers) == 1 else
                            all(pointer != ffi.NULL for pointer in pointers))
    memory._executable = memory._handle if has_data else None  # noqa: SLF001 - creation


def _create_ocl(memory: Memory, desc: MemoryDesc, engine: Engine, kind: int, handle: object) -> None:
    """An OpenCL engine's memory: ``kind`` OCL_BUFFER (a cl_mem) or OCL_USM."""
    runtime = "ocl_usm" if kind == OCL_USM else "cl_mem"
    array = None
    if isinstance(desc, MemoryDesc):  # a pyopencl Array: its buffer, once it fits the descriptor
        buffer = device_array(handle, layout_of(desc), desc.dtype, kind == OCL_BUFFER, "handle")
        array, handle = (handle if buffer is not handle else None), buffer
    pointers, keep, is_list = memory_handles(desc, handle, runtime, "handle")
    if array is not None:
        keep = array  # it holds the buffer, and its events order execute (see _array_events)
    given = list(handle) if isinstance(handle, (list, tuple)) else [handle]
    if isinstance(engine, Engine) and any(hasattr(type(h), "context") for h in given):  # pyopencl objects
        with using((engine, Engine, "engine")) as c_engine:
            context = ocl_context(c_engine)
        check_ocl_context(given, context, "handle")
    if is_list:
        array = ffi.new("void *[]", pointers)
        _create_device(
            memory, "ocl", lib.dnnl_ocl_interop_memory_create_v2, "dnnl_ocl_interop_memory_create_v2",
            desc, engine, pointers, keep, kind, len(array), array,
        )
    else:
        _create_device(
            memory, "ocl", lib.dnnl_ocl_interop_memory_create, "dnnl_ocl_interop_memory_create",
            desc, engine, pointers, keep, kind, pointers[0],
        )


def _create_ze(memory: Memory, desc: MemoryDesc, engine: Engine, handles: object) -> None:
    """A Level Zero engine's memory over USM pointers."""
    pointers, keep, _ = memory_handles(desc, handles, "ze_usm", "handles")
    array = ffi.new("void *[]", pointers)
    _create_device(
        memory, "ze", lib.dnnl_ze_interop_memory_create, "dnnl_ze_interop_memory_create",
        desc, engine, pointers, keep, len(array), array,
    )


def _create_device(
    memory: Memory,
    runtime: str,
    create: Callable[..., int],
    name: str,
    desc: MemoryDesc,
    engine: Engine,
    pointers: list[CData],
    keep: object,
    *extra: object,
) -> None:
    """``create(out, md, engine, *extra)`` makes ``memory`` over ``pointers``."""
    make_memory_object(
        memory, desc, engine, lambda out, md, c_engine: create(out, md, c_engine, *extra), name, runtime,
        pointers, keep,
    )


def _refuse_any(desc: object, function: str) -> None:
    """oneDNN's INVALID_ARGUMENTS for memory of an "any" descriptor, or of one with
    runtime dimensions, said before the call."""
    if isinstance(desc, MemoryDesc) and desc.format_kind == FormatKind.ANY:
        raise make_error(
            Status.INVALID_ARGUMENTS, function,
            f"desc: {desc!r} lets a primitive choose the layout and describes no memory; make the "
            "memory from the descriptor the primitive descriptor chose (its src_desc, weights_desc, ...)",
        )
    if isinstance(desc, MemoryDesc) and RUNTIME_DIM in desc.shape:
        raise make_error(
            Status.INVALID_ARGUMENTS, function,
            f"desc: {desc!r} has a runtime dimension, a size given only at execute, and describes no "
            "memory; make the memory with the concrete shape (MemoryDesc.from_array of the data)",
        )


def make_ocl_memory(desc: MemoryDesc, engine: Engine, kind: int, handle: object) -> Memory:
    """``ocl.make_memory``: a Memory on an OpenCL engine (``kind`` checked by the caller)."""
    _refuse_any(desc, _CREATE_NAMES["ocl"])
    memory = Memory.__new__(Memory)
    _create_ocl(memory, desc, engine, kind, handle)
    return memory


def make_ze_memory(desc: MemoryDesc, engine: Engine, handles: object) -> Memory:
    """``ze.make_memory``: a Memory on a Level Zero engine."""
    _refuse_any(desc, _CREATE_NAMES["ze"])
    memory = Memory.__new__(Memory)
    _create_ze(memory, desc, engine, handles)
    return memory


class KeptPointer(UncheckedPointer):
    """The address of a tensor's data, holding what keeps the data valid (the
    taken DLPack tensor, or the array of a USM interface) for as long as the
    memory keeps this (its buffer)."""

    __slots__ = ("kept",)

    def __init__(self, address: int, kept: object) -> None:
        super().__init__(address)
        object.__setattr__(self, "kept", kept)


def memory_over(
    kept: object, address: int, shape: tuple[int, ...], dtype: DataType, strides: tuple[int, ...],
    read_only: bool, engine: Engine, what: str,
) -> Memory:
    """A Memory of ``engine`` over ``address``, keeping ``kept``; ``shape`` and ``strides`` (in
    elements) are ints."""
    if strides and min(strides) < 0:
        raise BufferError(f"{what}: strides {strides} (elements): oneDNN has no reversed layouts")
    if shape and min(shape) < 0:  # RUNTIME_DIM too: a size given only at execute, never a tensor's
        raise BufferError(f"{what}: no oneDNN descriptor for shape {shape}: a dimension is negative")
    runtime = runtime_of(engine)
    try:
        if runtime == "native":
            memory = host_memory_over((shape, dtype, strides), engine, address, kept)
        elif runtime in PLAIN_CREATORS:
            memory = PLAIN_CREATORS[runtime]((shape, dtype, strides), engine, address, kept, what)
        else:
            desc = shared_desc(shape, dtype, strides)
            pointer = KeptPointer(address, kept)
            memory = make_ze_memory(desc, engine, pointer) if runtime == "ze" else \
                make_ocl_memory(desc, engine, OCL_USM, pointer)
    except RefusedLayout as error:
        raise BufferError(f"{what}: no oneDNN descriptor for shape {shape}, strides {strides}: {error}") from None
    if read_only:
        memory._mark_read_only()  # noqa: SLF001 - creation
    return memory


def host_memory_over(
    plain: tuple[tuple[int, ...], DataType, tuple[int, ...]], engine: Engine, address: int, kept: object
) -> Memory:
    """A Memory of the CPU ``engine`` over ``address``, keeping ``kept``: ``Memory(desc, engine,
    UncheckedPointer(address))`` for the plain layout ``plain`` (shape, data type, strides) of a
    tensor whose data, shape and strides the binding has read (a DLPack tensor, a numpy array),
    so that nothing of the buffer is checked again."""
    memory = Memory.__new__(Memory)
    pointer = ffi.cast(_VOID_POINTER, address)
    make_memory_object(
        memory, None, engine, lambda out, md, c_engine: lib.dnnl_memory_create(out, md, c_engine, pointer),
        "dnnl_memory_create", None, (pointer,), kept, plain,
    )
    return memory


def host_array_memory(capsule: object, engine: Engine) -> Memory | None:
    """``Memory.from_array(array, engine)`` of a writable numpy array on the CPU engine, read
    through the array's own DLPack tensor, ``capsule`` (its address, shape and strides in
    elements, read in C); None where that path does not apply (read-only, a layout or type
    oneDNN has no descriptor for), for the checked path to say why."""
    try:
        taken = _dlpack.take(capsule, "array")
    except (TypeError, BufferError):
        return None
    if taken.flags & _dlpack.READ_ONLY or taken.data_type is None or taken.device[0] != _dlpack.KDL_CPU:
        return None
    shape, strides = taken.shape, taken.strides
    if not shape or min(shape) < 0 or min(strides) < 0:
        return None
    try:
        return host_memory_over((shape, taken.data_type, strides), engine, taken.address, taken)
    except ValueError:  # a layout oneDNN has no descriptor for: the checked path says why
        return None


def memory_from_usm_interface(x: object, engine: Engine, what: str = "x", interface: object = None) -> Memory:
    """A Memory of ``engine`` (OpenCL USM or Level Zero) over the data of ``x``, an object
    with dpctl's ``__sycl_usm_array_interface__`` (version 1), kept alive by the memory.

    The interface says nothing of work in flight: the producer's work must be finished.

    Raises:
        TypeError: ``x`` has no interface, or one of another form; ``engine`` is no Engine.
        ValueError: the interface describes data oneDNN has no descriptor for.
        BufferError: ``engine`` is the CPU engine.
    """
    if not isinstance(engine, Engine):
        raise TypeError(f"engine: expected a dnnl_interop.Engine, got {type(engine).__name__}")
    if runtime_of(engine) == "native":
        raise BufferError(
            "engine: USM data is memory of a SYCL, OpenCL or Level Zero engine, not of the CPU engine "
            "(sycl.make_engine(queue.sycl_device, queue.sycl_context) makes one on the array's device)"
        )
    address, shape, dtype, strides, read_only, _ = usm_interface(x, what, interface)
    return memory_over(x, address, shape, known_data_type(dtype), strides, read_only, engine, what)


# numpy dtype -> its DataType, for those asked before (data_type's answer, cheaper to look up).
_DATA_TYPES: dict[object, DataType] = {}
# typestr of a USM array interface -> its numpy dtype.
_TYPESTRS: dict[str, Any] = {}


def known_data_type(dtype: numpy.dtype[Any]) -> DataType:
    """``data_type(dtype)``, remembered.

    Raises:
        TypeError: ``dtype`` has no oneDNN data type.
    """
    known = _DATA_TYPES.get(dtype)
    if known is None:
        known = data_type(dtype)
        if len(_DATA_TYPES) < 64:
            _DATA_TYPES[dtype] = known
    return known


def usm_interface(
    x: object, what: str, interface: Any = None
) -> tuple[int, tuple[int, ...], numpy.dtype[Any], tuple[int, ...], bool, object]:
    """``(address, shape, dtype, strides in elements, read_only, syclobj)`` of ``x``'s
    ``__sycl_usm_array_interface__`` (version 1; ``interface`` if already read); the
    address includes the offset.

    Raises:
        TypeError: ``x`` has no interface, or one of another form.
    """
    if interface is None:
        interface = getattr(x, "__sycl_usm_array_interface__", None)
    if not isinstance(interface, dict):
        raise TypeError(f"{what}: a {type(x).__name__} has no __sycl_usm_array_interface__")
    try:
        shape = tuple(map(int, interface["shape"]))
        typestr = interface["typestr"]
        dtype = _TYPESTRS.get(typestr) if type(typestr) is str else None
        if dtype is None:
            import numpy

            dtype = numpy.dtype(typestr)
            if type(typestr) is str and len(_TYPESTRS) < 64:
                _TYPESTRS[typestr] = dtype
        address, read_only = interface["data"]
        strides = interface.get("strides")
        offset = int(interface.get("offset", 0) or 0)
    except (KeyError, TypeError, ValueError) as error:
        raise TypeError(f"{what}: __sycl_usm_array_interface__ is not of version 1's form ({error})") from None
    strides = tuple(map(int, strides)) if strides is not None else None
    if strides is None:  # C-contiguous
        contiguous = [1] * len(shape)
        for i in range(len(shape) - 2, -1, -1):
            contiguous[i] = contiguous[i + 1] * shape[i + 1]
        strides = tuple(contiguous)
    return int(address) + offset * dtype.itemsize, shape, dtype, strides, bool(read_only), interface.get("syclobj")


# Memory's finalizer, in C (csrc/host_memory.c): a memory nothing else uses (the usual drop) is
# closed there, any other by Owned.__del__.
setattr(Memory, "__del__", _host["configure"](  # noqa: B010 - replaces Owned's finalizer, which mypy sees
    Memory, Engine, shared, *plain_cache(), vars(_library_module),
    {code << 8 | bits: known for (code, bits), known in _dlpack.dlpack_types().items()},
    ffi.typeof("dnnl_memory_t"), ffi.typeof("dnnl_memory_desc_t"), ffi.typeof("dnnl_engine_t"), close_finalized,
    Owned.__del__,
))
