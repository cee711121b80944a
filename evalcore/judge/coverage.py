"""Coverage (calls that returned no verdict) and self-comparisons, counted in the store.

- **Coverage**: calls that returned no verdict over all calls, never imputed; per model (a call
  counts for both its models) and per bin of response length (length_a + length_b) of about
  equal count (equal lengths share a bin, so the bins, and so the counts, never depend on the
  order rows were read in).
  A judge that fails more often on long answers silently drops the hardest comparisons from
  every win rate, which is why the failures are shown rather than imputed.
- **Self-comparison tie rate**: the tie share of calls that compare a model with itself, where any
  verdict other than a tie can only reflect position (Zheng et al. 2023 use the same idea to
  measure position bias without a quality difference).

Both are single DuckDB aggregations with bound parameters on the store's verdict table.

References
----------
Zheng, L. et al. (2023). Judging LLM-as-a-Judge with MT-Bench and Chatbot Arena. NeurIPS
Datasets and Benchmarks.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from evalcore.counts import CountSource
from evalcore.errors import check_int


@dataclass(frozen=True)
class Coverage:
    """Calls that returned no verdict, counted and never imputed.

    ``by_model``: model, calls, no_verdict, no_verdict_rate (a call counts for both its models).
    ``by_length``: length_bin (1 = shortest), length_min, length_max (characters or tokens, as the
    file gives them, summed over both responses), calls, no_verdict, no_verdict_rate; empty when
    the file has no lengths.
    """

    calls: int
    no_verdict: int
    by_model: pd.DataFrame
    by_length: pd.DataFrame

    @property
    def no_verdict_rate(self) -> float:
        return self.no_verdict / self.calls if self.calls else float("nan")


def coverage(
    store: CountSource, judge: str | None, *, category: str | None = None, length_bins: int = 5
) -> Coverage:
    """No-verdict counts of one judge, per model and per length bin.

    Parameters
    ----------
    store : CountSource
        The loaded verdict table.
    judge : str or None
        The judge (None: every row).
    category : str, optional
        Only rows of this category.
    length_bins : int, default 5
        Bins of length_a + length_b of about equal count, by rank; equal lengths share a bin, so
        a length many rows share gives fewer, uneven bins.

    Returns
    -------
    Coverage

    References
    ----------
    Zheng, L. et al. (2023). Judging LLM-as-a-Judge with MT-Bench and Chatbot Arena. NeurIPS
    Datasets and Benchmarks.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalcore.schema import validate_verdicts
    >>> from evalcore.store.store import VerdictStore
    >>> store = VerdictStore()
    >>> store.load(validate_verdicts(pd.DataFrame({"instruction_id": ["q1", "q1"],
    ...     "model_a": ["x", "y"], "model_b": ["y", "x"], "verdict": [1, None],
    ...     "judge": ["j", "j"]}), file="example"))
    >>> coverage(store, "j").no_verdict_rate
    0.5
    """
    length_bins = check_int("length_bins", length_bins, low=1)
    calls, missing, by_model, by_length = store.query(
        "coverage_counts", judge=judge, category=category, length_bins=length_bins
    )
    for frame in (by_model, by_length):
        frame["no_verdict_rate"] = frame["no_verdict"] / frame["calls"].where(frame["calls"] > 0)
    return Coverage(calls=calls, no_verdict=missing, by_model=by_model, by_length=by_length)


@dataclass(frozen=True)
class SelfComparison:
    """Calls comparing a model with itself; any verdict but a tie is position."""

    calls: int  # with a verdict
    ties: int
    mean_verdict: float

    @property
    def tie_rate(self) -> float:
        return self.ties / self.calls if self.calls else float("nan")


def self_comparison(store: CountSource, judge: str | None, *, category: str | None = None) -> SelfComparison:
    """Calls of a model against itself: how many, how many ties, the mean verdict.

    References
    ----------
    Zheng, L. et al. (2023). Judging LLM-as-a-Judge with MT-Bench and Chatbot Arena. NeurIPS
    Datasets and Benchmarks.
    """
    calls, ties, mean = store.query("self_comparison_counts", judge=judge, category=category)
    return SelfComparison(
        calls=int(calls), ties=int(ties), mean_verdict=float(mean) if mean is not None else float("nan")
    )
