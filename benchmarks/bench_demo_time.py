"""What the demo's judging times cost, and what the both-bad share costs on an arena table.

    python benchmarks/bench_demo_time.py [--runs 3]

Prints the median wall time (of ``--runs``) of the ranking in time on the bundled demo for each
judge (ratings per time window and the judge drift test, which the Overview and the Leaderboard
now compute on the demo), of reading the demo's ``judged_at`` once, and of the both-bad share on
a simulated arena dump of 200,000 battles; with the machine's load averages beside them (the
machine is shared).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.timing import median_seconds  # noqa: E402
from evalcore.ranking.judge_drift import judge_drift  # noqa: E402
from evalcore.ranking.judging_times import judging_times  # noqa: E402
from evalcore.ranking.over_time import rating_windows  # noqa: E402
from evalcore.simulate.arena import simulate_arena, write_arena_dump  # noqa: E402
from evalcore.store.store import VerdictStore  # noqa: E402
from evalcore.ties import both_bad_share  # noqa: E402

DEMO = Path(__file__).resolve().parents[1] / "data" / "demo_all_pairs.parquet"


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load {one:.1f} / {five:.1f} / {fifteen:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    store = VerdictStore()
    store.load_file(DEMO)
    print(f"demo: {DEMO.name}; {_load()}")
    seconds = median_seconds(lambda: judging_times(store), args.runs)
    print(
        f"judged_at read and parsed (first read cached by the store): {seconds:.2f} s median of {args.runs}"
    )
    for judge in store.judges():
        windows = median_seconds(lambda judge=judge: rating_windows(store, judge=judge), args.runs)
        drift = median_seconds(lambda judge=judge: judge_drift(store, judge=judge), args.runs)
        print(f"{judge}: ratings per window {windows:.2f} s, drift test {drift:.2f} s (medians); {_load()}")
    with tempfile.TemporaryDirectory() as work:
        path = Path(work) / "clean_battle.json"
        write_arena_dump(simulate_arena(n_battles=200_000, n_models=40, n_voters=20_000, seed=0), path)
        arena = VerdictStore()
        load = median_seconds(lambda: arena.load_file(path), args.runs)
        share = median_seconds(lambda: both_bad_share(arena), args.runs)
        said = both_bad_share(arena)
        assert said is not None
        print(
            f"arena dump, 200,000 battles: load {load:.2f} s, both-bad share {share * 1000:.1f} ms "
            f"(medians; {said.share_of_ties:.1%} of ties both bad); {_load()}"
        )


if __name__ == "__main__":
    main()
