"""The Spark rendering of the counts table run on a real Spark (PySpark, local mode, one shared
session) gives the counts the store computes, on every table shape the tests know.

Skipped, with the reason, where Java or PySpark is missing; scripts/test.sh installs both on CI.
"""

from __future__ import annotations

import shutil

import pandas as pd
import pytest

from evalcore.ingest.counts_table import counts_sql
from evalcore.store.store import VerdictStore
from tests.counts.shapes import feature_columns, normalised, optional_columns, shapes, write
from tests.counts.test_counts_table import pandas_counts

pytestmark = [
    pytest.mark.spark,
    pytest.mark.skipif(
        shutil.which("java") is None,
        reason="Spark needs Java: install a headless JRE (Debian: openjdk-17-jre-headless) to run the Spark tests",
    ),
]
pyspark = pytest.importorskip(
    "pyspark", reason="PySpark is not installed (pip install -r requirements-dev.txt)"
)

SHAPES = shapes()


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    # one small local session for the module: one core, few shuffle partitions, no web UI
    session = (
        SparkSession.builder.master("local[1]")
        .appName("verdictlab-counts-test")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "1")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_spark_sql_matches_the_store(spark, name, tmp_path):
    frame = SHAPES[name]
    path = tmp_path / "verdicts.parquet"
    write(frame, path)
    spark.read.parquet(str(path)).createOrReplaceTempView("verdicts")
    sql = counts_sql(
        "verdicts", dialect="spark", columns=optional_columns(frame), features=feature_columns(frame)
    )
    result = spark.sql(sql)
    # rows collected as plain values (PySpark's own pandas conversion predates pandas 3)
    got = pd.DataFrame([row.asDict() for row in result.collect()], columns=result.columns)
    store = VerdictStore()
    store.load_file(path, text=False)
    try:
        want = pandas_counts(store)
    finally:
        store.close()
    pd.testing.assert_frame_equal(normalised(got), normalised(want), obj=name)
