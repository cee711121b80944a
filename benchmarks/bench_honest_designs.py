"""Known-truth simulations of issue 25 ("Honest numbers II"), items 1, 2 and 3: the coverage of an
undefeated model's one-sided bound, the error rate of the printed gate on a slot-confounded pair,
and how often the Overview names a one-slot reference the leader (see ``tests/honest_sim.py``).

    python -m benchmarks.bench_honest_designs [--tables 200]

Run against another checkout (``PYTHONPATH=/path/to/other``, first on the path) for its figures.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.honest_sim import confounded_gate_errors, one_slot_leader, undefeated_coverage  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tables", type=int, default=200)
    args = ap.parse_args()
    n = args.tables
    print("undefeated bound:", undefeated_coverage(n, interval="sandwich", rounds=20), flush=True)
    print("gate, one slot order:", confounded_gate_errors(n), flush=True)
    print("gate, both orders:", confounded_gate_errors(n, both_orders=True), flush=True)
    print("one-slot reference:", one_slot_leader(n), flush=True)


if __name__ == "__main__":
    main()
