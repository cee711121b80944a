"""Stability in plain numbers: how often the leader, and the top three, survive half the data.

Rank ranges and tiers say how uncertain each position is; users of public boards ask a plainer
question: "if I had collected only half the instructions, would the same model be #1?". This
module answers it by split halves (Mahalanobis's interpenetrating sub-samples, "Recent
experiments in statistical sampling in the Indian Statistical Institute", JRSS 1946; the
half-sample idea behind McCarthy's balanced half-samples, 1969): ``halves`` times, a random half of
the instructions (every verdict on an instruction stays with it) is refitted and its leader and
top three compared with those of all the data. "The leader stays #1 in 41 of 50 halves" reads
without a statistics course; a low count warns that the order at the top rests on which
instructions happened to be asked. A half sees half the evidence, so the counts are a
conservative picture of the full table's stability (a bootstrap of the full size would be less
variable).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

from evalcore.counts import VerdictCounts
from evalcore.ranking.bradley_terry import fit_bradley_terry, pooled_wins, ranks_descending, win_entries

#: Halves drawn by default (the figure the board quotes: "k of 50").
HALVES = 50
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


def split_half_stability(counts: VerdictCounts, *, halves: int = HALVES, seed: int = 0) -> SplitHalf:
    """Refit Bradley–Terry on ``halves`` random halves of the instructions; count the leader's and
    the top three's survivals.

    Parameters
    ----------
    counts
        One judge's verdict counts (the leaderboard's).
    halves
        Random halves drawn (each a fresh random half of the instructions, rounded down).
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
    full, _ = fit_bradley_terry(pooled_wins(counts), prior_games=PRIOR_GAMES)
    order = np.argsort(-full, kind="stable")
    leader = int(order[0])
    top = set(order[: min(3, m)].tolist())
    # A half's wins are summed over instruction patterns (instructions with identical cells,
    # :attr:`VerdictCounts.patterns`): the half's instructions are counted per pattern and the
    # patterns' wins weighted by those counts. On an arena table (one battle per prompt) 1.8 M
    # instructions are about 50,000 patterns, so a half costs its random draw and one pass over
    # its indices, not a selection of 900,000 rows of a sparse matrix. Wins are sums of whole and
    # half battles, exact in any order: the halves are those of the instructions themselves.
    reps, _ = counts.pattern_counts()
    # the row of each instruction among the representatives' (itself when every one is its own)
    of_row = None if reps is counts else counts.patterns.of_instruction
    rows, cols, vals = win_entries(reps)
    per_pattern = sparse.csr_matrix((vals, (cols, rows)), shape=(m * m, reps.n_instructions))
    rng = np.random.default_rng(seed)
    n_half = counts.n_instructions // 2
    wins = np.empty((halves, m, m))
    for h in range(halves):
        keep = rng.choice(counts.n_instructions, n_half, replace=False)
        taken = np.bincount(keep if of_row is None else of_row[keep], minlength=reps.n_instructions)
        wins[h] = (per_pattern @ taken.astype(np.float64)).reshape(m, m)
    theta, _ = fit_bradley_terry(wins, prior_games=PRIOR_GAMES)
    half_ranks = ranks_descending(theta)
    firsts = half_ranks == 1
    # a tie at the top of a half counts for every tied model (the "min" ranks of the board)
    leader_stays = int(firsts[:, leader].sum())
    tops = np.argsort(-theta, axis=1, kind="stable")[:, : len(top)]
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
