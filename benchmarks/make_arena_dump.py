"""Write a simulated Chatbot Arena dump: ``python -m benchmarks.make_arena_dump OUT_DIR``.

Writes ``clean_battle_sim.json`` (the published battle format: one JSON array, 1.8 M battles,
129 models, about 35% ties, one prompt per battle) and ``clean_battle_sim.parquet`` (the same
battles as a verdict table) using :func:`evalcore.simulate.tables.simulate_arena`.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from evalcore.simulate.tables import simulate_arena, write_arena_dump


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("--battles", type=int, default=1_800_000)
    parser.add_argument("--models", type=int, default=129)
    parser.add_argument("--ties", type=float, default=0.35)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    sim = simulate_arena(n_battles=args.battles, n_models=args.models, tie_share=args.ties, seed=args.seed)
    write_arena_dump(
        sim, args.out / "clean_battle_sim.json", parquet_path=args.out / "clean_battle_sim.parquet"
    )
    size = (args.out / "clean_battle_sim.json").stat().st_size
    print(
        f"{sim.n_battles:,} battles, {len(sim.models)} models, {sim.tie_share:.1%} ties; "
        f"JSON {size / 1e9:.2f} GB; {time.perf_counter() - start:.1f} s"
    )


if __name__ == "__main__":
    main()
