"""Several judges, one ranking: the sections of the Leaderboard and Judge pages in AppTest.

The demo has three judges (one leans to the first slot, one is steady, one gives many ties): both
pages show each judge's weight as the library computes it, beside its certification.
"""

from __future__ import annotations

import pytest

from evalcore import quantities as q
from evalcore.judge.pooling import pool_store
from tests.conftest import open_page, open_tab
from ui.judges import ROUNDS


@pytest.fixture(scope="module")
def library(demo_store):
    return pool_store(demo_store, rounds=ROUNDS)


def _weights_table(at):
    for df in at.dataframe:
        if q.name("judge_weight") in df.value.columns:
            return df.value
    raise AssertionError("no judge-weight table on the page")


def _check_weights(at, library):
    table = _weights_table(at).set_index("Judge")
    for j in library.judges:
        assert table.loc[j.judge, q.name("judge_weight")] == q.format("judge_weight", j.weight)
        assert table.loc[j.judge, "Certification against human labels"] in (
            "certified",
            "not certified",
            "no labels",
        )


def test_leaderboard_shows_the_pooled_ranking(library):
    at = open_tab(open_page("pages/leaderboard.py"), "lb_tab", "Several judges")  # its tab
    assert not at.exception and not at.error
    assert "Several judges, one ranking" in [s.value for s in at.subheader]
    pooled = next(df.value for df in at.dataframe if q.name("pooled_rating") in df.value.columns)
    assert list(pooled["Model"]) == list(library.table["model"])
    assert list(pooled["Rank with plain pooling"]) == list(library.table["plain_rank"])
    captions = "\n".join(c.value for c in at.caption)
    assert q.format("plain_pooling_tau", library.tau_plain) in captions
    _check_weights(at, library)


def test_judge_page_shows_weights_beside_certification(library):
    at = open_tab(open_page("pages/judge.py"), "judge_tab", "Sheet and weights")  # their tab
    assert not at.exception and not at.error
    assert "Weights in the pooled ranking" in [h.value for h in at.header]
    _check_weights(at, library)


def _pooled_table(at):
    return next(df.value for df in at.dataframe if q.name("pooled_rating") in df.value.columns)


def test_on_a_large_table_the_pooled_ranking_comes_first_and_its_intervals_on_request(
    monkeypatch, demo_store
):
    """Above the size where 200 refits are quick, the page fits once (no interval column, no
    resampling) and resamples only when the switch is on; both tables are the library's."""
    from evalcore.ranking import judges as judges_lib

    monkeypatch.setattr(judges_lib, "BOOTSTRAP_CALLS_LIMIT", 1_000)  # the demo counts as large
    point = pool_store(demo_store, rounds=0)
    at = open_tab(open_page("pages/leaderboard.py"), "lb_tab", "Several judges")
    assert not at.exception and not at.error
    first = _pooled_table(at)
    assert "95% interval" not in first.columns
    assert list(first["Model"]) == list(point.table["model"])
    assert list(first[q.name("pooled_rating")]) == [
        q.format("pooled_rating", r) for r in point.table["rating"]
    ]
    assert "95% interval" not in _weights_table(at).columns

    at.toggle(key="lb_pool_intervals").set_value(True).run()
    assert not at.exception and not at.error
    full = pool_store(demo_store, rounds=ROUNDS)
    shown = _pooled_table(at)
    expected = [
        f"{q.format('pooled_rating', lo)} to {q.format('pooled_rating', hi)}"
        for lo, hi in zip(full.table["ci_low"], full.table["ci_high"], strict=True)
    ]
    assert list(shown["95% interval"]) == expected


def test_the_judge_weights_table_leaves_out_intervals_that_were_not_computed(demo_store):
    from evalcore.present.ranking import judge_weights_display, pooled_display

    point = pool_store(demo_store, rounds=0, certify=False)
    assert "95% interval" not in pooled_display(point).columns
    assert "95% interval" not in judge_weights_display(point).columns
    resampled = pool_store(demo_store, rounds=20, certify=False)
    assert "95% interval" in pooled_display(resampled).columns
    assert "95% interval" in judge_weights_display(resampled).columns
