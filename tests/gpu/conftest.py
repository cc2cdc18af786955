"""tests/gpu: real oneDNN 3.13 on the emulated Intel GPU (dnnl_interop.testing).

The emulated GPU must be on before anything in the process uses OpenCL, and a
process with it on has no oneDNN CPU engine; so these tests run in pytest
sessions of their own. The main session leaves this directory out
(``norecursedirs`` in pyproject.toml) and tests/test_gpu_suite.py runs each
module here as a child session; ``pytest tests/gpu`` runs them directly.
Helper processes (a second process restoring a cache blob) come from
``emulated_gpu.run_in_child``.

Success is judged by data or by handle identity, never by the absence of an
exception.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dnnl_interop.testing import emulated_gpu as _emulated_gpu

HERE = Path(__file__).resolve().parent


def pytest_configure(config):
    # The same switch as `pytest --emulated-gpu`, made here so that a plain
    # `pytest tests/gpu` needs no option.
    _emulated_gpu.enable()


def pytest_collection_modifyitems(config, items):
    outside = [item.nodeid for item in items if HERE not in Path(item.path).parents]
    if outside:
        raise pytest.UsageError(
            "tests/gpu runs with the emulated GPU on, where oneDNN's CPU engine does not "
            f"work: run it in a session of its own, not with {outside[:3]}"
        )


@pytest.fixture(scope="module")
def engine(emulated_gpu):
    """A real oneDNN GPU engine on the emulated device, shared by a module's tests."""
    from dnnl_interop import ocl

    made = ocl.make_engine(emulated_gpu.device, emulated_gpu.context)
    yield made
    made.close()
