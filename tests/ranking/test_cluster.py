"""Intervals clustered by a unit column (session, voter, run) and inverse pair-frequency weighting.

Independent numbers: a hand-worked clustered sandwich on two models, a brute-force weighted
likelihood (scipy's optimiser on the raw battles) for the weighting, and a simulation with
session-level correlation (known truth) for coverage.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import optimize

from evalcore import Dataset
from evalcore.counts import VerdictCounts
from evalcore.errors import UsageError
from evalcore.ranking.bradley_terry import ELO_CENTRE, ELO_SCALE
from evalcore.ranking.leaderboard import leaderboard
from evalcore.ranking.units import inverse_pair_weights
from evalcore.simulate.sessions import SessionSpec, session_frame, session_truth, simulate_sessions
from evalcore.store.store import VerdictStore

# Two models, eight battles in four sessions; 1 = a won, 0 = b won (a always in slot A).
HAND = {"s1": [1, 1, 1], "s2": [1, 0], "s3": [0, 0], "s4": [1]}


def _hand_frame() -> pd.DataFrame:
    rows = []
    k = 0
    for session, outcomes in HAND.items():
        for y in outcomes:
            rows.append((f"q{k}", "a", "b", 1 if y else -1, session))
            k += 1
    return pd.DataFrame(rows, columns=["instruction_id", "model_a", "model_b", "verdict", "session"])


def test_clustered_sandwich_matches_the_hand_worked_case():
    # By hand: p = 5/8, d = logit(p) = θa − θb. Per session the score Σ(y − p): 9/8, −2/8, −10/8,
    # 3/8; meat Σg² · C/(C − 1) = (194/64)·(4/3); information N·p(1 − p) = 15/8.
    # Var(d) = meat / information² = 776/675; θa = d/2 (centred), so Var(θa) = 776/2700.
    store = VerdictStore.from_frame(_hand_frame())
    assert store.unit_columns() == ("session",)
    counts = store.counts(cluster="session")
    assert counts.n_units == 4 and counts.unit_column == "session"
    board = leaderboard(counts, rounds=0, interval="sandwich")
    assert board.covariance[0, 0] / ELO_SCALE**2 == pytest.approx(776 / 2700, rel=1e-9)
    # over instructions (each battle its own cluster): Σ(y − p)² = 5·(3/8)² + 3·(5/8)² = 15/8,
    # times 8/7; Var(d) = (15/8)(8/7) / (15/8)² = 64/105
    plain = leaderboard(store.counts(), rounds=0, interval="sandwich")
    assert plain.covariance[0, 0] / ELO_SCALE**2 == pytest.approx(64 / 105 / 4, rel=1e-9)
    assert board.cluster == "session" and board.n_units == 4
    ratio = math.sqrt((776 / 2700) / (64 / 105 / 4))
    assert board.cluster_widening == pytest.approx(ratio, rel=1e-9)
    assert any("Clustered by session" in n for n in board.notes)  # 1.37 times: said in words


def test_a_call_without_a_unit_is_its_own_instructions_unit():
    frame = _hand_frame()
    frame.loc[7, "session"] = None
    counts = VerdictStore.from_frame(frame).counts(cluster="session")
    assert counts.n_units == 4  # s1, s2, s3 and the call of q7 alone
    assert "instruction q7" in counts.units


def test_cluster_is_refused_in_words_when_the_column_is_absent():
    store = VerdictStore.from_frame(_hand_frame().drop(columns=["session"]))
    assert store.unit_columns() == ()
    with pytest.raises(UsageError, match="no session, voter or run column"):
        store.counts(cluster="session")


def test_unit_cells_keep_pooled_views_and_resample_by_unit():
    counts = simulate_sessions(SessionSpec(sessions=30), seed=3)
    plain = counts.over_instructions()
    np.testing.assert_array_equal(counts.pooled(), plain.pooled())
    assert counts.by_unit().n_instructions == 30
    assert counts.by_unit().calls == counts.calls
    sub = counts.subset(models=[0, 1, 2])
    assert sub.unit is not None and sub.unit_column == "session"
    np.testing.assert_array_equal(counts.dense(), plain.dense())


def test_dataset_leaderboard_clusters_by_session():
    ds = Dataset(VerdictStore.from_frame(session_frame(SessionSpec(sessions=40), seed=1)))
    assert ds.unit_columns == ("session",)
    board = ds.leaderboard(cluster="session", rounds=50, interval="bootstrap")
    assert board.cluster == "session" and board.n_units == 40
    assert "sessions" in board.interval_description
    plain = ds.leaderboard(rounds=50, interval="bootstrap")
    assert plain.cluster == "instruction" and math.isnan(plain.cluster_widening)
    np.testing.assert_allclose(board.ratings, plain.ratings)


def _brute_weighted_fit(a, b, y, w, m):
    """Maximise Σ w·[y log σ(θa − θb) + (1 − y) log σ(θb − θa)] with θ0 = 0 by BFGS."""

    def nll(free):
        th = np.r_[0.0, free]
        d = th[a] - th[b]
        return -np.sum(w * (y * -np.logaddexp(0, -d) + (1 - y) * -np.logaddexp(0, d)))

    res = optimize.minimize(nll, np.zeros(m - 1), method="BFGS", options={"gtol": 1e-10})
    th = np.r_[0.0, res.x]
    return th - th.mean()


def test_inverse_pair_weighting_matches_a_brute_force_weighted_likelihood():
    rng = np.random.default_rng(7)
    theta = np.array([0.5, 0.0, -0.3, 0.2])
    m = theta.size
    # an unbalanced arena: pair (0, 1) judged 20 times as often as the others
    pairs = [(0, 1)] * 400 + [(i, j) for i in range(m) for j in range(i + 1, m) if (i, j) != (0, 1)] * 20
    a = np.array([p[0] for p in pairs])
    b = np.array([p[1] for p in pairs])
    y = (rng.random(a.size) < 1 / (1 + np.exp(-(theta[a] - theta[b])))).astype(float)
    n = np.zeros((a.size, 5), dtype=np.int64)
    n[np.arange(a.size), np.where(y > 0, 3, 1)] = 1
    counts = VerdictCounts.from_cells(
        models=("m0", "m1", "m2", "m3"),
        instructions=[f"q{i}" for i in range(a.size)],
        judge=None,
        inst=np.arange(a.size),
        a=a,
        b=b,
        n=n,
    )
    battles = np.zeros((m, m))
    np.add.at(battles, (a, b), 1)
    battles += battles.T
    w = inverse_pair_weights(battles)
    # by hand: pairs meet 400 or 20 times, mean (400 + 5·20)/6 = 250/3
    assert w[0, 1] == pytest.approx(250 / 3 / 400) and w[2, 3] == pytest.approx(250 / 3 / 20)
    expected = _brute_weighted_fit(a, b, y, w[a, b], m)
    board = leaderboard(counts, rounds=0, weighting="inverse-pair")
    np.testing.assert_allclose(board.ratings, ELO_CENTRE + ELO_SCALE * expected, atol=1e-4)
    unweighted = _brute_weighted_fit(a, b, y, np.ones(a.size), m)
    shift = dict(zip(board.columns["model"], board.columns["weighting_shift"], strict=True))
    for k, name in enumerate(counts.models):
        assert shift[name] == pytest.approx(ELO_SCALE * (expected[k] - unweighted[k]), abs=1e-4)
    assert board.as_dict()["weighting"] == "inverse-pair"
    with pytest.raises(UsageError, match="weighting"):
        leaderboard(counts, rounds=0, weighting="by-pair")


def _coverage(unit: str, method: str, tables: int, rounds: int) -> float:
    spec = SessionSpec()
    truth = ELO_CENTRE + ELO_SCALE * session_truth(spec)
    hits = []
    for t in range(tables):
        counts = simulate_sessions(spec, seed=t)
        c = counts if unit == "session" else counts.over_instructions()
        board = leaderboard(c, rounds=rounds, seed=t, interval=method)
        order = [board.models.index(x) for x in board.columns["model"]]
        hits += (
            (board.columns["ci_low"] <= truth[order]) & (truth[order] <= board.columns["ci_high"])
        ).tolist()
    return float(np.mean(hits))


@pytest.mark.slow
def test_session_clustered_intervals_cover_and_instruction_ones_undercover():
    # 200 tables of 150 sessions × 6 battles, a per-session lean of sd 1.5 (benchmarks/
    # bench_cluster_coverage.py prints the same figures): measured 95.6% (sandwich by session),
    # 80.8% (by instruction); bootstrap 94.5% and 79.2% at 500 rounds.
    by_session = _coverage("session", "sandwich", 200, 0)
    by_instruction = _coverage("instruction", "sandwich", 200, 0)
    assert 0.93 <= by_session <= 0.975
    assert by_instruction <= 0.87
    boot_session = _coverage("session", "bootstrap", 200, 200)
    assert 0.92 <= boot_session <= 0.975


def _labelled_sessions(seed: int = 5) -> pd.DataFrame:
    frame = session_frame(SessionSpec(sessions=60), seed=seed)
    rng = np.random.default_rng(seed)
    # humans agree with the judge on 85% of the labelled calls; 40% of calls are labelled
    human = np.where(rng.random(len(frame)) < 0.85, frame["verdict"], -frame["verdict"])
    frame["human"] = pd.array(np.where(rng.random(len(frame)) < 0.4, human, 0), dtype="Int8")
    frame.loc[frame["human"] == 0, "human"] = pd.NA
    return frame


def test_ppi_clustered_by_session_uses_the_session_sandwich():
    from evalcore.calibration import ppi_ratings

    frame = _labelled_sessions()
    store = VerdictStore.from_frame(frame)
    by_session = ppi_ratings(store, cluster="session")
    plain = ppi_ratings(store)
    assert by_session.cluster == "session" and by_session.n_units == 60
    assert plain.cluster == "instruction" and plain.n_units == plain.n_instructions == len(frame)
    assert by_session.n_instructions == len(frame)
    assert "clustered by session" in by_session.as_dict()["method"]
    # the judge-only interval is the leaderboard's session-clustered sandwich (checked by hand above)
    board = leaderboard(store.counts(cluster="session"), rounds=0, interval="sandwich")
    for k, name in enumerate(by_session.models):
        half = (by_session.judge_only[k].high - by_session.judge_only[k].low) / 2
        j = board.models.index(name)
        assert half == pytest.approx(1.959963984540054 * math.sqrt(board.covariance[j, j]), rel=1e-6)
    # correlated sessions: clustered intervals are wider than the ones over instructions
    assert np.median([e.width for e in by_session.ppi]) > np.median([e.width for e in plain.ppi])


def test_ppi_with_one_instruction_per_unit_is_the_instruction_sandwich():
    from evalcore.calibration import ppi_ratings

    frame = _labelled_sessions().assign(session=lambda f: "u" + f["instruction_id"])
    store = VerdictStore.from_frame(frame)
    a, b = ppi_ratings(store, cluster="session", lam=0.5), ppi_ratings(store, lam=0.5)
    np.testing.assert_allclose(a.covariance, b.covariance, rtol=1e-9, atol=1e-9)


@pytest.mark.slow
def test_prediction_powered_intervals_clustered_by_session_cover():
    # 200 tables as above, the human's outcome on 40% of calls and a judge flipping 15% of them:
    # measured 94.6% by session, 85.9% by instruction (benchmarks/bench_cluster_coverage.py).
    from evalcore.calibration import ppi_ratings
    from evalcore.simulate.sessions import labelled_session_frame

    spec = SessionSpec()
    truth = ELO_CENTRE + ELO_SCALE * session_truth(spec)
    hits: dict[str, list[bool]] = {"session": [], "instruction": []}
    for t in range(200):
        store = VerdictStore.from_frame(labelled_session_frame(spec, seed=t))
        for unit, found in hits.items():
            r = ppi_ratings(store, cluster=None if unit == "instruction" else unit)
            found += [e.low <= truth[int(m[1:])] <= e.high for m, e in zip(r.models, r.ppi, strict=True)]
        store.close()
    assert 0.93 <= np.mean(hits["session"]) <= 0.975
    assert np.mean(hits["instruction"]) <= 0.89
