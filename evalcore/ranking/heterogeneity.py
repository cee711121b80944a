"""Is one ranking enough? Category × model effects, a test of one ranking, reversals, shrinkage.

A leaderboard fits one Bradley–Terry strength per model to every verdict. When the table has a
``category`` column, the richer model gives each category its own strengths. Three questions:

* **A test of "one ranking fits every category".** The likelihood-ratio statistic
  2·(Σ_c ℓ_c(θ̂_c) − ℓ(θ̂)) compares a fit per category with the pooled fit (Wilks, "The
  large-sample distribution of the likelihood ratio for testing composite hypotheses", 1938),
  on decisive verdicts only: a tie counted as half a win is less variable than a Bernoulli
  trial. Verdicts on one instruction are correlated, so the statistic is referred to its
  permutation distribution with categories shuffled among whole instructions (among those that
  compared the same pairs), smoothed by a scaled chi-squared matched to its mean and variance
  (Satterthwaite, 1946). The categories that drive it are found by one test per category
  ("this category against all the others"), Holm-adjusted (Holm, "A simple sequentially
  rejective multiple test procedure", 1979).
* **Per-category ratings shrunk toward the overall ones.** Each category's strengths (ties as
  half a win, as on the leaderboard) deviate from the pooled ones by δ ~ N(0, τ²_c); τ²_c is the
  method-of-moments estimate over the category's models' deviations beyond their sampling
  variance, one τ² per category (DerSimonian & Laird, "Meta-analysis in clinical trials", 1986), and each rating is
  the normal posterior mean with its 95% interval (Efron & Morris, "Stein's estimation rule and
  its competitors — an empirical Bayes approach", JASA 1973). Each category's sampling variance
  is the instruction-clustered sandwich (Liang & Zeger, "Longitudinal data analysis using
  generalized linear models", 1986); the pooled fit's own uncertainty is left out.
* **Reversals (Simpson).** A pair whose pooled order is reversed in a category with the
  shrunk category gap's 95% interval entirely on the other side of zero. A pair reversed in
  every category where it was compared, while pooled the other way, is a Simpson reversal in
  the strict sense (Simpson, "The interpretation of interaction in contingency tables", 1951):
  the pooled order is an artefact of which categories the pair met in. Reversals are flagged
  only when the test rejects one ranking (a gatekeeper: with one ranking true, hundreds of
  pair × category intervals would cross zero by chance now and then).

Rows without a category and categories with fewer than ``min_verdicts`` verdicts are left out
(both said in the notes). Everything works on the dense M × M win matrices, so the analysis
refuses more than :data:`MAX_MODELS` models.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from evalcore.counts import VerdictCounts
from evalcore.errors import EvalcoreError
from evalcore.ranking.bradley_terry import ELO_CENTRE, ELO_SCALE, pooled_wins
from evalcore.ranking.category_permutation import (  # the statistic, its fits and its null
    PRIOR_GAMES,
    _chi2_p,
    _chi2_sf,
    _fit,
    _free,
    _loglik,
    _null_statistics,
    _statistics,
    cells_of,
    scaled_chi2_p,
)
from evalcore.ranking.intervals import sandwich_covariance
from evalcore.ranking.separation import adjust_p_values
from evalcore.stats.intervals import Z95 as _Z95
from evalcore.stats.threads import single_blas_thread
from evalcore.text import fmt_count

#: The dense per-category inverse information is M × M per category.
MAX_MODELS = 400
Z95 = _Z95


class HeterogeneityError(EvalcoreError, ValueError):
    """The table cannot answer the question (no categories, one category, too many models)."""


@dataclass(frozen=True)
class CategoryTest:
    """One category against all the others: the likelihood-ratio statistic and its p."""

    category: str
    verdicts: int
    statistic: float
    df: int
    p_value: float
    p_holm: float

    def as_dict(self) -> dict:
        return {
            "category": self.category,
            "verdicts": self.verdicts,
            "statistic": self.statistic,
            "df": self.df,
            "p_value": self.p_value,
            "p_holm": self.p_holm,
        }


@dataclass(frozen=True)
class Reversal:
    """A pair ranked one way pooled and, confidently, the other way in one category (Elo gaps,
    the better pooled model first: a negative category gap is the reversal)."""

    category: str
    better_overall: str
    worse_overall: str
    pooled_gap: float
    category_gap: float
    lower: float
    upper: float
    in_every_category: bool

    def as_dict(self) -> dict:
        return {
            "category": self.category,
            "better_overall": self.better_overall,
            "worse_overall": self.worse_overall,
            "pooled_gap": self.pooled_gap,
            "category_gap": self.category_gap,
            "lower": self.lower,
            "upper": self.upper,
            "in_every_category": self.in_every_category,
        }


@dataclass(frozen=True)
class Heterogeneity:
    """The test of one ranking, the categories driving it, reversals and shrunk ratings."""

    categories: tuple[str, ...]
    verdicts: int
    statistic: float
    df: int
    p_value: float
    alpha: float
    per_category: tuple[CategoryTest, ...]
    #: Per category (as ``categories``): the spread of its models' strengths around the pooled
    #: ones beyond sampling noise (Elo points, standard deviation; 0 = no shrinkage room).
    spread: tuple[float, ...]
    ratings: pd.DataFrame  # category, model, overall, raw, shrunk, lower, upper, verdicts
    reversals: tuple[Reversal, ...]
    notes: tuple[str, ...]

    @property
    def rejects(self) -> bool:
        return bool(self.p_value < self.alpha)

    @property
    def drivers(self) -> tuple[str, ...]:
        """Categories whose own test is significant after Holm's adjustment."""
        return tuple(t.category for t in self.per_category if t.p_holm < self.alpha)

    def sentence(self) -> str:
        """One plain sentence: does one ranking fit, and does the pooled order hide a reversal."""
        n = len(self.categories)
        if not self.rejects:
            head = f"One ranking fits all {n:,} categories (likelihood-ratio test p = {self.p_value:.2g})."
        else:
            drive = f" mostly {', '.join(self.drivers[:3])}" if self.drivers else ""
            head = (
                f"The ranking differs between the {n:,} categories (likelihood-ratio test "
                f"p = {self.p_value:.2g}; driven{drive or ' by no single category'})."
            )
        if not self.reversals:
            return head + " The pooled ranking hides no confident reversal."
        r = self.reversals[0]
        more = f" and {len(self.reversals) - 1:,} more" if len(self.reversals) > 1 else ""
        return (
            f"{head} The pooled ranking hides a reversal: {r.better_overall} is ahead of "
            f"{r.worse_overall} overall but behind in {r.category} ({r.category_gap:+.0f} Elo){more}."
        )

    def as_dict(self) -> dict:
        return {
            "categories": list(self.categories),
            "verdicts": self.verdicts,
            "statistic": self.statistic,
            "df": self.df,
            "p_value": self.p_value,
            "alpha": self.alpha,
            "one_ranking_rejected": self.rejects,
            "drivers": list(self.drivers),
            "per_category": [t.as_dict() for t in self.per_category],
            "category_spread": [
                {"category": c, "spread": x} for c, x in zip(self.categories, self.spread, strict=True)
            ],
            "reversals": [r.as_dict() for r in self.reversals],
            "category_ratings": self.ratings.to_dict(orient="records"),
            "sentence": self.sentence(),
            "notes": list(self.notes),
        }


def category_heterogeneity(
    per_category: Mapping[str, VerdictCounts],
    *,
    alpha: float = 0.05,
    min_verdicts: int = 30,
    uncategorised: int = 0,
    permutations: int = 199,
    seed: int = 0,
) -> Heterogeneity:
    """Test whether one Bradley–Terry ranking fits every category; find reversals; shrink.

        The likelihood-ratio statistic (Wilks 1938) is referred to its permutation distribution: the
        categories are shuffled among instructions that compared the same pairs of models, which
        keeps every instruction's verdicts together; the p-value is the tail of a scaled
        chi-squared matched to that distribution's mean and variance (Satterthwaite 1946). Verdicts on one instruction are correlated (an
        easy prompt favours one model in every pair), and a chi-squared reference, which counts
        verdicts as independent, rejects one ranking on data that have it (p below 1e-70 on a
        20-model all-pairs table with random category labels). With one verdict per instruction the
        two agree, and the chi-squared reference is used without permutations (an arena table).
    When most instructions compared a set of pairs no other instruction did, the
        categories are shuffled among all instructions (with a note).

        Parameters
        ----------
        per_category
            Each category's verdict counts (one judge), e.g. ``store.counts(judge=j, category=c)``.
        alpha
            Level of the test and of the per-category tests (Holm-adjusted).
        min_verdicts
            Categories with fewer verdicts are left out, with a note.
        uncategorised
            Verdicts without a category (left out; only reported in the notes).
        permutations, seed
            Permutations of the test (the p-value's resolution is 1 / (permutations + 1)) and their
            random seed.

        Returns
        -------
        Heterogeneity
            See the module docstring for the methods (Wilks 1938; Holm 1979; DerSimonian & Laird
            1986; Efron & Morris 1973; Simpson 1951; the sandwich: Liang & Zeger 1986).
    """
    notes: list[str] = []
    if uncategorised:
        notes.append(
            f"{fmt_count(uncategorised, 'verdict')} without a category {'is' if uncategorised == 1 else 'are'} left out."
        )
    small = {c: k.calls for c, k in per_category.items() if k.calls < min_verdicts}
    if small:
        notes.append(
            f"{fmt_count(len(small), 'category', 'categories')} with fewer than {min_verdicts:,} verdicts {'is' if len(small) == 1 else 'are'} left out: "
            + ", ".join(sorted(small)[:5])
            + ("…" if len(small) > 5 else "")
            + "."
        )
    kept = {c: k for c, k in per_category.items() if c not in small}
    if len(kept) < 2:
        raise HeterogeneityError(
            f"the table has {fmt_count(len(kept), 'category', 'categories')} with at least {min_verdicts:,} verdicts; "
            "comparing rankings needs two or more (fill the 'category' column)"
        )
    models = tuple(sorted({m for k in kept.values() for m in k.models}))
    if len(models) > MAX_MODELS:
        raise HeterogeneityError(
            f"{len(models):,} models: the category analysis handles up to {MAX_MODELS:,}; "
            "keep fewer models or one judge"
        )
    cats = tuple(sorted(kept))
    m, n_cats = len(models), len(cats)
    cells = cells_of(kept, cats, models)
    groups = cells.decisive(cells.label, n_cats, m)
    total = groups.sum(axis=0)
    null = float(_loglik(total, _fit(total)))
    statistic, per_stat = _statistics(groups, null)
    df = sum(_free(w) for w in groups) - _free(total)
    if df <= 0:
        notes.append("No model was compared in two categories: the test has nothing to compare.")

    decisive_per_unit = np.bincount(cells.unit, cells.wins_a + cells.wins_b, minlength=cells.n_units)
    independent = bool(decisive_per_unit.size) and decisive_per_unit.max() <= 1
    # the instructions' sets of pairs, only for the permutations (an arena table needs none)
    strata = np.zeros(0, dtype=np.int64) if independent else cells.strata()
    if not independent and np.mean(np.bincount(strata)[strata] > 1) < 0.5:
        # few instructions share their set of pairs: shuffle among all of them, which is exact
        # when every instruction compares (nearly) every pair (an all-pairs table with a few
        # missing verdicts) and otherwise assumes the categories compare the same kinds of pairs
        strata = np.zeros_like(strata)
        pairs_per_unit = np.bincount(cells.unit, minlength=cells.n_units).mean()
        if pairs_per_unit < 0.5 * np.count_nonzero(np.triu(total + total.T, 1)):
            notes.append(
                "Most instructions compared pairs no other instruction did: the test shuffles the "
                "categories among all instructions, which assumes the categories compare the same "
                "kinds of pairs."
            )
    if independent:
        # At most one decisive verdict per instruction (an arena: one prompt per battle): the
        # verdicts are independent, the chi-squared reference applies as it is (Wilks 1938) and
        # the permutations, one sort of every instruction each, would only approximate it.
        rest_free = [_free(total - groups[k]) for k in range(n_cats)]
        p_value = _chi2_sf(statistic, df) if df > 0 else 1.0
        raw_p = np.array(
            [_chi2_p(per_stat[k], _free(groups[k]) + rest_free[k] - _free(total)) for k in range(n_cats)]
        )
    else:
        rng = np.random.default_rng(seed)
        null_stats, null_per = _null_statistics(cells, strata, rng, permutations, n_cats, m, null)
        p_value = scaled_chi2_p(statistic, null_stats) if df > 0 else 1.0
        raw_p = np.array([scaled_chi2_p(per_stat[k], null_per[:, k]) for k in range(n_cats)])
    holm = adjust_p_values(raw_p, correction="holm")
    tests = tuple(
        CategoryTest(
            c, int(kept[c].calls), float(per_stat[k]), _free(groups[k]), float(raw_p[k]), float(holm[k])
        )
        for k, c in enumerate(cats)
    )

    # per-category strengths (ties as half a win), aligned to the pooled ones on the models each
    # category has; their covariance clustered by instruction (the sandwich)
    half = []
    for c in cats:
        w = np.zeros((m, m))
        idx = np.array([models.index(x) for x in kept[c].models], dtype=np.intp)
        w[np.ix_(idx, idx)] = pooled_wins(kept[c])
        half.append(w)
    theta0 = _fit(np.sum(half, axis=0))
    raw, var, cov, present = [], [], [], []
    for c, w in zip(cats, half, strict=True):
        here = (w + w.T).sum(axis=1) > 0
        th = _fit(w)
        th = th - th[here].mean() + theta0[here].mean()
        idx = np.array([models.index(x) for x in kept[c].models], dtype=np.intp)
        v = np.zeros((m, m))
        local = th[idx] - th[idx].mean()
        v[np.ix_(idx, idx)] = sandwich_covariance(
            kept[c], local, w[np.ix_(idx, idx)], prior_games=PRIOR_GAMES
        )
        raw.append(th)
        cov.append(v)
        var.append(np.diag(v))
        present.append(here)
    # one spread per category: a category where two models swap has a large one, the others none
    tau2s = np.array(
        [
            max(0.0, float(np.mean((raw[k] - theta0)[present[k]] ** 2 - var[k][present[k]])))
            for k in range(n_cats)
        ]
    )

    rows = []
    for k, c in enumerate(cats):
        tau2 = tau2s[k]
        for i in np.flatnonzero(present[k]):
            # a variance a rounding error pushed just below zero (a model met once in the
            # category) is zero, not the square root of a negative number
            var_ki = max(float(var[k][i]), 0.0)
            b = tau2 / (tau2 + var_ki) if tau2 > 0 else 0.0
            post = theta0[i] + b * (raw[k][i] - theta0[i])
            sd = np.sqrt(b * var_ki)
            rows.append(
                {
                    "category": c,
                    "model": models[i],
                    "overall": theta0[i],
                    "raw": raw[k][i],
                    "shrunk": post,
                    "lower": post - Z95 * sd,
                    "upper": post + Z95 * sd,
                    "verdicts": float((half[k][i] + half[k][:, i]).sum()),
                }
            )
    ratings = pd.DataFrame(rows)
    centre = float(np.mean(theta0))
    for col in ("overall", "raw", "shrunk", "lower", "upper"):
        ratings[col] = ELO_CENTRE + ELO_SCALE * (ratings[col] - centre)
    ratings["verdicts"] = ratings["verdicts"].round().astype(int)

    reversals = _reversals(models, cats, theta0, raw, cov, half, tau2s)
    if reversals and not p_value < alpha:
        # gatekeeping: hundreds of pair × category intervals cross zero by chance now and then;
        # flagged only when the test rejects one ranking, no flag appears on data that have one
        # ranking more often than the test's level
        notes.append(
            f"{fmt_count(len(reversals), 'pair')} looked reversed in a category, but the test does not reject "
            "one ranking: not flagged."
        )
        reversals = ()
    return Heterogeneity(
        categories=cats,
        verdicts=int(sum(k.calls for k in kept.values())),
        statistic=float(statistic),
        df=df,
        p_value=p_value,
        alpha=alpha,
        per_category=tests,
        spread=tuple(float(ELO_SCALE * np.sqrt(t)) for t in tau2s),
        ratings=ratings,
        reversals=reversals,
        notes=tuple(notes),
    )


def _reversals(models, cats, theta0, raw, cov, half, tau2s) -> tuple[Reversal, ...]:
    """Pairs whose shrunk category gap is confidently on the other side of the pooled one."""
    out: list[Reversal] = []
    gap0 = theta0[:, None] - theta0[None, :]
    # Simpson in the strict sense: against the pooled order in every category where they met
    signs = []
    for k in range(len(cats)):
        met = (half[k] + half[k].T) > 0
        g = raw[k][:, None] - raw[k][None, :]
        signs.append(np.where(met, np.sign(g), np.nan))
    st = np.stack(signs)
    met_in = np.sum(~np.isnan(st), axis=0)
    against = np.nansum(st * np.sign(gap0)[None] < 0, axis=0)
    every = (met_in >= 2) & (against == met_in)
    for k, c in enumerate(cats):
        tau2 = tau2s[k]
        if tau2 <= 0:
            continue
        v = cov[k]
        g = raw[k][:, None] - raw[k][None, :]
        dv = np.diag(v)[:, None] + np.diag(v)[None, :] - 2 * v
        games = (half[k] + half[k].T).sum(axis=1) > 0
        from scipy.sparse.csgraph import connected_components

        _, labels = connected_components((half[k] + half[k].T) > 0, directed=False)
        b = 2 * tau2 / (2 * tau2 + np.maximum(dv, 1e-12))
        post = gap0 + b * (g - gap0)
        sd = np.sqrt(np.maximum(b * dv, 0.0))
        lo, hi = post - Z95 * sd, post + Z95 * sd
        ok = (gap0 > 0) & games[:, None] & games[None, :] & (labels[:, None] == labels[None, :])
        for i, j in np.argwhere(ok & (hi < 0)):
            out.append(
                Reversal(
                    c,
                    models[i],
                    models[j],
                    float(ELO_SCALE * gap0[i, j]),
                    float(ELO_SCALE * post[i, j]),
                    float(ELO_SCALE * lo[i, j]),
                    float(ELO_SCALE * hi[i, j]),
                    bool(every[i, j]),
                )
            )
    out.sort(key=lambda r: r.upper)
    return tuple(out)


def store_heterogeneity(
    store, *, judge: str, alpha: float = 0.05, min_verdicts: int = 30, permutations: int = 199, seed: int = 0
) -> Heterogeneity:
    """:func:`category_heterogeneity` of one judge's verdicts in a
    :class:`~evalcore.store.store.VerdictStore`, one count per category (bound SQL parameters)."""
    cats = store.categories()
    if len(cats) < 2:
        raise HeterogeneityError(
            f"the table has {len(cats)} categories; comparing rankings needs two or more "
            "(fill the 'category' column)"
        )
    # the judge's counts first: a store that read them with each call's category (an arena table)
    # selects each category's cells from them instead of reading every category again
    total = store.counts(judge=judge).calls
    per = {c: store.counts(judge=judge, category=c) for c in cats}
    # many small models × models products and solves (a fit and a sandwich per category): a pool
    # of BLAS threads costs more than it gains (1.0–1.8 against 0.3 CPU s on the 1.8 M arena)
    with single_blas_thread():
        return category_heterogeneity(
            per,
            alpha=alpha,
            min_verdicts=min_verdicts,
            uncategorised=int(total - sum(k.calls for k in per.values())),
            permutations=permutations,
            seed=seed,
        )
