"""Anchor results in words and display tables: what the Anchors page shows.

Sentences naming models are plain text; the fixed explanations (:data:`INFO_DEF`,
:func:`ceiling_text`) are the app's own Markdown.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from evalcore import quantities as q
from evalcore.anchors.informativeness import WinRateDistribution
from evalcore.anchors.one_anchor import AnchorRanking
from evalcore.anchors.pilot import PilotScreening
from evalcore.anchors.stability import AnchorStability
from evalcore.anchors.sweep import ALL_PAIRS, SampleSizeSweep
from evalcore.anchors.tau import AnchorSweep, JudgeEffect
from evalcore.counts import VerdictCounts
from evalcore.power.budget import Prices, cost_text, size_cost
from evalcore.power.planner import EvaluationPlan, decisive_rate
from evalcore.present.display import Column, Metric, catalogue_table, tile
from evalcore.stats.against import orders_per_pair
from evalcore.text import MISSING, fmt_int, fmt_num, fmt_pct, markdown

PAPER = "Don-Yehiya et al. 2026"


def reference_words(reference: str) -> str:
    """A sweep's reference ranking in words: "all pairs" or "human"."""
    return "all pairs" if reference == ALL_PAIRS else reference


INTRO = (
    "Arena-Hard- and AlpacaEval-style evaluations judge every model against **one anchor** "
    "instead of all pairs. Don-Yehiya et al. 2026 (*Mediocrity is the key for LLM as a Judge "
    "Anchor Selection*) show that the usual anchors, the strongest or the weakest model, rank "
    "worst: a mid-ranked anchor gives a ranking closer to all pairs and wastes fewer judge calls."
)

PLANNING_INTRO = (
    "Plan an anchor-based evaluation before judging the whole benchmark (Don-Yehiya et al. 2026): "
    "screen candidate anchors on a small pilot, see how agreement with the all-pairs "
    "ranking grows with the number of instructions and of anchors, and size the design."
)

INFO_DEF = (
    f"**Informativeness** I(p, A) ({PAPER}): over instructions and pairs of models other than "
    "the anchor, the share whose verdicts against the anchor differ, compared on the judge's full "
    "scale and read from each model's point of view. Verdicts are compared within one slot "
    "order: on a table judged in both orders, each order's calls are compared separately, never "
    "averaged (averaging two calls would count position noise as information)."
)

INVERTED_U_NOTE = (
    "One point per anchor (hover for its name); the star is the chosen anchor. The "
    "paper finds an inverted U: the extremes rank worst."
)
WIN_RATE_NOTE = (
    "For each instruction, the number of models whose verdict against the anchor is a "
    f"win (a mean verdict above zero, from the model's point of view; {PAPER})."
)
PILOT_NOTE = (
    "Before judging the whole benchmark, estimate every candidate anchor's informativeness "
    "on a few instructions (all pairs of the pool on those instructions), repeated many times "
    f"({PAPER} find a correlation above 0.86 with all data from 10 instructions)."
)
STABILITY_HELP = (
    "Resample instructions with replacement: how often each anchor is the most "
    "informative, with 95% intervals for informativeness and tau."
)
TAU_HELP = (
    "tau-b (default, scipy's kendalltau) divides by the untied pairs of each ranking; "
    "tau-a divides by all pairs and counts tied pairs as neither (Kendall 1945)."
)


def beats_link_label(anchor: str, instructions: int, cases: int) -> str:
    """The link to the instructions where ``anchor`` beats every model it met, with the count
    and unit it opens: the instructions the win-rate distribution counts, and the cases (one per
    opponent) that hold them.

    Examples
    --------
    >>> beats_link_label("sim-larch", 12, 228)
    'Read the 12 instructions where sim-larch beats every model it met (228 cases: each instruction once per opponent)'
    """
    noun = "instruction" if instructions == 1 else "instructions"
    return (
        f"Read the {fmt_int(instructions)} {noun} where {markdown(anchor)} beats every model it met "
        f"({fmt_int(cases)} case{'' if cases == 1 else 's'}: each instruction once per opponent)"
    )


def tau_name(tau: str) -> str:
    """``"b"`` → ``"tau-b"``."""
    return "tau-b" if tau == "b" else "tau-a"


def ceiling_text(sweep: AnchorSweep, *, drawn: bool = True) -> str:
    """The 3-level ceiling explained, with this table's number of models and ceiling
    (``drawn``: the informativeness chart above shows it as a dotted line)."""
    m, c = len(sweep.models) - 1, sweep.ceiling_3_level
    return (
        "**The 3-level ceiling**"
        + (" (dotted line)" if drawn else "")
        + ": when every verdict against the anchor is a win or "
        f"a loss that follows one strength order, an instruction splits the {m} other models into "
        "those above and those below the anchor, so at most the pairs split across the two halves, "
        f"{fmt_pct(c, 1)} of all pairs, can differ (the paper's 0.5, reached by a middle anchor). "
        "Ties with the anchor form a third group and 5-level verdicts add magnitude, so an anchor "
        "can pass the line: it is a reference, not a hard limit for this judge."
    )


def recommended_metrics(sweep: AnchorSweep, tau: str) -> list[tuple[str, str, str | None]]:
    """The per-anchor headline as (label, value, help)."""
    why = f"The most informative anchor ({PAPER})."
    if sweep.has_all_pairs_ranking:
        # one tile per quantity: the best and worst anchors' agreement are a range in words, not
        # two more tiles of the same quantity
        t = sweep.table["tau_all_pairs"]
        why += (
            f" {q.name('tau_all_pairs')} ({tau_name(tau)}) across the anchors: from "
            f"{fmt_num(t.min(), 3)} (worst anchor) to {fmt_num(t.max(), 3)} (best)."
        )
    return [("Recommended anchor", sweep.recommended or MISSING, why)]


def stability_sentence(stability: AnchorStability) -> str | None:
    """How often the recommended anchor is the most informative across resamples."""
    if stability.recommended is None:
        return None
    return (
        f"{stability.recommended} is the most informative anchor in "
        f"{fmt_pct(stability.recommended_rate)} of {fmt_int(stability.rounds)} instruction "
        "resamples."
    )


def stability_caption(stability: AnchorStability) -> str | None:
    """How much of tau's spread the line on informativeness explains, with its interval, when there
    is one."""
    r2 = stability.fit_r2
    if not r2.has_interval:
        return None
    return (
        f"Share of tau's spread that the line on informativeness explains: {fmt_num(r2.value, 3)} (95% interval "
        f"{fmt_num(r2.low, 3)}–{fmt_num(r2.high, 3)}, {r2.method})."
    )


def stability_table(stability: AnchorStability) -> pd.DataFrame:
    return catalogue_table(
        stability.table,
        [
            ("anchor", "Anchor", None),
            ("most_informative_rate", "Most informative in", "pct"),
            "informativeness",
            ("informativeness_low", "Informativeness, 95% low", "pct1"),
            ("informativeness_high", "Informativeness, 95% high", "pct1"),
            ("tau_all_pairs", "tau_all_pairs"),
            ("tau_low", "Tau, 95% low", "num3"),
            ("tau_high", "Tau, 95% high", "num3"),
        ],
    )


def sweep_caption(sweep: AnchorSweep, tau: str) -> str:
    name = tau_name(tau)
    return (
        "Each row takes one model as the anchor and ranks the others by their win rate against it "
        "(wins plus half the ties; the same order as a Bradley–Terry fit on those battles). Tau with all "
        f"pairs: Kendall's {name} with the all-pairs Bradley–Terry ranking on the models other than "
        f"the anchor. Tau with humans: the same with the human ranking "
        f"({sweep.human_models_matched} models matched). Position: the anchor's rank in the "
        "all-pairs ranking (1 = strongest). Instructions the anchor sweeps: share of instructions on "
        "which no model beats the anchor."
    )


def all_pairs_human_caption(sweep: AnchorSweep, tau: str) -> str | None:
    """How far the all-pairs ranking itself sits from the human ranking (None without either)."""
    if not sweep.has_all_pairs_ranking or pd.isna(sweep.all_pairs_tau_human):
        return None
    return (
        f"The all-pairs ranking itself has {tau_name(tau)} = {fmt_num(sweep.all_pairs_tau_human, 3)} "
        "with the human ranking."
    )


def sweep_table(sweep: AnchorSweep) -> pd.DataFrame:
    return catalogue_table(
        sweep.table,
        [
            ("anchor", "Anchor", None),
            ("position", "Position", None),
            ("all_pairs_rating", "All-pairs rating (Elo points)", "elo"),
            ("tau_all_pairs", "tau_all_pairs"),
            ("tau_human", "tau_humans"),
            "informativeness",
            ("models_ranked", "Models ranked", None),
            "calls",
            ("no_model_wins_share", "no_model_wins"),
        ],
    )


def fit_caption(sweep: AnchorSweep, tau: str) -> str | None:
    if not sweep.has_all_pairs_ranking or pd.isna(sweep.fit_r2):
        return None
    n = int(sweep.table["tau_all_pairs"].notna().sum())
    return (
        f"Least-squares line of {tau_name(tau)} (with all pairs) on informativeness over {n} "
        f"anchors: it explains {fmt_num(sweep.fit_r2, 3)} of tau's spread, slope {fmt_num(sweep.fit_slope, 3)} per "
        f"unit of informativeness ({PAPER} report 0.594 of the spread explained for their judge)."
    )


def histogram_defaults(sweep: AnchorSweep, chosen: str) -> list[str]:
    """The strongest, the chosen and the weakest anchor (just the chosen one without a ranking)."""
    if not sweep.has_all_pairs_ranking:
        return [chosen]
    t = sweep.table["anchor"]
    return list(dict.fromkeys([t.iloc[0], chosen, t.iloc[-1]]))


def win_rate_sentences(dists: Sequence[WinRateDistribution]) -> list[str]:
    return [
        f"{d.sentence} On {fmt_int(d.no_signal)} instructions every model got the very same "
        "verdict (no signal even on the full scale)."
        for d in dists
    ]


def win_rate_rows(dists: Sequence[WinRateDistribution]) -> pd.DataFrame:
    return pd.concat([d.per_instruction.assign(anchor=d.anchor) for d in dists], ignore_index=True)


def explorer_metrics(ranking: AnchorRanking, tau: str) -> list[Metric]:
    """One anchor's headline: tau with all pairs (when the table has them), informativeness,
    the cost of the two designs, and tau with humans (when a human ranking matches)."""
    out: list[Metric] = []
    if ranking.has_all_pairs_ranking:
        out.append(tile("tau_all_pairs", ranking.tau_all_pairs, f"Kendall's {tau_name(tau)}."))
    out += [
        tile("informativeness", ranking.informativeness, None),
        Metric(
            "Judge calls per instruction",
            f"{fmt_int(ranking.design_calls_anchor)} vs {fmt_int(ranking.design_calls_all_pairs)}",
            "Anchor design against all pairs.",
        ),
    ]
    if ranking.human_matched >= 3:
        out.append(
            tile(
                "tau_humans",
                ranking.tau_human,
                f"Kendall's {tau_name(tau)} of this anchor's ranking with the human ranking, over "
                f"the {ranking.human_matched} models both list (1 = the same order).",
            )
        )
    return out


def explorer_caption(ranking: AnchorRanking, chosen: str) -> str:
    return (
        f"Against {chosen}: {fmt_int(ranking.calls_anchor)} of the "
        f"{fmt_int(ranking.calls_total)} judge calls in this selection. As a design, one anchor "
        "costs one call per other model per instruction and order, all pairs one per pair of models: "
        f"{fmt_pct(ranking.cost_share)} of the all-pairs cost here."
    ) + (
        " Rank shift: the rank among all pairs minus the rank against the anchor (positive: the anchor ranks the model higher)."
        if ranking.has_all_pairs_ranking
        else ""
    )


def explorer_table(ranking: AnchorRanking) -> pd.DataFrame:
    """The anchor's ranking; the all-pairs columns only when the table has an all-pairs
    ranking (never a column of dashes on an anchor-only table), the human rank when given."""
    columns: list[Column] = [
        ("model", "Model", None),
        ("win_rate", "win_rate_vs_anchor"),
        ("battles", "Battles", "int"),
        ("anchor_rank", "Rank by the anchor", None),
        ("human_rank", "Rank by humans", None),
    ]
    if ranking.has_all_pairs_ranking:
        columns += [
            ("all_pairs_rank", "Rank by all pairs", None),
            ("rank_shift", "Rank shift", None),
            ("all_pairs_rating", "All-pairs rating (Elo points)", "elo"),
        ]
    return catalogue_table(ranking.table, columns)


#: The button that loads the bundled human ranking.
PAPER_HUMAN_BUTTON = "Use the anchor paper's human ranking (Chatbot Arena Elo)"
HUMAN_HINT = (
    "No human ranking is loaded: open **Human ranking** above to upload one (model, score) and "
    "see how well the anchor's ranking agrees with humans."
)


def paper_ranking_caption(matched: int, total: int) -> str:
    """Where the bundled human ranking comes from and how much of it this table covers."""
    return (
        f"The loaded table names {matched} of the {total} models {PAPER} ranked by their Chatbot "
        "Arena Elo (the paper's human ranking; values from the paper's published code). Tau with humans uses the models both list."
    )


def pilot_metrics(pilot: PilotScreening) -> list[tuple[str, str, str | None]]:
    return [
        ("Mean Pearson r with all data", fmt_num(pilot.pearson_r, 3), None),
        ("Pilot recommends", pilot.recommended or MISSING, None),
        ("Judge calls per pilot", fmt_int(pilot.pilot_calls), None),
    ]


def pilot_extremes_sentence(pilot: PilotScreening) -> str:
    parts = "; ".join(f"{m} in {fmt_pct(rate)} of repetitions" for m, rate in pilot.extremes.items())
    return "Extreme models among the three least informative: " + (parts or "none") + "."


def pilot_table(pilot: PilotScreening) -> pd.DataFrame:
    return catalogue_table(
        pilot.table,
        [
            ("anchor", "Anchor", None),
            ("position", "Position", None),
            ("full", "Informativeness, all data", "pct1"),
            ("pilot_mean", "Pilot mean", "pct1"),
            ("pilot_sd", "Pilot standard deviation", "pct1"),
            ("pilot_low", "Pilot, 2.5%", "pct1"),
            ("pilot_high", "Pilot, 97.5%", "pct1"),
            ("bottom_three_rate", "Among the three least informative", "pct"),
            ("recommended_rate", "Recommended by the pilot", "pct"),
        ],
    )


def pilot_informativeness(pilot: PilotScreening | None, sweep: AnchorSweep, chosen: str) -> float:
    """The planner's default informativeness for ``chosen``: the pilot's mean when it ran, else
    all data's, within [0.01, 1] (0.5 when nothing was judged against the anchor)."""
    value = float("nan")
    if pilot is not None:
        row = pilot.table.loc[pilot.table["anchor"] == chosen, "pilot_mean"]
        value = float(row.iloc[0]) if len(row) else value
    if not value == value or value <= 0:
        row = sweep.table.loc[sweep.table["anchor"] == chosen, "informativeness"]
        value = float(row.iloc[0]) if len(row) else float("nan")
    if not value == value:
        value = 0.5
    # not rounded: the planner's total must be the Overview's ⌈617 / I⌉ (1,056, not 1,055)
    return min(1.0, max(0.01, value))


def planner_defaults(
    counts: VerdictCounts,
    raw_counts: VerdictCounts,
    pilot: PilotScreening | None,
    sweep: AnchorSweep,
    chosen: str,
) -> dict:
    """The planner's defaults from the loaded data: models, instructions, orders per pair (of the
    table as loaded, ``raw_counts``), the chosen anchor's informativeness and the decisive share."""
    decisive = decisive_rate(counts)
    return {
        "models": counts.n_models,
        "instructions": counts.n_instructions,
        "orders": orders_per_pair(raw_counts),
        "informativeness": pilot_informativeness(pilot, sweep, chosen),
        "decisive": round(decisive if decisive == decisive and decisive > 0 else 1.0, 3),
    }


def sizes_caption(result: SampleSizeSweep) -> str:
    return (
        f"Each size draws {fmt_int(result.repetitions)} instruction subsets without replacement; "
        "every ranking is refitted on each. 'mean over anchors' averages all anchors' tau "
        "within a draw."
    )


COUNT_CAPTION = (
    "Anchors are added in a random order; after each, Bradley–Terry is refitted on every battle "
    "involving an anchor (the union) and compared with the all-pairs ranking over the models that "
    "are not anchors, as in the per-anchor table (so one anchor gives that anchor's tau; three "
    "models must remain)."
)

JUDGE_CAPTION = (
    "Best/worst anchor: highest/lowest tau with the judge's own all-pairs ranking. "
    "Gap with humans: the best anchor's tau with humans minus the worst anchor's; range with "
    "humans: the highest minus the lowest over all anchors."
)


def judge_effect_sentence(effect: JudgeEffect, tau: str) -> str | None:
    if pd.isna(effect.judge_spread) or pd.isna(effect.max_anchor_gap_human):
        return None
    name = tau_name(tau)
    return (
        f"Across judges, the all-pairs ranking's {name} with humans spans "
        f"{fmt_num(effect.judge_spread, 3)}; within a judge, the best and worst anchor differ by up "
        f"to {fmt_num(effect.max_anchor_gap_human, 3)} in {name} with humans."
    )


def judge_effect_table(effect: JudgeEffect) -> pd.DataFrame:
    t = effect.table
    return pd.DataFrame(
        {
            c.replace("_", " ")
            .capitalize()
            .replace("Gap human", "Gap with humans")
            .replace("Human range", "Range with humans"): [fmt_num(v, 3) for v in t[c]]
            if pd.api.types.is_float_dtype(t[c])
            else t[c].astype(object).where(t[c].notna(), MISSING)
            for c in t.columns
        }
    )


def plan_caption(plan: EvaluationPlan) -> str:
    return (
        f"Sign test, one-sided, significance level {plan.alpha:g}, power {plan.power:.0%}: "
        f"{fmt_int(plan.discordant)} discordant samples for a +{plan.edge:.0%} edge; the total "
        f"is those samples divided by the informative share ({PAPER})."
    )


def plan_cost_sentence(plan: EvaluationPlan, *, per_call: float | None, per_label: float | None) -> str:
    """The recommended design's size in judge calls and money at the prices given ("" without
    a price per judge call)."""
    rows = plan.options[plan.options["design"] == plan.recommendation]
    if per_call is None or rows.empty:
        return ""
    row = rows.iloc[0]
    text = cost_text(
        int(row["instructions_needed"]),
        per_instruction=int(row["calls_per_instruction"]),
        per_call=per_call,
        per_label=per_label,
    )
    return f"The recommended design ({plan.recommendation}) in money: {text}."


def plan_table(plan: EvaluationPlan, *, per_call: float | None = None) -> pd.DataFrame:
    """The planner's designs as a display table; with a price per judge call, what each design's
    calls needed cost (calls × price)."""
    options = plan.options
    if per_call is not None:
        options = options.assign(
            cost=[
                size_cost(int(c), unit="judge calls", prices=Prices(per_call)).money
                for c in options["calls_needed"]
            ]
        )
    return catalogue_table(
        options,
        [
            ("design", "Design", None),
            ("calls_per_instruction", "Calls per instruction", "int"),
            "instructions_needed",
            ("calls_needed", "Calls needed", "int"),
            ("cost", "size_cost"),
            ("instructions_planned", "Instructions planned", "int"),
            ("calls_planned", "Calls planned", "int"),
            ("fits_budget", "Fits the budget", "yes_no"),
            ("note", "Note", None),
        ],
    )
