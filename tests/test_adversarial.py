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
import os
import re

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from evalcore.ranking import leaderboard
from evalcore.schema import VerdictFormatError
from evalcore.store.store import VerdictStore, read_verdicts
from tests.conftest import OPEN_TABS, ROOT, new_app, open_tab
from ui import safe_csv

#: The small copy of the demo (the pages open on uploads of hostile files; the demo only has to be there).
pytestmark = pytest.mark.usefixtures("small_demo")

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
        rows.append(
            {
                "instruction_id": f"i{i}",
                "model_a": a,
                "model_b": b,
                "verdict": 1 if models.index(a) < models.index(b) else -1,
                "judge": judge,
                "category": category or "c",
            }
        )
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
    frame = pd.read_csv(io.BytesIO(_all_pairs_csv(NASTY_NAMES[:6])), dtype=str, keep_default_na=False)
    parquet = tmp_path / "nasty.parquet"
    frame.to_parquet(parquet)
    jsonl = tmp_path / "nasty.jsonl"
    jsonl.write_text(frame.to_json(orient="records", lines=True, force_ascii=False))
    for path in (parquet, jsonl):
        table = read_verdicts(path)
        assert set(table.frame["model_a"]) == set(NASTY_NAMES[:6])


def test_native_battle_table_with_hostile_names():
    records = [
        {
            "question_id": "q1",
            "model_a": SQL,
            "model_b": "=1+1",
            "winner": "model_a",
            "judge": "arena_user_1",
        },
        {
            "question_id": "q2",
            "model_a": "=1+1",
            "model_b": SQL,
            "winner": "tie (bothbad)",
            "judge": "arena_user_2",
        },
    ]
    table = read_verdicts(json.dumps(records).encode(), name="battles.json")
    store = VerdictStore()
    store.load(table)
    assert store.models() == tuple(sorted([SQL, "=1+1"]))


def test_safe_csv_neutralises_formulas_in_cells_headers_and_categories():
    frame = pd.DataFrame(
        {
            "model": [
                '=HYPERLINK("http://evil.example","click")',
                "+cmd",
                "@SUM(A1)",
                "-2+3",
                "\t=1",
                "plain",
                None,
            ],
            "rating": [1000.0, -5.0, 3.0, 4.0, 5.0, 6.0, 7.0],
        }
    )
    frame["as_string"] = frame["model"].astype("string")
    frame["as_category"] = pd.Categorical(frame["model"])
    frame["=1+1"] = 1  # a model name used as a column header (matrices)
    back = pd.read_csv(io.BytesIO(safe_csv(frame)), dtype=str, keep_default_na=False)
    expected = [
        '\'=HYPERLINK("http://evil.example","click")',
        "'+cmd",
        "'@SUM(A1)",
        "'-2+3",
        "'\t=1",
        "plain",
        "",
    ]
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


@pytest.mark.parametrize(
    "name,data",
    [
        ("empty.csv", b""),
        ("blank.csv", b"  \n\n \r\n"),
        ("empty.jsonl", b""),
        ("empty.json", b""),
        ("empty.parquet", b""),
        ("empty.csv.gz", gzip.compress(b"", mtime=0)),  # fixed bytes: the same test id in every worker
    ],
)
def test_empty_files(name, data):
    assert "empty" in _message(data, name)


@pytest.mark.parametrize(
    "name,data",
    [
        ("header.csv", b"instruction_id,model_a,model_b,verdict\n"),
        ("header.tsv", b"instruction_id\tmodel_a\tmodel_b\tverdict\n"),
    ],
)
def test_header_only_files(name, data):
    assert "header but no rows" in _message(data, name)


def test_header_only_parquet(tmp_path):
    path = tmp_path / "header.parquet"
    pd.DataFrame(
        {c: pd.Series([], dtype=str) for c in ("instruction_id", "model_a", "model_b", "verdict")}
    ).to_parquet(path)
    with pytest.raises(VerdictFormatError, match="header but no rows"):
        read_verdicts(path)


def test_one_bad_label_among_many_good_rows_names_the_row():
    rng = np.random.default_rng(1)
    verdicts = rng.choice(["A>B", "B>A", "A=B", "2", "-1", ""], 20_000).astype(object)
    verdicts[12_344] = "A>>>B"  # data row 12,345
    frame = pd.DataFrame(
        {"instruction_id": np.arange(20_000) % 500, "model_a": "m1", "model_b": "m2", "verdict": verdicts}
    )
    message = _message(frame.to_csv(index=False).encode(), "big.csv")
    assert "1 value outside the verdict scale" in message
    assert "row 12345" in message and "'A>>>B'" in message


def test_wrong_column_name_lists_what_was_found():
    data = b"instruction_id,model_a,model_b,verdikt\n1,a,b,1\n"
    message = _message(data, "typo.csv")
    assert "required column missing: verdict" in message and "'verdikt'" in message


def test_blank_model_name_names_the_row():
    data = b"instruction_id,model_a,model_b,verdict\n1,a,b,1\n2,   ,b,1\n"
    message = _message(data, "blank.csv")
    assert "model_a" in message and "row 2" in message


@pytest.mark.parametrize(
    "name,data,words",
    [
        ("deep.json", b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        ("deep.jsonl", b'{"a":' * 100_000 + b"1" + b"}" * 100_000 + b"\n", "nested too deeply"),
        ("broken.csv.gz", b"\x1f\x8b\x08\x00garbage", "gzip stream is damaged"),
        ("picture.csv", bytes(range(256)) * 4, "not UTF-8"),
        ("fake.parquet", b"PAR1 not really", "not a readable Parquet file"),
        ("ragged.csv", b"instruction_id,model_a,model_b,verdict\n1,a,b,1\n2,a,b,1,extra\n", "line 3"),
        ("numbers.json", b"[1, 2, 3]", "no table of records"),
        ("bad.jsonl", b'{"instruction_id": 1}\n{oops\n', "line 2 is not valid JSON"),
    ],
)
def test_malformed_files_get_a_message_not_a_traceback(name, data, words):
    assert words in _message(data, name)


def test_native_files_with_damaged_insides():
    huge = {
        "logprobs": {
            "content": [
                {"top_logprobs": [{"token": "m", "logprob": 1e308}, {"token": "M", "logprob": "oops"}]}
            ]
        }
    }
    records = [
        {
            "instruction": "a",
            "generator_1": "r",
            "generator_2": "c",
            "preference": 1.2,
            "raw_completion": "[" * 150_000,
        },  # nested far too deep to parse: no logprobs
        {
            "instruction": "b",
            "generator_1": "r",
            "generator_2": "c",
            "preference": 1.9,
            "raw_completion": huge,
        },  # a non-number and an overflowing logprob
    ]
    table = read_verdicts(json.dumps(records).encode(), name="annotations.json")
    assert "slot order not recovered" in table.format
    # Stored orientation (reference in slot A): P = 2 − 1.2 = 0.8 → +1; 2 − 1.9 = 0.1 → −1.
    assert list(table.frame["verdict"]) == [1, -1]
    games = [
        json.dumps({"uid": "q1", "model": "m", "baseline": "b", "games": [{"score": 3}, {"score": "A>B"}]})
    ]
    with pytest.raises(VerdictFormatError, match="'games' is not a list of games"):
        read_verdicts("\n".join(games).encode(), name="judgments.jsonl")


# -- degenerate data: the leaderboard explains instead of crashing ---------------------------


def _store(lines: list[str]) -> VerdictStore:
    store = VerdictStore()
    store.load(
        read_verdicts(("instruction_id,model_a,model_b,verdict\n" + "\n".join(lines)).encode(), name="t.csv")
    )
    return store


def _all_ties_board():
    # 40 instructions: above the few-instructions threshold, where intervals are not widened
    lines = [f"{i},{a},{b},0" for i in range(40) for a, b in itertools.permutations("abc", 2)]
    return leaderboard(_store(lines).counts(), rounds=200, seed=0)


def test_all_ties_judge_gives_equal_ratings_without_crashing():
    board = _all_ties_board()
    table = board.table
    assert np.allclose(table["rating"], 1000.0)
    # Every resample is all ties: a zero-width interval is not shown as an interval.
    assert table["ci_low"].isna().all() and table["ci_high"].isna().all()
    assert list(table["win_rate"]) == [0.5, 0.5, 0.5]
    assert list(table["ties"]) == [160, 160, 160]
    assert any("same rating" in n for n in board.notes)


def test_all_ties_judge_shares_the_rank():
    table = _all_ties_board().table
    assert list(table["rank"]) == [1, 1, 1]


def test_comparison_graph_in_pieces_is_explained():
    lines = [f"{i},a,b,{1 if i % 2 else -1}" for i in range(10)] + [
        f"{i},c,d,{1 if i % 3 else -1}" for i in range(10)
    ]
    board = leaderboard(_store(lines).counts(), rounds=50, seed=0)
    assert len(board.notes) == 3 and "Only 10 instructions" in board.notes[2]
    assert "Every model was judged on fewer than 30 instructions" in board.notes[1]
    assert "2 pieces that never met ({a, b}; {c, d})" in board.notes[0]
    # Ranked within each piece: a and b split 5–5 and share rank 1; c beat d 6–4.
    ranks = dict(zip(board.table["model"], board.table["rank"], strict=True))
    assert ranks == {"a": 1, "b": 1, "c": 1, "d": 2}
    assert set(board.table["piece"]) == {1, 2}


def test_model_that_never_loses_is_explained():
    lines = (
        [f"{i},a,b,1" for i in range(10)]
        + [f"{i},c,a,-2" for i in range(10)]
        + [f"{i},b,c,{1 if i % 2 else -1}" for i in range(10)]
    )
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
    at = new_app(timeout=90)
    at.run()
    assert not at.exception
    return at


def _upload(at: AppTest, name: str, data: bytes, mime: str = "text/csv") -> AppTest:
    at.file_uploader(key="upload").upload(name, data, mime).run()
    assert not at.exception
    return at


def _models(at: AppTest) -> str:
    return {m.label: m.value for m in at.metric}["Models"]


@pytest.mark.app
def test_page_refuses_latin1_and_keeps_the_demo():
    at = _upload(
        _app(), "latin1.csv", "instruction_id,model_a,model_b,verdict\n1,café,b,1\n".encode("latin-1")
    )
    errors = " ".join(e.value for e in at.error)
    assert "not loaded" in errors and "not UTF-8" in errors and "still loaded" in errors
    assert _models(at) == "20"


@pytest.mark.app
def test_page_refuses_a_header_only_file():
    at = _upload(_app(), "header.csv", b"instruction_id,model_a,model_b,verdict\n")
    errors = " ".join(e.value for e in at.error)
    assert "header but no rows" in errors and _models(at) == "20"


@pytest.mark.app
def test_page_loads_hostile_names():
    names = [SQL, '=HYPERLINK("http://evil.example","x")', "模型-α 🚀"]
    at = _upload(_app(), "nasty.csv", _all_pairs_csv(names, judge="judge-1"))
    assert not at.error and _models(at) == "3"


@pytest.mark.app
def test_page_says_which_native_format_it_recognised():
    data = (ROOT / "tests" / "fixtures" / "native" / "mt_bench" / "gpt-4_pair.jsonl").read_bytes()
    at = _upload(_app(), "gpt-4_pair.jsonl", data, "application/json")
    assert not at.error and _models(at) == "3"
    assert any("MT-Bench GPT-4 pairwise judgments" in c.value for c in at.caption)


def test_counts_add_repeated_keys_in_place():
    from evalcore.store.store import counts_from_aggregate

    agg = pd.DataFrame(
        {
            "instruction_id": ["i1", "i1", "i2", "i1"],
            "model_a": ["a", "a", "b", "a"],
            "model_b": ["b", "b", "a", "b"],
            "verdict": [1, 1, -2, 0],
            "n": [2, 3, 1, 4],
        }
    )
    counts = counts_from_aggregate(agg, judge=None)
    assert counts.counts.dtype == np.int32 and counts.counts.shape == (2, 2, 2, 5)
    assert list(counts.counts[0, 0, 1]) == [0, 0, 4, 5, 0]  # 2 + 3 calls at +1, 4 at 0
    assert list(counts.counts[1, 1, 0]) == [1, 0, 0, 0, 0]
    assert int(counts.counts.sum()) == 10


def _hostile_upload() -> AppTest:
    names = [
        SQL,
        '=HYPERLINK("http://evil.example","x")',
        "模型-α 🚀",
        "**bold** [x](y)",
        "L" + "o" * 3000 + "ng",
    ]
    rows = [
        {
            "instruction_id": f"i{i}",
            "model_a": a,
            "model_b": b,
            "verdict": (names.index(a) * 3 + names.index(b) + i) % 5 - 2,
            "judge": SQL if i % 2 else "<b>j2</b>",
            "category": "=cat" if i % 3 else "c",
            "human": (1, 0, -1, "")[i % 4],
            "length_a": 100 + i,
            "length_b": 200,
        }
        for i, (a, b) in itertools.product(range(6), itertools.permutations(names, 2))
    ]
    at = _upload(_app(), "nasty.csv", pd.DataFrame(rows).to_csv(index=False).encode())
    assert _models(at) == "5"
    return at


#: Pages known to crash on the hostile table (none now; kept so a regression is named here).
KNOWN_CRASHES: set[str] = set()


@pytest.mark.app
def test_every_page_opens_on_hostile_names():
    """Names that are SQL, formulas, markdown and very long reach every page without a crash."""
    at = _hostile_upload()
    pages = sorted(p.name for p in (ROOT / "pages").glob("*.py"))
    assert "leaderboard.py" in pages
    for page in pages:
        if page in KNOWN_CRASHES:
            continue
        at.switch_page(f"pages/{page}").run()
        assert not at.exception, (page, [e.value for e in at.exception])


@pytest.mark.app
def test_overview_page_opens_on_hostile_names():
    at = _hostile_upload()
    at.switch_page("pages/overview.py").run()
    assert not at.exception


@pytest.mark.app
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


# -- user text is text on every face (issue 11, item 2) ----------------------------------------

#: Names that are markup on some face: Markdown links and images, a bare URL, www and e-mail
#: autolinks, Streamlit's coloured text and icons, HTML that Plotly or a browser would render.
HOSTILE = [
    "[top](https://evil.example/top)",
    "![pixel](https://evil.example/pixel.png)",
    "https://evil.example/bare",
    "www.evil.example",
    "me@evil.example",
    '<a href="https://evil.example/a">a</a>',
    "<img src=https://evil.example/i.png>",
    "<span style='font-size:90px'>big</span>",
    ":red[alarm] :material/home: :smile:",
    "**bold** _em_ `code` $x^2$ ~~s~~ --dash--",
]

#: Markdown that would render as a link, an image, HTML or an autolink (a preceding backslash or
#: an inserted U+2060 means the character is text). The app's own :material/…: icons are allowed.
_LIVE = re.compile(
    r"(?<!\\)\[[^\]]*(?<!\\)\]\("  # [text](url)
    r"|https?://|(?<![\w\u2060])www\.|\w@\w"  # autolinks: bare URL, www., e-mail
    r"|(?<!\\)<[A-Za-z/]",  # raw HTML
    re.IGNORECASE,
)


def _live_markup(source: str) -> list[str]:
    """The pieces of Markdown ``source`` that would not render as text (code spans are text)."""
    outside_code = re.sub(r"(`+).*?\1", "", source)
    return _LIVE.findall(outside_code)


def _reader_sees(source: str) -> str:
    return re.sub(r"\\(.)", r"\1", source).replace("\u2060", "")


@pytest.mark.parametrize("name", HOSTILE + NASTY_NAMES[:10])
def test_markdown_escape_leaves_no_live_markup_and_loses_nothing(name):
    from evalcore.text import markdown

    escaped = markdown(name)
    assert not _live_markup(escaped), (name, escaped)
    assert _reader_sees(escaped) == name  # a reader sees every character as typed


def test_markdown_escape_keeps_plain_prose_readable():
    from evalcore.text import markdown

    message = "file.csv: rows 3, 7 have no verdict (found 'x'); see UTF-8."
    assert markdown(message) == message


@pytest.mark.parametrize("name", HOSTILE)
def test_plotly_labels_never_carry_a_live_tag(name):
    from evalcore.text import plotly, plotly_sanitize

    for text in (plotly(name), plotly_sanitize(name), plotly_sanitize(plotly(name))):
        assert not re.search(r"<(?!/?(?:br|b|i|em|sup|sub|extra)\s*/?>)", text), text
    assert plotly_sanitize(plotly(name)) == plotly(name)  # idempotent over escaped labels
    assert plotly_sanitize("<b>%{y}</b><br>x<extra></extra>") == "<b>%{y}</b><br>x<extra></extra>"


def _strings(value, out):
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for v in value.values():
            _strings(v, out)
    elif isinstance(value, list | tuple):
        for v in value:
            _strings(v, out)
    elif isinstance(value, np.ndarray) and value.dtype.kind in "OU":
        for v in value.ravel().tolist():
            _strings(v, out)
    return out


def _live_tags(fig) -> list[str]:
    texts = _strings(fig.to_plotly_json(), [])
    return [t for t in texts if re.search(r"<(?:a|img|span|iframe|script)\b", t, re.IGNORECASE)]


def test_style_sanitises_every_text_of_any_figure():
    """The shared style() escapes links, styles and images wherever a builder put user text."""
    import plotly.graph_objects as go

    from evalcore.plots.common import style

    bad = HOSTILE[5]
    fig = go.Figure(
        go.Bar(
            x=[bad, "b"],
            y=[1, 2],
            name=bad,
            text=[bad, "t"],
            hovertext=[bad, "h"],
            customdata=np.array([[bad, "1"], ["x", "2"]]),
            hovertemplate=f"<b>{bad}</b> %{{y}}<extra></extra>",
        )
    )
    fig.add_hline(y=1, annotation_text=bad)
    fig.update_xaxes(title=bad, categoryarray=[bad, "b"], tickvals=[bad, "b"], ticktext=[bad, "b"])
    fig.update_layout(legend_title_text=bad)
    style(fig, title=f"Judge {bad}")
    assert not _live_tags(fig)
    assert fig.layout.xaxis.categoryarray[0] == fig.data[0].x[0]  # the order still matches
    assert "<b>" in fig.data[0].hovertemplate and "<extra></extra>" in fig.data[0].hovertemplate


def _hostile_store():
    rows = [
        {
            "instruction_id": f"i{i}",
            "model_a": a,
            "model_b": b,
            "verdict": (HOSTILE.index(a) - HOSTILE.index(b) + i) % 5 - 2,
            "judge": HOSTILE[0],
            "category": HOSTILE[2],
        }
        for i, (a, b) in itertools.product(range(4), itertools.permutations(HOSTILE, 2))
    ]
    table = read_verdicts(
        pd.DataFrame(rows).to_csv(index=False).encode(), name="https://evil.example/[x](y).csv"
    )
    store = VerdictStore()
    store.load(table)
    return store


def test_leaderboard_and_summary_figures_show_names_as_text():
    from evalcore.plots.leaderboard import forest_plot, win_rate_heatmap
    from evalcore.plots.summary import coverage_heatmap

    store = _hostile_store()
    board = leaderboard(store.counts(judge=HOSTILE[0]), rounds=20, seed=0)
    for fig in (forest_plot(board), win_rate_heatmap(board), coverage_heatmap(store.summary())):
        assert not _live_tags(fig)
        shown = set(_strings(fig.to_plotly_json()["data"], []))
        # every name is drawn, escaped so Plotly shows it as typed
        assert {html_escape(n) for n in HOSTILE} <= shown


def html_escape(text: str) -> str:
    import html

    return html.escape(text, quote=False)


def _page_markdown(at: AppTest) -> list[str]:
    """Every Markdown source a page rendered: text, captions, alerts, headers, metric values."""
    sources = [
        e.value
        for kind in (
            "markdown",
            "caption",
            "error",
            "warning",
            "info",
            "success",
            "title",
            "header",
            "subheader",
        )
        for e in getattr(at, kind)
    ]
    for m in at.metric:
        sources += [m.value, m.proto.delta]
    return [s for s in sources if s]


#: Pages of other helpers that still pass user text to Streamlit unescaped (each to be switched
#: to the ui helpers); a page listed here that passes makes the test fail (strict).
UNESCAPED_PAGES: set[str] = set()


@pytest.mark.parametrize(  # not `page`: that name is pytest-playwright's browser page
    "page_file", sorted(p.name for p in (ROOT / "pages").glob("*.py") if not p.name.startswith("_"))
)
@pytest.mark.app
# hostile names make rare models: a numerical warning here was a square root of a negative
# variance in the per-category ratings (an interval of NaN)
@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_no_page_renders_a_hostile_name_as_markup(page_file, monkeypatch, tmp_path):
    monkeypatch.setenv("VERDICTLAB_WORKSPACE", str(tmp_path / "workspace.duckdb"))
    rows = [
        {
            "instruction_id": f"i{i}",
            "model_a": a,
            "model_b": b,
            "verdict": (HOSTILE.index(a) * 2 + HOSTILE.index(b) + i) % 5 - 2,
            "judge": HOSTILE[0] if i % 2 else HOSTILE[3],
            "category": HOSTILE[2] if i % 3 else "c",
            "human": (1, 0, -1, "")[i % 4],
        }
        for i, (a, b) in itertools.product(range(6), itertools.permutations(HOSTILE[:6], 2))
    ]
    at = _upload(_app(), "https://evil.example/[f](g).csv", pd.DataFrame(rows).to_csv(index=False).encode())
    at.switch_page(f"pages/{page_file}").run()
    assert not at.exception
    live = {s[:80]: _live_markup(s) for s in _page_markdown(at) if _live_markup(s)}
    key = OPEN_TABS.get(f"pages/{page_file}")
    for label in [t.label for t in at.tabs][1:] if key else []:  # a page drawing its open tab only
        open_tab(at, key, label)
        live |= {s[:80]: _live_markup(s) for s in _page_markdown(at) if _live_markup(s)}
    if page_file in UNESCAPED_PAGES:
        if live:
            pytest.xfail(f"{page_file} still renders user text as markup: {live}")
        pytest.fail(f"{page_file} is listed in UNESCAPED_PAGES but renders no markup: remove it")
    assert not live, live


# -- every error in words (issue 11, item 4) -------------------------------------------------


@pytest.mark.app
def test_page_wrapper_shows_errors_in_words_never_an_exception_box():
    def script():
        import numpy as np
        import streamlit as st

        import ui as _ui
        from evalcore.errors import ResourceLimitError, UsageError

        kind = st.session_state.get("kind", "usage")
        exc = {
            "usage": UsageError("no model named [top](https://evil.example/top)"),
            "memory": ResourceLimitError("too big"),
            "numpy": MemoryError("Unable to allocate 22.5 TiB"),
            "bug": TypeError("'int' object is not iterable"),
        }[kind]
        with _ui.page("Errors"):
            raise exc
        np.zeros(1)

    for kind, words in (
        ("usage", "no model named"),
        ("memory", "too big"),
        ("numpy", "more memory than one request"),
        ("bug", "unexpected problem"),
    ):
        at = AppTest.from_function(script, default_timeout=30)
        at.session_state["kind"] = kind
        at.run()
        assert not at.exception, kind
        (box,) = at.error
        assert words in _reader_sees(box.value), (kind, box.value)
        assert not _live_markup(box.value)


@pytest.mark.app
def test_page_wrapper_lets_stop_and_rerun_through():
    def script():
        import streamlit as st

        import ui as _ui

        with _ui.page("Stops"):
            st.write("before")
            st.stop()
        st.write("after the page")

    at = AppTest.from_function(script, default_timeout=30).run()
    assert not at.exception and not at.error
    shown = [m.value for m in at.main.markdown]
    assert "before" in shown and "after the page" not in shown


def _cli(argv, capsys):
    from evalcore.cli import main

    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _one_line(err: str) -> str:
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


def test_cli_reads_a_file_whose_name_is_not_utf8(tmp_path, capsys):
    data = _all_pairs_csv(["a", "b", "c"])
    path = tmp_path.joinpath(os.fsdecode(b"bad\xff name.csv"))
    path.write_bytes(data)
    code, out, err = _cli(["summary", path], capsys)
    assert code == 0, err
    assert "bad\ufffd name.csv" in out


def test_cli_unknown_category_in_rank_says_so(tmp_path, capsys):
    path = tmp_path / "v.csv"
    path.write_bytes(_all_pairs_csv(["a", "b", "c"], category="code"))
    code, _, err = _cli(["rank", path, "--category", "poetry"], capsys)
    assert code == 2
    assert "category 'poetry' is not in the file; its categories are: code" in _one_line(err)


@pytest.mark.parametrize(
    "argv, words",
    [
        (
            ["rank", "{file}", "--bootstrap", "10000000"],
            "--bootstrap: got 10000000; must be a whole number from 0 to 100,000",
        ),
        (
            ["report", "{file}", "--bootstrap", "10000000"],
            "--bootstrap: got 10000000; must be a whole number from 0 to 100,000",
        ),
        (
            ["power-sim", "{file}", "--simulations", "100000000"],
            "--simulations: got 100000000; must be a whole number from 1 to 1,000,000",
        ),
        (
            ["power-sim", "{file}", "--steps", "100000000"],
            "--steps: got 100000000; must be a whole number from 1 to 10,000",
        ),
    ],
)
def test_cli_refuses_parameters_that_multiply_memory(tmp_path, capsys, argv, words):
    path = tmp_path / "v.csv"
    path.write_bytes(_all_pairs_csv(["a", "b", "c"]))
    code, _, err = _cli([a.replace("{file}", str(path)) for a in argv], capsys)
    assert code == 2 and words in _one_line(err)


def test_cli_power_exact_with_a_tiny_edge_is_refused_with_the_limit(capsys, monkeypatch):
    # the exact search is bounded by a documented size (sign_test.MAX_EXACT_DISCORDANT), before
    # any memory is asked for
    monkeypatch.setenv("VERDICTLAB_MEMORY_BUDGET_MB", "256")
    code, _, err = _cli(["power", "--edge", "0.0001", "--exact"], capsys)
    assert code == 2
    line = _one_line(err)
    assert "searched up to 2,000,000 discordant samples" in line and "without --exact" in line


def test_cli_budget_variable_that_is_not_a_number(capsys, monkeypatch):
    monkeypatch.setenv("VERDICTLAB_MEMORY_BUDGET_MB", "lots")
    code, _, err = _cli(["power", "--edge", "0.0001", "--exact"], capsys)
    assert code == 2 and "VERDICTLAB_MEMORY_BUDGET_MB must be a whole number" in _one_line(err)


@pytest.mark.parametrize("content", [b"[1, 2, 3]", b"5", b'"text"', b"null"])
def test_cli_human_ranking_that_is_not_a_table_is_one_line(tmp_path, capsys, content):
    verdicts = tmp_path / "v.csv"
    verdicts.write_bytes(_all_pairs_csv(["a", "b", "c"]))
    ranking = tmp_path / "ranking.json"
    ranking.write_bytes(content)
    code, _, err = _cli(["anchors", verdicts, "--human-ranking", ranking], capsys)
    assert code in (1, 2)
    _one_line(err)


def test_cli_unforeseen_error_is_one_line_and_debug_shows_it(capsys, monkeypatch, tmp_path):
    from evalcore.store.store import VerdictStore

    def broken(self):
        raise KeyError("internal")

    # a fault inside the library, below the command (the command table holds its own handlers)
    monkeypatch.setattr(VerdictStore, "summary", broken)
    path = tmp_path / "v.csv"
    path.write_bytes(_all_pairs_csv(["a", "b"]))
    code, _, err = _cli(["summary", path], capsys)
    assert code == 1 and "unexpected problem" in _one_line(err) and "KeyError" in err
    monkeypatch.setenv("VERDICTLAB_DEBUG", "1")
    with pytest.raises(KeyError):
        _cli(["summary", path], capsys)


def test_cli_usage_error_is_an_evalcore_error():
    from evalcore.cli import UsageError
    from evalcore.errors import EvalcoreError

    assert issubclass(UsageError, EvalcoreError) and issubclass(UsageError, ValueError)


# -- the memory budget (issue 11, item 1) ------------------------------------------------------


def test_budget_default_and_variable(monkeypatch):
    from evalcore import limits
    from evalcore.errors import ResourceLimitError, UsageError

    monkeypatch.delenv(limits.ENV_VAR, raising=False)
    assert limits.budget_bytes() == limits.DEFAULT_BUDGET_MB * 2**20
    monkeypatch.setenv(limits.ENV_VAR, "64")
    assert limits.budget_bytes() == 64 * 2**20
    limits.check_bytes("a small table", 63 * 2**20)
    with pytest.raises(
        ResourceLimitError,
        match=r"A big table would need 1\.0 GiB.*64\.0 MiB.*"
        r"Use a sample\. An administrator",
    ):
        limits.check_bytes("a big table", 2**30, advice="Use a sample.")
    with pytest.raises(MemoryError):  # callers that catch MemoryError see it too
        limits.check_bytes("a big table", 2**30)
    for bad in ("8", "-1", "2 GB"):
        monkeypatch.setenv(limits.ENV_VAR, bad)
        with pytest.raises(UsageError, match=limits.ENV_VAR):
            limits.budget_bytes()


def test_rounds_and_simulations_bounds():
    from evalcore import limits
    from evalcore.errors import ResourceLimitError, UsageError

    assert limits.check_rounds(1000, models=20) == 1000
    with pytest.raises(UsageError, match="rounds must be between 0 and 100,000"):
        limits.check_rounds(10_000_000)
    with pytest.raises(ResourceLimitError, match="100,000 bootstrap rounds for 2,000 models"):
        limits.check_rounds(100_000, models=2000)
    with pytest.raises(UsageError, match="simulations must be between 1 and 1,000,000"):
        limits.check_simulations(100_000_000)
