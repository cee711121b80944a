"""Which tool wrote a file: recognition from the fields present, and the dispatch to its importer."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import pandas as pd

from evalcore.importers._common import NAMES, Conversion, _columns, _frame
from evalcore.schema import REQUIRED_COLUMNS, VerdictFormatError


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
    if {"uid", "model_a_in_prompt", "model_b_in_prompt", "final_verdict"} <= keys:
        return "judgements_900k"
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


#: The formats converted record by record (:class:`~evalcore.importers._common.Conversion`), so
#: :mod:`evalcore.ingest.native` streams them in batches. A battle table also needs a few facts
#: of the whole file first (:class:`~evalcore.importers.chatbot_arena.BattleFacts`: voters are
#: pooled as one judge only when every judge is a voter id), which the streamed load works out
#: in SQL before the first batch. The anchor paper's judgements are converted in SQL
#: (:mod:`evalcore.importers.judgements_900k`), as are arena dumps whose conversations are
#: stored as lists (:mod:`evalcore.ingest.arena`).
STREAMED = frozenset({"arena_hard", "alpaca_eval", "mt_bench_pair", "battles", "battles_one_hot"})


def conversion(kind: str, *, file: str, path: str | None = None) -> Conversion:
    """The batch-by-batch converter of a format in :data:`STREAMED` (``path``: see
    :func:`convert_native`)."""
    from evalcore.importers.alpaca_eval import AlpacaEvalConversion
    from evalcore.importers.arena_hard import ArenaHardConversion
    from evalcore.importers.chatbot_arena import BattlesConversion, OneHotBattlesConversion
    from evalcore.importers.mt_bench import MtBenchPairConversion

    if kind == "arena_hard":
        return ArenaHardConversion(file=file, path=path)
    found: dict[str, type[Conversion]] = {
        "alpaca_eval": AlpacaEvalConversion,
        "mt_bench_pair": MtBenchPairConversion,
        "battles": BattlesConversion,
        "battles_one_hot": OneHotBattlesConversion,
    }
    if kind not in found:
        raise ValueError(f"{kind!r} is not converted record by record")
    return found[kind](file=file)


@contextmanager
def reading(kind: str, *, file: str) -> Iterator[None]:
    """Converting a recognised file: a malformed record (any error but a
    :class:`VerdictFormatError`) becomes a message in words naming the format."""
    try:
        yield
    except VerdictFormatError:
        raise
    except Exception as exc:  # a malformed record of a recognised format: say so in words
        raise VerdictFormatError(
            file,
            f"this looks like a {NAMES[kind]} but a record could not be read ({type(exc).__name__}: {exc})",
            hint="Check that the file is the tool's unedited output",
        ) from exc


def no_calls(kind: str, *, file: str, set_aside: Conversion | None = None) -> VerdictFormatError:
    """The message for a recognised file that converts to no row (``set_aside``: the conversion,
    when it set records aside for values of the wrong type: they are named)."""
    if set_aside is not None and set_aside.set_aside:
        from evalcore.importers._common import set_aside_note

        return VerdictFormatError(
            file,
            f"this {NAMES[kind]} holds no judge calls once the records with a value of the wrong "
            f"type are set aside ({set_aside_note(set_aside.set_aside, set_aside.set_aside_examples)})",
            hint="Check that the file is the tool's unedited output",
        )
    return VerdictFormatError(
        file,
        f"this {NAMES[kind]} holds no judge calls",
        hint="Upload a file with at least one judged pair",
    )


def convert_native(raw: object, *, file: str, path: str | None = None) -> tuple[pd.DataFrame, str] | None:
    """Convert a native tool file to verdict-table rows and a format label, or None if not native.

    ``raw`` is what :func:`evalcore.ingest.files.read_raw` produced (a DataFrame, or a list of JSON
    records); ``path`` (when the file came from disk) lets an Arena-Hard-Auto file without a
    ``judge`` field take the judge from its folder (``model_judgment/<judge>/<model>.jsonl``).
    A recognised file with broken content raises :class:`VerdictFormatError` naming the records.
    The formats in :data:`STREAMED` run the same code the streamed load runs, on one batch.
    """
    kind = detect_native(raw)
    if kind is None:
        wrong = wrong_tool_file(raw)
        if wrong is not None:
            raise VerdictFormatError(file, wrong[0], hint=wrong[1])
        return None
    from evalcore.importers.judgements_900k import from_judgements_900k

    converter = conversion(kind, file=file, path=path) if kind in STREAMED else None
    with reading(kind, file=file):
        if converter is not None:
            frame, label = converter.whole(raw)
        else:
            frame, label = from_judgements_900k(_frame(raw), file=file)
    if frame.empty:
        raise no_calls(kind, file=file, set_aside=converter)
    return frame, label


#: Other files the same tools write, often uploaded by mistake: (fields, what it is, what to do).
_WRONG_FILES: tuple[tuple[frozenset[str], str, str], ...] = (
    (
        frozenset({"question_id", "model", "score", "judge", "turn"}),
        "this is an MT-Bench single-answer grading file (a 1–10 score per answer), not a pairwise judgment",
        "Upload the pairwise file (model_judgment/gpt-4_pair.jsonl, from gen_judgment.py --mode "
        "pairwise-all or pairwise-baseline); per-answer scores belong in a pointwise table "
        "(instruction_id, candidate, judge, format, score)",
    ),
    (
        frozenset({"model", "messages"}),
        "this is an Arena-Hard-Auto model-answer file, not a judgment file",
        "Upload the file gen_judgment.py writes, data/BENCH/model_judgment/JUDGE/MODEL.jsonl",
    ),
    (
        frozenset({"model_id", "choices"}),
        "this is a model-answer file (Arena-Hard-Auto or MT-Bench), not a judgment file",
        "Upload the judgment file that gen_judgment.py writes under model_judgment/",
    ),
    (
        frozenset({"instruction", "output", "generator"}),
        "this is an AlpacaEval model-outputs file, not its annotations",
        "Upload results/MODEL/ANNOTATOR/annotations.json (it has 'preference')",
    ),
    (
        frozenset({"win_rate", "n_wins"}),
        "this is a leaderboard (one row per model), not per-instruction judgments",
        "Upload the judge's annotations or judgments; the dashboard computes the leaderboard",
    ),
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
