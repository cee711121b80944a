"""The store's cases: the SQL that pages through the cases behind every number (the text they
show lives in :mod:`evalcore.store.text`).

A case is one (judge, instruction, unordered pair). Cases are grouped in SQL over the text-free
``verdicts`` table; the free-text search scans the text table once and joins its matching row
numbers. Every user value reaches SQL as a bound parameter.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

import duckdb

from evalcore.store.case_index import indexed, indexed_keys, indexed_stats
from evalcore.store.queries import disagreement_units_sql
from evalcore.store.text import TEXT_DB, TextArea
from evalcore.text import timestamp_text
from evalcore.verdicts.cases import CaseStats, VerdictCall, VerdictCase, VerdictFilter, VerdictPage

if TYPE_CHECKING:
    from evalcore.store.store import VerdictStore

__all__ = [
    "TEXT_DB",
    "CaseStats",
    "TextArea",
    "case_page",
    "case_stats",
    "casefold_match",
    "options",
    "like_pattern",
]

#: The text columns searched by ``VerdictFilter.search``.
SEARCHED = ("prompt", "response_a", "response_b", "judge_output")
MAX_LIMIT = 500


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
                   sum(weight * CASE WHEN model_a = $beats THEN -verdict ELSE verdict END) / sum(weight) AS v
            FROM verdicts
            WHERE verdict IS NOT NULL AND model_a <> model_b AND (model_a = $beats OR model_b = $beats)
              AND ($judge IS NULL OR judge = $judge) AND ($category IS NULL OR category = $category)
            GROUP BY ALL) w
        WHERE w.w_judge = verdicts.judge AND w.w_inst = verdicts.instruction_id
        GROUP BY w.w_judge, w.w_inst HAVING bool_and(w.v < 0))))
    AND {win}"""

# The calibration's disagreeing units (evalcore.store.queries.disagreement_units_sql): a case of
# $win is kept when its (judge, instruction, opponent) holds one.
_WIN_FILTER = """($win IS NULL OR ((model_a = $win OR model_b = $win) AND EXISTS (
        SELECT 1 FROM ({units}) u
        WHERE u.judge = verdicts.judge AND u.instruction_id = verdicts.instruction_id
          AND u.opponent = CASE WHEN verdicts.model_a = $win THEN verdicts.model_b ELSE verdicts.model_a END)))"""


def _case_filter(flt: VerdictFilter) -> str:
    """The row filter of ``flt`` (:data:`_CASE_FILTER`, with the calibration units it names)."""
    if flt.win_disagrees is None:
        return _CASE_FILTER.format(win="$win IS NULL")
    units = disagreement_units_sql(both_orders=flt.unit == "both")
    # the units' own parameters, renamed to the filter's: the candidate is $win, any opponent
    # (the pair filter already narrows), the labelled slice is the filter's category
    units = units.replace("$candidate", "$win").replace("$baseline", "NULL").replace("$labelled", "$category")
    return _CASE_FILTER.format(win=_WIN_FILTER.format(units=units))


# One row per case. "flipped": both orders have a verdict and some call of one order and some
# call of the other name different outcomes read from m1's side (evalcore.judge.both_orders'
# flip): the outcomes differ exactly when the smallest and the largest differ (a minimum and a
# maximum instead of a distinct count: on the demo the switch's grouping of every call by case
# took 0.20 CPU s with the count, 0.145 without); "disagrees": some call's verdict and human
# label name different outcomes (the per-call reading of evalcore.judge.agreement).
_CASES = """
    WITH calls AS (
        SELECT "row", judge, instruction_id, category, model_a, model_b, verdict, human, weight,
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
             AND min(CASE WHEN model_a = m1 THEN sign(verdict) ELSE -sign(verdict) END)
                 < max(CASE WHEN model_a = m1 THEN sign(verdict) ELSE -sign(verdict) END)
            ) AS flipped,
            bool_or(verdict IS NOT NULL AND human IS NOT NULL AND sign(verdict) <> sign(human)) AS disagrees,
            bool_or(verdict IS NOT NULL AND human IS NOT NULL) AS labelled,
            sum(weight) AS n_calls, coalesce(sum(weight) FILTER (WHERE verdict IS NOT NULL), 0) AS n_verdicts,
            coalesce(sum(weight) FILTER (WHERE m1 <> m2 AND sign(CASE WHEN model_a = $a THEN verdict ELSE -verdict END) > 0), 0) AS a_wins,
            coalesce(sum(weight) FILTER (WHERE m1 <> m2 AND verdict = 0), 0) AS a_ties,
            coalesce(sum(weight) FILTER (WHERE m1 <> m2 AND sign(CASE WHEN model_a = $a THEN verdict ELSE -verdict END) < 0), 0) AS a_losses,
            -- the calibration's per-call units: the judge and the human disagree on whether $win won
            coalesce(sum(weight) FILTER (WHERE verdict IS NOT NULL AND human IS NOT NULL
                AND (sign(CASE WHEN model_a = $win THEN verdict ELSE -verdict END) = 1)
                    <> (sign(CASE WHEN model_a = $win THEN human ELSE -human END) = 1)), 0) AS win_calls
            {hit_col}
        FROM calls {hit_join} GROUP BY judge, instruction_id, m1, m2)
    {final}
    FROM cases
    WHERE ($verdict IS NULL OR ($verdict = 'first' AND v_first) OR ($verdict = 'second' AND v_second)
           OR ($verdict = 'tie' AND v_tie) OR ($verdict = 'none' AND v_none))
      AND (NOT $flipped OR flipped) AND (NOT $disagrees OR disagrees) {hit_where}
    {order}
"""
_PAGE_SELECT = """SELECT judge, instruction_id, m1, m2, first_row, category, flipped, disagrees, labelled,
           count(*) OVER () AS total"""
_PAGE_ORDER = "ORDER BY first_row LIMIT $limit OFFSET $offset"
#: What the matching cases hold, in one row (:func:`case_stats`).
_STATS_SELECT = """SELECT count(*), count(DISTINCT instruction_id), coalesce(sum(n_calls), 0),
           coalesce(sum(n_verdicts), 0), coalesce(sum(a_wins), 0), coalesce(sum(a_ties), 0),
           coalesce(sum(a_losses), 0), coalesce(sum(win_calls), 0), count(*) FILTER (WHERE flipped)"""

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


# -- search: Unicode case folding ----------------------------------------------------------------

#: The characters whose Unicode full case folding (Python's ``str.casefold``) differs from what
#: DuckDB's ``lower()`` makes of them: ``İ`` (``lower`` gives ``i``, folding gives ``i̇``), ``ß``
#: (``ss``), final ``ς`` (``σ``), ``ﬁ`` (``fi``), Cherokee, Greek with iota subscript, … Every
#: other character folds as ``lower()`` lowercases it. Found by comparing the two over every code
#: point; ``tests/verdicts/test_search_fold.py`` repeats that comparison (slow) and fails if a
#: new DuckDB or Python changes either.
FOLDED = (
    "\u00b5\u00df\u0130\u0149\u017f\u01f0\u0345\u0390\u03b0\u03c2\u03d0\u03d1\u03d5\u03d6"
    "\u03f0\u03f1\u03f5\u0587\u1c80\u1c81\u1c82\u1c83\u1c84\u1c85\u1c86\u1c87\u1c88\u1e96"
    "\u1e97\u1e98\u1e99\u1e9a\u1e9b\u1e9e\u1f50\u1f52\u1f54\u1f56\u1f80\u1f81\u1f82\u1f83"
    "\u1f84\u1f85\u1f86\u1f87\u1f88\u1f89\u1f8a\u1f8b\u1f8c\u1f8d\u1f8e\u1f8f\u1f90\u1f91"
    "\u1f92\u1f93\u1f94\u1f95\u1f96\u1f97\u1f98\u1f99\u1f9a\u1f9b\u1f9c\u1f9d\u1f9e\u1f9f"
    "\u1fa0\u1fa1\u1fa2\u1fa3\u1fa4\u1fa5\u1fa6\u1fa7\u1fa8\u1fa9\u1faa\u1fab\u1fac\u1fad"
    "\u1fae\u1faf\u1fb2\u1fb3\u1fb4\u1fb6\u1fb7\u1fbc\u1fbe\u1fc2\u1fc3\u1fc4\u1fc6\u1fc7"
    "\u1fcc\u1fd2\u1fd3\u1fd6\u1fd7\u1fe2\u1fe3\u1fe4\u1fe6\u1fe7\u1ff2\u1ff3\u1ff4\u1ff6"
    "\u1ff7\u1ffc\ufb00\ufb01\ufb02\ufb03\ufb04\ufb05\ufb06\ufb13\ufb14\ufb15\ufb16\ufb17"
)


@cache
def _fold_table() -> tuple[tuple[str, str, str, str], ...]:
    """For each of :data:`FOLDED`: the character, its case folding, and what ``lower()`` makes
    of each (computed once per process, by DuckDB itself)."""
    folds = [c.casefold() for c in FOLDED]
    con = duckdb.connect()
    try:
        rows = con.execute(
            "SELECT c, lower(c), lower(f) FROM (SELECT unnest($c) AS c, unnest($f) AS f)",
            {"c": list(FOLDED), "f": folds},
        ).fetchall()
    finally:
        con.close()
    lowered = {c: (c_lower, f_lower) for c, c_lower, f_lower in rows}
    return tuple((c, f, *lowered[c]) for c, f in zip(FOLDED, folds, strict=True))


def casefold_match(columns: tuple[str, ...], needle: str) -> tuple[str, dict[str, str]]:
    """SQL that is true where one of ``columns`` contains ``needle`` under Unicode full case
    folding: ``needle.casefold() in text.casefold()``, as Python reads it, for every character.

    DuckDB's ``ILIKE`` lowercases one character to one (``İ`` to ``i``, so a search for ``İ``
    matched every ``i``; ``ß`` never matched ``ss``). Here ``lower()`` does the work for every
    character whose folding it already gives, and a ``replace`` puts the folding in first for the
    few where it does not (:data:`FOLDED`), only for those whose folding or lowercase shares a
    character with the folded needle: any other such character cannot be part of a match either
    way, so leaving it out changes no answer and saves a pass over the text.

    Parameters
    ----------
    columns : tuple of str
        Column names (the store's own, never user text).
    needle : str
        The search text (bound as a parameter, with ``%``, ``_`` and ``\\`` matched literally).

    Returns
    -------
    tuple of (str, dict)
        The condition and its parameters (``q`` and the replacements).

    Examples
    --------
    >>> casefold_match(("prompt",), "x")
    ("lower(prompt) LIKE lower($q) ESCAPE '\\\\'", {'q': '%x%'})
    >>> sql, params = casefold_match(("prompt",), "İ")
    >>> params["q"], [v for k, v in params.items() if k.startswith("fold_from")]
    ('%i̇%', ['İ', 'ﬁ', 'ﬃ'])
    """
    folded = needle.casefold()
    wanted = set(folded) | set(folded.lower())  # the needle's characters, before and after lower()
    params: dict[str, str] = {"q": like_pattern(folded)}
    replacements: list[int] = []
    for char, fold, char_lower, fold_lower in _fold_table():
        if wanted & (set(fold) | set(char_lower) | set(fold_lower)):
            k = len(replacements)
            params[f"fold_from_{k}"], params[f"fold_to_{k}"] = char, fold
            replacements.append(k)
    conditions = []
    for column in columns:
        expr = column
        for k in replacements:
            expr = f"replace({expr}, $fold_from_{k}, $fold_to_{k})"
        conditions.append(f"lower({expr}) LIKE lower($q) ESCAPE '\\'")
    return " OR ".join(conditions), params


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
        "win": flt.win_disagrees,
    }


#: The page of cases and what every matching case holds, from one grouping of the calls: the
#: matching cases are kept once (DuckDB materialises them), then both read from them.
_PAGE_AND_STATS = """
    WITH kept AS MATERIALIZED ({cases}),
    stats AS ({stats} FROM kept),
    page AS (SELECT judge, instruction_id, m1, m2, first_row, category, flipped, disagrees, labelled
             FROM kept ORDER BY first_row LIMIT $limit OFFSET $offset)
    SELECT page.*, stats.* FROM stats LEFT JOIN page ON true ORDER BY page.first_row
"""
#: Columns of a row of :data:`_PAGE_AND_STATS` before the statistics.
_PAGE_COLUMNS = 9


def case_page(
    store: VerdictStore, flt: VerdictFilter, *, offset: int, limit: int, text: TextArea
) -> VerdictPage:
    """One page of cases matching ``flt`` (see :meth:`VerdictStore.verdicts`). Without a search,
    what the matching cases hold (:func:`case_stats`) comes from the same grouping of the calls
    and is kept for the store's next :func:`case_stats` of ``flt`` (the Verdicts page asks for
    both: an arena table's 1.8 million cases were grouped twice); once kept, the next pages
    group only for their own cases."""
    con = store.con
    has_text = text.has_text
    empty = VerdictPage(cases=(), total=0, offset=offset, limit=limit, has_text=has_text, filter=flt)
    selected = indexed(store, flt)
    if selected is not None:  # a selection of the cases grouped once (no grouping of every call)
        store.keep(("case_stats", flt), indexed_stats(selected, flt))  # for the page's counts
        with con.cursor() as cur:
            keys = indexed_keys(selected, offset=offset, limit=limit, total=len(selected))
            cases = _cases(cur, keys, text=text)
        return VerdictPage(
            cases=cases, total=len(selected), offset=offset, limit=limit, has_text=has_text, filter=flt
        )
    if flt.search is None and store.kept(("case_stats", flt)) is None:
        built = _cases_sql(con, flt, text, final="SELECT *", order="")
        if built is None:
            return empty
        sql, params = built
        sql = _PAGE_AND_STATS.format(cases=sql, stats=_STATS_SELECT)
        cur = con.cursor()
        try:
            got = cur.execute(sql, params | {"limit": limit, "offset": offset}).fetchall()
            stats = _stats_of(got[0][_PAGE_COLUMNS:])  # an aggregate: always one row
            rows = [(*row[:_PAGE_COLUMNS], stats.cases) for row in got if row[0] is not None]
            cases = _cases(cur, rows, text=text)
        finally:
            cur.close()
        store.keep(("case_stats", flt), stats)
        return VerdictPage(
            cases=cases, total=stats.cases, offset=offset, limit=limit, has_text=has_text, filter=flt
        )
    built = _cases_sql(con, flt, text, final=_PAGE_SELECT, order=_PAGE_ORDER)
    if built is None:
        return empty
    sql, params = built
    params |= {"limit": limit, "offset": offset}
    cur = con.cursor()
    try:
        rows = cur.execute(sql, params).fetchall()
        if rows:
            total = int(rows[0][-1])
        else:
            total = _count(cur, sql, params) if offset else 0
        cases = _cases(cur, rows, text=text)
    finally:
        cur.close()
    return VerdictPage(cases=cases, total=total, offset=offset, limit=limit, has_text=has_text, filter=flt)


def _stats_of(row: tuple | None) -> CaseStats:
    return CaseStats(*(int(v or 0) for v in (row or (0,) * 9)))


def _cases_sql(
    con: duckdb.DuckDBPyConnection, flt: VerdictFilter, text: TextArea, *, final: str, order: str
) -> tuple[str, dict[str, Any]] | None:
    """The cases query of ``flt`` with its parameters (``final``: its SELECT, ``order``: what
    follows the WHERE); None when a search cannot match (no text, or no row to read)."""
    params = _params(flt)
    sql = _CASES.format(
        where=_case_filter(flt), hit_col="", hit_join="", hit_where="", final=final, order=order
    )
    if flt.search is not None:
        if not text.has_text:
            return None
        match, fold_params = casefold_match(SEARCHED, flt.search)
        candidates = _candidate_rows(con, flt)
        if candidates is not None:
            if not candidates:
                return None
            # integers from the query above, never user text: inline, so that DuckDB's scan skips
            # the text of every other row instead of reading gigabytes
            match = f'"row" IN ({", ".join(str(r) for r in candidates)}) AND ({match})'
        sql = _CASES.format(
            where=_case_filter(flt),
            hit_col=', bool_or(hits."row" IS NOT NULL) AS hit',
            hit_join='LEFT JOIN hits USING ("row")',
            hit_where="AND hit",
            final=final,
            order=order,
        ).replace("WITH calls AS", "WITH " + _HITS.format(table=text.current, match=match) + " calls AS", 1)
        params |= fold_params
    return sql, params


def case_stats(store: VerdictStore, flt: VerdictFilter, *, text: TextArea) -> CaseStats:
    """:class:`CaseStats` of the cases matching ``flt`` (see :meth:`VerdictStore.case_stats`):
    kept from a page of the same cases when :func:`case_page` made one, else grouped here (and
    kept, without a search, for the pages of these cases)."""
    kept = store.kept(("case_stats", flt)) if flt.search is None else None
    if kept is not None:
        return kept
    selected = indexed(store, flt)
    if selected is not None:
        return indexed_stats(selected, flt)
    built = _cases_sql(store.con, flt, text, final=_STATS_SELECT, order="")
    if built is None:
        return CaseStats(0, 0, 0, 0, 0, 0, 0, 0, 0)
    sql, params = built
    cur = store.con.cursor()
    try:
        row = cur.execute(sql, params).fetchone()
    finally:
        cur.close()
    stats = _stats_of(row)  # an aggregate: always one row
    if flt.search is None:  # a page of these cases then groups only for its own cases
        store.keep(("case_stats", flt), stats)
    return stats


#: Search only these rows' text when the other filters leave at most this many calls.
MAX_CANDIDATES = 20_000


def _candidate_rows(con: duckdb.DuckDBPyConnection, flt: VerdictFilter) -> list[int] | None:
    """The rows a search has to read when the row filters (judge, pair, instruction, category)
    leave few; None when there is no such filter or too many rows to list."""
    if not any((flt.judge, flt.model_a, flt.model_b, flt.instruction, flt.category, flt.beats_all)):
        return None
    keys = ("judge", "instruction", "category", "a", "b", "beats", "win")
    params = {k: v for k, v in _params(flt).items() if k in keys}
    got = (
        con.cursor()
        .execute(f'SELECT "row" FROM verdicts WHERE {_case_filter(flt)} LIMIT {MAX_CANDIDATES + 1}', params)
        .fetchall()
    )
    return None if len(got) > MAX_CANDIDATES else sorted(int(r[0]) for r in got)


def _count(cur: duckdb.DuckDBPyConnection, sql: str, params: dict[str, Any]) -> int:
    """The total when the page is past the end (the window count came back with no row)."""
    got = cur.execute(sql, params | {"limit": 1, "offset": 0}).fetchall()
    return int(got[0][-1]) if got else 0


def _cases(cur: duckdb.DuckDBPyConnection, keys: list[tuple], *, text: TextArea) -> tuple[VerdictCase, ...]:
    """Build the page's cases: their calls from ``verdicts``, their text by row number (read
    where the text lives: a borrowed text is not copied for a page)."""
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
    texts = text.rows([int(c[0]) for c in calls]) if text.has_text and calls else {}
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
        prompt_t, resp_a, resp_b, output, call_id, judged_at = (t if t is not None else (None,) * 6)[:6]
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
                judged_at=timestamp_text(judged_at),  # a Unix time is shown as a date
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
