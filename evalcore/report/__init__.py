"""The stakeholder report: one self-contained HTML file of a dataset's results (issue 6, item 2).

The report shows the results evalcore already computed (an :class:`evalcore.findings.Analyses`
bundle and its :class:`evalcore.findings.Findings`) with the same Plotly figures as the pages
(``evalcore/plots/``). It opens offline: plotly.js is inlined once in the head, every figure is
written with ``include_plotlyjs=False`` and the shared ``CONFIG`` (the modebar's camera button
saves any plot as a PNG in the browser; plotly.js's "Share chart" upload button is switched
off), no file, font or script is fetched from the network, and a Content-Security-Policy
forbids it.

The package keeps the parts apart: :mod:`~evalcore.report.html` (the page's style and the escaped
HTML building blocks: tables, figures, notes), :mod:`~evalcore.report.sections` (one function per
section, each reading one result of the bundle) and :func:`build_report`, which assembles them.
"""

from __future__ import annotations

from datetime import UTC, datetime

from plotly.offline import get_plotlyjs

from evalcore.findings import Analyses, Findings, headline_findings
from evalcore.report.html import CSP, CSS, REPORT_CONFIG, esc
from evalcore.report.sections import (
    anchors_section,
    calibration_section,
    findings_section,
    judge_section,
    leaderboard_section,
    power_section,
    summary_section,
)
from evalcore.text import fmt_count

__all__ = ["CSP", "REPORT_CONFIG", "build_report"]


def build_report(
    analyses: Analyses, findings: Findings | None = None, *, generated: datetime | None = None
) -> str:
    """The self-contained HTML report of ``analyses`` (a string; write it with UTF-8)."""
    findings = findings or headline_findings(analyses)
    generated = generated or datetime.now(UTC)
    s = analyses.summary
    sections: list[tuple[str, str, str]] = [
        ("findings", "Headline findings", findings_section(findings)),
        ("summary", "The data", summary_section(analyses)),
        ("leaderboard", "Leaderboard", leaderboard_section(analyses)),
        ("anchors", "Anchor analysis", anchors_section(analyses)),
        ("judge", "Judge sheet", judge_section(analyses)),
        ("power", "Power: what the data can separate", power_section(analyses)),
        ("calibration", "Calibration: correcting the win rate", calibration_section(analyses)),
    ]
    nav = "".join(f'<a href="#{sid}">{esc(title)}</a>' for sid, title, _ in sections)
    body = "".join(
        f'<section id="{sid}"><h2>{esc(title)}</h2>{content}</section>' for sid, title, content in sections
    )
    simulated = all(m.startswith("sim-") for m in s.models)
    subtitle = (
        f"{fmt_count(len(s.models), 'model')} · {fmt_count(s.instructions, 'instruction')} · "
        f"{fmt_count(s.rows, 'judge call')}"
        f" · judge analysed: {analyses.judge}"
    )
    sim_note = (
        "<p>Simulated data: every model and judge is made up by Verdict Lab's simulator.</p>"
        if simulated
        else ""
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>Verdict Lab report: {esc(s.name)}</title><style>{CSS}</style>"
        "<script>window.PlotlyConfig = {MathJaxConfig: 'local'};</script>\n"
        f'<script type="text/javascript">{get_plotlyjs()}</script>\n'
        "</head><body>"
        f"<header><h1>Verdict Lab report: {esc(s.name)}</h1><p>{esc(subtitle)}</p>{sim_note}"
        f"<p>Generated {esc(generated.strftime('%Y-%m-%d %H:%M UTC'))}. Every plot is "
        "interactive; its camera button saves it as a PNG.</p></header>"
        f"<nav>{nav}</nav><main>{body}</main>"
        "<footer>Made with Verdict Lab (evalcore). This file is self-contained: it opens "
        "offline and loads nothing from the network.</footer></body></html>\n"
    )
