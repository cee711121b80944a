"""Arena battles grouped in sessions that share a random effect: a known truth for intervals
clustered by session.

Each session compares one pair of models over several prompts (one battle a prompt, as in an
arena conversation), and its voter leans towards one of the two by a random amount ``δ_s`` drawn
once per session: P(slot A wins) = σ(θ_a − θ_b + δ_s). Battles of one session are correlated;
prompts are not shared, so every instruction is its own cluster and intervals over instructions
treat correlated battles as independent. The estimand is the population-averaged Bradley–Terry
rating (what the pooled fit converges to on endless sessions): :func:`session_truth` computes it
by integrating δ out (Gauss–Hermite) and fitting the expected win matrix.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evalcore.counts import VerdictCounts

#: Level indices of a win, a tie and a loss for slot A (LEVELS = −2..+2).
_WIN, _LOSS = 3, 1


@dataclass(frozen=True)
class SessionSpec:
    """A session-correlated arena: ``theta`` strengths (natural scale), ``sessions`` sessions of
    ``per_session`` battles each, a per-session lean with standard deviation ``session_sd``."""

    theta: tuple[float, ...] = (-0.6, -0.3, 0.0, 0.2, 0.4, 0.6)
    sessions: int = 150
    per_session: int = 6
    session_sd: float = 1.5


def simulate_sessions(spec: SessionSpec, seed: int = 0) -> VerdictCounts:
    """One table of ``spec``: counts with the session as each cell's unit (``unit_column``
    ``"session"``), one instruction per battle."""
    rng = np.random.default_rng(seed)
    theta = np.asarray(spec.theta, dtype=float)
    m = theta.size
    s, k = spec.sessions, spec.per_session
    first = rng.integers(0, m, s)
    second = (first + rng.integers(1, m, s)) % m
    lean = rng.normal(0.0, spec.session_sd, s)
    session = np.repeat(np.arange(s), k)
    # the slot order is drawn per battle (who sits first does not carry the voter's lean)
    swap = rng.random(s * k) < 0.5
    a = np.where(swap, second[session], first[session])
    b = np.where(swap, first[session], second[session])
    towards_first = theta[first[session]] - theta[second[session]] + lean[session]
    first_wins = rng.random(s * k) < 1.0 / (1.0 + np.exp(-towards_first))
    a_wins = first_wins ^ swap
    n = np.zeros((s * k, 5), dtype=np.int64)
    n[np.arange(s * k), np.where(a_wins, _WIN, _LOSS)] = 1
    return VerdictCounts.from_cells(
        models=tuple(f"m{j}" for j in range(m)),
        instructions=tuple(f"q{i:06d}" for i in range(s * k)),
        judge="sim",
        inst=np.arange(s * k),
        a=a,
        b=b,
        n=n,
        unit=session,
        units=tuple(f"s{j:05d}" for j in range(s)),
        unit_column="session",
    )


def session_frame(spec: SessionSpec, seed: int = 0):
    """The same table as :func:`simulate_sessions`, as the rows a user uploads (one battle a row,
    with its ``session``)."""
    import pandas as pd

    c = simulate_sessions(spec, seed)
    verdict = np.where(c.n[:, _WIN] > 0, 1, -1)
    return pd.DataFrame(
        {
            "instruction_id": [c.instructions[i] for i in c.inst],
            "model_a": [c.models[i] for i in c.a],
            "model_b": [c.models[i] for i in c.b],
            "verdict": verdict,
            "session": [c.units[u] for u in np.asarray(c.unit)],
        }
    )


def session_truth(spec: SessionSpec) -> np.ndarray:
    """The population-averaged ratings (natural scale, mean zero) the pooled fit estimates: the
    Bradley–Terry fit of the expected wins of every pair (pairs are drawn uniformly)."""
    from evalcore.ranking.bradley_terry import fit_bradley_terry

    theta = np.asarray(spec.theta, dtype=float)
    nodes, weights = np.polynomial.hermite_e.hermegauss(80)
    weights = weights / weights.sum()
    gap = theta[:, None] - theta[None, :]
    p = (weights * (1.0 / (1.0 + np.exp(-(gap[..., None] + spec.session_sd * nodes))))).sum(axis=-1)
    wins = p * (1.0 - np.eye(theta.size))
    truth, _ = fit_bradley_terry(wins)
    return truth - truth.mean()


def labelled_session_frame(spec: SessionSpec, seed: int = 0, *, share: float = 0.4, flip: float = 0.15):
    """:func:`session_frame` where the simulated outcome is the **human's**: ``human`` holds it on
    a random ``share`` of the calls, and the judge's ``verdict`` is that outcome flipped with
    probability ``flip`` on every call. The human's population-averaged rating
    (:func:`session_truth`) is then what prediction-powered ratings estimate."""
    import pandas as pd

    frame = session_frame(spec, seed)
    rng = np.random.default_rng([seed, 1])
    outcome = frame["verdict"].to_numpy()
    labelled = rng.random(outcome.size) < share
    frame["human"] = pd.array(np.where(labelled, outcome, 0), dtype="Int8")
    frame.loc[~labelled, "human"] = pd.NA
    frame["verdict"] = np.where(rng.random(outcome.size) < flip, -outcome, outcome)
    return frame
