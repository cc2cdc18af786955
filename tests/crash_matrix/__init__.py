"""The crash matrix: the public API of dnnl_interop under bad input and misuse.

Every case is a snippet of plain user code run in a process of its own
(``runner``), after the fixtures it names (``fixtures``), and must end in a
clean success or a clean exception of the expected class whose message
names the argument (``model``): never a death by signal, never a hang.

* ``generated``: every public function × each argument position × bad
  values (``values``);
* ``sequences_*``: hand-written misuse sequences, by crash class.

Out of scope: an int (or anything whose ``__index__``/``int_ptr`` gives one)
that is in the range of addresses but points at nothing valid, given as a
handle, a buffer or a pointer. No binding can tell it from a real address,
so no such case exists (see ``values``).
"""

from __future__ import annotations

from .model import Case


def all_cases() -> list[Case]:
    """Every case of the matrix, names unique."""
    from . import generated, sequences_lifetime, sequences_loader, sequences_objects, sequences_threads

    cases = (
        generated.cases()
        + sequences_lifetime.cases()
        + sequences_threads.cases()
        + sequences_objects.cases()
        + sequences_loader.cases()
    )
    names = [case.name for case in cases]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise ValueError(f"duplicate case names: {duplicates}")
    return cases
