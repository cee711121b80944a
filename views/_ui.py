"""Streamlit glue shared by the pages: the session's store, the data guard, pickers, downloads.

Pages stay thin: widgets, a call into evalcore, a figure. Nothing here computes a statistic.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable, TypeVar

import pandas as pd
import streamlit as st

from evalcore.io import read_verdicts
from evalcore.store import VerdictStore
from evalcore.workspace import UnknownDataset, Workspace, WorkspaceError

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"

#: The bundled demo datasets: label → (verdict file, human ranking file or None).
DEMO_DATASETS: dict[str, tuple[Path, Path | None]] = {
    "Demo: all pairs, 20 simulated models, 3 judges": (
        DATA / "demo_all_pairs.parquet", DATA / "demo_human_ranking.csv"),
    "Demo: anchor-only (AlpacaEval-style), 16 simulated models": (
        DATA / "demo_anchor_only.csv.gz", None),
}
DEFAULT_DEMO = next(iter(DEMO_DATASETS))
#: Short keys of the demos in a shareable URL (``?dataset=demo-anchor``): key → label.
DEMO_KEYS: dict[str, str] = dict(zip(("demo-all-pairs", "demo-anchor"), DEMO_DATASETS, strict=True))

T = TypeVar("T")


def _close(store: VerdictStore) -> None:
    store.close()


@st.cache_resource(scope="session", on_release=_close, show_spinner=False)
def session_store() -> VerdictStore:
    """This browser session's own DuckDB database (never shared between sessions)."""
    return VerdictStore()


def state() -> dict:
    """Per-session bookkeeping: dataset version, memo of results, origin of the data."""
    ss = st.session_state
    if "vl" not in ss:
        ss["vl"] = {"version": 0, "memo": {}, "source": None, "demo": None, "format": None,
                    "human_ranking": None, "notes": (), "error": None}
    return ss["vl"]


def load_demo(label: str = DEFAULT_DEMO) -> None:
    path, ranking = DEMO_DATASETS[label]
    table = read_verdicts(path)
    human = None
    if ranking is not None:
        from evalcore.io import read_human_ranking

        human = read_human_ranking(ranking)
    install(table, demo=label, human_ranking=human)


def install(table, *, demo: str | None = None, human_ranking: pd.DataFrame | None = None,
            saved: str | None = None) -> None:
    """Put a validated table into this session's store and forget results of the old one."""
    session_store().load(table)
    s = state()
    s["version"] += 1
    s["memo"] = {}
    s["source"] = table.file
    s["format"] = table.format
    s["demo"] = demo
    s["human_ranking"] = human_ranking
    s["notes"] = table.report.notes
    s["error"] = None
    s["saved"] = saved
    s["url_problem"] = None
    set_url_param("dataset", dataset_key())


def workspace() -> Workspace:
    """The workspace of saved datasets ($VERDICTLAB_WORKSPACE or ./workspace/verdictlab.duckdb)."""
    return Workspace()


def load_saved(name: str) -> None:
    """Load a saved dataset through the same path as an upload; raises WorkspaceError."""
    loaded = workspace().load(name)
    install(loaded.table, saved=name, human_ranking=loaded.human_ranking)


def dataset_key() -> str | None:
    """The URL key of what is loaded: a demo key, a saved dataset's name, or None (an upload)."""
    s = state()
    if s.get("demo"):
        return next((k for k, label in DEMO_KEYS.items() if label == s["demo"]), None)
    return s.get("saved")


def escape_markdown(text: str) -> str:
    """User text in prose (an error quoting a name) with markdown syntax escaped. Streamlit still
    turns ``--`` into an em dash and bare URLs into links: show names themselves with code_span."""
    # Only what can start formatting, a link, maths or a :shortcode: inside running text; the
    # rest (., -, >, …) stays readable in the source of the message.
    return re.sub(r"([\\`*_\[\]|~$:])", r"\\\1", str(text))


def code_span(text: str) -> str:
    """User text shown verbatim in markdown as inline code (typography such as -- → — is off)."""
    ticks = "`" * (max((len(run) for run in re.findall(r"`+", str(text))), default=0) + 1)
    return f"{ticks} {text} {ticks}"


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
            why = ("it is neither a demo (`demo-all-pairs`, `demo-anchor`) nor a saved dataset; "
                   "pick a saved dataset on the **Data** page" if isinstance(exc, UnknownDataset)
                   else escape_markdown(exc))
            s["url_problem"] = (f"The link's dataset {code_span(key)} was not loaded (the demo is "
                                f"shown instead): {why}.")
    for name in ("judge", "category"):
        if url_param(name):
            st.session_state[f"vl_{name}"] = url_param(name)


def ensure_data() -> VerdictStore:
    """The session's store, with the link's dataset or else the default demo on the first visit."""
    store = session_store()
    apply_url()
    if state()["version"] == 0:  # a new session (its store may be a reused, stale resource)
        load_demo()
    set_url_param("dataset", dataset_key())
    if state().get("url_problem"):
        st.warning(state()["url_problem"])
    return store


def require_data() -> VerdictStore:
    """Stop the page with a pointer to the data page when nothing is loaded."""
    store = ensure_data()
    if store.is_empty:
        st.info("No data is loaded. Pick the demo or upload a verdict file on the **Data** page.")
        st.stop()
    return store


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
    index = judges.index(current) if current in judges else 0
    judge = st.selectbox("Judge", judges, index=index, key=f"{key}_select",
                         help="Every analysis is per judge: judges differ in bias and scale.")
    st.session_state["vl_judge"] = judge
    set_url_param("judge", judge)
    return judge


def category_picker(store: VerdictStore, *, key: str = "category") -> str | None:
    categories = store.categories()
    current = st.session_state.get("vl_category")
    if not categories:
        set_url_param("category", None)
        return None
    index = categories.index(current) + 1 if current in categories else 0
    choice = st.selectbox("Category", ("All categories",) + categories, index=index,
                          key=f"{key}_select")
    value = None if choice == "All categories" else choice
    st.session_state["vl_category"] = value
    set_url_param("category", value)
    return value


def demo_banner() -> None:
    s = state()
    if s.get("demo"):
        st.caption(f":material/science: {s['demo']} — **simulated data**: the models and judges are made up "
                   "by evalcore's simulator, not real systems.")


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
        if (col.dtype == object or pd.api.types.is_string_dtype(col.dtype)
                or isinstance(col.dtype, pd.CategoricalDtype)):
            out.isetitem(i, col.astype(object).map(defuse))
    return out.to_csv(index=False).encode("utf-8")


def download_csv(frame: pd.DataFrame, name: str, *, label: str = "Download CSV",
                 key: str | None = None) -> None:
    st.download_button(label, data=safe_csv(frame), file_name=name, mime="text/csv",
                       key=key or f"dl_{name}", on_click="ignore")


def orders_picker(*, key: str = "orders") -> bool:
    """Offer the both-orders verdict (the verdict both orders agree on, else a tie)."""
    return st.toggle("Both-orders verdicts", key=f"{key}_toggle",
                     help="Combine the two orders of each pair into the verdict both orders agree "
                     "on, else a tie (seed 003). Needs pairs judged in both orders; pairs judged in one order "
                     "only are left out while it is on.")


def counts(store: VerdictStore, judge: str | None, category: str | None = None,
           *, both_orders: bool = False):
    """The session's memoised count tensor for a judge (and category, and order handling)."""
    def compute():
        c = store.counts(judge=judge, category=category)
        if both_orders:
            from evalcore.judge import both_orders_counts

            c = both_orders_counts(c)
        return c

    return memo(("counts", judge, category, both_orders), compute)
