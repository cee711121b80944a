"""Counts read within the table's memory (``VerdictStore.frugally``, what ``rank`` does): the
sort beyond the cap spills to the store's folder, the counts are the same as unbounded, and the
connection's cap comes back. A read the cap cannot hold runs again without it."""

from __future__ import annotations

import os

import duckdb
import numpy as np
import pandas as pd
import pytest

from evalcore.store.store import VerdictStore

MB = 2**20


def _arena(rows: int, *, seed: int = 3) -> VerdictStore:
    """An arena's shape: one battle per prompt, long prompt ids and model names, one judge."""
    rng = np.random.default_rng(seed)
    models = np.array([f"model-{k:03d}-with-a-long-name" for k in range(40)])
    a = rng.integers(0, 40, rows)
    b = (a + rng.integers(1, 40, rows)) % 40
    frame = pd.DataFrame(
        {
            "instruction_id": [
                f"prompt-{k:08d}-{v}"
                for k, v in zip(rng.permutation(rows), rng.integers(1e9, size=rows), strict=True)
            ],
            "model_a": models[a],
            "model_b": models[b],
            "verdict": rng.choice([-1, 0, 1], rows),
            "judge": "arena_user",
        }
    )
    return VerdictStore.from_frame(frame, name="arena")


def _cap(store: VerdictStore) -> str:
    return store.con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]


def _same(x, y) -> None:
    assert x.models == y.models and tuple(x.instructions) == tuple(y.instructions)
    for field in ("inst", "a", "b", "n"):
        np.testing.assert_array_equal(getattr(x, field), getattr(y, field))


def test_counts_read_within_the_tables_memory_spill_and_equal_the_unbounded_ones():
    store = _arena(300_000)  # about 44 MB in DuckDB
    before = _cap(store)
    plain = store.counts(judge="arena_user")
    store._kept.clear()  # read again, frugally
    inside: dict[str, object] = {}

    def read():
        counts = store.counts(judge="arena_user")
        inside["cap"] = _cap(store)
        inside["spilled"] = store.con.execute("SELECT path FROM duckdb_temporary_files()").fetchall()
        return counts

    frugal = store.frugally(read, work_bytes=8 * MB, from_bytes=MB)
    _same(frugal, plain)
    assert inside["cap"].endswith("MiB") and float(inside["cap"].split()[0]) < 60  # the table + 8 MB
    folder = store.text.folder
    assert folder is not None and inside["spilled"]
    assert all(path.startswith(folder) for (path,) in inside["spilled"])  # never the working folder
    assert _cap(store) == before
    store.close()
    assert not os.path.exists(folder)  # the spill went with the store


def test_a_read_the_cap_cannot_hold_runs_again_without_it():
    store = _arena(120_000)
    before = _cap(store)
    caps: list[str] = []

    def read():
        caps.append(_cap(store))
        if len(caps) == 1:
            raise duckdb.OutOfMemoryException("could not allocate")  # as a sort that cannot spill
        return store.counts(judge="arena_user")

    counts = store.frugally(read, work_bytes=8 * MB, from_bytes=MB)
    assert caps[0] != before and caps[1] == before and counts.n_cells > 0
    assert _cap(store) == before


def test_another_error_is_not_retried_and_the_cap_comes_back():
    store = _arena(120_000)
    before = _cap(store)
    calls = []

    def read():
        calls.append(1)
        raise duckdb.BinderException("no such column")

    with pytest.raises(duckdb.BinderException):
        store.frugally(read, work_bytes=8 * MB, from_bytes=MB)
    assert len(calls) == 1 and _cap(store) == before


def test_a_small_table_is_read_as_it_is():
    store = _arena(2_000)
    before = _cap(store)
    caps = []
    store.frugally(lambda: caps.append(_cap(store)))
    assert caps == [before] and store.text.folder is None  # no folder made, no cap set


def test_a_sessions_own_cap_comes_back():
    store = _arena(120_000)
    store.limit_memory(500 * MB)
    before = _cap(store)
    store.frugally(lambda: store.counts(judge="arena_user"), work_bytes=8 * MB, from_bytes=MB)
    after = _cap(store)
    # DuckDB words a cap to a tenth of its unit, and reads those words back
    assert (
        before.endswith(" MiB")
        and after.endswith(" MiB")
        and abs(float(after[:-4]) - float(before[:-4])) < 0.11
    )
