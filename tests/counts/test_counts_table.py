"""The counts table: the DuckDB rendering of the one definition, run on the raw files, gives what
the store computes (counted independently in pandas), on every shape; a counts table loads back
to the same counts; bad counts are refused in words."""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd
import pytest

from evalcore._sql import sql_literal
from evalcore.ingest.counts_table import COUNT, KEYS, counts_sql
from evalcore.schema import VerdictFormatError
from evalcore.store.store import VerdictStore, counts_from_aggregate
from tests.counts.shapes import feature_columns, normalised, optional_columns, shapes, write

SHAPES = shapes()


@pytest.fixture(scope="module", params=sorted(SHAPES))
def shape(request, tmp_path_factory):
    """(name, raw frame, its Parquet file, the store holding it)."""
    frame = SHAPES[request.param]
    path = tmp_path_factory.mktemp("raw") / "verdicts.parquet"
    write(frame, path)
    store = VerdictStore()
    store.load_file(path, text=False)
    yield request.param, frame, path, store
    store.close()


def pandas_counts(store: VerdictStore) -> pd.DataFrame:
    """The counts table computed without SQL: the stored calls grouped in pandas."""
    calls = store.frame()
    feats = [c for c in calls.columns if c.startswith("feat_")]
    summed = ["length_a", "length_b", *feats]
    keys = calls[list(KEYS)].astype("string").fillna("∅")  # missing values are a group of their own
    grouped = calls.groupby([keys[k] for k in KEYS], sort=False, dropna=False)
    out = grouped.size().rename(COUNT).reset_index()
    for c in summed:
        full = grouped[c].agg(lambda s: s.sum() if s.notna().all() else np.nan)
        out[f"{c}_sum"] = full.to_numpy()
    for k in KEYS:
        out[k] = out[k].replace("∅", pd.NA)
    return out


def test_store_counts_table_matches_pandas(shape):
    _, _, _, store = shape
    pd.testing.assert_frame_equal(normalised(store.counts_table()), normalised(pandas_counts(store)))


def test_duckdb_sql_on_the_raw_file_matches_the_store(shape):
    name, frame, path, store = shape
    sql = counts_sql(
        f"read_parquet({sql_literal(str(path))})",
        dialect="duckdb",
        columns=optional_columns(frame),
        features=feature_columns(frame),
    )
    got = duckdb.connect().execute(sql).df()
    pd.testing.assert_frame_equal(normalised(got), normalised(pandas_counts(store)), obj=name)


def assert_same_counts(got, want) -> None:
    assert got.models == want.models and got.instructions == want.instructions
    for field in ("inst", "a", "b", "n"):
        np.testing.assert_array_equal(getattr(got, field), getattr(want, field), err_msg=field)


def test_counts_table_gives_the_store_counts(shape):
    """The analyses' input (VerdictCounts) built from the counts table equals the store's own."""
    _, _, _, store = shape
    table = store.counts_table()
    for judge in store.judges():
        rows = table[table["judge"] == judge].rename(columns={COUNT: "n"})
        assert_same_counts(counts_from_aggregate(rows, judge=judge), store.counts(judge=judge))


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_counts_table_loads_back(shape, tmp_path, suffix):
    _, _, _, store = shape
    path = tmp_path / f"counts{suffix}"
    table = store.counts_table()
    table.to_csv(path, index=False) if suffix == ".csv" else table.to_parquet(path, index=False)
    again = VerdictStore()
    loaded = again.load_file(path)
    assert loaded.format.startswith("counts table")
    assert loaded.report.rows == int(table[COUNT].sum())
    assert loaded.report.duplicate_rows == ()
    for judge in store.judges():
        assert_same_counts(again.counts(judge=judge), store.counts(judge=judge))
    pd.testing.assert_frame_equal(normalised(again.counts_table()), normalised(table))


def _counts_file(tmp_path, n_calls, verdict=1):
    path = tmp_path / "c.csv"
    rows = "".join(f"q{k},x,y,{verdict},{n}\n" for k, n in enumerate(n_calls))
    path.write_text("instruction_id,model_a,model_b,verdict,n_calls\n" + rows)
    return path


@pytest.mark.parametrize("bad", ["0", "1.5", "two", "-3", "", "2147483648"])
def test_bad_call_counts_are_refused_naming_rows(tmp_path, bad):
    path = _counts_file(tmp_path, ["2", bad, "1"])
    with pytest.raises(VerdictFormatError) as err:
        VerdictStore().load_file(path)
    message = str(err.value)
    assert "n_calls" in message and "row 2" in message and "\n" not in message


def test_off_scale_level_in_a_counts_table_is_refused(tmp_path):
    path = _counts_file(tmp_path, ["2"], verdict=99)
    with pytest.raises(VerdictFormatError, match="outside the verdict scale"):
        VerdictStore().load_file(path)


def _scaled_counts(tmp_path, scale: int):
    """A counts table of 4 models in every ordered pair on 20 instructions (each row 1 to 4
    calls, drawn once), every count multiplied by ``scale``."""
    rng = np.random.default_rng(7)
    models = ["m0", "m1", "m2", "m3"]
    rows = []
    for k in range(20):
        for a in models:
            for b in models:
                if a != b:
                    for verdict in rng.choice([-2, -1, 0, 1, 2], size=2, replace=False):
                        rows.append((f"q{k:02d}", a, b, int(verdict), int(rng.integers(1, 5)) * scale))
    frame = pd.DataFrame(rows, columns=["instruction_id", "model_a", "model_b", "verdict", COUNT])
    path = tmp_path / f"counts-{scale}.parquet"
    frame.to_parquet(path, index=False)
    return frame, path


def test_calls_of_a_counts_table_are_not_bounded_by_the_row_limit(tmp_path):
    """The row limit bounds the stored rows, not the calls: a counts table of 480 rows standing
    for 12 billion calls loads under a limit of 1,000 rows (each row stored once with its count,
    none repeated), its counts are exactly the file's, and it ranks: the Bradley-Terry ratings of
    counts all multiplied by ten million are the ratings of the counts themselves (a likelihood
    raised to a power has the same maximum), fitted from a table small enough to store call by call."""
    from evalcore.dataset import Dataset
    from evalcore.limits import LoadLimits

    small, small_path = _scaled_counts(tmp_path, 1)
    big, big_path = _scaled_counts(tmp_path, 10_000_000)
    total = int(big[COUNT].sum())
    assert total > 10_000_000_000 and len(big) < 1000
    store = VerdictStore()
    loaded = store.load_file(big_path, limits=LoadLimits(max_rows=1000))
    assert loaded.report.rows == total
    assert store.con.execute("SELECT count(*) FROM verdicts").fetchone()[0] == len(big)  # rows, not calls
    assert store.summary().rows == total
    counts = store.counts()
    want = big.groupby(["instruction_id", "model_a", "model_b", "verdict"])[COUNT].sum()
    got = {
        (counts.instructions[i], counts.models[a], counts.models[b], level): int(n[level + 2])
        for i, a, b, n in zip(counts.inst, counts.a, counts.b, counts.n, strict=True)
        for level in range(-2, 3)
        if n[level + 2]
    }
    assert got == {k: int(v) for k, v in want.items()}
    # the small table expanded into single calls, as a verdict table: the independent fit
    calls = small.loc[small.index.repeat(small[COUNT])].drop(columns=COUNT)
    raw = VerdictStore.from_frame(calls.reset_index(drop=True))
    want_ratings = Dataset(raw).leaderboard(rounds=20).ratings
    got_ratings = Dataset(store).leaderboard(rounds=20).ratings
    np.testing.assert_allclose(np.asarray(got_ratings), np.asarray(want_ratings), rtol=1e-6, atol=1e-6)


def test_a_saved_counts_table_keeps_its_calls(tmp_path):
    """Saved in the workspace and read back, a counts table's rows keep the calls each stands
    for: the same counts and the same number of calls (not one call a row)."""
    from evalcore.store.workspace import Workspace

    big, path = _scaled_counts(tmp_path, 1000)
    store = VerdictStore()
    store.load_file(path)
    ws = Workspace(tmp_path / "ws" / "verdictlab.duckdb")
    saved = ws.save("counted", store.frame(), file="counts.parquet", format=store.format)
    assert saved.rows == int(big[COUNT].sum())
    again = VerdictStore.from_frame(ws.load("counted").table.frame)
    assert_same_counts(again.counts(), store.counts())
    assert again.summary().rows == int(big[COUNT].sum())
