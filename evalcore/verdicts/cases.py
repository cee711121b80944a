"""The verdicts behind every number: filters, cases and pages of cases.

A **case** is one judge, one instruction and one unordered pair of models: every call the judge
made on that pair for that instruction, both slot orders together, with the prompt, the two
answers and the judge's own text when the table carries them. The store
(:meth:`evalcore.store.store.VerdictStore.verdicts`) finds the cases in DuckDB and returns one page of
them; only that page ever reaches Python.

Definitions (one place each, shared with the aggregates):

- **The two orders disagree** (``flipped``): the case was judged in both slot orders and some call
  of one order and some call of the other, read from the same model's side, name different
  outcomes (a different winner, or a winner against a tie). This is the event the flip rate counts
  (:mod:`evalcore.judge.both_orders`: flip rate = 1 − share of pairings naming the same outcome);
  a case is flipped when at least one of its pairings flips.
- **Disagrees with the human label**: some call of the case has both a verdict and a human label,
  and the two name different outcomes (win, tie or loss from slot A's side), the per-call reading
  of :mod:`evalcore.judge.agreement`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Literal, cast, get_args

from evalcore.errors import UsageError
from evalcore.text import fmt_count

VerdictKind = Literal["first", "second", "tie", "none"]
VERDICT_KINDS: tuple[str, ...] = get_args(VerdictKind)

#: URL query parameter of each filter field (short, stable: links carry them).
_PARAM = {
    "judge": "judge",
    "model_a": "a",
    "model_b": "b",
    "instruction": "instruction",
    "category": "category",
    "verdict": "verdict",
    "flipped": "flipped",
    "disagrees_with_human": "human",
    "search": "q",
    "beats_all": "beats",
    "win_disagrees": "win",
    "unit": "unit",
}
UnitKind = Literal["call", "both"]
UNIT_KINDS: tuple[str, ...] = get_args(UnitKind)
#: The longest free-text search accepted (a search is a substring, not a document).
MAX_SEARCH = 1_000


def _text_option(name: str, value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise UsageError(f"{name} must be text or None, not {type(value).__name__}.")
    return value if value != "" else None


@dataclass(frozen=True, kw_only=True)
class VerdictFilter:
    """Which cases to show. Every field left at its default shows every case.

    Parameters
    ----------
    judge, instruction, category : str, optional
        Exact names (``instruction`` is the ``instruction_id``).
    model_a, model_b : str, optional
        Both given: the unordered pair {model_a, model_b}, either slot order. One given: every
        case involving that model.
    verdict : {"first", "second", "tie", "none"}, optional
        Cases where some call preferred the first slot, the second slot, called a tie, or
        returned no verdict.
    flipped : bool, default False
        Only cases whose two orders disagree (the module's definition).
    disagrees_with_human : bool, default False
        Only cases where the judge's outcome differs from the human label.
    search : str, optional
        Case-insensitive substring of the prompt, either answer or the judge's output
        (``%``, ``_`` and quotes are plain characters).
    beats_all : str, optional
        Only that model's cases on the instructions where it beat every model it met: each
        opponent's mean verdict against it (all calls, both slots) is a loss, the count
        :func:`evalcore.anchors.win_rate_distribution` reports as ``anchor_beats_all``.
    win_disagrees : str, optional
        Only the cases of that model holding a labelled unit where the judge and the human
        disagree on whether it won (judge win and human not, or the other way round): the
        disagreements a calibration counts (:func:`evalcore.calibration.calibrate`, 1 − Se and
        1 − Sp), in its units (``unit``).
    unit : {"call", "both"}, optional
        The units of ``win_disagrees``: each judge call (the default), or the both-orders verdict
        of an (instruction, opponent) judged exactly once in each order (one case each).

    Examples
    --------
    >>> f = VerdictFilter(model_a="x", model_b="y", flipped=True)
    >>> f.as_params()
    {'a': 'x', 'b': 'y', 'flipped': '1'}
    >>> VerdictFilter.from_params(f.as_params()) == f
    True
    """

    judge: str | None = None
    model_a: str | None = None
    model_b: str | None = None
    instruction: str | None = None
    category: str | None = None
    verdict: VerdictKind | None = None
    flipped: bool = False
    disagrees_with_human: bool = False
    search: str | None = None
    beats_all: str | None = None
    win_disagrees: str | None = None
    unit: UnitKind | None = None

    def __post_init__(self) -> None:
        names = (
            "judge",
            "model_a",
            "model_b",
            "instruction",
            "category",
            "search",
            "beats_all",
            "win_disagrees",
        )
        for name in names:
            object.__setattr__(self, name, _text_option(name, getattr(self, name)))
        if self.verdict is not None and self.verdict not in VERDICT_KINDS:
            raise UsageError(f"verdict must be one of {', '.join(VERDICT_KINDS)}; got {self.verdict!r}.")
        if self.unit is not None and self.unit not in UNIT_KINDS:
            raise UsageError(f"unit must be one of {', '.join(UNIT_KINDS)}; got {self.unit!r}.")
        for name in ("flipped", "disagrees_with_human"):
            if not isinstance(getattr(self, name), bool):
                raise UsageError(f"{name} must be True or False, not {getattr(self, name)!r}.")
        if self.search is not None and len(self.search) > MAX_SEARCH:
            raise UsageError(f"search must be at most {MAX_SEARCH:,} characters; got {len(self.search):,}.")

    @property
    def is_empty(self) -> bool:
        """True when the filter keeps every case."""
        return self == VerdictFilter()

    def as_params(self) -> dict[str, str]:
        """The filter as URL query parameters (only the fields that are set)."""
        out: dict[str, str] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None or value is False:
                continue
            if f.name == "disagrees_with_human":
                out[_PARAM[f.name]] = "disagrees"
            elif value is True:
                out[_PARAM[f.name]] = "1"
            else:
                out[_PARAM[f.name]] = str(value)
        return out

    @classmethod
    def from_params(cls, params: Mapping[str, str]) -> VerdictFilter:
        """The inverse of :meth:`as_params`; an unknown parameter or value raises
        :class:`~evalcore.errors.UsageError` naming it."""
        by_param = {p: name for name, p in _PARAM.items()}
        values: dict[str, Any] = {}
        for key, raw in params.items():
            name = by_param.get(key)
            if name is None:
                raise UsageError(
                    f"unknown verdict filter parameter {key!r}; known: {', '.join(_PARAM.values())}."
                )
            if isinstance(raw, (list, tuple)):  # a repeated query parameter: the last one wins
                raw = raw[-1] if raw else ""
            text = str(raw)
            if name == "flipped":
                if text not in ("1", "0", "true", "false", ""):
                    raise UsageError(f"parameter 'flipped' must be 1 or 0; got {text!r}.")
                values[name] = text in ("1", "true")
            elif name == "disagrees_with_human":
                if text not in ("disagrees", ""):
                    raise UsageError(f"parameter 'human' must be 'disagrees'; got {text!r}.")
                values[name] = text == "disagrees"
            elif name == "unit":
                if text not in (*UNIT_KINDS, ""):
                    raise UsageError(
                        f"parameter 'unit' must be one of {', '.join(UNIT_KINDS)}; got {text!r}."
                    )
                values[name] = text or None
            elif name == "verdict":
                if text not in (*VERDICT_KINDS, ""):
                    raise UsageError(
                        f"parameter 'verdict' must be one of {', '.join(VERDICT_KINDS)}; got {text!r}."
                    )
                values[name] = text or None
            else:
                values[name] = text or None
        return cls(**values)


@dataclass(frozen=True)
class VerdictCall:
    """One judge call of a case: the row of the table it came from, its slot order, its
    verdict (−2..+2, slot A's side; None when the call returned no verdict) and its text."""

    row: int
    model_a: str
    model_b: str
    verdict: int | None
    judge_output: str | None = None
    call_id: str | None = None
    judged_at: str | None = None
    human: int | None = None  # the row's own human label, slot A's side

    def as_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class VerdictCase:
    """One judge, one instruction, one unordered pair: its calls in both orders and the text.

    ``models`` is in the slot order of the first call; ``answers`` maps each model to its answer
    (None when the table does not carry it); ``human`` is the first human label of the case,
    read from ``models[0]``'s side; ``agrees_with_human`` is None when no call has both a verdict
    and a label.
    """

    judge: str
    instruction: str
    category: str | None
    models: tuple[str, str]
    prompt: str | None
    answers: dict[str, str | None]
    calls: tuple[VerdictCall, ...]
    human: int | None
    flipped: bool
    agrees_with_human: bool | None

    def __repr__(self) -> str:
        return (
            f"VerdictCase({self.judge!r}, {self.instruction!r}, {self.models[0]!r} vs "
            f"{self.models[1]!r}, {fmt_count(len(self.calls), 'call')})"
        )

    def as_dict(self) -> dict:
        return {
            "judge": self.judge,
            "instruction": self.instruction,
            "category": self.category,
            "models": list(self.models),
            "prompt": self.prompt,
            "answers": dict(self.answers),
            "calls": [c.as_dict() for c in self.calls],
            "human": self.human,
            "flipped": self.flipped,
            "agrees_with_human": self.agrees_with_human,
        }


@dataclass(frozen=True)
class VerdictPage:
    """One page of cases: ``cases[0]`` is case number ``offset`` (0-based) of ``total``."""

    cases: tuple[VerdictCase, ...]
    total: int
    offset: int
    limit: int
    has_text: bool
    filter: VerdictFilter = field(default_factory=VerdictFilter)

    def __repr__(self) -> str:
        return f"VerdictPage({len(self.cases)} of {fmt_count(self.total, 'case')} from {self.offset:,})"

    def as_dict(self) -> dict:
        return {
            "total": self.total,
            "offset": self.offset,
            "limit": self.limit,
            "has_text": self.has_text,
            "filter": self.filter.as_params(),
            "cases": [c.as_dict() for c in self.cases],
        }


def as_filter(value: VerdictFilter | Mapping[str, str] | None) -> VerdictFilter:
    """A filter from a filter, URL parameters or None (every case)."""
    if value is None:
        return VerdictFilter()
    if isinstance(value, VerdictFilter):
        return value
    if isinstance(value, Mapping):
        return VerdictFilter.from_params(cast(Mapping[str, str], value))
    raise UsageError(f"filter must be a VerdictFilter, not {type(value).__name__}.")


@dataclass(frozen=True)
class CaseStats:
    """What the cases matching a filter hold: ``cases``, distinct ``instructions``, judge
    ``calls`` and those with a verdict (``verdicts``); from ``model_a``'s side (the filter's
    first model), its ``wins``, ``ties`` and ``losses`` in those calls (self-comparisons left
    out); ``win_calls``: calls where the judge and the human disagree on whether the filter's
    ``win_disagrees`` model won; ``flipped``: cases whose two orders disagree."""

    cases: int
    instructions: int
    calls: int
    verdicts: int
    wins: int
    ties: int
    losses: int
    win_calls: int
    flipped: int
