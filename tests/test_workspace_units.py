"""A saved dataset keeps its unit columns (session, voter, run), and a workspace written before
they existed gains them, empty, without losing what it holds."""

from __future__ import annotations

from pathlib import Path

import duckdb

from evalcore.simulate.sessions import SessionSpec, session_frame
from evalcore.store.store import VerdictStore
from evalcore.store.workspace import Workspace


def test_a_saved_dataset_keeps_its_sessions(tmp_path: Path) -> None:
    source = VerdictStore.from_frame(session_frame(SessionSpec(sessions=20), seed=1))
    ws = Workspace(tmp_path / "ws.duckdb")
    ws.save("sessions", source.frame(), text=source.text_rows())
    back = ws.load("sessions")
    store = VerdictStore()
    store.load(back.table)
    assert store.unit_columns() == ("session",)
    assert store.counts(cluster="session").n_units == 20


def test_an_older_workspace_gains_the_unit_columns(tmp_path: Path) -> None:
    path = tmp_path / "old.duckdb"
    old_text = ("prompt", "response_a", "response_b", "judge_output", "call_id", "judged_at")
    con = duckdb.connect(str(path))
    con.execute(
        'CREATE TABLE dataset_text (dataset VARCHAR, version INTEGER, "row" BIGINT, '
        + ", ".join(f"{c} VARCHAR" for c in old_text)
        + ")"
    )
    con.close()
    ws = Workspace(path)
    source = VerdictStore.from_frame(session_frame(SessionSpec(sessions=10), seed=2))
    ws.save("after", source.frame(), text=source.text_rows())
    store = VerdictStore()
    store.load(ws.load("after").table)
    assert store.unit_columns() == ("session",)
