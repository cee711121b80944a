"""One BLAS thread for the many small solves of Bradley–Terry fits.

A batch of bootstrap or fragility refits solves thousands of models × models systems; OpenBLAS
spreading each over a thread pool costs more than it gains, and on a shared 2-core server the
pools fight: in ``benchmarks/bench_leaderboard_interval.py``-style runs (20,000 arena prompts,
129 models, 100 rounds) one thread took 1.8 s against 15.7 s with the default pool. threadpoolctl
limits the pool for the duration of a computation only; without it nothing changes.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator


@contextlib.contextmanager
def single_blas_thread() -> Iterator[None]:
    """Limit BLAS to one thread inside the block (a no-op where threadpoolctl is missing)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # optional: the numbers are the same, only slower on busy machines
        yield
        return
    with threadpool_limits(limits=1, user_api="blas"):
        yield
