"""The judge's spec sheet in words and display tables (evalcore.present.judge).

Every check compares what is shown with the number the analysis computed (written independently
here), on the real shapes: all pairs in both orders with human labels, an arena table (one battle
per prompt), an anchor-only table with the reference always in slot B, and a tiny table whose
models never all meet.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalcore.counts import LEVELS, VerdictCounts
from evalcore.judge import both_orders_summary, judge_sheet, judge_sheets
from evalcore.present import judge as show
from evalcore.simulate.tables import JudgeSpec, SimulationSpec, simulate
from evalcore.store.store import VerdictStore, read_verdicts


def _no_missing_words(frame: pd.DataFrame) -> None:
    """No cell of a display table reads None, nan or <NA>; every heading is words, not a name."""
    for column in frame.columns:
        assert "_" not in column, column
        for cell in frame[column]:
            assert isinstance(cell, str), (column, cell)
            assert cell.strip().lower() not in {"none", "nan", "<na>", ""}, (column, cell)


@pytest.fixture(scope="module")
def labelled():
    judges = (
        JudgeSpec("steady", slot_bias=0.05, no_verdict_rate=0.02, family="conifer"),
        JudgeSpec("first", slot_bias=0.8, tie_width=0.2, family="broadleaf"),
    )
    families = {
        "m0": "conifer",
        "m1": "conifer",
        "m2": "broadleaf",
        "m3": "broadleaf",
        "m4": "conifer",
        "m5": "broadleaf",
        "steady": "conifer",
        "first": "broadleaf",
    }
    spec = SimulationSpec(
        n_models=6,
        n_instructions=40,
        judges=judges,
        human_fraction=0.4,
        model_names=tuple(f"m{k}" for k in range(6)),
        seed=3,
    )
    store = VerdictStore()
    store.load(simulate(spec).verdicts)
    sheets = judge_sheets(store, rounds=60, seed=1, families=families)
    yield store, sheets
    store.close()


def test_format_value_hand_worked():
    assert show.format_value(0.12345, "swap_consistency") == "12.3%"
    assert show.format_value(-3.04, "position_bias_points") == "-3.0"
    assert show.format_value(0.01234, "slot_bias_b") == "+0.012"
    assert show.format_value(0.4567, "kappa") == "0.457"
    assert show.format_value(12345, "calls") == "12,345"
    assert show.format_value(float("nan"), "agreement") == "—"
    assert show.format_value(np.float64("inf"), "kappa") == "—"
    assert show.format_value(None, "flip_rate") == "—"


def test_catalogue_table_renames_writes_and_dashes():
    from evalcore.present.display import catalogue_table

    frame = pd.DataFrame({"a_b": [0.5, np.nan], "name": ["x", None], "unused": [1, 2]})
    out = catalogue_table(
        frame, [("name", "model", None), ("a_b", "share", show.fmt_pct), ("absent", "never", None)]
    )
    assert list(out.columns) == ["model", "share"]
    assert out.to_dict("list") == {"model": ["x", "—"], "share": ["50%", "—"]}


def test_side_by_side_marks_the_steady_judge_and_shows_the_sheets_numbers(labelled):
    _, sheets = labelled
    table = show.side_by_side(sheets).set_index("Judge")
    _no_missing_words(table.reset_index())
    assert list(table.index) == ["first", "steady"]  # the store's order
    for name, sheet in sheets.items():
        pb = sheet.position.position_bias_points.value
        assert table.loc[name, "Position bias (percentage points)"].split()[0] == f"{pb:+.1f}"
        sc = sheet.position.swap_consistency.value
        assert table.loc[name, "Swap consistency"].split()[0] == f"{100 * sc:.1f}%"
    assert table.loc["steady", "Position bias (percentage points)"].endswith("★")
    assert not table.loc["first", "Position bias (percentage points)"].endswith("★")
    # tie rates are not graded
    assert not any(v.endswith("★") for v in table["Tie rate, single order"])
    definitions = show.column_definitions()
    assert "Position bias (percentage points)" in set(definitions["column"])
    assert definitions["definition"].str.len().min() > 10


def test_tiles_of_a_double_ordered_labelled_table(labelled):
    store, sheets = labelled
    sheet = sheets["first"]
    tiles = {m.label: m for m in show.position_metrics(sheet)}
    pb = sheet.position.position_bias_points
    assert tiles["Position bias"].value == f"{pb.value:+.1f} pp"
    assert f"{pb.low:+.1f} to {pb.high:+.1f}" in tiles["Position bias"].note
    assert tiles["Tie rate, both orders"].value == f"{100 * sheet.position.both_orders_tie_rate.value:.1f}%"
    order = {m.label: m for m in show.order_metrics(sheet)}
    assert order["Slot-A bias"].value == f"{sheet.order.b.value:+.3f}"
    assert order["Self-comparison ties"].value == "—"  # no model meets itself
    assert order["Model pairs in both orders"].value == "15"  # 6 models, all pairs
    ag = sheet.agreement
    tiles = {m.label: m for m in show.agreement_metrics(ag)}
    assert tiles["Agreement with humans"].value == f"{100 * ag.agreement.value:.1f}%"
    assert tiles["Cohen's kappa"].value == f"{ag.kappa.value:.3f}"
    comp = show.compression_display(ag)
    assert comp["shift (percentage points)"].tolist() == [
        f"{100 * v + 0.0:+.1f}" for v in ag.compression["shift"]
    ]
    assert f"{100 * ag.human_tie_share:.1f}%" in show.compression_sentence(ag)
    summary = both_orders_summary(store.counts(judge="first"))
    assert f"{summary.pairings:,} both-orders verdicts" in show.both_orders_sentence(summary)
    # the sheet's own counts give the same sentence as the summary of the counts
    assert show.both_orders_sentence(sheet) == show.both_orders_sentence(summary)
    cov = show.coverage_metric(sheets["steady"])
    assert cov.value == f"{100 * sheets['steady'].coverage.no_verdict_rate:.1f}%"
    assert "Σ" not in show.tie_structure_sentence(sheet)  # words, and the numbers of the sheet
    assert f"{sheet.ties['d2']:.2f}" in show.tie_structure_sentence(sheet)


def test_tables_have_words_for_headings_and_dashes_for_gaps(labelled):
    _, sheets = labelled
    sheet = sheets["first"]
    for frame in (
        show.order_swap_display(sheet.order.by_anchor),
        show.sheet_display(sheet),
        show.compression_display(sheet.agreement),
    ):
        _no_missing_words(frame)
    by_anchor = show.order_swap_display(sheet.order.by_anchor)
    assert by_anchor["Slot-A bias"].tolist() == [f"{v:+.3f}" for v in sheet.order.by_anchor["b"]]
    rows = show.self_preference_rows(sheets)
    assert set(rows["judge"]) <= {"steady", "first"} and len(rows)
    display = show.self_preference_display(rows)
    assert display["Self-preference (Elo points)"].tolist() == [f"{v:+.1f}" for v in rows["delta_elo"]]
    assert show.self_preference_problem(sheets, n_judges=2, has_families=True) is None
    assert "one judge" in show.self_preference_problem(sheets, n_judges=1, has_families=True)
    assert "families" in show.self_preference_problem(sheets, n_judges=2, has_families=False)


def test_anchor_always_in_slot_b_is_refused_in_words():
    # unbalanced: every battle is a model against the reference m0, which always sits in slot B
    rng = np.random.default_rng(4)
    n_inst, models = 600, tuple(f"m{k}" for k in range(5))
    a = rng.integers(1, 5, n_inst)
    n = np.zeros((n_inst, 5), dtype=np.int64)
    n[np.arange(n_inst), rng.integers(0, 5, n_inst)] = 1
    counts = VerdictCounts.from_cells(
        models=models,
        instructions=tuple(f"i{k}" for k in range(n_inst)),
        judge="j",
        inst=np.arange(n_inst),
        a=a,
        b=np.zeros(n_inst, dtype=np.int64),
        n=n,
    )
    sheet = judge_sheet(counts, "j", rounds=50)
    tiles = {m.label: m for m in show.position_metrics(sheet)}
    assert tiles["Position bias"].value == "—"
    assert "Not identified" in tiles["Position bias"].note
    assert {m.label: m.value for m in show.order_metrics(sheet)}["Slot-A bias"] == "—"
    assert show.coverage_metric(sheet).value == "—"  # counts hold no missing verdicts
    assert show.order_swap_display(sheet.order.by_anchor).empty
    _no_missing_words(show.sheet_display(sheet))
    warnings = show.judge_warnings({"j": sheet})
    assert warnings and all(w.startswith("j: ") for w in warnings)
    assert any("No model pair was judged in both slot orders" in w for w in warnings)


def test_arena_table_one_battle_per_prompt():
    # sparse: each prompt has one battle, in a random slot order
    rng = np.random.default_rng(8)
    n_inst, n_models = 4000, 12
    x = rng.integers(0, n_models, n_inst)
    y = (x + rng.integers(1, n_models, n_inst)) % n_models
    n = np.zeros((n_inst, 5), dtype=np.int64)
    n[np.arange(n_inst), rng.choice(len(LEVELS), n_inst)] = 1
    counts = VerdictCounts.from_cells(
        models=tuple(f"m{k}" for k in range(n_models)),
        instructions=tuple(f"b{k}" for k in range(n_inst)),
        judge="j",
        inst=np.arange(n_inst),
        a=x,
        b=y,
        n=n,
    )
    sheet = judge_sheet(counts, "j", rounds=40)
    tiles = {m.label: m.value for m in show.position_metrics(sheet)}
    assert tiles["Swap consistency"] == "—"  # no prompt is judged in both orders
    assert tiles["Position bias"].endswith(" pp")
    _no_missing_words(show.sheet_display(sheet))


def test_tiny_table_with_a_judge_that_has_no_sheet(tmp_path):
    rows = [
        {"instruction_id": "q1", "model_a": "x", "model_b": "y", "verdict": 1, "judge": "j1"},
        {"instruction_id": "q1", "model_a": "y", "model_b": "x", "verdict": 0, "judge": "j1"},
        {"instruction_id": "q2", "model_a": "z", "model_b": "w", "verdict": -2, "judge": "j1"},
        {"instruction_id": "q1", "model_a": "x", "model_b": "x", "verdict": 0, "judge": "j2"},
    ]
    path = tmp_path / "tiny.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    store = VerdictStore()
    store.load(read_verdicts(path))
    try:
        sheets = judge_sheets(store, rounds=0)
    finally:
        store.close()
    assert isinstance(sheets["j2"], str)
    warnings = show.judge_warnings(sheets)
    assert warnings[0].startswith("j2: ")
    table = show.side_by_side(sheets)
    assert table.set_index("Judge").loc["j2", "Swap consistency"] == "—"
    assert not any("★" in v for v in table.to_numpy().ravel())  # one judge measured: no best


def test_family_list():
    judges = ["j1", "j2"]
    got = show.family_list("model,family\nm1, acme\nj1,acme\n\n# a comment\n", judges)
    assert got.families == {"m1": "acme", "j1": "acme"} and got.note is None
    assert got.key == (("j1", "acme"), ("m1", "acme"))
    assert show.family_list("  \n", judges) == show.FamilyList(None)
    assert "self-preference cannot be measured" in show.family_list("m1,acme", judges).note
    uploaded = show.family_list("model,family\nm1,acme\n".encode("utf-8-sig"), judges)
    assert uploaded.families == {"m1": "acme"}  # the byte-order mark of a spreadsheet's CSV
    bad = show.family_list("m1,acme\nm2", judges)
    assert bad.families is None and "line 2" in bad.problem


def test_explanations_cite_methods_not_internal_documents():
    for text in show.EXPLAIN.values():
        for internal in ("seed 0", "DEFINITIONS", "§", ".md", "ARCHITECTURE"):
            assert internal not in text, (internal, text[:60])
    assert "Zheng et al. 2023" in show.EXPLAIN["position"]


def test_both_orders_agreement_is_the_libraries_with_capped_rounds(labelled):
    from evalcore.judge import human_agreement, labelled_rows

    store, _ = labelled
    got = show.both_orders_agreement(store, "first", rounds=5000, seed=3)
    want = human_agreement(labelled_rows(store, "first"), both_orders=True, rounds=1000, seed=3)
    assert got.both_orders and got.n == want.n
    assert (got.agreement.low, got.agreement.high) == (want.agreement.low, want.agreement.high)


def test_a_condition_of_the_table_is_said_once_for_every_judge():
    class Sheet:  # only what judge_warnings reads
        def __init__(self, *warnings):
            self.design_warnings = list(warnings)

    mixed = "Some pairs carry the same human label on both orders."
    sheets = {"a": Sheet(mixed), "b": Sheet(mixed, "b only."), "c": Sheet(mixed)}
    assert show.judge_warnings(sheets) == [mixed, "b: b only."]
    assert show.judge_warnings({"a": Sheet(mixed), "b": Sheet(mixed)}) == [mixed]
    assert show.judge_warnings({"a": Sheet(mixed), "b": Sheet(mixed), "c": Sheet()}) == [f"a, b: {mixed}"]
    assert show.judge_warnings({"a": Sheet(mixed), "b": Sheet()}) == [f"a: {mixed}"]


def test_sheet_rows_read_as_labels(labelled):
    # The judge command and the Judge page print these rows: each is a label (capitalised, in
    # words), as the page's other headings are, not a lower-case key ("calls", "raw slot gap").
    _, sheets = labelled
    figures = show.sheet_display(sheets["first"])["figure"]
    assert all(label[0].isupper() for label in figures), [f for f in figures if not f[0].isupper()]
    assert "Judge calls" in set(figures) and "Raw slot gap (percentage points)" in set(figures)
    assert not any(" SD" in label for label in figures)  # no abbreviation for standard deviation
    tiles = " ".join(f"{m.value} {m.note}" for m in show.length_metrics(sheets["first"]))
    assert "SD" not in tiles
