"""The anchor finding: which anchor to compare against, and what the usual choice costs."""

from __future__ import annotations

import math
from typing import Any

from evalcore import quantities as q
from evalcore.findings.analyses import Analyses
from evalcore.findings.finding import (
    TILE_LABELS,
    Finding,
    cell_number,
    fmt_tau,
    make_finding,
    unavailable_finding,
)
from evalcore.power import sign_test_sample_size, total_samples
from evalcore.present.display import Metric

#: The edge of Don-Yehiya et al.'s (2026) headline sample size (P(better model wins | discordant) = 0.55).
PLANNING_EDGE = 0.05


def _stability(analyses: Analyses, anchor: str) -> tuple[float, int] | None:
    """How often ``anchor`` was the most informative over the instruction resamples, and how
    many resamples; None when the resampling did not run."""
    stability = analyses.anchor_stability
    if stability is None or anchor not in set(stability.table["anchor"]):
        return None
    rate = float(stability.table.set_index("anchor").loc[anchor, "most_informative_rate"])
    return rate, stability.rounds


def _with_humans(tau: float) -> str:
    """The anchor's tau with the human ranking in brackets, or nothing without one."""
    return f" ({tau:.3f} with the human ranking)" if math.isfinite(tau) else ""


def anchor_finding(analyses: Analyses) -> Finding:
    """The recommended anchor and what the usual choice (the strongest model) would cost."""
    sweep = analyses.anchors
    if sweep is None:
        return unavailable_finding("anchor", analyses.unavailable.get("anchor", "No anchor analysis."))
    table = sweep.table.set_index("anchor")
    recommended = sweep.recommended
    if recommended is None:
        return unavailable_finding(
            "anchor", "No model was judged against two or more others: no anchor can be assessed."
        )
    rec = table.loc[recommended]
    discordant = sign_test_sample_size(PLANNING_EDGE)
    tau_name = f"Kendall's tau-{sweep.tau}"
    definition = (
        "Informativeness: the share of (instruction, model pair) cases, the anchor excluded, whose "
        "verdicts against the anchor differ on the judge's full scale (Don-Yehiya et al. 2026). The "
        "recommended anchor is the most informative one (Don-Yehiya et al. 2026). tau: "
        f"{tau_name} between the ranking by win rate against the anchor and the all-pairs "
        "Bradley–Terry ranking (and the human ranking when one is loaded). Instructions needed: "
        f"{discordant} divided by the informativeness and rounded up, the {discordant} differing "
        "instructions a one-sided "
        f"sign test needs for a +{100 * PLANNING_EDGE:.0f}% edge at 80% power (Don-Yehiya et al. 2026). "
        "Stability: the share of bootstrap resamples of the instructions in which the anchor is "
        "the most informative (Efron & Tibshirani 1993)."
    )
    rec_info = cell_number(rec["informativeness"])
    rec_total = total_samples(discordant, rec_info) if rec_info > 0 else math.nan
    numbers: dict[str, Any] = {
        "recommended": recommended,
        "recommended_informativeness": rec_info,
        **{f"recommended_{k}": cell_number(rec[k]) for k in ("tau_all_pairs", "tau_human")},
        "recommended_instructions_needed": rec_total,
        "design": sweep.design,
    }
    tiles = (
        Metric(
            TILE_LABELS["anchor"], recommended, f"informativeness {q.format('informativeness', rec_info)}"
        ),
    )
    if not sweep.has_all_pairs_ranking:
        text = (
            f"Every model here is compared with one anchor, {recommended}: "
            f"{q.format('informativeness', rec_info)} of the (instruction, model pair) cases get different "
            f"verdicts against it, so a +{100 * PLANNING_EDGE:.0f}% edge between two models "
            f"needs about {rec_total:,} instructions. Choosing a better anchor needs an "
            "all-pairs table (every model judged against every other)."
        )
        return make_finding("anchor", "clear", tiles, text, definition, numbers)
    position = int(rec["position"])
    strongest = str(table.index[table["position"] == table["position"].min()][0])
    usual = table.loc[strongest]
    usual_info = cell_number(usual["informativeness"])
    usual_total = total_samples(discordant, usual_info) if usual_info > 0 else math.nan
    numbers.update(
        {
            "recommended_position": position,
            "models": len(sweep.models),
            "usual": strongest,
            "usual_informativeness": usual_info,
            **{f"usual_{k}": cell_number(usual[k]) for k in ("tau_all_pairs", "tau_human")},
            "usual_instructions_needed": usual_total,
        }
    )
    text = (
        f"Compare against {recommended} (number {position} of {len(sweep.models)} in the "
        f"all-pairs ranking): {q.format('informativeness', rec_info)} of the cases get different "
        f"verdicts against it (its informativeness), and ranking the models by their win rate against it agrees with the all-pairs "
        f"ranking at {tau_name} = {fmt_tau(numbers['recommended_tau_all_pairs'])}"
    )
    text += _with_humans(numbers["recommended_tau_human"]) + "."
    stable = _stability(analyses, recommended)
    if stable is not None:
        rate, rounds = stable
        numbers["recommended_most_informative_rate"] = rate
        numbers["stability_resamples"] = rounds
        text += (
            f" It is the most informative anchor in {q.format('anchor_top_share', rate)} of {rounds:,} instruction "
            "resamples"
            + (
                ": the anchors near the top are not separated by these data, and any of them is a "
                "reasonable choice."
                if rate < 0.5
                else "."
            )
        )
        note = (
            f"{q.format('informativeness', rec_info)} informative; top in "
            f"{q.format('anchor_top_share', rate)} of resamples"
        )
        tiles = (Metric(TILE_LABELS["anchor"], recommended, note),)
    caveats = "".join(" " + note for note in sweep.notes)
    if strongest == recommended:
        text += " The usual choice, the strongest model, is the recommended one here." + caveats
        return make_finding("anchor", "clear", tiles, text, definition, numbers)
    if not usual_info > 0:
        text += (
            f" The usual choice, the strongest model {strongest}, gives no informative case: "
            "every model gets the same verdict against it, so it cannot rank them at all."
        )
        costly = True
    else:
        text += (
            f" The usual choice, the strongest model {strongest}, gives {q.format('informativeness', usual_info)} "
            f"informative cases and tau {fmt_tau(numbers['usual_tau_all_pairs'])}"
        )
        text += _with_humans(numbers["usual_tau_human"])
        costly = math.isfinite(rec_total) and usual_total > rec_total
        if costly:
            text += (
                f": to detect a +{100 * PLANNING_EDGE:.0f}% edge it needs about "
                f"{usual_total:,} instructions instead of {rec_total:,} "
                f"({usual_total / rec_total - 1:.0%} more judge calls for the same power)."
            )
        else:
            text += "."
    text += caveats
    status = "caution" if costly else "clear"
    return make_finding("anchor", status, tiles, text, definition, numbers)
