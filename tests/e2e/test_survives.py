"""No single upload takes the server down (issue 11, items 1 and 6): while one session uploads a
decompression bomb or a 2,000-model file, a second session keeps working and the server answers.

The decompression bomb is only uploaded once the reader caps decompression (a server without the
cap would be killed by the kernel, and every other test's session with it): the cap is detected
in a separate, memory-limited process first, and the bomb test is an expected failure, not run,
while it is missing.
"""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
import textwrap
import time
import urllib.request
import zlib
from pathlib import Path

import pandas as pd
import pytest

pytest.importorskip("playwright.sync_api")
from playwright.sync_api import expect  # noqa: E402

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 180_000
MODELS = 2000


def _bomb(path: Path, expanded_bytes: int) -> Path:
    """A valid gzip file that expands to ``expanded_bytes`` of one repeated CSV row."""
    row = b"i1,model-a,model-b,1\n"
    chunk = row * (2**20 // len(row))
    squeeze = zlib.compressobj(9, zlib.DEFLATED, 31)  # 31: gzip container
    with path.open("wb") as out:
        out.write(squeeze.compress(b"instruction_id,model_a,model_b,verdict\n"))
        written = 0
        while written < expanded_bytes:
            out.write(squeeze.compress(chunk))
            written += len(chunk)
        out.write(squeeze.flush())
    return path


def _cap_landed(tmp: Path) -> bool:
    """True when the reader refuses a 300 MB expansion in words (tested in a child process whose
    address space is limited, so a reader without the cap fails there, not here)."""
    bomb = _bomb(tmp / "probe.csv.gz", 300 * 2**20)
    code = textwrap.dedent(f"""
        import resource, sys
        resource.setrlimit(resource.RLIMIT_AS, (3 * 2**30, 3 * 2**30))
        from evalcore.store.store import read_verdicts
        try:
            read_verdicts({str(bomb)!r})
        except Exception as exc:
            words = str(exc).lower()
            sys.exit(0 if any(w in words for w in ("decompress", "expand", "uncompressed")) else 1)
        except MemoryError:
            sys.exit(1)
        sys.exit(1)
    """)
    try:
        env = {**os.environ, "VERDICTLAB_MAX_BYTES": "100M"}  # the probe expands to 300 MB
        result = subprocess.run(
            [sys.executable, "-c", code], cwd=ROOT, timeout=120, capture_output=True, env=env
        )
    except subprocess.TimeoutExpired:
        return False
    return result.returncode == 0


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=5) as response:
            return response.read().strip() == b"ok"
    except OSError:
        return False


def _many_models(path: Path) -> Path:
    """2,000 rows, 2,000 models: a ring in which each model meets its two neighbours once."""
    rows = {
        "instruction_id": [f"q{i}" for i in range(MODELS)],
        "model_a": [f"ring-{i:04d}" for i in range(MODELS)],
        "model_b": [f"ring-{(i + 1) % MODELS:04d}" for i in range(MODELS)],
        "verdict": [(i % 5) - 2 for i in range(MODELS)],
    }
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def _keeps_working(page, st_app, rounds: int = 2) -> list[float]:
    """The second session switches pages and reruns; seconds per step."""
    times = []
    for _ in range(rounds):
        for title in ("Leaderboard", "Data"):
            started = time.perf_counter()
            st_app.navigate(page, title, timeout=TIMEOUT)
            st_app.assert_no_exception(page)
            times.append(time.perf_counter() - started)
    return times


@pytest.fixture
def two_sessions(browser, base_url: str, st_app):
    contexts = [
        browser.new_context(base_url=base_url, viewport={"width": 1400, "height": 1000}) for _ in range(2)
    ]
    pages = [c.new_page() for c in contexts]
    for page in pages:
        st_app.open(page, "/?dataset=demo-anchor", timeout=TIMEOUT)
    yield pages
    for context in contexts:
        context.close()


def test_a_2000_model_upload_leaves_the_other_session_working(
    two_sessions, st_app, app_server, tmp_path: Path
) -> None:
    heavy, other = two_sessions
    st_app.upload(heavy, _many_models(tmp_path / "ring_2000_models.csv"))
    times = _keeps_working(other, st_app)  # while the upload is read and loaded
    expect(heavy.get_by_text("Loaded: ring_2000_models.csv").first).to_be_visible(timeout=TIMEOUT)
    st_app.wait_idle(heavy, TIMEOUT)
    st_app.navigate(heavy, "Leaderboard", timeout=TIMEOUT)
    st_app.assert_no_exception(heavy)  # a refusal in words is fine, a traceback box is not
    times += _keeps_working(other, st_app, rounds=1)
    assert app_server.process.poll() is None and _healthy(app_server.url)
    print(
        f"\nsecond session while a 2,000-model file loads: median step "
        f"{sorted(times)[len(times) // 2]:.1f} s, slowest {max(times):.1f} s"
    )


def test_a_decompression_bomb_leaves_the_server_and_the_other_session_working(
    two_sessions, st_app, app_server, tmp_path: Path
) -> None:
    if not _cap_landed(tmp_path):
        pytest.xfail(
            "the reader does not cap decompression yet (issue 11, item 1): uploading "
            "the bomb would get the test server killed for memory"
        )
    heavy, other = two_sessions
    bomb = _bomb(tmp_path / "bomb.csv.gz", 5 * 2**29)  # ~2.5 GB once expanded, ~2.5 MB on disk
    assert bomb.stat().st_size < 10 * 2**20
    st_app.upload(heavy, bomb)
    times = _keeps_working(other, st_app)
    error = heavy.get_by_test_id("stAlert").filter(has_text="This file was not loaded")
    expect(error).to_be_visible(timeout=TIMEOUT)
    st_app.assert_no_exception(heavy)
    expect(heavy.get_by_text("Loaded: demo_anchor_only.csv.gz").first).to_be_visible()
    assert app_server.process.poll() is None and _healthy(app_server.url)
    print(
        f"\nsecond session while a bomb is refused: median step "
        f"{sorted(times)[len(times) // 2]:.1f} s, slowest {max(times):.1f} s"
    )


def test_bomb_helper_makes_a_small_file_that_expands(tmp_path: Path) -> None:
    """The bomb is what it claims: small on disk, large once expanded (checked by streaming)."""
    bomb = _bomb(tmp_path / "small_bomb.csv.gz", 64 * 2**20)
    assert bomb.stat().st_size < 2**20
    expanded = 0
    with gzip.open(bomb, "rb") as stream:
        while block := stream.read(2**22):
            expanded += len(block)
    assert expanded >= 64 * 2**20
