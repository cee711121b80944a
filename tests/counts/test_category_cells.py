"""A category's counts selected from the judge's counts read with each call's category (a table
of one call per prompt and pair, such as an arena) equal the counts read for that category alone,
and the category test built on them is the same."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalcore.names import Names
from evalcore.ranking.heterogeneity import store_heterogeneity
from evalcore.store.store import VerdictStore

CATEGORIES = ["code", "maths", "prose"]


def _arena(tmp_path, *, several_pairs: bool) -> str:
    """Battles with a category each (some without one); with ``several_pairs`` a prompt holds up
    to three battles of different pairs, in one or several categories."""
    rng = np.random.default_rng(11)
    models = [f"m{k}" for k in range(6)]
    rows = []
    for p in range(400):
        for _ in range(int(rng.integers(1, 4)) if several_pairs else 1):
            a, b = rng.choice(models, 2, replace=False)
            category = (
                None if rng.random() < 0.05 else str(rng.choice(CATEGORIES[:2] if p % 7 else CATEGORIES))
            )
            rows.append(
                (f"p{rng.integers(0, 10**6):07d}", a, b, "voters", int(rng.integers(-1, 2)), category)
            )
            if several_pairs:
                rows[-1] = (f"p{p:04d}", *rows[-1][1:])
    frame = pd.DataFrame(
        rows, columns=["instruction_id", "model_a", "model_b", "judge", "verdict", "category"]
    )
    frame = frame.drop_duplicates(["instruction_id", "model_a", "model_b"])
    path = tmp_path / "arena.parquet"
    frame.to_parquet(path)
    return str(path)


def _same(x, y) -> None:
    assert x.models == y.models and x.judge == y.judge
    assert type(x.instructions) is type(y.instructions) and tuple(x.instructions) == tuple(y.instructions)
    for k in ("inst", "a", "b", "n"):
        u, v = getattr(x, k), getattr(y, k)
        assert u.dtype == v.dtype and np.array_equal(u, v), k


@pytest.mark.parametrize("compact", [False, True])
@pytest.mark.parametrize("several_pairs", [False, True])
def test_a_category_selected_from_the_judge_counts_is_the_category_read_alone(
    tmp_path, monkeypatch, compact, several_pairs
):
    if compact:  # instruction names kept in Arrow, as on a large table
        monkeypatch.setattr("evalcore.store.store.COMPACT_NAMES_FROM", 0)
    path = _arena(tmp_path, several_pairs=several_pairs)
    selected = VerdictStore().load_file(path).store
    alone = VerdictStore().load_file(path).store
    assert selected._unique_keys  # a typed load of one call per prompt and pair
    selected.counts(judge="voters")  # read with each call's category
    assert selected.kept(("cell_categories", "voters")) is not None
    for category in (*CATEGORIES, "absent"):
        x = selected.counts(judge="voters", category=category)
        y = alone.counts(judge="voters", category=category)
        assert isinstance(x.instructions, Names) == compact
        _same(x, y)
    assert alone.kept(("cell_categories", "voters")) is None  # no judge counts read there


def test_a_copy_of_a_loaded_table_reads_its_counts_the_same_way(tmp_path):
    path = _arena(tmp_path, several_pairs=False)
    loaded = VerdictStore().load_file(path)
    copy = VerdictStore()
    copy.load(loaded)
    assert copy._unique_keys
    fresh = VerdictStore().load_file(path).store
    _same(copy.counts(judge="voters", category="maths"), fresh.counts(judge="voters", category="maths"))


@pytest.mark.parametrize("several_pairs", [False, True])  # the chi-squared reference; permutations
def test_the_category_test_is_the_same_from_selected_cells(tmp_path, several_pairs):
    path = _arena(tmp_path, several_pairs=several_pairs)
    selected = VerdictStore().load_file(path).store
    alone = VerdictStore().load_file(path).store
    # every category read on its own first (the judge's counts after): the old path
    for category in alone.categories():
        alone.counts(judge="voters", category=category)
    assert alone.kept(("cell_categories", "voters")) is None
    x, y = store_heterogeneity(selected, judge="voters"), store_heterogeneity(alone, judge="voters")
    assert x.categories == y.categories and x.df == y.df and x.notes == y.notes
    assert x.statistic == pytest.approx(y.statistic, abs=1e-9) and x.p_value == pytest.approx(
        y.p_value, abs=1e-12
    )
    pd.testing.assert_frame_equal(x.ratings, y.ratings, rtol=0, atol=1e-9)


@pytest.mark.parametrize("several_pairs", [False, True])
def test_a_table_checked_row_by_row_reads_single_calls_as_a_typed_load_does(tmp_path, several_pairs):
    """A battle table in the arena's own format takes the checking path; when every battle is its
    own prompt its counts are read without grouping and equal the grouped read's; with a prompt of
    several battles they are grouped."""
    frame = pd.read_parquet(_arena(tmp_path, several_pairs=several_pairs))
    winner = frame["verdict"].map({1: "model_a", -1: "model_b", 0: "tie"})
    native = frame.rename(columns={"instruction_id": "question_id"}).assign(winner=winner)
    path = tmp_path / "battles.json"
    native.drop(columns=["judge", "verdict"]).to_json(path, orient="records")
    loaded = VerdictStore().load_file(str(path))
    assert "arena" in loaded.format.lower()
    assert loaded.report.single_calls != several_pairs
    fast = loaded.store
    assert fast._unique_keys != several_pairs
    grouped = VerdictStore().load_file(str(path)).store
    grouped._unique_keys = False  # the grouping read, as before
    judge = fast.judges()[0]
    _same(fast.counts(judge=judge), grouped.counts(judge=judge))
    _same(fast.counts(judge=judge, category="maths"), grouped.counts(judge=judge, category="maths"))
    assert fast.counts(judge=judge).n.sum() == len(frame)


def test_a_counts_table_whose_rows_weigh_several_calls_is_grouped(tmp_path):
    path = tmp_path / "counts.csv"
    path.write_text("instruction_id,model_a,model_b,verdict,judge,n_calls\np1,a,b,1,j,2\np2,a,c,0,j,1\n")
    loaded = VerdictStore().load_file(str(path))
    assert not loaded.report.single_calls and not loaded.store._unique_keys
    assert loaded.store.counts(judge="j").n.sum() == 3


def test_names_selected_are_taken_when_first_read():
    import pyarrow as pa

    names = Names(pa.chunked_array([["q1", "q2"], ["q3", "q4"]]))
    picked = names.select(np.array([0, 3]))
    assert len(picked) == 2 and picked == ("q1", "q4") and picked[1] == "q4"
    assert names.select(np.array([], dtype=np.int64)) == ()
