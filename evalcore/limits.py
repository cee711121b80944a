"""What one load may cost: the budgets a server operator configures (environment variables).

A shared server must survive any file a user can pick, so every load is bounded: a compressed
file is decompressed as a stream and refused once it would exceed ``VERDICTLAB_MAX_BYTES``
(a few megabytes of gzip can expand to gigabytes); a table with more rows or models than the
server accepts is refused in words that say how to proceed (a sample, Parquet, or the
command-line tool on the file with the limit raised).

=========================  ===========  ===============================================
variable                   default      what it bounds
=========================  ===========  ===============================================
``VERDICTLAB_MAX_BYTES``   2 GiB        decompressed size of a compressed file
``VERDICTLAB_MAX_ROWS``    50,000,000   rows of one table
``VERDICTLAB_MAX_MODELS``  10,000       distinct models of one table
``VERDICTLAB_MAX_PYTHON_BYTES`` 512 MiB  size of a native tool file converted in Python
=========================  ===========  ===============================================

Sizes accept a suffix: ``500M``, ``4G``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from evalcore.errors import UsageError

_UNITS = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}


def parse_size(text: str, *, name: str) -> int:
    """``"4G"`` → 4·2³⁰; a plain number is bytes (or a count). Raises UsageError naming ``name``."""
    raw = str(text).strip().upper().removesuffix("B").removesuffix("I")
    unit = raw[-1:] if raw[-1:] in _UNITS and raw[-1:] != "" else ""
    number = raw[: len(raw) - len(unit)] if unit else raw
    try:
        value = float(number.replace("_", "").replace(",", ""))
    except ValueError:
        raise UsageError(f"{name} must be a number (optionally with K, M or G), not {text!r}.") \
            from None
    if not value > 0:
        raise UsageError(f"{name} must be positive, not {text!r}.")
    return int(value * _UNITS[unit])


def format_size(n: int) -> str:
    for unit, div in (("GB", 1024**3), ("MB", 1024**2), ("KB", 1024)):
        if n >= div:
            return f"{n / div:.1f} {unit}".replace(".0 ", " ")
    return f"{n} bytes"


@dataclass(frozen=True)
class LoadLimits:
    """Budgets of one load (see the module docstring); :meth:`from_env` reads the server's."""

    max_bytes: int = 2 * 1024**3
    max_rows: int = 50_000_000
    max_models: int = 10_000
    max_python_bytes: int = 512 * 1024**2

    @classmethod
    def from_env(cls) -> LoadLimits:
        values = {}
        for field, var in (("max_bytes", "VERDICTLAB_MAX_BYTES"),
                           ("max_rows", "VERDICTLAB_MAX_ROWS"),
                           ("max_models", "VERDICTLAB_MAX_MODELS"),
                           ("max_python_bytes", "VERDICTLAB_MAX_PYTHON_BYTES")):
            if os.environ.get(var):
                values[field] = parse_size(os.environ[var], name=var)
        return cls(**values)
