"""Tie structure: how many levels a judge really uses and how often a selector breaks ties at
random ("The Format is the Filter"), for the loaded pairwise judge and for pointwise score tables."""

from __future__ import annotations

import streamlit as st

import ui as _ui
from evalcore.ingest.pointwise import PointwiseTable, read_pointwise
from evalcore.plots import ties as plots
from evalcore.present import ties as show
from evalcore.present.ties import EXPLAIN
from evalcore.schema import VerdictFormatError
from evalcore.ties import labelled_counts, verdict_tie_structure

with _ui.page("Tie structure"):
    POINTWISE_DEMO = _ui.DATA / "demo_pointwise.csv"

    def _install_pointwise(table: PointwiseTable | None, *, demo: bool) -> None:
        pw = dict(s.get("pointwise", {}), table=table, demo=demo, version=s.get("version"))
        s["pointwise"] = dict(pw, error=None, results=None)

    st.title("Tie structure")
    store = _ui.require_data()
    _ui.demo_banner()
    st.markdown(EXPLAIN["intro"])
    s = _ui.state()

    st.header("Pairwise judge")
    c1, c2, c3 = st.columns([2, 2, 2])
    judge, category = _ui.selection(store, key="ties", columns=(c1, c2))
    names, why = show.SCORE_RULE_NAMES, EXPLAIN["score_rule"]
    rule = c3.radio(
        "Within-instruction score", tuple(names), format_func=names.get, key="ties_score", help=why
    )
    counts = _ui.counts(store, judge, category)
    if counts.calls == 0:
        _ui.warning(show.no_calls_sentence(judge))
    else:
        result = _ui.memo(
            ("ties", judge, category, rule),
            lambda: verdict_tie_structure(counts, s.get("human_ranking"), score=rule),
        )
        _ui.number_tiles(show.level_metrics(result))
        _ui.caption(show.calls_sentence(result, judge))
        st.caption(EXPLAIN["stats"])
        if result.candidate_stats is not None:
            st.caption(show.candidate_sentence(result))
        _ui.chart(plots.verdict_levels_figure(result), key="ties_levels")
        label = "Download the verdict-level distribution (CSV)"
        _ui.download_csv(
            result.level_table(), f"verdict_levels_{judge}.csv", label=label, key="dl_ties_levels"
        )

        st.subheader("Agreement with a reference")
        labelled = _ui.memo(
            ("ties_labelled", judge, category), lambda: labelled_counts(store, judge, category=category)
        )
        human = None
        if labelled.n_calls:
            human = _ui.memo(
                ("ties_human", judge, category, rule),
                lambda: verdict_tie_structure(labelled.judge, labelled.human, score=rule),
            )
            st.markdown(show.human_heading(human))
            _ui.number_tiles(show.agreement_metrics(human.agreement), empty=EXPLAIN["no_ranked"])
            st.caption(show.human_sentence(human))
        else:
            st.info(EXPLAIN["no_labels"])
        if result.agreement is not None:
            st.markdown(show.reference_heading(result))
            _ui.number_tiles(show.agreement_metrics(result.agreement), empty=EXPLAIN["no_ranked"])
        else:
            st.caption(EXPLAIN["no_ranking"])
        rows = show.agreement_rows(result, human)
        if len(rows):
            st.caption(EXPLAIN["agreement"])
            _ui.table(show.agreement_display(rows), rows, f"tie_agreement_{judge}.csv", "dl_ties_agreement")
        with st.expander("Per instruction"):
            per = result.per_instruction
            name = f"ties_per_instruction_{judge}.csv"
            _ui.table(show.per_instruction_display(per), per, name, "dl_ties_per_instruction")

    st.divider()
    st.header("Pointwise scores: the format or the judge?")
    st.markdown(EXPLAIN["pointwise"])
    # The bundled pointwise demo goes with the bundled verdict demo only: under an uploaded dataset
    # the page never shows made-up pointwise scores unless the user asks for them for that dataset.
    demo_data, pw = bool(s.get("demo")), s.get("pointwise") or {}
    stale = pw.get("demo") and not demo_data and pw.get("version") != s.get("version")
    if not pw or stale or (pw.get("table") is None and demo_data):
        _install_pointwise(read_pointwise(POINTWISE_DEMO) if demo_data else None, demo=demo_data)
    pw = s["pointwise"]
    up_col, demo_col = st.columns([3, 1])
    upload = up_col.file_uploader(show.POINTWISE_UPLOAD, type=show.POINTWISE_TYPES, key="pointwise_upload")
    if upload is not None and upload.file_id != pw.get("upload_id"):
        pw["upload_id"] = upload.file_id
        try:
            with st.spinner(f"Reading {_ui.md(upload.name)}…"):
                _install_pointwise(read_pointwise(upload.getvalue(), name=upload.name), demo=False)
        except VerdictFormatError as exc:
            pw["error"] = str(exc)
        pw = s["pointwise"]
    if not pw["demo"] and demo_col.button("Use the bundled demo", key="pointwise_demo"):
        _install_pointwise(read_pointwise(POINTWISE_DEMO), demo=True)
        st.rerun()
    if pw.get("error"):
        _ui.error(show.upload_problem(pw["error"], pw.get("table")), lead="**This file was not loaded.**")
    if pw.get("table") is None:
        st.info(EXPLAIN["no_pointwise"])
        st.stop()

    table: PointwiseTable = pw["table"]
    if pw["demo"]:
        st.caption(show.pointwise_demo_note(table.file))
    _ui.caption(show.table_sentence(table))
    if pw.get("results") is None:
        pw["results"] = show.pointwise_analysis(table.frame)
    results: show.PointwiseAnalysis = pw["results"]
    if results.problem:
        _ui.warning(show.nothing_to_analyse(results.problem))
        st.stop()
    cells = results.cells
    if not table.has_reference:
        st.info(EXPLAIN["no_reference"])
    st.subheader("Diagnostics per format and judge")
    _ui.table(show.diagnostics_display(cells), cells, "pointwise_tie_structure.csv", "dl_pw_cells")
    st.caption(EXPLAIN["diagnostics"])
    left, right = st.columns(2)
    with left:
        fmt = st.selectbox("Format", sorted(cells["format"].unique()), key="pw_format")
        _ui.chart(plots.score_distribution_figure(results.levels, fmt), key="pw_levels")
    with right:
        options = [c for c in plots.DIAGNOSTIC_LABELS if c in cells.columns]
        diag = st.selectbox("Diagnostic", options, format_func=plots.DIAGNOSTIC_LABELS.get, key="pw_diag")
        _ui.chart(plots.diagnostic_grid_figure(cells, diag), key="pw_grid")
    label = "Download the score distributions (CSV)"
    _ui.download_csv(results.levels, "pointwise_score_distribution.csv", label=label, key="dl_pw_levels")

    st.subheader("Shares of variance: format versus judge")
    shares = results.shares
    if len(shares.table):
        _ui.chart(plots.variance_shares_figure(shares), key="pw_shares")
        _ui.table(show.shares_display(shares), shares.table, "pointwise_variance_shares.csv", "dl_pw_shares")
        st.caption(show.shares_sentence(shares))
    else:
        st.info(EXPLAIN["no_shares"])
    for note in shares.notes:
        _ui.caption(f"Note: {note}")
