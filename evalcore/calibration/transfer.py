"""Conditions a calibration must state in words: transfer between populations, and the unit.

An error profile (Se, Sp) belongs to its (judge, prompt, population) triple: measured on one
slice and applied to another it may not transfer; in the published study seven of twelve
cross-population corrections missed the truth, one by 40 points. The warning fires when the
labelled rows come from another slice, and also when they cover only some categories of the
corrected slice (the uncovered categories borrow a profile measured elsewhere).

A table judged in both orders carries each human label on both order rows; read per call, each
label counts twice. The both-orders verdict counts it once and is the default; the conditions
under which it is not used are stated here.

References
----------
"What a pairwise win rate is worth: six judges against expert and crowd labels" (2025), §1, §8.
"""

from __future__ import annotations

from evalcore.calibration.counts import BOTH_ORDERS_DEFAULT_SHARE, CalibrationCounts

#: Design effects above this are worth a sentence (intervals are widened accordingly).
NOTABLE_DESIGN_EFFECT = 1.2

_MAY_NOT_TRANSFER = (
    "An error profile belongs to its population (judge, prompt, traffic) and may not transfer: in a "
    "published comparison seven of twelve cross-population corrections missed the truth, one by "
    "40 points."
)


def _slice_name(category: str | None) -> str:
    return "all categories" if category is None else f"category {category!r}"


def _category_name(category: str | None) -> str:
    return "(no category)" if category is None else repr(category)


def transfer_warning(counts: CalibrationCounts, category: str | None, labelled: str | None) -> str:
    """A sentence when the judge's error profile is applied beyond the rows it was measured on.

    Parameters
    ----------
    counts : CalibrationCounts
        With ``category_units`` (judged and labelled units per category), as counted from a table.
    category, labelled : str or None
        The corrected slice and the labelled slice.

    Returns
    -------
    str
        Empty when the labelled rows come from the corrected slice and cover all its categories.

    Examples
    --------
    >>> c = CalibrationCounts(wins=5, ties=0, losses=5, tp=3, n_se=4, tn=3, n_sp=4,
    ...                       category_units={"code": (6, 8), "chat": (4, 0)})
    >>> "'chat'" in transfer_warning(c, None, None)
    True
    """
    if not counts.n_labelled:
        return ""
    if labelled != category:
        return (
            f"The judge's error profile was measured on {_slice_name(labelled)} and applied to "
            f"{_slice_name(category)}. " + _MAY_NOT_TRANSFER
        )
    units = counts.category_units or {}
    judged = {cat: j for cat, (j, _) in units.items() if j > 0}
    covered = {cat for cat, (_, n) in units.items() if n > 0}
    missing = [cat for cat in judged if cat not in covered]
    if not missing or not covered:
        return ""
    share = sum(judged[cat] for cat in missing) / sum(judged.values())
    names = ", ".join(_category_name(cat) for cat in sorted(missing, key=str))
    have = ", ".join(_category_name(cat) for cat in sorted(covered, key=str))
    return (
        f"The labelled rows cover only {len(covered)} of the {len(judged)} categories of the "
        f"corrected rows: {names} ({share:.0%} of the judged units) carry no human label, so the "
        f"error profile measured on {have} is applied to them. " + _MAY_NOT_TRANSFER
    )


def design_warnings(
    counts: CalibrationCounts, *, candidate: str | None, deff: dict[str, float]
) -> tuple[str, ...]:
    """Sentences about the unit and clustering that qualify the calibration's numbers."""
    out = []
    both_table = counts.both_orders_share >= BOTH_ORDERS_DEFAULT_SHARE
    if both_table and not counts.both_orders:
        if candidate is None:
            out.append(
                "This table is judged in both orders and slot A changes sides between them, so "
                "read from slot A every pair counts once per order and a human label shared "
                "by the two order rows counts twice. Pick a candidate model to count each "
                "label once (the both-orders verdict)."
            )
        else:
            out.append(
                "Counted per judge call on a table judged in both orders: a human label "
                "shared by the two order rows counts twice in the sensitivity, the specificity and the floor. The "
                "both-orders verdict (the default) counts it once."
            )
    if counts.both_orders and counts.unpaired_calls:
        out.append(
            (
                "1 call without its other order is left out"
                if counts.unpaired_calls == 1
                else f"{counts.unpaired_calls:,} calls without their other order are left out"
            )
            + " of the both-orders units."
        )
    if counts.slot_confounded:
        in_a, in_b = counts.slot_calls
        out.append(slot_confounded_warning(in_a, in_b, counts.slot_order_balance))
    big = {k: v for k, v in deff.items() if v >= NOTABLE_DESIGN_EFFECT}
    if big:
        worst = max(big, key=big.__getitem__)
        out.append(
            f"Units are clustered by instruction (design effect up to {big[worst]:.1f}, on "
            f"the {'printed rate' if worst == 'printed' else worst}): the intervals use the "
            "effective sample size, so they are wider than a count of units would suggest."
        )
    return tuple(out)


def slot_confounded_warning(in_a: int, in_b: int, balance: float) -> str:
    """Why a printed win rate cannot separate slot preference from strength (the candidate's
    pairs are not seen in both slot orders in balance).

    Examples
    --------
    >>> slot_confounded_warning(300, 0, 0.0)[:40]
    'The candidate sat in slot A in 300 of it'
    """
    return (
        f"The candidate sat in slot A in {in_a:,} of its {in_a + in_b:,} calls and in slot B in "
        f"{in_b:,} (order balance {balance:.2f}, where 1 means each pair is shown equally often in "
        "each order): the printed win rate cannot separate the judge's slot preference from the "
        "models' strengths, so a gate on it cannot decide. Judge the pair in both slot orders, "
        "or gate on the corrected rate, whose error profile is measured on labelled rows in the "
        "same slots."
    )
