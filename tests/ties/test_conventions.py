"""Ties as data: the ranking under three tie conventions (a tie as half a win, ties dropped, ties
modelled by Davidson 1970), checked against known truth, hand-worked ranks and planted tables."""

from __future__ import annotations

import json

import numpy as np
import pytest

from evalcore.cli import main
from evalcore.counts import VerdictCounts
from evalcore.ranking.leaderboard import leaderboard
from evalcore.ties.conventions import (
    convention_shift,
    conventions_from_matrices,
    outcome_matrices,
    tie_conventions,
)
from evalcore.ties.davidson import fit_davidson
from tests.frames import chain_counts
from tests.ties.test_davidson import _simulate  # the Davidson model, drawn

#: The coverage figure of the last run of the simulation (printed with -s).
REPLICATIONS = 200


def test_a_known_tie_parameter_is_recovered_and_its_profile_interval_covers_it():
    """200 tables from Davidson's model with ν = 0.6: the estimate is unbiased to within 0.02 and
    the 95% profile interval covers the truth in about 95% of them (measured: see the assert)."""
    rng = np.random.default_rng(20261205)
    theta = np.array([0.9, 0.4, 0.1, -0.2, -0.5, -0.7])
    nu, covered, estimates = 0.6, 0, []
    for _ in range(REPLICATIONS):
        fit = fit_davidson(*_simulate(rng, theta, nu, 30))
        covered += fit.nu_low <= nu <= fit.nu_high
        estimates.append(fit.nu)
        assert fit.nu_low < fit.nu < fit.nu_high
    coverage = covered / REPLICATIONS
    print(f"profile-likelihood coverage of the tie parameter: {coverage:.1%} of {REPLICATIONS}")
    assert abs(np.mean(estimates) - nu) < 0.02
    # binomial(200, 0.95): below 180 (90%) or at 200 has a chance under 0.2% for a correct interval
    assert 180 <= covered < REPLICATIONS


def test_rank_changes_worked_by_hand():
    # half a win: a 1100, b 1050, c 1000, d 950 -> ranks 1, 2, 3, 4
    # modelled:   a 1100, b  990, c 1000, d 1010 -> ranks 1, 4, 3, 2
    # b and d move (by two places each), c stays; pairs concordant: (a,b) (a,c) (a,d) = 3,
    # discordant: (b,c) (b,d) (c,d) = 3, so Kendall's tau = (3 - 3) / 6 = 0
    ratings = {
        "half_win": np.array([1100.0, 1050.0, 1000.0, 950.0]),
        "modelled": np.array([1100.0, 990.0, 1000.0, 1010.0]),
    }
    shift = convention_shift(("a", "b", "c", "d"), "half_win", "modelled", ratings)
    assert shift.models_moved == 2
    assert shift.largest_move == 2
    assert set(shift.moved) == {"b", "d"}
    assert shift.tau == pytest.approx(0.0)
    # one swap of neighbours: two models move by one place, tau = (5 - 1) / 6
    ratings["modelled"] = np.array([1100.0, 1000.0, 1050.0, 950.0])
    shift = convention_shift(("a", "b", "c", "d"), "half_win", "modelled", ratings)
    assert (shift.models_moved, shift.largest_move, shift.moved) == (2, 1, ("b", "c"))
    assert shift.tau == pytest.approx(4 / 6)
    # ratings equal to a hundredth of a point share a rank: noise moves nothing
    ratings["modelled"] = ratings["half_win"] + np.array([0.0, 1e-4, -1e-4, 0.0])
    assert convention_shift(("a", "b", "c", "d"), "half_win", "modelled", ratings).models_moved == 0


def test_clear_order_every_convention_agrees_and_half_a_win_is_the_leaderboards_fit():
    from evalcore.ranking.bradley_terry import fit_bradley_terry, to_elo

    rng = np.random.default_rng(3)
    wins, ties = _simulate(rng, np.array([1.5, 0.5, -0.5, -1.5]), 0.8, 200)
    tc = conventions_from_matrices(wins, ties)
    assert tc.orders_agree and tc.headline.models_moved == 0 and tc.headline.tau == 1.0
    np.testing.assert_allclose(tc.half_win, to_elo(fit_bradley_terry(wins + 0.5 * ties)[0]))
    np.testing.assert_allclose(tc.dropped, to_elo(fit_bradley_terry(wins)[0]))
    # counting a tie as half a win pulls the ratings together; Davidson's do not shrink
    assert np.ptp(tc.modelled) > np.ptp(tc.half_win)
    assert "moves no model" in tc.sentence() and "does not depend" in tc.sentence()


def test_a_model_that_ties_a_lot_is_moved_by_modelling_ties():
    # x ties z1 30 times and wins its decisive battles 16:4; y never ties and beats the weaker z2
    # 36:4; z1 beats z2 34:6. Counted as half a win, x's 30 ties are 15 wins and x sits 4.7
    # points above y; modelled, 30 ties say x and z1 are close, and y goes 5.5 points above x.
    # Dropped, x's 16:4 record puts it far above y.
    names = ("x", "y", "z1", "z2")
    w, t = np.zeros((4, 4)), np.zeros((4, 4))
    w[0, 2], w[2, 0], t[0, 2], t[2, 0] = 16, 4, 30, 30
    w[1, 3], w[3, 1] = 36, 4
    w[2, 3], w[3, 2] = 34, 6
    tc = conventions_from_matrices(w, t, models=names)
    r = {c: dict(zip(names, tc.ranks(c), strict=True)) for c in ("half_win", "dropped", "modelled")}
    assert r["half_win"]["x"] < r["half_win"]["y"]
    assert r["modelled"]["x"] > r["modelled"]["y"]
    assert r["dropped"]["x"] < r["dropped"]["y"]
    assert tc.half_win[0] - tc.half_win[1] == pytest.approx(4.68, abs=0.05)
    assert tc.modelled[1] - tc.modelled[0] == pytest.approx(5.52, abs=0.05)
    head = tc.headline
    assert (head.models_moved, head.largest_move, set(head.moved)) == (2, 1, {"x", "y"})
    assert not tc.orders_agree and not tc.modelling_agrees
    sentence = tc.sentence()
    assert "moves two models by one place (" in sentence and "depends on how ties are counted" in sentence


def test_a_balanced_design_never_reorders_half_a_win_against_modelled():
    # Davidson's score for a model is its wins plus half its ties, as the leaderboard's; with
    # every pair judged equally often both orders follow that score, whatever the ties
    rng = np.random.default_rng(8)
    for _ in range(5):
        wins, ties = _simulate(rng, rng.normal(0, 0.3, 6), 1.5, 25)
        tc = conventions_from_matrices(wins, ties)
        assert tc.headline.models_moved == 0 and tc.modelling_agrees


def test_dropping_ties_alone_does_not_make_the_report_speak():
    # balanced: a tie-heavy model (b) ties often with a and c; half a win and Davidson keep the
    # order, dropping the ties reorders a and b — the report stays silent (modelling agrees)
    w = np.array([[0, 3, 9], [1, 0, 4], [1, 6, 0]], float)
    t = np.array([[0, 6, 0], [6, 0, 0], [0, 0, 0]], float)
    tc = conventions_from_matrices(w, t, models=("a", "b", "c"))
    assert tc.modelling_agrees
    assert any(s.models_moved > 0 for s in tc.shifts) and not tc.orders_agree


def test_no_ties_the_tie_parameter_is_refused_in_words():
    wins = np.array([[0, 6, 8], [4, 0, 6], [2, 4, 0]], float)
    tc = conventions_from_matrices(wins, np.zeros((3, 3)), models=("a", "b", "c"))
    assert not tc.identified
    assert "not identified" in tc.refusal
    assert np.isnan(tc.tie_parameter) and np.isnan(tc.tie_parameter_low)
    out = tc.as_dict()
    assert out["tie_parameter"] is None and out["tie_parameter_low"] is None
    assert out["tie_chance_equal_models"] is None
    assert out["refusal"] == tc.refusal
    assert "No verdict is a tie" in tc.sentence()
    np.testing.assert_allclose(tc.modelled, tc.dropped)
    np.testing.assert_allclose(tc.half_win, tc.dropped)
    with pytest.raises(ValueError, match="not identified"):
        fit_davidson(wins, np.zeros((3, 3)))


def test_nothing_but_ties_is_refused_too():
    ties = np.array([[0, 5, 5], [5, 0, 5], [5, 5, 0]], float)
    tc = conventions_from_matrices(np.zeros((3, 3)), ties)
    assert not tc.identified and "Every verdict is a tie" in tc.refusal
    assert tc.sentence().startswith("Every verdict is a tie")


def _counts() -> VerdictCounts:
    # q1: a (slot A) beats b with a strong win, b beats c; q2: b and a (b in slot A) tie twice,
    # c beats a in slot B (verdict -1 with a in slot A); q3: a and c tie
    #            levels: -2 -1  0  1  2
    return VerdictCounts.from_cells(
        models=("a", "b", "c"),
        instructions=("q1", "q2", "q3"),
        judge=None,
        inst=[0, 0, 1, 1, 2],
        a=[0, 1, 1, 0, 2],
        b=[1, 2, 0, 2, 0],
        n=[
            [0, 0, 0, 0, 1],
            [0, 0, 0, 1, 0],
            [0, 0, 2, 0, 0],
            [0, 1, 0, 0, 0],
            [0, 0, 1, 0, 0],
        ],
    )


def test_outcome_matrices_count_by_sign_with_both_slots_pooled():
    wins, ties = outcome_matrices(_counts())
    np.testing.assert_array_equal(wins, [[0, 1, 0], [0, 0, 1], [1, 0, 0]])
    np.testing.assert_array_equal(ties, [[0, 2, 1], [2, 0, 0], [1, 0, 0]])


def test_half_a_win_is_the_leaderboards_rating():
    counts = _counts()
    tc = tie_conventions(counts)
    board = leaderboard(counts, rounds=0)
    np.testing.assert_allclose(tc.half_win, board.table.set_index("model").loc[list(tc.models), "rating"])


# -- the command line ---------------------------------------------------------------------------


def _table(tmp_path, rows: list[tuple[str, str, str, int]]) -> str:
    path = tmp_path / "verdicts.csv"
    lines = ["instruction_id,model_a,model_b,verdict"] + [",".join(map(str, r)) for r in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def _tie_heavy_rows() -> list[tuple[str, str, str, int]]:
    """The planted table of the reordering test, one call per instruction."""
    rows = []
    plan = [("x", "z1", 16, 4, 30), ("y", "z2", 36, 4, 0), ("z1", "z2", 34, 6, 0)]
    k = 0
    for a, b, won, lost, tied in plan:
        for verdict, n in ((1, won), (-1, lost), (0, tied)):
            for _ in range(n):
                k += 1
                rows.append((f"q{k}", a, b, verdict))
    return rows


def test_cli_json_carries_the_comparison(tmp_path, capsys):
    path = _table(tmp_path, _tie_heavy_rows())
    assert main(["ties", path, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)["tie_conventions"]
    assert out["tie_verdicts"] == 30 and out["decisive_verdicts"] == 100
    assert out["tie_parameter_low"] < out["tie_parameter"] < out["tie_parameter_high"]
    assert out["orders_agree"] is False
    head = out["comparisons"][0]
    assert (head["from"], head["to"], head["models_moved"], head["largest_move"]) == (
        "half_win",
        "modelled",
        2,
        1,
    )
    rows = {r["model"]: r for r in out["models"]}
    assert (
        rows["x"]["rank"] < rows["y"]["rank"]
        and rows["x"]["rank_ties_modelled"] > rows["y"]["rank_ties_modelled"]
    )
    assert "depends on how ties are counted" in out["sentence"]


def test_cli_text_uses_the_catalogue_names_and_refuses_without_ties(tmp_path, capsys):
    rows = [
        (f"q{k}", a, b, v)
        for k, (a, b, v) in enumerate([("a", "b", 1), ("b", "c", 1), ("c", "a", 1), ("a", "c", 1)] * 3)
    ]
    path = _table(tmp_path, rows)
    assert main(["ties", path]) == 0
    text = capsys.readouterr().out
    assert "No verdict is a tie, so the tie parameter is not identified" in text
    assert "Davidson's tie parameter" not in text  # no 0 with an interval
    assert "Models moved by the tie convention: 0" in text
    assert main(["ties", path, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)["tie_conventions"]
    assert out["tie_parameter"] is None and out["tie_parameter_high"] is None
    assert main(["ties", _table(tmp_path, _tie_heavy_rows())]) == 0
    text = capsys.readouterr().out
    assert "Davidson's tie parameter" in text and "Rank agreement between tie conventions" in text
    assert main(["ties", path, "--json", "--no-conventions"]) == 0
    assert "tie_conventions" not in json.loads(capsys.readouterr().out)


def test_the_report_says_it_only_when_the_conventions_disagree(tmp_path):
    planted = _table(tmp_path, _tie_heavy_rows())
    out = tmp_path / "planted.html"
    assert main(["report", planted, "-o", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert "Ties as data: Modelling ties instead of counting each as half a win moves two models" in html
    rng = np.random.default_rng(4)
    wins, ties = _simulate(rng, np.array([1.2, 0.4, -0.4, -1.2]), 0.8, 30)
    rows, k = [], 0
    for i in range(4):
        for j in range(i + 1, 4):
            for verdict, n in ((1, wins[i, j]), (-1, wins[j, i]), (0, ties[i, j])):
                for _ in range(int(n)):
                    k += 1
                    rows.append((f"q{k}", f"m{i}", f"m{j}", verdict))
    clear = tmp_path / "clear"
    clear.mkdir()
    out = tmp_path / "clear.html"
    assert main(["report", _table(clear, rows), "-o", str(out)]) == 0
    assert "Ties as data" not in out.read_text(encoding="utf-8")


def test_an_arena_shaped_table_recovers_the_simulators_tie_parameter():
    """The arena simulator draws battles from Davidson's model with uneven pairing (popular models
    fight far more) and sets ν for a 35% tie share; the fit's interval covers that ν."""
    from evalcore.simulate.arena import simulate_arena

    sim = simulate_arena(n_battles=20_000, n_models=20, seed=1)
    m = len(sim.models)
    d = sim.strengths[sim.a] - sim.strengths[sim.b]
    spread = np.exp(d / 2) + np.exp(-d / 2)
    low, high = 0.0, 100.0  # the simulator's own bisection for the ν giving a 35% tie share
    for _ in range(60):
        nu = (low + high) / 2
        low, high = (nu, high) if np.mean(nu / (spread + nu)) < 0.35 else (low, nu)
    o = sim.outcome
    wins = np.bincount(sim.a * m + sim.b, weights=o == 1, minlength=m * m) + np.bincount(
        sim.b * m + sim.a, weights=o == -1, minlength=m * m
    )
    tied = (o == 0) | (o == 2)  # "tie" and "tie (bothbad)"
    upper = np.bincount(
        np.minimum(sim.a, sim.b) * m + np.maximum(sim.a, sim.b), weights=tied, minlength=m * m
    ).reshape(m, m)
    tc = conventions_from_matrices(wins.reshape(m, m), upper + upper.T, models=sim.models)
    assert tc.tie_parameter_low < nu < tc.tie_parameter_high
    assert tc.tie_parameter_high - tc.tie_parameter_low < 0.1
    # the strengths come back in order: Kendall's tau of the modelled ratings with the truth
    from evalcore.stats.kendall import kendall_tau

    assert kendall_tau(tc.modelled, sim.strengths) > 0.9


def _clustered(rng, n_inst: int, theta: np.ndarray, nu: float, sd: float) -> VerdictCounts:
    """Every pair once per instruction, Davidson outcomes with the instruction's own tie parameter
    ν·exp(sd·z): an instruction that invites ties invites them for every pair (slots at random)."""
    m = theta.size
    i, j = np.triu_indices(m, 1)
    q = np.repeat(np.arange(n_inst), i.size)
    i, j = np.tile(i, n_inst), np.tile(j, n_inst)
    nu_q = nu * np.exp(sd * rng.normal(size=n_inst))[q]
    pi, pj = np.exp(theta[i]), np.exp(theta[j])
    tie = nu_q * np.sqrt(pi * pj)
    u = rng.random(q.size) * (pi + pj + tie)
    level = np.where(u < pi, 3, np.where(u < pi + pj, 1, 2))  # index of +1, −1, 0 in LEVELS
    swap = rng.random(q.size) < 0.5
    a, b = np.where(swap, j, i), np.where(swap, i, j)
    level = np.where(swap, 4 - level, level)
    n = np.zeros((q.size, 5), dtype=int)
    n[np.arange(q.size), level] = 1
    return VerdictCounts.from_cells(
        models=tuple(f"m{k}" for k in range(m)),
        instructions=[f"q{k}" for k in range(n_inst)],
        judge=None,
        inst=q,
        a=a,
        b=b,
        n=n,
    )


@pytest.mark.slow
def test_the_bootstrap_over_instructions_covers_where_verdicts_go_together():
    """Instructions differ in how readily they draw ties (log-normal, sd 1): verdicts on one
    instruction go together, and the profile interval, which treats them as independent, is too
    narrow. The target is the tie parameter the pooled fit converges to (fitted on 10,000
    instructions). Measured over 200 tables of 60 instructions × 10 pairs (200 rounds each): the
    profile interval covered 81.5%, the bootstrap 91.0%; with independent verdicts 94.5% and 97.0%.
    Here 100 tables."""
    rng = np.random.default_rng(99)
    theta = np.array([0.8, 0.3, 0.0, -0.4, -0.7])
    target = tie_conventions(_clustered(rng, 10_000, theta, 0.6, 1.0)).tie_parameter
    profile = bootstrap = 0
    for r in range(100):
        counts = _clustered(rng, 60, theta, 0.6, 1.0)
        p = tie_conventions(counts)
        b = tie_conventions(counts, rounds=200, seed=r)
        assert b.interval == "bootstrap over instructions" and p.interval == "profile likelihood"
        profile += p.tie_parameter_low <= target <= p.tie_parameter_high
        bootstrap += b.tie_parameter_low <= target <= b.tie_parameter_high
    print(f"clustered ties: profile coverage {profile}%, bootstrap coverage {bootstrap}%")
    assert bootstrap >= 85
    assert profile < bootstrap - 4


def _one_verdict_each(counts: VerdictCounts) -> VerdictCounts:
    """The same calls, each its own instruction (an arena's battles: independent verdicts)."""
    cells = np.repeat(np.arange(counts.n_cells), counts.n.sum(axis=1))
    level = np.concatenate([np.repeat(np.arange(5), row) for row in counts.n])
    n = np.zeros((cells.size, 5), dtype=int)
    n[np.arange(cells.size), level] = 1
    return VerdictCounts.from_cells(
        models=counts.models,
        instructions=[f"b{k}" for k in range(cells.size)],
        judge=None,
        inst=np.arange(cells.size),
        a=counts.a[cells],
        b=counts.b[cells],
        n=n,
    )


def test_one_verdict_an_instruction_takes_the_profile_interval_which_the_bootstrap_agrees_with():
    """Each instruction one battle: the verdicts are independent, the profile likelihood's
    interval stands for the bootstrap (said in the notes), and a bootstrap over those
    instructions, run by hand, gives nearly the same bounds."""
    from evalcore.stats.bootstrap import percentile_interval
    from evalcore.ties.conventions import INDEPENDENT_NOTE, _bootstrap_tie_parameter

    theta = np.array([0.8, 0.3, 0.0, -0.4, -0.7])
    counts = _one_verdict_each(_clustered(np.random.default_rng(5), 400, theta, 0.6, 0.0))
    assert counts.single_call_instructions() and counts.n_instructions == 4_000
    asked = tie_conventions(counts, rounds=200)
    plain = tie_conventions(counts)
    assert asked.interval == "profile likelihood" and asked.rounds == 0
    assert INDEPENDENT_NOTE in asked.notes and INDEPENDENT_NOTE not in plain.notes
    assert (asked.tie_parameter_low, asked.tie_parameter_high) == (
        plain.tie_parameter_low,
        plain.tie_parameter_high,
    )
    wins, ties = outcome_matrices(counts)
    start = fit_davidson(wins, ties, prior_games=0.0, interval=False).params
    draws = _bootstrap_tie_parameter(counts, rounds=400, seed=3, prior=0.0, start=start)
    low, high = percentile_interval(draws)
    width = asked.tie_parameter_high - asked.tie_parameter_low
    assert abs(low - asked.tie_parameter_low) < 0.15 * width
    assert abs(high - asked.tie_parameter_high) < 0.15 * width
    # the same verdicts grouped ten to an instruction are resampled as before
    grouped = _clustered(np.random.default_rng(5), 400, theta, 0.6, 0.0)
    assert tie_conventions(grouped, rounds=50).interval == "bootstrap over instructions"


def test_few_instructions_keep_the_profile_interval():
    counts = _clustered(np.random.default_rng(1), 10, np.array([0.5, 0.0, -0.5]), 1.0, 0.0)
    tc = tie_conventions(counts, rounds=200)
    assert tc.interval == "profile likelihood" and tc.rounds == 0
    assert tc.tie_parameter_low < tc.tie_parameter < tc.tie_parameter_high


def test_without_the_interval_the_ratings_and_the_tie_parameter_are_unchanged():
    """The headline findings ask for the order only (``interval=False``): the same ratings, ranks,
    tie parameter and sentence as the full fit, with the interval's bounds left out (NaN) and
    said to be so, never a profile-likelihood search."""
    rng = np.random.default_rng(11)
    wins, ties = _simulate(rng, np.array([0.6, 0.2, -0.1, -0.7]), 0.5, 40)
    full = conventions_from_matrices(wins, ties, models=("a", "b", "c", "d"))
    point = conventions_from_matrices(wins, ties, models=("a", "b", "c", "d"), interval=False)
    for name in ("half_win", "dropped", "modelled"):
        np.testing.assert_array_equal(getattr(point, name), getattr(full, name))
    assert point.tie_parameter == full.tie_parameter
    assert point.sentence() == full.sentence() and point.shifts == full.shifts
    assert np.isfinite(full.tie_parameter_low) and np.isnan(point.tie_parameter_low)
    assert np.isnan(point.tie_parameter_high) and point.interval == "not computed"
    assert np.isnan(tie_conventions(_counts(), interval=False).tie_parameter_low)


def test_the_findings_fit_the_tie_conventions_without_the_interval(monkeypatch):
    """The findings show the order and the sentence only: the profile search never runs there."""
    from evalcore.findings import run_analyses
    from evalcore.simulate.tables import JudgeSpec, SimulationSpec, simulate
    from evalcore.store.store import VerdictStore
    from evalcore.ties import davidson

    def refuse(*args, **kwargs):
        raise AssertionError("the profile-likelihood interval was computed for the findings")

    monkeypatch.setattr(davidson, "_profile_end", refuse)
    sim = simulate(SimulationSpec(n_models=5, n_instructions=60, judges=(JudgeSpec("j1"),), seed=3))
    store = VerdictStore()
    store.load(sim.verdicts, name="small")
    analyses = run_analyses(store, judge="j1", rounds=20, seed=0)
    store.close()
    tc = analyses.tie_conventions
    assert "tie_conventions" not in analyses.unavailable
    assert tc is not None and tc.identified and np.isnan(tc.tie_parameter_low)


def test_the_bootstrap_interval_is_the_same_without_the_profile_search(monkeypatch):
    """With the bootstrap the profile likelihood's interval was searched, then replaced: now it is
    not searched, and every number is as before (the point fit with its profile interval, the
    bootstrap's percentiles of the same seeded resamples, to 1e-12)."""
    from evalcore.stats.bootstrap import percentile_interval
    from evalcore.ties import davidson
    from evalcore.ties.conventions import _bootstrap_tie_parameter

    counts = _clustered(np.random.default_rng(5), 40, np.array([0.6, 0.2, -0.1, -0.7]), 0.7, 0.5)
    wins, ties = outcome_matrices(counts)
    before = conventions_from_matrices(wins, ties, models=counts.models)  # the old first step
    start = fit_davidson(wins, ties, interval=False).params
    low, high = percentile_interval(
        _bootstrap_tie_parameter(counts, rounds=60, seed=3, prior=0.0, start=start)
    )

    def refuse(*args, **kwargs):
        raise AssertionError("the profile-likelihood interval was searched under the bootstrap")

    monkeypatch.setattr(davidson, "_profile_end", refuse)
    tc = tie_conventions(counts, rounds=60, seed=3)
    assert tc.interval == "bootstrap over instructions" and tc.rounds == 60
    assert (tc.tie_parameter_low, tc.tie_parameter_high) == pytest.approx((low, high), rel=1e-12)
    assert tc.tie_parameter == pytest.approx(before.tie_parameter, rel=1e-12)
    for name in ("half_win", "dropped", "modelled"):
        np.testing.assert_allclose(getattr(tc, name), getattr(before, name), rtol=1e-12)
    assert tc.shifts == before.shifts and tc.sentence() == before.sentence()


def test_the_bootstrap_says_how_far_it_is_and_its_numbers_do_not_change():
    """The page's progress bar hears the bootstrap every few resamples, in words (a page left
    meanwhile stops at the next report); the interval is the one computed without listening."""
    counts = _clustered(np.random.default_rng(6), 30, np.array([0.5, 0.0, -0.5]), 0.8, 0.3)
    heard: list[tuple[float, str]] = []
    tc = tie_conventions(counts, rounds=35, seed=1, progress=lambda f, words: heard.append((f, words)))
    quiet = tie_conventions(counts, rounds=35, seed=1)
    assert (tc.tie_parameter_low, tc.tie_parameter_high) == (
        quiet.tie_parameter_low,
        quiet.tie_parameter_high,
    )
    assert [f for f, _ in heard] == [0.0, 10 / 35, 20 / 35, 30 / 35]
    assert heard[1][1] == "refitting the tie parameter: resample 11 of 35"


def test_a_selection_of_too_many_models_is_refused_in_words():
    """Davidson's fit works on the full model-by-model matrices (half a minute on 2,000 models):
    above :data:`MAX_MODELS` the ranking with the ties modelled is refused with the limit, how
    many models the selection has and that the half-win ranking is there for any number."""
    from evalcore.errors import UsageError
    from evalcore.ties import conventions

    m = conventions.MAX_MODELS + 1
    counts = chain_counts(m)
    with pytest.raises(
        UsageError, match=f"at most {conventions.MAX_MODELS} models.*has {m}.*leaderboard ranks any number"
    ):
        conventions.tie_conventions(counts, rounds=200)
