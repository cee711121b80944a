"""Several judges, one ranking: the sections of the Leaderboard and Judge pages in AppTest.

The demo has three judges (one leans to the first slot, one is steady, one gives many ties): both
pages show each judge's weight as the library computes it, beside its certification.
"""

from __future__ import annotations

import pytest

from evalcore import quantities as q
from evalcore.judge.pooling import pool_store
from tests.conftest import open_page
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
    at = open_page("pages/leaderboard.py")
    assert not at.exception and not at.error
    assert "Several judges, one ranking" in [s.value for s in at.subheader]
    pooled = next(df.value for df in at.dataframe if q.name("pooled_rating") in df.value.columns)
    assert list(pooled["Model"]) == list(library.table["model"])
    assert list(pooled["Rank with plain pooling"]) == list(library.table["plain_rank"])
    captions = "\n".join(c.value for c in at.caption)
    assert q.format("plain_pooling_tau", library.tau_plain) in captions
    _check_weights(at, library)


def test_judge_page_shows_weights_beside_certification(library):
    at = open_page("pages/judge.py")
    assert not at.exception and not at.error
    assert "Weights in the pooled ranking" in [h.value for h in at.header]
    _check_weights(at, library)
