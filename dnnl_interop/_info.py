"""What ``python -m dnnl_interop info`` reports, gathered and rendered.

:func:`collect` returns the facts as a JSON-ready dict (its keys are
documented in ``dnnl_interop.__main__``); :func:`render_text` turns them into
the human-readable report; :func:`problems` says what is wrong and the exact
fix; :func:`exit_code` picks the status to exit with: non-zero only when
oneDNN itself is unusable (no library, or no CPU engine).
pyopencl is imported here, inside :func:`collect`, never at package import.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shlex
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ._icd import DRIVER, OPT_OUT, SYSTEM_VENDORS
from .errors import LibraryNotFoundError

if TYPE_CHECKING:
    from ._library import Library

# A JSON document: str keys, JSON values.
Facts = dict[str, Any]

SCHEMA = 1

EXIT_OK = 0
EXIT_USAGE = 2  # argparse's own code
EXIT_NO_ONEDNN = 3  # no library, or it makes no CPU engine

# Interop families of the headers: (JSON key, display name, symbol prefix).
RUNTIMES = (
    ("opencl", "OpenCL", "dnnl_ocl_interop_"),
    ("level_zero", "Level Zero", "dnnl_ze_interop_"),
    ("sycl", "SYCL", "dnnl_sycl_interop_"),
)

# Environment variables that change what is found; reported as they were
# when the command started (loading oneDNN may add to OCL_ICD_FILENAMES).
ENVIRONMENT = (
    "DNNL_INTEROP_LIBRARY",
    OPT_OUT,
    "LD_LIBRARY_PATH",
    "OCL_ICD_VENDORS",
    "OCL_ICD_FILENAMES",
    "OPENCL_VENDOR_PATH",
    "ONEDNN_VERBOSE",
    "DNNL_VERBOSE",
)

# Where setup-env.sh registers the CPU driver, and where the fix suggests it.
VENDORS_DIRECTORY = os.path.join(sys.prefix, "etc", "OpenCL", "dnnl-interop-vendors")

# cl_device_type bits (pyopencl's device_type.to_string also names ALL for
# every bit, so it is not used).
_DEVICE_TYPES = ((1, "DEFAULT"), (2, "CPU"), (4, "GPU"), (8, "ACCELERATOR"), (16, "CUSTOM"))


def _error(exc: BaseException) -> Facts:
    """An exception as ``{"class", "status", "code", "message"}``."""
    status = getattr(exc, "status", None)
    code: object
    if status is not None and hasattr(status, "name"):
        status_name, code = status.name, int(status)
    elif isinstance(status, int):  # a oneDNN code this package does not know
        status_name, code = None, status
    else:
        status_name, code = None, getattr(exc, "code", None)
        if not isinstance(code, int):
            code = None
    return {
        "class": type(exc).__name__,
        "status": status_name,
        "code": code,
        "message": str(exc),
    }


def _runtime_name(value: int) -> str | int:
    name = getattr(value, "name", None)
    return name if isinstance(name, str) else int(value)


def _device_type(value: int) -> str:
    names = [name for bit, name in _DEVICE_TYPES if value & bit]
    return " | ".join(names) if names else f"{value:#x}"


@contextlib.contextmanager
def stdout_to_stderr() -> Iterator[None]:
    """Send everything written to file descriptor 1 to descriptor 2.

    oneDNN (and OpenCL runtimes) print diagnostics to the C ``stdout``; while
    the facts are gathered those lines go to stderr, so the report on stdout
    (the JSON document in particular) stays clean.
    """
    sys.stdout.flush()
    try:
        saved = os.dup(1)
    except OSError:  # no descriptor 1 at all: nothing to protect
        yield
        return
    try:
        os.dup2(2, 1)
        yield
    finally:
        _flush_c_stdio()
        os.dup2(saved, 1)
        os.close(saved)


def _flush_c_stdio() -> None:
    try:
        import ctypes

        ctypes.CDLL(None).fflush(None)
    except Exception:  # best effort: without it, buffered C output may come late
        pass


def _collect_onednn() -> tuple[Facts, Library | None]:
    from dnnl_interop import _library

    facts: Facts = {
        "loaded": False,
        "path": None,
        "version": None,
        "hash": None,
        "cpu_runtime": None,
        "gpu_runtime": None,
        "interop": None,
        "cpu_engine": None,
        "preloaded": [],
        "notes": [],
        "error": None,
        "attempts": [],
    }
    try:
        library = _library.load_library()
    except LibraryNotFoundError as exc:
        facts["error"] = _error(exc)
        facts["attempts"] = [
            {"place": place, "target": target, "reason": reason}
            for place, target, reason in exc.attempts
        ]
        return facts, None
    except Exception as exc:  # a failure the loader did not turn into one error
        facts["error"] = _error(exc)
        facts["error"]["message"] = f"{_search_description()}: {exc}"
        return facts, None

    facts["path"] = library.path
    facts["preloaded"] = list(library.preloaded)
    facts["notes"] = list(library.notes)
    found = library.version
    facts["loaded"] = True
    facts["version"] = found.number
    facts["hash"] = found.hash
    facts["cpu_runtime"] = _runtime_name(found.cpu_runtime)
    facts["gpu_runtime"] = _runtime_name(found.gpu_runtime)
    names = _library.FUNCTIONS
    facts["interop"] = {}
    for key, _, prefix in RUNTIMES:
        functions = [name for name in names if name.startswith(prefix)]
        missing = [name for name in functions if not library.has_function(name)]
        present = [name for name in functions if library.has_function(name)]
        status = "complete" if not missing else "absent" if not present else "partial"
        facts["interop"][key] = {
            "status": status,
            "functions": len(functions),
            "present": present,
            "missing": missing,
        }
    facts["cpu_engine"] = _probe_cpu_engine()
    return facts, library


def _probe_cpu_engine() -> Facts:
    """Whether oneDNN makes its CPU engine, and how many CPU engines it sees."""
    from dnnl_interop import core

    facts: Facts = {"ok": False, "count": None, "error": None}
    try:
        with core.Engine.cpu():
            facts["ok"] = True
    except Exception as exc:
        facts["error"] = _error(exc)
    with contextlib.suppress(Exception):  # the count is a detail; the engine above is the fact
        facts["count"] = core.Engine.get_count(core.EngineKind.CPU)
    return facts


def _search_description() -> str:
    from dnnl_interop._library import ENV_VAR

    value = os.environ.get(ENV_VAR)
    if value is None:
        return "the library search"
    if not value:
        return f"${ENV_VAR} (set but empty)"
    return f"${ENV_VAR}={value}"


def _probe_device(device: Any, pyopencl: Any, library: Library | None) -> Facts:
    from dnnl_interop import ocl

    facts: Facts = {"cache_blob_id": None, "gpu_engine": None}
    if library is None:
        return facts
    try:
        blob_id = ocl.get_engine_cache_blob_id(device)
    except Exception as exc:
        facts["cache_blob_id"] = {"ok": False, "error": _error(exc)}
    else:
        facts["cache_blob_id"] = {
            "ok": True,
            "sha256": hashlib.sha256(blob_id).hexdigest(),
            "length": len(blob_id),
        }
    try:
        context = pyopencl.Context([device])
        engine = ocl.make_engine(device, context)
    except Exception as exc:
        facts["gpu_engine"] = {"ok": False, "error": _error(exc)}
    else:
        engine.close()
        facts["gpu_engine"] = {"ok": True, "error": None}
    return facts


def _collect_opencl(library: Library | None) -> Facts:
    facts: Facts = {"available": False, "pyopencl": None, "error": None, "platforms": []}
    try:
        import pyopencl
    except Exception as exc:  # ImportError, or a broken installation
        facts["error"] = _error(exc)
        facts["missing"] = "pyopencl"
        return facts
    facts["pyopencl"] = getattr(pyopencl, "VERSION_TEXT", None)
    try:
        platforms = pyopencl.get_platforms()
    except Exception as exc:  # LogicError PLATFORM_NOT_FOUND_KHR when none
        facts["error"] = _error(exc)
        platforms = []
    if not platforms:
        facts["missing"] = "platforms"
        return facts
    facts["available"] = True
    for p_index, platform in enumerate(platforms):
        p_facts: Facts = {
            "index": p_index,
            "name": platform.name,
            "vendor": platform.vendor,
            "version": platform.version,
            "error": None,
            "devices": [],
        }
        facts["platforms"].append(p_facts)
        try:
            devices = platform.get_devices()
        except Exception as exc:
            p_facts["error"] = _error(exc)
            continue
        for d_index, device in enumerate(devices):
            d_facts: Facts = {
                "index": d_index,
                "name": device.name,
                "type": _device_type(device.type),
                "vendor_id": device.vendor_id,
            }
            d_facts.update(_probe_device(device, pyopencl, library))
            p_facts["devices"].append(d_facts)
    return facts


# --- the OpenCL ICD registration of Intel's CPU runtime ----------------------------


def _driver_path(library_path: str | None) -> str | None:
    """Intel's CPU OpenCL driver beside oneDNN (or in this environment), if any."""
    directories = [os.path.join(sys.prefix, "lib")]
    if library_path:
        directories.insert(0, os.path.dirname(library_path))
    for directory in directories:
        candidate = os.path.join(directory, DRIVER)
        if os.path.isfile(candidate):
            return candidate
    return None


def _icd_entries(vendors: str) -> list[Facts]:
    """``[{"file", "names"}]``: each registration file of ``vendors`` and the library it names.

    ``vendors`` is a directory of ``.icd`` files or, as ocl-icd also takes
    it, one library file.
    """
    if os.path.isfile(vendors):
        return [{"file": vendors, "names": vendors}]
    if not os.path.isdir(vendors):
        return []
    entries = []
    for name in sorted(os.listdir(vendors)):
        if not name.endswith(".icd"):
            continue
        path = os.path.join(vendors, name)
        try:
            with open(path, encoding="utf-8", errors="replace") as icd:
                entries.append({"file": path, "names": icd.read().strip()})
        except OSError:
            continue
    return entries


def _is_driver(name: str) -> bool:
    return os.path.basename(name) == DRIVER and os.path.isfile(name)


def _collect_icd(environment: dict[str, str | None], library_path: str | None, opencl: Facts) -> Facts:
    """How Intel's CPU OpenCL driver is registered, for oneDNN's loader and for pyopencl's.

    oneDNN's loader (the runtime wheel's Khronos loader) reads
    ``OCL_ICD_FILENAMES`` (additive) and the vendors directory
    (``OCL_ICD_VENDORS``, else /etc/OpenCL/vendors); pyopencl's ocl-icd reads
    the vendors directory only.
    """
    vendors = environment["OCL_ICD_VENDORS"] or SYSTEM_VENDORS
    entries = _icd_entries(vendors)
    by_vendors = [entry["file"] for entry in entries if _is_driver(entry["names"])]
    # What names the driver but is no file: the runtime wheel's own ICD names a conda placeholder.
    broken = [entry for entry in entries if os.path.basename(entry["names"]) == DRIVER
              and not os.path.isfile(entry["names"])]
    before = [n for n in (environment["OCL_ICD_FILENAMES"] or "").split(":") if n]
    after = [n for n in os.environ.get("OCL_ICD_FILENAMES", "").split(":") if n]
    by_environment = [n for n in before if _is_driver(n)]
    by_binding = [n for n in after if n not in before and _is_driver(n)]
    platforms = opencl["platforms"] if opencl["pyopencl"] else None
    lists_intel_cpu = None if platforms is None else any(
        "intel" in platform["vendor"].lower() and any("CPU" in d["type"] for d in platform["devices"])
        for platform in platforms
    )
    return {
        "driver": _driver_path(library_path),
        "opt_out": environment[OPT_OUT] == "0",
        "vendors": vendors,
        "vendors_from": "OCL_ICD_VENDORS" if environment["OCL_ICD_VENDORS"] else "system",
        "broken_entries": [{"file": e["file"], "names": e["names"]} for e in broken],
        "onednn": {
            "registered": bool(by_vendors or by_environment or by_binding),
            "by_vendors": by_vendors,
            "by_environment": by_environment,
            "by_binding": by_binding,
        },
        "pyopencl": {
            "registered": bool(by_vendors),
            "lists_intel_cpu": lists_intel_cpu,
        },
    }


def collect() -> Facts:
    """Every fact of the report, as a JSON-ready dict."""
    import dnnl_interop

    environment = {name: os.environ.get(name) for name in ENVIRONMENT}
    with stdout_to_stderr():
        onednn, library = _collect_onednn()
        opencl = _collect_opencl(library)
    missing = []
    if not onednn["loaded"]:
        missing.append("onednn")
    elif not onednn["cpu_engine"]["ok"]:
        missing.append("cpu-engine")
    if opencl.get("missing") == "pyopencl":
        missing.append("pyopencl")
    elif opencl.get("missing") == "platforms":
        missing.append("opencl-platforms")
    opencl.pop("missing", None)
    facts: Facts = {
        "schema": SCHEMA,
        "dnnl_interop": {
            "version": dnnl_interop.__version__,
            "path": os.path.dirname(os.path.abspath(dnnl_interop.__file__)),
        },
        "environment": environment,
        "onednn": onednn,
        "icd": _collect_icd(environment, onednn["path"], opencl),
        "opencl": opencl,
        "missing": missing,
    }
    facts["problems"] = problems(facts)
    facts["exit_code"] = exit_code(facts)
    return facts


def exit_code(facts: Facts) -> int:
    """3 when oneDNN is unusable (no library, or no CPU engine), else 0."""
    if {"onednn", "cpu-engine"} & set(facts["missing"]):
        return EXIT_NO_ONEDNN
    return EXIT_OK


# --- what is wrong, and the exact fix -----------------------------------------------


def _register_in_vendors(driver: str, icd: Facts) -> str:
    """Shell commands that register ``driver`` in a vendors directory, which both loaders read."""
    directory = icd["vendors"] if icd["vendors_from"] == "OCL_ICD_VENDORS" and os.path.isdir(icd["vendors"]) \
        else VENDORS_DIRECTORY
    quoted = shlex.quote(directory)
    return (
        f"mkdir -p {quoted} && echo {shlex.quote(driver)} > {quoted}/intel-cpu.icd "
        f"&& export OCL_ICD_VENDORS={quoted}"
    )


def _replaces_system(icd: Facts) -> str:
    """What to add when the fix sets OCL_ICD_VENDORS over a system vendors directory."""
    if icd["vendors_from"] == "system" and _icd_entries(SYSTEM_VENDORS):
        return f"; OCL_ICD_VENDORS replaces {SYSTEM_VENDORS}: copy its .icd files into the new directory too"
    return ""


def problems(facts: Facts) -> list[Facts]:
    """``[{"severity": "error" | "warning", "problem", "fix"}]``: what is wrong and how to fix it.

    "error" marks what makes oneDNN unusable (the exit code is then 3);
    a "warning" leaves oneDNN usable.
    """
    found: list[Facts] = []

    def add(severity: str, problem: str, fix: str | None) -> None:
        if severity == "warning" and fix is not None and any(f["fix"] == fix for f in found):
            return  # an error above already gives this very fix
        found.append({"severity": severity, "problem": problem, "fix": fix})

    icd, missing = facts["icd"], facts["missing"]
    driver = icd["driver"]
    if "onednn" in missing:
        add("error", "no usable oneDNN library (the places tried are listed above)",
            "pip install 'dnnl-interop[gpu]' (oneDNN, pyopencl and numpy; or pip install onednn alone), "
            "or set DNNL_INTEROP_LIBRARY to a libdnnl.so.3")
    elif "cpu-engine" in missing:
        if driver and not icd["onednn"]["registered"]:
            switch = f"{OPT_OUT}=0 turned off the binding's own registration and " if icd["opt_out"] else ""
            also = f" (unsetting {OPT_OUT} also works, for oneDNN only)" if icd["opt_out"] else ""
            add("error",
                f"oneDNN makes no CPU engine: {switch}nothing registers Intel's CPU OpenCL driver "
                f"{driver} with the OpenCL loader; the fix registers it for oneDNN and pyopencl{also}"
                + _replaces_system(icd),
                _register_in_vendors(driver, icd))
        elif not driver:
            add("error", f"oneDNN makes no CPU engine, and Intel's CPU OpenCL runtime ({DRIVER}) is "
                "not installed beside it",
                "pip install intel-opencl-rt")
        else:
            add("error", "oneDNN makes no CPU engine although its CPU OpenCL driver is registered",
                "ONEDNN_VERBOSE=check python -m dnnl_interop info  # prints oneDNN's own reason")
    if "pyopencl" in missing:
        add("warning", "pyopencl cannot be imported: no OpenCL device is listed "
            "(oneDNN works without it; the OpenCL interop takes pyopencl objects)",
            "pip install pyopencl")
    elif "opencl-platforms" in missing:
        if driver:
            add("warning", "pyopencl lists no OpenCL platform; the fix registers Intel's CPU OpenCL "
                "runtime for it (pip install pocl-binary-distribution adds PoCL)" + _replaces_system(icd),
                _register_in_vendors(driver, icd))
        else:
            add("warning", "pyopencl lists no OpenCL platform", "pip install pocl-binary-distribution")
    elif driver and icd["pyopencl"]["lists_intel_cpu"] is False:
        add("warning",
            "pyopencl does not list Intel's CPU OpenCL platform: its loader reads only "
            f"{'OCL_ICD_VENDORS' if icd['vendors_from'] == 'OCL_ICD_VENDORS' else SYSTEM_VENDORS}, "
            f"which does not name {driver} (the binding's in-process registration serves oneDNN only)"
            + _replaces_system(icd),
            _register_in_vendors(driver, icd))
    for entry in icd["broken_entries"]:
        add("warning", f"{entry['file']} names {entry['names']}, which does not exist "
            "(the runtime wheel's registration names a placeholder path)",
            f"ignore it, or write {driver} into that file" if driver else None)
    return found


# --- text -----------------------------------------------------------------------


def _error_text(error: Facts) -> str:
    if error["status"]:
        return f"{error['class']} ({error['status']}): {error['message']}"
    return f"{error['class']}: {error['message']}"


def _field(lines: list[str], indent: str, label: str, value: object, width: int = 20) -> None:
    lines.append(f"{indent}{label + ':':<{width}} {value}")


def _list_field(lines: list[str], indent: str, label: str, values: list[str], width: int = 20) -> None:
    if not values:
        _field(lines, indent, label, "none", width)
        return
    _field(lines, indent, label, values[0], width)
    for value in values[1:]:
        lines.append(f"{indent}{'':<{width}} {value}")


def _render_onednn(facts: Facts, lines: list[str]) -> None:
    onednn = facts["onednn"]
    lines.append("oneDNN")
    if not onednn["loaded"]:
        if onednn["path"]:
            _field(lines, "  ", "library", onednn["path"])
        lines.append("  NOT FOUND: no usable oneDNN library.")
        if onednn["attempts"]:
            lines.append("  tried, in order:")
            for attempt in onednn["attempts"]:
                lines.append(f"    {attempt['place']}: {attempt['target']}")
                lines.append(f"      {attempt['reason']}")
        else:
            lines.append(f"  {_error_text(onednn['error'])}")
        return
    _field(lines, "  ", "library", onednn["path"])
    _field(lines, "  ", "version", f"{onednn['version']} ({onednn['hash'] or 'no hash'})")
    _field(lines, "  ", "CPU runtime", onednn["cpu_runtime"])
    _field(lines, "  ", "GPU runtime", onednn["gpu_runtime"])
    engine = onednn["cpu_engine"]
    count = "" if engine["count"] is None else f" (oneDNN sees {engine['count']})"
    _field(lines, "  ", "CPU engine", f"yes{count}" if engine["ok"] else f"NO: {_error_text(engine['error'])}")
    for key, display, prefix in RUNTIMES:
        interop = onednn["interop"][key]
        have, total = len(interop["present"]), interop["functions"]
        text = f"{interop['status']}: {have}/{total} {prefix}* entry points"
        _field(lines, "  ", f"{display} interop", text)
        if interop["status"] == "absent":
            lines.append(f"  {'':<20} (none exported)")
        elif interop["missing"]:
            for name in interop["missing"]:
                lines.append(f"  {'':<20} missing {name}")
    _list_field(lines, "  ", "preloaded", onednn["preloaded"])
    _list_field(lines, "  ", "notes", onednn["notes"])


def _render_icd(facts: Facts, lines: list[str]) -> None:
    icd, environment = facts["icd"], facts["environment"]
    lines.append("Intel's CPU OpenCL driver (oneDNN's CPU engine runs on it)")
    _field(lines, "  ", "driver", icd["driver"] or f"not found ({DRIVER} beside oneDNN or in {sys.prefix}/lib)")
    source = "OCL_ICD_VENDORS" if icd["vendors_from"] == "OCL_ICD_VENDORS" else "system"
    _field(lines, "  ", "vendors directory", f"{icd['vendors']} ({source})")
    onednn = icd["onednn"]
    ways = [f"{path}" for path in onednn["by_vendors"]]
    ways += [f"OCL_ICD_FILENAMES={path} (environment)" for path in onednn["by_environment"]]
    ways += [f"OCL_ICD_FILENAMES={path} (by the binding, in its own process)" for path in onednn["by_binding"]]
    _list_field(lines, "  ", "for oneDNN", ways if ways else ["NOT REGISTERED"])
    pyopencl = icd["pyopencl"]
    seen = {None: "pyopencl not imported", True: "pyopencl lists it", False: "pyopencl does NOT list it"}
    registered = "registered" if pyopencl["registered"] else "not registered"
    _field(lines, "  ", "for pyopencl", f"{registered}; {seen[pyopencl['lists_intel_cpu']]}")
    settings = [f"{name}={environment[name]}" if environment[name] is not None else f"{name} unset"
                for name in ("OCL_ICD_VENDORS", "OCL_ICD_FILENAMES", OPT_OUT)]
    _list_field(lines, "  ", "environment", settings)


def _render_device(device: Facts, lines: list[str]) -> None:
    indent = "      "
    lines.append(f"    device {device['index']}: {device['name']}")
    _field(lines, indent, "type", device["type"], 14)
    _field(lines, indent, "vendor id", f"{device['vendor_id']:#06x}", 14)
    blob = device["cache_blob_id"]
    if blob is None:
        _field(lines, indent, "cache blob id", "not queried (oneDNN not loaded)", 14)
    elif blob["ok"]:
        _field(lines, indent, "cache blob id", f"{blob['length']} bytes, sha256 {blob['sha256']}", 14)
    else:
        _field(lines, indent, "cache blob id", f"error: {_error_text(blob['error'])}", 14)
    engine = device["gpu_engine"]
    if engine is None:
        _field(lines, indent, "GPU engine", "not tried (oneDNN not loaded)", 14)
    elif engine["ok"]:
        _field(lines, indent, "GPU engine", "yes", 14)
    else:
        _field(lines, indent, "GPU engine", f"no: {_error_text(engine['error'])}", 14)


def _render_opencl(facts: Facts, lines: list[str]) -> None:
    opencl = facts["opencl"]
    if "pyopencl" in facts["missing"]:
        lines.append("OpenCL")
        lines.append("  NOT AVAILABLE: pyopencl cannot be imported.")
        lines.append(f"  {_error_text(opencl['error'])}")
        return
    lines.append(f"OpenCL (pyopencl {opencl['pyopencl']})")
    if "opencl-platforms" in facts["missing"]:
        lines.append("  NO PLATFORMS: the OpenCL ICD loader found no OpenCL platform.")
        if opencl["error"]:
            lines.append(f"  {_error_text(opencl['error'])}")
        return
    for platform in opencl["platforms"]:
        lines.append(f"  platform {platform['index']}: {platform['name']}")
        _field(lines, "    ", "vendor", platform["vendor"], 16)
        _field(lines, "    ", "version", platform["version"], 16)
        if platform["error"]:
            lines.append(f"    devices: error: {_error_text(platform['error'])}")
        elif not platform["devices"]:
            lines.append("    no devices")
        for device in platform["devices"]:
            _render_device(device, lines)


def _render_problems(facts: Facts, lines: list[str]) -> None:
    lines.append("Problems")
    if not facts["problems"]:
        lines.append("  none")
        return
    for problem in facts["problems"]:
        label = "ERROR" if problem["severity"] == "error" else "warning"
        lines.append(f"  {label}: {problem['problem']}")
        if problem["fix"]:
            lines.append(f"    fix: {problem['fix']}")


def render_text(facts: Facts) -> str:
    lines = [f"dnnl_interop {facts['dnnl_interop']['version']} ({facts['dnnl_interop']['path']})", ""]
    _render_onednn(facts, lines)
    lines.append("")
    _render_icd(facts, lines)
    lines.append("")
    _render_opencl(facts, lines)
    lines.append("")
    _render_problems(facts, lines)
    return "\n".join(lines) + "\n"


def problem_summary(facts: Facts) -> str | None:
    """One line for stderr saying what is wrong, or None if nothing is."""
    parts = []
    onednn = facts["onednn"]
    if "onednn" in facts["missing"]:
        targets = [attempt["target"] for attempt in onednn["attempts"]]
        if targets:
            parts.append("oneDNN not found (tried " + ", ".join(targets) + ")")
        else:
            parts.append(f"oneDNN not usable ({onednn['error']['message']})")
    if "cpu-engine" in facts["missing"]:
        parts.append("oneDNN makes no CPU engine")
    warnings = [p["problem"].split(":")[0].split(";")[0] for p in facts["problems"] if p["severity"] == "warning"]
    parts += [f"warning: {warning}" for warning in warnings]
    if not parts:
        return None
    return "; ".join(parts) + " (Problems, at the end of the report, gives each fix)"


# --- info --emulated-gpu ----------------------------------------------------------

EXIT_NO_EMULATED_GPU = 6


def _probe_emulated_gpu() -> Facts:
    """In a process with the emulated GPU on: the device as oneDNN sees it."""
    from dnnl_interop import ocl
    from dnnl_interop.testing import emulated_gpu

    facts: Facts = {"device": None, "onednn": None, "gpu_engine": None, "cache_blob_id": None, "cache_blob": None}
    with stdout_to_stderr():
        gpu = emulated_gpu.enable()
        device = gpu.device
        facts["device"] = {
            "name": device.name,
            "type": _device_type(device.type),
            "vendor_id": device.vendor_id,
            "platform": device.platform.name,
        }
        onednn, library = _collect_onednn()
        facts["onednn"] = {"path": onednn["path"], "version": onednn["version"], "error": onednn["error"]}
        if library is None:
            return facts
        import pyopencl

        probed = _probe_device(device, pyopencl, library)
        facts["gpu_engine"], facts["cache_blob_id"] = probed["gpu_engine"], probed["cache_blob_id"]
        if facts["gpu_engine"]["ok"]:
            try:
                with ocl.make_engine(device, gpu.context) as engine:
                    blob = ocl.get_engine_cache_blob(engine)
            except Exception as exc:
                facts["cache_blob"] = {"ok": False, "error": _error(exc)}
            else:
                facts["cache_blob"] = {"ok": True, "length": len(blob)}
    return facts


def collect_emulated_gpu() -> Facts:
    """The facts of ``info --emulated-gpu``, gathered in a child process with the layer on."""
    from dnnl_interop.testing import emulated_gpu

    facts: Facts = {"schema": SCHEMA, "exit_code": EXIT_OK, "error": None}
    try:
        facts.update(emulated_gpu.run_in_child(_probe_emulated_gpu))
    except Exception as exc:  # no layer, no Intel runtime, or the child failed
        facts["error"] = _error(exc)
    _set_emulated_exit_code(facts, "gpu_engine")
    return facts


def _set_emulated_exit_code(facts: Facts, engine_key: str) -> None:
    """Set an emulated probe's exit code: oneDNN unusable in the child, or no engine made there."""
    engine = facts.get(engine_key)
    if facts["error"] is None and facts["onednn"]["error"] is not None:
        facts["exit_code"] = EXIT_NO_ONEDNN
    elif facts["error"] is not None or not (engine and engine["ok"]):
        facts["exit_code"] = EXIT_NO_EMULATED_GPU


def render_emulated_gpu(facts: Facts) -> str:
    lines = ["emulated Intel GPU (dnnl_interop.testing.emulated_gpu, in a child process)"]
    if facts["error"] is not None:
        lines.append(f"  NOT AVAILABLE: {_error_text(facts['error'])}")
        return "\n".join(lines) + "\n"
    device, onednn = facts["device"], facts["onednn"]
    _field(lines, "  ", "device", device["name"], 14)
    _field(lines, "  ", "platform", device["platform"], 14)
    _field(lines, "  ", "type", device["type"], 14)
    _field(lines, "  ", "vendor id", f"{device['vendor_id']:#06x}", 14)
    if onednn["error"] is not None:
        _field(lines, "  ", "oneDNN", f"not loaded: {_error_text(onednn['error'])}", 14)
        return "\n".join(lines) + "\n"
    _field(lines, "  ", "oneDNN", f"{onednn['version']} ({onednn['path']})", 14)
    engine, blob_id, blob = facts["gpu_engine"], facts["cache_blob_id"], facts["cache_blob"]
    _field(lines, "  ", "GPU engine", "yes" if engine["ok"] else f"no: {_error_text(engine['error'])}", 14)
    if blob_id["ok"]:
        _field(lines, "  ", "cache blob id", f"{blob_id['length']} bytes, sha256 {blob_id['sha256']}", 14)
    else:
        _field(lines, "  ", "cache blob id", f"error: {_error_text(blob_id['error'])}", 14)
    if blob is not None:
        text = f"{blob['length']} bytes" if blob["ok"] else f"error: {_error_text(blob['error'])}"
        _field(lines, "  ", "cache blob", text, 14)
    return "\n".join(lines) + "\n"


# --- info --emulated-level-zero ---------------------------------------------------


_LEVEL_ZERO_FACTS = ("loader", "driver", "device", "onednn", "cache_blob_id", "engine", "cache_blob")


def _probe_emulated_level_zero() -> Facts:
    """In a process with the emulated Level Zero loader on: its driver and device as oneDNN sees them."""
    from dnnl_interop import ze
    from dnnl_interop.testing import emulated_level_zero

    facts: Facts = dict.fromkeys(_LEVEL_ZERO_FACTS)
    with stdout_to_stderr():
        lz = emulated_level_zero.enable()
        facts["loader"] = {
            "path": str(emulated_level_zero.loader_path()),
            "soname": emulated_level_zero.LOADER_SONAME,
            "device_selector": os.environ.get("ONEAPI_DEVICE_SELECTOR"),
        }
        # What the loader answers oneDNN: zeIntelGetDriverVersionString gives
        # the OpenCL runtime's version, zeDeviceGetProperties the rest.
        facts["driver"] = {"handle": int(lz.driver), "version": lz.gpu.device.driver_version}
        facts["device"] = {
            "handle": int(lz.device),
            "name": lz.name,
            "uuid": lz.uuid.hex(),
            "ip_version": lz.ip_version,
            "opencl_device": lz.gpu.device.name,
        }
        onednn, library = _collect_onednn()
        facts["onednn"] = {"path": onednn["path"], "version": onednn["version"], "error": onednn["error"]}
        if library is None:
            return facts
        try:
            blob_id = ze.get_engine_cache_blob_id(lz.driver, lz.device)
        except Exception as exc:
            facts["cache_blob_id"] = {"ok": False, "error": _error(exc)}
        else:
            facts["cache_blob_id"] = {
                "ok": True, "sha256": hashlib.sha256(blob_id).hexdigest(), "length": len(blob_id),
            }
        try:
            engine = ze.make_engine(lz.driver, lz.device, lz.context)
        except Exception as exc:
            facts["engine"] = {"ok": False, "error": _error(exc), "same_handles": None}
            return facts
        with engine:
            given_back = (ze.get_driver(engine), ze.get_device(engine), ze.get_context(engine))
            facts["engine"] = {
                "ok": True, "error": None, "same_handles": given_back == (lz.driver, lz.device, lz.context),
            }
            try:
                blob = ze.get_engine_cache_blob(engine)
            except Exception as exc:
                facts["cache_blob"] = {"ok": False, "error": _error(exc)}
            else:
                facts["cache_blob"] = {"ok": True, "length": len(blob)}
    return facts


def collect_emulated_level_zero() -> Facts:
    """The facts of ``info --emulated-level-zero``, gathered in a child process with the loader on."""
    from dnnl_interop.errors import LibraryNotFoundError
    from dnnl_interop.testing import emulated_level_zero

    facts: Facts = {"schema": SCHEMA, "exit_code": EXIT_OK, "error": None, **dict.fromkeys(_LEVEL_ZERO_FACTS)}
    try:
        facts.update(emulated_level_zero.run_in_child(_probe_emulated_level_zero))
    except LibraryNotFoundError as exc:  # enable() asks oneDNN whether it reaches the loader
        facts["error"] = _error(exc)
        facts["exit_code"] = EXIT_NO_ONEDNN
        return facts
    except Exception as exc:  # no loader, no Intel runtime, or the child failed
        facts["error"] = _error(exc)
    _set_emulated_exit_code(facts, "engine")
    return facts


def _uuid_text(hex_digits: str) -> str:
    parts = (hex_digits[:8], hex_digits[8:12], hex_digits[12:16], hex_digits[16:20], hex_digits[20:])
    return "-".join(parts)


def render_emulated_level_zero(facts: Facts) -> str:
    lines = ["emulated Level Zero (dnnl_interop.testing.emulated_level_zero, in a child process)"]
    if facts["error"] is not None:
        lines.append(f"  NOT AVAILABLE: {_error_text(facts['error'])}")
        return "\n".join(lines) + "\n"
    loader, driver, device, onednn = facts["loader"], facts["driver"], facts["device"], facts["onednn"]
    _field(lines, "  ", "loader", f"{loader['path']} (as {loader['soname']})", 14)
    _field(lines, "  ", "SYCL devices", f"ONEAPI_DEVICE_SELECTOR={loader['device_selector']}", 14)
    _field(lines, "  ", "driver", f"{driver['handle']:#x}, version {driver['version']}", 14)
    _field(lines, "  ", "device", f"{device['handle']:#x}, {device['name']}", 14)
    _field(lines, "  ", "UUID", _uuid_text(device["uuid"]), 14)
    _field(lines, "  ", "IP version", f"{device['ip_version']:#010x}", 14)
    _field(lines, "  ", "OpenCL twin", f"{device['opencl_device']} (the emulated GPU, same UUID)", 14)
    if onednn["error"] is not None:
        _field(lines, "  ", "oneDNN", f"not loaded: {_error_text(onednn['error'])}", 14)
        return "\n".join(lines) + "\n"
    _field(lines, "  ", "oneDNN", f"{onednn['version']} ({onednn['path']})", 14)
    engine, blob_id, blob = facts["engine"], facts["cache_blob_id"], facts["cache_blob"]
    if blob_id["ok"]:
        _field(lines, "  ", "cache blob id", f"{blob_id['length']} bytes, sha256 {blob_id['sha256']}", 14)
    else:
        _field(lines, "  ", "cache blob id", f"error: {_error_text(blob_id['error'])}", 14)
    if not engine["ok"]:
        _field(lines, "  ", "ze engine", f"no: {_error_text(engine['error'])}", 14)
        return "\n".join(lines) + "\n"
    same = "the same" if engine["same_handles"] else "OTHER"
    _field(lines, "  ", "ze engine", f"yes; it gives back {same} driver, device and context", 14)
    text = f"{blob['length']} bytes" if blob["ok"] else f"error: {_error_text(blob['error'])}"
    _field(lines, "  ", "cache blob", text, 14)
    return "\n".join(lines) + "\n"
