"""Primitive descriptors (``dnnl_primitive_desc_t``) and primitives (``dnnl_primitive_t``).

A primitive keeps its engines; executing one goes through ``_execution``.

The classes here reach into one another where one makes the other, each read
marked ``# noqa: SLF001`` with its kind: a Primitive taking *a descriptor's
records* and the *implementation lock* its creation holds, the *creation* of a
descriptor or primitive adopting its handle, a PrimitiveAttr's *attribute copy*,
the *execute records* set for ``_execution``, and *users* (``_owned``).
"""

from __future__ import annotations

import inspect
import logging
import threading
import time
import weakref
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

from ._args import ARGS
from ._attr import PrimitiveAttr, post_op_arg, quantized_arguments
from ._engine import Engine, engine_in_words, engine_of, optional_engine
from ._enums import DataType, PrimitiveKind, Query
from ._execution import PRELU_TAGS, VALUES, BoundExecution, _attr_arg_name, _explain, submit
from ._ffi import ffi, lib
from ._handles import as_bytes
from ._inflight import fast, fast_method
from ._library import check, checked, has_function, status_error
from ._memory import Memory
from ._memory_desc import MemoryDesc, desc_of, layout_key
from ._owned import Adoption, Owned, foreign_pointer, new_out, using
from ._refusals import data_type_reason
from ._runtime_dims import RUNTIME_DIM, has_runtime_dims
from ._sized import query_then_fill
from ._stream import Stream
from ._validate import arg_argument, bool_argument, count_argument, enum_argument
from .errors import DnnlError, MissingFunctionError, Status, UnimplementedError, make_error

if TYPE_CHECKING:
    from typing_extensions import Buffer

    from ._ffi import CData

__all__ = ["PrimitiveDesc", "Primitive", "reorder", "reordered"]

_PRIMITIVE_TYPE = ffi.typeof("dnnl_primitive_t")
_P = TypeVar("_P", bound="PrimitiveDesc")
# The scales or zero points of an argument: (mask, groups, data type), see PrimitiveAttr._quantized.
_Quantized = tuple[int, tuple[int, ...], DataType]
# Creation times at DEBUG: why a start is slow (kernels compiled, or not).
logger = logging.getLogger("dnnl_interop")


def log_creation(desc: PrimitiveDesc, made: str, started: float, how: str = "") -> None:
    """At DEBUG on the ``dnnl_interop`` logger: ``desc``'s kind, ``made`` ("primitive",
    "primitive descriptor") in the time since ``started`` (``time.perf_counter()``), ``how``."""
    if not logger.isEnabledFor(logging.DEBUG):
        return
    elapsed = (time.perf_counter() - started) * 1000
    try:
        kind, implementation = desc.kind.name.lower(), desc.impl_info
    except DnnlError:  # a stand-in library may not answer: the time is what matters
        kind, implementation = "a", "unknown"
    logger.debug("%s %s made in %.2f ms%s (implementation %s)", kind, made, elapsed, how, implementation)


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

    # {ARG_*: bytes the primitive uses there}, {ARG_*: the layout it expects there};
    # _scratchpads: with ScratchpadMode.USER, the scratchpad the binding gives
    # each stream that executes it without one of its own (None otherwise).
    # _accepted_workspace: the workspace last found to be of this primitive's forward, weakly
    # (see _execution._refuse_other_forward; the C fast path takes it without another check).
    # _execute_record: (_arg_sizes, _arg_layouts, _required) in one read for the C fast path,
    # or None where the Python path checks every execute (see _set_args).
    __slots__ = ("_arg_sizes", "_arg_layouts", "_required", "_scratchpads", "_accepted_workspace", "_execute_record")
    _arg_sizes: dict[int, int]
    _arg_layouts: dict[int, tuple[object, ...]]
    _required: tuple[int, ...]  # what execute checks is given before oneDNN reads it (see _set_args)
    _execute_record: tuple[dict[int, int], dict[int, tuple[object, ...]], tuple[int, ...]] | None
    _scratchpads: weakref.WeakKeyDictionary[Stream, Memory] | None
    _ctype = "dnnl_primitive_t"
    _destroy = lib.dnnl_primitive_destroy
    _destroy_name = "dnnl_primitive_destroy"

    def _adopt(self, handle: CData, keep: tuple[Any, ...] = ()) -> None:
        super()._adopt(handle, keep)
        self._holds = _hold_handles(self, keep)
        self._scratchpads = None
        self._accepted_workspace: weakref.ref[Memory] | None = None

    def _with_scratchpad(self, stream: Stream, args: Mapping[int, Memory | None]) -> Mapping[int, Memory | None]:
        """``args``, with the binding's scratchpad for ``stream`` where the primitive
        needs a user scratchpad and none is given. One a stream: executions on a
        stream run in order, so they never share it concurrently."""
        scratchpads = self._scratchpads
        if scratchpads is None or self._handle is None or not isinstance(stream, Stream) \
                or lib.DNNL_ARG_SCRATCHPAD in args:
            return args  # submit refuses what is closed or of another type
        memory = scratchpads.get(stream)
        if memory is None:
            desc = self._kept(-1)  # the scratchpad's descriptor, kept last
            memory = scratchpads[stream] = Memory(desc, self.engine)
        return {**args, lib.DNNL_ARG_SCRATCHPAD: memory}

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
        cls, handle: object, *, owned: bool, desc: PrimitiveDesc | None = None, engine: Engine | None = None,
        attr: PrimitiveAttr | None = None,
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

        oneDNN cannot tell which scales and zero points a primitive reads (it
        reads them through NULL when they are not given): ``attr``, the
        :class:`PrimitiveAttr` it was made with, lets execute check them as
        for a primitive made here (without ``desc``; a ``desc`` brings its own).

        Raises:
            TypeError: ``handle`` is not a pointer of this handle type (or an int), or ``owned``
                is not a bool.
            ValueError: ``handle`` is NULL, or an object of this binding already owns it and
                ``owned=True`` asks to take it over.
            ClosedObjectError: the object of this binding that owns the handle is closed.
            TypeError: ``desc`` is neither a :class:`PrimitiveDesc` nor None, ``engine``
                neither an :class:`Engine` nor None, or ``attr`` neither a :class:`PrimitiveAttr`
                nor None.
            ValueError: ``engine`` is not the primitive's engine, or ``attr`` is given with ``desc``.
            ClosedObjectError: ``desc`` or ``attr`` is closed.
            DnnlError: oneDNN cannot give the primitive's descriptor or engine.
        """
        owned = bool_argument(owned, "owned")
        if desc is not None and not isinstance(desc, PrimitiveDesc):
            raise TypeError(f"desc: expected a dnnl_interop.PrimitiveDesc or None, got {type(desc).__name__}")
        quantized = _quantized_of(attr)
        if desc is not None and attr is not None:
            raise ValueError("attr: give it with desc=None; a desc brings the attributes it was adopted or made with")
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
                sizes, layouts = _exec_args(pd[0], quantized)
            else:
                with using((desc, PrimitiveDesc, "desc")), desc._impl_lock:  # noqa: SLF001 - implementation lock
                    engines, sizes, layouts = desc._keep, desc._arg_sizes, desc._arg_layouts  # noqa: SLF001 - a descriptor's records
        except BaseException:
            adoption.cancel()
            raise

        def adopt(primitive: Primitive) -> None:
            primitive._adopt(pointer, keep=engines)
            _set_args(primitive, sizes, layouts)

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
            ValueError: a memory has no buffer, is smaller than the primitive's descriptor at
                its argument, or has its shape and data type in another layout (the one oneDNN
                chose is ``desc.arg_desc(arg)``; :func:`reordered` brings a memory there).
            ClosedObjectError: the primitive, the stream or a memory is closed.
            InvalidArgumentsError: oneDNN refuses the execution (the message names a missing
                argument or an object on another engine when the binding can tell).
            DnnlError: another failure oneDNN reports.
        """
        # Replaced below by a method of C that does what this does (see _inflight.fast_method).
        self._after_fast_execute(stream, args, _fast_execute(self, stream, args))

    def _after_fast_execute(self, stream: Stream, args: Mapping[int, Memory | None], status: int | None) -> None:
        """:meth:`execute` once the C path answered: None, every check in Python; a status,
        oneDNN's refusal."""
        if status is None:
            if self._scratchpads is not None:
                args = self._with_scratchpad(stream, args)
            submit(self, stream, args, (), _primitive_execute, "dnnl_primitive_execute")
        elif status:
            raise _explain(status, "dnnl_primitive_execute", self, stream, list(args.items()), None)

    def bind(self, stream: Stream, args: Mapping[int, Memory | None]) -> BoundExecution:
        """``execute(stream, args)`` checked once, for a loop that submits it many
        times: ``bound = primitive.bind(stream, args)``, then ``bound.execute()``.

        Each ``bound.execute()`` keeps what the work uses alive as ``execute``
        does, and refuses objects closed since; it skips the checks that
        cannot change (types, indices, sizes, layouts). ``args`` is copied.
        ``bound.execute(wait=True)`` also waits for the stream: the loop of
        execute then wait with the least Python work. The binding holds the
        handles of the primitive and the memories until ``bound.close()`` (or
        a ``with`` block's end, or until it is dropped): one closed meanwhile
        is refused at once and destroyed when the binding lets go.

        Raises:
            TypeError, ValueError, ClosedObjectError: as :meth:`execute`, for the arguments.
        """
        args = self._with_scratchpad(stream, args)
        return BoundExecution(self, stream, args, _primitive_execute, _execute_and_wait, "dnnl_primitive_execute")


_primitive_execute = lib.dnnl_primitive_execute
_execute_and_wait = lib.dnnl_interop_execute_and_wait
_fast_execute = fast["execute"]

fast_method(Primitive, "execute", "($self, stream, args)")
fast["slots"]({name: vars(Primitive)[name] for name in ("_execute_record", "_accepted_workspace")})


# The user key of what _hold_handles holds: next_impl tells a held hint by it.
_HELD_BY = "held by"


def _hold_handles(obj: Owned, keep: tuple[Any, ...]) -> tuple[tuple[Owned, object], ...]:
    """oneDNN primitive descriptors and primitives do not retain their engine
    (making a primitive, next_impl, the cache blob id use it), nor a backward
    descriptor the forward one it was made with (its ``hint_fwd_pd``, which
    oneDNN reads again when a primitive is made): ``obj`` is a user of each
    engine and hint it keeps, whose handle a close then destroys only once
    ``obj``'s is (see ``_owned``)."""
    holds: list[tuple[Owned, object]] = []
    for held in keep:
        if isinstance(held, (Engine, PrimitiveDesc)) and all(held is not other for other, _ in holds):
            key = (_HELD_BY, id(obj))
            held._depend(key)  # noqa: SLF001 - users
            holds.append((held, key))
    return tuple(holds)


def reorder(
    src_desc: MemoryDesc, dst_desc: MemoryDesc, engine: Engine, dst_engine: Engine | None = None
) -> Primitive:
    """A reorder primitive copying ``src_desc`` layout into ``dst_desc`` layout: the
    primitive of ``ReorderDesc(engine, src_desc, dst_engine or engine, dst_desc)``.

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


def create_reorder(
    target: _P | type[_P],
    src_engine: Engine,
    src_desc: MemoryDesc,
    dst_engine: Engine,
    dst_desc: MemoryDesc,
    attr: PrimitiveAttr | None = None,
    engine_names: tuple[str, str] = ("src_engine", "dst_engine"),
) -> _P:
    """``dnnl_reorder_primitive_desc_create``, then through :func:`open_desc` into ``target``:
    the one creator of reorders, which ``ReorderDesc`` and the conveniences
    (:meth:`PrimitiveDesc.reorder`, :func:`reorder`, :func:`reordered`,
    ``reorder_cached``) share. ``engine_names``: the engines' names in messages.

    The arguments are checked in the order oneDNN takes them. Without ``attr``
    the sizes and layouts of ``ARG_FROM`` and ``ARG_TO`` are those of the
    descriptors given, not asked of oneDNN (a plain reorder needs no more of the
    library); with ``attr`` they are learned as every kind's are, with the
    scales and zero points it sets.
    """
    if attr is not None and not isinstance(attr, PrimitiveAttr):
        raise TypeError(f"attr: expected a dnnl_interop.PrimitiveAttr or None, got {type(attr).__name__}")
    src_name, dst_name = engine_names
    specs: list[tuple[object, type, str]] = [
        (src_desc, MemoryDesc, "src_desc"), (src_engine, Engine, src_name),
        (dst_desc, MemoryDesc, "dst_desc"), (dst_engine, Engine, dst_name),
    ]
    if attr is not None:
        specs.append((attr, PrimitiveAttr, "attr"))
    out = new_out(PrimitiveDesc)
    started = time.perf_counter()
    with using(*specs) as handles:
        src_md, c_src_engine, dst_md, c_dst_engine = handles[:4]
        known = None
        if attr is None:
            known = (
                {lib.DNNL_ARG_FROM: checked(lib.dnnl_memory_desc_get_size(src_md), "dnnl_memory_desc_get_size"),
                 lib.DNNL_ARG_TO: checked(lib.dnnl_memory_desc_get_size(dst_md), "dnnl_memory_desc_get_size")},
                {lib.DNNL_ARG_FROM: layout_key(src_desc), lib.DNNL_ARG_TO: layout_key(dst_desc)},
            )
        c_attr = handles[4] if attr is not None else ffi.NULL
        status = lib.dnnl_reorder_primitive_desc_create(out, src_md, c_src_engine, dst_md, c_dst_engine, c_attr)
        if status:
            raise _reorder_refused(status, src_desc, dst_desc, src_engine, dst_engine, attr)
        quantized = None if attr is None else quantized_arguments(attr)
        return open_desc(target, out[0], (src_engine, dst_engine), quantized=quantized, known=known, started=started)


def _reorder_refused(
    status: int, src_desc: MemoryDesc, dst_desc: MemoryDesc, engine: Engine, dst_engine: Engine,
    attr: PrimitiveAttr | None = None,
) -> Exception:
    """The error for a reorder oneDNN refused, with the reason when the binding finds one
    (shapes that differ; a data type an engine lacks): looked for only once refused."""
    function = "dnnl_reorder_primitive_desc_create"
    shapes = _shapes_differ(src_desc, dst_desc)
    reason = shapes.removeprefix(": ") or None
    if reason is None and status == Status.UNIMPLEMENTED:
        reason = data_type_reason(engine.kind, {"src_desc": src_desc}, reorder=True) \
            or data_type_reason(dst_engine.kind, {"dst_desc": dst_desc}, reorder=True)
    detail = (f"oneDNN made no reorder from {src_desc!r} on {engine_in_words(engine)} "
              f"to {dst_desc!r} on {engine_in_words(dst_engine)}")
    if attr is not None:
        detail += f" with the attributes given ({_attr_in_words(attr)})"
    error = status_error(status, function, f"{detail}{shapes}")
    if reason is None or isinstance(error, MissingFunctionError) or not isinstance(error, DnnlError):
        return error
    return make_error(status, function, f"{detail}{shapes or ': ' + reason}", reason)


def _attr_in_words(attr: PrimitiveAttr) -> str:
    """What of ``attr`` a reorder may lack: its scales and zero points, as execute takes them."""
    found = [f"{_attr_arg_name(index)} with mask {mask}{f', groups {groups}' if groups else ''}, "
             f"{dtype.name.lower()}" for index, (mask, groups, dtype) in sorted(quantized_arguments(attr).items())]
    return "; ".join(found) or "post-ops or modes"


def _shapes_differ(src_desc: MemoryDesc, dst_desc: MemoryDesc) -> str:
    """Why a reorder between two shapes is refused, with the way to transpose; "" if they match."""
    src, dst = src_desc.shape, dst_desc.shape
    if src == dst:
        return ""
    hint = f": the shapes differ, {src} and {dst}; a reorder copies one shape into another layout"
    if sorted(src) == sorted(dst) and len(src) == 2:
        transposed = f"MemoryDesc({src}, '{dst_desc.data_type.name.lower()}', 'ba')"
        hint += f" (to transpose, reorder into {transposed}: its data is the {dst} matrix in row-major order)"
    return hint


# --- primitive descriptors and primitive cache blobs ---------------------------

_PD_TYPE = ffi.typeof("dnnl_primitive_desc_t")
_NO_CACHE_BLOBS = (
    "the primitive's engine makes no cache blobs (oneDNN makes them on OpenCL and Level Zero GPU engines only)"
)
_POST_OP_ARGS = lib.DNNL_ARG_ATTR_MULTIPLE_POST_OP_BASE  # post_op_arg(i, arg) is this * (i + 1) | arg
# Every named ARG_* index: the execution arguments a descriptor may describe.
_EXEC_ARG_INDICES = tuple(sorted(set(ARGS.values())))
# The queries oneDNN answers with a memory descriptor, and those it answers with
# a 32-bit int (or enum): any other writes a pointer, an int64 or a double where
# query_md and query_s32 have room for neither.
_MD_QUERIES = frozenset({
    Query.SOME_MD, Query.SRC_MD, Query.DIFF_SRC_MD, Query.WEIGHTS_MD, Query.DIFF_WEIGHTS_MD, Query.DST_MD,
    Query.DIFF_DST_MD, Query.WORKSPACE_MD, Query.SCRATCHPAD_MD, Query.EXEC_ARG_MD,
})
_S32_QUERIES = frozenset({
    Query.PRIMITIVE_KIND, Query.NUM_OF_INPUTS_S32, Query.NUM_OF_OUTPUTS_S32, Query.PROP_KIND, Query.FLAGS,
    Query.ALG_KIND, Query.AXIS_S32, Query.CELL_KIND, Query.DIRECTION, Query.ACTIVATION_KIND,
})


# What a kind defines that help() shows as the class's signature (or not at all).
_SHOWN_AS_THE_SIGNATURE = frozenset({"__new__", "__init__", "__annotations__"})


class _DescType(type):
    """The type of :class:`PrimitiveDesc`: ``dir()`` of a kind, a class below it
    (``MatmulDesc``, ...), lists only what the kind itself defines, not the
    queries it inherits, so that ``help()`` of a kind, and of
    ``dnnl_interop.primitives``, shows each kind's constructor (the class's
    signature) and docstring instead of repeating every method of
    ``PrimitiveDesc`` (documented there once) for each: some 5,900 lines
    for ``help(dnnl_interop.primitives)`` without it, 530 with it. Everything
    else is unchanged: attribute lookup, ``dir()`` of a descriptor (an
    instance), ``isinstance``."""

    def __dir__(cls) -> list[str]:
        if not cls._is_kind():
            return sorted(super().__dir__())  # PrimitiveDesc itself
        return sorted(name for name in vars(cls) if name not in _SHOWN_AS_THE_SIGNATURE)

    @property
    def __signature__(cls) -> inspect.Signature | None:
        """A kind's constructor as help() and the docs show it: its ``__init__``'s
        parameters (Sphinx would otherwise show the ``(*args, **kwargs)`` of the
        ``__new__`` that checks the engine comes first)."""
        if not cls._is_kind():
            return None
        init = next(vars(klass)["__init__"] for klass in cls.__mro__ if "__init__" in vars(klass))
        signature = inspect.signature(init)
        return signature.replace(parameters=list(signature.parameters.values())[1:],
                                 return_annotation=inspect.Signature.empty)

    def _is_kind(cls) -> bool:
        return any(isinstance(base, _DescType) for base in cls.__mro__[1:])


class PrimitiveDesc(Owned, metaclass=_DescType):
    """A primitive descriptor (``dnnl_primitive_desc_t``): a primitive as oneDNN will implement it.

    Made by a kind of ``dnnl_interop.primitives`` (``MatmulDesc``,
    ``ReorderDesc``, ...; each is a PrimitiveDesc and answers the queries
    documented here), by :meth:`reorder`, or adopted by :meth:`from_handle`
    from another cffi module that shares our C types (see
    ``dnnl_interop.embedding``).
    ``Primitive(desc)`` makes the primitive, ``Primitive(desc, cache_blob)``
    makes it from a cache blob, and :func:`make_primitive_cached` does either
    through a :class:`~dnnl_interop.CacheBlobStore`. A descriptor keeps its
    engines alive; primitives made from it keep them too and do not need the
    descriptor afterwards (oneDNN copies it into the primitive).

    Raises:
        TypeError: always, when called: make one with :meth:`reorder` or :meth:`from_handle`.
    """

    # {ARG_*: bytes}, {ARG_*: layout} of the execute arguments, copied by its primitives;
    # _quantized: the scales and zero points of the attributes it was made with;
    # _impl_lock: held by every call on the handle (see _locked)
    __slots__ = ("_arg_sizes", "_arg_layouts", "_required", "_quantized", "_impl_lock")
    _arg_sizes: dict[int, int]
    _arg_layouts: dict[int, tuple[object, ...]]
    _required: tuple[int, ...]  # what execute checks is given before oneDNN reads it (see _set_args)
    _quantized: dict[int, tuple[int, tuple[int, ...], DataType]]
    _ctype = "dnnl_primitive_desc_t"
    _destroy = lib.dnnl_primitive_desc_destroy
    _destroy_name = "dnnl_primitive_desc_destroy"

    def _adopt(self, handle: CData, keep: tuple[Any, ...] = ()) -> None:
        super()._adopt(handle, keep)
        self._holds = _hold_handles(self, keep)
        self._impl_lock = threading.RLock()

    def __init__(self, *args: object, **kwargs: object) -> None:
        raise TypeError(
            "make a PrimitiveDesc with PrimitiveDesc.reorder(...) or adopt one with PrimitiveDesc.from_handle(...)"
        )

    @classmethod
    def reorder(
        cls, src_desc: MemoryDesc, dst_desc: MemoryDesc, engine: Engine, dst_engine: Engine | None = None
    ) -> PrimitiveDesc:
        """The descriptor of the reorder :func:`reorder` makes from the same arguments:
        ``ReorderDesc(engine, src_desc, dst_engine or engine, dst_desc)`` made as a
        plain :class:`PrimitiveDesc` (this order, engine after the descriptors, is the
        binding's older one; ``ReorderDesc`` takes C++'s, and attributes).

        Raises:
            TypeError: an argument is not a :class:`MemoryDesc` or :class:`Engine`.
            ClosedObjectError: a descriptor or engine is closed.
            InvalidArgumentsError: oneDNN refuses the reorder (shapes that differ, for one).
            UnimplementedError: oneDNN has no reorder between these layouts or data types on the
                engine.
        """
        dst_engine = engine if dst_engine is None else dst_engine
        return create_reorder(PrimitiveDesc, engine, src_desc, dst_engine, dst_desc,
                              engine_names=("engine", "dst_engine"))

    @classmethod
    def from_handle(
        cls, handle: object, *, owned: bool = False, engine: Engine | None = None, attr: PrimitiveAttr | None = None
    ) -> PrimitiveDesc:
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

        ``attr``: the :class:`PrimitiveAttr` the descriptor was made with.
        oneDNN cannot tell which scales and zero points a descriptor's
        primitives read (through NULL when they are not given); with ``attr``,
        execute checks them as for a descriptor made here.

        Raises:
            TypeError: ``handle`` is not a pointer of this handle type (or an int), or ``owned``
                is not a bool.
            ValueError: ``handle`` is NULL, or an object of this binding already owns it and
                ``owned=True`` asks to take it over.
            ClosedObjectError: the object of this binding that owns the handle is closed.
            TypeError: ``engine`` is neither an :class:`Engine` nor None, or ``attr`` neither a
                :class:`PrimitiveAttr` nor None.
            ValueError: ``engine`` is not the descriptor's engine.
            ClosedObjectError: ``attr`` is closed.
            DnnlError: oneDNN cannot clone or query the descriptor.
        """
        owned = bool_argument(owned, "owned")
        engine = optional_engine(engine)
        quantized = _quantized_of(attr)
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
        except BaseException:
            adoption.cancel()
            raise
        if not owned:
            adoption.cancel()  # the clone is a descriptor of its own
            return open_desc(cls, out[0], (engine,), quantized=quantized)
        return open_desc(cls, pd, (engine,), quantized=quantized, adoption=adoption)

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
        with _locked(self) as pd:
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
        with _locked(self) as pd:
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

    # --- what oneDNN chose ----------------------------------------------------------

    def query_md(self, what: Query, index: int = 0) -> MemoryDesc | None:
        """The memory descriptor oneDNN answers for ``what`` (``Query.SRC_MD``,
        ``Query.EXEC_ARG_MD``, ...) at ``index``; None where the primitive has none.

        A descriptor of its own, read back from oneDNN: with a "format any"
        argument, the layout oneDNN chose.

        Raises:
            TypeError: ``what`` is not a Query or ``index`` not an int.
            ValueError: ``what`` is no query of a memory descriptor, or ``index`` is negative.
            ClosedObjectError: ``desc`` is closed.
            DnnlError: oneDNN cannot answer.
        """
        what = enum_argument(what, Query, "what")
        if what not in _MD_QUERIES:
            raise ValueError(f"what: Query.{what.name} is not answered with a memory descriptor (Query.SRC_MD, ...)")
        index = count_argument(index, "index") if what != Query.EXEC_ARG_MD else arg_argument(index)
        md = ffi.new("const_dnnl_memory_desc_t *")
        with _locked(self) as pd:
            check(lib.dnnl_primitive_desc_query(pd, int(what), index, md), "dnnl_primitive_desc_query")
            if md[0] == ffi.NULL or (lib.dnnl_memory_desc_get_size(md[0]) == 0 and _ndims(md[0]) == 0):
                return None
            return desc_of(md[0])

    def src_desc(self, index: int = 0) -> MemoryDesc | None:
        """The source descriptor ``index`` (``pd.src_desc()`` in C++): oneDNN's choice for "any".

        Raises:
            TypeError: ``index`` is not an int.
            ValueError: ``index`` is negative.
            ClosedObjectError: ``desc`` is closed.
        """
        return self.query_md(Query.SRC_MD, index)

    def weights_desc(self, index: int = 0) -> MemoryDesc | None:
        """The weights descriptor ``index`` (1: the bias of convolutions, inner products).

        Raises:
            TypeError: ``index`` is not an int.
            ValueError: ``index`` is negative.
            ClosedObjectError: ``desc`` is closed.
        """
        return self.query_md(Query.WEIGHTS_MD, index)

    def bias_desc(self) -> MemoryDesc | None:
        """The bias descriptor (the execute argument ``ARG_BIAS``), None without a bias.

        Raises:
            ClosedObjectError: ``desc`` is closed.
        """
        return self.query_md(Query.EXEC_ARG_MD, lib.DNNL_ARG_BIAS)

    def dst_desc(self, index: int = 0) -> MemoryDesc | None:
        """The destination descriptor ``index``.

        Raises:
            TypeError: ``index`` is not an int.
            ValueError: ``index`` is negative.
            ClosedObjectError: ``desc`` is closed.
        """
        return self.query_md(Query.DST_MD, index)

    def diff_src_desc(self, index: int = 0) -> MemoryDesc | None:
        """The gradient of source ``index`` (``pd.diff_src_desc()`` in C++) of a backward
        primitive: oneDNN's choice for "any".

        Raises:
            TypeError: ``index`` is not an int.
            ValueError: ``index`` is negative.
            ClosedObjectError: ``desc`` is closed.
        """
        return self.query_md(Query.DIFF_SRC_MD, index)

    def diff_weights_desc(self, index: int = 0) -> MemoryDesc | None:
        """The gradient of weights ``index`` (1: of the bias) of a backward primitive.

        Raises:
            TypeError: ``index`` is not an int.
            ValueError: ``index`` is negative.
            ClosedObjectError: ``desc`` is closed.
        """
        return self.query_md(Query.DIFF_WEIGHTS_MD, index)

    def diff_bias_desc(self) -> MemoryDesc | None:
        """The gradient of the bias (``diff_weights_desc(1)``), None without one.

        Raises:
            ClosedObjectError: ``desc`` is closed.
        """
        return self.query_md(Query.DIFF_WEIGHTS_MD, 1)

    def diff_dst_desc(self, index: int = 0) -> MemoryDesc | None:
        """The gradient of destination ``index`` a backward primitive reads.

        Raises:
            TypeError: ``index`` is not an int.
            ValueError: ``index`` is negative.
            ClosedObjectError: ``desc`` is closed.
        """
        return self.query_md(Query.DIFF_DST_MD, index)

    def workspace_desc(self) -> MemoryDesc | None:
        """The workspace descriptor (forward training of pooling, LRN), None without one.

        Raises:
            ClosedObjectError: ``desc`` is closed.
        """
        return self.query_md(Query.WORKSPACE_MD)

    def scratchpad_desc(self) -> MemoryDesc | None:
        """The scratchpad descriptor, None when the primitive needs none: with
        ``ScratchpadMode.USER`` the scratchpad memory is ``ARG_SCRATCHPAD`` at execute.

        Raises:
            ClosedObjectError: ``desc`` is closed.
        """
        return self.query_md(Query.SCRATCHPAD_MD)

    def arg_desc(self, arg: int) -> MemoryDesc | None:
        """The descriptor of execute argument ``arg`` (``ARG_SRC``, ``post_op_arg(0)``, ...).

        Raises:
            TypeError: ``arg`` is not an int.
            ValueError: ``arg`` is no argument index.
            ClosedObjectError: ``desc`` is closed.
        """
        return self.query_md(Query.EXEC_ARG_MD, arg)

    def query_s32(self, what: Query, index: int = 0) -> int:
        """An int oneDNN answers for ``what`` (``Query.NUM_OF_INPUTS_S32``, ...).

        Raises:
            TypeError: ``what`` is not a Query or ``index`` not an int.
            ValueError: ``what`` is no query of a 32-bit int, or ``index`` is negative.
            ClosedObjectError: ``desc`` is closed.
            DnnlError: oneDNN cannot answer.
        """
        what = enum_argument(what, Query, "what")
        if what not in _S32_QUERIES:
            raise ValueError(f"what: Query.{what.name} is not answered with a 32-bit int (Query.PROP_KIND, ...)")
        index = count_argument(index, "index")
        out = ffi.new("int *")
        with _locked(self) as pd:
            check(lib.dnnl_primitive_desc_query(pd, int(what), index, out), "dnnl_primitive_desc_query")
        return int(out[0])

    @property
    def kind(self) -> PrimitiveKind:
        """The primitive kind (``PrimitiveKind.MATMUL``, ...).

        Raises:
            ClosedObjectError: ``desc`` is closed.
            DnnlError: oneDNN cannot answer.
        """
        out = ffi.new("dnnl_primitive_kind_t *")
        with _locked(self) as pd:
            check(lib.dnnl_primitive_desc_query(pd, lib.dnnl_query_primitive_kind, 0, out),
                  "dnnl_primitive_desc_query")
        return PrimitiveKind(out[0])

    def get_attr(self) -> PrimitiveAttr:
        """A copy of the attributes the descriptor was made with (its post-ops, modes, ...).

        Raises:
            ClosedObjectError: ``desc`` is closed.
            DnnlError: oneDNN cannot answer.
        """
        attr = ffi.new("const_dnnl_primitive_attr_t *")
        with _locked(self) as pd:
            check(lib.dnnl_primitive_desc_get_attr(pd, attr), "dnnl_primitive_desc_get_attr")
            copy = PrimitiveAttr._copy_of(attr[0])  # noqa: SLF001 - attribute copy
        copy._quantized = dict(getattr(self, "_quantized", {}))  # noqa: SLF001 - attribute copy
        return copy

    def next_impl(self) -> bool:
        """Move to oneDNN's next implementation of the same primitive; False
        (and the descriptor unchanged) when this was the last.

        Refused for the ``hint_fwd_pd`` of a backward descriptor or primitive
        still open: they were made for the implementation chosen now (its
        workspace, its layouts), and oneDNN keeps a pointer to it, which
        moving on would free. Move on before making the backward descriptor.

        Raises:
            ValueError: ``desc`` is the ``hint_fwd_pd`` of an open backward descriptor or
                primitive.
            ClosedObjectError: ``desc`` is closed.
            DnnlError: oneDNN fails otherwise.
        """
        with _locked(self) as pd:
            held = sum(1 for key in list(self._dependents) if isinstance(key, tuple) and key[0] == _HELD_BY)
            if held:
                raise ValueError(
                    f"desc: this descriptor is the hint_fwd_pd of {held} backward descriptor(s) or primitive(s) "
                    "still open, made for the implementation it has now (its workspace, its layouts); oneDNN "
                    "keeps a pointer to that implementation, which next_impl would free. Call next_impl before "
                    "making the backward descriptor, or close what was made with this hint first"
                )
            status = lib.dnnl_primitive_desc_next_impl(pd)
            if status == lib.dnnl_last_impl_reached:
                return False
            check(status, "dnnl_primitive_desc_next_impl")
            open_desc(self, pd, self._keep, quantized=self._quantized)  # learns the new one's arguments
        return True

    @property
    def arg_sizes(self) -> dict[int, int]:
        """``{ARG_*: bytes}``: the execution arguments the descriptor describes, and their sizes.

        Execute refuses a memory smaller than this at its argument. Covers the
        named ``ARG_*`` indices, the ``ARG_MULTIPLE_SRC``/``DST`` ranges and the
        post-ops' inputs. 0 for an argument of runtime dimensions
        (``RUNTIME_DIM``): its memory's own descriptor sizes it at execute.

        Raises:
            ClosedObjectError: ``desc`` is closed.
        """
        _ = self.handle  # ClosedObjectError once closed
        return dict(self._arg_sizes)


@contextmanager
def _locked(desc: PrimitiveDesc) -> Iterator[CData]:
    """``using`` the descriptor's handle, holding its lock: next_impl replaces the
    implementation oneDNN reads in every other call on it (and the layouts its
    primitives copy), so no two of these calls overlap."""
    with using((desc, PrimitiveDesc, "desc")) as pd, desc._impl_lock:  # noqa: SLF001 - implementation lock
        yield pd


def open_desc(
    target: _P | type[_P],
    handle: CData,
    engines: tuple[Engine | None, ...],
    *,
    hint: PrimitiveDesc | None = None,
    quantized: Mapping[int, _Quantized] | None = None,
    known: tuple[dict[int, int], dict[int, tuple[object, ...]]] | None = None,
    adoption: Adoption | None = None,
    started: float | None = None,
) -> _P:
    """The one door through which a C primitive descriptor becomes a :class:`PrimitiveDesc`:
    made by a kind (``_Kind._create``), a reorder (:func:`create_reorder`), cloned or
    taken over by :meth:`PrimitiveDesc.from_handle`, or moved on by ``next_impl``.

    ``target``: the object to open over ``handle`` (a kind's ``self``, not yet
    open), or the class of a new one. It learns the execute arguments of
    ``handle`` (their sizes and layouts, and those of the scales and zero
    points ``quantized`` records: see ``PrimitiveAttr._quantized``; ``known``
    gives them instead when they are known without asking oneDNN), adopts
    ``handle`` and keeps, and holds, ``engines`` (the first is its
    :attr:`~PrimitiveDesc.engine`) and ``hint``, a backward kind's forward
    descriptor. A ``target`` already open over ``handle`` (after ``next_impl``)
    learns its execute arguments again, of the implementation now chosen, and
    nothing else changes.

    If learning fails, nothing is adopted: ``handle``, just made, is destroyed,
    or ``adoption`` (``from_handle(..., owned=True)``) is cancelled, leaving it to
    its caller. ``started`` (``time.perf_counter()`` before oneDNN made it): the
    creation is logged (see :func:`log_creation`).
    """
    quantized = dict(quantized or {})
    reopened = target if isinstance(target, PrimitiveDesc) and not target.closed else None
    try:
        sizes, layouts = known if known is not None else _exec_args(handle, quantized)
    except BaseException:
        if adoption is not None:
            adoption.cancel()
        elif reopened is None:
            lib.dnnl_primitive_desc_destroy(handle)
        raise
    if reopened is not None:
        _set_args(reopened, sizes, layouts)
        return reopened

    def adopt(desc: _P) -> None:
        desc._adopt(handle, keep=engines if hint is None else (*engines, hint))  # noqa: SLF001 - creation
        _set_args(desc, sizes, layouts)
        desc._quantized = quantized  # noqa: SLF001 - creation

    cls = type(target) if isinstance(target, PrimitiveDesc) else target
    if adoption is not None:
        desc = adoption.finish(cls, adopt)
    else:
        desc = target if isinstance(target, PrimitiveDesc) else cls.__new__(cls)
        adopt(desc)
    if started is not None:
        log_creation(desc, "primitive descriptor", started)
    return desc


def _quantized_of(attr: object) -> dict[int, tuple[int, tuple[int, ...], DataType]]:
    """The scales and zero points ``attr`` (a PrimitiveAttr or None) sets, for ``from_handle``."""
    if attr is None:
        return {}
    if not isinstance(attr, PrimitiveAttr):
        raise TypeError(f"attr: expected a dnnl_interop.PrimitiveAttr or None, got {type(attr).__name__}")
    _ = attr.handle  # ClosedObjectError once closed
    return dict(quantized_arguments(attr))


def _exec_args(
    pd: CData, quantized: Mapping[int, tuple[int, tuple[int, ...], DataType]] | None = None
) -> tuple[dict[int, int], dict[int, tuple[object, ...]]]:
    """``({ARG_*: bytes}, {ARG_*: layout})`` of the arguments ``pd`` has a non-empty
    memory descriptor for: the named ``ARG_*`` indices, the ``ARG_MULTIPLE_SRC``/``DST``
    ranges and the inputs of its binary post-ops; and of the scales and zero points
    of its attributes, ``quantized`` (see ``PrimitiveAttr._quantized``)."""
    count = ffi.new("int *")
    indices = list(_EXEC_ARG_INDICES)
    for query, base in ((lib.dnnl_query_num_of_inputs_s32, lib.DNNL_ARG_MULTIPLE_SRC),
                        (lib.dnnl_query_num_of_outputs_s32, lib.DNNL_ARG_MULTIPLE_DST)):
        check(lib.dnnl_primitive_desc_query(pd, query, 0, count), "dnnl_primitive_desc_query")
        indices += range(base, base + min(max(count[0], 0), lib.DNNL_ARG_MULTIPLE_SRC))
    inputs, prelu_masks = _post_op_inputs(pd)
    indices += inputs
    md = ffi.new("const_dnnl_memory_desc_t *")
    sizes, layouts = {}, {}
    for index in indices:
        check(lib.dnnl_primitive_desc_query(pd, lib.dnnl_query_exec_arg_md, index, md), "dnnl_primitive_desc_query")
        if md[0] != ffi.NULL:
            size = checked(lib.dnnl_memory_desc_get_size(md[0]), "dnnl_memory_desc_get_size")
            if size:
                desc = desc_of(md[0])
                # Runtime dimensions: no size until execute; the memory's own descriptor sizes it.
                sizes[index] = 0 if has_runtime_dims(layout_key(desc)) else size
                layouts[index] = layout_key(desc)
                desc.close()
    for index, mask in prelu_masks.items():
        _prelu_weights(pd, index, mask, sizes, layouts)
    for index, (mask, groups, dtype) in (quantized or {}).items():
        size = _values_size(pd, index, mask, groups, dtype)
        if size:
            sizes[index], layouts[index] = size, (VALUES, dtype)
    return sizes, layouts


def _values_size(pd: CData, index: int, mask: int, groups: tuple[int, ...], dtype: DataType) -> int:
    """The bytes of the scales or zero points oneDNN reads at ``index``: a value for
    each index of the dimensions ``mask`` selects of the argument they apply to (a
    group of the last dimensions sharing one)."""
    md = ffi.new("const_dnnl_memory_desc_t *")
    arg = index & ~(lib.DNNL_ARG_ATTR_SCALES | lib.DNNL_ARG_ATTR_ZERO_POINTS)
    check(lib.dnnl_primitive_desc_query(pd, lib.dnnl_query_exec_arg_md, arg, md), "dnnl_primitive_desc_query")
    dims: tuple[int, ...] = ()
    if md[0] != ffi.NULL:
        n, found = _ndims(md[0]), ffi.new("dnnl_dims_t **")
        check(lib.dnnl_memory_desc_query(md[0], lib.dnnl_query_dims, found), "dnnl_memory_desc_query")
        dims = tuple(found[0][0][0:n])
    if mask >> len(dims):  # oneDNN 3.13 takes such a mask and reads past the values it implies
        raise ValueError(
            f"attr: the mask {mask} of the scales or zero points of args[{arg}] selects a dimension past "
            f"its {len(dims)}"
        )
    count, first_grouped = 1, len(dims) - len(groups)
    for i, dim in enumerate(dims):
        if mask >> i & 1 and dim == RUNTIME_DIM:
            raise ValueError(
                f"attr: the mask {mask} of the scales or zero points of args[{arg}] selects dim {i}, a runtime "
                "dimension: their count would be known only at execute; give that dimension a size, or a mask "
                "without it"
            )
        if mask >> i & 1:
            group = groups[i - first_grouped] if i >= first_grouped else 1
            count *= -(-dim // group) if group > 0 else dim
    with MemoryDesc((count,), dtype, "a") as values:
        return values.size


def _post_op_inputs(pd: CData) -> tuple[list[int], dict[int, int]]:
    """The execute arguments of the inputs of ``pd``'s post-ops that ``pd`` describes
    (a binary's second and third inputs, a depthwise convolution's weights and bias),
    and ``{argument: mask}`` of its PReLU post-ops' weights, which it does not."""
    if not has_function("dnnl_primitive_desc_get_attr"):
        return [], {}
    attr, ops = ffi.new("const_dnnl_primitive_attr_t *"), ffi.new("const_dnnl_post_ops_t *")
    check(lib.dnnl_primitive_desc_get_attr(pd, attr), "dnnl_primitive_desc_get_attr")
    check(lib.dnnl_primitive_attr_get_post_ops(attr[0], ops), "dnnl_primitive_attr_get_post_ops")
    inputs: list[int] = []
    prelu: dict[int, int] = {}
    mask = ffi.new("int *")
    alg, src1 = ffi.new("dnnl_alg_kind_t *"), ffi.new("const_dnnl_memory_desc_t *")
    for i in range(lib.dnnl_post_ops_len(ops[0])):
        kind = lib.dnnl_post_ops_get_kind(ops[0], i)
        if kind == lib.dnnl_binary:
            inputs.append(post_op_arg(i))
            # Only a select has a third input: what oneDNN 3.13 answers for another
            # binary's is not always a zero descriptor (a CI run saw it describe one).
            check(lib.dnnl_post_ops_get_params_binary(ops[0], i, alg, src1), "dnnl_post_ops_get_params_binary")
            if alg[0] == lib.dnnl_binary_select:
                inputs.append(post_op_arg(i, lib.DNNL_ARG_SRC_2))
        elif kind == lib.dnnl_convolution:
            dw = lib.DNNL_ARG_ATTR_POST_OP_DW
            inputs += (dw | lib.DNNL_ARG_WEIGHTS, dw | lib.DNNL_ARG_BIAS)
        elif kind == lib.dnnl_prelu:
            check(lib.dnnl_post_ops_get_params_prelu(ops[0], i, mask), "dnnl_post_ops_get_params_prelu")
            prelu[post_op_arg(i, lib.DNNL_ARG_WEIGHTS)] = int(mask[0])
    return inputs, prelu


def _prelu_weights(
    pd: CData, index: int, mask: int, sizes: dict[int, int], layouts: dict[int, tuple[object, ...]]
) -> None:
    """Record the weights of a PReLU post-op at ``index``: f32, of dst's shape where
    ``mask`` sets a bit and 1 elsewhere, in the layout oneDNN reads whatever their memory's
    descriptor says: plain, channels last from 3 dimensions (``PRELU_TAGS``, seen in 3.13.2)."""
    md = ffi.new("const_dnnl_memory_desc_t *")
    check(lib.dnnl_primitive_desc_query(pd, lib.dnnl_query_exec_arg_md, lib.DNNL_ARG_DST, md),
          "dnnl_primitive_desc_query")
    if md[0] == ffi.NULL:
        return
    n, found = _ndims(md[0]), ffi.new("dnnl_dims_t **")
    check(lib.dnnl_memory_desc_query(md[0], lib.dnnl_query_dims, found), "dnnl_memory_desc_query")
    if not 0 < n <= 5:
        return
    shape = tuple(d if mask >> i & 1 else 1 for i, d in enumerate(found[0][0][0:n]))
    with MemoryDesc(shape, DataType.F32, PRELU_TAGS[n]) as weights:
        sizes[index] = 0 if has_runtime_dims(layout_key(weights)) else weights.size
        layouts[index] = layout_key(weights)


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
    out = new_out(Primitive)
    # the implementation made is the one whose layouts are copied
    with use as pd, desc._impl_lock:  # noqa: SLF001 - implementation lock
        started = time.perf_counter()
        if cache_blob is None:
            check(lib.dnnl_primitive_create(out, pd), "dnnl_primitive_create")
        else:
            status = lib.dnnl_primitive_create_from_cache_blob(out, pd, len(blob), blob)
            if status:
                raise _cache_blob_error(status, "dnnl_primitive_create_from_cache_blob")
        scratchpad = _user_scratchpad(pd)
        primitive._adopt(out[0], keep=desc._keep if scratchpad is None else (*desc._keep, scratchpad))  # noqa: SLF001 - creation
        _set_args(primitive, desc._arg_sizes, desc._arg_layouts)  # noqa: SLF001 - a descriptor's records
        if scratchpad is not None:
            primitive._scratchpads = weakref.WeakKeyDictionary()  # noqa: SLF001 - creation
            primitive._execute_record = None  # noqa: SLF001 - creation: its scratchpads are the Python path's
    log_creation(desc, "primitive", started, "" if cache_blob is None else f" from a {len(blob)}-byte cache blob")


def _user_scratchpad(pd: CData) -> MemoryDesc | None:
    """The scratchpad descriptor of a descriptor made with ``ScratchpadMode.USER``
    that needs one; None otherwise (oneDNN then manages it, or none is needed)."""
    if not has_function("dnnl_primitive_desc_get_attr"):
        return None
    attr, mode = ffi.new("const_dnnl_primitive_attr_t *"), ffi.new("dnnl_scratchpad_mode_t *")
    check(lib.dnnl_primitive_desc_get_attr(pd, attr), "dnnl_primitive_desc_get_attr")
    check(lib.dnnl_primitive_attr_get_scratchpad_mode(attr[0], mode), "dnnl_primitive_attr_get_scratchpad_mode")
    if mode[0] != lib.dnnl_scratchpad_mode_user:
        return None
    md = ffi.new("const_dnnl_memory_desc_t *")
    check(lib.dnnl_primitive_desc_query(pd, lib.dnnl_query_scratchpad_md, 0, md), "dnnl_primitive_desc_query")
    if md[0] == ffi.NULL or not lib.dnnl_memory_desc_get_size(md[0]):
        return None
    return desc_of(md[0])


def _primitive_cache_blob(primitive: Primitive) -> bytes:
    with using((primitive, Primitive, "primitive")) as c_primitive:
        try:
            return query_then_fill(lib.dnnl_primitive_get_cache_blob, "dnnl_primitive_get_cache_blob", c_primitive)
        except UnimplementedError as error:
            if isinstance(error, MissingFunctionError) or error.detail:
                raise
            raise _cache_blob_error(int(error.status), error.function) from None




def _ndims(md: CData) -> int:
    out = ffi.new("int *")
    check(lib.dnnl_memory_desc_query(md, lib.dnnl_query_ndims_s32, out), "dnnl_memory_desc_query")
    return int(out[0])


def reordered(memory: Memory, desc: MemoryDesc, stream: Stream) -> Memory:
    """``memory`` in the layout of ``desc``: ``memory`` itself when its layout is
    already that one (nothing is done), else a new Memory of ``desc`` on the
    same engine, filled by a reorder submitted to ``stream``.

    The usual step after a "format any" primitive descriptor chose a layout:
    ``weights = reordered(user_weights, pd.weights_desc(), stream)``. The reorder
    runs asynchronously like any execute; the new memory is ready for work
    submitted to ``stream`` after it (or after ``stream.wait()``).

    Raises:
        TypeError: ``memory``, ``desc`` or ``stream`` is of another type.
        ValueError: ``desc`` is not a layout of the same shape and data type.
        ClosedObjectError: an argument is closed.
        DnnlError: oneDNN has no reorder between the two layouts.
    """
    if not isinstance(memory, Memory):
        raise TypeError(f"memory: expected a dnnl_interop.Memory, got {type(memory).__name__}")
    if not isinstance(desc, MemoryDesc):
        raise TypeError(f"desc: expected a dnnl_interop.MemoryDesc, got {type(desc).__name__}")
    if not isinstance(stream, Stream):
        raise TypeError(f"stream: expected a dnnl_interop.Stream, got {type(stream).__name__}")
    with using((memory, Memory, "memory"), (desc, MemoryDesc, "desc"), (stream, Stream, "stream")):
        given = memory.desc  # a closed argument is refused by its name first
        if layout_key(given) is layout_key(desc) or given == desc:
            return memory
    if (given.shape, given.data_type) != (desc.shape, desc.data_type):
        raise ValueError(
            f"desc: {desc!r} is not a layout of the memory's shape and data type ({given!r}); a reorder "
            "changes the layout only"
        )
    engine = memory.engine
    target = Memory(desc, engine)
    # Not closed here (that would wait): the stream keeps it until the reorder is done.
    reorder(given, desc, engine).execute(stream, {lib.DNNL_ARG_FROM: memory, lib.DNNL_ARG_TO: target})
    return target


def _set_args(obj: Primitive | PrimitiveDesc, sizes: dict[int, int], layouts: dict[int, tuple[object, ...]]) -> None:
    """Record the execute arguments ``obj`` describes: their sizes, layouts, and
    the ones oneDNN reads without checking they are given (through NULL: a
    crash), which execute checks first: scales, zero points, a user scratchpad;
    and a workspace, whose absence execute explains."""
    obj._arg_sizes, obj._arg_layouts = sizes, layouts  # noqa: SLF001 - execute record
    # The post-ops' weights too (PReLU, depthwise convolution) and the depthwise bias; and the
    # arguments of runtime dimensions, last (execute then checks the memories' shapes agree,
    # see _runtime_dims).
    prelu, dw = lib.DNNL_ARG_WEIGHTS, lib.DNNL_ARG_ATTR_POST_OP_DW
    required = [index for index, layout in layouts.items()
                if layout[0] == VALUES or index in (lib.DNNL_ARG_SCRATCHPAD, lib.DNNL_ARG_WORKSPACE,
                                                    dw | lib.DNNL_ARG_WEIGHTS, dw | lib.DNNL_ARG_BIAS)
                or (index >= _POST_OP_ARGS and index % _POST_OP_ARGS == prelu)]
    required = [index for index in required if not has_runtime_dims(layouts[index])]
    runtime_dims = tuple(index for index, layout in layouts.items() if has_runtime_dims(layout))
    obj._required = (*required, *runtime_dims)  # noqa: SLF001 - execute record
    if isinstance(obj, Primitive):
        # The C fast path (csrc/fastpath.c) checks the required arguments are given, and a workspace's
        # origin, itself; scales, zero points and runtime dimensions it leaves to submit's checks.
        in_python = runtime_dims or any(layouts[index][0] == VALUES for index in required)
        obj._execute_record = None if in_python else (sizes, layouts, obj._required)  # noqa: SLF001 - execute record
