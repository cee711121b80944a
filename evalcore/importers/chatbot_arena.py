"""Battle tables: Chatbot Arena (FastChat ``clean_battle_data.py``, lmsys arena datasets) and the
MT-Bench human judgments that share their columns.

Large arena tables are converted in SQL by :mod:`evalcore.ingest`; this module is the Python path
(and the reference the SQL path is tested against)."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pandas as pd

from evalcore.importers._common import Conversion, _frame, _judge_name, _text_series
from evalcore.importers.detect import NAMES
from evalcore.importers.mt_bench import _MT_BENCH_RATER, _instruction_with_turn
from evalcore.schema import DEFAULT_JUDGE, VerdictFormatError, normalise_label

#: Judge name for Chatbot Arena tables whose judge column holds one id per voter.
ARENA_VOTERS = "Chatbot Arena voters"

_BATTLE_LEVELS = {"model_a": 1.0, "model_b": -1.0}


def _battle_levels(winner: pd.Series, *, file: str, column: str = "winner") -> pd.Series:
    """model_a → +1, model_b → −1, tie… → 0 (tie, tie (bothbad), tie (inconsistent)), empty /
    null / error → no verdict; anything else is an error naming the rows."""
    codes, uniques = pd.factorize(
        _text_series(winner, lambda v: normalise_label(v)).to_numpy(), use_na_sentinel=False
    )
    levels = np.full(len(uniques), np.nan)
    unknown = np.zeros(len(uniques), dtype=bool)
    for k, label in enumerate(uniques):
        if label in _BATTLE_LEVELS:
            levels[k] = _BATTLE_LEVELS[label]
        elif label.startswith("tie"):
            levels[k] = 0.0
        elif label in ("", "error", "nan", "none", "null"):
            pass
        else:
            unknown[k] = True
    bad = unknown[codes]
    if bad.any():
        positions = np.flatnonzero(bad)
        raise VerdictFormatError(
            file,
            f"column '{column}' has {len(positions)} value(s) that are not model_a, model_b, "
            "tie or tie (bothbad)",
            rows=tuple(int(p) + 1 for p in positions),
            values=tuple(dict.fromkeys(str(v) for v in winner.iloc[positions])),
            hint="A battle's winner is model_a (left), model_b (right), tie or tie (bothbad); "
            "leave it empty for a battle without a vote",
        )
    return pd.Series(levels[codes], index=winner.index)


def _levels_text(levels: pd.Series) -> pd.Series:
    names = np.array(["-2", "-1", "0", "1", "2", ""], dtype=object)
    values = levels.to_numpy(dtype="float64")
    index = np.where(np.isnan(values), 5, np.nan_to_num(values).astype(int) + 2)
    return pd.Series(names[index], index=levels.index, dtype="string")


def _assistant_chars(conversation: Any) -> float:
    """Characters the assistant wrote in a conversation (a list of {role, content})."""
    if not isinstance(conversation, (list, tuple, np.ndarray)):
        return math.nan
    total = 0
    for message in conversation:
        if isinstance(message, dict) and message.get("role") in ("assistant", "gpt"):
            content = message.get("content")
            total += len(content) if isinstance(content, str) else 0
    return float(total)


def _messages(conversation: Any) -> list:
    """A conversation as a list of messages: a list as stored, or one written as JSON text."""
    if isinstance(conversation, str):
        try:
            conversation = json.loads(conversation)
        except (ValueError, RecursionError):
            return []
    if isinstance(conversation, (list, tuple, np.ndarray)):
        return [m for m in conversation if isinstance(m, dict)]
    return []


def conversation_text(conversation: Any, *, turn: int | None = None) -> tuple[str | None, str | None]:
    """(first user turn, the assistant's turns joined by blank lines) of an arena conversation;
    with ``turn`` (MT-Bench, 1-based), that turn's question and answer only.

    Examples
    --------
    >>> conversation_text([{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}])
    ('Hi', 'Hello')
    """
    messages = _messages(conversation)
    users = [m.get("content") for m in messages if m.get("role") in ("user", "human")]
    said = [m.get("content") for m in messages if m.get("role") in ("assistant", "gpt")]
    if turn is not None:
        users, said = users[turn - 1 : turn], said[turn - 1 : turn]
    prompt = users[0] if users and isinstance(users[0], str) else None
    answer = "\n\n".join(t for t in said if isinstance(t, str)) if said else None
    return prompt, answer


def _turn(value: Any) -> int | None:
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    return number if number >= 1 else None


def _turns_text(value: Any) -> str | None:
    """A prompt or response cell of the one-hot arena tables: a JSON list of turns (written as
    text) joined by blank lines; other text as it is."""
    if not isinstance(value, str):
        return None
    if value.startswith("["):
        try:
            turns = json.loads(value)
        except (ValueError, RecursionError):
            return value
        if isinstance(turns, list) and all(isinstance(t, str) or t is None for t in turns):
            return "\n\n".join(t for t in turns if t is not None)
    return value


def _column(frame: pd.DataFrame, name: str) -> pd.Series | None:
    for column in frame.columns:
        if str(column).strip().lower() == name:
            return frame[column]
    return None


def _is_mt_bench(judges: pd.Series | None) -> bool:
    if judges is None:
        return False
    sample = judges.dropna().head(1000)
    return any(
        isinstance(v, (list, tuple, np.ndarray)) or (isinstance(v, str) and _MT_BENCH_RATER.match(v.strip()))
        for v in sample
    )


def from_battles(frame: pd.DataFrame, *, file: str) -> tuple[pd.DataFrame, str]:
    """Battle tables with ``model_a``, ``model_b``, ``winner``: Chatbot Arena and MT-Bench.

    Slot A is ``model_a`` (the left response in the arena, Assistant A in MT-Bench).

    * **MT-Bench human judgments** (judges ``expert_<n>`` / ``author_<n>``, or the GPT-4 rows
      of the same dataset with ``judge = ["gpt-4", "pair-v2"]``): instruction_id
      ``<question_id>#t<turn>``, category ``turn <turn>``, judge = the rater id (or ``gpt-4``).
      The GPT-4 rows of that dataset combine both orders into one vote, so their model order is
      not a display order (the label says so).
    * **Chatbot Arena**: instruction_id = ``question_id`` (one per conversation), or
      ``battle-<row>`` where the table has none (each battle its own prompt, as the arena's own
      bootstrap treats it). A judge column of per-voter ids (``arena_user_…``, ``judge_hash``)
      becomes one crowd judge, ``Chatbot Arena voters``; other judge names are kept. category =
      ``category`` if present, else ``language``; lengths = characters the assistant wrote in
      ``conversation_a`` / ``conversation_b`` when present.
    """
    model_a, model_b = _column(frame, "model_a"), _column(frame, "model_b")
    winner = _column(frame, "winner")
    judges = _column(frame, "judge")
    levels = _battle_levels(winner, file=file)
    n = len(frame)
    out = pd.DataFrame(
        {
            "model_a": _text_series(model_a),
            "model_b": _text_series(model_b),
            "verdict": _levels_text(levels),
        }
    )
    qids = _column(frame, "question_id")
    if qids is None:
        qids = _column(frame, "id")
    turns = _column(frame, "turn")
    if judges is not None and _is_mt_bench(judges):
        qid_text = (
            _text_series(qids)
            if qids is not None
            else pd.Series([f"battle-{i}" for i in range(1, n + 1)], index=frame.index)
        )
        pairs = [
            _instruction_with_turn(q, t)
            for q, t in zip(qid_text, turns if turns is not None else [None] * n, strict=True)
        ]
        out["instruction_id"] = pd.Series([p[0] for p in pairs], dtype="string")
        out["category"] = pd.Series([p[1] for p in pairs], dtype="string")
        out["judge"] = _text_series(judges, lambda v: _judge_name(v) or DEFAULT_JUDGE)
        turn_numbers = [_turn(t) for t in (turns if turns is not None else [None] * n)]
        for side in ("a", "b"):  # the judged turn's question and answers (turn 2: the follow-up)
            conversation = _column(frame, f"conversation_{side}")
            if conversation is not None:
                texts = [
                    conversation_text(c, turn=t) for c, t in zip(conversation, turn_numbers, strict=True)
                ]
                out[f"response_{side}"] = [x[1] for x in texts]
                if "prompt" not in out:
                    out["prompt"] = [x[0] for x in texts]
        is_gpt4 = judges.map(lambda v: isinstance(v, (list, tuple, np.ndarray)))
        note = "turn in instruction_id (question 81, turn 2 → '81#t2') and in category"
        if not is_gpt4.all():
            note += "; judge = rater id"
        if is_gpt4.any():
            note += "; the GPT-4 rows combine both orders (their model order is not the slot the judge saw)"
        what = (
            "human judgments"
            if not is_gpt4.any()
            else "GPT-4 judgments"
            if is_gpt4.all()
            else "human and GPT-4 judgments"
        )
        return out, f"MT-Bench {what}, lmsys/mt_bench_human_judgments ({note})"
    notes = []
    if qids is not None:
        ids = _text_series(qids)
        empty = ids == ""
        ids = ids.where(~empty, pd.Series([f"battle-{i}" for i in range(1, n + 1)]))
        if empty.any():
            notes.append(f"{int(empty.sum()):,} battle(s) without a question_id get their own id")
    else:
        ids = pd.Series([f"battle-{i}" for i in range(1, n + 1)])
        notes.append("no question_id: each battle is its own prompt ('battle-1', 'battle-2', …)")
    out["instruction_id"] = ids.astype("string").to_numpy()
    voter_hash = _column(frame, "judge_hash")
    if judges is not None:
        names = _text_series(judges, _judge_name)
        present = names[names != ""]
        if len(present) and present.str.startswith("arena_user").all():
            out["judge"] = ARENA_VOTERS
            notes.append(f"{present.nunique():,} voters pooled as one judge, '{ARENA_VOTERS}'")
        else:
            out["judge"] = names.where(names != "", DEFAULT_JUDGE).astype("string")
    elif voter_hash is not None:
        out["judge"] = ARENA_VOTERS
        notes.append(f"{voter_hash.nunique():,} voters pooled as one judge, '{ARENA_VOTERS}'")
    category = _column(frame, "category")
    if category is None:
        category = _column(frame, "language")
    if category is not None:
        out["category"] = _text_series(category)
    for side in ("a", "b"):
        conversation = _column(frame, f"conversation_{side}")
        if conversation is not None:
            out[f"length_{side}"] = conversation.map(_assistant_chars).astype("float64")
            texts = [conversation_text(c) for c in conversation]
            out[f"response_{side}"] = [t[1] for t in texts]
            if side == "a" or "prompt" not in out:
                out["prompt"] = [t[0] for t in texts]
    notes.insert(0, "winner model_a = left = slot A; ties and tie (bothbad) are ties")
    return out, f"{NAMES['battles']} ({'; '.join(notes)})"


class OneHotBattlesConversion(Conversion):
    """Arena tables with one-hot winner columns, batch by batch (see :func:`from_battles_one_hot`)."""

    kind = "battles_one_hot"
    frames = True

    def __init__(self, *, file: str) -> None:
        super().__init__(file=file)
        self.invalid: list[int] = []

    def columns(self, raw: object, *, start: int = 1) -> pd.DataFrame:
        frame = _frame(raw)
        if self.fields is not None:  # the columns a whole-file frame has, missing values as NaN
            frame = frame.reindex(columns=list(self.fields))
        flags = {}
        for name in ("winner_model_a", "winner_model_b", "winner_tie"):
            flags[name] = pd.to_numeric(_column(frame, name), errors="coerce")
        stacked = pd.DataFrame(flags)
        valid = stacked.isin([0, 1]).all(axis=1) & (stacked.sum(axis=1) <= 1)
        self.invalid.extend(int(p) + start for p in np.flatnonzero(~valid.to_numpy()))
        levels = (stacked["winner_model_a"] - stacked["winner_model_b"]).astype(float)
        levels = levels.where(stacked.sum(axis=1) == 1, np.nan)
        n = len(frame)
        ids = _column(frame, "id")
        if ids is None:
            ids = _column(frame, "question_id")
        ids = _text_series(ids) if ids is not None else pd.Series([""] * n)
        own = pd.Series([f"battle-{i}" for i in range(start, start + n)], index=ids.index)
        ids = ids.where(ids != "", own)
        out = pd.DataFrame(
            {
                "instruction_id": ids.astype("string").to_numpy(),
                "model_a": _text_series(_column(frame, "model_a")).to_numpy(),
                "model_b": _text_series(_column(frame, "model_b")).to_numpy(),
                "verdict": _levels_text(levels).to_numpy(),
                "judge": ARENA_VOTERS,
            }
        )
        for name in ("prompt", "response_a", "response_b"):
            column = _column(frame, name)
            if column is not None:
                out[name] = [_turns_text(v) for v in column]
        return out

    def label(self) -> str:
        if self.invalid:
            raise VerdictFormatError(
                self.file,
                f"{len(self.invalid)} row(s) where winner_model_a, winner_model_b and winner_tie "
                "are not a single 1 among 0s",
                rows=tuple(self.invalid),
                hint="Mark exactly one of the three winner columns with 1",
            )
        return (
            f"{NAMES['battles_one_hot']} (one-hot winner columns; model_a = slot A; one "
            f"crowd judge, '{ARENA_VOTERS}')"
        )


def from_battles_one_hot(frame: pd.DataFrame, *, file: str) -> tuple[pd.DataFrame, str]:
    """Arena human-preference tables with one-hot ``winner_model_a`` / ``winner_model_b`` /
    ``winner_tie`` columns (one of them 1 per row; all 0 = no vote). instruction_id = ``id`` or
    ``question_id``, else ``battle-<row>``; one crowd judge, ``Chatbot Arena voters``. Each row
    is converted on its own, so a file streamed in batches (:class:`OneHotBattlesConversion`)
    gives the same rows."""
    return OneHotBattlesConversion(file=file).whole(frame)
