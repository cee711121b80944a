"""One helper for DuckDB results whose single row is guaranteed by the query itself."""

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
