"""Figures for tie structure ("The Format is the Filter", 2025): verdict-level and score
distributions, per-cell diagnostics, and the format-versus-judge variance shares."""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go

from evalcore.plots.common import ACCENT, MUTED, PRIMARY, style
from evalcore.present.ties import DIAGNOSTICS
from evalcore.ties import VarianceShares, VerdictTieStructure

#: Diagnostics that are shares (written as percentages on the axis and in the table).
SHARES = frozenset({"tie_probability", "top_tied", "top1"})


def verdict_levels_figure(result: VerdictTieStructure) -> go.Figure:
    """Bars of the share of calls at each verdict level; the TIE level in the accent colour."""
    table = result.level_table()
    colours = [ACCENT if level == 0 else PRIMARY for level in table["level"]]
    fig = go.Figure(
        go.Bar(
            x=[
                f"{level:+d} {meaning}" if level else "0 tie"
                for level, meaning in zip(table["level"], table["meaning"], strict=True)
            ],
            y=table["share"],
            marker_color=colours,
            customdata=table["calls"],
            hovertemplate="%{x}: %{y:.1%} of calls (%{customdata:,})<extra></extra>",
            text=[f"{s:.1%}" for s in table["share"]],
            textposition="outside",
        )
    )
    fig.update_yaxes(title="share of calls", tickformat=".0%", rangemode="tozero")
    fig.update_xaxes(title="verdict level (slot A's point of view)")
    return style(
        fig,
        title=f"Verdict levels of {result.judge or 'the judge'} "
        f"(same-level chance {100 * result.stats.tie_probability:.1f}%, {result.stats.d2:.2f} effective levels)",
        height=380,
    )


def _bars_by_judge(frame: pd.DataFrame, x: str, y: str, hover: str, **more: Any) -> go.Figure:
    """Grouped bars of ``y`` over ``x``, one colour per judge; ``hover`` follows the judge's name in
    the hover (``more``: the bars' custom data column, the y axis' title and tick format, the
    x axis' title, the figure's title)."""
    fig = go.Figure()
    for judge, rows in frame.groupby("judge", sort=True, observed=True):
        extra = {"customdata": rows[more["customdata"]]} if "customdata" in more else {}
        fig.add_bar(x=rows[x], y=rows[y], name=str(judge), hovertemplate=f"{judge}<br>{hover}", **extra)
    fig.update_layout(barmode="group", legend_title_text="judge")
    fig.update_yaxes(title=more["ytitle"], tickformat=more["tickformat"])
    fig.update_xaxes(title=x)
    return style(fig, title=more["title"], height=380)


def score_distribution_figure(levels: pd.DataFrame, fmt: str) -> go.Figure:
    """Grouped bars of the score distribution of one format, one colour per judge.

    ``levels`` is :func:`evalcore.ties.pointwise_levels` output (format, judge, score, count, share).
    """
    return _bars_by_judge(
        levels[levels["format"] == fmt],
        "score",
        "share",
        "score %{x}: %{y:.1%} (%{customdata:,})<extra></extra>",
        customdata="count",
        ytitle="share of scored candidates",
        tickformat=".0%",
        title=f"Scores emitted under {fmt}",
    )


def diagnostic_grid_figure(cells: pd.DataFrame, diagnostic: str) -> go.Figure:
    """One diagnostic per format (x) and judge (colour), from pointwise_tie_structure output."""
    share = diagnostic in SHARES
    label = DIAGNOSTICS.get(diagnostic, diagnostic)
    return _bars_by_judge(
        cells,
        "format",
        diagnostic,
        f"%{{x}}: %{{y:{'.1%' if share else '.3f'}}}<extra></extra>",
        ytitle=label,
        # shares read as percentages, as in the table beside the chart
        tickformat=".0%" if share else None,
        title=f"{label} by format and judge",
    )


def variance_shares_figure(shares: VarianceShares) -> go.Figure:
    """Stacked horizontal bars: format, judge and residual share of each diagnostic."""
    table = shares.table.dropna(subset=["format_share"]).iloc[::-1]
    labels = [DIAGNOSTICS.get(d, d) for d in table["diagnostic"]]
    fig = go.Figure()
    for column, name, colour in (
        ("format_share", "format", PRIMARY),
        ("judge_share", "judge", ACCENT),
        ("residual_share", "residual", MUTED),
    ):
        fig.add_bar(
            y=labels,
            x=table[column],
            name=name,
            orientation="h",
            marker_color=colour,
            hovertemplate=f"%{{y}}: {name} %{{x:.1%}}<extra></extra>",
        )
    fig.update_layout(barmode="stack", legend_title_text="share of variance", legend_traceorder="normal")
    fig.update_xaxes(
        title="share of the sum of squares over the format × judge grid", tickformat=".0%", range=[0, 1]
    )
    return style(
        fig, title="What sets each diagnostic: the format or the judge?", height=120 + 36 * max(1, len(table))
    )
