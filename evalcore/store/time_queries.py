"""The store's SQL for verdicts in time: the parsed ``judged_at`` of each call (a small frame keyed
by row number, computed by :mod:`evalcore.ranking.over_time`) joined to the ``verdicts`` table, so
that the windows' counts and the repeated items are aggregated in DuckDB. Run through
:meth:`evalcore.store.store.VerdictStore.query` by name (they are re-exported by
:mod:`evalcore.store.queries`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import duckdb
import numpy as np

if TYPE_CHECKING:
    import pandas as pd

# -- verdicts in time (evalcore.ranking.over_time) -----------------------------------------------
# ``times`` / ``bins`` are small frames keyed by row number (the parsed ``judged_at``), registered
# on the query's own cursor for the length of one query.
_SELECTION = (
    "v.verdict IS NOT NULL AND v.model_a <> v.model_b AND (? IS NULL OR v.judge = ?) "
    "AND (? IS NULL OR v.category = ?)"
)


def _with_frame(
    con: duckdb.DuckDBPyConnection, name: str, frame: pd.DataFrame, sql: str, params: list, fetch
):
    """``fetch`` of ``sql`` run with ``frame`` registered as ``name`` (unregistered afterwards)."""
    con.register(name, frame)
    try:
        return fetch(con.execute(sql, params))
    finally:
        con.unregister(name)


def timed_values(
    con: duckdb.DuckDBPyConnection, *, judge: str | None, category: str | None, times: pd.DataFrame
) -> np.ndarray:
    """The judging time ``t`` (``times``: ``row``, ``t``) of each of the selection's calls that has
    a verdict and a time, sorted."""
    cur = _with_frame(
        con,
        "vl_times",
        times,
        f'SELECT s.t FROM verdicts v JOIN vl_times s ON s."row" = v."row" WHERE {_SELECTION} ORDER BY s.t',
        [judge, judge, category, category],
        lambda c: c.fetchnumpy()["t"],
    )
    return np.asarray(cur, dtype=float)


def binned_cells(
    con: duckdb.DuckDBPyConnection, *, judge: str | None, category: str | None, bins: pd.DataFrame
) -> pd.DataFrame:
    """The selection's calls counted per (``bin``, instruction, ordered pair, verdict), for the
    rows ``bins`` (``row``, ``bin``) places in a bin: ``bin``, ``instruction_id``, ``model_a``,
    ``model_b``, ``verdict``, ``n``."""
    return _with_frame(
        con,
        "vl_bins",
        bins,
        "SELECT b.bin, v.instruction_id, v.model_a, v.model_b, v.verdict::INTEGER AS verdict, "
        f'sum(v.weight)::INTEGER AS n FROM verdicts v JOIN vl_bins b ON b."row" = v."row" WHERE {_SELECTION} '
        "GROUP BY ALL ORDER BY ALL",
        [judge, judge, category, category],
        lambda c: c.df(),
    )


def repeated_calls(
    con: duckdb.DuckDBPyConnection, *, judge: str | None, category: str | None, times: pd.DataFrame
) -> pd.DataFrame:
    """The timed calls of every (judge, instruction, slot-A model, slot-B model) judged at least
    twice with a verdict and a time: ``key`` (a number per such item), ``t``, ``verdict``; sorted
    by key and time (then row)."""
    return _with_frame(
        con,
        "vl_times",
        times,
        f"""
        WITH c AS (
            SELECT v.judge, v.instruction_id, v.model_a, v.model_b, v.verdict::INTEGER AS verdict,
                   s.t, v."row",
                   count(*) OVER (PARTITION BY v.judge, v.instruction_id, v.model_a, v.model_b) AS k
            FROM verdicts v JOIN vl_times s ON s."row" = v."row" WHERE {_SELECTION})
        SELECT dense_rank() OVER (ORDER BY judge, instruction_id, model_a, model_b) - 1 AS key,
               t, verdict
        FROM c WHERE k > 1 ORDER BY key, t, "row"
        """,
        [judge, judge, category, category],
        lambda c: c.df(),
    )
