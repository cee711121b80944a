"""Shared look of every figure: one template, readable fonts, offline-safe config."""

from __future__ import annotations

import plotly.graph_objects as go

TEMPLATE = "plotly_white"
#: Plotly config for pages and the report: the camera button saves a PNG in the browser.
CONFIG = {"displaylogo": False, "showSendToCloud": False,
          "toImageButtonOptions": {"format": "png", "scale": 2}}
ACCENT = "#c2410c"
MUTED = "#94a3b8"
PRIMARY = "#1d4ed8"


def style(fig: go.Figure, *, title: str | None = None, height: int | None = None) -> go.Figure:
    fig.update_layout(template=TEMPLATE, title=title, font={"size": 13},
                      margin={"l": 10, "r": 10, "t": 50 if title else 20, "b": 10})
    if height:
        fig.update_layout(height=height)
    return fig
