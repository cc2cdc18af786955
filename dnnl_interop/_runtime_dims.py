"""Runtime dimensions (``RUNTIME_DIM``, oneDNN's ``DNNL_RUNTIME_DIM_VAL``): a primitive
made for shapes known only at execute, whose memories then have concrete shapes.

oneDNN takes such descriptors for matmul and reorder. At execute it reads each
argument through the memory's own descriptor, and checks neither that a
memory fits the descriptor the primitive was made with nor that the memories
agree with one another: a dst of fewer rows than src, or a binary post-op
input of fewer rows than dst, is written or read out of bounds. Execute
checks both here, before oneDNN runs (``_execution``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from ._args import ARGS
from ._enums import DataType, FormatKind
from ._memory_desc import layout_key
from ._validate import RUNTIME_DIM

if TYPE_CHECKING:
    from ._memory import Memory

__all__ = ["RUNTIME_DIM", "check_layout", "check_shapes", "has_runtime_dims"]

_SRC, _WEIGHTS, _DST, _BIAS = ARGS["ARG_SRC"], ARGS["ARG_WEIGHTS"], ARGS["ARG_DST"], ARGS["ARG_BIAS"]
_FROM, _TO, _SCRATCHPAD = ARGS["ARG_FROM"], ARGS["ARG_TO"], ARGS["ARG_SCRATCHPAD"]
_CONDITION = ARGS["ARG_SRC_2"]  # a select post-op's condition: dst's shape, no broadcast
_POST_OP_BASE = 32768  # DNNL_ARG_ATTR_MULTIPLE_POST_OP_BASE


def has_runtime_dims(layout: tuple[object, ...]) -> bool:
    """Whether a layout key (``MemoryDesc._layout``) has a runtime dimension."""
    shape = layout[1]
    return isinstance(shape, tuple) and RUNTIME_DIM in shape


def _shown(shape: tuple[int, ...]) -> str:
    return "(" + ", ".join("RUNTIME_DIM" if d == RUNTIME_DIM else str(d) for d in shape) + \
        ("," if len(shape) == 1 else "") + ")"


def check_layout(what: str, memory: Memory, expected: tuple[object, ...]) -> None:
    """Raise ValueError unless ``memory`` is a concrete instance of the runtime-dims layout
    ``expected``: its data type, its number of dimensions, every dimension not
    ``RUNTIME_DIM``, and the order of its plain layout (each stride the descriptor
    fixes, on dimensions of more than one element)."""
    desc = memory.desc
    given = layout_key(desc)
    dtype, shape = expected[0], expected[1]
    assert isinstance(dtype, DataType) and isinstance(shape, tuple)
    made = f"the primitive was made for {_shown(shape)} of {dtype.name.lower()}"
    if given[0] != dtype:
        raise ValueError(
            f"{what}: the memory holds {desc.data_type.name.lower()}, {made}; give a memory of "
            f"{dtype.name.lower()} (the data type is not a runtime parameter)"
        )
    if len(desc.shape) != len(shape):
        raise ValueError(f"{what}: the memory has {desc.ndim} dimensions ({desc!r}); {made}")
    for i, (want, got) in enumerate(zip(shape, desc.shape, strict=True)):
        if want != RUNTIME_DIM and want != got:
            raise ValueError(
                f"{what}: dim {i} of the memory is {got}, {made}: only the dimensions made RUNTIME_DIM "
                f"take their size at execute (the memory is {desc!r})"
            )
    fixed = expected[6]
    assert isinstance(fixed, tuple)
    strides = desc.strides
    if given[2] != FormatKind.BLOCKED or strides is None or given[5] or any(
        want != RUNTIME_DIM and n > 1 and want != got for want, got, n in zip(fixed, strides, desc.shape, strict=True)
    ):
        raise ValueError(
            f"{what}: the memory's layout, {desc!r}, is not the plain layout the primitive was made with "
            f"(strides {_shown(tuple(fixed))} in elements, RUNTIME_DIM where a runtime dimension sets them); "
            "give a memory of the same format tag with the concrete shape"
        )


def check_shapes(
    args: Mapping[int, Memory | None], layouts: Mapping[int, tuple[object, ...]], name: Callable[[int], str]
) -> None:
    """Raise ValueError unless the memories of a primitive made with runtime dimensions
    (a matmul, or a reorder: the one without weights) agree with one another: what
    oneDNN reads of each is sized by the others' shapes. ``name`` names an argument."""
    shapes = {index: memory.desc.shape for index, memory in args.items()
              if memory is not None and index in layouts}
    if _WEIGHTS not in layouts:
        if _FROM in shapes and _TO in shapes and shapes[_FROM] != shapes[_TO]:
            raise ValueError(
                f"args: the reorder's src is {shapes[_FROM]}, its dst {shapes[_TO]}; a reorder keeps the shape"
            )
        return
    src, weights, dst = shapes.get(_SRC), shapes.get(_WEIGHTS), shapes.get(_DST)
    if src is None or weights is None or dst is None:
        return  # oneDNN refuses the execution without them
    rule = "src (..., M, K) × weights (..., K, N) → dst (..., M, N)"
    for which, have, other, wanted in (("weights", weights[-2], "src's K", src[-1]),
                                      ("dst", dst[-2], "src's M", src[-2]),
                                      ("dst", dst[-1], "weights' N", weights[-1])):
        if have != wanted:
            raise ValueError(
                f"args: the memories' shapes do not multiply: src {src}, weights {weights}, dst {dst} ({which} "
                f"has {have} where {other} is {wanted}; {rule})"
            )
    for i in range(len(dst) - 2):
        if src[i] not in (1, dst[i]) or weights[i] not in (1, dst[i]) or dst[i] != max(src[i], weights[i]):
            raise ValueError(
                f"args: batch dim {i}: src {src[i]}, weights {weights[i]}, dst {dst[i]}; dst's is the larger, "
                "and each of src's and weights' is it or 1"
            )
    for index, shape in shapes.items():
        layout = layouts.get(index)
        if index in (_SRC, _WEIGHTS, _DST, _SCRATCHPAD) or layout is None or not isinstance(layout[1], tuple):
            continue
        # A select's condition is never broadcast; nor is a dimension given as RUNTIME_DIM (a bias, a
        # PReLU post-op's weights): the primitive was made to read dst's size there.
        condition = index >= _POST_OP_BASE and index % _POST_OP_BASE == _CONDITION
        made = layout[1]
        if len(shape) != len(dst) or any(
            n != d and (condition or n != 1 or want == RUNTIME_DIM)
            for n, d, want in zip(shape, dst, made, strict=True)
        ):
            needs = "dst's shape" if condition else \
                "dst's size in each dimension made RUNTIME_DIM, dst's size or 1 in the others"
            raise ValueError(
                f"{name(index)}: the memory's shape, {shape}, does not fit dst's {dst}: oneDNN reads it with "
                f"{needs}"
            )
