"""In-process cost of ``import dnnl_interop``, and what it must not load.

    .venv/bin/python benchmarks/bench_import.py [--runs 40] [--importtime]

Each run is a fresh interpreter (this venv's Python, site and .pth files
processed as for any user) that imports ``sys`` and ``time`` -- already
loaded in a bare interpreter -- and then measures ``time.perf_counter()``
around one import statement:

* ``dnnl_interop``: ``import dnnl_interop`` (everything it pulls in counts:
  enum, the compiled ``_ffi`` extension, its modules);
* ``trivial``: ``import`` of an empty module from a temporary directory, the
  cost of the import machinery itself;
* ``dnnl_interop, no .pyc``: as the first, but with no bytecode cache, so
  every module of the package is compiled from source (what a checkout run
  with ``PYTHONDONTWRITEBYTECODE=1`` pays; shown for reference only).

Bytecode goes to a temporary ``PYTHONPYCACHEPREFIX`` (written by a warm-up
run), as a ``pip install`` would have precompiled it; the repository is not
written to. All runs see the same ``sys.path`` (the temporary directory
first) and alternate, in rotating order; the median of each and the
difference between the first two ("added ms") are printed. The target is an
added cost of at most 5 ms.

Every ``dnnl_interop`` run also reports, after its import, whether any
``libdnnl`` (or the libraries it needs: libtbb, libsycl, libOpenCL) is mapped
in the process (``/proc/self/maps``), and whether pyopencl or numpy got
imported: the package must load none of them until it is used.

``--importtime`` adds one ``python -X importtime`` run and prints the
modules it imported with their cumulative times, slowest first.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from _bench import Results, add_json_option

CHILD = r"""
import sys, time
sys.path.insert(0, {tmpdir!r})
t0 = time.perf_counter()
import {module}
t1 = time.perf_counter()
with open("/proc/self/maps") as f:
    maps = f.read()
mapped = sorted({{line.split()[-1].rsplit("/", 1)[-1] for line in maps.splitlines()
                 if any(word in line for word in ("libdnnl", "libtbb", "libsycl", "libOpenCL"))}})
heavy = sorted({{"pyopencl", "numpy"}} & set(sys.modules))
import json
print(json.dumps({{"seconds": t1 - t0, "mapped": mapped, "modules": heavy}}))
"""


def child_env(tmpdir: str, bytecode: bool) -> dict[str, str]:
    env = dict(os.environ)
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = os.path.join(tmpdir, "pycache")
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env["PYTHONPYCACHEPREFIX"] = os.path.join(tmpdir, "no-pycache")
    return env


def run_child(module: str, tmpdir: str, extra: tuple[str, ...] = (), bytecode: bool = True):
    code = CHILD.format(tmpdir=tmpdir, module=module)
    # Run outside the repository so "dnnl_interop" comes from the installed package.
    return subprocess.run(
        [sys.executable, *extra, "-c", code], cwd=tmpdir, env=child_env(tmpdir, bytecode),
        capture_output=True, text=True, check=True,
    )


def importtime(tmpdir: str, runs: int = 9) -> None:
    """Median self and cumulative time of each module ``import dnnl_interop`` loads."""
    samples: dict[str, list[tuple[int, int]]] = {}
    order: list[str] = []
    for _ in range(runs):
        result = run_child("dnnl_interop", tmpdir, ("-X", "importtime"))
        subtree: list[tuple[str, int, int]] = []
        for line in result.stderr.splitlines():
            if not line.startswith("import time:") or "self [us]" in line:
                continue
            self_us, cumulative_us, name = line[len("import time:"):].split("|")
            entry = (name.rstrip(), int(self_us), int(cumulative_us))
            subtree.append(entry)
            if not name.startswith("  "):  # a top-level import ends its subtree
                if name.strip() == "dnnl_interop":
                    break
                subtree = []
        for name, self_us, cumulative_us in subtree:
            if name not in samples:
                order.append(name)
            samples.setdefault(name, []).append((self_us, cumulative_us))
    print(f"python -X importtime, the modules import dnnl_interop loads (median of {runs} runs; "
          "-X importtime itself adds overhead):")
    print("   self µs  cumul. µs  module")
    for name in order:
        self_us = statistics.median(s for s, _ in samples[name])
        cumulative_us = statistics.median(c for _, c in samples[name])
        print(f"  {self_us:8.0f} {cumulative_us:10.0f}  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40, help="interpreters per variant")
    parser.add_argument("--importtime", action="store_true", help="also show -X importtime")
    add_json_option(parser)
    args = parser.parse_args()
    results = Results()

    with tempfile.TemporaryDirectory(prefix="dnnl-interop-bench-") as tmpdir:
        with open(os.path.join(tmpdir, "bench_trivial_module.py"), "w"):
            pass
        variants = {
            "dnnl_interop": ("dnnl_interop", True),
            "trivial": ("bench_trivial_module", True),
            "dnnl_interop, no .pyc": ("dnnl_interop", False),
        }
        for module, bytecode in variants.values():  # warm the file cache, write the .pyc files
            run_child(module, tmpdir, bytecode=bytecode)
        times: dict[str, list[float]] = {name: [] for name in variants}
        mapped: set[str] = set()
        heavy: set[str] = set()
        names = list(variants)
        for r in range(args.runs):
            shift = r % len(names)
            for name in names[shift:] + names[:shift]:
                module, bytecode = variants[name]
                facts = json.loads(run_child(module, tmpdir, bytecode=bytecode).stdout)
                times[name].append(facts["seconds"])
                if module == "dnnl_interop":
                    mapped.update(facts["mapped"])
                    heavy.update(facts["modules"])

        print(f"{sys.executable} ({sys.version.split()[0]}); {args.runs} fresh interpreters per variant, "
              "alternating; time of the import statement:")
        medians = {}
        for name, values in times.items():
            medians[name] = statistics.median(values)
            q = statistics.quantiles(values, n=4)
            print(f"  {name:<22} median {medians[name] * 1e3:7.3f} ms   "
                  f"quartiles [{q[0] * 1e3:.3f} .. {q[2] * 1e3:.3f}]")
        added = medians["dnnl_interop"] - medians["trivial"]
        results.add("import", times, "s", "seconds of the import statement, one value per fresh interpreter")
        results.derive("added by import dnnl_interop (s)", added)
        print(f"  added by import dnnl_interop: {added * 1e3:.3f} ms "
              f"(ratio {medians['dnnl_interop'] / medians['trivial']:.1f}x the trivial import); "
              f"without .pyc: {(medians['dnnl_interop, no .pyc'] - medians['trivial']) * 1e3:.3f} ms")
        verdict = "meets" if added <= 5e-3 else "MISSES"
        print(f"  target added <= 5 ms: {verdict}")
        print(f"  after import: libraries mapped: {sorted(mapped) or 'none'}; "
              f"pyopencl/numpy imported: {sorted(heavy) or 'none'}")
        if mapped or heavy:
            raise SystemExit("FAILED: importing dnnl_interop must load no oneDNN and no pyopencl/numpy")
        print("  OK: no libdnnl (nor libtbb, libsycl, libOpenCL) mapped, no pyopencl or numpy imported")
        results.write(args.json)
        if args.importtime:
            importtime(tmpdir)


if __name__ == "__main__":
    main()
