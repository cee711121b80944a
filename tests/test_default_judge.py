"""One default judge for every face (issue 23, item 7): the library's rule
(:func:`evalcore.judge_choice.publishing_judge`) picks it, and the app, the commands and the
report (through the analyses) all start on it."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from evalcore.cli import main
from evalcore.findings import run_analyses
from evalcore.judge_choice import publishing_judge
from evalcore.store.store import VerdictStore
from tests.conftest import DEMO, open_page


def _store(rows: list[tuple[str, str, str, str, int]]) -> VerdictStore:
    frame = pd.DataFrame(rows, columns=["instruction_id", "model_a", "model_b", "judge", "verdict"])
    return VerdictStore.from_frame(frame)


def _both_orders(judge: str, forward: list[int], reverse: list[int]) -> list[tuple]:
    """One pair (x, y) per instruction, judged x-first then y-first (verdicts from slot A's view)."""
    rows = []
    for k, (f, r) in enumerate(zip(forward, reverse, strict=True)):
        rows += [(f"q{k}", "x", "y", judge, f), (f"q{k}", "y", "x", judge, r)]
    return rows


def test_the_rule_by_hand():
    # a-slot-lover: always the first slot → the two orders name opposite winners (0 of 4 agree);
    # b-tie: x wins one instruction in both orders, ties the other three (1 of 4);
    # c-steady: x wins in both orders on 3 instructions, one flip (3 of 4).
    store = _store(
        _both_orders("a-slot-lover", [2, 2, 2, 2], [2, 2, 2, 2])
        + _both_orders("b-tie", [1, 0, 0, 0], [-1, 0, 0, 0])
        + _both_orders("c-steady", [2, 1, 2, 2], [-2, -1, -1, 1])
    )
    choice = publishing_judge(store)
    assert choice.same_winner == {"a-slot-lover": 0.0, "b-tie": 0.25, "c-steady": 0.75}
    assert choice.judge == "c-steady"
    assert "c-steady" in choice.reason and "75.0%" in choice.reason


def test_without_both_orders_the_judge_with_most_calls():
    rows = [("q1", "x", "y", "a-judge", 2)] + [(f"q{k}", "x", "y", "b-judge", 1) for k in range(3)]
    choice = publishing_judge(_store(rows))
    assert math.isnan(choice.same_winner["a-judge"])
    assert choice.judge == "b-judge" and "most calls (3)" in choice.reason


def test_a_file_with_one_judge_is_ranked_on_it_without_counting_it_twice(tmp_path, monkeypatch, capsys):
    """The only judge needs no choosing: ``rank`` counts its calls once (choosing by the rule
    counted them a second time, a second or more on an arena table) and says nothing about it."""
    path = tmp_path / "one.csv"
    pd.DataFrame(
        [(f"q{k}", "x", "y", "solo", v) for k, v in enumerate([2, 1, -1, 2, 0, 1])],
        columns=["instruction_id", "model_a", "model_b", "judge", "verdict"],
    ).to_csv(path, index=False)
    counted = []
    real = VerdictStore.counts
    monkeypatch.setattr(VerdictStore, "counts", lambda self, **kw: counted.append(kw) or real(self, **kw))
    assert main(["rank", str(path), "--bootstrap", "20", "--json"]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["judge"] == "solo"
    assert counted == [{"judge": "solo", "category": None, "cluster": None}]
    assert "note:" not in out.err
    assert publishing_judge(VerdictStore.from_frame(pd.read_csv(path))).judge == "solo"  # the rule agrees


@pytest.fixture(scope="module")
def demo_choice(full_demo_store):
    return publishing_judge(full_demo_store)


def test_the_demo_opens_on_its_steady_judge_not_the_alphabetically_first(demo_choice, full_demo_store):
    from ui.state import DEFAULT_DEMO, DEMO_JUDGE

    assert full_demo_store.judges()[0] == "sim-judge-first-slot"  # the faulty one sorts first
    assert demo_choice.judge == DEMO_JUDGE[DEFAULT_DEMO] == "sim-judge-steady"


def test_the_command_line_picks_it_and_says_why(demo_choice, capsys):
    assert main(["judge", str(DEMO), "--bootstrap", "0", "--no-length", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["judge"] == demo_choice.judge
    assert demo_choice.reason in captured.err


def test_the_report_analyses_pick_it(small_demo_store):
    analyses = run_analyses(small_demo_store, rounds=0)
    assert analyses.judge == publishing_judge(small_demo_store).judge


@pytest.mark.app
def test_the_app_picks_it(demo_choice):
    at = open_page("pages/leaderboard.py")
    picker = next(s for s in at.selectbox if s.label == "Judge")
    assert picker.value == demo_choice.judge
    assert demo_choice.reason in (picker.help or "").replace("\\", "")


def test_the_share_is_the_both_orders_pairing(small_demo_store):
    """The rule's share, computed without the judge package, equals the both-orders pairing's."""
    from evalcore.judge.both_orders import paired_verdicts
    from evalcore.judge_choice import SAME_WINNER, same_winner_share

    for judge in small_demo_store.judges():
        counts = small_demo_store.counts(judge=judge)
        paired = paired_verdicts(counts)
        expected = paired.reduce(SAME_WINNER).sum() / paired.pairings.sum()
        assert same_winner_share(counts) == pytest.approx(expected, rel=1e-12)
