"""Readers: a file (CSV, CSV.gz, Parquet, JSON Lines, or a tool's native output) → canonical frame.

The contract is ``shared/VERDICT_FORMAT.md``. Files are read with every cell as text so that the
contract, not a CSV sniffer, decides what a verdict is; native formats of other tools are
recognised by :mod:`evalcore.importers` and converted to the same canonical frame.
"""

from __future__ import annotations

import gzip
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Union

import pandas as pd

from evalcore.schema import (
    REQUIRED_COLUMNS,
    ValidationReport,
    VerdictFormatError,
    inspect_verdicts,
    validate_verdicts,
)

Source = Union[str, Path, bytes]


@dataclass(frozen=True)
class LoadedTable:
    """A validated verdict table with where it came from and what loading noticed."""

    frame: pd.DataFrame
    file: str
    format: str
    report: ValidationReport


def _suffix(name: str) -> str:
    lower = name.lower()
    for suffix in (".csv.gz", ".tsv.gz", ".jsonl.gz", ".csv", ".tsv", ".parquet", ".pq",
                   ".jsonl", ".ndjson", ".json", ".gz"):
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
            raise VerdictFormatError(file, f"the gzip stream is damaged ({exc})",
                                     hint="Re-compress the file or upload it uncompressed") from exc
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
    if not text.strip():
        raise VerdictFormatError(file, "the file is empty",
                                 hint="Upload a table with a header line and at least one row: "
                                 + ", ".join(REQUIRED_COLUMNS))
    try:
        return pd.read_csv(io.StringIO(text), sep=sep, dtype=str, keep_default_na=False,
                           na_filter=False)
    except pd.errors.ParserError as exc:  # the C parser names the line of a ragged row
        raise VerdictFormatError(file, f"the table could not be parsed ({exc})".replace("\n", " "),
                                 hint="Check that every line has as many fields as the "
                                 "header and that quotes are balanced") from exc
    except Exception as exc:
        raise VerdictFormatError(file, f"the table could not be parsed ({exc})".replace("\n", " "),
                                 hint="Check the delimiter and the quoting") from exc


def _read_json_lines(text: str, *, file: str) -> list[dict]:
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise VerdictFormatError(file, f"line {number} is not valid JSON ({exc.msg})",
                                     hint="Each line of a JSON Lines file must be one JSON object"
                                     ) from exc
        except RecursionError as exc:
            raise VerdictFormatError(file, f"line {number} is nested too deeply to be a record",
                                     hint="Each line of a JSON Lines file must be one JSON object"
                                     ) from exc
        if not isinstance(record, dict):
            raise VerdictFormatError(file, f"line {number} is not a JSON object",
                                     hint="Each line of a JSON Lines file must be one JSON object")
        records.append(record)
    if not records:
        raise VerdictFormatError(file, "the file is empty",
                                 hint="Upload a file with at least one record")
    return records


def read_raw(source: Source, *, name: str | None = None) -> tuple[object, str]:
    """Read a file into a raw object (DataFrame, or parsed JSON records) and a format label.

    Nothing is validated here beyond the file being readable.
    """
    file = name or (Path(source).name if not isinstance(source, bytes) else "upload")
    suffix = _suffix(file)
    if suffix in (".parquet", ".pq"):
        data = _raw_bytes(source)
        if not data:
            raise VerdictFormatError(file, "the file is empty", hint="Upload a non-empty file")
        try:
            frame = pd.read_parquet(io.BytesIO(data))
        except Exception as exc:
            raise VerdictFormatError(file, f"this is not a readable Parquet file ({exc})",
                                     hint="Check the file, or export the table as CSV") from exc
        return frame, "Parquet"
    data = _raw_bytes(source)
    gzipped = data[:2] == b"\x1f\x8b"
    if suffix in (".csv", ".csv.gz") and data.strip():
        # Fast path: pyarrow parses bytes directly. Anything unusual (bad UTF-8, ragged rows)
        # falls through to the careful path below, which says exactly what is wrong.
        try:
            frame = pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False,
                                engine="pyarrow", compression="gzip" if gzipped else None)
            return frame, "CSV.gz" if gzipped else "CSV"
        except Exception:  # noqa: BLE001 - re-read below for a precise message
            pass
    text = _decode(data, file=file)
    stripped = text.lstrip()
    if suffix in (".json",) or (suffix not in (".csv", ".tsv", ".csv.gz", ".tsv.gz")
                                and stripped.startswith("[")):
        if not stripped:
            raise VerdictFormatError(file, "the file is empty", hint="Upload a non-empty file")
        try:
            parsed = json.loads(text)
        except json.JSONDecodeError:
            return _read_json_lines(text, file=file), "JSON Lines"
        except RecursionError as exc:  # e.g. "[[[[…" a hundred thousand deep
            raise VerdictFormatError(file, "the JSON is nested too deeply to be a table",
                                     hint="Upload a list of records or JSON Lines") from exc
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


def read_verdicts(source: Source, *, name: str | None = None) -> LoadedTable:
    """Read, recognise and validate a verdict file; raise :class:`VerdictFormatError` if it fails.

    Contract tables (CSV, CSV.gz, Parquet, JSON Lines) are validated directly; the native files of
    Arena-Hard-Auto, AlpacaEval, MT-Bench and Chatbot Arena are converted by
    :mod:`evalcore.importers` first. The returned ``format`` says which was recognised.
    """
    file = name or (Path(source).name if not isinstance(source, bytes) else "upload")
    raw, container = read_raw(source, name=file)
    if isinstance(raw, pd.DataFrame) and _is_contract_frame(raw):
        frame, label = raw, f"verdict table ({container})"
    else:
        frame, label = _convert_native(raw, container=container, file=file,
                                       path=None if isinstance(source, bytes) else str(source))
    canonical = validate_verdicts(frame, file=file)
    return LoadedTable(frame=canonical, file=file, format=label,
                       report=inspect_verdicts(canonical))


def _convert_native(raw: object, *, container: str, file: str,
                    path: str | None = None) -> tuple[pd.DataFrame, str]:
    try:
        from evalcore import importers
    except ImportError:  # the importers module is optional for the contract path
        importers = None
    if importers is not None:
        converted = importers.convert_native(raw, file=file, path=path)
        if converted is not None:
            return converted
    if isinstance(raw, pd.DataFrame):
        frame = raw
    elif isinstance(raw, list) and raw and all(isinstance(r, dict) for r in raw):
        frame = pd.DataFrame.from_records(raw)
    else:
        raise VerdictFormatError(file, "the file holds no table of records",
                                 hint="Upload a verdict table (VERDICT_FORMAT.md) or a native "
                                 "file of Arena-Hard-Auto, AlpacaEval, MT-Bench or Chatbot Arena")
    if not _is_contract_frame(frame):
        columns = tuple(str(c) for c in frame.columns)
        missing = [c for c in REQUIRED_COLUMNS if c not in {x.strip().lower() for x in columns}]
        raise VerdictFormatError(
            file,
            "this is neither a verdict table nor a recognised tool format; required column(s) "
            "missing: " + ", ".join(missing),
            values=columns,
            hint="The header must name " + ", ".join(REQUIRED_COLUMNS)
            + " (the values listed are the columns found)",
        )
    return frame.astype(str).where(frame.notna(), ""), f"verdict table ({container})"


def read_human_ranking(source: Source, *, name: str | None = None) -> pd.DataFrame:
    """Read a human ranking table (``model, score``; higher is better) into a tidy frame."""
    file = name or (Path(source).name if not isinstance(source, bytes) else "upload")
    raw, _ = read_raw(source, name=file)
    frame = raw if isinstance(raw, pd.DataFrame) else pd.DataFrame.from_records(raw)
    frame = frame.rename(columns={c: str(c).strip().lower() for c in frame.columns})
    missing = [c for c in ("model", "score") if c not in frame.columns]
    if missing:
        raise VerdictFormatError(file, "required column(s) missing: " + ", ".join(missing),
                                 values=tuple(str(c) for c in frame.columns),
                                 hint="A human ranking has the columns model, score "
                                 "(higher is better)")
    model = frame["model"].astype("string").str.strip()
    score = pd.to_numeric(frame["score"], errors="coerce")
    bad = score.isna() | model.isna() | (model == "")
    if bad.any():
        positions = [int(p) + 1 for p in bad.to_numpy().nonzero()[0]]
        raise VerdictFormatError(file, "rows without a model name or a numeric score",
                                 rows=tuple(positions),
                                 values=tuple(str(v) for v in frame["score"][bad].head(5)),
                                 hint="Every row needs a model name and a number")
    dup = model.duplicated()
    if dup.any():
        raise VerdictFormatError(file, "a model appears more than once",
                                 rows=tuple(int(p) + 1 for p in dup.to_numpy().nonzero()[0]),
                                 values=tuple(model[dup].astype(str)),
                                 hint="Give each model one score")
    return pd.DataFrame({"model": model.astype(str), "score": score.astype(float)})
