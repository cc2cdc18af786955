"""Misuse of the loader: what ``load_library`` is pointed at, and ``$DNNL_INTEROP_LIBRARY``.

Every case starts with no library bound (library "none"). A path that is not
a usable oneDNN must give ``LibraryNotFoundError`` quickly: never a hang (a
FIFO, a character device) and never a read without end.
"""

from __future__ import annotations

from .model import TYPE, Case, Either, Ok, Raises

NOT_FOUND = Raises("LibraryNotFoundError")
# Reading /dev/zero to its end would take all memory: cap it for this case
# so that a binding that tries fails fast instead of hurting the machine.
CAP_MEMORY = "import resource\nresource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))\n"


def _case(name: str, code: str, expect=NOT_FOUND, timeout: float = 20.0) -> Case:
    return Case(name, "loader/paths", code, expect, library="none", timeout=timeout)


def cases() -> list[Case]:
    fifo = "import tempfile\npath = os.path.join(tempfile.mkdtemp(), 'libdnnl.so.3')\nos.mkfifo(path)\n"
    return [
        _case("load_library of a FIFO", fifo + "dnnl.load_library(path)"),
        _case("load_library of /dev/zero", CAP_MEMORY + "dnnl.load_library('/dev/zero')"),
        _case("load_library of /dev/null", "dnnl.load_library('/dev/null')"),
        _case("load_library of a directory", "dnnl.load_library(sys.prefix)"),
        _case("load_library of a Python source file", "dnnl.load_library(dnnl.__file__)"),
        _case("load_library of a shared object that is not oneDNN",
              "import dnnl_interop._ffi as f\ndnnl.load_library(f.__file__)"),
        _case("load_library of an empty path", "dnnl.load_library('')"),
        _case("load_library of a missing file", "dnnl.load_library('/nonexistent/libdnnl.so.3')"),
        _case("load_library of a path with a NUL byte", "dnnl.load_library('/tmp/lib\\0dnnl.so')",
              Raises(("LibraryNotFoundError", "ValueError"), ("path",))),
        _case("load_library of an int", "dnnl.load_library(5)", Raises(TYPE, "path")),
        _case("load_library of a list", "dnnl.load_library(['x'])", Raises(TYPE, "path")),
        _case("load_library of a bytes path", "dnnl.load_library(os.fsencode(os.path.join(sys.prefix, 'lib', 'libdnnl.so.3')))",
              Either(Ok(), Raises(TYPE, "path"))),
        _case("load_library of a pathlib.Path", "import pathlib\n"
              "lib = dnnl.load_library(pathlib.Path(sys.prefix, 'lib', 'libdnnl.so.3'))\nassert lib.version.major == 3",
              Ok()),
        _case("load_library of another library once one is bound",
              "dnnl.load_library()\ndnnl.load_library(os.environ['CRASH_MATRIX_STANDIN'])",
              Raises("RuntimeError", ())),
        _case("load_library twice with no path", "assert dnnl.load_library() is dnnl.load_library()", Ok()),
        _case("$DNNL_INTEROP_LIBRARY names a FIFO, then the first call",
              fifo + "os.environ['DNNL_INTEROP_LIBRARY'] = path\ndnnl.Engine.cpu()"),
        _case("$DNNL_INTEROP_LIBRARY names a missing file, then the first call",
              "os.environ['DNNL_INTEROP_LIBRARY'] = '/nonexistent/libdnnl.so.3'\ndnnl.MemoryDesc((2, 2), 'float32', 'ab')"),
        _case("$DNNL_INTEROP_LIBRARY names a missing file, then Engine.cpu()",
              "os.environ['DNNL_INTEROP_LIBRARY'] = '/nonexistent/libdnnl.so.3'\ndnnl.Engine.cpu()"),
        _case("$DNNL_INTEROP_LIBRARY is empty, then the first call",
              "os.environ['DNNL_INTEROP_LIBRARY'] = ''\ndnnl.version()"),
        _case("a failed first call, then the environment fixed, then a call",
              "os.environ['DNNL_INTEROP_LIBRARY'] = '/nonexistent/libdnnl.so.3'\n"
              "try:\n    dnnl.version()\nexcept dnnl.LibraryNotFoundError:\n    pass\n"
              "del os.environ['DNNL_INTEROP_LIBRARY']\nassert dnnl.version().major == 3",
              Either(Ok(), NOT_FOUND)),
        _case("has_function before any load", "assert dnnl.has_function('dnnl_version') is True", Ok()),
    ]
