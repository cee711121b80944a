"""The ranking findings: who leads, and whether the data can separate the top two models."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from evalcore import quantities as q
from evalcore.findings.analyses import Analyses
from evalcore.findings.finding import (
    PAGES,
    TILE_LABELS,
    TITLES,
    Finding,
    Tile,
    cell_number,
    unavailable_finding,
)
from evalcore.ranking import Leaderboard, win_probability
from evalcore.text import fmt_p, fmt_pct, fmt_rating


def _top_two(board: Leaderboard) -> pd.DataFrame:
    """The rows of the leader's piece of the comparison graph, best first."""
    table = board.table
    return table[table["piece"] == table["piece"].iloc[0]].reset_index(drop=True)


def leader_finding(analyses: Analyses) -> Finding:
    """Who leads and by how much, with the intervals of the leader and the runner-up."""
    board = analyses.leaderboard
    if board is None:
        return unavailable_finding("leader", analyses.unavailable.get("leader", "No leaderboard."))
    top = _top_two(board)
    first = top.iloc[0]
    definition = (
        "Bradley–Terry ratings on the Elo scale (mean 1000; a tie is half a win each). 95% "
        f"intervals: 2.5–97.5 percentiles of {board.rounds:,} bootstrap rounds over the "
        f"{board.n_instructions:,} instructions (seed {board.seed}). Head-to-head share: "
        "P(i beats j) = 1 / (1 + 10^((r_j − r_i)/400))."
    )
    numbers: dict[str, Any] = {
        "leader": str(first["model"]),
        "rating": float(first["rating"]),
        "ci_low": float(first["ci_low"]),
        "ci_high": float(first["ci_high"]),
        "rank_low": int(first["rank_low"]),
        "rank_high": int(first["rank_high"]),
        "models": int(len(board.table)),
    }
    text = (
        f"{first['model']} leads the {len(board.table)} models with a rating of "
        f"{fmt_rating(first['rating'])} (95% interval {fmt_rating(first['ci_low'])}–"
        f"{fmt_rating(first['ci_high'])})"
    )
    tiles: tuple[Tile, ...] = (
        Tile(
            TILE_LABELS["leader"],
            str(first["model"]),
            f"{fmt_rating(first['rating'])} ({fmt_rating(first['ci_low'])}–{fmt_rating(first['ci_high'])})",
        ),
    )
    if len(top) < 2:
        return Finding(
            "leader", TITLES["leader"], tiles, text + ".", definition, PAGES["leader"], "clear", numbers
        )
    shared = top[top["rank"] == first["rank"]]
    if len(shared) > 1:
        # Several models share the top rating (e.g. an all-ties judge): nobody leads.
        names = ", ".join(str(m) for m in shared["model"].head(5))
        more = f" and {len(shared) - 5} more" if len(shared) > 5 else ""
        numbers["leader"] = None
        numbers["tied_at_the_top"] = [str(m) for m in shared["model"]]
        text = (
            f"No model leads: {names}{more} share the top rating of {fmt_rating(first['rating'])} "
            "on this judge's verdicts."
        )
        tiles = (Tile(TILE_LABELS["leader"], "none", f"{len(shared)} models tied at the top"),)
        return Finding(
            "leader", TITLES["leader"], tiles, text, definition, PAGES["leader"], "caution", numbers
        )
    second = top.iloc[1]
    gap = float(first["rating"] - second["rating"])
    share = float(win_probability(first["rating"], second["rating"]))
    numbers.update(
        {
            "runner_up": str(second["model"]),
            "runner_up_rating": float(second["rating"]),
            "runner_up_ci_low": float(second["ci_low"]),
            "runner_up_ci_high": float(second["ci_high"]),
            "gap": gap,
            "head_to_head": share,
        }
    )
    text += (
        f", {gap:,.0f} Elo points ahead of {second['model']} ({fmt_rating(second['rating'])}, "
        f"95% interval {fmt_rating(second['ci_low'])}–{fmt_rating(second['ci_high'])}). "
        f"A {gap:,.0f}-point gap means {first['model']} would be preferred in "
        + (f"about {q.format('predicted_preference', share)}" if share <= 0.995 else "more than 99%")
        + " of their head-to-head comparisons (the predicted head-to-head preference: read off the "
        "ratings, not a count of verdicts)."
    )
    if len(board.table) > len(top):
        text += (
            f" Not every model met the others, directly or through others: this lead holds "
            f"among the {len(top)} models connected to {first['model']}."
        )
    # The leaderboard's own caveats about these two (a model that never lost, …).
    for note in board.notes:
        if str(first["model"]) in note or str(second["model"]) in note:
            text += " " + note
    if analyses.fragility is not None and analyses.fragility.lead is not None:
        # Huang et al. (2025): a lead can rest on a handful of verdicts; say how many.
        text += " " + analyses.fragility.headline()
        numbers["lead_rests_on_verdicts"] = analyses.fragility.lead.n_drop
    tiles += (
        Tile(q.name("lead_over_next"), q.format("lead_over_next", gap), f"Elo points over {second['model']}"),
    )
    return Finding("leader", TITLES["leader"], tiles, text, definition, PAGES["leader"], "clear", numbers)


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
    pair = edges.table.iloc[0]
    upper, lower = str(pair["upper"]), str(pair["lower"])
    row = board.table.set_index("model").loc[upper]
    how = (
        f"against the anchor {edges.anchor}"
        if edges.anchor and edges.anchor not in (upper, lower)
        else "head-to-head"
    )
    definition = (
        f"Exact sign test at α = {edges.alpha:g} on the instructions where the two "
        f"models' verdicts ({how}) differ: resolved when the two-sided sign test, Holm-adjusted across the adjacent pairs, gives p < α (Don-Yehiya et al. 2026, section 4.3; Holm 1979). Detectable edge: "
        f"the smallest P(upper wins | verdicts differ) − 0.5 the test finds with {edges.power:.0%} "
        "power at this many differing instructions. Rank range: 2.5–97.5 percentiles of the "
        f"leader's rank across {board.rounds:,} bootstrap rounds over instructions."
    )
    numbers: dict[str, Any] = {
        "separated": bool(pair["resolved"]),
        "upper": upper,
        "lower": lower,
        "instructions": int(pair["instructions"]),
        "discordant": int(pair["discordant"]),
        "upper_wins": int(pair["upper_wins"]),
        "lower_wins": int(pair["lower_wins"]),
        "p_value": cell_number(pair["p_value"]),
        "observed_edge": cell_number(pair["observed_edge"]),
        "detectable_edge": cell_number(pair["detectable_edge"]),
        "instructions_needed": cell_number(pair["instructions_needed"]),
        "leader_rank_range": [int(row["rank_low"]), int(row["rank_high"])],
        "resolved_pairs": edges.n_resolved,
        "adjacent_pairs": edges.n_pairs,
    }
    if int(pair["discordant"]) == 0:
        text = (
            f"No: {upper} and {lower} never received different verdicts {how} on a common "
            "instruction, so nothing separates them."
        )
        return Finding(
            "separation",
            TITLES["separation"],
            (Tile(TILE_LABELS["separation"], "No", "their verdicts never differ"),),
            text,
            definition,
            PAGES["separation"],
            "caution",
            numbers,
        )
    won = (
        f"{upper} won {int(pair['upper_wins']):,} of the {int(pair['discordant']):,} "
        f"instructions where their verdicts ({how}) differ (share of differing instructions won "
        f"{q.format('differing_share_won', 0.5 + pair['observed_edge'])}; "
        f"{fmt_p(pair['p_value'])}, two-sided sign test)"
    )
    rank = f"its 95% rank range is {int(row['rank_low'])}–{int(row['rank_high'])}"
    if pair["resolved"]:
        text = f"Yes: {won}, and {rank}. The data separate the top two."
        status, value = "clear", "Yes"
    else:
        text = f"No: {won}, which is not enough to tell them apart, and {rank}."
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
    note = f"sign test {fmt_p(pair['p_value'])}"
    return Finding(
        "separation",
        TITLES["separation"],
        (Tile(TILE_LABELS["separation"], value, note),),
        text,
        definition,
        PAGES["separation"],
        status,
        numbers,
    )
