"""The page's status line: what the page is computing, in words, from its first paint.

A page opened for the first time in a session (a shared link, a fresh server) has nothing to show
until its results arrive, and Streamlit's spinner appears only after half a second. So the page
wrapper (:func:`ui.navigation.page`) writes a status line at the top of the page before anything
else (what the page computes, :data:`DOING`), :func:`busy` replaces its words while a step runs
("Loading the demo table…"), and the wrapper removes it once the page is drawn. A page already
rerun after a widget change keeps the page's last picture on screen: there :func:`busy` is a spinner.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

import streamlit as st

#: What a page's first draw computes, by its title: the status line's words until a step says more.
DOING: dict[str, str] = {
    "Data": "Summarising the loaded table: calls, models, judges and pairs…",
    "Overview": "Computing the headline findings…",
    "Leaderboard": "Ranking the models and computing their intervals…",
    "Anchors": "Ranking the models against every candidate anchor…",
    "Anchor planning": "Ranking the models against every candidate anchor…",
    "Judge": "Computing the judges' spec sheets…",
    "Tie structure": "Ranking the models under three ways of counting ties…",
    "Power": "Ranking the models and computing the power of their comparisons…",
    "Calibration": "Calibrating the judge against the human labels…",
    "Verdicts": "Reading the cases…",
    "Methods": "Reading the methods and references…",
}
#: The key of the status line's container (its CSS class ``st-key-vl_status``: the browser
#: benchmark and tests find it by it).
KEY = "vl_status"
#: The session-state key of the page this session drew whole last (its title): a rerun of that
#: page keeps its last picture on screen, any other page starts blank.
DRAWN = "_vl_drawn_page"

#: The status line of the page this thread runs, and the words it shows (a script runs in a
#: thread of its own).
_LINE = threading.local()


def _write(text: str) -> None:
    line = getattr(_LINE, "words", None)
    if line is not None:
        _LINE.text = text
        line.info(text, icon=":material/hourglass_top:")


@contextmanager
def status_line(title: str) -> Iterator[None]:
    """Around a page's body: unless this page was the last drawn whole in this session, the status line at the top saying
    what the page computes, removed once the page is drawn (or stopped, or failed)."""
    first = st.session_state.get(DRAWN) != title
    _LINE.placeholder = _LINE.words = None
    _LINE.title = title
    if first:  # the line in a keyed container (made once a run), the whole removed at the end
        _LINE.placeholder = st.empty()
        _LINE.words = _LINE.placeholder.container(key=KEY).empty()
        _write(DOING.get(title, f"Drawing the {title} page…"))
    try:
        yield
        st.session_state[DRAWN] = title
    finally:
        line, _LINE.placeholder, _LINE.words = _LINE.placeholder, None, None
        if line is not None:
            line.empty()


@contextmanager
def inside_section() -> Iterator[None]:
    """Around a section that its own widgets redraw alone (:func:`ui.widgets.section`): what it
    computes is said by a spinner inside it, never in the page's status line. Streamlit replays a
    fragment's writes to a container made outside it at the start of each of its reruns; the
    status line is gone by then, and the browser, asked to write into an element, dropped the
    whole app (a blank page, still "running") at a fresh visitor's first change of the Tie
    structure page's judge."""
    before = getattr(_LINE, "section", False)
    _LINE.section = True
    try:
        yield
    finally:
        _LINE.section = before


@contextmanager
def busy(text: str) -> Iterator[None]:
    """Say ``text`` while the block runs: at once in the status line of a page's first draw,
    else (or inside a section, :func:`inside_section`) as a spinner where the block draws (shown
    after half a second)."""
    if getattr(_LINE, "placeholder", None) is None or getattr(_LINE, "section", False):
        with st.spinner(text):
            yield
        return
    before = _LINE.text
    _write(text)
    try:
        yield
    finally:
        if getattr(_LINE, "placeholder", None) is not None:
            _write(before)


def stop() -> NoReturn:
    """End this run of the page (``st.stop``), the status line taken down first and the page
    counted as drawn: Streamlit sends nothing a page writes once it has stopped, so the line
    would stay on a page that ends early (the Tie structure page of a table without a pointwise
    score table kept "Ranking the models…" under its last section)."""
    line, _LINE.placeholder, _LINE.words = getattr(_LINE, "placeholder", None), None, None
    if line is not None:
        line.empty()
    if (title := getattr(_LINE, "title", None)) is not None:
        st.session_state[DRAWN] = title
    st.stop()
