"""Leaderboard: Bradley–Terry ratings, 95% intervals, rank ranges, tiers, then the sections below.

The top (the controls, the table with its tiers, the stability line and the ratings chart: who is
first and how sure) is always drawn; the sections below are tabs of which only the open one is
drawn and computed (:func:`ui.open_tabs`): the separation matrix, the win rates, several judges
pooled, the categories compared and the ranking in time."""

from __future__ import annotations

import streamlit as st

import ui as _ui
from evalcore.errors import UsageError
from evalcore.present import ranking as show
from evalcore.present import style as style_show
from evalcore.present.display import shorten_cells
from evalcore.ranking import choose_interval, leaderboard, separation
from evalcore.ranking.style import available_controls
from ui import leaderboard_view as view
from ui.widgets import rounds_and_seed

with _ui.page("Leaderboard"):
    st.title("Leaderboard")
    store = _ui.require_data()
    _ui.demo_banner()

    c1, c2, c3, c4 = st.columns([2, 2, 1, 1])
    with c1:
        judge = _ui.judge_picker(store)
    with c2:
        category = _ui.category_picker(store)
    resamples = "Resamples of the instructions (bootstrap), or normal draws for the rank ranges (sandwich). "
    rounds, seed = rounds_and_seed(c3, c4, key="lb", help=resamples + "0 gives ratings without intervals.")
    both = _ui.orders_picker(key="lb_orders")

    cluster, weighting = view.resampling_controls(store, both=both)  # the unit column, if the table has one
    counts = view.unit_counts(store, judge, category, cluster, both=both)
    if counts.n_models < 2:
        _ui.stop_with(show.TOO_FEW_MODELS)

    # The one rule of the library (choose_interval), which `rank` and Dataset.leaderboard apply too.
    policy = choose_interval(counts.n_instructions, counts.n_models)
    default = policy.method
    why = (
        "Bootstrap: refit on resampled instructions (Efron 1979). Sandwich: a robust "
        "variance clustered by instruction, one fit only (fast on large tables)."
    )
    radio = {"key": "lb_interval", "default": show.INTERVAL_CHOICES[default], "horizontal": True, "help": why}
    radio.update(param="interval", encode=show.interval_from_label)  # in the link as the method's name
    choice = _ui.linked_choice(st.radio, "Intervals", list(show.INTERVAL_CHOICES.values()), **radio)
    interval = show.interval_from_label(choice)
    if interval == default:
        st.caption(f"Intervals {policy.reason}. Pick the other method above to compare.")
    options = _ui.memo(("style_options",), lambda: available_controls(store.feature_sources()))
    pick = {
        "param": "style",
        "key": "lb_style",
        "default": [],
        "help": style_show.STYLE_EXPLAINED,
    }  # in the link
    pick["format_func"] = style_show.control_label
    controls = _ui.linked_multi(st.multiselect, "Control for style", options, **pick)

    # the default unit and weighting keep the Overview's key, so the two pages share one board
    key = (judge, category, both, int(rounds), int(seed), interval) + (
        (cluster, weighting) if cluster or weighting else ()
    )
    options = {"rounds": int(rounds), "seed": int(seed), "interval": interval, "weighting": weighting}
    with _ui.progress_bar("Computing the intervals…") as progress:
        board = _ui.memo(("leaderboard", *key), lambda: leaderboard(counts, progress=progress, **options))

    st.caption(show.method_caption(board))
    _ui.warning(*board.design_warnings, *board.notes)

    refused = None  # the tiers of the table: the separation tab draws the matrix
    try:
        sep = _ui.memo(("separation", *key), lambda: separation(board))
    except UsageError as exc:
        sep, refused = None, exc
    table = show.display_table(board, sep)
    table = view.style_table(store, table, judge=judge, category=category, controls=controls, both=both)
    st.dataframe(
        shorten_cells(table), hide_index=True, width="stretch", column_config=_ui.count_columns(table)
    )  # a long name cut for the eye
    view.split_half_line(counts, (judge, category, both))  # "#1 stays #1 in k of 50 halves"
    _ui.download_csv(board.table, f"leaderboard_{judge}.csv", key="dl_lb")

    view.forest_chart(board)  # the table's first models when it has many: every model is in the table

    # the sections below are tabs of which only the open one is drawn and computed
    tabs, shown = _ui.open_tabs(list(view.TABS), key="lb_tab", params=view.TAB_PARAMS)
    if shown[0]:
        with tabs[0]:
            view.separation_section(sep, refused, judge)
    if shown[1]:
        with tabs[1]:
            view.win_rate_section(board, key, judge=judge, category=category, both=both)
    if shown[2]:
        with tabs[2]:
            view.judges_section(store, category)  # several judges, one ranking that weights them
    if shown[3]:
        with tabs[3]:
            view.category_section(store, judge, category)  # one ranking or one per category?
    if shown[4]:
        with tabs[4]:
            view.time_section(store, judge, category)  # when the table says when each call was made
