"""The verdict table as interchangeable outcomes, the private representation of the search.

The Bradley–Terry fit sees only the pooled win matrix, so calls with the same two models and the
same outcome (x beat y, or a tie) are interchangeable. :class:`Outcomes` holds the table as
these outcome classes (win matrices, first-order influence, refits after a removal);
:class:`CellIndex` names the concrete calls of a removal, in instruction order.
"""

from __future__ import annotations

import numpy as np

from evalcore.counts import VerdictCounts
from evalcore.ranking.bradley_terry import _sigmoid, fit_bradley_terry, mle_exists
from evalcore.ranking.fragility.results import DroppedCalls
from evalcore.ranking.intervals import fisher_information
from evalcore.schema import LEVELS

#: Memory for one batch of refits (bytes).
BATCH_BYTES = 48 * 1024**2
_LEVELS = np.asarray(LEVELS)


class Outcomes:
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
        per = max(1, BATCH_BYTES // (10 * m * m * 8))
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


class CellIndex:
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

    def name(self, out: Outcomes, removed: np.ndarray, limit: int) -> tuple[DroppedCalls, ...]:
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
