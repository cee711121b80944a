"""The headline findings of a dataset, in plain words with their numbers (issue 6, item 2).

This module computes no statistic of its own. :func:`run_analyses` calls the analyses of
evalcore once for a dataset and a judge (:func:`evalcore.ranking.leaderboard`,
:func:`evalcore.anchors.anchor_sweep`, :func:`evalcore.judge.judge_sheet`,
:func:`evalcore.power.detectable_edges`, :func:`evalcore.calibration.calibrate`) and keeps their
results in an :class:`Analyses` bundle; :func:`headline_findings` reads those results and states
each headline as a sentence that carries its numbers and the definition behind them. The
Overview page, the HTML report (:mod:`evalcore.report`) and ``python -m evalcore report`` show
the same :class:`Findings`, so they cannot disagree.

Definitions (the documentation's definitions page):

- ratings: Bradley–Terry on the Elo scale, a tie half a win each, 95% intervals = 2.5–97.5
  percentiles of a bootstrap over instructions (Efron & Tibshirani 1993); head-to-head share
  P(i beats j) = 1 / (1 + 10^((r_j − r_i)/400));
- separation: the one-sided exact sign test of the leader against the runner-up on the
  instructions where their verdicts differ (Don-Yehiya et al. 2026, section 4.3, :func:`evalcore.power.detectable_edges`),
  beside the leader's 95% rank range across the bootstrap rounds;
- anchors: Kendall's tau-b between the anchor-based and the all-pairs ranking, informativeness =
  the share of (instruction, model pair) cases whose verdicts against the anchor differ, the
  recommended anchor = the most informative one (Don-Yehiya et al. 2026, sections 4.3 and 6); the usual choice is the
  strongest model (Arena-Hard and AlpacaEval compare against a frontier model); its cost is in
  tau and in the total instructions a sign test needs for a +5% edge, ⌈617 / I⌉;
- the judge: position bias = P(first slot wins) − P(second slot wins) over single-order verdicts,
  in points; swap consistency, the both-orders tie rate (the documentation's definitions: both orders verdict, position bias);
- correction: Rogan–Gladen with the Lang–Reiczigel interval, refused when the floor is wider than
  ±20 points (the documentation's definitions: floors; :func:`evalcore.calibration.calibrate`).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple, cast

import pandas as pd

from evalcore.anchors import AnchorSweep, anchor_sweep
from evalcore.calibration import Calibration, PPIRatings, calibrate, ppi_ratings
from evalcore.judge import JudgeSheet, comparison_table, judge_sheet
from evalcore.power import (
    DetectableEdges,
    SampleSizePlan,
    detectable_edges,
    sample_size_plan,
    sign_test_sample_size,
    total_samples,
)
from evalcore.progress import Progress
from evalcore.ranking import (
    Leaderboard,
    RankingFragility,
    leaderboard,
    ranking_fragility,
    win_probability,
)
from evalcore.ranking.presentation import calibration_pair, default_interval
from evalcore.ranking.style import StyleControl, available_controls, controlled_leaderboard
from evalcore.store import DatasetSummary, VerdictCounts, VerdictStore
from evalcore.text import fmt_p, fmt_pct, fmt_rating  # noqa: F401  (one formatting module)
from evalcore.ties import VerdictTieStructure, verdict_tie_structure

#: ``cache(key, compute)`` returns a stored result for ``key`` or computes and stores it (the
#: pages pass ``ui.memo``); the default computes every time.
Cache = Callable[[tuple, Callable[[], Any]], Any]

#: The analysis (the app's page of that name) with the detail of each finding; a front end maps
#: the name to its own page (the Overview links to it).
PAGES: dict[str, str] = {
    "leader": "leaderboard",
    "separation": "power",
    "anchor": "anchors",
    "judge": "judge",
    "correction": "calibration",
}
#: Finding → the section of the methods document (and the app's Methods page) behind it.
METHOD_SECTIONS = {
    "leader": "ranking-bradleyterry-on-the-elo-scale",
    "separation": "power-and-sample-sizes",
    "anchor": "anchor-selection",
    "judge": "the-judges-spec-sheet",
    "correction": "calibration-against-human-labels",
}

#: First-slot preference (percentage points) of six open-weight judges and of human experts in a
#: 2026 measurement study on the MT-Bench expert votes (docs/methods.md, calibration section).
STUDY_POSITION_RANGE = (0.5, 24.0)
STUDY_HUMAN_POSITION = -0.4
#: A first-slot preference at least this large (percentage points) is flagged: the same study's
#: judges on open crowd traffic ran +11 to +24, against −0.4 for humans.
LARGE_POSITION_BIAS = 10.0
#: The edge of Don-Yehiya et al.'s (2026) headline sample size (P(better model wins | discordant) = 0.55).
PLANNING_EDGE = 0.05
#: The edges of the report's sample-size plan (P(better wins | discordant) − 0.5).
PLAN_EDGES = (0.025, 0.05, 0.075, 0.10, 0.15, 0.20)
#: Rounds of the judge sheet's bootstrap on the Overview (its intervals are secondary there).
JUDGE_ROUNDS = 500


def _number(value: Any) -> float:
    """A float from a table cell, NaN for a missing one (pd.NA has no float value)."""
    return float("nan") if value is None or pd.isna(value) else float(value)


def _compute(key: tuple, compute: Callable[[], Any]) -> Any:
    return compute()


def _num(value: Any) -> float:
    """A float from a table cell; NaN for a missing value (``pd.NA``, ``None``)."""
    return math.nan if value is None or pd.isna(value) else float(value)


def fmt_tau(value: float) -> str:
    """Kendall's tau with three decimals; words where it is undefined."""
    return f"{value:.3f}" if math.isfinite(value) else "undefined (too few models ranked)"


# ---------------------------------------------------------------------------------------------
# The analyses, run once


@dataclass(frozen=True)
class Analyses:
    """The evalcore results of one dataset and one judge that the Overview and the report show.

    A result is ``None`` when its analysis cannot run on this data; ``unavailable`` says why in
    words, keyed by finding (``leader``, ``separation``, ``anchor``, ``judge``, ``correction``,
    and ``ties`` for the verdict-level distribution). ``judge_comparison`` (one row per judge,
    :func:`evalcore.judge.comparison_table`) is filled when asked for. ``calibration`` is the leader against the
    runner-up; ``plan`` the sign-test sample sizes of :data:`PLAN_EDGES` at the recommended
    anchor's informativeness (else the mean over the leaderboard's adjacent pairs).
    """

    summary: DatasetSummary
    judge: str
    counts: VerdictCounts
    rounds: int
    seed: int
    leaderboard: Leaderboard | None = None
    anchors: AnchorSweep | None = None
    judge_sheet: JudgeSheet | None = None
    edges: DetectableEdges | None = None
    plan: SampleSizePlan | None = None
    calibration: Calibration | None = None
    ties: VerdictTieStructure | None = None
    judge_comparison: pd.DataFrame | None = None
    human_ranking: pd.DataFrame | None = None
    fragility: RankingFragility | None = None
    #: prediction-powered ratings (judge on every pair + human labels), when labels exist
    ppi: PPIRatings | None = None
    #: The leaderboard controlled for the answers' length and Markdown, when the table has them.
    style: StyleControl | None = None
    unavailable: dict[str, str] = field(default_factory=dict)


def _attempt(unavailable: dict[str, str], key: str, compute: Callable[[], Any]) -> Any | None:
    """Run one analysis; a ValueError (data too small, no labels, …) becomes a reason in words."""
    try:
        return compute()
    except ValueError as exc:
        unavailable[key] = str(exc)
        return None


def _style(store: VerdictStore, judge: str) -> StyleControl:
    """The leaderboard controlled for length and Markdown (what the table can supply)."""
    controls = [c for c in available_controls(store.feature_sources()) if c in ("length", "markdown")]
    if not controls:
        raise ValueError(
            "no style control: the table has neither answer lengths nor Markdown counts "
            "(length_a/length_b, the answers' text, or feat_ columns)."
        )
    return controlled_leaderboard(store, judge=judge, controls=controls)


def ranking_key(frame: pd.DataFrame | None) -> str:
    """A short content key of a human ranking (the Anchors page's cache key for it)."""
    if frame is None:
        return "none"
    return hashlib.sha1(frame.to_csv(index=False).encode()).hexdigest()[:12]


def run_analyses(
    store: VerdictStore,
    *,
    judge: str | None = None,
    human_ranking: pd.DataFrame | None = None,
    rounds: int = 1000,
    seed: int = 0,
    compare_judges: bool = False,
    cache: Cache | None = None,
    progress: Progress | None = None,
) -> Analyses:
    """Run every analysis the headline findings and the report need, for one judge.

    ``judge=None`` takes the first judge. ``rounds`` bounds the leaderboard bootstrap (1,000
    rounds take under a second on the 20-model demo); the judge sheet uses at most
    :data:`JUDGE_ROUNDS`. ``cache`` lets a page reuse results it already holds: the keys
    ``("summary",)``, ``("counts", judge, None, False)`` and
    ``("leaderboard", judge, None, False, rounds, seed)`` and
    ``("anchor_sweep", judge, None, False, "b", ranking_key(human_ranking))`` are those of the
    Data, Leaderboard and Anchors pages; the others start with ``"findings"``.
    ``compare_judges`` also builds the spec sheet of every other judge (a second or two per judge
    on the demo) for the report's comparison of judges.
    """
    cache = cache or _compute

    def step(fraction: float, text: str) -> None:
        if progress is not None:
            progress(min(1.0, fraction), text)

    judges = store.judges()
    if not judges:
        raise ValueError("No verdicts are loaded: load a verdict table first.")
    if judge is None:
        judge = judges[0]
    if judge not in judges:
        raise ValueError(f"judge {judge!r} is not in the data; its judges are: {', '.join(judges)}")

    step(0.0, "summarising the data")
    summary = cache(("summary",), store.summary)
    counts = cache(("counts", judge, None, False), lambda: store.counts(judge=judge))
    unavailable: dict[str, str] = {}

    board = None
    if counts.n_models < 2 or counts.n_instructions == 0:
        reason = (
            f"judge {judge} has verdicts for {counts.n_models} model(s): a ranking needs "
            "at least two models with a verdict between them."
        )
        for key in ("leader", "separation", "anchor", "correction"):
            unavailable[key] = reason
    else:
        board = cache(
            ("leaderboard", judge, None, False, rounds, seed),
            lambda: leaderboard(
                counts,
                rounds=rounds,
                seed=seed,
                interval=default_interval(counts.n_instructions, counts.n_models),
                progress=lambda f, t: step(0.05 + 0.45 * f, t),
            ),
        )
    sweep = edges = cal = fragile = style = None
    if board is not None:
        step(0.48, "how many verdicts the lead rests on")
        fragile = _attempt(
            unavailable,
            "fragility",
            lambda: cache(("findings", "fragility", judge), lambda: ranking_fragility(counts)),
        )
        style = _attempt(
            unavailable,
            "style",
            lambda: cache(("findings", "style", judge), lambda: _style(store, judge)),
        )
        step(0.5, "anchor sweep")
        sweep = _attempt(
            unavailable,
            "anchor",
            lambda: cache(
                ("anchor_sweep", judge, None, False, "b", ranking_key(human_ranking)),
                lambda: anchor_sweep(counts, human_ranking=human_ranking),
            ),
        )
        step(0.55, "what the data can separate")
        anchor = summary.anchor if summary.design == "anchor-only" else None
        edges = _attempt(
            unavailable,
            "separation",
            lambda: cache(
                ("findings", "detectable_edges", judge, rounds, seed),
                lambda: detectable_edges(counts, board, anchor=anchor),
            ),
        )
        pair = calibration_pair(board, counts)  # the Calibration page's default pair
        if pair is not None:
            leader, runner_up = pair
            step(0.6, "calibration against human labels")
            cal = _attempt(
                unavailable,
                "correction",
                lambda: cache(
                    ("findings", "calibrate", judge, leader, runner_up),
                    lambda: calibrate(store, judge=judge, candidate=leader, baseline=runner_up),
                ),
            )
    ppi = None
    if board is not None and summary.labelled_rows:
        step(0.62, "prediction-powered ratings")
        ppi = _attempt(
            unavailable,
            "ppi",
            lambda: cache(("findings", "ppi", judge), lambda: ppi_ratings(store, judge=judge)),
        )
    plan = None
    if sweep is not None or edges is not None:
        info = (
            _num(sweep.table.set_index("anchor").loc[sweep.recommended, "informativeness"])
            if sweep is not None and sweep.recommended is not None
            else edges.informativeness
            if edges is not None
            else math.nan
        )
        plan = sample_size_plan(PLAN_EDGES, informativeness=info if 0 < info <= 1 else None)
    ties = None
    if counts.n_models >= 2:
        ties = _attempt(
            unavailable,
            "ties",
            lambda: cache(("findings", "ties", judge), lambda: verdict_tie_structure(counts)),
        )
    others = [j for j in judges if j != judge] if compare_judges and len(judges) > 1 else []
    share = 0.35 / (1 + len(others))
    sheets: dict[str, JudgeSheet | str] = {}
    for n, name in enumerate([judge] + others):
        step(0.65 + n * share, f"the spec sheet of {name}")
        why: dict[str, str] = {}

        def one_sheet(name: str = name, n: int = n) -> JudgeSheet:
            return cache(
                ("findings", "judge_sheet", name, seed),
                lambda: judge_sheet(
                    store,
                    name,
                    rounds=min(rounds, JUDGE_ROUNDS),
                    seed=seed,
                    length_control=False,
                    progress=lambda f, t: step(0.65 + (n + f) * share, f"{name}: {t}"),
                ),
            )

        found = _attempt(why, "judge", one_sheet)
        sheets[name] = found if found is not None else why["judge"]
    own = sheets[judge]
    sheet = own if not isinstance(own, str) else None
    if sheet is None:
        unavailable["judge"] = str(own)
    comparison = comparison_table({j: sheets[j] for j in judges if j in sheets}) if others else None
    step(1.0, "done")
    return Analyses(
        summary=summary,
        judge=judge,
        counts=counts,
        rounds=rounds,
        seed=seed,
        leaderboard=board,
        anchors=sweep,
        judge_sheet=sheet,
        edges=edges,
        plan=plan,
        calibration=cal,
        ties=ties,
        judge_comparison=comparison,
        human_ranking=human_ranking,
        fragility=fragile,
        ppi=ppi,
        style=style,
        unavailable=unavailable,
    )


# ---------------------------------------------------------------------------------------------
# The findings


class Tile(NamedTuple):
    """One metric tile: a label, a short value and an optional one-line note under it."""

    label: str
    value: str
    note: str = ""


@dataclass(frozen=True)
class Finding:
    """One headline: metric tiles, a plain-words paragraph, its definition and its numbers.

    ``tiles`` are the :class:`Tile` s of a metric row. ``status`` is ``"clear"`` (the data
    answer the question), ``"caution"`` (they answer it with a warning: no separation, a large
    bias, a costly usual anchor, a refused correction) or ``"unavailable"`` (the analysis cannot
    run on this data; ``text`` says why). ``page`` names the analysis with the detail
    (``"leaderboard"``, ``"power"``, ``"anchors"``, ``"judge"``, ``"calibration"``).
    """

    key: str
    title: str
    tiles: tuple[Tile, ...]
    text: str
    definition: str
    page: str
    status: str
    numbers: dict[str, Any]

    def as_dict(self) -> dict:
        return {
            "key": self.key,
            "title": self.title,
            "tiles": [t._asdict() for t in self.tiles],
            "text": self.text,
            "definition": self.definition,
            "page": self.page,
            "status": self.status,
            "numbers": dict(self.numbers),
        }


@dataclass(frozen=True)
class Findings:
    """The headline findings of one dataset and judge, in the order they are shown."""

    dataset: str
    judge: str
    findings: tuple[Finding, ...]

    def get(self, key: str) -> Finding:
        for finding in self.findings:
            if finding.key == key:
                return finding
        raise KeyError(key)

    def as_dict(self) -> dict:
        return {
            "dataset": self.dataset,
            "judge": self.judge,
            "findings": [f.as_dict() for f in self.findings],
        }

    def frame(self) -> pd.DataFrame:
        """One row per finding (title, status, text, definition) for a CSV download."""
        return pd.DataFrame(
            [
                {"finding": f.title, "status": f.status, "text": f.text, "definition": f.definition}
                for f in self.findings
            ]
        )


TITLES = {
    "leader": "Who leads",
    "separation": "Can the data separate the top models?",
    "anchor": "Which anchor to compare against",
    "judge": "The judge's position bias and ties",
    "correction": "Can the win rate be corrected?",
}
TILE_LABELS = {
    "leader": "Leader",
    "separation": "Top two separated?",
    "anchor": "Recommended anchor",
    "judge": "Position bias",
    "correction": "Win rate correctable?",
}


def _unavailable(key: str, reason: str) -> Finding:
    return Finding(
        key=key,
        title=TITLES[key],
        tiles=(Tile(TILE_LABELS[key], "—", "not available"),),
        text=reason,
        definition="",
        page=PAGES[key],
        status="unavailable",
        numbers={},
    )


def _top_two(board: Leaderboard) -> pd.DataFrame:
    """The rows of the leader's piece of the comparison graph, best first."""
    table = board.table
    return table[table["piece"] == table["piece"].iloc[0]].reset_index(drop=True)


def leader_finding(analyses: Analyses) -> Finding:
    """Who leads and by how much, with the intervals of the leader and the runner-up."""
    board = analyses.leaderboard
    if board is None:
        return _unavailable("leader", analyses.unavailable.get("leader", "No leaderboard."))
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
        + (f"about {fmt_pct(share)}" if share <= 0.995 else "more than 99%")
        + " of their head-to-head comparisons."
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
    tiles += (Tile("Lead over #2 (Elo)", f"{gap:+,.0f}", f"Elo points over {second['model']}"),)
    return Finding("leader", TITLES["leader"], tiles, text, definition, PAGES["leader"], "clear", numbers)


def separation_finding(analyses: Analyses) -> Finding:
    """Whether the data separate the top two: the sign test of the top adjacent pair."""
    board, edges = analyses.leaderboard, analyses.edges
    if board is None or edges is None:
        return _unavailable(
            "separation",
            analyses.unavailable.get("separation", analyses.unavailable.get("leader", "No leaderboard.")),
        )
    if edges.n_pairs == 0:
        return _unavailable("separation", "Only one model is ranked: there is nothing to separate.")
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
        "p_value": _number(pair["p_value"]),
        "observed_edge": _number(pair["observed_edge"]),
        "detectable_edge": _number(pair["detectable_edge"]),
        "instructions_needed": _number(pair["instructions_needed"]),
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
        f"instructions where their verdicts ({how}) differ: {fmt_pct(0.5 + pair['observed_edge'])} "
        f"({fmt_p(pair['p_value'])}, two-sided sign test)"
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


def anchor_finding(analyses: Analyses) -> Finding:
    """The recommended anchor and what the usual choice (the strongest model) would cost."""
    sweep = analyses.anchors
    if sweep is None:
        return _unavailable("anchor", analyses.unavailable.get("anchor", "No anchor analysis."))
    table = sweep.table.set_index("anchor")
    recommended = sweep.recommended
    if recommended is None:
        return _unavailable(
            "anchor", "No model was judged against two or more others: no anchor can be assessed."
        )
    rec = table.loc[recommended]
    discordant = sign_test_sample_size(PLANNING_EDGE)
    tau_name = f"Kendall's tau-{sweep.tau}"
    definition = (
        "Informativeness: the share of (instruction, model pair) cases, the anchor excluded, whose "
        "verdicts against the anchor differ on the judge's full scale (Don-Yehiya et al. 2026, section 4.3). The "
        "recommended anchor is the most informative one (Don-Yehiya et al. 2026, section 6). tau: "
        f"{tau_name} between the ranking by win rate against the anchor and the all-pairs "
        "Bradley–Terry ranking (and the human ranking when one is loaded). Instructions needed: "
        f"⌈{discordant} / informativeness⌉, the {discordant} differing instructions a one-sided "
        f"sign test needs for a +{100 * PLANNING_EDGE:.0f}% edge at 80% power (Don-Yehiya et al. 2026, Table 2)."
    )
    rec_info = _num(rec["informativeness"])
    rec_total = total_samples(discordant, rec_info) if rec_info > 0 else math.nan
    numbers: dict[str, Any] = {
        "recommended": recommended,
        "recommended_informativeness": rec_info,
        "recommended_tau_quadratic": _num(rec["tau_quadratic"]),
        "recommended_tau_human": _num(rec["tau_human"]),
        "recommended_instructions_needed": rec_total,
        "design": sweep.design,
    }
    tiles = (Tile(TILE_LABELS["anchor"], recommended, f"{fmt_pct(rec_info)} informative"),)
    if not sweep.has_quadratic:
        text = (
            f"Every model here is compared with one anchor, {recommended}: "
            f"{fmt_pct(rec_info)} of the (instruction, model pair) cases get different "
            f"verdicts against it, so a +{100 * PLANNING_EDGE:.0f}% edge between two models "
            f"needs about {rec_total:,} instructions. Choosing a better anchor needs an "
            "all-pairs table (every model judged against every other)."
        )
        return Finding("anchor", TITLES["anchor"], tiles, text, definition, PAGES["anchor"], "clear", numbers)
    position = int(rec["position"])
    strongest = str(table.index[table["position"] == table["position"].min()][0])
    usual = table.loc[strongest]
    usual_info = _num(usual["informativeness"])
    usual_total = total_samples(discordant, usual_info) if usual_info > 0 else math.nan
    numbers.update(
        {
            "recommended_position": position,
            "models": len(sweep.models),
            "usual": strongest,
            "usual_informativeness": usual_info,
            "usual_tau_quadratic": _num(usual["tau_quadratic"]),
            "usual_tau_human": _num(usual["tau_human"]),
            "usual_instructions_needed": usual_total,
        }
    )
    text = (
        f"Compare against {recommended} (number {position} of {len(sweep.models)} in the "
        f"all-pairs ranking): {fmt_pct(rec_info)} of the cases get different verdicts against "
        f"it, and ranking the models by their win rate against it agrees with the all-pairs "
        f"ranking at {tau_name} = {fmt_tau(numbers['recommended_tau_quadratic'])}"
    )
    if math.isfinite(numbers["recommended_tau_human"]):
        text += f" ({numbers['recommended_tau_human']:.3f} with the human ranking)"
    text += "."
    caveats = "".join(" " + note for note in sweep.notes)
    if strongest == recommended:
        text += " The usual choice, the strongest model, is the recommended one here." + caveats
        return Finding("anchor", TITLES["anchor"], tiles, text, definition, PAGES["anchor"], "clear", numbers)
    if not usual_info > 0:
        text += (
            f" The usual choice, the strongest model {strongest}, gives no informative case: "
            "every model gets the same verdict against it, so it cannot rank them at all."
        )
        costly = True
    else:
        text += (
            f" The usual choice, the strongest model {strongest}, gives {fmt_pct(usual_info)} "
            f"informative cases and tau {fmt_tau(numbers['usual_tau_quadratic'])}"
        )
        if math.isfinite(numbers["usual_tau_human"]):
            text += f" ({numbers['usual_tau_human']:.3f} with the human ranking)"
        costly = math.isfinite(rec_total) and usual_total > rec_total
        if costly:
            text += (
                f": to detect a +{100 * PLANNING_EDGE:.0f}% edge it needs about "
                f"{usual_total:,} instructions instead of {rec_total:,} "
                f"({usual_total / rec_total - 1:.0%} more judge calls for the same power)."
            )
        else:
            text += "."
    text += caveats
    status = "caution" if costly else "clear"
    return Finding("anchor", TITLES["anchor"], tiles, text, definition, PAGES["anchor"], status, numbers)


def judge_finding(analyses: Analyses) -> Finding:
    """The judge's position bias, swap consistency, tie rates and coverage."""
    sheet = analyses.judge_sheet
    if sheet is None:
        return _unavailable("judge", analyses.unavailable.get("judge", "No judge sheet."))
    s = sheet.scalars()
    # the position bias and its bounds are always floats (NaN when not identified)
    bias, low, high = (
        cast(float, s["position_bias_points"]),
        cast(float, s["position_bias_points_low"]),
        cast(float, s["position_bias_points_high"]),
    )
    definition = (
        "Position bias: P(first slot wins) − P(second slot wins), in percentage points, measured "
        "on model pairs judged in both slot orders, each order weighted equally. Swap consistency: the share of pairs judged in both orders whose two verdicts, "
        "read from the same model's side, name the same outcome. Both-orders verdict: the verdict "
        "both orders agree on, else a tie (Zheng et al. 2023, MT-Bench). 95% intervals: bootstrap over "
        f"instructions ({sheet.order.rounds:,} rounds)."
    )
    side = "first" if bias >= 0 else "second"
    warnings = tuple(getattr(sheet, "design_warnings", ()) or ())
    if not math.isfinite(bias):
        # Not identified by the design (e.g. the reference always in one slot): say why, no number.
        text = (
            f"{analyses.judge}'s slot preference cannot be measured on this table: "
            + (warnings[0] if warnings else "no model pair was judged in both slot orders.")
            + " For scale,"
        )
    elif not (math.isfinite(low) and math.isfinite(high)):
        text = f"{analyses.judge}'s slot preference: {bias:+.1f} percentage points (no interval). For scale,"
    elif low <= 0 <= high:
        lead = f"{analyses.judge} shows no clear slot preference: {bias:+.1f} percentage points"
        text = f"{lead} (95% interval {low:+.1f} to {high:+.1f}). For scale,"
    else:
        lead = f"{analyses.judge} prefers the {side} slot by {abs(bias):.1f} percentage points"
        text = f"{lead} (95% interval {low:+.1f} to {high:+.1f}). For scale,"
    text += (
        " a 2026 measurement study of six open-weight judges on the MT-Bench expert votes measured "
        f"{STUDY_POSITION_RANGE[0]:+.1f} to {STUDY_POSITION_RANGE[1]:+.1f} percentage "
        f"points, and {STUDY_HUMAN_POSITION:+.1f} for human experts."
    )
    if s["pairings"]:
        text += (
            f" When the answers swap places, {fmt_pct(s['flip_rate'])} of the pairs change "
            f"their verdict (swap consistency {fmt_pct(s['swap_consistency'])})."
        )
    text += f" It calls a tie on {fmt_pct(s['tie_rate'], 1)} of its verdicts"
    if s["pairings"]:
        text += (
            f", and {fmt_pct(s['both_orders_tie_rate'], 1)} of the pairs end as ties once "
            "both orders are combined"
        )
    text += "."
    if not s["pairings"]:
        text += (
            " No pair was judged in both orders, so swap consistency and the both-orders "
            "tie rate cannot be measured."
        )
    nv = cast("float | None", s["no_verdict_rate"])
    if nv is not None and math.isfinite(nv):
        text += (
            f" {fmt_pct(nv, 1)} of its calls returned no verdict."
            if nv > 0
            else " Every call returned a verdict."
        )
    numbers = {
        k: s[k]
        for k in (
            "position_bias_points",
            "position_bias_points_low",
            "position_bias_points_high",
            "swap_consistency",
            "flip_rate",
            "tie_rate",
            "both_orders_tie_rate",
            "no_verdict_rate",
            "pairings",
        )
    }
    tiles = (
        Tile(
            TILE_LABELS["judge"],
            f"{bias:+.1f} pp" if math.isfinite(bias) else "n/a",
            f"{fmt_pct(s['flip_rate'])} flip when swapped" if s["pairings"] else "first minus second slot",
        ),
        Tile(
            "Tie rate",
            fmt_pct(s["tie_rate"], 1),
            f"{fmt_pct(s['both_orders_tie_rate'])} with both orders" if s["pairings"] else "single order",
        ),
    )
    status = "caution" if abs(bias) >= LARGE_POSITION_BIAS else "clear"
    return Finding("judge", TITLES["judge"], tiles, text, definition, PAGES["judge"], status, numbers)


def correction_finding(analyses: Analyses) -> Finding:
    """Whether the leader's win rate against the runner-up can be corrected with human labels."""
    cal = analyses.calibration
    if cal is None:
        return _unavailable(
            "correction", analyses.unavailable.get("correction", "There is no pair of models to calibrate.")
        )
    c = cal.counts
    who = f"{cal.candidate} against {cal.baseline or 'all opponents'}"
    definition = (
        "Printed win rate: (wins + ties/2) / judged pairs with a Wilson interval (ties half a "
        "win). Corrected: Rogan–Gladen, (share of judge-called wins + Sp − 1) / (Se + Sp − 1), "
        "the share a human would call a win (ties are not wins), with the Lang–Reiczigel 95% "
        'interval; Se, Sp: the judge\'s sensitivity and specificity for "candidate wins" on the '
        "human-labelled rows. Refused when the floor, the narrowest interval any number of judged "
        f"pairs could give, is wider than ±{100 * cal.max_floor:.0f} percentage points (Lang & Reiczigel 2014 interval)."
    )
    numbers: dict[str, Any] = {
        "candidate": cal.candidate,
        "baseline": cal.baseline,
        "printed": cal.printed,
        "printed_low": cal.printed_low,
        "printed_high": cal.printed_high,
        "n_judged": c.n_judged,
        "n_labelled": c.n_labelled,
        "se": cal.se,
        "sp": cal.sp,
        "youden_j": cal.youden_j,
        "floor": cal.floor,
        "refused": cal.refused,
        "corrected": cal.corrected,
        "lr_low": cal.lr_low,
        "lr_high": cal.lr_high,
    }
    text = (
        f"The judge prints a win rate of {fmt_pct(cal.printed, 1)} for {who} (95% "
        f"{fmt_pct(cal.printed_low, 1)}–{fmt_pct(cal.printed_high, 1)}, {c.n_judged:,} judged "
        "pairs). A judge's win rate is compressed toward 50%, and only human labels can undo it."
    )
    if cal.refused:
        text += f" Here it cannot be corrected: {cal.refusal_reason}."
        if c.n_se and c.n_sp:
            text += f" (Se {cal.se:.2f}, Sp {cal.sp:.2f} on these labelled pairs.)"
        status, value = "caution", "No"
    else:
        text += (
            f" With {c.n_labelled:,} human-labelled pairs (Se {cal.se:.2f}, Sp {cal.sp:.2f}, "
            f"Youden's J {cal.youden_j:.2f}) the corrected rate is {fmt_pct(cal.corrected, 1)} "
            f"(Lang–Reiczigel 95% {fmt_pct(cal.lr_low, 1)}–{fmt_pct(cal.lr_high, 1)}); no "
            f"number of judged pairs could narrow it below ±{100 * cal.floor:.1f} percentage points with "
            "these labels."
        )
        status, value = "clear", "Yes"
    if cal.transfer_warning:
        text += " " + cal.transfer_warning
    # one decimal, as the Calibration page prints the same floor
    note = f"floor ±{100 * cal.floor:.1f} pp" if cal.refused else f"corrected {fmt_pct(cal.corrected, 1)}"
    if cal.refused and not (c.n_se and c.n_sp):
        note = f"{c.n_labelled:,} labelled pairs"
    tiles = (Tile(TILE_LABELS["correction"], value, note),)
    return Finding(
        "correction", TITLES["correction"], tiles, text, definition, PAGES["correction"], status, numbers
    )


def headline_findings(analyses: Analyses) -> Findings:
    """The headline findings of ``analyses`` in the order the Overview and the report show them."""
    findings = (
        leader_finding(analyses),
        separation_finding(analyses),
        anchor_finding(analyses),
        judge_finding(analyses),
        correction_finding(analyses),
    )
    return Findings(dataset=analyses.summary.name, judge=analyses.judge, findings=findings)
