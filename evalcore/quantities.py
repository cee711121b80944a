"""The catalogue of reported quantities: one id, one name, one definition, one unit, one format.

Why this module is longer than 500 lines: it is the one catalogue, one entry of about ten lines per
quantity; split, a quantity could gain a second home and a second name.

Every number the product shows (page tiles and table headings, finding sentences, the HTML
report, the command line, the Methods page and ``docs/glossary.md``) is one of the entries
below. Two different quantities never share a name: "how often A beats B" is four entries —
the preference the ratings predict, the observed win rate over single-order calls, the printed
win rate over both-orders verdicts and the share of differing instructions won — because on
one table they are four different numbers (about 60%, 64.2%, 62.2% and 68% on the demo).

A face reads a quantity's words and writes its number through this module::

    >>> from evalcore import quantities as q
    >>> q.name("tie_rate"), q.format("tie_rate", 0.0292)
    ('Tie rate, single order', '2.9%')
    >>> q.format("position_bias", 19.38)
    '+19.4 pp'
    >>> q.lookup("Tie rate, single order")
    'tie_rate'

The glossary in ``docs/glossary.md`` is :func:`glossary_markdown`'s output (write it with
``python scripts/write_glossary.py``; a test fails when the file differs).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from evalcore.text import MISSING, finite_number

__all__ = [
    "CATALOGUE",
    "DETAIL_JSON_KEYS",
    "FORMATS",
    "GLOSSARY_INTRO",
    "Quantity",
    "Reference",
    "STRUCTURAL_JSON_KEYS",
    "UNITS",
    "format",
    "glossary_entries_markdown",
    "glossary_markdown",
    "heading",
    "json_key_ids",
    "lookup",
    "name",
    "quantity",
    "unit",
]


@dataclass(frozen=True)
class Reference:
    """A method's source as people cite it: authors, title, year."""

    authors: str
    title: str
    year: int

    def __str__(self) -> str:
        return f"{self.authors}, *{self.title}* ({self.year})"


@dataclass(frozen=True)
class Quantity:
    """One reported quantity.

    Attributes
    ----------
    id : str
        The key every face uses (snake case; the CLI ``--json`` keys in :attr:`json_keys` map to
        it).
    name : str
        Its name in plain words, as a tile label or table heading shows it; unique in the
        catalogue.
    definition : str
        One line: what the number is.
    unit : str
        One of :data:`UNITS`.
    fmt : str
        One of :data:`FORMATS`: how :func:`format` writes it.
    method : str
        How it is computed, in words.
    reference : Reference or None
        Where the method comes from.
    not_identified : str
        The designs or data where it cannot be computed ("" when it always can).
    json_keys : tuple of str
        The CLI ``--json`` keys that carry it (kept for backward compatibility).
    """

    id: str
    name: str
    definition: str
    unit: str
    fmt: str
    method: str
    reference: Reference | None = None
    not_identified: str = ""
    json_keys: tuple[str, ...] = ()


#: The units a quantity may have.
UNITS = (
    "percent",
    "percentage points",
    "Elo points",
    "Elo points per standard deviation",
    "verdicts",
    "instructions",
    "labels",
    "judge calls",
    "model pairs",
    "models",
    "levels",
    "judges",
    "probability",
    "rank",
    "coefficient",
    "money",
    "random halves",
    "resampling units",
    "ratio",
)


#: The glossary's opening words (docs/glossary.md and the Methods page).
GLOSSARY_INTRO = (
    "Every number Verdict Lab shows is one of these quantities, under this name, in this unit, on "
    "every page, in the report and on the command line. Different quantities have different "
    "names: the predicted head-to-head preference, the head-to-head win rate over single calls, "
    "the printed win rate over both-orders verdicts and the share of differing instructions won "
    "are four numbers."
)


#: How each format writes a finite number (a share is a fraction in 0–1).
FORMATS = {
    "percent": lambda v: f"{100 * v:.1f}%",
    "signed_percent": lambda v: f"{100 * v:+.1f}%",
    "points": lambda v: f"{v:+.1f} pp",
    "plus_minus_points": lambda v: f"±{v:.1f} pp",
    # a width or gap between two shares, held as a fraction: written in percentage points
    "share_points": lambda v: f"{100 * v:.1f} pp",
    "elo": lambda v: f"{v:,.0f}",
    "signed_elo": lambda v: f"{v:+,.0f}",
    "signed_elo_1": lambda v: f"{v:+,.1f}",
    "count": lambda v: f"{round(v):,}",
    "coefficient": lambda v: f"{v:.3f}",
    "coefficient_2": lambda v: f"{v:.2f}",
    "signed_coefficient": lambda v: f"{v:+.3f}",
    "levels": lambda v: f"{v:.2f}",
    "money": lambda v: f"{v:,.2f}",
    "times": lambda v: f"{v:.2f} times",
}

_DY = Reference(
    "Don-Yehiya, Yehudai, Choshen & Abend", "Mediocrity is the key for LLM as a judge anchor selection", 2026
)
_BT = Reference(
    "Bradley & Terry", "Rank analysis of incomplete block designs: I. The method of paired comparisons", 1952
)
_ARENA = Reference(
    "Chiang et al.", "Chatbot Arena: An open platform for evaluating LLMs by human preference", 2024
)
_GONDARA = Reference(
    "Gondara, Novikova, Suresh, Ji & Pradeep",
    "The format is the filter: Scoring format fixes what an LLM judge can express",
    2026,
)
_ZHENG = Reference("Zheng et al.", "Judging LLM-as-a-judge with MT-Bench and Chatbot Arena", 2023)
_LR = Reference(
    "Lang & Reiczigel",
    "Confidence limits for prevalence of disease adjusted for estimated sensitivity and specificity",
    2014,
)
_RG = Reference("Rogan & Gladen", "Estimating prevalence from the results of a screening test", 1978)
_YOUDEN = Reference("Youden", "Index for rating diagnostic tests", 1950)
_WILSON = Reference("Wilson", "Probable inference, the law of succession, and statistical inference", 1927)
_KENDALL = Reference("Kendall", "The treatment of ties in ranking problems", 1945)
_DAVIDSON = Reference(
    "Davidson",
    "On extending the Bradley–Terry model to accommodate ties in paired comparison experiments",
    1970,
)
_COHEN = Reference("Cohen", "A coefficient of agreement for nominal scales", 1960)
_HOWARD = Reference(
    "Howard, Ramdas, McAuliffe & Sekhon",
    "Time-uniform, nonparametric, nonasymptotic confidence sequences",
    2021,
)
_PPI_2023 = Reference("Angelopoulos, Bates, Fannjiang, Jordan & Zrnic", "Prediction-powered inference", 2023)
_PPI = Reference("Angelopoulos, Duchi & Zrnic", "PPI++: Efficient prediction-powered inference", 2023)
_WILCOXON = Reference("Wilcoxon", "Individual comparisons by ranking methods", 1945)
_HOLM = Reference("Holm", "A simple sequentially rejective multiple test procedure", 1979)
_STYLE = Reference(
    "Li, Angelopoulos & Chiang", "Does style matter? Disentangling style and substance in Chatbot Arena", 2024
)
_SELF = Reference(
    "Panickssery, Bowman & Feng", "LLM evaluators recognize and favor their own generations", 2024
)
_FRAGILE = Reference(
    "Broderick, Giordano & Meager",
    "An automatic finite-sample robustness metric: When can dropping a little data make a big difference?",
    2020,
)

_QIAN = Reference(
    "Qian, Sun, Gales & Knill", "Who can we trust? LLM-as-a-jury for comparative assessment", 2026
)
_NOT_SEVERAL = "a table with one judge (at least two judges must be weighted)"
_WILKS = Reference(
    "Wilks", "The large-sample distribution of the likelihood ratio for testing composite hypotheses", 1938
)
_CGM = Reference("Cameron, Gelbach & Miller", "Robust inference with multiway clustering", 2011)
_CM = Reference("Cameron & Miller", "A practitioner's guide to cluster-robust inference", 2015)
_FW = Reference("Field & Welsh", "Bootstrapping clustered data", 2007)
_SIMPSON = Reference("Simpson", "The interpretation of interaction in contingency tables", 1951)
_EB = Reference(
    "Efron & Morris", "Stein's estimation rule and its competitors: an empirical Bayes approach", 1973
)
_MAHALANOBIS = Reference(
    "Mahalanobis", "Recent experiments in statistical sampling in the Indian Statistical Institute", 1946
)
_NOT_CATEGORIES = "a table with fewer than two categories of at least 30 verdicts"
_GOOD = Reference("Good", "Permutation, Parametric, and Bootstrap Tests of Hypotheses", 2005)
_NOT_TIMED = "a table without judging times (the optional judging-time column)"
_NOT_REPEATED = "a table where no item (instruction and the two models in the same slots) was judged twice at different times"

_NOT_SINGLE = "a table judged in one slot order only (no pair seen in both orders)"
_NOT_LABELS = "a table without human labels for the pair"


def _q(*args: Any, **kwargs: Any) -> Quantity:
    return Quantity(*args, **kwargs)


_ENTRIES = (
    # -- what is loaded ---------------------------------------------------------------------
    _q(
        "models",
        "Models",
        "Distinct models in the selection.",
        "models",
        "count",
        "Counted.",
        json_keys=("n_models", "models"),
    ),
    _q(
        "instructions",
        "Instructions",
        "Distinct instructions (prompts) with at least one call.",
        "instructions",
        "count",
        "Counted.",
        json_keys=("instructions", "n_instructions"),
    ),
    _q(
        "judges",
        "Judges",
        "Distinct judges in the file.",
        "judges",
        "count",
        "Counted.",
        json_keys=("judges",),
    ),
    _q(
        "calls",
        "Judge calls",
        "Rows of the verdict table: one judge call each.",
        "judge calls",
        "count",
        "Counted.",
        json_keys=("rows", "calls"),
    ),
    _q(
        "labelled_calls",
        "Human-labelled calls",
        "Judge calls that also carry a human label.",
        "judge calls",
        "count",
        "Counted.",
        json_keys=("labelled_rows", "labelled_calls"),
    ),
    _q(
        "no_verdict_rate",
        "No-verdict rate",
        "Share of a judge's calls that returned no verdict.",
        "percent",
        "percent",
        "Calls without a verdict divided by calls.",
        json_keys=("no_verdict_rate",),
    ),
    # -- ranking ----------------------------------------------------------------------------
    _q(
        "rating",
        "Rating",
        "A model's Bradley–Terry strength on the Elo scale (mean 1000).",
        "Elo points",
        "elo",
        "Maximum likelihood on the pooled win matrix, a tie half a win each; 95% interval from "
        "instruction bootstrap rounds (2.5 and 97.5 percentiles).",
        _BT,
        json_keys=("rating", "all_pairs_rating", "plain_rating"),
    ),
    _q(
        "resampling_units",
        "Resampling units",
        "How many independent units the intervals resample: instructions, or the sessions, "
        "voters or runs of the column chosen.",
        "resampling units",
        "count",
        "Distinct values of the unit column among the ranked calls; a call without a value is "
        "its own instruction's unit.",
        _FW,
        json_keys=("n_units",),
    ),
    _q(
        "cluster_widening",
        "Interval widening by unit",
        "How much wider the intervals are when clustered by the chosen unit column than over "
        "instructions (median over models).",
        "ratio",
        "times",
        "Median over models of the sandwich standard error with scores summed per unit divided by the "
        "one with scores summed per instruction; said in words from 1.1.",
        _CM,
        "The unit is the instruction (nothing to compare).",
        json_keys=("cluster_widening",),
    ),
    _q(
        "weighting_shift",
        "Shift from pair weighting",
        "How far inverse pair-frequency weighting moved a model's rating (weighted minus unweighted).",
        "Elo points",
        "signed_elo_1",
        "Both fits by maximum likelihood; weighted, each call of a pair counts the mean battles per "
        "pair divided by the pair's battles, so every pair that met weighs the same.",
        _BT,
        "No weighting asked for.",
        json_keys=("weighting_shift",),
    ),
    _q(
        "pooled_rating",
        "Pooled rating",
        "A model's strength when several judges are pooled, each weighted by its estimated "
        "reliability, on the Elo scale (mean 1000).",
        "Elo points",
        "elo",
        "Maximum likelihood of the judge-aware Bradley–Terry model (a reliability and a slot lean "
        "per judge, mean reliability 1); 95% interval from instruction bootstrap rounds (2.5 and "
        "97.5 percentiles).",
        _QIAN,
        _NOT_SEVERAL,
        json_keys=("pooled_rating",),
    ),
    _q(
        "judge_weight",
        "Judge weight",
        "How sharply a judge's verdicts follow the rating gap, relative to the pooled judges' mean "
        "(1); 0 for a judge left out.",
        "coefficient",
        "coefficient_2",
        "The judge's reliability in the judge-aware Bradley–Terry model, bounded at 0 and at a "
        "multiple of the other judges' median; 95% interval from the instruction bootstrap.",
        _QIAN,
        _NOT_SEVERAL,
        json_keys=("weight", "judge_weights"),
    ),
    _q(
        "judge_slot_lean",
        "Judge slot lean",
        "The chance a judge gives slot A between two equally rated models (50%: no lean).",
        "percent",
        "percent",
        "The judge's order term in the judge-aware Bradley–Terry model, as a probability.",
        _QIAN,
        _NOT_SEVERAL,
        json_keys=("slot_lean",),
    ),
    _q(
        "judge_information_share",
        "Share of the pooled information",
        "The part of the pooled ranking's information that comes from a judge's verdicts.",
        "percent",
        "percent",
        "The information the judge's calls carry (its squared weight times each call's variance, summed) "
        "divided by the same sum over all judges.",
        _QIAN,
        _NOT_SEVERAL,
        json_keys=("information_share",),
    ),
    _q(
        "judge_tau_pooled",
        "Agreement with the pooled ranking",
        "Kendall's tau-b between one judge's own ranking and the pooled ranking.",
        "coefficient",
        "coefficient_2",
        "Kendall's tau-b of the judge's plain Bradley–Terry ratings and the pooled ratings.",
        _KENDALL,
        _NOT_SEVERAL,
        json_keys=("tau_with_pooled",),
    ),
    _q(
        "plain_pooling_tau",
        "Agreement of plain pooling",
        "Kendall's tau-b between the plainly pooled ranking (every verdict weighted alike) and the "
        "pooled ranking.",
        "coefficient",
        "coefficient_2",
        "Kendall's tau-b of the two sets of ratings.",
        _KENDALL,
        _NOT_SEVERAL,
        json_keys=("tau_plain_pooled",),
    ),
    _q(
        "lead_over_next",
        "Lead over the runner-up",
        "The leader's rating minus the second model's.",
        "Elo points",
        "signed_elo",
        "Difference of two ratings.",
        _BT,
    ),
    _q(
        "rank_range",
        "Rank range",
        "The 2.5 and 97.5 percentiles of a model's rank across bootstrap rounds over instructions, "
        "or, with sandwich intervals, across normal draws of the ratings from the sandwich.",
        "rank",
        "count",
        "Instruction bootstrap, or normal draws from the instruction-clustered sandwich.",
        _ARENA,
        json_keys=("best_rank", "worst_rank", "rank_low", "rank_high"),
    ),
    _q(
        "predicted_preference",
        "Predicted head-to-head preference",
        "How often the ratings predict the higher-rated model is preferred: the Bradley–Terry chance "
        "that the rating gap implies.",
        "percent",
        "percent",
        "Read off the rating gap; not a count of verdicts.",
        _BT,
    ),
    _q(
        "head_to_head_win_rate",
        "Head-to-head win rate, single calls",
        "Among the single-order calls between two models, wins plus half the ties, divided by the calls, both slots pooled.",
        "percent",
        "percent",
        "Counted over calls.",
        _ARENA,
        json_keys=("head_to_head_win_rate",),
    ),
    _q(
        "win_rate",
        "Win rate, all battles",
        "A model's wins plus half its ties, divided by its battles against every opponent, both slots "
        "pooled.",
        "percent",
        "percent",
        "Counted over calls.",
        _ARENA,
        json_keys=("win_rate",),
    ),
    _q(
        "battles",
        "Battles",
        "Calls with a verdict between two different models.",
        "judge calls",
        "count",
        "Counted.",
        json_keys=("battles",),
    ),
    _q(
        "differing_share_won",
        "Share of differing instructions won",
        "Among the instructions where two models' verdicts differ, the share the higher-ranked model "
        "won (the sign test's statistic).",
        "percent",
        "percent",
        "Counted per instruction; exact two-sided sign test.",
        _DY,
        json_keys=("win_probability",),
    ),
    _q(
        "sign_test_p",
        "Sign-test p-value",
        "Two-sided exact sign test of 'the two models are as good' on the differing instructions.",
        "probability",
        "coefficient",
        "Binomial tail.",
        _DY,
        json_keys=("p_value",),
    ),
    _q(
        "fragility",
        "Verdicts that flip the lead",
        "The fewest verdicts whose removal puts the runner-up ahead.",
        "verdicts",
        "count",
        "Greedy removal with an exact check.",
        _FRAGILE,
        json_keys=("n_drop",),
    ),
    _q(
        "fragility_flips",
        "Verdict flips that reverse the lead",
        "The fewest verdicts whose reversal puts the runner-up ahead: a win for one model turned "
        "into a win for the other, or a tie into a win for either (a judge's error, or a judge "
        "working against the leader). One reversal counts about as much as two removals.",
        "verdicts",
        "count",
        "Greedy reversal with an exact check, as for removals.",
        _FRAGILE,
        json_keys=("n_flip",),
    ),
    _q(
        "style_effect",
        "Style effect",
        "Elo points one standard deviation more of a style feature (length, Markdown) is worth.",
        "Elo points per standard deviation",
        "signed_elo_1",
        "Bradley–Terry with style covariates.",
        _STYLE,
    ),
    # -- anchors -----------------------------------------------------------------------------
    _q(
        "informativeness",
        "Informativeness",
        "Share of (instruction, model pair) cases, the anchor excluded, whose verdicts against the "
        "anchor differ on the judge's full scale.",
        "percent",
        "percent",
        "Counted per slot order, never averaged across orders.",
        _DY,
        "a table with one battle per prompt (no instruction holds two models against the anchor)",
        json_keys=("informativeness",),
    ),
    _q(
        "anchor_top_share",
        "Top-anchor share",
        "Share of bootstrap resamples of the instructions in which the recommended anchor is the "
        "most informative one.",
        "percent",
        "percent",
        "Instructions resampled with replacement; the informativeness of every anchor recomputed "
        "in each resample.",
        Reference("Efron & Tibshirani", "An introduction to the bootstrap", 1993),
    ),
    _q(
        "pair_informativeness",
        "Pair's differing share",
        "For one pair of models compared against an anchor: the share of instructions where the two "
        "verdict differences are not zero.",
        "percent",
        "percent",
        "Counted per instruction.",
        _DY,
    ),
    _q(
        "mean_pair_informativeness",
        "Mean pair's differing share",
        "The mean of the pairs' differing shares over the distributions a simulation uses.",
        "percent",
        "percent",
        "Mean over pairs.",
        _DY,
    ),
    _q(
        "adjacent_differing_share",
        "Differing share, adjacent pairs",
        "Over adjacent pairs of the leaderboard compared head to head: the share of instructions "
        "where their verdicts differ (the informativeness of direct comparison).",
        "percent",
        "percent",
        "Mean over adjacent pairs.",
        _DY,
    ),
    _q(
        "tau_all_pairs",
        "Agreement with the all-pairs ranking",
        "Kendall's tau-b between the ranking by win rate against the anchor and the all-pairs ranking.",
        "coefficient",
        "coefficient",
        "Kendall's tau-b (ties counted in the denominator's correction).",
        _KENDALL,
        json_keys=("tau_all_pairs", "tau"),
    ),
    _q(
        "tau_humans",
        "Agreement with the human ranking",
        "Kendall's tau-b between the ranking by win rate against the anchor and the human ranking.",
        "coefficient",
        "coefficient",
        "Kendall's tau-b.",
        _KENDALL,
        "a run without a human ranking",
        json_keys=("tau_human",),
    ),
    _q(
        "win_rate_vs_anchor",
        "Win rate against the anchor",
        "A model's wins plus half its ties, divided by its battles against the anchor.",
        "percent",
        "percent",
        "Counted over calls.",
        _DY,
    ),
    _q(
        "no_model_wins",
        "Instructions the anchor sweeps",
        "Share of instructions on which the anchor beats every model (no ranking signal there at "
        "the win/tie/loss level).",
        "percent",
        "percent",
        "Counted per instruction.",
        _DY,
        json_keys=("no_model_wins_share",),
    ),
    # -- power -------------------------------------------------------------------------------
    _q(
        "discordant_needed",
        "Differing instructions needed",
        "Instructions on which the two models must differ for the sign test to detect the edge "
        "(one-sided, normal approximation).",
        "instructions",
        "count",
        "The one-sided sign test's sample size by the normal approximation, rounded up to a whole "
        "instruction.",
        _DY,
        json_keys=("discordant",),
    ),
    _q(
        "instructions_needed",
        "Instructions needed (sign test, calculated)",
        "Instructions to judge so that the sign test detects the edge: the differing instructions "
        "needed divided by the share of instructions where the two models differ (the anchor's "
        "informativeness, or the decisive share of direct comparisons).",
        "instructions",
        "count",
        "The differing instructions needed divided by the informativeness, rounded up; the lead answer "
        "to 'how many instructions'.",
        _DY,
        json_keys=("total", "instructions_needed"),
    ),
    _q(
        "instructions_needed_sign_sim",
        "Instructions needed (simulated sign test)",
        "The smallest N on the simulation grid where the sign test on this file's verdict differences "
        "reaches the target power.",
        "instructions",
        "count",
        "Monte Carlo over resampled instructions; a comparison beside the calculation.",
        _DY,
        json_keys=("n_sign",),
    ),
    _q(
        "instructions_needed_wilcoxon_sim",
        "Instructions needed (simulated Wilcoxon test)",
        "The smallest N on the simulation grid where the Wilcoxon signed-rank test on this file's "
        "verdict differences reaches the target power.",
        "instructions",
        "count",
        "Monte Carlo; uses the size of each difference, not only its sign.",
        _WILCOXON,
        json_keys=("n_wilcoxon",),
    ),
    _q(
        "detectable_edge",
        "Smallest detectable edge",
        "The smallest edge (share of differing instructions won, minus 50%) the one-sided sign test "
        "detects with the differing instructions at hand.",
        "percent",
        "signed_percent",
        "Inverts the sign-test power.",
        _DY,
        json_keys=("detectable_edge",),
    ),
    _q(
        "observed_edge",
        "Observed edge",
        "Share of differing instructions the higher-ranked model won, minus 50%.",
        "percent",
        "signed_percent",
        "Counted per instruction.",
        _DY,
        json_keys=("observed_edge",),
    ),
    _q(
        "adjacent_resolved",
        "Adjacent pairs separated",
        "Adjacent leaderboard pairs whose two-sided sign test, Holm-adjusted, rejects 'as good'.",
        "model pairs",
        "count",
        "Sign test with Holm's adjustment.",
        _HOLM,
    ),
    # -- the judge ---------------------------------------------------------------------------
    _q(
        "position_bias",
        "Position bias",
        "How much more often slot A wins than slot B, on pairs judged in both orders, the two orders "
        "weighted equally (above 0 favours the first slot).",
        "percentage points",
        "points",
        "Slot-balanced difference of rates; "
        "95% interval: the delta method with a cluster-robust standard error over instructions (on request, instruction bootstrap).",
        _ZHENG,
        _NOT_SINGLE,
        json_keys=("position_bias_points",),
    ),
    _q(
        "swap_consistency",
        "Swap consistency",
        "Share of pairs judged in both orders whose verdict is the same in both.",
        "percent",
        "percent",
        "Counted over pairs in both orders; 95% interval: Wilson on the effective sample size with instructions as clusters (on request, instruction bootstrap).",
        _ZHENG,
        _NOT_SINGLE,
        json_keys=("swap_consistency",),
    ),
    _q(
        "same_winner_both_orders",
        "Same winner in both orders",
        "Share of pairs judged in both orders where both orders name the same winner (a tie in "
        "either order does not count): how often the judge gives a decision that survives the swap.",
        "percent",
        "percent",
        "Counted over pairs in both orders; the default judge is the one with the highest share.",
        _ZHENG,
        _NOT_SINGLE,
        json_keys=("same_winner_both_orders",),
    ),
    _q(
        "flip_rate",
        "Flip rate",
        "Share of pairs judged in both orders whose verdict changes when "
        "the answers swap places (one minus the swap consistency).",
        "percent",
        "percent",
        "Counted over pairs in both orders; 95% interval: Wilson on the effective sample size with instructions as clusters (on request, instruction bootstrap).",
        _ZHENG,
        _NOT_SINGLE,
        json_keys=("flip_rate",),
    ),
    _q(
        "tie_rate",
        "Tie rate, single order",
        "Share of the judge's verdicts that are ties, each call on its own.",
        "percent",
        "percent",
        "Counted over calls; 95% interval: Wilson on the effective sample size with instructions as clusters (on request, instruction bootstrap).",
        json_keys=("tie_rate", "tie_verdict_rate"),
    ),
    _q(
        "both_orders_tie_rate",
        "Tie rate, both orders",
        "Share of pairs judged in both orders that end as a tie once the two orders are combined "
        "(a disagreement counts as a tie).",
        "percent",
        "percent",
        "Counted over pairs; 95% interval: Wilson on the effective sample size with instructions as clusters (on request, instruction bootstrap).",
        None,
        _NOT_SINGLE,
        json_keys=("both_orders_tie_rate",),
    ),
    _q(
        "slot_bias",
        "Slot-A bias",
        "Half the sum of a model's mean verdict in slot A and its slot-A-oriented mean verdict in "
        "slot B: the pull of the first slot on a −2…+2 scale.",
        "coefficient",
        "signed_coefficient",
        "Order-swap decomposition; "
        "95% interval: the delta method with a cluster-robust standard error over instructions (on request, instruction bootstrap).",
        _ZHENG,
        _NOT_SINGLE,
        json_keys=("slot_bias_b", "b"),
    ),
    _q(
        "preference_net",
        "Preference net of position",
        "Half the difference of a model's mean verdict in slot A and in slot B: its margin over the "
        "opponents with the slot effect removed.",
        "coefficient",
        "signed_coefficient",
        "Order-swap decomposition; "
        "95% interval: the delta method with a cluster-robust standard error over instructions (on request, instruction bootstrap).",
        _ZHENG,
        _NOT_SINGLE,
        json_keys=("q",),
    ),
    _q(
        "agreement",
        "Agreement with humans",
        "Share of labelled calls where judge and human name the same outcome (win / tie / loss).",
        "percent",
        "percent",
        "Counted over labelled calls; 95% interval: Wilson on the effective sample size with "
        "labelled instructions as clusters (on request, bootstrap over labelled instructions).",
        _ZHENG,
        "a table without human labels",
        json_keys=("agreement",),
    ),
    _q(
        "kappa",
        "Cohen's kappa",
        "Agreement with humans beyond chance (3 classes).",
        "coefficient",
        "coefficient",
        "Cohen's kappa on labelled calls; 95% interval: the delta method with a cluster-robust "
        "standard error over labelled instructions (on request, bootstrap).",
        _COHEN,
        "a table without human labels",
        json_keys=("kappa",),
    ),
    _q(
        "human_alpha",
        "Agreement among humans",
        "Krippendorff's alpha among the human judgements of "
        "pairs with two labels or more (agreement beyond chance).",
        "coefficient",
        "coefficient",
        "Krippendorff's alpha, nominal.",
        Reference("Krippendorff", "Content analysis: An introduction to its methodology", 2004),
        "a table with at most one label per pair",
        json_keys=("human_alpha",),
    ),
    _q(
        "human_ceiling_agreement",
        "Human ceiling, agreement",
        "How often one human label matches "
        "the majority of the pair's other labels: the agreement a second human reaches.",
        "percent",
        "percent",
        "Leave-one-out over labels.",
        _ZHENG,
        "a table with at most one label per pair",
        json_keys=("human_ceiling_agreement", "ceiling_agreement"),
    ),
    _q(
        "human_ceiling_kappa",
        "Human ceiling, kappa",
        "Cohen's kappa of one human label against the others.",
        "coefficient",
        "coefficient",
        "Leave-one-out over labels.",
        _COHEN,
        "a table with at most one label per pair",
        json_keys=("human_ceiling_kappa", "ceiling_kappa"),
    ),
    _q(
        "self_comparison_tie_rate",
        "Self-comparison ties",
        "Share of the calls comparing a model with itself that end as a tie.",
        "percent",
        "percent",
        "Counted.",
        None,
        "a table without self-comparisons",
        json_keys=("self_comparison_tie_rate",),
    ),
    _q(
        "slot_balance",
        "Slot balance",
        "Share of calls in model pairs judged in both slot orders.",
        "percent",
        "percent",
        "Counted.",
        json_keys=("balanced_share",),
    ),
    _q(
        "pairs_both_orders",
        "Model pairs in both orders",
        "Model pairs with calls in both slot orders.",
        "model pairs",
        "count",
        "Counted.",
        json_keys=("pairs_both_orders",),
    ),
    _q(
        "length_rank_changes",
        "Models that change rank",
        "Models whose rank differs once length is controlled for.",
        "models",
        "count",
        "Ranks of two Bradley–Terry fits compared.",
        _STYLE,
        json_keys=("length_rank_changes",),
    ),
    _q(
        "length_effect",
        "Length effect",
        "Elo points a standard deviation of relative length is worth to the judge.",
        "Elo points per standard deviation",
        "signed_elo_1",
        "Bradley–Terry with a length covariate.",
        _STYLE,
        "a table without answer lengths",
        json_keys=("length_gamma", "gamma", "length_coefficient", "length_coefficient_elo_per_sd"),
    ),
    _q(
        "self_preference",
        "Self-preference",
        "Extra Elo points the judge gives models of its own family, against another judge's ratings.",
        "Elo points",
        "signed_elo_1",
        "Difference of rating differences; 95% interval: the delta method through the regression "
        "and every judge's fit, a cluster-robust sandwich over instructions (on request, instruction "
        "bootstrap).",
        _SELF,
        "a run without model families",
        json_keys=("delta", "self_preference_elo"),
    ),
    # -- tie structure -----------------------------------------------------------------------
    _q(
        "same_level_chance",
        "Same-level chance",
        "The chance two random calls of the judge give the same verdict level (sum of squared "
        "level shares); not the share of TIE verdicts.",
        "percent",
        "percent",
        "Sum of squared level shares.",
        _GONDARA,
        json_keys=("tie_probability", "ties_tie_probability"),
    ),
    _q(
        "effective_levels_entropy",
        "Effective levels, entropy",
        "The number of equally used levels with the same Shannon entropy (exp of the entropy).",
        "levels",
        "levels",
        "Hill number of order 1.",
        _GONDARA,
        json_keys=("d1", "ties_d1"),
    ),
    _q(
        "effective_levels_collision",
        "Effective levels, collisions",
        "One divided by the same-level chance: the number of equally used levels with the same chance of two calls "
        "matching (never above the entropy version).",
        "levels",
        "levels",
        "Hill number of order 2.",
        _GONDARA,
        json_keys=("d2", "ties_d2"),
    ),
    _q(
        "distinct_levels",
        "Distinct levels",
        "Verdict levels used at least once.",
        "levels",
        "count",
        "Counted.",
        _GONDARA,
        json_keys=("distinct", "distinct_levels", "ties_distinct_levels"),
    ),
    _q(
        "tau_a",
        "Kendall's tau-a",
        "Rank agreement of the judge with the reference within an "
        "instruction, a pair the judge ties counting zero; mean over instructions.",
        "coefficient",
        "coefficient",
        "Kendall's tau-a.",
        Reference("Kendall", "A new measure of rank correlation", 1938),
        json_keys=("tau_a",),
    ),
    _q(
        "tau_b",
        "Kendall's tau-b",
        "Rank agreement within an instruction with the ties corrected "
        "for; mean over the instructions where it is defined.",
        "coefficient",
        "coefficient",
        "Kendall's tau-b.",
        _KENDALL,
        json_keys=("tau_b",),
    ),
    _q(
        "somers_d",
        "Somers' D",
        "Asymmetric rank agreement with the reference (ties of the judge "
        "count against it); mean over instructions.",
        "coefficient",
        "coefficient",
        "Somers' D.",
        Reference("Somers", "A new asymmetric measure of association for ordinal variables", 1962),
        json_keys=("somers_d",),
    ),
    _q(
        "top1",
        "Top-1 agreement",
        "Share of instructions where the judge's best model is the reference's best (shared tops split).",
        "percent",
        "percent",
        "Counted per instruction.",
        _GONDARA,
        json_keys=("top1",),
    ),
    _q(
        "uniform_top1",
        "Top-1 agreement by chance",
        "The top-1 agreement a judge picking at random would reach.",
        "percent",
        "percent",
        "Expected value.",
        _GONDARA,
        json_keys=("uniform_top1",),
    ),
    _q(
        "reference_top_tied",
        "Reference's tied top",
        "Share of instructions where the reference itself ties the best models.",
        "percent",
        "percent",
        "Counted per instruction.",
        _GONDARA,
        json_keys=("reference_top_tied",),
    ),
    _q(
        "top_tied_share",
        "Instructions with a tied top",
        "Share of instructions (two models or more) whose best score is shared by two models or more.",
        "percent",
        "percent",
        "Counted per instruction.",
        _GONDARA,
        json_keys=("top_tied",),
    ),
    # -- both bad, kept apart from tie -------------------------------------------------------
    _q(
        "both_bad_share_of_ties",
        "Both-bad share of ties",
        'Share of the ties that say both answers were bad (Chatbot Arena\'s "tie (bothbad)"), '
        "among the ties whose both-bad mark is known. Every ranking still counts them as ties.",
        "percent",
        "percent",
        "Counted over calls with a verdict, self-comparisons left out.",
        _ARENA,
        "tables without a both-bad mark (no both-bad column, no tie (bothbad) verdict)",
        json_keys=("both_bad_share_of_ties",),
    ),
    _q(
        "both_bad_share_of_verdicts",
        "Both-bad share of verdicts",
        "Share of all verdicts that are ties saying both answers were bad.",
        "percent",
        "percent",
        "Counted over calls with a verdict, self-comparisons left out.",
        _ARENA,
        "tables without a both-bad mark (no both-bad column, no tie (bothbad) verdict)",
        json_keys=("both_bad_share_of_verdicts",),
    ),
    # -- ties as data: the ranking under three tie conventions ---------------------------------
    _q(
        "tie_parameter",
        "Davidson's tie parameter",
        "How readily the judge calls a tie between two models, beyond what their strengths "
        "explain: 0 never, 1 a tie as likely as either win between equal models.",
        "coefficient",
        "coefficient",
        "Maximum likelihood of Davidson's extension of Bradley–Terry (a tie has probability "
        "proportional to the parameter times the geometric mean of the two strengths); 95% "
        "interval from instruction bootstrap rounds (2.5 and 97.5 percentiles), or from the "
        "profile likelihood without rounds or with fewer than 20 instructions.",
        _DAVIDSON,
        "verdicts without a single tie (the estimate would sit at zero) or with nothing but ties",
        json_keys=("tie_parameter",),
    ),
    _q(
        "tie_chance_equal_models",
        "Tie chance between equal models",
        "The chance Davidson's model gives a tie between two equally strong models.",
        "percent",
        "percent",
        "The tie parameter divided by (2 + the tie parameter).",
        _DAVIDSON,
        "verdicts without a single tie or with nothing but ties",
        json_keys=("tie_chance_equal_models",),
    ),
    _q(
        "rating_ties_dropped",
        "Rating, ties dropped",
        "A model's Bradley–Terry strength fitted to the decisive verdicts only, on the Elo scale "
        "(mean 1000).",
        "Elo points",
        "elo",
        "Maximum likelihood on the pooled decisive wins; one virtual tie per model against an "
        "average model where a strength would be infinite.",
        _BT,
        json_keys=("rating_ties_dropped",),
    ),
    _q(
        "rating_ties_modelled",
        "Rating, ties modelled",
        "A model's strength when ties are a third outcome of their own (Davidson's model), on the "
        "Elo scale (mean 1000).",
        "Elo points",
        "elo",
        "Maximum likelihood of Davidson's extension of Bradley–Terry on the pooled wins and ties.",
        _DAVIDSON,
        json_keys=("rating_ties_modelled",),
    ),
    _q(
        "models_moved_by_ties",
        "Models moved by the tie convention",
        "Models whose rank differs between two ways of counting ties (headline: ties modelled "
        "against a tie as half a win, the leaderboard's way).",
        "models",
        "count",
        "Ranks compared model by model (equal ratings share the better rank).",
        _DAVIDSON,
        json_keys=("models_moved",),
    ),
    _q(
        "largest_tie_move",
        "Largest move between tie conventions",
        "The most rank places one model moves between two ways of counting ties.",
        "rank",
        "count",
        "Largest absolute rank difference.",
        _DAVIDSON,
        json_keys=("largest_move",),
    ),
    _q(
        "convention_tau",
        "Rank agreement between tie conventions",
        "Kendall's tau-b between the rankings under two ways of counting ties: 1 is the same order.",
        "coefficient",
        "coefficient",
        "Kendall's tau-b over the models' ratings.",
        _KENDALL,
        json_keys=("convention_tau",),
    ),
    # -- calibration -------------------------------------------------------------------------
    _q(
        "printed_win_rate",
        "Printed win rate",
        "The judge's win rate for the candidate against the baseline, the number a calibration "
        "corrects: wins plus half the ties, divided by the pair's units, both-orders verdicts (a disagreement a tie) "
        "when the pair is judged in both orders, else single calls.",
        "percent",
        "percent",
        "Counted; Wilson interval clustered by instruction.",
        _WILSON,
        json_keys=("printed",),
    ),
    _q(
        "corrected_win_share",
        "Corrected share of human wins",
        "The share of human-called wins the judge's calls imply once its errors on the labelled "
        "pairs are undone (a tie is not a win here, unlike the printed win rate).",
        "percent",
        "percent",
        "Rogan–Gladen estimator with the Lang–Reiczigel interval.",
        _RG,
        _NOT_LABELS,
        json_keys=("corrected",),
    ),
    _q(
        "corrected_win_rate",
        "Corrected win rate",
        "The share of units a human would call a candidate win plus half the share a human would call a tie, both corrected for the judge's errors "
        "(the printed win rate's convention, a tie half a win).",
        "percent",
        "percent",
        "Rogan–Gladen on wins and on losses; bootstrap over instructions.",
        _RG,
        _NOT_LABELS,
        json_keys=("corrected_win_rate",),
    ),
    _q(
        "sensitivity",
        "Sensitivity",
        "Sensitivity: among labelled pairs the human called a win, the share the judge called a win.",
        "percent",
        "percent",
        "Counted over labelled both-orders verdicts.",
        _YOUDEN,
        _NOT_LABELS,
        json_keys=("se", "sensitivity"),
    ),
    _q(
        "specificity",
        "Specificity",
        "Specificity: among labelled pairs the human called a tie or a loss, the share the judge "
        "did not call a win.",
        "percent",
        "percent",
        "Counted over labelled both-orders verdicts.",
        _YOUDEN,
        _NOT_LABELS,
        json_keys=("sp", "specificity"),
    ),
    _q(
        "youden_j",
        "Youden's J",
        "Sensitivity plus specificity minus one: how much of the human signal "
        "survives in the judge's calls (0 none, 1 all).",
        "coefficient",
        "coefficient_2",
        "Sensitivity plus specificity minus one.",
        _YOUDEN,
        _NOT_LABELS,
        json_keys=("j", "youden_j"),
    ),
    _q(
        "correction_floor",
        "Correction floor, this labelled set",
        "The narrowest the corrected win rate's 95% interval can get however many pairs are judged, "
        "for this labelled set's own sensitivity, specificity and split of human wins.",
        "percentage points",
        "plus_minus_points",
        "Lang–Reiczigel half-width as judged pairs grow without bound.",
        _LR,
        _NOT_LABELS,
        json_keys=("floor",),
    ),
    _q(
        "planning_floor",
        "Planning floor",
        "The same floor for a planned labelled set: sensitivity and specificity both halfway between "
        "Youden's J and 1 (one plus J, halved), the "
        "labels split evenly between human wins and non-wins, a true win rate of 35–40%.",
        "percentage points",
        "plus_minus_points",
        "Lang–Reiczigel half-width, pseudo-counts applied, under the stated assumptions.",
        _LR,
        json_keys=("floor_points",),
    ),
    _q(
        "missed_human_wins",
        "Human wins the judge missed",
        "Labelled pairs (both-orders verdicts) the human called a win and the judge did not.",
        "verdicts",
        "count",
        "Counted.",
        None,
        _NOT_LABELS,
    ),
    _q(
        "cases_disagreeing",
        "Cases with a call that disagrees with the human",
        "Cases (instruction and pair, both orders) where at least one call has a verdict other than "
        "the human label.",
        "verdicts",
        "count",
        "Counted over calls.",
        None,
        _NOT_LABELS,
    ),
    _q(
        "pair_agreement_on_wins",
        "Agreement on human wins, this pair",
        "For the chosen pair's labelled both-orders verdicts: of the human wins, how many the judge "
        "also calls a win (the release gate's certification).",
        "verdicts",
        "count",
        "Counted; lower 95% Wilson bound against the threshold.",
        _WILSON,
        _NOT_LABELS,
    ),
    _q(
        "judge_agreement_on_wins",
        "Agreement on human wins, all labelled calls",
        "Over every labelled call of the judge: of the human wins, how many the judge also calls a "
        "win (the judge's certification).",
        "judge calls",
        "count",
        "Counted; lower 95% Wilson bound against the threshold.",
        _WILSON,
        "a table without human labels",
    ),
    _q(
        "judge_win_sensitivity",
        "Share of human wins the judge also calls a win",
        "Over every labelled call of the judge: the human wins (slot A's view) the judge also calls "
        "a win, as a share of the human wins (its sensitivity).",
        "percent",
        "percent",
        "Proportion with a 95% Wilson interval.",
        _WILSON,
        "a table without human labels",
        json_keys=("agreement_on_wins",),
    ),
    _q(
        "judge_non_win_specificity",
        "Share of human ties and losses the judge also calls a tie or loss",
        "Over every labelled call of the judge: the human ties and losses the judge also calls a "
        "tie or loss, as a share of them (its specificity).",
        "percent",
        "percent",
        "Proportion with a 95% Wilson interval.",
        _WILSON,
        "a table without human labels",
        json_keys=("agreement_on_non_wins",),
    ),
    _q(
        "ppi_rating",
        "Prediction-powered rating",
        "Bradley–Terry rating fitted to the judge on every pair and corrected by the human labels.",
        "Elo points",
        "elo",
        "Prediction-powered inference (PPI++) on Bradley–Terry.",
        _PPI,
        "a table without human labels",
        json_keys=("ppi",),
    ),
    _q(
        "head_to_head_rating_difference",
        "Head-to-head rating difference",
        "The Bradley–Terry rating difference of two models read off their head-to-head win rate: 400 "
        "times the base-10 logarithm of the win rate's odds (wins to losses).",
        "Elo points",
        "signed_elo",
        "Head-to-head win rate over the verdicts judged so far, a tie half a win, on the Elo scale.",
        _BT,
        "two models that never meet head-to-head",
        json_keys=("rating_difference",),
    ),
    _q(
        "rating_difference_sequence",
        "Rating difference, anytime-valid range",
        "A range for the head-to-head rating difference that holds at every number of verdicts at "
        "once, so it stays valid however often it is looked at while judging runs.",
        "Elo points",
        "signed_elo",
        "Normal-mixture confidence sequence for the head-to-head win rate (scores in 0–1, "
        "Hoeffding variance), intersected over time and mapped to Elo points; 95% unless chosen.",
        _HOWARD,
        "two models that never meet head-to-head",
        json_keys=("rating_lower", "rating_upper"),
    ),
    _q(
        "win_rate_sequence",
        "Head-to-head win rate, anytime-valid range",
        "A range for the head-to-head win rate that holds at every number of verdicts at once; in "
        "leader mode, the leader's smallest lower bound against any rival.",
        "percent",
        "percent",
        "Normal-mixture confidence sequence, intersected over time; the leader's pairs each at "
        "the error divided by the number of pairs.",
        _HOWARD,
        "two models that never meet head-to-head",
        json_keys=("sequence_lower", "sequence_upper"),
    ),
    _q(
        "verdicts_to_decision",
        "Verdicts to a decision",
        "How many verdicts, in the order judged, had arrived when the anytime-valid range first "
        "left out an even match (or the leader first beat every rival): where judging could stop.",
        "verdicts",
        "count",
        "First crossing of the confidence sequence; none while the range still includes an even match.",
        _HOWARD,
        "two models that never meet head-to-head",
        json_keys=("stopped_at",),
    ),
    _q(
        "verdicts_judged_so_far",
        "Verdicts judged so far",
        "The head-to-head verdicts the anytime-valid range has read (the pair's, or every pair's for "
        "the leader).",
        "verdicts",
        "count",
        "Counted over verdicts with a verdict between two different models.",
        None,
        json_keys=("n_verdicts",),
    ),
    _q(
        "budget_calls",
        "Judge calls to buy",
        "For a budget: how many judge calls of the two models the plan buys (the labelled ones included).",
        "judge calls",
        "count",
        "Minimises the interval's variance under the budget: calls in proportion to the spread of "
        "the judge's scores divided by the square root of a call's price.",
        _PPI_2023,
        json_keys=("calls_to_buy",),
    ),
    _q(
        "budget_labels",
        "Human labels to buy",
        "For a budget: how many of the judged calls the plan has a human label.",
        "labels",
        "count",
        "Labels in proportion to the spread of the human-minus-judge gap divided by the square root "
        "of a label's price (Neyman allocation of the prediction-powered variance).",
        _PPI_2023,
        "a table without human labels",
        json_keys=("labels_to_buy",),
    ),
    _q(
        "planned_width",
        "Planned interval width",
        "The width of the 95% interval on the (human-corrected) head-to-head win rate that the plan "
        "is expected to give (with anchors: the win rate implied by the two models' ratings against "
        "the anchors).",
        "percentage points",
        "share_points",
        "Twice 1.96 standard errors, the error combining the judge calls' variance and the human-judge "
        "gap's variance over the labels, both measured on the loaded table.",
        _PPI_2023,
        json_keys=("predicted_width",),
    ),
    _q(
        "planned_width_elo",
        "Planned interval width, Elo points",
        "The planned width on the rating difference: the win-rate width stretched to Elo points by the "
        "delta method "
        "(with anchors: the difference of the two models' ratings against the anchors).",
        "Elo points",
        "elo",
        "Delta method on the planned win-rate width.",
        _PPI_2023,
        json_keys=("predicted_width_elo",),
    ),
    _q(
        "planned_spend",
        "Planned spend",
        "What the plan's judge calls and human labels cost at the prices given.",
        "money",
        "money",
        "Calls times the price per call, plus labels times the price per label.",
        None,
        json_keys=("spent",),
    ),
    _q(
        "anchors_chosen",
        "Anchors to use",
        "For a budget: how many anchor models (each judged against every model on every instruction) "
        "give the narrowest interval on the two models' quantity; anchors are taken most informative "
        "first.",
        "models",
        "count",
        "The predicted 95% interval width for each number of anchors under the budget; the narrowest "
        "is chosen. More anchors cost more judge calls per instruction, so fewer instructions, but "
        "average the judge's noise over more comparisons.",
        _DY,
        "a table where the two models are not both judged against some other model on the same instructions",
        json_keys=("anchors_chosen",),
    ),
    _q(
        "instructions_affordable",
        "Instructions affordable",
        "For a budget and a number of anchors: how many instructions the plan buys, every model judged "
        "against every anchor on each.",
        "instructions",
        "count",
        "Neyman allocation of the budget between instructions (priced at their judge calls) and "
        "labelled instructions (priced at their human labels).",
        _PPI_2023,
        json_keys=("instructions_affordable",),
    ),
    _q(
        "labelled_instructions",
        "Instructions to label",
        "For a budget and a number of anchors: on how many of the bought instructions a human labels "
        "both models' calls against every anchor.",
        "instructions",
        "count",
        "Neyman allocation: in proportion to the spread of the human-minus-judge gap divided by the "
        "square root of a labelled instruction's price.",
        _PPI_2023,
        "a table without human labels on both models' calls against the anchors",
        json_keys=("labelled_instructions",),
    ),
    _q(
        "pilot_instructions",
        "Instructions measured on",
        "The loaded table's instructions the planned width for a number of anchors was measured on "
        "(those holding both models against every anchor; the labelled ones for a corrected width).",
        "instructions",
        "count",
        "Counted.",
        None,
        json_keys=("pilot_instructions",),
    ),
    _q(
        "size_calls",
        "Judge calls for the size",
        "The judge calls a size to collect needs: instructions times the design's judge calls per "
        "instruction (one less than the models against an anchor, every pair for all pairs, times "
        "the slot orders judged).",
        "judge calls",
        "count",
        "Instructions times the judge calls per instruction.",
        _DY,
        json_keys=("judge_calls",),
    ),
    _q(
        "size_cost",
        "Cost",
        "What a size to collect costs at the prices given: its judge calls times the price per call, "
        "or its human labels times the price per label.",
        "money",
        "money",
        "Judge calls times the price per call, plus human labels times the price per label.",
        None,
        "no prices given",
        json_keys=("cost",),
    ),
    _q(
        "spent_so_far",
        "Spent on the verdicts so far",
        "What the head-to-head verdicts read by the stopping rule cost, at the price per call given or "
        "the file's mean cost per call.",
        "money",
        "money",
        "Verdicts times the price per call.",
        None,
        json_keys=("spent_so_far",),
    ),
    _q(
        "cost_to_decision",
        "Cost to a decision",
        "What the verdicts up to the point where judging could have stopped cost.",
        "money",
        "money",
        "Verdicts to a decision times the price per call.",
        _HOWARD,
        "two models that never meet head-to-head",
        json_keys=("cost_to_decision",),
    ),
    _q(
        "label_share",
        "Share of the labels",
        "Of the labels to buy, the share the plan gives to one slot order of the two models: the "
        "order whose judge errors spread more narrows the interval more per label.",
        "percent",
        "percent",
        "In proportion to the spread of the human-minus-judge gap in that order (Neyman allocation).",
        _PPI_2023,
        "a table without human labels",
        json_keys=("label_share",),
    ),
    _q(
        "leader_stays",
        "Leader stays first, of the random halves",
        "In how many of the random halves of the instructions (50; fewer, down to 10, on a table "
        "of more than 40,000 pairs of models that met, and the sentence says how many), each "
        "refitted, the model that leads on all the data is (or shares) first place.",
        "random halves",
        "count",
        "Bradley–Terry refitted on random halves of the instructions.",
        _MAHALANOBIS,
        json_keys=("leader_stays",),
    ),
    _q(
        "top_three_stays",
        "Top three stay the top three, of the random halves",
        "In how many of the random halves of the instructions (as for the leader) the three "
        "leading models on all the data are the top three, in any order.",
        "random halves",
        "count",
        "Bradley–Terry refitted on random halves of the instructions.",
        _MAHALANOBIS,
        json_keys=("top_three_stays",),
    ),
    _q(
        "one_ranking_p",
        "One-ranking test p-value",
        "How surprising the differences between the categories' rankings would be if one ranking "
        "fitted every category; small means the categories rank the models differently.",
        "probability",
        "coefficient",
        "Likelihood ratio of one Bradley–Terry fit per category against the pooled fit, decisive "
        "verdicts, chi-squared reference.",
        _WILKS,
        _NOT_CATEGORIES,
    ),
    _q(
        "category_reversals",
        "Category reversals",
        "Pairs of models in one order overall and, with the 95% interval of the category's gap "
        "entirely on the other side of zero, in the opposite order within a category.",
        "model pairs",
        "count",
        "Shrunk category gap against the pooled gap.",
        _SIMPSON,
        _NOT_CATEGORIES,
        json_keys=("reversals",),
    ),
    _q(
        "category_rating",
        "Rating within a category",
        "A model's rating fitted to one category's verdicts and pulled toward its overall rating "
        "as far as the category's evidence is thin.",
        "Elo points",
        "elo",
        "Bradley–Terry per category, empirical-Bayes shrinkage toward the pooled fit.",
        _EB,
        _NOT_CATEGORIES,
        json_keys=("shrunk", "category_ratings"),
    ),
    _q(
        "category_spread",
        "Category spread",
        "How far, beyond chance, the category's ratings stray from the overall ones (a standard "
        "deviation); zero leaves the overall ratings in place.",
        "Elo points",
        "elo",
        "Method of moments over the category's models.",
        _EB,
        _NOT_CATEGORIES,
        json_keys=("category_spread", "spread"),
    ),
    _q(
        "verdicts_as_of",
        "Verdicts judged by the date",
        "Verdicts judged up to the end of the chosen day, the ones the leaderboard as of that date counts.",
        "verdicts",
        "count",
        "Counted on the judging times.",
        None,
        _NOT_TIMED,
        json_keys=("verdicts_used",),
    ),
    _q(
        "window_rating",
        "Rating in a time window",
        "A model's Bradley–Terry rating fitted to the verdicts judged in one time window only "
        "(centred in the window, so it compares with the other windows as gaps between models).",
        "Elo points",
        "elo",
        "Bradley–Terry maximum likelihood on the window's verdicts, 95% interval over instructions.",
        _BT,
        _NOT_TIMED,
        json_keys=("window_rating",),
    ),
    _q(
        "window_rank",
        "Rank in a time window",
        "A model's place on the leaderboard of one time window's verdicts (1 is first); the first "
        "and the last window's ranks say how the model moved.",
        "rank",
        "count",
        "Order of the window's ratings.",
        _BT,
        _NOT_TIMED,
        json_keys=("window_rank", "rank_first", "rank_last"),
    ),
    _q(
        "window_rating_change",
        "Rating change from the first to the last window",
        "How far a model's rating in the last time window lies from its rating in the first, with a "
        "95% interval from the two windows' intervals.",
        "Elo points",
        "signed_elo",
        "Difference of the two windows' ratings; the windows hold different verdicts, so their "
        "errors add as independent.",
        _BT,
        _NOT_TIMED,
        json_keys=("rating_change",),
    ),
    _q(
        "repeated_items",
        "Items judged twice",
        "Items (an instruction with the same model in each slot) judged at two or more different "
        "times: the pairs the judge drift test compares.",
        "instructions",
        "count",
        "Counted on the judging times.",
        None,
        _NOT_TIMED,
        json_keys=("repeated_items",),
    ),
    _q(
        "drift_p",
        "Judge drift test p-value",
        "How surprising the shift between the earlier and the later calls on the same items would be "
        "if the judge had not changed; small means the judge drifted.",
        "probability",
        "coefficient",
        "Hotelling's statistic on each repeated item's latest minus earliest call (slot A's score, "
        "tie or not), referred to random sign flips of whole items.",
        _GOOD,
        _NOT_REPEATED,
        json_keys=("drift_p",),
    ),
    _q(
        "drift_slot_shift",
        "Shift in slot A's score on repeated items",
        "The later calls' mean score for slot A (a win 1, a tie one half) minus the earlier calls' "
        "on the same items.",
        "percentage points",
        "points",
        "Mean of the paired differences, later minus earlier.",
        _GOOD,
        _NOT_REPEATED,
        json_keys=("slot_shift",),
    ),
    _q(
        "drift_tie_shift",
        "Shift in tie share on repeated items",
        "The later calls' share of ties minus the earlier calls' on the same items.",
        "percentage points",
        "points",
        "Mean of the paired differences, later minus earlier.",
        _GOOD,
        _NOT_REPEATED,
        json_keys=("tie_shift",),
    ),
)

#: Every reported quantity by id.
CATALOGUE: Mapping[str, Quantity] = {entry.id: entry for entry in _ENTRIES}

_BY_NAME = {entry.name.casefold(): entry.id for entry in _ENTRIES}

#: Keys of the CLI's ``--json`` that are not quantities: names, lists, settings, counts of
#: units behind a rate, interval bounds and containers.
STRUCTURAL_JSON_KEYS = frozenset(
    {
        # ties kept apart: the both-bad counts (null where the table keeps no mark)
        "both_bad",
        "marked_ties",
        # the fragility search: the pair, the outcomes and calls removed or reversed, the flags
        "ahead",
        "behind",
        "kind",
        "headline",
        "outcomes",
        "winner",
        "loser",
        "outcome",
        "available",
        "becomes",
        "instruction",
        "count",
        "flipped",
        "proven_minimal",
        "calls_listed_all",
        "exhaustive_refits",
        "max_drop",
        "max_flip",
        # the budget planner: the settings and the per-order label table
        "quantity",
        "budget",
        "price_per_call",
        "price_per_label",
        "label_orders",
        "order",
        "anchor_plan",
        "anchor_options",
        "anchor_models",
        # the anytime-valid monitor: which pair or leader, the order, the decision, the curve
        "mode",
        "model_a",
        "model_b",
        "leader",
        "ordered_by",
        "decided",
        "decision",
        "curve",
        "verdicts",
        # ties as data: the verdicts behind the fits, the comparisons' parts, ranks and words
        "tie_conventions",
        "tie_verdicts",
        "refusal",
        "orders_agree",
        "comparisons",
        "from",
        "to",
        "moved",
        "rank_ties_dropped",
        "rank_ties_modelled",
        # several judges pooled: each judge's counts, status and why, the biggest moves, settings
        "decisive_verdicts",
        "status",
        "reason",
        "moves",
        "plain_rank",
        "max_weight",
        "lean_fitted",
        # the category heterogeneity test's parts and the names of a reversal
        "statistic",
        "df",
        "one_ranking_rejected",
        "drivers",
        "per_category",
        "better_overall",
        "worse_overall",
        "in_every_category",
        # the ranking in time: the date, the windows' spans and the flags in words
        "as_of",
        "verdicts_later",
        "untimed",
        "split",
        "windows",
        "label",
        "start",
        "end",
        "drift_detected",
        "permutations",
        "time_windows",
        "judge_drift",
        # split-half stability: its parts (the counts are catalogued)
        "split_half",
        "top_three",
        "halves",
        "first_in",
        "overall",
        "raw",
        # flags and words of the design checks (one-slot models, few instructions, interval
        # choice, the certification's independence assumption, the resolution test used)
        "comparable",
        "only_slot",
        "few_instructions",
        "interval_reason",
        "independence",
        "detection_test",
        "agreed",
        "agreement_detail",
        "alpha",
        "alpha_level",
        "alpha_units",
        "anchor",
        "anchors",
        "baseline",
        "bootstrap_rounds",
        "interval_kind",
        "both_orders",
        "bound",
        "calls_both_orders",
        "calls_fwd",
        "calls_rev",
        "candidate",
        "candidate_scores",
        "categories",
        "category",
        "ceiling_n",
        "certification",
        "certified",
        "ci_high",
        "ci_low",
        "class",
        "columns_judge",
        "comparison",
        "confidence",
        "confusion",
        "converged",
        "counts",
        "coverage_by_length",
        "coverage_by_model",
        "design",
        "design_effects",
        "design_warnings",
        "discordant",
        "edge",
        "plans",
        "test",
        "true_share",
        "quality",
        "definition",
        "estimands",
        "exact",
        "exceeds_ceiling",
        "fit",
        "format",
        "high",
        "human_judgements",
        "human_labels",
        "human_models_matched",
        "informativeness_definition",
        "informativeness_source",
        "interval",
        "interval_method",
        "cluster",
        "weighting",
        "intervals",
        "judge",
        "labelled",
        "labelled_category",
        "lambda_tuned",
        "length_bin",
        "length_control",
        "length_max",
        "length_min",
        "level",
        "level_counts",
        "levels",
        "losses",
        "low",
        "lower",
        "lr_high",
        "lr_low",
        "method",
        "model",
        "models_ranked",
        "n",
        "n_calls",
        "n_human_not_wins",
        "n_human_wins",
        "n_instructions",
        "n_judged",
        "n_judgements",
        "n_labelled",
        "n_labelled_calls",
        "n_labelled_instructions",
        "n_labelled_pairs",
        "n_no_verdict",
        "n_pairs",
        "n_resolved",
        "naive_high",
        "naive_low",
        "name",
        "needs_all_pairs",
        "no_verdict",
        "no_verdict_calls",
        "non_wins",
        "note",
        "notes",
        "one_slot_models",
        "opponents",
        "order_swap_by_anchor",
        "orders",
        "pairings",
        "pairs",
        "pairs_judged",
        "pairs_possible",
        "passed",
        "piece",
        "position",
        "power",
        "all_pairs",
        "rank",
        "rank_lower",
        "rank_upper",
        "recommended",
        "recommended_by",
        "reference_kind",
        "refusal_reason",
        "refused",
        "resolution_correction",
        "resolution_test",
        "resolution_two_sided",
        "resolved",
        "rounds",
        "rows",
        "rows_human",
        "score",
        "seed",
        "self_comparison_calls",
        "self_comparison_rows",
        "self_preference",
        "sentence",
        "sizes",
        "slot_balance",
        "structure",
        "subject",
        "table",
        "threshold",
        "ties",
        "top_pair_resolved",
        "total",
        "transfer_warning",
        "two_sided",
        "unit",
        "unpaired_calls",
        "upper",
        "value",
        "win_rate_refusal",
        "wins",
        "youden",
    }
)

#: Secondary quantities that only ``--json`` and the downloads carry (no page tile, table heading
#: or sentence names them yet): listed so that a new key must be placed, in the catalogue or here.
DETAIL_JSON_KEYS = frozenset(
    {
        # the fragility search: the gap before and after, the share, the bounds and first order
        "gap",
        "gap_after",
        "share",
        "lower_bound",
        "first_order_drop",
        "first_order_flip",
        "first_order_flips",
        "gap_sd",
        "pooled_gap",
        "category_gap",
        "detection_level",
        "pairs_tested",
        "apparent",
        "both_orders_fraction",
        "both_orders_share",
        "ceiling",
        "ceiling_3_level",
        "ceiling_compression",
        "compression",
        "corrected_loss",
        "effective_labels",
        "gain",
        "human_only",
        "human_pair_agreement",
        "human_rate",
        "human_tie_share",
        "intercept",
        "judge_only",
        "judge_prints",
        "labels_needed",
        "lambda",
        "length_coefficient_logit_per_sd",
        "level_shares",
        "lower_wins",
        "max_floor",
        "mean_length",
        "more_labels",
        "order_balance",
        "p_holm",
        "prior_games",
        "all_pairs_tau_human",
        "r2",
        "rank_change",
        "rank_changes",
        "rank_lc",
        "rating_gap",
        "rating_lc",
        "reversal_rate",
        "self_comparison_mean_verdict",
        "shift",
        "slope",
        "slot_a_win_rate",
        "slot_b_win_rate",
        "slot_gap_points",
        "swap_consistency_exact",
        "tau_b_instructions",
        "upper_wins",
        "v_fwd",
        "v_rev",
        "youden_j_adjusted",
        "z_sd",
    }
)


def quantity(id: str) -> Quantity:
    """The entry ``id``; a KeyError naming the known ids otherwise."""
    try:
        return CATALOGUE[id]
    except KeyError:
        raise KeyError(f"{id!r} is not in the catalogue of quantities ({', '.join(CATALOGUE)})") from None


def name(id: str) -> str:
    """The plain-words name of quantity ``id`` (a tile label, a table heading)."""
    return quantity(id).name


def unit(id: str) -> str:
    """The unit of quantity ``id``."""
    return quantity(id).unit


def lookup(label: str) -> str | None:
    """The id whose name is ``label`` (case-insensitive), else None."""
    return _BY_NAME.get(label.strip().casefold())


def format(id: str, value: Any) -> str:  # noqa: A001 - the catalogue's one verb
    """``value`` written as quantity ``id`` is written everywhere (``—`` when missing).

    Examples
    --------
    >>> format("informativeness", 0.5845), format("instructions_needed", 1055.6)
    ('58.5%', '1,056')
    >>> format("correction_floor", 27.81), format("rating", float("nan"))
    ('±27.8 pp', '—')
    """
    number = finite_number(value)
    return MISSING if number is None else FORMATS[quantity(id).fmt](number)


def json_key_ids() -> dict[str, str]:
    """Every CLI ``--json`` key that carries a quantity, mapped to its catalogue id."""
    return {key: entry.id for entry in _ENTRIES for key in entry.json_keys}


def heading(key: object) -> tuple[str, str | None]:
    """A table column's heading as the app writes it, and its catalogue id (None when the column
    is not a quantity): a key of a quantity gives its name (an interval bound "(low)"/"(high)"),
    any other snake-case key is put in words. Headings already in words are kept.

    >>> heading("observed_edge"), heading("models_ranked"), heading("Model")
    (('Observed edge', 'observed_edge'), ('Models ranked', None), ('Model', None))
    """
    text = str(key)
    if "_" not in text and text[:1].isupper():
        return text, lookup(text)
    base, bound = text, ""
    for end in ("_low", "_high"):
        if text.endswith(end):
            base, bound = text[: -len(end)], f" ({end[1:]})"
    qid = json_key_ids().get(base) or (base if base in CATALOGUE else None)
    if qid is not None:
        return name(qid) + bound, qid
    words = text.replace("_", " ").strip()
    return (words[:1].upper() + words[1:]) if words else text, None


def glossary_entries_markdown() -> str:
    """Every quantity as a Markdown paragraph: the Methods page's glossary (the same words as
    ``docs/glossary.md``)."""
    out = []
    for q in _ENTRIES:
        parts = [f"**{q.name}** ({q.unit}): {q.definition} Method: {q.method}"]
        if q.reference is not None:
            parts.append(f"Reference: {q.reference}.")
        if q.not_identified:
            parts.append(f"Not computed on {q.not_identified}.")
        out.append("- " + " ".join(parts))
    return "\n".join(out)


def glossary_markdown() -> str:
    """``docs/glossary.md``: every quantity with its name, definition, unit, method and reference."""
    lines = [
        "# Glossary of reported quantities",
        "",
        "<!-- Generated from evalcore/quantities.py by scripts/write_glossary.py: edit the",
        "catalogue, not this file (a test fails when they differ). -->",
        "",
        GLOSSARY_INTRO,
        "",
        "| name | definition | unit | id |",
        "|---|---|---|---|",
    ]
    lines += [f"| {q.name} | {q.definition} | {q.unit} | `{q.id}` |" for q in _ENTRIES]
    lines.append("")
    for q in _ENTRIES:
        lines += [f"## {q.name}", "", q.definition, "", f"- Unit: {q.unit}.", f"- Method: {q.method}"]
        if q.reference is not None:
            lines.append(f"- Reference: {q.reference}.")
        if q.not_identified:
            lines.append(f"- Not computed on {q.not_identified}.")
        if q.json_keys:
            lines.append("- Command-line `--json` keys: " + ", ".join(f"`{k}`" for k in q.json_keys) + ".")
        lines.append("")
    return "\n".join(lines)
