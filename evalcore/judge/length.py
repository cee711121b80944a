"""Length bias of a judge: the length preference curve and length-controlled Bradley–Terry.

- **Length preference curve**: every call with two lengths is read from the longer response's
  point of view; its score (win 1, tie ½, loss 0) is averaged per bin of log2(longer / shorter).
  A judge without a length preference sits at 0.5 in every bin. Calls of equal length are left
  out. Intervals are Wilson 95% intervals on the bin's score (they treat calls as independent).
- **Length-controlled Bradley–Terry** (the arena's "style control", Li et al. 2024): a
  logistic regression of the slot-A score (ties ½) on model indicators (+1 slot A, −1 slot B) and
  the normalised length difference z = (len_a − len_b)/(len_a + len_b), standardised by its
  standard deviation over the calls. The model coefficients are the length-controlled ratings;
  γ is the length effect (logit per standard deviation of z), with a Wald 95% interval from a
  cluster-robust (by instruction) standard error. It is fitted on calls aggregated in DuckDB by
  (instruction, slot-A model, slot-B model, score, z rounded to 0.001), by Newton's method with
  an analytic gradient and Hessian (vectorised over the aggregated rows, no loop over rows). The plain ratings are the shared
  :func:`evalcore.ranking.fit_bradley_terry` on the same calls. Rank changes compare the two.

References
----------
Dubois, Y., Galambosi, B., Liang, P. & Hashimoto, T. (2024). Length-Controlled AlpacaEval: A
Simple Way to Debias Automatic Evaluators. arXiv:2404.04475.
Li, T., Chiang, W.-L. et al. (2024). Does style matter? Disentangling style and substance in
Chatbot Arena (LMSYS blog; "style control").
Zheng, L. et al. (2023). Judging LLM-as-a-Judge with MT-Bench and Chatbot Arena (verbosity bias).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import sparse
from scipy.stats import norm

from evalcore import store_queries
from evalcore.errors import UsageError
from evalcore.ranking import ELO_SCALE, comparison_graph, fit_bradley_terry, ranks_descending, to_elo
from evalcore.stats.intervals import Estimate, wilson_interval
from evalcore.store import VerdictStore

#: How γ's interval is made.
WALD_METHOD = "Wald 95% with a cluster-robust (by instruction) standard error"


def length_preference_curve(
    store: VerdictStore,
    judge: str | None,
    *,
    category: str | None = None,
    bin_width: float = 0.25,
    max_ratio_log2: float = 2.0,
) -> pd.DataFrame:
    """P(the longer response wins) per bin of log2(longer / shorter), in DuckDB.

    Parameters
    ----------
    store : VerdictStore
    judge : str or None
    category : str, optional
    bin_width : float, default 0.25
        Width of a bin of log2(longer / shorter).
    max_ratio_log2 : float, default 2.0
        Where the last, open bin starts (2.0: four times longer).

    Returns
    -------
    DataFrame
        bin_low, bin_high (log2 ratio; the last bin is open), ratio_mid (× longer, the bin's
        mean), calls, longer_score (wins + ties/2 of the longer response), ci_low, ci_high
        (Wilson 95%, calls treated as independent).

    References
    ----------
    Zheng, L. et al. (2023). Judging LLM-as-a-Judge with MT-Bench and Chatbot Arena (verbosity
    bias).
    Wilson, E. B. (1927). Probable inference, the law of succession, and statistical inference.
    JASA 22.

    Examples
    --------
    >>> from evalcore.simulate import JudgeSpec, SimulationSpec, simulate
    >>> from evalcore.store import VerdictStore
    >>> sim = simulate(SimulationSpec(n_models=4, n_instructions=30, seed=1,
    ...                               judges=(JudgeSpec("j", verbosity=1.0),)))
    >>> store = VerdictStore()
    >>> store.load(sim.verdicts)
    >>> curve = length_preference_curve(store, "j")
    >>> bool(curve["longer_score"].iloc[-1] > 0.5)  # a verbose judge favours the longer answer
    True
    """
    if not (bin_width > 0 and max_ratio_log2 > 0):
        raise UsageError(
            f"bin_width and max_ratio_log2 must be positive; got {bin_width!r} and {max_ratio_log2!r}."
        )
    n_bins = int(np.ceil(max_ratio_log2 / bin_width))
    frame = store.query(
        store_queries.length_ratio_bins, judge=judge, category=category, bin_width=bin_width, n_bins=n_bins
    )
    frame["bin_low"] = frame["bin"] * bin_width
    frame["bin_high"] = np.where(frame["bin"] >= n_bins - 1, np.inf, (frame["bin"] + 1) * bin_width)
    frame["ratio_mid"] = np.power(2.0, frame["x_mean"])
    calls = frame["calls"].to_numpy(dtype=np.float64)
    low, high = wilson_interval(frame["longer_score"].to_numpy() * calls, calls)
    frame["ci_low"], frame["ci_high"] = low, high
    return frame[["bin_low", "bin_high", "ratio_mid", "calls", "longer_score", "ci_low", "ci_high"]]


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def fit_length_controlled(
    a: np.ndarray,
    b: np.ndarray,
    y: np.ndarray,
    z: np.ndarray,
    n: np.ndarray,
    n_models: int,
    *,
    prior_games: float = 0.0,
    cluster: np.ndarray | None = None,
    max_iter: int = 100,
    tol: float = 1e-10,
) -> tuple[np.ndarray, float, float, bool]:
    """Bradley–Terry with a length term on aggregated calls, by damped Newton steps.

    P(slot A wins) = σ(θ_a − θ_b + γ·z); ``y`` the score (ties ½), ``n`` the calls of each
    aggregated row. ``prior_games`` virtual ties of every model against a strength-0 player keep
    θ finite when a model never loses. Returns θ (mean zero), γ, the standard error of γ and
    whether Newton converged. With ``cluster`` (an integer cluster id per row, e.g. the
    instruction) the standard error is the cluster-robust sandwich H⁻¹(Σ_c g_c g_cᵀ)H⁻¹·C/(C − 1):
    the calls of one instruction share their responses and are not independent. Without it, the
    observed information alone (calls treated as independent).
    """
    m = n_models
    pair = a * m + b
    ones = np.zeros(m + 1)
    ones[:m] = 1.0
    # fixes the free location of θ (sum-to-zero direction); a tiny ridge keeps γ defined when
    # every length difference is zero
    centre = np.outer(ones, ones) + 1e-9 * np.eye(m + 1)

    def loss_of(p: np.ndarray) -> float:
        eta = p[a] - p[b] + p[m] * z
        out = float(np.sum(n * (np.logaddexp(0.0, eta) - y * eta)))
        if prior_games:
            out += prior_games * float(np.sum(np.logaddexp(0.0, p[:m]) - 0.5 * p[:m]))
        return out

    def derivatives(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        eta = p[a] - p[b] + p[m] * z
        sig = _sigmoid(eta)
        r = n * (sig - y)
        w = n * sig * (1.0 - sig)
        grad = np.empty(m + 1)
        grad[:m] = np.bincount(a, r, minlength=m) - np.bincount(b, r, minlength=m)
        grad[m] = float(r @ z)
        cross = np.bincount(pair, w, minlength=m * m).reshape(m, m)
        info = np.zeros((m + 1, m + 1))
        info[:m, :m] = -(cross + cross.T)
        info[np.arange(m), np.arange(m)] = cross.sum(axis=1) + cross.sum(axis=0)
        info[:m, m] = np.bincount(a, w * z, minlength=m) - np.bincount(b, w * z, minlength=m)
        info[m, :m] = info[:m, m]
        info[m, m] = float(w @ (z * z))
        if prior_games:
            q = _sigmoid(p[:m])
            grad[:m] += prior_games * (q - 0.5)
            info[np.arange(m), np.arange(m)] += prior_games * q * (1.0 - q)
        return grad, info

    p = np.zeros(m + 1)
    current = loss_of(p)
    converged = False
    for _ in range(max_iter):
        grad, info = derivatives(p)
        step = np.linalg.solve(info + centre, grad)
        scale = 1.0
        while True:
            trial = p - scale * step
            value = loss_of(trial)
            if value <= current + 1e-12 * abs(current) or scale < 1e-6:
                break
            scale *= 0.5
        p, current = trial, value
        if np.abs(scale * step).max() < tol:
            converged = True
            break
    _, info = derivatives(p)
    try:
        bread = np.linalg.inv(info + centre)
    except np.linalg.LinAlgError:
        bread = np.full((m + 1, m + 1), np.nan)
    if cluster is None:
        se = float(np.sqrt(bread[m, m]))
    else:
        eta = p[a] - p[b] + p[m] * z
        r = n * (_sigmoid(eta) - y)
        n_c = int(cluster.max()) + 1
        # per-cluster scores, sparse: a cluster touches only its own models (an arena table has
        # one battle per cluster, so a dense clusters × models matrix would be mostly zeros)
        rows = np.concatenate([cluster, cluster, cluster])
        cols = np.concatenate([a, b, np.full(a.size, m)])
        vals = np.concatenate([r, -r, r * z])
        g = sparse.csr_matrix((vals, (rows, cols)), shape=(n_c, m + 1))
        meat = np.asarray((g.T @ g).todense())
        cov = bread @ meat @ bread * (n_c / max(n_c - 1, 1))
        se = float(np.sqrt(cov[m, m]))
    theta = p[:m]
    return theta - theta.mean(), float(p[m]), se, converged


@dataclass(frozen=True)
class LengthControlled:
    """Plain vs length-controlled Bradley–Terry of one judge (see the module docstring).

    ``table`` columns: model, rating, rank, rating_lc, rank_lc, rank_change (rank − rank_lc:
    > 0 the model moves up once length is controlled), mean_length.
    """

    judge: str | None
    calls: int
    z_sd: float  # standard deviation of the normalised length difference
    gamma: Estimate  # logit per standard deviation of z, Wald 95% (cluster-robust)
    table: pd.DataFrame
    converged: bool
    notes: tuple[str, ...]

    def __repr__(self) -> str:
        return (
            f"LengthControlled(judge={self.judge!r}, gamma={self.gamma!r}, rank_changes={self.rank_changes})"
        )

    @property
    def gamma_elo(self) -> Estimate:
        """γ on the Elo scale (points per standard deviation of z)."""
        return self.gamma.scaled(ELO_SCALE)

    @property
    def rank_changes(self) -> int:
        return int((self.table["rank_change"] != 0).sum())

    def as_dict(self) -> dict:
        return {
            "judge": self.judge,
            "calls": self.calls,
            "z_sd": self.z_sd,
            "length_coefficient_logit_per_sd": self.gamma.value,
            "length_coefficient_logit_per_sd_low": self.gamma.low,
            "length_coefficient_logit_per_sd_high": self.gamma.high,
            "length_coefficient_elo_per_sd": self.gamma_elo.value,
            "interval": self.gamma.method,
            "rank_changes": self.rank_changes,
            "converged": self.converged,
            "notes": list(self.notes),
            "models": self.table.to_dict(orient="records"),
        }


def length_controlled_ranking(
    store: VerdictStore, judge: str | None, *, category: str | None = None
) -> LengthControlled:
    """Fit plain and length-controlled Bradley–Terry for one judge and compare the ranks.

    Parameters
    ----------
    store : VerdictStore
        Needs length_a and length_b on the judge's rows.
    judge : str or None
    category : str, optional

    Returns
    -------
    LengthControlled

    References
    ----------
    Dubois, Y. et al. (2024). Length-Controlled AlpacaEval: A Simple Way to Debias Automatic
    Evaluators. arXiv:2404.04475.
    Li, T., Chiang, W.-L. et al. (2024). Does style matter? Disentangling style and substance in
    Chatbot Arena (LMSYS blog).

    Examples
    --------
    >>> from evalcore.simulate import JudgeSpec, SimulationSpec, simulate
    >>> from evalcore.store import VerdictStore
    >>> sim = simulate(SimulationSpec(n_models=5, n_instructions=60, seed=2,
    ...                               judges=(JudgeSpec("j", verbosity=1.5),)))
    >>> store = VerdictStore()
    >>> store.load(sim.verdicts)
    >>> lc = length_controlled_ranking(store, "j")
    >>> bool(lc.gamma.low > 0)  # the length effect is detected
    True
    """
    agg = store.query(store_queries.length_cells, judge=judge, category=category)
    if agg.empty:
        raise UsageError(
            "No call has both response lengths (length_a, length_b): length "
            "control needs them. Add the two lengths to the file to get it."
        )
    models = tuple(sorted(pd.unique(pd.concat([agg["model_a"], agg["model_b"]]).astype(str))))
    if len(models) < 2:
        raise UsageError("Length control needs calls between at least two models.")
    index = pd.Index(models)
    a = index.get_indexer(agg["model_a"])
    b = index.get_indexer(agg["model_b"])
    y = agg["y"].to_numpy(np.float64)
    n = agg["n"].to_numpy(np.float64)
    zraw = agg["z"].to_numpy(np.float64)
    mean = float(np.average(zraw, weights=n))
    sd = float(np.sqrt(np.average((zraw - mean) ** 2, weights=n)))
    notes: list[str] = []
    if not sd > 0:
        raise UsageError(
            "Every call compares responses of the same length: there is no length difference to control for."
        )
    # plain fit: the shared Bradley–Terry on the same calls (ties half a win)
    wins = np.zeros((len(models), len(models)))
    np.add.at(wins, (a, b), n * y)
    np.add.at(wins, (b, a), n * (1.0 - y))
    graph = comparison_graph(wins, models)
    prior = 0.0 if graph.mle_exists else 1.0
    if prior:
        notes.append(
            "Some model never lost or never won: both fits use a weak prior (one virtual "
            "tie per model against an average model) to stay finite."
        )
    theta_plain, _ = fit_bradley_terry(wins, prior_games=prior)
    cluster = pd.factorize(agg["instruction_id"])[0]
    theta_lc, gamma, se, ok = fit_length_controlled(
        a, b, y, zraw / sd, n, len(models), prior_games=prior, cluster=cluster
    )
    if not ok:
        notes.append("The length-controlled fit did not fully converge; treat it with care.")
    lengths = store.query(store_queries.mean_lengths, judge=judge, category=category)
    rank = ranks_descending(theta_plain)
    rank_lc = ranks_descending(theta_lc)
    table = (
        pd.DataFrame(
            {
                "model": list(models),
                "rating": to_elo(theta_plain),
                "rank": rank,
                "rating_lc": to_elo(theta_lc),
                "rank_lc": rank_lc,
                "rank_change": rank - rank_lc,
                "mean_length": lengths.reindex(list(models)).to_numpy(),
            }
        )
        .sort_values(["rank_lc", "model"])
        .reset_index(drop=True)
    )
    zq = norm.ppf(0.975)
    return LengthControlled(
        judge=judge,
        calls=int(n.sum()),
        z_sd=sd,
        gamma=Estimate(gamma, gamma - zq * se, gamma + zq * se, method=WALD_METHOD),
        table=table,
        converged=ok,
        notes=tuple(notes),
    )
