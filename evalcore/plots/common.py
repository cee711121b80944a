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

from functools import lru_cache
from typing import Any

import numpy as np
import plotly.graph_objects as go

from evalcore.text import fmt_compact, plotly_sanitize
from evalcore.text import plotly as label

#: Longest model name drawn on an axis; longer ones are cut with "…" and shown whole on hover.
AXIS_NAME_CHARS = 28
#: Longest line of a figure's title (it wraps at words): whole at 390 px, a phone's width.
TITLE_CHARS = 40
#: Height of Plotly's toolbar over the top of a figure; titles start below it.
TOOLBAR_PX = 38

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


def log_ticks(values: Any) -> tuple[list[float], list[str]]:
    """Readable ticks for a log axis over ``values``: 1, 10, 100, 1k … over several decades, and
    the 1–2–5 steps within one or two decades (never Plotly's "2 3 4 … 9 100 2 3").

    Examples
    --------
    >>> log_ticks([25, 1600])[1]
    ['20', '50', '100', '200', '500', '1k', '2k']
    >>> log_ticks([3, 2_000_000])[1]
    ['1', '10', '100', '1k', '10k', '100k', '1M', '10M']
    """
    data = np.asarray([v for v in np.ravel(np.asarray(values, dtype=float)) if np.isfinite(v) and v > 0])
    if data.size == 0:
        return [], []
    low, high = np.floor(np.log10(data.min())), np.ceil(np.log10(data.max()))
    high = max(high, low + 1)
    steps = (1.0, 2.0, 5.0) if high - low <= 3 else (1.0,)
    ticks = [m * 10**e for e in range(int(low), int(high) + 1) for m in steps]
    # one tick either side of the data at most, so the axis does not stretch
    below = [t for t in ticks if t <= data.min()]
    above = [t for t in ticks if t >= data.max()]
    lo = below[-1] if below else ticks[0]
    hi = above[0] if above else ticks[-1]
    ticks = [t for t in ticks if lo <= t <= hi]
    return ticks, [fmt_compact(t) for t in ticks]


def log_axis(fig: go.Figure, values: Any, *, axis: str = "y", title: str | None = None) -> go.Figure:
    """Make ``axis`` ("x" or "y") a log axis with :func:`log_ticks` over ``values``."""
    ticks, text = log_ticks(values)
    update = fig.update_yaxes if axis == "y" else fig.update_xaxes
    options: dict[str, Any] = {"type": "log", "tickmode": "array", "tickvals": ticks, "ticktext": text}
    if title is not None:
        options["title"] = title
    update(**options)
    return fig


def cut_label(text: str, chars: int) -> str:
    """``text`` with each line (Plotly's ``<br>``) at most ``chars`` long: words wrap onto new
    lines (a label in words is never cut in the middle), and a single word longer than ``chars``
    (a long model name) keeps its start and end around "…".

    Examples
    --------
    >>> cut_label("printed win rate (wins + ties/2), Wilson", 20)
    'printed win rate<br>(wins + ties/2),<br>Wilson'
    """
    if "<br>" in text:
        return "<br>".join(cut_label(line, chars) for line in text.split("<br>"))
    if len(text) <= chars:
        return text
    if " " in text.strip():
        lines: list[str] = []
        for word in text.split():
            word = cut_label(word, chars)
            if lines and len(lines[-1]) + 1 + len(word) <= chars:
                lines[-1] += " " + word
            else:
                lines.append(word)
        return "<br>".join(lines)
    head = (chars - 1) * 3 // 5
    return text[:head] + "…" + text[len(text) - (chars - 1 - head) :]


def _longest_line(text: str) -> int:
    return max(len(line) for line in text.split("<br>"))


def _shorten_category_axes(fig: go.Figure, chars: int = AXIS_NAME_CHARS) -> None:
    """Cut long category labels (model names) on every axis to ``chars`` characters with "…";
    the traces keep the full names, so the hover still shows them whole. At most about 40 labels
    are drawn on an x axis (every k-th), as Plotly does on its own for a crowded axis."""
    seen: dict[str, dict[str, None]] = {}
    for trace in fig.data:
        for letter in ("x", "y"):
            values = getattr(trace, letter, None) if letter in trace else None
            if values is None:
                continue
            flat = np.ravel(np.asarray(values, dtype=object)).tolist()
            if not flat or not all(isinstance(v, str) for v in flat):
                continue
            axis = (getattr(trace, f"{letter}axis", None) or letter).replace(letter, f"{letter}axis", 1)
            # a dict keeps the first-seen order with a constant-time test (a list's was
            # slower with the square of the labels: seconds for the 10,000 of a large board)
            seen.setdefault(axis, {}).update(dict.fromkeys(flat))
    for axis, kept in seen.items():
        names = list(kept)
        if not any(_longest_line(v) > chars for v in names):
            continue
        layout_axis = fig.layout[axis]
        if layout_axis.categoryarray is not None:
            names = [v for v in layout_axis.categoryarray if v in names]
        step = max(1, -(-len(names) // (40 if axis.startswith("x") else 80)))
        shown = names[::step]
        fig.layout[axis].update(
            tickmode="array", tickvals=shown, ticktext=[cut_label(v, chars) for v in shown]
        )


def error_bars(values: Any, low: Any, high: Any, **look: Any) -> dict[str, Any]:
    """Plotly's asymmetric error bars from ``low`` to ``high`` around ``values`` (``look``: colour,
    thickness, width)."""
    return {"type": "data", "symmetric": False, "array": high - values, "arrayminus": values - low, **look}


def band_line(
    fig: go.Figure, x: Any, mean: Any, low: Any, high: Any, *, color: str, name: str, **line: Any
) -> None:
    """A shaded band from ``low`` to ``high`` (no hover, no legend) under a line with markers of
    ``mean`` (``line``: the line trace's other properties, its hover template)."""
    xs = list(x)
    fig.add_scatter(
        x=xs + xs[::-1],
        y=list(high) + list(low)[::-1],
        fill="toself",
        fillcolor=color,
        opacity=0.15,
        line={"width": 0},
        hoverinfo="skip",
        showlegend=False,
        name=line.pop("band_name", name),
    )
    fig.add_scatter(x=x, y=mean, mode="lines+markers", name=name, line={"color": color}, **line)


def grid_height(models: int) -> int:
    """The height of a models × models heat map: 28 px a model, between 360 and 900 px."""
    return max(360, min(900, 28 * models + 160))


def model_heatmap(z: Any, models: list, *, colorbar: str, **more: Any) -> go.Figure:
    """A heat map of the models against themselves (row and column labels escaped, no hover on
    empty cells, ``colorbar`` titling the scale; ``more``: the rest of the trace)."""
    names = labels(models)
    return go.Figure(
        go.Heatmap(z=z, x=names, y=names, hoverongaps=False, colorbar={"title": colorbar}, **more)
    )


def count_scale(values: Any) -> dict[str, float]:
    """``zmin``/``zmax`` of a heat map of counts: from 0 to the largest count, so a map where every
    pair has 1,800 calls is one even colour instead of a scale from 1,799.6 to 1,800.4."""
    data = np.asarray(values, dtype=float)
    finite = data[np.isfinite(data)]
    top = float(finite.max()) if finite.size else 1.0
    return {"zmin": 0.0, "zmax": top if top > 0 else 1.0}


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
            return type(value)(v for v, _ in items), True
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


@lru_cache(maxsize=64)
def template_for(types: tuple[str, ...]) -> go.layout.Template:
    """The shared template (:data:`TEMPLATE`) with the trace defaults of the trace types
    ``types`` only: its layout whole, and of its ``data`` (defaults for 24 trace types, 4.3 KB,
    more than half of a small figure's JSON) only what a figure of those traces reads. The
    figure looks the same: Plotly applies a type's defaults to traces of that type only. Every
    figure carried the whole template to the browser (twice through JSON on the server, parsed
    and merged in the browser) for a page of nine small charts. Made once per set of types."""
    import plotly.io as pio

    base = pio.templates[TEMPLATE]
    kept = {t: getattr(base.data, t) for t in types if t in base.data and getattr(base.data, t)}
    return go.layout.Template(layout=base.layout, data=kept)


def _set_template(fig: go.Figure) -> None:
    """The shared template for the figure's trace types (:func:`template_for`), set without
    re-validating it: validation deep-copies the whole template (14-19 ms a figure, most of a
    page's drawing time; the output is the same). Plotly sets its default template the same way;
    on a Plotly without that switch the template is set the validated way."""
    template = template_for(tuple(sorted({trace.type for trace in fig.data})))
    layout = getattr(fig, "_layout_obj", None)
    if layout is None or not hasattr(layout, "_validate"):
        fig.update_layout(template=template)
        return
    before, layout._validate = layout._validate, False
    try:
        layout.template = template
    finally:
        layout._validate = before


def style(fig: go.Figure, *, title: str | None = None, height: int | None = None) -> go.Figure:
    """The shared look, and every text of the figure made safe (:func:`sanitize`): the last step
    of a figure's builder (the template it sets carries the defaults of the figure's trace types
    only, :func:`template_for`; a trace added afterwards would miss its type's)."""
    # One layout update, with the template last: every update copies the template in place.
    # The title wraps at TITLE_CHARS (whole on a 390 px phone); Plotly centres it in the top
    # margin, which leaves the toolbar's height free above it (the toolbar is drawn over the top
    # right corner).
    text = title if title is None else cut_label(str(title), TITLE_CHARS)
    lines = 0 if not text else text.count("<br>") + 1
    fig.update_layout(
        title=None
        if text is None
        else {
            "text": text,
            "x": 0,
            "xref": "container",
            "xanchor": "left",
            "pad": {"l": 10},
        },
        font={"size": 13},
        margin={"l": 10, "r": 10, "t": 2 * TOOLBAR_PX + 22 * lines if text else 20, "b": 10},
        **({"height": height + 22 * max(0, lines - 1)} if height else {}),
    )
    # Tick labels and axis titles push the margins out instead of being cut at the figure's edge.
    fig.update_xaxes(automargin=True)
    fig.update_yaxes(automargin=True)
    _shorten_category_axes(fig)
    sanitize(fig)
    _set_template(fig)
    return fig
