"""AppTest: the Overview states the headline findings of the loaded data, links to the pages and
offers the HTML report (built only on click)."""

from __future__ import annotations

import functools
import re

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from evalcore.findings import headline_findings, run_analyses
from tests.conftest import ROOT, open_page


@pytest.fixture(scope="module")
def expected(demo_store):
    """The library's headline findings on the demo for a judge, computed once per judge."""

    @functools.cache
    def findings(judge: str):
        human = pd.read_csv(ROOT / "data" / "demo_human_ranking.csv")
        return headline_findings(run_analyses(demo_store, judge=judge, human_ranking=human, rounds=1000))

    return findings


def _overview() -> AppTest:
    return open_page("pages/overview.py")


@pytest.fixture(scope="module")
def default_view() -> AppTest:
    """The page's default view, opened once for the tests that only read it."""
    return _overview()


def _unescape(source: str) -> str:
    """What a reader sees of escaped Markdown: no backslash escapes, no invisible word joiners."""
    return re.sub(r"\\(.)", r"\1", source).replace("\u2060", "")


def _metrics(at: AppTest) -> dict[str, str]:
    return {m.label: _unescape(m.value) for m in at.metric}


def _markdown(at: AppTest) -> str:
    # The page escapes markdown characters (model names may hold * or _); undo that to compare.
    return "\n".join(m.value for m in at.markdown).replace("\\", "")


def test_headline_metrics_and_sentences_match_the_library(default_view, expected):
    at = default_view
    judge = at.selectbox(key="overview_judge_select").value
    metrics = _metrics(at)
    deltas = {m.label: _unescape(m.proto.delta) for m in at.metric}
    for finding in expected(judge).findings:
        for tile in finding.tiles:
            assert metrics[tile.label] == tile.value
            assert deltas[tile.label] == tile.note
        assert finding.text in _markdown(at)
    assert metrics["Leader"] == "sim-alder"
    # The separation sentence quotes the p the decision uses (issue 25, item 7).
    assert "after Holm's adjustment across the 19 adjacent pairs" in _markdown(at)
    # ... and the recommended anchor how often it is the most informative (item 8).
    assert "of 200 instruction resamples" in _markdown(at)
    # Each finding links to its page, where that page exists in this build.
    links = {p.proto.label for p in at.get("page_link")}
    for finding in expected(judge).findings:
        if (ROOT / "pages" / f"{finding.page}.py").exists():
            assert f"Open the {finding.page.capitalize()} page" in links
    # The leaderboard is shared with the Leaderboard page (same memo key, no second bootstrap).
    memo = at.session_state["vl"]["memo"]
    assert any(
        k[2:] == ("leaderboard", judge, None, False, 1000, 0, "bootstrap") for k in memo
    )  # (version, ranking, …)


def test_report_download_is_built_on_click(default_view):
    at = default_view
    buttons = at.get("download_button")
    report = [b for b in buttons if b.proto.label == "Download the HTML report"]
    assert len(report) == 1
    # A callable was passed: the file is deferred until the click, not built on every run.
    assert report[0].proto.deferred_file_id
    assert any(b.proto.label == "Download the findings (CSV)" for b in buttons)


@pytest.fixture
def deferred(monkeypatch) -> list:
    """(file name, callable) of each deferred download drawn: what a click would run."""
    from streamlit.runtime.media_file_manager import MediaFileManager

    found: list = []
    original = MediaFileManager.add_deferred

    def add(self, callable_, *args, **kwargs):
        found.append((kwargs.get("file_name") or "", callable_))
        return original(self, callable_, *args, **kwargs)

    monkeypatch.setattr(MediaFileManager, "add_deferred", add)
    return found


def _without_time(document: str) -> str:
    return re.sub(r"Generated \d{4}-\d\d-\d\d \d\d:\d\d UTC", "Generated (time)", document)


def test_a_judge_change_computes_only_what_the_page_shows_and_the_report_on_its_click(demo_store, deferred):
    """A change of judge recomputes the findings, not what only the report reads (style control,
    the monitor, prediction-powered ratings, the other judges' sheets …): those wait for the
    report's download, whose file equals the report of one whole ``run_analyses`` call."""
    from evalcore.findings.analyses import REPORT_ONLY
    from evalcore.report import build_report

    at = _overview()
    at.selectbox(key="overview_judge_select").set_value("sim-judge-steady").run()
    at.toggle(key="overview_compare").set_value(True).run()
    assert not at.exception
    memo = at.session_state["vl"]["memo"]
    computed = {k[3] for k in memo if k[2] == "findings" and len(k) > 4 and k[4] == "sim-judge-steady"}
    assert computed and not computed & {"style", "monitor", "ppi", "ties", "tie_conventions"}, computed
    sheets = {k[4] for k in memo if k[2:4] == ("findings", "judge_sheet")}
    assert not sheets & {"sim-judge-first-slot", "sim-judge-tie-happy"}  # not before the click
    report = [run for name, run in deferred if name.startswith("report_")][-1]()  # the click
    human = pd.read_csv(ROOT / "data" / "demo_human_ranking.csv")
    whole = run_analyses(
        demo_store, judge="sim-judge-steady", human_ranking=human, rounds=1000, compare_judges=True
    )
    assert all(getattr(whole, name) is not None for name in ("style", "ties", "judge_comparison"))
    want = build_report(whole, headline_findings(whole))
    assert _without_time(report.decode("utf-8")) == _without_time(want)
    assert set(REPORT_ONLY) >= {"style", "judge_comparison"}


def test_changing_the_judge_changes_the_findings(expected):
    at = _overview()
    at.selectbox(key="overview_judge_select").set_value("sim-judge-steady").run()
    assert not at.exception
    metrics = _metrics(at)
    assert metrics["Position bias"] == expected("sim-judge-steady").get("judge").tiles[0][1]
    for finding in expected("sim-judge-steady").findings:  # the correction's verdict among them
        for tile in finding.tiles:
            assert metrics[tile.label] == tile.value
    assert "Win rate correctable?" in metrics
    assert "sim-judge-steady prefers the first slot" in _markdown(at)


@pytest.mark.usefixtures("small_demo")  # replaced by an upload at once
def test_a_tiny_upload_gets_words_not_a_traceback():
    at = open_page()
    tiny = (
        "instruction_id,model_a,model_b,verdict\n"
        "q1,sim-a,sim-b,1\nq2,sim-a,sim-b,1\nq3,sim-b,sim-a,-1\nq4,sim-a,sim-b,0\n"
    )
    at.file_uploader(key="upload").upload("tiny.csv", tiny.encode(), "text/csv").run()
    assert not at.exception
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    metrics = _metrics(at)
    assert metrics["Leader"] == "sim-a"
    assert metrics["Win rate correctable?"] == "No"
    text = _markdown(at)
    assert "sim-a leads the 2 models" in text
    assert "no labelled rows" in text


@pytest.mark.usefixtures("small_demo")  # the anchor-only demo replaces it at once
def test_anchor_only_demo():
    at = open_page()
    label = "Demo: anchor-only (AlpacaEval-style), 16 simulated models"
    at.selectbox(key="demo_choice").set_value(label).run()
    at.button(key="load_demo").click().run()
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    metrics = _metrics(at)
    assert metrics["Recommended anchor"] == "sim-birch"  # the only anchor of this design
    text = _markdown(at)
    assert "compared with one anchor, sim-birch" in text
    assert "No pair was judged in both orders" in text


def test_the_leaderboard_page_reuses_the_overviews_board():
    """Opened after the Overview with the default settings, the Leaderboard page draws the board
    the findings computed: one leaderboard in the session's results, not a second bootstrap (its
    key gained the resampling unit and weighting only when they are chosen)."""
    at = _overview()
    at.switch_page("pages/leaderboard.py").run()
    assert not at.exception, [e.value for e in at.exception]
    boards = [k for k in at.session_state["vl"]["memo"] if len(k) > 2 and k[2] == "leaderboard"]
    assert len(boards) == 1, boards
