"""The command line's ``heterogeneity --json`` and ``rank --json``'s ``split_half`` print what the
library returns; a table without categories is one line and exit 2."""

from __future__ import annotations

import json

import numpy as np
import pytest

from evalcore.cli import main
from evalcore.ranking.heterogeneity import store_heterogeneity
from evalcore.ranking.split_half import split_half_stability
from evalcore.simulate.arena import ARENA_LANGUAGES, arena_verdict_frame, simulate_arena
from evalcore.store.store import VerdictStore


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    effects = np.zeros((len(ARENA_LANGUAGES), 5))
    effects[1, 0], effects[1, 1] = -1.5, 1.5
    sim = simulate_arena(n_battles=6_000, n_models=5, n_voters=100, seed=7, category_effects=effects)
    frame = arena_verdict_frame(sim, with_category=True).drop(columns=["row"])
    path = tmp_path_factory.mktemp("het") / "planted.csv"
    frame.to_csv(path, index=False)
    return path, VerdictStore.from_frame(frame)


def test_heterogeneity_json_is_the_library_result(planted, capsys):
    path, store = planted
    assert main(["heterogeneity", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    expected = store_heterogeneity(store, judge="arena")
    assert out["p_value"] == pytest.approx(expected.p_value)
    assert out["p_value"] < 0.05 and "Chinese" in out["drivers"]
    pairs = {(r["category"], r["better_overall"], r["worse_overall"]) for r in out["reversals"]}
    assert pairs == {(r.category, r.better_overall, r.worse_overall) for r in expected.reversals}
    assert pairs


def test_rank_json_has_split_half(planted, capsys):
    path, store = planted
    assert main(["rank", str(path), "--bootstrap", "0", "--seed", "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)["split_half"]
    expected = split_half_stability(store.counts(judge="arena"), seed=3)
    assert (out["leader_stays"], out["top_three_stays"]) == (expected.leader_stays, expected.top_three_stays)
    assert out["halves"] == 50 and 0 <= out["leader_stays"] <= 50


def test_one_category_is_one_line_and_exit_2(tmp_path, capsys):
    path = tmp_path / "flat.csv"
    path.write_text("instruction_id,model_a,model_b,verdict\nq1,a,b,1\nq2,a,b,-1\nq3,b,a,1\n")
    assert main(["heterogeneity", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "two or more" in err and len(err.splitlines()) == 1
