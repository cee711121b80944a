"""The anytime-valid monitor: the boundary against a hand-worked value, arrival order, the
stopping point, the leader, the CLI's exit codes, and the peeking simulation's error rates."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from evalcore import load
from evalcore.cli import main
from evalcore.errors import DesignError, UsageError
from evalcore.power.monitor import (
    arrival_order,
    confidence_sequence,
    elo_difference,
    mixture_radius,
    mixture_rho,
)
from evalcore.power.peeking import simulate_peeking
from evalcore.simulate.tables import SimulationSpec, simulate


def test_boundary_against_hand_worked_value():
    # alpha 0.05, tuned for 1,000 verdicts: V = 250, L = 2 ln 20 = 5.99146, rho = 250 / (L +
    # ln(1 + L)) = 250 / 7.93634 = 31.5007. After 100 verdicts: V + rho = 56.5007;
    # ln(56.5007 / (31.5007 * 0.0025)) = ln(717.45) = 6.57570; sqrt(56.5007 * 6.57570) / 100.
    assert mixture_rho(1000, alpha=0.05) == pytest.approx(31.5007, abs=1e-3)
    assert float(mixture_radius(100, alpha=0.05, rho=31.5007)) == pytest.approx(0.192753, abs=1e-5)
    # the sequence: the running intersection, so a bound never loosens
    mean, lower, upper = confidence_sequence(np.tile([1.0, 0.0], 50), alpha=0.05)
    assert np.all(np.diff(lower) >= 0) and np.all(np.diff(upper) <= 0)
    assert mean[-1] == 0.5 and lower[-1] < 0.5 < upper[-1]
    assert elo_difference(0.75) == pytest.approx(400 * np.log10(3))


def test_arrival_order_reads_numbers_dates_and_missing_times():
    rows = np.array([1, 2, 3, 4])
    order, by, notes = arrival_order(rows, pd.Series(["30", "10", None, "20"]))
    assert (
        order.tolist() == [1, 3, 0, 2]
        and by == "judged_at"
        and "1 verdict has no judging time; it is taken" in notes[0]
    )
    order, _, _ = arrival_order(
        rows, pd.Series(["2024-05-02", "2024-05-01T10:00:00Z", "2024-04-30", "2024-05-03"])
    )
    assert order.tolist() == [2, 1, 0, 3]
    assert arrival_order(rows, None)[1] == "row order"


@pytest.fixture(scope="module")
def timed(tmp_path_factory):
    sim = simulate(SimulationSpec(n_models=4, n_instructions=200, strength_sd=1.0, seed=5))
    frame = sim.verdicts.drop(columns=["row"])
    # judged in a shuffled order; the file's rows are not that order
    frame["judged_at"] = np.random.default_rng(1).permutation(len(frame)) + 1_700_000_000
    path = tmp_path_factory.mktemp("monitor") / "timed.csv"
    frame.to_csv(path, index=False)
    return path, frame


def test_pair_stops_where_the_sequence_first_excludes_even(timed):
    path, frame = timed
    ds = load(path)
    a, b = ds.models[0], ds.models[-1]
    result = ds.monitor(model_a=a, model_b=b)
    # brute force: the pair's verdicts in judged_at order, slot A's score from a's side
    pair = frame[frame.model_a.isin([a, b]) & frame.model_b.isin([a, b])].sort_values("judged_at")
    score = (np.sign(pair.verdict) + 1) / 2
    score = np.where(pair.model_a == a, score, 1 - score)
    mean, lower, upper = confidence_sequence(score, alpha=0.05)
    first = int(np.flatnonzero((lower > 0.5) | (upper < 0.5))[0]) + 1
    assert result.stopped_at == first and result.n_verdicts == len(pair)
    assert result.ordered_by == "judged_at" and result.win_rate == pytest.approx(score.mean())
    assert first in result.curve["verdicts"].tolist()
    # rows in file order would stop elsewhere in general: the order is the judging time's
    assert result.as_dict()["decided"] is True and result.as_dict()["stopped_at"] == first


def test_leader_and_refusals(timed):
    path, _ = timed
    ds = load(path)
    leader = ds.monitor()
    assert leader.mode == "leader" and leader.leader == ds.models[0]  # the strongest simulated
    assert leader.decided and leader.curve["lower"].iloc[-1] > 0.5
    with pytest.raises(UsageError):
        ds.monitor(model_a=ds.models[0])
    with pytest.raises(UsageError):
        ds.monitor(model_a=ds.models[0], model_b="nobody")


def test_pair_that_never_met_is_refused():
    sim = simulate(SimulationSpec(n_models=4, n_instructions=30, design="anchor", seed=2))
    ds = load(sim.verdicts.to_csv(index=False).encode())
    others = [m for m in ds.models if m != ds.summary().anchor]
    with pytest.raises(DesignError, match="never meet"):
        ds.monitor(model_a=others[0], model_b=others[1])


def test_cli_exit_codes(timed, capsys):
    path, _ = timed
    models = sorted(pd.read_csv(path).model_a.unique())
    assert main(["monitor", str(path), "--a", models[0], "--b", models[-1], "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["decided"] and out["stopped_at"] >= 1 and out["rating_lower"] > 0
    # the sizes read in money
    assert (
        main(["monitor", str(path), "--a", models[0], "--b", models[-1], "--price-per-call", "0.5", "--json"])
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["cost_to_decision"] == pytest.approx(0.5 * out["stopped_at"])
    assert out["spent_so_far"] == pytest.approx(0.5 * out["n_verdicts"])
    # six even verdicts between two models: keep judging
    few = path.parent / "few.csv"
    pd.DataFrame(
        {"instruction_id": range(6), "model_a": "x", "model_b": "y", "verdict": ["A>B", "B>A"] * 3}
    ).to_csv(few, index=False)
    assert main(["monitor", str(few), "--a", "x", "--b", "y"]) == 1
    assert "Keep judging" in capsys.readouterr().out
    assert main(["monitor", str(path), "--a", models[0]]) == 2
    assert main(["monitor", str(path), "--a", models[0], "--b", "nobody"]) == 2
    assert "nobody" in capsys.readouterr().err


def test_peeking_inflates_the_fixed_test_but_not_the_sequence():
    s = simulate_peeking(runs=400, looks=100, batch=20, seed=3)
    # a fixed-sample test re-run at 100 looks rejects equal models far more than 5% of the time
    assert s.fixed_error > 0.25
    assert s.sequence_error <= 0.05
    # under a 5-point edge the sequence decides in every run, within twice the fixed-sample size
    assert s.decided_share == 1.0 and s.median_to_decision < 2 * s.fixed_sample_size


def _leader_by_hand(frame: pd.DataFrame, alpha: float = 0.05):
    """The leader's curve written out: per pair its sequence over its own verdicts in arrival
    order, and at each count t every pair's last bound among the first t verdicts."""
    rows = frame.sort_values(["judged_at", "row"], kind="stable").reset_index(drop=True)
    rows = rows[rows["model_a"] != rows["model_b"]].reset_index(drop=True)
    names = sorted(set(rows["model_a"]) | set(rows["model_b"]))
    lo = np.minimum(rows["model_a"].map(names.index), rows["model_b"].map(names.index)).to_numpy()
    hi = np.maximum(rows["model_a"].map(names.index), rows["model_b"].map(names.index)).to_numpy()
    score = (np.sign(rows["verdict"].to_numpy(dtype=float)) + 1.0) / 2.0  # slot A's: 1, 1/2, 0
    score = np.where(rows["model_a"].map(names.index).to_numpy() == lo, score, 1.0 - score)
    pairs = sorted(set(zip(lo.tolist(), hi.tolist(), strict=True)))
    seqs = {}
    for a, b in pairs:
        where = np.flatnonzero((lo == a) & (hi == b))
        _, lower, upper = confidence_sequence(score[where], alpha=alpha / len(pairs))
        seqs[(a, b)] = (where, lower, upper)

    def state(t):
        smallest, rivals = np.ones(len(names)), np.zeros(len(names), dtype=int)
        for (a, b), (where, lower, upper) in seqs.items():
            j = np.searchsorted(where, t - 1, side="right") - 1
            if j >= 0:
                smallest[a] = min(smallest[a], lower[j])
                smallest[b] = min(smallest[b], 1.0 - upper[j])
                rivals[a] += 1
                rivals[b] += 1
            else:
                smallest[a] = smallest[b] = 0.0
        worst = np.where(rivals == len(names) - 1, smallest, 0.0)
        return names[int(np.argmax(worst))], float(worst.max())

    return state


def test_leader_curve_equals_the_bounds_written_out_pair_by_pair(timed, tmp_path):
    """Every point of the leader's curve (and its stopping point) is the state written out pair by
    pair at that count, on a table where one pair never met and some verdicts have no time."""
    _, frame = timed
    names = sorted(set(frame["model_a"]) | set(frame["model_b"]))
    frame = frame[~(frame["model_a"].isin(names[2:4]) & frame["model_b"].isin(names[2:4]))].copy()
    # names whose sorted order is by code point (capitals, small letters, accented)
    rename = dict(zip(names, ["beta", "Zeta", "Émile", "alpha"], strict=True))
    frame["model_a"], frame["model_b"] = frame["model_a"].map(rename), frame["model_b"].map(rename)
    stamps = pd.to_datetime(frame["judged_at"], unit="s", utc=True).dt.strftime("%Y-%m-%dT%H:%M:%S+02:00")
    frame["judged_at"] = stamps.where(np.random.default_rng(2).random(len(frame)) > 0.05)
    path = tmp_path / "timed.csv"
    frame.to_csv(path, index=False)
    result = load(path).monitor()
    stored = frame.reset_index(drop=True).assign(row=lambda f: np.arange(len(f)))
    state = _leader_by_hand(stored.assign(judged_at=pd.to_datetime(stored["judged_at"], utc=True)))
    assert len(result.curve) > 10
    for t, leader, lower in result.curve[["verdicts", "leader", "lower"]].itertuples(index=False):
        assert state(int(t)) == (leader, lower)
    assert any("never met" in note for note in result.notes)
    decided = [t for t in range(1, result.n_verdicts + 1) if state(t)[1] > 0.5]
    assert result.stopped_at == (decided[0] if decided else None)


def test_leader_on_a_sparse_arena_follows_only_the_models_that_met_everyone(tmp_path):
    """On an arena where one model met every other and most pairs never met, the monitor follows
    only the pairs of that model (a table of every pair at every moment would take gigabytes on
    thousands of models): its curve, stopping point and leader are still the state written out
    pair by pair; with the hub's games taken out no model can be called first."""
    rng = np.random.default_rng(11)
    others = [f"m{k}" for k in range(8)]
    rows = [
        ("hub", o, int(rng.choice([2, 1, 0, -1], p=[0.6, 0.2, 0.1, 0.1]))) for o in others for _ in range(120)
    ]
    rows += [
        (a, b, int(rng.choice([-2, 0, 2])))
        for a, b in zip(others, others[1:], strict=False)
        for _ in range(15)
    ]
    order = rng.permutation(len(rows))
    frame = pd.DataFrame(rows, columns=["model_a", "model_b", "verdict"]).iloc[order].reset_index(drop=True)
    frame = frame.assign(instruction_id=[f"q{k}" for k in range(len(frame))], judged_at=np.arange(len(frame)))
    path = tmp_path / "sparse.csv"
    frame.to_csv(path, index=False)
    result = load(path).monitor()
    stored = frame.assign(
        row=np.arange(len(frame)), judged_at=pd.to_datetime(frame["judged_at"], unit="s", utc=True)
    )
    state = _leader_by_hand(stored)
    for t, leader, lower in result.curve[["verdicts", "leader", "lower"]].itertuples(index=False):
        assert state(int(t)) == (leader, lower)
    decided = [t for t in range(1, result.n_verdicts + 1) if state(t)[1] > 0.5]
    assert decided and result.stopped_at == decided[0] and result.curve["leader"].iloc[-1] == "hub"
    path = tmp_path / "no_hub.csv"
    frame[frame["model_a"] != "hub"].to_csv(path, index=False)
    alone = load(path).monitor()
    assert alone.stopped_at is None and (alone.curve["lower"] == 0.0).all()


def test_many_sequences_at_once_are_each_sequence_written_out():
    """The leader's per-pair bounds come from one pass over every pair's scores laid end to end:
    each pair's bounds are exactly those of :func:`confidence_sequence` on its own scores."""
    from evalcore.power.monitor import _pair_sequences

    rng = np.random.default_rng(7)
    sizes = np.array([1, 5, 0, 40, 2, 300, 17])
    scores = rng.choice([0.0, 0.5, 1.0], size=int(sizes.sum()), p=[0.3, 0.2, 0.5])
    lower, upper = _pair_sequences(scores, sizes, alpha=0.05 / 7, tuned_for=50)
    start = 0
    for size in sizes:
        part = slice(start, start + size)
        _, low, up = confidence_sequence(scores[part], alpha=0.05 / 7, tuned_for=50)
        np.testing.assert_array_equal(lower[part], low)
        np.testing.assert_array_equal(upper[part], up)
        start += size


def test_the_leaders_calls_as_numbers_are_the_calls_by_name(timed, tmp_path):
    """The leader reads the head-to-head calls with the models as numbers: the same rows, scores
    and (decoded) names as the calls by name, a row of weight two counted twice."""
    from evalcore.store.store import VerdictStore

    path, frame = timed
    frame = frame.assign(model_a=frame["model_a"].str.replace("sim", "Émile", n=1))  # code-point order
    weighted = tmp_path / "weighted.csv"
    frame.assign(weight=np.where(np.arange(len(frame)) % 7 == 0, 2, 1)).to_csv(weighted, index=False)
    store = VerdictStore()
    store.load_file(weighted)
    names, coded = store.query("head_to_head_codes", judge=None, category=None)
    by_name = store.query("head_to_head_rows", judge=None, category=None, models=None)
    store.close()
    assert list(names) == sorted(set(by_name["model_a"]) | set(by_name["model_b"]))
    assert len(coded) == len(by_name) > len(frame) // 2
    np.testing.assert_array_equal(coded["row"], by_name["row"])
    np.testing.assert_array_equal(coded["score"], by_name["score"])
    np.testing.assert_array_equal(np.asarray(names)[coded["a"]], by_name["model_a"])
    np.testing.assert_array_equal(np.asarray(names)[coded["b"]], by_name["model_b"])
