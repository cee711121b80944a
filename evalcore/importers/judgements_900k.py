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

import duckdb
import pandas as pd

from evalcore._sql import one_row
from evalcore.ingest import _ident

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


def judgements_select(names: list[str], cols: list[str]) -> str | None:
    """The staging projection (columns as text) for the released judgements, or None.

    ``names`` are the columns as the file names them, ``cols`` as the reader does (c0… for CSV).
    """
    lower = {n.strip().lower(): c for n, c in zip(names, cols, strict=True)}
    if not is_judgements_900k(set(lower)):
        return None
    keep = (*COLUMNS, "judge_model") if "judge_model" in lower else COLUMNS
    return ", ".join(f"CAST({_ident(lower[k])} AS VARCHAR) AS {k}" for k in keep)


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

    The label counts, in words, the calls kept without a verdict (``INVALID``, a verdict naming
    another model, a malformed verdict) and the ``uid``s whose instance could not be recovered
    (each kept as its own prompt).
    """
    a, b = "trim(model_a_in_prompt)", "trim(model_b_in_prompt)"
    # The verdict with the spaces around its sign removed (names keep their inner spaces).
    v = r"regexp_replace(trim(final_verdict), '\s*(>>|>|=)\s*', '\1', 'g')"
    ua, ub = f"replace({a}, '/', '_')", f"replace({b}, '/', '_')"
    u = "replace(trim(uid), '/', '_')"  # replace keeps lengths: the instance is cut from uid
    tail = f"length({a}) + length({b}) + 2"
    recovered = (
        f"(length(trim(uid)) > {tail} AND (ends_with({u}, '_' || {ua} || '_' || {ub}) "
        f"OR ends_with({u}, '_' || {ub} || '_' || {ua})))"
    )
    cur.execute(f"""CREATE OR REPLACE TEMP VIEW {VIEW} AS SELECT *,
        CASE WHEN {recovered} THEN left(trim(uid), length(trim(uid)) - ({tail}))
             ELSE trim(uid) END AS vl_instance,
        {recovered} AS vl_recovered,
        CAST({_verdict_sql(v, a, b)} AS VARCHAR) AS vl_level,
        CASE WHEN coalesce(trim(final_verdict), '') = '' OR upper(trim(final_verdict)) = 'INVALID'
             THEN 'none' WHEN NOT regexp_matches(final_verdict, '>|=') THEN 'malformed'
             ELSE 'other' END AS vl_reason,
        CASE WHEN starts_with(trim(uid), 'eval_') THEN '{ALPACA_EVAL}' ELSE '{ARENA_HARD}' END
             AS vl_category
        FROM (SELECT rowid AS vl_rowid, * FROM vl_raw)""")
    rows, invalid, other, malformed, lost = one_row(
        cur.execute(f"""SELECT count(*),
            count(*) FILTER (WHERE vl_level IS NULL AND vl_reason = 'none'),
            count(*) FILTER (WHERE vl_level IS NULL AND vl_reason = 'other'),
            count(*) FILTER (WHERE vl_level IS NULL AND vl_reason = 'malformed'),
            count(*) FILTER (WHERE NOT coalesce(vl_recovered, false)) FROM {VIEW}""")
    )
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
            "of " + f"{rows:,} calls, " + ", ".join(kept) + " verdict(s) kept as calls without a verdict"
        )
    if lost:
        notes.append(f"{lost:,} uid(s) do not end with their two model names: each is its own prompt")
    exprs = {
        "instruction_id": "vl_instance",
        "model_a": a,
        "model_b": b,
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
    >>> rows = pd.DataFrame({"uid": ["q1_x_org_y"], "judge_model": ["j"],
    ...     "model_a_in_prompt": ["y"], "model_b_in_prompt": ["x/org"],
    ...     "final_verdict": ["x/org>>y"]})
    >>> out, _ = from_judgements_900k(rows, file="f.parquet")
    >>> out[["instruction_id", "model_a", "model_b", "verdict"]].values.tolist()
    [['q1', 'y', 'x/org', '-2']]
    """
    del file  # a frame already read: the names come from its columns
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
    return out.astype("string"), label
