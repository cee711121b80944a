"""The bundled demo shows what the product is about, measured by evalcore on the bundled files.

Don-Yehiya, Yehudai, Choshen and Abend ("Mediocrity is the key for LLM as a Judge Anchor
Selection", ACL 2026, §4.1 and §4.3) find that the strongest and weakest models are the worst
anchors (an inverted U of Kendall's tau against the anchor's position) and that informativeness
peaks in the middle. The demo's three judges each have one fault. Nothing here is hard-coded:
every number comes from ``anchor_sweep`` and ``judge_sheet`` on ``data/``.
"""

from __future__ import annotations

import ast
import struct
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from evalcore.anchors import anchor_sweep
from evalcore.ingest.files import read_human_ranking
from evalcore.judge import judge_sheet
from evalcore.store.store import VerdictStore, read_verdicts
from tests.conftest import ROOT

DATA = ROOT / "data"
ALL_PAIRS = DATA / "demo_all_pairs.parquet"
ANCHOR_ONLY = DATA / "demo_anchor_only.csv.gz"
JUDGES = ("sim-judge-first-slot", "sim-judge-steady", "sim-judge-tie-happy")
#: "A clear margin": the paper's gap between the best and the strongest anchor is .10–.19.
MARGIN = 0.15
#: Anchors 1–2 and 19–20 of 20 are "the extremes"; 6–15 the middle.
EDGE = 2


@pytest.fixture(scope="module")
def sweep(demo_store):
    """Each judge's anchor sweep of the worker's shared demo (computed once per judge)."""
    human = read_human_ranking(DATA / "demo_human_ranking.csv")
    return cache(lambda judge: anchor_sweep(demo_store.counts(judge=judge), human_ranking=human))


@pytest.fixture(scope="module")
def sheet(demo_store):
    """Each judge's sheet of the worker's shared demo (computed once per judge)."""
    return cache(lambda judge: judge_sheet(demo_store.counts(judge=judge), judge, rounds=20, seed=0))


def test_the_demo_has_three_judges_twenty_models_and_human_labels(demo_store):
    store = demo_store
    assert set(store.judges()) == set(JUDGES)
    assert len(store.models()) == 20
    frame = store.frame(judge=JUDGES[0])
    assert frame["human"].notna().any()
    assert frame["category"].nunique() == 4


@pytest.mark.parametrize("judge", JUDGES)
def test_tau_is_an_inverted_u_in_the_anchor_position(judge, sweep):
    table = sweep(judge).table.sort_values("position")
    tau = table["tau_all_pairs"].to_numpy()
    m = len(tau)
    middle = tau[m // 4 : m - m // 4]
    best_mid = middle.max()
    assert best_mid - tau[0] >= MARGIN, (judge, tau[0], best_mid)  # the strongest anchor
    assert best_mid - tau[-1] >= MARGIN, (judge, tau[-1], best_mid)  # the weakest anchor
    # The worst anchor is one of the extremes, and the middle is better than the edges on average.
    worst = int(np.argmin(tau))
    assert worst < EDGE or worst >= m - EDGE, (judge, worst + 1)
    edges = np.r_[tau[:EDGE], tau[-EDGE:]]
    assert np.median(middle) - edges.mean() >= MARGIN / 2, (judge, middle, edges)


@pytest.mark.parametrize("judge", JUDGES)
def test_informativeness_peaks_away_from_the_extremes(judge, sweep):
    found = sweep(judge)
    table = found.table.sort_values("position")
    info = table["informativeness"].to_numpy()
    m = len(info)
    peak = int(np.argmax(info))
    assert m // 4 <= peak < m - m // 4, (judge, peak + 1)
    # Per-order informativeness (each slot order compared on its own) is higher for the slot-biased
    # judge, whose position noise no longer counts as information; the peak still stands clear.
    assert info[peak] - max(info[0], info[-1]) >= 0.10, (judge, info)
    # The page's recommendation (the most informative anchor) is therefore mid-ranked, and it
    # ranks the models better than the strongest anchor does.
    rec = table.set_index("anchor").loc[found.recommended]
    assert m // 4 < rec["position"] <= m - m // 4, (judge, found.recommended)
    assert rec["tau_all_pairs"] - table["tau_all_pairs"].iloc[0] >= 0.10
    # Informativeness and tau go together, as in the paper's Fig. 3.
    assert found.fit_slope > 0 and found.fit_r2 > 0.5, (judge, found.fit_r2)


def test_the_human_ranking_shows_the_same_u(sweep):
    for judge in JUDGES:
        table = sweep(judge).table.sort_values("position")
        tau_h = table["tau_human"].to_numpy()
        m = len(tau_h)
        assert tau_h[m // 4 : m - m // 4].max() - max(tau_h[0], tau_h[-1]) >= MARGIN / 2, judge


def test_each_judge_shows_its_fault(sheet):
    sheets = {j: sheet(j) for j in JUDGES}
    bias = {j: s.position.position_bias_points.value for j, s in sheets.items()}
    slot_b = {j: s.order.b.value for j, s in sheets.items()}
    ties = {j: s.position.tie_rate.value for j, s in sheets.items()}
    flips = {j: s.position.flip_rate.value for j, s in sheets.items()}
    # The first-slot judge prefers slot A by far the most, in both measures of position bias.
    assert max(bias, key=bias.get) == "sim-judge-first-slot"
    assert bias["sim-judge-first-slot"] >= 10 + max(
        abs(bias["sim-judge-steady"]), abs(bias["sim-judge-tie-happy"])
    ), bias
    assert max(slot_b, key=slot_b.get) == "sim-judge-first-slot"
    assert max(flips, key=flips.get) == "sim-judge-first-slot"
    # The tie-happy judge calls ties far more often than the others.
    assert max(ties, key=ties.get) == "sim-judge-tie-happy"
    assert ties["sim-judge-tie-happy"] >= 2 * max(ties["sim-judge-steady"], ties["sim-judge-first-slot"]), (
        ties
    )
    # The steady judge has neither fault: a small position bias, and few ties.
    assert abs(bias["sim-judge-steady"]) < 5
    assert ties["sim-judge-steady"] < ties["sim-judge-tie-happy"] / 2


def test_the_anchor_only_demo_keeps_the_reference_in_one_slot():
    table = read_verdicts(ANCHOR_ONLY).frame
    slot_b = table["model_b"].unique()
    assert len(slot_b) == 1  # AlpacaEval-style: the reference output has a fixed place
    reference = slot_b[0]
    assert reference not in set(table["model_a"])
    store = VerdictStore()
    store.load(read_verdicts(ANCHOR_ONLY))
    sweep = anchor_sweep(store.counts())
    assert sweep.design == "anchor-only"
    assert list(sweep.table["anchor"]) == [reference]


def _page_icon(app: Path) -> ast.expr:
    for node in ast.walk(ast.parse(app.read_text())):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "set_page_config":
            return next(k.value for k in node.keywords if k.arg == "page_icon")
    raise AssertionError(f"{app.name} does not call st.set_page_config(page_icon=...)")


def test_the_favicon_is_a_local_png():
    # A Material icon as page_icon makes the browser fetch the favicon from a font server.
    # Every page sets its config in ui.page(), with the icon file named by ui.FAVICON.
    source = next(p for p in sorted((ROOT / "ui").glob("*.py")) if "set_page_config" in p.read_text())
    icon = _page_icon(source)
    assert not (isinstance(icon, ast.Constant) and str(icon.value).startswith(":material"))
    assert "FAVICON" in ast.unparse(icon)
    assert 'FAVICON = ROOT / "data" / "favicon.png"' in source.read_text()
    png = (DATA / "favicon.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    assert 16 <= width == height <= 256


# -- the simulator options the demo uses ----------------------------------------------------------
def _weak_win_share(rate: float) -> float:
    from evalcore.simulate.tables import JudgeSpec, SimulationSpec, simulate

    spec = SimulationSpec(
        n_models=2,
        n_instructions=4000,
        strengths=(3.0, -3.0),
        both_orders=False,
        judges=(JudgeSpec("j", tie_width=0.1, noise=0.0),),
        response_noise=0.01,
        discrimination_sd=0.0,
        outlier_rate=rate,
        outlier_size=8.0,
        seed=3,
    )
    v = simulate(spec).verdicts
    weak = "sim-birch"
    won = np.where(v["model_a"] == weak, v["verdict"] > 0, v["verdict"] < 0)
    return float(np.mean(won))


def test_outliers_let_a_much_weaker_model_win_at_the_rate_they_imply():
    # Gap 6 < outlier size 8 (no other noise): the weak model wins when it alone is a standout,
    # when the strong one alone is broken, or both (standout weak, broken strong):
    # P = (r/2)(1 − r) + (1 − r)(r/2) + (r/2)² = r(1 − r) + r²/4.
    r = 0.2
    expected = r * (1 - r) + r * r / 4
    se = np.sqrt(expected * (1 - expected) / 4000)
    assert abs(_weak_win_share(r) - expected) < 4 * se
    assert _weak_win_share(0.0) == 0.0


def test_anchor_slot_fixes_the_reference_in_a_single_order_table():
    from evalcore.simulate.tables import SimulationSpec, simulate

    base = dict(n_models=5, n_instructions=20, design="anchor", anchor="sim-cedar", both_orders=False)
    b = simulate(SimulationSpec(**base, anchor_slot="b")).verdicts
    assert set(b["model_b"]) == {"sim-cedar"} and "sim-cedar" not in set(b["model_a"])
    a = simulate(SimulationSpec(**base, anchor_slot="a")).verdicts
    assert set(a["model_a"]) == {"sim-cedar"}
    free = simulate(SimulationSpec(**base)).verdicts  # the default still mixes the slots
    assert "sim-cedar" in set(free["model_a"]) and "sim-cedar" in set(free["model_b"])
    with pytest.raises(ValueError, match="anchor_slot"):
        simulate(SimulationSpec(**base, anchor_slot="first"))
    with pytest.raises(ValueError, match="outlier_rate"):
        simulate(SimulationSpec(n_models=3, n_instructions=5, outlier_rate=1.5))


def test_the_demo_says_when_each_call_was_judged():
    """judged_at: every call has one, within the six weeks the script names, and it is what the
    committed script draws from the file's other columns (so no verdict moved to make it)."""
    import importlib.util

    import pandas as pd

    from evalcore.simulate.timed import judging_times

    spec = importlib.util.spec_from_file_location("make_demo", ROOT / "data" / "make_demo.py")
    assert spec is not None and spec.loader is not None
    make_demo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_demo)
    frame = pd.read_parquet(ROOT / "data" / "demo_all_pairs.parquet")
    assert frame.columns[-1] == "judged_at" and frame["judged_at"].notna().all()
    start = pd.Timestamp(make_demo.JUDGING_START, tz="UTC")
    stamps = pd.to_datetime(frame["judged_at"], utc=True)
    assert stamps.min() >= start
    assert stamps.max() <= start + pd.Timedelta(days=make_demo.JUDGING_DAYS + 1)
    drawn = judging_times(
        frame.drop(columns=["judged_at"]),
        start=make_demo.JUDGING_START,
        days=make_demo.JUDGING_DAYS,
        seed=make_demo.TIMES_SEED,
    )
    assert drawn.tolist() == frame["judged_at"].tolist()
