"""The evaluation planner: which design to judge (all pairs, an anchor, pairs of interest) and
how many instructions it needs.

The decision tree is the paper's §6 (Fig. 5): a natural anchor → use it (conclusions only against
it); no natural anchor and at most three models → all pairs; four or more models without the need
for a full ranking → judge only the pairs of interest; a full ranking → avoid anchors when all
pairs are affordable, else a chosen mid-ranked anchor screened by a pilot. Sample sizes come from
the sign test (:mod:`evalcore.power.sign_test`), divided by the informative share (Don-Yehiya,
Yehudai, Choshen and Abend, "Mediocrity is the key for LLM as a Judge Anchor Selection", ACL 2026,
§4.3, §6).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

import numpy as np
import pandas as pd

from evalcore.counts import VerdictCounts
from evalcore.errors import UsageError, check_int
from evalcore.power.sign_test import sign_test_sample_size, total_samples
from evalcore.schema import LEVELS


@dataclass(frozen=True)
class EvaluationPlan:
    """The design the decision tree of the paper's §6 (Fig. 5) recommends, and every design's cost.

    ``options``: design, calls_per_instruction, instructions_needed, calls_needed,
    instructions_planned, calls_planned, fits_budget, note. ``discordant`` is the sign test's
    number of discordant samples for the edge; ``instructions_needed`` inflates it by the share
    of informative cases (N_total = N / I, §4.3).
    """

    recommendation: str
    reasons: tuple[str, ...]
    options: pd.DataFrame
    discordant: int
    edge: float
    alpha: float
    power: float
    sentence: str
    warnings: tuple[str, ...]

    def __repr__(self) -> str:
        return (
            f"EvaluationPlan(recommendation={self.recommendation!r}, "
            f"discordant={self.discordant}, edge={self.edge:g})"
        )

    def as_dict(self) -> dict:
        return {
            "recommendation": self.recommendation,
            "reasons": list(self.reasons),
            "discordant": self.discordant,
            "edge": self.edge,
            "alpha": self.alpha,
            "power": self.power,
            "sentence": self.sentence,
            "warnings": list(self.warnings),
            "options": self.options.to_dict(orient="records"),
        }


def decisive_rate(counts: VerdictCounts) -> float:
    """Share of calls with a non-tie verdict: the informative share of direct comparisons.

    Examples
    --------
    >>> c = VerdictCounts.from_cells(models=("a", "b"), instructions=("q",), judge=None,
    ...     inst=[0], a=[0], b=[1], n=[[0, 1, 1, 2, 0]])
    >>> decisive_rate(c)
    0.75
    """
    c = counts.n.sum(axis=0, dtype=np.int64).astype(np.float64)
    return float(1.0 - c[LEVELS.index(0)] / c.sum()) if c.sum() else float("nan")


def plan_evaluation(  # noqa: C901 - one branch per design (all pairs, anchor-only, arena)
    n_models: int,
    *,
    natural_anchor: bool = False,
    full_ranking: bool = True,
    budget: int | None = None,
    n_instructions: int | None = None,
    anchor: str | None = None,
    informativeness: float | None = None,
    direct_decisive_rate: float | None = None,
    pairs_of_interest: int | None = None,
    orders: int = 1,
    edge: float = 0.05,
    alpha: float = 0.05,
    power: float = 0.8,
) -> EvaluationPlan:
    """Recommend all pairs, the natural anchor, a chosen anchor or only the pairs of interest.

    The paper's §6 (Fig. 5): a natural anchor → use it (conclusions only against it); no natural
    anchor and at most three models → all pairs (3N calls, the cost of an external anchor);
    four or more models without the need for a full ranking → judge only the pairs of interest;
    a full ranking → avoid anchors when all pairs are affordable (within ``budget``), else a
    chosen mid-ranked anchor screened by a pilot, reported with its informativeness.
    Sample sizes: :func:`evalcore.power.sign_test_sample_size` (discordant samples, one-sided)
    and :func:`evalcore.power.total_samples` (÷ informativeness for an anchor, ÷ the decisive rate
    for direct pairs).

    Parameters
    ----------
    n_models : int
        Models to evaluate (at least 2).
    natural_anchor, full_ranking : bool
        Whether a natural anchor exists; whether a full ranking is needed.
    budget, n_instructions, pairs_of_interest : int, optional
        Judge calls available; instructions planned; comparisons of interest.
    anchor : str, optional
        The chosen anchor's name (for the sentence).
    informativeness : float, optional
        The chosen anchor's informativeness in (0, 1], compared within one slot order
        (:func:`evalcore.anchors.anchor_informativeness`), e.g. from a pilot.
    direct_decisive_rate : float, optional
        Share of non-tie verdicts of direct comparisons (:func:`decisive_rate`).
    orders : {1, 2}
        Slot orders judged per pair.
    edge, alpha, power : float
        The sign test's design.

    Returns
    -------
    EvaluationPlan

    References
    ----------
    Don-Yehiya et al., "Mediocrity is the key for LLM as a Judge Anchor Selection", ACL 2026,
    §4.3, §6 (Fig. 5).

    Examples
    --------
    >>> plan_evaluation(22, budget=10_000, informativeness=0.54).recommendation
    'chosen anchor'
    >>> plan_evaluation(3).recommendation
    'all pairs'
    """
    n_models = check_int("n_models", n_models, low=2)
    orders = check_int("orders", orders, low=1, high=2)
    if budget is not None:
        budget = check_int("budget", budget, low=1)
    if n_instructions is not None:
        n_instructions = check_int("n_instructions", n_instructions, low=1)
    if pairs_of_interest is not None:
        pairs_of_interest = check_int("pairs_of_interest", pairs_of_interest, low=1)
    for name, value in (("informativeness", informativeness), ("direct_decisive_rate", direct_decisive_rate)):
        if value is not None and not (0.0 < value <= 1.0):
            raise UsageError(f"{name} must lie in (0, 1], not {value!r}.")
    discordant = int(sign_test_sample_size(edge, alpha=alpha, power=power))
    warnings: list[str] = []

    def needed(share: float | None) -> int:
        return int(total_samples(discordant, share)) if share is not None else discordant

    direct_note = (
        "divided by the decisive (non-tie) rate of direct comparisons"
        if direct_decisive_rate
        else "assumes every direct comparison is decisive: ties raise it"
    )
    m = int(n_models)
    rows = [
        ("all pairs", comb(m, 2), needed(direct_decisive_rate), direct_note),
        (
            "natural anchor",
            m - 1,
            needed(direct_decisive_rate),
            "each model against the natural anchor; no conclusions about other pairs",
        ),
        (
            "chosen anchor",
            m - 1,
            needed(informativeness),
            (
                "divided by the anchor's informativeness"
                if informativeness
                else "informativeness unknown: run the pilot; the total is the discordant samples divided by the informativeness"
            ),
        ),
    ]
    if pairs_of_interest:
        rows.append(
            (
                "pairs of interest",
                int(pairs_of_interest),
                needed(direct_decisive_rate),
                "only the comparisons the study needs; no full ranking",
            )
        )
    options = pd.DataFrame(rows, columns=["design", "calls_per_instruction", "instructions_needed", "note"])
    options["calls_per_instruction"] *= orders
    options["calls_needed"] = options["calls_per_instruction"] * options["instructions_needed"]
    if n_instructions:
        options["instructions_planned"] = int(n_instructions)
        options["calls_planned"] = options["calls_per_instruction"] * int(n_instructions)
        cost = options["calls_planned"]
    else:
        options["instructions_planned"] = pd.array([pd.NA] * len(options), dtype="Int64")
        options["calls_planned"] = pd.array([pd.NA] * len(options), dtype="Int64")
        cost = options["calls_needed"]
    options["fits_budget"] = (cost <= budget) if budget is not None else pd.NA
    options = options[
        [
            "design",
            "calls_per_instruction",
            "instructions_needed",
            "calls_needed",
            "instructions_planned",
            "calls_planned",
            "fits_budget",
            "note",
        ]
    ]

    def fits(design: str) -> bool:
        return budget is None or bool(options.loc[options["design"] == design, "fits_budget"].iloc[0])

    reasons: list[str] = []
    if natural_anchor:
        choice = "natural anchor"
        reasons.append(
            "A natural anchor exists (e.g. the method a new one improves on): compare "
            "every model with it and draw no conclusions about other pairs."
        )
    elif m <= 3:
        choice = "all pairs"
        reasons.append(
            f"With {m} models all pairs cost {comb(m, 2)} calls per instruction, no "
            f"more than the {m} of an external anchor."
        )
    elif not full_ranking:
        choice = "pairs of interest"
        reasons.append(
            "No full ranking is needed: judge only the comparisons of interest and "
            "report their win rates, not absolute scores."
        )
        if not pairs_of_interest:
            warnings.append("Give the number of pairs of interest to cost this design.")
    elif budget is not None and fits("all pairs"):
        choice = "all pairs"
        reasons.append(
            "A full ranking is needed and the budget covers all pairs: avoid anchors "
            "when possible (an anchor caps informativeness)."
        )
    else:
        choice = "chosen anchor"
        reasons.append(
            "A full ranking of four or more models is needed"
            + (" and all pairs exceed the budget" if budget is not None else "")
            + ": choose a mid-ranked anchor, confirm its informativeness on a pilot of "
            "about 10 instructions, and report it."
        )
    if budget is not None and choice in set(options["design"]) and not fits(choice):
        warnings.append(
            f"The budget of {budget:,} judge calls does not cover the recommended "
            "design at the sample size shown: judge fewer instructions and accept a "
            "larger detectable edge, or raise the budget."
        )
    if n_instructions and choice in set(options["design"]):
        need = int(options.loc[options["design"] == choice, "instructions_needed"].iloc[0])
        if n_instructions < need:
            warnings.append(
                f"{n_instructions:,} instructions are fewer than the {need:,} needed "
                f"to detect a +{edge:.0%} edge at {power:.0%} power (at the {alpha:.0%} level)."
            )
    n_used = (
        int(n_instructions)
        if n_instructions
        else int(
            options.loc[options["design"] == choice, "instructions_needed"].iloc[0]
            if choice in set(options["design"])
            else discordant
        )
    )
    calls_used = (
        int(options.loc[options["design"] == choice, "calls_per_instruction"].iloc[0]) * n_used
        if choice in set(options["design"])
        else 0
    )
    if choice == "chosen anchor":
        name = anchor or "the chosen anchor"
        info = (
            f"informativeness {informativeness:.1%}"
            if informativeness
            else "informativeness: measure it with a pilot"
        )
        sentence = (
            f"Anchor-based evaluation against {name}, {info} (the share of instruction × "
            f"model-pair cases whose verdicts against the anchor differ, within one slot order); "
            f"{n_used:,} instructions, {calls_used:,} judge calls."
        )
    elif choice == "natural anchor":
        sentence = (
            f"Every model compared with the natural anchor{' ' + anchor if anchor else ''} "
            f"on {n_used:,} instructions ({calls_used:,} judge calls); no conclusions "
            "are drawn about other pairs."
        )
    elif choice == "all pairs":
        sentence = (
            f"All {comb(m, 2)} pairs of the {m} models judged on {n_used:,} instructions "
            f"({calls_used:,} judge calls), ranked with Bradley–Terry."
        )
    else:
        sentence = (
            f"Only the pairs of interest judged on {n_used:,} instructions; win rates are reported per pair."
        )
    return EvaluationPlan(
        recommendation=choice,
        reasons=tuple(reasons),
        options=options,
        discordant=discordant,
        edge=edge,
        alpha=alpha,
        power=power,
        sentence=sentence,
        warnings=tuple(warnings),
    )
