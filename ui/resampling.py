"""The Leaderboard's unit of resampling and pair weighting: a picker of the unit column (shown
only when the table has a session, voter or run column) and a pair-weighting switch, both kept in
the link like the page's other controls; and its style control: the table with each model's
style-controlled rating beside its plain one (:mod:`evalcore.ranking.style`), or the reason there
is none."""

from __future__ import annotations

import pandas as pd
import streamlit as st

import ui as _ui
from evalcore.errors import EvalcoreError
from evalcore.present import ranking as show
from evalcore.ranking.style import controlled_leaderboard

#: The picker's first option: the benchmark's unit.
INSTRUCTION = "instruction"


def resampling_controls(store, *, both: bool) -> tuple[str | None, str | None]:
    """(the unit column to cluster by or None, the weighting or None) chosen on the page."""
    try:
        columns = _ui.memo(("unit_columns",), store.unit_columns)
    except EvalcoreError:
        columns = ()
    cluster = None
    if columns and not both:  # verdicts combined over both orders have no per-call unit
        unit = _ui.linked_choice(
            st.selectbox,
            "Resampling unit",
            [INSTRUCTION, *columns],
            param="cluster",
            key="lb_cluster",
            help="What the intervals treat as independent: the instruction, or the table's "
            "session, voter or run column (the bootstrap redraws whole units, the sandwich sums "
            "scores per unit). Pick the column when calls in one unit may be correlated.",
        )
        cluster = None if unit == INSTRUCTION else unit
    weighted = _ui.linked_flag(
        st.toggle,
        "Weight every pair alike",
        param="weighting",
        key="lb_weighting",
        help="Inverse pair-frequency weighting for unbalanced arenas: each call weighs the mean "
        "battles per pair ÷ its pair's battles. The table shows how far it moved each model.",
    )
    return cluster, ("inverse-pair" if weighted else None)


def unit_counts(store, judge: str | None, category: str | None, cluster: str | None, *, both: bool):
    """The session's memoised counts, split by ``cluster``'s units when one is chosen."""
    if cluster is None:
        return _ui.counts(store, judge, category, both_orders=both)
    return _ui.memo(
        ("unit_counts", judge, category, cluster),
        lambda: store.counts(judge=judge, category=category, cluster=cluster),
    )


def style_table(
    store, table: pd.DataFrame, *, judge: str, category: str | None, controls: list, both: bool
) -> pd.DataFrame:
    """``table`` with the style-controlled columns for ``controls`` (unchanged when none)."""
    if not controls:
        return table
    st.caption(show.STYLE_EXPLAINED + (" " + show.STYLE_BOTH_ORDERS if both else ""))
    try:
        styled = _ui.memo(
            ("style", judge, category, tuple(controls)),
            lambda: controlled_leaderboard(store, judge=judge, category=category, controls=controls),
        )
    except EvalcoreError as exc:
        _ui.warning(f"No style control: {exc}")
        return table
    _ui.caption(show.style_caption(styled))
    _ui.warning(*styled.notes)
    return show.style_display(table, styled)
