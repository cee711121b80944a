"""What the Leaderboard page shows, in plain text: the table, the interval choice and the captions of
a :class:`~evalcore.ranking.Leaderboard` and a :class:`~evalcore.ranking.Separation`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
import pandas as pd

from evalcore import quantities as q
from evalcore.calibration.selection import calibration_pair, top_pair  # noqa: F401 (read from here)
from evalcore.errors import UsageError
from evalcore.present.display import Column, catalogue_table
from evalcore.ranking.design import (  # noqa: F401 - the limits are read from here by the page and its tests
    BOOTSTRAP_LIMIT,
    BOOTSTRAP_MODEL_LIMIT,
    COVERAGE_AT_THRESHOLD,
    MIN_INSTRUCTIONS_FOR_NOMINAL,
    IntervalMethod,
    choose_interval,
)
from evalcore.ranking.leaderboard import Leaderboard
from evalcore.ranking.separation import Separation
from evalcore.text import MISSING, fmt_int, fmt_pct, fmt_rating

# BOOTSTRAP_LIMIT and BOOTSTRAP_MODEL_LIMIT (imported above) live with the one interval rule,
# evalcore.ranking.design.choose_interval, which `rank` and the library apply too.
#: The Leaderboard and Power pages' words where a selection has fewer than two models.
TOO_FEW_MODELS = (
    "This selection has verdicts for fewer than two models: nothing to rank or compare. Choose "
    "another judge or category."
)
#: The most models a model × model heatmap draws legibly (and a browser renders quickly).
HEATMAP_MODEL_LIMIT = 150


def map_too_large(n_models: int, what: str, instead: str) -> str | None:
    """What the pages and the report say in place of a model × model map (``what``) of more than
    :data:`HEATMAP_MODEL_LIMIT` models, with what to do ``instead``; None when the map is drawn.
    10,000 models would be a map of a hundred million cells (in the report, 1.2 GB of HTML each)."""
    if n_models <= HEATMAP_MODEL_LIMIT:
        return None
    return f"{what} of {n_models:,} models is too large to draw; {instead}"


#: The page's words for the two interval methods, in the order of the picker.
INTERVAL_CHOICES = {
    "bootstrap": "Bootstrap over instructions",
    "sandwich": "Sandwich (clustered, fast)",
}

_BOUND_WORDS = {
    "at least": "at least (never lost)",
    "at most": "at most (never won)",
}


def default_interval(n_instructions: int, n_models: int = 0) -> IntervalMethod:
    """``"sandwich"`` above :data:`BOOTSTRAP_LIMIT` instructions or
    :data:`BOOTSTRAP_MODEL_LIMIT` models, else ``"bootstrap"``.

    Examples
    --------
    >>> default_interval(1_000), default_interval(1_800_000), default_interval(300, 2_000)
    ('bootstrap', 'sandwich', 'sandwich')
    """
    return choose_interval(n_instructions, n_models).method


def interval_from_label(label: str) -> str:
    """The method name (``"bootstrap"``/``"sandwich"``) of a picker label."""
    for method, text in INTERVAL_CHOICES.items():
        if label == text:
            return method
    raise UsageError(f"interval label must be one of {list(INTERVAL_CHOICES.values())}, not {label!r}.")


def interval_clause(board: Leaderboard) -> str:
    """How the board's 95% intervals were made, as a clause: the findings' definitions say it as
    the Leaderboard's caption does (a sandwich board's intervals are not bootstrap percentiles)."""
    units = (
        f"{fmt_int(board.n_instructions)} instructions"
        if board.cluster == "instruction"
        else f"{fmt_int(board.n_units)} {board.cluster}s"
    )
    if board.interval_method == "sandwich":
        return f"1.96 standard errors either side, from the sandwich clustered over the {units}"
    return f"2.5–97.5 percentiles of {fmt_int(board.rounds)} bootstrap rounds over the {units}"


def rank_range_clause(board: Leaderboard) -> str:
    """Where the board's rank ranges come from, as a clause ending a sentence."""
    if board.interval_method == "sandwich":
        return f"across {fmt_int(board.rounds)} normal draws of the ratings from the sandwich"
    return f"across {fmt_int(board.rounds)} bootstrap rounds over instructions"


def method_caption(board: Leaderboard) -> str:
    """One paragraph saying what the ratings and intervals are (no user text)."""
    if board.interval_method == "sandwich":
        how = (
            f"Intervals: {interval_clause(board)} (a robust variance that treats all verdicts on "
            "one instruction as one unit; Huber 1967, White 1980); rank ranges "
            f"{rank_range_clause(board)}, seed {board.seed}."
        )
    else:
        how = f"Intervals: {interval_clause(board)} (the benchmark's unit), seed {board.seed}."
    if board.cluster != "instruction":
        how += (
            f" Resampled by {board.cluster} instead: the bootstrap redraws whole {board.cluster}s and "
            f"the sandwich sums scores per {board.cluster} ({fmt_int(board.n_units)} units), so calls "
            f"in one {board.cluster} count as one unit (Field & Welsh 2007; Cameron & Miller 2015)."
        )
    if board.weighting:
        how += (
            " Weighted: every pair of models that met counts as much as any other (each call "
            "weighs the mean battles per pair divided by its pair's battles)."
        )
    measured = COVERAGE_AT_THRESHOLD[board.interval_method]
    return (
        "Bradley–Terry maximum likelihood on win/tie/loss counts (a tie is half a win each), Elo "
        "scale: a 400-Elo-point gap means a 10:1 win probability. " + how + " Rank range: the 95% "
        "range of the model's rank across rounds. 95% is the nominal level: in simulation these "
        f"intervals covered the truth {fmt_pct(measured, 1)} of the time at "
        f"{MIN_INSTRUCTIONS_FOR_NOMINAL} instructions, less below."
    )


#: What the interval cell adds for a model judged on few instructions.
FEW_WORDS = "rough: few instructions"


def interval_text(low: float, high: float, bound: str, few: bool = False) -> str:
    """A rating's interval cell: ``"990 – 1,040"``, ``"at least 990"`` for a model that never lost,
    ``"at most …"`` for one that never won, ``—`` where there is none; ``few`` adds
    :data:`FEW_WORDS`."""
    if bound in _BOUND_WORDS:
        value = low if bound == "at least" else high
        text = f"{bound} {fmt_rating(value)}" if math.isfinite(value) else MISSING
    else:
        text = (
            f"{fmt_rating(low)} – {fmt_rating(high)}"
            if math.isfinite(low) and math.isfinite(high)
            else MISSING
        )
    return f"{text} ({FEW_WORDS})" if few and text != MISSING else text


def rank_range_text(low: float, high: float) -> str:
    """A rank range as the table shows it: ``3``, ``2–5``, or ``—`` where there is none (a
    single instruction gives no rank range).

    Examples
    --------
    >>> rank_range_text(2, 5), rank_range_text(3, 3), rank_range_text(float("nan"), float("nan"))
    ('2–5', '3', '—')
    """
    if not (math.isfinite(float(low)) and math.isfinite(float(high))):
        return MISSING
    return str(int(low)) if low == high else f"{int(low)}–{int(high)}"


def display_table(board: Leaderboard, separation: Separation | None = None) -> pd.DataFrame:
    """The leaderboard with human column names, whole-number ratings and no empty cell.

    Columns: Rank, Model, Rating, 95% interval (``"at least …"`` for a model that never lost,
    ``"at most …"`` for one that never won: their rating is one-sided), Rank range, Battles, Wins,
    Ties, Losses, Win rate, One-sided ("at least (never lost)" / "at most (never won)" / "—"),
    Instructions (how many instructions have a verdict involving the model; the interval of a
    model below the few-instructions threshold says "rough: few instructions"),
    Comparable (only when some model only ever sat in one slot while most did not: "no: only
    ever in slot B" marks a rating that carries the judge's slot preference), Tier (when
    ``separation`` is given: models in one tier cannot be told apart by the data) and Part (only when the comparison graph falls apart into several pieces that cannot be compared).
    """
    t = board.table
    counts = ("rank", "battles", "wins", "ties", "losses", "instructions")
    frame = t.astype(dict.fromkeys(counts, int)).assign(
        model=t["model"].astype(str),
        interval=[
            interval_text(float(lo), float(hi), str(b), bool(f))
            for lo, hi, b, f in zip(t["ci_low"], t["ci_high"], t["bound"], t["few_instructions"], strict=True)
        ],
        rank_range=[rank_range_text(lo, hi) for lo, hi in zip(t["rank_low"], t["rank_high"], strict=True)],
        win_rate=t["win_rate"].where(t["battles"] > 0),
        one_sided=[_BOUND_WORDS.get(str(b), MISSING) for b in t["bound"]],
        # "no: only ever in slot B" marks a rating that carries the judge's slot preference
        comparable=[f"no: only ever in slot {s}" if s else "yes" for s in t["only_slot"].astype(str)],
        piece=t["piece"].astype(int),
    )
    columns: list[Column] = [("rank", "Rank", None), ("model", "Model", None)]
    if not t["comparable"].all():
        columns.append(("comparable", "Comparable", None))
    columns += [
        "rating",
        ("interval", "95% interval", None),
        ("rank_range", "Rank range", None),
        *((c, c.capitalize(), None) for c in counts[1:5]),
        "win_rate",
        ("one_sided", "One-sided", None),
        ("instructions", "Instructions", None),
    ]
    if "weighting_shift" in t:
        columns.append("weighting_shift")
    if separation is not None:
        tier = dict(zip(separation.tiers["model"], separation.tiers["tier"], strict=True))
        frame["tier"] = [int(tier[m]) for m in t["model"]]
        columns.append(("tier", "Tier", None))
    if t["piece"].nunique() > 1:
        columns.append(("piece", "Part", None))
    return catalogue_table(frame, columns)


def index_column(names: Iterable[object], base: str = "row model") -> str:
    """A column name for the row labels that is none of ``names`` (user model names).

    Examples
    --------
    >>> index_column(["model", "row model"])
    'row model (row)'
    """
    taken = {str(n) for n in names}
    name = base
    while name in taken:
        name += " (row)"
    return name


def matrix_frame(matrix: pd.DataFrame) -> pd.DataFrame:
    """A model × model matrix as a CSV-ready frame: the row model in a first column whose name
    cannot collide with a model's (a model may be called ``model``)."""
    return matrix.reset_index(names=index_column(matrix.columns))


def pair_win_rates_frame(board: Leaderboard) -> pd.DataFrame:
    """The head-to-head win rates as one row per ordered pair that met (model, opponent, battles,
    win rate): the download of a board too large for a model × model matrix, whose CSV would
    hold a cell for every pair of models (10,000 models: a hundred million) where this holds the
    pairs that met."""
    from scipy import sparse

    battles = sparse.coo_matrix(board.battles)
    met = battles.data > 0
    rows, cols = battles.row[met], battles.col[met]
    rates = sparse.csr_matrix(board.win_rates)
    names = np.asarray(board.models, dtype=object)
    return pd.DataFrame(
        {
            "model": names[rows],
            "opponent": names[cols],
            "battles": battles.data[met],
            "win_rate": np.asarray(rates[rows, cols]).ravel(),
        }
    )


def separation_caption(sep: Separation) -> str:
    """What the tiers and the matrix mean, naming the multiplicity control (no user text)."""
    control = (
        f"Holm, family-wise {fmt_pct(sep.alpha)}"
        if sep.correction == "holm"
        else f"Benjamini–Hochberg, false-discovery rate {fmt_pct(sep.alpha)}"
    )
    n_pairs = len(sep.pairs)
    n_sep = int(sep.pairs["separated"].sum())
    n_tiers = int(sep.tiers["tier"].max()) if len(sep.tiers) else 0
    return (
        f'Each pair\'s rating difference is tested for "no difference" ({sep.method}); the '
        f"{fmt_int(n_pairs)} tests are adjusted together ({control}), so across the whole matrix "
        f"the chance of calling any tied pair different stays at {fmt_pct(sep.alpha)}. "
        f"{fmt_int(n_sep)} of {fmt_int(n_pairs)} pairs are separated. **Tier**: walking down the "
        f"table, a model opens a new tier when it is separated from the first model of the current "
        f"tier; models in one tier are ones the data cannot separate ({fmt_int(n_tiers)} "
        "tier" + ("" if n_tiers == 1 else "s") + " here)."
    )


def pairs_frame(sep: Separation) -> pd.DataFrame:
    """The pairwise tests with human column names (for the CSV download)."""
    p = sep.pairs
    return pd.DataFrame(
        {
            "Higher-rated model": p["model_1"],
            "Lower-rated model": p["model_2"],
            "Difference (Elo points)": np.round(p["difference"].to_numpy(dtype=float), 1),
            "95% low": np.round(p["low"].to_numpy(dtype=float), 1),
            "95% high": np.round(p["high"].to_numpy(dtype=float), 1),
            "p-value": p["p_value"],
            "Adjusted p-value": p["p_adjusted"],
            "Separated": np.where(p["separated"], "yes", "no"),
        }
    )


def category_tests_display(result) -> pd.DataFrame:
    """Each category tested against the others (a likelihood-ratio test), with its spread: the
    Leaderboard's categories table (:class:`evalcore.ranking.heterogeneity.Heterogeneity`)."""
    rows = pd.DataFrame([t.as_dict() for t in result.per_category]).assign(spread=list(result.spread))
    p = lambda v: f"{v:.3g}"  # noqa: E731
    return catalogue_table(
        rows,
        [
            ("category", "Category", None),
            ("verdicts", "Verdicts", "int"),
            ("statistic", "Likelihood-ratio statistic", "num1"),
            ("df", "Degrees of freedom", "int"),
            ("p_value", "Against the other categories, p", p),
            ("p_holm", "Holm-adjusted p", p),
            ("spread", "category_spread"),
        ],
    )


def reversals_display(result) -> pd.DataFrame:
    """The pairs whose order reverses within a category (Elo points, the better overall first)."""
    rows = pd.DataFrame([r.as_dict() for r in result.reversals])
    if rows.empty:
        return rows
    rows["interval"] = [
        f"{lo:+,.0f} to {hi:+,.0f}" for lo, hi in zip(rows["lower"], rows["upper"], strict=True)
    ]
    elo = lambda v: f"{v:+,.0f}"  # noqa: E731
    return catalogue_table(
        rows,
        [
            ("category", "Category", None),
            ("better_overall", "Ahead overall", None),
            ("worse_overall", "Behind overall", None),
            ("pooled_gap", "Gap overall (Elo)", elo),
            ("category_gap", "Gap in the category (Elo)", elo),
            ("interval", "95% interval", None),
            ("in_every_category", "Reversed in every category", "yes_no"),
        ],
    )


def windows_display(windows) -> pd.DataFrame:
    """Each model's rank, rating and 95% interval in each time window (one column per window)."""
    rows: dict[str, dict[str, str]] = {}
    for w in windows.windows:
        for r in w.ratings:
            rows.setdefault(r.model, {"Model": r.model})[f"{w.label} ({fmt_int(w.verdicts)} verdicts)"] = (
                f"#{r.rank}: {q.format('window_rating', r.rating)} ({r.low:,.0f}–{r.high:,.0f})"
            )
    return pd.DataFrame(list(rows.values()))


def pooled_display(res) -> pd.DataFrame:
    """The ranking that pools every judge (:func:`evalcore.judge.pooling.pool_store`) beside the
    rank with plain pooling; the interval column only when the bootstrap was run."""
    t = res.table.assign(
        interval=[
            f"{q.format('pooled_rating', lo)} to {q.format('pooled_rating', hi)}"
            for lo, hi in zip(res.table["ci_low"], res.table["ci_high"], strict=True)
        ]
    )
    resampled = bool(res.table["ci_low"].notna().any())
    return catalogue_table(
        t,
        [
            ("rank", "Rank", None),
            ("model", "Model", None),
            ("rating", "pooled_rating"),
            *([("interval", "95% interval", None)] if resampled else []),
            ("plain_rating", "Rating with plain pooling", "elo"),
            ("plain_rank", "Rank with plain pooling", None),
            ("rank_change", "Places gained by weighting", None),
        ],
    )


def judge_weights_display(res) -> pd.DataFrame:
    """Each judge's weight in the pooled ranking beside its certification against human labels
    (the weight's interval only when the bootstrap was run)."""
    rows = []
    for j in res.judges:
        cert = "no labels" if j.certified is None else ("certified" if j.certified else "not certified")
        row = {"Judge": j.judge, q.name("judge_weight"): q.format("judge_weight", j.weight)}
        if j.weight_low == j.weight_low:  # not NaN: the bootstrap was run
            row["95% interval"] = (
                f"{q.format('judge_weight', j.weight_low)} to {q.format('judge_weight', j.weight_high)}"
            )
        row.update(
            {
                q.name("judge_slot_lean"): q.format("judge_slot_lean", j.lean),
                q.name("judge_information_share"): q.format("judge_information_share", j.share),
                q.name("judge_tau_pooled"): q.format("judge_tau_pooled", j.tau),
                "Certification against human labels": cert,
                "In the pooled ranking": j.status + (f": {j.reason}" if j.reason else ""),
            }
        )
        rows.append(row)
    return pd.DataFrame(rows)


def fragility_display(result) -> pd.DataFrame:
    """Per pair, the fewest verdicts whose removal (or reversal) puts the one behind ahead
    (:func:`evalcore.ranking.fragility.ranking_fragility`); "none found" within the limit."""
    done = "flip" if result.kind == "flip" else "remove"
    t = result.table()
    t["n_drop"] = ["none found" if pd.isna(v) else fmt_int(v) for v in t["n_drop"]]
    return catalogue_table(
        t,
        [
            ("ahead", "Ahead", None),
            ("behind", "Behind", None),
            ("gap", "Gap (Elo points)", "num1"),
            ("n_drop", f"Verdicts to {done} that flip the order", None),
            ("share", "Share of all verdicts", lambda v: f"{100 * v:.3g}%"),
            ("gap_after", "Gap after (Elo points)", "num1"),
            ("lower_bound", "Proven lower bound", "int"),
            ("first_order_drop", "First-order estimate", "int"),
            ("proven_minimal", "Proven minimal", "yes_no"),
        ],
    )


def fragility_calls_display(lead) -> pd.DataFrame:
    """The verdicts behind a lead (any call with the same models and outcome would do as well)."""
    return catalogue_table(
        [c.as_dict() for c in lead.calls],
        [
            ("instruction", "Instruction", None),
            ("model_a", "Model in slot A", None),
            ("model_b", "Model in slot B", None),
            ("level", "Verdict level (slot A's view)", None),
            ("count", "Verdicts", "int"),
        ],
    )
