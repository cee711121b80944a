"""Stop judging now: why peeking needs a confidence sequence, and what it costs in verdicts.

    python benchmarks/bench_monitor.py [--runs 2000]

Under the null (two equal models: 40% wins, 20% ties, 40% losses) the table is looked at after
every batch of verdicts; prints how often a look declares a difference with the fixed-sample z
test re-run at each look and with the anytime-valid confidence sequence (Howard et al. 2021,
normal mixture), at alpha 0.05. Under an alternative (win rate 0.5 + edge) prints the median
verdicts until the sequence decided against the fixed-sample test's size for 80% power, and the
CPU time of one monitored pair and of the leader on a simulated 10-model table.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evalcore.power.monitor import monitor_leader, monitor_pair  # noqa: E402
from evalcore.power.peeking import simulate_peeking  # noqa: E402
from evalcore.simulate.tables import SimulationSpec, simulate  # noqa: E402
from evalcore.store.store import VerdictStore  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2000)
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()[0]:.2f}")
    print(
        "looks  batch  fixed test error  sequence error  edge  median to decide  fixed-sample size  decided"
    )
    for looks, batch, edge in ((10, 100, 0.05), (100, 20, 0.05), (1000, 2, 0.05), (100, 20, 0.10)):
        s = simulate_peeking(runs=args.runs, looks=looks, batch=batch, edge=edge, seed=1)
        print(
            f"{looks:5,}  {batch:5,}  {100 * s.fixed_error:15.1f}%  {100 * s.sequence_error:13.1f}%  "
            f"{edge:4.2f}  {s.median_to_decision:16,.0f}  {s.fixed_sample_size:17,}  {100 * s.decided_share:6.1f}%"
        )
    sim = simulate(SimulationSpec(n_models=10, n_instructions=500, seed=3))
    frame = sim.verdicts.assign(judged_at=np.random.default_rng(0).permutation(len(sim.verdicts)) + 1.7e9)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "table.csv"
        frame.to_csv(path, index=False)
        store = VerdictStore()
        store.load_file(path, text=True)
        models = store.models()
        for name, call in (
            ("one pair", lambda: monitor_pair(store, model_a=models[0], model_b=models[1])),
            ("leader", lambda: monitor_leader(store)),
        ):
            times = []
            for _ in range(5):
                t0 = time.process_time()
                result = call()
                times.append(time.process_time() - t0)
            print(
                f"{name}: {len(frame):,} verdicts, median CPU {1000 * np.median(times):.0f} ms; {result.sentence()}"
            )


if __name__ == "__main__":
    main()
