"""The evidence matches the number clicked (issue 23, item 4): the cases a link opens hold the
aggregate it came from, checked against the analyses that print the aggregate.

- the calibration's disagreements (n_se − tp + n_sp − tn of :func:`calibrate`) are exactly the
  cases of ``VerdictFilter(win_disagrees=…, unit=…)`` (both-orders units: one case each) and the
  disagreeing calls (call units);
- the pair's battles, wins, ties and losses in the cases of a pair equal the Leaderboard's
  win-rate cell (``battles_matrix``, ``win_rate_matrix``), in both-orders verdicts too;
- the "beats every model" cases hold the instructions :func:`win_rate_distribution` counts;
- the flipped cases are the flipped pairings behind the flip rate.
"""

from __future__ import annotations

import numpy as np
import pytest

from evalcore.anchors import win_rate_distribution
from evalcore.calibration import calibrate
from evalcore.judge import both_orders_counts, position_stats
from evalcore.present.calibration_choices import disagreement_count, disagreement_filter
from evalcore.ranking import leaderboard
from evalcore.simulate.tables import JudgeSpec, SimulationSpec, simulate
from evalcore.store.store import VerdictStore
from evalcore.verdicts import VerdictFilter
from evalcore.verdicts.evidence import evidence_lines, pair_record


@pytest.fixture(scope="module")
def store():
    """Both orders, human labels on every call, a biased and a tie-happy judge, two categories."""
    spec = SimulationSpec(
        n_models=6,
        n_instructions=80,
        judges=(JudgeSpec("biased", slot_bias=0.5, noise=0.4), JudgeSpec("ties", tie_width=1.2)),
        human_fraction=1.0,
        human_noise=0.3,
        categories=("x", "y"),
        seed=11,
    )
    s = VerdictStore()
    s.load(simulate(spec).verdicts, name="sim")
    yield s
    s.close()


@pytest.mark.parametrize("judge", ["biased", "ties"])
@pytest.mark.parametrize("unit", ["Both-orders verdict", "Each judge call"])
@pytest.mark.parametrize("baseline", [None, "sim-birch"])
def test_the_disagreements_link_opens_the_disagreements_counted(store, judge, unit, baseline):
    models = store.models()
    cal = calibrate(
        store, judge=judge, candidate=models[0], baseline=baseline, both_orders=unit.startswith("Both")
    )
    flt = disagreement_filter(cal)
    n = disagreement_count(cal)
    assert n > 0
    stats = store.case_stats(flt)
    if cal.counts.both_orders:
        assert stats.cases == n  # one case per both-orders unit
        assert store.verdicts(flt).total == n
    else:
        assert stats.win_calls == n
        assert stats.cases <= n <= 2 * stats.cases


@pytest.mark.parametrize("judge", ["biased", "ties"])
@pytest.mark.parametrize("both", [False, True])
def test_a_pairs_cases_hold_the_leaderboard_cell(store, judge, both):
    counts = store.counts(judge=judge)
    if both:
        counts = both_orders_counts(counts)
    board = leaderboard(counts, rounds=0)
    for a, b in [("sim-alder", "sim-birch"), ("sim-dogwood", "sim-alder")]:
        cell_rate = board.win_rate_matrix.loc[a, b]
        cell_battles = board.battles_matrix.loc[a, b]
        flt = VerdictFilter(judge=judge, model_a=a, model_b=b)
        record = pair_record(counts, a, b)
        assert record.battles == cell_battles
        assert record.win_rate == pytest.approx(cell_rate)
        if not both:  # the cases' own calls give the same numbers
            s = store.case_stats(flt)
            assert (s.wins, s.ties, s.losses) == (record.wins, record.ties, record.losses)
            line = evidence_lines(s, flt)[1]
            assert f"{int(cell_battles):,} battles" in line and f"{100 * cell_rate:.1f}%" in line


def test_the_beats_every_model_cases_hold_the_instructions_counted(store):
    counts = store.counts(judge="biased")
    for anchor in store.models()[:3]:
        beats = win_rate_distribution(counts, anchor).anchor_beats_all
        s = store.case_stats(VerdictFilter(judge="biased", beats_all=anchor))
        assert s.instructions == beats
        assert s.cases == beats * (len(store.models()) - 1)  # all pairs: one case per opponent


def test_the_flipped_cases_are_the_flipped_pairings(store):
    for judge in store.judges():
        p = position_stats(store.counts(judge=judge))
        s = store.case_stats(VerdictFilter(judge=judge, flipped=True))
        assert s.flipped == s.cases == round(p.flip_rate.value * p.pairings)
        assert np.isfinite(p.flip_rate.value) and s.cases > 0
