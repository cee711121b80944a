"""Self-preference: how much more a judge rates its own model family than the other judges do.

For a judge J of family F, its Bradley–Terry strengths θ_J are regressed on the other judges' mean
strengths θ_others with an indicator of family F: θ_J(m) = α + β·θ_others(m) + δ·[family(m) = F].
δ is how much more J rates its own family than the other judges do, net of J's own scale (β) — in
logit units, reported on the Elo scale (×400/ln 10). The other judges are the *neutral* ones (no
family, or a family with no model in the data) when there are any: a judge with a family among the
models carries its own self-preference, which would show up in J's δ as a mirror image; without
neutral judges all other judges are used and the row says so. 95% interval: by default the delta
method through the regression and every judge's fit, with each judge's strengths moved by its
inverse information times each instruction's score (the cluster-robust sandwich, instructions as
clusters: :mod:`evalcore.judge._analytic`); on request, a bootstrap over instructions, every judge
refitted on the same redrawn instructions.

The judges' counts are stacked into one sparse table whose "models" are (judge, model) pairs, so
the instruction patterns, and therefore the bootstrap draws, are shared by all judges and no
instructions × models grid is built.

References
----------
Panickssery, A., Bowman, S. R. & Feng, S. (2024). LLM Evaluators Recognize and Favor Their Own
Generations. NeurIPS.
Zheng, L. et al. (2023). Judging LLM-as-a-Judge with MT-Bench and Chatbot Arena (self-enhancement
bias).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import sparse

from evalcore.counts import CountSource, VerdictCounts
from evalcore.errors import DesignError, UsageError, check_int, check_models
from evalcore.judge import _analytic as analytic
from evalcore.judge._resample import pair_totals, resampled_pair_totals
from evalcore.progress import Progress
from evalcore.ranking import ELO_SCALE, fit_bradley_terry
from evalcore.ranking.intervals import fisher_information, information_inverse
from evalcore.schema import LEVELS
from evalcore.stats.bootstrap import MAX_ROUNDS, percentile_interval

#: Most models a self-preference table is computed for: every judge's Bradley–Terry fit works on
#: full model-by-model tables (2,000 models took 2.2 s and 730 MB; 5,000 took 21 s and 3.4 GB;
#: ``benchmarks/bench_model_limits.py``).
MAX_MODELS = 2000

_SLOT_A_SCORE = np.array([0.0 if v < 0 else 0.5 if v == 0 else 1.0 for v in LEVELS])


def read_families(text: str) -> dict[str, str]:
    """Parse ``model,family`` lines (a header line ``model,family`` is optional).

    Raises :class:`~evalcore.errors.UsageError` naming the line when a line does not have exactly
    two fields.

    Examples
    --------
    >>> read_families("model,family\\ngpt-4,openai\\nclaude,anthropic")
    {'gpt-4': 'openai', 'claude': 'anthropic'}
    """
    out: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split(",")]
        if len(parts) != 2 or not parts[0] or not parts[1]:
            raise UsageError(f"family list, line {number}: expected 'model,family', got {raw!r}")
        if number == 1 and parts[0].lower() == "model" and parts[1].lower() == "family":
            continue
        out[parts[0]] = parts[1]
    return out


def stacked_counts(
    store: CountSource, judges: tuple[str, ...], category: str | None
) -> tuple[tuple[str, ...], VerdictCounts]:
    """Every judge's counts on common axes, as one sparse table whose model index is
    ``judge_index · M + model_index`` (M the number of models of all judges together)."""
    tensors = {j: store.counts(judge=j, category=category) for j in judges}
    models = tuple(sorted(set().union(*(t.models for t in tensors.values()))))
    instructions = tuple(sorted(set().union(*(t.instructions for t in tensors.values()))))
    mi, ii = pd.Index(models), pd.Index(instructions)
    m = len(models)
    parts = []
    for k, t in enumerate(tensors.values()):
        cols = mi.get_indexer(list(t.models)).astype(np.int64)
        rows = ii.get_indexer(list(t.instructions)).astype(np.int64)
        parts.append((rows[t.inst], k * m + cols[t.a], k * m + cols[t.b], t.n))
    stacked = VerdictCounts.from_cells(
        models=tuple(f"{j}\x1f{x}" for j in judges for x in models),
        instructions=instructions,
        judge=None,
        inst=np.concatenate([p[0] for p in parts]),
        a=np.concatenate([p[1] for p in parts]),
        b=np.concatenate([p[2] for p in parts]),
        n=np.concatenate([p[3] for p in parts]),
    )
    return models, stacked


def _judge_wins(totals: np.ndarray, n_judges: int, m: int) -> np.ndarray:
    """(…, J, M, M) wins per judge (ties half) from (…, 2, J·M, J·M) slot-A / slot-B scores."""
    lead = totals.shape[:-3]
    t = totals.reshape(lead + (2, n_judges, m, n_judges, m))
    idx = np.arange(n_judges)
    as_a = t[..., 0, idx, :, idx, :]  # (J, …, M, M) after advanced indexing
    as_b = t[..., 1, idx, :, idx, :]
    wins = as_a + np.swapaxes(as_b, -1, -2)
    return np.moveaxis(wins, 0, -3)


def _scores(rep: VerdictCounts, values: np.ndarray, thetas: list[np.ndarray], m: int) -> sparse.csr_matrix:
    """(patterns, J·M) score of every judge's Bradley–Terry log-likelihood per instruction: each
    cell adds slot A's score less its expectation to slot A's model and takes it from slot B's."""
    theta = np.concatenate(thetas)
    a, b = rep.a.astype(np.int64), rep.b.astype(np.int64)
    calls = values.sum(axis=1)
    resid = values[:, 0] - calls * 0.5 * (1.0 + np.tanh(0.5 * (theta[a] - theta[b])))
    inst = rep.inst.astype(np.int64)
    return sparse.csr_matrix(
        (np.concatenate([resid, -resid]), (np.concatenate([inst, inst]), np.concatenate([a, b]))),
        shape=(rep.n_instructions, theta.size),
    )


def _bread(wins: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """The inverse information of one judge's fit (its strengths move by bread @ score)."""
    info = fisher_information(wins, theta, prior_games=0.01)
    return information_inverse(info, prior_games=0.01)


def _delta_gradient(
    x: np.ndarray, y: np.ndarray, coef: np.ndarray, use: np.ndarray, m: int
) -> tuple[np.ndarray, np.ndarray]:
    """The gradient of δ (the own-family coefficient of regressing ``y`` on ``x`` = [1, consensus,
    own]) with respect to the judge's strengths and to the consensus, each (M,) over all models
    (zero off ``use``); the consensus is centred over ``use``, so its gradient is too."""
    inv = np.linalg.inv(x.T @ x)
    d_y = (x @ inv)[:, 2]
    resid = y - x @ coef
    d_cons = inv[2, 1] * resid - coef[1] * (x @ inv)[:, 2]
    d_cons = d_cons - d_cons.mean()
    out_y, out_c = np.zeros(m), np.zeros(m)
    out_y[use], out_c[use] = d_y, d_cons
    return out_y, out_c


def self_preference(
    store: CountSource,
    families: dict[str, str],
    *,
    category: str | None = None,
    rounds: int = 500,
    seed: int = 0,
    progress: Progress | None = None,
    interval: str = analytic.DEFAULT_INTERVAL,
) -> pd.DataFrame:
    """How much more each judge of a known family rates its own family than the other judges do.

    Parameters
    ----------
    store : CountSource
    families : dict
        Model names and judge names → family.
    category : str, optional
    rounds : int, default 500
        Bootstrap rounds over instructions (every judge refitted on the same draws), with
        ``interval="bootstrap"``.
    seed : int, default 0
    progress : callable, optional
    interval : {"analytic", "bootstrap"}, default "analytic"
        The delta method through the regression and every judge's Bradley–Terry fit, with a
        cluster-robust (by instruction) sandwich; or percentiles of a bootstrap.

    Returns
    -------
    DataFrame
        One row per judge: judge, family, own_models, other_models, delta (logit units),
        delta_low, delta_high, delta_elo, delta_elo_low, delta_elo_high, scale (β), reference
        (the judges compared with), note. A judge without a family, or whose family has no model
        (or every model) in the data, gets NaN and a note.

    References
    ----------
    Panickssery, A., Bowman, S. R. & Feng, S. (2024). LLM Evaluators Recognize and Favor Their
    Own Generations. NeurIPS.
    """
    rounds = check_int("rounds", rounds, low=0, high=MAX_ROUNDS)
    seed = check_int("seed", seed, low=0)
    exact = analytic.check_interval(interval) == "analytic"
    rounds = 0 if exact else rounds
    judges = store.judges()
    if len(judges) < 2:
        raise DesignError(
            "Self-preference compares a judge with the other judges: the data has only one judge."
        )
    models, stacked = stacked_counts(store, judges, category)
    check_models(
        len(models),
        limit=MAX_MODELS,
        analysis="Self-preference fits every judge's ranking on full model-by-model tables",
        measured="5,000 models took 21 s and 3.4 GB",
        instead="Measure it on a smaller selection: a category, or fewer models.",
    )
    m, n_j = len(models), len(judges)
    rep, mult = stacked.pattern_counts()
    cell = rep.n.astype(np.float64)
    values = np.column_stack([cell @ _SLOT_A_SCORE, cell @ (1.0 - _SLOT_A_SCORE)])
    total = _judge_wins(pair_totals(rep, mult, values), n_j, m)  # (J, M, M)
    thetas = {j: np.full((1 + rounds, m), np.nan) for j in judges}  # (1 + R, M), NaN until fit
    played: dict[str, np.ndarray] = {}
    for k, j in enumerate(judges):
        thetas[j][0] = fit_bradley_terry(total[k], prior_games=0.01)[0]
        played[j] = (total[k] + total[k].T).sum(axis=1) > 0
    scores = _scores(rep, values, [thetas[j][0] for j in judges], m) if exact else None
    breads = [_bread(total[k], thetas[j][0]) for k, j in enumerate(judges)] if exact else []
    for start, stop, t in resampled_pair_totals(rep, mult, values, rounds=rounds, seed=seed):
        wins = _judge_wins(t, n_j, m)  # (r, J, M, M)
        for k, j in enumerate(judges):
            thetas[j][1 + start : 1 + stop] = fit_bradley_terry(wins[:, k], prior_games=0.01)[0]
        if progress is not None:
            progress(stop / rounds, "Bradley–Terry for every judge")
    rows = []
    for j in judges:
        family = families.get(j)
        row = {
            "judge": j,
            "family": family,
            "own_models": 0,
            "other_models": 0,
            "delta": np.nan,
            "delta_low": np.nan,
            "delta_high": np.nan,
            "delta_elo": np.nan,
            "delta_elo_low": np.nan,
            "delta_elo_high": np.nan,
            "scale": np.nan,
            "reference": "",
            "note": "",
        }
        others = [o for o in judges if o != j]
        neutral = [
            o
            for o in others
            if not any(families.get(o) == families.get(x) for x in models if families.get(o) is not None)
        ]
        if neutral:
            others = neutral
        else:
            row["note"] = (
                "every other judge has a family among the models, so the self-preference is relative to "
                "judges with their own self-preference; "
            )
        row["reference"] = ", ".join(others)
        use = played[j] & np.all([played[o] for o in others], axis=0)
        own = np.array([families.get(x) == family for x in models]) & use
        row["own_models"], row["other_models"] = int(own.sum()), int((use & ~own).sum())
        if family is None:
            row["note"] = "no family given for this judge"
        elif row["own_models"] == 0:
            row["note"] = f"no model of family {family} was judged"
        elif row["other_models"] == 0:
            row["note"] = f"every model is of family {family}: nothing to compare with"
        elif use.sum() < 4:
            row["note"] = "fewer than four models judged by every judge"
        else:
            consensus = np.mean(
                [thetas[o][:, use] - thetas[o][:, use].mean(axis=1, keepdims=True) for o in others], axis=0
            )  # (1 + R, M')
            target = thetas[j][:, use]
            x = np.stack(
                [
                    np.ones_like(consensus),
                    consensus,
                    np.broadcast_to(own[use].astype(float), consensus.shape),
                ],
                axis=-1,
            )
            xtx = np.einsum("rmi,rmj->rij", x, x)
            xty = np.einsum("rmi,rm->ri", x, target)
            try:
                coef = np.linalg.solve(xtx, xty[..., None])[..., 0]
            except np.linalg.LinAlgError:
                row["note"] = "the regression on the other judges is singular"
                rows.append(row)
                continue
            delta = coef[:, 2]
            row["delta"] = float(delta[0])
            row["scale"] = float(coef[0, 1])
            if rounds:
                low, high = percentile_interval(delta[1:])
                row["delta_low"], row["delta_high"] = float(low), float(high)
            elif scores is not None:
                grad = _delta_gradient(x[0], target[0], coef[0], use, m)
                v = np.zeros(n_j * m)  # the gradient carried through each judge's fit
                k_j = judges.index(j)
                v[k_j * m : (k_j + 1) * m] = breads[k_j] @ grad[0]
                for o in others:
                    k_o = judges.index(o)
                    v[k_o * m : (k_o + 1) * m] = breads[k_o] @ (grad[1] / len(others))
                est = analytic.wald(float(delta[0]), float(analytic.clustered_variance(scores @ v, mult)))
                row["delta_low"], row["delta_high"] = est.low, est.high
            for key in ("", "_low", "_high"):
                row[f"delta_elo{key}"] = ELO_SCALE * row[f"delta{key}"]
        rows.append(row)
    return pd.DataFrame(rows)
