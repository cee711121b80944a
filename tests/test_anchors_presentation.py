"""evalcore.anchors.presentation: the Anchors page's sentences and display tables."""

from __future__ import annotations

import pytest

from evalcore.anchors import (
    anchor_ranking,
    anchor_sweep,
    pilot_screening,
    plan_evaluation,
    win_rate_distribution,
)
from evalcore.anchors import presentation as av
from evalcore.simulate import SimulationSpec, simulate
from evalcore.store import VerdictStore


@pytest.fixture(scope="module")
def counts():
    sim = simulate(SimulationSpec(n_models=6, n_instructions=40, both_orders=False, seed=3))
    store = VerdictStore()
    store.load(sim.verdicts)
    return store.counts()


def _plain(frame) -> list[str]:
    return frame.astype(str).to_numpy().ravel().tolist()


def test_sweep_table_has_human_names_and_no_none(counts):
    sweep = anchor_sweep(counts)
    t = av.sweep_table(sweep)
    assert not any("_" in c for c in t.columns)
    assert t["Anchor"].tolist() == sweep.table["anchor"].tolist()
    # No human ranking: the tau with humans is missing and written "—", never "None"/"nan".
    assert set(t["Tau with humans"]) == {"—"}
    assert not {"None", "nan", "<NA>"} & set(_plain(t))
    assert t["Tau with all pairs"].iloc[0] == f"{sweep.table['tau_quadratic'].iloc[0]:.3f}"
    metrics = av.recommended_metrics(sweep, "b")
    assert metrics[0][1] == sweep.recommended
    assert metrics[1][0] == "tau-b with all pairs: best anchor"
    assert "tau-a" in av.sweep_caption(sweep, "a")


def test_ceiling_text_matches_the_formula(counts):
    # 5 other models: ⌊5/2⌋·⌈5/2⌉ / C(5, 2) = 2·3 / 10 = 60%.
    sweep = anchor_sweep(counts)
    assert "the 5 other models" in av.ceiling_text(sweep)
    assert "= 60.0% of the pairs" in av.ceiling_text(sweep)


def test_histogram_defaults_and_win_rate_sentences(counts):
    sweep = anchor_sweep(counts)
    first, last = sweep.table["anchor"].iloc[0], sweep.table["anchor"].iloc[-1]
    assert av.histogram_defaults(sweep, first) == [first, last]
    d = win_rate_distribution(counts, first)
    (sentence,) = av.win_rate_sentences([d])
    assert sentence.startswith(d.sentence) and f"On {d.no_signal:,} instructions" in sentence
    assert set(av.win_rate_rows([d])["anchor"]) == {first}


def test_explorer_view(counts):
    chosen = counts.models[0]
    r = anchor_ranking(counts, chosen)
    t = av.explorer_table(r)
    assert t["Model"].tolist() == r.table["model"].tolist()
    assert "Rank shift" in t.columns and not any("_" in c for c in t.columns)
    assert f"Against {chosen}: " in av.explorer_caption(r, chosen)
    assert av.explorer_metrics(r, "b")[2][1] == f"{r.design_calls_anchor:,} vs {r.design_calls_all_pairs:,}"


def test_pilot_view_and_planner_default(counts):
    sweep = anchor_sweep(counts)
    pilot = pilot_screening(counts, k=5, n_models=counts.n_models, repetitions=4, seed=0)
    chosen = sweep.table["anchor"].iloc[2]
    mean = float(pilot.table.loc[pilot.table["anchor"] == chosen, "pilot_mean"].iloc[0])
    assert av.pilot_informativeness(pilot, sweep, chosen) == pytest.approx(round(min(1, max(0.01, mean)), 3))
    full = float(sweep.table.loc[sweep.table["anchor"] == chosen, "informativeness"].iloc[0])
    assert av.pilot_informativeness(None, sweep, chosen) == pytest.approx(round(full, 3))
    assert av.pilot_informativeness(None, sweep, "not a model") == 0.5
    assert av.pilot_extremes_sentence(pilot).startswith("Extreme models among the three least informative")
    assert not any("_" in c for c in av.pilot_table(pilot).columns)


def test_plan_view():
    plan = plan_evaluation(10, anchor="x", informativeness=0.5)
    t = av.plan_table(plan)
    assert t["Instructions needed"].tolist()[:2] == ["617", "617"]  # Table 2's +5%
    assert set(t["Fits the budget"]) == {"—"}  # no budget given
    assert "617 discordant samples for a +5% edge" in av.plan_caption(plan)
