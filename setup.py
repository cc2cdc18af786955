"""Build hooks; all other metadata lives in pyproject.toml.

* ``cffi_modules``: the ``dnnl_interop._ffi`` extension (build_ffi.py).
* ``NATIVE_LIBRARIES``: plain C shared libraries (no Python module, no
  libpython, no OpenCL SDK) that ship inside the package for test support,
  e.g. the emulated-GPU OpenCL loader layer. Add one entry to add one.
* ``GLIBC_2_2_5_LIBRARIES``: what each compiled file names on x86-64 glibc so
  that the wheel loads on glibc older than the build machine's (its
  manylinux tag). The C sources bind ``dlopen``, ``pthread_once`` and their
  kin to their first symbol versions (glibc 2.34 gave them new ones when it
  moved them into libc); before 2.34 they live in libdl.so.2 and
  libpthread.so.0, which a link there names and one on 2.34 or later does
  not (``-ldl`` finds an empty archive), so they are named by soname.
* ``BDIST_WHEEL``: the wheel's tag. cffi compiles the extension in the limited
  API (it defines ``Py_LIMITED_API``, so ``_ffi.abi3.so``) unless the
  interpreter is a debug or free-threaded build, and the native libraries use
  no Python at all: one wheel then serves every CPython from the lowest
  ``requires-python`` up, tagged ``cp310-abi3``.
"""

import platform
import sys
import sysconfig
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

KHRONOS_HEADERS = Path("headers") / "khronos"
LOWEST_PYTHON = "cp310"  # requires-python in pyproject.toml


def _cffi_uses_the_limited_api() -> bool:
    """What cffi's setuptools hook decides for ``dnnl_interop._ffi`` (its ``_set_py_limited_api``)."""
    from cffi import recompiler

    debug_build = hasattr(sys, "gettotalrefcount")
    free_threaded = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))
    return recompiler.USE_LIMITED_API and not debug_build and not free_threaded


BDIST_WHEEL = {"py_limited_api": LOWEST_PYTHON} if _cffi_uses_the_limited_api() else {}

GLIBC_2_2_5_LIBRARIES = {
    "dnnl_interop._ffi": ["libdl.so.2"],
    "dnnl_interop.testing.libdnnl_interop_emulated_ze_loader": ["libdl.so.2", "libpthread.so.0"],
}


def _glibc_2_2_5_link_args(name: str) -> list[str]:
    """Link arguments that name ``name``'s libraries of glibc before 2.34 (x86-64 glibc only)."""
    sonames = GLIBC_2_2_5_LIBRARIES.get(name, [])
    if not sonames or platform.machine() != "x86_64" or platform.libc_ver()[0] != "glibc":
        return []
    return ["-Wl,--push-state,--no-as-needed", *(f"-l:{soname}" for soname in sonames), "-Wl,--pop-state"]


class NativeLibrary(Extension):
    """A shared library installed as ``<package dir>/<last part of name>.so``.

    ``name`` is dotted like a module's (``package.libfoo``) but the file is a
    plain library: no ``PyInit_`` symbol, no ABI tag, only the symbols the
    source marks visible (it is compiled with ``-fvisibility=hidden``).
    """

    def __init__(self, name: str, sources: list[str], include_dirs: list[str] = (), **kwargs):
        headers = [str(path) for directory in include_dirs for path in sorted(Path(directory).glob("*.h"))]
        super().__init__(
            name,
            sources=sources,
            include_dirs=list(include_dirs),
            depends=headers,  # rebuild when they change; the sdist carries them
            extra_compile_args=["-fvisibility=hidden"],
            py_limited_api=False,
            **kwargs,
        )


NATIVE_LIBRARIES = []
if sys.platform.startswith("linux"):
    NATIVE_LIBRARIES += [
        NativeLibrary(
            "dnnl_interop.testing.libdnnl_interop_emulated_gpu",
            sources=["dnnl_interop/testing/_emulated_gpu_layer.c"],
            include_dirs=[str(KHRONOS_HEADERS)],
        ),
    ]
    # The emulated Level Zero loader: its soname is the one libdnnl dlopens.
    NATIVE_LIBRARIES += [
        NativeLibrary(
            "dnnl_interop.testing.libdnnl_interop_emulated_ze_loader",
            sources=["dnnl_interop/testing/_emulated_ze_loader.c"],
            include_dirs=["headers", str(Path("headers") / "level_zero")],
            extra_link_args=["-Wl,-soname,libze_loader.so.1"],
        ),
    ]


class BuildExt(build_ext):
    """build_ext that names, exports and links :class:`NativeLibrary` entries plainly."""

    def _native(self, name: str) -> bool:
        # distutils asks with the full dotted name and with its last part alone.
        return any(
            isinstance(ext, NativeLibrary) and name in (ext.name, ext.name.rpartition(".")[2])
            for ext in self.extensions
        )

    def get_ext_filename(self, fullname: str) -> str:
        if self._native(fullname):
            return str(Path(*fullname.split("."))) + ".so"
        return super().get_ext_filename(fullname)

    def get_export_symbols(self, ext):
        return [] if isinstance(ext, NativeLibrary) else super().get_export_symbols(ext)

    def get_libraries(self, ext):
        return list(ext.libraries) if isinstance(ext, NativeLibrary) else super().get_libraries(ext)

    def build_extensions(self):
        # An interpreter configured with LDFLAGS=-Wl,-rpath,<its lib dir> (pyenv's
        # are) passes that to every link. Nothing here links a library from there,
        # and the wheel must not carry the build machine's paths: drop it.
        self.compiler.linker_so = [arg for arg in self.compiler.linker_so if not arg.startswith("-Wl,-rpath")]
        for ext in self.extensions:
            ext.extra_link_args = [*ext.extra_link_args, *_glibc_2_2_5_link_args(ext.name)]
        super().build_extensions()


setup(
    cffi_modules=["build_ffi.py:ffibuilder"],
    ext_modules=NATIVE_LIBRARIES,
    cmdclass={"build_ext": BuildExt},
    options={"bdist_wheel": BDIST_WHEEL},
)
