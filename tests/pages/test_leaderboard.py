"""AppTest: the Leaderboard page shows ratings with intervals that match the library; its sections
below the table are tabs of which only the open one is drawn and computed (a link opens the tab it
names or whose setting it sets)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from evalcore.ranking import leaderboard
from tests.conftest import new_app, open_page, open_tab
from ui.leaderboard_view import CATEGORY_HEADING, TABS, TIME_HEADING
from ui.state import DEFAULT_DEMO, DEMO_JUDGE

DEMO_JUDGE = DEMO_JUDGE[DEFAULT_DEMO]  # the judge the demo opens on (its steady one)


def _leaderboard_page() -> AppTest:
    return open_page("pages/leaderboard.py")


@pytest.fixture(scope="module")
def default_view() -> AppTest:
    """The page's default view, opened once for the tests that only read it."""
    return _leaderboard_page()


@pytest.fixture(scope="module")
def bootstrap_board(demo_store):
    """The library's leaderboard of the demo's first judge, as the page computes it by default."""
    return leaderboard(demo_store.counts(judge=DEMO_JUDGE), rounds=1000, seed=0)


def test_table_matches_the_library_and_plots_are_drawn(default_view, bootstrap_board):
    at, board = default_view, bootstrap_board
    shown = at.dataframe[0].value
    assert shown["Model"].tolist() == board.table["model"].tolist()
    highs = [float(v.split("–")[1].replace(",", "")) for v in shown["95% interval"]]
    np.testing.assert_allclose(highs, board.table["ci_high"], atol=0.5)
    assert "Tier" in shown.columns and shown["Tier"].iloc[0] == 1
    assert not shown.isna().any().any()
    charts = [el for el in at.get("plotly_chart")]
    assert len(charts) == 2  # the ratings and the first tab's separation matrix
    spec = json.loads(charts[0].proto.spec)
    assert spec["data"][0]["y"][0] == board.table["model"].iloc[0]
    assert any("bootstrap rounds" in c.value for c in at.caption)


def test_changing_the_judge_changes_the_leaderboard():
    at = _leaderboard_page()
    first = at.dataframe[0].value["Rating"].tolist()
    at.selectbox(key="judge_select").select_index(2).run()
    assert not at.exception
    assert first != at.dataframe[0].value["Rating"].tolist()


def test_sandwich_picker_goes_into_the_link_and_matches_the_library(demo_store):
    at = _leaderboard_page()
    assert at.radio(key="lb_interval").value == "Bootstrap over instructions"
    at.radio(key="lb_interval").set_value("Sandwich (clustered, fast)").run()
    assert not at.exception
    assert at.query_params.get("interval") in ("sandwich", ["sandwich"])
    board = leaderboard(demo_store.counts(judge=DEMO_JUDGE), rounds=1000, seed=0, interval="sandwich")
    shown = at.dataframe[0].value
    lows = [float(v.split("–")[0].replace(",", "")) for v in shown["95% interval"]]
    np.testing.assert_allclose(lows, board.table["ci_low"], atol=0.5)
    assert any("sandwich" in c.value for c in at.caption)


@pytest.mark.usefixtures("small_demo")  # replaced by an upload at once
def test_a_model_named_model_does_not_break_the_page(tmp_path, monkeypatch):
    import pandas as pd

    monkeypatch.setenv("VERDICTLAB_WORKSPACE", str(tmp_path / "ws.duckdb"))
    rows = [
        {"instruction_id": f"i{i}", "model_a": a, "model_b": b, "verdict": (i + k) % 5 - 2}
        for i in range(40)
        for k, (a, b) in enumerate([("model", "row model"), ("row model", "x"), ("x", "model")])
    ]
    at = new_app()
    at.run()
    at.file_uploader(key="upload").upload(
        "names.csv", pd.DataFrame(rows).to_csv(index=False).encode(), "text/csv"
    ).run()
    at.switch_page("pages/leaderboard.py").run()
    assert not at.exception, at.exception
    assert set(at.dataframe[0].value["Model"]) == {"model", "row model", "x"}


def test_no_rounds_no_intervals_no_nan_and_separation_says_why():
    at = _leaderboard_page()
    at.number_input(key="lb_rounds").set_value(0).run()
    assert not at.exception
    shown = at.dataframe[0].value
    assert set(shown["95% interval"]) == {"—"} and not shown.isna().any().any()
    assert any("No separation test" in i.value and "bootstrap rounds" in i.value for i in at.info)


def test_style_control_toggle_adds_rank_change_and_matches_the_library(demo_store):
    from evalcore.ranking.style import controlled_leaderboard

    at = _leaderboard_page()
    assert "Rank change" not in at.dataframe[0].value.columns
    choice = at.multiselect(key="lb_style")
    # the demo carries the answers' text: Markdown is counted in it and offered beside the rest
    assert choice.options == [
        "Length",
        "Markdown (headers, bold, lists)",
        "Slot position (first-slot advantage)",
        "Same family as the judge",
    ]
    at.multiselect(key="lb_style").set_value(["length", "position"]).run()
    assert not at.exception
    shown = at.dataframe[0].value
    assert {"Rank change", "Controlled rating", "Controlled 95% interval"} <= set(shown.columns)
    judge = DEMO_JUDGE
    styled = controlled_leaderboard(demo_store, judge=judge, controls=["length", "position"])
    assert shown["Model"].tolist() == styled.table["model"].tolist()
    np.testing.assert_allclose(
        [float(v.replace(",", "")) for v in shown["Controlled rating"]], styled.table["rating"], atol=0.5
    )
    assert any("Controlling for style" in c.value for c in at.caption)
    # Same family as the judge: the demo's judges name no known family, refused in words.
    at.multiselect(key="lb_style").set_value(["family"]).run()
    assert not at.exception
    assert any("No style control" in w.value for w in at.warning)


@pytest.mark.usefixtures("small_demo")  # replaced by an upload at once
def test_style_toggle_offers_markdown_from_feat_columns_and_refuses_the_slot_of_anchor_only(
    tmp_path, monkeypatch
):
    import pandas as pd

    from evalcore.simulate.tables import arena_verdict_frame, simulate_arena

    monkeypatch.setenv("VERDICTLAB_WORKSPACE", str(tmp_path / "ws.duckdb"))
    sim = simulate_arena(n_battles=3000, n_models=5, seed=3, style_effects={"lists": 1.0})
    frame = arena_verdict_frame(sim).drop(columns=["row", "human", "category"])
    # anchor-only, the anchor always in slot B: the first-slot advantage is not identified
    frame = frame[frame["model_b"] == "sim-arena-000"]
    at = new_app()
    at.run()
    at.file_uploader(key="upload").upload("feat.csv", frame.to_csv(index=False).encode(), "text/csv").run()
    at.switch_page("pages/leaderboard.py").run()
    assert not at.exception, at.exception
    assert "Markdown (headers, bold, lists)" in at.multiselect(key="lb_style").options
    at.multiselect(key="lb_style").set_value(["markdown"]).run()
    assert not at.exception
    assert "Rank change" in at.dataframe[0].value.columns
    at.multiselect(key="lb_style").set_value(["markdown", "position"]).run()
    assert any("No style control" in w.value and "slot" in w.value for w in at.warning)
    assert "Rank change" not in at.dataframe[0].value.columns
    assert pd.notna(at.dataframe[0].value["Rating"]).all()


@pytest.mark.usefixtures("small_demo")  # replaced by an upload at once
def test_a_model_on_few_instructions_is_marked_in_the_table_and_the_notes():
    """Issue 25, item 4: a model on 2 of 60 instructions gets its caveat on the page."""
    from tests.bt_sim import simulate_rare
    from tests.ranking.test_few_instructions import RARE, THETA, _frame

    counts = simulate_rare(THETA, 60, 2, effect_sd=0.8, tie_rate=0.2, seed=3)
    at = open_page()
    data = _frame(counts).to_csv(index=False).encode()
    at.file_uploader(key="upload").upload("rare.csv", data, "text/csv").run()
    at.switch_page("pages/leaderboard.py").run()
    assert not at.exception
    shown = at.dataframe[0].value.set_index("Model")
    assert shown.loc[RARE, "95% interval"].endswith("(rough: few instructions)")
    assert shown.loc[RARE, "Instructions"] == 2
    assert "rough" not in shown.drop(index=RARE)["95% interval"].str.cat()
    assert any(f"{RARE} (2 of 60)" in w.value for w in at.warning)


@pytest.mark.usefixtures("small_demo")  # replaced by an upload at once
def test_many_models_chart_the_first_ones_and_download_the_pairs_not_a_matrix(tmp_path, monkeypatch):
    """300 models: the chart draws the table's first 50 (a picker offers more, never all), and the
    win rates are downloaded as the pairs that met, never built as a models × models matrix."""
    from evalcore.ranking.leaderboard import Leaderboard
    from evalcore.simulate.arena import arena_verdict_frame, simulate_arena

    def refused(self):
        raise AssertionError("the page built a models × models win-rate matrix")

    monkeypatch.setattr(Leaderboard, "win_rate_matrix", property(refused))
    monkeypatch.setenv("VERDICTLAB_WORKSPACE", str(tmp_path / "ws.duckdb"))
    frame = arena_verdict_frame(simulate_arena(n_battles=3000, n_models=300, seed=1))
    csv = frame[["instruction_id", "model_a", "model_b", "verdict", "judge"]].to_csv(index=False).encode()
    at = new_app()
    at.run()
    at.file_uploader(key="upload").upload("many.csv", csv, "text/csv").run()
    at.switch_page("pages/leaderboard.py").run(timeout=120)
    assert not at.exception, at.exception
    table = at.dataframe[0].value
    assert len(table) == 300  # every model in the table
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert spec["data"][0]["y"] == table["Model"].tolist()[:50]
    assert at.selectbox(key="lb_forest_top").options == ["50", "100", "200"]
    assert any("first 50 of 300 models" in c.value for c in at.caption)
    at.selectbox(key="lb_forest_top").set_value(200).run(timeout=120)
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert len(spec["data"][0]["y"]) == 200


def _titles(at: AppTest) -> list[str]:
    """The titles of the charts drawn now."""
    return [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart")]


def _subheaders(at: AppTest) -> list[str]:
    return [h.value for h in at.subheader]


#: The subheading each tab draws (the first heading of its section).
HEADINGS = {
    "Separation": "Separation",
    "Win rates": "Head-to-head win rates",
    "Several judges": "Several judges, one ranking",
    "Categories": CATEGORY_HEADING,
    "In time": TIME_HEADING,
}
#: The results of the tabs below the first, under their keys' first names (the categories'
#: analysis is the findings' result of that name).
HIDDEN_RESULTS = {"judge_pooling", "heterogeneity", "has_times", "judging_days", "as_of", "time_windows"}
HIDDEN_RESULTS |= {"judge_drift", "pair_win_rates"}


def test_the_table_and_chart_are_drawn_and_only_the_open_tab(shared_keys):
    """A first visit computes and draws the table, its stability line, the ratings chart and the
    first tab (the separation matrix) only: the pooled ranking, the categories and the ranking in
    time are neither computed nor drawn until their tab is opened."""
    at = _leaderboard_page()
    assert not at.exception and not at.error
    assert [t.label for t in at.tabs] == list(TABS) == list(HEADINGS)
    assert at.session_state["lb_tab"] == "Separation" and "tab" not in at.query_params
    assert _subheaders(at) == ["Separation"]  # the hidden tabs draw nothing
    assert {json.loads(c.proto.spec)["data"][0]["type"] for c in at.get("plotly_chart")} == {
        "scatter",
        "heatmap",
    }  # the ratings and the separation matrix, not the win rates
    assert len(at.get("plotly_chart")) == 2
    assert any(c.value.startswith("Stability: ") for c in at.caption)
    names = {k[1] if k[0] == "findings" else k[0] for k in shared_keys}
    assert {"leaderboard", "separation", "split_half"} <= names
    assert not names & HIDDEN_RESULTS, names & HIDDEN_RESULTS


def test_every_tab_draws_its_section_and_is_kept_in_the_link(default_view):
    at = default_view
    seen = {"Separation": (_subheaders(at), _titles(at))}
    for label in TABS[1:]:
        open_tab(at, "lb_tab", label)
        assert not at.error, label
        assert at.query_params["tab"] in (label, [label])
        seen[label] = (_subheaders(at), _titles(at))
    open_tab(at, "lb_tab", "Separation")
    assert "tab" not in at.query_params  # the first tab keeps the link short
    for label, (headings, _) in seen.items():
        assert headings == [HEADINGS[label]], (label, headings)  # each tab draws its section only
    forest = seen["Separation"][1][0]
    win_rates = [t for t in seen["Win rates"][1] if t != forest]
    assert len(win_rates) == 1 and win_rates[0] not in seen["Separation"][1]
    assert all(titles == [forest] for label, (_, titles) in seen.items() if label not in TABS[:2])


@pytest.mark.parametrize(
    ("link", "tab"),
    [({"tab": "Win rates"}, "Win rates"), ({"tab": "In time"}, "In time"), ({"as_of": "first"}, "In time")],
    ids=["tab", "tab-time", "as_of"],
)
def test_a_link_opens_its_tab(link, tab, demo_store):
    from evalcore.ranking.judging_times import judging_days

    days = judging_days(demo_store, judge=DEMO_JUDGE)
    at = new_app()
    for name, value in link.items():
        at.query_params[name] = days[-1] if value == "first" else value
    at.run()
    at.switch_page("pages/leaderboard.py").run()
    assert not at.exception and not at.error
    assert at.session_state["lb_tab"] == tab
    assert _subheaders(at) == [HEADINGS[tab]]
    if tab == "Win rates":  # the clickable matrix whose cell opens that pair's verdicts
        assert any(c.proto.selection_mode for c in at.get("plotly_chart"))
    if "as_of" in link:  # the link's day is the one shown, not refused
        assert at.selectbox(key="lb_as_of").value == days[-1]
        assert all("as_of" not in w.value for w in at.warning)
