"""The server's HTML page loads the browser's chart code once the first page is drawn (ui.opening)."""

from __future__ import annotations

from ui import opening


def test_the_chart_code_is_streamlits_one_plotly_script(tmp_path):
    js = tmp_path / "static" / "js"
    js.mkdir(parents=True)
    assert opening.chart_code(tmp_path) is None  # a build without it: nothing loaded ahead
    (js / "PlotlyChart.D9Z0_fxz.js").write_text("")
    (js / "Plotly.helper.js").write_text("")
    assert opening.chart_code(tmp_path) == "./static/js/PlotlyChart.D9Z0_fxz.js"
    (js / "PlotlyChart.other.js").write_text("")
    assert opening.chart_code(tmp_path) is None  # which one is meant is unknown: none


def test_the_installed_streamlit_has_it_and_the_page_loads_it_after_its_first_run():
    assert opening.CHART_CODE is not None and opening.CHART_CODE.startswith("./static/js/PlotlyChart.")
    script = opening.HTML
    assert f"const charts = '{opening.CHART_CODE}'" in script
    # loaded in idle time, once the first run has ended (never before the page is drawn)
    ended = script.index("if (ran && state === 'notRunning') {")
    assert script.index("idle(() => import(charts)") > ended
