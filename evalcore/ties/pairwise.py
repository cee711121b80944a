"""Tie structure of a pairwise judge, computed on sparse counts.

The verdict-level distribution of the judge's calls gives its tie probability and effective
levels. A selector sees *within-instruction scores*: each call gives slot A the share w(v) of the
verdict level v (σ(v) = 1/(1 + e^−v) for ``score="soft"``, the tournament score of "The Format is
the Filter"; 1 / ½ / 0 for ``score="sign"``) and slot B 1 − w(v), and a model's score on an
instruction is its mean share over all its calls there, both slots pooled. T is then the share of
instructions whose top score is tied, and agreement with a reference is measured within each
instruction (:mod:`evalcore.ties.within`).

Everything is computed from the judged cells of :class:`~evalcore.counts.VerdictCounts`: memory
grows with the (instruction, model) entries that occur, never with instructions × models, so an
arena table (one battle per prompt) costs two entries per prompt.

References
----------
"The Format is the Filter: Scoring Format Fixes What an LLM Judge Can Express" (2025), §2–§3,
Appendices A and D.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from evalcore.counts import N_LEVELS, VerdictCounts
from evalcore.errors import ResourceLimitError, UsageError, check_int
from evalcore.names import Names
from evalcore.schema import LEVELS
from evalcore.stats.bootstrap import percentile_interval, resampled_sums
from evalcore.stats.intervals import Estimate
from evalcore.ties.levels import (
    LEVEL_LABELS,
    SCORE_DECIMALS,
    SCORE_RULES,
    LevelStats,
    level_stats,
    level_weights,
)
from evalcore.ties.within import Agreement, summarise_agreement, within_instruction

#: The largest dense (instructions × models) score matrix :func:`instruction_scores` builds.
DENSE_SCORES_LIMIT = 64 * 1024**2


# -- within-instruction scores, sparse --------------------------------------------------------
@dataclass(frozen=True)
class ScoreEntries:
    """One within-instruction score per (instruction, model) that has calls, sorted by key.

    ``inst[e]`` and ``model[e]`` index the count object's axes; ``score[e]`` is the model's mean
    share over its calls on that instruction; ``calls[e]`` how many calls that mean is over.
    """

    inst: np.ndarray
    model: np.ndarray
    score: np.ndarray
    calls: np.ndarray
    n_models: int

    @property
    def key(self) -> np.ndarray:
        return self.inst.astype(np.int64) * max(self.n_models, 1) + self.model

    def padded(self, n_instructions: int) -> tuple[np.ndarray, np.ndarray]:
        """(I, K) scores (NaN where empty) with K the most models on one instruction, and the
        (I, K) model index of each slot (−1 where empty)."""
        size = np.bincount(self.inst, minlength=n_instructions)
        k = int(size.max()) if size.size else 0
        start = np.r_[0, np.cumsum(size)[:-1]]
        slot = np.arange(self.inst.size) - start[self.inst]
        s = np.full((n_instructions, k), np.nan)
        who = np.full((n_instructions, k), -1, dtype=np.int64)
        s[self.inst, slot] = self.score
        who[self.inst, slot] = self.model
        return s, who


def score_entries(counts: VerdictCounts, score: str = "soft") -> ScoreEntries:
    """Each model's within-instruction score, for the (instruction, model) pairs with calls.

    Parameters
    ----------
    counts : VerdictCounts
        The judge's calls.
    score : {"soft", "sign"}
        How a call becomes a share (:func:`~evalcore.ties.levels.level_weights`).

    Returns
    -------
    ScoreEntries

    Examples
    --------
    >>> c = VerdictCounts.from_cells(models=("a", "b"), instructions=("q",), judge="j",
    ...                              inst=[0], a=[0], b=[1], n=[[0, 0, 0, 1, 0]])
    >>> score_entries(c, "sign").score.tolist()
    [1.0, 0.0]
    """
    w = level_weights(score)
    n = counts.n.astype(np.float64)
    games = n.sum(axis=1)
    share_a = n @ w
    if counts.n_cells and np.bincount(counts.inst).max() == 1:
        # One cell per instruction (an arena table): each model's entry is its side of that cell,
        # so nothing needs merging; the entries come out sorted by (instruction, model).
        first = counts.a < counts.b
        lo = np.where(first, counts.a, counts.b).astype(np.int64)
        hi = np.where(first, counts.b, counts.a).astype(np.int64)
        share_lo = np.where(first, share_a, games - share_a)
        return ScoreEntries(
            inst=np.repeat(counts.inst.astype(np.int64), 2),
            model=np.column_stack([lo, hi]).ravel(),
            score=(np.column_stack([share_lo, games - share_lo]) / games[:, None]).ravel(),
            calls=np.repeat(games, 2).astype(np.int64),
            n_models=counts.n_models,
        )
    m = max(counts.n_models, 1)
    key = np.concatenate(
        [counts.inst.astype(np.int64) * m + counts.a, counts.inst.astype(np.int64) * m + counts.b]
    )
    uniq, inv = np.unique(key, return_inverse=True)
    total = np.bincount(inv, weights=np.concatenate([share_a, games - share_a]), minlength=uniq.size)
    calls = np.bincount(inv, weights=np.concatenate([games, games]), minlength=uniq.size)
    with np.errstate(invalid="ignore", divide="ignore"):
        value = np.where(calls > 0, total / np.where(calls > 0, calls, 1.0), np.nan)
    return ScoreEntries(
        inst=(uniq // m).astype(np.int64),
        model=(uniq % m).astype(np.int64),
        score=value,
        calls=calls.astype(np.int64),
        n_models=counts.n_models,
    )


def instruction_scores(
    counts: VerdictCounts, score: str = "soft", *, max_bytes: int = DENSE_SCORES_LIMIT
) -> np.ndarray:
    """(I, M) within-instruction scores, NaN where a model has no call on the instruction.

    A dense view of :func:`score_entries` for small tables; raises
    :class:`~evalcore.errors.ResourceLimitError` above ``max_bytes`` (the analyses themselves
    never build it).

    Examples
    --------
    >>> c = VerdictCounts.from_cells(models=("a", "b", "c"), instructions=("q",), judge="j",
    ...                              inst=[0], a=[0], b=[1], n=[[0, 0, 1, 0, 0]])
    >>> instruction_scores(c, "sign").tolist()
    [[0.5, 0.5, nan]]
    """
    need = counts.n_instructions * counts.n_models * 8
    if need > max_bytes:
        raise ResourceLimitError(
            f"A dense instructions × models score matrix would take {need / 1024**2:,.0f} MB, over "
            f"the {max_bytes / 1024**2:,.0f} MB budget; use score_entries for the sparse form."
        )
    e = score_entries(counts, score)
    out = np.full((counts.n_instructions, counts.n_models), np.nan)
    out[e.inst, e.model] = e.score
    return out


# -- labelled rows ----------------------------------------------------------------------------
@dataclass(frozen=True)
class LabelledPairs:
    """The judge's calls and the human labels on the same labelled rows, on identical axes."""

    judge: VerdictCounts
    human: VerdictCounts

    @property
    def n_calls(self) -> int:
        return self.judge.calls


def labelled_counts(store, judge: str | None, *, category: str | None = None) -> LabelledPairs:
    """Count the judge's verdicts and the human labels on the rows that carry both.

    The aggregation runs in DuckDB with names as bound parameters; both count objects share the
    same instruction and model axes.

    Parameters
    ----------
    store : VerdictStore
    judge : str or None
        The judge (None pools every judge).
    category : str, optional
        Only rows of this category.

    Returns
    -------
    LabelledPairs
    """
    cells = store.labelled_cells(judge=judge, category=category)
    out = {}
    for who, levels in (("judge", cells.verdict), ("human", cells.human)):
        n = np.zeros((cells.n.size, N_LEVELS), dtype=np.int64)
        n[np.arange(cells.n.size), levels - LEVELS[0]] = cells.n
        out[who] = VerdictCounts.from_cells(
            models=cells.models,
            instructions=cells.instructions,
            judge=judge if who == "judge" else "human",
            inst=cells.inst,
            a=cells.a,
            b=cells.b,
            n=n,
        )
    return LabelledPairs(judge=out["judge"], human=out["human"])


def _reference_values(
    counts: VerdictCounts, entries: ScoreEntries, reference: VerdictCounts | pd.DataFrame, score: str
) -> tuple[np.ndarray, str]:
    """The reference value of every score entry (NaN where it has none) and its kind."""
    if isinstance(reference, VerdictCounts):
        if reference.models != counts.models or reference.instructions != counts.instructions:
            raise UsageError(
                "reference: the reference counts must be on the same models and "
                "instructions as the judge's counts (use evalcore.ties.labelled_counts)"
            )
        ref = score_entries(reference, score)
        if ref.key.size == 0:
            return np.full(entries.key.size, np.nan), "human labels"
        pos = np.clip(np.searchsorted(ref.key, entries.key), 0, ref.key.size - 1)
        return np.where(ref.key[pos] == entries.key, ref.score[pos], np.nan), "human labels"
    frame = reference.rename(columns={c: str(c).strip().lower() for c in reference.columns})
    if not {"model", "score"} <= set(frame.columns):
        raise UsageError(
            "reference: a reference score table needs the columns model, score "
            "(and optionally instruction_id)"
        )
    values = pd.to_numeric(frame["score"], errors="coerce").to_numpy(dtype=np.float64)
    m = pd.Index(counts.models).get_indexer(frame["model"].astype(str))
    if "instruction_id" in frame.columns:
        i = pd.Index(counts.instructions).get_indexer(frame["instruction_id"].astype(str))
        keep = (m >= 0) & (i >= 0)
        table = pd.Series(values[keep], index=i[keep].astype(np.int64) * max(counts.n_models, 1) + m[keep])
        table = table[~table.index.duplicated(keep="last")]
        return table.reindex(entries.key).to_numpy(dtype=np.float64), "reference score"
    per_model = np.full(counts.n_models, np.nan)
    keep = m >= 0
    per_model[m[keep]] = values[keep]
    return per_model[entries.model], "reference score"


# -- the result -------------------------------------------------------------------------------
@dataclass(frozen=True)
class VerdictTieStructure:
    """Tie structure of one pairwise judge.

    ``levels``/``level_counts``/``level_shares``: the verdict-level distribution of its calls;
    ``stats``: tie probability Σp², D1, D2 and distinct levels of that distribution;
    ``tie_verdict_rate``: share of TIE (0) verdicts; ``candidate_stats``: the same statistics over
    the within-instruction scores the selector sees; ``top_tied``: T, the share of instructions
    (with ≥ 2 scored models) whose top is tied; ``agreement``: mean within-instruction τa, τb,
    Somers' D and top-1 against a reference, when one was given.
    """

    judge: str | None
    score: str
    n_calls: int
    levels: tuple[int, ...]
    level_counts: tuple[int, ...]
    stats: LevelStats
    tie_verdict_rate: float
    candidate_stats: LevelStats | None
    instructions: int
    top_tied: float
    agreement: Agreement | None
    per_instruction: pd.DataFrame = field(repr=False, compare=False)
    #: T, τa and top-1 with 95% bootstrap intervals over instructions (those that apply)
    intervals: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def level_shares(self) -> tuple[float, ...]:
        total = sum(self.level_counts)
        return tuple((c / total) if total else float("nan") for c in self.level_counts)

    def level_table(self) -> pd.DataFrame:
        """The verdict-level distribution as a tidy table (level, meaning, calls, share)."""
        return pd.DataFrame(
            {
                "level": list(self.levels),
                "meaning": [LEVEL_LABELS[v] for v in self.levels],
                "calls": list(self.level_counts),
                "share": list(self.level_shares),
            }
        )

    def as_dict(self) -> dict:
        return {
            "judge": self.judge,
            "score": self.score,
            "n_calls": self.n_calls,
            "levels": list(self.levels),
            "level_counts": list(self.level_counts),
            "level_shares": list(self.level_shares),
            "tie_probability": self.stats.tie_probability,
            "d1": self.stats.d1,
            "d2": self.stats.d2,
            "distinct": self.stats.distinct,
            "tie_verdict_rate": self.tie_verdict_rate,
            "candidate_scores": self.candidate_stats.as_dict() if self.candidate_stats else None,
            "instructions": self.instructions,
            "top_tied": self.top_tied,
            "agreement": self.agreement.as_dict() if self.agreement else None,
            "intervals": {k: v.as_dict() for k, v in self.intervals.items()},
        }

    def __repr__(self) -> str:
        return (
            f"VerdictTieStructure(judge={self.judge!r}, calls={self.n_calls:,}, "
            f"tie_probability={self.stats.tie_probability:.3f}, top_tied={self.top_tied:.3f})"
        )


def instruction_mean(
    values: np.ndarray, *, rounds: int = 1000, seed: int = 0, method: str = "bootstrap over instructions"
) -> Estimate:
    """The mean of a per-instruction statistic (NaN = not defined there) with a 95% bootstrap
    interval over instructions.

    Instructions with the same value are exchangeable, so the draw is a multinomial over the
    distinct values (:func:`evalcore.stats.bootstrap.bootstrap_weights`): an arena table's T
    (0 or 1 per prompt) resamples two patterns, not millions of prompts.

    Examples
    --------
    >>> est = instruction_mean(np.array([1.0, 0.0, 0.0, 1.0, np.nan]), rounds=200)
    >>> est.value, est.low <= 0.5 <= est.high
    (0.5, True)
    """
    v = np.asarray(values, dtype=np.float64)
    v = v[~np.isnan(v)]
    if v.size == 0:
        return Estimate(float("nan"), method=method)
    distinct, multiplicity = np.unique(v, return_counts=True)
    value = float(multiplicity @ distinct / v.size)
    if v.size < 2 or distinct.size < 2:
        return Estimate(value, method=method)  # no spread to resample: no interval, not zero width
    sums = resampled_sums(np.column_stack([distinct, np.ones_like(distinct)]), multiplicity, rounds, seed)
    low, high = percentile_interval(sums[:, 0] / sums[:, 1])
    return Estimate(value, float(low), float(high), method=method)


def verdict_tie_structure(
    counts: VerdictCounts,
    reference: VerdictCounts | pd.DataFrame | None = None,
    *,
    score: str = "soft",
    rounds: int = 1000,
    seed: int = 0,
) -> VerdictTieStructure:
    """Tie structure of a pairwise judge's verdicts, with agreement against a reference if given.

    Parameters
    ----------
    counts : VerdictCounts
        The judge's calls (sparse; no dense tensor is built).
    reference : VerdictCounts or DataFrame, optional
        Human labels on the same calls (:func:`labelled_counts`; pass its ``judge`` counts as
        ``counts``), or a reference score table (``model, score`` or ``instruction_id, model,
        score``; higher is better).
    score : {"soft", "sign"}
        The within-instruction score.
    rounds, seed : int
        Bootstrap draws over instructions for the intervals of T, τa and top-1, and their seed.

    Returns
    -------
    VerdictTieStructure

    Raises
    ------
    UsageError
        When ``counts`` holds no call, or ``score`` is not a known rule.

    References
    ----------
    "The Format is the Filter" (2025), §3 and Appendix D.

    Examples
    --------
    Two models tie on one instruction and one wins the other:

    >>> c = VerdictCounts.from_cells(models=("a", "b"), instructions=("q1", "q2"), judge="j",
    ...                              inst=[0, 1], a=[0, 0], b=[1, 1],
    ...                              n=[[0, 0, 1, 0, 0], [0, 0, 0, 1, 0]])
    >>> t = verdict_tie_structure(c, score="sign")
    >>> t.tie_verdict_rate, t.top_tied
    (0.5, 0.5)
    """
    if score not in SCORE_RULES:
        raise UsageError(f"score must be one of {SCORE_RULES}, not {score!r}")
    rounds = check_int("rounds", rounds, low=1)
    level_counts = counts.n.sum(axis=0, dtype=np.int64) if counts.n_cells else np.zeros(N_LEVELS, np.int64)
    n_calls = int(level_counts.sum())
    if n_calls == 0:
        raise UsageError("counts: there are no verdicts for this selection")
    stats = level_stats(level_counts)
    ref = None
    kind = None
    one_call = reference is None and counts.single_call_instructions()
    if (level := counts.single_call_levels() if one_call else None) is not None:
        per, freq = _one_call_each(level, score, level_counts)
    else:
        entries = score_entries(counts, score)
        s, _ = entries.padded(counts.n_instructions)
        if reference is not None:
            values, kind = _reference_values(counts, entries, reference, score)
            ref = ScoreEntries(entries.inst, entries.model, values, entries.calls, entries.n_models).padded(
                counts.n_instructions
            )[0]
        per = within_instruction(s, ref)
        scored = np.round(entries.score[~np.isnan(entries.score)], SCORE_DECIMALS)
        freq = np.unique(scored, return_counts=True)[1]  # how often each distinct score
    column = counts.instructions.as_column() if isinstance(counts.instructions, Names) else None
    if column is None:
        column = np.empty(counts.n_instructions, dtype=object)  # 2–3× faster than a list for pandas
        column[:] = counts.instructions
    per.insert(0, "instruction_id", column)
    candidate = level_stats(freq) if freq.size else None
    multi = (per["candidates"] >= 2).to_numpy()
    intervals = {"top_tied": instruction_mean(per["top_tied"].to_numpy(), rounds=rounds, seed=seed)}
    if ref is not None:
        for name in ("tau_a", "top1"):
            intervals[name] = instruction_mean(per[name].to_numpy(), rounds=rounds, seed=seed)
    return VerdictTieStructure(
        judge=counts.judge,
        score=score,
        n_calls=n_calls,
        levels=tuple(LEVELS),
        level_counts=tuple(int(c) for c in level_counts),
        stats=stats,
        tie_verdict_rate=float(level_counts[LEVELS.index(0)] / n_calls),
        candidate_stats=candidate,
        instructions=int(multi.sum()),
        top_tied=float(per.loc[multi, "top_tied"].mean()) if multi.any() else float("nan"),
        agreement=None if ref is None or kind is None else summarise_agreement(per, kind),
        per_instruction=per,
        intervals=intervals,
    )


def _one_call_each(
    level: np.ndarray, score: str, level_counts: np.ndarray
) -> tuple[pd.DataFrame, np.ndarray]:
    """:func:`within_instruction`'s table without a reference, and how often each distinct
    candidate score occurs (in the order of the scores), from each call's level index where every instruction is one call (an arena): each
    instruction's two candidates score slot A's share of its level and one minus it, so both
    follow from the level alone, with no per-candidate entry (1.8 M battles: 1.0 s less)."""
    weights = level_weights(score)
    share, other = np.round(weights, SCORE_DECIMALS), np.round(1.0 - weights, SCORE_DECIMALS)
    tied = share == other
    n = level.size  # instruction k is cell k, one call at level index level[k]
    per = pd.DataFrame(
        {
            "candidates": np.full(n, 2, dtype=np.int64),
            "top_size": np.where(tied, 2, 1).astype(np.int64)[level],
            "top_tied": tied.astype(np.float64)[level],
        }
    )
    present = level_counts > 0
    _, at = np.unique(np.r_[share[present], other[present]], return_inverse=True)
    freq = np.bincount(at, weights=np.r_[level_counts[present], level_counts[present]])
    return per, freq.astype(np.int64)


@dataclass(frozen=True)
class JudgeTies:
    """The tie structure of a judge's calls (``judge``, against ``human_ranking`` when given) and,
    on the rows that also carry a human label, of those calls against the labels (``human``;
    None without labelled rows)."""

    judge: VerdictTieStructure
    human: VerdictTieStructure | None

    def as_dict(self) -> dict:
        return {"judge": self.judge.as_dict(), "human": self.human.as_dict() if self.human else None}


def judge_ties(
    counts: VerdictCounts,
    labelled: LabelledPairs | None = None,
    *,
    human_ranking: pd.DataFrame | None = None,
    score: str = "soft",
    structure: VerdictTieStructure | None = None,
) -> JudgeTies:
    """:func:`verdict_tie_structure` of a judge's calls and, on its labelled rows
    (:func:`labelled_counts`), of the same calls against the human labels: the Tie-structure
    view's pairwise section in one call ("The Format is the Filter: Scoring Format Fixes What an
    LLM Judge Can Express", 2025).

    Both parts use the same within-instruction ``score`` rule, so the two agreements compare.
    ``structure``: the judge's part when already computed with these arguments (the Overview's
    tie finding), not computed again.
    """
    judge = structure if structure is not None else verdict_tie_structure(counts, human_ranking, score=score)
    human = None
    if labelled is not None and labelled.n_calls:
        human = verdict_tie_structure(labelled.judge, labelled.human, score=score)
    return JudgeTies(judge, human)
