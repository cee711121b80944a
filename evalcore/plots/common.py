"""Shared look of every figure: one template, readable fonts, offline-safe config, and user text
that stays text.

:func:`style` is the last step of every figure builder (pages and the report share the figures).
Besides the look, it runs :func:`evalcore.text.plotly_sanitize` over every text a figure carries
(trace names, category values on the axes, text, hover texts and templates, custom data, tick
texts, titles, annotations, legend titles), so a model named ``<a href="https://…">x</a>`` can
never become a link or a style in any chart, even in a builder that did not escape its labels.
Builders that put user text into labels should still escape it with :func:`label` first: that
shows every character as typed (``<b>x</b>`` literally, not bold).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import plotly.graph_objects as go

from evalcore.text import plotly as label
from evalcore.text import plotly_sanitize

__all__ = ["ACCENT", "CONFIG", "MUTED", "PRIMARY", "TEMPLATE", "label", "labels", "sanitize", "style"]

TEMPLATE = "plotly_white"
#: Plotly config for pages and the report: the camera button saves a PNG in the browser.
CONFIG = {
    "displaylogo": False,
    "showSendToCloud": False,
    "toImageButtonOptions": {"format": "png", "scale": 2},
}
ACCENT = "#c2410c"
MUTED = "#94a3b8"
PRIMARY = "#1d4ed8"

#: Keys whose string values Plotly draws as (pseudo-HTML) text. Category values (x, y, labels,
#: categoryarray, tickvals) are sanitised the same way as the labels drawn from them, so an axis
#: order still matches its traces.
_TEXT_KEYS = frozenset(
    {
        "text",
        "name",
        "title",
        "x",
        "y",
        "z",
        "labels",
        "parents",
        "ids",
        "hovertext",
        "hovertemplate",
        "texttemplate",
        "ticktext",
        "tickvals",
        "customdata",
        "categoryarray",
        "legendgrouptitle",
        "header",
        "cells",
        "values",
        "meta",
    }
)


def labels(values: Any) -> list[str]:
    """Several user texts as Plotly labels (see :func:`label`)."""
    return [label(v) for v in values]


def _clean(value: Any, key: str | None) -> tuple[Any, bool]:
    """``value`` with every string under a text key sanitised, and whether anything changed."""
    if isinstance(value, str):
        if key in _TEXT_KEYS:
            clean = plotly_sanitize(value)
            return clean, clean != value
        return value, False
    if isinstance(value, dict):
        out, changed = {}, False
        for k, v in value.items():
            if k == "template":  # the theme: no user text
                out[k] = v
                continue
            out[k], c = _clean(v, k)
            changed |= c
        return out, changed
    if isinstance(value, np.ndarray):
        if key in _TEXT_KEYS and value.dtype.kind in "OU":
            flat = value.ravel()
            cleaned = [plotly_sanitize(v) if isinstance(v, str) else v for v in flat.tolist()]
            if any(isinstance(a, str) and a != b for a, b in zip(cleaned, flat.tolist(), strict=True)):
                arr = np.empty(value.shape, dtype=object)
                arr.ravel()[:] = cleaned
                return arr, True
        return value, False
    if isinstance(value, list | tuple):
        items = [_clean(v, key) for v in value]
        if any(c for _, c in items):
            return type(value)(v for v, _ in items) if isinstance(value, tuple) else [
                v for v, _ in items
            ], True
        return value, False
    return value, False


def sanitize(fig: go.Figure) -> go.Figure:
    """Escape, in place, every tag in the figure's texts that could link, style or load anything."""
    for trace in fig.data:
        for key, value in trace.to_plotly_json().items():
            if key == "type":
                continue
            clean, changed = _clean(value, key)
            if changed:
                trace[key] = clean
    for key, value in fig.layout.to_plotly_json().items():
        if key == "template":
            continue
        clean, changed = _clean(value, key)
        if changed:
            fig.layout[key] = clean
    return fig


def style(fig: go.Figure, *, title: str | None = None, height: int | None = None) -> go.Figure:
    """The shared look, and every text of the figure made safe (:func:`sanitize`)."""
    fig.update_layout(
        template=TEMPLATE,
        title=title,
        font={"size": 13},
        margin={"l": 10, "r": 10, "t": 50 if title else 20, "b": 10},
    )
    if height:
        fig.update_layout(height=height)
    return sanitize(fig)
