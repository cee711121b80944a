"""The BigQuery and PostgreSQL renderings of the counts table, checked without a warehouse: each
parses in its own dialect with no function the dialect does not know (sqlglot's parsers), and,
translated to DuckDB by sqlglot, gives the counts the store computes on every table shape the
tests know (the shapes of the Spark and DuckDB equivalence tests). The PostgreSQL rendering also
runs as written in DuckDB (their SQL overlaps there), which the translation cannot mask.

sqlglot is a test requirement (requirements-dev.txt); it is not needed to run Verdict Lab.
"""

from __future__ import annotations

import duckdb
import pandas as pd
import pytest

from evalcore._sql import sql_literal
from evalcore.ingest.counts_table import counts_sql
from evalcore.store.store import VerdictStore
from tests.counts.shapes import feature_columns, normalised, optional_columns, shapes, write
from tests.counts.test_counts_table import pandas_counts

sqlglot = pytest.importorskip(
    "sqlglot", reason="sqlglot is not installed (pip install -r requirements-dev.txt)"
)
from sqlglot import exp  # noqa: E402

SHAPES = shapes()
DIALECTS = ("bigquery", "postgres")


@pytest.fixture(scope="module", params=sorted(SHAPES))
def shape(request, tmp_path_factory):
    """(name, its SQL per dialect, a DuckDB connection with the raw file as view ``verdicts``,
    the counts the store computes, counted in pandas)."""
    frame = SHAPES[request.param]
    path = tmp_path_factory.mktemp("raw") / "verdicts.parquet"
    write(frame, path)
    store = VerdictStore()
    store.load_file(path, text=False)
    try:
        want = normalised(pandas_counts(store))
    finally:
        store.close()
    con = duckdb.connect()
    con.execute(f"CREATE VIEW verdicts AS SELECT * FROM read_parquet({sql_literal(str(path))})")
    sql = {
        d: counts_sql("verdicts", dialect=d, columns=optional_columns(frame), features=feature_columns(frame))
        for d in DIALECTS
    }
    yield request.param, sql, con, want
    con.close()


def _run(con: duckdb.DuckDBPyConnection, sql: str) -> pd.DataFrame:
    return normalised(con.execute(sql).df())


@pytest.mark.parametrize("dialect", DIALECTS)
def test_sql_parses_in_its_dialect_with_known_functions_only(shape, dialect):
    name, sql, _, _ = shape
    tree = sqlglot.parse_one(sql[dialect], read=dialect)  # raises on a syntax error
    assert isinstance(tree, exp.Select)
    unknown = sorted({f.name for f in tree.find_all(exp.Anonymous)})
    assert unknown == [], f"{name}: functions {dialect} does not know: {unknown}"


def test_the_check_tells_the_dialects_apart():
    """The check above can fail: each rendering read as the other dialect is refused."""
    bigquery = sqlglot.parse_one(counts_sql("verdicts", dialect="bigquery"), read="postgres")
    assert {f.name for f in bigquery.find_all(exp.Anonymous)} == {"REGEXP_CONTAINS"}
    with pytest.raises(sqlglot.errors.ParseError):
        sqlglot.parse_one(counts_sql("verdicts", dialect="postgres"), read="bigquery")


@pytest.mark.parametrize("dialect", DIALECTS)
def test_sql_translated_to_duckdb_gives_the_store_counts(shape, dialect):
    name, sql, con, want = shape
    duck = sqlglot.transpile(sql[dialect], read=dialect, write="duckdb")[0]
    pd.testing.assert_frame_equal(_run(con, duck), want, obj=f"{name}, {dialect}")


def test_postgres_sql_runs_as_written_in_duckdb(shape):
    """As written, not translated: on labels such as a>>b this failed while the PostgreSQL
    rendering cast the label twice (DuckDB computed the repeated cast for every row)."""
    name, sql, con, want = shape
    pd.testing.assert_frame_equal(_run(con, sql["postgres"]), want, obj=name)
