"""The store's text folders: each names its owner's process, and a folder whose process is gone
is removed by the next store that needs one (a process killed outright runs no clean-up; each
such folder held the demo's 150 MB of text)."""

from __future__ import annotations

import os
import subprocess
import sys

import duckdb

from evalcore.store import text


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_only_the_folders_of_processes_that_are_gone_are_removed(tmp_path):
    dead = tmp_path / f"{text.FOLDER_PREFIX}{_dead_pid()}-abc"
    mine = tmp_path / f"{text.FOLDER_PREFIX}{os.getpid()}-def"
    parent = tmp_path / f"{text.FOLDER_PREFIX}{os.getppid()}-ghi"  # a running process
    older = tmp_path / f"{text.FOLDER_PREFIX}12345678"  # an older version's name: no owner
    other = tmp_path / "verdictlab-tests-999999-x"
    for folder in (dead, mine, parent, older, other):
        (folder / "spill").mkdir(parents=True)
        (folder / "text.duckdb").write_bytes(b"x" * 10)
    removed = text.sweep_orphans(str(tmp_path))
    assert removed == [str(dead)]
    assert not dead.exists()
    assert mine.exists() and parent.exists() and older.exists() and other.exists()


def test_a_store_names_its_folder_after_its_process_and_removes_it_when_closed():
    con = duckdb.connect(":memory:")
    area = text.TextArea(con)
    area.ensure()
    assert area.folder is not None
    name = os.path.basename(area.folder)
    assert name.startswith(f"{text.FOLDER_PREFIX}{os.getpid()}-")
    con.close()
    area.close()
    assert not os.path.exists(area.folder)
