"""Money: how to spend a budget on judge calls and human labels for the narrowest interval.

The quantity is the head-to-head win rate of model A over model B (wins + ties/2 over verdicts,
from A's side), either as the judge prints it or corrected by human labels, and its Bradley–Terry
rating difference ``400·log10(w / (1 − w))``.

*Judge only.* With ``N`` judge calls of per-call score variance ``σ_f²`` the 95% interval's width
is ``2·z·σ_f / √N``; a budget ``B`` at ``c`` per call buys ``N = B / c``.

*Corrected by humans (prediction-powered).* The judge scores every one of ``N`` calls and a human
labels ``n`` of them; the estimate is the judge's mean plus the mean human-minus-judge gap on the
labelled calls (Angelopoulos, Bates, Fannjiang, Jordan and Zrnic, "Prediction-powered
inference", Science 2023; ``σ_r²`` the variance of the gap). The labelled calls are a random subset
of the judged ones, so the two means covary and the variance is ``(σ_h² − σ_r²) / N + σ_r² / n``
(``σ_h²`` the human scores' variance; ``σ_f²/N + σ_r²/n`` of independent samples overstated the
width by 15% in ``benchmarks/bench_budget.py``). Under ``N·c + n·h ≤ B`` (``c`` per call, ``h`` per
label) it is smallest at ``N ∝ √(σ_h² − σ_r²) / √c`` and ``n ∝ σ_r / √h`` (the Lagrange condition,
Neyman's allocation), which this planner uses; both variances are estimated from the loaded table. The
rating difference's width follows by the delta method, ``400 / (ln 10 · w(1 − w))`` Elo points per
unit of win rate; the quantity "rating_difference" plans that interval (the allocation is the win
rate's: the slope is a constant at the table's ``w``), from the human-corrected win rate when
labels have a price and the table has labels, else from the judge's own.

*Every size in money.* A size to collect (instructions, judge calls or human labels) converts to
judge calls by the design's calls per instruction (``M − 1`` against an anchor, ``M(M − 1)/2`` for
all pairs of ``M`` models, times the slot orders judged; Don-Yehiya, Yehudai, Choshen and Abend,
"Mediocrity is the key for LLM as a Judge Anchor Selection", 2026, §6) and to money by the prices
(:func:`size_cost`).

Which labels narrow it most: per slot order (A in slot A, A in slot B) the spread of the human
-minus-judge gap; the order with the larger spread gains more per label (Neyman again).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from math import comb
from typing import TYPE_CHECKING, Literal

import numpy as np
import pandas as pd

from evalcore.errors import DesignError, UsageError
from evalcore.text import fmt_count

if TYPE_CHECKING:
    from evalcore.counts import CountSource

Quantity = Literal["win_rate", "corrected_win_rate", "rating_difference"]
QUANTITIES: tuple[str, ...] = ("corrected_win_rate", "win_rate", "rating_difference")
Z95 = 1.959963984540054


#: The example budget and prices a budget plan starts on (:meth:`Prices.example`).
EXAMPLE_BUDGET, EXAMPLE_CALL, EXAMPLE_LABEL = 100.0, 0.01, 0.5


@dataclass(frozen=True)
class Prices:
    """What a judge call and a human label cost (any currency, the same for all)."""

    per_call: float
    per_label: float = 0.0

    @classmethod
    def from_tokens(
        cls,
        *,
        tokens_in: float,
        tokens_out: float,
        price_in_per_million: float,
        price_out_per_million: float,
        per_label: float = 0.0,
    ) -> Prices:
        """A call's price from its mean tokens and a price list per million tokens."""
        per_call = (tokens_in * price_in_per_million + tokens_out * price_out_per_million) / 1e6
        return cls(per_call=per_call, per_label=per_label)

    @classmethod
    def example(cls, per_call: float | None = None, per_label: float | None = None) -> Prices:
        """The prices a budget plan starts on (a policy, one place): those given, else one
        hundredth of a unit per judge call (a zero call price counts as not given: every call
        costs something) and half a unit per human label; examples to be overwritten, not estimates.

        Examples
        --------
        >>> Prices.example(), Prices.example(0.002, 0.0)
        (Prices(per_call=0.01, per_label=0.5), Prices(per_call=0.002, per_label=0.0))
        """
        return cls(float(per_call or EXAMPLE_CALL), EXAMPLE_LABEL if per_label is None else float(per_label))

    def money(self, *, calls: float = 0, labels: float = 0) -> float:
        """What ``calls`` judge calls and ``labels`` human labels cost."""
        return calls * self.per_call + labels * self.per_label


Design = Literal["anchor", "all pairs"]
SizeUnit = Literal["instructions", "judge calls", "human labels"]


def calls_per_instruction(
    n_models: int, *, design: Design = "anchor", orders: int = 1, anchors: int = 1
) -> int:
    """Judge calls one instruction costs: ``M − 1`` against an anchor, ``M(M − 1)/2`` for all pairs
    of ``M`` models, times the slot orders judged (1 or 2). With ``anchors`` = k anchors, every pair
    with at least one anchor in it: ``M(M − 1)/2 − (M − k)(M − k − 1)/2`` (k = 1 gives ``M − 1``;
    k = M − 1 every pair).

    References
    ----------
    Don-Yehiya, Yehudai, Choshen and Abend, "Mediocrity is the key for LLM as a Judge Anchor
    Selection", 2026, §6 (the cost of each design).

    Examples
    --------
    >>> calls_per_instruction(20, design="anchor", orders=1)
    19
    >>> calls_per_instruction(4, design="all pairs", orders=2)
    12
    >>> calls_per_instruction(6, anchors=2)
    9
    """
    if n_models < 2:
        raise UsageError(f"a design needs at least 2 models (got {n_models}).")
    if orders not in (1, 2):
        raise UsageError(f"orders must be 1 or 2 (got {orders}).")
    if design == "anchor":
        m, k = int(n_models), int(anchors)
        if not 1 <= k <= m - 1:
            raise UsageError(f"the anchors must number 1 to {m - 1} for {m} models (got {anchors}).")
        return (comb(m, 2) - comb(m - k, 2)) * orders
    if design == "all pairs":
        return comb(int(n_models), 2) * orders
    raise UsageError(f"design must be 'anchor' or 'all pairs' (got {design!r}).")


@dataclass(frozen=True)
class SizeCost:
    """A size to collect in judge calls, human labels and money.

    ``size`` in ``unit``; ``calls`` the judge calls it needs (instructions × calls per instruction,
    or the size itself when it counts calls; 0 for labels); ``labels`` the human labels;
    ``money`` what they cost at the prices (None without prices).
    """

    size: int
    unit: SizeUnit
    calls: int
    labels: int
    money: float | None

    def sentence(self) -> str:
        """E.g. "935 instructions, that is 17,765 judge calls, costing 177.65"."""
        text = f"{self.size:,} {self.unit}"
        if self.unit == "instructions":
            text += f", that is {self.calls:,} judge calls"
        if self.money is not None:
            text += f", costing {self.money:,.2f}"
        return text

    def as_dict(self) -> dict:
        return {"size": self.size, "unit": self.unit, "judge_calls": self.calls, "cost": self.money}


def size_cost(
    size: float,
    *,
    unit: SizeUnit = "instructions",
    per_instruction: int = 1,
    prices: Prices | None = None,
) -> SizeCost:
    """A size to collect in judge calls and money: instructions × ``per_instruction`` judge calls
    (:func:`calls_per_instruction`) × the price per call; judge calls × the price per call; human
    labels × the price per label. ``money`` is None without ``prices``.

    Examples
    --------
    >>> size_cost(935, per_instruction=19, prices=Prices(0.01)).sentence()
    '935 instructions, that is 17,765 judge calls, costing 177.65'
    >>> size_cost(40, unit="human labels", prices=Prices(0.01, 0.5)).money
    20.0
    """
    if not size >= 0 or math.isinf(size):
        raise UsageError(f"a size must be a finite number of 0 or more (got {size}).")
    n = int(math.ceil(size))
    if unit == "instructions":
        calls, labels = n * int(per_instruction), 0
    elif unit == "judge calls":
        calls, labels = n, 0
    elif unit == "human labels":
        calls, labels = 0, n
    else:
        raise UsageError(f"unit must be instructions, judge calls or human labels (got {unit!r}).")
    money = prices.money(calls=calls, labels=labels) if prices is not None else None
    return SizeCost(size=n, unit=unit, calls=calls, labels=labels, money=money)


def cost_text(
    size: float,
    *,
    unit: SizeUnit = "instructions",
    per_instruction: int = 1,
    per_call: float | None = None,
    per_label: float | None = None,
) -> str:
    """:func:`size_cost` in words for prices that may be missing: the money is left out when the
    size's price (per call, or per label for labels) is not given; "" when neither price is given
    or the size is not a finite number."""
    if (per_call is None and per_label is None) or not math.isfinite(size) or size < 0:
        return ""
    price = per_label if unit == "human labels" else per_call
    prices = Prices(per_call=per_call or 0.0, per_label=per_label or 0.0) if price is not None else None
    return size_cost(size, unit=unit, per_instruction=per_instruction, prices=prices).sentence()


@dataclass(frozen=True)
class BudgetPlan:
    """The allocation of a budget giving the narrowest 95% interval on ``quantity``.

    ``calls``: judge calls to buy (each a verdict of A against B); ``labels``: of those, how many a
    human labels (0 for the judge-only win rate); ``predicted_width``: the 95% interval's width on
    the win rate (a fraction) and ``predicted_width_elo`` in Elo points; ``label_orders``: per slot
    order, the labelled calls, the spread of the human-minus-judge gap and the share of labels
    that order should get.
    """

    quantity: Quantity
    model_a: str
    model_b: str
    budget: float
    prices: Prices
    calls: int
    labels: int
    win_rate: float
    judge_sd: float
    gap_sd: float
    predicted_width: float
    predicted_width_elo: float
    spent: float
    label_orders: pd.DataFrame = field(default_factory=pd.DataFrame)
    notes: tuple[str, ...] = ()

    def sentence(self) -> str:
        what = "human-corrected win rate" if self.labels else "win rate"
        labels = f" and {self.labels:,} human labels" if self.labels else ""
        if self.quantity == "rating_difference":
            return (
                f"With {self.budget:,.2f} to spend, buy {self.calls:,} judge calls of {self.model_a} against "
                f"{self.model_b}{labels} (cost {self.spent:,.2f}): the 95% interval on their rating "
                f"difference (from the {what}) is then about {self.predicted_width_elo:,.0f} Elo points "
                f"wide (±{self.predicted_width_elo / 2:,.0f})."
            )
        return (
            f"With {self.budget:,.2f} to spend, buy {self.calls:,} judge calls of {self.model_a} against "
            f"{self.model_b}{labels} (cost {self.spent:,.2f}): the 95% interval on the {what} is then "
            f"about {100 * self.predicted_width:.1f} percentage points wide "
            f"(±{self.predicted_width_elo / 2:,.0f} Elo points on the rating difference)."
        )

    def as_dict(self) -> dict:
        return {
            "quantity": self.quantity,
            "model_a": self.model_a,
            "model_b": self.model_b,
            "budget": self.budget,
            "price_per_call": self.prices.per_call,
            "price_per_label": self.prices.per_label,
            "calls_to_buy": self.calls,
            "labels_to_buy": self.labels,
            "spent": self.spent,
            "head_to_head_win_rate": self.win_rate,
            "predicted_width": self.predicted_width,
            "predicted_width_elo": self.predicted_width_elo,
            "sentence": self.sentence(),
            "label_orders": self.label_orders.to_dict(orient="records"),
            "notes": list(self.notes),
        }


def allocate(*, budget: float, prices: Prices, judge_sd: float, gap_sd: float | None) -> tuple[int, int]:
    """(calls, labels) minimising ``judge_sd²/N + gap_sd²/n`` (``judge_sd``: the calls' term, see
    the module docstring) under ``N·c + n·h ≤ budget`` with
    ``n ≤ N`` (``gap_sd`` None: judge only, ``n = 0``). Rounded down, so never over budget."""
    c, h = prices.per_call, prices.per_label
    if budget <= 0 or c <= 0:
        raise UsageError("the budget and the price per call must be above 0.")
    if gap_sd is None:
        return int(budget / c + 1e-9), 0  # 10 / 0.02 is 499.99… in floating point
    if h <= 0:
        raise UsageError("a corrected win rate needs a price per human label above 0.")
    # Lagrange: N ∝ σ_f/√c, n ∝ σ_r/√h; scaled to spend the budget
    wn, wl = judge_sd / math.sqrt(c), gap_sd / math.sqrt(h)
    k = budget / (wn * c + wl * h)
    calls, labels = int(k * wn), int(k * wl)
    if labels > calls:  # every labelled call is also judged
        calls = labels = int(budget / (c + h) + 1e-9)
    return calls, labels


def predicted_width(*, calls: int, labels: int, judge_sd: float, gap_sd: float | None) -> float:
    """Width of the 95% interval on the (corrected) win rate for this allocation."""
    if calls < 1 or (gap_sd is not None and labels < 1):
        return math.inf
    var = judge_sd**2 / calls + ((gap_sd**2 / labels) if gap_sd is not None else 0.0)
    return 2 * Z95 * math.sqrt(var)


def elo_per_win_rate(w: float) -> float:
    """Elo points per unit of win rate at ``w`` (the delta method's slope)."""
    w = min(max(w, 0.01), 0.99)
    return 400.0 / (math.log(10) * w * (1 - w))


def _pair_rows(store: CountSource, judge: str | None, a: str, b: str) -> pd.DataFrame:
    return store.query("pair_scores", judge=judge, model_a=a, model_b=b)


def plan_budget(
    store: CountSource,
    *,
    model_a: str,
    model_b: str,
    budget: float,
    prices: Prices,
    quantity: Quantity = "corrected_win_rate",
    judge: str | None = None,
) -> BudgetPlan:
    """Spend ``budget`` on judge calls (and human labels) of ``model_a`` against ``model_b`` so
    that the 95% interval on ``quantity`` is narrowest, with the variances of this table's calls
    (prediction-powered variance, Angelopoulos et al. 2023; Neyman allocation).

    ``quantity``: "corrected_win_rate" (human-corrected), "win_rate" (the judge's own) or
    "rating_difference" (the Bradley–Terry rating difference in Elo points, its width by the delta
    method from the corrected win rate when labels have a price and the table has at least two,
    else from the judge's own; the allocation is the win rate's)."""
    if quantity not in QUANTITIES:
        raise UsageError(f"quantity must be one of {', '.join(QUANTITIES)} (got {quantity!r}).")
    known = set(store.models())
    for m in (model_a, model_b):
        if m not in known:
            raise UsageError(f"model {m!r} is not in this table; pick one of its {len(known):,} models.")
    rows = _pair_rows(store, judge, model_a, model_b)
    if len(rows) < 2:
        raise DesignError(
            f"{model_a} and {model_b} have {fmt_count(len(rows), 'head-to-head verdict')}; the planner needs at "
            "least two to estimate their spread."
        )
    f = np.where(rows["model_a"] == model_a, rows["f"], 1 - rows["f"])
    h = np.where(rows["model_a"] == model_a, rows["h"], 1 - rows["h"])
    judge_sd = float(np.std(f, ddof=1))
    labelled = ~np.isnan(h)
    notes: list[str] = []
    gap_sd: float | None = None
    orders = pd.DataFrame()
    corrected = quantity == "corrected_win_rate"
    if quantity == "rating_difference":
        # the rating difference of the human-corrected win rate when labels can be bought and
        # the table has some to measure the judge's errors on, else of the judge's own
        corrected = prices.per_label > 0 and labelled.sum() >= 2
        notes.append(
            "The rating difference is taken from the "
            + (
                "human-corrected win rate."
                if corrected
                else "judge's own win rate (no labels to buy or none in the table)."
            )
        )
    if corrected:
        if labelled.sum() < 2:
            raise DesignError(
                f"{model_a} against {model_b} has {fmt_count(int(labelled.sum()), 'human-labelled call')}; the "
                "corrected win rate needs at least two to estimate the judge's error spread."
            )
        gap = h[labelled] - f[labelled]
        gap_sd = float(np.std(gap, ddof=1))
        floor = math.sqrt(0.25 / (len(gap) + 1))  # as if one more labelled call disagreed by a half
        if gap_sd < floor:
            notes.append(
                f"The judge and the humans agree on all {len(gap):,} labelled calls; the plan assumes "
                "a small disagreement, as if one more call differed by a tie."
            )
            gap_sd = floor
        # the labelled calls are among the judged ones: the calls' term is var(h) − var(h − f)
        judge_sd = math.sqrt(max(float(np.var(h[labelled], ddof=1)) - gap_sd**2, 1e-6))
        slot = np.where(rows["model_a"][labelled] == model_a, f"{model_a} in slot A", f"{model_a} in slot B")
        orders = (
            pd.DataFrame({"order": slot, "gap": gap})
            .groupby("order")["gap"]
            .agg(labelled="size", gap_sd=lambda g: float(np.std(g, ddof=1)) if len(g) > 1 else float("nan"))
            .reset_index()
        )
        weight = orders["gap_sd"].fillna(0.0)
        orders["label_share"] = weight / weight.sum() if weight.sum() > 0 else 1.0 / len(orders)
        orders = orders.sort_values("label_share", ascending=False, ignore_index=True)
        if labelled.sum() < 30:
            notes.append(
                f"The judge's error spread rests on {int(labelled.sum())} labelled calls; the plan's width "
                "is rough until about 30."
            )
    calls, labels = allocate(budget=budget, prices=prices, judge_sd=judge_sd, gap_sd=gap_sd)
    width = predicted_width(calls=calls, labels=labels, judge_sd=judge_sd, gap_sd=gap_sd)
    w = float(np.mean(f) + (np.mean(h[labelled] - f[labelled]) if gap_sd is not None else 0.0))
    if calls < 1 or (gap_sd is not None and labels < 1):
        raise UsageError(
            f"a budget of {budget:,.2f} buys no {'label' if calls else 'judge call'} at these prices; "
            "raise the budget."
        )
    return BudgetPlan(
        quantity=quantity,
        model_a=model_a,
        model_b=model_b,
        budget=budget,
        prices=prices,
        calls=calls,
        labels=labels,
        win_rate=w,
        judge_sd=judge_sd,
        gap_sd=gap_sd if gap_sd is not None else 0.0,
        predicted_width=width,
        predicted_width_elo=width * elo_per_win_rate(w),
        spent=prices.money(calls=calls, labels=labels),
        label_orders=orders,
        notes=tuple(notes),
    )


def file_prices(
    path: str, *, per_label: float, price_in: float | None, price_out: float | None
) -> Prices | None:
    """A call's price from the file's optional ``cost`` column (mean per call), else from mean
    ``tokens_in``/``tokens_out`` and the prices per million tokens; None when neither is there.
    Other columns of the file are not read (DuckDB reads only these)."""
    import duckdb

    con = duckdb.connect()
    try:
        # only the header: the columns DuckDB's reader finds
        columns = set(con.sql("SELECT * FROM " + _reader(path) + " LIMIT 0").columns)
        if "cost" in columns:
            mean = con.execute("SELECT avg(TRY_CAST(cost AS DOUBLE)) FROM " + _reader(path)).fetchone()
            if mean and mean[0] is not None:
                return Prices(per_call=float(mean[0]), per_label=per_label)
        if {"tokens_in", "tokens_out"} <= columns and price_in is not None and price_out is not None:
            tin, tout = con.execute(
                "SELECT avg(TRY_CAST(tokens_in AS DOUBLE)), avg(TRY_CAST(tokens_out AS DOUBLE)) FROM "
                + _reader(path)
            ).fetchone() or (None, None)
            if tin is not None and tout is not None:
                return Prices.from_tokens(
                    tokens_in=tin,
                    tokens_out=tout,
                    price_in_per_million=price_in,
                    price_out_per_million=price_out,
                    per_label=per_label,
                )
        return None
    finally:
        con.close()


def _reader(path: str) -> str:
    from evalcore._sql import sql_literal

    lower = path.lower()
    if lower.endswith(".parquet"):
        return f"read_parquet({sql_literal(path)})"
    if lower.endswith((".jsonl", ".ndjson", ".json")):
        return f"read_json_auto({sql_literal(path)})"
    return f"read_csv_auto({sql_literal(path)}, all_varchar = true)"


def achieved_width(
    plan: BudgetPlan, judge_scores: np.ndarray, human_scores: np.ndarray, *, runs: int = 400, seed: int = 0
) -> float:
    """Carry ``plan`` out ``runs`` times on a population of calls (A's judge and human scores):
    draw its calls, label the first ``labels`` of them, estimate; return the width 2·1.96·SD of
    the estimates (the interval the plan really achieves), in Elo points for the rating
    difference (each estimate turned into ``400·log10(w / (1 − w))``)."""
    rng = np.random.default_rng(seed)
    f, h = np.asarray(judge_scores, float), np.asarray(human_scores, float)
    if plan.calls > len(f):
        raise UsageError(f"the population has {len(f):,} calls; the plan needs {plan.calls:,}.")
    estimates = np.empty(runs)
    for r in range(runs):
        pick = rng.choice(len(f), size=plan.calls, replace=False)
        est = f[pick].mean()
        if plan.labels:
            lab = pick[: plan.labels]  # a random subset: pick is in random order
            est += (h[lab] - f[lab]).mean()
        estimates[r] = est
    if plan.quantity == "rating_difference":  # the width on the Elo scale, without the delta method
        w = np.clip(estimates, 1e-6, 1 - 1e-6)
        estimates = 400.0 * np.log10(w / (1 - w))
    return float(2 * Z95 * estimates.std(ddof=1))
