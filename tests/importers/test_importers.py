"""Importers for native tool files (issue 6, item 1): hand-made files that follow each tool's
public format (tests/fixtures/native, see its README), the real samples in
../shared/data/native-samples and the converted real data in ../shared/data/real."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from evalcore import importers
from evalcore.cli import main as cli_main
from evalcore.ingest.files import read_raw
from evalcore.ranking import leaderboard
from evalcore.schema import VerdictFormatError
from evalcore.store.store import VerdictStore, read_verdicts
from tests.conftest import ROOT, shared_path

NATIVE = ROOT / "tests" / "fixtures" / "native"


def rows(table) -> list[tuple]:
    """(instruction_id, model_a, model_b, verdict or None, judge, category or None) per row."""
    f = table.frame
    return [
        (i, a, b, None if pd.isna(v) else int(v), j, None if pd.isna(c) else c)
        for i, a, b, v, j, c in zip(
            f["instruction_id"],
            f["model_a"],
            f["model_b"],
            f["verdict"],
            f["judge"],
            f["category"],
            strict=True,
        )
    ]


# -- Arena-Hard-Auto ---------------------------------------------------------------------------


def test_arena_hard_games_become_rows_in_their_slot_order():
    table = read_verdicts(NATIVE / "arena_hard_v2" / "model-x.jsonl")
    assert table.format.startswith("Arena-Hard-Auto judgment JSONL")
    j = "judge-llm"
    assert rows(table) == [
        ("q-001", "base-o", "model-x", 1, j, "hard_prompt"),  # game 1: baseline in slot A
        ("q-001", "model-x", "base-o", -1, j, "hard_prompt"),  # game 2: swapped
        ("q-002", "base-o", "model-x", -2, j, "hard_prompt"),
        ("q-002", "model-x", "base-o", None, j, "hard_prompt"),  # null score: no verdict, kept
        ("q-003", "base-o", "model-x", None, j, "creative_writing"),  # null game (API failure)
        ("q-003", "model-x", "base-o", 0, j, "creative_writing"),
        ("q-004", "base-o", "model-x", 2, j, "creative_writing"),
        ("q-004", "model-x", "base-o", -2, j, "creative_writing"),
    ]
    assert table.report.no_verdict_rows == 2


def test_arena_hard_without_judge_or_baseline_takes_the_judge_from_the_folder():
    path = NATIVE / "arena-hard-v0.1" / "model_judgment" / "gpt-4-1106-preview" / "model-y.jsonl"
    table = read_verdicts(path)
    assert set(table.frame["judge"]) == {"gpt-4-1106-preview"}
    assert "judge taken from the folder name" in table.format
    assert "baseline not named in the file" in table.format
    assert "'A>>>B'" in table.format  # an unknown score is kept as no verdict and reported
    assert rows(table)[:2] == [
        ("328c149ed45a41c0b9d6f14659e63599", "baseline", "model-y", 1, "gpt-4-1106-preview", None),
        ("328c149ed45a41c0b9d6f14659e63599", "model-y", "baseline", 2, "gpt-4-1106-preview", None),
    ]
    assert [r[3] for r in rows(table)] == [1, 2, 0, None]


def test_arena_hard_without_model_takes_it_from_the_file_name(tmp_path):
    folder = tmp_path / "model_judgment" / "judge-q"
    folder.mkdir(parents=True)
    path = folder / "gpt-4.5-preview.jsonl"
    path.write_text(
        json.dumps(
            {"question_id": "q1", "baseline": "b-1", "games": [{"score": "B>A"}, {"score": "[[A>B]]"}]}
        )
        + "\n"
    )
    assert rows(read_verdicts(path)) == [
        ("q1", "b-1", "gpt-4.5-preview", -1, "judge-q", None),
        ("q1", "gpt-4.5-preview", "b-1", 1, "judge-q", None),
    ]
    with pytest.raises(VerdictFormatError, match="without a 'model'"):
        read_verdicts(path.read_bytes(), name="upload.jsonl")  # no file name to fall back on


def test_arena_hard_upload_without_a_judge_is_marked():
    data = (
        NATIVE / "arena-hard-v0.1" / "model_judgment" / "gpt-4-1106-preview" / "model-y.jsonl"
    ).read_bytes()
    table = read_verdicts(data, name="model-y.jsonl")  # an upload has no folder
    assert set(table.frame["judge"]) == {"judge"}
    assert "judge not named in the file" in table.format


def test_arena_hard_broken_record_names_the_record():
    lines = [
        json.dumps(
            {"uid": "q1", "model": "m", "baseline": "b", "games": [{"score": "A>B"}, {"score": "B>A"}]}
        ),
        json.dumps({"model": "m", "baseline": "b", "games": []}),
        json.dumps({"uid": "q3", "model": "m", "baseline": "b", "games": "A>B"}),
    ]
    with pytest.raises(VerdictFormatError) as err:
        read_verdicts("\n".join(lines).encode(), name="judgments.jsonl")
    assert "without a question id" in str(err.value) and "row 2" in str(err.value)
    # games that are not a list are the record's own problem: set aside and named, the rest load
    table = read_verdicts("\n".join([lines[0], lines[2]]).encode(), name="judgments.jsonl")
    assert len(table.frame) == 2
    assert "1 row set aside" in table.format and "row 2, games 'A>B' (text)" in table.format


def test_arena_hard_real_sample():
    path = shared_path(
        "data",
        "native-samples",
        "arena_hard_auto",
        "arena-hard-v0.1",
        "model_judgment",
        "gpt-4-1106-preview",
        "gpt-4-0613.jsonl",
    )
    table = read_verdicts(path)
    f = table.frame
    assert len(f) == 12 and f["instruction_id"].nunique() == 6
    assert set(f["judge"]) == {"gpt-4-1106-preview"}
    # Scores of the six lines (README: A>B, B>A, A=B, B>>A occur), game 1 then game 2.
    assert [int(v) for v in f["verdict"]] == [1, -1, 0, 0, 1, -1, 0, -1, 1, 0, 1, -2]
    assert (f["model_a"].iloc[::2] == "gpt-4-0314").all()  # game 1: baseline shown first
    assert (f["model_a"].iloc[1::2] == "gpt-4-0613").all()  # game 2: the model shown first
    # The app's path: load, count, rank.
    store = VerdictStore()
    store.load(table)
    board = leaderboard(store.counts(judge="gpt-4-1106-preview"), rounds=50, seed=0)
    top = board.table.iloc[0]
    # The baseline's side, by sign: game 1 (baseline in A) 1, 0, 1, 0, 1, 1 → 4 wins, 2 ties;
    # game 2 (baseline in B) −1, 0, −1, −1, 0, −2 → 4 wins, 2 ties; it never loses.
    assert top["model"] == "gpt-4-0314" and top["battles"] == 12
    assert (top["wins"], top["ties"], top["losses"]) == (8, 4, 0)
    assert top["win_rate"] == pytest.approx(10 / 12)  # ties count half


# -- AlpacaEval --------------------------------------------------------------------------------


def test_alpaca_probability_and_order_rules():
    completion = {
        "logprobs": {
            "content": [
                {
                    "token": "M",
                    "logprob": -1e-6,
                    "top_logprobs": [
                        {"token": "M", "logprob": math.log(0.8)},
                        {"token": "m", "logprob": math.log(0.2)},
                        {"token": "The", "logprob": -15.0},
                    ],
                }
            ]
        }
    }
    p = importers.alpaca_first_slot_probability(completion)
    assert p == pytest.approx(0.2)
    assert importers.alpaca_first_slot_probability(repr(completion)) == pytest.approx(0.2)
    assert importers.alpaca_first_slot_probability(json.dumps(completion)) == pytest.approx(0.2)
    assert importers.alpaca_first_slot_probability(None) is None
    assert importers.alpaca_first_slot_probability({"logprobs": None}) is None
    assert importers.alpaca_slot_order(1.8, 0.2) == "reference first"  # stored 2 − p(first)
    assert importers.alpaca_slot_order(1.2, 0.2) == "reference second"  # stored 1 + p(first)
    assert importers.alpaca_slot_order(1.5, 0.5) == "either"
    assert importers.alpaca_slot_order(1.5, 0.2) is None
    assert [importers.alpaca_verdict(x) for x in (0.0, 0.25, 0.2500001, 0.5, 0.75, 0.7500001, 1.0)] == [
        -1,
        0,
        0,
        0,
        0,
        1,
        1,
    ]
    assert importers.instruction_key("How did US states get their names?") == "f2bf20386693"


def test_alpaca_weighted_annotations_recover_slot_order():
    table = read_verdicts(NATIVE / "alpaca_eval" / "weighted_annotations.json")
    assert table.format.startswith("AlpacaEval annotations JSON")
    assert "recovered from the judge's logprobs for 5 of 9 rows" in table.format
    assert "1 instruction with identical outputs" in table.format
    got = [(a, b, v) for _, a, b, v, _, _ in rows(table)]
    ref, cand = "ref-model", "cand-model"
    assert got == [
        (ref, cand, 1),  # 1: reference shown first, p(first) = 0.9
        (cand, ref, 1),  # 2: switched (1 + 0.9 stored), candidate first and preferred
        (ref, cand, 0),  # 3: p = 1/2 fits either order: a tie either way
        (ref, cand, 0),  # 4: reference first, p = 0.6 → between 0.25 and 0.75
        (ref, cand, -1),  # 5: no logprobs: stored orientation, 2 − 1.8 = 0.2
        (ref, cand, None),  # 7: null preference (6, identical outputs, is left out)
        (ref, cand, 0),  # 8: legacy 0 = draw
        (cand, ref, -1),  # 9: switched, raw_completion stored as text, p(first) = 0.2
        (ref, cand, 0),  # 10: logprobs contradict the preference: stored orientation
    ]
    f = table.frame
    assert list(f["length_a"][:2]) == [len("Reference answer text."), len("Model answer.")]
    assert set(f["judge"]) == {"weighted_alpaca_eval_gpt4_turbo"}
    assert list(f["category"][:4]) == ["helpful_base"] * 3 + ["koala"]


def test_alpaca_integer_preferences_without_logprobs_are_marked_unrecovered():
    table = read_verdicts(NATIVE / "alpaca_eval" / "gpt4_annotations.json")
    assert "slot order not recovered" in table.format
    assert [r[3] for r in rows(table)] == [1, -1, 1, 0]
    assert set(table.frame["model_a"]) == {"text_davinci_003"}  # the reference, as documented


def test_alpaca_bad_preference_names_the_record():
    records = [
        {"instruction": "x", "generator_1": "r", "generator_2": "c", "preference": 1.0},
        {"instruction": "y", "generator_1": "r", "generator_2": "c", "preference": 3.0},
    ]
    with pytest.raises(VerdictFormatError) as err:
        read_verdicts(json.dumps(records).encode(), name="annotations.json")
    assert "row 2" in str(err.value) and "'3'" in str(err.value)


def _alpaca_real_rows(path) -> pd.DataFrame:
    real = shared_path("data", "real", "alpacaeval2_weighted", "alpacaeval2_weighted.csv")
    inst = pd.read_csv(real.parent / "instructions.csv", dtype=str)
    key = dict(zip(inst["instruction_id"], inst["sha1"].str[:12], strict=True))
    frame = pd.read_csv(real, dtype=str)
    frame = frame[(frame["model_a"] == "alpaca-7b") | (frame["model_b"] == "alpaca-7b")].copy()
    frame["instruction_id"] = frame["instruction_id"].map(key)
    return frame


def test_alpaca_real_sample_matches_the_converted_real_data():
    path = shared_path(
        "data",
        "native-samples",
        "alpaca_eval",
        "alpaca-7b",
        "weighted_alpaca_eval_gpt4_turbo",
        "annotations.json",
    )
    table = read_verdicts(path)
    assert "for 6 of 6 rows" in table.format
    real = _alpaca_real_rows(path).set_index("instruction_id")
    mine = table.frame.set_index("instruction_id")
    assert len(mine) == 6
    expected = real.loc[mine.index]
    assert list(mine["model_a"]) == list(expected["model_a"])
    assert list(mine["model_b"]) == list(expected["model_b"])
    assert [int(v) for v in mine["verdict"]] == [int(v) for v in expected["verdict"]]
    assert list(mine["length_a"]) == [float(x) for x in expected["length_a"]]
    # README: the first three were shown switched (alpaca-7b first), the last three not.
    assert list(expected["switched"]) == ["1", "1", "1", "0", "0", "0"]


def test_alpaca_gpt4_real_sample():
    path = shared_path(
        "data", "native-samples", "alpaca_eval", "alpaca-7b", "alpaca_eval_gpt4", "annotations.json"
    )
    table = read_verdicts(path)
    assert "slot order not recovered" in table.format
    assert len(table.frame) == 6 and [r[3] for r in rows(table)] == [1] * 6  # preference 1 ×6


def test_real_alpacaeval_table_reads_as_a_verdict_table():
    path = shared_path("data", "real", "alpacaeval2_weighted", "alpacaeval2_weighted.csv")
    table = read_verdicts(path)
    assert table.format == "verdict table (CSV)"
    share = table.frame["verdict"].value_counts(normalize=True)
    # README "Sanity numbers": +1 44.17 %, 0 3.15 %, −1 52.68 % of 41,718 calls.
    assert len(table.frame) == 41_718
    assert round(100 * share[1], 2) == 44.17 and round(100 * share[0], 2) == 3.15
    assert round(100 * share[-1], 2) == 52.68


# -- MT-Bench ----------------------------------------------------------------------------------


def test_mt_bench_gpt4_pair_games_and_turns():
    table = read_verdicts(NATIVE / "mt_bench" / "gpt-4_pair.jsonl")
    assert table.format.startswith("MT-Bench GPT-4 pairwise judgments")
    a, g, v = "alpaca-13b", "gpt-3.5-turbo", "vicuna-13b-v1.2"
    assert rows(table) == [
        ("81#t1", a, g, -1, "gpt-4", "turn 1"),  # g1 model_2 wins: slot B
        ("81#t1", g, a, 1, "gpt-4", "turn 1"),  # g2 model_2 wins: slot A after the swap
        ("81#t2", a, g, 0, "gpt-4", "turn 2"),
        ("81#t2", g, a, -1, "gpt-4", "turn 2"),  # g2 model_1 wins: slot B after the swap
        ("82#t1", a, g, None, "gpt-4", "turn 1"),  # error: no verdict
        ("82#t1", g, a, -1, "gpt-4", "turn 1"),
        ("111#t1", g, v, 1, "gpt-4", "turn 1"),
        ("111#t1", v, g, 0, "gpt-4", "turn 1"),
    ]


def test_mt_bench_raw_judge_labels_are_read_in_each_games_slot_order():
    # Unmapped labels ([[A]] = the first answer the judge saw) mean slot A in both games.
    record = {
        "question_id": 90,
        "model_1": "m1",
        "model_2": "m2",
        "g1_winner": "[[A]]",
        "g2_winner": "[[B]]",
        "judge": ["gpt-4", "pair-v2"],
        "turn": 1,
    }
    other = dict(record, question_id=91, g1_winner="[[C]]", g2_winner="[[A]]")
    data = "\n".join(json.dumps(r) for r in (record, other)).encode()
    assert [r[1:4] for r in rows(read_verdicts(data, name="pairs.jsonl"))] == [
        ("m1", "m2", 1),
        ("m2", "m1", -1),
        ("m1", "m2", 0),
        ("m2", "m1", 1),
    ]


def test_mt_bench_bad_winner_names_the_record():
    record = {
        "question_id": 81,
        "model_1": "a",
        "model_2": "b",
        "g1_winner": "model_3",
        "g2_winner": "tie",
        "judge": ["gpt-4", "pair-v2"],
        "turn": 1,
    }
    good = dict(record, g1_winner="model_1")
    data = "\n".join(json.dumps(r) for r in (good, good, record)).encode()
    with pytest.raises(VerdictFormatError) as err:
        read_verdicts(data, name="gpt-4_pair.jsonl")
    assert "row 3" in str(err.value) and "'model_3'" in str(err.value)


def test_mt_bench_human_judgments():
    table = read_verdicts(NATIVE / "mt_bench" / "human_judgments.json")
    assert table.format.startswith("MT-Bench human and GPT-4 judgments")
    assert "combine both orders" in table.format  # the GPT-4 row of that dataset
    a, g = "alpaca-13b", "gpt-3.5-turbo"
    assert rows(table) == [
        ("81#t1", a, g, -1, "expert_0", "turn 1"),
        ("81#t2", a, g, 0, "author_2", "turn 2"),
        ("82#t1", g, a, 1, "expert_17", "turn 1"),
        ("82#t1", g, a, 0, "gpt-4", "turn 1"),  # tie (inconsistent) is a tie
    ]


def test_mt_bench_gpt4_split_as_parquet(tmp_path):
    # The dataset's gpt4_pair split alone: judge is a list, stored by Parquet as an array.
    records = [
        r
        for r in json.loads((NATIVE / "mt_bench" / "human_judgments.json").read_text())
        if isinstance(r["judge"], list)
    ]
    path = tmp_path / "gpt4_pair.parquet"
    pd.DataFrame.from_records(records).to_parquet(path)
    table = read_verdicts(path)
    assert table.format.startswith("MT-Bench GPT-4 judgments")
    assert rows(table) == [("82#t1", "gpt-3.5-turbo", "alpaca-13b", 0, "gpt-4", "turn 1")]


# -- Chatbot Arena -----------------------------------------------------------------------------

ARENA_EXPECTED = [
    ("58210e39b3fd4441a2bd4a518bb44c2d", "koala-13b", "oasst-pythia-12b", -1),
    ("2564acd09e3942fd97657d05282d4389", "vicuna-13b", "oasst-pythia-12b", 0),
    ("90bfd142157948aba01931726c888e7f", "koala-13b", "vicuna-13b", 1),
    ("a7c5accc53e649a3bc6b2e41d962ebc4", "vicuna-13b", "koala-13b", 0),  # tie (bothbad)
]


def _check_arena(table):
    assert table.format.startswith("Chatbot Arena battle table")
    assert [r[:4] for r in rows(table)] == ARENA_EXPECTED
    assert set(table.frame["judge"]) == {importers.ARENA_VOTERS}
    assert list(table.frame["category"]) == ["English", "German", "English", "English"]
    assert list(table.frame["length_a"]) == [6.0, 3.0, 9.0, 1.0]  # assistant characters


def test_arena_battles_json():
    table = read_verdicts(NATIVE / "chatbot_arena" / "clean_battle.json")
    _check_arena(table)
    assert "3 voters pooled" in table.format


def test_arena_battles_as_jsonl_and_parquet(tmp_path):
    records = json.loads((NATIVE / "chatbot_arena" / "clean_battle.json").read_text())
    jsonl = tmp_path / "battles.jsonl"
    jsonl.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    _check_arena(read_verdicts(jsonl))
    parquet = tmp_path / "battles.parquet"
    pd.DataFrame.from_records(records).to_parquet(parquet)
    _check_arena(read_verdicts(parquet))


def test_arena_battles_without_ids_or_judges():
    table = read_verdicts(NATIVE / "chatbot_arena" / "battles_no_id.csv")
    assert "each battle is its own prompt" in table.format
    assert rows(table) == [
        ("battle-1", "gpt-4", "claude-v1", 1, "judge", "English"),
        ("battle-2", "claude-v1", "gpt-4", 1, "judge", "English"),
        ("battle-3", "gpt-4", "vicuna-13b", 0, "judge", "Spanish"),
        ("battle-4", "vicuna-13b", "claude-v1", None, "judge", "English"),  # no vote
    ]


def test_arena_one_hot_winner_columns():
    table = read_verdicts(NATIVE / "chatbot_arena" / "arena_human_preference.csv")
    assert "one-hot" in table.format
    assert [r[:4] for r in rows(table)] == [
        ("30192", "gpt-4-1106-preview", "gpt-4-0613", 1),
        ("53567", "koala-13b", "gpt-4-0613", -1),
        ("65089", "gpt-3.5-turbo-0613", "mistral-medium", 0),
    ]


def test_arena_bad_winner_names_the_row():
    lines = ["model_a,model_b,winner"] + ["a,b,model_a"] * 50 + ["a,b,model_c"] + ["a,b,tie"] * 10
    with pytest.raises(VerdictFormatError) as err:
        read_verdicts("\n".join(lines).encode(), name="battles.csv")
    assert "row 51" in str(err.value) and "'model_c'" in str(err.value)


# -- recognition and the CLI -------------------------------------------------------------------


def test_contract_records_and_unknown_tables_are_not_native():
    contract = [{"instruction_id": "1", "model_a": "a", "model_b": "b", "verdict": 1, "winner": "model_a"}]
    assert importers.detect_native(contract) is None
    assert importers.detect_native([{"foo": 1}]) is None
    assert importers.detect_native([1, 2]) is None
    assert importers.detect_native(pd.DataFrame()) is None
    raw, _ = read_raw(NATIVE / "mt_bench" / "gpt-4_pair.jsonl")
    assert importers.detect_native(raw) == "mt_bench_pair"


def test_every_cli_command_reads_native_files(capsys):
    path = NATIVE / "arena_hard_v2" / "model-x.jsonl"
    assert cli_main(["summary", str(path), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["models"] == ["base-o", "model-x"] and summary["rows"] == 8
    assert summary["orders"] == "both orders"
    assert (
        cli_main(["rank", str(NATIVE / "chatbot_arena" / "clean_battle.json"), "--bootstrap", "20", "--json"])
        == 0
    )
    board = json.loads(capsys.readouterr().out)
    assert board["judge"] == importers.ARENA_VOTERS


def test_cli_bad_native_file_exits_2(tmp_path, capsys):
    bad = tmp_path / "gpt-4_pair.jsonl"
    bad.write_text(
        json.dumps(
            {"question_id": 1, "model_1": "a", "model_2": "b", "g1_winner": "maybe", "g2_winner": "tie"}
        )
        + "\n"
    )
    assert cli_main(["summary", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "'maybe'" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "name,record,words",
    [
        (
            "gpt-4_single.jsonl",
            {
                "question_id": 81,
                "model": "alpaca-13b",
                "judge": ["gpt-4", "single-v1"],
                "user_prompt": "…",
                "judgment": "Rating: [[4]]",
                "score": 4,
                "turn": 1,
            },
            "MT-Bench single-answer grading file",
        ),
        (
            "model-x.jsonl",
            {"uid": "q", "ans_id": "a", "model": "m", "messages": [], "tstamp": 1.0},
            "Arena-Hard-Auto model-answer file",
        ),
        (
            "vicuna.jsonl",
            {"question_id": 81, "answer_id": "a", "model_id": "m", "choices": []},
            "model-answer file",
        ),
        (
            "model_outputs.json",
            {"instruction": "x", "output": "y", "generator": "m", "dataset": "d"},
            "AlpacaEval model-outputs file",
        ),
    ],
)
def test_a_tools_other_files_get_a_pointer_to_the_right_one(name, record, words):
    data = json.dumps(record if name.endswith("jsonl") else [record]).encode()
    with pytest.raises(VerdictFormatError, match=words):
        read_verdicts(data, name=name)


def test_a_leaderboard_is_not_judgments():
    data = b",win_rate,standard_error,n_wins,n_wins_base,n_draws,n_total\nm,50.0,1.2,4,4,0,8\n"
    with pytest.raises(VerdictFormatError, match="leaderboard"):
        read_verdicts(data, name="leaderboard.csv")
