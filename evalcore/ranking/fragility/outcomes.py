"""The verdict table as interchangeable outcomes, the private representation of the search.

The Bradley–Terry fit sees only the pooled win matrix, so calls with the same two models and the
same outcome (x beat y, or a tie) are interchangeable. :class:`Outcomes` holds the table as
these outcome classes (win matrices, first-order influence, refits after a removal);
:class:`CellIndex` names the concrete calls of a removal, in instruction order.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from evalcore.counts import VerdictCounts
from evalcore.ranking import sparse_fit
from evalcore.ranking.bradley_terry import _sigmoid, fit_bradley_terry, mle_exists
from evalcore.ranking.fragility.results import DroppedCalls
from evalcore.ranking.intervals import fisher_information
from evalcore.schema import LEVELS

#: Memory for one batch of refits (bytes).
BATCH_BYTES = 48 * 1024**2
_LEVELS = np.asarray(LEVELS)


#: What a search may do to a verdict: take it out of the table, or reverse it.
Kind = Literal["remove", "flip"]


class Outcomes:
    """The table as interchangeable outcomes, and the moves a search may make on them.

    Class c is "cx[c] beat cy[c]" (``tie[c]`` False) or "cx[c] tied cy[c]" (True, cx < cy). With
    ``kind="remove"`` each class is one move (take one of its calls out); with ``kind="flip"`` a
    win class is one move (the call becomes a win for the other model) and a tie class two (the
    call becomes a win for either model), the two drawing on the same calls. The arrays ``cx``,
    ``cy``, ``tie`` and ``avail`` are per move (the class it acts on); a move adds ``dxy`` to
    ``wins[mx, my]`` and ``dyx`` to ``wins[my, mx]``; ``pool`` names the calls it draws on. Moves
    are integer vectors over ``size`` moves, feasible while no pool is overdrawn.
    """

    def __init__(self, counts: VerdictCounts, kind: Kind = "remove"):
        self.m = counts.n_models
        self.kind = kind
        pooled = counts.pooled()
        a_win = pooled[..., _LEVELS > 0].sum(-1)
        a_loss = pooled[..., _LEVELS < 0].sum(-1)
        a_tie = pooled[..., _LEVELS == 0].sum(-1)
        won = a_win + a_loss.T  # won[x, y]: calls in which x beat y (either slot)
        ties = a_tie + a_tie.T
        self.wins = won + 0.5 * ties  # the pooled win matrix of the leaderboard
        wx, wy = np.nonzero(won)
        tx, ty = np.nonzero(np.triu(ties, 1))
        n_w, n_t = wx.size, tx.size
        cx, cy = np.concatenate([wx, tx]), np.concatenate([wy, ty])
        tie = np.r_[np.zeros(n_w, bool), np.ones(n_t, bool)]
        avail = np.concatenate([won[wx, wy], ties[tx, ty]]).astype(np.int64)
        pool = np.arange(n_w + n_t)
        if kind == "remove":  # one call fewer: its score leaves x's row, a tie's half leaves y's too
            dxy = np.where(tie, -0.5, -1.0)
            dyx = np.where(tie, -0.5, 0.0)
        else:  # a win for x becomes one for y; a tie becomes a win for x (+½) or for y (−½)
            cx, cy, tie = np.r_[cx, tx], np.r_[cy, ty], np.r_[tie, np.ones(n_t, bool)]
            avail, pool = np.r_[avail, avail[n_w:]], np.r_[pool, pool[n_w:]]
            dxy = np.r_[np.full(n_w, -1.0), np.full(n_t, 0.5), np.full(n_t, -0.5)]
            dyx = -dxy
        self.cx, self.cy, self.tie, self.avail, self.pool = cx, cy, tie, avail, pool
        self.mx, self.my, self.dxy, self.dyx = cx, cy, dxy, dyx
        self.pool_avail = np.concatenate([won[wx, wy], ties[tx, ty]]).astype(np.int64)
        self.total = int(self.pool_avail.sum())
        self.size = int(self.avail.size)
        self.exists = bool(mle_exists(self.wins)) and self.m > 1

    def new_winner(self, c: int) -> int:
        """The model a flip by move ``c`` makes the winner of its calls."""
        return int(self.mx[c] if self.dxy[c] > 0 else self.my[c])

    def room(self, moved: np.ndarray) -> np.ndarray:
        """Calls each move can still take after ``moved`` (a vector over moves)."""
        used = np.bincount(self.pool, weights=moved, minlength=self.pool_avail.size)
        return self.pool_avail[self.pool] - used[self.pool].astype(np.int64)

    def feasible(self, moved: np.ndarray) -> np.ndarray:
        """Which rows of ``moved`` (B, size) overdraw no pool of calls."""
        moved = np.atleast_2d(moved)
        used = np.zeros((moved.shape[0], self.pool_avail.size), dtype=np.int64)
        np.add.at(used.T, self.pool, moved.T)  # per row: the calls each pool gives up
        return np.asarray((used <= self.pool_avail).all(axis=1))

    def wins_after(self, removed: np.ndarray) -> np.ndarray:
        """Win matrices (B, M, M) after ``removed[b, c]`` calls of each move."""
        removed = np.atleast_2d(removed)
        m = self.m
        out = np.broadcast_to(self.wins.ravel(), (removed.shape[0], m * m)).copy()
        rows, cls = np.nonzero(removed)
        amount = removed[rows, cls].astype(np.float64)
        x, y = self.mx[cls], self.my[cls]
        np.add.at(out, (rows, x * m + y), amount * self.dxy[cls])
        np.add.at(out, (rows, y * m + x), amount * self.dyx[cls])
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
            # Existence can only change where a move empties (or, flipping, fills) an entry.
            exists = np.full(w.shape[0], self.exists)
            changed = ((w > 0) != (self.wins > 0)).any(axis=(1, 2))
            if changed.any():
                exists[changed] = mle_exists(w[changed]) & (m > 1)
            th = np.empty((w.shape[0], m))
            for group, games in ((exists, 0.0), (~exists, 1.0)):
                if group.any():
                    # one removal alone (the greedy search's every step): the dense solve is the
                    # faster below a few hundred models; the same Newton iteration and maximum
                    solver = sparse_fit.single_solver(int(group.sum()), m)
                    th[group], done = fit_bradley_terry(
                        w[group], prior_games=games, theta0=theta0, solver=solver
                    )
                    if not done:  # far from the start (many flips), undamped Newton can wander:
                        th[group], _ = fit_bradley_terry(
                            w[group], prior_games=games, solver=solver
                        )  # as the leaderboard
            theta[lo : lo + per] = th
            prior[lo : lo + per] = np.where(exists, 0.0, 1.0)
        return theta, prior

    def influence(
        self, wins: np.ndarray, theta: np.ndarray, prior: float, directions: np.ndarray
    ) -> np.ndarray:
        """First-order change of each direction·θ (columns of ``directions``, e.g. e_i − e_j)
        from one call of each move (AMIP): (C, P). A move adding dxy to wins[x, y] and dyx to
        wins[y, x] changes the score equations by (dxy − (dxy + dyx) p_xy)(e_x − e_y), so θ by
        H⁻¹ times that: −(s − p_xy) for removing a call of score s, −1 for reversing a win."""
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
        p = _sigmoid(theta[self.mx] - theta[self.my])
        push = self.dxy - (self.dxy + self.dyx) * p
        return push[:, None] * (u[self.mx] - u[self.my])


class CellIndex:
    """Cells grouped by ordered pair (slot A, slot B), each group in instruction order: built once,
    so naming the calls of a set costs a binary search per outcome, not a pass over all cells."""

    def __init__(self, counts: VerdictCounts):
        self.counts = counts
        self.m = counts.n_models
        key = counts.a.astype(np.int64) * self.m + counts.b
        # up to 256 models the pairs fit in 16 bits, where numpy's stable sort is a radix sort
        # (one pass, not a merge sort of every cell); the same order either way
        small = key.astype(np.uint16) if self.m * self.m <= 1 << 16 else key
        self.order = np.argsort(small, kind="stable")
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
