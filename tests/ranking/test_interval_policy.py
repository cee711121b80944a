"""One interval default everywhere: ``rank``, the library, the Dataset facade and the Leaderboard
page choose the method by the same rule (``choose_interval``) and say which and why."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from evalcore.cli import main
from evalcore.dataset import Dataset
from evalcore.errors import UsageError
from evalcore.ranking import choose_interval, leaderboard
from evalcore.ranking.design import BOOTSTRAP_LIMIT, BOOTSTRAP_MODEL_LIMIT
from evalcore.store.store import VerdictStore, read_verdicts


def _table(n_models: int, n_battles: int) -> pd.DataFrame:
    """An arena-shaped table: one battle per instruction, random pairs, a cycle so every model
    plays."""
    rng = np.random.default_rng(5)
    a = np.concatenate([np.arange(n_models), rng.integers(0, n_models, n_battles - n_models)])
    b = (a + rng.integers(1, n_models, a.size)) % n_models
    return pd.DataFrame(
        {
            "instruction_id": [f"q{k}" for k in range(a.size)],
            "model_a": [f"m{k:03d}" for k in a],
            "model_b": [f"m{k:03d}" for k in b],
            "verdict": rng.choice([-1, 0, 1], a.size),
        }
    )


def test_the_rule_in_words():
    assert choose_interval(BOOTSTRAP_LIMIT, BOOTSTRAP_MODEL_LIMIT).method == "bootstrap"
    big = choose_interval(BOOTSTRAP_LIMIT + 1, 10)
    assert big.method == "sandwich" and big.automatic and "instructions" in big.reason
    many = choose_interval(100, BOOTSTRAP_MODEL_LIMIT + 1)
    assert many.method == "sandwich" and f"{BOOTSTRAP_MODEL_LIMIT + 1:,} models" in many.reason
    asked = choose_interval(BOOTSTRAP_LIMIT + 1, 10, "bootstrap")
    assert asked.method == "bootstrap" and not asked.automatic and asked.reason == "bootstrap, as asked"
    with pytest.raises(UsageError, match="'auto', 'bootstrap' or 'sandwich'"):
        choose_interval(10, 3, "jackknife")


@pytest.mark.app
@pytest.mark.parametrize(
    ("n_models", "instruction_limit", "expected"),
    [
        (6, None, "bootstrap"),
        (BOOTSTRAP_MODEL_LIMIT + 10, None, "sandwich"),
        # an arena table's rule (instructions above the limit), on a table small enough for a
        # page test: the limit lowered for every face at once
        (6, 20, "sandwich"),
    ],
)
def test_every_face_chooses_the_same_default(
    n_models, instruction_limit, expected, tmp_path, capsys, monkeypatch
):
    if instruction_limit is not None:
        from evalcore.ranking import design

        monkeypatch.setattr(design, "BOOTSTRAP_LIMIT", instruction_limit)
    frame = _table(n_models, 4 * n_models)
    path = tmp_path / "battles.csv"
    frame.to_csv(path, index=False)
    store = VerdictStore()
    store.load(read_verdicts(path))
    counts = store.counts()
    policy = choose_interval(counts.n_instructions, counts.n_models)
    assert policy.method == expected
    if instruction_limit is not None:
        assert f"{counts.n_instructions:,} instructions (above {instruction_limit:,}" in policy.reason

    # the library and the facade
    board = leaderboard(counts, rounds=50)
    assert (board.interval_method, board.interval_reason) == (expected, policy.reason)
    facade = Dataset(store).leaderboard(rounds=50)
    assert (facade.interval_method, facade.interval_reason) == (expected, policy.reason)

    # the command line, --json and text
    assert main(["rank", str(path), "--bootstrap", "50", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["interval_method"], out["interval_reason"]) == (expected, policy.reason)
    assert main(["rank", str(path), "--bootstrap", "50"]) == 0
    assert policy.reason in capsys.readouterr().out

    # the page, after an upload of the same file
    from tests.conftest import new_app

    monkeypatch.setenv("VERDICTLAB_WORKSPACE", str(tmp_path / "ws.duckdb"))
    at = new_app()
    at.run()
    at.file_uploader(key="upload").upload("battles.csv", path.read_bytes(), "text/csv").run()
    at.switch_page("pages/leaderboard.py").run()
    assert not at.exception, at.exception
    labels = {"bootstrap": "Bootstrap over instructions", "sandwich": "Sandwich (clustered, fast)"}
    assert at.radio(key="lb_interval").value == labels[expected]
    assert any(policy.reason in c.value for c in at.caption)


def test_the_reason_counts_one_instruction_in_the_singular():
    # A one-instruction table once read "the table has 1 instructions and 2 models".
    reason = choose_interval(1, 2).reason
    assert "the table has 1 instruction and 2 models" in reason
    assert (
        "1 instructions" not in choose_interval(1, 1).reason
        and "1 models" not in choose_interval(1, 1).reason
    )
    assert "the table has 300 instructions and 6 models" in choose_interval(300, 6).reason


def test_the_rank_command_heads_its_output_with_a_capital_and_a_singular(tmp_path, capsys):
    # "judge j: 1 instructions" once opened the ranking of a one-instruction table.
    path = tmp_path / "one.csv"
    pd.DataFrame(
        {
            "instruction_id": ["q1"] * 2,
            "model_a": ["a", "b"],
            "model_b": ["b", "a"],
            "verdict": [1, -1],
            "judge": "j",
        }
    ).to_csv(path, index=False)
    assert main(["rank", str(path), "--bootstrap", "0"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Judge j: 1 instruction;"), out[:80]
