"""The ranking in time (issue 28, item 3): the leaderboard as of a date equals the leaderboard of
the table cut by hand; ratings per window find a planted improving model; the judge drift test
has its size without drift and its power with a planted drift (simulation with known truth);
a table without judging times, or without repeated items, is answered in words."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from evalcore.cli import main
from evalcore.errors import DesignError
from evalcore.ranking.judge_drift import judge_drift, paired_drift_test
from evalcore.ranking.judging_times import NoTimesError, end_of, parse_times
from evalcore.ranking.leaderboard import leaderboard
from evalcore.ranking.over_time import as_of_leaderboard, rating_windows, window_edges
from evalcore.simulate.timed import TimedSpec, simulate_timed
from evalcore.store.store import VerdictStore
from tests.test_catalogue import _keys, unplaced

#: Simulations behind the size and power figures.
SIMS = 100


def _store(frame: pd.DataFrame) -> VerdictStore:
    return VerdictStore.from_frame(frame)


@pytest.fixture(scope="module")
def improving():
    """sim-fir, the weakest at the start, gains two strength units over the three months."""
    return simulate_timed(TimedSpec(gains={"sim-fir": 2.0}, seed=1))


# -- reading the times ------------------------------------------------------------------------------
def test_times_read_as_dates_or_unix_times():
    iso = parse_times(pd.Series(["2024-03-01", "2024-03-01T12:00:00Z"]))
    assert iso.tolist() == [1709251200.0, 1709251200.0 + 43200]
    assert parse_times(pd.Series(["1709251200", "1709251200000"])).tolist() == [1709251200.0] * 2
    with pytest.raises(NoTimesError, match="not Unix times"):
        parse_times(pd.Series(["1", "2"]))  # a counter is not a time
    with pytest.raises(NoTimesError, match="not a date"):
        parse_times(pd.Series(["2024-03-01", "soon"]))
    assert end_of("2024-03-01") == 1709251200.0 + 86_399  # the whole day counts
    assert end_of("2024-03-01T06:00:00Z") == 1709251200.0 + 6 * 3600


# -- the leaderboard as of a date ------------------------------------------------------------------
def test_as_of_equals_the_leaderboard_of_the_table_cut_by_hand(improving):
    frame = improving.verdicts
    stamps = pd.to_datetime(frame["judged_at"], utc=True)
    cut = frame[stamps <= pd.Timestamp("2024-04-10T23:59:59Z")]
    assert 0 < len(cut) < len(frame)
    by_hand = leaderboard(
        _store(cut.drop(columns=["judged_at"])).counts(judge="sim-judge"), rounds=50, seed=3
    )
    result = as_of_leaderboard(_store(frame), as_of="2024-04-10", judge="sim-judge", rounds=50, seed=3)
    pd.testing.assert_frame_equal(result.board.table, by_hand.table)
    assert result.verdicts_used == len(cut) and result.verdicts_later == len(frame) - len(cut)
    assert result.as_of == "2024-04-10" and result.sentence().startswith("As of 2024-04-10, ")
    # a date before the first verdict is refused in words
    with pytest.raises(DesignError, match="no two models had met"):
        as_of_leaderboard(_store(frame), as_of="2023-12-31", rounds=0)


# -- refusals in words ------------------------------------------------------------------------------
def test_a_table_without_judging_times_is_refused_in_words(improving):
    store = _store(improving.verdicts.drop(columns=["judged_at"]))
    for analysis in (
        lambda: as_of_leaderboard(store, as_of="2024-04-01"),
        lambda: rating_windows(store),
        lambda: judge_drift(store),
    ):
        with pytest.raises(NoTimesError, match="no judging times .* judged_at"):
            analysis()


def test_too_few_verdicts_per_window_is_refused_in_words(improving):
    store = _store(improving.verdicts)
    with pytest.raises(DesignError, match="too few for 12 windows of at least 1,000 verdicts"):
        rating_windows(store, windows=12, min_verdicts=1000)
    # calendar windows over a table judged mostly at the start: the last window is thin
    frame = improving.verdicts.copy()
    frame.loc[frame.index[-5:], "judged_at"] = "2024-12-31T00:00:00Z"
    with pytest.raises(DesignError, match="window 2 of 3 .* has 0 verdicts"):
        rating_windows(_store(frame), split="calendar", rounds=0)


def test_no_repeated_item_leaves_drift_not_identified(improving):
    once = simulate_timed(TimedSpec(repeat_share=0.0, seed=2))
    result = judge_drift(_store(once.verdicts))
    assert not result.identified and result.pairs == 0
    assert result.sentence().startswith("Judge drift is not identified: no item")
    assert result.as_dict()["drift_p"] is None


# -- ratings per window -----------------------------------------------------------------------------
def test_windows_hold_equal_counts_and_find_the_planted_improvement(improving):
    result = rating_windows(_store(improving.verdicts), rounds=100)
    sizes = [w.verdicts for w in result.windows]
    assert sum(sizes) == len(improving.verdicts) and max(sizes) - min(sizes) <= 1
    top = result.moves[0]
    assert top.model == "sim-fir" and top.rank_first == 6 and top.rank_last == 1
    assert top.clear and top.change > 0
    assert result.sentence().startswith("sim-fir moved from #6 to #1 between March 2024 and ")
    bare = rating_windows(_store(improving.verdicts), rounds=0)  # no intervals: no claim either way
    assert "without an interval to say whether chance could explain it" in bare.sentence()
    # a window's ratings are the leaderboard of its own verdicts
    t = np.sort(parse_times(improving.verdicts["judged_at"]))
    edges = window_edges(t, windows=3, split="count")
    stamps = parse_times(improving.verdicts["judged_at"])
    last = improving.verdicts[stamps > edges[-1]]
    board = leaderboard(_store(last.drop(columns=["judged_at"])).counts(), rounds=100, seed=0)
    assert [r.model for r in result.windows[-1].ratings] == board.table["model"].tolist()
    np.testing.assert_allclose([r.rating for r in result.windows[-1].ratings], board.table["rating"])


def test_no_improvement_keeps_the_order_in_words():
    sim = simulate_timed(TimedSpec(n_models=3, strength_sd=3.0, seed=4))  # far apart: no reorder
    result = rating_windows(_store(sim.verdicts), rounds=0)
    assert not result.moved
    assert result.sentence().startswith("The models keep the same order between ")


# -- the drift test: a hand-worked case, size and power ---------------------------------------------
def test_the_sign_flip_p_value_by_hand():
    # three items, each won by slot A late and lost early: every flip but the two all-same-sign
    # ones gives a smaller statistic, so p = 2 / 8
    result = paired_drift_test(np.array([-1, -1, -1]), np.array([1, 1, 1]))
    assert result.p_value == pytest.approx(0.25) and result.permutations == 8
    assert result.slot_shift == pytest.approx(100.0) and result.tie_shift == 0.0
    # no change at all: every flip ties the observed statistic (0)
    assert paired_drift_test(np.array([0, 1]), np.array([0, 1])).p_value == 1.0


def _rejections(**planted) -> float:
    rejected = 0
    for seed in range(SIMS):
        spec = TimedSpec(n_models=4, n_instructions=150, repeat_share=0.5, seed=seed, **planted)
        store = _store(simulate_timed(spec).verdicts)
        rejected += judge_drift(store, permutations=499, seed=seed).detected
        store.close()
    return rejected / SIMS


def test_drift_size_near_five_percent_and_power_against_a_planted_drift():
    """Measured on 100 simulated tables each (4 models, 150 instructions, half the items judged
    again): without drift 7% rejected at the 5% level; with the judge's slot preference rising
    0.6 margin units over the period, 90%; with its tie band widening by 0.8, 73%."""
    size = _rejections()
    power = _rejections(slot_drift=0.6)
    print(f"drift test: size {size:.2f}, power {power:.2f} ({SIMS} simulations each)")
    assert 0.005 <= size <= 0.11  # 5% within binomial noise of 100 draws
    assert power >= 0.75


# -- the command line ----------------------------------------------------------------------------------
def test_the_commands_answer_and_every_json_key_is_placed(improving, tmp_path, capsys):
    path = tmp_path / "timed.csv"
    improving.verdicts.drop(columns=["row"]).to_csv(path, index=False)
    assert main(["drift", str(path), "--bootstrap", "20", "--permutations", "99", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["time_windows"]["moved"] and "sim-fir moved from #6" in out["time_windows"]["sentence"]
    assert out["judge_drift"]["repeated_items"] > 0
    keys = _keys(out, set())
    assert main(["rank", str(path), "--as-of", "2024-04-10", "--bootstrap", "20", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["as_of"] == "2024-04-10" and out["verdicts_used"] > 0
    keys |= _keys(out, set())
    assert unplaced(keys) == set()
    bare = tmp_path / "bare.csv"
    improving.verdicts.drop(columns=["row", "judged_at"]).to_csv(bare, index=False)
    assert main(["drift", str(bare)]) == 2
    assert "no judging times" in capsys.readouterr().err


def test_the_largest_move_is_confirmed_only_beyond_every_models_chance():
    """Twenty models compared: a move whose 95% interval (+5 to +95) excludes zero is not
    confirmed once the interval is widened for the twenty (z = 3.02 for 0.05 / 20: half-width
    69 > 50, worked by hand); a move of 150 on the same spread is (half-width 69 < 150)."""
    from evalcore.ranking.over_time import Move, TimeWindows, Window

    window = Window(label="w", start="a", end="b", verdicts=1, ratings=(), interval="")
    quiet = tuple(Move(f"m{k}", k + 2, k + 2, 0.0, -45.0, 45.0) for k in range(19))
    chance = TimeWindows("count", (window, window), (Move("top", 5, 1, 50.0, 5.0, 95.0), *quiet), 0)
    assert chance.moves[0].clear and not chance.confirmed(chance.moves[0])
    assert "within what chance allows once the 20 models compared are allowed for" in chance.sentence()
    real = TimeWindows("count", (window, window), (Move("top", 5, 1, 150.0, 105.0, 195.0), *quiet), 0)
    assert real.confirmed(real.moves[0])
    assert "confirms even allowing for the 20 models compared" in real.sentence()


class _Stamped:
    """A source whose ``judged_at`` frame is what the test says (a store reads it once per table)."""

    def __init__(self, frame: pd.DataFrame) -> None:
        self.frame = frame

    def judged_at(self) -> pd.DataFrame:
        return self.frame


def test_judging_times_are_parsed_once_per_judged_at_frame(monkeypatch):
    # The Leaderboard's days and "as of" board, the windows and the drift test each asked for the
    # demo's 450,000 dates: parsed once per frame the store reads, and again for a new frame.
    import evalcore.ranking.judging_times as jt

    calls = []
    real = jt.parse_times
    monkeypatch.setattr(jt, "parse_times", lambda text: calls.append(len(text)) or real(text))
    first = _Stamped(pd.DataFrame({"row": [3, 1], "judged_at": ["2024-03-01T00:00:10Z", "2024-03-01"]}))
    times = jt.judging_times(first)
    # 2024-03-01 00:00 UTC is Unix time 1,709,251,200 (hand-worked: 19,783 days of 86,400 s)
    assert times["row"].tolist() == [3, 1] and times["t"].tolist() == [1709251210.0, 1709251200.0]
    assert jt.judging_times(first) is times and calls == [2]
    later = _Stamped(pd.DataFrame({"row": [5], "judged_at": ["2024-03-02"]}))
    assert jt.judging_times(later)["t"].tolist() == [1709337600.0] and calls == [2, 1]


def test_a_windows_counts_code_both_slots_on_one_sorted_axis():
    """A window's cells coded at once: the models in sorted() order (code points: capitals before
    small letters before accented ones), each slot's name at its own index, every count kept."""
    from evalcore.ranking.over_time import _counts_of

    cells = pd.DataFrame(
        {
            "instruction_id": ["q2", "q1", "q1", "q3"],
            "model_a": pd.array(["Émile", "alpha", "Zeta", "alpha"], dtype="string[pyarrow]"),
            "model_b": pd.array(["alpha", "Zeta", "Émile", "Émile"], dtype="string[pyarrow]"),
            "verdict": [2, -1, 0, 1],
            "n": [3, 1, 2, 5],
        }
    )
    counts = _counts_of(cells, "j")
    assert counts.models == ("Zeta", "alpha", "Émile")
    named = {
        (counts.instructions[i], counts.models[a], counts.models[b], int(n.sum()))
        for i, a, b, n in zip(counts.inst, counts.a, counts.b, counts.n, strict=True)
    }
    assert named == set(
        zip(cells["instruction_id"], cells["model_a"], cells["model_b"], cells["n"], strict=True)
    )
    assert counts.n.sum() == 11 and counts.instructions == ("q1", "q2", "q3")
