"""The Verdicts page's words (evalcore.present.verdicts) and rendered-but-defused Markdown
for prompts, answers and the judge's reasoning (evalcore.text.markdown_document)."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from evalcore.errors import UsageError
from evalcore.present import verdict_words
from evalcore.present import verdicts as show
from evalcore.text import WORD_JOINER, markdown_document
from evalcore.verdicts import VerdictCall, VerdictCase, VerdictFilter, VerdictPage
from tests.test_adversarial import HOSTILE, _live_markup, _reader_sees
from tests.test_text_markdown import live_parts

#: Texts an answer or a judge may contain that must stay text: HTML that runs, Markdown links
#: and images (inline, reference-style, autolinks), maths, Streamlit directives.
HOSTILE_TEXT = [
    *HOSTILE,
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    '<iframe src="https://evil.example"></iframe>',
    "[ref][1]\n\n[1]: https://evil.example/ref",
    "<https://evil.example/auto>",
    "$$\\href{https://evil.example}{x}$$",
    "\\[not escaped](https://evil.example/bs)",
    "| a | `b | [x](https://evil.example/t) | c` |\n|---|---|---|",
    "`a\n\n[x](https://evil.example/para) b`",
    "``` a`b\n[x](https://evil.example/fence)",
    "> quote [x](https://evil.example/q)",
    "&lt;script&gt; &#91;x&#93;(https://evil.example/ent)",
]


def _outside_fences(source: str) -> str:
    """``source`` without the fenced code blocks that markdown_document keeps verbatim."""
    out, fence = [], None
    for line in source.split("\n"):
        m = re.match(r"^ {0,3}(`{3,}|~{3,})", line)
        if fence is None and m and not (m.group(1)[0] == "`" and "`" in line[m.end() :]):
            fence = m.group(1)
        elif fence is not None:
            if m and m.group(1)[0] == fence[0] and not line.strip().lstrip(fence[0]):
                fence = None
        else:
            out.append(line)
    return "\n".join(out)


@pytest.mark.parametrize("text", HOSTILE_TEXT)
def test_documents_carry_no_live_link_image_or_html(text):
    source = markdown_document(text)
    assert not _live_markup(_outside_fences(source)), (text, source)
    assert not live_parts(source), (text, source)  # a CommonMark parser's view (tests/test_text_markdown.py)
    words = re.findall(r"[A-Za-z]{4,}", text)
    assert all(word in _reader_sees(source) for word in words)  # every word is there to read


def test_documents_keep_their_formatting():
    text = "Here is **bold**, _em_ and a list:\n\n- one\n- two\n\n```python\nx = a[0] < b\n```\n"
    source = markdown_document(text)
    assert "**bold**" in source and "_em_" in source and "\n- one\n- two\n" in source
    assert "```python\nx = a[0] < b\n```" in source  # code is verbatim, no backslashes
    assert markdown_document("use `a[0] <b>` here") == "use ` a[0] <b> ` here"


def test_headings_become_bold_lines():
    assert markdown_document("## Plan ##\ntext") == "**Plan**\n\ntext"
    assert markdown_document("Title\n===") == "**Title**"
    assert markdown_document("#hashtag") == "\\#hashtag"  # not a heading in CommonMark


def test_a_fence_never_hides_prose_after_it_closes():
    source = markdown_document("```\ncode [a](b)\n```\n[x](https://evil.example)")
    assert source.endswith("\\[x\\]\\(https\\:" + WORD_JOINER + "\\/\\/evil\\.example\\)")
    assert "code [a](b)" in source


def test_a_long_text_shows_its_start_and_offers_the_rest_as_plain_text():
    text = "**start** " + "word " * 3000 + "\r\n[end](https://evil.example)"
    shown = show.document(text)
    assert shown.startswith("**start**") and "end" not in shown
    assert shown.endswith("*The first 10,000 of 15,038 characters are shown.*")
    assert show.show_all_label(text) == "Show all (15,038 characters, as plain text)"
    assert show.show_all_label("short") is None
    assert show.full_text(text).endswith("\n[end](https://evil.example)")  # for st.text, as typed


def test_verdict_words_cover_the_scale_and_refuse_others():
    assert [verdict_words.level_words(v) for v in (2, 1, 0, -1, -2, None)] == [
        "first slot much better",
        "first slot better",
        "tie",
        "second slot better",
        "second slot much better",
        "no verdict",
    ]
    with pytest.raises(UsageError, match="verdict"):
        verdict_words.level_words(3)


def _case(**over) -> VerdictCase:
    calls = (
        VerdictCall(
            row=1,
            model_a="m[1](x)",
            model_b="n",
            verdict=2,
            judge_output="A wins",
            call_id=None,
            judged_at=None,
        ),
        VerdictCall(
            row=2, model_a="n", model_b="m[1](x)", verdict=-1, judge_output=None, call_id=None, judged_at=None
        ),
    )
    base = dict(
        judge="j",
        instruction="q1",
        category=None,
        models=("m[1](x)", "n"),
        prompt="p",
        answers={"m[1](x)": "a", "n": None},
        calls=calls,
        human=-1,
        flipped=False,
        agrees_with_human=False,
    )
    return VerdictCase(**{**base, **over})


def test_case_lines_name_the_slots_and_the_winner_safely():
    case = _case()
    first, second = (show.call_line(c, k) for k, c in enumerate(case.calls, 1))
    assert first.startswith("**Order 1:** m\\[1\\](x) first, n second → **first slot much better**")
    assert first.endswith("(m\\[1\\](x) much better)")
    assert "**second slot better** (m\\[1\\](x) better)" in second
    assert not _live_markup(first + second)
    none = VerdictCall(
        row=3, model_a="n", model_b="m", verdict=None, judge_output=None, call_id=None, judged_at=None
    )
    assert show.call_line(none, 1).endswith("→ **no verdict** (the call returned none)")
    assert show.human_line(case) == "**Human label:** n better. **The judge disagrees.**"
    assert show.human_line(_case(human=None)) == "**Human label:** none for this case."
    assert show.human_line(_case(human=0, agrees_with_human=True)).endswith("a tie. The judge agrees.")
    assert verdict_words.case_flags(_case(flipped=True)) == [
        "the two orders disagree",
        "judge and human disagree",
    ]
    assert show.answer_heading(case, "n") == "**n** · second and first slot"
    assert not _live_markup(show.case_title(case) + show.answer_heading(case, "m[1](x)"))
    assert show.document(None) == "*Not in the file.*"


def _page(total: int, offset: int, n: int, *, has_text: bool = True) -> VerdictPage:
    return VerdictPage(
        cases=(_case(),) * n, total=total, offset=offset, limit=20, has_text=has_text, filter=VerdictFilter()
    )


def test_range_line_and_page_count():
    assert verdict_words.range_line(_page(1234, 20, 20)) == "Cases 21–40 of 1,234"
    assert verdict_words.range_line(_page(21, 20, 1)) == "Case 21 of 21"
    assert verdict_words.range_line(_page(0, 0, 0)) == "No case matches these filters."
    assert verdict_words.page_count(1234, 20) == 62 and verdict_words.page_count(0, 20) == 1
    with pytest.raises(UsageError, match="limit"):
        verdict_words.page_count(5, 0)


def test_a_table_without_text_says_which_columns_would_add_it():
    sentence = show.no_text_sentence(_page(5, 0, 5, has_text=False))
    assert sentence.count(".") == 1 or sentence.endswith(").")
    for column in ("prompt", "response_a", "response_b", "judge_output"):
        assert f"`{column}`" in sentence
    assert show.no_text_sentence(_page(5, 0, 5)) is None


def test_a_link_keeps_what_the_dataset_can_answer_and_warns_about_the_rest():
    got = show.filter_from_link(
        {
            "judge": "j2",
            "a": "[x](https://evil.example)",
            "b": "m",
            "verdict": "maybe",
            "flipped": "1",
            "dataset": "d",
        },
        judges=("j1", "j2"),
        models=("m", "n"),
        categories=(),
    )
    assert got.filter == VerdictFilter(judge="j2", model_b="m", flipped=True)
    assert len(got.warnings) == 2
    assert any("verdict=maybe" in w for w in got.warnings)
    assert any("is not in this dataset" in w for w in got.warnings)
    assert not any(_live_markup(w) for w in got.warnings)
    assert show.filter_from_link({}, judges=(), models=(), categories=()).filter == VerdictFilter()


def test_a_win_rate_cell_names_its_pair_by_index_not_by_label():
    """The figure's cell layer and cell_verdicts agree on every cell (an independent check: the
    drawn x/y labels of the point)."""
    from evalcore.plots.leaderboard import win_rate_heatmap
    from evalcore.ranking import leaderboard
    from evalcore.store.store import VerdictStore

    names = ["<b>x</b>", "y", "z", "never"]
    rows = [
        {"instruction_id": f"i{i}", "model_a": a, "model_b": b, "verdict": (i + k) % 5 - 2}
        for i in range(12)
        for k, (a, b) in enumerate([(names[0], "y"), ("y", "z"), ("z", names[0])])
    ]
    rows.append({"instruction_id": "i99", "model_a": "never", "model_b": "z", "verdict": 1})
    store = VerdictStore()
    store.load_bytes(pd.DataFrame(rows).to_csv(index=False).encode(), name="t.csv")
    board = leaderboard(store.counts(), rounds=0)
    fig = win_rate_heatmap(board)
    cells = fig.data[1]
    order = list(board.table["model"])
    from evalcore.text import plotly

    for x, y, data in zip(cells.x, cells.y, cells.customdata, strict=True):
        flt = show.cell_verdicts([{"customdata": list(data)}], order, "judge", None)
        assert (plotly(flt.model_a), plotly(flt.model_b)) == (y, x)
    assert len(cells.x) == 8  # six directed cells of the triangle, two of the "never" pair
    assert show.cell_verdicts([{"x": "y"}, {"customdata": [0, 0]}], order) is None
