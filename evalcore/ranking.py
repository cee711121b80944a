"""Bradley–Terry ratings on the Elo scale with bootstrap intervals over instructions.

Definitions (``shared/notes/DEFINITIONS.md``, "Verdicts and win rates"; seed 004, "From one verdict
to a ranking"): a verdict counts by its sign, a tie is half a win for each side;
P(i beats j) = 1 / (1 + 10^((r_j − r_i)/400)), so r = (400 / ln 10)·θ with θ the natural-scale
Bradley–Terry strength. Intervals resample instructions, the benchmark's unit, and report the
2.5 and 97.5 percentiles.

Everything is fitted on aggregated counts: an M×M matrix of wins for a point estimate and a
(B, M, M) stack of reweighted matrices for the bootstrap, never on rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from evalcore.progress import Progress
from evalcore.schema import LEVELS
from evalcore.store import VerdictCounts

#: Elo points per natural-log unit of strength: r = ELO_SCALE · θ.
ELO_SCALE = 400.0 / np.log(10.0)
#: Ratings are reported with the models' mean at this value.
ELO_CENTRE = 1000.0

# The share of a battle credited to slot A for each verdict level: sign only, tie = half.
_SLOT_A_SCORE = np.array([0.0 if v < 0 else 0.5 if v == 0 else 1.0 for v in LEVELS])



def pairwise_wins(counts: VerdictCounts) -> np.ndarray:
    """Per-instruction wins, both slots pooled: ``wins[i, a, b]`` = battles of a against b on
    instruction i won by a, plus half the ties. ``wins + wins.T`` is the number of battles."""
    c = counts.counts.astype(np.float64)
    as_a = c @ _SLOT_A_SCORE  # a in slot A: its score against b
    as_b = c @ (1.0 - _SLOT_A_SCORE)  # b in slot A, a in slot B: a's score, seen from (b, a)
    return as_a + np.swapaxes(as_b, 1, 2)


def win_probability(r_i: np.ndarray | float, r_j: np.ndarray | float) -> np.ndarray | float:
    """P(i beats j) for Elo-scale ratings (seed 004): 1 / (1 + 10^((r_j − r_i)/400))."""
    return 1.0 / (1.0 + np.power(10.0, (np.asarray(r_j) - np.asarray(r_i)) / 400.0))


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def fit_bradley_terry(
    wins: np.ndarray,
    *,
    prior_games: float = 0.0,
    theta0: np.ndarray | None = None,
    max_iter: int = 100,
    tol: float = 1e-9,
) -> tuple[np.ndarray, bool]:
    """Maximum-likelihood Bradley–Terry strengths θ (natural scale, mean zero) by Newton's method.

    ``wins`` is (M, M) or a batch (B, M, M) with ``wins[..., i, j]`` the (possibly fractional)
    wins of i over j. ``prior_games`` adds that many virtual tie games of every model against a
    virtual player of strength 0, which keeps ratings finite when a model never loses or never
    wins (the maximum-likelihood estimate is then infinite); ``0`` gives the plain MLE.
    The free location (θ + c has the same likelihood) is removed by a rank-one term in the
    Hessian, which leaves the fixed point (gradient zero) unchanged; θ is returned with mean
    zero, with the same leading shape as ``wins``, and whether every problem converged.
    """
    w = np.asarray(wins, dtype=np.float64)
    single = w.ndim == 2
    if single:
        w = w[None]
    n_batch, m, _ = w.shape
    games = w + np.swapaxes(w, 1, 2)
    won = w.sum(axis=2)
    theta = np.zeros((n_batch, m)) if theta0 is None else np.broadcast_to(theta0, (n_batch, m)).copy()
    eye = np.eye(m)
    converged = False
    for _ in range(max_iter):
        p = _sigmoid(theta[:, :, None] - theta[:, None, :])
        grad = won - (games * p).sum(axis=2)
        info = games * p * (1.0 - p)  # Fisher information per pair
        hess = info - eye * info.sum(axis=2)[:, :, None]
        if not prior_games:
            hess = hess - 1.0 / m  # the rank-one term: fixes the location, keeps the fixed point
        else:
            q = _sigmoid(theta)
            grad += prior_games * (0.5 - q)
            hess -= eye * (prior_games * q * (1.0 - q))[:, :, None]
        step = np.linalg.solve(hess, grad[:, :, None])[:, :, 0]
        # Damp long steps: far from the optimum Newton can overshoot on sparse data.
        biggest = np.abs(step).max(axis=1, keepdims=True)
        step *= np.minimum(1.0, 4.0 / np.maximum(biggest, 1e-300))
        theta = theta - step
        if np.abs(step).max() < tol or np.abs(grad).max() < tol:
            converged = True
            break
    theta = theta - theta.mean(axis=1, keepdims=True)
    return (theta[0] if single else theta), converged


@dataclass(frozen=True)
class ComparisonGraph:
    """Whether the battles allow finite maximum-likelihood ratings, and why not if they don't.

    The MLE exists exactly when the directed graph "i scored against j" is strongly connected
    (Zermelo 1929; Ford 1957). ``pieces`` labels the undirected components: models in different
    pieces never met, directly or through others, and their ratings are not comparable.
    """

    pieces: np.ndarray  # int component label per model
    undefeated: tuple[str, ...]  # won (or tied) every battle and lost none
    winless: tuple[str, ...]  # scored nothing: lost every battle
    mle_exists: bool

    @property
    def n_pieces(self) -> int:
        return int(self.pieces.max()) + 1 if self.pieces.size else 0

    def notes(self, models: tuple[str, ...]) -> tuple[str, ...]:
        notes = []
        if self.n_pieces > 1:
            groups = [", ".join(m for m, p in zip(models, self.pieces, strict=False) if p == k)
                      for k in range(self.n_pieces)]
            notes.append(
                f"The comparison graph is in {self.n_pieces} pieces that never met "
                f"({'; '.join('{' + g + '}' for g in groups)}): ratings and ranks are comparable "
                "only within a piece. Judge some pairs across pieces to join them."
            )
        if self.undefeated:
            notes.append(
                f"{', '.join(self.undefeated)} lost no battle: the maximum-likelihood rating is "
                "infinite. The rating shown is held finite by a weak prior (one virtual tie "
                "against an average model) and is a lower bound on the evidence, not an estimate."
            )
        if self.winless:
            notes.append(
                f"{', '.join(self.winless)} won no battle (not even a tie): its rating is an upper "
                "bound held finite by the same weak prior."
            )
        if not self.mle_exists and not (self.undefeated or self.winless) and self.n_pieces == 1:
            notes.append(
                "Some group of models beat every model outside it without a single loss or tie: "
                "the maximum-likelihood ratings are infinite, and a weak prior (one virtual tie per "
                "model) keeps them finite."
            )
        return tuple(notes)


def reachability(adjacency: np.ndarray) -> np.ndarray:
    """``reach[..., i, j]``: j can be reached from i along the edges of ``adjacency`` ((…, M, M),
    boolean); every node reaches itself. Transitive closure by repeated squaring (log M
    products), which for leaderboard-sized graphs, batched, beats importing a graph library."""
    adjacency = np.asarray(adjacency, dtype=bool)
    reach = adjacency | np.eye(adjacency.shape[-1], dtype=bool)
    while True:
        step = reach.astype(np.float32)
        closer = (step @ step) > 0
        if np.array_equal(closer, reach):
            return reach
        reach = closer


def mle_exists(wins: np.ndarray) -> np.ndarray:
    """Whether the Bradley–Terry MLE is finite for each (…, M, M) win matrix: the directed graph
    "i scored against j" is strongly connected (Zermelo 1929; Ford 1957)."""
    reach = reachability(np.asarray(wins) > 0)
    return (reach & np.swapaxes(reach, -1, -2)).all(axis=(-2, -1))


def comparison_graph(wins: np.ndarray, models: tuple[str, ...]) -> ComparisonGraph:
    """Diagnose ``wins`` (M × M): pieces, models that never lose or never win, MLE existence."""
    games = wins + wins.T
    together = reachability(games > 0)
    # A piece is labelled by its first model; labels are renumbered 0, 1, … in model order.
    _, pieces = np.unique(together.argmax(axis=1), return_inverse=True)
    n_strong = 1 if mle_exists(wins) else 2
    played = games.sum(axis=1) > 0
    lost = wins.T.sum(axis=1) > 0  # someone scored against the model
    scored = wins.sum(axis=1) > 0
    undefeated = tuple(m for m, p, lo in zip(models, played, lost, strict=False) if p and not lo)
    winless = tuple(m for m, p, s in zip(models, played, scored, strict=False) if p and not s)
    return ComparisonGraph(pieces=pieces, undefeated=undefeated, winless=winless,
                           mle_exists=bool(n_strong == 1 and len(models) > 1))


def to_elo(theta: np.ndarray) -> np.ndarray:
    """Natural-scale strengths → Elo-scale ratings with the models' mean at 1000."""
    theta = np.asarray(theta)
    return ELO_CENTRE + ELO_SCALE * (theta - theta.mean(axis=-1, keepdims=True))


def bootstrap_weights(n_instructions: int, rounds: int, seed: int) -> np.ndarray:
    """(rounds, I) multinomial counts: how often each instruction is drawn in each round."""
    rng = np.random.default_rng(seed)
    return rng.multinomial(n_instructions, np.full(n_instructions, 1.0 / n_instructions),
                           size=rounds).astype(np.float64)


def ranks_descending(scores: np.ndarray, *, decimals: int = 6) -> np.ndarray:
    """Competition ranks along the last axis, 1 = highest; equal scores share the best rank.

    Scores are compared after rounding to ``decimals`` so that models whose fits differ only by
    floating-point noise (an all-ties judge, identical battles) share their rank ("min" ranks, as
    ``scipy.stats.rankdata(-scores, method="min")``, without importing scipy.stats).
    """
    key = -np.round(np.asarray(scores, dtype=np.float64), decimals)
    order = np.argsort(key, axis=-1, kind="stable")
    ordered = np.take_along_axis(key, order, axis=-1)
    position = np.broadcast_to(np.arange(key.shape[-1]), key.shape)
    starts = np.ones(key.shape, dtype=bool)
    starts[..., 1:] = ordered[..., 1:] != ordered[..., :-1]
    first = np.maximum.accumulate(np.where(starts, position, 0), axis=-1)
    ranks = np.empty(key.shape, dtype=int)
    np.put_along_axis(ranks, order, first + 1, axis=-1)
    return ranks


@dataclass(frozen=True)
class Leaderboard:
    """The leaderboard of one judge: ratings, 95% intervals, rank ranges and the win-rate matrix.

    ``table`` columns: rank, model, rating, ci_low, ci_high, rank_low, rank_high, battles, wins,
    ties, losses, win_rate, piece. ``samples`` holds the bootstrap ratings (rounds × M) in the
    order of ``models``.
    """

    models: tuple[str, ...]
    table: pd.DataFrame
    win_rate_matrix: pd.DataFrame  # observed, row model's point of view; NaN where never met
    battles_matrix: pd.DataFrame
    samples: np.ndarray
    rounds: int
    seed: int
    judge: str | None
    n_instructions: int
    notes: tuple[str, ...]
    prior_games: float

    def as_dict(self) -> dict:
        return {
            "judge": self.judge,
            "rounds": self.rounds,
            "seed": self.seed,
            "interval": "2.5-97.5 percentiles of a bootstrap over instructions",
            "n_instructions": self.n_instructions,
            "prior_games": self.prior_games,
            "notes": list(self.notes),
            "models": self.table.to_dict(orient="records"),
        }


def leaderboard(
    counts: VerdictCounts,
    *,
    rounds: int = 1000,
    seed: int = 0,
    progress: Progress | None = None,
) -> Leaderboard:
    """Bradley–Terry leaderboard with bootstrap-over-instructions intervals (issue 2, item 6).

    The point estimate is the MLE on all battles (a weak prior only where the MLE is infinite,
    said in ``notes``). Each bootstrap round redraws the instructions with replacement and refits
    on the reweighted counts; ratings and ranks are summarised by their 2.5 and 97.5 percentiles.
    Two models with identical battles get identical intervals because every round treats them
    alike.
    """
    if counts.n_models < 2 or counts.n_instructions == 0:
        raise ValueError(
            "A leaderboard needs verdicts between at least two different models; "
            f"this selection has {counts.n_models} model(s) and {counts.n_instructions} "
            "instruction(s) with a verdict."
        )
    per_inst = pairwise_wins(counts)
    total = per_inst.sum(axis=0)
    graph = comparison_graph(total, counts.models)
    prior = 0.0 if graph.mle_exists else 1.0
    theta, _ = fit_bradley_terry(total, prior_games=prior)
    ratings = to_elo(theta)

    samples = np.empty((rounds, counts.n_models))
    regularised_rounds = unconverged = 0
    if rounds:
        weights = bootstrap_weights(counts.n_instructions, rounds, seed)
        flat = per_inst.reshape(counts.n_instructions, -1)
        # Each round is fitted exactly as the point estimate would be fitted on that resample:
        # the plain MLE, or the weak prior where the resample leaves some model without a loss
        # (or a win) even though the full data has one.
        chunk = 250
        for start in range(0, rounds, chunk):
            stop = min(start + chunk, rounds)
            w = (weights[start:stop] @ flat).reshape(stop - start, counts.n_models, counts.n_models)
            needs = np.zeros(stop - start, dtype=bool) if prior else ~mle_exists(w)
            regularised_rounds += int(needs.sum())
            th = np.empty((stop - start, counts.n_models))
            for group, games_prior in ((~needs, prior), (needs, 1.0)):
                if group.any():
                    th[group], converged = fit_bradley_terry(w[group], prior_games=games_prior,
                                                             theta0=theta)
                    unconverged += 0 if converged else int(group.sum())
            samples[start:stop] = to_elo(th)
            if progress is not None:
                progress(stop / rounds, f"bootstrap round {stop:,} of {rounds:,}")
    ci_low, ci_high = (np.percentile(samples, [2.5, 97.5], axis=0) if rounds
                       else (np.full(counts.n_models, np.nan),) * 2)
    # Ranks within each piece of the comparison graph: across pieces they mean nothing.
    rank = np.empty(counts.n_models, dtype=int)
    rank_samples = np.empty_like(samples, dtype=int) if rounds else None
    for piece in np.unique(graph.pieces):
        members = np.flatnonzero(graph.pieces == piece)
        rank[members] = ranks_descending(ratings[members])
        if rounds:
            rank_samples[:, members] = ranks_descending(samples[:, members])
    if rounds:
        rank_low = np.percentile(rank_samples, 2.5, axis=0, method="lower").astype(int)
        rank_high = np.percentile(rank_samples, 97.5, axis=0, method="higher").astype(int)
    else:
        rank_low = rank_high = rank

    sign = _sign_counts(counts)
    battles = total + total.T
    table = pd.DataFrame({
        "rank": rank,
        "model": list(counts.models),
        "rating": ratings,
        "ci_low": ci_low,
        "ci_high": ci_high,
        "rank_low": rank_low,
        "rank_high": rank_high,
        "battles": sign["battles"],
        "wins": sign["wins"],
        "ties": sign["ties"],
        "losses": sign["losses"],
        "win_rate": (sign["wins"] + 0.5 * sign["ties"]) / np.maximum(sign["battles"], 1),
        "piece": graph.pieces.astype(int) + 1,
    }).sort_values(["piece", "rank", "model"], kind="stable").reset_index(drop=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(battles > 0, total / battles, np.nan)
    names = list(counts.models)
    return Leaderboard(
        models=counts.models,
        table=table,
        win_rate_matrix=pd.DataFrame(rate, index=names, columns=names),
        battles_matrix=pd.DataFrame(battles, index=names, columns=names),
        samples=samples,
        rounds=rounds,
        seed=seed,
        judge=counts.judge,
        n_instructions=counts.n_instructions,
        notes=graph.notes(counts.models) + _bootstrap_notes(rounds, regularised_rounds, unconverged),
        prior_games=prior,
    )


def _bootstrap_notes(rounds: int, regularised: int, unconverged: int) -> tuple[str, ...]:
    notes = []
    if regularised:
        notes.append(
            f"{regularised:,} of {rounds:,} bootstrap rounds drew instructions on which some model "
            "never lost or never won; those rounds were fitted with the weak prior (one virtual "
            "tie per model against an average model), as the full data would be.")
    if unconverged:
        notes.append(f"{unconverged:,} of {rounds:,} bootstrap fits stopped before converging; "
                     "their ratings are kept as reached.")
    return tuple(notes)


def _sign_counts(counts: VerdictCounts) -> dict[str, np.ndarray]:
    """Wins, ties, losses and battles per model, both slots pooled."""
    by_level = counts.counts.sum(axis=0).astype(np.int64)  # (M, M, L) as slot A vs slot B
    levels = np.asarray(LEVELS)
    a_win = by_level[..., levels > 0].sum(-1)
    a_tie = by_level[..., levels == 0].sum(-1)
    a_loss = by_level[..., levels < 0].sum(-1)
    wins = a_win.sum(1) + a_loss.sum(0)
    losses = a_loss.sum(1) + a_win.sum(0)
    ties = a_tie.sum(1) + a_tie.sum(0)
    return {"wins": wins, "losses": losses, "ties": ties, "battles": wins + losses + ties}
