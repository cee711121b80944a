"""Helpers every importer shares: cells as text, judge names, the output frame."""

from __future__ import annotations

import math
from collections import Counter
from typing import Any, Callable, Iterable, cast

import numpy as np
import pandas as pd

from evalcore.importers.labels import NAMES as NAMES  # re-exported
from evalcore.text import fmt_count, fmt_list

Records = list[dict[str, Any]]

#: The columns every native importer fills, in the contract's order (text included).
NATIVE_COLUMNS: tuple[str, ...] = (
    "instruction_id",
    "model_a",
    "model_b",
    "verdict",
    "judge",
    "category",
    "prompt",
    "response_a",
    "response_b",
    "judge_output",
)


def empty_columns(*extra: str) -> dict[str, list]:
    """One empty list per column an importer fills: :data:`NATIVE_COLUMNS` and ``extra``."""
    return {k: [] for k in (*NATIVE_COLUMNS, *extra)}


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
    return fmt_list((f"{v!r} ×{n}" if n > 1 else repr(v) for v, n in counts.most_common()), _MAX_NOTED)


#: Rows set aside that a format label names one by one (the rest are counted).
SET_ASIDE_NAMED = 3


def set_aside_note(count: int, examples: Iterable[tuple[int, str, str, str]]) -> str:
    """The label's note for rows set aside because a field held a value of the wrong type.

    ``examples`` are (1-based row, field, value as text, what the value is in words) of the
    first rows set aside; each is named with a bounded excerpt of its value.

    >>> set_aside_note(2, [(4, "final_verdict", "3", "a number"), (9, "uid", "[1, 2]", "a list")])
    "2 rows set aside for a value of the wrong type: row 4, final_verdict '3' (a number); row 9, uid '[1, 2]' (a list)"
    """
    from evalcore.schema import quoted_excerpt

    shown = [
        f"row {row:,}, {field} {quoted_excerpt(value, limit=40)} ({kind})"
        for row, field, value, kind in list(examples)[:SET_ASIDE_NAMED]
    ]
    more = count - len(shown)
    return (
        f"{fmt_count(count, 'row')} set aside for a value of the wrong type: "
        + "; ".join(shown)
        + (f"; and {more:,} more" if more > 0 else "")
    )


def value_kind(value: Any) -> str:
    """What a record's value is, in words (for the rows set aside)."""
    if _missing(value):
        return "missing"
    if isinstance(value, (bool, np.bool_)):
        return "true or false"
    if isinstance(value, (int, float, np.integer, np.floating)):
        return "a number"
    if isinstance(value, (list, tuple, np.ndarray)):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return "text"


def wrong_type(value: Any, rule: str) -> bool:
    """Whether a record's ``value`` has the wrong type for a field of ``rule``.

    ``"name"``: text (a model, an instruction); ``"id"``: text or a number (question ids are
    numbers in MT-Bench); ``"judge"``: text, or FastChat's ``[model, prompt]`` list; ``"number"``:
    a number, or text that reads as one (a CSV cell); ``"games"``: a list of objects (or nulls,
    failed calls). True or false is the wrong type everywhere. A trailing ``?`` marks
    a field that may be missing (null); without it a missing value is the wrong type too.
    """
    optional = rule.endswith("?")
    kind = rule.rstrip("?")
    if _missing(value) or (kind == "number" and isinstance(value, str) and not value.strip()):
        return not optional
    if isinstance(value, (bool, np.bool_)):
        return True
    if kind == "name":
        return not isinstance(value, str)
    if kind == "id":
        return not isinstance(value, (str, int, float, np.integer, np.floating))
    if kind == "judge":
        if isinstance(value, (list, tuple, np.ndarray)):
            return len(value) > 0 and not isinstance(value[0], str)
        return not isinstance(value, str)
    if kind == "number":
        if isinstance(value, str):
            try:
                float(value)
            except ValueError:
                return True
            return False
        return not isinstance(value, (int, float, np.integer, np.floating))
    if kind == "games":  # a list of games, each an object (or null: a failed call)
        if not isinstance(value, (list, tuple, np.ndarray)):
            return True
        return any(g is not None and not isinstance(g, dict) for g in value)
    raise ValueError(f"unknown field rule {rule!r}")


def _shown(value: Any) -> str:
    """A value as a message shows it: JSON for lists and objects, else its text."""
    import json

    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (list, tuple, dict)):
        try:
            return json.dumps(value, ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            return str(value)
    return "null" if _missing(value) else str(value)


def _joined(parts: list[dict[str, list] | pd.DataFrame]) -> dict[str, list] | pd.DataFrame:
    """The converted runs of one batch as one result (lists concatenated column by column)."""
    if not parts:
        return {}
    if isinstance(parts[0], pd.DataFrame):
        return pd.concat(parts, ignore_index=True)
    keys = list(dict.fromkeys(k for p in parts for k in p))
    out: dict[str, list] = {k: [] for k in keys}
    for part in parts:
        assert isinstance(part, dict)
        size = len(next(iter(part.values()), []))
        for k in keys:
            out[k].extend(part.get(k, [None] * size))
    return out


class Conversion:
    """One tool's native file converted batch by batch, so a file of any size is read once and
    never held whole (:mod:`evalcore.ingest.native` streams the records in batches).

    :meth:`rows` (or :meth:`columns`) converts one batch of records (``start``: the 1-based number of its first
    record, so messages name the same records as a whole-file read); what needs the whole file —
    the problems collected from every record, the counts the format label reports — is gathered
    across batches and settled by :meth:`label`. :meth:`whole` converts a file already in memory
    as one batch: the streamed result equals it row for row by construction.
    """

    #: The format's key in :data:`NAMES`.
    kind: str = ""
    #: True when the importer works on a frame of the batch: a JSON record may lack a field other
    #: records have, so the streamed load sets :attr:`fields` to the whole file's fields.
    frames: bool = False
    #: The file's field names in order of first appearance (a streamed JSON file), else None.
    fields: tuple[str, ...] | None = None

    #: The type each field must have, by lower-case field name (see :func:`wrong_type`); a
    #: record whose field has another type is set aside (:meth:`convert`), not converted.
    screen: dict[str, str] = {}

    def __init__(self, *, file: str) -> None:
        self.file = file
        #: Records set aside for a value of the wrong type: how many, and the first few as
        #: (record number, field, value as text, what the value is).
        self.set_aside = 0
        self.set_aside_examples: list[tuple[int, str, str, str]] = []

    def convert(self, raw: object, *, start: int = 1) -> dict[str, list] | pd.DataFrame:
        """:meth:`columns` of the records whose fields have the types :attr:`screen` asks for.

        A record with a value of the wrong type (a list where a model name belongs, text where
        a number belongs) is that record's problem: it is set aside, counted and named in the
        label (:meth:`noted`), and the other records load. The good records are converted in
        runs, each with its own first record number, so messages and battle ids name the same
        records as a file without the bad ones set aside would."""
        bad = self._screened(raw)
        if not bad:
            return self.columns(raw, start=start)
        size = len(raw) if isinstance(raw, pd.DataFrame) else len(cast(list, raw))
        parts: list[dict[str, list] | pd.DataFrame] = []
        edges = [-1, *sorted(bad), size]
        for low, high in zip(edges, edges[1:], strict=False):
            if high - low > 1:
                piece = (
                    raw.iloc[low + 1 : high]
                    if isinstance(raw, pd.DataFrame)
                    else cast(list, raw)[low + 1 : high]
                )
                parts.append(self.columns(piece, start=start + low + 1))
        for index in sorted(bad):
            self.set_aside += 1
            if len(self.set_aside_examples) < SET_ASIDE_NAMED:
                field, value = bad[index]
                self.set_aside_examples.append((start + index, field, _shown(value), value_kind(value)))
        return _joined(parts)

    def _screened(self, raw: object) -> dict[int, tuple[str, Any]]:
        """Position → (field, value) of the first field of each record whose type is wrong."""
        if not self.screen:
            return {}
        bad: dict[int, tuple[str, Any]] = {}
        if isinstance(raw, pd.DataFrame):
            for column in raw.columns:
                rule = self.screen.get(str(column).strip().lower())
                if rule is None:
                    continue
                for position, value in enumerate(raw[column].to_numpy()):
                    if position not in bad and wrong_type(value, rule):
                        bad[position] = (str(column), value)
            return bad
        for position, record in enumerate(cast(Iterable[dict[str, Any]], raw)):
            for key, value in record.items():
                rule = self.screen.get(str(key).strip().lower())
                if rule is not None and wrong_type(value, rule):
                    bad[position] = (str(key), value)
                    break
        return bad

    def noted(self, label: str) -> str:
        """``label`` with the note on the records set aside, if any."""
        if not self.set_aside:
            return label
        note = set_aside_note(self.set_aside, self.set_aside_examples)
        return f"{label[:-1]}; {note})" if label.endswith(")") else f"{label} ({note})"

    def columns(self, raw: object, *, start: int = 1) -> dict[str, list] | pd.DataFrame:
        """The rows of one batch of records (a list of dicts or a frame) as one list per column
        (the contract's columns, text included), or as a frame where the importer works on
        columns; a streamed load hands the lists to DuckDB without building a frame."""
        raise NotImplementedError

    def rows(self, raw: object, *, start: int = 1) -> pd.DataFrame:
        """Verdict-table rows of one batch of records (a list of dicts or a frame)."""
        got = self.convert(raw, start=start)
        return got if isinstance(got, pd.DataFrame) else _output(got)

    def label(self) -> str:
        """The format label once every batch is in; raises the problems found in any record."""
        raise NotImplementedError

    def whole(self, raw: object) -> tuple[pd.DataFrame, str]:
        """A whole file as one batch: (rows, label)."""
        frame = self.rows(raw)
        return frame, self.noted(self.label())


def _records(raw: object) -> Records:
    if isinstance(raw, pd.DataFrame):
        return raw.to_dict(orient="records")
    return list(cast(Iterable[dict[str, Any]], raw))  # not a frame: an iterable of records


def _frame(raw: object) -> pd.DataFrame:
    if isinstance(raw, pd.DataFrame):
        return raw.reset_index(drop=True)
    return pd.DataFrame.from_records(cast(Iterable[dict[str, Any]], raw))


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
