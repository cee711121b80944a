"""evalcore.present.power: the Power page's sentences and display tables, on hand-built data."""

from __future__ import annotations

import pandas as pd
import pytest

from evalcore.counts import VerdictCounts
from evalcore.power import detectable_edges, difference_distributions, sample_size_plan
from evalcore.present import power as pv


def _counts(rows):
    models = sorted({m for r in rows for m in r[1:3]})
    insts = sorted({r[0] for r in rows})
    n = [[0] * 5 for _ in rows]
    for k, r in enumerate(rows):
        n[k][r[3] + 2] = 1
    return VerdictCounts.from_cells(
        models=models,
        instructions=insts,
        judge="j",
        inst=[insts.index(r[0]) for r in rows],
        a=[models.index(r[1]) for r in rows],
        b=[models.index(r[2]) for r in rows],
        n=n,
    )


def test_edge_labels_and_grid():
    assert [pv.edge_label(e) for e in (0.05, 0.075, 0.1)] == ["+5%", "+7.5%", "+10%"]
    grid = pv.simulation_grid(2000)
    assert grid[0] == 100 and grid[-1] == 2000 and len(grid) == 20
    assert (pd.Series(grid).diff().dropna() == 100).all()


def test_sample_size_table_has_human_columns_and_the_published_numbers():
    t = pv.sample_size_table(sample_size_plan([0.05, 0.10], informativeness=0.45))
    assert list(t.columns) == [
        "Edge",
        "Share of differing instructions won",
        "Differing instructions needed",
        "Instructions needed (sign test, calculated)",
    ]
    assert t["Differing instructions needed"].tolist() == [617, 153]  # Don-Yehiya et al. 2026, Table 2
    assert t["Instructions needed (sign test, calculated)"].tolist() == [1372, 340]
    assert t["Share of differing instructions won"].tolist() == ["55.0%", "60.0%"]
    # Without an informativeness there is no total column (not a column of empty cells).
    assert "sign test, calculated" not in " ".join(pv.sample_size_table(sample_size_plan([0.05])).columns)
    # the page's one answer leads with the formula and names the simulations as a comparison
    answer = pv.answer_sentence(sample_size_plan([0.05, 0.10], informativeness=0.45), "m")
    assert "**About 1,372 instructions**" in answer and "for comparison only" in answer


def test_informativeness_sentence_names_the_anchor_or_says_why_not():
    assert pv.usable_informativeness(float("nan")) is None and pv.usable_informativeness(0.0) is None
    assert pv.usable_informativeness(0.4) == 0.4
    assert "Informativeness 40.0% for anchor [x](y)" in pv.informativeness_sentence("[x](y)", 0.4)
    assert pv.informativeness_sentence("m", None).startswith("No instruction has two models")


def _edges_table():
    # A beats B 60:40, B beats C on all 100: two adjacent pairs, head-to-head.
    rows = [(f"q{i}", "A", "B", 1 if i < 60 else -1) for i in range(100)]
    rows += [(f"q{i}", "B", "C", 2) for i in range(100)]
    return detectable_edges(_counts(rows))


def test_detectable_view_words_the_holm_test_and_the_top_pair():
    result = _edges_table()
    metrics = dict((label, value) for label, value, _ in pv.detectable_metrics(result))
    assert metrics["Adjacent pairs separated"] == "1 of 2"
    assert metrics["Instructions"] == "100"
    kind, sentence = pv.top_pair_sentence(result)
    # 60 of 100: two-sided p = 0.0569 (scipy binomtest), Holm keeps it (the larger of two).
    assert kind == "warning"
    assert "(A and B)" in sentence and "+10.0%" in sentence and "Holm-adjusted p = 0.057" in sentence
    assert "two-sided sign test, Holm-adjusted across the 2 adjacent pairs" in pv.detectable_caption(result)
    table = pv.detectable_table(result)
    assert not any("_" in c for c in table.columns)
    assert table["Resolved"].tolist() == ["no", "yes"]
    assert table["Observed edge"].tolist() == ["+10.0%", "+50.0%"]
    assert table["p (two-sided sign test)"].iloc[0] == "0.057"
    assert table["Instructions needed (sign test, calculated)"].iloc[1] != "None"


def test_distributions_view_and_empty_selection_sentences():
    rows = [(f"q{i}", m, "X", v) for i in range(20) for m, v in (("A", 1), ("B", -1 if i % 4 else 1))]
    dists = difference_distributions(_counts(rows))
    table = pv.distributions_table(dists)
    assert {"Anchor", "Model A (with the edge)", "Edge", "Pair's differing share"} <= set(table.columns)
    assert "None" not in table.astype(str).to_numpy().ravel().tolist()
    chosen, nominal, label = pv.edge_window(dists, 0.05)
    assert label == "edge from 5% to under 6%" and nominal == pytest.approx(0.05)
    sentence = pv.empty_selection_sentence(dists, chosen, label, window=True)
    assert sentence is not None and "Move the window" in sentence
    pair, _, label = pv.one_pair(dists, "A", "B", "X")
    assert len(pair) == 1 and pv.empty_selection_sentence(dists, pair, label, window=False) is None
    assert pv.difference_title(pair, "X").startswith("Verdict differences: A − B")


def test_settings_start_inside_their_ranges_and_name_the_paper_defaults():
    for name, spec in pv.INPUTS.items():
        low, high = spec["min_value"], spec.get("max_value", float("inf"))
        assert low <= spec["value"] <= high, name
    # the paper's design: one-sided α = 0.05, power 0.8, o3's informativeness 0.45
    assert (pv.INPUTS["alpha"]["value"], pv.INPUTS["power"]["value"]) == (0.05, 0.80)
    assert pv.INPUTS["informativeness"]["value"] == 0.45
    assert 2000 in pv.SIMULATION_CHOICES and len(set(pv.COMPARE_MODES)) == 2


def test_top_pair_sentence_never_prints_a_p_value_of_zero():
    # B beats C on all 100 instructions: p = 2·0.5^100, far below 0.0001; it read "p = 0.000"
    rows = [(f"q{i}", "B", "C", 2) for i in range(100)]
    rows += [(f"q{i}", "A", "B", 2) for i in range(100)]
    kind, sentence = pv.top_pair_sentence(detectable_edges(_counts(rows)))
    assert kind == "success"
    assert "Holm-adjusted p < 0.0001" in sentence and "p = 0.000" not in sentence
