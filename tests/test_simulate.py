"""The simulator writes valid contract tables whose known truth shows through."""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalcore.simulate.tables import DEMO_MODEL_NAMES, JudgeSpec, SimulationSpec, simulate
from evalcore.store.store import read_verdicts


def _rows(**kw):
    return simulate(SimulationSpec(**kw)).verdicts


def test_deterministic_in_the_seed():
    a, b = _rows(seed=5), _rows(seed=5)
    pd.testing.assert_frame_equal(a, b)
    assert not a["verdict"].equals(_rows(seed=6)["verdict"])


def test_table_passes_the_contract_round_trip():
    rows = _rows(n_models=4, n_instructions=10, human_fraction=0.5, categories=("c1",))
    back = read_verdicts(rows.drop(columns=["row"]).to_csv(index=False).encode(), name="s.csv").frame
    pd.testing.assert_frame_equal(back.drop(columns=["row"]), rows.drop(columns=["row"]), check_dtype=False)


def test_sizes_for_both_designs():
    assert len(_rows(n_models=5, n_instructions=7, both_orders=True)) == 10 * 7 * 2
    anchor = _rows(n_models=5, n_instructions=7, design="anchor", anchor="sim-cedar", both_orders=False)
    assert len(anchor) == 4 * 7
    assert ((anchor.model_a == "sim-cedar") ^ (anchor.model_b == "sim-cedar")).all()


def test_slot_bias_shows_as_first_slot_wins():
    fair = _rows(judges=(JudgeSpec("j", slot_bias=0.0),), n_instructions=200, seed=1)
    biased = _rows(judges=(JudgeSpec("j", slot_bias=0.8),), n_instructions=200, seed=1)

    # Both orders of every pair: without bias slot A wins half the decided battles.
    def share(rows):
        v = rows["verdict"].dropna().astype(int)
        return (v > 0).sum() / (v != 0).sum()

    assert abs(share(fair) - 0.5) < 0.03
    assert share(biased) > 0.6


def test_tie_width_and_levels_shape_the_verdicts():
    narrow = _rows(judges=(JudgeSpec("j", tie_width=0.1),), seed=2)["verdict"].astype(int)
    wide = _rows(judges=(JudgeSpec("j", tie_width=2.0, levels=3),), seed=2)["verdict"].astype(int)
    assert (wide == 0).mean() > 3 * (narrow == 0).mean()
    assert set(wide.unique()) <= {-1, 0, 1}
    assert {-2, 2} <= set(narrow.unique())


def test_no_verdict_rate_and_human_fraction():
    rows = _rows(
        judges=(JudgeSpec("j", no_verdict_rate=0.1),), n_instructions=300, human_fraction=0.25, seed=3
    )
    assert abs(rows["verdict"].isna().mean() - 0.1) < 0.02
    labelled = rows.groupby("instruction_id")["human"].apply(lambda h: h.notna().all())
    assert abs(labelled.mean() - 0.25) < 0.07
    assert rows.groupby("instruction_id")["human"].apply(lambda h: h.notna().any() == h.notna().all()).all()


def test_verbosity_favours_the_longer_response():
    rows = _rows(judges=(JudgeSpec("j", verbosity=1.5),), n_instructions=200, seed=4)
    v = rows["verdict"].astype(float)
    longer_a = rows["length_a"] > rows["length_b"]
    assert v[longer_a].mean() > v[~longer_a].mean() + 0.3


def test_demo_names_are_obviously_simulated():
    assert all(name.startswith("sim-") for name in DEMO_MODEL_NAMES)
    strengths = simulate(SimulationSpec(n_models=6)).strengths["strength"].to_numpy()
    assert np.all(np.diff(strengths) < 0)  # names are in order of true strength
