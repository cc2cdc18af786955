"""Checking an engine cache blob's structure before oneDNN parses it.

oneDNN 3.13 parses an engine cache blob without any check (its serialized
device description: ``src/gpu/intel/compute/device_info.cpp``): a truncated
blob reads past its end, and a corrupted name length makes it allocate
whatever the bytes say and abort the process (``std::bad_alloc``). The
layout is fixed for a release; this module walks it and refuses a blob whose
fields do not add up to exactly its length, or whose flags are not 0 or 1.
It cannot tell a well-formed blob of another device: that is what keying
blobs by their id is for (``CacheBlobStore``).
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing_extensions import Buffer

# The layout of 3.13: (format, is a run of bools) after the leading
# int gpu_arch and bool has_product [+ 3 ints of the product].
_FIELDS = (
    ("<I", False),      # IP version
    ("<3i", False),     # runtime version
    ("<3i", False),     # EU count, max EUs per work-group, max subgroup size
    ("<i", False),      # max exec size
    ("<4Q", False),     # max work-group size, memory size, L3 size, max kernel param size
    ("<I", False),      # address bits
    ("<3Q", False),     # max allocation, extensions, native extensions
    ("<5B", True),      # five bools
)
CHECKED_VERSIONS = ((3, 13),)


def check_engine_cache_blob(blob: Buffer, version: tuple[int, int], what: str = "cache_blob") -> None:
    """Raise ValueError unless ``blob`` (bytes-like) is laid out as ``version`` writes one."""
    if tuple(version) not in CHECKED_VERSIONS:
        return  # another release's layout: left to oneDNN
    data = memoryview(blob).cast("B")
    try:
        offset = 4  # int gpu_arch
        has_product = data[offset]
        if has_product > 1:
            raise ValueError("its has-product flag is not a bool")
        offset += 1 + (12 if has_product else 0)
        for fmt, bools in _FIELDS:
            values = struct.unpack_from(fmt, data, offset)
            if bools and any(value > 1 for value in values):
                raise ValueError("a flag is not a bool")
            offset += struct.calcsize(fmt)
        (name_length,) = struct.unpack_from("<Q", data, offset)
        offset += 8
    except (struct.error, IndexError):
        raise ValueError(f"{what}: not an engine cache blob: {len(data)} bytes, too short") from None
    except ValueError as exc:
        raise ValueError(f"{what}: not an engine cache blob: {exc}") from None
    if offset + name_length != len(data):
        raise ValueError(
            f"{what}: not an engine cache blob: its fields need {offset} + {name_length} bytes, "
            f"it has {len(data)}"
        )
