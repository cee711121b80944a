"""A folder or glob of Parquet verdict files (hive partitions read as columns) is counted out of
core and loads as one table, through ``evalcore.load``, the CLI and the server's data folder."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import evalcore
from evalcore.cli import main
from evalcore.errors import UsageError
from evalcore.ingest.datafolder import list_data_files, resolve_data_file
from evalcore.schema import VerdictFormatError
from evalcore.store.store import VerdictStore
from tests.counts.shapes import shapes

RAW = shapes()["all pairs, both orders"]


def assert_same(ds: evalcore.Dataset, ref: evalcore.Dataset) -> None:
    assert ds.judges == ref.judges and ds.models == ref.models and ds.categories == ref.categories
    for judge in ref.judges:
        got, want = ds.counts(judge=judge), ref.counts(judge=judge)
        assert got.instructions == want.instructions
        for field in ("inst", "a", "b", "n"):
            np.testing.assert_array_equal(getattr(got, field), getattr(want, field))


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    path = tmp_path_factory.mktemp("one") / "all.parquet"
    RAW.to_parquet(path, index=False)
    return evalcore.load(path)


def _partitioned(root, by: str):
    """``RAW`` written as hive partitions of column ``by`` (the column lives in the folder names),
    two files per partition."""
    for value, part in RAW.groupby(by):
        folder = root / f"{by}={value}"
        folder.mkdir(parents=True)
        half = len(part) // 2
        part.iloc[:half].drop(columns=[by]).to_parquet(folder / "part-0.parquet", index=False)
        part.iloc[half:].drop(columns=[by]).to_parquet(folder / "part-1.parquet", index=False)
    return root


@pytest.mark.parametrize("by", ["judge", "category"])
def test_hive_partitions_are_columns(tmp_path, reference, by):
    ds = evalcore.load(_partitioned(tmp_path / "logs", by))
    assert ds.store.format.startswith("counts table")
    assert_same(ds, reference)


def test_partitions_by_run_are_pooled(tmp_path, reference):
    root = tmp_path / "logs"
    for run, part in enumerate(np.array_split(np.arange(len(RAW)), 3)):
        (root / f"run={run}").mkdir(parents=True)
        RAW.iloc[part].to_parquet(root / f"run={run}" / "calls.parquet", index=False)
    assert_same(evalcore.load(root), reference)


def test_a_glob_of_files(tmp_path, reference):
    for k, part in enumerate(np.array_split(np.arange(len(RAW)), 4)):
        RAW.iloc[part].to_parquet(tmp_path / f"calls-{k}.parquet", index=False)
    (tmp_path / "notes.txt").write_text("not a table")
    assert_same(evalcore.load(str(tmp_path / "calls-*.parquet")), reference)


def test_a_folder_without_parquet_is_refused_in_words(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(VerdictFormatError) as err:
        evalcore.load(tmp_path / "empty")
    assert "no readable Parquet" in str(err.value) and str(tmp_path) not in str(err.value)


def test_files_missing_a_required_column_are_refused(tmp_path):
    RAW.drop(columns=["verdict"]).to_parquet(tmp_path / "a.parquet", index=False)
    with pytest.raises(VerdictFormatError, match="required column.*verdict"):
        evalcore.load(tmp_path)


def test_cli_reads_a_folder(tmp_path, capsys):
    root = _partitioned(tmp_path / "logs", "judge")
    assert main(["summary", str(root), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["rows"] == len(RAW) and out["format"].startswith("counts table")


def test_data_folder_lists_a_partitioned_folder_once_and_loads_it(tmp_path, reference):
    root = tmp_path / "data"
    _partitioned(root / "logs", "judge")
    RAW.to_parquet(root / "single.parquet", index=False)
    assert list_data_files(root) == ["single.parquet", "logs/"]
    store = VerdictStore()
    table = store.load_file(resolve_data_file("logs/", root), name="logs/")
    assert table.file == "logs/"
    from evalcore.dataset import Dataset

    assert_same(Dataset(store), reference)


def test_data_folder_refuses_a_partitioned_folder_linking_out(tmp_path):
    root = tmp_path / "data"
    _partitioned(root / "logs", "judge")
    outside = tmp_path / "secret"
    outside.mkdir()
    RAW.to_parquet(outside / "x.parquet", index=False)
    os.symlink(outside, root / "logs" / "judge=zz")
    assert list_data_files(root) == []
    with pytest.raises(UsageError) as err:
        resolve_data_file("logs/", root)
    assert str(tmp_path) not in str(err.value)


def test_commands_that_list_single_calls_say_a_counts_table_has_none(tmp_path, capsys):
    path = tmp_path / "counts.csv"
    path.write_text(
        "instruction_id,model_a,model_b,verdict,n_calls\nq1,x,y,1,3\nq1,y,x,-1,2\nq2,x,z,1,1\nq2,y,z,0,2\n"
    )
    assert main(["verdicts", str(path)]) == 2
    assert "counts table" in capsys.readouterr().err
    assert main(["fragility", str(path)]) == 0
    assert "counted groups" in capsys.readouterr().err
