"""The store's SQL for prediction-powered ratings: per-cell judged and labelled scores, per
instruction or per unit of a unit column (session, voter, run). Run through
:meth:`evalcore.store.store.VerdictStore.score_cells` (re-exported by :mod:`evalcore.store.queries`).
"""

from __future__ import annotations

from typing import Any

import duckdb
import numpy as np

from evalcore._sql import one_row


def score_cells(
    cur: duckdb.DuckDBPyConnection, *, judge: str | None, category: str | None, units: Any = None
) -> dict:
    """Per (instruction, slot-A model, slot-B model) cell: the judge's calls and slot A's score,
    and on the rows that also carry a human label the human's and the judge's score.

    What prediction-powered ratings (:mod:`evalcore.calibration.ppi`) read. A score is slot
    A's share of the outcome: 1 for a win, ½ for a tie, 0 for a loss (the sign of the verdict
    or of the label). Rows without a verdict or comparing a model with itself are left out;
    a labelled row counts only when it has a verdict too. Returns numpy arrays ``inst`` (an
    instruction number, cells sorted by it), ``a``, ``b`` (model indexes), ``calls``,
    ``judge_score``, ``labelled``, ``human_score``, ``judge_score_labelled``; the sorted
    ``models``; and ``labelled_pairs`` and ``labelled_instructions``: distinct
    (instruction, unordered pair) keys and instructions with a label (a label repeated on
    both order rows is one pair).

    ``units`` (``row``, ``unit``: a unit column's values, e.g. the session) makes the cells and
    ``inst`` per unit instead of per instruction (a row without a unit is its instruction's
    unit), ``labelled_instructions`` the labelled units, and adds ``n_instructions``.
    """
    params = [judge, judge, category, category]
    group = "v.instruction_id"
    join = ""
    if units is not None:
        cur.register("vl_units", units)
        group = "coalesce(u.unit, 'instruction ' || v.instruction_id)"
        join = 'LEFT JOIN vl_units u ON u."row" = v."row"'
    filtered = f"""
        SELECT v.instruction_id, {group} AS grp, v.model_a, v.model_b,
               (sign(v.verdict) + 1) / 2.0 AS v, (sign(v.human) + 1) / 2.0 AS h, v.weight
        FROM verdicts v {join}
        WHERE v.verdict IS NOT NULL AND v.model_a <> v.model_b
          AND (? IS NULL OR v.judge = ?) AND (? IS NULL OR v.category = ?)"""
    try:
        models = tuple(
            r[0]
            for r in cur.execute(
                f"WITH f AS ({filtered}) SELECT DISTINCT m FROM "
                "(SELECT model_a AS m FROM f UNION ALL SELECT model_b FROM f) ORDER BY m",
                params,
            ).fetchall()
        )
        cells = cur.execute(
            f"""
            WITH c AS (SELECT grp, model_a, model_b, sum(weight) AS calls,
                              sum(weight * v) AS judge_score,
                              coalesce(sum(weight) FILTER (WHERE h IS NOT NULL), 0) AS labelled,
                              coalesce(sum(weight * h), 0) AS human_score,
                              coalesce(sum(weight * v) FILTER (WHERE h IS NOT NULL), 0)
                                  AS judge_score_labelled
                       FROM ({filtered}) GROUP BY ALL),
            mi AS (SELECT unnest(?::VARCHAR[]) AS m, unnest(range(?))::INTEGER AS k)
            SELECT grp, ma.k AS a, mb.k AS b, calls, judge_score, labelled,
                   human_score, judge_score_labelled
            FROM c JOIN mi ma ON ma.m = c.model_a JOIN mi mb ON mb.m = c.model_b
            ORDER BY grp, a, b
            """,
            params + [list(models), len(models)],
        ).fetchnumpy()
        pairs, insts = one_row(
            cur.execute(
                f"""SELECT count(DISTINCT (instruction_id, least(model_a, model_b),
                                           greatest(model_a, model_b))),
                           count(DISTINCT grp)
                    FROM ({filtered}) WHERE h IS NOT NULL""",
                params,
            )
        )
        if units is not None:  # the clusters are units: the instructions are counted apart
            n_inst = cur.execute(
                f"SELECT count(DISTINCT instruction_id) FROM ({filtered})", params
            ).fetchall()[0][0]
    finally:
        if units is not None:
            cur.unregister("vl_units")
    ids = np.asarray(cells["grp"], dtype=object)
    change = np.ones(ids.size, dtype=bool)
    if ids.size > 1:
        change[1:] = ids[1:] != ids[:-1]
    out: dict = {"inst": (np.cumsum(change) - 1).astype(np.int64)}
    out["a"] = np.asarray(cells["a"], dtype=np.int64)
    out["b"] = np.asarray(cells["b"], dtype=np.int64)
    for key in ("calls", "judge_score", "labelled", "human_score", "judge_score_labelled"):
        out[key] = np.asarray(cells[key], dtype=np.float64)
    out.update(models=models, labelled_pairs=int(pairs), labelled_instructions=int(insts))
    if units is not None:
        out["n_instructions"] = int(n_inst)
    return out
