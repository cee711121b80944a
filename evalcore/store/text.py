"""The store's text: where prompts, answers and judge outputs live, and how a copied table
borrows them.

The ``verdicts`` table holds no text, so counting and aggregation read exactly what they read
before. Text columns (``prompt``, ``response_a``, ``response_b``, ``judge_output``, ``call_id``,
``judged_at``) go, keyed by the row number (a primary key), into a table of an on-disk DuckDB
database in a temporary folder owned by the store and removed when it closes (or is collected).
A released arena preference set (150k rows, tens of kilobytes of text each, gigabytes in all)
does not fit an in-memory database; on disk, DuckDB reads back only the rows of the page shown.
While text is loaded the connection's memory is capped (``VERDICTLAB_TEXT_MEMORY``, default
1 GB) and anything beyond spills to the same folder.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import weakref
from typing import Callable, TypeVar

import duckdb

from evalcore._sql import sql_literal
from evalcore.schema import TEXT_COLUMNS

T = TypeVar("T")

#: How a text folder's name starts; the owner's process id follows (see :func:`sweep_orphans`).
FOLDER_PREFIX = "verdictlab-text-"

#: Name of the attached on-disk database that holds the text.
TEXT_DB = "vl_textdb"
_TEXT_COLS = ", ".join(TEXT_COLUMNS)
#: The text table: keyed by row number. The primary key's index makes fetching a page's rows a
#: point lookup (15-30 ms for 40 rows of 30 KB) instead of a scan that reads every block of
#: 2,048 rows holding one of them (seconds; measured in bench_verdicts.py).
_TEXT_SCHEMA = '("row" BIGINT PRIMARY KEY, ' + ", ".join(f"{c} VARCHAR" for c in TEXT_COLUMNS) + ")"
DEFAULT_TEXT_MEMORY = "1GB"


#: A lender's connection is shared by the sessions that borrow from it; its cursors (one per
#: reading thread) are made one at a time.
_CURSORS = threading.Lock()


def _cursor(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    with _CURSORS:
        return con.cursor()


def _fetch_rows(con: duckdb.DuckDBPyConnection, sql: str) -> dict[int, tuple]:
    cur = _cursor(con)
    try:
        return {int(r[0]): r[1:] for r in cur.execute(sql).fetchall()}
    finally:
        cur.close()


class TextArea:
    """The temporary folder and on-disk database of one store's text (created on first use).

    **Borrowed text.** A table copied from another store (every session's copy of the demo) does
    not copy its text at once: it borrows the other store's text table and copies it on first
    read (the Verdicts page, a text feature). Most sessions never read the text, and the demo's
    is 150 MB on disk; copied at load, it cost each new visitor 0.6 s and that much disk. Before
    the lending store drops or closes that table, each borrower copies it, so a borrower always
    reads the text of the table it loaded.
    """

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self.con = con
        self.folder: str | None = None
        self._cleanup: weakref.finalize | None = None
        self._current: str | None = None
        self._next: str | None = None
        self._generation = 0
        #: (the lending area, its table) until the borrowed text is first read
        self._borrowed: tuple[TextArea, str] | None = None
        #: areas that borrow this one's current table (copied before it goes)
        self._borrowers: weakref.WeakSet[TextArea] = weakref.WeakSet()
        self._lock = threading.RLock()
        #: values computed from the current table by :meth:`derived` (shared by its borrowers)
        self._derived: dict[object, object] = {}

    @property
    def current(self) -> str | None:
        """The current text table (qualified name), None when the loaded table has no text; a
        borrowed table is copied here first."""
        if self._borrowed is not None:
            self._copy_borrowed()
        return self._current

    def ensure(self) -> None:
        """Create the folder, attach the database, cap the memory (idempotent)."""
        if self.folder is not None:
            return
        sweep_orphans()
        # the owner's process id in the name: a folder whose process died without running its
        # clean-up (killed, or a server stopped hard) is found and removed by the next store
        folder = tempfile.mkdtemp(prefix=f"{FOLDER_PREFIX}{os.getpid()}-")
        self._cleanup = weakref.finalize(self, shutil.rmtree, folder, ignore_errors=True)
        # the folder name comes from mkdtemp, never from a user; quoted all the same
        self.con.execute(f"ATTACH {sql_literal(os.path.join(folder, 'text.duckdb'))} AS {TEXT_DB}")
        self.con.execute(f"SET temp_directory = {sql_literal(os.path.join(folder, 'spill'))}")
        memory = os.environ.get("VERDICTLAB_TEXT_MEMORY", DEFAULT_TEXT_MEMORY)
        self.con.execute("SET memory_limit = ?", [memory])
        # Texts of tens of kilobytes: DuckDB's dictionary/FSST compression of them at checkpoint
        # made loading 4x slower and fetching a page's rows 5-8x slower (it decodes whole
        # segments); stored plainly, a page reads only its own strings (bench_verdicts.py).
        self.con.execute("SET force_compression = 'uncompressed'")
        self.folder = folder

    @property
    def has_text(self) -> bool:
        return self._current is not None or self._borrowed is not None

    def _where(self) -> tuple[duckdb.DuckDBPyConnection, str] | None:
        """The connection and table holding the text now (the lender's for borrowed text, which
        is read there, not copied), None without text."""
        borrowed = self._borrowed
        if borrowed is not None:
            return borrowed[0].con, borrowed[1]
        return (self.con, self._current) if self._current is not None else None

    def has_answers(self) -> bool:
        """Whether the text holds both answers of some call (read where the text is: a borrowed
        table is not copied for this)."""
        with self._lock:
            where = self._where()
            if where is None:
                return False
            con, table = where
            cur = _cursor(con)
            try:
                found = cur.execute(
                    f"SELECT 1 FROM {table} WHERE response_a IS NOT NULL AND response_b IS NOT NULL LIMIT 1"
                ).fetchone()
            finally:
                cur.close()
            return found is not None

    def derived(self, key: object, make: Callable[[duckdb.DuckDBPyConnection, str], T]) -> T:
        """``make(connection, table)`` run where the text lives (the lender's database for
        borrowed text, which is not copied for this) and kept with that table under ``key``: every
        session that borrows the demo's text shares one result. The table must hold text."""
        borrowed = self._borrowed
        if borrowed is not None:
            lender, table = borrowed
            with lender._lock:
                if lender._current == table:  # else the lender moved on and this area copied it
                    return lender._derived_here(key, make)
        with self._lock:
            return self._derived_here(key, make)

    def _derived_here(self, key: object, make: Callable[[duckdb.DuckDBPyConnection, str], T]) -> T:
        table = self.current
        if table is None:
            raise ValueError("the loaded table has no text")
        if (table, key) not in self._derived:
            cur = _cursor(self.con)
            try:
                self._derived[(table, key)] = make(cur, table)
            finally:
                cur.close()
        return self._derived[(table, key)]  # type: ignore[return-value]

    def rows(self, numbers: list[int]) -> dict[int, tuple]:
        """The text columns (:data:`TEXT_COLUMNS`) of these row numbers, by row number, read where
        the text lives: a borrowed table is read at the lender, not copied (a page of cases reads
        a hundred rows; copying the demo's text first took half a second of every session's
        first visit to the Verdicts page). Rows without text are left out."""
        if not numbers:
            return {}
        # integers, never user text: listed inline so that DuckDB's scan skips every block of
        # text without one of them
        listed = ", ".join(str(int(r)) for r in sorted(set(numbers)))
        sql = 'SELECT "row", {cols} FROM {table} WHERE "row" IN ({listed})'
        borrowed = self._borrowed
        if borrowed is not None:
            lender, table = borrowed
            with lender._lock:
                if lender._current == table:  # else the lender moved on and this area copied it
                    return _fetch_rows(lender.con, sql.format(cols=_TEXT_COLS, table=table, listed=listed))
        with self._lock:
            own = self.current
            if own is None:
                return {}
            return _fetch_rows(self.con, sql.format(cols=_TEXT_COLS, table=own, listed=listed))

    def reader(self):
        """The current text as an Arrow record-batch reader, read where it lives; None without."""
        where = self._where()
        if where is None:
            return None
        con, table = where
        return _cursor(con).sql(f'SELECT * FROM {table} ORDER BY "row"').to_arrow_reader()

    def borrowable(self) -> tuple[TextArea, str] | None:
        """What a store copying this one's table borrows: the lending area and its table (the
        original lender when this area itself borrows), None without text."""
        with self._lock:
            if self._borrowed is not None:
                return self._borrowed
            return (self, self._current) if self._current is not None else None

    def _copy_borrowed(self) -> None:
        with self._lock:
            if self._borrowed is None:
                return
            lender, table = self._borrowed
            reader = _cursor(lender.con).sql(f"SELECT * FROM {table}").to_arrow_reader()
            cur = self.con.cursor()
            try:
                cur.register("vl_borrowed_text", reader)
                self.stage(cur, "vl_borrowed_text", probe=False)
                self._current, self._next, self._borrowed = self._next, None, None
                lender._borrowers.discard(self)
            except Exception:
                self.discard(cur)
                raise
            finally:
                cur.unregister("vl_borrowed_text")
                cur.close()

    def _release_borrowers(self) -> None:
        """Let every borrower copy this area's current table before it is dropped."""
        for borrower in list(self._borrowers):
            borrower._copy_borrowed()
        self._borrowers.clear()

    def _new_table(self, cur: duckdb.DuckDBPyConnection) -> str:
        """A new, empty text table (tables with an index cannot be renamed: each load gets its
        own name, and the previous one is dropped when the new one becomes current)."""
        self.ensure()
        self.discard(cur)
        self._generation += 1
        self._next = f"{TEXT_DB}.verdict_text_{self._generation}"
        cur.execute(f"CREATE TABLE {self._next} {_TEXT_SCHEMA}")
        return self._next

    def stage(
        self, cur: duckdb.DuckDBPyConnection, source: str, row: str = '"row"', *, probe: bool = True
    ) -> bool:
        """Copy the rows of ``source`` (a table or view with the text columns) that carry any text
        into the next text table; False (nothing staged) when no row carries text. ``probe=False``
        skips that check, for a source that can be read only once (an Arrow stream)."""
        any_text = " OR ".join(f"{c} IS NOT NULL" for c in TEXT_COLUMNS)
        if probe and cur.execute(f"SELECT 1 FROM {source} WHERE {any_text} LIMIT 1").fetchone() is None:
            return False
        table = self._new_table(cur)
        cur.execute(
            f'INSERT INTO {table} SELECT CAST({row} AS BIGINT) AS "row", {_TEXT_COLS} '
            f"FROM {source} WHERE {any_text}"
        )
        return True

    def publish(
        self, cur: duckdb.DuckDBPyConnection, staged: bool, *, borrow: tuple[TextArea, str] | None = None
    ) -> None:
        """Make the staged text current (or drop the old text when the new table has none);
        ``borrow`` (from :meth:`borrowable` of another store's area) is the text instead, copied on
        first read."""
        with self._lock:
            if self._current is not None:
                self._release_borrowers()
                cur.execute(f"DROP TABLE IF EXISTS {self._current}")
            if self._borrowed is not None:
                self._borrowed[0]._borrowers.discard(self)
            self._derived.clear()
            self._current, self._next = (self._next if staged else None), None
            self._borrowed = None if staged else borrow
            if self._borrowed is not None:
                self._borrowed[0]._borrowers.add(self)

    def attach_answers(self, cur: duckdb.DuckDBPyConnection, answers: str) -> int:
        """Fill in missing answers (and prompts) from ``answers`` (a registered relation with
        instruction_id, model, prompt, answer): a row's ``response_a`` is the answer of its
        ``model_a`` to its instruction, ``response_b`` likewise. Text already there is kept.
        Returns the number of answer cells filled."""
        has = self.has_text
        old = (
            self.current
            if has
            else f'(SELECT NULL::BIGINT AS "row", {", ".join(f"NULL::VARCHAR AS {c}" for c in TEXT_COLUMNS)} LIMIT 0)'
        )
        before = _filled(cur, self.current) if self.current is not None else 0
        others = ", ".join(f"t.{c}" for c in TEXT_COLUMNS if c not in ("prompt", "response_a", "response_b"))
        table = self._new_table(cur)
        cur.execute(f"""
            INSERT INTO {table}
            WITH ans AS (SELECT instruction_id, model, any_value(prompt) AS prompt,
                                any_value(answer) AS answer FROM {answers} GROUP BY ALL)
            SELECT v."row", coalesce(t.prompt, qa.prompt, qb.prompt) AS prompt,
                   coalesce(t.response_a, qa.answer) AS response_a,
                   coalesce(t.response_b, qb.answer) AS response_b, {others}
            FROM verdicts v LEFT JOIN {old} t ON t."row" = v."row"
                 LEFT JOIN ans qa ON qa.instruction_id = v.instruction_id AND qa.model = v.model_a
                 LEFT JOIN ans qb ON qb.instruction_id = v.instruction_id AND qb.model = v.model_b
            WHERE {" OR ".join(f"{c} IS NOT NULL" for c in ("t.prompt", "qa.prompt", "qb.prompt", "t.response_a", "qa.answer", "t.response_b", "qb.answer", *(f"t.{c}" for c in TEXT_COLUMNS[3:])))}
            ORDER BY v."row"
            """)
        after = _filled(cur, table)
        self.publish(cur, True)
        return after - before

    def discard(self, cur: duckdb.DuckDBPyConnection) -> None:
        if self._next is not None:
            cur.execute(f"DROP TABLE IF EXISTS {self._next}")
            self._next = None

    def release(self) -> None:
        """Before the store's connection closes: borrowers copy this area's table, and this area
        stops borrowing (idempotent)."""
        with self._lock:
            if self._current is not None:
                self._release_borrowers()
            if self._borrowed is not None:
                self._borrowed[0]._borrowers.discard(self)
                self._borrowed = None

    def close(self) -> None:
        """Delete the folder (after :meth:`release` and the connection's close)."""
        if self._cleanup is not None:
            self._cleanup()


def _alive(pid: int) -> bool:
    """Whether a process with this id runs (one of another user's counts as running)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep_orphans(tmp: str | None = None) -> list[str]:
    """Remove the text folders of processes that are gone; returns the folders removed.

    A store removes its folder when it closes, when it is collected and at the interpreter's
    exit, but a process killed outright runs none of these: each such folder held the demo's
    150 MB of text, and hundreds of them filled a disk. Only a folder whose name carries a
    process id that no longer runs is removed, never a running process's own.
    """
    removed: list[str] = []
    root = tmp or tempfile.gettempdir()
    try:
        names = os.listdir(root)
    except OSError:
        return removed
    for name in names:
        if not name.startswith(FOLDER_PREFIX):
            continue
        pid_text, dash, _ = name[len(FOLDER_PREFIX) :].partition("-")
        if not dash or not pid_text.isdigit() or int(pid_text) == os.getpid() or _alive(int(pid_text)):
            continue  # a folder without an owner's id (older versions) is left alone
        path = os.path.join(root, name)
        shutil.rmtree(path, ignore_errors=True)
        removed.append(path)
    return removed


def _filled(cur: duckdb.DuckDBPyConnection, table: str) -> int:
    got = cur.execute(f"SELECT count(response_a) + count(response_b) FROM {table}").fetchone()
    return int(got[0]) if got else 0
