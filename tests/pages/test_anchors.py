"""AppTest: the Anchors page (which anchor) and the Anchor planning page (pilots, sweeps, the
planner) show the library's numbers, run their sweeps on a button press, accept a human ranking
(an upload, or the anchor paper's bundled one), and show what applies on an anchor-only table."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from evalcore import anchors as an
from evalcore.anchors import anchor_ranking, anchor_sweep
from evalcore.ingest.files import read_human_ranking
from evalcore.ingest.reference import human_ranking
from evalcore.simulate.tables import SimulationSpec, simulate
from evalcore.store.store import VerdictStore
from evalcore.text import fmt_num, fmt_pct
from tests.conftest import ROOT, new_app, open_tab, shared_path
from ui.state import DEFAULT_DEMO, DEMO_JUDGE

DEMO_JUDGE = DEMO_JUDGE[DEFAULT_DEMO]  # the judge the demo opens on (its steady one)

SAMPLE_900K = ROOT / "tests" / "fixtures" / "native" / "judgements_900k" / "judgements.jsonl"


def _app() -> AppTest:
    at = new_app()
    at.run()
    return at


def _page(page: str = "pages/anchors.py", at: AppTest | None = None) -> AppTest:
    at = at or _app()
    at.switch_page(page).run()
    assert not at.exception
    return at


def _open_tab(at: AppTest, label: str) -> AppTest:
    """Open one of the Anchors page's tabs (only the open one is drawn)."""
    return open_tab(at, "anchors_tab", label)


def _upload(name: str, data: bytes) -> AppTest:
    at = _app()
    at.file_uploader(key="upload").upload(name, data, "application/octet-stream").run()
    assert not at.exception
    return at


@pytest.fixture(scope="module")
def library_sweep(demo_store):
    """The library's anchor sweep of the demo's first judge, with the demo's human ranking."""
    human = read_human_ranking(ROOT / "data" / "demo_human_ranking.csv")
    return anchor_sweep(demo_store.counts(judge=DEMO_JUDGE), human_ranking=human)


@pytest.fixture(scope="module")
def default_view() -> AppTest:
    """The Anchors page's default view, opened once for the tests that only read it."""
    return _page()


def _table(at: AppTest, column: str):
    """The first table on the page with this column."""
    return next(df.value for df in at.dataframe if column in df.value.columns)


def _charts(at: AppTest) -> list[dict]:
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


def _no_empty_cells(at: AppTest) -> None:
    """No table shows None / nan / <NA>, and none has a column of nothing but dashes."""
    for df in at.dataframe:
        frame = df.value.astype(str)
        assert not {"None", "nan", "<NA>"} & set(frame.to_numpy().ravel()), frame
        assert not any(set(frame[c]) == {"—"} for c in frame.columns), frame


def test_per_anchor_table_and_figures_match_the_library(default_view, library_sweep):
    at, sweep = default_view, library_sweep
    shown = _table(at, "Agreement with the all-pairs ranking")
    assert shown["Anchor"].tolist() == sweep.table["anchor"].tolist()
    # Human column names, numbers written with sensible decimals, "—" for a missing value.
    assert not any("_" in c for c in shown.columns)
    assert shown["Agreement with the all-pairs ranking"].tolist() == [
        fmt_num(v, 3) for v in sweep.table["tau_all_pairs"]
    ]
    assert shown["Agreement with the human ranking"].tolist() == [
        fmt_num(v, 3) for v in sweep.table["tau_human"]
    ]
    assert shown["Informativeness"].tolist() == [fmt_pct(v, 1) for v in sweep.table["informativeness"]]
    assert at.metric[0].value == sweep.recommended
    assert any("tau-b" in c.value for c in at.caption)
    # only the open tab is drawn: its one chart, not the four charts of the hidden tabs
    titles = [c["layout"]["title"]["text"] for c in _charts(at)]
    assert titles == ["Anchor quality against anchor strength"]
    u = _charts(at)[0]
    assert u["data"][0]["text"] == sweep.table["anchor"].tolist()  # names on hover
    at = _open_tab(_page(), "Informativeness")
    assert any(
        c["layout"]["title"]["text"].startswith("Anchor quality against informativeness") for c in _charts(at)
    )
    assert any("3-level ceiling" in m.value for m in at.markdown)
    assert not any(
        c["layout"]["title"]["text"] == "Anchor quality against anchor strength" for c in _charts(at)
    )
    assert any("beats every model on" in m.value for m in _open_tab(at, "Win-rate distributions").markdown)
    # The explorer carries the human ranking the demo comes with.
    assert "Rank by humans" in _table(_open_tab(at, "Explorer"), "Rank by the anchor").columns


def test_a_link_to_a_hidden_tabs_setting_is_not_called_unknown():
    """A link that sets the win-rate tab's anchors opens on the first tab without saying the
    setting is unknown; the setting applies once that tab is opened."""
    at = new_app()
    at.query_params["hist"] = "sim-oak,sim-larch"
    at.run()
    at.switch_page("pages/anchors.py").run()
    assert not at.exception
    assert not any("not a setting of this page" in w.value for w in at.warning)
    assert _open_tab(at, "Win-rate distributions").multiselect(key="anchors_hist_pick").value == [
        "sim-oak",
        "sim-larch",
    ]


def test_judge_effect_runs_on_button_press_and_the_choices_stick(library_sweep):
    at = _open_tab(_page(), "Anchor vs judge")
    at.button(key="anchors_btn_judges").click().run()
    assert not at.exception
    assert any("Anchor effect beside judge effect" in c["layout"]["title"]["text"] for c in _charts(at))
    at.radio(key="anchors_tau").set_value("a").run()  # tau-a on request
    assert not at.exception
    assert any("tau-a" in c.value for c in _open_tab(at, "Per-anchor rankings").caption)
    last = library_sweep.table["anchor"].iloc[-1]
    at.selectbox(key="anchors_chosen").set_value(last).run()
    assert not at.exception
    assert any(last in h.value for h in _open_tab(at, "Explorer").subheader)


def test_a_link_saved_before_the_sweeps_reference_was_renamed_still_opens_on_it():
    """``reference=`` took the source paper's word for the all-pairs ranking before 0.3: such a
    link opens on the all-pairs reference, says nothing is wrong, and is rewritten."""
    old = next(iter(an.RENAMED_REFERENCES))
    at = new_app()
    at.query_params["reference"] = old
    at.run()
    at.switch_page("pages/anchor_planning.py").run()
    assert not at.exception and not any("reference" in w.value for w in at.warning)
    assert at.radio(key="anchors_sweep_ref").value == an.ALL_PAIRS
    assert at.query_params["reference"] == an.ALL_PAIRS  # the demo's default is the human ranking


def test_planning_page_runs_sweeps_and_pilot_on_button_press():
    at = _page("pages/anchor_planning.py")
    assert not _charts(at)  # nothing runs before a button is pressed
    assert any("Anchor-based evaluation against" in c.value for c in at.code)  # the planner
    at.number_input(key="anchors_sweep_reps").set_value(3).run()
    at.button(key="anchors_btn_sizes").click().run()
    at.number_input(key="anchors_count_perms").set_value(3).run()
    at.button(key="anchors_btn_count").click().run()
    at.button(key="anchors_btn_pilot").click().run()
    assert not at.exception
    titles = [c["layout"]["title"]["text"] for c in _charts(at)]
    assert any("number of instructions" in t for t in titles)
    assert any("Adding anchors" in t for t in titles)
    assert any("Pilot screening" in t for t in titles)
    assert any(m.label == "Mean Pearson r with all data" for m in at.metric)


@pytest.mark.usefixtures("small_demo")  # checks the upload's messages, not the demo's numbers
def test_human_ranking_upload():
    at = _page()
    csv = b"model,score\nsim-alder,3\nsim-birch,2\nsim-cedar,1\nsim-dogwood,0\n"
    at.file_uploader(key="anchors_human_upload").upload("mine.csv", csv, "text/csv").run()
    assert not at.exception
    assert any("mine.csv" in s.value for s in at.success)
    bad = b"name,points\nx,1\n"
    at.file_uploader(key="anchors_human_upload").upload("bad.csv", bad, "text/csv").run()
    assert not at.exception
    assert any("model" in e.value for e in at.error)


@pytest.mark.usefixtures("small_demo")  # replaced by an upload at once
def test_the_anchor_papers_human_ranking_in_one_click():
    """The released judgements' sample: the bundled ranking is offered (the table names five of
    its models), and one click fills tau with humans with the library's numbers."""
    at = _upload("judgements.jsonl", SAMPLE_900K.read_bytes())
    at = _page(at=at)
    assert not at.button(key="anchors_human_paper").disabled
    assert any("names 5 of the 22 models" in c.value for c in at.caption)
    at.selectbox(key="anchors_category_select").set_value("Arena-Hard v2.0").run()
    at.button(key="anchors_human_paper").click().run()
    assert not at.exception
    store = VerdictStore()
    store.load_file(SAMPLE_900K)
    counts = store.counts(judge=store.judges()[0], category="Arena-Hard v2.0")
    sweep = anchor_sweep(counts, human_ranking=human_ranking("paper"))
    store.close()
    shown = _table(at, "Agreement with the human ranking")
    assert shown["Agreement with the human ranking"].tolist() == [
        fmt_num(v, 3) for v in sweep.table["tau_human"]
    ]
    assert shown["Agreement with the human ranking"].tolist() != ["—"] * len(shown)


def test_the_bundled_ranking_is_not_offered_when_the_table_names_none_of_its_models(default_view):
    at = default_view
    assert not [b for b in at.button if b.key == "anchors_human_paper"]


def _anchor_only_page(at: AppTest, anchor: str) -> None:
    assert any("no all-pairs ranking" in i.value for i in at.info)
    assert any("Comparing anchors with each other" in c.value for c in at.caption)  # one sentence
    assert not [df for df in at.dataframe if "Agreement with the all-pairs ranking" in df.value.columns]
    shown = _table(at, "Rank by the anchor")
    assert "Rank by all pairs" not in shown.columns
    assert anchor not in shown["Model"].tolist()
    assert any(m.label == "Informativeness" for m in at.metric)
    assert any("Win-rate distributions" in c["layout"]["title"]["text"] for c in _charts(at))
    assert any("3-level ceiling" in m.value for m in at.markdown)
    _no_empty_cells(at)


@pytest.mark.usefixtures("small_demo")  # the anchor-only demo replaces it at once
def test_anchor_only_demo_shows_what_applies():
    at = _app()
    at.selectbox(key="demo_choice").select_index(1).run()
    at.button(key="load_demo").click().run()
    at = _page(at=at)
    assert not at.exception
    _anchor_only_page(at, "sim-birch")
    assert any("human ranking" in i.value.lower() for i in at.info)  # how to add one
    at = _page("pages/anchor_planning.py", at=at)
    at.button(key="anchors_btn_count").click().run()
    assert not at.exception
    assert any("needs an all-pairs table" in i.value for i in at.info)


@pytest.mark.usefixtures("small_demo")  # replaced by an upload at once
def test_simulated_anchor_only_table_with_a_human_ranking():
    """AlpacaEval-shaped: the reference always in slot B; with a human ranking the anchor's tau
    with humans is shown, equal to the library's."""
    sim = simulate(
        SimulationSpec(
            n_models=8, n_instructions=60, design="anchor", anchor_slot="b", both_orders=False, seed=5
        )
    )
    at = _upload("anchor_only.csv", sim.verdicts.to_csv(index=False).encode())
    at = _page(at=at)
    anchor = next(iter(set(sim.verdicts["model_b"])))
    csv = sim.human_ranking.to_csv(index=False).encode()
    at.file_uploader(key="anchors_human_upload").upload("humans.csv", csv, "text/csv").run()
    assert not at.exception
    _anchor_only_page(at, anchor)
    store = VerdictStore()
    store.load(sim.verdicts)
    ranking = anchor_ranking(store.counts(), anchor, human_ranking=sim.human_ranking)
    store.close()
    tile = next(m for m in at.metric if m.label == "Agreement with the human ranking")
    assert tile.value == fmt_num(ranking.tau_human, 3)
    assert _table(at, "Rank by humans")["Rank by humans"].notna().all()


@pytest.mark.slow
def test_real_alpacaeval_table_shows_what_applies():
    path = shared_path("data", "real", "alpacaeval2_weighted", "alpacaeval2_weighted.csv")
    at = _upload("alpacaeval2_weighted.csv", path.read_bytes())
    at = _page(at=at)
    assert not at.exception
    _anchor_only_page(at, "gpt4_1106_preview")
    rows = pd.read_csv(path, usecols=["model_a", "model_b"])
    models = set(rows["model_a"]) | set(rows["model_b"])
    assert len(_table(at, "Rank by the anchor")) == len(models) - 1


def test_recommended_anchor_with_its_resampling_rate(demo_store):
    from evalcore.anchors import anchor_stability

    at = _page()
    at.number_input(key="anchors_stab_rounds").set_value(50).run()  # the fewest the page offers
    at.button(key="anchors_btn_stability").click().run()
    assert not at.exception
    stab = anchor_stability(demo_store.counts(judge=DEMO_JUDGE), rounds=50)
    shown = _table(at, "Most informative in")
    assert shown["Most informative in"].tolist() == [fmt_pct(v) for v in stab.table["most_informative_rate"]]
    if stab.recommended:
        assert any(f"{stab.recommended_rate:.0%}" in m.value for m in at.markdown)
