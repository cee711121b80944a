"""Per-stage times of the Tie structure, Overview and Verdicts pages on the 1.8 M-battle arena table,
in one process, without a browser or a profiler.

The table is read (as the Data page reads a file from the server's data folder) afresh for each
page and run; the page's evalcore calls then run in a copy of the loaded store, as a visitor who
opens that page first after the load (nothing shared between pages or runs), with the page's own
defaults (the default judge, 1,000 leaderboard rounds, 200 rounds for the tie parameter). Printed
per stage: wall and CPU seconds (the whole process: DuckDB's threads too), medians of
``--repeat``, and the machine's load averages. The Overview's stages are its findings' cache
keys (:func:`evalcore.findings.run_analyses`, timed through its ``cache`` hook); the Tie
structure page's are the sections of :mod:`ui.ties_view` (the display tables and the CSV
downloads the page writes with it included); the Verdicts page's are its two queries. Run from
another checkout (``cd CHECKOUT && PYTHONPATH=CHECKOUT python THIS_FILE``) it times that
checkout's code with the same stages.

Usage::

    python -m benchmarks.bench_arena_stages                  # every page, medians of 3
    python -m benchmarks.bench_arena_stages --pages ties --repeat 1
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

Stages = dict[str, tuple[float, float]]


class Clock:
    """Wall and CPU seconds of named stages, in the order they ran."""

    def __init__(self) -> None:
        self.stages: Stages = {}

    def __call__(self, name: str, compute: Callable[[], Any]) -> Any:
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            return compute()
        finally:
            w, c = self.stages.get(name, (0.0, 0.0))
            self.stages[name] = (w + time.perf_counter() - wall, c + time.process_time() - cpu)


def ties_page(store, clock: Clock) -> None:
    """The Tie structure page's pairwise section on the default judge, every category."""
    from evalcore.judge_choice import publishing_judge
    from evalcore.present import ties as show
    from evalcore.ties import both_bad_share, judge_ties, labelled_counts, tie_conventions
    from evalcore.ties.conventions import ROUNDS
    from ui import widgets
    from ui.widgets import safe_csv

    judge = clock("default judge", lambda: publishing_judge(store).judge)
    counts = clock("counts", lambda: store.counts(judge=judge))
    labelled = clock("labelled counts", lambda: labelled_counts(store, judge, category=None))
    rule = next(iter(show.SCORE_RULE_NAMES))
    ties = clock("judge_ties", lambda: judge_ties(counts, labelled, human_ranking=None, score=rule))
    clock("both bad share", lambda: both_bad_share(store, judge=judge, category=None))
    result = ties.judge
    clock("level table and CSV", lambda: safe_csv(result.level_table()))
    rows = show.agreement_rows(result, ties.human)
    clock("agreement table", lambda: show.agreement_display(rows) if len(rows) else None)
    per = result.per_instruction
    # as the page draws them (an older page: every row, and the CSV written with the page)
    rows_shown = getattr(show, "PER_INSTRUCTION_ROWS", None)
    shown = {"limit": rows_shown} if rows_shown else {}
    clock("per-instruction display", lambda: show.per_instruction_display(per, **shown))
    if len(per) < getattr(widgets, "DEFERRED_CSV_ROWS", float("inf")):
        clock("per-instruction CSV", lambda: safe_csv(per))
    tc = clock("tie conventions", lambda: tie_conventions(counts, rounds=ROUNDS))
    clock("conventions table", lambda: (show.conventions_display(tc), safe_csv(tc.frame())))


def overview_page(store, clock: Clock) -> None:
    """The Overview's findings on the default judge (1,000 rounds, seed 0), one stage per cache key."""
    from evalcore.findings import headline_findings, run_analyses

    def cache(key: tuple, compute: Callable[[], Any]) -> Any:
        name = " ".join(str(k) for k in key[:2] if k is not None and not isinstance(k, bool))
        return clock(name, compute)

    analyses = clock("run_analyses (all)", lambda: run_analyses(store, rounds=1000, seed=0, cache=cache))
    clock("headline findings", lambda: headline_findings(analyses))


def verdicts_page(store, clock: Clock) -> None:
    """The Verdicts page's first draw: the default judge's cases, their statistics and the first page."""
    from evalcore.judge_choice import publishing_judge
    from evalcore.verdicts import VerdictFilter

    judge = publishing_judge(store).judge
    flt = VerdictFilter(judge=judge)
    clock("first page of cases", lambda: store.verdicts(flt, offset=0, limit=20))  # the page's order
    clock("case statistics", lambda: store.case_stats(flt))


PAGES = {"ties": ties_page, "overview": overview_page, "verdicts": verdicts_page}


def main() -> None:
    from benchmarks.bench_upload_pages import arena_file
    from evalcore.store.store import VerdictStore

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", nargs="*", choices=tuple(PAGES), default=list(PAGES))
    parser.add_argument("--arena", type=Path, default=None, help="the arena table (Parquet)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    table = arena_file(args.arena)
    print(f"load average at start: {os.getloadavg()}")
    runs: dict[str, list[Stages]] = {name: [] for name in args.pages}
    for r in range(args.repeat):
        for name in args.pages:
            # a visitor's session: a copy of a table read afresh (a copy shares what its source
            # keeps, such as its counts: a second copy of one source would find them made)
            loaded = VerdictStore().load_file(table)
            store = VerdictStore()
            store.load(loaded)
            clock = Clock()
            clock("page (all)", lambda name=name, store=store, clock=clock: PAGES[name](store, clock))
            runs[name].append(clock.stages)
            store.close()
            loaded.store.close()
            print(f"  run {r + 1} {name}: {clock.stages['page (all)'][0]:.2f} s; load {os.getloadavg()}")
    print(f"load average at end: {os.getloadavg()}")
    for name, stage_runs in runs.items():
        print(f"\n{name} (medians of {len(stage_runs)})\n{'stage':44} {'wall s':>7} {'cpu s':>6}")
        for stage in stage_runs[0]:
            wall = statistics.median(s.get(stage, (0.0, 0.0))[0] for s in stage_runs)
            cpu = statistics.median(s.get(stage, (0.0, 0.0))[1] for s in stage_runs)
            print(f"{stage[:44]:44} {wall:7.2f} {cpu:6.2f}")


if __name__ == "__main__":
    main()
