"""Money with anchors: how many anchors, instructions and human labels a budget should buy.

The design judges every model of the table against ``k`` anchor models on each instruction (the
pairs with at least one anchor in them, :func:`evalcore.power.budget.calls_per_instruction`), so
one instruction costs more judge calls as ``k`` grows, and the budget buys fewer instructions. The
quantity the user picks is about two models A and B (neither an anchor): their rating difference
in Elo points ``Δ = 400·log10(w_A / (1 − w_A)) − 400·log10(w_B / (1 − w_B))`` with ``w`` a model's
win rate against the anchors (the one-anchor ranking's rating, Don-Yehiya, Yehudai, Choshen and
Abend, "Mediocrity is the key for LLM as a Judge Anchor Selection", 2026, pooled over the
anchors), or the head-to-head win rate of A over B that it implies, ``1 / (1 + 10^(−Δ/400))``
(the same quantity whatever the anchors, so the widths of different ``k`` compare).

*Per instruction.* On instruction ``i`` model A's score ``s_A(i)`` is its mean score (win 1, tie
½) against the ``k`` anchors; by the delta method the rating difference's error is the mean over
instructions of ``t(i) = (400 / ln 10)·(s_A(i) / (w_A(1 − w_A)) − s_B(i) / (w_B(1 − w_B)))`` (the
win rate's width is the Elo width times ``(ln 10 / 400)·w(1 − w)`` at the implied win rate). Its variance over instructions is the average of the
anchors' covariances: each anchor's own term is the sign test's variance of the pair's difference
against that anchor (the share of instructions where A and B's verdicts against it differ, less
the squared mean difference), the cross terms the instruction's shared difficulty, which more
anchors do not average away. It is measured on the loaded table for each ``k``, so the table must
hold A's and B's calls against the anchors on the same instructions (an all-pairs pilot holds
them for every ``k``).

*Labels.* A labelled instruction has a human label on each of A's and B's calls against the
anchors (``2·k`` labels per slot order). The estimate is corrected by the mean human-minus-judge
gap of ``t`` on the labelled instructions (prediction-powered inference, Angelopoulos, Bates,
Fannjiang, Jordan and Zrnic, Science 2023); with ``N`` instructions and ``n`` labelled ones its
variance is ``(σ_h² − σ_r²) / N + σ_r² / n`` and the budget is split between them by Neyman's
allocation (:func:`evalcore.power.budget.allocate`, with an instruction's and a labelled
instruction's price).

*Which anchors.* ``k`` anchors are the ``k`` most informative models of the table (anchor
informativeness, the share of model pairs whose verdicts against the anchor differ; the same
paper), A and B left out. For each ``k`` the plan predicts the 95% interval's width; the
narrowest is chosen.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from evalcore.errors import DesignError, UsageError
from evalcore.power.budget import (
    QUANTITIES,
    Z95,
    Prices,
    Quantity,
    allocate,
    calls_per_instruction,
    predicted_width,
)
from evalcore.stats.against import disagreement_totals, max_models_per_instruction, verdicts_against
from evalcore.text import fmt_count

if TYPE_CHECKING:
    from evalcore.counts import CountSource

ELO = 400.0 / math.log(10)


@dataclass(frozen=True)
class AnchorBudgetPlan:
    """For a budget, the number of anchors (and instructions and labels) with the narrowest interval.

    ``options``: one row per number of anchors ``k``: ``anchors`` (k), ``anchor_models`` (their
    names, most informative first), ``instructions`` (affordable), ``judge_calls``,
    ``labelled_instructions``, ``labels``, ``spent``, ``predicted_width`` (on the implied
    head-to-head win rate, a fraction), ``predicted_width_elo`` (on the rating difference) and ``pilot_instructions`` (the table's
    instructions the width was measured on). ``chosen``: the k of the narrowest.
    """

    quantity: Quantity
    model_a: str
    model_b: str
    budget: float
    prices: Prices
    n_models: int
    orders: int
    corrected: bool
    chosen: int
    options: pd.DataFrame = field(default_factory=pd.DataFrame)
    notes: tuple[str, ...] = ()

    @property
    def best(self) -> pd.Series:
        return self.options.loc[self.options["anchors"] == self.chosen].iloc[0]

    @property
    def width_column(self) -> str:
        """The options' column of the quantity picked."""
        return "predicted_width_elo" if self.quantity == "rating_difference" else "predicted_width"

    def width_text(self, width: float) -> str:
        if self.quantity == "rating_difference":
            return f"{width:,.0f} Elo points"
        return f"{100 * width:.1f} percentage points"

    def sentence(self) -> str:
        b = self.best
        what = "rating difference" if self.quantity == "rating_difference" else "head-to-head win rate"
        labels = f" and human labels on {int(b['labelled_instructions']):,} of them" if b["labels"] else ""
        count = f"{self.chosen} anchors" if self.chosen > 1 else "1 anchor"
        verb = "give" if self.chosen > 1 else "gives"
        return (
            f"Judging all {self.n_models} models against anchors, {count} "
            f"({', '.join(b['anchor_models'])}) {verb} the narrowest interval for {self.model_a} against "
            f"{self.model_b}: {int(b['instructions']):,} instructions ({int(b['judge_calls']):,} judge "
            f"calls){labels} for {float(b['spent']):,.2f}; the 95% interval on their {what} is then about "
            f"{self.width_text(float(b[self.width_column]))} wide."
        )

    def as_dict(self) -> dict:
        return {
            "quantity": self.quantity,
            "model_a": self.model_a,
            "model_b": self.model_b,
            "budget": self.budget,
            "n_models": self.n_models,
            "anchors_chosen": self.chosen,
            "anchor_options": [
                {
                    "anchors": int(r.anchors),
                    "anchor_models": list(r.anchor_models),
                    "instructions_affordable": int(r.instructions),
                    "judge_calls": int(r.judge_calls),
                    "labelled_instructions": int(r.labelled_instructions),
                    "labels_to_buy": int(r.labels),
                    "spent": float(r.spent),
                    "predicted_width": float(r.predicted_width),
                    "predicted_width_elo": float(r.predicted_width_elo),
                    "pilot_instructions": int(r.pilot_instructions),
                }
                for r in self.options.itertuples()
            ],
            "sentence": self.sentence(),
            "notes": list(self.notes),
        }


def anchor_order(store: CountSource, judge: str | None, exclude: tuple[str, ...]) -> list[str]:
    """The table's models other than ``exclude``, most informative anchor first (the share of
    model pairs whose verdicts against it differ, compared within slot orders); models no
    instruction holds two others against are left out."""
    counts = store.counts(judge=judge)
    against = verdicts_against(counts)
    scored: list[tuple[float, str]] = []
    for x, name in enumerate(counts.models):
        if name in exclude:
            continue
        entries = against.of(x)
        if max_models_per_instruction(entries) < 2:
            continue
        d, p = disagreement_totals(entries)
        if p:
            scored.append((d / p, name))
    return [name for _, name in sorted(scored, key=lambda s: (-s[0], s[1]))]


def instruction_scores(frame: pd.DataFrame, model_a: str, model_b: str, anchors: list[str]) -> pd.DataFrame:
    """Per instruction where A and B both have calls against every one of ``anchors``: ``a_f``,
    ``b_f`` (their mean judge scores against the anchors) and ``a_h``, ``b_h`` (the human's; NaN
    unless every one of those (model, anchor) cells has a label). ``frame`` as the store's
    ``anchor_scores`` query gives it."""
    return _scores_of_cells(_anchor_cells(frame, model_a, model_b), model_a, model_b, anchors)


def _anchor_cells(frame: pd.DataFrame, model_a: str, model_b: str) -> pd.DataFrame:
    """A's and B's mean judge and human scores per (instruction, model, anchor) cell, every
    anchor of ``frame``: computed once for the plan's every number of anchors (a cell's means do
    not depend on which other anchors are counted)."""
    rows = frame[frame["model"].isin([model_a, model_b])]
    return (
        rows.groupby(["instruction_id", "model", "anchor"])
        .agg(f=("f", "mean"), h=("h", "mean"))
        .reset_index()
    )


def _scores_of_cells(cells: pd.DataFrame, model_a: str, model_b: str, anchors: list[str]) -> pd.DataFrame:
    """:func:`instruction_scores` from :func:`_anchor_cells`."""
    k = len(anchors)
    per = (
        cells[cells["anchor"].isin(anchors)]
        .groupby(["instruction_id", "model"])
        .agg(f=("f", "mean"), h=("h", "mean"), cells=("f", "size"), labelled=("h", "count"))
    )
    per = per[per["cells"] == k]
    per.loc[per["labelled"] < k, "h"] = np.nan
    wide = per[["f", "h"]].unstack("model")
    out = pd.DataFrame(index=wide.index)
    for side, model in (("a", model_a), ("b", model_b)):
        out[f"{side}_f"] = wide["f"][model] if model in wide["f"] else np.nan
        out[f"{side}_h"] = wide["h"][model] if model in wide["h"] else np.nan
    return out.dropna(subset=["a_f", "b_f"]).reset_index(drop=True)


def _slopes(w_a: float, w_b: float) -> tuple[float, float]:
    """Weights on s_A and s_B in ``t``: the delta method's for the rating difference."""
    wa, wb = (min(max(w, 0.01), 0.99) for w in (w_a, w_b))
    return ELO / (wa * (1 - wa)), ELO / (wb * (1 - wb))


def estimate(sa, sb, quantity: str):
    """The quantity from A's and B's (corrected) win rates against the anchors: their rating
    difference, or the head-to-head win rate it implies (numbers or arrays)."""
    wa, wb = np.clip(sa, 1e-6, 1 - 1e-6), np.clip(sb, 1e-6, 1 - 1e-6)
    delta = ELO * (np.log(wa / (1 - wa)) - np.log(wb / (1 - wb)))
    return delta if quantity == "rating_difference" else implied_win_rate(delta)


def implied_win_rate(delta):
    """The head-to-head win rate of a rating difference ``delta`` (Elo points)."""
    return 1.0 / (1.0 + 10.0 ** (-delta / 400.0))


def _variances(scores: pd.DataFrame, corrected: bool) -> tuple[float, float | None, int, float, bool]:
    """(calls' term SD, gap SD or None, labelled instructions, the rating difference, whether the
    gap's SD was floored) of ``t`` (Elo points) on the table."""
    floored = False
    lab = scores.dropna(subset=["a_h", "b_h"])
    gap_a = lab["a_h"] - lab["a_f"]
    gap_b = lab["b_h"] - lab["b_f"]
    w_a = float(scores["a_f"].mean() + (gap_a.mean() if corrected and len(lab) else 0.0))
    w_b = float(scores["b_f"].mean() + (gap_b.mean() if corrected and len(lab) else 0.0))
    ka, kb = _slopes(w_a, w_b)
    delta = float(estimate(w_a, w_b, "rating_difference"))
    t_f = ka * scores["a_f"] - kb * scores["b_f"]
    if not corrected:
        return float(t_f.std(ddof=1)), None, 0, delta, floored
    if len(lab) < 2:
        raise DesignError(
            f"{fmt_count(len(lab), 'instruction')} {'has' if len(lab) == 1 else 'have'} human labels on all of the two models' calls against the "
            "anchors; the corrected width needs at least two."
        )
    t_h = ka * lab["a_h"] - kb * lab["b_h"]
    gap_sd = float((t_h - (ka * lab["a_f"] - kb * lab["b_f"])).std(ddof=1))
    floor = math.sqrt(0.25 / (len(lab) + 1)) * (ka + kb) / 2  # as if one more label differed by a tie
    if gap_sd < floor:
        floored, gap_sd = True, floor
    calls_sd = math.sqrt(max(float(t_h.var(ddof=1)) - gap_sd**2, 1e-6 * (ka + kb) ** 2))
    return calls_sd, gap_sd, len(lab), delta, floored


def table_orders(frame: pd.DataFrame) -> int:
    """Calls per (instruction, model, anchor) cell on the table: 2 when both slot orders are judged."""
    per_cell = frame.groupby(["instruction_id", "model", "anchor"]).size()
    return 2 if len(per_cell) and float(per_cell.median()) >= 1.5 else 1


def plan_anchor_budget(
    store: CountSource,
    *,
    model_a: str,
    model_b: str,
    budget: float,
    prices: Prices,
    quantity: Quantity = "rating_difference",
    judge: str | None = None,
    max_anchors: int | None = None,
) -> AnchorBudgetPlan:
    """For ``budget``, the number of anchors, instructions and labelled instructions that gives the
    narrowest 95% interval on ``quantity`` for ``model_a`` against ``model_b`` when every model of
    the table is judged against the anchors (see the module's description).

    ``quantity``: "rating_difference" (Elo points; corrected by labels when labels have a price
    and the table has labelled instructions), "corrected_win_rate" or "win_rate" (the head-to-head
    win rate the rating difference implies, corrected by labels or the judge's own)."""
    if quantity not in QUANTITIES:
        raise UsageError(f"quantity must be one of {', '.join(QUANTITIES)} (got {quantity!r}).")
    models = list(store.models())
    for m in (model_a, model_b):
        if m not in models:
            raise UsageError(f"model {m!r} is not in this table; pick one of its {len(models):,} models.")
    if model_a == model_b:
        raise UsageError("pick two different models.")
    order = anchor_order(store, judge, (model_a, model_b))
    if max_anchors is not None:
        order = order[: max(int(max_anchors), 1)]
    if not order:
        raise DesignError(
            f"no model of this table has {model_a} and {model_b} judged against it on the same "
            "instructions; the anchors' widths cannot be measured."
        )
    frame = store.query("anchor_scores", judge=judge, models=[model_a, model_b], anchors=order)
    orders = table_orders(frame)
    cells = _anchor_cells(frame, model_a, model_b)
    corrected = quantity == "corrected_win_rate" or (
        quantity == "rating_difference"
        and prices.per_label > 0
        and len(_scores_of_cells(cells, model_a, model_b, order[:1]).dropna()) >= 2
    )
    rows, notes = [], []
    agree_from = 0  # the fewest anchors on whose labelled instructions judge and humans agree
    for k in range(1, len(order) + 1):
        anchors = order[:k]
        scores = _scores_of_cells(cells, model_a, model_b, anchors)
        if len(scores) < 2 or (corrected and len(scores.dropna()) < 2):
            break  # more anchors leave too few shared instructions to measure on
        calls_sd, gap_sd, labelled, delta, floored = _variances(scores, corrected)
        if floored and not agree_from:
            agree_from = k
        per_inst = calls_per_instruction(len(models), anchors=k, orders=orders)
        per_lab = 2 * k * orders
        inst_prices = Prices(per_call=prices.per_call * per_inst, per_label=prices.per_label * per_lab)
        n_inst, n_lab = allocate(budget=budget, prices=inst_prices, judge_sd=calls_sd, gap_sd=gap_sd)
        width_elo = predicted_width(calls=n_inst, labels=n_lab, judge_sd=calls_sd, gap_sd=gap_sd)
        w = float(implied_win_rate(delta))
        width = width_elo * w * (1 - w) / ELO
        rows.append(
            {
                "anchors": k,
                "anchor_models": tuple(anchors),
                "instructions": n_inst,
                "judge_calls": n_inst * per_inst,
                "labelled_instructions": n_lab,
                "labels": n_lab * per_lab,
                "spent": prices.money(calls=n_inst * per_inst, labels=n_lab * per_lab),
                "predicted_width": width,
                "predicted_width_elo": width_elo,
                "pilot_instructions": labelled if corrected else len(scores),
            }
        )
    if not rows:
        raise DesignError(
            f"{model_a} and {model_b} share fewer than two instructions judged against the most "
            f"informative anchor{' with human labels' if corrected else ''}; the width cannot be measured."
        )
    options = pd.DataFrame(rows)
    column = "predicted_width_elo" if quantity == "rating_difference" else "predicted_width"
    finite = options[np.isfinite(options[column])]
    if finite.empty:
        raise UsageError(
            f"a budget of {budget:,.2f} buys no instruction with its labels at these prices; raise it."
        )
    chosen = int(finite.loc[finite[column].idxmin(), "anchors"])
    if agree_from:
        notes.append(
            ("With one anchor" if agree_from == 1 else f"From {agree_from} anchors on")
            + ", the judge and the humans (nearly) always agree on the labelled "
            "instructions of this table; the plan assumes a small disagreement, as if one more "
            "instruction differed by a tie."
        )
    if int(options["pilot_instructions"].min()) < 30:
        notes.append(
            f"Some widths rest on {int(options['pilot_instructions'].min())} instructions of this table; "
            "they are rough until about 30."
        )
    if len(options) < len(order):
        notes.append(
            f"Only up to {fmt_count(len(options), 'anchor')} could be measured: with more, too few instructions "
            "hold both models against every anchor."
        )
    return AnchorBudgetPlan(
        quantity=quantity,
        model_a=model_a,
        model_b=model_b,
        budget=budget,
        prices=prices,
        n_models=len(models),
        orders=orders,
        corrected=corrected,
        chosen=chosen,
        options=options,
        notes=tuple(notes),
    )


def carry_out(
    plan: AnchorBudgetPlan, population: dict[int, pd.DataFrame], *, runs: int = 200, seed: int = 0
) -> pd.Series:
    """Carry each option of ``plan`` out ``runs`` times on a population (k → that option's
    :func:`instruction_scores` with every instruction labelled): draw its instructions with
    replacement, label the first ``labelled_instructions`` of them, estimate; return k → the
    achieved width 2·1.96·SD of the estimates, on the quantity's scale (the rating difference
    through the logarithm of the odds, not the delta method)."""
    rng = np.random.default_rng(seed)
    out = {}
    for r in plan.options.itertuples():
        pop = population[int(r.anchors)]
        n, m = int(r.instructions), int(r.labelled_instructions) if plan.corrected else 0
        if n < 1:
            out[int(r.anchors)] = math.inf
            continue
        pick = rng.integers(0, len(pop), size=(runs, n))
        af, bf = pop["a_f"].to_numpy()[pick], pop["b_f"].to_numpy()[pick]
        sa, sb = af.mean(axis=1), bf.mean(axis=1)
        if m:
            ah, bh = pop["a_h"].to_numpy()[pick[:, :m]], pop["b_h"].to_numpy()[pick[:, :m]]
            sa = sa + (ah - af[:, :m]).mean(axis=1)
            sb = sb + (bh - bf[:, :m]).mean(axis=1)
        est = estimate(sa, sb, plan.quantity)
        out[int(r.anchors)] = float(2 * Z95 * est.std(ddof=1))
    return pd.Series(out, name="achieved_width")
