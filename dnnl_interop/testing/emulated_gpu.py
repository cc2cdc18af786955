"""An emulated Intel GPU: real oneDNN's OpenCL GPU engine, in tests, without a GPU.

oneDNN makes OpenCL GPU engines only on Intel GPUs. This module turns the CPU
device of Intel's CPU OpenCL runtime (the ``intel-opencl-rt`` wheel, platform
"Intel(R) OpenCL") into an Intel Gen9 GPU as far as every OpenCL user in the
process can tell, through an OpenCL loader *layer* that ships compiled with
this package. On it, oneDNN creates real GPU engines, streams over your
queues, memory over your buffers and USM, runs its primitives with correct
data, and makes engine cache blobs.

What it is for: checking code that uses oneDNN's OpenCL interop (handles,
reference counts, queues, events, data) in CI, on machines without an Intel
GPU. What it is not: a performance stand-in. Only oneDNN's generic OpenCL C
kernels run (a Gen9-like device with no nGEN kernels), on the CPU.

Use::

    from dnnl_interop.testing import emulated_gpu
    from dnnl_interop import ocl

    gpu = emulated_gpu.enable()          # first, before any OpenCL use
    engine = ocl.make_engine(gpu.device, gpu.context)

or the pytest fixture ``emulated_gpu`` (plugin :mod:`dnnl_interop.testing.pytest_plugin`,
``pytest --emulated-gpu`` to switch it on for the whole session), or
:func:`run_in_child` to run one function in a fresh process with it on.

Rules, enforced:

* **Never half-on.** An OpenCL ICD loader reads ``OPENCL_LAYERS`` once, at its
  first call. :func:`enable` therefore refuses (:class:`OpenCLAlreadyLoadedError`)
  once any OpenCL loader is mapped into the process (``import pyopencl`` maps
  one; so does the first oneDNN call, which preloads the loader beside libdnnl),
  unless the process was *started* with the layer on (:func:`child_environment`).
  Enabling again is harmless: it returns the same :class:`EmulatedGpu`.
* **A process of its own.** The layer cannot be switched off, and it changes
  what every layer-capable loader in the process reports: the SYCL runtime
  then sees a GPU and no CPU, so ``dnnl_interop.Engine.cpu()`` does not work
  in that process. Keep emulated-GPU work in processes (or pytest sessions)
  of their own.
* Only CPU devices of the "Intel(R) OpenCL" platform change; PoCL and every
  other platform pass through untouched. Linux only.

Enabling sets three variables of this process (children inherit them):
``OPENCL_LAYERS`` (the layer is appended), ``OCL_ICD_FILENAMES`` (Intel's
runtime is appended, for the Khronos loader libdnnl uses) and
``OCL_ICD_VENDORS`` (a private directory under the user cache directory
holding the runtime's ICD file plus a copy of every registration the previous
value, or ``/etc/OpenCL/vendors``, held; pyopencl's loader reads only this
one). The user's files are never touched.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import site
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import ModuleType
from typing import IO, TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    import pyopencl

__all__ = [
    "EmulatedGpu",
    "EmulatedGpuError",
    "EmulatedGpuUnavailableError",
    "OpenCLAlreadyLoadedError",
    "ChildProcessFailedError",
    "enable",
    "enabled",
    "is_enabled",
    "child_environment",
    "run_in_child",
    "layer_path",
    "runtime_path",
    "opencl_loaders_loaded",
    "HostWaits",
    "host_waits",
    "PLATFORM_NAME",
    "IP_VERSION",
    "LAYER_FILENAME",
]

PLATFORM_NAME = "Intel(R) OpenCL"
"""The OpenCL platform whose CPU devices the layer presents as GPUs."""
IP_VERSION = 0x02400000
"""``CL_DEVICE_IP_VERSION_INTEL`` the emulated GPU answers (Gen9)."""
LAYER_FILENAME = "libdnnl_interop_emulated_gpu.so"
"""The compiled layer, installed beside this module."""
RUNTIME_FILENAME = "libintelocl.so"

_SYSTEM_VENDORS = "/etc/OpenCL/vendors"
_CL_DEVICE_TYPE_GPU = 4


class EmulatedGpuError(RuntimeError):
    """The emulated GPU cannot be switched on, or work on it failed to run."""


class EmulatedGpuUnavailableError(EmulatedGpuError):
    """Something the emulated GPU needs is missing (layer, runtime, platform)."""


class OpenCLAlreadyLoadedError(EmulatedGpuError):
    """OpenCL was initialised in this process before the emulated GPU was enabled.

    ``.loaders`` lists the OpenCL loader files already mapped.
    """

    def __init__(self, loaders: list[str]):
        self.loaders = loaders
        super().__init__(
            "the emulated GPU must be enabled before OpenCL is first used in this process, "
            f"but an OpenCL loader is already loaded ({', '.join(loaders)}): OpenCL loaders "
            "read OPENCL_LAYERS once, so enabling now would leave the process half-emulated. "
            "Call dnnl_interop.testing.emulated_gpu.enable() before importing pyopencl and "
            "before the first oneDNN call (with pytest: `pytest --emulated-gpu` or the ini "
            "setting `emulated_gpu = true`), or run the work in a fresh process with "
            "emulated_gpu.run_in_child(func, ...)."
        )


class ChildProcessFailedError(EmulatedGpuError):
    """The child of :func:`run_in_child` ended without returning or raising.

    ``.returncode`` is its exit status (negative: the signal that ended it;
    None: it was stopped at the timeout), ``.stderr`` what it wrote to stderr.
    """

    def __init__(self, func: str, returncode: int | None, stderr: str, timeout: float | None = None):
        self.returncode = returncode
        self.stderr = stderr
        if returncode is None:
            how = f"did not finish within {timeout} s and was killed"
        elif returncode < 0:
            import signal

            try:
                how = f"was killed by {signal.Signals(-returncode).name}"
            except ValueError:
                how = f"was killed by signal {-returncode}"
        else:
            how = f"exited with status {returncode}"
        tail = stderr[-4000:].rstrip()
        super().__init__(
            f"the child process running {func} {how} before returning a result"
            + (f"; its stderr ends with:\n{tail}" if tail else " (nothing on stderr)")
        )


class EmulatedGpu(NamedTuple):
    """The emulated GPU of this process, as pyopencl sees it.

    ``ocl.make_engine(gpu.device, gpu.context)`` makes a real oneDNN GPU
    engine on it. ``context`` is a context on ``device`` alone, shared by
    every caller of :func:`enable` in the process; make your own with
    ``pyopencl.Context([gpu.device])`` where a test needs one of its own.
    """

    platform: pyopencl.Platform
    device: pyopencl.Device
    context: pyopencl.Context


# --- where things are -------------------------------------------------------


def layer_path() -> Path:
    """The compiled layer library shipped with this package."""
    path = Path(__file__).resolve().parent / LAYER_FILENAME
    if not path.is_file():
        raise EmulatedGpuUnavailableError(
            f"the emulated-GPU layer {path} is missing: it is built with the package "
            "(pip install dnnl-interop; in a source checkout, python setup.py build_ext --inplace)"
        )
    return path


def _prefixes() -> list[str]:
    return list(dict.fromkeys([sys.prefix, site.getuserbase()]))


def runtime_path() -> Path:
    """Intel's CPU OpenCL runtime (``libintelocl.so`` of the ``intel-opencl-rt`` wheel)."""
    tried = [Path(prefix) / "lib" / RUNTIME_FILENAME for prefix in _prefixes()]
    for path in tried:
        if path.is_file():
            return path
    raise EmulatedGpuUnavailableError(
        "Intel's CPU OpenCL runtime was not found (tried "
        + ", ".join(map(str, tried))
        + "): pip install intel-opencl-rt (the onednn wheel's dependencies include it)"
    )


def opencl_loaders_loaded() -> list[str]:
    """Paths of the OpenCL ICD loaders mapped into this process (pyopencl's, libdnnl's, ...)."""
    found = []
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            for line in maps:
                fields = line.split(None, 5)
                if len(fields) == 6:
                    path = fields[5].strip()
                    if os.path.basename(path).startswith("libOpenCL") and path not in found:
                        found.append(path)
    except OSError as exc:
        raise EmulatedGpuUnavailableError(
            f"cannot tell whether OpenCL is loaded ({exc}); the emulated GPU needs Linux's /proc"
        ) from None
    return found


# --- the environment --------------------------------------------------------


def _with_path(value: str | None, path: str) -> str:
    """``value`` (a ``:``-separated list) with ``path`` appended unless already in it."""
    entries = [entry for entry in (value or "").split(os.pathsep) if entry]
    if path not in entries:
        entries.append(path)
    return os.pathsep.join(entries)


def _registrations(vendors: str | None) -> dict[str, str]:
    """The ICD files a loader would read for ``OCL_ICD_VENDORS=vendors``: name -> text."""
    directory = Path(vendors) if vendors else Path(_SYSTEM_VENDORS)
    if not directory.is_dir():
        return {}
    found = {}
    for icd in sorted(directory.glob("*.icd")):
        try:
            found[icd.name] = icd.read_text(encoding="utf-8", errors="replace")
        except OSError:  # unreadable: a loader skips it too
            continue
    return found


def _cache_root() -> Path:
    import platformdirs

    return Path(platformdirs.user_cache_dir("dnnl-interop")) / "emulated-gpu"


def _vendors_directory(previous: str | None, runtime: Path) -> Path:
    """A directory of ICD files: Intel's CPU runtime and what ``previous`` registered.

    Other registrations of a ``libintelocl.so`` are left out: two of them would
    list two "Intel(R) OpenCL" platforms. The directory is named after its
    contents and written once, atomically, so processes can share it.
    """
    files = {
        name: text
        for name, text in _registrations(previous).items()
        if os.path.basename(text.strip()) != RUNTIME_FILENAME
    }
    files["dnnl-interop-emulated-gpu-intel-cpu.icd"] = f"{runtime}\n"
    digest = hashlib.sha256(repr(sorted(files.items())).encode()).hexdigest()[:16]
    try:
        root = _cache_root()
        root.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        import tempfile

        root = Path(tempfile.gettempdir()) / f"dnnl-interop-{os.getuid()}" / "emulated-gpu"
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
        if root.stat().st_uid != os.getuid():
            raise EmulatedGpuError(f"{root} belongs to another user: refusing to register ICDs there") from error
    final = root / f"vendors-{digest}"
    if final.is_dir():
        return final
    import tempfile

    staging = Path(tempfile.mkdtemp(prefix=".vendors-", dir=root))
    for name, text in files.items():
        (staging / name).write_text(text, encoding="utf-8")
    try:
        staging.rename(final)
    except OSError:  # another process wrote the same directory first
        for entry in staging.iterdir():
            entry.unlink()
        staging.rmdir()
    return final


def child_environment(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a process that starts with the emulated GPU on.

    ``base`` defaults to this process's environment; it is copied, not
    changed. Start any program with it (``subprocess.run(cmd,
    env=emulated_gpu.child_environment())``): every OpenCL loader in that
    process sees the emulated GPU from its first call, and :func:`enable`
    works there even after ``import pyopencl``.
    """
    env = dict(os.environ if base is None else base)
    layer, runtime = str(layer_path()), runtime_path()
    env["OCL_ICD_VENDORS"] = str(_vendors_directory(env.get("OCL_ICD_VENDORS"), runtime))
    env["OCL_ICD_FILENAMES"] = _with_path(env.get("OCL_ICD_FILENAMES"), str(runtime))
    env["OPENCL_LAYERS"] = _with_path(env.get("OPENCL_LAYERS"), layer)
    return env


def _started_with_layer(layer: str) -> bool:
    """Whether this process was started with ``layer`` in ``OPENCL_LAYERS``."""
    try:
        with open("/proc/self/environ", "rb") as f:
            initial = f.read().split(b"\0")
    except OSError:
        return False
    for entry in initial:
        name, _, value = entry.partition(b"=")
        if name == b"OPENCL_LAYERS":
            return layer in os.fsdecode(value).split(os.pathsep)
    return False


# --- switching it on ----------------------------------------------------------

_lock = threading.Lock()
_committed = False
_gpu: EmulatedGpu | None = None


def is_enabled() -> bool:
    """Whether :func:`enable` succeeded in this process (it stays on for good)."""
    return _gpu is not None


def _commit() -> None:
    """Set this process's environment so that every OpenCL loader sees the layer."""
    global _committed
    if _committed:
        return
    if not sys.platform.startswith("linux"):
        raise EmulatedGpuUnavailableError(f"the emulated GPU works on Linux only, not {sys.platform}")
    layer = str(layer_path())
    loaded = opencl_loaders_loaded()
    if loaded:
        if not _started_with_layer(layer):
            raise OpenCLAlreadyLoadedError(loaded)
    else:
        os.environ.update(child_environment())
    _committed = True


def _find_device(pyopencl: ModuleType) -> tuple[pyopencl.Platform, pyopencl.Device]:
    platforms = [p for p in pyopencl.get_platforms() if p.name == PLATFORM_NAME]
    if not platforms:
        raise EmulatedGpuUnavailableError(
            f"pyopencl lists no {PLATFORM_NAME!r} platform (OCL_ICD_VENDORS="
            f"{os.environ.get('OCL_ICD_VENDORS')}): Intel's CPU OpenCL runtime did not load"
        )
    for platform in platforms:
        for device in platform.get_devices():
            if device.type & _CL_DEVICE_TYPE_GPU:
                return platform, device
    raise EmulatedGpuError(
        f"the {PLATFORM_NAME!r} devices still report themselves as CPUs: the layer "
        f"({os.environ.get('OPENCL_LAYERS')}) is not active in pyopencl's OpenCL loader"
    )


def enable() -> EmulatedGpu:
    """Switch the emulated GPU on for this process; return its device and a context.

    Call it before the process first uses OpenCL (before ``import pyopencl``
    and before the first oneDNN call), or in a process started with
    :func:`child_environment`. Otherwise it raises
    :class:`OpenCLAlreadyLoadedError` and changes nothing. Later calls return
    the same :class:`EmulatedGpu`. The CPU engine (``Engine.cpu()``) does
    not work in the process from then on.
    """
    global _gpu
    with _lock:
        if _gpu is None:
            _commit()
            import pyopencl

            platform, device = _find_device(pyopencl)
            _gpu = EmulatedGpu(platform, device, pyopencl.Context([device]))
        return _gpu


@contextlib.contextmanager
def enabled() -> Iterator[EmulatedGpu]:
    """``with emulated_gpu.enabled() as gpu:`` -- :func:`enable` as a context manager.

    The layer cannot be switched off: it stays on after the block, which only
    scopes the name ``gpu``.
    """
    yield enable()


# --- counting host waits ------------------------------------------------------


class HostWaits(NamedTuple):
    """How many OpenCL calls that make the host wait went through the layer
    (every platform, every loader in the process), from :func:`host_waits`.

    Subtract two readings to count the calls of the code between them.
    """

    finish: int
    """``clFinish`` calls."""
    wait_for_events: int
    """``clWaitForEvents`` calls (``Event.wait()``, ``pyopencl.wait_for_events``, ...)."""
    blocking_transfers: int
    """Blocking ``clEnqueueReadBuffer`` / ``WriteBuffer`` / ``MapBuffer`` calls
    (``Array.get()``, ``enqueue_copy(..., is_blocking=True)``, ...)."""
    status_queries: int
    """``clGetEventInfo(CL_EVENT_COMMAND_EXECUTION_STATUS)`` calls: no wait, but what a
    loop polling for completion repeats."""

    @property
    def waits(self) -> int:
        """The calls that wait: ``finish + wait_for_events + blocking_transfers``."""
        return self.finish + self.wait_for_events + self.blocking_transfers

    def __sub__(self, other: object) -> HostWaits:
        if not isinstance(other, HostWaits):
            return NotImplemented
        return HostWaits(*(mine - theirs for mine, theirs in zip(self, other, strict=True)))


def host_waits() -> HostWaits:
    """The calls that made the host wait for OpenCL work in this process so far
    (see :class:`HostWaits`), counted by the layer.

    Raises:
        EmulatedGpuError: the emulated GPU is not on in this process.
    """
    import ctypes

    if _gpu is None:
        raise EmulatedGpuError("host_waits: the emulated GPU is not on in this process (emulated_gpu.enable())")
    # The loaders opened the layer by this path: dlopen gives back the same library, with its counts.
    layer = ctypes.CDLL(str(layer_path()))
    read = layer.dnnl_interop_emulated_gpu_counts
    read.argtypes = [ctypes.POINTER(ctypes.c_ulonglong), ctypes.c_int]
    read.restype = ctypes.c_int
    counts = (ctypes.c_ulonglong * len(HostWaits._fields))()
    read(counts, len(counts))
    return HostWaits(*counts)


# --- work in a child process ---------------------------------------------------


def _qualified_name(func: Callable[..., object]) -> str:
    return f"{getattr(func, '__module__', '?')}.{getattr(func, '__qualname__', repr(func))}"


def _main_file(func: Callable[..., object]) -> str | None:
    """The script to rerun in the child for a function of ``__main__``, else None."""
    if getattr(func, "__module__", None) != "__main__":
        return None
    main = sys.modules.get("__main__")
    path: str | None = getattr(main, "__file__", None)
    if not path:
        raise ValueError(
            f"run_in_child: {_qualified_name(func)} was defined interactively; the child "
            "can only run a function it can import (define it in a module or script)"
        )
    return os.path.abspath(path)


def run_in_child(func: Callable[..., object], *args: Any, timeout: float | None = None, **kwargs: Any) -> Any:
    """Run ``func(*args, **kwargs)`` in a fresh Python process with the emulated GPU on.

    The child starts with :func:`child_environment`, so it may import
    anything first; calling :func:`enable` in ``func`` gives the device. It
    imports ``func`` by name, with this process's ``sys.path`` (like
    ``multiprocessing``'s spawn): ``func`` must be a module-level function,
    and arguments and result must pickle. The result is returned; an
    exception ``func`` raises is raised here, chained to the child's
    traceback. A child that dies without either (a crash, ``os._exit``, the
    ``timeout`` in seconds) raises :class:`ChildProcessFailedError`. The
    child's stdout and stderr are written to this process's after it ends.

    It works whether or not the emulated GPU is on in this process.
    """
    import pickle
    import subprocess
    import tempfile

    header = {"sys_path": list(sys.path), "main_file": _main_file(func)}
    body = pickle.dumps((func, args, kwargs))
    env = child_environment()
    with tempfile.TemporaryDirectory(prefix="dnnl-interop-child-") as scratch:
        request, reply = Path(scratch) / "request", Path(scratch) / "reply"
        with open(request, "wb") as f:
            pickle.dump(header, f)
            f.write(body)
        try:
            done = subprocess.run(
                [sys.executable, "-c", _BOOTSTRAP, str(request), str(reply)],
                env=env,
                capture_output=True,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired as exc:
            _echo(exc.stdout, exc.stderr)
            stderr = (exc.stderr or b"").decode(errors="replace")
            raise ChildProcessFailedError(_qualified_name(func), None, stderr, timeout) from None
        _echo(done.stdout, done.stderr)
        try:
            with open(reply, "rb") as f:
                outcome = pickle.load(f)
        except (OSError, EOFError, pickle.UnpicklingError):
            raise ChildProcessFailedError(
                _qualified_name(func), done.returncode, done.stderr.decode(errors="replace")
            ) from None
    from ._child import raise_outcome

    return raise_outcome(outcome, EmulatedGpuError)


def _serve_child(header: dict[str, Any], request: IO[bytes], reply_path: str) -> None:
    """The child's side of :func:`run_in_child`: switch the emulated GPU on, then serve."""
    from ._child import serve

    serve(header, request, reply_path, _commit)


def _echo(stdout: bytes | None, stderr: bytes | None) -> None:
    if stdout:
        sys.stdout.write(stdout.decode(errors="replace"))
        sys.stdout.flush()
    if stderr:
        sys.stderr.write(stderr.decode(errors="replace"))
        sys.stderr.flush()


# The child takes the parent's sys.path before importing anything of ours, so
# it finds the same dnnl_interop (and func's module) as the parent.
_BOOTSTRAP = (
    "import pickle, sys\n"
    "f = open(sys.argv[1], 'rb')\n"
    "header = pickle.load(f)\n"
    "sys.path[:] = header['sys_path']\n"
    "from dnnl_interop.testing.emulated_gpu import _serve_child\n"
    "_serve_child(header, f, sys.argv[2])\n"
)


def __dir__() -> list[str]:
    return sorted(__all__)
