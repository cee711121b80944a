"""Tie structure: how many levels a judge really uses and how often a selector breaks ties at
random ("The Format is the Filter"), for the loaded pairwise judge and for pointwise score tables."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from evalcore.plots.common import CONFIG
from evalcore.plots.ties import (
    DIAGNOSTIC_LABELS,
    diagnostic_grid_figure,
    score_distribution_figure,
    variance_shares_figure,
    verdict_levels_figure,
)
from evalcore.pointwise import PointwiseTable, read_pointwise
from evalcore.schema import VerdictFormatError
from evalcore.ties import (
    Agreement,
    labelled_counts,
    pointwise_levels,
    pointwise_tie_structure,
    variance_shares,
    verdict_tie_structure,
)
from views import _ui

POINTWISE_DEMO = _ui.DATA / "demo_pointwise.csv"

STATS_CAPTION = (
    "**Tie probability** Σp²: the chance two random calls get the same verdict level (not the "
    "share of TIE verdicts, shown apart). **D1** = exp(Shannon entropy) and **D2** = 1 / Σp²: "
    "the number of equally used levels with the same entropy (Rényi orders 1 and 2; D2 ≤ D1 ≤ "
    "distinct levels). **Distinct**: levels used at least once. **T**: share of instructions "
    "(with ≥ 2 models) whose top is tied, i.e. at least two models share the highest "
    "within-instruction score, so a selector keeping the best response picks at random. "
    "Definitions: \"The Format is the Filter\" (2025), §3 and App. D."
)
AGREEMENT_CAPTION = (
    "Within each instruction, the judge's ranking of the models against the reference's, then "
    "averaged over instructions. A pair tied by either side counts in no numerator. "
    "**τa** = (concordant − discordant) / all pairs: a pair the judge ties scores 0, as for a "
    "selector that breaks the tie at random. **τb** divides by the untied pairs instead, so a "
    "coarse judge is flattered (\"The Format is the Filter\", §3.3: reference a > b > c, a judge accepting a and b "
    "gets τa = 2/3 but τb ≈ 0.82). **Somers' D** divides by the pairs the reference orders. "
    "**Top-1**: the chance the judge's top model (ties broken uniformly at random, exact "
    "expectation) is a reference top model; **uniform top-1** is the same for a selector that "
    "picks any model at random; **reference top tied** is T for the reference."
)
SCORE_HELP = (
    "How a model's calls on one instruction become its within-instruction score. Soft: each call "
    "gives slot A σ(v) = 1/(1+e^−v) and slot B 1 − σ(v), averaged over the model's calls (seed "
    "002's tournament score). Win share: a win 1, a tie ½, a loss 0."
)


def _number(value: float, spec: str) -> str:
    return "—" if value != value else format(value, spec)  # NaN → a dash


def _agreement_metrics(a: Agreement) -> None:
    """One row of agreement metrics, or a sentence when no instruction can be ranked."""
    if a.instructions == 0:
        st.info("No instruction has two or more models with a reference value here, so there is "
                "nothing to rank: the agreement needs at least two candidates per instruction.")
        return
    m = st.columns(6)
    m[0].metric("τa", _number(a.tau_a, ".3f"))
    m[1].metric("τb", _number(a.tau_b, ".3f"),
                help=f"Defined on {a.tau_b_instructions:,} of {a.instructions:,} instructions "
                "(undefined where either side ties every candidate).")
    m[2].metric("Somers' D", _number(a.somers_d, ".3f"))
    m[3].metric("Top-1", _number(a.top1, ".1%"))
    m[4].metric("Uniform top-1", _number(a.uniform_top1, ".1%"))
    m[5].metric("Ref. top tied", _number(a.reference_top_tied, ".1%"))


st.title("Tie structure")
store = _ui.require_data()
_ui.demo_banner()
st.markdown(
    "A selector keeps the best-scored response and breaks ties at random: the fewer levels a "
    "judge really uses, the more of its choices are coin flips. This page measures that for the "
    "loaded **pairwise judge** and for a **pointwise score table** (binary, Likert, 0–100 …)."
)
s = _ui.state()

# -- pairwise ---------------------------------------------------------------------------------
st.header("Pairwise judge")
c1, c2, c3 = st.columns([2, 2, 2])
with c1:
    judge = _ui.judge_picker(store, key="ties_judge")
with c2:
    category = _ui.category_picker(store, key="ties_category")
with c3:
    rule = st.radio("Within-instruction score", ("soft", "sign"), horizontal=True, key="ties_score",
                    format_func={"soft": "soft σ(v)", "sign": "win share"}.get, help=SCORE_HELP)

counts = _ui.counts(store, judge, category)
ranking = s.get("human_ranking")
if counts.calls == 0:
    st.warning(f"Judge {_ui.code_span(judge)} has no verdicts in this selection: choose another judge or "
               "category.")
else:
    result = _ui.memo(("ties", judge, category, rule),
                      lambda: verdict_tie_structure(counts, ranking, score=rule))
    cols = st.columns(6)
    cols[0].metric("Tie probability", f"{result.stats.tie_probability:.3f}")
    cols[1].metric("D1", f"{result.stats.d1:.2f}")
    cols[2].metric("D2", f"{result.stats.d2:.2f}")
    cols[3].metric("Distinct levels", result.stats.distinct)
    cols[4].metric("TIE verdicts", f"{result.tie_verdict_rate:.1%}")
    t_ci = result.intervals.get("top_tied")
    cols[5].metric("T (top tied)", f"{result.top_tied:.1%}" if result.instructions else "—",
                   help=(f"95% interval {t_ci.low:.1%} – {t_ci.high:.1%} (bootstrap over instructions)"
                         if t_ci is not None and t_ci.has_interval else "No interval: too few "
                         "instructions, or every instruction alike."))
    st.caption(f"Over {result.n_calls:,} calls of {_ui.code_span(judge)} with a verdict, on "
               f"{result.instructions:,} instructions with at least two models. " + STATS_CAPTION)
    if result.candidate_stats is not None:
        cs = result.candidate_stats
        st.caption(
            f"The within-instruction scores the selector sees ({rule}, over "
            f"{result.instructions:,} instructions) take {cs.distinct:,} distinct values with tie "
            f"probability {cs.tie_probability:.4f} (D2 {cs.d2:.1f}), the tournament row of \"The Format is the Filter\".")
    st.plotly_chart(verdict_levels_figure(result), config=CONFIG, width="stretch", key="ties_levels")
    _ui.download_csv(result.level_table(), f"verdict_levels_{judge}.csv",
                     label="Download the verdict-level distribution (CSV)", key="dl_ties_levels")

    st.subheader("Agreement with a reference")
    labelled = _ui.memo(("ties_labelled", judge, category),
                        lambda: labelled_counts(store, judge, category=category))
    rows = []
    if labelled.n_calls:
        human = _ui.memo(("ties_human", judge, category, rule),
                         lambda: verdict_tie_structure(labelled.judge, labelled.human, score=rule))
        a = human.agreement
        st.markdown(f"**Against the human labels** ({human.n_calls:,} labelled calls, "
                    f"{a.instructions:,} instructions with ≥ 2 labelled models)")
        _agreement_metrics(a)
        st.caption("The human labels are scored like the judge's verdicts (the same "
                   f"{'soft σ(v)' if rule == 'soft' else 'win-share'} rule) on the same labelled "
                   "calls, so both rankings cover the same models and instructions. T of the "
                   f"judge on these calls: {human.top_tied:.1%}.")
        rows.append({"reference": "human labels", "calls": human.n_calls, **a.as_dict()})
    else:
        st.info("This judge has no human-labelled rows (a `human` column) in this selection, so "
                "there is no pairwise reference. Upload a verdict file with human labels on the "
                "**Data** page to compare the judge with them.")
    if result.agreement is not None:
        a = result.agreement
        st.markdown(f"**Against the reference score** (the human ranking loaded on the Data "
                    f"page, one score per model; {a.instructions:,} instructions)")
        _agreement_metrics(a)
        rows.append({"reference": "reference score", "calls": result.n_calls, **a.as_dict()})
    else:
        st.caption("No reference score is loaded: add a human ranking (`model, score`) on the "
                   "**Data** page to compare the judge's per-instruction order with it.")
    if rows:
        st.caption(AGREEMENT_CAPTION)
        agreement = pd.DataFrame(rows).drop(columns=["reference_kind"])
        st.dataframe(agreement, hide_index=True)
        _ui.download_csv(agreement, f"tie_agreement_{judge}.csv", key="dl_ties_agreement")
    with st.expander("Per instruction"):
        st.dataframe(result.per_instruction, hide_index=True)
        _ui.download_csv(result.per_instruction, f"ties_per_instruction_{judge}.csv",
                         key="dl_ties_per_instruction")

# -- pointwise --------------------------------------------------------------------------------
st.divider()
st.header("Pointwise scores: the format or the judge?")
st.markdown(
    "A pointwise table scores each candidate response alone: `instruction_id, candidate, judge, "
    "format, score[, reference]` (higher is better; `reference` is a reference quality score). "
    "With several formats and judges, the variance shares say whether the **format** or the "
    "**judge** sets each diagnostic (\"The Format is the Filter\", Table 2)."
)


def _install_pointwise(table: PointwiseTable | None, *, demo: bool) -> None:
    pw = s.setdefault("pointwise", {})
    pw.update({"table": table, "demo": demo, "version": s.get("version"), "error": None,
               "results": None})


# The bundled pointwise demo goes with the bundled verdict demo only: under an uploaded dataset
# the page never shows made-up pointwise scores unless the user asks for them for that dataset.
demo_data = bool(s.get("demo"))
pw = s.get("pointwise")
if pw is None or (pw.get("table") is None and demo_data) or (
        pw.get("demo") and not demo_data and pw.get("version") != s.get("version")):
    _install_pointwise(read_pointwise(POINTWISE_DEMO) if demo_data else None, demo=demo_data)
    pw = s["pointwise"]

up_col, demo_col = st.columns([3, 1])
with up_col:
    upload = st.file_uploader("Upload a pointwise score table (CSV, CSV.gz, Parquet, JSON Lines)",
                              type=["csv", "gz", "tsv", "parquet", "pq", "jsonl", "ndjson", "json"],
                              key="pointwise_upload")
if upload is not None and upload.file_id != pw.get("upload_id"):
    pw["upload_id"] = upload.file_id
    try:
        with st.spinner(f"Reading {_ui.escape_markdown(upload.name)}…"):
            _install_pointwise(read_pointwise(upload.getvalue(), name=upload.name), demo=False)
    except VerdictFormatError as exc:
        pw["error"] = str(exc)
with demo_col:
    if not pw["demo"] and st.button("Use the bundled demo", key="pointwise_demo"):
        _install_pointwise(read_pointwise(POINTWISE_DEMO), demo=True)
        st.rerun()
if pw.get("error"):
    before = (f" The pointwise table loaded before ({_ui.code_span(pw['table'].file)}) is still in use."
              if pw.get("table") is not None else "")
    st.error(f"**This file was not loaded.** {_ui.escape_markdown(pw['error'].rstrip('.'))}.{before}")
if pw.get("table") is None:
    st.info("No pointwise score table is loaded for this dataset. Upload one above, or use the "
            "bundled demo (simulated scores) to see what the section shows.")
    st.stop()

table: PointwiseTable = pw["table"]
frame = table.frame
if pw["demo"]:
    st.caption(f":material/science: Bundled demo {_ui.code_span(table.file)} — **simulated**: three made-up judges (`sim-judge-…`) "
               "score made-up responses in three formats.")
st.caption(f"{_ui.code_span(table.file)}: {len(frame):,} rows, {frame['instruction_id'].nunique():,} "
           f"instructions, {frame['format'].nunique()} format(s), {frame['judge'].nunique()} "
           f"judge(s)." + (f" {table.missing_scores:,} row(s) have no score: counted in the parse "
                           "rate, left out of everything else." if table.missing_scores else ""))

if pw.get("results") is None:
    try:
        cells = pointwise_tie_structure(frame)
        pw["results"] = {"cells": cells, "levels": pointwise_levels(frame),
                         "shares": variance_shares(cells), "problem": None}
    except ValueError as exc:
        pw["results"] = {"problem": str(exc)}
results = pw["results"]
if results.get("problem"):
    st.warning(f"Nothing to analyse in this table: {_ui.escape_markdown(results['problem'])}.")
else:
    cells = results["cells"]
    if not table.has_reference:
        st.info("This table has no `reference` column, so only the structural diagnostics are "
                "shown (no τa, τb, Somers' D, top-1 or Spearman).")
    st.subheader("Diagnostics per format and judge")
    st.dataframe(cells, hide_index=True, column_config={
        "parse_rate": st.column_config.NumberColumn("parse rate", format="percent"),
        "top_tied": st.column_config.NumberColumn("T (top tied)", format="percent"),
        "tie_probability": st.column_config.NumberColumn("tie probability", format="%.3f"),
        "d1": st.column_config.NumberColumn("D1", format="%.2f"),
        "d2": st.column_config.NumberColumn("D2", format="%.2f"),
    })
    _ui.download_csv(cells, "pointwise_tie_structure.csv", key="dl_pw_cells")
    st.caption(
        "Per format and judge: **parse rate** = rows with a score; **instructions** with ≥ 2 "
        "scored candidates; **distinct** scores emitted; **tie probability** Σp² over the scores "
        "(two random candidates get the same score); **D1**, **D2** effective levels; **T** share "
        "of instructions whose top score is tied. With a reference: **spearman** = global "
        "Spearman over all candidates; **tau_b**, **tau_a**, **somers_d**, **top1** = means over "
        "instructions as above (\"The Format is the Filter\", Tables 1, 5 and 9)."
    )
    left, right = st.columns(2)
    with left:
        fmt = st.selectbox("Format", sorted(cells["format"].unique()), key="pw_format")
        st.plotly_chart(score_distribution_figure(results["levels"], fmt), config=CONFIG,
                        width="stretch", key="pw_levels")
    with right:
        options = [c for c in DIAGNOSTIC_LABELS if c in cells.columns]
        diag = st.selectbox("Diagnostic", options, format_func=DIAGNOSTIC_LABELS.get, key="pw_diag")
        st.plotly_chart(diagnostic_grid_figure(cells, diag), config=CONFIG, width="stretch",
                        key="pw_grid")
    _ui.download_csv(results["levels"], "pointwise_score_distribution.csv",
                     label="Download the score distributions (CSV)", key="dl_pw_levels")

    st.subheader("Shares of variance: format versus judge")
    shares = results["shares"]
    if len(shares.table):
        st.plotly_chart(variance_shares_figure(shares), config=CONFIG, width="stretch",
                        key="pw_shares")
        show = shares.table.assign(diagnostic=shares.table["diagnostic"].map(
            lambda d: DIAGNOSTIC_LABELS.get(d, d)))
        st.dataframe(show, hide_index=True, column_config={
            c: st.column_config.NumberColumn(c.replace("_", " "), format="percent")
            for c in ("format_share", "judge_share", "residual_share")})
        _ui.download_csv(shares.table, "pointwise_variance_shares.csv", key="dl_pw_shares")
        st.caption(
            f"Each diagnostic's sum of squares over the {len(shares.formats)} × "
            f"{len(shares.judges)} format × judge grid, split into format, judge and residual "
            "(two-way ANOVA with one value per cell, so the residual absorbs the interaction; "
            "\"The Format is the Filter\", §3.1, Table 2). Structural diagnostics near 100% format mean the format, "
            "not the judge, fixes how many ties the scores contain.")
    else:
        st.info("Variance shares need at least two formats and two judges, each pair scored.")
    for note in shares.notes:
        st.caption(f"Note: {_ui.escape_markdown(note)}")
