"""A simulator of verdict tables with a known truth.

Each model has a latent strength s_m; each instruction a discrimination d_i (how much the
strength gap shows on it) and each (instruction, model) response a quality noise e_im. A judge
sees the latent margin of slot A over slot B

    y = d_i·(s_a − s_b) + (e_ia − e_ib) + slot_bias + verbosity·log(len_a / len_b) + N(0, noise²)

and cuts it at thresholds into the 5-level scale (±tie_width/2 for a tie, ±much for "much
better"), or into {−1, 0, +1} when ``levels == 3``. A human label, on a subset of rows, cuts the
same margin without slot bias or verbosity, with its own noise. The table written is the one a
user would upload (``docs/data-contract.md``), so every analysis is tested through the path
real data takes. Arena battles (one prompt per battle) come from :mod:`evalcore.simulate.arena`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
import pandas as pd

# The arena simulator lives in its own module; its names stay importable from here.
from evalcore.simulate.arena import (  # noqa: F401
    ARENA_LANGUAGES,
    ArenaSimulation,
    arena_verdict_frame,
    simulate_arena,
    write_arena_dump,
)

#: Names that cannot be mistaken for real models: every demo model is "sim-" plus a tree.
DEMO_MODEL_NAMES: tuple[str, ...] = (
    "sim-alder",
    "sim-birch",
    "sim-cedar",
    "sim-dogwood",
    "sim-elm",
    "sim-fir",
    "sim-ginkgo",
    "sim-hazel",
    "sim-ironwood",
    "sim-juniper",
    "sim-kapok",
    "sim-larch",
    "sim-maple",
    "sim-nutmeg",
    "sim-oak",
    "sim-pine",
    "sim-quince",
    "sim-rowan",
    "sim-spruce",
    "sim-teak",
    "sim-upas",
    "sim-vine",
    "sim-willow",
    "sim-yew",
    "sim-zelkova",
)


@dataclass(frozen=True)
class JudgeSpec:
    """One simulated judge: its biases and how it expresses itself.

    ``slot_bias`` is added to the slot-A margin (positive: prefers the first slot);
    ``tie_width`` is the width of the tie band in margin units (larger: more ties);
    ``much`` is where "much better" starts; ``noise`` the judge's own noise;
    ``verbosity`` the weight on log(len_a / len_b); ``no_verdict_rate`` the share of calls that
    return nothing; ``levels`` 5 or 3; ``family`` the model family (for self-preference);
    ``self_preference`` is added to the margin of models of its own family.
    """

    name: str
    slot_bias: float = 0.0
    tie_width: float = 0.5
    much: float = 1.5
    noise: float = 0.5
    verbosity: float = 0.0
    no_verdict_rate: float = 0.0
    levels: int = 5
    family: str | None = None
    self_preference: float = 0.0


@dataclass(frozen=True)
class SimulationSpec:
    """What to simulate. ``design`` is "all pairs" or "anchor" (every model against ``anchor``)."""

    n_models: int = 8
    n_instructions: int = 100
    judges: tuple[JudgeSpec, ...] = (JudgeSpec("sim-judge"),)
    design: str = "all pairs"
    anchor: str | None = None
    both_orders: bool = True
    strength_sd: float = 1.0
    discrimination_sd: float = 0.3
    response_noise: float = 0.6
    human_fraction: float = 0.0
    human_noise: float = 0.4
    human_tie_width: float = 0.3
    #: With ``both_orders``: one human label per (instruction, pair), repeated (from each slot's
    #: point of view) on both order rows, as labelled tables usually carry it; False: each order
    #: row gets its own independent label.
    human_shared_orders: bool = False
    mean_length: float = 400.0
    length_sd: float = 0.4  # of log length
    categories: tuple[str, ...] = ()
    families: dict[str, str] = field(default_factory=dict)
    #: model → factor on its mean response length (a verbose model > 1); 1 when absent
    length_factor: dict[str, float] = field(default_factory=dict)
    model_names: tuple[str, ...] | None = None
    seed: int = 0
    #: Fixed latent strengths, one per model in name order (default: drawn, sorted descending).
    strengths: tuple[float, ...] | None = None
    #: Share of (instruction, model) responses that are outliers, half a standout answer and
    #: half a broken one (a refusal, a truncation): their quality moves by ±``outlier_size``
    #: whatever the model's strength, so a weak model sometimes beats the strongest one and a
    #: strong one sometimes loses to the weakest. 0: none drawn.
    outlier_rate: float = 0.0
    outlier_size: float = 6.0
    #: "a" or "b": in a single-order anchor design, the anchor always sits in that slot (as in
    #: AlpacaEval, where the reference output has a fixed place); None: a random slot per call.
    anchor_slot: str | None = None
    #: Add short synthetic prompts, answers and judge's reasoning that follow the truth
    #: (:func:`evalcore.simulate.text.add_text`; drawn apart, so the verdicts are unchanged).
    text: bool = False


@dataclass(frozen=True)
class Simulation:
    """The simulated verdict table and the truth behind it."""

    verdicts: pd.DataFrame  # the canonical contract columns
    strengths: pd.DataFrame  # model, strength (the latent truth, higher is better)
    human_ranking: pd.DataFrame  # model, score: a noisy public ranking of the truth


def _cut(y: np.ndarray, tie_width: float, much: float, levels: int) -> np.ndarray:
    half = tie_width / 2.0
    out = np.where(y > half, 1, np.where(y < -half, -1, 0))
    if levels == 5:
        out = np.where(y > much, 2, np.where(y < -much, -2, out))
    return out.astype(np.int8)


def simulate(spec: SimulationSpec) -> Simulation:
    """Draw a verdict table for ``spec`` (deterministic in ``spec.seed``)."""
    rng = np.random.default_rng(spec.seed)
    names = spec.model_names or DEMO_MODEL_NAMES[: spec.n_models]
    if len(names) < spec.n_models:
        names = tuple(names) + tuple(f"sim-model-{k:02d}" for k in range(len(names), spec.n_models))
    names = tuple(names[: spec.n_models])
    m = len(names)
    if spec.strengths is not None:
        if len(spec.strengths) != m:
            raise ValueError(f"strengths has {len(spec.strengths)} values for {m} models")
        strengths = np.asarray(spec.strengths, dtype=float)
    else:
        strengths = np.sort(rng.normal(0.0, spec.strength_sd, m))[::-1]
    disc = np.exp(rng.normal(0.0, spec.discrimination_sd, spec.n_instructions))
    quality_noise = rng.normal(0.0, spec.response_noise, (spec.n_instructions, m))
    if not 0.0 <= spec.outlier_rate <= 1.0:
        raise ValueError(f"outlier_rate must lie in [0, 1], got {spec.outlier_rate}")
    if spec.outlier_rate > 0:  # no random draw otherwise: tables without it are unchanged
        u = rng.random((spec.n_instructions, m))
        sign = np.where(u < spec.outlier_rate / 2, 1.0, np.where(u < spec.outlier_rate, -1.0, 0.0))
        quality_noise = quality_noise + spec.outlier_size * sign
    log_len = rng.normal(np.log(spec.mean_length), spec.length_sd, (spec.n_instructions, m))
    if spec.length_factor:  # no random draw: tables without it are unchanged
        log_len = log_len + np.log([spec.length_factor.get(x, 1.0) for x in names])
    lengths = np.round(np.exp(log_len)).astype(int)
    inst_ids = [f"q{k:04d}" for k in range(spec.n_instructions)]
    category = rng.choice(spec.categories, spec.n_instructions) if spec.categories else None

    if spec.design == "anchor":
        anchor = spec.anchor or names[m // 2]
        if anchor not in names:
            raise ValueError(f"anchor {anchor!r} is not one of the simulated models")
        k = names.index(anchor)
        pair_list = [(j, k) for j in range(m) if j != k]
    else:
        pair_list = list(combinations(range(m), 2))
    pairs = np.array(pair_list, dtype=int)

    # Every (instruction, pair) once; the slot order of a single-order table is random.
    inst = np.repeat(np.arange(spec.n_instructions), len(pairs))
    p_first = np.tile(pairs[:, 0], spec.n_instructions)
    p_second = np.tile(pairs[:, 1], spec.n_instructions)
    if spec.both_orders:
        a = np.concatenate([p_first, p_second])
        b = np.concatenate([p_second, p_first])
        inst = np.concatenate([inst, inst])
    else:
        swap = rng.random(len(inst)) < 0.5
        if spec.design == "anchor" and spec.anchor_slot is not None:  # pairs are (model, anchor)
            if spec.anchor_slot not in ("a", "b"):
                raise ValueError(f"anchor_slot must be 'a', 'b' or None, got {spec.anchor_slot!r}")
            swap = np.full(len(inst), spec.anchor_slot == "a")
        a = np.where(swap, p_second, p_first)
        b = np.where(swap, p_first, p_second)
    latent = disc[inst] * (strengths[a] - strengths[b]) + quality_noise[inst, a] - quality_noise[inst, b]
    log_ratio = np.log(lengths[inst, a] / lengths[inst, b])

    # A human label for the same (instruction, pair) on a subset of instructions.
    labelled_inst = rng.random(spec.n_instructions) < spec.human_fraction
    frames = []
    for judge in spec.judges:
        y = latent + judge.slot_bias + judge.verbosity * log_ratio + rng.normal(0.0, judge.noise, len(inst))
        if judge.family and judge.self_preference:
            fam_a = np.array([spec.families.get(names[x]) == judge.family for x in range(m)])
            y = y + judge.self_preference * (fam_a[a].astype(float) - fam_a[b].astype(float))
        verdict = pd.array(_cut(y, judge.tie_width, judge.much, judge.levels), dtype="Int8")
        missing = rng.random(len(inst)) < judge.no_verdict_rate
        verdict[missing] = pd.NA
        human = pd.array(np.full(len(inst), pd.NA), dtype="Int8")
        if spec.human_fraction > 0:
            h = _cut(latent + rng.normal(0.0, spec.human_noise, len(inst)), spec.human_tie_width, np.inf, 3)
            if spec.both_orders and spec.human_shared_orders:  # rows i and i + half: one pair
                half = len(inst) // 2
                h[half:] = -h[:half]
            rows = labelled_inst[inst]
            human[rows] = h[rows]
        frames.append(
            pd.DataFrame(
                {
                    "instruction_id": np.array(inst_ids)[inst],
                    "model_a": np.array(names)[a],
                    "model_b": np.array(names)[b],
                    "verdict": verdict,
                    "judge": judge.name,
                    "human": human,
                    "length_a": lengths[inst, a].astype(float),
                    "length_b": lengths[inst, b].astype(float),
                    "category": category[inst] if category is not None else pd.NA,
                }
            )
        )
    table = pd.concat(frames, ignore_index=True)
    table.insert(0, "row", np.arange(1, len(table) + 1))
    table["category"] = table["category"].astype("string")
    for col in ("instruction_id", "model_a", "model_b", "judge"):
        table[col] = table[col].astype("string")
    if spec.text:
        from evalcore.simulate.text import add_text

        quality = disc[:, None] * strengths[None, :] + quality_noise  # each answer's own quality
        reps = len(spec.judges)
        table = add_text(
            table, np.tile(quality[inst, a], reps), np.tile(quality[inst, b], reps), seed=spec.seed
        )
    truth = pd.DataFrame({"model": names, "strength": strengths})
    # A public ranking is the truth seen through its own noise: close, not identical.
    public = 1000.0 + 400.0 / np.log(10.0) * (strengths + rng.normal(0.0, 0.15, m))
    human_ranking = pd.DataFrame({"model": names, "score": np.round(public, 1)})
    return Simulation(verdicts=table, strengths=truth, human_ranking=human_ranking)


def true_human_ratings(spec: SimulationSpec, *, nodes: int = 64) -> np.ndarray:
    """The Bradley–Terry ratings (Elo scale, mean 1000) that the humans' labels estimate: the
    fit to each pair's expected human score (win 1, tie ½), with the design's pairs equally
    weighted. Needs fixed ``spec.strengths`` and no outliers. The expectation is exact given the
    instruction's discrimination d (the margin is then normal) and integrated over d by
    Gauss–Hermite quadrature; it is the estimand of a human-only or prediction-powered fit."""
    from scipy.stats import norm

    from evalcore.ranking.bradley_terry import fit_bradley_terry, to_elo

    if spec.strengths is None or spec.outlier_rate:
        raise ValueError("true_human_ratings needs fixed strengths and no outliers")
    s = np.asarray(spec.strengths, dtype=float)
    m = s.size
    x, w = np.polynomial.hermite_e.hermegauss(nodes)
    d = np.exp(spec.discrimination_sd * x)
    w = w / w.sum()
    sd = np.sqrt(2.0 * spec.response_noise**2 + spec.human_noise**2)
    gap = d[None, None, :] * (s[:, None] - s[None, :])[:, :, None]
    half = spec.human_tie_width / 2.0
    score = 0.5 * (1.0 + norm.cdf((gap - half) / sd) - norm.cdf((-gap - half) / sd)) @ w
    names = spec.model_names or DEMO_MODEL_NAMES[:m]
    played = np.ones((m, m)) - np.eye(m)
    if spec.design == "anchor":
        k = list(names).index(spec.anchor or names[m // 2])
        played = np.zeros((m, m))
        played[k, :] = played[:, k] = 1.0
        played[k, k] = 0.0
    theta, _ = fit_bradley_terry(score * played)
    return to_elo(theta)
