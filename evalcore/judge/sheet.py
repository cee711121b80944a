"""The judge's spec sheet: every figure for one judge, and the judges side by side.

:func:`judge_sheet` assembles position and slot balance (:mod:`~evalcore.judge.position`), the
order-swap decomposition (:mod:`~evalcore.judge.order_swap`), coverage and self-comparisons
(:mod:`~evalcore.judge.coverage`), agreement with humans (:mod:`~evalcore.judge.agreement`),
length control (:mod:`~evalcore.judge.length`), self-preference
(:mod:`~evalcore.judge.self_preference`) and the verdict-level tie structure. Conditions of the
table's design that leave a figure unidentified (a slot that never changes, a pair never seen in
both orders, one human judgement per pair) are listed in plain sentences as ``design_warnings``,
and the figure itself is NaN rather than a number that only looks like one. The judges side by
side (:func:`~evalcore.judge.comparison.compare_judges`) are in :mod:`evalcore.judge.comparison`.

References
----------
Zheng, L. et al. (2023). Judging LLM-as-a-Judge with MT-Bench and Chatbot Arena. NeurIPS Datasets
and Benchmarks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import pandas as pd

from evalcore.counts import CountSource, VerdictCounts, require_source
from evalcore.errors import DesignError, UsageError, check_int
from evalcore.judge._analytic import (
    DEFAULT_INTERVAL,
    FEW_INSTRUCTIONS_NOTE,
    MIN_INSTRUCTIONS,
    check_interval,
    interval_words,
)
from evalcore.judge.agreement import (
    MIXED_LAYOUT_NOTE,
    ONE_JUDGEMENT_NOTE,
    HumanAgreement,
    human_agreement,
    labelled_rows,
)
from evalcore.judge.certification import DEFAULT_THRESHOLD, Certification, certify
from evalcore.judge.coverage import Coverage, SelfComparison, coverage, self_comparison
from evalcore.judge.length import LengthControlled, length_controlled_ranking
from evalcore.judge.order_swap import OrderSwap
from evalcore.judge.position import PositionResult, position_and_order_swap
from evalcore.judge.self_preference import self_preference
from evalcore.progress import Progress
from evalcore.stats.bootstrap import MAX_ROUNDS
from evalcore.stats.threads import single_blas_thread

#: One line per sheet metric: what it means (shown in the app and in the CSV).
DEFINITIONS: dict[str, str] = {
    "calls": "calls with a verdict between two different models",
    "slot_gap_points": "slot A's win share minus slot B's over all calls, in percentage points; "
    "mixes position with which model sat where unless every pair is shown in both orders",
    "slot_a_win_rate": "share of single-order verdicts won by slot A",
    "slot_b_win_rate": "share of single-order verdicts won by slot B",
    "balanced_share": "share of calls in model pairs judged in both slot orders",
    "order_balance": "how evenly each model pair is split between the two slot orders, over all "
    "pairs (1: every pair equally often in each order; 0: each pair in one order only)",
    "pairings": "both-orders verdicts formed (each pairs a call in each order)",
    "unpaired_calls": "calls judged in one order only: no both-orders verdict, dropped from it",
    "swap_consistency_exact": "like swap consistency, but the same level on the full scale",
    "no_verdict_calls": "calls that returned no verdict",
    "pairs_both_orders": "model pairs seen in both slot orders (they carry position bias and slot bias)",
    "self_comparison_calls": "calls comparing a model with itself, with a verdict",
    "self_comparison_mean_verdict": "mean verdict of self-comparisons (above 0: slot A favoured)",
    "labelled_calls": "calls compared with a human label",
    "human_judgements": "distinct human judgements (a label repeated on both orders counts once)",
    "human_ceiling_agreement": "one human judgement against the majority of the pair's other "
    "judgements (needs pairs labelled by two or more people)",
    "human_ceiling_kappa": "Cohen's kappa of one human against the majority of the others",
    "length_rank_changes": "models whose rank changes when length is controlled",
    "ties_tie_probability": "chance that two verdicts drawn at random sit on the same level",
    "ties_d1": "effective number of verdict levels, from the Shannon entropy",
    "ties_d2": "effective number of verdict levels, one over the same-level chance",
    "ties_distinct_levels": "verdict levels used at least once",
    "position_bias_points": "slot A's win share minus slot B's, in percentage points, on model "
    "pairs judged in both slot orders, each order weighted equally (above 0 favours the first "
    "slot; not reported when no pair is seen in both orders)",
    "swap_consistency": "share of pairs judged in both orders whose two verdicts name the same "
    "outcome from the same model's view (repeated calls paired at random)",
    "flip_rate": "1 − swap consistency",
    "reversal_rate": "share of both-orders pairs where the two orders name opposite winners",
    "tie_rate": "share of single-order verdicts that are a tie",
    "both_orders_tie_rate": "share of both-orders verdicts that are a tie (a tie when the orders disagree)",
    "no_verdict_rate": "share of all calls that returned no verdict (never imputed)",
    "slot_bias_b": "the average of a pair's mean verdicts in its two slot orders, in verdict "
    "units (−2 to +2), weighted by calls over pairs seen in both orders (above 0 favours slot A)",
    "self_comparison_tie_rate": "ties among calls comparing a model with itself",
    "agreement": "share of labelled calls where judge and human name the same outcome (win / tie / loss)",
    "kappa": "Cohen's kappa of judge against human on labelled calls (win, tie, loss)",
    "certified": "1 when the lower 95% Wilson bounds of agreement on human wins and on human "
    "non-wins both reach the threshold (default 0.80), else 0",
    "agreement_on_wins": "share of human wins (slot A's view) the judge also calls a win (sensitivity)",
    "agreement_on_non_wins": "share of human ties and losses the judge calls a tie or loss (specificity)",
    "human_alpha": "Krippendorff's alpha (nominal) among independent human judgements of the same pair",
    "length_coefficient": "length term of the length-controlled Bradley–Terry fit, Elo points per "
    "standard deviation of the normalised length difference",
    "self_preference_elo": "how much more the judge rates its own family than the other judges "
    "do, Elo points",
}


def _nan() -> float:
    return float("nan")


@dataclass(frozen=True, repr=False)
class JudgeSheet:
    """The spec sheet of one judge (see the module docstring)."""

    judge: str | None
    category: str | None
    n_instructions: int
    n_models: int
    position: PositionResult
    order: OrderSwap
    coverage: Coverage | None
    self_comparison: SelfComparison | None
    agreement: HumanAgreement | None = None
    length: LengthControlled | None = None
    self_preference: dict | None = None  # a row of self_preference()
    ties: dict | None = None
    certification: Certification | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    design_warnings: tuple[str, ...] = field(default_factory=tuple)
    interval: str = DEFAULT_INTERVAL  # "analytic" or "bootstrap" (see evalcore.judge._analytic)

    @property
    def interval_method(self) -> str:
        """How the sheet's intervals are made, in words."""
        return interval_words(self.interval, self.order.rounds)

    def __repr__(self) -> str:
        return (
            f"JudgeSheet(judge={self.judge!r}, {self.position.calls:,} calls, "
            f"{len(self.design_warnings)} design warnings)"
        )

    def scalars(self) -> dict[str, float | int | str | None]:
        """Every scalar of the sheet, flat (intervals as ``*_low``/``*_high``)."""
        p = self.position
        cov = self.coverage
        selfc = self.self_comparison
        out: dict[str, float | int | str | None] = {"judge": self.judge, "calls": p.calls}

        def put(key: str, est) -> None:
            out[key], out[f"{key}_low"], out[f"{key}_high"] = est.value, est.low, est.high

        put("position_bias_points", p.position_bias_points)
        out.update(
            {
                "slot_gap_points": p.slot_gap_points,
                "slot_a_win_rate": p.slot_a_win_rate,
                "slot_b_win_rate": p.slot_b_win_rate,
                "balanced_share": p.balance.balanced_share,
                "order_balance": p.balance.order_balance,
                "pairings": p.pairings,
                "unpaired_calls": p.unpaired_calls,
            }
        )
        put("swap_consistency", p.swap_consistency)
        out["swap_consistency_exact"] = p.swap_consistency_exact.value
        put("flip_rate", p.flip_rate)
        out["reversal_rate"] = p.reversal_rate.value
        put("tie_rate", p.tie_rate)
        put("both_orders_tie_rate", p.both_orders_tie_rate)
        out["no_verdict_rate"] = cov.no_verdict_rate if cov else _nan()
        out["no_verdict_calls"] = cov.no_verdict if cov else None
        put("slot_bias_b", self.order.b)
        out["pairs_both_orders"] = self.order.pairs_both_orders
        out["self_comparison_calls"] = selfc.calls if selfc else None
        out["self_comparison_tie_rate"] = selfc.tie_rate if selfc else _nan()
        out["self_comparison_mean_verdict"] = selfc.mean_verdict if selfc else _nan()
        ag = self.agreement
        out["labelled_calls"] = ag.n if ag else None
        out["human_judgements"] = ag.n_judgements if ag else None
        for key in ("agreement", "kappa"):
            if ag:
                put(key, getattr(ag, key))
            else:
                out[key] = out[f"{key}_low"] = out[f"{key}_high"] = _nan()
        cert = self.certification
        out["certified"] = float(cert.certified) if cert else _nan()
        for key, part in (("agreement_on_wins", "wins"), ("agreement_on_non_wins", "non_wins")):
            if cert:
                put(key, getattr(cert, part).estimate)
            else:
                out[key] = out[f"{key}_low"] = out[f"{key}_high"] = _nan()
        out["human_alpha"] = ag.alpha if ag else _nan()
        out["human_ceiling_agreement"] = ag.ceiling_agreement if ag else _nan()
        out["human_ceiling_kappa"] = ag.ceiling_kappa if ag else _nan()
        lc = self.length
        if lc:
            put("length_coefficient", lc.gamma_elo)
        else:
            out["length_coefficient"] = out["length_coefficient_low"] = _nan()
            out["length_coefficient_high"] = _nan()
        out["length_rank_changes"] = lc.rank_changes if lc else None
        sp = self.self_preference
        out["self_preference_elo"] = sp["delta_elo"] if sp else _nan()
        out["self_preference_elo_low"] = sp["delta_elo_low"] if sp else _nan()
        out["self_preference_elo_high"] = sp["delta_elo_high"] if sp else _nan()
        if self.ties:
            for key, value in self.ties.items():
                if isinstance(value, int | float | np.integer | np.floating):
                    out[f"ties_{key}"] = float(value)
        return out

    def table(self) -> pd.DataFrame:
        """The sheet as a tidy table: metric, value, low, high, definition (for CSV download)."""
        s = self.scalars()
        rows = []
        for key, value in s.items():
            if key.endswith("_low") or key.endswith("_high") or key == "judge":
                continue
            rows.append(
                {
                    "judge": self.judge,
                    "metric": key,
                    "value": value,
                    "low": s.get(f"{key}_low"),
                    "high": s.get(f"{key}_high"),
                    "definition": DEFINITIONS.get(key, ""),
                }
            )
        return pd.DataFrame(rows)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = dict(self.scalars())
        out.update(
            {
                "category": self.category,
                "n_instructions": self.n_instructions,
                "n_models": self.n_models,
                "interval": self.interval_method,
                "interval_kind": self.interval,
                "bootstrap_rounds": self.order.rounds,
                "design_warnings": list(self.design_warnings),
                "slot_balance": self.position.balance.as_dict(),
                "order_swap_by_anchor": self.order.by_anchor.to_dict(orient="records"),
                "coverage_by_model": (
                    self.coverage.by_model.to_dict(orient="records") if self.coverage else None
                ),
                "coverage_by_length": (
                    self.coverage.by_length.to_dict(orient="records") if self.coverage else None
                ),
                "agreement_detail": self.agreement.as_dict() if self.agreement is not None else None,
                "length_control": self.length.as_dict() if self.length is not None else None,
                "self_preference": dict(self.self_preference) if self.self_preference else None,
                "ties": self.ties,
                "certification": self.certification.as_dict() if self.certification else None,
                "notes": list(self.notes),
            }
        )
        return out


def _ties_figures(counts: VerdictCounts) -> dict | None:
    """Verdict-level tie structure (tie probability Σp², D1, D2, distinct levels) from
    :func:`evalcore.ties.level_stats`; the tie-structure page has the rest."""
    from evalcore.ties import level_stats

    try:
        stats = level_stats(counts.n.sum(axis=0, dtype=np.int64))
    except ValueError:
        return None
    return {
        "tie_probability": stats.tie_probability,
        "d1": stats.d1,
        "d2": stats.d2,
        "distinct_levels": stats.distinct,
    }


def _check_options(rounds: int, seed: int) -> tuple[int, int]:
    return (check_int("rounds", rounds, low=0, high=MAX_ROUNDS), check_int("seed", seed, low=0))


@single_blas_thread()  # many short products: one thread (evalcore.stats.threads)
def judge_sheet(  # noqa: C901 - assembles every section of the sheet, each guarded on its own
    source: CountSource | VerdictCounts,
    judge: str | None,
    *,
    category: str | None = None,
    rounds: int = 2000,
    seed: int = 0,
    families: dict[str, str] | None = None,
    length_control: bool = True,
    self_preference_table: pd.DataFrame | None = None,
    certify_threshold: float = DEFAULT_THRESHOLD,
    progress: Progress | None = None,
    interval: str = DEFAULT_INTERVAL,
) -> JudgeSheet:
    """Every spec-sheet figure for one judge.

    Parameters
    ----------
    source : CountSource or VerdictCounts
        A store of verdicts (:class:`~evalcore.store.store.VerdictStore`; load a frame with
        ``VerdictStore.from_frame(frame)``) or sparse counts. Counts hold no no-verdict rows, human
        labels or lengths, so coverage, agreement and length control are left out (``None``).
    judge : str or None
        The judge to measure (None only when the data has one judge).
    category : str, optional
        Only rows of this category.
    rounds : int, default 2000
        Bootstrap rounds over instructions (0: no intervals), with ``interval="bootstrap"``.
    seed : int, default 0
    families : dict, optional
        Model or judge → family; adds the self-preference figure for a judge whose family is
        known.
    length_control : bool, default True
        Fit the length-controlled Bradley–Terry model (needs lengths).
    self_preference_table : DataFrame, optional
        The result of :func:`~evalcore.judge.self_preference.self_preference`, to save
        recomputing it for every judge.
    progress : callable, optional
        ``progress(fraction, text)``.
    interval : {"analytic", "bootstrap"}, default "analytic"
        The 95% intervals: analytic and cluster-robust over instructions (Wilson on the effective
        sample size for shares, the delta method for the rest; :mod:`evalcore.judge._analytic`),
        immediate; or percentiles of a bootstrap over instructions (``rounds`` rounds, slower).
        The page, the ``judge`` command and the report use the same default.

    Returns
    -------
    JudgeSheet

    References
    ----------
    Zheng, L. et al. (2023). Judging LLM-as-a-Judge with MT-Bench and Chatbot Arena. NeurIPS
    Datasets and Benchmarks.

    Examples
    --------
    >>> from evalcore.simulate.tables import JudgeSpec, SimulationSpec, simulate
    >>> sim = simulate(SimulationSpec(n_models=4, n_instructions=20, seed=1,
    ...                               judges=(JudgeSpec("j", slot_bias=0.5),)))
    >>> from evalcore.store.store import VerdictStore
    >>> sheet = judge_sheet(VerdictStore.from_frame(sim.verdicts), "j", rounds=0, length_control=False)
    >>> sheet.position.position_bias_points.value > 0
    True
    >>> sheet.design_warnings
    ()
    """
    rounds, seed = _check_options(rounds, seed)
    interval = check_interval(interval)
    if interval == "analytic":
        rounds = 0

    def step(f: float, text: str) -> None:
        if progress is not None:
            progress(f, text)

    notes: list[str] = []
    if isinstance(source, VerdictCounts):
        counts, store = source, None
    else:
        require_source(source, needs=("counts", "judges", "query"), what="judge_sheet")
        store = source
        judges = store.judges()
        if judge is not None and judge not in judges:
            raise UsageError(f"judge {judge!r} is not in the data; its judges are: " + ", ".join(judges))
        if judge is None and len(judges) > 1:
            raise UsageError(
                "the data has several judges (" + ", ".join(judges) + "): name "
                "the one to measure; pooling judges would mix their biases."
            )
        counts = store.counts(judge=judge, category=category)
    if counts.n_models < 2 or counts.calls == 0:
        raise DesignError(
            f"judge {judge!r} has no verdict between two different models"
            + (f" in category {category!r}" if category else "")
            + ": a spec sheet needs at least one judged pair."
        )
    position, order = position_and_order_swap(
        counts,
        rounds=rounds,
        seed=seed,
        progress=lambda f, text: step(0.05 + 0.3 * f, text),
        interval=interval,
    )
    warnings = list(position.design_warnings)
    if interval == "analytic" and counts.n_instructions < MIN_INSTRUCTIONS:
        notes.append(FEW_INSTRUCTIONS_NOTE)
    cov = selfc = agreement = length = selfpref = cert = None
    if store is not None:
        step(0.35, "coverage")
        cov = coverage(store, judge, category=category)
        selfc = self_comparison(store, judge, category=category)
        step(0.45, "agreement with humans")
        rows = labelled_rows(store, judge, category=category)
        if len(rows):
            try:
                agreement = human_agreement(rows, rounds=min(rounds, 1000), seed=seed, interval=interval)
                for note in agreement.notes:  # what is not identified is a design warning
                    (warnings if note in (ONE_JUDGEMENT_NOTE, MIXED_LAYOUT_NOTE) else notes).append(note)
            except ValueError as exc:
                notes.append(str(exc))
            # calibration imports no judge; the store's own check refuses a source without patterns
            from evalcore.calibration.counts import CalibrationSource, calibration_counts

            cert = certify(
                calibration_counts(cast(CalibrationSource, store), judge=judge, category=category),
                threshold=certify_threshold,
                judge=judge,
            )
            if cert.note:
                notes.append(cert.note)
        if length_control:
            step(0.6, "length-controlled Bradley–Terry")
            try:
                length = length_controlled_ranking(store, judge, category=category)
            except ValueError as exc:
                notes.append(str(exc))
        if families and judge is not None and judge in families:
            step(0.75, "self-preference")
            try:
                table = (
                    self_preference_table
                    if self_preference_table is not None
                    else self_preference(
                        store,
                        families,
                        category=category,
                        rounds=min(rounds, 500),
                        seed=seed,
                        interval=interval,
                    )
                )
                hit = table[table["judge"] == judge]
                if len(hit) and np.isfinite(hit["delta"].iloc[0]):
                    selfpref = {
                        k: (v.item() if hasattr(v, "item") else v) for k, v in hit.iloc[0].to_dict().items()
                    }
                elif len(hit):
                    notes.append(f"Self-preference not available: {hit['note'].iloc[0]}.")
            except ValueError as exc:
                notes.append(str(exc))
    ties = _ties_figures(counts)
    step(1.0, "done")
    return JudgeSheet(
        judge=judge,
        category=category,
        n_instructions=counts.n_instructions,
        n_models=counts.n_models,
        position=position,
        order=order,
        coverage=cov,
        self_comparison=selfc,
        agreement=agreement,
        length=length,
        self_preference=selfpref,
        ties=ties,
        certification=cert,
        notes=tuple(notes),
        design_warnings=tuple(warnings),
        interval=interval,
    )
