"""Arena-Hard-Auto judgment JSONL (``lmarena/arena-hard-auto``, ``gen_judgment.py``)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

from evalcore.importers._common import (
    NAMES,
    Conversion,
    Records,
    _judge_name,
    _missing,
    _quoted,
    _records,
    _text,
    _verdict_text,
    empty_columns,
)
from evalcore.schema import DEFAULT_JUDGE, VerdictFormatError, normalise_label
from evalcore.text import fmt_count

#: Arena-Hard-Auto score labels (its judge prompt's ``[[A>>B]]`` … ``[[B>>A]]``), slot A's view.
#: The mirrored spellings (``B<A`` …) say the same thing and are accepted too.
ARENA_HARD_SCORES: dict[str, int] = {
    "a>>b": 2,
    "a>b": 1,
    "a=b": 0,
    "b>a": -1,
    "b>>a": -2,
    "b<<a": 2,
    "b<a": 1,
    "b=a": 0,
    "a<b": -1,
    "a<<b": -2,
}

#: Name of the Arena-Hard-Auto baseline when an (older) file does not name it.
UNNAMED_BASELINE = "baseline"

#: The markers of Arena-Hard-Auto's judge prompt around the question and the two answers.
_PROMPT_START = "<|User Prompt|>\n"
_ANSWER = "<|The Start of Assistant {slot}'s Answer|>\n"
_ANSWER_END = "\n<|The End of Assistant {slot}'s Answer|>"


def split_judge_input(text: object) -> tuple[str | None, str | None, str | None]:
    """(question, answer A, answer B) from the text Arena-Hard-Auto sent the judge.

    The judge input is ``<|User Prompt|>`` + question + the two answers between
    ``<|The Start of Assistant A's Answer|>`` … ``<|The End of …|>`` markers. Text without the
    markers is returned whole as the question (it is what the judge read), answers None.

    Examples
    --------
    >>> split_judge_input("<|User Prompt|>\\nHi?\\n\\n<|The Start of Assistant A's Answer|>\\nYes"
    ...     "\\n<|The End of Assistant A's Answer|>\\n\\n<|The Start of Assistant B's Answer|>\\nNo"
    ...     "\\n<|The End of Assistant B's Answer|>")
    ('Hi?', 'Yes', 'No')
    """
    if not isinstance(text, str) or not text:
        return None, None, None
    start_a = text.find(_ANSWER.format(slot="A"))
    if not text.startswith(_PROMPT_START) or start_a < 0:
        return text, None, None
    question = text[len(_PROMPT_START) : start_a].strip("\n")
    answers: list[str | None] = []
    for slot in ("A", "B"):
        begin = text.find(_ANSWER.format(slot=slot))
        end = text.find(_ANSWER_END.format(slot=slot), begin + 1)
        answers.append(text[begin + len(_ANSWER.format(slot=slot)) : end] if 0 <= begin < end else None)
    return question, answers[0], answers[1]


def _judge_input(game: object) -> str | None:
    """The text the judge read: ``user_prompt`` (v0.1) or the last user message of ``prompt``
    (v2 stores the chat sent to the judge)."""
    if not isinstance(game, dict):
        return None
    text = game.get("user_prompt")
    if isinstance(text, str):
        return text
    messages = game.get("prompt")
    if isinstance(messages, (list, tuple, np.ndarray)):
        users = [m.get("content") for m in messages if isinstance(m, dict) and m.get("role") == "user"]
        if users and isinstance(users[-1], str):
            return users[-1]
    return None


def _judge_output(game: object) -> str | None:
    """The judge's reply: ``judgment`` as text (v0.1) or its ``answer`` (v2)."""
    if not isinstance(game, dict):
        return None
    output = game.get("judgment")
    if isinstance(output, dict):
        output = output.get("answer")
    return output if isinstance(output, str) else None


def _arena_hard_from_path(path: str | None) -> tuple[str | None, str | None]:
    """(judge, model) from ``…/model_judgment/<judge>/<model>.jsonl``, else what the path gives."""
    if not path:
        return None, None
    p = Path(path)
    judge = p.parent.name if p.parent.parent.name == "model_judgment" else None
    model = p.name.removesuffix(".gz")
    for suffix in (".jsonl", ".ndjson", ".json"):
        model = model.removesuffix(suffix)
    return judge, model or None


class ArenaHardConversion(Conversion):
    """Arena-Hard-Auto judgments, batch by batch (see :func:`from_arena_hard`)."""

    kind = "arena_hard"
    screen = {
        "uid": "id",
        "question_id": "id",
        "model": "name?",
        "baseline": "name?",
        "judge": "judge?",
        "category": "name?",
        "games": "games",
    }

    def __init__(self, *, file: str, path: str | None = None) -> None:
        super().__init__(file=file)
        self.path_judge, self.path_model = _arena_hard_from_path(path)
        self.no_id: list[int] = []
        self.no_model: list[int] = []
        self.bad_games: list[int] = []
        self.unknown_scores: list[str] = []
        self.judge_from: Counter[str] = Counter()
        self.unnamed_baseline = 0

    def columns(self, raw: object, *, start: int = 1) -> dict[str, list]:
        out = empty_columns()
        for number, record in enumerate(_records(raw), start=start):
            uid = _text(record.get("uid", record.get("question_id")))
            model = _text(record.get("model")) or (self.path_model or "")
            if not uid:
                self.no_id.append(number)
                continue
            if not model:
                self.no_model.append(number)
                continue
            baseline = _text(record.get("baseline"))
            if not baseline:
                baseline = UNNAMED_BASELINE
                self.unnamed_baseline += 1
            judge = _judge_name(record.get("judge"))
            if not judge:
                judge = self.path_judge or DEFAULT_JUDGE
                self.judge_from["folder" if self.path_judge else "default"] += 1
            games = record.get("games")
            if not isinstance(games, (list, tuple, np.ndarray)):
                self.bad_games.append(number)
                continue
            category = _text(record.get("category"))
            for index, game in enumerate(games):
                slot_a, slot_b = (baseline, model) if index % 2 == 0 else (model, baseline)
                score = game.get("score") if isinstance(game, dict) else None
                if game is not None and not isinstance(game, dict):
                    self.bad_games.append(number)
                    break
                level: int | None = None
                if not _missing(score):
                    if not isinstance(score, str):
                        self.bad_games.append(number)
                        break
                    level = ARENA_HARD_SCORES.get(normalise_label(score))
                    if level is None and score.strip():
                        self.unknown_scores.append(score.strip())
                out["instruction_id"].append(uid)
                out["model_a"].append(slot_a)
                out["model_b"].append(slot_b)
                out["verdict"].append(_verdict_text(level))
                out["judge"].append(judge)
                out["category"].append(category)
                # the judge's input holds the question and both answers in this game's slot order
                question, answer_a, answer_b = split_judge_input(_judge_input(game))
                out["prompt"].append(question)
                out["response_a"].append(answer_a)
                out["response_b"].append(answer_b)
                out["judge_output"].append(_judge_output(game))
        return out

    def label(self) -> str:
        for rows, problem, hint in (
            (
                self.no_id,
                "without a question id ('uid' or 'question_id')",
                "Every line of an Arena-Hard-Auto judgment file names its question",
            ),
            (
                self.no_model,
                "without a 'model'",
                "Every line names the model it judges (or keep the file name MODEL.jsonl)",
            ),
            (
                self.bad_games,
                "whose 'games' is not a list of games with a text 'score'",
                "Each game is an object with a 'score' such as \"A>B\" (or null)",
            ),
        ):
            if rows:
                raise VerdictFormatError(
                    self.file, f"{fmt_count(len(rows), 'record')} {problem}", rows=tuple(rows), hint=hint
                )
        notes = ["game 1 = baseline in slot A, game 2 = swapped"]
        if self.unknown_scores:
            notes.append(
                f"{fmt_count(len(self.unknown_scores), 'game')} with a score Arena-Hard-Auto does not count "
                f"({_quoted(self.unknown_scores)}) kept as no verdict"
            )
        if self.judge_from["folder"]:
            notes.append("judge taken from the folder name")
        if self.judge_from["default"]:
            notes.append(f"judge not named in the file: called '{DEFAULT_JUDGE}'")
        if self.unnamed_baseline:
            notes.append(f"baseline not named in the file: called '{UNNAMED_BASELINE}'")
        return f"{NAMES['arena_hard']} ({'; '.join(notes)})"


def from_arena_hard(records: Records, *, file: str, path: str | None = None) -> tuple[pd.DataFrame, str]:
    """Arena-Hard-Auto judgments: every game of every line becomes one row.

    Game 1 (index 0) shows the baseline as Assistant A and the model as Assistant B; game 2 swaps
    them (``gen_judgment.py``); further games, if any, alternate the same way. ``score`` is read
    from slot A's point of view (``A>>B`` = +2 … ``B>>A`` = −2); a null score (the judge's output
    could not be parsed) or a game recorded as null (the API call failed) is a no-verdict row.
    A score label the tool does not know is also kept as no verdict, as Arena-Hard-Auto drops it,
    and the label says how many there were. Each line is converted on its own (the baseline is
    the line's own ``baseline``), so a file streamed in batches (:class:`ArenaHardConversion`)
    gives the same rows.
    """
    return ArenaHardConversion(file=file, path=path).whole(records)


def _answer_text(record: dict) -> tuple[str | None, str | None]:
    """(question, answer) of one Arena-Hard-Auto answer record: ``messages`` (v2: the user turn
    and the assistant's ``content``, text or ``{"answer": …}``) or ``choices[0].turns`` (v0.1)."""
    messages = record.get("messages")
    if isinstance(messages, (list, tuple, np.ndarray)):
        question = answer = None
        for message in messages:
            if not isinstance(message, dict):
                continue
            content = message.get("content")
            if isinstance(content, dict):
                content = content.get("answer")
            if not isinstance(content, str):
                continue
            if message.get("role") == "user" and question is None:
                question = content
            elif message.get("role") == "assistant":
                answer = content
        return question, answer
    choices = record.get("choices")
    if isinstance(choices, (list, tuple, np.ndarray)) and choices and isinstance(choices[0], dict):
        turns = choices[0].get("turns")
        if isinstance(turns, (list, tuple, np.ndarray)) and turns and isinstance(turns[-1], dict):
            content = turns[-1].get("content")
            return None, content if isinstance(content, str) else None
    return None, None


def arena_hard_answers(records: Records, *, file: str, path: str | None = None) -> pd.DataFrame:
    """Arena-Hard-Auto answer files (``model_answer/<model>.jsonl``) → one row per answer:
    ``instruction_id`` (``uid``, else ``question_id``), ``model`` (``model``, else ``model_id``,
    else the file name), ``prompt`` (the user turn, when stored) and ``answer``.

    Examples
    --------
    >>> arena_hard_answers([{"uid": "q1", "model": "m", "messages": [
    ...     {"role": "user", "content": "Hi?"},
    ...     {"role": "assistant", "content": {"answer": "Hello."}}]}], file="m.jsonl")
      instruction_id model prompt  answer
    0             q1     m    Hi?  Hello.
    """
    _, path_model = _arena_hard_from_path(path)
    rows: dict[str, list] = {"instruction_id": [], "model": [], "prompt": [], "answer": []}
    bad = []
    for number, record in enumerate(records, start=1):
        if not isinstance(record, dict):
            bad.append(number)
            continue
        uid = _text(record.get("uid", record.get("question_id")))
        model = _text(record.get("model", record.get("model_id"))) or (path_model or "")
        question, answer = _answer_text(record)
        if not uid or not model or answer is None:
            bad.append(number)
            continue
        rows["instruction_id"].append(uid)
        rows["model"].append(model)
        rows["prompt"].append(question)
        rows["answer"].append(answer)
    if bad:
        raise VerdictFormatError(
            file,
            f"{fmt_count(len(bad), 'record')} that {'is' if len(bad) == 1 else 'are'} not Arena-Hard-Auto answers (a 'uid' or 'question_id', "
            "a 'model' and the answer in 'messages' or 'choices')",
            rows=tuple(bad),
            hint="Give the answer files Arena-Hard-Auto writes under model_answer/",
        )
    return pd.DataFrame(rows)
