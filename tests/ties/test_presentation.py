"""Tie structure in words and display tables (evalcore.present.ties).

What is shown is compared with the numbers the analysis computed, on double-ordered labelled
data, an arena table (one battle per prompt), an anchor-only table and tiny pointwise tables.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalcore.counts import VerdictCounts
from evalcore.present import ties as show
from evalcore.simulate.tables import SimulationSpec, simulate
from evalcore.store.store import VerdictStore
from evalcore.ties import labelled_counts, verdict_tie_structure


def _words(frame: pd.DataFrame) -> None:
    for column in frame.columns:
        assert "_" not in column, column
        for cell in frame[column]:
            assert isinstance(cell, str) and cell.strip().lower() not in {"none", "nan", ""}, (column, cell)


@pytest.fixture(scope="module")
def labelled():
    sim = simulate(SimulationSpec(n_models=5, n_instructions=40, human_fraction=0.5, seed=2))
    store = VerdictStore()
    store.load(sim.verdicts)
    counts = store.counts(judge="sim-judge")
    result = verdict_tie_structure(counts, sim.human_ranking)
    lab = labelled_counts(store, "sim-judge")
    human = verdict_tie_structure(lab.judge, lab.human)
    yield result, human
    store.close()


def test_level_tiles_are_the_results_numbers(labelled):
    result, _ = labelled
    tiles = {m.label: m for m in show.level_metrics(result)}
    assert tiles["Same-level chance"].value == f"{100 * result.stats.tie_probability:.1f}%"
    assert tiles["Effective levels, entropy"].value == f"{result.stats.d1:.2f}"
    assert tiles["Effective levels, collisions"].value == f"{result.stats.d2:.2f}"
    assert tiles["Distinct levels"].value == str(result.stats.distinct)
    assert tiles["Tie rate, single order"].value == f"{100 * result.tie_verdict_rate:.1f}%"
    t = result.intervals["top_tied"]
    assert tiles["Instructions with a tied top"].value == f"{100 * result.top_tied:.1f}%"
    if t.has_interval:
        assert f"{100 * t.low:.1f}%" in tiles["Instructions with a tied top"].note
    assert "sim-judge" in show.calls_sentence(result, "sim-judge")
    assert f"{result.n_calls:,} calls" in show.calls_sentence(result, "sim-judge")
    assert f"{result.candidate_stats.distinct:,} distinct values" in show.candidate_sentence(result)


def test_agreement_tiles_rows_and_table(labelled):
    result, human = labelled
    tiles = {m.label: m.value for m in show.agreement_metrics(human.agreement)}
    assert tiles["Kendall's tau-a"] == f"{human.agreement.tau_a:.3f}"
    assert tiles["Kendall's tau-b"] == f"{human.agreement.tau_b:.3f}"
    assert tiles["Top-1 agreement"] == f"{100 * human.agreement.top1:.1f}%"
    rows = show.agreement_rows(result, human)
    assert rows["reference"].tolist() == ["human labels", "reference score"]
    assert rows["calls"].tolist() == [human.n_calls, result.n_calls]
    assert "reference_kind" not in rows.columns
    table = show.agreement_display(rows)
    _words(table)
    assert table["Kendall's tau-a"].tolist() == [
        f"{human.agreement.tau_a:.3f}",
        f"{result.agreement.tau_a:.3f}",
    ]
    assert show.agreement_rows(result, None)["reference"].tolist() == ["reference score"]
    assert f"{human.n_calls:,} labelled calls" in show.human_heading(human)
    assert "same soft (logistic) rule" in show.human_sentence(human)
    assert f"{100 * human.top_tied:.1f}%" in show.human_sentence(human)


def result_counts() -> VerdictCounts:
    n = np.zeros((2, 5), dtype=np.int64)
    n[:, 3] = 1
    return VerdictCounts.from_cells(
        models=("x", "y"),
        instructions=("q1", "q2"),
        judge="j",
        inst=np.array([0, 1]),
        a=np.array([0, 1]),
        b=np.array([1, 0]),
        n=n,
    )


def test_no_ranked_instruction_gives_no_tiles():
    empty = show.agreement_metrics(
        verdict_tie_structure(result_counts(), pd.DataFrame({"model": ["x"], "score": [1.0]})).agreement
    )
    assert empty == []


def test_per_instruction_table_in_words(labelled):
    result, _ = labelled
    table = show.per_instruction_display(result.per_instruction)
    _words(table)
    assert len(table) == len(result.per_instruction)
    tied = (result.per_instruction["top_tied"] > 0).map({True: "yes", False: "no"})
    assert table["top tied"].tolist() == tied.tolist()
    assert show.per_instruction_note(len(result.per_instruction)) == ""  # every row shown


def test_a_long_per_instruction_table_shows_its_first_rows_and_says_so(labelled):
    """An arena table has an instruction per battle: the page shows the first rows (the same
    values as the whole table's), says how many it leaves out, and the download holds every one."""
    result, _ = labelled
    per = result.per_instruction
    whole = show.per_instruction_display(per)
    first = show.per_instruction_display(per, limit=2)
    pd.testing.assert_frame_equal(first, whole.head(2))
    note = show.per_instruction_note(len(per), limit=2)
    assert note.startswith(f"The first 2 of {len(per):,} instructions") and "download" in note
    assert show.PER_INSTRUCTION_ROWS == 1_000
    assert "1,000 of 1,800,000" in show.per_instruction_note(1_800_000)


def test_arena_table_top_ties_with_one_battle_per_prompt():
    # one battle per prompt: two models per instruction, so the top is tied exactly on the ties
    rng = np.random.default_rng(3)
    n_inst = 500
    x = rng.integers(0, 6, n_inst)
    y = (x + rng.integers(1, 6, n_inst)) % 6
    n = np.zeros((n_inst, 5), dtype=np.int64)
    level = rng.integers(0, 5, n_inst)
    n[np.arange(n_inst), level] = 1
    counts = VerdictCounts.from_cells(
        models=tuple(f"m{k}" for k in range(6)),
        instructions=tuple(f"b{k}" for k in range(n_inst)),
        judge="j",
        inst=np.arange(n_inst),
        a=x,
        b=y,
        n=n,
    )
    result = verdict_tie_structure(counts, score="sign")
    tiles = {m.label: m.value for m in show.level_metrics(result)}
    assert tiles["Instructions with a tied top"] == f"{100 * np.mean(level == 2):.1f}%"
    assert tiles["Tie rate, single order"] == tiles["Instructions with a tied top"]


def test_anchor_only_table():
    sim = simulate(
        SimulationSpec(n_models=5, n_instructions=30, design="anchor", anchor=None, both_orders=False, seed=1)
    )
    store = VerdictStore()
    store.load(sim.verdicts)
    try:
        result = verdict_tie_structure(store.counts(judge="sim-judge"))
    finally:
        store.close()
    tiles = {m.label: m.value for m in show.level_metrics(result)}
    assert tiles["Distinct levels"] == str(result.stats.distinct)
    assert show.agreement_rows(result, None).empty  # no reference: no rows


POINTWISE = pd.DataFrame(
    {
        "instruction_id": ["q1", "q1", "q1", "q2", "q2"] * 2,
        "candidate": ["x", "y", "z", "x", "y"] * 2,
        "judge": ["j1"] * 5 + ["j2"] * 5,
        "format": ["binary"] * 10,
        "score": [1, 1, 0, 0, 1, 1, 0, 0, 1, 1],
        "reference": [np.nan] * 10,
    }
)


def test_pointwise_analysis_tables_in_words():
    analysis = show.pointwise_analysis(POINTWISE)
    assert analysis.problem is None
    table = show.diagnostics_display(analysis.cells)
    _words(table)
    # j1: q1 tied (x, y score 1), q2 not; j2: q1 not (x alone on top), q2 tied
    assert table["Instructions with a tied top"].tolist() == ["50.0%", "50.0%"]
    assert table["distinct"].tolist() == ["2", "2"]
    assert table["Same-level chance"].tolist() == [
        f"{100 * v:.1f}%" for v in analysis.cells["tie_probability"]
    ]
    assert len(analysis.shares.table) == 0  # one format: no shares
    broken = show.pointwise_analysis(POINTWISE.assign(score=np.nan))
    assert broken.problem and broken.cells is None


def test_variance_shares_in_words():
    frame = pd.concat(
        [POINTWISE.assign(format=f, score=POINTWISE["score"] * k) for f, k in (("binary", 1), ("likert", 3))]
    )
    frame.loc[frame["format"] == "likert", "score"] += np.arange(10) % 3
    frame = pd.concat([frame, frame.assign(judge=frame["judge"] + "b")])
    analysis = show.pointwise_analysis(frame)
    table = show.shares_display(analysis.shares)
    _words(table)
    raw = analysis.shares.table
    assert table["format share"].tolist() == [f"{100 * v:.1f}%" for v in raw["format_share"]]
    assert "Same-level chance" in table["diagnostic"].tolist()
    sentence = show.shares_sentence(analysis.shares)
    assert "2 × 4 format × judge grid" in sentence


def test_pointwise_table_sentence():
    class Table:
        frame = POINTWISE
        file = "mine.csv"
        missing_scores = 2

    text = show.table_sentence(Table())
    assert text.startswith("mine.csv: 10 rows, 2 instructions, 1 format, 2 judges.")
    assert "2 rows have no score" in text


def test_explanations_cite_methods_not_internal_documents():
    for text in show.EXPLAIN.values():
        for internal in ("seed 0", "DEFINITIONS", "§", ".md", "App. D"):
            assert internal not in text, (internal, text[:60])
    assert '"The Format is the Filter" (2025)' in show.EXPLAIN["stats"]


def test_page_sentences_quote_names_and_escape_the_demo_file():
    assert show.no_calls_sentence("[j](x)").startswith("Judge [j](x) has no verdicts")
    # a problem sentence that already ends in a full stop gets one, not two
    assert show.nothing_to_analyse("no scores.") == "Nothing to analyse in this table: no scores."
    assert show.nothing_to_analyse("no scores") == "Nothing to analyse in this table: no scores."
    note = show.pointwise_demo_note("a`b*.csv")
    assert "`` a`b*.csv ``" in note and "**simulated**" in note
    assert "csv" in show.POINTWISE_TYPES and "CSV" in show.POINTWISE_UPLOAD
