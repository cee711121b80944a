"""The anytime-valid monitor's figure: the confidence sequence over the verdicts judged so far,
with the point where judging could have stopped (Howard et al. 2021)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from evalcore.plots.common import ACCENT, MUTED, PRIMARY, label, style
from evalcore.power.monitor import MonitorResult


def monitor_figure(result: MonitorResult) -> go.Figure:
    """Pair: the rating difference and its anytime-valid range against verdicts judged; leader:
    the leader's smallest lower bound against any rival. A bound at ±infinity (too few verdicts)
    is left undrawn; a vertical line marks the stopping point."""
    c = result.curve.replace([np.inf, -np.inf], np.nan)
    fig = go.Figure()
    if result.mode == "pair":
        edge = {"mode": "lines", "line": {"width": 0}, "hoverinfo": "skip"}
        fig.add_scatter(x=c["verdicts"], y=c["rating_upper"], showlegend=False, **edge)
        fig.add_scatter(
            x=c["verdicts"],
            y=c["rating_lower"],
            fill="tonexty",
            fillcolor="rgba(31, 119, 180, 0.2)",
            name=f"{100 * (1 - result.alpha):g}% anytime-valid range",
            **edge,
        )
        fig.add_scatter(
            x=c["verdicts"],
            y=c["rating_difference"],
            mode="lines",
            line={"color": PRIMARY},
            name="rating difference so far",
            hovertemplate="%{x:,} verdicts: %{y:+,.0f} Elo points<extra></extra>",
        )
        title = f"{label(result.model_a)} over {label(result.model_b)}: rating difference as verdicts arrive"
    else:
        fig.add_scatter(
            x=c["verdicts"],
            y=c["rating_lower"],
            mode="lines",
            line={"color": PRIMARY},
            name="the leader's smallest lead, lower bound",
            customdata=c[["leader"]].map(label),
            hovertemplate="%{x:,} verdicts: %{customdata[0]} at least %{y:+,.0f} Elo points<extra></extra>",
        )
        title = "Is the leader really first: its smallest lead as verdicts arrive"
    fig.add_hline(y=0, line_dash="dot", line_color=MUTED)
    if result.stopped_at is not None:
        fig.add_vline(
            x=result.stopped_at,
            line_dash="dash",
            line_color=ACCENT,
            annotation_text=f"could stop at {result.stopped_at:,}",
            annotation_position="top left",
        )
    fig.update_xaxes(
        title=f"verdicts judged (ordered by {'judging time' if result.ordered_by == 'judged_at' else 'row'})"
    )
    fig.update_yaxes(title="Elo points")
    fig.update_layout(legend={"orientation": "h", "y": -0.25})
    return style(fig, title=title, height=420)
