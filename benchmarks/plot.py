"""The performance page's charts, drawn from the benchmarks' JSON output.

    .venv/bin/python benchmarks/plot.py [--results benchmarks/results] [--out docs/figures]

Reads every ``*.json`` that a benchmark script wrote with ``--json PATH``
(schema ``dnnl-interop-benchmark/1``, see ``_bench.Results``) in
``--results`` and writes one SVG per chart into ``--out``:

* ``execute.svg`` (``bench_execute.py``): the Python-side cost of a call with
  oneDNN replaced by a C no-op, and the ratio of a real execute + wait to the
  C loop, paired within each round, per mode of oneDNN's own time;
* ``primitives-cpu.svg`` (``bench_primitives.py --only cpu``): the per-round
  ratio of a 256³ matmul and a 3x3 convolution to the C loop, and the time
  per execution beside numpy's ``a @ b`` and the plain-layout convolution;
* ``primitives-gpu.svg`` (``bench_primitives.py --only gpu``): primitive
  creation in fresh processes on the emulated GPU, cold vs from the cache
  blob store vs the blob handed straight to oneDNN;
* ``cached-creation.svg`` (``bench_cached_creation.py``): engine and reorder
  creation in fresh processes on the emulated GPU: cold, from the blob in
  memory, from a plain file, through the store, and the store's first miss.

Every chart says in its footer the command that produced its data, when it
ran and the machine's load average at its start and end. Nothing is typed
in by hand: every number drawn is computed here from the rounds in the JSON.
The output is deterministic for given data (no date in the file, fixed SVG
ids, text kept as text), so a regenerated chart differs from the committed
one only when the data or matplotlib changes; ``tests/test_plot.py`` redraws
them from the committed JSON.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
OUT = HERE.parent / "docs" / "figures"
SCHEMA = "dnnl-interop-benchmark/1"
FAST_MODE = 20e-6  # as bench_execute.py: a round whose C loop is under this is in oneDNN's fast mode

COLORS = {"binding": "#4c72b0", "bound": "#55a868", "bound wait=True": "#2ca02c", "raw cffi": "#c44e52",
          "floor": "#8172b2", "C loop": "#555555", "numpy": "#dd8452", "plain": "#937860",
          "cold": "#c44e52", "store": "#4c72b0", "direct": "#55a868", "fast": "#4c72b0", "slow": "#dd8452"}


def load(directory: Path) -> dict[tuple[str, str], dict]:
    """``{(script, section): section}`` with the run's header in ``section["run"]``."""
    sections: dict[tuple[str, str], dict] = {}
    for path in sorted(directory.glob("*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        if document.get("schema") != SCHEMA:
            raise SystemExit(f"{path}: not a benchmark result of schema {SCHEMA}")
        script = Path(document["script"]).name
        for name, section in document["sections"].items():
            sections[script, name] = {**section, "run": document}
    return sections


def footer(figure, *runs: dict) -> None:
    """The command, date and load of each run the chart's data came from."""
    lines = []
    for run in runs:
        load = run["machine"]["load_average"]
        start, end = (load.get(key) for key in ("start", "end"))
        loads = f"load average {start[0]:.1f} -> {end[0]:.1f}" if start and end else "load average unknown"
        lines.append(f"{run['command']}   ({run['started'].replace('T', ' ')[:16]} UTC, "
                     f"{run['machine']['cpus']} CPUs, {loads})")
    figure.text(0.01, 0.01, "\n".join(lines), fontsize=7, color="#444444", ha="left", va="bottom",
                family="monospace")


def _quartiles(values: list[float]) -> tuple[float, float, float]:
    if len(values) < 2:
        return values[0], values[0], values[0]
    q1, _, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, statistics.median(values), q3


def _bars(axes, labels: list[str], values: list[list[float]], scale: float, unit: str, colors: list[str],
          fmt: str = "{:.2f}") -> None:
    """Horizontal bars of the medians, quartiles as error bars, the median written beside each."""
    stats = [_quartiles([v * scale for v in vs]) for vs in values]
    medians = [m for _, m, _ in stats]
    errors = [[m - q1 for q1, m, _ in stats], [q3 - m for _, m, q3 in stats]]
    positions = range(len(labels))
    axes.barh(positions, medians, xerr=errors, color=colors, capsize=3, error_kw={"elinewidth": 0.8})
    axes.set_yticks(list(positions), labels)
    axes.invert_yaxis()
    axes.set_xlabel(f"median, {unit} (bars: quartiles)")
    for y, (_, m, q3) in zip(positions, stats, strict=True):
        axes.text(q3, y, "  " + fmt.format(m) + f" {unit}", va="center", fontsize=8)
    axes.margins(x=0.3)


def paired_ratios(section: dict, name: str, reference: str, rounds: list[int] | None = None) -> list[float]:
    values, base = section["rounds"][name], section["rounds"][reference]
    indices = range(len(base)) if rounds is None else rounds
    return [values[i] / base[i] for i in indices]


# --- the charts ----------------------------------------------------------------------------------


def chart_execute(plt, sections: dict) -> object | None:
    real = sections.get(("bench_execute.py", "execute + wait"))
    isolated = sections.get(("bench_execute.py", "isolated"))
    if real is None or isolated is None:
        return None
    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4.4), gridspec_kw={"width_ratios": [1, 1.2]})
    figure.subplots_adjust(left=0.17, right=0.97, top=0.86, bottom=0.22, wspace=0.62)
    figure.suptitle("Primitive.execute: what the binding adds (2x2 f32 reorder, CPU engine)", fontsize=11)

    names = [n for n in ("binding", "bound", "raw cffi", "C loop") if n in isolated["rounds"]]
    labels = {"binding": "primitive.execute()", "bound": "bound.execute()",
              "raw cffi": "raw cffi call", "C loop": "C loop"}
    _bars(left, [labels[n] for n in names], [isolated["rounds"][n] for n in names], 1e6, "µs",
          [COLORS[n] for n in names], "{:.3f}")
    left.set_title("oneDNN replaced by a C no-op: time per call", fontsize=9)

    c_loop = real["rounds"]["C loop"]
    modes = {"fast": [i for i, c in enumerate(c_loop) if c < FAST_MODE],
             "slow": [i for i, c in enumerate(c_loop) if c >= FAST_MODE]}
    names = [n for n in ("binding", "bound", "bound wait=True", "floor", "raw cffi") if n in real["rounds"]]
    labels = {"binding": "execute; wait", "bound": "bound.execute(); wait", "bound wait=True":
              "bound.execute(wait=True)", "floor": "floor (2 bare methods)", "raw cffi": "raw cffi, 2 calls"}
    height = 0.8 / max(1, sum(bool(r) for r in modes.values()))
    shown = [(mode, rounds) for mode, rounds in modes.items() if rounds]
    for k, (mode, rounds) in enumerate(shown):
        c_median = statistics.median(c_loop[i] for i in rounds) * 1e6
        medians = [statistics.median(paired_ratios(real, n, "C loop", rounds)) for n in names]
        positions = [i + (k - (len(shown) - 1) / 2) * height for i in range(len(names))]
        right.barh(positions, [m - 1 for m in medians], height=height, left=1, color=COLORS[mode],
                   label=f"{mode} mode: {len(rounds)} rounds, C loop {c_median:.1f} µs")
        for y, m in zip(positions, medians, strict=True):
            right.text(m, y, f" {m:.3f}x", va="center", fontsize=7)
    right.set_yticks(range(len(names)), [labels[n] for n in names])
    right.invert_yaxis()
    right.axvline(1, color="#555555", linewidth=0.8)
    right.set_xlabel("execute + wait / C loop (median of the per-round ratios)")
    right.set_title("real oneDNN execute + wait, paired with the C loop", fontsize=9)
    right.legend(fontsize=7, loc="lower right")
    right.margins(x=0.25)
    footer(figure, real["run"])
    return figure


def chart_primitives_cpu(plt, sections: dict) -> object | None:
    cpu = sections.get(("bench_primitives.py", "cpu"))
    if cpu is None:
        return None
    rounds = cpu["rounds"]
    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4.6), gridspec_kw={"width_ratios": [1.1, 1]})
    figure.subplots_adjust(left=0.19, right=0.97, top=0.86, bottom=0.2, wspace=0.62)
    figure.suptitle("Large work on the CPU engine: matmul 256³ f32, convolution 3x3 64->64 56x56 (\"any\")",
                    fontsize=11)

    labels, data, colors = [], [], []
    for what in ("matmul", "conv any"):
        for name, label in (("binding", "execute; wait"), ("bound", "bound, wait=True"),
                            ("raw cffi", "raw cffi, 2 calls")):
            labels.append(f"{what.replace(' any', '')}: {label}")
            data.append(paired_ratios(cpu, f"{what} {name}", f"{what} C loop"))
            colors.append(COLORS[name])
    boxes = left.boxplot(data, orientation="horizontal", widths=0.6, patch_artist=True, showfliers=True,
                         flierprops={"markersize": 3}, medianprops={"color": "black"})
    for patch, color in zip(boxes["boxes"], colors, strict=True):
        patch.set_facecolor(color)
        patch.set_alpha(0.75)
    left.set_yticks(range(1, len(labels) + 1), labels)
    left.invert_yaxis()
    for y, values in enumerate(data, start=1):
        left.text(max(values), y, f"  {statistics.median(values):.3f}x", va="center", fontsize=7)
    left.axvline(1, color="#555555", linewidth=0.8)
    left.axvline(1.02, color="#c44e52", linewidth=0.8, linestyle="--", label="1.02x")
    left.legend(fontsize=7, loc="lower right")
    left.set_xlabel("time / C loop, paired within each round")
    left.set_title(f"per-round ratio to a C loop ({len(rounds['matmul C loop'])} rounds)", fontsize=9)
    left.margins(x=0.2)

    names = [("matmul C loop", "matmul: C loop", "C loop"), ("matmul bound", "matmul: bound", "bound"),
             ("matmul binding", "matmul: execute; wait", "binding"), ("matmul numpy a @ b", "numpy a @ b", "numpy"),
             ("conv any bound", "conv \"any\": bound", "bound"),
             ("conv plain nchw/oihw binding", "conv plain nchw/oihw", "plain")]
    names = [n for n in names if n[0] in rounds]
    _bars(right, [label for _, label, _ in names], [rounds[key] for key, _, _ in names], 1e6, "µs",
          [COLORS[color] for _, _, color in names], "{:,.0f}")
    right.set_xscale("log")
    right.set_title("time per execution + wait (log scale)", fontsize=9)
    footer(figure, cpu["run"])
    return figure


def chart_primitives_gpu(plt, sections: dict) -> object | None:
    found = {what: sections[key] for what in ("matmul", "conv+relu", "batchnorm")
             if (key := ("bench_primitives.py", f"gpu {what}")) in sections}
    if not found:
        return None
    figure, axes = plt.subplots(figsize=(10, 4.6))
    figure.subplots_adjust(left=0.08, right=0.97, top=0.86, bottom=0.2)
    figure.suptitle("Primitive creation in a fresh process, emulated GPU (real oneDNN): cold vs cache blob",
                    fontsize=11)
    variants = (("cold", "cold: Primitive(pd)"), ("store", "store: make_primitive_cached(pd, store)"),
                ("direct", "direct: Primitive(pd, blob)"))
    width = 0.8 / len(variants)
    for k, (variant, label) in enumerate(variants):
        stats = [_quartiles([v * 1e3 for v in section["rounds"][variant]]) for section in found.values()]
        positions = [i + (k - 1) * width for i in range(len(found))]
        axes.bar(positions, [m for _, m, _ in stats], width=width, color=COLORS[variant], label=label,
                 yerr=[[m - q1 for q1, m, _ in stats], [q3 - m for _, m, q3 in stats]], capsize=3)
        for x, (_, m, q3) in zip(positions, stats, strict=True):
            axes.text(x, q3 * 1.08, f"{m:.1f}", ha="center", fontsize=7)
    ticks = []
    for what, section in found.items():
        medians = {v: statistics.median(section["rounds"][v]) for v, _ in variants}
        ticks.append(f"{what}\ncold / store {medians['cold'] / medians['store']:.1f}x, "
                     f"store / direct {medians['store'] / medians['direct']:.2f}x")
    axes.set_xticks(range(len(found)), ticks, fontsize=8)
    axes.set_yscale("log")
    axes.set_ylabel("creation, ms (median; bars: quartiles)")
    runs = len(next(iter(found.values()))["rounds"]["cold"])
    axes.set_title(f"{runs} fresh processes per primitive and variant; "
                   "ONEDNN_PRIMITIVE_CACHE_CAPACITY=0", fontsize=9)
    axes.legend(fontsize=8, loc="upper center", ncol=3)
    low, high = axes.get_ylim()
    axes.set_ylim(low, high * 12)  # room for the legend above the bars (log scale)
    footer(figure, next(iter(found.values()))["run"])
    return figure


def chart_cached_creation(plt, sections: dict) -> object | None:
    engine = sections.get(("bench_cached_creation.py", "engine"))
    reorder = sections.get(("bench_cached_creation.py", "primitive"))
    if engine is None or reorder is None:
        return None
    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4.6))
    figure.subplots_adjust(left=0.2, right=0.97, top=0.82, bottom=0.2, wspace=0.75)
    figure.suptitle("Engine and reorder creation in a fresh process, emulated GPU (real oneDNN)", fontsize=11)
    variants = (("cold", "cold", "cold"), ("direct", "direct: blob in memory", "direct"),
                ("direct+ids", "direct + ids", "direct"), ("file", "file: ids + plain read", "plain"),
                ("store", "store: *_cached(store)", "store"), ("store-miss", "store miss (first run)", "cold"))
    rows, cols = engine["run"]["derived"]["shape"]
    panels = ((left, engine, "ocl.make_engine"), (right, reorder, f"reorder {rows}x{cols} f32 ab -> ba"))
    for axes, section, title in panels:
        shown = [v for v in variants if v[0] in section["rounds"]]
        _bars(axes, [label for _, label, _ in shown], [section["rounds"][key] for key, _, _ in shown], 1e3, "ms",
              [COLORS[color] for _, _, color in shown], "{:.2f}")
        medians = {key: statistics.median(section["rounds"][key]) for key, _, _ in shown}
        axes.set_title(f"{title}\ncold / store {medians['cold'] / medians['store']:.2f}x, "
                       f"store / direct {medians['store'] / medians['direct']:.2f}x", fontsize=9)
    right.set_xscale("log")
    footer(figure, engine["run"])
    return figure


CHARTS: dict[str, Callable] = {
    "execute.svg": chart_execute,
    "primitives-cpu.svg": chart_primitives_cpu,
    "primitives-gpu.svg": chart_primitives_gpu,
    "cached-creation.svg": chart_cached_creation,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=RESULTS, help="directory of the benchmarks' JSON files")
    parser.add_argument("--out", type=Path, default=OUT, help="directory the charts are written to")
    args = parser.parse_args(argv)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    matplotlib.rcParams.update({"svg.fonttype": "none", "svg.hashsalt": "dnnl-interop", "font.size": 9,
                                "axes.spines.top": False, "axes.spines.right": False})
    sections = load(args.results)
    args.out.mkdir(parents=True, exist_ok=True)
    missing = []
    for name, draw in CHARTS.items():
        figure = draw(plt, sections)
        if figure is None:
            missing.append(name)
            continue
        figure.savefig(args.out / name, format="svg", metadata={"Date": None})
        plt.close(figure)
        print(f"wrote {args.out / name}")
    if missing:
        print(f"no data in {args.results} for: {', '.join(missing)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
