"""The Leaderboard's style control: the table with each model's style-controlled rating beside
its plain one (evalcore.ranking.style), or the reason there is none."""

from __future__ import annotations

import pandas as pd
import streamlit as st

import ui as _ui
from evalcore.errors import EvalcoreError
from evalcore.present import ranking as show
from evalcore.ranking.style import controlled_leaderboard


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
    for note in styled.notes:
        _ui.warning(note)
    return show.style_display(table, styled)
