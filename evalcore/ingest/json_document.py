"""A ``.json`` file that is one JSON object rather than a list of records.

Tools and notebooks write tables as one object as often as a list: pandas' ``to_json()`` writes
``{"column": {"0": value, …}}`` (its default, ``orient="columns"``), ``orient="split"`` writes
``{"columns": […], "data": [[…], …]}``, an API export wraps its records (``{"data": […]}``), and a
single call may be pretty-printed over several lines. DuckDB reads a file starting with ``{`` as
JSON Lines, which refuses all of these at line 1. Such a document is read here, turned into its
records in the order the file gives them, and written as JSON Lines for the usual path; anything
else gets a message naming the object's fields.
"""

from __future__ import annotations

import json
from pathlib import Path

from evalcore.schema import VerdictFormatError

#: The largest single JSON document read whole (the same bound DuckDB puts on one JSON object).
MAX_DOCUMENT_BYTES = 256 * 1024**2
_HINT = (
    "Upload a list of records (a JSON array), JSON Lines (one object per line), or an object "
    "with one list of records"
)


def is_document(path: Path) -> bool:
    """Whether a file starting with ``{`` is one JSON document rather than JSON Lines: its first
    line is not a whole JSON object (an object spread over lines), or the file is one line
    holding a table by columns (every field an object, or ``columns`` and ``data``), which no
    flat record is."""
    with open(path, "rb") as handle:
        first = handle.readline(1 << 20)
        rest = handle.read(1 << 16).strip()
    try:
        return is_document_text(first.decode("utf-8-sig"), more=bool(rest))
    except UnicodeDecodeError:
        return True


def is_document_text(first_line: str, *, more: bool = False) -> bool:
    """:func:`is_document` for a file's first line (``more``: other lines follow).

    A file of one line is one document when it holds a table in one of the layouts
    :func:`records` reads (by columns, split, a list of values per column, or records wrapped
    with metadata: what ``json.dump`` writes on one line by default) and is not itself one
    record of a table (a flat call, or a native tool's record such as an Arena-Hard-Auto line,
    whose ``games`` list would otherwise pass for wrapped records)."""
    try:
        obj = json.loads(first_line)
    except json.JSONDecodeError:
        return True
    except RecursionError:  # nested too deeply for any reader: the document path says so
        return True
    if more or not isinstance(obj, dict) or not obj:
        return False
    if _by_columns(obj) or _lists(obj):
        return True
    return _wrapped(obj) and not _is_record(obj)


def _is_record(document: dict) -> bool:
    """Whether one object is itself a record: it has the contract's columns, or it is a native
    tool's record."""
    from evalcore.importers import detect_native
    from evalcore.schema import REQUIRED_COLUMNS

    keys = {str(k).strip().lower() for k in document}
    return set(REQUIRED_COLUMNS) <= keys or detect_native([document]) is not None


def _wrapped(document: dict) -> bool:
    """Records wrapped with metadata: one list of objects, every other field a plain value."""
    values = list(document.values())
    lists = [v for v in values if isinstance(v, list) and v and all(isinstance(r, dict) for r in v)]
    return len(lists) == 1 and all(v is lists[0] or not isinstance(v, (list, dict)) for v in values)


def _lists(document: dict) -> bool:
    """pandas' ``orient="list"``: a list of plain values per column, all of one length (no
    record has every field a list)."""
    values = list(document.values())
    return (
        all(isinstance(v, list) for v in values)
        and len({len(v) for v in values}) == 1
        and not any(isinstance(x, (list, dict)) for v in values for x in v)
    )


def _split(document: dict) -> bool:
    """pandas' ``orient="split"``: the column names and a list of rows."""
    return isinstance(document.get("columns"), list) and isinstance(document.get("data"), list)


def _by_columns(document: dict) -> bool:
    return _split(document) or all(isinstance(v, dict) for v in document.values())


def records(document: dict, *, file: str) -> list[dict]:
    """The records of a table written as one JSON object, in the file's order.

    >>> records({"model_a": {"0": "x", "1": "y"}, "verdict": {"0": 1, "1": -1}}, file="t.json")
    [{'model_a': 'x', 'verdict': 1}, {'model_a': 'y', 'verdict': -1}]
    >>> records({"columns": ["a", "b"], "data": [[1, 2]]}, file="t.json")
    [{'a': 1, 'b': 2}]
    >>> records({"source": "api", "data": [{"a": 1}]}, file="t.json")
    [{'a': 1}]
    """
    if not document:
        raise VerdictFormatError(file, "the file holds an empty JSON object", hint=_HINT)
    values = list(document.values())
    if _split(document):
        columns = [str(c) for c in document["columns"]]
        rows = document["data"]
        if all(isinstance(r, list) and len(r) == len(columns) for r in rows):
            return [dict(zip(columns, r, strict=True)) for r in rows]
    lists_of_records = [
        k for k, v in document.items() if isinstance(v, list) and v and isinstance(v[0], dict)
    ]
    if len(lists_of_records) == 1 and all(
        not isinstance(v, (list, dict)) for k, v in document.items() if k != lists_of_records[0]
    ):
        rows = document[lists_of_records[0]]  # records wrapped with some metadata
        if all(isinstance(r, dict) for r in rows):
            return rows
    if all(isinstance(v, dict) for v in values):  # pandas' default orient="columns"
        index = list(dict.fromkeys(k for v in values for k in v))
        if all(k.lstrip("-").isdigit() for k in index):
            index.sort(key=int)
        return [{str(c): v.get(i) for c, v in document.items()} for i in index]
    if _lists(document):  # pandas' orient="list": a list of values per column
        return [dict(zip(document, row, strict=True)) for row in zip(*values, strict=True)]
    if not any(isinstance(v, (list, dict)) for v in values):
        return [document]  # one call, pretty-printed
    raise VerdictFormatError(
        file,
        "the file holds one JSON object whose fields are not a table (its fields are listed)",
        values=tuple(str(k) for k in list(document)[:12]),
        hint=_HINT,
    )


def to_json_lines(path: Path, out: Path, *, file: str) -> Path:
    """Read the JSON document at ``path`` and write its records to ``out`` as JSON Lines.

    Raises :class:`json.JSONDecodeError` when the text is not one JSON document (the caller then
    reads it as JSON Lines, whose message names the first bad line)."""
    size = path.stat().st_size
    if size > MAX_DOCUMENT_BYTES:
        raise VerdictFormatError(
            file,
            f"the file is one JSON object of {size / 1024**2:,.0f} MB, over the "
            f"{MAX_DOCUMENT_BYTES // 1024**2} MB read whole",
            hint="Save the table as JSON Lines or Parquet, which are read in pieces",
        )
    try:
        document = json.loads(path.read_bytes().decode("utf-8-sig"))
    except RecursionError:
        raise VerdictFormatError(
            file,
            "the JSON is nested too deeply to be a table",
            hint="Upload a list of records or JSON Lines",
        ) from None
    except UnicodeDecodeError as exc:
        raise VerdictFormatError(
            file, f"the file is not UTF-8 text (byte {exc.start:,})", hint="Save it as UTF-8"
        ) from exc
    if not isinstance(document, dict):
        raise VerdictFormatError(file, "the file holds no table of records", hint=_HINT)
    rows = records(document, file=file)
    if not rows:
        raise VerdictFormatError(file, "the file's JSON object holds no records", hint=_HINT)
    with open(out, "w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    return out
