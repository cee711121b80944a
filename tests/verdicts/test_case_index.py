"""The case index (evalcore.store.case_index): every case grouped once per loaded table,
a filter on the case's keys, verdict and flags a selection of it. Its pages and counts equal the
SQL grouping of the calls that it replaces (the hand-worked figures of test_query now go through
the index too), and a new filter no longer groups every call."""

from __future__ import annotations

import itertools
import random

import pytest

from evalcore.store import case_index as index_module
from evalcore.store import verdicts as store_verdicts
from evalcore.store.store import VerdictStore
from evalcore.verdicts.cases import VerdictFilter
from tests.verdicts.test_query import HAND

# the hand table, a case whose calls have no verdict at all (its verdict flags are empty, not
# "first"), a case without category, and a counts-like weight through a repeated row
EXTRA = """q9,x,z,,j,,,P9,x9,z9,
q9,z,x,,j,,,P9,z9,x9,
"""
#: one case (j, q1, {x, y}) whose calls span two categories: a category filter keeps a part of its calls
MIXED = HAND.replace("q1,y,x,1,j,-1,code", "q1,y,x,1,j,-1,chat")


def _store(text: str) -> VerdictStore:
    store = VerdictStore()
    store.load_bytes(text.encode(), name="hand.csv")
    return store


def _both(store: VerdictStore, flt: VerdictFilter, monkeypatch, *, offset: int = 0, limit: int = 3):
    """The page and the counts of ``flt`` through SQL alone (no index) and through the index."""
    store._kept.clear()
    with monkeypatch.context() as m:
        m.setattr(index_module, "INDEX_MAX_ROWS", 0)  # no index: every filter grouped in SQL
        sql = store.verdicts(flt, offset=offset, limit=limit), store.case_stats(flt)
    store._kept.clear()
    indexed = store.verdicts(flt, offset=offset, limit=limit), store.case_stats(flt)
    return sql, indexed


#: 150 of the 4,860 combinations of these choices, drawn once with a fixed seed (all took 5 minutes)
FILTERS = random.Random(26).sample(
    list(
        itertools.product(
            [None, "j", "k"],
            [None, "q1", "q9"],
            [None, "code", "chat"],
            [None, "x", "y"],
            [None, "y", "z"],
            [None, "first", "second", "tie", "none"],
            [False, True],
            [False, True],
        )
    ),
    150,
)


@pytest.mark.parametrize("text", [HAND + EXTRA, MIXED], ids=["one category a case", "mixed categories"])
def test_every_filter_the_index_answers_equals_the_sql_grouping(text, monkeypatch):
    store = _store(text)
    for judge, instruction, category, a, b, verdict, flipped, disagrees in FILTERS:
        flt = VerdictFilter(
            judge=judge,
            instruction=instruction,
            category=category,
            model_a=a,
            model_b=b,
            verdict=verdict,
            flipped=flipped,
            disagrees_with_human=disagrees,
        )
        sql, indexed = _both(store, flt, monkeypatch)
        assert indexed == sql, flt
    for offset in (0, 2, 4, 40):  # pages, and a page past the end
        sql, indexed = _both(store, VerdictFilter(), monkeypatch, offset=offset, limit=2)
        assert indexed == sql, offset


def test_a_case_with_no_verdict_is_found_under_no_verdict_only(monkeypatch):
    store = _store(HAND + EXTRA)
    assert [c.instruction for c in store.verdicts(VerdictFilter(verdict="none"), limit=50).cases] == [
        "q7",
        "q9",
    ]
    assert "q9" not in [c.instruction for c in store.verdicts(VerdictFilter(verdict="first"), limit=50).cases]
    assert store.verdicts(VerdictFilter(instruction="q9")).cases[0].category is None


def test_a_new_filter_groups_no_call_once_the_cases_are_indexed(monkeypatch):
    """The Verdicts page's switch grouped every call of the table again (0.3 s on the demo)."""
    store = _store(HAND)
    index_module.case_index(store)

    def grouped(*args, **kwargs):
        raise AssertionError("every call grouped again")

    monkeypatch.setattr(store_verdicts, "_cases_sql", grouped)
    page = store.verdicts(VerdictFilter(judge="j", flipped=True))
    assert [c.instruction for c in page.cases] == ["q1", "q4", "q6"]
    assert store.case_stats(VerdictFilter(judge="j", flipped=True)).flipped == 3


def test_filters_the_index_cannot_answer_are_grouped_in_sql(monkeypatch):
    """A search, an anchor's "beats every model", the calibration's units, and a category on a
    table where a case spans categories read the calls themselves."""
    store = _store(MIXED)
    asked: list[VerdictFilter] = []
    real = store_verdicts._cases_sql

    def counted(con, flt, *args, **kwargs):
        asked.append(flt)
        return real(con, flt, *args, **kwargs)

    monkeypatch.setattr(store_verdicts, "_cases_sql", counted)
    for flt in (
        VerdictFilter(search="x1"),
        VerdictFilter(beats_all="x"),
        VerdictFilter(category="code"),
        VerdictFilter(win_disagrees="x", unit="call"),
    ):
        store.verdicts(flt)
        assert asked and asked[-1] == flt
    store.verdicts(VerdictFilter(judge="j"))
    assert asked[-1].judge is None  # answered by the index


def test_a_copy_of_a_table_shares_its_index():
    """Every session's copy of the demo uses the cases grouped once for the server."""
    source = _store(HAND)
    table = source.load_bytes(HAND.encode(), name="hand.csv")
    copy = VerdictStore()
    copy.load(table)
    assert index_module.case_index(copy) is index_module.case_index(source)


def test_a_table_over_the_limit_has_no_index(monkeypatch):
    monkeypatch.setattr(index_module, "INDEX_MAX_ROWS", 3)
    store = _store(HAND)
    assert index_module.case_index(store) is None
    assert store.verdicts(VerdictFilter(flipped=True)).total == 3


@pytest.mark.parametrize(
    "text",
    [HAND + EXTRA, MIXED, "instruction_id,model_a,model_b,verdict\nq1,b,a,1\nq1,a,b,-1\nq2,c,a,0\n"],
    ids=["one category a case", "mixed categories", "no category column"],
)
def test_the_index_encoded_in_arrow_is_the_frame_pandas_made(text):
    """The names come as categoricals encoded in Arrow: the same frame as DuckDB's frame of
    Python strings made categorical by pandas (sorted categories, no category: none)."""
    import pandas as pd

    store = _store(text)
    cur = store.con.cursor()
    plain = cur.execute(index_module._INDEX).df()
    cur.close()
    for key in ("judge", "instruction_id", "m1", "m2", "category"):
        plain[key] = plain[key].astype("category")
    for flag in ("mixed_category", "v_first", "v_second", "v_tie", "v_none"):
        plain[flag] = plain[flag].fillna(False).astype(bool)
    pd.testing.assert_frame_equal(index_module.case_index(store), plain)
