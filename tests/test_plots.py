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
    whole = slow.to_dict()["layout"]["template"]
    assert whole == pio.templates[TEMPLATE].to_plotly_json()
    # the template's layout whole, and the trace defaults of the figure's one trace type
    assert got["template"] == {"layout": whole["layout"], "data": {"bar": whole["data"]["bar"]}}
    assert got["height"] == 300 and got["title"]["text"] == "T"
    assert "<a " not in fast.to_dict()["data"][0]["name"]  # user text still made safe
    assert fast.layout._validate  # validation is back on for what the caller does next


def test_a_figure_carries_the_trace_defaults_of_its_own_trace_types_only():
    # plotly_white has defaults for 24 trace types; a figure of bars and lines ships two of them,
    # the same defaults it would get from the whole template
    whole = pio.templates[TEMPLATE].to_plotly_json()
    fig = style(go.Figure([go.Bar(x=["a"], y=[1]), go.Scatter(x=["a"], y=[2]), go.Scatter(x=["b"], y=[3])]))
    data = fig.to_dict()["layout"]["template"]["data"]
    assert set(data) == {"bar", "scatter"} and len(whole["data"]) > 20
    assert data == {"bar": whole["data"]["bar"], "scatter": whole["data"]["scatter"]}
    heat = style(go.Figure(go.Heatmap(z=[[1, 2], [3, 4]])))
    assert heat.to_dict()["layout"]["template"]["data"] == {"heatmap": whole["data"]["heatmap"]}
    assert heat.to_dict()["layout"]["template"]["layout"] == whole["layout"]
