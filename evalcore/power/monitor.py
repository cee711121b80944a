"""Stop judging now, with a guarantee: an anytime-valid confidence sequence over the verdicts as
they arrive.

Each head-to-head verdict between two models scores 1 for a win, 1/2 for a tie and 0 for a loss
(the head-to-head win rate's scoring, both slots pooled). The scores lie in [0, 1], so their sum
minus ``t`` times the true win rate is sub-Gaussian with variance proxy ``t / 4`` (Hoeffding).
Mixing the exponential supermartingale over a normal prior on its parameter (Robbins' normal
mixture) and applying Ville's inequality gives a boundary that holds at every ``t`` at once
(Howard, Ramdas, McAuliffe and Sekhon, "Time-uniform, nonparametric, nonasymptotic confidence
sequences", Annals of Statistics 2021, eq. (14) two-sided form)::

    |S_t − t·μ| < sqrt((V_t + ρ) · log((V_t + ρ) / (ρ · α²))),   V_t = t / 4,

for all ``t`` with probability at least 1 − α. Dividing by ``t`` gives a confidence sequence
for the win rate ``μ``; intersecting it with all earlier ones keeps it valid and makes it
shrink monotonically. The Bradley–Terry rating difference of the two models (Elo points) is
``400·log10(μ / (1 − μ))``, a monotone map, so the sequence for ``μ`` is one for the rating
difference. Because the guarantee is uniform over time, the table may be looked at after every
verdict and judging stopped the first time the sequence excludes 0 without the error exceeding α
— which a fixed-sample test re-run at each look does not allow (``benchmarks/bench_monitor.py``).

"Is the leader really first" runs one sequence per pair of models that met, each at level
α / (pairs), so that all hold together with probability 1 − α; the leader is decided the first
time one model's lower bound beats every other model.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

import numpy as np
import pandas as pd

from evalcore.errors import DesignError, UsageError
from evalcore.text import fmt_count

if TYPE_CHECKING:
    from evalcore.counts import CountSource

#: The number of verdicts at which the boundary is tightest by default (any value keeps the
#: guarantee; it only moves where the sequence is narrowest).
DEFAULT_TUNED_FOR = 1000
#: Points of the drawn curve (the stopping point is always among them).
CURVE_POINTS = 400
Mode = Literal["pair", "leader"]


def mixture_rho(tuned_for: int, *, alpha: float) -> float:
    """The normal mixture's prior precision making the boundary near-tightest at ``tuned_for``
    verdicts (Howard et al. 2021, eq. (3.7)'s approximation on the ``V = t / 4`` scale)."""
    v = max(int(tuned_for), 1) / 4.0
    log_term = 2.0 * math.log(1.0 / alpha)
    return v / (log_term + math.log(1.0 + log_term))


def mixture_radius(t: np.ndarray | int, *, alpha: float, rho: float) -> np.ndarray:
    """Half-width of the confidence sequence for a mean of [0, 1] scores after ``t`` scores:
    ``sqrt((t/4 + ρ)·log((t/4 + ρ)/(ρ·α²))) / t`` (two-sided normal mixture boundary)."""
    t = np.asarray(t, dtype=float)
    v = t / 4.0 + rho
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.sqrt(v * np.log(v / (rho * alpha**2))) / t


def confidence_sequence(
    scores: np.ndarray, *, alpha: float = 0.05, tuned_for: int = DEFAULT_TUNED_FOR
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Running mean, lower and upper bound of a [0, 1] score sequence after each score.

    Bounds are the running intersection of the normal-mixture sequence (Howard et al. 2021),
    clipped to [0, 1]: valid at every ``t`` simultaneously with probability ≥ 1 − ``alpha``.
    """
    x = np.asarray(scores, dtype=float)
    if x.size and (np.nanmin(x) < 0 or np.nanmax(x) > 1):
        raise UsageError("confidence_sequence needs scores between 0 and 1")
    t = np.arange(1, x.size + 1, dtype=float)
    mean = np.cumsum(x) / t
    r = mixture_radius(t, alpha=alpha, rho=mixture_rho(tuned_for, alpha=alpha))
    lower = np.maximum.accumulate(np.clip(mean - r, 0.0, 1.0)) if x.size else mean
    upper = np.minimum.accumulate(np.clip(mean + r, 0.0, 1.0)) if x.size else mean
    return mean, lower, upper


def _pair_sequences(
    scores: np.ndarray, sizes: np.ndarray, *, alpha: float, tuned_for: int
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`confidence_sequence`'s lower and upper bounds of many sequences laid end to end
    (``sizes`` scores each), all at once: the same numbers as one call per sequence (a score of
    0, 1/2 or 1 sums exactly, so a running sum less the sum before its sequence is the
    sequence's own; the running bounds are per sequence)."""
    x = np.asarray(scores, dtype=float)
    if x.size and (np.nanmin(x) < 0 or np.nanmax(x) > 1):
        raise UsageError("confidence_sequence needs scores between 0 and 1")
    seq = np.repeat(np.arange(len(sizes)), sizes)
    begin = np.r_[0, np.cumsum(sizes)[:-1]]
    t = (np.arange(x.size) - begin[seq] + 1).astype(float)
    running = np.cumsum(x)
    before = np.where(begin > 0, running[np.maximum(begin - 1, 0)], 0.0)
    mean = (running - before[seq]) / t
    r = mixture_radius(t, alpha=alpha, rho=mixture_rho(tuned_for, alpha=alpha))
    groups = pd.Series(np.clip(mean - r, 0.0, 1.0)).groupby(seq, sort=False)
    lower = groups.cummax().to_numpy()
    upper = pd.Series(np.clip(mean + r, 0.0, 1.0)).groupby(seq, sort=False).cummin().to_numpy()
    return lower, upper


def elo_difference(win_rate: np.ndarray | float) -> np.ndarray:
    """Bradley–Terry rating difference (Elo points) of a head-to-head win rate; ±inf at 0 and 1."""
    p = np.asarray(win_rate, dtype=float)
    with np.errstate(divide="ignore"):
        return 400.0 * (np.log10(p) - np.log10(1.0 - p))


@dataclass(frozen=True, eq=False)
class MonitorResult:
    """An anytime-valid confidence sequence over the verdicts judged so far.

    ``curve`` columns: ``verdicts`` (how many had arrived), ``win_rate``, ``lower``, ``upper``
    (the head-to-head win rate of ``model_a`` over ``model_b`` and its sequence; in leader mode
    the current leader's smallest lower bound against any rival, with ``leader``), and
    ``rating_difference``, ``rating_lower``, ``rating_upper`` in Elo points. ``stopped_at`` is the
    first verdict count at which the sequence decided (None: keep judging).
    """

    mode: Mode
    model_a: str | None
    model_b: str | None
    judge: str | None
    alpha: float
    n_verdicts: int
    ordered_by: str
    curve: pd.DataFrame
    stopped_at: int | None
    decision: str
    win_rate: float
    lower: float
    upper: float
    leader: str | None = None
    notes: tuple[str, ...] = field(default=())

    @property
    def decided(self) -> bool:
        return self.stopped_at is not None

    @property
    def rating_difference(self) -> float:
        return float(elo_difference(self.win_rate))

    def sentence(self) -> str:
        """The answer in words."""
        level = f"{100 * (1 - self.alpha):g}%"
        if self.mode == "leader":
            if self.decided:
                return (
                    f"{self.leader} is first: after {self.stopped_at:,} of {self.n_verdicts:,} verdicts it "
                    f"beat every rival head-to-head at {level} confidence, however often the table was "
                    "looked at. Judging could have stopped there."
                )
            return (
                f"Keep judging: after {self.n_verdicts:,} verdicts no model beats every rival head-to-head "
                f"at {level} confidence (the current leader is {self.leader})."
            )
        lo, hi = float(elo_difference(self.lower)), float(elo_difference(self.upper))
        span = (
            f"{_elo(lo)} to {_elo(hi)} Elo points"
            if np.isfinite(lo) and np.isfinite(hi)
            else _open_span(lo, hi)
        )
        if self.decided:
            return (
                f"{self.decision}: after {self.stopped_at:,} of {self.n_verdicts:,} verdicts the rating "
                f"difference of {self.model_a} over {self.model_b} was away from 0 at {level} confidence, "
                f"however often the table was looked at; now {span}. Judging could have stopped there."
            )
        return (
            f"Keep judging: after {self.n_verdicts:,} verdicts the rating difference of {self.model_a} "
            f"over {self.model_b} is {span} ({level} confidence sequence), which still includes 0."
        )

    def as_dict(self) -> dict:
        def num(v: float) -> float | None:
            return float(v) if np.isfinite(v) else None

        curve = self.curve.replace([np.inf, -np.inf], np.nan).astype(object)
        curve = curve.where(pd.notna(curve), None)
        return {
            "mode": self.mode,
            "model_a": self.model_a,
            "model_b": self.model_b,
            "leader": self.leader,
            "judge": self.judge,
            "alpha": self.alpha,
            "n_verdicts": self.n_verdicts,
            "ordered_by": self.ordered_by,
            "decided": self.decided,
            "stopped_at": self.stopped_at,
            "decision": self.decision,
            "head_to_head_win_rate": num(self.win_rate),
            "sequence_lower": num(self.lower),
            "sequence_upper": num(self.upper),
            "rating_difference": num(self.rating_difference),
            "rating_lower": num(float(elo_difference(self.lower))),
            "rating_upper": num(float(elo_difference(self.upper))),
            "sentence": self.sentence(),
            "notes": list(self.notes),
            "curve": curve.to_dict(orient="records"),
        }


def _elo(v: float) -> str:
    return f"{v:+,.0f}" if np.isfinite(v) else ("no upper bound" if v > 0 else "no lower bound")


def _open_span(lo: float, hi: float) -> str:
    """A range of rating differences with an open end, in words."""
    if np.isfinite(lo):
        return f"at least {_elo(lo)} Elo points"
    if np.isfinite(hi):
        return f"at most {_elo(hi)} Elo points"
    return "no bound yet"


# -- the verdicts in the order they were judged ------------------------------------------------
def arrival_order(rows: np.ndarray, times: pd.Series | None) -> tuple[np.ndarray, str, tuple[str, ...]]:
    """Positions sorting ``rows`` by ``judged_at`` (numbers, else dates, else text as written),
    rows without a time last in row order; row order when no row has a time."""
    order = np.argsort(rows, kind="stable")
    if times is None or times.notna().sum() == 0:
        return order, "row order", ()
    text = times.astype("string")
    # a first time that is not a number settles it without converting every one (Arrow text)
    numbers = pd.to_numeric(text[text.notna()].iloc[:1], errors="coerce").notna().all()
    numeric = pd.to_numeric(text, errors="coerce") if numbers else None
    if numeric is not None and numeric[text.notna()].notna().all():
        key: pd.Series = numeric
    else:
        key = pd.to_datetime(text, errors="coerce", utc=True, format="ISO8601")  # vectorised
        if key[text.notna()].isna().any():
            key = pd.to_datetime(text, errors="coerce", utc=True, format="mixed")
        if key[text.notna()].isna().any():
            key = text  # neither numbers nor dates: the text order, as written
    if isinstance(key.dtype, pd.DatetimeTZDtype):  # UTC instants as plain datetimes: the same
        key = key.dt.tz_convert(None)  # order, sorted as numbers (not as one object per time)
    frame = pd.DataFrame({"key": key.to_numpy(), "row": rows})
    order = frame.sort_values(["key", "row"], na_position="last", kind="stable").index.to_numpy()
    missing = int(times.isna().sum())
    notes = (
        (
            f"{fmt_count(missing, 'verdict')} {'has' if missing == 1 else 'have'} no judging time; "
            f"{'it is' if missing == 1 else 'they are'} taken after the timed ones, in row order.",
        )
        if missing
        else ()
    )
    return order, "judged_at", notes


def _arrivals(
    store: CountSource, judge: str | None, models: tuple[str, ...] | None, category: str | None = None
) -> pd.DataFrame:
    """The judge's head-to-head verdicts (``models`` only, if given) as arrived: ``model_a``,
    ``model_b``, ``score`` (slot A's: 1, 1/2, 0)."""
    frame = store.query("head_to_head_rows", judge=judge, category=category, models=models)
    return _in_arrival_order(store, frame)


def _in_arrival_order(store: CountSource, frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` (with ``row``) in the order its verdicts were judged (:func:`arrival_order`)."""
    times = None
    stamped = store.judged_at() if len(frame) else None
    if stamped is not None:
        times = frame["row"].map(stamped.set_index("row")["judged_at"]) if len(stamped) else None
    order, ordered_by, notes = arrival_order(frame["row"].to_numpy(), times)
    out = frame.iloc[order].reset_index(drop=True)
    out.attrs["ordered_by"], out.attrs["notes"] = ordered_by, notes
    return out


def _thin(n: int, stop: int | None) -> np.ndarray:
    """Verdict counts to draw: about CURVE_POINTS, always the last and the stopping point."""
    points = np.unique(np.linspace(1, n, min(n, CURVE_POINTS)).round().astype(int))
    return np.unique(np.r_[points, [stop] if stop else []].astype(int))


def monitor_pair(
    store: CountSource,
    *,
    model_a: str,
    model_b: str,
    judge: str | None = None,
    category: str | None = None,
    alpha: float = 0.05,
    tuned_for: int = DEFAULT_TUNED_FOR,
) -> MonitorResult:
    """The confidence sequence for the rating difference of ``model_a`` over ``model_b`` from
    their head-to-head verdicts in arrival order (``judged_at``, else row order), and the first
    verdict count at which it excluded 0 (Howard et al. 2021, normal mixture boundary)."""
    _check(alpha, tuned_for)
    models = set(store.models())
    for m in (model_a, model_b):
        if m not in models:
            raise UsageError(f"model {m!r} is not in this table; pick one of its {len(models):,} models.")
    if model_a == model_b:
        raise UsageError("pick two different models to monitor.")
    rows = _arrivals(store, judge, (model_a, model_b), category)
    if rows.empty:
        raise DesignError(
            f"{model_a} and {model_b} never meet head-to-head in this judge's verdicts; the monitor "
            "needs verdicts comparing the two directly."
        )
    score = np.where(rows["model_a"].to_numpy() == model_a, rows["score"], 1.0 - rows["score"])
    mean, lower, upper = confidence_sequence(score, alpha=alpha, tuned_for=tuned_for)
    away = np.flatnonzero((lower > 0.5) | (upper < 0.5))
    stop = int(away[0]) + 1 if away.size else None
    at = _thin(len(score), stop) - 1
    curve = pd.DataFrame({"verdicts": at + 1, "win_rate": mean[at], "lower": lower[at], "upper": upper[at]})
    _add_elo(curve)
    if stop is None:
        decision = "keep judging"
    else:
        decision = f"{model_a} ahead" if lower[stop - 1] > 0.5 else f"{model_b} ahead"
    return MonitorResult(
        mode="pair",
        model_a=model_a,
        model_b=model_b,
        judge=judge,
        alpha=alpha,
        n_verdicts=len(score),
        ordered_by=rows.attrs["ordered_by"],
        curve=curve,
        stopped_at=stop,
        decision=decision,
        win_rate=float(mean[-1]),
        lower=float(lower[-1]),
        upper=float(upper[-1]),
        notes=rows.attrs["notes"],
    )


def monitor_leader(
    store: CountSource,
    *,
    judge: str | None = None,
    category: str | None = None,
    alpha: float = 0.05,
    tuned_for: int = DEFAULT_TUNED_FOR,
) -> MonitorResult:
    """Is the leader really first: one sequence per pair that met, each at ``alpha / pairs``;
    decided the first time one model's lower bound beats every other model (Howard et al. 2021)."""
    _check(alpha, tuned_for)
    # the models as numbers on one sorted axis (code-point order, as sorted() gives)
    axis, coded = store.query("head_to_head_codes", judge=judge, category=category)
    rows = _in_arrival_order(store, coded)
    if rows.empty:
        raise DesignError("no head-to-head verdicts between two different models to monitor.")
    names = list(axis)
    ia, ib = rows["a"].to_numpy(np.int64), rows["b"].to_numpy(np.int64)
    lo_i, hi_i = np.minimum(ia, ib), np.maximum(ia, ib)
    score = np.where(ia == lo_i, rows["score"], 1.0 - rows["score"])  # the lower index's score
    pair_id = lo_i * len(names) + hi_i
    # the pairs that met, sorted (a count over every possible pair took 1.6 GB on 10,000 models)
    pairs, inverse = np.unique(pair_id, return_inverse=True)
    small = np.int16 if len(pairs) < 2**15 else np.int32  # a stable sort of small numbers is a radix sort
    inverse = inverse.astype(small)
    level = alpha / len(pairs)
    # per pair, in arrival order: its running bounds (the lower-index model's win rate), laid
    # end to end pair after pair
    by_pair = np.argsort(inverse, kind="stable")
    sizes = np.bincount(inverse, minlength=len(pairs))
    starts = np.r_[0, np.cumsum(sizes)]
    lower_all, upper_all = _pair_sequences(score[by_pair], sizes, alpha=level, tuned_for=tuned_for)
    n_models, n = len(names), len(score)
    a_of, b_of = pairs // n_models, pairs % n_models
    # Only a model that meets every other model by the end can ever be called first, so only
    # the pairs with such a model at one end are followed: on an arena of thousands of models
    # none is, and a (moments × pairs) table of 200,000 pairs would take gigabytes.
    candidate = np.bincount(np.r_[a_of, b_of], minlength=n_models) == n_models - 1
    followed = np.flatnonzero(candidate[a_of] | candidate[b_of])
    column = np.full(len(pairs), -1, dtype=np.int64)  # a pair's column among those followed
    column[followed] = np.arange(followed.size)
    ends = np.r_[a_of[followed], b_of[followed]]
    by_end = np.argsort(ends, kind="stable")  # the pairs' ends grouped by model
    first_end = np.flatnonzero(np.r_[True, np.diff(ends[by_end]) != 0]) if ends.size else ends
    present = ends[by_end][first_end]

    def states(ts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """After each ``t`` verdicts: the model with the best smallest lower bound, and that bound."""
        t = np.asarray(ts, dtype=np.int64)
        # each pair's verdicts among the first t, counted between the sorted t's: the pair's
        # last one among them sits at its start plus that count less one
        wanted, back = np.unique(t, return_inverse=True)
        edges = np.r_[0, wanted]

        def arrivals(k: int) -> np.ndarray:  # per followed pair, its verdicts between two t's
            col = column[inverse[edges[k] : edges[k + 1]]]
            return np.bincount(col[col >= 0], minlength=followed.size)

        seen = np.cumsum([arrivals(k) for k in range(len(wanted))], axis=0).reshape(len(wanted), -1)[back]
        met = seen > 0
        safe = np.where(met, starts[:-1][followed][None, :] + seen - 1, 0)
        low_a = np.where(met, lower_all[safe], 0.0)
        low_b = np.where(met, 1.0 - upper_all[safe], 0.0)
        # per model, over the pairs it is an end of: the smallest lower bound, the rivals met
        smallest = np.ones((len(t), n_models))
        rivals = np.zeros((len(t), n_models), dtype=int)
        if followed.size:
            low = np.concatenate([low_a, low_b], axis=1)[:, by_end]
            smallest[:, present] = np.minimum(1.0, np.minimum.reduceat(low, first_end, axis=1))
            met2 = np.concatenate([met, met], axis=1)[:, by_end]
            rivals[:, present] = np.add.reduceat(met2, first_end, axis=1)
        # a model that has not met every other model cannot be called first
        worst = np.where(rivals == n_models - 1, smallest, 0.0)
        best = np.argmax(worst, axis=1)
        return best, worst[np.arange(len(t)), best]

    def decided(t: int) -> bool:
        return bool(states(np.array([t]))[1][0] > 0.5)

    # the bounds only tighten, so "decided" is monotone in t: bisect for the first decided count
    stop = None
    if decided(n):
        lo, hi = 1, n
        while lo < hi:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if decided(mid) else (mid + 1, hi)
        stop = lo
    at = _thin(n, stop)
    best, bound = states(at)
    states_list = [(int(b), float(v)) for b, v in zip(best, bound, strict=True)]
    curve = pd.DataFrame(
        {
            "verdicts": at,
            "leader": [names[s[0]] for s in states_list],
            "lower": [s[1] for s in states_list],
        }
    )
    curve["rating_lower"] = elo_difference(curve["lower"])
    leader, low = states_list[-1]
    notes = list(rows.attrs["notes"])
    if len(pairs) < n_models * (n_models - 1) // 2:
        notes.append(
            f"{n_models * (n_models - 1) // 2 - len(pairs):,} pairs of models never met head-to-head; "
            "a model can be called first only once it has met every other model."
        )
    return MonitorResult(
        mode="leader",
        model_a=None,
        model_b=None,
        judge=judge,
        alpha=alpha,
        n_verdicts=n,
        ordered_by=rows.attrs["ordered_by"],
        curve=curve,
        stopped_at=stop,
        decision=f"{names[leader]} first" if stop else "keep judging",
        win_rate=float("nan"),
        lower=low,
        upper=float("nan"),
        leader=names[leader],
        notes=tuple(notes),
    )


def _add_elo(curve: pd.DataFrame) -> None:
    curve["rating_difference"] = elo_difference(curve["win_rate"])
    curve["rating_lower"] = elo_difference(curve["lower"])
    curve["rating_upper"] = elo_difference(curve["upper"])


def _check(alpha: float, tuned_for: int) -> None:
    if not 0 < alpha < 1:
        raise UsageError(f"alpha must be between 0 and 1 (got {alpha}).")
    if tuned_for < 1:
        raise UsageError(f"tuned_for must be 1 or more verdicts (got {tuned_for}).")
