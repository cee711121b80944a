"""Verdict tables of every shape the tests know, as raw files a team's logs would hold: all pairs,
anchor-only, an arena, one order and both orders, calls without a verdict, repeated calls,
self-comparisons, and verdicts and human labels written as labels (``A>>B``, ``[[A]]``, ``tie``)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalcore.simulate.arena import arena_verdict_frame, simulate_arena
from evalcore.simulate.tables import JudgeSpec, SimulationSpec, simulate

_LABELS = {2: "A>>B", 1: "[[A]]", 0: " tie ", -1: "b>a", -2: "B>>A"}


def _sim(**options) -> pd.DataFrame:
    spec = SimulationSpec(**({"n_models": 5, "n_instructions": 24, "seed": 3} | options))
    return simulate(spec).verdicts.drop(columns=["row"])


def _labelled(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame.copy()
    for column in ("verdict", "human"):
        values = out[column].astype("Int64")
        out[column] = pd.array([None if pd.isna(v) else _LABELS[int(v)] for v in values], dtype="string")
    out.loc[out.index[::7], "verdict"] = "error"  # a call whose verdict could not be parsed
    return out


def _repeated(frame: pd.DataFrame) -> pd.DataFrame:
    """Some calls made again (a second sample of the same judge), and a few self-comparisons."""
    again = frame.iloc[::3]
    self_rows = frame.iloc[:4].assign(model_b=frame["model_a"].iloc[:4])
    return pd.concat([frame, again, self_rows], ignore_index=True)


def shapes() -> dict[str, pd.DataFrame]:
    """Shape name → raw verdict table (contract columns, as a file would hold them)."""
    two_judges = (JudgeSpec("j1"), JudgeSpec("j2", slot_bias=0.4, no_verdict_rate=0.15))
    all_pairs = _sim(judges=two_judges, human_fraction=0.3, categories=("math", "code"))
    names = sorted(set(all_pairs["model_a"]))
    # an anchor table as a plain log: no judge, no human labels, no categories
    anchor = _sim(design="anchor", anchor=names[0], both_orders=False, n_models=7, n_instructions=40).drop(
        columns=["judge", "human", "category"]
    )
    arena = arena_verdict_frame(
        simulate_arena(n_battles=3000, n_models=10, seed=2, style_effects={"length": 0.8, "bold": 0.3})
    ).drop(columns=["row"])
    one_order = _sim(both_orders=False, judges=(JudgeSpec("j1", no_verdict_rate=0.3),), seed=5)
    return {
        "all pairs, both orders": all_pairs,
        "anchor-only": anchor,
        "arena": arena,
        "one order, missing verdicts": one_order,
        "labels such as A>>B": _labelled(all_pairs),
        "repeated calls and self-comparisons": _repeated(all_pairs),
    }


def write(frame: pd.DataFrame, path) -> None:
    """``frame`` as a Parquet file (text as text, levels as small integers)."""
    frame.to_parquet(path, index=False)


def optional_columns(frame: pd.DataFrame) -> tuple[str, ...]:
    from evalcore.ingest.counts_table import OPTIONAL

    return tuple(c for c in OPTIONAL if c in frame.columns)


def feature_columns(frame: pd.DataFrame) -> tuple[str, ...]:
    return tuple(c for c in frame.columns if c.startswith("feat_"))


def normalised(table: pd.DataFrame) -> pd.DataFrame:
    """A counts table in one comparable form: keys as text (empty for missing), levels and
    counts as integers, sums as floats, rows sorted."""
    from evalcore.ingest.counts_table import COUNT, KEYS

    out = pd.DataFrame()
    for key in KEYS:
        values = table[key]
        if key in ("verdict", "human"):
            out[key] = pd.array(values, dtype="Float64").astype("Int64").astype("string").fillna("")
        else:
            out[key] = values.astype("string").fillna("")
    out[COUNT] = np.asarray(table[COUNT], dtype=np.int64)
    for column in sorted(c for c in table.columns if c.endswith("_sum")):
        out[column] = pd.array(table[column], dtype="Float64").astype(float)
    return out.sort_values(list(KEYS)).reset_index(drop=True)
