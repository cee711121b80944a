"""Tie structure of a judge's output: how many levels it really uses, and how often a selector
must break a tie at random.

- :mod:`evalcore.ties.levels`: tie probability Σp², Rényi effective levels D1 and D2, distinct
  values (``level_stats``), and how a verdict level becomes a share (``level_weights``).
- :mod:`evalcore.ties.within`: the within-instruction kernel, top ties T and rank agreement with a
  reference (τa, τb, Somers' D, top-1).
- :mod:`evalcore.ties.pairwise`: a pairwise judge on sparse counts (``verdict_tie_structure``,
  ``labelled_counts``).
- :mod:`evalcore.ties.pointwise`: pointwise score tables per format and judge.
- :mod:`evalcore.ties.variance`: format versus judge variance shares.
- :mod:`evalcore.ties.both_bad`: the share of ties that say both answers were bad
  (``both_bad_share``; Chatbot Arena's "tie (bothbad)").
- :mod:`evalcore.ties.davidson` and :mod:`evalcore.ties.conventions`: ties as data, Davidson's
  tie model and the ranking under three tie conventions (``tie_conventions``).

References
----------
"The Format is the Filter: Scoring Format Fixes What an LLM Judge Can Express" (2025).
Rényi, A. (1961). On measures of entropy and information. *Proc. Fourth Berkeley Symposium*.
Kendall, M. G. (1945). The treatment of ties in ranking problems. *Biometrika* 33(3).
Davidson, R. R. (1970). On extending the Bradley–Terry model to accommodate ties in paired
comparison experiments. *Journal of the American Statistical Association* 65(329).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from evalcore import lazy_face

# The names below are imported on first use (the Data page reads only ``both_bad_share``; the
# rest loads SciPy): importing one module of this package does not load the others.
_EXPORTS = {
    "BothBadShare": "evalcore.ties.both_bad",
    "both_bad_share": "evalcore.ties.both_bad",
    "ConventionShift": "evalcore.ties.conventions",
    "TieConventions": "evalcore.ties.conventions",
    "tie_conventions": "evalcore.ties.conventions",
    "LEVEL_LABELS": "evalcore.ties.levels",
    "SCORE_DECIMALS": "evalcore.ties.levels",
    "SCORE_RULES": "evalcore.ties.levels",
    "LevelStats": "evalcore.ties.levels",
    "level_stats": "evalcore.ties.levels",
    "level_weights": "evalcore.ties.levels",
    "renyi_effective_levels": "evalcore.ties.levels",
    "JudgeTies": "evalcore.ties.pairwise",
    "LabelledPairs": "evalcore.ties.pairwise",
    "ScoreEntries": "evalcore.ties.pairwise",
    "VerdictTieStructure": "evalcore.ties.pairwise",
    "instruction_mean": "evalcore.ties.pairwise",
    "instruction_scores": "evalcore.ties.pairwise",
    "judge_ties": "evalcore.ties.pairwise",
    "labelled_counts": "evalcore.ties.pairwise",
    "score_entries": "evalcore.ties.pairwise",
    "verdict_tie_structure": "evalcore.ties.pairwise",
    "AGREEMENT_COLUMNS": "evalcore.ties.pointwise",
    "STRUCTURE_COLUMNS": "evalcore.ties.pointwise",
    "pointwise_levels": "evalcore.ties.pointwise",
    "pointwise_tie_structure": "evalcore.ties.pointwise",
    "SHARE_DIAGNOSTICS": "evalcore.ties.variance",
    "VarianceShares": "evalcore.ties.variance",
    "leave_one_judge_out": "evalcore.ties.variance",
    "variance_shares": "evalcore.ties.variance",
    "Agreement": "evalcore.ties.within",
    "summarise_agreement": "evalcore.ties.within",
    "within_instruction": "evalcore.ties.within",
}

if TYPE_CHECKING:
    from evalcore.ties.both_bad import BothBadShare, both_bad_share
    from evalcore.ties.conventions import ConventionShift, TieConventions, tie_conventions
    from evalcore.ties.levels import (
        LEVEL_LABELS,
        SCORE_DECIMALS,
        SCORE_RULES,
        LevelStats,
        level_stats,
        level_weights,
        renyi_effective_levels,
    )
    from evalcore.ties.pairwise import (
        JudgeTies,
        LabelledPairs,
        ScoreEntries,
        VerdictTieStructure,
        instruction_mean,
        instruction_scores,
        judge_ties,
        labelled_counts,
        score_entries,
        verdict_tie_structure,
    )
    from evalcore.ties.pointwise import (
        AGREEMENT_COLUMNS,
        STRUCTURE_COLUMNS,
        pointwise_levels,
        pointwise_tie_structure,
    )
    from evalcore.ties.variance import (
        SHARE_DIAGNOSTICS,
        VarianceShares,
        leave_one_judge_out,
        variance_shares,
    )
    from evalcore.ties.within import Agreement, summarise_agreement, within_instruction

__all__ = [
    "BothBadShare",
    "both_bad_share",
    "ConventionShift",
    "TieConventions",
    "tie_conventions",
    "JudgeTies",
    "judge_ties",
    "AGREEMENT_COLUMNS",
    "LEVEL_LABELS",
    "SCORE_DECIMALS",
    "SCORE_RULES",
    "SHARE_DIAGNOSTICS",
    "STRUCTURE_COLUMNS",
    "Agreement",
    "LabelledPairs",
    "LevelStats",
    "ScoreEntries",
    "VarianceShares",
    "VerdictTieStructure",
    "instruction_mean",
    "instruction_scores",
    "labelled_counts",
    "leave_one_judge_out",
    "level_stats",
    "level_weights",
    "pointwise_levels",
    "pointwise_tie_structure",
    "renyi_effective_levels",
    "score_entries",
    "summarise_agreement",
    "variance_shares",
    "verdict_tie_structure",
    "within_instruction",
]

__getattr__, __dir__ = lazy_face(__name__, _EXPORTS)
