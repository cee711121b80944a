"""Where a page's time goes on the 1.8 M-battle arena table loaded from the server's data folder:
each page's first visit after the load, profiled in one process with cProfile (Streamlit's
AppTest, no browser), as :mod:`benchmarks.bench_upload_pages` opens it in Chromium.

A session opens the Data page with the data folder set to the arena file's folder, loads the file
with the page's own button (the same ui glue as in the browser), then opens each page asked for in
turn, in that session (the first visit of each page after the load). Printed per page: wall and
CPU seconds of the visit (the whole process: the script's thread and DuckDB's; profiled, so above
what the server spends), the stages the page's evalcore calls spent (``--stages``, not profiled),
and the project's functions that took the most time, cumulative, with the machine's load averages.

Usage::

    python -m benchmarks.profile_arena_pages --pages ties overview verdicts --top 30
    python -m benchmarks.profile_arena_pages --no-profile      # wall and CPU only
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from benchmarks.profile_pages import ROOT, Profiled


def report(profile, top: int, *, sort: str = "cumulative") -> str:
    """The project's functions (evalcore, ui, pages) that took the most time."""
    import io
    import pstats

    out = io.StringIO()
    pstats.Stats(profile, stream=out).sort_stats(sort).print_stats(r"(evalcore|/ui/|pages)/", top)
    lines = [line for line in out.getvalue().splitlines() if "/" in line and line.strip()[:1].isdigit()]
    return "\n".join(lines)


def main() -> None:
    from benchmarks.bench_upload_pages import arena_file

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", nargs="*", default=["ties", "overview", "verdicts"])
    parser.add_argument("--arena", type=Path, default=None, help="the arena table (Parquet)")
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--no-profile", action="store_true", help="wall and CPU only, no cProfile")
    parser.add_argument("--sort", default="cumulative", help="pstats order (cumulative, tottime)")
    args = parser.parse_args()
    table = arena_file(args.arena)
    os.environ["VERDICTLAB_WARM"] = "0"  # the demo's start-up work is not the pages' time
    os.environ["VERDICTLAB_DATA_DIR"] = str(table.parent)
    os.chdir(ROOT)
    from streamlit.testing.v1 import AppTest

    profiled = Profiled()
    profiled.install()
    print(f"load average at start: {os.getloadavg()}")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    at.run()
    start = time.perf_counter()
    pick = next(w for w in at.selectbox if w.label == "File in the data folder")
    pick.set_value(table.name).run()
    next(b for b in at.button if b.label == "Load this file").click().run()
    assert not at.exception, [e.value for e in at.exception]
    print(f"loaded {table.name} in {time.perf_counter() - start:.2f} s")
    for name in args.pages:
        visit = lambda at=at, name=name: at.switch_page(f"pages/{name}.py").run()  # noqa: E731
        if args.no_profile:
            wall, cpu = time.perf_counter(), time.process_time()
            visit()
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            profile = None
        else:
            wall, cpu, profile = profiled.measure(visit)
        assert not at.exception, [e.value for e in at.exception]
        print(f"\n== {name}: first visit {wall:.2f} s wall, {cpu:.2f} s CPU; load {os.getloadavg()}")
        if profile is not None:
            print(report(profile, args.top, sort=args.sort))


if __name__ == "__main__":
    main()
