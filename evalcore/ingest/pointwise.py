"""Pointwise score tables: reading, validating and simulating them.

The contract (docs: "Pointwise scores"): one row per (instruction,
candidate, judge, format) with the judge's score, ``instruction_id, candidate, judge, format,
score[, reference]``. A higher score is better; ``reference`` is a reference quality score of the
candidate (e.g. a stronger model's or a human's rating), the same for every judge and format.
A table with one judge or one format may leave out ``judge`` or ``format``; they default to
``"judge"`` and ``"scores"``. An empty score (or ``NA``, ``error``, …) is a call that returned no
score: kept and counted in the parse rate, never imputed. Bad input raises
:class:`evalcore.schema.VerdictFormatError` naming the file, rows and values.

:func:`simulate_pointwise` draws such a table with a known truth (the design of "The Format is
the Filter": binary, Likert-5 and numeric-100 formats scored by several judges of the same
candidate pool).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from evalcore.ingest.files import Source, read_raw
from evalcore.schema import NO_VERDICT_TOKENS, VerdictFormatError
from evalcore.text import fmt_count

REQUIRED_POINTWISE: tuple[str, ...] = ("instruction_id", "candidate", "score")
POINTWISE_COLUMNS: tuple[str, ...] = (
    "row",
    "instruction_id",
    "candidate",
    "judge",
    "format",
    "score",
    "reference",
)
DEFAULT_JUDGE = "judge"
DEFAULT_FORMAT = "scores"


@dataclass(frozen=True)
class PointwiseTable:
    """A validated pointwise score table with where it came from."""

    frame: pd.DataFrame  # POINTWISE_COLUMNS
    file: str
    format: str  # the container (CSV, Parquet, …)

    @property
    def has_reference(self) -> bool:
        return bool(self.frame["reference"].notna().any())

    @property
    def missing_scores(self) -> int:
        return int(self.frame["score"].isna().sum())


def _numbers(frame: pd.DataFrame, name: str, *, file: str, hint: str) -> pd.Series:
    raw = frame[name]
    if pd.api.types.is_numeric_dtype(raw.dtype) and not pd.api.types.is_bool_dtype(raw.dtype):
        numbers = pd.to_numeric(raw, errors="coerce").astype("float64")
        bad = pd.Series(np.isinf(numbers.to_numpy()), index=raw.index)
    else:
        text = raw.astype("string").str.strip()
        empty = text.isna() | text.str.lower().isin(NO_VERDICT_TOKENS)
        numbers = pd.to_numeric(text.mask(empty, None), errors="coerce").astype("float64")
        bad = (numbers.isna() & ~empty) | pd.Series(np.isinf(numbers.to_numpy()), index=raw.index)
    if bad.any():
        positions = np.flatnonzero(bad.to_numpy())
        raise VerdictFormatError(
            file=file,
            problem=f"column '{name}' must hold numbers",
            rows=tuple(int(p) + 1 for p in positions),
            values=tuple(dict.fromkeys(str(v) for v in raw.iloc[positions])),
            hint=hint,
        )
    return numbers.where(np.isfinite(numbers))


def _text(frame: pd.DataFrame, name: str, *, file: str, default: str | None) -> pd.Series:
    if name not in frame.columns:
        return pd.Series(default, index=frame.index, dtype="string")
    text = frame[name].astype("string").str.strip()
    empty = text.isna() | (text == "")
    if empty.any():
        if default is not None:
            return text.mask(empty, default)
        positions = np.flatnonzero(empty.to_numpy())
        raise VerdictFormatError(
            file=file,
            problem=f"column '{name}' is empty in {fmt_count(len(positions), 'row')}",
            rows=tuple(int(p) + 1 for p in positions),
            hint=f"Every row needs a value in '{name}'; fill it in or delete those rows",
        )
    return text


def validate_pointwise(frame: pd.DataFrame, *, file: str) -> pd.DataFrame:
    """Check a raw pointwise table against the contract; return the canonical pointwise frame.

    Columns: ``row`` (1-based data row), ``instruction_id``, ``candidate``, ``judge``, ``format``
    (strings), ``score`` and ``reference`` (float, NaN when absent). Refused with a
    :class:`VerdictFormatError`: missing columns, empty ids, non-numeric scores or references, a
    candidate scored twice by the same judge in the same format, and a candidate whose reference
    differs between rows.
    """
    if frame.shape[1] == 0:
        raise VerdictFormatError(
            file,
            "the file is empty",
            hint="Upload a table with a header "
            "line: instruction_id, candidate, judge, format, score[, reference]",
        )
    frame = frame.rename(columns={c: str(c).strip().lower() for c in frame.columns})
    missing = [c for c in REQUIRED_POINTWISE if c not in frame.columns]
    if missing:
        verdictish = {"model_a", "model_b", "verdict"} <= set(frame.columns)
        raise VerdictFormatError(
            file,
            f"required {'column' if len(missing) == 1 else 'columns'} missing: " + ", ".join(missing),
            values=tuple(str(c) for c in frame.columns),
            hint=(
                "This looks like a pairwise verdict table (model_a, model_b, verdict), not pointwise scores. "
                if verdictish
                else ""
            )
            + "A pointwise score table names instruction_id, candidate, judge, format, score "
            "and optionally reference (the values listed are the columns found)",
        )
    if len(frame) == 0:
        raise VerdictFormatError(
            file,
            "the file has a header but no rows",
            hint="Add at least one scored candidate below the header",
        )
    frame = frame.reset_index(drop=True)
    out = pd.DataFrame({"row": np.arange(1, len(frame) + 1, dtype="int64")})
    out["instruction_id"] = _text(frame, "instruction_id", file=file, default=None)
    out["candidate"] = _text(frame, "candidate", file=file, default=None)
    out["judge"] = _text(frame, "judge", file=file, default=DEFAULT_JUDGE)
    out["format"] = _text(frame, "format", file=file, default=DEFAULT_FORMAT)
    out["score"] = _numbers(
        frame,
        "score",
        file=file,
        hint="Write each score as a number (higher "
        "is better; map ACCEPT/REJECT to 1/0), or leave it empty for a call "
        "that returned no score",
    )
    if "reference" in frame.columns:
        out["reference"] = _numbers(
            frame, "reference", file=file, hint="Write the reference score as a number, or leave it empty"
        )
    else:
        out["reference"] = np.nan
    keys = ["instruction_id", "candidate", "judge", "format"]
    dup = out.duplicated(keys, keep=False)
    if dup.any():
        rows = out.loc[dup, "row"].to_numpy()
        shown = out.loc[dup, keys].drop_duplicates().head(5)
        raise VerdictFormatError(
            file,
            "a candidate is scored more than once by the same judge in the same format",
            rows=tuple(int(r) for r in rows),
            values=tuple("/".join(str(v) for v in rec) for rec in shown.itertuples(index=False)),
            hint="Keep one score per instruction_id, candidate, judge and format (average repeated "
            "samples before uploading, or give them different format names)",
        )
    ref = out.dropna(subset=["reference"])
    spread = ref.groupby(["instruction_id", "candidate"], observed=True)["reference"].transform("nunique")
    if (spread > 1).any():
        bad = ref[spread > 1]
        raise VerdictFormatError(
            file,
            "a candidate has different reference scores in different rows",
            rows=tuple(int(r) for r in bad["row"]),
            values=tuple(
                dict.fromkeys(
                    f"{i}/{c}" for i, c in zip(bad["instruction_id"], bad["candidate"], strict=True)
                )
            ),
            hint="The reference is a property of the candidate: give it the same value in every row",
        )
    return out[list(POINTWISE_COLUMNS)]


def read_pointwise(source: Source, *, name: str | None = None) -> PointwiseTable:
    """Read and validate a pointwise score file (CSV, CSV.gz, TSV, Parquet, JSON Lines)."""
    file = name or (Path(source).name if not isinstance(source, bytes) else "upload")
    raw, container = read_raw(source, name=file)
    if not isinstance(raw, pd.DataFrame):
        if isinstance(raw, list) and raw and all(isinstance(r, dict) for r in raw):
            raw = pd.DataFrame.from_records(raw)
        else:
            raise VerdictFormatError(
                file,
                "the file holds no table of records",
                hint="Upload a pointwise score table: instruction_id, "
                "candidate, judge, format, score[, reference]",
            )
    return PointwiseTable(frame=validate_pointwise(raw, file=file), file=file, format=container)


# -- simulation ------------------------------------------------------------------------------
@dataclass(frozen=True)
class PointwiseJudge:
    """A simulated pointwise judge: perception ``noise`` on the latent quality, a ``bias`` (its
    scale's offset), and ``round_to_five``: the share of numeric-100 scores put on a multiple of 5
    ("The Format is the Filter" §3.2: 75–100% of real judges' mass)."""

    name: str
    noise: float = 0.6
    bias: float = 0.0
    round_to_five: float = 0.95


#: Formats with their nominal number of levels ("The Format is the Filter", §2).
SIMULATED_FORMATS: dict[str, int] = {"binary": 2, "likert-5": 5, "numeric-100": 101}


def simulate_pointwise(
    judges: tuple[PointwiseJudge, ...],
    *,
    n_instructions: int = 200,
    candidates: tuple[int, int] = (3, 5),
    formats: tuple[str, ...] = ("binary", "likert-5", "numeric-100"),
    reference_step: float = 0.5,
    seed: int = 0,
) -> pd.DataFrame:
    """Draw a pointwise table: every judge scores every candidate in every format.

    Each instruction has between ``candidates[0]`` and ``candidates[1]`` candidates named
    ``sim-resp-<k>`` with latent quality q = u_i + e. The reference is 1 + 9·Φ(q / 1.3) rounded to
    ``reference_step`` (so the reference has ties, as GPT-4's 1–10 scores do). A judge perceives
    y = q + bias + N(0, noise²) afresh for each format and answers: binary 1 if y > 0; Likert-5 cut
    at (−1.2, −0.4, 0.4, 1.2); numeric-100 60 + 15·y (clipped to 0–100) rounded to a multiple of 5 with
    probability ``round_to_five``, else to an integer. Coarser formats therefore tie more, by
    construction, whatever the judge.
    """
    from scipy.stats import norm

    rng = np.random.default_rng(seed)
    unknown = [f for f in formats if f not in SIMULATED_FORMATS]
    if unknown:
        raise ValueError(
            f"unknown simulated {'format' if len(unknown) == 1 else 'formats'}: {unknown}; use {tuple(SIMULATED_FORMATS)}"
        )
    k = rng.integers(candidates[0], candidates[1] + 1, n_instructions)
    inst = np.repeat(np.arange(n_instructions), k)
    slot = np.concatenate([np.arange(n) for n in k]) + 1
    quality = rng.normal(0.0, 0.7, n_instructions)[inst] + rng.normal(0.0, 0.8, len(inst))
    reference = np.round((1.0 + 9.0 * norm.cdf(quality / 1.3)) / reference_step) * reference_step
    frames = []
    for judge in judges:
        for fmt in formats:
            y = quality + judge.bias + rng.normal(0.0, judge.noise, len(inst))
            if fmt == "binary":
                score = (y > 0).astype(float)
            elif fmt == "likert-5":
                score = 1.0 + np.searchsorted(np.array([-1.2, -0.4, 0.4, 1.2]), y).astype(float)
            else:
                raw = np.clip(60.0 + 15.0 * y, 0.0, 100.0)
                five = rng.random(len(inst)) < judge.round_to_five
                score = np.where(five, np.round(raw / 5.0) * 5.0, np.round(raw))
            frames.append(
                pd.DataFrame(
                    {
                        "instruction_id": [f"p{i:04d}" for i in inst],
                        "candidate": [f"sim-resp-{s}" for s in slot],
                        "judge": judge.name,
                        "format": fmt,
                        "score": score,
                        "reference": reference,
                    }
                )
            )
    return pd.concat(frames, ignore_index=True)
