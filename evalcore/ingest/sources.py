"""Reading a file with DuckDB's own readers: the file (:class:`Source`), the table function that
reads it (:func:`reader_sql`), its columns (:func:`describe`), staging, and the messages in words
when DuckDB refuses it (the first line that is not UTF-8, ragged or not JSON); also the small SQL
helpers every ingest module shares (quoting, trimming)."""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass
from pathlib import Path

import duckdb

from evalcore._sql import _ident, sql_literal, typed_select, typed_text  # noqa: F401 (read from here)
from evalcore.schema import (
    REQUIRED_COLUMNS,
    VerdictFormatError,
)

#: Whitespace trimmed around every text cell (what Python's ``str.strip`` removes in practice).
_WS = "' \t\n\x0b\x0c\r\xa0\ufeff'"  # a literal: DuckDB does not fold chr() || chr()
#: Control characters refused in names: C0 (NUL, tab, newline …), DEL and C1.
_CONTROL = r"[[:cntrl:]\x{80}-\x{9f}]"
#: Characters that do not show: zero-width, bidirectional marks and overrides, soft hyphen, BOM.
_INVISIBLE = r"[\x{00AD}\x{061C}\x{180E}\x{200B}-\x{200F}\x{202A}-\x{202E}\x{2060}-\x{2069}\x{FEFF}]"
#: Columns that name things (checked for control and invisible characters).
NAME_COLUMNS = ("instruction_id", "model_a", "model_b", "judge", "category")

_READ_TEXT_HINT = "Check that the file is the table you meant to load"


_WS_CODES = "(32, 9, 10, 11, 12, 13, 160, 65279)"


def _strip(expr: str) -> str:
    """``trim`` with the whitespace list only where an end is whitespace: trimming with a
    character list costs about ten times a first/last-character test on a million rows."""
    return (
        f"(CASE WHEN ord({expr}) IN {_WS_CODES} OR ord(right({expr}, 1)) IN {_WS_CODES} "
        f"THEN trim({expr}, {_WS}) ELSE {expr} END)"
    )


def _scrub(message: str, path: Path, file: str) -> str:
    """A DuckDB message without the server path (only the name the user gave) on one line, and
    without DuckDB's advice on its reader's options (``Try increasing 'sample_size'…``), which a
    user cannot set."""
    text = str(message).replace(str(path), file).replace(path.name, file)
    text = text.split("\nTry ")[0]
    first = text.split("\n\n")[0].replace("\n", " ").strip()
    for prefix in (
        "Invalid Input Error: ",
        "Conversion Error: ",
        "IO Error: ",
        "Binder Error: ",
        "Invalid Error: ",
        "Parser Error: ",
    ):
        first = first.replace(prefix, "")
    return first[:300]


# -- reading ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Source:
    """A file to read: where it is, the name the user knows it by, and its container."""

    path: Path
    file: str
    kind: str  # "csv", "tsv", "parquet", "jsonl", "json"
    label: str  # "CSV", "CSV.gz", "Parquet", "JSON Lines", "JSON"


def _csv_header(src: Source) -> list[str]:
    """The header fields of a delimited file (Python's csv module: same quoting rules)."""
    with open(src.path, "rb") as handle:
        first = handle.readline(1 << 20)
    try:
        text = first.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise VerdictFormatError(
            src.file,
            f"the file is not UTF-8 text (byte 0x{first[exc.start]:02x} on line 1)",
            hint="Save it as UTF-8 (in a spreadsheet: 'CSV UTF-8'), then upload it again",
        ) from exc
    sep = "\t" if src.kind == "tsv" else ","
    # newline="": a file whose lines end in a carriage return alone (old Mac exports) still has a
    # first line, rather than a csv error
    row = next(csv.reader(io.StringIO(text, newline=""), delimiter=sep), [])
    return [str(c) for c in row]


def _locate_text_problem(src: Source) -> VerdictFormatError | None:
    """After DuckDB refused a delimited file: the first line that is not UTF-8, or ragged."""
    sep = "\t" if src.kind == "tsv" else ","
    width = None
    with open(src.path, "rb") as handle:
        for number, line in enumerate(handle, start=1):
            try:
                text = line.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                return VerdictFormatError(
                    src.file,
                    f"the file is not UTF-8 text (byte 0x{line[exc.start]:02x} on line {number})",
                    hint="Save it as UTF-8 (in a spreadsheet: 'CSV UTF-8'), then upload it again",
                )
            if '"' in text:  # quoted fields may span lines: leave those to DuckDB's message
                continue
            fields = len(text.rstrip("\r\n").split(sep))
            if width is None:
                width = fields
            elif text.strip() and fields != width:
                return VerdictFormatError(
                    src.file,
                    f"the table could not be parsed (line {number} has {fields} fields, the header {width})",
                    hint="Check that every line has as many fields as the "
                    "header and that quotes are balanced",
                )
    return None


def _locate_json_problem(src: Source) -> VerdictFormatError | None:
    """After DuckDB refused a JSON Lines file: the first line that is not one JSON object."""
    hint = "Each line of a JSON Lines file must be one JSON object"
    with open(src.path, "rb") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                what = getattr(exc, "msg", "not UTF-8")
                return VerdictFormatError(src.file, f"line {number} is not valid JSON ({what})", hint=hint)
            except RecursionError:
                return VerdictFormatError(
                    src.file, f"line {number} is nested too deeply to be a record", hint=hint
                )
            if not isinstance(record, dict):
                return VerdictFormatError(src.file, f"line {number} is not a JSON object", hint=hint)
    return None


def reader_sql(src: Source, columns: list[str] | None = None) -> str:
    """The DuckDB table function that reads ``src`` (columns: the CSV header, for c0…cN)."""
    path = sql_literal(str(src.path))
    if src.kind in ("csv", "tsv"):
        assert columns is not None
        spec = ", ".join(f"'c{k}': 'VARCHAR'" for k in range(len(columns)))
        delim = "'\\t'" if src.kind == "tsv" else "','"
        return (
            f"read_csv({path}, columns={{{spec}}}, header=true, auto_detect=false, "
            f"delim={delim}, quote='\"', escape='\"', strict_mode=true, null_padding=false, "
            "encoding='utf-8')"
        )
    if src.kind == "parquet":
        return f"read_parquet({path})"
    if src.kind == "jsonl":
        return f"read_json({path}, format='newline_delimited', records=true)"
    return f"read_json({path}, format='{json_layout(src)}', records=true, maximum_object_size=268435456)"


def json_layout(src: Source) -> str:
    """DuckDB's ``format`` for a JSON file: ``array`` when it starts with ``[`` (no format
    detection on a 2 GB array), else ``auto``."""
    with open(src.path, "rb") as handle:
        first = handle.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    return "array" if first == b"[" else "auto"


def describe(cur: duckdb.DuckDBPyConnection, src: Source) -> tuple[list[str], list[str], str]:
    """(column names, DuckDB types, reader SQL) of a file; raise a VerdictFormatError in words."""
    header = _csv_header(src) if src.kind in ("csv", "tsv") else None
    if header is not None and not any(h.strip() for h in header):
        raise VerdictFormatError(
            src.file,
            "the file is empty",
            hint="Upload a table with a header line and at least one row: " + ", ".join(REQUIRED_COLUMNS),
        )
    sql = reader_sql(src, header)
    try:
        described = cur.execute(f"DESCRIBE SELECT * FROM {sql}").fetchall()
    except duckdb.Error as exc:
        raise _read_error(src, exc) from exc
    types = [str(r[1]) for r in described]
    names = header if header is not None else [str(r[0]) for r in described]
    return names, types, _with_columns(sql, names, types) if src.kind in ("json", "jsonl") else sql


#: The JSON column types read again as described (:func:`_with_columns`): plain values only. A
#: date or time the reader recognised by its format, a struct or a list stays with the detection.
_PLAIN_JSON_TYPES = frozenset({"VARCHAR", "BIGINT", "UBIGINT", "DOUBLE", "BOOLEAN", "JSON"})


def _with_columns(sql: str, names: list[str], types: list[str]) -> str:
    """A JSON reader given the columns its description found, so that reading the rows does not
    sample the file for them again (0.1-0.15 s of a 300,000-battle arena dump's 0.4 s read). The
    same columns and types, so the same rows and the same refusals; only plain types, and not
    where the reader renamed a key that differs from another only in case (``model`` beside
    ``Model`` is described as ``model_1``, a column no key would fill)."""
    if not names or any(t not in _PLAIN_JSON_TYPES for t in types):
        return sql
    lowered = {n.lower() for n in names}
    if any(re.fullmatch(r"(.+)_\d+", n) and n.lower().rsplit("_", 1)[0] in lowered for n in names):
        return sql
    spec = ", ".join(f"{sql_literal(n)}: '{t}'" for n, t in zip(names, types, strict=True))
    return f"{sql[:-1]}, columns={{{spec}}})"


def _read_error(src: Source, exc: Exception) -> VerdictFormatError:
    if src.kind in ("csv", "tsv"):
        located = _locate_text_problem(src)
        if located is not None:
            return located
        return VerdictFormatError(
            src.file,
            "the table could not be parsed (" + _scrub(str(exc), src.path, src.file) + ")",
            hint="Check the delimiter and the quoting",
        )
    if src.kind == "parquet":
        return VerdictFormatError(
            src.file,
            "this is not a readable Parquet file (" + _scrub(str(exc), src.path, src.file) + ")",
            hint="Check the file, or export the table as CSV",
        )
    if "recursion depth" in str(exc):
        return VerdictFormatError(
            src.file,
            "the JSON is nested too deeply to be a table",
            hint="Upload a list of records or JSON Lines",
        )
    if src.kind == "jsonl":
        located = _locate_json_problem(src)
        if located is not None:
            return located
    if "transform error" in str(exc):  # before the test below: DuckDB names the "record/value"
        return VerdictFormatError(
            src.file,
            "a field holds a value of another type than in the records before it ("
            + _scrub(str(exc), src.path, src.file)
            + ")",
            hint="Give each field one type throughout the file (all numbers or all text), or save the table as CSV",
        )
    if "records" in str(exc) or "object" in str(exc).lower():
        return VerdictFormatError(
            src.file,
            "the file holds no table of records",
            hint="Upload a verdict table or a native file of "
            "Arena-Hard-Auto, AlpacaEval, MT-Bench or Chatbot Arena",
        )
    return VerdictFormatError(
        src.file,
        "the JSON could not be read (" + _scrub(str(exc), src.path, src.file) + ")",
        hint="Upload a list of records or JSON Lines",
    )


def stage(cur: duckdb.DuckDBPyConnection, src: Source, sql: str, select: str) -> None:
    """``vl_raw`` ← the selected columns of the file, in file order (``rowid`` = data row − 1)."""
    try:
        cur.execute(f"CREATE OR REPLACE TEMP TABLE vl_raw AS SELECT {select} FROM {sql}")
    except duckdb.Error as exc:
        raise _read_error(src, exc) from exc


# -- values of the wrong type in a tool's native file --------------------------------------------


def set_aside_rows(cur: duckdb.DuckDBPyConnection, src: Source, what: str) -> str | None:
    """Set aside the staged rows (``vl_raw``, from :func:`typed_select`) with a value of the wrong
    type: they are deleted (the others keep their row numbers), counted and named. Returns the
    note for the format label, or None when every row's types are right; raises when no row
    is left. ``what`` names the format for that message."""
    count = cur.execute("SELECT count(*) FROM vl_raw WHERE vl_wrong_field IS NOT NULL").fetchone()
    if not count or not count[0]:
        return None
    # the importers' words for it (they load pandas: only for a file with such rows)
    from evalcore.importers._common import SET_ASIDE_NAMED, set_aside_note

    examples = cur.execute(
        "SELECT rowid + 1, vl_wrong_field, vl_wrong_value, vl_wrong_kind FROM vl_raw "
        f"WHERE vl_wrong_field IS NOT NULL ORDER BY rowid LIMIT {SET_ASIDE_NAMED}"
    ).fetchall()
    note = set_aside_note(int(count[0]), [(int(r), str(f), str(v), str(k)) for r, f, v, k in examples])
    cur.execute("DELETE FROM vl_raw WHERE vl_wrong_field IS NOT NULL")
    left = cur.execute("SELECT count(*) FROM vl_raw").fetchone()
    if not left or not left[0]:
        raise VerdictFormatError(
            src.file,
            f"this {what} holds no judge calls once the rows with a value of the wrong type are set aside ({note})",
            hint="Check that the file is the tool's unedited output",
        )
    return note


def with_note(label: str, note: str | None) -> str:
    """A format label with one more note in its parentheses."""
    if not note:
        return label
    return f"{label[:-1]}; {note})" if label.endswith(")") else f"{label} ({note})"
