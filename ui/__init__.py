"""Streamlit glue shared by the pages: the session's store, the data guard, pickers, downloads.

Pages stay thin: widgets, a call into evalcore, a figure. Nothing here computes a statistic.
"""

from __future__ import annotations

import ctypes
import gc
import logging
import threading
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, TypeVar

import pandas as pd
import streamlit as st

from evalcore import limits, text
from evalcore.errors import EvalcoreError
from evalcore.io import LoadedTable
from evalcore.schema import VerdictFormatError
from evalcore.store import VerdictStore
from evalcore.workspace import UnknownDataset, Workspace, WorkspaceError
from ui.readable import READABLE_CSS, count_columns, metric_tile

_LOG = logging.getLogger("verdictlab")

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"

#: The bundled demo datasets: label → (verdict file, human ranking file or None).
DEMO_DATASETS: dict[str, tuple[Path, Path | None]] = {
    "Demo: all pairs, 20 simulated models, 3 judges": (
        DATA / "demo_all_pairs.parquet",
        DATA / "demo_human_ranking.csv",
    ),
    "Demo: anchor-only (AlpacaEval-style), 16 simulated models": (DATA / "demo_anchor_only.csv.gz", None),
}
DEFAULT_DEMO = next(iter(DEMO_DATASETS))
#: Short keys of the demos in a shareable URL (``?dataset=demo-anchor``): key → label.
DEMO_KEYS: dict[str, str] = dict(zip(("demo-all-pairs", "demo-anchor"), DEMO_DATASETS, strict=True))

T = TypeVar("T")


def release_memory() -> None:
    """Give freed memory back to the operating system after a session's data goes away.

    Python and DuckDB free the objects, but glibc's allocator keeps freed pages in its arenas, so
    the server's resident memory would only ever grow over a day of uploads; ``malloc_trim``
    returns them (a no-op where glibc is absent).
    """
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def _close(store: VerdictStore) -> None:
    # Called by Streamlit when the session disconnects (its session-scoped resources are cleared).
    store.close()
    release_memory()


@st.cache_resource(scope="session", on_release=_close, show_spinner=False)
def session_store() -> VerdictStore:
    """This browser session's own DuckDB database (never shared between sessions).

    DuckDB's own memory for the session is capped at the request budget
    (``$VERDICTLAB_MEMORY_BUDGET_MB``): a bigger query spills or fails with a message instead of
    taking memory from every other session.
    """
    store = VerdictStore()
    store.limit_memory(limits.budget_bytes())
    return store


def state() -> dict:
    """Per-session bookkeeping: dataset version, memo of results, origin of the data."""
    ss = st.session_state
    if "vl" not in ss:
        ss["vl"] = {
            "version": 0,
            "memo": {},
            "source": None,
            "demo": None,
            "format": None,
            "human_ranking": None,
            "notes": (),
            "error": None,
        }
    return ss["vl"]


#: One copy of a demo at a time: the demo's DuckDB connection is shared by every session.
_DEMO_LOCK = threading.Lock()


@st.cache_resource(show_spinner=False, max_entries=len(DEMO_DATASETS))
def _demo_table(label: str) -> LoadedTable:
    """A bundled demo read and validated once per server process (in its own store); each
    session copies its rows (about five times faster than reading and checking the file again)."""
    return VerdictStore().load_file(DEMO_DATASETS[label][0])


def load_demo(label: str = DEFAULT_DEMO) -> None:
    path, ranking = DEMO_DATASETS[label]
    demo = _demo_table(label)
    store = session_store()
    with _DEMO_LOCK:
        store.load(demo)
    table = LoadedTable(file=demo.file, format=demo.format, report=demo.report, store=store)
    human = None
    if ranking is not None:
        from evalcore.io import read_human_ranking

        human = read_human_ranking(ranking)
    install(table, demo=label, human_ranking=human)


def install(
    table, *, demo: str | None = None, human_ranking: pd.DataFrame | None = None, saved: str | None = None
) -> None:
    """Put a validated table into this session's store and forget results of the old one."""
    store = session_store()
    store.load(table)
    s = state()
    s["version"] += 1
    s["memo"] = {}  # the old dataset's results go now, not when the session ends
    s["store_id"] = id(store)
    s["source"] = table.file
    s["format"] = table.format
    s["demo"] = demo
    s["human_ranking"] = human_ranking
    s["notes"] = table.report.notes
    s["error"] = None
    s["saved"] = saved
    s["url_problem"] = None
    set_url_param("dataset", dataset_key())
    release_memory()


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


def read_into_session(name: str, load: Callable[[], Any]) -> bool:
    """Read a file with ``load`` into this session's store. A failure is kept in words in the
    session (shown by the Data page; the data loaded before stays) and gives False."""
    from evalcore.summary_presentation import unreadable

    try:
        with st.spinner(f"Reading {md(name)}…"):
            install(load())
        return True
    except (VerdictFormatError, EvalcoreError) as exc:
        state()["error"] = str(exc)
    except Exception as exc:  # noqa: BLE001 - anything unforeseen still gets words, not a trace
        state()["error"] = unreadable(name, exc)
    return False


def save_loaded(name: str, *, replace: bool) -> Any:
    """Save the loaded data in the workspace as ``name`` and put it in the link; raises
    WorkspaceError. Replacing the dataset this session loaded is refused when another session
    changed it since (the version this session loaded is the expected one)."""
    s = state()
    expected = s.get("saved_version") if name == s.get("saved") else None
    saved = workspace().save(
        name,
        session_store().frame(),
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
    """Delete a saved dataset (every version); the loaded data stays, no longer saved."""
    workspace().delete(name)
    if state().get("saved") == name:
        state()["saved"] = None


def dataset_key() -> str | None:
    """The URL key of what is loaded: a demo key, a saved dataset's name, or None (an upload)."""
    s = state()
    if s.get("demo"):
        return next((k for k, label in DEMO_KEYS.items() if label == s["demo"]), None)
    return s.get("saved")


#: User text in Markdown (alerts, captions, headers, metric values): shown as typed, never as
#: formatting, a link or an image. One function for every page (:func:`evalcore.text.markdown`).
escape_markdown = text.markdown
md = text.markdown
#: User text shown verbatim as inline code (names in sentences).
code_span = text.code_span


def warning(message: Any) -> None:
    """A warning whose whole text is user-influenced (an analysis note naming models)."""
    st.warning(md(message))


def info(message: Any) -> None:
    st.info(md(message))


def caption(message: Any) -> None:
    st.caption(md(message))


def error(message: Any, *, lead: str = "") -> None:
    """An error box: ``lead`` is the app's own Markdown (bold allowed), ``message`` user text."""
    st.error((lead + " " if lead else "") + md(message))


def metric(where: Any, label: str, value: Any, *, delta: Any = None, **options: Any) -> None:
    """``st.metric`` whose value and delta (rendered as Markdown by Streamlit) are user text; the
    label is the app's own words. A long value (a model name) is drawn smaller, never cut."""
    metric_tile(where, label, md(value), delta=None if delta in (None, "") else md(delta), **options)


def show_error(exc: BaseException) -> None:
    """An exception as an error box in words (never ``st.exception``, never a traceback)."""
    if isinstance(exc, EvalcoreError | VerdictFormatError):
        error(exc)
    elif isinstance(exc, MemoryError):
        error(
            f"This needs more memory than one request may use on this server "
            f"({limits.budget_bytes() // 2**20:,} MB). Ask for less: fewer rounds or "
            f"simulations, a category, or a sample of the file. ({exc})"
        )
    else:
        _LOG.error("page error\n%s", "".join(traceback.format_exception(exc)))
        error(
            f"{type(exc).__name__}: {exc}",
            lead="**This page stopped on an unexpected "
            "problem.** The data loaded is kept; try another setting, or report the problem "
            "with the file that caused it.",
        )


def run_page(page: Any) -> None:
    """Run the navigation's page; any error is an error box in words, never an exception box.

    ``st.stop`` and ``st.rerun`` are not errors (Streamlit's control exceptions derive from
    ``BaseException`` and pass through).
    """
    try:
        page.run()
    except Exception as exc:  # noqa: BLE001 - the page wrapper: every error becomes words
        show_error(exc)


def url_param(name: str, default: str | None = None) -> str | None:
    """A view setting from the URL (``?name=value``, a string), or ``default`` when absent."""
    value = st.query_params.get(name)
    return value if value else default


def url_int(name: str, default: int, *, low: int, high: int) -> int:
    """An integer view setting from the URL, or ``default`` when absent or not a number in range."""
    try:
        value = int(url_param(name, str(default)))
    except ValueError:
        return default
    return value if low <= value <= high else default


def set_url_param(name: str, value: object) -> None:
    """Write a view setting into the URL so a copied link reproduces it; None removes it."""
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
    key = url_param("dataset")
    if key:
        try:
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
    for name in ("judge", "category"):
        if url_param(name):
            st.session_state[f"vl_{name}"] = url_param(name)


def ensure_data() -> VerdictStore:
    """The session's store, with the link's dataset or else the default demo on the first visit."""
    store = session_store()
    apply_url()
    s = state()
    if s["version"] == 0:  # a new session
        load_demo()
    elif s.get("store_id") != id(store):
        # The session came back after its store was released (its browser was away longer than
        # Streamlit keeps resources): reload what can be reloaded, else the demo, and say so.
        _reload(store)
    set_url_param("dataset", dataset_key())
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
        st.stop()
    return store


def forget_on_new_data(*keys: str) -> None:
    """Drop these widgets' values when another dataset is loaded, so that defaults that depend on
    the data (an anchor, a comparison) apply again instead of a stale choice."""
    marker, version = "data_version:" + ",".join(keys), state()["version"]
    if st.session_state.get(marker) != version:
        for key in keys:
            st.session_state.pop(key, None)
        st.session_state[marker] = version


def memo(key: tuple, compute: Callable[[], T]) -> T:
    """Compute once per dataset version and key; results live in this session only."""
    s = state()
    full = (s["version"],) + tuple(key)
    if full not in s["memo"]:
        s["memo"][full] = compute()
    return s["memo"][full]


def judge_picker(store: VerdictStore, *, key: str = "judge") -> str:
    """A judge selector shared by the pages (remembers the choice across pages)."""
    judges = store.judges()
    current = st.session_state.get("vl_judge")
    if current is not None and current not in judges:
        # A link (or an earlier dataset) named a judge this dataset does not have: say so.
        warning(
            f"The judge {current} (named by the link or the previous dataset) is not in "
            f"this dataset; "
            f"showing {judges[0]} instead."
        )
        st.session_state["vl_judge"] = None
    index = judges.index(current) if current in judges else 0
    judge = st.selectbox(
        "Judge",
        judges,
        index=index,
        key=f"{key}_select",
        help="Every analysis is per judge: judges differ in bias and scale.",
    )
    st.session_state["vl_judge"] = judge
    set_url_param("judge", judge)
    return judge


def category_picker(store: VerdictStore, *, key: str = "category") -> str | None:
    categories = store.categories()
    current = st.session_state.get("vl_category")
    if current is not None and current not in categories:
        warning(
            f"The category {current} (named by the link or the previous dataset) is not in "
            "this dataset; "
            "showing all categories instead."
        )
        st.session_state["vl_category"] = None
        current = None
    if not categories:
        set_url_param("category", None)
        return None
    index = categories.index(current) + 1 if current in categories else 0
    choice = st.selectbox("Category", ("All categories",) + categories, index=index, key=f"{key}_select")
    value = None if choice == "All categories" else choice
    st.session_state["vl_category"] = value
    set_url_param("category", value)
    return value


def selection(store: VerdictStore, *, key: str, columns: Any = None) -> tuple[str, str | None]:
    """The judge and category pickers side by side (widget keys ``<key>_judge`` and
    ``<key>_category``), in ``columns`` if given, else in two new columns."""
    left, right = columns if columns is not None else st.columns(2)
    with left:
        judge = judge_picker(store, key=f"{key}_judge")
    with right:
        category = category_picker(store, key=f"{key}_category")
    return judge, category


@contextmanager
def progress_bar(text: str) -> Iterator[Callable[[float, str], None]]:
    """A progress bar for one long computation: yields the ``progress(fraction, text)`` callback
    evalcore's long functions take, and removes the bar when the block ends (also on an error)."""
    bar = st.progress(0.0, text=text)

    def progress(fraction: float, message: str) -> None:
        bar.progress(min(1.0, max(0.0, float(fraction))), text=md(message))

    try:
        yield progress
    finally:
        bar.empty()


def demo_banner() -> None:
    """Say that the data are simulated when a demo is loaded."""
    s = state()
    if s.get("demo"):
        st.caption(
            f":material/science: {s['demo']} — **simulated data**: the models and judges are made up "
            "by evalcore's simulator, not real systems."
        )


def safe_csv(frame: pd.DataFrame) -> bytes:
    """CSV for download, with spreadsheet formula injection neutralised (=, +, -, @ prefixes)."""

    def defuse(value):
        if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
            return "'" + value
        return value

    out = frame.copy()
    out.columns = [defuse(c) for c in out.columns]  # model names can be headers (matrices)
    for i in range(out.shape[1]):
        col = out.iloc[:, i]
        if (
            col.dtype == object
            or pd.api.types.is_string_dtype(col.dtype)
            or isinstance(col.dtype, pd.CategoricalDtype)
        ):
            out.isetitem(i, col.astype(object).map(defuse))
    return out.to_csv(index=False).encode("utf-8")


def tiles(rows: Any, *, empty: str = "", escape: bool = True) -> None:
    """A row of metric tiles from evalcore's ``Metric`` objects or ``(label, value, help)``
    tuples. ``escape=False`` only for values evalcore wrote as numbers (escaping would turn
    "0.340" into "0\\.340" in the element's text); anything that may hold a name is escaped."""
    rows = [(r.label, r.value, r.help) if hasattr(r, "label") else tuple(r) for r in rows]
    if not rows and empty:
        st.info(empty)
    for column, (label, value, why) in zip(st.columns(max(len(rows), 1)), rows, strict=False):
        if escape:
            metric(column, label, value, help=why)
        else:
            metric_tile(column, label, value, help=why or None)


def number_tiles(rows: Any, *, empty: str = "") -> None:
    """:func:`tiles` of numbers evalcore wrote (not escaped; see there)."""
    tiles(rows, empty=empty, escape=False)


def chart(
    figure: Any, where: Any = None, data: Any = None, name: str = "", *, key: str | None = None
) -> None:
    """A Plotly figure at full width (in ``where`` if given), with its data as a CSV if named."""
    from evalcore.plots.common import CONFIG

    with where or st.container():
        st.plotly_chart(figure, config=CONFIG, key=key, width="stretch")
        if name:
            download_csv(data, name)


def table(
    frame: pd.DataFrame, data: pd.DataFrame | None = None, name: str = "", key: str | None = None
) -> None:
    """A table at full width, and the numbers behind it (``data``, else the table) as a CSV.
    Whole-number columns (counts) get a thousands separator: 114,000, not 114000."""
    st.dataframe(frame, hide_index=True, width="stretch", column_config=count_columns(frame))
    if name:
        download_csv(frame if data is None else data, name, key=key)


def download_csv(
    frame: pd.DataFrame, name: str, *, label: str = "Download CSV", key: str | None = None
) -> None:
    st.download_button(
        label,
        data=safe_csv(frame),
        file_name=name,
        mime="text/csv",
        key=key or f"dl_{name}",
        on_click="ignore",
    )


def orders_picker(*, key: str = "orders") -> bool:
    """Offer the both-orders verdict (the verdict both orders agree on, else a tie)."""
    return st.toggle(
        "Both-orders verdicts",
        key=f"{key}_toggle",
        help="Combine the two orders of each pair into the verdict both orders agree "
        "on, else a tie (Zheng et al., 2023, “Judging LLM-as-a-judge”). Needs pairs judged in both orders; pairs judged in one order "
        "only are left out while it is on.",
    )


def counts(store: VerdictStore, judge: str | None, category: str | None = None, *, both_orders: bool = False):
    """The session's memoised count tensor for a judge (and category, and order handling)."""

    def compute():
        c = store.counts(judge=judge, category=category)
        if both_orders:
            from evalcore.judge import both_orders_counts

            c = both_orders_counts(c)
        return c

    return memo(("counts", judge, category, both_orders), compute)


# -- navigation: the card's pages/ folder, deep links from the first request ------------------
# Streamlit's classic multipage mode serves pages/<name>.py at /<name> (query parameters kept),
# also as the first request to a fresh server; its own page list is hidden
# (client.showSidebarNavigation = false) and the sidebar below is drawn on every page instead.

#: (file, label, icon) of every page, in sidebar order.
NAVIGATION: tuple[tuple[str, str, str], ...] = (
    ("app.py", "Data", ":material/database:"),
    ("pages/overview.py", "Overview", ":material/summarize:"),
    ("pages/leaderboard.py", "Leaderboard", ":material/leaderboard:"),
    ("pages/anchors.py", "Anchors", ":material/anchor:"),
    ("pages/anchor_planning.py", "Anchor planning", ":material/event_note:"),
    ("pages/judge.py", "Judge", ":material/gavel:"),
    ("pages/ties.py", "Tie structure", ":material/drag_handle:"),
    ("pages/power.py", "Power", ":material/straighten:"),
    ("pages/calibration.py", "Calibration", ":material/tune:"),
    ("pages/verdicts.py", "Verdicts", ":material/fact_check:"),
    ("pages/methods.py", "Methods", ":material/menu_book:"),
)
FAVICON = ROOT / "data" / "favicon.png"


def verdicts_link(label: str, flt: Any, *, switch: bool = False, help: str | None = None) -> None:
    """A link from a number to its evidence: the Verdicts page with the filter ``flt`` (an
    :class:`evalcore.verdicts.VerdictFilter`) and the dataset in its URL.

    ``label`` is the app's own words. ``switch=True`` opens the page at once (a click on a chart
    cell); ``flt=None`` (nothing chosen) draws nothing.
    """
    from streamlit.errors import StreamlitAPIException

    if flt is None:
        return
    key = dataset_key()
    params = {**({"dataset": key} if key else {}), **flt.as_params()}
    if switch:
        st.switch_page("pages/verdicts.py", query_params=params)
    try:
        st.page_link(
            "pages/verdicts.py", label=label, icon=":material/fact_check:", query_params=params, help=help
        )
    except StreamlitAPIException:  # a page run on its own (a test's script): no app to link in
        pass


def sidebar() -> None:
    """The product's navigation, drawn in the sidebar of every page."""
    from streamlit.errors import StreamlitAPIException

    with st.sidebar:
        st.markdown("**Verdict Lab**")
        for file, label, icon in NAVIGATION:
            try:
                st.page_link(file, label=label, icon=icon)
            except StreamlitAPIException:  # a page run on its own (a test's script): no app
                return


def methods_link(section: str, *, label: str = "Method and references") -> None:
    """A link to the Methods page opened at ``section`` (a heading of docs/methods.md, e.g.
    ``"anchor-selection"``); the session and its data stay."""
    from streamlit.errors import StreamlitAPIException

    try:
        st.page_link(
            "pages/methods.py", label=label, icon=":material/menu_book:", query_params={"section": section}
        )
    except StreamlitAPIException:  # a page run on its own (a test's script): no app
        pass


@contextmanager
def page(title: str) -> Iterator[None]:
    """Set up a page (title, icon, sidebar) and run its body; any error becomes an error box in
    words, never an exception box. ``st.stop`` and ``st.rerun`` pass through (they are not
    ``Exception``\\ s)."""
    st.set_page_config(page_title=f"{title} · Verdict Lab", page_icon=str(FAVICON), layout="wide")
    st.html(READABLE_CSS)
    sidebar()
    try:
        yield
    except Exception as exc:  # noqa: BLE001 - the page wrapper: every error becomes words
        show_error(exc)
