"""Where the text of a file goes: ``vl_text`` (the staged rows, names trimmed, labels as text:
:func:`build_text`) and the view of the file's own text columns the store copies to disk
(:func:`text_source_view`, :func:`text_source`)."""

from __future__ import annotations

import duckdb

from evalcore._sql import one_row
from evalcore.features import feature_columns
from evalcore.ingest.sources import _WS, NAME_COLUMNS, _ident, _strip
from evalcore.schema import (
    OPTIONAL_COLUMNS,
    REQUIRED_COLUMNS,
    TEXT_COLUMNS,
)


def build_text(
    cur: duckdb.DuckDBPyConnection,
    exprs: dict[str, str],
    *,
    source: str = "vl_raw",
    skip_blank: bool = False,
    row: str = "rowid + 1",
) -> None:
    """``vl_text``: row number, names trimmed, labels and numbers as raw text (NULL if absent)."""
    cols = []
    # A JSON column whose values mix strings with numbers or nulls is typed JSON: its text is the
    # value (json_extract_string: A>B, not "A>B" with the quotes a cast keeps).
    json_typed = {str(r[0]) for r in cur.execute(f"DESCRIBE {source}").fetchall() if str(r[1]) == "JSON"}
    # per-answer feature columns (feat_<name>_a/_b) ride along as text, checked by validate()
    for name in (*REQUIRED_COLUMNS, *OPTIONAL_COLUMNS, *feature_columns(exprs)):
        expr = exprs.get(name)
        text = f"CAST({expr} AS VARCHAR)" if expr else "NULL::VARCHAR"
        if expr in json_typed:
            text = f"json_extract_string({expr}, '$')"
        if expr and name in NAME_COLUMNS:
            text = _strip(text)
        cols.append(f"{text} AS {name}")
    where = ""
    if skip_blank:  # a blank line is no row (as every spreadsheet and pandas read it)
        blank = " AND ".join(f"coalesce(trim(CAST({e} AS VARCHAR), {_WS}), '') = ''" for e in exprs.values())
        if one_row(cur.execute(f"SELECT count(*) FROM {source} WHERE {blank}"))[0]:
            row = "row_number() OVER (ORDER BY rowid)"
            where = f"WHERE NOT ({blank})"
    cur.execute(f"""CREATE OR REPLACE TEMP TABLE vl_text AS
        SELECT {row} AS "row", {", ".join(cols)} FROM {source} {where}""")


def _split_text(positions: dict[str, int]) -> tuple[dict[str, int], dict[str, int]]:
    """(contract columns, text columns) of a header's positions."""
    text = {n: k for n, k in positions.items() if n in TEXT_COLUMNS}
    return {n: k for n, k in positions.items() if n not in TEXT_COLUMNS}, text


def text_source_view(
    cur: duckdb.DuckDBPyConnection,
    sql: str,
    contract: dict[str, str],
    texts: dict[str, int],
    cols: list[str],
    types: list[str],
    delimited: bool,
) -> None:
    """``vl_text_source``: a view of the file's text columns numbered like ``vl_text``'s rows.

    Text can be gigabytes (tens of kilobytes per call): it is not staged with the verdicts but
    read once more, straight from the file, when the store copies it to disk
    (:mod:`evalcore.store.verdicts`). Rows are numbered in file order, skipping the blank lines
    :func:`build_text` skips, so that row n of the view is row n of the verdicts.
    """
    cur.execute("DROP VIEW IF EXISTS vl_text_source")
    if not texts:
        return

    def text(k: int) -> str:
        # a JSON reader types a column with nulls or mixed values as JSON: a string's text is
        # its value (json_extract_string), anything else its JSON text
        if types[k] == "JSON":
            return f"json_extract_string({_ident(cols[k])}, '$')"
        return f"CAST({_ident(cols[k])} AS VARCHAR)"

    select = ", ".join(
        f"{text(texts[n])} AS {n}" if n in texts else f"NULL::VARCHAR AS {n}" for n in TEXT_COLUMNS
    )
    where = ""
    if delimited:
        blank = " AND ".join(
            f"coalesce(trim(CAST({e} AS VARCHAR), {_WS}), '') = ''" for e in contract.values()
        )
        where = f"WHERE NOT ({blank})"
    cur.execute(
        f'CREATE TEMP VIEW vl_text_source AS SELECT row_number() OVER () AS "row", {select} '
        f"FROM {sql} {where}"
    )


def text_source(cur: duckdb.DuckDBPyConnection) -> str | None:
    """Where the text of the file just read is: the file itself (``vl_text_source``, a verdict
    table) or ``vl_text`` (a converted tool format, whose text the importer produced); None
    when nothing was staged as text (the typed single pass)."""
    found = cur.execute(
        "SELECT count(*) FROM duckdb_views() WHERE view_name = 'vl_text_source' AND temporary"
    ).fetchone()
    if found and found[0]:
        return "vl_text_source"
    # the typed single pass (a table without text columns) builds no vl_text: nothing to copy
    staged = cur.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'vl_text' AND temporary"
    ).fetchone()
    return "vl_text" if staged and staged[0] else None
