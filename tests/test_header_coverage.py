"""The Python mirrors of the headers cover them: an upgrade fails loudly here.

``Status``, ``DataType``, ``EngineKind``, ``ocl.MemoryKind`` and ``Runtime``
are written out by hand (so type checkers see them); each must have exactly
the enumerators of its header enum, by name and value, both in our trimmed
``headers/`` and in the upstream headers of the targeted ``onednn-devel``.
The function table compiled into ``_ffi`` must hold every declaration of the
headers, in order, and every OpenCL and Level Zero interop function must be
wrapped by ``ocl`` or ``ze``. Counts come from the headers, never from here.
"""

from __future__ import annotations

import enum
import importlib.util
import re
import sys
from collections.abc import Callable
from types import ModuleType

import pytest

from conftest import ROOT, UPSTREAM_HEADERS
from dnnl_interop import Runtime, ocl, sycl
from dnnl_interop._engine_blob import CHECKED_VERSIONS
from dnnl_interop._ffi import ffi, lib
from dnnl_interop._library import FUNCTIONS
from dnnl_interop._target import ONEDNN_PYPI_VERSION, TARGET_MAJOR_MINOR
from dnnl_interop.core import DataType, EngineKind
from dnnl_interop.errors import Status

HEADER_DIR = ROOT / "headers"
INTEROP_PREFIXES = {"ocl": "dnnl_ocl_interop_", "ze": "dnnl_ze_interop_", "sycl": "dnnl_sycl_interop_"}


def _load_cdef() -> ModuleType:
    spec = importlib.util.spec_from_file_location("header_coverage_cdef", ROOT / "dnnl_interop" / "_cdef.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


_cdef = _load_cdef()
OURS = _cdef.read_headers(HEADER_DIR)
# The upstream files ours are trimmed from (the handle stand-ins are ours alone).
UPSTREAM = _cdef.parse("\n".join(
    (UPSTREAM_HEADERS / name).read_text() for name in _cdef.HEADERS if (UPSTREAM_HEADERS / name).is_file()
))
SOURCES = {"headers/": OURS, "onednn-devel": UPSTREAM}
# dnnl_config.h alone: its DNNL_RUNTIME_* name runtimes (dnnl_types.h's DNNL_RUNTIME_*_VAL are wildcards).
CONFIGS = {
    "headers/": _cdef.read_headers(HEADER_DIR, ["dnnl_config.h"]),
    "onednn-devel": _cdef.parse((UPSTREAM_HEADERS / "dnnl_config.h").read_text()),
}


def _public(enumerators: dict[str, int]) -> dict[str, int]:
    """An enum's enumerators without oneDNN's ``*_max`` sentinel ("to prevent UB
    for internal-use-only values"), which no caller passes or receives."""
    return {name: value for name, value in enumerators.items() if not name.endswith("_max")}


# Each C enum's Python mirror, and how the mirror names a C enumerator.
MIRRORS: dict[str, tuple[type[enum.IntEnum], Callable[[str], str]]] = {
    "dnnl_status_t": (Status, lambda c: c.removeprefix("dnnl_").upper()),
    "dnnl_data_type_t": (DataType, lambda c: c.removeprefix("dnnl_").removeprefix("data_type_").upper()),
    "dnnl_engine_kind_t": (EngineKind, lambda c: c.removeprefix("dnnl_").removesuffix("_engine").upper()),
    "dnnl_ocl_interop_memory_kind_t": (ocl.MemoryKind, lambda c: c.removeprefix("dnnl_ocl_interop_").upper()),
    "dnnl_sycl_interop_memory_kind_t": (sycl.MemoryKind, lambda c: c.removeprefix("dnnl_sycl_interop_").upper()),
}


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("c_enum", MIRRORS)
def test_python_enum_has_exactly_the_header_enumerators(c_enum, source):
    """Each enumerator of the header enum is a member of its mirror under the
    derived name with the same value, in the header's order, and the mirror
    has no member the header lacks."""
    mirror, python_name = MIRRORS[c_enum]
    header = SOURCES[source].enums
    assert c_enum in header, f"{source} declares no {c_enum}"
    expected = [(python_name(c), value) for c, value in _public(header[c_enum]).items()]
    assert expected, f"{c_enum} of {source} has no enumerators"
    actual = [(member.name, member.value) for member in mirror]
    assert actual == expected, (
        f"{mirror.__qualname__} differs from {c_enum} of {source}: "
        f"missing {sorted(set(expected) - set(actual))}, extra {sorted(set(actual) - set(expected))}"
    )


@pytest.mark.parametrize("source", CONFIGS)
def test_runtime_has_every_runtime_identifier(source):
    """Runtime has a member for each DNNL_RUNTIME_* value of dnnl_config.h
    (DPCPP is an alias of SYCL's value), named after it."""
    constants = {
        name.removeprefix("DNNL_RUNTIME_"): value
        for name, value in CONFIGS[source].int_constants.items()
        if name.startswith("DNNL_RUNTIME_")
    }
    assert constants, f"{source}: no DNNL_RUNTIME_* constants"
    assert {member.value for member in Runtime} == set(constants.values())
    for member in Runtime:
        assert constants.get(member.name) == member.value, member.name


def test_function_table_holds_every_declaration_in_order():
    """The table compiled into _ffi (what _library binds) is exactly the
    headers' functions in header order, each callable through lib: a header
    regenerated without a rebuild, or a declaration lost, fails here."""
    declared = tuple(function.name for function in OURS.functions)
    assert declared == FUNCTIONS
    for name in declared:
        assert callable(getattr(lib, name)), name


@pytest.mark.parametrize("runtime", INTEROP_PREFIXES)
def test_interop_functions_are_upstreams_and_all_in_the_table(runtime):
    """The table's dnnl_{ocl,ze}_interop_* functions are exactly those the
    targeted upstream release declares (none dropped, none invented)."""
    prefix = INTEROP_PREFIXES[runtime]
    ours = [name for name in FUNCTIONS if name.startswith(prefix)]
    theirs = sorted(f.name for f in UPSTREAM.functions if f.name.startswith(prefix))
    assert theirs, f"upstream declares no {prefix}* function"
    assert sorted(ours) == theirs


@pytest.mark.parametrize("runtime", INTEROP_PREFIXES)
def test_every_interop_function_is_wrapped(runtime):
    """Each interop function of the headers is called by the module of its
    runtime (dnnl_interop/ocl.py or ze.py) or by the modules it builds on
    for what the object modules share with it (memory on every runtime,
    runtime queries, OpenCL execution ordered by pyopencl Arrays' events),
    directly or through its generated size-query-then-fill helper."""
    prefix = INTEROP_PREFIXES[runtime]
    modules = (f"{runtime}.py", "_memory.py", "_runtime.py", "_array_events.py", f"_{runtime}_memory.py")
    source = "".join((ROOT / "dnnl_interop" / name).read_text() for name in modules
                     if (ROOT / "dnnl_interop" / name).is_file())
    unwrapped = [
        name for name in FUNCTIONS
        if name.startswith(prefix) and not re.search(rf"\blib\.(dnnl_interop_sized_)?{name}\b", source)
    ]
    assert not unwrapped, f"not called by dnnl_interop/{', '.join(modules)}: {unwrapped}"


def test_core_functions_are_the_rest_of_the_table():
    """Every function of the table is an OpenCL, a Level Zero or a core
    function of oneDNN (dnnl_*), and each group is present."""
    groups: dict[str, list[str]] = {"ocl": [], "ze": [], "sycl": [], "core": []}
    for name in FUNCTIONS:
        runtime = next((r for r, p in INTEROP_PREFIXES.items() if name.startswith(p)), "core")
        groups[runtime].append(name)
    assert all(name.startswith("dnnl_") for name in groups["core"])
    assert all(groups.values()), groups
    assert "dnnl_version" in groups["core"] and "dnnl_primitive_execute" in groups["core"]


def test_status_type_in_the_binding_is_the_headers():
    """The compiled dnnl_status_t is the header's (a rebuild is not forgotten)."""
    assert ffi.typeof("dnnl_status_t").relements == OURS.enums["dnnl_status_t"]


# --- release knowledge that is not in the headers ----------------------------------


def test_engine_cache_blob_layout_is_known_for_the_targeted_release():
    """_engine_blob walks an engine cache blob by one release's layout before
    oneDNN parses it (a bad blob aborts the process); for a release it does
    not know it checks nothing. The targeted release must be known: after an
    upgrade, compare src/gpu/intel/compute/device_info.cpp and add it."""
    assert TARGET_MAJOR_MINOR in CHECKED_VERSIONS


def test_readme_names_the_targeted_release():
    """The README's opening says which release the binding targets."""
    major, minor = TARGET_MAJOR_MINOR
    readme = (ROOT / "README.md").read_text()
    assert f"Targets oneDNN **{major}.{minor}** (PyPI `onednn=={ONEDNN_PYPI_VERSION}`)" in readme
