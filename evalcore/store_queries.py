"""The store's SQL for single analyses: labelled cells (tie structure) and calibration patterns.

:class:`evalcore.store.VerdictStore` runs these on its connection and hands the analyses integer
arrays and small tuples, so no analysis module queries DuckDB. Names (judges, models, categories)
reach SQL only as bound parameters. The general aggregation every analysis reads
(:meth:`VerdictStore.counts`) lives in :mod:`evalcore.store` itself.
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb
import numpy as np

from evalcore._sql import one_row

__all__ = [
    "PATTERN_COLUMNS",
    "CalibrationPatterns",
    "LabelledCells",
    "calibration_patterns",
    "labelled_cells",
    "orders_share",
]

# -- labelled cells (evalcore.ties.labelled_counts) -----------------------------------------------

# The labelled calls counted per (instruction, ordered pair, judge level, human level), indexed in
# SQL so Python only receives integer arrays.
_LABELLED_SQL = """
WITH f AS (
    SELECT instruction_id, model_a, model_b, verdict, human FROM verdicts
    WHERE verdict IS NOT NULL AND human IS NOT NULL AND model_a <> model_b
      AND (? IS NULL OR judge = ?) AND (? IS NULL OR category = ?)),
mi AS (SELECT m, (row_number() OVER (ORDER BY m) - 1)::INTEGER AS k FROM
       (SELECT model_a AS m FROM f UNION SELECT model_b FROM f)),
ii AS (SELECT instruction_id, (row_number() OVER (ORDER BY instruction_id) - 1)::INTEGER AS k
       FROM (SELECT DISTINCT instruction_id FROM f)),
c AS (SELECT instruction_id, model_a, model_b, verdict, human, count(*)::INTEGER AS n
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

#: Columns of a pattern row: judged wins, ties, losses; then the labelled confusion matrix with
#: the human label (win, tie, loss) as rows and the judge's verdict (win, tie, loss) as columns.
PATTERN_COLUMNS: tuple[str, ...] = (
    "w",
    "t",
    "l",
    "hw_vw",
    "hw_vt",
    "hw_vl",
    "ht_vw",
    "ht_vt",
    "ht_vl",
    "hl_vw",
    "hl_vt",
    "hl_vl",
)

_FILTERS = """verdict IS NOT NULL AND model_a <> model_b
      AND ($judge IS NULL OR judge = $judge)
      AND ($candidate IS NULL OR model_a = $candidate OR model_b = $candidate)
      AND ($baseline IS NULL OR model_a = $baseline OR model_b = $baseline)"""

_PER_CALL_CTE = f"""
WITH units AS (
    SELECT instruction_id, category,
           sign(CASE WHEN $candidate IS NULL OR model_a = $candidate THEN verdict ELSE -verdict END) AS v,
           sign(CASE WHEN $candidate IS NULL OR model_a = $candidate THEN human ELSE -human END) AS h
    FROM verdicts WHERE {_FILTERS}
)
"""

_BOTH_ORDERS_CTE = f"""
WITH oriented AS (
    SELECT instruction_id,
           CASE WHEN model_a = $candidate THEN model_b ELSE model_a END AS opponent,
           model_a = $candidate AS candidate_first,
           sign(CASE WHEN model_a = $candidate THEN verdict ELSE -verdict END) AS v,
           sign(CASE WHEN model_a = $candidate THEN human ELSE -human END) AS h,
           category
    FROM verdicts WHERE {_FILTERS}
), pairs AS (
    SELECT instruction_id, opponent, any_value(category) AS category,
           count(*) FILTER (WHERE candidate_first) AS n_first,
           count(*) FILTER (WHERE NOT candidate_first) AS n_second,
           max(v) FILTER (WHERE candidate_first) AS v_first,
           max(v) FILTER (WHERE NOT candidate_first) AS v_second,
           count(h) AS n_h, sum(h) AS h_sum
    FROM oriented GROUP BY instruction_id, opponent
), units AS (
    SELECT instruction_id, category, CASE WHEN v_first = v_second THEN v_first ELSE 0 END AS v,
           CASE WHEN n_h = 0 THEN NULL ELSE sign(h_sum) END AS h
    FROM pairs WHERE n_first = 1 AND n_second = 1
)
"""

_TARGET = "($category IS NULL OR category = $category)"
_LABELLED = "(h IS NOT NULL AND ($labelled IS NULL OR category = $labelled))"
_CELLS = ", ".join(
    f"count(*) FILTER (WHERE {_LABELLED} AND h = {hv} AND v = {vv}) AS h{hn}_v{vn}"
    for hn, hv in (("w", 1), ("t", 0), ("l", -1))
    for vn, vv in (("w", 1), ("t", 0), ("l", -1))
)
_PATTERNS_SQL = f"""
, per_instruction AS (
    SELECT instruction_id,
           count(*) FILTER (WHERE {_TARGET} AND v > 0) AS w,
           count(*) FILTER (WHERE {_TARGET} AND v = 0) AS t,
           count(*) FILTER (WHERE {_TARGET} AND v < 0) AS l,
           {_CELLS}
    FROM units GROUP BY instruction_id
)
SELECT {", ".join(PATTERN_COLUMNS)}, count(*) AS multiplicity FROM per_instruction
WHERE {" + ".join(PATTERN_COLUMNS)} > 0
GROUP BY ALL ORDER BY ALL
"""
_CATEGORIES_SQL = f"""
SELECT category, count(*) FILTER (WHERE {_TARGET}) AS judged,
       count(*) FILTER (WHERE {_LABELLED}) AS labelled
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
           count(*) FILTER (WHERE model_a < model_b) AS n_ab,
           count(*) FILTER (WHERE model_a > model_b) AS n_ba
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
