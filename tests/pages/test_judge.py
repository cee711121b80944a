"""The Judge page in AppTest: the demo's three judges side by side, every section drawn."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT, open_page


def _texts(at: AppTest) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += [h.value for h in at.header] + [i.value for i in at.info] + [w.value for w in at.warning]
    return "\n".join(str(p) for p in parts)


@pytest.fixture(scope="module")
def judge_page() -> AppTest:
    return open_page("pages/judge.py")


def test_page_shows_every_section(judge_page):
    at = judge_page
    assert not at.exception
    headers = [h.value for h in at.header]
    for start in (
        "The judges side by side",
        "1. Position",
        "2. Order-swap",
        "3. Coverage",
        "4. Agreement",
        "5. Length",
        "The sheet of",
    ):
        assert any(h.startswith(start) for h in headers), start
    labels = {m.label: m.value for m in at.metric}
    assert labels["Position bias"].endswith(" pp")  # percentage points
    assert "Cohen's kappa" in labels and "Agreement among humans" in labels
    assert labels["Self-comparison ties"] == "—"  # the demo has no self-comparisons
    assert not at.error


def test_side_by_side_marks_the_steady_judge(judge_page):
    table = judge_page.dataframe[0].value
    assert list(table["Judge"]) == ["sim-judge-first-slot", "sim-judge-steady", "sim-judge-tie-happy"]
    steady = table.set_index("Judge").loc["sim-judge-steady"]
    assert steady["Swap consistency"].endswith("★")
    assert steady["No-verdict rate"].endswith("★")
    first = table.set_index("Judge").loc["sim-judge-first-slot"]
    assert float(first["Position bias (percentage points)"].split()[0]) > 15
    assert not first["Position bias (percentage points)"].endswith("★")


def test_figures_and_downloads(judge_page):
    charts = judge_page.get("plotly_chart")
    assert len(charts) >= 8
    titles = [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in charts]
    assert "Position bias: first-slot preference" in titles
    assert "Self-preference" in titles
    assert "Compression of the printed win rate" in titles
    assert len(judge_page.get("download_button")) >= 8


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
    text = _texts(at)
    assert "human label" in text  # agreement explained as unavailable
    assert "one judge" in text  # self-preference needs two judges
    assert at.metric  # the position metrics are still drawn


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
    assert labels["Slot-A bias"] == "—"


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
