"""Primitive descriptors (``dnnl_primitive_desc_t``) and primitives (``dnnl_primitive_t``).

A primitive keeps its engines; executing one goes through ``_execution``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ._args import ARGS
from ._engine import Engine, engine_in_words, engine_of, optional_engine
from ._execution import submit
from ._ffi import ffi, lib
from ._handles import as_bytes
from ._library import check, checked, status_error
from ._memory import Memory
from ._memory_desc import MemoryDesc
from ._owned import Adoption, Owned, foreign_pointer, using
from ._sized import query_then_fill
from ._stream import Stream
from ._validate import bool_argument
from .errors import MissingFunctionError, Status, UnimplementedError

if TYPE_CHECKING:
    from typing_extensions import Buffer

    from ._ffi import CData

__all__ = ["PrimitiveDesc", "Primitive", "reorder"]

_PRIMITIVE_TYPE = ffi.typeof("dnnl_primitive_t")


class Primitive(Owned):
    """A primitive ready to execute (``dnnl_primitive_t``).

    Raises:
        TypeError: ``desc`` is not a :class:`PrimitiveDesc`, or ``cache_blob`` is not bytes-
            like.
        ValueError: ``cache_blob`` is empty.
        ClosedObjectError: ``desc`` is closed.
        UnimplementedError: ``cache_blob`` is given on an engine that takes none (the CPU
            engine).
        DnnlError: oneDNN refuses to make the primitive (or the blob).
    """

    __slots__ = ("_arg_sizes",)  # {ARG_*: bytes the primitive uses there}
    _arg_sizes: dict[int, int]
    _ctype = "dnnl_primitive_t"
    _destroy = lib.dnnl_primitive_destroy
    _destroy_name = "dnnl_primitive_destroy"

    @property
    def engine(self) -> Engine:
        """The :class:`Engine` the primitive was made on.

        Raises:
            ClosedObjectError: ``primitive`` is closed.
        """
        engine: Engine = self._kept(0)
        return engine

    def __init__(self, desc: PrimitiveDesc, cache_blob: Buffer | None = None) -> None:
        """The primitive ``desc`` describes; made from ``cache_blob`` if given.

        ``cache_blob`` (bytes-like, not empty) is what :meth:`get_cache_blob`
        returned for a primitive of a descriptor with the same
        :attr:`PrimitiveDesc.cache_blob_id`: oneDNN then skips compiling its
        kernels. oneDNN checks little of a blob (a corrupted one can kill the
        process): hand it only blobs kept safe, as :func:`make_primitive_cached`
        does. Only OpenCL and Level Zero GPU engines take cache blobs; on others
        oneDNN refuses with ``UnimplementedError``.
        """
        self._refuse_reinit()
        _create_primitive(self, desc, cache_blob)

    @classmethod
    def from_handle(
        cls, handle: object, *, owned: bool, desc: PrimitiveDesc | None = None, engine: Engine | None = None
    ) -> Primitive:
        """A Primitive over a ``dnnl_primitive_t`` made elsewhere.

        ``handle`` and ``owned`` as in :meth:`Engine.from_handle`: ``owned=True``
        destroys it exactly once, ``owned=False`` borrows it (never destroyed
        here; **the caller keeps it alive** while the Primitive is in use).

        Execute checks each memory against the primitive's descriptor, which
        is read from oneDNN (``dnnl_primitive_get_primitive_desc``), and the
        primitive keeps its engine: ``engine`` if given (checked to be the
        primitive's), else the Engine of this binding that holds it, else a
        new one borrowing it. ``desc``, if given, is the :class:`PrimitiveDesc`
        the primitive was made from (one adopted with
        :meth:`PrimitiveDesc.from_handle`, say): its argument sizes and engines
        are taken instead, on the caller's word.

        Raises:
            TypeError: ``handle`` is not a pointer of this handle type (or an int), or ``owned``
                is not a bool.
            ValueError: ``handle`` is NULL, or an object of this binding already owns it and
                ``owned=True`` asks to take it over.
            ClosedObjectError: the object of this binding that owns the handle is closed.
            TypeError: ``desc`` is neither a :class:`PrimitiveDesc` nor None, or ``engine``
                neither an :class:`Engine` nor None.
            ValueError: ``engine`` is not the primitive's engine.
            ClosedObjectError: ``desc`` is closed.
            DnnlError: oneDNN cannot give the primitive's descriptor or engine.
        """
        owned = bool_argument(owned, "owned")
        if desc is not None and not isinstance(desc, PrimitiveDesc):
            raise TypeError(f"desc: expected a dnnl_interop.PrimitiveDesc or None, got {type(desc).__name__}")
        engine = optional_engine(engine)
        pointer = foreign_pointer(handle, _PRIMITIVE_TYPE, "handle")
        adoption = Adoption(cls, pointer, owned, "handle")
        try:
            if desc is None:
                pd = ffi.new("const_dnnl_primitive_desc_t *")
                check(lib.dnnl_primitive_get_primitive_desc(pointer, pd), "dnnl_primitive_get_primitive_desc")
                c_engine = ffi.new("dnnl_engine_t *")
                check(lib.dnnl_primitive_desc_query(pd[0], lib.dnnl_query_engine, 0, c_engine),
                      "dnnl_primitive_desc_query")
                engines: tuple[Engine | None, ...] = (engine_of(c_engine[0], engine, "the primitive"),)
                sizes = _exec_arg_sizes(pd[0])
            else:
                with using((desc, PrimitiveDesc, "desc")):
                    engines, sizes = desc._keep, desc._arg_sizes
        except BaseException:
            adoption.cancel()
            raise

        def adopt(primitive: Primitive) -> None:
            primitive._adopt(pointer, keep=engines)
            primitive._arg_sizes = sizes

        return adoption.finish(cls, adopt)

    def get_cache_blob(self) -> bytes:
        """The primitive's cache blob (its compiled kernels), for ``Primitive(desc, blob)``.

        Raises ``UnimplementedError`` on an engine that makes no cache blobs
        (the CPU engine). An empty result means there is nothing to cache.

        Raises:
            ClosedObjectError: ``primitive`` is closed.
            UnimplementedError: the primitive's engine makes no cache blobs (the CPU engine).
            DnnlError: oneDNN cannot give the blob.
        """
        return _primitive_cache_blob(self)

    def execute(self, stream: Stream, args: Mapping[int, Memory | None]) -> None:
        """Submit the primitive to ``stream`` with ``{ARG_*: Memory}``.

        Returns at once; the work may still run. The primitive, the memories
        and their buffers stay alive until ``stream.wait()`` (or the stream's
        close), even if every other reference to them is dropped.

        Raises:
            TypeError: ``stream`` is not a :class:`Stream`, ``args`` not a mapping of ``ARG_*``
                ints to :class:`Memory` (or None).
            ValueError: a memory has no buffer, or is smaller than the primitive's descriptor at
                its argument.
            ClosedObjectError: the primitive, the stream or a memory is closed.
            InvalidArgumentsError: oneDNN refuses the execution (the message names a missing
                argument or an object on another engine when the binding can tell).
            DnnlError: another failure oneDNN reports.
        """
        submit(self, stream, args, (), _primitive_execute, "dnnl_primitive_execute")


_primitive_execute = lib.dnnl_primitive_execute


def reorder(
    src_desc: MemoryDesc, dst_desc: MemoryDesc, engine: Engine, dst_engine: Engine | None = None
) -> Primitive:
    """A reorder primitive copying ``src_desc`` layout into ``dst_desc`` layout.

    Raises:
        TypeError: an argument is not a :class:`MemoryDesc` or :class:`Engine`.
        ClosedObjectError: a descriptor or engine is closed.
        InvalidArgumentsError: oneDNN refuses the reorder (shapes that differ, for one).
        UnimplementedError: oneDNN has no reorder between these layouts or data types on the
            engine.
        LibraryNotFoundError: no oneDNN library can be loaded (at the first call into oneDNN).
    """
    desc = PrimitiveDesc.reorder(src_desc, dst_desc, engine, dst_engine)
    try:
        return Primitive(desc)
    finally:
        desc.close()


def _create_reorder_desc(
    out: CData, src_desc: MemoryDesc, dst_desc: MemoryDesc, engine: Engine, dst_engine: Engine
) -> dict[int, int]:
    """``dnnl_reorder_primitive_desc_create`` into ``out``; the bytes of ``{ARG_FROM, ARG_TO}``.

    The argument sizes come from the descriptors given, not from a
    primitive-descriptor query: a reorder needs no more of the library.
    """
    with using(
        (src_desc, MemoryDesc, "src_desc"),
        (engine, Engine, "engine"),
        (dst_desc, MemoryDesc, "dst_desc"),
        (dst_engine, Engine, "dst_engine"),
    ) as (src_md, c_engine, dst_md, c_dst_engine):
        status = lib.dnnl_reorder_primitive_desc_create(out, src_md, c_engine, dst_md, c_dst_engine, ffi.NULL)
        if status:
            raise status_error(
                status, "dnnl_reorder_primitive_desc_create",
                f"oneDNN made no reorder from {src_desc!r} on {engine_in_words(engine)} "
                f"to {dst_desc!r} on {engine_in_words(dst_engine)}",
            )
        return {
            lib.DNNL_ARG_FROM: checked(lib.dnnl_memory_desc_get_size(src_md), "dnnl_memory_desc_get_size"),
            lib.DNNL_ARG_TO: checked(lib.dnnl_memory_desc_get_size(dst_md), "dnnl_memory_desc_get_size"),
        }


# --- primitive descriptors and primitive cache blobs ---------------------------

_PD_TYPE = ffi.typeof("dnnl_primitive_desc_t")
_NO_CACHE_BLOBS = (
    "the primitive's engine makes no cache blobs (oneDNN makes them on OpenCL and Level Zero GPU engines only)"
)
# Every named ARG_* index: the execution arguments a descriptor may describe.
_EXEC_ARG_INDICES = tuple(sorted(set(ARGS.values())))


class PrimitiveDesc(Owned):
    """A primitive descriptor (``dnnl_primitive_desc_t``): a primitive as oneDNN will implement it.

    Made by :meth:`reorder`, or adopted by :meth:`from_handle` from another
    cffi module that shares our C types (see ``dnnl_interop.embedding``).
    ``Primitive(desc)`` makes the primitive, ``Primitive(desc, cache_blob)``
    makes it from a cache blob, and :func:`make_primitive_cached` does either
    through a :class:`~dnnl_interop.CacheBlobStore`. A descriptor keeps its
    engines alive; primitives made from it keep them too and do not need the
    descriptor afterwards (oneDNN copies it into the primitive).

    Raises:
        TypeError: always, when called: make one with :meth:`reorder` or :meth:`from_handle`.
    """

    __slots__ = ("_arg_sizes",)  # {ARG_*: bytes the primitive uses there}, copied by its primitives
    _arg_sizes: dict[int, int]
    _ctype = "dnnl_primitive_desc_t"
    _destroy = lib.dnnl_primitive_desc_destroy
    _destroy_name = "dnnl_primitive_desc_destroy"

    def __init__(self, *args: object, **kwargs: object) -> None:
        raise TypeError(
            "make a PrimitiveDesc with PrimitiveDesc.reorder(...) or adopt one with PrimitiveDesc.from_handle(...)"
        )

    @classmethod
    def _made(cls, handle: CData, engines: tuple[Engine | None, ...], destroy_on_failure: bool) -> PrimitiveDesc:
        try:
            sizes = _exec_arg_sizes(handle)
        except BaseException:
            if destroy_on_failure:
                lib.dnnl_primitive_desc_destroy(handle)
            raise
        desc = cls._from_handle(handle, keep=engines)
        desc._arg_sizes = sizes
        return desc

    @classmethod
    def reorder(
        cls, src_desc: MemoryDesc, dst_desc: MemoryDesc, engine: Engine, dst_engine: Engine | None = None
    ) -> PrimitiveDesc:
        """The descriptor of the reorder :func:`reorder` makes from the same arguments.

        Raises:
            TypeError: an argument is not a :class:`MemoryDesc` or :class:`Engine`.
            ClosedObjectError: a descriptor or engine is closed.
            InvalidArgumentsError: oneDNN refuses the reorder (shapes that differ, for one).
            UnimplementedError: oneDNN has no reorder between these layouts or data types on the
                engine.
        """
        dst_engine = engine if dst_engine is None else dst_engine
        out = cls._new_out()
        sizes = _create_reorder_desc(out, src_desc, dst_desc, engine, dst_engine)
        desc = cls._from_handle(out[0], keep=(engine, dst_engine))
        desc._arg_sizes = sizes
        return desc

    @classmethod
    def from_handle(cls, handle: object, *, owned: bool = False, engine: Engine | None = None) -> PrimitiveDesc:
        """A PrimitiveDesc over a ``dnnl_primitive_desc_t`` made elsewhere.

        ``handle`` is a cffi pointer of that type, from this binding or from
        any cffi module (see :meth:`Engine.from_handle`), or an int address
        (taken as given: an address carries nothing the binding could check).

        ``owned=False`` (the default): the descriptor is cloned
        (``dnnl_primitive_desc_clone``); the caller keeps its own and may
        destroy it at any time. ``owned=True``: this object takes the handle
        over and destroys it (``close()``, ``with``, garbage collection); the
        caller must not destroy it, and must own it in the first place (never
        a primitive's own descriptor, ``dnnl_primitive_get_primitive_desc``'s
        ``const`` one: cffi cannot tell ``const`` apart). A descriptor an
        object of this binding owns is only cloned. If ``from_handle``
        raises, nothing was taken over.

        ``engine``: the :class:`Engine` the descriptor was made on, if it is
        one of ours. It is checked (``ValueError`` if the descriptor's engine
        is another) and kept alive by the descriptor and its primitives, and
        is what :attr:`engine` returns. Without it :attr:`engine` is None and
        the caller keeps the engine alive while the descriptor or a
        primitive made from it lives.

        Raises:
            TypeError: ``handle`` is not a pointer of this handle type (or an int), or ``owned``
                is not a bool.
            ValueError: ``handle`` is NULL, or an object of this binding already owns it and
                ``owned=True`` asks to take it over.
            ClosedObjectError: the object of this binding that owns the handle is closed.
            TypeError: ``engine`` is neither an :class:`Engine` nor None.
            ValueError: ``engine`` is not the descriptor's engine.
            DnnlError: oneDNN cannot clone or query the descriptor.
        """
        owned = bool_argument(owned, "owned")
        engine = optional_engine(engine)
        pd = foreign_pointer(handle, _PD_TYPE, "handle")
        adoption = Adoption(cls, pd, owned, "handle")
        try:
            if engine is not None:
                c_engine = ffi.new("dnnl_engine_t *")
                query = lib.dnnl_primitive_desc_query(pd, lib.dnnl_query_engine, 0, c_engine)
                check(query, "dnnl_primitive_desc_query")
                engine_of(c_engine[0], engine, "the descriptor")
            if not owned:
                out = cls._new_out()
                check(lib.dnnl_primitive_desc_clone(out, pd), "dnnl_primitive_desc_clone")
            else:
                sizes = _exec_arg_sizes(pd)
        except BaseException:
            adoption.cancel()
            raise
        if not owned:
            adoption.cancel()  # the clone is a descriptor of its own
            return cls._made(out[0], (engine,), destroy_on_failure=True)

        def adopt(desc: PrimitiveDesc) -> None:
            desc._adopt(pd, keep=(engine,))
            desc._arg_sizes = sizes

        return adoption.finish(cls, adopt)

    @property
    def engine(self) -> Engine | None:
        """The :class:`Engine` the descriptor was made on (None if adopted without it).

        Raises:
            ClosedObjectError: ``desc`` is closed.
        """
        engine: Engine | None = self._kept(0)
        return engine

    @property
    def impl_info(self) -> str:
        """The implementation oneDNN chose, by its name ("jit:uni", "ocl:ref:any", ...).

        Raises:
            ClosedObjectError: ``desc`` is closed.
            DnnlError: oneDNN cannot answer.
        """
        out = ffi.new("const char **")
        with using((self, PrimitiveDesc, "desc")) as pd:
            check(lib.dnnl_primitive_desc_query(pd, lib.dnnl_query_impl_info_str, 0, out), "dnnl_primitive_desc_query")
            if out[0] == ffi.NULL:
                return ""
            name = ffi.string(out[0])
            return name.decode() if isinstance(name, bytes) else name

    @property
    def cache_blob_id(self) -> bytes:
        """The id of the cache blob of a primitive made from this descriptor.

        oneDNN's key for the blob: it names the primitive, its implementation
        and the device. Primitives of descriptors with equal ids can use each
        other's blobs. Empty where oneDNN makes no cache blobs (the CPU engine).

        Raises:
            ClosedObjectError: ``desc`` is closed.
            DnnlError: oneDNN cannot answer.
        """
        size = ffi.new("dnnl_dim_t *")
        pointer = ffi.new("const uint8_t **")
        with using((self, PrimitiveDesc, "desc")) as pd:
            check(
                lib.dnnl_primitive_desc_query(pd, lib.dnnl_query_cache_blob_id_size_s64, 0, size),
                "dnnl_primitive_desc_query",
            )
            if size[0] <= 0:
                return b""
            check(
                lib.dnnl_primitive_desc_query(pd, lib.dnnl_query_cache_blob_id, 0, pointer),
                "dnnl_primitive_desc_query",
            )
            if pointer[0] == ffi.NULL:
                return b""
            blob_id: bytes = ffi.buffer(pointer[0], size[0])[:]  # copied while the descriptor holds it
            return blob_id

    @property
    def arg_sizes(self) -> dict[int, int]:
        """``{ARG_*: bytes}``: the execution arguments the descriptor describes, and their sizes.

        Execute refuses a memory smaller than this at its argument. Covers the
        named ``ARG_*`` indices and the ``ARG_MULTIPLE_SRC``/``DST`` ranges.

        Raises:
            ClosedObjectError: ``desc`` is closed.
        """
        _ = self.handle  # ClosedObjectError once closed
        return dict(self._arg_sizes)


def _exec_arg_sizes(pd: CData) -> dict[int, int]:
    """``{ARG_*: bytes}`` of the arguments ``pd`` has a non-empty memory descriptor for."""
    count = ffi.new("int *")
    indices = list(_EXEC_ARG_INDICES)
    for query, base in ((lib.dnnl_query_num_of_inputs_s32, lib.DNNL_ARG_MULTIPLE_SRC),
                        (lib.dnnl_query_num_of_outputs_s32, lib.DNNL_ARG_MULTIPLE_DST)):
        check(lib.dnnl_primitive_desc_query(pd, query, 0, count), "dnnl_primitive_desc_query")
        indices += range(base, base + min(max(count[0], 0), lib.DNNL_ARG_MULTIPLE_SRC))
    md = ffi.new("const_dnnl_memory_desc_t *")
    sizes = {}
    for index in indices:
        check(lib.dnnl_primitive_desc_query(pd, lib.dnnl_query_exec_arg_md, index, md), "dnnl_primitive_desc_query")
        if md[0] != ffi.NULL:
            size = checked(lib.dnnl_memory_desc_get_size(md[0]), "dnnl_memory_desc_get_size")
            if size:
                sizes[index] = size
    return sizes


def _cache_blob_error(status: int, name: str) -> Exception:
    """oneDNN's error for a cache-blob call; its bare UNIMPLEMENTED gets the reason."""
    error = status_error(status, name)
    if type(error) is UnimplementedError:
        return UnimplementedError(Status.UNIMPLEMENTED, name, _NO_CACHE_BLOBS)
    return error


def _create_primitive(primitive: Primitive, desc: PrimitiveDesc, cache_blob: Buffer | None) -> None:
    """``Primitive.__init__``: the primitive of ``desc``, from ``cache_blob`` unless None."""
    use = using((desc, PrimitiveDesc, "desc"))
    if cache_blob is not None:
        blob = as_bytes(cache_blob, "cache_blob")
        if not len(blob):
            raise ValueError("cache_blob: empty; a cache blob is never empty (None makes the primitive afresh)")
    out = Primitive._new_out()
    with use as pd:
        if cache_blob is None:
            check(lib.dnnl_primitive_create(out, pd), "dnnl_primitive_create")
        else:
            status = lib.dnnl_primitive_create_from_cache_blob(out, pd, len(blob), blob)
            if status:
                raise _cache_blob_error(status, "dnnl_primitive_create_from_cache_blob")
        primitive._adopt(out[0], keep=desc._keep)
        primitive._arg_sizes = desc._arg_sizes


def _primitive_cache_blob(primitive: Primitive) -> bytes:
    with using((primitive, Primitive, "primitive")) as c_primitive:
        try:
            return query_then_fill(lib.dnnl_primitive_get_cache_blob, "dnnl_primitive_get_cache_blob", c_primitive)
        except UnimplementedError as error:
            if isinstance(error, MissingFunctionError) or error.detail:
                raise
            raise _cache_blob_error(int(error.status), error.function) from None


