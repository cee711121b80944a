"""Write the bundled demo datasets from evalcore's simulator (fixed seeds; run from the repo root).

    python data/make_demo.py

Every model and judge in them is simulated ("sim-…"); nothing here is a real model's result.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # run as a script from anywhere

from evalcore.simulate import JudgeSpec, SimulationSpec, simulate  # noqa: E402

#: Three judges that differ the way real ones do.
DEMO_JUDGES = (
    JudgeSpec("sim-judge-steady", slot_bias=0.05, tie_width=0.45, much=1.4, noise=0.35,
              verbosity=0.1, no_verdict_rate=0.005, family="sim-conifer", self_preference=0.0),
    JudgeSpec("sim-judge-first-slot", slot_bias=0.55, tie_width=0.15, much=1.2, noise=0.5,
              verbosity=0.35, no_verdict_rate=0.02, family="sim-broadleaf", self_preference=0.3),
    JudgeSpec("sim-judge-tie-happy", slot_bias=-0.1, tie_width=1.3, much=2.4, noise=0.6,
              verbosity=0.0, no_verdict_rate=0.04, levels=3),
)

CONIFERS = {"sim-cedar", "sim-fir", "sim-juniper", "sim-larch", "sim-pine", "sim-spruce",
            "sim-yew"}


def all_pairs_spec() -> SimulationSpec:
    from evalcore.simulate import DEMO_MODEL_NAMES

    names = DEMO_MODEL_NAMES[:20]
    families = {n: ("sim-conifer" if n in CONIFERS else "sim-broadleaf") for n in names}
    return SimulationSpec(
        n_models=20, n_instructions=300, judges=DEMO_JUDGES, design="all pairs",
        both_orders=True, human_fraction=0.12, categories=("coding", "writing", "reasoning", "math"),
        families=families, model_names=names, seed=20261129,
    )


def anchor_only_spec() -> SimulationSpec:
    return SimulationSpec(
        n_models=16, n_instructions=400, judges=(DEMO_JUDGES[0],), design="anchor",
        anchor="sim-birch", both_orders=False, categories=("coding", "writing"), seed=805,
    )


def main() -> None:
    sim = simulate(all_pairs_spec())
    sim.verdicts.drop(columns=["row"]).to_parquet(HERE / "demo_all_pairs.parquet", index=False)
    sim.human_ranking.to_csv(HERE / "demo_human_ranking.csv", index=False)
    families = all_pairs_spec().families
    with open(HERE / "demo_families.csv", "w") as fh:
        fh.write("model,family\n")
        for model, family in sorted(families.items()):
            fh.write(f"{model},{family}\n")
        for judge in DEMO_JUDGES:
            if judge.family:
                fh.write(f"{judge.name},{judge.family}\n")
    anchor = simulate(anchor_only_spec())
    anchor.verdicts.drop(columns=["row"]).to_csv(HERE / "demo_anchor_only.csv.gz", index=False,
                                              compression={"method": "gzip", "mtime": 0})
    for path in sorted(HERE.glob("demo_*")):
        print(f"{path.name}: {path.stat().st_size / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
