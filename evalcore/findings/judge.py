"""The judge finding: its position bias against a published range, its ties and swaps."""

from __future__ import annotations

import math
from typing import cast

from evalcore import quantities as q
from evalcore.findings.analyses import Analyses
from evalcore.findings.finding import (
    TILE_LABELS,
    Finding,
    make_finding,
    unavailable_finding,
)
from evalcore.present.display import Metric
from evalcore.text import fmt_pct

#: First-slot preference (percentage points) of six open-weight judges and of human experts in a
#: 2026 measurement study on the MT-Bench expert votes (docs/methods.md, calibration section).
STUDY_POSITION_RANGE = (0.5, 24.0)
STUDY_HUMAN_POSITION = -0.4
#: A first-slot preference at least this large (percentage points) is flagged: the same study's
#: judges on open crowd traffic ran +11 to +24, against −0.4 for humans.
LARGE_POSITION_BIAS = 10.0


def judge_finding(analyses: Analyses) -> Finding:
    """The judge's position bias, swap consistency, tie rates and coverage."""
    sheet = analyses.judge_sheet
    if sheet is None:
        return unavailable_finding("judge", analyses.unavailable.get("judge", "No judge sheet."))
    s = sheet.scalars()
    # the position bias and its bounds are always floats (NaN when not identified)
    bias, low, high = (cast(float, s[f"position_bias_points{end}"]) for end in ("", "_low", "_high"))
    definition = (
        "Position bias: how much more often the first slot wins than the second, in percentage points, measured "
        "on model pairs judged in both slot orders, each order weighted equally. Swap consistency: the share of pairs judged in both orders whose two verdicts, "
        "read from the same model's side, name the same outcome. Both-orders verdict: the verdict "
        "both orders agree on, else a tie (Zheng et al. 2023, MT-Bench). 95% intervals: "
        f"{sheet.interval_method}."
    )
    side = "first" if bias >= 0 else "second"
    warnings = tuple(getattr(sheet, "design_warnings", ()) or ())
    if not math.isfinite(bias):
        # Not identified by the design (e.g. the reference always in one slot): say why, no number.
        text = (
            f"{analyses.judge}'s slot preference cannot be measured on this table: "
            + (warnings[0] if warnings else "no model pair was judged in both slot orders.")
            + " For scale,"
        )
    elif not (math.isfinite(low) and math.isfinite(high)):
        text = f"{analyses.judge}'s slot preference: {bias:+.1f} percentage points (no interval). For scale,"
    else:
        lead = (
            f"{analyses.judge} shows no clear slot preference: {bias:+.1f} percentage points"
            if low <= 0 <= high
            else f"{analyses.judge} prefers the {side} slot by {abs(bias):.1f} percentage points"
        )
        text = f"{lead} (95% interval {low:+.1f} to {high:+.1f}). For scale,"
    text += (
        " a 2026 measurement study of six open-weight judges on the MT-Bench expert votes measured "
        f"{STUDY_POSITION_RANGE[0]:+.1f} to {STUDY_POSITION_RANGE[1]:+.1f} percentage "
        f"points, and {STUDY_HUMAN_POSITION:+.1f} for human experts."
    )
    ties = f" It calls a tie on {q.format('tie_rate', s['tie_rate'])} of its verdicts (its single-order tie rate)"
    if s["pairings"]:
        text += (
            f" When the answers swap places, {q.format('flip_rate', s['flip_rate'])} of the pairs change "
            f"their verdict (swap consistency {q.format('swap_consistency', s['swap_consistency'])}).{ties}, "
            f"and {q.format('both_orders_tie_rate', s['both_orders_tie_rate'])} of the pairs end as ties once "
            "both orders are combined."
        )
    else:
        text += (
            f"{ties}. No pair was judged in both orders, so swap consistency and the both-orders "
            "tie rate cannot be measured."
        )
    nv = cast("float | None", s["no_verdict_rate"])
    if nv is not None and math.isfinite(nv):
        text += (
            f" {fmt_pct(nv, 1)} of its calls returned no verdict."
            if nv > 0
            else " Every call returned a verdict."
        )
    numbers = {
        k: s[k]
        for k in (
            "position_bias_points",
            "position_bias_points_low",
            "position_bias_points_high",
            "swap_consistency",
            "flip_rate",
            "tie_rate",
            "both_orders_tie_rate",
            "no_verdict_rate",
            "pairings",
        )
    }
    tiles = (
        Metric(
            TILE_LABELS["judge"],
            q.format("position_bias", bias) if math.isfinite(bias) else "n/a",
            f"flip rate {q.format('flip_rate', s['flip_rate'])}"
            if s["pairings"]
            else "first minus second slot",
        ),
        Metric(
            q.name("tie_rate"),
            q.format("tie_rate", s["tie_rate"]),
            f"{q.format('both_orders_tie_rate', s['both_orders_tie_rate'])} both orders"
            if s["pairings"]
            else "",
        ),
    )
    status = "caution" if abs(bias) >= LARGE_POSITION_BIAS else "clear"
    return make_finding("judge", status, tiles, text, definition, numbers)
