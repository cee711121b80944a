"""``python -m evalcore power | power-detect | power-sim`` through evalcore.cli.main."""

from __future__ import annotations

import json
import math

import pytest

from evalcore.cli import main
from evalcore.simulate.tables import SimulationSpec, simulate


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    sim = simulate(SimulationSpec(n_models=6, n_instructions=80, strength_sd=1.5, seed=12))
    path = tmp_path_factory.mktemp("power") / "verdicts.csv"
    sim.verdicts.drop(columns=["row"]).to_csv(path, index=False)
    return path


def _json(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_power_json_reproduces_table2(capsys):
    out = _json(capsys, ["power", "--edge", "0.05", "--informativeness", "0.45", "--json"])
    # the paper's figures; with two models (the default without a file) one judge call each
    assert out["plans"] == [
        {
            "edge": 0.05,
            "win_probability": 0.55,
            "discordant": 617,
            "total": 1372,
            "judge_calls": 1372,
            "cost": None,
        }
    ]
    out = _json(capsys, ["power", "--edge", "5%", "10%", "--informativeness", "0.54", "--json"])
    assert [p["discordant"] for p in out["plans"]] == [617, 153]
    assert [p["total"] for p in out["plans"]] == [1143, 284]


def test_power_options(capsys):
    out = _json(capsys, ["power", "--edge", "0.05", "0.1", "--exact", "--json"])
    assert [p["discordant"] for p in out["plans"]] == [620, 158]
    assert out["plans"][0]["total"] is None and out["informativeness"] is None
    out = _json(capsys, ["power", "--edge", "0.05", "--two-sided", "--json"])
    assert out["plans"][0]["discordant"] == 783
    assert main(["power", "--edge", "0.10", "--informativeness", "0.45"]) == 0
    text = capsys.readouterr().out
    assert "340" in text and "341" in text  # the value and the note explaining the paper's 341


def test_power_informativeness_from_a_file(capsys, table):
    from evalcore.anchors import anchor_informativeness
    from evalcore.store.store import VerdictStore, read_verdicts

    store = VerdictStore()
    store.load(read_verdicts(table))
    c = store.counts()
    anchor = c.models[2]
    info = anchor_informativeness(c, anchor)
    out = _json(capsys, ["power", "--edge", "0.05", "--file", str(table), "--anchor", anchor, "--json"])
    assert out["informativeness"] == pytest.approx(info)
    assert out["plans"][0]["total"] == math.ceil(617 / info)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["power", "--edge", "0.05", "--informativeness", "0"], "informativeness"),
        (["power", "--edge", "0.05", "--alpha", "1.5"], "alpha"),
        (["power", "--edge", "0.05", "--anchor", "x"], "--file"),
    ],
)
def test_power_bad_input_exits_2(capsys, argv, message):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_power_bad_edge_is_a_usage_error(capsys):
    assert main(["power", "--edge", "big"]) == 2
    assert "not an edge" in capsys.readouterr().err


def test_power_detect(capsys, table):
    out = _json(capsys, ["power-detect", str(table), "--json"])
    assert out["n_instructions"] == 80 and out["n_pairs"] == 5
    assert out["n_resolved"] == sum(p["resolved"] for p in out["pairs"])
    assert main(["power-detect", str(table), "--anchor", "sim-cedar"]) == 0
    assert "against the anchor sim-cedar" in capsys.readouterr().out
    assert main(["power-detect", str(table), "--anchor", "nobody"]) == 2


def test_power_sim(capsys, table):
    argv = [
        "power-sim",
        str(table),
        "--anchor",
        "sim-cedar",
        "--pair",
        "sim-alder",
        "sim-elm",
        "--max-n",
        "200",
        "--steps",
        "4",
        "--simulations",
        "300",
        "--json",
    ]
    out = _json(capsys, argv)
    assert out["n_distributions"] == 1 and out["zero_method"] == "pratt"
    assert {r["n"] for r in out["curve"]} == {50, 100, 150, 200}
    assert out == _json(capsys, argv)  # seeded
    assert main(["power-sim", str(table), "--edge", "0.49", "--max-n", "100"]) == 2
    assert "No model pair has an edge from 49% to under 50%" in capsys.readouterr().err


def test_power_sim_on_an_arena_table_says_why_in_json(tmp_path, capsys):
    # Every battle its own prompt: no two models meet a common anchor on one instruction.
    sim = simulate(SimulationSpec(n_models=6, n_instructions=40, both_orders=False, seed=3))
    frame = sim.verdicts.drop(columns=["row"])
    frame["instruction_id"] = [f"p{i}" for i in range(len(frame))]
    path = tmp_path / "arena.csv"
    frame.to_csv(path, index=False)
    out = _json(capsys, ["power-sim", str(path), "--json"])
    assert "arena" in out["unavailable"]
    assert main(["power-sim", str(path)]) == 0
    assert "not available:" in capsys.readouterr().out


def test_power_detect_speaks_in_the_command_lines_words(capsys, table):
    # The tiles are the Power page's, but the command line has no Overview to point at, and its
    # level is written in words, not "α / 4".
    assert main(["power-detect", str(table)]) == 0
    out = capsys.readouterr().out
    assert "Overview" not in out and " page" not in out
    assert "α" not in out and "level divided by the" in out
