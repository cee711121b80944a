"""The results of a fragility search: the calls removed, per pair and for the whole ranking.

:class:`PairFragility` says how many verdicts a pair's order rests on and which they are;
:class:`RankingFragility` holds every pair and the headline sentence. The search that fills them
is in :mod:`evalcore.ranking.fragility.search`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:  # pandas is imported where a table is made
    import pandas as pd

PairsMode = Literal["leader", "adjacent"]
#: A reversal smaller than this (Elo points) is a tie, not a flip.
TOLERANCE_ELO = 1e-6
#: Concrete calls listed per pair (the outcome summary always covers the whole set).
LIST_LIMIT = 100


@dataclass(frozen=True)
class DroppedCalls:
    """``count`` calls on ``instruction`` with ``model_a`` in slot A, ``model_b`` in slot B and
    verdict ``level`` (slot A's point of view)."""

    instruction: str
    model_a: str
    model_b: str
    level: int
    count: int

    def as_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass(frozen=True)
class DroppedOutcome:
    """``count`` of the ``available`` calls in which ``winner`` beat ``loser`` (``outcome="win"``)
    or the two tied (``outcome="tie"``); the fit cannot tell these calls apart. ``becomes``: for a
    flip, the model the flipped calls now call the winner (``None`` for a removal)."""

    winner: str
    loser: str
    outcome: str
    count: int
    available: int
    becomes: str | None = None

    def as_dict(self) -> dict:
        out = dict(self.__dict__)
        if self.becomes is None:  # a removal: the keys stay as they were
            del out["becomes"]
        return out


@dataclass(frozen=True, repr=False)
class PairFragility:
    """How many calls must go for ``behind`` to rate above ``ahead`` (see :func:`ranking_fragility`).

    ``n_drop`` is the smallest number found (``None``: no flip found within ``max_drop``; ``0``:
    the two are already tied). ``lower_bound``: every set of fewer calls was refitted and none
    flips the order (1 when nothing was checked exhaustively); ``proven_minimal`` when it equals
    ``n_drop``. ``first_order_drop`` is the AMIP estimate on the full data (``None`` when even all
    calls with a negative influence do not suffice to first order) and ``first_order_flips``
    whether removing that set flips the order on refit (``None`` when over ``max_drop``).
    With ``kind="flip"`` every count is of verdicts reversed instead of removed, and
    :meth:`as_dict` names them ``n_flip``, ``first_order_flip`` and ``max_flip``.
    """

    ahead: str
    behind: str
    gap: float  # Elo points, full data
    n_drop: int | None
    share: float | None
    gap_after: float | None  # Elo points after the removal (negative when flipped)
    outcomes: tuple[DroppedOutcome, ...]
    calls: tuple[DroppedCalls, ...]
    lower_bound: int
    first_order_drop: int | None
    first_order_flips: bool | None
    max_drop: int
    n_calls: int
    kind: str = "remove"

    @property
    def flipped(self) -> bool:
        return self.n_drop is not None and self.n_drop > 0

    @property
    def proven_minimal(self) -> bool:
        return self.flipped and self.lower_bound >= (self.n_drop or 0)

    def sentence(self) -> str:
        """The result in words."""
        if self.n_drop == 0:
            return f"{self.ahead} and {self.behind} are tied: there is no order to flip."
        verb, noun = _WORDS[self.kind]
        if self.n_drop is None:
            if self.lower_bound > self.max_drop:
                return (
                    f"{self.ahead} stays ahead of {self.behind} after {verb} any "
                    f"{_plural(self.max_drop)} ({_pct(self.max_drop / self.n_calls)} of all): "
                    f"every such {noun} was checked."
                )
            return (
                f"{self.ahead} stays ahead of {self.behind} after {verb} up to "
                f"{_plural(self.max_drop)} ({_pct(self.max_drop / self.n_calls)} of all): the most "
                f"influential {noun}s found do not flip the order."
            )
        text = (
            f"{verb.capitalize()} {_plural(self.n_drop)} ({_pct(self.share or 0.0)} of all) puts "
            f"{self.behind} ahead of {self.ahead}"
        )
        return text + ("; no smaller set does." if self.proven_minimal else ".")

    def as_dict(self) -> dict:
        out = {k: v for k, v in self.__dict__.items() if k not in ("outcomes", "calls", "kind")}
        out = _renamed(out, self.kind)
        out["flipped"] = self.flipped
        out["proven_minimal"] = self.proven_minimal
        out["outcomes"] = [o.as_dict() for o in self.outcomes]
        out["calls"] = [c.as_dict() for c in self.calls]
        out["calls_listed_all"] = sum(c.count for c in self.calls) == (self.n_drop or 0)
        if self.kind == "flip":
            out["kind"] = self.kind
        out["sentence"] = self.sentence()
        return out

    def __repr__(self) -> str:
        found = "no flip" if self.n_drop is None else f"{self.n_drop} calls"
        return f"PairFragility({self.ahead} > {self.behind}: {found} within {self.max_drop})"


@dataclass(frozen=True, repr=False)
class RankingFragility:
    """The fragility of one judge's leaderboard (see :func:`ranking_fragility`)."""

    judge: str | None
    mode: str
    leader: str
    n_calls: int
    max_drop: int
    pairs: tuple[PairFragility, ...]
    notes: tuple[str, ...]
    exhaustive_refits: int  # candidate removals refitted by the exhaustive search
    kind: str = "remove"  # "flip": verdicts reversed, not removed

    @property
    def lead(self) -> PairFragility | None:
        """The pair that decides the top spot: in ``"leader"`` mode the challenger that needs the
        fewest removals; in ``"adjacent"`` mode the leader against the runner-up."""
        top = [p for p in self.pairs if p.ahead == self.leader]
        if not top:
            return None
        if self.mode == "adjacent":
            return top[0]
        found = [p for p in top if p.n_drop is not None]
        return min(found, key=lambda p: p.n_drop or 0) if found else min(top, key=lambda p: p.lower_bound)

    def headline(self) -> str:
        """One sentence for an overview: how many verdicts the lead rests on."""
        p = self.lead
        if p is None:
            return f"{self.leader} has no rival it was compared with, directly or through others."
        if p.n_drop == 0:
            return f"{p.ahead} and {p.behind} are tied at the top: there is no lead to flip."
        verb, noun = _WORDS[self.kind]
        if p.n_drop is not None:
            text = (
                f"The lead of {p.ahead} rests on {_plural(p.n_drop)} ({_pct(p.share or 0.0)} of "
                f"all {self.n_calls:,}): {verb} them puts {p.behind} ahead"
            )
            return text + ("; no smaller set does." if p.proven_minimal else ".")
        share = _pct(self.max_drop / self.n_calls)
        if p.lower_bound > self.max_drop:
            return (
                f"The lead of {p.ahead} survives {verb} any {_plural(self.max_drop)} ({share} of "
                f"all {self.n_calls:,}): every such {noun} was checked."
            )
        return (
            f"The lead of {p.ahead} survives {verb} up to {_plural(self.max_drop)} ({share} of all "
            f"{self.n_calls:,}): the most influential {noun}s found do not flip it."
        )

    def flip_clause(self, behind: str) -> str | None:
        """For a flip search: one clause to set beside the removal headline, whose flip puts
        ``behind`` ahead ("reversing 6 verdicts would do the same"); None when no reversal of the
        lead was found."""
        p = self.lead
        if self.kind != "flip" or p is None or not p.n_drop:
            return None
        proven = ", and no fewer," if p.proven_minimal else ""
        what = "do the same" if p.behind == behind else f"put {p.behind} ahead"
        return f"reversing {_plural(p.n_drop)}{proven} would {what}"

    def table(self) -> pd.DataFrame:
        """One row per pair: ahead, behind, gap, n_drop, share, flipped, proven_minimal, …"""
        import pandas as pd

        cols = [
            "ahead",
            "behind",
            "gap",
            "n_drop",
            "share",
            "gap_after",
            "lower_bound",
            "first_order_drop",
            "first_order_flips",
        ]
        rows = [{c: getattr(p, c) for c in cols} | {"proven_minimal": p.proven_minimal} for p in self.pairs]
        return pd.DataFrame(rows, columns=[*cols, "proven_minimal"])

    def as_dict(self) -> dict:
        out = {
            "judge": self.judge,
            "mode": self.mode,
            "leader": self.leader,
            "n_calls": self.n_calls,
            "max_drop": self.max_drop,
            "headline": self.headline(),
            "exhaustive_refits": self.exhaustive_refits,
            "notes": list(self.notes),
            "pairs": [p.as_dict() for p in self.pairs],
        }
        if self.kind == "flip":
            out = _renamed(out, self.kind) | {"kind": self.kind}
        return out

    def __repr__(self) -> str:
        return f"RankingFragility({self.mode}, {len(self.pairs)} pairs, max_drop={self.max_drop:,})"


#: kind -> (the verb, the noun) of the sentences.
_WORDS = {"remove": ("removing", "removal"), "flip": ("flipping", "flip")}
#: The ``--json`` keys of a flip search: its counts are of verdicts flipped, not removed.
_FLIP_KEYS = {"n_drop": "n_flip", "first_order_drop": "first_order_flip", "max_drop": "max_flip"}


def _renamed(out: dict, kind: str) -> dict:
    if kind != "flip":
        return out
    return {_FLIP_KEYS.get(k, k): v for k, v in out.items()}


def _plural(n: int) -> str:
    return f"{n:,} verdict" + ("" if n == 1 else "s")


def _pct(x: float) -> str:
    """A share as a percentage with two significant digits (0.0035%, 1.2%, 50%)."""
    if x <= 0:
        return "0%"
    digits = max(0, 1 - math.floor(math.log10(100 * x)))
    return f"{100 * x:.{digits}f}%"
