"""Finding oneDNN and binding the function table of ``_ffi`` to it.

Importing the package loads no libdnnl. The first call into oneDNN (or an
explicit :func:`load_library`) searches, in order:

1. the file named by ``DNNL_INTEROP_LIBRARY`` (if set, it must work: an
   unusable value is an error, not a reason to look elsewhere);
2. the ``onednn`` wheel layout, ``<prefix>/lib/libdnnl.so.3``;
3. the system loader (``libdnnl.so.3``).

A library inside a directory is opened after the libraries it needs from the
same directory, by full path, so no ``LD_LIBRARY_PATH`` is needed. libdnnl
opens the OpenCL ICD loader (``libOpenCL.so.1``) and the Level Zero loader
(``libze_loader.so.1``) by name at its first interop call; a copy next to
libdnnl is preloaded ``RTLD_LOCAL`` so that lookup by name finds it, without
taking over the global namespace (which would hide pyopencl's own platforms).

Only regular files are opened (a FIFO or a device would block or worse).

One process binds one library: the function table is process-wide. A fork
waits for a load under way in another thread, and the child starts with a
fresh loader lock; a call whose library could not be loaded reports the
error of its own thread's attempt.
"""

from __future__ import annotations

import _thread
import enum
import os
import site
import stat
import sys
from collections import namedtuple

from . import _elf
from ._enum_type import EnumType
from ._ffi import ffi, lib
from ._icd import register_cpu_driver
from .errors import LibraryNotFoundError, MissingFunctionError, Status, make_error

# `typing` stays out of `import dnnl_interop` (it alone would add about half
# the package's import time): type checkers treat this name as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeVar

    from ._ffi import CData

    _T = TypeVar("_T")

__all__ = [
    "ENV_VAR",
    "Library",
    "Runtime",
    "Version",
    "load_library",
    "loaded_library",
    "version",
    "set_verbose",
    "has_function",
    "check",
    "status_error",
    "checked",
]

ENV_VAR = "DNNL_INTEROP_LIBRARY"
SONAME = "libdnnl.so.3"
# Runtime loaders libdnnl opens by name at its first OpenCL / Level Zero call.
RUNTIME_LOADERS = ("libOpenCL.so.1", "libze_loader.so.1")
# oneDNN's own switches for its verbose output; if the user set one, it wins.
VERBOSE_ENV_VARS = ("ONEDNN_VERBOSE", "DNNL_VERBOSE")

_DLOPEN_FLAGS = lib.RTLD_NOW | lib.RTLD_LOCAL


class Runtime(enum.IntEnum, metaclass=EnumType):
    """CPU and GPU runtimes a oneDNN build reports (``DNNL_RUNTIME_*``)."""

    NONE = lib.DNNL_RUNTIME_NONE
    SEQ = lib.DNNL_RUNTIME_SEQ
    OMP = lib.DNNL_RUNTIME_OMP
    TBB = lib.DNNL_RUNTIME_TBB
    THREADPOOL = lib.DNNL_RUNTIME_THREADPOOL
    OCL = lib.DNNL_RUNTIME_OCL
    SYCL = lib.DNNL_RUNTIME_SYCL
    ZE = lib.DNNL_RUNTIME_ZE


def _runtime(value: int) -> Runtime | int:
    try:
        return Runtime(value)
    except ValueError:
        return value


# Plain namedtuples, not dataclasses or typing.NamedTuple: importing the
# package must stay cheap.
class Version(namedtuple("Version", "major minor patch hash cpu_runtime gpu_runtime")):
    """What ``dnnl_version()`` reports; runtimes are :class:`Runtime` values.

    ``str()`` reads ``oneDNN 3.13.2 (c852e73e, CPU: SYCL, GPU: SYCL)``;
    :attr:`number` is ``"3.13.2"`` alone.
    """

    __slots__ = ()

    @property
    def number(self) -> str:
        """``"major.minor.patch"``."""
        return f"{self.major}.{self.minor}.{self.patch}"

    def __str__(self) -> str:
        runtimes = [getattr(r, "name", str(r)) for r in (self.cpu_runtime, self.gpu_runtime)]
        return f"oneDNN {self.number} ({self.hash[:8] or 'no hash'}, CPU: {runtimes[0]}, GPU: {runtimes[1]})"


class Library(namedtuple("Library", "path version missing preloaded notes")):
    """The oneDNN library the function table is bound to.

    ``missing`` names the functions of the headers this library lacks,
    ``preloaded`` the files opened first by full path, and ``notes`` anything
    worth knowing that did not stop loading.
    """

    __slots__ = ()

    def has_function(self, name: str) -> bool:
        """Whether ``name`` can be called: declared by the binding's headers
        and exported by this library. Any other name is False, including a
        function this library exports that the headers do not declare."""
        if not isinstance(name, str):
            raise TypeError(f"name: expected a str, got {type(name).__name__}")
        return name in _DECLARED and name not in self.missing


def _c_text(pointer: CData) -> str:
    """A C string as text (undecodable bytes replaced)."""
    text = ffi.string(pointer)
    return text.decode(errors="replace") if isinstance(text, bytes) else text


# Every function the headers declare, in the order of the function table.
FUNCTIONS = tuple(_c_text(lib.dnnl_interop_symbol_name(i)) for i in range(lib.dnnl_interop_symbol_count()))
_DECLARED = frozenset(FUNCTIONS)

_lock = _thread.RLock()
_library: Library | None = None
# Per thread: the error of this thread's latest failed autoload (see
# missing_function_error).
_thread_state = _thread._local()  # noqa: SLF001 - threading.local itself, without importing threading (import time)


def _before_fork() -> None:
    # A load under way in another thread finishes first: a child must not
    # inherit half a load (oneDNN's initialization stopped midway crashes it).
    _lock.acquire()


def _after_fork_in_parent() -> None:
    _lock.release()


def _after_fork_in_child() -> None:
    # The lock was held for the fork by a thread the child has under another
    # state; a fresh one starts the child clean.
    global _lock
    _lock = _thread.RLock()


os.register_at_fork(before=_before_fork, after_in_parent=_after_fork_in_parent, after_in_child=_after_fork_in_child)


def loaded_library() -> Library | None:
    """The bound library, or None before the first load."""
    return _library


def load_library(path: str | bytes | os.PathLike[str] | os.PathLike[bytes] | None = None) -> Library:
    """Find oneDNN, bind every function the headers declare, and return it.

    With ``path``, only that file is tried. Without it, the search described
    in this module's docstring runs. Calling again returns the bound library;
    asking for a different file once one is bound raises ``RuntimeError``.
    Raises :class:`LibraryNotFoundError` listing every place tried.
    """
    global _library
    if path is not None:
        path = _path_argument(path)
    with _lock:
        if _library is not None:
            if path is None or os.path.realpath(path) == os.path.realpath(_library.path):
                return _library
            raise RuntimeError(
                f"oneDNN is already bound to {_library.path}; "
                "a process binds one library"
            )
        attempts: list[tuple[str, str, str]] = []
        for place, target in _places(path):
            try:
                handle, preloaded, notes = _open(target)
            except OSError as exc:
                attempts.append((place, target, str(exc)))
                continue
            if lib.dlsym(handle, b"dnnl_version") == ffi.NULL:
                attempts.append((place, target, "not oneDNN: no dnnl_version symbol"))
                continue
            _library = _bind(handle, preloaded, notes)
            return _library
        raise LibraryNotFoundError(attempts)


def _path_argument(path: object) -> str:
    refused = TypeError(f"path: expected a str, bytes or os.PathLike, got {type(path).__name__}")
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise refused
    try:
        given = os.fspath(path)
    except TypeError:  # __fspath__ returned neither str nor bytes
        raise refused from None
    text = os.fsdecode(given)
    if "\0" in text:
        raise ValueError(f"path: contains a NUL byte: {text!r}")
    return text


def _places(path: str | None) -> list[tuple[str, str]]:
    if path is not None:
        return [("argument", os.fspath(path))]
    from_env = os.environ.get(ENV_VAR)
    if from_env is not None:
        return [(f"${ENV_VAR}", from_env)]
    places = []
    prefixes = dict.fromkeys([sys.prefix, site.getuserbase()])
    for prefix in prefixes:
        places.append(("onednn wheel", os.path.join(prefix, "lib", SONAME)))
    places.append(("system loader", SONAME))
    return places


def _dlerror() -> str:
    message = lib.dlerror()
    return _c_text(message) if message else "unknown dlopen error"


def is_loaded(soname: str) -> bool:
    """Whether a library of this name is loaded in the process (opening nothing)."""
    return bool(lib.dlopen(soname.encode(), lib.RTLD_NOW | lib.RTLD_NOLOAD) != ffi.NULL)


_FILE_KINDS = {
    stat.S_IFDIR: "a directory",
    stat.S_IFIFO: "a FIFO",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
}


def _file_problem(path: str) -> str | None:
    """Why ``path`` cannot be a library file (stat only, never opened), or None."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "no such file"
    except OSError as exc:
        return exc.strerror or str(exc)
    if stat.S_ISREG(mode):
        return None
    return f"not a regular file ({_FILE_KINDS.get(stat.S_IFMT(mode), 'of an unknown kind')})"


def _open_with_siblings(path: str, preloaded: list[str], seen: set[str]) -> CData:
    """dlopen ``path`` after the NEEDED libraries found beside it."""
    directory = os.path.dirname(path)
    for name in _elf.needed(path):
        sibling = os.path.join(directory, name)
        if name in seen or is_loaded(name) or _file_problem(sibling):
            continue
        seen.add(name)
        _open_with_siblings(sibling, preloaded, seen)
    handle = lib.dlopen(path.encode(), _DLOPEN_FLAGS)
    if handle == ffi.NULL:
        raise OSError(_dlerror())
    preloaded.append(path)
    return handle


def preload(path: str) -> None:
    """dlopen ``path`` for the rest of the process, after the NEEDED libraries found beside
    it (as oneDNN is opened); OSError with dlopen's reason if it cannot be."""
    _open_with_siblings(path, [], set())


def _open(target: str) -> tuple[CData, tuple[str, ...], tuple[str, ...]]:
    preloaded: list[str] = []
    notes: list[str] = []
    if not target:
        raise OSError("empty name")  # dlopen("") would open the program itself
    if os.sep not in target:  # a bare name: the system loader's search
        handle = lib.dlopen(target.encode(), _DLOPEN_FLAGS)
        if handle == ffi.NULL:
            raise OSError(_dlerror())
        return handle, (), ()
    problem = _file_problem(target)
    if problem:
        raise OSError(problem)
    seen: set[str] = set()
    try:
        handle = _open_with_siblings(target, preloaded, seen)
    except ValueError as exc:  # a file that is not a sound ELF object
        raise OSError(f"not a shared library: {exc}") from None
    preloaded.pop()  # the target itself
    directory = os.path.dirname(target)
    registered = register_cpu_driver(directory)
    if registered:
        notes.append(registered)
    for loader in RUNTIME_LOADERS:
        candidate = os.path.join(directory, loader)
        if not _file_problem(candidate) and not is_loaded(loader):
            try:
                _open_with_siblings(candidate, preloaded, seen)
            except OSError as exc:
                notes.append(f"could not preload {candidate}: {exc}")
    return handle, tuple(preloaded), tuple(notes)


def _path_of(handle: CData) -> str:
    address = lib.dlsym(handle, b"dnnl_version")
    name = lib.dnnl_interop_file_of(address) if address != ffi.NULL else ffi.NULL
    return os.path.realpath(os.fsdecode(ffi.string(name))) if name != ffi.NULL else "<unknown>"


def _bind(handle: CData, preloaded: tuple[str, ...], notes: tuple[str, ...]) -> Library:
    lib.dnnl_interop_bind(handle)
    missing = tuple(
        name for i, name in enumerate(FUNCTIONS) if not lib.dnnl_interop_symbol_is_bound(i)
    )
    raw: Any = lib.dnnl_version()  # a dnnl_version_t * (cffi types no struct fields)
    if raw == ffi.NULL:
        lib.dnnl_interop_take_unbound()
        found = Version(0, 0, 0, "", Runtime.NONE, Runtime.NONE)
    else:
        found = Version(
            raw.major,
            raw.minor,
            raw.patch,
            _c_text(raw.hash) if raw.hash != ffi.NULL else "",
            _runtime(raw.cpu_runtime),
            _runtime(raw.gpu_runtime),
        )
    if not any(name in os.environ for name in VERBOSE_ENV_VARS):
        lib.dnnl_set_verbose(0)  # oneDNN prints errors to stdout by default
    return Library(_path_of(handle), found, missing, tuple(preloaded), tuple(notes))


@ffi.def_extern()
def _dnnl_interop_autoload() -> int:
    """Called by a C stub while no library is bound: 1 once one is bound."""
    try:
        load_library()
    except Exception as exc:  # reported by missing_function_error, to this thread
        _thread_state.load_error = exc
        return 0
    _thread_state.load_error = None
    return 1


def _missing(function: str, library: Library) -> MissingFunctionError:
    return MissingFunctionError(function, library.path, library.version.number)


def missing_function_error(function: str) -> Exception | None:
    """The error for this thread's latest call if a stub answered it, else None.

    Called with the name of the C function just called when its answer may be
    a stub's (``dnnl_unimplemented``, or a zero for functions that return no
    status). The stub left behind which function it answered for, and
    whether no library could be loaded: then this thread's own loading error
    is returned, otherwise :class:`MissingFunctionError`.
    """
    index = lib.dnnl_interop_take_unbound()
    if not index or FUNCTIONS[abs(index) - 1] != function:
        return None
    if index < 0:
        error = getattr(_thread_state, "load_error", None)
        _thread_state.load_error = None
        return error or LibraryNotFoundError([("first call", function, "loading did not run to the end")])
    library = _library
    if library is None or lib.dnnl_interop_symbol_is_bound(index - 1):
        return None  # the table was bound again since (tests' _rebind)
    return _missing(function, library)



def status_error(code: int, function: str, detail: str | None = None) -> Exception:
    """The exception for status ``code`` just returned by C function ``function``.

    ``dnnl_unimplemented`` may be the answer of the binding's stub for a
    function the library lacks: then it is :class:`MissingFunctionError`, or
    this thread's loading error if no library could be loaded (an ``OSError``
    such as :class:`LibraryNotFoundError`, not a :class:`DnnlError`). Any other
    answer is :func:`dnnl_interop.errors.make_error`'s, with ``detail``.
    """
    if code == Status.UNIMPLEMENTED:
        missing = missing_function_error(function)
        if missing is not None:
            return missing
    return make_error(code, function, detail)


def check(code: int, function: str) -> None:
    """Raise :func:`status_error` for status ``code`` of C function ``function``
    unless it is ``dnnl_success``."""
    if code:
        raise status_error(code, function)


def checked(value: _T, function: str) -> _T:
    """``value``, as returned by C function ``function`` that returns no status.

    A stub answers such a function with a zero (or nothing, for ``void``),
    which a caller could take for a real answer: for a falsy ``value`` this
    asks whether a stub answered, and raises :class:`MissingFunctionError`
    (or the loading error) if one did. The counterpart of
    :func:`check` for status-returning functions.
    """
    if not value:
        error = missing_function_error(function)
        if error is not None:
            raise error
    return value


def require(function: str) -> Library:
    """The bound library, loading it if needed; raise if it lacks ``function``."""
    library = _library or load_library()
    if not library.has_function(function):
        raise _missing(function, library)
    return library


def has_function(name: str) -> bool:
    """Whether ``name`` can be called through this binding.

    True for a function the binding's headers declare and the bound library
    (loaded if needed) exports. False for every other name, without loading
    anything: a typo, or a function oneDNN has but the headers lack.
    """
    if not isinstance(name, str):
        raise TypeError(f"name: expected a str, got {type(name).__name__}")
    if name not in _DECLARED:
        return False
    return (_library or load_library()).has_function(name)


def version() -> Version:
    """The version of the bound oneDNN (loading it if needed)."""
    found: Version = require("dnnl_version").version
    return found


_C_INT = 2 ** (8 * ffi.sizeof("int") - 1)


def set_verbose(level: int) -> None:
    """Set oneDNN's verbose level: 0 silences it, 1 prints errors and each
    execution, 2 also each creation (``dnnl_set_verbose``; on stdout).

    The binding sets 0 when it loads oneDNN unless ``ONEDNN_VERBOSE`` (or
    ``DNNL_VERBOSE``) is set. No level prints oneDNN's argument checks, the
    reason for most failed calls: for those, run with
    ``ONEDNN_VERBOSE=check`` in the environment (read when oneDNN loads).

    Raises:
        TypeError: ``level`` is not an int.
        ValueError: ``level`` does not fit a C int.
        InvalidArgumentsError: oneDNN refuses the level (not 0, 1 or 2).
        LibraryNotFoundError: no oneDNN library could be loaded.
    """
    if isinstance(level, bool) or not hasattr(type(level), "__index__"):
        raise TypeError(f"level: expected an int, got {type(level).__name__}")
    level = level.__index__()
    if not -_C_INT <= level < _C_INT:
        raise ValueError(f"level: {level} does not fit a C int")
    require("dnnl_set_verbose")
    status = lib.dnnl_set_verbose(level)
    if status:
        raise status_error(status, "dnnl_set_verbose", f"level: {level} given; oneDNN takes 0, 1 or 2")


def _rebind(path: str) -> Library:
    """Bind the function table to another library file. For tests only.

    Safe only while no oneDNN object of the bound library is alive: handles
    from one library must never reach another's functions.
    """
    global _library
    with _lock:
        _library = None
        return load_library(path)
