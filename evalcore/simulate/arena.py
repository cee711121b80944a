"""A simulator of Chatbot Arena battles with a known truth: one prompt per battle, uneven pairing.

:func:`simulate_arena` draws battles shaped like the public Chatbot Arena dump (many models, each
battle on its own prompt, popular models paired more often, ties and "tie (bothbad)"), optionally
with answer-style features and a slot advantage of known size; :func:`arena_verdict_frame` turns
them into the verdict table of the data contract and :func:`write_arena_dump` into the dump's own
files. The judge-table simulator is :mod:`evalcore.simulate.tables`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

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
    category_effects: np.ndarray | None = None,
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

    ``category_effects`` ((languages, models) log-strengths, the languages of
    :data:`ARENA_LANGUAGES`) adds a per-language shift to each model's strength: a planted
    category × model interaction (e.g. two models swapped in one language). The languages are
    then drawn first, from their own stream, so the battle outcomes can depend on them.
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
    shares = np.array([s for _, s in ARENA_LANGUAGES])
    language_first = None
    if category_effects is not None:
        effects = np.asarray(category_effects, dtype=np.float64)
        if effects.shape != (len(ARENA_LANGUAGES), n_models):
            raise ValueError(
                f"category_effects must be ({len(ARENA_LANGUAGES)}, {n_models}), not {effects.shape}"
            )
        lang_rng = np.random.default_rng([seed, 2])
        language_first = lang_rng.choice(len(ARENA_LANGUAGES), n_battles, p=shares / shares.sum()).astype(
            np.int8
        )
        d = d + effects[language_first, a] - effects[language_first, b]
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
    language = rng.choice(len(ARENA_LANGUAGES), n_battles, p=shares / shares.sum()).astype(np.int8)
    if language_first is not None:
        language = language_first
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


def arena_verdict_frame(sim: ArenaSimulation, *, with_category: bool = False) -> pd.DataFrame:
    """``sim`` as a canonical verdict table (one instruction per battle, ties as 0, judge
    "arena"), with ``length_a/_b`` and ``feat_<name>_a/_b`` columns when style was simulated;
    ``with_category`` fills ``category`` with each battle's language."""
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
            "category": pd.array(
                np.asarray([x for x, _ in ARENA_LANGUAGES], dtype=object)[sim.language]
                if with_category
                else np.full(n, pd.NA),
                dtype="string",
            ),
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
