"""The store's SQL for style control: judge calls with per-answer features, as numpy arrays.

Called through :meth:`evalcore.store.VerdictStore.style_rows`. DuckDB filters, computes the
features (lengths, Markdown counts from the answers' text with the RE2 patterns of
:mod:`evalcore.features`, or the ``feat_`` columns) and numbers models, judges and instructions; Python receives integer and float arrays, never the text.
"""

from __future__ import annotations

from collections.abc import Sequence

import duckdb
import numpy as np

from evalcore._sql import one_row
from evalcore.errors import UsageError
from evalcore.features import CODE_BLOCK, MARKDOWN_PATTERNS, StyleRows, feature_pairs

TEXT_COLUMNS = ("response_a", "response_b")


def table_columns(con: duckdb.DuckDBPyConnection) -> tuple[str, ...]:
    """The columns of the stored ``verdicts`` table (they vary: text and ``feat_`` columns are
    optional)."""
    return tuple(str(r[0]) for r in con.execute("DESCRIBE verdicts").fetchall())


def _text_in(con: duckdb.DuckDBPyConnection, text_table: str | None) -> bool:
    """Whether the store's text table (kept apart from the verdicts, on disk) holds answers."""
    if text_table is None:
        return False
    found = con.execute(
        f"SELECT 1 FROM {text_table} WHERE response_a IS NOT NULL AND response_b IS NOT NULL LIMIT 1"
    ).fetchone()
    return found is not None


def _rows_sql(con: duckdb.DuckDBPyConnection, text_table: str | None) -> str:
    """The calls with their answers: the verdicts, joined to the text table by row when the
    answers live there (a file's text is never copied into the verdicts table)."""
    if set(TEXT_COLUMNS) <= set(table_columns(con)) or not _text_in(con, text_table):
        return "verdicts"
    return f'(SELECT v.*, t.response_a, t.response_b FROM verdicts v LEFT JOIN {text_table} t USING ("row"))'


def feature_sources(con: duckdb.DuckDBPyConnection, text_table: str | None = None) -> dict[str, str]:
    """Every per-answer feature this table can supply → where it comes from (in words).
    ``text_table`` is the store's table of prompts and answers, if any."""
    columns = set(table_columns(con))
    text = set(TEXT_COLUMNS) <= columns or _text_in(con, text_table)
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


def _side_sql(con_sources: dict[str, str], name: str, side: str) -> tuple[str, list[str]]:
    source = con_sources[name]
    if name == "length":
        if source.startswith("length_a"):
            return f"length_{side}", []
        return f"length(response_{side})::DOUBLE", []
    if name in MARKDOWN_PATTERNS and source.startswith("counted"):
        parts = [f"len(regexp_extract_all(vl_clean_{side}, ?))" for _ in MARKDOWN_PATTERNS[name]]
        return "(" + " + ".join(parts) + ")::DOUBLE", list(MARKDOWN_PATTERNS[name])
    return f'"feat_{name}_{side}"::DOUBLE', []


def style_rows(
    con: duckdb.DuckDBPyConnection,
    *,
    judge: str | None,
    category: str | None,
    features: Sequence[str],
    text_table: str | None = None,
) -> StyleRows:
    """See :meth:`evalcore.store.VerdictStore.style_rows`."""
    sources = feature_sources(con, text_table)
    missing = [f for f in features if f not in sources]
    if missing:
        raise UsageError(
            "This table cannot supply the feature(s) "
            + ", ".join(missing)
            + "; it has "
            + (", ".join(sorted(sources)) if sources else "none")
            + "."
        )
    uses_text = any(sources[f].startswith("counted") for f in features)
    select, params = [], []
    for k, name in enumerate(features):
        for side in ("a", "b"):
            expr, p = _side_sql(sources, name, side)
            select.append(f"{expr} AS f{side}{k}")
            params += p
    clean = ""
    clean_params: list[str] = []
    if uses_text:
        clean = ", regexp_replace(response_a, ?, '', 'g') AS vl_clean_a, regexp_replace(response_b, ?, '', 'g') AS vl_clean_b"
        clean_params = [CODE_BLOCK, CODE_BLOCK]
    keys = ["instruction_id", "model_a", "model_b", "judge", "y"]
    fcols = [f"f{s}{k}" for k in range(len(features)) for s in ("a", "b")]
    complete = " AND ".join(f"{c} IS NOT NULL AND NOT isnan({c})" for c in fcols) or "true"
    where = (
        "verdict IS NOT NULL AND model_a <> model_b AND (? IS NULL OR judge = ?) "
        "AND (? IS NULL OR category = ?)"
    )
    filters = [judge, judge, category, category]
    cur = con.cursor()
    try:
        total = one_row(cur.execute(f"SELECT count(*) FROM verdicts WHERE {where}", filters))[0]
        # One pass: features and complete rows. Identical calls are not grouped: with per-answer
        # features they rarely repeat, and a hash aggregate would triple the time of this step.
        cur.execute(
            f"""CREATE OR REPLACE TEMP TABLE vl_style AS
            SELECT {", ".join(keys + fcols)}, 1.0::DOUBLE AS n FROM (
                SELECT instruction_id, model_a, model_b, judge,
                       (CASE WHEN verdict > 0 THEN 1.0 WHEN verdict = 0 THEN 0.5 ELSE 0.0 END)::DOUBLE AS y
                       {"".join(", " + s for s in select)}
                FROM (SELECT *{clean} FROM {_rows_sql(con, text_table)} WHERE {where}))
            WHERE {complete}""",
            params + clean_params + filters,  # in textual order
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
