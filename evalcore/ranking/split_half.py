"""Stability in plain numbers: how often the leader, and the top three, survive half the data.

Rank ranges and tiers say how uncertain each position is; users of public boards ask a plainer
question: "if I had collected only half the instructions, would the same model be #1?". This
module answers it by split halves (Mahalanobis's interpenetrating sub-samples, "Recent
experiments in statistical sampling in the Indian Statistical Institute", JRSS 1946; the
half-sample idea behind McCarthy's balanced half-samples, 1969): the instructions are split at
random into two halves (every verdict on an instruction stays with it), each half is refitted and
its leader and top three compared with those of all the data, ``halves`` halves in all. "The
leader stays #1 in 41 of 50 halves" reads without a statistics course; a low count warns that the
order at the top rests on which instructions happened to be asked. A half sees half the
evidence, so the counts are a conservative picture of the full table's stability (a bootstrap of
the full size would be less variable).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from evalcore.counts import VerdictCounts
from evalcore.ranking import sparse_fit
from evalcore.ranking.bradley_terry import fit_bradley_terry, ranks_descending, win_entries
from evalcore.ranking.pair_board import DIRECT_PAIR_SLOTS_PER_CELL
from evalcore.stats.bootstrap import DENSE_PATTERN_BYTES

if TYPE_CHECKING:
    from scipy import sparse
else:  # imported on first use: a ranking of few models never needs it
    from evalcore.stats.lazy_sparse import sparse

#: Halves drawn by default (the figure the board quotes: "k of 50").
HALVES = 50
#: Halves × pairs that met refitted at most by default: a table of many pairs (10,000 models,
#: 200,000 pairs) gets fewer halves, never fewer than :data:`MIN_HALVES`, so that the check stays
#: a fraction of the ranking's time (the sentence says how many halves were drawn).
HALF_PAIR_BUDGET = 2_000_000
#: The fewest halves drawn by default.
MIN_HALVES = 10
#: Virtual tie games per model: a model absent from a half (an arena's rare model) stays finite.
PRIOR_GAMES = 0.05


@dataclass(frozen=True)
class SplitHalf:
    """How often the full data's leader and top three come out on top in random halves."""

    leader: str
    top_three: tuple[str, ...]
    halves: int
    leader_stays: int
    top_three_stays: int
    #: Per model (as ``models``): in how many halves it was #1.
    models: tuple[str, ...]
    first_in: tuple[int, ...]

    def sentence(self) -> str:
        if not self.halves:
            return "Too few instructions or models to split the data in halves."
        text = f"{self.leader} stays #1 in {self.leader_stays:,} of {self.halves:,} random halves of the instructions"
        if len(self.top_three) == 3:
            text += f"; the top three stay the top three (in any order) in {self.top_three_stays:,} of {self.halves:,}"
        return text + "."

    def as_dict(self) -> dict:
        return {
            "leader": self.leader,
            "top_three": list(self.top_three),
            "halves": self.halves,
            "leader_stays": self.leader_stays,
            "top_three_stays": self.top_three_stays,
            "first_in": [{"model": m, "halves": k} for m, k in zip(self.models, self.first_in, strict=True)],
            "sentence": self.sentence(),
        }


#: Most halves × pairs numbers fitted at once over the pairs (a batch's Newton–CG work arrays).
HALF_BATCH_NUMBERS = 500_000
#: The Newton steps' stopping size over the pairs (the dense fit's): strengths are compared to
#: six decimals, and a looser fit could round the other way.
HALF_TOL = 1e-9
#: The tightest relative tolerance of their conjugate-gradient solves (the point fit's is 1e-13):
#: a half's strengths are compared to six decimals, so 1e-10 leaves them exact to far below that.
HALF_CG_FLOOR = 1e-10


#: Below this many models, and where at least half of all pairs of models met, the halves are
#: fitted densely, a batch of models × models problems
#: (:func:`~evalcore.ranking.bradley_terry.fit_bradley_terry`); else over the pairs that met
#: (below :data:`~evalcore.ranking.sparse_fit.SPARSE_FROM_MODELS` models, densely always). The
#: dense Newton step costs models³ per half, the pairs' conjugate gradients a pass over the
#: pairs per product. Measured on simulated arenas (50 halves, seconds, pairs against dense):
#: 129 models 0.21 against 0.08 (20,000 battles) and 0.35 against 0.16 (300,000); 200 models
#: 0.40 against 0.25 and 0.87 against 0.31; 300 models 0.39 against 0.59 and 1.49 against 0.56;
#: where few pairs met, 255 models with 2,000 battles 0.16 against 0.50 and 140 models with 300
#: battles 0.06 against 0.24.
DENSE_HALVES_BELOW = 256
#: Most halves × models × models numbers fitted densely at once (8 MB a work array): halves of
#: many models are fitted a batch at a time.
DENSE_BATCH_NUMBERS = 1_000_000

#: From this many instructions per pattern a half is one multivariate hypergeometric draw over
#: the patterns (its cost follows the patterns); below, positions drawn among the instructions
#: listed pattern by pattern (its cost follows the instructions). Measured on the simulated
#: arenas: 1.8 M battles in 49,200 patterns, 3.6 against 10 to 20 ms a half; 300,000 in 43,900,
#: 3.4 against 1.1 ms.
HYPERGEOMETRIC_FROM = 16


def _half_draws(
    counts: VerdictCounts, n_half: int, rng: np.random.Generator
) -> tuple[VerdictCounts, Callable[[], np.ndarray]]:
    """The representatives of the instruction patterns, and a draw of one random half: how many
    instructions of each representative's pattern the half holds (a float vector over the
    representatives' instructions).

    A random half of the instructions (``n_half`` of them, without replacement) counted per
    pattern is drawn in one of two exact ways, the cheaper for the table: with many instructions
    per pattern (an arena of millions of battles) one multivariate hypergeometric draw over the
    patterns, their multiplicities the colours (Johnson, Kotz & Balakrishnan, *Discrete
    Multivariate Distributions*, 1997), a pass over the patterns instead of a shuffle of every
    instruction; else ``n_half`` distinct positions among the instructions listed pattern by
    pattern. Either way the draws follow the patterns, which are found from the cells alone:
    they do not depend on how the instructions are numbered (their ids' order, the file's order
    of rows). The bootstrap draws its rounds over the same patterns (a multinomial).

    Draws come in pairs: a random half, then the rest of the instructions (one more than
    ``n_half`` when their number is odd), which is a random half too. Both halves of a random
    split are refitted, as in Mahalanobis's interpenetrating sub-samples, for one draw."""
    reps, mult = counts.pattern_counts()
    colours = np.asarray(mult, dtype=np.int64)
    n = int(colours.sum())
    # patterns in their own order (by their cells' hash); when every instruction is its own
    # pattern, the representatives are the instructions themselves, in their order
    place = counts.patterns.representative if reps is counts else None
    listed = None if n >= HYPERGEOMETRIC_FROM * colours.size else np.repeat(np.arange(colours.size), colours)

    other: list[np.ndarray] = []

    def draw() -> np.ndarray:
        # the halves come in pairs, a random split of the instructions and its other half
        # (Mahalanobis's interpenetrating sub-samples): each is a random half, and a split costs
        # one draw for two halves
        if other:
            drawn = other.pop()
        else:
            if listed is None:
                drawn = rng.multivariate_hypergeometric(colours, n_half).astype(np.float64)
            else:
                keep = rng.choice(n, n_half, replace=False, shuffle=False)
                drawn = np.bincount(listed[keep], minlength=colours.size).astype(np.float64)
            other.append(colours - drawn)
        if place is None:
            return drawn
        out = np.empty(reps.n_instructions)
        out[place] = drawn
        return out

    return reps, draw


def _every(counts: VerdictCounts) -> np.ndarray:
    """Each representative's pattern's multiplicity (the whole table, as a draw of every
    instruction)."""
    return np.asarray(counts.pattern_counts()[1], dtype=np.float64)


def _fit_halves_by_pairs(
    counts: VerdictCounts, halves: int, n_half: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """The full fit and the halves' fits over the pairs that met (many models): each half's
    wins are two numbers per pair, never a models × models matrix (the same draws of
    instructions, the same fits, as the dense path).

    A batch of halves is fitted as one problem: the halves side by side, each model of each half
    its own strength and only the pairs that met in that half linking them (the prior is per
    model, so the halves stay independent and the optimum is each half's). A model absent from a
    half keeps the prior's centre, its exact optimum, and drops out; a pair absent from it costs
    nothing. On an arena of 2,000 models with 2,000 battles a half has about a thousand pairs,
    half of the pairs of the table. The fits start from zero: started from the full fit, whose
    rare models sit far out (a model seen once, a win), the first Newton steps met
    near-singular information and took ten times the conjugate-gradient products.

    A half's wins are summed over instruction patterns, as in the dense path: on an arena of
    1.8 million battles a half is a count per pattern (about 50,000) and one sparse product, not
    a selection of 900,000 of the table's entries (2.6 of the check's 2.6 CPU seconds before)."""
    m = counts.n_models
    reps, draw = _half_draws(counts, n_half, rng)
    rows, cols, vals = win_entries(reps)
    first, second = cols // m, cols % m
    keep = first != second
    rows, first, second, vals = rows[keep], first[keep], second[keep], vals[keep]
    lo, hi = np.minimum(first, second), np.maximum(first, second)
    keys, pair = np.unique(lo * m + hi, return_inverse=True)
    pairs = sparse_fit.Pairs.from_arrays(keys // m, keys % m, m)
    k = pairs.n_pairs
    slot = 2 * pair + (first > second)  # even: wins of the pair's first model, odd: the second's
    # (pair slot, pattern) wins; sums of whole and half battles, exact in any order
    per_pattern = sparse.csr_matrix((vals, (slot, rows)), shape=(2 * k, reps.n_instructions))
    both = per_pattern @ np.ones(reps.n_instructions) if reps is counts else per_pattern @ _every(counts)
    full, _ = sparse_fit.fit_pairs(pairs, both[0::2], both[1::2], prior_games=PRIOR_GAMES)
    theta = np.zeros((halves, m))
    step = max(1, HALF_BATCH_NUMBERS // max(k + m, 1))
    for start in range(0, halves, step):
        stop = min(start + step, halves)
        w = np.empty((stop - start, 2 * k))
        for h in range(stop - start):  # the halves drawn as the dense path draws them
            w[h] = per_pattern @ draw()
        theta[start:stop] = _fit_side_by_side(pairs, w[:, 0::2], w[:, 1::2])
    return full, theta


def _fit_side_by_side(pairs: sparse_fit.Pairs, w_ij: np.ndarray, w_ji: np.ndarray) -> np.ndarray:
    """(B, M) strengths of B problems on the same models, fitted as one problem over the pairs
    each one has (see :func:`_fit_halves_by_pairs`), each centred as
    :func:`~evalcore.ranking.sparse_fit.fit_pairs` centres it."""
    n_batch, m = w_ij.shape[0], pairs.n_models
    half, pair = np.nonzero(w_ij + w_ji)
    node_i = half * m + pairs.i[pair]
    node_j = half * m + pairs.j[pair]
    present = np.zeros(n_batch * m, dtype=bool)
    present[node_i] = present[node_j] = True
    index = np.cumsum(present) - 1  # a present model's place among them (the order kept: i < j)
    union = sparse_fit.Pairs.from_arrays(index[node_i], index[node_j], int(present.sum()))
    flat = np.zeros(n_batch * m)
    if union.n_models:
        flat[present], _ = sparse_fit.fit_pairs(
            union,
            w_ij[half, pair],
            w_ji[half, pair],
            prior_games=PRIOR_GAMES,
            tol=HALF_TOL,
            cg_floor=HALF_CG_FLOOR,
            centre=False,  # an absent model sits at 0 before each half is centred on its own
        )
    theta = flat.reshape(n_batch, m)
    return theta - theta.mean(axis=1, keepdims=True)


def split_half_stability(counts: VerdictCounts, *, halves: int | None = None, seed: int = 0) -> SplitHalf:
    """Refit Bradley–Terry on ``halves`` random halves of the instructions; count the leader's and
    the top three's survivals.

    Parameters
    ----------
    counts
        One judge's verdict counts (the leaderboard's).
    halves
        Random halves refitted: both halves of each random split of the instructions (the
        first rounded down, the second holding the rest), so an odd count ends with a half
        whose other half is not drawn; default :data:`HALVES`, fewer (down to
        :data:`MIN_HALVES`) beyond :data:`HALF_PAIR_BUDGET` halves × pairs that met.
    seed
        Their random seed.

    Returns
    -------
    SplitHalf
        The full data's leader and top three, and in how many halves each stays on top
        (Mahalanobis 1946).
    """
    m = counts.n_models
    if m < 2 or counts.n_instructions < 2:  # nothing to split: no halves, said in the sentence
        return SplitHalf("", (), 0, 0, 0, counts.models, (0,) * m)
    key = np.minimum(counts.a, counts.b).astype(np.int64) * m + np.maximum(counts.a, counts.b)
    if m * m <= DIRECT_PAIR_SLOTS_PER_CELL * max(counts.n_cells, 1):
        # a slot per pair, not a sort of the cells (1.8 M of them in an arena): the same count
        n_pairs = int(np.count_nonzero(np.bincount(key, minlength=m * m)))
    else:
        n_pairs = np.unique(key).size
    if halves is None:
        halves = int(min(HALVES, max(MIN_HALVES, HALF_PAIR_BUDGET // max(n_pairs, 1))))
    rng = np.random.default_rng(seed)
    n_half = counts.n_instructions // 2
    # densely where the pairs that met are at least half of all pairs (see DENSE_HALVES_BELOW)
    dense = m < sparse_fit.SPARSE_FROM_MODELS or (m < DENSE_HALVES_BELOW and 4 * n_pairs >= m * (m - 1))
    if not dense:
        full, theta = _fit_halves_by_pairs(counts, halves, n_half, rng)
    else:
        # A half's wins are summed over instruction patterns (see _half_draws): the patterns'
        # wins weighted by how many of each pattern's instructions the half drew. Wins are sums
        # of whole and half battles, exact in any order.
        reps, draw = _half_draws(counts, n_half, rng)
        rows, cols, vals = win_entries(reps)
        n_rep = reps.n_instructions
        per_pattern: np.ndarray | sparse.csr_matrix
        if m * m * n_rep * 8 <= DENSE_PATTERN_BYTES:  # dense, without importing scipy: exact sums
            per_pattern = np.bincount(cols * n_rep + rows, weights=vals, minlength=m * m * n_rep)
            per_pattern = per_pattern.reshape(m * m, n_rep)
        else:
            per_pattern = sparse.csr_matrix((vals, (cols, rows)), shape=(m * m, n_rep))
        # all the data's wins, the pooled wins exactly, over the patterns (an arena's 50,000, not
        # its 1.8 M battles)
        full, _ = fit_bradley_terry((per_pattern @ _every(counts)).reshape(m, m), prior_games=PRIOR_GAMES)
        theta = np.empty((halves, m))
        step = max(1, DENSE_BATCH_NUMBERS // (m * m))
        for start in range(0, halves, step):
            stop = min(start + step, halves)
            wins = np.empty((stop - start, m, m))
            for h in range(stop - start):
                wins[h] = (per_pattern @ draw()).reshape(m, m)
            theta[start:stop], _ = fit_bradley_terry(wins, prior_games=PRIOR_GAMES, solver="dense")
    # strengths compared to six decimals, as the ranks are: models whose fits differ only by
    # floating-point noise (the same record) keep the order of the models, not of the noise
    order = np.argsort(-np.round(full, 6), kind="stable")
    leader = int(order[0])
    top = set(order[: min(3, m)].tolist())
    half_ranks = ranks_descending(theta)
    firsts = half_ranks == 1
    # a tie at the top of a half counts for every tied model (the "min" ranks of the board)
    leader_stays = int(firsts[:, leader].sum())
    tops = np.argsort(-np.round(theta, 6), axis=1, kind="stable")[:, : len(top)]
    top_stays = int(sum(set(t.tolist()) == top for t in tops))
    return SplitHalf(
        leader=counts.models[leader],
        top_three=tuple(counts.models[i] for i in order[: min(3, m)]),
        halves=int(halves),
        leader_stays=leader_stays,
        top_three_stays=top_stays,
        models=counts.models,
        first_in=tuple(int(x) for x in firsts.sum(axis=0)),
    )
