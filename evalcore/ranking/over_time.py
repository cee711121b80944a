"""The ranking in time: the leaderboard as of a date, and ratings per time window.

A verdict table may say when each call was made (the optional ``judged_at`` column: a date, a
date and time, or a Unix time in seconds or milliseconds). Three questions use it (times are read by :mod:`evalcore.ranking.judging_times`):

* **The leaderboard as of a date.** Only the verdicts judged up to the end of that day (UTC)
  are counted, and the same Bradley–Terry leaderboard is fitted to them (Bradley & Terry, "Rank
  analysis of incomplete block designs", Biometrika 1952): what the board said then.
* **Ratings per time window.** The timed verdicts are cut into a few windows, of equal counts
  (the default) or of equal calendar length, and each window gets its own leaderboard with its
  95% intervals over instructions. Ratings are centred in each window, so they compare across
  windows as gaps between models. The line in words names the model whose rank moved most
  between the first and the last window, and its rating change with a 95% interval from the two
  windows' intervals (the windows hold different verdicts, so their errors are taken as
  independent). That model is the largest of all the models' moves, so the line calls its change
  confirmed only when the interval widened for every model compared (Bonferroni; Dunn, "Multiple
  comparisons among means", 1961) excludes zero: with many models, one 95% interval in twenty
  misses by chance alone.
* **Judge drift on repeated items** is tested in :mod:`evalcore.ranking.judge_drift`.

Times are read from the store (:meth:`~evalcore.counts.CountSource.judged_at`); the windows'
counts are aggregated in DuckDB (the store's ``binned_cells`` query), so they stay sparse.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, date, datetime
from statistics import NormalDist
from typing import TYPE_CHECKING, Literal

import numpy as np
import pandas as pd

from evalcore.counts import N_LEVELS, VerdictCounts
from evalcore.errors import DesignError, UsageError, check_int
from evalcore.ranking.judging_times import _DAY, day_text, end_of, judging_times
from evalcore.ranking.leaderboard import Leaderboard, leaderboard
from evalcore.schema import LEVELS
from evalcore.stats.intervals import Z95
from evalcore.text import fmt_count

if TYPE_CHECKING:
    from evalcore.counts import CountSource

#: Windows by default, and at most.
WINDOWS = 3
MAX_WINDOWS = 12
#: Verdicts a window needs by default before its ratings are shown.
MIN_WINDOW_VERDICTS = 100
#: Bootstrap rounds of each window's leaderboard by default.
WINDOW_ROUNDS = 200
Split = Literal["count", "calendar"]


# -- counts per bin -----------------------------------------------------------------------------------
def _counts_of(cells: pd.DataFrame, judge: str | None) -> VerdictCounts:
    """Sparse counts of one bin's cells (``instruction_id``, ``model_a``, ``model_b``, ``verdict``,
    ``n``), on the models and instructions that occur in it."""
    # both slots' names on one sorted axis (code-point order, as sorted() gives), coded at once
    sides, names = pd.factorize(pd.concat([cells["model_a"], cells["model_b"]], ignore_index=True), sort=True)
    models = tuple(str(x) for x in names)
    inst_codes, instructions = pd.factorize(cells["instruction_id"], sort=True)
    n = np.zeros((len(cells), N_LEVELS), dtype=np.int64)
    n[np.arange(len(cells)), cells["verdict"].to_numpy(dtype=np.int64) - LEVELS[0]] = cells["n"].to_numpy()
    return VerdictCounts.from_cells(
        models=models,
        instructions=tuple(str(x) for x in instructions),
        judge=judge,
        inst=inst_codes,
        a=sides[: len(cells)],
        b=sides[len(cells) :],
        n=n,
    )


def binned_counts(
    source: CountSource, times: pd.DataFrame, bins: np.ndarray, *, judge: str | None, category: str | None
) -> dict[int, VerdictCounts]:
    """The selection's counts per bin (``bins[k]`` is row ``times.row[k]``'s bin; a negative bin
    leaves the row out), grouped in DuckDB."""
    keep = bins >= 0
    frame = pd.DataFrame({"row": times["row"].to_numpy()[keep], "bin": bins[keep].astype(np.int64)})
    cells = source.query("binned_cells", judge=judge, category=category, bins=frame)
    return {int(k): _counts_of(g, judge) for k, g in cells.groupby("bin", sort=True)}


# -- the leaderboard as of a date ---------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class AsOfLeaderboard:
    """The leaderboard fitted to the verdicts judged up to ``as_of`` (Bradley & Terry 1952)."""

    as_of: str
    verdicts_used: int
    verdicts_later: int
    untimed: int
    board: Leaderboard

    def sentence(self) -> str:
        leader = str(self.board.columns["model"][0])
        later = (
            f"; {fmt_count(self.verdicts_later, 'verdict')} judged later {'is' if self.verdicts_later == 1 else 'are'} left out"
            if self.verdicts_later
            else ""
        )
        untimed = (
            f"; {fmt_count(self.untimed, 'verdict')} without a judging time {'is' if self.untimed == 1 else 'are'} left out"
            if self.untimed
            else ""
        )
        return f"As of {self.as_of}, {leader} leads on {fmt_count(self.verdicts_used, 'verdict')}{later}{untimed}."

    def as_dict(self) -> dict:
        return {
            "as_of": self.as_of,
            "verdicts_used": self.verdicts_used,
            "verdicts_later": self.verdicts_later,
            "untimed": self.untimed,
            "sentence": self.sentence(),
            **self.board.as_dict(),
        }


def as_of_leaderboard(
    source: CountSource,
    *,
    as_of: str | date | datetime | float,
    judge: str | None = None,
    category: str | None = None,
    rounds: int = 1000,
    seed: int = 0,
    interval: str = "auto",
) -> AsOfLeaderboard:
    """The Bradley–Terry leaderboard of the verdicts judged up to ``as_of``.

    Parameters
    ----------
    source : CountSource
        A store of verdicts whose table has ``judged_at``.
    as_of : str, date, datetime or float
        A date (its whole day counts, UTC), a date and time, or a Unix time.
    judge, category : str, optional
        The selection, as for :meth:`~evalcore.counts.CountSource.counts`.
    rounds, seed, interval
        As for :func:`evalcore.ranking.leaderboard.leaderboard`.

    Returns
    -------
    AsOfLeaderboard
        The leaderboard and how many verdicts it counts and leaves out.

    Raises
    ------
    NoTimesError
        Without judging times.
    DesignError
        When no two models met by then.

    References
    ----------
    Bradley & Terry, "Rank analysis of incomplete block designs", Biometrika 39 (1952).
    """
    times = judging_times(source)
    cut = end_of(as_of)
    t_sel = source.query("timed_values", judge=judge, category=category, times=times)
    total = source.counts(judge=judge, category=category).calls
    bins = np.where(times["t"].to_numpy() <= cut, 0, -1)
    counts = binned_counts(source, times, bins, judge=judge, category=category).get(0)
    label = day_text(cut) if cut % _DAY == _DAY - 1 else datetime.fromtimestamp(cut, tz=UTC).isoformat()
    if counts is None or counts.n_models < 2:
        first = day_text(t_sel[0]) if t_sel.size else "never"
        raise DesignError(
            f"no two models had met in verdicts judged by {label} (the first timed verdict is from {first})"
        )
    board = leaderboard(counts, rounds=rounds, seed=seed, interval=interval)  # type: ignore[arg-type]
    used = int(counts.calls)
    return AsOfLeaderboard(
        as_of=label,
        verdicts_used=used,
        verdicts_later=int(t_sel.size - used),
        untimed=int(total - t_sel.size),
        board=board,
    )


# -- ratings per window ------------------------------------------------------------------------------
@dataclass(frozen=True)
class WindowRating:
    """One model's rating and rank in one window (Elo points, 95% interval)."""

    model: str
    rank: int
    rating: float
    low: float
    high: float

    def as_dict(self) -> dict:
        return {
            "model": self.model,
            "window_rank": self.rank,
            "window_rating": _num(self.rating),
            "window_rating_low": _num(self.low),
            "window_rating_high": _num(self.high),
        }


@dataclass(frozen=True)
class Window:
    """One time window: its span, verdicts and ratings."""

    label: str
    start: str
    end: str
    verdicts: int
    ratings: tuple[WindowRating, ...]
    interval: str

    def rating_of(self, model: str) -> WindowRating | None:
        return next((r for r in self.ratings if r.model == model), None)

    def as_dict(self) -> dict:
        return {
            "label": self.label,
            "start": self.start,
            "end": self.end,
            "verdicts": self.verdicts,
            "interval": self.interval,
            "models": [r.as_dict() for r in self.ratings],
        }


@dataclass(frozen=True)
class Move:
    """A model's rank and rating between the first and the last window."""

    model: str
    rank_first: int
    rank_last: int
    change: float
    low: float
    high: float

    @property
    def clear(self) -> bool:
        """The rating change's 95% interval excludes zero."""
        return bool(self.low > 0 or self.high < 0)

    def as_dict(self) -> dict:
        return {
            "model": self.model,
            "rank_first": self.rank_first,
            "rank_last": self.rank_last,
            "rating_change": _num(self.change),
            "rating_change_low": _num(self.low),
            "rating_change_high": _num(self.high),
        }


@dataclass(frozen=True)
class TimeWindows:
    """Ratings per time window and the moves between the first and the last (Bradley & Terry 1952)."""

    split: str
    windows: tuple[Window, ...]
    moves: tuple[Move, ...]
    untimed: int

    def confirmed(self, move: Move) -> bool:
        """``move``'s rating change excludes zero at the 95% level allowing for every model
        compared (Bonferroni: each interval widened to 1 − 0.05 / models; Dunn 1961)."""
        if not (math.isfinite(move.low) and math.isfinite(move.high)):
            return False
        se = (move.high - move.low) / (2 * Z95)
        z = NormalDist().inv_cdf(1 - 0.025 / max(len(self.moves), 1))
        return bool(abs(move.change) > z * se)

    @property
    def moved(self) -> bool:
        """Some model's rank differs between the first and the last window."""
        return any(m.rank_first != m.rank_last for m in self.moves)

    @property
    def moved_beyond_chance(self) -> bool:
        """Some model changed rank with a rating change :meth:`confirmed` (allowing for every
        model compared): with many models a few rank swaps between windows are expected by
        chance alone, so the headlines speak only of a move beyond it."""
        return any(m.rank_first != m.rank_last and self.confirmed(m) for m in self.moves)

    def sentence(self) -> str:
        first, last = self.windows[0].label, self.windows[-1].label
        if not self.moved:
            return f"The models keep the same order between {first} and {last}."
        top = self.moves[0]
        way = "rose" if top.change > 0 else "fell"
        compared = len(self.moves)
        if math.isfinite(top.low) and math.isfinite(top.high):
            # the model that moved most is picked among all of them: its change is confirmed only
            # when its interval widened for every model compared (Bonferroni) excludes zero
            clear = (
                "a change its 95% interval confirms"
                + (f" even allowing for the {compared} models compared" if compared > 1 else "")
                if self.confirmed(top)
                else "a change within what chance allows"
                + (
                    f" once the {compared} models compared are allowed for (its interval widened "
                    "for them includes zero)"
                    if compared > 1 and top.clear
                    else " (its 95% interval includes zero)"
                )
            )
            clear = f" (95% interval {top.low:+,.0f} to {top.high:+,.0f}), {clear}"
        else:  # fitted without intervals (no rounds), or a rating without a two-sided interval
            clear = ", without an interval to say whether chance could explain it"
        others = sum(m.rank_first != m.rank_last for m in self.moves) - 1
        more = f" {others:,} other model{'s' if others != 1 else ''} changed rank too." if others else ""
        return (
            f"{top.model} moved from #{top.rank_first} to #{top.rank_last} between {first} and {last}; "
            f"its rating {way} {abs(top.change):,.0f} Elo points{clear}.{more}"
        )

    def as_dict(self) -> dict:
        return {
            "split": self.split,
            "untimed": self.untimed,
            "moved": self.moved,
            "sentence": self.sentence(),
            "windows": [w.as_dict() for w in self.windows],
            "moves": [m.as_dict() for m in self.moves],
        }


def _num(v: float) -> float | None:
    return float(v) if math.isfinite(v) else None


def window_label(start: float, end: float) -> str:
    """A window's span in words: ``March 2024`` for (about) a whole month, ``5 to 20 March 2024``
    within one, ``31 March to 30 April 2024`` within a year, else ``2023-12-01 to 2024-01-31``.

    Examples
    --------
    >>> window_label(1709251200, 1711843200)  # 2024-03-01 to 2024-03-31
    'March 2024'
    >>> window_label(1709856000, 1714435200)  # 2024-03-08 to 2024-04-30
    '8 March to 30 April 2024'
    """
    a = datetime.fromtimestamp(start, tz=UTC)
    b = datetime.fromtimestamp(end, tz=UTC)
    if (a.year, a.month) == (b.year, b.month):
        whole = a.day <= 2 and (b + pd.Timedelta(days=2)).month != b.month
        return a.strftime("%B %Y") if whole else f"{a.day} to {b.day} {b:%B %Y}"
    if a.year == b.year:
        return f"{a.day} {a:%B} to {b.day} {b:%B %Y}"
    return f"{a:%Y-%m-%d} to {b:%Y-%m-%d}"


def window_edges(t: np.ndarray, *, windows: int, split: Split) -> np.ndarray:
    """The ``windows − 1`` inner edges: a window holds times ≤ its upper edge and > the one before.
    ``count``: equal numbers of verdicts (quantiles of the sorted times); ``calendar``: equal spans."""
    if split == "calendar":
        return np.linspace(t[0], t[-1], windows + 1)[1:-1]
    cuts = (np.arange(1, windows) * t.size) // windows
    return t[cuts - 1]


def _window(counts: VerdictCounts, board: Leaderboard, start: float, end: float) -> Window:
    cols = board.columns
    ratings = tuple(
        WindowRating(str(m), int(r), float(x), float(lo), float(hi))
        for m, r, x, lo, hi in zip(
            cols["model"], cols["rank"], cols["rating"], cols["ci_low"], cols["ci_high"], strict=True
        )
    )
    return Window(
        label=window_label(start, end),
        start=day_text(start),
        end=day_text(end),
        verdicts=int(counts.calls),
        ratings=ratings,
        interval=board.interval_description,
    )


def _moves(first: Window, last: Window) -> tuple[Move, ...]:
    moves = []
    for r1 in first.ratings:
        r2 = last.rating_of(r1.model)
        if r2 is None:
            continue
        change = r2.rating - r1.rating
        se = math.hypot((r1.high - r1.low) / (2 * Z95), (r2.high - r2.low) / (2 * Z95))
        half = Z95 * se if math.isfinite(se) else math.nan
        moves.append(Move(r1.model, r1.rank, r2.rank, change, change - half, change + half))
    z = [
        abs(m.change) / max((m.high - m.low) / (2 * Z95), 1e-9) if math.isfinite(m.high) else 0.0
        for m in moves
    ]
    order = sorted(range(len(moves)), key=lambda k: (-abs(moves[k].rank_first - moves[k].rank_last), -z[k]))
    return tuple(moves[k] for k in order)


def rating_windows(
    source: CountSource,
    *,
    judge: str | None = None,
    category: str | None = None,
    windows: int = WINDOWS,
    split: Split = "count",
    min_verdicts: int = MIN_WINDOW_VERDICTS,
    rounds: int = WINDOW_ROUNDS,
    seed: int = 0,
) -> TimeWindows:
    """Bradley–Terry ratings with 95% intervals in each of a few time windows.

    Parameters
    ----------
    source : CountSource
        A store of verdicts whose table has ``judged_at``.
    judge, category : str, optional
        The selection.
    windows : int, default 3
        How many windows (2 to 12).
    split : {"count", "calendar"}, default "count"
        Windows of equal numbers of verdicts, or of equal calendar length.
    min_verdicts : int, default 100
        Verdicts each window needs; fewer in any window is refused in words.
    rounds, seed
        Bootstrap rounds and seed of each window's leaderboard
        (:func:`evalcore.ranking.leaderboard.leaderboard`, intervals chosen as there).

    Returns
    -------
    TimeWindows
        The windows' ratings and each model's move between the first and the last window, with a
        95% interval for its rating change (the two windows' errors taken as independent).

    Raises
    ------
    NoTimesError
        Without judging times.
    DesignError
        When a window has fewer than ``min_verdicts`` verdicts or fewer than two models.

    References
    ----------
    Bradley & Terry, "Rank analysis of incomplete block designs", Biometrika 39 (1952).
    """
    windows = check_int("windows", windows, low=2, high=MAX_WINDOWS)
    min_verdicts = check_int("min_verdicts", min_verdicts, low=1)
    if split not in ("count", "calendar"):
        raise UsageError(f"split must be 'count' or 'calendar', not {split!r}")
    times = judging_times(source)
    t_sel = source.query("timed_values", judge=judge, category=category, times=times)
    if t_sel.size < windows * min_verdicts:
        raise DesignError(
            f"{t_sel.size:,} timed verdicts are too few for {windows} windows of at least "
            f"{min_verdicts:,} verdicts each; use fewer windows or a lower minimum"
        )
    if t_sel[-1] <= t_sel[0]:
        raise DesignError("every timed verdict was judged at the same time: there is no time to split")
    edges = window_edges(t_sel, windows=windows, split=split)
    bins = np.searchsorted(edges, times["t"].to_numpy(), side="left")
    per = binned_counts(source, times, bins, judge=judge, category=category)
    bounds = np.r_[t_sel[0], edges, t_sel[-1]]
    of_sel = np.searchsorted(edges, t_sel, side="left")
    out = []
    for k in range(windows):
        counts = per.get(k)
        n = 0 if counts is None else int(counts.calls)
        if n < min_verdicts or counts is None or counts.n_models < 2:
            raise DesignError(
                f"window {k + 1} of {windows} ({window_label(bounds[k], bounds[k + 1])}) has {n:,} verdicts"
                f"{'' if counts is None or counts.n_models >= 2 else ' and fewer than two models'}; each "
                f"needs at least {min_verdicts:,}: use fewer windows"
                + (" or equal-count windows" if split == "calendar" else "")
            )
        board = leaderboard(counts, rounds=rounds, seed=seed)
        in_window = t_sel[of_sel == k]
        out.append(_window(counts, board, float(in_window[0]), float(in_window[-1])))
    total = source.counts(judge=judge, category=category).calls
    return TimeWindows(
        split=split, windows=tuple(out), moves=_moves(out[0], out[-1]), untimed=int(total - t_sel.size)
    )
