"""The floor table and the size picker: what a labelled set of a given size can buy.

The floor is the Lang–Reiczigel half-width with unlimited judged pairs: set entirely by how well
the judge is known (its Youden's J and the labelled-set size). It is read with Se = Sp = (1 + J)/2,
the labelled pairs split evenly between human wins and non-wins, Lang–Reiczigel's pseudo-counts
and a true share of 37.5%, which reproduces the published table (J ≈ 0.57: ±33–35 at 25 labelled
pairs, ±15–16 at 100, ±7–8 at 400, ±4 at 1,600).

References
----------
Lang, Z. & Reiczigel, J. (2014). Confidence limits for prevalence of disease adjusted for
estimated sensitivity and specificity. *Preventive Veterinary Medicine* 113(1), 13–22.
"What a pairwise win rate is worth: six judges against expert and crowd labels" (2025), §6.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from evalcore.calibration.lang_reiczigel import floor_from
from evalcore.errors import UsageError
from evalcore.limits import MAX_LABELLED
from evalcore.stats.intervals import Z95

ArrayLike = float | np.ndarray

#: The labelled-set sizes of the published floor table.
FLOOR_SIZES: tuple[int, ...] = (25, 100, 400, 1600)
#: The true share the floor table is read at (35–40% reproduces the published table).
FLOOR_TRUE_SHARE = 0.375


def floor_half_width(
    n_labelled: ArrayLike,
    youden_j: ArrayLike | None = None,
    *,
    se: ArrayLike | None = None,
    sp: ArrayLike | None = None,
    true_share: ArrayLike = FLOOR_TRUE_SHARE,
    win_share: float = 0.5,
    z: float = Z95,
) -> ArrayLike:
    """The floor: the Lang–Reiczigel half-width with unlimited judged pairs.

    The reading that reproduces the published table: Se = Sp = (1 + J)/2 unless ``se``
    and ``sp`` are given, the labelled pairs split ``win_share`` : 1 − ``win_share`` between human
    wins and non-wins (evenly by default), the pseudo-counts applied, a true share of 35–40%
    (``true_share``, default 37.5%). Capped at 0.5 (an interval clipped to [0, 1] cannot be wider);
    0.5 where J' ≤ 0. Vectorised: arrays broadcast.

    Examples
    --------
    >>> round(float(floor_half_width(100, 0.57)), 3)
    0.152
    """
    if se is None or sp is None:
        if youden_j is None:
            raise UsageError("youden_j is missing: give youden_j, or both se and sp")
        j = np.asarray(youden_j, dtype=np.float64)
        se = sp = (1.0 + j) / 2.0
    se = np.asarray(se, dtype=np.float64)
    sp = np.asarray(sp, dtype=np.float64)
    n = np.asarray(n_labelled, dtype=np.float64)
    p = np.asarray(true_share, dtype=np.float64)
    apparent = p * se + (1.0 - p) * (1.0 - sp)
    return floor_from(se, sp, n * win_share, n * (1.0 - win_share), apparent, z)


def floor_table(
    n_labelled: tuple[int, ...] | list[int] = FLOOR_SIZES,
    youden_j: tuple[float, ...] | list[float] = (0.57,),
    *,
    se: float | None = None,
    sp: float | None = None,
    true_share: float = FLOOR_TRUE_SHARE,
    z: float = Z95,
) -> pd.DataFrame:
    """The floor table for any labelled-set sizes and Youden's J values (tidy).

    Each J is read with Se = Sp = (1 + J)/2 (the published table's reading). With ``se`` and
    ``sp`` (a judge's measured sensitivity and specificity) the table also holds that judge's
    rows, computed by the same :func:`floor_half_width` call as :func:`size_plan`'s ladder, so one
    labelled-set size has one floor for the judge wherever it is shown.

    Columns: n_labelled, youden_j, quality (the column label: ``"Youden's J 0.57"`` or
    ``"this judge (Youden's J 0.95)"``), floor (half-width as a share), floor_points (×100).

    Examples
    --------
    >>> floor_table((25, 400), (0.57,))["floor_points"].round(1).tolist()
    [33.6, 7.4]
    >>> t = floor_table((400,), (), se=0.952, sp=1.0)
    >>> t["quality"].tolist(), round(float(t["floor_points"].iloc[0]), 1)
    (["this judge (Youden's J 0.95)"], 1.4)
    """
    sizes = [int(s) for s in n_labelled]
    js = [float(j) for j in youden_j]
    own = se is not None and sp is not None and math.isfinite(se) and math.isfinite(sp)
    if not sizes or not (js or own):
        raise UsageError("n_labelled and youden_j need at least one value each")
    if any(s < 1 or s > MAX_LABELLED for s in sizes):
        raise UsageError(
            f"n_labelled: labelled-set sizes must be between 1 and {MAX_LABELLED:,}; got {sizes}"
        )
    if any(not (-1.0 <= j <= 1.0) for j in js):
        raise UsageError(f"youden_j lies between -1 and 1 (sensitivity plus specificity minus one); got {js}")
    parts: list[tuple[float, str, np.ndarray]] = []
    n = np.array(sizes, dtype=float)
    if own and se is not None and sp is not None:
        j_own = float(se) + float(sp) - 1.0
        floor = floor_half_width(n, se=float(se), sp=float(sp), true_share=true_share, z=z)
        parts.append((j_own, f"this judge (Youden's J {j_own:.2f})", np.broadcast_to(floor, n.shape)))
    for j in js:
        parts.append(
            (j, f"Youden's J {j:.2f}", np.asarray(floor_half_width(n, j, true_share=true_share, z=z)))
        )
    return pd.DataFrame(
        {
            "n_labelled": np.tile(n, len(parts)).astype(int),
            "youden_j": np.repeat([p[0] for p in parts], n.size),
            "quality": np.repeat([p[1] for p in parts], n.size),
            "floor": np.concatenate([np.asarray(p[2], dtype=float) for p in parts]),
            "floor_points": 100.0 * np.concatenate([np.asarray(p[2], dtype=float) for p in parts]),
        }
    )


# -- the size picker --------------------------------------------------------------------------------
@dataclass(frozen=True)
class SizePlan:
    """How many labelled and judged pairs a target half-width takes, or why not.

    ``n_labelled`` is the balanced plan (the floor at most 3/4 of the target, so the judged
    pairs need not be endless); ``min_labelled`` the fewest labelled pairs whose floor is below
    the target at all. ``ladder`` lists, per labelled-set size, its floor and the judged pairs
    needed (NaN where the floor is already wider than the target). ``binomial_n`` is what the
    plain binomial would promise on the printed number, for contrast.
    """

    target: float
    youden_j: float
    se: float
    sp: float
    true_share: float
    reachable: bool
    n_labelled: int | None
    n_judged: int | None
    min_labelled: int | None
    max_labelled: int
    binomial_n: int
    explanation: str
    ladder: pd.DataFrame

    def as_dict(self) -> dict:
        out = asdict(self)
        out["ladder"] = self.ladder.to_dict(orient="records")
        return out


def _judged_needed(target: float, floor: float, apparent: float, j_adj: float, z: float) -> float:
    """Judged pairs so the full Lang–Reiczigel half-width reaches ``target`` (n large: AP' ≈ AP)."""
    room = target**2 - floor**2
    if room <= 0 or j_adj <= 0:
        return math.nan
    n_adj = z * z * apparent * (1.0 - apparent) / (j_adj**2 * room)
    return max(1.0, math.ceil(n_adj - z * z))


def size_plan(
    target: float,
    youden_j: float | None = None,
    *,
    se: float | None = None,
    sp: float | None = None,
    true_share: float = FLOOR_TRUE_SHARE,
    max_labelled: int = 1600,
    ladder: tuple[int, ...] = (25, 50, 100, 200, 400, 800, 1600, 3200, 6400),
    z: float = Z95,
) -> SizePlan:
    """Labelled and judged pairs needed for a corrected win rate of ± ``target`` (a share).

    Checked against the published plan at J ≈ 0.57: ±10 takes 400 labelled and 580–750 judged pairs, ±5 takes
    1,600 labelled and 2,300–2,900 judged. Out of reach (said in words) when even
    ``max_labelled`` labelled pairs leave a floor wider than the target, or when J ≤ 0.

    Examples
    --------
    >>> plan = size_plan(0.10, 0.57)
    >>> plan.reachable, plan.n_labelled, plan.n_judged
    (True, 386, 670)
    """
    if not 0.0 < target < 0.5:
        raise UsageError(
            f"target is a half-width between 0 and 0.5 (e.g. 0.10 for ±10 percentage points); got {target!r}"
        )
    if se is None or sp is None:
        if youden_j is None:
            raise UsageError("youden_j is missing: give youden_j, or both se and sp")
        se = sp = (1.0 + youden_j) / 2.0
    j = se + sp - 1.0
    apparent = true_share * se + (1.0 - true_share) * (1.0 - sp)
    binomial_n = math.ceil(z * z * 0.25 / target**2)

    def floor_at(n: float) -> float:
        return float(floor_half_width(n, se=se, sp=sp, true_share=true_share, z=z))

    def j_adj_at(n: float) -> float:
        half = n / 2.0
        return ((half * se + 1) / (half + 2)) + ((half * sp + 1) / (half + 2)) - 1.0

    def smallest(limit: float) -> int | None:
        hi = 1
        while floor_at(hi) >= limit:
            hi *= 2
            if hi > 10**8:
                return None
        lo = max(1, hi // 2)
        while lo < hi:
            mid = (lo + hi) // 2
            if floor_at(mid) < limit:
                hi = mid
            else:
                lo = mid + 1
        return hi

    sizes = sorted(set(int(s) for s in ladder) | {int(max_labelled)})
    rows = []
    for n_lab in sizes:
        f = floor_at(n_lab)
        rows.append(
            {
                "n_labelled": n_lab,
                "floor": f,
                "floor_points": 100 * f,
                "n_judged": _judged_needed(target, f, apparent, j_adj_at(n_lab), z),
            }
        )
    table = pd.DataFrame(rows)
    points = f"±{100 * target:.0f} percentage points"
    if j <= 0:
        return SizePlan(
            target,
            j,
            se,
            sp,
            true_share,
            False,
            None,
            None,
            None,
            max_labelled,
            binomial_n,
            f"{points} is out of reach: at Youden's J = {j:.2f} the judge is "
            "no better than chance, and no number of labelled pairs corrects it.",
            table,
        )
    min_lab = smallest(target)
    if min_lab is None or min_lab > max_labelled:
        f = floor_at(max_labelled)
        more = f" It would take about {min_lab:,} labelled pairs." if min_lab is not None else ""
        return SizePlan(
            target,
            j,
            se,
            sp,
            true_share,
            False,
            None,
            None,
            min_lab,
            max_labelled,
            binomial_n,
            f"{points} is out of reach at Youden's J = {j:.2f} with up to {max_labelled:,} "
            f"labelled pairs: the floor there is ±{100 * f:.1f} percentage points however many pairs "
            f"the judge reads.{more} Below a certain J more grading does not buy a usable "
            "number.",
            table,
        )
    balanced = smallest(0.75 * target)
    n_lab = min(balanced, max_labelled) if balanced is not None else max_labelled
    n_lab = max(n_lab, min_lab)
    n_judged = int(_judged_needed(target, floor_at(n_lab), apparent, j_adj_at(n_lab), z))
    return SizePlan(
        target,
        j,
        se,
        sp,
        true_share,
        True,
        int(n_lab),
        n_judged,
        int(min_lab),
        max_labelled,
        binomial_n,
        f"{points} takes about {n_lab:,} labelled pairs and {n_judged:,} judged pairs at "
        f"Youden's J = {j:.2f} (floor ±{100 * floor_at(n_lab):.1f} percentage points at that labelled "
        f"size; at least {min_lab:,} labelled pairs are needed at all). The plain binomial "
        f"would promise {points} with {binomial_n:,} pairs, on a number that is compressed "
        "toward 50%.",
        table,
    )
