"""Agreement of a judge with human labels, the human ceiling and the compression table.

- Outcomes are compared on three classes, win / tie / loss (the sign of a verdict): judges and
  humans both answer A, B or tie.
- **Agreement**: the share of labelled calls where the judge's verdict and the row's human label
  name the same outcome. Calls without a verdict are counted (``n_no_verdict``) and left out,
  never imputed. **Cohen's κ** = (p_o − p_e)/(1 − p_e) with p_e from the two marginals (Cohen
  1960); labels are read from slot A's point of view, as the file gives them.
  With ``both_orders=True`` the judge's verdict on a pair is the both-orders verdict
  (:mod:`evalcore.judge.both_orders`; the first call of each order) compared with each human
  judgement of the pair once.
- **Human judgements.** A unit is an instruction and an unordered pair (for one judge). A
  both-orders table usually repeats the same human label on both order rows: that is one
  judgement, not two raters. Labels are read as copies where the table never varies (every
  unit labelled in both orders has the same labels in both; every repeated row of one order has
  the same label), and as independent judgements otherwise (:func:`human_judgements`); the
  decision is said in ``notes``. A table whose pairs labelled in both orders are a mixture (some
  carry the same labels in both orders, others different ones) cannot say which identical pairs
  are one label copied and which are two people who agreed: read as raters throughout, a table
  with 70% of its pairs copied gave α 0.93 and a ceiling of 95.6% where the doubly rated pairs
  had 0.76 and 85.0%. The data contract has no rater column to settle it, so α and the ceiling
  are withheld (NaN) with :data:`MIXED_LAYOUT_NOTE`; agreement and κ with the judge, which
  compare each row's own label, are kept.
- **Krippendorff's α** (nominal) among the human judgements of units with two or more of them:
  α = 1 − D_o/D_e from the coincidence matrix (Krippendorff 2011).
- **Human ceiling**: each judgement of a unit with two or more judgements against the majority of
  the unit's other judgements (units whose others have no majority are skipped), scored like a
  judge: agreement and Cohen's κ. α and the ceiling need genuinely independent labels; with one
  judgement per unit they are NaN and a note says so.
- **Compression table**: from the judge's confusion matrix P(judge outcome | human outcome),
  symmetrised (every labelled call counted from both models' points of view), the win rate the
  judge prints (wins + ties/2) when the humans' win rate (wins + ties/2) is X, holding the
  humans' tie share t at the labelled set's own: P(win) = X − t/2, P(loss) = 1 − X − t/2 (t capped
  at 2·min(X, 1 − X)).

References
----------
Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and Psychological
Measurement 20(1).
Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. University of Pennsylvania.
Zheng, L. et al. (2023). Judging LLM-as-a-Judge with MT-Bench and Chatbot Arena. NeurIPS Datasets
and Benchmarks (agreement of judges with expert labels and among experts).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from evalcore.counts import CountSource
from evalcore.errors import UsageError, check_int
from evalcore.judge import _analytic as analytic
from evalcore.judge._resample import METHOD
from evalcore.stats.bootstrap import MAX_ROUNDS, percentile_interval, resampled_sums
from evalcore.stats.intervals import Estimate

#: The outcome classes, in order: loss, tie, win (from the point of view read).
OUTCOMES: tuple[str, ...] = ("loss", "tie", "win")
#: The humans' win rates of the compression table (the study behind the compression table uses these).
COMPRESSION_RATES: tuple[float, ...] = (0.20, 0.35, 0.50, 0.65, 0.80)
_SCORE = np.array([0.0, 0.5, 1.0])  # printed-win-rate credit of a judge loss / tie / win


def labelled_rows(store: CountSource, judge: str | None, *, category: str | None = None) -> pd.DataFrame:
    """The judge's rows that carry a human label (with or without a verdict), from DuckDB."""
    return store.query("labelled_rows", judge=judge, category=category)


def _classes(values: np.ndarray) -> np.ndarray:
    """Verdict levels → class index 0 (loss), 1 (tie), 2 (win)."""
    return (np.sign(np.asarray(values, dtype=np.int64)) + 1).astype(int)


def confusion_matrix(human: np.ndarray, judge: np.ndarray) -> np.ndarray:
    """3×3 counts: rows human outcome, columns judge outcome (loss, tie, win)."""
    return np.bincount(_classes(human) * 3 + _classes(judge), minlength=9).reshape(3, 3)


def cohen_kappa(confusion: np.ndarray) -> float:
    """Cohen's κ of a square confusion matrix: (p_o − p_e) / (1 − p_e)."""
    c = np.asarray(confusion, dtype=np.float64)
    n = c.sum()
    if n == 0:
        return float("nan")
    p_o = np.trace(c) / n
    p_e = float((c.sum(axis=1) / n) @ (c.sum(axis=0) / n))
    return float((p_o - p_e) / (1.0 - p_e)) if p_e < 1.0 else float("nan")


def krippendorff_alpha_nominal(units: list[np.ndarray] | list[list[int]]) -> float:
    """Nominal Krippendorff's α over units, each a list of the values coders gave it.

    Units with fewer than two values are not pairable and are ignored.

    References
    ----------
    Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. University of
    Pennsylvania (the nominal example there gives 0.743).

    Examples
    --------
    >>> round(krippendorff_alpha_nominal([[1, 1], [2, 2], [1, 2]]), 3)
    0.444
    """
    sizes = np.array([len(u) for u in units], dtype=np.int64)
    if sizes.sum() == 0:
        return float("nan")
    unit = np.repeat(np.arange(len(units)), sizes)
    values = np.concatenate([np.asarray(u) for u in units if len(u)])
    return alpha_nominal_from_labels(unit, values)


def alpha_nominal_from_labels(unit: np.ndarray, value: np.ndarray) -> float:
    """Nominal Krippendorff's α from one (unit id, value) pair per label."""
    _, unit = np.unique(np.asarray(unit), return_inverse=True)
    categories, inverse = np.unique(np.asarray(value), return_inverse=True)
    k = len(categories)
    n_units = int(unit.max()) + 1 if unit.size else 0
    n_uc = np.bincount(unit * k + inverse, minlength=n_units * k).reshape(n_units, k)
    return alpha_nominal_from_counts(n_uc)


def alpha_nominal_from_counts(n_uc: np.ndarray) -> float:
    """Nominal Krippendorff's α from a (units, categories) matrix of value counts; units with
    fewer than two values are ignored."""
    n_uc = np.asarray(n_uc, dtype=np.float64)
    sizes = n_uc.sum(axis=1)
    keep = sizes >= 2
    if not keep.any():
        return float("nan")
    n_uc, sizes = n_uc[keep], sizes[keep]
    # coincidences o_ck = Σ_u n_uc (n_uk − [c = k]) / (m_u − 1)
    scale = 1.0 / (sizes - 1.0)
    o = np.einsum("u,uc,uk->ck", scale, n_uc, n_uc) - np.diag((n_uc * scale[:, None]).sum(axis=0))
    n_c = o.sum(axis=1)
    n = n_c.sum()
    disagree_obs = o.sum() - np.trace(o)
    disagree_exp = (n_c.sum() ** 2 - (n_c**2).sum()) / (n - 1.0)
    if disagree_exp <= 0:
        return float("nan")
    return float(1.0 - disagree_obs / disagree_exp)


def compression_table(
    confusion: np.ndarray, *, tie_share: float, rates: tuple[float, ...] = COMPRESSION_RATES
) -> pd.DataFrame:
    """The win rate printed for each humans' win rate, from a confusion matrix.

    ``confusion`` is 3×3 (rows human loss/tie/win, columns judge loss/tie/win), already
    symmetrised if the caller wants a slot-free table. Returns human_rate, human_tie_share (the
    t used), judge_prints, shift (judge_prints − human_rate), all as fractions.
    """
    c = np.asarray(confusion, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        cond = c / c.sum(axis=1, keepdims=True)  # P(judge | human)
    credit = cond @ _SCORE  # expected printed score given the human outcome
    rows = []
    for x in rates:
        t = min(tie_share, 2.0 * x, 2.0 * (1.0 - x))
        p = np.array([1.0 - x - t / 2.0, t, x - t / 2.0])  # human loss, tie, win
        used = p > 0
        printed = float(p[used] @ credit[used]) if np.all(np.isfinite(credit[used])) else float("nan")
        rows.append({"human_rate": x, "human_tie_share": t, "judge_prints": printed, "shift": printed - x})
    return pd.DataFrame(rows)


def symmetrise(confusion: np.ndarray) -> np.ndarray:
    """Count every call from both points of view: C + C reversed in both axes."""
    c = np.asarray(confusion)
    return c + c[::-1, ::-1]


#: Shown when no unit has two independent human judgements.
ONE_JUDGEMENT_NOTE = (
    "Every labelled pair carries one human judgement (the same label on both orders of a pair "
    "counts once), so the humans' agreement with each other (Krippendorff's alpha and the human "
    "ceiling) needs pairs labelled by two or more people and is not available."
)


#: Shown when pairs labelled in both orders mix copied labels and different labels.
MIXED_LAYOUT_NOTE = (
    "Some pairs carry the same human label on both orders and others different labels, so the "
    "file mixes layouts: a label copied onto both order rows cannot be told from two people who "
    "agreed, and counting copies as raters inflates the humans' agreement. The file has no rater "
    "column to tell them apart, so Krippendorff's alpha and the human ceiling are not shown. Label "
    "each pair in one layout throughout (one label per pair, or one label per person and order)."
)


@dataclass(frozen=True, repr=False)
class HumanAgreement:
    """The judge against human labels: see the module docstring."""

    n: int  # labelled calls with a verdict (pairs with both_orders) compared
    n_no_verdict: int  # labelled calls whose call returned no verdict (left out)
    n_judgements: int  # distinct human judgements (copies on both orders counted once)
    agreement: Estimate
    kappa: Estimate
    confusion: np.ndarray  # 3×3, rows human loss/tie/win, columns judge loss/tie/win
    compression: pd.DataFrame
    human_tie_share: float
    alpha: float  # among humans; NaN when no unit has two judgements
    alpha_units: int  # units with two or more judgements (0 when withheld)
    human_pair_agreement: float  # two judgements of the same unit give the same outcome
    ceiling_n: int
    ceiling_agreement: float
    ceiling_kappa: float
    ceiling_compression: pd.DataFrame | None
    both_orders: bool
    notes: tuple[str, ...] = ()

    def __repr__(self) -> str:
        return (
            f"HumanAgreement(agreement={self.agreement!r}, kappa={self.kappa!r}, n={self.n:,}, "
            f"alpha={self.alpha:.3g})"
        )

    def confusion_frame(self) -> pd.DataFrame:
        frame = pd.DataFrame(
            self.confusion, index=[f"human {o}" for o in OUTCOMES], columns=[f"judge {o}" for o in OUTCOMES]
        )
        return frame.rename_axis("human outcome").reset_index()

    def as_dict(self) -> dict:
        return {
            "n": self.n,
            "n_no_verdict": self.n_no_verdict,
            "n_judgements": self.n_judgements,
            "both_orders": self.both_orders,
            "agreement": self.agreement.value,
            "agreement_low": self.agreement.low,
            "agreement_high": self.agreement.high,
            "kappa": self.kappa.value,
            "kappa_low": self.kappa.low,
            "kappa_high": self.kappa.high,
            "interval": self.agreement.method,
            "confusion": {
                "rows_human": list(OUTCOMES),
                "columns_judge": list(OUTCOMES),
                "counts": self.confusion.tolist(),
            },
            "human_tie_share": self.human_tie_share,
            "compression": self.compression.to_dict(orient="records"),
            "human_alpha": self.alpha,
            "alpha_units": self.alpha_units,
            "human_pair_agreement": self.human_pair_agreement,
            "ceiling_n": self.ceiling_n,
            "ceiling_agreement": self.ceiling_agreement,
            "ceiling_kappa": self.ceiling_kappa,
            "ceiling_compression": (
                self.ceiling_compression.to_dict(orient="records")
                if self.ceiling_compression is not None
                else None
            ),
            "notes": list(self.notes),
        }


def _units(rows: pd.DataFrame) -> pd.DataFrame:
    """Unit keys and the human label read from the alphabetically first model's point of view."""
    a = rows["model_a"].astype(str).to_numpy()
    b = rows["model_b"].astype(str).to_numpy()
    flip = a > b
    first = np.where(flip, b, a)
    second = np.where(flip, a, b)
    human = rows["human"].to_numpy(dtype=np.int64)
    verdict = rows["verdict"].to_numpy(dtype="float64", na_value=np.nan)
    sign = np.where(flip, -1, 1)
    return pd.DataFrame(
        {
            "instruction": pd.factorize(rows["instruction_id"].astype(str).to_numpy())[0],
            "unit": pd.factorize(
                pd.Series(rows["instruction_id"].astype(str).to_numpy()) + "\x1f" + first + "\x1f" + second
            )[0],
            "flip": flip,
            "human": human * sign,
            "verdict": verdict * sign,
            "human_row": human,
            "verdict_row": verdict,
        }
    )


def human_judgements(units: pd.DataFrame) -> tuple[np.ndarray, tuple[str, ...]]:
    """(U, 3) human judgements per unit and class (loss, tie, win from the first model's view),
    and sentences saying which repeated labels were read as copies.

    A label is a copy where the table never varies: when every (unit, order) with several rows
    carries one label throughout, those rows are repeated calls with the label copied (one
    judgement per unit and order); when every unit labelled in both orders carries the same
    labels in both, the second order repeats the first (one set per unit). Otherwise the rows
    are independent judgements (several people). Deciding over the whole table, not per unit,
    keeps agreeing raters from being merged while disagreeing ones are kept.
    """
    n_units = int(units["unit"].max()) + 1 if len(units) else 0
    cls = _classes(units["human"].to_numpy())
    order = units["flip"].to_numpy().astype(np.int64)
    flat = (units["unit"].to_numpy() * 2 + order) * 3 + cls
    cnt = np.bincount(flat, minlength=n_units * 6).reshape(n_units, 2, 3)
    notes: list[str] = []
    several = cnt.sum(axis=2) >= 2
    if several.any() and ((cnt > 0).sum(axis=2)[several] == 1).all():
        cnt = (cnt > 0).astype(np.int64)
        notes.append(
            "Repeated rows of the same pair and order always carry the same human "
            "label, so they are read as one judgement copied onto each call."
        )
    both = (cnt[:, 0].sum(axis=1) > 0) & (cnt[:, 1].sum(axis=1) > 0)
    same = (cnt[both, 0] == cnt[both, 1]).all(axis=1)
    if both.any() and same.all():
        notes.append(
            "Every pair labelled in both orders carries the same human label in both, "
            "so the label is counted once per pair, not once per order."
        )
        return cnt.max(axis=1), tuple(notes)
    if same.any():
        notes.append(MIXED_LAYOUT_NOTE)
    return cnt.sum(axis=1), tuple(notes)


def _ceiling(per: np.ndarray) -> tuple[np.ndarray, int, float, int]:
    """Leave-one-out comparisons of human judgements (U, 3) → (confusion, n, pairwise agreement,
    units with two or more judgements)."""
    size = per.sum(axis=1)
    multi = size >= 2
    pm = per[multi]
    denom = (size[multi] * (size[multi] - 1)).sum()
    pair_agreement = float((pm * (pm - 1)).sum() / denom) if denom else float("nan")
    conf = np.zeros((3, 3), dtype=np.int64)
    for own in range(3):  # each judgement of class `own` against the majority of the others
        has = pm[:, own] > 0
        others = pm[has].copy()
        others[:, own] -= 1
        top = others.max(axis=1)
        keep = ((others == top[:, None]).sum(axis=1) == 1) & (top > 0)
        majority = others.argmax(axis=1)
        np.add.at(conf, (majority[keep], own), pm[has][keep, own])
    return conf, int(conf.sum()), pair_agreement, int(multi.sum())


def _bootstrap(
    instruction: np.ndarray, cells: np.ndarray, weight: np.ndarray, rounds: int, seed: int
) -> tuple[tuple[float, float], tuple[float, float]]:
    """95% intervals of agreement and κ, resampling instructions in bounded chunks."""
    if not rounds or len(cells) == 0:
        return (float("nan"),) * 2, (float("nan"),) * 2
    n_inst = int(instruction.max()) + 1
    per = np.bincount(instruction * 9 + cells, weights=weight, minlength=n_inst * 9).reshape(n_inst, 9)
    conf = resampled_sums(per, n_inst, rounds, seed).reshape(rounds, 3, 3)
    total = conf.sum(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        p_o = np.trace(conf, axis1=1, axis2=2) / total
        p_e = np.einsum("ri,ri->r", conf.sum(axis=2), conf.sum(axis=1)) / total**2
        kappa = (p_o - p_e) / (1.0 - p_e)
    p_low, p_high = percentile_interval(p_o)
    k_low, k_high = percentile_interval(kappa)
    return (float(p_low), float(p_high)), (float(k_low), float(k_high))


def _analytic(
    instruction: np.ndarray, cells: np.ndarray, weight: np.ndarray
) -> tuple[Estimate, tuple[float, float]]:
    """Agreement (Wilson on the effective sample size) and kappa's 95% bounds (delta method),
    cluster-robust over labelled instructions (:mod:`evalcore.judge._analytic`)."""
    n_inst = int(instruction.max()) + 1
    per = np.bincount(instruction * 9 + cells, weights=weight, minlength=n_inst * 9).reshape(n_inst, 9)
    ones = np.ones(n_inst)
    agree = analytic.share(per[:, [0, 4, 8]].sum(axis=1), per.sum(axis=1), ones)
    kappa, u = analytic.kappa_influence(per)
    k = analytic.wald(kappa, float(analytic.clustered_variance(u, ones)))
    return agree, (k.low, k.high)


def human_agreement(
    rows: pd.DataFrame,
    *,
    both_orders: bool = False,
    rates: tuple[float, ...] = COMPRESSION_RATES,
    rounds: int = 1000,
    seed: int = 0,
    interval: str = analytic.DEFAULT_INTERVAL,
) -> HumanAgreement:
    """Agreement, κ, α, the human ceiling and the compression table from labelled rows.

    Parameters
    ----------
    rows : DataFrame
        instruction_id, model_a, model_b, verdict (nullable), human (−2..+2), as returned by
        :func:`labelled_rows`.
    both_orders : bool, default False
        Compare the both-orders verdict of each pair with each of its human judgements once,
        instead of each call with its row's label.
    rates : tuple of float
        The humans' win rates of the compression table.
    rounds : int, default 1000
        Bootstrap rounds over labelled instructions for the agreement and κ intervals, with
        ``interval="bootstrap"``.
    seed : int, default 0
    interval : {"analytic", "bootstrap"}, default "analytic"
        Cluster-robust over labelled instructions: Wilson on the effective sample size for
        agreement and the delta method for κ; or percentiles of a bootstrap.

    Returns
    -------
    HumanAgreement

    References
    ----------
    Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and
    Psychological Measurement 20(1).
    Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability.
    Zheng, L. et al. (2023). Judging LLM-as-a-Judge with MT-Bench and Chatbot Arena.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = pd.DataFrame({"instruction_id": ["q1", "q1", "q2"], "model_a": ["x", "y", "x"],
    ...     "model_b": ["y", "x", "y"], "verdict": pd.array([1, -1, 0], dtype="Int8"),
    ...     "human": pd.array([1, -1, 1], dtype="Int8")})
    >>> res = human_agreement(rows, rounds=0)
    >>> round(res.agreement.value, 3), res.n_judgements
    (0.667, 2)
    >>> res.notes[-1].startswith("Every labelled pair carries one human judgement")
    True
    """
    rounds = check_int("rounds", rounds, low=0, high=MAX_ROUNDS)
    seed = check_int("seed", seed, low=0)
    missing = {"instruction_id", "model_a", "model_b", "verdict", "human"} - set(rows.columns)
    if missing:
        raise UsageError(
            "rows must have the columns instruction_id, model_a, model_b, verdict "
            "and human; missing: " + ", ".join(sorted(missing)) + "."
        )
    rows = rows[rows["human"].notna() & (rows["model_a"] != rows["model_b"])]
    if len(rows) == 0:
        raise UsageError(
            "No row carries a human label: agreement with humans needs a 'human' "
            "column filled on some rows (the labelled set)."
        )
    units = _units(rows)
    per, copy_notes = human_judgements(units)  # (U, 3)
    has_verdict = np.isfinite(units["verdict"].to_numpy())
    n_no_verdict = int((~has_verdict).sum())
    if both_orders:
        judged = units[has_verdict]
        fwd = judged[~judged["flip"]].groupby("unit")["verdict"].first()
        rev = judged[judged["flip"]].groupby("unit")["verdict"].first()
        both = fwd.index.intersection(rev.index).to_numpy()
        va, vb = fwd.loc[both].to_numpy(), rev.loc[both].to_numpy()
        combined = np.where(va * vb > 0, np.sign(va) * np.minimum(np.abs(va), np.abs(vb)), 0.0)
        # each human judgement of a unit once: (unit, class) with its count as weight
        unit_inst = units.groupby("unit")["instruction"].first()
        u = np.repeat(both, 3)
        cls = np.tile(np.arange(3), both.size)
        weight = per[both].ravel().astype(np.float64)
        keep = weight > 0
        human_cls = cls[keep]
        judge_cls = _classes(np.repeat(combined, 3)[keep])
        weight, instruction = weight[keep], unit_inst.loc[u[keep]].to_numpy()
    else:
        human_cls = _classes(units["human_row"].to_numpy()[has_verdict])
        judge_cls = _classes(units["verdict_row"].to_numpy()[has_verdict])
        instruction = units["instruction"].to_numpy()[has_verdict]
        weight = np.ones(human_cls.size)
    if weight.sum() == 0:
        raise UsageError(
            "No labelled row has a judge verdict"
            + (" in both orders" if both_orders else "")
            + ": agreement with humans cannot be computed."
        )
    cells = human_cls * 3 + judge_cls
    conf = np.bincount(cells, weights=weight, minlength=9).reshape(3, 3).astype(np.int64)
    n = int(conf.sum())
    if analytic.check_interval(interval) == "analytic":
        agree, kappa_ci = _analytic(instruction, cells, weight)
        agreement_ci, method = (agree.low, agree.high), agree.method
        kappa_method = analytic.DELTA_METHOD if np.isfinite(kappa_ci[0]) else ""
    else:
        agreement_ci, kappa_ci = _bootstrap(instruction, cells, weight, rounds, seed)
        method = kappa_method = METHOD.replace("instructions", "labelled instructions") if rounds else ""
    tie_share = float(per[:, 1].sum() / per.sum())
    ceiling_conf, ceiling_n, pair_agreement, alpha_units = _ceiling(per)
    alpha = alpha_nominal_from_counts(per)
    mixed = MIXED_LAYOUT_NOTE in copy_notes
    if mixed:  # not identified: withheld, never a guess
        ceiling_conf, ceiling_n, pair_agreement, alpha_units = np.zeros((3, 3), np.int64), 0, float("nan"), 0
        alpha = float("nan")
    notes = copy_notes + (() if alpha_units or mixed else (ONE_JUDGEMENT_NOTE,))
    return HumanAgreement(
        n=n,
        n_no_verdict=n_no_verdict,
        n_judgements=int(per.sum()),
        agreement=Estimate(float(np.trace(conf) / n), *agreement_ci, method=method),
        kappa=Estimate(cohen_kappa(conf), *kappa_ci, method=kappa_method),
        confusion=conf,
        compression=compression_table(symmetrise(conf), tie_share=tie_share, rates=rates),
        human_tie_share=tie_share,
        alpha=alpha,
        alpha_units=alpha_units,
        human_pair_agreement=pair_agreement,
        ceiling_n=ceiling_n,
        ceiling_agreement=float(np.trace(ceiling_conf) / ceiling_n) if ceiling_n else float("nan"),
        ceiling_kappa=cohen_kappa(ceiling_conf) if ceiling_n else float("nan"),
        ceiling_compression=(
            compression_table(symmetrise(ceiling_conf), tie_share=tie_share, rates=rates)
            if ceiling_n
            else None
        ),
        both_orders=both_orders,
        notes=notes,
    )
