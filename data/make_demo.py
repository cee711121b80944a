"""Write the bundled demo datasets from evalcore's simulator (fixed seeds; run from the repo root).

    python data/make_demo.py

Every model and judge in them is simulated ("sim-…"); nothing here is a real model's result.

The all-pairs demo is built to show, at a small size, what Don-Yehiya, Yehudai, Choshen and
Abend find on Arena-Hard-v2.0 ("Mediocrity is the key for LLM as a Judge Anchor Selection",
ACL 2026, §4.1–4.3):

- **The inverted U.** The 20 models' strengths are evenly spread quantiles of a normal
  distribution, so the strongest and the weakest sit far from the pack. A share of responses are
  outliers (a standout or a broken answer, whatever the model's strength): against an anchor far
  above or below the pack, the others win or lose mostly through those, so the ranking they give
  is close to a coin toss. Kendall's tau with the all-pairs ranking is lowest for the extreme
  anchors and highest for mid-ranked ones, for each of the three judges.
- **Informativeness peaks in the middle.** Verdicts against an extreme anchor are mostly the
  same for every model (all lose, or all win), so fewer pairs of models get different verdicts.
- **Three judges with distinct faults**: one prefers the first slot (a position bias of about 20
  percentage points, plus a taste for long answers and for its own family), one says "tie" when
  in doubt (three levels, a wide tie band, a quarter of its verdicts ties) and one is steady.

The all-pairs demo also says when each call was judged (``judged_at``, six weeks from January
2025: each judge works through the instructions in batches at random times,
``evalcore.simulate.timed.judging_times``). The times are drawn apart from the verdicts, so the
ranking in time on the Leaderboard shows what chance alone moves between time windows.

Both demos carry short synthetic prompts, answers and judge's reasoning
(``evalcore.simulate.text``), so the Verdicts page has something to show: the wording follows each
answer's simulated quality and each verdict the judge returned; it is illustrative only.

The seed is one for which every judge shows all three of these cleanly (about half the seeds
tried do; the others show the same shape with more noise). ``tests/test_demo.py`` checks them on
the bundled files.
"""

from __future__ import annotations

import sys
from pathlib import Path
from statistics import NormalDist

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # run as a script from anywhere

from evalcore.simulate.tables import (  # noqa: E402
    DEMO_MODEL_NAMES,
    JudgeSpec,
    SimulationSpec,
    simulate,
)
from evalcore.simulate.timed import judging_times  # noqa: E402

#: Three judges that differ the way real ones do.
DEMO_JUDGES = (
    JudgeSpec(
        "sim-judge-steady",
        slot_bias=0.05,
        tie_width=0.7,
        much=1.4,
        noise=0.25,
        verbosity=0.1,
        no_verdict_rate=0.005,
        family="sim-conifer",
        self_preference=0.0,
    ),
    JudgeSpec(
        "sim-judge-first-slot",
        slot_bias=1.0,
        tie_width=0.3,
        much=1.2,
        noise=0.2,
        verbosity=0.35,
        no_verdict_rate=0.02,
        family="sim-broadleaf",
        self_preference=0.5,
    ),
    JudgeSpec(
        "sim-judge-tie-happy",
        slot_bias=-0.1,
        tie_width=2.4,
        much=2.4,
        noise=0.35,
        verbosity=0.0,
        no_verdict_rate=0.04,
        levels=3,
    ),
)

CONIFERS = {"sim-cedar", "sim-fir", "sim-juniper", "sim-larch", "sim-pine", "sim-spruce", "sim-yew"}

#: When the all-pairs demo was judged: six weeks from this day, times drawn with this seed.
JUDGING_START = "2025-01-06"
JUDGING_DAYS = 42.0
TIMES_SEED = 2025

#: Spread of the latent strengths (sd of the normal whose quantiles they are) and the outliers.
STRENGTH_SD = 1.7
OUTLIER_RATE = 0.2
OUTLIER_SIZE = 8.0


def spread_strengths(n: int, sd: float = STRENGTH_SD) -> tuple[float, ...]:
    """``n`` strengths at the (k + 0.5)/n quantiles of N(0, sd²), strongest first."""
    normal = NormalDist(0.0, sd)
    return tuple(round(normal.inv_cdf((n - k - 0.5) / n), 4) for k in range(n))


def all_pairs_spec() -> SimulationSpec:
    names = DEMO_MODEL_NAMES[:20]
    families = {n: ("sim-conifer" if n in CONIFERS else "sim-broadleaf") for n in names}
    return SimulationSpec(
        n_models=20,
        n_instructions=300,
        judges=DEMO_JUDGES,
        design="all pairs",
        both_orders=True,
        human_fraction=0.12,
        # one label per pair, repeated on both order rows, as labelled tables usually carry it
        human_shared_orders=True,
        categories=("coding", "writing", "reasoning", "math"),
        families=families,
        model_names=names,
        seed=0,
        strengths=spread_strengths(20),
        outlier_rate=OUTLIER_RATE,
        outlier_size=OUTLIER_SIZE,
        text=True,
    )


def anchor_only_spec() -> SimulationSpec:
    """AlpacaEval-style: every model against one strong reference, always in the second slot."""
    return SimulationSpec(
        n_models=16,
        n_instructions=400,
        judges=(DEMO_JUDGES[0],),
        design="anchor",
        anchor="sim-birch",
        anchor_slot="b",
        both_orders=False,
        categories=("coding", "writing"),
        seed=805,
        strengths=spread_strengths(16),
        outlier_rate=OUTLIER_RATE,
        outlier_size=OUTLIER_SIZE,
        text=True,
    )


def main() -> None:
    sim = simulate(all_pairs_spec())
    table = sim.verdicts.drop(columns=["row"])
    # the judging times: a column of their own, drawn after (and apart from) every verdict
    table["judged_at"] = judging_times(table, start=JUDGING_START, days=JUDGING_DAYS, seed=TIMES_SEED)
    table.to_parquet(HERE / "demo_all_pairs.parquet", index=False)
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
    anchor.verdicts.drop(columns=["row"]).to_csv(
        HERE / "demo_anchor_only.csv.gz", index=False, compression={"method": "gzip", "mtime": 0}
    )
    for path in sorted(HERE.glob("demo_*")):
        print(f"{path.name}: {path.stat().st_size / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
