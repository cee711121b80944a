"""The Leaderboard's controls and sections beside its main table, each one call from the page.

* The sections below the table are tabs (:data:`TABS`) of which only the open one is drawn and
  computed: the separation matrix, the head-to-head win rates (a click on a cell opens that
  pair's verdicts), several judges pooled, the categories compared and the ranking in time.

* The unit of resampling and pair weighting: a picker of the unit column (shown only when the
  table has a session, voter or run column) and a pair-weighting switch, both kept in the link.
* The style control: the table with each model's style-controlled rating beside its plain one
  (:mod:`evalcore.ranking.style`), or the reason there is none.
* "Does one ranking fit every category?" and the split-half line beside the rank ranges and
  tiers. The category analysis is memoised under the key the Overview's findings use, so the
  sentence the Overview's leader finding adds (when the categories rank differently) is this
  section's.
* "The ranking in time", shown only when the table says when each call was made (the optional
  judged_at column): the leaderboard as of a date picked in the link, the line on who moved
  between the first and the last time window, and the judge drift test's sentence.
"""

from __future__ import annotations

from functools import partial

import pandas as pd
import streamlit as st

import ui as _ui
from evalcore import quantities as q
from evalcore.counts import VerdictCounts
from evalcore.errors import DesignError, EvalcoreError
from evalcore.plots.common import CONFIG
from evalcore.plots.leaderboard import (
    FOREST_CHOICES,
    FOREST_MODELS,
    forest_plot,
    separation_heatmap,
    win_rate_heatmap,
)
from evalcore.present import ranking as show
from evalcore.present import style as style_show
from evalcore.present.display import catalogue_table
from evalcore.present.verdicts import cell_verdicts
from evalcore.ranking.heterogeneity import Heterogeneity, HeterogeneityError, store_heterogeneity
from evalcore.ranking.judge_drift import judge_drift
from evalcore.ranking.judging_times import has_times, judging_days
from evalcore.ranking.over_time import WINDOW_ROUNDS, as_of_leaderboard, rating_windows
from evalcore.ranking.separation import Separation
from evalcore.ranking.split_half import split_half_stability
from evalcore.ranking.style import controlled_leaderboard
from evalcore.store.store import VerdictStore
from evalcore.text import fmt_int
from ui.judges import pooled_ranking_section
from ui.messages import caption, info, md, warning
from ui.state import memo
from ui.widgets import download_csv, linked_choice

#: The picker's first option: the benchmark's unit.
INSTRUCTION = "instruction"

#: The sections below the table, each a tab of which only the open one is drawn and computed
#: (:func:`ui.open_tabs`); the open tab is kept in the link (``?tab=Win+rates``).
TABS = ("Separation", "Win rates", "Several judges", "Categories", "In time")
#: The link parameters each tab's widgets read (by tab index): a link that sets one (a day of the
#: ranking in time, ``?as_of=``) opens on that tab.
TAB_PARAMS = {4: ("as_of",)}


def separation_section(sep: Separation | None, refused: Exception | None, judge: str) -> None:
    """Which pairs the data tell apart: the matrix of the pairwise tests, or why there is none."""
    st.subheader("Separation")
    if sep is None:
        info(f"No separation test: {refused}")
        return
    st.caption(show.separation_caption(sep))
    st.plotly_chart(separation_heatmap(sep), config=CONFIG, key="separation")
    label = "Download the pairwise tests (CSV)"
    download_csv(show.pairs_frame(sep), f"separation_{judge}.csv", label=label, key="dl_sep")


def win_rate_section(board, key: tuple, *, judge: str, category: str | None, both: bool) -> None:
    """The head-to-head win rates: a matrix whose cell opens that pair's verdicts, or, for more
    models than a matrix can draw, the pairs that met as a download."""
    st.subheader("Head-to-head win rates")
    too_large = show.map_too_large(len(board.models), "The win-rate matrix", "download the pairs.")
    if too_large is None:
        click = st.plotly_chart(
            win_rate_heatmap(board, clickable=True), config=CONFIG, key="winrate", on_select="rerun"
        )
        cell = cell_verdicts(click.selection.points, list(board.table["model"]), judge, category)
        _ui.verdicts_link(
            "Open this pair's verdicts", cell, switch=True, extra={"orders": "both"} if both else None
        )
        label = "Download the win-rate matrix (CSV)"
        download_csv(
            show.matrix_frame(board.win_rate_matrix), f"win_rates_{judge}.csv", label=label, key="dl_wr"
        )
        return
    # a models × models CSV of 10,000 models would be a hundred million cells: the pairs that met
    info(too_large)
    frame = memo(("pair_win_rates", *key), lambda: show.pair_win_rates_frame(board))
    download_csv(frame, f"win_rates_{judge}.csv", label="Download the pairs' win rates (CSV)", key="dl_wr")


def judges_section(store, category: str | None) -> None:
    """Several judges, one ranking that weights them; on a table of one judge, why there is none."""
    if len(store.judges()) < 2:
        info("One judge: there is no second judge to pool with this one.")
        return
    pooled_ranking_section(store, category)


def resampling_controls(store, *, both: bool) -> tuple[str | None, str | None]:
    """(the unit column to cluster by or None, the weighting or None) chosen on the page."""
    try:
        columns = _ui.memo(("unit_columns",), store.unit_columns)
    except EvalcoreError:
        columns = ()
    cluster = None
    if columns and not both:  # verdicts combined over both orders have no per-call unit
        why = (
            "What the intervals treat as independent: the instruction, or the table's session, "
            "voter or run column (the bootstrap redraws whole units, the sandwich sums scores per "
            "unit). Pick the column when calls in one unit may be correlated."
        )
        pick = {"param": "cluster", "key": "lb_cluster", "help": why}
        unit = _ui.linked_choice(st.selectbox, "Resampling unit", [INSTRUCTION, *columns], **pick)
        cluster = None if unit == INSTRUCTION else unit
    why = (
        "Inverse pair-frequency weighting for unbalanced arenas: each call weighs the mean battles "
        "per pair divided by its pair's battles. The table shows how far it moved each model."
    )
    weighted = _ui.linked_flag(
        st.toggle, "Weight every pair alike", param="weighting", key="lb_weighting", help=why
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
    st.caption(style_show.STYLE_EXPLAINED + (" " + style_show.STYLE_BOTH_ORDERS if both else ""))
    try:
        styled = _ui.memo(
            ("style", judge, category, tuple(controls)),
            lambda: controlled_leaderboard(store, judge=judge, category=category, controls=controls),
        )
    except EvalcoreError as exc:
        _ui.warning(f"No style control: {exc}")
        return table
    _ui.caption(style_show.style_caption(styled))
    _ui.warning(*styled.notes)
    return style_show.style_display(table, styled)


CATEGORY_HEADING = "Does one ranking fit every category?"
CATEGORY_METHOD = (
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
        info("This table has one category (or none): there are no categories to compare.")
        return
    st.subheader(CATEGORY_HEADING)
    if category is not None:
        info("Pick **All categories** above to compare the categories' rankings.")
        return
    result = category_result(store, judge)
    if isinstance(result, str):
        info(result)
        return
    (warning if result.reversals or result.rejects else info)(result.sentence())
    caption(CATEGORY_METHOD)
    # the command prints the same tables
    st.dataframe(show.category_tests_display(result), hide_index=True, width="stretch")
    if result.reversals:
        st.markdown(md(f"**{q.name('category_reversals')}: {len(result.reversals):,}**"))
        st.dataframe(show.reversals_display(result), hide_index=True, width="stretch")
    caption(*result.notes)
    with st.expander(q.name("category_rating") + ", every model and category"):
        r = result.ratings
        shown = r.assign(interval=[f"{lo:,.0f}–{hi:,.0f}" for lo, hi in zip(r.lower, r.upper, strict=True)])
        columns = [("category", "Category", None), ("model", "Model", None)]
        columns += [("overall", "Overall", "category_rating"), ("shrunk", "category_rating")]
        columns += [("interval", "95% interval", None), ("verdicts", "Verdicts", None)]
        st.dataframe(catalogue_table(shown, columns), hide_index=True, width="stretch")
        download_csv(
            r, f"category_ratings_{judge}.csv", label="Download the ratings by category (CSV)", key="dl_cat"
        )


def forest_chart(board) -> None:
    """The ratings chart: every model up to :data:`FOREST_MODELS`, else the table's first ones,
    as many as picked (the table above lists every model, the download has them all)."""
    n = len(board.models)
    top = None
    if n > FOREST_MODELS:
        choices = [k for k in FOREST_CHOICES if k < n]
        why = "The chart draws the table's first models only; the table above lists every model."
        top = st.selectbox("Models in the chart", choices, key="lb_forest_top", help=why, format_func=fmt_int)
        caption(
            f"The chart shows the first {fmt_int(top)} of {fmt_int(n)} models; scroll the table above "
            "or download it for the rest."
        )
    st.plotly_chart(forest_plot(board, top), config=CONFIG, key="forest")


def split_half_line(counts: VerdictCounts, key: tuple) -> None:
    """Under the leaderboard: how often its #1 and top three survive random halves of the data."""
    result = memo(("split_half", *key), lambda: split_half_stability(counts))
    caption(
        f"Stability: {result.sentence()} A half sees half the evidence, so this is a cautious "
        "picture; the rank ranges and tiers above say the same for every position."
    )


TIME_HEADING = "The ranking in time"
TIME_METHOD = (
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
TIME_ROUNDS = WINDOW_ROUNDS


def _board_frame(result) -> pd.DataFrame:
    cols = pd.DataFrame(result.board.columns)
    cols["interval"] = [f"{lo:,.0f}–{hi:,.0f}" for lo, hi in zip(cols.ci_low, cols.ci_high, strict=True)]
    columns = [("rank", "Rank", None), ("model", "Model", None), "rating", ("interval", "95% interval", None)]
    return catalogue_table(cols, columns)


def time_section(store: VerdictStore, judge: str, category: str | None) -> None:
    """The section, or why there is none when the table has no judging times."""
    if not memo(("has_times",), lambda: has_times(store)):
        info("This table does not say when each call was judged: there is no ranking in time.")
        return
    st.subheader(TIME_HEADING)
    caption(TIME_METHOD)
    sel = {"judge": judge, "category": category}
    try:
        days = memo(("judging_days", judge, category), lambda: judging_days(store, **sel))
    except DesignError as exc:
        info(f"Nothing in time: {exc}.")
        return
    if not days:
        info("None of this selection's verdicts has a judging time.")
        return
    why = "Only the verdicts judged up to the end of this day (UTC) are counted."
    as_of = linked_choice(st.selectbox, "As of", days, param="as_of", key="lb_as_of", help=why)
    try:
        board = partial(as_of_leaderboard, store, as_of=as_of, rounds=TIME_ROUNDS, **sel)
        result = memo(("as_of", judge, category, as_of), board)
        info(result.sentence())
        st.dataframe(_board_frame(result), hide_index=True, width="stretch")
    except DesignError as exc:
        info(f"No leaderboard as of {as_of}: {exc}.")
    try:
        windows = memo(("time_windows", judge, category), lambda: rating_windows(store, **sel))
        # a warning when the largest move is beyond chance, else the same words as a note
        (warning if windows.moved and windows.confirmed(windows.moves[0]) else info)(windows.sentence())
        with st.expander(q.name("window_rating") + ", every model and window"):
            st.dataframe(show.windows_display(windows), hide_index=True, width="stretch")
    except DesignError as exc:
        info(f"No ratings per time window: {exc}.")
    drift = memo(("judge_drift", judge, category), lambda: judge_drift(store, **sel))
    (warning if drift.detected else info)(drift.sentence())
