"""AppTest: the Leaderboard's resampling-unit picker appears only for a table with a session,
voter or run column, goes into the link, and shows the library's clustered intervals; the
pair-weighting switch adds each model's shift."""

from __future__ import annotations

import numpy as np
import pytest

from evalcore.ranking import leaderboard
from evalcore.simulate.sessions import SessionSpec, session_frame
from evalcore.store.store import VerdictStore
from tests.conftest import open_page


@pytest.mark.usefixtures("small_demo")
def test_the_unit_picker_clusters_by_session_and_keeps_it_in_the_link():
    frame = session_frame(SessionSpec(sessions=40), seed=2)
    at = open_page("pages/leaderboard.py")
    assert not [s for s in at.selectbox if s.key == "lb_cluster"]  # the demo has no unit column
    at.switch_page("app.py").run()
    at.file_uploader(key="upload").upload(
        "sessions.csv", frame.to_csv(index=False).encode(), "text/csv"
    ).run()
    at.switch_page("pages/leaderboard.py").run()
    assert not at.exception, [e.value for e in at.exception]
    picker = at.selectbox(key="lb_cluster")
    assert picker.options == ["instruction", "session"] and picker.value == "instruction"
    picker.set_value("session").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.query_params["cluster"] in (["session"], "session")
    store = VerdictStore.from_frame(frame)
    board = leaderboard(store.counts(cluster="session"), rounds=1000, seed=0)
    shown = at.dataframe[0].value
    highs = [float(v.split("–")[1].replace(",", "")) for v in shown["95% interval"]]
    np.testing.assert_allclose(highs, board.table["ci_high"], atol=0.5)
    assert any("Resampled by session" in c.value for c in at.caption)

    at.toggle(key="lb_weighting").set_value(True).run()
    assert not at.exception, [e.value for e in at.exception]
    weighted = leaderboard(store.counts(cluster="session"), rounds=1000, seed=0, weighting="inverse-pair")
    shown = at.dataframe[0].value
    assert "Shift from pair weighting" in shown.columns
    assert shown["Model"].tolist() == weighted.table["model"].tolist()
