"""Plotly figures built from evalcore results, shared by the pages and the HTML report.

One module per area; a figure function takes a result object and returns a ``go.Figure``.
"""
