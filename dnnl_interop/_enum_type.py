"""The metaclass of the package's enums: ``dir()`` of an enum class lists its members.

``class DataType(enum.IntEnum, metaclass=EnumType)``: an ordinary IntEnum
(or IntFlag) in every other way. ``dir()`` of a stock IntEnum class lists
every method of ``int`` besides its members, and ``help()`` shows them all:
some 300 lines per enum, a few of them members. ``dir(DataType)`` here is
its members (aliases included) and the enum's own attributes, so
``help(dnnl_interop)`` shows what each enum holds; ``dir()`` of a member is
unchanged.
"""

from __future__ import annotations

import enum

__all__ = ["EnumType"]

# What dir() of an enum class shows besides its members.
_SHOWN = ("__class__", "__doc__", "__members__", "__module__")


class EnumType(enum.EnumMeta):
    """:class:`enum.EnumMeta` whose ``dir()`` of a class is its members and ``_SHOWN``."""

    def __dir__(cls) -> list[str]:
        return sorted({*_SHOWN, *cls.__members__})
