"""Verdict differences between two models and their empirical distributions.

For models A and B judged against the same anchor X on instruction i, d_i = v(i, A) − v(i, B),
with v(i, m) the verdict of m against X read from m's point of view on the judge's scale (−2..+2):
the paper's App. C. When a model met the anchor several times on one instruction (both orders,
repeats), v(i, m) is the mean of those verdicts (the both-orders verdict). Without an anchor
(head-to-head), d_i is the verdict of A against B itself. Everything is read from the sparse
per-reference entries of :mod:`evalcore.stats.against`; a dense (instructions × models) slice is
built for one anchor at a time and only over the instructions where two models met it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from evalcore.counts import VerdictCounts
from evalcore.errors import DesignError, ResourceLimitError, UsageError, check_int
from evalcore.stats.against import AgainstVerdicts, AnchorEntries, verdicts_against

#: Verdict differences are rounded to this many decimals before they are grouped into a
#: distribution (means of a few calls are fractions like 1/3; rounding removes float noise).
_DECIMALS = 6


#: Largest dense (instructions × models) slice :func:`anchor_verdicts` builds (bytes).
DENSE_SLICE_BYTES = 256 * 1024**2


def _check_model(counts: VerdictCounts, name: str, what: str = "model") -> int:
    try:
        return counts.index(name)
    except UsageError:
        raise UsageError(f"{what} {name!r} is not one of the models in this selection.") from None


def _means_of(entries: AnchorEntries, model: int) -> tuple[np.ndarray, np.ndarray]:
    """(instructions, mean verdicts) of one model against the entries' reference."""
    sel = entries.model == model
    return entries.inst[sel], entries.total[sel] / entries.calls[sel]


def pair_differences(
    against: AgainstVerdicts, a: int, b: int, anchor: int | None = None, *, pooled: dict | None = None
) -> np.ndarray:
    """d_i for model indices a and b (see :func:`verdict_differences`), in instruction order.

    ``pooled`` caches each reference's both-orders entries between calls.
    """

    def entries(x: int) -> AnchorEntries:
        if pooled is None:
            return against.of(x).pooled_orders()
        if x not in pooled:
            pooled[x] = against.of(x).pooled_orders()
        return pooled[x]

    if anchor is None:
        _, v = _means_of(entries(b), a)
        d = v
    else:
        e = entries(anchor)
        if a == anchor:  # a model ties itself: 0 against the other's verdict
            d = -_means_of(e, b)[1]
        elif b == anchor:
            d = _means_of(e, a)[1]
        else:
            ia, va = _means_of(e, a)
            ib, vb = _means_of(e, b)
            _, ja, jb = np.intersect1d(ia, ib, assume_unique=True, return_indices=True)
            d = va[ja] - vb[jb]
    return np.round(d, _DECIMALS) + 0.0


def anchor_verdicts(counts: VerdictCounts, anchor: str) -> np.ndarray:
    """v[i, m]: each model's verdict against ``anchor`` on instruction i, from m's point of view.

    The verdict is read on the judge's scale (v_{i,m}^{p,A} of the paper, §4.2); the mean when
    they met more than once on i; NaN when they never met on i. The anchor's own column is 0 (a
    model ties itself), so a pair that includes the anchor compares the other model's verdict
    with 0. Dense (I, M) for one anchor; refused above :data:`DENSE_SLICE_BYTES`.

    Examples
    --------
    >>> c = VerdictCounts.from_cells(models=("a", "x"), instructions=("q",), judge=None,
    ...     inst=[0, 0], a=[0, 1], b=[1, 0], n=[[0, 0, 0, 0, 1], [0, 1, 0, 0, 0]])
    >>> anchor_verdicts(c, "x").tolist()  # +2 and +1 for model a: mean 1.5
    [[1.5, 0.0]]
    """
    x = _check_model(counts, anchor, "anchor")
    need = counts.n_instructions * counts.n_models * 8 * 3
    if need > DENSE_SLICE_BYTES:
        raise ResourceLimitError(
            f"A full instructions × models table of verdicts against {anchor} would take "
            f"{need / 1024**3:.1f} GB; use verdict_differences for a pair instead."
        )
    total, calls = verdicts_against(counts).of(x).dense()
    with np.errstate(invalid="ignore", divide="ignore"):
        v = np.where(calls > 0, total / np.maximum(calls, 1), np.nan)
    v[:, x] = 0.0
    return v


def verdict_differences(
    counts: VerdictCounts, model_a: str, model_b: str, *, anchor: str | None = None
) -> np.ndarray:
    """d_i = v(i, A) − v(i, B) over the instructions where both are defined.

    Parameters
    ----------
    counts : VerdictCounts
        The sparse counts of one judge.
    model_a, model_b : str
        Two different models.
    anchor : str, optional
        With an anchor, v is each model's verdict against it (:func:`anchor_verdicts`);
        without, d_i is the head-to-head verdict of A against B (A's point of view, the mean
        when judged more than once).

    Returns
    -------
    ndarray
        d_i in instruction order; positive: A did better on instruction i.

    References
    ----------
    Don-Yehiya et al., "Mediocrity is the key for LLM as a Judge Anchor Selection", ACL 2026,
    App. C.

    Examples
    --------
    >>> c = VerdictCounts.from_cells(models=("a", "b", "x"), instructions=("q",), judge=None,
    ...     inst=[0, 0], a=[0, 1], b=[2, 2], n=[[0, 0, 0, 0, 1], [0, 1, 0, 0, 0]])
    >>> verdict_differences(c, "a", "b", anchor="x").tolist()
    [3.0]
    """
    a = _check_model(counts, model_a)
    b = _check_model(counts, model_b)
    if a == b:
        raise UsageError("pick two different models.")
    x = None if anchor is None else _check_model(counts, anchor, "anchor")
    return pair_differences(verdicts_against(counts), a, b, x)


@dataclass(frozen=True)
class DifferenceDistributions:
    """Empirical distributions of verdict differences, one per (anchor, model pair).

    ``probs[j, k]`` is the share of instructions on which distribution j has d = ``support[k]``;
    ``support`` is sorted and symmetric around 0. ``table`` describes each distribution: anchor
    (None for head-to-head), model_a, model_b (oriented so that model_a has the edge),
    n (instructions), informativeness (share with d ≠ 0), edge (P(d > 0 | d ≠ 0) − 0.5) and
    mean_difference.
    """

    support: np.ndarray
    probs: np.ndarray
    table: pd.DataFrame

    def __repr__(self) -> str:
        return f"DifferenceDistributions({len(self)} distributions, {self.support.size} values)"

    def __len__(self) -> int:
        return len(self.table)

    def select(self, mask: np.ndarray) -> DifferenceDistributions:
        mask = np.asarray(mask)
        return DifferenceDistributions(
            self.support, self.probs[mask], self.table[mask].reset_index(drop=True)
        )

    def with_edge(self, low: float, high: float) -> DifferenceDistributions:
        """Those whose edge lies in [low, high): Listing 1's ``effect_size_interval``."""
        e = self.table["edge"].to_numpy(dtype=np.float64)
        return self.select((e >= low - 1e-12) & (e < high - 1e-12))

    def pair(self, model_a: str, model_b: str, anchor: str | None = None) -> DifferenceDistributions:
        t = self.table
        same_anchor = t["anchor"].isna() if anchor is None else (t["anchor"] == anchor)
        hit = same_anchor & (
            ((t["model_a"] == model_a) & (t["model_b"] == model_b))
            | ((t["model_a"] == model_b) & (t["model_b"] == model_a))
        )
        return self.select(hit.to_numpy(dtype=bool))

    def pooled(self) -> pd.DataFrame:
        """difference, share: the mixture of all distributions, each weighted equally."""
        return pd.DataFrame(
            {"difference": self.support, "share": self.probs.mean(axis=0) if len(self) else 0.0}
        )

    @classmethod
    def from_samples(
        cls,
        samples: Sequence[np.ndarray],
        *,
        anchors: Sequence[str | None] | None = None,
        pairs: Sequence[tuple[str, str]] | None = None,
        orient: bool = True,
    ) -> DifferenceDistributions:
        """Build distributions from arrays of observed differences (one array each)."""
        arrays = [np.round(np.asarray(s, dtype=np.float64), _DECIMALS) for s in samples]
        arrays = [a[~np.isnan(a)] for a in arrays]
        values = np.concatenate(arrays + [np.zeros(1)])
        support = np.unique(np.round(np.concatenate([values, -values]), _DECIMALS))
        support = np.unique(support + 0.0)  # −0.0 → 0.0
        probs = np.zeros((len(arrays), len(support)))
        for j, a in enumerate(arrays):
            if len(a):
                probs[j] = np.bincount(np.searchsorted(support, a), minlength=len(support)) / len(a)
        n = np.array([len(a) for a in arrays], dtype=np.int64)
        anchors = list(anchors) if anchors is not None else [None] * len(arrays)
        pairs = list(pairs) if pairs is not None else [(f"A{j}", f"B{j}") for j in range(len(arrays))]
        return _describe(support, probs, n, anchors, pairs, orient)


def _describe(
    support: np.ndarray,
    probs: np.ndarray,
    n: np.ndarray,
    anchors: list,
    pairs: list[tuple[str, str]],
    orient: bool,
) -> DifferenceDistributions:
    pos = probs[:, support > 0].sum(axis=1)
    neg = probs[:, support < 0].sum(axis=1)
    a = np.array([p[0] for p in pairs], dtype=object)
    b = np.array([p[1] for p in pairs], dtype=object)
    if orient:
        flip = neg > pos
        probs = np.where(flip[:, None], probs[:, ::-1], probs)
        pos, neg = np.where(flip, neg, pos), np.where(flip, pos, neg)
        a, b = np.where(flip, b, a), np.where(flip, a, b)
    disc = pos + neg
    with np.errstate(invalid="ignore", divide="ignore"):
        edge = np.where(disc > 0, pos / disc - 0.5, np.nan)
    table = pd.DataFrame(
        {
            "anchor": pd.array(anchors, dtype="string"),
            "model_a": pd.array(a, dtype="string"),
            "model_b": pd.array(b, dtype="string"),
            "n": n,
            "informativeness": disc,
            "edge": edge,
            "mean_difference": probs @ support,
        }
    )
    return DifferenceDistributions(support=support, probs=probs, table=table)


def difference_distributions(
    counts: VerdictCounts, anchors: Sequence[str] | None = None, *, min_instructions: int = 1
) -> DifferenceDistributions:
    """Every (anchor, unordered model pair) distribution of verdict differences in the data.

    Parameters
    ----------
    counts : VerdictCounts
        The sparse counts of one judge.
    anchors : sequence of str, optional
        Anchors to use; every model in turn by default (the paper's App. C: 22 anchors ×
        C(21, 2) pairs = 4,620 distributions). The anchor itself is left out of its pairs.
    min_instructions : int
        Pairs with fewer shared instructions are dropped (an anchor-only table has pairs only
        for its one anchor).

    Returns
    -------
    DifferenceDistributions
        Each oriented so that model_a has the edge.

    Raises
    ------
    DesignError
        When no two models were judged against a common anchor on the same instruction (one
        battle per prompt, as in an arena table).

    References
    ----------
    Don-Yehiya et al., "Mediocrity is the key for LLM as a Judge Anchor Selection", ACL 2026,
    App. C.
    """
    if anchors is None:
        anchors = counts.models
    min_instructions = check_int("min_instructions", min_instructions, low=0)
    xs = [_check_model(counts, anchor, "anchor") for anchor in anchors]
    against = verdicts_against(counts)
    # Per anchor: a dense slice over the instructions where two or more models met it.
    slices, sizes, labels, pairs = [], [], [], []
    for anchor, x in zip(anchors, xs, strict=True):
        e = against.of(x).pooled_orders()
        if not len(e):
            continue
        # counted over the anchor's own instructions (a count over all of them per anchor was
        # most of the time on an arena of 10,000 models)
        _, where, met = np.unique(e.inst, return_inverse=True, return_counts=True)
        e = e.select(met[where] >= 2)
        if not len(e):
            continue
        insts, row = np.unique(e.inst, return_inverse=True)
        # only the models that met the anchor there, as columns (all the models' would be an
        # (M, M) product per anchor: 800 MB on 10,000 models); ascending, so the pairs come in
        # the same order as over all models
        models, column = np.unique(e.model, return_inverse=True)
        v = np.full((insts.size, models.size), np.nan)
        v[row, column] = e.total / e.calls
        f = np.isfinite(v).astype(np.float64)
        iu, ju = np.triu_indices(models.size, 1)
        shared = (f.T @ f)[iu, ju]
        use = (models[iu] != x) & (models[ju] != x) & (shared >= max(min_instructions, 1))
        if not use.any():
            continue
        slices.append((v, iu[use], ju[use]))
        sizes.append(shared[use].astype(np.int64))
        labels += [anchor] * int(use.sum())
        named = zip(models[iu[use]], models[ju[use]], strict=True)
        pairs += [(counts.models[i], counts.models[j]) for i, j in named]
    if not slices:
        raise DesignError(
            "No two models were judged against a common anchor on the same instruction, so there "
            "is no distribution of verdict differences (each prompt has its own battle, as in an "
            "arena table). Load a table where several models meet the same anchor (an all-pairs "
            "or anchor-based table)."
        )

    def chunks():
        for v, pi, pj in slices:
            step = max(1, 4_000_000 // max(v.shape[0], 1))  # bound the (I, pairs) block
            for s in range(0, pi.size, step):
                yield np.round(v[:, pi[s : s + step]] - v[:, pj[s : s + step]], _DECIMALS)

    values = [np.unique(d[np.isfinite(d)]) for d in chunks()]  # pass 1: the support
    finite = np.concatenate(values + [np.zeros(1)])
    support = np.unique(np.concatenate([finite, -finite]) + 0.0)
    k = len(support)
    hist = []
    for d in chunks():  # pass 2: counts over the support
        ok = np.isfinite(d)
        codes = np.searchsorted(support, np.where(ok, d, 0.0) + 0.0)
        flat = codes + k * np.arange(d.shape[1])[None, :]
        hist.append(np.bincount(flat[ok], minlength=k * d.shape[1]).reshape(d.shape[1], k))
    n = np.concatenate(sizes)
    probs = np.concatenate(hist) / n[:, None]
    return _describe(support, probs, n, labels, pairs, orient=True)
