"""evalcore: rank models from LLM-judge verdicts, choose anchors, inspect and calibrate the judge.

Two lines from a file to a leaderboard::

    import evalcore
    ds = evalcore.load("verdicts.csv")
    ds.leaderboard(judge="gpt-4").table

The analysis functions take :class:`VerdictCounts` (sparse counts of calls per instruction, ordered
pair and verdict level) and return frozen results with ``as_dict()``. Every error a user can cause
is an :class:`EvalcoreError`. Names are imported lazily so the command line starts fast.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any, Callable

__version__ = "0.3.0"

_EXPORTS = {
    "load": "evalcore.dataset",
    "Dataset": "evalcore.dataset",
    "VerdictCounts": "evalcore.counts",
    "VerdictStore": "evalcore.store.store",
    "EvalcoreError": "evalcore.errors",
    "UsageError": "evalcore.errors",
    "DesignError": "evalcore.errors",
    "ResourceLimitError": "evalcore.errors",
    "VerdictFormatError": "evalcore.schema",
    "Estimate": "evalcore.stats.intervals",
    "wilson_interval": "evalcore.stats.intervals",
    "kendall_tau": "evalcore.stats.kendall",
    "leaderboard": "evalcore.ranking",
    "Leaderboard": "evalcore.ranking",
    "fit_bradley_terry": "evalcore.ranking",
    "separation": "evalcore.ranking",
    "ranking_fragility": "evalcore.ranking",
    "anchor_stability": "evalcore.anchors",
    "anchor_sweep": "evalcore.anchors",
    "judge_sheet": "evalcore.judge",
    "verdict_tie_structure": "evalcore.ties",
    "calibrate": "evalcore.calibration",
}

__all__ = sorted(_EXPORTS) + ["__version__"]

# scipy's first import without loading numpy's unused tools (see evalcore.stats.lazy_sparse)
from evalcore.stats.lazy_sparse import defer_numpy_tools_until_scipy  # noqa: E402

defer_numpy_tools_until_scipy()


def lazy_face(package: str, exports: dict[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for a package face: each name in ``exports`` (name -> module)
    is imported from its module on first use, so the face costs nothing until a name is read."""
    space = sys.modules[package].__dict__

    def getattr_(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        space[name] = value
        return value

    def dir_() -> list[str]:
        return sorted(set(exports) | set(space))

    return getattr_, dir_


__getattr__ = lazy_face(__name__, _EXPORTS)[0]


def __dir__() -> list[str]:
    return __all__
