"""Adversarial inputs (issue 6, item 6): each gets a clear message or a correct result.

Library level first (reader, store, leaderboard, CSV downloads), then a few through the Data page
upload with AppTest. Speed on a 200 MB upload is measured by ``benchmarks/bench_upload.py``, not
asserted here (CONTRIBUTING.md: no timing assertions in tests).
"""

from __future__ import annotations

import gzip
import io
import itertools
import json
import re

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from evalcore.io import read_verdicts
from evalcore.ranking import leaderboard
from evalcore.schema import VerdictFormatError
from evalcore.store import VerdictStore
from tests.conftest import ROOT
from views._ui import safe_csv

SQL = "x'); DROP TABLE verdicts;--"
NASTY_NAMES = [
    SQL,
    'model "quoted", with comma',
    "semi;colon; SELECT 1",
    '=HYPERLINK("http://evil.example","click")',
    "+cmd|' /C calc'!A0",
    "@SUM(A1:A2)",
    "-2+3",
    "模型-α 🚀",
    "مدل‌فارسی",
    "e\u0301 combining",
    "NA",
    "null",
    "L" + "o" * 5000 + "ng",
]


def _all_pairs_csv(models, *, judge="judge", category=None, instructions=3) -> bytes:
    rows = []
    for i, (a, b) in itertools.product(range(instructions), itertools.permutations(models, 2)):
        rows.append({"instruction_id": f"i{i}", "model_a": a, "model_b": b,
                     "verdict": 1 if models.index(a) < models.index(b) else -1,
                     "judge": judge, "category": category or "c"})
    return pd.DataFrame(rows).to_csv(index=False).encode("utf-8")


def _message(data: bytes, name: str) -> str:
    with pytest.raises(VerdictFormatError) as err:
        read_verdicts(data, name=name)
    return str(err.value)


# -- names that are SQL, formulas, quotes, unicode, very long ---------------------------------

def test_hostile_names_survive_a_round_trip_through_the_store():
    data = _all_pairs_csv(NASTY_NAMES, judge=SQL, category="'; DELETE FROM dataset;--")
    table = read_verdicts(data, name="nasty.csv")
    store = VerdictStore()
    store.load(table)
    assert store.models() == tuple(sorted(NASTY_NAMES))  # unchanged, byte for byte
    assert store.judges() == (SQL,)
    assert store.categories() == ("'; DELETE FROM dataset;--",)
    # Names reach SQL only as bound parameters: filtering by them works and breaks nothing.
    assert len(store.frame(judge=SQL, category="'; DELETE FROM dataset;--")) == len(table.frame)
    assert len(store.frame(judge="x' OR '1'='1")) == 0
    counts = store.counts(judge=SQL)
    assert counts.models == tuple(sorted(NASTY_NAMES))
    n = len(NASTY_NAMES)
    assert int(counts.counts.sum()) == 3 * n * (n - 1)
    assert store.con.execute("SELECT count(*) FROM verdicts").fetchone()[0] == len(table.frame)
    assert store.name == "nasty.csv"
    # The leaderboard orders them by the verdicts (earlier in the list = wins every battle).
    board = leaderboard(counts, rounds=20, seed=0)
    assert set(board.table["model"]) == set(NASTY_NAMES)


def test_hostile_names_round_trip_through_parquet_and_jsonl(tmp_path):
    frame = pd.read_csv(io.BytesIO(_all_pairs_csv(NASTY_NAMES[:6])), dtype=str,
                        keep_default_na=False)
    parquet = tmp_path / "nasty.parquet"
    frame.to_parquet(parquet)
    jsonl = tmp_path / "nasty.jsonl"
    jsonl.write_text(frame.to_json(orient="records", lines=True, force_ascii=False))
    for path in (parquet, jsonl):
        table = read_verdicts(path)
        assert set(table.frame["model_a"]) == set(NASTY_NAMES[:6])


def test_native_battle_table_with_hostile_names():
    records = [{"question_id": "q1", "model_a": SQL, "model_b": "=1+1", "winner": "model_a",
                "judge": "arena_user_1"},
               {"question_id": "q2", "model_a": "=1+1", "model_b": SQL, "winner": "tie (bothbad)",
                "judge": "arena_user_2"}]
    table = read_verdicts(json.dumps(records).encode(), name="battles.json")
    store = VerdictStore()
    store.load(table)
    assert store.models() == tuple(sorted([SQL, "=1+1"]))


def test_safe_csv_neutralises_formulas_in_cells_headers_and_categories():
    frame = pd.DataFrame({
        "model": ['=HYPERLINK("http://evil.example","click")', "+cmd", "@SUM(A1)", "-2+3",
                  "\t=1", "plain", None],
        "rating": [1000.0, -5.0, 3.0, 4.0, 5.0, 6.0, 7.0],
    })
    frame["as_string"] = frame["model"].astype("string")
    frame["as_category"] = pd.Categorical(frame["model"])
    frame["=1+1"] = 1  # a model name used as a column header (matrices)
    back = pd.read_csv(io.BytesIO(safe_csv(frame)), dtype=str, keep_default_na=False)
    expected = ["'=HYPERLINK(\"http://evil.example\",\"click\")", "'+cmd", "'@SUM(A1)", "'-2+3",
                "'\t=1", "plain", ""]
    for column in ("model", "as_string", "as_category"):
        assert list(back[column]) == expected
    assert list(back["rating"]) == ["1000.0", "-5.0", "3.0", "4.0", "5.0", "6.0", "7.0"]  # numbers
    assert list(back.columns) == ["model", "rating", "as_string", "as_category", "'=1+1"]
    # The input frame is left untouched.
    assert frame["model"].iloc[0].startswith("=") and "=1+1" in frame.columns


# -- files that are not what they claim to be ---------------------------------------------------

def test_latin1_file_gets_a_clear_message():
    data = "instruction_id,model_a,model_b,verdict\n1,a,b,1\n2,café-7b,b,-1\n".encode("latin-1")
    message = _message(data, "latin1.csv")
    assert "not UTF-8" in message and "line 3" in message and "0xe9" in message
    assert "Save it as UTF-8" in message


@pytest.mark.parametrize("name,data", [
    ("empty.csv", b""),
    ("blank.csv", b"  \n\n \r\n"),
    ("empty.jsonl", b""),
    ("empty.json", b""),
    ("empty.parquet", b""),
    ("empty.csv.gz", gzip.compress(b"")),
])
def test_empty_files(name, data):
    assert "empty" in _message(data, name)


@pytest.mark.parametrize("name,data", [
    ("header.csv", b"instruction_id,model_a,model_b,verdict\n"),
    ("header.tsv", b"instruction_id\tmodel_a\tmodel_b\tverdict\n"),
])
def test_header_only_files(name, data):
    assert "header but no rows" in _message(data, name)


def test_header_only_parquet(tmp_path):
    path = tmp_path / "header.parquet"
    pd.DataFrame({c: pd.Series([], dtype=str) for c in
                  ("instruction_id", "model_a", "model_b", "verdict")}).to_parquet(path)
    with pytest.raises(VerdictFormatError, match="header but no rows"):
        read_verdicts(path)


def test_one_bad_label_among_many_good_rows_names_the_row():
    rng = np.random.default_rng(1)
    verdicts = rng.choice(["A>B", "B>A", "A=B", "2", "-1", ""], 20_000).astype(object)
    verdicts[12_344] = "A>>>B"  # data row 12,345
    frame = pd.DataFrame({"instruction_id": np.arange(20_000) % 500, "model_a": "m1",
                          "model_b": "m2", "verdict": verdicts})
    message = _message(frame.to_csv(index=False).encode(), "big.csv")
    assert "1 value(s) outside the verdict scale" in message
    assert "row 12345" in message and "'A>>>B'" in message


def test_wrong_column_name_lists_what_was_found():
    data = b"instruction_id,model_a,model_b,verdikt\n1,a,b,1\n"
    message = _message(data, "typo.csv")
    assert "required column(s) missing: verdict" in message and "'verdikt'" in message


def test_blank_model_name_names_the_row():
    data = b"instruction_id,model_a,model_b,verdict\n1,a,b,1\n2,   ,b,1\n"
    message = _message(data, "blank.csv")
    assert "model_a" in message and "row 2" in message


@pytest.mark.parametrize("name,data,words", [
    ("deep.json", b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    ("deep.jsonl", b'{"a":' * 100_000 + b"1" + b"}" * 100_000 + b"\n", "nested too deeply"),
    ("broken.csv.gz", b"\x1f\x8b\x08\x00garbage", "gzip stream is damaged"),
    ("picture.csv", bytes(range(256)) * 4, "not UTF-8"),
    ("fake.parquet", b"PAR1 not really", "not a readable Parquet file"),
    ("ragged.csv", b"instruction_id,model_a,model_b,verdict\n1,a,b,1\n2,a,b,1,extra\n", "line 3"),
    ("numbers.json", b"[1, 2, 3]", "no table of records"),
    ("bad.jsonl", b'{"instruction_id": 1}\n{oops\n', "line 2 is not valid JSON"),
])
def test_malformed_files_get_a_message_not_a_traceback(name, data, words):
    assert words in _message(data, name)


def test_native_files_with_damaged_insides():
    huge = {"logprobs": {"content": [{"top_logprobs": [{"token": "m", "logprob": 1e308},
                                                       {"token": "M", "logprob": "oops"}]}]}}
    records = [
        {"instruction": "a", "generator_1": "r", "generator_2": "c", "preference": 1.2,
         "raw_completion": "[" * 150_000},  # nested far too deep to parse: no logprobs
        {"instruction": "b", "generator_1": "r", "generator_2": "c", "preference": 1.9,
         "raw_completion": huge},  # a non-number and an overflowing logprob
    ]
    table = read_verdicts(json.dumps(records).encode(), name="annotations.json")
    assert "slot order not recovered" in table.format
    # Stored orientation (reference in slot A): P = 2 − 1.2 = 0.8 → +1; 2 − 1.9 = 0.1 → −1.
    assert list(table.frame["verdict"]) == [1, -1]
    games = [json.dumps({"uid": "q1", "model": "m", "baseline": "b",
                         "games": [{"score": 3}, {"score": "A>B"}]})]
    with pytest.raises(VerdictFormatError, match="'games' is not a list of games"):
        read_verdicts("\n".join(games).encode(), name="judgments.jsonl")


# -- degenerate data: the leaderboard explains instead of crashing ---------------------------

def _store(lines: list[str]) -> VerdictStore:
    store = VerdictStore()
    store.load(read_verdicts(("instruction_id,model_a,model_b,verdict\n" + "\n".join(lines)).encode(),
                             name="t.csv"))
    return store


def _all_ties_board():
    lines = [f"{i},{a},{b},0" for i in range(20) for a, b in itertools.permutations("abc", 2)]
    return leaderboard(_store(lines).counts(), rounds=200, seed=0)


def test_all_ties_judge_gives_equal_ratings_without_crashing():
    board = _all_ties_board()
    table = board.table
    assert np.allclose(table["rating"], 1000.0)
    # Every resample is all ties: a zero-width interval is not shown as an interval.
    assert table["ci_low"].isna().all() and table["ci_high"].isna().all()
    assert list(table["win_rate"]) == [0.5, 0.5, 0.5]
    assert list(table["ties"]) == [80, 80, 80]
    assert any("same rating" in n for n in board.notes)


def test_all_ties_judge_shares_the_rank():
    table = _all_ties_board().table
    assert list(table["rank"]) == [1, 1, 1]


def test_comparison_graph_in_pieces_is_explained():
    lines = ([f"{i},a,b,{1 if i % 2 else -1}" for i in range(10)]
             + [f"{i},c,d,{1 if i % 3 else -1}" for i in range(10)])
    board = leaderboard(_store(lines).counts(), rounds=50, seed=0)
    assert len(board.notes) == 2 and "Only 10 instructions" in board.notes[1]
    assert "2 pieces that never met ({a, b}; {c, d})" in board.notes[0]
    # Ranked within each piece: a and b split 5–5 and share rank 1; c beat d 6–4.
    ranks = dict(zip(board.table["model"], board.table["rank"], strict=True))
    assert ranks == {"a": 1, "b": 1, "c": 1, "d": 2}
    assert set(board.table["piece"]) == {1, 2}


def test_model_that_never_loses_is_explained():
    lines = ([f"{i},a,b,1" for i in range(10)] + [f"{i},c,a,-2" for i in range(10)]
             + [f"{i},b,c,{1 if i % 2 else -1}" for i in range(10)])
    board = leaderboard(_store(lines).counts(), rounds=50, seed=0)
    assert any(note.startswith("a lost no battle") for note in board.notes)
    top = board.table.iloc[0]
    assert top["model"] == "a" and np.isfinite(top["rating"]) and top["losses"] == 0


# -- through the Data page upload (AppTest) ----------------------------------------------------

@pytest.fixture(autouse=True)
def _own_workspace(request, monkeypatch, tmp_path):
    """Page tests save nothing, but the Data page opens the workspace file: use a private one,
    so a test run never meets another process's lock on ./workspace."""
    if request.node.name.startswith("test_page_"):
        monkeypatch.setenv("VERDICTLAB_WORKSPACE", str(tmp_path / "workspace.duckdb"))


def _app() -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    at.run()
    assert not at.exception
    return at


def _upload(at: AppTest, name: str, data: bytes, mime: str = "text/csv") -> AppTest:
    at.file_uploader(key="upload").upload(name, data, mime).run()
    assert not at.exception
    return at


def _models(at: AppTest) -> str:
    return {m.label: m.value for m in at.metric}["Models"]


def test_page_refuses_latin1_and_keeps_the_demo():
    at = _upload(_app(), "latin1.csv",
                 "instruction_id,model_a,model_b,verdict\n1,café,b,1\n".encode("latin-1"))
    errors = " ".join(e.value for e in at.error)
    assert "not loaded" in errors and "not UTF-8" in errors and "still loaded" in errors
    assert _models(at) == "20"


def test_page_refuses_a_header_only_file():
    at = _upload(_app(), "header.csv", b"instruction_id,model_a,model_b,verdict\n")
    errors = " ".join(e.value for e in at.error)
    assert "header but no rows" in errors and _models(at) == "20"


def test_page_loads_hostile_names():
    names = [SQL, '=HYPERLINK("http://evil.example","x")', "模型-α 🚀"]
    at = _upload(_app(), "nasty.csv", _all_pairs_csv(names, judge="judge-1"))
    assert not at.error and _models(at) == "3"


def test_page_says_which_native_format_it_recognised():
    data = (ROOT / "tests" / "fixtures" / "native" / "mt_bench" / "gpt-4_pair.jsonl").read_bytes()
    at = _upload(_app(), "gpt-4_pair.jsonl", data, "application/json")
    assert not at.error and _models(at) == "3"
    assert any("MT-Bench GPT-4 pairwise judgments" in c.value for c in at.caption)


def test_counts_add_repeated_keys_in_place():
    from evalcore.store import counts_from_aggregate

    agg = pd.DataFrame({"instruction_id": ["i1", "i1", "i2", "i1"], "model_a": ["a", "a", "b", "a"],
                        "model_b": ["b", "b", "a", "b"], "verdict": [1, 1, -2, 0], "n": [2, 3, 1, 4]})
    counts = counts_from_aggregate(agg, judge=None)
    assert counts.counts.dtype == np.int32 and counts.counts.shape == (2, 2, 2, 5)
    assert list(counts.counts[0, 0, 1]) == [0, 0, 4, 5, 0]  # 2 + 3 calls at +1, 4 at 0
    assert list(counts.counts[1, 1, 0]) == [1, 0, 0, 0, 0]
    assert int(counts.counts.sum()) == 10


def _hostile_upload() -> AppTest:
    names = [SQL, '=HYPERLINK("http://evil.example","x")', "模型-α 🚀", "**bold** [x](y)",
             "L" + "o" * 3000 + "ng"]
    rows = [{"instruction_id": f"i{i}", "model_a": a, "model_b": b,
             "verdict": (names.index(a) * 3 + names.index(b) + i) % 5 - 2,
             "judge": SQL if i % 2 else "<b>j2</b>", "category": "=cat" if i % 3 else "c",
             "human": (1, 0, -1, "")[i % 4], "length_a": 100 + i, "length_b": 200}
            for i, (a, b) in itertools.product(range(6), itertools.permutations(names, 2))]
    at = _upload(_app(), "nasty.csv", pd.DataFrame(rows).to_csv(index=False).encode())
    assert _models(at) == "5"
    return at


#: Pages known to crash on the hostile table (none now; kept so a regression is named here).
KNOWN_CRASHES: set[str] = set()


def test_every_page_opens_on_hostile_names():
    """Names that are SQL, formulas, markdown and very long reach every page without a crash."""
    at = _hostile_upload()
    pages = sorted(p.name for p in (ROOT / "views").glob("*.py") if not p.name.startswith("_"))
    assert "leaderboard.py" in pages
    for page in pages:
        if page in KNOWN_CRASHES:
            continue
        at.switch_page(f"views/{page}").run()
        assert not at.exception, (page, [e.value for e in at.exception])


def test_overview_page_opens_on_hostile_names():
    at = _hostile_upload()
    at.switch_page("views/overview.py").run()
    assert not at.exception


def test_page_shows_hostile_names_literally():
    link = "[click](http://evil.example)"
    data = _all_pairs_csv(["a", "b"], judge=link)
    at = _upload(_app(), "names.csv", data)
    shown = [m.value for m in at.markdown] + [c.value for c in at.caption]
    # Inside an inline code span the text is shown verbatim: that is the safe rendering.
    outside_code = [re.sub(r"(`+) .*? \1", "", text) for text in shown]
    assert any(link in text for text in shown)  # the name is shown …
    assert not any(link in text for text in outside_code)  # … but never as live markdown
    bad = b"instruction_id,model_a,model_b,verdict\n1,a,b," + link.encode() + b"\n"
    at = _upload(at, "bad.csv", bad)
    assert at.error and not any(link in e.value for e in at.error)
