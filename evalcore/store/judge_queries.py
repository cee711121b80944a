"""The store's SQL for the judge's sheet: coverage (calls and calls without a verdict, per model and
per length bin), self-comparisons, the labelled calls in file order and the length analyses.

Run through :meth:`evalcore.store.store.VerdictStore.query` by name (re-exported by
:mod:`evalcore.store.queries`). Every count sums the stored rows' ``weight`` (the calls a row
stands for: 1, or a counts table's count); names reach SQL only as bound parameters.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import duckdb
import numpy as np

from evalcore._sql import one_row

if TYPE_CHECKING:  # frames are made by DuckDB (.df()): `rank --json` never imports pandas
    import pandas as pd

# -- the judge's sheet (evalcore.judge: coverage, self-comparison, agreement, length) ------------

_JUDGE_CATEGORY = "(? IS NULL OR judge = ?) AND (? IS NULL OR category = ?)"
# Rows whose verdict and both lengths are usable for the length analyses.
_LENGTHS_USABLE = (
    "verdict IS NOT NULL AND model_a <> model_b AND length_a > 0 AND length_b > 0 "
    "AND NOT isnan(length_a) AND NOT isnan(length_b)"
)


def coverage_counts(
    con: duckdb.DuckDBPyConnection, *, judge: str | None, category: str | None, length_bins: int
) -> tuple[int, int, pd.DataFrame, pd.DataFrame]:
    """Calls and calls without a verdict: in total, per model (a self-comparison counts once)
    and per bin of the summed length (up to ``length_bins`` bins of about equal size, by rank).

    Equal lengths always share a bin (bin = the rank of the lowest such length, scaled): a
    boundary inside a run of equal lengths would put those rows on either side by the order a
    parallel sort met them, and the counts would change from one run to the next. So a length
    shared by many rows can make a bin larger than the others, and there may be fewer bins."""
    params = [judge, judge, category, category]
    calls, missing = one_row(
        con.execute(
            "SELECT coalesce(sum(weight), 0), coalesce(sum(weight) FILTER (WHERE verdict IS NULL), 0) "
            f"FROM verdicts WHERE {_JUDGE_CATEGORY}",
            params,
        )
    )
    by_model = con.execute(
        f"""
        WITH rows AS (SELECT model_a, model_b, verdict, weight FROM verdicts WHERE {_JUDGE_CATEGORY}),
        long AS (SELECT model_a AS model, verdict, weight FROM rows
                 UNION ALL SELECT model_b, verdict, weight FROM rows WHERE model_a <> model_b)
        SELECT model, sum(weight)::BIGINT AS calls,
               coalesce(sum(weight) FILTER (WHERE verdict IS NULL), 0)::BIGINT AS no_verdict
        FROM long GROUP BY model ORDER BY model
        """,
        params,
    ).df()
    by_length = con.execute(
        f"""
        WITH rows AS (
            SELECT verdict, length_a + length_b AS length, weight FROM verdicts
            WHERE {_JUDGE_CATEGORY} AND length_a IS NOT NULL AND length_b IS NOT NULL
              AND NOT isnan(length_a) AND NOT isnan(length_b)),
        lengths AS (SELECT length, sum(weight) AS calls,
                           coalesce(sum(weight) FILTER (WHERE verdict IS NULL), 0) AS no_verdict
                    FROM rows GROUP BY length),
        -- a length's rank among the calls: 1 + the calls with a shorter length
        ranked AS (SELECT *, (sum(calls) OVER (ORDER BY length ROWS UNBOUNDED PRECEDING) - calls)
                             * ? // sum(calls) OVER () AS raw_bin
                   FROM lengths),
        binned AS (SELECT *, dense_rank() OVER (ORDER BY raw_bin) AS length_bin FROM ranked)
        SELECT length_bin, min(length) AS length_min, max(length) AS length_max,
               sum(calls)::BIGINT AS calls, sum(no_verdict)::BIGINT AS no_verdict
        FROM binned GROUP BY length_bin ORDER BY length_bin
        """,
        params + [int(length_bins)],
    ).df()
    return int(calls), int(missing), by_model, by_length


def self_comparison_counts(
    con: duckdb.DuckDBPyConnection, *, judge: str | None, category: str | None
) -> tuple[int, int, float | None]:
    """Calls of a model against itself: with a verdict, ties, and the mean verdict (None: none)."""
    calls, ties, mean = one_row(
        con.execute(
            f"""SELECT coalesce(sum(weight) FILTER (WHERE verdict IS NOT NULL), 0),
                   coalesce(sum(weight) FILTER (WHERE verdict = 0), 0),
                   sum(weight * verdict) / sum(weight) FILTER (WHERE verdict IS NOT NULL)
            FROM verdicts WHERE model_a = model_b AND {_JUDGE_CATEGORY}""",
            [judge, judge, category, category],
        )
    )
    return int(calls), int(ties), (float(mean) if mean is not None else None)


#: One row per call of a stored row (a counts table's row stands for ``weight`` calls): for the
#: few analyses that read calls one by one; only the selected rows are repeated, in DuckDB.
EACH_CALL = "range(weight) AS vl_call(k)"


def each_call_join(con: duckdb.DuckDBPyConnection) -> str:
    """``, `` and :data:`EACH_CALL` when some stored row stands for several calls (a counts
    table), else nothing: when every row is one call (a verdict table, an arena's battles) the
    repeat gives the same rows, and on 1.8 million rows its join costs more than the rest of the
    read (0.25 of 0.37 CPU seconds for the head-to-head calls). One scan of the weights decides."""
    most = one_row(con.execute("SELECT max(weight) FROM verdicts"))[0]
    return f", {EACH_CALL}" if most is not None and most > 1 else ""


def labelled_rows(con: duckdb.DuckDBPyConnection, *, judge: str | None, category: str | None) -> pd.DataFrame:
    """The judge's rows that carry a human label (with or without a verdict), in file order."""
    return con.execute(
        f"""SELECT instruction_id, model_a, model_b, verdict, human FROM verdicts, {EACH_CALL}
           WHERE human IS NOT NULL AND model_a <> model_b AND {_JUDGE_CATEGORY}
           ORDER BY "row" """,
        [judge, judge, category, category],
    ).df()


def length_ratio_bins(
    con: duckdb.DuckDBPyConnection,
    *,
    judge: str | None,
    category: str | None,
    bin_width: float,
    n_bins: int,
) -> pd.DataFrame:
    """The longer answer's score (win 1, tie ½, loss 0) per bin of |log2(length ratio)| of width
    ``bin_width`` (the last of ``n_bins`` bins open-ended): ``bin``, ``calls``, ``x_mean``,
    ``longer_score``. Calls with equal lengths say nothing about length and are left out."""
    return con.execute(
        f"""
        WITH rows AS (
            SELECT log2(length_a / length_b) AS x,
                   CASE WHEN verdict > 0 THEN 1.0 WHEN verdict = 0 THEN 0.5 ELSE 0.0 END AS s, weight
            FROM verdicts WHERE {_LENGTHS_USABLE} AND {_JUDGE_CATEGORY}),
        longer AS (SELECT abs(x) AS x, CASE WHEN x > 0 THEN s ELSE 1.0 - s END AS s, weight
                   FROM rows WHERE x <> 0)
        SELECT least(floor(x / ?), ?)::INTEGER AS bin, sum(weight)::BIGINT AS calls,
               sum(weight * x) / sum(weight) AS x_mean, sum(weight * s) / sum(weight) AS longer_score
        FROM longer GROUP BY bin ORDER BY bin
        """,
        [judge, judge, category, category, float(bin_width), int(n_bins) - 1],
    ).df()


def length_cells(
    con: duckdb.DuckDBPyConnection, *, judge: str | None, category: str | None
) -> tuple[tuple[str, ...], dict[str, Any]]:
    """Calls with usable lengths grouped by (instruction, slot-A model, slot-B model, slot A's
    score y (win 1, tie ½, loss 0), relative length difference z rounded to 0.001): the sorted
    model names and NumPy columns ``cluster`` (the instruction id's hash: a cluster key), ``a`` and
    ``b`` (indices into the names), ``y``, ``z`` and ``n`` (calls). Models travel as indices and
    instructions as hashes, not as text: on the 866,250-call table that halved the query."""
    params = [judge, judge, category, category]
    rows = f"SELECT model_a, model_b FROM verdicts WHERE {_LENGTHS_USABLE} AND {_JUDGE_CATEGORY}"
    models = tuple(
        r[0]
        for r in con.execute(
            f"WITH f AS ({rows}) SELECT m FROM (SELECT DISTINCT model_a AS m FROM f "
            "UNION SELECT DISTINCT model_b FROM f) ORDER BY m",
            params,
        ).fetchall()
    )
    columns = con.execute(
        f"""
        WITH mi AS (SELECT unnest(?::VARCHAR[]) AS m, unnest(range(?))::INTEGER AS k),
        c AS (SELECT hash(instruction_id) AS cluster, model_a, model_b,
                     CASE WHEN verdict > 0 THEN 1.0 WHEN verdict = 0 THEN 0.5 ELSE 0.0 END AS y,
                     round((length_a - length_b) / (length_a + length_b), 3) AS z,
                     sum(weight)::DOUBLE AS n
              FROM verdicts WHERE {_LENGTHS_USABLE} AND {_JUDGE_CATEGORY}
              GROUP BY ALL)
        SELECT cluster, ma.k AS a, mb.k AS b, y::DOUBLE AS y, z::DOUBLE AS z, n
        FROM c JOIN mi ma ON ma.m = c.model_a JOIN mi mb ON mb.m = c.model_b
        """,
        [list(models), len(models), *params],
    ).fetchnumpy()
    return models, {k: np.asarray(v) for k, v in columns.items()}


def mean_lengths(con: duckdb.DuckDBPyConnection, *, judge: str | None, category: str | None) -> pd.Series:
    """Each model's mean answer length over the calls with usable lengths (indexed by model)."""
    frame = con.execute(
        f"""WITH rows AS (SELECT model_a, model_b, length_a, length_b, weight FROM verdicts
                      WHERE {_LENGTHS_USABLE} AND {_JUDGE_CATEGORY}),
        long AS (SELECT model_a AS model, length_a AS length, weight FROM rows
                 UNION ALL SELECT model_b, length_b, weight FROM rows)
        SELECT model, sum(weight * length) / sum(weight) AS mean_length FROM long GROUP BY model""",
        [judge, judge, category, category],
    ).df()
    return frame.set_index("model")["mean_length"]
