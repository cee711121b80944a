"""Importers: the native output files of the LLM-judge tools people already run → the contract.

Each importer reads one tool's own file as the tool writes it and returns the rows of the verdict
table (``shared/VERDICT_FORMAT.md``): one row per judge call, ``model_a`` the response the judge
saw **first**, the verdict on −2..+2 from slot A's point of view, and calls that returned no
verdict kept as empty verdicts (never imputed). :func:`convert_native` recognises the format from
the fields present; :func:`evalcore.io.read_verdicts` calls it for anything that is not already a
verdict table, so the app and every CLI command read these files as they are.

Recognised formats (documented in ``docs/readme_importers.md``):

* **Arena-Hard-Auto judgment JSONL** (``lmarena/arena-hard-auto``, ``gen_judgment.py``): one line
  per question and model with ``games``; game 1 shows the baseline as Assistant A and the model as
  Assistant B, game 2 swaps them. Both games become rows in their own slot order.
* **AlpacaEval annotations JSON** (``tatsu-lab/alpaca_eval``, ``annotations.json``):
  ``preference`` in [1, 2] against ``generator_1`` (the reference), mirrored back from a random
  display order. The order is recovered from the judge's logprobs where they are stored
  (:func:`alpaca_slot_order`), else the row is written in the stored orientation and the format
  label says so.
* **MT-Bench pairwise judgments** (``lm-sys/FastChat``, ``fastchat/llm_judge``): GPT-4 pair files
  (``model_1``, ``model_2``, ``g1_winner``, ``g2_winner``; game 2 swapped) and the human / GPT-4
  judgment tables of ``lmsys/mt_bench_human_judgments`` (``model_a``, ``model_b``, ``winner``).
  The turn goes into the instruction id (``"81#t2"``) and the category (``"turn 2"``).
* **Chatbot Arena battle tables** (FastChat ``clean_battle_data.py``, ``lmsys`` arena datasets):
  ``model_a`` (left), ``model_b`` (right), ``winner`` = model_a / model_b / tie / tie (bothbad);
  also the one-hot ``winner_model_a`` / ``winner_model_b`` / ``winner_tie`` form.
"""

from __future__ import annotations

import ast
import hashlib
import json
import math
import re
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Iterable

import numpy as np
import pandas as pd

from evalcore.schema import DEFAULT_JUDGE, REQUIRED_COLUMNS, VerdictFormatError, normalise_label

Records = list[dict[str, Any]]

#: Arena-Hard-Auto score labels (its judge prompt's ``[[A>>B]]`` … ``[[B>>A]]``), slot A's view.
#: The mirrored spellings (``B<A`` …) say the same thing and are accepted too.
ARENA_HARD_SCORES: dict[str, int] = {
    "a>>b": 2, "a>b": 1, "a=b": 0, "b>a": -1, "b>>a": -2,
    "b<<a": 2, "b<a": 1, "b=a": 0, "a<b": -1, "a<<b": -2,
}

#: AlpacaEval: a continuous preference is cut into a verdict at these probabilities that the
#: slot-A output is better (``shared/data/real/alpacaeval2_weighted/README.md``:
#: ``round(2·p_a − 1)``, i.e. +1 if p_a > 0.75, −1 if p_a < 0.25, else 0).
ALPACA_WIN_ABOVE = 0.75
ALPACA_LOSS_BELOW = 0.25
#: Tolerance when matching a stored preference against the two display orders.
ALPACA_ORDER_TOLERANCE = 1e-4

#: Judge name for Chatbot Arena tables whose judge column holds one id per voter.
ARENA_VOTERS = "Chatbot Arena voters"
#: Name of the Arena-Hard-Auto baseline when an (older) file does not name it.
UNNAMED_BASELINE = "baseline"

_MT_BENCH_RATER = re.compile(r"^(expert|author)_\d+$")
_MAX_NOTED = 3


# -- small helpers ---------------------------------------------------------------------------

def _missing(value: Any) -> bool:
    if value is None or value is pd.NA:
        return True
    return isinstance(value, float) and math.isnan(value)


def _text(value: Any) -> str:
    """A cell as text: integral floats without ``.0`` (ids from Parquet/pandas), missing as ""."""
    if _missing(value):
        return ""
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    if isinstance(value, (np.integer,)):
        return str(int(value))
    return str(value).strip()


def _judge_name(value: Any) -> str:
    """A judge cell as a name: FastChat stores ``["gpt-4", "pair-v2"]`` (model, prompt)."""
    if isinstance(value, (list, tuple, np.ndarray)):
        return _text(value[0]) if len(value) else ""
    return _text(value)


def _text_series(values: pd.Series, convert: Callable[[Any], str] = _text) -> pd.Series:
    """``convert`` over a column, vectorised: plain text columns directly, others per distinct
    value (a million battles carry a few dozen model names); cells that cannot be hashed (the
    ``["gpt-4", "pair-v2"]`` judges of FastChat) one by one."""
    if convert is _text:
        if pd.api.types.is_integer_dtype(values.dtype) or pd.api.types.is_bool_dtype(values.dtype):
            return values.astype("string").fillna("")
        if pd.api.types.infer_dtype(values, skipna=True) in ("string", "empty"):
            return values.astype("string").str.strip().fillna("")
    try:
        codes, uniques = pd.factorize(values, use_na_sentinel=True)
    except TypeError:
        return values.map(convert).astype("string")
    texts = np.array([convert(u) for u in uniques] + [""], dtype=object)
    return pd.Series(texts[codes], index=values.index, dtype="string")


def _verdict_text(level: float | int | None) -> str:
    return "" if level is None or (isinstance(level, float) and math.isnan(level)) else str(int(level))


def _quoted(values: Iterable[str]) -> str:
    counts = Counter(v if len(v) <= 40 else v[:40] + "…" for v in values)
    shown = ", ".join(f"{v!r} ×{n}" if n > 1 else repr(v) for v, n in counts.most_common(_MAX_NOTED))
    more = len(counts) - _MAX_NOTED
    return shown + (f" and {more} more" if more > 0 else "")


def _records(raw: object) -> Records:
    if isinstance(raw, pd.DataFrame):
        return raw.to_dict(orient="records")
    return list(raw)  # type: ignore[arg-type]


def _frame(raw: object) -> pd.DataFrame:
    if isinstance(raw, pd.DataFrame):
        return raw.reset_index(drop=True)
    return pd.DataFrame.from_records(raw)  # type: ignore[arg-type]


def _output(rows: dict[str, list]) -> pd.DataFrame:
    frame = pd.DataFrame(rows)
    for name in ("instruction_id", "model_a", "model_b", "verdict", "judge", "category"):
        if name in frame.columns:
            frame[name] = frame[name].astype("string")
    return frame


def _columns(raw: object) -> set[str]:
    """Field names of a frame, or of the first records of a list (JSON files are uniform)."""
    if isinstance(raw, pd.DataFrame):
        return {str(c).strip().lower() for c in raw.columns}
    keys: set[str] = set()
    for record in raw[:200]:  # type: ignore[index]
        keys.update(str(k).strip().lower() for k in record)
    return keys


# -- recognition ------------------------------------------------------------------------------

def _native_keys(raw: object) -> set[str] | None:
    """The column names of a raw table that could be a tool's native file, else None: an empty
    or non-tabular object, or a table that already has the contract's columns."""
    if isinstance(raw, pd.DataFrame):
        if raw.shape[1] == 0:
            return None
    elif not (isinstance(raw, list) and raw and all(isinstance(r, dict) for r in raw)):
        return None
    keys = _columns(raw)
    return None if set(REQUIRED_COLUMNS) <= keys else keys


def detect_native(raw: object) -> str | None:
    """The native format of a raw table (``read_raw``'s output), or None if it is none of them.

    Returns one of ``"arena_hard"``, ``"alpaca_eval"``, ``"mt_bench_pair"``, ``"battles"``,
    ``"battles_one_hot"``. A table that already has the contract's columns is never native.
    """
    keys = _native_keys(raw)
    if keys is None:
        return None
    if "games" in keys and keys & {"model", "uid", "question_id"}:
        return "arena_hard"
    if {"generator_1", "generator_2", "preference"} <= keys:
        return "alpaca_eval"
    if {"model_1", "model_2", "g1_winner", "g2_winner"} <= keys:
        return "mt_bench_pair"
    if {"model_a", "model_b", "winner"} <= keys:
        return "battles"
    if {"model_a", "model_b", "winner_model_a", "winner_model_b", "winner_tie"} <= keys:
        return "battles_one_hot"
    return None


NAMES = {
    "arena_hard": "Arena-Hard-Auto judgment JSONL",
    "alpaca_eval": "AlpacaEval annotations JSON",
    "mt_bench_pair": "MT-Bench GPT-4 pairwise judgments",
    "battles": "Chatbot Arena battle table",
    "battles_one_hot": "Chatbot Arena battle table",
}


def convert_native(raw: object, *, file: str, path: str | None = None
                   ) -> tuple[pd.DataFrame, str] | None:
    """Convert a native tool file to verdict-table rows and a format label, or None if not native.

    ``raw`` is what :func:`evalcore.io.read_raw` produced (a DataFrame, or a list of JSON
    records); ``path`` (when the file came from disk) lets an Arena-Hard-Auto file without a
    ``judge`` field take the judge from its folder (``model_judgment/<judge>/<model>.jsonl``).
    A recognised file with broken content raises :class:`VerdictFormatError` naming the records.
    """
    kind = detect_native(raw)
    if kind is None:
        wrong = wrong_tool_file(raw)
        if wrong is not None:
            raise VerdictFormatError(file, wrong[0], hint=wrong[1])
        return None
    converters: dict[str, Callable[..., tuple[pd.DataFrame, str]]] = {
        "arena_hard": lambda: from_arena_hard(_records(raw), file=file, path=path),
        "alpaca_eval": lambda: from_alpaca_eval(_records(raw), file=file),
        "mt_bench_pair": lambda: from_mt_bench_pair(_records(raw), file=file),
        "battles": lambda: from_battles(_frame(raw), file=file),
        "battles_one_hot": lambda: from_battles_one_hot(_frame(raw), file=file),
    }
    try:
        frame, label = converters[kind]()
    except VerdictFormatError:
        raise
    except Exception as exc:  # a malformed record of a recognised format: say so in words
        raise VerdictFormatError(
            file, f"this looks like a {NAMES[kind]} but a record could not be read "
            f"({type(exc).__name__}: {exc})",
            hint="Check that the file is the tool's unedited output") from exc
    if frame.empty:
        raise VerdictFormatError(file, f"this {NAMES[kind]} holds no judge calls",
                                 hint="Upload a file with at least one judged pair")
    return frame, label


#: Other files the same tools write, often uploaded by mistake: (fields, what it is, what to do).
_WRONG_FILES: tuple[tuple[frozenset[str], str, str], ...] = (
    (frozenset({"question_id", "model", "score", "judge", "turn"}),
     "this is an MT-Bench single-answer grading file (a 1–10 score per answer), not a pairwise "
     "judgment",
     "Upload the pairwise file (model_judgment/gpt-4_pair.jsonl, from gen_judgment.py --mode "
     "pairwise-all or pairwise-baseline); per-answer scores belong in a pointwise table "
     "(instruction_id, candidate, judge, format, score)"),
    (frozenset({"model", "messages"}),
     "this is an Arena-Hard-Auto model-answer file, not a judgment file",
     "Upload the file gen_judgment.py writes, data/BENCH/model_judgment/JUDGE/MODEL.jsonl"),
    (frozenset({"model_id", "choices"}),
     "this is a model-answer file (Arena-Hard-Auto or MT-Bench), not a judgment file",
     "Upload the judgment file that gen_judgment.py writes under model_judgment/"),
    (frozenset({"instruction", "output", "generator"}),
     "this is an AlpacaEval model-outputs file, not its annotations",
     "Upload results/MODEL/ANNOTATOR/annotations.json (it has 'preference')"),
    (frozenset({"win_rate", "n_wins"}),
     "this is a leaderboard (one row per model), not per-instruction judgments",
     "Upload the judge's annotations or judgments; the dashboard computes the leaderboard"),
)


def wrong_tool_file(raw: object) -> tuple[str, str] | None:
    """A clear message for a tool's other outputs (answers, single scores, leaderboards)."""
    keys = _native_keys(raw)
    if keys is None:
        return None
    for fields, problem, hint in _WRONG_FILES:
        if fields <= keys:
            return problem, hint
    return None


# -- Arena-Hard-Auto --------------------------------------------------------------------------

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


def from_arena_hard(records: Records, *, file: str, path: str | None = None
                    ) -> tuple[pd.DataFrame, str]:
    """Arena-Hard-Auto judgments: every game of every line becomes one row.

    Game 1 (index 0) shows the baseline as Assistant A and the model as Assistant B; game 2 swaps
    them (``gen_judgment.py``); further games, if any, alternate the same way. ``score`` is read
    from slot A's point of view (``A>>B`` = +2 … ``B>>A`` = −2); a null score (the judge's output
    could not be parsed) or a game recorded as null (the API call failed) is a no-verdict row.
    A score label the tool does not know is also kept as no verdict, as Arena-Hard-Auto drops it,
    and the label says how many there were.
    """
    path_judge, path_model = _arena_hard_from_path(path)
    out: dict[str, list] = {k: [] for k in ("instruction_id", "model_a", "model_b", "verdict",
                                            "judge", "category")}
    no_id, no_model, bad_games = [], [], []
    unknown_scores: list[str] = []
    judge_from = Counter()
    unnamed_baseline = 0
    for number, record in enumerate(records, start=1):
        uid = _text(record.get("uid", record.get("question_id")))
        model = _text(record.get("model")) or (path_model or "")
        if not uid:
            no_id.append(number)
            continue
        if not model:
            no_model.append(number)
            continue
        baseline = _text(record.get("baseline"))
        if not baseline:
            baseline = UNNAMED_BASELINE
            unnamed_baseline += 1
        judge = _judge_name(record.get("judge"))
        if not judge:
            judge = path_judge or DEFAULT_JUDGE
            judge_from["folder" if path_judge else "default"] += 1
        games = record.get("games")
        if not isinstance(games, (list, tuple, np.ndarray)):
            bad_games.append(number)
            continue
        category = _text(record.get("category"))
        for index, game in enumerate(games):
            slot_a, slot_b = (baseline, model) if index % 2 == 0 else (model, baseline)
            score = game.get("score") if isinstance(game, dict) else None
            if game is not None and not isinstance(game, dict):
                bad_games.append(number)
                break
            level: int | None = None
            if not _missing(score):
                if not isinstance(score, str):
                    bad_games.append(number)
                    break
                level = ARENA_HARD_SCORES.get(normalise_label(score))
                if level is None and score.strip():
                    unknown_scores.append(score.strip())
            out["instruction_id"].append(uid)
            out["model_a"].append(slot_a)
            out["model_b"].append(slot_b)
            out["verdict"].append(_verdict_text(level))
            out["judge"].append(judge)
            out["category"].append(category)
    for rows, problem, hint in (
        (no_id, "record(s) without a question id ('uid' or 'question_id')",
         "Every line of an Arena-Hard-Auto judgment file names its question"),
        (no_model, "record(s) without a 'model'",
         "Every line names the model it judges (or keep the file name MODEL.jsonl)"),
        (bad_games, "record(s) whose 'games' is not a list of games with a text 'score'",
         "Each game is an object with a 'score' such as \"A>B\" (or null)"),
    ):
        if rows:
            raise VerdictFormatError(file, f"{len(rows)} {problem}", rows=tuple(rows), hint=hint)
    notes = ["game 1 = baseline in slot A, game 2 = swapped"]
    if unknown_scores:
        notes.append(f"{len(unknown_scores)} game(s) with a score Arena-Hard-Auto does not count "
                     f"({_quoted(unknown_scores)}) kept as no verdict")
    if judge_from["folder"]:
        notes.append("judge taken from the folder name")
    if judge_from["default"]:
        notes.append(f"judge not named in the file: called '{DEFAULT_JUDGE}'")
    if unnamed_baseline:
        notes.append(f"baseline not named in the file: called '{UNNAMED_BASELINE}'")
    return _output(out), f"{NAMES['arena_hard']} ({'; '.join(notes)})"


# -- AlpacaEval -------------------------------------------------------------------------------

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
        return [(str(t.get("token")), float(t.get("logprob"))) for t in top
                if isinstance(t, dict) and t.get("logprob") is not None]
    top = logprobs.get("top_logprobs")  # legacy completions API: a list of {token: logprob}
    if isinstance(top, (list, tuple)) and top and isinstance(top[0], dict):
        return [(str(k), float(v)) for k, v in top[0].items()]
    return []


def alpaca_first_slot_probability(raw_completion: Any, *, first: str = "m", second: str = "M"
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


def alpaca_slot_order(preference: float, p_first: float, *,
                      tolerance: float = ALPACA_ORDER_TOLERANCE) -> str | None:
    """Which display order explains a stored preference: ``"reference first"``,
    ``"reference second"``, ``"either"`` (p = ½: both do) or None (neither).

    AlpacaEval shows the two outputs in a random order and stores ``preference`` mirrored back to
    (generator_1, generator_2): with the reference (generator_1) shown first the parser stores
    2 − p(first); with the outputs switched it stores 1 + p(first)
    (``shared/data/real/alpacaeval2_weighted/README.md``, "How slot order was recovered").
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
    (the same key as ``sha1`` in ``shared/data/real/alpacaeval2_weighted/instructions.csv``)."""
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:12]


def _preference(value: Any) -> float | None:
    if _missing(value) or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool):
        raise ValueError(value)
    return float(value)


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
    """
    out: dict[str, list] = {k: [] for k in ("instruction_id", "model_a", "model_b", "verdict",
                                            "judge", "category", "length_a", "length_b")}
    bad_pref, bad_rows = [], []
    bad_values: list[str] = []
    recovered = unrecovered = either = skipped = 0
    for number, record in enumerate(records, start=1):
        instruction = record.get("instruction")
        ref, other = _text(record.get("generator_1")), _text(record.get("generator_2"))
        if _missing(instruction) or not ref or not other:
            bad_rows.append(number)
            continue
        try:
            pref = _preference(record.get("preference"))
        except (TypeError, ValueError):
            pref = math.nan
        if pref is not None and not (pref == 0 or 1.0 <= pref <= 2.0):
            bad_pref.append(number)
            bad_values.append(_text(record.get("preference")))
            continue
        out_ref, out_other = record.get("output_1"), record.get("output_2")
        completion = record.get("raw_completion")
        if (pref == 1.5 and _missing(completion) and isinstance(out_ref, str)
                and out_ref == out_other):
            skipped += 1
            continue
        p_first = alpaca_first_slot_probability(completion) if pref not in (None, 0) else None
        order = alpaca_slot_order(pref, p_first) if p_first is not None else None
        if order == "reference second":
            slot_a, slot_b, p_a = other, ref, p_first
            len_a, len_b = out_other, out_ref
        else:
            slot_a, slot_b = ref, other
            len_a, len_b = out_ref, out_other
            if order == "reference first":
                p_a = p_first
            elif pref is None:
                p_a = None
            else:
                p_a = 0.5 if pref == 0 else 2.0 - pref
        if order in ("reference first", "reference second"):
            recovered += 1
        elif order == "either":
            either += 1
        else:
            unrecovered += 1
        out["instruction_id"].append(instruction_key(str(instruction)))
        out["model_a"].append(slot_a)
        out["model_b"].append(slot_b)
        out["verdict"].append("" if p_a is None else str(alpaca_verdict(p_a)))
        out["judge"].append(_text(record.get("annotator")) or DEFAULT_JUDGE)
        out["category"].append(_text(record.get("dataset")))
        out["length_a"].append(float(len(len_a)) if isinstance(len_a, str) else math.nan)
        out["length_b"].append(float(len(len_b)) if isinstance(len_b, str) else math.nan)
    if bad_rows:
        raise VerdictFormatError(file, f"{len(bad_rows)} record(s) without 'instruction', "
                                 "'generator_1' or 'generator_2'", rows=tuple(bad_rows),
                                 hint="Every AlpacaEval annotation names the instruction and both "
                                 "generators")
    if bad_pref:
        raise VerdictFormatError(file, f"{len(bad_pref)} record(s) with a 'preference' outside "
                                 "[1, 2]", rows=tuple(bad_pref), values=tuple(bad_values),
                                 hint="AlpacaEval stores 1 (generator_1 better) … 2 (generator_2 "
                                 "better), 0 or 1.5 for a draw, null for no verdict")
    total = recovered + unrecovered + either
    if total and unrecovered == 0:
        order_note = f"slot order recovered from the judge's logprobs for {recovered + either:,}"
        order_note += f" of {total:,} rows" + (f" ({either} with p = ½ fit either order, written "
                                               "reference first)" if either else "")
    elif recovered + either == 0:
        order_note = ("slot order not recovered (no judge logprobs stored): model_a is the "
                      "reference generator_1 in every row, not necessarily the slot the judge "
                      "saw first")
    else:
        order_note = (f"slot order recovered from the judge's logprobs for {recovered + either:,} "
                      f"of {total:,} rows; the other {unrecovered:,} are written reference "
                      "(generator_1) first, order not recovered")
    notes = [order_note, "verdict +1 if P(slot A better) > 0.75, −1 if < 0.25, else 0"]
    if skipped:
        notes.append(f"{skipped} instruction(s) with identical outputs were never sent to the "
                     "judge and are left out")
    return _output(out), f"{NAMES['alpaca_eval']} ({'; '.join(notes)})"


# -- MT-Bench GPT-4 pair files ----------------------------------------------------------------

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


def from_mt_bench_pair(records: Records, *, file: str) -> tuple[pd.DataFrame, str]:
    """MT-Bench pairwise judgments (``gen_judgment.py --mode pairwise-*``): two rows per record.

    Game 1 shows model_1 as Assistant A; game 2 shows model_2 as Assistant A. FastChat writes
    each winner back as ``model_1`` / ``model_2`` / ``tie`` / ``error``, so game 2's
    ``model_2`` is a slot-A win. ``error`` (no ``[[A]]``/``[[B]]``/``[[C]]`` in the judgment)
    is a no-verdict row. The judge is the model of ``judge = [model, prompt]``; the prompt name
    (``pair-v2``, ``pair-v2-multi-turn``, ``pair-math-v1`` …) varies with the question and turn
    and is not part of the judge's name. instruction_id = ``<question_id>#t<turn>``,
    category = ``turn <turn>``.
    """
    out: dict[str, list] = {k: [] for k in ("instruction_id", "model_a", "model_b", "verdict",
                                            "judge", "category")}
    bad_rows, unknown_rows = [], []
    unknown: list[str] = []
    for number, record in enumerate(records, start=1):
        qid = _text(record.get("question_id", record.get("id")))
        m1, m2 = _text(record.get("model_1")), _text(record.get("model_2"))
        if not qid or not m1 or not m2:
            bad_rows.append(number)
            continue
        instruction_id, category = _instruction_with_turn(qid, record.get("turn"))
        judge = _judge_name(record.get("judge")) or DEFAULT_JUDGE
        games = (("g1_winner", m1, m2, "model_1", "model_2"),
                 ("g2_winner", m2, m1, "model_2", "model_1"))
        for key, slot_a, slot_b, a_key, b_key in games:
            level = _game_verdict(record.get(key), slot_a_key=a_key, slot_b_key=b_key)
            if isinstance(level, str):
                unknown_rows.append(number)
                unknown.append(level)
                level = None
            out["instruction_id"].append(instruction_id)
            out["model_a"].append(slot_a)
            out["model_b"].append(slot_b)
            out["verdict"].append(_verdict_text(level))
            out["judge"].append(judge)
            out["category"].append(category)
    if bad_rows:
        raise VerdictFormatError(file, f"{len(bad_rows)} record(s) without 'question_id', "
                                 "'model_1' or 'model_2'", rows=tuple(bad_rows),
                                 hint="Every MT-Bench pair judgment names the question and both "
                                 "models")
    if unknown_rows:
        raise VerdictFormatError(file, f"{len(unknown_rows)} game winner(s) that are not "
                                 "model_1, model_2, tie or error",
                                 rows=tuple(dict.fromkeys(unknown_rows)),
                                 values=tuple(dict.fromkeys(unknown)),
                                 hint="Use the winner labels FastChat writes (rows count records)")
    return _output(out), (f"{NAMES['mt_bench_pair']} (game 1 = model_1 in slot A, game 2 = "
                          "swapped; the turn is in instruction_id, e.g. '81#t2', and in category)")


# -- battle tables: Chatbot Arena, MT-Bench human judgments ----------------------------------

_BATTLE_LEVELS = {"model_a": 1.0, "model_b": -1.0}


def _battle_levels(winner: pd.Series, *, file: str, column: str = "winner") -> pd.Series:
    """model_a → +1, model_b → −1, tie… → 0 (tie, tie (bothbad), tie (inconsistent)), empty /
    null / error → no verdict; anything else is an error naming the rows."""
    codes, uniques = pd.factorize(_text_series(winner, lambda v: normalise_label(v)).to_numpy(),
                                  use_na_sentinel=False)
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
            file, f"column '{column}' has {len(positions)} value(s) that are not model_a, model_b, "
            "tie or tie (bothbad)", rows=tuple(int(p) + 1 for p in positions),
            values=tuple(dict.fromkeys(str(v) for v in winner.iloc[positions])),
            hint="A battle's winner is model_a (left), model_b (right), tie or tie (bothbad); "
            "leave it empty for a battle without a vote")
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


def _column(frame: pd.DataFrame, name: str) -> pd.Series | None:
    for column in frame.columns:
        if str(column).strip().lower() == name:
            return frame[column]
    return None


def _is_mt_bench(judges: pd.Series | None) -> bool:
    if judges is None:
        return False
    sample = judges.dropna().head(1000)
    return any(isinstance(v, (list, tuple, np.ndarray))
               or (isinstance(v, str) and _MT_BENCH_RATER.match(v.strip())) for v in sample)


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
    out = pd.DataFrame({
        "model_a": _text_series(model_a),
        "model_b": _text_series(model_b),
        "verdict": _levels_text(levels),
    })
    qids = _column(frame, "question_id")
    if qids is None:
        qids = _column(frame, "id")
    turns = _column(frame, "turn")
    if _is_mt_bench(judges):
        qid_text = _text_series(qids) if qids is not None else pd.Series(
            [f"battle-{i}" for i in range(1, n + 1)], index=frame.index)
        pairs = [_instruction_with_turn(q, t) for q, t in
                 zip(qid_text, turns if turns is not None else [None] * n, strict=True)]
        out["instruction_id"] = pd.Series([p[0] for p in pairs], dtype="string")
        out["category"] = pd.Series([p[1] for p in pairs], dtype="string")
        out["judge"] = _text_series(judges, lambda v: _judge_name(v) or DEFAULT_JUDGE)
        is_gpt4 = judges.map(lambda v: isinstance(v, (list, tuple, np.ndarray)))
        note = "turn in instruction_id (question 81, turn 2 → '81#t2') and in category"
        if not is_gpt4.all():
            note += "; judge = rater id"
        if is_gpt4.any():
            note += ("; the GPT-4 rows combine both orders (their model order is not the slot the "
                     "judge saw)")
        what = ("human judgments" if not is_gpt4.any() else "GPT-4 judgments" if is_gpt4.all()
                else "human and GPT-4 judgments")
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
    notes.insert(0, "winner model_a = left = slot A; ties and tie (bothbad) are ties")
    return out, f"{NAMES['battles']} ({'; '.join(notes)})"


def from_battles_one_hot(frame: pd.DataFrame, *, file: str) -> tuple[pd.DataFrame, str]:
    """Arena human-preference tables with one-hot ``winner_model_a`` / ``winner_model_b`` /
    ``winner_tie`` columns (one of them 1 per row; all 0 = no vote). instruction_id = ``id`` or
    ``question_id``, else ``battle-<row>``; one crowd judge, ``Chatbot Arena voters``."""
    flags = {}
    for name in ("winner_model_a", "winner_model_b", "winner_tie"):
        flags[name] = pd.to_numeric(_column(frame, name), errors="coerce")
    stacked = pd.DataFrame(flags)
    valid = stacked.isin([0, 1]).all(axis=1) & (stacked.sum(axis=1) <= 1)
    if not valid.all():
        positions = np.flatnonzero(~valid.to_numpy())
        raise VerdictFormatError(
            file, f"{len(positions)} row(s) where winner_model_a, winner_model_b and winner_tie "
            "are not a single 1 among 0s", rows=tuple(int(p) + 1 for p in positions),
            hint="Mark exactly one of the three winner columns with 1")
    levels = (stacked["winner_model_a"] - stacked["winner_model_b"]).astype(float)
    levels = levels.where(stacked.sum(axis=1) == 1, np.nan)
    n = len(frame)
    ids = _column(frame, "id")
    if ids is None:
        ids = _column(frame, "question_id")
    ids = _text_series(ids) if ids is not None else pd.Series([""] * n)
    ids = ids.where(ids != "", pd.Series([f"battle-{i}" for i in range(1, n + 1)], index=ids.index))
    out = pd.DataFrame({
        "instruction_id": ids.astype("string").to_numpy(),
        "model_a": _text_series(_column(frame, "model_a")).to_numpy(),
        "model_b": _text_series(_column(frame, "model_b")).to_numpy(),
        "verdict": _levels_text(levels).to_numpy(),
        "judge": ARENA_VOTERS,
    })
    return out, (f"{NAMES['battles_one_hot']} (one-hot winner columns; model_a = slot A; one "
                 f"crowd judge, '{ARENA_VOTERS}')")
