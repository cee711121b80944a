"""What every command shares: loading a file into a store, picking a judge, printing results."""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from evalcore import errors
from evalcore.store.store import VerdictStore


class UsageError(errors.UsageError):
    """Input the command cannot work with; the message is shown as one line, exit code 2."""


def printable(text: object) -> str:
    """``text`` safe to print: a file name that is not UTF-8 (undecodable bytes kept by Python as
    surrogates) is shown with U+FFFD in place of those bytes instead of failing to print."""
    return str(text).encode("utf-8", "surrogateescape").decode("utf-8", "replace")


#: The options several commands share, declared once: a name -> (flags, argparse keywords). A
#: command lists them by name in its :class:`Command` (with its own default or help if it needs
#: one); ``tests/test_layout.py`` checks that no command declares one of these flags itself.
SHARED: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
    "file": (
        ("file",),
        {
            "help": "a verdict table (CSV, CSV.gz, Parquet, JSONL), a counts table, a folder or glob of "
            "Parquet verdict files, or a native Arena-Hard-Auto / AlpacaEval / MT-Bench / Chatbot Arena file"
        },
    ),
    "judge": (
        ("--judge",),
        {
            "default": None,
            "help": "the judge to analyse (default: the only judge, or the first, named on stderr); "
            "rank also takes all: every judge pooled, each weighted by its estimated reliability",
        },
    ),
    "category": (("--category",), {"default": None, "help": "only rows of this category"}),
    "seed": (("--seed",), {"type": int, "default": 0, "help": "bootstrap seed (default 0)"}),
    "bootstrap": (("--bootstrap",), {"type": int}),
    "alpha": (("--alpha",), {"type": float, "default": 0.05, "help": "significance level (default 0.05)"}),
    "power": (("--power",), {"type": float, "default": 0.8, "help": "target power (default 0.8)"}),
    "two_sided": (("--two-sided",), {"action": "store_true", "help": "two-sided tests"}),
    "price_per_call": (("--price-per-call",), {"type": float, "default": None}),
    "a": (("--a",), {"metavar": "MODEL", "help": "the first model"}),
    "b": (("--b",), {"metavar": "MODEL", "help": "the second model"}),
    "candidate": (("--candidate",), {"default": None}),
    "human_ranking": (("--human-ranking",), {"default": None, "metavar": "FILE"}),
    "families": (("--families",), {"default": None}),
    "json": (("--json",), {"action": "store_true", "help": "print machine-readable JSON"}),
}

#: What most analysis commands take first: the file, the judge and the category.
SELECTION = ("file", "judge", "category")

Option = str | tuple[tuple[str, ...], dict[str, Any]]


def opt(*flags: str, **keywords: Any) -> tuple[tuple[str, ...], dict[str, Any]]:
    """One option of a command: its flags and argparse keywords; ``opt("seed", help=…)`` is a
    shared option (:data:`SHARED`) with some keywords of this command's own."""
    if len(flags) == 1 and flags[0] in SHARED:
        shared_flags, shared = SHARED[flags[0]]
        return shared_flags, {**shared, **keywords}
    return flags, keywords


@dataclass(frozen=True)
class Command:
    """One command of the table: its name, one line of help, what it runs, and its options in
    help order (names of :data:`SHARED` options or :func:`opt`); ``--json`` comes last unless
    ``json`` is False."""

    name: str
    help: str
    run: Callable[[argparse.Namespace], int]
    options: tuple[Option, ...] = ()
    json: bool = True

    def declare(self, sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
        parser = sub.add_parser(self.name, help=self.help)
        for item in (*self.options, *(("json",) if self.json else ())):
            flags, keywords = opt(item) if isinstance(item, str) else item
            parser.add_argument(*flags, **keywords)
        parser.set_defaults(handler=self.run)
        return parser


def given(args: argparse.Namespace, *names: str) -> dict[str, Any]:
    """The options ``names`` as the library's keywords of the same names (``--max-drop`` is
    ``max_drop``): ``calibrate(store, **given(args, "rounds", "seed"))``."""
    return {name: getattr(args, name) for name in names}


def load_store(path: str, *, text: bool = False) -> VerdictStore:
    """Read, validate and load a file; errors propagate as VerdictFormatError (exit 2).

    The prompts, answers and judge outputs are loaded only for a command that reads them
    (``text=True``): copying a demo's 150 MB of text to disk took a ranking 1.5 s longer."""
    if not path:
        raise UsageError("no file given")
    store = VerdictStore()
    store.load_file(path, name=display_name(path), text=text)
    return store


def same_file(output: str | Path, given: str | Path) -> bool:
    """Whether writing ``output`` would overwrite the file ``given`` (the same file under another
    name too: a link, ``./x.csv``, a folder's ``..``)."""
    target, source = Path(output), Path(given)
    try:
        if target.exists() and source.exists():
            return target.samefile(source)
        return target.resolve() == source.resolve()
    except OSError:  # a path that cannot be looked at cannot be the same file as the output
        return False


def display_name(path: str) -> str:
    """The file's name as text: bytes of a name that is not UTF-8 become U+FFFD (the file itself
    is opened by its real path)."""
    return printable(Path(path).name)


def pick_category(store: VerdictStore, category: str | None) -> str | None:
    """``category`` if the file has it (None for all rows), else a UsageError listing them."""
    if category is not None and category not in store.categories():
        have = store.categories()
        raise UsageError(
            f"category {category!r} is not in the file; its categories are: "
            + (", ".join(have) if have else "none (the file has no category column)")
        )
    return category


def pick_judge(store: VerdictStore, judge: str | None) -> str:
    judges = store.judges()
    if judge is None and len(judges) == 1:
        return judges[0]  # the file's only judge (publishing_judge's choice too, without its counts)
    if judge is None:
        from evalcore.judge_choice import publishing_judge

        choice = publishing_judge(store)  # the app's and the report's default too
        if len(judges) > 1:
            # The choice is the command's, not the user's: say it in words (stderr, so --json stays
            # clean), or a second judge's figures could be read as the first's.
            print(f"note: {choice.reason} Pass --judge to choose another.", file=sys.stderr)
        return choice.judge
    if judge not in judges:
        raise UsageError(f"judge {judge!r} is not in the file; its judges are: " + ", ".join(judges))
    return judge


@dataclass(frozen=True)
class Selection:
    """What a command analyses: the loaded store, the judge and the category (None: all rows)."""

    store: VerdictStore
    judge: str
    category: str | None

    def counts(self) -> Any:
        """The selection's verdict counts."""
        return self.store.counts(judge=self.judge, category=self.category)


def select(args: argparse.Namespace, *, text: bool = False, store: VerdictStore | None = None) -> Selection:
    """The one selection preamble: load ``args.file`` (unless ``store`` is that file loaded), then
    check the judge and the category against the file (a UsageError naming what the file has
    otherwise: exit 2; a ``note:`` on stderr when the command chose the judge)."""
    store = store if store is not None else load_store(args.file, text=text)
    judge = pick_judge(store, args.judge)
    return Selection(store, judge, pick_category(store, getattr(args, "category", None)))


def _plain(value: Any) -> Any:
    """JSON-safe: numpy scalars to Python, NaN/inf to null."""
    # pandas only if something imported it (`rank --json` never does): else no value is a frame
    pandas = sys.modules.get("pandas")
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if pandas is not None and isinstance(value, pandas.DataFrame):
        return _plain(value.to_dict(orient="records"))
    if isinstance(value, np.ndarray):
        return _plain(value.tolist())
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating, float)):
        f = float(value)
        return None if math.isnan(f) or math.isinf(f) else f
    if isinstance(value, np.bool_):
        return bool(value)
    if pandas is not None and value is pandas.NA:
        return None
    return value


def print_json(payload: dict, code: int = 0) -> int:
    """``payload`` as JSON on stdout; returns ``code`` (the command's exit code)."""
    print(dumps(payload))
    return code


def dumps(payload: Any) -> str:
    """``json.dumps(_plain(payload), indent=2, ensure_ascii=False)``, the same text, faster for
    the tables of rows a result holds: a list of flat records is written column by column (each
    column's values encoded in one pass), where the standard library's indented encoder visits
    every value through Python generators (the 2,000-model leaderboard's 900 KB: 17 ms against
    35 ms). Anything it does not know takes the standard encoder."""
    try:
        return _encode(payload, "\n")
    except _Unknown:
        return json.dumps(_plain(payload), indent=2, ensure_ascii=False)


class _Unknown(Exception):
    """A value :func:`_encode` leaves to the standard encoder."""


_ENCODE_STRING = json.encoder.encode_basestring  # type: ignore[attr-defined]


def _scalar(value: Any) -> str:
    """One JSON value as ``_plain`` and the standard encoder would write it."""
    kind = type(value)
    if kind is str:
        return _ENCODE_STRING(value)
    if kind is float or kind is np.float64 or kind is np.float32:
        f = float(value)
        return "null" if f != f or f in (math.inf, -math.inf) else float.__repr__(f)
    if kind is bool or kind is np.bool_:
        return "true" if value else "false"
    if kind is int or isinstance(value, np.integer):
        return int.__repr__(int(value))
    if value is None:
        return "null"
    raise _Unknown


def _encode(value: Any, newline: str) -> str:
    """``value`` as indented JSON; ``newline`` is a line break and the current indentation."""
    kind = type(value)
    if kind is dict:
        if not value:
            return "{}"
        inner = newline + "  "
        parts = [_ENCODE_STRING(str(k)) + ": " + _encode(v, inner) for k, v in value.items()]
        return "{" + inner + ("," + inner).join(parts) + newline + "}"
    if kind is list or kind is tuple or kind is np.ndarray:
        if not len(value):
            return "[]"
        inner = newline + "  "
        if kind is not np.ndarray and type(value[0]) is dict:
            rows = _records(value, inner)
            if rows is not None:
                return "[" + inner + ("," + inner).join(rows) + newline + "]"
        items = value.tolist() if kind is np.ndarray else value
        return "[" + inner + ("," + inner).join(_encode(v, inner) for v in items) + newline + "]"
    return _scalar(value)


def _records(rows: list, newline: str) -> list[str] | None:
    """Flat records with the same keys (a table's rows) encoded column by column, or None."""
    keys = list(rows[0])
    if not keys or any(type(r) is not dict or list(r) != keys for r in rows):
        return None
    inner = newline + "  "
    columns = []
    for k in keys:
        values = [r[k] for r in rows]
        if any(type(v) in _NESTED for v in values):
            return None
        columns.append([inner + _ENCODE_STRING(str(k)) + ": " + text for text in map(_scalar, values)])
    return ["{" + ",".join(fields) + newline + "}" for fields in zip(*columns, strict=True)]


_NESTED = (dict, list, tuple, np.ndarray)


def print_notes(notes: Iterable[object]) -> None:
    """Each of ``notes`` as a line ``note: …`` on stderr (so --json stays clean)."""
    for note in notes:
        print(f"note: {note}", file=sys.stderr)


def report_unavailable(args: argparse.Namespace, exc: Exception) -> int:
    """An analysis the table's design cannot support: the reason in words (``--json``: as
    ``{"unavailable": reason}``), exit status 0 because the input is not at fault."""
    if getattr(args, "json", False):
        return print_json({"unavailable": str(exc)})
    print(f"not available: {exc}")
    return 0


def unmark(text: object) -> str:
    """A page's sentence as plain text: its Markdown bold, code spans and escapes and its word
    joiners removed."""
    from evalcore.text import plain

    text = re.sub(r"(`+) (.*?) \1", r"\2", plain(text).replace("**", ""))
    return re.sub(r"\\(.)", r"\1", text)


def show(*parts: object) -> None:
    """Print what the page shows, in its order: a display table (a frame of text from
    :mod:`evalcore.present`) as it is, whole numbers with a thousands separator; tiles (``Metric``) as ``label: value — help``; an alert
    (``Message``; a warning as ``warning: …``) or a sentence as plain text. None, empty texts
    and empty tables are skipped; a list is shown item by item."""
    import pandas as pd

    for part in parts:
        if part is None or (isinstance(part, str) and not part):
            continue
        if isinstance(part, pd.DataFrame):
            if len(part):
                whole = [c for c in part.columns if pd.api.types.is_integer_dtype(part[c])]
                as_text = {c: part[c].map(lambda v: "—" if pd.isna(v) else f"{v:,}") for c in whole}
                print(part.assign(**as_text).to_string(index=False))
        elif hasattr(part, "label") and hasattr(part, "value"):
            note = getattr(part, "note", "")
            print(f"{part.label}: {unmark(part.value)}" + (f" — {unmark(note)}" if note else ""))
        elif isinstance(part, list | tuple):
            show(*part)
        elif hasattr(part, "kind") and hasattr(part, "text"):
            lead = "warning: " if part.kind == "warning" else ""
            print(lead + unmark(part.text))
        else:
            print(unmark(part))


# -- ranges of the numeric options ---------------------------------------------------------------


@dataclass(frozen=True)
class Range:
    """The values a numeric option accepts, as an argparse ``type``: the text is parsed and
    checked before any work, and a value outside is refused with a message naming the option
    (argparse prefixes ``argument --name:``) and exit code 2.

    ``whole``: a whole number (``1e3`` is read as 1000; ``2.5`` is refused); ``low_open`` /
    ``high_open``: the bound itself is outside; ``unit`` names what the number counts.
    """

    low: float
    high: float
    whole: bool = False
    low_open: bool = False
    high_open: bool = False
    unit: str = ""

    def __call__(self, text: str) -> int | float:
        raw = str(text).strip().replace("_", "")
        try:
            value: int | float = int(raw) if self.whole and raw.lstrip("+-").isdigit() else float(raw)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number; {self.words()}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{text!r} is not a finite number; {self.words()}")
        if self.whole:
            if value != int(value):
                raise argparse.ArgumentTypeError(f"{text!r} is not a whole number; {self.words()}")
            value = int(value)
        below = value <= self.low if self.low_open else value < self.low
        above = value >= self.high if self.high_open else value > self.high
        if below or above:
            raise argparse.ArgumentTypeError(f"got {text}; {self.words()}")
        return value

    def words(self) -> str:
        """The range in words: ``must be a whole number from 1 to 500``."""

        def show(x: float) -> str:
            return f"{int(x):,}" if self.whole or float(x).is_integer() else f"{x:g}"

        what = "a whole number" if self.whole else "a number"
        if not (self.low_open or self.high_open):
            span = f"from {show(self.low)} to {show(self.high)}"
        else:
            low = f"above {show(self.low)}" if self.low_open else f"at least {show(self.low)}"
            high = f"below {show(self.high)}" if self.high_open else f"at most {show(self.high)}"
            span = f"{low} and {high}"
        unit = f" ({self.unit})" if self.unit else ""
        return f"must be {what} {span}{unit}"


def option_ranges() -> dict[str, Range]:
    """Every numeric option's range, by its argparse ``dest`` (the same meaning wherever the
    option appears); :func:`evalcore.cli.build_parser` sets them as the options' types, and a
    test checks that no numeric option is without one. The bounds are the library's own where
    it has them (so pages and the command line give the same limits)."""
    from evalcore import limits
    from evalcore.limits import MAX_LABELLED, MAX_OFFSET, MIN_INFORMATIVENESS

    share = Range(0.0, 1.0, low_open=True, high_open=True)
    return {
        "seed": Range(0, 2**32 - 1, whole=True),
        "bootstrap": Range(0, limits.MAX_ROUNDS, whole=True, unit="rounds"),
        "rounds": Range(0, limits.MAX_ROUNDS, whole=True, unit="rounds"),
        "simulations": Range(1, limits.MAX_SIMULATIONS, whole=True),
        "steps": Range(1, limits.MAX_GRID, whole=True),
        "max_n": Range(1, 10_000_000, whole=True, unit="samples"),
        "alpha": share,
        "power": share,
        "informativeness": Range(MIN_INFORMATIVENESS, 1.0),
        "offset": Range(0, MAX_OFFSET, whole=True, unit="cases"),
        "limit": Range(1, 500, whole=True, unit="cases"),
        "width": Range(10, 100_000, whole=True, unit="characters"),
        "labelled": Range(1, MAX_LABELLED, whole=True, unit="labelled pairs"),
        "max_labelled": Range(1, MAX_LABELLED, whole=True, unit="labelled pairs"),
        "min_labelled": Range(1, MAX_LABELLED, whole=True, unit="labelled pairs"),
        "youden": Range(-1.0, 1.0),
        "true_share": share,
        "target": Range(0.0, 50.0, low_open=True, unit="points"),
        "max_floor": Range(0.0, 50.0, low_open=True, unit="points"),
        "margin": Range(0.0, 0.5, high_open=True),
        "lam": Range(0.0, 1.0),
        "threshold": share,
        "max_drop": Range(1, 1_000_000_000, whole=True, unit="verdicts"),
        "max_anchors": Range(1, 100_000, whole=True, unit="anchors"),
        "exhaustive": Range(0, 1_000_000, whole=True, unit="refits"),
        "tuned_for": Range(1, 1_000_000_000, whole=True, unit="verdicts"),
        "min_verdicts": Range(1, 1_000_000_000, whole=True, unit="verdicts"),
        "windows": Range(2, 12, whole=True, unit="time windows"),
        "permutations": Range(1, 1_000_000, whole=True, unit="sign flips"),
        "budget": Range(0.0, 1e15, low_open=True, unit="money"),
        "price_per_call": Range(0.0, 1e9, low_open=True, unit="money"),
        "price_per_label": Range(0.0, 1e9, unit="money"),
        "models": Range(2, 1_000_000, whole=True, unit="models"),
        "orders": Range(1, 2, whole=True, unit="slot orders"),
        "price_in": Range(0.0, 1e9, unit="money per million tokens"),
        "price_out": Range(0.0, 1e9, unit="money per million tokens"),
    }


def apply_ranges(parser: argparse.ArgumentParser) -> None:
    """Give every numeric option of every command its :func:`option_ranges` type."""
    ranges = option_ranges()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                apply_ranges(sub)
        elif action.type in (int, float) and action.dest in ranges:
            action.type = ranges[action.dest]
