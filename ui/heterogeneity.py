"""The Leaderboard's "does one ranking fit every category?" section and its split-half line
beside the rank ranges and tiers.

The category analysis is memoised under the key the Overview's findings use, so the sentence the
Overview's leader finding adds (when the categories rank differently) is this section's.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from evalcore import quantities as q
from evalcore.counts import VerdictCounts
from evalcore.ranking.heterogeneity import Heterogeneity, HeterogeneityError, store_heterogeneity
from evalcore.ranking.split_half import split_half_stability
from evalcore.store.store import VerdictStore
from ui.messages import caption, info, md, warning
from ui.state import memo
from ui.widgets import download_csv

HEADING = "Does one ranking fit every category?"
METHOD = (
    "A separate Bradley–Terry fit per category against the one pooled fit, compared by a "
    "likelihood-ratio test whose reference shuffles the categories among whole instructions (so "
    "the correlated verdicts on one instruction cannot fake a difference). A reversal is a pair "
    "in one order overall whose 95% interval within a category lies entirely in the other order; "
    "the ratings within a category are pulled toward the overall ones as far as its evidence is thin."
)


def category_result(store: VerdictStore, judge: str) -> Heterogeneity | str:
    """The judge's category analysis, or why there is none (in words)."""

    try:  # the key the Overview's findings use: one computation for both pages
        return memo(("findings", "heterogeneity", judge), lambda: store_heterogeneity(store, judge=judge))
    except HeterogeneityError as exc:
        return f"No comparison of the categories: {exc}."


def category_section(store: VerdictStore, judge: str, category: str | None) -> None:
    """The Leaderboard's section: the test in words, the categories, reversals, ratings."""
    if len(store.categories()) < 2:
        return
    st.subheader(HEADING)
    if category is not None:
        info("Pick **All categories** above to compare the categories' rankings.")
        return
    result = category_result(store, judge)
    if isinstance(result, str):
        info(result)
        return
    (warning if result.reversals or result.rejects else info)(result.sentence())
    caption(METHOD)
    tests = pd.DataFrame(
        {
            "Category": [t.category for t in result.per_category],
            "Verdicts": [t.verdicts for t in result.per_category],
            "Against the other categories, p": [f"{t.p_value:.3g}" for t in result.per_category],
            "Holm-adjusted p": [f"{t.p_holm:.3g}" for t in result.per_category],
            q.name("category_spread"): [q.format("category_spread", x) for x in result.spread],
        }
    )
    st.dataframe(tests, hide_index=True, width="stretch")
    if result.reversals:
        st.markdown(md(f"**{q.name('category_reversals')}: {len(result.reversals):,}**"))
        rev = pd.DataFrame(
            {
                "Category": [r.category for r in result.reversals],
                "Ahead overall": [r.better_overall for r in result.reversals],
                "Behind overall": [r.worse_overall for r in result.reversals],
                "Gap overall (Elo)": [f"{r.pooled_gap:+,.0f}" for r in result.reversals],
                "Gap in the category (Elo)": [f"{r.category_gap:+,.0f}" for r in result.reversals],
                "95% interval": [f"{r.lower:+,.0f} to {r.upper:+,.0f}" for r in result.reversals],
                "Reversed in every category": [
                    "yes" if r.in_every_category else "no" for r in result.reversals
                ],
            }
        )
        st.dataframe(rev, hide_index=True, width="stretch")
    caption(*result.notes)
    with st.expander(q.name("category_rating") + ", every model and category"):
        r = result.ratings
        shown = pd.DataFrame(
            {
                "Category": r["category"],
                "Model": r["model"],
                "Overall": r["overall"].map(lambda v: q.format("category_rating", v)),
                q.name("category_rating"): r["shrunk"].map(lambda v: q.format("category_rating", v)),
                "95% interval": [
                    f"{lo:,.0f}–{hi:,.0f}" for lo, hi in zip(r["lower"], r["upper"], strict=True)
                ],
                "Verdicts": r["verdicts"],
            }
        )
        st.dataframe(shown, hide_index=True, width="stretch")
        download_csv(
            r, f"category_ratings_{judge}.csv", label="Download the ratings by category (CSV)", key="dl_cat"
        )


def split_half_line(counts: VerdictCounts, key: tuple) -> None:
    """Under the leaderboard: how often its #1 and top three survive random halves of the data."""
    result = memo(("split_half", *key), lambda: split_half_stability(counts))
    caption(
        f"Stability: {result.sentence()} A half sees half the evidence, so this is a cautious "
        "picture; the rank ranges and tiers above say the same for every position."
    )
