"""`pip install .` works and the two-line notebook example runs from the installed package."""

from __future__ import annotations

import shutil
import subprocess
import venv
from pathlib import Path

import pytest

from tests.conftest import ROOT

EXAMPLE = """
import evalcore
ds = evalcore.load({path!r})
board = ds.leaderboard(judge=ds.judges[0], rounds=50)
assert evalcore.__file__.startswith({site!r}), evalcore.__file__
assert len(board.table) == len(ds.models) and board.interval_method == "bootstrap"
print("ok", evalcore.__version__, len(board.table))
"""


@pytest.mark.slow
def test_pip_install_and_the_two_line_example(tmp_path):
    # The venv sees this interpreter's packages (numpy, duckdb, …): the test checks the
    # packaging and the façade, not the network. The build itself runs isolated as usual.
    # Build from a copy: building in the checkout would leave build/ and *.egg-info behind.
    source = tmp_path / "src"
    skip_top = {".git", ".venv", "build", "tests", "benchmarks", "data", "screenshots", "pages", "ui"}

    def ignore(folder: str, names: list[str]) -> set[str]:
        top = skip_top if Path(folder) == ROOT else set()
        return {n for n in names if n in top or n == "__pycache__" or n.endswith(".egg-info")}

    shutil.copytree(ROOT, source, ignore=ignore)
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(system_site_packages=True, with_pip=True).create(env_dir)
    py = env_dir / "bin" / "python"
    done = subprocess.run(
        [py, "-m", "pip", "install", "-q", "--disable-pip-version-check", str(source)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    site = subprocess.run(
        [py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    # Run from an empty folder so the checkout's evalcore/ cannot shadow the installed one.
    code = EXAMPLE.format(path=str(ROOT / "data" / "demo_all_pairs.parquet"), site=site)
    out = subprocess.run([py, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.startswith("ok ")
    # Only the library is installed: no app, tests or benchmarks packages.
    installed = {p.name for p in Path(site).iterdir()}
    assert "evalcore" in installed
    assert not {"pages", "ui", "tests", "benchmarks", "scripts"} & installed
    script = env_dir / "bin" / "verdictlab"
    assert script.exists()
    usage = subprocess.run([script, "--help"], capture_output=True, text=True, cwd=tmp_path)
    assert usage.returncode == 0 and "rank" in usage.stdout


def test_the_facade_lists_its_names():
    import evalcore

    assert evalcore.__version__
    for name in evalcore.__all__:
        assert getattr(evalcore, name) is not None
    with pytest.raises(AttributeError):
        evalcore.no_such_thing  # noqa: B018


def test_the_facade_loads_and_ranks_in_two_lines():
    import evalcore

    ds = evalcore.load(ROOT / "data" / "demo_all_pairs.parquet")
    board = ds.leaderboard(judge=ds.judges[0], rounds=0)
    assert list(board.table["model"])[0] == board.table.sort_values("rating").iloc[-1]["model"]
    with pytest.raises(evalcore.UsageError, match="several judges"):
        ds.leaderboard(rounds=0)
    with pytest.raises(evalcore.EvalcoreError, match="not in this table"):
        ds.counts(judge="nobody")
