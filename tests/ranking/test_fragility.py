"""Fragility of the ranking: planted decisive verdicts, brute force on small tables, real shapes.

Every flip the library reports is checked independently: the named calls are subtracted from the
table's cells and the real leaderboard is refitted; on small tables the smallest set is compared
with a brute-force search over every subset of calls.
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from evalcore.cli import build_parser
from evalcore.counts import VerdictCounts
from evalcore.errors import UsageError
from evalcore.ranking import ELO_SCALE, fit_bradley_terry, leaderboard, mle_exists, pooled_wins
from evalcore.ranking.fragility import ranking_fragility
from evalcore.ranking.fragility.outcomes import Outcomes
from evalcore.schema import LEVELS
from tests.bt_sim import simulate_bt

WIN, TIE, LOSS = 4, 2, 0  # level indices of +2, 0, -2


def _table(rows, models=("A", "B", "C", "D")) -> VerdictCounts:
    """One instruction per call from (slot A, slot B, level index, how many) rows."""
    inst, a, b, lv = [], [], [], []
    for x, y, level, count in rows:
        for _ in range(count):
            inst.append(len(inst))
            a.append(x)
            b.append(y)
            lv.append(level)
    n = np.zeros((len(inst), 5), dtype=np.int64)
    n[np.arange(len(inst)), lv] = 1
    return VerdictCounts.from_cells(
        models=models,
        instructions=[f"q{k:04d}" for k in range(len(inst))],
        judge="j",
        inst=inst,
        a=a,
        b=b,
        n=n,
    )


def _symmetric(extra_a_wins: int) -> VerdictCounts:
    """A and B with identical records against C and D and an even head-to-head, plus planted
    extra wins of A over B: the only asymmetry, so those wins alone put A ahead."""
    rows = []
    for x in (0, 1):
        rows += [(x, 2, WIN, 30), (x, 2, TIE, 10), (x, 2, LOSS, 20)]
        rows += [(3, x, LOSS, 35), (3, x, TIE, 10), (3, x, WIN, 15)]  # D in slot A
    rows += [(2, 3, WIN, 25), (2, 3, LOSS, 25), (2, 3, TIE, 10)]
    rows += [(0, 1, WIN, 20), (0, 1, LOSS, 20), (1, 0, TIE, 10)]
    rows += [(0, 1, WIN, extra_a_wins)]
    return _table(rows)


def _without(counts: VerdictCounts, calls) -> VerdictCounts:
    """The table with the named calls taken out of their cells (checks the names, too)."""
    n = counts.n.astype(np.int64).copy()
    where = {
        (counts.instructions[i], counts.models[a], counts.models[b]): r
        for r, (i, a, b) in enumerate(zip(counts.inst, counts.a, counts.b, strict=True))
    }
    for c in calls:
        r = where[(c.instruction, c.model_a, c.model_b)]
        n[r, c.level - LEVELS[0]] -= c.count
        assert n[r, c.level - LEVELS[0]] >= 0, "a named call is not in the table"
    return counts.with_cells(counts.inst, counts.a, counts.b, n)


def _assert_verified(counts: VerdictCounts, pair) -> None:
    """Removing the named calls really puts the model behind ahead on the leaderboard."""
    assert sum(c.count for c in pair.calls) == pair.n_drop
    board = leaderboard(_without(counts, pair.calls), rounds=0)
    rating = dict(zip(board.table["model"], board.table["rating"], strict=True))
    assert rating[pair.behind] > rating[pair.ahead]
    assert rating[pair.behind] - rating[pair.ahead] == pytest.approx(-pair.gap_after, abs=1e-6)


# -- planted decisive verdicts ----------------------------------------------------------------------
@pytest.mark.parametrize("planted", [1, 2, 3])
def test_finds_the_planted_handful(planted):
    counts = _symmetric(planted)
    result = ranking_fragility(counts, pairs="leader", max_drop=10)
    lead = result.lead
    assert result.leader == "A" and lead.behind == "B"
    # Taking the planted wins away leaves a perfect tie, which is not a flip: one more is needed.
    assert lead.n_drop == planted + 1 and lead.proven_minimal
    assert lead.share == pytest.approx((planted + 1) / counts.calls)
    assert [(o.winner, o.loser, o.outcome) for o in lead.outcomes] == [("A", "B", "win")]
    _assert_verified(counts, lead)
    assert result.headline().startswith(f"The lead of A rests on {planted + 1} verdicts (")
    assert "puts B ahead; no smaller set does." in result.headline()


def test_removing_exactly_the_planted_wins_ties_the_two():
    counts = _symmetric(2)
    base = counts.n.copy()
    planted = np.flatnonzero((counts.a == 0) & (counts.b == 1) & (base[:, WIN] > 0))[-2:]
    base[planted, WIN] -= 1
    theta, _ = fit_bradley_terry(pooled_wins(counts.with_cells(counts.inst, counts.a, counts.b, base)))
    assert theta[0] == pytest.approx(theta[1], abs=1e-9)


def test_a_symmetric_table_is_tied_at_the_top():
    result = ranking_fragility(_symmetric(0), pairs="leader")
    assert result.lead.n_drop == 0
    assert "tied at the top" in result.headline()


def test_a_planted_upset_is_beaten_by_a_cheaper_route():
    # B's only blemish: two upset losses to D; otherwise A's twin, 15-15 head to head. Removing
    # the two upsets only ties A and B, but removing two of A's head-to-head wins flips them: the
    # search must find the cheaper route, and prove that no single call does it.
    rows = []
    for x in (0, 1):
        rows += [(x, 2, WIN, 30), (x, 2, LOSS, 20), (x, 3, WIN, 40), (x, 3, LOSS, 10)]
    rows += [(2, 3, WIN, 25), (2, 3, LOSS, 20), (0, 1, WIN, 15), (0, 1, LOSS, 15), (3, 1, WIN, 2)]
    counts = _table(rows)
    result = ranking_fragility(counts, pairs="adjacent", max_drop=10)
    lead = result.lead
    assert (lead.ahead, lead.behind) == ("A", "B")
    assert lead.n_drop == 2 and lead.proven_minimal
    assert [(o.winner, o.loser, o.count, o.available) for o in lead.outcomes] == [("A", "B", 2, 15)]
    _assert_verified(counts, lead)
    upsets = counts.with_cells(counts.inst[:-2], counts.a[:-2], counts.b[:-2], counts.n[:-2])
    theta, _ = fit_bradley_terry(pooled_wins(upsets))
    assert theta[0] == pytest.approx(theta[1], abs=1e-9)


# -- brute force over every subset of calls ---------------------------------------------------------
def _calls(counts):
    out = []
    for r in range(counts.n_cells):
        for k, level in enumerate(LEVELS):
            out += [(int(counts.a[r]), int(counts.b[r]), level)] * int(counts.n[r, k])
    return out


def _brute_force(counts, i, j, k_max):
    """Smallest subset of calls whose removal puts j strictly above i, refitted as the
    leaderboard fits (plain MLE, or the weak prior where the MLE is infinite); None if > k_max."""
    calls = _calls(counts)
    m = counts.n_models
    score = {level: 1.0 if level > 0 else 0.5 if level == 0 else 0.0 for level in LEVELS}
    for k in range(1, k_max + 1):
        subsets = list(itertools.combinations(range(len(calls)), k))
        wins = np.zeros((len(subsets), m, m))
        for row, drop in enumerate(subsets):
            kept = set(range(len(calls))) - set(drop)
            for c in kept:
                a, b, level = calls[c]
                wins[row, a, b] += score[level]
                wins[row, b, a] += 1.0 - score[level]
        exists = mle_exists(wins)
        theta = np.empty((len(subsets), m))
        for group, prior in ((exists, 0.0), (~exists, 1.0)):
            if group.any():
                theta[group], _ = fit_bradley_terry(wins[group], prior_games=prior)
        if (ELO_SCALE * (theta[:, j] - theta[:, i]) > 1e-6).any():
            return k
    return None


def _random_small(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 5))
    n_calls = int(rng.integers(6, 17))
    theta = rng.normal(0.0, 0.4, m)
    a = rng.integers(0, m, n_calls)
    b = (a + rng.integers(1, m, n_calls)) % m
    p = 1.0 / (1.0 + np.exp(-(theta[a] - theta[b])))
    tie = rng.random(n_calls) < 0.25  # ties are half wins
    level = np.where(
        tie, 2, np.where(rng.random(n_calls) < p, rng.choice([3, 4], n_calls), rng.choice([0, 1], n_calls))
    )
    n = np.zeros((n_calls, 5), dtype=np.int64)
    n[np.arange(n_calls), level] = 1
    inst = rng.integers(0, max(2, n_calls // 3), n_calls)  # several calls per instruction
    return VerdictCounts.from_cells(
        models=tuple("abcd"[:m]),
        instructions=[f"q{k}" for k in range(n_calls)],
        judge=None,
        inst=inst,
        a=a,
        b=b,
        n=n,
    )


@pytest.mark.parametrize("seed", range(12))
def test_matches_brute_force_on_small_tables(seed):
    counts = _random_small(seed)
    k_max = 3
    exact = ranking_fragility(counts, pairs="adjacent", max_drop=k_max, exhaustive=5000)
    guided = ranking_fragility(counts, pairs="adjacent", max_drop=k_max, exhaustive=0)
    for pair, quick in zip(exact.pairs, guided.pairs, strict=True):
        if pair.n_drop == 0:
            continue
        truth = _brute_force(counts, counts.index(pair.ahead), counts.index(pair.behind), k_max)
        assert pair.n_drop == truth
        assert pair.proven_minimal or (truth is None and pair.lower_bound > k_max)
        # Without the exhaustive search the guided search gives an upper bound, always verified.
        if quick.n_drop is not None:
            assert truth is not None and quick.n_drop >= truth
            _assert_verified(counts, quick)
        if pair.n_drop:
            _assert_verified(counts, pair)


@pytest.mark.parametrize("seed", range(12, 18))
def test_leader_mode_matches_brute_force_over_every_rival(seed):
    counts = _random_small(seed)
    result = ranking_fragility(counts, pairs="leader", max_drop=3, exhaustive=5000)
    if result.lead is None or result.lead.n_drop == 0:
        return
    top = counts.index(result.leader)
    truths = [_brute_force(counts, top, j, 3) for j in range(counts.n_models) if j != top]
    smallest = min((t for t in truths if t is not None), default=None)
    assert result.lead.n_drop == smallest


def test_ties_count_half_and_a_tie_is_not_a_flip():
    # A won once, the rest are ties: removing the win leaves all ties (equal ratings), and B
    # never won, so no removal can put B strictly ahead.
    counts = _table([(0, 1, WIN, 1), (0, 1, TIE, 4)], models=("A", "B"))
    result = ranking_fragility(counts)
    lead = result.lead
    assert lead.n_drop is None and lead.lower_bound > result.max_drop == 5
    assert "every such removal was checked" in result.headline()
    assert "survives removing any 5 verdicts" in result.headline()
    # One win by B among the ties: removing A's two wins (not ties) flips.
    counts = _table([(0, 1, WIN, 2), (1, 0, WIN, 1), (0, 1, TIE, 4)], models=("A", "B"))
    lead = ranking_fragility(counts).lead
    assert lead.n_drop == 2 and lead.proven_minimal
    assert _brute_force(counts, 0, 1, 3) == 2


# -- real shapes -----------------------------------------------------------------------------------
def test_arena_shaped_table_flips_are_verified_and_first_order_is_close():
    counts = simulate_bt(np.linspace(0.0, 0.5, 8), 40_000, shape="arena", tie_rate=0.2, seed=5)
    assert counts.n_instructions == counts.n_cells  # one battle per prompt
    result = ranking_fragility(counts, pairs="adjacent", max_drop=400, exhaustive=0, max_listed=400)
    flipped = [p for p in result.pairs if p.flipped]
    assert len(flipped) >= 4
    for pair in flipped:
        _assert_verified(counts, pair)
        # On a large table the first-order (AMIP) count is close to the refitted one.
        assert abs(pair.first_order_drop - pair.n_drop) <= 0.2 * pair.n_drop + 2
        assert pair.share == pytest.approx(pair.n_drop / 40_000)
        assert all(c.count == 1 for c in pair.calls)  # one call per arena prompt


def test_anchor_only_table():
    counts = simulate_bt(np.array([0.0, 0.4, 0.45, 0.9]), 300, shape="anchor", tie_rate=0.1, seed=2)
    result = ranking_fragility(counts, pairs="adjacent")
    for pair in result.pairs:
        if pair.flipped:
            _assert_verified(counts, pair)
            # Models meet only through the reference, so only calls against it can matter.
            assert all("m00" in (o.winner, o.loser) for o in pair.outcomes)


def test_both_orders_per_instruction():
    counts = simulate_bt(np.array([0.0, 0.1, 0.6]), 60, shape="all_pairs", tie_rate=0.2, seed=8)
    assert (counts.pooled()[0, 1].sum(), counts.pooled()[1, 0].sum()) == (60, 60)
    result = ranking_fragility(counts, pairs="adjacent")
    assert any(p.flipped for p in result.pairs)
    for pair in result.pairs:
        if pair.flipped:
            _assert_verified(counts, pair)


def test_a_leader_far_ahead_survives_and_says_so():
    counts = simulate_bt(np.array([0.0, 3.0, 0.2]), 6000, shape="arena", seed=4)
    result = ranking_fragility(counts, pairs="leader", max_drop=50, exhaustive=0)
    assert result.leader == "m01"
    assert all(p.n_drop is None for p in result.pairs)
    assert result.headline() == (
        "The lead of m01 survives removing up to 50 verdicts (0.83% of all 6,000): the most "
        "influential removals found do not flip it."
    )
    assert "stays ahead" in result.lead.sentence()


def test_influence_is_the_first_order_change_of_the_refit():
    counts = simulate_bt(np.array([0.0, 0.3, 0.5, 1.0]), 200, shape="all_pairs", tie_rate=0.2, seed=3)
    out = Outcomes(counts)
    np.testing.assert_allclose(out.wins, pooled_wins(counts))
    theta, _ = fit_bradley_terry(out.wins)
    v = np.zeros((4, 1))
    v[3, 0], v[2, 0] = 1.0, -1.0
    delta = out.influence(out.wins, theta, 0.0, v)[:, 0]
    one = np.eye(out.size, dtype=np.int64)
    refit, _ = out.refit(one, theta)
    actual = (refit[:, 3] - refit[:, 2]) - (theta[3] - theta[2])
    np.testing.assert_allclose(delta, actual, rtol=0.02, atol=1e-5)


# -- tiny tables and bad input ----------------------------------------------------------------------
def test_one_call():
    counts = _table([(0, 1, WIN, 1)], models=("A", "B"))
    result = ranking_fragility(counts)
    assert result.max_drop == 1 and result.lead.n_drop is None
    assert result.lead.lower_bound == 2  # the one removal was refitted: a tie, not a flip


def test_models_that_never_meet():
    counts = _table([(0, 1, WIN, 3), (1, 0, WIN, 1), (2, 3, WIN, 2), (3, 2, WIN, 2)])
    result = ranking_fragility(counts, pairs="adjacent")
    # Pairs only within a piece of the comparison graph: A-B, and C-D (tied); never B-C.
    assert [(p.ahead, p.behind, p.n_drop) for p in result.pairs] == [("A", "B", 3), ("C", "D", 0)]
    assert result.notes and "pieces" in result.notes[0]
    assert result.lead.proven_minimal and _brute_force(counts, 0, 1, 3) == 3


def test_a_leader_without_rivals_is_said_in_words():
    counts = VerdictCounts.from_cells(
        models=("A", "B", "C"),
        instructions=("q",),
        judge=None,
        inst=[0, 0],
        a=[1, 2],
        b=[2, 1],
        n=[[0, 0, 0, 0, 2], [0, 0, 0, 0, 1]],
    )
    result = ranking_fragility(counts)
    assert result.pairs == () and result.lead is None
    assert result.headline() == "A has no rival it was compared with, directly or through others."
    adjacent = ranking_fragility(counts, pairs="adjacent")
    assert [(p.ahead, p.behind, p.n_drop) for p in adjacent.pairs] == [("B", "C", 2)]
    assert any("weak prior" in note for note in adjacent.notes)


def test_all_ties_has_no_lead():
    counts = _table([(0, 1, TIE, 3), (1, 2, TIE, 2)], models=("A", "B", "C"))
    result = ranking_fragility(counts)
    assert all(p.n_drop == 0 for p in result.pairs)
    assert "no lead to flip" in result.headline()


def test_as_dict_is_json_ready():
    result = ranking_fragility(_symmetric(2), pairs="adjacent", max_drop=5)
    payload = json.loads(json.dumps(result.as_dict()))
    assert payload["headline"] == result.headline()
    first = payload["pairs"][0]
    assert first["n_drop"] == 3 and first["proven_minimal"] and first["calls_listed_all"]
    assert {"instruction", "model_a", "model_b", "level", "count"} == set(first["calls"][0])
    assert repr(result).startswith("RankingFragility(adjacent")


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"pairs": "top"}, "pairs"),
        ({"max_drop": 0}, "max_drop"),
        ({"max_drop": 2.5}, "max_drop"),
        ({"exhaustive": -1}, "exhaustive"),
    ],
)
def test_bad_arguments_name_the_argument(kwargs, name):
    with pytest.raises(UsageError, match=name):
        ranking_fragility(_symmetric(1), **kwargs)


def test_bad_tables_are_refused_in_words():
    with pytest.raises(UsageError, match="counts must be VerdictCounts"):
        ranking_fragility(np.zeros((2, 2)))
    one = VerdictCounts.from_cells(
        models=("A",), instructions=("q",), judge=None, inst=[], a=[], b=[], n=np.zeros((0, 5))
    )
    with pytest.raises(UsageError, match="at least two different models"):
        ranking_fragility(one)
    with pytest.raises(TypeError):
        ranking_fragility(_symmetric(1), "adjacent")  # options are keyword-only


def test_a_selection_of_too_many_models_is_refused_in_words_and_the_overview_goes_on():
    """Above :data:`MAX_MODELS` the search would refit a large information matrix hundreds of
    times (minutes on 2,000 models: the Overview never drew): refused with the limit and what to
    do instead, and the other findings are computed."""
    import pandas as pd

    from evalcore.findings import run_analyses
    from evalcore.ranking import fragility
    from evalcore.store.store import VerdictStore

    m = fragility.MAX_MODELS + 1
    # a chain of models, each beating the next twice and losing to it once (one piece, no sweep)
    rows = [
        (f"q{k}-{r}", f"m{k:03d}", f"m{k + 1:03d}", 1 if r < 2 else -1)
        for k in range(m - 1)
        for r in range(3)
    ]
    frame = pd.DataFrame(rows, columns=["instruction_id", "model_a", "model_b", "verdict"])
    store = VerdictStore.from_frame(frame)
    counts = store.counts()
    assert counts.n_models == m
    for kind in ("remove", "flip"):
        with pytest.raises(UsageError, match=f"at most {fragility.MAX_MODELS} models.*has {m}"):
            ranking_fragility(counts, kind=kind)
    found = run_analyses(store, rounds=20, report=False)
    assert f"at most {fragility.MAX_MODELS} models" in found.unavailable["fragility"]
    assert found.leaderboard is not None and found.fragility is None
    store.close()


# -- the command line -------------------------------------------------------------------------------
@pytest.fixture()
def table_file(tmp_path, small_sim):
    path = tmp_path / "verdicts.csv"
    small_sim.verdicts.drop(columns=["row"]).to_csv(path, index=False)
    return path


def _run(argv):
    args = build_parser(("fragility",)).parse_args(argv)
    return args.handler(args)


def test_cli_json_agrees_with_the_library(table_file, small_store, capsys):
    assert _run(["fragility", str(table_file), "--judge", "j2", "--max-drop", "30", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    lib = ranking_fragility(small_store.counts(judge="j2"), max_drop=30)
    assert out["headline"] == lib.headline()
    assert [p["n_drop"] for p in out["pairs"]] == [p.n_drop for p in lib.pairs]
    assert out["mode"] == "leader" and out["max_drop"] == 30


def test_cli_table_and_category(table_file, capsys):
    assert _run(["fragility", str(table_file), "--category", "x", "--pairs", "adjacent"]) == 0
    text = capsys.readouterr().out
    assert "The lead of" in text and "Ahead" in text and "None" not in text


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--max-drop", "0"], "--max-drop"),
        (["--exhaustive", "-1"], "--exhaustive"),
        (["--category", "nope"], "category 'nope' is not in the file"),
        (["--judge", "nobody"], "judge 'nobody'"),
    ],
)
def test_cli_bad_input(table_file, argv, message, capsys):
    # A value out of an option's range stops while the command line is read (exit 2, one line
    # naming the option); the others stop in the command, with the message in the exception.
    with pytest.raises((SystemExit, Exception)) as stop:
        _run(["fragility", str(table_file), *argv])
    if isinstance(stop.value, SystemExit):
        assert stop.value.code == 2 and message in capsys.readouterr().err
    else:
        assert message in str(stop.value)


def _take_calls_sorting_all(delta, room, gap, limit):
    """take_calls as it was written: every candidate sorted (the reference for the sorted head)."""
    import math

    idx = np.flatnonzero((delta < 0) & (room > 0))
    order = idx[np.argsort(delta[idx], kind="stable")]
    gain, cap = -delta[order], room[order]
    cum_gain, cum_calls = np.cumsum(gain * cap), np.cumsum(cap)
    k = int(np.searchsorted(cum_gain, gap, side="right"))
    need = None
    if k < order.size:
        before = cum_gain[k] - gain[k] * cap[k]
        in_k = min(int(cap[k]), int(math.floor((gap - before) / gain[k])) + 1)
        need = int(cum_calls[k] - cap[k]) + max(in_k, 1)
    n = min(need if need is not None else int(cum_calls[-1]) if cap.size else 0, limit)
    full = int(np.searchsorted(cum_calls, n, side="right"))
    take = cap[: full + 1].copy()
    if full < take.size:
        take[full] = n - (cum_calls[full - 1] if full else 0)
    keep = take > 0
    return order[: full + 1][keep], take[keep], need


def test_taking_calls_from_a_sorted_head_equals_sorting_every_candidate():
    """The greedy search sorts only the head of the influences (an arena table has tens of
    thousands of outcome classes and takes a few): the same classes, calls and first-order need
    as sorting them all, with tied influences, empty rooms, small and large gaps and limits."""
    from evalcore.ranking.fragility.search import take_calls

    rng = np.random.default_rng(26)
    for _ in range(1500):
        n = int(rng.integers(0, 3000))
        delta = np.round(rng.normal(size=n), int(rng.integers(0, 3)))  # many ties
        room = rng.integers(0, 4, size=n)
        gap = float(rng.exponential(rng.choice([0.1, 1.0, 10.0, 100.0, 1000.0])))
        limit = int(rng.integers(0, 5000))
        got, want = take_calls(delta, room, gap, limit), _take_calls_sorting_all(delta, room, gap, limit)
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])
        assert got[2] == want[2]
