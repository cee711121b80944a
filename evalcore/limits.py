"""The memory budget of one request, and the bounds of the parameters that multiply memory.

One place reads the budget: ``$VERDICTLAB_MEMORY_BUDGET_MB`` (megabytes, whole number), else
:data:`DEFAULT_BUDGET_MB`. The default suits a shared team server of about 24 GB running one app
process for a dozen concurrent sessions: one request (an upload, a bootstrap, a simulation) may
use 2 GB, so ten heavy requests at once still leave room for the rest of the machine. A laptop
user running the CLI alone can raise it; a small container can lower it.

Analyses estimate what an allocation needs before making it (a leaderboard of many models by
what it keeps per pair that met, per verdict cell and per draw:
:func:`evalcore.ranking.leaderboard.board_bytes`) and call :func:`check_bytes`, which
refuses in words that name the need, the budget, the variable to change and how else to proceed.
Parameters that multiply memory or time (bootstrap rounds, simulations, grid sizes) also have
fixed upper bounds here, so a typo such as ``--bootstrap 10000000`` is refused at once.

Loads are bounded too (:class:`LoadLimits`).
A shared server must survive any file a user can pick, so every load is bounded: a compressed
file is decompressed as a stream and refused once it would exceed ``VERDICTLAB_MAX_BYTES``
(a few megabytes of gzip can expand to gigabytes); a table with more rows or models than the
server accepts is refused in words that say how to proceed (a sample, Parquet, or the
command-line tool on the file with the limit raised).

=========================  ===========  ===============================================
variable                   default      what it bounds
=========================  ===========  ===============================================
``VERDICTLAB_MAX_BYTES``   2 GiB        decompressed size of a compressed file
``VERDICTLAB_MAX_ROWS``    see below    rows of one table
``VERDICTLAB_MAX_MODELS``  10,000       distinct models of one table
``VERDICTLAB_LOAD_SECONDS`` 600         time one load (read, check, store) may take
=========================  ===========  ===============================================

**Rows are counted by the product, not found out by the allocator.** A row costs memory whatever
its size on disk (a 3 MB gzip file can hold 150 million valid rows), so the default row limit
follows the memory budget: :data:`ROW_BYTES` per row (a load and its summary measured about
120-300 bytes a row), at most 50,000,000; 10.7 million rows under the default 2 GB budget. The
count is checked before the full load, cheaply: while a gzip stream is decompressed (its lines
are counted as they pass, so the 150-million-row file is refused after a fraction of a second's
worth of lines, not after filling memory), from a Parquet file's footer, and by a ``LIMIT``
probe for a large plain file (:func:`evalcore.ingest.bounds.check_rows`).

Sizes accept a suffix: ``500M``, ``4G``. No file is read whole into Python: verdict tables and
Chatbot Arena dumps are read and converted in SQL, and the tools' other native files
(Arena-Hard-Auto, AlpacaEval, MT-Bench, the other arena battle tables) are streamed in batches
(:mod:`evalcore.ingest.native`), so they need no size bound of their own: only the rows and
models bound them.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

from evalcore.errors import ResourceLimitError, UsageError, check_int
from evalcore.text import fmt_bytes

__all__ = [
    "DEFAULT_BUDGET_MB",
    "ENV_VAR",
    "MAX_GRID",
    "MAX_ROUNDS",
    "MAX_SIMULATIONS",
    "budget_bytes",
    "check_bytes",
    "check_grid",
    "check_rounds",
    "check_simulations",
    "LoadLimits",
    "ROW_BYTES",
    "default_max_rows",
    "parse_size",
    "format_size",
]

#: The environment variable holding the budget in megabytes.
ENV_VAR = "VERDICTLAB_MEMORY_BUDGET_MB"
#: The budget when the variable is not set (megabytes).
DEFAULT_BUDGET_MB = 2048
#: Most bootstrap rounds any analysis accepts (1,000 give 95% percentile intervals to about
#: ±0.5 Elo points of Monte Carlo error; 100,000 is far beyond any use).
MAX_ROUNDS = 100_000
#: Most Monte Carlo simulations per grid point of a power simulation.
MAX_SIMULATIONS = 1_000_000
#: Most points of a parameter grid (sample sizes, edges, steps).
MAX_GRID = 10_000
#: The smallest win-rate edge a sign-test sample size is worked out for: +0.0001% (a win
#: probability of 0.500001) already needs about 1.5 trillion discordant samples.
MIN_EDGE = 1e-6
#: The most discordant samples the exact binomial sample-size search goes to (two million: an
#: edge of about +0.09%; the search there takes seconds, at ten million over a minute). Above it
#: the normal approximation agrees with the exact test to a fraction of a percent.
MAX_EXACT_DISCORDANT = 2_000_000
#: The smallest informativeness a total sample size is worked out for (one in a million).
MIN_INFORMATIVENESS = 1e-6
#: The largest labelled-set size a floor is worked out for (far past any labelling budget).
MAX_LABELLED = 10**9
#: The most cases a page of verdicts may skip (past any table, inside a 64-bit OFFSET).
MAX_OFFSET = 10**12


def budget_bytes() -> int:
    """The memory budget of one request in bytes (``$VERDICTLAB_MEMORY_BUDGET_MB``, else 2048 MB).

    Raises
    ------
    UsageError
        If the variable is set but is not a whole number of megabytes of at least 16.
    """
    raw = os.environ.get(ENV_VAR, "").strip()
    if not raw:
        return DEFAULT_BUDGET_MB * 2**20
    try:
        megabytes = int(raw)
    except ValueError:
        raise UsageError(
            f"{ENV_VAR} must be a whole number of megabytes (such as 2048); it is {raw!r}."
        ) from None
    if megabytes < 16:
        raise UsageError(f"{ENV_VAR} must be at least 16 (megabytes); it is {megabytes}.")
    return megabytes * 2**20


def check_bytes(what: str, needed: float, *, advice: str = "") -> None:
    """Refuse a request that needs more than the budget, before anything is allocated.

    Parameters
    ----------
    what : str
        What would be built, in words (``"the exact sign-test table for an edge of 0.1%"``).
    needed : float
        The bytes it would need.
    advice : str
        How to proceed instead (a sample, a larger edge, the CLI on a path, Parquet).

    Raises
    ------
    ResourceLimitError
        With a message naming the need, the budget and ``$VERDICTLAB_MEMORY_BUDGET_MB``.
    """
    budget = budget_bytes()
    if not math.isfinite(needed) or needed > budget:
        need = fmt_bytes(needed) if math.isfinite(needed) else "an unbounded amount"
        raise ResourceLimitError(
            f"{what[:1].upper()}{what[1:]} would need {need} of memory, more than the "
            f"{fmt_bytes(budget)} one request may use on this server "
            f"({ENV_VAR}). "
            + (advice.strip() + " " if advice else "")
            + f"An administrator can raise the budget by setting {ENV_VAR}."
        )


def check_rounds(
    rounds: object, *, name: str = "rounds", models: int = 0, bytes_per_value: int = 8, copies: int = 3
) -> int:
    """Bootstrap ``rounds`` as an int in [0, :data:`MAX_ROUNDS`] whose samples fit the budget.

    The samples of a bootstrap are ``rounds × models`` numbers, kept in about ``copies`` arrays
    (ratings, ranks, a sort buffer); the resampling itself works in chunks.
    """
    rounds = check_int(name, rounds, low=0, high=MAX_ROUNDS)
    if models:
        check_bytes(
            f"{rounds:,} bootstrap rounds for {models:,} models",
            float(rounds) * models * bytes_per_value * copies,
            advice=f"Use fewer rounds ({name}); 1,000 are enough for 95% intervals.",
        )
    return rounds


def check_simulations(
    simulations: object, *, name: str = "simulations", bytes_per_simulation: float = 0.0
) -> int:
    """Monte Carlo ``simulations`` as an int in [1, :data:`MAX_SIMULATIONS`] within the budget."""
    simulations = check_int(name, simulations, low=1, high=MAX_SIMULATIONS)
    if bytes_per_simulation:
        check_bytes(
            f"{simulations:,} simulations",
            simulations * bytes_per_simulation,
            advice=f"Use fewer simulations ({name}).",
        )
    return simulations


def check_grid(points: object, *, name: str) -> int:
    """The number of points of a parameter grid, in [1, :data:`MAX_GRID`]."""
    return check_int(name, points, low=1, high=MAX_GRID)


# -- loads ------------------------------------------------------------------------------------

_UNITS = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}


def parse_size(text: str, *, name: str) -> int:
    """``"4G"`` → 4·2³⁰; a plain number is bytes (or a count). Raises UsageError naming ``name``."""
    raw = str(text).strip().upper().removesuffix("B").removesuffix("I")
    unit = raw[-1:] if raw[-1:] in _UNITS and raw[-1:] != "" else ""
    number = raw[: len(raw) - len(unit)] if unit else raw
    try:
        value = float(number.replace("_", "").replace(",", ""))
    except ValueError:
        raise UsageError(f"{name} must be a number (optionally with K, M or G), not {text!r}.") from None
    if not value > 0:
        raise UsageError(f"{name} must be positive, not {text!r}.")
    if not math.isfinite(value * _UNITS[unit]) or value * _UNITS[unit] > 2**62:
        raise UsageError(f"{name} must be a finite size below 4 EiB (such as 4G), not {text!r}.")
    return int(value * _UNITS[unit])


def format_size(n: int) -> str:
    for unit, div in (("GB", 1024**3), ("MB", 1024**2), ("KB", 1024)):
        if n >= div:
            return f"{n / div:.1f} {unit}".replace(".0 ", " ")
    return f"{n} bytes"


#: Memory one row of a table is counted at when the row limit follows the budget (a 5-million-row
#: CSV.gz: 600 MB resident after the load, 1.5 GB after its summary; 200 bytes a row leaves the
#: rest of a request's budget to Python's arrays).
ROW_BYTES = 200
#: The most rows any budget allows by default.
MAX_ROWS_CEILING = 50_000_000
#: Seconds one load may take by default (``VERDICTLAB_LOAD_SECONDS``).
DEFAULT_LOAD_SECONDS = 600


def default_max_rows() -> int:
    """The row limit the memory budget allows: ``budget // ROW_BYTES``, at most 50,000,000."""
    return min(MAX_ROWS_CEILING, budget_bytes() // ROW_BYTES)


@dataclass(frozen=True)
class LoadLimits:
    """Budgets of one load (see the module docstring); :meth:`from_env` reads the server's.

    ``max_seconds``: a load running longer is stopped and refused in words (0: no bound)."""

    max_bytes: int = 2 * 1024**3
    max_rows: int = MAX_ROWS_CEILING
    max_models: int = 10_000
    max_seconds: float = 0.0

    @classmethod
    def from_env(cls) -> LoadLimits:
        values: dict[str, float] = {"max_rows": default_max_rows(), "max_seconds": DEFAULT_LOAD_SECONDS}
        for field, var in (
            ("max_bytes", "VERDICTLAB_MAX_BYTES"),
            ("max_rows", "VERDICTLAB_MAX_ROWS"),
            ("max_models", "VERDICTLAB_MAX_MODELS"),
        ):
            if os.environ.get(var):
                values[field] = parse_size(os.environ[var], name=var)
        if os.environ.get("VERDICTLAB_LOAD_SECONDS"):
            values["max_seconds"] = parse_size(
                os.environ["VERDICTLAB_LOAD_SECONDS"], name="VERDICTLAB_LOAD_SECONDS"
            )
        return cls(**values)  # type: ignore[arg-type]

    @property
    def rows_advice(self) -> str:
        """What to do about a table over :attr:`max_rows`, in words."""
        return (
            "Split the file, load a sample of it, or (on the command line, with the memory for it) "
            "set VERDICTLAB_MAX_ROWS higher, or VERDICTLAB_MEMORY_BUDGET_MB, which the row limit "
            "follows; Parquet is read faster than CSV"
        )
