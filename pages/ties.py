"""Tie structure: how many levels a judge really uses and how often a selector breaks ties at
random ("The Format is the Filter"), for the loaded pairwise judge and for pointwise score tables.

Load → one evalcore call per section → draw (:mod:`ui.ties_view`); the pointwise table is read
into the session like the Data page reads verdicts."""

from __future__ import annotations

import streamlit as st

import ui as _ui
from evalcore.present.ties import EXPLAIN
from ui.ties_view import pairwise_section, pointwise_section, pointwise_table

with _ui.page("Tie structure"):
    st.title("Tie structure")
    store = _ui.require_data()
    _ui.demo_banner()
    st.markdown(EXPLAIN["intro"])

    st.header("Pairwise judge")
    pairwise_section(store)

    st.divider()
    st.header("Pointwise scores: the format or the judge?")
    st.markdown(EXPLAIN["pointwise"])
    scores, demo = pointwise_table()
    if scores is None:
        st.info(EXPLAIN["no_pointwise"])
        _ui.stop()
    pointwise_section(scores, demo=demo)
