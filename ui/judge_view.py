"""The Judge page's result sections, each one call from the page: the order-swap decomposition,
agreement with humans, the length preference and self-preference. The page picks the judge (and
the model families, :func:`families_picker`) and computes the sheets; these draw one result each
(words and tables from :mod:`evalcore.present.judge`)."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

import ui as _ui
from evalcore.judge import DEFAULT_INTERVAL, interval_words
from evalcore.plots import judge as plots
from evalcore.present import judge as show
from evalcore.present.judge import EXPLAIN
from ui.state import DATA, DEFAULT_DEMO, state
from ui.widgets import linked_flag, rounds_and_seed

#: The page's sections of one judge, each a tab of which only the open one is drawn.
TABS = (
    "Position",
    "Order swap",
    "Coverage",
    "Agreement with humans",
    "Length and family",
    "Sheet and weights",
)

RESAMPLE_HELP = (
    "The intervals shown are analytic: computed at once from the spread between instructions "
    "(each instruction a cluster). Resampling the instructions instead repeats every figure on "
    "each resample: seconds to a minute on a large table."
)


@dataclass(frozen=True)
class IntervalChoice:
    """The page's intervals: the options of :func:`evalcore.judge.judge_sheets` (also its memo
    key's) and the words of the progress bar."""

    opts: dict
    words: str


def interval_sentence(opts: dict) -> str:
    """The page's sentence on its intervals, from the options it computed the sheets with."""
    kind = opts.get("interval", DEFAULT_INTERVAL)
    more = "" if kind == "bootstrap" else " Switch on resampling above for bootstrap intervals."
    return f"95% intervals: {interval_words(kind, int(opts.get('rounds', 0)))}.{more}"


def interval_choice(category: str | None, where) -> IntervalChoice:
    """Analytic intervals first; the resampled ones behind a switch, with their rounds and seed.
    The analytic choice keeps the key the demo's start-up work fills (rounds and seed unused)."""
    with where:
        resample = linked_flag(
            st.toggle,
            "Resample intervals (slower)",
            param="resample",
            key="judge_resample",
            help=RESAMPLE_HELP,
        )
    if not resample:
        opts = {"category": category, "rounds": 1000, "seed": 0}
        return IntervalChoice(opts, "Measuring the judges (analytic intervals)…")
    c1, c2 = st.columns(2)
    rounds, seed = rounds_and_seed(c1, c2)
    opts = {"category": category, "rounds": rounds, "seed": seed, "interval": "bootstrap"}
    words = f"Resampling the instructions {rounds:,} times for every judge's intervals…"
    return IntervalChoice(opts, words)


def order_swap(sheet, judge: str) -> None:
    """Slot bias and preference: tiles, then the per-anchor figure and table."""
    _ui.number_tiles(show.order_metrics(sheet))
    st.caption(EXPLAIN["order"])
    by_anchor = sheet.order.by_anchor
    if len(by_anchor):
        _ui.chart(plots.order_swap_figure(by_anchor))
        _ui.table(show.order_swap_display(by_anchor), by_anchor, f"order_swap_{judge}.csv")
    else:
        st.info(EXPLAIN["no_order"])


def agreement(ag, judge: str, *, said: tuple[str, ...] = ()) -> None:
    """Agreement with the human labels: tiles, notes (those not ``said`` at the top of the page
    already), confusion and compression tables, figure."""
    _ui.number_tiles(show.agreement_metrics(ag))
    st.caption(EXPLAIN["agreement"])
    for note in ag.notes:
        if note not in said:
            _ui.info(note)
    left, right = st.columns(2)
    with left:
        st.subheader("Confusion (counts)")
        _ui.table(ag.confusion_frame(), name=f"confusion_{judge}.csv")
        st.subheader("Compression table")
        _ui.table(show.compression_display(ag), ag.compression, f"compression_{judge}.csv")
    _ui.chart(plots.compression_figure(ag.compression, ag.ceiling_compression), right)
    st.caption(show.compression_sentence(ag))


def length(curve: pd.DataFrame, sheet, judge: str) -> None:
    """The length preference curve and, when fitted, the length-controlled ranking."""
    lc = sheet.length
    if curve.empty:
        st.info(EXPLAIN["no_length_curve"])
        return
    left, right = st.columns(2)
    _ui.chart(plots.length_curve_figure(curve), left, curve, f"length_curve_{judge}.csv")
    if lc is not None:
        _ui.chart(plots.rank_change_figure(lc.table), right)
    st.caption(EXPLAIN["length"])
    if lc is not None:
        _ui.number_tiles(show.length_metrics(sheet))
        _ui.table(show.length_display(lc.table), lc.table, f"length_controlled_{judge}.csv")


def self_preference(sheets: dict, *, n_judges: int, has_families: bool) -> None:
    """Each judge's preference for its own model family, or why it cannot be measured."""
    problem = show.self_preference_problem(sheets, n_judges=n_judges, has_families=has_families)
    if problem:
        st.info(problem)
        return
    frame = show.self_preference_rows(sheets)
    _ui.chart(plots.self_preference_figure(frame))
    _ui.table(show.self_preference_display(frame), frame, "self_preference.csv")
    st.caption(EXPLAIN["self_preference"])


def families_picker(judges: tuple[str, ...] | list[str]) -> show.FamilyList:
    """The Judge page's model families for self-preference: an uploaded or typed ``model,family``
    list (the default demo's families filled in), read by
    :func:`evalcore.present.judge.family_list`; its problem or note is shown."""
    demo_file = DATA / "demo_families.csv"  # the families of the default demo's models
    with st.expander("Model families (for self-preference)", expanded=False):
        st.caption(EXPLAIN["families"])
        upload = st.file_uploader("Families CSV (model,family)", ["csv", "txt"], key="judge_families_file")
        demo = state().get("demo") == DEFAULT_DEMO and demo_file.exists()
        typed = st.text_area(
            "…or type them", demo_file.read_text() if demo else "", 160, key="judge_families_text"
        )
    family = show.family_list(upload.getvalue() if upload else typed, judges)
    if family.problem:
        _ui.error(family.problem, lead=EXPLAIN["families_lead"])
    elif family.note:
        st.info(family.note)
    return family
