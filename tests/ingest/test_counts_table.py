"""Counting a folder of Parquet files out of core: DuckDB's out-of-memory retry on one thread,
and the words when even that fails."""

from __future__ import annotations

import duckdb
import pandas as pd
import pytest

from evalcore.errors import ResourceLimitError
from evalcore.ingest import counts_table

_CONNECT = duckdb.connect  # the real one: the tests replace the module's attribute


class _Flaky:
    """A DuckDB connection whose first ``failures`` COPY statements run out of memory."""

    def __init__(self, failures: int) -> None:
        self.con = _CONNECT(":memory:")
        self.failures = failures
        self.statements: list[str] = []

    def execute(self, sql: str, *args):
        self.statements.append(sql)
        if sql.startswith("COPY") and self.failures > 0:
            self.failures -= 1
            raise duckdb.OutOfMemoryException("Out of Memory Error: could not allocate block")
        return self.con.execute(sql, *args)

    def close(self) -> None:
        self.con.close()


@pytest.fixture
def folder(tmp_path):
    part = tmp_path / "logs"
    part.mkdir()
    frame = pd.DataFrame(
        {
            "instruction_id": ["i1", "i1", "i2", "i3"],
            "model_a": ["a", "a", "a", "b"],
            "model_b": ["b", "b", "c", "c"],
            "verdict": [1, 1, -1, 0],
        }
    )
    frame.to_parquet(part / "part-0.parquet")
    return part


def _count(folder, tmp_path, monkeypatch, failures):
    flaky = _Flaky(failures)
    monkeypatch.setattr(counts_table.duckdb, "connect", lambda *_a, **_k: flaky)
    out = tmp_path / f"counts{failures}.parquet"
    rows = counts_table.aggregate_files(folder, out, name="logs", memory_limit="64MB")
    return rows, pd.read_parquet(out), flaky.statements


def test_out_of_memory_counts_again_on_one_thread_with_the_same_counts(folder, tmp_path, monkeypatch):
    rows0, plain, said0 = _count(folder, tmp_path, monkeypatch, failures=0)
    rows1, retried, said1 = _count(folder, tmp_path, monkeypatch, failures=1)
    assert "SET threads = 1" not in said0 and "SET threads = 1" in said1
    key = ["instruction_id", "model_a", "model_b", "verdict"]
    assert rows0 == rows1 == 3  # (i1, a, b, 1) twice is one row of two calls
    pd.testing.assert_frame_equal(
        plain.sort_values(key).reset_index(drop=True), retried.sort_values(key).reset_index(drop=True)
    )
    assert int(plain["n_calls"].sum()) == 4


def test_out_of_memory_twice_is_a_memory_error_in_words_not_a_column_problem(folder, tmp_path, monkeypatch):
    with pytest.raises(ResourceLimitError) as caught:
        _count(folder, tmp_path, monkeypatch, failures=2)
    words = str(caught.value)
    assert "logs" in words and "64MB" in words and "memory" in words
    assert "column" not in words and str(tmp_path) not in words
