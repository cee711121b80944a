"""Load-time safety: capped gzip, control and invisible characters, lengths, limits, the data
folder, internal-looking names, and the arena dump read by DuckDB."""

from __future__ import annotations

import gzip
import json
import os
import zlib

import numpy as np
import pytest

from evalcore.errors import EvalcoreError, UsageError
from evalcore.ingest.datafolder import list_data_files, resolve_data_file
from evalcore.limits import LoadLimits, parse_size
from evalcore.schema import VerdictFormatError
from evalcore.simulate.tables import simulate_arena, write_arena_dump
from evalcore.store.store import VerdictStore, read_verdicts
from tests.conftest import ROOT

HEADER = "instruction_id,model_a,model_b,verdict"


def test_verdict_format_error_is_an_evalcore_error_and_a_value_error():
    assert issubclass(VerdictFormatError, EvalcoreError)
    assert issubclass(VerdictFormatError, ValueError)


def _bomb(decompressed_rows: int) -> bytes:
    """A .csv.gz of a few KB that expands to many MB (streamed, never built whole)."""
    comp = zlib.compressobj(9, zlib.DEFLATED, 31)
    out = [comp.compress((HEADER + "\n").encode())]
    block = ("q,a,b,1\n" * 100_000).encode()
    for _ in range(decompressed_rows // 100_000):
        out.append(comp.compress(block))
    out.append(comp.flush())
    return b"".join(out)


def test_decompression_bomb_is_refused_naming_the_limit(tmp_path):
    # 3.2 MB of CSV from a few KB against a 1 MB cap: the same bomb as a larger one (a ratio of
    # about 1,000), at a size whose load under a larger cap below takes a second, not fifteen.
    data = _bomb(400_000)
    assert len(data) < 20_000
    path = tmp_path / "bomb.csv.gz"
    path.write_bytes(data)
    store = VerdictStore()
    store.load(read_verdicts(f"{HEADER}\nq,x,y,1\n".encode(), name="ok.csv"))
    with pytest.raises(VerdictFormatError) as err:
        store.load_file(path, limits=LoadLimits(max_bytes=1024**2))
    text = str(err.value)
    assert "1 MB" in text and "Parquet" in text and "sample" in text and str(tmp_path) not in text
    assert store.models() == ("x", "y")  # the previous data stays loaded
    # under a larger budget the same file loads
    table = store.load_file(path, limits=LoadLimits(max_bytes=16 * 1024**2))
    assert table.report.rows == 400_000 and table.format == "verdict table (CSV.gz)"


def test_limits_from_the_environment(monkeypatch):
    monkeypatch.setenv("VERDICTLAB_MAX_BYTES", "500M")
    monkeypatch.setenv("VERDICTLAB_MAX_MODELS", "3")
    limits = LoadLimits.from_env()
    assert limits.max_bytes == 500 * 1024**2 and limits.max_models == 3
    with pytest.raises(VerdictFormatError, match="4 models, over the limit of 3"):
        read_verdicts(f"{HEADER}\n1,a,b,1\n2,c,d,1\n".encode(), name="m.csv")
    with pytest.raises(UsageError, match="VERDICTLAB_MAX_ROWS"):
        parse_size("lots", name="VERDICTLAB_MAX_ROWS")


def test_many_models_and_instructions_load():
    rng = np.random.default_rng(0)
    lines = [HEADER] + [f"i{k},m{rng.integers(2000)},n{rng.integers(2000)},1" for k in range(3000)]
    table = read_verdicts("\n".join(lines).encode(), name="wide.csv")
    assert table.report.rows == 3000
    assert len(table.store.models()) > 2000


@pytest.mark.parametrize("bad", ["a\x00b", "a\tb", "line\nbreak", "bell\x07", "c1\x85x"])
def test_control_characters_in_names_are_refused_with_the_row(bad):
    data = json.dumps({"instruction_id": "1", "model_a": "ok", "model_b": "fine", "verdict": 1})
    data += "\n" + json.dumps({"instruction_id": "2", "model_a": bad, "model_b": "fine", "verdict": 1})
    with pytest.raises(VerdictFormatError) as err:
        read_verdicts(data.encode(), name="ctl.jsonl")
    assert err.value.rows == (2,) and "control character" in str(err.value)
    assert "model_a" in str(err.value)


def test_names_differing_by_invisible_characters_are_reported_with_rows():
    lines = [HEADER, "1,gpt-4,claude,1", "2,gpt\u200b-4,claude,1", "3,claude,\u202egpt,0"]
    table = read_verdicts("\n".join(lines).encode("utf-8"), name="inv.csv")
    notes = " ".join(table.report.notes)
    assert "look the same ('gpt-4')" in notes and "rows 2" in notes and "rows 1" in notes
    assert "\\u202e" in notes  # shown escaped, never as a live override
    assert set(table.store.models()) == {"gpt-4", "gpt\u200b-4", "claude", "\u202egpt"}


@pytest.mark.parametrize(
    "value,words",
    [
        ("-5", "negative or infinite"),
        ("inf", "negative or infinite"),
        ("-inf", "negative or infinite"),
        ("long", "must hold numbers"),
    ],
)
def test_impossible_lengths_are_refused_with_rows(value, words):
    data = f"{HEADER},length_a\n1,a,b,1,10\n2,a,b,1,{value}\n"
    with pytest.raises(VerdictFormatError) as err:
        read_verdicts(data.encode(), name="len.csv")
    assert err.value.rows == (2,) and words in str(err.value)


def test_nan_length_is_unknown_not_an_error():
    table = read_verdicts(f"{HEADER},length_a\n1,a,b,1,NaN\n2,a,b,1,3\n".encode(), name="n.csv")
    assert np.isnan(table.frame["length_a"].iloc[0]) and table.frame["length_a"].iloc[1] == 3


def test_names_equal_to_internal_columns_work_in_the_library():
    from evalcore.ranking import leaderboard

    names = ["model", "rank", "rating", "low", "high", "row", "verdict"]
    lines = [HEADER] + [
        f"{k}-{i},{a},{b},{(-1) ** (i + k)}"
        for k in range(6)
        for i, a in enumerate(names)
        for b in names
        if a != b
    ]
    store = VerdictStore()
    store.load(read_verdicts("\n".join(lines).encode(), name="n.csv"))
    counts = store.counts()
    assert set(counts.models) == set(names)
    board = leaderboard(counts, rounds=0)
    assert set(board.table["model"]) == set(names)
    assert store.summary().pairs_judged == 21


def test_gzip_parquet_jsonl_paths_load_into_the_store(tmp_path):
    rows = [{"instruction_id": str(i), "model_a": "a", "model_b": "b", "verdict": "A>B"} for i in range(5)]
    jl = tmp_path / "t.jsonl.gz"
    jl.write_bytes(gzip.compress("\n".join(json.dumps(r) for r in rows).encode()))
    store = VerdictStore()
    table = store.load_file(jl)
    assert table.store is store and table.format == "verdict table (JSON Lines)"
    assert store.frame()["verdict"].tolist() == [1] * 5


def test_missing_file_is_refused_without_its_path(tmp_path):
    with pytest.raises(VerdictFormatError) as err:
        VerdictStore().load_file(tmp_path / "nope.csv")
    assert str(tmp_path) not in str(err.value) and "nope.csv" in str(err.value)


# -- the data folder ---------------------------------------------------------------------------


@pytest.fixture
def folder(tmp_path):
    root = tmp_path / "data"
    (root / "sub").mkdir(parents=True)
    (root / "a.csv").write_text(f"{HEADER}\n1,a,b,1\n")
    (root / "sub" / "b.parquet").write_bytes(b"PAR1")
    (root / "notes.txt").write_text("not a table")
    secret = tmp_path / "secret.csv"
    secret.write_text(f"{HEADER}\n1,s,t,1\n")
    os.symlink(secret, root / "link-out.csv")
    os.symlink(root / "a.csv", root / "link-in.csv")
    return root


def test_data_folder_lists_only_its_own_files(folder):
    assert list_data_files(folder) == ["a.csv", "link-in.csv", "sub/b.parquet"]


def test_data_folder_leaves_out_names_that_are_not_text(folder):
    # A file (and a folder) named with Latin-1 bytes: Python gives it stand-in characters that a
    # page cannot send to the browser (the Data page stopped with an encoding error).
    root = os.fsencode(folder)
    with open(os.path.join(root, b"caf\xe9.csv"), "w") as out:
        out.write(f"{HEADER}\n1,a,b,1\n")
    os.mkdir(os.path.join(root, b"d\xe9j\xe0"))
    with open(os.path.join(root, b"d\xe9j\xe0", b"c.csv"), "w") as out:
        out.write(f"{HEADER}\n1,a,b,1\n")
    names = list_data_files(folder)
    assert names == ["a.csv", "link-in.csv", "sub/b.parquet"]
    assert all(name.encode("utf-8") for name in names)


@pytest.mark.parametrize(
    "name",
    [
        "../secret.csv",
        "sub/../../secret.csv",
        "link-out.csv",
        "/etc/passwd",
        "",
        "notes.txt",
        "sub",
        "a.csv\x00.txt",
    ],
)
def test_data_folder_refuses_escapes_without_quoting_paths(folder, name):
    with pytest.raises(UsageError) as err:
        resolve_data_file(name, folder)
    assert str(folder.parent) not in str(err.value)


def test_data_folder_file_loads(folder, monkeypatch):
    monkeypatch.setenv("VERDICTLAB_DATA_DIR", str(folder))
    path = resolve_data_file("a.csv")
    table = VerdictStore().load_file(path, name="a.csv")
    assert table.file == "a.csv" and table.report.rows == 1
    with pytest.raises(UsageError):
        resolve_data_file("../secret.csv")


# -- the arena dump ------------------------------------------------------------------------------


def test_simulated_arena_dump_reads_as_published(tmp_path):
    sim = simulate_arena(n_battles=3000, n_models=12, tie_share=0.35, seed=1)
    assert abs(sim.tie_share - 0.35) < 0.04 and (sim.a != sim.b).all()
    json_path, pq_path = tmp_path / "clean_battle.json", tmp_path / "battles.parquet"
    write_arena_dump(sim, json_path, parquet_path=pq_path)
    records = json.loads(json_path.read_text())
    assert set(records[0]) >= {
        "model_a",
        "model_b",
        "winner",
        "judge",
        "question_id",
        "tstamp",
        "language",
        "turn",
        "anony",
    }
    store = VerdictStore()
    table = store.load_file(json_path)
    assert table.format.startswith("Chatbot Arena battle table")
    assert table.report.rows == 3000 and store.judges() == ("Chatbot Arena voters",)
    frame = store.frame()
    expected = np.where(sim.outcome == 2, 0, sim.outcome)
    assert (frame["verdict"].to_numpy(dtype=int) == expected).all()
    assert frame["instruction_id"].nunique() == 3000  # one prompt per battle
    from_parquet = VerdictStore()
    from_parquet.load_file(pq_path)
    a, b = store.counts(), from_parquet.counts()
    assert a.models == b.models and np.array_equal(a.pooled(), b.pooled())
    s = store.summary()
    assert s.orders == "single order" and len(s.models) == 12


def test_file_names_with_quotes_or_bad_bytes_load(tmp_path):
    import subprocess
    import sys

    weird = os.fsdecode(b"it's \xff odd.csv")
    path = tmp_path / weird
    path.write_text(f"{HEADER}\n1,a,b,1\n")
    table = VerdictStore().load_file(path)
    assert table.report.rows == 1 and "odd.csv" in table.file
    done = subprocess.run(
        [sys.executable, "-m", "evalcore", "summary", os.fsencode(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr


def test_sql_arena_path_equals_the_python_importer():

    import pandas as pd

    from evalcore.importers import from_battles

    fixture = ROOT / "tests" / "fixtures" / "native" / "chatbot_arena" / "clean_battle.json"
    sql = VerdictStore().load_file(fixture).frame
    python, _ = from_battles(pd.DataFrame.from_records(json.loads(fixture.read_text())), file="f")
    for column in ("instruction_id", "model_a", "model_b", "judge", "category"):
        assert sql[column].tolist() == python[column].tolist()
    assert sql["verdict"].tolist() == [int(v) for v in python["verdict"]]
    assert sql["length_a"].tolist() == python["length_a"].tolist()


def test_names_are_trimmed_and_blank_lines_are_no_rows():
    data = f"{HEADER},judge\n 1 ,\u00a0a ,b\t,A>B, j \n\n2,b,a,zzz,j\n".encode()
    with pytest.raises(VerdictFormatError) as err:
        read_verdicts(data, name="t.csv")
    assert err.value.rows == (2,)  # the blank line is not counted, as in a spreadsheet
    table = read_verdicts(data.replace(b"zzz", b"-1"), name="t.csv")
    frame = table.frame
    assert frame["model_a"].tolist() == ["a", "b"] and frame["judge"].tolist() == ["j", "j"]
    assert frame["instruction_id"].tolist() == ["1", "2"] and frame["row"].tolist() == [1, 2]


def _rows_csv(tmp_path, rows: int):
    path = tmp_path / "many.csv"
    lines = [HEADER] + [f"i{k},m{k % 9},n{k % 7},{k % 5 - 2}" for k in range(rows)]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_load_over_its_time_budget_ends_in_words(tmp_path):
    """Issue 30: a load held a session for 173 s before it failed. A watchdog stops DuckDB once
    the load's time budget is spent (here at once), in words, and the previous data stays."""
    from evalcore.errors import ResourceLimitError

    store = VerdictStore()
    store.load(read_verdicts(f"{HEADER}\nq,x,y,1\n".encode(), name="ok.csv"))
    with pytest.raises(ResourceLimitError) as err:
        store.load_file(_rows_csv(tmp_path, 20_000), limits=LoadLimits(max_seconds=0.001))
    text = str(err.value)
    assert "many.csv" in text and "VERDICTLAB_LOAD_SECONDS" in text and "Parquet" in text
    assert store.models() == ("x", "y")
    assert store.load_file(_rows_csv(tmp_path, 20_000)).report.rows == 20_000  # then it loads


def test_a_load_over_the_sessions_database_memory_ends_in_words(tmp_path):
    from evalcore.errors import ResourceLimitError

    store = VerdictStore()
    store.con.execute("SET memory_limit = '8MB'")
    store.con.execute("SET temp_directory = ''")  # no spilling: the limit is met
    with pytest.raises(ResourceLimitError, match="more memory than one session's database"):
        store.load_file(_rows_csv(tmp_path, 300_000))


def test_the_row_limit_is_checked_before_the_load(tmp_path, monkeypatch):
    """Rows are counted cheaply before any is stored: while a gzip stream is decompressed, from
    a Parquet footer, and by a LIMIT probe for a plain file large enough to exceed the limit.
    The default limit follows the memory budget."""
    from evalcore import limits as limits_module

    monkeypatch.setenv("VERDICTLAB_MEMORY_BUDGET_MB", "100")
    assert LoadLimits.from_env().max_rows == 100 * 2**20 // limits_module.ROW_BYTES
    monkeypatch.setenv("VERDICTLAB_MAX_ROWS", "2000")
    assert LoadLimits.from_env().max_rows == 2000
    monkeypatch.delenv("VERDICTLAB_MAX_ROWS")
    monkeypatch.delenv("VERDICTLAB_MEMORY_BUDGET_MB")
    small = LoadLimits(max_rows=1000)
    gz = tmp_path / "big.csv.gz"
    gz.write_bytes(_bomb(1_000_000))
    with pytest.raises(VerdictFormatError, match="over the limit of 1,000 rows") as err:
        VerdictStore().load_file(gz, limits=small)
    assert "reading stopped at line" in str(err.value) and "Split the file" in str(err.value)
    plain = _rows_csv(tmp_path, 5000)
    with pytest.raises(VerdictFormatError, match="more than 1,000 rows"):
        VerdictStore().load_file(plain, limits=small)
    parquet = tmp_path / "t.parquet"
    read_verdicts(plain).frame.to_parquet(parquet)
    with pytest.raises(VerdictFormatError, match="5,000 rows, over the limit of 1,000"):
        VerdictStore().load_file(parquet, limits=small)
    assert VerdictStore().load_file(plain, limits=LoadLimits(max_rows=5000)).report.rows == 5000


def test_a_files_bytes_bound_its_rows_and_the_limit_still_holds(tmp_path, monkeypatch):
    """A large text file whose bytes bound its rows below the limit is not parsed an extra time
    to count them (:func:`evalcore.ingest.bounds.row_bound`); the bound is never below the true
    count (line ends inside quotes, nested objects and ``{`` inside strings only
    raise it), so a file over the limit is still refused before it is loaded."""
    from evalcore.ingest import bounds
    from evalcore.ingest.files import prepare_source

    pad = "x" * 200  # rows far longer than the 8 bytes the size check assumes: a probe was due
    rows = 40
    record = {"model_a": "m1", "model_b": "m2", "verdict": 1}
    cases = {
        "quoted.csv": HEADER + ",prompt\n" + "".join(f'i{k},m1,m2,1,"{pad}\n{pad}"\n' for k in range(rows)),
        "nested.json": json.dumps(
            [{"instruction_id": f"{{i{k}", **record, "x": {"y": pad}} for k in range(rows)]
        ),
        "lines.jsonl": "".join(
            json.dumps({"instruction_id": f"i{k}{pad}", **record}) + "\n" for k in range(rows)
        ),
    }
    for name, text in cases.items():
        path = tmp_path / name
        path.write_text(text)
        src = prepare_source(path, file=name, workdir=tmp_path, limits=LoadLimits(max_rows=1000))
        assert rows <= bounds.row_bound(src) <= 3 * rows + 1, name
        assert VerdictStore().load_file(path, limits=LoadLimits(max_rows=rows)).report.rows == rows, name
        with pytest.raises(VerdictFormatError, match=f"more than {rows - 1:,} rows"):
            VerdictStore().load_file(path, limits=LoadLimits(max_rows=rows - 1))
    # a bound under the limit skips DuckDB's counting pass (its LIMIT probe) altogether
    seen: list[str] = []
    monkeypatch.setattr(bounds, "row_bound", lambda src, **kw: seen.append(src.file) or 1)
    bounds.check_rows(None, src, "unused", limits=LoadLimits(max_rows=rows))  # no cursor: no probe
    assert seen == ["lines.jsonl"]
