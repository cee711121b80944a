"""Saved datasets: a workspace DuckDB file that keeps uploaded verdict tables across restarts.

The workspace is one DuckDB file (``$VERDICTLAB_WORKSPACE``, else
``./workspace/verdictlab.duckdb``). DuckDB lets one process write a database file, so the design
is one server process with many sessions (threads): every operation opens a short-lived
connection under a process-wide lock per file, and every save or delete is one transaction, so a
failed save leaves nothing half-written and two sessions saving at once both land. Dataset names
are user text and only ever reach SQL as bound parameters.

Tables: ``datasets`` (one row per saved dataset: name, source file, format, sizes, time),
``dataset_rows`` (the canonical verdict frame of :mod:`evalcore.schema`, keyed by dataset name)
and ``dataset_rankings`` (an optional human ranking: model, score).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pandas as pd

from evalcore.io import LoadedTable
from evalcore.schema import CANONICAL_COLUMNS, inspect_verdicts

#: The environment variable naming the workspace file.
ENV_VAR = "VERDICTLAB_WORKSPACE"
#: Longest accepted dataset name (characters).
MAX_NAME = 120

_TEXT = ("instruction_id", "model_a", "model_b", "judge", "category")
_LEVELS = ("verdict", "human")
_LENGTHS = ("length_a", "length_b")

_SCHEMA = (
    """
    CREATE TABLE IF NOT EXISTS datasets (
        name VARCHAR PRIMARY KEY, file VARCHAR, format VARCHAR, rows BIGINT, models INTEGER,
        judges INTEGER, instructions INTEGER, saved_at TIMESTAMP)  -- UTC
    """,
    """
    CREATE TABLE IF NOT EXISTS dataset_rows (
        dataset VARCHAR, "row" BIGINT, instruction_id VARCHAR, model_a VARCHAR, model_b VARCHAR,
        verdict TINYINT, judge VARCHAR, human TINYINT, length_a DOUBLE, length_b DOUBLE,
        category VARCHAR)
    """,
    "CREATE TABLE IF NOT EXISTS dataset_rankings (dataset VARCHAR, model VARCHAR, score DOUBLE)",
)

_LOCKS: dict[Path, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


class WorkspaceError(ValueError):
    """A workspace operation that cannot be done, in words a user can act on."""


class UnknownDataset(WorkspaceError):
    """No saved dataset has this name."""


@dataclass(frozen=True)
class SavedDataset:
    """One saved dataset as listed: its name, where it came from and its size."""

    name: str
    file: str
    format: str
    rows: int
    models: int
    judges: int
    instructions: int
    saved_at: datetime

    def as_dict(self) -> dict:
        return {"name": self.name, "file": self.file, "format": self.format, "rows": self.rows,
                "models": self.models, "judges": self.judges, "instructions": self.instructions,
                "saved_at": self.saved_at.isoformat()}


@dataclass(frozen=True)
class LoadedDataset:
    """A saved dataset read back: the table (as an upload gives it) and its human ranking."""

    table: LoadedTable
    human_ranking: pd.DataFrame | None


def default_path() -> Path:
    """``$VERDICTLAB_WORKSPACE`` if set, else ``./workspace/verdictlab.duckdb``."""
    env = os.environ.get(ENV_VAR, "").strip()
    return Path(env) if env else Path("workspace") / "verdictlab.duckdb"


def check_name(name: object) -> str:
    """The dataset name with surrounding spaces removed; raise :class:`WorkspaceError` if unusable.

    Any printable text is allowed (quotes and SQL included: names are bound parameters).
    """
    if not isinstance(name, str) or not name.strip():
        raise WorkspaceError("The dataset name is empty: type a name to save the dataset under.")
    name = name.strip()
    if len(name) > MAX_NAME:
        raise WorkspaceError(f"The dataset name is {len(name)} characters long; use at most "
                             f"{MAX_NAME}.")
    if any(not ch.isprintable() for ch in name):
        raise WorkspaceError("The dataset name contains a control character (such as a line "
                             "break or tab); use printable characters only.")
    return name


def _lock_for(path: Path) -> threading.Lock:
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(path, threading.Lock())


class Workspace:
    """The saved datasets in one DuckDB file, safe to use from many threads of one process."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else default_path()
        self._lock = _lock_for(self.path.resolve())

    @contextmanager
    def _connect(self) -> Iterator[duckdb.DuckDBPyConnection]:
        with self._lock:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                con = duckdb.connect(str(self.path))
            except (OSError, duckdb.Error) as exc:
                raise WorkspaceError(
                    f"The workspace file {self.path} cannot be opened ({exc}). Check that its "
                    f"folder is writable and that no other program has it open, or point "
                    f"{ENV_VAR} at another file.") from exc
            try:
                for statement in _SCHEMA:
                    con.execute(statement)
                yield con
            finally:
                con.close()

    # -- reading ---------------------------------------------------------------------------
    def names(self) -> tuple[str, ...]:
        with self._connect() as con:
            return tuple(r[0] for r in con.execute("SELECT name FROM datasets ORDER BY name")
                         .fetchall())

    def exists(self, name: str) -> bool:
        with self._connect() as con:
            return con.execute("SELECT count(*) FROM datasets WHERE name = ?",
                               [name]).fetchone()[0] > 0

    def list(self) -> tuple[SavedDataset, ...]:
        """Every saved dataset, sorted by name."""
        with self._connect() as con:
            rows = con.execute(
                "SELECT name, file, format, rows, models, judges, instructions, saved_at"
                " FROM datasets ORDER BY name").fetchall()
        return tuple(SavedDataset(*r[:-1], saved_at=r[-1].replace(tzinfo=UTC)) for r in rows)

    def table(self) -> pd.DataFrame:
        """The saved datasets as a tidy frame (one row each), for a page's table and download."""
        columns = ["name", "file", "format", "rows", "models", "judges", "instructions", "saved_at"]
        frame = pd.DataFrame([vars(d) for d in self.list()], columns=columns)
        frame["saved_at"] = pd.to_datetime(frame["saved_at"], utc=True)
        return frame

    def load(self, name: str) -> LoadedDataset:
        """Read a saved dataset back as the canonical frame an upload produces."""
        with self._connect() as con:
            meta = con.execute("SELECT file, format FROM datasets WHERE name = ?", [name]).fetchone()
            if meta is None:
                raise UnknownDataset(f"There is no saved dataset named {name!r}. Pick one from the "
                                     "list of saved datasets on the Data page.")
            columns = ", ".join(f'"{c}"' for c in CANONICAL_COLUMNS)
            frame = con.execute(f'SELECT {columns} FROM dataset_rows WHERE dataset = ? ORDER BY "row"',
                                [name]).df()
            ranking = con.execute("SELECT model, score FROM dataset_rankings WHERE dataset = ?"
                                  " ORDER BY score DESC, model", [name]).df()
        frame = _canonical_dtypes(frame)
        table = LoadedTable(frame=frame, file=meta[0], format=meta[1], report=inspect_verdicts(frame))
        human = None
        if len(ranking):
            ranking["model"] = ranking["model"].astype("string")
            human = ranking
        return LoadedDataset(table=table, human_ranking=human)

    # -- writing ---------------------------------------------------------------------------
    def save(self, name: str, table: LoadedTable | pd.DataFrame, *, file: str | None = None,
             format: str | None = None, human_ranking: pd.DataFrame | None = None,
             replace: bool = False) -> SavedDataset:
        """Save a canonical verdict table under ``name`` in one transaction.

        Raise :class:`WorkspaceError` if the name is unusable, or taken and ``replace`` is False.
        A save that fails part-way is rolled back: the workspace is as it was before.
        """
        name = check_name(name)
        if isinstance(table, LoadedTable):
            frame, file, format = table.frame, file or table.file, format or table.format
        else:
            frame = table
        frame = frame[list(CANONICAL_COLUMNS)]
        if len(frame) == 0:
            raise WorkspaceError("There is nothing to save: the table has no rows.")
        file = file or name
        format = format or "verdict table"
        saved_at = datetime.now(UTC)
        ranking = None
        if human_ranking is not None and len(human_ranking):
            ranking = pd.DataFrame({"model": human_ranking["model"].astype(str),
                                    "score": human_ranking["score"].astype(float)})
        with self._connect() as con:
            con.execute("BEGIN TRANSACTION")
            try:
                taken = con.execute("SELECT count(*) FROM datasets WHERE name = ?",
                                    [name]).fetchone()[0]
                if taken and not replace:
                    raise WorkspaceError(f"A dataset named {name!r} is already saved. Choose "
                                         "another name, or choose to replace it.")
                _delete(con, name)
                con.register("incoming", frame)
                con.execute("INSERT INTO dataset_rows SELECT ?, * FROM incoming", [name])
                con.unregister("incoming")
                if ranking is not None:
                    con.register("incoming_ranking", ranking)
                    con.execute("INSERT INTO dataset_rankings SELECT ?, model, score"
                                " FROM incoming_ranking", [name])
                    con.unregister("incoming_ranking")
                sizes = con.execute(
                    "SELECT count(*), count(DISTINCT judge), count(DISTINCT instruction_id)"
                    " FROM dataset_rows WHERE dataset = ?", [name]).fetchone()
                models = con.execute(
                    "SELECT count(*) FROM (SELECT model_a FROM dataset_rows WHERE dataset = ?"
                    " UNION SELECT model_b FROM dataset_rows WHERE dataset = ?)",
                    [name, name]).fetchone()[0]
                con.execute("INSERT INTO datasets VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                            [name, file, format, sizes[0], models, sizes[1], sizes[2],
                             saved_at.replace(tzinfo=None)])
                con.execute("COMMIT")
            except BaseException:
                con.execute("ROLLBACK")
                raise
        return SavedDataset(name=name, file=file, format=format, rows=int(sizes[0]),
                            models=int(models), judges=int(sizes[1]), instructions=int(sizes[2]),
                            saved_at=saved_at)

    def delete(self, name: str) -> bool:
        """Delete a saved dataset; False if there was none by that name."""
        with self._connect() as con:
            con.execute("BEGIN TRANSACTION")
            try:
                found = con.execute("SELECT count(*) FROM datasets WHERE name = ?",
                                    [name]).fetchone()[0] > 0
                _delete(con, name)
                con.execute("COMMIT")
            except BaseException:
                con.execute("ROLLBACK")
                raise
        return found


def _delete(con: duckdb.DuckDBPyConnection, name: str) -> None:
    for table in ("dataset_rows", "dataset_rankings"):
        con.execute(f"DELETE FROM {table} WHERE dataset = ?", [name])
    con.execute("DELETE FROM datasets WHERE name = ?", [name])


def _canonical_dtypes(frame: pd.DataFrame) -> pd.DataFrame:
    """Give a frame read from DuckDB the dtypes of :func:`evalcore.schema.validate_verdicts`."""
    out = frame.copy()
    out["row"] = out["row"].astype("int64")
    for column in _TEXT:
        out[column] = out[column].astype("string")
    for column in _LEVELS:
        out[column] = out[column].astype("Int8")
    for column in _LENGTHS:
        out[column] = out[column].astype("float64")
    return out.reset_index(drop=True)
