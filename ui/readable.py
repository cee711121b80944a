"""Readable at 1280–1920 px: what keeps labels, headline values and table counts whole.

Streamlit cuts metric labels and values, widget labels and toggles with an ellipsis at a quarter
of a 1280 px page ("Every judge i…", "sim-juni…"); on a projector a cut number or name is a wrong
one. The page style below makes them wrap, long headline values are drawn smaller, counts in
tables get a thousands separator, and a wide table keeps its first column and a scroll bar. ``tests/e2e/test_readability.py`` checks the result in Chromium.
"""

from __future__ import annotations

import hashlib
from typing import Any

import pandas as pd
import streamlit as st

#: Labels and values wrap instead of ending in "…" (a name breaks at any character when a single
#: word is wider than its tile), and headline values are a size that fits a model name in a
#: quarter of the page.
READABLE_CSS = """<style>
[data-testid="stMain"] .stMarkdownEllipsis,
[data-testid="stMain"] .stMarkdownEllipsis p,
[data-testid="stMain"] [data-testid="stWidgetLabel"] div,
[data-testid="stMetricLabel"] div, [data-testid="stMetricLabel"] p,
[data-testid="stMetricValue"], [data-testid="stMetricValue"] div, [data-testid="stMetricValue"] p,
[data-testid="stMetricDelta"] div, [data-testid="stMetricDelta"] p {
  white-space: normal !important; overflow: visible !important; text-overflow: clip !important;
  overflow-wrap: anywhere;
}
[data-testid="stMetricValue"] { font-size: 1.9rem; line-height: 1.2; }
[class*="st-key-vl-long-"] [data-testid="stMetricValue"] { font-size: 1.2rem; line-height: 1.3; }
[data-testid="stFileUploaderDropzoneInstructions"] *,
[data-testid="stMain"] [data-testid="stPageLink"] * {
  white-space: normal !important; overflow: visible !important; text-overflow: clip !important;
}
[data-testid="stMain"] [data-testid="stMarkdownContainer"] table {
  display: block; max-width: 100%; overflow-x: auto;
}
[data-testid="stDataFrameResizable"] .dvn-scroller {
  scrollbar-width: auto !important; scrollbar-color: #9a9a9a #ececec !important;
}
[data-testid="stDataFrameResizable"] .dvn-scroller::-webkit-scrollbar { height: 10px; width: 10px; }
[data-testid="stDataFrameResizable"] .dvn-scroller::-webkit-scrollbar-thumb {
  background: #9a9a9a; border-radius: 5px;
}
[data-testid="stDataFrameResizable"] .dvn-scroller::-webkit-scrollbar-track { background: #ececec; }
</style>"""


#: A headline value longer than this (a model name such as
#: ``meta-llama/Meta-Llama-3.1-405B-Instruct-Turbo``) is drawn smaller, so it wraps over two lines
#: of a quarter-page tile instead of six.
LONG_VALUE = 14


def metric_tile(where: Any, label: str, value: str, **options: Any) -> None:
    if len(str(value)) <= LONG_VALUE:
        where.metric(label, value, **options)
        return
    key = "vl-long-" + hashlib.sha1(f"{label}\x00{value}".encode()).hexdigest()[:12]
    where.container(key=key).metric(label, value, **options)


def count_columns(frame: pd.DataFrame) -> dict:
    """``column_config`` that prints every integer column with a thousands separator, except
    ranks, tiers and parts (small ordinals read better plain), and pins the first column.

    A table of a dozen quantities is wider than the page (1400 px) or a phone (390 px); cutting
    its columns would hide numbers and narrowing them would cut their headings (the grid draws
    headings on one line). So it scrolls sideways inside its own frame, and a reader sees that
    it continues: the first column (the row's model, judge or anchor) stays in place while the
    rest scroll, the frame's scroll bar is always drawn (:data:`READABLE_CSS`; an overlay bar
    shows only while scrolling), and the last column is cut at the frame's edge."""
    plain = {"Rank", "Tier", "Part"}
    config: dict = {
        c: st.column_config.NumberColumn(format="localized")
        for c in frame.columns
        if pd.api.types.is_integer_dtype(frame[c].dtype) and str(c) not in plain
    }
    if len(frame.columns) > 3:  # a narrow table fits: nothing to keep in place
        first = frame.columns[0]
        config[first] = (
            st.column_config.NumberColumn(format="localized", pinned=True)
            if first in config
            else st.column_config.Column(pinned=True)
        )
    return config
