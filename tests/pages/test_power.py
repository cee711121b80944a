"""The Power page in AppTest: Table 2 reproduced, the Wilcoxon simulation, detectable edges."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import open_page


def _page() -> AppTest:
    return open_page("pages/power.py", timeout=90)


def _frames(at: AppTest) -> list:
    return [d.value for d in at.dataframe]


def _metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def _charts(at: AppTest) -> list[dict]:
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


@pytest.fixture(scope="module")
def power_page() -> AppTest:
    return _page()


def test_page_reproduces_table2(power_page):
    paper = next(f for f in _frames(power_page) if "total at informativeness 45% (o3)" in f.columns)
    assert paper["discordant"].tolist() == [617, 153]
    assert paper["exact binomial"].tolist() == [620, 158]
    assert paper["total at informativeness 45% (o3)"].tolist() == [1372, 340]
    assert paper["total at informativeness 54% (mean)"].tolist()[0] == 1143
    assert any("341" in c.value for c in power_page.caption)  # the explanation beside the 340


def test_typed_informativeness_and_exact(power_page):
    at = power_page
    at.radio(key="pw_info_source").set_value("Type it in").run()
    at.number_input(key="pw_info_typed").set_value(0.45).run()
    plan = next(f for f in _frames(at) if "Differing instructions needed" in f.columns)
    assert plan["Edge"].tolist() == ["+5%", "+10%"]
    assert plan["Differing instructions needed"].tolist() == [617, 153]
    assert plan["Instructions needed (sign test, calculated)"].tolist() == [1372, 340]
    at.toggle(key="pw_exact").set_value(True).run()
    plan = next(f for f in _frames(at) if "Differing instructions needed" in f.columns)
    assert plan["Differing instructions needed"].tolist() == [620, 158]
    assert not at.exception


def test_wilcoxon_curve_and_detectable_edges_drawn(power_page):
    at = power_page
    specs = _charts(at)
    curve = next(
        s for s in specs if "Power against the number of instructions" in s["layout"]["title"]["text"]
    )
    names = {t["name"] for t in curve["data"]}
    assert {"Wilcoxon signed-rank (simulated)", "sign test (simulated)"} <= names
    # the horizontal target line at the chosen power
    assert any(sh.get("y0") == 0.8 and sh.get("y1") == 0.8 for sh in curve["layout"]["shapes"])
    assert _metric(at, "Distributions") != "0"
    assert any("Adjacent pairs" in s["layout"]["title"]["text"] for s in specs)
    resolved = _metric(at, "Adjacent pairs separated")
    assert " of 19" in resolved
    assert any("top two models" in m.value for m in list(at.success) + list(at.warning))
    # "Resolved" is a two-sided sign test, Holm-adjusted across the adjacent pairs, and says so.
    assert any(
        "two-sided sign test, Holm-adjusted across the 19 adjacent pairs" in c.value for c in at.caption
    )
    table = next(f for f in _frames(at) if "Observed edge" in f.columns)
    assert {"Higher-ranked model", "p (Holm-adjusted)", "Resolved"} <= set(table.columns)
    assert not any("_" in c for c in table.columns)
    # The detectable edges (the chart's marks) are that test's, at Holm's first step (issue 25,
    # item 7): no pair at or beyond its mark is drawn "not resolved".
    assert any(
        "two-sided sign test at the 5% level divided by the 19 pairs tested" in c.value
        and "Holm's first step" in c.value
        for c in at.caption
    )
    edges = next(s for s in specs if "Adjacent pairs" in s["layout"]["title"]["text"])
    marks, observed = edges["data"][0], edges["data"][1]
    assert "the resolution test" in marks["name"]
    xs, at_mark = _numbers(observed["x"]), _numbers(marks["x"])
    beyond = np.isfinite(xs) & np.isfinite(at_mark) & (xs >= at_mark)
    assert all(observed["customdata"][k][2] == "resolved" for k in np.flatnonzero(beyond))


def _numbers(values) -> np.ndarray:
    """A Plotly array as numbers (binary-encoded when numeric)."""
    if isinstance(values, dict):
        return np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"])
    return np.array([np.nan if v is None else v for v in values], dtype=float)


def test_one_pair_mode_and_anchor_comparison(power_page):
    at = power_page
    at.radio(key="pw_mode").set_value("One model pair").run()
    assert not at.exception
    assert _metric(at, "Distributions") == "1"
    at.radio(key="pw_compare").set_value("Against the anchor").run()
    assert not at.exception
    table = next(f for f in _frames(at) if "Observed edge" in f.columns)
    assert len(table) == 19


@pytest.mark.usefixtures("small_demo")  # the anchor-only demo replaces it at once
def test_anchor_only_demo():
    at = _page()
    at.selectbox(key="pw_anchor").set_value("sim-juniper").run()  # a model both demos share
    at.switch_page("app.py").run()
    at.selectbox(key="demo_choice").set_value(
        "Demo: anchor-only (AlpacaEval-style), 16 simulated models"
    ).run()
    at.button(key="load_demo").click().run()
    at.switch_page("pages/power.py").run()
    assert not at.exception
    assert at.selectbox(key="pw_anchor").value == "sim-birch"
    assert at.radio(key="pw_compare").value == "Against the anchor"
    assert " of 15" in _metric(at, "Adjacent pairs separated")
    # Head-to-head on an anchor-only table: the pairs that never met are explained.
    at.radio(key="pw_compare").set_value("Head-to-head").run()
    assert not at.exception
    assert any("never judged head-to-head" in i.value for i in at.info)


def test_stop_judging_section_shows_the_sequence_and_its_stopping_point(power_page, demo_store):
    """The monitor section: the answer, the tiles from the catalogue, the curve; the number of
    verdicts to a decision equals the library's for the same pair."""
    from evalcore.power.monitor import monitor_pair

    at = power_page
    a = at.selectbox(key="pw_monitor_a").value
    b = at.selectbox(key="pw_monitor_b").value
    judge = at.selectbox(key="pw_judge_select").value
    tile = _metric(at, "Verdicts to a decision")
    assert tile == "not yet" or tile.replace(",", "").isdigit()
    assert _metric(at, "Rating difference, anytime-valid range")
    assert any(
        "as verdicts arrive" in json.dumps(c) and "rating difference" in json.dumps(c) for c in _charts(at)
    )
    expected = monitor_pair(demo_store, model_a=a, model_b=b, judge=judge).stopped_at
    assert tile == (f"{expected:,}" if expected else "not yet")
    at.radio(key="pw_monitor_mode").set_value("Is the leader really first").run()
    assert any("smallest lead" in json.dumps(c) for c in _charts(at))
    assert not at.exception
