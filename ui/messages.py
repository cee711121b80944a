"""User text on screen: escaped Markdown, alerts, metrics, and errors in words."""

from __future__ import annotations

import logging
import traceback
from typing import Any

import streamlit as st

from evalcore import limits, text
from evalcore.errors import EvalcoreError
from evalcore.schema import VerdictFormatError
from ui.readable import metric_tile
from ui.status import stop

_LOG = logging.getLogger("verdictlab")


#: User text in Markdown (alerts, captions, headers, metric values): shown as typed, never as
#: formatting, a link or an image. One function for every page (:func:`evalcore.text.markdown`).
escape_markdown = text.markdown
md = text.markdown


#: User text shown verbatim as inline code (names in sentences).
code_span = text.code_span


def warning(*messages: Any) -> None:
    """A warning for each message, whose whole text is user-influenced (an analysis note naming
    models)."""
    for message in messages:
        st.warning(md(message))


def stop_with(message: Any) -> None:
    """Say why the page cannot go on (a warning in words) and end this run of the page."""
    warning(message)
    stop()


def info(*messages: Any) -> None:
    """A note for each message (user text escaped)."""
    for message in messages:
        st.info(md(message))


def caption(*messages: Any) -> None:
    """A caption for each message (user text escaped)."""
    for message in messages:
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


def alerts(messages: Any) -> None:
    """Show evalcore's alerts (objects with ``kind`` — success, info, warning, error — and
    ``text``, Markdown the presentation already escaped) in their own colours."""
    for m in messages:
        getattr(st, m.kind)(m.text)
