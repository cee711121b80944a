"""The Calibration page on the demo data: a correction for a decent judge, a refusal in words for a
weak one at a small labelled set, the floor table, the coverage simulation, gates and transfer."""

from __future__ import annotations

import json

import pytest

from evalcore import quantities as q
from tests.conftest import new_app, open_tab
from ui.state import DEFAULT_DEMO, DEMO_JUDGE

DEMO_JUDGE = DEMO_JUDGE[DEFAULT_DEMO]  # the judge the demo opens on (its steady one)


@pytest.fixture()
def cal_page():
    at = new_app(timeout=90)
    at.run()
    at.switch_page("pages/calibration.py").run()
    assert not at.exception
    return at


def _tab(at, index: int):
    """Open the page's tab ``index`` (the page draws only the open one)."""
    from evalcore.present.calibration_words import TABS

    return open_tab(at, "cal_tab", TABS[index])


def _texts(elements) -> str:
    return "\n".join(str(e.value) for e in elements)


@pytest.mark.full_demo  # the coverage summary needs the demo's labelled pairs
def test_default_view_starts_with_the_top_model_and_shows_every_section(cal_page, full_demo_store):
    from evalcore.ranking import leaderboard

    top, second = leaderboard(full_demo_store.counts(judge=DEMO_JUDGE), rounds=0).table["model"].iloc[:2]
    # the Overview's pair: the leader against the runner-up
    assert cal_page.selectbox(key="cal_candidate").value == top
    assert cal_page.selectbox(key="cal_baseline").value == second
    labels = [m.label for m in cal_page.metric]
    assert {
        q.name(i)
        for i in ("printed_win_rate", "corrected_win_share", "sensitivity", "specificity", "youden_j")
    } <= set(labels)
    # a correction or its refusal in words (the first-slot judge's floor is too wide on this pair)
    assert "Corrected rate" in _texts(cal_page.success) or "Correction refused" in _texts(cal_page.warning)
    tables = len(cal_page.dataframe)  # the summary
    charts = [e for e in cal_page.get("plotly_chart")]
    spec = json.loads(charts[0].proto.spec)
    assert "printed win rate" in json.dumps(spec["data"])
    # only the open tab is drawn: each of the others when it is opened
    assert "Lang–Reiczigel" not in _texts(cal_page.markdown)
    tables += len(_tab(cal_page, 2).dataframe)  # floor table, size ladder
    charts += [e for e in cal_page.get("plotly_chart")]
    assert "Lang–Reiczigel" in _texts(_tab(cal_page, 3).markdown)  # coverage summary
    tables += len(cal_page.dataframe)
    charts += [e for e in cal_page.get("plotly_chart")]
    assert tables >= 4  # summary, floor table, size ladder, coverage
    assert len(charts) >= 3
    # the Gates tab is not empty: a verdict on the default candidate
    _tab(cal_page, 4)
    assert "gated on the **printed** number" in _texts(cal_page.success) + _texts(cal_page.error)
    assert "Pick a candidate" not in _texts(cal_page.info)
    # slot A is still there, and then the gates ask for a candidate
    cal_page.selectbox(key="cal_candidate").set_value("Slot A (every call)").run()
    assert not cal_page.exception
    assert "Pick a candidate" in _texts(cal_page.info)
    assert "Corrected rate" in _texts(_tab(cal_page, 0).success)


@pytest.mark.full_demo  # a decent judge corrects with all the demo's labelled calls
def test_decent_judge_corrects_weak_judge_is_refused(cal_page):
    cal_page.selectbox(key="cal_judge_select").set_value("sim-judge-steady").run()
    cal_page.selectbox(key="cal_candidate").set_value("sim-alder").run()
    cal_page.selectbox(key="cal_baseline").set_value("sim-birch").run()
    assert not cal_page.exception
    assert "Corrected rate" in _texts(cal_page.success)
    cal_page.selectbox(key="cal_judge_select").set_value("sim-judge-tie-happy").run()
    assert not cal_page.exception
    warnings = _texts(cal_page.warning)
    assert "Correction refused" in warnings and "cannot be tighter than" in warnings
    corrected = [m for m in cal_page.metric if m.label == q.name("corrected_win_share")][0]
    assert corrected.value == "refused"


def test_gate_says_which_number_it_rests_on(cal_page):
    cal_page.selectbox(key="cal_judge_select").set_value("sim-judge-steady").run()
    cal_page.selectbox(key="cal_candidate").set_value("sim-alder").run()
    cal_page.selectbox(key="cal_baseline").set_value("sim-birch").run()
    _tab(cal_page, 4).radio(key="cal_gate_kind").set_value("non-inferiority").run()
    verdict = _texts(cal_page.success) + _texts(cal_page.error)
    assert "gated on the **printed** number" in verdict
    assert "rests on the printed number" in _texts(cal_page.warning)
    cal_page.radio(key="cal_gate_on").set_value("corrected").run()
    assert "gated on the **corrected** number" in _texts(cal_page.success) + _texts(cal_page.error)


def test_labels_from_another_category_warn_about_transfer(cal_page):
    cal_page.selectbox(key="cal_category_select").set_value("math").run()
    cal_page.selectbox(key="cal_labelled").set_value("coding").run()
    assert not cal_page.exception
    assert "may not transfer" in _texts(cal_page.warning)


def test_bad_typed_j_is_an_error_in_words(cal_page):
    _tab(cal_page, 2).text_input(key="cal_floor_js").set_value("0.5, banana").run()
    assert not cal_page.exception
    assert "banana" in _texts(cal_page.error)


@pytest.fixture()
def anchor_only_page(small_demo_dir):
    """The page on the anchor-only demo (no human labels), on the all-pairs demo's small copy,
    which it replaces at once. Not shared between tests: AppTest's sessions share one session
    store, so another test's session would load its own table into it."""
    at = new_app(timeout=90)
    # the demo folder stays the small copy's for every rerun (the demo's shared results are keyed
    # by its file, so a rerun under another folder would read another file's results)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("VERDICTLAB_DEMO_DIR", str(small_demo_dir))
        at.run()
        at.selectbox(key="demo_choice").set_value(
            "Demo: anchor-only (AlpacaEval-style), 16 simulated models"
        ).run()
        at.button(key="load_demo").click().run()
        at.switch_page("pages/calibration.py").run()
        assert not at.exception
        yield at


def test_a_table_without_human_labels_is_refused_in_words(anchor_only_page):
    at = anchor_only_page
    assert "No labelled rows" in _texts(at.warning)
    assert "no measured sensitivity and specificity" in _texts(_tab(at, 3).info)
    assert "No prediction-powered ratings" in _texts(_tab(at, 1).error)


def test_the_unit_follows_the_table_and_can_be_changed(cal_page):
    cal_page.selectbox(key="cal_judge_select").set_value("sim-judge-steady").run()
    cal_page.selectbox(key="cal_candidate").set_value("sim-juniper").run()
    assert not cal_page.exception
    # the demo is judged in both orders: by default each human label counts once
    assert "unit: both-orders verdicts" in _texts(cal_page.caption)
    assert "Corrected win rate" in [m.label for m in cal_page.metric]
    cal_page.radio(key="cal_unit").set_value("Each judge call").run()
    assert not cal_page.exception
    assert "unit: judge calls" in _texts(cal_page.caption)
    assert "counts twice" in _texts(cal_page.info)


def test_corrected_gate_states_its_estimand(cal_page):
    cal_page.selectbox(key="cal_judge_select").set_value("sim-judge-steady").run()
    cal_page.selectbox(key="cal_candidate").set_value("sim-alder").run()
    cal_page.selectbox(key="cal_baseline").set_value("sim-birch").run()
    _tab(cal_page, 4).radio(key="cal_gate_on").set_value("corrected").run()
    assert not cal_page.exception
    assert "Estimand: the human win rate with ties as half a win" in _texts(cal_page.caption)


@pytest.mark.full_demo  # certification needs the demo's labelled calls
def test_prediction_powered_ratings_certification_and_their_gate(cal_page):
    cal_page.selectbox(key="cal_judge_select").set_value("sim-judge-steady").run()
    cal_page.selectbox(key="cal_candidate").set_value("sim-alder").run()
    # the page may start on the leader's runner-up: certification and the PPI gate need all opponents
    cal_page.selectbox(key="cal_baseline").set_value("All opponents").run()
    assert not cal_page.exception
    infos = _texts(_tab(cal_page, 1).info)
    assert "corrected by the humans' labels" in infos and "at most twice the labels" in infos
    tables = [d.value for d in cal_page.dataframe]
    ppi = [t for t in tables if "Prediction-powered" in t.columns]
    assert ppi and len(ppi[0]) == 20 and ppi[0]["Human labels only"].str.contains("–").all()
    # the certification line, and a threshold it cannot reach
    assert "Certified" in _texts(_tab(cal_page, 0).success) + _texts(cal_page.warning)
    cal_page.slider(key="cal_certify").set_value(99).run()
    assert "Not certified" in _texts(cal_page.warning)
    # the gate on prediction-powered ratings needs a model under Against
    _tab(cal_page, 4).radio(key="cal_gate_on").set_value("prediction-powered").run()
    assert "pick one under 'Against'" in _texts(cal_page.info)
    cal_page.selectbox(key="cal_baseline").set_value("sim-birch").run()
    assert not cal_page.exception
    assert "gated on the **prediction-powered** number" in _texts(cal_page.success) + _texts(cal_page.error)
    assert "Estimand: the Bradley–Terry probability" in _texts(cal_page.caption)


#: The floor and size inputs as a copied link carries them (none is the page's default).
FLOOR_LINK = {
    "max_floor": "30",
    "sizes": "50,200",
    "custom_size": "300",
    "js": "0.4",
    "target": "5",
    "max_labelled": "5000",
    "quality": "typed Youden's J 0.40",
}


def test_a_copied_link_reproduces_the_floor_and_size_numbers():
    from evalcore.calibration import size_plan

    at = new_app(timeout=90)
    for name, value in FLOOR_LINK.items():
        at.query_params[name] = value
    at.run()
    at.switch_page("pages/calibration.py").run()
    assert not at.exception
    assert at.slider(key="cal_max_floor").value == 30
    assert at.multiselect(key="cal_floor_sizes").value == [50, 200]
    assert at.number_input(key="cal_floor_custom").value == 300
    assert at.text_input(key="cal_floor_js").value == "0.4"
    assert at.slider(key="cal_target").value == 5
    assert at.number_input(key="cal_max_labelled").value == 5000
    assert at.selectbox(key="cal_plan_source").value == "typed Youden's J 0.40"
    # the size picker's answer is the library's for these inputs, not the default's
    plan = size_plan(0.05, max_labelled=5000, youden_j=0.4)
    shown = _texts(at.success) + _texts(at.warning)
    assert plan.explanation in shown
    assert size_plan(0.10, max_labelled=1600, youden_j=0.57).explanation not in shown
    # the unknown-parameter warning does not fire: the page reads every one of them
    assert not any("not a setting of this page" in str(w.value) for w in at.warning)


def test_the_floor_and_size_inputs_are_written_into_the_link(cal_page):
    at = _tab(cal_page, 2)
    for name in FLOOR_LINK:  # the defaults keep the link short
        assert name not in at.query_params
    at.slider(key="cal_target").set_value(7)
    at.text_input(key="cal_floor_js").input("0.3")
    at.multiselect(key="cal_floor_sizes").set_value([800])
    at.number_input(key="cal_max_labelled").set_value(2000)
    at.slider(key="cal_max_floor").set_value(25)
    at.run()
    assert not at.exception
    assert at.query_params["target"] == "7"
    assert at.query_params["js"] == "0.3"
    assert at.query_params["sizes"] == "800"
    assert at.query_params["max_labelled"] == "2000"
    assert at.query_params["max_floor"] == "25"


def test_the_open_tab_is_kept_in_the_link_and_only_it_is_drawn(cal_page):
    at = cal_page
    assert "tab" not in at.query_params  # the first tab keeps the link short
    assert not [s for s in at.subheader if "cover the truth" in s.value]  # a hidden tab: not drawn
    _tab(at, 3)
    assert at.query_params["tab"] == "Coverage simulation"
    assert [s for s in at.subheader if "cover the truth" in s.value]
    # a copied link opens on that tab; a tab that does not exist is named in a warning
    fresh = new_app(timeout=90)
    fresh.query_params["tab"] = "Gates"
    fresh.run()
    fresh.switch_page("pages/calibration.py").run()
    assert not fresh.exception
    assert fresh.session_state["cal_tab"] == "Gates" and fresh.radio(key="cal_gate_kind")
    wrong = new_app(timeout=90)
    wrong.query_params["tab"] = "Nope"
    wrong.run()
    wrong.switch_page("pages/calibration.py").run()
    assert "tab=Nope" in _texts(wrong.warning)
    assert wrong.session_state["cal_tab"] == "Correction"
