"""The tools' native files (Arena-Hard-Auto, AlpacaEval, MT-Bench, Chatbot Arena battle tables)
streamed through their importers, so a file of any size is read once and never held whole in
Python.

DuckDB reads the file straight from its path and hands the records over in batches of
:data:`BATCH_RECORDS`: JSON and JSON Lines as each record's own JSON text (``read_json_objects``,
parsed by Python's ``json`` module, so a record is exactly the object a whole-file read gives),
CSV cells as text (an empty cell as ``''``, as pandas reads it with ``keep_default_na=False``),
Parquet as values. The format's importer (:class:`evalcore.importers.Conversion`) turns each
batch into contract rows, which are appended to the scratch table ``vl_frame``; Python holds one
batch at a time. No format maps a record using another record (each line carries its own
baseline, slot order and turn); what does need the whole file is settled in one of two ways, so
rows, label and every message equal a whole-file conversion
(:func:`evalcore.importers.convert_native`, which runs the same code on one batch):

* the problems found in any record and the counts the format label reports are gathered across
  batches by the conversion and settled at the end;
* what must be known before the first row is worked out first, by SQL over the file: the field
  names of a JSON file's records (:func:`_fields`), and for a battle table whether it is
  MT-Bench's human judgments and whether every judge is a voter id, so the voters are pooled as
  one judge (:func:`_battle_facts`, the rules of
  :func:`evalcore.importers.chatbot_arena.battle_facts`).

Chatbot Arena dumps whose conversations are stored as lists are converted in SQL instead
(:mod:`evalcore.ingest.arena`); the battle tables that path does not take (MT-Bench's human
judgments, conversations stored as text, judges written as lists) come here.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

import duckdb

from evalcore._sql import one_row, sql_literal
from evalcore.ingest.sources import (
    Source,
    _ident,
    _locate_json_problem,
    _locate_text_problem,
    _read_error,
    json_layout,
    reader_sql,
)
from evalcore.ingest.text import build_text
from evalcore.schema import OPTIONAL_COLUMNS, REQUIRED_COLUMNS, TEXT_COLUMNS, VerdictFormatError

if TYPE_CHECKING:
    import pandas as pd

    from evalcore.importers.chatbot_arena import BattleFacts

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
    batch: int | None = None,
) -> str:
    """Convert a native tool file into ``vl_frame`` and ``vl_text``; return the format label.

    ``names`` are the file's columns as DuckDB describes them; ``origin`` the file's own path
    when it came from disk (an Arena-Hard-Auto file without a judge takes it from its folder);
    ``batch`` the records per batch (default :data:`BATCH_RECORDS`). Raises
    :class:`VerdictFormatError` in words for a file that is no recognised format, or with the
    records of the first problem found.
    """
    import pandas as pd

    from evalcore import importers
    from evalcore.importers.chatbot_arena import BattlesConversion

    _refuse_unknown(src, names)
    sql = _records_sql(src, names)
    reader = cur.cursor()  # the file is read on its own connection while cur appends the rows
    try:
        head = next(_batches(reader, src, f"{sql} LIMIT {_HEAD}", _HEAD), [])
        kind = importers.detect_native(head) if head else None
        if kind not in importers.STREAMED:
            # the first records are no tool's format (a whole-file read recognises the same ones)
            wrong = importers.wrong_tool_file(head) if head else None
            if wrong is not None:
                raise VerdictFormatError(src.file, wrong[0], hint=wrong[1])
            raise VerdictFormatError(src.file, _NO_TABLE, hint=_NO_TABLE_HINT)
        assert kind is not None
        conversion = importers.conversion(kind, file=src.file, path=origin)
        if conversion.frames and src.kind in ("json", "jsonl"):
            conversion.fields = _fields(reader, src, sql)
        if isinstance(conversion, BattlesConversion):
            fields = list(conversion.fields) if conversion.fields is not None else names
            conversion.facts = _battle_facts(reader, src, sql, fields)
        rows, start = 0, 1
        types: dict[str, str] = {}
        with importers.reading(kind, file=src.file):
            for records in _batches(reader, src, sql, batch or BATCH_RECORDS):
                got = conversion.convert(records, start=start)
                start += len(records)
                size = len(got) if isinstance(got, pd.DataFrame) else len(next(iter(got.values()), []))
                if size:
                    types = types or _create(cur, got)
                    _append(cur, got, types)
                    rows += size
            label = conversion.noted(conversion.label())
    finally:
        reader.close()
    if not rows:
        raise importers.no_calls(kind, file=src.file, set_aside=conversion)
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
    import pandas as pd

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
            f"required {'column' if len(missing) == 1 else 'columns'} missing: " + ", ".join(missing),
            values=tuple(names),
            hint="The header must name "
            + ", ".join(REQUIRED_COLUMNS)
            + " (the values listed are the columns found)",
        )


def _records_sql(src: Source, names: list[str]) -> str:
    """The query that yields the file's records in file order, in the shape :func:`_batches` reads."""
    path = sql_literal(str(src.path))
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


#: What Python's ``str.strip()`` removes (``str.isspace``), as an RE2 class: a judge name is
#: stripped exactly as the importer strips it.
_PY_SPACE = (
    r"[\x{9}-\x{d}\x{1c}-\x{20}\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}"
    r"\x{205f}\x{3000}]"
)


def _py_strip(expr: str) -> str:
    return f"regexp_replace({expr}, '^{_PY_SPACE}+|{_PY_SPACE}+$', '', 'g')"


def _absent(j: str) -> str:
    """A JSON value pandas holds as missing: no such field, null, or NaN."""
    return f"({j} IS NULL OR json_type({j}) = 'NULL' OR lower(CAST({j} AS VARCHAR)) IN ('nan', '-nan'))"


def _judge_name_sql(j: str) -> str:
    """The judge name :func:`evalcore.importers._common._judge_name` gives a JSON value, as far as
    pooling needs it: text stripped, a list's first item, '' when missing; any other value (a
    number, an object) is a name that is no voter id, written '#'."""

    def name(v: str) -> str:
        text = _py_strip(f"({v} ->> '$')")
        return f"(CASE WHEN {_absent(v)} THEN '' WHEN json_type({v}) = 'VARCHAR' THEN {text} ELSE '#' END)"

    return f"(CASE WHEN NOT {_absent(j)} AND json_type({j}) = 'ARRAY' THEN {name(f'({j} -> 0)')} ELSE {name(j)} END)"


def _json_value(text: str) -> object:
    """A JSON value DuckDB wrote (``to_json`` of a Parquet cell may be ``inf``: kept as text)."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def _battle_facts(reader: duckdb.DuckDBPyConnection, src: Source, sql: str, fields: list[str]) -> BattleFacts:
    """The :class:`evalcore.importers.chatbot_arena.BattleFacts` of a battle table, worked out
    over the whole file before its first batch is converted: the first judges present (is it
    MT-Bench's human judgments?), then one aggregate — are all judges named voter ids, how many
    distinct voters, how many distinct ``judge_hash`` values. ``fields``: the columns of a
    whole-file frame, in order (the importer takes the first that matches a name)."""
    import pandas as pd

    from evalcore.importers.chatbot_arena import MT_BENCH_PROBE, BattleFacts, _is_mt_bench

    def pick(name: str) -> str | None:
        return next((f for f in fields if f.strip().lower() == name), None)

    def value(field: str) -> str:  # the field of each record as a JSON value
        if src.kind in ("json", "jsonl"):
            path = '$."' + field.replace("\\", "\\\\").replace('"', '\\"') + '"'
            return f"json_extract(json, {sql_literal(path)})"
        return f"to_json({_ident(field)})"

    judge, voter_hash = pick("judge"), pick("judge_hash")
    try:
        if judge is not None:
            probe = reader.execute(
                f"SELECT CAST(j AS VARCHAR) FROM (SELECT {value(judge)} AS j FROM ({sql})) "
                f"WHERE NOT {_absent('j')} LIMIT {MT_BENCH_PROBE}"
            ).fetchall()
            if _is_mt_bench(pd.Series([_json_value(r[0]) for r in probe], dtype=object)):
                return BattleFacts(mt_bench=True)
            present, voters_only, voters = one_row(
                reader.execute(f"""SELECT count(*) FILTER (WHERE name <> ''),
                        bool_and(starts_with(name, 'arena_user')) FILTER (WHERE name <> ''),
                        count(DISTINCT name) FILTER (WHERE name <> '')
                    FROM (SELECT {_judge_name_sql(value(judge))} AS name FROM ({sql}))""")
            )
            return BattleFacts(voters=int(voters) if present and voters_only else None)
        if voter_hash is not None:
            key = (
                f"CASE WHEN {_absent('h')} THEN NULL WHEN json_type(h) = 'VARCHAR' "
                "THEN 's' || (h ->> '$') ELSE 'j' || CAST(h AS VARCHAR) END"
            )
            (hashes,) = one_row(
                reader.execute(
                    f"SELECT count(DISTINCT {key}) FROM (SELECT {value(voter_hash)} AS h FROM ({sql}))"
                )
            )
            return BattleFacts(hashes=int(hashes))
    except duckdb.Error as exc:
        raise _read_error(src, exc) from exc
    return BattleFacts()


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
            if records:  # a batch of blank lines only is no batch
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
    import pandas as pd

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
    import pandas as pd
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


def _frame_exprs(columns: Iterable[object]) -> dict[str, str]:
    """Contract column → identifier of a converted frame's column."""
    lowered = {str(c).strip().lower(): str(c) for c in columns}
    return {k: _ident(v) for k, v in lowered.items() if k in (*REQUIRED_COLUMNS, *OPTIONAL_COLUMNS)}
