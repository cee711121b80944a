"""The Tie structure page (AppTest): stats for the chosen judge, the human-label comparison, ties as
data (the ranking under three tie conventions), and the pointwise section with the bundled demo, a
bad upload and a good upload."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

import ui as _ui
from evalcore import quantities as q
from evalcore.ingest.files import read_human_ranking
from evalcore.ingest.pointwise import read_pointwise
from evalcore.ties import labelled_counts, pointwise_tie_structure, tie_conventions, verdict_tie_structure
from tests.conftest import ROOT, new_app, open_page

APP = str(ROOT / "app.py")


def _metrics(at: AppTest) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for m in at.metric:
        out.setdefault(m.label, []).append(m.value)
    return out


@pytest.fixture(scope="module")
def ties_page():
    return open_page("pages/ties.py", timeout=90)


def test_page_shows_the_judges_tie_structure(ties_page, demo_store):
    at = ties_page
    judge = at.selectbox(key="ties_judge_select").value
    expected = verdict_tie_structure(demo_store.counts(judge=judge))
    metrics = _metrics(at)
    assert metrics["Same-level chance"] == [f"{expected.stats.tie_probability:.1%}"]
    assert metrics["Effective levels, collisions"] == [f"{expected.stats.d2:.2f}"]
    assert metrics["Instructions with a tied top"] == [f"{expected.top_tied:.1%}"]
    # human labels exist in the demo: τa against them is shown, and equals the library's
    labelled = labelled_counts(demo_store, judge)
    human = verdict_tie_structure(labelled.judge, labelled.human)
    assert metrics["Kendall's tau-a"][0] == f"{human.agreement.tau_a:.3f}"
    # the demo's human ranking is the reference score: a second row of agreement metrics
    ranking = read_human_ranking(ROOT / "data" / "demo_human_ranking.csv")
    by_score = verdict_tie_structure(demo_store.counts(judge=judge), ranking)
    assert metrics["Kendall's tau-b"][1] == f"{by_score.agreement.tau_b:.3f}"
    assert any("Same-level chance" in c.value and "not the tie rate" in c.value for c in at.caption)
    charts = [e for e in at.get("plotly_chart")]
    assert any("Verdict levels of" in e.proto.spec for e in charts)


def test_page_shows_ties_as_data(ties_page, demo_store):
    """The section draws the library's comparison: the tie parameter, the models moved, the
    sentence and one row per model with its rating under each convention."""
    at = ties_page
    judge = at.selectbox(key="ties_judge_select").value
    tc = tie_conventions(demo_store.counts(judge=judge))
    assert "Ties as data" in [h.value for h in at.subheader]
    metrics = _metrics(at)
    assert metrics["Davidson's tie parameter"] == [q.format("tie_parameter", tc.tie_parameter)]
    assert metrics["Models moved by the tie convention"] == [str(tc.headline.models_moved)]
    assert metrics["Rank agreement between tie conventions"] == [q.format("convention_tau", tc.headline.tau)]
    assert any("Modelling ties instead of counting each as half a win" in c.value for c in at.caption)
    shown = [df.value for df in at.dataframe if "Rating, ties modelled" in df.value.columns]
    assert len(shown) == 1 and len(shown[0]) == len(tc.models)
    frame = tc.frame()
    assert shown[0]["Rating, ties modelled"].tolist() == [
        q.format("rating_ties_modelled", v) for v in frame["rating_ties_modelled"]
    ]
    assert shown[0]["Rating, a tie as half a win"].tolist() == [
        q.format("rating", v) for v in frame["rating"]
    ]


def test_page_tie_happy_judge(ties_page):
    at = ties_page
    at.selectbox(key="ties_judge_select").select("sim-judge-tie-happy").run()
    assert not at.exception
    metrics = _metrics(at)
    assert metrics["Distinct levels"] == ["3"]
    assert float(metrics["Same-level chance"][0].rstrip("%")) > 30


def test_page_pointwise_demo_then_bad_then_good_upload(ties_page):
    at = ties_page
    demo = read_pointwise(ROOT / "data" / "demo_pointwise.csv")
    cells = pointwise_tie_structure(demo.frame)
    shown = [df.value for df in at.dataframe if "Same-level chance" in df.value.columns]
    assert shown and len(shown[0]) == len(cells) == 9
    assert shown[0]["Same-level chance"].tolist() == [f"{100 * v:.1f}%" for v in cells["tie_probability"]]
    assert "parse_rate" not in shown[0].columns  # human headings, not the library's names
    assert any("simulated" in c.value for c in at.caption)
    assert any("format share" in df.value.columns for df in at.dataframe)

    bad = b"instruction_id,candidate,judge,format,score\nq1,x,j,binary,1\nq1,y,j,binary,ACCEPT\n"
    at.file_uploader(key="pointwise_upload").upload("bad_scores.csv", bad, "text/csv").run()
    assert not at.exception
    errors = [e.value for e in at.error]
    assert errors and _ui.escape_markdown("bad_scores.csv") in errors[0]
    assert "row 2" in errors[0] and "ACCEPT" in errors[0]
    assert "still in use" in errors[0]
    # the demo is still analysed
    assert any("Same-level chance" in df.value.columns and len(df.value) == 9 for df in at.dataframe)

    good = (
        b"instruction_id,candidate,judge,format,score\n"
        b"q1,x,j1,binary,1\nq1,y,j1,binary,1\nq1,z,j1,binary,0\n"
        b"q2,x,j1,binary,0\nq2,y,j1,binary,1\n"
    )
    at.file_uploader(key="pointwise_upload").upload("mine.csv", good, "text/csv").run()
    assert not at.exception and not at.error
    assert any("mine.csv" in c.value for c in at.caption)
    cell = [df.value for df in at.dataframe if "Same-level chance" in df.value.columns][0]
    assert len(cell) == 1 and cell["Instructions with a tied top"].iloc[0] == "50.0%"
    assert cell["global Spearman"].iloc[0] == "—" if "global Spearman" in cell else True
    assert any("no `reference` column" in i.value for i in at.info)
    assert any("two formats and two judges" in i.value for i in at.info)
    at.button(key="pointwise_demo").click().run()
    assert not at.exception
    assert any("Same-level chance" in df.value.columns and len(df.value) == 9 for df in at.dataframe)


@pytest.mark.usefixtures("small_demo")  # the anchor-only demo replaces it at once
def test_page_without_human_labels_or_ranking():
    """The anchor-only demo has no human labels and no human ranking: the page says so in words."""
    # two demos load in one test: allow for a CI machine busy with the browser tests (5 s quiet)
    at = open_page("app.py", timeout=180)
    anchor_demo = [o for o in at.selectbox(key="demo_choice").options if "anchor" in o][0]
    at.selectbox(key="demo_choice").select(anchor_demo).run()
    at.button(key="load_demo").click().run()
    at.switch_page("pages/ties.py").run()
    assert not at.exception
    assert any("no human-labelled rows" in i.value for i in at.info)
    assert any("No reference score is loaded" in c.value for c in at.caption)
    assert "Kendall's tau-a" not in _metrics(at)
    assert _metrics(at)["Distinct levels"] == ["5"]


@pytest.mark.usefixtures("small_demo")  # replaced by an upload at once
def test_uploaded_dataset_never_shows_the_demo_pointwise_scores():
    """After the demo's pointwise scores were on screen, an uploaded verdict table gets no
    made-up pointwise scores: the section says none is loaded until the user asks for the demo."""
    at = open_page("pages/ties.py", timeout=90)
    assert any("Same-level chance" in df.value.columns for df in at.dataframe)  # the demo's
    at.switch_page("app.py").run()
    csv = (
        b"instruction_id,model_a,model_b,verdict\n"
        b"q1,x,y,1\nq1,y,x,-1\nq2,x,y,0\nq2,y,x,0\nq3,x,y,2\nq3,y,x,-1\n"
    )
    at.file_uploader(key="upload").upload("mine.csv", csv, "text/csv").run()
    assert not at.exception
    at.switch_page("pages/ties.py").run()
    assert not at.exception
    assert not any("Same-level chance" in df.value.columns for df in at.dataframe)
    assert any("No pointwise score table is loaded" in i.value for i in at.info)
    assert not any("Bundled demo" in c.value for c in at.caption)
    at.button(key="pointwise_demo").click().run()
    assert not at.exception
    assert any("Same-level chance" in df.value.columns and len(df.value) == 9 for df in at.dataframe)


def test_a_copied_link_reproduces_the_tie_pickers(demo_store):
    at = new_app(timeout=90)
    at.query_params["score"] = "sign"
    at.query_params["pw_format"] = "likert-5"
    at.query_params["pw_diagnostic"] = "top_tied"
    at.run()
    at.switch_page("pages/ties.py").run()
    assert not at.exception
    assert at.radio(key="ties_score").value == "sign"
    assert at.selectbox(key="pw_format").value == "likert-5"
    assert at.selectbox(key="pw_diag").value == "top_tied"
    # the numbers are the win-share rule's, not the default soft rule's
    judge = at.selectbox(key="ties_judge_select").value
    expected = verdict_tie_structure(demo_store.counts(judge=judge), score="sign")
    assert _metrics(at)["Instructions with a tied top"] == [f"{expected.top_tied:.1%}"]
    assert not any("not a setting of this page" in str(w.value) for w in at.warning)


def test_the_tie_pickers_are_written_into_the_link(ties_page):
    at = ties_page
    for name in ("score", "pw_format", "pw_diagnostic"):
        assert name not in at.query_params
    at.radio(key="ties_score").set_value("sign")
    at.selectbox(key="pw_diag").set_value("d2")
    at.run()
    assert not at.exception
    assert at.query_params["score"] == "sign"
    assert at.query_params["pw_diagnostic"] == "d2"


@pytest.mark.usefixtures("small_demo")  # replaced by an upload at once
def test_a_table_without_ties_refuses_the_tie_parameter_in_words():
    at = open_page("app.py", timeout=90)
    csv = b"instruction_id,model_a,model_b,verdict\nq1,x,y,1\nq2,y,z,1\nq3,z,x,1\nq4,x,z,2\nq5,y,x,-1\n"
    at.file_uploader(key="upload").upload("no_ties.csv", csv, "text/csv").run()
    assert not at.exception
    at.switch_page("pages/ties.py").run()
    assert not at.exception
    assert any("tie parameter is not identified" in i.value for i in at.info)
    metrics = _metrics(at)
    assert "Davidson's tie parameter" not in metrics  # never a 0 with an interval
    assert metrics["Models moved by the tie convention"] == ["0"]


def test_the_demo_shows_no_both_bad_tiles(ties_page):
    assert q.name("both_bad_share_of_ties") not in _metrics(ties_page)


@pytest.mark.usefixtures("small_demo")  # replaced by an upload at once
def test_an_arena_table_shows_its_both_bad_share(tmp_path):
    """A Chatbot Arena dump keeps "tie (bothbad)" apart: the Data page says its share in the
    library's sentence, and the Ties page shows the two catalogue tiles with the library's
    numbers; the demo (no such mark) shows neither."""
    from evalcore.simulate.arena import simulate_arena, write_arena_dump
    from evalcore.store.store import VerdictStore
    from evalcore.ties import both_bad_share

    sim = simulate_arena(n_battles=800, n_models=6, n_voters=100, seed=5)
    path = tmp_path / "clean_battle.json"
    write_arena_dump(sim, path)
    store = VerdictStore()
    store.load_file(path)
    share = both_bad_share(store)
    assert share.both_bad == int((sim.outcome == 2).sum()) > 0  # the simulator's own count

    at = open_page()
    assert not any("Both bad" in m.value for m in at.markdown)  # the demo has no mark
    at.file_uploader(key="upload").upload("clean_battle.json", path.read_bytes(), "application/json").run()
    assert not at.exception, [e.value for e in at.exception]
    assert any(share.sentence() in m.value.replace("\\", "") for m in at.markdown)
    at.switch_page("pages/ties.py").run()
    assert not at.exception, [e.value for e in at.exception]
    metrics = _metrics(at)
    assert metrics[q.name("both_bad_share_of_ties")] == [
        q.format("both_bad_share_of_ties", share.share_of_ties)
    ]
    assert metrics[q.name("both_bad_share_of_verdicts")] == [
        q.format("both_bad_share_of_verdicts", share.share_of_verdicts)
    ]
    assert any(share.sentence() in c.value.replace("\\", "") for c in at.caption)


def test_the_bundled_pointwise_table_and_its_analysis_are_shared_by_the_demos_sessions():
    # Each visitor of the demo read the bundled pointwise table and analysed it again; the
    # demo's sessions now share one reading and one analysis (the demo's shared results).
    one, two = open_page("pages/ties.py"), open_page("pages/ties.py")
    first, second = one.session_state["vl"]["pointwise"], two.session_state["vl"]["pointwise"]
    assert first["demo"] and second["demo"]
    assert first["table"] is second["table"] and first["results"] is second["results"]


def test_the_tie_structure_of_the_overview_is_the_pages_own(tmp_path):
    """Without a human ranking the page's judge part on every category, soft score, is the
    Overview's tie finding: computed once for both pages (the same object), whichever opens first."""
    from evalcore.simulate.arena import simulate_arena, write_arena_dump

    sim = simulate_arena(n_battles=600, n_models=5, n_voters=80, seed=9)
    path = tmp_path / "clean_battle.json"
    write_arena_dump(sim, path)
    at = open_page()
    at.file_uploader(key="upload").upload("clean_battle.json", path.read_bytes(), "application/json").run()
    at.switch_page("pages/overview.py").run()
    assert not at.exception, [e.value for e in at.exception]
    at.switch_page("pages/ties.py").run()
    assert not at.exception, [e.value for e in at.exception]
    memo = at.session_state["vl"]["memo"]
    finding = [v for k, v in memo.items() if k[2:4] == ("findings", "ties")]
    page = [v for k, v in memo.items() if k[2] == "ties" and k[-1] == "soft"]
    assert len(finding) == len(page) == 1
    assert page[0].judge is finding[0]


def test_a_change_of_judge_redraws_the_pairwise_section_alone(monkeypatch):
    """The pairwise section (judge, category and score pickers, its numbers, ties as data) runs as
    a fragment: a change of judge reruns it alone, not the pointwise section's charts and tables."""
    from streamlit.runtime.scriptrunner_utils.script_run_context import ThreadState

    import ui.ties_view as view

    seen: list = []
    real = view.conventions_section

    def recorded(*args, **kwargs):
        seen.append(ThreadState.get().fragment_id)
        return real(*args, **kwargs)

    monkeypatch.setattr(view, "conventions_section", recorded)
    at = open_page("pages/ties.py", timeout=90)
    assert seen and all(seen), seen  # drawn inside the fragment
    assert not at.exception
