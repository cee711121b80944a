"""The store's per-analysis queries (labelled cells, orders share, calibration patterns, the judge
sheet's coverage and lengths) on hand-worked tables: every expected number below is counted by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalcore.store import queries as sq
from evalcore.store.queries import PATTERN_COLUMNS
from evalcore.store.store import VerdictStore

# A judge whose name is SQL text: it must reach DuckDB as a bound value.
J = "j1' OR '1'='1"

ROWS = [
    # instruction, model_a, model_b, verdict, human, judge, category
    ("i1", "A", "B", 2, 1, J, "x"),  # A first: A wins; label A wins
    ("i1", "B", "A", 1, 1, J, "x"),  # B first: B wins (A loses); label B wins
    ("i2", "A", "C", -1, None, J, "y"),  # A first: A loses; no label
    ("i2", "C", "A", 1, -2, J, "y"),  # C first: C wins (A loses); label A wins (much)
    ("i3", "A", "B", 0, 0, J, "x"),  # one order only: a tie, labelled a tie
    ("i3", "A", "B", 1, None, "j2", "x"),  # another judge
    ("i4", "B", "C", 1, 1, J, "y"),  # A not involved
    ("i4", "B", "C", 1, 1, J, "y"),  # ... twice (one cell of two calls)
    ("i5", "A", "A", 1, 1, J, "x"),  # self-comparison: never counted
    ("i5", "A", "C", None, 1, J, "x"),  # no verdict: never counted
]


@pytest.fixture(scope="module")
def store():
    frame = pd.DataFrame(
        ROWS, columns=["instruction_id", "model_a", "model_b", "verdict", "human", "judge", "category"]
    )
    frame = frame.astype({"verdict": "Int8", "human": "Int8", "category": "string"})
    s = VerdictStore.from_frame(frame)
    yield s
    s.close()


def test_from_frame_fills_the_optional_columns():
    s = VerdictStore.from_frame(
        pd.DataFrame({"instruction_id": ["i"], "model_a": ["a"], "model_b": ["b"], "verdict": [1]})
    )
    row = s.frame().iloc[0]
    assert row["row"] == 1 and row["judge"] == "judge" and pd.isna(row["human"]) and pd.isna(row["category"])
    assert s.counts().calls == 1


def test_labelled_cells_by_hand(store):
    cells = store.labelled_cells(judge=J)
    assert cells.models == ("A", "B", "C") and cells.instructions == ("i1", "i2", "i3", "i4")
    got = sorted(
        zip(
            *(x.tolist() for x in (cells.inst, cells.a, cells.b, cells.verdict, cells.human, cells.n)),
            strict=True,
        )
    )
    # (instruction, slot A, slot B, verdict, label, calls) as indices into the axes above
    assert got == [
        (0, 0, 1, 2, 1, 1),
        (0, 1, 0, 1, 1, 1),
        (1, 2, 0, 1, -2, 1),
        (2, 0, 1, 0, 0, 1),
        (3, 1, 2, 1, 1, 2),
    ]
    only_y = store.labelled_cells(judge=J, category="y")
    assert only_y.models == ("A", "B", "C") and only_y.instructions == ("i2", "i4")
    assert sorted(only_y.n.tolist()) == [1, 2]
    # the other judge's only call has no label; an unknown judge has nothing
    assert store.labelled_cells(judge="j2").n.size == 0
    assert store.labelled_cells(judge="j1").n.size == 0


def test_orders_share_by_hand(store):
    # keys of A's comparisons: (i1, A-B) both orders, (i2, A-C) both orders, (i3, A-B) one order
    assert store.orders_share(judge=J, candidate="A") == (2, 3)
    assert store.orders_share(judge=J, candidate="A", category="x") == (1, 2)
    assert store.orders_share(judge=J, candidate="A", baseline="C") == (1, 1)
    # every key of the judge: also (i4, B-C), judged in one order
    assert store.orders_share(judge=J) == (2, 4)


def _patterns(found) -> dict[tuple[int, ...], int]:
    return {
        tuple(int(x) for x in row): int(m) for row, m in zip(found.patterns, found.multiplicity, strict=True)
    }


def _row(**cells: int) -> tuple[int, ...]:
    return tuple(cells.get(c, 0) for c in PATTERN_COLUMNS)


def test_calibration_patterns_per_call_by_hand(store):
    found = store.calibration_patterns(judge=J, candidate="A", both_orders=False)
    # from A's side: i1 a win labelled a win and a loss labelled a loss; i2 two losses, the second
    # labelled a win (the first has no label); i3 a tie labelled a tie
    assert _patterns(found) == {
        _row(w=1, l=1, hw_vw=1, hl_vl=1): 1,
        _row(l=2, hw_vl=1): 1,
        _row(t=1, ht_vt=1): 1,
    }
    assert found.unpaired_calls == 0
    assert found.category_units == {"x": (3, 3), "y": (2, 1)}
    # the corrected slice x with labels from x only: i2 drops out
    sliced = store.calibration_patterns(judge=J, candidate="A", category="x", labelled="x", both_orders=False)
    assert _patterns(sliced) == {_row(w=1, l=1, hw_vw=1, hl_vl=1): 1, _row(t=1, ht_vt=1): 1}
    # labels from every slice: i2's labelled loss comes back as a labelled-only pattern
    wide = store.calibration_patterns(judge=J, candidate="A", category="x", labelled=None, both_orders=False)
    assert _patterns(wide) == {**_patterns(sliced), _row(hw_vl=1): 1}


def test_calibration_patterns_both_orders_by_hand(store):
    found = store.calibration_patterns(judge=J, candidate="A", both_orders=True)
    # (i1, B): the orders disagree → a tie; the two labels cancel → a tied label.
    # (i2, C): both orders say A loses; the one label says A wins. (i3, B): one order only.
    assert _patterns(found) == {_row(t=1, ht_vt=1): 1, _row(l=1, hw_vl=1): 1}
    assert found.unpaired_calls == 1
    assert found.category_units == {"x": (1, 1), "y": (1, 1)}


def test_slot_a_view_without_a_candidate(store):
    found = store.calibration_patterns(judge=J, both_orders=False)
    totals = np.asarray(found.multiplicity) @ np.asarray(found.patterns)
    wins, ties, losses = totals[:3]
    # slot A wins in rows 1, 2, 4 and both i4 rows; loses in row 3; ties in row 5
    assert (wins, ties, losses) == (5, 1, 1)


# -- the judge sheet's queries ------------------------------------------------------------------
JUDGE_ROWS = [
    # instruction, model_a, model_b, verdict, human, judge, length_a, length_b
    ("i1", "A", "B", 1, 1, "j", 100.0, 50.0),  # A twice as long, wins
    ("i1", "B", "A", None, -1, "j", 50.0, 100.0),  # no verdict, labelled
    ("i2", "A", "C", -2, None, "j", 10.0, 40.0),  # A a quarter as long, loses
    ("i2", "A", "A", 0, None, "j", 10.0, 10.0),  # self-comparison, a tie
    ("i3", "B", "C", 0, None, "j", float("nan"), 30.0),  # no usable length
    ("i3", "B", "C", 2, None, "k", 10.0, 20.0),  # another judge
]


@pytest.fixture(scope="module")
def judge_store():
    columns = ["instruction_id", "model_a", "model_b", "verdict", "human", "judge", "length_a", "length_b"]
    frame = pd.DataFrame(JUDGE_ROWS, columns=columns).astype({"verdict": "Int8", "human": "Int8"})
    s = VerdictStore.from_frame(frame)
    yield s
    s.close()


def test_coverage_counts_by_hand(judge_store):
    calls, missing, by_model, by_length = judge_store.query(
        sq.coverage_counts, judge="j", category=None, length_bins=2
    )
    assert (calls, missing) == (5, 1)
    # a self-comparison counts once for its model
    assert by_model.set_index("model")[["calls", "no_verdict"]].to_dict("index") == {
        "A": {"calls": 4, "no_verdict": 1},
        "B": {"calls": 3, "no_verdict": 1},
        "C": {"calls": 2, "no_verdict": 0},
    }
    # summed lengths 150, 150, 50, 20 (the NaN row has none): two bins of two by rank
    assert by_length[["length_min", "length_max", "calls", "no_verdict"]].values.tolist() == [
        [20.0, 50.0, 2, 0],
        [150.0, 150.0, 2, 1],
    ]


def _length_store(lengths, verdicts):
    n = len(lengths)
    frame = pd.DataFrame(
        {
            "instruction_id": [f"q{i}" for i in range(n)],
            "model_a": "A",
            "model_b": "B",
            "verdict": pd.array(verdicts, dtype="Int8"),
            "judge": "j",
            "length_a": np.asarray(lengths, dtype=float) / 2,
            "length_b": np.asarray(lengths, dtype=float) / 2,
        }
    )
    return VerdictStore.from_frame(frame)


def test_equal_lengths_share_a_length_bin_by_hand():
    # summed lengths 1, 1, 1, 2, 2, 3, 4, 5, 6, 7 in five bins: ranks 1, 1, 1, 4, 4, 6, 7, 8, 9,
    # 10, bin 1 + floor((rank - 1) * 5 / 10): {1, 1, 1}, {2, 2}, {3}, {4, 5}, {6, 7}
    store = _length_store([1, 1, 1, 2, 2, 3, 4, 5, 6, 7], [None, 1, 1, None, 1, 1, 1, 1, 1, None])
    by_length = store.query(sq.coverage_counts, judge="j", category=None, length_bins=5)[3]
    assert by_length[["length_bin", "length_min", "length_max", "calls", "no_verdict"]].values.tolist() == [
        [1, 1.0, 1.0, 3, 1],
        [2, 2.0, 2.0, 2, 1],
        [3, 3.0, 3.0, 1, 0],
        [4, 4.0, 5.0, 2, 0],
        [5, 6.0, 7.0, 2, 1],
    ]
    # one length shared by seven of ten rows swallows the bins it spans; the bins stay numbered
    # 1, 2, … from the shortest
    store = _length_store([5, 5, 5, 5, 5, 5, 5, 8, 9, 9], [None] * 7 + [1, 1, 1])
    by_length = store.query(sq.coverage_counts, judge="j", category=None, length_bins=5)[3]
    assert by_length[["length_bin", "length_min", "length_max", "calls", "no_verdict"]].values.tolist() == [
        [1, 5.0, 5.0, 7, 7],
        [2, 8.0, 8.0, 1, 0],
        [3, 9.0, 9.0, 2, 0],
    ]


def test_length_bins_do_not_depend_on_the_order_rows_are_read_in():
    """A bin boundary inside a run of equal lengths once sent those rows to either side as a
    parallel sort met them. On this table the calls without a verdict (the first fifth, all of
    one length) landed in bins 2 and 3; on the demo, a judge's counts per bin changed from one
    process to the next."""
    n = 200_000
    store = _length_store(np.full(n, 200.0), np.where(np.arange(n) < n // 5, None, 1).tolist())
    for _ in range(3):
        by_length = store.query(sq.coverage_counts, judge="j", category=None, length_bins=5)[3]
        assert by_length[["length_bin", "calls", "no_verdict"]].values.tolist() == [[1, n, n // 5]]


def test_self_comparisons_and_labelled_rows_by_hand(judge_store):
    assert judge_store.query(sq.self_comparison_counts, judge="j", category=None) == (1, 1, 0.0)
    assert judge_store.query(sq.self_comparison_counts, judge="k", category=None) == (0, 0, None)
    rows = judge_store.query(sq.labelled_rows, judge="j", category=None)
    assert rows["model_a"].tolist() == ["A", "B"] and rows["verdict"].isna().tolist() == [False, True]


def test_length_queries_by_hand(judge_store):
    # |log2 ratio| 1 (A longer, A wins) and 2 (C longer, A loses): the longer answer wins both
    bins = judge_store.query(sq.length_ratio_bins, judge="j", category=None, bin_width=1.5, n_bins=2)
    assert bins[["bin", "calls", "x_mean", "longer_score"]].values.tolist() == [
        [0, 1, 1.0, 1.0],
        [1, 1, 2.0, 1.0],
    ]
    # the last bin is open-ended: with one bin of width 1 both calls land in it
    one = judge_store.query(sq.length_ratio_bins, judge="j", category=None, bin_width=1.0, n_bins=1)
    assert one[["bin", "calls", "x_mean"]].values.tolist() == [[0, 2, 1.5]]
    models, columns = judge_store.query(sq.length_cells, judge="j", category=None)
    cells = pd.DataFrame(columns).sort_values(["a", "b"])
    named = [
        [models[int(a)], models[int(b)], y, z, n]
        for a, b, y, z, n in cells[["a", "b", "y", "z", "n"]].values.tolist()
    ]
    assert named == [["A", "B", 1.0, 0.333, 1.0], ["A", "C", 0.0, -0.6, 1.0]]
    assert cells["cluster"].nunique() == 2  # one instruction each
    means = judge_store.query(sq.mean_lengths, judge="j", category=None)
    assert means.sort_index().to_dict() == {"A": 55.0, "B": 50.0, "C": 40.0}


def test_calibration_patterns_and_orders_share_are_read_once_per_selection_and_table():
    # The Judge page certifies every judge in its sheet and again beside its weight in the pooled
    # ranking: the store reads each selection once per loaded table (as it does the counts), and
    # a new table is read afresh.
    frame = pd.DataFrame(
        ROWS, columns=["instruction_id", "model_a", "model_b", "verdict", "human", "judge", "category"]
    ).astype({"verdict": "Int8", "human": "Int8", "category": "string"})
    s = VerdictStore.from_frame(frame)
    first = s.calibration_patterns(judge=J, candidate="A", both_orders=False)
    assert s.calibration_patterns(judge=J, candidate="A", both_orders=False) is first
    assert s.calibration_patterns(judge=J, candidate="A", both_orders=True) is not first
    assert s.orders_share(judge=J, candidate="A") == s.orders_share(judge=J, candidate="A")
    reads: list[str] = []
    real = s.query
    s.query = lambda q, /, **p: reads.append(getattr(q, "__name__", q)) or real(q, **p)  # type: ignore[method-assign]
    s.calibration_patterns(judge=J, candidate="A", both_orders=False)
    s.orders_share(judge=J, candidate="A")
    assert reads == []
    s.load(VerdictStore.from_frame(frame[frame["judge"] == J].reset_index(drop=True)).frame())
    again = s.calibration_patterns(judge=J, candidate="A", both_orders=False)
    assert again is not first and reads == ["calibration_patterns"]
    s.close()
