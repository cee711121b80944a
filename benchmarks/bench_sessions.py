"""Server memory and concurrent sessions, measured against a real ``streamlit run app.py``.

Two measurements (issue 11, items 6 and the load test), both printing figures, asserting nothing:

``memory`` (default): N browser sessions one after another, each opens the app, uploads its own
simulated CSV (different models each time, ``--rows`` rows), opens the Leaderboard and closes.
The server's resident memory (RSS, from /proc) is printed after each session and then while the
server sits idle after the last browser closed, so one sees whether a session's data comes back.

``uploads``: the issue-30 case. ``--sessions`` (20) sessions one after another, each uploads a
``--mb`` (50) MB CSV; every ``--refused-every``-th session (4) uploads a file of the same size
that is refused (one row's verdict is not a verdict), so refused uploads are measured too. Prints
the server's RSS at start, its peak, after the sessions ended (their TTL passed) and 60 s later.
``--concurrent k`` opens k sessions at once (waves of k), as users of a shared server do.
``--repeat`` runs the whole scenario on fresh servers and prints the medians.

``load``: ``--sessions`` Chromium sessions at once, each uploading a different file, then opening
the Leaderboard and the Anchors page. Reports errors (exception boxes, tracebacks in the server
log), cross-session leaks (a session drawing another session's model names), per-step medians
and the server's peak RSS.

Usage::

    python -m benchmarks.bench_sessions memory --sessions 10 --rows 200000
    python -m benchmarks.bench_sessions uploads --sessions 20 --mb 50
    python -m benchmarks.bench_sessions load --sessions 10

Needs Playwright and Debian's Chromium at /usr/bin/chromium (never ``playwright install``).
The server runs on 127.0.0.1 with a throw-away workspace.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evalcore.simulate.tables import JudgeSpec, SimulationSpec, simulate  # noqa: E402

CHROMIUM = os.environ.get("VERDICTLAB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
IDLE = '[data-testid="stApp"][data-test-connection-state="CONNECTED"][data-test-script-state="notRunning"]'
CHART = '[data-testid="stPlotlyChart"] .main-svg'
TIMEOUT_MS = 300_000


def rss_mb(pid: int) -> float:
    """Resident memory of a process in MB (VmRSS), or NaN when it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def where_resident(pid: int) -> str:
    """Resident MB by kind of mapping (/proc/PID/smaps): glibc's main heap, anonymous mappings
    (other arenas, mmapped blocks, DuckDB's and Arrow's allocators) and files (libraries)."""
    kinds = {"heap": 0, "anonymous": 0, "files": 0}
    kind = "anonymous"
    try:
        for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
            head = line.split()
            if len(head) >= 5 and "-" in head[0] and not line.startswith(("Rss", "Size")):
                name = head[5] if len(head) > 5 else ""
                kind = "heap" if name == "[heap]" else ("files" if name.startswith("/") else "anonymous")
            elif line.startswith("Rss:"):
                kinds[kind] += int(head[1])
    except OSError:
        return "smaps unreadable"
    return ", ".join(f"{k} {v / 1024:,.0f} MB" for k, v in kinds.items())


class Sampler(threading.Thread):
    """Samples a process's RSS every ``every`` seconds; keeps the peak."""

    def __init__(self, pid: int, every: float = 0.25) -> None:
        super().__init__(daemon=True)
        self.pid, self.every, self.peak, self._stop = pid, every, 0.0, threading.Event()

    def run(self) -> None:
        while not self._stop.is_set():
            value = rss_mb(self.pid)
            if value == value:
                self.peak = max(self.peak, value)
            time.sleep(self.every)

    def stop(self) -> None:
        self._stop.set()


class Server:
    """``streamlit run app.py`` on a free loopback port with its own workspace file."""

    def __init__(self, folder: Path, *, session_ttl: int | None = None) -> None:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        self.log = folder / "streamlit.log"
        #: When the process was started and when it first answered (``time.perf_counter``): a cold
        #: link is timed from both (the start-up hook may hold the answer while it loads).
        self.started = time.perf_counter()
        self.answered = float("nan")
        env = {**os.environ, "VERDICTLAB_WORKSPACE": str(folder / "ws.duckdb")}
        extra = [f"--server.disconnectedSessionTTL={session_ttl}"] if session_ttl else []
        with self.log.open("w") as out:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "streamlit",
                    "run",
                    "app.py",
                    "--server.headless=true",
                    "--server.address=127.0.0.1",
                    f"--server.port={port}",
                    "--browser.gatherUsageStats=false",
                    # (no file watcher: the project's .streamlit/config.toml, as the README's
                    # server; STREAMLIT_SERVER_FILE_WATCHER_TYPE=auto measures one with it)
                    "--server.maxUploadSize=1000",
                    *extra,
                ],
                cwd=ROOT,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2) as r:
                    if r.read().strip() == b"ok":
                        self.answered = time.perf_counter()
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"streamlit did not start:\n{self.log.read_text()}")

    @property
    def rss(self) -> float:
        return rss_mb(self.process.pid)

    def close(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()


def models_of(k: int, n: int) -> tuple[str, ...]:
    return tuple(f"s{k}-model{j}" for j in range(n))


def write_csv(folder: Path, k: int, *, models: int, instructions: int) -> Path:
    sim = simulate(
        SimulationSpec(
            n_models=models,
            n_instructions=instructions,
            model_names=models_of(k, models),
            judges=(JudgeSpec(f"s{k}-judge"),),
            seed=1000 + k,
        )
    )
    path = folder / f"session{k}.csv"
    sim.verdicts.drop(columns=["row"]).to_csv(path, index=False)
    return path


def idle(page) -> bool:
    return page.locator(IDLE).count() > 0


def open_page(page, title: str) -> None:
    page.get_by_test_id("stSidebar").get_by_role("link", name=title).click()


def memory(args: argparse.Namespace) -> None:
    from playwright.sync_api import sync_playwright

    folder = Path(tempfile.mkdtemp(prefix="bench_sessions_"))
    # rows = instructions × models × (models − 1): choose instructions for the asked row count
    instructions = max(10, args.rows // (args.models * (args.models - 1)))
    files = [
        write_csv(folder, k, models=args.models, instructions=instructions) for k in range(args.sessions)
    ]
    size = statistics.median(f.stat().st_size for f in files) / 1e6
    server = Server(folder, session_ttl=args.ttl)
    sampler = Sampler(server.process.pid)
    sampler.start()
    print(
        f"memory: {args.sessions} sessions one after another, each uploads a {size:.1f} MB CSV "
        f"({args.models} models, {instructions:,} instructions) and opens the Leaderboard; "
        f"session TTL {args.ttl} s"
    )
    print(f"  server RSS at start: {server.rss:,.0f} MB")
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for k, path in enumerate(files):
                started = time.perf_counter()
                context = browser.new_context(base_url=server.url)
                page = context.new_page()
                page.goto("/?dataset=demo-anchor")
                page.wait_for_selector(IDLE, state="attached", timeout=TIMEOUT_MS)
                page.locator(".st-key-upload").get_by_test_id("stFileUploaderDropzoneInput").set_input_files(
                    str(path)
                )
                page.get_by_text(f"Loaded: {path.name}").first.wait_for(timeout=TIMEOUT_MS)
                page.wait_for_selector(IDLE, state="attached", timeout=TIMEOUT_MS)
                open_page(page, "Leaderboard")
                page.wait_for_selector(CHART, timeout=TIMEOUT_MS)
                page.wait_for_selector(IDLE, state="attached", timeout=TIMEOUT_MS)
                context.close()
                print(
                    f"  after session {k + 1:>3}: RSS {server.rss:,.0f} MB "
                    f"({time.perf_counter() - started:.1f} s)",
                    flush=True,
                )
            browser.close()
        closed = time.monotonic()
        for mark in (5, args.ttl + 10, args.ttl + 40):  # before and after sessions expire
            time.sleep(max(0.0, closed + mark - time.monotonic()))
            print(f"  {mark:>3} s after the last browser closed: RSS {server.rss:,.0f} MB", flush=True)
        print(f"  peak RSS {sampler.peak:,.0f} MB")
    finally:
        sampler.stop()
        server.close()


def write_sized_csv(folder: Path, megabytes: float, *, refused: bool) -> Path:
    """A verdict CSV of about ``megabytes`` (12 simulated models); ``refused``: its last row's
    verdict is not a verdict, so the whole file is read and then refused in words."""
    path = folder / ("refused.csv" if refused else "upload.csv")
    rows_guess = int(megabytes * 1e6 / 38)
    sim = simulate(
        SimulationSpec(
            n_models=12, n_instructions=max(10, rows_guess // 132), judges=(JudgeSpec("j"),), seed=7
        )
    )
    frame = sim.verdicts.drop(columns=["row"])
    frame.to_csv(path, index=False)
    rows = int(len(frame) * megabytes * 1e6 / path.stat().st_size)
    frame = frame.iloc[: min(rows, len(frame))].copy()
    if refused:
        frame["verdict"] = frame["verdict"].astype("string")
        frame.iloc[-1, frame.columns.get_loc("verdict")] = "maybe"
    frame.to_csv(path, index=False)
    return path


def _upload_once(server: Server, files: list[Path], args: argparse.Namespace) -> dict[str, float]:
    from playwright.sync_api import sync_playwright

    sampler = Sampler(server.process.pid)
    sampler.start()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            # "start": the server once a first visitor has opened the demo (imports done, the
            # demo read once per process), as a server is after its first minute of use
            context = browser.new_context(base_url=server.url)
            page = context.new_page()
            page.goto("/?dataset=demo-anchor")
            page.wait_for_selector(IDLE, state="attached", timeout=TIMEOUT_MS)
            page.get_by_text("Loaded:").first.wait_for(timeout=TIMEOUT_MS)
            context.close()
            time.sleep(2)
            figures = {"start": server.rss}
            print(f"  server RSS at start (after a first visit): {figures['start']:,.0f} MB", flush=True)
            wave = max(1, args.concurrent)
            for first in range(0, len(files), wave):
                batch = list(enumerate(files))[first : first + wave]
                started = time.perf_counter()
                contexts = [browser.new_context(base_url=server.url) for _ in batch]
                pages = [c.new_page() for c in contexts]
                for page in pages:
                    page.goto("/?dataset=demo-anchor")
                for page in pages:
                    page.wait_for_selector(IDLE, state="attached", timeout=TIMEOUT_MS)
                for page, (_, path) in zip(pages, batch, strict=True):
                    page.locator(".st-key-upload").get_by_test_id(
                        "stFileUploaderDropzoneInput"
                    ).set_input_files(str(path))
                for page, (_, path) in zip(pages, batch, strict=True):
                    if path.name.startswith("refused"):
                        page.get_by_text("was not loaded").first.wait_for(timeout=TIMEOUT_MS)
                    else:
                        page.get_by_text(f"Loaded: {path.name}").first.wait_for(timeout=TIMEOUT_MS)
                    page.wait_for_selector(IDLE, state="attached", timeout=TIMEOUT_MS)
                for context in contexts:
                    context.close()
                print(
                    f"  after sessions {batch[0][0] + 1}-{batch[-1][0] + 1} "
                    f"({sum(p.name.startswith('refused') for _, p in batch)} refused): "
                    f"RSS {server.rss:,.0f} MB ({time.perf_counter() - started:.1f} s)",
                    flush=True,
                )
            browser.close()
        closed = time.monotonic()
        time.sleep(max(0.0, closed + args.ttl + 15 - time.monotonic()))
        figures["ended"] = server.rss
        print(
            f"  sessions ended ({args.ttl + 15} s after the last browser closed): RSS {figures['ended']:,.0f} MB"
        )
        time.sleep(60)
        figures["later"] = server.rss
        print(
            f"  60 s later: RSS {figures['later']:,.0f} MB ({where_resident(server.process.pid)})", flush=True
        )
        figures["peak"] = sampler.peak
        print(f"  peak RSS {figures['peak']:,.0f} MB")
    finally:
        sampler.stop()
    return figures


def uploads(args: argparse.Namespace) -> None:
    folder = Path(tempfile.mkdtemp(prefix="bench_uploads_"))
    good = write_sized_csv(folder, args.mb, refused=False)
    bad = write_sized_csv(folder, args.mb, refused=True)
    files = [bad if (k + 1) % args.refused_every == 0 else good for k in range(args.sessions)]
    print(
        f"uploads: {args.sessions} sessions one after another, each uploads a "
        f"{good.stat().st_size / 1e6:.0f} MB CSV ({sum(f is bad for f in files)} of them refused); "
        f"session TTL {args.ttl} s; load average {os.getloadavg()[0]:.2f}"
    )
    runs = []
    for run in range(args.repeat):
        print(f" run {run + 1} of {args.repeat}", flush=True)
        server = Server(folder, session_ttl=args.ttl)
        try:
            runs.append(_upload_once(server, files, args))
        finally:
            server.close()
    med = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
    print(
        f"medians over {len(runs)} run(s): start {med['start']:,.0f} MB, peak {med['peak']:,.0f} MB, "
        f"sessions ended {med['ended']:,.0f} MB (+{med['ended'] - med['start']:,.0f}), "
        f"60 s later {med['later']:,.0f} MB (+{med['later'] - med['start']:,.0f}); "
        f"load average {os.getloadavg()[0]:.2f}"
    )


def load(args: argparse.Namespace) -> None:  # noqa: C901 - one scripted scenario, step by step
    from playwright.sync_api import sync_playwright

    folder = Path(tempfile.mkdtemp(prefix="bench_load_"))
    files = [
        write_csv(folder, k, models=args.models, instructions=args.instructions) for k in range(args.sessions)
    ]
    every_model = {m for k in range(args.sessions) for m in models_of(k, args.models)}
    server = Server(folder)
    sampler = Sampler(server.process.pid)
    sampler.start()
    rss_start = server.rss
    steps: dict[str, list[float]] = {"open": [], "upload": [], "leaderboard": [], "anchors": []}
    errors: list[str] = []
    leaks: list[str] = []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            contexts = [
                browser.new_context(base_url=server.url, viewport={"width": 1400, "height": 1000})
                for _ in files
            ]
            pages = [c.new_page() for c in contexts]

            def wait_all(ready, step: str) -> None:
                started = time.perf_counter()
                done: dict[int, float] = {}
                deadline = time.monotonic() + TIMEOUT_MS / 1000
                while len(done) < len(pages):
                    if time.monotonic() > deadline:
                        raise RuntimeError(
                            f"{step}: sessions {set(range(len(pages))) - set(done)} did not finish"
                        )
                    for k, page in enumerate(pages):
                        if k not in done and idle(page) and ready(k, page):
                            done[k] = time.perf_counter() - started
                    pages[0].wait_for_timeout(100)
                steps[step] = [done[k] for k in range(len(pages))]

            for page in pages:
                page.goto("/?dataset=demo-anchor", wait_until="commit")
            wait_all(lambda k, p: p.get_by_text("Loaded:").count() > 0, "open")
            for page, path in zip(pages, files, strict=True):
                page.locator(".st-key-upload").get_by_test_id("stFileUploaderDropzoneInput").set_input_files(
                    str(path)
                )
            wait_all(lambda k, p: p.get_by_text(f"Loaded: {files[k].name}").count() > 0, "upload")
            for page in pages:
                open_page(page, "Leaderboard")
            wait_all(
                lambda k, p: (
                    p.locator(CHART).count() > 0
                    and p.locator("h1").first.inner_text().strip().endswith("Leaderboard")
                ),
                "leaderboard",
            )
            drawn_lb = [
                set(p.locator('[data-testid="stPlotlyChart"] text').all_text_contents()) for p in pages
            ]
            for page in pages:
                open_page(page, "Anchors")
            wait_all(lambda k, p: p.locator("h1").first.inner_text().strip().endswith("Anchors"), "anchors")
            for k, page in enumerate(pages):
                own = set(models_of(k, args.models))
                box = page.get_by_test_id("stException")
                if box.count():
                    errors.append(f"session {k}: {box.first.inner_text()[:200]}")
                for alert in page.get_by_test_id("stAlert").all():
                    if "unexpected problem" in alert.inner_text():
                        errors.append(f"session {k}: {alert.inner_text()[:200]}")
                drawn = drawn_lb[k] | set(
                    page.locator('[data-testid="stPlotlyChart"] text').all_text_contents()
                )
                if not own <= drawn:
                    leaks.append(f"session {k} misses its models {sorted(own - drawn)}")
                if drawn & (every_model - own):
                    leaks.append(f"session {k} shows {sorted(drawn & (every_model - own))}")
            for context in contexts:
                context.close()
            browser.close()
        log = server.log.read_text()
        errors += [line for line in log.splitlines() if "Traceback" in line]
        print(
            f"load: {args.sessions} concurrent Chromium sessions, each uploads its own CSV "
            f"({args.models} models, {args.instructions} instructions, all pairs) and opens "
            "the Leaderboard and the Anchors page"
        )
        print(f"  errors {len(errors)}, cross-session leaks {len(leaks)}")
        for step, times in steps.items():
            print(
                f"  {step:<12} median {statistics.median(times):6.1f} s, slowest "
                f"{max(times):6.1f} s (from the moment all sessions started the step)"
            )
        print(
            f"  server RSS: {rss_start:,.0f} MB at start, peak {sampler.peak:,.0f} MB, "
            f"{server.rss:,.0f} MB at the end"
        )
        for line in errors + leaks:
            print("  !", line)
    finally:
        sampler.stop()
        server.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="mode")
    m = sub.add_parser("memory", help="sessions one after another; RSS over time")
    m.add_argument("--sessions", type=int, default=10)
    m.add_argument("--rows", type=int, default=200_000, help="rows per uploaded CSV")
    m.add_argument("--models", type=int, default=12)
    m.add_argument(
        "--ttl",
        type=int,
        default=20,
        help="server.disconnectedSessionTTL in seconds (Streamlit's default is 120)",
    )
    m.set_defaults(run=memory)
    up = sub.add_parser("uploads", help="20 sessions of 50 MB uploads (some refused); RSS given back?")
    up.add_argument("--sessions", type=int, default=20)
    up.add_argument("--mb", type=float, default=50.0, help="size of each upload in MB")
    up.add_argument("--refused-every", type=int, default=4, help="every k-th upload is refused")
    up.add_argument("--ttl", type=int, default=20, help="server.disconnectedSessionTTL in seconds")
    up.add_argument("--repeat", type=int, default=1, help="fresh servers; medians printed")
    up.add_argument("--concurrent", type=int, default=1, help="sessions open at once (in waves)")
    up.set_defaults(run=uploads)
    lo = sub.add_parser("load", help="concurrent sessions: errors, leaks, medians, peak RSS")
    lo.add_argument("--sessions", type=int, default=10)
    lo.add_argument("--models", type=int, default=5)
    lo.add_argument("--instructions", type=int, default=40)
    lo.set_defaults(run=load)
    args = parser.parse_args()
    if args.mode is None:
        args = parser.parse_args(["memory"])
    args.run(args)


if __name__ == "__main__":
    main()
