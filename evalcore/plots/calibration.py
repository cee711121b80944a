"""Figures of the Calibration page and report: the intervals, the floor curves, interval coverage.

Each function takes an :mod:`evalcore.calibration` result and returns a ``go.Figure``.
"""

from __future__ import annotations

import math

import pandas as pd
import plotly.graph_objects as go

from evalcore.calibration import Calibration, CoverageResult

_COLOURS = {
    "printed (Wilson)": "#8c8c8c",
    "naive corrected": "#e07b39",
    "Lang–Reiczigel": "#1f6fb4",
}


def calibration_figure(cal: Calibration) -> go.Figure:
    """The printed rate, the judge's share and the corrected rate with both intervals, in %.

    A refused correction draws no corrected number; the title says why in short.
    """
    rows = [
        (
            "printed win rate (ties ½), Wilson",
            cal.printed,
            cal.printed_low,
            cal.printed_high,
            _COLOURS["printed (Wilson)"],
        ),
        ("judge's share of wins (ties not wins)", cal.apparent, math.nan, math.nan, "#b0b0b0"),
    ]
    if not cal.refused:
        rows += [
            (
                "corrected, naive interval",
                cal.corrected,
                cal.naive_low,
                cal.naive_high,
                _COLOURS["naive corrected"],
            ),
            ("corrected, Lang–Reiczigel", cal.corrected, cal.lr_low, cal.lr_high, _COLOURS["Lang–Reiczigel"]),
        ]
    if not cal.win_rate_refusal:
        rows.append(
            (
                "corrected win rate (ties ½), both arms",
                cal.win_rate.value,
                cal.win_rate.low,
                cal.win_rate.high,
                _COLOURS["Lang–Reiczigel"],
            )
        )
    fig = go.Figure()
    for label, est, low, high, colour in rows:
        has_ci = not (math.isnan(low) or math.isnan(high))
        fig.add_trace(
            go.Scatter(
                x=[100 * est],
                y=[label],
                mode="markers",
                marker={"size": 12, "color": colour},
                error_x=(
                    {
                        "type": "data",
                        "symmetric": False,
                        "array": [100 * (high - est)],
                        "arrayminus": [100 * (est - low)],
                        "thickness": 3,
                        "width": 8,
                    }
                    if has_ci
                    else None
                ),
                name=label,
                showlegend=False,
                hovertemplate=(
                    f"{label}<br>%{{x:.1f}}%"
                    + (f" [{100 * low:.1f}, {100 * high:.1f}]" if has_ci else "")
                    + "<extra></extra>"
                ),
            )
        )
    fig.add_vline(x=50, line_dash="dot", line_color="#666")
    who = cal.candidate_label
    title = f"{who[:1].upper() + who[1:]}: printed vs corrected win rate (95%)"
    if cal.refused:
        title += " — correction refused"
    fig.update_layout(
        title=title,
        xaxis_title="win rate (%)",
        xaxis_range=[0, 100],
        yaxis={"autorange": "reversed"},
        height=320,
        margin={"l": 10, "r": 10},
    )
    return fig


def floor_figure(table: pd.DataFrame) -> go.Figure:
    """Floor half-width (points) against labelled-set size, one line per Youden's J."""
    fig = go.Figure()
    for j, part in table.sort_values("n_labelled").groupby("youden_j", sort=True):
        fig.add_trace(
            go.Scatter(
                x=part["n_labelled"],
                y=part["floor_points"],
                mode="lines+markers",
                name=f"J = {j:.2f}",
                hovertemplate="%{x:,} labelled pairs: ±%{y:.1f} points<extra></extra>",
            )
        )
    fig.update_layout(
        title="Floor: the narrowest corrected interval, however many pairs are judged",
        xaxis={"title": "labelled pairs", "type": "log"},
        yaxis={"title": "floor half-width (± points)", "rangemode": "tozero"},
        height=380,
    )
    return fig


def coverage_figure(result: CoverageResult) -> go.Figure:
    """Coverage of each 95% interval against the true rate, with the nominal 95% line."""
    fig = go.Figure()
    for name, part in result.table.groupby("interval", sort=False):
        fig.add_trace(
            go.Scatter(
                x=100 * part["true_rate"],
                y=100 * part["coverage"],
                mode="lines+markers",
                name=name,
                line={"color": _COLOURS.get(name)},
                hovertemplate="true rate %{x:.0f}%: covers %{y:.1f}%<extra></extra>",
            )
        )
    fig.add_hline(
        y=95,
        line_dash="dot",
        line_color="#666",
        annotation_text="nominal 95%",
        annotation_position="bottom left",
    )
    fig.update_layout(
        title=(
            f"Coverage of 95% intervals ({result.n_judged:,} judged, {result.n_labelled:,} labelled pairs)"
        ),
        xaxis_title="true rate (%, human-called wins)",
        yaxis={"title": "coverage (%)", "range": [0, 102]},
        height=400,
    )
    return fig
