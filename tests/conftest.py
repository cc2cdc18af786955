"""Shared fixtures: which oneDNN a test runs against, and real OpenCL devices.

A test asks for the library it needs:

* ``real_dnnl``: the real oneDNN 3.13 from the ``onednn`` wheel;
* ``standin_dnnl``: the test-only stand-in library (tests/standin), which
  implements the documented GPU-engine semantics on real OpenCL objects;
* ``dnnl``: both, one after the other, for assertions the two must agree on.

The function table is process-wide, so the fixture rebinds it before the test
and, after it, checks that every oneDNN object the test made was destroyed.
"""

from __future__ import annotations

import gc
import importlib.metadata
import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
REAL_LIBRARY = Path(sys.prefix) / "lib" / "libdnnl.so.3"
LIBRARY_3_11 = Path(sys.prefix) / "opt" / "onednn-3.11" / "lib" / "libdnnl.so.3"
UPSTREAM_HEADERS = Path(sys.prefix) / "include" / "oneapi" / "dnnl"

# The Intel CPU OpenCL runtime is registered by scripts/setup-env.sh; set the
# variable here too so a plain `.venv/bin/pytest` sees both platforms.
_VENDORS = Path(sys.prefix) / "etc" / "OpenCL" / "dnnl-interop-vendors"
if _VENDORS.is_dir():
    os.environ.setdefault("OCL_ICD_VENDORS", str(_VENDORS))

# Engines and streams are shared across the examples of one test on purpose:
# making a oneDNN engine per example would only measure engine creation.
_shared = dict(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
# Child interpreters started by the tests (python -c ...) must import the
# installed package, not the source tree of the working directory.
os.environ["PYTHONSAFEPATH"] = "1"

settings.register_profile("dev", max_examples=100, **_shared)
settings.register_profile("ci", max_examples=20, **_shared)
settings.register_profile("soak", max_examples=5000, **_shared)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))

# Modules whose work is long and serial (a module fixture builds the wheel or
# the documentation site, or runs the crash matrix): collected first, so that
# under `pytest -n 2 --dist loadfile` (files handed out in collection order)
# no worker is left alone with one of them at the end of the run.
LONG_MODULES = ("test_packaging.py", "test_crash_matrix.py", "test_docs_site.py", "test_gpu_suite.py")


def pytest_collection_modifyitems(config, items):
    rank = {name: place for place, name in enumerate(LONG_MODULES)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: each module keeps its order


def pytest_collection_finish(session):
    # Tests collect garbage often (before and after each test, to find oneDNN
    # objects left alive), and a full collection over the objects that the
    # imports of pyopencl, numpy, hypothesis and pytest made costs 0.1-0.2 s
    # on its own. Those live for the whole session: move them out of the
    # collector's sight, so that a collection scans only what tests made.
    gc.collect()
    gc.freeze()


def skip_unless_installed(distribution: str, extra: str) -> None:
    """Skip a test of an optional dependency (dpnp) where its distribution is not installed.

    Where it is installed (CI installs the ``dpnp`` extra), the test runs: an install that
    cannot import fails it, rather than skipping it unseen as an import check would.
    """
    try:
        importlib.metadata.distribution(distribution)
    except importlib.metadata.PackageNotFoundError:
        pytest.skip(f"{distribution} is not installed (pip install 'dnnl-interop[{extra}]')")


@pytest.fixture(scope="session")
def standin_library(tmp_path_factory) -> Path:
    """Compile the stand-in library once per session; return its path."""
    sys.path.insert(0, str(ROOT / "tests"))
    from standin.build import build_standin

    return build_standin(tmp_path_factory.mktemp("standin"))


def _use(path: Path):
    from dnnl_interop import _library, _owned

    gc.collect()
    assert _owned.live_objects() == 0, "objects of the previous library are alive"
    current = _library.loaded_library()
    if current is None or os.path.realpath(current.path) != os.path.realpath(path):
        _library._rebind(str(path))
    return _library.loaded_library()


def _close_leftovers(owned) -> list[str]:
    """Close oneDNN objects still alive, children before engines; name them."""
    leftovers = [obj for obj in gc.get_objects() if isinstance(obj, owned.Owned) and not obj.closed]
    leftovers.sort(key=lambda obj: type(obj).__name__ == "Engine")
    for obj in leftovers:
        obj.close()
    return [repr(obj) for obj in leftovers]


def _no_leaks():
    from dnnl_interop import _owned

    gc.collect()
    if _owned.live_objects():
        # Fail this test, but close what it left so the next tests can rebind.
        leaked = _close_leftovers(_owned)
        pytest.fail(f"{len(leaked)} oneDNN objects leaked: {', '.join(leaked)}")


@pytest.fixture
def real_dnnl():
    """Run against real oneDNN; yields its :class:`dnnl_interop.Library`."""
    if not REAL_LIBRARY.exists():
        pytest.fail(f"real oneDNN missing at {REAL_LIBRARY}: run scripts/setup-env.sh")
    yield _use(REAL_LIBRARY)
    _no_leaks()


@pytest.fixture
def standin_dnnl(standin_library):
    """Run against the test-only stand-in library."""
    yield _use(standin_library)
    _no_leaks()


@pytest.fixture(params=["real", "standin"])
def dnnl(request):
    """Run once against real oneDNN and once against the stand-in."""
    fixture = "real_dnnl" if request.param == "real" else "standin_dnnl"
    return request.getfixturevalue(fixture)


@pytest.fixture
def engine(real_dnnl):
    """Real oneDNN's CPU engine, closed after the test."""
    import dnnl_interop

    with dnnl_interop.Engine.cpu() as engine:
        yield engine


@pytest.fixture
def stream(engine):
    """A stream on :func:`engine`, closed after the test."""
    import dnnl_interop

    with dnnl_interop.Stream(engine) as stream:
        yield stream


# --- real OpenCL --------------------------------------------------------------


@pytest.fixture(scope="session")
def cl():
    import pyopencl

    return pyopencl


def _devices(cl, platform_word: str):
    return [
        device
        for platform in cl.get_platforms()
        if platform_word in platform.name
        for device in platform.get_devices()
    ]


@pytest.fixture(scope="session")
def pocl_device(cl):
    devices = _devices(cl, "Portable Computing Language")
    if not devices:
        pytest.fail("PoCL is not available: run scripts/setup-env.sh")
    return devices[0]


@pytest.fixture(scope="session")
def intel_cpu_device(cl):
    devices = _devices(cl, "Intel(R) OpenCL")
    if not devices:
        pytest.fail("Intel's CPU OpenCL runtime is not registered: run scripts/setup-env.sh")
    return devices[0]


@pytest.fixture(scope="session", params=["pocl", "intel-cpu"])
def cl_device(request):
    """Each real OpenCL device in turn."""
    return request.getfixturevalue("pocl_device" if request.param == "pocl" else "intel_cpu_device")


@pytest.fixture
def pocl_context(cl, pocl_device):
    return cl.Context([pocl_device])
