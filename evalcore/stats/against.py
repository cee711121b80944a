"""Verdicts against a reference model (an anchor, or the other model of a pair), from sparse counts.

Both the anchor analyses (:mod:`evalcore.anchors`) and the power analyses (:mod:`evalcore.power`)
read a model's verdict against a reference on one instruction, v(i, m), from the model's point of
view on the judge's full scale (Don-Yehiya et al., "Mediocrity is the key for LLM as a Judge Anchor
Selection", ACL 2026, §4.2). This module builds those verdicts once from the sparse cells of
:class:`~evalcore.counts.VerdictCounts`, so neither package imports the other and no
(instructions × models × models) tensor is ever built: memory grows with the number of judged
cells (each cell gives two entries, one per model of the pair).

An entry says: on instruction ``inst``, model ``model`` met the reference ``opponent`` with the
model in slot ``order`` (0 = first slot, 1 = second), and its ``calls`` verdicts sum to ``total``
(read from the model's side). Entries are sorted by (opponent, inst, model, order).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evalcore.counts import VerdictCounts
from evalcore.schema import LEVELS

#: Slot A's score per verdict level for win counting (a win 1, a tie 1/2, a loss 0).
SLOT_A_SCORE = np.array([0.0 if v < 0 else 0.5 if v == 0 else 1.0 for v in LEVELS])


def pooled_wins(counts: VerdictCounts) -> np.ndarray:
    """(M, M) wins over all instructions, both slots pooled: ``wins[a, b]`` = battles of a
    against b won by a plus half the ties; ``wins + wins.T`` is the number of battles.

    Examples
    --------
    >>> import numpy as np
    >>> c = VerdictCounts.from_cells(models=("x", "y"), instructions=("q",), judge=None,
    ...     inst=[0, 0], a=[0, 1], b=[1, 0], n=[[0, 0, 0, 1, 0], [0, 0, 1, 0, 0]])
    >>> pooled_wins(c).tolist()  # x wins as slot A, then ties as slot B
    [[0.0, 1.5], [0.5, 0.0]]
    """
    p = counts.pooled().astype(np.float64)
    return p @ SLOT_A_SCORE + (p @ (1.0 - SLOT_A_SCORE)).T


@dataclass(frozen=True)
class AgainstVerdicts:
    """Every model's verdicts against every reference model, per instruction and slot order.

    ``opponent``, ``inst``, ``model``, ``order`` (int64, (E,)) identify an entry; ``total`` and
    ``calls`` (int64) hold the summed verdict (the model's view) and the number of calls.
    ``starts[x]:starts[x + 1]`` are the entries against reference ``x``.
    """

    n_models: int
    n_instructions: int
    opponent: np.ndarray
    inst: np.ndarray
    model: np.ndarray
    order: np.ndarray
    total: np.ndarray
    calls: np.ndarray
    starts: np.ndarray

    def of(self, anchor: int) -> AnchorEntries:
        """The entries against reference model index ``anchor`` (a view, no copy)."""
        s = slice(int(self.starts[anchor]), int(self.starts[anchor + 1]))
        return AnchorEntries(
            anchor=int(anchor),
            n_models=self.n_models,
            n_instructions=self.n_instructions,
            inst=self.inst[s],
            model=self.model[s],
            order=self.order[s],
            total=self.total[s],
            calls=self.calls[s],
        )


@dataclass(frozen=True)
class AnchorEntries:
    """The entries against one reference model (see :class:`AgainstVerdicts`)."""

    anchor: int
    n_models: int
    n_instructions: int
    inst: np.ndarray
    model: np.ndarray
    order: np.ndarray
    total: np.ndarray
    calls: np.ndarray

    def __len__(self) -> int:
        return int(self.inst.size)

    def select(self, keep: np.ndarray) -> AnchorEntries:
        return AnchorEntries(
            self.anchor,
            self.n_models,
            self.n_instructions,
            self.inst[keep],
            self.model[keep],
            self.order[keep],
            self.total[keep],
            self.calls[keep],
        )

    def pooled_orders(self) -> AnchorEntries:
        """One entry per (instruction, model): both slot orders (and repeats) summed, so
        total / calls is the mean of all the model's calls against the reference."""
        if not len(self):
            return self
        key = self.inst * self.n_models + self.model
        first = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])  # entries are sorted by key
        return AnchorEntries(
            self.anchor,
            self.n_models,
            self.n_instructions,
            self.inst[first],
            self.model[first],
            np.full(first.size, -1, dtype=np.int64),
            np.add.reduceat(self.total, first),
            np.add.reduceat(self.calls, first),
        )

    def per_order(self) -> AnchorEntries:
        """Each model's verdict in each slot order: a model judged in one order only gets a copy
        of that verdict in the other order (see :func:`disagreements_per_instruction`)."""
        if not len(self):
            return self
        key = self.inst * self.n_models + self.model  # sorted; one or two entries per key
        new = np.r_[True, key[1:] != key[:-1]]
        single = new & np.r_[new[1:], True]
        return AnchorEntries(
            self.anchor,
            self.n_models,
            self.n_instructions,
            np.concatenate([self.inst, self.inst[single]]),
            np.concatenate([self.model, self.model[single]]),
            np.concatenate([self.order, 1 - self.order[single]]),
            np.concatenate([self.total, self.total[single]]),
            np.concatenate([self.calls, self.calls[single]]),
        )

    def mean(self) -> np.ndarray:
        """The mean verdict of each entry, total / calls."""
        return self.total / self.calls

    def dense(self) -> tuple[np.ndarray, np.ndarray]:
        """(I, M) summed verdicts and calls (both orders pooled), for one reference only."""
        e = self.pooled_orders()
        total = np.zeros((self.n_instructions, self.n_models), dtype=np.int64)
        calls = np.zeros((self.n_instructions, self.n_models), dtype=np.int64)
        total[e.inst, e.model] = e.total
        calls[e.inst, e.model] = e.calls
        return total, calls


def verdicts_against(counts: VerdictCounts, *, only: int | None = None) -> AgainstVerdicts:
    """Every model's verdicts against every possible reference, from the model's point of view.

    Each judged cell (instruction, slot-A model a, slot-B model b) gives two entries: a against
    the reference b (slot A's verdicts as they are, order 0) and b against the reference a (the
    verdicts negated, order 1). Memory is two entries per cell.

    Parameters
    ----------
    counts : VerdictCounts
        The sparse counts of one judge.
    only : int, optional
        Build the entries against this reference (model index) only: cost ∝ its cells.

    Returns
    -------
    AgainstVerdicts
        Entries sorted by (reference, instruction, model, order); ``.of(x)`` selects one
        reference.

    Examples
    --------
    >>> c = VerdictCounts.from_cells(models=("a", "x"), instructions=("q",), judge=None,
    ...     inst=[0, 0], a=[0, 1], b=[1, 0], n=[[0, 0, 0, 0, 1], [0, 1, 0, 0, 0]])
    >>> e = verdicts_against(c).of(1)  # model "a" against the reference "x"
    >>> e.total.tolist(), e.order.tolist()  # +2 in the first slot, +1 in the second
    ([2, 1], [0, 1])
    """
    m, n_inst = counts.n_models, counts.n_instructions
    keep = slice(None) if only is None else counts.involving(only)
    # per cell, the summed verdict and the calls (whole numbers, summed exactly; a lookup where
    # every cell is one call, with no (cells × levels) copy)
    score = counts.cell_scores(np.asarray(LEVELS, dtype=np.float64))[keep].astype(np.int64)
    calls = counts.cell_scores(np.ones(len(LEVELS)))[keep].astype(np.int64)
    a = counts.a[keep].astype(np.int64)
    b = counts.b[keep].astype(np.int64)
    inst = counts.inst[keep].astype(np.int64)
    # entry e < k is cell e from slot A's side (order 0), entry k + e cell e from slot B's
    k = inst.size
    entry = _entry_order(inst, a, b, m)
    if only is not None:  # the entries whose reference is ``only``, in the same order
        side_b = entry >= k
        of = entry - k * side_b
        entry = entry[np.where(side_b, a[of], b[of]) == only]
    second = entry >= k
    cell = entry - k * second
    ca, cb, s = a[cell], b[cell], score[cell]
    opponent = np.where(second, ca, cb)
    model = np.where(second, cb, ca)
    order = second.astype(np.int64)
    total = np.where(second, -s, s)
    inst2, calls2 = inst[cell], calls[cell]
    starts = np.searchsorted(opponent, np.arange(m + 1))
    return AgainstVerdicts(
        n_models=m,
        n_instructions=n_inst,
        opponent=opponent,
        inst=inst2,
        model=model,
        order=order,
        total=total,
        calls=calls2,
        starts=starts,
    )


def shared_against(counts: VerdictCounts, against: AgainstVerdicts | None = None) -> AgainstVerdicts:
    """The verdicts against every reference of ``counts``: ``against`` when a caller already built
    them (:func:`verdicts_against` of these counts, shared by the analyses that read them: the
    anchor sweep and the detectable edges on the Overview build the same table), else built here.

    The table is built from the counts alone, so a shared one is the very same quantity; one of
    another shape (other models or instructions) is refused.
    """
    if against is None:
        return verdicts_against(counts)
    if (against.n_models, against.n_instructions) != (counts.n_models, counts.n_instructions):
        from evalcore.errors import UsageError

        raise UsageError(
            "the verdicts against each reference were built from other counts "
            f"({against.n_models} models, {against.n_instructions} instructions, not "
            f"{counts.n_models} and {counts.n_instructions})."
        )
    return against


def _entry_order(inst: np.ndarray, a: np.ndarray, b: np.ndarray, m: int) -> np.ndarray:
    """The entries (``e < k``: cell e from slot A's side; ``k + e``: from slot B's) in order of
    (reference, instruction, model, order), each key unique: the two sides of each cell side by
    side are sorted by (instruction, model, order) first (nearly sorted already, as the cells
    are sorted by instruction: a merge sort finds the runs), then by reference in a stable sort
    of small integers (a radix sort). The same order as sorting the whole key at once, without a
    full sort of every entry by reference."""
    k = inst.size
    small = np.uint16 if m <= np.iinfo(np.uint16).max + 1 else np.int64
    if k > 1 and bool((inst[1:] > inst[:-1]).all()):
        # one cell to an instruction (an arena's battles): each (reference, instruction) holds one
        # entry, so the entries side by side in cell order need only the stable sort by reference
        reference = np.empty(2 * k, dtype=small)
        reference[0::2], reference[1::2] = b, a
        side = np.argsort(reference, kind="stable")
        return (side >> 1) + k * (side & 1)
    within = np.empty(2 * k, dtype=np.int64)
    within[0::2] = (inst * m + a) * 2
    within[1::2] = (inst * m + b) * 2 + 1
    first = np.argsort(within, kind="stable")
    cell, second = first >> 1, (first & 1).astype(bool)
    reference = np.where(second, a[cell], b[cell]).astype(small)
    by_reference = np.argsort(reference, kind="stable")
    return (cell + k * second)[by_reference]


def _choose2(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.int64)
    return x * (x - 1) // 2


def _reduced(total: np.ndarray, calls: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """total / calls as a reduced fraction, so equal means compare exactly as integers."""
    g = np.gcd(total, calls)
    g = np.where(g == 0, 1, g)
    return total // g, calls // g


def disagreements(
    group: np.ndarray, total: np.ndarray, calls: np.ndarray, n_groups: int
) -> tuple[np.ndarray, np.ndarray]:
    """(differ, pairs) per group, (n_groups,) each, for models compared within a group.

    Each entry is one model's summed verdict ``total`` over ``calls`` calls in group ``group``
    (e.g. one instruction and slot order). Pairs of entries in a group are compared by their
    mean verdicts, exactly (as reduced fractions): C(k, 2) pairs for k entries, minus the pairs
    with the same mean.
    """
    group = np.asarray(group, dtype=np.int64)
    if not group.size:
        z = np.zeros(n_groups, dtype=np.int64)
        return z, z.copy()
    pairs = _choose2(np.bincount(group, minlength=n_groups))
    num, den = _reduced(np.asarray(total, np.int64), np.asarray(calls, np.int64))
    sort = np.lexsort((den, num, group))
    g, nu, de = group[sort], num[sort], den[sort]
    head = np.r_[True, (g[1:] != g[:-1]) | (nu[1:] != nu[:-1]) | (de[1:] != de[:-1])]
    heads = np.flatnonzero(head)
    sizes = np.diff(np.r_[heads, g.size])
    same = np.bincount(g[heads], weights=_choose2(sizes), minlength=n_groups)
    return pairs - np.rint(same).astype(np.int64), pairs


def disagreement_totals(entries: AnchorEntries, *, per_order: bool = True) -> tuple[int, int]:
    """(differ, pairs) summed over instructions, as :func:`disagreements_per_instruction` but
    without per-instruction arrays (cost ∝ the reference's entries, not the instructions)."""
    if len(entries) < 2:
        return 0, 0
    # Entries are sorted by (inst, model): no instruction with two models means no pair.
    inst, model = entries.inst, entries.model
    if not ((inst[1:] == inst[:-1]) & (model[1:] != model[:-1])).any():
        return 0, 0
    e = entries.per_order() if per_order else entries.pooled_orders()
    group = e.inst * 2 + np.maximum(e.order, 0)
    num, den = _reduced(e.total, e.calls)
    sort = np.lexsort((den, num, group))
    g, nu, de = group[sort], num[sort], den[sort]
    g_head = np.r_[True, g[1:] != g[:-1]]
    v_head = g_head | np.r_[False, (nu[1:] != nu[:-1]) | (de[1:] != de[:-1])]
    g_sizes = np.diff(np.r_[np.flatnonzero(g_head), g.size])
    v_sizes = np.diff(np.r_[np.flatnonzero(v_head), g.size])
    pairs = int(_choose2(g_sizes).sum())
    return pairs - int(_choose2(v_sizes).sum()), pairs


def disagreements_per_instruction(
    entries: AnchorEntries, *, per_order: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """(differ, pairs) per instruction, (I,) each: model pairs judged against the reference on
    the instruction, and those whose verdicts differ (compared exactly as fractions), summed
    over the two slot orders.

    ``per_order=True`` compares two models within one slot order: in order o a model's verdict
    is the mean of its calls in slot o, or, when it was judged in the other slot only, that
    single-order verdict (so a table with one order per pair compares every model's one
    verdict, whatever its slot, and counts each pair twice, which leaves every ratio as it
    was). A model judged in both orders is never averaged across them: averaging two calls
    turns five levels into nine and counts position noise as information. ``False`` compares
    each model's mean over all its calls on the instruction (the both-orders verdict), once.
    """
    if not per_order:
        e = entries.pooled_orders()
        return disagreements(e.inst, e.total, e.calls, e.n_instructions)
    e = entries.per_order()
    n_inst = e.n_instructions
    inst, order, total, calls = e.inst, e.order, e.total, e.calls
    differ, pairs = disagreements(inst * 2 + order, total, calls, 2 * n_inst)
    return differ.reshape(n_inst, 2).sum(axis=1), pairs.reshape(n_inst, 2).sum(axis=1)


def both_orders_share(counts: VerdictCounts) -> float:
    """Share of judged (instruction, ordered pair) cells whose reverse order was judged too."""
    if counts.n_cells == 0:
        return 0.0
    m = counts.n_models
    inst = counts.inst.astype(np.int64)
    key = (inst * m + counts.a) * m + counts.b  # ascending: cells are sorted by (inst, a, b)
    rev = (inst * m + counts.b) * m + counts.a
    at = np.minimum(np.searchsorted(key, rev), key.size - 1)
    return float((key[at] == rev).sum() / counts.n_cells)


def orders_per_pair(counts: VerdictCounts) -> int:
    """2 when most judged pairs were judged in both slot orders, else 1 (for costing designs).

    Examples
    --------
    >>> c = VerdictCounts.from_cells(models=("a", "b"), instructions=("q",), judge=None,
    ...     inst=[0, 0], a=[0, 1], b=[1, 0], n=[[0, 0, 1, 0, 0]] * 2)
    >>> orders_per_pair(c)
    2
    """
    return 2 if both_orders_share(counts) >= 0.5 else 1


def max_models_per_instruction(entries: AnchorEntries) -> int:
    """The most models judged against the reference on any one instruction (0 when none)."""
    if not len(entries):
        return 0
    e = entries.pooled_orders()
    return int(np.bincount(e.inst, minlength=e.n_instructions).max())
