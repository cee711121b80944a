"""Verdict Lab: the entry point. ``streamlit run app.py`` opens the demo data on the Data page."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from views import _ui

HERE = Path(__file__).resolve().parent

st.set_page_config(page_title="Verdict Lab", page_icon=str(HERE / "data" / "favicon.png"), layout="wide")

#: (file, title, icon): the pages, in the order of the sidebar. Missing files are skipped.
PAGES: tuple[tuple[str, str, str], ...] = (
    ("views/data.py", "Data", ":material/database:"),
    ("views/overview.py", "Overview", ":material/summarize:"),
    ("views/leaderboard.py", "Leaderboard", ":material/leaderboard:"),
    ("views/anchors.py", "Anchors", ":material/anchor:"),
    ("views/judge.py", "Judge", ":material/gavel:"),
    ("views/ties.py", "Tie structure", ":material/drag_handle:"),
    ("views/power.py", "Power", ":material/straighten:"),
    ("views/calibration.py", "Calibration", ":material/tune:"),
)

pages = [st.Page(path, title=title, icon=icon, default=(i == 0))
         for i, (path, title, icon) in enumerate(PAGES) if (HERE / path).exists()]
# Every page runs inside one wrapper: an error is an error box in words, never a traceback.
_ui.run_page(st.navigation(pages))
