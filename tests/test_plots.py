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


def test_a_board_of_many_models_draws_its_first_adjacent_pairs_and_long_names_cut_in_order():
    """The detectable edges of a long chain of models draw the first pairs only (a pair per 28
    pixels: 10,000 models were a chart 280,000 pixels tall) and say so; the cut names keep the
    pairs' order and each name once."""
    from dataclasses import replace

    import numpy as np

    from evalcore.plots.common import AXIS_NAME_CHARS
    from evalcore.plots.power import EDGE_PAIRS, detectable_edges_figure
    from evalcore.power import detectable_edges
    from tests.frames import chain_counts

    counts = chain_counts(120)
    result = detectable_edges(counts)
    assert result.n_pairs > EDGE_PAIRS
    fig = detectable_edges_figure(result)
    assert len(fig.data[0].y) == EDGE_PAIRS
    assert f"the first {EDGE_PAIRS} pairs are drawn" in fig.layout.title.text.replace("<br>", " ")
    assert fig.layout.height < 40 * EDGE_PAIRS + 200
    whole = detectable_edges_figure(result, top=10**6)
    assert len(whole.data[0].y) == result.n_pairs and "are drawn" not in whole.layout.title.text
    # pairs that never met have no edge to draw (most of an arena's): the first that met are drawn
    table = result.table.copy()
    table.loc[table.index % 3 != 0, "instructions"] = 0
    met = detectable_edges_figure(replace(result, table=table))
    assert list(met.data[0].y) == list(whole.data[0].y)[::3][:EDGE_PAIRS]
    said = met.layout.title.text.replace("<br>", " ")
    assert f"the first {len(met.data[0].y)} pairs with verdicts to compare are drawn" in said
    # a label longer than an axis line is drawn on two lines, at a row height that fits them
    assert all("<br>" in label for label in met.data[0].y) == (len("#100 m00099 > m00100") > AXIS_NAME_CHARS)

    long = style(
        go.Figure(
            go.Scatter(
                x=np.arange(300),
                y=[f"a-model-whose-name-is-long-enough-to-be-cut-{k % 150}" for k in range(300)],
            )
        )
    )
    ticks = long.layout.yaxis.tickvals
    assert (
        list(ticks)
        == [f"a-model-whose-name-is-long-enough-to-be-cut-{k}" for k in range(150)][:: -(-150 // 80)]
    )
