"""`rank --json` stays light: the whole process never imports pandas (about 45 MB and 0.3 s of a
paper-sized run's 1.7 s and 257 MB), the Markdown parser (only text on a page needs it) or, on a
table under a million rows, pyarrow (40 MB of libraries), so a lazy import turned eager again
fails here."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT


def test_rank_json_never_imports_pandas(tmp_path, small_sim):
    path = tmp_path / "verdicts.csv"
    small_sim.verdicts.to_csv(path, index=False)
    code = (
        "import runpy, sys\n"
        f"sys.argv = ['evalcore', 'rank', {str(path)!r}, '--bootstrap', '20', '--json']\n"
        "try:\n"
        "    runpy.run_module('evalcore', run_name='__main__')\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = [m for m in ('pandas', 'markdown_it', 'pyarrow') if m in sys.modules]\n"
        "print('HEAVY ' + ' '.join(heavy) if heavy else 'NO-PANDAS', file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False)
    assert '"ratings"' in done.stdout or '"rating"' in done.stdout, done.stdout[-500:] + done.stderr[-2000:]
    assert done.stderr.strip().endswith("NO-PANDAS"), done.stderr[-2000:]
