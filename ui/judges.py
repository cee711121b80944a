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
from ui.state import memo
from ui.widgets import download_csv, memo_or_info, progress_bar

ROUNDS = 200
INTRO = (
    "Each judge gets a weight estimated from the data: how sharply its verdicts follow the "
    "rating gap, judged by its agreement with the other judges (no labels needed), with its own "
    "lean towards slot A taken out. A judge that picks one slot almost always is left out, and "
    "no weight is negative or above four times the median of the other judges' weights, so one "
    "one-sided judge cannot take over the ranking."
)


def _rounds(store, key: str, resample: bool | None = None) -> int:
    """The bootstrap rounds of the pooled ranking: :data:`ROUNDS` on a table where the refits are
    quick, else none until the visitor asks with the switch (the fit itself is immediate). On the
    Judge page (``resample`` given) its own switch for resampled intervals decides."""
    from evalcore.ranking.judges import intervals_by_default

    if resample is not None:
        return ROUNDS if resample else 0
    if intervals_by_default(memo(("summary",), store.summary).rows):
        return ROUNDS
    why = (
        f"The 95% intervals refit the pooled model on {ROUNDS} resamples of the instructions: "
        "seconds on a table this large, so they are computed when asked for."
    )
    asked = st.toggle(f"95% intervals ({ROUNDS} resamples of the instructions)", key=key, help=why)
    return ROUNDS if asked else 0


def _result(
    store,
    category: str | None,
    title: Callable[[str], Any],
    heading: str,
    *,
    key: str,
    resample: bool | None = None,
):
    """The pooled result under its ``title(heading)`` and the method, or None: nothing drawn for
    one judge, the reason in words when it cannot be computed."""
    from evalcore.judge.pooling import pool_store

    if len(store.judges()) < 2:
        return None
    title(heading)
    rounds = _rounds(store, key, resample)
    words = (
        f"Weighting the judges ({rounds} resamples of the instructions)…"
        if rounds
        else "Weighting the judges…"
    )
    with progress_bar(words) as progress:
        compute = partial(pool_store, store, category=category, rounds=rounds, progress=progress)
        memo_key = ("judge_pooling", category) if rounds else ("judge_pooling", category, 0)
        res = memo_or_info(memo_key, compute, errors=EvalcoreError, words="No pooled ranking: {}")
    if res is not None:
        caption(INTRO)
        if not rounds:
            where = (
                "resample the intervals at the top of the page"
                if resample is not None
                else "switch them on above"
            )
            caption(f"Intervals not computed: {where}.")
    return res


def pooled_ranking_section(store, category: str | None) -> None:
    """Leaderboard page: the ranking that pools every judge, against plain pooling."""
    res = _result(store, category, st.subheader, "Several judges, one ranking", key="lb_pool_intervals")
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


def judge_weights_section(store, category: str | None, *, resample: bool = False) -> None:
    """Judge page: each judge's weight in the pooled ranking beside its certification; its
    intervals (resampled: the weights have no analytic interval) come with the page's switch."""
    res = _result(
        store,
        category,
        st.header,
        "Weights in the pooled ranking",
        key="judge_pool_intervals",
        resample=resample,
    )
    if res is None:
        return
    frame = show.judge_weights_display(res)
    st.dataframe(frame, hide_index=True, width="stretch")
    download_csv(frame, "judge_weights.csv", label="Download the judge weights (CSV)", key="dl_judge_weights")
