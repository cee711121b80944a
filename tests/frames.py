"""Tests hand analyses a verdict frame; the analyses read a store (they never build one), so the
tests load the frame the way the app and the command line do, into a store closed afterwards."""

from __future__ import annotations

import functools
from typing import Any, Callable

import pandas as pd

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
