"""The case index: every case (judge, instruction, unordered pair) of a loaded table grouped once,
with the flags and sums the Verdicts page filters and counts by, kept with the table (every
session's copy of the demo shares it). A filter on the case's keys, verdict and flags is then a
selection of its rows: the page of cases and their counts without grouping every call again (on
the demo, 342,000 calls in 171,000 cases, the grouping took 0.3 to 0.5 s at each change of a
filter). :mod:`evalcore.store.verdicts` falls back to its SQL for what the index cannot answer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from evalcore.verdicts.cases import CaseStats, VerdictFilter

if TYPE_CHECKING:
    from evalcore.store.store import VerdictStore

__all__ = ["INDEX_MAX_ROWS", "case_index", "indexed", "indexed_keys", "indexed_stats"]


#: Tables of at most this many stored rows get a case index (:func:`case_index`): on the demo
#: (342,000 calls, 171,000 cases) it holds about 20 MB; a larger table is grouped in SQL per filter.
INDEX_MAX_ROWS = 1_000_000

#: One row per case, the flags and sums of :data:`_CASES` with no filter, in file order; the sums
#: read from one model's side are kept from both models' sides (``m1_*``) and from the call's own
#: second slot (``raw_*``: what :data:`_CASES` sums when ``$a`` and ``$win`` are empty).
_INDEX = """
    WITH calls AS (
        SELECT "row", judge, instruction_id, category, model_a, model_b, verdict, human, weight,
               least(model_a, model_b) AS m1, greatest(model_a, model_b) AS m2,
               sign(CASE WHEN model_a = least(model_a, model_b) THEN verdict ELSE -verdict END) AS s1
        FROM verdicts)
    SELECT judge, instruction_id, m1, m2, min("row") AS first_row,
        arg_min(category, "row") AS category,
        (count(DISTINCT category) + (bool_or(category IS NULL) AND bool_or(category IS NOT NULL))::INT) > 1
            AS mixed_category,
        bool_or(verdict > 0) AS v_first, bool_or(verdict < 0) AS v_second,
        bool_or(verdict = 0) AS v_tie, bool_or(verdict IS NULL) AS v_none,
        coalesce(m1 <> m2
         AND bool_or(verdict IS NOT NULL AND model_a = m1)
         AND bool_or(verdict IS NOT NULL AND model_a <> m1)
         AND min(CASE WHEN model_a = m1 THEN sign(verdict) ELSE -sign(verdict) END)
             < max(CASE WHEN model_a = m1 THEN sign(verdict) ELSE -sign(verdict) END), false) AS flipped,
        coalesce(bool_or(verdict IS NOT NULL AND human IS NOT NULL AND sign(verdict) <> sign(human)), false)
            AS disagrees,
        coalesce(bool_or(verdict IS NOT NULL AND human IS NOT NULL), false) AS labelled,
        sum(weight)::BIGINT AS n_calls,
        coalesce(sum(weight) FILTER (WHERE verdict IS NOT NULL), 0)::BIGINT AS n_verdicts,
        coalesce(sum(weight) FILTER (WHERE m1 <> m2 AND s1 > 0), 0)::BIGINT AS m1_wins,
        coalesce(sum(weight) FILTER (WHERE m1 <> m2 AND verdict = 0), 0)::BIGINT AS ties,
        coalesce(sum(weight) FILTER (WHERE m1 <> m2 AND s1 < 0), 0)::BIGINT AS m1_losses,
        coalesce(sum(weight) FILTER (WHERE m1 <> m2 AND verdict < 0), 0)::BIGINT AS raw_wins,
        coalesce(sum(weight) FILTER (WHERE m1 <> m2 AND verdict > 0), 0)::BIGINT AS raw_losses,
        coalesce(sum(weight) FILTER (WHERE verdict IS NOT NULL AND human IS NOT NULL
            AND (verdict < 0) <> (human < 0)), 0)::BIGINT AS raw_win_calls
    FROM calls GROUP BY judge, instruction_id, m1, m2 ORDER BY first_row
"""


def case_index(store: VerdictStore) -> Any:
    """Every case of the loaded table with its flags and sums (a frame in file order), grouped
    once per loaded table and kept with it (a copy of the demo shares it with every session); None
    for a table over :data:`INDEX_MAX_ROWS` rows. A filter on the case's keys, order, verdict
    and flags is then a selection of these rows (:func:`indexed`), not a grouping of every call."""
    got = store.kept(("case_index",))
    if got is not None:
        return got if len(got.columns) else None
    cur = store.con.cursor()
    try:
        ((rows,),) = cur.execute("SELECT count(*) FROM verdicts").fetchall()  # (all: the result ends)
        index = _as_frame(cur.sql(_INDEX).to_arrow_table()) if int(rows) <= INDEX_MAX_ROWS else None
    finally:
        cur.close()
    if index is not None:
        for flag in ("mixed_category", "v_first", "v_second", "v_tie", "v_none"):  # NULL: not kept
            index[flag] = index[flag].fillna(False).astype(bool)
    import pandas as pd

    store.keep(("case_index",), index if index is not None else pd.DataFrame())
    return index


#: The case index's name columns, held as categoricals: a name once, not once a case.
_NAMES = ("judge", "instruction_id", "m1", "m2", "category")


def _as_frame(table: Any) -> Any:
    """The index as a frame with :data:`_NAMES` as categoricals (categories sorted, as pandas'
    ``astype("category")`` sorts them), encoded in Arrow: a frame of Python strings first took
    1.6 of 2.1 s for the 866,250 cases of the paper-sized table."""
    import pandas as pd

    for name in _NAMES:
        table = table.set_column(table.column_names.index(name), name, table.column(name).dictionary_encode())
    frame = table.to_pandas()
    for name in _NAMES:
        names = frame[name].cat.categories
        if len(names):
            frame[name] = frame[name].cat.reorder_categories(sorted(names))
        else:  # no name at all (no category column): as pandas makes it of a column of None
            frame[name] = pd.Categorical([None] * len(frame), categories=pd.Index([], dtype=object))
    return frame


def _indexable(flt: VerdictFilter) -> bool:
    """Whether the cases of ``flt`` are a selection of the case index's rows: no search, no
    filter that reads other cases (beats every model, the calibration's units)."""
    return flt.search is None and flt.beats_all is None and flt.win_disagrees is None


def indexed(store: VerdictStore, flt: VerdictFilter) -> Any:
    """The case index's rows of the cases matching ``flt`` (file order), or None when ``flt`` is
    not a selection of them (:func:`_indexable`; a category filter on a table where some case's
    calls span categories: its calls, not its cases, are filtered)."""
    if not _indexable(flt):
        return None
    index = case_index(store)
    if index is None or (flt.category is not None and bool(index["mixed_category"].any())):
        return None
    keep = None

    def both(mask: Any) -> None:
        nonlocal keep
        keep = mask if keep is None else keep & mask

    for column, value in (
        ("judge", flt.judge),
        ("instruction_id", flt.instruction),
        ("category", flt.category),
    ):
        if value is not None:
            both(index[column] == value)
    a, b = flt.model_a, flt.model_b
    if a is not None and b is not None:
        both((index["m1"] == min(a, b)) & (index["m2"] == max(a, b)))
    elif a is not None or b is not None:
        one = a if a is not None else b
        both((index["m1"] == one) | (index["m2"] == one))
    if flt.verdict is not None:
        both(index[{"first": "v_first", "second": "v_second", "tie": "v_tie", "none": "v_none"}[flt.verdict]])
    if flt.flipped:
        both(index["flipped"])
    if flt.disagrees_with_human:
        both(index["disagrees"])
    return index if keep is None else index[keep.to_numpy(dtype=bool)]


def indexed_stats(kept: Any, flt: VerdictFilter) -> CaseStats:
    """:class:`CaseStats` of the index rows ``kept`` (read from ``flt``'s first model's side)."""
    a = flt.model_a
    if a is None:
        wins, losses = int(kept["raw_wins"].sum()), int(kept["raw_losses"].sum())
    else:
        first = (kept["m1"] == a).to_numpy(dtype=bool)
        wins = int(kept["m1_wins"][first].sum() + kept["m1_losses"][~first].sum())
        losses = int(kept["m1_losses"][first].sum() + kept["m1_wins"][~first].sum())
    return CaseStats(
        cases=len(kept),
        instructions=int(kept["instruction_id"].nunique()),
        calls=int(kept["n_calls"].sum()),
        verdicts=int(kept["n_verdicts"].sum()),
        wins=wins,
        ties=int(kept["ties"].sum()),
        losses=losses,
        win_calls=int(kept["raw_win_calls"].sum()),
        flipped=int(kept["flipped"].sum()),
    )


def indexed_keys(kept: Any, *, offset: int, limit: int, total: int) -> list[tuple]:
    """The page's case keys as :mod:`evalcore.store.verdicts` reads them (the SQL page's columns and its total)."""
    page = kept.iloc[offset : offset + limit]
    columns = (
        "judge",
        "instruction_id",
        "m1",
        "m2",
        "first_row",
        "category",
        "flipped",
        "disagrees",
        "labelled",
    )
    out = []
    for row in zip(*(page[c].tolist() for c in columns), strict=True):
        judge, inst, m1, m2, first, category, flipped, disagrees, labelled = row
        category = None if category != category else category  # a missing category (NaN)
        out.append(
            (judge, inst, m1, m2, int(first), category, bool(flipped), bool(disagrees), bool(labelled), total)
        )
    return out
