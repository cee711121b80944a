"""The tools' native files (Arena-Hard-Auto, AlpacaEval, MT-Bench, arena one-hot tables) streamed
through their importers, so a file of any size is read once and never held whole in Python.

DuckDB reads the file straight from its path and hands the records over in batches of
:data:`BATCH_RECORDS`: JSON and JSON Lines as each record's own JSON text (``read_json_objects``,
parsed by Python's ``json`` module, so a record is exactly the object a whole-file read gives),
CSV cells as text (an empty cell as ``''``, as pandas reads it with ``keep_default_na=False``),
Parquet as values. The format's importer (:class:`evalcore.importers.Conversion`) turns each
batch into contract rows, which are appended to the scratch table ``vl_frame``; Python holds one
batch at a time. None of these formats maps a record using another record (each line carries
its own baseline, slot order and turn); what does need the whole file — the problems found in
any record and the counts the format label reports — is gathered across batches by the
conversion and settled at the end, so rows, label and every message equal a whole-file
conversion (:func:`evalcore.importers.convert_native`, which runs the same code on one batch).

Chatbot Arena battle tables the SQL path (:mod:`evalcore.ingest.arena`) does not take —
MT-Bench's human judgments (rater ids) and conversations stored as text — need the whole table
(voters are pooled as one judge only when every judge is a voter id) and are converted whole in
Python; they are small by nature (MT-Bench's human judgments are about 3,000 rows), and
:attr:`evalcore.limits.LoadLimits.max_python_bytes` bounds them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

import duckdb
import pandas as pd

from evalcore.ingest.sources import (
    Source,
    _ident,
    _lit,
    _locate_json_problem,
    _locate_text_problem,
    _read_error,
    json_layout,
    reader_sql,
)
from evalcore.ingest.text import build_text
from evalcore.limits import LoadLimits
from evalcore.schema import OPTIONAL_COLUMNS, REQUIRED_COLUMNS, TEXT_COLUMNS, VerdictFormatError

#: Records per batch: big enough that DuckDB's reader and the per-batch overhead are amortised,
#: small enough that one batch of Arena-Hard-Auto records (about 15 KB of judge text each) stays
#: within a few hundred megabytes.
BATCH_RECORDS = 20_000
#: Records the format is recognised from (as :func:`evalcore.importers.detect_native` reads a
#: whole file: the field names of its first 200 records).
_HEAD = 200

_NO_TABLE = "the file holds no table of records"
_NO_TABLE_HINT = (
    "Upload a verdict table or a native file of Arena-Hard-Auto, AlpacaEval, MT-Bench or Chatbot Arena"
)


def convert_native(
    cur: duckdb.DuckDBPyConnection,
    src: Source,
    names: list[str],
    *,
    origin: str | None,
    limits: LoadLimits,
    batch: int | None = None,
) -> str:
    """Convert a native tool file into ``vl_frame`` and ``vl_text``; return the format label.

    ``names`` are the file's columns as DuckDB describes them; ``origin`` the file's own path
    when it came from disk (an Arena-Hard-Auto file without a judge takes it from its folder);
    ``batch`` the records per batch (default :data:`BATCH_RECORDS`). Raises
    :class:`VerdictFormatError` in words for a file that is no recognised format, or with the
    records of the first problem found.
    """
    from evalcore import importers

    _refuse_unknown(src, names)
    sql = _records_sql(src, names)
    reader = cur.cursor()  # the file is read on its own connection while cur appends the rows
    try:
        head = next(_batches(reader, src, f"{sql} LIMIT {_HEAD}", _HEAD), [])
        kind = importers.detect_native(head) if head else None
        if kind not in importers.STREAMED:
            return _whole(cur, src, origin=origin, limits=limits)
        assert kind is not None
        conversion = importers.conversion(kind, file=src.file, path=origin)
        if conversion.frames and src.kind in ("json", "jsonl"):
            conversion.fields = _fields(reader, src, sql)
        rows, start = 0, 1
        types: dict[str, str] = {}
        with importers.reading(kind, file=src.file):
            for records in _batches(reader, src, sql, batch or BATCH_RECORDS):
                got = conversion.columns(records, start=start)
                start += len(records)
                size = len(got) if isinstance(got, pd.DataFrame) else len(next(iter(got.values()), []))
                if size:
                    types = types or _create(cur, got)
                    _append(cur, got, types)
                    rows += size
            label = conversion.label()
    finally:
        reader.close()
    if not rows:
        raise importers.no_calls(kind, file=src.file)
    # the text stays in vl_frame (not copied into vl_text): the store copies it from this view,
    # whose rows are numbered as build_text numbers vl_frame's (rowid + 1)
    exprs = {k: v for k, v in _frame_exprs(list(types)).items() if k not in TEXT_COLUMNS}
    build_text(cur, exprs, source="vl_frame")
    texts = [c for c in TEXT_COLUMNS if c in types]
    if texts:
        select = ", ".join(_ident(c) if c in texts else f"NULL::VARCHAR AS {c}" for c in TEXT_COLUMNS)
        cur.execute(
            f'CREATE OR REPLACE TEMP VIEW vl_text_source AS SELECT rowid + 1 AS "row", {select} FROM vl_frame'
        )
    return label


def _refuse_unknown(src: Source, names: list[str]) -> None:
    """A file whose columns are no tool's format: the messages of a whole-file read."""
    from evalcore import importers

    probe = pd.DataFrame(columns=[str(n) for n in names])
    if importers.detect_native(probe) is not None:
        return
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


def _records_sql(src: Source, names: list[str]) -> str:
    """The query that yields the file's records in file order, in the shape :func:`_batches` reads."""
    path = _lit(str(src.path))
    # the options of reader_sql's read_json: a JSON Lines reader given a large object size
    # allocates buffers of twice that size per thread, past a session's memory cap
    if src.kind == "jsonl":
        return f"SELECT json FROM read_json_objects({path}, format='newline_delimited')"
    if src.kind == "json":
        layout = json_layout(src)
        return f"SELECT json FROM read_json_objects({path}, format='{layout}', maximum_object_size=268435456)"
    if src.kind in ("csv", "tsv"):
        cells = ", ".join(f"coalesce(c{k}, '') AS {_ident(n)}" for k, n in enumerate(names))
        return f"SELECT {cells} FROM {reader_sql(src, names)}"
    return f"SELECT * FROM {reader_sql(src)}"


def _fields(reader: duckdb.DuckDBPyConnection, src: Source, sql: str) -> tuple[str, ...]:
    """The field names of a JSON file's records in order of first appearance (the columns a
    frame of the whole file has), by one aggregate over the file."""
    try:
        found = reader.execute(f"""SELECT k FROM (
                SELECT n, unnest(json_keys(json)) AS k, unnest(range(len(json_keys(json)))) AS pos
                FROM (SELECT row_number() OVER () AS n, json FROM ({sql})))
            GROUP BY k ORDER BY min(n), arg_min(pos, n)""").fetchall()
    except duckdb.Error as exc:
        raise _read_error(src, exc) from exc
    return tuple(str(r[0]) for r in found)


def _batches(reader: duckdb.DuckDBPyConnection, src: Source, sql: str, size: int) -> Iterator[list]:
    """The records of ``sql`` (see :func:`_records_sql`) as lists of dicts, ``size`` at a time."""
    try:
        result = reader.execute(sql)
        columns = [str(d[0]) for d in result.description or ()]
        while got := result.fetchmany(size):
            if src.kind in ("json", "jsonl"):
                records = [_parse(src, r[0]) for r in got]
            else:
                records = [dict(zip(columns, r, strict=True)) for r in got]
                if src.kind in ("csv", "tsv"):  # a blank line is no record (as pandas reads it)
                    records = [r for r in records if any(v != "" for v in r.values())]
            yield records
    except duckdb.Error as exc:
        raise _read_error(src, exc) from exc


def _parse(src: Source, text: str) -> dict:
    try:
        record = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise _read_error(src, exc) from exc
    if not isinstance(record, dict):
        located = _locate_json_problem(src) if src.kind == "jsonl" else None
        raise located or VerdictFormatError(src.file, _NO_TABLE, hint=_NO_TABLE_HINT)
    return record


def _create(cur: duckdb.DuckDBPyConnection, got: dict[str, list] | pd.DataFrame) -> dict[str, str]:
    """``vl_frame`` for the first batch's columns: numbers as DOUBLE, everything else as text (so
    a later batch whose text cells are all empty, or all filled, fits the same table)."""

    def number(name: str) -> bool:
        if isinstance(got, pd.DataFrame):
            return pd.api.types.is_float_dtype(got[name].dtype)
        return any(isinstance(v, float) for v in got[name][:1]) or name.startswith("length_")

    types = {str(c): "DOUBLE" if number(c) else "VARCHAR" for c in got}
    spec = ", ".join(f"{_ident(c)} {t}" for c, t in types.items())
    cur.execute(f"CREATE OR REPLACE TEMP TABLE vl_frame ({spec})")
    return types


def _append(
    cur: duckdb.DuckDBPyConnection, got: dict[str, list] | pd.DataFrame, types: dict[str, str]
) -> None:
    """Append one batch's rows to ``vl_frame``: lists go to DuckDB as Arrow arrays (no frame is
    built: a frame of text columns costs more than the conversion itself), frames as they are."""
    import pyarrow as pa

    if isinstance(got, pd.DataFrame):
        incoming: object = got
    else:
        arrow = {"DOUBLE": pa.float64(), "VARCHAR": pa.string()}
        # from_pandas: a NaN length is a missing value, as when a frame is read
        incoming = pa.table({c: pa.array(got[c], type=arrow[types[c]], from_pandas=True) for c in types})
    cur.register("vl_incoming", incoming)
    try:
        cast = ", ".join(f"CAST({_ident(c)} AS {t})" for c, t in types.items())
        cur.execute(f"INSERT INTO vl_frame SELECT {cast} FROM vl_incoming")
    finally:
        cur.unregister("vl_incoming")


def _whole(cur: duckdb.DuckDBPyConnection, src: Source, *, origin: str | None, limits: LoadLimits) -> str:
    """A battle table the SQL path does not take (see the module docstring): converted whole."""
    from evalcore import importers
    from evalcore.io import read_raw

    size = src.path.stat().st_size
    if size > limits.max_python_bytes:
        raise VerdictFormatError(
            src.file,
            f"this battle table is converted in memory, and the file is larger than "
            f"the {limits.max_python_bytes / 1024**2:,.0f} MB this server converts that way",
            hint="Split the file, or convert it to a verdict table (Parquet or CSV) and load that",
        )
    raw, _ = read_raw(src.path, name=src.file)
    converted = importers.convert_native(raw, file=src.file, path=origin)
    if converted is None:
        raise VerdictFormatError(src.file, _NO_TABLE, hint=_NO_TABLE_HINT)
    frame, label = converted
    frame = frame.reset_index(drop=True)
    cur.register("vl_incoming", frame)
    try:
        cur.execute("CREATE OR REPLACE TEMP TABLE vl_frame AS SELECT * FROM vl_incoming")
    finally:
        cur.unregister("vl_incoming")
    build_text(cur, _frame_exprs(frame.columns), source="vl_frame")
    return label


def _frame_exprs(columns: Iterable[object]) -> dict[str, str]:
    """Contract column → identifier of a converted frame's column."""
    lowered = {str(c).strip().lower(): str(c) for c in columns}
    return {k: _ident(v) for k, v in lowered.items() if k in (*REQUIRED_COLUMNS, *OPTIONAL_COLUMNS)}
