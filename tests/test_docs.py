"""The public surface as ``help()`` and a reader see it: every public callable
says what it raises, no signature shows a cffi pointer, no help text falls
back to source comments, and ``str(version())`` says what a user asks first.
"""

from __future__ import annotations

import builtins
import copy
import enum
import inspect
import os
import pickle
import pydoc
import re
import subprocess
import sys
from collections.abc import Iterator
from importlib import import_module

import pytest

import dnnl_interop
from dnnl_interop import Runtime, Version
from dnnl_interop._target import TARGET_ONEDNN

MODULES = ("core", "primitives", "ocl", "ze", "cache")


def _public_members(cls: type) -> Iterator[tuple[str, object]]:
    """The methods and properties a class defines itself, by public name."""
    for name, value in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(value, property):
            yield name, value.fget
        elif isinstance(value, (classmethod, staticmethod)):
            yield name, value.__func__
        elif inspect.isfunction(value) or inspect.ismethoddescriptor(value):  # a method of C too
            yield name, value


def public_callables() -> Iterator[tuple[str, object, str]]:
    """``(name, object, docstring)`` of every public function, class, method and
    property that core, primitives, ocl, ze and cache offer, defined by themselves or by
    the private module behind them (not re-exported from another public
    module). A class's docstring counts with its own ``__init__``'s: they
    document one call."""
    for module_name in MODULES:
        module = import_module(f"dnnl_interop.{module_name}")
        for name in module.__all__:
            obj = getattr(module, name)
            owner = getattr(obj, "__module__", None) or ""
            if owner != module.__name__ and not owner.startswith("dnnl_interop._"):
                continue
            if inspect.isfunction(obj):
                yield f"{module_name}.{name}", obj, inspect.getdoc(obj) or ""
            elif inspect.isclass(obj) and not issubclass(obj, (BaseException, enum.Enum)):
                init = vars(obj).get("__init__")
                init_doc = (inspect.getdoc(init) or "") if inspect.isfunction(init) else ""
                yield f"{module_name}.{name}", obj, (obj.__doc__ or "") + "\n" + init_doc
                for member, function in _public_members(obj):
                    yield f"{module_name}.{name}.{member}", function, inspect.getdoc(function) or ""


def _exception(name: str) -> type[BaseException] | None:
    found = getattr(dnnl_interop, name, None) or getattr(builtins, name, None)
    return found if isinstance(found, type) and issubclass(found, BaseException) else None


def raises_problems(doc: str) -> list[str]:
    """What is wrong with the Raises section of ``doc`` ([] if nothing).

    A section is ``Raises:`` followed by indented ``Name[, Name]: reason``
    entries naming exception classes (builtins or dnnl_interop's); a docstring
    that says ``Raises nothing`` documents why none is listed.
    """
    if "Raises nothing" in doc:
        return []
    lines = doc.splitlines()
    starts = [i for i, line in enumerate(lines) if line.strip() == "Raises:"]
    if not starts:
        return ["no Raises: section"]
    problems = []
    start = starts[0]
    indent = len(lines[start]) - len(lines[start].lstrip())
    entries = 0
    for line in lines[start + 1:]:
        if not line.strip():
            break
        depth = len(line) - len(line.lstrip())
        if depth <= indent:
            break
        if depth > indent + 4:  # a continuation line
            continue
        entries += 1
        names, colon, reason = line.strip().partition(":")
        if not colon or not reason.strip():
            problems.append(f"entry without a reason: {line.strip()!r}")
        for name in (n.strip() for n in names.split(",")):
            if _exception(name) is None:
                problems.append(f"{name!r} is not an exception class")
    if not entries:
        problems.append("an empty Raises: section")
    return problems


ALL_CALLABLES = list(public_callables())


def test_the_rule_reads_sections_as_written():
    good = (
        "Summary.\n\nRaises:\n    TypeError: ``x`` is not an int.\n"
        "    ClosedObjectError, DnnlError: closed,\n        or oneDNN fails.\n"
    )
    assert raises_problems(good) == []
    assert raises_problems("Summary.") == ["no Raises: section"]
    assert raises_problems("Summary.\n\nRaises:\n\nMore.") == ["an empty Raises: section"]
    assert raises_problems("Raises:\n    Bogus: reason.") == ["'Bogus' is not an exception class"]
    assert raises_problems("Raises:\n    TypeError") == ["entry without a reason: 'TypeError'"]
    assert raises_problems("Raises nothing: a record.") == []


def test_the_public_surface_is_found():
    names = {name for name, _, _ in ALL_CALLABLES}
    assert {"core.Engine", "core.Engine.cpu", "core.reorder", "ocl.make_engine", "ze.execute",
            "cache.CacheBlobStore", "core.Memory.data_handle",
            "core.Primitive.execute", "core.Stream.wait"} <= names  # methods of C too
    assert len(names) > 80


@pytest.mark.parametrize(("name", "obj", "doc"), ALL_CALLABLES, ids=[name for name, _, _ in ALL_CALLABLES])
def test_every_public_callable_says_what_it_raises(name, obj, doc):
    assert raises_problems(doc) == [], f"{name}: {raises_problems(doc)}"


def _shown_by_pydoc() -> Iterator[tuple[str, object]]:
    """Functions and classes of this package that ``help(dnnl_interop)`` renders."""
    for name in dir(dnnl_interop):
        obj = getattr(dnnl_interop, name)
        if inspect.isfunction(obj) or inspect.isclass(obj):
            yield name, obj
        if inspect.isclass(obj):
            for member, value in vars(obj).items():
                function = value.fget if isinstance(value, property) else getattr(value, "__func__", value)
                shown = inspect.isfunction(function) or inspect.ismethoddescriptor(function)
                if shown and (not member.startswith("_") or member.startswith("__")):
                    yield f"{name}.{member}", function


def test_help_never_shows_source_comments_in_place_of_a_docstring():
    # pydoc prints the comment block above a function or class that has no
    # docstring: a stray fragment of the source in the middle of help().
    fragments = {
        name: inspect.getcomments(obj)
        for name, obj in _shown_by_pydoc()
        if inspect.getdoc(obj) is None and inspect.getcomments(obj)
    }
    assert fragments == {}


def test_help_shows_no_cffi_pointer_as_a_default():
    text = pydoc.render_doc(dnnl_interop, renderer=pydoc.plaintext)
    assert "<cdata 'void *' 0xffffffffffffffff>" not in text
    assert re.search(r"buffer(: '[^']*' = |=)MEMORY_ALLOCATE\)", text)
    for name, obj in _shown_by_pydoc():
        try:
            signature = str(inspect.signature(obj))
        except (TypeError, ValueError):  # no signature to show
            continue
        assert "<cdata" not in signature, f"{name}{signature}"
    for name, obj, _ in ALL_CALLABLES:
        if callable(obj):
            try:
                signature = str(inspect.signature(obj))
            except (TypeError, ValueError):
                continue
            assert "<cdata" not in signature, f"{name}{signature}"


def test_memory_allocate_is_a_named_constant_that_still_allocates(real_dnnl):
    from dnnl_interop._ffi import lib

    allocate = dnnl_interop.MEMORY_ALLOCATE
    assert repr(allocate) == "MEMORY_ALLOCATE"
    assert copy.copy(allocate) is allocate and copy.deepcopy(allocate) is allocate
    assert pickle.loads(pickle.dumps(allocate)) is allocate
    engine = dnnl_interop.Engine.cpu()
    desc = dnnl_interop.MemoryDesc((2, 3), "f32", "ab")
    with dnnl_interop.Memory(desc, engine, allocate) as named, \
            dnnl_interop.Memory(desc, engine, lib.DNNL_MEMORY_ALLOCATE) as raw:
        assert named.data_handle != 0 and raw.data_handle != 0 and named.data_handle != raw.data_handle
        with pytest.raises(ValueError, match=r"^buffer: MEMORY_ALLOCATE only applies when a memory is created"):
            named.set_data_handle(allocate)
    engine.close()


def test_str_of_version_shows_the_number_the_hash_and_the_runtimes(real_dnnl):
    found = dnnl_interop.version()
    assert str(found) == f"oneDNN {TARGET_ONEDNN} ({found.hash[:8]}, CPU: SYCL, GPU: SYCL)"
    assert found.number == TARGET_ONEDNN
    assert re.fullmatch(r"[0-9a-f]{40}", found.hash)


def test_repr_of_version_keeps_every_field(real_dnnl):
    found = dnnl_interop.version()
    text = repr(found)
    assert text.startswith("Version(major=")
    assert f"hash='{found.hash}'" in text and "cpu_runtime=<Runtime.SYCL: 512>" in text


def test_str_of_a_version_without_hash_or_with_an_unknown_runtime_says_so():
    assert str(Version(1, 2, 3, "", Runtime.NONE, 77)) == "oneDNN 1.2.3 (no hash, CPU: NONE, GPU: 77)"


# --- oneDNN's own reason: what the hint in every DnnlError message promises ---------

_FAILURES = r'''
import sys
import pyopencl as cl
import dnnl_interop as dnnl
from dnnl_interop import ocl

[intel] = [p for p in cl.get_platforms() if p.vendor.startswith("Intel")]
device = intel.get_devices()[0]
try:
    ocl.make_engine(device, cl.Context([device]))
except dnnl.InvalidArgumentsError as exc:
    print("MESSAGE", exc, flush=True)
engine = dnnl.Engine.cpu()
try:
    dnnl.reorder(dnnl.MemoryDesc((2, 3), "f32", "ab"), dnnl.MemoryDesc((3, 2), "f32", "ab"), engine)
except dnnl.InvalidArgumentsError as exc:
    print("MESSAGE", exc, flush=True)
'''


def _run_failures(**environment: str) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("ONEDNN_VERBOSE", "DNNL_VERBOSE")}
    env.update(environment)
    done = subprocess.run([sys.executable, "-c", _FAILURES], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_every_dnnl_error_says_onednns_reason_or_how_to_see_it():
    messages = [line for line in _run_failures() if line.startswith("MESSAGE")]
    assert len(messages) == 2
    engine, reorder = messages
    assert engine.endswith(f"({dnnl_interop.errors.VERBOSE_HINT})")  # a reason the binding cannot tell
    assert ": the shapes differ, (2, 3) and (3, 2)" in reorder  # the reason, found by the binding
    assert dnnl_interop.errors.VERBOSE_HINT not in reorder
    assert "ONEDNN_VERBOSE=check" in dnnl_interop.errors.VERBOSE_HINT


def test_without_the_variable_onednn_prints_nothing():
    assert not [line for line in _run_failures() if line.startswith("onednn_verbose")]


def test_with_onednn_verbose_error_a_refused_gpu_engine_prints_its_reason_on_stdout():
    # The CPU device of Intel's CPU OpenCL platform is no GPU: oneDNN says so.
    lines = _run_failures(ONEDNN_VERBOSE="error")
    reasons = [line for line in lines if line.startswith("onednn_verbose") and ",error," in line]
    assert any("bad engine kind" in line for line in reasons), lines
    assert lines.index(reasons[0]) < next(i for i, line in enumerate(lines) if line.startswith("MESSAGE"))


def test_with_the_hints_onednn_verbose_check_argument_checks_print_their_reason_too():
    # A reorder between shapes that differ is refused at the "check" level,
    # which "error" (and dnnl_interop.set_verbose) never prints.
    with_check = _run_failures(ONEDNN_VERBOSE="check")
    assert any("create:check,reorder,inconsistent src and dst mds" in line for line in with_check), with_check
    assert any("bad engine kind" in line for line in with_check)  # "check" includes "error"
    with_error = _run_failures(ONEDNN_VERBOSE="error")
    assert not any("create:check" in line for line in with_error)
