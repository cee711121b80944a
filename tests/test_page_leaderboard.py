"""AppTest: the Leaderboard page shows ratings with intervals that match the library."""

from __future__ import annotations

import json

import numpy as np
from streamlit.testing.v1 import AppTest

from evalcore.io import read_verdicts
from evalcore.ranking import leaderboard
from evalcore.store import VerdictStore
from tests.conftest import ROOT


def _leaderboard_page() -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    at.switch_page("views/leaderboard.py").run()
    assert not at.exception
    return at


def test_table_matches_the_library_and_plots_are_drawn():
    at = _leaderboard_page()
    shown = at.dataframe[0].value
    store = VerdictStore()
    store.load(read_verdicts(ROOT / "data" / "demo_all_pairs.parquet"))
    judge = store.judges()[0]
    board = leaderboard(store.counts(judge=judge), rounds=1000, seed=0)
    assert shown["model"].tolist() == board.table["model"].tolist()
    np.testing.assert_allclose(shown["ci_high"], board.table["ci_high"])
    charts = [el for el in at.get("plotly_chart")]
    assert len(charts) == 2
    spec = json.loads(charts[0].proto.spec)
    assert spec["data"][0]["y"][0] == board.table["model"].iloc[0]
    assert any("bootstrap rounds" in c.value for c in at.caption)


def test_changing_the_judge_changes_the_leaderboard():
    at = _leaderboard_page()
    first = at.dataframe[0].value["rating"].to_numpy()
    at.selectbox(key="judge_select").select_index(2).run()
    assert not at.exception
    assert not np.allclose(first, at.dataframe[0].value["rating"].to_numpy())
