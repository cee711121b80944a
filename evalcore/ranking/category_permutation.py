"""The permutation test behind :mod:`evalcore.ranking.heterogeneity`: cells by category, strata
of instructions that compared the same pairs, shuffled labels, and a smooth tail.

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
from scipy import stats as sps

from evalcore.counts import VerdictCounts
from evalcore.schema import LEVELS


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
    parts = []
    offset = 0
    labels = []
    for k, c in enumerate(cats):
        counts = kept[c]
        idx = np.array([models.index(x) for x in counts.models], dtype=np.int64)
        n = counts.n.astype(np.float64)
        parts.append(
            (
                counts.inst.astype(np.int64) + offset,
                idx[counts.a],
                idx[counts.b],
                n[:, level > 0].sum(axis=1),
                n[:, level < 0].sum(axis=1),
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
    return float(sps.chi2.sf(observed / scale, 2.0 * mean**2 / var))
