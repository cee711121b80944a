"""Verdict Lab: the entry point and the Data page (``streamlit run app.py``).

``streamlit run app.py`` imports this file and serves :data:`app` below, a Streamlit App whose
start-up hook loads what every page's first draw needs before the server answers, then computes
the demo's results in the background (:mod:`ui.warm`). The App runs this file as its main page
(``__main__``, as a test's ``AppTest`` does): the Data page, to load the demo or a verdict file."""

from __future__ import annotations

import os

# Many small solves: on a shared or 2-core server OpenBLAS's thread pool costs more than the work
# (docs/development.md). Set before numpy loads, as the commands do; a server's own setting wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import streamlit as st  # noqa: E402

if __name__ != "__main__":  # imported by the server for the App it serves: nothing is drawn here
    import asyncio
    import contextlib
    import importlib
    import logging
    import sys

    from starlette.middleware import Middleware

    HOLD_SECONDS = 60.0

    def _hold() -> None:
        """Before the server answers: ``ui`` (pandas, DuckDB; it starts :mod:`ui.warm`, which reads
        the demo meanwhile), every module a page imports (:func:`ui.warm.load_page_imports`: SciPy,
        Plotly; a page draws no word before its imports), and the demo read."""
        try:
            importlib.import_module("ui")
            warm = sys.modules["ui.warm"]
            warm.load_page_imports()
            warm.wait_read(HOLD_SECONDS)  # the demo read, which every page's first draw copies
        except Exception:  # noqa: BLE001 - the page that imports it says why
            logging.getLogger("app").warning("Loading the libraries at start failed.", exc_info=True)

    class _Opening:
        """Words on the page before Streamlit's scripts run (:mod:`ui.opening`, loaded by then)."""

        def __init__(self, app) -> None:
            self.app = app

        async def __call__(self, scope, receive, send) -> None:
            from ui.opening import with_opening_words

            await with_opening_words(self.app, scope, receive, send)

    @contextlib.asynccontextmanager
    async def _lifespan(_app):
        from ui.serving import no_delay

        no_delay()  # small answers sent at once (the listening socket is bound by now)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.to_thread(_hold), HOLD_SECONDS)  # no blank first page
        yield  # the server answers from here on, until it stops
        if (warm := sys.modules.get("ui.warm")) is not None:  # then the demo's work stops too
            await asyncio.to_thread(warm.stop)

    app = st.App(__file__, lifespan=_lifespan, middleware=[Middleware(_Opening)])
else:  # the Data page
    import ui as _ui
    from evalcore.ingest.datafolder import data_dir, list_data_files, resolve_data_file
    from evalcore.present import summary as show
    from evalcore.present.display import shorten_cells
    from evalcore.ties.both_bad import both_bad_share
    from ui.datasets import coverage_map, human_ranking_section, loaded_note
    from ui.navigation import unknown_page

    with _ui.page("Data"):
        st.title("Verdict Lab")
        st.markdown(show.INTRO)

        if (asked := unknown_page()) is not None:  # a link with a page name that is not one of ours
            st.warning(
                f"The link asks for the page {_ui.code_span('/' + asked)}, which this app does not have; "
                "the Data page is shown. The pages are listed in the sidebar.",
                icon=":material/link_off:",
            )
        store = _ui.ensure_data()
        s = _ui.state()
        read = _ui.read_into_session

        left, right = st.columns(2)
        with left:
            st.subheader("Use the demo")
            demo = st.selectbox("Demo dataset", list(_ui.DEMO_DATASETS), key="demo_choice")
            if st.button("Load demo", key="load_demo"):
                _ui.load_demo(demo)
                st.rerun()
            st.caption(show.DEMO_NOTE)
        with right:
            st.subheader("Upload your verdicts")
            upload = st.file_uploader(show.UPLOAD_LABEL, type=show.UPLOAD_TYPES, key="upload")
            st.caption(show.COLUMNS_NOTE)
            if upload is not None and upload.file_id != s.get("upload_id"):
                s["upload_id"] = upload.file_id
                read(
                    upload.name,
                    lambda: _ui.session_store().load_bytes(upload.getvalue(), name=upload.name),
                    upload=upload,
                )
            if data_dir() is not None:
                files = list_data_files()
                st.subheader("Or pick a file from the server's data folder")
                if not files:
                    st.caption("The server's data folder holds no verdict file.")
                else:
                    why = show.DATA_FOLDER_HELP
                    picked = st.selectbox("File in the data folder", files, key="data_folder_pick", help=why)
                    if st.button("Load this file", key="data_folder_load") and read(
                        picked, lambda: _ui.session_store().load_file(resolve_data_file(picked), name=picked)
                    ):
                        st.rerun()
            if s.get("error"):
                st.error(show.load_error(s["error"], previous=s.get("source")))

        _ui.saved_datasets(store)

        if store.is_empty:
            st.info("Nothing is loaded yet: load the demo or upload a file.")
            _ui.stop()

        with _ui.busy("Summarising the loaded table: calls, models, judges and pairs…"):
            summary = _ui.memo(("summary",), store.summary)
        st.divider()
        st.subheader(f"Loaded: {_ui.code_span(summary.name)}")
        _ui.demo_banner()
        st.caption(f"Recognised as **{_ui.escape_markdown(s.get('format') or store.format)}**.")
        loaded_note(store)  # a counts table: what it can and cannot show
        _ui.info(*s.get("notes", ()))

        for col, (label, value) in zip(st.columns(5), show.metric_cells(summary), strict=True):
            col.metric(label, value)

        st.markdown(show.design_markdown(summary))
        if summary.design == "anchor-only":
            st.caption(show.ANCHOR_NOTE)
        both_bad = _ui.memo(("both_bad", None, None), lambda: both_bad_share(store))
        if both_bad is not None:  # a table that keeps "both bad" apart from "tie" (Chatbot Arena)
            st.markdown(show.both_bad_markdown(both_bad))

        st.markdown("**Calls with no verdict, per judge** (kept and counted, never imputed)")
        nv_table = shorten_cells(show.no_verdict_table(summary))  # a long judge name cut for the eye
        st.dataframe(nv_table, hide_index=True, column_config=_ui.count_columns(nv_table))
        _ui.download_csv(summary.no_verdict, "no_verdict_per_judge.csv", key="dl_nv")

        coverage_map(summary)  # a sentence when even, a note beyond 150 models, else the map
        _ui.download_csv(summary.pair_coverage, "pair_coverage.csv", key="dl_cov")

        human_ranking_section()  # an optional human ranking to compare the judges with
