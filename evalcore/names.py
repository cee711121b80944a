"""Many names read as a tuple of ``str`` but held as one Arrow string array (:class:`Names`):
an arena table's 1.8 M prompt ids cost about 65 MB this way, against about 180 MB and a quarter
of a second as Python strings, and a ranking never reads them."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

__all__ = ["COMPACT_NAMES_FROM", "Names", "select_names", "take_names"]


class Names(Sequence[str]):
    """Many names (an arena table's 1.8 M prompt ids) held as one Arrow string array, read as a
    tuple of ``str``: about 35 bytes a name where a tuple of Python strings takes about 90, and
    no Python object is made for a name nobody reads (a ranking reads none). Reading one name by
    position converts that one; iterating, comparing or slicing converts them all, once.
    :meth:`VerdictStore.counts` uses it for a table of :data:`COMPACT_NAMES_FROM` rows or more."""

    __slots__ = ("_source", "_positions", "_tuple")

    def __init__(self, array: Any, positions: np.ndarray | None = None) -> None:
        # ``positions``: the names are those of ``array`` at these positions, taken when first read
        self._source = array
        self._positions = positions
        self._tuple: tuple[str, ...] | None = None

    @property
    def _array(self) -> Any:
        if self._positions is not None:
            self._source, self._positions = self._source.take(_positions(self._positions)), None
        return self._source

    def _all(self) -> tuple[str, ...]:
        if self._tuple is None:
            self._tuple = tuple(self._array.to_pylist())
        return self._tuple

    def __len__(self) -> int:
        return len(self._source) if self._positions is None else int(self._positions.size)

    def __getitem__(self, index: Any) -> Any:
        if self._tuple is None and isinstance(index, (int, np.integer)):
            k = int(index)
            if not -len(self) <= k < len(self):
                raise IndexError("name index out of range")
            return self._array[k].as_py()
        return self._all()[index]

    def take(self, index: np.ndarray) -> tuple[str, ...]:
        """The names at ``index`` (positions), as a tuple."""
        if self._tuple is not None:
            return tuple(self._tuple[int(i)] for i in index)
        return tuple(self._array.take(_positions(index)).to_pylist())

    def select(self, index: np.ndarray) -> Names:
        """The names at ``index`` (positions), kept in Arrow and taken when first read."""
        index = np.asarray(index, dtype=np.int64)
        if self._positions is not None and self._tuple is None:
            # a selection of a selection not yet read (one category's patterns): the positions
            # compose, and neither is taken (a take of one category's prompt ids cost 56 ms)
            return Names(self._source, self._positions[index])
        return Names(self._array, index)

    def as_column(self) -> Any:
        """The names as a pandas column of the type pandas infers for strings, taken over the
        Arrow array (no Python string is made), or None when pandas would not hold them in Arrow
        (then the caller builds the column from the names)."""
        import pandas as pd

        inferred = pd.Series(np.array(["x"], dtype=object)).dtype
        if self._tuple is not None or getattr(inferred, "storage", None) != "pyarrow":
            return None
        try:
            return pd.arrays.ArrowStringArray(self._array, dtype=inferred)
        except (TypeError, ValueError):  # an Arrow string type pandas does not take as it is
            return None

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __contains__(self, value: object) -> bool:
        return value in self._all()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (Names, tuple, list)):
            return self._all() == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._all())

    def __add__(self, other: Any) -> tuple[str, ...]:
        return self._all() + tuple(other)

    def __radd__(self, other: Any) -> tuple[str, ...]:
        return tuple(other) + self._all()

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return np.asarray(self._all(), dtype=dtype)  # what numpy and pandas make of the tuple

    def __reduce__(self) -> tuple[Any, ...]:
        return (tuple, (self._all(),))  # a copy (pickle, a cache) is a plain tuple

    def __repr__(self) -> str:
        return f"Names({len(self):,} names)"


def _positions(index: np.ndarray) -> Any:
    """Positions as an Arrow array over numpy's buffer: Arrow converting a numpy array itself
    first loads pandas (0.3 s a ranking has no other use for)."""
    import pyarrow as pa

    positions = np.ascontiguousarray(index, dtype=np.int64)
    return pa.Array.from_buffers(pa.int64(), positions.size, [None, pa.py_buffer(positions)])


#: From this many rows in the table, :meth:`VerdictStore.counts` reads the instruction ids as
#: Arrow and keeps their names as :class:`Names` (below, pyarrow's 40 MB of libraries would cost
#: more than the names).
COMPACT_NAMES_FROM = 1_000_000


def take_names(names: Sequence[str], index: np.ndarray) -> tuple[str, ...]:
    """``tuple(names[i] for i in index)``, without converting every name of a :class:`Names`."""
    if isinstance(names, Names):
        return names.take(index)
    return tuple(names[int(i)] for i in index)


def select_names(names: Sequence[str], index: np.ndarray) -> tuple[str, ...] | Names:
    """The names at ``index``; a :class:`Names` stays one, its names taken when first read (the
    instruction patterns a bootstrap or a split half resamples never read their ids)."""
    return names.select(index) if isinstance(names, Names) else take_names(names, index)
