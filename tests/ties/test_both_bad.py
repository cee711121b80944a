"""Both bad kept apart from tie: the mark survives every way a file is read, its share equals a
hand count of the file's own winners, and every analysis still counts it as a tie."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evalcore.importers import from_battles
from evalcore.ranking import leaderboard
from evalcore.schema import VerdictFormatError, validate_verdicts
from evalcore.simulate.arena import simulate_arena, write_arena_dump
from evalcore.store.store import VerdictStore
from evalcore.ties import both_bad_share, tie_conventions
from tests.conftest import ROOT, shared_path

FIXTURE = ROOT / "tests" / "fixtures" / "native" / "chatbot_arena" / "clean_battle.json"


def _hand_count(winners: list[str]) -> tuple[int, int, int]:
    """(verdicts, ties, both-bad ties) counted from the winner labels as written."""
    said = [w.strip().lower() for w in winners if isinstance(w, str) and w.strip()]
    ties = [w for w in said if w.startswith("tie")]
    return len(said), len(ties), sum(w == "tie (bothbad)" for w in ties)


def test_the_bundled_arena_sample_gives_its_hand_count():
    winners = [r["winner"] for r in json.loads(FIXTURE.read_text())]
    verdicts, ties, both = _hand_count(winners)
    store = VerdictStore()
    store.load_file(FIXTURE)
    share = both_bad_share(store)
    assert (share.verdicts, share.ties, share.marked_ties, share.both_bad) == (verdicts, ties, ties, both)
    assert share.share_of_ties == both / ties == 0.5
    assert share.share_of_verdicts == both / verdicts == 0.25


def _native_arena_samples() -> list[Path]:
    root = shared_path("data", "native-samples")
    if not root.is_dir():
        return []
    found = []
    for path in sorted(root.rglob("*")):
        if path.suffix in (".json", ".jsonl", ".parquet", ".csv") and "arena" in str(path).lower():
            if "arena_hard" in str(path).lower() or "arena-hard" in str(path).lower():
                continue  # Arena-Hard-Auto judgments: no winner column
            found.append(path)
    return found


def test_native_arena_samples_give_their_hand_count():
    samples = _native_arena_samples()
    if not samples:
        pytest.skip("no Chatbot Arena battle sample among the shared native samples")
    for path in samples:
        raw = (
            pd.read_json(path, lines=path.suffix == ".jsonl")
            if path.suffix != ".parquet"
            else pd.read_parquet(path)
        )
        if "winner" not in raw.columns:
            continue
        store = VerdictStore()
        store.load_file(path)
        frame = store.frame()
        kept = frame["model_a"] != frame["model_b"]
        winners = raw["winner"].where(kept.to_numpy()).tolist()
        verdicts, ties, both = _hand_count(winners)
        share = both_bad_share(store)
        assert (share.verdicts, share.ties, share.both_bad) == (verdicts, ties, both), path.name


@pytest.fixture(scope="module")
def arena(tmp_path_factory):
    """A simulated arena dump (half the ties "tie (bothbad)") in Chatbot Arena's own JSON."""
    sim = simulate_arena(n_battles=3_000, n_models=8, n_voters=300, seed=3)
    path = tmp_path_factory.mktemp("arena") / "clean_battle.json"
    write_arena_dump(sim, path)
    return sim, path


def test_a_simulated_arena_dump_gives_the_planted_count(arena):
    sim, path = arena
    # the simulator's truth: outcome 2 is "tie (bothbad)", 0 a plain tie
    planted_ties = int(np.isin(sim.outcome, (0, 2)).sum())
    planted = int((sim.outcome == 2).sum())
    assert 0 < planted < planted_ties
    store = VerdictStore()
    loaded = store.load_file(path)
    assert "both_bad" in loaded.format
    share = both_bad_share(store)
    assert (share.verdicts, share.ties, share.marked_ties, share.both_bad) == (
        sim.n_battles,
        planted_ties,
        planted_ties,
        planted,
    )
    assert share.share_of_ties == pytest.approx(planted / planted_ties)
    # the Python importer (the reference of the SQL path) marks the same battles
    raw = pd.DataFrame(json.loads(path.read_text()))
    converted, _ = from_battles(raw, file="clean_battle.json")
    marked = converted["both_bad"].astype("string").eq("true").to_numpy()
    assert marked.sum() == planted
    assert (raw["winner"].to_numpy()[marked] == "tie (bothbad)").all()


def test_the_streamed_importer_keeps_the_mark(arena, tmp_path):
    """Conversations written as text send a battle table through the streamed importer."""
    sim, path = arena
    raw = pd.DataFrame(json.loads(path.read_text())).head(500)
    raw["conversation_a"] = json.dumps(
        [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "a"}]
    )
    raw["conversation_b"] = raw["conversation_a"]
    csv = tmp_path / "battles.csv"
    raw.to_csv(csv, index=False)
    store = VerdictStore()
    store.load_file(csv)
    verdicts, ties, both = _hand_count(raw["winner"].tolist())
    share = both_bad_share(store)
    assert (share.verdicts, share.ties, share.both_bad) == (verdicts, ties, both)


def test_every_analysis_still_counts_it_as_a_tie(arena, tmp_path):
    """The same battles with "tie (bothbad)" rewritten as "tie" give the same counts, ratings and
    tie conventions: the mark is reported, never analysed as a fourth outcome."""
    sim, path = arena
    raw = json.loads(path.read_text())
    plain = tmp_path / "plain.json"
    plain.write_text(
        json.dumps([r | {"winner": "tie" if r["winner"].startswith("tie") else r["winner"]} for r in raw])
    )
    marked, unmarked = VerdictStore(), VerdictStore()
    marked.load_file(path)
    unmarked.load_file(plain)
    a, b = marked.counts(), unmarked.counts()
    assert np.array_equal(a.n, b.n) and np.array_equal(a.inst, b.inst)
    la, lb = leaderboard(a, rounds=0), leaderboard(b, rounds=0)
    assert np.allclose(la.ratings, lb.ratings)
    assert np.allclose(
        tie_conventions(a, rounds=0).frame().select_dtypes("number"),
        tie_conventions(b, rounds=0).frame().select_dtypes("number"),
        equal_nan=True,
    )
    share = both_bad_share(unmarked)  # plain ties in an arena table: the mark is known, none both bad
    assert share.both_bad == 0 and share.marked_ties == share.ties > 0


def test_a_verdict_table_carries_the_mark_as_a_column_or_a_label(tmp_path):
    text = (
        "instruction_id,model_a,model_b,verdict,both_bad\n"
        "q1,a,b,1,\nq2,a,b,0,no\nq3,a,b,0,yes\nq4,b,a,0,\nq5,b,a,tie (bothbad),\nq6,a,a,0,true\n"
    )
    path = tmp_path / "t.csv"
    path.write_text(text)
    store = VerdictStore()
    store.load_file(path)
    share = both_bad_share(store)
    # q6 compares a model with itself: left out, as every ranking leaves it out; q4's empty cell
    # takes its verdict's label (the file uses "tie (bothbad)", so a plain 0 is not both bad)
    assert (share.verdicts, share.ties, share.marked_ties, share.both_bad) == (5, 4, 4, 2)
    # the pandas validator gives the same marks
    frame = validate_verdicts(pd.read_csv(path, dtype=str, keep_default_na=False), file="t.csv")
    assert frame["both_bad"].tolist() == store.frame()["both_bad"].tolist()
    # only the label: a typed-pass table takes the checking path and keeps it
    labels = tmp_path / "labels.csv"
    labels.write_text(
        "instruction_id,model_a,model_b,verdict\nq1,a,b,A>B\nq2,a,b,tie\nq3,a,b,tie (bothbad)\nq4,a,b,\n"
    )
    store.load_file(labels)
    share = both_bad_share(store)
    assert (share.verdicts, share.ties, share.marked_ties, share.both_bad) == (3, 2, 2, 1)
    assert store.frame()["verdict"].tolist()[:3] == [1, 0, 0]


def test_no_mark_no_share(tmp_path):
    path = tmp_path / "plain.csv"
    path.write_text("instruction_id,model_a,model_b,verdict\nq1,a,b,1\nq2,a,b,0\n")
    store = VerdictStore()
    store.load_file(path)
    assert "both_bad" not in store.frame().columns
    assert both_bad_share(store) is None


@pytest.mark.parametrize(
    ("rows", "problem"),
    [
        ("q1,a,b,1,true\n", "not a tie"),
        ("q1,a,b,,true\n", "not a tie"),
        ("q1,a,b,0,maybe\n", "not yes or no"),
    ],
)
def test_a_mark_that_cannot_be_is_refused_with_its_row(tmp_path, rows, problem):
    path = tmp_path / "bad.csv"
    path.write_text("instruction_id,model_a,model_b,verdict,both_bad\nq0,a,b,0,false\n" + rows)
    with pytest.raises(VerdictFormatError, match=problem) as sql:
        VerdictStore().load_file(path)
    assert sql.value.rows == (2,)
    with pytest.raises(VerdictFormatError, match=problem) as pandas_path:
        validate_verdicts(pd.read_csv(path, dtype=str, keep_default_na=False), file="bad.csv")
    assert pandas_path.value.rows == (2,)


def test_the_mark_travels_with_a_frame_and_between_stores():
    frame = pd.DataFrame(
        {
            "instruction_id": ["q1", "q2", "q3"],
            "model_a": ["a", "a", "b"],
            "model_b": ["b", "b", "a"],
            "verdict": pd.array([0, 0, 1], dtype="Int8"),
            "both_bad": pd.array([True, False, False], dtype="boolean"),
        }
    )
    first = VerdictStore.from_frame(frame)
    second = VerdictStore()
    second.load(first.frame())
    assert both_bad_share(second).both_bad == 1


def test_ties_json_and_the_report_say_the_share(capsys):
    from evalcore.cli import main
    from evalcore.findings import run_analyses
    from evalcore.report import build_report

    assert main(["ties", str(FIXTURE), "--no-conventions", "--json"]) == 0
    said = json.loads(capsys.readouterr().out)["both_bad"]
    assert (said["both_bad"], said["marked_ties"], said["both_bad_share_of_ties"]) == (1, 2, 0.5)
    assert said["both_bad_share_of_verdicts"] == 0.25
    store = VerdictStore()
    store.load_file(FIXTURE)
    analyses = run_analyses(store, rounds=0)
    assert analyses.both_bad is not None
    assert f'<p id="both-bad-line">{analyses.both_bad.sentence()}</p>' in build_report(analyses)


def test_ties_json_says_null_without_a_mark(tmp_path, capsys):
    from evalcore.cli import main

    path = tmp_path / "plain.csv"
    path.write_text("instruction_id,model_a,model_b,verdict\nq1,a,b,1\nq2,a,b,0\nq3,b,a,1\n")
    assert main(["ties", str(path), "--no-conventions", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["both_bad"] is None
