"""The ranking findings: who leads, and whether the data can separate the top two models."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from evalcore import quantities as q
from evalcore.findings.analyses import Analyses
from evalcore.findings.finding import (
    TILE_LABELS,
    Finding,
    cell_number,
    make_finding,
    unavailable_finding,
)
from evalcore.present.display import Metric
from evalcore.present.ranking import interval_clause, interval_text, rank_range_clause, rank_range_text
from evalcore.ranking import MIN_INSTRUCTIONS_FOR_NOMINAL, Leaderboard, win_probability
from evalcore.text import MISSING, finite_number, fmt_count, fmt_int, fmt_p, fmt_pct, fmt_rating


def _top_two(board: Leaderboard) -> pd.DataFrame:
    """The rows of the leader's piece of the comparison graph, best first, among the models whose
    ratings are comparable (a model that only ever sat in one slot carries the judge's slot
    preference in its rating and is left out)."""
    table = board.comparable_only().table
    if len(table) < 2:  # too few are comparable (two models, each in one slot): the fit's order
        table = board.table
    return table[table["piece"] == table["piece"].iloc[0]].reset_index(drop=True)


def few_instructions_caveat(board: Leaderboard) -> str:
    """The caveat that opens a ranking headline on a tiny table, or "" at or above
    :data:`~evalcore.ranking.MIN_INSTRUCTIONS_FOR_NOMINAL` instructions."""
    n = board.n_instructions
    if n >= MIN_INSTRUCTIONS_FOR_NOMINAL:
        return ""
    if n < 2:
        return (
            "With a single instruction there is nothing to resample, so no interval and no rank "
            "range can be given, and one instruction says little about the rest: "
        )
    return (
        f"Only {fmt_count(n, 'instruction')}, so read this as rough (below about "
        f"{MIN_INSTRUCTIONS_FOR_NOMINAL} instructions the intervals over instructions are too "
        "narrow: in simulation nominal 95% intervals covered the truth about 90% of the time with "
        "10 instructions and about 50% with 2): "
    )


def interval_words(row: pd.Series) -> str:
    """A model's interval in words: the Leaderboard's interval cell as "95% interval …", or "…, a
    one-sided 95% bound" for a model that never lost (or never won); or why there is none."""
    bound = str(row["bound"])
    cell = interval_text(float(row["ci_low"]), float(row["ci_high"]), bound)
    one_sided = bound in ("at least", "at most")
    if cell == MISSING:
        return "no bound" if one_sided else "no interval"
    return f"{cell}, a one-sided 95% bound" if one_sided else f"95% interval {cell}"


def _short_interval(row: pd.Series) -> str:
    """The interval for a tile: ``low–high``, ``at least low``, or ``no interval``."""
    words = interval_words(row)
    return words.removeprefix("95% interval ").removesuffix(", a one-sided 95% bound")


def _left_out(board: Leaderboard, leader: str) -> str:
    """A sentence naming the models ranked above the leader whose ratings are not comparable."""
    table = board.table
    above = []
    for _, row in table.iterrows():
        if str(row["model"]) == leader:
            break
        if not bool(row["comparable"]):
            above.append(f"{row['model']} (always in slot {row['only_slot']})")
    if not above:
        return ""
    return (
        f" {', '.join(above)} {'is' if len(above) == 1 else 'are'} rated higher but not comparable: "
        "a model that only ever sat in one slot carries the judge's slot preference in its rating, "
        "so it is left out of this headline."
    )


def time_lines(analyses: Analyses) -> tuple[tuple[str, str], ...]:
    """The ranking in time in words, one wording for every face (the Overview's leader finding,
    the report's leaderboard section): (key, sentence) when a model changed rank between the
    first and the last time window by more than chance allows (the Leaderboard's time section
    shows every move), and when the judge drifted on repeated items; empty otherwise (tables
    without judging times included)."""
    said = []
    windows, drift = analyses.time_windows, analyses.judge_drift
    if windows is not None and windows.moved_beyond_chance:
        said.append(("time-line", windows.sentence() + " (Bradley–Terry per time window.)"))
    if drift is not None and drift.detected:
        words = drift.sentence() + " (Sign-flip permutation test on items judged twice, Good 2005.)"
        said.append(("drift-line", words))
    return tuple(said)


def leader_finding(analyses: Analyses) -> Finding:
    """Who leads and by how much, with the intervals of the leader and the runner-up."""
    board = analyses.leaderboard
    if board is None:
        return unavailable_finding("leader", analyses.unavailable.get("leader", "No leaderboard."))
    top = _top_two(board)
    first = top.iloc[0]
    caveat = few_instructions_caveat(board)
    if not bool(first["comparable"]):  # too few comparable models to leave the others out
        caveat += (
            "Fewer than two models here were seen in both slots, so this order cannot separate "
            "strength from the judge's slot preference: "
        )
    status = "caution" if caveat else "clear"
    never_lost = str(first["bound"]) == "at least"
    definition = (
        "Bradley–Terry ratings on the Elo scale (mean 1000; a tie is half a win each). 95% "
        f"intervals: {interval_clause(board)} (seed {board.seed}); a model that never lost gets "
        "a one-sided bound instead, the rating at which its sweep has a 2.5% chance. Head-to-head "
        "share: the chance that one model beats another, read from their rating gap (400 points "
        "apart: ten wins to one)."
    )
    numbers: dict[str, Any] = {
        "leader": str(first["model"]),
        "rating": float(first["rating"]),
        **{k: finite_number(first[k]) for k in ("ci_low", "ci_high")},
        "bound": str(first["bound"]),
        **{k: finite_number(first[k]) for k in ("rank_low", "rank_high")},
        "models": int(len(board.table)),
        "instructions": board.n_instructions,
        "not_comparable": list(board.not_comparable),
    }
    rating_words = (
        f"a rating held finite by a prior (it never lost; {interval_words(first)})"
        if never_lost
        else f"a rating of {fmt_rating(first['rating'])} ({interval_words(first)})"
    )
    text = caveat + f"{first['model']} leads the {fmt_int(len(board.table))} models with {rating_words}"
    interval = _short_interval(first)
    note = f"{interval} (never lost)" if never_lost else f"{fmt_rating(first['rating'])} ({interval})"
    tiles: tuple[Metric, ...] = (Metric(TILE_LABELS["leader"], str(first["model"]), note),)
    if len(top) < 2:
        text += "." + _left_out(board, str(first["model"]))
        return make_finding("leader", status, tiles, text, definition, numbers)
    shared = top[top["rank"] == first["rank"]]
    if len(shared) > 1:
        # Several models share the top rating (e.g. an all-ties judge): nobody leads.
        names = ", ".join(str(m) for m in shared["model"].head(5))
        more = f" and {len(shared) - 5} more" if len(shared) > 5 else ""
        numbers["leader"] = None
        numbers["tied_at_the_top"] = [str(m) for m in shared["model"]]
        text = caveat + (
            f"No model leads: {names}{more} share the top rating of {fmt_rating(first['rating'])} "
            "on this judge's verdicts."
        )
        tiles = (Metric(TILE_LABELS["leader"], "none", f"{len(shared)} models tied at the top"),)
        return make_finding("leader", "caution", tiles, text, definition, numbers)
    second = top.iloc[1]
    gap = float(first["rating"] - second["rating"])
    share = float(win_probability(first["rating"], second["rating"]))
    numbers.update(
        {
            "runner_up": str(second["model"]),
            **{f"runner_up_{k}": float(second[k]) for k in ("rating", "ci_low", "ci_high")},
            "gap": gap,
            "head_to_head": share,
        }
    )
    second_words = f"{second['model']} ({fmt_rating(second['rating'])}, {interval_words(second)})"
    if never_lost:
        # The prior-held rating is no estimate: only the one-sided bound supports a share.
        low = cell_number(first["ci_low"])
        least = float(win_probability(low, second["rating"])) if math.isfinite(low) else math.nan
        numbers["head_to_head"] = None
        numbers["head_to_head_at_least"] = least if math.isfinite(least) else None
        text += f", ahead of {second_words}. " + (
            f"From its one-sided bound, {first['model']} would be preferred in at least "
            f"{fmt_pct(least)} of their head-to-head comparisons; the data give no upper limit."
            if math.isfinite(least)
            else "With no bound, the data say nothing about how often it would be preferred."
        )
    else:
        text += (
            f", {gap:,.0f} Elo points ahead of {second_words}. "
            f"A {gap:,.0f}-point gap means {first['model']} would be preferred in "
            + (f"about {q.format('predicted_preference', share)}" if share <= 0.995 else "more than 99%")
            + " of their head-to-head comparisons (the predicted head-to-head preference: read off the "
            "ratings, not a count of verdicts)."
        )
    text += _left_out(board, str(first["model"]))
    if len(board.comparable_only().table) > len(top):
        text += (
            f" Not every model met the others, directly or through others: this lead holds "
            f"among the {len(top)} models connected to {first['model']}."
        )
    # The leaderboard's own caveats about these two (a model that never lost, …).
    for note in board.notes:
        if str(first["model"]) in note or str(second["model"]) in note:
            text += " " + note
    fragility = analyses.fragility
    if fragility is not None and fragility.lead is not None and fragility.leader == str(first["model"]):
        # Huang et al. (2025): a lead can rest on a handful of verdicts; say how many.
        text += " " + fragility.headline()
        numbers["lead_rests_on_verdicts"] = fragility.lead.n_drop
        flips = analyses.fragility_flips
        clause = flips.flip_clause(fragility.lead.behind) if flips is not None else None
        if clause and flips is not None and flips.leader == fragility.leader and text.endswith("."):
            # one clause beside the removal figure: reversing a verdict counts about twice
            text = f"{text[:-1]}; {clause}."
            numbers["lead_reversed_by_flips"] = flips.lead.n_drop if flips.lead else None
    categories = analyses.categories
    if categories is not None:
        numbers["categories_differ"] = bool(categories.rejects)
    if categories is not None and categories.rejects:
        # one pooled order can hide a different order within a category (Simpson): say so
        text += " " + categories.sentence()
    said_in_time = time_lines(analyses)
    if said_in_time:  # the ranking moved between time windows, or the judge drifted
        text += " " + " ".join(words for _, words in said_in_time)
        numbers["moved_in_time"] = any(key == "time-line" for key, _ in said_in_time)
        numbers["judge_drifted"] = any(key == "drift-line" for key, _ in said_in_time)
    over = f"Elo points over {second['model']}"
    if never_lost:  # the prior-held gap is no estimate: its bound is
        least_gap = cell_number(first["ci_low"]) - float(second["rating"])
        numbers["gap"] = None
        numbers["gap_at_least"] = least_gap if math.isfinite(least_gap) else None
        value = f"at least {least_gap:+,.0f}" if math.isfinite(least_gap) else "unbounded"
        over += " (one-sided bound)"
    else:
        value = q.format("lead_over_next", gap)
    tiles += (Metric(q.name("lead_over_next"), value, over),)
    return make_finding("leader", status, tiles, text, definition, numbers)


def _first_comparable_pair(table: pd.DataFrame, board: Leaderboard) -> pd.Series | None:
    """The first adjacent pair of the edges table whose two models are both comparable."""
    left_out = set(board.not_comparable)
    for _, pair in table.iterrows():
        if str(pair["upper"]) not in left_out and str(pair["lower"]) not in left_out:
            return pair
    return None


def _rank_range(row: pd.Series) -> list[int] | None:
    low, high = cell_number(row["rank_low"]), cell_number(row["rank_high"])
    return [int(low), int(high)] if math.isfinite(low) and math.isfinite(high) else None


def _rank_words(row: pd.Series) -> str:
    """The leader's rank range as the Leaderboard writes it ("1", "1–3"), or why there is none."""
    text = rank_range_text(cell_number(row["rank_low"]), cell_number(row["rank_high"]))
    no_range = "no rank range can be given from a single instruction"
    return no_range if text == MISSING else f"its 95% rank range is {text}"


def _holm_p(pair: pd.Series, tested: int) -> str:
    """The p the decision uses, in words: Holm-adjusted across the adjacent pairs tested."""
    if tested <= 1:
        return fmt_p(pair["p_holm"])
    return f"{fmt_p(pair['p_holm'])} after Holm's adjustment across the {tested} adjacent pairs"


def separation_finding(analyses: Analyses) -> Finding:
    """Whether the data separate the top two: the sign test of the top adjacent pair."""
    board, edges = analyses.leaderboard, analyses.edges
    if board is None or edges is None:
        return unavailable_finding(
            "separation",
            analyses.unavailable.get("separation", analyses.unavailable.get("leader", "No leaderboard.")),
        )
    if edges.n_pairs == 0:
        return unavailable_finding("separation", "Only one model is ranked: there is nothing to separate.")
    pair = _first_comparable_pair(edges.table, board)
    if pair is None:
        return unavailable_finding(
            "separation",
            "No two adjacent models have ratings that can be compared. " + " ".join(board.design_warnings),
        )
    upper, lower = str(pair["upper"]), str(pair["lower"])
    row = board.table.set_index("model").loc[upper]
    how = (
        f"against the anchor {edges.anchor}"
        if edges.anchor and edges.anchor not in (upper, lower)
        else "head-to-head"
    )
    definition = (
        f"Exact sign test at significance level {edges.alpha:g} on the instructions where the two "
        f"models' verdicts ({how}) differ: resolved when the two-sided sign test, Holm-adjusted "
        "across the adjacent pairs, gives a p-value below it (Don-Yehiya et al. 2026; Holm 1979). "
        "Detectable edge and instructions needed: the smallest edge (how far the upper model's share "
        f"of wins, where the two models' verdicts differ, lies above one half) that test finds with {edges.power:.0%} power at this many differing instructions, "
        f"and the instructions it needs for the observed edge: {edges.level_text}. Rank range: "
        f"2.5–97.5 percentiles of the leader's rank {rank_range_clause(board)}."
    )
    numbers: dict[str, Any] = {
        "separated": bool(pair["resolved"]),
        "upper": upper,
        "lower": lower,
        **{k: int(pair[k]) for k in ("instructions", "discordant", "upper_wins", "lower_wins")},
        **{k: cell_number(pair[k]) for k in ("p_value", "p_holm")},
        "detection_level": edges.level,
        **{k: cell_number(pair[k]) for k in ("observed_edge", "detectable_edge", "instructions_needed")},
        "leader_rank_range": _rank_range(row),
        "resolved_pairs": edges.n_resolved,
        "adjacent_pairs": edges.n_pairs,
    }
    if int(pair["discordant"]) == 0:
        text = few_instructions_caveat(board) + (
            f"No: {upper} and {lower} never received different verdicts {how} on a common "
            "instruction, so nothing separates them."
        )
        return make_finding(
            "separation",
            "caution",
            (Metric(TILE_LABELS["separation"], "No", "their verdicts never differ"),),
            text,
            definition,
            numbers,
        )
    won = (
        f"{upper} won {int(pair['upper_wins']):,} of the {int(pair['discordant']):,} "
        f"instructions where their verdicts ({how}) differ (share of differing instructions won "
        f"{q.format('differing_share_won', 0.5 + pair['observed_edge'])}; "
        f"two-sided sign test, {_holm_p(pair, edges.pairs_tested)})"
    )
    rank = _rank_words(row)
    caveat = few_instructions_caveat(board)
    if pair["resolved"]:
        text = caveat + f"Yes: {won}, and {rank}. The data separate the top two."
        status, value = ("caution" if caveat else "clear"), "Yes"
    else:
        text = caveat + f"No: {won}, which is not enough to tell them apart, and {rank}."
        needed = numbers["instructions_needed"]
        if math.isfinite(needed):
            text += (
                f" If the observed edge is real, about {needed:,.0f} instructions would "
                f"separate them with {edges.power:.0%} power (the data have "
                f"{int(pair['instructions']):,})."
            )
        status, value = "caution", "No"
    detectable = numbers["detectable_edge"]
    if math.isfinite(detectable):
        text += (
            f" With these data the smallest edge the test detects for this pair is "
            f"+{100 * detectable:.1f}% (the better model winning {fmt_pct(0.5 + detectable)} "
            "of the differing instructions)."
        )
    text += (
        f" Down the whole leaderboard, {edges.n_resolved} of the {edges.n_pairs} adjacent "
        f"pairs {'is' if edges.n_resolved == 1 else 'are'} separated."
    )
    note = f"sign test, Holm-adjusted {fmt_p(pair['p_holm'])}"
    return make_finding(
        "separation", status, (Metric(TILE_LABELS["separation"], value, note),), text, definition, numbers
    )
