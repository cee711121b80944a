"""The shared look of every figure (evalcore.plots.common)."""

from __future__ import annotations

import plotly.graph_objects as go
import plotly.io as pio

from evalcore.plots.common import TEMPLATE, style


def test_style_sets_the_template_as_the_validated_way_does():
    # The template is set without Plotly's validation (a deep copy per figure): same figure.
    fast = style(
        go.Figure(go.Bar(x=["a", "b"], y=[1, 2], name="<a href='https://e.x'>x</a>")), title="T", height=300
    )
    slow = go.Figure(go.Bar(x=["a", "b"], y=[1, 2], name="<a href='https://e.x'>x</a>"))
    slow.update_layout(template=TEMPLATE)
    got = fast.to_dict()["layout"]
    assert got["template"] == slow.to_dict()["layout"]["template"] == pio.templates[TEMPLATE].to_plotly_json()
    assert got["height"] == 300 and got["title"]["text"] == "T"
    assert "<a " not in fast.to_dict()["data"][0]["name"]  # user text still made safe
    assert fast.layout._validate  # validation is back on for what the caller does next
