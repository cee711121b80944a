"""When each verdict was judged: the optional ``judged_at`` column read as times.

``judged_at`` is written in any notation; a time analysis needs it as a moment. Unix times (seconds
or milliseconds, as MT-Bench's ``tstamp``) and dates (with or without a time; without a zone taken
as UTC) are read as Unix seconds; any other text is refused in words, as is a table without the
column. Used by :mod:`evalcore.ranking.over_time` and :mod:`evalcore.ranking.judge_drift`.
"""

from __future__ import annotations

import functools
import threading
import weakref
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from evalcore.errors import DesignError, UsageError

if TYPE_CHECKING:
    from evalcore.counts import CountSource

#: Unix times (seconds) read as dates: 1973 to 2286 (milliseconds: the same times 1,000).
_UNIX = (1e8, 1e10)
_DAY = 86_400.0


class NoTimesError(DesignError):
    """The table has no usable ``judged_at``: nothing in time can be said."""


# -- reading the times ------------------------------------------------------------------------------
def parse_times(text: pd.Series) -> np.ndarray:
    """``judged_at`` texts as Unix seconds (UTC): Unix times in seconds or milliseconds, else dates
    (with or without a time; a date without a zone is taken as UTC).

    Raises
    ------
    NoTimesError
        When some text is neither (its first such value is quoted).
    """
    text = text.astype("string")
    # A first value that is not a number settles it (dates): the whole column is then not
    # converted to numbers, element by element on Arrow strings (a second on the demo's 450,000).
    numeric = pd.to_numeric(text.iloc[:1], errors="coerce")
    if len(text) and numeric.notna().all():
        numeric = pd.to_numeric(text, errors="coerce")
    if len(text) and numeric.notna().all():
        v = numeric.to_numpy(dtype=float)
        v = np.where(np.abs(v) >= _UNIX[0] * 1000, v / 1000.0, v)
        bad = (v < _UNIX[0]) | (v >= _UNIX[1])
        if bad.any():
            raise NoTimesError(
                f"judged_at holds numbers that are not Unix times (e.g. {text[bad].iloc[0]!r}); "
                "give dates or Unix times to place the verdicts in time"
            )
        return v
    # ISO 8601 (the common case) is parsed vectorised, about 7 times faster than element by element
    stamps = pd.to_datetime(text, errors="coerce", utc=True, format="ISO8601")
    if stamps.isna().any():
        stamps = pd.to_datetime(text, errors="coerce", utc=True, format="mixed")
    if stamps.isna().any():
        raise NoTimesError(
            f"judged_at holds text that is not a date (e.g. {text[stamps.isna()].iloc[0]!r}); "
            "give dates or Unix times to place the verdicts in time"
        )
    return (stamps - pd.Timestamp(0, tz="UTC")).dt.total_seconds().to_numpy(dtype=float)


#: Times already parsed, by the ``judged_at`` frame they were read from (id → (a weak reference to
#: that frame, its times)). A store reads that frame once per loaded table and shares it with the
#: copies of the table (every session's demo): the Leaderboard's days and "as of" board, the
#: windows and the drift test each parsed the demo's 450,000 dates again (0.2 s each). An entry goes
#: with its frame.
_PARSED: dict[int, tuple[weakref.ref, pd.DataFrame]] = {}
_PARSED_LOCK = threading.Lock()


def judging_times(source: CountSource) -> pd.DataFrame:
    """Each timed call's ``row`` and time ``t`` (Unix seconds), read from the store (parsed once
    per ``judged_at`` frame the store reads; the frame returned is shared, never to be changed).

    Raises
    ------
    NoTimesError
        When the table has no ``judged_at`` column or no call has a time, or the times do not read
        as dates.
    """
    stamped = source.judged_at()
    if stamped is None or len(stamped) == 0:
        raise NoTimesError(
            "the table has no judging times (the optional judged_at column is absent or empty), "
            "so nothing can be said about the ranking in time"
        )
    key = id(stamped)
    with _PARSED_LOCK:
        hit = _PARSED.get(key)
    if hit is not None and hit[0]() is stamped:
        return hit[1]
    times = pd.DataFrame(
        {"row": stamped["row"].to_numpy(dtype=np.int64), "t": parse_times(stamped["judged_at"])}
    )
    try:
        ref = weakref.ref(stamped, functools.partial(_forget, key))
    except TypeError:  # a source whose frame cannot be referred to weakly: parsed each time
        return times
    with _PARSED_LOCK:
        _PARSED[key] = (ref, times)
    return times


def _forget(key: int, _gone: object = None) -> None:
    """Drop the entry of a ``judged_at`` frame that is gone (the weak reference's callback)."""
    with _PARSED_LOCK:
        entry = _PARSED.get(key)
        if entry is not None and entry[0]() is None:
            del _PARSED[key]


def day_text(t: float) -> str:
    """A Unix time as its UTC date, ``2024-03-01``."""
    return datetime.fromtimestamp(t, tz=UTC).strftime("%Y-%m-%d")


def end_of(as_of: str | date | datetime | float) -> float:
    """The last second counted "as of" ``as_of``: the end of that day (UTC) for a date, the time
    itself for a date and time or a Unix time."""
    if isinstance(as_of, int | float) and not isinstance(as_of, bool):
        return float(parse_times(pd.Series([str(as_of)]))[0])
    if isinstance(as_of, datetime):
        stamp = pd.Timestamp(as_of)
        stamp = stamp.tz_localize("UTC") if stamp.tzinfo is None else stamp.tz_convert("UTC")
        return (stamp - pd.Timestamp(0, tz="UTC")).total_seconds()
    text = as_of.isoformat() if isinstance(as_of, date) else str(as_of).strip()
    try:
        t = float(parse_times(pd.Series([text]))[0])
    except NoTimesError:
        raise UsageError(f"as of {text!r}: give a date such as 2024-05-01") from None
    only_day = len(text) <= 10 and not text.replace(".", "").isdigit()
    return t + _DAY - 1 if only_day else t


def has_times(source: CountSource) -> bool:
    """Whether some call of the table carries a judging time (as written; read by
    :func:`judging_times`)."""
    stamped = source.judged_at()
    return stamped is not None and len(stamped) > 0


def judging_days(
    source: CountSource, *, judge: str | None = None, category: str | None = None
) -> tuple[str, ...]:
    """The days (UTC, ``2024-03-01``) on which the selection's calls were judged, latest first:
    the dates an "as of" control offers."""
    times = judging_times(source)
    t = source.query("timed_values", judge=judge, category=category, times=times)
    days = np.unique(np.floor(t / _DAY))
    return tuple(day_text(d * _DAY) for d in days[::-1])
