"""Hostile files end in words under a 2 GB memory limit (issue 30, item 4).

Each file is given to ``python -m evalcore summary FILE`` in a child process whose resident
memory is capped at 2 GB, as container platforms cap a server: a cgroup (v1 ``memory`` or v2)
when this machine lets the test make one, else ``systemd-run --scope -p MemoryMax=2G``, else
``prlimit --as`` (address space, a cruder bound: 6 GB, since DuckDB and Arrow reserve address
space they never touch). The command must stop with exit 2 and one line naming the file, the
limit met and what to do; never a traceback, never killed by the limit. The figures (seconds,
peak memory, the limit used) are printed with ``-s``.

Before issue 30 the 150-million-row gzip file was decompressed (1.8 GB, under the byte cap) and
loaded until the memory limit killed the command (6 GB after 120 s).
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.slow

LIMIT = 2 * 1024**3
HEADER = b"instruction_id,model_a,model_b,verdict\n"


def _cgroup_v1() -> Path | None:
    base = Path("/sys/fs/cgroup/memory")
    if not (base / "memory.limit_in_bytes").exists() or not os.access(base, os.W_OK):
        return None
    return base


def _cgroup_v2() -> Path | None:
    base = Path("/sys/fs/cgroup")
    try:
        if "memory" not in (base / "cgroup.subtree_control").read_text() or not os.access(base, os.W_OK):
            return None
    except OSError:
        return None
    return base


def run_limited(args: list[str]) -> tuple[subprocess.CompletedProcess, float, float | None, str]:
    """Run ``args`` under a 2 GB memory limit: (result, seconds, peak MB or None, how limited)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    started = time.perf_counter()
    v1, v2 = _cgroup_v1(), _cgroup_v2()
    if v1 is not None or v2 is not None:
        group = (v1 or v2) / f"verdictlab-test-{uuid.uuid4().hex[:8]}"  # type: ignore[operator]
        group.mkdir()
        try:
            if v1 is not None:
                (group / "memory.limit_in_bytes").write_text(str(LIMIT))
                how, peak_file = "a cgroup (v1) of 2 GB", "memory.max_usage_in_bytes"
            else:
                (group / "memory.max").write_text(str(LIMIT))
                how, peak_file = "a cgroup (v2) of 2 GB", "memory.peak"
            script = f'echo $$ > {group / "cgroup.procs"} && exec "$@"'
            done = subprocess.run(
                ["sh", "-c", script, "sh", *args], capture_output=True, env=env, cwd=ROOT, timeout=600
            )
            try:
                peak = int((group / peak_file).read_text()) / 2**20
            except OSError:
                peak = None
        finally:
            group.rmdir()
        return done, time.perf_counter() - started, peak, how
    if (
        shutil.which("systemd-run")
        and subprocess.run(
            ["systemd-run", "--scope", "--quiet", "-p", "MemoryMax=2G", "true"], capture_output=True
        ).returncode
        == 0
    ):
        cmd, how = (
            ["systemd-run", "--scope", "--quiet", "-p", "MemoryMax=2G", *args],
            "systemd-run MemoryMax=2G",
        )
    elif shutil.which("prlimit"):
        cmd, how = ["prlimit", f"--as={3 * LIMIT}", *args], "prlimit --as of 6 GB (no cgroup here)"
    else:
        pytest.skip("no way to limit a child's memory here (no cgroup, systemd-run or prlimit)")
    done = subprocess.run(cmd, capture_output=True, env=env, cwd=ROOT, timeout=600)
    return done, time.perf_counter() - started, None, how


def gzip_of_repeated_rows(path: Path, rows: int) -> Path:
    """A tiny gzip file holding ``rows`` valid verdict rows: one compressed block of 200,000
    rows repeated as gzip members (a reader sees one stream), built in a second."""
    block = b"".join(b"p%d,model-a,model-b,%d\n" % (k % 4, k % 5 - 2) for k in range(200_000))
    member = gzip.compress(block, 9)
    with open(path, "wb") as out:
        out.write(gzip.compress(HEADER))
        for _ in range(rows // 200_000):
            out.write(member)
    return path


def refused_csv(path: Path, megabytes: int) -> Path:
    """A CSV of about ``megabytes`` whose last row's verdict is not a verdict."""
    block = b"".join(
        b"prompt-%d,model-%d,model-%d,%d\n" % (k, k % 7, (k + 1) % 7, k % 5 - 2) for k in range(100_000)
    )
    with open(path, "wb") as out:
        out.write(HEADER)
        for _ in range(max(1, megabytes * 10**6 // len(block))):
            out.write(block)
        out.write(b"last,model-1,model-2,maybe\n")
    return path


def repetitive_json(path: Path, entries: int) -> Path:
    """A table by columns as one JSON object (pandas' ``to_json()`` layout) of ``entries`` rows of
    one-letter values, gzipped: read whole, its Python objects take ~60 bytes per byte."""
    with gzip.open(path, "wb", compresslevel=6) as out:
        out.write(b"{")
        for c, column in enumerate(("instruction_id", "model_a", "model_b", "verdict")):
            out.write((("," if c else "") + json.dumps(column) + ":{").encode())
            value = b'"1"' if column == "verdict" else b'"a"'
            out.write(b",".join(b'"%d":%s' % (k, value) for k in range(entries)))
            out.write(b"}")
        out.write(b"}")
    return path


def parquet_rows(path: Path, rows: int) -> Path:
    """A small Parquet file of ``rows`` valid rows (constant columns compress to nothing)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    group = 1_000_000
    table = pa.table(
        {
            "instruction_id": pa.array(["p"] * group),
            "model_a": pa.array(["a"] * group),
            "model_b": pa.array(["b"] * group),
            "verdict": pa.array([1] * group, type=pa.int8()),
        }
    )
    with pq.ParquetWriter(path, table.schema) as writer:
        for _ in range(rows // group):
            writer.write_table(table)
    return path


CASES = {
    # the file: 150 million valid rows in a few MB of gzip, under the decompressed-byte cap
    "gzip150m.csv.gz": (lambda p: gzip_of_repeated_rows(p, 150_000_000), "more than"),
    # 20 million rows: under the old fixed 50-million cap, over what 2 GB of memory holds
    "gzip20m.csv.gz": (lambda p: gzip_of_repeated_rows(p, 20_000_000), "more than"),
    "rows12m.parquet": (lambda p: parquet_rows(p, 12_000_000), "rows"),
    "refused50mb.csv": (lambda p: refused_csv(p, 50), "maybe"),
    "columns.json.gz": (lambda p: repetitive_json(p, 3_000_000), "one JSON object"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_hostile_file_ends_in_words_under_2_gb(tmp_path: Path, name: str) -> None:
    make, words = CASES[name]
    path = make(tmp_path / name)
    done, seconds, peak, how = run_limited([sys.executable, "-m", "evalcore", "summary", str(path)])
    out = done.stderr.decode(errors="replace") + done.stdout.decode(errors="replace")
    size = path.stat().st_size / 2**20
    print(
        f"\n{name} ({size:,.1f} MB): exit {done.returncode} after {seconds:.1f} s, peak "
        + (f"{peak:,.0f} MB" if peak is not None else "not measured")
        + f", under {how}: {out.strip()[:300]}"
    )
    assert done.returncode == 2, out  # killed by the limit: -9 (or 137 through a shell)
    assert "Traceback" not in out and out.count("\n") <= 1
    assert name in out and words in out
    assert str(tmp_path) not in out  # the file's name, never the server's path
