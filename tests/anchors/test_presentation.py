"""evalcore.present.anchors: the Anchors page's sentences and display tables."""

from __future__ import annotations

import pandas as pd
import pytest

from evalcore.anchors import (
    anchor_ranking,
    anchor_sweep,
    pilot_screening,
    plan_evaluation,
    win_rate_distribution,
)
from evalcore.present import anchors as av
from evalcore.simulate.tables import SimulationSpec, simulate
from evalcore.store.store import VerdictStore


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
    assert set(t["Agreement with the human ranking"]) == {"—"}
    assert not {"None", "nan", "<NA>"} & set(_plain(t))
    assert t["Agreement with the all-pairs ranking"].iloc[0] == f"{sweep.table['tau_all_pairs'].iloc[0]:.3f}"
    metrics = av.recommended_metrics(sweep, "b")
    assert metrics[0][1] == sweep.recommended
    assert len(metrics) == 1 and "(worst anchor)" in metrics[0][2]
    assert "tau-a" in av.sweep_caption(sweep, "a")


def test_ceiling_text_matches_the_formula(counts):
    # 5 other models: ⌊5/2⌋·⌈5/2⌉ / C(5, 2) = 2·3 / 10 = 60%.
    sweep = anchor_sweep(counts)
    assert "the 5 other models" in av.ceiling_text(sweep)
    assert "halves, 60.0% of all pairs, can differ" in av.ceiling_text(sweep)


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
    assert av.pilot_informativeness(pilot, sweep, chosen) == pytest.approx(min(1, max(0.01, mean)))
    full = float(sweep.table.loc[sweep.table["anchor"] == chosen, "informativeness"].iloc[0])
    assert av.pilot_informativeness(None, sweep, chosen) == pytest.approx(full)
    assert av.pilot_informativeness(None, sweep, "not a model") == 0.5
    assert av.pilot_extremes_sentence(pilot).startswith("Extreme models among the three least informative")
    assert not any("_" in c for c in av.pilot_table(pilot).columns)


def test_plan_view():
    plan = plan_evaluation(10, anchor="x", informativeness=0.5)
    t = av.plan_table(plan)
    assert t["Instructions needed (sign test, calculated)"].tolist()[:2] == ["617", "617"]  # Table 2's +5%
    assert set(t["Fits the budget"]) == {"—"}  # no budget given
    assert "617 discordant samples for a +5% edge" in av.plan_caption(plan)


@pytest.fixture(scope="module")
def anchor_only():
    """AlpacaEval-shaped: every model against one reference, always in slot B; a human ranking."""
    sim = simulate(
        SimulationSpec(
            n_models=7, n_instructions=50, design="anchor", anchor_slot="b", both_orders=False, seed=4
        )
    )
    store = VerdictStore()
    store.load(sim.verdicts)
    return store.counts(), sim.human_ranking, str(sim.verdicts["model_b"].iloc[0])


def test_anchor_only_explorer_shows_no_all_pairs_columns(anchor_only):
    counts, human, anchor = anchor_only
    r = anchor_ranking(counts, anchor)
    assert not r.has_all_pairs_ranking
    t = av.explorer_table(r)
    assert t.columns.tolist() == ["Model", "Win rate against the anchor", "Battles", "Rank by the anchor"]
    assert not {"None", "nan", "<NA>", "—"} & set(_plain(t))
    labels = [m[0] for m in av.explorer_metrics(r, "b")]
    assert labels == ["Informativeness", "Judge calls per instruction"]  # no tau with all pairs


def test_anchor_ranking_against_humans_agrees_with_the_sweep(anchor_only):
    counts, human, anchor = anchor_only
    r = anchor_ranking(counts, anchor, human_ranking=human)
    sweep = anchor_sweep(counts, human_ranking=human)
    (tau_sweep,) = sweep.table.loc[sweep.table["anchor"] == anchor, "tau_human"]
    assert r.tau_human == pytest.approx(tau_sweep)  # two code paths, one number
    assert r.human_matched == counts.n_models - 1
    # The human rank is the rank of the human score among the models shown (1 = best).
    scores = human.set_index("model").loc[r.table["model"], "score"]
    assert r.table["human_rank"].tolist() == scores.rank(ascending=False, method="min").astype(int).tolist()
    t = av.explorer_table(r)
    assert "Rank by humans" in t.columns
    metric = av.explorer_metrics(r, "b")[-1]
    assert metric[0] == "Agreement with the human ranking" and metric[1] == f"{r.tau_human:.3f}"


def test_anchor_ranking_human_tau_by_hand():
    # Anchor x; m1 beats it, m2 ties, m3 loses: anchor order m1 > m2 > m3. Humans: m2 > m1 > m3.
    from evalcore.counts import VerdictCounts

    c = VerdictCounts.from_cells(
        models=("x", "m1", "m2", "m3"),
        instructions=("q",),
        judge=None,
        inst=[0, 0, 0],
        a=[1, 2, 3],
        b=[0, 0, 0],
        n=[[0, 0, 0, 1, 0], [0, 0, 1, 0, 0], [0, 1, 0, 0, 0]],
    )
    human = pd.DataFrame({"model": ["m2", "m1", "m3", "x"], "score": [3.0, 2.0, 1.0, 9.0]})
    r = anchor_ranking(c, "x", human_ranking=human)
    # Pairs (m1, m2) discordant, (m1, m3) and (m2, m3) concordant: (2 − 1) / 3.
    assert r.tau_human == pytest.approx(1 / 3)
    assert dict(zip(r.table["model"], r.table["human_rank"], strict=True)) == {"m1": 2, "m2": 1, "m3": 3}


def test_paper_ranking_caption():
    text = av.paper_ranking_caption(5, 22)
    assert "names 5 of the 22 models" in text and "Chatbot Arena Elo" in text


def test_anchor_only_words_do_not_mention_what_is_not_there(anchor_only):
    counts, _, anchor = anchor_only
    r = anchor_ranking(counts, anchor)
    assert "Rank shift" not in av.explorer_caption(r, anchor)
    sweep = anchor_sweep(counts)
    assert "dotted line" not in av.ceiling_text(sweep, drawn=False)
    assert "dotted line" in av.ceiling_text(sweep)
