"""pytest plugin: the ``emulated_gpu`` fixture and the ``--emulated-gpu`` option.

Installed with dnnl-interop (entry point ``pytest11``), so every pytest
session in the environment loads it; it stays inert unless asked: loading it
imports neither pyopencl nor oneDNN, and nothing happens until a test uses
the fixture or the session is started with the option.

* ``--emulated-gpu`` (or ``emulated_gpu = true`` in the ini file) switches
  the emulated GPU on at session start, before conftest files are imported
  and before any test can initialise OpenCL. Use it for suites (or
  directories run as sessions of their own) that want it everywhere.
* The ``emulated_gpu`` fixture (session scope) returns the process's
  :class:`~dnnl_interop.testing.emulated_gpu.EmulatedGpu` (``.device``,
  ``.context``). Without the option it switches the emulated GPU on when
  first used, which works only if nothing in the session has used OpenCL
  yet; otherwise the test errors with
  :class:`~dnnl_interop.testing.emulated_gpu.OpenCLAlreadyLoadedError`,
  which says what to do.

With the emulated GPU on, oneDNN's CPU engine does not work in that session.

Level Zero (:mod:`~dnnl_interop.testing.emulated_level_zero`) the same way:
``--emulated-level-zero`` (or ``emulated_level_zero = true``) puts the
emulated Level Zero loader in place at session start (it switches the
emulated GPU on too), and the ``emulated_level_zero`` fixture returns the
process's :class:`~dnnl_interop.testing.emulated_level_zero.EmulatedLevelZero`
(``.driver``, ``.device``, ``.context``, ``.command_list``), enabling it when
first used if nothing in the session has loaded oneDNN's SYCL runtime yet.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from .emulated_gpu import EmulatedGpu
    from .emulated_level_zero import EmulatedLevelZero

# pytest finds hooks and fixtures through dir(), which lists __all__ only.
__all__ = [
    "pytest_addoption",
    "pytest_load_initial_conftests",
    "pytest_report_header",
    "emulated_gpu",
    "emulated_level_zero",
]

_OPTION = "--emulated-gpu"
_INI = "emulated_gpu"
_LZ_OPTION = "--emulated-level-zero"
_LZ_INI = "emulated_level_zero"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("dnnl-interop")
    group.addoption(
        _OPTION,
        action="store_true",
        default=False,
        dest="emulated_gpu",
        help="present Intel's CPU OpenCL device as an Intel GPU to oneDNN for this whole "
        "session (switched on before conftest files load; the CPU engine is then unusable)",
    )
    parser.addini(
        _INI,
        type="bool",
        default=False,
        help="switch the emulated Intel GPU on at session start (as --emulated-gpu)",
    )
    group.addoption(
        _LZ_OPTION,
        action="store_true",
        default=False,
        dest="emulated_level_zero",
        help="put the emulated Level Zero loader (and the emulated GPU) in place for this whole "
        "session, before conftest files load",
    )
    parser.addini(
        _LZ_INI,
        type="bool",
        default=False,
        help="put the emulated Level Zero loader in place at session start (as --emulated-level-zero)",
    )


def _requested(config: pytest.Config) -> bool:
    namespace = getattr(config, "known_args_namespace", None)
    if namespace is not None and getattr(namespace, "emulated_gpu", False):
        return True
    return bool(config.getini(_INI))


def _level_zero_requested(config: pytest.Config) -> bool:
    namespace = getattr(config, "known_args_namespace", None)
    if namespace is not None and getattr(namespace, "emulated_level_zero", False):
        return True
    return bool(config.getini(_LZ_INI))


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config, parser: pytest.Parser, args: list[str]) -> None:
    if _level_zero_requested(early_config):
        from . import emulated_gpu, emulated_level_zero

        try:
            emulated_level_zero.enable()
        except emulated_gpu.EmulatedGpuError as exc:
            raise pytest.UsageError(f"{_LZ_OPTION}: {exc}") from exc
    if not _requested(early_config):
        return
    from . import emulated_gpu

    try:
        emulated_gpu.enable()
    except emulated_gpu.EmulatedGpuError as exc:
        raise pytest.UsageError(f"{_OPTION}: {exc}") from exc


def pytest_report_header(config: pytest.Config) -> str | None:
    emulated_gpu = sys.modules.get(f"{__package__}.emulated_gpu")  # not imported: not on
    if emulated_gpu is None or not emulated_gpu.is_enabled():
        return None
    device = emulated_gpu.enable().device
    return f"emulated Intel GPU: {device.name!r} on {emulated_gpu.PLATFORM_NAME!r} (dnnl_interop.testing)"


@pytest.fixture(scope="session")
def emulated_gpu() -> EmulatedGpu:
    """The emulated Intel GPU of this session: ``.device`` and ``.context`` (pyopencl).

    ``dnnl_interop.ocl.make_engine(emulated_gpu.device, emulated_gpu.context)``
    makes a real oneDNN GPU engine.
    """
    from . import emulated_gpu as module

    return module.enable()


@pytest.fixture(scope="session")
def emulated_level_zero() -> EmulatedLevelZero:
    """The emulated Level Zero driver of this session (:class:`EmulatedLevelZero`).

    ``dnnl_interop.ze.make_engine(lz.driver, lz.device, lz.context)`` makes a
    real oneDNN Level Zero engine; ``lz.command_list`` is an immediate list
    for ``ze.make_stream``; ``lz.shared(shape, dtype)`` gives shared USM with
    a numpy view.
    """
    from . import emulated_level_zero as module

    return module.enable()


def __dir__() -> list[str]:
    return sorted(__all__)
