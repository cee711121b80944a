"""Power results in words and display tables: what the Power page shows, in plain text (the page
escapes it whole, since sentences name models).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from evalcore import quantities as q
from evalcore.power.budget import Prices, calls_per_instruction, size_cost
from evalcore.power.differences import DifferenceDistributions
from evalcore.power.edges import DetectableEdges
from evalcore.power.sign_test import PAPER_INFORMATIVENESS, SampleSizePlan, paper_table
from evalcore.power.simulation import PowerCurve
from evalcore.present.display import Column, Metric, catalogue_table, tile, write
from evalcore.present.ranking import TOO_FEW_MODELS  # noqa: F401 - the Power page's words are the Leaderboard's
from evalcore.text import fmt_int, fmt_p, fmt_pct, markdown

#: Edges offered on the page: +5% = the better model wins 55% of the discordant samples.
EDGE_CHOICES = (0.01, 0.02, 0.03, 0.05, 0.075, 0.10, 0.15, 0.20, 0.25, 0.30)

PAPER = "Don-Yehiya et al. 2026"

INTRO = (
    "How many samples does it take to tell two models apart, and which models can the loaded "
    f"data tell apart? {PAPER} find that common benchmark sizes cannot separate close models."
)

#: Help texts of the page's settings.
HELP = {
    "two_sided": "The paper's sample sizes are one-sided: 'B is as good as A or better' is rejected.",
    "exact": (
        "The paper used the normal approximation (617 for +5%); the exact binomial test needs "
        "620. Applies to the sign-test sample sizes and detectable edges."
    ),
    "compare": (
        "Against the anchor: the difference of the two models' verdicts against it, as above. Head-to-head: the verdict of A "
        "against B itself (needs the pair judged directly)."
    ),
}

#: The page's settings: label, range, default and help of each input (the page adds the key).
INPUTS: dict[str, dict] = {
    "alpha": {"label": "Significance level", "min_value": 0.001, "max_value": 0.5, "value": 0.05,
              "step": 0.01, "format": "%.3f"},
    "power": {"label": "Power", "min_value": 0.5, "max_value": 0.99, "value": 0.80, "step": 0.05,
              "format": "%.2f"},
    "informativeness": {"label": "Informativeness (0 to 1)", "min_value": 0.01, "max_value": 1.0, "value": 0.45,
                        "step": 0.01, "format": "%.3f",
                        "help": "0.45 is o3's informativeness in the paper; 0.54 the mean."},
    "window": {"label": "Edge window from", "min_value": 0.0, "max_value": 0.49, "value": 0.05,
               "step": 0.01, "format": "%.2f",
               "help": "Distributions whose edge lies from this value to just under one point more, as in the paper."},
    "largest": {"label": "Most instructions", "min_value": 50, "max_value": 20000, "value": 2000, "step": 250},
    "seed": {"label": "Random seed", "min_value": 0, "value": 0, "step": 1},
}  # fmt: skip


#: The choices of the page's radio buttons: the first starts the "from the data" branch etc.
INFO_SOURCES = ("From the loaded data, for the anchor", "Type it in")
WILCOXON_MODES = ("Every pair whose edge is in a window (as the paper)", "One model pair")
COMPARE_MODES = ("Against the anchor", "Head-to-head")
ALL_ANCHORS = "All anchors"
SIMULATION_CHOICES = (500, 1000, 2000, 5000, 10000)
DISTRIBUTIONS_NOTE = (
    "Each row is oriented so that model A is the one with the edge. The edge is the share of "
    "differing instructions that A wins, minus 50%; informativeness is the share of instructions "
    "on which the two models' verdicts differ."
)

SIGN_TEST_INTRO = (
    "An edge of +5% means the better model wins 55% of the discordant samples, the samples on "
    "which the two models' verdicts (against the anchor) differ: P(A beats B | discordant) = "
    "0.55. The sign test ignores the rest, so the total is the discordant samples divided by the "
    f"informativeness, the share of samples that are discordant, rounded up ({PAPER})."
)

WILCOXON_INTRO = (
    "Verdict differences. For models A and B judged against the same anchor on the same "
    "instruction, the difference is A's verdict against the anchor minus B's, each read from the "
    "model's point of view on the judge's scale (−2…+2); when a model met the anchor more than "
    "once on the instruction (both orders, repeats) its verdict is the mean of those. The sign "
    "test only sees the sign of the difference; the Wilcoxon signed-rank test (Wilcoxon 1945) also uses its size. Each simulation "
    "picks one distribution of the differences seen in the loaded data, draws as many values as the planned instructions, with replacement and "
    "runs the one-sided Wilcoxon test, keeping zero differences in the ranking (Pratt 1959); the "
    "sign test runs on the same draws. Power = the share of simulations that reject."
)

PAPER_TABLE_NOTE = (
    "One-sided, significance level 0.05, power 80%, normal approximation: 617 discordant samples "
    "for +5%, so 1,372 in total for o3 (informativeness 45%) and 1,143 at the mean "
    "informativeness of 54%, as published. The paper's "
    "summary says +10% needs 341 total at a 55% tie rate; 153 / 0.45 is exactly 340, and 341 "
    "only appears when 1 − 0.55 is computed in floating point (0.44999999999999996). We print 340."
)


def edge_label(edge: float) -> str:
    """An edge as the page writes it: ``edge_label(0.05)`` → ``'+5%'``."""
    return f"+{edge * 100:g}%"


def usable_informativeness(value: float | None) -> float | None:
    """``value`` when it is a measured informativeness above 0, else None (nothing to plan with)."""
    return value if value is not None and math.isfinite(value) and value > 0 else None


def measured_informativeness(counts, anchor: str, *, per_order: bool = True) -> float | None:
    """The anchor's measured informativeness (:func:`evalcore.anchors.anchor_informativeness`),
    or None when the design cannot measure it (one battle per prompt) or it is not above 0:
    :func:`informativeness_sentence` then says why."""
    from evalcore.anchors import anchor_informativeness  # anchors does not import power: no cycle
    from evalcore.errors import DesignError

    try:
        return usable_informativeness(anchor_informativeness(counts, anchor, per_order=per_order))
    except DesignError:
        return None


def informativeness_sentence(anchor: str, informativeness: float | None) -> str:
    """What the measured informativeness of ``anchor`` is, or why it cannot be measured."""
    if usable_informativeness(informativeness) is None:
        return (
            f"No instruction has two models judged against {anchor}, so its informativeness "
            "cannot be measured here. Pick another anchor or type a value in."
        )
    return (
        f"Informativeness {q.format('informativeness', informativeness)} for anchor {anchor}: the share of (instruction, model "
        "pair) cases whose verdicts against the anchor differ, on the judge's full scale "
        f"({PAPER})."
    )


def sample_size_table(
    plan: SampleSizePlan, *, per_instruction: int | None = None, prices: Prices | None = None
) -> pd.DataFrame:
    """The sign test's sample sizes with human column names; with ``per_instruction`` (judge calls
    per instruction) the judge calls each size needs, and with ``prices`` what they cost."""
    t = plan.table
    total = q.name("instructions_needed")
    out = pd.DataFrame(
        {
            "Edge": [edge_label(e) for e in t["edge"]],
            q.name("differing_share_won"): [fmt_pct(p, 1) for p in t["win_probability"]],
            q.name("discordant_needed"): t["discordant"].astype("Int64"),
        }
    )
    if plan.informativeness:  # without I there is no total to show
        out[total] = t["total"].astype("Int64")
        if per_instruction:
            costs = [size_cost(n, per_instruction=per_instruction, prices=prices) for n in t["total"]]
            out[q.name("size_calls")] = pd.array([c.calls for c in costs], dtype="Int64")
            if prices is not None:
                out[q.name("size_cost")] = [q.format("size_cost", c.money) for c in costs]
    return out


def plan_calls_sentence(plan: SampleSizePlan, n_models: int, *, prices: Prices | None = None) -> str:
    """The judge calls the plan's +5% row needs, and with ``prices`` what they cost: its
    instructions × each of the other models against one anchor, one slot order (Don-Yehiya et al.
    2026); "" without a total. The Power page and the report say it in these words."""
    t = plan.table
    if not plan.informativeness or t.empty or n_models < 2 or "total" not in t:
        return ""
    row = t.loc[(t["edge"] - 0.05).abs().idxmin()]
    per = calls_per_instruction(n_models, design="anchor")
    size = size_cost(int(row["total"]), per_instruction=per, prices=prices)
    return (
        f"For a {edge_label(row['edge'])} edge the plan needs {size.sentence()}: each of the other "
        f"{n_models - 1:,} models judged against one anchor on every instruction, in one slot order."
    )


def answer_sentence(plan: SampleSizePlan, anchor: str | None = None) -> str | None:
    """The page's one answer to "how many instructions", in plain words (Markdown, ``anchor``
    escaped), or None without an informativeness.

    It leads with the sign-test calculation (the method the paper's sample sizes use, and the one the
    Overview and the Anchor planning page quote) and names the simulated tests as comparisons, so
    the page never shows rival headline numbers for one question.
    """
    if not plan.informativeness or plan.table.empty:
        return None
    t = plan.table
    row = t.loc[(t["edge"] - 0.05).abs().idxmin()]
    against = f" against {markdown(anchor)}" if anchor else ""
    return (
        f"**About {q.format('instructions_needed', row['total'])} instructions** to detect a "
        f"{edge_label(row['edge'])} edge{against} at {plan.power:.0%} power: "
        f"{q.name('instructions_needed').lower()}, "
        f"{q.format('discordant_needed', row['discordant'])} differing instructions divided by an "
        f"informativeness of {q.format('informativeness', plan.informativeness)} ({PAPER}'s method, "
        'the number the Overview and the Anchor planning page quote). The section "For comparison" below gives, for '
        "comparison only, the same question simulated on this file's verdicts with the sign test and "
        "the Wilcoxon test."
    )


def sample_size_caption(plan: SampleSizePlan) -> str:
    """How the sample sizes were computed, in one sentence."""
    side = "Two" if plan.two_sided else "One"
    how = (
        "normal approximation to the one-proportion test (the paper's method, written out on the "
        "Methods page)."
        if plan.method == "normal"
        else "exact binomial test (smallest n reaching the power; the paper used the normal approximation)."
    )
    info = (
        f" Instructions needed: the differing instructions needed divided by the informativeness, "
        f"{q.format('informativeness', plan.informativeness)}."
        if plan.informativeness
        else ""
    )
    return f"{side}-sided sign test, significance level {plan.alpha:g}, power {plan.power:.0%}, {how}{info}"


def paper_table_view() -> pd.DataFrame:
    """The published sample-size table of Don-Yehiya et al. (2026) as the page shows it."""
    paper = paper_table()
    paper["edge"] = paper["edge"].map(edge_label)
    return paper.rename(
        columns={
            "exact_binomial": "exact binomial",
            **{
                f"total_I_{v:.2f} ({k})": f"total at informativeness {v:.0%} ({k})"
                for k, v in PAPER_INFORMATIVENESS.items()
            },
        }
    )


def simulation_grid(largest: int, points: int = 20) -> np.ndarray:
    """The N values of the power curve: ``points`` evenly spaced values up to ``largest``."""
    return np.unique(np.linspace(max(10, int(largest) // 20), int(largest), points).round().astype(int))


def edge_window_words(low: float) -> str:
    """The one-point window of edges the paper pools, in words: ``edge from 5% to under 6%``."""
    return f"edge from {low:.0%} to under {low + 0.01:.0%}"


def edge_window(dists: DifferenceDistributions, low: float, anchor: str | None = None):
    """The distributions whose edge lies in [low, low + 1%) (as Listing 1), for one anchor or all.

    Returns ``(chosen, nominal_edge, label)``.
    """
    chosen = dists if anchor is None else dists.select((dists.table["anchor"] == anchor).to_numpy(dtype=bool))
    label = edge_window_words(low)
    return chosen.with_edge(low, low + 0.01), (float(low) if low > 0 else None), label


def one_pair(dists: DifferenceDistributions, model_a: str, model_b: str | None, anchor: str):
    """The distribution of one model pair against ``anchor``: ``(chosen, None, label)``."""
    if not model_b:
        return dists.select(np.zeros(len(dists), dtype=bool)), None, f"{model_a} against {anchor}"
    return dists.pair(model_a, model_b, anchor=anchor), None, f"{model_a} vs {model_b} against {anchor}"


def empty_selection_sentence(
    dists: DifferenceDistributions, chosen: DifferenceDistributions, label: str, *, window: bool
) -> str | None:
    """Why nothing can be simulated for the selection, or None when it can."""
    if len(chosen) == 0:
        if window:
            seen = dists.table["edge"].dropna()
            return (
                f"No model pair has an {label} in this selection (edges here range from "
                f"{fmt_pct(seen.min(), 1)} to {fmt_pct(seen.max(), 1)}). Move the window."
            )
        return (
            f"{label}: the two models were never both judged against the anchor on the same "
            "instruction, so there is no distribution of differences. Pick another pair or anchor."
        )
    if chosen.table["edge"].isna().all():
        return (
            "Every instruction gives this pair the same verdict against the anchor (their "
            "verdicts never differ): no test can separate them with this judge and anchor."
        )
    return None


def curve_metrics(curve: PowerCurve, largest: int) -> list[Metric]:
    """The power curve's headline numbers as tiles."""
    planned = (
        f"; the sign test's sample-size calculation gives {fmt_int(curve.planned_sign_total)} total samples "
        "at this mean informativeness"
        if curve.planned_sign_total
        else ""
    )
    return [
        Metric(
            "Distributions",
            fmt_int(curve.n_distributions),
            "(anchor, model pair) distributions of d drawn from",
        ),
        tile(
            "mean_pair_informativeness",
            curve.mean_informativeness,
            "Share of instructions where the two models' verdicts differ, averaged over the distributions",
        ),
        tile(
            "instructions_needed_wilcoxon_sim",
            curve.wilcoxon_n if curve.wilcoxon_n else f"> {fmt_int(largest)}",
            "A comparison beside the calculation: the smallest N of the grid where the simulated "
            "Wilcoxon test reaches the target power",
        ),
        tile(
            "instructions_needed_sign_sim",
            curve.sign_n if curve.sign_n else f"> {fmt_int(largest)}",
            "A comparison beside the calculation: the smallest N of the grid where the simulated sign "
            "test reaches the target power" + planned,
        ),
    ]


def curve_caption(curve: PowerCurve, label: str) -> str:
    """How the power curve was simulated, in words."""
    return (
        f"{label}; mean edge {fmt_pct(curve.mean_edge, 1)}. Across: the total number of "
        f"instructions (ties included). Error bars: 1.96 Monte Carlo standard errors either side, over "
        f"{fmt_int(curve.simulations)} simulations (random seed {curve.seed}). Dashed: the sign "
        "test's normal approximation on the differing instructions among them (the total times the "
        "informativeness). The smallest total is read off this grid. The paper reports 930 (Wilcoxon) "
        "against 1,143 (sign test) for +5% at an informativeness of 0.54 on its data."
    )


def difference_title(chosen: DifferenceDistributions, anchor: str) -> str:
    """The title of the histogram of d."""
    if len(chosen) > 1:
        return "Verdict differences (pooled over the chosen distributions)"
    row = chosen.table.iloc[0]
    return f"Verdict differences: {row['model_a']} − {row['model_b']} against {anchor}"


def distributions_table(chosen: DifferenceDistributions) -> pd.DataFrame:
    """The distributions used, with human column names and percentages."""
    t = chosen.table.assign(
        anchor=chosen.table["anchor"].astype(object).where(chosen.table["anchor"].notna(), "— (head-to-head)")
    )
    return catalogue_table(
        t,
        [
            ("anchor", "Anchor", None),
            ("model_a", "Model A (with the edge)", None),
            ("model_b", "Model B", None),
            ("n", "Instructions", None),
            ("informativeness", "pair_informativeness"),
            ("edge", "Edge", "signed_pct"),
            ("mean_difference", "Mean difference", "num3"),
        ],
    )


def detectable_metrics(result: DetectableEdges, *, on_page: bool = True) -> list[Metric]:
    """The headline of what the dataset can detect, as tiles; ``on_page=False`` for the command
    line, whose reader has no Overview to compare with."""
    where = " (the count the Overview gives for it)" if on_page else ""
    return [
        tile("instructions", result.n_instructions, f"Instructions with a verdict from this judge{where}."),
        tile(
            "informativeness" if result.anchor is not None else "adjacent_differing_share",
            result.informativeness,
            f"Source: {result.informativeness_source}",
        ),
        tile(
            "detectable_edge",
            result.detectable_edge if math.isfinite(result.detectable_edge) else "none",
            "The smallest edge the resolution test detects with the target power and as many "
            f"differing instructions as the instructions times the share above: {result.level_text}.",
        ),
        tile(
            "adjacent_resolved",
            f"{fmt_int(result.n_resolved)} of {fmt_int(result.n_pairs)}",
            f"Resolved: {result.resolution_test}, at significance level {result.alpha:g}.",
        ),
    ]


def top_pair_sentence(result: DetectableEdges) -> tuple[str, str] | None:
    """Whether the data separate the top two models: ``("success" | "warning", sentence)``."""
    if result.top_pair_resolved is None:
        return None
    top = result.table.iloc[0]
    p = f"Holm-adjusted {fmt_p(top['p_holm'])}" if pd.notna(top["p_holm"]) else "no p-value"
    if result.top_pair_resolved:
        return "success", (
            f"The data separate the top two models: {top['upper']} beats "
            f"{top['lower']} on {fmt_int(top['upper_wins'])} of "
            f"{fmt_int(top['discordant'])} discordant instructions ({p})."
        )
    need = top["instructions_needed"]
    tail = (
        f"; about {fmt_int(need)} instructions would be needed at this edge and informativeness."
        if pd.notna(need)
        else "."
    )
    edge = write(top["observed_edge"], "signed_pct")
    return "warning", (
        f"The data do not separate the top two models ({top['upper']} and "
        f"{top['lower']}): observed edge {edge} on {fmt_int(top['discordant'])} "
        f"discordant instructions, {p}{tail}"
    )


def detectable_table(result: DetectableEdges) -> pd.DataFrame:
    """The adjacent pairs with human column names, rounded numbers and "—" for missing values."""
    t = result.table
    t = t.assign(ranks=[f"{a} / {b}" for a, b in zip(t["rank_upper"], t["rank_lower"], strict=True)])
    return catalogue_table(
        t,
        [
            ("upper", "Higher-ranked model", None),
            ("lower", "Lower-ranked model", None),
            ("ranks", "Ranks", None),
            ("rating_gap", "Rating gap (Elo points)", "elo"),
            ("instructions", "Instructions", None),
            ("discordant", "Differing instructions", None),
            ("informativeness", "pair_informativeness"),
            ("upper_wins", "Higher wins", None),
            ("lower_wins", "Lower wins", None),
            "observed_edge",
            "detectable_edge",
            ("p_value", "p (two-sided sign test)", "p"),
            ("p_holm", "p (Holm-adjusted)", "p"),
            ("resolved", "Resolved", "yes_no"),
            ("instructions_needed", "instructions_needed"),
        ],
    )


def detectable_caption(result: DetectableEdges) -> str:
    """How the adjacent pairs were tested, in words."""
    verdicts = f"against the anchor {result.anchor}" if result.anchor else "head-to-head"
    return (
        "Adjacent pairs follow the Bradley–Terry leaderboard order (all battles). For each pair, "
        f"the differing instructions are those where the two models' verdicts {verdicts} differ; "
        "the observed edge is the share of them the higher-ranked model wins, minus 50%, in "
        "percentage points. Resolved: "
        f"{result.resolution_test} (Holm 1979), below the significance level {result.alpha:g} with the edge on the "
        "higher-ranked model's side, so the chance that any pair of equal models is called "
        f"resolved stays at most {result.alpha:g}. Detectable edge = the smallest edge that test "
        f"detects with power {result.power:.0%} at that many discordant samples, and instructions "
        f"needed = its total for the observed edge at the pair's own informativeness: "
        f"{result.level_text}. The two-sided setting above applies to the sample sizes and the "
        "simulation, not here."
    )


def dataset_detection(
    counts: Any, board: Any, *, anchor: str | None, alpha: float, power: float, method: str
) -> DetectableEdges:
    """What the loaded data can detect (the Power page's third section): the adjacent pairs, or
    every model against ``anchor``, with the headline's informativeness counted in the pairs'
    unit (one comparison per instruction and pair, not the planner's per-order one), so that
    instructions × informativeness and the pairs' columns count the same thing."""
    from evalcore.power import detectable_edges

    info = None if anchor is None else measured_informativeness(counts, anchor, per_order=False)
    return detectable_edges(
        counts, board, anchor=anchor, informativeness=info, alpha=alpha, power=power, method=method
    )


def label_orders_display(plan: Any) -> pd.DataFrame:
    """A budget plan's slot orders to label, with the share of the labels each gets
    (:class:`evalcore.power.budget.BudgetPlan`): label first the order with the largest share."""
    columns: list[Column] = [
        ("order", "Slot order", None),
        ("label_share", "label_share"),
        ("labelled", "Labelled so far", "int"),
    ]
    return catalogue_table(plan.label_orders, columns)


def anchor_budget_display(plan: Any) -> pd.DataFrame:
    """The numbers of anchors compared for a budget (:class:`evalcore.power.anchor_budget.AnchorBudgetPlan`),
    each adding the next most informative anchor, with the instructions, judge calls and labels it
    affords and its planned width; the chosen number marked."""
    o = plan.options.assign(
        chosen=[f"{k} (chosen)" if k == plan.chosen else str(k) for k in plan.options["anchors"]],
        added=[m[-1] for m in plan.options["anchor_models"]],
    )
    width = "planned_width_elo" if plan.width_column == "predicted_width_elo" else "planned_width"
    labels = [("labelled_instructions", "labelled_instructions")] if plan.corrected else []
    return catalogue_table(
        o,
        [
            ("chosen", q.name("anchors_chosen"), None),
            ("added", "Anchor added", None),
            ("instructions", "instructions_affordable"),
            ("judge_calls", "size_calls"),
            *labels,
            (plan.width_column, width),
        ],
    )
