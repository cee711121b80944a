"""The judges side by side: every judge's spec sheet, one row per judge, the best value marked.

:func:`judge_sheets` builds the sheet (:func:`evalcore.judge.sheet.judge_sheet`) of every judge,
computing the self-preference table once for all of them; :func:`comparison_table` and
:func:`compare_judges` lay their scalars out one row per judge; :func:`best_marks` marks the best
judge on each metric of :data:`BEST_DIRECTION`.
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd

from evalcore.counts import CountSource, require_source
from evalcore.judge._analytic import DEFAULT_INTERVAL, check_interval
from evalcore.judge.self_preference import self_preference
from evalcore.judge.sheet import JudgeSheet, _check_options, judge_sheet
from evalcore.progress import Cache, Progress, no_cache
from evalcore.stats.threads import single_blas_thread

#: For the side-by-side comparison: which direction is better for each sheet metric.
#: "abs" = closer to zero is better.
BEST_DIRECTION: dict[str, str] = {
    "position_bias_points": "abs",
    "swap_consistency": "max",
    "flip_rate": "min",
    "no_verdict_rate": "min",
    "slot_bias_b": "abs",
    "self_comparison_tie_rate": "max",
    "agreement": "max",
    "kappa": "max",
    "length_coefficient": "abs",
    "self_preference_elo": "abs",
}


@single_blas_thread()  # many short products: one thread (evalcore.stats.threads)
def judge_sheets(
    source: CountSource,
    judges: tuple[str, ...] | list[str] | None = None,
    *,
    category: str | None = None,
    rounds: int = 2000,
    seed: int = 0,
    families: dict[str, str] | None = None,
    length_control: bool = True,
    progress: Progress | None = None,
    interval: str = DEFAULT_INTERVAL,
    cache: Cache | None = None,
) -> dict[str, JudgeSheet | str]:
    """The sheet of every judge (default: all judges of the store), in the store's order.

    A judge that cannot get a sheet (no verdict in the selection) maps to the reason, a string.
    The self-preference table is computed once for all judges. Options as :func:`judge_sheet`.
    ``cache`` (``cache(key, compute)``, as :func:`evalcore.findings.run_analyses` takes it) keeps
    each piece under a key of its own, so that two callers can share the pieces of one call
    (one computes the judges from the last while the other computes them from the first): the
    self-preference table under ``("self_preference", category, rounds, seed, interval,
    families)`` and each judge's sheet under ``("judge_sheet", judge, category, rounds, seed,
    interval, length_control, families)``, ``rounds`` as used (0 for analytic intervals) and
    ``families`` as sorted (model, family) pairs or None.

    Examples
    --------
    >>> from evalcore.simulate.tables import JudgeSpec, SimulationSpec, simulate
    >>> sim = simulate(SimulationSpec(n_models=4, n_instructions=20, seed=1,
    ...                               judges=(JudgeSpec("calm"), JudgeSpec("first", slot_bias=1.0))))
    >>> from evalcore.store.store import VerdictStore
    >>> sheets = judge_sheets(VerdictStore.from_frame(sim.verdicts), rounds=0, length_control=False)
    >>> table = comparison_table(sheets)
    >>> table.set_index("judge")["position_bias_points"].idxmax()
    'first'
    """
    rounds, seed = _check_options(rounds, seed)
    interval = check_interval(interval)
    rounds = 0 if interval == "analytic" else rounds
    require_source(source, needs=("counts", "judges", "query"), what="judge_sheets")
    store = source
    judges = tuple(judges) if judges is not None else store.judges()
    keyed = cache if cache is not None else no_cache
    named = tuple(sorted(families.items())) if families else None
    table = None
    if families and len(store.judges()) >= 2:
        try:
            table = keyed(
                ("self_preference", category, min(rounds, 500), seed, interval, named),
                lambda: self_preference(
                    store, families, category=category, rounds=min(rounds, 500), seed=seed, interval=interval
                ),
            )
        except ValueError:  # refused (too many models): each judge's sheet says why in its notes
            table = None
    out: dict[str, JudgeSheet | str] = {}
    for n, name in enumerate(judges):

        def sub(f: float, text: str, n: int = n, name: str = name) -> None:
            if progress is not None:
                progress((n + f) / max(len(judges), 1), f"{name}: {text}")

        key = ("judge_sheet", name, category, rounds, seed, interval, length_control, named)
        sheet = functools.partial(
            judge_sheet,
            store,
            name,
            category=category,
            rounds=rounds,
            seed=seed,
            families=families,
            length_control=length_control,
            self_preference_table=table,
            progress=sub,
            interval=interval,
        )
        try:
            out[name] = keyed(key, sheet)
        except ValueError as exc:
            out[name] = str(exc)
    return out


def comparison_table(sheets: dict[str, JudgeSheet | str]) -> pd.DataFrame:
    """One row per judge with every scalar of its sheet (:meth:`JudgeSheet.scalars`), a ``note``
    and its ``design_warnings`` (joined); a judge without a sheet gets its name and the reason."""
    rows: list[dict[str, float | int | str | None]] = []
    for name, sheet in sheets.items():
        if isinstance(sheet, str):
            rows.append({"judge": name, "note": sheet})
            continue
        row = sheet.scalars()
        row["note"] = " ".join(sheet.notes)
        row["design_warnings"] = " ".join(sheet.design_warnings)
        rows.append(row)
    return pd.DataFrame(rows)


def compare_judges(
    source: CountSource,
    judges: tuple[str, ...] | list[str] | None = None,
    *,
    category: str | None = None,
    rounds: int = 2000,
    seed: int = 0,
    families: dict[str, str] | None = None,
    length_control: bool = True,
    progress: Progress | None = None,
    interval: str = DEFAULT_INTERVAL,
) -> pd.DataFrame:
    """One row per judge with every scalar of its sheet (see :func:`comparison_table`)."""
    return comparison_table(
        judge_sheets(
            source,
            judges,
            category=category,
            rounds=rounds,
            seed=seed,
            families=families,
            length_control=length_control,
            progress=progress,
            interval=interval,
        )
    )


def best_marks(table: pd.DataFrame) -> pd.DataFrame:
    """Boolean frame (same shape as ``table``): True where a judge has the best value of a metric
    in :data:`BEST_DIRECTION` (ties all marked; NaN never best; needs two or more judges).

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"judge": ["a", "b"], "kappa": [0.4, 0.5]})
    >>> best_marks(t)["kappa"].tolist()
    [False, True]
    """
    marks = pd.DataFrame(False, index=table.index, columns=table.columns)
    if len(table) < 2:
        return marks
    for column, direction in BEST_DIRECTION.items():
        if column not in table.columns:
            continue
        values = pd.to_numeric(table[column], errors="coerce").astype("float64")
        if values.notna().sum() < 2:
            continue
        score = values.abs() if direction == "abs" else values
        best = score.max() if direction == "max" else score.min()
        marks[column] = np.isclose(score, best, rtol=0, atol=1e-12) & score.notna()
    return marks
