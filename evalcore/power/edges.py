"""What the loaded data can detect: the sign test on each adjacent pair of the leaderboard.

For each adjacent pair, the smallest edge the sign test detects (at α and power) with the
discordant samples the data has for that pair, the observed edge, and whether the pair is resolved
(Don-Yehiya et al., "Mediocrity is the key for LLM as a Judge Anchor Selection", ACL 2026, §4.3).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from evalcore.counts import VerdictCounts
from evalcore.errors import UsageError
from evalcore.power.differences import pair_differences
from evalcore.power.sign_test import (
    check_design,
    minimum_detectable_edge,
    sign_test_sample_size,
    total_samples,
)
from evalcore.ranking import Leaderboard, adjust_p_values, leaderboard
from evalcore.stats.against import AgainstVerdicts, shared_against
from evalcore.text import fmt_count


@dataclass(frozen=True)
class DetectableEdges:
    """For each adjacent pair of the leaderboard (its table order): the smallest edge the sign
    test detects with the data's discordant samples for that pair, and whether it is resolved.

    ``table`` columns: upper, lower (upper is ranked higher), rank_upper, rank_lower,
    rating_gap (Elo points), instructions (where both are defined), discordant (d ≠ 0),
    informativeness (discordant / instructions), upper_wins, lower_wins, observed_edge
    (upper_wins / discordant − 0.5), detectable_edge (the smallest edge the resolution test
    detects with ``power`` at these discordant samples; NaN if none can be detected), p_value (exact binomial sign test, always two-sided:
    the order of a pair is chosen by the data, so a one-sided test in the chosen direction would
    reject twice as often as α under equality), p_holm (p_value adjusted with Holm's method across
    the adjacent pairs tested), resolved (p_holm < α with the edge on the upper model's side, so
    the chance that any pair of equal models is called resolved is at most α family-wise),
    instructions_needed (Table 2's total for the observed edge at this pair's informativeness,
    for the resolution test; <NA> when the observed edge is not positive).

    Detectable edges and sizes are for the test that decides "resolved": two-sided, at Holm's
    first step, ``level`` = α / (number of pairs tested). A pair whose p-value is below that
    level is resolved whatever the other pairs show (Holm's adjusted p is at most the number of
    pairs times the raw p), so a pair at or beyond its detectable edge is resolved with the
    stated power. The one-sided formula of the paper's Table 2 (``two_sided=False``, α) gives
    smaller edges that this test does not reach.
    """

    table: pd.DataFrame
    anchor: str | None
    alpha: float
    power: float
    two_sided: bool
    method: str
    n_instructions: int
    informativeness: float  # used for the headline
    informativeness_source: str
    detectable_edge: float  # at n_instructions × informativeness discordant samples
    notes: tuple[str, ...]
    #: the two-sided level the detectable edges and sizes use: α / pairs tested (Holm's first step)
    level: float = math.nan
    pairs_tested: int = 0

    def __repr__(self) -> str:
        return (
            f"DetectableEdges({self.n_pairs} pairs, {self.n_resolved} resolved, "
            f"detectable_edge={self.detectable_edge:.3f})"
        )

    @property
    def n_pairs(self) -> int:
        return len(self.table)

    @property
    def n_resolved(self) -> int:
        return int(self.table["resolved"].sum())

    @property
    def resolution_test(self) -> str:
        """How "resolved" was decided, in words."""
        tested = int(self.table["p_value"].notna().sum())
        return (
            f"two-sided sign test, Holm-adjusted across the {tested} adjacent pair"
            f"{'' if tested == 1 else 's'}"
        )

    @property
    def level_text(self) -> str:
        """The level of the detectable edges in words."""
        if self.pairs_tested <= 1:
            return f"two-sided sign test at the {self.alpha:.0%} level"
        return (
            f"two-sided sign test at the {self.alpha:.0%} level divided by the {self.pairs_tested} pairs tested, "
            f"{self.level:.3g} (Holm's first step "
            f"over the {self.pairs_tested} adjacent pairs tested: below it a pair is resolved "
            "whatever the others show)"
        )

    @property
    def top_pair_resolved(self) -> bool | None:
        """Whether the data separate the two top models (None when there is no pair)."""
        return bool(self.table["resolved"].iloc[0]) if len(self.table) else None

    def as_dict(self) -> dict:
        return {
            "comparison": (
                f"verdict differences against the anchor {self.anchor}"
                if self.anchor
                else "head-to-head verdicts"
            ),
            "anchor": self.anchor,
            "alpha": self.alpha,
            "power": self.power,
            "two_sided": self.two_sided,
            "detection_level": self.level,
            "detection_test": self.level_text,
            "pairs_tested": self.pairs_tested,
            "method": self.method,
            "n_instructions": self.n_instructions,
            "informativeness": self.informativeness,
            "informativeness_source": self.informativeness_source,
            "detectable_edge": self.detectable_edge,
            "n_pairs": self.n_pairs,
            "n_resolved": self.n_resolved,
            "top_pair_resolved": self.top_pair_resolved,
            "resolution_test": self.resolution_test,
            "resolution_two_sided": True,
            "resolution_correction": "holm",
            "pairs": self.table.to_dict(orient="records"),
            "notes": list(self.notes),
        }


def _sign_p_value(wins: np.ndarray, discordant: np.ndarray) -> np.ndarray:
    """Two-sided exact sign test p-value (twice the smaller tail, at most 1); NaN without data."""
    from scipy import stats  # on first use: SciPy's statistics take a second to import

    wins = np.asarray(wins, dtype=np.int64)
    m = np.asarray(discordant, dtype=np.int64)
    upper = stats.binom.sf(wins - 1, m, 0.5)
    p = np.minimum(1.0, 2.0 * np.minimum(upper, stats.binom.cdf(wins, m, 0.5)))
    return np.where(m > 0, p, np.nan)


def detectable_edges(
    counts: VerdictCounts,
    board: Leaderboard | None = None,
    *,
    anchor: str | None = None,
    informativeness: float | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    method: str = "normal",
    against: AgainstVerdicts | None = None,
) -> DetectableEdges:
    """What the loaded data can detect: the sign test on each adjacent pair of the leaderboard.

    Adjacent pairs come from ``board.table`` (an :class:`evalcore.ranking.Leaderboard`; fitted
    without bootstrap when not given), within one piece of the comparison graph. For each pair,
    the verdict differences d_i (:func:`verdict_differences`: against ``anchor``, or head-to-head
    when ``anchor`` is None) give the discordant samples (d ≠ 0) and who won them; the detectable
    edge is :func:`minimum_detectable_edge` at that many discordant samples. The headline
    ``detectable_edge`` uses N × I discordant samples with N the loaded instructions and I
    ``informativeness`` (e.g. :func:`evalcore.anchors.anchor_informativeness` for the anchor, or
    typed in); without it, the mean informativeness of the adjacent pairs.

    Parameters
    ----------
    counts : VerdictCounts
        The sparse counts of one judge.
    board : Leaderboard, optional
        The leaderboard whose adjacent rows are tested.
    anchor : str, optional
        Compare through this anchor; head-to-head when None.
    informativeness : float, optional
        I in (0, 1] for the headline.
    alpha, power : float
        Family-wise significance level and target power. Whether a pair is resolved is decided
        by a two-sided sign test, Holm-adjusted across the pairs; the detectable edges and the
        instructions needed are for that test at Holm's first step (two-sided, α / pairs tested).
    method : {"normal", "exact"}
        As in :func:`evalcore.power.sign_test_sample_size`.
    against : AgainstVerdicts, optional
        :func:`~evalcore.stats.against.verdicts_against` of ``counts`` when the caller already
        built it (shared with :func:`evalcore.anchors.anchor_sweep`); built here otherwise.

    Returns
    -------
    DetectableEdges

    References
    ----------
    Don-Yehiya et al., "Mediocrity is the key for LLM as a Judge Anchor Selection", ACL 2026,
    §4.3 and Table 2.
    Holm, S., "A simple sequentially rejective multiple test procedure", Scandinavian Journal of
    Statistics 6(2), 1979.
    """
    check_design(alpha, power, method)
    if board is None:
        board = leaderboard(counts, rounds=0, interval="bootstrap")  # ratings only: no interval
    if informativeness is not None and not 0.0 < informativeness <= 1.0:
        raise UsageError(f"informativeness must be above 0 and at most 1 (got {informativeness}).")
    table = board.table
    if anchor is not None and anchor not in counts.models:
        raise UsageError(f"anchor {anchor!r} is not one of the models in this selection.")
    x = counts.index(anchor) if anchor is not None else None
    against = shared_against(counts, against)
    cache: dict = {}
    rows, notes = [], []
    skipped = 0
    # the table's columns as arrays: a row of a frame per pair took seconds on 10,000 models
    names, pieces = table["model"].astype(str).to_numpy(), table["piece"].to_numpy()
    ranks, ratings = table["rank"].to_numpy(), table["rating"].to_numpy(dtype=np.float64)
    for k in range(len(table) - 1):
        if pieces[k] != pieces[k + 1]:
            skipped += 1
            continue
        upper, lower = str(names[k]), str(names[k + 1])
        d = pair_differences(against, counts.index(upper), counts.index(lower), x, pooled=cache)
        wins, losses = int((d > 0).sum()), int((d < 0).sum())
        disc = wins + losses
        rows.append(
            {
                "upper": upper,
                "lower": lower,
                "rank_upper": int(ranks[k]),
                "rank_lower": int(ranks[k + 1]),
                "rating_gap": float(ratings[k] - ratings[k + 1]),
                "instructions": int(d.size),
                "discordant": disc,
                "informativeness": disc / d.size if d.size else math.nan,
                "upper_wins": wins,
                "lower_wins": losses,
                "observed_edge": wins / disc - 0.5 if disc else math.nan,
            }
        )
    frame = pd.DataFrame(
        rows,
        columns=[
            "upper",
            "lower",
            "rank_upper",
            "rank_lower",
            "rating_gap",
            "instructions",
            "discordant",
            "informativeness",
            "upper_wins",
            "lower_wins",
            "observed_edge",
        ],
    )
    # "Resolved" is a claim about every adjacent pair at once, and the direction of each pair is
    # the data's choice: a two-sided test, with Holm's step-down adjustment so the family-wise
    # error over the adjacent pairs stays at α (Holm 1979).
    frame["p_value"] = _sign_p_value(frame["upper_wins"], frame["discordant"])
    frame["p_holm"] = adjust_p_values(frame["p_value"].to_numpy(dtype=float), correction="holm")
    frame["resolved"] = ((frame["p_holm"] < alpha) & (frame["observed_edge"] > 0)).fillna(False).astype(bool)
    # The edges and sizes of the test actually used: two-sided, at Holm's first step. Later steps
    # test at larger levels, but only after every smaller p-value was rejected, which no single
    # pair's data can promise; the first step's level is the one a pair reaches on its own.
    tested = int(frame["p_value"].notna().sum())
    level = alpha / max(tested, 1)

    def detectable(discordant: int) -> float:
        return minimum_detectable_edge(discordant, alpha=level, power=power, two_sided=True, method=method)

    frame.insert(
        frame.columns.get_loc("observed_edge") + 1,
        "detectable_edge",
        [detectable(int(d)) for d in frame["discordant"]],
    )
    needed: list[float] = []
    for e, info in zip(frame["observed_edge"], frame["informativeness"], strict=True):
        if np.isfinite(e) and 0 < e <= 0.5 and info > 0:
            size = sign_test_sample_size(e, alpha=level, power=power, two_sided=True, method=method)
            needed.append(total_samples(size, info))
        else:
            needed.append(math.nan)
    frame["instructions_needed"] = pd.array(
        [None if isinstance(x, float) and math.isnan(x) else int(x) for x in needed], dtype="Int64"
    )

    if skipped:
        notes.append(
            f"{fmt_count(skipped, 'pair')} of adjacent rows of the leaderboard "
            f"{'sits' if skipped == 1 else 'sit'} in different pieces of the comparison graph (never "
            f"compared, even indirectly) and {'is' if skipped == 1 else 'are'} left out."
        )
    never = frame.loc[frame["instructions"] == 0]
    if len(never):
        how = "against the anchor " + anchor if anchor else "head-to-head"
        notes.append(
            f"{fmt_count(len(never), 'adjacent pair')} {'was' if len(never) == 1 else 'were'} never "
            f"judged {how} on a common "
            "instruction: nothing can be detected for them"
            + ("" if anchor else "; pick an anchor they both met")
            + "."
        )
    if informativeness is not None:
        info, source = float(informativeness), "given"
    else:
        info = float(frame["informativeness"].mean()) if frame["informativeness"].notna().any() else math.nan
        source = "mean over the adjacent pairs"
    n = counts.n_instructions
    headline = detectable(int(math.floor(n * info))) if np.isfinite(info) and info > 0 else math.nan
    return DetectableEdges(
        table=frame,
        anchor=anchor,
        alpha=alpha,
        power=power,
        two_sided=True,
        method=method,
        n_instructions=n,
        informativeness=info,
        informativeness_source=source,
        detectable_edge=headline,
        notes=tuple(notes),
        level=level,
        pairs_tested=tested,
    )
