"""Streamlit glue shared by the pages: the session's store, the data guard, pickers, downloads.

Pages stay thin: widgets, a call into evalcore, a figure. Nothing here computes a statistic.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, TypeVar

import pandas as pd
import streamlit as st

from evalcore.io import read_verdicts
from evalcore.store import VerdictStore

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


def install(table, *, demo: str | None = None, human_ranking: pd.DataFrame | None = None) -> None:
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


def ensure_data() -> VerdictStore:
    """The session's store, with the default demo loaded on the very first visit."""
    store = session_store()
    if store.is_empty and state()["version"] == 0:
        load_demo()
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
    return judge


def category_picker(store: VerdictStore, *, key: str = "category") -> str | None:
    categories = store.categories()
    if not categories:
        return None
    choice = st.selectbox("Category", ("All categories",) + categories, key=f"{key}_select")
    return None if choice == "All categories" else choice


def demo_banner() -> None:
    s = state()
    if s.get("demo"):
        st.caption(f"📎 {s['demo']} — **simulated data**: the models and judges are made up "
                   "by evalcore's simulator, not real systems.")


def safe_csv(frame: pd.DataFrame) -> bytes:
    """CSV for download, with spreadsheet formula injection neutralised (=, +, -, @ prefixes)."""
    def defuse(value):
        if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
            return "'" + value
        return value

    out = frame.copy()
    for column in out.columns:
        if out[column].dtype == object or pd.api.types.is_string_dtype(out[column].dtype):
            out[column] = out[column].map(defuse)
    return out.to_csv(index=False).encode("utf-8")


def download_csv(frame: pd.DataFrame, name: str, *, label: str = "Download CSV",
                 key: str | None = None) -> None:
    st.download_button(label, data=safe_csv(frame), file_name=name, mime="text/csv",
                       key=key or f"dl_{name}", on_click="ignore")


def orders_picker(*, key: str = "orders") -> bool:
    """Offer the both-orders verdict (the verdict both orders agree on, else a tie)."""
    return st.toggle("Both-orders verdicts", key=f"{key}_toggle",
                     help="Combine the two orders of each pair into the verdict both orders agree "
                     "on, else a tie (seed 003). Needs pairs judged in both orders.")


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
