"""The verdict-table contract (``docs/data.md``) and its validation.

A verdict table has one row per judge call. This module maps every accepted verdict encoding
onto the integer scale −2..+2 (slot A's point of view), keeps calls that returned no verdict as
missing values (never imputed), and raises :class:`VerdictFormatError` with the file, the row
numbers and the offending values when a table breaks the contract.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from evalcore.errors import EvalcoreError
from evalcore.text import fmt_count

if TYPE_CHECKING:  # pandas is imported by the functions that make frames
    import pandas as pd

#: The verdict scale, slot A's point of view: +2 A much better … −2 B much better.
LEVELS: tuple[int, ...] = (-2, -1, 0, 1, 2)

REQUIRED_COLUMNS: tuple[str, ...] = ("instruction_id", "model_a", "model_b", "verdict")
#: Optional text of a call: the prompt, both answers (slot A's, slot B's), the judge's own output,
#: and the call's id and time as the tool wrote them. Kept verbatim (never trimmed or parsed) and
#: stored apart from the verdicts (:mod:`evalcore.store.verdicts`), so counting never reads them.
#: Optional resampling units: the call's session, voter or run, for intervals clustered by one
#: of them (``rank --cluster``). Kept verbatim with the text, like ``call_id`` and ``judged_at``.
UNIT_COLUMNS: tuple[str, ...] = ("session", "voter", "run")
TEXT_COLUMNS: tuple[str, ...] = (
    "prompt",
    "response_a",
    "response_b",
    "judge_output",
    "call_id",
    "judged_at",
    *UNIT_COLUMNS,
)
#: Optional yes/no marks of a call, kept with the verdicts only when a file carries them (NULL
#: elsewhere). ``both_bad``: the tie is a "both answers are bad" (Chatbot Arena's ``tie
#: (bothbad)``); every analysis still counts it as the tie it is, and its share is reported
#: (:mod:`evalcore.ties.both_bad`).
FLAG_COLUMNS: tuple[str, ...] = ("both_bad",)
OPTIONAL_COLUMNS: tuple[str, ...] = (
    "judge",
    "human",
    "length_a",
    "length_b",
    "category",
    *FLAG_COLUMNS,
    *TEXT_COLUMNS,
)

#: The columns of the canonical verdict frame every reader returns.
CANONICAL_COLUMNS: tuple[str, ...] = (
    "row",
    "instruction_id",
    "model_a",
    "model_b",
    "verdict",
    "judge",
    "human",
    "length_a",
    "length_b",
    "category",
)

DEFAULT_JUDGE = "judge"

#: Values that mean "the call returned no verdict" (kept and counted, never imputed).
NO_VERDICT_TOKENS: frozenset[str] = frozenset(
    {"", "na", "n/a", "nan", "none", "null", "error", "unparseable"}
)

#: Every label of the contract, lower-cased, with ``[[ ]]`` and surrounding spaces removed.
VERDICT_LABELS: dict[str, int] = {
    # Arena-Hard
    "a>>b": 2,
    "a>b": 1,
    "a=b": 0,
    "b>a": -1,
    "b>>a": -2,
    # MT-Bench pairwise
    "a": 1,
    "b": -1,
    "c": 0,
    "tie": 0,
    # Chatbot Arena battles
    "model_a": 1,
    "model_b": -1,
    "tie (bothbad)": 0,
    # a tie that says both answers are bad (the tie level, plus the both_bad mark)
    "both_bad": 0,
}
#: Verdict labels that are a tie and also mark the call ``both_bad``.
BOTH_BAD_LABELS: frozenset[str] = frozenset({"tie (bothbad)", "both_bad"})
#: How a ``both_bad`` cell may be written (lower-cased, trimmed); empty or a no-verdict token = unknown.
FLAG_TRUE: frozenset[str] = frozenset({"true", "t", "yes", "y", "1", "1.0"})
FLAG_FALSE: frozenset[str] = frozenset({"false", "f", "no", "n", "0", "0.0"})

_MAX_LISTED = 5
#: Characters of one value a message quotes: a 5 MB cell or JSON key is shown as its first
#: characters and its length, so a message stays one readable line.
MAX_QUOTED = 80


def quoted_excerpt(value: object, *, limit: int = MAX_QUOTED) -> str:
    """``value`` as a message quotes it (``repr``), at most ``limit`` characters of it.

    >>> quoted_excerpt("abc")
    "'abc'"
    >>> quoted_excerpt("x" * 100, limit=5)
    "'xxxxx…' (100 characters)"
    """
    text = str(value)
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit] + '…'!r} ({len(text):,} characters)"


def _format_rows(rows: list[int]) -> str:
    shown = ", ".join(str(r) for r in rows[:_MAX_LISTED])
    more = len(rows) - _MAX_LISTED
    return shown + (f" and {more} more" if more > 0 else "")


class VerdictFormatError(EvalcoreError, ValueError):
    """A table that breaks the contract: what, where (file, rows), which values, what to do.

    ``rows`` are 1-based data-row numbers (the header is not counted), the numbering a user
    sees when opening the file in a spreadsheet below its header line.
    """

    def __init__(
        self,
        file: str,
        problem: str,
        hint: str = "",
        rows: tuple[int, ...] = (),
        values: tuple[str, ...] = (),
    ) -> None:
        self.file = file
        self.problem = problem
        self.hint = hint
        self.rows = tuple(rows)
        self.values = tuple(values)
        super().__init__(str(self))

    def __str__(self) -> str:
        parts = [f"{self.file}: {self.problem}"]
        if self.rows:
            noun = "row" if len(self.rows) == 1 else "rows"
            parts.append(f"{noun} {_format_rows(list(self.rows))}")
        if self.values:
            shown = ", ".join(quoted_excerpt(v) for v in self.values[:_MAX_LISTED])
            more = len(self.values) - _MAX_LISTED
            parts.append(
                "value"
                + ("s " if len(self.values) > 1 else " ")
                + shown
                + (f" and {more} more" if more > 0 else "")
            )
        message = " — ".join(parts)
        return f"{message}. {self.hint}" if self.hint else message


def normalise_label(value: object) -> str:
    """Lower-case a label and strip surrounding spaces and ``[[ ]]`` (MT-Bench style)."""
    text = str(value).strip().lower()
    if text.startswith("[[") and text.endswith("]]"):
        text = text[2:-2].strip()
    return text


def _label_to_level(text: str) -> float | None:
    """The level of one normalised label, ``nan`` for no verdict, ``None`` if unknown."""
    if text in NO_VERDICT_TOKENS:
        return np.nan
    if text in VERDICT_LABELS:
        return float(VERDICT_LABELS[text])
    try:
        number = float(text)
    except ValueError:
        return None
    if np.isfinite(number) and number == round(number) and int(number) in LEVELS:
        return number
    return None


def parse_verdicts(values: pd.Series, *, column: str, file: str) -> pd.Series:
    """Map a column of verdicts (numbers or labels) to the −2..+2 scale.

    Returns a nullable ``Int8`` series; calls with no verdict are ``<NA>``. Unknown values raise
    :class:`VerdictFormatError` naming every offending row (1-based) and value, so a file with one
    typo among a million good rows is refused with the row to fix.
    """
    import pandas as pd

    if pd.api.types.is_numeric_dtype(values.dtype) and not pd.api.types.is_bool_dtype(values.dtype):
        numbers = pd.to_numeric(values, errors="coerce").astype("float64")
        finite = numbers.notna()
        bad = finite & ~numbers.isin([float(level) for level in LEVELS])
        levels = numbers
    else:
        # Factorise first: a million rows carry a handful of distinct labels.
        codes, uniques = pd.factorize(values.astype("string").fillna(""), use_na_sentinel=False)
        mapped = np.array([_label_to_level(normalise_label(u)) for u in uniques], dtype=object)
        unknown = np.array([m is None for m in mapped], dtype=bool)
        lookup = np.array([np.nan if m is None else m for m in mapped], dtype="float64")
        levels = pd.Series(lookup[codes], index=values.index)
        bad = pd.Series(unknown[codes], index=values.index)
    if bad.any():
        positions = np.flatnonzero(bad.to_numpy())
        offending = values.iloc[positions]
        distinct = tuple(dict.fromkeys(str(v) for v in offending))
        raise VerdictFormatError(
            file=file,
            problem=f"column '{column}' has {fmt_count(len(positions), 'value')} outside the verdict scale",
            rows=tuple(int(p) + 1 for p in positions),
            values=distinct,
            hint=(
                "Use −2..+2 (slot A's point of view), or a label of the verdict format "
                "(A>>B, A>B, A=B, B>A, B>>A; [[A]], [[B]], [[C]], tie; model_a, model_b, "
                "tie (bothbad), both_bad); leave the cell empty for a call that returned no verdict"
            ),
        )
    return levels.round().astype("Int8")


def _text_column(frame: pd.DataFrame, name: str, *, file: str, required: bool) -> pd.Series:
    column = frame[name]
    text = column.astype("string").str.strip()
    missing = text.isna() | (text == "")
    if required and missing.any():
        positions = np.flatnonzero(missing.to_numpy())
        raise VerdictFormatError(
            file=file,
            problem=f"column '{name}' is empty in {fmt_count(len(positions), 'row')}",
            rows=tuple(int(p) + 1 for p in positions),
            hint=f"Every row needs a value in '{name}'; fill it in or delete those rows",
        )
    return text


def _number_column(frame: pd.DataFrame, name: str, *, file: str) -> pd.Series:
    import pandas as pd

    raw = frame[name]
    if pd.api.types.is_numeric_dtype(raw.dtype) and not pd.api.types.is_bool_dtype(raw.dtype):
        return raw.astype("float64")
    import pyarrow as pa  # here, not at the top: the command line's rank never needs it
    import pyarrow.compute as pc

    try:  # fast path: Arrow's cast of clean numeric text
        text = pa.array(raw.astype("string").str.strip().replace("", None), type=pa.string())
        return pd.Series(
            pc.cast(text, pa.float64()).to_numpy(zero_copy_only=False), index=raw.index, dtype="float64"
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        pass
    numbers = pd.to_numeric(raw, errors="coerce")
    text = raw.astype("string").str.strip()
    bad = numbers.isna() & text.notna() & (text != "") & ~text.str.lower().isin(NO_VERDICT_TOKENS)
    if bad.any():
        positions = np.flatnonzero(bad.to_numpy())
        raise VerdictFormatError(
            file=file,
            problem=f"column '{name}' must hold numbers",
            rows=tuple(int(p) + 1 for p in positions),
            values=tuple(dict.fromkeys(str(v) for v in raw.iloc[positions])),
            hint=f"Write '{name}' as a number (characters or tokens), or leave it empty",
        )
    return numbers.astype("float64")


def validate_verdicts(frame: pd.DataFrame, *, file: str) -> pd.DataFrame:
    """Check a raw table against the contract and return the canonical verdict frame.

    The canonical frame has the columns of :data:`CANONICAL_COLUMNS`: ``row`` is the 1-based data
    row in the source, ``verdict`` and ``human`` are nullable ``Int8`` on −2..+2, text columns are
    strings with surrounding spaces removed, and a missing ``judge`` becomes ``"judge"``.
    Columns the contract does not know are dropped.
    """
    import pandas as pd

    if frame.shape[1] == 0 or (frame.shape[0] == 0 and not set(REQUIRED_COLUMNS) & set(frame.columns)):
        raise VerdictFormatError(
            file=file,
            problem="the file is empty",
            hint="Upload a table with a header line and at least one row: " + ", ".join(REQUIRED_COLUMNS),
        )
    names = [str(c).strip().lower() for c in frame.columns]
    known = set(REQUIRED_COLUMNS) | set(OPTIONAL_COLUMNS)
    # pandas renames a repeated header "verdict" to "verdict.1": both spellings mean a repeat.
    stems = [n.rsplit(".", 1)[0] if n.rsplit(".", 1)[-1].isdigit() else n for n in names]
    repeated = sorted({n for n in stems if n in known and stems.count(n) > 1})
    if repeated:
        raise VerdictFormatError(
            file=file,
            problem=f"{'column' if len(repeated) == 1 else 'columns'} named more than once in the header: "
            + ", ".join(repeated),
            values=tuple(str(c) for c in frame.columns),
            hint="Keep one column of each name (which one is meant cannot be guessed)",
        )
    frame = frame.set_axis(names, axis=1)
    missing = [c for c in REQUIRED_COLUMNS if c not in frame.columns]
    if missing:
        raise VerdictFormatError(
            file=file,
            problem=f"required {'column' if len(missing) == 1 else 'columns'} missing: " + ", ".join(missing),
            values=tuple(str(c) for c in frame.columns),
            hint="The header must name "
            + ", ".join(REQUIRED_COLUMNS)
            + " (the values listed are the columns found)",
        )
    if len(frame) == 0:
        raise VerdictFormatError(
            file=file,
            problem="the file has a header but no rows",
            hint="Add at least one judge call below the header",
        )
    frame = frame.reset_index(drop=True)
    out = pd.DataFrame({"row": np.arange(1, len(frame) + 1, dtype="int64")})
    for name in ("instruction_id", "model_a", "model_b"):
        out[name] = _text_column(frame, name, file=file, required=True)
    out["verdict"] = parse_verdicts(frame["verdict"], column="verdict", file=file)
    if "judge" in frame.columns:
        judge = _text_column(frame, "judge", file=file, required=False)
        out["judge"] = judge.mask(judge.isna() | (judge == ""), DEFAULT_JUDGE)
    else:
        out["judge"] = pd.Series(DEFAULT_JUDGE, index=out.index, dtype="string")
    if "human" in frame.columns:
        out["human"] = parse_verdicts(frame["human"], column="human", file=file)
    else:
        out["human"] = pd.Series(pd.NA, index=out.index, dtype="Int8")
    for name in ("length_a", "length_b"):
        if name in frame.columns:
            out[name] = _number_column(frame, name, file=file)
        else:
            out[name] = np.nan
    if "category" in frame.columns:
        category = _text_column(frame, "category", file=file, required=False)
        out["category"] = category.mask(category == "", pd.NA)
    else:
        out["category"] = pd.Series(pd.NA, index=out.index, dtype="string")
    flag = both_bad_flags(frame, out["verdict"], file=file)
    if flag is not None:
        out["both_bad"] = flag
        return out[[*CANONICAL_COLUMNS, "both_bad"]]
    return out[list(CANONICAL_COLUMNS)]


#: The message of a ``both_bad`` mark on a call that is not a tie (one wording for both checkers).
BOTH_BAD_NOT_TIE = (
    "column 'both_bad' marks {calls} whose verdict is not a tie",
    "'both bad' is a kind of tie: mark it only where the verdict is a tie (0, tie, A=B), or "
    "leave the cell empty",
)
BOTH_BAD_UNREADABLE = (
    "column 'both_bad' has {values} that are not yes or no",
    "Write 'both_bad' as true/false (or yes/no, 1/0), or leave it empty where it is not known",
)


def both_bad_flags(frame: pd.DataFrame, verdict: pd.Series, *, file: str) -> pd.Series | None:
    """The ``both_bad`` mark of each call (nullable boolean), or None when the table has none.

    A mark comes from a ``both_bad`` column (true/false, yes/no, 1/0; empty = not known) or,
    where that cell is empty, from the verdict's own label (``tie (bothbad)``, ``both_bad``: a
    tie marked both bad; any other verdict: not both bad, no verdict: not known). A table with
    neither has no mark (None): the share of both-bad ties is then not reported.
    """
    import pandas as pd

    labels = frame["verdict"].astype("string").fillna("").map(normalise_label)
    from_label = labels.isin(BOTH_BAD_LABELS)
    text = pd.Series("", index=frame.index, dtype="string")
    if "both_bad" in frame.columns:
        text = frame["both_bad"].astype("string").fillna("").str.strip().str.lower()
    has_column = bool((text != "").any())
    if not has_column and not from_label.any():
        return None
    flag = pd.Series(pd.NA, index=frame.index, dtype="boolean")
    if from_label.any():
        flag = flag.mask(verdict.notna(), from_label)
    if has_column:
        given = text.isin(FLAG_TRUE | FLAG_FALSE)
        unreadable = ~given & (text != "") & ~text.isin(NO_VERDICT_TOKENS)
        if unreadable.any():
            positions = np.flatnonzero(unreadable.to_numpy())
            raise VerdictFormatError(
                file=file,
                problem=BOTH_BAD_UNREADABLE[0].format(values=fmt_count(len(positions), "value")),
                rows=tuple(int(p) + 1 for p in positions),
                values=tuple(dict.fromkeys(str(v) for v in frame["both_bad"].iloc[positions])),
                hint=BOTH_BAD_UNREADABLE[1],
            )
        flag = flag.mask(given, text.isin(FLAG_TRUE))
    wrong = (flag.fillna(False) & verdict.ne(0).fillna(True)).to_numpy(dtype=bool)
    if wrong.any():
        positions = np.flatnonzero(wrong)
        raise VerdictFormatError(
            file=file,
            problem=BOTH_BAD_NOT_TIE[0].format(calls=fmt_count(len(positions), "call")),
            rows=tuple(int(p) + 1 for p in positions),
            hint=BOTH_BAD_NOT_TIE[1],
        )
    return flag.astype("boolean")


@dataclass(frozen=True)
class ValidationReport:
    """What loading found that is not an error but that a user should know."""

    rows: int
    no_verdict_rows: int
    self_comparison_rows: int
    duplicate_rows: tuple[int, ...]
    #: Names that differ only by characters that do not show, with their rows (one note each).
    name_notes: tuple[str, ...] = ()
    #: Every row is one call on an instruction of its own (an arena table: a prompt a battle), so
    #: every row is a cell of its own and the counts need no grouping. A fact the store uses, not
    #: a finding: known where the rows were checked one by one (the typed pass tells the store
    #: through its own flag), so it is left out of comparisons (one table, one report, whichever
    #: path read it).
    single_calls: bool = field(default=False, compare=False)

    @property
    def notes(self) -> tuple[str, ...]:
        notes = []
        if self.no_verdict_rows:
            notes.append(
                f"{fmt_count(self.no_verdict_rows, 'call')} returned no verdict: kept and counted in "
                "coverage, left out of win rates, never imputed."
            )
        if self.self_comparison_rows:
            notes.append(
                f"{fmt_count(self.self_comparison_rows, 'row')} "
                f"{'compares' if self.self_comparison_rows == 1 else 'compare'} a model with itself: kept apart "
                "(they measure self-comparison ties, not strength) and left out of rankings."
            )
        if self.duplicate_rows:
            one = len(self.duplicate_rows) == 1
            notes.append(
                f"{fmt_count(len(self.duplicate_rows), 'row')} {'repeats' if one else 'repeat'} an "
                f"earlier row exactly ({'row' if one else 'rows'} {_format_rows(list(self.duplicate_rows))}): "
                f"{'kept as a separate call; delete it' if one else 'kept as separate calls; delete them'} "
                f"from the file if {'it was' if one else 'they were'} written twice by mistake."
            )
        return tuple(notes) + tuple(self.name_notes)


def inspect_verdicts(frame: pd.DataFrame) -> ValidationReport:
    """Count no-verdict rows, self-comparisons and exact duplicates of a canonical frame."""
    body = frame.drop(columns=["row"])
    duplicated = body.duplicated(keep="first").to_numpy()
    return ValidationReport(
        rows=len(frame),
        no_verdict_rows=int(frame["verdict"].isna().sum()),
        self_comparison_rows=int((frame["model_a"] == frame["model_b"]).sum()),
        duplicate_rows=tuple(int(r) for r in frame["row"].to_numpy()[duplicated]),
    )


def canonical_dtypes(frame: pd.DataFrame) -> pd.DataFrame:
    """A canonical frame read back from DuckDB, with the dtypes :func:`validate_verdicts` gives."""
    out = frame.copy()
    out["row"] = out["row"].astype("int64")
    for column in ("instruction_id", "model_a", "model_b", "judge", "category"):
        out[column] = out[column].astype("string")
    for column in ("verdict", "human"):
        out[column] = out[column].astype("Int8")
    for column in ("length_a", "length_b"):
        out[column] = out[column].astype("float64")
    for column in FLAG_COLUMNS:
        if column in out.columns:
            out[column] = out[column].astype("boolean")
    return out.reset_index(drop=True)


def text_part(frame: pd.DataFrame) -> pd.DataFrame | None:
    """``row`` and the text columns of a frame that carries any of them (the others as nulls),
    as a store stages them; None when it carries none (a simulation, a saved dataset read back)."""
    import pandas as pd

    present = [c for c in TEXT_COLUMNS if c in frame.columns]
    if not present:
        return None
    missing = pd.Series(None, index=frame.index, dtype=object)
    return pd.DataFrame(
        {"row": frame["row"]} | {c: frame[c] if c in present else missing for c in TEXT_COLUMNS}
    )
