"""oneDNN status codes and the exceptions they become.

A non-zero status becomes the subclass of :class:`DnnlError` for that code
(:func:`make_error`); each subclass also inherits the builtin exception that
fits, so ``except ValueError`` works for a caller mistake and ``except
MemoryError`` for an allocation failure. Codes this package does not know are
kept on the exception, never mapped to a neighbour or swallowed.

This module imports nothing of the package. Whether a status came from the
binding's stub for a function the library lacks is the loader's question:
wrappers call :func:`dnnl_interop._library.check`, which asks it first.
"""

from __future__ import annotations

import enum

__all__ = [
    "Status",
    "DnnlError",
    "OutOfMemoryError",
    "InvalidArgumentsError",
    "UnimplementedError",
    "LastImplReachedError",
    "DnnlRuntimeError",
    "NotRequiredError",
    "InvalidGraphError",
    "InvalidGraphOpError",
    "InvalidShapeError",
    "InvalidDataTypeError",
    "UnknownStatusError",
    "MissingFunctionError",
    "ForkedProcessError",
    "LibraryNotFoundError",
    "ClosedObjectError",
    "error_class",
]


class _EnumType(enum.EnumMeta):
    """``_enum_type.EnumType`` again (this module imports only the standard
    library): ``dir(Status)`` lists its members, not the methods of int."""

    def __dir__(cls) -> list[str]:
        return sorted({"__class__", "__doc__", "__members__", "__module__", *cls.__members__})


class Status(enum.IntEnum, metaclass=_EnumType):
    """``dnnl_status_t`` (tests/test_header_coverage.py holds it to the headers)."""

    SUCCESS = 0
    OUT_OF_MEMORY = 1
    INVALID_ARGUMENTS = 2
    UNIMPLEMENTED = 3
    LAST_IMPL_REACHED = 4
    RUNTIME_ERROR = 5
    NOT_REQUIRED = 6
    INVALID_GRAPH = 7
    INVALID_GRAPH_OP = 8
    INVALID_SHAPE = 9
    INVALID_DATA_TYPE = 10


# oneDNN says why a call failed only in its verbose output, printed with
# printf to the C stdout (3.13 has no callback or redirect). Argument checks
# print at the "check" level, which dnnl_set_verbose cannot turn on: only the
# variable, read when oneDNN is loaded. "check" includes "error".
VERBOSE_HINT = "oneDNN prints its reason on stdout when run with ONEDNN_VERBOSE=check"


class DnnlError(Exception):
    """A oneDNN C function returned a status other than success.

    ``status`` is a :class:`Status`, or the raw int for a code this package
    does not know; ``function`` is the name of the C function. ``reason``
    is why the call failed, as the binding found it (also in the message,
    which then has no hint to re-run with ``ONEDNN_VERBOSE=check``); None
    when the binding cannot tell.
    """

    status: Status | int
    function: str
    reason: str | None

    def __init__(
        self, status: Status | int, function: str, detail: str | None = None, reason: str | None = None
    ):
        self.status = status
        self.function = function
        self.detail = detail
        self.reason = reason
        name = status.name if isinstance(status, Status) else "unknown status"
        message = f"{function} failed: {name} ({int(status)})"
        message = f"{message}: {detail}" if detail else message
        super().__init__(message if reason else f"{message} ({VERBOSE_HINT})")

    def __reduce__(self) -> tuple[type[DnnlError], tuple[object, ...]]:
        return type(self), (self.status, self.function, self.detail, self.reason)


class OutOfMemoryError(DnnlError, MemoryError):
    """``dnnl_out_of_memory``."""


class InvalidArgumentsError(DnnlError, ValueError):
    """``dnnl_invalid_arguments``: the library rejected an argument."""


class UnimplementedError(DnnlError, NotImplementedError):
    """``dnnl_unimplemented``."""


class LastImplReachedError(DnnlError):
    """``dnnl_last_impl_reached``."""


class DnnlRuntimeError(DnnlError, RuntimeError):
    """``dnnl_runtime_error``: a failure in the library or its runtime."""


class NotRequiredError(DnnlError):
    """``dnnl_not_required``."""


class InvalidGraphError(DnnlError, ValueError):
    """``dnnl_invalid_graph``."""


class InvalidGraphOpError(DnnlError, ValueError):
    """``dnnl_invalid_graph_op``."""


class InvalidShapeError(DnnlError, ValueError):
    """``dnnl_invalid_shape``."""


class InvalidDataTypeError(DnnlError, ValueError):
    """``dnnl_invalid_data_type``."""


class UnknownStatusError(DnnlError):
    """A status code this package does not know; ``status`` is the raw int."""


class MissingFunctionError(UnimplementedError):
    """The loaded oneDNN library does not export the C function called.

    ``library`` is the path of the loaded library and ``version`` its
    version string. Raised instead of calling through a NULL pointer.
    """

    def __init__(self, function: str, library: str, version: str):
        self.library = library
        self.version = version
        super().__init__(
            Status.UNIMPLEMENTED,
            function,
            f"{function} is not exported by {library} (oneDNN {version})",
        )

    def __str__(self) -> str:  # the status prefix says nothing useful here
        return self.detail or ""

    def __reduce__(self) -> tuple[type[DnnlError], tuple[object, ...]]:
        return type(self), (self.function, self.library, self.version)


class ForkedProcessError(DnnlRuntimeError):
    """CPU work refused in a process forked from one that had run CPU work.

    oneDNN's CPU runtime runs work on threads it starts at the first
    execution; a forked child has none of them, so work submitted there
    would never run and its wait would never return. ``function`` is the C
    function that was not called (``dnnl_primitive_execute``,
    ``dnnl_stream_wait``); the message says why and how to start processes
    instead (``spawn`` or ``forkserver``).
    """

    def __init__(self, function: str, detail: str):
        super().__init__(Status.RUNTIME_ERROR, function, detail, reason=detail)

    def __str__(self) -> str:  # the status prefix says nothing useful here
        return f"{self.function}: {self.detail}"

    def __reduce__(self) -> tuple[type[DnnlError], tuple[object, ...]]:
        return type(self), (self.function, self.detail)


class LibraryNotFoundError(OSError):
    """No usable oneDNN library was found.

    ``attempts`` lists ``(place, target, reason)`` for every place tried.
    """

    def __init__(self, attempts: list[tuple[str, str, str]]):
        self.attempts = list(attempts)
        lines = [f"  {place}: {target}: {reason}" for place, target, reason in self.attempts]
        super().__init__("could not load oneDNN; tried:\n" + "\n".join(lines))

    def __reduce__(self) -> tuple[type[LibraryNotFoundError], tuple[list[tuple[str, str, str]]]]:
        return type(self), (self.attempts,)


class ClosedObjectError(ValueError):
    """An operation was attempted on a closed oneDNN object."""


_CLASSES: dict[int, type[DnnlError]] = {
    Status.OUT_OF_MEMORY: OutOfMemoryError,
    Status.INVALID_ARGUMENTS: InvalidArgumentsError,
    Status.UNIMPLEMENTED: UnimplementedError,
    Status.LAST_IMPL_REACHED: LastImplReachedError,
    Status.RUNTIME_ERROR: DnnlRuntimeError,
    Status.NOT_REQUIRED: NotRequiredError,
    Status.INVALID_GRAPH: InvalidGraphError,
    Status.INVALID_GRAPH_OP: InvalidGraphOpError,
    Status.INVALID_SHAPE: InvalidShapeError,
    Status.INVALID_DATA_TYPE: InvalidDataTypeError,
}


def error_class(code: int) -> type[DnnlError]:
    """The exception class for a status code, for any int.

    ``SUCCESS`` has no error of its own and maps to the base :class:`DnnlError`.
    """
    if isinstance(code, bool) or not isinstance(code, int):
        raise TypeError(f"code: expected an int status, got {type(code).__name__}")
    if code == Status.SUCCESS:
        return DnnlError
    return _CLASSES.get(code, UnknownStatusError)


def make_error(code: int, function: str, detail: str | None = None, reason: str | None = None) -> DnnlError:
    """The exception for status ``code`` returned by C function ``function``.

    A code this package does not know gives :class:`UnknownStatusError` with
    the raw int as ``status``.
    """
    try:
        status: Status | int = Status(code)
    except ValueError:
        status = int(code)
    return error_class(code)(status, function, detail, reason)


def __dir__() -> list[str]:
    return sorted(__all__)
