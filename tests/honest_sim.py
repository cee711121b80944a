"""Known-truth simulations of the designs issue 25 ("Honest numbers II") names, shared by the
slow tests and ``benchmarks/bench_honest_designs.py``.

- :func:`undefeated_coverage`: all-pairs Bradley–Terry tables (no ties, no instruction effects)
  with one strong model; among the tables where it lost no battle, how often its stated one-sided
  bound ("at least X") is at or below its true rating.
- :func:`confounded_gate_errors`: the candidate always in slot A against an equally strong
  baseline, a judge that prefers slot A; how often the printed superiority gate passes.
- :func:`one_slot_leader`: an anchor-only table of 11 models, the reference (truly 6th) always in
  slot B, a judge that prefers slot B; how often the Overview names the reference the leader.

Every function reads only the public results (the leaderboard's table, the gate's ``passed``, the
leader finding's numbers), so it measures the code it runs against: this checkout, or another one
put first on ``sys.path``.
"""

from __future__ import annotations

import numpy as np

from evalcore.ranking import ELO_SCALE, leaderboard
from evalcore.simulate.tables import JudgeSpec, SimulationSpec, simulate
from tests.bt_sim import simulate_bt

#: the five models behind the strong one (natural scale)
OTHERS = np.array([0.6, 0.2, -0.1, -0.5, -1.2])


def undefeated_coverage(
    tables: int = 200, *, rounds: int = 100, interval: str = "bootstrap", seed: int = 0
) -> dict:
    """Coverage of the undefeated model's stated lower bound over ``tables`` undefeated tables.

    The strong model's strength is drawn uniformly in [3, 5] (natural scale, 2.4 to 4.4 logits
    above the others' best) and the number of instructions in 5..30 (10 battles each), so a sweep
    happens on about one table in seven and is neither certain nor rare. Truth and
    bound are compared relative to the mean of the other five models (the frame every rating
    shares), so the comparison does not depend on where the table centres its ratings.

    Returns ``coverage`` (share of undefeated tables whose bound is at or below the truth),
    ``median_excess`` (median of bound − truth, Elo points), ``tables`` (undefeated tables used),
    ``drawn`` (tables drawn) and ``missed_all`` (misses over all tables drawn: an undefeated
    table whose bound is above the truth).
    """
    rng = np.random.default_rng(seed)
    covered, excess, drawn = [], [], 0
    while len(covered) < tables:
        drawn += 1
        top = rng.uniform(3.0, 5.0)
        theta = np.concatenate([[top], OTHERS])
        n = int(rng.integers(5, 31))
        c = simulate_bt(theta, n, shape="all_pairs", seed=int(rng.integers(2**31)))
        board = leaderboard(c, rounds=rounds, seed=drawn, interval=interval)
        t = board.table.set_index("model")
        if t.loc["m00", "losses"] > 0:
            continue
        others = t.drop(index="m00")["rating"].mean()
        truth = ELO_SCALE * (top - OTHERS.mean())
        stated = float(t.loc["m00", "ci_low"]) - others
        covered.append(bool(stated <= truth + 1e-9))
        excess.append(stated - truth)
    return {
        "coverage": float(np.mean(covered)),
        "median_excess": float(np.median(excess)),
        "tables": len(covered),
        "drawn": drawn,
        "missed_all": float((len(covered) - sum(covered)) / drawn),
    }


def confounded_table(seed: int, *, both_orders: bool = False, n_instructions: int = 300):
    """Four models against the anchor ``sim-birch``; the candidate ``sim-cedar`` is exactly as
    strong as the anchor. Single order: the anchor always in slot B; the judge prefers slot A."""
    spec = SimulationSpec(
        n_models=4,
        n_instructions=n_instructions,
        design="anchor",
        anchor="sim-birch",
        both_orders=both_orders,
        anchor_slot=None if both_orders else "b",
        strengths=(0.5, 0.0, 0.0, -0.5),
        judges=(JudgeSpec("judge", slot_bias=0.5, levels=3),),
        seed=seed,
    )
    return simulate(spec).verdicts


def confounded_gate_errors(
    tables: int = 200, *, both_orders: bool = False, n_instructions: int = 300
) -> dict:
    """How often the printed superiority gate passes an equally strong candidate.

    Returns ``passed`` (the share of tables the gate passed: each is an error, the candidate is no
    better), ``undetermined`` (the share the gate said it could not decide, when it says so) and
    ``mean_printed`` (the mean printed win rate).
    """
    from evalcore.calibration import calibrate, superiority_gate
    from evalcore.store.store import VerdictStore

    passed, undetermined, printed = [], [], []
    for seed in range(tables):
        store = VerdictStore.from_frame(
            confounded_table(seed, both_orders=both_orders, n_instructions=n_instructions)
        )
        try:
            cal = calibrate(store, judge="judge", candidate="sim-cedar", baseline="sim-birch", rounds=50)
        finally:
            store.close()
        gate = superiority_gate(cal)
        passed.append(gate.passed)
        undetermined.append(not getattr(gate, "determined", True))
        printed.append(gate.estimate)
    return {
        "passed": float(np.mean(passed)),
        "undetermined": float(np.mean(undetermined)),
        "mean_printed": float(np.mean(printed)),
        "tables": tables,
    }


#: eleven models, best first; the reference ``sim-fir`` is the 6th
ONE_SLOT_STRENGTHS = (1.0, 0.8, 0.6, 0.4, 0.2, 0.0, -0.2, -0.4, -0.6, -0.8, -1.0)
REFERENCE = "sim-fir"


def one_slot_table(seed: int, *, n_instructions: int = 100):
    """An anchor-only table: ten models against the reference, always in slot B, and a judge that
    prefers slot B."""
    spec = SimulationSpec(
        n_models=11,
        n_instructions=n_instructions,
        design="anchor",
        anchor=REFERENCE,
        both_orders=False,
        anchor_slot="b",
        strengths=ONE_SLOT_STRENGTHS,
        judges=(JudgeSpec("judge", slot_bias=-1.2, levels=3),),
        seed=seed,
    )
    return simulate(spec).verdicts


def one_slot_leader(tables: int = 200, *, n_instructions: int = 100) -> dict:
    """How often the Overview's leader finding names the reference (truly 6th of 11) the leader.

    Returns ``reference_named`` (share of tables whose leader is the reference), ``best_named``
    (share whose leader is the truly best model, ``sim-alder``) and ``reference_rank_one`` (share
    where the reference is ranked first in the leaderboard's table).
    """
    from evalcore.findings import Analyses, leader_finding
    from evalcore.store.store import VerdictStore

    named, best, first = [], [], []
    for seed in range(tables):
        store = VerdictStore.from_frame(one_slot_table(seed, n_instructions=n_instructions))
        try:
            counts = store.counts(judge="judge")
        finally:
            store.close()
        board = leaderboard(counts, rounds=50, seed=seed, interval="sandwich")
        finding = leader_finding(
            Analyses(summary=None, judge="judge", counts=counts, rounds=50, seed=seed, leaderboard=board)  # type: ignore[arg-type]
        )
        leader = finding.numbers.get("leader")
        named.append(leader == REFERENCE)
        best.append(leader == "sim-alder")
        first.append(str(board.table.iloc[0]["model"]) == REFERENCE)
    return {
        "reference_named": float(np.mean(named)),
        "best_named": float(np.mean(best)),
        "reference_rank_one": float(np.mean(first)),
        "tables": tables,
    }
