"""The stakeholder report: one self-contained HTML file of a dataset's results (issue 6, item 2).

The report shows the results evalcore already computed (an :class:`evalcore.findings.Analyses`
bundle and its :class:`evalcore.findings.Findings`) with the same Plotly figures as the pages
(``evalcore/plots/``). It opens offline: plotly.js is inlined once in the head, every figure is
written with ``include_plotlyjs=False`` and the shared ``CONFIG`` (the modebar's camera button
saves any plot as a PNG in the browser), no file, font or script is fetched from the network,
and a Content-Security-Policy forbids it.
"""

from __future__ import annotations

import html
from datetime import UTC, datetime
from typing import Any, Callable

import pandas as pd
import plotly.graph_objects as go
from plotly.offline import get_plotlyjs

from evalcore.findings import Analyses, Findings, fmt_pct, headline_findings
from evalcore.plots.common import CONFIG
from evalcore.plots.leaderboard import forest_plot, win_rate_heatmap
from evalcore.plots.summary import coverage_heatmap

#: Network access is refused inside the report: everything it needs is in the file.
CSP = ("default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval'; style-src 'unsafe-inline'; "
       "img-src data: blob:; font-src data:; connect-src 'none'")

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
                             text-align:right; white-space:nowrap; }
table.tbl th { background:var(--soft); position:sticky; top:0; }
table.tbl td:first-child, table.tbl th:first-child { text-align:left; }
.scroll { overflow-x:auto; max-height:640px; overflow-y:auto; }
.figure { margin:8px 0 18px; }
footer { padding:18px 40px; color:var(--muted); font-size:13px; border-top:1px solid var(--line); }
"""


def _esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _table(frame: pd.DataFrame, formats: dict[str, Callable[[Any], str]] | None = None,
           *, table_id: str | None = None) -> str:
    """An escaped HTML table; ``formats`` maps a column to a formatter for its cells."""
    formats = formats or {}
    head = "".join(f"<th>{_esc(c)}</th>" for c in frame.columns)
    rows = []
    for record in frame.itertuples(index=False, name=None):
        cells = []
        for column, value in zip(frame.columns, record, strict=True):
            if value is None or (isinstance(value, float) and pd.isna(value)) or value is pd.NA:
                text = "—"
            elif column in formats:
                text = formats[column](value)
            else:
                text = str(value)
            cells.append(f"<td>{_esc(text)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    ident = f' id="{_esc(table_id)}"' if table_id else ""
    return (f'<div class="scroll"><table class="tbl"{ident}><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table></div>")


def _figure(fig: go.Figure, div_id: str) -> str:
    """A figure as a div + script, without plotly.js (inlined once in the head)."""
    height = fig.layout.height or 450
    body = fig.to_html(full_html=False, include_plotlyjs=False, config=CONFIG, div_id=div_id,
                       default_width="100%", default_height=f"{int(height)}px")
    return f'<div class="figure">{body}</div>'


def _missing(what: str, reason: str) -> str:
    return f'<p class="missing">{_esc(what)} is not available: {_esc(reason)}</p>'


def _rating(value: float) -> str:
    return f"{value:,.0f}"


# ---------------------------------------------------------------------------------------------
# Sections: each returns (anchor id, heading, html body)


def _findings_section(findings: Findings) -> str:
    tiles = "".join(
        f'<div class="tile"><div class="label">{_esc(f.title)}</div>'
        f'<div class="value">{_esc(f.value)}</div></div>'
        for f in findings.findings)
    cards = "".join(
        f'<div class="finding {_esc(f.status)}" id="finding-{_esc(f.key)}"><h3>{_esc(f.title)}</h3>'
        f"<p>{_esc(f.text)}</p>"
        + (f'<p class="definition">Definition: {_esc(f.definition)}</p>' if f.definition else "")
        + "</div>"
        for f in findings.findings)
    return f'<div class="tiles">{tiles}</div>{cards}'


def _summary_section(analyses: Analyses) -> str:
    s = analyses.summary
    facts = pd.DataFrame({
        "item": ["file", "rows (judge calls)", "models", "instructions", "judges", "design",
                 "model pairs judged", "orders", "human-labelled rows", "self-comparison rows",
                 "categories"],
        "value": [s.name, f"{s.rows:,}", f"{len(s.models)}", f"{s.instructions:,}",
                  ", ".join(s.judges),
                  s.design + (f" (every model against {s.anchor})" if s.anchor else ""),
                  f"{s.pairs_judged} of {s.pairs_possible}", s.orders, f"{s.labelled_rows:,}",
                  f"{s.self_comparison_rows:,}", ", ".join(s.categories) or "none"],
    })
    coverage = s.no_verdict.rename(columns={"no_verdict": "no verdict",
                                            "no_verdict_rate": "no-verdict rate"})
    return (_table(facts, table_id="summary-table")
            + "<h3>Calls that returned no verdict, per judge</h3>"
            + _table(coverage, {"calls": lambda v: f"{v:,}", "no verdict": lambda v: f"{v:,}",
                                "no-verdict rate": lambda v: fmt_pct(v, 1)},
                     table_id="no-verdict-table")
            + '<p class="caption">No-verdict calls are kept and counted, left out of win rates, '
            "never imputed.</p>"
            + _figure(coverage_heatmap(s), "fig-coverage"))


def _leaderboard_section(analyses: Analyses) -> str:
    board = analyses.leaderboard
    if board is None:
        return _missing("The leaderboard", analyses.unavailable.get("leader", "no ranking"))
    table = board.table.copy()
    if table["piece"].nunique() == 1:
        table = table.drop(columns=["piece"])
    table = table.rename(columns={"ci_low": "95% low", "ci_high": "95% high",
                                  "rank_low": "best rank", "rank_high": "worst rank",
                                  "win_rate": "win rate"})
    formats = {"rating": _rating, "95% low": _rating, "95% high": _rating,
               "battles": lambda v: f"{v:,}", "wins": lambda v: f"{v:,}",
               "ties": lambda v: f"{v:,}", "losses": lambda v: f"{v:,}",
               "win rate": lambda v: fmt_pct(v, 1)}
    notes = "".join(f'<p class="caption">⚠ {_esc(n)}</p>' for n in board.notes)
    caption = (f'<p class="caption">Judge {_esc(analyses.judge)}. Bradley–Terry maximum likelihood '
               "on win/tie/loss counts (a tie is half a win each), Elo scale with mean 1000: a "
               "400-point gap is a 10:1 win probability. Intervals: 2.5–97.5 percentiles over "
               f"{board.rounds:,} bootstrap rounds resampling the {board.n_instructions:,} "
               f"instructions (seed {board.seed}); rank range: the same percentiles of each "
               "model's rank. Win rate: (wins + ties/2) / battles, both slots pooled.</p>")
    return (caption + notes + _table(table, formats, table_id="leaderboard-table")
            + _figure(forest_plot(board), "fig-forest")
            + _figure(win_rate_heatmap(board), "fig-winrate"))


def build_report(analyses: Analyses, findings: Findings | None = None, *,
                 generated: datetime | None = None) -> str:
    """The self-contained HTML report of ``analyses`` (a string; write it with UTF-8)."""
    findings = findings or headline_findings(analyses)
    generated = generated or datetime.now(UTC)
    s = analyses.summary
    sections: list[tuple[str, str, str]] = [
        ("findings", "Headline findings", _findings_section(findings)),
        ("summary", "The data", _summary_section(analyses)),
        ("leaderboard", "Leaderboard", _leaderboard_section(analyses)),
    ]
    nav = "".join(f'<a href="#{sid}">{_esc(title)}</a>' for sid, title, _ in sections)
    body = "".join(f'<section id="{sid}"><h2>{_esc(title)}</h2>{content}</section>'
                   for sid, title, content in sections)
    simulated = all(m.startswith("sim-") for m in s.models)
    subtitle = (f"{len(s.models)} models · {s.instructions:,} instructions · {s.rows:,} judge calls"
                f" · judge analysed: {analyses.judge}")
    sim_note = ("<p>Simulated data: every model and judge is made up by evalcore's simulator.</p>"
                if simulated else "")
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
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

