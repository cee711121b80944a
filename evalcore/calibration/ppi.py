"""Prediction-powered Bradley–Terry ratings: the judge on every pair, humans on a subset.

The judge's verdicts are cheap and cover every call; human labels are few and unbiased. Prediction-
powered inference (PPI++) combines them into one M-estimator whose interval is valid whatever the
judge's quality: it minimises

    λ·L_judge(all calls)/N + L_human(labelled)/n − λ·L_judge(labelled)/n

with L the Bradley–Terry logistic loss (a tie is half a win), N the judged calls, n the labelled
calls (each with both a human label and a verdict). The last two terms cancel the judge's bias on
the labelled calls; λ ∈ [0, 1] is chosen to make the interval narrowest (the power-tuned λ of
PPI++, clipped to [0, 1]); λ = 0 is the human-only fit. Because the loss is linear in the outcome,
the objective is a Bradley–Terry likelihood on pseudo-wins λ·J_all + (N/n)(H_lab − λ·J_lab), fitted
by the same Newton solver as every leaderboard.

The interval is the instruction-clustered sandwich H⁻¹ (Σ_k z_k z_kᵀ) H⁻¹ · K/(K − 1), with z_k
the gradient of instruction k's share of the objective (its judged and labelled calls together)
and K the instructions: the instruction is the unit of sampling, so a human label repeated on both
order rows of a pair, and the two order calls, are never counted as independent evidence.

The **effective human sample** is the number of labelled pairs that a human-only study would need
for the same variance: n_labelled × Var(human-only) / Var(PPI), per model and overall (trace).
Dorner, Nastl and Hardt (2025) show that when the judge is no better than the models it judges,
no such debiasing can be worth more than twice the labels: a larger measured gain is flagged.

References
----------
Angelopoulos, A. N., Duchi, J. C. & Zrnic, T. (2023). PPI++: Efficient prediction-powered
inference. arXiv:2311.01453.
Boyeau, P., Angelopoulos, A. N., Yosef, N., Malik, J. & Jordan, M. I. (2025). AutoEval done right:
using synthetic data for model evaluation. ICML 2025.
Dorner, F. E., Nastl, V. Y. & Hardt, M. (2025). Limits to scalable evaluation at the frontier:
LLM as judge won't beat twice the data. ICLR 2025.
Liang, K.-Y. & Zeger, S. L. (1986). Longitudinal data analysis using generalized linear models.
Biometrika 73(1) (the clustered sandwich).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from evalcore.counts import require_source
from evalcore.errors import DesignError, UsageError, check_int
from evalcore.ranking import sparse_fit
from evalcore.ranking.bradley_terry import (
    ELO_CENTRE,
    ELO_SCALE,
    _sigmoid,
    fit_bradley_terry,
    mle_exists,
    reachability,
)
from evalcore.ranking.intervals import clustered_outer, fisher_information, information_inverse
from evalcore.stats.intervals import Z95, Estimate
from evalcore.text import fmt_count

__all__ = ["DORNER_CEILING", "MIN_LABELLED", "MIN_LABELLED_INSTRUCTIONS", "PPIRatings", "ppi_ratings"]

#: The default fewest labelled pairs a prediction-powered fit accepts.
MIN_LABELLED = 30
#: The fewest labelled instructions (clusters) the sandwich needs to say anything.
MIN_LABELLED_INSTRUCTIONS = 10
#: Dorner et al. (2025): the most a judge no better than the judged models can multiply the labels.
DORNER_CEILING = 2.0
METHOD = "prediction-powered (PPI++), sandwich clustered by instruction"
CEILING_SENTENCE = (
    "Ceiling: when the judge is no better than the models it judges, debiasing it with human "
    "labels is worth at most twice the labels (Dorner, Nastl & Hardt, ICLR 2025)."
)


@dataclass(frozen=True, repr=False)
class PPIRatings:
    """Bradley–Terry ratings (Elo scale) from the judge and the human labels together.

    ``ppi``, ``human`` and ``judge`` hold one :class:`Estimate` per model: the prediction-powered
    rating, the rating from the labelled calls alone (human labels only) and from the judge alone
    (every call, no label: biased by whatever the judge gets wrong). ``effective`` is each model's
    effective human sample (labelled pairs a human-only study would need for the same variance),
    ``effective_overall`` the same for all ratings together. ``lam`` is the weight on the judge.
    """

    judge: str | None
    category: str | None
    models: tuple[str, ...]
    ppi: tuple[Estimate, ...]
    human: tuple[Estimate, ...]
    judge_only: tuple[Estimate, ...]
    effective: tuple[float, ...]
    effective_overall: float
    lam: float
    lam_tuned: bool
    n_calls: int
    n_labelled_calls: int
    n_labelled_pairs: int
    n_instructions: int
    n_labelled_instructions: int
    covariance: np.ndarray = field(compare=False)  # Elo², of the PPI ratings
    notes: tuple[str, ...] = ()
    #: the sandwich's cluster: "instruction", or the unit column (session, voter, run)
    cluster: str = "instruction"
    #: clusters of the sandwich (instructions, or the unit column's units)
    n_units: int = 0

    def __repr__(self) -> str:
        return (
            f"PPIRatings({len(self.models)} models, lam={self.lam:.2f}, "
            f"{self.n_labelled_pairs:,} labelled pairs worth {self.effective_overall:,.0f})"
        )

    @property
    def gain(self) -> float:
        """Effective human sample / labelled pairs (1: the judge adds nothing)."""
        return self.effective_overall / self.n_labelled_pairs if self.n_labelled_pairs else math.nan

    @property
    def exceeds_ceiling(self) -> bool:
        """The measured gain is beyond what Dorner et al. allow for a judge no better than the
        models it judges (a factor of two)."""
        return bool(self.gain > DORNER_CEILING)

    def difference(self, first: str, second: str, *, level: float = 0.95) -> Estimate:
        """The PPI rating of ``first`` minus ``second`` (Elo points), delta-method interval."""
        for name in (first, second):
            if name not in self.models:
                raise UsageError(f"model {name!r} is not rated; the models are: " + ", ".join(self.models))
        i, j = self.models.index(first), self.models.index(second)
        c = self.covariance
        se = math.sqrt(max(c[i, i] + c[j, j] - 2.0 * c[i, j], 0.0))
        z = _z(level)
        d = self.ppi[i].value - self.ppi[j].value
        return Estimate(d, d - z * se, d + z * se, level, METHOD)

    def table(self) -> pd.DataFrame:
        """One row per model: the three ratings with intervals and the effective human sample."""
        rows = []
        for k, name in enumerate(self.models):
            row: dict[str, Any] = {"model": name}
            for key, est in (("ppi", self.ppi[k]), ("human", self.human[k]), ("judge", self.judge_only[k])):
                row[key], row[f"{key}_low"], row[f"{key}_high"] = est.value, est.low, est.high
            row["effective_labels"] = self.effective[k]
            rows.append(row)
        return pd.DataFrame(rows).sort_values("ppi", ascending=False, ignore_index=True)

    def as_dict(self) -> dict[str, Any]:
        def num(x: float) -> float | None:
            return float(x) if math.isfinite(x) else None

        return {
            "judge": self.judge,
            "category": self.category,
            "method": method_text(self.cluster),
            "lambda": self.lam,
            "lambda_tuned": self.lam_tuned,
            "n_calls": self.n_calls,
            "n_labelled_calls": self.n_labelled_calls,
            "n_labelled_pairs": self.n_labelled_pairs,
            "n_instructions": self.n_instructions,
            "n_labelled_instructions": self.n_labelled_instructions,
            "cluster": self.cluster,
            "n_units": self.n_units,
            "effective_labels": num(self.effective_overall),
            "gain": num(self.gain),
            "exceeds_ceiling": self.exceeds_ceiling,
            "ceiling": CEILING_SENTENCE,
            "models": [
                {
                    "model": name,
                    "ppi": self.ppi[k].as_dict(),
                    "human_only": self.human[k].as_dict(),
                    "judge_only": self.judge_only[k].as_dict(),
                    "effective_labels": num(self.effective[k]),
                }
                for k, name in enumerate(self.models)
            ],
            "notes": list(self.notes),
        }


def method_text(cluster: str = "instruction") -> str:
    """:data:`METHOD`, naming the sandwich's cluster."""
    return METHOD if cluster == "instruction" else METHOD.replace("by instruction", f"by {cluster}")


def _z(level: float) -> float:
    if level == 0.95:
        return Z95
    from statistics import NormalDist

    return NormalDist().inv_cdf(0.5 + level / 2.0)


def _wins(cells: dict, score: np.ndarray, calls: np.ndarray, m: int) -> np.ndarray:
    """(M, M) wins of a over b from per-cell slot-A scores and calls."""
    a, b = cells["a"], cells["b"]
    wins = np.bincount(a * m + b, weights=score, minlength=m * m)
    wins += np.bincount(b * m + a, weights=calls - score, minlength=m * m)
    return wins.reshape(m, m)


def _sandwich(wins: np.ndarray, theta: np.ndarray, cells: dict, resid: np.ndarray, k: int) -> np.ndarray:
    """Clustered sandwich covariance of the centred θ (natural scale) for residuals per cell."""
    m = theta.size
    meat = clustered_outer(cells["inst"], cells["a"], cells["b"], resid, n_models=m)
    if k > 1:
        meat *= k / (k - 1)
    bread = information_inverse(fisher_information(wins, theta))  # one Cholesky for many models
    cov = bread @ meat @ bread
    return 0.5 * (cov + cov.T)


def _estimates(theta: np.ndarray, cov: np.ndarray | None, z: float, level: float, method: str):
    elo = ELO_CENTRE + ELO_SCALE * (theta - theta.mean())
    if cov is None:
        return tuple(Estimate(float(v), level=level, method=method) for v in elo)
    se = ELO_SCALE * np.sqrt(np.clip(np.diag(cov), 0.0, None))
    return tuple(
        Estimate(float(v), float(v - z * s), float(v + z * s), level, method)
        for v, s in zip(elo, se, strict=True)
    )


def _check_design(cells: dict, m: int, models: tuple[str, ...], min_labelled: int) -> None:
    pairs, insts = cells["labelled_pairs"], cells["labelled_instructions"]
    if m < 2:
        raise DesignError("prediction-powered ratings need at least two models with verdicts")
    if pairs < min_labelled or insts < MIN_LABELLED_INSTRUCTIONS:
        raise DesignError(
            f"only {fmt_count(pairs, 'labelled pair')} on {fmt_count(insts, 'instruction')} "
            f"{'carries' if pairs == 1 else 'carry'} both a human label and a verdict; prediction-powered ratings need at least {min_labelled:,} labelled pairs on "
            f"{MIN_LABELLED_INSTRUCTIONS} instructions (the interval is estimated from how the "
            "labelled instructions vary). Label more pairs, or use the judge-only leaderboard."
        )
    lab = cells["labelled"] > 0
    games = np.zeros((m, m), dtype=bool)
    games[cells["a"][lab], cells["b"][lab]] = True
    games |= games.T
    if m >= sparse_fit.SPARSE_FROM_MODELS:
        # graph traversal over the labelled pairs, linear in them (the closure is O(M³ log M))
        i, j = np.nonzero(np.triu(games, 1))
        reach = sparse_fit.weak_pieces(sparse_fit.Pairs.from_arrays(i, j, m)) == 0
    else:
        reach = reachability(games)[0]
    if not reach.all():
        missing = [name for name, r in zip(models, reach, strict=True) if not r]
        raise DesignError(
            "the labelled pairs do not connect the models: no chain of labelled comparisons links "
            f"{models[0]} with {', '.join(missing)}. Human labels on pairs across these groups are "
            "needed before their ratings can be compared."
        )


def ppi_ratings(
    source,
    *,
    judge: str | None = None,
    category: str | None = None,
    lam: float | None = None,
    min_labelled: int = MIN_LABELLED,
    level: float = 0.95,
    cluster: str | None = None,
) -> PPIRatings:
    """Prediction-powered Bradley–Terry ratings with instruction-clustered intervals.

    ``cluster`` (``"session"``, ``"voter"``, ``"run"``: a unit column of the store) clusters the
    sandwich by that column's units instead (Cameron & Miller 2015); the point estimate and λ's
    rule are unchanged, λ is tuned on the same clusters.

    Parameters
    ----------
    source : VerdictStore or dict
        The store of verdicts (load a frame with ``VerdictStore.from_frame(frame)``), or the per-cell
        arrays of :meth:`evalcore.store.store.VerdictStore.score_cells`.
    judge : str, optional
        The judge; required when the table has several.
    category : str, optional
        Only the rows of this category.
    lam : float, optional
        The weight on the judge in [0, 1]; None (default) chooses it by the PPI++ formula,
        the λ that minimises the summed variance of the ratings, clipped to [0, 1].
    min_labelled : int, default 30
        Refuse with fewer labelled pairs (distinct instruction and unordered pair).
    level : float, default 0.95

    Returns
    -------
    PPIRatings

    Raises
    ------
    DesignError
        Too few labelled pairs or instructions, labelled pairs that do not connect the models, or
        a combined objective with no finite minimum.

    References
    ----------
    Angelopoulos, Duchi & Zrnic (2023), PPI++, arXiv:2311.01453; Boyeau et al. (2025), AutoEval
    done right, ICML 2025; Dorner, Nastl & Hardt (2025), ICLR 2025.

    Examples
    --------
    >>> from evalcore.simulate.tables import JudgeSpec, SimulationSpec, simulate
    >>> sim = simulate(SimulationSpec(n_models=4, n_instructions=120, human_fraction=0.3, seed=3,
    ...                               judges=(JudgeSpec("j", noise=0.2),)))
    >>> from evalcore.store.store import VerdictStore
    >>> r = ppi_ratings(VerdictStore.from_frame(sim.verdicts))
    >>> 0.0 <= r.lam <= 1.0, r.ppi[0].width < r.human[0].width
    (True, True)
    """
    if lam is not None and not (isinstance(lam, int | float) and 0.0 <= lam <= 1.0):
        raise UsageError(f"lam is the weight on the judge, between 0 and 1 (or None to tune it); got {lam!r}")
    min_labelled = check_int("min_labelled", min_labelled, low=1)
    if not 0.5 <= level < 1.0:
        raise UsageError(f"level is a confidence level between 0.5 and 1, e.g. 0.95; got {level!r}")
    cells = _cells(source, judge=judge, category=category, cluster=cluster)
    return _ppi_from_cells(
        cells, judge=judge, category=category, lam=lam, min_labelled=min_labelled, level=level
    )


def _cells(source, *, judge: str | None, category: str | None, cluster: str | None = None) -> dict:
    if isinstance(source, dict):
        return source
    require_source(source, needs=("judges", "score_cells"), what="ppi_ratings")
    judges = source.judges()
    if judge is None and len(judges) > 1:
        raise UsageError("judge: the table has several judges (" + ", ".join(judges) + "); name one")
    if judge is not None and judge not in judges:
        raise UsageError(f"judge {judge!r} is not in the table; its judges are: " + ", ".join(judges))
    if cluster in (None, "instruction"):
        return source.score_cells(judge=judge, category=category)
    return {**source.score_cells(judge=judge, category=category, cluster=cluster), "cluster": cluster}


def _ppi_from_cells(
    cells: dict, *, judge, category, lam: float | None, min_labelled: int, level: float
) -> PPIRatings:
    models = tuple(cells["models"])
    m = len(models)
    _check_design(cells, m, models, min_labelled)
    z = _z(level)
    calls, lab = cells["calls"], cells["labelled"]
    n_all, n_lab = float(calls.sum()), float(lab.sum())
    k = int(cells["inst"][-1]) + 1  # clusters: instructions, or the unit column's units
    unit = str(cells.get("cluster", "instruction"))
    r = n_all / n_lab
    j_all = _wins(cells, cells["judge_score"], calls, m)
    h_lab = _wins(cells, cells["human_score"], lab, m)
    j_lab = _wins(cells, cells["judge_score_labelled"], lab, m)
    notes: list[str] = []

    def residuals(theta: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        p = _sigmoid(theta[cells["a"]] - theta[cells["b"]])
        return (
            cells["judge_score"] - calls * p,
            cells["human_score"] - lab * p,
            cells["judge_score_labelled"] - lab * p,
        )

    def fit(weight: float) -> np.ndarray:
        theta, ok = fit_bradley_terry(weight * j_all + r * (h_lab - weight * j_lab))
        if not ok or not np.all(np.isfinite(theta)) or np.abs(theta).max() > 30.0:
            raise DesignError(
                f"the prediction-powered fit with weight {weight:.2f} on the judge has no finite "
                "minimum: on the labelled pairs the humans and the judge disagree so much that some "
                "model's corrected record is beyond all wins or all losses. Label more pairs."
            )
        return theta

    tuned = lam is None
    weight = 0.0 if lam is None else float(lam)
    if tuned:
        # PPI++: λ̂ at a first consistent estimate, then refit (Angelopoulos et al. 2023, §3):
        # the λ = 1 fit, or the human-only fit when a poor judge leaves λ = 1 without a minimum.
        try:
            theta0 = fit(1.0)
        except DesignError:
            theta0 = fit(0.0)
        e_all, e_h, e_jl = residuals(theta0)
        bread = information_inverse(fisher_information(j_all, theta0))
        lead = r * e_h  # z_k = lead_k + λ·slope_k
        slope = e_all - r * e_jl
        cross = clustered_outer(cells["inst"], cells["a"], cells["b"], lead, slope, n_models=m)
        var_slope = clustered_outer(cells["inst"], cells["a"], cells["b"], slope, n_models=m)
        denom = float(np.trace(bread @ var_slope @ bread))
        weight = float(np.clip(-np.trace(bread @ cross @ bread) / denom, 0.0, 1.0)) if denom > 0 else 0.0
    theta = fit(weight)
    e_all, e_h, e_jl = residuals(theta)
    wins = weight * j_all + r * (h_lab - weight * j_lab)
    cov = _sandwich(wins, theta, cells, weight * e_all + r * (e_h - weight * e_jl), k)
    ppi = _estimates(theta, cov, z, level, method_text(unit))

    # Human only: the same fit and sandwich on the labelled calls (λ = 0), if its MLE exists.
    human_cov = None
    if mle_exists(h_lab):
        th_h, ok = fit_bradley_terry(h_lab)
        human_cov = _sandwich(h_lab, th_h, cells, residuals(th_h)[1], k)
        human = _estimates(th_h, human_cov, z, level, f"human labels only, sandwich clustered by {unit}")
    else:
        human = _estimates(np.full(m, np.nan), None, z, level, "human labels only")
        notes.append(
            "The human labels alone do not give finite ratings (some model won or lost every "
            "labelled comparison), so there is no human-only interval and no effective sample."
        )
    # Judge only: every call, the judge's verdicts (weak prior if its MLE is infinite).
    prior = 0.0 if mle_exists(j_all) else 1.0
    th_j, _ = fit_bradley_terry(j_all, prior_games=prior)
    judge_cov = None
    if not prior:
        judge_cov = _sandwich(j_all, th_j, cells, residuals(th_j)[0], k)
    judge_est = _estimates(th_j, judge_cov, z, level, f"judge only, sandwich clustered by {unit}")

    pairs = cells["labelled_pairs"]
    if human_cov is not None:
        v_p, v_h = np.diag(cov), np.diag(human_cov)
        with np.errstate(divide="ignore", invalid="ignore"):
            effective = tuple(float(x) for x in pairs * v_h / v_p)
        overall = float(pairs * np.trace(human_cov) / np.trace(cov))
    else:
        effective, overall = tuple(math.nan for _ in models), math.nan
    result = PPIRatings(
        judge=judge,
        category=category,
        models=models,
        ppi=ppi,
        human=human,
        judge_only=judge_est,
        effective=effective,
        effective_overall=overall,
        lam=weight,
        lam_tuned=tuned,
        n_calls=int(n_all),
        n_labelled_calls=int(n_lab),
        n_labelled_pairs=int(pairs),
        n_instructions=int(cells.get("n_instructions", k)),
        n_labelled_instructions=int(cells["labelled_instructions"]),
        covariance=ELO_SCALE**2 * cov,
        notes=tuple(notes),
        cluster=unit,
        n_units=k,
    )
    if result.exceeds_ceiling:
        notes.append(
            f"The judge is measured to be worth {result.gain:.1f} times the labels, more than the "
            "factor of two that Dorner, Nastl & Hardt (2025) allow when the judge is no better than "
            "the models it judges. That is possible only if the judge is clearly stronger than these "
            "models on this task, or if the labelled pairs are not a random sample of the judged "
            "ones (then every interval here is in doubt): check which."
        )
        result = replace(result, notes=tuple(notes))
    return result
