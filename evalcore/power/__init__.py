"""Power: how many samples separate two models, what the loaded data can separate, and which
design to judge (Don-Yehiya, Yehudai, Choshen and Abend, "Mediocrity is the key for LLM as a Judge
Anchor Selection", ACL 2026, §4.3, §6, Table 2, App. C and Listing 1).

Modules by concept:

- :mod:`~evalcore.power.sign_test` — the sign test's sample size, power, detectable edge and the
  total samples at an informativeness (Table 2);
- :mod:`~evalcore.power.differences` — verdict differences between two models (against an anchor
  or head-to-head) and their empirical distributions;
- :mod:`~evalcore.power.simulation` — Wilcoxon signed-rank and sign-test power by simulation;
- :mod:`~evalcore.power.edges` — what this dataset can detect, per adjacent leaderboard pair;
- :mod:`~evalcore.power.planner` — the decision tree of §6 with each design's cost.

This package never imports :mod:`evalcore.anchors`; both read verdicts against a reference from
:mod:`evalcore.stats.against`.
"""

from evalcore.power.differences import (
    DifferenceDistributions,
    anchor_verdicts,
    difference_distributions,
    pair_differences,
    verdict_differences,
)
from evalcore.power.edges import DetectableEdges, detectable_edges
from evalcore.power.planner import EvaluationPlan, decisive_rate, plan_evaluation
from evalcore.power.sign_test import (
    METHODS,
    PAPER_INFORMATIVENESS,
    SampleSizePlan,
    check_design,
    minimum_detectable_edge,
    paper_table,
    sample_size_plan,
    sign_test_power,
    sign_test_sample_size,
    total_samples,
)
from evalcore.power.simulation import PowerCurve, sign_z, signed_rank_z, wilcoxon_power

__all__ = [
    "METHODS",
    "PAPER_INFORMATIVENESS",
    "DetectableEdges",
    "DifferenceDistributions",
    "EvaluationPlan",
    "PowerCurve",
    "SampleSizePlan",
    "anchor_verdicts",
    "check_design",
    "decisive_rate",
    "detectable_edges",
    "difference_distributions",
    "minimum_detectable_edge",
    "pair_differences",
    "paper_table",
    "plan_evaluation",
    "sample_size_plan",
    "sign_test_power",
    "sign_test_sample_size",
    "sign_z",
    "signed_rank_z",
    "total_samples",
    "verdict_differences",
    "wilcoxon_power",
]
