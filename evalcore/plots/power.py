"""Figures of the power analysis (Don-Yehiya et al. 2026): power curves, verdict-difference
distributions and the detectable edge of each adjacent leaderboard pair."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from evalcore.plots.common import ACCENT, AXIS_NAME_CHARS, MUTED, PRIMARY, cut_label, log_axis, style
from evalcore.power import DetectableEdges, DifferenceDistributions, PowerCurve
from evalcore.present.power import edge_window_words
from evalcore.text import fmt_count, fmt_int

_COLOURS = {PowerCurve.WILCOXON: PRIMARY, PowerCurve.SIGN: ACCENT, PowerCurve.SIGN_APPROXIMATION: MUTED}


def power_curve_figure(curve: PowerCurve, *, title: str | None = None) -> go.Figure:
    """Power against total samples N for the Wilcoxon signed-rank and sign tests, with ±1.96
    Monte Carlo standard errors and a horizontal line at the target power."""
    fig = go.Figure()
    for test, group in curve.frame.groupby("test", sort=False):
        if group["power"].isna().all():
            continue
        approximate = test == PowerCurve.SIGN_APPROXIMATION
        fig.add_scatter(
            x=group["n"],
            y=group["power"],
            name=test,
            mode="lines" if approximate else "lines+markers",
            line={"color": _COLOURS.get(test, PRIMARY), "dash": "dash" if approximate else "solid"},
            error_y=None
            if approximate
            else {"type": "data", "array": 1.96 * group["mc_se"], "thickness": 1, "width": 2},
            hovertemplate="%{x:,} instructions: power %{y:.1%}<extra>" + test + "</extra>",
        )
    for y, colour, text, where, more in (
        (curve.target_power, "black", f"target power {curve.target_power:.0%}", "bottom right", {}),
        (curve.alpha, MUTED, f"significance level {curve.alpha:g}", "top right", {"opacity": 0.6}),
    ):
        fig.add_hline(
            y=y, line_dash="dot", line_color=colour, annotation_text=text, annotation_position=where, **more
        )
    fig.update_xaxes(title="instructions judged", rangemode="tozero")
    fig.update_yaxes(title="power", range=[0, 1.02], tickformat=".0%")
    fig.update_layout(legend={"orientation": "h", "y": -0.2})
    if title is None:
        what = edge_window_words(curve.edge) if curve.edge is not None else f"mean edge {curve.mean_edge:.1%}"
        title = (
            f"Power against the number of instructions ({fmt_count(curve.n_distributions, 'distribution')}, "
            f"{what}, {curve.simulations:,} simulations per sample size)"
        )
    return style(fig, title=title, height=460)


def difference_figure(distributions: DifferenceDistributions, *, title: str | None = None) -> go.Figure:
    """The (pooled) empirical distribution of verdict differences d = v(A) − v(B)."""
    pooled = distributions.pooled()
    colour = np.where(pooled["difference"] > 0, PRIMARY, np.where(pooled["difference"] < 0, ACCENT, MUTED))
    fig = go.Figure(
        go.Bar(
            x=pooled["difference"],
            y=pooled["share"],
            marker_color=colour,
            hovertemplate="difference %{x:g}: %{y:.1%} of instructions<extra></extra>",
        )
    )
    fig.update_xaxes(
        title="difference of the two models' verdicts against the anchor, per instruction (judge's scale)",
        tickmode="array",
        tickvals=pooled["difference"],
    )
    fig.update_yaxes(title="share of instructions", tickformat=".0%")
    return style(fig, title=title or "Empirical distribution of verdict differences", height=340)


#: Adjacent pairs drawn: the table's first ones (the 9,999 pairs of a 10,000-model board would be
#: a chart 280,000 pixels tall; the table beside it lists every pair).
EDGE_PAIRS = 50


def detectable_edges_figure(result: DetectableEdges, top: int = EDGE_PAIRS) -> go.Figure:
    """Observed edge against the smallest detectable edge for each adjacent leaderboard pair: the
    first ``top`` pairs with verdicts to compare (a pair that never met, head-to-head or through
    the anchor, has no edge to draw: most of an arena's), the title saying so when some are left
    out."""
    compared = result.table[result.table["instructions"] > 0]
    t = compared.iloc[:top]
    # A label longer than an axis line: one name per line, each cut to fit (the table below has
    # them whole); on one line it would wrap and overlap the next row.
    two_lines = any(
        len(f"#{r} {u} > {lo}") > AXIS_NAME_CHARS
        for r, u, lo in zip(t["rank_upper"], t["upper"], t["lower"], strict=True)
    )
    sep = "<br>> " if two_lines else " > "
    labels = [
        f"#{r} {cut_label(str(u), AXIS_NAME_CHARS)}{sep}{cut_label(str(lo), AXIS_NAME_CHARS)}"
        for r, u, lo in zip(t["rank_upper"], t["upper"], t["lower"], strict=True)
    ]
    resolved = t["resolved"].to_numpy(dtype=bool)
    fig = go.Figure()
    fig.add_scatter(
        x=t["detectable_edge"],
        y=labels,
        mode="markers",
        name="detectable edge (the resolution test, at the target power)",
        marker={"symbol": "line-ns-open", "size": 18, "color": "black", "line": {"width": 2}},
        hovertemplate="%{y}: detectable edge %{x:.1%}<extra></extra>",
    )
    fig.add_scatter(
        x=t["observed_edge"],
        y=labels,
        mode="markers",
        name="observed edge",
        marker={"size": 11, "color": np.where(resolved, PRIMARY, ACCENT)},
        customdata=np.stack(
            [t["discordant"], t["p_holm"], np.where(resolved, "resolved", "not resolved")], axis=-1
        ),
        hovertemplate="%{y}: observed edge %{x:.1%} on %{customdata[0]} discordant samples, "
        "Holm-adjusted p-value %{customdata[1]:.3g} (%{customdata[2]})<extra></extra>",
    )
    fig.add_vline(x=0, line_color=MUTED)
    fig.update_yaxes(autorange="reversed", title=None)
    fig.update_xaxes(
        title="edge: how often the upper model wins where the two differ, less 50%", tickformat=".0%"
    )
    fig.update_layout(legend={"orientation": "h", "y": -0.15})
    title = f"Adjacent pairs: {fmt_int(result.n_resolved)} of {fmt_int(result.n_pairs)} separated"
    if len(t) < len(result.table):
        which = "pairs" if len(compared) == len(result.table) else "pairs with verdicts to compare"
        title += f"; the first {fmt_int(len(t))} {which} are drawn" if len(t) else f"; no {which}"
    return style(
        fig,
        title=title + " (blue: separated, orange: not)",
        height=max(320, (40 if two_lines else 28) * len(t) + 160),
    )


def sample_size_figure(plan_edges: pd.DataFrame, *, informativeness: float | None) -> go.Figure:
    """Discordant (and total) samples against the edge, from a :class:`SampleSizePlan` table."""
    fig = go.Figure()
    lines = [("discordant", plan_edges["discordant"], "discordant", PRIMARY)]
    if informativeness is not None and plan_edges["total"].notna().any():
        total = plan_edges["total"].astype(float)
        lines.append(("total", total, f"total at informativeness {informativeness:.1%}", ACCENT))
    for what, needed, name, colour in lines:
        fig.add_scatter(
            x=plan_edges["edge"],
            y=needed,
            name=name,
            mode="lines+markers",
            line={"color": colour},
            hovertemplate=f"edge %{{x:.0%}}: %{{y:,}} {what}<extra></extra>",
        )
    fig.update_xaxes(title="edge: how often A wins where the two differ, less 50%", tickformat=".0%")
    needed = list(plan_edges["discordant"]) + list(plan_edges["total"].dropna().astype(float))
    log_axis(fig, needed, axis="y", title="samples needed")
    return style(fig, title="Instructions the sign test needs", height=360)
