"""AppTest: the Leaderboard's "ranking in time" section appears only for a table with judging
times, says what the library says (the leaderboard as of a date, who moved between windows, the
drift test), and keeps the "as of" date in the link."""

from __future__ import annotations

import pytest

from evalcore.ranking.judge_drift import judge_drift
from evalcore.ranking.judging_times import judging_days
from evalcore.ranking.over_time import as_of_leaderboard, rating_windows
from evalcore.simulate.timed import TimedSpec, simulate_timed
from evalcore.store.store import VerdictStore
from tests.conftest import open_page
from ui.time_view import HEADING, ROUNDS


def _texts(at) -> list[str]:
    return [x.value for kind in ("info", "warning") for x in at.get(kind)]


@pytest.fixture(scope="module")
def timed():
    sim = simulate_timed(TimedSpec(gains={"sim-fir": 2.0}, slot_drift=0.8, seed=1))
    return sim.verdicts.drop(columns=["row"])


@pytest.mark.usefixtures("small_demo")  # replaced by an upload at once
def test_the_section_says_the_library_sentences_and_keeps_the_date_in_the_link(timed):
    store = VerdictStore.from_frame(timed.assign(row=range(1, len(timed) + 1)))
    judge = "sim-judge"
    days = judging_days(store, judge=judge)
    windows = rating_windows(store, judge=judge, rounds=ROUNDS)
    drift = judge_drift(store, judge=judge)
    assert windows.moved and drift.detected  # planted: both said as warnings

    at = open_page()
    at.file_uploader(key="upload").upload("timed.csv", timed.to_csv(index=False).encode(), "text/csv").run()
    assert not at.exception
    at.switch_page("pages/leaderboard.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert HEADING in [h.value for h in at.subheader]
    latest = as_of_leaderboard(store, as_of=days[0], judge=judge, rounds=ROUNDS)
    assert latest.sentence() in _texts(at)
    warnings = [w.value for w in at.warning]
    assert windows.sentence() in warnings and drift.sentence() in warnings

    day = days[40]
    at.selectbox(key="lb_as_of").set_value(day).run()
    assert not at.exception
    earlier = as_of_leaderboard(store, as_of=day, judge=judge, rounds=ROUNDS)
    assert earlier.sentence() in _texts(at)
    assert at.query_params["as_of"] == [day] or at.query_params["as_of"] == day
    shown = next(
        d.value for d in at.dataframe if list(d.value.columns) == ["Rank", "Model", "Rating", "95% interval"]
    )
    assert shown["Model"].tolist() == list(earlier.board.columns["model"])


def test_no_section_without_judging_times():
    at = open_page("pages/leaderboard.py")  # the demo has no judged_at
    assert HEADING not in [h.value for h in at.subheader]
