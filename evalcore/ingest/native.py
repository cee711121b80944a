"""The native files converted by :mod:`evalcore.importers`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import duckdb

from evalcore.ingest.sources import Source, _ident, _locate_text_problem
from evalcore.ingest.text import build_text
from evalcore.limits import LoadLimits
from evalcore.schema import (
    OPTIONAL_COLUMNS,
    REQUIRED_COLUMNS,
    VerdictFormatError,
)

if TYPE_CHECKING:
    import pandas as pd


def convert_native(
    cur: duckdb.DuckDBPyConnection, src: Source, names: list[str], *, origin: str | None, limits: LoadLimits
) -> str:
    """The native files converted by :mod:`evalcore.importers` in Python (small by nature)."""
    import pandas as pd

    from evalcore import importers
    from evalcore.io import read_raw

    probe = pd.DataFrame(columns=[str(n) for n in names])
    if importers.detect_native(probe) is None:
        wrong = importers.wrong_tool_file(probe)
        if wrong is not None:
            raise VerdictFormatError(src.file, wrong[0], hint=wrong[1])
        if src.kind in ("csv", "tsv"):
            located = _locate_text_problem(src)
            if located is not None:
                raise located
        if src.kind in ("csv", "tsv", "parquet") or names:
            missing = [c for c in REQUIRED_COLUMNS if c not in {n.strip().lower() for n in names}]
            raise VerdictFormatError(
                src.file,
                "this is neither a verdict table nor a recognised tool format; "
                "required column(s) missing: " + ", ".join(missing),
                values=tuple(names),
                hint="The header must name "
                + ", ".join(REQUIRED_COLUMNS)
                + " (the values listed are the columns found)",
            )
    size = src.path.stat().st_size
    if size > limits.max_python_bytes:
        raise VerdictFormatError(
            src.file,
            f"this tool's format is converted in memory, and the file is larger than "
            f"the {limits.max_python_bytes / 1024**2:,.0f} MB this server converts that way",
            hint="Split the file, or convert it to a verdict table (Parquet or CSV) and load that",
        )
    raw, container = read_raw(src.path, name=src.file)
    converted = importers.convert_native(raw, file=src.file, path=origin)
    if converted is None:
        raise VerdictFormatError(
            src.file,
            "the file holds no table of records",
            hint="Upload a verdict table or a native file of "
            "Arena-Hard-Auto, AlpacaEval, MT-Bench or Chatbot Arena",
        )
    frame, label = converted
    frame = frame.reset_index(drop=True)
    cur.register("vl_incoming", frame)
    try:
        cur.execute("CREATE OR REPLACE TEMP TABLE vl_frame AS SELECT * FROM vl_incoming")
    finally:
        cur.unregister("vl_incoming")
    build_text(cur, frame_exprs(frame), source="vl_frame")
    return label


def frame_exprs(frame: pd.DataFrame) -> dict[str, str]:
    """Contract column → identifier of a converted frame's column."""
    lowered = {str(c).strip().lower(): str(c) for c in frame.columns}
    return {k: _ident(v) for k, v in lowered.items() if k in (*REQUIRED_COLUMNS, *OPTIONAL_COLUMNS)}
