"""Tests hand analyses a verdict frame; the analyses read a store (they never build one), so the
tests load the frame the way the app and the command line do, into a store closed afterwards."""

from __future__ import annotations

import functools
from typing import Any, Callable

import numpy as np
import pandas as pd

from evalcore.counts import VerdictCounts
from evalcore.store.store import VerdictStore


def on_store(analysis: Callable[..., Any]) -> Callable[..., Any]:
    """``analysis`` that also takes a verdict frame as its first argument, loaded into a private
    store for the call (anything else is passed through unchanged)."""

    @functools.wraps(analysis)
    def call(data: Any, *args: Any, **options: Any) -> Any:
        if not isinstance(data, pd.DataFrame):
            return analysis(data, *args, **options)
        store = VerdictStore.from_frame(data)
        try:
            return analysis(store, *args, **options)
        finally:
            store.close()

    return call


def chain_counts(m: int) -> VerdictCounts:
    """``m`` models in a chain, each met once by the next on an instruction of its own (one call
    at each of the three middle levels): one piece, no sweep, as cheap as a table of ``m`` models
    gets, for the tests of the analyses' limits on the number of models."""
    k = np.arange(m - 1)
    return VerdictCounts.from_cells(
        models=tuple(f"m{j:05d}" for j in range(m)),
        instructions=tuple(f"q{j}" for j in range(m - 1)),
        judge=None,
        inst=k,
        a=k,
        b=k + 1,
        n=np.tile([0, 1, 1, 1, 0], (m - 1, 1)),
    )
