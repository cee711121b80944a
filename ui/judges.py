"""Several judges, one ranking: the sections of the Leaderboard and Judge pages.

The pages call :func:`pooled_ranking_section` and :func:`judge_weights_section` in one line each;
both draw nothing for a table with one judge. The numbers come from
:func:`evalcore.judge.pooling.pool_store`, memoised per category.
"""

from __future__ import annotations

from dataclasses import asdict
from functools import partial
from typing import Any, Callable

import pandas as pd
import streamlit as st

from evalcore import quantities as q
from evalcore.errors import EvalcoreError
from evalcore.present.display import catalogue_table
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


def judge_table(res) -> pd.DataFrame:
    """Each judge's weight beside its certification against the human labels."""
    t = pd.DataFrame([asdict(j) for j in res.judges])
    w = partial(q.format, "judge_weight")
    t["interval"] = [f"{w(lo)} to {w(hi)}" for lo, hi in zip(t.weight_low, t.weight_high, strict=True)]
    t["cert"] = [{None: "no labels", True: "certified"}.get(c, "not certified") for c in t.certified]
    t["used"] = [s + (f": {r}" if r else "") for s, r in zip(t.status, t.reason, strict=True)]
    columns = [("judge", "Judge", None), ("weight", "judge_weight"), ("interval", "95% interval", None)]
    columns += [("lean", "judge_slot_lean"), ("share", "judge_information_share")]
    columns += [("tau", "judge_tau_pooled"), ("cert", "Certification against human labels", None)]
    columns += [("used", "In the pooled ranking", None)]
    return catalogue_table(t, columns)


def pooled_ranking_section(store, category: str | None) -> None:
    """Leaderboard page: the ranking that pools every judge, against plain pooling."""
    res = _result(store, category, st.subheader, "Several judges, one ranking")
    if res is None:
        return
    warning(*res.notes)
    t = res.table
    fmt = partial(q.format, "pooled_rating")
    view = t.assign(interval=[f"{fmt(lo)} to {fmt(hi)}" for lo, hi in zip(t.ci_low, t.ci_high, strict=True)])
    columns = [("rank", "Rank", None), ("model", "Model", None), ("rating", "pooled_rating")]
    columns += [("interval", "95% interval", None), ("plain_rank", "Rank with plain pooling", None)]
    shown = catalogue_table(view, [*columns, ("rank_change", "Places gained by weighting", None)])
    st.dataframe(shown, hide_index=True, width="stretch")
    moves = "; ".join(f"{m} {p} → {r}" for m, r, p in res.moves) or "no model changes place"
    caption(
        f"{q.name('plain_pooling_tau')}: {q.format('plain_pooling_tau', res.tau_plain)} (every verdict "
        f"weighted alike against weighted by judge). Biggest moves from plain pooling: {moves}."
    )
    st.dataframe(judge_table(res), hide_index=True, width="stretch")
    download_csv(t, "pooled_ranking.csv", label="Download the pooled ranking (CSV)", key="dl_pooled")


def judge_weights_section(store, category: str | None) -> None:
    """Judge page: each judge's weight in the pooled ranking beside its certification."""
    res = _result(store, category, st.header, "Weights in the pooled ranking")
    if res is None:
        return
    frame = judge_table(res)
    st.dataframe(frame, hide_index=True, width="stretch")
    download_csv(frame, "judge_weights.csv", label="Download the judge weights (CSV)", key="dl_judge_weights")
