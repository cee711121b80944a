"""Write the bundled pointwise demo (fixed seed; run from the repo root).

    python data/make_pointwise_demo.py

Three simulated judges ("sim-judge-…") score the same simulated candidates ("sim-resp-…") in three
formats (binary, Likert-5, numeric-100), with a reference score per candidate: the design of
Gondara, Novikova, Suresh, Ji and Pradeep ("The Format is the Filter: Scoring Format Fixes What an
LLM Judge Can Express"), at a small size. Nothing here is a real model's result.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # run as a script from anywhere

from evalcore.ingest.pointwise import PointwiseJudge, simulate_pointwise  # noqa: E402

OUT = HERE / "demo_pointwise.csv"

#: A sharp judge, a middling one and a noisy one; they differ in reference agreement, while the
#: format sets the tie structure.
DEMO_POINTWISE_JUDGES = (
    PointwiseJudge("sim-judge-sharp", noise=0.4, bias=0.1, round_to_five=0.97),
    PointwiseJudge("sim-judge-middling", noise=0.7, bias=0.3, round_to_five=0.9),
    PointwiseJudge("sim-judge-noisy", noise=1.1, bias=-0.2, round_to_five=0.75),
)


def main() -> None:
    table = simulate_pointwise(DEMO_POINTWISE_JUDGES, n_instructions=150, seed=20261129)
    table.to_csv(OUT, index=False, float_format="%g")
    print(f"{OUT.name}: {len(table):,} rows, {OUT.stat().st_size / 1e3:.0f} kB")


if __name__ == "__main__":
    main()
