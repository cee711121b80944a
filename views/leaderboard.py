"""Leaderboard: Bradley–Terry ratings, 95% intervals, rank ranges, the win-rate matrix."""

from __future__ import annotations

import streamlit as st

from evalcore.plots.common import CONFIG
from evalcore.plots.leaderboard import forest_plot, win_rate_heatmap
from evalcore.ranking import leaderboard
from evalcore.text import fmt_int
from views import _ui

st.title("Leaderboard")
store = _ui.require_data()
_ui.demo_banner()

c1, c2, c3, c4 = st.columns([2, 2, 1, 1])
with c1:
    judge = _ui.judge_picker(store)
with c2:
    category = _ui.category_picker(store)
with c3:
    rounds = st.number_input("Bootstrap rounds", min_value=0, max_value=10000, step=100,
                             value=_ui.url_int("rounds", 1000, low=0, high=10000), key="lb_rounds")
with c4:
    seed = st.number_input("Seed", min_value=0, step=1,
                           value=_ui.url_int("seed", 0, low=0, high=2**31 - 1), key="lb_seed")
# Settings that differ from the defaults go into the link, so it reproduces this leaderboard.
_ui.set_url_param("rounds", None if rounds == 1000 else int(rounds))
_ui.set_url_param("seed", None if seed == 0 else int(seed))
both = _ui.orders_picker(key="lb_orders")

counts = _ui.counts(store, judge, category, both_orders=both)
if counts.n_models < 2:
    st.warning("This selection has verdicts for fewer than two models: nothing to rank. "
               "Choose another judge or category.")
    st.stop()

bar = st.progress(0.0, text="Bootstrapping over instructions…")


def _progress(fraction: float, text: str) -> None:
    bar.progress(min(1.0, fraction), text=text)


board = _ui.memo(("leaderboard", judge, category, both, int(rounds), int(seed)),
                 lambda: leaderboard(counts, rounds=int(rounds), seed=int(seed), progress=_progress))
bar.empty()

st.caption(
    f"Bradley–Terry maximum likelihood on win/tie/loss counts (a tie is half a win each), Elo "
    f"scale: a 400-point gap means a 10:1 win probability. Intervals: 2.5–97.5 percentiles over "
    f"{fmt_int(board.rounds)} bootstrap rounds that resample the {fmt_int(board.n_instructions)} instructions "
    f"(the benchmark's unit), seed {board.seed}. Rank range: the 95% range of the model's rank "
    "across rounds."
)
for note in board.notes:
    st.warning(_ui.escape_markdown(note))

table = board.table
show = table.drop(columns=["piece"]) if table["piece"].nunique() == 1 else table
st.dataframe(
    show, hide_index=True, width="stretch",
    column_config={
        "rating": st.column_config.NumberColumn(format="%.0f"),
        "ci_low": st.column_config.NumberColumn("95% low", format="%.0f"),
        "ci_high": st.column_config.NumberColumn("95% high", format="%.0f"),
        "rank_low": st.column_config.NumberColumn("best rank"),
        "rank_high": st.column_config.NumberColumn("worst rank"),
        "win_rate": st.column_config.NumberColumn("win rate", format="percent"),
    },
)
_ui.download_csv(table, f"leaderboard_{judge}.csv", key="dl_lb")

st.plotly_chart(forest_plot(board), config=CONFIG, key="forest")
st.plotly_chart(win_rate_heatmap(board), config=CONFIG, key="winrate")
_ui.download_csv(board.win_rate_matrix.reset_index(names="model"), f"win_rates_{judge}.csv",
                 label="Download the win-rate matrix (CSV)", key="dl_wr")
