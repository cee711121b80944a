"""What every command shares: loading a file into a store, picking a judge, printing results."""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from evalcore.store import VerdictStore

if TYPE_CHECKING:
    import pandas as pd


def add_file_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file",
        help="a verdict table (CSV, CSV.gz, Parquet, JSONL) or a "
        "native Arena-Hard-Auto / AlpacaEval / MT-Bench / Chatbot Arena file",
    )


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")


def add_judge_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--judge",
        default=None,
        help="the judge to analyse (default: the only judge, or the first, named on stderr)",
    )


def load_store(path: str, *, text: bool = False) -> VerdictStore:
    """Read, validate and load a file; errors propagate as VerdictFormatError (exit 2).

    The prompts, answers and judge outputs are loaded only for a command that reads them
    (``text=True``): copying a demo's 150 MB of text to disk took a ranking 1.5 s longer."""
    from evalcore.cli import UsageError

    if not path:
        raise UsageError("no file given")
    store = VerdictStore()
    store.load_file(path, name=display_name(path), text=text)
    return store


def display_name(path: str) -> str:
    """The file's name as text: bytes of a name that is not UTF-8 become U+FFFD (the file itself
    is opened by its real path)."""
    from evalcore.cli import printable

    return printable(Path(path).name)


def pick_category(store: VerdictStore, category: str | None) -> str | None:
    """``category`` if the file has it (None for all rows), else a UsageError listing them."""
    from evalcore.cli import UsageError

    if category is not None and category not in store.categories():
        have = store.categories()
        raise UsageError(
            f"category {category!r} is not in the file; its categories are: "
            + (", ".join(have) if have else "none (the file has no category column)")
        )
    return category


def pick_judge(store: VerdictStore, judge: str | None) -> str:
    from evalcore.cli import UsageError

    judges = store.judges()
    if judge is None:
        if len(judges) > 1:
            # The choice is the command's, not the user's: say it in words (stderr, so --json stays
            # clean), or a second judge's figures could be read as the first's.
            listed = ", ".join(judges[:5]) + (f" and {len(judges) - 5} more" if len(judges) > 5 else "")
            print(
                f"note: the file has {len(judges)} judges ({listed}); this uses the first, "
                f"{judges[0]}. Pass --judge to choose another.",
                file=sys.stderr,
            )
        return judges[0]
    if judge not in judges:
        raise UsageError(f"judge {judge!r} is not in the file; its judges are: " + ", ".join(judges))
    return judge


def _plain(value: Any) -> Any:
    """JSON-safe: numpy scalars to Python, NaN/inf to null."""
    # pandas only if something imported it (`rank --json` never does): else no value is a frame
    pandas = sys.modules.get("pandas")
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if pandas is not None and isinstance(value, pandas.DataFrame):
        return _plain(value.to_dict(orient="records"))
    if isinstance(value, np.ndarray):
        return _plain(value.tolist())
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating, float)):
        f = float(value)
        return None if math.isnan(f) or math.isinf(f) else f
    if isinstance(value, np.bool_):
        return bool(value)
    if pandas is not None and value is pandas.NA:
        return None
    return value


def print_json(payload: dict) -> None:
    print(json.dumps(_plain(payload), indent=2, ensure_ascii=False))


def print_table(frame: pd.DataFrame, *, floatfmt: str = "{:.3f}") -> None:
    import pandas as pd

    with pd.option_context(
        "display.max_rows",
        500,
        "display.width",
        200,
        "display.max_columns",
        50,
        "display.float_format",
        floatfmt.format,
    ):
        print(frame.to_string(index=False))
