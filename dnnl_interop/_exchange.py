"""DLPack tensors of other libraries taken in as Memory without a copy:
:func:`from_dlpack`.

The memory uses the producer's buffer where it lies and keeps the producer
alive (a DLPack tensor: its deleter is called exactly once, when the memory's
handle is destroyed). A read-only tensor gives a memory that execute refuses
where oneDNN writes (``Memory._mark_read_only``).

Its usual call, a writable host tensor on the CPU engine, is one C call
(``_memory.over_capsule``); :func:`_from_capsule` takes every other capsule.
dpctl's ``__sycl_usm_array_interface__`` comes in through ``Memory.from_array``.
"""

from __future__ import annotations

import threading
import weakref

from ._dlpack import DEVICE_NAMES, KDL_CPU, KDL_ONEAPI, READ_ONLY, Taken, take
from ._engine import Engine, runtime_of
from ._enums import EngineKind
from ._memory import Memory, memory_over, over_capsule
from ._sycl_memory import oneapi_engine

__all__ = ["from_dlpack"]

_default_engine: list[weakref.ref[Engine]] = []
_default_lock = threading.Lock()


def cpu_engine() -> Engine:
    """The CPU engine ``from_dlpack`` uses for a kDLCPU tensor when given none: shared by
    the memories made so, and made again once none is left (or it was closed)."""
    with _default_lock:
        engine = _default_engine[0]() if _default_engine else None
        if engine is None or engine.closed:
            engine = Engine(EngineKind.CPU, 0)
            _default_engine[:] = [weakref.ref(engine)]
        return engine


def from_dlpack(x: object, /, *, engine: Engine | None = None, copy: bool | None = None) -> Memory:
    """A :class:`Memory` over the data of ``x``, any object with ``__dlpack__``
    (a numpy array, a torch tensor, a Memory, ...), as ``numpy.from_dlpack``.

    ``engine``: the engine the memory lives on. For a kDLCPU tensor, None
    takes a CPU engine shared by the memories made so (``memory.engine``;
    made again once none of them is left), and a CPU engine given is used; for a
    kDLOneAPI (USM) tensor a SYCL, OpenCL or Level Zero engine of the context
    the pointer belongs to, and None takes a SYCL engine of the tensor's
    device in its platform's default context, where such tensors live
    (shared like the CPU one; it needs dpctl). ``copy``:
    passed on to the producer (``copy=True`` asks it for a copy,
    ``copy=False`` forbids one); no copy is made here.

    The memory uses the tensor's data where it lies (its descriptor is the
    tensor's shape, data type and strides) and keeps the producer's tensor
    until the memory's handle is destroyed, then calls its deleter once. A
    read-only tensor (numpy's read-only arrays, ``READ_ONLY``) gives a memory
    that execute refuses as an output (dst, diff_src, workspace, ...).

    Raises:
        TypeError: ``x`` has no ``__dlpack__``, it gives no DLPack capsule, or ``engine`` is no Engine.
        BufferError: the tensor cannot be a memory of ``engine``: another device (kDLCUDA, ...),
            a data type or layout oneDNN has no descriptor for (sub-byte or vector types,
            negative strides), a kDLOneAPI tensor without an engine and without dpctl; or the producer refuses.
        ClosedObjectError: ``engine`` is closed.
    """
    method = getattr(type(x), "__dlpack__", None)
    if method is None:
        raise TypeError(f"x: a {type(x).__name__} has no __dlpack__ (it is no DLPack producer)")
    if engine is not None and not isinstance(engine, Engine):
        raise TypeError(f"engine: expected a dnnl_interop.Engine or None, got {type(engine).__name__}")
    if copy is not None and copy is not True and copy is not False:
        raise TypeError(f"copy: expected None, True or False, got {copy!r}")
    try:
        capsule = method(x, max_version=(1, 1), copy=copy)
    except TypeError:  # a producer of before the array API's 2023 revision: no keywords
        if copy is not None:
            raise
        capsule = method(x)
    # The usual call, a writable host tensor: one C call on the engine given or, given none, on
    # the shared CPU engine while it lives (None: not that case, the capsule untaken).
    target = engine if engine is not None else _shared_cpu_engine()
    memory = over_capsule(capsule, target) if target is not None else None
    return memory if memory is not None else _from_capsule(capsule, engine, "x")


def _shared_cpu_engine() -> Engine | None:
    """The CPU engine ``cpu_engine`` shares, if one lives (None otherwise: ``cpu_engine`` makes it)."""
    engine = _default_engine[0]() if _default_engine else None
    return engine if engine is not None and not engine.closed else None


def _from_capsule(capsule: object, engine: Engine | None, what: str) -> Memory:
    """A Memory over the tensor of a DLPack ``capsule`` (taken, renamed, released with the
    memory), in Python: :func:`from_dlpack`'s every case, every check."""
    taken = take(capsule, what)
    device = taken.device
    if device[0] == KDL_CPU:
        if engine is None:
            engine = cpu_engine()
        elif runtime_of(engine) != "native":
            raise BufferError(f"engine: a host tensor (kDLCPU) is memory of the CPU engine, not of {engine!r}")
    elif device[0] == KDL_ONEAPI:
        if engine is None:
            engine = oneapi_engine(device[1], what)
            try:
                return _memory_over(taken, engine, what)
            except ValueError as error:  # not USM of the device's default context
                raise BufferError(
                    f"{error}; a kDLOneAPI tensor of another context needs its engine: from_dlpack(x, engine=...)"
                ) from None
        elif runtime_of(engine) == "native":
            raise BufferError(
                f"engine: a USM tensor (kDLOneAPI, device {device[1]}) needs the SYCL, OpenCL or Level Zero "
                "engine of its context (from_dlpack(x, engine=...)), or engine=None for a SYCL engine of "
                "its device"
            )
    else:
        raise BufferError(
            f"{what}: a tensor on {DEVICE_NAMES.get(device[0], device[0])} (device {device[1]}); oneDNN here "
            "takes kDLCPU (the CPU engine) and kDLOneAPI (USM) tensors"
        )
    return _memory_over(taken, engine, what)


def _memory_over(taken: Taken, engine: Engine, what: str) -> Memory:
    """A Memory of ``engine`` over the taken tensor (its data type checked first)."""
    if taken.data_type is None:
        code, bits, lanes = taken.code
        raise BufferError(f"{what}: DLPack data type (code {code}, {bits} bits, {lanes} lanes) has no oneDNN type")
    return memory_over(taken, taken.address, taken.shape, taken.data_type, taken.strides,
                       bool(taken.flags & READ_ONLY), engine, what)
