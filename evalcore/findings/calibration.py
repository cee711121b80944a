"""The calibration finding: whether the leader's win rate can be corrected with human labels."""

from __future__ import annotations

from typing import Any

from evalcore import quantities as q
from evalcore.findings.analyses import Analyses
from evalcore.findings.finding import TILE_LABELS, Finding, make_finding, unavailable_finding
from evalcore.present.display import Metric
from evalcore.text import fmt_pct


def correction_finding(analyses: Analyses) -> Finding:
    """Whether the leader's win rate against the runner-up can be corrected with human labels."""
    cal = analyses.calibration
    if cal is None:
        return unavailable_finding(
            "correction", analyses.unavailable.get("correction", "There is no pair of models to calibrate.")
        )
    c = cal.counts
    who = f"{cal.candidate} against {cal.baseline or 'all opponents'}"
    definition = (
        "Printed win rate: wins plus half the ties, over the judged pairs, with a Wilson interval."
        " Corrected: the share a human would call a win (ties are not wins), from the "
        'judge\'s sensitivity and specificity for "candidate wins" on the human-labelled rows '
        "(Rogan & Gladen 1978), with the Lang–Reiczigel 95% interval; the method is on the Methods "
        "page. Refused when the floor, the narrowest interval any number of judged "
        f"pairs could give, is wider than ±{100 * cal.max_floor:.0f} percentage points (Lang & Reiczigel 2014 interval)."
    )
    numbers: dict[str, Any] = {
        **{k: getattr(cal, k) for k in ("candidate", "baseline", "printed", "printed_low", "printed_high")},
        **{k: getattr(c, k) for k in ("n_judged", "n_labelled")},
        **{k: getattr(cal, k) for k in ("se", "sp", "youden_j", "floor", "refused")},
        **{k: getattr(cal, k) for k in ("corrected", "lr_low", "lr_high")},
    }
    text = (
        f"The judge prints a win rate of {fmt_pct(cal.printed, 1)} for {who} (95% "
        f"{fmt_pct(cal.printed_low, 1)}–{fmt_pct(cal.printed_high, 1)}, {c.n_judged:,} judged "
        "pairs). A judge's win rate is compressed toward 50%, and only human labels can undo it."
    )
    if cal.refused:
        text += f" Here it cannot be corrected: {cal.refusal_reason}."
        if c.n_se and c.n_sp:
            text += (
                f" (Sensitivity {q.format('sensitivity', cal.se)}, specificity "
                f"{q.format('specificity', cal.sp)} on these labelled pairs.)"
            )
        status, value = "caution", "No"
    else:
        text += (
            f" With {c.n_labelled:,} human-labelled pairs (sensitivity {q.format('sensitivity', cal.se)}, "
            f"specificity {q.format('specificity', cal.sp)}, "
            f"Youden's J {cal.youden_j:.2f}) the corrected rate is {fmt_pct(cal.corrected, 1)} "
            f"(Lang–Reiczigel 95% {fmt_pct(cal.lr_low, 1)}–{fmt_pct(cal.lr_high, 1)}); no "
            f"number of judged pairs could narrow it below ±{100 * cal.floor:.1f} percentage points with "
            "these labels."
        )
        status, value = "clear", "Yes"
    if cal.transfer_warning:
        text += " " + cal.transfer_warning
    # one decimal, as the Calibration page prints the same floor
    floor = q.format("correction_floor", 100 * cal.floor)
    note = f"floor {floor}" if cal.refused else f"corrected {q.format('corrected_win_rate', cal.corrected)}"
    if cal.refused and not (c.n_se and c.n_sp):
        note = f"{c.n_labelled:,} labelled pairs"
    tiles = (Metric(TILE_LABELS["correction"], value, note),)
    return make_finding("correction", status, tiles, text, definition, numbers)
