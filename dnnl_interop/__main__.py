"""Command line: ``python -m dnnl_interop info [--json]`` (also ``dnnl-interop info``).

``info`` reports which oneDNN library the binding finds, what it is (version,
runtimes, which interop entry points it exports, the files opened before it),
whether it makes its CPU engine, how Intel's CPU OpenCL driver (which that
engine runs on) is registered with oneDNN's OpenCL loader and with pyopencl's,
and every OpenCL platform and device pyopencl sees: for each device the
SHA-256 digest and length of oneDNN's cache-blob id, and whether oneDNN can
make a GPU engine from it (and if not, the error it answers). It ends with the
problems found, each with the exact fix (a shell command where one exists).

While the facts are gathered, everything written to file descriptor 1 (oneDNN's
verbose lines, OpenCL runtime chatter) goes to stderr, so stdout holds only the
report.

Exit codes
----------
0  oneDNN is usable: the library loaded and made its CPU engine. Warnings
   (pyopencl missing, no OpenCL platform, pyopencl not listing Intel's CPU
   platform) do not change the code; they are listed under Problems.
1  an unexpected error (a bug: please report the traceback)
2  bad command line (argparse)
3  oneDNN is unusable: no library found (the places tried are listed), or it
   makes no CPU engine (the fix is given)
6  (``--emulated-gpu``, ``--emulated-level-zero``) the emulation could not be
   switched on, or oneDNN made no engine on it

Whatever is missing, everything that could be found is still reported, and a
one-line summary of what is wrong goes to stderr.

JSON document (``--json``, schema 1)
-----------------------------------
Keys are stable; new keys may be added, existing ones keep their meaning.

``schema``         1
``exit_code``      the process's exit code (above)
``missing``        list of "onednn", "cpu-engine", "pyopencl", "opencl-platforms";
                   [] if none
``problems``       [{``severity``: "error" (oneDNN unusable) or "warning",
                     ``problem``: what is wrong, ``fix``: the fix or null}]
``dnnl_interop``   {``version``, ``path``}: this package
``environment``    {name: value or null} for DNNL_INTEROP_LIBRARY,
                   DNNL_INTEROP_REGISTER_CPU_OPENCL, LD_LIBRARY_PATH,
                   OCL_ICD_VENDORS, OCL_ICD_FILENAMES, OPENCL_VENDOR_PATH,
                   ONEDNN_VERBOSE, DNNL_VERBOSE, as they were when the
                   command started
``onednn``
    ``loaded``       bool
    ``path``         the library file bound, or null
    ``version``      "major.minor.patch", or null
    ``hash``         the commit hash the library reports, or null
    ``cpu_runtime``, ``gpu_runtime``
                     a ``dnnl_interop.Runtime`` name ("SYCL", "OCL", ...), the raw
                     int for one this package does not know, or null
    ``interop``      null, or {"opencl": I, "level_zero": I}, each I being
                     {``status``: "complete" | "partial" | "absent",
                      ``functions``: how many the headers declare (14 / 11),
                      ``present``: [names], ``missing``: [names]}
    ``cpu_engine``   null if not loaded, else {``ok``, ``count``: CPU engines
                     oneDNN sees (or null), ``error``: error object or null}
    ``preloaded``    [files opened by full path before the library]
    ``notes``        [strings]
    ``error``        null, or an error object (below) saying why nothing loaded
    ``attempts``     [{``place``, ``target``, ``reason``}] of a failed search
``icd``              Intel's CPU OpenCL driver (``libintelocl.so``) and its registration
    ``driver``       its path beside oneDNN (or in this environment), or null
    ``opt_out``      bool: DNNL_INTEROP_REGISTER_CPU_OPENCL=0
    ``vendors``      the vendors directory both loaders read (OCL_ICD_VENDORS,
                     else /etc/OpenCL/vendors); ``vendors_from``:
                     "OCL_ICD_VENDORS" or "system"
    ``broken_entries`` [{``file``, ``names``}]: registrations naming a missing driver
    ``onednn``       {``registered``, ``by_vendors``: [.icd files naming it],
                      ``by_environment``: [OCL_ICD_FILENAMES entries naming it],
                      ``by_binding``: [what the binding added to OCL_ICD_FILENAMES
                      in its own process]}
    ``pyopencl``     {``registered``: an .icd file of the vendors directory names
                      it (pyopencl's loader ignores OCL_ICD_FILENAMES),
                      ``lists_intel_cpu``: pyopencl lists an Intel platform with
                      a CPU device (null without pyopencl)}
``opencl``
    ``available``    bool: at least one platform
    ``pyopencl``     pyopencl's version, or null if it cannot be imported
    ``error``        null, or an error object (pyopencl import failure, or the
                     error listing platforms, e.g. PLATFORM_NOT_FOUND_KHR)
    ``platforms``    [{``index``, ``name``, ``vendor``, ``version``,
                       ``error`` (listing its devices), ``devices``: [D]}]
    D = {``index``, ``name``,
         ``type``: "CPU", "GPU", "ACCELERATOR", ... (joined by " | "),
         ``vendor_id``: int,
         ``cache_blob_id``: null if oneDNN is not loaded, else
             {``ok``: true, ``sha256``: 64 hex digits, ``length``: bytes} or
             {``ok``: false, ``error``: error object},
         ``gpu_engine``: null if oneDNN is not loaded, else
             {``ok``: true, ``error``: null} (the engine was made and closed) or
             {``ok``: false, ``error``: error object}}

``info --emulated-gpu`` reports instead the emulated Intel GPU of
``dnnl_interop.testing.emulated_gpu`` as oneDNN sees it, probed in a child
process with the layer on: ``schema``, ``exit_code``, ``error`` (null, or why
it could not be probed), ``device`` {``name``, ``type``, ``vendor_id``,
``platform``}, ``onednn`` {``path``, ``version``, ``error``}, ``gpu_engine``,
``cache_blob_id`` (as above) and ``cache_blob`` ({``ok``, ``length``} or
{``ok``: false, ``error``}).

``info --emulated-level-zero`` reports the emulated Level Zero driver and
device of ``dnnl_interop.testing.emulated_level_zero`` as oneDNN sees them,
probed in a child process with the loader on: ``schema``, ``exit_code``,
``error``, ``loader`` {``path``, ``soname``, ``device_selector``: the
ONEAPI_DEVICE_SELECTOR it runs with}, ``driver`` {``handle``: int,
``version``: what zeIntelGetDriverVersionString answers}, ``device``
{``handle``, ``name``, ``uuid``: 32 hex digits, ``ip_version``: int,
``opencl_device``: the emulated OpenCL GPU with that UUID}, ``onednn`` (as
above), ``cache_blob_id`` (as above), ``engine`` ({``ok``: true, ``error``:
null, ``same_handles``: whether oneDNN's engine gives back the driver, device
and context it was made on} or {``ok``: false, ``error``, ``same_handles``:
null}) and ``cache_blob`` (as above, null if no engine). Each is null when
``error`` says why nothing could be probed.

An error object is {``class``: the exception class name (e.g.
"InvalidArgumentsError"), ``status``: the oneDNN status name (e.g.
"INVALID_ARGUMENTS") or null, ``code``: the status or OpenCL error code or
null, ``message``: str(exception)}.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dnnl-interop",
        description="Python binding to oneDNN's OpenCL and Level Zero interop API.",
    )
    from . import __version__

    parser.add_argument("--version", action="version", version=f"dnnl-interop {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True
    info = commands.add_parser(
        "info",
        help="report the oneDNN library found and the OpenCL devices it can use",
        description=(
            "Report the oneDNN library found (path, version, runtimes, interop entry "
            "points), whether it makes its CPU engine, how Intel's CPU OpenCL driver is "
            "registered for oneDNN and for pyopencl, and each OpenCL device (cache-blob "
            "id, GPU engine); then each problem found, with the exact fix."
        ),
        epilog=(
            "exit codes: 0 oneDNN is usable (warnings, such as pyopencl missing, are "
            "listed under Problems); 3 oneDNN is unusable (no library, or no CPU engine); "
            "6 --emulated-gpu/--emulated-level-zero made no engine; 2 usage error; "
            "1 a bug (please report the traceback)"
        ),
    )
    info.add_argument("--json", action="store_true", help="print one JSON document")
    emulated = info.add_mutually_exclusive_group()
    emulated.add_argument(
        "--emulated-gpu",
        action="store_true",
        help="report the emulated Intel GPU (dnnl_interop.testing) as oneDNN sees it, "
        "probed in a child process; exit 6 if oneDNN makes no engine on it",
    )
    emulated.add_argument(
        "--emulated-level-zero",
        action="store_true",
        help="report the emulated Level Zero driver and device (dnnl_interop.testing) as oneDNN "
        "sees them, probed in a child process; exit 6 if oneDNN makes no engine on them",
    )
    from . import _cache_cli

    _cache_cli.add_parser(commands)
    return parser


def _info(args: argparse.Namespace) -> int:
    from . import _info

    if args.emulated_gpu:
        return _emulated_gpu_info(args, _info)
    if args.emulated_level_zero:
        return _emulated_level_zero_info(args, _info)
    facts = _info.collect()
    return _report(args, facts, _info.render_text, "info", _info.problem_summary(facts))


def _emulated_gpu_info(args: argparse.Namespace, _info: ModuleType) -> int:
    facts = _info.collect_emulated_gpu()
    summary = "no engine on the emulated GPU" if facts["exit_code"] else None
    return _report(args, facts, _info.render_emulated_gpu, "info --emulated-gpu", summary)


def _emulated_level_zero_info(args: argparse.Namespace, _info: ModuleType) -> int:
    facts = _info.collect_emulated_level_zero()
    summary = None
    if facts["exit_code"]:
        summary = ("no usable oneDNN" if facts["exit_code"] == _info.EXIT_NO_ONEDNN
                   else "no engine on the emulated Level Zero device")
    return _report(args, facts, _info.render_emulated_level_zero, "info --emulated-level-zero", summary)


def _report(
    args: argparse.Namespace, facts: dict[str, Any], render: Callable[[dict[str, Any]], str], command: str,
    summary: str | None,
) -> int:
    """Print ``facts`` (JSON with ``--json``, else ``render``), ``summary`` on stderr; the exit code."""
    if args.json:
        sys.stdout.write(json.dumps(facts, indent=2) + "\n")
    else:
        sys.stdout.write(render(facts))
    sys.stdout.flush()
    if summary:
        print(f"dnnl-interop {command}: {summary} (exit {facts['exit_code']})", file=sys.stderr)
    code: int = facts["exit_code"]
    return code


def main(argv: list[str] | None = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); return the exit code."""
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, or a usage error already printed
        return exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 2
    if args.command == "info":
        return _info(args)
    if args.command == "cache":
        from . import _cache_cli

        return _cache_cli.run(args)
    parser.error(f"unknown command {args.command}")  # pragma: no cover - argparse refuses it
    return 2  # pragma: no cover


if __name__ == "__main__":
    sys.exit(main())
