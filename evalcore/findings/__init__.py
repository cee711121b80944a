"""The headline findings of a dataset, in plain words with their numbers (issue 6, item 2).

This module computes no statistic of its own. :func:`run_analyses` calls the analyses of
evalcore once for a dataset and a judge (:func:`evalcore.ranking.leaderboard`,
:func:`evalcore.anchors.anchor_sweep`, :func:`evalcore.judge.judge_sheet`,
:func:`evalcore.power.detectable_edges`, :func:`evalcore.calibration.calibrate`) and keeps their
results in an :class:`Analyses` bundle; :func:`headline_findings` reads those results and states
each headline as a sentence that carries its numbers and the definition behind them. The
Overview page, the HTML report (:mod:`evalcore.report`) and ``python -m evalcore report`` show
the same :class:`Findings`, so they cannot disagree.

Definitions (the documentation's definitions page):

- ratings: Bradley–Terry on the Elo scale, a tie half a win each, 95% intervals = 2.5–97.5
  percentiles of a bootstrap over instructions (Efron & Tibshirani 1993); head-to-head share
  P(i beats j) = 1 / (1 + 10^((r_j − r_i)/400));
- separation: the two-sided exact sign test of the leader against the runner-up on the
  instructions where their verdicts differ, Holm-adjusted across the adjacent pairs (Don-Yehiya et al. 2026, :func:`evalcore.power.detectable_edges`),
  beside the leader's 95% rank range across the bootstrap rounds;
- anchors: Kendall's tau-b between the anchor-based and the all-pairs ranking, informativeness =
  the share of (instruction, model pair) cases whose verdicts against the anchor differ, the
  recommended anchor = the most informative one (Don-Yehiya et al. 2026, sections 4.3 and 6); the usual choice is the
  strongest model (Arena-Hard and AlpacaEval compare against a frontier model); its cost is in
  tau and in the total instructions a sign test needs for a +5% edge, ⌈617 / I⌉;
- the judge: position bias = P(first slot wins) − P(second slot wins) over single-order verdicts,
  in points; swap consistency, the both-orders tie rate (the documentation's definitions: both orders verdict, position bias);
- correction: Rogan–Gladen with the Lang–Reiczigel interval, refused when the floor is wider than
  ±20 points (the documentation's definitions: floors; :func:`evalcore.calibration.calibrate`).

The package has one module per family of findings: :mod:`~evalcore.findings.analyses` (running
the analyses once), :mod:`~evalcore.findings.finding` (the :class:`Finding` result and its
titles), :mod:`~evalcore.findings.ranking` (who leads, the separation of the top two),
:mod:`~evalcore.findings.anchors`, :mod:`~evalcore.findings.judge` and
:mod:`~evalcore.findings.calibration` (the corrected win rate).
"""

from __future__ import annotations

from evalcore.findings.analyses import (
    JUDGE_ROUNDS,
    PLAN_EDGES,
    Analyses,
    Cache,
    ranking_key,
    run_analyses,
)
from evalcore.findings.anchors import PLANNING_EDGE, anchor_finding
from evalcore.findings.calibration import correction_finding
from evalcore.findings.finding import (
    METHOD_SECTIONS,
    PAGES,
    TILE_LABELS,
    TITLES,
    Finding,
    Findings,
    Tile,
    fmt_tau,
)
from evalcore.findings.judge import (
    LARGE_POSITION_BIAS,
    STUDY_HUMAN_POSITION,
    STUDY_POSITION_RANGE,
    judge_finding,
)
from evalcore.findings.ranking import leader_finding, separation_finding, time_lines

__all__ = [
    "JUDGE_ROUNDS",
    "LARGE_POSITION_BIAS",
    "METHOD_SECTIONS",
    "PAGES",
    "PLANNING_EDGE",
    "PLAN_EDGES",
    "STUDY_HUMAN_POSITION",
    "STUDY_POSITION_RANGE",
    "TILE_LABELS",
    "TITLES",
    "Analyses",
    "time_lines",
    "Cache",
    "Finding",
    "Findings",
    "Tile",
    "anchor_finding",
    "correction_finding",
    "fmt_tau",
    "headline_findings",
    "judge_finding",
    "leader_finding",
    "ranking_key",
    "run_analyses",
    "separation_finding",
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
