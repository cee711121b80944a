"""Helpers every importer shares: cells as text, judge names, the output frame."""

from __future__ import annotations

import math
from collections import Counter
from typing import Any, Callable, Iterable, cast

import numpy as np
import pandas as pd

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
    shown = ", ".join(f"{v!r} ×{n}" if n > 1 else repr(v) for v, n in counts.most_common(_MAX_NOTED))
    more = len(counts) - _MAX_NOTED
    return shown + (f" and {more} more" if more > 0 else "")


class Conversion:
    """One tool's native file converted batch by batch, so a file of any size is read once and
    never held whole (:mod:`evalcore.ingest.native` streams the records in batches).

    :meth:`rows` (or :meth:`columns`) converts one batch of records (``start``: the 1-based number of its first
    record, so messages name the same records as a whole-file read); what needs the whole file —
    the problems collected from every record, the counts the format label reports — is gathered
    across batches and settled by :meth:`label`. :meth:`whole` converts a file already in memory
    as one batch: the streamed result equals it row for row by construction.
    """

    #: The format's key in :data:`evalcore.importers.detect.NAMES`.
    kind: str = ""
    #: True when the importer works on a frame of the batch: a JSON record may lack a field other
    #: records have, so the streamed load sets :attr:`fields` to the whole file's fields.
    frames: bool = False
    #: The file's field names in order of first appearance (a streamed JSON file), else None.
    fields: tuple[str, ...] | None = None

    def __init__(self, *, file: str) -> None:
        self.file = file

    def columns(self, raw: object, *, start: int = 1) -> dict[str, list] | pd.DataFrame:
        """The rows of one batch of records (a list of dicts or a frame) as one list per column
        (the contract's columns, text included), or as a frame where the importer works on
        columns; a streamed load hands the lists to DuckDB without building a frame."""
        raise NotImplementedError

    def rows(self, raw: object, *, start: int = 1) -> pd.DataFrame:
        """Verdict-table rows of one batch of records (a list of dicts or a frame)."""
        got = self.columns(raw, start=start)
        return got if isinstance(got, pd.DataFrame) else _output(got)

    def label(self) -> str:
        """The format label once every batch is in; raises the problems found in any record."""
        raise NotImplementedError

    def whole(self, raw: object) -> tuple[pd.DataFrame, str]:
        """A whole file as one batch: (rows, label)."""
        frame = self.rows(raw)
        return frame, self.label()


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
