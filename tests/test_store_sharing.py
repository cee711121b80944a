"""A store's table shared with other stores without copying its rows (VerdictStore.share): every
new session's store loads the server's demo this way. Each borrower still behaves as a store of
its own: its loads, failed loads and closing never reach the lender or another borrower."""

from __future__ import annotations

import os
import threading

import numpy as np
import pandas as pd
import pytest

from evalcore.schema import VerdictFormatError
from evalcore.simulate.tables import SimulationSpec, simulate
from evalcore.store.store import VerdictStore

UPLOAD = b"instruction_id,model_a,model_b,verdict\nq1,x,y,1\nq1,y,x,-1\n"


def _tables(store: VerdictStore) -> list[str]:
    """The base tables in the store's own database (a borrowed table is a view, not among them)."""
    return [
        r[0]
        for r in store.con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE NOT temporary AND database_name = current_database()"
        ).fetchall()
    ]


def _rows(store: VerdictStore) -> int:
    return store.con.execute("SELECT count(*) FROM verdicts").fetchone()[0]


@pytest.fixture()
def lent(tmp_path):
    path = tmp_path / "lent.csv"
    frame = simulate(SimulationSpec(n_models=4, n_instructions=12, model_names=("p", "q", "r", "s"))).verdicts
    frame.to_csv(path, index=False)
    source = VerdictStore()
    table = source.load_file(path)
    source.share()
    yield table, path
    source.close()


def test_a_store_loading_a_shared_table_copies_no_row(lent):
    """Before, every session inserted the demo's 342,000 rows into its own database."""
    table, path = lent
    store = VerdictStore()
    store.load(table)
    assert store.shares_rows
    assert "verdicts" not in _tables(store)  # no table of rows of its own: a view of the shared one
    assert store.name == "lent.csv" and store.format == table.format
    # what it reads equals what a store reading the file itself holds
    alone = VerdictStore()
    alone.load_file(path)
    pd.testing.assert_frame_equal(store.frame(), alone.frame())
    got, want = store.counts(judge="sim-judge"), alone.counts(judge="sim-judge")
    assert got.models == want.models and got.instructions == want.instructions
    for name in ("inst", "a", "b", "n"):
        np.testing.assert_array_equal(getattr(got, name), getattr(want, name))
    for s in (store, alone):
        s.close()


def test_a_borrowers_own_load_leaves_the_lender_and_other_borrowers_alone(lent):
    table, _ = lent
    first, second = VerdictStore(), VerdictStore()
    first.load(table)
    second.load(table)
    before = _rows(second)
    first.load_bytes(UPLOAD, name="mine.csv")
    assert not first.shares_rows and _rows(first) == 2 and first.models() == ("x", "y")
    assert "verdicts" in _tables(first)  # its own table now, and the shared file detached
    attached = [r[0] for r in first.con.execute("SELECT database_name FROM duckdb_databases()").fetchall()]
    assert not any(name.startswith("vl_shared_") for name in attached)
    assert second.shares_rows and _rows(second) == before and second.name == "lent.csv"
    assert _rows(table.store) == before and table.store.name == "lent.csv"
    # a frame loaded after the borrowed table replaces it the same way
    second.load(simulate(SimulationSpec(n_models=2, n_instructions=3, model_names=("u", "v"))).verdicts)
    assert not second.shares_rows and second.models() == ("u", "v")
    assert _rows(table.store) == before
    for s in (first, second):
        s.close()


def test_a_refused_file_leaves_the_borrowed_table_loaded(lent):
    table, _ = lent
    store = VerdictStore()
    store.load(table)
    before = _rows(store)
    with pytest.raises(VerdictFormatError):
        store.load_bytes(b"instruction_id,model_a,model_b,verdict\nq,a,b,maybe\n", name="bad.csv")
    assert store.shares_rows and _rows(store) == before and store.name == "lent.csv"
    assert store.counts(judge="sim-judge").models == ("p", "q", "r", "s")
    # and back from an upload to the shared table: a view again
    store.load_bytes(UPLOAD, name="mine.csv")
    store.load(table)
    assert store.shares_rows and _rows(store) == before
    store.close()


def test_a_borrower_keeps_its_rows_when_the_lender_moves_on_or_closes(tmp_path):
    frame = simulate(SimulationSpec(n_models=3, n_instructions=6, model_names=("p", "q", "r"))).verdicts
    source = VerdictStore()
    source.load(frame, name="old")
    table_path = tmp_path / "old.csv"
    frame.to_csv(table_path, index=False)
    table = source.load_file(table_path)
    source.share()
    file = source._lent.path
    early = VerdictStore()
    early.load(table)
    n = _rows(early)
    source.load(simulate(SimulationSpec(n_models=2, n_instructions=3, model_names=("u", "v"))).verdicts)
    assert not os.path.exists(file)  # a new table: the old one is shared no longer
    late = VerdictStore()
    late.load(table)  # the lender's table now: copied (not shared)
    assert not late.shares_rows and late.models() == ("u", "v")
    assert early.models() == ("p", "q", "r") and _rows(early) == n
    source.close()
    assert early.frame()["model_a"].nunique() == 3  # read from the file it attached
    for s in (early, late):
        s.close()


def test_borrowers_read_at_once_from_several_threads(lent):
    table, path = lent
    stores = [VerdictStore() for _ in range(4)]
    for store in stores:
        store.load(table)
    alone = VerdictStore()
    alone.load_file(path)
    want = alone.frame()
    got: list = [None] * len(stores)

    def read(k: int) -> None:
        cur = stores[k].con.cursor()  # a thread's own cursor, as the pages use
        got[k] = cur.execute('SELECT * EXCLUDE (weight) FROM verdicts ORDER BY "row"').df()
        cur.close()

    threads = [threading.Thread(target=read, args=(k,)) for k in range(len(stores))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for frame in got:
        pd.testing.assert_frame_equal(frame, want)
    for s in (*stores, alone):
        s.close()


def test_sharing_is_written_once_per_loaded_table(lent):
    table, _ = lent
    first = table.store._lent
    table.store.share()
    assert table.store._lent is first
