"""oneDNN's enums as Python enums (engine kinds, data types).

A leaf: values are written out, so importing it loads nothing.
"""

from __future__ import annotations

import enum


class EngineKind(enum.IntEnum):
    """``dnnl_engine_kind_t``."""

    ANY = 0
    CPU = 1
    GPU = 2


class DataType(enum.IntEnum):
    """``dnnl_data_type_t`` (oneDNN's names, upper-cased)."""

    UNDEF = 0
    F16 = 1
    BF16 = 2
    F32 = 3
    S32 = 4
    S8 = 5
    U8 = 6
    F64 = 7
    BOOLEAN = 8
    F8_E5M2 = 9
    F8_E4M3 = 10
    S4 = 11
    U4 = 12
    E8M0 = 13
    F4_E2M1 = 14
    F4_E3M0 = 15
    S64 = 16
