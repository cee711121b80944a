"""Figures of the dataset summary."""

from __future__ import annotations

import plotly.graph_objects as go

from evalcore.plots.common import count_scale, grid_height, model_heatmap, style
from evalcore.store.store import DatasetSummary


def coverage_heatmap(summary: DatasetSummary) -> go.Figure:
    """Judge calls per model pair (either slot), all judges: where the table has evidence."""
    models = list(summary.models)
    matrix = summary.pair_coverage.pivot_table(
        index="model_a", columns="model_b", values="calls", aggfunc="sum"
    ).reindex(index=models, columns=models)
    fig = model_heatmap(
        matrix.to_numpy(),
        models,
        colorbar="calls",
        colorscale="Blues",
        **count_scale(matrix.to_numpy()),
        hovertemplate="%{y} vs %{x}: %{z:,} calls<extra></extra>",
    )
    fig.update_yaxes(autorange="reversed")
    return style(
        fig, title="Judge calls per pair of models (blank: never judged)", height=grid_height(len(models))
    )
