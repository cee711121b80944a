"""The server's data folder: files above the upload limit, picked by name, never by path.

The operator sets ``VERDICTLAB_DATA_DIR`` to a folder; the app lists the verdict files inside it
and loads one by its name relative to that folder. A name that leaves the folder (``../``, an
absolute path, a symbolic link pointing outside) is refused, and no message ever quotes a server
path: only the names the folder listing already shows.
"""

from __future__ import annotations

import os
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


def data_dir() -> Path | None:
    """The configured data folder, or None when the operator has not set one (or it is missing)."""
    value = os.environ.get(ENV, "").strip()
    if not value:
        return None
    root = Path(value).expanduser()
    return root.resolve() if root.is_dir() else None


def _inside(root: Path, path: Path) -> bool:
    try:
        path.relative_to(root)
    except ValueError:
        return False
    return True


def list_data_files(root: Path | None = None) -> list[str]:
    """Names (relative to the folder, ``/``-separated) of the verdict files in the data folder,
    sorted; files whose real location is outside the folder (symbolic links out) are left out."""
    root = root.resolve() if root is not None else data_dir()
    if root is None:
        return []
    names = []
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.startswith(".") or not name.lower().endswith(SUFFIXES):
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
    if not _inside(root, candidate) or not candidate.is_file():
        raise refused
    if not text.lower().endswith(SUFFIXES):
        raise refused
    return candidate
