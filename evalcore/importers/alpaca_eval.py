"""AlpacaEval annotations JSON (``tatsu-lab/alpaca_eval``, ``annotations.json``)."""

from __future__ import annotations

import ast
import hashlib
import json
import math
from typing import Any

import pandas as pd

from evalcore.importers._common import (
    NAMES,
    Conversion,
    Records,
    _missing,
    _records,
    _text,
    empty_columns,
)
from evalcore.schema import DEFAULT_JUDGE, VerdictFormatError
from evalcore.text import fmt_count

#: AlpacaEval: a continuous preference is cut into a verdict at these probabilities that the
#: slot-A output is better (the AlpacaEval weighted-annotator convention, Dubois et al. 2024:
#: ``round(2·p_a − 1)``, i.e. +1 if p_a > 0.75, −1 if p_a < 0.25, else 0).
ALPACA_WIN_ABOVE = 0.75
ALPACA_LOSS_BELOW = 0.25
#: Tolerance when matching a stored preference against the two display orders.
ALPACA_ORDER_TOLERANCE = 1e-4


def _parse_completion(raw_completion: Any) -> Any:
    if isinstance(raw_completion, str):
        text = raw_completion.strip()
        if not text or len(text) > 200_000:
            return None
        try:
            return json.loads(text)
        except RecursionError:
            return None
        except ValueError:
            try:
                return ast.literal_eval(text)  # pandas-written Python reprs; literals only
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                return None
    return raw_completion


def _top_logprobs(completion: Any) -> list[tuple[str, float]]:
    """(token, logprob) pairs of the first generated token, chat or completions API layout."""
    if not isinstance(completion, dict):
        return []
    logprobs = completion.get("logprobs")
    if not isinstance(logprobs, dict):
        return []
    content = logprobs.get("content")
    if isinstance(content, (list, tuple)) and content and isinstance(content[0], dict):
        top = content[0].get("top_logprobs") or []
        return [
            (str(t.get("token")), float(lp))
            for t in top
            if isinstance(t, dict) and (lp := t.get("logprob")) is not None
        ]
    top = logprobs.get("top_logprobs")  # legacy completions API: a list of {token: logprob}
    if isinstance(top, (list, tuple)) and top and isinstance(top[0], dict):
        return [(str(k), float(v)) for k, v in top[0].items()]
    return []


def alpaca_first_slot_probability(
    raw_completion: Any, *, first: str = "m", second: str = "M"
) -> float | None:
    """P(the output shown first is better) from an AlpacaEval ``raw_completion``, or None.

    AlpacaEval 2.0's ``weighted_alpaca_eval_gpt4_turbo`` judge sees the outputs labelled ``m``
    (first) and ``M`` (second) and answers with one token; the probability is
    p(m) / (p(m) + p(M)) over the first token's stored ``top_logprobs`` (a token absent from
    the top list has probability 0). None when neither token is there or nothing is stored.
    """
    try:
        pairs = _top_logprobs(_parse_completion(raw_completion))
    except (TypeError, ValueError, AttributeError):  # a damaged completion: no logprobs
        return None
    first_lp = [lp for tok, lp in pairs if tok == first and math.isfinite(lp)]
    second_lp = [lp for tok, lp in pairs if tok == second and math.isfinite(lp)]
    if not first_lp or not second_lp:
        return (1.0 if first_lp else 0.0) if (first_lp or second_lp) else None

    def logsumexp(values: list[float]) -> float:
        top = max(values)
        return top + math.log(sum(math.exp(v - top) for v in values))

    gap = logsumexp(second_lp) - logsumexp(first_lp)  # log p(second) − log p(first)
    return 0.0 if gap > 700 else 1.0 / (1.0 + math.exp(gap))


def alpaca_slot_order(
    preference: float, p_first: float, *, tolerance: float = ALPACA_ORDER_TOLERANCE
) -> str | None:
    """Which display order explains a stored preference: ``"reference first"``,
    ``"reference second"``, ``"either"`` (p = ½: both do) or None (neither).

    AlpacaEval shows the two outputs in a random order and stores ``preference`` mirrored back to
    (generator_1, generator_2): with the reference (generator_1) shown first the parser stores
    2 − p(first); with the outputs switched it stores 1 + p(first)
    (docs/data-contract.md, "AlpacaEval").
    """
    plain = abs(preference - (2.0 - p_first)) <= tolerance
    switched = abs(preference - (1.0 + p_first)) <= tolerance
    if plain and switched:
        return "either"
    if plain:
        return "reference first"
    if switched:
        return "reference second"
    return None


def alpaca_verdict(p_slot_a: float) -> int:
    """+1 if P(slot A better) > 0.75, −1 if < 0.25, else 0 (the ``round(2·p − 1)`` rule)."""
    if p_slot_a > ALPACA_WIN_ABOVE:
        return 1
    if p_slot_a < ALPACA_LOSS_BELOW:
        return -1
    return 0


def instruction_key(text: str) -> str:
    """A stable instruction id: the first 12 hex digits of the SHA-1 of the UTF-8 text
    ."""
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:12]


def _preference(value: Any) -> float | None:
    if _missing(value) or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool):
        raise ValueError(value)
    return float(value)


def _completion_text(completion: Any) -> str | None:
    """The judge's reply in an annotation's ``raw_completion`` (its ``text`` or message content;
    a plain string as it is); None when the annotator kept no reply."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        text = completion.get("text")
        if isinstance(text, str):
            return text
        message = completion.get("message")
        if isinstance(message, dict) and isinstance(message.get("content"), str):
            return str(message["content"])
    return None


class AlpacaEvalConversion(Conversion):
    """AlpacaEval annotations, batch by batch (see :func:`from_alpaca_eval`)."""

    kind = "alpaca_eval"
    screen = {
        "instruction": "name",
        "generator_1": "name",
        "generator_2": "name",
        "preference": "number?",
        "annotator": "name?",
        "dataset": "name?",
    }

    def __init__(self, *, file: str) -> None:
        super().__init__(file=file)
        self.bad_pref: list[int] = []
        self.bad_rows: list[int] = []
        self.bad_values: list[str] = []
        self.recovered = self.unrecovered = self.either = self.skipped = 0

    def _slots(self, record: dict, pref: float | None) -> tuple[str, str, Any, Any, float | None] | None:
        """(slot A, slot B, output A, output B, P(slot A better)) of one annotation; None for an
        instruction never sent to the judge. Counts whether the display order was recovered."""
        ref, other = _text(record.get("generator_1")), _text(record.get("generator_2"))
        out_ref, out_other = record.get("output_1"), record.get("output_2")
        completion = record.get("raw_completion")
        if pref == 1.5 and _missing(completion) and isinstance(out_ref, str) and out_ref == out_other:
            self.skipped += 1
            return None
        p_first = alpaca_first_slot_probability(completion) if pref not in (None, 0) else None
        # p_first is only computed for a known preference, so pref is not None with it
        order = alpaca_slot_order(pref, p_first) if p_first is not None and pref is not None else None
        if order in ("reference first", "reference second"):
            self.recovered += 1
        elif order == "either":
            self.either += 1
        else:
            self.unrecovered += 1
        if order == "reference second":
            return other, ref, out_other, out_ref, p_first
        if order == "reference first":
            p_a = p_first
        elif pref is None:
            p_a = None
        else:
            p_a = 0.5 if pref == 0 else 2.0 - pref
        return ref, other, out_ref, out_other, p_a

    def columns(self, raw: object, *, start: int = 1) -> dict[str, list]:
        out = empty_columns("length_a", "length_b")
        for number, record in enumerate(_records(raw), start=start):
            instruction = record.get("instruction")
            if (
                _missing(instruction)
                or not _text(record.get("generator_1"))
                or not _text(record.get("generator_2"))
            ):
                self.bad_rows.append(number)
                continue
            try:
                pref = _preference(record.get("preference"))
            except (TypeError, ValueError):
                pref = math.nan
            if pref is not None and not (pref == 0 or 1.0 <= pref <= 2.0):
                self.bad_pref.append(number)
                self.bad_values.append(_text(record.get("preference")))
                continue
            slots = self._slots(record, pref)
            if slots is None:
                continue
            slot_a, slot_b, len_a, len_b, p_a = slots
            out["instruction_id"].append(instruction_key(str(instruction)))
            out["model_a"].append(slot_a)
            out["model_b"].append(slot_b)
            out["verdict"].append("" if p_a is None else str(alpaca_verdict(p_a)))
            out["judge"].append(_text(record.get("annotator")) or DEFAULT_JUDGE)
            out["category"].append(_text(record.get("dataset")))
            out["length_a"].append(float(len(len_a)) if isinstance(len_a, str) else math.nan)
            out["length_b"].append(float(len(len_b)) if isinstance(len_b, str) else math.nan)
            # the outputs follow the slots just chosen (mirrored back when the reference came second)
            out["prompt"].append(str(instruction))
            out["response_a"].append(len_a if isinstance(len_a, str) else None)
            out["response_b"].append(len_b if isinstance(len_b, str) else None)
            out["judge_output"].append(_completion_text(record.get("raw_completion")))
        return out

    def label(self) -> str:
        if self.bad_rows:
            raise VerdictFormatError(
                self.file,
                f"{fmt_count(len(self.bad_rows), 'record')} without 'instruction', 'generator_1' or 'generator_2'",
                rows=tuple(self.bad_rows),
                hint="Every AlpacaEval annotation names the instruction and both generators",
            )
        if self.bad_pref:
            raise VerdictFormatError(
                self.file,
                f"{fmt_count(len(self.bad_pref), 'record')} with a 'preference' outside [1, 2]",
                rows=tuple(self.bad_pref),
                values=tuple(self.bad_values),
                hint="AlpacaEval stores 1 (generator_1 better) … 2 (generator_2 "
                "better), 0 or 1.5 for a draw, null for no verdict",
            )
        recovered, unrecovered, either = self.recovered, self.unrecovered, self.either
        total = recovered + unrecovered + either
        if total and unrecovered == 0:
            order_note = f"slot order recovered from the judge's logprobs for {recovered + either:,}"
            order_note += f" of {total:,} rows" + (
                f" ({either} with an even preference fit either order, written reference first)"
                if either
                else ""
            )
        elif recovered + either == 0:
            order_note = (
                "slot order not recovered (no judge logprobs stored): model_a is the "
                "reference generator_1 in every row, not necessarily the slot the judge "
                "saw first"
            )
        else:
            order_note = (
                f"slot order recovered from the judge's logprobs for {recovered + either:,} "
                f"of {total:,} rows; the other {unrecovered:,} are written reference "
                "(generator_1) first, order not recovered"
            )
        notes = [order_note, "verdict +1 if P(slot A better) > 0.75, −1 if < 0.25, else 0"]
        if self.skipped:
            notes.append(
                f"{fmt_count(self.skipped, 'instruction')} with identical outputs "
                f"{'was' if self.skipped == 1 else 'were'} never sent to the judge and "
                f"{'is' if self.skipped == 1 else 'are'} left out"
            )
        return f"{NAMES['alpaca_eval']} ({'; '.join(notes)})"


def from_alpaca_eval(records: Records, *, file: str) -> tuple[pd.DataFrame, str]:
    """AlpacaEval annotations: one row per annotated instruction, in the order the judge saw.

    * Slot order: recovered from ``raw_completion`` logprobs when the stored preference matches
      exactly one display order (:func:`alpaca_slot_order`); when p = ½ either order fits and the
      verdict is a tie in both. Otherwise (no logprobs stored, as for ``alpaca_eval_gpt4``) the
      row is written in the stored orientation: **model_a = generator_1 (the reference)**,
      model_b = generator_2, and the label says slot order was not recovered; position-bias
      analyses are then meaningless for those rows.
    * Verdict: P(slot A better) is p(first) for recovered rows and 2 − preference otherwise, cut
      by :func:`alpaca_verdict`. ``preference`` 0 or 1.5 is a draw (AlpacaEval's own convention),
      null is a call without a verdict.
    * Rows AlpacaEval never sent to the judge (the two outputs identical: stored as 1.5 with no
      ``raw_completion``) are left out and counted in the label.
    * instruction_id = :func:`instruction_key` of the instruction text; judge = ``annotator``;
      category = ``dataset``; lengths = characters of each output.
    * Each annotation is converted on its own (the slot order is recovered per record), so a
      file streamed in batches (:class:`AlpacaEvalConversion`) gives the same rows.
    """
    return AlpacaEvalConversion(file=file).whole(records)
