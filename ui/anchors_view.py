"""The Anchors page's result sections, each one call from the page: the explorer (one anchor's
ranking beside all pairs and humans), the stability of the recommendation, and the anchor effect
beside the judge effect. The page picks what to compute; these draw one result each, so the page
stays a storyboard. Words and tables come from :mod:`evalcore.present.anchors`."""

from __future__ import annotations

import streamlit as st

import ui as _ui
from evalcore.present import anchors as av
from ui.anchor_pages import captions


def explorer(ranking, chosen: str, tau: str, judge: str, *, human_hint: bool = False) -> None:
    """One anchor's ranking: its tiles, (the hint to add a human ranking), caption and table."""
    _ui.number_tiles(av.explorer_metrics(ranking, tau))
    if human_hint:
        st.info(av.HUMAN_HINT)
    _ui.caption(av.explorer_caption(ranking, chosen))
    _ui.table(av.explorer_table(ranking), ranking.table, f"anchor_{chosen}_{judge}.csv", key="dl_anchor_rank")


def stability(result, judge: str) -> None:
    """How sure the recommendation is: its sentence, notes, caption and table."""
    if av.stability_sentence(result):
        st.markdown(_ui.md(av.stability_sentence(result)))
    for note in result.notes:
        _ui.warning(note)
    captions(av.stability_caption(result))
    _ui.table(av.stability_table(result), result.table, f"anchor_stability_{judge}.csv", key="dl_anchor_stab")


def judge_effect(effect, tau: str) -> None:
    """The anchor effect beside the judge effect: its sentence, caption and table (the chart is
    drawn by the page above it)."""
    if av.judge_effect_sentence(effect, tau):
        st.markdown(av.judge_effect_sentence(effect, tau))
    st.caption(av.JUDGE_CAPTION)
    _ui.table(av.judge_effect_table(effect), effect.table, "anchor_vs_judge.csv", key="dl_anchor_judges")
