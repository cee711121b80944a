"""The checking path: ``vl_text`` checked against the contract in SQL with the same messages the
pandas validator gives (file, 1-based data rows, the offending values, what to do), the
canonical rows as the view ``vl_canon``, and what loading noticed (:func:`inspect`: rows without
a verdict, self-comparisons, exact repeats, names with characters that do not show)."""

from __future__ import annotations

import duckdb
import numpy as np

from evalcore._sql import one_row, sql_literal
from evalcore.features import feature_columns
from evalcore.ingest.sources import _CONTROL, _INVISIBLE, _WS, NAME_COLUMNS, _strip
from evalcore.limits import LoadLimits
from evalcore.schema import (
    BOTH_BAD_LABELS,
    BOTH_BAD_NOT_TIE,
    BOTH_BAD_UNREADABLE,
    DEFAULT_JUDGE,
    FLAG_FALSE,
    FLAG_TRUE,
    NO_VERDICT_TOKENS,
    OPTIONAL_COLUMNS,
    REQUIRED_COLUMNS,
    VERDICT_LABELS,
    ValidationReport,
    VerdictFormatError,
    _label_to_level,
    normalise_label,
)
from evalcore.text import fmt_count

# -- the contract in SQL ------------------------------------------------------------------------


def _norm(expr: str) -> str:
    """lower-case, trimmed, ``[[ ]]`` removed: :func:`evalcore.schema.normalise_label` in SQL."""
    t = f"lower(trim({expr}, {_WS}))"
    return f"(CASE WHEN {t} LIKE '[[%]]' THEN trim({t}[3:-3], {_WS}) ELSE {t} END)"


def level_sql(expr: str) -> str:
    """A label or number → its level −2..+2, NULL for no verdict, 99 for a value off the scale."""
    n = _norm(expr)
    cases = [
        f"WHEN {expr} IS NULL OR {n} IN ({', '.join(sql_literal(t) for t in sorted(NO_VERDICT_TOKENS))}) THEN NULL"
    ]
    by_level: dict[int, list[str]] = {}
    for label, level in VERDICT_LABELS.items():
        by_level.setdefault(level, []).append(label)
    for level, labels in sorted(by_level.items()):
        cases.append(f"WHEN {n} IN ({', '.join(sql_literal(x) for x in labels)}) THEN {level}")
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
            f"{'column' if len(repeated) == 1 else 'columns'} named more than once in the header: "
            + ", ".join(repeated),
            values=tuple(names),
            hint="Keep one column of each name (which one is meant cannot be guessed)",
        )
    missing = [c for c in REQUIRED_COLUMNS if c not in lowered]
    if missing:
        raise VerdictFormatError(
            file,
            f"required {'column' if len(missing) == 1 else 'columns'} missing: " + ", ".join(missing),
            values=tuple(names),
            hint="The header must name "
            + ", ".join(REQUIRED_COLUMNS)
            + " (the values listed are the columns found)",
        )
    return {name: lowered.index(name) for name in (*REQUIRED_COLUMNS, *OPTIONAL_COLUMNS) if name in lowered}


def _level_map(cur: duckdb.DuckDBPyConnection, column: str) -> str:
    """``vl_map_<column>``: each distinct raw value → level (NULL: no verdict, 99: off the scale).

    A million rows carry a handful of distinct labels: they are mapped once, in Python, by the
    same rule as :func:`evalcore.schema.parse_verdicts`; a column with very many distinct values
    is mapped in SQL instead.
    """
    table = f"vl_map_{column}"
    distinct = one_row(cur.execute(f"SELECT count(DISTINCT {column}) FROM vl_text"))[0]
    if distinct <= 1_000:
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
        # bound as parameters (the labels are the user's text); no pandas frame, so that light
        # commands (rank --json) never import pandas
        cur.execute(f"CREATE OR REPLACE TEMP TABLE {table} (label VARCHAR, level TINYINT)")
        for start in range(0, len(values), 200):
            chunk = list(zip(values[start : start + 200], levels[start : start + 200], strict=True))
            rows = ", ".join("(CAST(? AS VARCHAR), CAST(? AS TINYINT))" for _ in chunk)
            cur.execute(f"INSERT INTO {table} VALUES {rows}", [x for pair in chunk for x in pair])
    else:
        cur.execute(
            f"CREATE OR REPLACE TEMP TABLE {table} AS SELECT label, "
            f"CAST({level_sql('label')} AS TINYINT) AS level FROM "
            f"(SELECT DISTINCT {column} AS label FROM vl_text WHERE {column} IS NOT NULL)"
        )
    return table


def _literals(values: frozenset[str]) -> str:
    return ", ".join(sql_literal(v) for v in sorted(values))


#: Distinct (verdict, both_bad) cells screened in Python; a file with more is checked in SQL.
_SCREEN_PAIRS = 10_000
_WS_CHARS = " \t\n\x0b\x0c\r\xa0\ufeff"


def _flag_sql(cell: str, labels: list[str], *, given: bool) -> str:
    """The mark as SQL: the column where it says yes or no, else the verdict's label."""
    column = (
        f"(CASE WHEN {cell} IN ({_literals(FLAG_TRUE)}) THEN TRUE "
        f"WHEN {cell} IN ({_literals(FLAG_FALSE)}) THEN FALSE END)"
    )
    label = (
        f"(CASE WHEN mv.level IS NULL THEN NULL ELSE t.verdict IN "
        f"({', '.join(sql_literal(x) for x in labels)}) END)"
    )
    return f"coalesce({column}, {label})" if given and labels else (column if given else label)


def _screen_both_bad(
    cur: duckdb.DuckDBPyConnection, levels: dict[str, int | None], labels: list[str]
) -> tuple[bool, bool] | None:
    """(any cell says yes or no or something else, nothing to refuse) from the distinct
    (verdict, both_bad) cells, a handful in any real file: one grouped pass instead of a pass
    per check. None when there are too many to screen in Python."""
    pairs = cur.execute(
        f"SELECT DISTINCT verdict, both_bad FROM vl_text LIMIT {_SCREEN_PAIRS + 1}"
    ).fetchall()
    if len(pairs) > _SCREEN_PAIRS:
        return None
    given, clean = False, True
    for verdict, raw in pairs:
        cell = raw.strip(_WS_CHARS).lower() if raw is not None else ""
        given = given or cell != ""
        if cell in FLAG_TRUE:
            flag: bool | None = True
        elif cell in FLAG_FALSE:
            flag = False
        elif cell and cell not in NO_VERDICT_TOKENS:
            return True, False  # unreadable: the SQL checks below word it, with the rows
        else:
            known = verdict is not None and levels.get(verdict) is not None
            flag = (verdict in labels) if labels and known else None
        if flag and (verdict is None or levels.get(verdict) != 0):
            clean = False
    return given, clean


def _both_bad(cur: duckdb.DuckDBPyConnection, verdict_map: str, *, file: str) -> str | None:
    """The ``both_bad`` mark of each row of ``vl_text`` as an expression over ``t`` (the row) and
    ``mv`` (its verdict's level), or None when the table carries no mark: the rule of
    :func:`evalcore.schema.both_bad_flags` (the column where it says yes or no, else the
    verdict's label), with the same refusals."""
    cell = f"lower(trim(t.both_bad, {_WS}))"
    levels = dict(cur.execute(f"SELECT label, level FROM {verdict_map}").fetchall())
    labels = [label for label in levels if normalise_label(label) in BOTH_BAD_LABELS]
    screen = _screen_both_bad(cur, levels, labels)
    if screen is not None and not screen[0] and not labels:
        return None
    if screen is not None and screen[1]:  # nothing to refuse: no row-by-row checks
        return _flag_sql(cell, labels, given=screen[0])
    given = one_row(cur.execute(f"SELECT count(*) FROM vl_text t WHERE coalesce({cell}, '') <> ''"))[0]
    if not given and not labels:
        return None
    if given:
        unreadable = (
            f"coalesce({cell}, '') <> '' AND {cell} NOT IN "
            f"({_literals(FLAG_TRUE | FLAG_FALSE | NO_VERDICT_TOKENS)})"
        )
        rows = _rows(cur, unreadable.replace("t.both_bad", "both_bad"))
        if rows.size:
            raise VerdictFormatError(
                file,
                BOTH_BAD_UNREADABLE[0].format(values=fmt_count(rows.size, "value")),
                rows=tuple(rows.tolist()),
                values=_values(cur, "both_bad", unreadable.replace("t.both_bad", "both_bad")),
                hint=BOTH_BAD_UNREADABLE[1],
            )
    flag = _flag_sql(cell, labels, given=bool(given))
    wrong = one_row(
        cur.execute(
            f"SELECT count(*) FROM vl_text t LEFT JOIN {verdict_map} mv ON mv.label = t.verdict "
            f"WHERE {flag} AND coalesce(mv.level, 99) <> 0"
        )
    )[0]
    if wrong:
        rows = (
            cur.execute(
                f'SELECT t."row" FROM vl_text t LEFT JOIN {verdict_map} mv ON mv.label = t.verdict '
                f"WHERE {flag} AND coalesce(mv.level, 99) <> 0 ORDER BY 1"
            )
            .fetchnumpy()["row"]
            .astype(np.int64)
        )
        raise VerdictFormatError(
            file,
            BOTH_BAD_NOT_TIE[0].format(calls=fmt_count(rows.size, "call")),
            rows=tuple(rows.tolist()),
            hint=BOTH_BAD_NOT_TIE[1],
        )
    return flag


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
                f"column '{name}' is empty in {fmt_count(rows.size, 'row')}",
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
                f"column '{name}' has {fmt_count(rows.size, 'value')} outside the verdict scale",
                rows=tuple(rows.tolist()),
                values=_values(cur, name, bad),
                hint=(
                    "Use −2..+2 (slot A's point of view), or a label of the verdict format "
                    "(A>>B, A>B, A=B, B>A, B>>A; [[A]], [[B]], [[C]], tie; model_a, model_b, "
                    "tie (bothbad), both_bad); leave the cell empty for a call that returned no verdict"
                ),
            )
    both_bad = _both_bad(cur, maps["verdict"], file=file)
    features = feature_columns(str(r[0]) for r in cur.execute("DESCRIBE vl_text").fetchall())
    for name in ("length_a", "length_b", *features):
        t = _strip(name)
        num = f"TRY_CAST({t} AS DOUBLE)"
        not_number = (
            f"{name} IS NOT NULL AND {t} <> '' AND lower({t}) NOT IN "
            f"({', '.join(sql_literal(x) for x in sorted(NO_VERDICT_TOKENS))}) AND {num} IS NULL"
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
                f"column '{name}' has {fmt_count(rows.size, 'value')} that cannot be a "
                + ("length" if name.startswith("length") else "count")
                + " (negative or infinite)",
                rows=tuple(rows.tolist()),
                values=_values(cur, name, impossible),
                hint=f"A length counts characters or tokens: write '{name}' as a number of 0 or "
                "more, or leave it empty",
            )
    controlled, n_models = _name_scan(cur)
    for name in NAME_COLUMNS:
        if not controlled[name]:
            continue
        bad = f"regexp_matches({name}, '{_CONTROL}')"
        rows = _rows(cur, bad)
        if rows.size:
            shown = tuple(repr(v)[1:-1] for v in _values(cur, name, bad))
            raise VerdictFormatError(
                file,
                f"column '{name}' has {fmt_count(rows.size, 'value')} with a control character (such "
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
    extra = (f", {both_bad} AS both_bad" if both_bad else "") + "".join(
        f", {length[n]} AS {n}" for n in features
    )
    cur.execute(f"""CREATE OR REPLACE TEMP VIEW vl_canon AS SELECT
        t."row", t.instruction_id, t.model_a, t.model_b, mv.level AS verdict,
        coalesce(nullif(t.judge, ''), {sql_literal(DEFAULT_JUDGE)}) AS judge, mh.level AS human,
        {length["length_a"]} AS length_a, {length["length_b"]} AS length_b,
        nullif(t.category, '') AS category{extra}
        FROM vl_text t LEFT JOIN {maps["verdict"]} mv ON mv.label = t.verdict
             LEFT JOIN {maps["human"]} mh ON mh.label = t.human""")
    if n_models > limits.max_models:
        raise VerdictFormatError(
            file,
            f"the file names {n_models:,} models, over the limit of {limits.max_models:,} "
            "this server accepts",
            hint="Load the models you want to compare (a sample of the "
            "file), or run the command-line tool with VERDICTLAB_MAX_MODELS set higher",
        )


def _name_scan(cur: duckdb.DuckDBPyConnection) -> tuple[dict[str, bool], int]:
    """Which name columns of ``vl_text`` hold a control character, and how many distinct models
    it names, in two scans of the table instead of one a column: the instruction ids row by row
    (as many as the rows in an arena table: one regular expression a row is cheaper than their
    distinct values), the few other names (models, judges, categories) on their distinct values,
    all four grouped in one pass (as :func:`evalcore.ingest.typed.read_typed` does)."""
    few = tuple(n for n in NAME_COLUMNS if n != "instruction_id")
    listed = ", ".join(few)
    gid = {n: sum(1 << (len(few) - 1 - i) for i, c in enumerate(few) if c != n) for n in few}
    found = one_row(
        cur.execute(f"""WITH d AS (
                SELECT coalesce({listed}) AS v, GROUPING_ID({listed}) AS g FROM vl_text
                GROUP BY GROUPING SETS ({", ".join(f"({n})" for n in few)}))
            SELECT {", ".join(f"count(*) FILTER (WHERE g = {gid[n]} AND regexp_matches(v, '{_CONTROL}'))" for n in few)},
                count(DISTINCT v) FILTER (WHERE g IN ({gid["model_a"]}, {gid["model_b"]}))
            FROM d""")
    )
    ids = one_row(
        cur.execute(
            f"SELECT count(*) FILTER (WHERE regexp_matches(instruction_id, '{_CONTROL}')) FROM vl_text"
        )
    )[0]
    controlled = {"instruction_id": bool(ids), **{n: bool(k) for n, k in zip(few, found[:-1], strict=True)}}
    return controlled, int(found[-1])


# -- what loading noticed -----------------------------------------------------------------------


def inspect(cur: duckdb.DuckDBPyConnection, table: str = "verdicts") -> ValidationReport:
    """:func:`evalcore.schema.inspect_verdicts` in SQL, plus names that differ only by
    characters that do not show (reported with their rows, never merged)."""
    # a row stands for ``weight`` calls where the table says (a counts table's rows), else one
    described = {str(r[0]) for r in cur.execute(f"DESCRIBE {table}").fetchall()}
    w = "weight" if "weight" in described else "1"
    rows, no_verdict, self_rows, stored, weighed = one_row(
        cur.execute(
            f"SELECT coalesce(sum({w}), 0), coalesce(sum({w}) FILTER (WHERE verdict IS NULL), 0), "
            f"coalesce(sum({w}) FILTER (WHERE model_a = model_b), 0), count(*), "
            f"count(*) FILTER (WHERE {w} <> 1) FROM {table}"
        )
    )
    # rows with distinct instructions cannot repeat each other (an arena table): one cheap count
    unique_ids = one_row(cur.execute(f"SELECT count(DISTINCT instruction_id) FROM {table}"))[0]
    duplicates = np.zeros(0, dtype=np.int64)
    if unique_ids != stored:
        duplicates = _duplicate_rows(cur, table)
    return ValidationReport(
        rows=int(rows),
        no_verdict_rows=int(no_verdict),
        self_comparison_rows=int(self_rows),
        duplicate_rows=tuple(int(r) for r in duplicates),
        name_notes=_invisible_notes(cur, table),
        single_calls=unique_ids == stored and not weighed,
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
