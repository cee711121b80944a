"""Leaderboard: Bradley–Terry ratings, 95% intervals, rank ranges, tiers, the win-rate matrix."""

from __future__ import annotations

import streamlit as st

import ui as _ui
from evalcore.errors import UsageError
from evalcore.plots.common import CONFIG
from evalcore.plots.leaderboard import separation_heatmap, win_rate_heatmap
from evalcore.present import ranking as show
from evalcore.present import style as style_show
from evalcore.present.display import shorten_cells
from evalcore.present.verdicts import cell_verdicts
from evalcore.ranking import choose_interval, leaderboard, separation
from evalcore.ranking.style import available_controls
from ui import leaderboard_view as view
from ui.judges import pooled_ranking_section
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

    st.subheader("Separation")
    if sep is None:
        _ui.info(f"No separation test: {refused}")
    else:
        st.caption(show.separation_caption(sep))
        st.plotly_chart(separation_heatmap(sep), config=CONFIG, key="separation")
        label = "Download the pairwise tests (CSV)"
        _ui.download_csv(show.pairs_frame(sep), f"separation_{judge}.csv", label=label, key="dl_sep")

    st.subheader("Head-to-head win rates")
    if len(board.models) <= show.HEATMAP_MODEL_LIMIT:
        click = st.plotly_chart(
            win_rate_heatmap(board, clickable=True), config=CONFIG, key="winrate", on_select="rerun"
        )
        cell = cell_verdicts(click.selection.points, list(board.table["model"]), judge, category)
        _ui.verdicts_link(
            "Open this pair's verdicts", cell, switch=True, extra={"orders": "both"} if both else None
        )
        label = "Download the win-rate matrix (CSV)"
        _ui.download_csv(
            show.matrix_frame(board.win_rate_matrix), f"win_rates_{judge}.csv", label=label, key="dl_wr"
        )
    else:  # a models × models CSV of 10,000 models would be a hundred million cells: the pairs that met
        _ui.info(
            f"The win-rate matrix of {len(board.models):,} models is too large to draw; download the pairs."
        )
        frame = _ui.memo(("pair_win_rates", *key), lambda: show.pair_win_rates_frame(board))
        _ui.download_csv(
            frame, f"win_rates_{judge}.csv", label="Download the pairs' win rates (CSV)", key="dl_wr"
        )

    # several judges, one ranking that weights them: drawn here, computed after the sections below
    # (a fresh server's start-up work computes it meanwhile; see ui.warm)
    pooled = st.container()
    view.category_section(store, judge, category)  # one ranking or one per category?
    view.time_section(store, judge, category)  # shown only when the table says when each call was made
    with pooled:
        pooled_ranking_section(store, category)
