"""``python -m evalcore anchors``: agrees with the library; exit 2 with one line on bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest

from evalcore.anchors import anchor_sweep
from evalcore.cli import main
from evalcore.ingest.files import read_human_ranking
from tests.conftest import ROOT

ALL_PAIRS = ROOT / "data" / "demo_all_pairs.parquet"
HUMAN = ROOT / "data" / "demo_human_ranking.csv"
ANCHOR_ONLY = ROOT / "data" / "demo_anchor_only.csv.gz"


def test_json_agrees_with_the_library(capsys, demo_store):
    assert (
        main(
            [
                "anchors",
                str(ALL_PAIRS),
                "--judge",
                "sim-judge-steady",
                "--human-ranking",
                str(HUMAN),
                "--json",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    sweep = anchor_sweep(demo_store.counts(judge="sim-judge-steady"), human_ranking=read_human_ranking(HUMAN))
    rows = out["anchors"]
    assert [r["anchor"] for r in rows] == sweep.table["anchor"].tolist()
    assert {"anchor", "position", "tau_all_pairs", "tau_human", "informativeness"} <= set(rows[0])
    np.testing.assert_allclose([r["tau_human"] for r in rows], sweep.table["tau_human"])
    np.testing.assert_allclose([r["informativeness"] for r in rows], sweep.table["informativeness"])
    assert [r["position"] for r in rows] == list(range(1, 21))
    assert out["recommended"] == sweep.recommended and out["tau"] == "tau-b"
    assert out["fit"]["r2"] == pytest.approx(sweep.fit_r2)


def test_table_output_and_tau_a(capsys):
    assert main(["anchors", str(ALL_PAIRS), "--tau", "a"]) == 0
    out = capsys.readouterr().out
    assert "tau-a" in out and "Recommended anchor" in out and "sim-alder" in out


def test_anchor_only_file(capsys):
    assert main(["anchors", str(ANCHOR_ONLY), "--json"]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert out["design"] == "anchor-only"
    assert [r["anchor"] for r in out["anchors"]] == ["sim-birch"]
    assert out["anchors"][0]["tau_all_pairs"] is None
    assert 0 < out["anchors"][0]["informativeness"] < 1


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--judge", "nobody"], "judge 'nobody' is not in the file"),
        (["--category", "poetry"], "category 'poetry' is not in the file"),
        (["--human-ranking", "missing.csv"], "no such file"),
    ],
)
def test_bad_input_exits_2_with_one_line(argv, message, capsys):
    # the small anchor-only demo: the refusal is the same for any file, and it loads in a blink
    assert main(["anchors", str(ANCHOR_ONLY), *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err


def test_bad_human_ranking_file(tmp_path, capsys):
    bad = tmp_path / "human.csv"
    bad.write_text("name,points\nx,1\n")
    assert main(["anchors", str(ALL_PAIRS), "--human-ranking", str(bad)]) == 2
    assert "model" in capsys.readouterr().err


def test_anchor_only_json_says_what_needs_all_pairs(tmp_path, capsys):
    from evalcore.simulate.tables import SimulationSpec, simulate

    sim = simulate(SimulationSpec(n_models=6, n_instructions=30, design="anchor", seed=2))
    path = tmp_path / "anchor_only.csv"
    sim.verdicts.drop(columns=["row"]).to_csv(path, index=False)
    assert main(["anchors", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["design"] == "anchor-only"
    assert "needs an all-pairs table" in out["needs_all_pairs"]
    assert len(out["anchors"]) == 1 and out["anchors"][0]["informativeness"] > 0
