"""The Leaderboard's "ranking in time" section, shown only when the table says when each call was
made (the optional judged_at column): the leaderboard as of a date picked in the link, the line
on who moved between the first and the last time window, and the judge drift test's sentence."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from evalcore import quantities as q
from evalcore.errors import DesignError
from evalcore.ranking.judge_drift import judge_drift
from evalcore.ranking.judging_times import has_times, judging_days
from evalcore.ranking.over_time import WINDOW_ROUNDS, as_of_leaderboard, rating_windows
from evalcore.store.store import VerdictStore
from ui.messages import caption, info, warning
from ui.state import memo
from ui.widgets import linked_choice

HEADING = "The ranking in time"
METHOD = (
    "The leaderboard as of a date counts only the verdicts judged up to the end of that day. The "
    "windows cut the judged verdicts into three spans of equal counts, each with its own "
    "Bradley–Terry leaderboard (Bradley & Terry, 1952); a rank change is confirmed when the "
    "rating change's 95% interval, widened to allow for every model compared (Bonferroni; Dunn, "
    "Multiple comparisons among means, 1961), excludes zero. The drift test compares, on items judged more "
    "than once, the latest call with the earliest: with an unchanged judge either order is as "
    "likely, which random sign flips of whole items test (Good, Permutation, Parametric, and "
    "Bootstrap Tests of Hypotheses, 2005)."
)
#: Bootstrap rounds behind the section's intervals (a section, not the main table: quick; the
#: windows' default, so the report's line and this section are one computation).
ROUNDS = WINDOW_ROUNDS


def _board_frame(result) -> pd.DataFrame:
    cols = result.board.columns
    return pd.DataFrame(
        {
            "Rank": cols["rank"],
            "Model": cols["model"],
            "Rating": [q.format("rating", v) for v in cols["rating"]],
            "95% interval": [
                f"{lo:,.0f}–{hi:,.0f}" for lo, hi in zip(cols["ci_low"], cols["ci_high"], strict=True)
            ],
        }
    )


def _windows_frame(windows) -> pd.DataFrame:
    rows = {}
    for w in windows.windows:
        for r in w.ratings:
            rows.setdefault(r.model, {"Model": r.model})[w.label] = (
                f"#{r.rank}: {q.format('window_rating', r.rating)} ({r.low:,.0f}–{r.high:,.0f})"
            )
    return pd.DataFrame(list(rows.values()))


def time_section(store: VerdictStore, judge: str, category: str | None) -> None:
    """The section, or nothing when the table has no judging times."""
    if not memo(("has_times",), lambda: has_times(store)):
        return
    st.subheader(HEADING)
    caption(METHOD)
    try:
        days = memo(
            ("judging_days", judge, category), lambda: judging_days(store, judge=judge, category=category)
        )
    except DesignError as exc:
        info(f"Nothing in time: {exc}.")
        return
    if not days:
        info("None of this selection's verdicts has a judging time.")
        return
    as_of = linked_choice(
        st.selectbox,
        "As of",
        days,
        param="as_of",
        key="lb_as_of",
        help="Only the verdicts judged up to the end of this day (UTC) are counted.",
    )
    try:
        result = memo(
            ("as_of", judge, category, as_of),
            lambda: as_of_leaderboard(store, as_of=as_of, judge=judge, category=category, rounds=ROUNDS),
        )
        info(result.sentence())
        st.dataframe(_board_frame(result), hide_index=True, width="stretch")
    except DesignError as exc:
        info(f"No leaderboard as of {as_of}: {exc}.")
    try:
        windows = memo(
            ("time_windows", judge, category),
            lambda: rating_windows(store, judge=judge, category=category),
        )
        # a warning when the largest move is beyond chance, else the same words as a note
        (warning if windows.moved and windows.confirmed(windows.moves[0]) else info)(windows.sentence())
        with st.expander(q.name("window_rating") + ", every model and window"):
            st.dataframe(_windows_frame(windows), hide_index=True, width="stretch")
    except DesignError as exc:
        info(f"No ratings per time window: {exc}.")
    drift = memo(("judge_drift", judge, category), lambda: judge_drift(store, judge=judge, category=category))
    (warning if drift.detected else info)(drift.sentence())
