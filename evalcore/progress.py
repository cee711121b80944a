"""The callbacks long computations accept: the progress (pages draw ``st.progress`` from it) and
the cache of their pieces (pages pass ``ui.memo``; the background work its own)."""

from __future__ import annotations

from typing import Any, Callable

#: ``progress(fraction_done, label)``, fraction in [0, 1]; ``None`` where nobody is watching.
Progress = Callable[[float, str], None]

#: ``cache(key, compute)`` returns a stored result for ``key`` or computes and stores it; the
#: default (:func:`no_cache`) computes every time.
Cache = Callable[[tuple, Callable[[], Any]], Any]


def no_cache(key: tuple, compute: Callable[[], Any]) -> Any:
    """The cache of a caller who keeps nothing: ``compute()``."""
    return compute()
