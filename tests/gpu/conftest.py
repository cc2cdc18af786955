"""tests/gpu: real oneDNN 3.13 on the emulated Intel GPU (dnnl_interop.testing).

The emulated GPU must be on before anything in the process uses OpenCL, and a
process with it on has no oneDNN CPU engine. So every session collects these
modules with the rest of tests/, but each module runs in a child pytest
session of its own, started with ``--emulated-level-zero`` (the emulated GPU
and Level Zero loader on from its start), and its tests are reported as
themselves (child_sessions.py). ``pytest --emulated-level-zero tests/gpu/...``
runs them in the session itself, under a debugger say. Helper processes (a
second process restoring a cache blob) come from ``emulated_gpu.run_in_child``.

Success is judged by data or by handle identity, never by the absence of an
exception.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .child_sessions import ChildSessions

HERE = Path(__file__).resolve().parent


def pytest_configure(config):
    config.pluginmanager.register(ChildSessions(config, HERE), "dnnl-interop-tests-gpu-child-sessions")


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
