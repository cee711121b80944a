"""The Verdicts page's cases and the sentence over them: how the cases a link opened make up
the number it came from (:mod:`evalcore.verdicts.evidence`), and each case with its texts."""

from __future__ import annotations

from typing import Any

import streamlit as st

from evalcore.ingest.counts_table import SINGLE_CALLS_NOTE
from evalcore.present import verdicts as show
from evalcore.verdicts import evidence
from ui.messages import md
from ui.state import counts, memo, set_url_param, url_param
from ui.status import stop


def draw_evidence(store: Any, flt: Any) -> None:
    """What the filtered cases hold, in the unit of the aggregate a link came from (battles,
    instructions, labelled units, pairings), with its statistic recomputed on them. ``orders=both``
    in the link (the Leaderboard's both-orders switch) counts the pair in both-orders verdicts."""
    both = url_param("orders") == "both" and bool(flt.judge and flt.model_a and flt.model_b)
    set_url_param("orders", "both" if both else None)
    record = None
    if both:
        pair = counts(store, flt.judge, flt.category, both_orders=True)
        record = evidence.pair_record(pair, flt.model_a, flt.model_b, unit="both-orders verdict")
    stats = memo(("case_stats", *sorted(flt.as_params().items())), lambda: store.case_stats(flt))
    with st.container(border=True, key="vd_evidence"):
        for line in evidence.evidence_lines(stats, flt, record=record):
            st.markdown(line)  # app text, names escaped by the presentation


def draw_case(case: Any, *, has_text: bool) -> None:
    """One case: its title, calls, human label, and the prompt, answers and reasoning.

    Long texts scroll in boxes of a fixed height; one switch per case shows them at their full
    height in place (the page's own scroll bar, no box inside a box), and the last line of a long
    reasoning, where judges write their verdict, is shown under its box."""
    with st.container(border=True):
        st.markdown(show.case_title(case) + show.flag_badges(case))
        for k, call in enumerate(case.calls, 1):
            st.markdown(show.call_line(call, k))
        st.markdown(show.human_line(case))
        if not has_text:
            return
        texts = (case.prompt, *case.answers.values(), *(call.judge_output for call in case.calls))
        full = show.box_height(*texts) != "content" and st.toggle(
            "Show this case's texts at full height", key=f"vd_full_{case.calls[0].row}"
        )

        def _box(*values):
            return "content" if full else show.box_height(*values)

        key = f"vd_all_{case.calls[0].row}"  # this case's show-all switches
        st.markdown("**Prompt**")
        with st.container(height=_box(case.prompt), border=False):
            _document(case.prompt, f"{key}_p")
        height = _box(*case.answers.values())
        for side, (column, model) in enumerate(zip(st.columns(2), case.models, strict=True)):
            column.markdown(show.answer_heading(case, model))
            with column.container(height=height, border=True):
                _document(case.answers.get(model), f"{key}_a{side}")
        boxes = st.columns(min(2, max(1, len(case.calls))))
        height = _box(*(call.judge_output for call in case.calls))
        for k, call in enumerate(case.calls):
            with boxes[k % len(boxes)]:
                st.markdown(show.reasoning_label(call, k + 1))
                with st.container(height=height, border=True):
                    _document(call.judge_output, f"{key}_r{k}", missing=show.NO_REASONING)
                last = evidence.closing_words(call.judge_output)
                if height != "content" and last:  # the verdict judges write last, visible
                    st.markdown(f"**The reasoning ends:** {md(last)}")


def _document(value: str | None, key: str, **options) -> None:
    """A text rendered as safe Markdown; a long one in part, with a switch that shows all of it
    as plain text (rendering a whole 1 MB text would hold the server and freeze the tab)."""
    label = show.show_all_label(value)
    if label and st.toggle(label, False, key=key):
        st.text(show.full_text(value))
    else:
        st.markdown(show.document(value, **options))


def stop_without_single_calls(store) -> None:
    """Say in words that a counts table has no single calls to list (evalcore's words), and stop."""
    if store.is_counts_table:
        st.info(SINGLE_CALLS_NOTE, icon=":material/functions:")
        stop()
