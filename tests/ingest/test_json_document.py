"""A ``.json`` file holding one JSON object (pandas' ``to_json`` orients, a wrapped list of
records, one pretty-printed call) loads the rows the same table gives as CSV; anything else is
refused in words. JSON columns that mix strings with numbers or nulls keep their values."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from evalcore.ingest import json_document
from evalcore.schema import VerdictFormatError
from evalcore.store.store import VerdictStore

TABLE = pd.DataFrame(
    {
        "instruction_id": ["q1", "q2", "q3"],
        "model_a": ["a", "a", "b"],
        "model_b": ["b", "c", "a"],
        "verdict": [2, -1, 0],
        "category": ["x", "z", "y"],
    }
)


def _frame(data: bytes, name: str) -> pd.DataFrame:
    store = VerdictStore()
    try:
        store.load_bytes(data, name=name)
        return store.frame()
    finally:
        store.close()


@pytest.fixture(scope="module")
def as_csv() -> pd.DataFrame:
    return _frame(TABLE.to_csv(index=False).encode(), "t.csv")


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(TABLE.to_json(), id="pandas-default-columns"),
        pytest.param(TABLE.to_json(indent=2), id="columns-pretty"),
        pytest.param(TABLE.to_json(orient="split"), id="split"),
        pytest.param(TABLE.to_json(orient="split", indent=1), id="split-pretty"),
        pytest.param(json.dumps(TABLE.to_dict("list"), indent=2), id="lists"),
        pytest.param(json.dumps({"source": "api", "data": TABLE.to_dict("records")}, indent=2), id="wrapped"),
        pytest.param(json.dumps(TABLE.to_dict("records"), indent=2), id="array"),
    ],
)
def test_one_json_object_loads_the_tables_rows(text, as_csv):
    got = _frame(text.encode(), "t.json")
    pd.testing.assert_frame_equal(got, as_csv)


def test_one_call_pretty_printed_is_one_row(as_csv):
    got = _frame(json.dumps(TABLE.to_dict("records")[0], indent=2).encode(), "one.json")
    pd.testing.assert_frame_equal(got, as_csv.iloc[:1])


def test_a_one_line_record_with_nested_fields_stays_json_lines():
    # A flat record (JSON Lines of one line) is never read as a table by columns.
    record = {"instruction_id": "q1", "model_a": "a", "model_b": "b", "verdict": 1, "meta": {"k": 1}}
    assert not json_document.is_document_text(json.dumps(record))
    assert len(_frame(json.dumps(record).encode(), "r.json")) == 1


def test_an_object_that_is_not_a_table_is_refused_in_words():
    text = json.dumps({"a": [{"x": 1}], "b": [{"y": 2}]}, indent=2)
    with pytest.raises(VerdictFormatError, match="one JSON object whose fields are not a table") as got:
        _frame(text.encode(), "odd.json")
    assert got.value.values == ("a", "b")
    with pytest.raises(VerdictFormatError, match="holds no records"):
        _frame(b'{\n "data": []\n}', "empty.json")


def test_broken_json_still_names_the_line():
    with pytest.raises(VerdictFormatError, match="line 1 is not valid JSON"):
        _frame(b'{"instruction_id": "q1",\n "model_a": ', "broken.json")


def test_a_document_over_the_bound_says_how_to_save_it(monkeypatch):
    monkeypatch.setattr(json_document, "MAX_DOCUMENT_BYTES", 100)
    with pytest.raises(VerdictFormatError, match="save the table as JSON Lines|Save the table as JSON Lines"):
        _frame(TABLE.to_json(indent=2).encode(), "big.json")


@pytest.mark.parametrize("name", ["mixed.json", "mixed.jsonl"])
def test_json_columns_mixing_strings_numbers_and_nulls_keep_their_values(name):
    rows = [
        {
            "instruction_id": "q1",
            "model_a": "a",
            "model_b": "b",
            "verdict": 1,
            "category": "x",
            "judge": "j1",
        },
        {"instruction_id": 2, "model_a": "a", "model_b": "b", "verdict": "A>B", "category": 3, "judge": None},
    ]
    text = json.dumps(rows) if name.endswith(".json") else "\n".join(json.dumps(r) for r in rows)
    got = _frame(text.encode(), name)
    assert got["instruction_id"].tolist() == ["q1", "2"]
    assert got["verdict"].tolist() == [1, 1]  # "A>B" is slot A better, not a value off the scale
    assert got["category"].tolist() == ["x", "3"]
    assert got["judge"].tolist() == ["j1", "judge"]  # no judge named: the default, as in a CSV


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(json.dumps(TABLE.to_dict("list")), id="lists-one-line"),
        pytest.param(json.dumps({"source": "api", "data": TABLE.to_dict("records")}), id="wrapped-one-line"),
        pytest.param(
            json.dumps({"data": TABLE.to_dict("records"), "total": 3}), id="wrapped-one-line-records-first"
        ),
    ],
)
def test_every_documented_layout_loads_on_one_line(text, as_csv):
    """What ``json.dump`` writes by default (one line) loads as the pretty-printed file does;
    before, the one-line forms were read as one JSON Lines record and refused."""
    assert "\n" not in text
    got = _frame(text.encode(), "t.json")
    pd.testing.assert_frame_equal(got, as_csv)


def test_a_one_line_native_record_is_not_taken_for_wrapped_records():
    """One Arena-Hard-Auto judgment line (its ``games`` is a list of objects) stays one record."""
    line = json.dumps(
        {
            "uid": "q1",
            "model": "m",
            "baseline": "b",
            "judge": "j",
            "games": [{"score": "A>B"}, {"score": "B>A"}],
        }
    )
    assert not json_document.is_document_text(line)


def test_json_nested_too_deeply_is_refused_in_words(tmp_path, capsys):
    from evalcore.cli import main

    deep = "{" + '"a":{' * 100_000 + "}" * 100_001
    with pytest.raises(VerdictFormatError, match="nested too deeply"):
        _frame(deep.encode(), "deep.json")
    path = tmp_path / "deep.json"
    path.write_text(deep, encoding="utf-8")
    assert main(["summary", str(path)]) == 2
    err = capsys.readouterr().err
    assert "nested too deeply" in err and "unexpected problem" not in err


def test_a_huge_key_is_quoted_by_an_excerpt():
    """A 5 MB JSON key is named by its first 80 characters and its length, not echoed whole."""
    key = "k" * 5_000_000
    with pytest.raises(VerdictFormatError) as err:
        _frame(json.dumps({key: 1}).encode(), "key.json")
    message = str(err.value)
    assert len(message) < 1_000 and "'" + "k" * 80 + "…' (5,000,000 characters)" in message
