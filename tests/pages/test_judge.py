"""The Judge page in AppTest: the demo's three judges side by side above, one judge's sections in
tabs of which only the open one is drawn (a link opens the tab it names or whose setting it sets)."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT, new_app, open_page, open_tab
from ui.judge_view import TABS


def _texts(at: AppTest) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += [h.value for h in at.header] + [i.value for i in at.info] + [w.value for w in at.warning]
    return "\n".join(str(p) for p in parts)


def _titles(at: AppTest) -> list[str]:
    """The titles of the charts drawn now (a title's line break read as a space)."""
    titles = [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart")]
    return [t.replace("<br>", " ") for t in titles]


def _tab(at: AppTest, label: str) -> AppTest:
    """Open the tab ``label`` (the page draws only the open one)."""
    return open_tab(at, "judge_tab", label)


@pytest.fixture(scope="module")
def judge_page() -> AppTest:
    return open_page("pages/judge.py")


def test_the_top_is_drawn_and_only_the_open_tab(judge_page):
    at = judge_page
    assert not at.exception and not at.error
    assert [t.label for t in at.tabs] == list(TABS)
    assert at.session_state["judge_tab"] == "Position" and "tab" not in at.query_params
    headers = [h.value for h in at.header]
    assert headers == ["The judges side by side", "Position"]  # the hidden tabs draw nothing
    assert at.selectbox(key="judge_page_select").value  # the judge picker is above the tabs
    assert _titles(at) == [
        "Position bias: first-slot preference",
        "Ties: what the judge says vs what both orders produce",
    ]
    labels = {m.label: m.value for m in at.metric}
    assert labels["Position bias"].endswith(" pp")  # percentage points
    assert "Cohen's kappa" not in labels  # the agreement tab is hidden
    assert len(at.get("download_button")) == 1  # the comparison's, at the top


def test_every_tab_draws_its_section(judge_page):
    at = judge_page
    seen = {"Position": (_titles(at), {m.label: m.value for m in at.metric}, [h.value for h in at.header])}
    downloads = len(at.get("download_button"))
    for label in TABS[1:]:
        _tab(at, label)
        assert not at.error, label
        assert at.query_params["tab"] == label
        seen[label] = (_titles(at), {m.label: m.value for m in at.metric}, [h.value for h in at.header])
        downloads += len(at.get("download_button")) - 1  # the comparison's is drawn on every tab
    _tab(at, "Position")
    assert "tab" not in at.query_params  # the first tab keeps the link short
    assert "Order-swap decomposition per anchor" in seen["Order swap"][0]
    assert seen["Order swap"][1]["Self-comparison ties"] == "—"  # the demo has no self-comparisons
    assert "Coverage" in seen["Coverage"][2]
    assert "Cohen's kappa" in seen["Agreement with humans"][1]
    assert "Agreement among humans" in seen["Agreement with humans"][1]
    assert "Compression of the printed win rate" in seen["Agreement with humans"][0]
    assert {"Length preference", "Self-preference"} <= set(seen["Length and family"][0])
    assert any(h.startswith("The sheet of") for h in seen["Sheet and weights"][2])
    assert "Weights in the pooled ranking" in seen["Sheet and weights"][2]
    # each chart is drawn on its own tab only
    for label, (titles, _, _) in seen.items():
        for other, (others, _, _) in seen.items():
            assert other == label or not set(titles) & set(others), (label, other)
    assert sum(len(titles) for titles, _, _ in seen.values()) >= 8 and downloads >= 8


@pytest.mark.parametrize(
    ("link", "tab"),
    [({"tab": "Coverage"}, "Coverage"), ({"agree_orders": "1"}, "Agreement with humans")],
    ids=["tab", "agree_orders"],
)
def test_a_link_opens_its_tab(link, tab):
    at = new_app()
    for name, value in link.items():
        at.query_params[name] = value
    at.run()
    at.switch_page("pages/judge.py").run()
    assert not at.exception and not at.error
    assert at.session_state["judge_tab"] == tab
    assert tab in [h.value for h in at.header] and "Position" not in [h.value for h in at.header]
    if "agree_orders" in link:  # the link's setting is applied on the tab it opened
        assert at.toggle(key="judge_agree_both").value is True
        assert at.query_params["agree_orders"] == "1"
        assert "Cohen's kappa" in {m.label for m in at.metric}
    assert not at.warning or all("agree_orders" not in w.value for w in at.warning)


def test_a_hidden_tabs_setting_in_a_link_is_kept_not_refused():
    # a link with both a tab and the agreement switch opens the named tab; the switch is kept in
    # the link (not said to be unknown) and applies once its tab is opened
    at = new_app()
    at.query_params["tab"] = "Coverage"
    at.query_params["agree_orders"] = "1"
    at.run()
    at.switch_page("pages/judge.py").run()
    assert not at.exception and not at.error
    assert at.session_state["judge_tab"] == "Coverage"
    assert all("agree_orders" not in w.value for w in at.warning)
    _tab(at, "Agreement with humans")
    assert at.toggle(key="judge_agree_both").value is True


def test_side_by_side_marks_the_steady_judge(judge_page):
    table = judge_page.dataframe[0].value
    assert list(table["Judge"]) == ["sim-judge-first-slot", "sim-judge-steady", "sim-judge-tie-happy"]
    steady = table.set_index("Judge").loc["sim-judge-steady"]
    assert steady["Swap consistency"].endswith("★")
    assert steady["No-verdict rate"].endswith("★")
    first = table.set_index("Judge").loc["sim-judge-first-slot"]
    assert float(first["Position bias (percentage points)"].split()[0]) > 15
    assert not first["Position bias (percentage points)"].endswith("★")


@pytest.mark.usefixtures("small_demo")  # the anchor-only demo replaces it at once
def test_anchor_only_demo_has_no_agreement_and_no_crash():
    # the anchor-only demo (one judge, no human labels), loaded through the shared helper
    script = (
        "import ui as _ui\n"
        "_ui.ensure_data()\n"
        "if _ui.state()['demo'] == _ui.DEFAULT_DEMO:\n"
        "    _ui.load_demo(list(_ui.DEMO_DATASETS)[1])\n"
        "import runpy\n"
        f"runpy.run_path({str(ROOT / 'pages' / 'judge.py')!r}, run_name='__main__')\n"
    )
    at = AppTest.from_string(script, default_timeout=120)
    at.run()
    assert not at.exception
    assert at.metric  # the position metrics are still drawn
    assert "human label" in _texts(_tab(at, "Agreement with humans"))  # explained as unavailable
    assert "one judge" in _texts(_tab(at, "Length and family"))  # self-preference needs two judges


def test_reference_fixed_in_one_slot_is_shown_as_a_design_warning(tmp_path):
    # AlpacaEval-style table with the reference always in slot B: the page refuses position
    # bias ("—") and says why, instead of reporting a second-slot preference
    from evalcore.simulate.tables import JudgeSpec, SimulationSpec, simulate

    names = ("sim-alder", "sim-birch", "sim-cedar", "sim-dogwood", "sim-elm")
    sim = simulate(
        SimulationSpec(
            n_models=5,
            n_instructions=30,
            design="anchor",
            anchor="sim-alder",
            both_orders=False,
            model_names=names,
            judges=(JudgeSpec("j"),),
            seed=4,
        )
    )
    frame = sim.verdicts.drop(columns=["row"]).copy()
    flip = frame["model_a"] == "sim-alder"
    frame.loc[flip, ["model_a", "model_b"]] = frame.loc[flip, ["model_b", "model_a"]].to_numpy()
    frame.loc[flip, "verdict"] = -frame.loc[flip, "verdict"]
    path = tmp_path / "anchor_fixed.csv"
    frame.to_csv(path, index=False)
    script = (
        "import ui as _ui\n"
        "from evalcore.store.store import read_verdicts\n"
        f"_ui.install(read_verdicts({str(path)!r}))\n"
        "import runpy\n"
        f"runpy.run_path({str(ROOT / 'pages' / 'judge.py')!r}, run_name='__main__')\n"
    )
    at = AppTest.from_string(script, default_timeout=120)
    at.run()
    assert not at.exception
    warnings = "\n".join(w.value for w in at.warning)
    assert "No model pair was judged in both slot orders" in warnings
    assert "sim-alder (slot B" in warnings
    labels = {m.label: m.value for m in at.metric}
    assert labels["Position bias"] == "—"
    assert {m.label: m.value for m in _tab(at, "Order swap").metric}["Slot-A bias"] == "—"


def test_each_design_warning_is_said_once(judge_page):
    # the demo's labels are one human judgement per pair: said once for every judge at the top,
    # not again for the chosen judge (nor in its agreement section)
    from evalcore.judge.agreement import ONE_JUDGEMENT_NOTE

    said = [str(m.value) for m in (*judge_page.warning, *judge_page.info)]
    assert sum(ONE_JUDGEMENT_NOTE in text for text in said) == 1, said


def test_intervals_are_analytic_first_and_resampled_on_request(judge_page):
    from evalcore.judge import DEFAULT_INTERVAL, interval_words

    captions = "\n".join(str(c.value) for c in judge_page.caption)
    assert interval_words(DEFAULT_INTERVAL, 0) in captions
    assert not [n for n in judge_page.number_input if n.label == "Bootstrap rounds"]
    at = open_page("pages/judge.py")
    at.toggle(key="judge_resample").set_value(True).run()
    assert not at.exception
    rounds = [n for n in at.number_input if n.label == "Bootstrap rounds"]
    assert rounds and rounds[0].value == 1000
    captions = "\n".join(str(c.value) for c in at.caption)
    assert interval_words("bootstrap", 1000) in captions
