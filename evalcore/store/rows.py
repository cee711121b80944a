"""The rows of a saved dataset in the workspace file: the canonical verdicts, the per-answer
``feat_`` columns and the text (prompts, answers, judge outputs), each keyed by dataset name,
version and row number.

Features are kept long (one row per call and feature) so that datasets with different feature
columns share one table; text has a table of its own so that listing and counting never read it.
Called by :class:`evalcore.store.workspace.Workspace` inside its transactions.
"""

from __future__ import annotations

import duckdb
import pandas as pd
import pyarrow as pa

from evalcore.features import feature_pairs
from evalcore.schema import CANONICAL_COLUMNS, TEXT_COLUMNS, UNIT_COLUMNS

#: Tables that hold a version's rows (deleted with the version).
ROW_TABLES = ("dataset_rows", "dataset_features", "dataset_text", "dataset_rankings")

SCHEMA = (
    """
    CREATE TABLE IF NOT EXISTS dataset_features (
        dataset VARCHAR, version INTEGER, "row" BIGINT, feature VARCHAR, a DOUBLE, b DOUBLE)
    """,
    'CREATE TABLE IF NOT EXISTS dataset_text (dataset VARCHAR, version INTEGER, "row" BIGINT, '
    + ", ".join(f"{c} VARCHAR" for c in TEXT_COLUMNS)
    + ")",
    # workspaces written before the unit columns (session, voter, run) gain them, empty
    *(f"ALTER TABLE dataset_text ADD COLUMN IF NOT EXISTS {c} VARCHAR" for c in UNIT_COLUMNS),
    # how many calls a row stands for (a counts table's count; workspaces before it: 1)
    "ALTER TABLE dataset_rows ADD COLUMN IF NOT EXISTS weight BIGINT DEFAULT 1",
)
_COLUMNS = ", ".join(f'"{c}"' for c in CANONICAL_COLUMNS)


def write(con: duckdb.DuckDBPyConnection, name: str, version: int, frame: pd.DataFrame, text=None) -> None:
    """Insert a canonical frame (with any ``feat_`` columns) and its text (``row`` and the text
    columns: a frame or Arrow batches; None without text) as ``name``'s ``version``."""
    # a counts table's rows carry the calls each stands for (1 when absent)
    weight = ", weight" if "weight" in frame.columns else ""
    con.register("incoming", frame)
    try:
        con.execute(
            f"INSERT INTO dataset_rows (dataset, version, {_COLUMNS}{weight}) "
            f"SELECT ?, ?, {_COLUMNS}{weight} FROM incoming",
            [name, version],
        )
        for feature in feature_pairs(frame.columns):
            a, b = f'"feat_{feature}_a"', f'"feat_{feature}_b"'
            con.execute(
                f'INSERT INTO dataset_features SELECT ?, ?, "row", ?, {a}, {b} FROM incoming'
                f" WHERE {a} IS NOT NULL OR {b} IS NOT NULL",
                [name, version, feature],
            )
    finally:
        con.unregister("incoming")
    if text is None:
        return
    con.register("incoming_text", text)
    try:
        cols = ", ".join(TEXT_COLUMNS)
        con.execute(
            f'INSERT INTO dataset_text SELECT ?, ?, "row", {cols} FROM incoming_text',
            [name, version],
        )
    finally:
        con.unregister("incoming_text")


def read(con: duckdb.DuckDBPyConnection, name: str, version: int) -> pd.DataFrame:
    """``name``'s ``version`` as it was saved: the canonical columns, then its ``feat_`` columns,
    then its text columns (when it had text), joined in SQL."""
    key = [name, version]
    features = [
        str(r[0])
        for r in con.execute(
            "SELECT DISTINCT feature FROM dataset_features WHERE dataset = ? AND version = ? ORDER BY 1", key
        ).fetchall()
    ]
    has_text = con.execute(
        "SELECT 1 FROM dataset_text WHERE dataset = ? AND version = ? LIMIT 1", key
    ).fetchone()
    select = ", ".join(f'r."{c}"' for c in CANONICAL_COLUMNS)
    weighted = con.execute(
        "SELECT 1 FROM dataset_rows WHERE dataset = ? AND version = ? AND weight <> 1 LIMIT 1", key
    ).fetchone()
    if weighted:  # a counts table: its rows with the calls each stands for
        select += ", r.weight"
    joins, params = [], list(key)
    for k, feature in enumerate(features):
        select += f', f{k}.a AS "feat_{feature}_a", f{k}.b AS "feat_{feature}_b"'
        joins.append(
            f'LEFT JOIN (SELECT "row", a, b FROM dataset_features WHERE dataset = ? AND version = ?'
            f' AND feature = ?) f{k} ON f{k}."row" = r."row"'
        )
        params += [name, version, feature]
    if has_text:
        select += "".join(f", t.{c}" for c in TEXT_COLUMNS)
        joins.append(
            'LEFT JOIN (SELECT * FROM dataset_text WHERE dataset = ? AND version = ?) t ON t."row" = r."row"'
        )
        params += key
    cur = con.cursor()  # its own result: the caller's connection may hold a half-read one
    table = cur.sql(
        f"SELECT {select} FROM (SELECT * FROM dataset_rows WHERE dataset = ? AND version = ?) r "
        + " ".join(joins)
        + ' ORDER BY r."row"',
        params=params,
    ).to_arrow_table()
    cur.close()
    # text stays in Arrow memory (pandas' Arrow-backed strings): a Python object per answer made
    # reading the demo's 342,000 calls back six times slower
    return table.to_pandas(types_mapper={pa.string(): pd.StringDtype("pyarrow")}.get)


def delete(con: duckdb.DuckDBPyConnection, name: str, version: int) -> None:
    for table in ROW_TABLES:
        con.execute(f"DELETE FROM {table} WHERE dataset = ? AND version = ?", [name, version])
