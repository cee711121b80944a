"""Style control on a Chatbot-Arena-sized table: seconds and memory of the fetch and the fit.

``python -m benchmarks.bench_style [--battles 1800000] [--models 129] [--repeats 3]``: simulates
arena battles (one prompt per battle, about 35% ties) with per-answer lengths and Markdown counts
and injected effects (:func:`evalcore.simulate.tables.simulate_arena`), loads them into a store, then
times :meth:`VerdictStore.style_rows` (DuckDB: features, grouping, numbering → arrays) and
:func:`evalcore.ranking.style.style_control` (Newton fit with length, Markdown and position, plus
the instruction-clustered sandwich). Prints medians over ``--repeats`` and the peak of memory
allocated by Python and numpy during each step (tracemalloc; DuckDB's own memory is not in it),
with the process's peak resident size. Not a test: nothing is asserted.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time
import tracemalloc

from evalcore.ranking.style import style_control
from evalcore.simulate.tables import arena_verdict_frame, simulate_arena
from evalcore.store.store import VerdictStore

EFFECTS = {"length": 0.8, "headers": 0.2, "bold": 0.1, "lists": 0.4}
CONTROLS = ("length", "markdown", "position")


def _measure(step):
    tracemalloc.start()
    start = time.perf_counter()
    out = step()
    seconds = time.perf_counter() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return out, seconds, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--battles", type=int, default=1_800_000)
    parser.add_argument("--models", type=int, default=129)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    start = time.perf_counter()
    sim = simulate_arena(
        n_battles=args.battles, n_models=args.models, style_effects=EFFECTS, slot_bias=0.1, seed=0
    )
    store = VerdictStore()
    store.load(arena_verdict_frame(sim))
    print(
        f"{sim.n_battles:,} battles, {len(sim.models)} models: simulated and loaded in {time.perf_counter() - start:.1f} s"
    )

    fetch, fit, fetch_peak, fit_peak = [], [], [], []
    result = None
    for _ in range(args.repeats):
        rows, seconds, peak = _measure(lambda: store.style_rows(judge="arena", features=tuple(EFFECTS)))
        fetch.append(seconds)
        fetch_peak.append(peak)
        result, seconds, peak = _measure(lambda rows=rows: style_control(rows, controls=CONTROLS))
        fit.append(seconds)
        fit_peak.append(peak)
    assert result is not None
    mb = 1024**2
    print(
        f"style_rows (DuckDB → arrays): median {statistics.median(fetch):.2f} s, peak {statistics.median(fetch_peak) / mb:,.0f} MiB"
    )
    print(
        f"style_control (fit + sandwich): median {statistics.median(fit):.2f} s, peak {statistics.median(fit_peak) / mb:,.0f} MiB"
    )
    print(f"process peak resident size: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MiB")
    print(f"converged: {result.converged}; Kendall tau controlled vs uncontrolled: {result.kendall_tau:.3f}")
    print("  coefficients (logit per standard deviation); injected = the simulated effect on that scale,")
    print("  which the fit shrinks when ties are counted as half wins (Davidson ties, 35% here):")
    for c in result.coefficients:
        injected = EFFECTS.get(c.name, 0.1 if c.name == "position" else 0.0) * c.scale
        print(
            f"  {c.name:>8}: {c.estimate.value:+.4f} [{c.estimate.low:+.4f}, {c.estimate.high:+.4f}] "
            f"(injected {injected:+.4f})"
        )


if __name__ == "__main__":
    main()
