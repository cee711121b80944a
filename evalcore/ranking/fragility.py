"""Fragility of a Bradley–Terry ranking: the fewest verdicts whose removal reverses an order.

For a pair of models (the leader and a challenger, or two neighbours on the leaderboard) the
question is: what is the smallest set of judge calls whose removal makes the model behind rate
above the model ahead, when the ratings are refitted exactly as the leaderboard fits them?

The search follows Huang, Shen, Wei & Broderick (2025), who found that dropping 2 of 57,477
Chatbot Arena votes changes the top model. It has three steps.

1. **First-order influence** (the approximate maximum influence perturbation, AMIP, of Broderick,
   Giordano & Meager): removing one call of model x against model y, with score s for x (1 a
   win, ½ a tie), moves the strengths by about −H⁻¹ (s − p_xy)(e_x − e_y), H the Fisher
   information. Its effect on the gap θ_ahead − θ_behind is −(s − p_xy)(u_x − u_y) with
   u = H⁻¹(e_ahead − e_behind): one linear solve per pair. The calls with the most negative
   effect, taken until their summed effect exceeds the gap, are the AMIP set.
2. **Refit and re-linearise**: the AMIP set is removed and the ratings refitted; if the order has
   not flipped, the influence is recomputed at the new fit and more calls are taken, until the
   order flips or ``max_drop`` calls are gone. A flip is always *verified* by a refit.
3. **Minimise**: the shortest prefix of the removal sequence that still flips (bisection), then
   single calls put back while the flip survives. On small tables an **exhaustive** search over
   every removal of 1, 2, … calls (bounded by ``exhaustive`` refits) proves that no smaller set
   flips the order, or finds one.

The Bradley–Terry fit sees only the pooled win matrix, so calls with the same two models and the
same outcome (x beat y, or a tie) are interchangeable: the search works on these *outcomes* (at
most M² + M²/2 of them, whatever the number of instructions), and the concrete calls reported are
the first such calls in instruction order. Memory stays at a few M × M matrices per refit, and a
per-cell index only for naming the calls found.

(The module is longer than the usual 500 lines on purpose: the result types, the guided search and
the exhaustive proof share one private representation of the table as outcomes.)
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

from evalcore.counts import VerdictCounts
from evalcore.errors import UsageError, check_int
from evalcore.ranking.bradley_terry import (
    ELO_SCALE,
    _sigmoid,
    comparison_graph,
    fit_bradley_terry,
    mle_exists,
    ranks_descending,
)
from evalcore.ranking.intervals import fisher_information
from evalcore.schema import LEVELS
from evalcore.stats.threads import single_blas_thread

if TYPE_CHECKING:  # pandas is imported where a table is made
    import pandas as pd

PairsMode = Literal["leader", "adjacent"]
#: A reversal smaller than this (Elo points) is a tie, not a flip.
TOLERANCE_ELO = 1e-6
#: Concrete calls listed per pair (the outcome summary always covers the whole set).
LIST_LIMIT = 100
_TOL = TOLERANCE_ELO / ELO_SCALE
_MAX_ROUNDS = 30
_MAX_PRUNE = 64
_PRUNE_BATCH = 8
_BATCH_BYTES = 48 * 1024**2
_LEVELS = np.asarray(LEVELS)


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
    or the two tied (``outcome="tie"``); the fit cannot tell these calls apart."""

    winner: str
    loser: str
    outcome: str
    count: int
    available: int

    def as_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass(frozen=True, repr=False)
class PairFragility:
    """How many calls must go for ``behind`` to rate above ``ahead`` (see :func:`ranking_fragility`).

    ``n_drop`` is the smallest number found (``None``: no flip found within ``max_drop``; ``0``:
    the two are already tied). ``lower_bound``: every set of fewer calls was refitted and none
    flips the order (1 when nothing was checked exhaustively); ``proven_minimal`` when it equals
    ``n_drop``. ``first_order_drop`` is the AMIP estimate on the full data (``None`` when even all
    calls with a negative influence do not suffice to first order) and ``first_order_flips``
    whether removing that set flips the order on refit (``None`` when over ``max_drop``).
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
        if self.n_drop is None:
            if self.lower_bound > self.max_drop:
                return (
                    f"{self.ahead} stays ahead of {self.behind} after removing any "
                    f"{_plural(self.max_drop)} ({_pct(self.max_drop / self.n_calls)} of all): "
                    "every such removal was checked."
                )
            return (
                f"{self.ahead} stays ahead of {self.behind} after removing up to "
                f"{_plural(self.max_drop)} ({_pct(self.max_drop / self.n_calls)} of all): the most "
                "influential removals found do not flip the order."
            )
        text = (
            f"Removing {_plural(self.n_drop)} ({_pct(self.share or 0.0)} of all) puts {self.behind} "
            f"ahead of {self.ahead}"
        )
        return text + ("; no smaller set does." if self.proven_minimal else ".")

    def as_dict(self) -> dict:
        out = {k: v for k, v in self.__dict__.items() if k not in ("outcomes", "calls")}
        out["flipped"] = self.flipped
        out["proven_minimal"] = self.proven_minimal
        out["outcomes"] = [o.as_dict() for o in self.outcomes]
        out["calls"] = [c.as_dict() for c in self.calls]
        out["calls_listed_all"] = sum(c.count for c in self.calls) == (self.n_drop or 0)
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
        if p.n_drop is not None:
            text = (
                f"The lead of {p.ahead} rests on {_plural(p.n_drop)} ({_pct(p.share or 0.0)} of "
                f"all {self.n_calls:,}): removing them puts {p.behind} ahead"
            )
            return text + ("; no smaller set does." if p.proven_minimal else ".")
        share = _pct(self.max_drop / self.n_calls)
        if p.lower_bound > self.max_drop:
            return (
                f"The lead of {p.ahead} survives removing any {_plural(self.max_drop)} ({share} of "
                f"all {self.n_calls:,}): every such removal was checked."
            )
        return (
            f"The lead of {p.ahead} survives removing up to {_plural(self.max_drop)} ({share} of all "
            f"{self.n_calls:,}): the most influential removals found do not flip it."
        )

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
        return {
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

    def __repr__(self) -> str:
        return f"RankingFragility({self.mode}, {len(self.pairs)} pairs, max_drop={self.max_drop:,})"


def _plural(n: int) -> str:
    return f"{n:,} verdict" + ("" if n == 1 else "s")


def _pct(x: float) -> str:
    """A share as a percentage with two significant digits (0.0035%, 1.2%, 50%)."""
    if x <= 0:
        return "0%"
    digits = max(0, 1 - math.floor(math.log10(100 * x)))
    return f"{100 * x:.{digits}f}%"


class _Outcomes:
    """The table as interchangeable outcomes: class c is "cx[c] beat cy[c]" (``tie[c]`` False) or
    "cx[c] tied cy[c]" (True, cx < cy), with ``avail[c]`` calls. Removals are integer vectors."""

    def __init__(self, counts: VerdictCounts):
        self.m = counts.n_models
        pooled = counts.pooled()
        a_win = pooled[..., _LEVELS > 0].sum(-1)
        a_loss = pooled[..., _LEVELS < 0].sum(-1)
        a_tie = pooled[..., _LEVELS == 0].sum(-1)
        won = a_win + a_loss.T  # won[x, y]: calls in which x beat y (either slot)
        ties = a_tie + a_tie.T
        self.wins = won + 0.5 * ties  # the pooled win matrix of the leaderboard
        wx, wy = np.nonzero(won)
        tx, ty = np.nonzero(np.triu(ties, 1))
        self.cx = np.concatenate([wx, tx])
        self.cy = np.concatenate([wy, ty])
        self.tie = np.r_[np.zeros(wx.size, bool), np.ones(tx.size, bool)]
        self.avail = np.concatenate([won[wx, wy], ties[tx, ty]]).astype(np.int64)
        self.score = np.where(self.tie, 0.5, 1.0)
        self.size = int(self.avail.size)
        self.scored = self.wins > 0
        self.exists = bool(mle_exists(self.wins)) and self.m > 1

    def wins_after(self, removed: np.ndarray) -> np.ndarray:
        """Win matrices (B, M, M) after removing ``removed[b, c]`` calls of each class."""
        removed = np.atleast_2d(removed)
        m = self.m
        out = np.broadcast_to(self.wins.ravel(), (removed.shape[0], m * m)).copy()
        rows, cls = np.nonzero(removed)
        amount = removed[rows, cls].astype(np.float64)
        x, y = self.cx[cls], self.cy[cls]
        np.add.at(out, (rows, x * m + y), -amount * self.score[cls])
        t = self.tie[cls]
        np.add.at(out, (rows[t], y[t] * m + x[t]), -0.5 * amount[t])
        return np.clip(out, 0.0, None).reshape(-1, m, m)

    def refit(self, removed: np.ndarray, theta0: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Strengths (B, M) refitted as the leaderboard fits them (plain MLE where it exists, the
        weak prior where it does not), in memory-bounded batches; and the prior used per row."""
        removed = np.atleast_2d(removed)
        m = self.m
        per = max(1, _BATCH_BYTES // (10 * m * m * 8))
        theta = np.empty((removed.shape[0], m))
        prior = np.empty(removed.shape[0])
        for lo in range(0, removed.shape[0], per):
            w = self.wins_after(removed[lo : lo + per])
            # Existence can only change where a removal empties an entry of the win matrix.
            exists = np.full(w.shape[0], self.exists)
            emptied = ((w <= 0) & self.scored).any(axis=(1, 2))
            if emptied.any():
                exists[emptied] = mle_exists(w[emptied]) & (m > 1)
            th = np.empty((w.shape[0], m))
            for group, games in ((exists, 0.0), (~exists, 1.0)):
                if group.any():
                    th[group], _ = fit_bradley_terry(w[group], prior_games=games, theta0=theta0)
            theta[lo : lo + per] = th
            prior[lo : lo + per] = np.where(exists, 0.0, 1.0)
        return theta, prior

    def influence(
        self, wins: np.ndarray, theta: np.ndarray, prior: float, directions: np.ndarray
    ) -> np.ndarray:
        """First-order change of each direction·θ (columns of ``directions``, e.g. e_i − e_j)
        from removing one call of each class (AMIP): (C, P)."""
        h = fisher_information(wins, theta, prior_games=prior)
        if not prior:
            # The plain MLE exists only on a connected graph, where H + 11ᵀ/M is positive
            # definite and its inverse acts as H⁺ on differences (which sum to zero).
            h = h + 1.0 / self.m
        try:
            from scipy.linalg import cho_factor, cho_solve  # here: `rank` imports this module

            u = cho_solve(cho_factor(h), directions)
        except np.linalg.LinAlgError:
            u = np.linalg.pinv(h, hermitian=True) @ directions
        p = _sigmoid(theta[self.cx] - theta[self.cy])
        return -(self.score - p)[:, None] * (u[self.cx] - u[self.cy])


def _take(
    delta: np.ndarray, room: np.ndarray, gap: float, limit: int
) -> tuple[np.ndarray, np.ndarray, int | None]:
    """The most negative-influence calls, in order, until their first-order effect exceeds ``gap``
    or ``limit`` calls are taken. Returns (classes in order, calls of each, first-order need)."""
    idx = np.flatnonzero((delta < 0) & (room > 0))
    order = idx[np.argsort(delta[idx], kind="stable")]
    gain, cap = -delta[order], room[order]
    cum_gain = np.cumsum(gain * cap)
    cum_calls = np.cumsum(cap)
    k = int(np.searchsorted(cum_gain, gap, side="right"))
    need = None
    if k < order.size:
        before = cum_gain[k] - gain[k] * cap[k]
        in_k = min(int(cap[k]), int(math.floor((gap - before) / gain[k])) + 1)
        need = int(cum_calls[k] - cap[k]) + max(in_k, 1)
    n = min(need if need is not None else int(cum_calls[-1]) if cap.size else 0, limit)
    full = int(np.searchsorted(cum_calls, n, side="right"))
    take = cap[: full + 1].copy()
    if full < take.size:
        take[full] = n - (cum_calls[full - 1] if full else 0)
    keep = take > 0
    return order[: full + 1][keep], take[keep], need


class _Search:
    """The greedy, refit-verified search for one table (shared across pairs)."""

    def __init__(self, out: _Outcomes, theta: np.ndarray, prior: float, max_drop: int, n_calls: int):
        self.o, self.theta, self.prior, self.max_drop = out, theta, prior, max_drop
        self.n_calls = n_calls

    def flips(self, removed: np.ndarray, i: int, j: int) -> tuple[np.ndarray, np.ndarray]:
        th, _ = self.o.refit(removed, self.theta)
        gap = th[:, i] - th[:, j]
        return gap < -_TOL, gap

    def direction(self, i: int, j: int) -> np.ndarray:
        v = np.zeros((self.o.m, 1))
        v[i, 0], v[j, 0] = 1.0, -1.0
        return v

    def greedy(
        self, i: int, j: int, delta0: np.ndarray | None = None, budget: int | None = None
    ) -> tuple[np.ndarray | None, int | None, bool | None]:
        """(removal vector that flips i/j or None, first-order need, whether the AMIP set flips).
        ``delta0``: the influence on the full data, when computed for many pairs at once."""
        o = self.o
        budget = self.max_drop if budget is None else budget
        removed = np.zeros(o.size, dtype=np.int64)
        seq_cls: list[np.ndarray] = []
        seq_n: list[np.ndarray] = []
        theta, prior, wins = self.theta, self.prior, o.wins
        seen = {0: float(theta[i] - theta[j])}  # gap after removing the first L calls
        first_need: int | None = None
        first_flips: bool | None = None
        for rnd in range(_MAX_ROUNDS):
            gap = theta[i] - theta[j]
            left = budget - int(removed.sum())
            if gap < -_TOL or left <= 0:
                break
            if rnd == 0 and delta0 is not None:
                delta = delta0
            else:
                delta = o.influence(wins, theta, prior, self.direction(i, j))[:, 0]
            cls, n, need = _take(delta, o.avail - removed, gap, left)
            if rnd == 0:
                first_need = need
            if not cls.size:
                break
            np.add.at(removed, cls, n)
            seq_cls.append(cls)
            seq_n.append(n)
            th, pr = o.refit(removed, theta)
            theta, prior, wins = th[0], float(pr[0]), o.wins_after(removed)[0]
            seen[int(removed.sum())] = float(theta[i] - theta[j])
            if rnd == 0 and need is not None and need <= budget:
                first_flips = bool(theta[i] - theta[j] < -_TOL)
        if not theta[i] - theta[j] < -_TOL:
            return None, first_need, first_flips
        best = self._minimise(
            np.concatenate(seq_cls), np.concatenate(seq_n), i, j, seen, (theta, prior, wins)
        )
        return best, first_need, first_flips

    def _minimise(self, cls: np.ndarray, n: np.ndarray, i: int, j: int, seen: dict, end: tuple) -> np.ndarray:
        """The shortest flipping prefix of the removal sequence (``cls[k]`` taken ``n[k]`` times),
        then single calls put back while the flip survives. ``seen``: refitted gaps at some
        prefix lengths (0 and the whole sequence among them); ``end``: (θ, prior, wins) after it."""
        o = self.o
        cum = np.cumsum(n)

        def prefix(length: int) -> np.ndarray:
            r = np.zeros(o.size, dtype=np.int64)
            k = int(np.searchsorted(cum, length, side="left"))
            np.add.at(r, cls[:k], n[:k])
            r[cls[k]] += length - (cum[k - 1] if k else 0)
            return r

        # The gap falls nearly linearly along the sequence (calls are taken in order of their
        # influence), so the crossing is found by interpolating the refitted gaps between the
        # longest prefix known not to flip and the shortest known to flip (regula falsi), each
        # guess refitted together with the prefix one shorter; a midpoint step whenever the
        # bracket fails to halve keeps it at worst a bisection. The shortest flipping prefix is
        # always a refitted one, so the result is verified whatever the shape of the gap.
        # (Regula falsi with the Illinois modification: Dowell & Jarratt, BIT 1971.)
        lo = max(k for k, g in seen.items() if not g < -_TOL)
        hi = min(k for k, g in seen.items() if g < -_TOL)
        weight = {lo: seen[lo], hi: seen[hi]}  # Illinois: an end kept twice counts half
        last = None
        for step in itertools.count():
            if hi - lo <= 1:
                break
            width = hi - lo
            g_lo, g_hi = weight[lo], weight[hi]
            interpolate = g_lo > g_hi and step < 8  # then plain bisection, whatever the curve
            guess = lo + math.ceil(width * g_lo / (g_lo - g_hi)) if interpolate else (lo + hi) // 2
            guess = min(max(guess, lo + 1), hi - 1)
            tries = sorted({guess, max(guess - 1, lo + 1)})
            ok, gaps = self.flips(np.stack([prefix(t) for t in tries]), i, j)
            new_lo = max([lo] + [t for t, f in zip(tries, ok, strict=True) if not f])
            new_hi = min([hi] + [t for t, f in zip(tries, ok, strict=True) if f])
            for t, g in zip(tries, gaps.tolist(), strict=True):
                weight.setdefault(t, g)
            side = "hi" if new_hi != hi else "lo"
            if side == last:  # the other end was kept again: halve its pull
                if side == "hi":
                    weight[new_lo] = weight[new_lo] / 2
                else:
                    weight[new_hi] = weight[new_hi] / 2
            last = side
            lo, hi = new_lo, new_hi
        best = prefix(hi)
        theta, prior, wins = end
        contribution = o.influence(wins, theta, prior, self.direction(i, j))[:, 0]
        # Put single calls back while the order stays flipped (the one leaving the widest
        # reversal first), so that no call in the set is superfluous. The candidates are the
        # outcomes contributing least to the flip to first order, a few at a time, so that the
        # cost stays a handful of refits however large the set.
        for _ in range(_MAX_PRUNE):
            present = np.flatnonzero(best)
            present = present[np.argsort(-contribution[present], kind="stable")][:_PRUNE_BATCH]
            trial = np.repeat(best[None], present.size, axis=0)
            trial[np.arange(present.size), present] -= 1
            ok, gap = self.flips(trial, i, j)
            if not ok.any():
                break
            best = trial[np.flatnonzero(ok)[np.argmin(gap[ok])]]
        return best

    def exhaustive(
        self, pairs: list[tuple[int, int]], best: list[np.ndarray | None], budget: int
    ) -> tuple[int, int]:
        """Refit every removal of s = 1, 2, … calls while the count fits ``budget``; update
        ``best`` where a smaller flipping set exists. Returns (largest s checked, refits done)."""
        o = self.o
        done = checked = 0
        for s in range(1, self.max_drop + 1):
            open_pairs = [k for k, b in enumerate(best) if b is None or int(b.sum()) > s]
            cost = math.comb(o.size + s - 1, s)
            if not open_pairs or done + cost > budget or s > int(o.avail.sum()):
                break
            done += cost
            checked = s
            rows = max(1, _BATCH_BYTES // (8 * o.size))
            combos = itertools.combinations_with_replacement(range(o.size), s)
            while chunk := list(itertools.islice(combos, rows)):
                pick = np.asarray(chunk, dtype=np.int64)
                removed = np.zeros((pick.shape[0], o.size), dtype=np.int64)
                for col in range(s):
                    np.add.at(removed, (np.arange(pick.shape[0]), pick[:, col]), 1)
                removed = removed[(removed <= o.avail).all(axis=1)]
                if not removed.size:
                    continue
                th, _ = o.refit(removed, self.theta)
                for k in open_pairs:
                    i, j = pairs[k]
                    gap = th[:, i] - th[:, j]
                    ok = gap < -_TOL
                    held = best[k]
                    if ok.any() and (held is None or int(held.sum()) > s):
                        best[k] = removed[np.flatnonzero(ok)[np.argmin(gap[ok])]]
        return checked, done


class _CellIndex:
    """Cells grouped by ordered pair (slot A, slot B), each group in instruction order: built once,
    so naming the calls of a set costs a binary search per outcome, not a pass over all cells."""

    def __init__(self, counts: VerdictCounts):
        self.counts = counts
        self.m = counts.n_models
        key = counts.a.astype(np.int64) * self.m + counts.b
        self.order = np.argsort(key, kind="stable")
        self.sorted = key[self.order]

    def of_pair(self, x: int, y: int) -> np.ndarray:
        k = x * self.m + y
        lo, hi = np.searchsorted(self.sorted, [k, k + 1])
        return self.order[lo:hi]

    def name(self, out: _Outcomes, removed: np.ndarray, limit: int) -> tuple[DroppedCalls, ...]:
        """Concrete calls for a removal vector: for each outcome, the first matching calls in
        instruction order (strongest verdict level first), up to ``limit`` calls in all."""
        c_ = self.counts
        found: list[DroppedCalls] = []
        left = limit
        for c in np.flatnonzero(removed):
            x, y = int(out.cx[c]), int(out.cy[c])
            want = int(min(removed[c], left))
            rows = np.sort(np.concatenate([self.of_pair(x, y), self.of_pair(y, x)]))
            plan: list[tuple[int, tuple[int, ...]]]
            if out.tie[c]:
                plan = [(r, (0,)) for r in rows]
            else:  # x beat y: x in slot A with a positive level, or in slot B with a negative one
                plan = [(r, (2, 1) if c_.a[r] == x else (-2, -1)) for r in rows]
            for r, levels in plan:
                for lv in levels:
                    k = min(int(c_.n[r, lv - LEVELS[0]]), want)
                    if k:
                        want -= k
                        left -= k
                        found.append(
                            DroppedCalls(
                                c_.instructions[c_.inst[r]], c_.models[c_.a[r]], c_.models[c_.b[r]], lv, k
                            )
                        )
                if not want:
                    break
            if left <= 0:
                break
        return tuple(found)


def ranking_fragility(
    counts: VerdictCounts,
    *,
    pairs: PairsMode = "leader",
    max_drop: int | None = None,
    exhaustive: int = 2000,
    max_listed: int = LIST_LIMIT,
) -> RankingFragility:
    """The smallest number of verdicts whose removal flips the leader, or each adjacent pair.

    Parameters
    ----------
    counts : VerdictCounts
        One judge's calls (sparse counts from :meth:`evalcore.store.VerdictStore.counts`).
    pairs : {"leader", "adjacent"}, default "leader"
        ``"leader"``: the leader against every model it was compared with (directly or through
        others); the lead is the challenger needing the fewest removals. ``"adjacent"``: each
        model against the next one down the leaderboard.
    max_drop : int, optional
        The most calls removed per pair. Default: 1% of the calls, at least 10 (at most all).
    exhaustive : int, default 2000
        Largest number of candidate removals refitted to prove that no smaller set flips an
        order (all removals of 1 call, then of 2, …, while the count fits); ``0`` turns it off.
    max_listed : int, default 100
        Most concrete calls named per pair (the outcome summary always covers the whole set).

    Returns
    -------
    RankingFragility
        One :class:`PairFragility` per pair (the calls responsible, named by instruction, slot-A
        model, slot-B model and level; whether the set is proven smallest), and ``headline()``.

    Notes
    -----
    Ratings are refitted after each removal exactly as the leaderboard fits them: the plain
    maximum-likelihood Bradley–Terry fit with ties as half wins, or with a weak prior (one virtual
    tie per model) where the data leave a rating infinite. A flip means the model behind rates
    strictly above the model ahead (by more than 10⁻⁶ Elo); an exact tie is not a flip. Every
    flip reported is verified by a refit; a set is *proven* smallest only where the exhaustive
    search covered every smaller size, otherwise it is the smallest the guided search found (an
    upper bound). Calls with the same models and outcome are interchangeable for the fit. In
    ``"leader"`` mode, once some rival takes the lead with k calls, the other rivals are searched
    up to 2k + 10 calls only (their ``max_drop`` says so).

    References
    ----------
    Huang, Shen, Wei & Broderick, "Dropping Just a Handful of Preferences Can Change Top Large
    Language Model Rankings", arXiv:2508.11847 (2025).
    Broderick, Giordano & Meager, "An Automatic Finite-Sample Robustness Metric: When Can Dropping
    a Little Data Make a Big Difference?", arXiv:2011.14999 (2020; 2023).

    Examples
    --------
    >>> from evalcore.counts import VerdictCounts
    >>> c = VerdictCounts.from_cells(models=("a", "b"), instructions=("q1", "q2"), judge=None,
    ...     inst=[0, 1], a=[0, 0], b=[1, 1], n=[[2, 0, 0, 0, 3], [0, 2, 0, 3, 0]])
    >>> result = ranking_fragility(c)
    >>> result.lead.n_drop
    3
    >>> result.headline()
    'The lead of a rests on 3 verdicts (30% of all 10): removing them puts b ahead; no smaller set does.'
    """
    with single_blas_thread():  # thousands of small refits: one BLAS thread is far faster
        return _ranking_fragility(
            counts, pairs=pairs, max_drop=max_drop, exhaustive=exhaustive, max_listed=max_listed
        )


def _ranking_fragility(
    counts: VerdictCounts,
    *,
    pairs: PairsMode,
    max_drop: int | None,
    exhaustive: int,
    max_listed: int,
) -> RankingFragility:
    if not isinstance(counts, VerdictCounts):
        raise UsageError(f"counts must be VerdictCounts, not {type(counts).__name__}.")
    if pairs not in ("leader", "adjacent"):
        raise UsageError(f"pairs must be 'leader' or 'adjacent', not {pairs!r}.")
    exhaustive = check_int("exhaustive", exhaustive, low=0)
    max_listed = check_int("max_listed", max_listed, low=0)
    n_calls = counts.calls
    if counts.n_models < 2 or n_calls == 0:
        raise UsageError(
            "Fragility needs verdicts between at least two different models; this selection has "
            f"{counts.n_models} model(s) and {n_calls:,} verdict(s)."
        )
    if max_drop is None:
        max_drop = min(n_calls, max(10, math.ceil(0.01 * n_calls)))
    max_drop = min(check_int("max_drop", max_drop, low=1), n_calls)

    out = _Outcomes(counts)
    graph = comparison_graph(out.wins, counts.models)
    prior = 0.0 if graph.mle_exists else 1.0
    theta, _ = fit_bradley_terry(out.wins, prior_games=prior)
    ratings = ELO_SCALE * theta
    order = _leaderboard_order(ratings, graph.pieces, counts.models)
    piece = graph.pieces
    if pairs == "leader":
        top = order[0]
        todo = [(top, k) for k in order[1:] if piece[k] == piece[top]]
    else:
        todo = [(x, y) for x, y in itertools.pairwise(order) if piece[x] == piece[y]]

    search = _Search(out, theta, prior, max_drop, n_calls)
    # The first-order influence on the full data, for every pair with one factorisation.
    directions = np.zeros((counts.n_models, len(todo)))
    for k, (i, j) in enumerate(todo):
        directions[i, k], directions[j, k] = 1.0, -1.0
    delta0 = out.influence(out.wins, theta, prior, directions)
    best: list[np.ndarray | None] = [None] * len(todo)
    first: list[tuple[int | None, bool | None]] = [(None, None)] * len(todo)
    budgets = [max_drop] * len(todo)
    # In leader mode the challengers are searched in order of their first-order count, and once
    # one flips the lead with k calls the others are searched up to 2k + 10 calls only: the top
    # spot is decided by the smallest, and far rivals would cost the most refits.
    gaps = [theta[i] - theta[j] for i, j in todo]
    needs = [_take(delta0[:, k], out.avail, gaps[k], max_drop)[2] for k in range(len(todo))]
    order_key = [math.inf if n is None else float(n) for n in needs]
    visit = sorted(range(len(todo)), key=order_key.__getitem__)
    found_k: int | None = None
    for k in visit if pairs == "leader" else range(len(todo)):
        i, j = todo[k]
        if ratings[i] - ratings[j] <= TOLERANCE_ELO:
            best[k] = np.zeros(out.size, dtype=np.int64)
            first[k] = (0, None)
            continue
        if pairs == "leader" and found_k is not None:
            budgets[k] = min(max_drop, 2 * found_k + 10)
        r, need, flips = search.greedy(i, j, delta0[:, k], budgets[k])
        best[k] = r
        first[k] = (need, flips)
        if r is not None:
            found_k = int(r.sum()) if found_k is None else min(found_k, int(r.sum()))
    checked, refits = search.exhaustive(todo, best, exhaustive) if exhaustive else (0, 0)

    index = _CellIndex(counts) if any(r is not None and r.any() for r in best) else None
    results = [
        _pair_result(counts, out, index, search, i, j, r, need, flips, checked, ratings, max_listed, budget)
        for (i, j), r, (need, flips), budget in zip(todo, best, first, budgets, strict=True)
    ]
    notes = list(graph.notes(counts.models)[:1]) if graph.n_pieces > 1 else []
    if prior:
        notes.append(
            "The plain maximum-likelihood ratings are not all finite on these verdicts, so they "
            "are held finite by a weak prior (one virtual tie per model), as on the leaderboard; "
            "refits after a removal use the same rule."
        )
    return RankingFragility(
        judge=counts.judge,
        mode=pairs,
        leader=counts.models[order[0]],
        n_calls=n_calls,
        max_drop=max_drop,
        pairs=tuple(results),
        notes=tuple(notes),
        exhaustive_refits=refits,
    )


def _leaderboard_order(ratings: np.ndarray, pieces: np.ndarray, models: tuple[str, ...]) -> list[int]:
    """Model indices in the leaderboard's order: by piece, rank within the piece, then name."""
    rank = np.empty(ratings.size, dtype=int)
    for p in np.unique(pieces):
        members = np.flatnonzero(pieces == p)
        rank[members] = ranks_descending(ratings[members])
    return sorted(range(ratings.size), key=lambda k: (pieces[k], rank[k], models[k]))


def _pair_result(counts, out, index, search, i, j, removed, need, flips, checked, ratings, listed, budget):
    n_calls = search.n_calls
    models = counts.models
    gap = float(ratings[i] - ratings[j])
    if removed is not None and not removed.any():  # already tied
        return PairFragility(models[i], models[j], gap, 0, 0.0, gap, (), (), 0, 0, None, budget, n_calls)
    if removed is None:
        lower = checked + 1
        return PairFragility(
            models[i], models[j], gap, None, None, None, (), (), lower, need, flips, budget, n_calls
        )
    k = int(removed.sum())
    th, _ = out.refit(removed, search.theta)
    outcomes = tuple(
        DroppedOutcome(
            models[out.cx[c]],
            models[out.cy[c]],
            "tie" if out.tie[c] else "win",
            int(removed[c]),
            int(out.avail[c]),
        )
        for c in np.flatnonzero(removed)
    )
    return PairFragility(
        ahead=models[i],
        behind=models[j],
        gap=gap,
        n_drop=k,
        share=k / n_calls,
        gap_after=float(ELO_SCALE * (th[0, i] - th[0, j])),
        outcomes=outcomes,
        calls=index.name(out, removed, listed),
        lower_bound=min(k, checked + 1),
        first_order_drop=need,
        first_order_flips=flips,
        max_drop=budget,
        n_calls=n_calls,
    )
