"""The Data page's saved-datasets panel (the workspace's datasets as widgets), its note on what a
counts table can show, its map of the pairs' coverage and its optional human ranking.

The workspace itself (:mod:`evalcore.store.workspace`) and the session's loading and saving
(:mod:`ui.state`) do the work; this module only lays the widgets out and shows their messages.
"""

from __future__ import annotations

import streamlit as st

from evalcore.ingest.files import read_human_ranking
from evalcore.plots.common import CONFIG
from evalcore.plots.summary import coverage_heatmap
from evalcore.present import summary as show
from evalcore.present.display import shorten_cells
from evalcore.schema import VerdictFormatError
from evalcore.store.store import VerdictStore
from evalcore.store.workspace import MAX_NAME, WorkspaceError
from ui.messages import error, info
from ui.state import delete_saved, load_saved, save_loaded, state, workspace
from ui.widgets import download_csv


def saved_datasets(store: VerdictStore) -> None:
    """The Data page's "Saved datasets" panel: save what is loaded, list, load, delete and restore
    earlier versions of the workspace's datasets (widget keys ``save_*`` and ``saved_*``)."""
    s = state()
    with st.expander("Saved datasets", icon=":material/save:"):
        ws = workspace()
        st.caption(show.workspace_note(ws.path))
        if s.get("demo"):
            st.caption("The demo is bundled with the app: upload a file to save it here.")
        elif not store.is_empty:
            with st.form("save_dataset", border=False):
                name = show.default_save_name(s.get("saved"), s.get("source"))
                save_name = st.text_input("Save the loaded data as", name, MAX_NAME, key="save_name")
                replace = st.checkbox("Replace a saved dataset of the same name", key="save_replace")
                submitted = st.form_submit_button("Save")
            if submitted:
                try:
                    st.success(show.saved_message(save_loaded(save_name, replace=replace)))
                except WorkspaceError as exc:
                    error(exc, lead="**Not saved.**")
        try:
            listed = ws.table()
        except WorkspaceError as exc:
            listed = None
            error(exc, lead="**The saved datasets cannot be read.**")
        if listed is not None and listed.empty:
            st.info("No dataset is saved yet.")
        elif listed is not None:
            when = {"Saved (UTC)": st.column_config.DatetimeColumn(format="YYYY-MM-DD HH:mm")}
            shown = shorten_cells(show.saved_table(listed))
            st.dataframe(shown, hide_index=True, key="saved_table", column_config=when)
            download_csv(listed, "saved_datasets.csv", key="dl_saved")
            pick = st.selectbox("Saved dataset", listed["name"].tolist(), key="saved_pick")
            load_col, delete_col = st.columns(2)
            if load_col.button("Load", key="saved_load"):
                try:
                    load_saved(pick)
                    st.rerun()
                except WorkspaceError as exc:
                    error(exc, lead="**Not loaded.**")
            confirm = delete_col.checkbox("Confirm deletion", key="saved_confirm")
            if delete_col.button("Delete", key="saved_delete", disabled=not confirm):
                delete_saved(pick)
                st.rerun()
            history = ws.history(pick)
            if history:
                versions = {"key": "saved_version_pick", "format_func": show.version_label}
                old = st.selectbox("Previous versions", history, help=show.VERSIONS_HELP, **versions)
                if st.button("Restore this version", key="saved_restore"):
                    try:
                        current = show.listed_version(listed, pick)
                        restored = ws.restore(pick, old.version, expected_version=current)
                        st.success(show.saved_message(restored))
                    except WorkspaceError as exc:
                        error(exc, lead="**Not restored.**")


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


def coverage_map(summary) -> None:
    """The Data page's judge calls per pair of models: one sentence for an evenly covered table, a
    note beyond :data:`~evalcore.present.ranking.HEATMAP_MODEL_LIMIT` models (10,000 models would
    be a map of a hundred million cells; the pairs' download below has every pair), else the map."""
    from evalcore.present.ranking import map_too_large

    even = show.even_coverage_sentence(summary)
    too_large = map_too_large(len(summary.models), "The map", "download the pairs below.")
    if even:
        st.markdown("**Judge calls per pair of models:** " + even)
    elif too_large:
        info(too_large)
    else:
        st.plotly_chart(coverage_heatmap(summary), config=CONFIG, key="coverage")


def human_ranking_section() -> None:
    """The Data page's optional human ranking (``model, score``): shown once given, kept in the
    session (the pages that compare the judges with humans read it); a new one forgets the
    session's results, which may have used the old one."""
    s = state()
    with st.expander("Human ranking (optional): `model, score`, higher is better"):
        hr = s.get("human_ranking")
        if hr is not None:
            st.dataframe(shorten_cells(hr), hide_index=True)
        ranking_file = st.file_uploader("Upload a human ranking", show.RANKING_TYPES, key="ranking_upload")
        if ranking_file is not None and ranking_file.file_id != s.get("ranking_id"):
            s["ranking_id"] = ranking_file.file_id
            try:
                s["human_ranking"] = read_human_ranking(ranking_file.getvalue(), name=ranking_file.name)
                s["memo"] = {}
                st.rerun()
            except VerdictFormatError as exc:
                error(exc, lead="**The ranking was not loaded.**")
