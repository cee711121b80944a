"""The Calibration page's words: parsing typed J values, cells without NaN, escaped user text."""

from __future__ import annotations

import math

import numpy as np
import pytest

from evalcore import quantities as q
from evalcore.calibration import calibrate, coverage_simulation, size_plan, superiority_gate
from evalcore.calibration import calibrate as calibrate_store
from evalcore.counts import VerdictCounts
from evalcore.errors import UsageError
from evalcore.present import calibration as show
from evalcore.present import calibration_choices as choices
from evalcore.present import calibration_words as words


@pytest.fixture(scope="module")
def demo(demo_store):
    return demo_store


def test_parse_js_reads_commas_and_semicolons_and_names_the_bad_token():
    assert show.parse_js(" 0.57; 0.34,,0.21 ") == [0.57, 0.34, 0.21]
    assert show.parse_js("") == []
    with pytest.raises(UsageError, match="banana"):
        show.parse_js("0.5, banana")
    with pytest.raises(UsageError, match="outside"):
        show.parse_js("1.5")
    with pytest.raises(UsageError):
        show.parse_js("nan")


def test_summary_and_metrics_have_no_nan_and_match_the_result(demo):
    judge = "sim-judge-steady"
    cal = calibrate(demo, judge=judge, candidate="sim-alder", baseline="sim-birch")
    table = show.summary_display(cal)
    assert list(table.columns) == ["Quantity", "Estimate", "95% low", "95% high", "Definition"]
    assert not table.isna().any().any()
    assert "nan" not in table.to_string().lower()
    row = table.set_index("Quantity").loc[q.name("printed_win_rate")]
    assert row["Estimate"] == f"{100 * cal.printed:.1f}%"
    assert row["95% low"] == f"{100 * cal.printed_low:.1f}%"
    floor = table.set_index("Quantity").loc[q.name("correction_floor"), "Estimate"]
    assert floor == f"±{100 * cal.floor:.1f} pp"
    cells = dict((label, value) for label, value, _ in show.metrics(cal))
    assert cells["Youden's J"] == f"{cal.youden_j:.2f}"
    assert cells[q.name("corrected_win_share")] in ("refused", f"{100 * cal.corrected:.1f}%")


def test_user_text_is_escaped_in_every_sentence(demo):
    hostile = "[x](https://evil.example)"
    cal = calibrate(demo, judge="sim-judge-steady", candidate="sim-alder")
    cal = type(cal)(**{**cal.__dict__, "judge": hostile, "candidate": hostile})
    assert "](" not in show.correction_caption(cal).replace("\\](", "")
    assert "](" not in show.headline(cal).replace("\\](", "")
    assert "\\[" in show.headline(cal)


def test_floor_display_is_wide_and_marks_this_judge(demo):
    cal = calibrate(demo, judge="sim-judge-steady")
    wide = show.floor_display(show.floor_rows(cal, [25, 100], [0.57, 0.34]), cal)
    assert wide.columns[0] == "Labelled pairs"
    assert wide.columns[1] == f"this judge (Youden's J {cal.youden_j:.2f})"  # this judge first
    assert wide["Youden's J 0.57"].tolist() == ["33.6", "15.2"]  # the published ±33–35 at 25, ±15–16 at 100


def test_this_judges_floor_is_one_number_on_the_floor_tab(demo):
    """The floor table's "this judge" column and the size picker's ladder (both on the Floor tab)
    give the same floor at every labelled-set size: one function, the judge's own Se and Sp."""
    cal = calibrate(demo, judge="sim-judge-first-slot")
    sizes = [25, 100, 400, 1600]
    wide = show.floor_display(show.floor_rows(cal, sizes, [0.57]), cal).set_index("Labelled pairs")
    own = wide[f"this judge (Youden's J {cal.youden_j:.2f})"]
    options = show.quality_options(cal, [0.57])
    plan = size_plan(0.10, max_labelled=1600, **options[next(iter(options))])
    ladder = show.ladder_display(plan).set_index("Labelled pairs")
    for n in sizes:
        assert own[n] == ladder.loc[n, q.name("planning_floor") + " (± percentage points)"], n
    # and the typed J columns are the published reading, not the judge's
    assert own.tolist() != wide["Youden's J 0.57"].tolist()


def test_quality_options_feed_size_plan(demo):
    cal = calibrate(demo, judge="sim-judge-steady")
    options = show.quality_options(cal, [0.34])
    assert list(options)[0].startswith("this judge (sensitivity ")
    plan = size_plan(0.10, max_labelled=1600, **options["typed Youden's J 0.34"])
    assert math.isclose(plan.youden_j, 0.34, abs_tol=1e-9)
    ladder = show.ladder_display(plan)
    assert "—" in set(ladder["Judged pairs needed"])  # where no judged count reaches the target
    assert not ladder.isna().any().any()
    empty = type(cal)(**{**cal.__dict__, "se": math.nan, "sp": math.nan})
    assert list(show.quality_options(empty, [])) == [show.DEFAULT_QUALITY]


def test_coverage_sentence_reports_the_simulated_ranges(demo):
    cal = calibrate(demo, judge="sim-judge-steady")
    result = coverage_simulation(cal.se, cal.sp, n_judged=100, n_labelled=25, simulations=200, seed=0)
    text = show.coverage_sentence(result, cal, n_judged=100, n_labelled=25)
    lr = result.table[result.table["interval"] == "Lang–Reiczigel"]["coverage"]
    assert f"Lang–Reiczigel interval {100 * lr.min():.1f}%–{100 * lr.max():.1f}%" in text
    assert not show.coverage_table(result).isna().any().any()


def test_gate_message_says_pass_or_fail(demo):
    cal = calibrate(demo, judge="sim-judge-steady", candidate="sim-alder", baseline="sim-birch")
    gate = superiority_gate(cal)
    msg = show.gate_message(gate)
    assert msg.kind == ("success" if gate.passed else "error")
    assert msg.text.startswith("**PASS**" if gate.passed else "**FAIL**")


def test_default_candidate_is_the_top_rated_model_or_the_first():
    # "b" beats "a" on every instruction; "c" never plays
    n = np.zeros((10, 5), dtype=np.int32)
    n[:, 0] = 1  # slot A ("a") loses
    counts = VerdictCounts.from_cells(
        models=("a", "b", "c"),
        instructions=tuple(f"i{i}" for i in range(10)),
        judge="j",
        inst=np.arange(10, dtype=np.int32),
        a=np.zeros(10, dtype=np.int32),
        b=np.ones(10, dtype=np.int32),
        n=n,
    )
    assert choices.default_pair(counts)[0] == "b"
    one = VerdictCounts.from_cells(
        models=("solo",),
        instructions=("i0",),
        judge="j",
        inst=np.zeros(0, dtype=np.int32),
        a=np.zeros(0, dtype=np.int32),
        b=np.zeros(0, dtype=np.int32),
        n=np.zeros((0, 5), dtype=np.int32),
    )
    assert choices.default_pair(one)[0] == "solo"


def test_ppi_words_table_gate_and_certification():
    import pandas as pd

    from evalcore.calibration import ppi_gate, ppi_ratings
    from evalcore.judge.certification import certify
    from tests.frames import on_store

    ppi_ratings = on_store(ppi_ratings)
    calibrate = on_store(calibrate_store)
    from evalcore.ranking.bradley_terry import win_probability
    from evalcore.simulate.tables import JudgeSpec, SimulationSpec, simulate

    sim = simulate(
        SimulationSpec(n_models=3, n_instructions=150, human_fraction=0.3, seed=4, judges=(JudgeSpec("j"),))
    )
    frame = sim.verdicts.replace({"sim-alder": "*star*"})
    for col in ("model_a", "model_b"):
        frame[col] = frame[col].astype("string")
    r = ppi_ratings(frame)
    table = show.ppi_table(r)
    assert list(table.columns) == [
        "Model",
        "Judge only",
        "Human labels only",
        "Prediction-powered",
        "Worth (labelled pairs)",
    ]
    assert table["Prediction-powered"].str.contains("–").all() and not table.isna().any().any()
    messages = show.ppi_messages(r)
    assert "labelled pairs" in messages[0].text and "Dorner" in messages[1].text
    # the gate on PPI: the win probability at the lower bound of the rating gap
    gate = ppi_gate(r, "*star*", "sim-cedar")
    diff = r.difference("*star*", "sim-cedar")
    assert gate.bound == pytest.approx(float(win_probability(diff.low, 0.0)))
    assert gate.passed == (gate.bound > 0.5)
    cal = calibrate(frame, candidate="*star*", baseline="sim-cedar")
    via_page = choices.gate_for(cal, kind="non-inferiority", margin_points=5, on="prediction-powered", ppi=r)
    assert not isinstance(via_page, str) and via_page.threshold == pytest.approx(0.45)
    messages = show.gate_messages(via_page)
    assert messages[1].kind == "caption" and "Bradley–Terry probability" in messages[1].text
    cal_all = calibrate(frame, candidate="*star*")
    assert "Against" in choices.gate_for(
        cal_all, kind="superiority", margin_points=5, on="prediction-powered", ppi=r
    )
    assert (
        "tab"
        in show.gate_messages(
            choices.gate_for(cal, kind="superiority", margin_points=0, on="prediction-powered", ppi=None)
        )[0].text
    )
    cert = show.certification_message(certify(cal.counts, candidate="*star*"))
    assert r"\*star\*" in cert.text and cert.kind in ("success", "warning")
    assert isinstance(pd.DataFrame([via_page.as_dict()]), pd.DataFrame)


def test_selection_reads_the_pickers():
    sel = choices.selection("j", None, words.ALL_OPPONENTS, None, words.SAME, "Both-orders verdict")
    assert sel.both_orders is False and sel.note == words.NEEDS_CANDIDATE and sel.baseline is None
    sel = choices.selection("j", "m1", "m2", "x", words.ALL_CATEGORIES, "Each judge call")
    assert sel.kwargs["labelled_category"] is None and sel.baseline == "m2" and sel.both_orders is False
    assert sel.key == ("j", "m1", "m2", "x", None, False)
    # the same slice as the corrected rows is never mistaken for a category of that name
    same = choices.selection("j", "m1", "m2", "x", words.SAME, "Each judge call")
    assert same.key != choices.selection("j", "m1", "m2", "x", "same", "Each judge call").key
    assert choices.candidate_of(words.SLOT_A) is None and choices.candidate_of("m1") == "m1"
    assert choices.floor_sizes([100, 25], 100) == [25, 100] and choices.floor_sizes([], 0) == []
    values, problems = show.typed_js("0.5, banana")
    assert values == [] and "banana" in problems[0].text


def test_judge_profile_feeds_the_coverage_simulation():
    from evalcore.calibration import CalibrationCounts

    cal = calibrate(CalibrationCounts(wins=170, ties=20, losses=110, tp=90, n_se=100, tn=90, n_sp=100))
    opts = choices.judge_profile(cal, n_judged=50, n_labelled=20, simulations=100)
    assert opts["se"] == pytest.approx(0.9) and opts["n_judged"] == 50
    assert coverage_simulation(**opts).simulations == 100
    assert words.TABS[1] == "Prediction-powered ratings"


def test_one_unpaired_call_is_written_in_the_singular(demo):
    import dataclasses

    from evalcore.calibration.transfer import design_warnings

    cal = calibrate(demo, judge="sim-judge-steady", candidate="sim-alder")
    one = dataclasses.replace(cal.counts, unpaired_calls=1, both_orders=True)
    cal = type(cal)(**{**cal.__dict__, "counts": one})
    assert "1 call without its other order left out" in show.correction_caption(cal)
    assert "1 calls" not in show.correction_caption(cal)
    said = " ".join(design_warnings(one, candidate="sim-alder", deff={}))
    assert "1 call without its other order is left out of the both-orders units." in said
