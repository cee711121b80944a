"""Display pieces every face shares: one table builder and one tile builder driven by the catalogue.

A presentation module, a report section or a command turns a result into what it shows: tiles,
tables and sentences. The tables and tiles are all built here, from the quantity catalogue
(:mod:`evalcore.quantities`): a column or tile named by a catalogue id gets the quantity's name as
its heading and the quantity's format for its numbers, so a page, the report and the command
line cannot write one quantity two ways. Columns that are not quantities (a model's name, a
count of rows, a p-value) name one of the shared :data:`FORMATS` instead of a local helper.
Nothing here computes a statistic.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from evalcore import quantities as q
from evalcore.text import MISSING, fmt_int, fmt_num, fmt_pct, fmt_signed


class Metric(NamedTuple):
    """One figure as a tile, on every face (pages, the Overview's findings, the report):
    ``label`` (the app's words), ``value`` (a number written as text, or ``—``), ``note`` (a
    sentence under it or its help). A tuple, so ``label, value, note = tile`` reads it."""

    label: str
    value: str
    note: str = ""


#: The shared ways to write a column that is not a catalogue quantity (by name, so no module keeps
#: its own percent or decimals helper).
FORMATS: dict[str, Callable[[Any], str]] = {
    "text": str,
    "int": fmt_int,
    "pct": fmt_pct,
    "pct1": lambda v: fmt_pct(v, 1),
    "signed_pct": lambda v: f"{100 * float(v):+.1f}%",  # a signed share: 0.052 → "+5.2%"
    "num1": lambda v: fmt_num(v, 1),
    "num2": fmt_num,
    "num3": lambda v: fmt_num(v, 3),
    "elo": lambda v: fmt_num(v, 0),
    "signed": fmt_signed,
    "signed3": lambda v: fmt_signed(v, 3),
    "p": lambda v: f"{v:.2g}",
    "yes_no": lambda v: "yes" if v else "no",
}

#: A column of :func:`catalogue_table`: a catalogue id; ``(column, id)``; or
#: ``(column, heading, format)`` with ``format`` a catalogue id, a :data:`FORMATS` name, a function
#: or None (the values as they are).
Column = str | tuple[str, str] | tuple[str, str, "str | Callable[[Any], str] | None"]


def _missing(value: object) -> bool:
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    return isinstance(value, float | np.floating) and not np.isfinite(value)


def write(value: object, fmt: str | Callable[[Any], str]) -> str:
    """``value`` written by ``fmt`` (a catalogue id, a :data:`FORMATS` name or a function);
    ``—`` when it is missing.

    Examples
    --------
    >>> write(0.0292, "tie_rate"), write(0.25, "pct1"), write(float("nan"), "int")
    ('2.9%', '25.0%', '—')
    """
    if _missing(value):
        return MISSING
    if callable(fmt):
        return fmt(value)
    if fmt in FORMATS:
        return FORMATS[fmt](value)
    return q.format(fmt, value)


def _spec(column: Column) -> tuple[str, str, str | Callable[[Any], str] | None]:
    if isinstance(column, str):
        return column, q.name(column), column
    if len(column) == 2:
        source, qid = column  # type: ignore[misc]
        return source, q.name(qid), qid
    return column  # type: ignore[return-value]


def catalogue_table(
    rows: pd.DataFrame | Iterable[Mapping[str, Any]], columns: Sequence[Column]
) -> pd.DataFrame:
    """``rows`` as a display table: the listed columns, with the catalogue's names as headings and
    each value written in its quantity's format (``—`` when missing).

    Parameters
    ----------
    rows : DataFrame or iterable of mappings
        The result's table (its own column keys).
    columns : sequence
        Each a catalogue id (the column of that name), ``(column, id)``, or
        ``(column, heading, format)`` for what is not a quantity: ``format`` is a catalogue id, a
        :data:`FORMATS` name, a function, or None to keep the values (a name, a rank) as they
        are. Columns absent from ``rows`` are left out.

    Examples
    --------
    >>> t = pd.DataFrame({"model": ["a", "b"], "tie_rate": [0.0292, None]})
    >>> catalogue_table(t, [("model", "Model", None), "tie_rate"])
      Model Tie rate, single order
    0     a                   2.9%
    1     b                      —
    """
    frame = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(list(rows))
    out: dict[str, list[Any]] = {}
    for column in columns:
        source, heading, fmt = _spec(column)
        if source not in frame.columns:
            continue
        values = frame[source]
        if fmt is None:
            out[heading] = [MISSING if _missing(v) else v for v in values]
        else:
            out[heading] = [write(v, fmt) for v in values]
    return pd.DataFrame(out, index=range(len(frame)))


def _value(result: object, path: str) -> Any:
    value = result
    for part in path.split("."):
        value = value.get(part) if isinstance(value, Mapping) else getattr(value, part)
    # an estimate with its interval shows its point value
    return getattr(value, "value", value) if not isinstance(value, int | float | str) else value


def tile(qid: str, value: Any, help: str | None = "") -> Metric:  # noqa: A002 - Streamlit's word
    """One quantity as a tile: its catalogue name, ``value`` in its format (text as it is), and
    ``help`` (None: the quantity's catalogue definition)."""
    words = q.quantity(qid).definition if help is None else help
    return Metric(q.name(qid), value if isinstance(value, str) else q.format(qid, value), words)


def tiles(result: object, ids: Sequence[str | tuple[str, str] | tuple[str, str, str]]) -> list[Metric]:
    """Tiles of ``result``'s quantities, in the catalogue's names and formats.

    Each item is a catalogue id (the attribute or key of that name), ``(attribute, id)`` or
    ``(attribute, id, help)``; an attribute may be a dotted path (``"position.flip_rate"``), and an
    estimate shows its point value.

    Examples
    --------
    >>> tiles({"tie_rate": 0.0292, "calls": 4683}, ["tie_rate", ("calls", "calls", "Every call.")])
    [Metric(label='Tie rate, single order', value='2.9%', note=''), Metric(label='Judge calls', value='4,683', note='Every call.')]
    """
    out = []
    for item in ids:
        attr, qid, why = (item, item, "") if isinstance(item, str) else (tuple(item) + ("",))[:3]
        out.append(tile(qid, _value(result, attr), why))
    return out


#: The longest text a table cell shows (a name, a file name); the CSV download keeps it whole.
CELL_CHARS = 200


def shorten_cells(frame: pd.DataFrame, *, limit: int = CELL_CHARS) -> pd.DataFrame:
    """``frame`` with every text cell longer than ``limit`` characters cut there, ending in ``…``
    (a copy; ``frame`` itself when nothing is that long).

    A table is drawn in the browser cell by cell; a 1 MB name in one cell froze the viewer's tab
    for half a minute or more. The cut is for the eye only: downloads take the table whole.

    Examples
    --------
    >>> shorten_cells(pd.DataFrame({"name": ["a" * 6, "b"], "n": [1, 2]}), limit=4)["name"].tolist()
    ['aaa…', 'b']
    """
    out = frame
    for column in frame.columns:
        values = frame[column]
        if values.dtype != object and not pd.api.types.is_string_dtype(values.dtype):
            continue
        if not any(isinstance(v, str) and len(v) > limit for v in values):
            continue
        cut = [v[: limit - 1] + "…" if isinstance(v, str) and len(v) > limit else v for v in values]
        if out is frame:
            out = frame.copy()
        out[column] = pd.Series(cut, index=frame.index, dtype=values.dtype)
    return out
