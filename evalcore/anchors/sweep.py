"""Sweeps: tau against the number of instructions and against the number of anchors.

Both need an all-pairs table (they compare anchor-based rankings with the all-pairs one). The
instruction-count sweep (Don-Yehiya et al. 2026, §5.1, Fig. 4) draws instruction subsets without
replacement and refits every ranking on each; the per-instruction wins are a sparse
(instructions × M²) matrix, so one subset batch is one sparse product. The anchor-count sweep
(App. E, Fig. 7) adds anchors in random orders and refits on the union of their battles.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import sparse

from evalcore.anchors.common import (
    RESAMPLE_PRIOR,
    all_pairs_ratings,
    check_tau,
    human_scores,
    require_all_pairs,
    tau_label,
    win_rates,
)
from evalcore.counts import VerdictCounts
from evalcore.errors import UsageError, check_int, deprecated
from evalcore.progress import Progress
from evalcore.ranking import fit_bradley_terry
from evalcore.stats.against import SLOT_A_SCORE
from evalcore.stats.kendall import kendall_tau

#: The sweep's name for the all-pairs ranking as its reference (and its row in ``runs``). Before
#: 0.3 it was "quadratic", the paper's word; that is still accepted, with a deprecation warning.
ALL_PAIRS = "all_pairs"
#: The references' former names (a script or a saved link may still pass them) -> their names.
RENAMED_REFERENCES = {"quadratic": ALL_PAIRS}


def _summarise(frame: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    g = frame.groupby(by, sort=False)["tau"]
    return g.agg(
        mean="mean", sd="std", low=lambda s: s.quantile(0.025), high=lambda s: s.quantile(0.975), runs="count"
    ).reset_index()


def per_instruction_wins(counts: VerdictCounts) -> sparse.csr_matrix:
    """(I, M·M) sparse wins per instruction: column a·M + b holds a's wins over b (ties half)."""
    m = counts.n_models
    n = counts.n.astype(np.float64)
    a = counts.a.astype(np.int64)
    b = counts.b.astype(np.int64)
    rows = np.concatenate([counts.inst, counts.inst])
    cols = np.concatenate([a * m + b, b * m + a])
    vals = np.concatenate([n @ SLOT_A_SCORE, n @ (1.0 - SLOT_A_SCORE)])
    return sparse.csr_matrix((vals, (rows, cols)), shape=(counts.n_instructions, m * m))


@dataclass(frozen=True)
class SampleSizeSweep:
    """tau against the number of instructions.

    ``runs``: size, repetition, ranking ("all_pairs" or an anchor's name), tau.
    ``summary``: size, ranking, mean, sd, low, high (2.5/97.5 percentiles over repetitions),
    runs; the ranking "mean over anchors" averages every anchor's tau within a repetition first.
    """

    reference: str
    tau: str
    sizes: tuple[int, ...]
    repetitions: int
    seed: int
    runs: pd.DataFrame
    summary: pd.DataFrame

    def __repr__(self) -> str:
        return (
            f"SampleSizeSweep(reference={self.reference!r}, sizes={self.sizes}, "
            f"repetitions={self.repetitions})"
        )

    def as_dict(self) -> dict:
        return {
            "reference": self.reference,
            "tau": tau_label(self.tau),
            "sizes": list(self.sizes),
            "repetitions": self.repetitions,
            "seed": self.seed,
            "summary": self.summary.to_dict(orient="records"),
        }


def default_sizes(n_instructions: int, count: int = 10, smallest: int = 50) -> tuple[int, ...]:
    """``count`` sizes from ``smallest`` (or fewer) to every instruction, evenly spaced.

    Examples
    --------
    >>> default_sizes(500, count=3)
    (50, 275, 500)
    """
    low = min(smallest, n_instructions)
    return tuple(int(s) for s in np.unique(np.round(np.linspace(low, n_instructions, count))))


def sample_size_sweep(
    counts: VerdictCounts,
    *,
    sizes: tuple[int, ...] | None = None,
    repetitions: int = 30,
    seed: int = 0,
    human_ranking: pd.DataFrame | None = None,
    reference: str = "human",
    tau: str = "b",
    progress: Progress | None = None,
) -> SampleSizeSweep:
    """Draw instruction subsets of each size; fit every ranking on each; tau with a reference.

    Parameters
    ----------
    counts : VerdictCounts
        An all-pairs table of one judge.
    sizes : tuple of int, optional
        Subset sizes (default :func:`default_sizes`).
    repetitions : int
        Subsets per size (1 to 10,000), drawn without replacement.
    seed : int
        Seed of the draws.
    human_ranking : DataFrame, optional
        Columns model, score; needed when ``reference="human"``.
    reference : {"human", "all_pairs"}
        The human ranking (the paper's Fig. 4) or the all-pairs ranking on all instructions.
    tau : {"b", "a"}
        Kendall's tau variant.
    progress : callable, optional
        ``progress(fraction, text)``.

    Returns
    -------
    SampleSizeSweep

    References
    ----------
    Don-Yehiya et al., "Mediocrity is the key for LLM as a Judge Anchor Selection", ACL 2026,
    §5.1 (Fig. 4).

    Examples
    --------
    >>> from evalcore.simulate.tables import SimulationSpec, simulate
    >>> from evalcore.store.store import VerdictStore
    >>> store = VerdictStore(); store.load(simulate(SimulationSpec(n_models=4, seed=1)).verdicts)
    >>> s = sample_size_sweep(store.counts(), sizes=(100,), repetitions=1, reference="all_pairs")
    >>> float(s.summary.set_index("ranking").loc["all_pairs", "mean"])
    1.0
    """
    check_tau(tau)
    repetitions = check_int("repetitions", repetitions, low=1, high=10_000)
    seed = check_int("seed", seed, low=0)
    wins = require_all_pairs(counts, "The instruction-count sweep")
    models = counts.models
    m, n_inst = len(models), counts.n_instructions
    if reference in RENAMED_REFERENCES:
        deprecated(f"reference={reference!r}", f"reference={RENAMED_REFERENCES[reference]!r}")
        reference = RENAMED_REFERENCES[reference]
    if reference == "human":
        ref = human_scores(models, human_ranking)
        if ref is None or np.isfinite(ref).sum() < 3:
            raise UsageError(
                "No human ranking covering at least three of these models is "
                "loaded: load one, or sweep against the all-pairs ranking."
            )
    elif reference == ALL_PAIRS:
        ref = all_pairs_ratings(wins, models)
    else:
        raise UsageError(f"reference must be 'human' or 'all_pairs', not {reference!r}.")
    sizes = tuple(sorted({int(s) for s in (sizes or default_sizes(n_inst))}))
    if not sizes or sizes[0] < 1 or sizes[-1] > n_inst:
        raise UsageError(f"sizes must lie between 1 and the {n_inst} instructions available.")
    per_inst_t = per_instruction_wins(counts).T.tocsr()  # (M², I)
    rng = np.random.default_rng(seed)
    eye = np.eye(m, dtype=bool)
    names = [ALL_PAIRS] + list(models)
    frames = []
    for step, size in enumerate(sizes):
        w: np.ndarray = np.empty((repetitions, m * m))  # reshaped to (R, m, m) below
        block = max(1, 4_000_000 // max(n_inst, 1))  # bound the (repetitions, I) draws
        for r0 in range(0, repetitions, block):  # the same random stream as one big draw
            r1 = min(repetitions, r0 + block)
            chosen = np.argsort(rng.random((r1 - r0, n_inst)), axis=1)[:, :size]
            weights = np.zeros((r1 - r0, n_inst))
            np.put_along_axis(weights, chosen, 1.0, axis=1)
            w[r0:r1] = np.asarray(per_inst_t @ weights.T).T
        w = w.reshape(repetitions, m, m)
        theta, _ = fit_bradley_terry(w, prior_games=RESAMPLE_PRIOR)
        rates = np.where(eye, np.nan, win_rates(w))  # (R, A, m)
        scores = np.concatenate([theta[:, None, :], rates], axis=1)  # (R, 1 + M, m)
        chunk = max(1, 400_000 // ((m + 1) * m * m))  # bound the (chunk, 1 + M, m, m) pair arrays
        taus = np.concatenate(
            [kendall_tau(scores[r : r + chunk], ref, variant=tau) for r in range(0, repetitions, chunk)]
        )  # (R, 1 + M)
        frames.append(
            pd.DataFrame(
                {
                    "size": size,
                    "repetition": np.repeat(np.arange(repetitions), m + 1),
                    "ranking": np.tile(names, repetitions),
                    "tau": taus.ravel(),
                }
            )
        )
        if progress is not None:
            progress((step + 1) / len(sizes), f"{size:,} instructions ({step + 1} of {len(sizes)})")
    runs = pd.concat(frames, ignore_index=True)
    anchors = runs[runs["ranking"] != ALL_PAIRS]
    mean_runs = (
        anchors.groupby(["size", "repetition"], sort=False)["tau"]
        .mean()
        .reset_index()
        .assign(ranking="mean over anchors")
    )
    summary = pd.concat(
        [_summarise(runs, ["size", "ranking"]), _summarise(mean_runs, ["size", "ranking"])], ignore_index=True
    )
    return SampleSizeSweep(
        reference=reference,
        tau=tau,
        sizes=sizes,
        repetitions=repetitions,
        seed=seed,
        runs=runs,
        summary=summary,
    )


@dataclass(frozen=True)
class AnchorCountSweep:
    """tau with the all-pairs ranking as anchors are added one by one.

    ``runs``: n_anchors, permutation, first_anchor, tau, tau_all_models; ``summary``: n_anchors,
    mean, sd, low, high, runs (of ``tau``). The ranking for an anchor set is the Bradley–Terry
    fit on every battle that involves at least one anchor (the union). ``tau`` is taken over the
    models that are **not** anchors, as in the per-anchor table (so at one anchor it equals that
    anchor's tau_all_pairs); it needs three such models, so it stops at M − 3 anchors.
    ``tau_all_models`` includes the anchors and reaches 1 when every model is an anchor.
    """

    tau: str
    permutations: int
    seed: int
    runs: pd.DataFrame
    summary: pd.DataFrame

    def __repr__(self) -> str:
        return f"AnchorCountSweep(permutations={self.permutations}, seed={self.seed})"

    def as_dict(self) -> dict:
        return {
            "tau": tau_label(self.tau),
            "permutations": self.permutations,
            "seed": self.seed,
            "tau_over": "models that are not anchors (as in the per-anchor table)",
            "summary": self.summary.to_dict(orient="records"),
        }


def anchor_count_sweep(
    counts: VerdictCounts,
    *,
    permutations: int = 40,
    seed: int = 0,
    tau: str = "b",
    progress: Progress | None = None,
) -> AnchorCountSweep:
    """Random orders of the models; after each added anchor, refit on the union of their
    battles and take tau with the all-pairs ranking. One batched fit per order.

    Parameters
    ----------
    counts : VerdictCounts
        An all-pairs table of one judge.
    permutations : int
        Random orders (1 to 10,000).
    seed : int
        Seed of the orders.
    tau : {"b", "a"}
        Kendall's tau variant.
    progress : callable, optional
        ``progress(fraction, text)``.

    Returns
    -------
    AnchorCountSweep

    References
    ----------
    Don-Yehiya et al., "Mediocrity is the key for LLM as a Judge Anchor Selection", ACL 2026,
    App. E (Fig. 7).

    Examples
    --------
    >>> from evalcore.simulate.tables import SimulationSpec, simulate
    >>> from evalcore.store.store import VerdictStore
    >>> store = VerdictStore(); store.load(simulate(SimulationSpec(n_models=6, seed=1)).verdicts)
    >>> s = anchor_count_sweep(store.counts(), permutations=2)
    >>> s.summary["n_anchors"].tolist()  # three models must remain to be ranked
    [1, 2, 3]
    """
    check_tau(tau)
    permutations = check_int("permutations", permutations, low=1, high=10_000)
    seed = check_int("seed", seed, low=0)
    wins = require_all_pairs(counts, "The anchor-count sweep")
    models = counts.models
    m = len(models)
    ref = all_pairs_ratings(wins, models)
    rng = np.random.default_rng(seed)
    frames = []
    for p in range(permutations):
        order = rng.permutation(m)
        in_set = np.zeros((m, m), dtype=bool)  # in_set[k, j]: model j among the first k+1
        for k in range(m):
            in_set[k:, order[k]] = True
        mask = in_set[:, :, None] | in_set[:, None, :]
        theta, _ = fit_bradley_terry(wins[None] * mask, prior_games=RESAMPLE_PRIOR)
        # Equal win rates give equal ratings up to solver noise: round so tau sees the tie.
        theta = np.round(theta, 8)
        tau_all = kendall_tau(theta, ref, variant=tau)
        others = kendall_tau(np.where(in_set, np.nan, theta), ref, variant=tau)
        others = np.where((~in_set).sum(axis=1) >= 3, others, np.nan)
        frames.append(
            pd.DataFrame(
                {
                    "n_anchors": np.arange(1, m + 1),
                    "permutation": p,
                    "first_anchor": models[order[0]],
                    "tau": others,
                    "tau_all_models": tau_all,
                }
            )
        )
        if progress is not None:
            progress((p + 1) / permutations, f"order {p + 1} of {permutations}")
    runs = pd.concat(frames, ignore_index=True)
    summary = _summarise(runs.dropna(subset=["tau"]), ["n_anchors"])
    return AnchorCountSweep(tau=tau, permutations=permutations, seed=seed, runs=runs, summary=summary)
