"""What the pages say about a counts table: the Data page names it, and the pages that list
single calls say in words that a counts table has none (the words are evalcore's)."""

from __future__ import annotations

import streamlit as st

from evalcore.ingest.counts_table import SINGLE_CALLS_NOTE

#: The Data page's line under "Recognised as …" for a counts table.
LOADED_NOTE = (
    "Every call of this table is counted, not listed: the leaderboard, the judge, calibration, "
    "anchors and ties read counts and give the same numbers as the raw table. The Verdicts page "
    "lists single calls with their text, which a counts table does not hold."
)


def loaded_note(store) -> None:
    """On the Data page: what a loaded counts table can and cannot show."""
    if store.is_counts_table:
        st.info(LOADED_NOTE, icon=":material/functions:")


def stop_without_single_calls(store) -> None:
    """On a page that lists single calls: say in words that a counts table has none, and stop."""
    if store.is_counts_table:
        st.info(SINGLE_CALLS_NOTE, icon=":material/functions:")
        st.stop()
