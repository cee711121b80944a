"""Style control: Bradley–Terry ratings net of the answers' length, Markdown, slot and family.

The model of LMArena's style control (Li, Angelopoulos & Chiang, 2024): a logistic regression of
slot A's score (win 1, tie ½ — as the leaderboard counts ties) on the models (+1 slot A, −1
slot B) and covariates of the two answers' difference,

    P(A beats B) = σ(θ_A − θ_B + Σ_k β_k·x_k).

- ``length``, ``markdown`` (three features: headers, bold spans, list items) and any ``feat_``
  pair: x = (a − b)/(a + b) of the per-answer counts (0 when both are 0), divided by its
  standard deviation over the calls, as LMArena does. It is not centred: centring would add a
  hidden slot-A intercept whenever the slots are unbalanced (LMArena's battles have random slots,
  where the two agree); the slot intercept is the ``position`` control's job.
- ``position``: x = 1 on every call, the judge's first-slot advantage. It is identified only if
  the models' strengths cannot absorb it: refused when some model always sits in one slot so that
  the design confounds the two (an anchor-only table with the reference always in slot B).
- ``family``: x = [family(A) = family(judge)] − [family(B) = family(judge)] (+1, −1, 0); families
  are recognised from names (:func:`evalcore.features.family_of`). With one judge it is a fixed
  per-model offset, indistinguishable from strength, and is refused; pooling judges of different
  families (``judge=None``) identifies it.

θ are the controlled strengths (Elo scale: ×400/ln 10, mean 1000); β_k the covariate effects.
Intervals are the instruction-clustered sandwich (Huber 1967; White 1980; Liang & Zeger 1986):
the calls on one instruction share their answers. A covariate the design cannot separate from
the strengths (conditional information under 10⁻⁸ of its own) is refused in words.

Why this module is longer than 500 lines: it is one model. The covariates built here are the
design matrix that the fit, the sandwich and the identification refusals all read, and the result
types hold what that fit gives; the words are in :mod:`evalcore.ranking.style_words`, the SQL in
:mod:`evalcore.store.style`.

References
----------
Li, T., Angelopoulos, A. N. & Chiang, W.-L. (2024). Does style matter? Disentangling style and
substance in Chatbot Arena. LMSYS blog, 29 August 2024.
Chiang, W.-L. et al. (2024). Chatbot Arena: an open platform for evaluating LLMs by human
preference. ICML.
Bradley, R. A. & Terry, M. E. (1952). Rank analysis of incomplete block designs. Biometrika 39.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

from evalcore.errors import DesignError, UsageError
from evalcore.features import MARKDOWN_ELEMENTS, StyleRows, family_of, normalised_difference
from evalcore.ranking.bradley_terry import (
    ELO_SCALE,
    _sigmoid,
    comparison_graph,
    fit_bradley_terry,
    fit_bradley_terry_covariates,
    ranks_descending,
    to_elo,
)
from evalcore.ranking.intervals import row_sandwich_covariance
from evalcore.ranking.style_words import WORDS, meaning, unidentified
from evalcore.stats.intervals import Z95, Estimate
from evalcore.stats.kendall import kendall_tau
from evalcore.stats.threads import single_blas_thread
from evalcore.text import fmt_count

if TYPE_CHECKING:  # pandas only where the table is made: `rank --json` never loads it
    import pandas as pd

Control = Literal["length", "markdown", "position", "family"]
#: The built-in controls; a ``feat_<name>_a/_b`` pair adds ``<name>``.
CONTROLS: tuple[str, ...] = ("length", "markdown", "position", "family")
METHOD = "instruction-clustered sandwich (±1.96 standard errors)"
#: Below this share of its own information left once the strengths are fitted, a covariate is
#: refused as not identified (exact confounding leaves rounding error, about 1e-15).
IDENTIFIED_SHARE = 1e-8
#: A covariate effect beyond this many logits (a 1-in-20,000 win chance) is taken as infinite.
SEPARATED = 10.0


def features_of(control: str) -> tuple[str, ...]:
    """The per-answer features a control needs from the store (none for position and family)."""
    if control == "markdown":
        return MARKDOWN_ELEMENTS
    if control in ("position", "family"):
        return ()
    return (control,)


@dataclass(frozen=True, repr=False)
class Coefficient:
    """One covariate's effect: ``estimate`` in logit units per unit of x (per standard deviation
    of the normalised difference for counts), ``scale`` that standard deviation (1 for position
    and family), ``meaning`` in plain words."""

    name: str
    control: str
    estimate: Estimate
    scale: float
    meaning: str

    @property
    def elo(self) -> Estimate:
        """The effect in Elo points (×400/ln 10)."""
        return self.estimate.scaled(ELO_SCALE)

    def as_dict(self) -> dict:
        return {
            "name": self.name,
            "control": self.control,
            "logit": self.estimate.as_dict(),
            "elo": self.elo.as_dict(),
            "scale": self.scale,
            "meaning": self.meaning,
        }

    def __repr__(self) -> str:
        return f"Coefficient({self.name}: {self.elo!r} Elo)"


@dataclass(frozen=True, repr=False)
class StyleControl:
    """Controlled ratings and covariate effects (see the module docstring).

    ``table`` columns (controlled rank order): rank, model, rating, ci_low, ci_high, rank_plain,
    rating_plain, rank_change (rank_plain − rank: > 0 the model moves up once style is
    controlled), calls.
    """

    judge: str | None
    controls: tuple[str, ...]
    models: tuple[str, ...]
    table: pd.DataFrame
    coefficients: tuple[Coefficient, ...]
    covariance: np.ndarray  # natural-scale (θ, β), θ centred
    calls: int
    n_instructions: int
    dropped: int
    kendall_tau: float
    converged: bool
    prior_games: float
    notes: tuple[str, ...]

    def rating(self, model: str) -> Estimate:
        row = self.table.loc[self.table["model"] == model]
        if row.empty:
            raise UsageError(f"model {model!r} is not in this selection.")
        r = row.iloc[0]
        return Estimate(float(r["rating"]), float(r["ci_low"]), float(r["ci_high"]), method=METHOD)

    @property
    def ratings(self) -> dict[str, Estimate]:
        """Each model's controlled rating (Elo points) with its 95% interval, in rank order."""
        return {
            str(r.model): Estimate(float(r.rating), float(r.ci_low), float(r.ci_high), method=METHOD)
            for r in self.table.itertuples()
        }

    def coefficient(self, name: str) -> Coefficient:
        for c in self.coefficients:
            if c.name == name:
                return c
        raise UsageError(f"no coefficient {name!r}; there are {[c.name for c in self.coefficients]}.")

    @property
    def top_changed(self) -> bool:
        """Whether the first place differs once style is controlled."""
        t = self.table
        return set(t.loc[t["rank"] == 1, "model"]) != set(t.loc[t["rank_plain"] == 1, "model"])

    def as_dict(self) -> dict:
        records = []
        for row in self.table.to_dict(orient="records"):
            records.append(
                {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in row.items()}
            )
        return {
            "judge": self.judge,
            "controls": list(self.controls),
            "interval": METHOD,
            "calls": self.calls,
            "instructions": self.n_instructions,
            "calls_left_out": self.dropped,
            "kendall_tau_with_uncontrolled": self.kendall_tau,
            "top_changed": self.top_changed,
            "converged": self.converged,
            "notes": list(self.notes),
            "coefficients": [c.as_dict() for c in self.coefficients],
            "models": records,
        }

    def __repr__(self) -> str:
        return (
            f"StyleControl({len(self.models)} models, controls={list(self.controls)}, "
            f"tau={self.kendall_tau:.3f})"
        )


def check_controls(controls: Sequence[str] | str, available: Sequence[str] = ()) -> tuple[str, ...]:
    """Validate control names (a list or ``"length,markdown"``) against the built-ins and the
    table's ``feat_`` names; a clear :class:`UsageError` listing the choices otherwise."""
    names = [c.strip().lower() for c in (controls.split(",") if isinstance(controls, str) else controls)]
    names = [c for c in names if c]
    choices = list(CONTROLS) + [f for f in available if f not in CONTROLS and f not in MARKDOWN_ELEMENTS]
    bad = [c for c in names if c not in choices]
    if bad:
        raise UsageError(
            f"unknown {'control' if len(bad) == 1 else 'controls'} {', '.join(bad)}; choose from {', '.join(choices)}."
        )
    if not names:
        raise UsageError(f"name at least one control; choose from {', '.join(choices)}.")
    return tuple(dict.fromkeys(names))


def style_control(
    rows: StyleRows,
    *,
    controls: Sequence[str],
    judge: str | None = None,
    families: Mapping[str, str] | None = None,
) -> StyleControl:
    """Bradley–Terry ratings controlled for style, with the rank change against the plain fit.

    Parameters
    ----------
    rows : StyleRows
        From :meth:`evalcore.store.store.VerdictStore.style_rows` with the features of every control
        (:func:`features_of`).
    controls : sequence of str
        Any of ``"length"``, ``"markdown"``, ``"position"``, ``"family"`` and ``feat_`` names.
    judge : str, optional
        The judge, for the words; ``rows`` may pool several (needed for ``family``).
    families : mapping, optional
        Model or judge name → family, overriding the name prefixes.

    Returns
    -------
    StyleControl

    Raises
    ------
    DesignError
        A control the design cannot separate from the models' strengths.

    References
    ----------
    Li, T., Angelopoulos, A. N. & Chiang, W.-L. (2024). Does style matter? Disentangling style
    and substance in Chatbot Arena. LMSYS blog.

    Examples
    --------
    >>> import numpy as np
    >>> from evalcore.features import StyleRows
    >>> rows = StyleRows(models=("x", "y"), judges=("j",), n_instructions=2,
    ...     inst=np.array([0, 0, 1, 1]), a=np.array([0, 0, 1, 1]), b=np.array([1, 1, 0, 0]),
    ...     judge=np.zeros(4, int), y=np.array([1.0, 0.0, 1.0, 0.0]), n=np.array([2, 1, 2, 1.0]),
    ...     feature_a={}, feature_b={}, sources={})
    >>> sc = style_control(rows, controls=["position"])
    >>> round(sc.coefficient("position").estimate.value, 3)  # slot A won 2 of 3 each way: log 2
    0.693
    """
    controls = check_controls(controls, tuple(rows.feature_a))
    m = len(rows.models)
    if m < 2 or rows.a.size == 0:
        raise UsageError(
            "Style control needs calls between at least two models with the features asked for; "
            f"this selection has {fmt_count(m, 'model')}."
        )
    notes: list[str] = []
    if rows.dropped:
        notes.append(
            f"{fmt_count(rows.dropped, 'call')} {'lacks' if rows.dropped == 1 else 'lack'} a feature the "
            f"controls need and {'is' if rows.dropped == 1 else 'are'} left out of both "
            "the controlled and the uncontrolled ratings compared here."
        )
    columns, names, owners, scales = [], [], [], []
    for control in controls:
        for name, x, scale in _covariates(control, rows, judge, families, notes):
            columns.append(x)
            names.append(name)
            owners.append(control)
            scales.append(scale)
    # column-major: each covariate's column is contiguous for the per-model bincounts
    x = np.asfortranarray(np.column_stack(columns)) if columns else np.zeros((rows.a.size, 0))
    with single_blas_thread():
        _check_identified(rows, x, names, owners)
    if "position" in controls:
        in_a = np.bincount(rows.a, minlength=m) > 0
        in_b = np.bincount(rows.b, minlength=m) > 0
        one_slot = np.flatnonzero(in_a != in_b).tolist()
        if one_slot:
            notes.append(
                "Some models were only ever judged in one slot ("
                + ", ".join(rows.models[k] for k in one_slot[:5])
                + (" and others" if len(one_slot) > 5 else "")
                + "): the first-slot advantage rests on the other models' calls."
            )

    wins = (
        np.bincount(rows.a * m + rows.b, rows.n * rows.y, minlength=m * m)
        + np.bincount(rows.b * m + rows.a, rows.n * (1.0 - rows.y), minlength=m * m)
    ).reshape(m, m)
    graph = comparison_graph(wins, rows.models)
    prior = 0.0 if graph.mle_exists else 1.0
    notes += graph.notes(rows.models)
    with single_blas_thread():  # many small solves: one thread beats a contended pool
        theta_plain, _ = fit_bradley_terry(wins, prior_games=prior)
        theta, beta, info, ok = fit_bradley_terry_covariates(
            rows.a, rows.b, rows.y, rows.n, x, m, prior_games=prior, theta0=theta_plain
        )
    if not ok:
        notes.append("The controlled fit stopped before converging; read it with care.")
    if beta.size and np.abs(beta).max() > SEPARATED:
        notes.append(
            "Some covariate separates wins from losses perfectly in part of the data: its effect "
            "is not finite, and the number shown is only where the fit stopped."
        )
    eta = theta[rows.a] - theta[rows.b] + x @ beta
    resid = rows.n * (_sigmoid(eta) - rows.y)
    with single_blas_thread():
        cov = row_sandwich_covariance(rows.a, rows.b, x, resid, rows.inst, info, m, prior_games=prior)
    se = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    if rows.n_instructions < 30:
        notes.append(
            f"Only {fmt_count(rows.n_instructions, 'instruction')}: clustered intervals are too narrow below "
            "about 30; read them as rough."
        )
    coefs = []
    for k, name in enumerate(names):
        est = Estimate(float(beta[k]), beta[k] - Z95 * se[m + k], beta[k] + Z95 * se[m + k], method=METHOD)
        coefs.append(Coefficient(name, owners[k], est, scales[k], meaning(name, owners[k], est, scales[k])))
    table = _table(rows, theta, theta_plain, se[:m], wins)
    return StyleControl(
        judge=judge,
        controls=controls,
        models=rows.models,
        table=table,
        coefficients=tuple(coefs),
        covariance=cov,
        calls=rows.calls,
        n_instructions=rows.n_instructions,
        dropped=rows.dropped,
        kendall_tau=float(kendall_tau(theta, theta_plain)),
        converged=ok,
        prior_games=prior,
        notes=tuple(notes),
    )


def _covariates(control, rows: StyleRows, judge, families, notes):
    """(name, column, scale) of each covariate of ``control``."""
    if control == "position":
        yield "position", np.ones(rows.a.size), 1.0
        return
    if control == "family":
        yield "family", _family_column(rows, judge, families), 1.0
        return
    for name in features_of(control):
        if (
            control == "markdown"
            and name not in rows.feature_a
            and any(f in rows.feature_a for f in MARKDOWN_ELEMENTS)
        ):
            notes.append(f"The table has no count of {WORDS[name]}: Markdown control leaves them out.")
            continue
        if name not in rows.feature_a:
            raise UsageError(
                f"the rows carry no {name!r} feature; fetch them with features={features_of(control)}."
            )
        z = normalised_difference(rows.feature_a[name], rows.feature_b[name])
        mean = np.average(z, weights=rows.n)
        sd = float(np.sqrt(np.average((z - mean) ** 2, weights=rows.n)))
        if not sd > 0:
            if control == "markdown":
                notes.append(f"No two answers differ in {WORDS[name]}: nothing to control for there.")
                continue
            raise DesignError(
                f"Every call compares answers with equal {name}: there is no {name} difference to control for."
            )
        yield name, z / sd, sd


def _family_column(rows: StyleRows, judge, families) -> np.ndarray:
    judge_family = np.array([family_of(j, families) or "" for j in rows.judges], dtype=object)
    if not any(judge_family):
        raise UsageError(
            "The judge's family is not recognised from its name ("
            + ", ".join(rows.judges)
            + "): same-family control needs it. Families are recognised from name prefixes "
            "(gpt-, claude, gemini, llama, …); give a model,family list for other names."
        )
    model_family = np.array([family_of(x, families) or "" for x in rows.models], dtype=object)
    own_a = (model_family[rows.a] == judge_family[rows.judge]) & (judge_family[rows.judge] != "")
    own_b = (model_family[rows.b] == judge_family[rows.judge]) & (judge_family[rows.judge] != "")
    x = own_a.astype(float) - own_b.astype(float)
    if not x.any():
        raise DesignError(
            "No call puts a model of the judge's own family against another family: there is no "
            "same-family effect to control for."
        )
    return x


def _check_identified(rows: StyleRows, x: np.ndarray, names: list[str], owners: list[str]) -> None:
    """Refuse a covariate the strengths can absorb: its information left once θ and the other
    covariates are fitted (1 / [H⁻¹]_kk, at p = ½) is a negligible share of its own."""
    if x.shape[1] == 0:
        return
    from evalcore.ranking.bradley_terry import information

    m, f = len(rows.models), x.shape[1]
    h = information(rows.a, rows.b, x, rows.n * 0.25, m)
    # Schur complement: the covariates' information once θ is fitted (the rank-one term fixes
    # θ's free location and is orthogonal to every covariate's cross block) …
    h_tt = h[:m, :m] + 1.0
    schur = h[m:, m:] - h[m:, :m] @ np.linalg.pinv(h_tt, hermitian=True) @ h[:m, m:]
    # … and each covariate's once θ and the other covariates are fitted.
    inv = np.linalg.pinv(schur, hermitian=True)
    for k in range(f):
        own = h[m + k, m + k]
        left = 1.0 / inv[k, k] if inv[k, k] > 0 else 0.0
        if own > 0 and left / own >= IDENTIFIED_SHARE and schur[k, k] / own >= IDENTIFIED_SHARE:
            continue
        raise DesignError(unidentified(rows, names[k], owners[k]))


def _table(rows: StyleRows, theta, theta_plain, se, wins) -> pd.DataFrame:
    import pandas as pd

    rating = to_elo(theta)
    rank = ranks_descending(theta)
    rank_plain = ranks_descending(theta_plain)
    half = Z95 * ELO_SCALE * se
    return (
        pd.DataFrame(
            {
                "rank": rank,
                "model": list(rows.models),
                "rating": rating,
                "ci_low": rating - half,
                "ci_high": rating + half,
                "rank_plain": rank_plain,
                "rating_plain": to_elo(theta_plain),
                "rank_change": rank_plain - rank,
                "calls": (wins + wins.T).sum(axis=1),
            }
        )
        .sort_values(["rank", "model"], kind="stable")
        .reset_index(drop=True)
    )


#: What a control needs from the table, in words (for errors and the page).
NEEDS = {
    "length": "length_a and length_b (or the answers' text, response_a and response_b)",
    "markdown": "the answers' text (response_a, response_b) or the columns feat_headers_a/_b, "
    "feat_bold_a/_b and feat_lists_a/_b",
}


def available_controls(sources: Mapping[str, str]) -> tuple[str, ...]:
    """The controls a table can supply, given :meth:`~evalcore.store.store.VerdictStore.feature_sources`:
    position and family always (the fit refuses them when the design does not identify them),
    length and markdown when their features are there, and every other ``feat_`` name.

    Examples
    --------
    >>> available_controls({"length": "length_a, length_b", "tone": "feat_tone_a, feat_tone_b"})
    ('length', 'position', 'family', 'tone')
    """
    out = [c for c in CONTROLS if all(f in sources for f in features_of(c))]
    if "markdown" in out and not any(f in sources for f in MARKDOWN_ELEMENTS):
        out.remove("markdown")
    out += [f for f in sources if f not in CONTROLS and f not in MARKDOWN_ELEMENTS]
    return tuple(out)


def controlled_leaderboard(
    store,
    *,
    judge: str | None,
    category: str | None = None,
    controls: Sequence[str] | str,
    families: Mapping[str, str] | None = None,
) -> StyleControl:
    """:func:`style_control` on a store's calls: validates the controls against what the table
    can supply (a :class:`UsageError` naming the columns that would add a missing one), fetches
    the rows with :meth:`~evalcore.store.store.VerdictStore.style_rows` and fits.

    Examples
    --------
    >>> from evalcore.simulate.tables import simulate_arena, arena_verdict_frame
    >>> from evalcore.store.store import VerdictStore
    >>> store = VerdictStore()
    >>> store.load(arena_verdict_frame(simulate_arena(n_battles=5000, n_models=6, seed=1,
    ...                                               style_effects={"length": 1.0})))
    >>> sc = controlled_leaderboard(store, judge="arena", controls="length,position")
    >>> [c.name for c in sc.coefficients], bool(sc.coefficient("length").estimate.low > 0)
    (['length', 'position'], True)
    """
    sources = store.feature_sources()
    chosen = check_controls(controls, tuple(sources))
    for control in chosen:
        lacking = [f for f in features_of(control) if f not in sources]
        if lacking and (control != "markdown" or len(lacking) == len(MARKDOWN_ELEMENTS)):
            raise UsageError(
                f"This table cannot supply the {control} control: it needs {NEEDS.get(control, control)}."
            )
    features = tuple(dict.fromkeys(f for c in chosen for f in features_of(c) if f in sources))
    rows = store.style_rows(judge=judge, category=category, features=features)
    return style_control(rows, controls=chosen, judge=judge, families=families)
