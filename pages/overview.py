"""Overview: the headline findings of the loaded data in plain words, and the stakeholder report."""

from __future__ import annotations

import streamlit as st

import ui as _ui
from evalcore import summary_presentation as show
from evalcore.findings import METHOD_SECTIONS, Finding, headline_findings, run_analyses
from evalcore.report import build_report

with _ui.page("Overview"):
    STATUS_ICON = {
        "clear": ":material/check_circle:",
        "caution": ":material/warning:",
        "unavailable": ":material/block:",
    }
    PAGE_LABEL = {
        "pages/leaderboard.py": ("Leaderboard", ":material/leaderboard:"),
        "pages/anchors.py": ("Anchors", ":material/anchor:"),
        "pages/judge.py": ("Judge", ":material/gavel:"),
        "pages/power.py": ("Power", ":material/straighten:"),
        "pages/calibration.py": ("Calibration", ":material/tune:"),
    }
    #: Bootstrap rounds of the leaderboard behind the findings (the Leaderboard page's default, so
    #: both pages share one result).
    ROUNDS = 1000
    SEED = 0

    md_escape = _ui.escape_markdown  # model names may hold *, _, $, [ or <

    def show_finding(finding: Finding) -> None:
        with st.container(border=True):
            st.markdown(f"#### {STATUS_ICON[finding.status]} {md_escape(finding.title)}")
            st.markdown(md_escape(finding.text))
            if finding.definition:
                st.caption("Definition: " + md_escape(finding.definition))
            target = _ui.ROOT / finding.page
            if target.exists():
                label, icon = PAGE_LABEL.get(finding.page, ("details", ":material/arrow_forward:"))
                st.page_link(finding.page, label=f"Open the {label} page", icon=icon)
            if finding.key in METHOD_SECTIONS:
                _ui.methods_link(METHOD_SECTIONS[finding.key])

    st.title("Overview")
    store = _ui.require_data()
    _ui.demo_banner()
    s = _ui.state()

    left, middle, right = st.columns([2, 1, 2])
    with left:
        judge = _ui.judge_picker(store, key="overview_judge")
    with middle:
        compare = st.toggle(
            "Every judge in the report",
            key="overview_compare",
            disabled=len(store.judges()) < 2,
            help="Adds the spec sheet of every judge of the file to the HTML report "
            "(a second or two per judge the first time).",
        )
    with right:
        st.caption(
            "The headline findings for the judge chosen here, computed by the same functions as "
            "the detail pages (each finding links to its page). Results are kept for this "
            "session, so a second visit is instant."
        )

    bar = st.progress(0.0, text="Computing the headline findings…")

    def _progress(fraction: float, text: str) -> None:
        bar.progress(min(1.0, max(0.0, fraction)), text=text)

    try:
        analyses = run_analyses(
            store,
            judge=judge,
            human_ranking=s.get("human_ranking"),
            rounds=ROUNDS,
            seed=SEED,
            compare_judges=compare,
            cache=_ui.memo,
            progress=_progress,
        )
    except ValueError as exc:
        bar.empty()
        _ui.error(exc, lead="The findings cannot be computed for this data:")
        st.stop()
    bar.empty()
    findings = headline_findings(analyses)
    summary = analyses.summary

    st.markdown(show.overview_sentence(summary, judge, analyses.counts))

    tiles = [tile for finding in findings.findings for tile in finding.tiles]
    per_row = 4
    for start in range(0, len(tiles), per_row):
        cols = st.columns(per_row)
        for col, tile in zip(cols, tiles[start : start + per_row], strict=False):
            _ui.metric(
                col,
                tile.label,
                tile.value,
                delta=tile.note or None,
                delta_color="off",
                delta_arrow="off",
                border=True,
            )

    for finding in findings.findings:
        show_finding(finding)

    st.divider()
    st.subheader("Stakeholder report")
    st.markdown(
        "One self-contained HTML file with the findings above, the data summary, the leaderboard, the "
        "anchor analysis, the judge sheet, the power and calibration results. It opens offline in any "
        "browser (plotly.js is inside the file), its plots stay interactive, and each plot's camera "
        "button saves it as a PNG."
    )

    def _report() -> bytes:
        # Runs on the download click (a separate thread): it only reads the results computed above.
        return build_report(analyses, findings).encode("utf-8")

    safe = show.file_stem(summary.name, judge)
    c1, c2 = st.columns(2)
    with c1:
        st.download_button(
            "Download the HTML report",
            data=_report,
            file_name=f"report_{safe}.html",
            mime="text/html",
            on_click="ignore",
            type="primary",
            icon=":material/download:",
            key="overview_report",
        )
    with c2:
        _ui.download_csv(
            findings.frame(),
            f"findings_{safe}.csv",
            label="Download the findings (CSV)",
            key="overview_findings_csv",
        )
