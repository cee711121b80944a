"""MT-Bench pairwise judgments (``lm-sys/FastChat``, ``fastchat/llm_judge``)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from evalcore.importers._common import (
    NAMES,
    Conversion,
    Records,
    _judge_name,
    _missing,
    _records,
    _text,
    _verdict_text,
    empty_columns,
)
from evalcore.importers.labels import MT_BENCH_RATER
from evalcore.schema import DEFAULT_JUDGE, VerdictFormatError, normalise_label
from evalcore.text import fmt_count

_MT_BENCH_RATER = MT_BENCH_RATER


def _game_verdict(winner: Any, *, slot_a_key: str, slot_b_key: str) -> int | None | str:
    """A FastChat game winner → level for the game's slot A; None = no verdict; str = unknown."""
    if _missing(winner):
        return None
    text = normalise_label(winner)
    if text in (slot_a_key, "a"):
        return 1
    if text in (slot_b_key, "b"):
        return -1
    if text.startswith("tie") or text == "c":
        return 0
    if text in ("error", ""):
        return None
    return str(winner)


def _instruction_with_turn(qid: str, turn: Any) -> tuple[str, str]:
    turn_text = _text(turn)
    if not turn_text:
        return qid, ""
    return f"{qid}#t{turn_text}", f"turn {turn_text}"


#: FastChat's single-turn pairwise judge prompt: the question, then both answers between markers.
_QUESTION = "[User Question]\n"
_ANSWER = "[The Start of Assistant {slot}'s Answer]\n"
_ANSWER_END = "\n[The End of Assistant {slot}'s Answer]"


def split_pair_prompt(text: Any) -> tuple[str | None, str | None, str | None]:
    """(question, answer A, answer B) from a FastChat pairwise judge prompt (``g1_user_prompt``).

    Prompts without the single-turn markers (the multi-turn template) are returned whole as the
    question, answers None: the conversation is what the judge read.

    Examples
    --------
    >>> split_pair_prompt("[User Question]\\nHi?\\n\\n[The Start of Assistant A's Answer]\\nYes\\n"
    ...     "[The End of Assistant A's Answer]\\n\\n[The Start of Assistant B's Answer]\\nNo\\n"
    ...     "[The End of Assistant B's Answer]")
    ('Hi?', 'Yes', 'No')
    """
    if not isinstance(text, str) or not text:
        return None, None, None
    at = text.find(_QUESTION)
    start_a = text.find(_ANSWER.format(slot="A"))
    if at < 0 or start_a < at:
        return text, None, None
    answers: list[str | None] = []
    for slot in ("A", "B"):
        begin = text.find(_ANSWER.format(slot=slot))
        end = text.find(_ANSWER_END.format(slot=slot), begin + 1)
        answers.append(text[begin + len(_ANSWER.format(slot=slot)) : end] if 0 <= begin < end else None)
    return text[at + len(_QUESTION) : start_a].strip("\n"), answers[0], answers[1]


def _opt_text(value: Any) -> str | None:
    return None if _missing(value) else str(value)


class MtBenchPairConversion(Conversion):
    """MT-Bench pairwise judgments, batch by batch (see :func:`from_mt_bench_pair`)."""

    kind = "mt_bench_pair"
    screen = {
        "question_id": "id",
        "model_1": "name",
        "model_2": "name",
        "g1_winner": "name?",
        "g2_winner": "name?",
        "judge": "judge?",
        "turn": "number?",
    }

    def __init__(self, *, file: str) -> None:
        super().__init__(file=file)
        self.bad_rows: list[int] = []
        self.unknown_rows: list[int] = []
        self.unknown: list[str] = []

    def columns(self, raw: object, *, start: int = 1) -> dict[str, list]:
        out = empty_columns("judged_at")
        for number, record in enumerate(_records(raw), start=start):
            qid = _text(record.get("question_id", record.get("id")))
            m1, m2 = _text(record.get("model_1")), _text(record.get("model_2"))
            if not qid or not m1 or not m2:
                self.bad_rows.append(number)
                continue
            instruction_id, category = _instruction_with_turn(qid, record.get("turn"))
            judge = _judge_name(record.get("judge")) or DEFAULT_JUDGE
            games = (("g1_winner", m1, m2, "model_1", "model_2"), ("g2_winner", m2, m1, "model_2", "model_1"))
            for key, slot_a, slot_b, a_key, b_key in games:
                game = key[:2]  # "g1" / "g2": the game's judgment and judge prompt
                question, answer_a, answer_b = split_pair_prompt(record.get(f"{game}_user_prompt"))
                out["prompt"].append(question)
                out["response_a"].append(answer_a)
                out["response_b"].append(answer_b)
                out["judge_output"].append(_opt_text(record.get(f"{game}_judgment")))
                out["judged_at"].append(_opt_text(record.get("tstamp")))
                level = _game_verdict(record.get(key), slot_a_key=a_key, slot_b_key=b_key)
                if isinstance(level, str):
                    self.unknown_rows.append(number)
                    self.unknown.append(level)
                    level = None
                out["instruction_id"].append(instruction_id)
                out["model_a"].append(slot_a)
                out["model_b"].append(slot_b)
                out["verdict"].append(_verdict_text(level))
                out["judge"].append(judge)
                out["category"].append(category)
        return out

    def label(self) -> str:
        if self.bad_rows:
            raise VerdictFormatError(
                self.file,
                f"{fmt_count(len(self.bad_rows), 'record')} without 'question_id', 'model_1' or 'model_2'",
                rows=tuple(self.bad_rows),
                hint="Every MT-Bench pair judgment names the question and both models",
            )
        if self.unknown_rows:
            raise VerdictFormatError(
                self.file,
                f"{fmt_count(len(self.unknown_rows), 'game winner')} that {'is' if len(self.unknown_rows) == 1 else 'are'} not model_1, model_2, tie or error",
                rows=tuple(dict.fromkeys(self.unknown_rows)),
                values=tuple(dict.fromkeys(self.unknown)),
                hint="Use the winner labels FastChat writes (rows count records)",
            )
        return (
            f"{NAMES['mt_bench_pair']} (game 1 = model_1 in slot A, game 2 = "
            "swapped; the turn is in instruction_id, e.g. '81#t2', and in category)"
        )


def from_mt_bench_pair(records: Records, *, file: str) -> tuple[pd.DataFrame, str]:
    """MT-Bench pairwise judgments (``gen_judgment.py --mode pairwise-*``): two rows per record.

    Game 1 shows model_1 as Assistant A; game 2 shows model_2 as Assistant A. FastChat writes
    each winner back as ``model_1`` / ``model_2`` / ``tie`` / ``error``, so game 2's
    ``model_2`` is a slot-A win. ``error`` (no ``[[A]]``/``[[B]]``/``[[C]]`` in the judgment)
    is a no-verdict row. The judge is the model of ``judge = [model, prompt]``; the prompt name
    (``pair-v2``, ``pair-v2-multi-turn``, ``pair-math-v1`` …) varies with the question and turn
    and is not part of the judge's name. instruction_id = ``<question_id>#t<turn>``,
    category = ``turn <turn>``. Each record is converted on its own (the turn is the record's
    ``turn``), so a file streamed in batches (:class:`MtBenchPairConversion`) gives the same rows.
    """
    return MtBenchPairConversion(file=file).whole(records)
