"""The report says, beside the leaderboard, when the ranking moved between the first and the last
time window or the judge drifted on repeated items (issue 28, item 3), in the library's words and
only for tables with judging times."""

from __future__ import annotations

import html

from evalcore.findings import run_analyses
from evalcore.ranking.judge_drift import judge_drift
from evalcore.ranking.over_time import rating_windows
from evalcore.report import build_report
from evalcore.simulate.timed import TimedSpec, simulate_timed
from evalcore.store.store import VerdictStore


def test_the_report_line_on_the_ranking_in_time():
    sim = simulate_timed(
        TimedSpec(n_models=4, n_instructions=120, gains={"sim-dogwood": 2.5}, slot_drift=0.8, seed=3)
    )
    store = VerdictStore.from_frame(sim.verdicts)
    windows, drift = rating_windows(store, judge="sim-judge"), judge_drift(store, judge="sim-judge")
    assert windows.moved and drift.detected  # planted
    document = html.unescape(build_report(run_analyses(store, judge="sim-judge", rounds=50)))
    assert f'<p id="time-line">{windows.sentence()}' in document
    assert f'<p id="drift-line">{drift.sentence()}' in document

    bare = VerdictStore.from_frame(sim.verdicts.drop(columns=["judged_at"]))
    analyses = run_analyses(bare, judge="sim-judge", rounds=50)
    assert analyses.time_windows is None and analyses.judge_drift is None
    document = build_report(analyses)
    assert 'id="time-line"' not in document and 'id="drift-line"' not in document


def test_rank_swaps_within_chance_stay_off_the_headlines():
    """No planted change: models swap ranks between windows by chance, and neither the report nor
    the Overview's finding speaks of it (the Leaderboard's time section still lists the moves)."""
    from evalcore.findings import time_lines

    sim = simulate_timed(TimedSpec(n_models=8, n_instructions=120, strength_sd=0.1, seed=0))
    store = VerdictStore.from_frame(sim.verdicts)
    analyses = run_analyses(store, judge="sim-judge", rounds=50)
    windows = analyses.time_windows
    assert windows is not None and windows.moved and not windows.moved_beyond_chance
    assert "within what chance allows" in windows.sentence()
    assert all(key != "time-line" for key, _ in time_lines(analyses))
    assert 'id="time-line"' not in build_report(analyses)
