"""The DuckDB store: one database per browser session, and the aggregation every analysis reads.

Rows live in the ``verdicts`` table (the canonical frame of :mod:`evalcore.schema`), each with
its ``weight``: the judge calls it stands for (1 for a verdict table's rows, a counts table's
count for its rows, stored as they are). Every count below sums the weight instead of counting rows. Every
analysis reads the same small aggregated form, :class:`VerdictCounts`: judge calls counted per
(instruction, slot-A model, slot-B model, verdict level), computed by SQL in DuckDB. User-supplied
names (judges, categories) only ever reach SQL as bound parameters.

Why this module is longer than 500 lines: it is the one façade through which analyses reach
DuckDB (loading atomically with the text beside it, counts, the verdicts behind a number, and a
method per query the analyses need). The SQL itself lives in :mod:`evalcore.store.queries`,
:mod:`evalcore.store.summary`, :mod:`evalcore.store.style`, :mod:`evalcore.store.text` and
:mod:`evalcore.store.verdicts`; what stays here is the loading transaction and one short method per question.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, TypeVar

import duckdb
import numpy as np

from evalcore import ingest
from evalcore._sql import one_row
from evalcore.counts import N_LEVELS, VerdictCounts
from evalcore.errors import ResourceLimitError, UsageError
from evalcore.features import spelled_feature_columns
from evalcore.ingest import counts_table
from evalcore.ingest.counts_table import WEIGHT
from evalcore.ingest.files import LoadedTable, Source, prepare_source, spill
from evalcore.limits import ENV_VAR as budget_env
from evalcore.limits import LoadLimits
from evalcore.names import COMPACT_NAMES_FROM, Names, select_names
from evalcore.schema import (
    CANONICAL_COLUMNS,
    DEFAULT_JUDGE,
    FLAG_COLUMNS,
    LEVELS,
    UNIT_COLUMNS,
    VerdictFormatError,
    text_part,
)
from evalcore.store import queries as store_queries
from evalcore.store.deadline import Watchdog
from evalcore.store.queries import CalibrationPatterns, LabelledCells
from evalcore.store.summary import (  # noqa: F401 (re-exported)
    DatasetSummary,
    summarise,
)
from evalcore.store.text import TextArea
from evalcore.store.verdicts import CaseStats, case_page, case_stats, options

if TYPE_CHECKING:
    from collections.abc import Mapping

    import pandas as pd  # imported where a frame is made: `rank --json` never needs it

    from evalcore.verdicts import VerdictFilter, VerdictPage


_CREATE = """
CREATE OR REPLACE TABLE verdicts (
    "row" BIGINT, instruction_id VARCHAR, model_a VARCHAR, model_b VARCHAR, verdict TINYINT,
    judge VARCHAR, human TINYINT, length_a DOUBLE, length_b DOUBLE, category VARCHAR,
    weight INTEGER DEFAULT 1)
"""
# ``weight``: how many judge calls a stored row stands for (counts_table.WEIGHT): 1 for a verdict
# table's rows, the row's count for a counts table's. Every aggregate sums it instead of counting
# rows, so a counts table is stored as its rows (the row limit bounds rows, not calls). Four bytes
# a row (an in-memory table is not compressed): a counts table's row counts at most 2**31 - 1 calls.
T = TypeVar("T")
#: What :meth:`VerdictStore.frugally` lets a read hold beyond the tables before it spills, and
#: the tables' size below which it reads as it is: at 866,250 calls (84 MB) capping saved 20 MB
#: of peak memory and cost 0.05 s (the folder and the spill's writes).
FRUGAL_WORK_BYTES = 64 * 2**20
FRUGAL_FROM_BYTES = 128 * 2**20
_COLUMNS = ", ".join(f'"{c}"' for c in CANONICAL_COLUMNS)


def _list(columns: list[str]) -> str:
    return "".join(f', "{c}"' for c in columns)


def _extra_columns(columns) -> list[str]:
    """The columns a stored table carries beyond the contract's, as the table spells them: the
    calls' marks (``both_bad``, :data:`~evalcore.schema.FLAG_COLUMNS`) where the file had them,
    then the per-answer ``feat_`` columns. ``columns``: names, or DESCRIBE rows."""
    names = {str(c[0] if isinstance(c, tuple) else c) for c in columns}
    return [c for c in FLAG_COLUMNS if c in names] + spelled_feature_columns(columns)


def _create(cur, extras: list[str]) -> None:
    """The verdicts table: the contract's columns, then any marks and per-answer feature columns."""
    cur.execute(_CREATE)
    for column in extras:
        kind = "BOOLEAN" if column in FLAG_COLUMNS else "DOUBLE"
        cur.execute(f'ALTER TABLE verdicts ADD COLUMN "{column}" {kind}')


def _lengths_from_text(cur: duckdb.DuckDBPyConnection, source: str | None) -> None:
    """A file that carries both answers but no length columns: its lengths are the answers'
    lengths in characters (DuckDB's ``length``, Unicode characters), so the length analyses run
    instead of asking the user to add two columns the file already implies. Nothing changes when
    any row has both lengths (the file's own lengths win) or the file has no answers."""
    if source is None:
        return
    given = one_row(
        cur.execute("SELECT count(*) FROM verdicts WHERE length_a IS NOT NULL AND length_b IS NOT NULL")
    )
    if given[0]:
        return
    cur.execute(
        f"""UPDATE verdicts SET length_a = length(s.response_a)::DOUBLE,
                               length_b = length(s.response_b)::DOUBLE
            FROM {source} s
            WHERE verdicts."row" = s."row" AND s.response_a IS NOT NULL AND s.response_b IS NOT NULL"""
    )


class VerdictStore:
    """One DuckDB database holding one verdict table (plus its name and format).

    Loading replaces the table inside a transaction, so a load that fails leaves the previous
    data in place. Use one store per browser session; a ``duckdb`` connection is not shared.
    """

    def __init__(self, connection: duckdb.DuckDBPyConnection | None = None) -> None:
        self.con = connection if connection is not None else duckdb.connect(":memory:")
        # a library never draws DuckDB's progress bar into a caller's output (CLI --json)
        self.con.execute("SET enable_progress_bar = false")
        self.con.execute(_CREATE)
        self.con.execute("CREATE OR REPLACE TABLE dataset (name VARCHAR, format VARCHAR)")
        # prompts, answers and judge outputs: on disk, apart from the verdicts (store_text)
        self.text = TextArea(self.con)
        # every row has its own (instruction, model_a, model_b, judge): known after a typed load,
        # it lets one judge's cells be read without grouping (an arena table: a prompt a battle)
        self._unique_keys = False
        # what the table holds (judges, models, categories) and its counts per judge and category,
        # read once per loaded table (every load empties it): a page's sections, its widgets on
        # every rerun and the findings' analyses ask for the same ones many times
        self._kept: dict[tuple, Any] = {}

    def close(self) -> None:
        """Close the connection and delete the folder holding the text (if any)."""
        self.text.release()  # a store that borrowed this one's text copies it now
        self.con.close()
        self.text.close()

    def limit_memory(self, budget_bytes: int) -> None:
        """Cap DuckDB's own memory for this store: a bigger query spills to disk or fails with a
        message instead of taking memory from everything else (an older DuckDB ignores it)."""
        try:
            self.con.execute(f"SET memory_limit = '{int(budget_bytes) // 2**20}MB'")
        except duckdb.Error:
            pass

    def frugally(
        self,
        read: Callable[[], T],
        *,
        work_bytes: int = FRUGAL_WORK_BYTES,
        from_bytes: int = FRUGAL_FROM_BYTES,
    ) -> T:
        """``read()`` with DuckDB's memory capped at what the loaded tables hold plus
        ``work_bytes``, the work beyond that going to the store's folder on disk.

        For a process that reads once and closes the store (``rank``): the counts of an arena of
        1.8 M battles sort 1.8 M prompt ids, which took about 290 MB on top of the table and made
        the command's peak memory; capped, the sort spills what does not fit (about 170 MB less
        at the peak, in the same time). The cap is the connection's, so a query of another thread meets it too: a
        session's store keeps its own (:meth:`limit_memory`). Tables holding less than
        ``from_bytes`` are read as they are; a read that cannot finish within the cap runs again
        without it; the connection's cap before comes back afterwards (:meth:`_restore_memory_limit`).
        """
        with self.con.cursor() as cur:
            held = cur.execute(
                "SELECT coalesce(sum(memory_usage_bytes), 0) FROM duckdb_memory() "
                "WHERE tag = 'IN_MEMORY_TABLE'"
            ).fetchall()[0][0]
            before = cur.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]
        if held < from_bytes:
            return read()
        self.text.ensure()  # the folder (and spill directory) the text would use: removed on close
        self.con.execute(f"SET memory_limit = '{(int(held) + work_bytes) // 2**20}MiB'")  # (MB: 10**6)
        try:
            return read()
        except duckdb.OutOfMemoryException:
            self._restore_memory_limit(before)
            return read()
        finally:
            self._restore_memory_limit(before)

    def _restore_memory_limit(self, before: str) -> None:
        """The connection's memory cap as ``before`` said it: DuckDB's default exactly (set again
        from its rounded words, 18.8 GiB became 18.7), a cap set before to a tenth of its unit."""
        self.con.execute("RESET memory_limit")
        with self.con.cursor() as cur:
            if cur.execute("SELECT current_setting('memory_limit')").fetchall()[0][0] != before:
                self.con.execute("SET memory_limit = ?", [before])

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, *, name: str = "data") -> VerdictStore:
        """A store holding a verdict frame that is already canonical in its values (as
        :func:`evalcore.schema.validate_verdicts` returns, or a simulator's table). Columns the
        contract makes optional may be absent: ``judge`` becomes ``"judge"``, ``row`` the 1-based
        position, the others missing values."""
        import pandas as pd

        n = len(frame)
        defaults = {
            "row": lambda: np.arange(1, n + 1, dtype=np.int64),
            "judge": lambda: DEFAULT_JUDGE,
            "human": lambda: pd.Series(pd.NA, index=frame.index, dtype="Int8"),
            "length_a": lambda: np.nan,
            "length_b": lambda: np.nan,
            "category": lambda: pd.Series(pd.NA, index=frame.index, dtype="string"),
        }
        missing = {c: make() for c, make in defaults.items() if c not in frame.columns}
        store = cls()
        store.load(frame.assign(**missing) if missing else frame, name=name)
        return store

    # -- loading ---------------------------------------------------------------------------
    def load(
        self, table: LoadedTable | pd.DataFrame, *, name: str = "data", format: str = "verdict table"
    ) -> None:
        """Replace the stored table with ``table`` (already validated), atomically.

        A :class:`LoadedTable` returned by this store's :meth:`load_file` is already here (nothing
        to do); one held by another store is streamed across as Arrow batches.
        """
        import pandas as pd  # only here and where a frame is made: `rank --json` never loads it

        incoming: object
        text: object = None
        has_weight = False
        borrow = None
        kept: dict[tuple, Any] = {}
        unique_keys = False
        if isinstance(table, LoadedTable):
            name, format = table.file, table.format
            if table.store is self:
                return
            if table.store is not None:
                source = table.store.con.cursor()
                feats = _extra_columns(source.execute("DESCRIBE verdicts").fetchall())
                incoming = source.sql(
                    f'SELECT {_COLUMNS}{_list(feats)}, weight FROM verdicts ORDER BY "row"'
                ).to_arrow_reader()
                has_weight = True
                # the text is borrowed, and copied (in Arrow batches) only when first read
                borrow = table.store.text.borrowable()
                # what is read once per loaded table (counts, judges, models, categories) is the
                # same for a copy: shared with the other store (every session's copy of the demo
                # reads it once per server, not once per session); the other store's next load
                # starts a new one, so this copy keeps the numbers of the rows it copied
                kept = table.store._kept
                unique_keys = table.store._unique_keys  # the same rows: the same keys
            else:
                table = table.frame  # a frame (a saved dataset read back): text columns too
        if isinstance(table, pd.DataFrame):
            feats = _extra_columns(table.columns)
            has_weight = WEIGHT in table.columns  # a saved counts table read back
            incoming = table[list(CANONICAL_COLUMNS) + feats + ([WEIGHT] if has_weight else [])]
            # a frame built in Python (tests, simulations, a saved dataset) may carry text
            text = text_part(table)
        cur = self.con.cursor()
        try:
            cur.register("incoming", incoming)
            staged = False
            if text is not None:
                cur.register("incoming_text", text)
                try:
                    staged = self.text.stage(cur, "incoming_text", probe=isinstance(text, pd.DataFrame))
                except Exception:
                    self.text.discard(cur)
                    raise
            cur.execute("BEGIN TRANSACTION")
            try:
                _create(cur, feats)
                weight = ', "weight"' if has_weight else ""
                cur.execute(
                    f"INSERT INTO verdicts BY NAME SELECT {_COLUMNS}{_list(feats)}{weight} FROM incoming"
                )
                cur.execute("DELETE FROM dataset")
                cur.execute("INSERT INTO dataset VALUES (?, ?)", [name, format])
                cur.execute("COMMIT")
                self._unique_keys = unique_keys
                self._kept = kept
            except Exception:
                cur.execute("ROLLBACK")
                self.text.discard(cur)
                raise
            self.text.publish(cur, staged, borrow=borrow)
        finally:
            cur.unregister("incoming")
            if text is not None:
                cur.unregister("incoming_text")
            cur.close()

    def load_file(
        self,
        path: str | Path,
        *,
        name: str | None = None,
        limits: LoadLimits | None = None,
        text: bool = True,
    ) -> LoadedTable:
        """Read, recognise, validate and load a file from disk, atomically; the main path.

        DuckDB reads the file itself (CSV, CSV.gz, TSV, Parquet, JSON, JSON Lines, and the native
        files of Arena-Hard-Auto, AlpacaEval, MT-Bench and Chatbot Arena), the contract is
        checked in SQL (:mod:`evalcore.ingest`), and the canonical rows replace the stored table
        in one transaction: a file that fails leaves the previous data loaded. ``name`` is what
        messages call the file (default: its file name; never the server path). ``limits``
        defaults to the server's (:meth:`LoadLimits.from_env`). ``text=False`` leaves the
        prompts, answers and judge outputs in the file (nothing is written to disk for them): for
        an analysis that reads only verdicts, such as a command's ranking.

        Returns the :class:`LoadedTable` (name, recognised format, load report) backed by this
        store. Raises :class:`~evalcore.schema.VerdictFormatError` naming rows and values.
        """
        path = Path(path)
        # a name that is not valid UTF-8 is shown with replacement characters, never crashes
        file = name or path.name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        limits = limits or LoadLimits.from_env()
        if counts_table.is_many_files(path):
            return self._load_many(path, file=file, limits=limits)
        if not path.exists():
            raise VerdictFormatError(file, "there is no such file", hint="Check the name and the folder")
        with tempfile.TemporaryDirectory(prefix="verdictlab-") as work:
            # DuckDB reads a link with a plain name: any file name (quotes, non-UTF-8 bytes)
            # reaches SQL as a safe literal.
            suffix = "".join(x for x in Path(file).suffixes[-2:] if x[1:].isalnum())
            link = Path(work) / ("input" + suffix)
            os.symlink(os.path.abspath(path), link)
            src = prepare_source(link, file=file, workdir=Path(work), limits=limits)
            return self._load_source(src, origin=str(path), limits=limits, text=text)

    def _load_many(self, path: Path, *, file: str, limits: LoadLimits) -> LoadedTable:
        """A folder or glob of Parquet verdict files: counted out of core into a counts table
        (:func:`evalcore.ingest.counts_table.aggregate_files`), which is then loaded."""
        from evalcore.limits import budget_bytes

        with tempfile.TemporaryDirectory(prefix="verdictlab-") as work:
            out = Path(work) / "counts.parquet"
            memory = f"{budget_bytes() // 2 // 2**20}MB"
            counts_table.aggregate_files(path, out, name=file, memory_limit=memory, temp_dir=work)
            src = prepare_source(out, file=file, workdir=Path(work), limits=limits)
            return self._load_source(src, origin=None, limits=limits, text=False)

    def load_bytes(
        self, data: bytes, *, name: str = "upload", limits: LoadLimits | None = None, text: bool = True
    ) -> LoadedTable:
        """:meth:`load_file` for an upload's bytes (spilled to a scratch file, read the same way)."""
        limits = limits or LoadLimits.from_env()
        with tempfile.TemporaryDirectory(prefix="verdictlab-") as work:
            path = spill(data, file=name, workdir=Path(work))
            src = prepare_source(path, file=name, workdir=Path(work), limits=limits)
            return self._load_source(src, origin=None, limits=limits, text=text)

    def _load_source(self, src, *, origin: str | None, limits: LoadLimits, text: bool = True) -> LoadedTable:
        cur = self.con.cursor()
        # the time budget of a load: reading, checking and storing stop in words once it is spent
        dog = Watchdog(cur, limits.max_seconds, what=f"reading {src.file}")
        try:
            dog.__enter__()
            canon = ingest.read_canonical(cur, src, origin=origin, limits=limits)
            # the text first, into the store's on-disk database (one transaction cannot write
            # two databases); it becomes current only once the verdicts are committed
            source = ingest.text_source(cur) if text else None
            try:
                staged = self.text.stage(cur, source) if source is not None else False
            except Exception:
                dog.stop()
                self.text.discard(cur)
                raise
            if dog.expired:  # spent between two queries, where an interrupt has nothing to stop
                self.text.discard(cur)
                raise dog.refusal()
            cur.execute("BEGIN TRANSACTION")
            try:
                if canon.table is not None and _shape(cur, canon.table) == _plain_shape(cur):
                    # the typed pass built the table as the store keeps it (one call a row): no copy
                    cur.execute("DROP TABLE verdicts")
                    cur.execute(f"ALTER TABLE {canon.table} RENAME TO verdicts")
                    cur.execute("ALTER TABLE verdicts ADD COLUMN weight INTEGER DEFAULT 1")
                elif canon.table is not None:
                    cur.execute(_CREATE)
                    cur.execute(f"INSERT INTO verdicts BY NAME SELECT * FROM {canon.table}")
                else:
                    described = cur.execute("DESCRIBE vl_canon").fetchall()
                    feats = _extra_columns(described)
                    weight = ', "weight"' if "weight" in {str(r[0]) for r in described} else ""
                    _create(cur, feats)
                    cur.execute(
                        f"INSERT INTO verdicts BY NAME SELECT {_COLUMNS}{_list(feats)}{weight} FROM vl_canon"
                    )
                _lengths_from_text(cur, ingest.text_source(cur))
                cur.execute("DELETE FROM dataset")
                cur.execute("INSERT INTO dataset VALUES (?, ?)", [src.file, canon.label])
                cur.execute("COMMIT")
                self._unique_keys = canon.unique_keys
                self._kept = dict(canon.kept or {})
            except Exception:
                dog.stop()
                cur.execute("ROLLBACK")
                self.text.discard(cur)
                raise
            dog.stop()  # committed: what is left is quick and must not be stopped half-way
            self.text.publish(cur, staged)
            report = canon.report if canon.report is not None else ingest.inspect(cur)
            # a table checked row by row whose every row is its own instruction (an arena's JSON
            # dump) is read like a typed load's: each row its own cell (its counts at 1.8 M
            # battles in 0.6 s instead of 1.1)
            self._unique_keys = self._unique_keys or report.single_calls
        except Exception as exc:
            dog.stop()
            if dog.expired:  # DuckDB's "Interrupted!", however a step above worded it
                raise dog.refusal() from exc
            if isinstance(exc, duckdb.OutOfMemoryException) or isinstance(
                exc.__cause__, duckdb.OutOfMemoryException
            ):  # the session's DuckDB memory limit (limit_memory), not the machine's
                raise ResourceLimitError(
                    f"Reading {src.file} needed more memory than one session's database may "
                    f"use on this server ({budget_env}), so it was stopped; the data loaded "
                    "before stays. Load a sample of the file or split it, or convert it to "
                    "Parquet (read in pieces)."
                ) from exc
            raise
        finally:
            dog.stop()
            cur.execute("DROP VIEW IF EXISTS vl_canon")
            cur.execute("DROP VIEW IF EXISTS vl_text_source")
            cur.execute("DROP VIEW IF EXISTS vl_arena")
            cur.execute("DROP VIEW IF EXISTS vl_judgements")
            for scratch in (
                "vl_typed",
                "vl_raw",
                "vl_text",
                "vl_frame",
                "vl_map_verdict",
                "vl_map_human",
                "vl_map_winner",
                "vl_j_verdict",
                "vl_j_pair",
            ):
                cur.execute(f"DROP TABLE IF EXISTS {scratch}")
            cur.close()
        return LoadedTable(file=src.file, format=canon.label, report=report, store=self)

    @property
    def is_empty(self) -> bool:
        with self.con.cursor() as cur:
            return one_row(cur.execute("SELECT count(*) FROM verdicts"))[0] == 0

    @property
    def name(self) -> str | None:
        with self.con.cursor() as cur:
            row = cur.execute("SELECT name FROM dataset").fetchone()
        return row[0] if row else None

    @property
    def format(self) -> str | None:
        with self.con.cursor() as cur:
            row = cur.execute("SELECT format FROM dataset").fetchone()
        return row[0] if row else None

    @property
    def is_counts_table(self) -> bool:
        """Whether the loaded data came from a counts table (or a folder of Parquet files counted
        on load): its calls are counted groups, with no single calls or text behind them."""
        return counts_table.is_counts_format(self.format)

    def judges(self) -> tuple[str, ...]:
        return self._once(
            ("judges",), lambda: self._names("SELECT DISTINCT judge FROM verdicts ORDER BY judge")
        )

    def categories(self) -> tuple[str, ...]:
        sql = "SELECT DISTINCT category FROM verdicts WHERE category IS NOT NULL ORDER BY 1"
        return self._once(("categories",), lambda: self._names(sql))

    def models(self) -> tuple[str, ...]:
        sql = (
            "SELECT m FROM (SELECT model_a AS m FROM verdicts UNION SELECT model_b FROM verdicts) ORDER BY m"
        )
        return self._once(("models",), lambda: self._names(sql))

    def _names(self, sql: str) -> tuple[str, ...]:
        with self.con.cursor() as cur:
            return tuple(r[0] for r in cur.execute(sql).fetchall())

    def frame(self, *, judge: str | None = None, category: str | None = None) -> pd.DataFrame:
        """The canonical rows, optionally filtered by judge and category (bound parameters); a
        counts table's rows carry their ``weight`` (the calls each stands for) too."""
        with self.con.cursor() as cur:
            weighted = cur.execute("SELECT 1 FROM verdicts WHERE weight <> 1 LIMIT 1").fetchone()
            columns = "*" if weighted else "* EXCLUDE (weight)"
            return cur.execute(
                f"SELECT {columns} FROM verdicts WHERE (? IS NULL OR judge = ?) AND (? IS NULL OR category = ?)"
                ' ORDER BY "row"',
                [judge, judge, category, category],
            ).df()

    def text_rows(self):
        """The loaded table's text (``row`` and the text columns) as Arrow batches, read where it
        lives (a borrowed text is not copied for this); None without text."""
        return self.text.reader()

    # -- the verdicts behind the numbers -----------------------------------------------------
    @property
    def has_text(self) -> bool:
        """Whether the loaded table carries any text (prompt, answers, judge output, ids)."""
        return self.text.has_text

    def verdicts(
        self, filter: VerdictFilter | Mapping[str, str] | None = None, *, offset: int = 0, limit: int = 20
    ) -> VerdictPage:
        """One page of cases (judge, instruction, unordered pair; both orders together) matching
        ``filter``, with their calls, verdicts, human labels and text.

        Parameters
        ----------
        filter : VerdictFilter or mapping of URL parameters, optional
            Which cases (:class:`evalcore.verdicts.VerdictFilter`); None shows every case.
        offset : int, default 0
            Cases to skip (ordered by their first row in the file).
        limit : int, default 20
            Cases per page, 1 to 500.

        Returns
        -------
        VerdictPage
            The page's cases and the total number of matching cases. Only this page's text is
            read from the database.

        Examples
        --------
        >>> import pandas as pd
        >>> store = VerdictStore()
        >>> _ = store.load_bytes(b"instruction_id,model_a,model_b,verdict,prompt\\n"
        ...     b"q1,x,y,1,Hi\\nq1,y,x,1,Hi\\n", name="v.csv")
        >>> page = store.verdicts({"a": "x", "b": "y"})
        >>> page.total, page.cases[0].flipped, page.cases[0].prompt
        (1, True, 'Hi')
        """
        from evalcore.errors import check_int
        from evalcore.verdicts.cases import as_filter

        flt = as_filter(filter)
        from evalcore.limits import MAX_OFFSET

        offset = check_int("offset", offset, low=0, high=MAX_OFFSET)
        limit = check_int("limit", limit, low=1, high=500)
        return case_page(self, flt, offset=offset, limit=limit, text=self.text)

    def case_stats(self, filter: VerdictFilter | Mapping[str, str] | None = None) -> CaseStats:
        """What the cases matching ``filter`` hold (:class:`evalcore.store.verdicts.CaseStats`):
        cases, instructions, calls, calls with a verdict, the filter's first model's wins, ties
        and losses, the calibration's disagreeing calls and the flipped cases. The Verdicts page
        says with it how the cases it lists make up the number a link came from.

        Examples
        --------
        >>> store = VerdictStore()
        >>> _ = store.load_bytes(b"instruction_id,model_a,model_b,verdict\\n"
        ...     b"q1,x,y,1\\nq1,y,x,1\\nq2,x,y,0\\n", name="v.csv")
        >>> s = store.case_stats({"a": "x", "b": "y"})
        >>> s.cases, s.calls, s.wins, s.ties, s.losses, s.flipped
        (2, 3, 1, 1, 1, 1)
        """
        from evalcore.verdicts.cases import as_filter

        return case_stats(self, as_filter(filter), text=self.text)

    def attach_answers(self, source: str | Path | bytes, *, name: str | None = None) -> int:
        """Fill in the answers (and prompts) of the loaded judgments from Arena-Hard-Auto answer
        files (``model_answer/<model>.jsonl``), which the judgment files do not always carry.

        A row's slot-A answer is ``model_a``'s answer to its instruction (``uid`` or
        ``question_id``), slot B's likewise; text the judgments already carry is kept.

        Parameters
        ----------
        source : path or bytes
            One answer file (JSON Lines); call once per model's file.
        name : str, optional
            What messages call the file (default: its name).

        Returns
        -------
        int
            The number of answers filled in (0 when no instruction and model matched).
        """
        from evalcore.importers._common import _records
        from evalcore.importers.arena_hard import arena_hard_answers
        from evalcore.ingest.files import read_raw

        file = name or ("upload" if isinstance(source, bytes) else Path(source).name)
        raw, _ = read_raw(source, name=file)
        frame = arena_hard_answers(
            _records(raw), file=file, path=None if isinstance(source, bytes) else str(source)
        )
        cur = self.con.cursor()
        try:
            cur.register("vl_answers", frame)
            return self.text.attach_answers(cur, "vl_answers")
        finally:
            cur.unregister("vl_answers")
            cur.close()

    def verdict_options(self) -> dict:
        """The judges, models and categories to pick from, and whether the table has text."""
        return options(self, self.text)

    # -- aggregation -----------------------------------------------------------------------
    def unit_columns(self) -> tuple[str, ...]:
        """The optional unit columns (``session``, ``voter``, ``run``) this table fills with at
        least two different values: what intervals may be clustered by besides the instruction."""
        if not self.has_text:
            return ()

        def present(con: duckdb.DuckDBPyConnection, table: str) -> tuple[str, ...]:
            sql = ", ".join(f"count(DISTINCT {c})" for c in UNIT_COLUMNS)
            found = one_row(con.execute(f"SELECT {sql} FROM {table}"))
            return tuple(c for c, k in zip(UNIT_COLUMNS, found, strict=True) if k >= 2)

        return self.text.derived("unit_columns", present)

    def counts(
        self, *, judge: str | None = None, category: str | None = None, cluster: str | None = None
    ) -> VerdictCounts:
        """Aggregate calls into sparse :class:`~evalcore.counts.VerdictCounts` in DuckDB.

        ``judge=None`` pools every judge (only sensible for a one-judge table). The model axis
        holds every model seen in the filtered rows, sorted; instructions likewise. DuckDB does
        the grouping and the indexing; Python receives integer arrays, one row per judged
        (instruction, ordered pair) cell.

        ``cluster`` names the resampling unit: None or ``"instruction"`` (the default), or one of
        :meth:`unit_columns`; then cells are split per unit and carry its index
        (:attr:`VerdictCounts.unit`). A call with no value in that column is its own
        instruction's unit.
        """
        if cluster not in (None, "instruction"):
            return self._unit_counts(judge=judge, category=category, cluster=str(cluster))
        if category is not None and ("counts", judge, category) not in self._kept:
            # one judge's counts already read with each cell's category (an arena table: a
            # prompt a battle): a category's counts are a selection of those cells, no new read
            cells = self._kept.get(("cell_categories", judge))
            if cells is not None:
                code = self.categories().index(category) if category in self.categories() else -2
                whole = self._kept[("counts", judge, None)]
                self._kept[("counts", judge, category)] = _selected_cells(whole, cells == code)
        return self._once(
            ("counts", judge, category), lambda: self._read_counts(judge=judge, category=category)
        )

    def keep(self, key: tuple, value: Any) -> None:
        """Keep ``value`` under ``key`` for the loaded table (every load forgets it)."""
        self._kept[key] = value

    def kept(self, key: tuple) -> Any:
        """What :meth:`keep` kept under ``key`` for the loaded table, else None."""
        return self._kept.get(key)

    def _once(self, key: tuple, read: Callable[[], T]) -> T:
        """``read()`` once per loaded table (its result is shared, never changed by a caller)."""
        if key not in self._kept:
            self._kept[key] = read()
        return self._kept[key]

    def _read_counts(self, *, judge: str | None, category: str | None) -> VerdictCounts:
        params = [judge, judge, category, category]
        # (a typed load's rows are single calls: weight 1)
        one_call = judge is not None and self._unique_keys
        # a judge's every call read at once, on a table of categories: each cell's category comes
        # along (a number into :meth:`categories`, -1 for none), so that the per-category counts
        # the findings ask for next are selections of these cells (:meth:`counts`)
        with_category = one_call and category is None and len(self.categories()) >= 2
        carried = ", category" if with_category else ""
        filtered = f"""
            SELECT instruction_id, model_a, model_b, verdict, weight{carried} FROM verdicts
            WHERE verdict IS NOT NULL AND model_a <> model_b
              AND (? IS NULL OR judge = ?) AND (? IS NULL OR category = ?)"""
        # The cells are indexed on the table's models (listed by the load, sorted), and the
        # models the selection never compares are dropped from the counts afterwards: a second
        # scan for the selection's own models took 0.13 s of CPU at 1.8 M rows.
        everyone = self.models()
        if one_call:
            # One judge's rows are its cells already (each row its own instruction and pair): each
            # cell is one call, so its level index travels instead of five count columns.
            grouped = (
                f"SELECT instruction_id, model_a, model_b, (verdict - {LEVELS[0]})::TINYINT AS lvl{carried} "
                f"FROM ({filtered})"
            )
            payload = "lvl"
        else:
            level_cols = ", ".join(
                f"coalesce(sum(weight) FILTER (WHERE verdict = {v}), 0)::INTEGER AS n{k}"
                for k, v in enumerate(LEVELS)
            )
            grouped = f"SELECT instruction_id, model_a, model_b, {level_cols} FROM ({filtered}) GROUP BY ALL"
            payload = ", ".join(f"n{k}" for k in range(N_LEVELS))
        # One pass: group into cells, index the models through a small join, and sort by
        # instruction so Python numbers instructions from the change points of a sorted column.
        with self.con.cursor() as cur:
            compact = cur.execute("SELECT count(*) FROM verdicts").fetchall()[0][0] >= COMPACT_NAMES_FROM
        # (a large table's ids also travel as their hashes: the change points are read off those)
        hashed = ", hash(instruction_id) AS vl_h" if compact else ""
        if with_category:
            payload += ", coalesce(ci.k, -1)::SMALLINT AS vl_cat"
        category_join = " LEFT JOIN ci ON ci.c = c.category" if with_category else ""
        category_index = (
            ",\n            ci AS (SELECT unnest(?::VARCHAR[]) AS c, unnest(range(?))::INTEGER AS k)"
            if with_category
            else ""
        )
        query = f"""
            WITH c AS ({grouped}),
            mi AS (SELECT unnest(?::VARCHAR[]) AS m, unnest(range(?))::INTEGER AS k){category_index}
            SELECT instruction_id, ma.k AS a, mb.k AS b, {payload}{hashed}
            FROM c JOIN mi ma ON ma.m = c.model_a JOIN mi mb ON mb.m = c.model_b{category_join}
            ORDER BY instruction_id, a, b
            """
        query_params = params + [list(everyone), len(everyone)]
        if with_category:
            query_params += [list(self.categories()), len(self.categories())]
        names: Any
        # (fetchall: the result finished, so the connection is free for the next statement)
        if not compact:
            with self.con.cursor() as cur:
                column = cur.execute(query, query_params).fetchnumpy()
            ids = np.asarray(column.pop("instruction_id"), dtype=object)
            size = ids.size
            change = np.ones(size, dtype=bool)
            if size > 1:
                change[1:] = ids[1:] != ids[:-1]
            names = tuple(ids[change].tolist())
        else:
            # Many rows (an arena table): the ids arrive as one Arrow column and the names stay
            # in Arrow (``Names``: 65 MB for 1.8 M ids, against 180 MB and a quarter of a second
            # as Python strings). pyarrow is loaded only here (40 MB of libraries a small table
            # does not need).
            with self.con.cursor() as cur:
                cells = cur.sql(query, params=query_params).to_arrow_table()
            arrow_ids = cells.column("instruction_id")
            column = {n: _numbers(cells.column(n)) for n in cells.column_names if n != "instruction_id"}
            change = _changes(arrow_ids, column.pop("vl_h"))
            size = change.size
            # an arena's ids are its names: no copy
            names = Names(arrow_ids if change.all() else arrow_ids.filter(change))
            del cells, arrow_ids
        # (int32 throughout, and each call's level placed without an index array of its own: at
        # 1.8 M calls the int64 temporaries had added 40 MB to the command's peak memory)
        inst = np.cumsum(change, dtype=np.int32)
        inst -= 1
        models, column["a"], column["b"] = _compared_models(everyone, column["a"], column["b"])
        if with_category:
            self._kept[("cell_categories", judge)] = np.asarray(column["vl_cat"], dtype=np.int16)
        cells = {
            "models": models,
            "instructions": names,
            "judge": judge,
            "inst": inst,
            "a": np.asarray(column["a"], dtype=np.int32),
            "b": np.asarray(column["b"], dtype=np.int32),
        }
        if one_call:
            return VerdictCounts.from_single_calls(level=np.asarray(column["lvl"]), **cells)
        n = np.stack([np.asarray(column[f"n{k}"], dtype=np.int32) for k in range(N_LEVELS)], axis=1)
        return VerdictCounts(n=n.reshape(-1, N_LEVELS), **cells)

    def _units(self, cluster: str):
        """``row`` and ``unit`` (the calls' ``cluster`` column, read once from the text area), or a
        UsageError naming the unit columns this table has."""
        available = self.unit_columns()
        if cluster not in available:
            raise UsageError(
                f"cannot cluster by {cluster!r}: "
                + (
                    "this table's unit columns with two or more values are " + ", ".join(available)
                    if available
                    else "this table has no session, voter or run column with two or more values"
                )
                + " (or use the instruction)."
            )
        return self.text.derived(
            ("unit", cluster),
            lambda con, table: con.sql(
                f'SELECT "row", {cluster} AS unit FROM {table} WHERE {cluster} IS NOT NULL'
            ).to_arrow_table(),
        )

    def _unit_counts(self, *, judge: str | None, category: str | None, cluster: str) -> VerdictCounts:
        """:meth:`counts` with the calls' ``cluster`` column (read from the text area by row)."""
        units = self._units(cluster)
        level_cols = ", ".join(
            f"coalesce(sum(weight) FILTER (WHERE verdict = {v}), 0)::INTEGER AS n{k}"
            for k, v in enumerate(LEVELS)
        )
        cur = self.con.cursor()
        cur.register("vl_units", units)
        try:
            # the selection's cells per unit, kept for the three small queries that number them
            cur.execute(
                f"""CREATE OR REPLACE TEMP TABLE vl_unit_cells AS
                SELECT instruction_id, model_a, model_b, unit, {level_cols} FROM (
                    SELECT v.instruction_id, v.model_a, v.model_b, v.verdict, v.weight,
                           coalesce(u.unit, 'instruction ' || v.instruction_id) AS unit
                    FROM verdicts v LEFT JOIN vl_units u ON u."row" = v."row"
                    WHERE v.verdict IS NOT NULL AND v.model_a <> v.model_b
                      AND (? IS NULL OR v.judge = ?) AND (? IS NULL OR v.category = ?))
                GROUP BY ALL""",
                [judge, judge, category, category],
            )

            def names(sql: str) -> list[str]:
                return [r[0] for r in cur.execute(sql).fetchall()]

            models = names(
                "SELECT m FROM (SELECT model_a AS m FROM vl_unit_cells UNION "
                "SELECT model_b FROM vl_unit_cells) ORDER BY m"
            )
            instructions = names("SELECT DISTINCT instruction_id FROM vl_unit_cells ORDER BY 1")
            unit_names = names("SELECT DISTINCT unit FROM vl_unit_cells ORDER BY 1")
            payload = ", ".join(f"c.n{k}" for k in range(N_LEVELS))
            cells = cur.execute(
                f"""WITH mi AS (SELECT m, (row_number() OVER (ORDER BY m) - 1)::INTEGER AS k FROM
                         (SELECT model_a AS m FROM vl_unit_cells UNION SELECT model_b FROM vl_unit_cells)),
                    ii AS (SELECT instruction_id, (row_number() OVER (ORDER BY instruction_id) - 1)::INTEGER AS k
                           FROM (SELECT DISTINCT instruction_id FROM vl_unit_cells)),
                    ui AS (SELECT unit, (row_number() OVER (ORDER BY unit) - 1)::INTEGER AS k
                           FROM (SELECT DISTINCT unit FROM vl_unit_cells))
                SELECT ii.k AS inst, ma.k AS a, mb.k AS b, ui.k AS unit, {payload}
                FROM vl_unit_cells c JOIN ii USING (instruction_id) JOIN ui USING (unit)
                     JOIN mi ma ON ma.m = c.model_a JOIN mi mb ON mb.m = c.model_b"""
            ).fetchnumpy()
        finally:
            cur.execute("DROP TABLE IF EXISTS vl_unit_cells")
            cur.unregister("vl_units")
            cur.close()
        n = np.stack([np.asarray(cells[f"n{k}"], dtype=np.int64) for k in range(N_LEVELS)], axis=1)
        return VerdictCounts.from_cells(
            models=models,
            instructions=instructions,
            judge=judge,
            inst=cells["inst"],
            a=cells["a"],
            b=cells["b"],
            n=n,
            unit=cells["unit"],
            units=unit_names,
            unit_column=cluster,
        )

    def counts_table(self) -> pd.DataFrame:
        """The loaded calls as a counts table (:mod:`evalcore.ingest.counts_table`), computed by
        the same SQL ``python -m evalcore counts-sql`` prints for an engine."""
        with self.con.cursor() as cur:
            feats = spelled_feature_columns(cur.execute("DESCRIBE verdicts").fetchall())
            sql = counts_table.counts_sql("verdicts", canonical=True, features=feats)
            return cur.execute(sql + " ORDER BY ALL").df()

    def query(self, query: Callable[..., T] | str, /, **params: Any) -> T:
        """Run one of :mod:`evalcore.store.queries`' functions, or the one so named, on a cursor
        of this store's connection (closed afterwards): ``store.query("labelled_rows",
        judge="j", category=None)``; the analyses name it, so they need not import the store.
        Names reach SQL as bound parameters."""
        if isinstance(query, str):
            query = getattr(store_queries, query)
            assert callable(query), "a query of evalcore.store.queries"
        cur = self.con.cursor()
        try:
            return query(cur, **params)
        finally:
            cur.close()

    def judged_at(self) -> pd.DataFrame | None:
        """Each call's ``judged_at`` as written (``row``, ``judged_at``; calls without one left
        out), or None when the table kept no per-call columns. Read once per store."""
        if not self.has_text:
            return None
        return self.text.derived(
            ("judged_at",),
            lambda con, table: con.execute(
                f'SELECT "row", judged_at FROM {table} WHERE judged_at IS NOT NULL'
            ).df(),
        )

    def labelled_cells(self, *, judge: str | None = None, category: str | None = None) -> LabelledCells:
        """Calls carrying both a verdict and a human label, counted per (instruction, ordered
        pair, verdict, label) on sorted model and instruction axes (see
        :class:`~evalcore.store.queries.LabelledCells`)."""
        return self.query(store_queries.labelled_cells, judge=judge, category=category)

    def orders_share(
        self,
        *,
        judge: str | None = None,
        candidate: str | None = None,
        baseline: str | None = None,
        category: str | None = None,
    ) -> tuple[int, int]:
        """(keys judged in both orders, all keys) over the selection's (instruction, unordered
        pair) keys: the candidate's comparisons (with ``baseline`` if given) by ``judge`` in
        ``category`` (None: all)."""
        return self._once(
            ("orders_share", judge, candidate, baseline, category),
            lambda: self.query(
                store_queries.orders_share,
                judge=judge,
                candidate=candidate,
                baseline=baseline,
                category=category,
            ),
        )

    def calibration_patterns(
        self,
        *,
        judge: str | None = None,
        candidate: str | None = None,
        baseline: str | None = None,
        category: str | None = None,
        labelled: str | None = None,
        both_orders: bool = False,
    ) -> CalibrationPatterns:
        """The candidate's judged outcomes (in ``category``) and labelled confusion matrix (in
        ``labelled``) per instruction pattern, per call or per both-orders unit (see
        :func:`evalcore.calibration.calibration_counts`)."""
        return self._once(
            ("calibration_patterns", judge, candidate, baseline, category, labelled, both_orders),
            lambda: self.query(
                store_queries.calibration_patterns,
                judge=judge,
                candidate=candidate,
                baseline=baseline,
                category=category,
                labelled=labelled,
                both_orders=both_orders,
            ),
        )

    def score_cells(
        self, *, judge: str | None = None, category: str | None = None, cluster: str | None = None
    ) -> dict:
        """Per (instruction, slot-A model, slot-B model) cell: the judge's calls and slot A's score,
        and on labelled rows the human's and the judge's score (what prediction-powered ratings
        read; see :func:`evalcore.store.queries.score_cells`); per unit of ``cluster`` (a unit
        column) instead of per instruction when given."""
        units = None if cluster in (None, "instruction") else self._units(str(cluster))
        return self.query(store_queries.score_cells, judge=judge, category=category, units=units)

    def style_rows(
        self,
        *,
        judge: str | None = None,
        category: str | None = None,
        features: tuple[str, ...] | list[str] = (),
    ):
        """Judge calls with per-answer ``features`` for style control, as numpy arrays.

        Returns :class:`evalcore.features.StyleRows`: one row per call with a verdict between two
        models (instruction, models, judge, score, feature values), models, judges and
        instructions numbered in DuckDB. A feature is ``"length"``, a Markdown element (``"headers"``, ``"bold"``,
        ``"lists"``: counted in the answers' text when the table holds ``response_a`` and
        ``response_b``, else read from ``feat_<element>_a/_b``) or the ``<name>`` of any
        ``feat_<name>_a/_b`` pair; :meth:`feature_sources` lists what this table can supply.
        Calls missing a requested feature are left out and counted in ``dropped``.
        """
        from evalcore.store.style import style_rows

        return style_rows(self.con, judge=judge, category=category, features=tuple(features), text=self.text)

    def feature_sources(self) -> dict[str, str]:
        """Per-answer features this table can supply for style control → their source, in words."""
        from evalcore.store.style import feature_sources

        return feature_sources(self.con, self.text)

    def summary(self) -> DatasetSummary:
        """The dataset summary shown on the home page and by ``python -m evalcore summary``."""
        return summarise(self)


def _plain_shape(cur: duckdb.DuckDBPyConnection) -> list[tuple[str, str]]:
    """The stored table's contract columns and types (without the weight and features)."""
    return [c for c in _shape(cur, "verdicts") if c[0] in CANONICAL_COLUMNS]


def _shape(cur: duckdb.DuckDBPyConnection, table: str) -> list[tuple[str, str]]:
    """A table's column names and types, in order."""
    return [(str(r[0]), str(r[1])) for r in cur.execute(f"DESCRIBE {table}").fetchall()]


def counts_from_aggregate(agg: pd.DataFrame, *, judge: str | None) -> VerdictCounts:
    """Sparse counts from (instruction_id, model_a, model_b, verdict, n) rows (any order;
    repeated keys are summed; self-comparisons and missing verdicts are dropped)."""
    import pandas as pd

    agg = agg[agg["verdict"].notna() & (agg["model_a"] != agg["model_b"])]
    models = tuple(sorted(pd.unique(pd.concat([agg["model_a"], agg["model_b"]]))))
    instructions = tuple(sorted(pd.unique(agg["instruction_id"])))
    m_index = pd.Index(models)
    i_index = pd.Index(instructions)
    k = agg["verdict"].to_numpy(dtype=np.int64) - LEVELS[0]
    n = np.zeros((len(agg), N_LEVELS), dtype=np.int64)
    n[np.arange(len(agg)), k] = agg["n"].to_numpy(dtype=np.int64)
    return VerdictCounts.from_cells(
        models=models,
        instructions=instructions,
        judge=judge,
        inst=i_index.get_indexer(agg["instruction_id"]),
        a=m_index.get_indexer(agg["model_a"]),
        b=m_index.get_indexer(agg["model_b"]),
        n=n,
    )


def read_verdicts(
    source: Source, *, name: str | None = None, limits: LoadLimits | None = None
) -> LoadedTable:
    """Read, recognise and validate a verdict file; raise :class:`VerdictFormatError` if it fails.

    The file is read by DuckDB into a store of its own (see
    :meth:`evalcore.store.store.VerdictStore.load_file`, the main path, which loads into a given store).
    Contract tables (CSV, CSV.gz, Parquet, JSON Lines) are validated in SQL; the native files of
    Arena-Hard-Auto, AlpacaEval, MT-Bench and Chatbot Arena are converted first. The returned
    ``format`` says which was recognised.
    """
    store = VerdictStore()
    if isinstance(source, bytes):
        return store.load_bytes(source, name=name or "upload", limits=limits)
    return store.load_file(source, name=name, limits=limits)


def _selected_cells(counts: VerdictCounts, keep: np.ndarray) -> VerdictCounts:
    """The counts of the cells ``keep`` (a mask over the cells), the models and instructions
    narrowed to those the kept cells name, each in its own order: what reading only those calls
    gives (one category of an arena table, :meth:`VerdictStore.counts`)."""
    rows = np.flatnonzero(keep)
    inst, a, b = counts.inst[rows], counts.a[rows], counts.b[rows]
    # the instructions and models left, numbered in their order (cells stay sorted)
    if inst.size and not (inst[1:] < inst[:-1]).any():
        # cells sorted by instruction: a new number where the instruction changes, a pass over
        # the kept cells only (not two arrays the size of every instruction, per category)
        start = np.r_[True, inst[1:] != inst[:-1]]
        kept_inst, inst_of_cell = inst[start].astype(np.int64), np.cumsum(start) - 1
    else:
        kept_inst = np.flatnonzero(np.bincount(inst, minlength=counts.n_instructions))
        new_inst = np.full(counts.n_instructions, -1, dtype=np.int64)
        new_inst[kept_inst] = np.arange(kept_inst.size)
        inst_of_cell = new_inst[inst]
    met = np.bincount(a, minlength=counts.n_models) + np.bincount(b, minlength=counts.n_models)
    kept_models = np.flatnonzero(met)
    new_model = np.full(counts.n_models, -1, dtype=np.int64)
    new_model[kept_models] = np.arange(kept_models.size)
    names = counts.instructions
    return VerdictCounts(
        models=tuple(counts.models[int(i)] for i in kept_models),
        instructions=select_names(names, kept_inst),
        judge=counts.judge,
        inst=inst_of_cell.astype(counts.inst.dtype),
        a=new_model[a].astype(counts.a.dtype),
        b=new_model[b].astype(counts.b.dtype),
        n=counts.n[rows],
    )


def _compared_models(
    models: tuple[str, ...], a: np.ndarray, b: np.ndarray
) -> tuple[tuple[str, ...], np.ndarray, np.ndarray]:
    """The models some cell compares (in the order of ``models``) and the cells' model indices
    renumbered among them (the order of the cells is kept: the renumbering is increasing)."""
    a, b = np.asarray(a), np.asarray(b)
    used = np.zeros(len(models), dtype=bool)
    used[a] = True
    used[b] = True
    if used.all():
        return models, a, b
    new = np.cumsum(used) - 1
    return tuple(m for m, kept in zip(models, used, strict=True) if kept), new[a], new[b]


def _numbers(column: Any) -> np.ndarray:
    """An Arrow column of integers without missing values as one numpy array, read from its
    buffers (pyarrow's own ``to_numpy`` loads pandas, 0.3 s a ranking never needs otherwise)."""
    if column.null_count:
        return column.to_numpy()
    dtype = np.dtype(str(column.type))  # int8, int32, uint64: numpy's names for Arrow's types
    parts = [
        np.frombuffer(c.buffers()[1], dtype=dtype, count=len(c), offset=c.offset * dtype.itemsize)
        for c in column.chunks
    ]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)


#: Most neighbouring ids with equal hashes compared one by one; beyond, compared as whole columns.
_FEW_EQUAL_HASHES = 10_000


def _changes(ids: Any, hashes: np.ndarray) -> np.ndarray:
    """Where a sorted column of instruction ids (Arrow) starts a new id: read off the ids'
    hashes (different hashes, different ids), the neighbours with equal hashes compared as
    strings (equal hashes are equal ids but for a collision). An arena table (every id once)
    has no equal neighbours, so no string is compared and pyarrow's compute functions (and the
    pandas they load) are not needed."""
    size = len(hashes)
    change = np.ones(size, dtype=bool)
    if size < 2:
        return change
    same = np.flatnonzero(hashes[1:] == hashes[:-1]) + 1
    if same.size == 0:
        return change
    if same.size <= _FEW_EQUAL_HASHES:
        change[same] = [ids[int(k)].as_py() != ids[int(k) - 1].as_py() for k in same]
        return change
    import pyarrow.compute as pc

    change[1:] = pc.not_equal(ids[1:], ids[:-1]).to_numpy(zero_copy_only=False)
    return change
