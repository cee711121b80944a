"""The store's text and its cases: where prompts, answers and judge outputs live, and the SQL
that pages through the cases behind every number.

**Where the text lives.** The ``verdicts`` table holds no text, so counting and aggregation read
exactly what they read before. Text columns (``prompt``, ``response_a``, ``response_b``,
``judge_output``, ``call_id``, ``judged_at``) go, keyed by the row number (a primary key), into a
table of an on-disk DuckDB database in a temporary folder owned by the store and removed
when it closes (or is collected). A released arena preference set (150k rows, tens of kilobytes
of text each, gigabytes in all) does not fit an in-memory database; on disk, DuckDB compresses it
and reads back only the rows of the page shown. While text is loaded the connection's memory is
capped (``VERDICTLAB_TEXT_MEMORY``, default 1 GB) and anything beyond spills to the same folder.

**Queries.** A case is one (judge, instruction, unordered pair). Cases are grouped in SQL over the
text-free ``verdicts`` table; the free-text search scans the text table once and joins its
matching row numbers. Every user value reaches SQL as a bound parameter.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import weakref
from typing import TYPE_CHECKING, Any, Callable, TypeVar

import duckdb

from evalcore.schema import TEXT_COLUMNS
from evalcore.verdicts.cases import VerdictCall, VerdictCase, VerdictFilter, VerdictPage

if TYPE_CHECKING:
    from evalcore.store import VerdictStore

T = TypeVar("T")

#: Name of the attached on-disk database that holds the text.
TEXT_DB = "vl_textdb"
_TEXT_COLS = ", ".join(TEXT_COLUMNS)
#: The text table: keyed by row number. The primary key's index makes fetching a page's rows a
#: point lookup (15-30 ms for 40 rows of 30 KB) instead of a scan that reads every block of
#: 2,048 rows holding one of them (seconds; measured in bench_verdicts.py).
_TEXT_SCHEMA = '("row" BIGINT PRIMARY KEY, ' + ", ".join(f"{c} VARCHAR" for c in TEXT_COLUMNS) + ")"
#: The text columns searched by ``VerdictFilter.search``.
SEARCHED = ("prompt", "response_a", "response_b", "judge_output")
DEFAULT_TEXT_MEMORY = "1GB"
MAX_LIMIT = 500


def _lit(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


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
        folder = tempfile.mkdtemp(prefix="verdictlab-text-")
        self._cleanup = weakref.finalize(self, shutil.rmtree, folder, ignore_errors=True)
        # the folder name comes from mkdtemp, never from a user; quoted all the same
        self.con.execute(f"ATTACH {_lit(os.path.join(folder, 'text.duckdb'))} AS {TEXT_DB}")
        self.con.execute(f"SET temp_directory = {_lit(os.path.join(folder, 'spill'))}")
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

    def has_answers(self) -> bool:
        """Whether the text holds both answers of some call (read where the text is: a borrowed
        table is not copied for this)."""
        with self._lock:
            if self._borrowed is not None:
                con, table = self._borrowed[0].con, self._borrowed[1]
            elif self._current is not None:
                con, table = self.con, self._current
            else:
                return False
            cur = con.cursor()
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
            cur = self.con.cursor()
            try:
                self._derived[(table, key)] = make(cur, table)
            finally:
                cur.close()
        return self._derived[(table, key)]  # type: ignore[return-value]

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
            reader = lender.con.cursor().sql(f"SELECT * FROM {table}").to_arrow_reader()
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
        self.release()
        if self._cleanup is not None:
            self._cleanup()


def _filled(cur: duckdb.DuckDBPyConnection, table: str) -> int:
    got = cur.execute(f"SELECT count(response_a) + count(response_b) FROM {table}").fetchone()
    return int(got[0]) if got else 0


# -- cases --------------------------------------------------------------------------------------

_CASE_FILTER = """
    ($judge IS NULL OR judge = $judge)
    AND ($instruction IS NULL OR instruction_id = $instruction)
    AND ($category IS NULL OR category = $category)
    AND (CASE WHEN $a IS NOT NULL AND $b IS NOT NULL
              THEN least(model_a, model_b) = least($a, $b) AND greatest(model_a, model_b) = greatest($a, $b)
              WHEN $a IS NOT NULL THEN model_a = $a OR model_b = $a
              WHEN $b IS NOT NULL THEN model_a = $b OR model_b = $b
              ELSE true END)
    AND ($beats IS NULL OR ((model_a = $beats OR model_b = $beats) AND EXISTS (
        -- instructions where every opponent's mean verdict against $beats is a loss
        -- (evalcore.anchors.win_rate_distribution's anchor_beats_all)
        SELECT 1 FROM (
            SELECT judge AS w_judge, instruction_id AS w_inst,
                   CASE WHEN model_a = $beats THEN model_b ELSE model_a END AS rival,
                   avg(CASE WHEN model_a = $beats THEN -verdict ELSE verdict END) AS v
            FROM verdicts
            WHERE verdict IS NOT NULL AND model_a <> model_b AND (model_a = $beats OR model_b = $beats)
              AND ($judge IS NULL OR judge = $judge) AND ($category IS NULL OR category = $category)
            GROUP BY ALL) w
        WHERE w.w_judge = verdicts.judge AND w.w_inst = verdicts.instruction_id
        GROUP BY w.w_judge, w.w_inst HAVING bool_and(w.v < 0))))"""

# One row per case. "flipped": both orders have a verdict and some call of one order and some
# call of the other name different outcomes read from m1's side (evalcore.judge.both_orders'
# flip); "disagrees": some call's verdict and human label name different outcomes (the per-call
# reading of evalcore.judge.agreement).
_CASES = """
    WITH calls AS (
        SELECT "row", judge, instruction_id, category, model_a, model_b, verdict, human,
               least(model_a, model_b) AS m1, greatest(model_a, model_b) AS m2
        FROM verdicts WHERE {where}),
    cases AS (
        SELECT judge, instruction_id, m1, m2, min("row") AS first_row,
            arg_min(category, "row") AS category,
            bool_or(verdict > 0) AS v_first, bool_or(verdict < 0) AS v_second,
            bool_or(verdict = 0) AS v_tie, bool_or(verdict IS NULL) AS v_none,
            (m1 <> m2
             AND bool_or(verdict IS NOT NULL AND model_a = m1)
             AND bool_or(verdict IS NOT NULL AND model_a <> m1)
             AND count(DISTINCT CASE WHEN model_a = m1 THEN sign(verdict) ELSE -sign(verdict) END) > 1
            ) AS flipped,
            bool_or(verdict IS NOT NULL AND human IS NOT NULL AND sign(verdict) <> sign(human)) AS disagrees,
            bool_or(verdict IS NOT NULL AND human IS NOT NULL) AS labelled
            {hit_col}
        FROM calls {hit_join} GROUP BY judge, instruction_id, m1, m2)
    SELECT judge, instruction_id, m1, m2, first_row, category, flipped, disagrees, labelled,
           count(*) OVER () AS total
    FROM cases
    WHERE ($verdict IS NULL OR ($verdict = 'first' AND v_first) OR ($verdict = 'second' AND v_second)
           OR ($verdict = 'tie' AND v_tie) OR ($verdict = 'none' AND v_none))
      AND (NOT $flipped OR flipped) AND (NOT $disagrees OR disagrees) {hit_where}
    ORDER BY first_row LIMIT $limit OFFSET $offset
"""

_HITS = """
    hits AS (SELECT DISTINCT "row" FROM {table}
             WHERE {match}),"""


def like_pattern(text: str) -> str:
    """``%text%`` for ``ILIKE … ESCAPE '\\'`` with ``%``, ``_`` and ``\\`` matched literally.

    Examples
    --------
    >>> like_pattern("50%_off")
    '%50\\\\%\\\\_off%'
    """
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _params(flt: VerdictFilter) -> dict[str, Any]:
    return {
        "judge": flt.judge,
        "instruction": flt.instruction,
        "category": flt.category,
        "a": flt.model_a,
        "b": flt.model_b,
        "verdict": flt.verdict,
        "flipped": flt.flipped,
        "disagrees": flt.disagrees_with_human,
        "beats": flt.beats_all,
    }


def case_page(
    store: VerdictStore, flt: VerdictFilter, *, offset: int, limit: int, text: TextArea
) -> VerdictPage:
    """One page of cases matching ``flt`` (see :meth:`VerdictStore.verdicts`)."""
    con = store.con
    has_text = text.has_text
    params = _params(flt) | {"limit": limit, "offset": offset}
    sql = _CASES.format(where=_CASE_FILTER, hit_col="", hit_join="", hit_where="")
    empty = VerdictPage(cases=(), total=0, offset=offset, limit=limit, has_text=has_text, filter=flt)
    if flt.search is not None:
        if not has_text:
            return empty
        match = " OR ".join(f"{c} ILIKE $q ESCAPE '\\'" for c in SEARCHED)
        candidates = _candidate_rows(con, flt)
        if candidates is not None:
            if not candidates:
                return empty
            # integers from the query above, never user text: inline, so that DuckDB's scan skips
            # the text of every other row instead of reading gigabytes
            match = f'"row" IN ({", ".join(str(r) for r in candidates)}) AND ({match})'
        sql = _CASES.format(
            where=_CASE_FILTER,
            hit_col=', bool_or(hits."row" IS NOT NULL) AS hit',
            hit_join='LEFT JOIN hits USING ("row")',
            hit_where="AND hit",
        ).replace("WITH calls AS", "WITH " + _HITS.format(table=text.current, match=match) + " calls AS", 1)
        params["q"] = like_pattern(flt.search)
    cur = con.cursor()
    try:
        rows = cur.execute(sql, params).fetchall()
        if rows:
            total = int(rows[0][-1])
        else:
            total = _count(cur, sql, params) if offset else 0
        cases = _cases(cur, rows, table=text.current)
    finally:
        cur.close()
    return VerdictPage(cases=cases, total=total, offset=offset, limit=limit, has_text=has_text, filter=flt)


#: Search only these rows' text when the other filters leave at most this many calls.
MAX_CANDIDATES = 20_000


def _candidate_rows(con: duckdb.DuckDBPyConnection, flt: VerdictFilter) -> list[int] | None:
    """The rows a search has to read when the row filters (judge, pair, instruction, category)
    leave few; None when there is no such filter or too many rows to list."""
    if not any((flt.judge, flt.model_a, flt.model_b, flt.instruction, flt.category, flt.beats_all)):
        return None
    keys = ("judge", "instruction", "category", "a", "b", "beats")
    params = {k: v for k, v in _params(flt).items() if k in keys}
    got = (
        con.cursor()
        .execute(f'SELECT "row" FROM verdicts WHERE {_CASE_FILTER} LIMIT {MAX_CANDIDATES + 1}', params)
        .fetchall()
    )
    return None if len(got) > MAX_CANDIDATES else sorted(int(r[0]) for r in got)


def _count(cur: duckdb.DuckDBPyConnection, sql: str, params: dict[str, Any]) -> int:
    """The total when the page is past the end (the window count came back with no row)."""
    got = cur.execute(sql, params | {"limit": 1, "offset": 0}).fetchall()
    return int(got[0][-1]) if got else 0


def _cases(
    cur: duckdb.DuckDBPyConnection, keys: list[tuple], *, table: str | None
) -> tuple[VerdictCase, ...]:
    """Build the page's cases: their calls from ``verdicts``, their text by row number."""
    if not keys:
        return ()
    calls = cur.execute(
        """
        WITH page AS (SELECT unnest($j) AS judge, unnest($i) AS instruction_id,
                             unnest($m1) AS m1, unnest($m2) AS m2)
        SELECT v."row", v.judge, v.instruction_id, least(v.model_a, v.model_b) AS m1,
               greatest(v.model_a, v.model_b) AS m2, v.model_a, v.model_b, v.verdict, v.human
        FROM verdicts v JOIN page p ON v.judge = p.judge AND v.instruction_id = p.instruction_id
             AND least(v.model_a, v.model_b) = p.m1 AND greatest(v.model_a, v.model_b) = p.m2
        ORDER BY v."row"
        """,
        {
            "j": [k[0] for k in keys],
            "i": [k[1] for k in keys],
            "m1": [k[2] for k in keys],
            "m2": [k[3] for k in keys],
        },
    ).fetchall()
    texts: dict[int, tuple] = {}
    if table is not None and calls:
        row_numbers = sorted({int(c[0]) for c in calls})
        # row numbers come from the query above (integers), never from a user: listed inline so
        # that DuckDB's scan skips every block of text without one of them
        got = cur.execute(
            f'SELECT "row", {_TEXT_COLS} FROM {table} WHERE "row" IN '
            f"({', '.join(str(r) for r in row_numbers)})"
        ).fetchall()
        texts = {int(r[0]): r[1:] for r in got}
    by_case: dict[tuple, list[tuple]] = {}
    for c in calls:
        by_case.setdefault((c[1], c[2], c[3], c[4]), []).append(c)
    out = []
    for judge, instruction, m1, m2, _first, category, flipped, disagrees, labelled, _total in keys:
        rows = by_case.get((judge, instruction, m1, m2), [])
        out.append(_case(judge, instruction, category, flipped, disagrees, labelled, rows, texts))
    return tuple(out)


def _case(
    judge: str,
    instruction: str,
    category: str | None,
    flipped: bool,
    disagrees: bool,
    labelled: bool,
    rows: list[tuple],
    texts: dict[int, tuple],
) -> VerdictCase:
    models = (str(rows[0][5]), str(rows[0][6]))
    prompt: str | None = None
    answers: dict[str, str | None] = {models[0]: None, models[1]: None}
    calls = []
    human: int | None = None
    for row, _j, _i, _m1, _m2, model_a, model_b, verdict, row_human in rows:
        t = texts.get(int(row))
        prompt_t, resp_a, resp_b, output, call_id, judged_at = t if t is not None else (None,) * 6
        prompt = prompt if prompt is not None else prompt_t
        if answers.get(model_a) is None:
            answers[model_a] = resp_a
        if answers.get(model_b) is None:
            answers[model_b] = resp_b
        if human is None and row_human is not None:
            human = int(row_human) if model_a == models[0] else -int(row_human)
        calls.append(
            VerdictCall(
                row=int(row),
                model_a=model_a,
                model_b=model_b,
                verdict=None if verdict is None else int(verdict),
                judge_output=output,
                call_id=call_id,
                judged_at=judged_at,
                human=None if row_human is None else int(row_human),
            )
        )
    return VerdictCase(
        judge=judge,
        instruction=instruction,
        category=category,
        models=models,
        prompt=prompt,
        answers=answers,
        calls=tuple(calls),
        human=human,
        flipped=bool(flipped),
        agrees_with_human=(not disagrees) if labelled else None,
    )


def options(store: VerdictStore, text: TextArea) -> dict[str, Any]:
    """Distinct judges, models, categories (the pickers of the Verdicts page) and has_text."""
    return {
        "judges": list(store.judges()),
        "models": list(store.models()),
        "categories": list(store.categories()),
        "has_text": text.has_text,
    }
