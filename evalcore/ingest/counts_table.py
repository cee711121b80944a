"""The counts table: judge calls counted where they live, in one definition every engine renders.

Every analysis reads calls counted per (judge, category, instruction, slot-A model, slot-B
model, verdict level, human label), plus a few per-call sums (answer lengths, ``feat_*``
features). A *counts table* is exactly that, one row per group:

=================  ======================================================================
column             meaning
=================  ======================================================================
``judge``          the judge (``judge`` when the verdict table has no judge column)
``category``       the category, or empty
``instruction_id`` the instruction
``model_a``        the model in slot A
``model_b``        the model in slot B
``verdict``        the level −2..+2 (slot A's view); empty for calls that returned none
``human``          the human label on the same scale, or empty
``n_calls``        how many calls the row stands for (a whole number, at least 1)
``<x>_sum``        for ``length_a``, ``length_b`` and each ``feat_<name>_a|b``: the sum over
                   the row's calls; empty when any of them lacks the value
=================  ======================================================================

:func:`counts_sql` renders that aggregation for DuckDB, Spark SQL, BigQuery and PostgreSQL from
one description (:data:`KEYS`, :data:`COUNT`, :func:`sum_column`, the contract's labels in
:mod:`evalcore.schema`), and the store runs the DuckDB rendering itself
(:meth:`evalcore.store.store.VerdictStore.counts_table`, and :func:`aggregate_files` for a folder of
Parquet files), so the SQL a team runs on its warehouse cannot drift from what Verdict Lab
computes. :func:`is_counts_table`, :func:`check_counts` and :func:`weigh_counts` read a counts table back
(:func:`evalcore.ingest.canonical.read_canonical`): its rows are checked against the contract like
a verdict table's, then stored as they are, each with its count as its weight (the store's
:data:`WEIGHT` column, which every aggregate sums) and its mean length, so every analysis reads
it unchanged and the row limit bounds its rows, not the calls they count.

The SQL for a raw table groups the calls by their values as written first and trims names and
maps labels once per group: a billion calls carry a few million distinct groups, and the text work
is most of the cost (counting 100 million calls took 68 s of CPU mapping every call, 54 s this way).
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import duckdb

from evalcore._sql import one_row, sql_literal
from evalcore.errors import ResourceLimitError, UsageError
from evalcore.schema import DEFAULT_JUDGE, NO_VERDICT_TOKENS, VERDICT_LABELS, VerdictFormatError
from evalcore.text import fmt_count

#: The grouping columns, in the counts table's order.
KEYS: tuple[str, ...] = ("judge", "category", "instruction_id", "model_a", "model_b", "verdict", "human")
#: The column holding how many calls a row stands for.
COUNT = "n_calls"
#: The store's column holding how many calls a stored row stands for (1 for a verdict table's
#: rows; a counts table's rows are stored as they are, with their count here).
WEIGHT = "weight"
#: The most calls one counts-table row may stand for (the store keeps a row's weight in 4 bytes).
MAX_ROW_CALLS = 2**31 - 1
#: Per-call numbers summed per row (plus every ``feat_<name>_a|b`` column).
SUMMED: tuple[str, ...] = ("length_a", "length_b")
#: Optional contract columns the verdict table may lack (rendered as their default).
OPTIONAL: tuple[str, ...] = ("judge", "human", "length_a", "length_b", "category")
DIALECTS: tuple[str, ...] = ("duckdb", "spark", "bigquery", "postgres")

_TEXT = {"duckdb": "VARCHAR", "spark": "STRING", "bigquery": "STRING", "postgres": "TEXT"}
_FLOAT = {"duckdb": "DOUBLE", "spark": "DOUBLE", "bigquery": "FLOAT64", "postgres": "DOUBLE PRECISION"}
# a number as Python's float() reads one (no backslashes: Spark's string literals would eat them)
_NUMBER = "^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?$"
_TABLE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_$-]*(\.[A-Za-z_][A-Za-z0-9_$-]*){0,2}$")
_FEATURE = re.compile(r"^feat_[a-z0-9_]+_[ab]$")


def sum_column(column: str) -> str:
    """The counts table's name for the per-row sum of ``column`` (``length_a`` → ``length_a_sum``)."""
    return f"{column}_sum"


def _matches(dialect: str, expr: str, pattern: str) -> str:
    if dialect == "duckdb":
        return f"regexp_matches({expr}, {sql_literal(pattern)})"
    if dialect == "spark":
        return f"({expr} RLIKE {sql_literal(pattern)})"
    if dialect == "bigquery":
        return f"REGEXP_CONTAINS({expr}, {sql_literal(pattern)})"
    return f"({expr} ~ {sql_literal(pattern)})"


def label_expr(column: str, dialect: str) -> str:
    """A verdict or human-label column as its label: text, lower-cased, trimmed, ``[[ ]]``
    removed (:func:`evalcore.schema.normalise_label` in SQL)."""
    text = f"LOWER(TRIM(CAST({column} AS {_TEXT[dialect]})))"
    return f"CASE WHEN {text} LIKE '[[%]]' THEN TRIM(SUBSTR({text}, 3, LENGTH({text}) - 4)) ELSE {text} END"


def level_expr(label: str, dialect: str) -> str:
    """A label (:func:`label_expr`) → its level −2..+2, NULL for no verdict, 99 off the scale:
    the contract's labels (:data:`evalcore.schema.VERDICT_LABELS`), no-verdict tokens and numbers."""
    tokens = ", ".join(sql_literal(t) for t in sorted(NO_VERDICT_TOKENS))
    whens = [f"WHEN {label} IS NULL OR {label} IN ({tokens}) THEN NULL"]
    by_level: dict[int, list[str]] = {}
    for text, level in VERDICT_LABELS.items():
        by_level.setdefault(level, []).append(text)
    for level, labels in sorted(by_level.items()):
        whens.append(f"WHEN {label} IN ({', '.join(sql_literal(x) for x in labels)}) THEN {level}")
    # a failed cast is NULL where the engine has a safe cast (DuckDB and Spark evaluate both
    # branches of a CASE on a vector); PostgreSQL has none, so its cast stands once, behind the
    # pattern: written twice, an engine that computes a repeated expression once for every row
    # (DuckDB running this SQL) would cast a label such as a>>b and fail
    cast = {"duckdb": "TRY_CAST", "spark": "TRY_CAST", "bigquery": "SAFE_CAST", "postgres": "CAST"}[dialect]
    num = f"{cast}({label} AS {_FLOAT[dialect]})"
    if dialect == "postgres":
        on_scale = " ".join(f"WHEN {v} THEN {v}" for v in (-2, -1, 0, 1, 2))
        number = f"(CASE {num} {on_scale} ELSE 99 END)"
    else:
        number = f"(CASE WHEN {num} IN (-2, -1, 0, 1, 2) THEN CAST({num} AS INTEGER) ELSE 99 END)"
    whens.append(f"WHEN {_matches(dialect, label, _NUMBER)} THEN {number}")
    return "CASE " + "\n      ".join(whens) + "\n      ELSE 99 END"


def _name_expr(column: str, dialect: str) -> str:
    return f"NULLIF(TRIM(CAST({column} AS {_TEXT[dialect]})), '')"


def counts_sql(
    table: str,
    *,
    dialect: str = "duckdb",
    columns: tuple[str, ...] | list[str] | None = None,
    features: tuple[str, ...] | list[str] = (),
    canonical: bool = False,
) -> str:
    """The SQL that turns verdict table ``table`` into the counts table, for ``dialect``.

    Parameters
    ----------
    table : str
        The verdict table: a name, optionally qualified (``schema.table``, ``project.dataset.table``),
        or (DuckDB only, from Python) a table function such as ``read_parquet(…)``.
    dialect : {"duckdb", "spark", "bigquery", "postgres"}
        The engine whose SQL to write.
    columns : sequence of str, optional
        Which optional contract columns (``judge``, ``human``, ``length_a``, ``length_b``,
        ``category``) the table has; None means all of them. A missing one is counted as the
        contract's default (judge ``judge``, the others empty).
    features : sequence of str
        ``feat_<name>_a|b`` columns to sum per row.
    canonical : bool
        The table already holds the store's values (levels −2..+2, trimmed names, the default
        judge filled in): the store's own ``verdicts`` table. Labels are then not mapped.

    Returns
    -------
    str
        One ``SELECT`` statement; its result is the counts table (see the module docstring).
    """
    if dialect not in DIALECTS:
        raise UsageError(f"unknown SQL dialect {dialect!r}; choose one of: {', '.join(DIALECTS)}.")
    present = set(OPTIONAL if columns is None else columns)
    unknown = sorted(present - set(OPTIONAL))
    if unknown:
        raise UsageError(
            f"unknown optional {'column' if len(unknown) == 1 else 'columns'} {', '.join(unknown)}; the optional columns are: {', '.join(OPTIONAL)}."
        )
    bad = [f for f in features if not _FEATURE.match(f)]
    if bad:
        raise UsageError(
            f"feature {'column' if len(bad) == 1 else 'columns'} {', '.join(bad)} "
            f"{'is' if len(bad) == 1 else 'are'} not named feat_<name>_a or feat_<name>_b."
        )
    if not canonical and not (dialect == "duckdb" and "(" in table) and not _TABLE_NAME.match(table):
        raise UsageError(
            f"{table!r} is not a table name; give a name such as verdicts or project.dataset.verdicts."
        )
    summed = (*SUMMED, *features)
    if canonical:
        # the store's own rows: already levels and trimmed names, each standing for ``weight``
        # calls (1, or a counts table's count) and holding the mean of its calls' values
        tallies = "".join(
            f",\n    SUM(CASE WHEN {c} IS NULL THEN 0 ELSE {WEIGHT} END) AS {c}_calls,"
            f" SUM({c} * {WEIGHT}) AS {c}_total"
            for c in summed
        )
        keys = ", ".join(KEYS)
        stages = (
            f"calls AS (\n  SELECT {keys},\n    SUM({WEIGHT}) AS {COUNT}{tallies}\n  FROM {table}\n"
            f"  GROUP BY {keys}\n)"
        )
    else:
        stages = _raw_stages(table, dialect, present, features)
    keys = ", ".join(KEYS)
    # one definition of the result, whatever came before: partial counts add up, and a sum is
    # kept only when every call of the row carried the value
    sums = "".join(
        f",\n  CASE WHEN SUM({c}_calls) = SUM({COUNT}) THEN SUM({c}_total) END AS {sum_column(c)}"
        for c in summed
    )
    return f"WITH {stages}\nSELECT {keys},\n  SUM({COUNT}) AS {COUNT}{sums}\nFROM calls\nGROUP BY {keys}"


def _raw_stages(table: str, dialect: str, present: set[str], features: tuple[str, ...] | list[str]) -> str:
    """The ``calls`` stage from a verdict table as written: its calls grouped first by their raw
    values (a billion calls carry a few million distinct groups), then the names trimmed and the
    labels mapped once per group, so the costly text work runs on groups, not on calls."""
    text, flt = _TEXT[dialect], _FLOAT[dialect]
    null_text = f"CAST(NULL AS {text})"
    raw_keys = [k for k in KEYS if k not in OPTIONAL or k in present]
    tallies = []
    for c in (*SUMMED, *features):
        if c in present or c in features:
            tallies.append(f"COUNT(CAST({c} AS {flt})) AS {c}_calls, SUM(CAST({c} AS {flt})) AS {c}_total")
        else:
            tallies.append(f"0 AS {c}_calls, CAST(NULL AS {flt}) AS {c}_total")
    listed = ", ".join(raw_keys)
    grouped = (
        f"grouped AS (\n  SELECT {listed},\n    COUNT(*) AS {COUNT},\n    "
        + ",\n    ".join(tallies)
        + f"\n  FROM {table}\n  GROUP BY {listed}\n)"
    )
    judge = _name_expr("judge", dialect) if "judge" in present else null_text
    first = {
        "judge": f"COALESCE({judge}, {sql_literal(DEFAULT_JUDGE)})",
        "category": _name_expr("category", dialect) if "category" in present else null_text,
        "instruction_id": f"TRIM(CAST(instruction_id AS {text}))",
        "model_a": f"TRIM(CAST(model_a AS {text}))",
        "model_b": f"TRIM(CAST(model_b AS {text}))",
        "verdict_label": label_expr("verdict", dialect),
        "human_label": label_expr("human", dialect) if "human" in present else null_text,
    }
    carried = [COUNT] + [f"{c}{part}" for c in (*SUMMED, *features) for part in ("_calls", "_total")]
    listed_first = ",\n    ".join([f"{e} AS {c}" for c, e in first.items()] + carried)
    labelled = f"labelled AS (\n  SELECT\n    {listed_first}\n  FROM grouped\n)"
    levels = {c: c for c in first if not c.endswith("_label")}
    levels["verdict"] = f"{level_expr('verdict_label', dialect)} AS verdict"
    levels["human"] = f"{level_expr('human_label', dialect)} AS human"
    listed_calls = ",\n    ".join([levels[k] for k in KEYS] + carried)
    calls = f"calls AS (\n  SELECT\n    {listed_calls}\n  FROM labelled\n)"
    return f"{grouped},\n{labelled},\n{calls}"


#: What a counts table cannot give, in words: the pages and commands that list single calls say it.
SINGLE_CALLS_NOTE = (
    "This dataset is a counts table: it holds how many calls gave each verdict, not the calls "
    "themselves. Every ranking, judge and calibration analysis runs on it; reading single calls "
    "with their prompt, answers and the judge's reasoning needs the raw verdict table, so load "
    "the raw files (a verdict table or a folder of Parquet files) to read them."
)
#: The same for fragility's lists of calls: cells of the counts table, not single calls.
CALL_LIST_NOTE = (
    "This dataset is a counts table: the calls listed are counted groups (instruction, which "
    "model sat in slot A, verdict, how many); the single calls behind them, with their text, are "
    "in the raw verdict table."
)


def is_counts_format(format: str | None) -> bool:
    """Whether a loaded dataset's recognised format (``VerdictStore.format``) is a counts table."""
    return bool(format) and str(format).startswith("counts table")


# -- reading a counts table back -------------------------------------------------------------------


def is_counts_table(lowered: list[str]) -> bool:
    """Whether a file's (lower-cased) header is a counts table's: the contract's required
    columns and ``n_calls``."""
    return COUNT in lowered and {"instruction_id", "model_a", "model_b", "verdict"} <= set(lowered)


def staged_names(lowered: list[str]) -> dict[str, int]:
    """Contract column → header position for a counts table: ``<x>_sum`` columns are staged
    under their call column's name (``length_a_sum`` → ``length_a``) and checked as numbers."""
    positions: dict[str, int] = {}
    for k, name in enumerate(lowered):
        if name in KEYS:
            positions[name] = k
        elif name.endswith("_sum") and (name[:-4] in SUMMED or _FEATURE.match(name[:-4])):
            positions[name[:-4]] = k
    return positions


def check_counts(cur: duckdb.DuckDBPyConnection, column: str, *, file: str) -> int:
    """Check ``n_calls`` (column ``column`` of ``vl_raw``, as text) and return the total calls.

    Every row must count a whole number of calls, at least 1. The calls are not bounded: the
    counts table is stored as its rows (each carrying its count), and the row limit bounds those."""
    num = f"TRY_CAST(trim(CAST({column} AS VARCHAR)) AS DOUBLE)"
    bad = f"{num} IS NULL OR {num} < 1 OR {num} <> floor({num}) OR isinf({num}) OR {num} > {MAX_ROW_CALLS}"
    rows = cur.execute(f"SELECT rowid + 1 FROM vl_raw WHERE {bad} ORDER BY 1 LIMIT 6").fetchall()
    if rows:
        n_bad = one_row(cur.execute(f"SELECT count(*) FROM vl_raw WHERE {bad}"))[0]
        values = cur.execute(
            f"SELECT DISTINCT coalesce(CAST({column} AS VARCHAR), '') FROM vl_raw WHERE {bad} LIMIT 5"
        ).fetchall()
        raise VerdictFormatError(
            file,
            f"column '{COUNT}' must count the calls of each row (a whole number from 1 to "
            f"{MAX_ROW_CALLS:,}); "
            f"{fmt_count(n_bad, 'row')} {'does' if n_bad == 1 else 'do'} not",
            rows=tuple(int(r[0]) for r in rows),
            values=tuple(str(v[0]) for v in values),
            hint="Write each row's number of calls, leave out the rows that count none, and split a row "
            "of more calls into two",
        )
    return int(one_row(cur.execute(f"SELECT coalesce(sum({num}), 0)::HUGEINT FROM vl_raw"))[0])


def weigh_counts(cur: duckdb.DuckDBPyConnection, features: tuple[str, ...]) -> None:
    """Turn the checked cells ``vl_canon`` (one row per counts-table row, with ``vl_ncalls``)
    into the rows the store keeps: each row once, with its count as its :data:`WEIGHT` and
    its mean of every summed column, so a length shared by a row's calls (the usual case: the
    same two answers) comes back exactly. No row is repeated: a billion counted calls in a few
    million rows take a few million stored rows."""
    cur.execute("ALTER VIEW vl_canon RENAME TO vl_canon_cells")
    means = ", ".join(f"c.{c} / n.n AS {c}" for c in (*SUMMED, *features))
    cur.execute(f"""CREATE OR REPLACE TEMP TABLE vl_calls AS
        SELECT c."row", c.instruction_id, c.model_a, c.model_b, c.verdict, c.judge, c.human, {means},
               c.category, n.n::INTEGER AS {WEIGHT}
        FROM vl_canon_cells c JOIN vl_ncalls n ON n."row" = c."row"
        """)
    feat = "".join(f", {c}" for c in features)
    cur.execute(
        'CREATE OR REPLACE TEMP VIEW vl_canon AS SELECT "row", instruction_id, model_a, model_b, verdict, '
        f"judge, human, length_a, length_b, category{feat}, {WEIGHT} FROM vl_calls"
    )


def counts_report(report):
    """The load report of a counts table: its rows are counted groups, so no call is reported
    as an exact repeat of another."""
    return replace(report, duplicate_rows=())


# -- many Parquet files, counted out of core ---------------------------------------------------------


def is_many_files(path: str | Path) -> bool:
    """Whether ``path`` names a folder or a glob of Parquet files (not one file)."""
    text = str(path)
    if Path(text).is_dir():
        return True
    # a file whose own name holds a bracket or a star is that file, not a glob
    return not Path(text).exists() and any(ch in text for ch in "*?[")


def parquet_glob(path: str | Path) -> str:
    """The glob DuckDB reads for ``path``: every ``.parquet`` file below a folder, or the glob."""
    text = str(path)
    if Path(text).is_dir():
        return str(Path(text) / "**" / "*.parquet")
    return text


def aggregate_files(
    path: str | Path, out: Path, *, name: str, memory_limit: str | None = None, temp_dir: str | None = None
) -> int:
    """Count the verdict tables in a folder or glob of Parquet files into the counts-table
    Parquet file ``out``, out of core: DuckDB streams the files through one ``GROUP BY``
    (spilling to ``temp_dir`` past ``memory_limit``) and never holds them whole.

    Hive partition folders (``run=3/``, ``date=2026-01-01/``) are read as columns, so a
    partition named ``judge`` or ``category`` is that column. Returns the counts table's rows.
    Raises :class:`VerdictFormatError` (naming only ``name``) when no file matches or a
    required column is missing.
    """
    glob = parquet_glob(path)
    con = duckdb.connect(":memory:")
    try:
        con.execute("SET enable_progress_bar = false")
        if memory_limit:
            con.execute(f"SET memory_limit = {sql_literal(memory_limit)}")
        if temp_dir:
            con.execute(f"SET temp_directory = {sql_literal(temp_dir)}")
        con.execute("SET preserve_insertion_order = false")  # a GROUP BY has no order to keep
        source = f"read_parquet({sql_literal(glob)}, hive_partitioning = true, union_by_name = true)"
        try:
            described = con.execute(f"DESCRIBE SELECT * FROM {source}").fetchall()
        except duckdb.Error as exc:
            raise VerdictFormatError(
                name,
                "no readable Parquet files were found there",
                hint="Give a folder holding .parquet files (hive partitions such as run=1/ are read as columns), "
                "or a glob such as logs/*.parquet",
            ) from exc
        lowered = [str(r[0]).lower() for r in described]
        missing = [c for c in ("instruction_id", "model_a", "model_b", "verdict") if c not in lowered]
        if missing:
            raise VerdictFormatError(
                name,
                f"required {'column' if len(missing) == 1 else 'columns'} missing: " + ", ".join(missing),
                values=tuple(str(r[0]) for r in described),
                hint="Every file needs instruction_id, model_a, model_b and verdict",
            )
        present = tuple(c for c in OPTIONAL if c in lowered)
        features = tuple(c for c in lowered if _FEATURE.match(c))
        sql = counts_sql(source, dialect="duckdb", columns=present, features=features)
        copy = f"COPY ({sql}) TO {sql_literal(str(out))} (FORMAT parquet)"
        try:
            try:
                con.execute(copy)
            except duckdb.OutOfMemoryException:
                # each thread holds a hash table of the groups, and the part that cannot spill can
                # outgrow the limit when both run at once (seen at 100 million calls under half of
                # the default budget): count again on one thread, with one table
                con.execute("SET threads = 1")
                con.execute(copy)
        except duckdb.OutOfMemoryException as exc:
            # not a problem of the files' columns: say what to do about memory instead
            raise ResourceLimitError(
                f"Counting {name} needed more memory than one load may use on this server "
                f"({memory_limit or 'DuckDB default'}), even on one thread, so it was stopped; the "
                "data loaded before stays. Load fewer files at once, or give the server more memory."
            ) from exc
        except duckdb.Error as exc:
            raise VerdictFormatError(
                name,
                # DuckDB's words, without the server's path (messages name only what the user picked)
                f"the files could not be counted ({str(exc).splitlines()[0].replace(glob, name)})",
                hint="Check that every file has the contract's columns with the same types",
            ) from exc
        return int(one_row(con.execute(f"SELECT count(*) FROM read_parquet({sql_literal(str(out))})"))[0])
    finally:
        con.close()
