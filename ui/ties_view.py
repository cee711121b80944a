"""The Tie-structure page's sections, each one evalcore call and its drawing: the pairwise
judge (:func:`evalcore.ties.judge_ties`), ties as data (:func:`evalcore.ties.tie_conventions`,
inside the pairwise section, on the same judge and category) and the pointwise score table
(:func:`evalcore.present.ties.pointwise_analysis`). The pickers are kept in the link
(``?score=``, ``?pw_format=``, ``?pw_diagnostic=``), so a copied link reproduces the numbers.

The pointwise score table is loaded the way the Data page loads verdicts: an upload or the
bundled demo is read once into the session, a file that cannot be read is kept as words in the
session (the table loaded before stays), and the upload's bytes are dropped once read. The
bundled demo goes with the bundled verdict demo only: under an uploaded dataset the page never
shows made-up pointwise scores unless the user asks for them."""

from __future__ import annotations

from functools import partial
from typing import Any, Callable

import streamlit as st

from evalcore.ingest.pointwise import PointwiseTable, read_pointwise
from evalcore.plots import ties as plots
from evalcore.present import ties as show
from evalcore.present.ties import EXPLAIN
from evalcore.schema import VerdictFormatError
from evalcore.ties import both_bad_share, judge_ties, labelled_counts, tie_conventions, verdict_tie_structure
from evalcore.ties.conventions import ROUNDS
from ui.messages import caption, error, md, warning
from ui.state import DATA, forget_upload, memo, state
from ui.state import counts as session_counts
from ui.widgets import (
    chart,
    download_csv,
    linked_choice,
    memo_or_info,
    number_tiles,
    progress_bar,
    section,
    selection,
    table,
)


def _agreement(heading: str, agreement: Any) -> None:
    st.markdown(heading)
    number_tiles(show.agreement_metrics(agreement), empty=EXPLAIN["no_ranked"])


@section  # a change of judge, category or score redraws this section alone
def pairwise_section(store: Any) -> None:
    """The loaded judge's verdict levels, its agreement with the human labels and with the
    human ranking, per instruction."""
    c1, c2, c3 = st.columns([2, 2, 2])
    judge, category = selection(store, key="ties", columns=(c1, c2))
    names = show.SCORE_RULE_NAMES
    radio = {"param": "score", "key": "ties_score", "format_func": names.get, "help": EXPLAIN["score_rule"]}
    rule = linked_choice(c3.radio, "Within-instruction score", tuple(names), **radio)
    counts = session_counts(store, judge, category)
    if counts.calls == 0:
        warning(show.no_calls_sentence(judge))
        return
    human_ranking = state().get("human_ranking")
    labelled = memo(
        ("ties_labelled", judge, category), lambda: labelled_counts(store, judge, category=category)
    )
    # the judge's part is the Overview's tie finding on every category by default (one
    # computation for both pages, whichever opens first)
    shared = category is None and rule == "soft" and human_ranking is None
    structure = memo(("findings", "ties", judge), lambda: verdict_tie_structure(counts)) if shared else None
    ties = memo(
        ("ties", judge, category, rule),
        lambda: judge_ties(counts, labelled, human_ranking=human_ranking, score=rule, structure=structure),
    )
    result, human = ties.judge, ties.human
    number_tiles(show.level_metrics(result))
    caption(show.calls_sentence(result, judge))
    both_bad = memo(
        ("both_bad", judge, category), lambda: both_bad_share(store, judge=judge, category=category)
    )
    if both_bad is not None:  # only a table that keeps "both bad" apart from "tie"
        number_tiles(show.both_bad_metrics(both_bad))
        caption(both_bad.sentence())
    st.caption(EXPLAIN["stats"])
    if result.candidate_stats is not None:
        st.caption(show.candidate_sentence(result))
    chart(plots.verdict_levels_figure(result), key="ties_levels")
    label = "Download the verdict-level distribution (CSV)"
    download_csv(result.level_table(), f"verdict_levels_{judge}.csv", label=label, key="dl_ties_levels")

    st.subheader("Agreement with a reference")
    if human is not None:
        _agreement(show.human_heading(human), human.agreement)
        st.caption(show.human_sentence(human))
    else:
        st.info(EXPLAIN["no_labels"])
    if result.agreement is not None:
        _agreement(show.reference_heading(result), result.agreement)
    else:
        st.caption(EXPLAIN["no_ranking"])
    rows = show.agreement_rows(result, human)
    if len(rows):
        st.caption(EXPLAIN["agreement"])
        table(show.agreement_display(rows), rows, f"tie_agreement_{judge}.csv", "dl_ties_agreement")
    with st.expander("Per instruction"):
        per = result.per_instruction
        name = f"ties_per_instruction_{judge}.csv"
        shown = show.per_instruction_display(per, limit=show.PER_INSTRUCTION_ROWS)
        if note := show.per_instruction_note(len(per)):
            caption(note)
        table(shown, per, name, "dl_ties_per_instruction")
    conventions_section(counts, judge, category)


def conventions_section(counts: Any, judge: str, category: str | None) -> None:
    """Ties as data: the ranking under three tie conventions, Davidson's tie parameter."""
    st.subheader("Ties as data")
    st.markdown(EXPLAIN["conventions"])
    busy = f"Ranking with the ties modelled ({ROUNDS} resamples of the instructions for the tie parameter)…"
    with progress_bar(busy) as progress:
        tc = memo_or_info(
            ("tie_conventions", judge, category, ROUNDS),
            lambda: tie_conventions(counts, rounds=ROUNDS, progress=progress),
        )
    if tc is None:
        return
    if not tc.identified:
        st.info(tc.refusal)
    number_tiles(show.convention_metrics(tc))
    caption(tc.sentence())
    caption(*(f"Note: {note}" for note in tc.notes))
    frame = tc.frame()
    table(show.conventions_display(tc), frame, f"tie_conventions_{judge}.csv", "dl_tie_conventions")


def pointwise_section(scores: Any, *, demo: bool) -> None:
    """Diagnostics per format and judge, score distributions and the shares of variance of a
    pointwise table (analysed once per table)."""
    if demo:
        st.caption(show.pointwise_demo_note(scores.file))
    caption(show.table_sentence(scores))
    pw = state()["pointwise"]
    if pw.get("results") is None:
        analyse = partial(show.pointwise_analysis, scores.frame)
        # the bundled table's analysis is the same for every session of the demo (shared)
        pw["results"] = memo(("pointwise_demo", str(POINTWISE_DEMO)), analyse) if demo else analyse()
    results: show.PointwiseAnalysis = pw["results"]
    if results.problem:
        warning(show.nothing_to_analyse(results.problem))
        return
    cells = results.cells
    if not scores.has_reference:
        st.info(EXPLAIN["no_reference"])
    st.subheader("Diagnostics per format and judge")
    table(show.diagnostics_display(cells), cells, "pointwise_tie_structure.csv", "dl_pw_cells")
    st.caption(EXPLAIN["diagnostics"])
    left, right = st.columns(2)
    with left:
        formats = sorted(cells["format"].unique())
        fmt = linked_choice(st.selectbox, "Format", formats, param="pw_format", key="pw_format")
        chart(plots.score_distribution_figure(results.levels, fmt), key="pw_levels")
    with right:
        options = [c for c in show.DIAGNOSTICS if c in cells.columns]
        pick = {"param": "pw_diagnostic", "key": "pw_diag", "format_func": show.DIAGNOSTICS.get}
        diag = linked_choice(st.selectbox, "Diagnostic", options, **pick)
        chart(plots.diagnostic_grid_figure(cells, diag), key="pw_grid")
    label = "Download the score distributions (CSV)"
    download_csv(results.levels, "pointwise_score_distribution.csv", label=label, key="dl_pw_levels")

    st.subheader("Shares of variance: format versus judge")
    shares = results.shares
    if len(shares.table):
        chart(plots.variance_shares_figure(shares), key="pw_shares")
        table(show.shares_display(shares), shares.table, "pointwise_variance_shares.csv", "dl_pw_shares")
        st.caption(show.shares_sentence(shares))
    else:
        st.info(EXPLAIN["no_shares"])
    caption(*(f"Note: {note}" for note in shares.notes))


POINTWISE_DEMO = DATA / "demo_pointwise.csv"


def _install(table: PointwiseTable | None, *, demo: bool) -> None:
    s = state()
    kept = {k: v for k, v in (s.get("pointwise") or {}).items() if k == "upload_id"}
    s["pointwise"] = {**kept, "table": table, "demo": demo, "version": s.get("version"), "error": None}


def _read(name: str, load: Callable[[], PointwiseTable], *, upload: Any = None) -> None:
    """Read a pointwise table into the session; a refusal is kept in words (the table before stays)."""
    try:
        with st.spinner(f"Reading {md(name)}…"):
            _install(load(), demo=False)
    except VerdictFormatError as exc:
        state()["pointwise"]["error"] = str(exc)
    finally:
        if upload is not None:
            forget_upload(upload)


def _demo_table() -> PointwiseTable:
    """The bundled pointwise table, read once and shared by the demo's sessions (never changed)."""
    return memo(("pointwise_demo_table", str(POINTWISE_DEMO)), lambda: read_pointwise(POINTWISE_DEMO))


def pointwise_table() -> tuple[PointwiseTable | None, bool]:
    """The session's pointwise table (None when there is none) and whether it is the bundled
    demo, after the uploader and the demo button drawn here."""
    s = state()
    demo_data, pw = bool(s.get("demo")), s.get("pointwise") or {}
    stale = pw.get("demo") and not demo_data and pw.get("version") != s.get("version")
    if not pw or stale or (pw.get("table") is None and demo_data):
        _install(_demo_table() if demo_data else None, demo=demo_data)
    up_col, demo_col = st.columns([3, 1])
    upload = up_col.file_uploader(show.POINTWISE_UPLOAD, type=show.POINTWISE_TYPES, key="pointwise_upload")
    if upload is not None and upload.file_id != s["pointwise"].get("upload_id"):
        s["pointwise"]["upload_id"] = upload.file_id
        data, name = upload.getvalue(), upload.name
        _read(name, lambda: read_pointwise(data, name=name), upload=upload)
    pw = s["pointwise"]
    if not pw["demo"] and demo_col.button("Use the bundled demo", key="pointwise_demo"):
        _install(_demo_table(), demo=True)
        st.rerun()
    if pw.get("error"):
        error(show.upload_problem(pw["error"], pw.get("table")), lead="**This file was not loaded.**")
    return pw.get("table"), bool(pw["demo"])
