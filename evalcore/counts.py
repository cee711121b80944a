"""The one input type of every analysis: judge calls counted per (instruction, ordered pair, level).

:class:`VerdictCounts` is sparse: it holds only the (instruction, slot-A model, slot-B model) cells
that occur, each with its calls per verdict level, exactly what a DuckDB ``GROUP BY`` returns.
Memory grows with the number of judged cells, never with instructions × models². An arena table
(one prompt per battle, 1.8 M battles, 129 models) is 1.8 M cells (about 60 MB); the dense tensor
it replaces would need hundreds of gigabytes.

Views for what the analyses need are cheap: pooled M × M × level counts, per-instruction level
totals, per-anchor slices. A dense (I, M, M, L) tensor can still be built by an analysis that truly
needs one, through :meth:`VerdictCounts.dense`, which refuses above a memory budget instead of
exhausting the machine.

Resampling instructions (the benchmark's unit) is done on *instruction patterns*: instructions
whose cells are identical (same pairs, same verdict counts) are exchangeable, so drawing I
instructions with replacement is the same as drawing a multinomial over the distinct patterns with
probabilities proportional to their multiplicity. On an arena table that turns 1.8 M instructions
into at most M² × levels patterns; on an all-pairs table nothing changes.

Why this module is about 550 lines: :class:`VerdictCounts` is one class, the currency every
analysis reads, and its views, selections and patterns are its methods because they share what it
finds once and caches on the object (the patterns, each cell's level, the pooled counts).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from types import EllipsisType
from typing import Any, Protocol

import numpy as np

from evalcore.errors import ResourceLimitError, UsageError
from evalcore.names import Names, select_names
from evalcore.schema import LEVELS

N_LEVELS = len(LEVELS)
#: Below this many (model, model, level) slots per instruction, the patterns of a table of one
#: call per instruction are found among those slots (:meth:`VerdictCounts._one_call_patterns`).
ONE_CALL_SLOTS_PER_INSTRUCTION = 4
#: Default ceiling for a dense tensor built on request (bytes).
DENSE_LIMIT_BYTES = 256 * 1024**2

#: Columns of a pattern row: judged wins, ties, losses; then the labelled confusion matrix with
#: the human label (win, tie, loss) as rows and the judge's verdict (win, tie, loss) as columns.
PATTERN_COLUMNS: tuple[str, ...] = (
    "w",
    "t",
    "l",
    "hw_vw",
    "hw_vt",
    "hw_vl",
    "ht_vw",
    "ht_vt",
    "ht_vl",
    "hl_vw",
    "hl_vt",
    "hl_vl",
)


@dataclass(frozen=True)
class InstructionPatterns:
    """Distinct per-instruction cell patterns and how often each occurs.

    ``of_instruction[i]`` is the pattern of instruction ``i``; ``multiplicity[s]`` the number of
    instructions with pattern ``s``; ``representative[s]`` one instruction with that pattern (the
    first). Sum over instructions of any per-instruction statistic ``f`` equals
    ``multiplicity @ f[representative]``.
    """

    of_instruction: np.ndarray
    multiplicity: np.ndarray
    representative: np.ndarray

    @property
    def n_patterns(self) -> int:
        return int(self.multiplicity.size)


@dataclass(frozen=True, repr=False)
class VerdictCounts:
    """Judge calls counted per instruction and ordered model pair, sparse.

    Cell ``r`` says: on instruction ``instructions[inst[r]]``, with ``models[a[r]]`` in slot A and
    ``models[b[r]]`` in slot B, ``n[r, k]`` calls had verdict ``LEVELS[k]`` (slot A's point of
    view). Cells are unique and sorted by (inst, a, b); calls with no verdict and
    self-comparisons are not counted. Build with :meth:`from_cells` (which merges and sorts) or
    :meth:`from_dense`.
    """

    models: tuple[str, ...]
    instructions: tuple[str, ...] | Names
    judge: str | None
    inst: np.ndarray  # int32 (K,)
    a: np.ndarray  # int32 (K,)
    b: np.ndarray  # int32 (K,)
    n: np.ndarray  # int32 (K, L)
    _cache: dict = field(default_factory=dict, compare=False)
    #: The resampling unit of each cell when the counts were read clustered by a column other
    #: than the instruction (``session``, ``voter``, ``run``): ``units[unit[r]]`` is cell r's
    #: unit, ``unit_column`` the column's name. None: the instruction is the unit.
    unit: np.ndarray | None = None  # int32 (K,)
    units: tuple[str, ...] = ()
    unit_column: str | None = None

    # -- construction --------------------------------------------------------------------------
    @classmethod
    def from_cells(
        cls, *, models, instructions, judge, inst, a, b, n, unit=None, units=(), unit_column=None
    ) -> VerdictCounts:
        """Counts from cell arrays; repeated (inst, a, b) keys are summed, empty cells dropped.

        With ``unit`` (a unit index per cell into ``units``, named ``unit_column``), cells are
        keyed by (inst, a, b, unit): calls of one cell in two sessions stay two cells.
        """
        models = tuple(models)
        instructions = instructions if isinstance(instructions, Names) else tuple(instructions)
        inst = np.asarray(inst, dtype=np.int64)
        a = np.asarray(a, dtype=np.int64)
        b = np.asarray(b, dtype=np.int64)
        n = np.asarray(n, dtype=np.int64).reshape(len(inst), N_LEVELS)
        m = max(len(models), 1)
        key = (inst * m + a) * m + b
        u = None if unit is None else np.asarray(unit, dtype=np.int64)
        order = np.argsort(key, kind="stable") if u is None else np.lexsort((u, key))
        key, n = key[order], n[order]
        if u is not None:
            u = u[order]
        if key.size:
            new = np.r_[True, key[1:] != key[:-1]]
            if u is not None:
                new |= np.r_[True, u[1:] != u[:-1]]
            starts = np.flatnonzero(new)
            n = np.add.reduceat(n, starts, axis=0)
            key = key[starts]
            u = None if u is None else u[starts]
        keep = n.sum(axis=1) > 0
        key, n = key[keep], n[keep]
        return cls(
            models=models,
            instructions=instructions,
            judge=judge,
            inst=(key // (m * m)).astype(np.int32),
            a=((key // m) % m).astype(np.int32),
            b=(key % m).astype(np.int32),
            n=n.astype(np.int32),
            unit=None if u is None else u[keep].astype(np.int32),
            units=tuple(units) if u is not None else (),
            unit_column=unit_column if u is not None else None,
        )

    @classmethod
    def from_dense(cls, *, models, instructions, judge, counts) -> VerdictCounts:
        """Counts from a dense (I, M, M, L) tensor (tests and small hand-made examples)."""
        counts = np.asarray(counts)
        if (
            counts.ndim != 4
            or counts.shape[1:] != (len(models), len(models), N_LEVELS)
            or counts.shape[0] != len(instructions)
        ):
            raise UsageError(
                f"counts must have shape (instructions, models, models, {N_LEVELS}) = "
                f"({len(instructions)}, {len(models)}, {len(models)}, {N_LEVELS}); "
                f"got {counts.shape}."
            )
        i, a, b = np.nonzero(counts.sum(axis=-1))
        off = a != b
        i, a, b = i[off], a[off], b[off]
        return cls.from_cells(
            models=models, instructions=instructions, judge=judge, inst=i, a=a, b=b, n=counts[i, a, b, :]
        )

    def with_cells(self, inst, a, b, n, *, judge: str | None | EllipsisType = ...) -> VerdictCounts:
        """The same axes (models, instructions) with other cells."""
        return VerdictCounts.from_cells(
            models=self.models,
            instructions=self.instructions,
            judge=self.judge if judge is ... else judge,
            inst=inst,
            a=a,
            b=b,
            n=n,
        )

    # -- sizes ---------------------------------------------------------------------------------
    @property
    def n_models(self) -> int:
        return len(self.models)

    @property
    def n_instructions(self) -> int:
        return len(self.instructions)

    @property
    def n_cells(self) -> int:
        return int(self.inst.size)

    @property
    def calls(self) -> int:
        """Calls with a verdict between two different models."""
        return int(self.n.sum(dtype=np.int64))

    def index(self, model: str) -> int:
        # a mapping built once: a search of the tuple per call took 1.6 s over the 10,000
        # adjacent pairs of a 10,000-model leaderboard
        if "index" not in self._cache:
            self._cache["index"] = {name: i for i, name in reversed(list(enumerate(self.models)))}
        try:
            return self._cache["index"][model]
        except KeyError:
            raise UsageError(f"model {model!r} is not in this selection.") from None

    def __repr__(self) -> str:
        judge = f", judge={self.judge!r}" if self.judge is not None else ""
        return (
            f"VerdictCounts({self.n_models} models, {self.n_instructions:,} instructions, "
            f"{self.n_cells:,} cells, {self.calls:,} calls{judge})"
        )

    # -- views ---------------------------------------------------------------------------------
    def pooled(self) -> np.ndarray:
        """(M, M, L) calls summed over instructions (``[a, b, k]``, a in slot A), once; read-only."""
        if "pooled" not in self._cache:
            m = self.n_models
            key = self.a.astype(np.int64) * m + self.b
            out = np.empty((m * m, N_LEVELS), dtype=np.int64)
            for k in range(N_LEVELS):
                out[:, k] = np.bincount(key, weights=self.n[:, k], minlength=m * m)
            out.flags.writeable = False
            self._cache["pooled"] = out.reshape(m, m, N_LEVELS)
        return self._cache["pooled"]

    def per_instruction_levels(self) -> np.ndarray:
        """(I, L) calls per instruction and verdict level (all pairs, slot A's view)."""
        flat = self.inst.astype(np.int64)[:, None] * N_LEVELS + np.arange(N_LEVELS)
        out = np.bincount(
            flat.ravel(), weights=self.n.ravel().astype(np.float64), minlength=self.n_instructions * N_LEVELS
        )
        return out.reshape(self.n_instructions, N_LEVELS).astype(np.int64)

    def cell_scores(self, values) -> np.ndarray:
        """Per cell, the calls weighted by a value per level: ``n @ values`` (K,)."""
        values = np.asarray(values, dtype=np.float64)
        single = self.single_call_levels()
        if single is not None:  # every cell one call: its level's value, the same sum
            return values[single]
        # Column by column rather than ``n.astype(float) @ values``: no (K, L) float copy, which on
        # an arena table (1.8 M cells) is 72 MB of fresh memory for a (K,) result.
        out = np.zeros(self.n.shape[0])
        for k in np.flatnonzero(values):
            out += values[k] * self.n[:, k]
        return out

    def per_instruction(self, cell_values: np.ndarray) -> np.ndarray:
        """Sum a per-cell quantity (K,) or (K, C) over each instruction's cells → (I,) or (I, C)."""
        v = np.asarray(cell_values, dtype=np.float64)
        if v.ndim == 1:
            return np.bincount(self.inst, weights=v, minlength=self.n_instructions)
        c = v.shape[1]
        flat = self.inst.astype(np.int64)[:, None] * c + np.arange(c)
        return np.bincount(flat.ravel(), weights=v.ravel(), minlength=self.n_instructions * c).reshape(
            self.n_instructions, c
        )

    def dense_bytes(self) -> int:
        return self.n_instructions * self.n_models**2 * N_LEVELS * 4

    def dense(self, *, max_bytes: int = DENSE_LIMIT_BYTES) -> np.ndarray:
        """The dense (I, M, M, L) int32 tensor, for analyses that need one on a small table.

        Raises :class:`~evalcore.errors.ResourceLimitError` when it would exceed ``max_bytes``.
        """
        need = self.dense_bytes()
        if need > max_bytes:
            raise ResourceLimitError(
                f"This analysis needs a full instructions × models × models table "
                f"({self.n_instructions:,} × {self.n_models} × {self.n_models}, "
                f"{need / 1024**3:.1f} GB), over the {max_bytes / 1024**3:.2f} GB budget. "
                "Select fewer models or a sample of instructions, or a category."
            )
        out = np.zeros((self.n_instructions, self.n_models, self.n_models, N_LEVELS), np.int32)
        if self.unit is None:
            out[self.inst, self.a, self.b, :] = self.n
        else:  # one (instruction, pair) may hold a cell per unit
            np.add.at(out, (self.inst, self.a, self.b), self.n)
        return out

    @property
    def counts(self) -> np.ndarray:
        """The dense tensor (see :meth:`dense`); kept for small-table analyses."""
        return self.dense()

    # -- selections ----------------------------------------------------------------------------
    def subset(self, *, instructions=None, models=None) -> VerdictCounts:
        """The same counts restricted to instruction and/or model indices (in the given order).

        Instruction indices may repeat (a bootstrap draw): each copy becomes its own instruction.
        """
        inst, a, b, n = self.inst, self.a, self.b, self.n
        unit = self.unit
        inst_names, model_names = self.instructions, self.models
        if models is not None:
            idx = np.asarray(models, dtype=np.int64)
            remap = np.full(self.n_models, -1, dtype=np.int64)
            remap[idx] = np.arange(idx.size)
            keep = (remap[a] >= 0) & (remap[b] >= 0)
            inst, a, b, n = inst[keep], remap[a[keep]], remap[b[keep]], n[keep]
            unit = None if unit is None else unit[keep]
            model_names = tuple(self.models[i] for i in idx)
        if instructions is not None and models is None and self._one_cell_each():
            idx = np.asarray(instructions, dtype=np.int64)  # instruction k's cell is cell k
            inst, a, b, n = np.arange(idx.size), a[idx], b[idx], n[idx]
            unit = None if unit is None else unit[idx]
            inst_names = select_names(self.instructions, idx)
        elif instructions is not None:
            idx = np.asarray(instructions, dtype=np.int64)
            # cells of instruction i sit at [start[i], start[i] + size[i]) (cells are sorted)
            size = np.bincount(inst, minlength=self.n_instructions)
            start = np.r_[0, np.cumsum(size)[:-1]]
            take_size = size[idx]
            total = int(take_size.sum())
            new_inst = np.repeat(np.arange(idx.size), take_size)
            offsets = np.arange(total) - np.repeat(np.cumsum(take_size) - take_size, take_size)
            rows = np.repeat(start[idx], take_size) + offsets
            inst, a, b, n = new_inst, a[rows], b[rows], n[rows]
            unit = None if unit is None else unit[rows]
            inst_names = select_names(self.instructions, idx)
        return VerdictCounts.from_cells(
            models=model_names,
            instructions=inst_names,
            judge=self.judge,
            inst=inst,
            a=a,
            b=b,
            n=n,
            unit=unit,
            units=self.units,
            unit_column=self.unit_column,
        )

    @property
    def n_units(self) -> int:
        """Resampling units: the instructions, or the units of :attr:`unit_column`."""
        return self.n_instructions if self.unit is None else len(self.units)

    def by_unit(self) -> VerdictCounts:
        """The same calls with the resampling unit as the instruction axis (what the cluster
        bootstrap and the clustered sandwich read): itself when the instruction is the unit.

        Pooled views (wins, battles, the fit) are unchanged; only the grouping of calls into
        independent units differs, so every interval "over instructions" becomes one over units.
        """
        if self.unit is None:
            return self
        cached = self._cache.get("by_unit")
        if cached is None:
            cached = VerdictCounts.from_cells(
                models=self.models,
                instructions=self.units,
                judge=self.judge,
                inst=self.unit,
                a=self.a,
                b=self.b,
                n=self.n,
            )
            self._cache["by_unit"] = cached
        return cached

    def over_instructions(self) -> VerdictCounts:
        """The same counts with the instruction as the resampling unit (the unit column dropped)."""
        if self.unit is None:
            return self
        return VerdictCounts.from_cells(
            models=self.models,
            instructions=self.instructions,
            judge=self.judge,
            inst=self.inst,
            a=self.a,
            b=self.b,
            n=self.n,
        )

    def involving(self, model: int) -> np.ndarray:
        """Boolean mask of the cells in which model index ``model`` takes part (either slot)."""
        return (self.a == model) | (self.b == model)

    # -- resampling ----------------------------------------------------------------------------
    @cached_property
    def patterns(self) -> InstructionPatterns:
        """Distinct instruction patterns (see the module docstring). Computed once per object."""
        n_inst = self.n_instructions
        if n_inst == 0:
            empty = np.zeros(0, dtype=np.int64)
            return InstructionPatterns(empty, empty, empty)
        if self.one_call_each():
            return self._one_call_patterns()
        # An order-free 64-bit hash of each instruction's multiset of cells (splitmix64 of the
        # cell's key and counts, summed); equal patterns hash equally, and distinct patterns
        # collide with probability about 2⁻⁶⁴ per pair.
        m = np.uint64(max(self.n_models, 1))
        key = self.a.astype(np.uint64) * m + self.b.astype(np.uint64)
        with np.errstate(over="ignore"):
            h = _splitmix(key)
            for k in range(N_LEVELS):
                h = _splitmix(h ^ (self.n[:, k].astype(np.uint64) + np.uint64(k + 1)))
            row_hash = np.zeros(n_inst, dtype=np.uint64)
            np.add.at(row_hash, self.inst, h)
            # instructions without a cell all share the empty pattern (hash 0)
        # np.unique(row_hash, return_index=…, return_inverse=…, return_counts=…) with one
        # unstable sort (a third faster on an arena table): the first instruction of each pattern
        # is the smallest index in its group, whatever order the sort left the group in.
        order = np.argsort(row_hash)
        ordered = row_hash[order]
        first = np.empty(n_inst, dtype=bool)
        first[0] = True
        np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
        starts = np.flatnonzero(first)
        of_instruction = np.empty(n_inst, dtype=np.int64)
        of_instruction[order] = np.cumsum(first) - 1
        return InstructionPatterns(
            of_instruction=of_instruction,
            multiplicity=np.diff(np.append(starts, n_inst)).astype(np.int64),
            representative=np.minimum.reduceat(order, starts).astype(np.int64),
        )

    def _one_cell_each(self) -> bool:
        """Whether every instruction has exactly one cell (an arena: a battle a prompt): then
        cell ``k`` is instruction ``k``'s (the cells are sorted by instruction)."""
        cached = self._cache.get("one_cell_each")
        if cached is None:
            n = self.n_instructions
            cached = self.n_cells == n and bool((self.inst == np.arange(n, dtype=self.inst.dtype)).all())
            self._cache["one_cell_each"] = cached
        return cached

    @classmethod
    def from_single_calls(cls, *, level: np.ndarray, **fields: Any) -> VerdictCounts:
        """Counts whose every cell is one call, given as its level index (``level[k]`` into
        :data:`~evalcore.schema.LEVELS`): a typed load's judge, an arena's battles. The levels are
        kept, so that weighting the cells by level is a lookup (:meth:`cell_scores`)."""
        level = np.asarray(level, dtype=np.int8)
        counts = cls(n=np.eye(N_LEVELS, dtype=np.int32)[level], **fields)
        counts._cache["single_levels"] = level
        return counts

    def single_call_levels(self) -> np.ndarray | None:
        """Each cell's level index (into :data:`~evalcore.schema.LEVELS`) when every cell holds
        one call (a typed load's judge: an arena's battles), else None; found once. A per-level weighting of the cells is then a
        lookup (:meth:`cell_scores`: 3 against 28 ms at 1.8 M cells, read six times by a
        leaderboard)."""
        if "single_levels" not in self._cache:
            n = self.n
            single = None
            if n.shape[0] and (n.sum(axis=1) == 1).all():  # (counts are never negative)
                single = np.argmax(n, axis=1).astype(np.int8)
            self._cache["single_levels"] = single
        return self._cache["single_levels"]

    def single_call_instructions(self) -> bool:
        """Whether every instruction holds exactly one call (an arena: a battle a prompt),
        however many the models: resampling instructions then resamples independent calls."""
        return self._one_cell_each() and self.single_call_levels() is not None

    def one_call_each(self) -> bool:
        """Whether every instruction has one cell holding one call (an arena's battles) and the
        models are few for them: an instruction's pattern is then one of models × models ×
        levels, however many the instructions, and :attr:`patterns` finds them without a sort."""
        m = self.n_models
        small = m * m * N_LEVELS <= ONE_CALL_SLOTS_PER_INSTRUCTION * max(self.n_instructions, 1)
        return small and self.single_call_instructions()

    def _one_call_patterns(self) -> InstructionPatterns:
        """:attr:`patterns` when every instruction is one call (:meth:`one_call_each`): the
        same hashes, numbering, multiplicities and representatives, found among the distinct
        (slot A's model, slot B's model, level) of the calls instead of sorting every
        instruction's hash (a pass over 1.8 M battles where a sort of them took three)."""
        m, n_inst = self.n_models, self.n_instructions
        level = self.single_call_levels()
        key = (self.a.astype(np.int64) * m + self.b) * N_LEVELS + level
        seen = np.bincount(key, minlength=m * m * N_LEVELS)
        keys = np.flatnonzero(seen)
        # each distinct call's hash, exactly as the general path hashes its cell
        slot, lvl = keys // N_LEVELS, keys % N_LEVELS
        with np.errstate(over="ignore"):
            h = _splitmix(slot.astype(np.uint64))
            for k in range(N_LEVELS):
                h = _splitmix(h ^ ((lvl == k).astype(np.uint64) + np.uint64(k + 1)))
        # patterns numbered by their hash, as the general path's sort numbers them (equal hashes,
        # were two distinct calls ever to collide, are one pattern there and here)
        order = np.argsort(h)
        ordered = h[order]
        first = np.empty(keys.size, dtype=bool)
        first[0] = True
        np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
        pattern_of_key = np.empty(keys.size, dtype=np.int64)
        pattern_of_key[order] = np.cumsum(first) - 1
        n_patterns = int(first.sum())
        lookup = np.zeros(m * m * N_LEVELS, dtype=np.int64)
        lookup[keys] = pattern_of_key
        of_instruction = lookup[key]
        earliest = np.full(m * m * N_LEVELS, n_inst, dtype=np.int64)
        np.minimum.at(earliest, key, np.arange(n_inst, dtype=np.int64))
        representative = np.full(n_patterns, n_inst, dtype=np.int64)
        np.minimum.at(representative, pattern_of_key, earliest[keys])
        multiplicity = np.bincount(pattern_of_key, weights=seen[keys], minlength=n_patterns)
        return InstructionPatterns(
            of_instruction=of_instruction,
            multiplicity=multiplicity.astype(np.int64),
            representative=representative,
        )

    def pattern_counts(self) -> tuple[VerdictCounts, np.ndarray]:
        """The counts of one representative instruction per pattern, and the multiplicities.

        Any sum over instructions equals the multiplicity-weighted sum over these
        representatives; :func:`evalcore.stats.bootstrap.bootstrap_weights` resamples them.
        """
        cached = self._cache.get("pattern_counts")
        if cached is None:
            # the leaderboard's bootstrap and the split halves read them both: built once
            p = self.patterns
            if p.n_patterns == self.n_instructions:
                cached = self, p.multiplicity
            else:
                cached = self.subset(instructions=p.representative), p.multiplicity
            self._cache["pattern_counts"] = cached
        return cached


def _splitmix(x: np.ndarray) -> np.ndarray:
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


class CountSource(Protocol):
    """What an analysis reads from a store of verdicts, so that analyses need not import the store
    (:class:`evalcore.store.store.VerdictStore` is one): counts per judge and category, the judges, and
    a named aggregation of :mod:`evalcore.store.queries` run with bound parameters
    (``source.query("labelled_rows", judge="j", category=None)``)."""

    def counts(self, *, judge: str | None = None, category: str | None = None) -> VerdictCounts: ...

    def judges(self) -> tuple[str, ...]: ...

    def models(self) -> tuple[str, ...]: ...

    def judged_at(self) -> Any: ...

    def query(self, query: Any, /, **params: Any) -> Any: ...


def require_source(data: Any, *, needs: tuple[str, ...], what: str) -> None:
    """Refuse anything that is not a store of verdicts. A frame is loaded by the caller
    (``VerdictStore.from_frame(frame)``), so that the analyses never build a DuckDB store
    themselves."""
    if hasattr(data, "columns") and not hasattr(data, "counts"):  # a DataFrame
        raise UsageError(
            f"{what} reads a store of verdicts, not a DataFrame: load the frame first "
            "with VerdictStore.from_frame(frame) and pass the store"
        )
    if not all(hasattr(data, name) for name in needs):
        raise UsageError(f"{what} reads a store of verdicts; got {type(data).__name__}")
