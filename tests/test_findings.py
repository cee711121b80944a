"""The headline findings: each one on simulated data with a known truth, its numbers equal to
the evalcore results it reads, and clear words where an analysis cannot run."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from evalcore import quantities as q
from evalcore.anchors import anchor_sweep
from evalcore.calibration import calibrate
from evalcore.cli.common import _plain
from evalcore.findings import headline_findings, run_analyses
from evalcore.judge import judge_sheet
from evalcore.ranking import leaderboard
from evalcore.simulate.tables import JudgeSpec, SimulationSpec, simulate
from evalcore.store.store import VerdictStore

NAMES = ("sim-alder", "sim-birch", "sim-cedar", "sim-dogwood", "sim-elm", "sim-fir", "sim-ginkgo")


def _store(spec: SimulationSpec) -> tuple[VerdictStore, object]:
    sim = simulate(spec)
    store = VerdictStore()
    store.load(sim.verdicts, name="sim")
    return store, sim


@pytest.fixture(scope="module")
def spread():
    """Seven models with well-spread strengths, both orders, a steady judge and human labels."""
    spec = SimulationSpec(
        n_models=7,
        n_instructions=200,
        model_names=NAMES,
        strengths=(2.0, 1.2, 0.6, 0.0, -0.6, -1.2, -2.0),
        judges=(JudgeSpec("sim-judge", slot_bias=0.6, tie_width=0.4, noise=0.3),),
        human_fraction=1.0,
        human_noise=0.2,
        seed=11,
    )
    store, sim = _store(spec)
    analyses = run_analyses(store, rounds=500, seed=0, human_ranking=sim.human_ranking)
    yield store, sim, analyses, headline_findings(analyses)
    store.close()


@pytest.fixture(scope="module")
def twins():
    """The two strongest models are equally strong (a known tie at the top)."""
    spec = SimulationSpec(
        n_models=5,
        n_instructions=120,
        model_names=NAMES[:5],
        strengths=(1.0, 1.0, 0.0, -0.5, -1.0),
        judges=(JudgeSpec("sim-judge", tie_width=0.4, noise=0.4),),
        seed=3,
    )
    store, sim = _store(spec)
    analyses = run_analyses(store, rounds=500, seed=0)
    yield store, sim, analyses, headline_findings(analyses)
    store.close()


def test_simulate_accepts_fixed_strengths():
    sim = simulate(SimulationSpec(n_models=3, n_instructions=5, strengths=(0.5, -1.0, 2.0)))
    assert sim.strengths["strength"].tolist() == [0.5, -1.0, 2.0]
    with pytest.raises(ValueError, match="3 models"):
        simulate(SimulationSpec(n_models=3, n_instructions=5, strengths=(0.5, -1.0)))


# -- who leads -------------------------------------------------------------------------------


def test_leader_is_the_simulated_strongest_with_the_leaderboard_numbers(spread):
    store, sim, analyses, findings = spread
    truth = sim.strengths.sort_values("strength", ascending=False)["model"].tolist()
    leader = findings.get("leader")
    assert leader.numbers["leader"] == truth[0]
    assert leader.numbers["runner_up"] == truth[1]
    # The numbers are the leaderboard's, recomputed here independently of the findings.
    board = leaderboard(store.counts(judge="sim-judge"), rounds=500, seed=0)
    top = board.table.iloc[0]
    assert leader.numbers["rating"] == pytest.approx(top["rating"])
    assert leader.numbers["ci_low"] == pytest.approx(top["ci_low"])
    gap = top["rating"] - board.table.iloc[1]["rating"]
    assert leader.numbers["gap"] == pytest.approx(gap)
    # Head-to-head share from the Elo formula, by hand.
    assert leader.numbers["head_to_head"] == pytest.approx(1 / (1 + 10 ** (-gap / 400)))
    for text in (
        f"{top['rating']:,.0f}",
        f"{top['ci_low']:,.0f} – {top['ci_high']:,.0f}",  # the Leaderboard's interval cell
        f"{gap:,.0f} Elo points ahead of {truth[1]}",
    ):
        assert text in leader.text
    assert leader.status == "clear" and leader.tiles[0][:2] == ("Leader", truth[0])
    # How many verdicts the lead rests on, from the fragility analysis run independently.
    from evalcore.ranking import ranking_fragility

    fragile = ranking_fragility(store.counts(judge="sim-judge"))
    assert leader.numbers["lead_rests_on_verdicts"] == fragile.lead.n_drop
    # ...and, in one clause beside it, how many reversed verdicts would do the same
    flips = ranking_fragility(store.counts(judge="sim-judge"), kind="flip")
    clause = flips.flip_clause(fragile.lead.behind)
    if clause is None:
        assert fragile.headline() in leader.text
    else:
        assert f"{fragile.headline()[:-1]}; {clause}." in leader.text
        assert leader.numbers["lead_reversed_by_flips"] == flips.lead.n_drop <= fragile.lead.n_drop
    # the Leaderboard's interval cell, written once
    assert leader.tiles[0].note == f"{top['rating']:,.0f} ({top['ci_low']:,.0f} – {top['ci_high']:,.0f})"


def test_top_two_separated_when_the_truth_differs(spread):
    _, _, analyses, findings = spread
    sep = findings.get("separation")
    assert sep.tiles[0][1] == "Yes" and sep.status == "clear"
    assert sep.numbers["p_value"] < 0.05
    row = analyses.edges.table.iloc[0]
    assert sep.numbers["discordant"] == row["discordant"] == row["upper_wins"] + row["lower_wins"]
    assert f"won {int(row['upper_wins']):,} of the {int(row['discordant']):,}" in sep.text
    low, high = sep.numbers["leader_rank_range"]  # written as the Leaderboard's cell: "1", never "1–1"
    assert f"its 95% rank range is {low}{'' if low == high else f'–{high}'}." in sep.text


def test_cannot_separate_two_equally_strong_models(twins):
    _, sim, analyses, findings = twins
    sep = findings.get("separation")
    equal = set(sim.strengths["model"][:2])
    assert {sep.numbers["upper"], sep.numbers["lower"]} == equal
    assert sep.tiles[0][1] == "No" and sep.status == "caution"
    assert sep.text.startswith("No:")
    assert sep.numbers["p_value"] >= 0.05
    # The leader's bootstrap rank range reaches the second place too.
    assert sep.numbers["leader_rank_range"][1] >= 2
    assert "not enough to tell them apart" in sep.text


# -- anchors ---------------------------------------------------------------------------------


def test_anchor_names_the_sweep_recommendation_and_the_usual_strongest(spread):
    store, sim, analyses, findings = spread
    anchor = findings.get("anchor")
    sweep = anchor_sweep(store.counts(judge="sim-judge"), human_ranking=sim.human_ranking)
    table = sweep.table.set_index("anchor")
    assert anchor.numbers["recommended"] == sweep.recommended
    strongest = sim.strengths.sort_values("strength")["model"].iloc[-1]
    assert anchor.numbers["usual"] == strongest
    # Seed 000: the most informative anchor sits in the middle, not at the top.
    assert 1 < anchor.numbers["recommended_position"] < len(NAMES)
    info_rec = table.loc[sweep.recommended, "informativeness"]
    info_top = table.loc[strongest, "informativeness"]
    assert info_top < info_rec
    # Instructions needed: ⌈617 / I⌉ by hand (617 = seed 000 Table 2's +5% at 80% power).
    assert anchor.numbers["recommended_instructions_needed"] == math.ceil(617 / info_rec)
    assert anchor.numbers["usual_instructions_needed"] == math.ceil(617 / info_top)
    assert (
        f"{math.ceil(617 / info_top):,} instructions instead of {math.ceil(617 / info_rec):,}" in anchor.text
    )
    assert f"{table.loc[sweep.recommended, 'tau_all_pairs']:.3f}" in anchor.text
    assert anchor.status == "caution"


def test_anchor_only_table_says_there_is_no_choice():
    spec = SimulationSpec(
        n_models=6,
        n_instructions=80,
        design="anchor",
        anchor="sim-cedar",
        both_orders=False,
        model_names=NAMES[:6],
        seed=5,
    )
    store, _ = _store(spec)
    findings = headline_findings(run_analyses(store, rounds=200))
    anchor = findings.get("anchor")
    assert anchor.numbers["recommended"] == "sim-cedar"
    assert "compared with one anchor, sim-cedar" in anchor.text
    assert "usual" not in anchor.numbers
    judge = findings.get("judge")
    assert "No pair was judged in both orders" in judge.text


# -- the judge -------------------------------------------------------------------------------


def test_judge_finding_reads_the_spec_sheet_and_names_the_biased_slot(spread):
    store, _, analyses, findings = spread
    judge = findings.get("judge")
    sheet = judge_sheet(store, "sim-judge", rounds=500, seed=0, length_control=False)
    s = sheet.scalars()
    assert judge.numbers["position_bias_points"] == pytest.approx(s["position_bias_points"])
    assert judge.numbers["tie_rate"] == pytest.approx(s["tie_rate"])
    # slot_bias = +0.6 in margin units: the first slot is preferred, clearly.
    assert s["position_bias_points"] > 10
    assert "prefers the first slot" in judge.text and judge.status == "caution"
    assert f"{s['position_bias_points']:.1f} percentage points" in judge.text
    assert f"{100 * s['both_orders_tie_rate']:.1f}%" in judge.text


def test_judge_with_a_second_slot_preference_and_none():
    spec = SimulationSpec(
        n_models=4,
        n_instructions=150,
        model_names=NAMES[:4],
        judges=(JudgeSpec("second", slot_bias=-0.8, noise=0.3), JudgeSpec("fair", slot_bias=0.0, noise=0.3)),
        seed=2,
    )
    store, _ = _store(spec)
    second = headline_findings(run_analyses(store, judge="second", rounds=100)).get("judge")
    assert "prefers the second slot" in second.text
    assert second.numbers["position_bias_points"] < -10
    fair = headline_findings(run_analyses(store, judge="fair", rounds=100)).get("judge")
    low, high = fair.numbers["position_bias_points_low"], fair.numbers["position_bias_points_high"]
    assert low <= 0 <= high  # the truth is 0: the interval covers it, and the words say so
    assert "no clear slot preference" in fair.text
    assert "Every call returned a verdict." in fair.text
    assert abs(fair.numbers["position_bias_points"]) < 5 and fair.status == "clear"


# -- the correction --------------------------------------------------------------------------


def test_correction_recovers_the_human_share(spread):
    store, _, analyses, findings = spread
    corr = findings.get("correction")
    leader, runner = corr.numbers["candidate"], corr.numbers["baseline"]
    cal = calibrate(store, judge="sim-judge", candidate=leader, baseline=runner)
    assert corr.numbers["corrected"] == pytest.approx(cal.corrected)
    assert not cal.refused and corr.tiles[0][1] == "Yes"
    # The truth: every row carries a human label, so the human share of candidate wins is known.
    rows = store.frame(judge="sim-judge")
    pair = rows[
        ((rows.model_a == leader) & (rows.model_b == runner))
        | ((rows.model_a == runner) & (rows.model_b == leader))
    ]
    pair = pair[pair.verdict.notna()]
    human = np.where(pair.model_a == leader, pair.human, -pair.human.astype(float))
    truth = float((human > 0).mean())
    assert cal.lr_low <= truth <= cal.lr_high
    assert f"{100 * cal.corrected:.1f}%" in corr.text
    assert f"{100 * cal.printed:.1f}%" in corr.text


def test_correction_refused_without_labels(twins):
    _, _, _, findings = twins
    corr = findings.get("correction")
    assert corr.tiles[0][1] == "No" and corr.status == "caution"
    assert "cannot be corrected" in corr.text and "no labelled rows" in corr.text


# -- bad input, caching, JSON ----------------------------------------------------------------


def test_a_judge_without_verdicts_between_models_gets_reasons_not_errors():
    frame = simulate(SimulationSpec(n_models=3, n_instructions=10, model_names=NAMES[:3], seed=1)).verdicts
    lonely = frame.iloc[:4].copy()
    lonely["judge"] = "lonely"
    lonely["model_b"] = lonely["model_a"]  # self-comparisons only
    store = VerdictStore()
    store.load(pd.concat([frame, lonely], ignore_index=True).assign(row=lambda f: np.arange(1, len(f) + 1)))
    analyses = run_analyses(store, judge="lonely", rounds=50)
    findings = headline_findings(analyses)
    assert {f.status for f in findings.findings} == {"unavailable"}
    assert "at least two models" in findings.get("leader").text
    assert findings.get("judge").text  # the judge sheet's own reason
    with pytest.raises(ValueError, match="not in the data"):
        run_analyses(store, judge="nobody")


def test_cache_reuses_results_under_the_pages_keys(twins):
    store, _, _, _ = twins
    calls: list[tuple] = []
    memo: dict[tuple, object] = {}

    def cache(key, compute):
        calls.append(key)
        if key not in memo:
            memo[key] = compute()
        return memo[key]

    first = run_analyses(store, rounds=100, seed=0, cache=cache)
    second = run_analyses(store, rounds=100, seed=0, cache=cache)
    assert ("leaderboard", "sim-judge", None, False, 100, 0, "bootstrap") in memo
    assert ("counts", "sim-judge", None, False) in memo
    assert second.leaderboard is first.leaderboard and second.anchors is first.anchors


def test_findings_as_dict_is_json(spread):
    _, _, _, findings = spread
    payload = json.loads(json.dumps(_plain(findings.as_dict())))
    assert [f["key"] for f in payload["findings"]] == [
        "leader",
        "separation",
        "anchor",
        "judge",
        "correction",
    ]
    assert payload["findings"][0]["numbers"]["leader"] == "sim-alder"
    assert list(findings.frame().columns) == ["finding", "status", "text", "definition"]


def test_a_model_that_never_loses_is_explained():
    """Truth: sim-alder is 8 logits above the rest, so it wins every battle (seed 004's infinite
    MLE); as an anchor every model loses to it, so no comparison against it is informative."""
    spec = SimulationSpec(
        n_models=4, n_instructions=30, model_names=NAMES[:4], strengths=(8.0, 0.0, -0.2, -0.4), seed=3
    )
    store, _ = _store(spec)
    findings = headline_findings(run_analyses(store, rounds=100))
    leader = findings.get("leader")
    assert leader.numbers["leader"] == "sim-alder"
    # the prior-held rating is no estimate: the share comes from the one-sided bound (issue 25)
    assert "would be preferred in at least 98% of their head-to-head comparisons" in leader.text
    assert "more than 99%" not in leader.text and leader.numbers["head_to_head"] is None
    assert "sim-alder lost no battle" in leader.text
    anchor = findings.get("anchor")
    assert anchor.numbers["usual"] == "sim-alder" and anchor.numbers["usual_informativeness"] == 0
    assert "gives no informative case" in anchor.text and anchor.status == "caution"
    assert "1 of the 3 adjacent pairs is separated" in findings.get("separation").text


def test_an_all_ties_judge_names_no_leader():
    # Every verdict a tie: the ratings are equal, so the finding must not say "a leads".
    import itertools

    import pandas as pd

    from evalcore.findings import leader_finding, run_analyses

    rows = [
        {"instruction_id": f"q{i}", "model_a": a, "model_b": b, "verdict": 0, "judge": "j"}
        for i in range(40)
        for a, b in itertools.permutations("abc", 2)
    ]
    store = VerdictStore()
    store.load_bytes(pd.DataFrame(rows).to_csv(index=False).encode(), name="ties.csv")
    finding = leader_finding(run_analyses(store, judge="j", rounds=50))
    assert finding.text.startswith("No model leads: a, b, c share the top rating")
    assert "leads the" not in finding.text and finding.numbers["leader"] is None


def test_the_separation_sentence_quotes_the_p_and_edges_of_the_test_used():
    """Issue 25, item 7: the decision uses the Holm-adjusted p, so the sentence quotes it (not
    the raw p), and the detectable edge and instructions needed are the two-sided test's at
    Holm's first step, not the one-sided formula's."""
    from evalcore.power.sign_test import minimum_detectable_edge
    from tests.power.test_detectable_level import _ladder

    counts = _ladder(np.random.default_rng(3), np.array([0.12, 0.05, 0.05, 0.05, 0.05]))
    rows = []
    for i, a, b, n in zip(counts.inst, counts.a, counts.b, counts.n, strict=True):
        for level, calls in zip((-2, -1, 0, 1, 2), n, strict=True):
            # every other instruction in the swapped order: a model always in one slot would be
            # left out of the separation as not comparable (its rating carries slot preference)
            row = (counts.instructions[i], counts.models[a], counts.models[b], level)
            if i % 2:
                row = (row[0], row[2], row[1], -level)
            rows += [row] * int(calls)
    frame = pd.DataFrame(rows, columns=["instruction_id", "model_a", "model_b", "verdict"])
    store = VerdictStore.from_frame(frame)
    analyses = run_analyses(store, rounds=100, seed=0)
    sep = headline_findings(analyses).get("separation")
    row = analyses.edges.table.iloc[0]
    tested = analyses.edges.pairs_tested
    assert tested == 5 and row["p_holm"] > row["p_value"]
    holm, raw = f"p = {row['p_holm']:.3f}", f"p = {row['p_value']:.3f}"
    assert f"{holm} after Holm's adjustment across the 5 adjacent pairs" in sep.text
    assert raw not in sep.text
    assert sep.numbers["p_holm"] == pytest.approx(row["p_holm"])
    edge = minimum_detectable_edge(int(row["discordant"]), alpha=0.05 / 5, two_sided=True)
    assert sep.numbers["detectable_edge"] == pytest.approx(edge)
    assert f"+{100 * edge:.1f}%" in sep.text
    assert "Holm's first step" in sep.definition
    assert json.loads(json.dumps(_plain(sep.numbers)))["detection_level"] == pytest.approx(0.01)
    store.close()


def test_the_recommended_anchor_carries_how_often_it_is_the_most_informative(spread):
    """Issue 25, item 8: the recommendation's uncertainty, from the anchors' stability bootstrap."""
    from evalcore.anchors.stability import anchor_stability

    _, _, analyses, findings = spread
    anchor = findings.get("anchor")
    rec = anchor.numbers["recommended"]
    stab = anchor_stability(analyses.counts, rounds=200, seed=0, with_tau=False)
    rate = float(stab.table.set_index("anchor").loc[rec, "most_informative_rate"])
    assert anchor.numbers["recommended_most_informative_rate"] == pytest.approx(rate)
    assert (
        f"most informative anchor in {q.format('anchor_top_share', rate)} of 200 instruction resamples"
        in anchor.text
    )
    assert f"top in {q.format('anchor_top_share', rate)} of resamples" in anchor.tiles[0].note


def test_the_report_completed_later_equals_the_one_computed_at_once():
    """The Overview leaves what only the report reads for its download (``report=False``, then
    :func:`evalcore.findings.for_report`): the same headline findings at once, and a report equal,
    character for character, to the one of a single ``run_analyses`` call, with and without the
    other judges' sheets."""
    from datetime import UTC, datetime

    from evalcore.findings import for_report
    from evalcore.findings.analyses import REPORT_ONLY
    from evalcore.report import build_report

    spec = SimulationSpec(
        n_models=5,
        n_instructions=60,
        model_names=NAMES[:5],
        judges=(JudgeSpec("sim-calm", noise=0.3), JudgeSpec("sim-first", slot_bias=0.8, tie_width=0.5)),
        human_fraction=0.5,
        seed=4,
    )
    store, sim = _store(spec)
    at = datetime(2026, 1, 2, 3, 4, tzinfo=UTC)
    options = {"judge": "sim-first", "rounds": 200, "seed": 0, "human_ranking": sim.human_ranking}
    try:
        page = run_analyses(store, report=False, **options)
        assert not page.report_ready
        assert all(getattr(page, name) in (None, {}) for name in REPORT_ONLY)  # none computed
        for compare in (False, True):
            whole = run_analyses(store, compare_judges=compare, **options)
            assert headline_findings(page) == headline_findings(whole)
            later = for_report(store, page, compare_judges=compare)
            assert later.report_ready and (later.judge_comparison is not None) == compare
            assert later.style is not None and later.ties is not None  # computed for the report
            findings = headline_findings(later)
            got, want = (build_report(a, findings, generated=at) for a in (later, whole))
            assert got == want
    finally:
        store.close()


def test_the_leader_says_when_a_category_orders_the_models_otherwise():
    # An arena table where, in one language, the two best models change places (planted), and
    # one where every language has the same order: the leader's finding says so, and its link
    # opens the Leaderboard's categories tab, only in the first.
    from evalcore.simulate.arena import ARENA_LANGUAGES, arena_verdict_frame, simulate_arena
    from ui.leaderboard_view import TABS
    from ui.navigation import finding_tab

    effects = np.zeros((len(ARENA_LANGUAGES), 6))
    effects[1, 0], effects[1, 1] = -1.5, +1.5
    got = {}
    for planted in (True, False):
        sim = simulate_arena(
            n_battles=12_000, n_models=6, n_voters=300, seed=3, category_effects=effects if planted else None
        )
        store = VerdictStore.from_frame(arena_verdict_frame(sim, with_category=True))
        analyses = run_analyses(store, rounds=50, seed=0)
        got[planted] = next(f for f in headline_findings(analyses).findings if f.key == "leader")
        assert got[planted].numbers["categories_differ"] is planted
        assert (analyses.categories.sentence() in got[planted].text) is planted
        store.close()
    assert finding_tab(got[True]) == "Categories" and "Categories" in TABS
    assert finding_tab(got[False]) is None


def test_the_findings_say_how_the_intervals_were_made_and_leak_no_template():
    """The leader's and the separation's definitions name the board's own interval method: a
    board of more than 150 models has sandwich intervals and normal draws for its rank ranges, not
    bootstrap percentiles (the definitions said "bootstrap" whatever the method); no finding's
    words keep a template's braces (the separation's power was printed as "{edges.power:.0%}")."""
    from evalcore.simulate.arena import arena_verdict_frame, simulate_arena

    for n_models, method in ((12, "bootstrap"), (160, "sandwich")):
        store = VerdictStore()
        store.load(arena_verdict_frame(simulate_arena(n_battles=4_000, n_models=n_models, seed=5)))
        analyses = run_analyses(store, rounds=200, report=False)
        assert analyses.leaderboard.interval_method == method
        found = {f.key: f for f in headline_findings(analyses).findings}
        leader, separation = found["leader"].definition, found["separation"].definition
        if method == "sandwich":
            assert "1.96 standard errors either side, from the sandwich clustered over the" in leader
            assert "normal draws of the ratings from the sandwich" in separation
            assert "bootstrap" not in leader + separation
        else:
            assert "2.5–97.5 percentiles of 200 bootstrap rounds over the" in leader
            assert "across 200 bootstrap rounds over instructions" in separation
        assert "80% power" in separation
        for f in found.values():
            assert "{" not in f.text + f.definition and "}" not in f.text + f.definition, f.key
        assert f"leads the {n_models:,} models" in found["leader"].text
