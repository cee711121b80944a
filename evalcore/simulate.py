"""A simulator of verdict tables with a known truth.

Each model has a latent strength s_m; each instruction a discrimination d_i (how much the
strength gap shows on it) and each (instruction, model) response a quality noise e_im. A judge
sees the latent margin of slot A over slot B

    y = d_i·(s_a − s_b) + (e_ia − e_ib) + slot_bias + verbosity·log(len_a / len_b) + N(0, noise²)

and cuts it at thresholds into the 5-level scale (±tie_width/2 for a tie, ±much for "much
better"), or into {−1, 0, +1} when ``levels == 3``. A human label, on a subset of rows, cuts the
same margin without slot bias or verbosity, with its own noise. The table written is the one a
user would upload (``docs/data-contract.md``), so every analysis is tested through the path
real data takes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
import pandas as pd

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
    #: (:func:`evalcore.simulate_text.add_text`; drawn apart, so the verdicts are unchanged).
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
        from evalcore.simulate_text import add_text

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


# -- Chatbot Arena battles ---------------------------------------------------------------------

#: Languages of simulated arena battles, with their shares (roughly the public dump's head).
ARENA_LANGUAGES: tuple[tuple[str, float], ...] = (
    ("English", 0.62),
    ("Chinese", 0.1),
    ("Russian", 0.07),
    ("German", 0.04),
    ("Spanish", 0.04),
    ("French", 0.03),
    ("Japanese", 0.03),
    ("Portuguese", 0.02),
    ("Korean", 0.02),
    ("Italian", 0.03),
)


@dataclass(frozen=True)
class ArenaSimulation:
    """Simulated arena battles (one prompt each) as integer arrays, and the truth behind them.

    ``a``/``b`` index ``models``; ``outcome`` is 1 (model_a won), −1 (model_b won), 0 (tie) or
    2 (tie (bothbad)); ``strengths`` are the latent Bradley–Terry log-strengths.
    """

    models: tuple[str, ...]
    strengths: np.ndarray
    a: np.ndarray
    b: np.ndarray
    outcome: np.ndarray
    language: np.ndarray  # index into ARENA_LANGUAGES
    voter: np.ndarray
    seed: int
    #: Per-answer features (``"length"``, ``"headers"``, ``"bold"``, ``"lists"`` → (N,) arrays of
    #: slot A's and slot B's answer) when style was simulated; empty otherwise.
    features_a: dict = field(default_factory=dict)
    features_b: dict = field(default_factory=dict)
    #: The true effects: feature → logit per unit of (a − b)/(a + b); the slot-A advantage (logit).
    style_effects: dict = field(default_factory=dict)
    slot_bias: float = 0.0

    @property
    def n_battles(self) -> int:
        return int(self.a.size)

    @property
    def tie_share(self) -> float:
        return float(np.mean((self.outcome == 0) | (self.outcome == 2)))


def simulate_arena(
    *,
    n_battles: int = 1_800_000,
    n_models: int = 129,
    tie_share: float = 0.35,
    strength_sd: float = 1.0,
    n_voters: int = 200_000,
    seed: int = 0,
    style_effects: dict[str, float] | None = None,
    slot_bias: float = 0.0,
) -> ArenaSimulation:
    """Battles shaped like the public Chatbot Arena dump: one prompt per battle, uneven pairing.

    Pairs are drawn with model popularity ∝ a log-normal weight (some models fight far more than
    others, and some pairs never meet); the outcome follows Davidson's (1970) tie extension of
    Bradley–Terry, P(tie) = ν√(πₐπ_b) / (πₐ + π_b + ν√(πₐπ_b)), with ν set so that about
    ``tie_share`` of the battles are ties; half the ties are "tie (bothbad)".

    References
    ----------
    Davidson, R. R. (1970). On extending the Bradley–Terry model to accommodate ties in paired
    comparison experiments. *JASA* 65(329), 317–328.
    Chiang, W.-L. et al. (2024). Chatbot Arena: an open platform for evaluating LLMs by human
    preference. *ICML*.
    Li, T., Angelopoulos, A. N. & Chiang, W.-L. (2024). Does style matter? Disentangling style
    and substance in Chatbot Arena. LMSYS blog (the style terms below).

    ``style_effects`` (feature → logit per unit of the normalised difference (a − b)/(a + b),
    features ``length``, ``headers``, ``bold``, ``lists``) draws per-answer lengths and Markdown
    counts (each model has its own verbosity and Markdown habit, unrelated to its strength) and
    adds Σ effect·(a − b)/(a + b) to the log-odds; ``slot_bias`` adds a slot-A advantage. An empty
    dict draws the features without effects. Features come from a separate random stream, so the
    battles of a table without them are unchanged.
    """
    rng = np.random.default_rng(seed)
    models = tuple(f"sim-arena-{k:03d}" for k in range(n_models))
    strengths = np.sort(rng.normal(0.0, strength_sd, n_models))[::-1]
    popularity = np.exp(rng.normal(0.0, 0.8, n_models))
    popularity /= popularity.sum()
    a = rng.choice(n_models, n_battles, p=popularity).astype(np.int32)
    b = rng.choice(n_models - 1, n_battles, p=None).astype(np.int32)
    b = np.where(b >= a, b + 1, b).astype(np.int32)  # never a self-battle
    d = strengths[a] - strengths[b] + slot_bias
    feats_a: dict[str, np.ndarray] = {}
    feats_b: dict[str, np.ndarray] = {}
    if style_effects is not None:
        feats_a, feats_b = _arena_style(np.random.default_rng([seed, 1]), a, b, n_models)
        for name, effect in style_effects.items():
            fa, fb = feats_a[name], feats_b[name]
            total = fa + fb
            d = d + effect * np.divide(fa - fb, total, out=np.zeros_like(total), where=total > 0)
    # Davidson: with πₐ/π_b = e^d, P(tie) = ν / (e^{d/2} + e^{−d/2} + ν); solve ν for the share.
    cosh_term = np.exp(d / 2) + np.exp(-d / 2)
    lo, hi = 0.0, 100.0
    for _ in range(60):
        nu = (lo + hi) / 2
        lo, hi = (nu, hi) if np.mean(nu / (cosh_term + nu)) < tie_share else (lo, nu)
    p_tie = nu / (cosh_term + nu)
    p_a = np.exp(d / 2) / (cosh_term + nu)
    u = rng.random(n_battles)
    outcome = np.where(u < p_a, 1, np.where(u < p_a + p_tie, 0, -1)).astype(np.int8)
    bothbad = (outcome == 0) & (rng.random(n_battles) < 0.5)
    outcome[bothbad] = 2
    shares = np.array([s for _, s in ARENA_LANGUAGES])
    language = rng.choice(len(ARENA_LANGUAGES), n_battles, p=shares / shares.sum()).astype(np.int8)
    voter = rng.integers(0, n_voters, n_battles).astype(np.int32)
    return ArenaSimulation(
        models=models,
        strengths=strengths,
        a=a,
        b=b,
        outcome=outcome,
        language=language,
        voter=voter,
        seed=seed,
        features_a=feats_a,
        features_b=feats_b,
        style_effects=dict(style_effects or {}),
        slot_bias=float(slot_bias),
    )


def _arena_style(rng: np.random.Generator, a: np.ndarray, b: np.ndarray, m: int):
    """Per-answer length (tokens, log-normal around each model's own verbosity) and Markdown
    counts (Poisson around each model's own habit) of both slots' answers."""
    verbosity = rng.normal(np.log(400.0), 0.5, m)
    habit = {
        k: base * np.exp(rng.normal(0.0, 0.7, m))
        for k, base in (("headers", 1.0), ("bold", 2.0), ("lists", 3.0))
    }
    out_a: dict[str, np.ndarray] = {}
    out_b: dict[str, np.ndarray] = {}
    for idx, out in ((a, out_a), (b, out_b)):
        out["length"] = np.round(np.exp(verbosity[idx] + rng.normal(0.0, 0.5, idx.size))) + 1.0
        for k, rate in habit.items():
            out[k] = rng.poisson(rate[idx]).astype(np.float64)
    return out_a, out_b


def arena_verdict_frame(sim: ArenaSimulation) -> pd.DataFrame:
    """``sim`` as a canonical verdict table (one instruction per battle, ties as 0, judge
    "arena"), with ``length_a/_b`` and ``feat_<name>_a/_b`` columns when style was simulated."""
    n = sim.n_battles
    frame = pd.DataFrame(
        {
            "row": np.arange(1, n + 1),
            "instruction_id": pd.array(np.char.add("b", np.arange(n).astype(str)), dtype="string"),
            "model_a": pd.array(np.asarray(sim.models, dtype=object)[sim.a], dtype="string"),
            "model_b": pd.array(np.asarray(sim.models, dtype=object)[sim.b], dtype="string"),
            "verdict": pd.array(np.where(sim.outcome == 2, 0, sim.outcome), dtype="Int8"),
            "judge": pd.array(np.full(n, "arena", dtype=object), dtype="string"),
            "human": pd.array(np.full(n, pd.NA), dtype="Int8"),
            "length_a": sim.features_a.get("length", np.full(n, np.nan)),
            "length_b": sim.features_b.get("length", np.full(n, np.nan)),
            "category": pd.array(np.full(n, pd.NA), dtype="string"),
        }
    )
    for name in sim.features_a:
        if name != "length":
            frame[f"feat_{name}_a"] = sim.features_a[name]
            frame[f"feat_{name}_b"] = sim.features_b[name]
    return frame


def write_arena_dump(sim: ArenaSimulation, json_path, *, parquet_path=None) -> None:
    """Write ``sim`` as Chatbot Arena publishes it (``clean_battle_*.json``: one JSON array of
    battle objects with model_a, model_b, winner, judge, turn, anony, language, tstamp,
    question_id), and optionally as a verdict table in Parquet (instruction_id = question_id).

    DuckDB builds the strings and writes the files, so 1.8 M battles take seconds.
    """
    import duckdb

    con = duckdb.connect()
    try:
        con.register(
            "battles",
            pd.DataFrame(
                {
                    "i": np.arange(sim.n_battles, dtype=np.int64),
                    "a": sim.a,
                    "b": sim.b,
                    "outcome": sim.outcome,
                    "lang": sim.language,
                    "voter": sim.voter,
                }
            ),
        )
        con.register(
            "names", pd.DataFrame({"k": np.arange(len(sim.models), dtype=np.int32), "name": list(sim.models)})
        )
        con.register(
            "langs",
            pd.DataFrame(
                {
                    "k": np.arange(len(ARENA_LANGUAGES), dtype=np.int8),
                    "language": [x for x, _ in ARENA_LANGUAGES],
                }
            ),
        )
        con.execute(f"""CREATE TEMP VIEW dump AS
            SELECT ma.name AS model_a, mb.name AS model_b,
                   CASE outcome WHEN 1 THEN 'model_a' WHEN -1 THEN 'model_b' WHEN 0 THEN 'tie'
                        ELSE 'tie (bothbad)' END AS winner,
                   'arena_user_' || CAST(voter AS VARCHAR) AS judge, 1 AS turn, true AS anony,
                   l.language, 1682351591.0 + i * 5.0 AS tstamp,
                   md5(CAST({int(sim.seed)} AS VARCHAR) || '-' || CAST(i AS VARCHAR)) AS question_id
            FROM battles JOIN names ma ON ma.k = battles.a JOIN names mb ON mb.k = battles.b
                 JOIN langs l ON l.k = battles.lang
            ORDER BY i""")
        path = str(json_path).replace("'", "''")
        con.execute(f"COPY (SELECT * FROM dump) TO '{path}' (FORMAT json, ARRAY true)")
        if parquet_path is not None:
            pq = str(parquet_path).replace("'", "''")
            con.execute(f"""COPY (SELECT question_id AS instruction_id, model_a, model_b,
                    CASE winner WHEN 'model_a' THEN 1 WHEN 'model_b' THEN -1 ELSE 0 END::TINYINT
                        AS verdict, 'Chatbot Arena voters' AS judge, language AS category
                FROM dump) TO '{pq}' (FORMAT parquet)""")
    finally:
        con.close()
