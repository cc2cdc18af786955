"""What the OpenCL and Level Zero modules share: required handles, memory
handles, getters, memory construction and the library version that cache
blobs are checked against."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ._buffers import device_handle
from ._execution import ENGINE_NAMES
from ._ffi import ffi, lib
from ._handles import address_of, as_handle
from ._library import check, checked
from ._library import version as _version
from ._owned import using
from .core import _INTEROP_MEMORY, MEMORY_ALLOCATE, Engine, Memory, MemoryDesc
from .errors import InvalidArgumentsError, make_error

if TYPE_CHECKING:
    from types import TracebackType

    from ._ffi import CData, CType

# A getter of the C API: status = function(object handle, type *out).
Getter = Callable[["CData", "CData"], int]

_MAKERS = {"ocl": "ocl.make_engine", "ze": "ze.make_engine"}


class explain_runtime:  # lower case: reads as a phrase, ``with explain_runtime(...)``
    """Context manager: oneDNN's INVALID_ARGUMENTS, explained when an object is
    of another runtime than the function's (a CPU engine given to ``ocl.*``).

    Only on failure: a successful call pays for the ``with`` alone.
    """

    __slots__ = ("_runtime", "_objects")

    def __init__(self, runtime: str, *objects: tuple[object, str]):
        self._runtime, self._objects = runtime, objects

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        if not isinstance(error, InvalidArgumentsError) or error.detail:
            return
        for obj, what in self._objects:
            try:
                engine = obj if isinstance(obj, Engine) else obj.engine  # type: ignore[attr-defined]
            except Exception:  # not an owned object, or closed: nothing to say
                continue
            if isinstance(engine, Engine) and engine._runtime != self._runtime:
                thing = "" if obj is engine else f"a {type(obj).__name__} on "
                detail = (
                    f"{what}: {thing}{ENGINE_NAMES[engine._runtime]}; "
                    f"it needs {ENGINE_NAMES[self._runtime]} ({_MAKERS[self._runtime]})"
                )
                raise make_error(error.status, error.function, detail) from None


def required_handle(obj: object, ctype: CType | str, what: str) -> CData:
    """``obj`` as a ``ctype`` handle; None (NULL) is refused, oneDNN needs one."""
    if obj is None:
        raise TypeError(f"{what}: None given; a handle is required")
    handle = as_handle(obj, ctype, what)
    if handle == ffi.NULL:
        raise ValueError(f"{what}: a NULL handle given; a handle is required")
    return handle


def get_handle(function: Getter, name: str, owned: object, cls: type, what: str, ctype: str, runtime: str) -> CData:
    """Call a oneDNN getter ``function(handle, ctype *out)``; the ``ctype`` it wrote."""
    out = ffi.new(ctype + " *")
    with explain_runtime(runtime, (owned, what)), using((owned, cls, what)) as handle:
        check(function(handle, out), name)
    written: CData = out[0]
    return written


def get_address(function: Getter, name: str, owned: object, cls: type, what: str, ctype: str, runtime: str) -> int:
    """:func:`get_handle`, as the address it wrote."""
    return address_of(get_handle(function, name, owned, cls, what, ctype, runtime))


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
                data_type = desc.data_type if i == 0 else None
                pointer, kept = device_handle(handle, size, data_type, f"{what}[{i}]", runtime)
                if i and not size:
                    raise ValueError(f"{what}[{i}]: the descriptor has no buffer {i}")
                pointers.append(pointer)
                keep.append(kept)
        return pointers, tuple(keep), True
    pointer, kept = device_handle(handles, desc.size, desc.data_type, what, runtime)
    return [pointer], kept, False


def create_memory(
    into: Memory | None,
    create: Callable[..., int],
    name: str,
    desc: MemoryDesc,
    engine: Engine,
    pointers: list[CData],
    keep: object,
    *extra: object,
) -> Memory:
    """``create(out, md, engine, *extra)`` makes a memory over ``pointers``.

    The handle goes to ``into`` (a Memory being constructed) or a new Memory.
    """
    out = Memory._new_out()
    memory = Memory.__new__(Memory) if into is None else into
    runtime = "ze" if "_ze_" in name else "ocl"
    with explain_runtime(runtime, (engine, "engine")), \
            using((desc, MemoryDesc, "desc"), (engine, Engine, "engine")) as (md, c_engine):
        check(create(out, md, c_engine, *extra), name)
        memory._adopt(out[0], keep=(desc, engine, keep))
        memory._use_data(pointers, keep)
    return memory


def register_memory_maker(runtime: str, maker: Callable[[Memory, MemoryDesc, Engine, object], Memory]) -> None:
    """``Memory(desc, engine, buffer)`` on an engine of ``runtime`` calls
    ``maker(memory, desc, engine, buffer)``: this SYCL build's generic memory
    constructor refuses OpenCL and Level Zero engines."""
    _INTEROP_MEMORY[runtime] = maker


def library_version() -> tuple[int, int]:
    """(major, minor) of the bound oneDNN, for the engine cache-blob check."""
    found = _version()
    return found.major, found.minor
