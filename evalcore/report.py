"""The stakeholder report: one self-contained HTML file of a dataset's results (issue 6, item 2).

The report shows the results evalcore already computed (an :class:`evalcore.findings.Analyses`
bundle and its :class:`evalcore.findings.Findings`) with the same Plotly figures as the pages
(``evalcore/plots/``). It opens offline: plotly.js is inlined once in the head, every figure is
written with ``include_plotlyjs=False`` and the shared ``CONFIG`` (the modebar's camera button
saves any plot as a PNG in the browser; plotly.js's "Share chart" upload button is switched
off), no file, font or script is fetched from the network, and a Content-Security-Policy
forbids it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Callable

import pandas as pd
import plotly.graph_objects as go
from plotly.offline import get_plotlyjs

from evalcore import text
from evalcore.calibration import FLOOR_SIZES, floor_table
from evalcore.findings import Analyses, Findings, headline_findings
from evalcore.plots.anchors import informativeness_bars, inverted_u, tau_vs_informativeness
from evalcore.plots.calibration import calibration_figure, floor_figure
from evalcore.plots.common import CONFIG
from evalcore.plots.judge import coverage_figure as no_verdict_figure
from evalcore.plots.judge import order_swap_figure, position_bias_figure, tie_rates_figure
from evalcore.plots.leaderboard import forest_plot, win_rate_heatmap
from evalcore.plots.power import detectable_edges_figure, sample_size_figure
from evalcore.plots.summary import coverage_heatmap
from evalcore.plots.ties import verdict_levels_figure
from evalcore.ranking.presentation import style_caption
from evalcore.text import fmt_num, fmt_pct, fmt_rating

#: The shared figure config, without plotly.js 4's "Share chart" button (it would upload the
#: chart to Plotly's cloud: a report that opens offline must not offer that).
REPORT_CONFIG = {**CONFIG, "showSendToCloud": False}

#: Network access is refused inside the report: everything it needs is in the file.
CSP = (
    "default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval'; style-src 'unsafe-inline'; "
    "img-src data: blob:; font-src data:; connect-src 'none'; form-action 'none'; "
    "base-uri 'none'"
)

_CSS = """
:root { --ink:#0f172a; --muted:#475569; --line:#e2e8f0; --soft:#f8fafc; --accent:#1d4ed8;
        --warn:#b45309; --ok:#15803d; }
* { box-sizing: border-box; }
body { margin:0; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
       color:var(--ink); background:#fff; line-height:1.5; }
header { padding:28px 40px 18px; border-bottom:1px solid var(--line); background:var(--soft); }
header h1 { margin:0 0 4px; font-size:26px; }
header p { margin:2px 0; color:var(--muted); }
nav { padding:10px 40px; border-bottom:1px solid var(--line); font-size:14px; }
nav a { margin-right:16px; color:var(--accent); text-decoration:none; }
main { padding:0 40px 40px; max-width:1280px; }
section { padding-top:18px; }
h2 { font-size:21px; border-bottom:2px solid var(--line); padding-bottom:4px; margin-top:28px; }
h3 { font-size:16px; margin:18px 0 6px; }
.tiles { display:grid; grid-template-columns:repeat(auto-fill, minmax(190px, 1fr)); gap:12px;
         margin:14px 0; }
.tile { border:1px solid var(--line); border-radius:8px; padding:10px 14px; background:#fff; }
.tile .label { font-size:13px; color:var(--muted); }
.tile .value { font-size:22px; font-weight:600; overflow-wrap:anywhere; }
.tile .note { font-size:12px; color:var(--muted); }
.finding { border-left:4px solid var(--accent); padding:6px 14px; margin:12px 0;
           background:var(--soft); border-radius:0 8px 8px 0; }
.finding.caution { border-left-color:var(--warn); }
.finding.unavailable { border-left-color:var(--line); color:var(--muted); }
.finding h3 { margin:4px 0; }
.finding p { margin:4px 0; }
.definition, .caption { font-size:13px; color:var(--muted); }
.missing { color:var(--muted); font-style:italic; }
table.tbl { border-collapse:collapse; font-size:13px; margin:8px 0 14px; }
table.tbl th, table.tbl td { border-bottom:1px solid var(--line); padding:4px 10px;
                             vertical-align:top; }
table.tbl th { background:var(--soft); position:sticky; top:0; }
table.tbl .num { text-align:right; white-space:nowrap; font-variant-numeric:tabular-nums; }
table.tbl .text { text-align:left; white-space:nowrap; }
table.tbl .text.long { white-space:normal; min-width:240px; max-width:520px; }
.scroll { overflow-x:auto; max-height:640px; overflow-y:auto; }
.figure { margin:8px 0 18px; }
footer { padding:18px 40px; color:var(--muted); font-size:13px; border-top:1px solid var(--line); }
"""


#: Every user text in the report goes through the one HTML escaper (names, notes, captions).
_esc = text.html


def _table(
    frame: pd.DataFrame,
    formats: dict[str, Callable[[Any], str]] | None = None,
    *,
    table_id: str | None = None,
) -> str:
    """An escaped HTML table; ``formats`` maps a column to a formatter for its cells."""
    formats = formats or {}
    numeric = [
        bool(pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c]))
        for c in frame.columns
    ]
    long = (
        [
            not n and frame[c].astype(str).str.len().max() > 40
            for c, n in zip(frame.columns, numeric, strict=True)
        ]
        if len(frame)
        else [False] * len(numeric)
    )
    align = [
        ' class="num"' if n else ' class="text long"' if w else ' class="text"'
        for n, w in zip(numeric, long, strict=True)
    ]
    head = "".join(f"<th{a}>{_esc(c)}</th>" for c, a in zip(frame.columns, align, strict=True))
    rows = []
    for record in frame.itertuples(index=False, name=None):
        cells = []
        for column, value, a in zip(frame.columns, record, align, strict=True):
            if value is None or value is pd.NA or (isinstance(value, float) and pd.isna(value)):
                text = "—"
            elif column in formats:
                text = formats[column](value)
            else:
                text = str(value)
            cells.append(f"<td{a}>{_esc(text)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    ident = f' id="{_esc(table_id)}"' if table_id else ""
    return (
        f'<div class="scroll"><table class="tbl"{ident}><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def _figure(fig: go.Figure, div_id: str) -> str:
    """A figure as a div + script, without plotly.js (inlined once in the head)."""
    height = fig.layout.height or 450
    body = fig.to_html(
        full_html=False,
        include_plotlyjs=False,
        config=REPORT_CONFIG,
        div_id=div_id,
        default_width="100%",
        default_height=f"{int(height)}px",
    )
    return f'<div class="figure">{body}</div>'


def _missing(what: str, reason: str) -> str:
    return f'<p class="missing">{_esc(what)} is not available: {_esc(reason)}</p>'


def _rating(value: float) -> str:
    if value in (float("inf"), float("-inf")):
        return "unbounded"  # a one-sided bound (a model that never lost or never won)
    return fmt_rating(value)  # "—" where no interval is identified (the notes say why)


# ---------------------------------------------------------------------------------------------
# Sections: each returns (anchor id, heading, html body)


def _findings_section(findings: Findings) -> str:
    tiles = "".join(
        f'<div class="tile"><div class="label">{_esc(t.label)}</div>'
        f'<div class="value">{_esc(t.value)}</div><div class="note">{_esc(t.note)}</div></div>'
        for f in findings.findings
        for t in f.tiles
    )
    cards = "".join(
        f'<div class="finding {_esc(f.status)}" id="finding-{_esc(f.key)}"><h3>{_esc(f.title)}</h3>'
        f"<p>{_esc(f.text)}</p>"
        + (f'<p class="definition">Definition: {_esc(f.definition)}</p>' if f.definition else "")
        + "</div>"
        for f in findings.findings
    )
    return f'<div class="tiles">{tiles}</div>{cards}'


def _summary_section(analyses: Analyses) -> str:
    s = analyses.summary
    facts = pd.DataFrame(
        {
            "item": [
                "file",
                "rows (judge calls)",
                "models",
                "instructions",
                "judges",
                "design",
                "model pairs judged",
                "orders",
                "human-labelled rows",
                "self-comparison rows",
                "categories",
            ],
            "value": [
                s.name,
                f"{s.rows:,}",
                f"{len(s.models)}",
                f"{s.instructions:,}",
                ", ".join(s.judges),
                s.design + (f" (every model against {s.anchor})" if s.anchor else ""),
                f"{s.pairs_judged} of {s.pairs_possible}",
                s.orders,
                f"{s.labelled_rows:,}",
                f"{s.self_comparison_rows:,}",
                ", ".join(s.categories) or "none",
            ],
        }
    )
    coverage = s.no_verdict.rename(columns={"no_verdict": "no verdict", "no_verdict_rate": "no-verdict rate"})
    return (
        _table(facts, table_id="summary-table")
        + "<h3>Calls that returned no verdict, per judge</h3>"
        + _table(
            coverage,
            {
                "calls": lambda v: f"{v:,}",
                "no verdict": lambda v: f"{v:,}",
                "no-verdict rate": lambda v: fmt_pct(v, 1),
            },
            table_id="no-verdict-table",
        )
        + '<p class="caption">No-verdict calls are kept and counted, left out of win rates, '
        "never imputed.</p>" + _figure(coverage_heatmap(s), "fig-coverage")
    )


def _leaderboard_section(analyses: Analyses) -> str:
    board = analyses.leaderboard
    if board is None:
        return _missing("The leaderboard", analyses.unavailable.get("leader", "no ranking"))
    table = board.table.copy()
    if table["piece"].nunique() == 1:
        table = table.drop(columns=["piece"])
    if (table["bound"] == "").all():
        table = table.drop(columns=["bound"])
    table = table.rename(
        columns={
            "ci_low": "95% low",
            "ci_high": "95% high",
            "rank_low": "best rank",
            "rank_high": "worst rank",
            "win_rate": "win rate",
        }
    )
    formats = {
        "rating": _rating,
        "95% low": _rating,
        "95% high": _rating,
        "battles": lambda v: f"{v:,}",
        "wins": lambda v: f"{v:,}",
        "ties": lambda v: f"{v:,}",
        "losses": lambda v: f"{v:,}",
        "win rate": lambda v: fmt_pct(v, 1),
    }
    notes = "".join(f'<p class="caption">⚠ {_esc(n)}</p>' for n in board.notes)
    if analyses.style is not None:
        notes += f'<p class="caption">Style control: {_esc(style_caption(analyses.style))}</p>'
    caption = (
        f'<p class="caption">Judge {_esc(analyses.judge)}. Bradley–Terry maximum likelihood '
        "on win/tie/loss counts (a tie is half a win each), Elo scale with mean 1000: a "
        "400-point gap is a 10:1 win probability. Intervals: "
        + (
            f"2.5–97.5 percentiles over {board.rounds:,} bootstrap rounds resampling the "
            f"{board.n_instructions:,} instructions (seed {board.seed}); rank range: the same "
            "percentiles of each model's rank."
            if board.interval_method == "bootstrap"
            else f"instruction-clustered sandwich standard errors over the "
            f"{board.n_instructions:,} instructions (±1.96); rank range: 2.5–97.5 "
            "percentiles of each model's rank under the normal approximation."
        )
        + " Win rate: (wins + ties/2) / battles, both slots pooled.</p>"
    )
    return (
        caption
        + notes
        + _table(table, formats, table_id="leaderboard-table")
        + _figure(forest_plot(board), "fig-forest")
        + _figure(win_rate_heatmap(board), "fig-winrate")
    )


def _num(digits: int) -> Callable[[Any], str]:
    return lambda v: fmt_num(v, digits)


def _percent(digits: int = 1) -> Callable[[Any], str]:
    return lambda v: fmt_pct(float(v), digits)


def _anchors_section(analyses: Analyses) -> str:
    sweep = analyses.anchors
    if sweep is None:
        return _missing("The anchor analysis", analyses.unavailable.get("anchor", "no sweep"))
    columns = [
        "anchor",
        "position",
        "tau_quadratic",
        "tau_human",
        "informativeness",
        "calls",
        "no_model_wins_share",
    ]
    table = sweep.table[[c for c in columns if c in sweep.table.columns]].rename(
        columns={
            "tau_quadratic": f"tau-{sweep.tau} vs all-pairs",
            "tau_human": f"tau-{sweep.tau} vs human",
            "no_model_wins_share": "no model beats it",
        }
    )
    formats = {
        f"tau-{sweep.tau} vs all-pairs": _num(3),
        f"tau-{sweep.tau} vs human": _num(3),
        "informativeness": _percent(1),
        "calls": lambda v: f"{int(v):,}",
        "no model beats it": _percent(1),
    }
    caption = (
        f'<p class="caption">Recommended anchor: <strong>{_esc(sweep.recommended)}</strong> (the '
        "most informative; Don-Yehiya et al. 2026, §6). Informativeness: the share of (instruction, model pair) "
        "cases, the anchor excluded, whose verdicts against the anchor differ on the judge's full "
        f"scale. tau: Kendall's tau-{_esc(sweep.tau)} of the ranking by win rate against the anchor "
        "with the all-pairs Bradley–Terry ranking (and the human ranking when one is loaded). "
        "Position: the anchor's place in the all-pairs ranking (1 = strongest). “No model beats "
        "it”: the share of instructions on which no model beats the anchor.</p>"
    )
    notes = "".join(f'<p class="caption">⚠ {_esc(n)}</p>' for n in sweep.notes)
    figures = ""
    if sweep.has_quadratic:
        figures += _figure(inverted_u(sweep, highlight=sweep.recommended), "fig-anchor-u") + _figure(
            tau_vs_informativeness(sweep, highlight=sweep.recommended), "fig-anchor-info"
        )
    figures += _figure(informativeness_bars(sweep, highlight=sweep.recommended), "fig-anchor-bars")
    return caption + notes + _table(table, formats, table_id="anchor-table") + figures


#: The columns of the comparison of judges shown in the report.
COMPARISON_COLUMNS = (
    "judge",
    "calls",
    "position_bias_points",
    "swap_consistency",
    "tie_rate",
    "both_orders_tie_rate",
    "no_verdict_rate",
    "slot_bias_b",
    "agreement",
    "kappa",
    "note",
)


def _judge_section(analyses: Analyses) -> str:
    sheet = analyses.judge_sheet
    if sheet is None:
        return _missing("The judge sheet", analyses.unavailable.get("judge", "no sheet"))
    table = sheet.table()
    table = table.assign(
        **{c: pd.to_numeric(table[c], errors="coerce").astype("float64") for c in ("value", "low", "high")}
    )
    table = table[table["value"].notna()].reset_index(drop=True)

    def cell(v: Any) -> str:
        number = float(v)
        return f"{number:,.0f}" if number.is_integer() and abs(number) >= 10 else f"{number:.4g}"

    caption = (
        f'<p class="caption">The spec sheet of {_esc(analyses.judge)} (Zheng et al. 2023, MT-Bench; '
        "Gondara et al. 2026, App. B). Rates are shares (0.05 = 5%), position bias is in "
        "percentage points; low and high "
        f"are 95% intervals from {sheet.order.rounds:,} bootstrap rounds over instructions. "
        "Length control and self-preference are on the Judge page.</p>"
    )
    notes = "".join(
        f'<p class="caption">⚠ {_esc(n)}</p>' for n in (*getattr(sheet, "design_warnings", ()), *sheet.notes)
    )
    body = (
        caption
        + notes
        + _table(
            table.drop(columns=["judge"]), {"value": cell, "low": cell, "high": cell}, table_id="judge-table"
        )
    )
    comparison = analyses.judge_comparison
    if comparison is not None and "position_bias_points" in comparison.columns:
        rated = comparison[comparison["position_bias_points"].notna()].reset_index(drop=True)
        columns = [c for c in COMPARISON_COLUMNS if c in comparison.columns]
        body += (
            "<h3>Every judge of the file</h3>"
            f'<p class="caption">The same sheet for each of the {len(comparison)} judges '
            "(definitions above; κ: Cohen's kappa with the human labels).</p>"
            + _table(
                comparison[columns],
                {c: cell for c in columns if c not in ("judge", "note")},
                table_id="judges-table",
            )
            + _figure(position_bias_figure(rated), "fig-judges-position")
        )
        if rated["both_orders_tie_rate"].notna().any():
            body += _figure(tie_rates_figure(rated), "fig-judge-ties")
    elif sheet.position.pairings:
        body += _figure(tie_rates_figure(pd.DataFrame([sheet.scalars()])), "fig-judge-ties")
    if len(sheet.order.by_anchor):
        body += (
            '<p class="caption">Order-swap decomposition (Gondara et al. 2026, App. B): for each model as '
            "the anchor, q = (v_fwd − v_rev)/2 is its opponents' preference over it net of "
            "position and b = (v_fwd + v_rev)/2 the slot-A bias, in verdict units.</p>"
            + _figure(order_swap_figure(sheet.order.by_anchor), "fig-judge-swap")
        )
    if sheet.coverage is not None and sheet.coverage.no_verdict:
        body += _figure(no_verdict_figure(sheet.coverage.by_model, by="model"), "fig-judge-coverage")
    ties = analyses.ties
    if ties is not None:
        body += (
            "<h3>Verdict levels and ties</h3>"
            f'<p class="caption">Share of calls at each verdict level. Tie probability Σp² '
            f"= {ties.stats.tie_probability:.3f}, effective levels D2 = 1/Σp² = "
            f"{ties.stats.d2:.2f}, D1 = exp(Shannon entropy) = {ties.stats.d1:.2f} (Gondara et al. (2026) "
            f"§3); T, the share of instructions whose top model is tied: "
            f"{fmt_pct(ties.top_tied, 1)}.</p>"
            + _table(
                ties.level_table(),
                {"calls": lambda v: f"{int(v):,}", "share": _percent(1)},
                table_id="levels-table",
            )
            + _figure(verdict_levels_figure(ties), "fig-levels")
        )
    return body


def _power_section(analyses: Analyses) -> str:
    edges, plan = analyses.edges, analyses.plan
    if edges is None:
        return _missing("The power analysis", analyses.unavailable.get("separation", "no result"))
    how = (
        f"verdict differences against the anchor {edges.anchor}" if edges.anchor else "head-to-head verdicts"
    )
    caption = (
        f'<p class="caption">Each adjacent pair of the leaderboard, from {_esc(how)}: discordant = '
        "instructions where the two models' verdicts differ; observed edge = upper wins / "
        f"discordant − 50%; detectable edge = the smallest edge a one-sided sign test at α = "
        f"{edges.alpha:g} finds with {edges.power:.0%} power at this many discordant instructions; "
        "resolved = the exact two-sided sign test, Holm-adjusted across the adjacent pairs, rejects “the two models are as good” (Don-Yehiya et al. 2026, §4.3; Holm 1979). "
        f"{edges.n_resolved} of {edges.n_pairs} pairs are resolved.</p>"
    )
    notes = "".join(f'<p class="caption">⚠ {_esc(n)}</p>' for n in edges.notes)
    table = edges.table[
        [
            "upper",
            "lower",
            "rating_gap",
            "instructions",
            "discordant",
            "upper_wins",
            "lower_wins",
            "observed_edge",
            "detectable_edge",
            "p_value",
            "resolved",
            "instructions_needed",
        ]
    ]
    formats = {
        "rating_gap": _num(0),
        "observed_edge": _percent(1),
        "detectable_edge": _percent(1),
        "p_value": lambda v: f"{float(v):.3g}",
        "resolved": lambda v: "yes" if v else "no",
        "instructions_needed": lambda v: f"{float(v):,.0f}",
    }
    body = (
        caption
        + notes
        + _table(table, formats, table_id="power-table")
        + _figure(detectable_edges_figure(edges), "fig-power-edges")
    )
    if plan is not None:
        source = (
            f"informativeness I = {plan.informativeness:.3f}"
            if plan.informativeness is not None
            else "no informativeness"
        )
        body += (
            "<h3>Samples a sign test needs for a given edge</h3>"
            f'<p class="caption">One-sided sign test at α = {plan.alpha:g}, power '
            f"{plan.power:.0%}, normal approximation (Don-Yehiya et al. 2026, Table 2). Total = "
            f"⌈discordant / I⌉ with {_esc(source)} (the recommended anchor's, or the mean of "
            "the adjacent pairs' when there is no anchor analysis).</p>"
            + _table(
                plan.table,
                {
                    "edge": _percent(1),
                    "win_probability": _percent(1),
                    "discordant": lambda v: f"{int(v):,}",
                    "total": lambda v: f"{int(v):,}",
                },
                table_id="plan-table",
            )
            + _figure(sample_size_figure(plan.table, informativeness=plan.informativeness), "fig-power-plan")
        )
    return body


def _calibration_section(analyses: Analyses) -> str:
    cal = analyses.calibration
    if cal is None:
        return _missing(
            "The calibration", analyses.unavailable.get("correction", "no result")
        ) + _ppi_section(analyses)
    caption = (
        f'<p class="caption">{_esc(cal.candidate_label)}, judge {_esc(analyses.judge)}: '
        f"{cal.counts.n_judged:,} judged pairs, {cal.counts.n_labelled:,} with a human label "
        f"({cal.counts.n_se:,} human-called wins). Corrected by Rogan & Gladen (1978) with the Lang & Reiczigel (2014) interval.</p>"
    )
    status = (
        f'<p class="caption">⚠ Correction refused: {_esc(cal.refusal_reason)}.</p>' if cal.refused else ""
    )
    if cal.transfer_warning:
        status += f'<p class="caption">⚠ {_esc(cal.transfer_warning)}</p>'
    body = (
        caption
        + status
        + _table(
            cal.summary_frame(),
            {"estimate": _num(3), "low": _num(3), "high": _num(3)},
            table_id="calibration-table",
        )
        + _figure(calibration_figure(cal), "fig-calibration")
    )
    if pd.notna(cal.youden_j) and -1.0 <= cal.youden_j <= 1.0:
        sizes = sorted(set(FLOOR_SIZES) | ({cal.counts.n_labelled} if cal.counts.n_labelled else set()))
        floors = floor_table(sizes, (), se=cal.se, sp=cal.sp)  # as the Calibration page reads it
        body += (
            "<h3>The floor at this judge's sensitivity and specificity</h3>"
            '<p class="caption">The narrowest corrected interval any number of judged pairs '
            "could give, by labelled-set size (this judge's Se and Sp, labelled pairs split "
            "evenly; Lang & Reiczigel 2014).</p>"
            + _table(
                floors,
                {"youden_j": _num(2), "floor": _num(3), "floor_points": _num(1)},
                table_id="floor-table",
            )
            + _figure(floor_figure(floors), "fig-floor")
        )
    return body + _ppi_section(analyses)


def _ppi_section(analyses: Analyses) -> str:
    """The certification line of the judge and the prediction-powered ratings, when labels exist."""
    from evalcore.calibration.ppi import CEILING_SENTENCE
    from evalcore.calibration.presentation import ppi_table

    body = ""
    sheet = analyses.judge_sheet
    cert = sheet.certification if sheet is not None else None
    if cert is not None:
        body += f"<h3>Judge certification</h3><p>{_esc(cert.sentence())}</p>"
        if cert.note:
            body += f'<p class="caption">{_esc(cert.note)}</p>'
    r = analyses.ppi
    if r is None:
        if analyses.summary.labelled_rows:
            body += _missing("Prediction-powered ratings", analyses.unavailable.get("ppi", "no result"))
        return body
    body += (
        "<h3>Prediction-powered ratings</h3>"
        f'<p class="caption">The judge\'s verdicts on all {r.n_calls:,} calls, corrected by the human '
        f"labels on {r.n_labelled_pairs:,} pairs (PPI++, Angelopoulos, Duchi &amp; Zrnic 2023; Boyeau "
        f"et al., ICML 2025), weight on the judge λ = {r.lam:.2f}. Elo points with 95% intervals "
        f"clustered by instruction. The intervals are as narrow as a human-only study with about "
        f"{r.effective_overall:,.0f} labelled pairs would give ({r.gain:.1f}× the labels). "
        f"{_esc(CEILING_SENTENCE)}</p>"
    )
    body += "".join(f'<p class="caption">⚠ {_esc(n)}</p>' for n in r.notes)
    return body + _table(ppi_table(r), table_id="ppi-table")


def build_report(
    analyses: Analyses, findings: Findings | None = None, *, generated: datetime | None = None
) -> str:
    """The self-contained HTML report of ``analyses`` (a string; write it with UTF-8)."""
    findings = findings or headline_findings(analyses)
    generated = generated or datetime.now(UTC)
    s = analyses.summary
    sections: list[tuple[str, str, str]] = [
        ("findings", "Headline findings", _findings_section(findings)),
        ("summary", "The data", _summary_section(analyses)),
        ("leaderboard", "Leaderboard", _leaderboard_section(analyses)),
        ("anchors", "Anchor analysis", _anchors_section(analyses)),
        ("judge", "Judge sheet", _judge_section(analyses)),
        ("power", "Power: what the data can separate", _power_section(analyses)),
        ("calibration", "Calibration: correcting the win rate", _calibration_section(analyses)),
    ]
    nav = "".join(f'<a href="#{sid}">{_esc(title)}</a>' for sid, title, _ in sections)
    body = "".join(
        f'<section id="{sid}"><h2>{_esc(title)}</h2>{content}</section>' for sid, title, content in sections
    )
    simulated = all(m.startswith("sim-") for m in s.models)
    subtitle = (
        f"{len(s.models)} models · {s.instructions:,} instructions · {s.rows:,} judge calls"
        f" · judge analysed: {analyses.judge}"
    )
    sim_note = (
        "<p>Simulated data: every model and judge is made up by evalcore's simulator.</p>"
        if simulated
        else ""
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>Verdict Lab report: {_esc(s.name)}</title><style>{_CSS}</style>"
        "<script>window.PlotlyConfig = {MathJaxConfig: 'local'};</script>\n"
        f'<script type="text/javascript">{get_plotlyjs()}</script>\n'
        "</head><body>"
        f"<header><h1>Verdict Lab report: {_esc(s.name)}</h1><p>{_esc(subtitle)}</p>{sim_note}"
        f"<p>Generated {_esc(generated.strftime('%Y-%m-%d %H:%M UTC'))}. Every plot is "
        "interactive; its camera button saves it as a PNG.</p></header>"
        f"<nav>{nav}</nav><main>{body}</main>"
        "<footer>Made with Verdict Lab (evalcore). This file is self-contained: it opens "
        "offline and loads nothing from the network.</footer></body></html>\n"
    )
