"""The judge's spec sheet in words and display tables, in plain text: what the Judge page shows
of a :class:`~evalcore.judge.JudgeSheet`. The section explanations are in
:mod:`evalcore.judge.explanations`; the references are the quantities' own (:mod:`evalcore.quantities`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from evalcore import quantities as q
from evalcore.errors import UsageError
from evalcore.judge.agreement import HumanAgreement, human_agreement, labelled_rows
from evalcore.judge.both_orders import BothOrdersSummary
from evalcore.judge.comparison import best_marks, comparison_table
from evalcore.judge.explanations import EXPLAIN  # noqa: F401 - the page reads show.EXPLAIN
from evalcore.judge.self_preference import read_families
from evalcore.judge.sheet import DEFINITIONS, JudgeSheet
from evalcore.present.display import Metric, catalogue_table, tile, tiles, write
from evalcore.text import MISSING, fmt_count, fmt_int, fmt_num, fmt_pct, fmt_signed

#: Every figure of the sheet once that is not written as its catalogue quantity: its key, its
#: heading and how it is written (a shared format of :data:`evalcore.present.display.FORMATS`). A
#: key that is a catalogue id is headed and written as the catalogue says.
SHEET_FIGURES: dict[str, tuple[str, str]] = {
    "judge": ("Judge", "text"),
    "position_bias_points": (q.name("position_bias") + " (percentage points)", "signed"),
    "slot_bias_b": (q.name("slot_bias"), "signed3"),
    "length_coefficient": (q.name("length_effect") + " (Elo points per standard deviation)", "signed"),
    "self_preference_elo": (q.name("self_preference") + " (Elo points)", "signed"),
    "calls": ("Judge calls", "int"),
    "certified": ("Certified against humans (1 yes, 0 no)", "int"),
    "agreement_on_wins": (q.name("judge_win_sensitivity"), "pct1"),
    "agreement_on_non_wins": (q.name("judge_non_win_specificity"), "pct1"),
    "slot_gap_points": ("Raw slot gap (percentage points)", "signed"),
    "slot_a_win_rate": ("Slot A wins", "pct1"),
    "slot_b_win_rate": ("Slot B wins", "pct1"),
    "balanced_share": ("Calls in pairs seen in both orders", "pct1"),
    "order_balance": ("Order balance", "num3"),
    "pairings": ("Both-orders verdicts", "int"),
    "unpaired_calls": ("Calls in one order only", "int"),
    "swap_consistency_exact": ("Swap consistency (same level)", "pct1"),
    "reversal_rate": ("Opposite winners", "pct1"),
    "no_verdict_calls": ("Calls without a verdict", "int"),
    "pairs_both_orders": ("Model pairs in both orders", "int"),
    "self_comparison_calls": ("Self-comparison calls", "int"),
    "self_comparison_mean_verdict": ("Self-comparison mean verdict", "num2"),
    "labelled_calls": ("Labelled calls", "int"),
    "human_judgements": ("Human judgements", "int"),
    "ties_tie_probability": (q.name("same_level_chance"), "pct1"),
    "ties_d1": (q.name("effective_levels_entropy"), "num2"),
    "ties_d2": (q.name("effective_levels_collision"), "num2"),
    "ties_distinct_levels": (q.name("distinct_levels"), "int"),
}


def _heading(key: str) -> str:
    if key in SHEET_FIGURES:
        return SHEET_FIGURES[key][0]
    return q.name(key) if key in q.CATALOGUE else key.replace("_", " ")


#: The columns of the side-by-side table, in order, with their headings.
SIDE_BY_SIDE: dict[str, str] = {
    k: _heading(k)
    for k in (
        "judge position_bias_points swap_consistency flip_rate tie_rate both_orders_tie_rate no_verdict_rate "
        "slot_bias_b self_comparison_tie_rate agreement kappa length_coefficient self_preference_elo"
    ).split()
}


def format_value(value: object, column: str) -> str:
    """A sheet value written for people: percentages, signed points, Cohen's kappa with three decimals.

    Examples
    --------
    >>> format_value(0.1234, "flip_rate"), format_value(17.25, "position_bias_points")
    ('12.3%', '+17.2')
    >>> format_value(float("nan"), "kappa"), format_value(None, "agreement")
    ('—', '—')
    """
    if isinstance(value, str):
        return value
    fmt = SHEET_FIGURES[column][1] if column in SHEET_FIGURES else column if column in q.CATALOGUE else "num2"
    return write(value, fmt)


def side_by_side(sheets: Mapping[str, JudgeSheet | str]) -> pd.DataFrame:
    """The judges side by side: one row per judge, human headings, ``★`` on each column's best.

    Parameters
    ----------
    sheets : mapping
        The result of :func:`~evalcore.judge.judge_sheets` (a judge without a sheet maps to the
        reason, a string; its cells are ``—``).

    Returns
    -------
    DataFrame
        Text cells; the headings of :data:`SIDE_BY_SIDE`.
    """
    table = comparison_table(dict(sheets))
    marks = best_marks(table)
    shown = [c for c in SIDE_BY_SIDE if c in table.columns]
    return pd.DataFrame(
        {
            SIDE_BY_SIDE[c]: [
                format_value(v, c) + (" ★" if marks.at[i, c] else "") for i, v in table[c].items()
            ]
            for c in shown
        }
    )


def column_definitions(columns: list[str] | None = None) -> pd.DataFrame:
    """What each side-by-side column means: ``column`` (its heading) and ``definition``."""
    keys = [c for c in (columns or list(SIDE_BY_SIDE)) if c in DEFINITIONS]
    return pd.DataFrame(
        {"column": [SIDE_BY_SIDE.get(c, c) for c in keys], "definition": [DEFINITIONS[c] for c in keys]}
    )


def position_metrics(sheet: JudgeSheet) -> list[Metric]:
    """Position bias, swap consistency, the two tie rates and the slot balance of one judge."""
    p = sheet.position
    pb = p.position_bias_points
    if pb.has_interval:
        why = (
            f"95%: {fmt_signed(pb.low)} to {fmt_signed(pb.high)} percentage points, on pairs "
            "judged in both slot orders. "
        )
    elif not np.isfinite(pb.value):
        why = "Not identified: no pair was judged in both slot orders. "
    else:
        why = ""
    raw = (
        f"Raw: slot A wins {fmt_pct(p.slot_a_win_rate, 1)}, slot B wins "
        f"{fmt_pct(p.slot_b_win_rate, 1)} ({fmt_signed(p.slot_gap_points)} percentage points, "
        "which mixes position with which model sat where)."
    )
    return [
        tile("position_bias", pb.value, why + raw + " pp: percentage points."),
        tile(
            "swap_consistency",
            format_value(p.swap_consistency.value, "swap_consistency"),
            f"Flip rate {format_value(p.flip_rate.value, 'flip_rate')}; opposite winners "
            f"{format_value(p.reversal_rate.value, 'reversal_rate')}; on {fmt_int(p.pairings)} "
            "both-orders pairs.",
        ),
        *tiles(p, ["tie_rate", "both_orders_tie_rate"]),
        tile(
            "slot_balance",
            format_value(p.balance.balanced_share, "balanced_share"),
            "Share of calls in model pairs judged in both slot orders; order balance "
            f"{fmt_num(p.balance.order_balance, 2)} (1: every pair equally often in each "
            "order).",
        ),
    ]


def flips_link_label(sheet: JudgeSheet) -> str:
    """The Judge page's link to the flipped pairs, with the count it opens: the flipped
    both-orders pairings behind the flip rate (one case each when a pair has one call per
    order), e.g. "Read the 3,267 pairings whose verdict flipped with the order (5.8% of 56,439)".
    """
    p = sheet.position
    rate = p.flip_rate.value
    if not p.pairings or not np.isfinite(rate):
        return "Read the pairs whose verdict flipped with the order"
    flips = round(rate * p.pairings)
    return (
        f"Read the {fmt_int(flips)} pairing{'' if flips == 1 else 's'} whose verdict flipped with "
        f"the order ({fmt_pct(rate, 1)} of {fmt_int(p.pairings)})"
    )


def both_orders_sentence(source: BothOrdersSummary | JudgeSheet) -> str:
    """How many both-orders verdicts the calls make, and how many calls have none.

    ``source`` is a :class:`~evalcore.judge.BothOrdersSummary` or a sheet (whose position figures
    hold the same counts: every pairing uses one call of each order).
    """
    if isinstance(source, JudgeSheet):
        p = source.position
        source = BothOrdersSummary(
            calls=p.unpaired_calls + 2 * p.pairings, pairings=p.pairings, unpaired_calls=p.unpaired_calls
        )
    summary = source
    return (
        f"{fmt_int(summary.pairings)} both-orders verdicts from {fmt_int(summary.calls)} "
        f"calls; {fmt_count(summary.unpaired_calls, 'call')} "
        f"{'was' if summary.unpaired_calls == 1 else 'were'} judged in one order only and "
        f"{'has' if summary.unpaired_calls == 1 else 'have'} none."
    )


def order_metrics(sheet: JudgeSheet) -> list[Metric]:
    """Slot bias b, the self-comparison tie rate and the pairs seen in both orders."""
    o, selfc = sheet.order, sheet.self_comparison
    b_help = (
        f"95%: {fmt_signed(o.b.low, 3)} to {fmt_signed(o.b.high, 3)} (verdict units, −2..+2)"
        if o.b.has_interval
        else "verdict units, −2..+2"
    )
    if selfc is not None and selfc.calls:
        self_tile = tile(
            "self_comparison_tie_rate",
            selfc.tie_rate,
            f"{fmt_count(selfc.calls, 'call')} of a model against itself; mean verdict "
            f"{fmt_signed(selfc.mean_verdict, 2)}",
        )
    else:
        self_tile = tile("self_comparison_tie_rate", MISSING, "No call compares a model with itself.")
    return [tile("slot_bias", o.b.value, b_help), self_tile, tile("pairs_both_orders", o.pairs_both_orders)]


def order_swap_display(by_anchor: pd.DataFrame) -> pd.DataFrame:
    """The order-swap table per anchor model, with human headings (q and b to three decimals)."""
    return catalogue_table(
        by_anchor,
        [
            ("anchor", "anchor model", None),
            ("opponents", "opponents", "int"),
            ("calls_fwd", "calls, opponent in slot A", "int"),
            ("calls_rev", "calls, anchor in slot A", "int"),
            ("v_fwd", "mean verdict, opponent in slot A", "signed3"),
            ("v_rev", "mean verdict, anchor in slot A", "signed3"),
            ("q", q.name("preference_net"), "signed3"),
            ("q_low", "preference, 95% low", "signed3"),
            ("q_high", "preference, 95% high", "signed3"),
            ("b", q.name("slot_bias"), "signed3"),
            ("b_low", "slot-A bias, 95% low", "signed3"),
            ("b_high", "slot-A bias, 95% high", "signed3"),
        ],
    )


def coverage_metric(sheet: JudgeSheet) -> Metric:
    """The share of calls without a verdict (counted, never imputed)."""
    cov = sheet.coverage
    if cov is None:
        return tile("no_verdict_rate", MISSING, "Counts alone hold no calls without a verdict.")
    return tile(
        "no_verdict_rate",
        cov.no_verdict_rate,
        f"{fmt_int(cov.no_verdict)} of {fmt_count(cov.calls, 'call')} returned no verdict: "
        "counted, never imputed, left out of win rates.",
    )


def tie_structure_sentence(sheet: JudgeSheet) -> str:
    """One sentence on the verdict levels' tie structure (or that it is not available)."""
    t = sheet.ties
    if not t:
        return "The verdict levels' tie structure is not available for this selection."
    return (
        "Tie structure of the verdict levels: same-level chance "
        f"{q.format('same_level_chance', t['tie_probability'])} (the chance two calls give the same "
        "level, not the tie rate), effective levels "
        f"{q.format('effective_levels_entropy', t['d1'])} (entropy) and "
        f"{q.format('effective_levels_collision', t['d2'])} (collisions), {t['distinct_levels']} distinct "
        "levels. The Tie structure page has the rest."
    )


def agreement_metrics(ag: HumanAgreement) -> list[Metric]:
    """Agreement, Cohen's kappa, Krippendorff's alpha among humans and the human ceiling."""
    return [
        tile(
            "agreement",
            ag.agreement.value,
            f"95%: {fmt_pct(ag.agreement.low, 1)} to {fmt_pct(ag.agreement.high, 1)}; "
            f"{fmt_int(ag.n)} comparisons ({fmt_int(ag.n_no_verdict)} labelled calls had no "
            "verdict and are left out)",
        ),
        tile(
            "kappa",
            ag.kappa.value,
            f"Agreement beyond chance (0: chance, 1: perfect). 95%: {fmt_num(ag.kappa.low, 3)} "
            f"to {fmt_num(ag.kappa.high, 3)}",
        ),
        tile(
            "human_alpha",
            ag.alpha,
            f"Agreement beyond chance among the human judgements of {fmt_int(ag.alpha_units)} "
            "pairs with two or more (a label repeated on both orders of a pair counts once).",
        ),
        tile(
            "human_ceiling_agreement",
            ag.ceiling_agreement,
            f"One label against the majority of the pair's other labels, "
            f"{fmt_int(ag.ceiling_n)} comparisons.",
        ),
        tile("human_ceiling_kappa", ag.ceiling_kappa),
    ]


def compression_display(ag: HumanAgreement) -> pd.DataFrame:
    """The compression table: the win rate the judge prints for each humans' win rate."""
    comp = ag.compression.assign(shift=lambda t: 100 * t["shift"] + 0.0)
    out = catalogue_table(
        comp,
        [
            ("human_rate", "humans' win rate", "pct"),
            ("judge_prints", "judge prints", "pct1"),
            ("shift", "shift (percentage points)", "signed"),
        ],
    )
    if ag.ceiling_compression is not None:
        out["one human vs the others"] = [fmt_pct(v, 1) for v in ag.ceiling_compression["judge_prints"]]
    return out


def compression_sentence(ag: HumanAgreement) -> str:
    """What the compression table holds fixed, and what it shows."""
    return (
        "Each row: the win rate (wins plus half the ties) the judge prints when the humans' win rate "
        "is the row's, from its confusion matrix (each call counted from both models' points of view), holding "
        f"the humans' tie share at this set's {fmt_pct(ag.human_tie_share, 1)}. A judge that "
        "agrees imperfectly pulls every rate toward 50%."
    )


def length_metrics(sheet: JudgeSheet) -> list[Metric]:
    """The length term of the length-controlled Bradley–Terry fit and the rank changes."""
    lc = sheet.length
    if lc is None:
        return []
    g = lc.gamma_elo
    return [
        tile(
            "length_effect",
            f"{q.format('length_effect', g.value)} Elo points per standard deviation",
            f"95%: {fmt_signed(g.low)} to {fmt_signed(g.high)} Elo points (Wald, "
            "cluster-robust by instruction), per standard deviation of the normalised "
            "length difference",
        ),
        tile("length_rank_changes", lc.rank_changes),
    ]


def length_display(table: pd.DataFrame) -> pd.DataFrame:
    """The length-controlled ranking with human headings (ratings as whole Elo points)."""

    def signed_change(v: Any) -> str:  # a whole number of places, as the table holds it
        return f"{int(v):+d}" if int(v) else "0"

    return catalogue_table(
        table,
        [
            ("model", "model", None),
            ("rating", "rating (Elo)", "elo"),
            ("rank", "rank", "int"),
            ("rating_lc", "rating, length controlled (Elo)", "elo"),
            ("rank_lc", "rank, length controlled", "int"),
            ("rank_change", "rank change", signed_change),
            ("mean_length", "mean length", "int"),
        ],
    )


def self_preference_rows(sheets: Mapping[str, JudgeSheet | str]) -> pd.DataFrame:
    """The self-preference row of every judge that has one (empty when none has)."""
    rows = [s.self_preference for s in sheets.values() if not isinstance(s, str) and s.self_preference]
    return pd.DataFrame(rows)


def self_preference_display(frame: pd.DataFrame) -> pd.DataFrame:
    """Self-preference rows with human headings (δ in Elo points, one decimal)."""
    return catalogue_table(
        frame,
        [
            ("judge", "judge", None),
            ("family", "judge's family", None),
            ("own_models", "models of its family", "int"),
            ("other_models", "other models", "int"),
            ("delta_elo", q.name("self_preference") + " (Elo points)", "signed"),
            ("delta_elo_low", "95% low", "signed"),
            ("delta_elo_high", "95% high", "signed"),
            ("reference", "compared with", None),
            ("note", "note", lambda v: str(v) or MISSING),
        ],
    )


def comparison_display(frame: pd.DataFrame) -> pd.DataFrame:
    """A table of judges' sheet figures (one row per judge, sheet keys as columns) with the
    catalogue's names as headings and each figure written as on the Judge page."""
    own = {"judge": "Judge", "note": "Note", "calls": "Judge calls"}
    return catalogue_table(
        frame,
        [
            (
                c,
                own.get(c) or _heading(c),
                None if c in ("judge", "note") else partial(format_value, column=c),
            )
            for c in frame.columns
        ],
    )


def sheet_display(sheet: JudgeSheet) -> pd.DataFrame:
    """The whole sheet of one judge, one row per figure: words, value, 95% interval, meaning."""
    t = sheet.table()
    keys = list(t["metric"])
    out = {"figure": [_heading(k) for k in keys]}
    for column, heading in (("value", "value"), ("low", "95% low"), ("high", "95% high")):
        out[heading] = [format_value(v, k) for v, k in zip(t[column], keys, strict=True)]
    return pd.DataFrame(out | {"meaning": [d or MISSING for d in t["definition"]]})


@dataclass(frozen=True)
class FamilyList:
    """A typed or uploaded model → family list: the map, or why it cannot be used.

    ``families`` is None when the text is empty or unreadable; ``problem`` is the reason it could
    not be read (user text: it quotes the line); ``note`` says what is missing for
    self-preference.
    """

    families: dict[str, str] | None
    problem: str | None = None
    note: str | None = None

    @property
    def key(self) -> tuple[tuple[str, str], ...]:
        """A hashable form of the map (a cache key)."""
        return tuple(sorted(self.families.items())) if self.families else ()


def family_list(text: str | bytes, judges: tuple[str, ...] | list[str]) -> FamilyList:
    """Read ``model,family`` lines (text, or the bytes of an uploaded file) for self-preference
    and say what they allow.

    Examples
    --------
    >>> family_list("m1,acme\\nj,acme", ["j"]).families
    {'m1': 'acme', 'j': 'acme'}
    >>> family_list("m1,acme", ["j"]).note is not None
    True
    >>> family_list("m1", ["j"]).problem
    "family list, line 1: expected 'model,family', got 'm1'"
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8-sig", errors="replace")
    if not text.strip():
        return FamilyList(None)
    try:
        families = read_families(text)
    except UsageError as exc:
        return FamilyList(None, problem=str(exc))
    note = None
    if not any(j in families for j in judges):
        note = (
            "No judge has a family in the list, so self-preference cannot be measured. Add a "
            "line `judge name,family` for each judge whose family you know."
        )
    return FamilyList(families, note=note)


def self_preference_problem(
    sheets: Mapping[str, JudgeSheet | str], *, n_judges: int, has_families: bool
) -> str | None:
    """Why self-preference is not shown, in words, or None when some judge has it."""
    if n_judges < 2:
        return "Self-preference compares a judge with the other judges; this data has one judge."
    if not has_families:
        return "Give the model families above (and each judge's family) to measure self-preference."
    if self_preference_rows(sheets).empty:
        return (
            "No judge with a known family could be measured: each needs at least one model "
            "of its family and one of another family judged by every judge."
        )
    return None


def judge_warnings(sheets: Mapping[str, JudgeSheet | str]) -> list[str]:
    """Every judge's problem as ``"judge: sentence"``: why it has no sheet, then each design
    condition that leaves one of its figures unidentified; a sentence that holds for every judge
    (a condition of the table) is said once, without names."""
    # a condition of the table (not of one judge) would otherwise be said once per judge: each
    # sentence is said once, naming every judge it concerns
    who: dict[str, list[str]] = {}
    for name, sheet in sheets.items():  # why a judge has no sheet comes first
        if isinstance(sheet, str):
            who.setdefault(sheet, []).append(name)
    for name, sheet in sheets.items():
        for sentence in [] if isinstance(sheet, str) else sheet.design_warnings:
            who.setdefault(sentence, []).append(name)
    # a sentence every judge shares is a fact of the table, said as it is: "Every judge: Every
    # labelled pair carries…" named nobody and read twice as "every"
    return [
        sentence if len(names) == len(sheets) > 1 else f"{', '.join(names)}: {sentence}"
        for sentence, names in who.items()
    ]


def both_orders_agreement(
    store, judge: str, *, category: str | None = None, **options: Any
) -> HumanAgreement:
    """Agreement with humans of the both-orders verdicts (each pair's verdict once against every
    human judgement of the pair), with the sheet's ``rounds``, ``seed`` and ``interval`` (at most
    1,000 bootstrap rounds). Raises :class:`ValueError` (a :class:`~evalcore.errors.DesignError`)
    when no pair of the labelled calls is judged in both orders."""
    rounds = min(int(options.pop("rounds", 1000)), 1000)
    return human_agreement(
        labelled_rows(store, judge, category=category), both_orders=True, rounds=rounds, **options
    )
