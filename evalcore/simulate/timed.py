"""A simulator of verdict tables judged over time, with a planted drift if asked, and judging
times for a table that has none (:func:`judging_times`).

Every (instruction, pair of models) is judged once, in a random slot order, at a time drawn
uniformly over ``days`` from ``start``; a share of these items (``repeat_share``) is judged again
later at an independent uniform time, on the same two answers. With ``u`` the fraction of the
period elapsed at the call, the judge sees the margin of slot A over slot B

    y = d_i·(s_a + g_a·u_answer − s_b − g_b·u_answer) + (e_ia − e_ib) + slot_bias + slot_drift·u + N(0, noise²)

(``u_answer`` is the time the answers were first judged: a repeated item keeps its answers) and
cuts it into the 5-level scale with a tie band of width ``tie_width + tie_drift·u``. A model in
``gains`` improves linearly by its gain over the period; ``slot_drift`` and ``tie_drift`` plant a
judge whose slot preference or tie habit shifts. With all three at zero the repeated calls of an
item are exchangeable in time, which is the null hypothesis of the drift test
(:func:`evalcore.ranking.judge_drift.judge_drift`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
import pandas as pd

from evalcore.simulate.tables import DEMO_MODEL_NAMES


@dataclass(frozen=True)
class TimedSpec:
    """What to simulate (see the module's docstring for the model)."""

    n_models: int = 6
    n_instructions: int = 200
    days: float = 90.0
    start: str = "2024-03-01"
    repeat_share: float = 0.3
    strength_sd: float = 0.6
    discrimination_sd: float = 0.3
    response_noise: float = 0.6
    #: model name → the strength it gains over the whole period (latent units)
    gains: Mapping[str, float] = field(default_factory=dict)
    slot_bias: float = 0.0
    slot_drift: float = 0.0
    tie_width: float = 0.5
    tie_drift: float = 0.0
    much: float = 1.5
    noise: float = 0.5
    judge: str = "sim-judge"
    seed: int = 0


@dataclass(frozen=True)
class TimedSimulation:
    """The table (the contract's columns plus ``judged_at`` as ISO text) and the truth."""

    verdicts: pd.DataFrame
    #: model, strength at the start, strength at the end (higher is better)
    strengths: pd.DataFrame


def _cut(y: np.ndarray, half_tie: np.ndarray, much: float) -> np.ndarray:
    out = np.where(y > half_tie, 1, np.where(y < -half_tie, -1, 0))
    return np.where(y > much, 2, np.where(y < -much, -2, out)).astype(np.int8)


def simulate_timed(spec: TimedSpec) -> TimedSimulation:
    """Draw a timed verdict table for ``spec`` (deterministic in ``spec.seed``)."""
    if not 0.0 <= spec.repeat_share <= 1.0:
        raise ValueError(f"repeat_share must lie in [0, 1], got {spec.repeat_share}")
    rng = np.random.default_rng(spec.seed)
    names = tuple(DEMO_MODEL_NAMES[: spec.n_models])
    unknown = set(spec.gains) - set(names)
    if unknown:
        raise ValueError(f"gains names models that are not simulated: {sorted(unknown)}")
    m = len(names)
    strengths = np.sort(rng.normal(0.0, spec.strength_sd, m))[::-1]
    gain = np.array([spec.gains.get(x, 0.0) for x in names])
    disc = np.exp(rng.normal(0.0, spec.discrimination_sd, spec.n_instructions))
    quality = rng.normal(0.0, spec.response_noise, (spec.n_instructions, m))
    pairs = np.array(list(combinations(range(m), 2)), dtype=int)
    inst = np.repeat(np.arange(spec.n_instructions), len(pairs))
    first, second = np.tile(pairs[:, 0], spec.n_instructions), np.tile(pairs[:, 1], spec.n_instructions)
    swap = rng.random(inst.size) < 0.5
    a, b = np.where(swap, second, first), np.where(swap, first, second)
    u_answer = rng.random(inst.size)
    again = np.flatnonzero(rng.random(inst.size) < spec.repeat_share)
    call = np.r_[np.arange(inst.size), again]  # each call's item
    u = np.r_[u_answer, rng.random(again.size)]  # each call's time
    ia, ib, ii = a[call], b[call], inst[call]
    ua = u_answer[call]
    latent = disc[ii] * (strengths[ia] + gain[ia] * ua - strengths[ib] - gain[ib] * ua)
    latent = latent + quality[ii, ia] - quality[ii, ib]
    y = latent + spec.slot_bias + spec.slot_drift * u + rng.normal(0.0, spec.noise, call.size)
    half_tie = np.maximum(spec.tie_width + spec.tie_drift * u, 0.0) / 2.0
    verdict = _cut(y, half_tie, spec.much)
    seconds = np.round(u * spec.days * 86_400.0)
    when = pd.Timestamp(spec.start, tz="UTC") + pd.to_timedelta(seconds, unit="s")
    order = np.argsort(seconds, kind="stable")  # the rows in the order they were judged
    table = pd.DataFrame(
        {
            "row": np.arange(1, call.size + 1),
            "instruction_id": pd.array(
                np.array([f"q{k:04d}" for k in range(spec.n_instructions)])[ii][order], dtype="string"
            ),
            "model_a": pd.array(np.array(names)[ia][order], dtype="string"),
            "model_b": pd.array(np.array(names)[ib][order], dtype="string"),
            "verdict": pd.array(verdict[order], dtype="Int8"),
            "judge": pd.array([spec.judge] * call.size, dtype="string"),
            "judged_at": when[order].strftime("%Y-%m-%dT%H:%M:%SZ"),
        }
    )
    truth = pd.DataFrame({"model": names, "start": strengths, "end": strengths + gain})
    return TimedSimulation(verdicts=table, strengths=truth)


def judging_times(
    frame: pd.DataFrame,
    *,
    start: str = "2025-01-06",
    days: float = 42.0,
    seed: int = 0,
    batch: tuple[str, ...] = ("judge", "instruction_id"),
) -> pd.Series:
    """A plausible ``judged_at`` (ISO text, UTC) for each row of an existing table, which is left
    untouched: each judge works through its instructions in batches (``batch``: one batch per
    judge and instruction), each batch at a time drawn uniformly over ``days`` from ``start``,
    its calls a few seconds apart in row order. Deterministic in ``seed``.

    The times are drawn independently of the verdicts, so the ranking does not change in truth
    between any two time windows: what the windows show is chance alone.

    Examples
    --------
    >>> frame = pd.DataFrame({"judge": ["j", "j", "j"], "instruction_id": ["q1", "q1", "q2"]})
    >>> times = judging_times(frame, seed=1)
    >>> bool(times.iloc[0] < times.iloc[1]), bool(times.str.match(r"2025-0[12]-\\d\\dT").all())
    (True, True)
    """
    if days <= 0:
        raise ValueError(f"days must be positive, got {days}")
    rng = np.random.default_rng(seed)
    group = frame.groupby(list(batch), sort=True, dropna=False).ngroup().to_numpy()
    begins = rng.random(int(group.max()) + 1 if group.size else 0) * days * 86_400.0
    within = frame.groupby(group).cumcount().to_numpy()  # the call's place in its batch
    gaps = rng.integers(2, 30, size=len(frame))  # seconds between two calls of a batch
    seconds = np.round(begins[group] + within * 30.0 + gaps)
    when = pd.Timestamp(start, tz="UTC") + pd.to_timedelta(seconds, unit="s")
    return pd.Series(when.strftime("%Y-%m-%dT%H:%M:%SZ"), index=frame.index, name="judged_at")
