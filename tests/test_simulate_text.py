"""Synthetic text of simulated tables (evalcore.simulate.text): it follows the truth and never
changes the verdicts."""

from __future__ import annotations

import re

import pandas as pd

from evalcore.simulate.tables import JudgeSpec, SimulationSpec, simulate

TOKEN = {"[[A>>B]]": 2, "[[A>B]]": 1, "[[A=B]]": 0, "[[B>A]]": -1, "[[B>>A]]": -2}


def _spec(**over) -> SimulationSpec:
    base = dict(
        n_models=5,
        n_instructions=40,
        judges=(JudgeSpec("j1", no_verdict_rate=0.1), JudgeSpec("j2", slot_bias=1.0)),
        categories=("coding", "math"),
        outlier_rate=0.3,
        outlier_size=8.0,
        seed=4,
    )
    return SimulationSpec(**{**base, **over})


def test_text_leaves_the_verdicts_unchanged():
    plain = simulate(_spec()).verdicts
    text = simulate(_spec(text=True)).verdicts
    pd.testing.assert_frame_equal(plain, text[plain.columns])
    assert {"prompt", "response_a", "response_b", "judge_output"} <= set(text.columns)


def test_the_reasoning_ends_with_the_verdict_the_judge_returned():
    table = simulate(_spec(text=True)).verdicts
    for verdict, output in zip(table["verdict"], table["judge_output"], strict=True):
        token = re.search(r"\[\[[AB][>=]{1,2}[AB]\]\]$", output)
        if pd.isna(verdict):
            assert token is None  # cut off before a verdict
        else:
            assert TOKEN[token.group(0)] == int(verdict)


def test_one_answer_per_model_and_instruction_and_one_prompt_per_instruction():
    table = simulate(_spec(text=True, both_orders=False)).verdicts
    answers = pd.concat(
        [
            table[["instruction_id", "model_a", "response_a"]].set_axis(["i", "m", "t"], axis=1),
            table[["instruction_id", "model_b", "response_b"]].set_axis(["i", "m", "t"], axis=1),
        ]
    )
    assert answers.groupby(["i", "m"])["t"].nunique().max() == 1
    assert table.groupby("instruction_id")["prompt"].nunique().max() == 1
    assert answers["t"].str.contains("I'm sorry|First, we need to$", regex=True).any()  # outliers
