"""``python -m evalcore report``: writes the HTML report; bad input exits 2 with one line."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest

from evalcore.cli import main
from evalcore.findings import headline_findings, run_analyses
from evalcore.simulate.tables import JudgeSpec, SimulationSpec, simulate
from evalcore.store.store import VerdictStore, read_verdicts
from tests.conftest import ROOT

NAMES = ("sim-alder", "sim-birch", "sim-cedar", "sim-dogwood", "sim-elm")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("report")
    sim = simulate(
        SimulationSpec(
            n_models=5,
            n_instructions=60,
            model_names=NAMES,
            judges=(JudgeSpec("sim-a", slot_bias=0.4), JudgeSpec("sim-b", tie_width=1.0)),
            human_fraction=0.5,
            seed=8,
        )
    )
    verdicts = folder / "verdicts.csv"
    sim.verdicts.drop(columns=["row"]).to_csv(verdicts, index=False)
    ranking = folder / "ranking.csv"
    sim.human_ranking.to_csv(ranking, index=False)
    return folder, verdicts, ranking


def _error_line(capsys) -> str:
    # a "note:" line (e.g. which judge was used) may come before the one error line
    err = [line for line in capsys.readouterr().err.strip().splitlines() if not line.startswith("note: ")]
    assert len(err) == 1 and err[0].startswith("error: ")
    return err[0]


def test_writes_the_report_and_prints_the_findings(files, capsys):
    folder, verdicts, ranking = files
    out = folder / "report.html"
    code = main(
        [
            "report",
            str(verdicts),
            "--judge",
            "sim-b",
            "--human-ranking",
            str(ranking),
            "--bootstrap",
            "200",
            "-o",
            str(out),
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    document = out.read_text(encoding="utf-8")
    assert document.startswith("<!DOCTYPE html>") and "Plotly.newPlot(" in document
    assert f"wrote {out}" in printed and "judge sim-b" in printed
    # The same findings as the library gives for this file and judge.
    store = VerdictStore()
    store.load(read_verdicts(verdicts))
    findings = headline_findings(
        run_analyses(store, judge="sim-b", rounds=200, human_ranking=pd.read_csv(ranking))
    )
    for finding in findings.findings:
        assert f"- {finding.title}: {finding.text}" in printed
    assert 'id="anchor-table"' in document and ">Agreement with the human ranking<" in document
    assert 'id="judges-table"' in document  # both judges' sheets, by default


def test_no_compare_judges_keeps_the_chosen_judge_only(files, capsys):
    folder, verdicts, _ = files
    out = folder / "one.html"
    assert main(["report", str(verdicts), "--bootstrap", "50", "--no-compare-judges", "-o", str(out)]) == 0
    document = out.read_text(encoding="utf-8")
    assert 'id="judge-table"' in document and 'id="judges-table"' not in document


def test_json_output(files, capsys):
    folder, verdicts, _ = files
    out = folder / "r.html"
    assert main(["report", str(verdicts), "--bootstrap", "100", "-o", str(out), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["output"] == str(out) and payload["bytes"] == out.stat().st_size
    assert payload["judge"] == "sim-a" and payload["dataset"] == "verdicts.csv"
    assert [f["key"] for f in payload["findings"]] == [
        "leader",
        "separation",
        "anchor",
        "judge",
        "correction",
    ]
    assert payload["findings"][0]["numbers"]["leader"] == "sim-alder"
    assert payload["unavailable"] == {}


@pytest.mark.parametrize(
    "args, words",
    [
        (["missing.csv"], "no such file"),
        (["{verdicts}", "--judge", "nobody"], "judge 'nobody' is not in the file"),
        (["{verdicts}", "-o", "{folder}/no/such/dir/r.html"], "does not exist"),
        (["{verdicts}", "-o", "{folder}"], "is a directory"),
        (["{verdicts}", "--bootstrap", "0"], "--bootstrap must be at least 1"),
        (
            ["{verdicts}", "--bootstrap", "10000000"],
            "--bootstrap: got 10000000; must be a whole number from 0 to 100,000",
        ),
        (["{verdicts}", "--human-ranking", "{verdicts}"], "required columns missing: model, score"),
        (["{bad}"], "outside the verdict scale"),
    ],
)
def test_bad_input_exits_2_with_one_line(files, capsys, args, words):
    folder, verdicts, _ = files
    bad = folder / "bad.csv"
    bad.write_text("instruction_id,model_a,model_b,verdict\nq1,a,b,7\n")
    argv = ["report"] + [a.format(verdicts=verdicts, folder=folder, bad=bad) for a in args]
    if "-o" not in argv:
        argv += ["-o", str(folder / "unused.html")]
    assert main(argv) == 2
    assert words in _error_line(capsys)
    assert not (folder / "unused.html").exists()


def test_python_dash_m_on_the_demo(tmp_path):
    out = tmp_path / "demo.html"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "evalcore",
            "report",
            str(ROOT / "data" / "demo_anchor_only.csv.gz"),
            "--bootstrap",
            "100",
            "-o",
            str(out),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert out.stat().st_size > 1_000_000  # plotly.js is inside
    assert "compared with one anchor, sim-birch" in done.stdout
