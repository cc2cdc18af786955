"""``python -m dnnl_interop info``: what it reports, and how it fails.

Every run is a subprocess, so each sees the library and OpenCL platforms its
environment selects, exactly as a user's shell would. The facts it prints are
checked against the same queries made here, in the test process.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import LIBRARY_3_11, REAL_LIBRARY
from dnnl_interop import ocl
from dnnl_interop._library import FUNCTIONS
from dnnl_interop._target import TARGET_ONEDNN

# How many entry points each interop API has: what the headers declare.
OCL_COUNT = sum(name.startswith("dnnl_ocl_interop_") for name in FUNCTIONS)
ZE_COUNT = sum(name.startswith("dnnl_ze_interop_") for name in FUNCTIONS)
SYCL_COUNT = sum(name.startswith("dnnl_sycl_interop_") for name in FUNCTIONS)
ZE_CACHE_BLOB_FUNCTIONS = (
    "dnnl_ze_interop_engine_get_cache_blob_id",
    "dnnl_ze_interop_engine_get_cache_blob",
    "dnnl_ze_interop_engine_create_from_cache_blob",
)
# Variables of the outer shell that would change what the CLI finds.
_SCRUBBED = (
    "DNNL_INTEROP_LIBRARY", "ONEDNN_VERBOSE", "DNNL_VERBOSE", "OCL_ICD_FILENAMES", "DNNL_INTEROP_REGISTER_CPU_OPENCL",
)
# Intel's CPU OpenCL driver of the runtime wheel, and the vendors directory
# setup-env.sh registers it in (conftest points OCL_ICD_VENDORS at it).
DRIVER = os.path.join(sys.prefix, "lib", "libintelocl.so")
VENDORS = os.path.join(sys.prefix, "etc", "OpenCL", "dnnl-interop-vendors")


def _env(**overrides: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _SCRUBBED}
    env.update(overrides)
    return env


def run(*args: str, env: dict[str, str] | None = None, code: str | None = None):
    """Run the CLI (or ``-c code``) in a fresh interpreter; never raises on exit codes."""
    command = [sys.executable, "-c", code] if code else [sys.executable, "-m", "dnnl_interop", *args]
    return subprocess.run(
        command, env=_env() if env is None else env, capture_output=True, text=True, timeout=120
    )


def no_traceback(result) -> None:
    assert "Traceback" not in result.stdout
    assert "Traceback" not in result.stderr


def device_blocks(text: str) -> dict[tuple[str, str], dict[str, str]]:
    """{(platform name, device name): {field: value}} from the text report."""
    blocks: dict[tuple[str, str], dict[str, str]] = {}
    platform = None
    fields: dict[str, str] | None = None
    for line in text.splitlines():
        stripped = line.strip()
        if line.startswith("  platform "):
            platform = stripped.split(": ", 1)[1]
            fields = None
        elif line.startswith("    device "):
            fields = blocks.setdefault((platform, stripped.split(": ", 1)[1]), {})
        elif fields is not None and line.startswith("      ") and ":" in stripped:
            key, value = stripped.split(":", 1)
            fields[key] = value.strip()
    return blocks


def all_devices(cl):
    return [(p, d) for p in cl.get_platforms() for d in p.get_devices()]


# --- the normal case: real oneDNN 3.13 and two OpenCL platforms -----------------------


@pytest.fixture(scope="module")
def text_run():
    result = run("info")
    assert result.returncode == 0, result.stderr
    return result


@pytest.fixture(scope="module")
def json_run():
    result = run("info", "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_text_names_the_library_and_its_version(text_run, json_run, real_dnnl):
    no_traceback(text_run)
    assert f"library:             {real_dnnl.path}\n" in text_run.stdout
    assert f"version:             {TARGET_ONEDNN} ({real_dnnl.version.hash})" in text_run.stdout
    assert "CPU runtime:         SYCL" in text_run.stdout
    assert f"OpenCL interop:      complete: {OCL_COUNT}/{OCL_COUNT} dnnl_ocl_interop_* entry points" in text_run.stdout
    assert f"Level Zero interop:  complete: {ZE_COUNT}/{ZE_COUNT} dnnl_ze_interop_* entry points" in text_run.stdout
    assert SYCL_COUNT == 10
    assert "SYCL interop:        complete: 10/10 dnnl_sycl_interop_* entry points" in text_run.stdout
    assert json_run["onednn"]["preloaded"]
    for path in json_run["onednn"]["preloaded"]:
        assert f" {path}\n" in text_run.stdout


def test_text_lists_every_device_with_its_blob_id_digest(text_run, real_dnnl, cl):
    blocks = device_blocks(text_run.stdout)
    devices = all_devices(cl)
    assert {p.name for p, _ in devices} >= {"Portable Computing Language", "Intel(R) OpenCL"}
    assert set(blocks) == {(p.name, d.name) for p, d in devices}
    for platform, device in devices:
        blob_id = ocl.get_engine_cache_blob_id(device)
        fields = blocks[platform.name, device.name]
        assert fields["cache blob id"] == (
            f"{len(blob_id)} bytes, sha256 {hashlib.sha256(blob_id).hexdigest()}"
        )
        assert fields["type"] == "CPU"
        assert fields["vendor id"] == f"{device.vendor_id:#06x}"


def test_text_shows_the_gpu_engine_refusal_of_both_cpu_devices(text_run):
    blocks = device_blocks(text_run.stdout)
    assert len(blocks) == 2
    for fields in blocks.values():
        assert fields["GPU engine"].startswith(
            "no: InvalidArgumentsError (INVALID_ARGUMENTS): "
            "dnnl_ocl_interop_engine_create failed: INVALID_ARGUMENTS (2): device: "
        )
        assert "is a CPU device" in fields["GPU engine"] and "needs an Intel GPU" in fields["GPU engine"]


def test_json_has_the_same_facts(json_run, real_dnnl, cl):
    assert json_run["schema"] == 1
    assert json_run["exit_code"] == 0
    assert json_run["missing"] == []
    onednn = json_run["onednn"]
    assert onednn["loaded"] is True
    assert onednn["path"] == real_dnnl.path
    assert onednn["version"] == TARGET_ONEDNN
    assert onednn["hash"] == real_dnnl.version.hash
    assert (onednn["cpu_runtime"], onednn["gpu_runtime"]) == ("SYCL", "SYCL")
    # A fresh process opens the wheel's libraries beside libdnnl first, the
    # OpenCL loader among them (this process may have loaded them earlier).
    assert onednn["preloaded"]
    assert all(Path(path).parent == REAL_LIBRARY.parent for path in onednn["preloaded"])
    assert str(REAL_LIBRARY.parent / "libOpenCL.so.1") in onednn["preloaded"]
    assert onednn["error"] is None and onednn["attempts"] == []
    for key, total in (("opencl", OCL_COUNT), ("level_zero", ZE_COUNT), ("sycl", SYCL_COUNT)):
        interop = onednn["interop"][key]
        assert interop["status"] == "complete"
        assert interop["functions"] == total == len(interop["present"])
        assert interop["missing"] == []

    listed = {
        (p["name"], d["name"]): (p, d)
        for p in json_run["opencl"]["platforms"]
        for d in p["devices"]
    }
    devices = all_devices(cl)
    assert set(listed) == {(p.name, d.name) for p, d in devices}
    for platform, device in devices:
        p_facts, d_facts = listed[platform.name, device.name]
        assert (p_facts["vendor"], p_facts["version"]) == (platform.vendor, platform.version)
        assert d_facts["type"] == "CPU"
        assert d_facts["vendor_id"] == device.vendor_id
        blob_id = ocl.get_engine_cache_blob_id(device)
        assert d_facts["cache_blob_id"] == {
            "ok": True,
            "sha256": hashlib.sha256(blob_id).hexdigest(),
            "length": len(blob_id),
        }
        assert d_facts["gpu_engine"]["ok"] is False
        error = d_facts["gpu_engine"]["error"]
        assert (error["class"], error["status"], error["code"]) == (
            "InvalidArgumentsError", "INVALID_ARGUMENTS", 2
        )
        assert error["message"].startswith("dnnl_ocl_interop_engine_create failed")


def test_onednn_verbose_output_never_reaches_stdout():
    # oneDNN prints its verbose lines to stdout; the CLI sends them to stderr.
    env = _env(ONEDNN_VERBOSE="all")
    as_json = run("info", "--json", env=env)
    assert as_json.returncode == 0
    assert json.loads(as_json.stdout)["environment"]["ONEDNN_VERBOSE"] == "all"
    assert "onednn_verbose" in as_json.stderr  # they did happen
    as_text = run("info", env=env)
    assert as_text.returncode == 0
    assert "onednn_verbose" not in as_text.stdout


def test_console_script_runs_the_same_command():
    script = Path(sys.executable).with_name("dnnl-interop")
    result = subprocess.run(
        [str(script), "info", "--json"], env=_env(), capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["onednn"]["version"] == TARGET_ONEDNN


# --- the CPU engine and the registration of Intel's CPU OpenCL driver ----------------


def test_the_cpu_engine_is_made_and_reported(text_run, json_run):
    assert "CPU engine:          yes (oneDNN sees 1)\n" in text_run.stdout
    assert json_run["onednn"]["cpu_engine"] == {"ok": True, "count": 1, "error": None}
    assert json_run["problems"] == [] and json_run["missing"] == []
    assert "Problems\n  none\n" in text_run.stdout


def test_the_driver_registration_for_both_loaders_is_reported(text_run, json_run):
    # The test environment registers the driver in a vendors directory (setup-env.sh).
    icd = json_run["icd"]
    assert icd["driver"] == DRIVER and icd["vendors"] == VENDORS
    assert icd["onednn"]["registered"] and icd["onednn"]["by_vendors"] == [f"{VENDORS}/intel-cpu.icd"]
    assert icd["onednn"]["by_binding"] == []  # registered already: the binding left the environment alone
    assert icd["pyopencl"] == {"registered": True, "lists_intel_cpu": True}
    assert f"  driver:              {DRIVER}\n" in text_run.stdout
    assert f"  for oneDNN:          {VENDORS}/intel-cpu.icd\n" in text_run.stdout
    assert "  for pyopencl:        registered; pyopencl lists it\n" in text_run.stdout


def test_without_a_vendors_directory_the_binding_registers_for_onednn_and_info_says_how_pyopencl_can_see_it():
    env = _env()
    env.pop("OCL_ICD_VENDORS", None)
    result = run("info", "--json", env=env)
    assert result.returncode == 0, result.stderr
    facts = json.loads(result.stdout)
    assert facts["onednn"]["cpu_engine"]["ok"]
    assert facts["environment"]["OCL_ICD_FILENAMES"] is None  # as the command started
    icd = facts["icd"]
    assert icd["onednn"]["by_binding"] == [DRIVER] and icd["onednn"]["by_vendors"] == []
    assert icd["pyopencl"] == {"registered": False, "lists_intel_cpu": False}
    [problem] = facts["problems"]
    assert problem["severity"] == "warning"
    assert problem["problem"].startswith("pyopencl does not list Intel's CPU OpenCL platform")
    assert problem["fix"] == (
        f"mkdir -p {VENDORS} && echo {DRIVER} > {VENDORS}/intel-cpu.icd && export OCL_ICD_VENDORS={VENDORS}"
    )
    text = run("info", env=env)
    assert "(by the binding, in its own process)" in text.stdout
    assert "warning: pyopencl does not list Intel's CPU OpenCL platform" in text.stderr


def test_a_registration_from_the_environment_is_used_as_it_is():
    env = _env(OCL_ICD_FILENAMES=DRIVER)
    env.pop("OCL_ICD_VENDORS", None)
    facts = json.loads(run("info", "--json", env=env).stdout)
    assert facts["exit_code"] == 0 and facts["onednn"]["cpu_engine"]["ok"]
    assert facts["icd"]["onednn"]["by_environment"] == [DRIVER]
    assert facts["icd"]["onednn"]["by_binding"] == []


def test_the_runtime_wheels_placeholder_registration_is_named():
    wheel_vendors = os.path.join(sys.prefix, "etc", "OpenCL", "vendors")
    if not os.path.isfile(os.path.join(wheel_vendors, "intel-cpu.icd")):
        pytest.fail(f"the runtime wheel's registration file is missing from {wheel_vendors}")
    facts = json.loads(run("info", "--json", env=_env(OCL_ICD_VENDORS=wheel_vendors)).stdout)
    assert facts["exit_code"] == 0 and facts["onednn"]["cpu_engine"]["ok"]  # the binding registers it
    broken = facts["icd"]["broken_entries"]
    assert [entry["file"] for entry in broken] == [os.path.join(wheel_vendors, "intel-cpu.icd")]
    assert broken[0]["names"].endswith("/lib/libintelocl.so") and not os.path.exists(broken[0]["names"])
    assert any("names a placeholder path" in p["problem"] for p in facts["problems"])


def test_registration_off_and_nothing_registered_exits_3_with_a_fix_that_works(tmp_path):
    vendors = tmp_path / "vendors"
    vendors.mkdir()
    env = _env(DNNL_INTEROP_REGISTER_CPU_OPENCL="0", OCL_ICD_VENDORS=str(vendors))
    result = run("info", env=env)
    assert result.returncode == 3
    no_traceback(result)
    assert "CPU engine:          NO: InvalidArgumentsError" in result.stdout
    assert "  for oneDNN:          NOT REGISTERED\n" in result.stdout
    assert "oneDNN makes no CPU engine" in result.stderr

    facts = json.loads(run("info", "--json", env=env).stdout)
    assert facts["exit_code"] == 3 and facts["missing"] == ["cpu-engine"]
    assert facts["icd"]["opt_out"] is True and not facts["icd"]["onednn"]["registered"]
    errors = [p for p in facts["problems"] if p["severity"] == "error"]
    assert len(errors) == 1
    assert "DNNL_INTEROP_REGISTER_CPU_OPENCL=0 turned off the binding's own registration" in errors[0]["problem"]
    fix = errors[0]["fix"]
    assert fix == f"mkdir -p {vendors} && echo {DRIVER} > {vendors}/intel-cpu.icd && export OCL_ICD_VENDORS={vendors}"
    # The same fix is not offered twice (it also makes pyopencl list the platform).
    assert [p["fix"] for p in facts["problems"]].count(fix) == 1

    # The fix, run as given, makes oneDNN usable and pyopencl list Intel's CPU platform.
    fixed = subprocess.run(
        ["bash", "-c", f"{fix} && {shlex.quote(sys.executable)} -m dnnl_interop info --json"],
        env=env, capture_output=True, text=True, timeout=120,
    )
    assert fixed.returncode == 0, fixed.stderr
    after = json.loads(fixed.stdout)
    assert after["onednn"]["cpu_engine"]["ok"] and after["problems"] == []
    assert after["icd"]["pyopencl"]["lists_intel_cpu"] is True


def test_exit_codes_are_documented_in_help():
    result = run("info", "--help")
    assert result.returncode == 0
    text = " ".join(result.stdout.split())
    assert "exit codes: 0 oneDNN is usable" in text
    assert "3 oneDNN is unusable (no library, or no CPU engine)" in text


# --- what is missing is said, with a distinct exit code and no traceback ---------


def test_no_library_lists_what_was_tried_and_exits_3():
    result = run("info", env=_env(DNNL_INTEROP_LIBRARY="/nonexistent"))
    assert result.returncode == 3
    no_traceback(result)
    assert "NOT FOUND" in result.stdout
    assert "$DNNL_INTEROP_LIBRARY: /nonexistent" in result.stdout
    assert "/nonexistent" in result.stderr
    # OpenCL is still reported, without the oneDNN columns.
    assert "Portable Computing Language" in result.stdout
    assert "not queried (oneDNN not loaded)" in result.stdout


def test_no_library_as_json():
    result = run("info", "--json", env=_env(DNNL_INTEROP_LIBRARY="/nonexistent"))
    assert result.returncode == 3
    no_traceback(result)
    facts = json.loads(result.stdout)
    assert facts["exit_code"] == 3 and facts["missing"] == ["onednn"]
    onednn = facts["onednn"]
    assert onednn["loaded"] is False and onednn["interop"] is None
    assert onednn["error"]["class"] == "LibraryNotFoundError"
    assert onednn["attempts"] == [
        {"place": "$DNNL_INTEROP_LIBRARY", "target": "/nonexistent", "reason": "no such file"}
    ]
    devices = [d for p in facts["opencl"]["platforms"] for d in p["devices"]]
    assert devices and all(d["cache_blob_id"] is None and d["gpu_engine"] is None for d in devices)
    fixes = [problem["fix"] for problem in facts["problems"] if problem["problem"].startswith("no usable oneDNN")]
    assert fixes and "pip install 'dnnl-interop[gpu]'" in fixes[0], facts["problems"]


def test_an_empty_library_variable_is_not_taken_for_onednn():
    # dlopen("") would open the program itself; the loader refuses the empty name.
    result = run("info", env=_env(DNNL_INTEROP_LIBRARY=""))
    assert result.returncode == 3
    no_traceback(result)
    assert "$DNNL_INTEROP_LIBRARY" in result.stdout and "empty name" in result.stdout


def test_library_3_11_has_opencl_interop_but_no_level_zero():
    env = _env(DNNL_INTEROP_LIBRARY=str(LIBRARY_3_11), LD_LIBRARY_PATH=str(REAL_LIBRARY.parent))
    as_json = run("info", "--json", env=env)
    assert as_json.returncode == 0, as_json.stderr
    facts = json.loads(as_json.stdout)
    onednn = facts["onednn"]
    assert onednn["version"].startswith("3.11.")
    assert onednn["path"] == os.path.realpath(LIBRARY_3_11)
    assert onednn["interop"]["opencl"]["status"] == "complete"
    assert onednn["interop"]["opencl"]["missing"] == []
    level_zero = onednn["interop"]["level_zero"]
    assert level_zero["status"] == "absent"
    assert level_zero["present"] == [] and len(level_zero["missing"]) == ZE_COUNT
    assert all(name.startswith("dnnl_ze_interop_") for name in level_zero["missing"])

    as_text = run("info", env=env)
    assert as_text.returncode == 0
    assert f"OpenCL interop:      complete: {OCL_COUNT}/{OCL_COUNT}" in as_text.stdout
    assert f"Level Zero interop:  absent: 0/{ZE_COUNT}" in as_text.stdout


def test_a_partial_level_zero_set_names_the_missing_functions(json_run):
    # oneDNN 3.12 had Level Zero interop without the three cache-blob functions.
    from dnnl_interop import _info

    facts = json.loads(json.dumps(json_run))
    level_zero = facts["onednn"]["interop"]["level_zero"]
    level_zero["missing"] = list(ZE_CACHE_BLOB_FUNCTIONS)
    level_zero["present"] = [n for n in level_zero["present"] if n not in ZE_CACHE_BLOB_FUNCTIONS]
    level_zero["status"] = "partial"
    text = _info.render_text(facts)
    present = ZE_COUNT - len(ZE_CACHE_BLOB_FUNCTIONS)
    assert f"Level Zero interop:  partial: {present}/{ZE_COUNT} dnnl_ze_interop_* entry points" in text
    for name in ZE_CACHE_BLOB_FUNCTIONS:
        assert f"missing {name}\n" in text


def test_no_opencl_platform_is_a_warning_and_exits_0(tmp_path):
    # ocl-icd (pyopencl's bundled loader) loads only the file OCL_ICD_VENDORS
    # names when it is not a directory: no vendors directory, no PoCL from
    # pyopencl's own ICD directory. Here that file does not exist.
    env = _env(OCL_ICD_VENDORS=str(tmp_path / "no-such-icd.so"))
    result = run("info", env=env)
    assert result.returncode == 0, result.stderr
    no_traceback(result)
    assert "NO PLATFORMS" in result.stdout
    assert "warning: pyopencl lists no OpenCL platform" in result.stderr
    assert f"version:             {TARGET_ONEDNN}" in result.stdout  # oneDNN still reported
    assert "CPU engine:          yes" in result.stdout

    facts = json.loads(run("info", "--json", env=env).stdout)
    assert facts["exit_code"] == 0 and facts["missing"] == ["opencl-platforms"]
    assert facts["opencl"]["available"] is False and facts["opencl"]["platforms"] == []
    assert facts["opencl"]["error"]["code"] == -1001  # PLATFORM_NOT_FOUND_KHR
    assert facts["onednn"]["loaded"] is True
    [problem] = facts["problems"]
    assert problem["severity"] == "warning" and problem["problem"].startswith("pyopencl lists no OpenCL platform")
    assert f"echo {DRIVER} > " in problem["fix"]


def test_without_pyopencl_info_warns_and_exits_0_since_onednn_works():
    code = (
        "import sys; sys.modules['pyopencl'] = None; "
        "from dnnl_interop.__main__ import main; sys.exit(main(['info']))"
    )
    result = run(code=code)
    assert result.returncode == 0, result.stderr
    no_traceback(result)
    assert "pyopencl cannot be imported" in result.stdout
    assert "warning: pyopencl cannot be imported" in result.stderr
    assert "    fix: pip install pyopencl\n" in result.stdout
    assert f"version:             {TARGET_ONEDNN}" in result.stdout
    assert "CPU engine:          yes" in result.stdout


def test_nothing_found_exits_3_and_says_both(tmp_path):
    env = _env(DNNL_INTEROP_LIBRARY="/nonexistent", OCL_ICD_VENDORS=str(tmp_path / "none.icd"))
    result = run("info", "--json", env=env)
    assert result.returncode == 3
    no_traceback(result)
    assert json.loads(result.stdout)["missing"] == ["onednn", "opencl-platforms"]
    assert "oneDNN not found" in result.stderr and "no OpenCL platform" in result.stderr


# --- the command line itself --------------------------------------------------------


def test_usage_errors_return_2(capsys):
    from dnnl_interop.__main__ import main

    assert main([]) == 2
    assert main(["info", "--bogus"]) == 2
    assert main(["--help"]) == 0
    assert "info" in capsys.readouterr().out


def test_the_package_and_the_cli_module_import_neither_pyopencl_nor_numpy():
    code = (
        "import sys, dnnl_interop, dnnl_interop.__main__, dnnl_interop._info; "
        "print(sorted({'pyopencl', 'numpy'} & set(sys.modules)), dnnl_interop.loaded_library())"
    )
    result = run(code=code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["[]", "None"]


# --- info --emulated-level-zero -----------------------------------------------------------


def _level_zero_as_seen_here() -> dict:
    """In a child with the emulated Level Zero loader on: the same facts, asked directly."""
    import hashlib

    from dnnl_interop import ze
    from dnnl_interop.testing import emulated_level_zero

    lz = emulated_level_zero.enable()
    blob_id = ze.get_engine_cache_blob_id(lz.driver, lz.device)
    with ze.make_engine(lz.driver, lz.device, lz.context) as engine:
        blob = ze.get_engine_cache_blob(engine)
    return {
        "loader": str(emulated_level_zero.loader_path()),
        "name": lz.name,
        "uuid": lz.uuid.hex(),
        "ip_version": lz.ip_version,
        "driver_version": lz.gpu.device.driver_version,
        "opencl_device": lz.gpu.device.name,
        "blob_id_sha256": hashlib.sha256(blob_id).hexdigest(),
        "blob_id_length": len(blob_id),
        "blob_length": len(blob),
    }


@pytest.fixture(scope="module")
def level_zero_here() -> dict:
    from dnnl_interop.testing import emulated_level_zero

    return emulated_level_zero.run_in_child(_level_zero_as_seen_here)


@pytest.fixture(scope="module")
def level_zero_json():
    result = run("info", "--emulated-level-zero", "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    no_traceback(result)
    return json.loads(result.stdout)


def test_info_emulated_level_zero_shows_the_driver_and_device_as_oneDNN_sees_them(level_zero_json, level_zero_here):
    from dnnl_interop.testing import emulated_level_zero

    facts, here = level_zero_json, level_zero_here
    assert facts["schema"] == 1 and facts["exit_code"] == 0 and facts["error"] is None
    assert facts["loader"] == {
        "path": here["loader"], "soname": "libze_loader.so.1", "device_selector": "opencl:*",
    }
    assert facts["driver"]["version"] == here["driver_version"]
    assert facts["driver"]["handle"] and facts["device"]["handle"]  # addresses of the child process
    device = {key: value for key, value in facts["device"].items() if key != "handle"}
    assert device == {
        "name": here["name"], "uuid": here["uuid"], "ip_version": emulated_level_zero.IP_VERSION,
        "opencl_device": here["opencl_device"],
    }
    assert here["ip_version"] == emulated_level_zero.IP_VERSION
    assert facts["onednn"]["version"] == TARGET_ONEDNN and facts["onednn"]["error"] is None


def test_info_emulated_level_zero_makes_an_engine_that_gives_its_handles_back(level_zero_json, level_zero_here):
    facts, here = level_zero_json, level_zero_here
    assert facts["engine"] == {"ok": True, "error": None, "same_handles": True}
    assert facts["cache_blob_id"] == {"ok": True, "sha256": here["blob_id_sha256"], "length": here["blob_id_length"]}
    assert facts["cache_blob"] == {"ok": True, "length": here["blob_length"]}


def test_info_emulated_level_zero_as_text_has_the_same_facts(level_zero_json, level_zero_here):
    result = run("info", "--emulated-level-zero")
    assert result.returncode == 0, result.stderr
    no_traceback(result)
    fields = {
        label.strip(): value.strip()
        for label, value in (line.split(":", 1) for line in result.stdout.splitlines()[1:])
    }
    facts, here = level_zero_json, level_zero_here
    uuid = here["uuid"]
    assert fields["loader"] == f"{here['loader']} (as libze_loader.so.1)"
    assert fields["SYCL devices"] == "ONEAPI_DEVICE_SELECTOR=opencl:*"
    assert fields["driver"].endswith(f", version {here['driver_version']}")
    assert fields["device"].endswith(f", {here['name']}")
    assert fields["UUID"] == f"{uuid[:8]}-{uuid[8:12]}-{uuid[12:16]}-{uuid[16:20]}-{uuid[20:]}"
    assert fields["IP version"] == "0x02400000"
    assert fields["ze engine"] == "yes; it gives back the same driver, device and context"
    assert fields["cache blob id"] == (
        f"{facts['cache_blob_id']['length']} bytes, sha256 {here['blob_id_sha256']}"
    )
    assert fields["cache blob"] == f"{here['blob_length']} bytes"


def test_info_emulated_level_zero_without_onednn_exits_3():
    result = run("info", "--emulated-level-zero", "--json", env=_env(DNNL_INTEROP_LIBRARY="/nonexistent"))
    assert result.returncode == 3, result.stdout + result.stderr
    no_traceback(result)
    facts = json.loads(result.stdout)
    assert facts["exit_code"] == 3 and facts["error"]["class"] == "LibraryNotFoundError"
    assert "/nonexistent" in facts["error"]["message"]
    assert facts["engine"] is None and facts["device"] is None
    assert "no usable oneDNN (exit 3)" in result.stderr


def test_info_emulated_level_zero_on_oneDNN_3_11_names_the_missing_functions_and_exits_6():
    env = _env(DNNL_INTEROP_LIBRARY=str(LIBRARY_3_11), LD_LIBRARY_PATH=str(REAL_LIBRARY.parent))
    result = run("info", "--emulated-level-zero", "--json", env=env)
    assert result.returncode == 6, result.stdout + result.stderr
    facts = json.loads(result.stdout)
    assert facts["onednn"]["version"].startswith("3.11.")
    assert facts["device"]["ip_version"] == 0x02400000  # the loader still answers
    missing = {"cache_blob_id": "dnnl_ze_interop_engine_get_cache_blob_id", "engine": "dnnl_ze_interop_engine_create"}
    for key, function in missing.items():
        error = facts[key]["error"]
        assert facts[key]["ok"] is False and error["class"] == "MissingFunctionError"
        assert function in error["message"]
    assert facts["cache_blob"] is None
    assert "no engine on the emulated Level Zero device (exit 6)" in result.stderr


def test_info_takes_one_emulation_at_a_time():
    from dnnl_interop.__main__ import main

    assert main(["info", "--emulated-gpu", "--emulated-level-zero"]) == 2


def test_version_flag_prints_the_package_version():
    import dnnl_interop

    done = subprocess.run([sys.executable, "-m", "dnnl_interop", "--version"], capture_output=True, text=True)
    assert (done.returncode, done.stdout.strip()) == (0, f"dnnl-interop {dnnl_interop.__version__}")


def test_dir_shows_the_public_api_only():
    import dnnl_interop

    names = dir(dnnl_interop)
    assert "Engine" in names and "ocl" in names and "CacheBlobStore" in names
    assert not [n for n in names if n in ("TYPE_CHECKING", "annotations") or (n.startswith("_") and n != "__version__")]
