"""Fragility under reversed verdicts: the fewest verdicts whose flip reverses an order.

A flip turns a win for one model into a win for the other, or a tie into a win for either; a
verdict is flipped at most once. Checked against an independent brute force that enumerates every
set of flips on small tables (each call either kept, or changed to each allowed outcome) and refits
the plain Bradley–Terry model on the resulting table, and against two models alone, where the
answer is known in closed form: removals need d + 1 calls, flips ⌊d / 2⌋ + 1 = ⌈(d + 1) / 2⌉
(d the lead in wins).
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from evalcore.cli import build_parser
from evalcore.errors import UsageError
from evalcore.ranking import ELO_SCALE, fit_bradley_terry, leaderboard, mle_exists
from evalcore.ranking.fragility import ranking_fragility
from evalcore.schema import LEVELS
from tests.ranking.test_fragility import LOSS, TIE, WIN, _calls, _random_small, _table

SCORE = {level: 1.0 if level > 0 else 0.5 if level == 0 else 0.0 for level in LEVELS}


def _brute_force_flips(counts, i, j, k_max):
    """Smallest number of calls whose flip puts j strictly above i (every set of k calls, every
    allowed new outcome of each: a win reversed, a tie made a win for either), refitted as the
    leaderboard fits; None if more than ``k_max`` are needed."""
    calls = _calls(counts)
    m = counts.n_models
    base = np.zeros((m, m))
    for a, b, level in calls:
        base[a, b] += SCORE[level]
        base[b, a] += 1.0 - SCORE[level]
    for k in range(1, k_max + 1):
        tables = []
        for chosen in itertools.combinations(range(len(calls)), k):
            # each chosen call's new score for its slot-A model: 1 - s for a win, 0 or 1 for a tie
            options = [
                (0.0, 1.0) if SCORE[calls[c][2]] == 0.5 else (1.0 - SCORE[calls[c][2]],) for c in chosen
            ]
            for new in itertools.product(*options):
                w = base.copy()
                for c, s in zip(chosen, new, strict=True):
                    a, b, level = calls[c]
                    w[a, b] += s - SCORE[level]
                    w[b, a] += SCORE[level] - s
                tables.append(w)
        wins = np.asarray(tables)
        exists = mle_exists(wins)
        theta = np.empty((len(tables), m))
        for group, prior in ((exists, 0.0), (~exists, 1.0)):
            if group.any():
                theta[group], _ = fit_bradley_terry(wins[group], prior_games=prior)
        if (ELO_SCALE * (theta[:, j] - theta[:, i]) > 1e-6).any():
            return k
    return None


def _flipped(counts, pair):
    """The table with the named calls reversed: level v becomes -v (a tie becomes a win for the
    model the outcome summary says it now favours); checks the names, too."""
    n = counts.n.astype(np.int64).copy()
    where = {
        (counts.instructions[i], counts.models[a], counts.models[b]): r
        for r, (i, a, b) in enumerate(zip(counts.inst, counts.a, counts.b, strict=True))
    }
    ties_to = {(o.winner, o.loser): o.becomes for o in pair.outcomes if o.outcome == "tie"}
    for c in pair.calls:
        r = where[(c.instruction, c.model_a, c.model_b)]
        n[r, c.level - LEVELS[0]] -= c.count
        assert n[r, c.level - LEVELS[0]] >= 0, "a named call is not in the table"
        if c.level:
            new = -c.level
        else:
            becomes = ties_to.get((c.model_a, c.model_b)) or ties_to[(c.model_b, c.model_a)]
            new = 2 if becomes == c.model_a else -2
        n[r, new - LEVELS[0]] += c.count
    return counts.with_cells(counts.inst, counts.a, counts.b, n)


def _assert_verified(counts, pair):
    """Reversing the named calls really puts the model behind ahead on the real leaderboard."""
    assert sum(c.count for c in pair.calls) == pair.n_drop
    board = leaderboard(_flipped(counts, pair), rounds=0)
    rating = dict(zip(board.table["model"], board.table["rating"], strict=True))
    assert rating[pair.behind] > rating[pair.ahead]
    assert rating[pair.behind] - rating[pair.ahead] == pytest.approx(-pair.gap_after, abs=1e-6)


# -- a hand-worked table of 12 verdicts ------------------------------------------------------------
def _hand_table():
    """A, B, C: A won 3 of 4 against B (one tie), A beat C twice and lost once, B and C split two
    with a tie. 12 verdicts."""
    rows = [(0, 1, WIN, 2), (1, 0, LOSS, 1), (0, 1, TIE, 1), (1, 0, WIN, 1)]
    rows += [(0, 2, WIN, 2), (2, 0, WIN, 1)]
    rows += [(1, 2, WIN, 1), (2, 1, WIN, 1), (1, 2, TIE, 1), (2, 1, LOSS, 1)]
    return _table(rows, models=("A", "B", "C"))


def test_hand_worked_table_matches_brute_force_over_every_flip():
    counts = _hand_table()
    assert counts.calls == 12
    result = ranking_fragility(counts, pairs="adjacent", kind="flip", max_drop=4, exhaustive=20000)
    removal = ranking_fragility(counts, pairs="adjacent", max_drop=6, exhaustive=20000)
    for pair, drop in zip(result.pairs, removal.pairs, strict=True):
        i, j = counts.index(pair.ahead), counts.index(pair.behind)
        truth = _brute_force_flips(counts, i, j, 4)
        assert truth is not None
        assert pair.n_drop == truth and pair.proven_minimal and pair.lower_bound >= truth
        _assert_verified(counts, pair)
        # a flip does at least what a removal does, so never more flips than removals
        assert pair.n_drop <= drop.n_drop
    # the lead: A over B, hand-worked: A 3.5 - 1.5 up on B and 2 - 1 on C; one flipped win of A
    # over B leaves A 2.5 - 2.5 with B (B still behind on C's results), two put B ahead.
    lead = result.lead
    assert (lead.ahead, lead.behind) == ("A", "B") and lead.n_drop == 2 and lead.proven_minimal


@pytest.mark.parametrize("seed", range(10))
def test_matches_brute_force_on_small_random_tables(seed):
    counts = _random_small(seed)
    k_max = 3
    exact = ranking_fragility(counts, pairs="adjacent", kind="flip", max_drop=k_max, exhaustive=20000)
    guided = ranking_fragility(counts, pairs="adjacent", kind="flip", max_drop=k_max, exhaustive=0)
    for pair, quick in zip(exact.pairs, guided.pairs, strict=True):
        if pair.n_drop == 0:
            continue
        truth = _brute_force_flips(counts, counts.index(pair.ahead), counts.index(pair.behind), k_max)
        assert pair.n_drop == truth
        assert pair.proven_minimal or (truth is None and pair.lower_bound > k_max)
        if quick.n_drop is not None:  # the guided search alone: an upper bound, always verified
            assert truth is not None and quick.n_drop >= truth
            _assert_verified(counts, quick)
        if pair.n_drop:
            _assert_verified(counts, pair)


# -- two models: flips = ceil(removals / 2) by construction ------------------------------------------
@pytest.mark.parametrize(("wins", "losses"), [(5, 4), (7, 3), (8, 3), (10, 2), (12, 1), (30, 11)])
def test_two_models_need_half_the_removals_rounded_up(wins, losses):
    counts = _table([(0, 1, WIN, wins), (0, 1, LOSS, losses)], models=("A", "B"))
    removal = ranking_fragility(counts, max_drop=counts.calls).lead
    flips = ranking_fragility(counts, kind="flip", max_drop=counts.calls).lead
    d = wins - losses
    assert removal.n_drop == d + 1  # removing d wins ties the two; one more puts B ahead
    assert flips.n_drop == d // 2 + 1 == -(-removal.n_drop // 2)
    assert flips.proven_minimal or wins + losses > 12  # proven where the exhaustive search reaches
    assert [(o.winner, o.loser, o.outcome, o.becomes) for o in flips.outcomes] == [("A", "B", "win", "B")]
    _assert_verified(counts, flips)


def test_a_tie_can_be_flipped_to_a_loss():
    # A beat B once; the rest are ties. No removal puts B strictly ahead (B never won), but
    # turning two ties into wins for B does, and one tie plus the win would take two as well.
    counts = _table([(0, 1, WIN, 1), (0, 1, TIE, 4)], models=("A", "B"))
    assert ranking_fragility(counts).lead.n_drop is None
    result = ranking_fragility(counts, kind="flip")
    lead = result.lead
    assert lead.n_drop == 1 and lead.proven_minimal
    assert _brute_force_flips(counts, 0, 1, 3) == 1
    _assert_verified(counts, lead)
    assert "flipping them puts B ahead; no smaller set does." in result.headline()


def test_words_keys_and_arguments():
    counts = _hand_table()
    result = ranking_fragility(counts, kind="flip")
    out = json.loads(json.dumps(result.as_dict()))
    assert out["kind"] == "flip" and "max_flip" in out and "max_drop" not in out
    pair = out["pairs"][0]
    assert {"n_flip", "first_order_flip"} <= set(pair) and "n_drop" not in pair
    assert "becomes" in pair["outcomes"][0]
    assert pair["sentence"].startswith("Flipping ")
    # the removal search keeps its keys as they were
    plain = ranking_fragility(counts).as_dict()
    assert "kind" not in plain and "n_drop" in plain["pairs"][0]
    assert "becomes" not in plain["pairs"][0]["outcomes"][0]
    assert result.flip_clause("B") == "reversing 2 verdicts, and no fewer, would do the same"
    assert result.flip_clause("C") == "reversing 2 verdicts, and no fewer, would put B ahead"
    assert ranking_fragility(counts).flip_clause("B") is None
    with pytest.raises(UsageError, match="kind"):
        ranking_fragility(counts, kind="swap")


def test_cli_flip_json_agrees_with_the_library(tmp_path, capsys):
    counts = _hand_table()
    rows = [
        {"instruction_id": counts.instructions[i], "model_a": counts.models[a], "model_b": counts.models[b]}
        | {"verdict": int(LEVELS[int(np.argmax(n))])}
        for i, a, b, n in zip(counts.inst, counts.a, counts.b, counts.n, strict=True)
    ]
    import pandas as pd

    path = tmp_path / "v.csv"
    pd.DataFrame(rows).assign(judge="j").to_csv(path, index=False)
    args = build_parser(("fragility",)).parse_args(["fragility", str(path), "--flip", "--json"])
    assert args.handler(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["kind"] == "flip" and out["pairs"][0]["n_flip"] == 2
    args = build_parser(("fragility",)).parse_args(["fragility", str(path), "--flip"])
    assert args.handler(args) == 0
    text = capsys.readouterr().out
    assert "flipped per pair" in text and "flipping them puts B ahead" in text
