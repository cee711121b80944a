"""Per-page response times of the bundled demo in headless Chromium against ``streamlit run app.py``.

Figures per page, each the median of ``--repeat`` runs, printed with the server's CPU
seconds over the same span (the server process, all its threads, from /proc: on a shared, loaded
machine wall time says how busy the machine was, CPU time what the page itself cost):

* **cold link**: a freshly started server, the page's own address as its very first request, until
  the full page is drawn (the script stopped running). Timed twice: from the server's first
  answer (its health check; app.py's start-up hook holds that answer until the libraries are
  loaded and the demo is read) and from the server's process start (``streamlit run``). A fresh server per page and run; the request
  is sent as soon as the server answers, or ``--cold-after`` seconds later (a visitor who comes
  after the server started: its start-up hook, app.py's, computes meanwhile).
* **first visit**, three ways a person first sees a page, on a server that has answered before
  (the start-up work of ``ui.warm`` had the time a real server has between starting and its
  visitors: ``--settle`` seconds), each until the page is drawn (the run's end handled and the
  script idle) and until it settled (its charts and tables painted: the browser's main thread
  quiet for :data:`QUIET_MS`):

  - **in-app**: in a session opened on the Data page and settled, a click on the page's link in
    the sidebar (a page not yet seen in the session), timed from the press on the link (the Data
    page's own from a session opened on the Methods page);
  - **new tab**: a browser that has opened the app once before (its HTTP cache warm: it loaded
    the Data page, then closed that tab), a new tab opened on the page's address, timed from its
    navigation start;
  - **fresh browser**: a brand-new browser context (empty HTTP cache) opening the page's address,
    timed from its navigation start: Streamlit's front end alone takes most of a second before
    the server is asked to run the page. Measured first, before the other two.

  A page's run is the same in all three (a new session of the page's script); what differs is
  the browser's work before and around it.
* **widget change**: in the fresh browser's session, once the page has settled (a press on a page
  still drawing is taken late or lost: the widget step saw no run in some runs), the page's first real
  interaction (:data:`WIDGETS`: its main drop-down set to another choice, or its main switch
  flipped; on a page not listed there, its first switch, else its first drop-down set to a choice
  other than the current one), from the press on the widget to the page drawn again, and to the
  page settled. The change made is printed beside the figure. A change that draws no run within
  :data:`NO_RUN_SECONDS` (a choice equal to the current one, a widget not found) is reported as
  an error in words, never waited for until a time-out.

Times are read on the page's own clock (``performance.now()``; :data:`WATCH`), so the
benchmark's polling and its round trips to the browser are not counted. Each figure is printed
with the server's CPU seconds and this benchmark's Chromium's CPU seconds over the same span: on
this 2-core machine the browser's drawing (Streamlit's own scripts, Plotly's 4.7 MB script,
the charts and tables) costs several times the server's work of a first visit or a widget change.

While a cold link runs, the page's visible words are sampled every 0.1 s on its own clock
(:data:`SAMPLE`, from its navigation start until it is drawn): the main column's text beside its
title, and the words of a status (a spinner's, a progress bar's, or the page's own status line,
:data:`STATUS`; Streamlit's "Running..." indicator says nothing of what is computed and does not
count; the sentence the server's HTML page carries until the page draws, :mod:`ui.opening`, does).
Printed per page: when the app's frame first showed, when its first words beside the title showed
(from the server's first answer), whether every sample from the document's first paint on showed
either content or a status sentence ("said"), and the longest blank stretch (neither).

Usage::

    python -m benchmarks.bench_pages                     # every page, 3 runs
    python -m benchmarks.bench_pages --pages overview judge --repeat 1

Needs Playwright and Debian's Chromium at /usr/bin/chromium (never ``playwright install``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from benchmarks.bench_sessions import CHROMIUM, CHROMIUM_ARGS, IDLE, Server
from ui.navigation import NAVIGATION

TIMEOUT_MS = 300_000
#: Page name in the address → its title in the sidebar ("" is the Data page, app.py).
PAGES = {Path(file).stem if file != "app.py" else "": label for file, label, _ in NAVIGATION}
#: What says in words what a page computes: a spinner, a progress bar, the page's status line
#: (:func:`ui.navigation.page`'s keyed container). Streamlit's "Running..." indicator is not one.
STATUS = '[data-testid="stSpinner"], [data-testid="stProgress"], .st-key-vl_status'


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process (all its threads) from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


#: Installed in every page before it loads. Records, on the page's own clock (milliseconds from
#: its navigation start, ``performance.now()``):
#:
#: * each change of the app's script state ("running", "notRunning"; also the state the app is
#:   first drawn in), so a run is seen however short it is (polling for the running state missed
#:   fast runs and then waited for its time-out);
#: * when each run starts and ends as the server says it: the websocket messages that open a run
#:   (``new_session``, field 4 of Streamlit's ``ForwardMsg``) and close it (``script_finished``,
#:   field 6, unless it ended early for a rerun), read from the message's top-level protobuf
#:   fields as the page receives them. The
#:   script-state attribute alone can miss a run: when the page is busy drawing, the messages that
#:   start and end a short run are handled in one go and the attribute never leaves "notRunning";
#: * the main thread's long tasks (over 50 ms: drawing charts and tables), whose end says when the
#:   page is drawn and answers input again;
#: * the pointer presses (a widget change starts at its press: the benchmark's own polling and
#:   round trips are not counted).
WATCH = """
(() => {
  const R = window.__vl = {states: [], started: [], finished: [], long: [], press: []};
  window.__vlRuns = [];
  const now = () => performance.now();
  new MutationObserver(() => {
    const app = document.querySelector('[data-testid="stApp"]');
    const state = app && app.getAttribute("data-test-script-state");
    if (state && state !== window.__vlRuns[window.__vlRuns.length - 1]) {
      window.__vlRuns.push(state);
      R.states.push([now(), state]);
    }
  }).observe(document, {attributes: true, childList: true, subtree: true});
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) R.long.push([e.startTime, e.startTime + e.duration]);
    }).observe({type: "longtask", buffered: true});
  } catch (e) {}
  document.addEventListener("pointerdown", (ev) => R.press.push(ev.timeStamp), true);
  const fields = (bytes) => {  // top-level field number -> its value (a varint) or true
    const out = new Map();
    let i = 0;
    const varint = () => {
      let x = 0, shift = 0, c = 0;
      do { c = bytes[i++]; x += (c & 0x7f) * 2 ** shift; shift += 7; } while (c & 0x80 && i < bytes.length);
      return x;
    };
    while (i < bytes.length) {
      const tag = varint(), wire = tag & 7, field = Math.floor(tag / 8);
      if (wire === 0) out.set(field, varint());
      else if (wire === 1) { i += 8; out.set(field, true); }
      else if (wire === 2) { const n = varint(); i += n; out.set(field, true); }  // i read after
      else if (wire === 5) { i += 4; out.set(field, true); }
      else break;
    }
    return out;
  };
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (ev) => {
        const t = now();
        const seen = (data) => {
          const f = fields(new Uint8Array(data));
          if (f.has(4)) R.started.push(t);
          if (f.has(6) && f.get(6) !== 2) R.finished.push(t);  // 2: ended early for a rerun
        };
        if (ev.data instanceof ArrayBuffer) seen(ev.data);
        else if (ev.data instanceof Blob) ev.data.arrayBuffer().then(seen);
      });
    }
  };
})();
"""
#: True once a run began after the mark (``window.__vlMark``, a time on the page's clock) and
#: the last run begun since has ended, the page idle and connected, with a title drawn. The runs
#: are read from the server's messages; from the script state only when none was seen.
DRAWN = """() => {
  const R = window.__vl, mark = window.__vlMark || 0;
  const idle = !!document.querySelector('IDLE') && !!document.querySelector("h1");
  const started = R.started.filter((t) => t >= mark);
  if (started.length) return idle && R.finished.some((t) => t >= Math.max(...started));
  const states = R.states.filter(([t]) => t >= mark);
  const begun = states.findIndex(([, s]) => s === "running");
  return idle && begun >= 0 && states.slice(begun).some(([, s]) => s === "notRunning");
}""".replace("IDLE", IDLE.replace('"', '\\"'))
#: When the run that :data:`DRAWN` waited for was drawn (page clock, ms): the server's end-of-run
#: message as the page handled it, or the app's script state turning idle after it if later.
DRAWN_AT = """() => {
  const R = window.__vl, mark = window.__vlMark || 0;
  const ended = Math.max(mark, ...R.finished.filter((t) => t >= mark));
  const idle = R.states.filter(([t, s]) => t >= ended && s === "notRunning").map(([t]) => t);
  return Math.max(ended, ...idle);
}"""
#: Seconds of quiet (no long task, every timer on time) after which a drawn page counts as
#: settled: its charts and tables painted, answering input at once.
QUIET_MS = 500
#: Resolves once the page's main thread has been quiet for ``quiet`` ms (its 50-ms timers all on
#: time and no new long task): the time (page clock, ms) the last work before that quiet ended.
SETTLE = """async (quiet) => {
  const R = window.__vl, tick = 50, limit = performance.now() + 120000;
  let busyUntil = performance.now(), seen = R.long.length;
  let before = performance.now();
  while (performance.now() < limit) {
    await new Promise((ok) => setTimeout(ok, tick));
    const t = performance.now();
    if (t - before > 2 * tick) busyUntil = t;  // a late timer: the thread was busy
    if (R.long.length !== seen) {
      seen = R.long.length;
      busyUntil = Math.max(busyUntil, ...R.long.map(([, end]) => end));
    }
    before = t;
    if (t - busyUntil >= quiet) return busyUntil;
  }
  return busyUntil;
}"""


#: Installed in a cold link's page only (its cost would count in the first visits' figures): every
#: 0.1 s from the page's start, on its clock, [ms, the app's frame shown, the status's words (""
#: when none; the server's opening sentence, :mod:`ui.opening`, counts as one), characters of the
#: main column's text beside its title and the status, the document's body parsed].
SAMPLE = """
(() => {
  const S = window.__vlText = [];
  const words = (e) => {  // an element's words, without its icons' names
    const copy = e.cloneNode(true);
    copy.querySelectorAll('[data-testid="stIconMaterial"], [data-testid="stAlertDynamicIcon"]').forEach((i) => i.remove());
    return (copy.textContent || "").replace(/\\s+/g, " ").trim();
  };
  const tick = () => {
    const main = document.querySelector('[data-testid="stMain"]');
    let status = "", rest = 0;
    if (main) {
      const busy = [...main.querySelectorAll('STATUS')].filter((e) => e.getClientRects().length);
      status = busy.map(words).filter((t) => t).join(" | ");
      let text = main.innerText;
      for (const e of [...main.querySelectorAll("h1"), ...busy]) text = text.replace(e.innerText, "");
      rest = text.replace(/\\s+/g, "").length;
    }
    const opening = document.getElementById("vl-opening");  // the server's HTML page's sentence
    if (opening && opening.getClientRects().length) status = [words(opening), status].filter((t) => t).join(" | ");
    const app = !!document.querySelector('[data-testid="stApp"]');
    S.push([performance.now(), app, status, rest, !!(document.body && document.body.childElementCount)]);
  };
  tick();
  setInterval(tick, 100);
})();
""".replace("STATUS", STATUS)
#: A status's words must say something: at least this many words of letters ("Running..." does not).
STATUS_WORDS = 2


@dataclass
class Words:
    """What a cold link's page showed before it was drawn (page clock, seconds from navigation):
    the app's frame, its first words beside the title (a status or content), whether every sample
    from the document's first paint (its body parsed) on showed content or a status sentence, the
    longest stretch that showed neither, and the statuses said in order."""

    frame: float
    first: float
    said: bool
    blank: float
    statuses: list[str]


def words(samples: list, drawn_ms: float) -> Words:
    """Read :data:`SAMPLE`'s samples up to the page drawn (``drawn_ms``, page clock)."""
    nan = float("nan")
    kept = [s for s in samples if s[0] <= drawn_ms]
    framed = [s for s in kept if s[1]]
    painted = [s for s in kept if s[4]]  # from the browser's first paint of the page

    def told(status: str) -> bool:
        return sum(any(c.isalpha() for c in w) for w in status.split()) >= STATUS_WORDS

    shown = [(t, rest > 0 or told(status)) for t, _, status, rest, *_ in painted]
    first = next((t for t, ok in shown if ok), nan)
    blank, since = 0.0, None
    for t, ok in [*shown, (drawn_ms, True)]:
        if not ok and since is None:
            since = t
        elif ok and since is not None:
            blank, since = max(blank, t - since), None
    statuses = list(dict.fromkeys(status for _, _, status, *_ in painted if status))
    frame = framed[0][0] if framed else nan
    return Words(frame / 1000, first / 1000, all(ok for _, ok in shown), blank / 1000, statuses)


def watch(context) -> None:
    """Record the script's runs in every page of ``context`` (see :data:`WATCH`)."""
    context.add_init_script(WATCH)


def mark(page) -> float:
    """Runs recorded from now on count for :func:`wait_drawn` (before a widget is changed); the
    mark's time on the page's clock (ms)."""
    return float(page.evaluate("() => (window.__vlMark = performance.now())"))


def wait_drawn(page, *, timeout_ms: int = TIMEOUT_MS) -> float:
    """Until a run that began after the last :func:`mark` (or the page's loading) has ended, the
    page connected and idle, with its title drawn: when it was drawn (page clock, ms)."""
    try:
        page.wait_for_function(DRAWN, timeout=timeout_ms, polling=50)
    except Exception:  # a time-out: what the page saw, to tell a stuck run from a missed end
        seen = page.evaluate("() => [window.__vlMark || 0, window.__vl, performance.now()]")
        print(f"  not drawn in {timeout_ms / 1000:g} s; the page saw (mark, runs, now): {seen}", flush=True)
        raise
    return float(page.evaluate(DRAWN_AT))


def settle(page, drawn: float) -> float:
    """Until the page's main thread is quiet (:data:`QUIET_MS`): when the drawing that followed
    ``drawn`` ended (page clock, ms), at least ``drawn``."""
    return max(drawn, float(page.evaluate(SETTLE, QUIET_MS)))


#: Each page's first real interaction: (kind, the widget's label, the choice to make or None for
#: the choice after the current one). Chosen per page, not "the first widget found":
#: the first drop-down of most pages is the judge picker, whose second choice is the judge the
#: page opens on (the library's default judge), so setting it drew no run.
WIDGETS: dict[str, tuple[str, str, str | None] | None] = {
    "": None,  # the Data page: its interaction is loading data (benchmarks.bench_upload_pages)
    "overview": ("drop-down", "Judge", None),
    "leaderboard": ("switch", "Both-orders verdicts", None),
    "anchors": ("drop-down", "Chosen anchor (highlighted in the figures, explored below)", None),
    "anchor_planning": ("switch", "Both-orders verdicts", None),
    # named: its first switch asks for the slower resampling, and on a page still drawing the
    # switch was missing, so the category was changed instead
    "judge": ("drop-down", "Category", None),
    "ties": ("drop-down", "Judge", "sim-judge-tie-happy"),  # the page's point: the tie-happy judge
    "power": ("switch", "Two-sided", None),
    "calibration": ("drop-down", "Candidate", None),
    "verdicts": ("switch", "The two orders disagree", None),
    "methods": None,  # text only
}
#: Seconds a widget change may take to start a run of the page before it is reported as drawing none.
NO_RUN_SECONDS = 10.0
#: True once a run began after the mark (its opening message, or the running state).
STARTED = """() => window.__vl.started.some((t) => t >= (window.__vlMark || 0))
  || window.__vl.states.some(([t, s]) => t >= (window.__vlMark || 0) && s === "running")"""


class NoRun(Exception):
    """A widget change that could not be made or drew no run of the page (its words say which)."""


def _labelled(main, test_id: str, label: str):
    """The widget labelled ``label``, waited for a little (a page may still draw below its title)."""
    found = main.get_by_test_id(test_id).filter(has=main.page.get_by_text(label, exact=True)).first
    try:
        found.wait_for(state="attached", timeout=NO_RUN_SECONDS * 1000)
    except Exception:  # noqa: BLE001 - Playwright's time-out: the caller says it is missing
        pass
    return found


def flip(page, label: str | None) -> tuple[str, Callable[[], None] | None]:
    """Find the switch labelled ``label`` (the first switch when None): what flipping it does and
    the action that flips it (None when the page has no switch)."""
    main = page.get_by_test_id("stMain")
    if label is None:
        toggles = main.locator('[data-testid="stCheckbox"] label:not([disabled])')
        if not toggles.count():
            return "", None
        box, label = toggles.first, toggles.first.inner_text().strip()
    else:
        box = _labelled(main, "stCheckbox", label).locator("label")
        if not box.count():
            raise NoRun(f"no switch labelled \u201c{label}\u201d on the page")
    return f"switch \u201c{label}\u201d", box.click


def choose(page, label: str | None, choice: str | None) -> tuple[str, Callable[[], None] | None]:
    """Open the drop-down labelled ``label`` (the first when None): what setting it to ``choice``
    (when None, the choice after the current one) does and the action that picks it."""
    main = page.get_by_test_id("stMain")
    if label is None:
        boxes = main.get_by_test_id("stSelectbox")
        if not boxes.count():
            return "", None
        box = boxes.first
        label = box.get_by_test_id("stWidgetLabel").inner_text().strip()
    else:
        box = _labelled(main, "stSelectbox", label)
        if not box.count():
            raise NoRun(f"no drop-down labelled \u201c{label}\u201d on the page")
    current = box.locator('input[role="combobox"]').input_value().strip()
    box.click()
    options = page.get_by_role("option")
    texts = [options.nth(i).inner_text().strip() for i in range(options.count())]
    wanted = choice
    if wanted is None and len(texts) > 1:  # the choice after the current one (the first after the last)
        wanted = texts[(texts.index(current) + 1) % len(texts)] if current in texts else texts[0]
    if wanted is None or wanted == current or wanted not in texts:
        page.keyboard.press("Escape")
        why = (
            f"it offers only \u201c{current}\u201d"
            if wanted is None
            else f"\u201c{wanted}\u201d is not another choice"
        )
        raise NoRun(f"drop-down \u201c{label}\u201d cannot be changed: {why}")
    return f"drop-down \u201c{label}\u201d: {current} \u2192 {wanted}", options.nth(texts.index(wanted)).click


def find_widget(page, name: str = "") -> tuple[str, Callable[[], None] | None]:
    """The page's first real interaction (:data:`WIDGETS`; on a page not listed, its first
    switch, else its first drop-down set to another choice): what it does and the action that
    makes it (None when the page has no such widget). Raises :class:`NoRun` when it cannot be
    made."""
    if name in WIDGETS and WIDGETS[name] is None:
        return "", None
    kind, label, choice = WIDGETS.get(name) or ("", None, None)
    if kind == "switch":
        return flip(page, label)
    if kind == "drop-down":
        return choose(page, label, choice)
    found = flip(page, None)
    return found if found[1] is not None else choose(page, None, None)


@dataclass
class Change:
    """A widget change on the page's clock, in seconds from the press on the widget: until the
    server's run began (``started``: the press handled, the request sent, the run begun), until
    the page was drawn (``drawn``: the run's end handled and the script state idle; the figure
    compared with the targets, as before) and until the page settled (``settled``: its charts
    and tables painted, see :func:`settle`)."""

    started: float
    drawn: float
    settled: float


def change_widget(page, act: Callable[[], None], done: str) -> Change:
    """Make the change (``act``) on a settled page and wait until the run it started is drawn and
    the page settled. Timed on the page's clock from the press on the widget, so neither the
    benchmark's polling nor its round trips to the browser are counted."""
    settle(page, 0.0)  # a page still drawing takes a press late, or loses it (the flaky runs)
    marked = mark(page)
    act()
    return wait_changed(page, done, marked)


def wait_changed(page, done: str, marked: float = 0.0) -> Change:
    """Until the run a widget change started has ended and the page settled; :class:`NoRun` when
    none starts within :data:`NO_RUN_SECONDS`."""
    try:
        page.wait_for_function(STARTED, timeout=NO_RUN_SECONDS * 1000, polling=20)
    except Exception as exc:  # noqa: BLE001 - Playwright's time-out: the change drew no run
        raise NoRun(f"{done} drew no run of the page within {NO_RUN_SECONDS:g} s") from exc
    drawn = wait_drawn(page)
    settled = settle(page, drawn)
    got = page.evaluate(
        """(m) => [window.__vl.press.filter((t) => t >= m)[0] ?? m,
                   window.__vl.started.filter((t) => t >= m)[0] ?? m]""",
        marked,
    )
    press, started = float(got[0]), float(got[1])
    return Change((started - press) / 1000, (drawn - press) / 1000, (settled - press) / 1000)


def timed(server: Server, action) -> tuple[float, float, object]:
    cpu, start = cpu_seconds(server.process.pid), time.perf_counter()
    out = action()
    return time.perf_counter() - start, cpu_seconds(server.process.pid) - cpu, out


def browser_cpu() -> float:
    """CPU seconds of this benchmark's own Chromium processes (its descendants, not another
    job's browser), from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry.name))
    total, todo = 0.0, list(children.get(os.getpid(), []))
    while todo:
        pid = todo.pop()
        todo.extend(children.get(pid, []))
        try:
            if b"chrom" in Path(f"/proc/{pid}/cmdline").read_bytes():
                total += cpu_seconds(pid)
        except OSError:
            continue
    return total


#: A cold link: seconds from the server's first answer and from its process start to the page
#: drawn, the server's CPU seconds over the visit, what the page showed meanwhile, and the
#: seconds from the server's first answer to the page's navigation start.
Cold = tuple[float, float, float, Words, float]


def cold_link(pw, name: str, folder: Path, after: float = 0.0) -> Cold:
    """A fresh server; the page's address as its first request, ``after`` seconds once the server
    answers (its start-up hook's work runs meanwhile): see :data:`Cold`.

    Both times end when the page is drawn (on the page's clock, from its navigation start). The
    browser is started before the server, so the second time is the server's start-up (which may
    hold its first answer while it loads the libraries and reads the demo) plus the visit,
    without the browser's own start."""
    browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    context = browser.new_context()
    watch(context)
    context.add_init_script(SAMPLE)
    page = context.new_page()
    server = Server(folder)
    try:
        time.sleep(after)
        cpu = cpu_seconds(server.process.pid)
        asked = time.perf_counter()
        page.goto(f"{server.url}/{name}", wait_until="commit")
        wait_drawn(page)
        drawn = float(page.evaluate(DRAWN_AT))
        cpu = cpu_seconds(server.process.pid) - cpu
        seen = words(page.evaluate("() => window.__vlText"), drawn)
        answered = asked - (server.answered + after)
        return answered + drawn / 1000, asked - server.started + drawn / 1000, cpu, seen, answered
    finally:
        browser.close()
        server.close()


@dataclass
class First:
    """A first visit: seconds until the page was drawn and until it settled (page clock, from the
    navigation start or the press on a link), the server's and this benchmark's Chromium's CPU
    seconds over it."""

    drawn: float
    settled: float
    cpu: float
    chrome: float


#: One page's visits: the fresh browser's first visit drawn and settled (s, page clock from its
#: navigation start), server and browser CPU s over it; the widget change (:class:`Change`, None
#: when the page has none or it failed), server and browser CPU s over it; what it did; the
#: in-app and the new-tab first visits (:class:`First`).
Visit = tuple[float, float, float, float, "Change | None", float, float, str, First, First]

#: The page a session opens on before it follows a sidebar link to the Data page (every other
#: page's in-app visit starts on the Data page).
IN_APP_FROM = "methods"


def measured(server: Server, action: Callable[[], tuple[float, float]]) -> First:
    """Run ``action`` (it returns the page drawn and settled, seconds) with the server's and the
    browser's CPU seconds over it."""
    chrome = browser_cpu()
    _, cpu, (drawn, settled) = timed(server, action)
    return First(drawn, settled, cpu, browser_cpu() - chrome)


def new_tab(browser, server: Server, name: str) -> First:
    """A browser that opened the app once before (the Data page, drawn, then its tab closed: the
    HTTP cache warm, no session left) opens a new tab on the page's address."""
    context = browser.new_context()
    watch(context)
    try:
        before = context.new_page()
        before.goto(server.url)
        wait_drawn(before)
        before.close()
        page = context.new_page()

        def first() -> tuple[float, float]:
            page.goto(f"{server.url}/{name}")
            drawn = wait_drawn(page)
            return drawn / 1000, settle(page, drawn) / 1000

        return measured(server, first)
    finally:
        context.close()


def in_app(browser, server: Server, name: str) -> First:
    """A session opened on the Data page (the Methods page for the Data page's own visit) and
    settled follows the page's sidebar link: from the press on the link to the page drawn."""
    context = browser.new_context()
    watch(context)
    try:
        page = context.new_page()
        page.goto(f"{server.url}/{IN_APP_FROM if name == '' else ''}")
        settle(page, wait_drawn(page))
        link = page.get_by_test_id("stSidebar").get_by_role("link", name=PAGES[name], exact=True).first

        def first() -> tuple[float, float]:
            marked = mark(page)
            link.click()
            drawn = wait_drawn(page)
            settled = settle(page, drawn)
            press = float(page.evaluate("(m) => window.__vl.press.filter((t) => t >= m)[0] ?? m", marked))
            return (drawn - press) / 1000, (settled - press) / 1000

        return measured(server, first)
    finally:
        context.close()


def visits(pw, server: Server, names: list[str]) -> dict[str, Visit]:
    """First visit and widget change of each page in a new session: seconds and CPU."""
    browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    out = {}
    for name in names:
        context = browser.new_context()
        watch(context)
        page = context.new_page()
        chrome = browser_cpu()

        def first(page=page, name=name) -> tuple[float, float]:
            page.goto(f"{server.url}/{name}")
            drawn = wait_drawn(page)
            return drawn / 1000, settle(page, drawn) / 1000

        _, cpu, (seconds, settled) = timed(server, first)
        chrome = browser_cpu() - chrome
        change, widget_cpu, widget_chrome = None, 0.0, 0.0
        try:
            done, act = find_widget(page, name)
            if act is not None:
                before = browser_cpu()
                _, widget_cpu, change = timed(
                    server, lambda page=page, act=act, done=done: change_widget(page, act, done)
                )
                widget_chrome = browser_cpu() - before
        except NoRun as exc:
            done = f"ERROR: {exc}"
            print(f"  {name or 'data'}: {done}", flush=True)
        page.context.close()
        tab, app = new_tab(browser, server, name), in_app(browser, server, name)
        out[name] = (seconds, settled, cpu, chrome, change, widget_cpu, widget_chrome, done, app, tab)
    browser.close()
    return out


def said(rows: list[Visit]) -> str:
    """The widget change the runs made, or the first run's error in words."""
    return next((r[7] for r in rows if r[7].startswith("ERROR")), rows[0][7] if rows else "")


def median(values: list[float]) -> float:
    kept = [v for v in values if v == v]
    return statistics.median(kept) if kept else float("nan")


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", nargs="*", default=None, help="page names (overview, judge, …)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--settle", type=float, default=60.0, help="seconds a server runs before visits")
    parser.add_argument("--no-cold", action="store_true", help="skip the cold links (a server each)")
    parser.add_argument("--cold-after", type=float, default=0.0, help="seconds before a cold link's request")
    parser.add_argument("--cold-only", action="store_true", help="only the cold links (no first visits)")
    args = parser.parse_args()
    names = [n for n in PAGES if args.pages is None or n in args.pages or (n == "" and "data" in args.pages)]
    print(f"load average at start: {os.getloadavg()}")
    cold: dict[str, list[Cold]] = {n: [] for n in names}
    warm: dict[str, list[Visit]] = {n: [] for n in names}
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        for r in range(args.repeat):
            if not args.no_cold:
                for name in names:
                    cold[name].append(cold_link(pw, name, Path(tmp), args.cold_after))
                    print(f"  cold {name or 'data'}: {_cold(cold[name][-1])}", flush=True)
            if args.cold_only:
                print(f"run {r + 1} done, load average {os.getloadavg()}", flush=True)
                continue
            server = Server(Path(tmp))
            try:
                # one session starts the server's work, then the server gets its settling time
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                context = browser.new_context()
                watch(context)
                page = context.new_page()
                page.goto(server.url)
                wait_drawn(page)
                browser.close()
                time.sleep(args.settle)
                for name, row in visits(pw, server, names).items():
                    warm[name].append(row)
                    print(f"  visit {name or 'data'}: {_rounded(row)}", flush=True)
            finally:
                server.close()
            print(f"run {r + 1} done, load average {os.getloadavg()}", flush=True)
    print(f"load average at end: {os.getloadavg()}")
    print(LEGEND)
    print(FIRST_LEGEND)
    print(f"{'':16} | {'in-app':^28} | {'new tab':^28} | {'fresh browser':^28}")
    print(f"{'page':16}" + f" | {'drawn':>6} {'settled':>7} {'cpu':>5} {'chrome':>6}" * 3)
    for name in names:
        w = warm[name]
        kinds = (
            [x[8] for x in w],
            [x[9] for x in w],
            [First(x[0], x[1], x[2], x[3]) for x in w],
        )
        print(
            f"{PAGES[name]:16}"
            + "".join(
                f" | {median([f.drawn for f in k]):6.2f} {median([f.settled for f in k]):7.2f} "
                f"{median([f.cpu for f in k]):5.2f} {median([f.chrome for f in k]):6.2f}"
                for k in kinds
            )
        )
    print()
    print(
        f"{'page':16} {'cold s':>6} {'start s':>7} {'cpu':>5} {'said':>4} | {'first s':>7} {'settled':>7} "
        f"{'cpu':>5} {'chrome':>6} | {'widget s':>8} {'settled':>7} {'run at':>6} {'cpu':>5} {'chrome':>6} "
        f"{'runs':>4}"
    )
    for name in names:
        c, w = cold[name], warm[name]
        ch = [x[4] for x in w if x[4] is not None]
        tried = [x for x in w if x[4] is not None or x[7].startswith("ERROR")]
        print(
            f"{PAGES[name]:16} {median([x[0] for x in c]):6.2f} {median([x[1] for x in c]):7.2f} "
            f"{median([x[2] for x in c]):5.2f} {('yes' if all(x[3].said for x in c) else 'NO') if c else '-':>4} | "
            f"{median([x[0] for x in w]):7.2f} {median([x[1] for x in w]):7.2f} "
            f"{median([x[2] for x in w]):5.2f} {median([x[3] for x in w]):6.2f} | "
            f"{median([x.drawn for x in ch]):8.2f} {median([x.settled for x in ch]):7.2f} "
            f"{median([x.started for x in ch]):6.2f} {median([x[5] for x in w if x[4]]):5.2f} "
            f"{median([x[6] for x in w if x[4]]):6.2f} {f'{len(ch)}/{len(tried)}' if tried else '-':>4}  {said(w)}"
        )
    if any(cold.values()):
        print(COLD_LEGEND)
        print(
            f"{'page':16} {'cold s':>6} {'frame s':>7} {'words s':>7} {'said':>5} {'blank s':>7}  statuses seen"
        )
        for name in names:
            c = cold[name]
            if not c:
                continue
            statuses = list(dict.fromkeys(t for x in c for t in x[3].statuses))
            print(
                f"{PAGES[name]:16} {median([x[0] for x in c]):6.2f} {median([x[4] + x[3].frame for x in c]):7.2f} "
                f"{median([x[4] + x[3].first for x in c]):7.2f} {sum(x[3].said for x in c):>2}/{len(c):<2} "
                f"{median([x[3].blank for x in c]):7.2f}  {' / '.join(statuses)[:160]}"
            )


FIRST_LEGEND = """First visits, three ways (medians, seconds; a new session of the page each time):
in-app: in a session opened on the Data page and settled, a click on the page's sidebar link,
from the press to the page drawn (the Data page's own: from the Methods page);
new tab: a browser that opened the app once before (the Data page; warm HTTP cache) opens the
page's address in a new tab, from its navigation start; fresh browser: a brand-new browser (empty HTTP cache) opens
the page's address, from its navigation start (the "first s" column below).
drawn: the run's end handled, script idle; settled: charts and tables painted (main thread quiet
QUIET ms); cpu / chrome: the server's / this benchmark's Chromium's CPU s over it.""".replace(
    "QUIET", str(QUIET_MS)
)

LEGEND = """cold s: a deep link as a fresh server's first request, from the server's first answer to the
page drawn; start s: the same from the server's process start (streamlit run); cpu: the server's
CPU s over the visit; said: content or a status sentence on screen at every sample (below).
first s: a first visit in a fresh browser (new session, empty HTTP cache) from its navigation
start to the page drawn (the run's end handled, script idle); settled: until its charts and
tables were painted (main thread quiet QUIET ms); cpu / chrome: the server's / this benchmark's Chromium's CPU s over it.
widget s: from the press on the widget (page settled first) to the page drawn; settled: until
painted; run at: when the server's run began (press handled, request sent); cpu / chrome as
above; runs: changes that drew a run / changes tried. Medians.""".replace("QUIET", str(QUIET_MS))


COLD_LEGEND = """
Cold links, what the page showed (sampled every 0.1 s until drawn; medians; seconds from the
server's first answer): frame s: the app's frame shown; words s: its first words beside the title
(a status sentence or content); said: runs in which every sample from the document's first paint
on showed content or a status sentence; blank s: the longest stretch from then that showed neither."""


def _cold(row: Cold) -> str:
    w = row[3]
    return (
        f"{row[0]:.2f} s from answer, {row[1]:.2f} from start, cpu {row[2]:.2f}; frame {row[4] + w.frame:.2f}, "
        f"words {row[4] + w.first:.2f}, said {'yes' if w.said else 'NO'}, blank {w.blank:.2f}; {w.statuses}"
    )


def _rounded(row: Visit) -> str:
    change = row[4]
    widget = "-" if change is None else f"{change.drawn:.2f}/{change.settled:.2f}/{change.started:.2f}"
    app, tab = row[8], row[9]
    return (
        f"in-app {app.drawn:.2f}/{app.settled:.2f} s cpu {app.cpu:.2f} chrome {app.chrome:.2f}; "
        f"new tab {tab.drawn:.2f}/{tab.settled:.2f} s cpu {tab.cpu:.2f} chrome {tab.chrome:.2f}; "
        f"fresh {row[0]:.2f}/{row[1]:.2f} s cpu {row[2]:.2f} chrome {row[3]:.2f}; widget {widget} s "
        f"cpu {row[5]:.2f} chrome {row[6]:.2f}; {row[7]}"
    )


if __name__ == "__main__":
    main()
