"""Native tool files streamed in batches (``evalcore.ingest.native``) against the whole-file
conversion they replace.

Every file is loaded into a store whole (:func:`_whole_file`: the file read into Python and the
importer run on it as one batch, its whole-file facts worked out in pandas — the load as it was
before streaming), streamed with the default batch size, and streamed two or three records at a
time so that every batch boundary falls inside the awkward cases. The stored verdicts, the stored
text, the format label and the load report must be the same, and a broken file must get the same
message (the same records named).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from evalcore import importers
from evalcore.importers import chatbot_arena
from evalcore.ingest import canonical, native
from evalcore.ingest.files import read_raw
from evalcore.ingest.text import build_text
from evalcore.limits import LoadLimits
from evalcore.schema import VerdictFormatError
from evalcore.store.store import VerdictStore
from tests.conftest import ROOT, shared_path

NATIVE = ROOT / "tests" / "fixtures" / "native"


def _whole_file(cur, src, names, *, origin):
    """The reference load: the whole file read into Python (``read_raw``) and converted by
    ``importers.convert_native`` as one batch, into ``vl_frame`` and its text."""
    native._refuse_unknown(src, names)
    raw, _ = read_raw(src.path, name=src.file)
    converted = importers.convert_native(raw, file=src.file, path=origin)
    if converted is None:
        raise VerdictFormatError(src.file, native._NO_TABLE, hint=native._NO_TABLE_HINT)
    frame, label = converted
    cur.register("vl_incoming", frame.reset_index(drop=True))
    try:
        cur.execute("CREATE OR REPLACE TEMP TABLE vl_frame AS SELECT * FROM vl_incoming")
    finally:
        cur.unregister("vl_incoming")
    build_text(cur, native._frame_exprs(frame.columns), source="vl_frame")
    return label


def _load(
    path, monkeypatch, *, how: str, limits: LoadLimits | None = None, store: VerdictStore | None = None
):
    """(verdicts, text, label, report) of ``path`` loaded ``how``: whole, streamed, or tiny;
    into ``store`` (kept open) if given, else into a store of its own."""
    own = store is None
    with monkeypatch.context() as m:
        streamed: list[str] = []

        def spy(*args, **kwargs):  # the file must take the streamed path (not an SQL path)
            streamed.append(how)
            return native.convert_native(*args, **kwargs)

        m.setattr(canonical, "convert_native", _whole_file if how == "whole" else spy)
        if how == "tiny":
            m.setattr(native, "BATCH_RECORDS", 2)
        elif how == "three":
            m.setattr(native, "BATCH_RECORDS", 3)
        store = VerdictStore() if own else store
        try:
            table = store.load_file(path, limits=limits)
        except VerdictFormatError as exc:
            if own:
                store.close()
            return ("error", str(exc), exc.rows, exc.values)
        assert streamed or how == "whole", "the file never reached the streamed conversion"
        verdicts = store.con.execute('SELECT * FROM verdicts ORDER BY "row"').df()
        text = None
        if store.text.current is not None:
            text = store.con.execute(f'SELECT * FROM {store.text.current} ORDER BY "row"').df()
        scratch = {r[0] for r in store.con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
        assert not {s for s in scratch if s.startswith("vl_")}  # no vl_frame left behind
        if own:
            store.close()
        return verdicts, text, table.format, table.report


#: The streamed ways each file is loaded besides whole. Batches of three (a second alignment of
#: every batch boundary after batches of two) are added when the slow tests run (CI, the README's
#: command); the quick loop (``-m "not slow …"``) keeps the default batches and batches of two.
_WAYS = ["streamed", "tiny", "three"]


@pytest.fixture(scope="module", autouse=True)
def _ways_of_this_run(request):
    quick = "not slow" in (request.config.getoption("markexpr") or "")
    _WAYS[:] = ["streamed", "tiny"] if quick else ["streamed", "tiny", "three"]


def _same(path, monkeypatch, **kwargs):
    """Load ``path`` every way and check the results agree; return the whole-file result.

    The streamed ways load into one store one after the other, as a session loads file after
    file: each load must replace the last one's rows and text entirely."""
    whole = _load(path, monkeypatch, how="whole", **kwargs)
    store = VerdictStore()
    try:
        for how in _WAYS:
            _check_same(whole, _load(path, monkeypatch, how=how, store=store, **kwargs), how)
    finally:
        store.close()
    return whole


def _check_same(whole, got, how: str) -> None:
    if isinstance(whole[0], str):
        assert got == whole, how
        return
    assert not isinstance(got[0], str), got
    pd.testing.assert_frame_equal(got[0], whole[0])
    if whole[1] is None:
        assert got[1] is None
    else:
        pd.testing.assert_frame_equal(got[1], whole[1])
    assert got[2:] == whole[2:]


def _jsonl(path, records):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


# -- the real samples and the fixtures -----------------------------------------------------------

REAL = [
    (
        "arena_hard_auto",
        "arena-hard-v0.1",
        "model_judgment",
        "gpt-4-1106-preview",
        "gpt-4-0613.jsonl",
    ),
    ("alpaca_eval", "alpaca-7b", "weighted_alpaca_eval_gpt4_turbo", "annotations.json"),
    ("alpaca_eval", "alpaca-7b", "alpaca_eval_gpt4", "annotations.json"),
]


@pytest.mark.parametrize("parts", REAL, ids=lambda p: p[0] + "/" + p[-2])
def test_real_samples_streamed_equal_the_whole_file(parts, monkeypatch):
    path = shared_path("data", "native-samples", *parts)
    verdicts, text, label, _ = _same(path, monkeypatch)
    assert len(verdicts) in (6, 12) and text is not None
    # every row keeps its text (the question and both answers)
    assert text[["prompt", "response_a", "response_b"]].notna().all().all()


@pytest.mark.parametrize(
    "name",
    [
        "arena_hard_v2/model-x.jsonl",
        "arena-hard-v0.1/model_judgment/gpt-4-1106-preview/model-y.jsonl",
        "alpaca_eval/weighted_annotations.json",
        "alpaca_eval/gpt4_annotations.json",
        "mt_bench/gpt-4_pair.jsonl",
        "chatbot_arena/arena_human_preference.csv",
    ],
)
def test_fixtures_streamed_equal_the_whole_file(name, monkeypatch):
    verdicts, _, label, _ = _same(NATIVE / name, monkeypatch)
    assert len(verdicts) > 0 and label


def test_the_frame_api_runs_the_streamed_code_on_one_batch():
    """``importers.convert_native`` and a batch-by-batch conversion give the same rows."""
    path = NATIVE / "alpaca_eval" / "weighted_annotations.json"
    raw, _ = read_raw(path)
    frame, label = importers.convert_native(raw, file="a.json")
    conversion = importers.conversion("alpaca_eval", file="a.json")
    parts = [conversion.rows(raw[k : k + 2], start=k + 1) for k in range(0, len(raw), 2)]

    # (a batch whose text cells are all missing has an object column: values compared, not dtypes)
    def values(f):
        return f.astype(object).where(f.notna(), None).to_numpy().tolist()

    assert values(pd.concat(parts, ignore_index=True)) == values(frame)
    assert conversion.label() == label


# -- synthetic files crossing batch boundaries ---------------------------------------------------


def _game(score, question="Q?", a="first", b="second"):
    prompt = (
        f"<|User Prompt|>\n{question}\n\n<|The Start of Assistant A's Answer|>\n{a}\n"
        f"<|The End of Assistant A's Answer|>\n\n<|The Start of Assistant B's Answer|>\n{b}\n"
        "<|The End of Assistant B's Answer|>"
    )
    return {"user_prompt": prompt, "judgment": f"My verdict: [[{score}]]", "score": score}


def _arena_hard_records():
    return [
        {"uid": "q1", "model": "m", "baseline": "base", "games": [_game("A>B"), _game("B>>A")]},
        {"uid": "q2", "model": "m", "baseline": "base", "games": [_game(None), None]},  # no verdicts
        {"uid": "q3", "model": "m", "games": [_game("A=B"), _game("A>>>B")]},  # unnamed baseline
        {
            "question_id": 4,
            "model": "m",
            "baseline": "base",
            "judge": ["gpt-4", "x"],
            "games": [_game("B>A")],
        },
        {"uid": "q5", "model": "m", "baseline": "base", "category": "hard", "games": [{"score": "b<<a"}, {}]},
        {"uid": "q6", "model": "m", "baseline": "base", "games": [_game("A>B", "Ünïcode ✓", "x" * 500, "")]},
        {"uid": "q7", "model": "m", "baseline": "base", "games": [_game("A>>>B"), _game("B>A")]},
    ]


def test_arena_hard_across_batches(tmp_path, monkeypatch):
    path = _jsonl(tmp_path / "model_judgment" / "judge-j" / "m.jsonl", _arena_hard_records())
    verdicts, text, label, report = _same(path, monkeypatch)
    assert len(verdicts) == 12 and report.no_verdict_rows == 5
    assert "2 games with a score Arena-Hard-Auto does not count" in label
    assert "judge taken from the folder name" in label and "baseline not named" in label
    assert set(verdicts["judge"]) == {"judge-j", "gpt-4"}
    assert text is not None and text["response_a"].str.len().max() == 500


def test_arena_hard_broken_records_are_named_the_same(tmp_path, monkeypatch):
    records = _arena_hard_records()
    records[4] = {"model": "m", "baseline": "base", "games": []}  # record 5: no question id
    records[1]["games"] = "A>B"  # record 2: games not a list (set aside: its own problem)
    whole = _same(_jsonl(tmp_path / "a.jsonl", records), monkeypatch)
    assert isinstance(whole[0], str) and whole[2] == (5,) and "without a question id" in whole[1]
    records[4] = {"uid": "q5", "model": "m", "baseline": "b", "games": [{"score": 2}]}  # record 5
    whole = _same(_jsonl(tmp_path / "b.jsonl", records), monkeypatch)
    assert isinstance(whole[0], str) and whole[2] == (5,) and "'games'" in whole[1]


def test_arena_hard_file_with_no_calls(tmp_path, monkeypatch):
    records = [{"uid": f"q{k}", "model": "m", "baseline": "b", "games": []} for k in range(5)]
    whole = _same(_jsonl(tmp_path / "a.jsonl", records), monkeypatch)
    assert isinstance(whole[0], str) and "holds no judge calls" in whole[1]


def test_jsonl_with_blank_lines_and_a_stray_value(tmp_path, monkeypatch):
    lines = [json.dumps(r) for r in _arena_hard_records()]
    path = tmp_path / "a.jsonl"
    path.write_text("\n\n".join(lines[:4]) + "\n\n" + "\n".join(lines[4:]) + "\n", encoding="utf-8")
    verdicts = _same(path, monkeypatch)[0]
    assert len(verdicts) == 12
    path.write_text("\n".join([*lines[:5], "[1, 2]", *lines[5:]]) + "\n", encoding="utf-8")
    whole = _same(path, monkeypatch)
    assert isinstance(whole[0], str) and "line 6" in whole[1]


def _logprobs(first: float, second: float) -> str:
    top = [{"token": "m", "logprob": first}, {"token": "M", "logprob": second}]
    return json.dumps({"logprobs": {"content": [{"top_logprobs": top}]}, "text": "m"})


def _alpaca_records():
    p_first = 1 / (1 + np.exp(-2.0 - 0.5))  # P(m) with logprobs -0.5 and -3.0
    base = {"generator_1": "ref", "generator_2": "model", "annotator": "judge", "dataset": "helpful"}
    return [
        {
            **base,
            "instruction": "a",
            "output_1": "r1",
            "output_2": "o1",
            "preference": 2 - p_first,
            "raw_completion": _logprobs(-0.5, -3.0),
        },  # reference shown first
        {
            **base,
            "instruction": "b",
            "output_1": "r2",
            "output_2": "o2",
            "preference": 1 + p_first,
            "raw_completion": _logprobs(-0.5, -3.0),
        },  # reference shown second: slots swapped
        {**base, "instruction": "c", "output_1": "same", "output_2": "same", "preference": 1.5},  # skipped
        {**base, "instruction": "d", "output_1": "r4", "output_2": "o4", "preference": 2},  # not recovered
        {**base, "instruction": "e", "output_1": "r5", "output_2": "o5", "preference": 0},  # a draw
        {**base, "instruction": "f", "output_1": "r6", "output_2": None, "preference": None},  # no verdict
        {
            **base,
            "instruction": "g",
            "output_1": "r7",
            "output_2": "o7",
            "preference": 1,
            "raw_completion": "not json",
        },
    ]


def _json(path, records):
    path.write_text(json.dumps(records, indent=2), encoding="utf-8")
    return path


def test_alpaca_eval_across_batches(tmp_path, monkeypatch):
    verdicts, text, label, report = _same(
        _json(tmp_path / "annotations.json", _alpaca_records()), monkeypatch
    )
    assert len(verdicts) == 6 and report.no_verdict_rows == 1
    assert "slot order recovered from the judge's logprobs for 2 of 6 rows" in label
    assert "1 instruction with identical outputs" in label
    assert list(verdicts["model_a"][:2]) == ["ref", "model"]  # the second row mirrored back
    assert text is not None and list(text["response_a"][:2]) == ["r1", "o2"]


def test_alpaca_eval_bad_records_are_named_the_same(tmp_path, monkeypatch):
    records = _alpaca_records()
    records[3]["preference"] = 3
    records[6]["preference"] = "x"
    whole = _same(_json(tmp_path / "a.json", records), monkeypatch)
    # 3 is a number outside the scale (refused); "x" is text where a number belongs (set aside)
    assert isinstance(whole[0], str) and whole[2] == (4,) and whole[3] == ("3",)
    records[5].pop("generator_2")
    whole = _same(_json(tmp_path / "b.json", records), monkeypatch)
    assert isinstance(whole[0], str) and whole[2] == (6,) and "without 'instruction'" in whole[1]


def _mt_records():
    def rec(qid, w1, w2, turn=1, **extra):
        return {
            "question_id": qid,
            "model_1": "x",
            "model_2": "y",
            "g1_winner": w1,
            "g2_winner": w2,
            "judge": ["gpt-4", "pair-v2"],
            "turn": turn,
            "g1_user_prompt": "[User Question]\nQ\n\n"
            "[The Start of Assistant A's Answer]\nA1\n[The End of Assistant A's Answer]\n\n"
            "[The Start of Assistant B's Answer]\nB1\n[The End of Assistant B's Answer]",
            "g1_judgment": "[[A]]",
            "g2_judgment": "[[B]]",
            "tstamp": 1.5 * qid,
            **extra,
        }

    return [
        rec(81, "model_1", "model_1"),
        rec(81, "model_2", "tie", turn=2),
        rec(82, "error", "model_2"),
        rec(83, "tie (inconsistent)", None),
        rec(84, "model_1", "model_2"),
    ]


@pytest.mark.parametrize("container", ["jsonl", "csv", "parquet"])
def test_mt_bench_pairs_across_batches(container, tmp_path, monkeypatch):
    path = tmp_path / f"gpt-4_pair.{container}"
    if container == "jsonl":
        _jsonl(path, _mt_records())
    elif container == "csv":  # a table export: the judge as its name, numbers as text
        frame = pd.DataFrame(_mt_records()).assign(judge="gpt-4")
        frame.loc[3, "g2_winner"] = ""
        frame.to_csv(path, index=False)
    else:
        pd.DataFrame(_mt_records()).to_parquet(path)
    verdicts, text, label, _ = _same(path, monkeypatch)
    assert len(verdicts) == 10 and "81#t2" in set(verdicts["instruction_id"])
    assert text is not None and text["response_a"].notna().sum() == 5  # game 1's prompt is split


def test_mt_bench_unknown_winners_are_named_the_same(tmp_path, monkeypatch):
    records = _mt_records()
    records[1]["g2_winner"] = "??"
    records[4]["g1_winner"] = "??"
    records[4]["g2_winner"] = "!!"
    whole = _same(_jsonl(tmp_path / "p.jsonl", records), monkeypatch)
    assert isinstance(whole[0], str) and whole[2] == (2, 5) and whole[3] == ("??", "!!")


def _one_hot(n: int = 7) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "id": [str(100 + k) if k % 3 else "" for k in range(n)],  # some rows without an id
            "model_a": ["a", "b", "c", "a", "b", "c", "a"][:n],
            "model_b": ["b", "c", "a", "c", "a", "b", "b"][:n],
            "prompt": ['["Hi?"]'] * n,
            "response_a": ['["Hello", "again"]'] * n,
            "response_b": ["plain"] * n,
            "winner_model_a": [1, 0, 0, 0, 1, 0, 0][:n],
            "winner_model_b": [0, 1, 0, 0, 0, 1, 0][:n],
            "winner_tie": [0, 0, 1, 0, 0, 0, 1][:n],
        }
    )


@pytest.mark.parametrize("container", ["csv", "parquet"])
def test_one_hot_arena_tables_across_batches(container, tmp_path, monkeypatch):
    frame = _one_hot()
    path = tmp_path / f"arena.{container}"
    frame.to_csv(path, index=False) if container == "csv" else frame.to_parquet(path)
    verdicts, text, _, report = _same(path, monkeypatch)
    assert list(verdicts["instruction_id"][:4]) == ["battle-1", "101", "102", "battle-4"]
    assert report.no_verdict_rows == 1
    assert text is not None and text["response_a"].iloc[0] == "Hello\n\nagain"
    frame.loc[[1, 5], "winner_tie"] = 1  # rows 2 and 6: two winners
    frame.to_csv(path, index=False) if container == "csv" else frame.to_parquet(path)
    whole = _same(path, monkeypatch)
    assert isinstance(whole[0], str) and whole[2] == (2, 6)


# -- no size refusal -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["mt_bench/human_judgments.json", "arena_hard_v2/model-x.jsonl"])
def test_native_files_are_not_refused_for_their_size(name, monkeypatch):
    """Nothing is read whole any more, so no native format has a size bound of its own (a
    server's tight limits on bytes still leave them alone: only rows and models bound them)."""
    tiny = LoadLimits(max_bytes=1)
    verdicts = _load(NATIVE / name, monkeypatch, how="tiny", limits=tiny)[0]
    assert not isinstance(verdicts, str) and len(verdicts) > 0


def test_one_hot_json_whose_records_lack_fields_others_have(tmp_path, monkeypatch):
    """A frame-based importer sees every batch with the whole file's columns (missing as NaN)."""
    records = _one_hot().to_dict(orient="records")
    for k, record in enumerate(records):
        if k < 3:
            record.pop("id")  # the first batches have no id column at all
        if k != 4:
            record.pop("prompt")  # only one record has a prompt
    verdicts, text, label, _ = _same(_jsonl(tmp_path / "arena.jsonl", records), monkeypatch)
    assert list(verdicts["instruction_id"][:4]) == ["battle-1", "battle-2", "battle-3", "battle-4"]
    assert text is not None and text["prompt"].notna().sum() == 1


# -- battle tables: MT-Bench human judgments and arena conversations stored as text ---------------


def _conversation(question, answer, follow_up=None, second=None):
    turns = [{"role": "user", "content": question}, {"role": "assistant", "content": answer}]
    if follow_up is not None:
        turns += [{"role": "user", "content": follow_up}, {"role": "assistant", "content": second}]
    return turns


def _mt_human_records():
    """MT-Bench human judgments with GPT-4 rows among them, missing winners, turn 2 and a row
    without a judge: every case the conversion treats on its own, spread over batches."""

    def rec(qid, a, b, winner, judge, turn=1):
        return {
            "question_id": qid,
            "model_a": a,
            "model_b": b,
            "winner": winner,
            "judge": judge,
            "conversation_a": _conversation(f"Q{qid}", f"{a} says", "More?", f"{a} again"),
            "conversation_b": _conversation(f"Q{qid}", f"{b} says", "More?", f"{b} again"),
            "turn": turn,
        }

    return [
        rec(81, "x", "y", "model_a", "expert_0"),
        rec(81, "x", "y", "tie", "author_2", turn=2),
        rec(82, "y", "z", None, "expert_17"),  # no winner: a call without a verdict
        rec(82, "y", "z", "model_b", ["gpt-4", "pair-v2"], turn=2),  # a GPT-4 row
        rec(83, "z", "x", "", " expert_3 "),
        rec(83, "z", "x", "tie (bothbad)", None),  # no judge: the default judge
        rec(84, "x", "z", "model_a", "expert_0", turn=2),
    ]


def _arena_records(judges):
    """Arena battles whose conversations are stored as JSON text, one per judge given."""
    records = []
    for k, judge in enumerate(judges):
        a, b = ("m1", "m2") if k % 2 else ("m2", "m3")
        records.append(
            {
                "question_id": f"q{k}" if k % 4 != 1 else "",  # some battles without an id
                "model_a": a,
                "model_b": b,
                "winner": ["model_a", "model_b", "tie", "tie (bothbad)", None][k % 5],
                "judge": judge,
                "conversation_a": json.dumps(_conversation(f"p{k}", f"{a} answer {k}")),
                "conversation_b": json.dumps(_conversation(f"p{k}", "x" * k)),
                "language": "English" if k % 3 else "Deutsch",
            }
        )
    return records


VOTERS = ["arena_user_1", " arena_user_2", "arena_user_1", None, "", "arena_user_9 ", "arena_user_2"]
MIXED = ["arena_user_1", "gpt-4", None, "arena_user_2", "", 7, "arena_user_3"]


def _none(value) -> bool:
    return value is None or (isinstance(value, float) and np.isnan(value))


def _write(path, records):
    if path.suffix == ".json":
        return _json(path, records)
    if path.suffix == ".jsonl":
        return _jsonl(path, records)
    frame = pd.DataFrame(records)
    for column in ("judge", "conversation_a", "conversation_b"):  # as a table export writes them
        if column in frame:
            frame[column] = [v if isinstance(v, str) or _none(v) else json.dumps(v) for v in frame[column]]
    frame.to_csv(path, index=False) if path.suffix == ".csv" else frame.to_parquet(path)
    return path


@pytest.mark.parametrize("container", ["json", "jsonl", "csv", "parquet"])
def test_mt_bench_human_judgments_fixture_across_batches(container, tmp_path, monkeypatch):
    records = json.loads((NATIVE / "mt_bench" / "human_judgments.json").read_text(encoding="utf-8"))
    verdicts, text, label, _ = _same(_write(tmp_path / f"human.{container}", records), monkeypatch)
    assert label.startswith("MT-Bench human") and "judge = rater id" in label
    assert "81#t2" in set(verdicts["instruction_id"]) and set(verdicts["judge"]) >= {"expert_0", "author_2"}
    assert text is not None and text["response_a"].notna().all()


@pytest.mark.parametrize("container", ["json", "jsonl"])
def test_mt_bench_human_and_gpt4_rows_across_batches(container, tmp_path, monkeypatch):
    verdicts, text, label, report = _same(
        _write(tmp_path / f"h.{container}", _mt_human_records()), monkeypatch
    )
    assert label.startswith("MT-Bench human and GPT-4 judgments") and "combine both orders" in label
    assert list(verdicts["instruction_id"]) == ["81#t1", "81#t2", "82#t1", "82#t2", "83#t1", "83#t1", "84#t2"]
    assert list(verdicts["judge"]) == [
        "expert_0",
        "author_2",
        "expert_17",
        "gpt-4",
        "expert_3",
        "judge",
        "expert_0",
    ]
    assert report.no_verdict_rows == 2
    assert text is not None and text["response_a"].iloc[1] == "x again"  # turn 2: the follow-up


def test_mt_bench_recognised_from_the_first_judges_present(tmp_path, monkeypatch):
    """The first MT_BENCH_PROBE judges present decide (missing ones are skipped, as pandas'
    dropna skips them): a rater id among them makes the table MT-Bench's; one after them does
    not, and the judges are then kept as named."""
    monkeypatch.setattr(chatbot_arena, "MT_BENCH_PROBE", 3)
    records = _arena_records([None, None, "arena_user_1", "arena_user_2", "expert_1", "arena_user_3"])
    for k, record in enumerate(records):
        record["question_id"] = f"q{k}"  # MT-Bench keeps a question's id as it is, never its own
    verdicts, _, label, _ = _same(_write(tmp_path / "a.jsonl", records), monkeypatch)
    assert label.startswith("MT-Bench human judgments")
    records = _arena_records(
        ["arena_user_1", None, "arena_user_2", "arena_user_3", "expert_1", "arena_user_4"]
    )
    verdicts, _, label, _ = _same(_write(tmp_path / "b.jsonl", records), monkeypatch)
    assert label.startswith("Chatbot Arena") and "pooled" not in label
    assert "expert_1" in set(verdicts["judge"])


@pytest.mark.parametrize("container", ["json", "jsonl", "csv", "parquet"])
def test_arena_voters_pooled_across_batches(container, tmp_path, monkeypatch):
    verdicts, text, label, report = _same(
        _write(tmp_path / f"a.{container}", _arena_records(VOTERS)), monkeypatch
    )
    assert "3 voters pooled as one judge, 'Chatbot Arena voters'" in label
    assert "2 battles without a question_id get their own id" in label
    assert set(verdicts["judge"]) == {"Chatbot Arena voters"}
    assert list(verdicts["instruction_id"][:3]) == ["q0", "battle-2", "q2"]
    assert report.no_verdict_rows == 1
    assert text is not None and text["response_b"].iloc[3] == "xxx"


@pytest.mark.parametrize("container", ["json", "jsonl", "csv"])
def test_arena_voters_and_named_judges_kept_across_batches(container, tmp_path, monkeypatch):
    verdicts, _, label, _ = _same(_write(tmp_path / f"a.{container}", _arena_records(MIXED)), monkeypatch)
    assert "pooled" not in label
    assert list(verdicts["judge"][:3]) == ["arena_user_1", "gpt-4", "judge"]


def test_arena_voter_hashes_pooled_across_batches(tmp_path, monkeypatch):
    records = _arena_records(VOTERS)
    for k, record in enumerate(records):
        del record["judge"], record["question_id"]
        record["judge_hash"] = ["h1", "h2", None, "h1", 3, "3", "h2"][k]
    verdicts, _, label, _ = _same(_write(tmp_path / "a.jsonl", records), monkeypatch)
    # h1, h2, 3 and "3" (a number and a text are different values); the missing one is no voter
    assert "4 voters pooled as one judge" in label and "each battle is its own prompt" in label
    assert list(verdicts["instruction_id"][-2:]) == ["battle-6", "battle-7"]


def test_arena_judges_missing_or_not_a_number(tmp_path, monkeypatch):
    """A NaN judge (JSON allows it as Python writes it) is a missing judge, as in pandas."""
    records = _arena_records(["arena_user_1", float("nan"), "arena_user_2", None])
    assert "NaN" in _write(tmp_path / "a.jsonl", records).read_text(encoding="utf-8")
    verdicts, _, label, _ = _same(tmp_path / "a.jsonl", monkeypatch)
    assert "2 voters pooled" in label
    records = _arena_records([float("nan"), None, ""])
    verdicts, _, label, _ = _same(_write(tmp_path / "b.jsonl", records), monkeypatch)
    assert "pooled" not in label and set(verdicts["judge"]) == {"judge"}


@pytest.mark.parametrize("container", ["jsonl", "csv"])
def test_judge_names_stripped_as_python_strips_them(container, tmp_path, monkeypatch):
    """Whitespace beyond ASCII (an ideographic space, a unit separator, an em space alone) is
    stripped from judge names before they are recognised as voter ids and counted."""
    records = _arena_records(["\u3000arena_user_1\x1f", "arena_user_1", "\u2003", "arena_user_2\u00a0"])
    verdicts, _, label, _ = _same(_write(tmp_path / f"a.{container}", records), monkeypatch)
    assert "2 voters pooled" in label


def test_arena_unknown_winners_are_named_the_same(tmp_path, monkeypatch):
    records = _arena_records(VOTERS)
    records[1]["winner"] = "left"
    records[5]["winner"] = "right"
    records[6]["winner"] = "left"
    whole = _same(_write(tmp_path / "a.jsonl", records), monkeypatch)
    assert isinstance(whole[0], str) and "column 'winner' has 3 values" in whole[1]
    assert whole[2] == (2, 6, 7) and whole[3] == ("left", "right")


@pytest.mark.slow  # 16 random tables, each loaded four ways
def test_battle_facts_sql_equal_pandas_on_random_tables(tmp_path, monkeypatch):
    """Random judge columns (voter ids, names, lists, numbers, blanks, whitespace, NaN, missing):
    the facts worked out in SQL lead to the same rows and label as those worked out in pandas.
    Every kind of table comes up: voters pooled, judges kept, MT-Bench's."""
    rng = np.random.default_rng(7)
    arena = [
        "arena_user_1",
        "arena_user_2",
        "\u3000arena_user_3\t",
        " arena_user_4",
        "  ",
        "",
        None,
        float("nan"),
    ]
    other = ["gpt-4", 12, ["arena_user_5", "p"], [], "expert_1", ["gpt-4", "pair-v2"]]
    kinds = []
    for case in range(16):
        pool = arena + other[: case % 7]  # a few cases of voter ids only, then more and more else
        weights = rng.dirichlet(np.ones(len(pool)))
        judges = [pool[k] for k in rng.choice(len(pool), size=9, p=weights)]
        records = _arena_records(judges)
        for k, record in enumerate(records):
            record["question_id"] = f"q{k % 4}"
        _same(_write(tmp_path / f"r{case}.jsonl", records), monkeypatch)
        facts = chatbot_arena.battle_facts(pd.DataFrame({"judge": pd.Series(judges, dtype=object)}))
        kinds.append("mt" if facts.mt_bench else "pooled" if facts.voters else "kept")
    assert min(kinds.count(k) for k in ("mt", "pooled", "kept")) >= 3, kinds


def test_judge_field_found_as_the_importer_finds_it(tmp_path, monkeypatch):
    """The judge field is matched as the importer matches columns (trimmed, any case; the first
    that matches): here ' Judge "x"' is not it, ' JUDGE ' is."""
    records = _arena_records(VOTERS)
    for k, record in enumerate(records):
        record[' Judge "x"'] = "gpt-4"
        record[" JUDGE "] = record.pop("judge")
        if k == 2:
            del record[" JUDGE "]  # a record without the field: missing in the whole frame
    verdicts, _, label, _ = _same(_write(tmp_path / "a.jsonl", records), monkeypatch)
    assert "3 voters pooled" in label


def test_records_set_aside_are_the_same_in_every_batching(tmp_path, monkeypatch):
    """Records with a value of the wrong type are set aside the same way whole, streamed and in
    batches of two (the good records around them are converted in runs that keep their record
    numbers), and the label names them."""
    records = _arena_hard_records()
    records[1]["model"] = ["m"]  # record 2: a list where the model's name belongs
    records[4]["baseline"] = 7  # record 5: a number where the baseline's name belongs
    whole = _same(_jsonl(tmp_path / "a.jsonl", records), monkeypatch)
    assert not isinstance(whole[0], str), whole
    assert "2 rows set aside for a value of the wrong type" in whole[2]
    assert "row 2, model '[\"m\"]' (a list)" in whole[2] and "row 5, baseline '7' (a number)" in whole[2]
