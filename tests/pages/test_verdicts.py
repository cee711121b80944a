"""AppTest: the Verdicts page — filters from the link, paging, a table without text, hostile text,
unknown link values — on the real shapes (double-ordered demo, anchor-only, arena-like sparse,
tiny with models that never meet)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from evalcore.present import verdicts as show
from evalcore.simulate.tables import SimulationSpec, simulate, simulate_arena
from evalcore.verdicts import VerdictFilter
from tests.conftest import new_app
from tests.test_adversarial import _live_markup, _reader_sees
from tests.verdicts.test_presentation import HOSTILE_TEXT, _outside_fences

N = show.CASES_PER_PAGE  # cases on one page

#: Links, filters and paging on the small copy of the demo (compared with `small_demo_store`).
pytestmark = pytest.mark.usefixtures("small_demo")

PAGE = "pages/verdicts.py"


@pytest.fixture(autouse=True)
def _workspace(tmp_path, monkeypatch):
    monkeypatch.setenv("VERDICTLAB_WORKSPACE", str(tmp_path / "ws.duckdb"))


def _open(params: dict[str, str] | None = None) -> AppTest:
    """The page as a link's first request: a new session on the default demo."""
    at = new_app(PAGE)
    for key, value in (params or {}).items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _uploaded(frame: pd.DataFrame, name: str = "t.csv") -> AppTest:
    at = new_app()
    at.run()
    at.file_uploader(key="upload").upload(name, frame.to_csv(index=False).encode(), "text/csv").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    at.switch_page(PAGE).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _texts(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown]


def _headline(at: AppTest) -> str:
    return next(t for t in _texts(at) if t.startswith(("**Case", "**No case")))


def _param(at: AppTest, name: str) -> str | None:
    value = at.query_params.get(name)
    return value[-1] if isinstance(value, list) else value


def _titles(at: AppTest) -> list[str]:
    return [t for t in _texts(at) if " vs " in t and "· judge" in t]


def test_a_link_opens_that_pairs_verdicts_with_their_text(small_demo_store):
    at = _open(
        {"judge": "sim-judge-first-slot", "a": "sim-alder", "b": "sim-larch", "dataset": "demo-all-pairs"}
    )
    want = small_demo_store.verdicts(
        VerdictFilter(judge="sim-judge-first-slot", model_a="sim-alder", model_b="sim-larch")
    )
    assert _headline(at).startswith(f"**Cases 1–{N} of {want.total:,}**")
    titles = _titles(at)
    assert len(titles) == N
    assert all("sim-alder" in t and "sim-larch" in t and "sim-judge-first-slot" in t for t in titles)
    texts = _texts(at)
    assert show.document(want.cases[0].prompt) in texts  # the prompt, shown
    assert want.cases[0].prompt in [_reader_sees(t) for t in texts]  # as typed
    assert sum(t.startswith("**Order ") for t in texts) == 2 * N  # both orders of each case
    assert at.selectbox(key="vd_judge").value == "sim-judge-first-slot"
    assert (at.selectbox(key="vd_a").value, at.selectbox(key="vd_b").value) == ("sim-alder", "sim-larch")
    assert _param(at, "a") == "sim-alder" and _param(at, "judge") == "sim-judge-first-slot"
    assert not at.info or all("carries no prompts" not in i.value for i in at.info)


def test_paging_moves_through_the_cases_and_a_new_filter_starts_at_page_one():
    at = _open({"judge": "sim-judge-steady", "a": "sim-birch"})
    total = int(_headline(at).split(" of ")[1].split("**")[0].replace(",", ""))
    first = _titles(at)
    at.button(key="vd_next").click().run()
    assert _headline(at).startswith(f"**Cases {N + 1}–{2 * N} of {total:,}**")
    assert _param(at, "page") == "2" and _titles(at) != first
    at.button(key="vd_prev").click().run()
    assert _headline(at).startswith(f"**Cases 1–{N} of") and _param(at, "page") is None
    at.button(key="vd_next").click().run()
    at.toggle(key="vd_flipped").set_value(True).run()  # a new filter: back to the first page
    assert _headline(at).startswith("**Cases 1–") and _param(at, "page") is None
    assert _param(at, "flipped") == "1"
    flagged = [t for t in _texts(at) if "the two orders disagree" in t]
    assert len(flagged) == len(_titles(at)) > 0  # every case shown carries the flag


def test_an_anchors_beats_every_model_link_opens_those_instructions_and_can_be_switched_off(small_demo_store):
    from evalcore.anchors import win_rate_distribution

    judge, anchor = "sim-judge-steady", "sim-alder"
    at = _open({"judge": judge, "beats": anchor})
    store = small_demo_store
    want = store.verdicts(VerdictFilter(judge=judge, beats_all=anchor))
    n = win_rate_distribution(store.counts(judge=judge), anchor).anchor_beats_all
    assert want.total == n * (len(store.models()) - 1)  # all pairs: every rival once per instruction
    assert _headline(at).startswith(f"**Cases 1–{N} of {want.total:,}**")
    assert all(anchor in t for t in _titles(at))
    assert at.toggle(key="vd_beats").value is True and _param(at, "beats") == anchor
    at.toggle(key="vd_beats").set_value(False).run()
    assert _param(at, "beats") is None and not at.exception


def test_a_link_to_a_page_past_the_end_shows_the_last_page():
    at = _open({"judge": "sim-judge-steady", "a": "sim-birch", "b": "sim-cedar", "page": "999"})
    total = int(_headline(at).split(" of ")[1].split("**")[0].replace(",", ""))
    last = -(-total // N)
    assert f"page {last:,} of {last:,}" in _headline(at)


def test_the_judge_disagrees_with_the_human_filter_shows_only_those():
    at = _open({"judge": "sim-judge-first-slot", "human": "disagrees"})
    humans = [t for t in _texts(at) if t.startswith("**Human label:**")]
    assert humans and all("The judge disagrees" in t for t in humans)
    assert at.toggle(key="vd_human").value is True


def test_unknown_values_in_a_link_warn_and_the_rest_still_applies():
    at = _open({"judge": "no-such-judge", "verdict": "maybe", "a": "sim-alder"})
    warnings = " ".join(w.value for w in at.warning)
    assert "no\\-such\\-judge" in warnings or "no-such-judge" in warnings
    assert "verdict=maybe" in warnings
    assert at.selectbox(key="vd_judge").value is None  # all judges
    assert at.selectbox(key="vd_a").value == "sim-alder"
    assert _param(at, "judge") is None and _param(at, "verdict") is None  # the link is cleaned
    assert all("sim-alder" in t for t in _titles(at))


def test_a_table_without_text_shows_the_verdicts_and_says_which_columns_add_text():
    """Tiny: three models, two of which never meet, no text columns."""
    rows = [
        {"instruction_id": f"i{i}", "model_a": a, "model_b": b, "verdict": (i % 5) - 2}
        for i in range(6)
        for a, b in (("x", "y"), ("y", "z"))
    ]
    at = _uploaded(pd.DataFrame(rows))
    (sentence,) = [i.value for i in at.info if "carries no prompts" in i.value]
    for column in ("prompt", "response_a", "response_b", "judge_output"):
        assert f"`{column}`" in sentence
    assert _headline(at).startswith(f"**Cases 1–{min(N, 12)} of 12**")
    assert not any(t == "**Prompt**" for t in _texts(at))  # no empty text boxes
    assert any("second slot much better" in t for t in _texts(at))
    at.selectbox(key="vd_a").set_value("x").run()
    at.selectbox(key="vd_b").set_value("z").run()  # x and z never met
    assert _headline(at) == "**No case matches these filters.**"
    assert any("widen them" in i.value for i in at.info)


def test_hostile_text_is_shown_as_text():
    rows = []
    for k, text in enumerate(HOSTILE_TEXT):
        rows.append(
            {
                "instruction_id": f"h{k}",
                "model_a": "a",
                "model_b": "b",
                "verdict": 1,
                "prompt": text,
                "response_a": "**ok** " + text,
                "response_b": text,
                "judge_output": text + "\n\n[[A>B]]",
            }
        )
    at = _uploaded(pd.DataFrame(rows))
    texts = _texts(at)
    for _ in range(-(-len(HOSTILE_TEXT) // N) - 1):  # the next pages hold the rest
        at.button(key="vd_next").click().run()
        texts += _texts(at)
    assert sum(t.startswith("**Order 1:**") for t in texts) == len(HOSTILE_TEXT)
    for text in texts:
        assert not _live_markup(_outside_fences(text)), text
    assert any("\\<script\\>" in t or "\\<script>" in t for t in texts)  # shown, escaped
    assert not at.info or all("carries no prompts" not in i.value for i in at.info)


def test_search_finds_words_in_the_answers():
    at = _open({"judge": "sim-judge-steady", "q": "heapq"})
    assert at.text_input(key="vd_search").value == "heapq"
    titles = _titles(at)
    assert titles and all("coding" in t for t in titles)


@pytest.mark.parametrize("shape", ["anchor-only", "arena"])
def test_the_page_reads_sparse_and_unbalanced_tables(shape):
    if shape == "anchor-only":
        spec = SimulationSpec(
            n_models=6,
            n_instructions=30,
            design="anchor",
            anchor="sim-birch",
            anchor_slot="b",
            both_orders=False,
            text=True,
            seed=3,
        )
        frame = simulate(spec).verdicts.drop(columns=["row"])
        linked = "sim-birch"
    else:  # one prompt per battle, some pairs never meet
        sim = simulate_arena(n_battles=400, n_models=12, seed=1)
        names = np.array(sim.models)
        frame = pd.DataFrame(
            {
                "instruction_id": [f"b{k}" for k in range(len(sim.a))],
                "model_a": names[sim.a],
                "model_b": names[sim.b],
                "verdict": np.where(sim.outcome == 2, 0, sim.outcome),
                "prompt": [f"battle prompt {k}" for k in range(len(sim.a))],
            }
        )
        linked = str(names[sim.a[0]])
    at = _uploaded(frame)
    at.selectbox(key="vd_a").set_value(linked).run()
    assert not at.exception
    titles = _titles(at)
    assert titles and all(linked in t for t in titles)
    orders = [t for t in _texts(at) if t.startswith("**Order ")]
    assert len(orders) == len(titles)  # one call per case: no second order to compare
    assert not any("the two orders disagree" in t for t in _texts(at))


def test_arriving_from_another_page_keeps_its_judge_and_all_judges_stays_selectable():
    at = new_app()
    at.run()
    at.switch_page("pages/calibration.py").run()
    at.selectbox(key="cal_judge_select").select("sim-judge-tie-happy").run()
    at.switch_page(PAGE).run()
    assert not at.exception
    assert at.selectbox(key="vd_judge").value == "sim-judge-tie-happy"
    assert all("sim-judge-tie-happy" in t for t in _titles(at))
    at.selectbox(key="vd_judge").select_index(0).run()  # "All judges"
    assert at.selectbox(key="vd_judge").value is None and _param(at, "judge") is None
    at.button(key="vd_next").click().run()
    assert at.selectbox(key="vd_judge").value is None and _param(at, "page") == "2"


def test_a_long_text_shows_its_start_and_a_switch_shows_all_as_plain_text():
    long = "**start** " + "[x](https://evil.example) `a\r\r![i](https://evil.example/i.png)` " * 400
    frame = pd.DataFrame(
        {
            "instruction_id": ["q1"],
            "model_a": "a",
            "model_b": "b",
            "verdict": 1,
            "prompt": [long],
            "response_a": "short",
            "response_b": "short",
            "judge_output": "fine",
        }
    )
    at = new_app()
    at.run()
    data = frame.to_json(orient="records", lines=True).encode()  # (a CSV with a lone \r in a field
    at.file_uploader(key="upload").upload("t.jsonl", data, "application/json").run()  # is refused)
    assert not at.exception and not at.error, [e.value for e in at.error]
    at.switch_page(PAGE).run()
    switch = next(t for t in at.toggle if t.label.startswith("Show all ("))
    assert switch.label == f"Show all ({len(long.replace(chr(13), chr(10))):,} characters, as plain text)"
    shown = [t for t in _texts(at) if t.startswith("**start**")]
    assert len(shown) == 1 and shown[0].endswith("characters are shown.*")
    assert not _live_markup(shown[0]) and not at.text
    switch.set_value(True).run()
    assert [t.value.rstrip() for t in at.text] == [long.replace("\r", "\n").rstrip()]  # whole, as text
    assert not [t for t in _texts(at) if t.startswith("**start**")]
