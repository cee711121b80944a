"""A JSON file's rows are read with the columns its description found (no second sampling of
the file): the same rows as the detecting reader, only for plain types, and a value the
description did not foresee is refused in words, without DuckDB's advice on reader options."""

from __future__ import annotations

import json

import duckdb
import pandas as pd
import pytest

from evalcore.ingest.sources import Source, describe
from evalcore.schema import VerdictFormatError
from evalcore.store.store import VerdictStore


def _battles(n: int) -> list[dict]:
    models = ["m0", "m1", "m2", "m3"]
    winners = ["model_a", "model_b", "tie", "tie (bothbad)"]
    return [
        {
            "model_a": models[k % 4],
            "model_b": models[(k + 1 + k // 4) % 4] if (k + 1 + k // 4) % 4 != k % 4 else models[(k + 2) % 4],
            "winner": winners[(k * 7) % 4],
            "judge": f"arena_user_{k % 9}",
            "turn": 1,
            "anony": k % 2 == 0,
            "tstamp": 1.7e9 + k,
            "question_id": f"{k:032x}",
        }
        for k in range(n)
    ]


def _source(path, kind: str) -> Source:
    return Source(path, path.name, kind, path.name)


@pytest.mark.parametrize("kind", ["json", "jsonl"])
def test_plain_columns_are_given_to_the_reader_and_read_the_same_rows(tmp_path, kind):
    rows = _battles(60)
    path = tmp_path / f"battles.{kind}"
    path.write_text(json.dumps(rows) if kind == "json" else "\n".join(json.dumps(r) for r in rows))
    con = duckdb.connect()
    names, types, sql = describe(con, _source(path, kind))
    assert "columns={" in sql
    detected = "read_json(" + sql.split("read_json(", 1)[1].split(", columns=")[0] + ")"
    given = con.execute(f"SELECT * FROM {sql}").df()
    pd.testing.assert_frame_equal(given, con.execute(f"SELECT * FROM {detected}").df())
    assert list(given.columns) == names and len(given) == 60


def test_structs_lists_and_dates_stay_with_the_detection(tmp_path):
    rows = [
        {
            "model_a": "a",
            "model_b": "b",
            "winner": "model_a",
            "day": "2024-05-01",
            "conv": [{"role": "user"}],
        },
        {"model_a": "b", "model_b": "a", "winner": "tie", "day": "2024-05-02", "conv": [{"role": "user"}]},
    ]
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(rows))
    _, types, sql = describe(duckdb.connect(), _source(path, "json"))
    assert "DATE" in types and any("STRUCT" in t for t in types)
    assert "columns=" not in sql


def test_names_differing_only_in_case_stay_with_the_detection(tmp_path):
    """DuckDB numbers the second of two names that differ in case (``model_1``), a name no key
    has: given as a column, it would read nothing."""
    path = tmp_path / "case.json"
    path.write_text(json.dumps([{"Model": "a", "model": "b"}]))
    con = duckdb.connect()
    names, _, sql = describe(con, _source(path, "json"))
    assert names == ["Model", "model_1"] and "columns=" not in sql
    assert con.execute(f"SELECT * FROM {sql}").fetchall() == [("a", "b")]


def test_a_value_of_another_type_past_the_sample_is_refused_in_words(tmp_path):
    """The description samples the first rows; a later value of another type stops the read
    (as the detecting reader does) with the record named and no advice on reader options."""
    rows = [
        {"instruction_id": f"q{k}", "model_a": "a", "model_b": "b", "verdict": k % 3 - 1, "judge": "j"}
        for k in range(30_000)
    ]
    rows[25_000]["verdict"] = "two"
    path = tmp_path / "late.json"
    path.write_text(json.dumps(rows))
    store = VerdictStore()
    try:
        with pytest.raises(VerdictFormatError) as got:
            store.load_file(path)
    finally:
        store.close()
    text = str(got.value)
    assert "25001" in text and "two" in text
    assert "sample_size" not in text and "auto_detect" not in text and "Try " not in text
