"""Chatbot Arena battle tables converted in SQL (the published ``clean_battle_*.json`` dump and its
relatives): the part of :mod:`evalcore.ingest` that makes a 1.8 M-battle dump load in one pass.

Slot A is ``model_a`` (the left response); ``winner`` model_a → +1, model_b → −1, tie… → 0,
empty / error → no verdict; each battle is its own prompt (``question_id``, or ``battle-<row>``
where it has none); per-voter judge ids are pooled as one crowd judge. The Python importer
(:func:`evalcore.importers.from_battles`) applies the same rules and is the reference the tests
compare this path against.
"""

from __future__ import annotations

import re

import duckdb

from evalcore._sql import one_row, sql_literal
from evalcore.ingest.sources import _ident, typed_select
from evalcore.schema import BOTH_BAD_LABELS, VerdictFormatError, normalise_label
from evalcore.text import fmt_count

#: The type each column must have (the rules of the streamed importer's screen).
_RULES = {
    "model_a": "name",
    "model_b": "name",
    "winner": "name?",
    "question_id": "id?",
    "id": "id?",
    "judge": "id?",
    "judge_hash": "id?",
    "category": "name?",
    "language": "name?",
}

#: A voter id as the arena writes it: nothing to strip at either end, never an MT-Bench rater.
PLAIN_VOTER = "arena_user[A-Za-z0-9_-]*"


def arena_select(names: list[str], cols: list[str], types: list[str]) -> tuple[str, dict[str, str]] | None:
    """The staging projection for a Chatbot Arena battle table, or None if it is streamed through
    the importer (:mod:`evalcore.ingest.native`).

    ``names`` are the columns as the file names them, ``cols`` as the reader does (c0… for CSV).
    Returns (select list for ``vl_raw``, the staged columns). MT-Bench's human-judgment table
    shares the columns but needs the turn logic of the importer.
    """
    lower = {n.strip().lower(): (c, t) for n, c, t in zip(names, cols, types, strict=True)}
    if not {"model_a", "model_b", "winner"} <= set(lower):
        return None
    judge = lower.get("judge")
    if judge is not None and judge[1] not in ("VARCHAR", "BIGINT", "INTEGER", "DOUBLE"):
        return None  # FastChat's ["gpt-4", "pair-v2"] judges (lists or mixed JSON): MT-Bench
    # each value read as text by its own type; a row with a value of the wrong type is marked
    # to be set aside (evalcore.ingest.sources.set_aside_rows)
    checked = [(k, rule) for k, rule in _RULES.items() if k in lower]
    sel = {k: f"{_ident(k)}" for k, _ in checked}
    sel["vl_checked"] = typed_select([(lower[k][0], lower[k][1], k, rule) for k, rule in checked])
    for side in ("a", "b"):
        key = f"conversation_{side}"
        if key in lower:
            col, typ = lower[key]
            if "STRUCT" in typ and "[]" in typ and "content" in typ and "role" in typ:
                sel[key] = (
                    f"list_sum(list_transform(list_filter({_ident(col)}, lambda x: x.role IN "
                    f"('assistant', 'gpt')), lambda x: coalesce(length(CAST(x.content AS VARCHAR)),"
                    f" 0)))::DOUBLE AS length_{side}"
                )
                # the text: the first user turn is the prompt, the assistant's turns the answer
                # (evalcore.importers.chatbot_arena.conversation_text)
                sel[f"response_{side}"] = (
                    f"nullif(array_to_string(list_transform(list_filter({_ident(col)}, lambda x: x.role "
                    f"IN ('assistant', 'gpt')), lambda x: CAST(x.content AS VARCHAR)), "
                    f"chr(10) || chr(10)), '') AS response_{side}"
                )
                if side == "a" or "prompt" not in sel:
                    sel["prompt"] = (
                        f"CAST(list_filter({_ident(col)}, lambda x: x.role IN ('user', 'human'))[1].content "
                        "AS VARCHAR) AS prompt"
                    )
            else:
                return None  # conversations stored as text: streamed through the importer
    staged = [v for k, v in sel.items() if k not in _RULES]  # the checked columns are in vl_checked
    return ", ".join(staged), sel


def _battle_level(label: str) -> str | None:
    """A winner label → '1', '-1', '0', None (no vote) or '?' (unknown); see
    :func:`evalcore.importers.chatbot_arena.from_battles`."""
    text = normalise_label(label)
    if text == "model_a":
        return "1"
    if text == "model_b":
        return "-1"
    if text.startswith("tie"):
        return "0"
    if text in ("", "error", "nan", "none", "null"):
        return None
    return "?"


def _battle_both_bad(label: str) -> str:
    """'true' for a tie both voters' answers were bad (``tie (bothbad)``), else 'false'."""
    return "true" if normalise_label(label) in BOTH_BAD_LABELS else "false"


def convert_arena(
    cur: duckdb.DuckDBPyConnection, sel: dict[str, str], *, file: str
) -> tuple[dict[str, str], str] | None:
    """Battles in ``vl_raw`` → contract expressions over the view ``vl_arena``; the format label.
    None: an MT-Bench human-judgment table (rater ids), streamed through the importer.

    Judges and winners are mapped per distinct value (a handful of winners, one id per voter).
    """
    from evalcore.importers.labels import ARENA_VOTERS, BATTLE_NOTE, MT_BENCH_RATER, NAMES

    # An arena names a voter a battle (155,504 voters in 300,000 battles): the plain voter ids
    # are counted in DuckDB, and only the other judges come to Python, stripped and matched as
    # every judge once was (that took 0.2 s at 300,000 battles).
    judges: list[str] = []
    plain = 0
    if "judge" in sel:
        is_plain = f"regexp_full_match(judge, '{PLAIN_VOTER}')"
        plain = one_row(cur.execute(f"SELECT count(DISTINCT judge) FROM vl_raw WHERE {is_plain}"))[0]
        judges = [
            str(r[0]).strip()
            for r in cur.execute(
                f"SELECT DISTINCT judge FROM vl_raw WHERE judge IS NOT NULL AND NOT {is_plain}"
            ).fetchall()
        ]
        if any(MT_BENCH_RATER.match(j) for j in judges):
            return None
    winners = [
        r[0] for r in cur.execute("SELECT DISTINCT winner FROM vl_raw WHERE winner IS NOT NULL").fetchall()
    ]
    levels = [_battle_level(w) for w in winners]
    # "tie (bothbad)" is a tie marked both bad (kept in the both_bad column)
    both_bad = [
        _battle_both_bad(w) if v not in (None, "?") else None for w, v in zip(winners, levels, strict=True)
    ]
    # the few distinct winners travel as three lists (no frame: pandas is not loaded for a table
    # DuckDB reads whole)
    cur.execute(
        "CREATE OR REPLACE TEMP TABLE vl_map_winner AS SELECT unnest(?::VARCHAR[]) AS label, "
        "unnest(?::VARCHAR[]) AS level, unnest(?::VARCHAR[]) AS both_bad",
        [[str(w) for w in winners], levels, both_bad],
    )
    unknown = "winner IN (SELECT label FROM vl_map_winner WHERE level = '?')"
    bad = cur.execute(f"SELECT rowid + 1 AS r FROM vl_raw WHERE {unknown} ORDER BY rowid").fetchnumpy()["r"]
    if bad.size:
        values = cur.execute(
            f"SELECT winner FROM vl_raw WHERE {unknown} GROUP BY winner ORDER BY min(rowid) LIMIT 50"
        ).fetchall()
        raise VerdictFormatError(
            file,
            f"column 'winner' has {fmt_count(bad.size, 'value')} that {'is' if bad.size == 1 else 'are'} not model_a, model_b, tie or tie (bothbad)",
            rows=tuple(int(r) for r in bad),
            values=tuple(str(v[0]) for v in values),
            hint="A battle's winner is model_a (left), model_b (right), tie or tie (bothbad); "
            "leave it empty for a battle without a vote",
        )
    cur.execute("""CREATE OR REPLACE TEMP VIEW vl_arena AS SELECT r.rowid AS vl_rowid, r.*,
                   m.level AS vl_level, m.both_bad AS vl_both_bad FROM vl_raw r LEFT JOIN vl_map_winner m ON m.label = r.winner""")
    notes = [BATTLE_NOTE]
    own_id = "'battle-' || CAST(vl_rowid + 1 AS VARCHAR)"
    qid = "question_id" if "question_id" in sel else ("id" if "id" in sel else None)
    if qid is not None:
        empty = one_row(cur.execute(f"SELECT count(*) FROM vl_raw WHERE coalesce({qid}, '') = ''"))[0]
        inst = f"CASE WHEN coalesce({qid}, '') = '' THEN {own_id} ELSE {qid} END"
        if empty:
            notes.append(
                f"{fmt_count(empty, 'battle')} without a question_id {'gets its' if empty == 1 else 'get their'} own id"
            )
    else:
        inst = own_id
        notes.append("no question_id: each battle is its own prompt ('battle-1', 'battle-2', …)")
    exprs = {
        "instruction_id": inst,
        "model_a": "model_a",
        "model_b": "model_b",
        "verdict": "vl_level",
        "both_bad": "vl_both_bad",
    }
    if "judge" in sel:
        named = {j for j in judges if j}
        if (plain or named) and all(j.startswith("arena_user") for j in named):
            exprs["judge"] = sql_literal(ARENA_VOTERS)
            # a stripped id that is also written plainly is one voter, not two
            twice = sorted(j for j in named if re.fullmatch(PLAIN_VOTER, j))
            if twice:
                twice_sql = (
                    "SELECT count(DISTINCT judge) FROM vl_raw WHERE judge IN (SELECT unnest(?::VARCHAR[]))"
                )
                plain -= one_row(cur.execute(twice_sql, [twice]))[0]
            notes.append(f"{plain + len(named):,} voters pooled as one judge, '{ARENA_VOTERS}'")
        else:
            exprs["judge"] = "judge"
    elif "judge_hash" in sel:
        distinct = one_row(cur.execute("SELECT count(DISTINCT judge_hash) FROM vl_raw"))[0]
        exprs["judge"] = sql_literal(ARENA_VOTERS)
        notes.append(f"{distinct:,} voters pooled as one judge, '{ARENA_VOTERS}'")
    if "category" in sel:
        exprs["category"] = "category"
    elif "language" in sel:
        exprs["category"] = "language"
    for side in ("a", "b"):
        if f"conversation_{side}" in sel:
            exprs[f"length_{side}"] = f"length_{side}"
            exprs[f"response_{side}"] = f"response_{side}"
    if "prompt" in sel:
        exprs["prompt"] = "prompt"
    return exprs, f"{NAMES['battles']} ({'; '.join(notes)})"
