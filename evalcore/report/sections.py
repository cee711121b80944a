"""The report's sections: one function per section, each turning one result into HTML.

Each section reads one result of the :class:`evalcore.findings.Analyses` bundle and shows it with
the pages' Plotly figures, or says in words why it is missing.
"""

from __future__ import annotations

import pandas as pd

from evalcore import quantities
from evalcore.calibration import FLOOR_SIZES, floor_table
from evalcore.findings import Analyses, Findings
from evalcore.findings.ranking import time_lines
from evalcore.plots.anchors import informativeness_bars, inverted_u, tau_vs_informativeness
from evalcore.plots.calibration import calibration_figure, floor_figure
from evalcore.plots.judge import coverage_figure as no_verdict_figure
from evalcore.plots.judge import order_swap_figure, position_bias_figure, tie_rates_figure
from evalcore.plots.leaderboard import forest_plot, win_rate_heatmap
from evalcore.plots.power import detectable_edges_figure, sample_size_figure
from evalcore.plots.summary import coverage_heatmap
from evalcore.plots.ties import verdict_levels_figure
from evalcore.present import anchors as anchor_show
from evalcore.present import calibration as cal_show
from evalcore.present import calibration_words as cal_words
from evalcore.present import judge as judge_show
from evalcore.present import power as power_show
from evalcore.present import ranking as rank_show
from evalcore.present import style as style_show
from evalcore.present import summary as summary_show
from evalcore.present import ties as ties_show
from evalcore.present.display import FORMATS, catalogue_table
from evalcore.ranking.units import widening_matters, widening_note
from evalcore.report.html import (
    captions,
    esc,
    html_figure,
    html_table,
    markdown_html,
    missing_note,
)
from evalcore.text import MISSING, fmt_int

# ---------------------------------------------------------------------------------------------
# Sections: each returns (anchor id, heading, html body)


def findings_section(findings: Findings) -> str:
    tiles = "".join(
        f'<div class="tile"><div class="label">{esc(t.label)}</div>'
        f'<div class="value">{esc(t.value)}</div><div class="note">{esc(t.note)}</div></div>'
        for f in findings.findings
        for t in f.tiles
    )
    cards = "".join(
        f'<div class="finding {esc(f.status)}" id="finding-{esc(f.key)}"><h3>{esc(f.title)}</h3>'
        f"<p>{esc(f.text)}</p>"
        + (f'<p class="definition">Definition: {esc(f.definition)}</p>' if f.definition else "")
        + "</div>"
        for f in findings.findings
    )
    return f'<div class="tiles">{tiles}</div>{cards}'


def summary_section(analyses: Analyses) -> str:
    s = analyses.summary
    # the Data page's counts and design list
    facts = pd.DataFrame(summary_show.metric_cells(s), columns=["item", "value"])
    return (
        html_table(facts, table_id="summary-table")
        + markdown_html(summary_show.design_markdown(s))
        + "<h3>Calls that returned no verdict, per judge</h3>"
        # the Data page's table: the same headings and formats
        + html_table(
            summary_show.no_verdict_table(s),
            {"Calls": fmt_int, "Calls without a verdict": fmt_int},
            table_id="no-verdict-table",
        )
        + '<p class="caption">No-verdict calls are kept and counted, left out of win rates, '
        "never imputed.</p>"
        + (
            _model_map(
                len(s.models), "The map of judge calls per pair", "the app's Data page downloads the pairs."
            )
            or html_figure(coverage_heatmap(s), "fig-coverage")
        )
    )


def _model_map(n_models: int, what: str, instead: str) -> str:
    """The caption said in place of a model × model map too large to draw, else ""."""
    too_large = rank_show.map_too_large(n_models, what, instead)
    return f'<p class="caption">{esc(too_large)}</p>' if too_large else ""


def leaderboard_section(analyses: Analyses) -> str:
    board = analyses.leaderboard
    if board is None:
        return missing_note("The leaderboard", analyses.unavailable.get("leader", "no ranking"))
    notes = captions([*board.design_warnings, *board.notes])
    if analyses.style is not None:
        notes += f'<p class="caption">Style control: {esc(style_show.style_caption(analyses.style))}</p>'
    if analyses.judge_pooling is not None:  # several judges: the ranking that weights them
        notes += f'<p class="caption">Several judges: {esc(analyses.judge_pooling.sentence())}</p>'
    notes += time_line(analyses) + unit_line(analyses)
    conventions = analyses.tie_conventions
    if conventions is not None and not conventions.modelling_agrees:  # said only when it matters
        notes += f'<p class="caption">Ties as data: {esc(conventions.sentence())}</p>'
    # the Leaderboard page's table and method paragraph
    table = rank_show.display_table(board)
    caption = (
        f'<p class="caption">Judge {esc(analyses.judge)}. {esc(rank_show.method_caption(board))} Win rate: '
        "wins plus half the ties, over the battles, both slots pooled.</p>"
    )
    return (
        caption
        + notes
        + html_table(table, table_id="leaderboard-table")
        + html_figure(forest_plot(board), "fig-forest")
        + (
            _model_map(
                len(board.models), "The win-rate matrix", "the app's Leaderboard page downloads the pairs."
            )
            or html_figure(win_rate_heatmap(board), "fig-winrate")
        )
    )


def anchors_section(analyses: Analyses) -> str:
    sweep = analyses.anchors
    if sweep is None:
        return missing_note("The anchor analysis", analyses.unavailable.get("anchor", "no sweep"))
    caption = (
        f'<p class="caption">Recommended anchor: <strong>{esc(sweep.recommended)}</strong> (the '
        f"most informative; Don-Yehiya et al. 2026). Informativeness: {esc(quantities.quantity('informativeness').definition)} "
        f"{esc(anchor_show.sweep_caption(sweep, sweep.tau))}</p>"
    )
    notes = captions(sweep.notes)
    figures = ""
    if sweep.has_all_pairs_ranking:
        figures += html_figure(inverted_u(sweep, highlight=sweep.recommended), "fig-anchor-u") + html_figure(
            tau_vs_informativeness(sweep, highlight=sweep.recommended), "fig-anchor-info"
        )
    figures += html_figure(informativeness_bars(sweep, highlight=sweep.recommended), "fig-anchor-bars")
    return caption + notes + html_table(anchor_show.sweep_table(sweep), table_id="anchor-table") + figures


def judge_section(analyses: Analyses) -> str:
    sheet = analyses.judge_sheet
    if sheet is None:
        return missing_note("The judge sheet", analyses.unavailable.get("judge", "no sheet"))
    # the Judge page's own table: the catalogue's names, percentages and signed points
    table = judge_show.sheet_display(sheet)
    table = table[table["value"] != MISSING].reset_index(drop=True)
    caption = (
        f'<p class="caption">The spec sheet of {esc(analyses.judge)} (Zheng et al. 2023, "Judging '
        'LLM-as-a-judge with MT-Bench and Chatbot Arena"; Gondara et al. 2026). The 95% intervals: '
        f"{sheet.interval_method}. Length control and "
        "self-preference are on the Judge page.</p>"
    )
    notes = captions([*getattr(sheet, "design_warnings", ()), *sheet.notes])
    body = caption + notes + html_table(table, table_id="judge-table")
    comparison = analyses.judge_comparison
    if comparison is not None and "position_bias_points" in comparison.columns:
        rated = comparison[comparison["position_bias_points"].notna()].reset_index(drop=True)
        # the Judge page's side-by-side columns with each judge's calls and note; its length and
        # self-preference terms (Elo points) are on the Judge page
        shown = comparison.filter(["judge", "calls", *list(judge_show.SIDE_BY_SIDE)[1:-2], "note"])
        body += (
            "<h3>Every judge of the file</h3>"
            f'<p class="caption">The same sheet for each of the {len(comparison)} judges '
            "(definitions above).</p>"
            + html_table(judge_show.comparison_display(shown), table_id="judges-table")
            + html_figure(position_bias_figure(rated), "fig-judges-position")
        )
        if rated["both_orders_tie_rate"].notna().any():
            body += html_figure(tie_rates_figure(rated), "fig-judge-ties")
    elif sheet.position.pairings:
        body += html_figure(tie_rates_figure(pd.DataFrame([sheet.scalars()])), "fig-judge-ties")
    if len(sheet.order.by_anchor):
        body += (
            '<p class="caption">Order swap (Gondara et al. 2026): for each model as the anchor, '
            "its opponents' preference over it net of position, and the first-slot bias, in verdict "
            "units (defined on the Methods page).</p>"
            + html_figure(order_swap_figure(sheet.order.by_anchor), "fig-judge-swap")
        )
    if sheet.coverage is not None and sheet.coverage.no_verdict:
        body += html_figure(no_verdict_figure(sheet.coverage.by_model, by="model"), "fig-judge-coverage")
    ties = analyses.ties
    if ties is not None:
        # the Tie structure page's tiles, in its words and formats
        said = "; ".join(f"{t.label}: {t.value}" for t in ties_show.level_metrics(ties))
        body += (
            "<h3>Verdict levels and ties</h3>"
            f'<p class="caption">Share of calls at each verdict level. {esc(said)} (Gondara et al. 2026).</p>'
            + html_table(
                ties.level_table(),
                {"calls": fmt_int, "share": FORMATS["pct1"]},
                table_id="levels-table",
            )
            + html_figure(verdict_levels_figure(ties), "fig-levels")
        )
    if analyses.both_bad is not None:  # a table that keeps "both bad" apart from "tie"
        body += f'<p id="both-bad-line">{esc(analyses.both_bad.sentence())}</p>'
    return body


def time_line(analyses: Analyses) -> str:
    """The line on the ranking in time (:func:`evalcore.findings.ranking.time_lines`, the
    Overview's wording), when the ranking moved or the judge drifted; else nothing."""
    return "".join(f'<p id="{key}">{esc(text)}</p>' for key, text in time_lines(analyses))


def unit_line(analyses: Analyses) -> str:
    """The line on the unit of resampling, when the table has a session, voter or run column and
    intervals clustered by it are noticeably wider than over instructions; else nothing."""
    said = [
        widening_note(column, value, n_units)
        for column, (value, n_units) in analyses.unit_widening.items()
        if widening_matters(value)
    ]
    return "".join(
        f'<p class="unit-line">{esc(text)} Rank with that column as the unit (the Leaderboard\'s '
        "resampling unit, or rank --cluster).</p>"
        for text in said
    )


def power_section(analyses: Analyses) -> str:
    edges, plan = analyses.edges, analyses.plan
    if edges is None:
        return missing_note("The power analysis", analyses.unavailable.get("separation", "no result"))
    # the Power page's caption and table
    caption = (
        f'<p class="caption">{esc(power_show.detectable_caption(edges))} {edges.n_resolved} of '
        f"{edges.n_pairs} pairs are resolved.</p>"
    )
    notes = captions(edges.notes)
    if (watch := analyses.monitor) is not None:
        # the stopping rule that stays valid however often the table was looked at
        notes += (
            f'<p id="monitor-line">{esc(watch.sentence())} (anytime-valid confidence sequence, '
            "Howard, Ramdas, McAuliffe and Sekhon 2021; verdicts ordered by "
            f"{'judging time' if watch.ordered_by == 'judged_at' else 'row order'}.)</p>"
        )
    body = (
        caption
        + notes
        + html_table(power_show.detectable_table(edges), table_id="power-table")
        + html_figure(detectable_edges_figure(edges), "fig-power-edges")
    )
    if plan is not None:
        calls = power_show.plan_calls_sentence(plan, analyses.counts.n_models)
        body += (
            "<h3>Samples a sign test needs for a given edge</h3>"
            f'<p class="caption">{esc(power_show.sample_size_caption(plan))} The informativeness is the '
            "recommended anchor's, or the mean of the adjacent pairs' when there is no anchor "
            "analysis.</p>"
            + html_table(power_show.sample_size_table(plan), table_id="plan-table")
            + (f'<p id="plan-calls">{esc(calls)}</p>' if calls else "")
            + html_figure(
                sample_size_figure(plan.table, informativeness=plan.informativeness), "fig-power-plan"
            )
        )
    return body


def calibration_section(analyses: Analyses) -> str:
    cal = analyses.calibration
    if cal is None:
        return missing_note(
            "The calibration", analyses.unavailable.get("correction", "no result")
        ) + ppi_section(analyses)
    # the Calibration page's words, table and figure
    intro = f"{cal_show.headline(cal)}. {cal_show.correction_caption(cal)} {cal_words.METHOD}"
    said = [
        cal_show.Message("info", intro),
        *cal_show.correction_message(cal),
        *cal_show.correction_notes(cal),
    ]
    body = (
        captions(said)
        + html_table(cal_show.summary_display(cal), table_id="calibration-table")
        + html_figure(calibration_figure(cal), "fig-calibration")
    )
    if pd.notna(cal.youden_j) and -1.0 <= cal.youden_j <= 1.0:
        sizes = sorted(set(FLOOR_SIZES) | ({cal.counts.n_labelled} if cal.counts.n_labelled else set()))
        floors = floor_table(sizes, (), se=cal.se, sp=cal.sp)  # as the Calibration page reads it
        # The table is a plan (even split, a true share of 37.5%); the sentence above is this
        # labelled set's own floor. Both are named, and the assumptions sit next to the numbers,
        # so ±19.0 at 30 labels beside ±27.8 for these 30 labels reads as two quantities.
        own = quantities.format("correction_floor", 100 * cal.floor)
        plan = catalogue_table(
            floors, [("n_labelled", "Labelled pairs", None), "youden_j", cal_show.FLOOR_POINTS]
        )
        body += (
            f"<h3>{quantities.name('planning_floor')} at this judge's sensitivity and specificity</h3>"
            '<p class="caption">The narrowest corrected interval any number of judged pairs '
            "could give, by labelled-set size, assuming this judge's sensitivity and specificity, "
            "the labelled pairs split evenly between human wins and non-wins and a true win share "
            f"of 37.5% (Lang & Reiczigel 2014). This labelled set's own "
            f"{esc(quantities.name('correction_floor').lower())} ({cal.counts.n_se:,} human wins, "
            f"{cal.counts.n_sp:,} non-wins, the judge's own printed share) is {own}: the number "
            "in the sentence above.</p>"
            + html_table(plan, table_id="floor-table")
            + html_figure(floor_figure(floors), "fig-floor")
        )
    return body + ppi_section(analyses)


def ppi_section(analyses: Analyses) -> str:
    """The certification line of the judge and the prediction-powered ratings, when labels exist."""
    body = ""
    sheet = analyses.judge_sheet
    cert = sheet.certification if sheet is not None else None
    if cert is not None:
        body += (
            f"<h3>Judge certification, all labelled calls</h3><p>{esc(cert.sentence())}</p>"
            f'<p class="caption">{esc(quantities.name("judge_agreement_on_wins"))}: every labelled '
            "call of the judge counts. The Calibration page's release gate certifies one pair on "
            f"its labelled both-orders verdicts ({esc(quantities.name('pair_agreement_on_wins').lower())}"
            "), so its counts are smaller.</p>"
        )
        if cert.note:
            body += f'<p class="caption">{esc(cert.note)}</p>'
    r = analyses.ppi
    if r is None:
        if analyses.summary.labelled_rows:
            body += missing_note("Prediction-powered ratings", analyses.unavailable.get("ppi", "no result"))
        return body
    body += (
        "<h3>Prediction-powered ratings</h3>"
        '<p class="caption">Elo points with 95% intervals clustered by instruction (prediction-powered '
        "inference: Angelopoulos, Duchi &amp; Zrnic 2023; Boyeau et al., ICML 2025).</p>"
        + captions(cal_show.ppi_messages(r))  # the Calibration page's words
    )
    return body + html_table(cal_show.ppi_table(r), table_id="ppi-table")
