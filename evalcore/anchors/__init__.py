"""Anchor selection: per-anchor rankings, informativeness, win-rate distributions, pilot
screening and sweeps (Don-Yehiya, Yehudai, Choshen and Abend, "Mediocrity is the key for LLM as a
Judge Anchor Selection", ACL 2026, §4–§6 and App. B–F).

Modules by concept:

- :mod:`~evalcore.anchors.informativeness` — I(p, A), its 3-level ceiling, the win-rate
  distribution per instruction;
- :mod:`~evalcore.anchors.tau` — per-anchor rankings, Kendall's tau with the all-pairs and human
  rankings (the inverted U), anchor effect beside judge effect;
- :mod:`~evalcore.anchors.one_anchor` — one anchor's ranking beside the all-pairs and human
  rankings (all an anchor-only table can show);
- :mod:`~evalcore.anchors.stability` — how often each anchor is the most informative across
  instruction resamples, with intervals for tau and informativeness;
- :mod:`~evalcore.anchors.pilot` — screening anchors on a few instructions;
- :mod:`~evalcore.anchors.sweep` — tau against the number of instructions and of anchors.

The planner and the sign test live in :mod:`evalcore.power` (re-exported here for old imports);
the verdicts against a reference both packages read live in :mod:`evalcore.stats.against`, so
neither package imports the other's internals. Every analysis reads the sparse counts; none
builds an instructions × models × models tensor.
"""

from evalcore.anchors.common import NeedsAllPairs
from evalcore.anchors.informativeness import (
    WinRateDistribution,
    anchor_informativeness,
    informativeness_ceiling,
    win_rate_distribution,
)
from evalcore.anchors.one_anchor import AnchorRanking, anchor_ranking
from evalcore.anchors.pilot import PilotScreening, pilot_screening
from evalcore.anchors.stability import AnchorStability, anchor_stability
from evalcore.anchors.sweep import (
    ALL_PAIRS,
    RENAMED_REFERENCES,
    AnchorCountSweep,
    SampleSizeSweep,
    anchor_count_sweep,
    default_sizes,
    sample_size_sweep,
)
from evalcore.anchors.tau import AnchorSweep, JudgeEffect, anchor_sweep, anchor_vs_judge, starting_anchor
from evalcore.power.planner import EvaluationPlan, decisive_rate, plan_evaluation
from evalcore.stats.against import orders_per_pair, verdicts_against
from evalcore.stats.kendall import kendall_tau

__all__ = [
    "ALL_PAIRS",
    "RENAMED_REFERENCES",
    "AnchorCountSweep",
    "AnchorRanking",
    "AnchorStability",
    "AnchorSweep",
    "EvaluationPlan",
    "JudgeEffect",
    "NeedsAllPairs",
    "PilotScreening",
    "SampleSizeSweep",
    "WinRateDistribution",
    "anchor_count_sweep",
    "anchor_informativeness",
    "anchor_ranking",
    "anchor_stability",
    "anchor_sweep",
    "anchor_vs_judge",
    "decisive_rate",
    "default_sizes",
    "informativeness_ceiling",
    "kendall_tau",
    "orders_per_pair",
    "pilot_screening",
    "plan_evaluation",
    "sample_size_sweep",
    "starting_anchor",
    "verdicts_against",
    "win_rate_distribution",
]
