"""Run the analyses behind the headline findings once, for one dataset and one judge.

:func:`run_analyses` calls the analyses of evalcore (:func:`evalcore.ranking.leaderboard`,
:func:`evalcore.anchors.anchor_sweep`, :func:`evalcore.judge.judge_sheet`,
:func:`evalcore.power.detectable_edges`, :func:`evalcore.calibration.calibrate`, …) and keeps
their results in an :class:`Analyses` bundle, with a reason in words for each one that cannot
run on the data. It computes no statistic of its own.
"""

from __future__ import annotations

import functools
import hashlib
import math
from dataclasses import dataclass, field, replace
from typing import Any, Callable

import pandas as pd

from evalcore.anchors import AnchorSweep, anchor_sweep
from evalcore.anchors.stability import AnchorStability, anchor_stability
from evalcore.calibration import Calibration, PPIRatings, calibrate, ppi_ratings
from evalcore.findings.finding import cell_number
from evalcore.judge import JudgeSheet, comparison_table, judge_sheet
from evalcore.power import DetectableEdges, SampleSizePlan, detectable_edges, sample_size_plan
from evalcore.power.monitor import MonitorResult, monitor_leader
from evalcore.present.ranking import calibration_pair, default_interval
from evalcore.progress import Cache, Progress, no_cache
from evalcore.ranking import Leaderboard, RankingFragility, leaderboard, ranking_fragility
from evalcore.ranking.heterogeneity import Heterogeneity, store_heterogeneity
from evalcore.ranking.judge_drift import JudgeDrift, judge_drift
from evalcore.ranking.judging_times import has_times
from evalcore.ranking.over_time import TimeWindows, rating_windows
from evalcore.ranking.style import StyleControl, available_controls, controlled_leaderboard
from evalcore.ranking.units import widening_by_unit
from evalcore.stats.against import verdicts_against
from evalcore.stats.threads import single_blas_thread
from evalcore.store.store import DatasetSummary, VerdictCounts, VerdictStore
from evalcore.text import fmt_count
from evalcore.ties import (
    BothBadShare,
    TieConventions,
    VerdictTieStructure,
    both_bad_share,
    tie_conventions,
    verdict_tie_structure,
)

#: Instruction resamples behind the Overview's recommended-anchor rate.
STABILITY_ROUNDS = 200


#: The edges of the report's sample-size plan (P(better wins | discordant) − 0.5).
PLAN_EDGES = (0.025, 0.05, 0.075, 0.10, 0.15, 0.20)
#: Rounds of the judge sheet's bootstrap on the Overview (its intervals are secondary there).
JUDGE_ROUNDS = 500


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
    #: The ranking under three tie conventions (half a win, dropped, modelled by Davidson 1970).
    tie_conventions: TieConventions | None = None
    judge_comparison: pd.DataFrame | None = None
    human_ranking: pd.DataFrame | None = None
    fragility: RankingFragility | None = None
    #: The same search reversing verdicts instead of removing them (one clause beside it).
    fragility_flips: RankingFragility | None = None
    #: Does one ranking fit every category (tables with two or more categories)?
    categories: Heterogeneity | None = None
    #: prediction-powered ratings (judge on every pair + human labels), when labels exist
    ppi: PPIRatings | None = None
    #: The leaderboard controlled for the answers' length and Markdown, when the table has them.
    style: StyleControl | None = None
    #: How often each anchor is the most informative over instruction resamples (no tau refits).
    anchor_stability: AnchorStability | None = None
    #: Whether judging could have stopped: the anytime-valid sequence for the leader being first
    #: (head-to-head verdicts in the order judged), when models meet head-to-head.
    monitor: MonitorResult | None = None
    #: Every judge pooled into one ranking by estimated reliability, when there are several judges.
    judge_pooling: Any = None
    #: Ratings per time window and the judge drift test, when the table has judging times.
    time_windows: TimeWindows | None = None
    judge_drift: JudgeDrift | None = None
    #: Per unit column (session, voter, run), how much wider intervals clustered by it are than
    #: over instructions, and its units (:func:`evalcore.ranking.units.widening_by_unit`); empty without one.
    unit_widening: dict[str, tuple[float, int]] = field(default_factory=dict)
    #: The share of the judge's ties marked "both bad", when the table keeps that mark.
    both_bad: BothBadShare | None = None
    unavailable: dict[str, str] = field(default_factory=dict)
    #: False when :func:`run_analyses` left out what only the report reads (``report=False``):
    #: :func:`for_report` adds it.
    report_ready: bool = True


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


def _pool(store: VerdictStore, seed: int):
    """The report's line on several judges (weights only: no bootstrap); None for one judge."""
    from evalcore.judge.pooling import pool_store

    if len(store.judges()) < 2:
        return None
    return pool_store(store, rounds=0, seed=seed, certify=False)


def _monitor(store: VerdictStore, judge: str, design: str) -> MonitorResult | None:
    """Whether judging could have stopped; None for an anchor-only table, whose models never meet
    head-to-head except through the anchor."""
    return None if design == "anchor-only" else monitor_leader(store, judge=judge)


def _categories(store: VerdictStore, judge: str) -> Heterogeneity | None:
    """Does one ranking fit every category; None with fewer than two categories."""
    return store_heterogeneity(store, judge=judge) if len(store.categories()) >= 2 else None


def ranking_key(frame: pd.DataFrame | None) -> str:
    """A short content key of a human ranking (the Anchors page's cache key for it)."""
    if frame is None:
        return "none"
    return hashlib.sha1(frame.to_csv(index=False).encode()).hexdigest()[:12]


# Every analysis below is many small solves (a few hundred models at most per system) and
# passes over the cells: a BLAS thread pool only contends for the cores (two on the project's
# server, shared with the other sessions), so the whole run takes one BLAS thread, as the
# ranking's resampling does (evalcore.stats.threads); the numbers are the same.
@single_blas_thread()
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
    report: bool = True,
) -> Analyses:
    """Run every analysis the headline findings and the report need, for one judge.

    ``judge=None`` takes the default judge (:func:`evalcore.judge_choice.publishing_judge`). ``rounds`` bounds the leaderboard bootstrap (1,000
    rounds take under a second on the 20-model demo); the judge sheet uses at most
    :data:`JUDGE_ROUNDS`. ``cache`` lets a page reuse results it already holds: the keys
    ``("summary",)``, ``("counts", judge, None, False)`` and
    ``("leaderboard", judge, None, False, rounds, seed, interval)`` (the interval method the
    library's rule picks, :func:`evalcore.ranking.choose_interval`) and
    ``("anchor_sweep", judge, None, False, "b", ranking_key(human_ranking))`` are those of the
    Data, Leaderboard and Anchors pages; the others start with ``"findings"``.
    ``compare_judges`` also builds the spec sheet of every other judge (a second or two per judge
    on the demo) for the report's comparison of judges.

    ``report=False`` leaves out what only the report reads (:data:`REPORT_ONLY`: style control,
    the judges pooled, the leader's monitor, the clustering units, prediction-powered ratings, the
    verdict levels, the tie conventions, the "both bad" share and the other judges' sheets); the
    headline findings are the same. :func:`for_report` adds them later by the same calls under
    the same cache keys (the Overview computes them when its report is downloaded, so that a
    change of judge recomputes only what the page shows).
    """
    cache = cache or no_cache

    def step(fraction: float, text: str) -> None:
        if progress is not None:
            progress(min(1.0, fraction), text)

    judges = store.judges()
    if not judges:
        raise ValueError("No verdicts are loaded: load a verdict table first.")
    if judge is None:  # the default judge of every face (the app, the commands, the report)
        from evalcore.judge_choice import publishing_judge

        judge = publishing_judge(store).judge
    if judge not in judges:
        raise ValueError(f"judge {judge!r} is not in the data; its judges are: {', '.join(judges)}")

    step(0.0, "summarising the data")
    summary = cache(("summary",), store.summary)
    counts = cache(("counts", judge, None, False), lambda: store.counts(judge=judge))
    unavailable: dict[str, str] = {}
    found: dict[str, Any] = {}  # the Analyses fields computed below, by name

    def attempt(name: str, key: tuple, compute: Callable[[], Any], *, reason: str | None = None) -> Any:
        """The field ``name`` through the cache under ``key``, or None with the reason in words
        (under ``reason``, else the field's name) when its analysis cannot run on these data."""
        found[name] = _attempt(unavailable, reason or name, lambda: cache(key, compute))
        return found[name]

    board = sweep = edges = None
    if counts.n_models < 2 or counts.n_instructions == 0:
        reason = (
            f"judge {judge} has verdicts for {fmt_count(counts.n_models, 'model')}: a ranking needs "
            "at least two models with a verdict between them."
        )
        for key in ("leader", "separation", "anchor", "correction"):
            unavailable[key] = reason
    else:
        interval = default_interval(counts.n_instructions, counts.n_models)
        board = cache(
            ("leaderboard", judge, None, False, rounds, seed, interval),
            lambda: leaderboard(
                counts,
                rounds=rounds,
                seed=seed,
                interval=interval,
                progress=lambda f, t: step(0.05 + 0.45 * f, t),
            ),
        )
    if board is not None:
        step(0.48, "how many verdicts the lead rests on")
        attempt("fragility", ("findings", "fragility", judge), lambda: ranking_fragility(counts))
        flips = ("findings", "fragility_flips", judge)
        attempt("fragility_flips", flips, lambda: ranking_fragility(counts, kind="flip"))
        step(0.49, "does one ranking fit every category")
        attempt("categories", ("findings", "heterogeneity", judge), lambda: _categories(store, judge))
        step(0.51, "anchor sweep")
        # every model's verdicts against every other (a pass over all the cells, two entries a
        # cell): the anchor sweep and the detectable edges read the same table, built once for
        # both when either needs it and let go after them
        against = functools.cache(lambda: verdicts_against(counts))

        sweep = attempt(
            "anchors",
            ("anchor_sweep", judge, None, False, "b", ranking_key(human_ranking)),
            lambda: anchor_sweep(counts, human_ranking=human_ranking, against=against()),
            reason="anchor",
        )
        if sweep is not None and sweep.recommended is not None and sweep.has_all_pairs_ranking:
            step(0.53, "how stable the recommended anchor is")
            attempt(
                "anchor_stability",
                ("findings", "anchor_stability", judge, seed),
                lambda: anchor_stability(counts, rounds=STABILITY_ROUNDS, seed=seed, with_tau=False),
            )
        step(0.55, "what the data can separate")
        anchor = summary.anchor if summary.design == "anchor-only" else None
        edges = attempt(
            "edges",
            ("findings", "detectable_edges", judge, rounds, seed),
            # the headline reads the pairs among models whose ratings compare (a model that
            # only ever sat in one slot carries the judge's slot preference in its rating)
            lambda: detectable_edges(counts, board.comparable_only(), anchor=anchor, against=against()),
            reason="separation",
        )
        against.cache_clear()  # the verdicts-against table is large on an arena: gone once used
        if has_times(store):  # the Leaderboard page's keys: one computation for both
            step(0.56, "the ranking in time")
            attempt("time_windows", ("time_windows", judge, None), lambda: rating_windows(store, judge=judge))
            attempt("judge_drift", ("judge_drift", judge, None), lambda: judge_drift(store, judge=judge))
        pair = calibration_pair(board, counts)  # the Calibration page's default pair
        if pair is not None:
            leader, runner_up = pair
            step(0.6, "calibration against human labels")
            attempt(
                "calibration",
                ("findings", "calibrate", judge, leader, runner_up),
                lambda: calibrate(store, judge=judge, candidate=leader, baseline=runner_up),
                reason="correction",
            )
    plan = None
    if sweep is not None or edges is not None:
        info = (
            cell_number(sweep.table.set_index("anchor").loc[sweep.recommended, "informativeness"])
            if sweep is not None and sweep.recommended is not None
            else edges.informativeness
            if edges is not None
            else math.nan
        )
        plan = sample_size_plan(PLAN_EDGES, informativeness=info if 0 < info <= 1 else None)
    sheets = _judge_sheets(
        store, [judge], rounds=min(rounds, JUDGE_ROUNDS), seed=seed, cache=cache, step=step
    )
    own = sheets[judge]
    if isinstance(own, str):
        unavailable["judge"] = own
    analyses = Analyses(
        summary=summary,
        judge=judge,
        counts=counts,
        rounds=rounds,
        seed=seed,
        leaderboard=board,
        judge_sheet=None if isinstance(own, str) else own,
        plan=plan,
        human_ranking=human_ranking,
        **found,
        unavailable=unavailable,
        report_ready=False,
    )
    if report:
        analyses = for_report(store, analyses, compare_judges=compare_judges, cache=cache, progress=progress)
    step(1.0, "done")
    return analyses


#: The :class:`Analyses` fields only the report reads (:func:`for_report` computes them).
REPORT_ONLY = (
    "style",
    "judge_pooling",
    "monitor",
    "unit_widening",
    "ppi",
    "ties",
    "tie_conventions",
    "both_bad",
    "judge_comparison",
)


@single_blas_thread()  # as run_analyses: the same analyses
def for_report(
    store: VerdictStore,
    analyses: Analyses,
    *,
    compare_judges: bool = False,
    cache: Cache | None = None,
    progress: Progress | None = None,
) -> Analyses:
    """``analyses`` with what the report reads besides the headline findings (:data:`REPORT_ONLY`),
    computed for its judge by the calls and cache keys of :func:`run_analyses` (the same numbers);
    ``compare_judges`` adds the other judges' sheets. Returned as it is when already there."""
    judges = store.judges()
    others = [j for j in judges if j != analyses.judge] if compare_judges and len(judges) > 1 else []
    if analyses.report_ready and (analyses.judge_comparison is not None or not others):
        return analyses
    cache = cache or no_cache
    judge, counts, board, seed = analyses.judge, analyses.counts, analyses.leaderboard, analyses.seed

    def step(fraction: float, text: str) -> None:
        if progress is not None:
            progress(min(1.0, fraction), text)

    unavailable = dict(analyses.unavailable)
    found: dict[str, Any] = {}

    def attempt(name: str, key: tuple, compute: Callable[[], Any]) -> None:
        found[name] = _attempt(unavailable, name, lambda: cache(key, compute))

    if not analyses.report_ready:
        if board is not None:
            step(0.5, "the ranking controlled for style, and the judges pooled")
            attempt("style", ("findings", "style", judge), lambda: _style(store, judge))
            attempt("judge_pooling", ("findings", "judge_pooling"), lambda: _pool(store, seed))
            step(0.57, "whether judging could have stopped")
            design = analyses.summary.design
            attempt("monitor", ("findings", "monitor", judge), lambda: _monitor(store, judge, design))
            attempt("unit_widening", ("unit_widening", judge), lambda: widening_by_unit(store, judge=judge))
            if analyses.summary.labelled_rows:
                step(0.62, "prediction-powered ratings")
                attempt("ppi", ("findings", "ppi", judge), lambda: ppi_ratings(store, judge=judge))
        if counts.n_models >= 2:
            step(0.63, "how often the judge calls a tie")
            attempt("ties", ("findings", "ties", judge), lambda: verdict_tie_structure(counts))
        if board is not None:
            # the order only: the report says it when modelling the ties reorders the leaderboard, so
            # no interval of the tie parameter (neither the bootstrap nor the profile likelihood's
            # search, most of the fit's cost)
            step(0.64, "the ranking under three ways of counting ties")
            conventions = ("findings", "tie_conventions", judge)
            attempt("tie_conventions", conventions, lambda: tie_conventions(counts, interval=False))
    comparison = analyses.judge_comparison
    if others and comparison is None:
        own = analyses.judge_sheet if analyses.judge_sheet is not None else unavailable.get("judge", "")
        sheets = {
            judge: own,
            **_judge_sheets(
                store, others, rounds=min(analyses.rounds, JUDGE_ROUNDS), seed=seed, cache=cache, step=step
            ),
        }
        comparison = comparison_table({j: sheets[j] for j in judges if j in sheets})
    if not analyses.report_ready:
        found["unit_widening"] = found.get("unit_widening") or {}
        found["both_bad"] = cache(("both_bad", judge, None), lambda: both_bad_share(store, judge=judge))
    return replace(analyses, **found, judge_comparison=comparison, unavailable=unavailable, report_ready=True)


def _judge_sheets(
    store: VerdictStore,
    names: list[str],
    *,
    rounds: int,
    seed: int,
    cache: Cache,
    step: Callable[[float, str], None],
) -> dict[str, JudgeSheet | str]:
    """The spec sheet of each judge of ``names`` (the chosen one first), or why it cannot be built."""
    share = 0.35 / len(names)
    sheets: dict[str, JudgeSheet | str] = {}
    for n, name in enumerate(names):
        step(0.65 + n * share, f"the spec sheet of {name}")
        why: dict[str, str] = {}

        def one_sheet(name: str = name, n: int = n) -> JudgeSheet:
            return cache(
                ("findings", "judge_sheet", name, seed),
                lambda: judge_sheet(
                    store,
                    name,
                    rounds=rounds,
                    seed=seed,
                    length_control=False,
                    progress=lambda f, t: step(0.65 + (n + f) * share, f"{name}: {t}"),
                ),
            )

        sheet = _attempt(why, "judge", one_sheet)
        sheets[name] = sheet if sheet is not None else why["judge"]
    return sheets
