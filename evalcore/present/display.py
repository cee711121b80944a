"""Display pieces shared by the presentation modules: a metric tile and a table in words.

A presentation module (:mod:`evalcore.present.judge`, :mod:`evalcore.present.ties`)
turns a result into what a page shows; these are the two shapes it returns besides sentences.
Nothing here computes a statistic.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from evalcore.text import MISSING, fmt_pct  # noqa: F401 - fmt_pct is used by the doctest

__all__ = ["CELL_CHARS", "Metric", "display_frame", "shorten_cells"]


@dataclass(frozen=True)
class Metric:
    """One figure as a tile: ``label`` (the app's words), ``value`` (a number written as text, or
    ``—``), ``help`` (a sentence). None of the three ever holds user text (names, labels), so a
    front end can show them as they are."""

    label: str
    value: str
    help: str = ""


def display_frame(
    frame: pd.DataFrame, columns: Mapping[str, tuple[str, Callable[[object], str]]]
) -> pd.DataFrame:
    """``frame``'s listed columns, renamed and written by their formatters (``—`` when missing).

    ``columns`` maps a column of ``frame`` to ``(heading, formatter)``; columns absent from
    ``frame`` are skipped, and ``str`` keeps text columns as they are.

    Examples
    --------
    >>> t = pd.DataFrame({"no_verdict_rate": [0.25, None], "model": ["a", "b"]})
    >>> display_frame(t, {"model": ("model", str), "no_verdict_rate": ("no verdict", fmt_pct)})
      model no verdict
    0     a        25%
    1     b          —
    """

    def write(fn: Callable[[object], str], value: object) -> str:
        if value is None or (isinstance(value, float | np.floating) and not np.isfinite(value)):
            return MISSING
        return fn(value)

    return pd.DataFrame(
        {
            heading: [write(fn, v) for v in frame[column]]
            for column, (heading, fn) in columns.items()
            if column in frame.columns
        },
        index=range(len(frame)),
    )


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
