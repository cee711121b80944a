"""Tie structure of a judge's output: how many levels it really uses, and how often a selector must
break a tie at random (seed 002, "The Format is the Filter", §3 and Appendices C–D).

Definitions (seed 002; ``shared/notes/DEFINITIONS.md``, "The judge"):

- **Level distribution** p over the values a judge emits (pairwise: the verdict levels −2..+2 of
  its calls; pointwise: the distinct scores of one judge under one format).
- **Tie probability** Σ p²: the chance that two random outputs (calls, or candidates) get the same
  value. Not the same thing as the share of TIE verdicts, which is reported beside it.
- **Effective levels** D_α = exp(H_α) with Rényi entropy H_α = log(Σ p^α) / (1 − α) (App. D):
  D1 = exp(Shannon entropy), D2 = 1 / Σ p² (the inverse tie probability), and D2 ≤ D1 ≤ distinct.
- **Distinct values**: how many values were emitted at least once (App. C, Table 5).
- **Within-instruction scores**: the selector ranks the candidates of one instruction. A pointwise
  judge's score is the candidate's score. For a pairwise judge it is seed 002's tournament score
  (§2, App. A): each call gives slot A the win probability σ(v) = 1/(1 + e^−v) and slot B 1 − σ(v),
  and a model's score on an instruction is its mean over all its calls on that instruction, both
  slots pooled (``score="soft"``); ``score="sign"`` uses the tool's win share instead (a win 1, a
  tie ½, a loss 0). Scores are compared after rounding to 12 decimals, so a float sum order
  never splits a tie.
- **An instruction's top is tied** when at least two of its candidates share its highest score,
  so a selector that keeps the best candidate must pick among them at random. **T** is the share of
  instructions with at least two scored candidates whose top is tied (Table 1).
- **Agreement with a reference**, within each instruction over the candidates that have both a
  score and a reference value (n of them, n0 = n(n−1)/2 pairs): C − D counts concordant minus
  discordant pairs, and a pair tied by the judge or by the reference counts in neither (Table 1:
  "pairs tied in the reference count in no τ numerator"). τa = (C − D) / n0; τb = (C − D) /
  √((n0 − n1)(n0 − n2)) with n1 judge-tied and n2 reference-tied pairs (scipy's default; undefined
  when either factor is 0, and then left out of the mean); Somers' D = (C − D) / (n0 − n2) (App. C);
  **top-1** is the exact expectation, under uniform tie-breaking, that the candidate the judge
  ranks first is one the reference ranks first: |judge top ∩ reference top| / |judge top|.
  Each is averaged over instructions ("mean within-prompt Kendall"). Seed 002's worked example:
  reference a > b > c and a binary judge accepting a and b give τa = 2/3, τb = 2/√6 ≈ 0.8165 and
  top-1 = 1/2.
- **Reference** for a pairwise judge: the human labels on the labelled rows (the same soft or sign
  scores computed from the ``human`` column on the same calls; :func:`labelled_counts`), or a
  reference score per model (``model, score``, e.g. a public ranking) or per instruction and model
  (``instruction_id, model, score``). For pointwise tables, the ``reference`` column.
- **Variance shares** (Table 2): over a complete format × judge grid with one value per cell, the
  sum of squares of a diagnostic splits into format, judge and residual parts (two-way ANOVA
  without replication; the residual absorbs the interaction).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from evalcore.schema import LEVELS
from evalcore.store import VerdictCounts, VerdictStore, counts_from_aggregate

#: Decimals kept when deciding whether two scores are equal.
SCORE_DECIMALS = 12
#: How a pairwise call becomes a within-instruction score (see the module docstring).
SCORE_RULES: tuple[str, ...] = ("soft", "sign")
#: Words for each verdict level (slot A's point of view).
LEVEL_LABELS: dict[int, str] = {-2: "B much better", -1: "B better", 0: "tie", 1: "A better",
                                2: "A much better"}

# Largest (groups × K × K) block compared at once in the within-instruction kernel.
_BLOCK = 2_000_000


# -- level statistics -------------------------------------------------------------------------
@dataclass(frozen=True)
class LevelStats:
    """Tie probability Σp², effective levels D1 = exp(H1), D2 = 1/Σp², and distinct values of a
    distribution over levels (seed 002, App. D; DEFINITIONS.md "Effective levels")."""

    tie_probability: float
    d1: float
    d2: float
    distinct: int
    n: float  # total count behind the distribution (1.0 when probabilities were given)

    def as_dict(self) -> dict:
        return {"tie_probability": self.tie_probability, "d1": self.d1, "d2": self.d2,
                "distinct": self.distinct, "n": self.n}


def renyi_effective_levels(probabilities: Iterable[float] | np.ndarray, alpha: float) -> float:
    """D_α = exp(H_α), the number of equally used levels with the same Rényi entropy of order α
    (seed 002, App. D). ``alpha = 1`` is the Shannon limit; zero-probability levels do not count."""
    p = np.asarray(list(probabilities) if not isinstance(probabilities, np.ndarray) else probabilities,
                   dtype=np.float64)
    p = p[p > 0]
    p = p / p.sum()
    if alpha == 1:
        return float(np.exp(-(p * np.log(p)).sum()))
    if np.isinf(alpha):
        return float(1.0 / p.max())
    return float(np.exp(np.log((p ** alpha).sum()) / (1.0 - alpha)))


def level_stats(values: Iterable[float] | np.ndarray | pd.Series) -> LevelStats:
    """Tie probability, D1, D2 and distinct values of counts (or probabilities) over levels.

    ``values`` are non-negative weights, one per level; they are normalised, so counts and
    probabilities give the same statistics. Levels with zero weight are unused and do not count
    as distinct. Raises ``ValueError`` for negative weights or an all-zero distribution.
    """
    w = np.asarray(values, dtype=np.float64).ravel()
    if w.size == 0 or not np.isfinite(w).all() or (w < 0).any():
        raise ValueError("level weights must be finite, non-negative numbers")
    total = float(w.sum())
    if total <= 0:
        raise ValueError("the distribution is empty: no level has any weight")
    p = w / total
    tie = float((p ** 2).sum())
    return LevelStats(tie_probability=tie, d1=renyi_effective_levels(p, 1.0), d2=1.0 / tie,
                      distinct=int((w > 0).sum()), n=total)


# -- the within-instruction kernel ----------------------------------------------------------
def _sign_matrix(x: np.ndarray) -> np.ndarray:
    """sign(x[g, a] − x[g, b]) for every group g and candidate pair (a, b); NaN where absent."""
    return np.sign(x[:, :, None] - x[:, None, :])


def within_instruction(score: np.ndarray, reference: np.ndarray | None = None) -> pd.DataFrame:
    """Per-group top-tie and rank-agreement statistics of padded score arrays.

    ``score`` and ``reference`` are (G, K) arrays: row g holds the candidates of one instruction,
    NaN where a slot is empty (a missing candidate, or a missing reference value). Returns one row
    per group with ``candidates``, ``top_size`` (candidates sharing the highest score),
    ``top_tied`` (1.0/0.0; NaN with fewer than two candidates) and, with a reference, ``ranked``
    (candidates with both values), ``pairs`` (n0), ``s`` (C − D), ``judge_tied`` (n1),
    ``reference_tied`` (n2), ``tau_a``, ``tau_b``, ``somers_d``, ``top1`` (exact expectation),
    ``reference_top_size`` and ``uniform_top1`` (the top-1 of a selector that picks uniformly).
    See the module docstring for the definitions (seed 002, Table 1 and App. C).
    """
    s = np.round(np.asarray(score, dtype=np.float64), SCORE_DECIMALS)
    if s.ndim != 2:
        raise ValueError("scores must be a (groups, candidates) array")
    r = None if reference is None else np.round(np.asarray(reference, dtype=np.float64), SCORE_DECIMALS)
    if r is not None and r.shape != s.shape:
        raise ValueError("reference must have the same shape as the scores")
    g, k = s.shape
    present = ~np.isnan(s)
    candidates = present.sum(axis=1)
    top = np.nanmax(np.where(present, s, -np.inf), axis=1, initial=-np.inf)
    top_size = (present & (s == top[:, None])).sum(axis=1)
    out = {"candidates": candidates, "top_size": top_size,
           "top_tied": np.where(candidates >= 2, (top_size >= 2).astype(float), np.nan)}
    if r is None:
        return pd.DataFrame(out)

    both = present & ~np.isnan(r)
    ranked = both.sum(axis=1)
    fields = {name: np.zeros(g) for name in ("pairs", "s", "judge_tied", "reference_tied")}
    upper = np.triu(np.ones((k, k), dtype=bool), 1)
    step = max(1, _BLOCK // max(1, k * k))
    for start in range(0, g, step):  # blocks of instructions, not rows
        sl = slice(start, start + step)
        valid = both[sl, :, None] & both[sl, None, :] & upper
        ds = np.where(valid, _sign_matrix(s[sl]), 0.0)
        dr = np.where(valid, _sign_matrix(r[sl]), 0.0)
        fields["pairs"][sl] = valid.sum(axis=(1, 2))
        fields["s"][sl] = (ds * dr).sum(axis=(1, 2))
        fields["judge_tied"][sl] = (valid & (ds == 0)).sum(axis=(1, 2))
        fields["reference_tied"][sl] = (valid & (dr == 0)).sum(axis=(1, 2))
    n0, sc, n1, n2 = fields["pairs"], fields["s"], fields["judge_tied"], fields["reference_tied"]
    with np.errstate(invalid="ignore", divide="ignore"):
        tau_a = np.where(n0 > 0, sc / n0, np.nan)
        tb_den = (n0 - n1) * (n0 - n2)
        tau_b = np.where(tb_den > 0, sc / np.sqrt(np.where(tb_den > 0, tb_den, 1.0)), np.nan)
        somers = np.where(n0 - n2 > 0, sc / np.where(n0 - n2 > 0, n0 - n2, 1.0), np.nan)
    s_top = np.max(np.where(both, s, -np.inf), axis=1, initial=-np.inf)
    r_top = np.max(np.where(both, r, -np.inf), axis=1, initial=-np.inf)
    judge_top = both & (s == s_top[:, None])
    ref_top = both & (r == r_top[:, None])
    jt, rt = judge_top.sum(axis=1), ref_top.sum(axis=1)
    hit = (judge_top & ref_top).sum(axis=1)
    enough = ranked >= 2
    with np.errstate(invalid="ignore", divide="ignore"):
        top1 = np.where(enough, hit / np.maximum(jt, 1), np.nan)
        uniform = np.where(enough, rt / np.maximum(ranked, 1), np.nan)
    out.update({"ranked": ranked, "pairs": n0.astype(int), "s": sc, "judge_tied": n1.astype(int),
                "reference_tied": n2.astype(int), "tau_a": np.where(enough, tau_a, np.nan),
                "tau_b": np.where(enough, tau_b, np.nan), "somers_d": np.where(enough, somers, np.nan),
                "top1": top1, "reference_top_size": np.where(enough, rt, 0),
                "reference_top_tied": np.where(enough, (rt >= 2).astype(float), np.nan),
                "uniform_top1": uniform})
    return pd.DataFrame(out)


@dataclass(frozen=True)
class Agreement:
    """Mean within-instruction agreement of a judge's ranking with a reference (seed 002, §3.3)."""

    reference_kind: str
    instructions: int  # instructions with at least two candidates that have a reference value
    tau_a: float
    tau_b: float
    tau_b_instructions: int  # instructions where τb is defined (neither side ties everything)
    somers_d: float
    top1: float
    reference_top_tied: float  # share of instructions whose reference top is tied
    uniform_top1: float  # top-1 of a selector that picks a candidate uniformly at random

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in ("reference_kind", "instructions", "tau_a", "tau_b",
                                               "tau_b_instructions", "somers_d", "top1",
                                               "reference_top_tied", "uniform_top1")}


def _nanmean(x: pd.Series) -> float:
    x = x.dropna()
    return float(x.mean()) if len(x) else float("nan")


def summarise_agreement(per_group: pd.DataFrame, reference_kind: str) -> Agreement:
    """Average the per-instruction statistics of :func:`within_instruction` into an Agreement."""
    used = per_group[per_group["ranked"] >= 2] if "ranked" in per_group else per_group.iloc[:0]
    return Agreement(
        reference_kind=reference_kind,
        instructions=int(len(used)),
        tau_a=_nanmean(used["tau_a"]) if len(used) else float("nan"),
        tau_b=_nanmean(used["tau_b"]) if len(used) else float("nan"),
        tau_b_instructions=int(used["tau_b"].notna().sum()) if len(used) else 0,
        somers_d=_nanmean(used["somers_d"]) if len(used) else float("nan"),
        top1=_nanmean(used["top1"]) if len(used) else float("nan"),
        reference_top_tied=_nanmean(used["reference_top_tied"]) if len(used) else float("nan"),
        uniform_top1=_nanmean(used["uniform_top1"]) if len(used) else float("nan"),
    )


# -- pairwise judges --------------------------------------------------------------------------
def level_weights(score: str = "soft") -> np.ndarray:
    """Slot A's share of a call at each verdict level: σ(v) (``soft``, seed 002's tournament) or
    1 / ½ / 0 for win / tie / loss (``sign``, the tool's win share)."""
    levels = np.asarray(LEVELS, dtype=np.float64)
    if score == "soft":
        return 1.0 / (1.0 + np.exp(-levels))
    if score == "sign":
        return np.where(levels > 0, 1.0, np.where(levels < 0, 0.0, 0.5))
    raise ValueError(f"score must be one of {SCORE_RULES}, not {score!r}")


def instruction_scores(counts: VerdictCounts, score: str = "soft") -> np.ndarray:
    """(I, M) within-instruction scores: each model's mean share over its calls on the instruction,
    both slots pooled (seed 002 tournament score for ``soft``); NaN where a model has no call."""
    c = counts.counts.astype(np.float64)
    w = level_weights(score)
    as_a = (c @ w).sum(axis=2)  # model in slot A
    as_b = (c @ (1.0 - w)).sum(axis=1)  # model in slot B
    games = c.sum(axis=3)
    n = games.sum(axis=2) + games.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, (as_a + as_b) / np.where(n > 0, n, 1.0), np.nan)


@dataclass(frozen=True)
class LabelledPairs:
    """The judge's calls and the human labels on the same labelled rows, on identical axes."""

    judge: VerdictCounts
    human: VerdictCounts

    @property
    def n_calls(self) -> int:
        return int(self.judge.counts.sum())


def labelled_counts(store: VerdictStore, judge: str | None, category: str | None = None) -> LabelledPairs:
    """Count the judge's verdicts and the human labels on the rows that carry both (DuckDB, bound
    parameters). Both tensors have the same instruction and model axes."""
    agg = store.con.execute(
        """
        SELECT instruction_id, model_a, model_b, verdict, human, count(*)::INTEGER AS n
        FROM verdicts
        WHERE verdict IS NOT NULL AND human IS NOT NULL AND model_a <> model_b
          AND (? IS NULL OR judge = ?) AND (? IS NULL OR category = ?)
        GROUP BY ALL
        """,
        [judge, judge, category, category],
    ).df()
    cols = ["instruction_id", "model_a", "model_b", "n"]
    judge_counts = counts_from_aggregate(agg[cols + ["verdict"]], judge=judge)
    human_counts = counts_from_aggregate(agg[cols].assign(verdict=agg["human"]), judge="human")
    return LabelledPairs(judge=judge_counts, human=human_counts)


def _reference_matrix(counts: VerdictCounts, reference: VerdictCounts | pd.DataFrame,
                      score: str) -> tuple[np.ndarray, str]:
    if isinstance(reference, VerdictCounts):
        if reference.models != counts.models or reference.instructions != counts.instructions:
            raise ValueError("the reference counts must be on the same models and instructions as "
                             "the judge's counts (use evalcore.ties.labelled_counts)")
        return instruction_scores(reference, score), "human labels"
    frame = reference.rename(columns={c: str(c).strip().lower() for c in reference.columns})
    if not {"model", "score"} <= set(frame.columns):
        raise ValueError("a reference score table needs the columns model, score "
                         "(and optionally instruction_id)")
    models = pd.Index(counts.models)
    values = pd.to_numeric(frame["score"], errors="coerce").to_numpy(dtype=np.float64)
    m = models.get_indexer(frame["model"].astype(str))
    out = np.full((counts.n_instructions, counts.n_models), np.nan)
    if "instruction_id" in frame.columns:
        i = pd.Index(counts.instructions).get_indexer(frame["instruction_id"].astype(str))
        keep = (m >= 0) & (i >= 0)
        out[i[keep], m[keep]] = values[keep]
    else:
        keep = m >= 0
        out[:, m[keep]] = values[keep]
    return out, "reference score"


@dataclass(frozen=True)
class VerdictTieStructure:
    """Tie structure of one pairwise judge (seed 002 §3 applied to pairwise verdicts).

    ``levels``/``level_counts``/``level_shares``: the verdict-level distribution of its calls;
    ``stats``: tie probability Σp², D1, D2 and distinct levels of that distribution;
    ``tie_verdict_rate``: share of TIE (0) verdicts; ``candidate_stats``: the same statistics over
    the within-instruction scores the selector sees (seed 002's tournament row); ``top_tied``: T,
    the share of instructions (with ≥ 2 scored models) whose top is tied; ``agreement``: mean
    within-instruction τa, τb, Somers' D and top-1 against a reference, when one was given.
    """

    judge: str | None
    score: str
    n_calls: int
    levels: tuple[int, ...]
    level_counts: tuple[int, ...]
    stats: LevelStats
    tie_verdict_rate: float
    candidate_stats: LevelStats | None
    instructions: int  # instructions with at least two scored models
    top_tied: float
    agreement: Agreement | None
    per_instruction: pd.DataFrame = field(repr=False, compare=False)

    @property
    def level_shares(self) -> tuple[float, ...]:
        total = sum(self.level_counts)
        return tuple((c / total) if total else float("nan") for c in self.level_counts)

    def level_table(self) -> pd.DataFrame:
        """The verdict-level distribution as a tidy table (level, meaning, calls, share)."""
        return pd.DataFrame({"level": list(self.levels),
                             "meaning": [LEVEL_LABELS[v] for v in self.levels],
                             "calls": list(self.level_counts), "share": list(self.level_shares)})

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
        }


def verdict_tie_structure(counts: VerdictCounts, reference: VerdictCounts | pd.DataFrame | None = None,
                          *, score: str = "soft") -> VerdictTieStructure:
    """Tie structure of a pairwise judge's verdicts, with agreement against a reference if given.

    ``reference`` is a :class:`VerdictCounts` of human labels on the same calls (see
    :func:`labelled_counts`; pass its ``judge`` tensor as ``counts``), or a reference score table
    (``model, score`` or ``instruction_id, model, score``; higher is better). ``score`` chooses the
    within-instruction score (``soft``: seed 002's σ(v) tournament score; ``sign``: win share).
    Raises ``ValueError`` when ``counts`` holds no call.
    """
    level_counts = counts.counts.sum(axis=(0, 1, 2)).astype(np.int64)
    n_calls = int(level_counts.sum())
    if n_calls == 0:
        raise ValueError("there are no verdicts for this selection")
    stats = level_stats(level_counts)
    s = instruction_scores(counts, score)
    ref, kind = (None, None) if reference is None else _reference_matrix(counts, reference, score)
    per = within_instruction(s, ref)
    per.insert(0, "instruction_id", list(counts.instructions))
    scored = np.round(s[~np.isnan(s)], SCORE_DECIMALS)
    candidate = None
    if scored.size:
        _, freq = np.unique(scored, return_counts=True)
        candidate = level_stats(freq)
    multi = per["candidates"] >= 2
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
        agreement=None if ref is None else summarise_agreement(per, kind),
        per_instruction=per,
    )


# -- pointwise score tables --------------------------------------------------------------------
#: Columns of :func:`pointwise_tie_structure` that describe structure (no reference needed).
STRUCTURE_COLUMNS: tuple[str, ...] = ("tie_probability", "d1", "d2", "distinct", "top_tied")
#: Columns that need the ``reference`` column.
AGREEMENT_COLUMNS: tuple[str, ...] = ("spearman", "tau_b", "tau_a", "somers_d", "top1")


def _padded(frame: pd.DataFrame, keys: list[str]) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """Lay candidates out as (groups, K) arrays, one group per ``keys`` value."""
    frame = frame.sort_values(keys, kind="stable")
    group = frame.groupby(keys, sort=False, observed=True).ngroup().to_numpy()
    slot = frame.groupby(keys, sort=False, observed=True).cumcount().to_numpy()
    n_groups = int(group.max()) + 1 if len(group) else 0
    k = int(slot.max()) + 1 if len(slot) else 0
    s = np.full((n_groups, k), np.nan)
    r = np.full((n_groups, k), np.nan)
    s[group, slot] = frame["score"].to_numpy(dtype=np.float64)
    if "reference" in frame.columns:
        r[group, slot] = frame["reference"].to_numpy(dtype=np.float64)
    heads = frame.drop_duplicates(keys)[keys].reset_index(drop=True)
    return heads, s, r


def pointwise_levels(scores: pd.DataFrame) -> pd.DataFrame:
    """The score distribution per format and judge: format, judge, score, count, share."""
    scored = scores.dropna(subset=["score"])
    out = (scored.groupby(["format", "judge", "score"], observed=True).size()
           .rename("count").reset_index())
    out["share"] = out["count"] / out.groupby(["format", "judge"], observed=True)["count"].transform("sum")
    return out


def pointwise_tie_structure(scores: pd.DataFrame, *,
                            nominal_levels: Mapping[str, int] | None = None) -> pd.DataFrame:
    """Seed 002's scoring-stage diagnostics (Tables 1, 5 and 9) per format and judge.

    ``scores`` is a validated pointwise table (:func:`evalcore.pointwise.validate_pointwise`):
    ``instruction_id, candidate, judge, format, score[, reference]``; a missing score is a call
    that returned nothing (counted in ``parse_rate``, left out of everything else). Returns one row
    per (format, judge) with ``rows``, ``scored``, ``parse_rate``, ``instructions`` (with ≥ 2 scored
    candidates), ``distinct``, ``tie_probability`` (Σp² over the score distribution), ``d1``,
    ``d2``, ``top_tied`` (T), and, when a ``reference`` column is present, ``spearman`` (global
    Spearman over all candidates), ``tau_b``, ``tau_a``, ``somers_d``, ``top1`` (means over
    instructions), ``reference_top_tied`` and ``uniform_top1``. ``nominal_levels`` (format →
    number of levels the format offers, e.g. 2, 5, 101) adds ``nominal`` and ``d2_per_nominal``.
    """
    keys = ["format", "judge"]
    frame = scores.copy()
    frame["score"] = pd.to_numeric(frame["score"], errors="coerce").round(SCORE_DECIMALS)
    has_ref = "reference" in frame.columns and frame["reference"].notna().any()
    rows = frame.groupby(keys, observed=True).size().rename("rows")
    scored = frame.dropna(subset=["score"])
    if scored.empty:
        raise ValueError("no row has a score")
    levels = pointwise_levels(scored)
    levels["p2"] = levels["share"] ** 2
    levels["plogp"] = levels["share"] * np.log(levels["share"])
    agg = levels.groupby(keys, observed=True).agg(
        scored=("count", "sum"), distinct=("count", "size"), tie_probability=("p2", "sum"),
        neg_h=("plogp", "sum"))
    agg["d1"] = np.exp(-agg.pop("neg_h"))
    agg["d2"] = 1.0 / agg["tie_probability"]
    table = pd.concat([rows, agg], axis=1).reset_index()
    table["scored"] = table["scored"].fillna(0).astype(int)
    table["parse_rate"] = table["scored"] / table["rows"]

    cols = keys + ["instruction_id", "score"] + (["reference"] if has_ref else [])
    heads, s, r = _padded(scored[cols], keys + ["instruction_id"])
    per = within_instruction(s, r if has_ref else None)
    per = pd.concat([heads, per], axis=1)
    multi = per[per["candidates"] >= 2]
    cell = multi.groupby(keys, observed=True).agg(instructions=("candidates", "size"),
                                                  top_tied=("top_tied", "mean"))
    table = table.merge(cell.reset_index(), on=keys, how="left")
    table["instructions"] = table["instructions"].fillna(0).astype(int)
    if has_ref:
        ranked = per[per["ranked"] >= 2]
        agree = ranked.groupby(keys, observed=True).agg(
            ranked_instructions=("ranked", "size"), tau_b=("tau_b", "mean"), tau_a=("tau_a", "mean"),
            somers_d=("somers_d", "mean"), top1=("top1", "mean"),
            reference_top_tied=("reference_top_tied", "mean"), uniform_top1=("uniform_top1", "mean"))
        both = scored.dropna(subset=["reference"])
        spear = {}
        for key, part in both.groupby(keys, observed=True):  # one call per cell, not per row
            ok = len(part) >= 3 and part["score"].nunique() > 1 and part["reference"].nunique() > 1
            spear[key] = float(spearmanr(part["score"], part["reference"]).statistic) if ok else np.nan
        agree["spearman"] = pd.Series(spear)
        table = table.merge(agree.reset_index(), on=keys, how="left")
        table["ranked_instructions"] = table["ranked_instructions"].fillna(0).astype(int)
    if nominal_levels:
        table["nominal"] = table["format"].map(dict(nominal_levels)).astype("float64")
        table["d2_per_nominal"] = table["d2"] / table["nominal"]
    order = ["format", "judge", "rows", "scored", "parse_rate", "instructions", "distinct",
             "tie_probability", "d1", "d2", "top_tied"]
    if has_ref:
        order += ["ranked_instructions", "spearman", "tau_b", "tau_a", "somers_d", "top1",
                  "reference_top_tied", "uniform_top1"]
    if nominal_levels:
        order += ["nominal", "d2_per_nominal"]
    return table[order].sort_values(keys, kind="stable").reset_index(drop=True)


# -- variance shares ----------------------------------------------------------------------------
#: Diagnostics decomposed by default, in seed 002 Table 2's order (those present are used).
SHARE_DIAGNOSTICS: tuple[str, ...] = ("tie_probability", "distinct", "d2_per_nominal", "d1", "d2",
                                      "top_tied", "spearman", "tau_b", "tau_a", "somers_d", "top1")


@dataclass(frozen=True)
class VarianceShares:
    """Format, judge and residual shares of each diagnostic's sum of squares (seed 002, Table 2).

    ``table`` has one row per diagnostic: ``format_share``, ``judge_share``, ``residual_share``
    (fractions summing to 1) and ``total_ss``. ``notes`` say which diagnostics were left out and why.
    """

    formats: tuple[str, ...]
    judges: tuple[str, ...]
    table: pd.DataFrame
    notes: tuple[str, ...]

    def as_dict(self) -> dict:
        return {"formats": list(self.formats), "judges": list(self.judges),
                "shares": self.table.to_dict(orient="records"), "notes": list(self.notes)}


def _two_way_shares(grid: np.ndarray) -> tuple[float, float, float, float]:
    """Two-way ANOVA without replication on a (formats, judges) grid → shares and total SS."""
    grand = grid.mean()
    n_f, n_j = grid.shape
    ss_total = float(((grid - grand) ** 2).sum())
    ss_format = float(n_j * ((grid.mean(axis=1) - grand) ** 2).sum())
    ss_judge = float(n_f * ((grid.mean(axis=0) - grand) ** 2).sum())
    if ss_total <= 1e-24:
        return float("nan"), float("nan"), float("nan"), 0.0
    return (ss_format / ss_total, ss_judge / ss_total,
            max(0.0, ss_total - ss_format - ss_judge) / ss_total, ss_total)


def variance_shares(scores: pd.DataFrame, *, diagnostics: Sequence[str] | None = None,
                    without_judges: Sequence[str] = ()) -> VarianceShares:
    """Decompose each diagnostic over the format × judge grid (seed 002 §3.1, Table 2).

    ``scores`` is either a raw pointwise table (it has a ``score`` column; its diagnostics are
    computed with :func:`pointwise_tie_structure`) or a per-cell table with ``format``, ``judge``
    and one column per diagnostic (one row per cell). ``without_judges`` drops judges first (the
    seed's leave-one-judge-out columns). A diagnostic needs a value in every cell of a grid with at
    least two formats and two judges; otherwise it is left out and a note says why.
    """
    cells = pointwise_tie_structure(scores) if "score" in scores.columns else scores
    cells = cells[~cells["judge"].isin(list(without_judges))]
    formats = tuple(dict.fromkeys(cells["format"].astype(str)))
    judges = tuple(dict.fromkeys(cells["judge"].astype(str)))
    wanted = [d for d in (diagnostics or SHARE_DIAGNOSTICS) if d in cells.columns]
    notes: list[str] = []
    rows = []
    if len(formats) < 2 or len(judges) < 2:
        notes.append(f"Variance shares need at least two formats and two judges; this table has "
                     f"{len(formats)} format(s) and {len(judges)} judge(s).")
        wanted = []
    if cells.duplicated(["format", "judge"]).any():
        raise ValueError("the per-cell table has more than one row for a format and judge")
    for name in wanted:
        pivot = cells.pivot(index="format", columns="judge", values=name)
        pivot = pivot.reindex(index=list(formats), columns=list(judges)).astype("float64")
        if pivot.isna().any().any():
            missing = [f"{f}/{j}" for f in formats for j in judges if pd.isna(pivot.loc[f, j])]
            notes.append(f"{name}: left out, no value for " + ", ".join(missing[:5])
                         + (f" and {len(missing) - 5} more" if len(missing) > 5 else ""))
            continue
        f_share, j_share, res, ss = _two_way_shares(pivot.to_numpy())
        if ss == 0.0:
            notes.append(f"{name}: identical in every cell, nothing to decompose")
        rows.append({"diagnostic": name, "format_share": f_share, "judge_share": j_share,
                     "residual_share": res, "total_ss": ss})
    table = pd.DataFrame(rows, columns=["diagnostic", "format_share", "judge_share",
                                        "residual_share", "total_ss"])
    return VarianceShares(formats=formats, judges=judges, table=table, notes=tuple(notes))


def leave_one_judge_out(scores: pd.DataFrame, *, diagnostics: Sequence[str] | None = None) -> pd.DataFrame:
    """Variance shares with each judge removed in turn (seed 002, Table 6): tidy rows of
    ``judge_removed, diagnostic, format_share, judge_share, residual_share``."""
    cells = pointwise_tie_structure(scores) if "score" in scores.columns else scores
    frames = []
    for judge in dict.fromkeys(cells["judge"].astype(str)):
        shares = variance_shares(cells, diagnostics=diagnostics, without_judges=[judge]).table
        frames.append(shares.assign(judge_removed=judge))
    if not frames:
        return pd.DataFrame(columns=["judge_removed", "diagnostic", "format_share", "judge_share",
                                     "residual_share", "total_ss"])
    out = pd.concat(frames, ignore_index=True)
    return out[["judge_removed", "diagnostic", "format_share", "judge_share", "residual_share",
                "total_ss"]]
