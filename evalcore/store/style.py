"""The store's SQL for style control: judge calls with per-answer features, as numpy arrays.

Called through :meth:`evalcore.store.store.VerdictStore.style_rows`. DuckDB filters, computes the
features (lengths, Markdown counts from the answers' text with the RE2 patterns of
:mod:`evalcore.features`, or the ``feat_`` columns) and numbers models, judges and instructions; Python receives integer and float arrays, never the text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import duckdb
import numpy as np

from evalcore._sql import one_row
from evalcore.errors import UsageError
from evalcore.features import CODE_BLOCK, MARKDOWN_PATTERNS, StyleRows, feature_pairs

if TYPE_CHECKING:
    from evalcore.store.text import TextArea

TEXT_COLUMNS = ("response_a", "response_b")


def table_columns(con: duckdb.DuckDBPyConnection) -> tuple[str, ...]:
    """The columns of the stored ``verdicts`` table (they vary: text and ``feat_`` columns are
    optional)."""
    return tuple(str(r[0]) for r in con.execute("DESCRIBE verdicts").fetchall())


def _text_in(text: TextArea | None) -> bool:
    """Whether the store's text (kept apart from the verdicts, on disk) holds answers."""
    return text is not None and text.has_answers()


def _rows_sql(con: duckdb.DuckDBPyConnection, text: TextArea | None) -> str:
    """The calls with their answers: the verdicts, joined to the text table by row when the
    answers live there (a file's text is never copied into the verdicts table)."""
    if set(TEXT_COLUMNS) <= set(table_columns(con)) or not _text_in(text):
        return "verdicts"
    assert text is not None
    return (
        f'(SELECT v.*, t.response_a, t.response_b FROM verdicts v LEFT JOIN {text.current} t USING ("row"))'
    )


def feature_sources(con: duckdb.DuckDBPyConnection, text_area: TextArea | None = None) -> dict[str, str]:
    """Every per-answer feature this table can supply → where it comes from (in words).
    ``text_area`` holds the store's prompts and answers, if any."""
    columns = set(table_columns(con))
    text = set(TEXT_COLUMNS) <= columns or _text_in(text_area)
    pairs = feature_pairs(columns)
    out: dict[str, str] = {}
    has_length = one_row(
        con.execute("SELECT count(*) FROM verdicts WHERE length_a IS NOT NULL AND length_b IS NOT NULL")
    )[0]
    if has_length:
        out["length"] = "length_a, length_b"
    elif text:
        out["length"] = "the answers' text (characters)"
    for element in MARKDOWN_PATTERNS:
        if text:
            out[element] = "counted in the answers' text"
        elif element in pairs:
            out[element] = f"feat_{element}_a, feat_{element}_b"
    for name in pairs:
        out.setdefault(name, f"feat_{name}_a, feat_{name}_b")
    return out


def _side_sql(con_sources: dict[str, str], name: str, side: str, counted: tuple[str, ...]) -> str:
    source = con_sources[name]
    if name == "length":
        if source.startswith("length_a"):
            return f"length_{side}"
        return f"length(response_{side})::DOUBLE"
    if name in MARKDOWN_PATTERNS and source.startswith("counted"):
        return f"q.{side}{counted.index(name)}"  # counted once per distinct answer (vl_row_marks)
    return f'"feat_{name}_{side}"::DOUBLE'


def _row_marks(con: duckdb.DuckDBPyConnection, table: str, counted: tuple[str, ...]):
    """The Markdown counts of both answers of every row of the text table ``table``, as Arrow
    (``row``, then ``a<k>``, ``b<k>`` per element of ``counted``). An answer recurs in every
    call that compares it (the demo: 6,000 answers in 684,000 answer slots), so the patterns run
    once per distinct answer, joined back by the text (exact)."""
    marks, params = [], []
    for k, name in enumerate(counted):
        parts = ["len(regexp_extract_all(vl_clean, ?))" for _ in MARKDOWN_PATTERNS[name]]
        marks.append("(" + " + ".join(parts) + f")::DOUBLE AS m{k}")
        params += list(MARKDOWN_PATTERNS[name])
    sides = "".join(f", ua.m{k} AS a{k}, ub.m{k} AS b{k}" for k in range(len(counted)))
    return con.sql(
        f"""WITH u AS (
                SELECT response, {", ".join(marks)} FROM (
                    SELECT response, regexp_replace(response, ?, '', 'g') AS vl_clean FROM (
                        SELECT DISTINCT response FROM (SELECT response_a AS response FROM {table}
                                                       UNION ALL SELECT response_b FROM {table})
                        WHERE response IS NOT NULL)))
            SELECT t."row"{sides} FROM {table} t
                LEFT JOIN u ua ON ua.response = t.response_a LEFT JOIN u ub ON ub.response = t.response_b""",
        params=params + [CODE_BLOCK],  # in textual order
    ).to_arrow_table()


def style_rows(
    con: duckdb.DuckDBPyConnection,
    *,
    judge: str | None,
    category: str | None,
    features: Sequence[str],
    text: TextArea | None = None,
) -> StyleRows:
    """See :meth:`evalcore.store.store.VerdictStore.style_rows`."""
    sources = feature_sources(con, text)
    missing = [f for f in features if f not in sources]
    if missing:
        raise UsageError(
            f"This table cannot supply the {'feature' if len(missing) == 1 else 'features'} "
            + ", ".join(missing)
            + "; it has "
            + (", ".join(sorted(sources)) if sources else "none")
            + "."
        )
    counted = tuple(f for f in features if sources[f].startswith("counted"))
    # the text table is joined only for lengths read from it; Markdown counts come per row from
    # where the text lives (a borrowed demo text is not copied), computed once per table
    from_text = any(sources[f].startswith("the answers") for f in features)
    select = [
        f"{_side_sql(sources, name, side, counted)} AS f{side}{k}"
        for k, name in enumerate(features)
        for side in ("a", "b")
    ]
    keys = ["instruction_id", "model_a", "model_b", "judge", "y"]
    fcols = [f"f{s}{k}" for k in range(len(features)) for s in ("a", "b")]
    complete = " AND ".join(f"{c} IS NOT NULL AND NOT isnan({c})" for c in fcols) or "true"
    where = (
        "verdict IS NOT NULL AND model_a <> model_b AND (? IS NULL OR judge = ?) "
        "AND (? IS NULL OR category = ?)"
    )
    filters = [judge, judge, category, category]
    rows = _rows_sql(con, text) if from_text else "verdicts"
    joins = ' LEFT JOIN vl_row_marks q ON q."row" = r."row"' if counted else ""
    cur = con.cursor()
    try:
        if counted:  # registered first: a half-read result blocks registering on a cursor
            if set(TEXT_COLUMNS) <= set(table_columns(con)):  # answers in the verdicts table
                marks = _row_marks(cur, "verdicts", counted)
            else:
                assert text is not None
                marks = text.derived(("marks", counted), lambda c, t: _row_marks(c, t, counted))
            cur.register("vl_row_marks", marks)
        total_sql = f"SELECT coalesce(sum(weight), 0) FROM verdicts WHERE {where}"
        total = one_row(cur.execute(total_sql, filters))[0]
        # One pass: features and complete rows, each weighing the calls it stands for (a counts
        # table's row: its count). Identical calls are not grouped: with per-answer
        # features they rarely repeat, and a hash aggregate would triple the time of this step.
        cur.execute(
            f"""CREATE OR REPLACE TEMP TABLE vl_style AS
            SELECT {", ".join(keys + fcols)}, n FROM (
                SELECT instruction_id, model_a, model_b, judge, weight::DOUBLE AS n,
                       (CASE WHEN verdict > 0 THEN 1.0 WHEN verdict = 0 THEN 0.5 ELSE 0.0 END)::DOUBLE AS y
                       {"".join(", " + s for s in select)}
                FROM {rows} r{joins} WHERE {where})
            WHERE {complete}""",
            filters,
        )
        models = tuple(
            r[0]
            for r in cur.execute(
                "SELECT DISTINCT m FROM (SELECT model_a AS m FROM vl_style UNION ALL "
                "SELECT model_b FROM vl_style) ORDER BY m"
            ).fetchall()
        )
        judges = tuple(r[0] for r in cur.execute("SELECT DISTINCT judge FROM vl_style ORDER BY 1").fetchall())
        # Instructions are numbered in no particular order: they only label the clusters.
        got = cur.execute(
            f"""WITH mi AS (SELECT unnest(?::VARCHAR[]) AS m, unnest(range(?))::INTEGER AS k),
                 ji AS (SELECT unnest(?::VARCHAR[]) AS j, unnest(range(?))::INTEGER AS k),
                 ii AS (SELECT instruction_id, (row_number() OVER () - 1)::INTEGER AS k
                        FROM (SELECT DISTINCT instruction_id FROM vl_style))
            SELECT ii.k AS inst, ma.k AS a, mb.k AS b, ji.k AS jk, s.y, s.n
                   {"".join(", s." + c for c in fcols)}
            FROM vl_style s JOIN ii USING (instruction_id) JOIN mi ma ON ma.m = s.model_a
                 JOIN mi mb ON mb.m = s.model_b JOIN ji ON ji.j = s.judge""",
            [list(models), len(models), list(judges), len(judges)],
        ).fetchnumpy()
        n_inst = int(np.max(got["inst"])) + 1 if len(got["inst"]) else 0
    finally:
        cur.execute("DROP TABLE IF EXISTS vl_style")
        if counted:
            cur.unregister("vl_row_marks")
        cur.close()
    n = np.asarray(got["n"], dtype=np.float64)
    return StyleRows(
        models=models,
        judges=judges,
        n_instructions=int(n_inst),
        inst=np.asarray(got["inst"], dtype=np.int64),
        a=np.asarray(got["a"], dtype=np.int64),
        b=np.asarray(got["b"], dtype=np.int64),
        judge=np.asarray(got["jk"], dtype=np.int64),
        y=np.asarray(got["y"], dtype=np.float64),
        n=n,
        feature_a={f: np.asarray(got[f"fa{k}"], dtype=np.float64) for k, f in enumerate(features)},
        feature_b={f: np.asarray(got[f"fb{k}"], dtype=np.float64) for k, f in enumerate(features)},
        sources={f: sources[f] for f in features},
        dropped=int(total - n.sum()),
    )
