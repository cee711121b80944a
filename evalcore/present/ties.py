"""Tie structure in words and display tables, in plain text: what the Tie structure page shows of a
:class:`~evalcore.ties.VerdictTieStructure`, an :class:`~evalcore.ties.Agreement`, a pointwise
table's diagnostics or its :class:`~evalcore.ties.VarianceShares`. The references are the
quantities' own (:mod:`evalcore.quantities`).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from evalcore import quantities as q
from evalcore.present.display import Column, Metric, catalogue_table, tile, tiles
from evalcore.text import MISSING, code_span, fmt_count, fmt_int, fmt_num, fmt_pct
from evalcore.ties.both_bad import BothBadShare
from evalcore.ties.conventions import TieConventions
from evalcore.ties.pairwise import VerdictTieStructure
from evalcore.ties.pointwise import pointwise_levels, pointwise_tie_structure
from evalcore.ties.variance import VarianceShares, variance_shares
from evalcore.ties.within import Agreement

#: The within-instruction score rules, in words.
SCORE_RULE_NAMES: dict[str, str] = {"soft": "soft (logistic)", "sign": "win share"}

#: The pointwise diagnostics in words, column → name: the tables, the charts and their picker.
DIAGNOSTICS: dict[str, str] = {
    "tie_probability": q.name("same_level_chance"),
    "distinct": "Distinct values",
    "d2_per_nominal": "Effective levels per nominal level",
    "d1": q.name("effective_levels_entropy"),
    "d2": q.name("effective_levels_collision"),
    "top_tied": q.name("top_tied_share"),
    "spearman": "Global Spearman",
    "tau_b": "Within-instruction " + q.name("tau_b"),
    "tau_a": "Within-instruction " + q.name("tau_a"),
    "somers_d": q.name("somers_d"),
    "top1": q.name("top1"),
}

_PAPER = 'Gondara et al., "The Format is the Filter" (2025)'

#: The page's explanations (Markdown, no user text).
EXPLAIN: dict[str, str] = {
    "intro": "A selector keeps the best-scored response and breaks ties at random: the fewer "
    "levels a judge really uses, the more of its choices are coin flips. This page "
    "measures that for the loaded **pairwise judge** and for a **pointwise score table** "
    "(binary, Likert, 0–100 …).",
    "score_rule": "How a model's calls on one instruction become its within-instruction score. "
    "Soft: each call gives slot A the logistic function of its verdict and slot B the rest, averaged "
    "over the model's calls (the tournament score of " + _PAPER + "). Win share: a "
    "win 1, a tie one half, a loss 0.",
    "stats": "**Same-level chance**: the chance two random calls get the same verdict level "
    "(not the tie rate, the share of TIE verdicts, shown apart). **Effective levels, entropy** "
    "and **effective levels, collisions**: the number of equally used levels with the same "
    "entropy, or the same same-level chance (never more than the distinct levels; the "
    "collision count never above the entropy count; definitions on the Methods page). **Distinct**: levels used at least once. "
    "**Tied top**: share of instructions (with two models or more) whose top is tied, i.e. at least two "
    "models share the highest within-instruction score, so a selector keeping the best "
    "response picks at random. Definitions: " + _PAPER + " and the Methods page.",
    "agreement": "Within each instruction, the judge's ranking of the models against the "
    "reference's, then averaged over instructions. A pair tied by either side counts "
    "in no numerator. **Tau-a** (Kendall's tau-a): concordant minus discordant pairs, over all "
    "pairs: a pair the judge ties scores 0, as for a selector that breaks the tie at "
    "random. **Tau-b** divides by the untied pairs instead, so a coarse judge is "
    "flattered (" + _PAPER + ": reference a > b > c, a judge accepting a and b gets "
    "a tau-a of 2/3 but a tau-b of about 0.82). **Somers' D** divides by the pairs the reference "
    "orders. **Top-1**: the chance the judge's top model (ties broken uniformly at "
    "random, exact expectation) is a reference top model; **uniform top-1** is the "
    "same for a selector that picks any model at random; **reference top tied** is the tied top "
    "for the reference.",
    "no_ranked": "No instruction has two or more models with a reference value here, so there is "
    "nothing to rank: the agreement needs at least two candidates per instruction.",
    "no_labels": "This judge has no human-labelled rows (a `human` column) in this selection, so "
    "there is no pairwise reference. Upload a verdict file with human labels on the "
    "**Data** page to compare the judge with them.",
    "no_ranking": "No reference score is loaded: add a human ranking (`model, score`) on the "
    "**Data** page to compare the judge's per-instruction order with it.",
    "pointwise": "A pointwise table scores each candidate response alone: `instruction_id, "
    "candidate, judge, format, score[, reference]` (higher is better; `reference` is "
    "a reference quality score). With several formats and judges, the variance "
    "shares say whether the **format** or the **judge** sets each diagnostic (" + _PAPER + ").",
    "no_pointwise": "No pointwise score table is loaded for this dataset. Upload one above, or use "
    "the bundled demo (simulated scores) to see what the section shows.",
    "no_reference": "This table has no `reference` column, so only the structural diagnostics "
    "are shown (no Kendall's tau, Somers' D, top-1 or Spearman).",
    "diagnostics": "Per format and judge: **parse rate** = rows with a score; **instructions** "
    "with two or more scored candidates; **distinct** scores emitted; **same-level chance** "
    "(two random candidates get the same score); two **effective levels** measures; **instructions with a tied top**, the share whose best score is shared. "
    "With a reference: **global Spearman** = rank correlation over all candidates; "
    "**Kendall's tau-b** and **tau-a**, **Somers' D**, **top-1** = means over instructions as above "
    "(" + _PAPER + ").",
    "no_shares": "Variance shares need at least two formats and two judges, each pair scored.",
    "conventions": "The leaderboard counts a tie as half a win for each side. Two other readings "
    "are as defensible: drop the ties and rank on the decisive verdicts only, or treat a tie "
    "as a third outcome with its own probability, which is larger between close models "
    "(Davidson, *On extending the Bradley–Terry model to accommodate ties in paired comparison "
    "experiments*, 1970). If the three rankings agree, how ties are counted does not matter for "
    "the order; where they disagree, the places that move rest on that choice.",
}


def level_metrics(result: VerdictTieStructure) -> list[Metric]:
    """Tie probability, D1, D2, distinct levels, the TIE share and T (with its interval)."""
    t_ci = result.intervals.get("top_tied")
    t_help = (
        f"95% interval {fmt_pct(t_ci.low, 1)} – {fmt_pct(t_ci.high, 1)} (bootstrap over instructions)"
        if t_ci is not None and t_ci.has_interval
        else "No interval: too few instructions, or every instruction alike."
    )
    top_tied = result.top_tied if result.instructions else MISSING
    return tiles(
        result.stats,
        [
            (
                "tie_probability",
                "same_level_chance",
                "The chance two random calls get the same verdict level (not the tie rate).",
            ),
            ("d1", "effective_levels_entropy", "Effective levels: exp(Shannon entropy)."),
            ("d2", "effective_levels_collision", "Effective levels: one divided by the same-level chance."),
            ("distinct", "distinct_levels"),
        ],
    ) + [tile("tie_rate", result.tie_verdict_rate), tile("top_tied_share", top_tied, t_help)]


def levels_display(result: VerdictTieStructure) -> pd.DataFrame:
    """The verdict-level distribution the page draws as bars, as a table."""
    columns: list[Column] = [("level", "Level", None), ("meaning", "Meaning", None), ("calls", "calls")]
    return catalogue_table(result.level_table(), [*columns, ("share", "Share", "pct1")])


def both_bad_metrics(share: BothBadShare) -> list[Metric]:
    """The both-bad share of the ties and of all verdicts (a table that carries the mark)."""
    counted = f"{fmt_int(share.both_bad)} of {fmt_int(share.marked_ties)} ties whose mark is known."
    return [
        tile("both_bad_share_of_ties", share.share_of_ties if share.marked_ties else MISSING, counted),
        tile(
            "both_bad_share_of_verdicts",
            share.share_of_verdicts if share.verdicts else MISSING,
            f"{fmt_int(share.both_bad)} of {fmt_count(share.verdicts, 'verdict')}.",
        ),
    ]


def calls_sentence(result: VerdictTieStructure, judge: str) -> str:
    """What the figures are computed on (plain text; ``judge`` is user text)."""
    return (
        f"Over {fmt_count(result.n_calls, 'call')} of {judge} with a verdict, on "
        f"{fmt_count(result.instructions, 'instruction')} with at least two models."
    )


def candidate_sentence(result: VerdictTieStructure) -> str | None:
    """The tie structure of the within-instruction scores the selector sees, or None."""
    cs = result.candidate_stats
    if cs is None:
        return None
    return (
        f"The within-instruction scores the selector sees ({SCORE_RULE_NAMES[result.score]}, "
        f"over {fmt_int(result.instructions)} instructions) take {fmt_int(cs.distinct)} "
        f"distinct values; two of these scores are equal with probability {fmt_pct(cs.tie_probability, 1)} (collision levels "
        f"{fmt_num(cs.d2, 1)}), the tournament row of {_PAPER}."
    )


def agreement_metrics(a: Agreement) -> list[Metric]:
    """tau-a, tau-b, Somers' D, top-1, uniform top-1 and the reference's top ties (empty when no
    instruction can be ranked: say :data:`EXPLAIN` ``["no_ranked"]`` instead)."""
    if a.instructions == 0:
        return []
    tau_b_help = (
        f"Defined on {fmt_int(a.tau_b_instructions)} of {fmt_int(a.instructions)} "
        "instructions (undefined where either side ties every candidate)."
    )
    return tiles(
        a,
        [
            ("tau_a", "tau_a", "Kendall's tau-a: a pair the judge ties counts 0."),
            ("tau_b", "tau_b", tau_b_help),
            *("somers_d", "top1", "uniform_top1", "reference_top_tied"),
        ],
    )


def human_heading(human: VerdictTieStructure) -> str:
    """The heading of the comparison with the human labels (Markdown, numbers only)."""
    instructions = human.agreement.instructions if human.agreement else 0
    return (
        f"**Against the human labels** ({fmt_int(human.n_calls)} labelled calls, "
        f"{fmt_int(instructions)} instructions with two or more labelled models)"
    )


def human_sentence(human: VerdictTieStructure) -> str:
    """How the human labels are scored, and the judge's share of tied tops on the labelled calls."""
    return (
        f"The human labels are scored like the judge's verdicts (the same "
        f"{SCORE_RULE_NAMES[human.score]} rule) on the same labelled calls, so both rankings "
        f"cover the same models and instructions. Share of instructions with a tied top for the judge on these calls: "
        f"{fmt_pct(human.top_tied, 1)}."
    )


def reference_heading(result: VerdictTieStructure) -> str:
    """The heading of the comparison with the loaded reference score (Markdown, numbers only)."""
    instructions = result.agreement.instructions if result.agreement else 0
    return (
        "**Against the reference score** (the human ranking loaded on the Data page, one "
        f"score per model; {fmt_int(instructions)} instructions)"
    )


def agreement_rows(result: VerdictTieStructure, human: VerdictTieStructure | None) -> pd.DataFrame:
    """One row per reference the judge was compared with (human labels, reference score)."""
    rows = []
    for name, r in (("human labels", human), ("reference score", result)):
        if r is not None and r.agreement is not None:
            a = r.agreement.as_dict()
            a.pop("reference_kind")
            rows.append({"reference": name, "calls": r.n_calls, **a})
    return pd.DataFrame(rows)


#: The agreement columns every ties table shares (catalogue ids: names and formats).
_AGREEMENT = ("tau_a", "tau_b", "somers_d", "top1")
_BY_CHANCE = ("reference_top_tied", "uniform_top1")


def agreement_display(rows: pd.DataFrame) -> pd.DataFrame:
    """:func:`agreement_rows` with human headings."""
    return catalogue_table(
        rows,
        [
            ("reference", "reference", None),
            ("calls", "calls", "int"),
            ("instructions", "instructions", "int"),
            ("tau_b_instructions", "instructions with tau-b", "int"),
            *_AGREEMENT,
            *_BY_CHANCE,
        ],
    )


#: The most instructions the page's per-instruction table shows; the CSV download holds every one.
#: An arena table has an instruction per battle: 1.8 million rows took seconds to write, to send
#: and to draw, for a table no one scrolls through in a browser.
PER_INSTRUCTION_ROWS = 1_000


def per_instruction_note(total: int, *, limit: int = PER_INSTRUCTION_ROWS) -> str:
    """What the per-instruction table leaves out ("" when it shows every instruction)."""
    if total <= limit:
        return ""
    return (
        f"The first {q.format('instructions', limit)} of {q.format('instructions', total)} "
        "instructions are shown, in the table's order; the download holds every one."
    )


def per_instruction_display(per_instruction: pd.DataFrame, *, limit: int | None = None) -> pd.DataFrame:
    """The per-instruction table (candidates, size of the top, whether it is tied); its first
    ``limit`` rows only when given (:data:`PER_INSTRUCTION_ROWS` on the page)."""
    return catalogue_table(
        per_instruction if limit is None else per_instruction.head(limit),
        [
            ("instruction_id", "instruction", None),
            ("candidates", "models scored", "int"),
            ("top_size", "models sharing the top", "int"),
            ("top_tied", "top tied", "yes_no"),
            ("ranked", "models with a reference", "int"),
            ("pairs", "model pairs", "int"),
            ("judge_tied", "pairs the judge ties", "int"),
            ("reference_tied", "pairs the reference ties", "int"),
            *_AGREEMENT,
        ],
    )


def convention_metrics(tc: TieConventions) -> list[Metric]:
    """Davidson's tie parameter (when identified), the models moved and the rank agreement
    between ties modelled and a tie as half a win (the leaderboard)."""
    head = tc.headline
    against = "Ties modelled against a tie as half a win (the leaderboard's way)."
    out = []
    if tc.identified:
        low = q.format("tie_parameter", tc.tie_parameter_low)
        high = q.format("tie_parameter", tc.tie_parameter_high)
        chance = q.format("tie_chance_equal_models", tc.tie_chance_equal)
        out.append(
            tile(
                "tie_parameter",
                tc.tie_parameter,
                f"95% interval {low} – {high} ({_interval_words(tc)}). Two equally strong models tie "
                f"with chance {chance}; 0 would mean the judge never ties.",
            )
        )
    out.append(tile("models_moved_by_ties", head.models_moved, against))
    out.append(tile("convention_tau", head.tau, against + " 1 is the same order."))
    return out


def _interval_words(tc: TieConventions) -> str:
    return f"{tc.interval}, {fmt_int(tc.rounds)} rounds" if tc.rounds else tc.interval


def conventions_display(tc: TieConventions) -> pd.DataFrame:
    """Each model's rating and rank under the three tie conventions, in the leaderboard's order."""
    return catalogue_table(
        tc.frame(),
        [
            ("model", "Model", None),
            ("rank", "Rank, a tie as half a win", None),
            ("rating", "Rating, a tie as half a win", "rating"),
            ("rank_ties_dropped", "Rank, ties dropped", None),
            "rating_ties_dropped",
            ("rank_ties_modelled", "Rank, ties modelled", None),
            "rating_ties_modelled",
        ],
    )


#: The pointwise upload: its label and the file endings it takes.
POINTWISE_UPLOAD = "Upload a pointwise score table (CSV, CSV.gz, Parquet, JSON Lines)"
POINTWISE_TYPES = ("csv", "gz", "tsv", "parquet", "pq", "jsonl", "ndjson", "json")


def no_calls_sentence(judge: str) -> str:
    """Why the pairwise section is empty (plain text: names the judge).

    Examples
    --------
    >>> no_calls_sentence("gpt-4")
    'Judge gpt-4 has no verdicts in this selection: choose another judge or category.'
    """
    return f"Judge {judge} has no verdicts in this selection: choose another judge or category."


def nothing_to_analyse(problem: str) -> str:
    """Why a pointwise table gives no diagnostics (plain text: quotes the table)."""
    return f"Nothing to analyse in this table: {problem.rstrip('.')}."


def pointwise_demo_note(file: str) -> str:
    """The caption under the bundled pointwise demo (Markdown; the file name is escaped).

    Examples
    --------
    >>> pointwise_demo_note("demo_pointwise.csv").split(" — ")[0]
    ':material/science: Bundled demo ` demo_pointwise.csv `'
    """
    return (
        f":material/science: Bundled demo {code_span(file)} — **simulated**: "
        "three made-up judges (`sim-judge-…`) score made-up responses in three formats."
    )


def table_sentence(table) -> str:
    """What a pointwise table holds (plain text; the file name is user text)."""
    frame = table.frame
    missing = table.missing_scores
    return (
        f"{table.file}: {fmt_int(len(frame))} rows, {fmt_int(frame['instruction_id'].nunique())}"
        f" instructions, {fmt_count(frame['format'].nunique(), 'format')}, "
        f"{fmt_count(frame['judge'].nunique(), 'judge')}."
        + (
            f" {fmt_count(missing, 'row')} {'has' if missing == 1 else 'have'} no score: counted in the parse rate, "
            "left out of everything else."
            if missing
            else ""
        )
    )


@dataclass(frozen=True)
class PointwiseAnalysis:
    """Everything the pointwise section shows: diagnostics per format and judge, the score
    distributions and the variance shares; or the ``problem`` that left nothing to analyse."""

    cells: pd.DataFrame | None = None
    levels: pd.DataFrame | None = None
    shares: VarianceShares | None = None
    problem: str | None = None


def pointwise_analysis(frame: pd.DataFrame) -> PointwiseAnalysis:
    """Run the pointwise diagnostics, distributions and variance shares on a score table.

    A table with nothing to analyse gives ``problem`` (a sentence) instead of raising.
    """
    try:
        cells = pointwise_tie_structure(frame)
        return PointwiseAnalysis(cells=cells, levels=pointwise_levels(frame), shares=variance_shares(cells))
    except ValueError as exc:
        return PointwiseAnalysis(problem=str(exc))


def diagnostics_display(cells: pd.DataFrame) -> pd.DataFrame:
    """Diagnostics per format and judge with human headings and sensible decimals."""
    return catalogue_table(
        cells,
        [
            *((c, c, None) for c in ("format", "judge")),
            *((c, c, "int") for c in ("rows", "scored")),
            ("parse_rate", "parse rate", "pct1"),
            *((c, c, "int") for c in ("instructions", "distinct")),
            ("tie_probability", "same_level_chance"),
            ("d1", "effective_levels_entropy"),
            ("d2", "effective_levels_collision"),
            ("top_tied", "top_tied_share"),
            ("d2_per_nominal", q.name("effective_levels_collision") + " per nominal level", "num2"),
            ("ranked_instructions", "ranked instructions", "int"),
            ("spearman", "global Spearman", "num3"),
            *_AGREEMENT,
            *_BY_CHANCE,
        ],
    )


def shares_display(shares: VarianceShares) -> pd.DataFrame:
    """Format, judge and residual shares per diagnostic, in words and percentages."""
    return catalogue_table(
        shares.table,
        [
            ("diagnostic", "diagnostic", lambda d: DIAGNOSTICS.get(str(d), str(d))),
            *((f"{c}_share", f"{c} share", "pct1") for c in ("format", "judge", "residual")),
            ("total_ss", "total sum of squares", "num3"),
        ],
    )


def shares_sentence(shares: VarianceShares) -> str:
    """How the variance shares are computed and read."""
    return (
        f"Each diagnostic's sum of squares over the {len(shares.formats)} × "
        f"{len(shares.judges)} format × judge grid, split into format, judge and residual "
        "(two-way analysis of variance with one value per cell, so the residual absorbs the "
        f"interaction; {_PAPER}). Structural diagnostics near 100% "
        "format mean the format, not the judge, fixes how many ties the scores contain."
    )


def upload_problem(error: str, previous=None) -> str:
    """Why an uploaded pointwise table was not loaded, and which table is still in use (plain
    text: it quotes the file and the offending value).

    Examples
    --------
    >>> upload_problem("bad.csv: row 2: score 'x' is not a number.")
    "bad.csv: row 2: score 'x' is not a number."
    """
    before = f" The pointwise table loaded before ({previous.file}) is still in use." if previous else ""
    return error.rstrip(".") + "." + before
