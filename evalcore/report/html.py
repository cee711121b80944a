"""The report's HTML building blocks: its style, and escaped tables, figures and notes.

Every user text in the report goes through :func:`esc`, the one HTML escaper
(:func:`evalcore.text.html`); figures are written without plotly.js, which the report inlines once.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import partial
from typing import Any, Callable

import pandas as pd
import plotly.graph_objects as go
from markdown_it import MarkdownIt

from evalcore import quantities, text
from evalcore.plots.common import CONFIG

#: The shared figure config, without plotly.js 4's "Share chart" button (it would upload the
#: chart to Plotly's cloud: a report that opens offline must not offer that).
REPORT_CONFIG = {**CONFIG, "showSendToCloud": False}

#: Network access is refused inside the report: everything it needs is in the file.
CSP = (
    "default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval'; style-src 'unsafe-inline'; "
    "img-src data: blob:; font-src data:; connect-src 'none'; form-action 'none'; "
    "base-uri 'none'"
)

CSS = """
:root { --ink:#0f172a; --muted:#475569; --line:#e2e8f0; --soft:#f8fafc; --accent:#1d4ed8;
        --warn:#b45309; --ok:#15803d; }
* { box-sizing: border-box; }
body { margin:0; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
       color:var(--ink); background:#fff; line-height:1.5; }
header { padding:28px 40px 18px; border-bottom:1px solid var(--line); background:var(--soft); }
header h1 { margin:0 0 4px; font-size:26px; }
header p { margin:2px 0; color:var(--muted); }
nav { padding:10px 40px; border-bottom:1px solid var(--line); font-size:14px; }
nav a { margin-right:16px; color:var(--accent); text-decoration:none; }
main { padding:0 40px 40px; max-width:1280px; }
section { padding-top:18px; }
h2 { font-size:21px; border-bottom:2px solid var(--line); padding-bottom:4px; margin-top:28px; }
h3 { font-size:16px; margin:18px 0 6px; }
.tiles { display:grid; grid-template-columns:repeat(auto-fill, minmax(190px, 1fr)); gap:12px;
         margin:14px 0; }
.tile { border:1px solid var(--line); border-radius:8px; padding:10px 14px; background:#fff; }
.tile .label { font-size:13px; color:var(--muted); }
.tile .value { font-size:22px; font-weight:600; overflow-wrap:anywhere; }
.tile .note { font-size:12px; color:var(--muted); }
.finding { border-left:4px solid var(--accent); padding:6px 14px; margin:12px 0;
           background:var(--soft); border-radius:0 8px 8px 0; }
.finding.caution { border-left-color:var(--warn); }
.finding.unavailable { border-left-color:var(--line); color:var(--muted); }
.finding h3 { margin:4px 0; }
.finding p { margin:4px 0; }
.definition, .caption { font-size:13px; color:var(--muted); }
.missing { color:var(--muted); font-style:italic; }
table.tbl { border-collapse:collapse; font-size:13px; margin:8px 0 14px; }
table.tbl th, table.tbl td { border-bottom:1px solid var(--line); padding:4px 10px;
                             vertical-align:top; }
table.tbl th { background:var(--soft); position:sticky; top:0; }
table.tbl .num { text-align:right; white-space:nowrap; font-variant-numeric:tabular-nums; }
table.tbl .text { text-align:left; white-space:nowrap; }
table.tbl .text.long { white-space:normal; min-width:240px; max-width:520px; }
.scroll { overflow-x:auto; max-height:640px; overflow-y:auto; }
.figure { margin:8px 0 18px; }
footer { padding:18px 40px; color:var(--muted); font-size:13px; border-top:1px solid var(--line); }
"""


#: Every user text in the report goes through the one HTML escaper (names, notes, captions).
esc = text.html


def html_table(
    frame: pd.DataFrame,
    formats: dict[str, Callable[[Any], str]] | None = None,
    *,
    table_id: str | None = None,
) -> str:
    """An escaped HTML table; ``formats`` maps a column to a formatter for its cells."""
    formats = formats or {}
    numeric = [
        bool(pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c]))
        or _written_numbers(frame[c])
        for c in frame.columns
    ]
    long = (
        [
            not n and frame[c].astype(str).str.len().max() > 40
            for c, n in zip(frame.columns, numeric, strict=True)
        ]
        if len(frame)
        else [False] * len(numeric)
    )
    align = [
        ' class="num"' if n else ' class="text long"' if w else ' class="text"'
        for n, w in zip(numeric, long, strict=True)
    ]
    # the app's names and formats (the catalogue): a key such as "observed_edge" is headed
    # "Observed edge" and, without a formatter of its own, written as a percentage
    named = [quantities.heading(c) for c in frame.columns]
    for (_, qid), column in zip(named, frame.columns, strict=True):
        # only raw numbers: a column the display builder already wrote ("1,473") is text, and
        # reading it back as a number would lose it
        raw = pd.api.types.is_numeric_dtype(frame[column]) and not pd.api.types.is_bool_dtype(frame[column])
        if qid is not None and raw and column not in formats:
            formats = {**formats, column: partial(quantities.format, qid)}
    head = "".join(f"<th{a}>{esc(h)}</th>" for (h, _), a in zip(named, align, strict=True))
    rows = []
    for record in frame.itertuples(index=False, name=None):
        cells = []
        for column, value, a in zip(frame.columns, record, align, strict=True):
            if value is None or value is pd.NA or (isinstance(value, float) and pd.isna(value)):
                text = "—"
            elif column in formats:
                text = formats[column](value)
            else:
                text = str(value)
            cells.append(f"<td{a}>{esc(text)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    ident = f' id="{esc(table_id)}"' if table_id else ""
    return (
        f'<div class="scroll"><table class="tbl"{ident}><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


#: A number as the catalogue writes it: sign, digits with separators, a unit sign ("—" if missing).
_WRITTEN_NUMBER = re.compile(r"^(?:[+\-−±]?[\d,]+(?:\.\d+)?(?:%| pp)?|—)$")


def _written_numbers(column: pd.Series) -> bool:
    """Whether a text column holds numbers the display builder wrote (right-aligned like numbers)."""
    cells = column.dropna().astype(str)
    return (
        bool(len(cells))
        and bool(cells.map(lambda v: bool(_WRITTEN_NUMBER.match(v))).all())
        and not (cells == "—").all()
    )


def html_figure(fig: go.Figure, div_id: str) -> str:
    """A figure as a div + script, without plotly.js (inlined once in the head)."""
    height = fig.layout.height or 450
    body = fig.to_html(
        full_html=False,
        include_plotlyjs=False,
        config=REPORT_CONFIG,
        div_id=div_id,
        default_width="100%",
        default_height=f"{int(height)}px",
    )
    return f'<div class="figure">{body}</div>'


def missing_note(what: str, reason: str) -> str:
    return f'<p class="missing">{esc(what)} is not available: {esc(reason)}</p>'


#: The pages' safe Markdown (user text in it already escaped) as HTML; raw HTML in it stays text.
_MARKDOWN = MarkdownIt("commonmark", {"html": False})


def markdown_html(text: str) -> str:
    """A page's safe Markdown (lists, bold, code) as HTML: the same words in the report."""
    return _MARKDOWN.render(text)


def captions(notes: Iterable[Any]) -> str:
    """Caption paragraphs: a plain note is a warning (⚠, escaped); a page's alert (an object with
    ``kind`` and safe Markdown ``text``) keeps its words, rendered for HTML."""
    out = []
    for n in notes:
        kind, body = (n.kind, _MARKDOWN.renderInline(n.text)) if hasattr(n, "kind") else ("warning", esc(n))
        out.append(f'<p class="caption">{"⚠ " if kind in ("warning", "error") else ""}{body}</p>')
    return "".join(out)
