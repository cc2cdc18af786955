"""oneDNN status codes become exceptions of a fixed, documented hierarchy.

``check(code, function)`` is the one gate every C status passes through: 0 is
success, every other code raises the :class:`DnnlError` subclass for it, and a
code the package does not know is kept as it is, never mapped to a neighbour.
``errors`` is a leaf: the question whether a stub answered belongs to the
loader (``_library.check`` asks it; tests/test_loading.py shows it on 3.11).
"""

from __future__ import annotations

import ast
import pickle
import subprocess
import sys

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from conftest import ROOT
from dnnl_interop import check, errors
from dnnl_interop._ffi import ffi, lib
from dnnl_interop.errors import (
    DnnlError,
    LibraryNotFoundError,
    MissingFunctionError,
    Status,
    UnknownStatusError,
    error_class,
    make_error,
)
from dnnl_interop.testing import strategies as dst

# The builtin exception each error code must also be (besides DnnlError).
BUILTIN_CATEGORIES = (MemoryError, ValueError, NotImplementedError, RuntimeError)
EXPECTED_BUILTIN = {
    Status.OUT_OF_MEMORY: MemoryError,
    Status.INVALID_ARGUMENTS: ValueError,
    Status.UNIMPLEMENTED: NotImplementedError,
    Status.LAST_IMPL_REACHED: None,
    Status.RUNTIME_ERROR: RuntimeError,
    Status.NOT_REQUIRED: None,
    Status.INVALID_GRAPH: ValueError,
    Status.INVALID_GRAPH_OP: ValueError,
    Status.INVALID_SHAPE: ValueError,
    Status.INVALID_DATA_TYPE: ValueError,
}
KNOWN_CODES = frozenset(int(s) for s in Status)
KNOWN_ERROR_CLASSES = tuple(error_class(code) for code in EXPECTED_BUILTIN)

# Every code: the known ones, and every other int32 both as C returns it and
# as cffi reads a dnnl_status_t (an enum with non-negative values, so a C code
# -1 arrives as 2**32 - 1).
codes = dst.status_codes(success=True)
failures = dst.status_codes()
unknown_codes = dst.status_codes(known=False)
function_names = st.from_regex(r"dnnl_[a-z][a-z_]{0,40}", fullmatch=True)


def test_status_values_equal_the_c_header():
    """Status equals dnnl_status_t as compiled into the binding, both ways
    (tests/test_header_coverage.py checks it against the header text too)."""
    from_c = ffi.typeof("dnnl_status_t").relements
    assert from_c == {"dnnl_" + s.name.lower(): s.value for s in Status}
    for s in Status:
        assert getattr(lib, "dnnl_" + s.name.lower()) == s


@pytest.mark.parametrize("status", list(EXPECTED_BUILTIN), ids=lambda s: s.name)
def test_error_class_of_each_code(status):
    """Each error code has its own DnnlError subclass, which is also exactly
    the builtin exceptions that fit it (and no other of them)."""
    cls = error_class(status)
    assert issubclass(cls, DnnlError) and cls is not DnnlError
    assert cls is not UnknownStatusError
    builtin = EXPECTED_BUILTIN[status]
    for category in BUILTIN_CATEGORIES:
        expected = builtin is not None and issubclass(builtin, category)
        assert issubclass(cls, category) == expected, (cls, category)


def test_error_classes_are_distinct():
    """No two codes share a class, so ``except`` can tell them apart."""
    assert len(set(KNOWN_ERROR_CLASSES)) == len(EXPECTED_BUILTIN)


def test_success_has_no_error_class_of_its_own():
    """error_class(SUCCESS) is the base DnnlError."""
    assert error_class(Status.SUCCESS) is DnnlError


def test_library_errors_are_public_and_distinct():
    """The hierarchy is exported; the non-status errors fit builtin categories."""
    for name in errors.__all__:
        assert hasattr(errors, name)
    assert issubclass(MissingFunctionError, errors.UnimplementedError)
    assert issubclass(LibraryNotFoundError, OSError)
    assert not issubclass(LibraryNotFoundError, DnnlError)
    assert issubclass(errors.ClosedObjectError, ValueError)


@given(function=function_names)
def test_check_success_returns_none(function):
    """check(0, f) returns None and raises nothing."""
    assert check(0, function) is None


@given(code=codes, function=function_names)
@example(code=-1, function="dnnl_f")
@example(code=11, function="dnnl_f")
@example(code=2**31 - 1, function="dnnl_f")
@example(code=-(2**31), function="dnnl_f")
@example(code=2**32 - 1, function="dnnl_f")
def test_check_raises_the_error_of_any_nonzero_code(code, function):
    """check(code, f) raises error_class(code): a DnnlError that keeps the code
    (as a Status if known, else the raw int), the function name, and says both."""
    if code == 0:
        assert check(code, function) is None
        return
    with pytest.raises(DnnlError) as info:
        check(code, function)
    exc = info.value
    assert type(exc) is error_class(code)
    assert exc.function == function
    assert exc.status == code
    message = str(exc)
    assert function in message
    if code in KNOWN_CODES:
        assert type(exc.status) is Status
        assert exc.status.name in message
    else:
        assert type(exc.status) is int
        assert "unknown status" in message
        assert str(code) in message


@given(code=unknown_codes)
def test_unknown_codes_are_never_mapped_to_a_known_class(code):
    """An unknown code gets UnknownStatusError, which is no known error class
    and no builtin category a caller might catch for a known one."""
    cls = error_class(code)
    assert cls is UnknownStatusError
    assert not issubclass(cls, KNOWN_ERROR_CLASSES)
    assert not issubclass(cls, BUILTIN_CATEGORIES)


@given(code=failures, function=function_names)
def test_errors_survive_pickling(code, function):
    """A raised error pickles and unpickles to the same class, status,
    function and message."""
    with pytest.raises(DnnlError) as info:
        check(code, function)
    copy = pickle.loads(pickle.dumps(info.value))
    assert type(copy) is type(info.value)
    assert (copy.status, copy.function, str(copy)) == (
        info.value.status,
        info.value.function,
        str(info.value),
    )
    assert type(copy.status) is type(info.value.status)


def test_missing_function_error_pickles_and_names_everything():
    """MissingFunctionError says which function, library and version."""
    exc = MissingFunctionError("dnnl_ze_interop_engine_create", "/x/libdnnl.so.3", "3.11.4")
    assert exc.status == Status.UNIMPLEMENTED
    assert isinstance(exc, NotImplementedError)
    for part in ("dnnl_ze_interop_engine_create", "/x/libdnnl.so.3", "3.11.4"):
        assert part in str(exc)
    copy = pickle.loads(pickle.dumps(exc))
    assert type(copy) is MissingFunctionError
    assert (copy.function, copy.library, copy.version, str(copy)) == (
        exc.function,
        exc.library,
        exc.version,
        str(exc),
    )


def test_library_not_found_error_pickles_and_lists_attempts():
    """LibraryNotFoundError lists every place tried, also after pickling."""
    attempts = [("$DNNL_INTEROP_LIBRARY", "/nowhere/libdnnl.so.3", "no such file")]
    exc = LibraryNotFoundError(attempts)
    assert "/nowhere/libdnnl.so.3" in str(exc) and "no such file" in str(exc)
    copy = pickle.loads(pickle.dumps(exc))
    assert type(copy) is LibraryNotFoundError
    assert copy.attempts == exc.attempts and str(copy) == str(exc)


# --- errors is a leaf ---------------------------------------------------------------

ERRORS_PY = ROOT / "dnnl_interop" / "errors.py"


def test_errors_imports_nothing_of_the_package():
    """errors.py imports only the standard library: no relative import, no
    dnnl_interop module, not even inside a function (the old cycle was one)."""
    tree = ast.parse(ERRORS_PY.read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"relative import at line {node.lineno}"
            imported.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
    assert imported <= set(sys.stdlib_module_names) | {"__future__"}, imported


def test_errors_loads_by_path_alone():
    """errors.py, loaded by path in a fresh interpreter, works without the
    package: no dnnl_interop module gets imported."""
    code = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('errors_alone', {str(ERRORS_PY)!r})\n"
        "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
        "assert type(m.make_error(3, 'dnnl_f')) is m.UnimplementedError\n"
        "print(sorted(n for n in sys.modules if n.startswith('dnnl_interop')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd="/", timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


@given(code=failures, function=function_names)
@example(code=3, function="dnnl_f")
def test_make_error_is_always_the_dnnl_error_of_the_code(code, function):
    """make_error returns what its annotation says, a DnnlError of
    error_class(code), for every code: UNIMPLEMENTED included (it never asks
    whether a stub answered, so never returns a loading error)."""
    error = make_error(code, function, "why")
    assert isinstance(error, DnnlError) and type(error) is error_class(code)
    assert (error.function, error.detail) == (function, "why")


def test_dnnl_interop_check_is_the_loaders():
    """The public check is the one that asks whether a stub answered."""
    from dnnl_interop import _library

    assert check is _library.check
    assert not hasattr(errors, "check")
