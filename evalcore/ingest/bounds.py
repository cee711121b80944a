"""The row limit checked before a file is loaded, cheaply (issue 30: a 3 MB gzip file of 150
million valid rows was found too big only by the allocator, after minutes at gigabytes).

A gzip stream's lines are counted while it is decompressed (:func:`evalcore.ingest.files.prepare_source`);
here, before the full load: a Parquet file's row count from its footer, and for any other file
large enough to hold more rows than the limit, a ``LIMIT`` probe that counts at most one row past
the limit as DuckDB streams the file (no row is kept). A small file cannot hold too many rows
(every row of any accepted layout takes at least :data:`MIN_ROW_BYTES`) and is not probed, nor is
a file whose bytes bound its rows below the limit (:func:`row_bound`: line ends of a CSV, the
``{`` of a JSON record), which is most large files: DuckDB's probe parsed a 390 MB Chatbot Arena
dump once more only to count it.
"""

from __future__ import annotations

import duckdb

from evalcore._sql import sql_literal
from evalcore.ingest.sources import Source, _read_error
from evalcore.limits import LoadLimits
from evalcore.schema import VerdictFormatError

#: The fewest bytes one row takes in a text file (``a,b,c,1`` and its line end).
MIN_ROW_BYTES = 8


def row_bound(src: Source, *, chunk: int = 1 << 24) -> int:
    """At most how many rows a text file holds, from its bytes alone: a CSV or TSV row ends at a
    line end (``\\n`` or ``\\r``; a line end inside a quoted field, or a ``\\r\\n`` pair, only
    makes the bound larger), and every JSON record is an object, which opens with ``{`` (the
    reader takes records only; a ``{`` inside a string or a nested object only makes the bound
    larger). Counting bytes reads the file once at memory speed, where DuckDB's probe parses it.
    """
    marks = (b"{",) if src.kind in ("json", "jsonl") else (b"\n", b"\r")
    total = 0
    with open(src.path, "rb") as handle:
        while block := handle.read(chunk):
            total += sum(block.count(mark) for mark in marks)
    return total + 1


def check_rows(cur: duckdb.DuckDBPyConnection, src: Source, sql: str, *, limits: LoadLimits) -> None:
    """Refuse ``src`` in words when it holds more than ``limits.max_rows`` rows.

    Raises
    ------
    VerdictFormatError
        Naming the file, the limit and what to do (split it, a sample, the limit raised).
    """
    cap = limits.max_rows
    if src.kind == "parquet":
        try:
            # fetchall, not fetchone: the result is finished, so the cursor is free for the
            # next statement (DuckDB refuses a register() while a result is open)
            rows = cur.execute(
                f"SELECT coalesce(sum(num_rows), 0) FROM parquet_file_metadata({sql_literal(str(src.path))})"
            ).fetchall()[0][0]
        except duckdb.Error as exc:
            raise _read_error(src, exc) from exc
        if rows > cap:
            raise VerdictFormatError(
                src.file,
                f"the file has {rows:,} rows, over the limit of {cap:,} rows this server accepts",
                hint=limits.rows_advice,
            )
        return
    if src.path.stat().st_size <= MIN_ROW_BYTES * (cap + 1):
        return
    if row_bound(src) <= cap:  # counted in bytes, a tenth of the time DuckDB takes to parse it
        return
    try:
        seen = cur.execute(f"SELECT count(*) FROM (SELECT 1 FROM {sql} LIMIT {int(cap) + 1})").fetchall()[0][
            0
        ]
    except duckdb.Error as exc:
        raise _read_error(src, exc) from exc
    if seen > cap:
        raise VerdictFormatError(
            src.file,
            f"the file has more than {cap:,} rows (counting stopped there), over the limit of "
            f"{cap:,} rows this server accepts",
            hint=limits.rows_advice,
        )
