"""Prediction-powered Bradley–Terry ratings: a hand-worked two-model case, coverage with a known
truth, the useless judge, the real shapes (double-ordered with a shared label, anchor-only, tiny)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import minimize_scalar

from evalcore.calibration.ppi import ppi_ratings
from evalcore.errors import DesignError, UsageError
from evalcore.ranking.bradley_terry import ELO_SCALE
from evalcore.simulate.tables import JudgeSpec, SimulationSpec, simulate, true_human_ratings
from evalcore.stats.intervals import Z95
from tests.frames import on_store

ppi_ratings = on_store(ppi_ratings)

STRENGTHS = (1.2, 0.6, 0.0, -0.5, -1.3)


def _spec(seed: int, *, noise: float = 0.3, **kw) -> SimulationSpec:
    base = dict(
        n_models=5,
        n_instructions=240,
        human_fraction=0.25,
        strengths=STRENGTHS,
        seed=seed,
        judges=(JudgeSpec("j", noise=noise),),
        both_orders=False,
    )
    base.update(kw)
    return SimulationSpec(**base)


# -- a hand-worked two-model case ---------------------------------------------------------------


def _two_model_cells(rng: np.random.Generator, k: int = 200, labelled: int = 60) -> tuple[dict, dict]:
    """One call per instruction between models 0 and 1; the first ``labelled`` carry a label."""
    human = rng.choice([0.0, 0.5, 1.0], size=k, p=[0.3, 0.1, 0.6])
    flip = rng.random(k) < 0.2  # the judge agrees with the human 80% of the time
    judge = np.where(flip, rng.choice([0.0, 0.5, 1.0], size=k), human)
    lab = np.arange(k) < labelled
    cells = {
        "inst": np.arange(k),
        "a": np.zeros(k, dtype=np.int64),
        "b": np.ones(k, dtype=np.int64),
        "calls": np.ones(k),
        "judge_score": judge,
        "labelled": lab.astype(float),
        "human_score": np.where(lab, human, 0.0),
        "judge_score_labelled": np.where(lab, judge, 0.0),
        "models": ("m0", "m1"),
        "labelled_pairs": labelled,
        "labelled_instructions": labelled,
    }
    return cells, {"human": human[lab], "judge_lab": judge[lab], "judge_all": judge, "lab": lab}


def _closed_form(data: dict, lam: float) -> tuple[float, float]:
    """The PPI mean of slot A's score q = λ·ȳ_judge(all) + ȳ_human(lab) − λ·ȳ_judge(lab), and its
    variance from the influence of each instruction (one call each), K/(K − 1) corrected."""
    yj, lab = data["judge_all"], data["lab"]
    n, big_n = lab.sum(), yj.size
    yh = np.zeros(big_n)
    yh[lab] = data["human"]
    q = lam * yj.mean() + data["human"].mean() - lam * data["judge_lab"].mean()
    infl = lam * (yj - q) / big_n + lab * ((yh - q) - lam * (yj - q)) / n
    return q, float((infl**2).sum() * big_n / (big_n - 1))


def test_two_models_match_the_closed_form_ppi_mean_and_a_direct_minimisation():
    cells, data = _two_model_cells(np.random.default_rng(7))
    for lam in (0.0, 0.4, 1.0):
        r = ppi_ratings(cells, lam=lam)
        q, var_q = _closed_form(data, lam)
        d = math.log(q / (1 - q))
        # ratings are centred: model 0 sits at +d/2 on the natural scale
        assert r.ppi[0].value - r.ppi[1].value == pytest.approx(ELO_SCALE * d, rel=1e-7)
        se_d = math.sqrt(var_q) / (q * (1 - q))  # delta method, logit
        assert r.ppi[0].width == pytest.approx(2 * Z95 * ELO_SCALE * se_d / 2, rel=1e-6)

        # the objective itself, minimised numerically over the rating gap
        def loss(g: float, y: np.ndarray) -> float:
            return float(np.mean(-y * g + np.log1p(np.exp(g))))

        def objective(g: float, lam: float = lam) -> float:
            return (
                lam * loss(g, data["judge_all"]) + loss(g, data["human"]) - lam * loss(g, data["judge_lab"])
            )

        best = minimize_scalar(objective, bounds=(-10, 10), method="bounded", options={"xatol": 1e-10})
        assert best.x == pytest.approx(d, abs=1e-6)


def test_two_models_tuned_lambda_is_the_ppi_plus_plus_formula():
    cells, data = _two_model_cells(np.random.default_rng(11))
    r = ppi_ratings(cells)
    # λ̂ at the λ = 1 estimate: minimise the variance of the closed-form mean, clipped to [0, 1]
    q1, _ = _closed_form(data, 1.0)
    yj, lab = data["judge_all"], data["lab"]
    n, big_n = lab.sum(), yj.size
    yh = np.zeros(big_n)
    yh[lab] = data["human"]
    a = lab * (yh - q1) / n
    b = (yj - q1) / big_n - lab * (yj - q1) / n
    assert r.lam == pytest.approx(float(np.clip(-(a @ b) / (b @ b), 0, 1)), abs=1e-9)
    assert r.lam_tuned and 0 < r.lam < 1
    assert r.effective_overall > r.n_labelled_pairs  # an 80%-accurate judge is worth something


# -- simulation with a known truth --------------------------------------------------------------


def test_intervals_cover_the_true_ratings_and_beat_human_only_with_a_good_judge():
    truth = true_human_ratings(_spec(0))
    hits = total = 0
    ratio = []
    for seed in range(20):
        r = ppi_ratings(simulate(_spec(seed)).verdicts)
        for k, est in enumerate(r.ppi):
            hits += est.low <= truth[k] <= est.high
            total += 1
        ratio.append(np.mean([p.width / h.width for p, h in zip(r.ppi, r.human, strict=True)]))
        assert not r.exceeds_ceiling or r.notes
    assert hits / total >= 0.87  # nominal 95%; 100 intervals from 20 tables
    assert np.mean(ratio) < 0.85
    assert r.lam > 0.5


def test_a_useless_judge_gets_no_weight_and_the_human_only_interval():
    for seed in range(3):
        r = ppi_ratings(simulate(_spec(seed, noise=200.0)).verdicts)
        assert r.lam < 0.15
        for p, h in zip(r.ppi, r.human, strict=True):
            assert p.width == pytest.approx(h.width, rel=0.05)
            assert p.value == pytest.approx(h.value, abs=0.25 * h.width)
        assert r.gain == pytest.approx(1.0, abs=0.1)


def test_a_fixed_lambda_of_zero_is_exactly_human_only():
    r = ppi_ratings(simulate(_spec(4)).verdicts, lam=0.0)
    for p, h in zip(r.ppi, r.human, strict=True):
        assert (p.value, p.low, p.high) == pytest.approx((h.value, h.low, h.high), rel=1e-9)
    assert r.effective_overall == pytest.approx(r.n_labelled_pairs)


# -- real shapes --------------------------------------------------------------------------------


def test_double_ordered_with_a_shared_label_is_not_double_counted():
    """Mirroring every call (same verdict, same label, swapped slots) adds no information: the
    ratings, intervals and labelled pairs must not move."""
    single = simulate(_spec(5)).verdicts
    mirror = single.assign(
        model_a=single["model_b"],
        model_b=single["model_a"],
        verdict=-single["verdict"],
        human=-single["human"],
        row=single["row"] + len(single),
    )
    r1 = ppi_ratings(single, lam=0.6)
    r2 = ppi_ratings(pd.concat([single, mirror], ignore_index=True), lam=0.6)
    assert r2.n_labelled_pairs == r1.n_labelled_pairs
    assert r2.n_labelled_calls == 2 * r1.n_labelled_calls
    for e1, e2 in zip(r1.ppi + r1.human, r2.ppi + r2.human, strict=True):
        assert (e2.value, e2.low, e2.high) == pytest.approx((e1.value, e1.low, e1.high), rel=1e-8)


def test_simulated_shared_labels_on_both_orders_run_and_count_pairs():
    spec = _spec(6, both_orders=True, human_shared_orders=True, n_instructions=120)
    table = simulate(spec).verdicts
    lab = table[table["human"].notna()]
    assert len(lab) == 2 * ppi_ratings(table).n_labelled_pairs


def test_anchor_only_design():
    spec = _spec(8, design="anchor", anchor="sim-cedar", anchor_slot="b", n_instructions=300)
    r = ppi_ratings(simulate(spec).verdicts)
    assert all(e.has_interval for e in r.ppi)
    assert r.ppi[2].width < r.ppi[0].width  # the anchor is in every battle


def test_refusals_in_words():
    tiny = simulate(_spec(9, n_instructions=6, human_fraction=0.5)).verdicts
    with pytest.raises(DesignError, match="labelled pairs"):
        ppi_ratings(tiny)
    table = simulate(_spec(10)).verdicts
    keep = table["model_a"].isin(["sim-alder", "sim-birch"]) & table["model_b"].isin(
        ["sim-alder", "sim-birch"]
    )
    only_top = table.assign(human=table["human"].where(keep))
    with pytest.raises(DesignError, match="do not connect"):
        ppi_ratings(only_top)
    with pytest.raises(UsageError, match="lam"):
        ppi_ratings(table, lam=1.5)
    with pytest.raises(UsageError, match="min_labelled"):
        ppi_ratings(table, min_labelled=0)


def test_results_serialise():
    r = ppi_ratings(simulate(_spec(12)).verdicts)
    d = r.as_dict()
    assert d["n_labelled_pairs"] == r.n_labelled_pairs and len(d["models"]) == 5
    assert "Dorner" in d["ceiling"]
    assert list(r.table().columns[:4]) == ["model", "ppi", "ppi_low", "ppi_high"]
    diff = r.difference("sim-alder", "sim-elm")
    assert diff.low > 0
    assert "PPIRatings(5 models" in repr(r)


@pytest.mark.parametrize("singles", [False, True])
def test_clustered_outer_equals_the_dense_sum(singles):
    from evalcore.ranking.intervals import clustered_outer

    rng = np.random.default_rng(0)
    m, cells, clusters = 6, 2000, 300 if not singles else 1500  # many one-cell clusters
    inst = np.sort(rng.integers(0, clusters, cells))
    a = rng.integers(0, m, cells)
    b = (a + 1 + rng.integers(0, m - 1, cells)) % m
    left, right = rng.normal(size=cells), rng.normal(size=cells)
    w = rng.integers(1, 4, clusters).astype(float)
    g, h = np.zeros((clusters, m)), np.zeros((clusters, m))
    for out, val in ((g, left), (h, right)):
        np.add.at(out, (inst, a), val)
        np.add.at(out, (inst, b), -val)
    got = clustered_outer(inst, a, b, left, right, n_models=m, weights=w, chunk=37)
    assert got == pytest.approx((g * w[:, None]).T @ h, abs=1e-10)
    assert clustered_outer(inst, a, b, left, n_models=m, chunk=50) == pytest.approx(g.T @ g, abs=1e-10)
    assert (np.bincount(np.bincount(inst))[1] > 100) == singles


def test_the_facade_offers_ppi_and_certification(tmp_path):
    import evalcore

    path = tmp_path / "v.csv"
    simulate(_spec(13)).verdicts.drop(columns=["row"]).to_csv(path, index=False)
    ds = evalcore.load(path)
    r = ds.ppi(lam=0.5)
    assert r.lam == 0.5 and len(r.models) == 5
    cert = ds.certify(threshold=0.5)
    assert cert.threshold == 0.5 and cert.wins.n > 0


def test_relabelling_models_moves_the_ratings_with_them():
    table = simulate(_spec(14)).verdicts
    rename = {"sim-alder": "zz-top", "sim-elm": "aa-bottom"}
    renamed = table.assign(model_a=table["model_a"].replace(rename), model_b=table["model_b"].replace(rename))
    r1, r2 = ppi_ratings(table), ppi_ratings(renamed)
    assert r2.lam == pytest.approx(r1.lam, abs=1e-9)
    for k, name in enumerate(r1.models):
        j = r2.models.index(rename.get(name, name))
        assert (r2.ppi[j].value, r2.ppi[j].low) == pytest.approx((r1.ppi[k].value, r1.ppi[k].low), rel=1e-9)
        assert r2.effective[j] == pytest.approx(r1.effective[k], rel=1e-9)


def test_a_frame_is_refused_with_what_to_do():
    # the analyses read a store and never build one (tests/test_layout.py's floor check)
    from evalcore.calibration import calibration_counts
    from evalcore.calibration.ppi import ppi_ratings as bare

    table = simulate(_spec(4)).verdicts
    for analysis in (bare, calibration_counts):
        with pytest.raises(UsageError, match=r"VerdictStore\.from_frame"):
            analysis(table)
