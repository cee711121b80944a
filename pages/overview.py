"""Overview: the headline findings of the loaded data in plain words, and the stakeholder report."""

from __future__ import annotations

import streamlit as st

import ui as _ui
from evalcore.findings import METHOD_SECTIONS, for_report, headline_findings, run_analyses
from evalcore.present import summary as show
from evalcore.report import build_report

with _ui.page("Overview"):
    #: Bootstrap rounds of the leaderboard behind the findings (the Leaderboard page's default, so
    #: both pages share one result).
    ROUNDS = 1000
    SEED = 0

    st.title("Overview")
    store = _ui.require_data()
    _ui.demo_banner()
    s = _ui.state()
    prices = _ui.prices_input()

    left, middle, right = st.columns([2, 1, 2])
    with left:  # the default judge's choice says what it counts (ui.state.default_choice)
        judge = _ui.judge_picker(store, key="overview_judge")
    with middle:
        several = len(store.judges()) >= 2
        toggle = {"param": "compare", "key": "overview_compare", "disabled": not several}
        compare = _ui.linked_flag(st.toggle, "Every judge in the report", help=show.COMPARE_HELP, **toggle)
    right.caption(show.FINDINGS_NOTE)

    try:
        with _ui.progress_bar("Computing the headline findings…") as progress:
            analyses = run_analyses(
                store,
                judge=judge,
                human_ranking=s.get("human_ranking"),
                rounds=ROUNDS,
                seed=SEED,
                cache=_ui.memo,
                progress=progress,
                report=False,  # what only the report reads waits for its download (a judge change
                # recomputes only what the page shows)
            )
    except ValueError as exc:
        _ui.error(exc, lead="The findings cannot be computed for this data:")
        _ui.stop()
    findings = headline_findings(analyses)
    summary = analyses.summary

    st.markdown(show.overview_sentence(summary, judge, analyses.counts))

    tiles = [tile for finding in findings.findings for tile in finding.tiles]
    for start in range(0, len(tiles), 4):  # four tiles a row
        for col, tile in zip(st.columns(4), tiles[start : start + 4], strict=False):
            options = {"delta_color": "off", "delta_arrow": "off", "border": True}
            _ui.metric(col, tile.label, tile.value, delta=tile.note or None, **options)

    for finding in findings.findings:
        heading, paragraph, definition = show.finding_markdown(finding)
        with st.container(border=True):
            st.markdown(heading)
            st.markdown(paragraph)
            if cost := show.finding_cost(
                finding, analyses, per_call=prices.per_call, per_label=prices.per_label
            ):
                st.caption(cost)
            if definition:
                st.caption(definition)
            if finding.page in _ui.PAGES:
                _ui.finding_link(finding)
            if finding.key in METHOD_SECTIONS:
                _ui.methods_link(METHOD_SECTIONS[finding.key])

    st.divider()
    st.subheader("Stakeholder report")
    st.markdown(show.REPORT_NOTE)

    cache = _ui.shared_cache()  # the demo's, computed at start-up; the click's thread has no session

    def _report() -> bytes:
        # Runs on the download click: the report's own analyses, by the calls and keys of
        # run_analyses, then the report.
        extra = for_report(store, analyses, compare_judges=compare, cache=cache)
        return build_report(extra, findings).encode("utf-8")

    safe = show.file_stem(summary.name, judge)
    c1, c2 = st.columns(2)
    with c1:
        button = {"mime": "text/html", "on_click": "ignore", "type": "primary", "icon": ":material/download:"}
        button.update(file_name=f"report_{safe}.html", key="overview_report")
        st.download_button("Download the HTML report", data=_report, **button)
    with c2:
        label = "Download the findings (CSV)"
        _ui.download_csv(findings.frame(), f"findings_{safe}.csv", label=label, key="overview_findings_csv")
