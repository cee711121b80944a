"""Readers: every container format gives the same canonical frame; broken files are refused."""

from __future__ import annotations

import gzip
import io
import json

import pandas as pd
import pytest

from evalcore.ingest.files import read_human_ranking
from evalcore.schema import VerdictFormatError
from evalcore.store.store import read_verdicts

CSV = (
    "instruction_id,model_a,model_b,verdict,judge,human,length_a,length_b,category\n"
    "1,alpha,beta,A>B,j,1,100,80,code\n"
    "1,beta,alpha,-2,j,,80,100,code\n"
    "2,alpha,beta,,j,,10,10,chat\n"
    "2,beta,alpha,[[C]],j,0,10,10,chat\n"
)


def _expected():
    return read_verdicts(CSV.encode(), name="t.csv").frame


def test_csv_reads_every_column():
    table = read_verdicts(CSV.encode(), name="t.csv")
    f = table.frame
    assert table.format == "verdict table (CSV)"
    assert f["verdict"].tolist()[:2] == [1, -2] and pd.isna(f["verdict"].iloc[2])
    assert f["verdict"].iloc[3] == 0
    assert f["human"].iloc[0] == 1 and f["length_b"].iloc[0] == 80.0
    assert table.report.no_verdict_rows == 1


def test_csv_gz_parquet_and_jsonl_give_the_same_frame(tmp_path):
    expected = _expected()
    gz = tmp_path / "t.csv.gz"
    gz.write_bytes(gzip.compress(CSV.encode()))
    raw = pd.read_csv(io.StringIO(CSV), dtype=str, keep_default_na=False)
    pq = tmp_path / "t.parquet"
    raw.to_parquet(pq)
    jl = tmp_path / "t.jsonl"
    jl.write_text("\n".join(json.dumps(r) for r in raw.to_dict(orient="records")))
    for path, label in ((gz, "CSV.gz"), (pq, "Parquet"), (jl, "JSON Lines")):
        table = read_verdicts(path)
        assert label in table.format
        pd.testing.assert_frame_equal(table.frame, expected, check_dtype=False)


def test_parquet_with_numeric_verdicts(tmp_path):
    frame = pd.DataFrame(
        {"instruction_id": [1, 2], "model_a": ["a", "b"], "model_b": ["b", "a"], "verdict": [2, -1]}
    )
    path = tmp_path / "n.parquet"
    frame.to_parquet(path)
    out = read_verdicts(path).frame
    assert out["verdict"].tolist() == [2, -1] and out["instruction_id"].tolist() == ["1", "2"]


def test_non_utf8_file_is_refused_with_the_line():
    data = CSV.replace("alpha,beta,A>B", "alphé,beta,A>B").encode("latin-1")
    with pytest.raises(VerdictFormatError, match="not UTF-8.*line 2"):
        read_verdicts(data, name="latin.csv")


@pytest.mark.parametrize("content", [b"", b"   \n"])
def test_empty_file_is_refused(content):
    with pytest.raises(VerdictFormatError, match="empty"):
        read_verdicts(content, name="e.csv")


def test_header_only_file_is_refused():
    with pytest.raises(VerdictFormatError, match="no rows"):
        read_verdicts(b"instruction_id,model_a,model_b,verdict\n", name="h.csv")


def test_ragged_row_is_refused_in_words():
    data = b"instruction_id,model_a,model_b,verdict\n1,a,b,1\n2,a,b,1,extra,more\n"
    with pytest.raises(VerdictFormatError, match="could not be parsed"):
        read_verdicts(data, name="r.csv")


def test_bad_json_line_names_the_line():
    data = b'{"instruction_id": 1, "model_a": "a", "model_b": "b", "verdict": 1}\n{oops\n'
    with pytest.raises(VerdictFormatError, match="line 2"):
        read_verdicts(data, name="x.jsonl")


def test_unknown_table_names_missing_columns():
    with pytest.raises(VerdictFormatError) as info:
        read_verdicts(b"a,b,c\n1,2,3\n", name="odd.csv")
    assert "instruction_id" in str(info.value) and "odd.csv" in str(info.value)


def test_one_bad_label_in_a_large_file_names_its_row():
    lines = ["instruction_id,model_a,model_b,verdict"]
    lines += [f"{i},a,b,A>B" for i in range(5000)]
    lines[3001] = "3000,a,b,A>>>B"
    with pytest.raises(VerdictFormatError) as info:
        read_verdicts("\n".join(lines).encode(), name="big.csv")
    assert info.value.rows == (3001,) and info.value.values == ("A>>>B",)


def test_human_ranking_reader():
    out = read_human_ranking(b"model,score\na,1200\nb,1100.5\n", name="h.csv")
    assert out.to_dict(orient="list") == {"model": ["a", "b"], "score": [1200.0, 1100.5]}
    with pytest.raises(VerdictFormatError, match="score"):
        read_human_ranking(b"model,elo\na,1\n", name="h.csv")
    with pytest.raises(VerdictFormatError, match="more than once"):
        read_human_ranking(b"model,score\na,1\na,2\n", name="h.csv")


@pytest.mark.parametrize("content,kind", [(b"[1, 2, 3]", "list"), (b"42", "number"), (b'"best"', "string")])
def test_a_human_ranking_that_is_not_a_table_is_refused_in_words(tmp_path, content, kind):
    from evalcore.ingest.files import read_human_ranking

    path = tmp_path / "ranking.json"
    path.write_bytes(content)
    with pytest.raises(VerdictFormatError, match=f"JSON {kind}, not a table"):
        read_human_ranking(path)
