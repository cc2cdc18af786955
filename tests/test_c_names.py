"""Every C name the package spells out in a string is one the compiled module declares.

The package names oneDNN's functions in strings: in its messages
(``check(status, "dnnl_memory_create")``, ``status_error``, ``make_error``), to
look functions up (``getattr(lib, name)``, ``has_function``), in the tables of
its creators (``_function = "dnnl_..._primitive_desc_create"``) and its
destroyers (``_destroy_name``), and types for ``ffi.new``. A misspelt name
would surface only on a user's error path: a message that names no function,
an ``AttributeError`` in place of the error. So every module of the package is
read here with ``ast``, and every string (or bytes) literal that is a whole
``dnnl_`` identifier must name a function, constant or enumerator of ``lib``,
or a type of ``ffi``. A literal that ends in ``_`` is a prefix
(``"dnnl_ocl_interop_"``), and the package's own name is no C name.
"""

from __future__ import annotations

import ast
import re

from conftest import ROOT
from dnnl_interop import _cdef
from dnnl_interop._ffi import ffi, lib

PACKAGE = ROOT / "dnnl_interop"
C_NAME = re.compile(r"dnnl_\w*[a-z0-9]")
NOT_C_NAMES = {"dnnl_interop"}  # the package (its logger, its module names)


def _declared(name: str) -> bool:
    if hasattr(lib, name):
        return True
    try:
        ffi.typeof(name)
    except ffi.error:
        return False
    return True


def unknown_names(source: str) -> list[tuple[int, str]]:
    """(line, literal) of each ``dnnl_`` identifier in ``source``'s literals that ``_ffi`` does not declare."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
            text = node.value.decode("ascii", "replace") if isinstance(node.value, bytes) else node.value
            if C_NAME.fullmatch(text) and text not in NOT_C_NAMES and not _declared(text):
                found.append((node.lineno, text))
    return sorted(found)


def test_every_c_name_in_the_package_s_strings_is_declared():
    modules = sorted(PACKAGE.rglob("*.py"))
    assert len(modules) > 40
    unknown = {
        str(path.relative_to(ROOT)): names for path in modules if (names := unknown_names(path.read_text()))
    }
    assert unknown == {}


def test_the_package_names_many_functions_in_strings():
    """The check above reads the strings it is meant for: the package's many function names."""
    named = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and C_NAME.fullmatch(node.value):
                named.add(node.value)
    functions = {f.name for f in _cdef.read_headers(ROOT / "headers").functions}
    assert len(named & functions) > 100


def test_a_misspelt_name_is_found_wherever_the_package_writes_it():
    source = '''
check(lib.dnnl_memory_create(out, md, engine, handle), "dnnl_memroy_create")
raise status_error(status, "dnnl_engine_craete")
raise make_error(Status.UNIMPLEMENTED, "dnnl_matmul_primitive_desc_creat", reason, reason)
function = getattr(lib, "dnnl_stream_wiat")
_function = "dnnl_convolution_forwrd_primitive_desc_create"
lib.dlsym(handle, b"dnnl_verison")
ffi.new("dnnl_dim_t *")
logger = logging.getLogger("dnnl_interop")
prefix = "dnnl_ocl_interop_"
message = f"dnnl_{kind}_create failed"
check(status, "dnnl_memory_create")
'''
    assert unknown_names(source) == [
        (2, "dnnl_memroy_create"),
        (3, "dnnl_engine_craete"),
        (4, "dnnl_matmul_primitive_desc_creat"),
        (5, "dnnl_stream_wiat"),
        (6, "dnnl_convolution_forwrd_primitive_desc_create"),
        (7, "dnnl_verison"),
    ]
