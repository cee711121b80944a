"""The report says, beside the leaderboard, when intervals clustered by the table's session (voter,
run) column are noticeably wider than over instructions (issue 28, item 5), in the library's
words and only for tables with such a column."""

from __future__ import annotations

import html

from evalcore.findings import run_analyses
from evalcore.ranking.units import widening_matters, widening_note
from evalcore.report import build_report
from evalcore.simulate.sessions import SessionSpec, session_frame
from evalcore.store.store import VerdictStore


def test_the_report_line_on_the_unit_of_resampling():
    frame = session_frame(SessionSpec(sessions=80), seed=6)
    analyses = run_analyses(VerdictStore.from_frame(frame), judge="judge", rounds=50)
    widening, n_units = analyses.unit_widening["session"]
    assert n_units == 80 and widening_matters(widening)  # planted session leans
    document = html.unescape(build_report(analyses))
    assert widening_note("session", widening, 80) in document

    bare = run_analyses(VerdictStore.from_frame(frame.drop(columns=["session"])), judge="judge", rounds=50)
    assert bare.unit_widening == {}
    assert 'class="unit-line"' not in build_report(bare)
