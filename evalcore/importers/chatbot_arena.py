"""Battle tables: Chatbot Arena (FastChat ``clean_battle_data.py``, lmsys arena datasets) and the
MT-Bench human judgments that share their columns.

Arena dumps whose conversations are lists are converted in SQL by :mod:`evalcore.ingest.arena`;
this module converts the other battle tables (streamed in batches by :mod:`evalcore.ingest.native`,
or a table in memory) and is the reference the SQL path is tested against."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from evalcore.importers._common import NAMES, Conversion, _frame, _judge_name, _text_series
from evalcore.importers.labels import ARENA_VOTERS as ARENA_VOTERS  # re-exported
from evalcore.importers.labels import BATTLE_NOTE as BATTLE_NOTE  # re-exported
from evalcore.importers.mt_bench import _MT_BENCH_RATER, _instruction_with_turn
from evalcore.schema import BOTH_BAD_LABELS, DEFAULT_JUDGE, VerdictFormatError, normalise_label
from evalcore.text import fmt_count

_BATTLE_LEVELS = {"model_a": 1.0, "model_b": -1.0}


def _battle_levels(winner: pd.Series) -> tuple[pd.Series, np.ndarray]:
    """model_a → +1, model_b → −1, tie… → 0 (tie, tie (bothbad), tie (inconsistent)), empty /
    null / error → no verdict; and the positions of anything else (reported by
    :func:`_unknown_winners` once every batch is in)."""
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
    return pd.Series(levels[codes], index=winner.index), np.flatnonzero(unknown[codes])


def _both_bad_text(winner: pd.Series, levels: pd.Series) -> pd.Series:
    """'true' where the winner is ``tie (bothbad)``, 'false' for any other vote, '' for none."""
    marked = _text_series(winner, lambda v: normalise_label(v)).isin(BOTH_BAD_LABELS).to_numpy()
    text = np.where(marked, "true", "false").astype(object)
    text[levels.isna().to_numpy()] = ""
    return pd.Series(text, index=winner.index, dtype="string")


def _unknown_winners(file: str, rows: list[int], values: list[str]) -> VerdictFormatError:
    return VerdictFormatError(
        file,
        f"column 'winner' has {fmt_count(len(rows), 'value')} that {'is' if len(rows) == 1 else 'are'} not model_a, model_b, tie or tie (bothbad)",
        rows=tuple(rows),
        values=tuple(dict.fromkeys(values)),
        hint="A battle's winner is model_a (left), model_b (right), tie or tie (bothbad); "
        "leave it empty for a battle without a vote",
    )


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


#: Judges a battle table is recognised as MT-Bench's human judgments from: the first this many
#: that are present (rater ids ``expert_<n>`` / ``author_<n>`` or FastChat's ``[model, prompt]``).
MT_BENCH_PROBE = 1000


def _is_mt_bench(judges: pd.Series | None) -> bool:
    """Whether the first :data:`MT_BENCH_PROBE` judges present hold a rater id or a judge list."""
    if judges is None:
        return False
    sample = judges.dropna().head(MT_BENCH_PROBE)
    return any(
        isinstance(v, (list, tuple, np.ndarray)) or (isinstance(v, str) and _MT_BENCH_RATER.match(v.strip()))
        for v in sample
    )


@dataclass(frozen=True)
class BattleFacts:
    """What converting a battle table needs to know about the whole file before its first row.

    ``mt_bench``: the table is MT-Bench's human judgments (:func:`_is_mt_bench`); ``voters``:
    the distinct voter ids when every judge named is one (``arena_user…``), so the judges are
    pooled as one crowd judge, else None (judges kept as named); ``hashes``: the distinct
    ``judge_hash`` values of a table without a judge column, else None. A streamed load works
    them out in one SQL pass over the file (:mod:`evalcore.ingest.native`); :func:`battle_facts`
    is the same rules on a table in memory.
    """

    mt_bench: bool = False
    voters: int | None = None
    hashes: int | None = None


def battle_facts(frame: pd.DataFrame) -> BattleFacts:
    """The :class:`BattleFacts` of a whole battle table in memory."""
    judges = _column(frame, "judge")
    if judges is not None and _is_mt_bench(judges):
        return BattleFacts(mt_bench=True)
    if judges is not None:
        names = _text_series(judges, _judge_name)
        present = names[names != ""]
        pooled = bool(len(present)) and bool(present.str.startswith("arena_user").all())
        return BattleFacts(voters=int(present.nunique()) if pooled else None)
    voter_hash = _column(frame, "judge_hash")
    return BattleFacts(hashes=None if voter_hash is None else int(voter_hash.nunique()))


class BattlesConversion(Conversion):
    """Battle tables, batch by batch (see :func:`from_battles`); ``facts`` come from the whole
    file (:class:`BattleFacts`), everything else from each battle's own row."""

    kind = "battles"
    frames = True
    screen = {
        "model_a": "name",
        "model_b": "name",
        "winner": "name?",
        "question_id": "id?",
        "id": "id?",
        "judge": "judge?",
        "judge_hash": "id?",
        "category": "name?",
        "language": "name?",
        "turn": "number?",
    }

    def __init__(self, *, file: str, facts: BattleFacts | None = None) -> None:
        super().__init__(file=file)
        self.facts = facts
        self.unknown_rows: list[int] = []
        self.unknown: list[str] = []
        self.seen = 0  # battles converted
        self.listed = 0  # judges written as FastChat's [model, prompt] lists (GPT-4 rows)
        self.unnamed = 0  # battles without a question_id
        self.has_ids = False

    def columns(self, raw: object, *, start: int = 1) -> pd.DataFrame:
        if self.facts is None:
            raise ValueError("the whole file's BattleFacts must be known before its first batch")
        frame = _frame(raw)
        if self.fields is not None:  # the columns a whole-file frame has, missing values as NaN
            frame = frame.reindex(columns=list(self.fields))
        n = len(frame)
        self.seen += n
        winner = _column(frame, "winner")
        assert winner is not None  # the format is recognised by its winner column
        levels, unknown = _battle_levels(winner)
        if unknown.size:
            self.unknown_rows.extend(int(p) + start for p in unknown)
            self.unknown.extend(str(v) for v in winner.iloc[unknown])
        out = pd.DataFrame(
            {
                "model_a": _text_series(_column(frame, "model_a")),
                "model_b": _text_series(_column(frame, "model_b")),
                "verdict": _levels_text(levels),
            }
        )
        if not self.facts.mt_bench:  # the arena's "tie (bothbad)": a tie marked both bad
            out["both_bad"] = _both_bad_text(winner, levels)
        own = pd.Series([f"battle-{i}" for i in range(start, start + n)], index=frame.index)
        qids = _column(frame, "question_id")
        if qids is None:
            qids = _column(frame, "id")
        judges = _column(frame, "judge")
        if self.facts.mt_bench and judges is not None:
            self._mt_bench(frame, out, qids, judges, own)
            return out
        if qids is not None:
            self.has_ids = True
            ids = _text_series(qids)
            empty = ids == ""
            self.unnamed += int(empty.sum())
            ids = ids.where(~empty, own)
        else:
            ids = own
        out["instruction_id"] = ids.astype("string").to_numpy()
        if judges is not None:
            if self.facts.voters is not None:
                out["judge"] = ARENA_VOTERS
            else:
                names = _text_series(judges, _judge_name)
                out["judge"] = names.where(names != "", DEFAULT_JUDGE).astype("string")
        elif self.facts.hashes is not None:
            out["judge"] = ARENA_VOTERS
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
        return out

    def _mt_bench(
        self,
        frame: pd.DataFrame,
        out: pd.DataFrame,
        qids: pd.Series | None,
        judges: pd.Series,
        own: pd.Series,
    ) -> None:
        """MT-Bench's human judgments: the turn in the instruction id, the judged turn's text."""
        n = len(frame)
        qid_text = _text_series(qids) if qids is not None else own
        turns = _column(frame, "turn")
        turn_cells = turns if turns is not None else [None] * n
        pairs = [_instruction_with_turn(q, t) for q, t in zip(qid_text, turn_cells, strict=True)]
        out["instruction_id"] = pd.Series([p[0] for p in pairs], dtype="string")
        out["category"] = pd.Series([p[1] for p in pairs], dtype="string")
        out["judge"] = _text_series(judges, lambda v: _judge_name(v) or DEFAULT_JUDGE)
        turn_numbers = [_turn(t) for t in turn_cells]
        for side in ("a", "b"):  # the judged turn's question and answers (turn 2: the follow-up)
            conversation = _column(frame, f"conversation_{side}")
            if conversation is not None:
                texts = [
                    conversation_text(c, turn=t) for c, t in zip(conversation, turn_numbers, strict=True)
                ]
                out[f"response_{side}"] = [x[1] for x in texts]
                if "prompt" not in out:
                    out["prompt"] = [x[0] for x in texts]
        self.listed += int(judges.map(lambda v: isinstance(v, (list, tuple, np.ndarray))).sum())

    def whole(self, raw: object) -> tuple[pd.DataFrame, str]:
        if self.facts is None:
            self.facts = battle_facts(_frame(raw))
        return super().whole(raw)

    def label(self) -> str:
        if self.unknown_rows:
            raise _unknown_winners(self.file, self.unknown_rows, self.unknown)
        assert self.facts is not None
        if self.facts.mt_bench:
            note = "turn in instruction_id (question 81, turn 2 → '81#t2') and in category"
            if self.listed < self.seen:
                note += "; judge = rater id"
            if self.listed:
                note += (
                    "; the GPT-4 rows combine both orders (their model order is not the slot the judge saw)"
                )
            what = (
                "human judgments"
                if not self.listed
                else "GPT-4 judgments"
                if self.listed == self.seen
                else "human and GPT-4 judgments"
            )
            return f"MT-Bench {what}, lmsys/mt_bench_human_judgments ({note})"
        notes = [BATTLE_NOTE]
        if not self.has_ids:
            notes.append("no question_id: each battle is its own prompt ('battle-1', 'battle-2', …)")
        elif self.unnamed:
            notes.append(
                f"{fmt_count(self.unnamed, 'battle')} without a question_id "
                f"{'gets its' if self.unnamed == 1 else 'get their'} own id"
            )
        voters = self.facts.voters if self.facts.voters is not None else self.facts.hashes
        if voters is not None:
            notes.append(f"{voters:,} voters pooled as one judge, '{ARENA_VOTERS}'")
        return f"{NAMES['battles']} ({'; '.join(notes)})"


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

    Which of these applies is a fact of the whole table (:class:`BattleFacts`); each row is
    then converted on its own, so a file streamed in batches (:class:`BattlesConversion`, with
    the facts worked out in SQL) gives the same rows.
    """
    return BattlesConversion(file=file).whole(frame)


class OneHotBattlesConversion(Conversion):
    """Arena tables with one-hot winner columns, batch by batch (see :func:`from_battles_one_hot`)."""

    kind = "battles_one_hot"
    frames = True
    screen = {
        "model_a": "name",
        "model_b": "name",
        "winner_model_a": "number?",
        "winner_model_b": "number?",
        "winner_tie": "number?",
        "id": "id?",
        "question_id": "id?",
    }

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
                f"{fmt_count(len(self.invalid), 'row')} where winner_model_a, winner_model_b and winner_tie "
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
