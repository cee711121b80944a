"""``scipy.sparse``, imported on first use.

Importing scipy's sparse matrices costs about a third of a second of CPU (scipy's array API
layer imports most of numpy's submodules), more than a small leaderboard's whole fit. Few
models never need them (their fits, bootstrap and split halves work on models × models
arrays), so the modules that also serve many models name ``sparse`` through this proxy: the
first attribute read imports scipy.sparse, and a ranking of few models never pays for it.
Type checkers see the real module (``if TYPE_CHECKING: from scipy import sparse``).
"""

from __future__ import annotations

import sys
from typing import Any


class _LazySparse:
    """Forwards every attribute to ``scipy.sparse``, imported at the first one (then kept)."""

    def __getattr__(self, name: str) -> Any:
        import scipy.sparse

        value = getattr(scipy.sparse, name)
        object.__setattr__(self, name, value)  # later reads skip this method
        return value


sparse: Any = _LazySparse()


def issparse(value: object) -> bool:
    """``scipy.sparse.issparse(value)`` without importing scipy: nothing is a sparse matrix
    before scipy.sparse is loaded."""
    module = sys.modules.get("scipy.sparse")
    return module is not None and bool(module.issparse(value))
