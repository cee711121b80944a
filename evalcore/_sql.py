"""SQL text helpers shared by the readers and the importers: one-row results, literals, quoted
names, and the typed select list that sets aside values of the wrong type.

They sit at the bottom floor so that the importers (below ``ingest``) can build the same SQL as
the loaders without importing ``ingest``."""

from __future__ import annotations

from typing import Any

import duckdb


def one_row(result: duckdb.DuckDBPyConnection) -> tuple[Any, ...]:
    """The row of an aggregate query without ``GROUP BY`` (SQL always returns exactly one).

    DuckDB's ``fetchone`` is typed ``tuple | None`` because a general query may return no
    row; an aggregate without grouping cannot, so ``None`` here is a programming error.
    """
    row = result.fetchone()
    assert row is not None, "an aggregate query without GROUP BY returns one row"
    return row


def sql_literal(text: str) -> str:
    """``text`` as an SQL string literal (single quotes doubled), for what DuckDB cannot take as a
    bound parameter: a file path in ``FROM``/``ATTACH``, a ``SET`` value, the constants of a
    ``CASE``."""
    return "'" + text.replace("'", "''") + "'"


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


_NUMBER_TYPES = (
    "TINYINT",
    "SMALLINT",
    "INTEGER",
    "BIGINT",
    "HUGEINT",
    "UTINYINT",
    "USMALLINT",
    "UINTEGER",
    "UBIGINT",
    "FLOAT",
    "DOUBLE",
)


def typed_text(col: str, typ: str, rule: str) -> tuple[str, str, str]:
    """(the value as text, whether it has the wrong type, what it is in words) as SQL over a
    column of DuckDB type ``typ``, for a field of ``rule`` (the rules of
    :func:`evalcore.importers._common.wrong_type`: ``"name"`` is text, ``"id"`` text or a number;
    a trailing ``?`` lets it be missing).

    A JSON file whose field holds a list or a number in one record is read by DuckDB as a
    column of type JSON for every record; the text of a JSON string is its value, not its
    quoted JSON, so one odd record does not change how every other record reads."""
    optional = rule.endswith("?")
    numbers = rule.rstrip("?") == "id"
    missing = "FALSE" if optional else f"{col} IS NULL"
    if typ == "VARCHAR":
        return col, missing, "'missing'"
    if typ == "JSON":
        fine = "('VARCHAR', 'BIGINT', 'UBIGINT', 'DOUBLE')" if numbers else "('VARCHAR')"
        kind = (
            f"(CASE json_type({col}) WHEN 'ARRAY' THEN 'a list' WHEN 'OBJECT' THEN 'an object' "
            f"WHEN 'BOOLEAN' THEN 'true or false' WHEN 'VARCHAR' THEN 'text' WHEN 'NULL' THEN "
            f"'missing' ELSE 'a number' END)"
        )
        null = f"({col} IS NULL OR json_type({col}) = 'NULL')"
        text = f"(CASE WHEN json_type({col}) = 'VARCHAR' THEN {col} ->> '$' WHEN json_type({col}) IN {fine} THEN CAST({col} AS VARCHAR) END)"
        wrong = f"(NOT {null} AND json_type({col}) NOT IN {fine})"
        if not optional:
            wrong = f"({wrong} OR {null})"
        return text, wrong, f"coalesce({kind}, 'missing')"
    if typ in _NUMBER_TYPES or typ.startswith("DECIMAL"):
        if numbers:
            return f"CAST({col} AS VARCHAR)", missing, "'missing'"
        return (
            "NULL::VARCHAR",
            f"({col} IS NOT NULL OR {missing})",
            f"CASE WHEN {col} IS NULL THEN 'missing' ELSE 'a number' END",
        )
    what = (
        "a list"
        if typ.endswith("]")
        else "true or false"
        if typ == "BOOLEAN"
        else "an object"
        if typ.startswith(("STRUCT", "MAP"))
        else "a value that is not text"
    )
    return (
        "NULL::VARCHAR",
        f"({col} IS NOT NULL OR {missing})",
        f"CASE WHEN {col} IS NULL THEN 'missing' ELSE '{what}' END",
    )


def typed_select(fields: list[tuple[str, str, str, str]]) -> str:
    """The staging select list of text fields checked for their types: each (file column, DuckDB
    type, name staged as, rule) becomes its text, and three columns name the first field of a
    row whose type is wrong (``vl_wrong_field``, ``vl_wrong_value``, ``vl_wrong_kind``), for
    :func:`set_aside_rows`."""
    items, field, value, kind = [], [], [], []
    for col, typ, name, rule in fields:
        text, wrong, what = typed_text(_ident(col), typ, rule)
        items.append(f"{text} AS {_ident(name)}")
        field.append(f"WHEN {wrong} THEN {sql_literal(col)}")
        value.append(f"WHEN {wrong} THEN coalesce(CAST({_ident(col)} AS VARCHAR), 'null')")
        kind.append(f"WHEN {wrong} THEN {what}")
    for cases, name in ((field, "vl_wrong_field"), (value, "vl_wrong_value"), (kind, "vl_wrong_kind")):
        items.append(f"(CASE {' '.join(cases)} END) AS {name}")
    return ", ".join(items)
