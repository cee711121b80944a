"""The session: its store, its bookkeeping, the demos, saved datasets, settings in the link,
and results memoised per dataset version."""

from __future__ import annotations

import atexit
import ctypes
import gc
import itertools
import sys
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any, Callable, Mapping, TypeVar

import pandas as pd
import streamlit as st

from evalcore import limits
from evalcore.errors import EvalcoreError
from evalcore.ingest.files import LoadedTable
from evalcore.schema import VerdictFormatError
from evalcore.store.store import VerdictStore
from evalcore.store.workspace import UnknownDataset, Workspace, WorkspaceError
from ui import warm
from ui.messages import code_span, escape_markdown, md
from ui.status import busy, stop

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"

# Streamlit, pandas, DuckDB, Plotly and evalcore, all imported by now, live as long as the server:
# moved out of the cycle collector's sight, the full collection after every load (release_memory)
# scans only what sessions made since (2 ms instead of 75 ms, cheap enough for a new visitor's
# first load too). What importing left as garbage is
# collected first, or it would be kept for good. Freezing changes nothing else: an object is still
# freed as soon as nothing refers to it. Unfrozen at exit, so that the interpreter's last
# collection finds them (DuckDB's bindings report what it does not).
gc.collect()
gc.freeze()
atexit.register(gc.unfreeze)


#: The bundled demo datasets: label → (verdict file, human ranking file or None).
DEMO_DATASETS: dict[str, tuple[Path, Path | None]] = {
    "Demo: all pairs, 20 simulated models, 3 judges": (
        warm.DEMO_ALL_PAIRS,
        DATA / "demo_human_ranking.csv",
    ),
    "Demo: anchor-only (AlpacaEval-style), 16 simulated models": (DATA / "demo_anchor_only.csv.gz", None),
}
DEFAULT_DEMO = next(iter(DEMO_DATASETS))
#: The judge the all-pairs demo opens on, as the library's one default-judge rule
#: (:func:`evalcore.judge_choice.publishing_judge`) picks it: its steady judge, not the
#: alphabetically first (the deliberately faulty first-slot judge). Tests read it; the app asks
#: the rule (:func:`default_judge`), never this table.
DEMO_JUDGE: dict[str, str] = {DEFAULT_DEMO: "sim-judge-steady"}


def default_choice(store: VerdictStore):
    """The library's default judge for the loaded data, with its reason in words (memoised)."""
    from evalcore.judge_choice import publishing_judge

    def choose():
        with busy("Choosing the default judge (counting every judge's verdicts)…"):
            return publishing_judge(store)

    return memo(("default_judge",), choose)


def default_judge(store: VerdictStore) -> str:
    """The judge a page starts on: the one every face defaults to (:func:`default_choice`)."""
    return default_choice(store).judge


#: Short keys of the demos in a shareable URL (``?dataset=demo-anchor``): key → label.
DEMO_KEYS: dict[str, str] = dict(zip(("demo-all-pairs", "demo-anchor"), DEMO_DATASETS, strict=True))
T = TypeVar("T")


def _libc() -> Any:
    try:
        return ctypes.CDLL("libc.so.6")
    except OSError:  # not glibc (macOS, musl): its allocator is left as it is
        return None


_LIBC = _libc()
if _LIBC is not None:
    # glibc gives each thread that meets contention an arena of its own, up to 8 per core, and
    # an arena's freed pages stay with it; Streamlit runs every session's script in a thread of
    # its own, so a day of sessions spread freed memory over dozens of arenas. Four arenas keep
    # the sessions' threads from waiting on one another and leave little to trim.
    try:
        _LIBC.mallopt(-8, 4)  # M_ARENA_MAX
    except AttributeError:
        pass


def release_memory() -> None:
    """Give freed memory back to the operating system after a session's data goes away (a
    load, a failed load, data replaced, a session ended).

    Python and DuckDB free the objects, but the allocators keep freed pages: glibc's in its
    arenas, Arrow's in its memory pool (the batches a store copies or saves pass through it). So
    the server's resident memory would only ever grow over a day of uploads: Arrow's pool is
    asked to release what is unused and ``malloc_trim`` returns glibc's free pages, in every
    arena (a no-op where glibc is absent).
    """
    gc.collect()
    release_pools()


def release_pools() -> None:
    """Give the allocators' free pages back (Arrow's pool, glibc's arenas) without a collection:
    after a session's first load, which freed no Python objects of the session's (a new
    visitor's copy of the demo: the copy's batches pass through Arrow's pool). The full
    collection scans every object the server made since it started (its shared demo results:
    36 ms a new session, a sixth of a new visitor's first run of the Overview page)."""
    arrow = sys.modules.get("pyarrow")
    if arrow is not None:
        try:
            arrow.default_memory_pool().release_unused()
        except AttributeError:  # an Arrow older than 9
            pass
    if _LIBC is not None:
        try:
            _LIBC.malloc_trim(0)
        except AttributeError:
            pass


def forget_upload(upload: Any) -> None:
    """Drop an upload's bytes once it has been read (loaded or refused): Streamlit keeps every
    uploaded file in memory for as long as its session lasts, 50 MB a session for a 50 MB file.
    Its file widget then reads as empty on the next run; the loaded data stays."""
    try:
        from streamlit.runtime import get_instance
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        ctx = get_script_run_ctx()
        if ctx is not None:
            get_instance().uploaded_file_mgr.remove_file(ctx.session_id, upload.file_id)
    except (RuntimeError, AttributeError):  # no runtime (AppTest) or another Streamlit
        pass
    upload.close()  # the widget's own copy (a BytesIO over the same bytes)
    # The session state keeps the widget's value, another file object over the same bytes,
    # until the session itself is dropped (minutes after its browser left): emptied too, so that
    # the bytes go as soon as they are read. Emptied, not closed: Streamlit may still read it
    # (the test harness does, to keep the widget's files on the next run).
    try:
        for key in list(st.session_state.keys()):
            held = st.session_state[key]
            if held is not upload and getattr(held, "file_id", None) == upload.file_id:
                held.seek(0)
                held.truncate(0)  # drops its reference to the bytes
    except (RuntimeError, AttributeError, KeyError):  # no session state here (a bare call)
        pass


def _close(store: VerdictStore) -> None:
    # Called by Streamlit when the session disconnects (its session-scoped resources are cleared).
    if warm.loaded_work(store) is not None:
        # its background work ends first, before the store closes under it: waited for on a
        # thread of its own, not on the server's (the piece being computed may take seconds)
        threading.Thread(target=_close_after_work, args=(store,), daemon=True).start()
        return
    store.close()
    release_memory()
    _schedule_reap()


def _close_after_work(store: VerdictStore) -> None:
    warm.stop_loaded(store)
    _close(store)


_REAP_LOCK = threading.Lock()
_REAP_TIMER: threading.Timer | None = None


def _schedule_reap() -> None:
    """Reap ended sessions once their reconnect time has passed (one timer for all).

    Streamlit keeps a disconnected session, with its widgets' values (an uploaded file's bytes
    among them, 50 MB for a 50 MB upload), for ``server.disconnectedSessionTTL`` seconds in case
    its browser comes back. But the store that keeps them drops an expired session only when it
    is next touched, that is when another session connects or disconnects: after the last
    sessions of a busy hour ended, they stayed for good (five sessions closed together kept
    235 MB, measured with ``benchmarks.bench_sessions uploads --concurrent 5``)."""
    global _REAP_TIMER
    try:
        ttl = float(st.get_option("server.disconnectedSessionTTL"))
    except (RuntimeError, TypeError, ValueError):
        ttl = 120.0
    with _REAP_LOCK:
        if _REAP_TIMER is not None:
            _REAP_TIMER.cancel()  # the latest disconnect's expiry covers the earlier ones
        _REAP_TIMER = threading.Timer(ttl + 2.0, _reap_ended_sessions)
        _REAP_TIMER.daemon = True
        _REAP_TIMER.start()


def _reap_ended_sessions() -> None:
    """Let Streamlit drop the sessions whose reconnect time has passed, then give their memory
    back (:func:`release_memory`). Asking the session store for its size is what drops expired
    entries; where Streamlit keeps its sessions differently, only the memory is released."""
    try:
        from streamlit.runtime import Runtime

        if Runtime.exists():
            manager = Runtime.instance()._session_mgr
            # the lock Streamlit holds when it saves or deletes a stored session
            with getattr(manager, "_storage_lock", threading.Lock()):
                len(manager._session_storage._cache)
    except (AttributeError, TypeError, RuntimeError):  # another Streamlit: nothing to reap
        pass
    release_memory()


#: One number per store made, never reused: how a session tells its own store from a new one made
#: after Streamlit released the old (an ``id()`` can be reused by the next object at that address).
_STORE_NUMBERS = itertools.count(1)


def store_number(store: VerdictStore) -> int:
    """The number :func:`session_store` gave ``store`` (0 for a store made elsewhere)."""
    return int(getattr(store, "_vl_number", 0))


@st.cache_resource(scope="session", on_release=_close, show_spinner=False)
def session_store() -> VerdictStore:
    """This browser session's own DuckDB database (never shared between sessions).

    DuckDB's own memory for the session is capped at the request budget
    (``$VERDICTLAB_MEMORY_BUDGET_MB``): a bigger query spills or fails with a message instead of
    taking memory from every other session. The store made ahead for the next session
    (:func:`prepare_session_store`, already holding its copy of the demo) is taken when there is
    one, and waited for while it is being made.
    """
    with _SPARE_LOCK:
        store = _SPARE.pop() if _SPARE else _new_store()
    store._vl_number = next(_STORE_NUMBERS)  # type: ignore[attr-defined]
    return store


def _new_store() -> VerdictStore:
    store = VerdictStore()
    store.limit_memory(limits.budget_bytes())
    return store


#: At most one store made ahead for the next session, holding its copy of the default demo
#: (:func:`prepare_session_store`), and the lock held while it is made or taken.
_SPARE: list[VerdictStore] = []
_SPARE_LOCK = threading.Lock()


def prepare_session_store() -> None:
    """Make the next session's store now, with its copy of the default demo.

    Called in a thread when a browser opens one of the app's pages (:func:`ui.warm.link_opened`):
    its session starts about half a second later, once the browser has loaded Streamlit's scripts
    and connected, and its first run copied the demo's 342,000 rows into its own store then
    (0.17-0.21 s of a new visitor's first page). Made in that wait, the copy is ready when the
    session asks for its store (:func:`session_store`); a session whose first data is not the
    demo replaces the copy, as it replaced the demo before. The copy is the one
    :func:`load_demo` makes, under the same lock: only its moment changes."""
    if _SPARE or not _SPARE_LOCK.acquire(blocking=False):  # one made, or being made
        return
    try:  # a session asking for its store meanwhile waits for this one
        if _SPARE:
            return
        demo = _demo_table(demo_file(DEFAULT_DEMO))
        store = _new_store()
        with _DEMO_LOCK:
            store.load(demo)
        store._vl_demo = demo  # type: ignore[attr-defined]
        _SPARE.append(store)
    except Exception:  # noqa: BLE001 - made ahead only to save time: the session's own load
        pass  # makes its copy, and says in words what is wrong with the demo
    finally:
        _SPARE_LOCK.release()


def state() -> dict:
    """Per-session bookkeeping: dataset version, memo of results, origin of the data."""
    ss = st.session_state
    if "vl" not in ss:
        empty = dict.fromkeys(("source", "demo", "format", "human_ranking", "error"))
        ss["vl"] = {"version": 0, "memo": {}, "notes": (), **empty}
    return ss["vl"]


#: One copy of a demo at a time: the demo's DuckDB connection is shared by every session.
_DEMO_LOCK = threading.Lock()


def demo_file(label: str) -> Path:
    """The verdict file of a demo: the bundled one, or the file of the same name in
    ``$VERDICTLAB_DEMO_DIR`` when that is set (an operator's regenerated demo, or the test suite's
    smaller copy for tests that replace the demo at once; read on each load, not at import)."""
    return warm.demo_path(DEMO_DATASETS[label][0])


#: Demo files read and validated in this server process: (path, modification time) → table.
_DEMO_TABLES: dict[tuple[str, int], LoadedTable] = {}
#: Held while a demo file is read, so that a visitor arriving while the server's start-up work
#: (:mod:`ui.warm`) reads it waits for that one reading instead of reading it a second time.
_DEMO_READ_LOCK = threading.Lock()


def _demo_table(path: Path) -> LoadedTable:
    """A demo file read and validated once per server process (in its own store); each session
    copies its rows (about five times faster than reading and checking the file again). A plain
    dictionary rather than Streamlit's resource cache: the start-up thread, which runs outside any
    session, fills it too."""
    try:
        key = (str(path), path.stat().st_mtime_ns)
    except OSError:  # missing: load_file says so in words
        return VerdictStore().load_file(path)
    with _DEMO_READ_LOCK:
        if key not in _DEMO_TABLES:
            early = warm.early_table(key)  # read by the start-up thread as the server started
            _DEMO_TABLES[key] = early if early is not None else VerdictStore().load_file(path)
        return _DEMO_TABLES[key]


def load_demo(label: str = DEFAULT_DEMO) -> None:
    ranking = DEMO_DATASETS[label][1]
    demo = _demo_table(demo_file(label))
    store = session_store()
    # a store made ahead (prepare_session_store) holds its copy of this demo already; install
    # below forgets that mark
    if getattr(store, "_vl_demo", None) is not demo:
        with _DEMO_LOCK:
            store.load(demo)
    table = LoadedTable(file=demo.file, format=demo.format, report=demo.report, store=store)
    human = None if ranking is None else _demo_ranking(ranking).copy()  # a session's own copy
    install(table, demo=label, human_ranking=human)


#: Demo human rankings read in this server process: (path, modification time) → ranking.
_DEMO_RANKINGS: dict[tuple[str, int], pd.DataFrame] = {}


def _demo_ranking(path: Path) -> pd.DataFrame:
    """A demo's human ranking, read and checked once per server process (it was read again for
    every new visitor: 11 ms of each new session's first run)."""
    from evalcore.ingest.files import read_human_ranking

    try:
        key = (str(path), path.stat().st_mtime_ns)
    except OSError:  # missing: read_human_ranking says so in words
        return read_human_ranking(path)
    if key not in _DEMO_RANKINGS:
        _DEMO_RANKINGS[key] = read_human_ranking(path)
    return _DEMO_RANKINGS[key]


def install(
    table, *, demo: str | None = None, human_ranking: pd.DataFrame | None = None, saved: str | None = None
) -> None:
    """Put a validated table into this session's store and forget results of the old one."""
    store = session_store()
    warm.stop_loaded(store)  # the last table's background work ends before the store changes
    store.load(table)
    store.__dict__.pop("_vl_demo", None)  # it holds the table now, whatever a made-ahead copy held
    s = state()
    replacing = s["version"] > 0  # a dataset was loaded before this one (not a session's first)
    s["version"] += 1
    s["memo"] = {}  # the old dataset's results go now, not when the session ends
    s["store_id"] = store_number(store)
    s["source"] = table.file
    s["format"] = table.format
    s["demo"] = demo
    s["human_ranking"] = human_ranking
    s["notes"] = table.report.notes
    s["error"] = None
    s["saved"] = saved
    s["url_problem"] = None
    if replacing and not s.get("applying_url"):  # another dataset starts every view afresh: the
        for name in [n for n in st.query_params if n not in GLOBAL_PARAMS]:  # old view's settings go
            del st.query_params[name]
    s["in_flight"] = InFlight()
    if demo is None:  # a table of the visitor's own: its Overview's findings begin at once
        ranking = _ranking_fingerprint(s)
        warm.start_loaded(store, s["memo"], s["in_flight"], (s["version"], ranking), human_ranking)
    set_url_param("dataset", dataset_key())
    set_url_param("upload", upload_name())
    if replacing:  # the old dataset's results and rows are garbage now
        release_memory()
    else:  # a session's first load: nothing of the session's was freed (a file read is
        release_pools()  # collected by read_into_session, whatever came of it)


def workspace() -> Workspace:
    """The workspace of saved datasets ($VERDICTLAB_WORKSPACE or ./workspace/verdictlab.duckdb)."""
    return Workspace()


def load_saved(name: str) -> None:
    """Load a saved dataset through the same path as an upload; raises WorkspaceError."""
    ws = workspace()
    # The version is read before the rows: if another session saves in between, this session's
    # later save is refused (expected_version is older), never a silent overwrite.
    version = ws.version(name)
    loaded = ws.load(name)
    install(loaded.table, saved=name, human_ranking=loaded.human_ranking)
    state()["saved_version"] = version


def read_into_session(name: str, load: Callable[[], Any], *, upload: Any = None) -> bool:
    """Read a file with ``load`` into this session's store. A failure is kept in words in the
    session (shown by the Data page; the data loaded before stays) and gives False. ``upload``:
    the uploaded file ``load`` reads, whose bytes are dropped once read (:func:`forget_upload`).
    Either way the memory the reading took is given back (:func:`release_memory`)."""
    from evalcore.present.summary import unreadable

    try:
        with st.spinner(f"Reading {md(name)}…"):
            install(load())
        return True
    except (VerdictFormatError, EvalcoreError) as exc:
        state()["error"] = str(exc)
    except Exception as exc:  # noqa: BLE001 - anything unforeseen still gets words, not a trace
        state()["error"] = unreadable(name, exc)
    finally:
        if upload is not None:
            forget_upload(upload)
        release_memory()  # a refused file's scratch tables and batches too
    return False


def save_loaded(name: str, *, replace: bool) -> Any:
    """Save the loaded data in the workspace as ``name`` and put it in the link; raises
    WorkspaceError. Replacing the dataset this session loaded is refused when another session
    changed it since (the version this session loaded is the expected one)."""
    s = state()
    expected = s.get("saved_version") if name == s.get("saved") else None
    store = session_store()
    saved = workspace().save(
        name,
        store.frame(),
        text=store.text_rows(),  # the prompts, answers and judge outputs are saved too
        file=s.get("source"),
        format=s.get("format"),
        human_ranking=s.get("human_ranking"),
        replace=replace,
        expected_version=expected,
    )
    s["saved"], s["saved_version"] = saved.name, saved.version
    set_url_param("dataset", saved.name)
    return saved


def delete_saved(name: str) -> None:
    """Delete a saved dataset (every version); the loaded data stays, no longer saved.

    Every version goes (the page offers no way back to a deleted name's history), so the
    workspace file gives their space back."""
    workspace().delete(name, forever=True)
    if state().get("saved") == name:
        state()["saved"] = None


def dataset_key() -> str | None:
    """The URL key of what is loaded: a demo key, a saved dataset's name, or None (an upload)."""
    s = state()
    if s.get("demo"):
        return next((k for k, label in DEMO_KEYS.items() if label == s["demo"]), None)
    return s.get("saved")


#: Link parameters every page reads (ui.state.apply_url and the pickers).
GLOBAL_PARAMS: tuple[str, ...] = ("dataset", "judge", "category", "upload", "price_call", "price_label")


def known_params(*names: str) -> None:
    """Mark link parameters as read by this run of the page, so that :func:`unknown_params`
    does not report them (url_param and set_url_param mark theirs)."""
    st.session_state.setdefault("_vl_url_known", set()).update(names)


def unknown_params() -> list[str]:
    """The link's parameters that nothing on this run of the page read: a typo or a setting of
    another page, named in a warning instead of being dropped in silence."""
    seen = st.session_state.get("_vl_url_known", set()) | set(GLOBAL_PARAMS)
    return [name for name in st.query_params if name not in seen]


def url_problem(text: str) -> None:
    """Say, once per run, that a value in the link was not used (``text``: app Markdown)."""
    shown = st.session_state.setdefault("_vl_url_said", set())
    if text not in shown:
        shown.add(text)
        st.warning(text, icon=":material/link_off:")


def _bad_value(name: str, raw: str, why: str, instead: object) -> None:
    url_problem(
        f"The link's {code_span(name + '=' + raw)} was not used: {why}; showing {code_span(instead)} instead."
    )


def upload_name() -> str | None:
    """The file name of an unsaved upload (None for a demo or a saved dataset): a link made
    while it is loaded says so (``?upload=``), since the file itself cannot travel in a link."""
    s = state()
    if s.get("demo") or s.get("saved") or not s.get("source"):
        return None
    return str(s["source"])


def url_param(name: str, default: str | None = None) -> str | None:
    """A view setting from the URL (``?name=value``, a string), or ``default`` when absent."""
    known_params(name)
    value = st.query_params.get(name)
    return value if value else default


def url_number(name: str, default: float, *, low: float | None, high: float | None) -> float:
    """A view setting that is a number (whole when ``default`` is an int), or ``default`` when
    absent; a value that is not a number from ``low`` to ``high`` is named in a warning."""
    raw = url_param(name)
    if raw is None:
        return default
    whole = isinstance(default, int)
    try:
        value: float = int(raw) if whole else float(raw)
    except ValueError:
        _bad_value(name, raw, f"it is not a {'whole ' if whole else ''}number", default)
        return default
    if value != value or (low is not None and value < low) or (high is not None and value > high):
        span = f"from {low:,} to {high:,}" if high is not None else f"at least {low:,}"
        _bad_value(name, raw, f"it must be {span}", default)
        return default
    return value


def url_choice(
    name: str,
    options: Any,
    default: Any,
    *,
    encode: Callable[[Any], str] = str,
    renamed: Mapping[str, str] | None = None,
) -> Any:
    """One of ``options`` named by the link (by ``encode(option)``, or by a former name that
    ``renamed`` maps to it: a link saved before a value was renamed), else ``default``; a value
    that names none of them is named in a warning."""
    raw = url_param(name)
    if raw is None:
        return default
    raw = (renamed or {}).get(raw, raw)
    by_text = {encode(o): o for o in options}
    if raw in by_text:
        return by_text[raw]
    choices = ", ".join(list(by_text)[:8]) + (" …" if len(by_text) > 8 else "")
    _bad_value(name, raw, f"it is not one of {escape_markdown(choices)}", encode(default))
    return default


def url_list(name: str, options: Any, *, encode: Callable[[Any], str] = str) -> list:
    """Several of ``options`` from the link (comma-separated ``encode(option)``); values that
    name none of them are named in a warning and left out."""
    raw = url_param(name)
    if not raw:
        return []
    by_text = {encode(o): o for o in options}
    parts = [p for p in raw.split(",") if p]
    bad = [p for p in parts if p not in by_text]
    if bad:
        url_problem(
            f"The link's {code_span(name + '=' + raw)} names {', '.join(code_span(b) for b in bad)}, "
            f"which {'is' if len(bad) == 1 else 'are'} not among the choices "
            f"({escape_markdown(', '.join(by_text))}); left out."
        )
    return [by_text[p] for p in parts if p in by_text]


def set_url_param(name: str, value: object) -> None:
    """Write a view setting into the URL so a copied link reproduces it; None removes it."""
    known_params(name)
    if value is None or value == "":
        if name in st.query_params:
            del st.query_params[name]
    elif st.query_params.get(name) != str(value):
        st.query_params[name] = str(value)


def apply_url() -> None:
    """On a session's first run, apply ``dataset``, ``judge`` and ``category`` from the URL."""
    s = state()
    if s.get("url_applied"):
        return
    s["url_applied"] = True
    s["applying_url"] = True  # the link's own view settings stay while its dataset loads
    try:
        _apply_url(s)
    finally:
        s["applying_url"] = False


def _apply_url(s: dict) -> None:
    key = url_param("dataset")
    if key:
        try:
            with busy("Loading the dataset the link names…"):
                if key in DEMO_KEYS:
                    load_demo(DEMO_KEYS[key])
                else:
                    load_saved(key)
        except WorkspaceError as exc:  # the link's text is shown as code, never as markdown
            load_demo()
            why = (
                "it is neither a demo (`demo-all-pairs`, `demo-anchor`) nor a saved dataset; "
                "pick a saved dataset on the **Data** page"
                if isinstance(exc, UnknownDataset)
                else escape_markdown(exc)
            )
            s["url_problem"] = (
                f"The link's dataset {code_span(key)} was not loaded (the demo is shown instead): {why}."
            )
    upload = url_param("upload")
    if upload and not key and not s["version"]:  # a link made with an unsaved upload: not here
        load_demo()
        s["url_problem"] = (
            f"This link was made while the unsaved upload {code_span(upload)} was loaded. An "
            "upload does not travel with a link, so its numbers cannot be shown here: the demo is "
            "shown instead. Upload the file again on the **Data** page, or ask for a link to it "
            "saved there (**Save**), which opens it."
        )
    for name in ("judge", "category"):
        if url_param(name):
            st.session_state[f"vl_{name}"] = url_param(name)


def ensure_data() -> VerdictStore:
    """The session's store, with the link's dataset or else the default demo on the first visit."""
    store = session_store()
    apply_url()
    s = state()
    if s["version"] == 0:  # a new session
        with busy("Loading the demo table (read and checked once per server, then copied)…"):
            load_demo()
    elif s.get("store_id") != store_number(store):
        # The session came back after its store was released (its browser was away longer than
        # Streamlit keeps resources): reload what can be reloaded, else the demo, and say so.
        _reload(store)
    set_url_param("dataset", dataset_key())
    set_url_param("upload", upload_name())
    if state().get("url_problem"):
        st.warning(state()["url_problem"])
    return store


def _reload(store: VerdictStore) -> None:
    s = state()
    try:
        if s.get("saved"):
            load_saved(s["saved"])
            return
        if s.get("demo"):
            load_demo(s["demo"])
            return
    except (WorkspaceError, VerdictFormatError):
        pass
    source = s.get("source")
    load_demo()
    if source:
        s["url_problem"] = (
            f"The upload {code_span(source)} was released while this page was "
            "away; the demo is shown. Upload the file again on the **Data** page."
        )


def require_data() -> VerdictStore:
    """Stop the page with a pointer to the data page when nothing is loaded."""
    store = ensure_data()
    if store.is_empty:
        st.info("No data is loaded. Pick the demo or upload a verdict file on the **Data** page.")
        stop()
    return store


def forget_on_new_data(*keys: str) -> None:
    """Drop these widgets' values when another dataset is loaded, so that defaults that depend on
    the data (an anchor, a comparison) apply again instead of a stale choice."""
    marker, version = "data_version:" + ",".join(keys), state()["version"]
    if st.session_state.get(marker) != version:
        for key in keys:
            st.session_state.pop(key, None)
        st.session_state[marker] = version


#: Results computed on an untouched demo, shared by every session of this server process: a
#: stakeholder opening the demo gets the Overview at once instead of recomputing it (4–5 s per
#: judge). Bounded, oldest first out; demo results are a few megabytes at most. The start-up work
#: alone keeps about 100 (each judge's sheet also under a key of its own, the same objects).
_SHARED: OrderedDict[tuple, Any] = OrderedDict()
SHARED_ENTRIES = 192


#: How long a page waits for another thread's computation before doing it itself (a safety net).
WAIT_SECONDS = 300.0


def fingerprint(ranking: pd.DataFrame) -> int:
    """A content hash of a human ranking (the part of a shared result's key that names it)."""
    return int(pd.util.hash_pandas_object(ranking, index=False).sum())


def _ranking_fingerprint(s: dict) -> int | None:
    """A content hash of the session's human ranking (None without one), computed once per frame:
    results that read the ranking are keyed by it, so a new ranking never shows old results."""
    ranking = s.get("human_ranking")
    if ranking is None:
        return None
    cached = s.get("ranking_fp")
    if cached is None or cached[0] is not ranking:
        cached = (ranking, fingerprint(ranking))
        s["ranking_fp"] = cached
    return cached[1]


def demo_identity(label: str, ranking: int | None) -> tuple | None:
    """What a demo's shared results depend on besides their key: the demo's file (and its
    modification time) and the human ranking's fingerprint. None when the file is missing."""
    path = demo_file(label)
    try:
        stamp = path.stat().st_mtime_ns
    except OSError:
        return None
    return (str(path), stamp, ranking)


class InFlight:
    """The results being computed right now for one set of kept results (key → an event set when
    done), and the lock that guards both."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.events: dict[tuple, threading.Event] = {}


def once(
    kept: dict,
    flight: InFlight,
    key: tuple,
    compute: Callable[[], T],
    *,
    limit: int = 0,
    keep_none: bool = True,
) -> T:
    """``kept[key]``, or waited for while another thread computes it, or computed here and kept:
    the same numbers are never computed twice at once on the same two cores. ``limit``: at most
    that many results kept, the oldest out (``kept`` an ``OrderedDict``; 0 for no bound);
    ``keep_none=False``: a result of None ("not computed yet") is never kept."""
    with flight.lock:
        if key in kept:
            if limit:
                kept.move_to_end(key)  # type: ignore[attr-defined]
            return kept[key]
        event = flight.events.get(key)
        mine = event is None
        if mine:
            event = flight.events[key] = threading.Event()
    if not mine:  # the same numbers are on their way: wait for them rather than compete
        event.wait(WAIT_SECONDS)
        with flight.lock:
            if key in kept:
                return kept[key]
        return compute()  # the other computation failed (its page shows why) or gave None
    try:
        value = compute()
        if value is not None or keep_none:
            with flight.lock:
                kept[key] = value
                while limit and len(kept) > limit:
                    kept.popitem(last=False)  # type: ignore[call-arg]
        return value
    finally:
        with flight.lock:
            flight.events.pop(key, None)
        event.set()


#: The demo's shared results being computed right now (:func:`shared_value`).
_SHARED_FLIGHT = InFlight()


def shared_value(shared: tuple, compute: Callable[[], T]) -> T:
    """The result shared by every session under ``shared``: taken from :data:`_SHARED`, or waited
    for while another session (or the start-up work) computes it, or computed here and kept.
    A result of None ("not computed yet") is never kept."""
    return once(_SHARED, _SHARED_FLIGHT, shared, compute, limit=SHARED_ENTRIES, keep_none=False)


def _shared_identity(s: dict) -> tuple | None:
    """What the session's results are shared under: an untouched demo's identity; None for
    uploads and saved datasets, which keep their results in their session."""
    return demo_identity(s["demo"], _ranking_fingerprint(s)) if s.get("demo") else None


def shared_cache() -> Callable[[tuple, Callable[[], Any]], Any]:
    """A cache for work that runs outside this session's script run (a download's own thread,
    which has no session): the results shared by every session of an untouched demo (those the
    start-up work computes), else none. Taken during the run, used later."""
    identity = _shared_identity(state())
    if identity is None:
        return lambda key, compute: compute()
    return lambda key, compute: shared_value(identity + tuple(key), compute)


def memo(key: tuple, compute: Callable[[], T]) -> T:
    """Compute once per dataset version, human ranking and key. Results of an untouched demo are
    also shared between sessions (:data:`_SHARED`); any other dataset's stay in its session."""
    s = state()
    ranking = _ranking_fingerprint(s)
    full = (s["version"], ranking) + tuple(key)
    if full in s["memo"]:
        return s["memo"][full]
    identity = _shared_identity(s)
    if identity is None and (flight := s.get("in_flight")) is not None:
        # a loaded table's own results, which its background work computes too (ui.warm)
        return once(s["memo"], flight, full, compute)
    value = compute() if identity is None else shared_value(identity + tuple(key), compute)
    s["memo"][full] = value
    return value


def counts(store: VerdictStore, judge: str | None, category: str | None = None, *, both_orders: bool = False):
    """The session's memoised count tensor for a judge (and category, and order handling)."""

    def compute():
        with busy("Counting the verdicts of each pair of models…"):
            c = store.counts(judge=judge, category=category)
        if both_orders:
            from evalcore.judge import both_orders_counts

            c = both_orders_counts(c)
        return c

    return memo(("counts", judge, category, both_orders), compute)
