"""AppTest: the Anchors page shows the library's numbers, runs its sweeps on a button press,
accepts a human-ranking upload, and explains instead of failing on an anchor-only table."""

from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from evalcore.anchors import anchor_sweep
from evalcore.io import read_human_ranking, read_verdicts
from evalcore.store import VerdictStore
from evalcore.text import fmt_num, fmt_pct
from tests.conftest import ROOT


def _page() -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    at.switch_page("pages/anchors.py").run()
    assert not at.exception
    return at


def _library_sweep(judge: str | None = None):
    store = VerdictStore()
    store.load(read_verdicts(ROOT / "data" / "demo_all_pairs.parquet"))
    judge = judge or store.judges()[0]
    human = read_human_ranking(ROOT / "data" / "demo_human_ranking.csv")
    sweep = anchor_sweep(store.counts(judge=judge), human_ranking=human)
    store.close()
    return sweep


def _table(at: AppTest, column: str):
    """The first table on the page with this column."""
    return next(df.value for df in at.dataframe if column in df.value.columns)


def _charts(at: AppTest) -> list[dict]:
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


def test_per_anchor_table_and_figures_match_the_library():
    at = _page()
    sweep = _library_sweep()
    shown = _table(at, "Tau with all pairs")
    assert shown["Anchor"].tolist() == sweep.table["anchor"].tolist()
    # Human column names, numbers written with sensible decimals, "—" for a missing value.
    assert not any("_" in c for c in shown.columns)
    assert shown["Tau with all pairs"].tolist() == [fmt_num(v, 3) for v in sweep.table["tau_quadratic"]]
    assert shown["Tau with humans"].tolist() == [fmt_num(v, 3) for v in sweep.table["tau_human"]]
    assert shown["Informativeness"].tolist() == [fmt_pct(v, 1) for v in sweep.table["informativeness"]]
    assert at.metric[0].value == sweep.recommended
    assert any("tau-b" in c.value for c in at.caption)
    titles = [c["layout"]["title"]["text"] for c in _charts(at)]
    assert any("Fig. 1" in t for t in titles) and any("Fig. 3" in t for t in titles)
    u = next(c for c in _charts(at) if "Fig. 1" in c["layout"]["title"]["text"])
    assert u["data"][0]["text"] == sweep.table["anchor"].tolist()  # names on hover
    assert any("3-level ceiling" in m.value for m in at.markdown)
    assert any("beats every model on" in m.value for m in at.markdown)
    assert any("Anchor-based evaluation against" in c.value for c in at.code)


def test_sweeps_and_pilot_run_on_button_press():
    at = _page()
    assert not any(
        "Fig. 4" in c["layout"]["title"]["text"] or "§5.1" in c["layout"]["title"]["text"]
        for c in _charts(at)
    )
    at.number_input(key="anchors_sweep_reps").set_value(3).run()
    at.button(key="anchors_btn_sizes").click().run()
    at.number_input(key="anchors_count_perms").set_value(3).run()
    at.button(key="anchors_btn_count").click().run()
    at.button(key="anchors_btn_pilot").click().run()
    at.button(key="anchors_btn_judges").click().run()
    assert not at.exception
    titles = [c["layout"]["title"]["text"] for c in _charts(at)]
    assert any("number of instructions" in t for t in titles)
    assert any("Adding anchors" in t for t in titles)
    assert any("Pilot screening" in t for t in titles)
    assert any("Table 3" in t for t in titles)
    assert any(m.label == "Mean Pearson r with all data" for m in at.metric)
    # tau-a on request, and another chosen anchor
    at.radio(key="anchors_tau").set_value("a").run()
    assert not at.exception
    assert any("tau-a" in c.value for c in at.caption)
    last = _library_sweep().table["anchor"].iloc[-1]
    at.selectbox(key="anchors_chosen").set_value(last).run()
    assert not at.exception
    assert any(last in h.value for h in at.subheader)


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


def test_anchor_only_table_explains_instead_of_failing():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    at.selectbox(key="demo_choice").select_index(1).run()
    at.button(key="load_demo").click().run()
    at.switch_page("pages/anchors.py").run()
    assert not at.exception
    assert any("no all-pairs (quadratic) ranking" in i.value for i in at.info)
    assert _table(at, "Tau with all pairs")["Anchor"].tolist() == ["sim-birch"]
    assert any("Comparing anchors with each other" in c.value for c in at.caption)
    at.button(key="anchors_btn_count").click().run()
    assert not at.exception
    assert any("needs an all-pairs table" in i.value for i in at.info)
    at.button(key="anchors_btn_stability").click().run()
    assert not at.exception
    assert any("most informative anchor in" in m.value for m in at.markdown)


def test_recommended_anchor_with_its_resampling_rate():
    from evalcore.anchors import anchor_stability

    at = _page()
    at.number_input(key="anchors_stab_rounds").set_value(50).run()
    at.button(key="anchors_btn_stability").click().run()
    assert not at.exception
    store = VerdictStore()
    store.load(read_verdicts(ROOT / "data" / "demo_all_pairs.parquet"))
    stab = anchor_stability(store.counts(judge=store.judges()[0]), rounds=50)
    store.close()
    shown = _table(at, "Most informative in")
    assert shown["Most informative in"].tolist() == [fmt_pct(v) for v in stab.table["most_informative_rate"]]
    if stab.recommended:
        assert any(f"{stab.recommended_rate:.0%}" in m.value for m in at.markdown)
