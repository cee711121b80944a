"""A file on disk → the store's ``verdicts`` table, read and checked inside DuckDB.

CSV, Parquet and JSON (Lines) are read by DuckDB's own readers straight from the path (CSV cells
as text, so that the contract, not a type sniffer, decides what a verdict is). A verdict table is
first read in one typed pass (:mod:`.typed`: read, type and number the rows in one statement,
check them with two aggregates); anything that pass does not vouch for takes the checking path
(:mod:`.validate`): staged as text and checked in SQL with the same messages the pandas validator
gives (file, 1-based data rows, the offending values, what to do). Either way the table is never
a pandas frame. Chatbot Arena battle tables (the published ``clean_battle`` JSON array and its
relatives, :mod:`.arena`) and the anchor paper's judgements are converted in SQL too; the other
tools' native files (Arena-Hard-Auto, AlpacaEval, MT-Bench) are streamed (:mod:`.native`): DuckDB
reads the records in batches, the tool's importer converts each batch, and each batch is
appended to a scratch table, so Python never holds more than one batch.

Modules: :mod:`.sources` (the file, its reader, its columns, messages when DuckDB refuses it),
:mod:`.canonical` (which path a file takes), :mod:`.typed`, :mod:`.validate`, :mod:`.text`
(``vl_text`` and the file's text columns), :mod:`.native`, :mod:`.arena`.

Everything here works on one DuckDB cursor and scratch tables named ``vl_*`` that the caller
drops; :meth:`evalcore.store.store.VerdictStore.load_file` wraps it in a transaction.
"""

from __future__ import annotations

from evalcore.ingest.canonical import Canonical, read_canonical
from evalcore.ingest.native import _frame_exprs as frame_exprs
from evalcore.ingest.sources import NAME_COLUMNS, Source, describe, reader_sql, stage
from evalcore.ingest.sources import _ident as _ident  # SQL quoting, importable from here as before
from evalcore.ingest.text import build_text, text_source, text_source_view
from evalcore.ingest.typed import read_typed
from evalcore.ingest.validate import inspect, level_sql, validate

__all__ = [
    "NAME_COLUMNS",
    "Canonical",
    "Source",
    "build_text",
    "describe",
    "frame_exprs",
    "inspect",
    "level_sql",
    "read_canonical",
    "read_typed",
    "reader_sql",
    "stage",
    "text_source",
    "text_source_view",
    "validate",
]
