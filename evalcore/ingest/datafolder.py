"""The server's data folder: files above the upload limit, picked by name, never by path.

The operator sets ``VERDICTLAB_DATA_DIR`` to a folder; the app lists the verdict files inside it
and loads one by its name relative to that folder. A folder of hive-partitioned Parquet files
(sub-folders named like ``run=3`` or ``date=2026-01-01``) is listed once, as ``name/``, and loaded
whole: its files are counted out of core (:func:`evalcore.ingest.counts_table.aggregate_files`). A name that leaves the folder (``../``, an
absolute path, a symbolic link pointing outside) is refused, and no message ever quotes a server
path: only the names the folder listing already shows.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from evalcore.errors import UsageError

ENV = "VERDICTLAB_DATA_DIR"
#: File names the listing shows (what the readers recognise).
SUFFIXES = (
    ".csv",
    ".csv.gz",
    ".tsv",
    ".tsv.gz",
    ".parquet",
    ".pq",
    ".jsonl",
    ".jsonl.gz",
    ".ndjson",
    ".json",
    ".json.gz",
)
MAX_LISTED = 2000
#: A hive partition folder: ``key=value``.
_PARTITION = re.compile(r"^[^=/]+=[^/]*$")


def _partitioned(folder: Path, dirs: list[str]) -> bool:
    """Whether ``folder`` is a hive-partitioned table: a ``key=value`` sub-folder holding Parquet."""
    return any(_PARTITION.match(d) and any((folder / d).rglob("*.parquet")) for d in dirs)


def _stays_inside(root: Path, folder: Path) -> bool:
    """Whether every entry below ``folder`` (links included) really lies inside ``root``."""
    for here, dirs, files in os.walk(folder, followlinks=False):
        for name in (*dirs, *files):
            if not _inside(root, (Path(here) / name).resolve()):
                return False
    return True


def data_dir() -> Path | None:
    """The configured data folder, or None when the operator has not set one (or it is missing)."""
    value = os.environ.get(ENV, "").strip()
    if not value:
        return None
    root = Path(value).expanduser()
    return root.resolve() if root.is_dir() else None


def _text(name: str) -> bool:
    """Whether a name is text: a file name of bytes that are not UTF-8 (an old archive, another
    system's encoding) reaches Python with stand-in characters that no page or link can carry."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _inside(root: Path, path: Path) -> bool:
    try:
        path.relative_to(root)
    except ValueError:
        return False
    return True


def list_data_files(root: Path | None = None) -> list[str]:
    """Names (relative to the folder, ``/``-separated) of the verdict files in the data folder,
    sorted; files whose real location is outside the folder (symbolic links out) are left out.
    A hive-partitioned Parquet folder is one name ending in ``/``. A name that is not text (bytes
    that are not UTF-8) is left out: it could not be shown or picked."""
    root = root.resolve() if root is not None else data_dir()
    if root is None:
        return []
    names = []
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and _text(d))
        here = Path(folder)
        if here != root and _partitioned(here, dirs):
            # one table in many files: listed once, its files not one by one
            if _stays_inside(root, here):
                names.append(here.relative_to(root).as_posix() + "/")
            dirs[:] = []
            continue
        for name in sorted(files):
            if name.startswith(".") or not name.lower().endswith(SUFFIXES) or not _text(name):
                continue
            path = Path(folder) / name
            real = path.resolve()
            if _inside(root, real) and real.is_file():
                names.append(path.relative_to(root).as_posix())
            if len(names) >= MAX_LISTED:
                return names
    return names


def resolve_data_file(name: str, root: Path | None = None) -> Path:
    """The path of data-folder file ``name``; :class:`UsageError` (quoting only ``name``) when
    it is not a listed file of the folder."""
    root = root.resolve() if root is not None else data_dir()
    if root is None:
        raise UsageError("No data folder is configured on this server.")
    text = str(name)
    refused = UsageError(f"{text!r} is not a file of the server's data folder; pick one from the list.")
    if not text or "\x00" in text or text.startswith(("/", "\\")) or Path(text).is_absolute():
        raise refused
    candidate = (root / text).resolve()
    if not _inside(root, candidate):
        raise refused
    if text.endswith("/") and candidate.is_dir() and candidate != root:
        entries = [d.name for d in candidate.iterdir() if d.is_dir()]
        if _partitioned(candidate, entries) and _stays_inside(root, candidate):
            return candidate
        raise refused
    if not candidate.is_file():
        raise refused
    if not text.lower().endswith(SUFFIXES):
        raise refused
    return candidate
