"""What the Calibration page says, in safe Markdown: sentences, tiles and tables read from a
:class:`~evalcore.calibration.Calibration`, :class:`~evalcore.calibration.SizePlan`,
:class:`~evalcore.calibration.CoverageResult` and :class:`~evalcore.calibration.GateResult`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from evalcore import quantities as q
from evalcore.calibration.correction import ESTIMANDS, Calibration
from evalcore.calibration.coverage import CoverageResult
from evalcore.calibration.floors import SizePlan
from evalcore.calibration.gate import GateResult
from evalcore.calibration.ppi import CEILING_SENTENCE, PPIRatings
from evalcore.errors import UsageError
from evalcore.judge.certification import Certification
from evalcore.power.budget import Prices, cost_text
from evalcore.present.calibration_choices import disagreement_count
from evalcore.present.calibration_words import JS_ERROR, PPI_REFUSED
from evalcore.present.display import Metric, catalogue_table, tile
from evalcore.text import MISSING, fmt_int, fmt_num, fmt_pct
from evalcore.text import markdown as md

#: The default quality when the selection measured no Se/Sp and no J was typed: expert-grade labels.
DEFAULT_QUALITY = "Youden's J 0.57 (expert-grade labels)"


@dataclass(frozen=True)
class Message:
    """An alert: ``kind`` is "success", "info", "warning" or "error"; ``text`` is safe Markdown."""

    kind: str
    text: str


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
            raise UsageError(
                f"{token} is outside -1 to 1 (Youden's J is sensitivity plus specificity minus one)"
            )
        values.append(value)
    return values


def disagreements_label(cal: Calibration) -> str:
    """The link to the disagreements, with the count and unit it opens ("Read the 7 both-orders
    verdicts where the judge and the human disagree on whether sim-alder won")."""
    n = disagreement_count(cal)
    unit = "both-orders verdict" if cal.counts.both_orders else "judge call"
    return (
        f"Read the {fmt_int(n)} {unit}{'' if n == 1 else 's'} where the judge and the human "
        f"disagree on whether {md(cal.candidate)} won"
    )


def headline(cal: Calibration) -> str:
    """The correction tab's heading (safe Markdown)."""
    # a model name keeps its own spelling (never "Sim-alder" for sim-alder)
    return "Printed vs corrected win rate: " + md(cal.candidate_label)


def correction_caption(cal: Calibration) -> str:
    """Who judged, how many units, how many labels, and what a unit is (safe Markdown)."""
    c = cal.counts
    unit = (
        "both-orders verdicts (the verdict both orders agree on, else a tie; one per human label; "
        + (
            "1 call without its other order left out)"
            if c.unpaired_calls == 1
            else f"{fmt_int(c.unpaired_calls)} calls without their other order left out)"
        )
        if c.both_orders
        else "judge calls (each order counts once)"
    )
    return (
        f"Judge **{md(cal.judge or MISSING)}** · {fmt_int(c.n_judged)} judged units · "
        f"{fmt_int(c.n_labelled)} labelled ({fmt_int(c.n_se)} human-called wins, {fmt_int(c.n_sp)} "
        f"non-wins) · 95% intervals, clustered by instruction · unit: {unit}."
    )


def metrics(cal: Calibration) -> list[Metric]:
    """The six metric tiles, with help as safe Markdown."""
    w = cal.win_rate
    return [
        tile(
            "printed_win_rate",
            cal.printed,
            f"Wilson 95% interval {fmt_pct(cal.printed_low, 1)} – {fmt_pct(cal.printed_high, 1)}",
        ),
        tile(
            "corrected_win_share",
            "refused" if cal.refused else cal.corrected,
            md(cal.refusal_reason)
            if cal.refused
            else f"Rogan–Gladen; Lang–Reiczigel 95% interval {fmt_pct(cal.lr_low, 1)} – {fmt_pct(cal.lr_high, 1)}",
        ),
        tile(
            "corrected_win_rate",
            "refused" if cal.win_rate_refusal else w.value,
            md(cal.win_rate_refusal)
            if cal.win_rate_refusal
            else "a human win plus half a human tie, wins and losses each corrected; 95% interval "
            f"{fmt_pct(w.low, 1)} – {fmt_pct(w.high, 1)} (bootstrap over instructions)",
        ),
        tile(
            "sensitivity",
            cal.se,
            f"Of the human wins, the share the judge calls a win; Wilson {fmt_pct(cal.se_low, 1)} – {fmt_pct(cal.se_high, 1)}",
        ),
        tile(
            "specificity",
            cal.sp,
            "Of the human ties and losses, the share the judge does not call a win; Wilson "
            f"{fmt_pct(cal.sp_low, 1)} – {fmt_pct(cal.sp_high, 1)}",
        ),
        tile(
            "youden_j",
            cal.youden_j,
            "Sensitivity plus specificity minus one: the price of the correction (the interval divides by it).",
        ),
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
            f"Corrected rate **{fmt_pct(cal.corrected, 1)}** (Lang–Reiczigel 95% interval {fmt_pct(cal.lr_low, 1)} – "
            f"{fmt_pct(cal.lr_high, 1)}), against a printed **{fmt_pct(cal.printed, 1)}** ({fmt_pct(cal.printed_low, 1)} – "
            f"{fmt_pct(cal.printed_high, 1)}). With these {fmt_int(cal.counts.n_labelled)} labelled pairs the "
            f"corrected rate cannot be tighter than ±{fmt_num(100 * cal.floor, 1)} percentage points, "
            f"however many pairs are judged. The naive interval ({fmt_pct(cal.naive_low, 1)} – "
            f"{fmt_pct(cal.naive_high, 1)}) treats the judge's sensitivity and specificity as exact and is too narrow (it covers 31–53% at 25 "
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
                f"Corrected win rate on both arms, **{fmt_pct(w.value, 1)}** (95% {fmt_pct(w.low, 1)} – {fmt_pct(w.high, 1)}): "
                f"{ESTIMANDS['corrected_win_rate']}. This is the number a corrected gate tests.",
            )
        )
    return out


def summary_display(cal: Calibration) -> pd.DataFrame:
    """:meth:`Calibration.summary_frame` with human column names and readable cells (no NaN)."""
    table = cal.summary_frame()
    rows = []
    for name, est, low, high, definition in table.itertuples(index=False):
        if name == q.name("youden_j"):
            cells = (q.format("youden_j", est), MISSING, MISSING)
        elif name == q.name("correction_floor"):
            cells = (q.format("correction_floor", 100 * est), MISSING, MISSING)
        else:
            cells = (fmt_pct(est, 1), fmt_pct(low, 1), fmt_pct(high, 1))
        rows.append((_first_upper(name), *cells, definition))
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
        out[f"this judge (sensitivity {fmt_pct(cal.se, 1)}, specificity {fmt_pct(cal.sp, 1)})"] = {
            "se": cal.se,
            "sp": cal.sp,
        }
    for j in typed:
        out[f"typed Youden's J {j:.2f}"] = {"youden_j": j}
    return out or {DEFAULT_QUALITY: {"youden_j": 0.57}}


#: The planning floor as a table column (± percentage points, one decimal), on the page and in the
#: report alike.
FLOOR_POINTS = ("floor_points", q.name("planning_floor") + " (± percentage points)", "num1")


def size_plan_cost(plan: SizePlan, *, per_call: float | None, per_label: float | None) -> str:
    """The size picker's plan in money at the prices given ("" when it is out of reach or no price
    is given): the human labels at the price per label, the judged pairs at the price per call."""
    if not plan.reachable or plan.n_labelled is None or plan.n_judged is None:
        return ""
    parts = [
        cost_text(plan.n_labelled, unit="human labels", per_call=per_call, per_label=per_label),
        cost_text(plan.n_judged, unit="judge calls", per_call=per_call, per_label=per_label),
    ]
    if not all(parts):
        return ""
    text = "; ".join(parts)
    if per_call is not None and per_label is not None:
        total = Prices(per_call, per_label).money(calls=plan.n_judged, labels=plan.n_labelled)
        text += f"; together {q.format('size_cost', total)}"
    return f"In money: {text}."


def ladder_display(
    plan: SizePlan, *, per_call: float | None = None, per_label: float | None = None
) -> pd.DataFrame:
    """The size plan's ladder with human columns; "—" where no number of judged pairs suffices.
    With both prices, each rung's cost: labelled pairs × price per label + judged pairs × price
    per call."""
    ladder = plan.ladder.astype({"n_labelled": int})
    if per_call is not None and per_label is not None:
        ladder = ladder.assign(
            cost=[
                Prices(per_call, per_label).money(calls=judged, labels=labelled)
                if math.isfinite(judged)
                else math.nan
                for labelled, judged in zip(
                    ladder["n_labelled"], ladder["n_judged"].astype(float), strict=True
                )
            ]
        )
    return catalogue_table(
        ladder,
        [
            ("n_labelled", "Labelled pairs", None),
            FLOOR_POINTS,
            ("n_judged", "Judged pairs needed", "int"),
            ("cost", "size_cost"),
        ],
    )


def coverage_sentence(result: CoverageResult, cal: Calibration, *, n_judged: int, n_labelled: int) -> str:
    """How often each interval covered the truth in the simulation (safe Markdown)."""
    cov = result.table

    def span(name: str) -> str:
        c = cov[cov["interval"] == name]["coverage"]
        return f"{fmt_pct(c.min(), 1)}–{fmt_pct(c.max(), 1)}"

    return (
        f"With sensitivity {fmt_pct(cal.se, 1)} and specificity {fmt_pct(cal.sp, 1)}, {fmt_int(n_judged)} judged and "
        f"{fmt_int(n_labelled)} labelled pairs: the Wilson interval on the printed rate covers the "
        f"truth {span('printed (Wilson)')} of the time, the naive corrected interval "
        f"{span('naive corrected')}, the Lang–Reiczigel interval {span('Lang–Reiczigel')}. The "
        "published study reports 0–99% for the printed interval (it covers only near 50/50), 31–53% "
        "for the naive one at 25 labelled pairs and 92–100% for Lang–Reiczigel."
    )


def coverage_table(result: CoverageResult) -> pd.DataFrame:
    """The coverage table with human column names and percentages."""
    return catalogue_table(
        result.table,
        [
            ("true_rate", "True rate", "pct1"),
            ("interval", "Interval", None),
            *(
                (c, c.replace("_", " ").capitalize(), "pct1")
                for c in ("coverage", "refused", "mean_estimate")
            ),
            ("mean_half_width", "Mean half-width", "pct1"),
        ],
    )


def gate_message(gate: GateResult) -> Message:
    """PASS/FAIL with the number it rested on (safe Markdown)."""
    kind = "warning" if not gate.determined else "success" if gate.passed else "error"
    return Message(
        kind,
        f"**{gate.verdict}** — gated on the **{gate.gated_on}** number. " + md(gate.explanation),
    )


def _rating(e) -> str:
    if not math.isfinite(e.value):
        return MISSING
    if not e.has_interval:
        return fmt_int(e.value)
    return f"{fmt_int(e.value)} ({fmt_int(e.low)} – {fmt_int(e.high)})"


def ppi_table(r: PPIRatings) -> pd.DataFrame:
    """One row per model, best PPI rating first: the judge-only, human-only and prediction-powered
    ratings (Elo points, 95% interval) and the effective human sample (labelled pairs)."""
    order = sorted(range(len(r.models)), key=lambda k: -r.ppi[k].value)
    return pd.DataFrame(
        {
            "Model": [r.models[k] for k in order],
            "Judge only": [_rating(r.judge_only[k]) for k in order],
            "Human labels only": [_rating(r.human[k]) for k in order],
            "Prediction-powered": [_rating(r.ppi[k]) for k in order],
            "Worth (labelled pairs)": [fmt_int(r.effective[k]) for k in order],
        }
    )


def ppi_messages(r: PPIRatings) -> list[Message]:
    """What the prediction-powered ratings mean, in one plain sentence, then the ceiling and notes."""
    worth = (
        f"the intervals are as narrow as a human-only study with about **{fmt_int(r.effective_overall)}** "
        f"labelled pairs would give: the judge makes the {fmt_int(r.n_labelled_pairs)} labels worth "
        f"{fmt_num(r.gain, 1)} times as many"
        if math.isfinite(r.effective_overall)
        else "there is no human-only interval to compare with"
    )
    lam = f"weight on the judge {fmt_num(r.lam, 2)}" + (
        ", chosen to make the interval narrowest (Angelopoulos, Duchi & Zrnic 2023)" if r.lam_tuned else ""
    )
    out = [
        Message(
            "info",
            f"The judge's verdicts on all {fmt_int(r.n_calls)} calls, corrected by the humans' labels "
            f"on {fmt_int(r.n_labelled_pairs)} pairs ({lam}): {worth}. The interval stays valid "
            "however good or bad the judge is; a poor judge only gets less weight.",
        ),
        Message("info", CEILING_SENTENCE),
    ]
    out += [Message("warning", md(n)) for n in r.notes]
    return out


def gate_messages(gate: GateResult | str) -> list[Message]:
    """The gate's verdict, what it estimated and its warning; or why it could not run (app text)."""
    if isinstance(gate, str):
        return [Message("info", gate)]
    out = [gate_message(gate)]
    out.append(
        Message("caption", md(f"Estimand: {gate.estimand}. Interval: {gate.interval}. Unit: {gate.unit}."))
    )
    if gate.warning:
        out.append(Message("warning", md(gate.warning)))
    if not gate.determined:
        out += [Message("warning", md(w)) for w in gate.design_warnings]
    return out


def gate_frame(gate: GateResult | str) -> pd.DataFrame | None:
    """The gate's result as a one-row table for its CSV download; None when it could not run."""
    return None if isinstance(gate, str) else pd.DataFrame([gate.as_dict()])


def correction_notes(cal: Calibration) -> list[Message]:
    """The transfer warning and the design warnings of a calibration (escaped)."""
    out = [Message("warning", md(cal.transfer_warning))] if cal.transfer_warning else []
    return out + [Message("info", md(n)) for n in cal.design_warnings]


def typed_js(text: str) -> tuple[list[float], list[Message]]:
    """:func:`parse_js`, with the error in words instead of an exception."""
    try:
        return parse_js(text), []
    except UsageError as exc:
        return [], [Message("error", f"{JS_ERROR} {md(exc)}")]


def ppi_or_problem(store, *, judge: str | None, category: str | None) -> tuple[PPIRatings | None, str]:
    """:func:`~evalcore.calibration.ppi.ppi_ratings`, or None and why not (escaped Markdown)."""
    from evalcore.calibration.ppi import ppi_ratings

    try:
        return ppi_ratings(store, judge=judge, category=category), ""
    except ValueError as exc:
        return None, PPI_REFUSED + md(exc)


def certification_message(cert: Certification) -> Message:
    """The certification line (safe Markdown): success when certified, else a warning."""
    return Message("success" if cert.certified else "warning", md(cert.sentence()))
