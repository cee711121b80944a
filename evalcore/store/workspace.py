"""Saved datasets: a workspace DuckDB file that keeps uploaded verdict tables across restarts.

The workspace is one DuckDB file (``$VERDICTLAB_WORKSPACE``, else
``./workspace/verdictlab.duckdb``). DuckDB lets one process write a database file, so the design
is one server process with many sessions (threads): every operation opens a short-lived
connection under a process-wide lock per file, and every save or delete is one transaction, so a
failed save leaves nothing half-written and two sessions saving at once both land. Dataset names
are user text and only ever reach SQL as bound parameters.

Nothing is lost silently. Every save of a name gets the next version number; replacing (or
deleting) a dataset moves its current version into ``dataset_history``, from where
:meth:`Workspace.restore` brings it back (the newest :data:`KEEP_VERSIONS` earlier versions of each
name are kept). :meth:`Workspace.save` says what it replaced (``SavedDataset.replaced``), and a
caller that read version ``n`` passes ``expected_version=n``: if another session replaced the
dataset meanwhile, the save is refused with :class:`ConcurrentChange` instead of overwriting it.
Names starting with ``demo-`` are reserved for the built-in demos (a link ``?dataset=demo-…``
always means the demo).

**Space is given back.** DuckDB reuses the blocks of deleted rows but never makes its file
smaller. After a save or delete that left at least :data:`RECLAIM_FRACTION` of the file free (and
at least :data:`RECLAIM_MIN_BYTES`), the live data is copied into a fresh file beside it
(``<file>.compact``) and that file atomically replaces the old one, under the same lock as every
other operation. A kill at any moment leaves either the old file or the new one whole (a left-over
``.compact`` file is removed on the next open). ``delete(name, forever=True)`` removes a dataset
with its earlier versions (not restorable) and so gives its space back; a plain delete keeps
the dataset restorable, and its rows, in the history.

Tables: ``datasets`` (one row per saved dataset: name, source file, format, sizes, time, version),
``dataset_history`` (the same for earlier versions, with the time each was replaced),
``dataset_rows``, ``dataset_features`` and ``dataset_text`` (the canonical verdict frame of
:mod:`evalcore.schema`, its ``feat_`` columns and its text, keyed by dataset name and version:
:mod:`evalcore.store.rows`) and ``dataset_rankings`` (an optional human ranking: model,
score).

Why this module is longer than 500 lines: the file's invariants (one writer under a lock,
versions and history, compaction into a fresh file renamed in place, recovery of a compaction cut
short) hold only together, so they live in one module.
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

from evalcore._sql import one_row, sql_literal
from evalcore.errors import EvalcoreError
from evalcore.features import spelled_feature_columns
from evalcore.ingest.files import LoadedTable
from evalcore.schema import CANONICAL_COLUMNS, canonical_dtypes, inspect_verdicts, text_part
from evalcore.store import rows as rows_table

#: The environment variable naming the workspace file.
ENV_VAR = "VERDICTLAB_WORKSPACE"
#: Longest accepted dataset name (characters).
MAX_NAME = 120
#: Names starting with this (any case) belong to the built-in demos.
RESERVED_PREFIX = "demo-"
#: Earlier versions kept per name (older ones are deleted when a newer one is archived).
KEEP_VERSIONS = 5
#: The file is rewritten (compacted) once this share of it is free blocks ...
RECLAIM_FRACTION = 0.25
#: ... and they add up to at least this many bytes (a small file is not worth rewriting).
RECLAIM_MIN_BYTES = 1024**2

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
    """
    CREATE TABLE IF NOT EXISTS dataset_history (
        name VARCHAR, version INTEGER, file VARCHAR, format VARCHAR, rows BIGINT, models INTEGER,
        judges INTEGER, instructions INTEGER, saved_at TIMESTAMP, replaced_at TIMESTAMP)
    """,
    # Workspaces written before versions existed: every dataset there is version 1.
    "ALTER TABLE datasets ADD COLUMN IF NOT EXISTS version INTEGER DEFAULT 1",
    "ALTER TABLE dataset_rows ADD COLUMN IF NOT EXISTS version INTEGER DEFAULT 1",
    "ALTER TABLE dataset_rankings ADD COLUMN IF NOT EXISTS version INTEGER DEFAULT 1",
    *rows_table.SCHEMA,  # feat_ columns and text (workspaces written before them have none)
)

_LOCKS: dict[Path, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


class WorkspaceError(EvalcoreError, ValueError):
    """A workspace operation that cannot be done, in words a user can act on."""


class UnknownDataset(WorkspaceError):
    """No saved dataset has this name."""


class ConcurrentChange(WorkspaceError):
    """The dataset was replaced or deleted by someone else since the caller read it."""


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
    version: int = 1
    #: For a save that replaced a dataset: the version it replaced (kept, restorable).
    replaced: SavedDataset | None = None

    def as_dict(self) -> dict:
        return {
            "name": self.name,
            "file": self.file,
            "format": self.format,
            "rows": self.rows,
            "models": self.models,
            "judges": self.judges,
            "instructions": self.instructions,
            "saved_at": self.saved_at.isoformat(),
            "version": self.version,
            "replaced": self.replaced.as_dict() if self.replaced else None,
        }

    def describe(self) -> str:
        """One line for a message: version, file, rows and time."""
        return (
            f"version {self.version} ({self.file}, {self.rows:,} rows, saved "
            f"{self.saved_at.strftime('%Y-%m-%d %H:%M')} UTC)"
        )


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
        raise WorkspaceError(f"The dataset name is {len(name)} characters long; use at most {MAX_NAME}.")
    if any(not ch.isprintable() for ch in name):
        raise WorkspaceError(
            "The dataset name contains a control character (such as a line "
            "break or tab); use printable characters only."
        )
    if name.casefold().startswith(RESERVED_PREFIX):
        raise WorkspaceError(
            f"Names starting with {RESERVED_PREFIX!r} are reserved for the "
            "built-in demos (a link to one always opens the demo); choose "
            "another name."
        )
    return name


def _lock_for(path: Path) -> threading.Lock:
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(path, threading.Lock())


class Workspace:
    """The saved datasets in one DuckDB file, safe to use from many threads of one process."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else default_path()
        self._lock = _lock_for(self.path.resolve())

    def _cannot_open(self, reason: object) -> WorkspaceError:
        return WorkspaceError(
            f"The workspace file {self.path} cannot be opened ({reason}). Check that its "
            f"folder is writable and that no other program has it open, or point "
            f"{ENV_VAR} at another file."
        )

    @contextmanager
    def _connect(self, *, reclaim: bool = False) -> Iterator[duckdb.DuckDBPyConnection]:
        """A connection under the file's lock. ``reclaim``: after a write that went through,
        give the free space back when enough of the file is free (see the module docstring)."""
        with self._lock:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                # a copy left by a compaction that was killed part-way: the file itself is whole
                _compact_path(self.path).unlink(missing_ok=True)
                con = duckdb.connect(str(self.path))
            except (OSError, duckdb.Error) as exc:
                raise self._cannot_open(exc) from exc
            worth = False
            try:
                for statement in _SCHEMA:
                    con.execute(statement)
                yield con
                worth = reclaim and _mostly_free(con)
            finally:
                con.close()
            if worth:
                self._compact_locked()

    def compact(self) -> int:
        """Rewrite the workspace file with only its live data; the bytes given back.

        Saves and deletes call this themselves when a quarter of the file is free; it is public
        for an administrator's maintenance. Safe against a kill at any moment (the old file
        stays whole until the new one atomically replaces it)."""
        if self._unsaved():
            return 0
        with self._lock:
            return self._compact_locked()

    def _compact_locked(self) -> int:
        # Caller holds self._lock. Copy every table into a fresh file, make it durable, then
        # swap it in with one rename: a reader of the path sees the old file or the new one.
        fresh = _compact_path(self.path)
        before = self.path.stat().st_size
        try:
            fresh.unlink(missing_ok=True)
            con = duckdb.connect(str(self.path))
            try:
                database = one_row(con.execute("SELECT current_database()"))[0]
                con.execute(f"ATTACH {sql_literal(str(fresh))} AS vl_fresh")
                con.execute(f'COPY FROM DATABASE "{database.replace(chr(34), chr(34) * 2)}" TO vl_fresh')
                con.execute("DETACH vl_fresh")
            finally:
                con.close()
            if Path(str(self.path) + ".wal").exists() or Path(str(fresh) + ".wal").exists():
                # changes not yet in a file would be replayed on the wrong one: leave it be
                fresh.unlink(missing_ok=True)
                return 0
            _fsync(fresh)
            os.replace(fresh, self.path)
            _fsync(self.path.parent)
        except (OSError, duckdb.Error):
            # reclaiming space is housekeeping: when it cannot be done the data is as it was
            fresh.unlink(missing_ok=True)
            return 0
        return max(0, before - self.path.stat().st_size)

    # -- reading ---------------------------------------------------------------------------
    def _unsaved(self) -> bool:
        """True where no workspace file exists yet and one could be made there (nothing is saved).

        Reads then answer without creating the file or opening it: the Data page lists the saved
        datasets on every run, and opening a DuckDB file costs 20-30 ms. A place where no file
        can ever be made (a folder on the path is a file) is still refused in words.
        """
        try:
            if self.path.exists():
                return False
            folder = self.path.parent
            while not folder.exists() and folder != folder.parent:
                folder = folder.parent
            usable = folder.is_dir()
        except OSError as exc:  # a folder on the way that cannot be looked into
            raise self._cannot_open(exc) from exc
        if not usable:
            raise self._cannot_open(f"{folder} is not a folder")
        return True

    def names(self) -> tuple[str, ...]:
        if self._unsaved():
            return ()
        with self._connect() as con:
            return tuple(r[0] for r in con.execute("SELECT name FROM datasets ORDER BY name").fetchall())

    def exists(self, name: str) -> bool:
        if self._unsaved():
            return False
        with self._connect() as con:
            return one_row(con.execute("SELECT count(*) FROM datasets WHERE name = ?", [name]))[0] > 0

    def list(self) -> tuple[SavedDataset, ...]:
        """Every saved dataset, sorted by name."""
        if self._unsaved():
            return ()
        with self._connect() as con:
            rows = con.execute(f"SELECT {_META} FROM datasets ORDER BY name").fetchall()
        return tuple(_saved(r) for r in rows)

    def version(self, name: str) -> int | None:
        """The current version number of ``name`` (None if nothing is saved under it)."""
        if self._unsaved():
            return None
        with self._connect() as con:
            row = con.execute("SELECT version FROM datasets WHERE name = ?", [name]).fetchone()
        return None if row is None else int(row[0])

    def history(self, name: str) -> tuple[SavedDataset, ...]:
        """The earlier versions of ``name`` that can be restored, newest first."""
        if self._unsaved():
            return ()
        with self._connect() as con:
            rows = con.execute(
                f"SELECT {_META} FROM dataset_history WHERE name = ? ORDER BY version DESC", [name]
            ).fetchall()
        return tuple(_saved(r) for r in rows)

    def table(self) -> pd.DataFrame:
        """The saved datasets as a tidy frame (one row each), for a page's table and download."""
        columns = [
            "name",
            "file",
            "format",
            "rows",
            "models",
            "judges",
            "instructions",
            "saved_at",
            "version",
        ]
        frame = pd.DataFrame([{c: getattr(d, c) for c in columns} for d in self.list()], columns=columns)
        frame["saved_at"] = pd.to_datetime(frame["saved_at"], utc=True)
        return frame

    def load(self, name: str, *, version: int | None = None) -> LoadedDataset:
        """Read a saved dataset (its current version, or an earlier ``version``) back as the
        canonical frame an upload produces."""
        with self._connect() as con:
            if version is None:
                meta = con.execute(
                    "SELECT file, format, version FROM datasets WHERE name = ?", [name]
                ).fetchone()
            else:
                meta = con.execute(
                    "SELECT file, format, version FROM datasets WHERE name = ? AND version = ?"
                    " UNION ALL SELECT file, format, version FROM dataset_history"
                    " WHERE name = ? AND version = ?",
                    [name, version, name, version],
                ).fetchone()
            if meta is None:
                which = "" if version is None else f" in version {version}"
                raise UnknownDataset(
                    f"There is no saved dataset named {name!r}{which}. Pick one "
                    "from the list of saved datasets on the Data page."
                )
            frame = rows_table.read(con, name, meta[2])
            ranking = con.execute(
                "SELECT model, score FROM dataset_rankings WHERE dataset = ?"
                " AND version = ? ORDER BY score DESC, model",
                [name, meta[2]],
            ).df()
        frame = canonical_dtypes(frame)
        table = LoadedTable(frame=frame, file=meta[0], format=meta[1], report=inspect_verdicts(frame))
        human = None
        if len(ranking):
            ranking["model"] = ranking["model"].astype("string")
            human = ranking
        return LoadedDataset(table=table, human_ranking=human)

    # -- writing ---------------------------------------------------------------------------
    def save(
        self,
        name: str,
        table: LoadedTable | pd.DataFrame,
        *,
        file: str | None = None,
        format: str | None = None,
        human_ranking: pd.DataFrame | None = None,
        replace: bool = False,
        expected_version: int | None = None,
        text=None,
    ) -> SavedDataset:
        """Save a canonical verdict table under ``name`` in one transaction.

        Its ``feat_`` columns are kept, and ``text`` (``row`` and the text columns, as a frame or
        Arrow batches, e.g. :meth:`evalcore.store.store.VerdictStore.text_rows`) when given; a frame
        that carries text columns itself keeps them too.

        Raise :class:`WorkspaceError` if the name is unusable, or taken and ``replace`` is False;
        :class:`ConcurrentChange` if ``expected_version`` is given and the saved dataset is no
        longer that version (someone else replaced or deleted it since it was read). A replaced
        version is kept (see :meth:`history`, :meth:`restore`) and returned as ``.replaced``.
        A save that fails part-way is rolled back: the workspace is as it was before.
        """
        name = check_name(name)
        if isinstance(table, LoadedTable):
            frame, file, format = table.frame, file or table.file, format or table.format
        else:
            frame = table
        if text is None:  # a saved dataset read back carries its text as columns
            text = text_part(frame)
        weight = ["weight"] if "weight" in frame.columns else []  # a counts table's
        frame = frame[list(CANONICAL_COLUMNS) + spelled_feature_columns(frame.columns) + weight]
        if len(frame) == 0:
            raise WorkspaceError("There is nothing to save: the table has no rows.")
        file = file or name
        format = format or "verdict table"
        saved_at = datetime.now(UTC)
        ranking = None
        if human_ranking is not None and len(human_ranking):
            ranking = pd.DataFrame(
                {"model": human_ranking["model"].astype(str), "score": human_ranking["score"].astype(float)}
            )
        with self._connect(reclaim=True) as con:
            con.execute("BEGIN TRANSACTION")
            try:
                rows = con.execute(f"SELECT {_META} FROM datasets WHERE name = ?", [name]).fetchall()
                row = rows[0] if rows else None
                current = _saved(row) if row else None
                if expected_version is not None and (current is None or current.version != expected_version):
                    now = f"it is now {current.describe()}" if current else "it has been deleted"
                    raise ConcurrentChange(
                        f"The saved dataset {name!r} changed since you opened it (you had "
                        f"version {expected_version}; {now}). Nothing was overwritten: load it "
                        "again to see the change, or save under another name."
                    )
                if current is not None and not replace:
                    raise WorkspaceError(
                        f"A dataset named {name!r} is already saved. Choose "
                        "another name, or choose to replace it."
                    )
                version = _next_version(con, name)
                if current is not None:
                    _archive(con, name, saved_at)
                rows_table.write(con, name, version, frame, text)
                if ranking is not None:
                    con.register("incoming_ranking", ranking)
                    con.execute(
                        "INSERT INTO dataset_rankings (dataset, model, score, version)"
                        " SELECT ?, model, score, ? FROM incoming_ranking",
                        [name, version],
                    )
                    con.unregister("incoming_ranking")
                sizes = one_row(
                    con.execute(
                        "SELECT sum(weight), count(DISTINCT judge), count(DISTINCT instruction_id)"
                        " FROM dataset_rows WHERE dataset = ? AND version = ?",
                        [name, version],
                    )
                )
                models = one_row(
                    con.execute(
                        "SELECT count(*) FROM (SELECT model_a FROM dataset_rows WHERE dataset = ?"
                        " AND version = ? UNION SELECT model_b FROM dataset_rows WHERE dataset = ?"
                        " AND version = ?)",
                        [name, version, name, version],
                    )
                )[0]
                con.execute(
                    f"INSERT INTO datasets ({_META}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        name,
                        file,
                        format,
                        sizes[0],
                        models,
                        sizes[1],
                        sizes[2],
                        saved_at.replace(tzinfo=None),
                        version,
                    ],
                )
                con.execute("COMMIT")
            except BaseException:
                con.execute("ROLLBACK")
                raise
        return SavedDataset(
            name=name,
            file=file,
            format=format,
            rows=int(sizes[0]),
            models=int(models),
            judges=int(sizes[1]),
            instructions=int(sizes[2]),
            saved_at=saved_at,
            version=version,
            replaced=current,
        )

    def restore(self, name: str, version: int, *, expected_version: int | None = None) -> SavedDataset:
        """Make an earlier ``version`` of ``name`` current again (the current one is kept)."""
        loaded = self.load(name, version=version)
        old = next((d for d in self.history(name) if d.version == version), None)
        if old is None:
            raise UnknownDataset(
                f"Version {version} of {name!r} is the current one or is no "
                "longer kept; see the earlier versions listed for it."
            )
        return self.save(
            name,
            loaded.table,
            human_ranking=loaded.human_ranking,
            replace=True,
            expected_version=expected_version,
        )

    def delete(self, name: str, *, expected_version: int | None = None, forever: bool = False) -> bool:
        """Delete a saved dataset (it stays restorable, see :meth:`restore`); False if there was
        none by that name. With ``expected_version``, refuse if it changed since it was read.
        ``forever``: delete it with all its earlier versions (nothing to restore), so that the
        workspace file gives their space back; True also when only earlier versions were left."""
        with self._connect(reclaim=True) as con:
            con.execute("BEGIN TRANSACTION")
            try:
                row = con.execute("SELECT version FROM datasets WHERE name = ?", [name]).fetchone()
                found = row is not None
                if expected_version is not None and (row is None or row[0] != expected_version):
                    raise ConcurrentChange(
                        f"The saved dataset {name!r} changed since you opened "
                        "it; nothing was deleted. Load it again first."
                    )
                if found:
                    _archive(con, name, datetime.now(UTC))
                if forever:
                    versions = con.execute(
                        "SELECT version FROM dataset_history WHERE name = ?", [name]
                    ).fetchall()
                    for (version,) in versions:
                        rows_table.delete(con, name, version)
                    con.execute("DELETE FROM dataset_history WHERE name = ?", [name])
                    found = found or bool(versions)
                con.execute("COMMIT")
            except BaseException:
                con.execute("ROLLBACK")
                raise
        return found


_META = "name, file, format, rows, models, judges, instructions, saved_at, version"


def _compact_path(path: Path) -> Path:
    return path.with_name(path.name + ".compact")


def _mostly_free(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether free blocks make up :data:`RECLAIM_FRACTION` of the file (and at least
    :data:`RECLAIM_MIN_BYTES`) once the last write is checkpointed into it."""
    con.execute("CHECKPOINT")  # deleted row groups become free blocks only at a checkpoint
    total, free, block = one_row(
        con.execute("SELECT total_blocks, free_blocks, block_size FROM pragma_database_size()")
    )
    return free * block >= RECLAIM_MIN_BYTES and free >= RECLAIM_FRACTION * total


def _fsync(path: Path) -> None:
    """Make a file (or a folder's entries) durable before the rename that publishes it."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _saved(row: tuple) -> SavedDataset:
    name, file, format, rows, models, judges, instructions = row[:7]
    return SavedDataset(
        name,
        file,
        format,
        rows,
        models,
        judges,
        instructions,
        saved_at=row[7].replace(tzinfo=UTC),
        version=int(row[8] or 1),
    )


def _next_version(con: duckdb.DuckDBPyConnection, name: str) -> int:
    return int(
        con.execute(
            "SELECT coalesce(max(v), 0) + 1 FROM (SELECT version AS v FROM datasets WHERE name = ?"
            " UNION ALL SELECT version FROM dataset_history WHERE name = ?)",
            [name, name],
        ).fetchall()[0][0]
    )


def _archive(con: duckdb.DuckDBPyConnection, name: str, when: datetime) -> None:
    """Move the current version of ``name`` into the history; drop versions beyond the kept ones."""
    con.execute(
        f"INSERT INTO dataset_history ({_META}, replaced_at) SELECT {_META}, ? FROM datasets WHERE name = ?",
        [when.replace(tzinfo=None), name],
    )
    con.execute("DELETE FROM datasets WHERE name = ?", [name])
    stale = [
        r[0]
        for r in con.execute(
            "SELECT version FROM dataset_history WHERE name = ? ORDER BY version DESC OFFSET ?",
            [name, KEEP_VERSIONS],
        ).fetchall()
    ]
    for version in stale:
        con.execute("DELETE FROM dataset_history WHERE name = ? AND version = ?", [name, version])
        rows_table.delete(con, name, version)
