"""The store's SQL for the budget planner: a pair's head-to-head calls, and two models' calls
against candidate anchors, each with the judge's and the human's score."""

from __future__ import annotations

from typing import TYPE_CHECKING

from evalcore.store.judge_queries import EACH_CALL

if TYPE_CHECKING:
    import duckdb
    import pandas as pd


def pair_scores(
    con: duckdb.DuckDBPyConnection, *, judge: str | None, model_a: str, model_b: str
) -> pd.DataFrame:
    """Head-to-head calls of two models with a verdict: ``model_a`` (who sat in slot A), the
    judge's score for slot A and the human's (1, 1/2, 0; NaN without a label)."""
    return con.execute(
        "SELECT model_a, (sign(verdict) + 1) / 2.0 AS f, (sign(human) + 1) / 2.0 AS h "
        f"FROM verdicts, {EACH_CALL} "
        "WHERE verdict IS NOT NULL AND (? IS NULL OR judge = ?) AND "
        "((model_a = ? AND model_b = ?) OR (model_a = ? AND model_b = ?))",
        [judge, judge, model_a, model_b, model_b, model_a],
    ).df()


def anchor_scores(
    con: duckdb.DuckDBPyConnection, *, judge: str | None, models: list[str], anchors: list[str]
) -> pd.DataFrame:
    """Calls of ``models`` against ``anchors`` with a verdict, one row each: ``instruction_id``,
    ``model`` (of ``models``), ``anchor``, ``f`` and ``h`` (the judge's and the human's score from
    the model's side: 1, 1/2, 0; NaN without a label)."""
    return con.execute(
        "SELECT instruction_id, "
        "CASE WHEN list_contains(?, model_a) THEN model_a ELSE model_b END AS model, "
        "CASE WHEN list_contains(?, model_a) THEN model_b ELSE model_a END AS anchor, "
        "CASE WHEN list_contains(?, model_a) THEN (sign(verdict) + 1) / 2.0 "
        "ELSE (1 - sign(verdict)) / 2.0 END AS f, "
        "CASE WHEN list_contains(?, model_a) THEN (sign(human) + 1) / 2.0 "
        "ELSE (1 - sign(human)) / 2.0 END AS h "
        f"FROM verdicts, {EACH_CALL} "
        "WHERE verdict IS NOT NULL AND (? IS NULL OR judge = ?) AND "
        "((list_contains(?, model_a) AND list_contains(?, model_b)) OR "
        "(list_contains(?, model_b) AND list_contains(?, model_a)))",
        [models, models, models, models, judge, judge, models, anchors, models, anchors],
    ).df()
