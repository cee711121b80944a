"""The judge's spec sheet: position, order swaps, coverage, agreement, length and family biases.

Definitions (``shared/notes/DEFINITIONS.md``, "The judge"; seed 003 §1, §3, §7; seed 002 §3.4 and
Appendix B):

- **Both-orders verdict** (seed 003 §1): for an instruction and an unordered pair judged in both
  orders, the verdict both orders agree on, else a tie. On the 5-level scale "agree" means the two
  verdicts, read from the same model's point of view, name the same winner (same sign, neither a
  tie); the combined verdict is then the *weaker* of the two magnitudes (+2 and +1 → +1, +2 and +2
  → +2). Any tie, or opposite winners, gives a tie. On a 3-level judge this is exactly seed 003's
  rule. The combined verdict is placed once with the lower model index in slot A. Pairs judged in
  one order only are dropped (they carry no both-orders verdict); :func:`both_orders_summary`
  counts them. When one order holds several calls of the same pair (repeated sampling), the calls
  are paired in verdict order: the j-th most favourable call to the lower-index model in one
  order with the j-th in the other, ``min(n_forward, n_reverse)`` combined verdicts; the surplus
  calls of the longer order (its most favourable to the lower-index model) stay unpaired.
- **Position bias** in points: P(slot A wins) − P(slot B wins) over single-order verdicts, ×100.
- **Swap consistency**: the share of both-orders pairings whose two verdicts, read from the same
  model's point of view, name the same outcome (same winner, or both a tie); the **flip rate** is
  its complement. ``swap_consistency_exact`` asks for the same level on the full scale;
  ``reversal_rate`` is the share where the two orders name opposite winners.
- **Order-swap decomposition** (seed 002, App. B): with v_fwd the mean slot-A verdict when a model
  sits in slot A against an opponent and v_rev the mean slot-A verdict when the two swap places,
  q = (v_fwd − v_rev)/2 is the preference for the model net of position and b = (v_fwd + v_rev)/2
  the slot-A bias, in verdict units (−2..+2). Per pair, pooled over instructions; the judge's b is
  the call-weighted mean of the pairs' b over pairs seen in both orders (so a table that always
  puts the stronger model in one slot does not fake a slot bias); per anchor, q and b are the
  call-weighted means over the anchor's opponents (q > 0: the opponents are preferred to the
  anchor). 95% intervals: 2.5 and 97.5 percentiles of a bootstrap over instructions.
- **Self-comparison tie rate** (seed 002 §3.4): the tie share of calls that compare a model with
  itself, where any verdict other than a tie can only reflect position.
- **Coverage** (seed 003 §1): calls that returned no verdict over all calls, never imputed; per
  model (a call counts for both its models) and per bin of response length.

Everything is computed on count tensors (:class:`~evalcore.store.VerdictCounts`) or aggregated
in DuckDB; bootstrap rounds are one matrix product with
:func:`evalcore.ranking.bootstrap_weights`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from evalcore.progress import Progress
from evalcore.ranking import ELO_SCALE, bootstrap_weights
from evalcore.schema import LEVELS
from evalcore.store import VerdictCounts, VerdictStore

_LEVELS = np.asarray(LEVELS)
_N_LEVELS = len(LEVELS)


def _combined_level_index() -> np.ndarray:
    """(5, 5) → index of the both-orders verdict for (forward level, reverse level), both read
    from the lower-index model's point of view."""
    out = np.empty((_N_LEVELS, _N_LEVELS), dtype=int)
    for k, va in enumerate(LEVELS):
        for j, vb in enumerate(LEVELS):
            level = int(np.sign(va)) * min(abs(va), abs(vb)) if va * vb > 0 else 0
            out[k, j] = LEVELS.index(level)
    return out


_COMBINED = _combined_level_index()
_COMBINED_ONEHOT = np.eye(_N_LEVELS)[_COMBINED]  # (5, 5, 5)
_SAME_OUTCOME = np.sign(_LEVELS)[:, None] == np.sign(_LEVELS)[None, :]
_SAME_LEVEL = np.eye(_N_LEVELS, dtype=bool)
_OPPOSITE = (np.sign(_LEVELS)[:, None] * np.sign(_LEVELS)[None, :]) < 0


@dataclass(frozen=True)
class PairedVerdicts:
    """Both-orders pairings of one count tensor, stored for the cells that have any.

    Pair p is (``first[p]``, ``second[p]``) with first < second. ``joint[r, k, l]``: pairings in
    cell r (instruction ``inst[r]``, pair ``pair[r]``) whose forward verdict (first model in slot
    A) was ``LEVELS[k]`` and whose reverse verdict, read from the first model's point of view,
    was ``LEVELS[l]``. ``unpaired``: calls left without a partner in the other order
    (single-order calls, or the surplus of repeated calls).
    """

    first: np.ndarray
    second: np.ndarray
    inst: np.ndarray
    pair: np.ndarray
    joint: np.ndarray
    unpaired: int

    def per_instruction(self, n_instructions: int) -> np.ndarray:
        """(I, 5, 5) pairings summed over pairs."""
        cells = _N_LEVELS * _N_LEVELS
        flat = (self.inst[:, None] * cells + np.arange(cells)[None, :]).ravel()
        out = np.bincount(flat, weights=self.joint.reshape(-1).astype(np.float64),
                          minlength=n_instructions * cells)
        return out.reshape(n_instructions, _N_LEVELS, _N_LEVELS)


def paired_verdicts(counts: VerdictCounts) -> PairedVerdicts:
    """Pair the two orders of every (instruction, unordered pair) (see the module docstring)."""
    m = counts.n_models
    first, second = np.triu_indices(m, k=1)
    c = counts.counts
    fwd_n = c[:, first, second, :].sum(axis=-1, dtype=np.int64)  # (I, P)
    rev_n = c[:, second, first, :].sum(axis=-1, dtype=np.int64)
    n_cell = np.minimum(fwd_n, rev_n)
    inst, pair = np.nonzero(n_cell)
    unpaired = int((fwd_n + rev_n - 2 * n_cell).sum())
    fwd = c[inst, first[pair], second[pair], :].astype(np.int64)  # (K, 5) first model in slot A
    rev = c[inst, second[pair], first[pair], ::-1].astype(np.int64)  # read from first's view
    f_hi = np.cumsum(fwd, axis=-1)
    r_hi = np.cumsum(rev, axis=-1)
    f_lo = f_hi - fwd
    r_lo = r_hi - rev
    n = n_cell[inst, pair]
    upper = np.minimum(np.minimum(f_hi[:, :, None], r_hi[:, None, :]), n[:, None, None])
    lower = np.maximum(f_lo[:, :, None], r_lo[:, None, :])
    joint = np.clip(upper - lower, 0, None)
    return PairedVerdicts(first=first, second=second, inst=inst, pair=pair, joint=joint,
                          unpaired=unpaired)


def both_orders_counts(counts: VerdictCounts) -> VerdictCounts:
    """One both-orders verdict per pairing of the two orders, lower model index in slot A.

    Seed 003 §1 / DEFINITIONS.md: the verdict both orders agree on, else a tie (the 5-level
    reading of "agree" is in the module docstring). Pairs judged in one order only are dropped;
    see :func:`both_orders_summary` for how many.
    """
    paired = paired_verdicts(counts)
    combined = np.einsum("rkl,klc->rc", paired.joint, _COMBINED_ONEHOT)
    out = np.zeros_like(counts.counts)
    out[paired.inst, paired.first[paired.pair], paired.second[paired.pair], :] = (
        np.rint(combined).astype(out.dtype))
    return VerdictCounts.from_dense(models=counts.models, instructions=counts.instructions,
                         judge=counts.judge, counts=out)


@dataclass(frozen=True)
class BothOrdersSummary:
    """How many calls the both-orders verdict could use."""

    calls: int
    pairings: int  # both-orders verdicts formed (each uses two calls)
    unpaired_calls: int  # calls dropped: judged in one order only (or surplus repeats)

    @property
    def paired_share(self) -> float:
        return 2 * self.pairings / self.calls if self.calls else float("nan")

    def as_dict(self) -> dict:
        return {"calls": self.calls, "pairings": self.pairings,
                "unpaired_calls": self.unpaired_calls, "paired_share": self.paired_share}


def both_orders_summary(counts: VerdictCounts) -> BothOrdersSummary:
    """Calls, both-orders pairings and the single-order calls the both-orders verdict drops."""
    paired = paired_verdicts(counts)
    return BothOrdersSummary(calls=int(counts.counts.sum()), pairings=int(paired.joint.sum()),
                             unpaired_calls=paired.unpaired)


# -- bootstrap helpers -------------------------------------------------------------------------

def _ratio_interval(num: np.ndarray, den: np.ndarray, weights: np.ndarray | None
                    ) -> tuple[float, float, float]:
    """A ratio Σnum/Σden over instructions with a bootstrap 95% interval (2.5/97.5 percentiles).

    ``num`` and ``den`` are per-instruction (I,) arrays; ``weights`` (rounds, I) or None."""
    total = den.sum()
    point = float(num.sum() / total) if total > 0 else float("nan")
    if weights is None or total <= 0:
        return point, float("nan"), float("nan")
    with np.errstate(invalid="ignore", divide="ignore"):
        boot = (weights @ num) / (weights @ den)
    boot = boot[np.isfinite(boot)]
    if boot.size == 0:
        return point, float("nan"), float("nan")
    low, high = np.percentile(boot, [2.5, 97.5])
    return point, float(low), float(high)


@dataclass(frozen=True)
class Estimate:
    """A point estimate and its bootstrap 95% interval (2.5 and 97.5 percentiles)."""

    value: float
    low: float
    high: float

    def as_dict(self) -> dict:
        return {"value": self.value, "low": self.low, "high": self.high}


def _estimate(num: np.ndarray, den: np.ndarray, weights: np.ndarray | None,
              scale: float = 1.0) -> Estimate:
    v, lo, hi = _ratio_interval(num, den, weights)
    return Estimate(v * scale, lo * scale, hi * scale)


# -- position and order swaps -------------------------------------------------------------------

@dataclass(frozen=True)
class PositionResult:
    """Seed 003 §1, §3: position bias, swap consistency and tie rates of one judge."""

    calls: int
    position_bias_points: Estimate  # 100·(P(slot A wins) − P(slot B wins)), single-order
    slot_a_win_rate: float
    slot_b_win_rate: float
    tie_rate: Estimate  # single-order verdicts
    pairings: int  # both-orders pairings
    unpaired_calls: int
    swap_consistency: Estimate
    swap_consistency_exact: Estimate
    reversal_rate: Estimate
    both_orders_tie_rate: Estimate

    @property
    def flip_rate(self) -> Estimate:
        s = self.swap_consistency
        return Estimate(1.0 - s.value, 1.0 - s.high, 1.0 - s.low)


def position_stats(counts: VerdictCounts, *, rounds: int = 2000, seed: int = 0) -> PositionResult:
    """Position bias, tie rates and swap consistency with bootstrap-over-instructions intervals."""
    c = counts.counts.astype(np.float64)
    by_level = c.sum(axis=(1, 2))  # (I, 5)
    calls = by_level.sum(axis=1)
    win_a = by_level[:, _LEVELS > 0].sum(axis=1)
    win_b = by_level[:, _LEVELS < 0].sum(axis=1)
    tie = by_level[:, _LEVELS == 0].sum(axis=1)
    weights = (bootstrap_weights(counts.n_instructions, rounds, seed)
               if rounds and counts.n_instructions else None)
    paired = paired_verdicts(counts)
    joint = paired.per_instruction(counts.n_instructions)  # (I, 5, 5)
    pair_n = joint.sum(axis=(1, 2))
    combined = np.einsum("ikl,klc->ic", joint, _COMBINED_ONEHOT)
    total = calls.sum()
    return PositionResult(
        calls=int(total),
        position_bias_points=_estimate(win_a - win_b, calls, weights, 100.0),
        slot_a_win_rate=float(win_a.sum() / total) if total else float("nan"),
        slot_b_win_rate=float(win_b.sum() / total) if total else float("nan"),
        tie_rate=_estimate(tie, calls, weights),
        pairings=int(pair_n.sum()),
        unpaired_calls=paired.unpaired,
        swap_consistency=_estimate((joint * _SAME_OUTCOME).sum(axis=(1, 2)), pair_n, weights),
        swap_consistency_exact=_estimate((joint * _SAME_LEVEL).sum(axis=(1, 2)), pair_n, weights),
        reversal_rate=_estimate((joint * _OPPOSITE).sum(axis=(1, 2)), pair_n, weights),
        both_orders_tie_rate=_estimate(combined[:, LEVELS.index(0)], pair_n, weights),
    )


@dataclass(frozen=True)
class OrderSwap:
    """Seed 002, App. B: slot bias b (judge-wide) and q, b per anchor, with bootstrap intervals.

    ``by_anchor`` columns: anchor, opponents, calls_fwd (opponent in slot A), calls_rev, v_fwd,
    v_rev, q, q_low, q_high, b, b_low, b_high (verdict units; q > 0: the opponents are preferred
    to the anchor; b > 0: slot A is favoured).
    """

    b: Estimate
    pairs_both_orders: int  # model pairs seen in both slot orders
    by_anchor: pd.DataFrame
    rounds: int
    seed: int


def _pair_means(s: np.ndarray, n: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, s / np.where(n > 0, n, 1.0), np.nan)


def order_swap(counts: VerdictCounts, *, rounds: int = 2000, seed: int = 0,
               progress: Progress | None = None) -> OrderSwap:
    """q and b of the order-swap decomposition (DEFINITIONS.md, seed 002 App. B).

    Per ordered pair (a, b): v[a, b] = mean slot-A verdict with a in slot A, pooled over
    instructions. b_pair = (v[a,b] + v[b,a])/2; q_pair(a over b) = (v[a,b] − v[b,a])/2. The judge's
    b weights pairs by their calls; per anchor x, q(x) and b(x) average over x's opponents m with
    weights N[m,x] + N[x,m]. Bootstrap: instructions redrawn, every ratio recomputed.
    """
    c = counts.counts.astype(np.float64)
    m = counts.n_models
    s_inst = c @ _LEVELS.astype(np.float64)  # (I, M, M) sums of verdicts
    n_inst = c.sum(axis=-1)
    s_tot = s_inst.sum(axis=0)[None]
    n_tot = n_inst.sum(axis=0)[None]
    if rounds and counts.n_instructions:
        weights = bootstrap_weights(counts.n_instructions, rounds, seed)
        flat_s = s_inst.reshape(counts.n_instructions, -1)
        flat_n = n_inst.reshape(counts.n_instructions, -1)
        s_all = np.concatenate([s_tot, (weights @ flat_s).reshape(rounds, m, m)])
        n_all = np.concatenate([n_tot, (weights @ flat_n).reshape(rounds, m, m)])
    else:
        s_all, n_all = s_tot, n_tot
    if progress is not None:
        progress(0.5, "order-swap decomposition")
    v = _pair_means(s_all, n_all)  # (1 + R, M, M)
    vt = np.swapaxes(v, 1, 2)
    b_pair = 0.5 * (v + vt)
    q_pair = 0.5 * (v - vt)  # q_pair[r, a, b] = preference for a over b
    w_pair = n_all + np.swapaxes(n_all, 1, 2)
    both = np.isfinite(b_pair)
    w = np.where(both, w_pair, 0.0)
    upper = np.triu(np.ones((m, m), dtype=bool), k=1)
    wu = w * upper
    with np.errstate(invalid="ignore", divide="ignore"):
        b_judge = np.nansum(np.where(both, b_pair, 0.0) * wu, axis=(1, 2)) / wu.sum(axis=(1, 2))
        # per anchor x (column index): opponents m (row index), q = preference for m over x
        q_anchor = (np.where(both, q_pair, 0.0) * w).sum(axis=1) / w.sum(axis=1)
        b_anchor = (np.where(both, b_pair, 0.0) * w).sum(axis=1) / w.sum(axis=1)

    def interval(samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if samples.shape[0] == 0:
            nan = np.full(samples.shape[1:], np.nan)
            return nan, nan
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns stay NaN
            low, high = np.nanpercentile(samples, [2.5, 97.5], axis=0)
        return low, high

    bl, bh = interval(b_judge[1:, None])
    ql, qh = interval(q_anchor[1:])
    al, ah = interval(b_anchor[1:])
    n0 = n_all[0]
    v0 = v[0]
    opponents = both[0].sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        v_fwd = np.nansum(np.where(n0 > 0, v0 * n0, 0.0), axis=0) / n0.sum(axis=0)
        v_rev = np.nansum(np.where(n0 > 0, v0 * n0, 0.0), axis=1) / n0.sum(axis=1)
    table = pd.DataFrame({
        "anchor": list(counts.models),
        "opponents": opponents.astype(int),
        "calls_fwd": n0.sum(axis=0).astype(int),
        "calls_rev": n0.sum(axis=1).astype(int),
        "v_fwd": v_fwd,
        "v_rev": v_rev,
        "q": q_anchor[0],
        "q_low": ql,
        "q_high": qh,
        "b": b_anchor[0],
        "b_low": al,
        "b_high": ah,
    })
    table = table[table["opponents"] > 0].reset_index(drop=True)
    if progress is not None:
        progress(1.0, "order-swap decomposition done")
    return OrderSwap(
        b=Estimate(float(b_judge[0]), float(bl[0]), float(bh[0])),
        pairs_both_orders=int((both[0] & upper).sum()),
        by_anchor=table,
        rounds=rounds,
        seed=seed,
    )


# -- store queries: coverage and self-comparisons --------------------------------------------

_FILTER = "(? IS NULL OR judge = ?) AND (? IS NULL OR category = ?)"


@dataclass(frozen=True)
class Coverage:
    """Seed 003 §1: calls that returned no verdict, counted and never imputed.

    ``by_model``: model, calls, no_verdict, no_verdict_rate (a call counts for both its models).
    ``by_length``: length_bin (1 = shortest), length_min, length_max (characters or tokens, as the
    file gives them, summed over both responses), calls, no_verdict, no_verdict_rate; empty when
    the file has no lengths.
    """

    calls: int
    no_verdict: int
    by_model: pd.DataFrame
    by_length: pd.DataFrame

    @property
    def no_verdict_rate(self) -> float:
        return self.no_verdict / self.calls if self.calls else float("nan")


def coverage(store: VerdictStore, judge: str | None, category: str | None = None,
             *, length_bins: int = 5) -> Coverage:
    """No-verdict counts per judge, per model and per length bin (equal-count bins of
    length_a + length_b), aggregated in DuckDB with bound parameters."""
    params = [judge, judge, category, category]
    calls, missing = store.con.execute(
        f"SELECT count(*), count(*) FILTER (WHERE verdict IS NULL) FROM verdicts WHERE {_FILTER}",
        params).fetchone()
    by_model = store.con.execute(
        f"""
        WITH rows AS (SELECT model_a, model_b, verdict FROM verdicts WHERE {_FILTER}),
        long AS (SELECT model_a AS model, verdict FROM rows
                 UNION ALL SELECT model_b, verdict FROM rows WHERE model_a <> model_b)
        SELECT model, count(*) AS calls, count(*) FILTER (WHERE verdict IS NULL) AS no_verdict
        FROM long GROUP BY model ORDER BY model
        """, params).df()
    by_length = store.con.execute(
        f"""
        WITH rows AS (
            SELECT verdict, length_a + length_b AS length FROM verdicts
            WHERE {_FILTER} AND length_a IS NOT NULL AND length_b IS NOT NULL
              AND NOT isnan(length_a) AND NOT isnan(length_b)),
        binned AS (SELECT *, ntile(?) OVER (ORDER BY length) AS length_bin FROM rows)
        SELECT length_bin, min(length) AS length_min, max(length) AS length_max,
               count(*) AS calls, count(*) FILTER (WHERE verdict IS NULL) AS no_verdict
        FROM binned GROUP BY length_bin ORDER BY length_bin
        """, params + [int(length_bins)]).df()
    for frame in (by_model, by_length):
        frame["no_verdict_rate"] = frame["no_verdict"] / frame["calls"].where(frame["calls"] > 0)
    return Coverage(calls=int(calls), no_verdict=int(missing), by_model=by_model,
                    by_length=by_length)


@dataclass(frozen=True)
class SelfComparison:
    """Seed 002 §3.4: calls comparing a model with itself; any verdict but a tie is position."""

    calls: int  # with a verdict
    ties: int
    mean_verdict: float

    @property
    def tie_rate(self) -> float:
        return self.ties / self.calls if self.calls else float("nan")


def self_comparison(store: VerdictStore, judge: str | None, category: str | None = None
                    ) -> SelfComparison:
    calls, ties, mean = store.con.execute(
        f"""SELECT count(verdict), count(*) FILTER (WHERE verdict = 0), avg(verdict)
            FROM verdicts WHERE model_a = model_b AND {_FILTER}""",
        [judge, judge, category, category]).fetchone()
    return SelfComparison(calls=int(calls), ties=int(ties),
                          mean_verdict=float(mean) if mean is not None else float("nan"))


# -- the sheet -----------------------------------------------------------------------------------

#: For the side-by-side comparison: which direction is better for each sheet metric.
#: "abs" = closer to zero is better.
BEST_DIRECTION: dict[str, str] = {
    "position_bias_points": "abs",
    "swap_consistency": "max",
    "flip_rate": "min",
    "no_verdict_rate": "min",
    "slot_bias_b": "abs",
    "self_comparison_tie_rate": "max",
    "agreement": "max",
    "kappa": "max",
    "length_coefficient": "abs",
    "self_preference_elo": "abs",
}

#: One line per sheet metric: what it means and which definition it uses (shown in the UI).
DEFINITIONS: dict[str, str] = {
    "calls": "calls with a verdict between two different models",
    "slot_a_win_rate": "share of single-order verdicts won by slot A",
    "slot_b_win_rate": "share of single-order verdicts won by slot B",
    "pairings": "both-orders verdicts formed (each pairs a call in each order)",
    "unpaired_calls": "calls judged in one order only: no both-orders verdict, dropped from it",
    "swap_consistency_exact": "like swap consistency, but the same level on the full scale",
    "no_verdict_calls": "calls that returned no verdict",
    "pairs_both_orders": "model pairs seen in both slot orders (they carry b)",
    "self_comparison_calls": "calls comparing a model with itself, with a verdict",
    "self_comparison_mean_verdict": "mean verdict of self-comparisons (> 0: slot A favoured)",
    "labelled_calls": "calls with both a verdict and a human label",
    "human_ceiling_agreement": "one human label against the majority of the pair's other labels "
                               "(seed 003 §7)",
    "human_ceiling_kappa": "Cohen's κ of one human against the majority of the others",
    "length_rank_changes": "models whose rank changes when length is controlled",
    "ties_tie_probability": "Σp² of the verdict-level distribution (seed 002 App. D)",
    "ties_d1": "effective levels exp(Shannon entropy) (seed 002 App. D)",
    "ties_d2": "effective levels 1/Σp² (seed 002 App. D)",
    "ties_distinct_levels": "verdict levels used at least once",
    "position_bias_points": "P(slot A wins) − P(slot B wins) over single-order verdicts, ×100 "
                            "(seed 003 §3; > 0 favours the first slot)",
    "swap_consistency": "share of pairs judged in both orders whose two verdicts name the same "
                        "outcome from the same model's view (DEFINITIONS.md)",
    "flip_rate": "1 − swap consistency",
    "reversal_rate": "share of both-orders pairs where the two orders name opposite winners",
    "tie_rate": "share of single-order verdicts that are a tie",
    "both_orders_tie_rate": "share of both-orders verdicts that are a tie (a tie when the orders "
                            "disagree; seed 003 §1)",
    "no_verdict_rate": "calls that returned no verdict / all calls (never imputed; seed 003 §1)",
    "slot_bias_b": "b = (v_fwd + v_rev)/2 in verdict units (−2..+2), call-weighted over pairs "
                   "seen in both orders (seed 002 App. B; > 0 favours slot A)",
    "self_comparison_tie_rate": "ties among calls comparing a model with itself (seed 002 §3.4)",
    "agreement": "share of labelled calls where judge and human name the same outcome "
                 "(win / tie / loss; seed 003 §1)",
    "kappa": "Cohen's κ of judge vs human on labelled calls (3 classes)",
    "human_alpha": "Krippendorff's α (nominal) among human labels of the same pair",
    "length_coefficient": "length term of the length-controlled Bradley–Terry fit, Elo points per "
                          "standard deviation of the normalised length difference (seed 004)",
    "self_preference_elo": "how much more the judge rates its own family than the other judges "
                           "do, Elo points (seed 004)",
}


@dataclass(frozen=True)
class JudgeSheet:
    """The spec sheet of one judge (issue 4; seed 003 §1/§3/§7, seed 002 App. B, seed 004)."""

    judge: str | None
    category: str | None
    n_instructions: int
    n_models: int
    position: PositionResult
    order: OrderSwap
    coverage: Coverage | None
    self_comparison: SelfComparison | None
    agreement: object | None = None  # evalcore.agreement.HumanAgreement
    length: object | None = None  # evalcore.length.LengthControlled
    self_preference: object | None = None  # a row of evalcore.length.self_preference
    ties: dict | None = None  # evalcore.ties figures when that module is present
    notes: tuple[str, ...] = field(default_factory=tuple)

    # scalar accessors used by the comparison table and the CLI
    def scalars(self) -> dict[str, float | int | str | None]:
        p = self.position
        cov = self.coverage
        selfc = self.self_comparison
        out: dict[str, float | int | str | None] = {
            "judge": self.judge,
            "calls": p.calls,
            "position_bias_points": p.position_bias_points.value,
            "position_bias_points_low": p.position_bias_points.low,
            "position_bias_points_high": p.position_bias_points.high,
            "slot_a_win_rate": p.slot_a_win_rate,
            "slot_b_win_rate": p.slot_b_win_rate,
            "pairings": p.pairings,
            "unpaired_calls": p.unpaired_calls,
            "swap_consistency": p.swap_consistency.value,
            "swap_consistency_low": p.swap_consistency.low,
            "swap_consistency_high": p.swap_consistency.high,
            "swap_consistency_exact": p.swap_consistency_exact.value,
            "flip_rate": p.flip_rate.value,
            "flip_rate_low": p.flip_rate.low,
            "flip_rate_high": p.flip_rate.high,
            "reversal_rate": p.reversal_rate.value,
            "tie_rate": p.tie_rate.value,
            "tie_rate_low": p.tie_rate.low,
            "tie_rate_high": p.tie_rate.high,
            "both_orders_tie_rate": p.both_orders_tie_rate.value,
            "both_orders_tie_rate_low": p.both_orders_tie_rate.low,
            "both_orders_tie_rate_high": p.both_orders_tie_rate.high,
            "no_verdict_rate": cov.no_verdict_rate if cov else float("nan"),
            "no_verdict_calls": cov.no_verdict if cov else None,
            "slot_bias_b": self.order.b.value,
            "slot_bias_b_low": self.order.b.low,
            "slot_bias_b_high": self.order.b.high,
            "pairs_both_orders": self.order.pairs_both_orders,
            "self_comparison_calls": selfc.calls if selfc else None,
            "self_comparison_tie_rate": selfc.tie_rate if selfc else float("nan"),
            "self_comparison_mean_verdict": selfc.mean_verdict if selfc else float("nan"),
        }
        ag = self.agreement
        out.update({
            "labelled_calls": ag.n if ag else None,
            "agreement": ag.agreement if ag else float("nan"),
            "agreement_low": ag.agreement_low if ag else float("nan"),
            "agreement_high": ag.agreement_high if ag else float("nan"),
            "kappa": ag.kappa if ag else float("nan"),
            "kappa_low": ag.kappa_low if ag else float("nan"),
            "kappa_high": ag.kappa_high if ag else float("nan"),
            "human_alpha": ag.alpha if ag else float("nan"),
            "human_ceiling_agreement": ag.ceiling_agreement if ag else float("nan"),
            "human_ceiling_kappa": ag.ceiling_kappa if ag else float("nan"),
        })
        lc = self.length
        out["length_coefficient"] = lc.gamma_elo if lc else float("nan")
        out["length_coefficient_low"] = ELO_SCALE * lc.gamma_low if lc else float("nan")
        out["length_coefficient_high"] = ELO_SCALE * lc.gamma_high if lc else float("nan")
        out["length_rank_changes"] = lc.rank_changes if lc else None
        sp = self.self_preference
        out["self_preference_elo"] = sp["delta_elo"] if sp else float("nan")
        out["self_preference_elo_low"] = sp["delta_elo_low"] if sp else float("nan")
        out["self_preference_elo_high"] = sp["delta_elo_high"] if sp else float("nan")
        if self.ties:
            for key, value in self.ties.items():
                if isinstance(value, (int, float, np.integer, np.floating)):
                    out[f"ties_{key}"] = float(value)
        return out

    def table(self) -> pd.DataFrame:
        """The sheet as a tidy table: metric, value, low, high, definition (for CSV download)."""
        s = self.scalars()
        rows = []
        for key, value in s.items():
            if key.endswith("_low") or key.endswith("_high") or key == "judge":
                continue
            rows.append({"judge": self.judge, "metric": key, "value": value,
                         "low": s.get(f"{key}_low"), "high": s.get(f"{key}_high"),
                         "definition": DEFINITIONS.get(key, "")})
        return pd.DataFrame(rows)

    def as_dict(self) -> dict:
        out = dict(self.scalars())
        out.update({
            "category": self.category,
            "n_instructions": self.n_instructions,
            "n_models": self.n_models,
            "interval": "2.5-97.5 percentiles of a bootstrap over instructions",
            "bootstrap_rounds": self.order.rounds,
            "order_swap_by_anchor": self.order.by_anchor.to_dict(orient="records"),
            "coverage_by_model": (self.coverage.by_model.to_dict(orient="records")
                                  if self.coverage else None),
            "coverage_by_length": (self.coverage.by_length.to_dict(orient="records")
                                   if self.coverage else None),
            "agreement_detail": self.agreement.as_dict() if self.agreement is not None else None,
            "length_control": self.length.as_dict() if self.length is not None else None,
            "self_preference": dict(self.self_preference) if self.self_preference else None,
            "ties": self.ties,
            "notes": list(self.notes),
        })
        return out


def _as_store(source: VerdictStore | pd.DataFrame) -> VerdictStore:
    if isinstance(source, VerdictStore):
        return source
    store = VerdictStore()
    store.load(source)
    return store


def _ties_figures(counts: VerdictCounts) -> dict | None:
    """Verdict-level tie structure from :func:`evalcore.ties.level_stats` (seed 002 App. D: tie
    probability Σp², D1, D2, distinct levels of the verdict distribution; the tie-structure page
    has the rest)."""
    try:
        from evalcore.ties import level_stats
    except ImportError:
        return None
    try:
        stats = level_stats(counts.counts.sum(axis=(0, 1, 2)))
    except ValueError:
        return None
    return {"tie_probability": stats.tie_probability, "d1": stats.d1, "d2": stats.d2,
            "distinct_levels": stats.distinct}


def judge_sheet(
    source: VerdictStore | pd.DataFrame | VerdictCounts,
    judge: str | None,
    *,
    category: str | None = None,
    rounds: int = 2000,
    seed: int = 0,
    families: dict[str, str] | None = None,
    length_control: bool = True,
    self_preference_table: pd.DataFrame | None = None,
    progress: Progress | None = None,
) -> JudgeSheet:
    """Every spec-sheet figure for one judge (issue 4 items 1–3 and 5–6).

    ``source`` is a store, a canonical verdict frame or a :class:`VerdictCounts`. A count tensor
    holds no no-verdict rows, human labels or lengths, so coverage, agreement and length control
    are left out (``None``) for it. ``families`` (model or judge → family) adds the
    self-preference figure for a judge whose family is known; ``self_preference_table`` (the
    result of :func:`evalcore.length.self_preference`) saves recomputing it for every judge.
    """
    def step(f: float, text: str) -> None:
        if progress is not None:
            progress(f, text)

    if isinstance(source, pd.DataFrame):
        own = _as_store(source)
        try:
            return judge_sheet(own, judge, category=category, rounds=rounds, seed=seed,
                               families=families, length_control=length_control,
                               self_preference_table=self_preference_table, progress=progress)
        finally:
            own.close()
    notes: list[str] = []
    if isinstance(source, VerdictCounts):
        counts, store = source, None
    else:
        store = source
        judges = store.judges()
        if judge is not None and judge not in judges:
            raise ValueError(f"judge {judge!r} is not in the data; its judges are: "
                             + ", ".join(judges))
        if judge is None and len(judges) > 1:
            raise ValueError("the data has several judges (" + ", ".join(judges) + "): name "
                             "the one to measure; pooling judges would mix their biases.")
        counts = store.counts(judge=judge, category=category)
    if counts.n_models < 2 or counts.counts.sum() == 0:
        raise ValueError(
            f"judge {judge!r} has no verdict between two different models"
            + (f" in category {category!r}" if category else "")
            + ": a spec sheet needs at least one judged pair.")
    step(0.05, "position bias and swap consistency")
    position = position_stats(counts, rounds=rounds, seed=seed)
    if position.pairings == 0:
        notes.append("No pair was judged in both orders: swap consistency, the flip rate and the "
                     "both-orders tie rate need both orders and are not available.")
    step(0.2, "order-swap decomposition")
    order = order_swap(counts, rounds=rounds, seed=seed)
    if order.pairs_both_orders == 0:
        notes.append("No model pair was seen in both slot orders: the slot bias b cannot be "
                     "separated from the models' preference.")
    cov = selfc = agreement = length = selfpref = None
    if store is not None:
        step(0.35, "coverage")
        cov = coverage(store, judge, category)
        selfc = self_comparison(store, judge, category)
        step(0.45, "agreement with humans")
        from evalcore.agreement import human_agreement, labelled_rows

        rows = labelled_rows(store, judge, category)
        if len(rows):
            try:
                agreement = human_agreement(rows, rounds=min(rounds, 1000), seed=seed)
            except ValueError as exc:
                notes.append(str(exc))
        if length_control:
            step(0.6, "length-controlled Bradley–Terry")
            from evalcore.length import length_controlled_ranking

            try:
                length = length_controlled_ranking(store, judge, category)
            except ValueError as exc:
                notes.append(str(exc))
        if families and judge is not None and judge in families:
            step(0.75, "self-preference")
            from evalcore.length import self_preference

            try:
                table = (self_preference_table if self_preference_table is not None
                         else self_preference(store, families, category=category,
                                              rounds=min(rounds, 500), seed=seed))
                hit = table[table["judge"] == judge]
                if len(hit) and np.isfinite(hit["delta"].iloc[0]):
                    selfpref = {k: (v.item() if hasattr(v, "item") else v)
                                for k, v in hit.iloc[0].to_dict().items()}
                elif len(hit):
                    notes.append(f"Self-preference not available: {hit['note'].iloc[0]}.")
            except ValueError as exc:
                notes.append(str(exc))
    ties = _ties_figures(counts)
    step(1.0, "done")
    return JudgeSheet(
        judge=judge, category=category, n_instructions=counts.n_instructions,
        n_models=counts.n_models, position=position, order=order, coverage=cov,
        self_comparison=selfc, agreement=agreement, length=length, self_preference=selfpref,
        ties=ties, notes=tuple(notes),
    )


def judge_sheets(
    source: VerdictStore | pd.DataFrame,
    judges: tuple[str, ...] | list[str] | None = None,
    *,
    category: str | None = None,
    rounds: int = 2000,
    seed: int = 0,
    families: dict[str, str] | None = None,
    length_control: bool = True,
    progress: Progress | None = None,
) -> dict[str, JudgeSheet | str]:
    """The sheet of every judge (default: all judges of the store), in the store's order.

    A judge that cannot get a sheet (no verdict in the selection) maps to the reason, a string.
    The self-preference table is computed once for all judges.
    """
    if isinstance(source, pd.DataFrame):
        own = _as_store(source)
        try:
            return judge_sheets(own, judges, category=category, rounds=rounds, seed=seed,
                                families=families, length_control=length_control,
                                progress=progress)
        finally:
            own.close()
    store = source
    judges = tuple(judges) if judges is not None else store.judges()
    table = None
    if families and len(store.judges()) >= 2:
        from evalcore.length import self_preference

        table = self_preference(store, families, category=category, rounds=min(rounds, 500),
                                seed=seed)
    out: dict[str, JudgeSheet | str] = {}
    for n, name in enumerate(judges):
        def sub(f: float, text: str, n: int = n, name: str = name) -> None:
            if progress is not None:
                progress((n + f) / max(len(judges), 1), f"{name}: {text}")

        try:
            out[name] = judge_sheet(store, name, category=category, rounds=rounds, seed=seed,
                                    families=families, length_control=length_control,
                                    self_preference_table=table, progress=sub)
        except ValueError as exc:
            out[name] = str(exc)
    return out


def comparison_table(sheets: dict[str, JudgeSheet | str]) -> pd.DataFrame:
    """One row per judge with every scalar of its sheet (:meth:`JudgeSheet.scalars`) and a
    ``note``; a judge without a sheet gets its name and the reason."""
    rows = []
    for name, sheet in sheets.items():
        if isinstance(sheet, str):
            rows.append({"judge": name, "note": sheet})
            continue
        row = sheet.scalars()
        row["note"] = " ".join(sheet.notes)
        rows.append(row)
    return pd.DataFrame(rows)


def compare_judges(
    source: VerdictStore | pd.DataFrame,
    judges: tuple[str, ...] | list[str] | None = None,
    *,
    category: str | None = None,
    rounds: int = 2000,
    seed: int = 0,
    families: dict[str, str] | None = None,
    length_control: bool = True,
    progress: Progress | None = None,
) -> pd.DataFrame:
    """One row per judge with every scalar of its sheet (see :func:`comparison_table`)."""
    return comparison_table(judge_sheets(source, judges, category=category, rounds=rounds,
                                         seed=seed, families=families,
                                         length_control=length_control, progress=progress))


def best_marks(table: pd.DataFrame) -> pd.DataFrame:
    """Boolean frame (same shape as ``table``): True where a judge has the best value of a metric
    in :data:`BEST_DIRECTION` (ties all marked; NaN never best; needs two or more judges)."""
    marks = pd.DataFrame(False, index=table.index, columns=table.columns)
    if len(table) < 2:
        return marks
    for column, direction in BEST_DIRECTION.items():
        if column not in table.columns:
            continue
        values = pd.to_numeric(table[column], errors="coerce").astype("float64")
        if values.notna().sum() < 2:
            continue
        score = values.abs() if direction == "abs" else values
        best = score.max() if direction == "max" else score.min()
        marks[column] = np.isclose(score, best, rtol=0, atol=1e-12) & score.notna()
    return marks
