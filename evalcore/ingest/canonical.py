"""Which path a file takes to its canonical rows (:func:`read_canonical`): the typed single pass,
the checking path, or a tool's native format converted in SQL or streamed."""

from __future__ import annotations

from dataclasses import dataclass

import duckdb

from evalcore.features import feature_columns
from evalcore.ingest import counts_table
from evalcore.ingest.bounds import check_rows
from evalcore.ingest.native import convert_native
from evalcore.ingest.sources import Source, _ident, describe, set_aside_rows, stage, with_note
from evalcore.ingest.text import _split_text, build_text, text_source_view
from evalcore.ingest.typed import read_typed
from evalcore.ingest.validate import _check_header, inspect, validate
from evalcore.limits import LoadLimits
from evalcore.schema import (
    REQUIRED_COLUMNS,
    ValidationReport,
)


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
    #: what the typed pass learnt of the table that the store would read again (its judges,
    #: categories and models), keyed as the store keeps them
    kept: dict | None = None


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
    check_rows(cur, src, sql, limits=limits)  # before any row is loaded
    delimited = src.kind in ("csv", "tsv")
    cols = [f"c{k}" for k in range(len(names))] if delimited else names
    lowered = [n.strip().lower() for n in names]
    if counts_table.is_counts_table(lowered):
        return _read_counts(cur, src, sql, cols, lowered, limits=limits)
    if set(REQUIRED_COLUMNS) <= set(lowered):
        positions = _check_header(names, file=src.file)
        for name in dict.fromkeys(feature_columns(names)):
            positions[name] = lowered.index(name)
        label = f"verdict table ({src.label})"
        # text columns (prompts, answers, judge outputs, call ids, times, kept verbatim) are never
        # staged or checked: the store copies them from the file (text_source_view) on either path
        positions, texts = _split_text(positions)
        # the typed single pass takes the plain contract columns (no features)
        typed = {name: (k, types[k]) for name, k in positions.items()}
        typed_pass = read_typed(cur, sql, len(names), typed, limits=limits)
        contract = {n: _ident(cols[k]) for n, k in positions.items()}
        if typed_pass is not None:
            # its rows are the file's rows in order (a blank or empty row sends a file to the
            # checking path), so the view's numbers are the typed table's
            text_source_view(cur, sql, contract, texts, cols, types, delimited)
            return Canonical(label, "vl_typed", *typed_pass)
        stage(cur, src, sql, ", ".join(f"{_ident(cols[k])} AS {name}" for name, k in positions.items()))
        build_text(cur, {name: name for name in positions}, skip_blank=delimited)
        text_source_view(cur, sql, contract, texts, cols, types, delimited)
    else:
        found: str | None = None
        from evalcore.importers import judgements_900k as j900
        from evalcore.ingest.arena import arena_select, convert_arena

        arena = arena_select(names, cols, types)
        if (paper := j900.judgements_select(names, cols, types)) is not None:  # the paper's release
            stage(cur, src, sql, paper)
            note = set_aside_rows(cur, src, j900.NAME)
            exprs, found = j900.convert_judgements(cur, has_judge="judge_model" in lowered)
            found = with_note(found, note)
            build_text(cur, exprs, source=j900.VIEW, row="vl_rowid + 1")
        elif arena is not None:
            stage(cur, src, sql, arena[0])
            note = set_aside_rows(cur, src, "Chatbot Arena battle table")
            converted = convert_arena(cur, arena[1], file=src.file)
            if converted is not None:
                build_text(cur, converted[0], source="vl_arena", row="vl_rowid + 1")
                found = with_note(converted[1], note)
        label = found if found is not None else convert_native(cur, src, names, origin=origin)
    validate(cur, file=src.file, limits=limits)
    return Canonical(label)


def _read_counts(
    cur: duckdb.DuckDBPyConnection,
    src: Source,
    sql: str,
    cols: list[str],
    lowered: list[str],
    *,
    limits: LoadLimits,
) -> Canonical:
    """A counts table (:mod:`evalcore.ingest.counts_table`): its rows checked like a verdict
    table's (messages name the counts table's rows), then stored as its rows, each weighing the
    calls it counts (the row limit, checked before, bounds the rows, not the calls)."""
    positions = counts_table.staged_names(lowered)
    count = _ident(cols[lowered.index(counts_table.COUNT)])
    select = ", ".join(f"{_ident(cols[k])} AS {name}" for name, k in positions.items())
    stage(cur, src, sql, f"{select}, {count} AS vl_n")
    counts_table.check_counts(cur, "vl_n", file=src.file)
    cur.execute(
        'CREATE OR REPLACE TEMP TABLE vl_ncalls AS SELECT rowid + 1 AS "row", '
        "CAST(TRY_CAST(trim(CAST(vl_n AS VARCHAR)) AS DOUBLE) AS BIGINT) AS n FROM vl_raw"
    )
    build_text(cur, {name: name for name in positions})
    validate(cur, file=src.file, limits=limits)
    counts_table.weigh_counts(cur, feature_columns(positions))
    return Canonical(
        f"counts table ({src.label})", None, counts_table.counts_report(inspect(cur, "vl_canon"))
    )
