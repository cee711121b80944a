"""Short synthetic prompts, answers and judge's reasoning for simulated verdict tables.

The text follows the simulation's truth, so reading it makes sense of the verdicts: an answer's
wording comes from its latent quality (a refusal or a truncated reply for a broken outlier, a
partial answer for a weak one, a worked answer with a list or a code block for a strong one),
and the judge's reasoning describes both answers and ends with the verdict the judge returned,
in Arena-Hard-Auto's ``[[A>>B]]`` notation. It is illustrative only: the ``length_a`` /
``length_b`` columns stay the simulated lengths. The text is drawn from its own random stream,
so adding it never changes a table's verdicts.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["add_text"]

#: category → (prompt, the heart of a good answer, a weak answer) per topic.
_TASKS: dict[str, tuple[tuple[str, str, str], ...]] = {
    "coding": (
        (
            "Write a Python function that removes duplicates from a list but keeps the order.",
            "```python\ndef dedupe(items):\n    return list(dict.fromkeys(items))\n```",
            "Use `list(set(items))`.",
        ),
        (
            "Write a Python function that checks whether a string is a palindrome.",
            "```python\ndef is_palindrome(text):\n    clean = [c.lower() for c in text if c.isalnum()]\n"
            "    return clean == clean[::-1]\n```",
            "Compare `text == text.reverse()`.",
        ),
        (
            "Write a Python function that merges two sorted lists.",
            "```python\nimport heapq\n\ndef merge(a, b):\n    return list(heapq.merge(a, b))\n```",
            "Use `a + b`.",
        ),
        (
            "Write a Python function that returns the n-th Fibonacci number.",
            "```python\ndef fib(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n"
            "    return a\n```",
            "```python\ndef fib(n):\n    return fib(n - 1) + fib(n - 2)\n```",
        ),
    ),
    "writing": (
        (
            "Write a short, friendly note asking a neighbour to water my plants.",
            "> Hi Sam! I'm away this weekend. Could you water my plants on Saturday? The key is "
            "under the blue pot. Thank you so much!",
            "Water my plants.",
        ),
        (
            "Write a haiku about the first snow of the year.",
            "> *Quiet morning street —*\n> *the first snow settles softly*\n> *on yesterday's leaves*",
            "Snow is white and cold, it falls down in the winter, I like the snow a lot.",
        ),
        (
            "Rewrite this sentence to be more formal: 'we gotta fix this bug asap'.",
            "> We need to resolve this defect as soon as possible.",
            "We gotta fix the bug soon.",
        ),
        (
            "Summarise the plot of Little Red Riding Hood in three sentences.",
            "1. A girl walks through the woods to bring food to her grandmother.\n2. A wolf reaches "
            "the house first and disguises himself as the grandmother.\n3. A woodcutter saves them both.",
            "A girl meets a wolf.",
        ),
    ),
    "reasoning": (
        (
            "Ann is taller than Ben, and Ben is taller than Cal. Who is the shortest?",
            "From the two facts, Ann > Ben > Cal in height, so **Cal** is the shortest.",
            "Ben is the shortest.",
        ),
        (
            "A bat and a ball cost 1.10 in total; the bat costs 1.00 more than the ball. "
            "What does the ball cost?",
            "Let the ball cost *x*. Then *x* + (*x* + 1.00) = 1.10, so 2*x* = 0.10 and the ball "
            "costs **0.05**.",
            "The ball costs 0.10.",
        ),
        (
            "If all bloops are razzies and some razzies are lazzies, must some bloops be lazzies?",
            "**No.** The razzies that are lazzies need not be bloops, so nothing forces any bloop "
            "to be a lazzie.",
            "Yes, some bloops must be lazzies.",
        ),
        (
            "A train leaves at 9:40 and the trip takes 85 minutes. When does it arrive?",
            "85 minutes is 1 hour 25 minutes; 9:40 + 1:25 = **11:05**.",
            "It arrives at 10:25.",
        ),
    ),
    "math": (
        (
            "What is 17 × 24? Show your steps.",
            "| step | value |\n|---|---|\n| 17 × 20 | 340 |\n| 17 × 4 | 68 |\n| total | **408** |",
            "17 × 24 = 398.",
        ),
        (
            "Solve for x: 3x + 7 = 25.",
            "Subtract 7: 3x = 18. Divide by 3: **x = 6**. Check: 3 · 6 + 7 = 25.",
            "x = 8.",
        ),
        (
            "What is 15% of 240?",
            "10% of 240 is 24 and 5% is 12, so 15% is **36**.",
            "15% of 240 is 3.6.",
        ),
        (
            "What is the sum of the integers from 1 to 100?",
            "Pair 1 with 100, 2 with 99, …: 50 pairs of 101, so the sum is **5,050**.",
            "The sum is 10,000.",
        ),
    ),
}
_OPEN = ("Here is my answer.", "Sure, here you go.")
_CHECK = "\n\nI double-checked the result, and it also handles the unusual cases (an empty input)."
_BROKEN = (
    "I'm sorry, but I can't help with that request.",
    "Sure! Here is a complete answer to your question. First, we need to",
)

#: How the judge describes an answer of each tier (0 broken … 4 standout).
_DESCRIBE = (
    "does not answer the question",
    "gives an answer that is incomplete or wrong",
    "answers correctly but briefly",
    "gives a complete, well-organised answer",
    "gives a complete answer and also covers an edge case",
)
_TOKEN = {2: "[[A>>B]]", 1: "[[A>B]]", 0: "[[A=B]]", -1: "[[B>A]]", -2: "[[B>>A]]"}
_CONCLUDE = {
    2: "Assistant A is significantly better.",
    1: "Assistant A is slightly better.",
    0: "The two answers are about equally good.",
    -1: "Assistant B is slightly better.",
    -2: "Assistant B is significantly better.",
}


def _tier(quality: np.ndarray) -> np.ndarray:
    """0 broken (an outlier's refusal or truncation), 1 weak, 2 adequate, 3 strong, 4 standout."""
    return np.digitize(quality, [-4.0, -0.8, 0.8, 4.0]).astype(int)


def _answer(task: tuple[str, str, str], tier: int, variant: int) -> str:
    _prompt, good, weak = task
    if tier == 0:
        return _BROKEN[variant]
    if tier == 1:
        return weak
    if tier == 2:
        return good
    return f"{_OPEN[variant]}\n\n{good}" + (_CHECK if tier == 4 else "")


def add_text(
    table: pd.DataFrame, quality_a: np.ndarray, quality_b: np.ndarray, *, seed: int = 0
) -> pd.DataFrame:
    """``table`` with ``prompt``, ``response_a``, ``response_b`` and ``judge_output`` added.

    Parameters
    ----------
    table : pandas.DataFrame
        A simulated verdict table (``instruction_id``, ``model_a``, ``model_b``, ``verdict``,
        ``judge``, ``category``).
    quality_a, quality_b : numpy.ndarray
        The latent quality of each row's slot-A and slot-B answer (the same value wherever the
        same model answers the same instruction).
    seed : int
        Seed of the text's own random stream (prompt topics and wording variants).

    Returns
    -------
    pandas.DataFrame
        A copy with the four text columns.

    Examples
    --------
    >>> t = pd.DataFrame({"instruction_id": ["q1"], "model_a": ["x"], "model_b": ["y"],
    ...                   "verdict": [2], "judge": ["j"], "category": ["math"]})
    >>> add_text(t, np.array([2.0]), np.array([-2.0]))["judge_output"].iloc[0].endswith("[[A>>B]]")
    True
    """
    rng = np.random.default_rng([seed, 7919])
    out = table.copy()
    categories = tuple(_TASKS)
    inst = out["instruction_id"].astype(str)
    codes, uniques = pd.factorize(inst, sort=True)
    own = out["category"].astype("string").fillna("")
    topic = rng.integers(0, 4, len(uniques))
    fallback = rng.integers(0, len(categories), len(uniques))
    first_category = pd.Series(own.to_numpy()).groupby(codes).first()
    cat = [c if c in _TASKS else categories[fallback[k]] for k, c in enumerate(first_category)]
    tasks = [_TASKS[c][t] for c, t in zip(cat, topic, strict=True)]
    variant = rng.integers(0, 2, len(uniques))
    out["prompt"] = np.array([task[0] for task in tasks], dtype=object)[codes]
    tiers_a, tiers_b = _tier(np.asarray(quality_a)), _tier(np.asarray(quality_b))
    cache: dict[tuple[int, int], str] = {}

    def answer(k: int, tier: int) -> str:
        if (k, tier) not in cache:
            cache[(k, tier)] = _answer(tasks[k], int(tier), int(variant[k]))
        return cache[(k, tier)]

    out["response_a"] = [answer(k, t) for k, t in zip(codes, tiers_a, strict=True)]
    out["response_b"] = [answer(k, t) for k, t in zip(codes, tiers_b, strict=True)]
    verdicts = out["verdict"].astype("Int8")
    reasons = []
    for ta, tb, v in zip(tiers_a, tiers_b, verdicts, strict=True):
        said = f"Assistant A {_DESCRIBE[ta]}. Assistant B {_DESCRIBE[tb]}."
        if pd.isna(v):
            reasons.append(said + " Comparing the two in detail, the")  # cut off: no verdict
        else:
            reasons.append(f"{said} {_CONCLUDE[int(v)]}\n\nMy final verdict is: {_TOKEN[int(v)]}")
    out["judge_output"] = reasons
    for column in ("prompt", "response_a", "response_b", "judge_output"):
        out[column] = out[column].astype("string")
    return out
