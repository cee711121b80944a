"""The words of style control: what a covariate is worth, and why one is refused.

Kept apart from :mod:`evalcore.ranking.style` (the model and its fit) so each stays short.
"""

from __future__ import annotations

import math

import numpy as np

from evalcore.features import StyleRows
from evalcore.ranking.bradley_terry import ELO_SCALE
from evalcore.stats.intervals import Estimate
from evalcore.text import fmt_list, fmt_num, fmt_signed

#: Markdown features in words.
WORDS = {"headers": "headers", "bold": "bold spans", "lists": "list items"}


def unidentified(rows: StyleRows, name: str, control: str) -> str:
    if control == "position":
        m = len(rows.models)
        in_a = np.bincount(rows.a, minlength=m) > 0
        in_b = np.bincount(rows.b, minlength=m) > 0
        fixed = [rows.models[k] for k in np.flatnonzero(in_a != in_b)]
        return (
            "The first-slot advantage is not identified here: "
            + (
                f"{fmt_list(fixed)} always {'sits' if len(fixed) == 1 else 'sit'} in one slot, so "
                if fixed
                else ""
            )
            + "a slot-A advantage cannot be told apart from the models' strengths (an "
            "anchor-only table with the reference always in one slot is the usual case). Judge "
            "some pairs in both orders, or with the slots drawn at random, to measure it."
        )
    if control == "family":
        return (
            "Same-family control is not identified here: with one judge (or judges of one "
            "family), being of the judge's family is a fixed trait of each model, which its "
            "strength already absorbs. Pool judges of different families to measure it."
        )
    return (
        f"The {name} covariate is not identified here: it is a fixed trait of each model or "
        "moves in step with another control, so the models' strengths absorb it."
    )


def meaning(name: str, control: str, est: Estimate, scale: float) -> str:
    elo = est.scaled(ELO_SCALE)
    worth = (
        f"{fmt_signed(elo.value, 1)} Elo points (95% {fmt_signed(elo.low, 1)} to {fmt_signed(elo.high, 1)})"
    )
    if control == "position":
        text = f"The answer in slot A is worth {worth} over the same answer in slot B"
    elif control == "family":
        text = f"An answer by a model of the judge's own family is worth {worth} with that judge"
    elif name == "length":
        ratio = (1.0 + scale) / (1.0 - scale) if scale < 1 else math.inf
        text = f"An answer {fmt_num(ratio, 1)} times as long as its rival's is worth {worth}"
    else:
        what = WORDS.get(name, f"'{name}'")
        text = (
            f"One standard deviation more {what} than the rival (a relative difference of "
            f"{fmt_num(scale, 2)}) is worth {worth}"
        )
    if est.low <= 0 <= est.high:
        text += "; the interval includes 0, so no clear effect"
    return text + "."
