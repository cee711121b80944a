"""Figures of anchor selection (Don-Yehiya et al. 2026, Figs. 1–5 and 7), shared by the Anchors page and the report."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from evalcore.anchors import (
    ALL_PAIRS,
    AnchorCountSweep,
    AnchorRanking,
    AnchorSweep,
    JudgeEffect,
    PilotScreening,
    SampleSizeSweep,
    WinRateDistribution,
)
from evalcore.plots.common import (
    ACCENT,
    AXIS_NAME_CHARS,
    MUTED,
    PRIMARY,
    band_line,
    cut_label,
    error_bars,
    style,
)
from evalcore.plots.common import label as plot_text
from evalcore.present.anchors import reference_words, tau_name

HUMAN = "#15803d"
PALETTE = ("#7c3aed", "#0891b2", "#be123c", "#a16207", "#4d7c0f", "#1e40af")


def _highlight(fig: go.Figure, x, y, text, name: str) -> None:
    fig.add_scatter(
        x=x,
        y=y,
        mode="markers",
        name=name,
        text=text,
        marker={"symbol": "star", "size": 18, "color": ACCENT, "line": {"width": 1, "color": "white"}},
        hovertemplate="<b>%{text}</b> (chosen)<br>%{x}, %{y:.3f}<extra></extra>",
    )


def inverted_u(sweep: AnchorSweep, *, highlight: str | None = None) -> go.Figure:
    """tau of each anchor-based ranking against the anchor's position, one point per
    anchor, against the all-pairs ranking and (when loaded) the human one."""
    t = sweep.table
    fig = go.Figure()
    references: list[tuple[str, str, str, str, dict, dict]] = [
        (ALL_PAIRS, "all-pairs", reference_words(ALL_PAIRS), PRIMARY, {}, {})
    ]
    if t["tau_human"].notna().any():
        references.append(("human", "human", "human", HUMAN, {"symbol": "diamond"}, {"dash": "dot"}))
    for reference, words, short, colour, marker, line in references:
        fig.add_scatter(
            x=t["position"],
            y=t[f"tau_{reference}"],
            mode="lines+markers",
            name=f"vs {words} ranking",
            text=t["anchor"],
            marker={"color": colour, "size": 9, **marker},
            line={"color": colour, "width": 1, **line},
            hovertemplate=f"<b>%{{text}}</b><br>position %{{x}}<br>tau %{{y:.3f}}<extra>{short}</extra>",
        )
    if highlight is not None and highlight in set(t["anchor"]):
        row = t[t["anchor"] == highlight]
        _highlight(fig, row["position"], row["tau_all_pairs"], row["anchor"], highlight)
        if row["tau_human"].notna().any():
            _highlight(fig, row["position"], row["tau_human"], row["anchor"], highlight + " (human)")
    # a tick at every position reads well for the tens of models of a benchmark; on an arena of
    # thousands, a tick and grid line each held the browser for half a minute
    fig.update_xaxes(
        title="anchor's position in the all-pairs ranking (1 = strongest)", dtick=1 if len(t) <= 40 else None
    )
    fig.update_yaxes(title=f"Kendall's {tau_name(sweep.tau)}")
    return style(fig, title="Anchor quality against anchor strength", height=420)


def _ceiling_line(fig: go.Figure, ceiling: float, *, vertical: bool, span: tuple) -> None:
    """The 3-level ceiling as a dotted line named in the legend: a label drawn on the plot would
    sit on the bars or points near it."""
    xy = (
        {"x": [ceiling, ceiling], "y": list(span)} if vertical else {"x": list(span), "y": [ceiling, ceiling]}
    )
    fig.add_scatter(
        **xy,
        mode="lines",
        name=f"3-level ceiling {ceiling:.1%}",
        line={"color": ACCENT, "dash": "dot", "width": 2},
        hoverinfo="skip",
        showlegend=True,
    )


def tau_vs_informativeness(sweep: AnchorSweep, *, highlight: str | None = None) -> go.Figure:
    """tau with the all-pairs ranking against informativeness, with the least-squares line and
    the share of the spread it explains, and the 3-level ceiling (the most pairs a win-or-loss anchor can split) as a dotted line."""
    t = sweep.table.dropna(subset=["informativeness", "tau_all_pairs"])
    fig = go.Figure(
        go.Scatter(
            x=t["informativeness"],
            y=t["tau_all_pairs"],
            mode="markers",
            name="anchor",
            text=t["anchor"],
            marker={"color": PRIMARY, "size": 10},
            hovertemplate="<b>%{text}</b><br>informativeness %{x:.1%}<br>tau %{y:.3f}<extra></extra>",
        )
    )
    if np.isfinite(sweep.fit_slope) and len(t):
        xs = np.linspace(t["informativeness"].min(), t["informativeness"].max(), 20)
        fig.add_scatter(
            x=xs,
            y=sweep.fit_slope * xs + sweep.fit_intercept,
            mode="lines",
            name=f"linear fit, explains {sweep.fit_r2:.3f} of the spread",
            line={"color": MUTED, "dash": "dash"},
            hoverinfo="skip",
        )
    if np.isfinite(sweep.ceiling_3_level) and len(t):
        _ceiling_line(
            fig,
            sweep.ceiling_3_level,
            vertical=True,
            span=(t["tau_all_pairs"].min(), t["tau_all_pairs"].max()),
        )
    if highlight is not None and highlight in set(t["anchor"]):
        row = t[t["anchor"] == highlight]
        _highlight(fig, row["informativeness"], row["tau_all_pairs"], row["anchor"], highlight)
    fig.update_xaxes(title="informativeness", tickformat=".0%")
    fig.update_yaxes(title=f"Kendall's {tau_name(sweep.tau)} with the all-pairs ranking")
    r2 = (
        f"the line explains {sweep.fit_r2:.3f} of the spread"
        if np.isfinite(sweep.fit_r2)
        else "no line fitted"
    )
    return style(fig, title=f"Anchor quality against informativeness ({r2})", height=420)


def informativeness_bars(sweep: AnchorSweep, *, highlight: str | None = None) -> go.Figure:
    """Informativeness of each anchor in the order of the all-pairs ranking, with the ceiling."""
    t = sweep.table
    colors = [ACCENT if a == highlight else PRIMARY for a in t["anchor"]]
    fig = go.Figure(
        go.Bar(
            x=t["anchor"],
            y=t["informativeness"],
            name="informativeness",
            showlegend=False,
            marker_color=colors,
            hovertemplate="<b>%{x}</b><br>%{y:.1%} informative<extra></extra>",
        )
    )
    if np.isfinite(sweep.ceiling_3_level) and len(t):
        _ceiling_line(
            fig, sweep.ceiling_3_level, vertical=False, span=(t["anchor"].iloc[0], t["anchor"].iloc[-1])
        )
        fig.update_layout(
            legend={"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 1, "xanchor": "right"}
        )
    fig.update_yaxes(title="informativeness", tickformat=".0%", rangemode="tozero")
    fig.update_xaxes(title="anchor (strongest first)" if sweep.has_all_pairs_ranking else "anchor")
    return style(fig, title="Informative samples per anchor", height=400)


def win_rate_histograms(dists: list[WinRateDistribution]) -> go.Figure:
    """For each instruction, how many models beat the anchor: one histogram per anchor."""
    n = max(1, len(dists))
    fig = make_subplots(rows=1, cols=n, shared_yaxes=True, subplot_titles=[d.anchor for d in dists] or [""])
    for k, d in enumerate(dists):
        fig.add_bar(
            x=d.histogram["models_beating_anchor"],
            y=d.histogram["instructions"],
            marker_color=PALETTE[k % len(PALETTE)],
            name=d.anchor,
            showlegend=False,
            hovertemplate=f"<b>{d.anchor}</b><br>%{{x}} of {d.n_competitors} models beat it on "
            "%{y} instructions<extra></extra>",
            row=1,
            col=k + 1,
        )
        fig.update_xaxes(title="models beating the anchor", row=1, col=k + 1)
    fig.update_yaxes(title="instructions", row=1, col=1)
    return style(fig, title="Win-rate distributions", height=380)


def rank_comparison(ranking: AnchorRanking) -> go.Figure:
    """Slope chart: each model's rank under all pairs (left) and under the anchor (right).

    The model names are the tick labels of the two rank axes (left: at the all-pairs rank, right:
    at the anchor's rank), so the margins grow to fit them; text drawn beside the points would be
    cut at the edge of the plot."""
    t = ranking.table
    fig = go.Figure()
    if t["all_pairs_rank"].notna().all():
        for _, row in t.iterrows():
            shift = int(row["rank_shift"])
            color = MUTED if shift == 0 else (HUMAN if shift > 0 else ACCENT)
            fig.add_scatter(
                x=["all pairs", f"anchor {ranking.anchor}"],
                y=[int(row["all_pairs_rank"]), int(row["anchor_rank"])],
                mode="lines+markers",
                showlegend=False,
                line={"color": color},
                marker={"color": color},
                hovertemplate=f"<b>{row['model']}</b><br>%{{x}}: rank %{{y}}<br>shift {shift:+d}<extra></extra>",
            )

        top = int(max(t["all_pairs_rank"].max(), t["anchor_rank"].max()))

        def rank_axis(ranks: pd.Series) -> dict:
            """A rank axis with the models' names at their ranks, rank 1 at the top."""
            at: dict[int, list[str]] = {}
            for rank, model in zip(ranks.astype(int), t["model"].astype(str), strict=True):
                at.setdefault(int(rank), []).append(cut_label(model, AXIS_NAME_CHARS))
            keys = sorted(at)
            text = [plot_text(", ".join(at[k])) for k in keys]
            return {"tickmode": "array", "tickvals": keys, "ticktext": text, "range": [top + 0.5, 0.5]}

        # an invisible point puts the right axis on the figure
        fig.add_scatter(
            x=["all pairs"], y=[1], yaxis="y2", mode="markers", opacity=0, showlegend=False, hoverinfo="skip"
        )
        right = {"overlaying": "y", "side": "right", "showgrid": False, "automargin": True}
        fig.update_layout(
            yaxis=rank_axis(t["all_pairs_rank"]), yaxis2={**rank_axis(t["anchor_rank"]), **right}
        )
    else:
        fig.add_bar(
            x=t["win_rate"],
            y=t["model"],
            orientation="h",
            marker_color=PRIMARY,
            hovertemplate="<b>%{y}</b><br>win rate %{x:.1%}<extra></extra>",
        )
        fig.update_xaxes(title=f"win rate against {ranking.anchor}", tickformat=".0%")
        fig.update_yaxes(autorange="reversed")
    return style(
        fig,
        title=f"Ranking by {ranking.anchor} beside the all-pairs ranking",
        height=max(360, 24 * len(t) + 120),
    )


def pilot_scatter(pilot: PilotScreening) -> go.Figure:
    """Pilot estimate (mean and 95% range over repetitions) against full-data informativeness."""
    t = pilot.table
    fig = go.Figure(
        go.Scatter(
            x=t["full"],
            y=t["pilot_mean"],
            mode="markers",
            text=t["anchor"],
            name="anchor",
            marker={"color": PRIMARY, "size": 9},
            error_y=error_bars(t["pilot_mean"], t["pilot_low"], t["pilot_high"], color=MUTED),
            hovertemplate=("<b>%{text}</b><br>full data %{x:.1%}<br>pilot mean %{y:.1%}<extra></extra>"),
        )
    )
    lo = float(np.nanmin([t["full"].min(), t["pilot_low"].min()]))
    hi = float(np.nanmax([t["full"].max(), t["pilot_high"].max()]))
    fig.add_scatter(
        x=[lo, hi],
        y=[lo, hi],
        mode="lines",
        name="equal",
        line={"color": MUTED, "dash": "dot"},
        hoverinfo="skip",
    )
    fig.update_xaxes(title="informativeness on all data", tickformat=".0%")
    fig.update_yaxes(title=f"pilot estimate ({pilot.k} instructions)", tickformat=".0%")
    return style(
        fig,
        title=f"Pilot screening: mean Pearson correlation {pilot.pearson_r:.3f} over {pilot.repetitions} repetitions",
        height=420,
    )


def sample_size_curves(sweep: SampleSizeSweep, *, anchors: tuple[str, ...] = ()) -> go.Figure:
    """Mean tau against the number of instructions with 95% bands over repetitions."""
    s = sweep.summary
    fig = go.Figure()
    lines = [("all pairs", PRIMARY), ("mean over anchors", MUTED)]
    lines += [(a, PALETTE[k % len(PALETTE)]) for k, a in enumerate(anchors)]
    for name, color in lines:
        part = s[s["ranking"] == name].sort_values("size")
        if part.empty:
            continue
        hover = f"<b>{name}</b><br>%{{x}} instructions<br>mean tau %{{y:.3f}}<extra></extra>"
        band_line(
            fig,
            part["size"],
            part["mean"],
            part["low"],
            part["high"],
            color=color,
            name=name,
            hovertemplate=hover,
        )
    fig.update_xaxes(title="number of instructions")
    fig.update_yaxes(
        title=f"mean {tau_name(sweep.tau)} with the {'all-pairs' if sweep.reference == ALL_PAIRS else sweep.reference} ranking"
    )
    return style(
        fig,
        title=f"tau against the number of instructions ({sweep.repetitions} "
        "repetitions; bands: 2.5–97.5 percentiles)",
        height=420,
    )


def anchor_count_curve(sweep: AnchorCountSweep) -> go.Figure:
    """Mean tau with the all-pairs ranking against the size of the anchor set."""
    s = sweep.summary.sort_values("n_anchors")
    fig = go.Figure()
    hover = "%{x} anchors<br>mean tau %{y:.3f}<extra></extra>"
    band_line(
        fig,
        s["n_anchors"],
        s["mean"],
        s["low"],
        s["high"],
        color=PRIMARY,
        name="mean",
        band_name="band",
        hovertemplate=hover,
    )
    fig.update_xaxes(title="number of anchors", dtick=1 if len(s) <= 40 else None)  # as inverted_u
    fig.update_yaxes(title=f"mean {tau_name(sweep.tau)} with the all-pairs ranking (non-anchors)")
    return style(
        fig,
        title=f"Adding anchors one by one ({sweep.permutations} random orders; Don-Yehiya et al. 2026)",
        height=400,
    )


def judge_effect_bars(effect: JudgeEffect) -> go.Figure:
    """Per judge: best and worst anchor's tau with the all-pairs ranking, and the all-pairs
    ranking's tau with humans."""
    t = effect.table
    fig = go.Figure()
    for which, colour in (("best", HUMAN), ("worst", ACCENT)):
        fig.add_bar(
            x=t["judge"],
            y=t[f"{which}_tau_all_pairs"],
            name=f"{which} anchor",
            marker_color=colour,
            text=t[f"{which}_anchor"],
            hovertemplate=f"%{{x}}<br>{which} anchor %{{text}}: %{{y:.3f}}<extra></extra>",
        )
    if t["all_pairs_tau_human"].notna().any():
        fig.add_scatter(
            x=t["judge"],
            y=t["all_pairs_tau_human"],
            mode="markers",
            name="all pairs vs human",
            marker={"color": PRIMARY, "size": 12, "symbol": "diamond"},
            hovertemplate="%{x}<br>all pairs vs human %{y:.3f}<extra></extra>",
        )
    fig.update_layout(barmode="group")
    fig.update_yaxes(title=f"Kendall's {tau_name(effect.tau)}")
    return style(fig, title="Anchor effect beside judge effect", height=400)
