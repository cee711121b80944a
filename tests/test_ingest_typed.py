"""The typed single pass (``evalcore.ingest.read_typed``) against the checking path.

A valid verdict table is read once, typed and checked by two aggregates; anything that pass does
not recognise on sight sends the file down the checking path (text staging, ``validate``). Both
must leave the same stored rows and the same load report, and an invalid file must get the
checking path's message. Every case below is loaded both ways and compared.
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest

from evalcore import ingest
from evalcore.limits import LoadLimits
from evalcore.schema import VerdictFormatError
from evalcore.simulate.tables import SimulationSpec, simulate
from evalcore.store.store import VerdictStore


def _load(path, monkeypatch, *, typed: bool, limits: LoadLimits | None = None):
    """(stored rows, report, whether the typed pass vouched for the file)."""
    vouched = []
    real = ingest.read_typed

    def spy(*args, **kwargs):
        got = real(*args, **kwargs) if typed else None
        vouched.append(got is not None)
        return got

    monkeypatch.setattr(ingest.canonical, "read_typed", spy)
    store = VerdictStore()
    table = store.load_file(path, limits=limits)
    rows = store.con.execute('SELECT * FROM verdicts ORDER BY "row"').df()
    shape = store.con.execute("DESCRIBE verdicts").fetchall()
    tables = {r[0] for r in store.con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
    assert tables == {"verdicts", "dataset"}  # no scratch table left behind
    store.close()
    monkeypatch.setattr(ingest.canonical, "read_typed", real)
    return rows, shape, table.report, table.format, any(vouched)


def _both(path, monkeypatch, **kwargs):
    fast = _load(path, monkeypatch, typed=True, **kwargs)
    slow = _load(path, monkeypatch, typed=False, **kwargs)
    pd.testing.assert_frame_equal(fast[0], slow[0])
    assert fast[1:4] == slow[1:4]
    return fast


def _csv(tmp_path, text: str, name: str = "t.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_simulated_table_is_read_in_one_pass_and_matches_the_checking_path(tmp_path, monkeypatch):
    sim = simulate(SimulationSpec(n_models=5, n_instructions=40, human_fraction=0.3, seed=3))
    frame = sim.verdicts.drop(columns=["row"])
    frame.loc[3, "verdict"] = None  # a call with no verdict
    frame.loc[7, "model_b"] = frame.loc[7, "model_a"]  # a self-comparison
    frame = pd.concat([frame, frame.iloc[[5, 9]]], ignore_index=True)  # two exact repeats
    path = tmp_path / "sim.csv"
    frame.to_csv(path, index=False)
    rows, _, report, _, vouched = _both(path, monkeypatch)
    assert vouched
    assert report.no_verdict_rows == 1 and report.self_comparison_rows == 1
    assert report.duplicate_rows == (len(frame) - 1, len(frame))
    assert rows["row"].tolist() == list(range(1, len(frame) + 1))


@pytest.mark.parametrize(
    "body",
    [
        "q1,a,b,A>B\nq1,b,a,[[B]]\nq2,a,b,tie\nq2,b,a,B>>A\nq3,a,b,model_a\nq3,b,a,tie (bothbad)\n",
        "q1,a,b,1.0\nq1,b,a,+2\nq2,a,b,-0\nq2,b,a,NA\nq3,a,b,\nq3,b,a,error\n",
        "q1,a,b,[[A]]\nq1,b,a,C\nq2,a,b,Tie\nq2,b,a,a=b\n",
    ],
)
def test_labels_and_numbers_are_the_same_levels_either_way(tmp_path, monkeypatch, body):
    rows, _, report, _, _ = _both(
        _csv(tmp_path, "instruction_id,model_a,model_b,verdict\n" + body), monkeypatch
    )
    assert report.rows == len(body.splitlines())


def test_unusual_but_valid_cells_take_the_checking_path_and_load(tmp_path, monkeypatch):
    # spaces around names and labels, a length written 'nan' or ' 12 ', an empty judge
    text = (
        "instruction_id,model_a,model_b,verdict,judge,length_a,length_b,category\n"
        "q1, a ,b, A>B ,j1,nan, 12 ,x\n"
        "q2,a,b,1,,,3,\n"
    )
    rows, _, report, _, vouched = _both(_csv(tmp_path, text), monkeypatch)
    assert not vouched  # padded names and labels are left to the checking path
    assert rows["model_a"].tolist() == ["a", "a"] and rows["verdict"].tolist() == [1, 1]
    assert rows["judge"].tolist() == ["j1", "judge"]
    assert np.isnan(rows["length_a"][0]) and rows["length_b"].tolist() == [12.0, 3.0]


def test_lengths_tokens_and_categories_in_one_pass(tmp_path, monkeypatch):
    text = (
        "instruction_id,model_a,model_b,verdict,judge,human,length_a,length_b,category\n"
        "q1,a,b,1,j1,A>B,NaN,n/a,x\n"
        "q2,a,b,-1,j1,,0,1e3,\n"
        "q3,b,a,2,j2,-2,,-0,y\n"
    )
    rows, _, _, _, vouched = _both(_csv(tmp_path, text), monkeypatch)
    assert vouched
    assert rows["human"].tolist()[0] == 1 and rows["length_b"].tolist()[1] == 1000.0
    assert rows["category"].isna().tolist() == [False, True, False]


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ("q1,a,b,1\nq2,,b,1\n", "column 'model_a' is empty in 1 row"),
        ("q1,a,b,1\nq2,a,,1\n", "column 'model_b' is empty in 1 row"),
        ("q1,a,b,1\n,a,b,1\n", "column 'instruction_id' is empty in 1 row"),
        ("q1,a,b,1\nq2,a,b,3\n", "column 'verdict' has 1 value outside the verdict scale"),
        ("q1,a,b,1\nq2,a\u200bx,b,1\n", None),  # an invisible character: a note, not an error
        ("q1,a,b,1\nq2,a\x01,b,1\n", "control character"),
    ],
)
def test_problems_get_the_checking_paths_message(tmp_path, monkeypatch, body, words):
    path = _csv(tmp_path, "instruction_id,model_a,model_b,verdict\n" + body)
    if words is None:
        _, _, report, _, vouched = _both(path, monkeypatch)
        assert not vouched and report.name_notes
        return
    messages = []
    for typed in (True, False):
        with pytest.raises(VerdictFormatError) as err:
            _load(path, monkeypatch, typed=typed)
        messages.append(str(err.value))
    assert messages[0] == messages[1] and words in messages[0] and "row 2" in messages[0]


@pytest.mark.parametrize("column", ["model_a", "model_b"])
def test_a_missing_model_in_parquet_gets_the_checking_paths_message(tmp_path, monkeypatch, column):
    """A model name missing (NULL, not empty text) in a typed Parquet column: the typed pass
    looks for it among the distinct names and leaves the file to the checking path's words."""
    frame = pd.DataFrame(
        {"instruction_id": ["q1", "q2"], "model_a": ["a", "a"], "model_b": ["b", "b"], "verdict": [1, -1]}
    )
    frame.loc[1, column] = None
    path = tmp_path / "missing.parquet"
    frame.to_parquet(path)
    messages = []
    for typed in (True, False):
        with pytest.raises(VerdictFormatError) as err:
            _load(path, monkeypatch, typed=typed)
        messages.append(str(err.value))
    assert messages[0] == messages[1] and column in messages[0] and "row 2" in messages[0]


def test_bad_lengths_get_the_checking_paths_message(tmp_path, monkeypatch):
    head = "instruction_id,model_a,model_b,verdict,length_a\n"
    for body, words in (("q1,a,b,1,12\nq2,a,b,1,long\n", "must hold numbers"), ("q1,a,b,1,-4\n", "negative")):
        path = _csv(tmp_path, head + body)
        with pytest.raises(VerdictFormatError, match=words) as err:
            _load(path, monkeypatch, typed=True)
        assert "row" in str(err.value)


def test_limits_are_enforced_on_the_typed_pass(tmp_path, monkeypatch):
    path = _csv(tmp_path, "instruction_id,model_a,model_b,verdict\nq1,a,b,1\nq2,c,d,1\n")
    with pytest.raises(VerdictFormatError, match="over the limit of 1 rows"):
        _load(path, monkeypatch, typed=True, limits=LoadLimits(max_rows=1))
    with pytest.raises(VerdictFormatError, match="names 4 models, over the limit of 3"):
        _load(path, monkeypatch, typed=True, limits=LoadLimits(max_models=3))


def test_parquet_and_json_lines_with_typed_columns(tmp_path, monkeypatch):
    con = duckdb.connect()
    con.execute(
        """CREATE TABLE t AS SELECT 'q' || (i // 2) AS instruction_id, i AS row_id,
           CASE WHEN i % 2 = 0 THEN 'a' ELSE 'b' END AS model_a,
           CASE WHEN i % 2 = 0 THEN 'b' ELSE 'a' END AS model_b,
           CAST((i % 5) - 2 AS TINYINT) AS verdict, 'j' AS judge,
           CASE WHEN i % 3 = 0 THEN NULL ELSE i * 10.5 END AS length_a,
           CAST(i * 0.1 AS FLOAT) AS length_b, i AS category
           FROM range(50) r(i)"""
    )
    parquet = tmp_path / "t.parquet"
    con.execute(f"COPY t TO '{parquet}' (FORMAT parquet)")
    rows, _, _, fmt, vouched = _both(parquet, monkeypatch)
    assert vouched and fmt == "verdict table (Parquet)"
    assert rows["category"].tolist()[:3] == ["0", "1", "2"]
    lines = tmp_path / "t.jsonl"
    records = con.execute("SELECT * FROM t").df().to_dict(orient="records")
    lines.write_text("\n".join(json.dumps(r, default=float) for r in records) + "\n", encoding="utf-8")
    rows, _, _, _, vouched = _both(lines, monkeypatch)
    assert vouched and len(rows) == 50


def test_a_column_named_like_the_row_counter_is_only_data(tmp_path, monkeypatch):
    path = _csv(tmp_path, "instruction_id,model_a,model_b,verdict,ordinality\nq1,a,b,1,7\nq2,a,b,1,3\n")
    rows, _, _, _, vouched = _both(path, monkeypatch)
    assert vouched and rows["row"].tolist() == [1, 2]
    lines = tmp_path / "t.jsonl"
    lines.write_text(
        '{"ordinality": 9, "instruction_id": "q1", "model_a": "a", "model_b": "b", "verdict": 1}\n'
        '{"ordinality": 4, "instruction_id": "q2", "model_a": "a", "model_b": "b", "verdict": -1}\n',
        encoding="utf-8",
    )
    rows, _, _, _, vouched = _both(lines, monkeypatch)
    assert vouched and rows["row"].tolist() == [1, 2] and rows["verdict"].tolist() == [1, -1]


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_rows_read_in_parallel_keep_the_files_numbers(tmp_path, kind):
    """A large file read on every thread (CSV: numbered from the created table's order; Parquet:
    by the reader, file by row group) keeps each row's number in the file: row k is the k-th
    data row. 1.2 M rows, so that DuckDB splits the CSV and reads many row groups."""
    n = 1_200_000
    con = duckdb.connect()
    path = tmp_path / f"big.{kind}"
    options = "HEADER" if kind == "csv" else "FORMAT parquet, ROW_GROUP_SIZE 100000"
    con.execute(
        f"""COPY (SELECT 'q' || i AS instruction_id, 'm' || (i % 7) AS model_a,
                  'm' || ((i + 1 + i % 5) % 7) AS model_b, (i % 5) - 2 AS verdict, 'j' AS judge
                  FROM range({n}) r(i)) TO '{path}' ({options})"""
    )
    store = VerdictStore()
    store.load_file(str(path))
    assert store._unique_keys  # the typed pass took it
    misnumbered = store.con.execute(
        """SELECT count(*), count(*) FILTER (WHERE instruction_id <> 'q' || ("row" - 1)) FROM verdicts"""
    ).fetchall()[0]
    assert misnumbered == (n, 0)
    store.close()


def test_a_parquet_column_named_like_the_readers_row_number_is_only_data(tmp_path, monkeypatch):
    path = tmp_path / "t.parquet"
    pd.DataFrame(
        {
            "instruction_id": ["q1", "q2"],
            "model_a": "a",
            "model_b": "b",
            "verdict": [1, -1],
            "file_row_number": [7, 3],
        }
    ).to_parquet(path)
    rows, _, _, _, vouched = _both(path, monkeypatch)
    assert vouched and rows["row"].tolist() == [1, 2] and rows["verdict"].tolist() == [1, -1]


def test_a_failed_typed_load_keeps_the_previous_table(tmp_path):
    store = VerdictStore()
    store.load_file(_csv(tmp_path, "instruction_id,model_a,model_b,verdict\nq1,x,y,1\n", "ok.csv"))
    with pytest.raises(VerdictFormatError):
        store.load_file(_csv(tmp_path, "instruction_id,model_a,model_b,verdict\nq1,a,b,9\n", "bad.csv"))
    assert store.models() == ("x", "y") and store.name == "ok.csv"


def _load_with_text(path, monkeypatch, *, typed: bool):
    """(stored rows, stored text, report, format, whether the typed pass vouched for the file)."""
    vouched = []
    real = ingest.read_typed

    def spy(*args, **kwargs):
        got = real(*args, **kwargs) if typed else None
        vouched.append(got is not None)
        return got

    monkeypatch.setattr(ingest.canonical, "read_typed", spy)
    store = VerdictStore()
    table = store.load_file(path)
    rows = store.con.execute('SELECT * FROM verdicts ORDER BY "row"').df()
    current = store.text.current
    text = None if current is None else store.con.execute(f'SELECT * FROM {current} ORDER BY "row"').df()
    store.close()
    monkeypatch.setattr(ingest.canonical, "read_typed", real)
    return rows, text, table.report, table.format, any(vouched)


@pytest.mark.parametrize("kind", ["csv", "parquet", "jsonl"])
def test_text_and_time_columns_ride_along_the_typed_pass(tmp_path, monkeypatch, kind):
    """Prompts, answers, judge outputs, call ids and times are kept verbatim, never checked: a
    table carrying them is read by the typed pass (it used to take the checking path), with the
    same rows, text (lengths from the answers when the file gives none), report and format."""
    frame = pd.DataFrame(
        {
            "instruction_id": ["q1", "q1", "q2", "q3"],
            "model_a": ["m1", "m2", "m1", "m3"],
            "model_b": ["m2", "m3", "m3", "m1"],
            "verdict": ["A>B", "tie", "B>>A", None],
            "prompt": ["say hi", "say hi", None, "¿qué?"],
            "response_a": ["hi", "hello there", "x", "sí"],
            "response_b": ["hey", None, "yy", "no  "],
            "judge_output": ["[[A]]", None, "B is better", ""],
            "call_id": ["c1", "c2", "c3", "c4"],
            "judged_at": ["2024-05-01T10:00:00Z", "2024-05-01 11:00", None, "yesterday"],
        }
    )
    path = tmp_path / f"t.{kind}"
    if kind == "csv":
        frame.to_csv(path, index=False)
    elif kind == "parquet":
        frame.to_parquet(path, index=False)
    else:
        frame.to_json(path, orient="records", lines=True)
    fast = _load_with_text(path, monkeypatch, typed=True)
    slow = _load_with_text(path, monkeypatch, typed=False)
    assert fast[4] and not slow[4]
    pd.testing.assert_frame_equal(fast[0], slow[0])
    pd.testing.assert_frame_equal(fast[1], slow[1])
    assert fast[2:4] == slow[2:4]
    assert fast[1]["judged_at"].tolist()[:2] == ["2024-05-01T10:00:00Z", "2024-05-01 11:00"]
    assert fast[0]["length_a"].tolist()[0] == 2.0  # "hi", from the answers


def test_the_bundled_demo_takes_the_typed_pass_with_the_same_rows_and_text(monkeypatch):
    """The demo (text and time columns) loads through the typed pass: the same stored verdicts,
    text, report and format as the checking path it used to take."""
    demo = Path(__file__).resolve().parent.parent / "data" / "demo_all_pairs.parquet"
    fast = _load_with_text(demo, monkeypatch, typed=True)
    slow = _load_with_text(demo, monkeypatch, typed=False)
    assert fast[4] and not slow[4]
    pd.testing.assert_frame_equal(fast[0], slow[0])
    pd.testing.assert_frame_equal(fast[1], slow[1])
    assert fast[2:4] == slow[2:4]
    assert fast[1]["judged_at"].notna().all() and len(fast[1]) == len(fast[0])


def test_typed_pass_keeps_the_judges_categories_and_models_the_store_would_read(tmp_path):
    """The typed pass's name check also lists the judges, categories and models: the store keeps
    them for the loaded table (no second and third scan), equal to its own queries."""
    path = tmp_path / "v.csv"
    path.write_text(
        "instruction_id,model_a,model_b,verdict,judge,category\n"
        "q1,zeta,alpha,1,j2,\n"
        "q1,alpha,beta,-1,,maths\n"
        "q2,beta,zeta,0,j1,code\n"
        "q2,Beta,alpha,2,j1,maths\n"
    )
    store = VerdictStore()
    store.load_file(path, text=False)
    kept = {key: store.kept(key) for key in (("judges",), ("categories",), ("models",))}
    assert kept == {
        ("judges",): ("j1", "j2", "judge"),
        ("categories",): ("code", "maths"),
        ("models",): ("Beta", "alpha", "beta", "zeta"),
    }
    store._kept.clear()  # the store's own queries, read again
    assert (store.judges(), store.categories(), store.models()) == tuple(v for v in kept.values())


def test_the_instruction_id_check_answers_as_its_regular_expression():
    """The typed pass rules out odd instruction ids with a cheap test before the regular
    expression (``_odd_id``): on every character below U+3000 inside, before and after an id,
    and on the whitespace the contract strips, it must answer exactly as the expression."""
    from evalcore.ingest.typed import _ODD_ID, _odd_id

    ids = [f"a{chr(i)}b" for i in range(0x3000)] + [f"{chr(i)}ab" for i in range(256)]
    ids += [f"ab{chr(i)}" for i in range(256)] + [
        "\ufeffab",
        "ab\ufeff",
        "\xa0x",
        "x\xa0",
        " ",
        "",
        "é ",
        'a"b\\',
    ]
    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT unnest(?::VARCHAR[]) AS v", [[*ids, None]])
    rows = con.execute(f"SELECT v, {_odd_id('v')}, regexp_matches(v, '{_ODD_ID}') FROM t").fetchall()
    assert [r for r in rows if r[1] is not r[2]] == []
    assert sum(bool(r[2]) for r in rows) > 100  # the cases do include odd ids


@pytest.mark.parametrize("odd", ["\x00", "\x1f", "\x7f", "\x85", " ", "\xa0", "\ufeff"])
def test_an_odd_instruction_id_in_parquet_leaves_the_typed_pass(tmp_path, monkeypatch, odd):
    path = tmp_path / "t.parquet"
    frame = pd.DataFrame(
        {"instruction_id": ["q1", f"q2{odd}", 'q"3\\'], "model_a": "a", "model_b": "b", "verdict": 1}
    )
    frame.to_parquet(path)
    plain = tmp_path / "plain.parquet"
    frame.assign(instruction_id=["q1", "q2", 'q"3\\']).to_parquet(plain)
    assert _load(plain, monkeypatch, typed=True)[4]  # a quote or a backslash is no reason to leave
    outcomes = []
    for typed in (True, False):
        try:
            rows, _, report, _, vouched = _load(path, monkeypatch, typed=typed)
            outcomes.append((rows["instruction_id"].tolist(), report, vouched))
        except VerdictFormatError as err:
            outcomes.append((str(err), None, None))
    assert outcomes[0][:2] == outcomes[1][:2] and not outcomes[0][2]
