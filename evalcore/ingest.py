"""A file on disk → the store's ``verdicts`` table, read and checked inside DuckDB.

CSV, Parquet and JSON (Lines) are read by DuckDB's own readers straight from the path (CSV cells
as text, so that the contract, not a type sniffer, decides what a verdict is). A verdict table is
first read in one typed pass (:func:`read_typed`: read, type and number the rows in one statement,
check them with two aggregates); anything that pass does not vouch for takes the checking path:
staged as text and checked in SQL with the same messages the pandas validator gives (file, 1-based
data rows, the offending values, what to do). Either way the table is never a pandas frame. Chatbot Arena battle tables (the published ``clean_battle`` JSON array and its
relatives) are converted in SQL too. The other tools' native files (Arena-Hard-Auto, AlpacaEval,
MT-Bench), small by nature, go through :mod:`evalcore.importers` in Python under a size budget.

Everything here works on one DuckDB cursor and scratch tables named ``vl_*`` that the caller
drops; :meth:`evalcore.store.VerdictStore.load_file` wraps it in a transaction.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb
import numpy as np

from evalcore._sql import one_row
from evalcore.features import feature_columns
from evalcore.limits import LoadLimits
from evalcore.schema import (
    DEFAULT_JUDGE,
    NO_VERDICT_TOKENS,
    OPTIONAL_COLUMNS,
    REQUIRED_COLUMNS,
    TEXT_COLUMNS,
    VERDICT_LABELS,
    ValidationReport,
    VerdictFormatError,
    _label_to_level,
    normalise_label,
)

if TYPE_CHECKING:
    import pandas as pd

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


def _lit(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _scrub(message: str, path: Path, file: str) -> str:
    """A DuckDB message without the server path (only the name the user gave) on one line."""
    text = str(message).replace(str(path), file).replace(path.name, file)
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
    row = next(csv.reader(io.StringIO(text), delimiter=sep), [])
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
    path = _lit(str(src.path))
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
    with open(src.path, "rb") as handle:
        first = handle.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    layout = "array" if first == b"[" else "auto"  # skip format detection on a 2 GB array
    return f"read_json({path}, format='{layout}', records=true, maximum_object_size=268435456)"


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
    return names, types, sql


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


# -- the contract in SQL ------------------------------------------------------------------------


def _norm(expr: str) -> str:
    """lower-case, trimmed, ``[[ ]]`` removed: :func:`evalcore.schema.normalise_label` in SQL."""
    t = f"lower(trim({expr}, {_WS}))"
    return f"(CASE WHEN {t} LIKE '[[%]]' THEN trim({t}[3:-3], {_WS}) ELSE {t} END)"


def level_sql(expr: str) -> str:
    """A label or number → its level −2..+2, NULL for no verdict, 99 for a value off the scale."""
    n = _norm(expr)
    cases = [
        f"WHEN {expr} IS NULL OR {n} IN ({', '.join(_lit(t) for t in sorted(NO_VERDICT_TOKENS))}) THEN NULL"
    ]
    by_level: dict[int, list[str]] = {}
    for label, level in VERDICT_LABELS.items():
        by_level.setdefault(level, []).append(label)
    for level, labels in sorted(by_level.items()):
        cases.append(f"WHEN {n} IN ({', '.join(_lit(x) for x in labels)}) THEN {level}")
    num = f"TRY_CAST({n} AS DOUBLE)"
    cases.append(f"WHEN {num} IN (-2, -1, 0, 1, 2) THEN CAST({num} AS INTEGER)")
    return f"(CASE {' '.join(cases)} ELSE 99 END)"


def _rows(cur, where: str, source: str = "vl_text") -> np.ndarray:
    return (
        cur.execute(f'SELECT "row" FROM {source} WHERE {where} ORDER BY "row"')
        .fetchnumpy()["row"]
        .astype(np.int64)
    )


def _values(cur, column: str, where: str, limit: int = 50) -> tuple[str, ...]:
    got = cur.execute(
        f"SELECT coalesce({column}, '') AS v FROM vl_text WHERE {where} "
        f'GROUP BY v ORDER BY min("row") LIMIT {limit}'
    ).fetchall()
    return tuple(str(r[0]) for r in got)


def _check_header(names: list[str], *, file: str) -> dict[str, int]:
    """Header checks of :func:`evalcore.schema.validate_verdicts`; canonical name → position."""
    lowered = [str(c).strip().lower() for c in names]
    known = set(REQUIRED_COLUMNS) | set(OPTIONAL_COLUMNS)
    stems = [n.rsplit(".", 1)[0] if n.rsplit(".", 1)[-1].isdigit() else n for n in lowered]
    repeated = sorted({n for n in stems if n in known and stems.count(n) > 1})
    if repeated:
        raise VerdictFormatError(
            file,
            "column(s) named more than once in the header: " + ", ".join(repeated),
            values=tuple(names),
            hint="Keep one column of each name (which one is meant cannot be guessed)",
        )
    missing = [c for c in REQUIRED_COLUMNS if c not in lowered]
    if missing:
        raise VerdictFormatError(
            file,
            "required column(s) missing: " + ", ".join(missing),
            values=tuple(names),
            hint="The header must name "
            + ", ".join(REQUIRED_COLUMNS)
            + " (the values listed are the columns found)",
        )
    return {name: lowered.index(name) for name in (*REQUIRED_COLUMNS, *OPTIONAL_COLUMNS) if name in lowered}


def build_text(
    cur: duckdb.DuckDBPyConnection,
    exprs: dict[str, str],
    *,
    source: str = "vl_raw",
    skip_blank: bool = False,
    row: str = "rowid + 1",
) -> None:
    """``vl_text``: row number, names trimmed, labels and numbers as raw text (NULL if absent)."""
    cols = []
    # per-answer feature columns (feat_<name>_a/_b) ride along as text, checked by validate()
    for name in (*REQUIRED_COLUMNS, *OPTIONAL_COLUMNS, *feature_columns(exprs)):
        expr = exprs.get(name)
        text = f"CAST({expr} AS VARCHAR)" if expr else "NULL::VARCHAR"
        if expr and name in NAME_COLUMNS:
            text = _strip(text)
        cols.append(f"{text} AS {name}")
    where = ""
    if skip_blank:  # a blank line is no row (as every spreadsheet and pandas read it)
        blank = " AND ".join(f"coalesce(trim(CAST({e} AS VARCHAR), {_WS}), '') = ''" for e in exprs.values())
        if one_row(cur.execute(f"SELECT count(*) FROM {source} WHERE {blank}"))[0]:
            row = "row_number() OVER (ORDER BY rowid)"
            where = f"WHERE NOT ({blank})"
    cur.execute(f"""CREATE OR REPLACE TEMP TABLE vl_text AS
        SELECT {row} AS "row", {", ".join(cols)} FROM {source} {where}""")


def _level_map(cur: duckdb.DuckDBPyConnection, column: str) -> str:
    """``vl_map_<column>``: each distinct raw value → level (NULL: no verdict, 99: off the scale).

    A million rows carry a handful of distinct labels: they are mapped once, in Python, by the
    same rule as :func:`evalcore.schema.parse_verdicts`; a column with very many distinct values
    is mapped in SQL instead.
    """
    import pandas as pd

    table = f"vl_map_{column}"
    distinct = one_row(cur.execute(f"SELECT count(DISTINCT {column}) FROM vl_text"))[0]
    if distinct <= 100_000:
        values = [
            r[0]
            for r in cur.execute(
                f"SELECT DISTINCT {column} FROM vl_text WHERE {column} IS NOT NULL"
            ).fetchall()
        ]
        levels = []
        for value in values:
            level = _label_to_level(normalise_label(value))
            levels.append(99 if level is None else (None if np.isnan(level) else int(level)))
        frame = pd.DataFrame(
            {"label": pd.Series(values, dtype=object), "level": pd.array(levels, dtype="Int8")}
        )
        cur.register("vl_incoming_map", frame)
        try:
            cur.execute(
                f"CREATE OR REPLACE TEMP TABLE {table} AS SELECT label, "
                "CAST(level AS TINYINT) AS level FROM vl_incoming_map"
            )
        finally:
            cur.unregister("vl_incoming_map")
    else:
        cur.execute(
            f"CREATE OR REPLACE TEMP TABLE {table} AS SELECT label, "
            f"CAST({level_sql('label')} AS TINYINT) AS level FROM "
            f"(SELECT DISTINCT {column} AS label FROM vl_text WHERE {column} IS NOT NULL)"
        )
    return table


def validate(cur: duckdb.DuckDBPyConnection, *, file: str, limits: LoadLimits) -> None:
    """Check ``vl_text`` against the contract; ``vl_canon`` (a view) gives the canonical rows.

    Raises :class:`VerdictFormatError` with the rows and values of the first problem found,
    in the order of :func:`evalcore.schema.validate_verdicts` (required text, verdicts, human
    labels, lengths), then names with control characters.
    """
    n_rows = one_row(cur.execute("SELECT count(*) FROM vl_text"))[0]
    if n_rows == 0:
        raise VerdictFormatError(
            file, "the file has a header but no rows", hint="Add at least one judge call below the header"
        )
    if n_rows > limits.max_rows:
        raise VerdictFormatError(
            file,
            f"the file has {n_rows:,} rows, over the limit of {limits.max_rows:,} rows this server accepts",
            hint="Load a sample, or run the command-line tool on the file "
            "with VERDICTLAB_MAX_ROWS set higher",
        )
    for name in ("instruction_id", "model_a", "model_b"):
        rows = _rows(cur, f"coalesce({name}, '') = ''")
        if rows.size:
            raise VerdictFormatError(
                file,
                f"column '{name}' is empty in {rows.size} row(s)",
                rows=tuple(rows.tolist()),
                hint=f"Every row needs a value in '{name}'; fill it in or delete those rows",
            )
    maps = {}
    for name in ("verdict", "human"):
        maps[name] = _level_map(cur, name)
        bad = f"{name} IN (SELECT label FROM {maps[name]} WHERE level = 99)"
        rows = _rows(cur, bad)
        if rows.size:
            raise VerdictFormatError(
                file,
                f"column '{name}' has {rows.size} value(s) outside the verdict scale",
                rows=tuple(rows.tolist()),
                values=_values(cur, name, bad),
                hint=(
                    "Use −2..+2 (slot A's point of view), or a label of the verdict format "
                    "(A>>B, A>B, A=B, B>A, B>>A; [[A]], [[B]], [[C]], tie; model_a, model_b, "
                    "tie (bothbad)); leave the cell empty for a call that returned no verdict"
                ),
            )
    features = feature_columns(str(r[0]) for r in cur.execute("DESCRIBE vl_text").fetchall())
    for name in ("length_a", "length_b", *features):
        t = _strip(name)
        num = f"TRY_CAST({t} AS DOUBLE)"
        not_number = (
            f"{name} IS NOT NULL AND {t} <> '' AND lower({t}) NOT IN "
            f"({', '.join(_lit(x) for x in sorted(NO_VERDICT_TOKENS))}) AND {num} IS NULL"
        )
        rows = _rows(cur, not_number)
        if rows.size:
            raise VerdictFormatError(
                file,
                f"column '{name}' must hold numbers",
                rows=tuple(rows.tolist()),
                values=_values(cur, name, not_number),
                hint=f"Write '{name}' as a number (characters or tokens), or leave it empty"
                if name.startswith("length")
                else f"Write '{name}' as a number (a count or size of the answer), or leave it empty",
            )
        impossible = f"(isinf({num}) OR {num} < 0)"
        rows = _rows(cur, impossible)
        if rows.size:
            raise VerdictFormatError(
                file,
                f"column '{name}' has {rows.size} value(s) that cannot be a "
                + ("length" if name.startswith("length") else "count")
                + " (negative or infinite)",
                rows=tuple(rows.tolist()),
                values=_values(cur, name, impossible),
                hint=f"A length counts characters or tokens: write '{name}' as a number of 0 or "
                "more, or leave it empty",
            )
    for name in NAME_COLUMNS:
        # distinct names first: a handful of models, judges and categories
        found = one_row(
            cur.execute(
                f"SELECT count(*) FROM (SELECT DISTINCT {name} AS v FROM vl_text) "
                f"WHERE regexp_matches(v, '{_CONTROL}')"
            )
        )[0]
        if not found:
            continue
        bad = f"regexp_matches({name}, '{_CONTROL}')"
        rows = _rows(cur, bad)
        if rows.size:
            shown = tuple(repr(v)[1:-1] for v in _values(cur, name, bad))
            raise VerdictFormatError(
                file,
                f"column '{name}' has {rows.size} value(s) with a control character (such "
                "as NUL, a tab or a line break)",
                rows=tuple(rows.tolist()),
                values=shown,
                hint="Names must be plain text on one line: remove the control characters",
            )
    length = {
        n: (
            f"CASE WHEN isnan(TRY_CAST({_strip(n)} AS DOUBLE)) THEN NULL "
            f"ELSE TRY_CAST({_strip(n)} AS DOUBLE) END"
        )
        for n in ("length_a", "length_b", *features)
    }
    extra = "".join(f", {length[n]} AS {n}" for n in features)
    cur.execute(f"""CREATE OR REPLACE TEMP VIEW vl_canon AS SELECT
        t."row", t.instruction_id, t.model_a, t.model_b, mv.level AS verdict,
        coalesce(nullif(t.judge, ''), {_lit(DEFAULT_JUDGE)}) AS judge, mh.level AS human,
        {length["length_a"]} AS length_a, {length["length_b"]} AS length_b,
        nullif(t.category, '') AS category{extra}
        FROM vl_text t LEFT JOIN {maps["verdict"]} mv ON mv.label = t.verdict
             LEFT JOIN {maps["human"]} mh ON mh.label = t.human""")
    n_models = one_row(
        cur.execute("SELECT count(*) FROM (SELECT model_a FROM vl_text UNION SELECT model_b FROM vl_text)")
    )[0]
    if n_models > limits.max_models:
        raise VerdictFormatError(
            file,
            f"the file names {n_models:,} models, over the limit of {limits.max_models:,} "
            "this server accepts",
            hint="Load the models you want to compare (a sample of the "
            "file), or run the command-line tool with VERDICTLAB_MAX_MODELS set higher",
        )


# -- the typed single pass ----------------------------------------------------------------------

#: The contract columns the typed single pass fills. A file naming any other contract column
#: (one the contract gains later) takes the checking path, which handles every column.
_FAST_COLUMNS = (
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
_INTEGER_TYPES = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT", "UINTEGER")
#: A level the typed pass gives a verdict it does not know by sight (never a real level).
_UNSEEN = 100
#: The name columns with few distinct values (checked on those values, not row by row).
_FEW_NAMES = tuple(n for n in NAME_COLUMNS if n != "instruction_id")
#: An instruction id the typed pass leaves to the checking path: a control character anywhere,
#: or whitespace at either end (what :func:`_strip` would remove).
_ODD_ID = r"[[:cntrl:]\x{80}-\x{9f}]|^[ \x{a0}\x{feff}]|[ \x{a0}\x{feff}]$"


def _spellings() -> dict[str, int | None]:
    """The verdict spellings the typed pass maps on sight: each contract label and no-verdict
    token as listed, in capitals and capitalised, MT-Bench's ``[[A]]``, and the levels as
    integers and decimals.
    Each level comes from :func:`evalcore.schema.normalise_label` and ``_label_to_level`` (the
    rule of the checking path), so the two paths agree by construction."""
    words = set(VERDICT_LABELS) | set(NO_VERDICT_TOKENS)
    candidates = {w for word in words for w in (word, word.upper(), word.capitalize())}
    candidates |= {f"[[{w}]]" for w in ("A", "B", "C", "a", "b", "c")}  # MT-Bench's verdicts
    for number in ("0", "1", "2"):
        candidates |= {number, f"{number}.0", f"-{number}", f"-{number}.0", f"+{number}", f"+{number}.0"}
    out: dict[str, int | None] = {}
    for text in sorted(candidates, key=lambda t: (len(t), t)):
        level = _label_to_level(normalise_label(text))
        if level is not None:
            out[text] = None if np.isnan(level) else int(level)
    return out


_SPELLINGS = _spellings()


def _fast_level(expr: str, dtype: str) -> str:
    """A verdict column → TINYINT level, NULL for no verdict, ``_UNSEEN`` for anything else."""
    if dtype in _INTEGER_TYPES:
        return (
            f"CASE WHEN {expr} IS NULL THEN NULL WHEN {expr} BETWEEN -2 AND 2 "
            f"THEN CAST({expr} AS TINYINT) ELSE {_UNSEEN} END"
        )
    text = expr if dtype == "VARCHAR" else f"CAST({expr} AS VARCHAR)"
    # the integers first: most tables write levels as numbers
    order = sorted(_SPELLINGS.items(), key=lambda kv: (not kv[0].lstrip("-").isdigit(), len(kv[0])))
    cases = " ".join(f"WHEN {_lit(k)} THEN {'NULL' if v is None else v}" for k, v in order)
    return f"CASE WHEN {text} IS NULL THEN NULL ELSE (CASE {text} {cases} ELSE {_UNSEEN} END) END"


def _fast_length(expr: str, dtype: str) -> str:
    """A length column → DOUBLE, NULL if empty or NaN, −1 for what is not a number (refused).

    DuckDB compares NaN equal to NaN, so ``nullif(…, NaN)`` drops it; the no-verdict tokens
    are looked at only where the number is missing.
    """
    if dtype == "DOUBLE" or dtype in _INTEGER_TYPES:
        return f"nullif(CAST({expr} AS DOUBLE), 'nan'::DOUBLE)"  # exact: no text round trip needed
    text = expr if dtype == "VARCHAR" else f"CAST({expr} AS VARCHAR)"
    tokens = ", ".join(_lit(x) for x in sorted(NO_VERDICT_TOKENS))
    return (
        f"coalesce(nullif(TRY_CAST({text} AS DOUBLE), 'nan'::DOUBLE), "
        f"CASE WHEN {text} IS NULL OR lower({text}) IN ({tokens}) THEN NULL ELSE -1 END)"
    )


def _padded(expr: str) -> str:
    return f"(ord({expr}) IN {_WS_CODES} OR ord(right({expr}, 1)) IN {_WS_CODES})"


def read_typed(
    cur: duckdb.DuckDBPyConnection,
    sql: str,
    width: int,
    columns: dict[str, tuple[int, str]],
    *,
    limits: LoadLimits,
    table: str = "vl_typed",
) -> tuple[ValidationReport, bool] | None:
    """The common case in one read: the file straight into ``table``, typed as ``verdicts``.

    ``sql`` reads ``width`` columns; ``columns`` maps each contract column the file has to
    (position, DuckDB type). The rows are read once, typed as the store keeps them (names as
    written, verdicts mapped by sight, lengths as numbers) and numbered by the reader; one
    aggregate over the table and one over its distinct names then check the contract and gather
    the load report. Any sign of trouble — an empty name, a verdict or length not recognised on
    sight, a name with surrounding spaces, control or invisible characters, a limit passed, rows
    out of order — returns None with ``table`` dropped, and the caller takes the checking path
    (:func:`validate`), which finds the exact rows and values and words the message. So a valid
    file loads in one pass and an invalid one is refused with the same message as before.

    Returns the load report and whether every row has its own (instruction, model_a, model_b,
    judge): then one judge's cells are its rows, and :meth:`~evalcore.store.VerdictStore.counts`
    need not group them.
    """
    if any(name not in _FAST_COLUMNS for name in columns):
        return None

    def col(name: str) -> tuple[str, str] | None:
        found = columns.get(name)
        return None if found is None else (f"vl_src.c{found[0]}", found[1])

    select = ['CAST(vl_src.vl_row AS BIGINT) AS "row"']
    for name in ("instruction_id", "model_a", "model_b"):
        expr, _ = col(name)  # type: ignore[misc]  # required columns, checked by the caller
        select.append(f"CAST({expr} AS VARCHAR) AS {name}")
    verdict = col("verdict")
    assert verdict is not None
    select.append(f"CAST({_fast_level(*verdict)} AS TINYINT) AS verdict")
    judge = col("judge")
    select.append(
        f"coalesce(nullif(CAST({judge[0]} AS VARCHAR), ''), {_lit(DEFAULT_JUDGE)}) AS judge"
        if judge
        else f"{_lit(DEFAULT_JUDGE)} AS judge"
    )
    human = col("human")
    select.append(f"CAST({_fast_level(*human)} AS TINYINT) AS human" if human else "NULL::TINYINT AS human")
    for name in ("length_a", "length_b"):
        found = col(name)
        select.append(
            f"CAST({_fast_length(*found)} AS DOUBLE) AS {name}" if found else f"NULL::DOUBLE AS {name}"
        )
    category = col("category")
    select.append(
        f"nullif(CAST({category[0]} AS VARCHAR), '') AS category" if category else "NULL::VARCHAR AS category"
    )
    try:
        cur.execute(
            f"CREATE OR REPLACE TABLE {table} AS SELECT {', '.join(select)} FROM {sql} "
            f"WITH ORDINALITY AS vl_src({', '.join(f'c{k}' for k in range(width))}, vl_row)"
        )
    except duckdb.Error:
        cur.execute(f"DROP TABLE IF EXISTS {table}")
        return None  # the checking path reads it again and words the reader's complaint
    # Instruction ids may be as many as the rows (an arena table): checked row by row with one
    # regular expression (a control character, or whitespace at either end). An exact repeat
    # needs the same instruction, pair and judge: distinct hashes of those four for every row
    # rule repeats out (equal hashes may be a collision; then the rows are looked at).
    (rows, misnumbered, empty, unseen, bad_length, verdicts, self_rows, odd_ids, distinct_keys) = one_row(
        cur.execute(f"""SELECT count(*), count(*) FILTER (WHERE "row" <> rowid + 1),
            count(*) FILTER (WHERE coalesce(instruction_id, '') = '' OR coalesce(model_a, '') = ''
                             OR coalesce(model_b, '') = ''),
            count(*) FILTER (WHERE verdict = {_UNSEEN} OR human = {_UNSEEN}),
            count(*) FILTER (WHERE length_a < 0 OR isinf(length_a) OR length_b < 0 OR isinf(length_b)),
            count(verdict), count(*) FILTER (WHERE model_a = model_b),
            count(*) FILTER (WHERE regexp_matches(instruction_id, '{_ODD_ID}')),
            count(DISTINCT hash(instruction_id, model_a, model_b, judge))
            FROM {table}""")
    )
    # The other names are few (models, judges, categories): one scan for the distinct values of
    # each, then the character checks on those values only.
    names = ", ".join(_FEW_NAMES)
    (control, padded, invisible, n_models) = one_row(
        cur.execute(f"""WITH d AS (
                SELECT coalesce({names}) AS v, GROUPING_ID({names}) AS g FROM {table}
                GROUP BY GROUPING SETS ({", ".join(f"({n})" for n in _FEW_NAMES)}))
            SELECT count(*) FILTER (WHERE regexp_matches(v, '{_CONTROL}')),
                count(*) FILTER (WHERE {_padded("v")}),
                count(*) FILTER (WHERE regexp_matches(v, '{_INVISIBLE}')),
                count(DISTINCT v) FILTER (WHERE g IN ({_grouping_id("model_a")}, {_grouping_id("model_b")}))
            FROM d""")
    )
    trouble = (
        rows == 0
        or rows > limits.max_rows
        or misnumbered
        or empty
        or unseen
        or bad_length
        or odd_ids
        or control
        or padded
        or invisible
        or n_models > limits.max_models
    )
    if trouble:
        cur.execute(f"DROP TABLE IF EXISTS {table}")
        return None
    duplicates = np.zeros(0, dtype=np.int64)
    if distinct_keys != rows:
        duplicates = _duplicate_rows(cur, table)
    report = ValidationReport(
        rows=int(rows),
        no_verdict_rows=int(rows - verdicts),
        self_comparison_rows=int(self_rows),
        duplicate_rows=tuple(int(r) for r in duplicates),
    )
    return report, distinct_keys == rows


def _grouping_id(name: str) -> int:
    """``GROUPING_ID(_FEW_NAMES)`` of the grouping set of ``name`` alone: a bit per column left
    out, the first column the highest."""
    k = len(_FEW_NAMES)
    return sum(1 << (k - 1 - i) for i, n in enumerate(_FEW_NAMES) if n != name)


# -- what loading noticed -----------------------------------------------------------------------


def inspect(cur: duckdb.DuckDBPyConnection, table: str = "verdicts") -> ValidationReport:
    """:func:`evalcore.schema.inspect_verdicts` in SQL, plus names that differ only by
    characters that do not show (reported with their rows, never merged)."""
    rows, no_verdict, self_rows = one_row(
        cur.execute(
            f"SELECT count(*), count(*) - count(verdict), count(*) FILTER (WHERE model_a = model_b) "
            f"FROM {table}"
        )
    )
    # rows with distinct instructions cannot repeat each other (an arena table): one cheap count
    unique_ids = one_row(cur.execute(f"SELECT count(DISTINCT instruction_id) FROM {table}"))[0]
    duplicates = np.zeros(0, dtype=np.int64)
    if unique_ids != rows:
        duplicates = _duplicate_rows(cur, table)
    return ValidationReport(
        rows=int(rows),
        no_verdict_rows=int(no_verdict),
        self_comparison_rows=int(self_rows),
        duplicate_rows=tuple(int(r) for r in duplicates),
        name_notes=_invisible_notes(cur, table),
    )


def _duplicate_rows(cur: duckdb.DuckDBPyConnection, table: str) -> np.ndarray:
    """Rows that repeat an earlier row exactly (every column but the row number)."""
    keys = "instruction_id, model_a, model_b, verdict, judge, human, length_a, length_b, category"
    repeated = one_row(
        cur.execute(f"SELECT count(*) FROM (SELECT 1 FROM {table} GROUP BY {keys} HAVING count(*) > 1)")
    )[0]
    if not repeated:
        return np.zeros(0, dtype=np.int64)
    return cur.execute(
        f"""SELECT "row" FROM (SELECT "row", row_number() OVER (PARTITION BY {keys}
            ORDER BY "row") AS k FROM {table}) WHERE k > 1 ORDER BY 1"""
    ).fetchnumpy()["row"]


def _invisible_notes(cur: duckdb.DuckDBPyConnection, table: str) -> tuple[str, ...]:
    notes = []
    for role, columns in (
        ("model", ("model_a", "model_b")),
        ("judge", ("judge",)),
        ("category", ("category",)),
    ):
        union = " UNION ".join(f"SELECT DISTINCT {c} AS name FROM {table}" for c in columns)
        groups = cur.execute(
            f"""WITH names AS ({union}),
                marked AS (SELECT name, regexp_replace(name, '{_INVISIBLE}', '', 'g') AS shown
                           FROM names WHERE name IS NOT NULL)
            SELECT shown, list(name ORDER BY name) FROM marked
            WHERE shown IN (SELECT shown FROM marked WHERE shown <> name)
            GROUP BY shown ORDER BY shown LIMIT 20"""
        ).fetchall()
        for shown, names in groups:
            where = " OR ".join(f"{c} = ?" for c in columns)
            parts = []
            for name in names:
                found = cur.execute(
                    f'SELECT "row" FROM {table} WHERE {where} ORDER BY "row" LIMIT 4', [name] * len(columns)
                ).fetchall()
                rows = ", ".join(str(r[0]) for r in found[:3]) + (" …" if len(found) > 3 else "")
                parts.append(f"{name.encode('unicode_escape').decode('ascii')!s} (rows {rows})")
            if len(names) > 1:
                what = (
                    f"{len(names)} {role} names look the same ('{shown}') but differ by "
                    "characters that do not show (zero-width or text-direction marks): "
                )
            else:
                what = (
                    f"the {role} name shown as '{shown}' contains characters that do not show "
                    "(zero-width or text-direction marks): "
                )
            notes.append(
                what + "; ".join(parts) + ". They are kept as written; fix the file if "
                "they are meant to be one name."
            )
    return tuple(notes)


@dataclass(frozen=True)
class Canonical:
    """Where :func:`read_canonical` left a file's validated rows, and what it is.

    ``table`` is a table already shaped as the store's ``verdicts`` (the typed single pass of
    :func:`read_typed`; ``report`` is its load report); None means the rows are the view
    ``vl_canon`` (the checking path; :func:`inspect` reports once they are stored).
    """

    label: str
    table: str | None = None
    report: ValidationReport | None = None
    #: every row has its own (instruction, model_a, model_b, judge) (known from the typed pass)
    unique_keys: bool = False


def read_canonical(
    cur: duckdb.DuckDBPyConnection, src: Source, *, origin: str | None, limits: LoadLimits
) -> Canonical:
    """Read ``src`` and leave its canonical, validated rows where the result says.

    A verdict table is first read in one typed pass (:func:`read_typed`); a file that pass
    does not vouch for, and every other format, takes the checking path: staged as text,
    checked by :func:`validate` (which words every problem), left in the view ``vl_canon``.
    ``origin`` is the file's own path when it came from disk (an Arena-Hard-Auto file without a
    judge takes it from its folder); messages only ever name ``src.file``.
    """
    names, types, sql = describe(cur, src)
    delimited = src.kind in ("csv", "tsv")
    cols = [f"c{k}" for k in range(len(names))] if delimited else names
    lowered = [n.strip().lower() for n in names]
    if set(REQUIRED_COLUMNS) <= set(lowered):
        positions = _check_header(names, file=src.file)
        for name in dict.fromkeys(feature_columns(names)):
            positions[name] = lowered.index(name)
        label = f"verdict table ({src.label})"
        # the typed single pass takes the plain contract columns only (no text, no features)
        typed = {name: (k, types[k]) for name, k in positions.items()}
        typed_pass = read_typed(cur, sql, len(names), typed, limits=limits)
        if typed_pass is not None:
            return Canonical(label, "vl_typed", *typed_pass)
        # text columns are never staged: the store copies them from the file (text_source_view)
        positions, texts = _split_text(positions)
        stage(cur, src, sql, ", ".join(f"{_ident(cols[k])} AS {name}" for name, k in positions.items()))
        build_text(cur, {name: name for name in positions}, skip_blank=delimited)
        text_source_view(
            cur, sql, {n: _ident(cols[k]) for n, k in positions.items()}, texts, cols, types, delimited
        )
    else:
        found: str | None = None
        from evalcore.importers import judgements_900k as j900
        from evalcore.ingest_arena import arena_select, convert_arena

        arena = arena_select(names, cols, types)
        if (paper := j900.judgements_select(names, cols)) is not None:  # the anchor paper's release
            stage(cur, src, sql, paper)
            exprs, found = j900.convert_judgements(cur, has_judge="judge_model" in lowered)
            build_text(cur, exprs, source=j900.VIEW, row="vl_rowid + 1")
        elif arena is not None:
            stage(cur, src, sql, arena[0])
            converted = convert_arena(cur, arena[1], file=src.file)
            if converted is not None:
                build_text(cur, converted[0], source="vl_arena", row="vl_rowid + 1")
                found = converted[1]
        label = found if found is not None else _python_native(cur, src, names, origin=origin, limits=limits)
    validate(cur, file=src.file, limits=limits)
    return Canonical(label)


def _split_text(positions: dict[str, int]) -> tuple[dict[str, int], dict[str, int]]:
    """(contract columns, text columns) of a header's positions."""
    text = {n: k for n, k in positions.items() if n in TEXT_COLUMNS}
    return {n: k for n, k in positions.items() if n not in TEXT_COLUMNS}, text


def text_source_view(
    cur: duckdb.DuckDBPyConnection,
    sql: str,
    contract: dict[str, str],
    texts: dict[str, int],
    cols: list[str],
    types: list[str],
    delimited: bool,
) -> None:
    """``vl_text_source``: a view of the file's text columns numbered like ``vl_text``'s rows.

    Text can be gigabytes (tens of kilobytes per call): it is not staged with the verdicts but
    read once more, straight from the file, when the store copies it to disk
    (:mod:`evalcore.store_verdicts`). Rows are numbered in file order, skipping the blank lines
    :func:`build_text` skips, so that row n of the view is row n of the verdicts.
    """
    cur.execute("DROP VIEW IF EXISTS vl_text_source")
    if not texts:
        return

    def text(k: int) -> str:
        # a JSON reader types a column with nulls or mixed values as JSON: a string's text is
        # its value (json_extract_string), anything else its JSON text
        if types[k] == "JSON":
            return f"json_extract_string({_ident(cols[k])}, '$')"
        return f"CAST({_ident(cols[k])} AS VARCHAR)"

    select = ", ".join(
        f"{text(texts[n])} AS {n}" if n in texts else f"NULL::VARCHAR AS {n}" for n in TEXT_COLUMNS
    )
    where = ""
    if delimited:
        blank = " AND ".join(
            f"coalesce(trim(CAST({e} AS VARCHAR), {_WS}), '') = ''" for e in contract.values()
        )
        where = f"WHERE NOT ({blank})"
    cur.execute(
        f'CREATE TEMP VIEW vl_text_source AS SELECT row_number() OVER () AS "row", {select} '
        f"FROM {sql} {where}"
    )


def text_source(cur: duckdb.DuckDBPyConnection) -> str | None:
    """Where the text of the file just read is: the file itself (``vl_text_source``, a verdict
    table) or ``vl_text`` (a converted tool format, whose text the importer produced); None
    when nothing was staged as text (the typed single pass)."""
    found = cur.execute(
        "SELECT count(*) FROM duckdb_views() WHERE view_name = 'vl_text_source' AND temporary"
    ).fetchone()
    if found and found[0]:
        return "vl_text_source"
    # the typed single pass (a table without text columns) builds no vl_text: nothing to copy
    staged = cur.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'vl_text' AND temporary"
    ).fetchone()
    return "vl_text" if staged and staged[0] else None


def _python_native(
    cur: duckdb.DuckDBPyConnection, src: Source, names: list[str], *, origin: str | None, limits: LoadLimits
) -> str:
    """The native files converted by :mod:`evalcore.importers` in Python (small by nature)."""
    import pandas as pd

    from evalcore import importers
    from evalcore.io import read_raw

    probe = pd.DataFrame(columns=[str(n) for n in names])
    if importers.detect_native(probe) is None:
        wrong = importers.wrong_tool_file(probe)
        if wrong is not None:
            raise VerdictFormatError(src.file, wrong[0], hint=wrong[1])
        if src.kind in ("csv", "tsv"):
            located = _locate_text_problem(src)
            if located is not None:
                raise located
        if src.kind in ("csv", "tsv", "parquet") or names:
            missing = [c for c in REQUIRED_COLUMNS if c not in {n.strip().lower() for n in names}]
            raise VerdictFormatError(
                src.file,
                "this is neither a verdict table nor a recognised tool format; "
                "required column(s) missing: " + ", ".join(missing),
                values=tuple(names),
                hint="The header must name "
                + ", ".join(REQUIRED_COLUMNS)
                + " (the values listed are the columns found)",
            )
    size = src.path.stat().st_size
    if size > limits.max_python_bytes:
        raise VerdictFormatError(
            src.file,
            f"this tool's format is converted in memory, and the file is larger than "
            f"the {limits.max_python_bytes / 1024**2:,.0f} MB this server converts that way",
            hint="Split the file, or convert it to a verdict table (Parquet or CSV) and load that",
        )
    raw, container = read_raw(src.path, name=src.file)
    converted = importers.convert_native(raw, file=src.file, path=origin)
    if converted is None:
        raise VerdictFormatError(
            src.file,
            "the file holds no table of records",
            hint="Upload a verdict table or a native file of "
            "Arena-Hard-Auto, AlpacaEval, MT-Bench or Chatbot Arena",
        )
    frame, label = converted
    frame = frame.reset_index(drop=True)
    cur.register("vl_incoming", frame)
    try:
        cur.execute("CREATE OR REPLACE TEMP TABLE vl_frame AS SELECT * FROM vl_incoming")
    finally:
        cur.unregister("vl_incoming")
    build_text(cur, frame_exprs(frame), source="vl_frame")
    return label


def frame_exprs(frame: pd.DataFrame) -> dict[str, str]:
    """Contract column → identifier of a converted frame's column."""
    lowered = {str(c).strip().lower(): str(c) for c in frame.columns}
    return {k: _ident(v) for k, v in lowered.items() if k in (*REQUIRED_COLUMNS, *OPTIONAL_COLUMNS)}
