"""The permutation test behind :mod:`evalcore.ranking.heterogeneity`: cells by category, strata
of instructions that compared the same pairs, shuffled labels, a smooth tail, and the
likelihood-ratio statistic itself, for one table and for many permuted tables fitted together.

Categories are shuffled among whole instructions, so the correlation of the verdicts on one
instruction is kept in every permuted table (Good, *Permutation, Parametric, and Bootstrap Tests
of Hypotheses*, 2005, on permuting exchangeable units); the tail beyond the permutations is a
scaled chi-squared matched to their mean and variance (Satterthwaite, "An approximate
distribution of estimates of variance components", 1946).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from evalcore.counts import VerdictCounts
from evalcore.ranking import sparse_fit
from evalcore.ranking.bradley_terry import fit_bradley_terry
from evalcore.ranking.sparse_fit import SPARSE_FROM_MODELS
from evalcore.schema import LEVELS

#: Virtual tie games per model in every fit: keeps an unbeaten model in a small category finite;
#: small enough to leave the likelihood-ratio test's size unchanged (checked by simulation).
PRIOR_GAMES = 0.05


@dataclass(frozen=True)
class Cells:
    """Every category's cells on one model axis: unit (instruction within its category), global
    model indices, decisive wins of each side, and the unit's category."""

    unit: np.ndarray
    a: np.ndarray
    b: np.ndarray
    wins_a: np.ndarray
    wins_b: np.ndarray
    label: np.ndarray  # per unit
    n_units: int

    def decisive(self, label: np.ndarray, n_cats: int, m: int) -> np.ndarray:
        """(C, M, M) decisive wins with the units' categories ``label``."""
        key = label[self.unit].astype(np.int64) * m * m
        out = np.bincount(key + self.a * m + self.b, self.wins_a, minlength=n_cats * m * m)
        out += np.bincount(key + self.b * m + self.a, self.wins_b, minlength=n_cats * m * m)
        return out.reshape(n_cats, m, m)

    def strata(self) -> np.ndarray:
        """Per unit, a label of its set of compared pairs: units with the same set exchange
        categories in the permutation test (a hash of the unordered pairs, summed per unit)."""
        lo, hi = np.minimum(self.a, self.b), np.maximum(self.a, self.b)
        h = (lo.astype(np.uint64) << np.uint64(32)) | hi.astype(np.uint64)
        h = (h + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15)
        h ^= h >> np.uint64(31)
        sig = np.zeros(self.n_units, dtype=np.uint64)
        np.add.at(sig, self.unit, h)
        return np.unique(sig, return_inverse=True)[1].astype(np.int64)


def cells_of(kept: Mapping[str, VerdictCounts], cats: tuple[str, ...], models: tuple[str, ...]) -> Cells:
    level = np.asarray(LEVELS)
    won_a, won_b = (level > 0).astype(np.float64), (level < 0).astype(np.float64)
    position = {x: i for i, x in enumerate(models)}
    parts = []
    offset = 0
    labels = []
    for k, c in enumerate(cats):
        counts = kept[c]
        idx = np.array([position[x] for x in counts.models], dtype=np.int64)
        parts.append(
            (
                counts.inst.astype(np.int64) + offset,
                idx[counts.a],
                idx[counts.b],
                counts.cell_scores(won_a),  # a lookup per cell where each cell is one call
                counts.cell_scores(won_b),
            )
        )
        labels.append(np.full(counts.n_instructions, k, dtype=np.int64))
        offset += counts.n_instructions
    cols = [np.concatenate(x) for x in zip(*parts, strict=True)]
    unit, a, b, wins_a, wins_b = cols
    return Cells(unit, a, b, wins_a, wins_b, label=np.concatenate(labels), n_units=offset)


def stratum_order(strata: np.ndarray) -> np.ndarray | None:
    """The units in stratum order (each stratum's units in their own order), computed once for
    every permutation of :func:`permuted_labels`; None when there is one stratum (the identity)."""
    if strata.size == 0 or not strata.any():
        return None
    return np.lexsort((np.arange(strata.size), strata))


def permuted_labels(
    rng, label: np.ndarray, strata: np.ndarray, base: np.ndarray | None | bool = False
) -> np.ndarray:
    """The categories shuffled among the units of each stratum. ``base`` is
    :func:`stratum_order` of ``strata`` when the caller computed it once for all its
    permutations (False: computed here)."""
    order = np.lexsort((rng.random(label.size), strata))
    if base is False:
        base = stratum_order(strata)
    if base is None:  # one stratum: the units are in their own order
        return label[order]
    out = np.empty_like(label)
    out[base] = label[order]
    return out


def scaled_chi2_p(observed: float, null: np.ndarray) -> float:
    """P(T ≥ observed) for T ≈ a·χ²_ν matched to the permutation statistics' mean and variance
    (Satterthwaite, "An approximate distribution of estimates of variance components", 1946):
    a smooth tail beyond the few hundred permutations, which are too coarse for a Holm
    adjustment. The matched scale a is the clustering's inflation of the statistic."""
    mean, var = float(np.mean(null)), float(np.var(null, ddof=1))
    if mean <= 0 or var <= 0:
        return 1.0 if observed <= mean + 1e-9 else 0.0
    scale = var / (2.0 * mean)
    return _chi2_sf(observed / scale, 2.0 * mean**2 / var)


# -- the likelihood-ratio statistic, per table and over the permuted tables --------------------


def _loglik(wins: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Log-likelihood of (…, M, M) wins at (…, M) strengths."""
    d = theta[..., :, None] - theta[..., None, :]
    return np.sum(wins * -np.logaddexp(0.0, -d), axis=(-1, -2))


def _fit(wins: np.ndarray) -> np.ndarray:
    # one category (or the pooled table) at a time: the dense solve below a few hundred models
    solver = sparse_fit.single_solver(1 if wins.ndim == 2 else wins.shape[0], wins.shape[-1])
    theta, _ = fit_bradley_terry(wins, prior_games=PRIOR_GAMES, solver=solver)
    return theta


def _free(wins: np.ndarray) -> int:
    """Free strengths of one fit: models that played minus the pieces of their graph."""
    games = (wins + wins.T) > 0
    present = games.any(axis=1)
    if not present.any():
        return 0
    sub = games[np.ix_(present, present)]
    from scipy.sparse.csgraph import connected_components

    pieces, _ = connected_components(sub, directed=False)
    return int(present.sum() - pieces)


def _statistics(groups: np.ndarray, null: float) -> tuple[float, np.ndarray]:
    """The likelihood-ratio statistic of a fit per category against the pooled one (log-likelihood
    ``null``), and per category the statistic of "this category against all the others"."""
    total = groups.sum(axis=0)
    ll = _loglik(groups, _fit(groups))
    rest = total[None] - groups
    ll_rest = _loglik(rest, _fit(rest))
    return max(0.0, 2.0 * (float(ll.sum()) - null)), np.maximum(0.0, 2.0 * (ll + ll_rest - null))


def _chi2_p(statistic: float, df: int) -> float:
    """P(χ²_df ≥ statistic); 1 without a free parameter to test."""
    return _chi2_sf(statistic, df) if df > 0 else 1.0


def _chi2_sf(x: float, df: float) -> float:
    """P(χ²_df ≥ x): the special function behind SciPy's ``chi2.sf`` (the same numbers), so that
    a page drawing this p-value does not import SciPy's statistics (about a second of CPU)."""
    from scipy.special import chdtrc

    return float(chdtrc(df, x))


#: Permuted tables fitted in one batch (their (C, M, M) wins stacked, up to this many numbers).
BATCH_NUMBERS = 2_000_000


def _null_statistics(
    cells, strata: np.ndarray, rng, permutations: int, n_cats: int, m: int, null: float
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_statistics` of every permuted table, the labels drawn in turn from ``rng`` (the same
    draws as one table at a time) and the tables fitted together in batches (one Newton
    iteration for many tables; every table's own fit and log-likelihood are unchanged)."""
    null_stats = np.empty(permutations)
    null_per = np.empty((permutations, n_cats))
    base = stratum_order(strata)  # the same for every permutation
    labels = [permuted_labels(rng, cells.label, strata, base) for _ in range(permutations)]
    if m >= SPARSE_FROM_MODELS:  # the sparse solver fits one table at a time
        for r, lab in enumerate(labels):
            null_stats[r], null_per[r] = _statistics(cells.decisive(lab, n_cats, m), null)
        return null_stats, null_per
    # few instructions (each comparing many pairs): each instruction's own (M, M) wins once, and
    # a permuted table is the sum of its categories' instructions, one matrix product for many
    # tables (sums of whole counts: the same numbers as counting the cells again)
    per_unit = None
    if cells.n_units * m * m <= BATCH_NUMBERS:
        key = cells.unit.astype(np.int64) * (m * m)
        per_unit = np.bincount(key + cells.a * m + cells.b, cells.wins_a, minlength=cells.n_units * m * m)
        per_unit += np.bincount(key + cells.b * m + cells.a, cells.wins_b, minlength=cells.n_units * m * m)
        per_unit = per_unit.reshape(cells.n_units, m * m)
    step = max(1, BATCH_NUMBERS // (n_cats * max(m * m, cells.n_units)))
    for start in range(0, permutations, step):
        chunk = labels[start : start + step]
        if per_unit is not None:
            member = np.stack(chunk)[:, None, :] == np.arange(n_cats)[None, :, None]  # (R, C, units)
            groups = (member.astype(np.float64) @ per_unit).reshape(len(chunk), n_cats, m, m)
        else:
            groups = np.stack([cells.decisive(lab, n_cats, m) for lab in chunk])  # (R, C, M, M)
        r, c = groups.shape[:2]
        flat = groups.reshape(r * c, m, m)
        rest = (groups.sum(axis=1, keepdims=True) - groups).reshape(r * c, m, m)
        ll = _loglik(flat, _fit(flat)).reshape(r, c)
        ll_rest = _loglik(rest, _fit(rest)).reshape(r, c)
        null_stats[start : start + r] = np.maximum(0.0, 2.0 * (ll.sum(axis=1) - null))
        null_per[start : start + r] = np.maximum(0.0, 2.0 * (ll + ll_rest - null))
    return null_stats, null_per
