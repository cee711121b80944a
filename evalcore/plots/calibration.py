"""Figures of the Calibration page and report: the intervals, the floor curves, interval coverage.

Each function takes an :mod:`evalcore.calibration` result and returns a ``go.Figure``.
"""

from __future__ import annotations

import math

import pandas as pd
import plotly.graph_objects as go

from evalcore.calibration import Calibration, CoverageResult
from evalcore.plots.common import label as plot_text
from evalcore.plots.common import log_axis, style

_COLOURS = {
    "printed (Wilson)": "#8c8c8c",
    "naive corrected": "#e07b39",
    "Lang–Reiczigel": "#1f6fb4",
}


def calibration_figure(cal: Calibration) -> go.Figure:
    """The printed rate, the judge's share and the corrected rate with both intervals, in %.

    A refused correction draws no corrected number; the title says why in short.
    """
    printed, naive, lang_reiczigel = _COLOURS.values()
    rows = [
        (
            "printed win rate (ties count half), Wilson",
            cal.printed,
            cal.printed_low,
            cal.printed_high,
            printed,
        ),
        ("judge's share of wins (ties not wins)", cal.apparent, math.nan, math.nan, "#b0b0b0"),
    ]
    if not cal.refused:
        rows += [
            ("corrected, naive interval", cal.corrected, cal.naive_low, cal.naive_high, naive),
            ("corrected, Lang–Reiczigel", cal.corrected, cal.lr_low, cal.lr_high, lang_reiczigel),
        ]
    if not cal.win_rate_refusal:
        both = cal.win_rate
        rows.append(
            (
                "corrected win rate (ties count half), both arms",
                both.value,
                both.low,
                both.high,
                lang_reiczigel,
            )
        )
    fig = go.Figure()
    for label, est, low, high, colour in rows:
        has_ci = not (math.isnan(low) or math.isnan(high))
        bars = {"array": [100 * (high - est)], "arrayminus": [100 * (est - low)], "thickness": 3, "width": 8}
        fig.add_scatter(
            x=[100 * est],
            y=[label],
            mode="markers",
            marker={"size": 12, "color": colour},
            error_x={"type": "data", "symmetric": False, **bars} if has_ci else None,
            name=label,
            showlegend=False,
            hovertemplate=f"{label}<br>%{{x:.1f}}%"
            + (f" [{100 * low:.1f}, {100 * high:.1f}]" if has_ci else "")
            + "<extra></extra>",
        )
    fig.add_vline(x=50, line_dash="dot", line_color="#666")
    # The pair on a line of its own, cut to a length that fits at 1280 px (the heading above the
    # figure on the page names it in full).
    who = cal.candidate_label
    who = who if len(who) <= 70 else who[:69] + "…"
    title = "Printed vs corrected win rate (95%)" + (" — correction refused" if cal.refused else "")
    fig.update_layout(xaxis_title="win rate (%)", xaxis_range=[0, 100], yaxis={"autorange": "reversed"})
    # the pair as the title's second line (style leaves room for every line below the toolbar)
    style(fig, title=f"{title}<br><sup>{plot_text(who)}</sup>", height=340)
    return fig


def floor_figure(table: pd.DataFrame) -> go.Figure:
    """Floor half-width (percentage points) against labelled-set size, one line per Youden's J
    (a log axis with ticks 20, 50, 100, 200 …)."""
    fig = go.Figure()
    names = table["quality"] if "quality" in table else table["youden_j"].map(lambda j: f"Youden's J {j:.2f}")
    for name in dict.fromkeys(names):
        part = table[names == name].sort_values("n_labelled")
        fig.add_scatter(
            x=part["n_labelled"],
            y=part["floor_points"],
            mode="lines+markers",
            name=name,
            hovertemplate="%{x:,} labelled pairs: ±%{y:.1f} percentage points<extra></extra>",
        )
    log_axis(fig, table["n_labelled"], axis="x", title="labelled pairs")
    fig.update_yaxes(title="floor half-width (± percentage points)", rangemode="tozero")
    return style(
        fig, title="Floor: the narrowest corrected interval, however many pairs are judged", height=380
    )


def coverage_figure(result: CoverageResult) -> go.Figure:
    """Coverage of each 95% interval against the true rate, with the nominal 95% line."""
    fig = go.Figure()
    for name, part in result.table.groupby("interval", sort=False):
        fig.add_scatter(
            x=100 * part["true_rate"],
            y=100 * part["coverage"],
            mode="lines+markers",
            name=name,
            line={"color": _COLOURS.get(name)},
            hovertemplate="true rate %{x:.0f}%: covers %{y:.1f}%<extra></extra>",
        )
    fig.add_hline(
        y=95,
        line_dash="dot",
        line_color="#666",
        annotation_text="nominal 95%",
        annotation_position="bottom left",
    )
    fig.update_layout(
        xaxis_title="true rate (%, human-called wins)",
        yaxis={"title": "coverage (%)", "range": [0, 102]},
    )
    return style(
        fig,
        title=f"Coverage of 95% intervals ({result.n_judged:,} judged, {result.n_labelled:,} labelled pairs)",
        height=400,
    )
