"""Compact instruction names (an arena's 1.8 M prompt ids kept in Arrow, not as Python strings):
they read as the tuple they replace, and every result is the same with them as without."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from evalcore.cli import main
from evalcore.names import Names
from evalcore.store.store import VerdictStore


def test_names_read_as_the_tuple_they_replace():
    plain = ("q1", "q2", "q3", "q4")
    names = Names(pa.chunked_array([["q1", "q2"], ["q3", "q4"]]))
    assert len(names) == 4 and names[1] == "q2" and names[-1] == "q4" and names[np.int64(2)] == "q3"
    assert names.take(np.array([3, 0])) == ("q4", "q1")
    with pytest.raises(IndexError):
        names[4]
    assert names == plain and plain == names and list(names) == list(plain) and names[1:3] == ("q2", "q3")
    assert "q3" in names and names.index("q3") == 2 and hash(names) == hash(plain)
    assert names + ("q5",) == (*plain, "q5") and ("q0",) + names == ("q0", *plain)
    assert np.asarray(names).tolist() == list(plain) and np.asarray(names, dtype=object).dtype == object
    assert pd.Index(names).equals(pd.Index(plain))
    copied = pickle.loads(pickle.dumps(names))
    assert type(copied) is tuple and copied == plain


def test_a_selection_of_a_selection_composes_its_positions_and_takes_nothing():
    """One category's prompt ids, then its patterns' representatives: the positions compose (no
    Arrow take of the category's ids), and the names read as a selection of the tuple would."""
    source = pa.array([f"q{k}" for k in range(10)])
    category = Names(source).select(np.array([9, 7, 5, 3, 1]))
    chosen = category.select(np.array([4, 0, 0, 2]))
    assert chosen._source is source  # composed over the table's ids, not over a taken copy
    assert chosen == ("q1", "q9", "q9", "q5") and len(chosen) == 4
    assert category == ("q9", "q7", "q5", "q3", "q1")  # the category itself still reads whole
    read = Names(source).select(np.array([2, 3]))
    assert read[0] == "q2" and tuple(read) == ("q2", "q3")  # read once: later selections take from it
    assert read.select(np.array([1])) == ("q3",)


def _shapes(tmp_path):
    rng = np.random.default_rng(7)
    arena = pd.DataFrame(
        {
            "instruction_id": [f"p{k:05d}" for k in rng.permutation(600)],
            "model_a": rng.choice(["m1", "m2", "m3", "m4"], 600),
            "model_b": rng.choice(["m5", "m6", "m2"], 600),
            "verdict": rng.choice([-1, 0, 1], 600),
        }
    )
    arena = arena[arena.model_a != arena.model_b]
    models = ["a", "b", "c", "d"]
    pairs = [(x, y) for x in models for y in models if x != y]
    all_pairs = pd.DataFrame(
        [
            (f"q{i}", x, y, j, int(rng.integers(-2, 3)))
            for i in range(40)
            for x, y in pairs
            for j in ("j1", "j2")
        ],
        columns=["instruction_id", "model_a", "model_b", "judge", "verdict"],
    )
    anchor = pd.DataFrame(
        [(f"q{i}", x, "ref", int(rng.integers(-1, 2))) for i in range(80) for x in models],
        columns=["instruction_id", "model_a", "model_b", "verdict"],
    )
    out = {}
    for name, frame in {"arena": arena, "all_pairs": all_pairs, "anchor": anchor}.items():
        path = tmp_path / f"{name}.parquet"
        frame.to_parquet(path)
        out[name] = path
    return out


@pytest.mark.parametrize("shape", ["arena", "all_pairs", "anchor"])
def test_rank_is_the_same_with_compact_names(shape, tmp_path, capsys, monkeypatch):
    path = _shapes(tmp_path)[shape]
    args = ["rank", str(path), "--bootstrap", "50", "--json"] + (
        ["--judge", "j1"] if shape == "all_pairs" else []
    )
    for interval in ("bootstrap", "sandwich"):
        assert main([*args, "--interval", interval]) == 0  # small tables: names as a tuple
        plain = json.loads(capsys.readouterr().out)
        monkeypatch.setattr("evalcore.store.store.COMPACT_NAMES_FROM", 0)
        assert main([*args, "--interval", interval]) == 0
        compact = json.loads(capsys.readouterr().out)
        monkeypatch.undo()
        assert compact == plain
    store = VerdictStore()
    store.load_file(path)
    monkeypatch.setattr("evalcore.store.store.COMPACT_NAMES_FROM", 0)
    counts = store.counts(judge="j1" if shape == "all_pairs" else None)
    assert isinstance(counts.instructions, Names)
    assert counts.instructions == tuple(sorted(set(pd.read_parquet(path)["instruction_id"])))
    reps, _ = counts.pattern_counts()  # a subset takes the names it keeps, without the others
    assert set(reps.instructions) <= set(counts.instructions)


def test_instruction_changes_read_off_hashes_are_exact(monkeypatch):
    """The change points of a sorted id column come from the ids' hashes; equal neighbouring
    hashes are compared as strings (one by one, or as whole columns when many), so a hash
    collision can never merge two instructions."""
    from evalcore.store import store as store_module

    ids = pa.chunked_array([["a", "a", "b"], ["c", "c", "c", "d"]])
    truth = np.array([True, False, True, True, False, False, True])
    honest = np.array([1, 1, 2, 3, 3, 3, 4], dtype=np.uint64)
    assert store_module._changes(ids, honest).tolist() == truth.tolist()
    colliding = np.zeros(7, dtype=np.uint64)  # every hash the same: only the strings decide
    assert store_module._changes(ids, colliding).tolist() == truth.tolist()
    monkeypatch.setattr(store_module, "_FEW_EQUAL_HASHES", 0)  # many equal hashes: whole columns
    assert store_module._changes(ids, colliding).tolist() == truth.tolist()
    assert store_module._changes(pa.chunked_array([["x"]]), np.zeros(1, dtype=np.uint64)).tolist() == [True]


def test_arrow_integers_read_from_their_buffers():
    """Integer columns (several chunks, a slice's offset) read as numpy without pyarrow's
    converter, value for value."""
    from evalcore.store.store import _numbers

    column = pa.chunked_array([pa.array([5, 6, 7, 8], pa.int32()).slice(1), pa.array([9], pa.int32())])
    assert _numbers(column).tolist() == [6, 7, 8, 9] and _numbers(column).dtype == np.int32
    with_missing = pa.chunked_array([pa.array([1, None], pa.int8())])
    assert np.isnan(_numbers(with_missing)[1])


def test_counts_the_same_whichever_way_changes_are_found(tmp_path, monkeypatch):
    """Many instructions with several cells each (all pairs): the counts are the same read as a
    tuple, through hashes compared one by one, and through hashes compared as columns."""
    path = _shapes(tmp_path)["all_pairs"]
    plain = VerdictStore()
    plain.load_file(path)
    expected = plain.counts(judge="j1")
    for few in (10_000, 0):
        monkeypatch.setattr("evalcore.store.store.COMPACT_NAMES_FROM", 0)
        monkeypatch.setattr("evalcore.store.store._FEW_EQUAL_HASHES", few)
        store = VerdictStore()
        store.load_file(path)
        got = store.counts(judge="j1")
        assert isinstance(got.instructions, Names) and got.instructions == expected.instructions
        for field in ("inst", "a", "b", "n"):
            assert np.array_equal(getattr(got, field), getattr(expected, field)), field
        assert got.models == expected.models


def test_tie_structure_table_is_the_same_with_compact_names():
    from dataclasses import replace

    from evalcore.ties import verdict_tie_structure

    rng = np.random.default_rng(5)
    k = 300
    plain = _one_call_counts(rng, k)
    compact = replace(plain, instructions=Names(pa.chunked_array([list(plain.instructions)])), _cache={})
    x, y = verdict_tie_structure(plain), verdict_tie_structure(compact)
    pd.testing.assert_frame_equal(x.per_instruction, y.per_instruction)
    picked = replace(
        plain, instructions=Names(pa.array(["z", *plain.instructions])).select(np.arange(1, k + 1))
    )
    pd.testing.assert_frame_equal(x.per_instruction, verdict_tie_structure(picked).per_instruction)


def _one_call_counts(rng, k):
    from evalcore.counts import VerdictCounts

    a = rng.integers(0, 4, k)
    return VerdictCounts.from_cells(
        models=("m0", "m1", "m2", "m3"),
        instructions=tuple(f"p{i:04d}" for i in range(k)),
        judge="j",
        inst=np.arange(k),
        a=a,
        b=(a + rng.integers(1, 4, k)) % 4,
        n=np.eye(5, dtype=np.int64)[rng.integers(0, 5, k)],
    )
