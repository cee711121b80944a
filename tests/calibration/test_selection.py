"""The Calibration views' policies as keyword options of the analyses: the default pair, the unit
rule and the release gate (evalcore.calibration.selection), checked against direct calls."""

from __future__ import annotations

import numpy as np
import pytest

from evalcore.calibration import (
    calibrate,
    calibration_selection,
    default_pair,
    noninferiority_gate,
    release_gate,
    superiority_gate,
)
from evalcore.calibration.counts import SAME_SLICE
from evalcore.counts import VerdictCounts
from evalcore.errors import UsageError
from evalcore.simulate.tables import JudgeSpec, SimulationSpec, simulate
from tests.frames import on_store

calibrate = on_store(calibrate)


@pytest.fixture(scope="module")
def frame():
    spec = SimulationSpec(
        n_models=4, n_instructions=120, judges=(JudgeSpec("j", slot_bias=0.3),), human_fraction=0.6, seed=3
    )
    return simulate(spec).verdicts


def _counts(wins: dict[tuple[int, int], int], models=("a", "b", "c")) -> VerdictCounts:
    """Counts where slot A model i beats slot B model j ``wins[(i, j)]`` times (one instruction each)."""
    a, b, rows = [], [], []
    for (i, j), k in wins.items():
        for _ in range(k):
            a.append(i)
            b.append(j)
            rows.append([0, 0, 0, 0, 1])  # much better for slot A
    m = len(rows)
    return VerdictCounts.from_cells(
        models=models,
        instructions=tuple(f"q{x}" for x in range(m)),
        judge="j",
        inst=np.arange(m, dtype=np.int32),
        a=np.array(a, dtype=np.int32),
        b=np.array(b, dtype=np.int32),
        n=np.array(rows, dtype=np.int32),
    )


def test_default_pair_is_the_leader_against_the_runner_up_when_they_met():
    # c beats b and a, b beats a: the order is c, b, a by brute force; c and b met
    counts = _counts({(2, 1): 3, (1, 2): 1, (2, 0): 4, (1, 0): 3, (0, 1): 1, (0, 2): 1})
    assert default_pair(counts) == ("c", "b")


def test_default_pair_takes_all_opponents_when_the_top_two_never_met():
    # an anchor design: a meets b and c, b and c never meet; b beats a more often than c does
    counts = _counts({(1, 0): 5, (0, 1): 1, (2, 0): 4, (0, 2): 2})
    leader, opponent = default_pair(counts)
    assert leader == "b" and opponent is None


def test_the_both_orders_unit_needs_a_candidate():
    s = calibration_selection(judge="j", candidate=None, baseline="b", both_orders=True)
    assert (s.baseline, s.both_orders, s.unit_changed) == (None, False, True)
    kept = calibration_selection(judge="j", candidate="a", baseline="b", both_orders=True)
    assert (kept.baseline, kept.both_orders, kept.unit_changed) == ("b", True, False)
    assert kept.labelled_category is SAME_SLICE and kept.as_dict()["labelled_category"] == "same"
    named = calibration_selection(judge="j", candidate="a", labelled_category="same", both_orders=True)
    assert named.key[4] == "same" != kept.key[4]  # a category called "same" is not the same slice
    assert set(kept.kwargs) == {
        "judge",
        "candidate",
        "baseline",
        "category",
        "labelled_category",
        "both_orders",
    }


def test_release_gate_is_the_gate_it_names(frame):
    cal = calibrate(frame, candidate=sorted(set(frame["model_a"]))[0])
    assert release_gate(cal).as_dict() == superiority_gate(cal, corrected=False).as_dict()
    assert release_gate(cal, basis="corrected").as_dict() == superiority_gate(cal, corrected=True).as_dict()
    got = release_gate(cal, kind="non-inferiority", margin=0.05, basis="corrected")
    assert got.as_dict() == noninferiority_gate(cal, margin=0.05, corrected=True).as_dict()
    # the margin of a superiority gate is ignored (no margin), never silently applied
    assert release_gate(cal, margin=0.2).as_dict() == superiority_gate(cal, corrected=False).as_dict()


def test_release_gate_says_what_is_missing(frame):
    cal = calibrate(frame)
    with pytest.raises(UsageError, match="prediction-powered ratings"):
        release_gate(cal, basis="prediction-powered")
    with pytest.raises(UsageError, match="kind must be one of"):
        release_gate(cal, kind="better")  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="basis must be one of"):
        release_gate(cal, basis="judged")  # type: ignore[arg-type]
