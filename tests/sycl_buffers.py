"""SYCL buffers made in C++, for the tests of ``sycl.set_buffer``.

No Python library holds a ``sycl::buffer``: a user who has one made it in
C++. This module compiles the few lines that make, read and destroy a
``sycl::buffer<uint8_t, 1>`` against the SYCL runtime oneDNN's wheel brings
(``intel-sycl-rt`` ships the headers and ``libsycl``). Host code only, so the
system's C++ compiler builds it: no SYCL compiler is needed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import cffi

SOURCE = r"""
#include <sycl/sycl.hpp>
#include <cstdint>
#include <cstring>

using byte_buffer = sycl::buffer<uint8_t, 1>;

extern "C" void *make_buffer(size_t size) { return new byte_buffer(sycl::range<1>(size)); }
extern "C" void destroy_buffer(void *buffer) { delete static_cast<byte_buffer *>(buffer); }
extern "C" void read_buffer(void *buffer, void *out, size_t size) {
    sycl::host_accessor bytes(*static_cast<byte_buffer *>(buffer), sycl::read_only);
    std::memcpy(out, bytes.get_pointer(), size);
}
"""
CDEF = "void *make_buffer(size_t); void destroy_buffer(void *); void read_buffer(void *, void *, size_t);"


def compile_buffers(directory: Path) -> Path:
    """Build the library in ``directory`` against this environment's SYCL runtime."""
    prefix = Path(sys.prefix)
    library = next((prefix / "lib").glob("libsycl.so.[0-9]*[0-9]"), None)
    if not (prefix / "include" / "sycl" / "sycl.hpp").is_file() or library is None:
        raise RuntimeError(f"no SYCL headers and libsycl under {prefix}: onednn's dependency intel-sycl-rt is missing")
    source = directory / "sycl_buffers.cpp"
    source.write_text(SOURCE)
    target = directory / "libsycl_buffers.so"
    subprocess.run(
        ["c++", "-std=c++17", "-shared", "-fPIC", "-O1", "-w", "-DSYCL_DISABLE_FSYCL_SYCLHPP_WARNING",
         f"-I{prefix / 'include'}", str(source), "-o", str(target),
         f"-L{library.parent}", f"-l:{library.name}", f"-Wl,-rpath,{library.parent}"],
        check=True, capture_output=True, timeout=300,
    )
    return target


class Buffers:
    """The compiled library: :meth:`make` a buffer, read it, destroy it."""

    def __init__(self, library: Path) -> None:
        self.ffi = cffi.FFI()
        self.ffi.cdef(CDEF)
        self.lib = self.ffi.dlopen(str(library))

    def make(self, size: int) -> int:
        """The address of a new ``sycl::buffer<uint8_t, 1>`` of ``size`` bytes."""
        return int(self.ffi.cast("uintptr_t", self.lib.make_buffer(size)))

    def read(self, address: int, size: int) -> bytes:
        """The buffer's first ``size`` bytes, through a host accessor (which waits for its writers)."""
        out = self.ffi.new("uint8_t[]", size)
        self.lib.read_buffer(self.ffi.cast("void *", address), out, size)
        return bytes(self.ffi.buffer(out))

    def destroy(self, address: int) -> None:
        self.lib.destroy_buffer(self.ffi.cast("void *", address))
