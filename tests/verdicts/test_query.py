"""The verdicts behind the numbers: filters, cases, paging, and the two definitions (flipped,
disagrees with the human) checked by hand and against the aggregate code paths."""

from __future__ import annotations

import os
from dataclasses import astuple

import numpy as np
import pandas as pd
import pytest

from evalcore.errors import UsageError
from evalcore.judge.both_orders import SAME_OUTCOME, paired_verdicts
from evalcore.present.verdict_words import case_lines, page_headline, verdict_words
from evalcore.simulate.tables import JudgeSpec, SimulationSpec, simulate
from evalcore.store.store import VerdictStore
from evalcore.verdicts import VerdictFilter, VerdictPage

# A hand-worked table. Cases (judge, instruction, pair) and what they are, read from x's side:
#   j q1 {x,y}: x>y (+1), then y first and y>x (+1, i.e. −1 for x): flipped; row 2's human says
#               x better (−1 from y's slot) while the judge says y better: disagrees.
#   j q2 {x,z}: tie, tie: not flipped (same outcome); human agrees on row 3 (tie = tie).
#   j q3 {x,y}: x much better, then x better from slot B: not flipped (same winner).
#   j q4 {x,y}: x better, then a tie: flipped (a winner against a tie).
#   j q5 {y,z}: one order only: never flipped; the human says y better, the judge z: disagrees.
#   j q6 {x,y}: x better, y better (repeated forward call), x better in reverse: flipped.
#   j q7 {x,y}: no verdict, then x better: one order with a verdict: not flipped; verdict none.
#   j q8 {x,x}: a self-comparison: never flipped.
#   k q1 {x,y}: another judge's single call: its own case.
HAND = """instruction_id,model_a,model_b,verdict,judge,human,category,prompt,response_a,response_b,judge_output
q1,x,y,1,j,1,code,P1,x1,y1,o1
q1,y,x,1,j,-1,code,P1,y1,x1,o2
q2,x,z,0,j,0,chat,P2,x2,z2,o3
q2,z,x,0,j,,chat,P2,z2,x2,o4
q3,x,y,2,j,,chat,P3,x3,y3,o5
q3,y,x,-1,j,,chat,P3,y3,x3,o6
q4,x,y,1,j,,chat,P4,x4,y4,o7
q4,y,x,0,j,,chat,P4,y4,x4,o8
q5,y,z,-1,j,1,chat,P5,y5,z5,o9
q6,x,y,1,j,,chat,P6,x6,y6,o10
q6,x,y,-1,j,,chat,P6,x6,y6,o11
q6,y,x,-1,j,,chat,P6,y6,x6,o12
q7,x,y,,j,,chat,P7,x7,y7,
q7,y,x,-1,j,,chat,P7,y7,x7,o14
q8,x,x,0,j,,chat,P8,x8,x8b,o15
q1,x,y,-1,k,,code,P1,x1,y1,o16
"""


@pytest.fixture(scope="module")
def hand() -> VerdictStore:
    store = VerdictStore()
    store.load_bytes(HAND.encode(), name="hand.csv")
    yield store
    store.close()


def keys(page: VerdictPage) -> list[tuple[str, str]]:
    return [(c.judge, c.instruction) for c in page.cases]


def test_every_case_once_in_file_order(hand):
    page = hand.verdicts(limit=50)
    assert page.total == 9 and page.has_text
    assert keys(page) == [("j", f"q{i}") for i in range(1, 9)] + [("k", "q1")]
    q1 = page.cases[0]
    assert q1.models == ("x", "y") and [c.row for c in q1.calls] == [1, 2]
    assert q1.prompt == "P1" and q1.answers == {"x": "x1", "y": "y1"}
    assert [c.judge_output for c in q1.calls] == ["o1", "o2"]
    assert q1.category == "code"


def test_flipped_by_hand(hand):
    assert keys(hand.verdicts(VerdictFilter(flipped=True))) == [("j", "q1"), ("j", "q4"), ("j", "q6")]
    flags = {c.instruction: c.flipped for c in hand.verdicts(VerdictFilter(judge="j"), limit=50).cases}
    assert flags == {"q1": True, "q2": False, "q3": False, "q4": True, "q5": False, "q6": True,
                     "q7": False, "q8": False}  # fmt: skip


def test_human_disagreement_by_hand(hand):
    assert keys(hand.verdicts(VerdictFilter(disagrees_with_human=True))) == [("j", "q1"), ("j", "q5")]
    cases = {c.instruction: c for c in hand.verdicts(VerdictFilter(judge="j"), limit=50).cases}
    assert cases["q1"].agrees_with_human is False
    assert cases["q1"].human == 1  # row 1's label, from x's side (x is models[0])
    assert cases["q2"].agrees_with_human is True and cases["q2"].human == 0
    # q5: the human says y better (+1 from slot A = y); the judge says z better
    assert cases["q5"].human == 1 and cases["q5"].agrees_with_human is False
    assert cases["q3"].agrees_with_human is None and cases["q3"].human is None


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("first", ["q1", "q3", "q4", "q6"]),
        ("second", ["q3", "q5", "q6", "q7", "q1"]),
        ("tie", ["q2", "q4", "q8"]),
        ("none", ["q7"]),
    ],
)
def test_verdict_kinds(hand, kind, expected):
    page = hand.verdicts(VerdictFilter(verdict=kind), limit=50)
    assert [c.instruction for c in page.cases] == expected


def test_pair_is_unordered_and_one_model_means_involving(hand):
    xy = hand.verdicts(VerdictFilter(model_a="x", model_b="y"), limit=50)
    yx = hand.verdicts(VerdictFilter(model_a="y", model_b="x"), limit=50)
    assert keys(xy) == keys(yx) == [("j", q) for q in ("q1", "q3", "q4", "q6", "q7")] + [("k", "q1")]
    involving_z = hand.verdicts(VerdictFilter(model_b="z"), limit=50)
    assert [c.instruction for c in involving_z.cases] == ["q2", "q5"]
    assert hand.verdicts(VerdictFilter(model_a="x", model_b="x")).total == 1  # the self-comparison


def test_judge_instruction_category(hand):
    assert keys(hand.verdicts(VerdictFilter(judge="k"))) == [("k", "q1")]
    assert keys(hand.verdicts(VerdictFilter(instruction="q1"))) == [("j", "q1"), ("k", "q1")]
    assert keys(hand.verdicts(VerdictFilter(category="code"))) == [("j", "q1"), ("k", "q1")]
    assert hand.verdicts(VerdictFilter(judge="nobody")).total == 0


def test_filters_combine(hand):
    page = hand.verdicts(VerdictFilter(judge="j", model_a="y", model_b="x", flipped=True, verdict="tie"))
    assert [c.instruction for c in page.cases] == ["q4"]


def test_paging(hand):
    first = hand.verdicts(limit=4)
    second = hand.verdicts(offset=4, limit=4)
    last = hand.verdicts(offset=8, limit=4)
    assert (first.total, second.total, last.total) == (9, 9, 9)
    assert len(first.cases) == 4 and len(second.cases) == 4 and len(last.cases) == 1
    assert keys(first) + keys(second) + keys(last) == keys(hand.verdicts(limit=50))
    past = hand.verdicts(offset=100)
    assert past.cases == () and past.total == 9
    assert page_headline(past) == "No case on this page: 9 cases match, the last is on page 1 (all cases)."
    with pytest.raises(UsageError, match="limit"):
        hand.verdicts(limit=0)
    with pytest.raises(UsageError, match="offset"):
        hand.verdicts(offset=-1)


def test_search_is_case_insensitive_substring(hand):
    assert keys(hand.verdicts(VerdictFilter(search="p4"))) == [("j", "q4")]
    assert keys(hand.verdicts(VerdictFilter(search="O16"))) == [("k", "q1")]  # judge output
    assert keys(hand.verdicts(VerdictFilter(search="z5"))) == [("j", "q5")]  # an answer
    assert hand.verdicts(VerdictFilter(search="nothing like this")).total == 0


def test_search_within_other_filters_reads_only_their_rows(hand, monkeypatch):
    import evalcore.store.verdicts as sv

    flt = VerdictFilter(model_a="x", model_b="y", search="o1")  # o1, o10, o11, o14, o16 on x-y cases
    assert keys(hand.verdicts(flt)) == [("j", "q1"), ("j", "q6"), ("j", "q7"), ("k", "q1")]
    assert hand.verdicts(VerdictFilter(judge="nobody", search="o1")).total == 0
    monkeypatch.setattr(sv, "MAX_CANDIDATES", 1)  # too many rows to list: the full scan path
    assert keys(hand.verdicts(flt)) == [("j", "q1"), ("j", "q6"), ("j", "q7"), ("k", "q1")]


HOSTILE = [
    "<script>alert('x')</script>",
    "[click](javascript:alert(1)) **bold** <img src=x onerror=alert(1)>",
    "'; DROP TABLE verdicts; --",
    'He said "100%" of the_time \\ back\\slash',
    "line one\nline two\r\n\ttabbed",
    "emoji 🎉 and RTL \u202e text",
]


def test_hostile_text_round_trips_and_searches_literally(tmp_path):
    frame = pd.DataFrame(
        {
            "instruction_id": [f"q{i}" for i in range(len(HOSTILE))] + ["q_other"],
            "model_a": "x",
            "model_b": "y",
            "verdict": 1,
            "prompt": HOSTILE + ["plain 100 percent of the time"],
            "response_a": HOSTILE + ["a"],
            "response_b": HOSTILE + ["b"],
            "judge_output": HOSTILE + ["c"],
        }
    )
    path = tmp_path / "hostile.parquet"
    frame.to_parquet(path)
    store = VerdictStore()
    store.load_file(path)
    page = store.verdicts(limit=50)
    for case, text in zip(page.cases, HOSTILE, strict=False):
        assert case.prompt == text and case.calls[0].judge_output == text and case.answers["x"] == text
    assert store.con.execute("SELECT count(*) FROM verdicts").fetchone()[0] == len(HOSTILE) + 1
    # %, _ and quotes are plain characters: only the row that really contains them matches
    for needle, expected in (
        ('"100%"', ["q3"]),
        ("the_time", ["q3"]),
        ("100%", ["q3"]),
        ("%", ["q3"]),
        ("_", ["q3"]),
        ("'; drop table", ["q2"]),
        ("\\ back\\", ["q3"]),
        ("onerror=ALERT(1)", ["q1"]),
    ):
        found = [c.instruction for c in store.verdicts(VerdictFilter(search=needle), limit=50).cases]
        assert found == expected, needle
    store.close()


def test_table_without_text():
    store = VerdictStore()
    store.load_bytes(b"instruction_id,model_a,model_b,verdict\nq1,x,y,1\nq1,y,x,-1\n", name="t.csv")
    page = store.verdicts()
    assert not page.has_text and page.total == 1 and store.text.folder is None
    case = page.cases[0]
    assert case.prompt is None and case.answers == {"x": None, "y": None} and not case.flipped
    assert store.verdicts(VerdictFilter(search="x")).total == 0
    assert store.verdict_options() == {
        "judges": ["judge"],
        "models": ["x", "y"],
        "categories": [],
        "has_text": False,
    }
    store.close()


def test_text_is_replaced_by_the_next_load_and_removed_on_close():
    store = VerdictStore()
    store.load_bytes(HAND.encode(), name="hand.csv")
    folder = store.text.folder
    assert folder is not None and os.path.isdir(folder)
    store.load_bytes(b"instruction_id,model_a,model_b,verdict\nq1,x,y,1\n", name="t.csv")
    assert not store.has_text and store.verdicts().cases[0].prompt is None
    with pytest.raises(ValueError):  # a failed load keeps what was loaded
        store.load_bytes(b"instruction_id,model_a,model_b,verdict,prompt\nq1,x,y,7,new\n", name="bad.csv")
    assert not store.has_text
    store.load_bytes(HAND.encode(), name="hand.csv")
    with pytest.raises(ValueError):
        store.load_bytes(b"instruction_id,model_a,model_b,verdict,prompt\nq1,x,y,7,new\n", name="bad.csv")
    assert store.verdicts().cases[0].prompt == "P1"
    store.close()
    assert not os.path.exists(folder)


def test_text_follows_a_table_moved_between_stores_and_the_facade(tmp_path):
    import evalcore

    path = tmp_path / "hand.csv"
    path.write_text(HAND)
    ds = evalcore.load(path)
    page = ds.verdicts({"a": "x", "b": "z"})
    assert page.cases[0].prompt == "P2" and ds.verdict_options()["has_text"]
    other = VerdictStore()
    from evalcore.store.store import read_verdicts

    other.load(read_verdicts(path))
    assert other.verdicts(VerdictFilter(flipped=True)).total == 3
    assert other.verdicts(VerdictFilter(instruction="q6")).cases[0].answers == {"x": "x6", "y": "y6"}
    other.close()


def test_counts_are_unchanged_by_text(hand):
    plain = VerdictStore()
    no_text = "\n".join(",".join(line.split(",")[:7]) for line in HAND.strip().splitlines()) + "\n"
    plain.load_bytes(no_text.encode(), name="plain.csv")
    a, b = hand.counts(judge="j"), plain.counts(judge="j")
    assert a.models == b.models and np.array_equal(a.n, b.n) and np.array_equal(a.inst, b.inst)
    plain.close()


def test_filter_params_round_trip_and_refusals():
    full = VerdictFilter(
        judge="j", model_a="a b", model_b="c&d", instruction="q=1", category="code", verdict="tie",
        flipped=True, disagrees_with_human=True, search="50% off",
    )  # fmt: skip
    params = full.as_params()
    assert params == {
        "judge": "j", "a": "a b", "b": "c&d", "instruction": "q=1", "category": "code",
        "verdict": "tie", "flipped": "1", "human": "disagrees", "q": "50% off",
    }  # fmt: skip
    assert VerdictFilter.from_params(params) == full
    assert VerdictFilter.from_params({}) == VerdictFilter() and VerdictFilter().is_empty
    assert VerdictFilter(judge="") == VerdictFilter()
    for params, named in (
        ({"verdict": "maybe"}, "verdict"),
        ({"flipped": "yes"}, "flipped"),
        ({"human": "agrees"}, "human"),
        ({"colour": "red"}, "colour"),
    ):
        with pytest.raises(UsageError, match=named):
            VerdictFilter.from_params(params)
    with pytest.raises(UsageError, match="verdict"):
        VerdictFilter(verdict="A")  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="search"):
        VerdictFilter(search="x" * 1001)


def test_as_dict_and_words(hand):
    page = hand.verdicts(VerdictFilter(instruction="q1", judge="j"))
    data = page.as_dict()
    assert data["total"] == 1 and data["filter"] == {"judge": "j", "instruction": "q1"}
    assert data["cases"][0]["calls"][1]["judge_output"] == "o2"
    case = page.cases[0]
    assert verdict_words(case.calls[1]) == "y better"
    lines = case_lines(case)
    assert lines[0] == "j · instruction q1 · x vs y · code"
    assert "the two orders disagree" in lines[1] and "judge and human disagree" in lines[1]
    assert page_headline(page) == "Case 1 of 1 (judge j, instruction q1)."  # the page's words


# -- the definitions agree with the aggregate code paths ---------------------------------------


def _flipped_from_counts(store: VerdictStore, judge: str) -> set[tuple[str, str, str]]:
    """Cells whose random pairing of the two orders has a non-zero flip share
    (evalcore.judge.both_orders), as (instruction, model, model) sorted."""
    counts = store.counts(judge=judge)
    paired = paired_verdicts(counts)
    flips = paired.reduce(1.0 - SAME_OUTCOME)
    out = set()
    for r in np.flatnonzero(flips > 1e-12):
        m1, m2 = sorted((counts.models[paired.first[r]], counts.models[paired.second[r]]))
        out.add((counts.instructions[paired.inst[r]], m1, m2))
    return out


def _all_cases(store: VerdictStore, flt: VerdictFilter) -> list:
    cases, offset = [], 0
    while True:
        page = store.verdicts(flt, offset=offset, limit=500)
        cases.extend(page.cases)
        offset += 500
        if offset >= page.total:
            return cases


SHAPES = {
    "double-ordered with a shared human label": SimulationSpec(
        n_models=5, n_instructions=40, human_fraction=0.5, seed=3,
        judges=(JudgeSpec("judge-a", slot_bias=0.4, no_verdict_rate=0.05),),
    ),
    "anchor-only": SimulationSpec(
        n_models=5, n_instructions=30, design="anchor", anchor_slot="a",
        both_orders=False, seed=4, human_fraction=0.3,
    ),
    "tiny": SimulationSpec(n_models=3, n_instructions=3, seed=5, human_fraction=1.0),
}  # fmt: skip


@pytest.mark.parametrize("shape", SHAPES)
def test_flipped_matches_the_flip_rate_cells_and_disagreement_matches_the_rows(shape):
    sim = simulate(SHAPES[shape])
    store = VerdictStore()
    store.load(sim.verdicts)
    judge = store.judges()[0]
    flipped = {
        (c.instruction, *sorted(c.models))
        for c in _all_cases(store, VerdictFilter(judge=judge, flipped=True))
    }
    assert flipped == _flipped_from_counts(store, judge)
    if shape == "anchor-only":
        assert flipped == set()  # one order only: nothing can flip
    rows = store.frame(judge=judge)
    both = rows[rows["verdict"].notna() & rows["human"].notna() & (rows["model_a"] != rows["model_b"])]
    bad = both[np.sign(both["verdict"].astype(float)) != np.sign(both["human"].astype(float))]
    expected = {(r.instruction_id, *sorted((r.model_a, r.model_b))) for r in bad.itertuples()}
    found = {
        (c.instruction, *sorted(c.models))
        for c in _all_cases(store, VerdictFilter(judge=judge, disagrees_with_human=True))
    }
    assert found == expected
    total = store.verdicts(VerdictFilter(judge=judge)).total
    distinct = rows.assign(
        m1=rows[["model_a", "model_b"]].min(axis=1), m2=rows[["model_a", "model_b"]].max(axis=1)
    )
    assert total == len(distinct.drop_duplicates(["instruction_id", "m1", "m2"]))
    store.close()


def test_arena_shape_one_battle_per_prompt():
    rng = np.random.default_rng(0)
    n = 300
    a = rng.integers(0, 6, n)
    b = (a + rng.integers(1, 6, n)) % 6
    frame = pd.DataFrame(
        {
            "question_id": [f"c{i}" for i in range(n)],
            "model_a": [f"m{k}" for k in a],
            "model_b": [f"m{k}" for k in b],
            "winner": rng.choice(["model_a", "model_b", "tie", "tie (bothbad)"], n),
            "judge": [f"arena_user_{i % 7}" for i in range(n)],
            "conversation_a": [[{"role": "user", "content": f"ask {i}"}, {"role": "assistant", "content": f"A{i}"}] for i in range(n)],
            "conversation_b": [[{"role": "user", "content": f"ask {i}"}, {"role": "assistant", "content": f"B{i}"}] for i in range(n)],
        }
    )  # fmt: skip
    store = VerdictStore()
    store.load_bytes(frame.to_json(orient="records").encode(), name="battles.json")
    page = store.verdicts(VerdictFilter(model_a="m0", model_b="m1"), limit=500)
    expected = int((((a == 0) & (b == 1)) | ((a == 1) & (b == 0))).sum())
    assert page.total == expected and all(len(c.calls) == 1 and not c.flipped for c in page.cases)
    case = store.verdicts(VerdictFilter(instruction="c5")).cases[0]
    assert case.prompt == "ask 5" and case.answers == {f"m{a[5]}": "A5", f"m{b[5]}": "B5"}
    assert store.verdicts(VerdictFilter(flipped=True)).total == 0
    store.close()


def test_beats_all_by_hand(hand):
    # x's opponents' mean verdict against x, per instruction (judge j): q1 0 (a win each way),
    # q2 0 (ties), q3 −1.5, q4 −0.5, q6 −1/3, q7 −1 (the no-verdict call left out); q8 is a
    # self-comparison (no opponent) and q5 does not involve x. Judge k's q1: y won.
    got = keys(hand.verdicts(VerdictFilter(judge="j", beats_all="x")))
    assert got == [("j", "q3"), ("j", "q4"), ("j", "q6"), ("j", "q7")]
    assert keys(hand.verdicts(VerdictFilter(beats_all="x"))) == got  # per judge: k adds nothing
    assert keys(hand.verdicts(VerdictFilter(judge="k", beats_all="x"))) == []
    # y beats every model it met only on k's q1
    assert keys(hand.verdicts(VerdictFilter(beats_all="y"))) == [("k", "q1")]
    assert VerdictFilter.from_params({"beats": "x"}) == VerdictFilter(beats_all="x")


@pytest.mark.parametrize("shape", SHAPES)
def test_beats_all_opens_the_instructions_the_anchor_count_names(shape):
    from evalcore.anchors import win_rate_distribution

    sim = simulate(SHAPES[shape])
    store = VerdictStore()
    store.load(sim.verdicts)
    judge = store.judges()[0]
    counts = store.counts(judge=judge)
    for anchor in store.models():
        try:
            expected = win_rate_distribution(counts, anchor).anchor_beats_all
        except ValueError:  # an anchor the design cannot read (a model never met)
            continue
        cases = _all_cases(store, VerdictFilter(judge=judge, beats_all=anchor))
        assert all(anchor in c.models for c in cases)
        assert len({c.instruction for c in cases}) == expected, anchor
    store.close()


def _cases_with_text(store: VerdictStore) -> list[tuple]:
    page = store.verdicts(limit=50)
    return [(c.instruction, c.prompt, c.answers, tuple(k.judge_output for k in c.calls)) for c in page.cases]


def _lent(n: int) -> tuple[VerdictStore, list[VerdictStore]]:
    """A store holding the hand-worked table with its text, and ``n`` stores that copied it."""
    lender = VerdictStore()
    table = lender.load_bytes(HAND.encode(), name="hand.csv")
    borrowers = [VerdictStore() for _ in range(n)]
    for b in borrowers:
        b.load(table)
    return lender, borrowers


def test_a_copied_table_borrows_the_text_until_it_is_read():
    # Each session copies the demo: its text (150 MB on disk) is borrowed, not copied, until read.
    lender, (borrower,) = _lent(1)
    assert borrower.has_text and borrower.text.folder is None  # nothing copied yet
    assert borrower.text.has_answers()
    assert borrower.verdict_options()["has_text"] and borrower.text.folder is None
    assert _cases_with_text(borrower) == _cases_with_text(lender)
    assert borrower.text.folder is None  # a page of cases reads the lender's rows, copies nothing
    assert _searched(borrower) == _searched(lender)
    assert borrower.text.folder is not None  # a search over the text copied it
    lender.close()
    borrower.close()


def _searched(store: VerdictStore) -> list[tuple]:
    page = store.verdicts(VerdictFilter(search="P1"), limit=50)
    return [(c.instruction, c.prompt, c.answers) for c in page.cases]


def test_a_page_of_cases_reads_borrowed_text_where_it_lives_until_the_lender_moves_on():
    # The Verdicts page's first page of a session's demo copy: the lender's rows, no copy; once
    # the lender loads another table, the borrower copied the old text and reads its own copy.
    lender, (borrower,) = _lent(1)
    want = _cases_with_text(lender)
    assert any(prompt for _, prompt, _, _ in want)  # the hand-worked table has text to compare
    assert _cases_with_text(borrower) == want and borrower.text.folder is None
    lender.load_bytes(HAND.replace("P1", "CHANGED").encode(), name="other.csv")
    assert borrower.text.folder is not None and _cases_with_text(borrower) == want
    lender.close()
    borrower.close()


@pytest.mark.parametrize("then", ["reload", "close"])
def test_borrowed_text_outlives_the_lenders_next_load_or_close(then):
    lender, borrowers = _lent(2)
    want = _cases_with_text(lender)
    if then == "reload":  # the lender's text table is dropped: each borrower copies it first
        lender.load_bytes(HAND.replace("P1", "CHANGED").encode(), name="other.csv")
        assert _cases_with_text(lender) != want
    else:
        lender.close()
    for b in borrowers:
        assert b.text.folder is not None
        assert _cases_with_text(b) == want
        b.close()


def test_a_borrowers_next_load_stops_borrowing():
    lender, (borrower,) = _lent(1)
    borrower.load_bytes(b"instruction_id,model_a,model_b,verdict\nq1,x,y,1\n", name="t.csv")
    assert not borrower.has_text and not lender.text._borrowers
    lender.load_bytes(HAND.encode(), name="again.csv")  # nothing to hand over
    assert borrower.text.folder is None
    lender.close()
    borrower.close()


def test_sessions_borrowing_one_text_read_it_at_once_from_threads():
    # Demo sessions are threads of one server: each borrows the demo's text and reads it at once.
    from concurrent.futures import ThreadPoolExecutor

    lender, borrowers = _lent(6)
    want = _cases_with_text(lender)

    def read(b: VerdictStore):
        return b.text.has_answers(), _cases_with_text(b)

    with ThreadPoolExecutor(6) as pool:
        got = list(pool.map(read, borrowers))
    assert got == [(True, want)] * 6
    for b in borrowers:
        b.close()
    lender.close()


def _separately(store: VerdictStore, flt: VerdictFilter, offset: int, limit: int) -> tuple[list, tuple]:
    """The page's case keys and the cases' statistics by the two queries run one after the other
    (as before the page and its statistics shared one grouping)."""
    from evalcore.store import verdicts as sv

    page_sql, params = sv._cases_sql(store.con, flt, store.text, final=sv._PAGE_SELECT, order=sv._PAGE_ORDER)
    rows = store.con.execute(page_sql, params | {"limit": limit, "offset": offset}).fetchall()
    stats_sql, params = sv._cases_sql(store.con, flt, store.text, final=sv._STATS_SELECT, order="")
    return [r[:9] for r in rows], store.con.execute(stats_sql, params).fetchone()


@pytest.mark.parametrize(
    "fields",
    [
        {},
        {"judge": "j"},
        {"judge": "j", "flipped": True},
        {"disagrees_with_human": True},
        {"model_a": "x", "model_b": "y"},
        {"verdict": "tie"},
        {"category": "nothing"},
    ],
)
@pytest.mark.parametrize(("offset", "limit"), [(0, 3), (2, 3), (0, 500), (40, 5)])
def test_a_page_and_its_statistics_from_one_grouping_equal_the_two_queries(fields, offset, limit):
    """The Verdicts page's cases and what every matching case holds come from one grouping of the
    calls (kept for the statistics that follow): the same cases, order, total and statistics as
    the page's and the statistics' own queries, on the hand-worked table, past the end too."""
    store = VerdictStore()
    store.load_bytes(HAND.encode(), name="hand.csv")
    flt = VerdictFilter(**fields)
    rows, stats = _separately(store, flt, offset, limit)
    page = store.verdicts(flt, offset=offset, limit=limit)
    assert [(c.judge, c.instruction, *sorted(c.models)) for c in page.cases] == [r[:4] for r in rows]
    assert [(c.category, c.flipped) for c in page.cases] == [(r[5], r[6]) for r in rows]
    assert store.kept(("case_stats", flt)) is not None  # kept by the page
    assert astuple(store.case_stats(flt)) == tuple(int(v or 0) for v in stats)
    assert page.total == stats[0]
    again = store.verdicts(flt, offset=offset, limit=limit)  # the statistics kept: the page alone
    assert keys(again) == keys(page) and again.total == page.total
    store.close()


def test_flipped_equals_its_definition_on_a_random_table():
    """The flag compares the smallest and the largest outcome read from the first model's side
    (DuckDB's minimum and maximum): on random cases with repeated calls, missing verdicts and
    one-order pairs it marks exactly the cases whose two orders both have a verdict and whose
    outcomes are not all the same (counted in pandas, the definition as written)."""
    rng = np.random.default_rng(7)
    rows = []
    for inst in range(120):
        a, b = rng.choice(["x", "y", "z"], size=2, replace=False)
        for _ in range(rng.integers(1, 5)):
            first = rng.random() < 0.5
            verdict = None if rng.random() < 0.15 else int(rng.integers(-2, 3))
            rows.append((f"q{inst}", a if first else b, b if first else a, verdict))
    frame = pd.DataFrame(rows, columns=["instruction_id", "model_a", "model_b", "verdict"])
    frame["verdict"] = frame["verdict"].astype("Int8")
    frame["judge"] = "j"
    store = VerdictStore.from_frame(frame)
    try:
        got = {c.instruction for c in store.verdicts(VerdictFilter(flipped=True), limit=500).cases}
    finally:
        store.close()
    want = set()
    for inst, calls in frame.groupby("instruction_id"):
        m1 = min(calls["model_a"].iloc[0], calls["model_b"].iloc[0])
        judged = calls[calls["verdict"].notna()]
        forward = judged["model_a"] == m1
        outcomes = np.sign(judged["verdict"].astype(int)) * np.where(forward, 1, -1)
        if forward.any() and (~forward).any() and len(set(outcomes)) > 1:
            want.add(inst)
    assert 10 < len(want) < 110 and got == want
