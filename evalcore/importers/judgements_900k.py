"""The anchor paper's released judgements (``ibm-research/900K-Judgements``), converted in SQL.

Don-Yehiya, Yehudai, Choshen and Abend, "Mediocrity is the key for LLM as a Judge Anchor
Selection" (ACL 2026) released every judge call of their study on Hugging Face: about 900,000
rows, one per call, from five judges over Arena-Hard v2.0 (22 models, all pairs) and AlpacaEval
(11 models). The columns this importer reads are those of the paper's own reader
(``IBM/Anchor-Selection``, ``utils/data_io.py``):

``uid``
    ``{instance}_{model_1}_{model_2}``, the two models in the order the run listed them, each
    with ``/`` written as ``_`` (``Qwen/Qwen3-32B`` → ``Qwen_Qwen3-32B``). That order is *not*
    the order shown to the judge (the run swapped the two answers at random), so the instance is
    recovered by stripping the two known names from the end in either order — never by
    splitting on ``_``, which model names contain. A ``uid`` starting ``eval_`` is an AlpacaEval
    prompt (``eval_newset_<n>_…``), any other an Arena-Hard v2.0 prompt; that is the category.
``judge_model``
    The judge (optional here: without it every call is one default judge).
``model_a_in_prompt``, ``model_b_in_prompt``
    The answer shown first (slot A) and second (slot B).
``final_verdict``
    ``name>>name`` (much better), ``name>name`` (better) or ``name=name`` (tie), the winner on
    the left, written with the models' own names; ``INVALID`` (or empty) when the judge's output
    held no verdict.

The verdict becomes −2..+2 from slot A's point of view: ``A>>B`` → +2, ``A>B`` → +1, a tie → 0,
``B>A`` → −1, ``B>>A`` → −2 (spaces around the sign are ignored). A verdict naming a model that
is not one of the call's two, or with no ``>>``/``>``/``=`` in it, is kept as a call without a
verdict and counted in the format label, as are ``INVALID`` calls; nothing is imputed.

Everything happens in DuckDB over the staged file (``vl_raw``), so the full 900K-row release
loads in one pass without a Python object per row; :func:`from_judgements_900k` runs the same
SQL on a table already in memory.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import duckdb

from evalcore._sql import _ident, one_row, typed_select
from evalcore.text import fmt_count

if TYPE_CHECKING:
    import pandas as pd  # the SQL path never makes a frame; from_judgements_900k takes one

#: The columns that identify the format (``judge_model`` is read when present).
COLUMNS = ("uid", "model_a_in_prompt", "model_b_in_prompt", "final_verdict")
#: The categories the ``uid`` prefix names (the paper's two benchmarks).
ALPACA_EVAL = "AlpacaEval"
ARENA_HARD = "Arena-Hard v2.0"
NAME = "Anchor-paper judgements (ibm-research/900K-Judgements)"
#: The scratch view the conversion leaves for :func:`evalcore.ingest.build_text`.
VIEW = "vl_judgements"


def is_judgements_900k(columns: set[str]) -> bool:
    """True when a table's (lower-case) column names are those of the released judgements."""
    return set(COLUMNS) <= columns


#: The type each column must have (:func:`evalcore._sql.typed_text`): a row whose
#: uid, model or verdict is a number, a list or an object is set aside, counted and named.
RULES = {
    "uid": "name",
    "model_a_in_prompt": "name",
    "model_b_in_prompt": "name",
    "final_verdict": "name?",
    "judge_model": "name?",
}


def judgements_select(names: list[str], cols: list[str], types: list[str] | None = None) -> str | None:
    """The staging projection (columns as text) for the released judgements, or None.

    ``names`` are the columns as the file names them, ``cols`` as the reader does (c0… for CSV),
    ``types`` their DuckDB types: with them, each value is read as text by its own JSON type and
    a row with a value of the wrong type is marked to be set aside
    (:func:`evalcore._sql.typed_select`).
    """
    lower = {n.strip().lower(): k for k, n in enumerate(names)}
    if not is_judgements_900k(set(lower)):
        return None
    keep = (*COLUMNS, "judge_model") if "judge_model" in lower else COLUMNS
    if types is None:
        return ", ".join(f"CAST({_ident(cols[lower[k]])} AS VARCHAR) AS {k}" for k in keep)
    return typed_select([(cols[lower[k]], types[lower[k]], k, RULES[k]) for k in keep])


def _verdict_sql(v: str, a: str, b: str) -> str:
    """The level of verdict text ``v`` for slot A = ``a``, slot B = ``b``; NULL when it is no
    verdict of this pair. ``>>`` is tested before ``>`` by exact equality, so a ``>`` inside a
    name cannot split it."""
    cases = []
    for op, level in ((">>", 2), (">", 1)):
        cases.append(f"WHEN {v} = {a} || '{op}' || {b} THEN {level}")
        cases.append(f"WHEN {v} = {b} || '{op}' || {a} THEN {-level}")
    cases.append(f"WHEN {v} = {a} || '=' || {b} OR {v} = {b} || '=' || {a} THEN 0")
    return f"(CASE {' '.join(cases)} ELSE NULL END)"


def convert_judgements(cur: duckdb.DuckDBPyConnection, *, has_judge: bool) -> tuple[dict[str, str], str]:
    """The staged judgements (``vl_raw``) → contract expressions over :data:`VIEW`; the label.

    The verdict and the uid's model suffixes depend on the call's two models and its verdict
    text only: a few thousand distinct combinations in 900K calls. They are worked out once per
    combination (``vl_j_verdict``, ``vl_j_pair``) and joined back, so the string work is not
    repeated per row. The label counts, in words, the calls kept without a verdict (``INVALID``,
    a verdict naming another model, a malformed verdict) and the ``uid``s whose instance could
    not be recovered (each kept as its own prompt).
    """
    ra, rb, rv = (
        "coalesce(model_a_in_prompt, '')",
        "coalesce(model_b_in_prompt, '')",
        "coalesce(final_verdict, '')",
    )
    # The verdict with the spaces around its sign removed (names keep their inner spaces).
    v = r"regexp_replace(trim(rv), '\s*(>>|>|=)\s*', '\1', 'g')"
    cur.execute(f"""CREATE OR REPLACE TEMP TABLE vl_j_verdict AS SELECT ra, rb, rv, n,
        CAST({_verdict_sql(v, "trim(ra)", "trim(rb)")} AS VARCHAR) AS level,
        CASE WHEN trim(rv) = '' OR upper(trim(rv)) = 'INVALID' THEN 'none'
             WHEN NOT regexp_matches(rv, '>|=') THEN 'malformed' ELSE 'other' END AS reason
        FROM (SELECT {ra} AS ra, {rb} AS rb, {rv} AS rv, count(*) AS n FROM vl_raw GROUP BY ALL)""")
    # uid = {{instance}}_{{model_1}}_{{model_2}} in either order, '/' written '_' (or kept).
    cur.execute("""CREATE OR REPLACE TEMP TABLE vl_j_pair AS SELECT ra, rb,
        length(a) + length(b) + 2 AS tail,
        '_' || replace(a, '/', '_') || '_' || replace(b, '/', '_') AS s1,
        '_' || replace(b, '/', '_') || '_' || replace(a, '/', '_') AS s2,
        '_' || a || '_' || b AS s3, '_' || b || '_' || a AS s4
        FROM (SELECT DISTINCT ra, rb, trim(ra) AS a, trim(rb) AS b FROM vl_j_verdict)""")
    recovered = (
        "(length(u) > p.tail AND (ends_with(u, p.s1) OR ends_with(u, p.s2) "
        "OR ends_with(u, p.s3) OR ends_with(u, p.s4)))"
    )
    cur.execute(f"""CREATE OR REPLACE TEMP VIEW {VIEW} AS SELECT r.*,
        CASE WHEN {recovered} THEN left(u, length(u) - p.tail) ELSE u END AS vl_instance,
        {recovered} AS vl_recovered, m.level AS vl_level,
        CASE WHEN starts_with(u, 'eval_') THEN '{ALPACA_EVAL}' ELSE '{ARENA_HARD}' END AS vl_category
        FROM (SELECT rowid AS vl_rowid, trim(uid) AS u, * FROM vl_raw) r
        LEFT JOIN vl_j_pair p ON p.ra = {ra} AND p.rb = {rb}
        LEFT JOIN vl_j_verdict m ON m.ra = {ra} AND m.rb = {rb} AND m.rv = {rv}""")
    rows, invalid, other, malformed = one_row(
        cur.execute("""SELECT coalesce(sum(n), 0),
            coalesce(sum(n) FILTER (WHERE level IS NULL AND reason = 'none'), 0),
            coalesce(sum(n) FILTER (WHERE level IS NULL AND reason = 'other'), 0),
            coalesce(sum(n) FILTER (WHERE level IS NULL AND reason = 'malformed'), 0) FROM vl_j_verdict""")
    )
    lost = one_row(
        cur.execute(f"SELECT count(*) FILTER (WHERE NOT coalesce(vl_recovered, false)) FROM {VIEW}")
    )[0]
    notes = [
        "model_a_in_prompt = slot A; the instance is the uid without its two model names; "
        "uid 'eval_…' = AlpacaEval, else Arena-Hard v2.0"
    ]
    kept = []
    if invalid:
        kept.append(f"{invalid:,} INVALID or empty")
    if other:
        kept.append(f"{other:,} naming a model that is not one of the call's two")
    if malformed:
        kept.append(f"{malformed:,} malformed (no >>, > or =)")
    if kept:
        notes.append(
            "of "
            + f"{rows:,} calls, "
            + ", ".join(kept)
            + f" {'verdict' if invalid + other + malformed == 1 else 'verdicts'} kept as calls without a verdict"
        )
    if lost:
        notes.append(
            f"{fmt_count(lost, 'uid')} {'does' if lost == 1 else 'do'} not end with their two model names: "
            f"{'it is' if lost == 1 else 'each is'} its own prompt"
        )
    exprs = {
        "instruction_id": "vl_instance",
        "model_a": "model_a_in_prompt",
        "model_b": "model_b_in_prompt",
        "verdict": "vl_level",
        "category": "vl_category",
    }
    if has_judge:
        exprs["judge"] = "judge_model"
    return exprs, f"{NAME} ({'; '.join(notes)})"


def from_judgements_900k(frame: pd.DataFrame, *, file: str) -> tuple[pd.DataFrame, str]:
    """Convert released judgements already in memory (the same SQL, on an in-memory DuckDB).

    Parameters
    ----------
    frame : DataFrame
        Rows with the columns ``uid``, ``model_a_in_prompt``, ``model_b_in_prompt``,
        ``final_verdict`` and optionally ``judge_model``.
    file : str
        The file's name, for messages.

    Returns
    -------
    (DataFrame, str)
        Verdict-table rows (instruction_id, model_a, model_b, verdict as text, category and
        judge when present) and the format label.

    References
    ----------
    Don-Yehiya, Yehudai, Choshen and Abend, "Mediocrity is the key for LLM as a Judge Anchor
    Selection", ACL 2026; the release ``ibm-research/900K-Judgements``.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = pd.DataFrame({"uid": ["q1_x_org_y"], "judge_model": ["j"],
    ...     "model_a_in_prompt": ["y"], "model_b_in_prompt": ["x/org"],
    ...     "final_verdict": ["x/org>>y"]})
    >>> out, _ = from_judgements_900k(rows, file="f.parquet")
    >>> out[["instruction_id", "model_a", "model_b", "verdict"]].values.tolist()
    [['q1', 'y', 'x/org', '-2']]
    """
    del file  # a frame already read: the names come from its columns
    frame, note = _set_aside(frame.reset_index(drop=True))
    names = [str(c) for c in frame.columns]
    con = duckdb.connect()
    try:
        con.register("vl_incoming", frame.astype(object).where(frame.notna(), None))
        select = judgements_select(names, names)
        if select is None:
            raise ValueError("the table lacks the columns " + ", ".join(COLUMNS))
        con.execute(f"CREATE TEMP TABLE vl_raw AS SELECT {select} FROM vl_incoming")
        has_judge = "judge_model" in {n.strip().lower() for n in names}
        exprs, label = convert_judgements(con, has_judge=has_judge)
        cols = ", ".join(f"CAST({e} AS VARCHAR) AS {k}" for k, e in exprs.items())
        out = con.execute(f"SELECT {cols} FROM {VIEW} ORDER BY vl_rowid").df()
    finally:
        con.close()
    if note:
        label = f"{label[:-1]}; {note})"
    return out.astype("string"), label


def _set_aside(frame: pd.DataFrame) -> tuple[pd.DataFrame, str | None]:
    """The rows of an in-memory table whose columns have the types of :data:`RULES`, and the
    note naming the rows set aside (as the SQL path sets them aside)."""
    from evalcore.importers._common import SET_ASIDE_NAMED, _shown, set_aside_note, value_kind, wrong_type

    bad: dict[int, tuple[str, object]] = {}
    for column in frame.columns:
        rule = RULES.get(str(column).strip().lower())
        if rule is None:
            continue
        for position, value in enumerate(frame[column].to_numpy()):
            if position not in bad and wrong_type(value, rule):
                bad[position] = (str(column), value)
    if not bad:
        return frame, None
    examples = [
        (k + 1, field, _shown(value), value_kind(value))
        for k, (field, value) in sorted(bad.items())[:SET_ASIDE_NAMED]
    ]
    keep = [k for k in range(len(frame)) if k not in bad]
    return frame.iloc[keep].reset_index(drop=True), set_aside_note(len(bad), examples)
