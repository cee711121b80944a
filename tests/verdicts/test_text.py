"""Text survives every way in: the contract's file formats, each importer, answer files, the CLI."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evalcore.cli import main
from evalcore.present.verdict_words import excerpt
from evalcore.store.store import VerdictStore
from evalcore.verdicts import VerdictFilter
from tests.conftest import ROOT, SHARED

FIXTURES = ROOT / "tests" / "fixtures"
TEXT = FIXTURES / "verdicts"
NATIVE = FIXTURES / "native"
# ../shared beside the checkout (the project's convention), else the developers' shared folder
SAMPLES = next(
    (p for p in (SHARED / "data/native-samples", Path("/work/shared/data/native-samples")) if p.exists()),
    SHARED / "data/native-samples",
)

ROWS = pd.DataFrame(
    {
        "instruction_id": ["q1", "q1", "q2"],
        "model_a": ["x", "y", "x"],
        "model_b": ["y", "x", "z"],
        "verdict": ["A>B", "B>A", "A=B"],
        "judge": ["j", "j", "j"],
        "prompt": ['Say "hi", <b>please</b>', 'Say "hi", <b>please</b>', "  keep my spaces  "],
        "response_a": ["hi from x", "hi from y", "x, with\nnew lines"],
        "response_b": ["hi from y", "hi from x", None],
        "judge_output": ["x wins", "x wins again", "even"],
        "call_id": ["c-1", "c-2", "c-3"],
        "judged_at": ["2024-05-01T10:00:00Z", "2024-05-01T10:00:01Z", None],
    }
)


def _write(frame: pd.DataFrame, path: Path) -> None:
    name = path.name
    if name.endswith(".csv.gz"):
        path.write_bytes(gzip.compress(frame.to_csv(index=False).encode()))
    elif name.endswith(".csv"):
        frame.to_csv(path, index=False)
    elif name.endswith(".tsv"):
        frame.to_csv(path, index=False, sep="\t")
    elif name.endswith(".parquet"):
        frame.to_parquet(path)
    else:
        path.write_text(frame.to_json(orient="records", lines=True))


@pytest.mark.parametrize("name", ["t.csv", "t.csv.gz", "t.parquet", "t.jsonl", "t.tsv"])
def test_text_survives_every_contract_format(tmp_path, name):
    path = tmp_path / name
    _write(ROWS, path)
    store = VerdictStore()
    store.load_file(path)
    cases = store.verdicts().cases
    assert [c.instruction for c in cases] == ["q1", "q2"]
    q1, q2 = cases
    assert q1.prompt == 'Say "hi", <b>please</b>' and q1.answers == {"x": "hi from x", "y": "hi from y"}
    assert [c.judge_output for c in q1.calls] == ["x wins", "x wins again"]
    assert [c.call_id for c in q1.calls] == ["c-1", "c-2"]
    # a JSON reader recognises the time and writes it in its own ISO form; the instant is kept
    assert q1.calls[0].judged_at in ("2024-05-01T10:00:00Z", "2024-05-01 10:00:00+00")
    assert q2.prompt == "  keep my spaces  "  # text is kept verbatim, never trimmed
    assert q2.answers["x"] == "x, with\nnew lines"
    # an empty cell: None in JSON and Parquet, "" in a delimited file (which cannot tell them apart)
    assert q2.answers["z"] in (None, "") and q2.calls[0].judged_at in (None, "")
    assert not q1.flipped  # x wins in both orders
    store.close()


def test_text_rows_stay_aligned_across_row_groups_and_blank_lines(tmp_path):
    n = 3000
    frame = pd.DataFrame(
        {
            "instruction_id": [f"q{i}" for i in range(n)],
            "model_a": "x",
            "model_b": "y",
            "verdict": 1,
            "prompt": [f"prompt of q{i}" for i in range(n)],
        }
    )
    frame.to_parquet(tmp_path / "t.parquet", row_group_size=250)
    store = VerdictStore()
    store.load_file(tmp_path / "t.parquet")
    wrong = store.con.execute(
        f'SELECT count(*) FROM {store.text.current} t JOIN verdicts v USING ("row") '
        "WHERE t.prompt <> 'prompt of ' || v.instruction_id"
    ).fetchone()
    assert wrong == (0,)
    csv = b'instruction_id,model_a,model_b,verdict,prompt\n\nq1,x,y,1,p1\n,,,,\nq2,x,y,1,"p2, quoted"\n'
    store.load_bytes(csv, name="blank.csv")
    assert [(c.instruction, c.prompt, c.calls[0].row) for c in store.verdicts().cases] == [
        ("q1", "p1", 1),
        ("q2", "p2, quoted", 2),
    ]
    store.close()


def _cases(path: Path, **filters) -> list:
    store = VerdictStore()
    store.load_file(path)
    cases = list(store.verdicts(VerdictFilter(**filters), limit=500).cases)
    store.close()
    return cases


# -- importers ----------------------------------------------------------------------------------


def test_arena_hard_judge_input_and_judgment_per_game():
    cases = {c.instruction: c for c in _cases(TEXT / "arena_hard_judgments.jsonl")}
    q1 = cases["q-1"]
    assert q1.models == ("base-o", "model-y")  # game 1: the baseline in slot A
    assert q1.prompt == "Write <b>bold</b> HTML?"
    assert q1.answers == {"base-o": "Use <b>x</b>.", "model-y": "Use **x** [link](javascript:alert(1))"}
    assert [c.judge_output for c in q1.calls] == [
        "Game 1 on q-1: B is better. [[B>A]]",
        "Game 2 on q-1: A is better. [[A>B]]",
    ]
    assert [c.verdict for c in q1.calls] == [-1, 1] and not q1.flipped
    assert cases["q-2"].prompt == "What's 'quoted'; DROP TABLE verdicts; --"
    q3 = cases["q-3"]
    assert q3.prompt is None and q3.answers == {"base-o": None, "model-y": None}


def test_arena_hard_answer_files_fill_the_answers_beside_the_judgments():
    store = VerdictStore()
    store.load_file(TEXT / "arena_hard_judgments.jsonl")
    filled = store.attach_answers(TEXT / "model-y_answers.jsonl")
    filled += store.attach_answers((TEXT / "base-o_answers.jsonl").read_bytes(), name="base-o.jsonl")
    assert filled == 4  # q-3: both games × both models; q-1 already had its answers
    cases = {c.instruction: c for c in store.verdicts(limit=50).cases}
    q3 = cases["q-3"]
    assert q3.answers == {"base-o": "Baseline's third answer.", "model-y": "Model's third answer."}
    assert q3.prompt == "Third question?"
    assert cases["q-1"].answers["model-y"] == "Use **x** [link](javascript:alert(1))"  # kept
    with pytest.raises(ValueError, match="not Arena-Hard-Auto answers"):
        store.attach_answers(b'{"uid": "q-1"}\n', name="bad.jsonl")
    store.close()


def test_arena_hard_v2_fixture_keeps_the_judge_text():
    cases = _cases(NATIVE / "arena_hard_v2" / "model-x.jsonl")
    first = cases[0]
    assert first.calls[0].judge_output == "My final verdict is [[A>B]]"
    assert first.prompt == "<|User Prompt|> one"  # no answer markers: the judge input as it is


@pytest.mark.skipif(not SAMPLES.exists(), reason="native samples not available")
def test_arena_hard_native_sample_text_survives():
    path = SAMPLES / "arena_hard_auto/arena-hard-v0.1/model_judgment/gpt-4-1106-preview/gpt-4-0613.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    cases = {c.instruction: c for c in _cases(path)}
    assert len(cases) == len(records)
    for record in records:
        case = cases[record["uid"]]
        assert [c.judge_output for c in case.calls] == [g["judgment"] for g in record["games"]]
        assert case.prompt and case.prompt in record["games"][0]["user_prompt"]
        # the two games show the same two answers, swapped: both land on the right model
        for game, call in zip(record["games"], case.calls, strict=True):
            assert case.answers[call.model_a] in game["user_prompt"]
            assert case.answers[call.model_b] in game["user_prompt"]
        assert case.answers["gpt-4-0314"] != case.answers["gpt-4-0613"]


def _alpaca_check(path: Path) -> None:
    records = json.loads(path.read_text())
    by_text = {r["instruction"]: r for r in records}
    cases = _cases(path)
    assert cases
    for case in cases:
        record = by_text[case.prompt]
        # the answers follow the models whatever slot each was shown in (mirroring undone)
        assert case.answers[record["generator_1"]] == record["output_1"]
        assert case.answers[record["generator_2"]] == record["output_2"]


def test_alpaca_eval_instruction_and_outputs_follow_the_slots():
    _alpaca_check(NATIVE / "alpaca_eval" / "weighted_annotations.json")
    _alpaca_check(NATIVE / "alpaca_eval" / "gpt4_annotations.json")
    cases = _cases(NATIVE / "alpaca_eval" / "weighted_annotations.json")
    swapped = [c for c in cases if c.calls[0].model_a != "ref-model"]
    assert swapped, "the fixture has rows whose reference was shown second"


@pytest.mark.skipif(not SAMPLES.exists(), reason="native samples not available")
def test_alpaca_eval_native_samples_text_survives():
    for path in sorted((SAMPLES / "alpaca_eval").rglob("annotations.json")):
        _alpaca_check(path)
    weighted = _cases(SAMPLES / "alpaca_eval/alpaca-7b/weighted_alpaca_eval_gpt4_turbo/annotations.json")
    assert all(c.calls[0].judge_output in ("m", "M") for c in weighted)


def test_mt_bench_pair_question_answers_and_judgment():
    [case] = _cases(TEXT / "mt_bench_pair.jsonl")
    assert case.prompt == "Compose a haiku." and case.answers == {
        "m-one": "One haiku.",
        "m-two": "Two haiku.",
    }
    assert [c.judge_output for c in case.calls] == [
        "Assistant A is better. [[A]]",
        "Assistant B is better. [[B]]",
    ]
    assert case.calls[0].judged_at == "2023-06-20 00:59:21 UTC"  # tstamp 1687222761.3, as a date
    fixture = _cases(NATIVE / "mt_bench" / "gpt-4_pair.jsonl")
    assert fixture[0].calls[0].judge_output == "..."


def test_chatbot_arena_conversations_give_prompt_and_answers():
    cases = _cases(NATIVE / "chatbot_arena" / "clean_battle.json")  # the SQL path (structs)
    first = cases[0]
    assert first.prompt == "Hi" and first.answers == {"koala-13b": "Hello!", "oasst-pythia-12b": "Hi there."}
    one_hot = _cases(NATIVE / "chatbot_arena" / "arena_human_preference.csv")  # the Python path
    assert one_hot[0].prompt == "Is it morally right?"
    assert one_hot[0].answers == {"gpt-4-1106-preview": "Yes", "gpt-4-0613": "No"}


def test_mt_bench_human_judgments_keep_the_judged_turn():
    cases = _cases(NATIVE / "mt_bench" / "human_judgments.json", judge="expert_0")
    first = cases[0]
    assert first.prompt == "Compose a travel blog post."
    assert first.answers == {"alpaca-13b": "Aloha!", "gpt-3.5-turbo": "Hawaii is..."}


def test_chatbot_arena_python_path_reads_conversations_written_as_text(tmp_path):
    conversation = json.dumps([{"role": "user", "content": "Q"}, {"role": "assistant", "content": "A1"},
                               {"role": "user", "content": "Q2"}, {"role": "assistant", "content": "A2"}])  # fmt: skip
    frame = pd.DataFrame(
        {"model_a": ["x"], "model_b": ["y"], "winner": ["tie"], "conversation_a": [conversation],
         "conversation_b": [conversation.replace("A", "B")]}
    )  # fmt: skip
    frame.to_csv(tmp_path / "battles.csv", index=False)
    [case] = _cases(tmp_path / "battles.csv")
    assert case.prompt == "Q" and case.answers == {"x": "A1\n\nA2", "y": "B1\n\nB2"}


# -- the command line ---------------------------------------------------------------------------


def test_cli_verdicts_json_and_listing(tmp_path, capsys):
    path = tmp_path / "t.parquet"
    _write(ROWS.assign(prompt=["p " * 200, "p", "<script>x</script>"]), path)
    assert main(["verdicts", str(path), "--model-a", "y", "--model-b", "x", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["total"] == 1 and data["filter"] == {"a": "y", "b": "x"}
    assert data["cases"][0]["calls"][1]["judge_output"] == "x wins again"
    assert main(["verdicts", str(path), "--width", "40"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Cases 1–2 of 2 (all cases).")
    assert "  prompt: " + excerpt("p " * 200, width=40) + "\n" in out
    assert "<script>x</script>" in out and "row 2: y first, x second → x better" in out
    assert main(["verdicts", str(path), "--search", "AGAIN", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["total"] == 1
    assert main(["verdicts", str(path), "--verdict", "tie", "--flipped", "--disagrees-with-human"]) == 0
    assert capsys.readouterr().out.startswith("No case matches these filters (some call was a tie")


def test_cli_verdicts_with_answer_files(capsys):
    args = ["verdicts", str(TEXT / "arena_hard_judgments.jsonl"), "--instruction", "q-3", "--json"]
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["cases"][0]["answers"]["model-y"] is None
    args += [
        "--answers",
        str(TEXT / "model-y_answers.jsonl"),
        "--answers",
        str(TEXT / "base-o_answers.jsonl"),
    ]
    assert main(args) == 0
    answers = json.loads(capsys.readouterr().out)["cases"][0]["answers"]
    assert answers == {"base-o": "Baseline's third answer.", "model-y": "Model's third answer."}


def test_cli_verdicts_refuses_in_words(tmp_path, capsys):
    path = tmp_path / "t.csv"
    _write(ROWS, path)
    assert main(["verdicts", str(path), "--limit", "0"]) == 2
    assert "--limit: got 0; must be a whole number from 1 to 500" in capsys.readouterr().err
    assert main(["verdicts", str(path), "--verdict", "A"]) == 2
    assert "invalid choice" in capsys.readouterr().err


def test_a_unix_judged_at_is_shown_as_a_date(tmp_path):
    """Issue 25, item 8: MT-Bench's ``tstamp`` (Unix seconds) read as ``judged_at`` is a date."""
    frame = ROWS.assign(judged_at=["1687221890.5", "1687221890500", "2024-05-01"])
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    store = VerdictStore()
    store.load_file(path)
    q1, q2 = store.verdicts().cases
    assert [c.judged_at for c in q1.calls] == ["2023-06-20 00:44:50 UTC"] * 2
    assert q2.calls[0].judged_at == "2024-05-01"  # any other notation as written
    store.close()


@pytest.mark.parametrize("text", [True, False])
@pytest.mark.parametrize("name", ["t.csv", "t.parquet", "t.jsonl"])
def test_lengths_come_from_the_answers_when_the_file_has_none(tmp_path, name, text):
    """Issue 25, item 8: a file with both answers and no length columns gets the answers'
    lengths in characters (whether or not its text is kept), instead of asking for two columns."""
    path = tmp_path / name
    _write(ROWS, path)
    store = VerdictStore()
    store.load_file(path, text=text)
    got = store.frame().sort_values("row")
    assert got["length_a"].tolist()[:2] == [len("hi from x"), len("hi from y")]
    assert got["length_b"].tolist()[:2] == [len("hi from y"), len("hi from x")]
    assert np.isnan(got["length_a"].iloc[2])  # one answer missing: no length pair
    store.close()


def test_the_files_own_lengths_win(tmp_path):
    path = tmp_path / "t.csv"
    _write(ROWS.assign(length_a=[5.0, 6.0, 7.0], length_b=[8.0, 9.0, 10.0]), path)
    store = VerdictStore()
    store.load_file(path)
    assert store.frame().sort_values("row")["length_a"].tolist() == [5.0, 6.0, 7.0]
    store.close()
