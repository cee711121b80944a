"""The headline findings of a dataset, in plain words with their numbers (issue 6, item 2).

This module computes no statistic of its own. :func:`run_analyses` calls the analyses of
evalcore once for a dataset and a judge (:func:`evalcore.ranking.leaderboard`,
:func:`evalcore.anchors.anchor_sweep`, :func:`evalcore.judge.judge_sheet`,
:func:`evalcore.power.detectable_edges`, :func:`evalcore.calibration.calibrate`) and keeps their
results in an :class:`Analyses` bundle; :func:`headline_findings` reads those results and states
each headline as a sentence that carries its numbers and the definition behind them. The
Overview page, the HTML report (:mod:`evalcore.report`) and ``python -m evalcore report`` show
the same :class:`Findings`, so they cannot disagree.

Each finding carries its definition in words (:attr:`Finding.definition`, the text every face
shows with it); the methods document gives the methods and their references.

The package has one module per family of findings: :mod:`~evalcore.findings.analyses` (running
the analyses once), :mod:`~evalcore.findings.finding` (the :class:`Finding` result and its
titles), :mod:`~evalcore.findings.ranking` (who leads, the separation of the top two),
:mod:`~evalcore.findings.anchors`, :mod:`~evalcore.findings.judge` and
:mod:`~evalcore.findings.calibration` (the corrected win rate).
"""

from __future__ import annotations

from evalcore.findings.analyses import Analyses, for_report, ranking_key, run_analyses
from evalcore.findings.anchors import anchor_finding
from evalcore.findings.calibration import correction_finding
from evalcore.findings.finding import METHOD_SECTIONS, Finding, Findings
from evalcore.findings.judge import judge_finding
from evalcore.findings.ranking import leader_finding, separation_finding, time_lines

#: What the faces import from here; the constants and helpers stay in their modules.
__all__ = [
    "METHOD_SECTIONS",
    "Analyses",
    "Finding",
    "Findings",
    "for_report",
    "headline_findings",
    "leader_finding",
    "ranking_key",
    "run_analyses",
    "separation_finding",
    "time_lines",
]


def headline_findings(analyses: Analyses) -> Findings:
    """The headline findings of ``analyses`` in the order the Overview and the report show them."""
    findings = (
        leader_finding(analyses),
        separation_finding(analyses),
        anchor_finding(analyses),
        judge_finding(analyses),
        correction_finding(analyses),
    )
    return Findings(dataset=analyses.summary.name, judge=analyses.judge, findings=findings)
