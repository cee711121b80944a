"""Anchor informativeness I(p, A), its 3-level ceiling and the win-rate distribution.

Informativeness (Don-Yehiya et al. 2026, §4.3): over instructions i and unordered pairs {a, b} of
models other than the anchor A, the share with v(i, a) ≠ v(i, b), where v(i, m) is model m's
verdict against A on the judge's full scale, read from m's point of view. Verdicts are compared
**within one slot order**: on a table judged in both orders, model a's verdict with a in the first
slot is compared with b's verdict with b in the first slot, and likewise for the second slot; the
two orders' pairs are added up. (Averaging a model's two calls first would turn the five levels
into nine and count position noise as information, lifting informativeness above what one call
can carry.) Repeated calls in the same order count with their mean, compared exactly as fractions.
A pair counts only on instructions where both models have a verdict against A in that order.

The **3-level ceiling**: with verdicts that are wins or losses decided by a strict strength order
(no ties with the anchor), an instruction splits the M other models into those above and those
below the anchor, so at most ⌊M/2⌋·⌈M/2⌉ of the C(M, 2) pairs differ (0.524 for M = 21, → 0.5 as
M grows; the paper's bound 0.5). Ties with the anchor make a third group and lift the ceiling to
C(M, 2) − Σ_g C(n_g, 2) with three near-equal groups (0.7 for M = 21); 5-level verdicts lift it
further. Because the comparison is per order, the ceiling applies to the same single-call verdicts.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

import numpy as np
import pandas as pd

from evalcore.anchors.common import check_anchor
from evalcore.counts import VerdictCounts
from evalcore.errors import DesignError, check_int
from evalcore.stats.against import (
    AgainstVerdicts,
    disagreement_totals,
    disagreements_per_instruction,
    max_models_per_instruction,
    verdicts_against,
)


def one_battle_per_prompt(anchor: str, what: str) -> DesignError:
    return DesignError(
        f"{what} needs several models judged against {anchor} on the same instruction; here no "
        "instruction has more than one model judged against it (as in an arena table, where "
        "each prompt has its own battle). Win rates against it still apply."
    )


def informativeness_counts(against: AgainstVerdicts, anchors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(differing, comparable) (instruction, pair) cases per anchor index in ``anchors``."""
    differ = np.zeros(len(anchors), dtype=np.int64)
    pairs = np.zeros(len(anchors), dtype=np.int64)
    for j, a in enumerate(anchors):  # one sparse pass per anchor: cost ∝ its entries
        differ[j], pairs[j] = disagreement_totals(against.of(int(a)))
    return differ, pairs


def anchor_informativeness(counts: VerdictCounts, anchor: str, *, per_order: bool = True) -> float:
    """I(p, A) of one anchor on the judge's full verdict scale, compared within slot orders.

    Parameters
    ----------
    counts : VerdictCounts
        The sparse counts of one judge.
    anchor : str
        The anchor model.
    per_order : bool, default True
        Compare within slot orders (the paper's unit: (instruction, pair, order) cases). False:
        compare each model's mean verdict on the instruction over all its calls, once per
        (instruction, pair), the unit of the sign test's discordant instructions
        (:func:`evalcore.power.detectable_edges`), so a headline N × I and the pairs' own
        informativeness are the same quantity.

    Returns
    -------
    float
        The share of (instruction, model pair, order) cases (``per_order=False``: (instruction,
        model pair) cases), anchor excluded, whose verdicts against the anchor differ.

    Raises
    ------
    DesignError
        When no instruction has two models judged against the anchor (one battle per prompt).

    References
    ----------
    Don-Yehiya, Yehudai, Choshen and Abend, "Mediocrity is the key for LLM as a Judge Anchor
    Selection", ACL 2026, §4.3.

    Examples
    --------
    >>> c = VerdictCounts.from_cells(models=("x", "m1", "m2"), instructions=("q",), judge=None,
    ...     inst=[0, 0], a=[1, 2], b=[0, 0], n=[[0, 0, 0, 1, 0], [0, 1, 0, 0, 0]])
    >>> anchor_informativeness(c, "x")  # m1 beats the anchor, m2 loses: the one pair differs
    1.0
    """
    x = check_anchor(counts, anchor)
    entries = verdicts_against(counts, only=x).of(x)
    if max_models_per_instruction(entries) < 2:
        raise one_battle_per_prompt(anchor, "Informativeness")
    d, p = disagreement_totals(entries, per_order=per_order)
    return float(d / p) if p else float("nan")


def informativeness_ceiling(n_competitors: int, *, ties: bool = False) -> float:
    """The largest I(p, A) that 3-level verdicts following a strict order can reach.

    Parameters
    ----------
    n_competitors : int
        M, the number of models ranked against the anchor.
    ties : bool
        Allow ties with the anchor (a third group of models level with it).

    Returns
    -------
    float
        ⌊M/2⌋·⌈M/2⌉ / C(M, 2) without ties; C(M, 2) minus the same-verdict pairs of three
        near-equal groups, over C(M, 2), with ties. NaN below two competitors.

    References
    ----------
    Don-Yehiya et al., "Mediocrity is the key for LLM as a Judge Anchor Selection", ACL 2026,
    §4.3 (the bound 0.5 for 3-level transitive verdicts).

    Examples
    --------
    >>> round(informativeness_ceiling(21), 4), round(informativeness_ceiling(21, ties=True), 4)
    (0.5238, 0.7)
    """
    m = check_int("n_competitors", n_competitors, low=0)
    if m < 2:
        return float("nan")
    if not ties:
        return (m // 2) * (m - m // 2) / comb(m, 2)
    groups = [m // 3 + (1 if k < m % 3 else 0) for k in range(3)]
    return (comb(m, 2) - sum(comb(g, 2) for g in groups)) / comb(m, 2)


@dataclass(frozen=True)
class WinRateDistribution:
    """For each instruction, how many models beat the anchor (mean verdict > 0, model's view).

    ``per_instruction``: instruction_id, models_judged, models_beating_anchor, models_losing,
    identical (every judged model got the same verdict: no signal at any scale).
    ``histogram``: models_beating_anchor, instructions. ``anchor_beats_all``: instructions on
    which every judged model lost to the anchor; ``all_beat_anchor`` the reverse;
    ``no_signal``: instructions with identical verdicts for every model.
    """

    anchor: str
    n_competitors: int
    n_instructions: int
    per_instruction: pd.DataFrame
    histogram: pd.DataFrame
    anchor_beats_all: int
    all_beat_anchor: int
    no_signal: int

    def __repr__(self) -> str:
        return (
            f"WinRateDistribution(anchor={self.anchor!r}, {self.n_instructions:,} "
            f"instructions, anchor_beats_all={self.anchor_beats_all})"
        )

    @property
    def sentence(self) -> str:
        return (
            f"{self.anchor} beats every model on {self.anchor_beats_all:,} of "
            f"{self.n_instructions:,} instructions: at the win/tie/loss level those "
            "comparisons carry no ranking signal."
        )

    def as_dict(self) -> dict:
        return {
            "anchor": self.anchor,
            "n_competitors": self.n_competitors,
            "n_instructions": self.n_instructions,
            "anchor_beats_all": self.anchor_beats_all,
            "all_beat_anchor": self.all_beat_anchor,
            "no_signal": self.no_signal,
            "histogram": self.histogram.to_dict(orient="records"),
        }


def win_rate_distribution(counts: VerdictCounts, anchor: str) -> WinRateDistribution:
    """Per instruction, the number of models that beat ``anchor``: Σ_j 1[v(i, j) > 0].

    v(i, j) is model j's mean verdict against the anchor on instruction i (all its calls).

    Parameters
    ----------
    counts : VerdictCounts
        The sparse counts of one judge.
    anchor : str
        The anchor model.

    Returns
    -------
    WinRateDistribution

    Raises
    ------
    DesignError
        When no instruction has two models judged against the anchor.

    References
    ----------
    Don-Yehiya et al., "Mediocrity is the key for LLM as a Judge Anchor Selection", ACL 2026,
    §4.2 (Fig. 2).

    Examples
    --------
    >>> c = VerdictCounts.from_cells(models=("x", "m1", "m2"), instructions=("q",), judge=None,
    ...     inst=[0, 0], a=[1, 2], b=[0, 0], n=[[0, 0, 0, 1, 0], [0, 1, 0, 0, 0]])
    >>> win_rate_distribution(c, "x").histogram["instructions"].tolist()
    [0, 1, 0]
    """
    x = check_anchor(counts, anchor)
    entries = verdicts_against(counts, only=x).of(x)
    if max_models_per_instruction(entries) < 2:
        raise one_battle_per_prompt(anchor, "The per-instruction win-rate distribution")
    e = entries.pooled_orders()
    n_inst = counts.n_instructions
    judged = np.bincount(e.inst, minlength=n_inst)
    beating = np.bincount(e.inst[e.total > 0], minlength=n_inst)
    losing = np.bincount(e.inst[e.total < 0], minlength=n_inst)
    d, _ = disagreements_per_instruction(entries, per_order=False)
    keep = judged >= 1
    per = pd.DataFrame(
        {
            "instruction_id": np.asarray(counts.instructions, dtype=object)[keep],
            "models_judged": judged[keep],
            "models_beating_anchor": beating[keep],
            "models_losing": losing[keep],
            "identical": (d == 0)[keep] & (judged[keep] >= 2),
        }
    )
    n_comp = int(np.unique(e.model).size)
    hist = (
        per["models_beating_anchor"]
        .value_counts()
        .reindex(range(n_comp + 1), fill_value=0)
        .rename_axis("models_beating_anchor")
        .reset_index(name="instructions")
    )
    return WinRateDistribution(
        anchor=anchor,
        n_competitors=n_comp,
        n_instructions=int(keep.sum()),
        per_instruction=per,
        histogram=hist,
        anchor_beats_all=int((per["models_losing"] == per["models_judged"]).sum()),
        all_beat_anchor=int((per["models_beating_anchor"] == per["models_judged"]).sum()),
        no_signal=int(per["identical"].sum()),
    )
