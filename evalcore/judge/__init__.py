"""The judge's spec sheet: position, order swaps, coverage, agreement, length and family biases.

A judge is an instrument with a spec sheet: how much it prefers a slot, how often it contradicts
itself when the answers swap places, how often it fails to answer, how well it agrees with people,
and how it treats length and its own model family. Every analysis here works from the sparse
:class:`~evalcore.counts.VerdictCounts` (or from the store, for what counts cannot hold), so an
arena-sized table never builds an instructions × models × models array.

Modules
-------
both_orders
    The both-orders verdict and the pairing of the two slot orders.
position
    Position bias on slot-balanced pairs, slot balance, tie rates, swap consistency.
order_swap
    The order-swap decomposition (slot bias b, preference q per anchor).
coverage
    Calls without a verdict, self-comparisons.
agreement
    Agreement with human labels, Krippendorff's α, the human ceiling, the compression table.
length
    Length preference curve and length-controlled Bradley–Terry.
self_preference
    A judge's preference for its own model family.
sheet
    The assembled sheet, the side-by-side comparison and its best marks.

References
----------
Zheng, L. et al. (2023). Judging LLM-as-a-Judge with MT-Bench and Chatbot Arena. NeurIPS Datasets
and Benchmarks.
"""

from evalcore.judge._analytic import DEFAULT_INTERVAL, INTERVALS, interval_words
from evalcore.judge.agreement import (
    COMPRESSION_RATES,
    OUTCOMES,
    HumanAgreement,
    cohen_kappa,
    compression_table,
    confusion_matrix,
    human_agreement,
    krippendorff_alpha_nominal,
    labelled_rows,
)
from evalcore.judge.both_orders import (
    BothOrdersSummary,
    PairedVerdicts,
    both_orders_counts,
    both_orders_summary,
    paired_verdicts,
)
from evalcore.judge.comparison import (
    BEST_DIRECTION,
    best_marks,
    compare_judges,
    comparison_table,
    judge_sheets,
)
from evalcore.judge.coverage import Coverage, SelfComparison, coverage, self_comparison
from evalcore.judge.length import (
    LengthControlled,
    fit_length_controlled,
    length_controlled_ranking,
    length_preference_curve,
)
from evalcore.judge.order_swap import OrderSwap, order_swap
from evalcore.judge.position import (
    PositionResult,
    SlotBalance,
    position_and_order_swap,
    position_stats,
    slot_balance,
)
from evalcore.judge.self_preference import read_families, self_preference
from evalcore.judge.sheet import DEFINITIONS, JudgeSheet, judge_sheet
from evalcore.stats.intervals import Estimate

__all__ = [
    "BEST_DIRECTION",
    "COMPRESSION_RATES",
    "DEFAULT_INTERVAL",
    "DEFINITIONS",
    "INTERVALS",
    "OUTCOMES",
    "BothOrdersSummary",
    "Coverage",
    "Estimate",
    "HumanAgreement",
    "JudgeSheet",
    "LengthControlled",
    "OrderSwap",
    "PairedVerdicts",
    "PositionResult",
    "SelfComparison",
    "SlotBalance",
    "best_marks",
    "both_orders_counts",
    "both_orders_summary",
    "cohen_kappa",
    "compare_judges",
    "comparison_table",
    "compression_table",
    "confusion_matrix",
    "coverage",
    "fit_length_controlled",
    "interval_words",
    "human_agreement",
    "judge_sheet",
    "judge_sheets",
    "krippendorff_alpha_nominal",
    "labelled_rows",
    "length_controlled_ranking",
    "length_preference_curve",
    "order_swap",
    "paired_verdicts",
    "position_and_order_swap",
    "position_stats",
    "read_families",
    "self_comparison",
    "self_preference",
    "slot_balance",
]
