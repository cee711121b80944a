"""Length preference, length-controlled Bradley–Terry and self-preference."""

from __future__ import annotations

import importlib

import numpy as np
import pandas as pd
import pytest
from scipy.stats import kendalltau

from evalcore.counts import VerdictCounts
from evalcore.judge.length import (
    fit_length_controlled,
    length_controlled_ranking,
    length_preference_curve,
)
from evalcore.judge.self_preference import read_families, self_preference
from evalcore.ranking import fit_bradley_terry, pairwise_wins
from evalcore.simulate.tables import DEMO_MODEL_NAMES, JudgeSpec, SimulationSpec, simulate
from evalcore.stats.intervals import wilson_interval
from evalcore.store.store import VerdictStore
from tests.conftest import ROOT


def _store(frame: pd.DataFrame) -> VerdictStore:
    store = VerdictStore()
    store.load(frame)
    return store


def _frame(rows: list[tuple]) -> pd.DataFrame:
    frame = pd.DataFrame(
        rows, columns=["instruction_id", "model_a", "model_b", "verdict", "length_a", "length_b"]
    )
    frame.insert(0, "row", np.arange(1, len(frame) + 1))
    frame["verdict"] = pd.array(frame["verdict"], dtype="Int8")
    frame["judge"] = "J"
    frame["human"] = pd.array([pd.NA] * len(frame), dtype="Int8")
    frame["category"] = pd.Series([pd.NA] * len(frame), dtype="string")
    return frame


def test_length_curve_hand_worked():
    store = _store(
        _frame(
            [
                ("q1", "x", "y", 1, 100.0, 100.0),  # equal length: left out
                ("q2", "x", "y", 1, 200.0, 100.0),  # longer (A, ×2) wins → 1, bin [1, 1.25)
                ("q3", "x", "y", 1, 100.0, 200.0),  # longer (B, ×2) loses → 0, same bin
                ("q4", "x", "y", 0, 300.0, 100.0),  # ×3: log2 3 = 1.58 → bin [1.5, 1.75), tie → ½
                ("q5", "x", "y", -1, 1000.0, 100.0),  # ×10: the open last bin, longer loses → 0
                ("q6", "x", "y", pd.NA, 1000.0, 100.0),  # no verdict: left out
            ]
        )
    )
    curve = length_preference_curve(store, "J").set_index("bin_low")
    assert curve["calls"].tolist() == [2, 1, 1]
    assert curve.loc[1.0, "longer_score"] == pytest.approx(0.5)
    assert curve.loc[1.0, "ratio_mid"] == pytest.approx(2.0)
    assert curve.loc[1.5, "longer_score"] == pytest.approx(0.5)
    assert curve.loc[1.75, "longer_score"] == pytest.approx(0.0)
    assert np.isinf(curve.loc[1.75, "bin_high"])
    low, high = wilson_interval(np.array([1.0]), np.array([2]))  # the shared Wilson, 1 of 2
    assert curve.loc[1.0, "ci_low"] == pytest.approx(low[0])
    assert curve.loc[1.0, "ci_high"] == pytest.approx(high[0])


def test_wilson_interval_hand_worked():
    # p = 0.5, n = 100, z = 1.96: centre 0.5, half-width 1.96·√(.0025 + .000096)/(1.0384)
    low, high = wilson_interval(np.array([50.0]), np.array([100]))
    z = 1.959963984540054
    half = z * np.sqrt(0.25 / 100 + z * z / 40000) / (1 + z * z / 100)
    assert low[0] == pytest.approx(0.5 - half) and high[0] == pytest.approx(0.5 + half)


def test_length_fit_without_length_is_the_shared_bradley_terry():
    sim = simulate(SimulationSpec(n_models=5, n_instructions=40, seed=4))
    store = _store(sim.verdicts)
    counts = store.counts(judge="sim-judge")
    theta, _ = fit_bradley_terry(pairwise_wins(counts).sum(axis=0))
    frame = store.frame(judge="sim-judge")
    frame = frame[frame["verdict"].notna()]
    idx = pd.Index(counts.models)
    v = frame["verdict"].astype(int).to_numpy()
    y = np.where(v > 0, 1.0, np.where(v == 0, 0.5, 0.0))
    got, gamma, _, ok = fit_length_controlled(
        idx.get_indexer(frame["model_a"]),
        idx.get_indexer(frame["model_b"]),
        y,
        np.zeros(len(frame)),
        np.ones(len(frame)),
        len(idx),
    )
    assert ok and gamma == pytest.approx(0.0, abs=1e-9)
    assert got == pytest.approx(theta, abs=1e-6)


NAMES = DEMO_MODEL_NAMES[:8]
#: the weaker the model, the longer its answers (×0.61 for the strongest … ×1.65 for the weakest)
VERBOSE_WEAK = {n: float(np.exp(0.5 * (i - 3.5) / 3.5)) for i, n in enumerate(NAMES)}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_length_control_removes_a_verbosity_bias(seed):
    spec = SimulationSpec(
        n_models=8,
        n_instructions=150,
        model_names=NAMES,
        seed=seed,
        judges=(JudgeSpec("verbose", verbosity=1.0),),
        length_factor=VERBOSE_WEAK,
    )
    sim = simulate(spec)
    lc = length_controlled_ranking(_store(sim.verdicts), "verbose")
    table = lc.table.set_index("model").loc[list(NAMES)]
    truth = sim.strengths.set_index("model").loc[list(NAMES), "strength"]
    tau_plain = kendalltau(truth, table["rating"])[0]
    tau_lc = kendalltau(truth, table["rating_lc"])[0]
    assert tau_lc > tau_plain
    assert tau_lc >= 0.9
    assert lc.gamma.low > 0.5  # a strong, clearly detected length effect
    assert lc.rank_changes > 0
    assert (table["rank"] - table["rank_lc"] == table["rank_change"]).all()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_length_control_finds_nothing_without_verbosity(seed):
    spec = SimulationSpec(
        n_models=8,
        n_instructions=150,
        model_names=NAMES,
        seed=seed,
        judges=(JudgeSpec("plain", verbosity=0.0),),
        length_factor=VERBOSE_WEAK,
    )
    lc = length_controlled_ranking(_store(simulate(spec).verdicts), "plain")
    assert lc.gamma.low <= 0.0 <= lc.gamma.high


def test_length_control_needs_lengths():
    frame = _frame([("q1", "x", "y", 1, np.nan, np.nan)])
    with pytest.raises(ValueError, match="length"):
        length_controlled_ranking(_store(frame), "J")


# -- self-preference ----------------------------------------------------------------------------


def test_read_families():
    text = "model,family\nm1, fam-a\n\n# a comment\nm2,fam-b\n"
    assert read_families(text) == {"m1": "fam-a", "m2": "fam-b"}
    with pytest.raises(ValueError, match="line 2"):
        read_families("model,family\nonly-one-field\n")


FAMILY = {n: ("A" if i % 2 == 0 else "B") for i, n in enumerate(NAMES)}


def _family_run(self_pref: float, n_instructions: int, seed: int):
    judges = (
        JudgeSpec("self", family="A", self_preference=self_pref, noise=0.5),
        JudgeSpec("ref1", noise=0.4),
        JudgeSpec("ref2", noise=0.6, tie_width=1.0),
    )
    spec = SimulationSpec(
        n_models=8,
        n_instructions=n_instructions,
        judges=judges,
        families=FAMILY,
        model_names=NAMES,
        seed=seed,
    )
    sim = simulate(spec)
    store = _store(sim.verdicts)
    table = self_preference(store, {**FAMILY, "self": "A"}, rounds=300, seed=0)
    return sim, store, table.set_index("judge").loc["self"]


def test_self_preference_recovered():
    # truth in logit units from a large table with the same strengths (same seed)
    sim, store, big = _family_run(0.3, 1500, seed=2)
    _, _, moderate = _family_run(0.3, 150, seed=2)
    assert moderate["delta_low"] <= big["delta"] <= moderate["delta_high"]
    assert moderate["delta_low"] > 0
    # on the simulator's latent scale: δ divided by the judge's logit per unit of true strength
    counts = store.counts(judge="self")
    theta, _ = fit_bradley_terry(pairwise_wins(counts).sum(axis=0))
    strength = sim.strengths.set_index("model").loc[list(counts.models), "strength"].to_numpy()
    own = np.array([FAMILY[m] == "A" for m in counts.models], dtype=float)
    slope = np.linalg.lstsq(np.c_[np.ones_like(strength), strength, own], theta, rcond=None)[0][1]
    assert big["delta"] / slope == pytest.approx(0.3, abs=0.03)
    assert big["reference"] == "ref1, ref2"


def test_no_self_preference_covers_zero():
    _, _, row = _family_run(0.0, 150, seed=3)
    assert row["delta_low"] <= 0.0 <= row["delta_high"]


def test_demo_first_slot_judge_prefers_its_family(demo_store):
    families = read_families((ROOT / "data" / "demo_families.csv").read_text())
    table = self_preference(demo_store, families, rounds=200).set_index("judge")
    first = table.loc["sim-judge-first-slot"]  # self_preference = 0.3 for sim-broadleaf
    assert first["delta_low"] > 0 and first["delta_elo"] > 30
    steady = table.loc["sim-judge-steady"]  # self_preference = 0
    assert steady["delta_low"] <= 0.0 <= steady["delta_high"]
    assert np.isnan(table.loc["sim-judge-tie-happy", "delta"])
    assert "no family" in table.loc["sim-judge-tie-happy", "note"]


def test_self_preference_needs_two_judges():
    sim = simulate(SimulationSpec(n_models=4, n_instructions=10, seed=1))
    with pytest.raises(ValueError, match="only one judge"):
        self_preference(_store(sim.verdicts), {"sim-judge": "x"})


def test_self_preference_point_equals_the_dense_computation(monkeypatch):
    # the old way, written out: per judge a Bradley–Terry fit on its dense per-instruction wins,
    # then θ_self = α + β·mean(θ_refs, centred) + δ·own; the sparse path must give the same δ
    sim = simulate(
        SimulationSpec(
            n_models=8,
            n_instructions=40,
            families=FAMILY,
            model_names=NAMES,
            seed=6,
            judges=(
                JudgeSpec("self", family="A", self_preference=0.4),
                JudgeSpec("ref1"),
                JudgeSpec("ref2", noise=0.7),
            ),
        )
    )
    store = _store(sim.verdicts)
    thetas = {}
    for j in ("self", "ref1", "ref2"):
        counts = store.counts(judge=j)
        thetas[j] = fit_bradley_terry(pairwise_wins(counts).sum(axis=0), prior_games=0.01)[0]
    models = store.counts(judge="self").models
    consensus = np.mean([thetas[j] - thetas[j].mean() for j in ("ref1", "ref2")], axis=0)
    own = np.array([FAMILY[m] == "A" for m in models], dtype=float)
    coef = np.linalg.lstsq(np.c_[np.ones(len(models)), consensus, own], thetas["self"], rcond=None)[0]

    def refuse(self, *args, **kwargs):
        raise AssertionError("a dense tensor was built")

    monkeypatch.setattr(VerdictCounts, "dense", refuse)
    row = self_preference(store, {**FAMILY, "self": "A"}, rounds=50).set_index("judge").loc["self"]
    assert row["delta"] == pytest.approx(coef[2], rel=1e-6)
    assert row["scale"] == pytest.approx(coef[1], rel=1e-6)


def test_cluster_robust_error_equals_the_dense_sandwich():
    rng = np.random.default_rng(1)
    k, m = 400, 5
    a = rng.integers(0, m, k)
    b = (a + rng.integers(1, m, k)) % m
    z = rng.normal(0.0, 1.0, k)
    y = (rng.random(k) < 1 / (1 + np.exp(-(0.5 * z)))).astype(float)
    n = np.ones(k)
    cluster = rng.integers(0, 60, k)
    theta, gamma, se, ok = fit_length_controlled(a, b, y, z, n, m, cluster=cluster)
    assert ok
    # dense sandwich: scores per cluster (clusters × parameters), bread from the information
    p = np.r_[theta, gamma]
    eta = p[a] - p[b] + gamma * z
    r = n * (1 / (1 + np.exp(-eta)) - y)
    g = np.zeros((60, m + 1))
    np.add.at(g, (cluster, a), r)
    np.add.at(g, (cluster, b), -r)
    np.add.at(g, (cluster, np.full(k, m)), r * z)
    w = n / (1 + np.exp(-eta)) * (1 - 1 / (1 + np.exp(-eta)))
    x = np.zeros((k, m + 1))
    x[np.arange(k), a] += 1
    x[np.arange(k), b] -= 1
    x[:, m] = z
    info = x.T @ (w[:, None] * x)
    ones = np.r_[np.ones(m), 0.0]
    bread = np.linalg.inv(info + np.outer(ones, ones) + 1e-9 * np.eye(m + 1))
    cov = bread @ (g.T @ g) @ bread * (60 / 59)
    assert se == pytest.approx(np.sqrt(cov[m, m]), rel=1e-6)


@pytest.mark.parametrize("undefeated", [False, True])
def test_length_fit_started_from_the_plain_fit_reaches_the_same_optimum(undefeated):
    # The sheet starts the length-controlled fit from the plain Bradley–Terry strengths: the same
    # maximum as from zero (ratings, length term and its cluster-robust error to 1e-9), with and
    # without the weak prior an undefeated model brings in.
    sim = simulate(
        SimulationSpec(
            n_models=6,
            n_instructions=50,
            seed=8,
            model_names=NAMES[:6],
            length_factor=VERBOSE_WEAK,
            judges=(JudgeSpec("j", verbosity=1.0),),
        )
    )
    frame = sim.verdicts[sim.verdicts["verdict"].notna()].copy()
    if undefeated:
        top = NAMES[0]
        frame.loc[frame["model_a"] == top, "verdict"] = 2
        frame.loc[frame["model_b"] == top, "verdict"] = -2
    idx = pd.Index(sorted(set(frame["model_a"]) | set(frame["model_b"])))
    a, b = idx.get_indexer(frame["model_a"]), idx.get_indexer(frame["model_b"])
    v = frame["verdict"].astype(int).to_numpy()
    y = np.where(v > 0, 1.0, np.where(v == 0, 0.5, 0.0))
    z = np.log2(frame["length_a"].to_numpy(float) / frame["length_b"].to_numpy(float))
    z = (z - z.mean()) / z.std()
    n = np.ones(len(frame))
    cluster = pd.factorize(frame["instruction_id"])[0]
    prior = 1.0 if undefeated else 0.0
    wins = np.zeros((len(idx), len(idx)))
    np.add.at(wins, (a, b), y)
    np.add.at(wins, (b, a), 1.0 - y)
    plain, _ = fit_bradley_terry(wins, prior_games=prior)
    cold = fit_length_controlled(a, b, y, z, n, len(idx), prior_games=prior, cluster=cluster)
    warm = fit_length_controlled(a, b, y, z, n, len(idx), prior_games=prior, cluster=cluster, theta0=plain)
    assert cold[3] and warm[3]
    np.testing.assert_allclose(warm[0], cold[0], atol=1e-9, rtol=0)
    assert warm[1] == pytest.approx(cold[1], abs=1e-9)
    assert warm[2] == pytest.approx(cold[2], abs=1e-9)


def test_self_preference_above_its_limit_is_refused_in_words_and_the_sheets_say_why(monkeypatch, demo_store):
    """Every judge's fit works on full model-by-model tables (5,000 models took 21 s and 3.4 GB):
    above :data:`MAX_MODELS` the table is refused with the limit, the selection's size and what to
    do, and every judge's sheet is still built, its notes saying why the figure is missing."""
    from evalcore.errors import UsageError
    from evalcore.judge import judge_sheets

    module = importlib.import_module("evalcore.judge.self_preference")  # the name is also a function's

    families = read_families((ROOT / "data" / "demo_families.csv").read_text())
    n = len(demo_store.counts(judge="sim-judge-first-slot").models)
    monkeypatch.setattr(module, "MAX_MODELS", n - 1)
    with pytest.raises(UsageError, match=f"at most {n - 1} models.*has {n}.*a category, or fewer models"):
        self_preference(demo_store, families)
    sheets = judge_sheets(demo_store, rounds=0, families=families, length_control=False)
    first = sheets["sim-judge-first-slot"]
    assert first.self_preference is None
    assert any(f"at most {n - 1} models" in note for note in first.notes)
    monkeypatch.setattr(module, "MAX_MODELS", n)
    assert (
        judge_sheets(demo_store, rounds=0, families=families, length_control=False)[
            "sim-judge-first-slot"
        ].self_preference["delta_elo"]
        > 30
    )
