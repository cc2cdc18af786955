"""The crash matrix: the public API of dnnl_interop under bad input and misuse.

Every case is a snippet of plain user code run after the fixtures it names
(``fixtures``), and must end in a clean success or a clean exception of the
expected class whose message names the argument (``model``): never a death
by signal, never a hang. A case that fails does so in a process of its own
(``runner``, ``forkserver``, ``child``); bad-input and single-snippet misuse
cases first run in batches in one process, and only what passes there counts.

* ``generated``: every public function × each argument position × bad
  values (``values``);
* ``sequences_lifetime``: in-flight work dropped, closed or re-pointed;
  interpreter exit with work in flight;
* ``sequences_threads``: concurrent close, close during execute and wait,
  garbage collection in another thread, first calls and fork while loading;
* ``sequences_objects``: copies and pickles, closed objects and their
  children, objects of another engine, context or runtime, results the
  issue found silently wrong;
* ``sequences_loader``: ``load_library`` pointed at what is not a library;
* ``sequences_primitives``: the forward primitives, every kind × each
  argument × bad values, and misuse of attributes, post-ops, scales, layouts
  oneDNN chose, ``reordered``, descriptor queries, closing and threads;
* ``sequences_backward``: the backward primitives, every kind × each argument
  × bad values, ``workspace_memory``, and the hint dropped, closed or moved on
  under backward work, workspaces missing, closed, in flight or of another
  forward, gradients in other layouts, threads, cached creation.

Each case names the library its process binds: ``real`` (oneDNN 3.13, CPU
engine), ``emulated`` (real oneDNN's OpenCL GPU engine on the emulated GPU of
``dnnl_interop.testing``), ``emulated-ze`` (its Level Zero engine on the
emulated Level Zero loader), ``standin`` (the test-only stand-in of
``tests/standin``: GPU-engine bad-input cases, which are refused before C and
cost a tenth of an emulated engine) or ``none`` (nothing bound first).

Out of scope: an int (or anything whose ``__index__``/``int_ptr`` gives one)
that is in the range of addresses but points at nothing valid, given as a
handle, a buffer or a pointer. No binding can tell it from a real address,
so no such case exists (see ``values``).

Run outside pytest, from ``tests/``: ``python -m crash_matrix run [-k TEXT]``;
``python -m crash_matrix show NAME`` prints a case as a standalone program.
"""

from __future__ import annotations

from .model import Case


def all_cases() -> list[Case]:
    """Every case of the matrix, names unique."""
    from . import (
        generated,
        sequences_backward,
        sequences_dlpack,
        sequences_lifetime,
        sequences_loader,
        sequences_objects,
        sequences_primitives,
        sequences_sycl,
        sequences_threads,
    )

    cases = (
        generated.cases()
        + sequences_lifetime.cases()
        + sequences_threads.cases()
        + sequences_objects.cases()
        + sequences_loader.cases()
        + sequences_primitives.cases()
        + sequences_dlpack.cases()
        + sequences_backward.cases()
        + sequences_sycl.cases()
    )
    names = [case.name for case in cases]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise ValueError(f"duplicate case names: {duplicates}")
    return cases
