"""The DuckDB store: aggregation equals a pandas recount, design detection, isolation, atomic loads."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalcore.schema import LEVELS, VerdictFormatError
from evalcore.simulate.tables import JudgeSpec, SimulationSpec, simulate
from evalcore.store.store import VerdictStore, read_verdicts


def test_counts_match_an_independent_pandas_recount(small_sim, small_store):
    counts = small_store.counts(judge="j2", category="x")
    rows = small_sim.verdicts
    rows = rows[(rows.judge == "j2") & (rows.category == "x") & rows.verdict.notna()]
    assert counts.counts.sum() == len(rows)
    expected = rows.groupby(["instruction_id", "model_a", "model_b", "verdict"]).size()
    for (inst, a, b, v), n in expected.sample(50, random_state=1).items():
        k = LEVELS.index(int(v))
        i = counts.instructions.index(inst)
        assert counts.counts[i, counts.index(a), counts.index(b), k] == n


def test_no_verdict_and_self_pairs_stay_out_of_counts():
    frame = pd.DataFrame(
        {
            "instruction_id": ["1", "1", "1"],
            "model_a": ["a", "a", "b"],
            "model_b": ["b", "a", "a"],
            "verdict": ["1", "0", ""],
        }
    )
    store = VerdictStore()
    store.load(read_verdicts(frame.to_csv(index=False).encode(), name="t.csv"))
    c = store.counts()
    assert c.models == ("a", "b") and c.counts.sum() == 1
    s = store.summary()
    assert s.self_comparison_rows == 1
    assert s.no_verdict["no_verdict"].tolist() == [1]


def test_summary_of_an_all_pairs_both_orders_table(small_store):
    s = small_store.summary()
    assert s.design == "all pairs" and s.anchor is None
    assert s.pairs_judged == s.pairs_possible == 15
    assert s.orders == "both orders"
    assert s.judges == ("j1", "j2") and s.categories == ("x", "y")
    assert s.labelled_rows > 0
    assert s.pair_coverage["calls"].sum() == 2 * s.rows  # each pair listed in both directions


def test_summary_detects_anchor_only_single_order():
    sim = simulate(
        SimulationSpec(
            n_models=5, n_instructions=30, design="anchor", anchor="sim-cedar", both_orders=False, seed=3
        )
    )
    store = VerdictStore()
    store.load(sim.verdicts)
    s = store.summary()
    assert (s.design, s.anchor) == ("anchor-only", "sim-cedar")
    assert s.orders == "single order"


def test_partial_design():
    frame = pd.DataFrame(
        {"instruction_id": ["1", "1"], "model_a": ["a", "c"], "model_b": ["b", "d"], "verdict": [1, 1]}
    )
    store = VerdictStore()
    store.load(read_verdicts(frame.to_csv(index=False).encode(), name="p.csv"))
    assert store.summary().design == "partial"


def test_names_with_sql_text_are_bound_not_pasted():
    evil = "j'); DROP TABLE verdicts; --"
    frame = pd.DataFrame(
        {
            "instruction_id": ["1", "2"],
            "model_a": ["x'y", "b"],
            "model_b": ["b", "x'y"],
            "verdict": [1, -1],
            "judge": [evil, evil],
            "category": [evil, evil],
        }
    )
    store = VerdictStore()
    store.load(read_verdicts(frame.to_csv(index=False).encode(), name="evil.csv"))
    assert store.judges() == (evil,)
    c = store.counts(judge=evil, category=evil)
    assert c.models == ("b", "x'y") and c.counts.sum() == 2
    assert store.counts(judge="other").counts.sum() == 0


def test_failed_load_keeps_the_previous_table(small_store):
    before = small_store.summary().rows
    with pytest.raises(VerdictFormatError):
        small_store.load(
            read_verdicts(b"instruction_id,model_a,model_b,verdict\n1,a,b,zzz\n", name="bad.csv")
        )
    assert small_store.summary().rows == before

    broken = small_store.frame().drop(columns=["row"])  # a frame missing a canonical column
    with pytest.raises(KeyError):
        small_store.load(broken)
    assert small_store.summary().rows == before


def test_two_stores_never_see_each_other():
    one, two = VerdictStore(), VerdictStore()
    one.load(simulate(SimulationSpec(n_models=3, n_instructions=5, model_names=("p", "q", "r"))).verdicts)
    two.load(simulate(SimulationSpec(n_models=3, n_instructions=5, model_names=("x", "y", "z"))).verdicts)
    assert one.models() == ("p", "q", "r") and two.models() == ("x", "y", "z")


def test_counts_and_names_are_read_once_per_loaded_table(tmp_path):
    """A page's sections and the findings ask for one judge's counts many times: the store reads
    them once per loaded table, and a load (a file, a frame or another store's table) starts
    afresh, so no answer outlives its table; a failed load keeps the table and its answers."""
    store = VerdictStore()
    store.load(simulate(SimulationSpec(n_models=3, n_instructions=5, model_names=("p", "q", "r"))).verdicts)
    first = store.counts(judge="sim-judge")
    assert store.counts(judge="sim-judge") is first  # the same object: not read again
    assert store.models() == ("p", "q", "r") and store.judges() == ("sim-judge",)
    with pytest.raises(VerdictFormatError):
        store.load(read_verdicts(b"instruction_id,model_a,model_b,verdict\n1,a,b,zzz\n", name="bad.csv"))
    assert store.counts(judge="sim-judge") is first and store.models() == ("p", "q", "r")

    other = simulate(SimulationSpec(n_models=3, n_instructions=7, model_names=("x", "y", "z"))).verdicts
    store.load(other)  # a frame
    fresh = store.counts(judge="sim-judge")
    assert fresh is not first and fresh.models == ("x", "y", "z") and len(fresh.instructions) == 7
    assert store.models() == ("x", "y", "z")

    path = tmp_path / "two.csv"
    other.assign(model_a=other["model_a"] + "2", model_b=other["model_b"] + "2").to_csv(path, index=False)
    store.load_file(path)  # a file read by this store
    assert store.models() == ("x2", "y2", "z2") and store.counts(judge="sim-judge").models == (
        "x2",
        "y2",
        "z2",
    )

    lent = tmp_path / "lent.csv"
    simulate(SimulationSpec(n_models=2, n_instructions=3, model_names=("u", "v"))).verdicts.to_csv(
        lent, index=False
    )
    store.load(VerdictStore().load_file(lent))  # another store's table (a session's demo copy)
    assert store.models() == ("u", "v") and store.counts(judge="sim-judge").models == ("u", "v")


def test_a_copy_of_another_stores_table_shares_what_is_read_once(tmp_path):
    """Every session copies the demo from one store: the counts and names read once per loaded
    table are the same for the copy, so copies and their source share them (read once per
    server, not once per session); the source's next load does not reach the copies."""
    path = tmp_path / "lent.csv"
    frame = simulate(SimulationSpec(n_models=3, n_instructions=6, model_names=("p", "q", "r"))).verdicts
    frame.to_csv(path, index=False)
    source = VerdictStore()
    table = source.load_file(path)
    copies = [VerdictStore(), VerdictStore()]
    copies[0].load(table)
    first = copies[0].counts(judge="sim-judge")
    copies[1].load(table)
    assert copies[1].counts(judge="sim-judge") is first and source.counts(judge="sim-judge") is first
    assert copies[1].models() is copies[0].models()
    # the numbers are the copy's own: a fresh store reading the same file gets equal counts
    alone = VerdictStore()
    alone.load_file(path)
    want = alone.counts(judge="sim-judge")
    assert first.models == want.models and first.instructions == want.instructions
    for name in ("inst", "a", "b", "n"):
        np.testing.assert_array_equal(getattr(first, name), getattr(want, name))

    source.load(simulate(SimulationSpec(n_models=2, n_instructions=3, model_names=("u", "v"))).verdicts)
    assert source.models() == ("u", "v")
    assert copies[0].models() == ("p", "q", "r") and copies[0].counts(judge="sim-judge") is first
    for store in (source, *copies, alone):
        store.close()


def test_subset_restricts_both_axes(small_store):
    c = small_store.counts(judge="j1")
    sub = c.subset(instructions=np.arange(5), models=np.array([0, 2]))
    assert sub.counts.shape == (5, 2, 2, 5)
    assert sub.models == (c.models[0], c.models[2])
    assert np.array_equal(sub.counts[:, 0, 1], c.counts[:5, 0, 2])


def test_pooled_judges_when_no_judge_given():
    sim = simulate(SimulationSpec(n_models=3, n_instructions=4, judges=(JudgeSpec("a"), JudgeSpec("b"))))
    store = VerdictStore()
    store.load(sim.verdicts)
    assert store.counts().counts.sum() == len(sim.verdicts)


def test_a_load_without_text_keeps_every_verdict_and_writes_no_text(tmp_path):
    # A command that only ranks reads the verdicts; the prompts and answers stay in the file.
    sim = simulate(SimulationSpec(n_models=4, n_instructions=10, judges=(JudgeSpec("j"),), seed=2, text=True))
    path = tmp_path / "t.parquet"
    sim.verdicts.to_parquet(path)
    with_text, without = VerdictStore(), VerdictStore()
    with_text.load_file(path)
    without.load_file(path, text=False)
    assert with_text.has_text and not without.has_text and without.text.folder is None
    pd.testing.assert_frame_equal(without.frame(), with_text.frame())
    assert without.verdicts().total == with_text.verdicts().total
    with_text.close()
    without.close()


def _partial_table() -> pd.DataFrame:
    """Two judges and two categories; model ``d`` is compared only by judge ``j1`` in category
    ``x``, ``e`` only in a row without a verdict and ``f`` only with itself."""
    rows = [
        ("q1", "a", "b", "j1", "x", "1"),
        ("q1", "a", "d", "j1", "x", "-1"),
        ("q2", "b", "c", "j1", "y", "0"),
        ("q1", "c", "a", "j2", "x", "2"),
        ("q2", "b", "a", "j2", "y", "-2"),
        ("q2", "e", "a", "j2", "y", ""),
        ("q3", "f", "f", "j2", "y", "0"),
        ("q3", "c", "b", "j2", "x", "1"),
    ]
    return pd.DataFrame(
        rows, columns=["instruction_id", "model_a", "model_b", "judge", "category", "verdict"]
    )


@pytest.mark.parametrize("compact", [False, True])
def test_counts_list_only_the_models_their_selection_compares(tmp_path, monkeypatch, compact):
    """A judge's or a category's counts list the models compared in that selection, as counts
    of a table holding only the selection's rows do (loaded on their own: the independent
    number), with the same cells; the table's other models stay out."""
    if compact:  # the large tables' path (ids kept in Arrow)
        monkeypatch.setattr("evalcore.store.store.COMPACT_NAMES_FROM", 0)
    frame = _partial_table()
    path = tmp_path / "partial.csv"
    frame.to_csv(path, index=False)
    store = VerdictStore()
    store.load_file(path)
    assert store.models() == ("a", "b", "c", "d", "e", "f")
    for judge, category, models in (
        ("j1", None, ("a", "b", "c", "d")),
        ("j2", None, ("a", "b", "c")),
        ("j1", "y", ("b", "c")),
        ("j2", "x", ("a", "b", "c")),
    ):
        got = store.counts(judge=judge, category=category)
        assert got.models == models, (judge, category)
        part = frame[(frame.judge == judge) & ((frame.category == category) if category else True)]
        alone_path = tmp_path / f"{judge}-{category}.csv"
        part[part.verdict.ne("") & part.model_a.ne(part.model_b)].to_csv(alone_path, index=False)
        alone = VerdictStore()
        alone.load_file(alone_path)
        expected = alone.counts(judge=judge)
        assert tuple(got.instructions) == tuple(expected.instructions)
        assert np.array_equal(got.counts, expected.counts), (judge, category)


def test_counts_take_the_models_from_the_load(tmp_path):
    """The load lists the table's models; a judge's counts index their cells on that list
    instead of scanning the table once more for the selection's models."""
    path = tmp_path / "partial.csv"
    _partial_table().to_csv(path, index=False)
    store = VerdictStore()
    store.load_file(path)
    seen: list[str] = []

    class Recording:
        def __init__(self, con):
            self._con = con

        def execute(self, sql, *args):
            seen.append(sql)
            return self._con.execute(sql, *args)

        def sql(self, sql, *args, **kwargs):
            seen.append(sql)
            return self._con.sql(sql, *args, **kwargs)

        def cursor(self):  # the store reads on cursors of its connection
            return Recording(self._con.cursor())

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self._con.close()

        def __getattr__(self, name):
            return getattr(self._con, name)

    store.con = Recording(store.con)
    assert store.counts(judge="j2").models == ("a", "b", "c")
    assert seen and not [sql for sql in seen if "DISTINCT model_a" in sql]


def test_compared_models_renumber_the_cells_in_order():
    """Hand-worked: of models p, q, r, s the cells compare q, s and p; r drops out and s
    becomes the third model; the renumbering keeps the cells' order."""
    from evalcore.store.store import _compared_models

    models, a, b = _compared_models(("p", "q", "r", "s"), np.array([1, 3, 0]), np.array([3, 0, 1]))
    assert models == ("p", "q", "s") and a.tolist() == [1, 2, 0] and b.tolist() == [2, 0, 1]
    every, a2, b2 = _compared_models(("p", "q"), np.array([0]), np.array([1]))
    assert every == ("p", "q") and a2.tolist() == [0] and b2.tolist() == [1]
    assert _compared_models(("p",), np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int32))[0] == ()
