"""Per-row problems stay per row: one record of a tool's native file whose field holds a value of
the wrong type (a number, a list, an object, true or false, or null where text belongs; text where
a number belongs) is set aside, counted and named in the load's format label (row, field, value);
the other records load as they would without it. Before, one such value made every call of a
900K-judgements file a call without a verdict (41 of 41) or every uid its own prompt, with no
word, and refused whole files of the other formats."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pandas as pd
import pytest

from evalcore.store.store import VerdictStore
from tests.conftest import ROOT

NATIVE = ROOT / "tests" / "fixtures" / "native"

#: Values of the wrong type where text is expected.
NOT_TEXT = {"number": 3, "list": [1, 2], "object": {"a": 1}, "bool": True}
#: ... and null where the field is required.
NOT_TEXT_OR_NULL = {**NOT_TEXT, "null": None}
#: Text where a number is expected.
NOT_NUMBER = {"text": "abc"}


def _records(path: Path) -> list[dict]:
    text = path.read_text(encoding="utf-8")
    if text.lstrip().startswith("["):
        return json.loads(text)
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _write(path: Path, records: list[dict], *, lines: bool) -> Path:
    if lines:
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    else:
        path.write_text(json.dumps(records, indent=1), encoding="utf-8")
    return path


def _one_hot_records() -> list[dict]:
    """Arena human-preference rows (one-hot winners) as JSON Lines."""
    return [
        {"id": k, "model_a": a, "model_b": b, "winner_model_a": wa, "winner_model_b": wb, "winner_tie": wt}
        for k, (a, b, wa, wb, wt) in enumerate(
            [("x", "y", 1, 0, 0), ("y", "z", 0, 1, 0), ("x", "z", 0, 0, 1), ("z", "y", 1, 0, 0)], start=1
        )
    ]


#: format → (its records, JSON Lines?, {field: the wrong values}); each format read by the path a
#: real file of it takes (streamed through the importer, or converted in SQL).
FORMATS = {
    "arena_hard": (
        lambda: _records(NATIVE / "arena_hard_v2" / "model-x.jsonl"),
        True,
        {"baseline": NOT_TEXT, "uid": {"null": None, "list": [1, 2]}, "games": {"text": "A>B", "number": 1}},
    ),
    "alpaca_eval": (
        lambda: _records(NATIVE / "alpaca_eval" / "gpt4_annotations.json"),
        False,
        {"generator_2": NOT_TEXT_OR_NULL, "preference": NOT_NUMBER},
    ),
    "mt_bench_pair": (
        lambda: _records(NATIVE / "mt_bench" / "gpt-4_pair.jsonl"),
        True,
        {"model_1": NOT_TEXT_OR_NULL, "g1_winner": NOT_TEXT, "turn": NOT_NUMBER},
    ),
    "mt_bench_human": (
        lambda: _records(NATIVE / "mt_bench" / "human_judgments.json"),
        False,
        {"model_b": NOT_TEXT_OR_NULL, "winner": NOT_TEXT},
    ),
    "chatbot_arena": (  # conversations stored as lists: converted in SQL
        lambda: _records(NATIVE / "chatbot_arena" / "clean_battle.json"),
        False,
        {"model_a": NOT_TEXT_OR_NULL, "winner": NOT_TEXT},
    ),
    "chatbot_arena_one_hot": (
        _one_hot_records,
        True,
        {"model_b": NOT_TEXT_OR_NULL, "winner_tie": NOT_NUMBER},
    ),
    "judgements_900k": (  # converted in SQL
        lambda: _records(NATIVE / "judgements_900k" / "judgements.jsonl"),
        True,
        {"final_verdict": NOT_TEXT, "uid": NOT_TEXT_OR_NULL, "model_a_in_prompt": NOT_TEXT_OR_NULL},
    ),
}

CASES = [
    pytest.param(kind, field, value, id=f"{kind}-{field}-{name}")
    for kind, (_, _, fields) in FORMATS.items()
    for field, values in fields.items()
    for name, value in values.items()
]

#: The record given the odd value (the second: rows before and after it load).
BAD = 1
_KEY = ["instruction_id", "model_a", "model_b", "verdict", "judge", "category"]


def _calls(path: Path) -> tuple[pd.DataFrame, str]:
    store = VerdictStore()
    try:
        table = store.load_file(path, text=False)
        frame = store.frame()
    finally:
        store.close()
    keep = [c for c in _KEY if c in frame.columns]
    rows = frame[keep].astype("string").fillna("").sort_values(keep).reset_index(drop=True)
    return rows, table.format


@pytest.mark.parametrize(("kind", "field", "value"), CASES)
def test_a_value_of_the_wrong_type_sets_its_row_aside(kind, field, value, tmp_path):
    make, lines, _ = FORMATS[kind]
    records = make()
    suffix = ".jsonl" if lines else ".json"
    odd = copy.deepcopy(records)
    odd[BAD][field] = value
    without = [r for k, r in enumerate(records) if k != BAD]
    got, label = _calls(_write(tmp_path / f"odd{suffix}", odd, lines=lines))
    expected, _ = _calls(_write(tmp_path / f"without{suffix}", without, lines=lines))
    # the other records load exactly as they do without the odd one
    pd.testing.assert_frame_equal(got, expected)
    # and the odd one is counted and named: its row, its field, its value
    assert "1 row set aside for a value of the wrong type" in label, label
    assert f"row {BAD + 1}, {field} " in label, label


def test_the_900k_file_of_the_issue_keeps_its_verdicts(tmp_path):
    """41 calls, the last with a number for its verdict: 40 calls with their verdicts, one named."""
    rows = [
        {
            "uid": f"q{k}_x_y",
            "judge_model": "j",
            "model_a_in_prompt": "x",
            "model_b_in_prompt": "y",
            "final_verdict": "x>y",
        }
        for k in range(40)
    ]
    for field, value in (("final_verdict", 3), ("uid", [1, 2])):
        bad = {**rows[0], field: value}
        path = _write(tmp_path / f"{field}.jsonl", [*rows, bad], lines=True)
        store = VerdictStore()
        try:
            table = store.load_file(path, text=False)
            frame = store.frame()
        finally:
            store.close()
        assert len(frame) == 40 and frame["verdict"].notna().all()
        assert frame["instruction_id"].nunique() == 40 and set(frame["instruction_id"]) == {
            f"q{k}" for k in range(40)
        }
        assert f"row 41, {field} " in table.format


def test_a_long_odd_value_is_named_by_an_excerpt(tmp_path):
    records = _records(NATIVE / "judgements_900k" / "judgements.jsonl")
    records[BAD]["final_verdict"] = ["x" * 10_000]
    _, label = _calls(_write(tmp_path / "long.jsonl", records, lines=True))
    assert "row 2, final_verdict" in label and "characters)" in label and len(label) < 1_000


def test_every_record_set_aside_is_refused_in_words(tmp_path):
    records = _records(NATIVE / "mt_bench" / "gpt-4_pair.jsonl")
    for record in records:
        record["model_1"] = 7
    path = _write(tmp_path / "all.jsonl", records, lines=True)
    store = VerdictStore()
    with pytest.raises(ValueError, match="no judge calls once the records with a value of the wrong type"):
        store.load_file(path, text=False)
    store.close()
