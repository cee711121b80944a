"""Figures of a Bradley–Terry leaderboard: forest plot, win-rate heatmap, separation matrix."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from evalcore.plots.common import ACCENT, PRIMARY, error_bars, grid_height, labels, model_heatmap, style
from evalcore.ranking import Leaderboard, Separation
from evalcore.text import fmt_int

#: Models drawn in the forest plot by default: the first rows of the leaderboard's table (a board
#: of 10,000 models would be a chart 260,000 pixels tall; the table lists every model).
FOREST_MODELS = 50
#: The larger choices a page offers for the chart (every model stays in the table).
FOREST_CHOICES = (50, 100, 200, 500)
#: From this many cells, a heat map's layer of one mark per cell (the separation's dots, the
#: win-rate map's click targets) is drawn by WebGL in one canvas: as one SVG element a cell it
#: held the browser for seconds on an arena of 129 models (16,000 cells); below, SVG as before.
WEBGL_CELLS = 2_500


def forest_plot(board: Leaderboard, top: int | None = FOREST_MODELS) -> go.Figure:
    """Ratings with their 95% bootstrap intervals, best at the top: the table's first ``top``
    models (None: every model), the title saying how many of how many when some are left out."""
    t = board.table
    n = len(t)
    if top is not None and n > top:
        t = t.iloc[:top]
    fig = go.Figure(
        go.Scatter(
            x=t["rating"],
            y=labels(t["model"]),
            mode="markers",
            marker={"color": PRIMARY, "size": 9},
            error_x=error_bars(t["rating"], t["ci_low"], t["ci_high"], color=PRIMARY, thickness=1.5),
            customdata=np.stack(
                [t["ci_low"], t["ci_high"], t["rank"], t["rank_low"], t["rank_high"]], axis=-1
            ),
            hovertemplate=(
                "<b>%{y}</b><br>rating %{x:.0f} (95%: %{customdata[0]:.0f}–"
                "%{customdata[1]:.0f})<br>rank %{customdata[2]} "
                "(95%: %{customdata[3]}–%{customdata[4]})<extra></extra>"
            ),
        )
    )
    fig.add_vline(x=1000, line_dash="dot", line_color=ACCENT, opacity=0.5)
    fig.update_yaxes(autorange="reversed", title=None)
    fig.update_xaxes(title="Bradley–Terry rating (Elo scale, mean 1000)")
    how = (
        "instruction-clustered sandwich"
        if board.interval_method == "sandwich"
        else f"{fmt_int(board.rounds)} bootstrap rounds over instructions"
    )
    title = f"Ratings with 95% intervals ({how})"
    if len(t) < n:
        title += f"; the first {fmt_int(len(t))} of {fmt_int(n)} models of the table"
    return style(fig, title=title, height=max(320, 26 * len(t) + 120))


def win_rate_heatmap(board: Leaderboard, *, clickable: bool = False) -> go.Figure:
    """Observed win rate of the row model against the column model (ties count half).

    ``clickable``: the app's chart, whose cells open their verdicts, says so under its title and
    in its hover (a file, the HTML report, has nothing to click)."""
    order = list(board.table["model"])
    rate = board.win_rate_matrix.reindex(index=order, columns=order)
    battles = board.battles_matrix.reindex(index=order, columns=order)
    fig = model_heatmap(
        rate.to_numpy(),
        order,
        colorbar="win rate",
        zmin=0,
        zmax=1,
        colorscale="RdBu",
        hoverinfo="skip",  # the cell layer below answers hovers and clicks (and carries the counts)
    )
    # Plotly reports no selection on a heatmap, so an invisible marker sits on every cell with
    # battles: a click selects it and its customdata [row, column] names the pair (indices into
    # the leaderboard's order, so an escaped label never matters). A selected cell gets a frame.
    rows, cols = np.nonzero(battles.fillna(0).to_numpy() > 0)
    names = labels(order)
    layer = go.Scattergl if len(order) ** 2 >= WEBGL_CELLS else go.Scatter
    layer_trace = layer(
        x=[names[j] for j in cols],
        y=[names[i] for i in rows],
        mode="markers",
        marker={"symbol": "square-open", "size": 18, "color": "#0f172a", "opacity": 0},
        selected={"marker": {"opacity": 1}},
        unselected={"marker": {"opacity": 0}},
        # plain lists, not a NumPy array: Plotly would ship a typed array, which comes back
        # from the browser's selection event as an object instead of a list
        customdata=[
            [int(i), int(j), float(rate.iat[i, j]), int(battles.iat[i, j])]
            for i, j in zip(rows, cols, strict=True)
        ],
        hovertemplate="%{y} vs %{x}: %{customdata[2]:.1%} over %{customdata[3]:,.0f} battles"
        + ("<br>click to see these verdicts" if clickable else "")
        + "<extra></extra>",
        showlegend=False,
    )
    fig.add_trace(layer_trace)
    fig.update_layout(clickmode="event+select")
    # the markers would pad the axes: keep them on the cells, first model at the top
    fig.update_xaxes(range=[-0.5, len(order) - 0.5])
    fig.update_yaxes(range=[len(order) - 0.5, -0.5])
    fig = style(
        fig,
        title="Head-to-head win rate, single calls: the row model against the column model",
        height=grid_height(len(order)),
    )
    if clickable:
        fig.update_layout(
            title_subtitle_text="Click a cell to read that pair's verdicts.",
            margin_t=fig.layout.margin.t + 30,
        )
    return fig


def separation_heatmap(sep: Separation) -> go.Figure:
    """Pairwise rating differences (row minus column, Elo points), leaderboard order; a dot marks
    the pairs the data separates after the multiplicity adjustment."""
    order = list(sep.tiers["model"])
    diff = sep.matrix("difference").reindex(index=order, columns=order)
    adj = sep.matrix("p_adjusted").reindex(index=order, columns=order)
    z = diff.to_numpy(dtype=float)
    p = adj.to_numpy(dtype=float)
    separated = np.isfinite(p) & (p < sep.alpha)
    many = len(order) ** 2 >= WEBGL_CELLS  # the dots as one WebGL layer, not a text a cell
    marks = np.where(separated & ~many, "●", "")
    limit = float(np.nanmax(np.abs(z))) if np.isfinite(z).any() else 1.0
    p_text = np.where(np.isfinite(p), np.char.mod("%.3g", np.nan_to_num(p)), "—")
    fig = model_heatmap(
        z,
        order,
        colorbar="Elo points",
        zmin=-limit,
        zmax=limit,
        colorscale="RdBu",
        text=marks,
        texttemplate="%{text}",
        customdata=p_text,
        hovertemplate="%{y} minus %{x}: %{z:+.0f} Elo points<br>adjusted p-value %{customdata}<extra></extra>",
    )
    fig.update_yaxes(autorange="reversed")
    if many:
        rows, cols = np.nonzero(separated)
        names = labels(order)
        dots = {"symbol": "circle", "size": 4, "color": "#0f172a"}
        fig.add_trace(
            go.Scattergl(
                x=[names[j] for j in cols],
                y=[names[i] for i in rows],
                mode="markers",
                marker=dots,
                hoverinfo="skip",
                showlegend=False,
            )
        )
        # the dots would pad the axes: keep them on the cells, first model at the top
        fig.update_xaxes(range=[-0.5, len(order) - 0.5])
        fig.update_yaxes(range=[len(order) - 0.5, -0.5], autorange=False)
    return style(
        fig, title="Rating difference, row minus column (● = separated)", height=grid_height(len(order))
    )
