"""One error hierarchy for the library, the CLI and the app.

Every error a user can cause derives from :class:`EvalcoreError`; its message is a whole sentence
that names what is wrong and what to do, so every face (page, CLI, report) can show ``str(exc)``
as it is. Subclasses also derive from the built-in exception a caller would naturally catch
(``ValueError`` for bad values, ``MemoryError`` for a request over the memory budget).
"""

from __future__ import annotations

import warnings


class EvalcoreDeprecationWarning(DeprecationWarning):
    """A name that still works but has a new one; the message names both and the release that
    removes the old one."""


#: The release that removes the names deprecated in 0.3.
REMOVED_IN = "0.4"


def deprecated(old: str, new: str) -> None:
    """Warn, at the caller's line, that ``old`` is now called ``new`` (a renamed attribute or
    option keeps working for one release so that scripts have time to follow)."""
    warnings.warn(
        f"{old} is deprecated and will be removed in evalcore {REMOVED_IN}; use {new}.",
        EvalcoreDeprecationWarning,
        stacklevel=3,
    )


class EvalcoreError(Exception):
    """Base class of every error evalcore raises on purpose."""


class UsageError(EvalcoreError, ValueError):
    """An argument or a selection the analysis cannot work with (names the argument)."""


class DesignError(EvalcoreError, ValueError):
    """The table's design does not identify the quantity asked for (e.g. position bias when the
    reference model always sits in one slot, or per-prompt agreement with one battle per prompt)."""


class ResourceLimitError(EvalcoreError, MemoryError):
    """A request that would need more memory than the configured budget; says how to proceed."""


def check_int(name: str, value: object, *, low: int, high: int | None = None) -> int:
    """``value`` as an int in [low, high], else a :class:`UsageError` naming the argument."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
        raise UsageError(f"{name} must be a whole number, not {value!r}.")
    value = int(value)
    if value < low or (high is not None and value > high):
        bound = f"between {low:,} and {high:,}" if high is not None else f"at least {low:,}"
        raise UsageError(f"{name} must be {bound}; got {value:,}.")
    return value


def check_models(
    n_models: int, *, limit: int, analysis: str, measured: str, instead: str, grows: str = "cube"
) -> None:
    """A :class:`UsageError` when a selection of ``n_models`` models is above the ``limit`` of an
    ``analysis`` whose cost ``grows`` with the cube (or the square) of the models (it works on
    full model-by-model tables): the limit, what was ``measured`` beyond it, and what to do
    ``instead``, so that a page on a table of thousands of models says why rather than computing
    for minutes."""
    if n_models > limit:
        raise UsageError(
            f"{analysis}, and its cost grows with the {grows} of the number of models: it runs on "
            f"selections of at most {limit:,} models ({measured}), and this one has {n_models:,}. {instead}"
        )
