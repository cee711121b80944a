"""Readers: a file (CSV, CSV.gz, Parquet, JSON Lines, or a tool's native output) → the store.

The contract is ``docs/data.md``. :func:`read_verdicts` (and the main path,
:meth:`evalcore.store.store.VerdictStore.load_file`) hand the file to DuckDB's own readers, every cell
as text so that the contract, not a type sniffer, decides what a verdict is (:mod:`evalcore.ingest`
checks it in SQL). This module recognises the container, decompresses gzip as a capped stream and
spills uploads to a scratch file. :func:`read_raw` (pandas; small files only) remains for the
pointwise reader and answer files; no verdict file goes through it (the tools' native files are
converted in SQL or streamed by :mod:`evalcore.ingest.native`).

Why this module is longer than 500 lines: every check that bounds what a file may cost (bytes,
decompressed bytes, rows counted before the load, one-object JSON size) sits beside the reader it
guards, so no path into the store can skip one.
"""

from __future__ import annotations

import gzip
import io
import json
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Union

from evalcore.limits import LoadLimits, format_size
from evalcore.schema import (
    REQUIRED_COLUMNS,
    ValidationReport,
    VerdictFormatError,
    canonical_dtypes,
)

Source = Union[str, Path, bytes]

if TYPE_CHECKING:
    import pandas as pd

    from evalcore.ingest import Source as SourceFile


class LoadedTable:
    """A validated verdict table: where it came from, what loading noticed, and its rows.

    The rows live in a DuckDB store (``store``), never in a pandas frame of the whole table;
    :attr:`frame` fetches them as a frame on request (small tables, tests, saving). A table made
    from a frame (``LoadedTable(frame=..., file=..., format=..., report=...)``) keeps that frame.
    """

    __slots__ = ("_frame", "file", "format", "report", "store")

    def __init__(
        self,
        frame: pd.DataFrame | None = None,
        file: str = "",
        format: str = "",
        report: ValidationReport | None = None,
        *,
        store=None,
    ) -> None:
        self._frame = frame
        self.file = file
        self.format = format
        self.report = report
        self.store = store

    @property
    def frame(self) -> pd.DataFrame:
        """The canonical rows as a frame (fetched from the store when the table lives there)."""
        if self._frame is not None:
            return self._frame
        return canonical_dtypes(self.store.frame())

    @property
    def rows(self) -> int:
        return self.report.rows if self.report is not None else len(self.frame)

    def __repr__(self) -> str:
        return f"LoadedTable({self.file!r}, {self.rows:,} rows, {self.format!r})"


def _suffix(name: str) -> str:
    lower = name.lower()
    for suffix in (
        ".csv.gz",
        ".tsv.gz",
        ".jsonl.gz",
        ".csv",
        ".tsv",
        ".parquet",
        ".pq",
        ".jsonl",
        ".ndjson",
        ".json",
        ".gz",
    ):
        if lower.endswith(suffix):
            return suffix
    return Path(lower).suffix


def _raw_bytes(source: Source) -> bytes:
    if isinstance(source, bytes):
        return source
    return Path(source).read_bytes()


def _decode(data: bytes, *, file: str) -> str:
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:  # a truncated stream raises EOFError
            raise VerdictFormatError(
                file,
                f"the gzip stream is damaged ({exc})",
                hint="Re-compress the file or upload it uncompressed",
            ) from exc
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise VerdictFormatError(
            file,
            f"the file is not UTF-8 text (byte 0x{data[exc.start]:02x} on line {line})",
            hint="Save it as UTF-8 (in a spreadsheet: 'CSV UTF-8'), then upload it again",
        ) from exc


def _read_delimited(text: str, *, sep: str, file: str) -> pd.DataFrame:
    import pandas as pd

    if not text.strip():
        raise VerdictFormatError(
            file,
            "the file is empty",
            hint="Upload a table with a header line and at least one row: " + ", ".join(REQUIRED_COLUMNS),
        )
    try:
        return pd.read_csv(io.StringIO(text), sep=sep, dtype=str, keep_default_na=False, na_filter=False)
    except pd.errors.ParserError as exc:  # the C parser names the line of a ragged row
        raise VerdictFormatError(
            file,
            f"the table could not be parsed ({exc})".replace("\n", " "),
            hint="Check that every line has as many fields as the header and that quotes are balanced",
        ) from exc
    except Exception as exc:
        raise VerdictFormatError(
            file,
            f"the table could not be parsed ({exc})".replace("\n", " "),
            hint="Check the delimiter and the quoting",
        ) from exc


def _read_json_lines(text: str, *, file: str) -> list[dict]:
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise VerdictFormatError(
                file,
                f"line {number} is not valid JSON ({exc.msg})",
                hint="Each line of a JSON Lines file must be one JSON object",
            ) from exc
        except RecursionError as exc:
            raise VerdictFormatError(
                file,
                f"line {number} is nested too deeply to be a record",
                hint="Each line of a JSON Lines file must be one JSON object",
            ) from exc
        if not isinstance(record, dict):
            raise VerdictFormatError(
                file,
                f"line {number} is not a JSON object",
                hint="Each line of a JSON Lines file must be one JSON object",
            )
        records.append(record)
    if not records:
        raise VerdictFormatError(file, "the file is empty", hint="Upload a file with at least one record")
    return records


def read_raw(source: Source, *, name: str | None = None) -> tuple[object, str]:
    """Read a file into a raw object (DataFrame, or parsed JSON records) and a format label.

    Nothing is validated here beyond the file being readable.
    """
    import pandas as pd

    file = name or (Path(source).name if not isinstance(source, bytes) else "upload")
    suffix = _suffix(file)
    if suffix in (".parquet", ".pq"):
        data = _raw_bytes(source)
        if not data:
            raise VerdictFormatError(file, "the file is empty", hint="Upload a non-empty file")
        try:
            frame = pd.read_parquet(io.BytesIO(data))
        except Exception as exc:
            raise VerdictFormatError(
                file,
                f"this is not a readable Parquet file ({exc})",
                hint="Check the file, or export the table as CSV",
            ) from exc
        return frame, "Parquet"
    data = _raw_bytes(source)
    gzipped = data[:2] == b"\x1f\x8b"
    if suffix in (".csv", ".csv.gz") and data.strip():
        # Fast path: pyarrow parses bytes directly. Anything unusual (bad UTF-8, ragged rows)
        # falls through to the careful path below, which says exactly what is wrong.
        try:
            frame = pd.read_csv(
                io.BytesIO(data),
                dtype=str,
                keep_default_na=False,
                engine="pyarrow",
                compression="gzip" if gzipped else None,
            )
            return frame, "CSV.gz" if gzipped else "CSV"
        except Exception:  # noqa: BLE001 - re-read below for a precise message
            pass
    text = _decode(data, file=file)
    stripped = text.lstrip()
    if suffix in (".json",) or (
        suffix not in (".csv", ".tsv", ".csv.gz", ".tsv.gz") and stripped.startswith("[")
    ):
        if not stripped:
            raise VerdictFormatError(file, "the file is empty", hint="Upload a non-empty file")
        try:
            parsed = json.loads(text)
        except json.JSONDecodeError:
            return _read_json_lines(text, file=file), "JSON Lines"
        except RecursionError as exc:  # e.g. "[[[[…" a hundred thousand deep
            raise VerdictFormatError(
                file,
                "the JSON is nested too deeply to be a table",
                hint="Upload a list of records or JSON Lines",
            ) from exc
        if isinstance(parsed, dict):
            parsed = [parsed]
        return parsed, "JSON"
    if suffix in (".jsonl", ".ndjson", ".jsonl.gz") or stripped.startswith("{"):
        return _read_json_lines(text, file=file), "JSON Lines"
    sep = "\t" if suffix in (".tsv", ".tsv.gz") else ","
    label = "CSV.gz" if gzipped else ("TSV" if sep == "\t" else "CSV")
    return _read_delimited(text, sep=sep, file=file), label


def _is_contract_frame(frame: pd.DataFrame) -> bool:
    columns = {str(c).strip().lower() for c in frame.columns}
    return set(REQUIRED_COLUMNS) <= columns


# -- files as DuckDB reads them ---------------------------------------------------------------

_KINDS = {
    ".parquet": ("parquet", "Parquet"),
    ".pq": ("parquet", "Parquet"),
    ".jsonl": ("jsonl", "JSON Lines"),
    ".ndjson": ("jsonl", "JSON Lines"),
    ".json": ("json", "JSON"),
    ".tsv": ("tsv", "TSV"),
    ".csv": ("csv", "CSV"),
}


def _head(path: Path, n: int = 65536) -> bytes:
    with open(path, "rb") as handle:
        return handle.read(n)


def _decompress(path: Path, out: Path, *, file: str, limits: LoadLimits, lines: bool | None) -> None:
    """Gunzip ``path`` into ``out`` as a stream, refusing once it exceeds ``limits.max_bytes``,
    or (``lines``: a CSV, TSV or JSON Lines file, one row a line) once its lines exceed
    ``limits.max_rows`` and a header. ``lines=None``: decided from the first bytes (a JSON
    document, whose lines are not its rows, starts with ``[``)."""
    total = 0
    count = 0
    try:
        with gzip.open(path, "rb") as src, open(out, "wb") as dst:
            while chunk := src.read(1 << 20):
                if lines is None:
                    lines = chunk.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] != b"["
                total += len(chunk)
                if lines:
                    # counted in C as the bytes pass (about 1 GB/s): a file of 150 million
                    # valid rows in 3 MB of gzip is refused here, before any row is loaded
                    count += chunk.count(b"\n")
                    if count > limits.max_rows + 1:
                        raise VerdictFormatError(
                            file,
                            f"decompressed, this file has more than {limits.max_rows:,} rows "
                            f"(reading stopped at line {count:,}), over the limit of "
                            f"{limits.max_rows:,} rows this server accepts",
                            hint=limits.rows_advice,
                        )
                if total > limits.max_bytes:
                    raise VerdictFormatError(
                        file,
                        f"decompressed, this file is larger than the "
                        f"{format_size(limits.max_bytes)} this server accepts",
                        hint="Convert it to Parquet (compressed, and read without being "
                        "decompressed whole), load a sample of it, or run the command-line tool "
                        "on the file with VERDICTLAB_MAX_BYTES set higher",
                    )
                dst.write(chunk)
    except VerdictFormatError:
        out.unlink(missing_ok=True)
        raise
    except (OSError, EOFError, zlib.error) as exc:  # a truncated stream raises EOFError
        out.unlink(missing_ok=True)
        raise VerdictFormatError(
            file, f"the gzip stream is damaged ({exc})", hint="Re-compress the file or upload it uncompressed"
        ) from exc


def prepare_source(path: Path, *, file: str, workdir: Path, limits: LoadLimits) -> SourceFile:
    """What DuckDB will read for ``path``: the container recognised from the name and the first
    bytes, a gzip stream decompressed (capped) into ``workdir``."""
    try:
        head = _head(path)
    except IsADirectoryError:
        raise VerdictFormatError(file, "this is a folder, not a file", hint="Give one verdict file") from None
    gz = head[:2] == b"\x1f\x8b"
    inner = file
    if gz:
        lower = file.lower()
        inner = file[:-3] if lower.endswith(".gz") else file
        target = workdir / ("inflated" + (_suffix(inner) if _suffix(inner) != ".gz" else ""))
        kind = _KINDS.get(_suffix(inner), (None,))[0]
        lines = None if kind is None else kind in ("csv", "tsv", "jsonl")
        _decompress(path, target, file=file, limits=limits, lines=lines)
        path = target
        head = _head(path)
    if not head.strip():
        raise VerdictFormatError(
            file,
            "the file is empty",
            hint="Upload a table with a header line and at least one row: " + ", ".join(REQUIRED_COLUMNS),
        )
    suffix = _suffix(inner)
    known = _KINDS.get(suffix)
    stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if known is None:
        if head[:4] == b"PAR1":
            kind, label = "parquet", "Parquet"
        elif stripped[:1] == b"[":
            kind, label = "json", "JSON"
        elif stripped[:1] == b"{":
            kind, label = "jsonl", "JSON Lines"
        else:
            kind, label = "csv", "CSV"
    else:
        kind, label = known
        if kind == "json" and stripped[:1] == b"{":
            kind, label = "jsonl", "JSON Lines"
    if kind == "jsonl" and suffix not in (".jsonl", ".ndjson"):
        path, kind, label = _json_document(path, file=file, workdir=workdir, kind=kind, label=label)
    if gz and kind in ("csv", "tsv"):
        label = f"{label}.gz"
    from evalcore.ingest import Source as _Src

    return _Src(path=path, file=file, kind=kind, label=label)


def _json_document(path: Path, *, file: str, workdir: Path, kind: str, label: str) -> tuple[Path, str, str]:
    """A file starting with ``{`` whose first line is not a whole object is one JSON document (a
    table written as one object, or one pretty-printed call): its records as JSON Lines."""
    import json

    from evalcore.ingest.json_document import is_document, to_json_lines

    if not is_document(path):
        return path, kind, label
    _check_document_memory(path, file=file)
    try:
        return to_json_lines(path, workdir / "document.jsonl", file=file), "jsonl", "JSON"
    except json.JSONDecodeError:  # not one document either: JSON Lines' message names the line
        return path, kind, label


#: Memory Python takes for one byte of a JSON document read whole, at worst: a table by columns
#: of one-letter values (``{"0": "a", "1": "a", …}``) becomes a dict entry, a key and a value
#: per 8 bytes of text, and then one record per row (measured about 60 bytes per byte).
JSON_DOCUMENT_EXPANSION = 64


def _check_document_memory(path: Path, *, file: str) -> None:
    """Refuse, in words, a one-object JSON document whose reading whole could take more than
    the request's memory budget (a deeply repetitive 100 MB document took gigabytes)."""
    from evalcore.limits import ENV_VAR, budget_bytes

    size = path.stat().st_size
    most = budget_bytes() // JSON_DOCUMENT_EXPANSION
    if size > most:
        raise VerdictFormatError(
            file,
            f"the file is one JSON object of {format_size(size)}; an object is read whole, and "
            f"one over {format_size(most)} could take more memory than a request may use on "
            f"this server ({ENV_VAR})",
            hint="Save the table as JSON Lines (one record per line) or Parquet, which are read "
            "in pieces, or split the file",
        )


def spill(data: bytes, *, file: str, workdir: Path) -> Path:
    """An upload's bytes written to a scratch file (named like the upload, for its suffix)."""
    if not data.strip():
        raise VerdictFormatError(
            file,
            "the file is empty",
            hint="Upload a table with a header line and at least one row: " + ", ".join(REQUIRED_COLUMNS),
        )
    target = workdir / ("upload" + "".join(Path(file).suffixes[-2:]))
    target.write_bytes(data)
    return target


def _convert_native(
    raw: object, *, container: str, file: str, path: str | None = None
) -> tuple[pd.DataFrame, str]:
    import pandas as pd

    try:
        from evalcore import importers
    except ImportError:  # the importers module is optional for the contract path
        converted = None
    else:
        converted = importers.convert_native(raw, file=file, path=path)
    if converted is not None:
        return converted
    if isinstance(raw, pd.DataFrame):
        frame = raw
    elif isinstance(raw, list) and raw and all(isinstance(r, dict) for r in raw):
        frame = pd.DataFrame.from_records(raw)
    else:
        raise VerdictFormatError(
            file,
            "the file holds no table of records",
            hint="Upload a verdict table (docs/data-contract.md) or a native "
            "file of Arena-Hard-Auto, AlpacaEval, MT-Bench or Chatbot Arena",
        )
    if not _is_contract_frame(frame):
        columns = tuple(str(c) for c in frame.columns)
        missing = [c for c in REQUIRED_COLUMNS if c not in {x.strip().lower() for x in columns}]
        raise VerdictFormatError(
            file,
            "this is neither a verdict table nor a recognised tool format; required "
            f"{'column' if len(missing) == 1 else 'columns'} missing: " + ", ".join(missing),
            values=columns,
            hint="The header must name "
            + ", ".join(REQUIRED_COLUMNS)
            + " (the values listed are the columns found)",
        )
    return frame.astype(str).where(frame.notna(), ""), f"verdict table ({container})"


def read_human_ranking(source: Source, *, name: str | None = None) -> pd.DataFrame:
    """Read a human ranking table (``model, score``; higher is better) into a tidy frame."""
    import pandas as pd

    file = name or (Path(source).name if not isinstance(source, bytes) else "upload")
    raw, _ = read_raw(source, name=file)
    # A JSON number, string, or list of non-records is not a table: say so, never a TypeError.
    if isinstance(raw, pd.DataFrame):
        frame = raw
    elif isinstance(raw, list) and all(isinstance(r, dict) for r in raw):
        frame = pd.DataFrame.from_records(raw)
    else:
        raise VerdictFormatError(
            file,
            "the file holds a JSON "
            + {"int": "number", "float": "number", "str": "string", "bool": "boolean", "dict": "object"}.get(
                type(raw).__name__, type(raw).__name__
            )
            + ", not a table of models and scores",
            hint="A human ranking is a CSV with the columns model, score, or JSON records "
            '[{"model": …, "score": …}, …]',
        )
    frame = frame.rename(columns={c: str(c).strip().lower() for c in frame.columns})
    missing = [c for c in ("model", "score") if c not in frame.columns]
    if missing:
        raise VerdictFormatError(
            file,
            f"required {'column' if len(missing) == 1 else 'columns'} missing: " + ", ".join(missing),
            values=tuple(str(c) for c in frame.columns),
            hint="A human ranking has the columns model, score (higher is better)",
        )
    model = frame["model"].astype("string").str.strip()
    score = pd.to_numeric(frame["score"], errors="coerce")
    bad = score.isna() | model.isna() | (model == "")
    if bad.any():
        positions = [int(p) + 1 for p in bad.to_numpy().nonzero()[0]]
        raise VerdictFormatError(
            file,
            "rows without a model name or a numeric score",
            rows=tuple(positions),
            values=tuple(str(v) for v in frame["score"][bad].head(5)),
            hint="Every row needs a model name and a number",
        )
    dup = model.duplicated()
    if dup.any():
        raise VerdictFormatError(
            file,
            "a model appears more than once",
            rows=tuple(int(p) + 1 for p in dup.to_numpy().nonzero()[0]),
            values=tuple(model[dup].astype(str)),
            hint="Give each model one score",
        )
    return pd.DataFrame({"model": model.astype(str), "score": score.astype(float)})
