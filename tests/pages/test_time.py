"""AppTest: the Leaderboard's "ranking in time" section (its "In time" tab) appears only for a
table with judging times (the demo has them), says what the library says (the leaderboard as of a date, who moved
between windows, the drift test), and keeps the "as of" date in the link; the Overview says the
ranking moved in the report's words."""

from __future__ import annotations

import pytest

from evalcore.findings import headline_findings, run_analyses, time_lines
from evalcore.ranking.judge_drift import judge_drift
from evalcore.ranking.judging_times import judging_days
from evalcore.ranking.over_time import as_of_leaderboard, rating_windows
from evalcore.report import build_report
from evalcore.simulate.timed import TimedSpec, simulate_timed
from evalcore.store.store import VerdictStore
from tests.conftest import open_page, open_tab
from ui.leaderboard_view import TIME_HEADING as HEADING
from ui.leaderboard_view import TIME_ROUNDS as ROUNDS


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
    open_tab(at, "lb_tab", "In time")  # the page draws its open tab only
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


def test_the_demo_has_judging_times_and_the_section_says_the_library_sentences(demo_store):
    """The demo carries judged_at (times drawn apart from the verdicts): the section is there and
    says what the library says; what chance moves between windows is a note, not a warning."""
    at = open_tab(open_page("pages/leaderboard.py"), "lb_tab", "In time")
    judge = at.selectbox(key="judge_select").value
    days = judging_days(demo_store, judge=judge)
    windows = rating_windows(demo_store, judge=judge, rounds=ROUNDS)
    assert HEADING in [h.value for h in at.subheader]
    latest = as_of_leaderboard(demo_store, as_of=days[0], judge=judge, rounds=ROUNDS)
    assert latest.sentence() in _texts(at)
    assert windows.sentence() in [x.value for x in at.info]
    assert not any(windows.sentence() == w.value for w in at.warning)
    assert not windows.confirmed(windows.moves[0])  # drawn apart from the verdicts: chance only


@pytest.mark.usefixtures("small_demo")  # replaced by an upload at once
def test_no_section_without_judging_times(small_sim):
    at = open_page()
    table = small_sim.verdicts.drop(columns=["row"])
    at.file_uploader(key="upload").upload("plain.csv", table.to_csv(index=False).encode(), "text/csv").run()
    assert not at.exception
    at.switch_page("pages/leaderboard.py").run()
    assert not at.exception, [e.value for e in at.exception]
    open_tab(at, "lb_tab", "In time")
    assert HEADING not in [h.value for h in at.subheader]
    assert any("does not say when each call was judged" in i.value for i in at.info)


@pytest.mark.usefixtures("small_demo")  # replaced by an upload at once
def test_the_overview_says_the_ranking_moved_in_the_reports_words(timed):
    """A planted improvement and a planted drift: the Overview's leader finding carries the two
    sentences of the report's time line, worded once (evalcore.findings.time_lines)."""
    store = VerdictStore.from_frame(timed.assign(row=range(1, len(timed) + 1)))
    analyses = run_analyses(store, judge="sim-judge", rounds=200)
    said = time_lines(analyses)
    assert [key for key, _ in said] == ["time-line", "drift-line"]
    at = open_page()
    at.file_uploader(key="upload").upload("timed.csv", timed.to_csv(index=False).encode(), "text/csv").run()
    at.switch_page("pages/overview.py").run()
    assert not at.exception, [e.value for e in at.exception]
    shown = "\n".join(m.value for m in at.markdown).replace("\\", "")
    for _, words in said:
        assert words.split(";")[0] in shown  # the model and its move, as the report words it
    report = build_report(analyses, headline_findings(analyses))
    assert 'id="time-line"' in report and 'id="drift-line"' in report
