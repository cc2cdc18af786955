"""Read the DT_NEEDED entries of an ELF shared object.

The ``onednn`` wheel puts libdnnl and the libraries it needs side by side in
``<prefix>/lib``, which is not on the loader's search path. Knowing a file's
NEEDED names lets the loader open those siblings by full path first, in
dependency order, with no ``LD_LIBRARY_PATH``.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    import mmap
    from types import ModuleType

_SHT_DYNAMIC = 6
_DT_NULL, _DT_NEEDED = 0, 1


def needed(path: str) -> list[str]:
    """NEEDED sonames of a 64- or 32-bit ELF file; [] if it is not ELF.

    Raises ValueError for a file that starts like ELF but does not parse.
    """
    import struct  # only needed when loading, not at import

    try:
        return _needed(path, struct)
    except (struct.error, IndexError, UnicodeDecodeError) as exc:
        raise ValueError(f"malformed ELF file: {exc}") from None


def _needed(path: str, struct: ModuleType) -> list[str]:
    import mmap

    # Mapped, not read: only the pages holding the headers and the dynamic
    # section are touched (libdnnl is over 100 MB).
    with open(path, "rb") as f:
        if f.seek(0, 2) < 64:
            return []
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            return _parse(data, struct)


def _parse(data: mmap.mmap, struct: ModuleType) -> list[str]:
    if data[:4] != b"\x7fELF":
        return []
    is64 = data[4] == 2
    endian = "<" if data[5] == 1 else ">"
    if is64:
        shoff, = struct.unpack_from(endian + "Q", data, 0x28)
        shentsize, shnum = struct.unpack_from(endian + "HH", data, 0x3A)
        section = endian + "IIQQQQIIQQ"  # name type flags addr offset size link info align entsize
        dyn, dynsize = endian + "qQ", 16
    else:
        shoff, = struct.unpack_from(endian + "I", data, 0x20)
        shentsize, shnum = struct.unpack_from(endian + "HH", data, 0x2E)
        section = endian + "IIIIIIIIII"
        dyn, dynsize = endian + "iI", 8
    headers = [struct.unpack_from(section, data, shoff + i * shentsize) for i in range(shnum)]
    names: list[str] = []
    for header in headers:
        if header[1] != _SHT_DYNAMIC:
            continue
        offset, size, link = header[4], header[5], header[6]
        strtab = headers[link][4]
        for pos in range(offset, offset + size, dynsize):
            tag, value = struct.unpack_from(dyn, data, pos)
            if tag == _DT_NULL:
                break
            if tag == _DT_NEEDED:
                end = data.find(b"\0", strtab + value)
                if end < 0:
                    raise IndexError("unterminated name")
                names.append(data[strtab + value : end].decode())
    return names
