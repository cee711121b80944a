"""The typed single pass: a valid verdict table read, typed and numbered in one statement and
checked by two aggregates (:func:`read_typed`); anything it does not vouch for returns None and
takes the checking path (:mod:`evalcore.ingest.validate`)."""

from __future__ import annotations

import duckdb
import numpy as np

from evalcore._sql import one_row, sql_literal
from evalcore.ingest.sources import _CONTROL, _INVISIBLE, _WS_CODES, NAME_COLUMNS
from evalcore.ingest.validate import _duplicate_rows
from evalcore.limits import LoadLimits
from evalcore.schema import (
    BOTH_BAD_LABELS,
    DEFAULT_JUDGE,
    NO_VERDICT_TOKENS,
    VERDICT_LABELS,
    ValidationReport,
    _label_to_level,
    normalise_label,
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


def _odd_id(expr: str) -> str:
    """Whether the instruction id ``expr`` is one :data:`_ODD_ID` matches (the same answer, NULL
    for NULL), with the regular expression run only where a cheaper test cannot rule it out.

    That test clears an id of ASCII characters only (its bytes as many as its characters: nearly
    every id) with no byte below 32 (JSON writes each of those escaped, so the JSON text would be
    longer than the id and its two quotes; a quote or a backslash lengthens it too and is merely
    looked at), no byte 127 and no space at either end: such an id has no control character and
    no whitespace at an end (the no-break space and the byte-order mark are not ASCII). At 1.8 M
    arena ids the regular expression on every id took 0.18 s of CPU, this about 0.05 s."""
    clear = (
        f"strlen({expr}) = length({expr}) AND strlen(to_json({expr})) = strlen({expr}) + 2 "
        f"AND NOT contains({expr}, chr(127)) AND NOT ({expr} LIKE ' %' OR {expr} LIKE '% ')"
    )
    return f"(CASE WHEN {clear} THEN false ELSE regexp_matches({expr}, '{_ODD_ID}') END)"


def _spellings() -> dict[str, int | None]:
    """The verdict spellings the typed pass maps on sight: each contract label and no-verdict
    token as listed, in capitals and capitalised, MT-Bench's ``[[A]]``, and the levels as
    integers and decimals. The labels that also mark a tie both bad (``tie (bothbad)``) are left
    to the checking path, which keeps that mark.
    Each level comes from :func:`evalcore.schema.normalise_label` and ``_label_to_level`` (the
    rule of the checking path), so the two paths agree by construction."""
    words = (set(VERDICT_LABELS) - BOTH_BAD_LABELS) | set(NO_VERDICT_TOKENS)
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
    cases = " ".join(f"WHEN {sql_literal(k)} THEN {'NULL' if v is None else v}" for k, v in order)
    return f"CASE WHEN {text} IS NULL THEN NULL ELSE (CASE {text} {cases} ELSE {_UNSEEN} END) END"


def _fast_length(expr: str, dtype: str) -> str:
    """A length column → DOUBLE, NULL if empty or NaN, −1 for what is not a number (refused).

    DuckDB compares NaN equal to NaN, so ``nullif(…, NaN)`` drops it; the no-verdict tokens
    are looked at only where the number is missing.
    """
    if dtype == "DOUBLE" or dtype in _INTEGER_TYPES:
        return f"nullif(CAST({expr} AS DOUBLE), 'nan'::DOUBLE)"  # exact: no text round trip needed
    text = expr if dtype == "VARCHAR" else f"CAST({expr} AS VARCHAR)"
    tokens = ", ".join(sql_literal(x) for x in sorted(NO_VERDICT_TOKENS))
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
) -> tuple[ValidationReport, bool, dict[tuple, tuple[str, ...]]] | None:
    """The common case in one read: the file straight into ``table``, typed as ``verdicts``.

    ``sql`` reads ``width`` columns; ``columns`` maps each contract column the file has to
    (position, DuckDB type). The rows are read once, typed as the store keeps them (names as
    written, verdicts mapped by sight, lengths as numbers) and numbered in file order; one
    aggregate over the table and one over its distinct names then check the contract and gather
    the load report. Any sign of trouble — an empty name, a verdict or length not recognised on
    sight, a name with surrounding spaces, control or invisible characters, a limit passed, rows
    out of order — returns None with ``table`` dropped, and the caller takes the checking path
    (:func:`validate`), which finds the exact rows and values and words the message. So a valid
    file loads in one pass and an invalid one is refused with the same message as before.

    Returns the load report, whether every row has its own (instruction, model_a, model_b,
    judge) (then one judge's cells are its rows, and :meth:`~evalcore.store.store.VerdictStore.counts`
    need not group them), and the table's judges, categories and models as the store lists them
    (keyed as :meth:`~evalcore.store.store.VerdictStore.judges`, ``categories`` and ``models``
    keep them).
    """
    if any(name not in _FAST_COLUMNS for name in columns):
        return None

    def col(name: str) -> tuple[str, str] | None:
        found = columns.get(name)
        return None if found is None else (f"vl_src.c{found[0]}", found[1])

    # The rows' numbers: a numbered read (WITH ORDINALITY) runs on one thread, 0.50 s against
    # 0.27 s for 1.8 M Parquet rows and 0.40 against 0.22 s for 866,250 CSV rows. Parquet numbers
    # its rows itself as it reads them in parallel; a CSV table is created in file order (DuckDB
    # keeps the order of a single source) and numbered from its row ids afterwards; JSON is read
    # on one thread either way and keeps the numbered read.
    positional = ", ".join(f"c{k}" for k in range(width))
    numbered = (f"{sql} WITH ORDINALITY AS vl_src({positional}, vl_row)", "vl_src.vl_row")
    reads = [numbered]  # (source, the row's number)
    if sql.startswith("read_parquet(") and sql.endswith(")"):
        # (the numbered read stays for a file with a column the reader's number would shadow)
        reads.insert(
            0, (f"{sql[:-1]}, file_row_number = true) AS vl_src({positional}, vl_row)", "vl_src.vl_row + 1")
        )
    elif sql.startswith("read_csv("):
        reads = [(f"{sql} AS vl_src({positional})", "NULL")]
    select = []
    for name in ("instruction_id", "model_a", "model_b"):
        expr, _ = col(name)  # type: ignore[misc]  # required columns, checked by the caller
        select.append(f"CAST({expr} AS VARCHAR) AS {name}")
    verdict = col("verdict")
    assert verdict is not None
    select.append(f"CAST({_fast_level(*verdict)} AS TINYINT) AS verdict")
    judge = col("judge")
    select.append(
        f"coalesce(nullif(CAST({judge[0]} AS VARCHAR), ''), {sql_literal(DEFAULT_JUDGE)}) AS judge"
        if judge
        else f"{sql_literal(DEFAULT_JUDGE)} AS judge"
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
    for attempt, (source, row) in enumerate(reads, start=1):
        try:
            cur.execute(
                f'CREATE OR REPLACE TABLE {table} AS SELECT CAST({row} AS BIGINT) AS "row", '
                f"{', '.join(select)} FROM {source}"
            )
            if row == "NULL":
                cur.execute(f'UPDATE {table} SET "row" = rowid + 1')
            break
        except duckdb.Error:
            cur.execute(f"DROP TABLE IF EXISTS {table}")
            if attempt == len(reads):
                return None  # the checking path reads it again and words the reader's complaint
    # Instruction ids may be as many as the rows (an arena table): checked row by row (a control
    # character, or whitespace at either end: :func:`_odd_id`). An exact repeat
    # needs the same instruction, pair and judge: distinct hashes of those four for every row
    # rule repeats out (equal hashes may be a collision; then the rows are looked at).
    (rows, misnumbered, empty, unseen, bad_length, verdicts, self_rows, odd_ids, distinct_keys) = one_row(
        cur.execute(f"""SELECT count(*), count(*) FILTER (WHERE "row" <> rowid + 1),
            count(*) FILTER (WHERE coalesce(instruction_id, '') = ''),
            count(*) FILTER (WHERE verdict = {_UNSEEN} OR human = {_UNSEEN}),
            count(*) FILTER (WHERE length_a < 0 OR isinf(length_a) OR length_b < 0 OR isinf(length_b)),
            count(verdict), count(*) FILTER (WHERE model_a = model_b),
            count(*) FILTER (WHERE {_odd_id("instruction_id")}),
            count(DISTINCT hash(instruction_id, model_a, model_b, judge))
            FROM {table}""")
    )
    # The other names are few (models, judges, categories): one scan for the distinct values of
    # each, then the character checks on those values only.
    names = ", ".join(_FEW_NAMES)
    # (the judges, categories and models, sorted as the store lists them, come along: the store keeps
    # them for the loaded table instead of scanning it again)
    # (an empty or missing model name is looked for here too, among the few distinct names,
    # not row by row: the row-by-row test took 0.022 s of CPU at 866,250 rows, 0.008 for the ids
    # alone)
    slots = f"{_grouping_id('model_a')}, {_grouping_id('model_b')}"
    (empty_models, control, padded, invisible, n_models, judges, categories, models) = one_row(
        cur.execute(f"""WITH d AS (
                SELECT coalesce({names}) AS v, GROUPING_ID({names}) AS g FROM {table}
                GROUP BY GROUPING SETS ({", ".join(f"({n})" for n in _FEW_NAMES)}))
            SELECT count(*) FILTER (WHERE g IN ({slots}) AND coalesce(v, '') = ''),
                count(*) FILTER (WHERE regexp_matches(v, '{_CONTROL}')),
                count(*) FILTER (WHERE {_padded("v")}),
                count(*) FILTER (WHERE regexp_matches(v, '{_INVISIBLE}')),
                count(DISTINCT v) FILTER (WHERE g IN ({slots})),
                coalesce(list(v ORDER BY v) FILTER (WHERE g = {_grouping_id("judge")}), []),
                coalesce(list(v ORDER BY v) FILTER (WHERE g = {_grouping_id("category")} AND v IS NOT NULL), []),
                coalesce(list(DISTINCT v ORDER BY v)
                         FILTER (WHERE g IN ({slots})), [])
            FROM d""")
    )
    trouble = (
        rows == 0
        or rows > limits.max_rows
        or misnumbered
        or empty
        or empty_models
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
    kept = {("judges",): tuple(judges), ("categories",): tuple(categories), ("models",): tuple(models)}
    return report, distinct_keys == rows, kept


def _grouping_id(name: str) -> int:
    """``GROUPING_ID(_FEW_NAMES)`` of the grouping set of ``name`` alone: a bit per column left
    out, the first column the highest."""
    k = len(_FEW_NAMES)
    return sum(1 << (k - 1 - i) for i, n in enumerate(_FEW_NAMES) if n != name)
