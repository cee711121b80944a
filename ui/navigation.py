"""The product's navigation and the wrapper every page runs in."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import streamlit as st

from ui import warm
from ui.messages import code_span, show_error
from ui.readable import READABLE_CSS
from ui.state import ROOT, dataset_key, unknown_params
from ui.status import status_line

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
#: The same registry by page name (the file's stem; ``app`` is the Data page): every link to a
#: page takes its file, label and icon from here (:func:`page_link`).
PAGES: dict[str, tuple[str, str, str]] = {
    Path(file).stem: (file, label, icon) for file, label, icon in NAVIGATION
}


def page_link(
    name: str, *, label: str | None = None, query_params: dict | None = None, help: str | None = None
) -> None:
    """A link to the registered page ``name`` (its label unless ``label`` is given); nothing when
    the page runs on its own (a test's script: no app to link in)."""
    from streamlit.errors import StreamlitAPIException

    file, title, icon = PAGES[name]
    try:
        st.page_link(file, label=label or title, icon=icon, query_params=query_params, help=help)
    except StreamlitAPIException:  # a page run on its own (a test's script): no app
        pass


#: A headline finding whose words point at one tab of its page: (finding, the number of its
#: that says so) → that tab, which its link opens (the tab's name on the page: ``tab=`` in a link).
FINDING_TABS: dict[tuple[str, str], str] = {("leader", "categories_differ"): "Categories"}


def finding_tab(finding: Any) -> str | None:
    """The tab of its page that a finding's link opens, None for the page's first view."""
    return next(
        (
            tab
            for (key, number), tab in FINDING_TABS.items()
            if finding.key == key and finding.numbers.get(number)
        ),
        None,
    )


def finding_link(finding: Any) -> None:
    """The link from a headline finding to the page with its detail, at the tab its words point
    at (the Leaderboard's categories when the order differs within one of them)."""
    tab = finding_tab(finding)
    label = f"Open the {PAGES[finding.page][1]} page" + (f" at its {tab.lower()}" if tab else "")
    page_link(finding.page, label=label, query_params={"tab": tab} if tab else None)


def sidebar() -> None:
    """The product's navigation, drawn in the sidebar of every page."""
    with st.sidebar:
        st.markdown("**Verdict Lab**")
        for name in PAGES:
            page_link(name)


@contextmanager
def page(title: str) -> Iterator[None]:
    """Set up a page (title, icon, sidebar) and run its body; any error becomes an error box in
    words, never an exception box. ``st.stop`` and ``st.rerun`` pass through (they are not
    ``Exception``\\ s)."""
    st.set_page_config(page_title=f"{title} · Verdict Lab", page_icon=str(FAVICON), layout="wide")
    warm.announced()  # the page draws now: the start-up note (a fresh server's first page) goes
    with status_line(title):  # first: what the page computes, in words, until it is drawn
        warm.start(warm.requested_page())  # a fresh server: the demo's results start in the background
        st.html(READABLE_CSS)
        sidebar()
        st.session_state["_vl_url_known"] = set()  # the link parameters this run reads (ui.state)
        st.session_state["_vl_url_said"] = set()
        unknown = st.empty()  # at the top: filled once the page has read what it reads
        try:
            with warm.running_page():  # the start-up work pauses between its pieces meanwhile
                yield
        except Exception as exc:  # noqa: BLE001 - the page wrapper: every error becomes words
            show_error(exc)
            return
        if names := unknown_params():
            unknown.warning(unknown_sentence(names), icon=":material/link_off:")


def unknown_page() -> str | None:
    """The page a link asked for when it names no page of the app (Streamlit then runs the Data
    page with a "Page not found" box that does not say which): None when it names one.

    Streamlit keeps the requested page name of the run in its pages manager (the only place it
    is known once the main page runs instead)."""
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

        ctx = get_script_run_ctx()
        name = ctx.pages_manager.intended_page_name if ctx is not None else None
    except Exception:  # noqa: BLE001 - another Streamlit version: the check is a courtesy
        return None
    name = str(name or "").strip("/")
    return None if not name or (name in PAGES and name != "app") else name


def unknown_sentence(names: list[str]) -> str:
    """The warning about link parameters this page does not know (Markdown, names as code)."""
    listed = ", ".join(code_span(n) for n in names)
    one = len(names) == 1
    return (
        f"The link's parameter{'' if one else 's'} {listed} {'is' if one else 'are'} not a setting "
        "of this page and had no effect (a typo, or a setting of another page)."
    )


def verdicts_link(
    label: str, flt: Any, *, switch: bool = False, help: str | None = None, extra: dict | None = None
) -> None:
    """A link from a number to its evidence: the Verdicts page with the filter ``flt`` (an
    :class:`evalcore.verdicts.VerdictFilter`) and the dataset in its URL.

    ``label`` is the app's own words. ``switch=True`` opens the page at once (a click on a chart
    cell); ``flt=None`` (nothing chosen) draws nothing. ``extra``: view settings the Verdicts
    page reads besides the filter (``orders=both``: the pair's statistic in both-orders verdicts).
    """

    if flt is None:
        return
    key = dataset_key()
    params = {**({"dataset": key} if key else {}), **flt.as_params(), **(extra or {})}
    if switch:
        st.switch_page(PAGES["verdicts"][0], query_params=params)
    page_link("verdicts", label=label, query_params=params, help=help)


def methods_link(section: str, *, label: str = "Method and references") -> None:
    """A link to the Methods page opened at ``section`` (a heading of docs/methods.md, e.g.
    ``"anchor-selection"``); the session and its data stay."""
    page_link("methods", label=label, query_params={"section": section})
