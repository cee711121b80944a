"""The search for the fewest verdicts that reverse an order (Huang, Shen, Wei & Broderick 2025).

:func:`take_calls` takes the calls of most negative first-order influence until their summed
effect exceeds the gap; :class:`Search` refits and re-linearises until the order flips, minimises
the set, and runs the exhaustive proof that no smaller set flips it on small tables.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from evalcore.ranking.bradley_terry import ELO_SCALE
from evalcore.ranking.fragility.outcomes import BATCH_BYTES, Outcomes
from evalcore.ranking.fragility.results import TOLERANCE_ELO

_TOL = TOLERANCE_ELO / ELO_SCALE
_MAX_ROUNDS = 30
_MAX_PRUNE = 64
_PRUNE_BATCH = 8


#: Candidates :func:`take_calls` sorts first; more (doubling) only when they do not settle it.
_FIRST_SORTED = 256


def take_calls(
    delta: np.ndarray, room: np.ndarray, gap: float, limit: int
) -> tuple[np.ndarray, np.ndarray, int | None]:
    """The most negative-influence calls, in order, until their first-order effect exceeds ``gap``
    or ``limit`` calls are taken. Returns (classes in order, calls of each, first-order need).

    Only the head of the order is sorted (an arena table has tens of thousands of classes and a
    few are taken): the candidates up to a cut, ties at the cut included, in the order a stable
    sort of all of them gives; a head that ends before the answer is settled doubles."""
    idx = np.flatnonzero((delta < 0) & (room > 0))
    values = delta[idx]
    size = _FIRST_SORTED
    while size < idx.size:
        cut = np.partition(values, size)[size]
        head = np.flatnonzero(values <= cut)  # in index order: a stable sort keeps it for ties
        order = idx[head[np.argsort(values[head], kind="stable")]]
        got = _take(order, delta, room, gap, limit)
        if got is not None:
            return got
        size *= 2
    got = _take(idx[np.argsort(values, kind="stable")], delta, room, gap, limit, whole=True)
    assert got is not None
    return got


def _take(
    order: np.ndarray, delta: np.ndarray, room: np.ndarray, gap: float, limit: int, *, whole: bool = False
) -> tuple[np.ndarray, np.ndarray, int | None] | None:
    """:func:`take_calls` on the first classes of the order (all of them when ``whole``); None
    when those do not settle what is taken (the answer may lie beyond them)."""
    gain, cap = -delta[order], room[order]
    cum_gain = np.cumsum(gain * cap)
    cum_calls = np.cumsum(cap)
    k = int(np.searchsorted(cum_gain, gap, side="right"))
    need = None
    if k < order.size:
        before = cum_gain[k] - gain[k] * cap[k]
        in_k = min(int(cap[k]), int(math.floor((gap - before) / gain[k])) + 1)
        need = int(cum_calls[k] - cap[k]) + max(in_k, 1)
    elif not whole:
        return None  # the gap is not reached within these classes (the need lies beyond them)
    n = min(need if need is not None else int(cum_calls[-1]) if cap.size else 0, limit)
    if not whole and cum_calls[-1] <= n:
        return None  # the last class taken may be the next one
    full = int(np.searchsorted(cum_calls, n, side="right"))
    take = cap[: full + 1].copy()
    if full < take.size:
        take[full] = n - (cum_calls[full - 1] if full else 0)
    keep = take > 0
    return order[: full + 1][keep], take[keep], need


class Search:
    """The greedy, refit-verified search for one table (shared across pairs)."""

    def __init__(self, out: Outcomes, theta: np.ndarray, prior: float, max_drop: int, n_calls: int):
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
            cls, n, need = take_calls(delta, o.room(removed), gap, left)
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
            if not open_pairs or done + cost > budget or s > o.total:
                break
            done += cost
            checked = s
            rows = max(1, BATCH_BYTES // (8 * o.size))
            combos = itertools.combinations_with_replacement(range(o.size), s)
            while chunk := list(itertools.islice(combos, rows)):
                pick = np.asarray(chunk, dtype=np.int64)
                removed = np.zeros((pick.shape[0], o.size), dtype=np.int64)
                for col in range(s):
                    np.add.at(removed, (np.arange(pick.shape[0]), pick[:, col]), 1)
                removed = removed[o.feasible(removed)]
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
