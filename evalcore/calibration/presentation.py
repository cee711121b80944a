"""What the Calibration page says: sentences, metric cells and tables in human words.

Every function returns either plain data or Markdown in which user text (model, judge and
category names, messages that quote them) is already escaped with :func:`evalcore.text.markdown`,
so a page can hand it to Streamlit as is. Nothing here computes a statistic; it reads
:class:`~evalcore.calibration.Calibration`, :class:`~evalcore.calibration.SizePlan`,
:class:`~evalcore.calibration.CoverageResult` and :class:`~evalcore.calibration.GateResult`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from evalcore.calibration.correction import ESTIMANDS, Calibration
from evalcore.calibration.coverage import CoverageResult
from evalcore.calibration.floors import SizePlan
from evalcore.calibration.gate import GateResult
from evalcore.errors import UsageError
from evalcore.text import MISSING, fmt_int, fmt_num, fmt_pct
from evalcore.text import markdown as md

__all__ = [
    "Message",
    "correction_caption",
    "correction_message",
    "coverage_sentence",
    "coverage_table",
    "floor_display",
    "floor_rows",
    "default_pair",
    "gate_message",
    "headline",
    "ladder_display",
    "metrics",
    "parse_js",
    "pct",
    "quality_options",
    "summary_display",
    "youden_values",
]

#: The default quality when the selection measured no Se/Sp and no J was typed: expert-grade labels.
DEFAULT_QUALITY = "J = 0.57 (expert-grade labels)"


@dataclass(frozen=True)
class Message:
    """An alert: ``kind`` is "success", "info", "warning" or "error"; ``text`` is safe Markdown."""

    kind: str
    text: str


def pct(x: float | None) -> str:
    """A share with one decimal, ``—`` if missing: ``pct(0.375)`` → ``'37.5%'``."""
    return fmt_pct(x, 1)


def _first_upper(text: str) -> str:
    return text[:1].upper() + text[1:]


def parse_js(text: str) -> list[float]:
    """Typed Youden's J values, e.g. ``"0.57, 0.34"`` (commas or semicolons).

    Raises
    ------
    UsageError
        Naming the token that is not a number or is outside −1..1.

    Examples
    --------
    >>> parse_js("0.57; 0.34,")
    [0.57, 0.34]
    """
    values = []
    for token in str(text).replace(";", ",").split(","):
        token = token.strip()
        if not token:
            continue
        try:
            value = float(token)
        except ValueError:
            raise UsageError(f"{token!r} is not a number") from None
        if not (math.isfinite(value) and -1.0 <= value <= 1.0):
            raise UsageError(f"{token} is outside -1..1 (J = Se + Sp - 1)")
        values.append(value)
    return values


def headline(cal: Calibration) -> str:
    """The correction tab's heading (safe Markdown)."""
    # a model name keeps its own spelling (never "Sim-alder" for sim-alder)
    return "Printed vs corrected win rate: " + md(cal.candidate_label)


def correction_caption(cal: Calibration) -> str:
    """Who judged, how many units, how many labels, and what a unit is (safe Markdown)."""
    c = cal.counts
    unit = (
        "both-orders verdicts (the verdict both orders agree on, else a tie; one per human label; "
        f"{fmt_int(c.unpaired_calls)} calls without their other order left out)"
        if c.both_orders
        else "judge calls (each order counts once)"
    )
    return (
        f"Judge **{md(cal.judge or MISSING)}** · {fmt_int(c.n_judged)} judged units · "
        f"{fmt_int(c.n_labelled)} labelled ({fmt_int(c.n_se)} human-called wins, {fmt_int(c.n_sp)} "
        f"non-wins) · 95% intervals, clustered by instruction · unit: {unit}."
    )


def metrics(cal: Calibration) -> list[tuple[str, str, str]]:
    """The six metric cells: (label, value, help) with help as safe Markdown."""
    w = cal.win_rate
    j = MISSING if math.isnan(cal.youden_j) else fmt_num(cal.youden_j, 2)
    return [
        (
            "Printed",
            pct(cal.printed),
            f"Wilson 95% interval {pct(cal.printed_low)} – {pct(cal.printed_high)}",
        ),
        (
            "Corrected",
            "refused" if cal.refused else pct(cal.corrected),
            md(cal.refusal_reason)
            if cal.refused
            else f"Rogan–Gladen; Lang–Reiczigel 95% interval {pct(cal.lr_low)} – {pct(cal.lr_high)}",
        ),
        (
            "Corrected win rate",
            "refused" if cal.win_rate_refusal else pct(w.value),
            md(cal.win_rate_refusal)
            if cal.win_rate_refusal
            else "P(human win) + P(human tie)/2, both arms corrected; 95% interval "
            f"{pct(w.low)} – {pct(w.high)} (bootstrap over instructions)",
        ),
        (
            "Se",
            pct(cal.se),
            f"Sensitivity: P(judge says win | human says win); Wilson {pct(cal.se_low)} – {pct(cal.se_high)}",
        ),
        (
            "Sp",
            pct(cal.sp),
            "Specificity: P(judge says not-win | human says not-win); Wilson "
            f"{pct(cal.sp_low)} – {pct(cal.sp_high)}",
        ),
        ("Youden's J", j, "J = Se + Sp − 1: the price of the correction (the interval divides by it)."),
    ]


def correction_message(cal: Calibration) -> list[Message]:
    """The verdict on the correction, then the corrected win rate on both arms."""
    if cal.refused:
        return [
            Message(
                "warning",
                f"**Correction refused.** {md(_first_upper(cal.refusal_reason))}. "
                "Printing a corrected number here would hide its error bars.",
            )
        ]
    out = [
        Message(
            "success",
            f"Corrected rate **{pct(cal.corrected)}** (Lang–Reiczigel 95% interval {pct(cal.lr_low)} – "
            f"{pct(cal.lr_high)}), against a printed **{pct(cal.printed)}** ({pct(cal.printed_low)} – "
            f"{pct(cal.printed_high)}). With these {fmt_int(cal.counts.n_labelled)} labelled pairs the "
            f"corrected rate cannot be tighter than ±{fmt_num(100 * cal.floor, 1)} percentage points, "
            f"however many pairs are judged. The naive interval ({pct(cal.naive_low)} – "
            f"{pct(cal.naive_high)}) treats Se and Sp as exact and is too narrow (it covers 31–53% at 25 "
            "labelled pairs while claiming 95%).",
        )
    ]
    w = cal.win_rate
    if cal.win_rate_refusal:
        out.append(Message("info", f"No corrected win rate on both arms: {md(cal.win_rate_refusal)}."))
    else:
        out.append(
            Message(
                "info",
                f"Corrected win rate on both arms, **{pct(w.value)}** (95% {pct(w.low)} – {pct(w.high)}): "
                f"{ESTIMANDS['corrected_win_rate']}. This is the number a corrected gate tests.",
            )
        )
    return out


def summary_display(cal: Calibration) -> pd.DataFrame:
    """:meth:`Calibration.summary_frame` with human column names and readable cells (no NaN)."""
    table = cal.summary_frame()
    rows = []
    for q, est, low, high, definition in table.itertuples(index=False):
        if q == "Youden's J":
            cells = (MISSING if math.isnan(est) else fmt_num(est, 2), MISSING, MISSING)
        elif q.startswith("floor"):
            # the unit goes into the row's name: the cell stays short enough to read whole
            q = q.replace(" (half-width)", ", half-width") + " (± percentage points)"
            cells = (MISSING if math.isnan(est) else f"±{fmt_num(100 * est, 1)}", MISSING, MISSING)
        else:
            cells = (pct(est), pct(low), pct(high))
        rows.append((_first_upper(q), *cells, definition))
    return pd.DataFrame(rows, columns=["Quantity", "Estimate", "95% low", "95% high", "Definition"])


def youden_values(cal: Calibration, typed: list[float]) -> list[float]:
    """This judge's J (rounded, first) and the typed ones, without duplicates."""
    if math.isnan(cal.youden_j):
        return list(typed)
    own = round(cal.youden_j, 3)
    return [own] + [j for j in typed if j != own]


def floor_rows(cal: Calibration, sizes: list[int], typed: list[float]) -> pd.DataFrame | None:
    """The Floor tab's table (tidy, :func:`evalcore.calibration.floor_table`): this judge at its
    measured Se and Sp, as the size picker reads it, then the typed J values; None when there is
    nothing to show."""
    from evalcore.calibration.floors import floor_table

    own = not (math.isnan(cal.se) or math.isnan(cal.sp))
    if not sizes or not (typed or own):
        return None
    return floor_table(sizes, typed, se=cal.se if own else None, sp=cal.sp if own else None)


def floor_display(floors: pd.DataFrame, cal: Calibration | None = None) -> pd.DataFrame:
    """The floor table wide: one row per labelled-set size, one column per judge quality
    (± percentage points, one decimal), this judge first."""
    order = list(dict.fromkeys(floors["quality"]))
    wide = floors.pivot(index="n_labelled", columns="quality", values="floor_points")[order]
    wide = wide.map(lambda v: fmt_num(v, 1))  # "2.0", not "2": one decimal in every cell
    return wide.reset_index().rename(columns={"n_labelled": "Labelled pairs"})


def quality_options(cal: Calibration, typed: list[float]) -> dict[str, dict]:
    """Judge qualities the size picker offers: label → keyword arguments of ``size_plan``."""
    out: dict[str, dict] = {}
    if not (math.isnan(cal.se) or math.isnan(cal.sp)):
        out[f"this judge (Se {pct(cal.se)}, Sp {pct(cal.sp)})"] = {"se": cal.se, "sp": cal.sp}
    for j in typed:
        out[f"typed J = {j:.2f}"] = {"youden_j": j}
    return out or {DEFAULT_QUALITY: {"youden_j": 0.57}}


def ladder_display(plan: SizePlan) -> pd.DataFrame:
    """The size plan's ladder with human columns; "—" where no number of judged pairs suffices."""
    lad = plan.ladder
    return pd.DataFrame(
        {
            "Labelled pairs": lad["n_labelled"].astype(int),
            "Floor (± percentage points)": [fmt_num(v, 1) for v in lad["floor_points"]],
            "Judged pairs needed": [fmt_int(v) for v in lad["n_judged"]],
        }
    )


def coverage_sentence(result: CoverageResult, cal: Calibration, *, n_judged: int, n_labelled: int) -> str:
    """How often each interval covered the truth in the simulation (safe Markdown)."""
    cov = result.table

    def span(name: str) -> str:
        c = cov[cov["interval"] == name]["coverage"]
        return f"{pct(c.min())}–{pct(c.max())}"

    return (
        f"With Se {pct(cal.se)}, Sp {pct(cal.sp)}, {fmt_int(n_judged)} judged and "
        f"{fmt_int(n_labelled)} labelled pairs: the Wilson interval on the printed rate covers the "
        f"truth {span('printed (Wilson)')} of the time, the naive corrected interval "
        f"{span('naive corrected')}, the Lang–Reiczigel interval {span('Lang–Reiczigel')}. The "
        "published study reports 0–99% for the printed interval (it covers only near 50/50), 31–53% "
        "for the naive one at 25 labelled pairs and 92–100% for Lang–Reiczigel."
    )


def coverage_table(result: CoverageResult) -> pd.DataFrame:
    """The coverage table with human column names and percentages."""
    t = result.table
    return pd.DataFrame(
        {
            "True rate": [pct(v) for v in t["true_rate"]],
            "Interval": t["interval"],
            "Coverage": [pct(v) for v in t["coverage"]],
            "Refused": [pct(v) for v in t["refused"]],
            "Mean estimate": [pct(v) for v in t["mean_estimate"]],
            "Mean half-width": [pct(v) for v in t["mean_half_width"]],
        }
    )


def gate_message(gate: GateResult) -> Message:
    """PASS/FAIL with the number it rested on (safe Markdown)."""
    return Message(
        "success" if gate.passed else "error",
        f"**{'PASS' if gate.passed else 'FAIL'}** — gated on the **{gate.gated_on}** number. "
        + md(gate.explanation),
    )


def default_pair(counts) -> tuple[str | None, str | None]:
    """The candidate and opponent the page starts with: the judge's leader and runner-up (a point
    Bradley–Terry fit, no intervals; :func:`evalcore.ranking.presentation.calibration_pair`: all
    opponents when the two never met), the pair
    the Overview's "Can the win rate be corrected?" finding calibrates, so both pages show one
    number. With fewer than two models, or a design the fit refuses, the first model against all
    opponents; ``(None, None)`` without models.
    """
    from evalcore.ranking import leaderboard  # ranking does not import calibration: no cycle
    from evalcore.ranking.presentation import calibration_pair

    if counts.n_models < 2:
        return (counts.models[0] if counts.n_models else None), None
    try:
        pair = calibration_pair(leaderboard(counts, rounds=0), counts)
    except (ValueError, ArithmeticError):  # a design the fit refuses: any model will do
        pair = None
    return pair if pair is not None else (counts.models[0], None)


def default_candidate(counts) -> str | None:
    """The model the page starts with: the judge's top-rated one (:func:`default_pair`)."""
    return default_pair(counts)[0]


# -- the page's own words (no user text) ---------------------------------------------------------

INTRO = (
    "A judge's win rate is compressed toward 50/50; only a labelled comparison recovers the human "
    "number, at a price set by the judge's Youden's J (sensitivity + specificity − 1: 1 is a perfect "
    "judge, 0 a coin). Labelled rows are the rows with a `human` label. **Printed** win rate = (wins + "
    "ties/2) / units, as every comparison tool prints it. **Corrected** rate = the estimated share of "
    "units a human would call a candidate win (a tie is *not* a win). **Corrected win rate (both "
    "arms)** = P(human win) + P(human tie)/2, wins and losses each corrected: the human number the "
    "printed rate stands for, and what a corrected gate tests."
)
TIES = (
    "**Printed** counts a tie as half a win; **Corrected** counts a tie as not a win; "
    "**Corrected win rate** counts a human tie as half a win, like the printed rate."
)
METHOD = (
    "The judge-says-win share is what Rogan–Gladen (1978) corrects: P = (AP + Sp − 1)/(Se + Sp − "
    "1), clipped to [0, 1]. The Lang–Reiczigel interval (2014) carries the uncertainty of Se and "
    "Sp into the interval. The confusion matrix behind Se and Sp is on the Judge page."
)
FLOOR = (
    "Half-width of the Lang–Reiczigel interval with unlimited judged pairs, read with Se = Sp = "
    "(1 + J)/2, the labelled pairs split evenly between human wins and non-wins, Lang–Reiczigel's "
    "pseudo-counts and a true share of 37.5%. The published table at J ≈ 0.57: ±33–35 percentage "
    "points at 25 labelled pairs, ±15–16 at 100, ±7–8 at 400, ±4 at 1,600."
)
LADDER = (
    "Judged pairs needed: — where the floor at that labelled size is already wider than the "
    "target: no number of judged pairs reaches it."
)
NO_PROFILE = (
    "This selection has no measured Se and Sp (it needs labelled human wins and non-wins), so "
    "there is no judge profile to simulate. Pick a selection with labelled rows."
)
COVERAGE = (
    "Truth = the share of human-called candidate wins. Each study draws human outcomes, the "
    "judge's win/tie/loss from this judge's measured rates, and a labelled set split evenly "
    "between human wins and non-wins. Refused = studies whose measured J ≤ 0."
)
CLI = (
    "Same gate from the command line: `python -m evalcore gate FILE --judge J --candidate M "
    "--baseline B [--margin 0.05] [--corrected]` exits 0 on pass, 1 on fail."
)
HELP = {
    "candidate": "The model whose win rate is corrected (it starts with the judge's top-rated model); "
    "slot A reads every call from the first slot's point of view.",
    "labelled": "Where the judge's Se/Sp are measured. An error profile belongs to its population.",
    "floor": "The floor is the narrowest corrected interval the labelled set allows, however many "
    "pairs are judged.",
    "unit": "The table's own unit: the both-orders verdict (the verdict both orders agree on, else a "
    "tie) when the table is judged in both orders and a candidate is picked, so each human "
    "label counts once; else one unit per judge call.",
    "gate": "Superiority: lower bound above 50%. Non-inferiority: lower bound above 50% minus the margin.",
    "gate_on": "Printed: lower bound of (wins + ties/2)/n, Wilson interval clustered by instruction. "
    "Corrected: lower bound of the corrected win rate, human wins + ties/2 with both arms "
    "corrected (needs labelled pairs).",
}
NEEDS_CANDIDATE = (
    "The both-orders verdict needs a candidate model (slot A changes sides between the two "
    "orders): counting every call until one is picked."
)
