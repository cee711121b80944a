"""The benchmark table: the size of the source paper's release (Don-Yehiya et al. 2026, §3).

22 models, all 231 pairs, 750 instructions, 5 judges, one order: 866,250 rows, simulated with a
known truth. ``paper_sized_file()`` writes it once as CSV under the system temp folder.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pandas as pd

from evalcore.simulate.tables import JudgeSpec, SimulationSpec, simulate

JUDGES = tuple(
    JudgeSpec(f"sim-judge-{k}", slot_bias=0.1 * k, tie_width=0.3 + 0.2 * k, noise=0.4 + 0.05 * k)
    for k in range(5)
)
SPEC = SimulationSpec(
    n_models=22, n_instructions=750, judges=JUDGES, design="all pairs", both_orders=False, seed=866250
)


def paper_sized_frame() -> pd.DataFrame:
    return simulate(SPEC).verdicts.drop(columns=["row", "human", "category"])


def paper_sized_file() -> Path:
    path = Path(tempfile.gettempdir()) / "verdictlab_bench_866250.csv"
    if not path.exists():
        frame = paper_sized_frame()
        tmp = path.with_suffix(".tmp")
        frame.to_csv(tmp, index=False)
        tmp.replace(path)
    return path


if __name__ == "__main__":
    p = paper_sized_file()
    print(p, f"{p.stat().st_size / 1e6:.1f} MB")
