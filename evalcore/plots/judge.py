"""Figures of the judge's spec sheet (the Judge page and the HTML report)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from evalcore.plots.common import ACCENT, MUTED, PRIMARY, error_bars, style


def _error(table: pd.DataFrame, column: str, low: str = "_low", high: str = "_high") -> dict:
    """The error bars of ``column`` from its bound columns (``column`` + ``low``, + ``high``)."""
    return error_bars(table[column], table[column + low], table[column + high])


def position_bias_figure(table: pd.DataFrame) -> go.Figure:
    """First-slot preference in percentage points per judge, with its 95% interval."""
    fig = go.Figure(
        go.Bar(
            x=table["judge"],
            y=table["position_bias_points"],
            error_y=_error(table, "position_bias_points"),
            marker_color=[ACCENT if v > 0 else PRIMARY for v in table["position_bias_points"]],
            hovertemplate="%{x}: %{y:+.1f} percentage points<extra></extra>",
        )
    )
    fig.add_hline(y=0, line_color=MUTED)
    fig.update_yaxes(title="slot A's wins minus slot B's<br>(percentage points)")
    return style(fig, title="Position bias: first-slot preference", height=340)


def tie_rates_figure(table: pd.DataFrame) -> go.Figure:
    """Tie rate of single-order verdicts beside both-orders verdicts, per judge."""
    fig = go.Figure()
    for name, column, colour in (
        ("single order", "tie_rate", MUTED),
        ("both orders (disagreement = tie)", "both_orders_tie_rate", PRIMARY),
    ):
        fig.add_bar(
            name=name, x=table["judge"], y=table[column], error_y=_error(table, column), marker_color=colour
        )
    fig.update_layout(barmode="group", legend={"orientation": "h", "y": -0.15})
    fig.update_yaxes(title="share of verdicts that are a tie", tickformat=".0%")
    return style(fig, title="Ties: what the judge says vs what both orders produce", height=360)


def order_swap_figure(by_anchor: pd.DataFrame) -> go.Figure:
    """q and b per anchor with 95% intervals (order-swap decomposition)."""
    frame = by_anchor.sort_values("q")
    fig = go.Figure()
    for column, name, marker in (
        ("q", "opponents' preference over the anchor", {"color": PRIMARY}),
        ("b", "slot-A bias", {"color": ACCENT, "symbol": "diamond"}),
    ):
        fig.add_scatter(
            name=name,
            y=frame["anchor"],
            x=frame[column],
            mode="markers",
            marker={**marker, "size": 9},
            error_x=_error(frame, column),
        )
    fig.add_vline(x=0, line_color=MUTED)
    fig.update_xaxes(title="verdict units (−2..+2)")
    fig.update_layout(legend={"orientation": "h", "y": -0.12})
    return style(fig, title="Order-swap decomposition per anchor", height=max(320, 22 * len(frame) + 140))


def coverage_figure(frame: pd.DataFrame, *, by: str) -> go.Figure:
    """No-verdict rate per model (``by="model"``) or per length bin (``by="length"``)."""
    if by == "model":
        x = frame["model"]
        title, xtitle = "No verdict, by model", "model (a call counts for both its models)"
    else:
        x = [f"{lo:,.0f}–{hi:,.0f}" for lo, hi in zip(frame["length_min"], frame["length_max"], strict=True)]
        title, xtitle = (
            "No verdict, by response length",
            "both responses' length (bins of equal count)",
        )
    fig = go.Figure(
        go.Bar(
            x=x,
            y=frame["no_verdict_rate"],
            marker_color=ACCENT,
            customdata=np.c_[frame["no_verdict"], frame["calls"]],
            hovertemplate="%{x}: %{y:.2%} (%{customdata[0]} of %{customdata[1]} calls)<extra></extra>",
        )
    )
    fig.update_yaxes(title="calls with no verdict", tickformat=".1%", rangemode="tozero")
    fig.update_xaxes(title=xtitle)
    return style(fig, title=title, height=320)


def compression_figure(compression: pd.DataFrame, ceiling: pd.DataFrame | None = None) -> go.Figure:
    """The win rate the judge prints against the humans' win rate."""
    fig = go.Figure()
    fig.add_scatter(
        x=[0, 1], y=[0, 1], mode="lines", name="no compression", line={"color": MUTED, "dash": "dot"}
    )
    for frame, name, line in (
        (compression, "the judge prints", {"color": PRIMARY}),
        (ceiling, "one human vs the others", {"color": ACCENT, "dash": "dash"}),
    ):
        if frame is not None:
            fig.add_scatter(
                x=frame["human_rate"], y=frame["judge_prints"], mode="lines+markers", name=name, line=line
            )
    fig.update_xaxes(title="humans' win rate", tickformat=".0%", range=[0, 1])
    fig.update_yaxes(title="win rate printed", tickformat=".0%", range=[0, 1])
    fig.update_layout(legend={"orientation": "h", "y": -0.2})
    return style(fig, title="Compression of the printed win rate", height=380)


def length_curve_figure(curve: pd.DataFrame) -> go.Figure:
    """P(the longer response wins) per bin of the length ratio (verbosity bias)."""
    labels = [
        f"{2**lo:.2f} times or more" if np.isinf(hi) else f"{2**lo:.2f} to {2**hi:.2f} times"
        for lo, hi in zip(curve["bin_low"], curve["bin_high"], strict=True)
    ]
    fig = go.Figure(
        go.Scatter(
            x=labels,
            y=curve["longer_score"],
            mode="lines+markers",
            line={"color": PRIMARY},
            error_y=error_bars(curve["longer_score"], curve["ci_low"], curve["ci_high"]),
            customdata=curve["calls"],
            hovertemplate="longer by %{x}: %{y:.1%} (%{customdata} calls)<extra></extra>",
        )
    )
    fig.add_hline(y=0.5, line_color=MUTED, line_dash="dot")
    fig.update_xaxes(title="longer response's length, as a multiple of the shorter's")
    fig.update_yaxes(title="longer response's win rate (ties count half)", tickformat=".0%")
    return style(fig, title="Length preference", height=340)


def rank_change_figure(table: pd.DataFrame) -> go.Figure:
    """Slope chart: plain Bradley–Terry rank → length-controlled rank."""
    fig = go.Figure()
    for row in table.itertuples(index=False):
        moved = row.rank_change != 0
        fig.add_scatter(
            x=["plain", "length-controlled"],
            y=[row.rank, row.rank_lc],
            mode="lines+markers+text",
            text=["", row.model],
            textposition="middle right",
            showlegend=False,
            line={"color": ACCENT if moved else MUTED, "width": 2.5 if moved else 1},
            hovertemplate=f"{row.model}: %{{y}}<extra></extra>",
        )
    fig.update_yaxes(autorange="reversed", title="rank", dtick=1 if len(table) <= 40 else None)
    fig.update_xaxes(range=[-0.15, 1.9])  # room for the model names on the right
    return style(fig, title="Rank changes from length control", height=max(320, 20 * len(table) + 120))


def self_preference_figure(table: pd.DataFrame) -> go.Figure:
    """δ per judge on the Elo scale with its 95% interval."""
    frame = table[np.isfinite(table["delta_elo"].astype(float))]
    fig = go.Figure(
        go.Bar(
            x=[f"{j}<br>(family {f})" for j, f in zip(frame["judge"], frame["family"], strict=True)],
            y=frame["delta_elo"],
            error_y=_error(frame, "delta_elo"),
            marker_color=ACCENT,
            hovertemplate="%{x}: %{y:+.0f} Elo<extra></extra>",
        )
    )
    fig.add_hline(y=0, line_color=MUTED)
    fig.update_yaxes(title="own family's extra<br>(Elo points)")
    return style(fig, title="Self-preference", height=320)
