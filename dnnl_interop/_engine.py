"""Engines (``dnnl_engine_t``), and how engines and their runtimes are told apart.

An engine's runtime ("native" for CPU and SYCL engines, "ocl", "ze") is read
from oneDNN when the engine is made or adopted; the interop functions and
the messages of failed calls use it.
"""

from __future__ import annotations

import os
from _weakref import ref as _weak_reference
from typing import TYPE_CHECKING, Any

from ._enums import EngineKind
from ._ffi import ffi, lib
from ._handles import address_of
from ._library import check, checked, status_error
from ._owned import Adoption, Owned, foreign_pointer, holder_of, using
from ._runtime import ENGINE_MAKERS, ENGINE_NAMES, engine_runtime
from ._validate import bool_argument, count_argument, enum_argument
from .errors import ClosedObjectError, InvalidArgumentsError, make_error

if TYPE_CHECKING:
    from types import TracebackType

    from ._ffi import CData

__all__ = ["EngineKind", "Engine"]

_ENGINE_TYPE = ffi.typeof("dnnl_engine_t")


class Engine(Owned):
    """An execution engine (``dnnl_engine_t``).

    Closing an engine closes its streams first: a oneDNN stream must never
    outlive its engine. (Memory and primitives retain theirs inside oneDNN.)
    If a stream cannot be reached (a finalizer in a reference cycle), the
    engine's handle is destroyed after that stream's.

    Raises:
        TypeError: ``kind`` is not an :class:`EngineKind` or ``index`` not an int.
        ValueError: ``kind`` is no engine kind, or ``index`` is negative.
        InvalidArgumentsError: oneDNN has no engine of ``kind`` at ``index`` (the message says
            how many it sees; for the CPU engine, ``python -m dnnl_interop info`` checks the
            set-up).
        LibraryNotFoundError: no oneDNN library can be loaded (at the first call into oneDNN).
    """

    __slots__ = ("_streams", "_runtime")  # weak references to its streams; "cpu", "ocl", "ze"
    _ctype = "dnnl_engine_t"
    _destroy = lib.dnnl_engine_destroy
    _destroy_name = "dnnl_engine_destroy"

    _streams: list[_weak_reference[Owned]]  # its Streams
    _runtime: str

    def _adopt(self, handle: CData, keep: tuple[Any, ...] = (), runtime: str = "native") -> None:
        super()._adopt(handle, keep)
        self._streams = []
        self._runtime = runtime

    @classmethod
    def _from_handle(cls, handle: CData, keep: tuple[Any, ...] = (), runtime: str = "native") -> Engine:
        engine: Engine = cls.__new__(cls)
        engine._adopt(handle, keep, runtime)
        return engine

    def _add_stream(self, stream: Owned) -> None:
        """Register a stream just made on this engine. Holds the shared lock.

        Refused once the engine is closed (see ``_owned``: an engine takes its
        handle out under the same lock before it closes its streams).
        """
        if self._handle is None:
            raise ClosedObjectError("engine: this Engine was closed while the stream was being made")
        if len(self._streams) >= 64:  # forget streams already gone
            self._streams = [ref for ref in self._streams if ref() is not None]
        self._streams.append(_weak_reference(stream))

    def close(self) -> None:
        """Close the engine's streams, then destroy its handle after the work that uses it.

        The engine is closed first, so a stream being made meanwhile in another
        thread is refused; the streams it has are then closed, and the handle is
        destroyed once the last of them is.

        Raises:
            DnnlError: oneDNN fails to destroy the handle (closing twice, or a closed object,
                raises nothing).
        """
        if getattr(self, "_handle", None) is None:
            return
        with self._shared.lock:  # no stream registers from here on (_add_stream)
            streams, self._streams = self._streams, []
            self._close_handle()  # deferred while its streams use it
        for ref in streams:
            stream = ref()
            if stream is not None:
                stream.close()

    def __init__(self, kind: EngineKind = EngineKind.CPU, index: int = 0):
        self._refuse_reinit()
        kind = enum_argument(kind, EngineKind, "kind")
        index = count_argument(index, "index")
        out = self._new_out()
        status = lib.dnnl_engine_create(out, int(kind), index)
        if status:
            error = status_error(status, "dnnl_engine_create")
            if isinstance(error, InvalidArgumentsError):  # not a loading or missing-function error
                error = status_error(status, "dnnl_engine_create", _engine_hint(kind, index))
            raise error
        self._adopt(out[0])

    @classmethod
    def cpu(cls, index: int = 0) -> Engine:
        """The CPU engine ``index``.

        Raises:
            TypeError: ``index`` is not an int.
            ValueError: ``index`` is negative.
            InvalidArgumentsError: oneDNN makes no CPU engine at ``index`` (``python -m
                dnnl_interop info`` says why and how to fix it).
            LibraryNotFoundError: no oneDNN library can be loaded (at the first call into
                oneDNN).
        """
        return cls(EngineKind.CPU, index)

    @classmethod
    def from_handle(cls, handle: object, *, owned: bool) -> Engine:
        """An Engine over a ``dnnl_engine_t`` made elsewhere (another cffi module, C code).

        ``handle``: a cffi pointer of that type, from this binding or from any
        cffi module (including one that declares the type itself; see
        ``dnnl_interop.embedding``), or an int address (taken as given).

        ``owned=True``: the Engine takes the handle over and destroys it,
        exactly once (``close()``, ``with``, garbage collection); the caller
        never destroys it. ``owned=False``: the handle is borrowed and never
        destroyed here; **the caller keeps it alive** while the Engine, or
        anything made on it, is in use. A handle an object of this binding
        already owns can only be borrowed: the borrower then keeps that
        object's handle alive. If ``from_handle`` raises, nothing was taken.

        The runtime is asked of oneDNN: a CPU engine, an OpenCL engine (for
        ``ocl.*``) or a Level Zero engine (for ``ze.*``). What an OpenCL or
        Level Zero engine was made from stays the caller's to keep alive.

        Raises:
            TypeError: ``handle`` is not a pointer of this handle type (or an int), or ``owned``
                is not a bool.
            ValueError: ``handle`` is NULL, or an object of this binding already owns it and
                ``owned=True`` asks to take it over.
            ClosedObjectError: the object of this binding that owns the handle is closed.
            DnnlError: oneDNN cannot say which runtime the engine has.
            LibraryNotFoundError: no oneDNN library can be loaded (at the first call into
                oneDNN).
        """
        owned = bool_argument(owned, "owned")
        pointer = foreign_pointer(handle, _ENGINE_TYPE, "handle")
        adoption = Adoption(cls, pointer, owned, "handle")
        try:
            runtime = engine_runtime(pointer)
        except BaseException:
            adoption.cancel()
            raise

        def adopt(engine: Engine) -> None:
            engine._adopt(pointer, (), runtime)

        return adoption.finish(cls, adopt)

    @staticmethod
    def get_count(kind: EngineKind) -> int:
        """How many engines of ``kind`` the library sees.

        Raises:
            TypeError: ``kind`` is not an :class:`EngineKind`.
            ValueError: ``kind`` is no engine kind.
            LibraryNotFoundError, MissingFunctionError: oneDNN cannot be loaded, or lacks the
                function.
        """
        kind = enum_argument(kind, EngineKind, "kind")
        return checked(lib.dnnl_engine_get_count(int(kind)), "dnnl_engine_get_count")

    @property
    def kind(self) -> EngineKind:
        """The engine's kind (CPU or GPU).

        Raises:
            ClosedObjectError: ``engine`` is closed.
            DnnlError: oneDNN cannot answer.
        """
        out = ffi.new("dnnl_engine_kind_t *")
        with using((self, Engine, "engine")) as engine:
            check(lib.dnnl_engine_get_kind(engine, out), "dnnl_engine_get_kind")
        return EngineKind(out[0])


def runtime_of(engine: Engine) -> str:
    """The runtime ``engine`` was made with: "native" (the CPU engine, or one of this
    build's own GPU engines), "ocl" (an OpenCL interop engine) or "ze" (Level Zero)."""
    return engine._runtime  # noqa: SLF001 - the package's one door to an engine's runtime


def interop_engine(handle: CData, keep: tuple[Any, ...], runtime: str) -> Engine:
    """An Engine owning ``handle``, just made by an interop create function of ``runtime``
    ("ocl", "ze", "sycl"); it keeps ``keep`` (the device, context... it was made over) alive."""
    return Engine._from_handle(handle, keep, runtime)  # noqa: SLF001 - the package's door to it


def _engine_hint(kind: EngineKind, index: int) -> str:
    """Why an engine of ``kind`` may be missing, for the error."""
    count = checked(lib.dnnl_engine_get_count(int(kind)), "dnnl_engine_get_count")
    if index < count:
        return f"oneDNN sees {count} {kind.name} engine(s)"
    hint = f"oneDNN sees {count} {kind.name} engine(s), index {index} asked"
    if kind == EngineKind.CPU and count == 0 and _emulated_gpu_layer():
        hint += (
            f"; the emulated GPU is on in this process (OPENCL_LAYERS={_emulated_gpu_layer()}): it turns "
            "the CPU device of Intel's CPU OpenCL runtime into a GPU, so oneDNN's SYCL runtime finds no "
            "CPU device. Make CPU engines in a process without it (the emulated GPU is for processes or "
            "pytest sessions of their own; emulated_gpu.run_in_child runs GPU work in a child process)"
        )
    elif kind == EngineKind.CPU and count == 0:
        hint += (
            "; the CPU engine runs on Intel's CPU OpenCL runtime, which the OpenCL loader "
            "must find (python -m dnnl_interop info checks the setup)"
        )
    elif kind == EngineKind.GPU and count == 0:
        hint += "; no Intel GPU is visible (for tests without one: dnnl_interop.testing)"
    return hint


# The emulated GPU's OpenCL layer (dnnl_interop.testing.emulated_gpu.LAYER_FILENAME).
_EMULATED_GPU_LAYER = "libdnnl_interop_emulated_gpu.so"


def _emulated_gpu_layer() -> str | None:
    """The emulated GPU's layer if ``OPENCL_LAYERS`` names it (the layer hides the CPU device)."""
    for path in os.environ.get("OPENCL_LAYERS", "").split(os.pathsep):
        if os.path.basename(path) == _EMULATED_GPU_LAYER:
            return path
    return None


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
            if isinstance(engine, Engine) and runtime_of(engine) != self._runtime:
                thing = "" if obj is engine else f"a {type(obj).__name__} on "
                detail = (
                    f"{what}: {thing}{ENGINE_NAMES[runtime_of(engine)]}; "
                    f"it needs {ENGINE_NAMES[self._runtime]} ({ENGINE_MAKERS[self._runtime]})"
                )
                raise make_error(error.status, error.function, detail) from None


def engine_of(c_engine: CData, engine: Engine | None, what: str) -> Engine:
    """The Engine for ``c_engine``, the engine C says ``what`` was made on.

    ``engine`` given: checked to be that engine. Otherwise the Engine of this
    binding that holds it, or a new one borrowing it.
    """
    if engine is not None:
        with using((engine, Engine, "engine")) as ours:
            if ours != c_engine:
                raise ValueError(f"engine: {what} was made on another engine than this one")
        return engine
    known, holder = holder_of(address_of(c_engine))
    if known and isinstance(holder, Engine) and not holder.closed:
        return holder
    return Engine.from_handle(c_engine, owned=False)


def optional_engine(engine: object) -> Engine | None:
    """An ``engine=`` argument: an Engine or None."""
    if engine is not None and not isinstance(engine, Engine):
        raise TypeError(f"engine: expected a dnnl_interop.Engine or None, got {type(engine).__name__}")
    return engine


def engine_in_words(engine: Engine) -> str:
    """``engine`` in words for a message: "a CPU engine", "an OpenCL engine", ..."""
    if runtime_of(engine) == "native":
        return "a GPU engine" if engine.kind == EngineKind.GPU else "a CPU engine"
    return ENGINE_NAMES[runtime_of(engine)]
