"""Cached creation: engines and primitives made from the blobs of a cache-blob store.

``ocl.make_engine_cached``, ``ze.make_engine_cached``,
``dnnl_interop.make_primitive_cached`` and ``dnnl_interop.reorder_cached``
follow one rule with a :class:`~dnnl_interop.cache.CacheBlobStore`:

* **hit** (the store has an entry for the key and it passed every check:
  format, lengths, checksum, full key): the object is made from the blob;
* **refused** (oneDNN returns an error for the blob, the binding's check of
  an engine blob's layout refuses it, or oneDNN makes an engine that does
  not give the same blob back): the object is made afresh and the entry
  rewritten with its blob (removed if it has none). A caller's mistake
  refused on the blob path is raised by the fresh creation that follows;
* **miss**: the object is made afresh and its blob saved.

Only blobs the store verified reach oneDNN, which checks little itself. In
a process that does not know the device yet, oneDNN 3.13 takes any bytes as
an engine blob and keeps them as the device's description for the rest of
the process (a truncated blob gives engines that make no primitives, garbage
can end the process); a primitive blob with one flipped bit can crash the
OpenCL compiler in the driver. Once a process knows the device, oneDNN
ignores engine blobs: an engine made from an entry then gives back its own
blob, and an entry that differs is rewritten.

Keys: an engine's entry is its device's engine cache-blob id; a primitive's
is ``compose_key(engine blob id, PrimitiveDesc.cache_blob_id)``; the runtime
is the engine's (``"ocl"`` or ``"ze"``). Engines and descriptors without an
id (the CPU engine) are made afresh without the store.

The store never fails a creation: it logs its own I/O problems and answers
a miss or does not save. Refused blobs are logged as warnings; hits, misses
(with the time each creation took), saves, and objects made without the
store at debug level, all on the ``dnnl_interop.cache`` logger.

``store=None`` means :func:`default_store`: one store for the process, in
:func:`dnnl_interop.cache.default_directory`, made at first use.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import TypeVar

from ._engine import Engine
from ._ffi import ffi, lib
from ._library import check
from ._memory_desc import MemoryDesc
from ._owned import Owned, using
from ._primitive import Primitive, PrimitiveDesc
from ._runtime import engine_blob_id
from .cache import CacheBlobStore, compose_key
from .errors import DnnlError

_Made = TypeVar("_Made", bound=Owned)  # an Engine or a Primitive

logger = logging.getLogger("dnnl_interop.cache")

_default_store: CacheBlobStore | None = None
_default_lock = threading.Lock()


def default_store() -> CacheBlobStore:
    """The store cached creation uses when given ``store=None`` (made at first use)."""
    global _default_store
    store = _default_store
    if store is None:
        with _default_lock:
            if _default_store is None:
                _default_store = CacheBlobStore()
            store = _default_store
    return store


def _store_argument(store: object) -> CacheBlobStore:
    if store is None:
        return default_store()
    if not isinstance(store, CacheBlobStore):
        raise TypeError(f"store: expected a dnnl_interop.CacheBlobStore or None, got {type(store).__name__}")
    return store


def _create_cached(
    what: str,
    runtime: str,
    key: bytes,
    store: CacheBlobStore,
    from_blob: Callable[[bytes], _Made],
    fresh: Callable[[], _Made],
    blob_of: Callable[[_Made], bytes],
    gives_blob_back: bool,
) -> _Made:
    """``from_blob(blob)`` on a verified hit, else ``fresh()``, whose blob is then saved.

    ``gives_blob_back``: an object made from a blob must return that blob
    from ``blob_of``, else it counts as refused (engines: oneDNN accepts any
    bytes without an error).
    """
    blob = store.get(runtime, key)
    refusal = None
    if blob is not None:
        started = time.perf_counter()
        try:
            made = from_blob(blob)
        except (DnnlError, ValueError) as error:  # oneDNN's refusal, or the binding's check of the blob
            refusal = f"refused: {error}"
        else:
            if not gives_blob_back or _blob_or_none(made, blob_of) == blob:
                if logger.isEnabledFor(logging.DEBUG):
                    logger.debug("%s: cache hit; made from the %d-byte blob in %s in %.2f ms", what, len(blob),
                                 store.path_for(runtime, key), _ms_since(started))
                return made
            made.close()
            refusal = "oneDNN made the engine from it but gives back another blob"
    elif logger.isEnabledFor(logging.DEBUG):
        logger.debug("%s: cache miss; no entry %s", what, store.path_for(runtime, key))
    started = time.perf_counter()
    made = fresh()  # raises what a fresh creation raises: then the blob was not the reason
    if refusal is not None:
        logger.warning("%s: the cache blob in %s was not used: %s; made afresh in %.2f ms, rewriting the entry",
                       what, store.path_for(runtime, key), refusal, _ms_since(started))
    elif logger.isEnabledFor(logging.DEBUG):
        logger.debug("%s: made afresh in %.2f ms", what, _ms_since(started))
    new_blob = _blob_or_none(made, blob_of)
    if new_blob:
        if store.put(runtime, key, new_blob):
            logger.debug("%s made afresh; its %d-byte cache blob saved", what, len(new_blob))
    elif refusal is not None:
        try:
            store.delete(runtime, key)
        except OSError as error:
            logger.warning("%s: could not remove the refused entry %s (%s)", what, store.path_for(runtime, key), error)
    return made


def _ms_since(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def _blob_or_none(made: _Made, blob_of: Callable[[_Made], bytes]) -> bytes | None:
    try:
        return blob_of(made)
    except DnnlError as error:
        logger.debug("no cache blob to save: %s", error)
        return None


def make_engine_cached(
    runtime: str,
    blob_id: Callable[[], bytes],
    store: object,
    make_engine: Callable[[bytes | None], Engine],
    get_blob: Callable[[Engine], bytes],
) -> Engine:
    """An engine of ``runtime``, keyed by its device's id ``blob_id()``.

    ``make_engine(blob)`` makes it from a blob, ``make_engine(None)`` afresh.
    """
    store = _store_argument(store)
    key = blob_id()
    name = "OpenCL engine" if runtime == "ocl" else "Level Zero engine"
    if not key:
        logger.debug("%s: the device has no engine cache-blob id; made without the store", name)
        return make_engine(None)
    return _create_cached(
        name, runtime, key, store, make_engine, lambda: make_engine(None), get_blob, gives_blob_back=True
    )


def make_primitive_cached(desc: PrimitiveDesc, store: CacheBlobStore | None = None) -> Primitive:
    """The primitive of ``desc``, made from a cache blob of ``store`` when it has a sound one.

    The entry's key is ``compose_key(engine blob id, desc.cache_blob_id)``
    (see ``dnnl_interop.cache``): a blob is only found for the very device,
    oneDNN build and primitive it was made for. A hit makes the primitive
    from the verified blob; if oneDNN refuses it, the primitive is made
    afresh and the entry rewritten; a miss makes it afresh and saves its
    blob. Engines that make no cache blobs (CPU) make it afresh without the
    store. ``store`` is a :class:`~dnnl_interop.CacheBlobStore`, or None for
    the default store (in :func:`dnnl_interop.cache.default_directory`). A
    store that cannot be read or written logs a warning (logger
    ``dnnl_interop.cache``) and never fails the creation.

    Raises:
        TypeError: ``desc`` is not a :class:`PrimitiveDesc`, or ``store`` not a
            :class:`~dnnl_interop.CacheBlobStore` or None.
        ClosedObjectError: ``desc`` is closed.
        DnnlError: oneDNN cannot make the primitive afresh (a refused blob is not an error).
    """
    if not isinstance(desc, PrimitiveDesc):
        raise TypeError(f"desc: expected a dnnl_interop.PrimitiveDesc, got {type(desc).__name__}")
    store = _store_argument(store)
    runtime, engine_id = _engine_blob_id_of(desc)
    primitive_blob_id = desc.cache_blob_id if engine_id else b""
    if not primitive_blob_id or runtime is None:  # runtime is None only without an engine blob id
        logger.debug("primitive: %s; made without the store", "the descriptor has no cache-blob id" if engine_id
                     else "its engine makes no cache blobs (the CPU engine)")
        return Primitive(desc)
    return _create_cached(
        "primitive", runtime, compose_key(engine_id, primitive_blob_id), store,
        lambda blob: Primitive(desc, blob), lambda: Primitive(desc), Primitive.get_cache_blob,
        gives_blob_back=False,  # oneDNN checks a primitive blob's kernels itself
    )


def _engine_blob_id_of(desc: PrimitiveDesc) -> tuple[str | None, bytes]:
    """``(runtime, engine blob id)`` of the engine ``desc`` was made on; ``(None, b"")`` if it has none.

    Read from the C engine, so descriptors adopted without their Engine work too.
    """
    c_engine = ffi.new("dnnl_engine_t *")
    with using((desc, PrimitiveDesc, "desc")) as pd:
        check(lib.dnnl_primitive_desc_query(pd, lib.dnnl_query_engine, 0, c_engine), "dnnl_primitive_desc_query")
        return engine_blob_id(c_engine[0])


def reorder_cached(
    src_desc: MemoryDesc,
    dst_desc: MemoryDesc,
    engine: Engine,
    dst_engine: Engine | None = None,
    store: CacheBlobStore | None = None,
) -> Primitive:
    """:func:`reorder`, through :func:`make_primitive_cached` with ``store``.

    Raises:
        TypeError: an argument is of another type (as in :func:`reorder` and
            :func:`make_primitive_cached`).
        ClosedObjectError: a descriptor or engine is closed.
        DnnlError: oneDNN refuses the reorder, as in :func:`reorder`.
    """
    desc = PrimitiveDesc.reorder(src_desc, dst_desc, engine, dst_engine)
    try:
        return make_primitive_cached(desc, store)
    finally:
        desc.close()
