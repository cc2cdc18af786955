"""What ``python -m dnnl_interop info`` reports, gathered and rendered.

:func:`collect` returns the facts as a JSON-ready dict (its keys are
documented in ``dnnl_interop.__main__``); :func:`render_text` turns them into
the human-readable report; :func:`exit_code` picks the status to exit with.
pyopencl is imported here, inside :func:`collect`, never at package import.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys

SCHEMA = 1

EXIT_OK = 0
EXIT_USAGE = 2  # argparse's own code
EXIT_NO_ONEDNN = 3
EXIT_NO_PYOPENCL = 4
EXIT_NO_PLATFORMS = 5

# Interop families of the headers: (JSON key, display name, symbol prefix).
RUNTIMES = (
    ("opencl", "OpenCL", "dnnl_ocl_interop_"),
    ("level_zero", "Level Zero", "dnnl_ze_interop_"),
)

# Environment variables that change what is found; reported as they are.
ENVIRONMENT = (
    "DNNL_INTEROP_LIBRARY",
    "LD_LIBRARY_PATH",
    "OCL_ICD_VENDORS",
    "OCL_ICD_FILENAMES",
    "OPENCL_VENDOR_PATH",
    "ONEDNN_VERBOSE",
    "DNNL_VERBOSE",
)

# cl_device_type bits (pyopencl's device_type.to_string also names ALL for
# every bit, so it is not used).
_DEVICE_TYPES = ((1, "DEFAULT"), (2, "CPU"), (4, "GPU"), (8, "ACCELERATOR"), (16, "CUSTOM"))


def _error(exc: BaseException) -> dict:
    """An exception as ``{"class", "status", "code", "message"}``."""
    status = getattr(exc, "status", None)
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


def _runtime_name(value) -> str | int:
    return value.name if hasattr(value, "name") else int(value)


def _device_type(value: int) -> str:
    names = [name for bit, name in _DEVICE_TYPES if value & bit]
    return " | ".join(names) if names else f"{value:#x}"


@contextlib.contextmanager
def stdout_to_stderr():
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


def _collect_onednn() -> tuple[dict, object | None]:
    import dnnl_interop
    from dnnl_interop import _library

    facts = {
        "loaded": False,
        "path": None,
        "version": None,
        "hash": None,
        "cpu_runtime": None,
        "gpu_runtime": None,
        "interop": None,
        "preloaded": [],
        "notes": [],
        "error": None,
        "attempts": [],
    }
    try:
        library = dnnl_interop.load_library()
    except dnnl_interop.LibraryNotFoundError as exc:
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
    return facts, library


def _search_description() -> str:
    from dnnl_interop import ENV_VAR

    value = os.environ.get(ENV_VAR)
    if value is None:
        return "the library search"
    if not value:
        return f"${ENV_VAR} (set but empty)"
    return f"${ENV_VAR}={value}"


def _probe_device(device, pyopencl, library) -> dict:
    from dnnl_interop import ocl

    facts: dict = {"cache_blob_id": None, "gpu_engine": None}
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


def _collect_opencl(library) -> dict:
    facts: dict = {"available": False, "pyopencl": None, "error": None, "platforms": []}
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
        p_facts = {
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
            d_facts = {
                "index": d_index,
                "name": device.name,
                "type": _device_type(device.type),
                "vendor_id": device.vendor_id,
            }
            d_facts.update(_probe_device(device, pyopencl, library))
            p_facts["devices"].append(d_facts)
    return facts


def collect() -> dict:
    """Every fact of the report, as a JSON-ready dict."""
    import dnnl_interop

    with stdout_to_stderr():
        onednn, library = _collect_onednn()
        opencl = _collect_opencl(library)
    missing = []
    if not onednn["loaded"]:
        missing.append("onednn")
    if opencl.get("missing") == "pyopencl":
        missing.append("pyopencl")
    elif opencl.get("missing") == "platforms":
        missing.append("opencl-platforms")
    opencl.pop("missing", None)
    facts = {
        "schema": SCHEMA,
        "dnnl_interop": {
            "version": dnnl_interop.__version__,
            "path": os.path.dirname(os.path.abspath(dnnl_interop.__file__)),
        },
        "environment": {name: os.environ.get(name) for name in ENVIRONMENT},
        "onednn": onednn,
        "opencl": opencl,
        "missing": missing,
    }
    facts["exit_code"] = exit_code(facts)
    return facts


def exit_code(facts: dict) -> int:
    missing = facts["missing"]
    if "onednn" in missing:
        return EXIT_NO_ONEDNN
    if "pyopencl" in missing:
        return EXIT_NO_PYOPENCL
    if "opencl-platforms" in missing:
        return EXIT_NO_PLATFORMS
    return EXIT_OK


# --- text -----------------------------------------------------------------------


def _error_text(error: dict) -> str:
    if error["status"]:
        return f"{error['class']} ({error['status']}): {error['message']}"
    return f"{error['class']}: {error['message']}"


def _field(lines: list[str], indent: str, label: str, value: object, width: int = 20) -> None:
    lines.append(f"{indent}{label + ':':<{width}} {value}")


def _list_field(lines, indent, label, values, width=20) -> None:
    if not values:
        _field(lines, indent, label, "none", width)
        return
    _field(lines, indent, label, values[0], width)
    for value in values[1:]:
        lines.append(f"{indent}{'':<{width}} {value}")


def _render_onednn(facts: dict, lines: list[str]) -> None:
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
        lines.append(
            "  Set DNNL_INTEROP_LIBRARY to a libdnnl.so.3, or install the onednn wheel "
            "(pip install onednn)."
        )
        return
    _field(lines, "  ", "library", onednn["path"])
    _field(lines, "  ", "version", f"{onednn['version']} ({onednn['hash'] or 'no hash'})")
    _field(lines, "  ", "CPU runtime", onednn["cpu_runtime"])
    _field(lines, "  ", "GPU runtime", onednn["gpu_runtime"])
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


def _render_device(device: dict, lines: list[str]) -> None:
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


def _render_opencl(facts: dict, lines: list[str]) -> None:
    opencl = facts["opencl"]
    if "pyopencl" in facts["missing"]:
        lines.append("OpenCL")
        lines.append("  NOT AVAILABLE: pyopencl cannot be imported (pip install pyopencl).")
        lines.append(f"  {_error_text(opencl['error'])}")
        return
    lines.append(f"OpenCL (pyopencl {opencl['pyopencl']})")
    if "opencl-platforms" in facts["missing"]:
        lines.append("  NO PLATFORMS: the OpenCL ICD loader found no OpenCL platform.")
        if opencl["error"]:
            lines.append(f"  {_error_text(opencl['error'])}")
        lines.append(
            "  Install one (pip install pocl-binary-distribution) or register an ICD "
            "in OCL_ICD_VENDORS."
        )
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


def render_text(facts: dict) -> str:
    lines = [f"dnnl_interop {facts['dnnl_interop']['version']} ({facts['dnnl_interop']['path']})", ""]
    _render_onednn(facts, lines)
    lines.append("")
    _render_opencl(facts, lines)
    return "\n".join(lines) + "\n"


def problem_summary(facts: dict) -> str | None:
    """One line for stderr saying what is missing, or None if nothing is."""
    parts = []
    onednn = facts["onednn"]
    if "onednn" in facts["missing"]:
        targets = [attempt["target"] for attempt in onednn["attempts"]]
        if targets:
            parts.append("oneDNN not found (tried " + ", ".join(targets) + ")")
        else:
            parts.append(f"oneDNN not usable ({onednn['error']['message']})")
    if "pyopencl" in facts["missing"]:
        parts.append("pyopencl cannot be imported")
    if "opencl-platforms" in facts["missing"]:
        parts.append("no OpenCL platform")
    return "; ".join(parts) or None


# --- info --emulated-gpu ----------------------------------------------------------

EXIT_NO_EMULATED_GPU = 6


def _probe_emulated_gpu() -> dict:
    """In a process with the emulated GPU on: the device as oneDNN sees it."""
    from dnnl_interop import ocl
    from dnnl_interop.testing import emulated_gpu

    facts: dict = {"device": None, "onednn": None, "gpu_engine": None, "cache_blob_id": None, "cache_blob": None}
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


def collect_emulated_gpu() -> dict:
    """The facts of ``info --emulated-gpu``, gathered in a child process with the layer on."""
    from dnnl_interop.testing import emulated_gpu

    facts = {"schema": SCHEMA, "exit_code": EXIT_OK, "error": None}
    try:
        facts.update(emulated_gpu.run_in_child(_probe_emulated_gpu))
    except Exception as exc:  # no layer, no Intel runtime, or the child failed
        facts["error"] = _error(exc)
    engine = facts.get("gpu_engine")
    if facts["error"] is None and facts["onednn"]["error"] is not None:
        facts["exit_code"] = EXIT_NO_ONEDNN
    elif facts["error"] is not None or not (engine and engine["ok"]):
        facts["exit_code"] = EXIT_NO_EMULATED_GPU
    return facts


def render_emulated_gpu(facts: dict) -> str:
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


def _probe_emulated_level_zero() -> dict:
    """In a process with the emulated Level Zero loader on: its driver and device as oneDNN sees them."""
    from dnnl_interop import ze
    from dnnl_interop.testing import emulated_level_zero

    facts: dict = dict.fromkeys(_LEVEL_ZERO_FACTS)
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


def collect_emulated_level_zero() -> dict:
    """The facts of ``info --emulated-level-zero``, gathered in a child process with the loader on."""
    from dnnl_interop.errors import LibraryNotFoundError
    from dnnl_interop.testing import emulated_level_zero

    facts = {"schema": SCHEMA, "exit_code": EXIT_OK, "error": None, **dict.fromkeys(_LEVEL_ZERO_FACTS)}
    try:
        facts.update(emulated_level_zero.run_in_child(_probe_emulated_level_zero))
    except LibraryNotFoundError as exc:  # enable() asks oneDNN whether it reaches the loader
        facts["error"] = _error(exc)
        facts["exit_code"] = EXIT_NO_ONEDNN
        return facts
    except Exception as exc:  # no loader, no Intel runtime, or the child failed
        facts["error"] = _error(exc)
    engine = facts.get("engine")
    if facts["error"] is None and facts["onednn"]["error"] is not None:
        facts["exit_code"] = EXIT_NO_ONEDNN
    elif facts["error"] is not None or not (engine and engine["ok"]):
        facts["exit_code"] = EXIT_NO_EMULATED_GPU
    return facts


def _uuid_text(hex_digits: str) -> str:
    parts = (hex_digits[:8], hex_digits[8:12], hex_digits[12:16], hex_digits[16:20], hex_digits[20:])
    return "-".join(parts)


def render_emulated_level_zero(facts: dict) -> str:
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
