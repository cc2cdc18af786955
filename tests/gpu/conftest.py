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
def lz(request):
    """The emulated Level Zero device (for modules that set ``RUNTIME = "ze"``)."""
    return request.getfixturevalue("emulated_level_zero")


@pytest.fixture(scope="module")
def engine(request):
    """A real oneDNN GPU engine on the emulated device, shared by a module's tests:
    an OpenCL engine, or a Level Zero one in modules that set ``RUNTIME = "ze"``."""
    from dnnl_interop import ocl, ze

    if getattr(request.module, "RUNTIME", "ocl") == "ze":
        lz = request.getfixturevalue("lz")
        made = ze.make_engine(lz.driver, lz.device, lz.context)
    else:
        gpu = request.getfixturevalue("emulated_gpu")
        made = ocl.make_engine(gpu.device, gpu.context)
    yield made
    made.close()


@pytest.fixture(scope="module")
def stream(request, engine):
    """A stream on the module's engine: over the emulated list (Level Zero modules)."""
    from dnnl_interop import ze

    lz = request.getfixturevalue("lz")  # only Level Zero modules ask for a stream here
    made = ze.make_stream(engine, lz.command_list)
    yield made
    made.close()
