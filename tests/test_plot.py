"""The performance page's charts are drawn from the benchmarks' committed output.

``benchmarks/plot.py`` redraws every chart of ``docs/figures/`` from the JSON
files in ``benchmarks/results/`` (written by the benchmark scripts with
``--json``) into a temporary directory; each redrawn chart must carry the same
text as the committed one: the numbers it writes beside the bars, the axes,
and the footer with the command, date and load of the run. A chart edited by
hand, or left behind when the results change, fails here. The performance page
embeds each chart with a caption that gives the command that produced its data.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from conftest import ROOT

BENCHMARKS = ROOT / "benchmarks"
RESULTS = BENCHMARKS / "results"
FIGURES = ROOT / "docs" / "figures"
PAGE = ROOT / "docs" / "performance.md"


def svg_text(path) -> list[str]:
    """Every piece of text the chart shows, in document order (the SVG keeps text as text)."""
    root = ET.parse(path).getroot()
    return ["".join(element.itertext()).strip() for element in root.iter() if element.tag.endswith("}text")]


def results() -> list[dict]:
    return [json.loads(path.read_text(encoding="utf-8")) for path in sorted(RESULTS.glob("*.json"))]


@pytest.fixture(scope="module")
def redrawn(tmp_path_factory):
    out = tmp_path_factory.mktemp("figures")
    done = subprocess.run([sys.executable, str(BENCHMARKS / "plot.py"), "--results", str(RESULTS), "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return out


def test_every_committed_chart_is_redrawn_from_the_committed_results(redrawn):
    committed = sorted(path.name for path in FIGURES.glob("*.svg"))
    assert committed == sorted(path.name for path in redrawn.glob("*.svg"))
    assert {"execute.svg", "primitives-cpu.svg", "primitives-gpu.svg", "cached-creation.svg"} <= set(committed)
    for name in committed:
        text = svg_text(redrawn / name)
        assert len(text) > 20, f"{name}: hardly any text drawn"
        assert text == svg_text(FIGURES / name), f"docs/figures/{name} is not what benchmarks/plot.py draws now"


def test_each_chart_shows_the_command_and_date_of_its_run(redrawn):
    shown = {path.name: " ".join(svg_text(path)) for path in redrawn.glob("*.svg")}
    for document in results():
        script = document["script"].rsplit("/", 1)[-1]
        charts = [name for name, text in shown.items() if document["command"] in text]
        assert charts, f"no chart shows the run of {script}: {document['command']}"
        for name in charts:
            assert document["started"][:10] in shown[name]


def test_the_results_are_what_the_scripts_write():
    documents = results()
    assert {document["script"] for document in documents} >= {"benchmarks/bench_execute.py",
                                                               "benchmarks/bench_primitives.py"}
    for document in documents:
        assert document["schema"] == "dnnl-interop-benchmark/1"
        assert "--json" not in document["command"]
        for name, section in document["sections"].items():
            for variant, values in section["rounds"].items():
                summary = section["summary"][variant]
                assert summary["n"] == len(values) > 1, (name, variant)
                assert summary["min"] <= summary["q1"] <= summary["median"] <= summary["q3"] <= summary["max"]


def test_the_performance_page_embeds_every_chart_with_its_command():
    page = PAGE.read_text(encoding="utf-8")
    commands = {document["command"] for document in results()}
    for chart in FIGURES.glob("*.svg"):
        start = page.find(f"```{{figure}} figures/{chart.name}")
        assert start >= 0, f"docs/performance.md does not show figures/{chart.name}"
        caption = page[start:page.index("```", start + 3)]
        assert any(command in caption for command in commands), f"the caption of {chart.name} gives no command"


def test_the_json_option_records_rounds_and_the_command_without_itself(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("_bench", BENCHMARKS / "_bench.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    run = bench.Results([str(BENCHMARKS / "bench_x.py"), "--rounds", "3", "--json", "out.json", "--quick"])
    run.add("part", {"a": [3.0, 1.0, 2.0], "b": [1.0, 1.0]}, "s", "what")
    run.derive("a / b", 2.0)
    run.write(str(tmp_path / "out.json"))
    document = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert document["command"] == "python benchmarks/bench_x.py --rounds 3 --quick"
    assert document["sections"]["part"]["rounds"]["a"] == [3.0, 1.0, 2.0]   # the order of the rounds kept
    assert document["sections"]["part"]["summary"]["a"] == {"median": 2.0, "q1": 1.5, "q3": 2.5, "min": 1.0,
                                                           "max": 3.0, "n": 3}
    assert document["derived"] == {"a / b": 2.0}
    assert document["started"] <= document["finished"]
    assert set(document["machine"]["load_average"]) == {"start", "end"}
