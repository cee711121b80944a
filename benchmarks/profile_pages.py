"""Where a page's time goes: each page's first visit and its first real interaction (the widget
:mod:`benchmarks.bench_pages` changes), profiled in one process with cProfile.

The server's start-up work (:func:`ui.warm.warm_demo`) runs first, to the end, as on a server that
settled before its visitors came; then each page is opened in a new session (Streamlit's AppTest,
no browser), as a new visitor opens it, and its widget changed. Printed per page: the script's
wall and CPU seconds (the whole process: the script's thread and DuckDB's; profiled, so
above what the server spends), and the functions of the project (``evalcore/``, ``ui/``, ``pages/``) that
took the most time, cumulative, with the machine's load averages.

Usage::

    python -m benchmarks.profile_pages                       # every page but the Data page
    python -m benchmarks.profile_pages --pages power ties --top 25
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The widget each page's interaction sets in AppTest: (kind, label, choice or None for "another").
CHANGES: dict[str, tuple[str, str, str | None]] = {
    "overview": ("selectbox", "Judge", None),
    "leaderboard": ("toggle", "Both-orders verdicts", None),
    "anchors": ("selectbox", "Chosen anchor (highlighted in the figures, explored below)", None),
    "anchor_planning": ("toggle", "Both-orders verdicts", None),
    "judge": ("selectbox", "Category", None),
    "ties": ("selectbox", "Judge", "sim-judge-tie-happy"),
    "power": ("toggle", "Two-sided", None),
    "calibration": ("selectbox", "Candidate", None),
    "verdicts": ("toggle", "The two orders disagree", None),
}
PAGES = [
    "overview",
    "leaderboard",
    "anchors",
    "anchor_planning",
    "judge",
    "ties",
    "power",
    "calibration",
    "verdicts",
    "methods",
]


class Profiled:
    """cProfile switched on inside the script runner's thread for the runs asked for."""

    def __init__(self) -> None:
        self.profile: cProfile.Profile | None = None
        self.cpu = 0.0

    def install(self) -> None:
        from streamlit.runtime.scriptrunner import script_runner

        original = script_runner.ScriptRunner._run_script
        me = self

        def run(runner, rerun_data):  # noqa: ANN001 - Streamlit's own signature
            profile = me.profile
            start = time.thread_time()
            if profile is not None:
                profile.enable()
            try:
                return original(runner, rerun_data)
            finally:
                if profile is not None:
                    profile.disable()
                me.cpu += time.thread_time() - start

        script_runner.ScriptRunner._run_script = run

    def measure(self, action) -> tuple[float, float, cProfile.Profile]:
        self.profile, self.cpu = cProfile.Profile(), 0.0
        start, process = time.perf_counter(), time.process_time()
        action()
        wall, process = time.perf_counter() - start, time.process_time() - process
        profile, self.profile = self.profile, None
        return wall, process, profile


def report(profile: cProfile.Profile, top: int) -> str:
    out = io.StringIO()
    stats = pstats.Stats(profile, stream=out)
    stats.sort_stats("cumulative").print_stats(r"(evalcore|/ui/|pages)/", top)
    lines = [line for line in out.getvalue().splitlines() if "/" in line and line.strip()[:1].isdigit()]
    return "\n".join(lines)


def change(at, kind: str, label: str, choice: str | None):
    kinds = ("checkbox", "toggle") if kind != "selectbox" else (kind,)
    widget = next(w for k in kinds for w in getattr(at, k) if w.label == label)
    before = widget.value
    if kind == "selectbox":
        wanted = choice if choice is not None else next(o for o in widget.options if o != widget.value)
        return widget.set_value(wanted).run(), f"{label}: {before} → {wanted}"
    return widget.set_value(not widget.value).run(), f"{label} flipped"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", nargs="*", default=PAGES)
    parser.add_argument("--top", type=int, default=20)
    parser.add_argument("--no-warm", action="store_true", help="skip the server's start-up work")
    args = parser.parse_args()
    os.environ["VERDICTLAB_WARM"] = "0"  # run here, to the end, before the visits
    os.chdir(ROOT)
    from streamlit.testing.v1 import AppTest

    from ui import warm

    profiled = Profiled()
    profiled.install()
    warm.load_page_imports()  # as the server's start-up hook does before it answers
    start = time.perf_counter()
    if not args.no_warm:
        warm.warm_demo()
    print(f"start-up work {time.perf_counter() - start:.1f} s; load {os.getloadavg()}")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.run()  # imports and the session machinery once, as a server that answered before
    for name in args.pages:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
        at.run()  # the visitor's session, on the Data page (its demo copy)
        wall, cpu, profile = profiled.measure(
            lambda at=at, name=name: at.switch_page(f"pages/{name}.py").run()
        )
        assert not at.exception, [e.value for e in at.exception]
        print(f"\n== {name}: first visit {wall:.2f} s wall, {cpu:.2f} s CPU; load {os.getloadavg()[0]:.1f}")
        print(report(profile, args.top))
        if name in CHANGES:
            done: list[str] = []
            wall, cpu, profile = profiled.measure(
                lambda at=at, name=name, done=done: done.append(change(at, *CHANGES[name])[1])
            )
            assert not at.exception, [e.value for e in at.exception]
            print(f"-- {name}: {done[0]}: {wall:.2f} s wall, {cpu:.2f} s CPU")
            print(report(profile, args.top))


if __name__ == "__main__":
    main()
