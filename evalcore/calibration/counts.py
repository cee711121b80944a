"""What a calibration counts: units, the candidate's outcomes and the labelled confusion matrix.

Everything is aggregated in DuckDB by the store (:meth:`VerdictStore.calibration_patterns`;
names reach SQL only as bound parameters); Python receives
one row per distinct *instruction pattern* (an instruction's judged outcomes and its labelled
confusion matrix) with how many instructions share it. Totals are multiplicity-weighted sums, and
the same rows give intervals clustered by instruction (a candidate's many opponents on one
instruction are not independent) and the bootstrap over instructions.

**Units.** A unit is one judge call, or with the both-orders verdict one (instruction, opponent)
judged exactly once in each order: the judge's verdict is the sign both orders agree on, else a
tie, and the human label the sign of the two calls' labels (one label shared by both order rows
counts once). On a table judged in both orders the both-orders verdict is the default, so each
human label counts once.

References
----------
"What a pairwise win rate is worth: six judges against expert and crowd labels" (2025), §1 (the
both-orders verdict) and §6.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from evalcore.counts import PATTERN_COLUMNS, CountSource, require_source
from evalcore.errors import UsageError
from evalcore.slots import UNBALANCED_BELOW, slot_balance

#: Both orders must cover at least this share of the selection's pairs for the both-orders
#: verdict to be the default unit.
BOTH_ORDERS_DEFAULT_SHARE = 0.5


class _SameSlice:
    """Sentinel: the labelled rows come from the same slice (category) as the rows corrected."""

    def __repr__(self) -> str:
        return "SAME_SLICE"


SAME_SLICE = _SameSlice()


@dataclass(frozen=True)
class CalibrationCounts:
    """What a calibration needs, counted from the rows (the candidate's point of view).

    Judged (target slice): ``wins``, ``ties``, ``losses`` of the candidate. Labelled (rows with a
    human label in the labelled slice): among human wins (``n_se``) the judge said win ``tp``
    times and tie ``tie_pos`` times; among human non-wins (``n_sp``: human tie or loss) the judge
    said not-win ``tn`` times and tie ``tie_neg`` times. ``confusion`` is the full 3 × 3 labelled
    table (human win/tie/loss × judge win/tie/loss) that the loss arm needs; ``patterns`` and
    ``multiplicity`` hold it per instruction pattern, for clustering and the bootstrap.
    """

    wins: int
    ties: int
    losses: int
    tp: int
    n_se: int
    tn: int
    n_sp: int
    tie_pos: int = 0
    tie_neg: int = 0
    both_orders: bool = False
    unpaired_calls: int = 0
    confusion: tuple[int, ...] | None = None
    patterns: np.ndarray | None = field(default=None, repr=False, compare=False)
    multiplicity: np.ndarray | None = field(default=None, repr=False, compare=False)
    #: category → (judged units in the corrected slice, labelled units in the labelled slice)
    category_units: dict | None = field(default=None, repr=False, compare=False)
    #: share of the selection's (instruction, pair) keys judged in both orders
    both_orders_share: float = 0.0
    #: the candidate's calls in slot A and in slot B (against the baseline or every opponent)
    slot_calls: tuple[int, int] = (0, 0)
    #: order balance of the candidate's pairs, 1 − Σ|n_ab − n_ba| / Σ(n_ab + n_ba) (1: each pair
    #: equally often in each order; 0: each pair in one order only); NaN without a candidate
    slot_order_balance: float = float("nan")

    @property
    def slot_confounded(self) -> bool:
        """The candidate's pairs are not seen in both slot orders in balance: its printed win
        rate cannot separate the judge's slot preference from the models' strengths. The threshold
        is the one below which the judge's spec sheet calls slot orders unbalanced."""
        return bool(self.slot_order_balance < UNBALANCED_BELOW)

    @classmethod
    def from_patterns(cls, patterns: np.ndarray, multiplicity: np.ndarray, **kwargs) -> CalibrationCounts:
        """Totals from per-instruction patterns (rows in :data:`PATTERN_COLUMNS` order)."""
        p = np.asarray(patterns, dtype=np.int64).reshape(-1, len(PATTERN_COLUMNS))
        m = np.asarray(multiplicity, dtype=np.int64)
        t = m @ p if len(m) else np.zeros(len(PATTERN_COLUMNS), dtype=np.int64)
        c = t[3:].reshape(3, 3)
        return cls(
            wins=int(t[0]),
            ties=int(t[1]),
            losses=int(t[2]),
            tp=int(c[0, 0]),
            n_se=int(c[0].sum()),
            tn=int(c[1:, 1:].sum()),
            n_sp=int(c[1:].sum()),
            tie_pos=int(c[0, 1]),
            tie_neg=int(c[1:, 1].sum()),
            confusion=tuple(int(x) for x in c.ravel()),
            patterns=p,
            multiplicity=m,
            **kwargs,
        )

    @property
    def n_judged(self) -> int:
        return self.wins + self.ties + self.losses

    @property
    def n_labelled(self) -> int:
        return self.n_se + self.n_sp

    @property
    def unit(self) -> str:
        return "both-orders verdict" if self.both_orders else "judge call"

    @property
    def tie_given_win(self) -> float:
        """P(judge says tie | human says win) on the labelled rows (0 without human wins)."""
        return self.tie_pos / self.n_se if self.n_se else 0.0

    @property
    def tie_given_not_win(self) -> float:
        """P(judge says tie | human says not-win) on the labelled rows (0 without non-wins)."""
        return self.tie_neg / self.n_sp if self.n_sp else 0.0

    def unit_patterns(self) -> tuple[np.ndarray, np.ndarray] | None:
        """The instruction patterns, or, for counts made by hand (no patterns but a confusion
        matrix), every unit as its own instruction. None without a confusion matrix."""
        if self.patterns is not None and self.multiplicity is not None:
            return self.patterns, self.multiplicity
        if self.confusion is None:
            return None
        rows = np.eye(len(PATTERN_COLUMNS), dtype=np.int64)
        mult = np.array([self.wins, self.ties, self.losses, *self.confusion], dtype=np.int64)
        keep = mult > 0
        return rows[keep], mult[keep]

    def loss_arm(self) -> tuple[int, int, int, int] | None:
        """(tp, n_se, tn, n_sp) of the loss arm: judge-says-loss against human-says-loss."""
        if self.confusion is None:
            return None
        c = np.asarray(self.confusion).reshape(3, 3)
        return int(c[2, 2]), int(c[2].sum()), int(c[:2, :2].sum()), int(c[:2].sum())


class CalibrationSource(CountSource, Protocol):
    """What a calibration reads from a store of verdicts (:class:`evalcore.store.store.VerdictStore`
    is one): the :class:`~evalcore.counts.CountSource` views plus the models, the share of pairs
    judged in both orders and the per-instruction patterns, all aggregated by the store."""

    def models(self) -> tuple[str, ...]: ...

    def orders_share(self, **selection: Any) -> tuple[int, int]: ...

    def calibration_patterns(self, **selection: Any) -> Any: ...


def resolve_slice(category: str | None, labelled_category) -> str | None:
    """The labelled slice: the corrected slice unless another was named."""
    return category if isinstance(labelled_category, _SameSlice) else labelled_category


def calibration_counts(
    data: CalibrationSource,
    *,
    judge: str | None = None,
    candidate: str | None = None,
    baseline: str | None = None,
    category: str | None = None,
    labelled_category: str | None | _SameSlice = SAME_SLICE,
    both_orders: bool | None = None,
) -> CalibrationCounts:
    """Count the candidate's judged and labelled outcomes in DuckDB.

    Parameters
    ----------
    data : CalibrationSource
        The store of verdicts (:class:`~evalcore.store.store.VerdictStore`; load a frame with
        ``VerdictStore.from_frame(frame)``).
    judge : str, optional
        The judge; required when the table has several.
    candidate : str, optional
        The model whose win rate is calibrated; None reads every call from slot A's point of
        view ("slot A wins").
    baseline : str, optional
        Only the candidate's comparisons with this model (default: every opponent).
    category : str, optional
        The slice being corrected (None: all rows).
    labelled_category : str, None or SAME_SLICE
        The slice the labelled rows come from (default: the corrected slice; None: all).
    both_orders : bool, optional
        The unit: True the both-orders verdict, False one unit per judge call, None (default) the
        table's own unit, the both-orders verdict when a candidate is named and at least half of
        the selection's pairs were judged in both orders. Pairs not judged exactly once in each
        order are left out of both-orders units and counted in ``unpaired_calls``.

    Returns
    -------
    CalibrationCounts
    """
    if baseline is not None and candidate is None:
        raise UsageError("baseline needs a candidate: name the model to compare against it")
    if baseline is not None and baseline == candidate:
        raise UsageError("candidate and baseline are the same model; pick two different models")
    if both_orders and candidate is None:
        raise UsageError(
            "both_orders: the both-orders verdict needs a candidate model, because "
            "slot A changes sides between the two orders"
        )
    lab = resolve_slice(category, labelled_category)
    require_source(data, needs=("judges", "models", "orders_share", "calibration_patterns"), what="calibrate")
    store = data
    judges = store.judges()
    if judge is None and len(judges) > 1:
        raise UsageError(
            "judge: the table has several judges ("
            + ", ".join(map(str, judges))
            + "); name the one to calibrate"
        )
    if judge is not None and judge not in judges:
        raise UsageError(
            f"judge {judge!r} is not in the table; its judges are: " + ", ".join(map(str, judges))
        )
    models = store.models()
    for role, name in (("candidate", candidate), ("baseline", baseline)):
        if name is not None and name not in models:
            raise UsageError(
                f"{role} {name!r} is not a model of the table; its models are: "
                + ", ".join(sorted(map(str, models)))
            )
    selection = {"judge": judge, "candidate": candidate, "baseline": baseline, "category": category}
    both, keys = store.orders_share(**selection)
    share = float(both / keys) if keys else 0.0
    if both_orders is None:
        both_orders = candidate is not None and share >= BOTH_ORDERS_DEFAULT_SHARE
    found = store.calibration_patterns(**selection, labelled=lab, both_orders=bool(both_orders))
    slots = (
        _candidate_slots(store.counts(judge=judge, category=category), candidate, baseline)
        if candidate is not None
        else ((0, 0), float("nan"))
    )
    return CalibrationCounts.from_patterns(
        found.patterns,
        found.multiplicity,
        both_orders=bool(both_orders),
        unpaired_calls=found.unpaired_calls,
        both_orders_share=share,
        category_units=found.category_units,
        slot_calls=slots[0],
        slot_order_balance=slots[1],
    )


def _candidate_slots(counts, candidate: str, baseline: str | None) -> tuple[tuple[int, int], float]:
    """The candidate's calls in slot A and slot B, and the order balance of its pairs, from the
    same slot check the judge's spec sheet uses (:func:`evalcore.slots.slot_balance`)."""

    if candidate not in counts.models:
        return (0, 0), float("nan")
    c = counts.index(candidate)
    keep = counts.involving(c)
    if baseline is not None:
        keep &= counts.involving(counts.index(baseline)) if baseline in counts.models else False
    if not np.any(keep):
        return (0, 0), float("nan")
    pair = counts.with_cells(counts.inst[keep], counts.a[keep], counts.b[keep], counts.n[keep])
    calls = pair.n.sum(axis=1)
    in_a = int(calls[pair.a == c].sum())
    return (in_a, int(calls.sum()) - in_a), slot_balance(pair).order_balance
