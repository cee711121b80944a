"""The report and the Overview's leader finding say when the categories rank differently (a
planted swap); on one ranking (the demo's random categories) they stay silent about it."""

from __future__ import annotations

import numpy as np

from evalcore.findings import headline_findings, run_analyses
from evalcore.report import build_report
from evalcore.simulate.arena import ARENA_LANGUAGES, arena_verdict_frame, simulate_arena
from evalcore.store.store import VerdictStore


def test_a_planted_swap_reaches_the_leader_finding_and_the_report():
    effects = np.zeros((len(ARENA_LANGUAGES), 5))
    effects[1, 0], effects[1, 1] = -1.5, 1.5
    sim = simulate_arena(n_battles=6_000, n_models=5, n_voters=100, seed=7, category_effects=effects)
    store = VerdictStore.from_frame(arena_verdict_frame(sim, with_category=True))
    analyses = run_analyses(store, judge="arena", rounds=50)
    assert analyses.categories is not None and analyses.categories.rejects
    findings = headline_findings(analyses)
    texts = " ".join(f.text for f in findings.findings)
    assert "hides a reversal" in texts and "Chinese" in texts
    assert "hides a reversal" in build_report(analyses, findings)


def test_one_ranking_adds_no_line(small_demo_store):
    analyses = run_analyses(small_demo_store, rounds=50)
    assert analyses.categories is not None and not analyses.categories.rejects
    texts = " ".join(f.text for f in headline_findings(analyses).findings)
    assert "categories" not in texts or "ranking differs" not in texts
