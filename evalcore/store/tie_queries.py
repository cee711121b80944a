"""The store's SQL for ties kept apart: how many ties carry the ``both_bad`` mark
(:mod:`evalcore.ties.both_bad`). Run through :meth:`evalcore.store.store.VerdictStore.query` by
name (re-exported by :mod:`evalcore.store.queries`)."""

from __future__ import annotations

import duckdb

from evalcore._sql import one_row

_JUDGE_CATEGORY = "(? IS NULL OR judge = ?) AND (? IS NULL OR category = ?)"


def both_bad_counts(
    con: duckdb.DuckDBPyConnection, *, judge: str | None, category: str | None
) -> tuple[int, int, int, int] | None:
    """The selection's calls with a verdict (self-comparisons left out, as every ranking leaves
    them), its ties, the ties whose ``both_bad`` mark is known, and those marked both bad; None
    when the table carries no ``both_bad`` column (:data:`evalcore.schema.FLAG_COLUMNS`)."""
    columns = {str(r[0]) for r in con.execute("DESCRIBE verdicts").fetchall()}
    if "both_bad" not in columns:
        return None
    verdicts, ties, marked, both_bad = one_row(
        con.execute(
            f"""SELECT coalesce(sum(weight), 0), coalesce(sum(weight) FILTER (WHERE verdict = 0), 0),
                coalesce(sum(weight) FILTER (WHERE verdict = 0 AND both_bad IS NOT NULL), 0),
                coalesce(sum(weight) FILTER (WHERE both_bad), 0)
            FROM verdicts WHERE verdict IS NOT NULL AND model_a <> model_b AND {_JUDGE_CATEGORY}""",
            [judge, judge, category, category],
        )
    )
    return int(verdicts), int(ties), int(marked), int(both_bad)
