"""The store's SQL for single analyses: labelled cells (tie structure), calibration patterns,
prediction-powered ratings' cells and a pair's calls (the judge sheet's queries live in
:mod:`evalcore.store.judge_queries`, the time queries in :mod:`evalcore.store.time_queries`; both
re-exported here). Every count sums the stored rows' ``weight``: the calls a row stands for.

Each function takes a DuckDB connection holding the ``verdicts`` table; analyses run them through
:meth:`evalcore.store.store.VerdictStore.query` (or the store's named methods) and receive integer
arrays, tuples and small frames, so no analysis module queries DuckDB. Names (judges, models, categories)
reach SQL only as bound parameters. The general aggregation every analysis reads
(:meth:`VerdictStore.counts`) lives in :mod:`evalcore.store.store` itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import duckdb
import numpy as np

from evalcore._sql import one_row
from evalcore.counts import PATTERN_COLUMNS
from evalcore.store.budget_queries import anchor_scores, pair_scores
from evalcore.store.judge_queries import (
    coverage_counts,
    each_call_join,
    labelled_rows,
    length_cells,
    length_ratio_bins,
    mean_lengths,
    self_comparison_counts,
)
from evalcore.store.score_queries import score_cells
from evalcore.store.tie_queries import both_bad_counts
from evalcore.store.time_queries import binned_cells, repeated_calls, timed_values

if TYPE_CHECKING:  # frames are made by DuckDB (.df()): `rank --json` never imports pandas
    import pandas as pd

__all__ = [
    "anchor_scores",
    "pair_scores",
    "PATTERN_COLUMNS",
    "CalibrationPatterns",
    "LabelledCells",
    "calibration_patterns",
    "coverage_counts",
    "labelled_cells",
    "score_cells",
    "labelled_rows",
    "length_cells",
    "length_ratio_bins",
    "mean_lengths",
    "orders_share",
    "self_comparison_counts",
    "binned_cells",
    "repeated_calls",
    "timed_values",
    "both_bad_counts",
]

# -- labelled cells (evalcore.ties.labelled_counts) -----------------------------------------------

# The labelled calls counted per (instruction, ordered pair, judge level, human level), indexed in
# SQL so Python only receives integer arrays.
_LABELLED_SQL = """
WITH f AS (
    SELECT instruction_id, model_a, model_b, verdict, human, weight FROM verdicts
    WHERE verdict IS NOT NULL AND human IS NOT NULL AND model_a <> model_b
      AND (? IS NULL OR judge = ?) AND (? IS NULL OR category = ?)),
mi AS (SELECT m, (row_number() OVER (ORDER BY m) - 1)::INTEGER AS k FROM
       (SELECT model_a AS m FROM f UNION SELECT model_b FROM f)),
ii AS (SELECT instruction_id, (row_number() OVER (ORDER BY instruction_id) - 1)::INTEGER AS k
       FROM (SELECT DISTINCT instruction_id FROM f)),
c AS (SELECT instruction_id, model_a, model_b, verdict, human, sum(weight)::BIGINT AS n
      FROM f GROUP BY ALL)
"""


@dataclass(frozen=True)
class LabelledCells:
    """Calls carrying both a verdict and a human label, counted per (instruction, slot-A model,
    slot-B model, verdict, human label): ``inst``, ``a``, ``b`` index ``instructions`` and
    ``models`` (sorted); ``verdict`` and ``human`` are levels on −2..+2; ``n`` the calls."""

    models: tuple[str, ...]
    instructions: tuple[str, ...]
    inst: np.ndarray
    a: np.ndarray
    b: np.ndarray
    verdict: np.ndarray
    human: np.ndarray
    n: np.ndarray


def labelled_cells(
    con: duckdb.DuckDBPyConnection, *, judge: str | None, category: str | None
) -> LabelledCells:
    """The labelled calls of ``judge`` (None: every judge) in ``category`` (None: all rows)."""
    params = [judge, judge, category, category]
    models = tuple(
        r[0] for r in con.execute(_LABELLED_SQL + "SELECT m FROM mi ORDER BY k", params).fetchall()
    )
    names = con.execute(_LABELLED_SQL + "SELECT instruction_id FROM ii ORDER BY k", params).fetchnumpy()
    cells = con.execute(
        _LABELLED_SQL
        + """
        SELECT ii.k AS i, ma.k AS a, mb.k AS b, c.verdict::INTEGER AS v, c.human::INTEGER AS h, c.n
        FROM c JOIN ii USING (instruction_id) JOIN mi ma ON ma.m = c.model_a
             JOIN mi mb ON mb.m = c.model_b""",
        params,
    ).fetchnumpy()

    def ints(name: str) -> np.ndarray:
        return np.asarray(cells[name], dtype=np.int64)

    return LabelledCells(
        models=models,
        instructions=tuple(names["instruction_id"].tolist()),
        inst=ints("i"),
        a=ints("a"),
        b=ints("b"),
        verdict=ints("v"),
        human=ints("h"),
        n=ints("n"),
    )


# -- calibration patterns (evalcore.calibration.calibration_counts) -------------------------------


_FILTERS = """verdict IS NOT NULL AND model_a <> model_b
      AND ($judge IS NULL OR judge = $judge)
      AND ($candidate IS NULL OR model_a = $candidate OR model_b = $candidate)
      AND ($baseline IS NULL OR model_a = $baseline OR model_b = $baseline)"""

_PER_CALL_CTE = f"""
WITH units AS (
    SELECT instruction_id, category,
           sign(CASE WHEN $candidate IS NULL OR model_a = $candidate THEN verdict ELSE -verdict END) AS v,
           sign(CASE WHEN $candidate IS NULL OR model_a = $candidate THEN human ELSE -human END) AS h,
           weight AS w
    FROM verdicts WHERE {_FILTERS}
)
"""

_BOTH_ORDERS_TEMPLATE = f"""
WITH oriented AS (
    SELECT {{judge_col}}instruction_id,
           CASE WHEN model_a = $candidate THEN model_b ELSE model_a END AS opponent,
           model_a = $candidate AS candidate_first,
           sign(CASE WHEN model_a = $candidate THEN verdict ELSE -verdict END) AS v,
           sign(CASE WHEN model_a = $candidate THEN human ELSE -human END) AS h,
           category, weight
    FROM verdicts WHERE {_FILTERS}
), pairs AS (
    SELECT instruction_id, opponent, any_value(category) AS category,
           coalesce(sum(weight) FILTER (WHERE candidate_first), 0) AS n_first,
           coalesce(sum(weight) FILTER (WHERE NOT candidate_first), 0) AS n_second,
           max(v) FILTER (WHERE candidate_first) AS v_first,
           max(v) FILTER (WHERE NOT candidate_first) AS v_second,
           count(h) AS n_h, sum(h * weight) AS h_sum
    FROM oriented GROUP BY {{judge_col}}instruction_id, opponent
), units AS (
    SELECT {{judge_col}}instruction_id, opponent, category,
           CASE WHEN v_first = v_second THEN v_first ELSE 0 END AS v,
           CASE WHEN n_h = 0 THEN NULL ELSE sign(h_sum) END AS h, 1 AS w
    FROM pairs WHERE n_first = 1 AND n_second = 1
)
"""
_BOTH_ORDERS_CTE = _BOTH_ORDERS_TEMPLATE.format(judge_col="")


def disagreement_units_sql(*, both_orders: bool) -> str:
    """SQL of the labelled units whose judge and human disagree on whether ``$candidate`` won
    (the judge says win and the human not, or the other way round: the cases behind 1 − Se and
    1 − Sp of :func:`evalcore.calibration.calibrate`), one row per unit with its ``judge``,
    ``instruction_id`` and ``opponent``; the units are those of :func:`calibration_patterns`
    (a call, or a both-orders verdict), grouped by judge as well. Parameters ``$judge``,
    ``$candidate``, ``$baseline`` and ``$labelled`` (the labelled slice)."""
    if both_orders:
        cte = _BOTH_ORDERS_TEMPLATE.format(judge_col="judge, ")
    else:
        cte = _PER_CALL_CTE.replace(
            "SELECT instruction_id, category,",
            "SELECT judge, instruction_id, category,"
            " CASE WHEN model_a = $candidate THEN model_b ELSE model_a END AS opponent,",
            1,
        )
    return (
        cte
        + "SELECT judge, instruction_id, opponent FROM units WHERE "
        + _LABELLED
        + " AND (h = 1) <> (v = 1)"
    )


_TARGET = "($category IS NULL OR category = $category)"
_LABELLED = "(h IS NOT NULL AND ($labelled IS NULL OR category = $labelled))"
_CELLS = ", ".join(
    f"coalesce(sum(w) FILTER (WHERE {_LABELLED} AND h = {hv} AND v = {vv}), 0) AS h{hn}_v{vn}"
    for hn, hv in (("w", 1), ("t", 0), ("l", -1))
    for vn, vv in (("w", 1), ("t", 0), ("l", -1))
)
_PATTERNS_SQL = f"""
, per_instruction AS (
    SELECT instruction_id,
           coalesce(sum(w) FILTER (WHERE {_TARGET} AND v > 0), 0) AS w,
           coalesce(sum(w) FILTER (WHERE {_TARGET} AND v = 0), 0) AS t,
           coalesce(sum(w) FILTER (WHERE {_TARGET} AND v < 0), 0) AS l,
           {_CELLS}
    FROM units GROUP BY instruction_id
)
SELECT {", ".join(PATTERN_COLUMNS)}, count(*) AS multiplicity FROM per_instruction
WHERE {" + ".join(PATTERN_COLUMNS)} > 0
GROUP BY ALL ORDER BY ALL
"""
_CATEGORIES_SQL = f"""
SELECT category, coalesce(sum(w) FILTER (WHERE {_TARGET}), 0) AS judged,
       coalesce(sum(w) FILTER (WHERE {_LABELLED}), 0) AS labelled
FROM units GROUP BY category
"""
_UNPAIRED_SQL = f"""
SELECT coalesce(sum(n_first + n_second), 0) FROM pairs
WHERE NOT (n_first = 1 AND n_second = 1) AND {_TARGET}
"""
# Share of the selection's (instruction, unordered pair) keys judged in both orders.
_ORDERS_SQL = f"""
SELECT count(*) FILTER (WHERE n_ab > 0 AND n_ba > 0), count(*) FROM (
    SELECT instruction_id, least(model_a, model_b) AS x, greatest(model_a, model_b) AS y,
           coalesce(sum(weight) FILTER (WHERE model_a < model_b), 0) AS n_ab,
           coalesce(sum(weight) FILTER (WHERE model_a > model_b), 0) AS n_ba
    FROM verdicts WHERE {_FILTERS} AND {_TARGET}
    GROUP BY ALL)
"""


@dataclass(frozen=True)
class CalibrationPatterns:
    """One row per distinct instruction pattern (columns :data:`PATTERN_COLUMNS`) with how many
    instructions share it; ``category_units``: category → (judged units in the corrected slice,
    labelled units in the labelled slice); ``unpaired_calls``: calls of pairs not judged exactly
    once in each order (both-orders units only)."""

    patterns: np.ndarray
    multiplicity: np.ndarray
    category_units: dict
    unpaired_calls: int


def orders_share(
    con: duckdb.DuckDBPyConnection,
    *,
    judge: str | None,
    candidate: str | None,
    baseline: str | None,
    category: str | None,
) -> tuple[int, int]:
    """(instruction, unordered pair) keys of the selection judged in both orders, and all keys."""
    params = {"judge": judge, "candidate": candidate, "baseline": baseline, "category": category}
    both, keys = one_row(con.execute(_ORDERS_SQL, params))
    return int(both), int(keys)


def calibration_patterns(
    con: duckdb.DuckDBPyConnection,
    *,
    judge: str | None,
    candidate: str | None,
    baseline: str | None,
    category: str | None,
    labelled: str | None,
    both_orders: bool,
) -> CalibrationPatterns:
    """The candidate's judged and labelled outcomes per instruction pattern (see
    :func:`evalcore.calibration.calibration_counts` for the units)."""
    params = {"judge": judge, "candidate": candidate, "baseline": baseline, "category": category}
    cte = _BOTH_ORDERS_CTE if both_orders else _PER_CALL_CTE
    rows = con.execute(cte + _PATTERNS_SQL, {**params, "labelled": labelled}).fetchnumpy()
    cats = con.execute(cte + _CATEGORIES_SQL, {**params, "labelled": labelled}).fetchall()
    unpaired = int(one_row(con.execute(cte + _UNPAIRED_SQL, params))[0] or 0) if both_orders else 0
    patterns = (
        np.stack([np.asarray(rows[c], dtype=np.int64) for c in PATTERN_COLUMNS], axis=1)
        if len(rows["w"])
        else np.zeros((0, len(PATTERN_COLUMNS)), dtype=np.int64)
    )
    return CalibrationPatterns(
        patterns=patterns,
        multiplicity=np.asarray(rows["multiplicity"], dtype=np.int64),
        category_units={c: (int(j), int(n)) for c, j, n in cats},
        unpaired_calls=unpaired,
    )


def head_to_head_codes(
    con: duckdb.DuckDBPyConnection, *, judge: str | None, category: str | None
) -> tuple[tuple[str, ...], pd.DataFrame]:
    """:func:`head_to_head_rows` of every model with the models as numbers: the models' names in
    code-point order (as ``sorted`` gives) and ``row``, ``a``, ``b`` (indexes into them),
    ``score``. An arena's 1.8 million calls travel as integers, not as 3.6 million names."""
    where = "verdict IS NOT NULL AND model_a <> model_b AND (? IS NULL OR judge = ?) AND (? IS NULL OR category = ?)"
    params: list = [judge, judge, category, category]
    found = con.execute(
        f"WITH f AS (SELECT model_a, model_b FROM verdicts WHERE {where}) "
        "SELECT DISTINCT model_a FROM f UNION SELECT DISTINCT model_b FROM f",
        params,
    ).fetchall()
    names = tuple(sorted(str(r[0]) for r in found))
    frame = con.execute(
        f"""WITH mi AS (SELECT unnest(?::VARCHAR[]) AS m, unnest(range(?))::INTEGER AS k)
        SELECT "row", ma.k AS a, mb.k AS b, (sign(verdict) + 1) / 2.0 AS score
        FROM verdicts{each_call_join(con)} JOIN mi ma ON ma.m = model_a JOIN mi mb ON mb.m = model_b
        WHERE {where} ORDER BY "row"
        """,
        [list(names), len(names), *params],
    ).df()
    return names, frame


def head_to_head_rows(
    con: duckdb.DuckDBPyConnection,
    *,
    judge: str | None,
    category: str | None,
    models: tuple[str, ...] | None,
) -> pd.DataFrame:
    """Decided-or-tied calls between two different models (``models`` only, if given), with their
    row number: ``row``, ``model_a``, ``model_b``, ``score`` (slot A's: 1, 1/2, 0)."""
    where = [
        "verdict IS NOT NULL",
        "model_a <> model_b",
        "(? IS NULL OR judge = ?)",
        "(? IS NULL OR category = ?)",
    ]
    params: list = [judge, judge, category, category]
    if models is not None:
        where.append("list_contains(?, model_a) AND list_contains(?, model_b)")
        params += [list(models), list(models)]
    return con.execute(
        'SELECT "row", model_a, model_b, (sign(verdict) + 1) / 2.0 AS score '
        f"FROM verdicts{each_call_join(con)} WHERE " + " AND ".join(where) + ' ORDER BY "row"',
        params,
    ).df()
