"""`rank --cluster session` and `--weighting inverse-pair`: the library's clustered, weighted
leaderboard, its catalogued --json keys, and a refusal in words for a column the file lacks."""

from __future__ import annotations

import json

import pytest

from evalcore import quantities as q
from evalcore.cli import main
from evalcore.ranking import leaderboard
from evalcore.simulate.sessions import SessionSpec, session_frame
from evalcore.store.store import VerdictStore


@pytest.fixture(scope="module")
def sessions(tmp_path_factory):
    frame = session_frame(SessionSpec(sessions=50), seed=4)
    path = tmp_path_factory.mktemp("cluster") / "sessions.csv"
    frame.to_csv(path, index=False)
    return path, frame


def test_rank_json_clusters_and_weights_like_the_library(sessions, capsys):
    path, frame = sessions
    code = main(
        [
            "rank",
            str(path),
            "--cluster",
            "session",
            "--weighting",
            "inverse-pair",
            "--bootstrap",
            "100",
            "--json",
        ]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    board = leaderboard(
        VerdictStore.from_frame(frame).counts(cluster="session"), rounds=100, seed=0, weighting="inverse-pair"
    )
    assert out["cluster"] == "session" and out["n_units"] == 50 and out["weighting"] == "inverse-pair"
    assert out["cluster_widening"] == pytest.approx(board.cluster_widening)
    assert "bootstrap over sessions" in out["interval"]
    got = {r["model"]: r for r in out["models"]}
    for name, low, shift in zip(
        board.columns["model"], board.columns["ci_low"], board.columns["weighting_shift"], strict=True
    ):
        assert got[name]["ci_low"] == pytest.approx(low)
        assert got[name]["weighting_shift"] == pytest.approx(shift)
    keys = q.json_key_ids()
    for key in ("n_units", "cluster_widening", "weighting_shift"):
        assert key in keys
    assert {"cluster", "weighting"} <= q.STRUCTURAL_JSON_KEYS


def test_rank_text_names_the_units_and_a_missing_column_is_refused(sessions, capsys):
    path, _ = sessions
    assert main(["rank", str(path), "--cluster", "session", "--bootstrap", "50"]) == 0
    captured = capsys.readouterr()
    assert "Resampling units: 50 sessions" in captured.out
    assert "Clustered by session" in captured.err  # the widening is said when it matters
    assert main(["rank", str(path), "--cluster", "voter"]) == 2
    assert "cannot cluster by 'voter'" in capsys.readouterr().err


def test_ppi_cluster_session(tmp_path, capsys):
    import numpy as np

    frame = session_frame(SessionSpec(sessions=60), seed=5)
    rng = np.random.default_rng(5)
    frame["human"] = np.where(rng.random(len(frame)) < 0.4, frame["verdict"], np.nan)
    path = tmp_path / "labelled.csv"
    frame.to_csv(path, index=False)
    assert main(["ppi", str(path), "--cluster", "session", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["cluster"] == "session" and out["n_units"] == 60
    assert "clustered by session" in out["method"]
