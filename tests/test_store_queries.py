"""The store's per-analysis queries (labelled cells, orders share, calibration patterns) on a
hand-worked table: every expected number below is counted by hand from the nine rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalcore.store import VerdictStore
from evalcore.store_queries import PATTERN_COLUMNS

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
