"""Per-model evidence (issue 25, item 4): a model judged on a handful of instructions gets an
interval that says so and is wide enough to cover, in every face (library, ``rank --json`` and
text, the report, the Leaderboard page)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from evalcore.cli import main
from evalcore.present.ranking import display_table
from evalcore.ranking import leaderboard
from evalcore.ranking.bradley_terry import pooled_wins
from tests.bt_sim import simulate_bt, simulate_rare

THETA = np.array([1.0, 0.6, 0.2, -0.1, -0.5, -1.2, 0.3])  # m06, the last, is the rare one
RARE = "m06"


def _frame(counts) -> pd.DataFrame:
    """The counts as a verdict table (one row per call)."""
    rows = []
    for i, a, b, n in zip(counts.inst, counts.a, counts.b, counts.n, strict=True):
        for level, calls in zip((-2, -1, 0, 1, 2), n, strict=True):
            rows += [(counts.instructions[i], counts.models[a], counts.models[b], level)] * int(calls)
    return pd.DataFrame(rows, columns=["instruction_id", "model_a", "model_b", "verdict"])


@pytest.fixture(scope="module")
def rare_counts():
    return simulate_rare(THETA, 60, 2, effect_sd=0.8, tie_rate=0.2, seed=3)


def test_instructions_are_counted_per_model_and_the_rare_one_is_flagged(rare_counts):
    t = leaderboard(rare_counts, rounds=200, seed=0).table.set_index("model")
    assert t.loc[RARE, "instructions"] == 2
    assert (t.drop(index=RARE)["instructions"] == 60).all()
    assert bool(t.loc[RARE, "few_instructions"]) and not t.drop(index=RARE)["few_instructions"].any()


@pytest.mark.parametrize("method", ["bootstrap", "sandwich"])
def test_the_rare_interval_is_at_least_the_model_based_width(rare_counts, method):
    board = leaderboard(rare_counts, rounds=200, seed=0, interval=method)
    t = board.table.set_index("model")
    # about ±155 Elo points of model-based width at 12 calls; resampling 2 instructions gave ±20
    half = (t.loc[RARE, "ci_high"] - t.loc[RARE, "ci_low"]) / 2
    assert half > 100
    note = next(n for n in board.notes if "Few instructions behind some models" in n)
    assert f"{RARE} (2 of 60)" in note and "rough" in note


def test_a_table_that_is_well_covered_gets_no_caveat():
    counts = simulate_bt(THETA[:6], 40, shape="all_pairs", effect_sd=0.5, tie_rate=0.2, seed=1)
    board = leaderboard(counts, rounds=100, seed=0)
    assert not board.table["few_instructions"].any()
    assert not any("Few instructions" in n for n in board.notes)
    assert "rough" not in " ".join(display_table(board)["95% interval"])


@pytest.mark.slow
@pytest.mark.parametrize("method", ["bootstrap", "sandwich"])
def test_rare_model_coverage_over_200_tables(method):
    """Known truth: the fit on 20,000 instructions of the same process. A model seen on 2 of 60
    instructions: before, its bootstrap interval covered 47% of the time and the sandwich 59%
    (±57 and ±77 Elo points); widened, 90.5% and 92.5%. 200 tables: the binomial standard error
    at 0.9 is 2.1 points, so 0.85 is more than two below and still far above the old 0.59."""
    big = simulate_bt(THETA, 20_000, shape="all_pairs", effect_sd=0.8, tie_rate=0.2, seed=12345)
    truth = leaderboard(big, rounds=0).table.set_index("model").loc[RARE, "rating"]
    hits = []
    for rep in range(200):
        c = simulate_rare(THETA, 60, 2, effect_sd=0.8, tie_rate=0.2, seed=rep)
        t = leaderboard(c, rounds=200, seed=rep, interval=method).table.set_index("model")
        hits.append(t.loc[RARE, "ci_low"] <= truth <= t.loc[RARE, "ci_high"])
    assert np.mean(hits) >= 0.85


def test_the_model_based_width_is_the_information_of_the_pooled_fit(rare_counts):
    """Hand check: ±1.96 / sqrt(information) from the Laplacian's pseudo-inverse."""
    from evalcore.ranking.bradley_terry import ELO_CENTRE, ELO_SCALE
    from evalcore.ranking.intervals import fisher_information

    board = leaderboard(rare_counts, rounds=50, seed=0, interval="sandwich")
    theta = (board.ratings - ELO_CENTRE) / ELO_SCALE
    h = fisher_information(pooled_wins(rare_counts), theta)
    k = rare_counts.models.index(RARE)
    half = 1.959963984540054 * ELO_SCALE * np.sqrt(np.linalg.pinv(h)[k, k])
    t = board.table.set_index("model")
    assert t.loc[RARE, "ci_high"] - t.loc[RARE, "ci_low"] >= 2 * half - 1e-6


def test_rank_json_and_text_say_so(tmp_path, rare_counts, capsys):
    path = tmp_path / "rare.csv"
    _frame(rare_counts).to_csv(path, index=False)
    assert main(["rank", str(path), "--bootstrap", "100", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    rare = next(m for m in out["models"] if m["model"] == RARE)
    assert rare["instructions"] == 2 and rare["few_instructions"] is True
    assert any("Few instructions behind some models" in n for n in out["notes"])
    assert main(["rank", str(path), "--bootstrap", "100"]) == 0
    captured = capsys.readouterr()
    line = next(line for line in captured.out.splitlines() if RARE in line)
    assert "rough: few instructions" in line  # the Leaderboard page's words
    assert f"{RARE} (2 of 60)" in captured.err


def test_the_report_marks_the_model(rare_counts):
    from evalcore.findings import run_analyses
    from evalcore.report import build_report
    from evalcore.store.store import VerdictStore

    store = VerdictStore.from_frame(_frame(rare_counts))
    analyses = run_analyses(store, judge=store.judges()[0], rounds=100)
    document = build_report(analyses)
    store.close()
    assert "rough: few instructions" in document  # the Leaderboard page's words
    assert "Few instructions behind some models" in document


@pytest.mark.parametrize("shape", ["arena", "all_pairs", "anchor", "mixed", "units"])
def test_instructions_per_model_counts_distinct_instructions(shape):
    """Each model's instructions, counted by hand as sets, on every shape: one cell per
    instruction (counted directly), several (counted as distinct keys), both in one table, and
    cells split by a unit column (one instruction and pair in two cells)."""
    from evalcore.counts import VerdictCounts
    from evalcore.ranking.design import instructions_per_model

    if shape == "mixed":  # an arena's single battles and a few fully judged instructions
        arena = simulate_bt([0.2, 0.0, -0.1, -0.3], 50, shape="arena", seed=3)
        full = simulate_bt([0.2, 0.0, -0.1, -0.3], 5, shape="all_pairs", seed=4)
        counts = VerdictCounts.from_cells(
            models=arena.models,
            instructions=arena.instructions + tuple(f"r{k}" for k in range(5)),
            judge=None,
            inst=np.r_[arena.inst, full.inst + 50],
            a=np.r_[arena.a, full.a],
            b=np.r_[arena.b, full.b],
            n=np.r_[arena.n, full.n],
        )
    elif shape == "units":  # the same instruction and pair in two sessions: two cells
        counts = VerdictCounts.from_cells(
            models=("x", "y", "z"),
            instructions=("q1", "q2"),
            judge=None,
            inst=[0, 0, 1, 1],
            a=[0, 0, 0, 1],
            b=[1, 1, 2, 2],
            n=[[0, 0, 0, 1, 0]] * 4,
            unit=[0, 1, 0, 0],
            units=("s1", "s2"),
            unit_column="session",
        )
        assert counts.n_cells == 4
    else:
        counts = simulate_bt([0.2, 0.0, -0.1, -0.3, -0.5], 80, shape=shape, seed=5)
    seen: list[set[int]] = [set() for _ in counts.models]
    for i, a, b in zip(counts.inst.tolist(), counts.a.tolist(), counts.b.tolist(), strict=True):
        seen[a].add(i)
        seen[b].add(i)
    assert instructions_per_model(counts).tolist() == [len(s) for s in seen]
