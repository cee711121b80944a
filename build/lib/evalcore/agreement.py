"""Agreement of a judge with human labels, the human ceiling and the compression table.

Definitions (seed 003 §1, §4, §7; ``shared/notes/DEFINITIONS.md``, "The judge"):

- Outcomes are compared on three classes, win / tie / loss (the sign of a verdict): seed 003's
  judges and humans both answer A, B or tie, and "tie" and "tie, both bad" are one class.
- **Agreement**: the share of labelled calls where the judge's verdict and the row's human label
  name the same outcome. Calls without a verdict are counted (``n_no_verdict``) and left out,
  never imputed. **Cohen's κ** = (p_o − p_e)/(1 − p_e) with p_e from the two marginals; labels
  are read from slot A's point of view, as the file gives them (κ, unlike agreement, depends on
  the point of view through the marginals).
  With ``both_orders=True`` the judge's verdict on a pair is the both-orders verdict
  (:mod:`evalcore.judge`; the first call of each order) compared with every human label the pair
  carries, both read from the alphabetically first model's point of view.
- **Krippendorff's α** (nominal) among the human labels of the same unit (instruction × unordered
  pair, labels read from the alphabetically first model's point of view), over units with two or
  more labels: α = 1 − D_o/D_e from the coincidence matrix (Krippendorff 2011, "Computing
  Krippendorff's alpha-reliability").
- **Human ceiling** (seed 003 §1, §7): each label of a unit with two or more labels against the
  majority of the unit's other labels (the other label when there are two; units whose other
  labels have no majority are skipped), scored like a judge: agreement and Cohen's κ.
- **Compression table** (seed 003 §4): from the judge's confusion matrix P(judge outcome | human
  outcome), symmetrised (every labelled call counted from both models' points of view, so the
  table describes a candidate in either slot), the win rate the judge prints (wins + ties/2) when
  the humans' win rate (wins + ties/2) is X, holding the humans' tie share t at the labelled
  set's own: P(win) = X − t/2, P(loss) = 1 − X − t/2 (t capped at 2·min(X, 1 − X)).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from evalcore.ranking import bootstrap_weights
from evalcore.store import VerdictStore

#: The outcome classes, in order: loss, tie, win (from the point of view read).
OUTCOMES: tuple[str, ...] = ("loss", "tie", "win")
#: The humans' win rates of the compression table (issue 4; seed 003 §4).
COMPRESSION_RATES: tuple[float, ...] = (0.20, 0.35, 0.50, 0.65, 0.80)
_SCORE = np.array([0.0, 0.5, 1.0])  # printed-win-rate credit of a judge loss / tie / win


def labelled_rows(store: VerdictStore, judge: str | None, category: str | None = None) -> pd.DataFrame:
    """The judge's rows that carry a human label (with or without a verdict), from DuckDB."""
    return store.con.execute(
        """SELECT instruction_id, model_a, model_b, verdict, human FROM verdicts
           WHERE human IS NOT NULL AND model_a <> model_b
             AND (? IS NULL OR judge = ?) AND (? IS NULL OR category = ?)
           ORDER BY "row" """,
        [judge, judge, category, category]).df()


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

    Units with fewer than two values are not pairable and are ignored."""
    sizes = np.array([len(u) for u in units], dtype=np.int64)
    if sizes.sum() == 0:
        return float("nan")
    unit = np.repeat(np.arange(len(units)), sizes)
    values = np.concatenate([np.asarray(u) for u in units if len(u)])
    return alpha_nominal_from_labels(unit, values)


def alpha_nominal_from_labels(unit: np.ndarray, value: np.ndarray) -> float:
    """Nominal Krippendorff's α from one (unit id, value) pair per label, vectorised by counting
    values per (unit, value); units with fewer than two labels are ignored."""
    _, unit = np.unique(np.asarray(unit), return_inverse=True)
    categories, inverse = np.unique(np.asarray(value), return_inverse=True)
    k = len(categories)
    n_units = int(unit.max()) + 1 if unit.size else 0
    n_uc = np.bincount(unit * k + inverse, minlength=n_units * k).reshape(n_units, k).astype(float)
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
    disagree_exp = (n_c.sum() ** 2 - (n_c ** 2).sum()) / (n - 1.0)
    if disagree_exp <= 0:
        return float("nan")
    return float(1.0 - disagree_obs / disagree_exp)


def compression_table(confusion: np.ndarray, *, tie_share: float,
                      rates: tuple[float, ...] = COMPRESSION_RATES) -> pd.DataFrame:
    """Seed 003 §4: the win rate printed for each humans' win rate, from a confusion matrix.

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
        rows.append({"human_rate": x, "human_tie_share": t, "judge_prints": printed,
                     "shift": printed - x})
    return pd.DataFrame(rows)


def symmetrise(confusion: np.ndarray) -> np.ndarray:
    """Count every call from both points of view: C + C reversed in both axes."""
    c = np.asarray(confusion)
    return c + c[::-1, ::-1]


@dataclass(frozen=True)
class HumanAgreement:
    """The judge against human labels (seed 003 §1, §4, §7): see the module docstring."""

    n: int  # labelled calls with a verdict (pairs with both_orders)
    n_no_verdict: int  # labelled calls whose call returned no verdict (left out)
    agreement: float
    agreement_low: float
    agreement_high: float
    kappa: float
    kappa_low: float
    kappa_high: float
    confusion: np.ndarray  # 3×3, rows human loss/tie/win, columns judge loss/tie/win
    compression: pd.DataFrame
    human_tie_share: float
    alpha: float  # among humans; NaN when no unit has two labels
    alpha_units: int
    human_pair_agreement: float  # two labels of the same unit give the same outcome
    ceiling_n: int
    ceiling_agreement: float
    ceiling_kappa: float
    ceiling_compression: pd.DataFrame | None
    both_orders: bool

    def confusion_frame(self) -> pd.DataFrame:
        frame = pd.DataFrame(self.confusion, index=[f"human {o}" for o in OUTCOMES],
                             columns=[f"judge {o}" for o in OUTCOMES])
        return frame.rename_axis("human outcome").reset_index()

    def as_dict(self) -> dict:
        return {
            "n": self.n,
            "n_no_verdict": self.n_no_verdict,
            "both_orders": self.both_orders,
            "agreement": self.agreement,
            "agreement_low": self.agreement_low,
            "agreement_high": self.agreement_high,
            "kappa": self.kappa,
            "kappa_low": self.kappa_low,
            "kappa_high": self.kappa_high,
            "interval": "2.5-97.5 percentiles of a bootstrap over labelled instructions",
            "confusion": {"rows_human": list(OUTCOMES), "columns_judge": list(OUTCOMES),
                          "counts": self.confusion.tolist()},
            "human_tie_share": self.human_tie_share,
            "compression": self.compression.to_dict(orient="records"),
            "human_alpha": self.alpha,
            "alpha_units": self.alpha_units,
            "human_pair_agreement": self.human_pair_agreement,
            "ceiling_n": self.ceiling_n,
            "ceiling_agreement": self.ceiling_agreement,
            "ceiling_kappa": self.ceiling_kappa,
            "ceiling_compression": (self.ceiling_compression.to_dict(orient="records")
                                    if self.ceiling_compression is not None else None),
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
    return pd.DataFrame({
        "instruction": pd.factorize(rows["instruction_id"].astype(str).to_numpy())[0],
        "unit": pd.factorize(pd.Series(rows["instruction_id"].astype(str).to_numpy()) + "\x1f"
                             + first + "\x1f" + second)[0],
        "flip": flip,
        "human": human * sign,
        "verdict": verdict * sign,
        "human_row": human,
        "verdict_row": verdict,
    })


def _ceiling(units: pd.DataFrame) -> tuple[np.ndarray, int, float, int]:
    """Leave-one-out human comparisons → (confusion, n, pairwise agreement, units with ≥2)."""
    h = units[["unit", "human"]].copy()
    h["cls"] = _classes(h["human"].to_numpy())
    per = np.zeros((h["unit"].max() + 1, 3), dtype=np.int64)
    np.add.at(per, (h["unit"].to_numpy(), h["cls"].to_numpy()), 1)
    size = per.sum(axis=1)
    multi = size >= 2
    # pairwise agreement: Σ_c n_c(n_c − 1) / Σ m(m − 1) over units with ≥ 2 labels
    pm = per[multi]
    denom = (size[multi] * (size[multi] - 1)).sum()
    pair_agreement = float((pm * (pm - 1)).sum() / denom) if denom else float("nan")
    # each label vs the majority of the others
    mask = multi[h["unit"].to_numpy()]
    own = h["cls"].to_numpy()[mask]
    others = per[h["unit"].to_numpy()[mask]].copy()
    others[np.arange(len(own)), own] -= 1
    top = others.max(axis=1)
    unique_top = (others == top[:, None]).sum(axis=1) == 1
    majority = others.argmax(axis=1)
    keep = unique_top & (top > 0)
    # rows: the majority of the others (the truth), columns: the label scored like a judge
    conf = np.bincount(majority[keep] * 3 + own[keep], minlength=9).reshape(3, 3)
    return conf, int(keep.sum()), pair_agreement, int(multi.sum())


def _bootstrap(instruction: np.ndarray, human: np.ndarray, judge: np.ndarray, rounds: int,
               seed: int) -> tuple[tuple[float, float], tuple[float, float]]:
    """95% intervals of agreement and κ, resampling instructions (one matrix product)."""
    if not rounds or len(human) == 0:
        return (float("nan"),) * 2, (float("nan"),) * 2
    n_inst = int(instruction.max()) + 1
    cells = _classes(human) * 3 + _classes(judge)
    per = np.zeros((n_inst, 9))
    np.add.at(per, (instruction, cells), 1.0)
    conf = (bootstrap_weights(n_inst, rounds, seed) @ per).reshape(rounds, 3, 3)
    total = conf.sum(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        p_o = np.trace(conf, axis1=1, axis2=2) / total
        p_e = np.einsum("ri,ri->r", conf.sum(axis=2), conf.sum(axis=1)) / total ** 2
        kappa = (p_o - p_e) / (1.0 - p_e)

    def pct(x: np.ndarray) -> tuple[float, float]:
        x = x[np.isfinite(x)]
        if x.size == 0:
            return float("nan"), float("nan")
        low, high = np.percentile(x, [2.5, 97.5])
        return float(low), float(high)

    return pct(p_o), pct(kappa)


def human_agreement(rows: pd.DataFrame, *, both_orders: bool = False,
                    rates: tuple[float, ...] = COMPRESSION_RATES, rounds: int = 1000,
                    seed: int = 0) -> HumanAgreement:
    """Agreement, κ, α, the human ceiling and the compression table from labelled rows.

    ``rows``: instruction_id, model_a, model_b, verdict (nullable), human (−2..+2). Agreement and
    κ carry 95% intervals from ``rounds`` bootstrap resamples of the labelled instructions.
    """
    rows = rows[rows["human"].notna() & (rows["model_a"] != rows["model_b"])]
    if len(rows) == 0:
        raise ValueError("No row carries a human label: agreement with humans needs a 'human' "
                         "column filled on some rows (the labelled set).")
    units = _units(rows)
    has_verdict = np.isfinite(units["verdict"].to_numpy())
    n_no_verdict = int((~has_verdict).sum())
    if both_orders:
        judged = units[has_verdict]
        fwd = judged[~judged["flip"]].groupby("unit")["verdict"].first()
        rev = judged[judged["flip"]].groupby("unit")["verdict"].first()
        both = fwd.index.intersection(rev.index)
        va, vb = fwd.loc[both].to_numpy(), rev.loc[both].to_numpy()
        combined = np.where(va * vb > 0, np.sign(va) * np.minimum(np.abs(va), np.abs(vb)), 0.0)
        judge_of_unit = pd.Series(combined, index=both)
        labels = units[units["unit"].isin(both)]
        human = labels["human"].to_numpy()
        judge = judge_of_unit.loc[labels["unit"]].to_numpy()
        instruction = labels["instruction"].to_numpy()
    else:
        human = units["human_row"].to_numpy()[has_verdict]
        judge = units["verdict_row"].to_numpy()[has_verdict]
        instruction = units["instruction"].to_numpy()[has_verdict]
    if len(human) == 0:
        raise ValueError(
            "No labelled row has a judge verdict"
            + (" in both orders" if both_orders else "")
            + ": agreement with humans cannot be computed.")
    conf = confusion_matrix(human, judge.astype(np.int64))
    n = int(conf.sum())
    agreement_ci, kappa_ci = _bootstrap(instruction, human, judge.astype(np.int64), rounds, seed)
    tie_share = float(np.mean(np.sign(units["human"].to_numpy()) == 0))
    ceiling_conf, ceiling_n, pair_agreement, alpha_units = _ceiling(units)
    alpha = alpha_nominal_from_labels(units["unit"].to_numpy(), np.sign(units["human"].to_numpy()))
    return HumanAgreement(
        n=n,
        n_no_verdict=n_no_verdict,
        agreement=float(np.trace(conf) / n),
        agreement_low=agreement_ci[0],
        agreement_high=agreement_ci[1],
        kappa=cohen_kappa(conf),
        kappa_low=kappa_ci[0],
        kappa_high=kappa_ci[1],
        confusion=conf,
        compression=compression_table(symmetrise(conf), tie_share=tie_share, rates=rates),
        human_tie_share=tie_share,
        alpha=alpha,
        alpha_units=alpha_units,
        human_pair_agreement=pair_agreement,
        ceiling_n=ceiling_n,
        ceiling_agreement=float(np.trace(ceiling_conf) / ceiling_n) if ceiling_n else float("nan"),
        ceiling_kappa=cohen_kappa(ceiling_conf) if ceiling_n else float("nan"),
        ceiling_compression=(compression_table(symmetrise(ceiling_conf), tie_share=tie_share,
                                               rates=rates) if ceiling_n else None),
        both_orders=both_orders,
    )
