"""Several judges, one ranking: the sections of the Leaderboard and Judge pages.

The pages call :func:`pooled_ranking_section` and :func:`judge_weights_section` in one line each;
both draw nothing for a table with one judge. The numbers come from
:func:`evalcore.judge.pooling.pool_store`, memoised per category.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Callable

import streamlit as st

from evalcore import quantities as q
from evalcore.errors import EvalcoreError
from evalcore.present import ranking as show
from ui.messages import caption, warning
from ui.widgets import download_csv, memo_or_info

ROUNDS = 200
INTRO = (
    "Each judge gets a weight estimated from the data: how sharply its verdicts follow the "
    "rating gap, judged by its agreement with the other judges (no labels needed), with its own "
    "lean towards slot A taken out. A judge that picks one slot almost always is left out, and "
    "no weight is negative or above four times the median of the other judges' weights, so one "
    "one-sided judge cannot take over the ranking."
)


def _result(store, category: str | None, title: Callable[[str], Any], heading: str):
    """The pooled result under its ``title(heading)`` and the method, or None: nothing drawn for
    one judge, the reason in words when it cannot be computed."""
    from evalcore.judge.pooling import pool_store

    if len(store.judges()) < 2:
        return None
    with st.spinner(f"Weighting the judges ({ROUNDS} resamples of the instructions)…", show_time=True):
        compute = partial(pool_store, store, category=category, rounds=ROUNDS)
        res = memo_or_info(
            ("judge_pooling", category), compute, errors=EvalcoreError, words="No pooled ranking: {}"
        )
    if res is not None:
        title(heading)
        caption(INTRO)
    return res


def pooled_ranking_section(store, category: str | None) -> None:
    """Leaderboard page: the ranking that pools every judge, against plain pooling."""
    res = _result(store, category, st.subheader, "Several judges, one ranking")
    if res is None:
        return
    warning(*res.notes)
    # the command prints the same table
    st.dataframe(show.pooled_display(res), hide_index=True, width="stretch")
    moves = "; ".join(f"{m} {p} → {r}" for m, r, p in res.moves) or "no model changes place"
    caption(
        f"{q.name('plain_pooling_tau')}: {q.format('plain_pooling_tau', res.tau_plain)} (every verdict "
        f"weighted alike against weighted by judge). Biggest moves from plain pooling: {moves}."
    )
    st.dataframe(show.judge_weights_display(res), hide_index=True, width="stretch")
    download_csv(res.table, "pooled_ranking.csv", label="Download the pooled ranking (CSV)", key="dl_pooled")


def judge_weights_section(store, category: str | None) -> None:
    """Judge page: each judge's weight in the pooled ranking beside its certification."""
    res = _result(store, category, st.header, "Weights in the pooled ranking")
    if res is None:
        return
    frame = show.judge_weights_display(res)
    st.dataframe(frame, hide_index=True, width="stretch")
    download_csv(frame, "judge_weights.csv", label="Download the judge weights (CSV)", key="dl_judge_weights")
